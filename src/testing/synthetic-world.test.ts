import { describe, expect, it } from "vitest";
import { checkWorld } from "../../fixtures/src/check-world.js";
import { checkCondition } from "../cel/compile.js";
import { decide } from "../policy/decide.js";
import { resolvePolicy } from "../policy/resolve-policy.js";
import { loadWorld } from "../world/load-world.js";
import { syntheticWorld } from "./synthetic-world.js";

describe("syntheticWorld", () => {
  it("is deterministic: the same seed and options give a deep-equal world", () => {
    const opts = { seed: 42, tasks: 500, rulesPerPolicy: 12, policies: 6 } as const;
    expect(syntheticWorld(opts)).toEqual(syntheticWorld(opts));
    expect(JSON.stringify(syntheticWorld(opts))).toBe(JSON.stringify(syntheticWorld(opts)));
  });

  it("depends on the seed", () => {
    const a = syntheticWorld({ seed: 1, tasks: 200 });
    const b = syntheticWorld({ seed: 2, tasks: 200 });
    expect(JSON.stringify(a)).not.toBe(JSON.stringify(b));
  });

  it("resolves every reference, for every matchAt and rule count", () => {
    for (const matchAt of ["first", "last", "none", undefined] as const)
      for (const rulesPerPolicy of [0, 1, 16]) {
        const w = syntheticWorld({ seed: 7, tasks: 400, users: 80, rulesPerPolicy, policies: 5, ...(matchAt ? { matchAt } : {}) });
        const { errors, counts } = checkWorld(w);
        expect(errors, `matchAt=${String(matchAt)} rules=${rulesPerPolicy}`).toEqual([]);
        expect(counts["tasks"]).toBe(400);
      }
  });

  it("loads, and every task carries the policy that resolves for it", () => {
    const loaded = loadWorld(syntheticWorld({ seed: 5, tasks: 600, rulesPerPolicy: 16 }));
    expect(loaded.ok && loaded.value.tasks.size).toBe(600);
    if (!loaded.ok) return;
    for (const task of loaded.value.tasks.values()) {
      const r = resolvePolicy(loaded.value, task);
      expect(r.ok && r.value.policy.id, task.numericId).toBe(task.policy?.policy?.id);
    }
  });

  it("writes conditions that type-check in the service's CEL environment", () => {
    const w = syntheticWorld({ seed: 8, tasks: 10, rulesPerPolicy: 16, policies: 10 });
    for (const p of w.policies)
      for (const rule of (p["rules"] ?? []) as { condition: string }[]) expect(checkCondition(rule.condition), rule.condition).toEqual([]);
  });

  it("keeps its matchAt promise when the simulation decides each grant task", () => {
    for (const matchAt of ["first", "last", "none"] as const) {
      const loaded = loadWorld(syntheticWorld({ seed: 13, tasks: 250, rulesPerPolicy: 6, policies: 5, matchAt }));
      if (!loaded.ok) throw new Error(JSON.stringify(loaded.error.slice(0, 3)));
      for (const task of loaded.value.tasks.values()) {
        if (task.type?.kind !== "grant") continue;
        const d = decide(loaded.value, task);
        expect(d.selection?.ok, task.numericId).toBe(true);
        if (!d.selection?.ok) continue;
        const { decidedBy, evaluations } = d.selection.value;
        expect(evaluations.filter((e) => e.error !== ""), task.numericId).toEqual([]);
        if (matchAt === "none") expect(decidedBy.kind).toBe("baseline");
        else expect(decidedBy.kind === "rule" ? decidedBy.ruleIndex : -1, task.numericId).toBe(matchAt === "first" ? 0 : 5);
      }
    }
  });

  it("honours the sizes asked for", () => {
    const w = syntheticWorld({ seed: 3, tasks: 1000, users: 300, rulesPerPolicy: 16, policies: 10 });
    expect(w.tasks).toHaveLength(1000);
    expect(w.users).toHaveLength(300);
    const grantPolicies = w.policies.filter((p) => p["policyType"] === "POLICY_TYPE_GRANT" && p["id"] !== "pol-grant-default");
    expect(grantPolicies).toHaveLength(10);
    for (const p of grantPolicies) expect(p["rules"]).toHaveLength(16);
    const kinds = new Map<string, number>();
    for (const t of w.tasks) {
      const k = Object.keys(t["type"] as object)[0] ?? "";
      kinds.set(k, (kinds.get(k) ?? 0) + 1);
    }
    expect(kinds.get("grant") ?? 0).toBeGreaterThan(700);
    expect(kinds.get("revoke") ?? 0).toBeGreaterThan(50);
    expect(kinds.get("certify") ?? 0).toBeGreaterThan(50);
  });

  it("with matchAt, each grant task's subject has exactly the attributes of the rule it should match", () => {
    for (const matchAt of ["first", "last"] as const) {
      const w = syntheticWorld({ seed: 11, tasks: 300, rulesPerPolicy: 5, policies: 4, matchAt });
      const users = new Map(w.users.map((u) => [u["id"], u]));
      const ents = new Map(w.entitlements.map((e) => [e["id"], e]));
      for (const t of w.tasks) {
        const grant = (t["type"] as Record<string, Record<string, unknown>>)["grant"];
        if (!grant) continue;
        const policy = (t["policy"] as Record<string, Record<string, unknown>>)["policy"];
        const rules = (policy?.["rules"] ?? []) as { condition: string; stepKey: string }[];
        const rule = matchAt === "first" ? rules[0] : rules[rules.length - 1];
        const u = users.get(grant["identityUserId"] as string) as Record<string, unknown>;
        const e = ents.get(grant["appEntitlementId"] as string) as Record<string, unknown>;
        const profile = u["profile"] as Record<string, string>;
        // Each rule tests these four values; the generator picked subject and entitlement to fit.
        for (const value of [u["department"], u["employmentType"], profile["clearance"], e["riskLevelValueId"]])
          expect(rule?.condition).toContain(`"${String(value)}"`);
        // The task starts on the first step of the rule's sequence.
        const steps = ((policy?.["policySteps"] as Record<string, { steps: unknown[] }>)[rule?.stepKey ?? ""] ?? { steps: [] }).steps;
        const current = (t["policy"] as Record<string, Record<string, unknown> | null>)["current"];
        if (current) expect((current["approval"] as Record<string, unknown>)["approval"]).toEqual((steps[0] as Record<string, unknown>)["approval"]);
      }
    }
  });

  it("can leave out the per-task policy snapshots", () => {
    const w = syntheticWorld({ seed: 4, tasks: 300, policySnapshots: false });
    expect(checkWorld(w).errors).toEqual([]);
    for (const t of w.tasks) expect((t["policy"] as Record<string, unknown>)["policy"]).toBeNull();
    const withSnapshots = syntheticWorld({ seed: 4, tasks: 300 });
    expect(withSnapshots.tasks.map((t) => t["id"])).toEqual(w.tasks.map((t) => t["id"]));
  });

  it("scales to 100,000 tasks (time logged, not asserted)", () => {
    const start = performance.now();
    const w = syntheticWorld({ seed: 99, tasks: 100_000, users: 5000, rulesPerPolicy: 16, policies: 50, matchAt: "last" });
    const ms = performance.now() - start;
    console.log(`syntheticWorld: 100,000 tasks in ${ms.toFixed(0)} ms`);
    expect(w.tasks).toHaveLength(100_000);
  });
});

describe("syntheticWorld's options", () => {
  it("a typo or a value of the wrong kind is a TypeError saying what is wrong, not another world", () => {
    expect(() => syntheticWorld({ seed: 1, taks: 10 } as never)).toThrow(/"taks" is not an option; did you mean "tasks"\?/);
    expect(() => syntheticWorld({ seed: "a", tasks: 10 } as never)).toThrow(/seed must be a number/);
    expect(() => syntheticWorld({ seed: 1, tasks: Infinity })).toThrow(/tasks must be a whole number/);
    expect(() => syntheticWorld({ seed: 1, tasks: 10, matchAt: "middle" } as never)).toThrow(/matchAt must be "first", "last" or "none"/);
    expect(() => syntheticWorld({ seed: 1, tasks: 10, now: "yesterday" })).toThrow(/now must be an RFC 3339 timestamp/);
    expect(() => syntheticWorld(null as never)).toThrow(/options must be an object/);
  });

  it("with no options, a small world of 100 tasks", () => {
    expect((syntheticWorld()["tasks"] as unknown[]).length).toBe(100);
  });
});
