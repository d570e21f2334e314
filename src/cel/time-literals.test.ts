/**
 * Time units and zones written as literals are checked with the expression (time-literals.ts): one
 * no input can make valid fails every evaluation, so `check` says so, as it does for an address
 * that can never parse. The units are those product_admin_expressions-reference.mdx lists for
 * `time.start_of` / `time.end_of`.
 */
import { describe, expect, it } from "vitest";
import { checkCondition, compileCondition } from "./compile.js";
import { evaluateCondition, prepareConditionInput } from "./evaluate.js";
import { adaInput } from "./test-fixtures.js";

const error = (source: string) => checkCondition(source)[0] ?? null;

describe("time units and zones written as literals (product_admin_expressions-reference.mdx)", () => {
  it("an unknown unit or zone is reported by check at the literal, with what to write instead", () => {
    const unit = error('time.start_of(now(), "fortnight") < now()');
    expect(unit).toMatchObject({ code: "CEL_INVALID_CONSTANT", span: { start: 21, end: 32 } });
    expect(unit?.message).toContain('unknown time unit "fortnight"');
    expect(unit?.hint).toContain("day, week, month, quarter or year");
    expect(error('now().getHours("Europe/Berln") >= 9')?.hint).toBe('did you mean "Europe/Berlin"?');
    for (const [source, zone] of [
      ['time.format(now(), "15", "Mars/Olympus") == "09"', "Mars/Olympus"],
      ['time.end_of(now(), "day", "Europe/Atlantis") > now()', "Europe/Atlantis"],
      ['time.parse("2026-01-01", "2006-01-02", "+25:00") < now()', "+25:00"],
      ['now().getHours("Mars/Olympus") > 3', "Mars/Olympus"],
    ] as [string, string][])
      expect(error(source), source).toMatchObject({ code: "CEL_INVALID_CONSTANT", message: expect.stringContaining(`unknown time zone "${zone}"`) });
  });

  it("the documented units, IANA zones, UTC and offsets, and values known only when evaluated, type-check", () => {
    for (const source of [
      'time.start_of(now(), "day") < now()',
      'time.truncate(now(), "week") <= now()',
      'time.end_of(now(), "quarter", "America/New_York") > now()',
      'time.start_of(now(), "year", "+05:30") < now()',
      'time.format(now(), TimeFormat.DATE, "UTC") != ""',
      'now().getHours("Europe/Paris") >= 0',
      'time.start_of(now(), subject.profile["unit"]) < now()',
    ])
      expect(error(source), source).toBeNull();
  });

  it("the expression still compiles and runs, as CEL runs it: a || (the bad call) holds whenever a does, and fails only when the call is reached", () => {
    const c = compileCondition('subject.department == "Engineering" || time.start_of(now(), "fortnight") < now()');
    if (!c.ok) throw new Error(c.error[0]?.message);
    const run = (department: string) => {
      const p = prepareConditionInput(adaInput({ subject: { ...adaInput().subject, department } }));
      if (!p.ok) throw new Error(p.error.message);
      return evaluateCondition(c.value, p.value);
    };
    expect(run("Engineering")).toEqual({ ok: true, value: true });
    const other = run("Finance");
    expect(!other.ok && other.error.message).toContain("unknown time unit");
  });

  it("the same expressions fail on evaluation when the value comes from input instead: the check is only for what can never be valid", () => {
    const c = compileCondition('time.start_of(now(), subject.department) < now()');
    if (!c.ok) throw new Error(c.error[0]?.message);
    const p = prepareConditionInput(adaInput());
    if (!p.ok) throw new Error(p.error.message);
    const r = evaluateCondition(c.value, p.value);
    expect(!r.ok && r.error.message).toContain("unknown time unit");
  });
});

describe("in lint, a warning (the service's save check may accept it), at the condition", () => {
  it("lints a policy whose rule uses an unknown unit: CEL_INVALID_CONSTANT, severity warning", async () => {
    const { lintDecodedPolicy } = await import("../policy/lint.js");
    const { sampleWorld } = await import("../../test/helpers.js");
    const world = sampleWorld();
    const policy = [...world.index.policies.values()].find((p) => (p.rules ?? []).length > 0);
    if (!policy) throw new Error("sample changed");
    const rules = (policy.rules ?? []).map((r, i) => (i === 0 ? { ...r, condition: 'time.start_of(now(), "fortnight") < now()' } : r));
    const f = lintDecodedPolicy({ ...policy, rules }, world).find((x) => x.path === "$.rules[0].condition");
    expect(f).toMatchObject({ code: "CEL_INVALID_CONSTANT", severity: "warning" });
  });
});
