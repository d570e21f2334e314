/**
 * The command line as a newcomer meets it (issue 14.9): every subcommand documents every flag with
 * an example; a misspelt flag is named with the closest one; a repeated single-value flag is an
 * error instead of the last silently winning; comment text has one flag name; a file that is not a
 * script says so; an internal failure has its own exit code.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { memoryIO } from "./memory-io.js";
import { EXIT, listCommands, registerCommand, runCli } from "./run.js";

const disk = (p: string): string => readFileSync(p, "utf8");
const run = async (argv: string[]) => {
  const io = memoryIO({ fallback: disk });
  const code = await runCli(argv, io);
  return { code, out: io.out(), err: io.err() };
};

describe("every subcommand's --help lists its flags and an example", () => {
  it.each(listCommands().map(([name]) => [name]))("%s --help", async (name) => {
    const command = listCommands().find(([n]) => n === name)?.[1];
    const r = await run([name, "--help"]);
    expect(r.code).toBe(EXIT.ok);
    for (const flag of Object.keys(command?.options ?? {})) expect(r.out, `--${flag} is not described`).toMatch(new RegExp(`--${flag}\\b.*\\S\\s{2,}\\S|--${flag} [^\\n]*\\S`));
    expect(r.out, "no example line").toMatch(new RegExp(`^\\s+policy-sim ${name}\\b`, "m"));
  });
});

describe("flags", () => {
  it("an unknown flag says which known flag is closest, exit 2", async () => {
    const r = await run(["explain", "--wrld", "fixtures/world.json", "--task", "1001"]);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.err).toContain("unknown flag --wrld; did you mean --world?");
  });

  it("an unknown flag far from every known one names none", async () => {
    const r = await run(["explain", "--zzzzzz", "--world", "fixtures/world.json", "--task", "1001"]);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.err).toContain("unknown flag --zzzzzz\n");
  });

  it("a single-value flag given twice is an error (the last does not silently win)", async () => {
    const r = await run(["explain", "--world", "fixtures/world.json", "--task", "1001", "--task", "1022"]);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.err).toContain("--task is given more than once");
  });

  it("a repeatable flag may repeat", async () => {
    const r = await run(["comment", "--world", "fixtures/world.json", "--task", "1001", "--as", "u-contractor", "--comment", "hi", "--expand", "app_id", "--expand", "user_id"]);
    expect(r.code).toBe(EXIT.ok);
  });

  it("reset and comment take the comment text by one flag name, --comment", async () => {
    for (const name of ["reset", "comment"]) {
      const c = listCommands().find(([n]) => n === name)?.[1];
      expect(Object.keys(c?.options ?? {})).toContain("comment");
      expect(Object.keys(c?.options ?? {})).not.toContain("text");
    }
    const r = await run(["comment", "--world", "fixtures/world.json", "--task", "1001", "--as", "u-contractor"]);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.err).toContain("--comment <text> is required");
  });
});

describe("inputs that are not what the flag wants", () => {
  it("simulate --script on a world file says it is not a script", async () => {
    const r = await run(["simulate", "--script", "fixtures/world.json"]);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.err).toContain("fixtures/world.json is not a scenario script");
    expect(r.err).toContain("looks like a world file");
  });
});

describe("exit codes", () => {
  it("an internal failure exits 70, not 1 (which means a finding or a refusal)", async () => {
    registerCommand("__crash", { usage: "policy-sim __crash", summary: "test only", options: {}, run: () => { throw new RangeError("boom"); } });
    const r = await run(["__crash"]);
    expect(r.code).toBe(EXIT.internal);
    expect(EXIT.internal).toBe(70);
    expect(r.err).toBe("policy-sim __crash failed: boom\n");
  });
});
