import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { TraceNode, TraceOutcome } from "../cel/index.js";
import { decide } from "../policy/decide.js";
import { loadWorld } from "../world/load-world.js";
import { replaceInWorld } from "../world/world.js";
import { explain, explainTask, type ExplainedNode } from "./explain.js";
import { formatExplanation } from "./format.js";

const loaded = loadWorld(JSON.parse(readFileSync(new URL("../../fixtures/world.json", import.meta.url), "utf8")));
if (!loaded.ok) throw new Error("fixture world does not load");
const world = loaded.value;

// The explanation is built from each trace's compact record; the public TraceNode tree is built from
// the same record by another path. Both must say the same thing, node for node.
function expected(n: TraceNode, parent: number): ExplainedNode {
  const o: TraceOutcome = n.outcome;
  const base = { id: n.id, parent, text: n.text, span: n.span, line: n.line, column: n.column };
  if (o.kind === "error") return { ...base, outcome: "error", display: `${o.error.code}: ${o.error.message}` };
  if (o.kind === "not-evaluated") return { ...base, outcome: "not-evaluated", display: o.reason };
  const v = o.value;
  const scalar = typeof v === "boolean" || typeof v === "string" || (typeof v === "number" && Number.isFinite(v)) ? v : typeof v === "bigint" ? Number(v) : v === null ? null : undefined;
  return scalar === undefined ? { ...base, outcome: "value", display: o.display } : { ...base, outcome: "value", display: o.display, value: scalar };
}

function culprit(root: TraceNode): number | null {
  const failed = (n: TraceNode) => n.outcome.kind === "error" || (n.outcome.kind === "value" && n.outcome.value === false);
  if (!failed(root)) return null;
  let node = root;
  for (;;) {
    const isFalse = (c: TraceNode) => c.outcome.kind === "value" && c.outcome.value === false;
    const next = node.outcome.kind === "error" ? node.children.find((c) => c.outcome.kind === "error") : node.kind === "operator" && node.label === "&&" ? node.children.find(isFalse) : undefined;
    if (!next) return node.id;
    node = next;
  }
}

/** Errors beside which an `&&` or `||` still came to true or false, in id order. */
function absorbed(nodes: readonly TraceNode[]): number[] {
  const out: number[] = [];
  for (const n of nodes) {
    if (n.kind !== "operator" || (n.label !== "&&" && n.label !== "||") || n.outcome.kind !== "value") continue;
    for (const c of n.children) if (c.outcome.kind === "error") out.push(c.id);
  }
  return out;
}

describe("explainTask", () => {
  it("explains each rule's nodes exactly as its trace's node tree reads", () => {
    let compared = 0;
    for (const task of world.tasks.values()) {
      const e = explainTask(world, task);
      const traces = decide(world, task, { trace: true }).traces;
      const rules = e.rules.filter((r) => r.ruleIndex >= 0);
      expect(rules).toHaveLength(traces.length);
      rules.forEach((r, i) => {
        const t = traces[i];
        if (!t?.root) return expect(r.trace).toBeNull();
        const parents = new Map<number, number>();
        for (const n of t.nodes) for (const c of n.children) parents.set(c.id, n.id);
        expect(r.trace?.nodes).toEqual(t.nodes.map((n) => expected(n, parents.get(n.id) ?? -1)));
        expect(r.trace?.culprit).toBe(culprit(t.root));
        expect(r.trace?.absorbed).toEqual(absorbed(t.nodes));
        compared += t.nodes.length;
      });
    }
    expect(compared).toBeGreaterThan(50);
  });
});

