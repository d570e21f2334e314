import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decide, formatCoverage, ruleCoverage, type Coverage } from "policy-sim";
import { arbWorldRecipe, worldFromRecipe } from "policy-sim/testing/arbitraries";
import { sampleWorld } from "./helpers.js";

const sample = sampleWorld();
const prodAdmin = { appId: "app-aws", id: "ent-aws-prod-admin" } as const;

const policy = (c: Coverage, id: string) => {
  const p = c.policies.find((x) => x.policyId === id);
  if (!p) throw new Error(`no coverage for ${id}`);
  return p;
};

describe("ruleCoverage on the sample tenant", () => {
  const c = ruleCoverage(sample, ["1001", "1002", "1003", "1005", "1006", { subject: { id: "u-sec-analyst" }, entitlement: prodAdmin }]);

  it("counts evaluations, matches and selections per rule", () => {
    expect(c.tasks).toBe(6);
    const admin = policy(c, "pol-prod-admin");
    expect(admin.reached).toBe(6);
    expect(admin.rules.map((r) => [r.evaluated, r.matched, r.selected, r.errored])).toEqual([
      [6, 1, 1, 0], // 1006
      [5, 1, 1, 0], // 1005
      [4, 1, 1, 0], // 1001
      [3, 2, 2, 0], // 1002, 1003 (through references)
      [1, 0, 0, 0], // the Security analyst (medium clearance) falls through
    ]);
    expect(admin.baseline).toBe(1);
    expect(policy(c, "pol-prod-admin-eng")).toMatchObject({ reached: 2, baseline: 1 });
    expect(policy(c, "pol-security-review").rules[1]?.evaluated).toBe(0);
    // Every policy of the world is listed, reached or not.
    expect(c.policies.map((p) => p.policyId)).toEqual(sample.policies.map((p) => p.id));
  });

  it("records whether each part of a condition was ever true and ever false", () => {
    const rule0 = policy(c, "pol-prod-admin").rules[0]!;
    const [whole, dept, clearance] = rule0.parts.filter((p) => p.boolean);
    expect(whole).toMatchObject({ text: 'subject.department == "Security" && subject.profile.clearance == "high"', trueCount: 1, falseCount: 5, depth: 0 });
    // Three Security subjects: 1006's (high clearance), 1005's and the analyst (medium).
    expect(dept).toMatchObject({ text: 'subject.department == "Security"', trueCount: 3, falseCount: 3 });
    // The clearance test only runs for Security subjects (short-circuit otherwise).
    expect(clearance).toMatchObject({ text: 'subject.profile.clearance == "high"', trueCount: 1, falseCount: 2, notEvaluatedCount: 3 });
    // Literals and bare variables are left out.
    expect(rule0.parts.some((p) => p.text === '"Security"' || p.text === "subject")).toBe(false);
  });

  it("renders the gaps", () => {
    const text = formatCoverage(c, { hideUnreached: true });
    expect(text).toContain("Rule coverage over 6 tasks");
    expect(text).toContain('policy pol-prod-admin "Production administrator access" — reached by 6 tasks, baseline 1');
    expect(text).toMatch(/T ·\s+entitlement\.riskLevelValueId == "critical"\s+never false/);
    expect(text).toContain("#1 never evaluated: subject.type == UserType.AGENT");
    // Unreached policies have no detail, only their names on one line.
    expect(text).not.toContain("policy pol-finance-form");
    expect(text).toMatch(/\nNo task reached \d+ policies: .*pol-finance-form/);
    const gaps = formatCoverage(c, { onlyGaps: true, hideUnreached: true });
    expect(gaps).toContain("#4 evaluated 1, matched 0");
  });

  it("counts errors of conditions that fail at run time", () => {
    // A new user has no profile: rule 2's `subject.profile.costCenter` fails (no such key).
    const r = ruleCoverage(sample, [{ subject: { id: "u-new" }, entitlement: { appId: "app-aws", id: "ent-aws-staging-admin" } }, "1023"]);
    const rule2 = policy(r, "pol-aws-access").rules[2]!;
    expect([rule2.evaluated, rule2.matched, rule2.errored]).toEqual([2, 1, 1]);
    expect(rule2.parts.find((p) => p.depth === 0)).toMatchObject({ trueCount: 1, errorCount: 1 });
    expect(formatCoverage(r, { hideUnreached: true })).toMatch(/#2 evaluated 2, matched 1, selected 1, errors 1/);
  });

  it("reports inputs that are not tasks instead of throwing", () => {
    const r = ruleCoverage(sample, ["nope", { task: "1001" }, { subject: "u-dev2", entitlement: { appId: "app-x", id: "e" } }]);
    expect(r.tasks).toBe(1);
    expect(r.skipped.map((s) => s.input)).toEqual(["nope", '{"subject":"u-dev2","entitlement":{"appId":"app-x","id":"e"}}']);
    expect(formatCoverage(r)).toContain("Skipped 2 inputs");
  });
});

describe("ruleCoverage over generated worlds", () => {
  it("agrees with decide() task by task, and its counts are consistent", () => {
    fc.assert(
      fc.property(arbWorldRecipe({ maxTasks: 20, maxRules: 6 }), (recipe) => {
        const world = worldFromRecipe(recipe);
        const tasks = [...world.tasks.values()];
        const c = ruleCoverage(world, tasks);
        const evaluated = new Map<string, number>();
        for (const t of tasks) {
          const s = decide(world, t).selection;
          for (const e of s ? (s.ok ? s.value.evaluations : s.error.evaluations) : [])
            if (e.ruleIndex >= 0) evaluated.set(`${e.policyId}#${e.ruleIndex}`, (evaluated.get(`${e.policyId}#${e.ruleIndex}`) ?? 0) + 1);
        }
        for (const p of c.policies)
          for (const r of p.rules) {
            expect(r.evaluated).toBe(evaluated.get(`${p.policyId}#${r.ruleIndex}`) ?? 0);
            expect(r.matched).toBeLessThanOrEqual(r.evaluated);
            expect(r.selected).toBeLessThanOrEqual(r.matched);
            expect(r.errored).toBeLessThanOrEqual(r.evaluated);
            const root = r.parts.find((x) => x.depth === 0);
            // The whole condition has one outcome per evaluation (when it compiles).
            if (root) expect(root.trueCount + root.falseCount + root.errorCount + root.valueCount).toBe(r.evaluated);
            // A rule matches exactly when its condition is true.
            if (root) expect(root.trueCount).toBe(r.matched);
          }
      }),
      { numRuns: 30 },
    );
  });
});
