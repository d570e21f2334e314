/**
 * `policy-sim pull` as a command: the world written streamed and whole or not at all, a byte budget
 * (`--max-bytes`), and progress lines where no bar is drawn.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_TOTAL_BYTES } from "../pull/api-client.js";
import { fakeApi, fixture, type Json } from "../pull/fake-api.test-helper.js";
import { loadWorld } from "../world/load-world.js";
import { getHeapStatistics } from "node:v8";
import type { CliIO } from "./command.js";
import { type MemoryIO, memoryIO } from "./memory-io.js";
import { defaultMaxBytes, PROGRESS_LINE_MS, PROGRESS_LINE_PAGES, pullCommand } from "./pull.js";
import { EXIT, runCli } from "./run.js";

const env = { POLICY_SIM_TOKEN: "tok-admin" };
const pullArgs = (...more: string[]) => ["pull", "--base-url", "https://api.test", "--out", "t.json", ...more];

/** A memory IO that writes files from chunks (as the real one does), recording each write. */
function chunkedIO(fetchFn: typeof fetch, fail?: { afterChunks: number; code: string }) {
  const base = memoryIO({ env, fetch: fetchFn });
  const calls: string[] = [];
  const chunkSizes: number[] = [];
  const io: MemoryIO & Required<Pick<CliIO, "writeFileChunks">> = {
    ...base,
    writeFile(path, text) {
      calls.push(`writeFile ${path}`);
      base.writeFile(path, text);
    },
    writeFileChunks(path, chunks) {
      calls.push(`writeFileChunks ${path}`);
      let text = "";
      for (const chunk of chunks) {
        if (fail && chunkSizes.length === fail.afterChunks) {
          // Half a file on disk, then the disk is full.
          base.writeFile(path, text);
          throw Object.assign(new Error(`${fail.code}: write failed`), { code: fail.code });
        }
        chunkSizes.push(chunk.length);
        text += chunk;
      }
      base.writeFile(path, text);
    },
    rename(from, to) {
      calls.push(`rename ${from} ${to}`);
      base.rename?.(from, to);
    },
  };
  return { io, calls, chunkSizes };
}

describe("policy-sim pull writes the world streamed, whole or not at all", () => {
  it("in chunks to a temporary file renamed over --out: no string holds the whole world (V8 caps one at ~512 MiB: a tenant of ~55k tasks)", async () => {
    const { io, calls, chunkSizes } = chunkedIO(fakeApi(fixture).fetch);
    const code = await runCli(pullArgs("--state", "all"), io);
    expect(code).toBe(EXIT.ok);
    expect(calls).toEqual(["writeFileChunks t.json.pull-tmp", "rename t.json.pull-tmp t.json"]);
    expect(chunkSizes.length).toBeGreaterThan(5);
    expect(Math.max(...chunkSizes)).toBeLessThan(256 * 1024);
    expect([...io.written.keys()]).toEqual(["t.json"]);
    const loaded = loadWorld(JSON.parse(io.written.get("t.json") ?? ""), { strict: false });
    expect(loaded.ok && loaded.value.tasks.size).toBe(fixture.tasks.length);
  });

  it("a write that fails part-way (a full disk) leaves the previous --out as it was and no temporary file: exit 2, saying why", async () => {
    const { io } = chunkedIO(fakeApi(fixture).fetch, { afterChunks: 3, code: "ENOSPC" });
    io.writeFile("t.json", "the last good pull");
    const code = await runCli(pullArgs(), io);
    expect(code).toBe(EXIT.badInput);
    expect(io.err()).toMatch(/cannot write --out t\.json: no space left on the device \(ENOSPC\)/);
    expect(io.written.get("t.json")).toBe("the last good pull");
    expect([...io.written.keys()]).toEqual(["t.json"]);
  });

  it("a world that does not load is still written (as pulled), streamed the same way", async () => {
    const broken = { ...fixture, policies: [...fixture.policies, { id: "pol-broken", displayName: "broken", policySteps: "not an object" }] };
    const { io, calls } = chunkedIO(fakeApi(broken).fetch);
    const code = await runCli(pullArgs(), io);
    expect(code).toBe(EXIT.findings);
    expect(io.err()).toMatch(/pulled, but the world does not load/);
    expect(calls).toEqual(["writeFileChunks t.json.pull-tmp", "rename t.json.pull-tmp t.json"]);
    const doc = JSON.parse(io.written.get("t.json") ?? "") as Json;
    expect((doc["policies"] as Json[]).at(-1)).toMatchObject({ id: "pol-broken", policySteps: "not an object" });
  });

  it("--out that is a device or a pipe (/dev/stdout), which a rename would replace, is written in place", async () => {
    const { io, calls } = chunkedIO(fakeApi(fixture).fetch);
    const device: CliIO = {
      ...io,
      checkWritable(_path, how) {
        if (how === "replace") throw Object.assign(new Error("ENOTREG: not a regular file"), { code: "ENOTREG" });
      },
    };
    expect(await runCli(pullArgs(), device)).toBe(EXIT.ok);
    expect(calls).toEqual(["writeFileChunks t.json"]);
  });
});