describe("rule by rule: the rules first match left unevaluated are listed too (product_admin_policies.mdx: the first rule that matches wins)", () => {
  const explainId = (id: string) => {
    const task = [...world.tasks.values()].find((t) => t.numericId === id);
    if (!task) throw new Error(`no task ${id}`);
    return explainTask(world, task);
  };
  it("task 1001 matches rule #2 of pol-prod-admin: #3 and #4 are listed as not evaluated, with their outcomes", () => {
    const e = explainId("1001");
    expect(e.rules.filter((r) => r.policyId === "pol-prod-admin").map((r) => r.ruleIndex)).toEqual([0, 1, 2]);
    expect(e.notEvaluated.map((n) => [n.policyId, n.ruleIndex, n.outcome])).toEqual([
      ["pol-prod-admin", 3, "policyId pol-prod-admin-eng"],
      ["pol-prod-admin", 4, "stepKey ad394478-db5d-4cd9-a9b6-4e9944150499"],
    ]);
    const text = formatExplanation(e);
    expect(text).toContain("· #3  subject.department == \"Engineering\" && entitlement.riskLevelValueId == \"critical\"");
    expect(text).toContain("→ policyId pol-prod-admin-eng  not evaluated (an earlier rule matched)");
    // A constant is not echoed as its own value.
    expect(text).not.toContain("TaskOrigin.COPILOT = TaskOrigin.COPILOT");
  });
  it("when no rule matched every rule ran: nothing is left unevaluated", () => {
    for (const t of world.tasks.values()) {
      const e = explainTask(world, t);
      if (e.result.kind === "selected" && e.result.decidedBy.kind === "baseline" && e.chain.length === 1) expect(e.notEvaluated).toEqual([]);
      // Never a rule both evaluated and listed as not evaluated.
      for (const n of e.notEvaluated) expect(e.rules.some((r) => r.policyId === n.policyId && r.ruleIndex === n.ruleIndex)).toBe(false);
    }
  });
});

