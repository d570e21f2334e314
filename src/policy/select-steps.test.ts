import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadWorld } from "../world/load-world.js";
import type { World } from "../world/world.js";
import { type ConditionRunner, MAX_CHAIN_DEPTH, selectSteps } from "./select-steps.js";

type WireRule = { condition: string; stepKey?: string; policyId?: string; policyKey?: string };

function wirePolicy(id: string, rules: WireRule[], opts: { type?: string; baseline?: boolean; baselinePolicyId?: string; keys?: string[] } = {}) {
  const type = opts.type ?? "POLICY_TYPE_GRANT";
  const base = type.replace("POLICY_TYPE_", "").toLowerCase();
  const steps: Record<string, unknown> = {};
  if (opts.baseline !== false && !opts.baselinePolicyId) steps[base] = { steps: [{ accept: { acceptMessage: `${id} baseline` } }] };
  for (const k of opts.keys ?? []) steps[k] = { steps: [{ reject: { rejectMessage: `${id} ${k}` } }] };
  return {
    id,
    displayName: id,
    policyType: type,
    policySteps: steps,
    rules: rules.map((r) => ({ condition: r.condition, stepKey: r.stepKey ?? "", policyId: r.policyId ?? "", policyKey: r.policyKey ?? "" })),
    baselinePolicyId: opts.baselinePolicyId ?? "",
  };
}

function world(policies: unknown[], flags: Record<string, boolean> = { POLICY_REFERENCES_POLICY: true }): World {
  const r = loadWorld({ version: 1, now: "2026-11-22T09:00:00Z", tenant: { featureFlags: flags }, policies });
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value;
}

/** Conditions are names in a table: true, false, or an error. */
function runner(table: Record<string, boolean | "error">): ConditionRunner {
  return {
    run: (c) => {
      const v = table[c];
      if (v === "error" || v === undefined) return { ok: false, error: `no such key: ${c}` };
      return { ok: true, value: v };
    },
  };
}

const policy = (w: World, id: string) => {
  const p = w.index.policies.get(id);
  if (!p) throw new Error(id);
  return p;
};

