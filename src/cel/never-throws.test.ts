import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkApproverExpression, checkCondition, compileApproverExpression, compileCondition } from "./compile.js";
import { evaluateApproverExpression, evaluateCondition, prepareConditionInput } from "./evaluate.js";
import { adaInput, tenant } from "./test-fixtures.js";
import { traceCondition } from "./trace.js";

const { ada, bob, awsAdmin, facts, directory, NOW } = tenant;

const prepared = (() => {
  const p = prepareConditionInput(adaInput());
  if (!p.ok) throw new Error("prepare");
  return p.value;
})();

/** Token soup close enough to CEL to reach the checker and the evaluator, not just the lexer. */
const cel: fc.Arbitrary<string> = fc.letrec<{ expr: string; atom: string }>((tie) => ({
  atom: fc.oneof(
    fc.constantFrom(
      "subject",
      "subject.department",
      "subject.profile",
      "subject.profile.level",
      "subject.profile.nope",
      "subject.emails",
      "subject.status",
      "task.numericId",
      "task.grantDuration",
      "task.createdAt",
      "task.analysis.conflictViolations",
      "entitlement.appId",
      "account.status.status",
      "ip",
      "UserStatus.ENABLED",
      "TaskOrigin.API",
      "TimeFormat.DATE",
      "now()",
      "appOwners",
      "c1",
      "time",
      "null",
      "true",
      "[]",
      "{}",
    ),
    fc.integer({ min: -3, max: 1e6 }).map(String),
    fc.double({ noNaN: true, min: -10, max: 10 }).map((d) => d.toFixed(2)),
    fc.string({ maxLength: 6 }).map((s) => JSON.stringify(s)),
  ),
  expr: fc.oneof(
    { depthSize: "small" },
    tie("atom"),
    fc.tuple(tie("expr"), fc.constantFrom("==", "!=", "<", ">=", "&&", "||", "+", "-", "*", "/", "%", "in"), tie("expr")).map(([a, op, b]) => `${a} ${op} ${b}`),
    fc.tuple(fc.constantFrom("!", "-", ""), tie("expr")).map(([op, e]) => `${op}(${e})`),
    fc.tuple(tie("expr"), tie("expr"), tie("expr")).map(([a, b, c]) => `${a} ? ${b} : ${c}`),
    fc.tuple(tie("expr"), fc.constantFrom("size", "startsWith", "matches", "contains", "ifEmpty", "getHours", "isPrivate", "containsIP", "exists", "map", "all")).map(
      ([e, f]) => `${e}.${f}(${f === "exists" || f === "map" || f === "all" ? "x, x" : f === "size" ? "" : '"a"'})`,
    ),
    fc
      .tuple(
        fc.constantFrom(
          "c1.directory.users.v1.FindByEmail",
          "c1.directory.users.v1.GetManagers",
          "c1.user.v1.HasApp",
          "c1.directory.apps.v1.GetEntitlementMembers",
          "time.format",
          "time.parse",
          "time.start_of",
          "ip",
          "cidr",
          "size",
          "has",
          "int",
          "string",
          "duration",
          "timestamp",
          "matches",
          "dyn",
        ),
        fc.array(tie("expr"), { maxLength: 3 }),
      )
      .map(([f, args]) => `${f}(${args.join(", ")})`),
    fc.tuple(tie("expr"), tie("expr")).map(([a, i]) => `${a}[${i}]`),
    fc.array(tie("expr"), { maxLength: 3 }).map((xs) => `[${xs.join(", ")}]`),
  ),
})).expr;

/** Well-typed conditions: most of them reach the evaluator, errors and all. */
const typed: fc.Arbitrary<string> = fc.letrec<{ bool: string; str: string; num: string }>((tie) => ({
  str: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom("subject.department", "subject.email", "subject.manager", "task.displayName", "entitlement.id", "account.username", "TimeFormat.DATE"),
    fc.string({ maxLength: 5 }).map((x) => JSON.stringify(x)),
    fc.constantFrom('subject.profile.costCenter', 'subject.profile["nope"]', 'subject.attributes.region', 'string(subject.status)', 'string(ip)'),
    tie("str").map((x) => `${x}.lowerAscii()`),
    tie("str").map((x) => `${x}.ifEmpty("none")`),
    fc.tuple(tie("str"), tie("str")).map(([a, b]) => `${a} + ${b}`),
    fc.constantFrom('"15"', '"Monday"', "TimeFormat.RFC3339", '"2006-01-02"').map((l) => `time.format(now(), ${l}, "America/New_York")`),
    fc.constantFrom("subject", "c1.directory.users.v1.FindByEmail(subject.manager)", 'c1.directory.users.v1.GetByID("u-cy")', 'c1.directory.users.v1.GetByID("u-none")').map((u) => `${u}.email`),
  ),
  num: fc.oneof(
    { depthSize: "small" },
    fc.integer({ min: -2, max: 2000 }).map(String),
    fc.constantFrom("int(task.numericId)", "size(subject.emails)", "subject.profile.level", "now().getHours(\"Europe/Berlin\")", "int(subject.profile.level)", "ip.family()"),
    tie("str").map((x) => `size(${x})`),
    fc.tuple(tie("num"), fc.constantFrom("+", "-", "*", "/", "%"), tie("num")).map(([a, op, b]) => `(${a} ${op} ${b})`),
  ),
  bool: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom("true", "false", "ip.isPrivate", "task.analysis.hasConflictViolations", "subject.status == UserStatus.ENABLED", "task.origin == TaskOrigin.WEBAPP"),
    fc.constantFrom('c1.user.v1.HasApp(subject, "app-aws")', 'c1.user.v1.HasEntitlement(subject, "app-aws", "ent-ro")', 'has(subject.profile.level)', '"oncall" in subject.profile.tags'),
    fc.tuple(tie("str"), fc.constantFrom("==", "!=", "<", ">="), tie("str")).map(([a, op, b]) => `${a} ${op} ${b}`),
    fc.tuple(tie("num"), fc.constantFrom("==", "!=", "<", ">="), tie("num")).map(([a, op, b]) => `${a} ${op} ${b}`),
    fc.tuple(tie("str"), fc.constantFrom("startsWith", "endsWith", "contains", "matches"), tie("str")).map(([a, f, b]) => `${a}.${f}(${b})`),
    fc.tuple(tie("bool"), fc.constantFrom("&&", "||"), tie("bool")).map(([a, op, b]) => `(${a} ${op} ${b})`),
    tie("bool").map((b) => `!(${b})`),
    fc.tuple(tie("bool"), tie("bool"), tie("bool")).map(([a, b, c]) => `(${a} ? ${b} : ${c})`),
    tie("bool").map((b) => `subject.emails.exists(e, ${b})`),
    tie("str").map((x) => `cidr("10.0.0.0/8").contains(${x})`),
  ),
})).bool;

