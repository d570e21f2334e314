import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { replaceInWorld, routeLabel, selectSteps, taskConditions, type Policy, type World } from "policy-sim";
import { describeTaskRef, taskInWorld } from "policy-sim/testing";
import { arbWorldRecipe, diffPolicies, worldFromRecipe, type PolicyDiff } from "policy-sim/testing/arbitraries";
import { sampleWorld } from "./helpers.js";

const sample = sampleWorld();
const prodAdmin = sample.index.policies.get("pol-prod-admin")!;

function diff(world: World, before: Policy, after: Policy, numRuns = 300, seed = 42): PolicyDiff {
  const r = diffPolicies(world, before, after, { numRuns, seed });
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

const withRule = (p: Policy, i: number, condition: string): Policy => ({ ...p, rules: p.rules!.map((r, j) => (j === i ? { ...r, condition } : r)) });

/** Re-checks a counterexample from scratch: the two versions really select differently for it. */
function reallyDiffers(world: World, before: Policy, after: Policy, d: PolicyDiff): boolean {
  if (d.kind !== "different") return false;
  const selectionIn = (p: Policy) => {
    const w = replaceInWorld(world, { policies: [p] });
    const built = taskInWorld(w, d.spec);
    if (!built.ok) throw new Error(built.error.message);
    const s = selectSteps(built.value.world, p, taskConditions(built.value.world, built.value.task));
    return s.ok ? { key: s.value.decidedBy.stepKey, steps: JSON.stringify(s.value.steps) } : { error: s.error.code };
  };
  return JSON.stringify(selectionIn(before)) !== JSON.stringify(selectionIn({ ...after, id: before.id })) || d.changes.includes("approvers");
}

describe("diffPolicies on the sample tenant", () => {
  it("finds the contractor a removed rule no longer catches, shrunk to what matters", () => {
    const after = { ...prodAdmin, rules: prodAdmin.rules!.filter((_, i) => i !== 2) };
    const d = diff(sample, prodAdmin, after);
    expect(d.kind).toBe("different");
    if (d.kind !== "different") return;
    expect(d.before).toMatchObject({ kind: "route", decidedBy: { kind: "rule", ruleIndex: 2 } });
    expect(d.after).toMatchObject({ kind: "route" });
    expect(d.changes).toContain("decidedBy");
    // Shrunk: no origin, emergency or duration left, the subject's overrides reduced to what rule 2 tests.
    expect(Object.keys(d.spec).sort()).toEqual(["entitlement", "subject"]);
    expect(describeTaskRef(d.spec)).toMatch(/Contractor/);
    expect(reallyDiffers(sample, prodAdmin, after, d)).toBe(true);
  });

  it("finds a difference that needs a particular risk level", () => {
    const after = withRule(prodAdmin, 2, 'subject.employmentType == "Contractor" && entitlement.riskLevelValueId in ["critical", "high"]');
    const d = diff(sample, prodAdmin, after, 500);
    expect(d.kind).toBe("different");
    if (d.kind === "different") {
      expect(routeLabel(d.after)).toContain("rule #2");
      expect(reallyDiffers(sample, prodAdmin, after, d)).toBe(true);
    }
  });

  it("notices a change of steps or approvers, not only of rules", () => {
    const key = prodAdmin.rules![0]!.stepKey;
    const after: Policy = { ...prodAdmin, policySteps: { ...prodAdmin.policySteps, [key]: prodAdmin.policySteps!["grant"]! } };
    const d = diff(sample, prodAdmin, after);
    expect(d.kind === "different" && d.changes).toEqual(expect.arrayContaining(["steps"]));
  });

  it("finds none between equivalent versions", () => {
    const copies: Policy[] = [
      { ...prodAdmin, description: "edited", rules: prodAdmin.rules!.map((r) => ({ ...r })) },
      withRule(prodAdmin, 0, 'subject.profile.clearance == "high" && subject.department == "Security"'),
      withRule(prodAdmin, 2, '!(subject.employmentType != "Contractor" || entitlement.riskLevelValueId != "critical")'),
    ];
    for (const after of copies) expect(diff(sample, prodAdmin, after, 200)).toEqual({ kind: "none", runs: 200, seed: 42 });
  });

  it("evaluates a renamed copy under the original's id", () => {
    const d = diff(sample, prodAdmin, { ...prodAdmin, id: "pol-prod-admin-v2" }, 100);
    expect(d.kind).toBe("none");
  });

  it("is deterministic for a seed", () => {
    const after = { ...prodAdmin, rules: prodAdmin.rules!.filter((_, i) => i !== 0) };
    expect(diff(sample, prodAdmin, after, 300, 7)).toEqual(diff(sample, prodAdmin, after, 300, 7));
  });

  it("revoke and certify policies get tasks of their kind", () => {
    const standard = sample.index.policies.get("pol-revoke-standard")!;
    const d = diff(sample, standard, { ...standard, rules: [] }, 300);
    // The automatic rule tests the origin, which the search varies.
    expect(d.kind).toBe("different");
    if (d.kind === "different") expect(d.spec.kind).toBe("revoke");
  });
});

describe("diffPolicies over generated worlds", () => {
  it("a policy never differs from itself", () => {
    fc.assert(
      fc.property(arbWorldRecipe({ maxTasks: 2, maxRules: 6, maxPolicies: 2 }), fc.nat(), (recipe, i) => {
        const world = worldFromRecipe(recipe);
        const p = world.policies[i % world.policies.length]!;
        expect(diff(world, p, p, 20).kind).toBe("none");
      }),
      { numRuns: 15 },
    );
  });

  it("finds the difference when a rule's steps change, and the counterexample holds up", () => {
    fc.assert(
      fc.property(arbWorldRecipe({ maxTasks: 2, maxRules: 4, maxPolicies: 2, maxMutations: 0 }), fc.nat(), (recipe, i) => {
        const world = worldFromRecipe(recipe);
        const grants = world.policies.filter((p) => p.id.startsWith("pol-grant-") && (p.rules?.length ?? 0) > 0);
        fc.pre(grants.length > 0);
        const p = grants[i % grants.length]!;
        // Every rule now selects the baseline: any subject a rule matched routes differently.
        const after: Policy = { ...p, rules: p.rules!.map((r) => ({ ...r, stepKey: "grant" })) };
        const d = diff(world, p, after, 400);
        expect(d.kind).toBe("different");
        expect(reallyDiffers(world, p, after, d)).toBe(true);
      }),
      { numRuns: 10 },
    );
  });
});

describe("routeLabel", () => {
  it("reads a chained route as a path, and one made without chainVia (older JSON, a literal) without throwing", () => {
    const base = { kind: "route", policyId: "pol-a", source: "app", decidedBy: { kind: "rule", policyId: "pol-b", chainDepth: 1, ruleIndex: 0, stepKey: "k", field: "stepKey" }, chain: ["pol-a", "pol-b"], steps: [], firstStep: null, approvers: null } as const;
    expect(routeLabel({ ...base, chainVia: ["", "rule #3"] } as never)).toBe("pol-a (app): rule #3 → pol-b: rule #0 → k");
    expect(routeLabel(base as never)).toBe("pol-a (app): … → pol-b: rule #0 → k");
  });
});
