import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  applyEdit,
  decide,
  editImpact,
  findTask,
  formatWhatIf,
  policyReach,
  replaceInWorld,
  routeOf,
  saveWorld,
  whatIf,
  whatIfWorlds,
  type WhatIfOptions,
  type WhatIfResult,
  type World,
  type WorldEdit,
  type WorldPatch,
} from "policy-sim";
import { applyPolicyMutation, arbPolicyMutation, arbWorldRecipe, worldFromRecipe } from "policy-sim/testing";
import { sampleWorld } from "./helpers.js";

const sample = sampleWorld();
const ANY: WhatIfOptions = { scope: { states: "any" } };

function run(world: World, edit: WorldEdit, options: WhatIfOptions = ANY): WhatIfResult {
  const r = whatIf(world, edit, options);
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
}

/** A result without the work counters, which differ between pruned and unpruned runs by design. */
function outcome(r: WhatIfResult): Omit<WhatIfResult, "stats"> {
  const { stats: _stats, ...rest } = r;
  return rest;
}

const inScopeTasks = (world: World) => [...world.tasks.values()];

/**
 * The reference: for every task, both routes straight from `decide`. Listed tasks must carry exactly
 * these routes; unlisted tasks must have equal routes (approvers included).
 */
function checkAgainstDecide(world: World, after: World, r: WhatIfResult): void {
  const listed = new Map([...r.changed, ...r.unchangedErrors].map((c) => [c.taskId, c]));
  for (const task of inScopeTasks(world)) {
    const before = routeOf(world, decide(world, task));
    const afterRoute = routeOf(after, decide(after, task));
    const c = listed.get(task.id);
    if (c) {
      expect(c.before).toEqual(before);
      expect(c.after).toEqual(afterRoute);
    } else {
      expect(afterRoute, `task ${task.numericId} is not listed but its route changed`).toEqual(before);
      expect(before.kind, `task ${task.numericId} errors but is not listed`).toBe("route");
    }
  }
}

/** Edits of every kind an edit can make, described as data so counterexamples print. */
type EditSpec =
  | { kind: "mutation"; mutation: Parameters<typeof applyPolicyMutation>[1] }
  | { kind: "entitlementPolicy"; ent: number; policy: number | null }
  | { kind: "appPolicy"; app: number; policy: number | null }
  | { kind: "tenantDefault"; policy: number | null }
  | { kind: "userDepartment"; user: number; department: string }
  | { kind: "flag"; on: boolean }
  | { kind: "deletePolicy"; policy: number }
  | { kind: "entitlementRisk"; ent: number; risk: string };

const arbEditSpec: fc.Arbitrary<EditSpec> = fc.oneof(
  arbPolicyMutation.map((mutation) => ({ kind: "mutation" as const, mutation })),
  fc.record({ kind: fc.constant("entitlementPolicy" as const), ent: fc.nat(200), policy: fc.option(fc.nat(40), { nil: null }) }),
  fc.record({ kind: fc.constant("appPolicy" as const), app: fc.nat(20), policy: fc.option(fc.nat(40), { nil: null }) }),
  fc.record({ kind: fc.constant("tenantDefault" as const), policy: fc.option(fc.nat(40), { nil: null }) }),
  fc.record({ kind: fc.constant("userDepartment" as const), user: fc.nat(60), department: fc.constantFrom("Engineering", "Security", "Legal") }),
  fc.record({ kind: fc.constant("flag" as const), on: fc.boolean() }),
  fc.record({ kind: fc.constant("deletePolicy" as const), policy: fc.nat(40) }),
  fc.record({ kind: fc.constant("entitlementRisk" as const), ent: fc.nat(200), risk: fc.constantFrom("low", "critical") }),
);

const at = <T>(xs: readonly T[], i: number): T | undefined => xs[i % Math.max(1, xs.length)];