describe("selectSteps", () => {
  it("selects the first matching rule's stepKey and records every rule evaluated before it", () => {
    const w = world([wirePolicy("p", [{ condition: "a", stepKey: "k1" }, { condition: "b", stepKey: "k2" }, { condition: "c", stepKey: "k1" }], { keys: ["k1", "k2"] })]);
    const s = selectSteps(w, policy(w, "p"), runner({ a: false, b: true, c: true }));
    expect(s.ok).toBe(true);
    if (!s.ok) return;
    expect(s.value.decidedBy).toEqual({ kind: "rule", policyId: "p", chainDepth: 0, ruleIndex: 1, stepKey: "k2", field: "stepKey" });
    expect(s.value.evaluations.map((e) => [e.ruleIndex, e.conditionMatched])).toEqual([[0, false], [1, true]]);
    expect(s.value.steps[0]).toMatchObject({ kind: "reject", rejectMessage: "p k2" });
  });

  it("falls back to the baseline keyed by the lowercased policy type when no rule matches", () => {
    const w = world([wirePolicy("p", [{ condition: "a", stepKey: "k1" }], { type: "POLICY_TYPE_REVOKE", keys: ["k1"] })]);
    const s = selectSteps(w, policy(w, "p"), runner({ a: false }));
    expect(s.ok && s.value.decidedBy).toEqual({ kind: "baseline", policyId: "p", chainDepth: 0, stepKey: "revoke" });
    expect(s.ok && s.value.evaluations.at(-1)).toMatchObject({ defaultCondition: true, ruleIndex: -1, conditionMatched: true });
  });

  it("treats a run-time error as no match, records it, and goes on", () => {
    const w = world([wirePolicy("p", [{ condition: "boom", stepKey: "k1" }, { condition: "b", stepKey: "k2" }], { keys: ["k1", "k2"] })]);
    const s = selectSteps(w, policy(w, "p"), runner({ boom: "error", b: true }));
    expect(s.ok && s.value.evaluations[0]).toMatchObject({ conditionMatched: false, error: "no such key: boom" });
    expect(s.ok && s.value.decidedBy).toMatchObject({ ruleIndex: 1 });
  });

  it("reads the legacy policyKey when stepKey and policyId are empty", () => {
    const w = world([wirePolicy("p", [{ condition: "a", policyKey: "k1" }], { keys: ["k1"] })]);
    const s = selectSteps(w, policy(w, "p"), runner({ a: true }));
    expect(s.ok && s.value.decidedBy).toMatchObject({ kind: "rule", stepKey: "k1", field: "policyKey" });
  });

  it("follows a policyId rule into the referenced policy's rules and then its baseline", () => {
    const w = world([
      wirePolicy("root", [{ condition: "a", policyId: "child" }]),
      wirePolicy("child", [{ condition: "b", stepKey: "k" }], { keys: ["k"] }),
    ]);
    const s = selectSteps(w, policy(w, "root"), runner({ a: true, b: false }));
    expect(s.ok && s.value.decidedBy).toEqual({ kind: "baseline", policyId: "child", chainDepth: 1, stepKey: "grant" });
    expect(s.ok && s.value.chain.map((l) => l.policyId)).toEqual(["root", "child"]);
    expect(s.ok && s.value.evaluations.map((e) => [e.policyId, e.chainDepth, e.outcomePolicyId])).toEqual([
      ["root", 0, "child"],
      ["child", 1, ""],
      ["child", 1, ""],
    ]);
  });

  it("follows baselinePolicyId when no rule matches", () => {
    const w = world([wirePolicy("root", [], { baselinePolicyId: "base" }), wirePolicy("base", [])]);
    const s = selectSteps(w, policy(w, "root"), runner({}));
    expect(s.ok && s.value.decidedBy).toMatchObject({ kind: "baseline", policyId: "base", chainDepth: 1 });
    expect(s.ok && s.value.chain[1]?.via).toEqual({ kind: "baselinePolicyId", fromPolicyId: "root" });
  });

  it("reports each chain error as a value naming the chain", () => {
    const cases: [unknown[], string, string][] = [
      [[wirePolicy("a", [{ condition: "t", policyId: "a" }])], "SELF_REFERENCE", "a"],
      [[wirePolicy("a", [{ condition: "t", policyId: "b" }]), wirePolicy("b", [{ condition: "t", policyId: "a" }])], "CYCLE", "a → b → a"],
      [[wirePolicy("a", [{ condition: "t", policyId: "zz" }])], "MISSING_POLICY", "zz"],
      [[wirePolicy("a", [{ condition: "t", policyId: "r" }]), wirePolicy("r", [], { type: "POLICY_TYPE_REVOKE" })], "CROSS_TYPE", "POLICY_TYPE_REVOKE"],
      [[wirePolicy("a", [{ condition: "t", stepKey: "nope" }])], "MISSING_STEP_KEY", "nope"],
      [[wirePolicy("a", [], { baseline: false })], "MISSING_BASELINE", "grant"],
      [[wirePolicy("a", [{ condition: "t" }])], "RULE_WITHOUT_OUTCOME", "names no"],
    ];
    for (const [policies, code, mention] of cases) {
      const w = world(policies);
      const s = selectSteps(w, policy(w, "a"), runner({ t: true }));
      expect(s.ok, code).toBe(false);
      if (!s.ok) {
        expect(s.error.code).toBe(code);
        expect(s.error.message).toContain(mention);
      }
    }
  });

  it(`allows a chain of depth ${MAX_CHAIN_DEPTH} and refuses one deeper`, () => {
    const chain = (n: number) =>
      Array.from({ length: n + 1 }, (_, i) => wirePolicy(`p${i}`, i < n ? [{ condition: "t", policyId: `p${i + 1}` }] : []));
    const okWorld = world(chain(MAX_CHAIN_DEPTH));
    const fine = selectSteps(okWorld, policy(okWorld, "p0"), runner({ t: true }));
    expect(fine.ok && fine.value.decidedBy).toMatchObject({ policyId: `p${MAX_CHAIN_DEPTH}`, chainDepth: MAX_CHAIN_DEPTH });
    const deepWorld = world(chain(MAX_CHAIN_DEPTH + 1));
    const deep = selectSteps(deepWorld, policy(deepWorld, "p0"), runner({ t: true }));
    expect(!deep.ok && deep.error.code).toBe("CHAIN_TOO_DEEP");
    expect(!deep.ok && deep.error.message).toContain("p0 → p1 → p2 → p3 → p4 → p5 → p6");
  });

  it("with POLICY_REFERENCES_POLICY turned off passes over policyId rules and refuses baselinePolicyId", () => {
    const policies = [wirePolicy("root", [{ condition: "t", policyId: "child" }, { condition: "t", stepKey: "k" }], { keys: ["k"] }), wirePolicy("child", [])];
    const w = world(policies, { POLICY_REFERENCES_POLICY: false });
    const s = selectSteps(w, policy(w, "root"), runner({ t: true }));
    expect(s.ok && s.value.decidedBy).toMatchObject({ kind: "rule", ruleIndex: 1, stepKey: "k" });
    expect(s.ok && s.value.evaluations[0]?.error).toContain("POLICY_REFERENCES_POLICY");
    const w2 = world([wirePolicy("root", [], { baselinePolicyId: "child" }), wirePolicy("child", [])], { POLICY_REFERENCES_POLICY: false });
    const s2 = selectSteps(w2, policy(w2, "root"), runner({}));
    expect(!s2.ok && s2.error.code).toBe("REFERENCES_DISABLED");
  });
});

