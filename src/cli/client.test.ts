import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseClientSecret } from "../http/auth/client-secret.js";
import { loadWorld } from "../world/load-world.js";
import { memoryIO } from "./memory-io.js";
import { EXIT, runCli } from "./run.js";

const disk = (p: string): string => readFileSync(p, "utf8");

describe("policy-sim client add", () => {
  it("registers a client whose secret holds the private half of the public key the world keeps", async () => {
    const io = memoryIO({ fallback: disk });
    const code = await runCli(["client", "add", "--world", "fixtures/world.json", "--user", "u-it-dir", "--id", "ci@sim/pcc", "--out", "w.json", "--json"], io);
    expect(code, io.err()).toBe(EXIT.ok);
    const printed = JSON.parse(io.out()) as { clientId: string; clientSecret: string };
    expect(printed.clientId).toBe("ci@sim/pcc");
    const key = parseClientSecret(printed.clientSecret);
    if (!key.ok) throw new Error(key.error);
    const world = loadWorld(JSON.parse(io.written.get("w.json") ?? "null"));
    if (!world.ok) throw new Error(JSON.stringify(world.error));
    expect(world.value.clients).toEqual([{ clientId: "ci@sim/pcc", userId: "u-it-dir", displayName: "", publicJwk: { kty: "OKP", crv: "Ed25519", x: key.value.x } }]);
    expect(io.written.get("w.json")).not.toContain(key.value.d);
  });
  it("refuses an unknown user and a client id already registered (exit 2)", async () => {
    const io = memoryIO({ fallback: disk });
    expect(await runCli(["client", "add", "--world", "fixtures/world.json", "--user", "u-nobody"], io)).toBe(EXIT.badInput);
    expect(io.err()).toMatch(/u-nobody/);
    const first = memoryIO({ fallback: disk });
    await runCli(["client", "add", "--world", "fixtures/world.json", "--user", "u-it-dir", "--id", "dup", "--out", "w.json"], first);
    const again = memoryIO({ files: { "w.json": first.written.get("w.json") ?? "" } });
    expect(await runCli(["client", "add", "--world", "w.json", "--user", "u-it-dir", "--id", "dup"], again)).toBe(EXIT.badInput);
    expect(again.err()).toMatch(/already registered/);
  });
});
