import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkWritableOnDisk } from "./check-writable.js";
import { loadWorld } from "../world/load-world.js";
import { saveWorld } from "../world/save-world.js";
import { hardReset } from "../reducers/hard-reset.js";
import { memoryIO, type MemoryIO } from "./memory-io.js";
import { EXIT, runCli } from "./run.js";
import { parseCount, parsePort, parseSeconds, serveCommand } from "./serve.js";
import type { CliIO } from "./command.js";

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

  it("says at start that connector steps wait unless --connectors-complete, and not when it is given (cone get --wait polled forever: SDK review F3)", async () => {
    for (const [flags, hinted] of [[[], true], [["--connectors-complete"], false]] as const) {
      const io = memoryIO({ fallback: disk });
      const done = runCli(["serve", "--world", "fixtures/world.json", "--port", "0", ...flags], io);
      await until(io, (out) => out.includes("Ctrl-C"));
      expect(io.out().includes("connector provision steps wait for a report; --connectors-complete lets connectors finish them"), flags.join(" ")).toBe(hinted);
      io.signal("SIGTERM");
      expect(await done).toBe(EXIT.ok);
    }
  });

  it("a world with no tokens and no API clients (a pulled one) is served with a warning that every request will answer 401, naming client add (e2e review)", async () => {
    const fixture = JSON.parse(disk("fixtures/world.json")) as Record<string, unknown>;
    for (const [name, world, warned] of [
      ["pulled.json", { ...fixture, tokens: {}, clients: [] }, true],
      ["fixture.json", fixture, false],
    ] as const) {
      const io = memoryIO({ files: { [name]: JSON.stringify(world) }, fallback: disk });
      const done = runCli(["serve", "--world", name, "--port", "0"], io);
      await until(io, (out) => out.includes("Ctrl-C"));
      expect(io.err().includes(`warning: the world has no tokens and no API clients, so every API request answers 401 (only /auth/v1/token is open): register a client with \`policy-sim client add --world ${name} --user <userId> --out <file>\``), name).toBe(warned);
      io.signal("SIGTERM");
      expect(await done).toBe(EXIT.ok);
    }
  });

  it("--clock system runs the world on the wall clock (said at start; the world's clock moves to now); --clock world keeps it; another value is exit 2", async () => {
    const io = memoryIO({ fallback: disk });
    const done = runCli(["serve", "--world", "fixtures/world.json", "--port", "0", "--clock", "system", "--out", "after.json"], io);
    await until(io, (out) => out.includes("Ctrl-C"));
    expect(io.out()).toContain("the clock is the wall clock: the world's moved from 2026-11-22T09:00:00Z to now");
    io.signal("SIGTERM");
    expect(await done).toBe(EXIT.ok);
    // memoryIO's clock starts at the epoch and moves a second per reading: the world's clock is not moved back.
    const saved = JSON.parse(io.written.get("after.json") ?? "null") as { now: string };
    expect(Date.parse(saved.now)).toBeGreaterThanOrEqual(Date.parse("2026-11-22T09:00:00Z"));
    const kept = memoryIO({ fallback: disk });
    const stays = runCli(["serve", "--world", "fixtures/world.json", "--port", "0"], kept);
    await until(kept, (out) => out.includes("Ctrl-C"));
    expect(kept.out()).toContain("the clock stays at the world's 2026-11-22T09:00:00Z; --clock system runs it on the wall clock");
    kept.signal("SIGTERM");
    expect(await stays).toBe(EXIT.ok);
    const bad = memoryIO({ fallback: disk });
    expect(await runCli(["serve", "--world", "fixtures/world.json", "--port", "0", "--clock", "fast"], bad)).toBe(EXIT.badInput);
    expect(bad.err()).toContain('--clock is "world"');
  });

  it("--clock system says on stderr, once, when the clock cannot move (a policy whose escalations loop refuses the tick), and serves on", async () => {
    const raw = JSON.parse(disk("fixtures/world.json"));
    raw.policies.push({
      id: "pol-loop",
      displayName: "loop",
      policyType: "POLICY_TYPE_GRANT",
      rules: [],
      policySteps: { grant: { steps: [{ approval: { escalationEnabled: true, escalation: { escalationComment: "esc", expiration: "0s", replacePolicy: { policyId: "pol-loop" } }, users: { userIds: ["u-ciso"] } } }] } },
    });
    raw.entitlements.find((e: { id: string }) => e.id === "ent-aws-prod-admin").grantPolicyId = "pol-loop";
    const loaded = loadWorld(raw);
    if (!loaded.ok) throw new Error("loop world does not load");
    const reset = hardReset(loaded.value, { taskId: "1001" }, { actorId: "u-it-dir" });
    if (!reset.ok) throw new Error(reset.error.message);
    let ms = Date.parse("2026-11-22T10:00:00Z");
    const io = Object.assign(memoryIO({ files: { "loop.json": JSON.stringify(saveWorld(reset.value.world)) }, fallback: disk }), { now: () => (ms += 1000) });
    const done = runCli(["serve", "--world", "loop.json", "--port", "0", "--clock", "system"], io);
    await until(io, (out) => out.includes("Ctrl-C"));
    const url = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(io.out())?.[1] ?? "";
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${url}/api/v1/tasks/1001`, { headers: { authorization: "Bearer tok-super" } });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    io.signal("SIGTERM");
    expect(await done).toBe(EXIT.ok);
    const told = io.err().split("\n").filter((l) => l.startsWith("the clock could not move to "));
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(/: FAILED_PRECONDITION: task 1001 fired 1,000 timers in one tick .*; the world stays at 2026-11-22T09:00:00Z, and what falls due after it does not fire until this is fixed$/);
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
      expect(io.err()).toBe(`cannot listen on 127.0.0.1:${port}: the port is in use (try --port 0 for a free one)\nusage: ${serveCommand.usage}\n`);
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

  it("the connection flags: seconds and counts, refused when nonsensical", async () => {
    expect(parseSeconds("--header-timeout", "2.5", 10_000)).toBe(2500);
    expect(parseSeconds("--header-timeout", undefined, 10_000)).toBe(10_000);
    for (const bad of ["0", "-1", "ten", "1e3", ""]) expect(() => parseSeconds("--header-timeout", bad, 1)).toThrow(/--header-timeout must be/);
    expect(parseCount("--max-connections", "256", 1024)).toBe(256);
    for (const bad of ["0", "1.5", "x"]) expect(() => parseCount("--max-connections", bad, 1)).toThrow(/--max-connections must be/);
    const io = memoryIO({ fallback: disk });
    expect(await runCli(["serve", "--world", "fixtures/world.json", "--port", "0", "--header-timeout", "60", "--request-timeout", "5"], io)).toBe(EXIT.badInput);
    expect(io.err()).toMatch(/--header-timeout \(60\) must not exceed --request-timeout \(5\)/);
  });

  it("--max-audit-events bounds the audit log; the stop line says how many were no longer kept", async () => {
    const bad = memoryIO({ fallback: disk });
    expect(await runCli(["serve", "--world", "fixtures/world.json", "--port", "0", "--max-audit-events", "0"], bad)).toBe(EXIT.badInput);
    expect(bad.err()).toMatch(/--max-audit-events must be a whole number greater than 0/);
    const io = memoryIO({ fallback: disk });
    const done = runCli(["serve", "--world", "fixtures/world.json", "--port", "0", "--max-audit-events", "1"], io);
    const url = await started(io);
    for (const text of ["one", "two", "three"]) await commentOn(url, text);
    const audits = await fetch(`${url}/api/v1/task/audits`, {
      method: "POST",
      headers: { authorization: "Bearer tok-super", "content-type": "application/json" },
      body: JSON.stringify({ taskId: "1001" }),
    });
    // The log keeps one event; the comments themselves stay in the world and are all listed.
    expect(((await audits.json()) as { list: { comment?: { comment: string } }[] }).list.map((r) => r.comment?.comment)).toEqual([
      "Change window starts 10:00 CET; CHG-4821 was approved by the CAB on Friday.",
      "one",
      "two",
      "three",
    ]);
    io.signal("SIGINT");
    expect(await done).toBe(EXIT.ok);
    expect(io.err()).toMatch(/^stopped on SIGINT after 3 audit events \(the oldest 2 no longer kept\)\n$/);
  });
});

/** A socket that sends a request's headers and part of its body, then nothing: a slow client. */
async function slowClient(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const s = await new Promise<Socket>((resolve, reject) => {
    const c = connect(Number(port), hostname, () => resolve(c));
    c.once("error", reject);
  });
  s.on("error", () => undefined);
  s.resume();
  s.write("POST /api/v1/tasks/1001/action/comment HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer tok-super\r\nContent-Length: 1000\r\n\r\n{\"comment\":");
  return s;
}

async function started(io: MemoryIO): Promise<string> {
  await until(io, (out) => out.includes("Ctrl-C"));
  const url = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(io.out())?.[1];
  if (url === undefined) throw new Error("no url printed");
  return url;
}

async function commentOn(url: string, text: string): Promise<void> {
  const res = await fetch(`${url}/api/v1/tasks/1001/action/comment`, {
    method: "POST",
    headers: { authorization: "Bearer tok-super", "content-type": "application/json", connection: "close" },
    body: JSON.stringify({ comment: text }),
  });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
}

const commentsIn = (json: string | undefined): string[] => {
  const w = loadWorld(JSON.parse(json ?? "null"));
  return w.ok ? [...w.value.comments.values()].flatMap((cs) => cs.map((c) => c.comment)) : [];
};

describe("issue 12 point 9: shutdown has a deadline, writes --out first, and a second signal still writes", () => {
  it("a slow client holds shutdown no longer than --shutdown-timeout, and --out is written before the wait", async () => {
    const io = memoryIO({ fallback: disk });
    const done = runCli(["serve", "--world", "fixtures/world.json", "--port", "0", "--out", "after.json", "--shutdown-timeout", "1.5"], io);
    const url = await started(io);
    await commentOn(url, "accepted before the signal");
    const slow = await slowClient(url);
    const t0 = Date.now();
    io.signal("SIGINT");
    // Written at once, while the slow client still holds its request open.
    await new Promise((r) => setTimeout(r, 200));
    expect(commentsIn(io.written.get("after.json"))).toContain("accepted before the signal");
    expect(await done).toBe(EXIT.ok);
    const ms = Date.now() - t0;
    expect(ms).toBeGreaterThanOrEqual(1000);
    expect(ms).toBeLessThan(10_000);
    expect(io.err()).toMatch(/^stopped on SIGINT after 1 audit event; world written to after\.json\n$/);
    slow.destroy();
  });

  it("a second signal cuts the wait short and still writes --out", async () => {
    const io = memoryIO({ fallback: disk });
    const done = runCli(["serve", "--world", "fixtures/world.json", "--port", "0", "--out", "after.json", "--shutdown-timeout", "300"], io);
    const url = await started(io);
    await commentOn(url, "kept through two signals");
    const slow = await slowClient(url);
    io.signal("SIGINT");
    await new Promise((r) => setTimeout(r, 100));
    const t0 = Date.now();
    io.signal("SIGINT");
    expect(await done).toBe(EXIT.ok);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(io.err()).toMatch(/^stopped on SIGINT \(twice: requests in progress were cut off\)/);
    expect(commentsIn(io.written.get("after.json"))).toContain("kept through two signals");
    slow.destroy();
  });

  it("--out is written to a temporary file renamed over it; a failed write is reported and the last good file kept", async () => {
    const base = memoryIO({ fallback: disk });
    base.written.set("after.json", "the last good world");
    const steps: string[] = [];
    const io: MemoryIO & CliIO = {
      ...base,
      writeFile(path, text) {
        steps.push(`write ${path}`);
        if (path !== "after.json") throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
        base.writeFile(path, text);
      },
      rename(from, to) {
        steps.push(`rename ${from} ${to}`);
        base.rename?.(from, to);
      },
      removeFile(path) {
        steps.push(`remove ${path}`);
        base.removeFile?.(path);
      },
    };
    const done = runCli(["serve", "--world", "fixtures/world.json", "--port", "0", "--out", "after.json"], io);
    const url = await started(base);
    await commentOn(url, "lost to a full disk");
    base.signal("SIGTERM");
    expect(await done).toBe(EXIT.findings);
    expect(base.err()).toMatch(/could not write after\.json: ENOSPC: no space left on device; after\.json keeps its last good contents/);
    expect(base.err()).not.toMatch(/world written to/);
    expect(base.written.get("after.json")).toBe("the last good world");
    // Never written in place: a temporary file, then (had it worked) a rename.
    expect(steps).not.toContain("write after.json");
    expect(steps).toContain(`remove after.json.tmp-${process.pid}-0`);
  });

  it("with a working disk the sequence is write temporary, rename over --out", async () => {
    const base = memoryIO({ fallback: disk });
    const steps: string[] = [];
    const io: MemoryIO & CliIO = {
      ...base,
      writeFile(path, text) {
        steps.push(`write ${path}`);
        base.writeFile(path, text);
      },
      rename(from, to) {
        steps.push(`rename ${from} ${to}`);
        base.rename?.(from, to);
      },
    };
    const done = runCli(["serve", "--world", "fixtures/world.json", "--port", "0", "--out", "after.json"], io);
    await started(base);
    base.signal("SIGINT");
    expect(await done).toBe(EXIT.ok);
    expect(steps).toEqual([`write after.json.tmp-${process.pid}-0`, `rename after.json.tmp-${process.pid}-0 after.json`]);
    expect(loadWorld(JSON.parse(base.written.get("after.json") ?? "null")).ok).toBe(true);
  });
});

describe("serve --out is checked at start, and a failed save is reported at once", () => {
  const scratch = mkdtempSync(join(tmpdir(), "policy-sim-serve-out-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  /** Files in memory, the real disk for whether --out can be written: as the executable checks it. */
  const diskChecked = (): MemoryIO => ({ ...memoryIO({ fallback: disk }), checkWritable: checkWritableOnDisk });

  it.each([
    ["a missing directory", "/nonexistent/dir/x.json", "cannot write --out /nonexistent/dir/x.json: the directory /nonexistent/dir does not exist (ENOENT); create it first, or choose a path in an existing directory\n"],
    ["a directory", "/tmp", "cannot write --out /tmp: it is a directory (EISDIR); give a file path, such as /tmp/world.json\n"],
    ["a device, which a rename would replace", "/dev/full", "cannot write --out /dev/full: it is not a regular file but a device, a pipe or a socket, and it would be replaced whole (a temporary file renamed over it); give the path of a regular file\n"],
  ])("%s: exit 2 before listening, no banner", async (_what, out, message) => {
    const io = diskChecked();
    let listened = false;
    io.onShutdown = () => {
      listened = true;
      return () => undefined;
    };
    expect(await runCli(["serve", "--world", "fixtures/world.json", "--port", "0", "--out", out], io)).toBe(EXIT.badInput);
    expect([io.err(), io.out(), listened]).toEqual([message, "", false]);
    expect(existsSync("/nonexistent")).toBe(false);
  });

  it("a writable --out: serves, leaves the file as it was until shutdown, then replaces it", async () => {
    const out = join(scratch, "served.json");
    writeFileSync(out, "the last good world");
    const io = diskChecked();
    const done = runCli(["serve", "--world", "fixtures/world.json", "--port", "0", "--out", out], io);
    await started(io);
    expect(readFileSync(out, "utf8")).toBe("the last good world");
    expect(readdirSync(scratch)).toEqual(["served.json"]);
    io.signal("SIGINT");
    expect(await done).toBe(EXIT.ok);
    expect(commentsIn(io.written.get(out))).toEqual(commentsIn(disk("fixtures/world.json")));
  });

  it("a save that fails (disk full) is on stderr at once, while requests in progress still hold shutdown; the last good file is kept", async () => {
    const base = memoryIO({ fallback: disk });
    base.written.set("after.json", "the last good world");
    const io: MemoryIO & CliIO = {
      ...base,
      writeFile(path, text) {
        if (path !== "after.json") throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
        base.writeFile(path, text);
      },
    };
    const done = runCli(["serve", "--world", "fixtures/world.json", "--port", "0", "--out", "after.json", "--shutdown-timeout", "300"], io);
    const url = await started(base);
    await commentOn(url, "accepted, then the disk filled");
    const slow = await slowClient(url);
    base.signal("SIGINT");
    await new Promise((r) => setTimeout(r, 200));
    // The slow client still holds the server open: the report did not wait for it.
    expect(base.err()).toBe("could not write after.json: ENOSPC: no space left on device; after.json keeps its last good contents\n");
    expect(base.written.get("after.json")).toBe("the last good world");
    base.signal("SIGINT");
    expect(await done).toBe(EXIT.findings);
    slow.destroy();
  });
});