function editOf(world: World, spec: EditSpec): WorldEdit {
  const policyId = (i: number | null) => (i === null ? "" : (at(world.policies, i)?.id ?? ""));
  switch (spec.kind) {
    case "mutation": {
      const mutated = applyPolicyMutation(world, spec.mutation);
      return { policies: mutated.policies.filter((p) => world.index.policies.get(p.id) !== p) } satisfies WorldPatch;
    }
    case "entitlementPolicy":
      return (w) => {
        const e = at(w.entitlements, spec.ent);
        if (e) e.grantPolicyId = policyId(spec.policy);
      };
    case "appPolicy":
      return (w) => {
        const a = at(w.apps, spec.app);
        if (a) a.grantPolicyId = policyId(spec.policy);
      };
    case "tenantDefault":
      return (w) => {
        w.tenant.defaultPolicies["grant"] = policyId(spec.policy);
      };
    case "userDepartment":
      return (w) => {
        const u = at(w.users, spec.user);
        if (u) u.department = spec.department;
      };
    case "flag":
      return (w) => {
        w.tenant.featureFlags["POLICY_REFERENCES_POLICY"] = spec.on;
      };
    case "deletePolicy":
      return (w) => {
        w.policies.splice(spec.policy % Math.max(1, w.policies.length), 1);
      };
    case "entitlementRisk":
      return (w) => {
        const e = at(w.entitlements, spec.ent);
        if (e) e.riskLevelValueId = spec.risk;
      };
  }
}

