/**
 * A traced decision runs, for each condition with a plain compiled run, the condition's recording
 * function in its place (trace.ts `PlainTracer.recordDecision`): it decides and keeps each node's
 * value, and the trace is made from that record when the decision's traces are read. These tests
 * hold that record to the one `traceCondition` makes while it evaluates, node by node, and to the
 * plain run: the recording run answers wherever the plain run does, its root the same value, on the
 * project's own conditions and on random ones (fast-check), for varied inputs. (Until this change
 * the record was made on first read, from the same context; the file keeps its name.)
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileCondition } from "./compile.js";
import { contextOf, plainRunOf, plainValue, prepareConditionInput, type CelContext, type PreparedConditionInput } from "./evaluate.js";
import { adaInput, makeUser, tenant } from "./test-fixtures.js";
import { corpus } from "./test-differential.js";
import { plainTracerOf, traceCondition, traceRecordOf } from "./trace.js";

const subjects = [
  tenant.ada,
  tenant.bob,
  tenant.cy,
  makeUser({ id: "u-p1", department: "Security", employmentType: "Contractor", email: "p1@synthetic.example", profile: { clearance: "high", level: 4, flag: true, nested: { city: "Oslo" } } }),
  makeUser({ id: "u-p2", department: "Engineering", profile: { clearance: 3 }, managerIds: ["u-ada", "u-bob"] }),
  makeUser({ id: "u-p3", department: "", profile: {} }),
];

const inputs: readonly PreparedConditionInput[] = subjects.flatMap((subject) =>
  [adaInput({ subject }), adaInput({ subject, entitlement: tenant.awsReadOnly, account: null, ip: null })].map((input) => {
    const p = prepareConditionInput(input);
    if (!p.ok) throw new Error(p.error.message);
    return p.value;
  }),
);

/**
 * Compares the trace a traced decision keeps for a condition its recording run decided with the one
 * `traceCondition` records while evaluating; how many it compared (0: the plain run did not answer).
 */
function compare(source: string, prepared: PreparedConditionInput): number {
  const c = compileCondition(source);
  if (!c.ok) return 0;
  const plain = plainRunOf(c.value);
  if (plain === undefined) return 0;
  const context: CelContext = contextOf(prepared);
  const value = plainValue(plain, context);
  if (value === undefined) return 0;
  // A traced decision's own record (task-conditions.ts): the recording run decides where the plain
  // run did, with the same answer, and the trace it leaves is the one recorded while evaluating.
  const record = plainTracerOf(c.value).recordDecision(context);
  expect(record, source).toBeDefined();
  if (record === undefined) return 0;
  const decided = record; // the record is the condition's trace
  const eager = traceCondition(c.value, prepared);
  expect(decided.outcome, source).toEqual(eager.outcome);
  // The record behind it holds the decided value at the root, before any node tree is built.
  expect(traceRecordOf(decided)?.value(0), source).toBe(value);
  expect(decided.nodes, source).toEqual(eager.nodes);
  expect(traceRecordOf(decided), source).toBe(decided);
  expect(Object.isFrozen(decided.nodes) && decided.nodes.every((n) => Object.isFrozen(n)), source).toBe(true);
  return 1;
}

describe("traces a traced decision records while deciding (recordDecision) equal traces recorded while evaluating", () => {
  it("for every condition of the project's fixtures, tests and docs, on every input", () => {
    const all = corpus();
    const conditions = [...all.fixtures, ...all.tests, ...all.docs].filter((e) => e.kind === "condition");
    expect(conditions.length).toBeGreaterThan(100);
    let compared = 0;
    for (const e of conditions) for (const p of inputs) compared += compare(e.source, p);
    expect(compared).toBeGreaterThan(conditions.length * 2);
  });

  const field = fc.constantFrom("subject.department", "subject.email", "subject.employmentType", "entitlement.appId");
  const str = fc.constantFrom('"Security"', '"Engineering"', '""', '"p1@synthetic.example"');
  const list = fc.constantFrom("subject.emails", "subject.managerIds", '["a", "b", subject.department]', "[]");
  const term: fc.Arbitrary<string> = fc.oneof(
    fc.tuple(field, fc.constantFrom("==", "!=", "<", ">="), str).map(([a, op, b]) => `${a} ${op} ${b}`),
    fc.tuple(field, list).map(([a, l]) => `${a} in ${l}`),
    fc.tuple(field, fc.constantFrom("startsWith", "endsWith", "contains", "matches"), str).map(([a, m, b]) => `${a}.${m}(${b})`),
    fc.tuple(list, fc.constantFrom("all", "exists", "exists_one"), str).map(([l, m, s]) => `${l}.${m}(x, x.size() > ${s}.size())`),
    fc.tuple(list, str).map(([l, s]) => `${l}.map(x, x + ${s}).exists(y, y.size() > 3)`),
    fc.constantFrom("size(subject.managerIds) > 0", "has(subject.profile.clearance)", 'subject.profile.clearance == "high"', 'subject.profile["level"] == 4', "subject.profile.missing == 1"),
    fc.constantFrom('c1.user.v1.HasApp(subject, "app-aws")', "ip.isPrivate()", "now() > timestamp('2026-01-01T00:00:00Z')", "true", "false"),
  );
  const condition: fc.Arbitrary<string> = fc.letrec<{ b: string }>((tie) => ({
    b: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      term,
      fc.tuple(tie("b"), fc.constantFrom("&&", "||"), tie("b")).map(([a, op, b]) => `(${a} ${op} ${b})`),
      tie("b").map((a) => `!(${a})`),
      fc.tuple(tie("b"), tie("b"), tie("b")).map(([c, a, b]) => `(${c} ? ${a} : ${b})`),
    ),
  })).b;

  it("for random conditions on random inputs (fast-check)", () => {
    let compared = 0;
    fc.assert(
      fc.property(condition, fc.constantFrom(...inputs), (source, p) => {
        compared += compare(source, p);
      }),
      { numRuns: 400 },
    );
    expect(compared).toBeGreaterThan(200);
  });
});
