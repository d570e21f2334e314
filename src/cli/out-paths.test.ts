/**
 * Every command that writes a file (`--out`, and `client add`'s rewrite of `--world`): a path that
 * cannot be written is bad input (exit 2) naming the path and the system's reason, found before the
 * work where it can be, never "an internal failure, please report" (exit 70).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkWritableOnDisk } from "./check-writable.js";
import type { CliIO } from "./command.js";
import { memoryIO, type MemoryIO } from "./memory-io.js";
import { EXIT, runCli } from "./run.js";

const disk = (p: string): string => readFileSync(p, "utf8");
const WORLD = "fixtures/world.json";
const scratch = mkdtempSync(join(tmpdir(), "policy-sim-out-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Memory for files, the real disk for whether --out can be written: as the executable checks it. */
const diskChecked = (): MemoryIO => ({ ...memoryIO({ fallback: disk }), checkWritable: checkWritableOnDisk });
/** Memory whose every write fails as a full disk does. */
const fullDisk = (): MemoryIO & CliIO => ({
  ...memoryIO({ fallback: disk }),
  writeFile() {
    throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
  },
});
const run = async (argv: string[], io: MemoryIO = diskChecked()) => {
  const code = await runCli(argv, io);
  return { code, out: io.out(), err: io.err() };
};

const RESET = ["reset", "--world", WORLD, "--task", "1022", "--as", "u-it-dir", "--comment", "Policy changed"];
const COMMENT = ["comment", "--world", WORLD, "--task", "1001", "--as", "u-contractor", "--comment", "hi"];

describe("reset and comment --out that cannot be written: exit 2, the path and the reason, before acting", () => {
  it.each([
    ["a directory", "/tmp", "cannot write --out /tmp: it is a directory (EISDIR); give a file path, such as /tmp/world.json\n"],
    ["a missing directory", "/nonexistent/x.json", "cannot write --out /nonexistent/x.json: the directory /nonexistent does not exist (ENOENT); create it first, or choose a path in an existing directory\n"],
  ])("%s", async (_what, out, message) => {
    for (const argv of [RESET, COMMENT]) {
      const r = await run([...argv, "--out", out]);
      expect([r.code, r.err, r.out]).toEqual([EXIT.badInput, message, ""]);
    }
    expect(existsSync("/nonexistent")).toBe(false);
  });

  it("a full disk (ENOSPC at the write, after the action): exit 2 with the reason, not 70; --json has the error", async () => {
    const r = await run([...RESET, "--out", "after.json"], fullDisk());
    expect(r.code).toBe(EXIT.badInput);
    expect(r.err).toBe("cannot write --out after.json: no space left on the device (ENOSPC); free some space, or write to another disk\n");
    const j = await run([...COMMENT, "--out", "after.json", "--json"], fullDisk());
    expect(j.code).toBe(EXIT.badInput);
    expect(JSON.parse(j.out)).toMatchObject({ error: { code: "BAD_INPUT", message: expect.stringContaining("ENOSPC") as unknown } });
  });

  it("a writable --out still works", async () => {
    const io = diskChecked();
    expect(await runCli([...RESET, "--out", join(scratch, "after.json")], io)).toBe(EXIT.ok);
    expect(io.written.has(join(scratch, "after.json"))).toBe(true);
  });
});

describe("every other command that writes a file", () => {
  const missing = "/nonexistent/x.json";
  const refused = (out: string, flag = "--out") => `cannot write ${flag} ${out}: the directory /nonexistent does not exist (ENOENT)`;

  it("simulate --out", async () => {
    const r = await run(["simulate", "--script", "fixtures/scenarios/emergency-request.json", "--out", missing]);
    expect([r.code, r.out]).toEqual([EXIT.badInput, ""]);
    expect(r.err).toContain(refused(missing));
    const full = await run(["simulate", "--script", "fixtures/scenarios/emergency-request.json", "--out", "after.json"], fullDisk());
    expect(full.code).toBe(EXIT.badInput);
    expect(full.err).toContain("cannot write --out after.json: no space left on the device (ENOSPC)");
  });

  it("client add --out, and client add rewriting --world", async () => {
    const r = await run(["client", "add", "--world", WORLD, "--user", "u-it-dir", "--out", missing]);
    expect([r.code, r.out]).toEqual([EXIT.badInput, ""]);
    expect(r.err).toContain(refused(missing));
    const full = await run(["client", "add", "--world", WORLD, "--user", "u-it-dir"], fullDisk());
    expect(full.code).toBe(EXIT.badInput);
    // The secret was never shown: it would belong to a client no world holds.
    expect(full.out).toBe("");
    expect(full.err).toContain(`cannot write --world ${WORLD}: no space left on the device (ENOSPC)`);
  });

  it("pull --out is checked before pulling anything", async () => {
    let fetched = 0;
    const io: MemoryIO = { ...diskChecked(), env: { POLICY_SIM_TOKEN: "tok" }, fetch: () => (fetched++, Promise.reject(new Error("no network in this test"))) };
    const r = await run(["pull", "--base-url", "http://127.0.0.1:1", "--out", missing], io);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.err).toContain(refused(missing));
    expect(fetched).toBe(0);
  });

  it("init --out, and a test case it cannot write", async () => {
    const r = await run(["init", "--out", "/tmp"]);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.err).toBe("cannot write --out /tmp: it is a directory (EISDIR); give a file path, such as /tmp/world.json\n");
    const full = await run(["init", "--out", join(scratch, "w.json")], fullDisk());
    expect(full.code).toBe(EXIT.badInput);
    expect(full.err).toContain("no space left on the device (ENOSPC)");
  });

  it("an error that is not the system's is still ours: exit 70", async () => {
    const io: MemoryIO & CliIO = {
      ...memoryIO({ fallback: disk }),
      writeFile() {
        throw new RangeError("a bug in the writer");
      },
    };
    expect(await runCli([...RESET, "--out", "after.json"], io)).toBe(EXIT.internal);
  });
});
