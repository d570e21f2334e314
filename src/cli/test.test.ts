/**
 * Issue 14.6: `policy-sim test`, a policy test runner for authors who do not write TypeScript —
 * case files in JSON or YAML, vitest-style output, exit 1 on failure, --coverage, --json, --watch.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { ShutdownSignal } from "./command.js";
import { memoryIO } from "./memory-io.js";
import { EXIT, runCli } from "./run.js";
import { parseOrigin } from "./explain-command.js";

const disk = (p: string): string => readFileSync(p, "utf8");
const listDir = (p: string) => readdirSync(p, { withFileTypes: true }).map((d) => ({ name: d.name, isDirectory: d.isDirectory() }));
const run = async (argv: string[], files: Record<string, string> = {}) => {
  const io = Object.assign(memoryIO({ files, fallback: disk }), { listDir });
  const code = await runCli(argv, io);
  return { code, out: io.out(), err: io.err() };
};

describe("policy-sim test", () => {
  it("runs the bundled case files (a glob), vitest-style, exit 0", async () => {
    const r = await run(["test", "--world", "fixtures/world.json", "fixtures/policy-tests/*.{yaml,json}"]);
    expect(r.err).toBe("");
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toContain(" ✓ fixtures/policy-tests/defaults.json (2 tests)\n   ✓ PagerDuty falls back to the tenant default\n");
    expect(r.out).toContain(" ✓ fixtures/policy-tests/prod-admin.yaml (4 tests)");
    expect(r.out).toMatch(/ Test Files {2}2 passed \(2\)\n {6}Tests {2}6 passed \(6\)\n$/);
  });

  it("a failing case: what differs, exit 1; a malformed case fails alone, where it is, and makes the run exit 2 (REPL review: a broken case read as a policy regression)", async () => {
    const only = await run(["test", "--world", "fixtures/world.json", "w.json"], { "w.json": JSON.stringify([{ name: "wrong policy", task: "1001", expect: { policy: "pol-security-review" } }]) });
    expect(only.code).toBe(EXIT.findings);
    const cases = JSON.stringify([
      { name: "wrong policy", task: "1001", expect: { policy: "pol-security-review" } },
      { name: "no expect", task: "1001" },
      { name: "right", task: "1001", expect: { rule: 2 } },
    ]);
    const r = await run(["test", "--world", "fixtures/world.json", "c.json"], { "c.json": cases });
    expect(r.code).toBe(EXIT.badInput);
    expect(r.err).toContain("a case is malformed (exit 2): c.json: no expect");
    expect(r.out).toContain("   × no expect\n     → $[1]: the case has no expect");
    // A misspelt key is named at its path; a value of the wrong kind in expect is malformed too.
    const typos = await run(["test", "--world", "fixtures/world.json", "t.json", "--json"], {
      "t.json": JSON.stringify({
        cases: [
          { name: "tsk", tsk: "1001", expect: { rule: 2 } },
          { name: "rule two", task: "1001", expect: { rule: "two" } },
          { name: "subjct", request: { subjct: "u-dev2", entitlement: "app-aws/ent-aws-prod-admin" }, expect: { rule: 2 } },
          { name: "odd key", task: "1001", "foo.bar baz": 1, expect: { rule: 2 } },
        ],
      }),
    });
    expect(typos.code).toBe(EXIT.badInput);
    const got = (JSON.parse(typos.out) as { files: { cases: { name: string; malformed?: boolean; path?: string; mismatches: string[] }[] }[] }).files[0]?.cases;
    expect(got?.map((c) => [c.name, c.malformed, c.path])).toEqual([
      ["tsk", true, "$.cases[0].tsk"],
      ["rule two", true, "$.cases[1]"],
      ["subjct", true, "$.cases[2]"],
      ["odd key", true, '$.cases[3]["foo.bar baz"]'],
    ]);
    expect(got?.[0]?.mismatches[0]).toMatch(/^\$\.cases\[0\]\.tsk: unknown key "tsk" in the case; did you mean "task"\?/);
    expect(got?.[1]?.mismatches[0]).toMatch(/^\$\.cases\[1\]: rule must be a rule index/);
    expect(got?.[2]?.mismatches[0]).toMatch(/^\$\.cases\[2\]: .*subjct/);
    // An id the world lacks is a failing case (exit 1), not a malformed one.
    const lacking = await run(["test", "--world", "fixtures/world.json", "l.json"], { "l.json": JSON.stringify([{ name: "gone", task: "9999", expect: { rule: 2 } }]) });
    expect(lacking.code).toBe(EXIT.findings);
    expect(r.out).toContain(' ❯ c.json (3 tests | 2 failed)\n   × wrong policy\n     → policy is "pol-prod-admin", expected "pol-security-review"\n');
    // Why, in one line, without --verbose; and in --json.
    expect(r.out).toContain("       it routes: pol-prod-admin (entitlement): rule #2 of pol-prod-admin");
    const json = await run(["test", "--world", "fixtures/world.json", "c.json", "--json"], { "c.json": cases });
    const wrong = (JSON.parse(json.out) as { files: { cases: { name: string; route?: string }[] }[] }).files[0]?.cases[0];
    expect(wrong?.route).toMatch(/^pol-prod-admin \(entitlement\): rule #2 of pol-prod-admin/);

    expect(r.out).toContain("   ✓ right\n");
    expect(r.out).toContain("      Tests  2 failed | 1 passed (3)");
  });

  it("a failing case names the rules that failed with an error on its way, which do not match (spec: a condition that fails at run time does not match; newcomer review 3)", async () => {
    const world = JSON.parse(disk("fixtures/world.json")) as { policies: { id: string; rules: { condition: string }[] }[] };
    const policy = world.policies.find((p) => p.id === "pol-prod-admin");
    if (!policy) throw new Error("no pol-prod-admin in the sample world");
    policy.rules[0] = { ...policy.rules[0], condition: 'subject.profile.badgeLevel == "gold"' } as { condition: string };
    const files = { "w.json": JSON.stringify(world), "c.yaml": "- name: expects the failing rule\n  task: \"1001\"\n  expect: { rule: 0 }\n" };
    const r = await run(["test", "--world", "w.json", "c.yaml"], files);
    expect(r.code).toBe(EXIT.findings);
    expect(r.out).toContain("     → rule is #2, expected #0");
    expect(r.out).toContain("       rules that failed with an error (they do not match): #0 of pol-prod-admin (CEL_NO_SUCH_KEY: No such key: badgeLevel at 1:17)\n");
    const json = JSON.parse((await run(["test", "--world", "w.json", "c.yaml", "--json"], files)).out) as { files: { cases: { failedRules?: unknown }[] }[] };
    expect(json.files[0]?.cases[0]?.failedRules).toEqual([{ policyId: "pol-prod-admin", ruleIndex: 0, error: "CEL_NO_SUCH_KEY: No such key: badgeLevel at 1:17" }]);
  });

  it("an expectation naming what the world lacks still shows how the task routes, and --help says what each expect key takes (newcomer review 3)", async () => {
    const files = { "c.yaml": "- name: wrong stepKey\n  task: \"1001\"\n  expect: { stepKey: contractor-critical }\n" };
    const r = await run(["test", "--world", "fixtures/world.json", "c.yaml"], files);
    expect(r.code).toBe(EXIT.findings);
    expect(r.out).toContain('     → stepKey "contractor-critical" is not a step key of any policy of the world');
    expect(r.out).toContain("       it routes: pol-prod-admin (entitlement): rule #2 of pol-prod-admin → step key 5650fd2e-58bd-4dab-a08a-7314c0a4d8a3");
    const help = await run(["test", "--help"]);
    expect(help.out).toContain("  decidedBy      { policy?, rule? } (the policy and rule at the end of a policyId chain)\n");
    expect(help.out).toContain('  rule           a rule index (from 0) or "baseline"\n');
  });

  it("--json gives each failed case's expected and actual values key by key; --verbose lists each mismatch once (newcomer review 3)", async () => {
    const files = { "c.yaml": '- name: c1\n  task: "1001"\n  expect: { rule: 0, policy: pol-prod-admin, decidedBy: { rule: 0 }, approvers: [u-ciso], steps: [approval] }\n' };
    const json = JSON.parse((await run(["test", "--world", "fixtures/world.json", "c.yaml", "--json"], files)).out) as { files: { cases: { expected?: unknown; actual?: unknown }[] }[] };
    const c = json.files[0]?.cases[0];
    expect(c?.expected).toEqual({ rule: 0, policy: "pol-prod-admin", decidedBy: { rule: 0 }, approvers: ["u-ciso"], steps: ["approval"] });
    expect(c?.actual).toEqual({
      rule: 2,
      policy: "pol-prod-admin",
      decidedBy: { policy: "pol-prod-admin", rule: 2 },
      approvers: ["u-sre-lead"],
      steps: ["approval by manager", "approval by users u-ciso, u-sec-eng (escalates)", "provision via connector"],
    });
    expect((c as { failedKeys?: unknown }).failedKeys).toEqual(["rule", "decidedBy", "approvers", "steps"]);
    // A kind matches its step's summary, approvers are a set: held keys are not failed, whatever actual reads (diff review).
    const held = { "h.yaml": '- name: h\n  task: "1001"\n  expect: { rule: 1, firstStep: approval, approvalSteps: [[u-sre-lead], [u-sec-eng, u-ciso]] }\n' };
    const h = (JSON.parse((await run(["test", "--world", "fixtures/world.json", "h.yaml", "--json"], held)).out) as { files: { cases: { failedKeys?: unknown; actual?: { firstStep?: unknown } }[] }[] }).files[0]?.cases[0];
    expect(h?.failedKeys).toEqual(["rule"]);
    expect(h?.actual?.firstStep).toBe("approval by manager");
    const verbose = await run(["test", "--world", "fixtures/world.json", "c.yaml", "--verbose"], files);
    expect(verbose.out.split("rule is #2, expected #0")).toHaveLength(2);
  });

  it("--now sets the clock the conditions read: pol-prod-admin's after-hours rule (now().getHours(\"Europe/Berlin\") >= 18) decides at 23:30 Berlin, not at the world's 10:00", async () => {
    const cases = JSON.stringify([{ name: "after hours", request: { subject: "u-sales1", entitlement: "app-aws/ent-aws-prod-admin" }, expect: { policy: "pol-prod-admin", rule: 4 } }]);
    expect((await run(["test", "--world", "fixtures/world.json", "c.json"], { "c.json": cases })).code).toBe(EXIT.findings);
    const night = await run(["test", "--world", "fixtures/world.json", "c.json", "--now", "2026-11-23T22:30:00Z"], { "c.json": cases });
    expect(night.code, night.out).toBe(EXIT.ok);
    const bad = await run(["test", "--world", "fixtures/world.json", "c.json", "--now", "tonight"], { "c.json": cases });
    expect(bad.code).toBe(EXIT.badInput);
    expect(bad.err).toContain("--now must be an RFC 3339 timestamp");
  });

  it("a case's own now: office-hours and after-hours cases in one file; a clock rule expected and missed says when it ran and how to move the clock (author review)", async () => {
    const request = { subject: "u-sales1", entitlement: "app-aws/ent-aws-prod-admin" };
    const cases = [
      { name: "office hours", request, expect: { rule: "baseline" } },
      { name: "after hours", request, now: "2026-11-23T22:30:00Z", expect: { rule: 4 } },
      { name: "after hours by task", task: "1002", now: "2026-11-23T22:30:00Z", expect: { rule: 3 } },
    ];
    const r = await run(["test", "--world", "fixtures/world.json", "c.json"], { "c.json": JSON.stringify(cases) });
    expect(r.code, r.out).toBe(EXIT.ok);
    // The case's clock wins over --now.
    expect((await run(["test", "--world", "fixtures/world.json", "c.json", "--now", "2026-11-22T09:00:00Z"], { "c.json": JSON.stringify(cases.slice(1, 2)) })).code).toBe(EXIT.ok);
    const missed = await run(["test", "--world", "fixtures/world.json", "c.json"], { "c.json": JSON.stringify([{ name: "forgot the clock", request, expect: { rule: 4 } }]) });
    expect(missed.out).toContain("rule is the baseline, expected #4 (rule #4 reads the clock and ran at 2026-11-22T09:00:00Z: set another time with a case's now:, the test command's --now, or a world at that time, replaceInWorld(world, { now }))");
    const bad = await run(["test", "--world", "fixtures/world.json", "c.json"], { "c.json": JSON.stringify([{ ...cases[1], now: "tonight" }]) });
    expect(bad.out).toContain('now must be an RFC 3339 timestamp such as "2026-11-23T22:30:00Z", not string "tonight"');
  });

  it("explain --origin reads the docs' older names as case files do (SLACK is CHATAPP, product_admin_expressions-reference.mdx's TaskOrigin.SLACK), any case; an unknown one is refused (regression review)", () => {
    expect([parseOrigin("slack"), parseOrigin("JIRA"), parseOrigin("TASK_ORIGIN_COPILOT"), parseOrigin("copilot")]).toEqual(["CHATAPP", "TRACKER", "COPILOT", "COPILOT"]);
    expect(() => parseOrigin("COPILOTT")).toThrow(/--origin must be one of .*COPILOT/);
  });

  it("explain --now: the request as it would route at that time; a value that is no time is refused (exit 2)", async () => {
    const at = (now?: string) => run(["explain", "--world", "fixtures/world.json", "--subject", "u-sales1", "--entitlement", "app-aws/ent-aws-prod-admin", ...(now ? ["--now", now] : [])]);
    expect((await at()).out).toContain("Selected: the baseline \"grant\" of pol-prod-admin");
    const night = await at("2026-11-23T22:30:00Z");
    expect(night.out).toContain("evaluated at 2026-11-23T22:30:00Z");
    expect(night.out).toContain("Selected: rule #4 of pol-prod-admin");
    const bad = await at("soon");
    expect([bad.code, bad.err.split("\n")[0]]).toEqual([EXIT.badInput, '--now must be an RFC 3339 timestamp such as "2026-11-23T22:30:00Z", not "soon"']);
  });

  it("explain on a route through a policy the service would refuse to save says so first, each error at its place, and exits 1 (README exit codes; test already fails such a case) (author review)", async () => {
    const json = JSON.parse(readFileSync("fixtures/world.json", "utf8")) as { policies: { id: string; rules: { condition: string }[] }[] };
    const policy = json.policies.find((p) => p.id === "pol-prod-admin");
    if (!policy?.rules[0]) throw new Error("fixture changed");
    policy.rules[0].condition = 'subject.departmnt == "Security"';
    const r = await run(["explain", "--world", "w.json", "--task", "1001"], { "w.json": JSON.stringify(json) });
    expect(r.code).toBe(EXIT.findings);
    expect(r.out.split("\n").slice(0, 2)).toEqual([
      'Warning: the service would refuse to save policy "pol-prod-admin" (1 lint error); the route below is what the broken policy would do:',
      "  CEL_TYPE_ERROR at $.rules[0].condition: rule 0 condition, line 1 column 9: undefined field 'departmnt' on type 'User' (did you mean 'department'?)",
    ]);
    expect(r.out).toContain('Task 1001 "Grant');
    // --json keeps the Explanation as it is; the warning goes to stderr.
    const j = await run(["explain", "--world", "w.json", "--task", "1001", "--json"], { "w.json": JSON.stringify(json) });
    expect([j.code, (JSON.parse(j.out) as { kind: string }).kind, j.err.startsWith("Warning: the service would refuse to save policy")]).toEqual([EXIT.findings, "explanation", true]);
    // The sample's own route saves: no warning, exit 0.
    const fine = await run(["explain", "--world", "fixtures/world.json", "--task", "1001"]);
    expect([fine.code, fine.out.startsWith("Task 1001")]).toEqual([EXIT.ok, true]);
  });

  it("a case naming a policy the world does not have fails with the closest name, negated or not", async () => {
    const cases = JSON.stringify([{ name: "typo", task: "1001", expect: { policy: "pol-prod-admn" } }]);
    const r = await run(["test", "--world", "fixtures/world.json", "c.json"], { "c.json": cases });
    expect(r.code).toBe(EXIT.findings);
    expect(r.out).toContain('policy "pol-prod-admn" is not a policy of the world; did you mean "pol-prod-admin"?');
  });

  it("YAML cases with a request, and --json", async () => {
    const yaml = "- name: contractor\n  request: { subject: { id: u-dev2, employmentType: Contractor }, entitlement: app-aws/ent-aws-prod-admin }\n  expect: { rule: 2, steps: [approval, approval, provision] }\n";
    const r = await run(["test", "--world", "fixtures/world.json", "c.yaml", "--json"], { "c.yaml": yaml });
    expect(r.code).toBe(EXIT.ok);
    expect(JSON.parse(r.out)).toEqual({ passed: 1, failed: 0, files: [{ path: "c.yaml", cases: [{ name: "contractor", pass: true, mismatches: [] }] }] });
  });

  it("--coverage lists the rules and sub-expressions never true or never false", async () => {
    const r = await run(["test", "--world", "fixtures/world.json", "fixtures/policy-tests/prod-admin.yaml", "--coverage"]);
    expect(r.out).toContain("Rule coverage over 4 tasks");
    // Policies no case reached are named, not left out.
    expect(r.out).toMatch(/No task reached \d+ policies: .*pol-aws-access/);
    expect(r.out).toContain("task.origin == TaskOrigin.COPILOT   never true");
    expect(r.out).toContain("never evaluated:");
  });

  it("a misspelt key of the case itself (expct, reqest, tsk, nwo) is named with the key meant, not read as a missing one", async () => {
    const cases = JSON.stringify([
      { name: "a", task: "1001", expct: { rule: 2 } },
      { name: "b", reqest: { subject: "u-dev2", entitlement: "app-aws/ent-aws-prod-admin" }, expect: { rule: 2 } },
      { name: "c", tsk: "1001", expect: { rule: 2 } },
      { name: "d", request: { subject: "u-dev2", entitlement: "app-aws/ent-aws-prod-admin" }, nwo: "2026-11-23T22:30:00Z", expect: { rule: 2 } },
    ]);
    const r = await run(["test", "--world", "fixtures/world.json", "k.json"], { "k.json": cases });
    for (const [bad, meant] of [["expct", "expect"], ["reqest", "request"], ["tsk", "task"], ["nwo", "now"]])
      expect(r.out).toContain(`unknown key "${bad}" in the case; did you mean "${meant}"?`);
    // A described request's own keys at the top of a case are keys, however close to a case key (taskId, task).
    const inline = JSON.stringify([{ name: "e", subject: "u-dev2", entitlement: "app-aws/ent-aws-prod-admin", taskId: "t-new", expect: { rule: 3 } }]);
    const ok = await run(["test", "--world", "fixtures/world.json", "i.json"], { "i.json": inline });
    expect([ok.code, ok.out]).toEqual([EXIT.ok, expect.stringContaining("✓ e")]);
  });

  it("a mistyped task, user, entitlement or app id says which one was meant", async () => {
    const cases = JSON.stringify([
      { name: "task", task: "10001", expect: { rule: 2 } },
      { name: "user", request: { subject: "u-contracter", entitlement: "app-aws/ent-aws-prod-admin" }, expect: { rule: 2 } },
      { name: "entitlement", request: { subject: "u-contractor", entitlement: "app-aws/ent-aws-prod-admn" }, expect: { rule: 2 } },
      { name: "app", request: { subject: "u-contractor", entitlement: "app-awz/ent-aws-prod-admin" }, expect: { rule: 2 } },
    ]);
    const r = await run(["test", "--world", "fixtures/world.json", "t.json"], { "t.json": cases });
    expect(r.out).toContain('task "10001" not found (by id or numericId); did you mean "1001"?');
    expect(r.out).toContain('user "u-contracter" not found; did you mean "u-contractor"?');
    expect(r.out).toContain('entitlement "ent-aws-prod-admn" of app "app-aws" does not exist; did you mean "ent-aws-prod-admin"?');
    expect(r.out).toContain('(there is no app "app-awz"; did you mean "app-aws"?)');
  });

  it("a case file with no cases is unusable input (exit 2), not a pass; a YAML error shows where, with its code frame", async () => {
    for (const [name, text] of [["e.json", "[]"], ["e.yaml", "cases: []\n"]] as const) {
      const r = await run(["test", "--world", "fixtures/world.json", name], { [name]: text });
      expect([r.code, r.err], name).toEqual([EXIT.badInput, expect.stringContaining(`the case file ${name} holds no cases`)]);
    }
    const r = await run(["test", "--world", "fixtures/world.json", "q.yaml"], { "q.yaml": '- name: "unclosed\n  task: 1001\n  expect: { rule: 2 }\n' });
    expect(r.code).toBe(EXIT.badInput);
    expect(r.err).toMatch(/is not YAML: .*line \d+, column \d+\n {4}.*\S/);
  });

  it("one broken case file does not hide the others: they run and report, the broken one is named with why, and the exit is 2", async () => {
    const good = JSON.stringify([{ name: "prod admin for a contractor", task: "1001", expect: { policy: "pol-prod-admin" } }]);
    const files = { "a.json": good, "b.json": '[{ "name": "unclosed', "c.yaml": "cases: []\n" };
    const r = await run(["test", "--world", "fixtures/world.json", "a.json", "b.json", "c.yaml"], files);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.out).toContain("✓ prod admin for a contractor");
    expect(r.out).toContain("b.json (not run: unusable)");
    expect(r.out).toMatch(/Test Files {2}2 failed \| 1 passed \(3\)/);
    expect(r.err).toContain("the case file b.json is not JSON");
    expect(r.err).toContain("the case file c.yaml holds no cases");
    const json = await run(["test", "--world", "fixtures/world.json", "a.json", "b.json", "--json"], files);
    expect(json.code).toBe(EXIT.badInput);
    const out = JSON.parse(json.out) as { passed: number; files: { path: string; unusable?: string }[] };
    expect(out.passed).toBe(1);
    expect(out.files[1]).toMatchObject({ path: "b.json", unusable: expect.stringContaining("is not JSON") });
  });

  it("--coverage evaluates each case at its own now:, as the case ran (a clock rule a case proved is covered)", async () => {
    const cases = JSON.stringify([{ name: "after hours", task: "1002", now: "2026-11-23T22:30:00Z", expect: { policy: "pol-prod-admin", rule: 3 } }]);
    const r = await run(["test", "--world", "fixtures/world.json", "c.json", "--coverage", "--json"], { "c.json": cases });
    expect(r.code).toBe(EXIT.ok);
    const out = JSON.parse(r.out) as { coverage: { policies: { policyId: string; rules: { matched: number; selected: number }[] }[] } };
    // Rule #3 reads the clock (after hours in Berlin): at the world's 09:00 it would never be true.
    const rule3 = out.coverage.policies.find((p) => p.policyId === "pol-prod-admin")?.rules[3];
    expect(rule3).toMatchObject({ matched: 1, selected: 1 });
  });

  it("unusable input is exit 2: no files, a glob matching nothing, a file that is not YAML, a file that is not a list", async () => {
    expect((await run(["test", "--world", "fixtures/world.json"])).code).toBe(EXIT.badInput);
    const none = await run(["test", "--world", "fixtures/world.json", "fixtures/policy-tests/*.nothing"]);
    expect(none.code).toBe(EXIT.badInput);
    expect(none.err).toContain('no case file matches "fixtures/policy-tests/*.nothing"');
    // A glob under a folder that is not there: the same, not an internal failure (exit 70).
    const noFolder = await run(["test", "--world", "fixtures/world.json", "no-such-folder/*.yaml"]);
    expect([noFolder.code, noFolder.err]).toEqual([EXIT.badInput, expect.stringContaining('no case file matches "no-such-folder/*.yaml"')]);
    const bad = await run(["test", "--world", "fixtures/world.json", "b.yaml"], { "b.yaml": "- name: [unclosed" });
    expect(bad.code).toBe(EXIT.badInput);
    expect(bad.err).toContain("the case file b.yaml is not YAML");
    const obj = await run(["test", "--world", "fixtures/world.json", "o.json"], { "o.json": "{}" });
    expect(obj.code).toBe(EXIT.badInput);
    expect(obj.err).toContain("a case file is a list of cases");
    // A file that cannot be read says why (REPL review: no reason was given).
    const missing = await run(["test", "--world", "fixtures/world.json", "scratch-missing-cases.yaml"]);
    expect([missing.code, missing.err]).toEqual([EXIT.badInput, expect.stringContaining("cannot read the case file scratch-missing-cases.yaml: no such file")]);
  });

  it("--watch runs again when a watched file changes, until Ctrl-C", async () => {
    const base = memoryIO({ files: { "c.json": JSON.stringify([{ name: "a", task: "1001", expect: { rule: 2 } }]) }, fallback: disk });
    let changed: (() => void) | undefined;
    let watched: readonly string[] = [];
    const io = Object.assign(base, {
      listDir,
      watch(paths: readonly string[], onChange: () => void) {
        watched = paths;
        changed = onChange;
        return () => (changed = undefined);
      },
    });
    const done = runCli(["test", "--world", "fixtures/world.json", "c.json", "--watch"], io);
    for (let i = 0; i < 100 && !changed; i++) await new Promise((r) => setTimeout(r, 10));
    expect(watched).toEqual(["fixtures/world.json", "c.json"]);
    expect(base.out().match(/Tests {2}1 passed/g)?.length).toBe(1);
    changed?.();
    expect(base.out().match(/Tests {2}1 passed/g)?.length).toBe(2);
    base.signal("SIGINT" satisfies ShutdownSignal);
    expect(await done).toBe(EXIT.ok);
    expect(changed).toBeUndefined();
  });
});

describe("policy-sim test --help", () => {
  it("its example case passes on the sample tenant, as printed", async () => {
    const help = await run(["test", "--help"]);
    const lines = help.out.split("\n");
    const at = lines.findIndex((l) => l.trim().startsWith("- name:"));
    expect(at).toBeGreaterThan(0);
    const yaml = lines
      .slice(at, at + 3)
      .map((l) => l.replace(/\s+# .*$/, "").slice(2))
      .join("\n");
    const r = await run(["test", "--world", "fixtures/world.json", "help-case.yaml"], { "help-case.yaml": yaml });
    expect([r.code, r.out]).toEqual([EXIT.ok, expect.stringContaining("1 passed")]);
  });
});
