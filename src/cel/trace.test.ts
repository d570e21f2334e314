import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileApproverExpression, compileCondition } from "./compile.js";
import { evaluateCondition, prepareConditionInput, type ConditionInput } from "./evaluate.js";
import { adaInput, makeUser, tenant } from "./test-fixtures.js";
import type { TraceTruth } from "./trace-record.js";
import { traceApproverExpression, traceCondition, traceRecordOf, type TraceNode, type TraceOutcome } from "./trace.js";

const { ada, bob, awsAdmin, facts, directory, NOW } = tenant;

function trace(source: string, input: ConditionInput = adaInput()) {
  const c = compileCondition(source);
  if (!c.ok) throw new Error(`${source}: ${c.error.map((d) => d.message).join("; ")}`);
  return { t: traceCondition(c.value, input), compiled: c.value };
}

const byText = (nodes: readonly TraceNode[], text: string): TraceNode => {
  const n = nodes.find((x) => x.text === text);
  if (!n) throw new Error(`no node ${text} in ${nodes.map((x) => x.text).join(" | ")}`);
  return n;
};

describe("traceCondition", () => {
  it("gives every node's text with balanced parentheses, where cel-js's range leaves one out (docs CEL review: external-insights.mdx's `(… || …) && …`)", () => {
    const { t } = trace('(subject.department == "Engineering" || false) && true');
    expect(t.root?.text).toBe('(subject.department == "Engineering" || false) && true');
    const weekend = trace('!(now().getDayOfWeek() == 0 || now().getDayOfWeek() == 6)').t;
    expect(weekend.root?.text).toBe("!(now().getDayOfWeek() == 0 || now().getDayOfWeek() == 6)");
    for (const { t: x } of [trace('(subject.department == "Engineering" || false) && true'), { t: weekend }, trace('subject.email.endsWith(")") && (true || ("(" == subject.email))')])
      for (const n of x.nodes) {
        const text = n.text.replace(/"[^"]*"/g, '""');
        expect([...text].filter((c) => c === "(").length, n.text).toBe([...text].filter((c) => c === ")").length);
      }
  });

  it("records the value of every sub-expression with its span", () => {
    const { t } = trace('subject.department == "Engineering" && subject.status == UserStatus.ENABLED');
    expect(t.outcome).toEqual({ ok: true, value: true });
    expect(t.root).toMatchObject({ kind: "operator", label: "&&", span: { start: 0, end: 75 }, outcome: { kind: "value", value: true, display: "true" } });
    expect(byText(t.nodes, "subject.department")).toMatchObject({
      kind: "select",
      label: "department",
      span: { start: 0, end: 18 },
      line: 1,
      column: 1,
      outcome: { kind: "value", value: "Engineering", display: '"Engineering"' },
      evaluations: 1,
    });
    expect(byText(t.nodes, "subject")).toMatchObject({ kind: "identifier", outcome: { kind: "value", display: 'User("u-ada", "ada@northwind.example")' } });
    expect(byText(t.nodes, "UserStatus.ENABLED")).toMatchObject({ kind: "identifier", outcome: { kind: "value", display: "UserStatus.ENABLED" }, children: [] });
    expect(t.nodes.map((n) => n.id)).toEqual(t.nodes.map((_, i) => i));
  });

  it("marks what && and || short-circuit, and the branch ?: does not take", () => {
    const { t } = trace('subject.department == "Sales" && c1.user.v1.HasApp(subject, "app-aws")');
    expect(t.outcome).toEqual({ ok: true, value: false });
    expect(byText(t.nodes, 'c1.user.v1.HasApp(subject, "app-aws")')).toMatchObject({ outcome: { kind: "not-evaluated", reason: "short-circuit" }, evaluations: 0 });
    expect(byText(t.nodes, '"app-aws"')).toMatchObject({ outcome: { kind: "not-evaluated", reason: "short-circuit" } });

    const { t: t2 } = trace('subject.department == "Engineering" ? task.numericId > "1000" : subject.profile.nope == 1');
    expect(byText(t2.nodes, 'task.numericId > "1000"').outcome).toMatchObject({ kind: "value", value: true });
    expect(byText(t2.nodes, "subject.profile.nope == 1").outcome).toEqual({ kind: "not-evaluated", reason: "branch-not-taken" });
  });

  it("records errors where they happen and how CEL absorbs them", () => {
    const { t } = trace('subject.profile.nope == "x" || subject.department == "Engineering"');
    expect(t.outcome).toEqual({ ok: true, value: true });
    expect(byText(t.nodes, "subject.profile.nope")).toMatchObject({ outcome: { kind: "error", error: { code: "CEL_NO_SUCH_KEY", location: { column: 17 } } } });
    expect(byText(t.nodes, 'subject.profile.nope == "x"').outcome.kind).toBe("error");
  });

  it("shows directory calls with their arguments, not the namespace", () => {
    const { t } = trace('c1.directory.users.v1.FindByEmail(subject.manager).department == "Engineering Management"');
    const call = byText(t.nodes, "c1.directory.users.v1.FindByEmail(subject.manager)");
    expect(call).toMatchObject({ kind: "call", label: "c1.directory.users.v1.FindByEmail", outcome: { kind: "value", display: 'User("u-bob", "bob@northwind.example")' } });
    expect(call.children.map((c) => c.text)).toEqual(["subject.manager"]);
    expect(t.nodes.some((n) => n.text === "c1")).toBe(false);
  });

  it("records each iteration inside comprehensions", () => {
    const { t } = trace('subject.emails.exists(e, e.startsWith("ada.l"))');
    const body = byText(t.nodes, 'e.startsWith("ada.l")');
    expect(body.evaluations).toBe(2);
    expect(body.iterations.map((o) => (o.kind === "value" ? o.value : o.kind))).toEqual([false, true]);
    expect(byText(t.nodes, 'subject.emails.exists(e, e.startsWith("ada.l"))')).toMatchObject({ kind: "comprehension", label: "exists" });
    const { t: empty } = trace("subject.usernames.all(u, u.size() > 10)", adaInput({ subject: makeUser({ id: "u-x" }) }));
    expect(byText(empty.nodes, "u.size() > 10").outcome).toEqual({ kind: "not-evaluated", reason: "no-iterations" });
  });

  it("gives the same outcome as evaluateCondition, errors included", () => {
    for (const source of ["subject.profile.nope == 1", "subject.profile.costCenter", 'c1.directory.users.v1.GetByID("x").id == ""', "true"]) {
      const { t, compiled } = trace(source);
      expect(t.outcome).toEqual(evaluateCondition(compiled, adaInput()));
    }
  });

  it("reports input that cannot be prepared without a tree", () => {
    const { t } = trace("true", adaInput({ now: "never" }));
    expect(t).toMatchObject({ outcome: { ok: false, error: { code: "CEL_INVALID_INPUT" } }, root: null, nodes: [] });
  });

  it("traces approver expressions", () => {
    const c = compileApproverExpression("size(c1.directory.users.v1.GetManagers(subject)) > 0 ? c1.directory.users.v1.GetManagers(subject) : appOwners");
    if (!c.ok) throw new Error("compile");
    const t = traceApproverExpression(c.value, { subject: ada, appOwners: [bob], entitlement: awsAdmin, task: facts, now: NOW, directory });
    expect(t.outcome).toEqual({ ok: true, value: ["u-bob"] });
    expect(byText(t.nodes, "appOwners").outcome).toEqual({ kind: "not-evaluated", reason: "branch-not-taken" });
  });

  it("agrees with evaluateCondition on random inputs (property)", () => {
    const sources = [
      'subject.department == "Engineering" && subject.profile.level > 3',
      'subject.profile.level > 3 || subject.jobTitle.contains("Engineer")',
      'has(subject.profile.clearance) ? subject.profile.clearance == "secret" : subject.department.startsWith("E")',
      'subject.emails.exists(e, e.endsWith("@northwind.example")) && !(subject.status == UserStatus.DISABLED)',
      'c1.user.v1.HasEntitlement(subject, "app-aws", "ent-admin") || subject.manager == "bob@northwind.example"',
      'subject.profile.level / subject.profile.divisor > 1.0 || subject.username.matches("^[a-c]")',
      'time.format(now(), "15", "America/New_York") >= "09" && subject.department != ""',
    ].map((s) => {
      const c = compileCondition(s);
      if (!c.ok) throw new Error(s);
      return c.value;
    });
    const profile = fc.dictionary(fc.constantFrom("level", "clearance", "divisor", "tags"), fc.oneof(fc.integer({ min: -5, max: 10 }), fc.string({ maxLength: 4 }), fc.constant(null)));
    const user = fc.record({
      department: fc.constantFrom("", "Engineering", "Sales", "E"),
      jobTitle: fc.constantFrom("", "Engineer", "Director"),
      username: fc.constantFrom("ada", "zed", ""),
      emails: fc.array(fc.constantFrom("a@northwind.example", "b@elsewhere.example"), { maxLength: 3 }),
      status: fc.constantFrom("ENABLED", "DISABLED", "USER_STATUS_DELETED", ""),
      managerIds: fc.constantFrom([], ["u-bob"], ["u-missing"]),
      profile,
    });
    const now = fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2027, 0, 1) }).map((ms) => new Date(ms).toISOString());
    fc.assert(
      fc.property(fc.constantFrom(...sources), user, now, (compiled, u, clock) => {
        const input = adaInput({ subject: makeUser({ id: "u-ada", ...u }), now: clock });
        const p = prepareConditionInput(input);
        if (!p.ok) return;
        const expected = evaluateCondition(compiled, p.value);
        const t = traceCondition(compiled, p.value);
        expect(t.outcome).toEqual(expected);
        const root = t.root?.outcome;
        if (expected.ok && root?.kind === "value") expect(root.value).toBe(expected.value);
        else if (!expected.ok && expected.error.code !== "CEL_NOT_BOOL") expect(root?.kind).toBe("error");
      }),
      { numRuns: 300 },
    );
  });

  it("builds the node tree on first read, once, frozen; JSON keeps its fields; the record stays private", () => {
    const { t } = trace('subject.department == "Engineering"');
    // Own enumerable fields are the plain ones; the record behind them is not among them.
    expect(Object.keys(t)).toEqual(["source", "outcome"]);
    for (const member of ["slots", "repeats", "settle"]) expect(member in t, `${member} is not a member of a trace`).toBe(false);
    const nodes = t.nodes;
    expect(t.nodes).toBe(nodes);
    expect(t.root).toBe(nodes[0]);
    expect(Object.isFrozen(nodes) && nodes.every((n) => Object.isFrozen(n))).toBe(true);
    const json = JSON.parse(JSON.stringify(t)) as { source: string; root: { text: string }; nodes: unknown[] };
    expect(json.source).toBe('subject.department == "Engineering"');
    expect(json.root.text).toBe('subject.department == "Engineering"');
    expect(json.nodes).toHaveLength(nodes.length);
  });

  it("keeps a compact record that agrees with the node tree", () => {
    const truth = (o: TraceOutcome): TraceTruth =>
      o.kind === "value" ? (o.value === true ? "true" : o.value === false ? "false" : "value") : o.kind;
    const sources = [
      'subject.department == "Sales" && c1.user.v1.HasApp(subject, "app-aws")',
      'subject.profile.nope == "x" || subject.department == "Engineering"',
      'subject.emails.exists(e, e.startsWith("ada.l"))',
      'subject.department == "Engineering" ? task.numericId > "1000" : subject.profile.nope == 1',
    ];
    for (const source of sources) {
      const { t } = trace(source);
      const r = traceRecordOf(t);
      if (!r) throw new Error("no record");
      expect(r.table.size).toBe(t.nodes.length);
      for (const n of t.nodes) {
        expect(r.truth(n.id)).toBe(truth(n.outcome));
        expect(r.outcomeKind(n.id)).toBe(n.outcome.kind);
        expect(r.evaluations(n.id)).toBe(n.evaluations);
        expect(r.iterationTruths(n.id) ?? []).toEqual(n.iterations.map(truth));
        expect(r.table.texts[n.id]).toBe(n.text);
        expect(r.table.children[n.id]).toEqual(n.children.map((c) => c.id));
        if (n.outcome.kind === "value") expect(r.value(n.id)).toBe(n.outcome.value);
        if (n.outcome.kind === "error") expect(r.error(n.id)).toEqual(n.outcome.error);
        if (n.outcome.kind === "not-evaluated") expect(r.reason(n.id)).toBe(n.outcome.reason);
      }
    }
    expect(traceRecordOf(trace("true", adaInput({ now: "never" })).t)).toBeNull();
  });

  it("keeps traces of one expression apart, and evaluating untraced records nothing", () => {
    const { t: first, compiled } = trace('subject.department == "Engineering"');
    const p = prepareConditionInput(adaInput({ subject: makeUser({ id: "u-x", department: "Sales" }) }));
    if (!p.ok) throw new Error("prepare");
    const second = traceCondition(compiled, p.value);
    evaluateCondition(compiled, adaInput());
    expect(first.root?.outcome).toMatchObject({ value: true });
    expect(second.root?.outcome).toMatchObject({ value: false });
    expect(byText(second.nodes, "subject.department").outcome).toMatchObject({ value: "Sales" });
  });
});
