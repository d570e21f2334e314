import { readFileSync } from "node:fs";
import { request } from "node:https";
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { serve } from "../http/server.js";
import { loadWorld } from "../world/load-world.js";
import { memoryIO, type MemoryIO } from "./memory-io.js";
import { EXIT, runCli } from "./run.js";

const disk = (p: string): string => readFileSync(p, "utf8");
const CERT = "test/fixtures/tls/localhost.crt";
const KEY = "test/fixtures/tls/localhost.key";

async function until(io: MemoryIO, ready: (out: string) => boolean): Promise<void> {
  for (let i = 0; i < 300 && !ready(io.out()); i++) await new Promise((r) => setTimeout(r, 10));
  if (!ready(io.out())) throw new Error(`never ready; stdout: ${io.out()} stderr: ${io.err()}`);
}

/** A POST over HTTPS that trusts only the test certificate (as a client given the certificate would). */
function post(url: string, path: string, body: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const req = request(
      `${url}${path}`,
      { method: "POST", ca: disk(CERT), headers: { authorization: "Bearer tok-super", "content-type": "application/json", "content-length": Buffer.byteLength(text) } },
      (res) => {
        let got = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (got += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: got }));
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

describe("serve --tls-cert/--tls-key: HTTPS for clients that only speak HTTPS to the service", () => {
  it("serves the same routes over HTTPS, prints an https URL, and stops on SIGINT", async () => {
    const io = memoryIO({ fallback: disk });
    const done = runCli(["serve", "--world", "fixtures/world.json", "--port", "0", "--json", "--tls-cert", CERT, "--tls-key", KEY], io);
    await until(io, (out) => out.includes("}"));
    const { url } = JSON.parse(io.out()) as { url: string };
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const res = await post(url, "/api/v1/tasks/1001/action/comment", { comment: "over TLS" });
    expect(res.status).toBe(200);
    expect((JSON.parse(res.body) as { taskView: { task: { numericId: string } } }).taskView.task.numericId).toBe("1001");
    io.signal("SIGINT");
    expect(await done).toBe(EXIT.ok);
  });

  it("one flag without the other, an unreadable file, or files that are not PEM: one line, exit 2, nothing served", async () => {
    for (const [args, message] of [
      [["--tls-cert", CERT], /--tls-cert and --tls-key go together: give --tls-key/],
      [["--tls-key", KEY], /--tls-cert and --tls-key go together: give --tls-cert/],
      [["--tls-cert", "missing.crt", "--tls-key", KEY], /--tls-cert: cannot read missing\.crt/],
      [["--tls-cert", "fixtures/world.json", "--tls-key", KEY], /--tls-cert\/--tls-key: the key and certificate do not make a TLS server/],
    ] as const) {
      const io = memoryIO({ fallback: disk });
      expect(await runCli(["serve", "--world", "fixtures/world.json", "--port", "0", ...args], io)).toBe(EXIT.badInput);
      expect(io.err()).toMatch(message);
      expect(io.out()).toBe("");
    }
  });

  it("a TLS client that connects and never says hello is closed after the header timeout", async () => {
    const loaded = loadWorld(JSON.parse(disk("fixtures/world.json")));
    if (!loaded.ok) throw new Error("fixtures/world.json does not load");
    const server = await serve({ world: loaded.value, port: 0, tls: { cert: disk(CERT), key: disk(KEY) }, headersTimeoutMs: 300, requestTimeoutMs: 1000 });
    try {
      const port = Number(new URL(server.url).port);
      const closedAfter = await new Promise<number>((resolve, reject) => {
        const started = Date.now();
        const socket = connect(port, "127.0.0.1");
        socket.on("error", reject);
        socket.on("close", () => resolve(Date.now() - started));
      });
      expect(closedAfter).toBeGreaterThanOrEqual(250);
      expect(closedAfter).toBeLessThan(5000);
    } finally {
      await server.close({ deadlineMs: 0 });
    }
  });

  it("serve() refuses a tls option that is not { key, cert } with a serve: message", async () => {
    const loaded = loadWorld(JSON.parse(disk("fixtures/world.json")));
    if (!loaded.ok) throw new Error("fixtures/world.json does not load");
    await expect(serve({ world: loaded.value, port: 0, tls: { key: "", cert: disk(CERT) } })).rejects.toThrow(/^serve: tls must be \{ key, cert \}/);
  });
});
