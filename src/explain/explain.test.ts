import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { TraceNode, TraceOutcome } from "../cel/index.js";
import { decide } from "../policy/decide.js";
import { loadWorld } from "../world/load-world.js";
import { explainTask, type ExplainedNode } from "./explain.js";
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
    const next = node.outcome.kind === "error" ? node.children.find((c) => c.outcome.kind === "error") : node.kind === "operator" && node.label === "&&" ? node.children.find(failed) : undefined;
    if (!next) return node.id;
    node = next;
  }
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
