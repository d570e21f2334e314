import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { loadWorld } from "../world/load-world.js";
import { memoryIO, type MemoryIO } from "./memory-io.js";
import { EXIT, runCli } from "./run.js";
import { parsePort } from "./serve.js";

const disk = (p: string): string => readFileSync(p, "utf8");

/** Waits until the command has printed what `ready` looks for. */
async function until(io: MemoryIO, ready: (out: string) => boolean): Promise<void> {
  for (let i = 0; i < 200 && !ready(io.out()); i++) await new Promise((r) => setTimeout(r, 10));
  if (!ready(io.out())) throw new Error(`never ready; stdout: ${io.out()} stderr: ${io.err()}`);
}

describe("policy-sim serve", () => {
  it("serves on a free port, answers a comment, stops cleanly on SIGINT and writes --out", async () => {
    const io = memoryIO({ fallback: disk });
    const done = runCli(["serve", "--world", "fixtures/world.json", "--port", "0", "--out", "after.json"], io);
    await until(io, (out) => out.includes("Ctrl-C"));
    const url = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(io.out())?.[1];
    expect(url).toBeDefined();

    const res = await fetch(`${url ?? ""}/api/v1/tasks/1001/action/comment`, {
      method: "POST",
      headers: { authorization: "Bearer tok-super", "content-type": "application/json" },
      body: JSON.stringify({ comment: "from the serve test" }),
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();

    io.signal("SIGINT");
    expect(await done).toBe(EXIT.ok);
    expect(io.err()).toMatch(/^stopped on SIGINT after \d+ audit events?; world written to after\.json\n$/);
    const after = loadWorld(JSON.parse(io.written.get("after.json") ?? "null"));
    expect(after.ok && [...after.value.comments.entries()].some(([, cs]) => cs.some((c) => c.comment === "from the serve test"))).toBe(true);
    // The port is closed: a new connection is refused.
    await expect(fetch(`${url ?? ""}/`)).rejects.toThrow();
  });

  it("--json prints { url }; SIGTERM stops it too", async () => {
    const io = memoryIO({ fallback: disk });
    const done = runCli(["serve", "--world", "fixtures/world.json", "--port", "0", "--json"], io);
    await until(io, (out) => out.includes("}"));
    expect(JSON.parse(io.out())).toEqual({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) as unknown });
    io.signal("SIGTERM");
    expect(await done).toBe(EXIT.ok);
    expect(io.err()).toMatch(/^stopped on SIGTERM/);
  });

  it("a port in use: one line, exit 2", async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
    const { port } = blocker.address() as AddressInfo;
    try {
      const io = memoryIO({ fallback: disk });
      expect(await runCli(["serve", "--world", "fixtures/world.json", "--port", String(port)], io)).toBe(EXIT.badInput);
      expect(io.err()).toBe(`cannot listen on 127.0.0.1:${port}: the port is in use (try --port 0 for a free one)\nusage: policy-sim serve --world <file> [--port <n>] [--host <addr>] [--out <file>] [--json]\n`);
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });

  it("a bad port, a missing world: exit 2 before listening", async () => {
    const io = memoryIO({ fallback: disk });
    expect(await runCli(["serve", "--world", "fixtures/world.json", "--port", "http"], io)).toBe(EXIT.badInput);
    expect(io.err()).toMatch(/^--port must be a number from 0 to 65535, not "http"/);
    expect(await runCli(["serve", "--port", "0"], memoryIO())).toBe(EXIT.badInput);
  });

  it("parsePort", () => {
    expect(parsePort(undefined)).toBe(8080);
    expect(parsePort("0")).toBe(0);
    expect(parsePort("65535")).toBe(65535);
    for (const bad of ["65536", "-1", "1.5", "", "0x10"]) expect(() => parsePort(bad)).toThrow(/--port must be/);
  });
});
