import { describe, expect, it } from "vitest";
import { checkCondition, compileCondition } from "./compile.js";
import { evaluateCondition } from "./evaluate.js";
import { adaInput, makeUser } from "./test-fixtures.js";

function run(source: string, department: string) {
  const c = compileCondition(source);
  if (!c.ok) throw new Error(`${source}: ${c.error.map((d) => d.message).join("; ")}`);
  return evaluateCondition(c.value, adaInput({ subject: makeUser({ id: "u-r", department }) }));
}

describe("matches() runs on RE2", () => {
  it("does not backtrack catastrophically: ^(a+)+$ on 10,000 characters", () => {
    const almost = `${"a".repeat(10_000)}!`;
    const started = performance.now();
    const miss = run('subject.department.matches("^(a+)+$")', almost);
    const hit = run('subject.department.matches("^(a+)+$")', "a".repeat(10_000));
    const elapsed = performance.now() - started;
    expect(miss).toEqual({ ok: true, value: false });
    expect(hit).toEqual({ ok: true, value: true });
    // RE2 takes a few milliseconds; the JS engine would not finish. The bound is generous for CI.
    expect(elapsed).toBeLessThan(500);
  });

  it("matches anywhere in the string unless anchored, as CEL's matches does", () => {
    expect(run('subject.department.matches("gin")', "Engineering")).toEqual({ ok: true, value: true });
    expect(run('subject.department.matches("^gin")', "Engineering")).toEqual({ ok: true, value: false });
    expect(run('subject.department.matches("(?i)^engineering$")', "Engineering")).toEqual({ ok: true, value: true });
    expect(run('matches(subject.department, "^Eng")', "Engineering")).toEqual({ ok: true, value: true });
  });

  it("refuses patterns RE2 does not support at check time when they are literals", () => {
    expect(checkCondition('subject.department.matches("(a)\\\\1")')).toMatchObject([{ code: "CEL_UNSUPPORTED_REGEX", column: 28 }]);
    expect(checkCondition('subject.department.matches("foo(?=bar)")')).toMatchObject([{ code: "CEL_UNSUPPORTED_REGEX" }]);
    expect(checkCondition('matches(subject.department, "(?<!x)y")')).toMatchObject([{ code: "CEL_UNSUPPORTED_REGEX" }]);
    expect(checkCondition('subject.department.matches("([a-z]")')).toMatchObject([{ code: "CEL_INVALID_REGEX" }]);
  });

  it("reports an unusable pattern built at run time as a run-time error", () => {
    expect(run('subject.department.matches(subject.department)', "(a)\\1")).toMatchObject({ ok: false, error: { code: "CEL_INVALID_ARGUMENT" } });
    expect(run('subject.department.matches(subject.department)', "a+")).toEqual({ ok: true, value: true });
  });

  it("type-checks its arguments", () => {
    expect(checkCondition("subject.department.matches(1)")).toMatchObject([{ code: "CEL_NO_MATCHING_OVERLOAD", message: "found no matching overload for 'string.matches(int)'" }]);
    expect(checkCondition('subject.profile.x.matches("a")')).toEqual([]);
  });
});