describe("an error CEL absorbs is not the reason (cel-spec: `&&` is false when either side is false, whatever the other; `||` likewise true)", () => {
  const policy = world.index.policies.get("pol-prod-admin");
  if (!policy?.rules) throw new Error("fixture policy pol-prod-admin has no rules");
  const rules = [
    'subject.profile.badgeLevel == "gold" && subject.department == "Sales"',
    'subject.department == "Sales" || subject.profile.badgeLevel == "gold"',
    'subject.profile.badgeLevel == "gold" || subject.department == subject.department',
  ].map((condition, i) => ({ ...(policy.rules?.[i % (policy.rules?.length ?? 1)] as NonNullable<typeof policy.rules>[number]), condition }));
  const edited = replaceInWorld(world, { policies: [{ ...policy, rules }] });
  const task = [...edited.tasks.values()].find((t) => t.type?.kind === "grant" && "appEntitlementId" in t.type && t.type.appEntitlementId === "ent-aws-prod-admin");
  if (!task) throw new Error("the fixture has no grant task of ent-aws-prod-admin");
  const e = explainTask(edited, task);
  const byIndex = (i: number) => e.rules.find((r) => r.policyId === "pol-prod-admin" && r.ruleIndex === i);
  const text = (i: number, id: number | null | undefined) => byIndex(i)?.trace?.nodes.find((n) => n.id === id)?.text;

  it("points at the false side of `error && false`, and names the absorbed error", () => {
    const r = byIndex(0);
    expect(r?.conditionMatched).toBe(false);
    expect(r?.error).toBeFalsy();
    expect(text(0, r?.trace?.culprit)).toBe('subject.department == "Sales"');
    expect(r?.trace?.absorbed.map((id) => text(0, id))).toEqual(['subject.profile.badgeLevel == "gold"']);
  });

  it("keeps the error as the reason of `false || error`, which fails", () => {
    const r = byIndex(1);
    expect(r?.error).toMatch(/badgeLevel/);
    expect(text(1, r?.trace?.culprit)).toBe("subject.profile.badgeLevel");
    expect(r?.trace?.absorbed).toEqual([]);
  });

  it("says a matched `error || true` matched despite the error, in the text the CLI prints", () => {
    const r = byIndex(2);
    expect(r?.conditionMatched).toBe(true);
    expect(r?.trace?.culprit).toBeNull();
    expect(r?.trace?.absorbed.map((id) => text(2, id))).toEqual(['subject.profile.badgeLevel == "gold"']);
    const out = formatExplanation(e);
    expect(out).toContain('absorbed: subject.profile.badgeLevel == "gold" failed (CEL_NO_SUCH_KEY: No such key: badgeLevel) but did not decide the rule: subject.department == "Sales" is false, and && with a false side is false');
    expect(out).toContain("but did not decide the rule: subject.department == subject.department is true, and || with a true side is true");
    // The false rule's caret is under the side that made it false, with that side's value.
    expect(out).toMatch(/\^+ is false \(subject\.department = "[^"]+"\)/);
  });
});

describe("a failing rule is told with the values its failing part read, and the error it recorded (REPL review)", () => {
  const policy = world.index.policies.get("pol-prod-admin");
  if (!policy?.rules) throw new Error("fixture policy pol-prod-admin has no rules");
  const rules = [
    'subject.profile.a == "x" || subject.profile.b == "y"',
    "timestamp(subject.profile.contractEnd) < now()",
  ].map((condition, i) => ({ ...(policy.rules?.[i % (policy.rules?.length ?? 1)] as NonNullable<typeof policy.rules>[number]), condition }));
  const edited = replaceInWorld(world, { policies: [{ ...policy, rules }] });
  const task = [...edited.tasks.values()].find((t) => t.type?.kind === "grant" && "appEntitlementId" in t.type && t.type.appEntitlementId === "ent-aws-prod-admin");
  if (!task) throw new Error("the fixture has no grant task of ent-aws-prod-admin");
  const subject = edited.index.users.get(task.userId ?? "");
  const withDate = replaceInWorld(edited, { users: [{ ...(subject as NonNullable<typeof subject>), profile: { ...subject?.profile, contractEnd: "2027-03-31" } }] });
  const e = explainTask(withDate, task);
  const out = formatExplanation(e);

  it("both sides of || fail: the error recorded is the left one's, as cel-go's, and the text's caret is under it", () => {
    const r = e.rules.find((x) => x.policyId === "pol-prod-admin" && x.ruleIndex === 0);
    expect(r?.error).toMatch(/^CEL_NO_SUCH_KEY: No such key: a\b/);
    expect(out).toMatch(/\n {7}\^{17} CEL_NO_SUCH_KEY: No such key: a \(subject\.profile = \{[^\n]*"contractEnd": "2027-03-31"[^\n]*\}\)\n/);
  });

  it("a function that refused its argument is told with the argument, and timestamp() asks for RFC 3339, not ISO 8601 (a date is ISO 8601)", () => {
    const r = e.rules.find((x) => x.policyId === "pol-prod-admin" && x.ruleIndex === 1);
    expect(r?.error).toMatch(/^CEL_INVALID_ARGUMENT: timestamp\(\) requires an RFC 3339 date-time such as "2027-03-31T00:00:00Z"/);
    expect(out).toContain('CEL_INVALID_ARGUMENT: timestamp() requires an RFC 3339 date-time such as "2027-03-31T00:00:00Z" (subject.profile.contractEnd = "2027-03-31")');
  });
});

describe("the text leaves out what says nothing (REPL review nits)", () => {
  it("a false field read is told by its value alone, not by the task object it was read from", () => {
    const policy = world.index.policies.get("pol-prod-admin");
    if (!policy?.rules) throw new Error("fixture");
    const rule = { ...(policy.rules[0] as NonNullable<typeof policy.rules>[number]), condition: "task.isGrantPermanent" };
    const edited = replaceInWorld(world, { policies: [{ ...policy, rules: [rule] }] });
    const task = [...edited.tasks.values()].find((t) => t.numericId === "1001");
    if (!task) throw new Error("fixture");
    const out = formatExplanation(explainTask(edited, task));
    expect(out).toMatch(/\n {7}\^+ is false\n/);
    expect(out).not.toContain("(task = ");
  });

  it("a false exists() is told by the list it searched, not by its iteration variable's last element", () => {
    const policy = world.index.policies.get("pol-prod-admin");
    if (!policy?.rules) throw new Error("fixture");
    const rule = { ...(policy.rules[0] as NonNullable<typeof policy.rules>[number]), condition: 'subject.emails.exists(k, k == "nobody@example.com")' };
    const edited = replaceInWorld(world, { policies: [{ ...policy, rules: [rule] }] });
    const task = [...edited.tasks.values()].find((t) => t.numericId === "1001");
    if (!task) throw new Error("fixture");
    const line = formatExplanation(explainTask(edited, task)).split("\n").find((l) => /^ {7}\^+ is false/.test(l));
    expect(line).toMatch(/is false \(subject\.emails = \[[^\]]*\]\)$/);
  });

  it("a running approval step with no one assigned says so, rather than a bare (approval)", () => {
    const task = [...world.tasks.values()].find((t) => t.numericId === "1005");
    if (!task) throw new Error("fixture");
    expect(formatExplanation(explainTask(world, task)).split("\n")[3]).toMatch(/^ {2}it is at step 1 of \d+ \(approval, no one assigned to approve it\); /);
  });

  it("a described subject without a name or email is shown by id once, with no empty <>", () => {
    const r = explain(world, { subject: { id: "u-new" }, entitlement: { appId: "app-aws", id: "ent-aws-prod-admin" } });
    if (!r.ok) throw new Error(r.error.message);
    expect(formatExplanation(r.value).split("\n")[1]).toBe("  subject: u-new");
  });
});