describe("selectSteps: records of rules passed over", () => {
  const wire = wirePolicy("p", [{ condition: "a", stepKey: "k" }, { condition: "b", stepKey: "k" }, { condition: "c", stepKey: "k" }], { keys: ["k"] });
  const fresh = (matched: number) => [0, 1, 2].slice(0, matched + 1).map((i) => ({
    policyId: "p",
    chainDepth: 0,
    ruleIndex: i,
    condition: ["a", "b", "c"][i],
    defaultCondition: false,
    stepKey: "k",
    policyKey: "",
    outcomePolicyId: "",
    conditionMatched: i === matched,
    error: "",
  }));

  it("are shared between selections of a loaded policy, frozen, and the same as ever", () => {
    const w = world([wire]);
    const s1 = selectSteps(w, policy(w, "p"), runner({ a: false, b: false, c: true }));
    const s2 = selectSteps(w, policy(w, "p"), runner({ a: false, b: false, c: true }));
    if (!s1.ok || !s2.ok) throw new Error("no selection");
    expect(s1.value.evaluations).toEqual(fresh(2));
    expect(s2.value.evaluations[0]).toBe(s1.value.evaluations[0]);
    expect(Object.isFrozen(s1.value.evaluations[1])).toBe(true);
    // A step-key match depends on nothing else either: its record, what it decided and its steps
    // are shared too, frozen; and so is the whole selection, lists included (a selection is a value).
    expect(s2.value.evaluations[2]).toBe(s1.value.evaluations[2]);
    expect(Object.isFrozen(s1.value.evaluations[2])).toBe(true);
    expect(s2.value.decidedBy).toBe(s1.value.decidedBy);
    expect(Object.isFrozen(s1.value.decidedBy)).toBe(true);
    expect(s2).toBe(s1);
    expect(Object.isFrozen(s1.value.evaluations)).toBe(true);
    expect(Object.isFrozen(s1.value.chain)).toBe(true);
    // Another task that takes another rule gets its own selection.
    const s3 = selectSteps(w, policy(w, "p"), runner({ a: false, b: true, c: true }));
    expect(s3).not.toBe(s1);
    expect(s3.ok && s3.value.evaluations).toEqual(fresh(1));
  });

  it("are built afresh for a policy that is not frozen", () => {
    const w = world([wire]);
    const thawed = { ...policy(w, "p"), rules: (policy(w, "p").rules ?? []).map((r) => ({ ...r })) };
    const s1 = selectSteps(w, thawed, runner({ a: false, b: true }));
    thawed.rules[0] = { ...(thawed.rules[0] as (typeof thawed.rules)[number]), condition: "b" };
    const s2 = selectSteps(w, thawed, runner({ a: false, b: true }));
    if (!s1.ok || !s2.ok) throw new Error("no selection");
    expect(s1.value.evaluations).toEqual(fresh(1));
    expect(s2.value.decidedBy).toMatchObject({ kind: "rule", ruleIndex: 0 });
    expect(Object.isFrozen(s1.value.evaluations[0])).toBe(false);
  });
});