describe("whatIf on the sample tenant", () => {
  it("an empty edit changes nothing, whatever its form", () => {
    const copies: WorldPatch = { policies: sample.policies.map((p) => ({ ...p })), users: sample.users.map((u) => ({ ...u })) };
    for (const edit of [{}, () => {}, copies] satisfies WorldEdit[]) {
      const r = run(sample, edit);
      expect(r.changed).toEqual([]);
      expect(r.summary).toEqual([]);
      expect(r.counts.unchanged + r.counts.unchangedErrors).toBe(sample.tasks.size);
      expect(r.edit.policies).toEqual([]);
    }
  });

  it("removing a rule moves exactly the tasks it decided, and names what changed", () => {
    const r = run(sample, (w) => {
      w.policies.find((p) => p.id === "pol-prod-admin")?.rules?.splice(2, 1);
    });
    expect(r.changed.map((c) => c.numericId)).toEqual(["1001"]);
    const [c] = r.changed;
    expect(c?.changes).toEqual(["chain", "decidedBy", "steps", "approvers"]);
    expect(c?.after).toMatchObject({ kind: "route", decidedBy: { policyId: "pol-security-review", ruleIndex: 0 } });
    expect(r.summary).toHaveLength(1);
    expect(r.summary[0]).toMatchObject({ count: 1, before: expect.stringContaining("rule #2"), changes: c?.changes });
    expect(r.edit).toMatchObject({ policies: ["pol-prod-admin"], conditionsMayChange: false });
    // Only the tasks under pol-prod-admin (and nothing that cannot fail) were decided.
    expect(r.stats.pruned).toBeGreaterThan(40);
    checkAgainstDecide(sample, applyEdit(sample, (w) => void w.policies.find((p) => p.id === "pol-prod-admin")?.rules?.splice(2, 1)), r);
  });

  it("defaults to open tasks and honours every scope filter", () => {
    const open = [...sample.tasks.values()].filter((t) => t.state === "TASK_STATE_OPEN").length;
    expect(run(sample, {}, {}).counts.inScope).toBe(open);
    expect(run(sample, {}, { scope: { states: "any", types: ["revoke"] } }).counts.inScope).toBe(9);
    expect(run(sample, {}, { scope: { states: "any", appIds: ["app-okta"] } }).counts.inScope).toBe(
      [...sample.tasks.values()].filter((t) => t.type && "appId" in t.type && t.type.appId === "app-okta").length,
    );
    expect(run(sample, {}, { scope: { states: "any", entitlements: [{ appId: "app-aws", id: "ent-aws-prod-admin" }] } }).counts.inScope).toBe(
      [...sample.tasks.values()].filter((t) => t.type && "appEntitlementId" in t.type && t.type.appEntitlementId === "ent-aws-prod-admin").length,
    );
    const byIds = run(sample, {}, { scope: { states: "any", taskIds: ["1001", findTask(sample, "1002")!.id] } });
    expect(byIds.counts.inScope).toBe(2);
  });

  it("lists tasks whose selection breaks, with the error, and keeps listing them while they stay broken", () => {
    // pol-security-review now refers back to pol-prod-admin: task 1003's chain becomes a cycle.
    const cyclic: WorldEdit = (w) => {
      const p = w.policies.find((x) => x.id === "pol-security-review");
      const rule = p?.rules?.[0];
      if (rule) {
        rule.stepKey = "";
        rule.policyId = "pol-prod-admin";
      }
    };
    const r = run(sample, cyclic);
    const c = r.changed.find((x) => x.numericId === "1003");
    expect(c?.after).toMatchObject({ kind: "error", stage: "selection", code: "CYCLE" });
    expect(c?.changes).toEqual(["error"]);
    expect(r.summary.some((g) => g.after === "error CYCLE in pol-prod-admin")).toBe(true);

    // In the broken world, an edit that does not touch the cycle still lists the broken task.
    const broken = applyEdit(sample, cyclic);
    const again = run(broken, (w) => {
      const p = w.policies.find((x) => x.id === "pol-finance-form");
      if (p) p.description = "edited";
    });
    expect(again.changed).toEqual([]);
    expect(again.unchangedErrors.map((x) => x.numericId)).toEqual(["1003"]);
    expect(again.unchangedErrors[0]?.before).toEqual(again.unchangedErrors[0]?.after);
    expect(again.counts.unchangedErrors).toBe(1);
  });

  it("handles a recipe that deletes a policy (tasks fall through to the next source)", () => {
    const r = run(sample, (w) => {
      const i = w.policies.findIndex((p) => p.id === "pol-finance-form");
      w.policies.splice(i, 1);
    });
    expect(r.edit.policies).toEqual(["pol-finance-form"]);
    const c = r.changed.find((x) => x.numericId === "1012");
    expect(c?.before).toMatchObject({ policyId: "pol-finance-form", source: "entitlement" });
    expect(c?.after).toMatchObject({ kind: "route", source: "app" });
  });

  it("routes an entitlement to another policy (a routing-only edit still prunes)", () => {
    const r = run(sample, (w) => {
      const e = w.entitlements.find((x) => x.id === "ent-aws-staging-admin");
      if (e) e.grantPolicyId = "pol-prod-admin";
    });
    expect(r.edit).toMatchObject({ entitlements: ["app-aws/ent-aws-staging-admin"], conditionsMayChange: false });
    expect(r.stats.pruned).toBeGreaterThan(0);
  });

  it("recomputes approvers when the directory changes", () => {
    // u-eng-mgr stops delegating: the manager approval of their reports goes to them again.
    const r = run(sample, (w) => {
      const u = w.users.find((x) => x.id === "u-eng-mgr");
      if (u) u.delegatedUserId = "";
    });
    expect(r.edit.conditionsMayChange).toBe(true);
    expect(r.stats.pruned).toBe(0);
    const c = r.changed.find((x) => x.numericId === "1028");
    expect(c?.changes).toEqual(["approvers"]);
    expect(c?.after).toMatchObject({ approvers: { userIds: ["u-eng-mgr"] } });
  });

  it("never throws: a recipe that throws is INVALID_ARGUMENT", () => {
    const r = whatIf(sample, () => {
      throw new Error("boom");
    });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringContaining("boom") });
  });

  it("leaves the world untouched", () => {
    const before = JSON.stringify(saveWorld(sample));
    run(sample, (w) => {
      w.policies[0]!.rules = [];
      w.users[0]!.department = "Nowhere";
      w.tenant.defaultPolicies["grant"] = "";
    });
    expect(JSON.stringify(saveWorld(sample))).toBe(before);
  });

  it("renders as text", () => {
    const text = formatWhatIf(run(sample, (w) => void w.policies.find((p) => p.id === "pol-prod-admin")?.rules?.splice(2, 1)));
    expect(text).toContain("Edit: policies pol-prod-admin");
    expect(text).toContain("1 change");
    expect(text).toContain("1001");
    expect(text).toContain("before: pol-prod-admin (entitlement): rule #2");
  });

  it("reports progress every 1,024 tasks and at the end", () => {
    const big = worldFromRecipe({ seed: 3, tasks: 2500, rulesPerPolicy: 2, policies: 2, matchAt: "mixed", mutations: [] });
    const calls: [number, number][] = [];
    run(big, {}, { onProgress: (done, total) => calls.push([done, total]) });
    expect(calls).toEqual([
      [1024, 2500],
      [2048, 2500],
      [2500, 2500],
    ]);
  });

  it("whatIfWorlds compares two worlds as whatIf compares a world and its edit", () => {
    const edit: WorldEdit = (w) => void w.policies.find((p) => p.id === "pol-okta-groups")?.rules?.reverse();
    const a = whatIf(sample, edit, ANY);
    const b = whatIfWorlds(sample, applyEdit(sample, edit), ANY);
    expect(a).toEqual(b);
  });
});

describe("policy reach", () => {
  it("follows references and says whether selection can fail", () => {
    const admin = sample.index.policies.get("pol-prod-admin")!;
    const reach = policyReach(sample, admin);
    expect([...reach.ids].sort()).toEqual(["pol-prod-admin", "pol-prod-admin-eng", "pol-security-review"]);
    expect(reach.sound).toBe(true);
    const cyclic = replaceInWorld(sample, { policies: [{ ...sample.index.policies.get("pol-security-review")!, baselinePolicyId: "pol-prod-admin" }] });
    expect(policyReach(cyclic, admin).sound).toBe(false);
  });
});