function exercise(source: string): void {
  const d = checkCondition(source);
  expect(Array.isArray(d)).toBe(true);
  for (const x of d) {
    expect(typeof x.code).toBe("string");
    expect(x.line).toBeGreaterThanOrEqual(1);
    expect(x.column).toBeGreaterThanOrEqual(1);
    expect(x.span.start).toBeLessThanOrEqual(x.span.end);
    expect(x.excerpt).toContain("^");
  }
  const c = compileCondition(source);
  if (c.ok) {
    const r = evaluateCondition(c.value, prepared);
    expect(typeof r.ok).toBe("boolean");
    const t = traceCondition(c.value, prepared);
    expect(t.outcome).toEqual(r);
  }
  expect(Array.isArray(checkApproverExpression(source))).toBe(true);
  const a = compileApproverExpression(source);
  if (a.ok) {
    const r = evaluateApproverExpression(a.value, { subject: ada, appOwners: [bob], entitlement: awsAdmin, task: facts, now: NOW, directory });
    expect(typeof r.ok).toBe("boolean");
  }
}

describe("no input makes the public functions throw", () => {
  it("arbitrary strings (property)", () => {
    fc.assert(fc.property(fc.string({ maxLength: 60 }), exercise), { numRuns: 1500 });
  });

  it("arbitrary unicode strings (property)", () => {
    fc.assert(fc.property(fc.string({ unit: "grapheme", maxLength: 30 }), exercise), { numRuns: 1000 });
  });

  it("CEL-like expressions (property)", () => {
    fc.assert(fc.property(cel, exercise), { numRuns: 2000 });
  });

  it("well-typed conditions (property)", () => {
    fc.assert(fc.property(typed, exercise), { numRuns: 2000 });
  });

  it("values that are not what the types say (JS callers)", () => {
    const c = compileCondition("true");
    const a = compileApproverExpression("appOwners");
    if (!c.ok || !a.ok) throw new Error("compile");
    for (const junk of [null, undefined, 42, "true", {}, { source: 1 }]) {
      expect(evaluateCondition(junk as never, prepared).ok).toBe(false);
      expect(traceCondition(junk as never, prepared).outcome.ok).toBe(false);
      expect(evaluateCondition(c.value, junk as never).ok).toBe(false);
      expect(traceCondition(c.value, junk as never).outcome.ok).toBe(false);
      expect(evaluateApproverExpression(a.value, junk as never).ok).toBe(false);
      if (typeof junk !== "string") expect(checkCondition(junk as never)).toMatchObject([{ code: "CEL_SYNTAX" }]);
      expect(prepareConditionInput({ ...adaInput(), subject: junk as never }).ok).toBe(false);
      expect(prepareConditionInput({ ...adaInput(), directory: junk as never }).ok).toBe(false);
    }
  });

  it("pathological sources", () => {
    for (const s of [
      "(".repeat(5000),
      `${"[".repeat(300)}${"]".repeat(300)}`,
      "!".repeat(10_000) + "true",
      "a.".repeat(2000) + "b",
      "\u0000",
      "'\\u{110000}'",
      '"\\uD800"',
      "1".repeat(400),
      "0x" + "f".repeat(100),
      "1e400 == 1.0",
      "// only a comment",
      "c1.directory.users.v1.FindByEmail",
      "c1.directory.users.v1.FindByEmail()()",
      "now(1)",
      "[1, 2, 3].map(x, x, x, x)",
      "has(1)",
      "cel.bind(x, 1, x + 1) == 2",
      "time.format(now(), 'Monday', '../../etc/passwd') == ''",
      "timestamp('9999-12-31T23:59:59Z') + duration('1h') > now()",
      "duration('9999999999h') > duration('1s')",
      "int('9223372036854775808') > 0",
      "-9223372036854775808 - 1 < 0",
      "__proto__.x",
      "subject.__proto__",
      "subject['constructor'] == null",
      "{'__proto__': 1}.size() == 1",
    ]) {
      exercise(s);
    }
  });
});
