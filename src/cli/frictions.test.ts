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

describe("every enum-valued flag refuses a value it does not know: exit 2, listing the accepted ones", () => {
  const request = ["explain", "--world", "fixtures/world.json", "--subject", "u-dev2", "--entitlement", "app-aws/ent-aws-prod-admin"];
  const whatif = ["whatif", "--world", "fixtures/world.json", "--edit", "fixtures/world.json"];
  it.each([
    ["explain --origin", [...request, "--origin", "weird"], /^--origin must be one of PROFILE_MEMBERSHIP_AUTOMATION, CHATAPP, API, TRACKER, COPILOT, WEBAPP, .*CASCADE_DELETE \(or its TASK_ORIGIN_… name\), not "weird"\n/],
    ["explain --kind", [...request, "--kind", "grnat"], /^--kind must be grant or revoke, not "grnat"\n/],
    ["check --env", ["check", "--env", "rules", "true"], /^--env must be condition, approver or config-rule, not "rules"\n/],
    ["simulate --worlds", ["simulate", "--script", "fixtures/scenarios/emergency-request.json", "--json", "--worlds", "some"], /^--worlds must be none, final or all, not "some"\n/],
    ["pull --state", ["pull", "--base-url", "http://127.0.0.1:1", "--out", "x.json", "--state", "closed"], /^--state must be open or all, not "closed"\n/],
    ["whatif --state", [...whatif, "--state", "pending"], /^--state must be open, closed, all or a TASK_STATE_… name, not "pending"\n/],
    ["whatif --state TASK_STATE_…", [...whatif, "--state", "TASK_STATE_PENDING"], /^--state must be open, closed, all or one of TASK_STATE_UNSPECIFIED, TASK_STATE_OPEN, TASK_STATE_CLOSED, not "TASK_STATE_PENDING" \(no task of the world has it\)\n/],
    ["whatif --type", [...whatif, "--type", "grnat"], /^--type must be among grant, revoke, /],
    ["whatif --format", [...whatif, "--format", "html"], /^--format must be text, markdown or json, not "html"\n/],
  ])("%s", async (_flag, argv, message) => {
    const r = await run(argv);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.err).toMatch(message);
  });

  it("whatif --format json is --json (with a plan or an edit)", async () => {
    for (const source of [["--terraform-plan", "fixtures/terraform/plan.json"], ["--edit", "fixtures/world.json"]]) {
      const base = ["whatif", "--world", "fixtures/world.json", ...source];
      const a = await run([...base, "--format", "json"]);
      const b = await run([...base, "--json"]);
      expect(a.code).toBe(b.code);
      expect(a.out).toBe(b.out);
      expect(() => JSON.parse(a.out)).not.toThrow();
    }
  });

  it("--origin takes a known origin short or long, in any case", async () => {
    for (const origin of ["COPILOT", "copilot", "TASK_ORIGIN_COPILOT"]) {
      const r = await run([...request, "--origin", origin]);
      expect(r.code).toBe(EXIT.ok);
      expect(r.out).toContain("task.origin = TaskOrigin.COPILOT");
    }
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

describe("--version", () => {
  it.each([["--version"], ["-V"], ["version"]])("%s prints the package's version, exit 0", async (flag) => {
    const r = await run([flag]);
    const pkg = JSON.parse(disk("package.json")) as { version: string };
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toBe(`policy-sim ${pkg.version}\n`);
    expect(r.err).toBe("");
  });

  it("--help says where the version is", async () => {
    expect((await run(["--help"])).out).toContain("policy-sim --version");
  });
});

describe("a misspelt id, value or command is answered with what was probably meant (newcomer review 3)", () => {
  it.each([
    ["a task id one digit off", ["explain", "--world", "fixtures/world.json", "--task", "10001"], /^NOT_FOUND: task "10001" not found \(by id or numericId\); did you mean "1001"\?\n/],
    ["a subject one letter off", ["explain", "--world", "fixtures/world.json", "--subject", "u-dev22", "--entitlement", "app-aws/ent-aws-prod-admin"], /^NOT_FOUND: user "u-dev22" not found; did you mean "u-dev2"\?\n/],
    ["an environment misspelt", ["check", "--env", "conditon", "true"], /^--env must be condition, approver or config-rule, not "conditon"; did you mean "condition"\?\n/],
    ["the library's name for explain", ["decide", "--world", "fixtures/world.json"], /^unknown command "decide"; did you mean explain\? try: /],
    ["a name of Object.prototype", ["constructor"], /^unknown command "constructor" try: /],
  ])("%s", async (_what, argv, message) => {
    const r = await run(argv);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.err).toMatch(message);
  });
});

it("help for a name of Object.prototype is help for an unknown command: the command list, exit 2, no 'undefined' (diff review)", async () => {
  const r = await run(["help", "constructor"]);
  expect(r.code).toBe(EXIT.badInput);
  expect(r.out + r.err).not.toContain("undefined");
  expect(r.out).toContain("explain");
});