describe("whatIf properties over generated worlds", () => {
  const arbCase = fc.tuple(arbWorldRecipe({ maxTasks: 25, maxRules: 6, maxPolicies: 4, maxMutations: 3 }), arbEditSpec);

  it("pruned and unpruned runs agree, and both agree with decide() task by task", () => {
    fc.assert(
      fc.property(arbCase, ([recipe, spec]) => {
        const world = worldFromRecipe(recipe);
        const edit = editOf(world, spec);
        const pruned = run(world, edit, ANY);
        const plain = run(world, edit, { ...ANY, prune: false });
        expect(outcome(pruned)).toEqual(outcome(plain));
        expect(plain.stats.pruned).toBe(0);
        checkAgainstDecide(world, applyEdit(world, edit), pruned);
      }),
      { numRuns: 60 },
    );
  });

  it("is deterministic", () => {
    fc.assert(
      fc.property(arbCase, ([recipe, spec]) => {
        const a = run(worldFromRecipe(recipe), editOf(worldFromRecipe(recipe), spec));
        const b = run(worldFromRecipe(recipe), editOf(worldFromRecipe(recipe), spec));
        expect(JSON.stringify(a)).toBe(JSON.stringify(b));
      }),
      { numRuns: 20 },
    );
  });

  it("an empty edit changes nothing and decides only what could fail", () => {
    fc.assert(
      fc.property(arbWorldRecipe({ maxTasks: 25 }), (recipe) => {
        const world = worldFromRecipe(recipe);
        const r = run(world, () => {});
        expect(r.changed).toEqual([]);
        expect(r.stats.decisions).toBe(r.counts.unchangedErrors + (r.counts.inScope - r.stats.pruned - r.counts.unchangedErrors));
      }),
      { numRuns: 30 },
    );
  });

  it("pointing a rule at another step key changes exactly the tasks that rule decided", () => {
    fc.assert(
      fc.property(arbWorldRecipe({ maxTasks: 30, maxRules: 6, maxMutations: 0 }), fc.nat(), fc.nat(), fc.nat(), (recipe, pi, ri, rj) => {
        const world = worldFromRecipe(recipe);
        const candidates = world.policies.filter((p) => (p.rules?.length ?? 0) >= 2);
        fc.pre(candidates.length > 0);
        const policy = candidates[pi % candidates.length]!;
        const rules = policy.rules!;
        const i = ri % rules.length;
        const j = (i + 1 + (rj % (rules.length - 1))) % rules.length;
        fc.pre(rules[i]!.stepKey !== "" && rules[j]!.stepKey !== "" && rules[i]!.stepKey !== rules[j]!.stepKey);
        const edit: WorldEdit = (w) => {
          const p = w.policies.find((x) => x.id === policy.id)!;
          p.rules![i]!.stepKey = rules[j]!.stepKey;
        };
        const r = run(world, edit);
        const decidedByRule = inScopeTasks(world)
          .filter((t) => {
            const s = decide(world, t).selection;
            return s?.ok === true && s.value.decidedBy.kind === "rule" && s.value.decidedBy.policyId === policy.id && s.value.decidedBy.ruleIndex === i;
          })
          .map((t) => t.id);
        expect(r.changed.map((c) => c.taskId)).toEqual(decidedByRule);
        for (const c of r.changed) expect(c.changes).toContain("decidedBy");
        checkAgainstDecide(world, applyEdit(world, edit), r);
      }),
      { numRuns: 40 },
    );
  });

  it("editImpact: only policies, routing fields and default policies leave conditions alone", () => {
    fc.assert(
      fc.property(arbWorldRecipe({ maxTasks: 3 }), arbEditSpec, (recipe, spec) => {
        const world = worldFromRecipe(recipe);
        const after = applyEdit(world, editOf(world, spec));
        const impact = editImpact(world, after);
        const visible = spec.kind === "userDepartment" || spec.kind === "flag" || spec.kind === "entitlementRisk";
        if (!visible) expect(impact.conditionsMayChange).toBe(false);
        if (spec.kind === "flag") expect(impact.conditionsMayChange).toBe(world.tenant.featureFlags["POLICY_REFERENCES_POLICY"] !== spec.on);
      }),
      { numRuns: 60 },
    );
  });
});