describe("the text says what it means plainly (newcomer review 3)", () => {
  it("a display name with quotes of its own is written as a JSON string", () => {
    const out = formatExplanation(explainTask(world, [...world.tasks.values()].find((t) => t.numericId === "1001") as never));
    expect(out.split("\n")[0]).toBe('Task 1001 "Grant \\"Production AdministratorAccess\\" (AWS) to Ravi Patel" (grant, TASK_STATE_OPEN)');
  });

  it("a condition written over several lines (as the expressions reference writes them) is told on one line per value, with its parentheses (docs CEL review)", () => {
    const policy = world.index.policies.get("pol-prod-admin");
    if (!policy?.rules?.[0]) throw new Error("no pol-prod-admin rule in the sample world");
    const condition = '(subject.department == "Nowhere" ||\n    false) &&\n  true';
    const edited = replaceInWorld(world, { policies: [{ ...policy, rules: [{ ...policy.rules[0], condition }, ...policy.rules.slice(1)] }] });
    const task = [...edited.tasks.values()].find((t) => t.numericId === "1001");
    if (!task) throw new Error("no task 1001");
    const out = formatExplanation(explainTask(edited, task), { verbose: true });
    expect(out).toContain('(subject.department == "Nowhere" || false) && true = false');
    expect(out).toContain('subject.department == "Nowhere" || false = false');
    // No value line starts a continuation of a sub-expression on a line of its own.
    expect(out.split("\n").some((l) => /^\s*false\) &&/.test(l))).toBe(false);
  });

  it("an entitlement without a resource type has no resource-type defaults, said so rather than as resource type \"\"", () => {
    const ent = world.index.entitlements.get("app-aws\u0000ent-aws-prod-admin") ?? [...world.index.entitlements.values()].find((e) => e.id === "ent-aws-prod-admin");
    if (!ent) throw new Error("no ent-aws-prod-admin in the sample world");
    const edited = replaceInWorld(world, { entitlements: [{ ...ent, appResourceTypeId: "", grantPolicyId: "" }] });
    const task = [...edited.tasks.values()].find((t) => t.numericId === "1001");
    if (!task) throw new Error("no task 1001");
    const out = formatExplanation(explainTask(edited, task));
    expect(out).toContain('request defaults of app "app-aws" (the entitlement has no resource type)');
    expect(out).not.toContain('resource type ""');
  });
});

  it("a source passed over names the policy it holds, as the JSON's policyId does", () => {
    const e = explainTask(world, [...world.tasks.values()].find((t) => t.numericId === "1001") as never);
    const out = formatExplanation(e);
    for (const c of e.resolution.checks.filter((c) => c.status === "notReached")) {
      if (c.policyId) expect(c.detail).toContain(`is "${c.policyId}": not consulted`);
      else expect(c.detail).not.toContain(" is ");
    }
    expect(out).toContain('app "app-aws" grantPolicyId is "pol-aws-access": not consulted, an earlier source won');
  });

  it("--verbose lists each sub-expression's value on a line of its own, not all on one `;` line", () => {
    const task = [...world.tasks.values()].find((t) => t.numericId === "1001") as never;
    const lines = formatExplanation(explainTask(world, task), { verbose: true }).split("\n");
    const at = lines.indexOf("       values:");
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toBe('         subject.department == "Security" && subject.profile.clearance == "high" = false');
    expect(lines.some((l) => l.includes("; subject."))).toBe(false);
    // Without --verbose the deciding rule's values are still listed, one a line.
    expect(formatExplanation(explainTask(world, task))).toContain('       values:\n         subject.employmentType = "Contractor"\n         entitlement.riskLevelValueId = "critical"');
  });

describe("quoted names", () => {
  it("escape a newline or other control character, so a name cannot add a line of its own to the text (diff review)", async () => {
    const { quoted } = await import("../text/quoted.js");
    expect(quoted("Ravi Patel")).toBe('"Ravi Patel"');
    expect(quoted('Grant "Prod"')).toBe('"Grant \\"Prod\\""');
    expect(quoted("a\n  ✓ #0 forged")).toBe('"a\\n  ✓ #0 forged"');
    expect(quoted("tab\there")).toBe('"tab\\there"');
  });
});