describe("selectSteps properties", () => {
  it("selects the first rule whose condition is true; the baseline only when none is", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom<boolean | "error">(true, false, "error"), { maxLength: 16 }), (values) => {
        const rules = values.map((_, i) => ({ condition: `c${i}`, stepKey: `k${i}` }));
        const w = world([wirePolicy("p", rules, { keys: rules.map((r) => r.stepKey) })]);
        const table = Object.fromEntries(values.map((v, i) => [`c${i}`, v]));
        const s = selectSteps(w, policy(w, "p"), runner(table));
        if (!s.ok) return false;
        const first = values.indexOf(true);
        if (first === -1) return s.value.decidedBy.kind === "baseline" && s.value.evaluations.length === values.length + 1;
        return (
          s.value.decidedBy.kind === "rule" &&
          s.value.decidedBy.ruleIndex === first &&
          s.value.evaluations.length === first + 1 &&
          s.value.evaluations.every((e, i) => e.conditionMatched === (i === first))
        );
      }),
      { numRuns: 500 },
    );
  });

  it("a runner that passes over plainly false rules in one call (passOver) selects exactly what one asked rule by rule does", () => {
    // Rules over three policies with references between them; conditions true, false or erroring.
    const value = fc.constantFrom<boolean | "error">(true, false, false, "error");
    const arbRule = fc.record({ v: value, to: fc.option(fc.constantFrom("p1", "p2"), { nil: undefined }) });
    fc.assert(
      fc.property(fc.array(fc.array(arbRule, { maxLength: 6 }), { minLength: 3, maxLength: 3 }), fc.boolean(), (byPolicy, frozen) => {
        const table: Record<string, boolean | "error"> = {};
        const policies = byPolicy.map((rules, p) =>
          wirePolicy(
            `p${p}`,
            rules.map((r, i) => {
              table[`p${p}c${i}`] = r.v;
              return r.to === undefined ? { condition: `p${p}c${i}`, stepKey: `k${i}` } : { condition: `p${p}c${i}`, policyId: r.to };
            }),
            { keys: rules.map((_, i) => `k${i}`) },
          ),
        );
        const w = world(policies);
        const root = frozen ? policy(w, "p0") : structuredClone(policy(w, "p0"));
        let passedOver = 0;
        const byRule = runner(table);
        const inRuns: ConditionRunner = {
          run: byRule.run,
          passOver: (rules, from) => {
            let i = from;
            while (i < rules.length && table[(rules[i] as { condition: string }).condition] === false) i++;
            passedOver += i - from;
            return i;
          },
        };
        const want = selectSteps(w, root, byRule);
        expect(selectSteps(w, root, inRuns)).toEqual(want);
        // Again, now that a frozen policy's selections are shared.
        expect(selectSteps(w, root, inRuns)).toEqual(want);
        const evaluated = want.ok ? want.value.evaluations : want.error.evaluations;
        expect(passedOver).toBe(2 * evaluated.filter((e) => !e.defaultCondition && !e.conditionMatched && e.error === "").length);
      }),
      { numRuns: 300 },
    );
  });

  it("every reference chain terminates, or reports its cycle or depth", () => {
    // Random reference graphs over 8 policies; each has one always-true rule pointing somewhere.
    fc.assert(
      fc.property(fc.array(fc.option(fc.nat({ max: 7 }), { nil: undefined }), { minLength: 8, maxLength: 8 }), (targets) => {
        const policies = targets.map((t, i) => wirePolicy(`p${i}`, t === undefined ? [] : [{ condition: "t", policyId: `p${t}` }]));
        const w = world(policies);
        const s = selectSteps(w, policy(w, "p0"), runner({ t: true }));
        if (s.ok) return s.value.chain.length <= MAX_CHAIN_DEPTH + 1 && new Set(s.value.chain.map((l) => l.policyId)).size === s.value.chain.length;
        return ["CYCLE", "SELF_REFERENCE", "CHAIN_TOO_DEEP"].includes(s.error.code);
      }),
      { numRuns: 500 },
    );
  });
});
