import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { NESTED_ALL, NESTED_MAP } from "../cel/test-fixtures.js";
import { explain } from "../explain/explain.js";
import { whatIf } from "../whatif/what-if.js";
import { loadWorld } from "../world/load-world.js";
import { saveWorld } from "../world/save-world.js";
import { findTask, type World } from "../world/world.js";
import { decide } from "./decide.js";
import { lintDecodedPolicy } from "./lint.js";

type Json = Record<string, unknown> & { policies: { id: string; rules: Record<string, unknown>[] }[]; tenant: Record<string, unknown> };

const fixture = (): Json => JSON.parse(readFileSync(new URL("../../fixtures/world.json", import.meta.url), "utf8")) as Json;

function load(json: unknown): World {
  const r = loadWorld(json);
  if (!r.ok) throw new Error(r.error[0]?.message);
  return r.value;
}

/** The sample world with `condition` as a first rule of pol-prod-admin (task 1001 matches its rule 2). */
function withFirstRule(condition: string, tenant: Record<string, unknown> = {}): World {
  const json = fixture();
  const policy = json.policies.find((p) => p.id === "pol-prod-admin");
  if (!policy) throw new Error("fixture");
  policy.rules.unshift({ condition, policyKey: "", stepKey: String(policy.rules[0]?.["stepKey"]) });
  Object.assign(json.tenant, tenant);
  return load(json);
}

function task1001(world: World) {
  const t = findTask(world, "1001");
  if (!t) throw new Error("task 1001");
  return t;
}

describe("a costly rule condition in a world", () => {
  for (const [name, condition] of [
    ["three nested .all() over 1,000-element lists", NESTED_ALL],
    ["a nested .map() blow-up", NESTED_MAP],
  ] as const) {
    it(`${name}: the rule records CEL_COST_EXCEEDED and selection goes on to the rule that matches`, () => {
      const world = withFirstRule(condition);
      const d = decide(world, task1001(world));
      expect(d.selection?.ok).toBe(true);
      if (!d.selection?.ok) return;
      const [first] = d.selection.value.evaluations;
      expect(first?.conditionMatched).toBe(false);
      expect(first?.error).toMatch(/^CEL_COST_EXCEEDED/);
      expect(d.selection.value.decidedBy).toMatchObject({ ruleIndex: 3 });
    });
  }

  it("explain shows the same error on the rule, from the same evaluation", () => {
    const world = withFirstRule(NESTED_ALL);
    const e = explain(world, "1001");
    expect(e.ok).toBe(true);
    if (!e.ok) return;
    expect(e.value.rules[0]?.error).toMatch(/^CEL_COST_EXCEEDED/);
    expect(e.value.rules[0]?.trace?.nodes.length).toBeGreaterThan(0);
  });

  it("whatIf adding the costly rule returns, with every task decided", () => {
    const world = load(fixture());
    const r = whatIf(world, (w) => {
      w.policies.find((p) => p.id === "pol-prod-admin")?.rules?.unshift({ condition: NESTED_ALL, policyKey: "", stepKey: "x" } as never);
    });
    expect(r.ok).toBe(true);
  });

  it("lint flags the condition as over the cost limit", () => {
    const world = withFirstRule(NESTED_ALL);
    const policy = world.policies.find((p) => p.id === "pol-prod-admin");
    if (!policy) throw new Error("policy");
    const findings = lintDecodedPolicy(policy, world).filter((f) => f.code === "CEL_COST_LIMIT");
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ severity: "error", path: "$.rules[0].condition" });
  });
});

describe("the world's cost limit (tenant.celCostLimit)", () => {
  it("applies to every evaluation: with 3 units, a four-node rule runs out", () => {
    const world = withFirstRule("subject.department == 'Engineering'", { celCostLimit: 3 });
    const d = decide(world, task1001(world));
    expect(d.selection?.ok && d.selection.value.evaluations[0]?.error).toMatch(/^CEL_COST_EXCEEDED/);
    const roomy = withFirstRule("subject.department == 'Engineering'", { celCostLimit: 1000 });
    expect(decide(roomy, task1001(roomy)).selection?.ok && decide(roomy, task1001(roomy)).selection).toMatchObject({ value: { evaluations: [{ error: "" }] } });
  });

  it("applies to lint", () => {
    const world = withFirstRule("subject.department == 'Engineering'", { celCostLimit: 10 });
    const policy = world.policies.find((p) => p.id === "pol-prod-admin");
    if (!policy) throw new Error("policy");
    expect(lintDecodedPolicy(policy, world).some((f) => f.code === "CEL_COST_LIMIT")).toBe(true);
  });

  it("survives save and load, and a bad value is refused", () => {
    const world = withFirstRule("true", { celCostLimit: 5000 });
    expect(world.tenant.celCostLimit).toBe(5000);
    expect(load(JSON.parse(JSON.stringify(saveWorld(world)))).tenant.celCostLimit).toBe(5000);
    const json = fixture();
    json.tenant["celCostLimit"] = -1;
    const r = loadWorld(json);
    expect(r.ok ? [] : r.error.map((d) => d.path)).toContain("$.tenant.celCostLimit");
  });
});