/**
 * The fake API, but its task search pages on and on: one task a page, a new token each time. It ends
 * after 20 000 pages, far past what these tests allow, so a pull that lost its bound fails, not hangs.
 */
function endlessTasks() {
  const api = fakeApi(fixture);
  let n = 0;
  const f = (async (input: string | URL | Request, init?: RequestInit) => {
    if (new URL(String(input)).pathname !== "/api/v1/search/tasks") return api.fetch(input, init);
    n++;
    return new Response(JSON.stringify({ list: [{ task: { ...fixture.tasks[0], id: `endless-${n}`, numericId: String(100000 + n) } }], nextPageToken: n < 20_000 ? `e${n}` : "", expanded: [] }), { status: 200 });
  }) as typeof fetch;
  return { fetch: f, pages: () => n };
}

describe("a pull that runs long, off a terminal", () => {
  it("an endless pager: a progress line every few seconds (by the IO's clock), then --max-bytes stops it with TOO_LARGE, exit 2, nothing written", async () => {
    const server = endlessTasks();
    const io = memoryIO({ env, fetch: server.fetch });
    const code = await runCli(pullArgs("--max-bytes", "1MiB", "--concurrency", "1"), io);
    expect(code).toBe(EXIT.badInput);
    expect(io.err()).toMatch(/^pull failed: TOO_LARGE: POST \/api\/v1\/search\/tasks: the answers read so far ran past 1 MiB \(maxTotalBytes\); stopping before the process runs out of memory/m);
    expect(io.written.size).toBe(0);
    const lines = io.err().split("\n").filter((l) => /^pull: tasks: [\d,]+ \([\d,]+ pages\); \d+ of \d+ listings done, [\d.]+ (KiB|MiB) read$/.test(l));
    // memoryIO's clock moves 1 s a reading: a line every five pages, not one a page.
    expect(server.pages()).toBeGreaterThan(100);
    expect(lines.length).toBeGreaterThan(server.pages() / 10);
    expect(lines.length).toBeLessThanOrEqual(Math.ceil(server.pages() / (PROGRESS_LINE_MS / 1000)) + 5);
  });

  it(`without a clock in the IO, a line every ${PROGRESS_LINE_PAGES} pages; --max-items still stops the pager (PAGING)`, async () => {
    const server = endlessTasks();
    const { now: _clockless, ...io } = memoryIO({ env, fetch: server.fetch });
    const code = await runCli(pullArgs("--max-items", "250", "--concurrency", "1"), io);
    expect(code).toBe(EXIT.badInput);
    expect(io.err()).toMatch(/PAGING: .*ran past 250 items/);
    expect(io.err().split("\n").filter((l) => l.startsWith("pull: tasks: "))).toHaveLength(2);
  });

  it("a pull that takes less than PROGRESS_LINE_MS (5 s) says nothing while it runs", async () => {
    const io = { ...memoryIO({ env, fetch: fakeApi(fixture).fetch }), now: () => 0 };
    expect(await runCli(pullArgs(), io)).toBe(EXIT.ok);
    expect(io.err()).not.toMatch(/^pull: /m);
    expect(PROGRESS_LINE_MS).toBe(5000);
  });
});

describe("--max-bytes", () => {
  it("takes bytes or KiB, MiB, GiB, TiB; anything else is exit 2 with the rule", async () => {
    for (const bad of ["0", "lots", "1 PB", "1e9", "0.0001KiB"]) {
      const io = memoryIO({ env, fetch: fakeApi(fixture).fetch });
      expect(await runCli(pullArgs("--max-bytes", bad), io)).toBe(EXIT.badInput);
      expect(io.err()).toContain(`--max-bytes must be a size greater than 0, in bytes or with KiB, MiB, GiB or TiB (such as 8GiB), not "${bad}"`);
    }
    for (const good of ["8GiB", "512 MiB", "1.5gib", "100000000"]) expect(await runCli(pullArgs("--max-bytes", good), memoryIO({ env, fetch: fakeApi(fixture).fetch }))).toBe(EXIT.ok);
    const small = memoryIO({ env, fetch: fakeApi(fixture).fetch });
    expect(await runCli(pullArgs("--max-bytes", "20000"), small)).toBe(EXIT.badInput);
    expect(small.err()).toMatch(/TOO_LARGE: .*ran past 19\.5 KiB \(maxTotalBytes\)/);
  });

  it("defaults to a third of this Node's heap, at most DEFAULT_MAX_TOTAL_BYTES (2 GiB), and the help says so", () => {
    expect(defaultMaxBytes()).toBe(Math.min(DEFAULT_MAX_TOTAL_BYTES, Math.floor(getHeapStatistics().heap_size_limit / 3)));
    expect(pullCommand.usage).toContain("[--max-bytes <size>]");
    expect((pullCommand.help ?? []).join("\n")).toMatch(/--max-bytes <size>\s+the most bytes of answers the whole pull may read/);
  });
});
