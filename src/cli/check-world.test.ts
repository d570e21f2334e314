import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { memoryIO } from "./memory-io.js";
import { EXIT, runCli } from "./run.js";

const disk = (p: string): string => readFileSync(p, "utf8");
const typo = (): string => {
  const w = JSON.parse(disk("fixtures/world.json")) as { users: Array<Record<string, unknown>> };
  w.users[0] = { ...w.users[0], managerId: "u-eng-mgr" };
  return JSON.stringify(w);
};
const run = async (argv: string[]) => {
  const io = memoryIO({ files: { "typo.json": typo() }, fallback: disk });
  const code = await runCli(argv, io);
  return { code, out: io.out(), err: io.err() };
};

describe("policy-sim check-world (issue 14.1)", () => {
  it("the sample world: ok, exit 0", async () => {
    const r = await run(["check-world", "--world", "fixtures/world.json"]);
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toBe("ok: fixtures/world.json, no warnings\n");
  });

  it("a typo: the warning with its path and the field meant; exit 0, or 1 with --strict", async () => {
    const r = await run(["check-world", "--world", "typo.json"]);
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toContain('warning UNKNOWN_FIELD_NEAR_KNOWN at $.users[0].managerId: unknown field "managerId" in a user (kept, but not used); did you mean "managerIds"?');
    expect(r.out).toContain("loads: typo.json, 1 warning");
    expect((await run(["check-world", "--world", "typo.json", "--strict"])).code).toBe(EXIT.findings);
  });

  it("lint --world lists the world's warnings first", async () => {
    const r = await run(["lint", "--world", "typo.json"]);
    expect(r.out).toMatch(/^world typo.json\n {2}warning UNKNOWN_FIELD_NEAR_KNOWN at \$\.users\[0\]\.managerId\n/);
    expect(r.out).not.toContain("no findings");
  });

  it("other commands print the warnings on stderr and go on", async () => {
    const r = await run(["explain", "--world", "typo.json", "--task", "1001"]);
    expect(r.err).toContain('typo.json: warning UNKNOWN_FIELD_NEAR_KNOWN at $.users[0].managerId');
    expect(r.out).toContain("Selected:");
  });
});

describe("policy-sim check-world as a gate (CLI review)", () => {
  const runWith = async (files: Record<string, string>, argv: string[]) => {
    const io = memoryIO({ files, fallback: disk });
    const code = await runCli(argv, io);
    return { code, out: io.out() };
  };
  it("a truncated world file does not load: exit 1 with INVALID_JSON and the byte offset, as README says (2 is for a missing file or a bad flag)", async () => {
    const r = await runWith({ "cut.json": disk("fixtures/world.json").slice(0, 2000) }, ["check-world", "--world", "cut.json"]);
    expect(r.code).toBe(EXIT.findings);
    expect(r.out).toContain("error INVALID_JSON at $: the world file is not valid JSON: the world file ends early (byte 2000)");
    expect((await runWith({}, ["check-world", "--world", "missing.json"])).code).toBe(EXIT.badInput);
  });
  it("a rule naming a step key its policy lacks loads, but check-world says the policy would not save (and --strict fails on it)", async () => {
    const w = JSON.parse(disk("fixtures/world.json")) as { policies: Array<{ id: string; rules: Array<Record<string, unknown>> }> };
    const p = w.policies.find((x) => x.id === "pol-prod-admin");
    if (!p) throw new Error("fixture lacks pol-prod-admin");
    p.rules[0] = { ...p.rules[0], stepKey: "no-such-steps" };
    const files = { "dangling.json": JSON.stringify(w) };
    const r = await runWith(files, ["check-world", "--world", "dangling.json"]);
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toMatch(/lint error \w+ in policy pol-prod-admin at \S+: .*no-such-steps/);
    expect(r.out).toMatch(/loads: dangling\.json, no warnings; 1 lint error in its policies \(policy-sim lint --world dangling\.json --all\)\n$/);
    expect((await runWith(files, ["check-world", "--world", "dangling.json", "--strict"])).code).toBe(EXIT.findings);
  });
});

describe("a top-level key given twice (hostile-input review: the tasks were dropped and check-world said ok)", () => {
  it("is a DUPLICATE_KEY warning naming the key; --strict fails", async () => {
    const text = disk("fixtures/world.json").trimEnd();
    const files = { "dup.json": `${text.slice(0, -1)},"tasks":[]}` };
    const io = memoryIO({ files, fallback: disk });
    expect(await runCli(["check-world", "--world", "dup.json"], io)).toBe(EXIT.ok);
    expect(io.out()).toContain('warning DUPLICATE_KEY at $.tasks: "tasks" is given more than once at the top of the file');
    expect(await runCli(["check-world", "--world", "dup.json", "--strict"], memoryIO({ files, fallback: disk }))).toBe(EXIT.findings);
  });
});
