/**
 * A policy author's tests for the Northwind Labs tenant (fixtures/world.json, described in
 * fixtures/SAMPLE.md): where access requests for production AWS go, written with the matchers and
 * table-driven cases of `policy-sim/testing`. A failing assertion prints what differs and the
 * explanation of how the task was actually routed, rule by rule.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadWorld } from "policy-sim";
import { formatCoverage, policyCases, ruleCoverage, setupPolicyMatchers, type PolicyCase, type TaskSpec } from "policy-sim/testing";
import { diffPolicies } from "policy-sim/testing/arbitraries";

const loaded = loadWorld(JSON.parse(readFileSync(new URL("../fixtures/world.json", import.meta.url), "utf8")));
if (!loaded.ok) throw new Error(loaded.error.map((d) => `${d.path}: ${d.message}`).join("\n"));
const world = loaded.value;

setupPolicyMatchers(expect);

const prodAdmin = { appId: "app-aws", id: "ent-aws-prod-admin" } as const;

describe("production administrator access (pol-prod-admin)", () => {
  it("sends the contractor's open request (task 1001) to the contractor steps: manager, then security", () => {
    expect(world).toUsePolicy("1001", "pol-prod-admin");
    expect(world).toRoute("1001", { policy: "pol-prod-admin", source: "entitlement", rule: 2 });
    expect(world).toRouteToStep("1001", "5650fd2e-58bd-4dab-a08a-7314c0a4d8a3");
    expect(world).toRequireApprovalFrom("1001", ["u-sre-lead"]);
    expect(world).toRequireApprovalFrom("1001", ["u-ciso", "u-sec-eng"], { step: 1 });
  });

  it("routes any contractor asking for a critical entitlement the same way", () => {
    const contractor: TaskSpec = { subject: { id: "u-dev2", employmentType: "Contractor" }, entitlement: prodAdmin };
    expect(world).toRoute(contractor, { rule: 2, firstStep: "approval by manager", approvers: ["u-eng-mgr"] });
    // …but not for a medium-risk one: rule 2 tests the risk level too.
    expect(world).not.toRoute({ ...contractor, entitlement: { ...prodAdmin, riskLevelValueId: "medium" } }, { rule: 2 });
  });

  it("fast-tracks Security staff with high clearance (rule 0), but not with medium clearance", () => {
    expect(world).toRoute({ subject: { id: "u-sec-eng" }, entitlement: prodAdmin }, { rule: 0, approvers: ["u-sre-lead", "u-ciso"] });
    expect(world).not.toRoute({ subject: { id: "u-sec-analyst" }, entitlement: prodAdmin }, { rule: 0 });
  });

  it("lets the access agent decide requests made through Copilot (rule 1)", () => {
    expect(world).toRoute({ subject: { id: "u-dev1" }, entitlement: prodAdmin, origin: "COPILOT" }, { rule: 1, firstStep: "approval by agent" });
  });

  it("hands Engineering to pol-prod-admin-eng, which asks for MFA (rule 3 → chain)", () => {
    // u-dev1 has MFA: pol-prod-admin-eng's own rule decides.
    expect(world).toRoute({ subject: { id: "u-dev1" }, entitlement: prodAdmin }, {
      rule: 3,
      chain: ["pol-prod-admin", "pol-prod-admin-eng"],
      decidedBy: { policy: "pol-prod-admin-eng", rule: 0 },
    });
    // Task 1003's requester has no MFA: pol-prod-admin-eng defers to the security review.
    expect(world).toRoute("1003", { rule: 3, decidedBy: { policy: "pol-security-review", rule: 0 }, approvers: ["u-ciso", "u-sec-eng", "u-sec-analyst"] });
  });

  it("uses the break-glass policy for emergency access", () => {
    expect(world).toUsePolicy({ subject: { id: "u-sre1" }, entitlement: prodAdmin, emergencyAccess: true }, "pol-emergency-breakglass");
  });
});

const cases: PolicyCase[] = [
  { name: "interns cannot get beyond low-risk AWS access", subject: { id: "u-intern" }, entitlement: { appId: "app-aws", id: "ent-aws-staging-admin" }, expect: { policy: "pol-aws-access", rule: 0, firstStep: "reject" } },
  { name: "low-risk AWS access is approved automatically", subject: { id: "u-dev3" }, entitlement: { appId: "app-aws", id: "ent-aws-staging-dev" }, expect: { rule: 1, firstStep: "accept" } },
  { name: "cost centre CC-300 on billing goes to the CFO", task: "1023", expect: { rule: 2, approvers: ["u-cfo"] } },
  { name: "other AWS access: the manager approves, or whom they delegated to", subject: { id: "u-dev3" }, entitlement: { appId: "app-aws", id: "ent-aws-staging-admin" }, expect: { rule: "baseline", approvers: ["u-sre-lead"] } },
  { name: "repositories default to pol-gh-repo-access", task: "1007", expect: { policy: "pol-gh-repo-access", source: "resourceTypeDefault" } },
  { name: "service accounts never get Okta admin roles", subject: { id: "u-svc-deploy" }, entitlement: { appId: "app-okta", id: "ent-okta-app-admin" }, expect: { decidedBy: { policy: "pol-security-sensitive", rule: 0 }, firstStep: "reject" } },
  { name: "PagerDuty falls back to the tenant default", task: "1008", expect: { policy: "pol-default-grant", source: "tenantDefault" } },
  { name: "non-usage revocations in Salesforce are automatic", task: "1035", expect: { chain: ["pol-revoke-salesforce", "pol-revoke-standard"], firstStep: "accept" } },
];

describe("access policies, case by case", () => {
  it.each(policyCases(world, cases))("$name", (c) => c.assert());

  it("exercise every rule of pol-aws-access", () => {
    const coverage = ruleCoverage(world, cases);
    const aws = coverage.policies.find((p) => p.policyId === "pol-aws-access");
    expect(aws?.rules.map((r) => r.selected > 0), formatCoverage(coverage, { onlyGaps: true, hideUnreached: true })).toEqual([true, true, true]);
  });
});

describe("editing pol-prod-admin", () => {
  const current = world.index.policies.get("pol-prod-admin");
  if (!current?.rules) throw new Error("the sample tenant has no pol-prod-admin");

  it("swapping the two sides of rule 0's && changes nothing", () => {
    const rewritten = { ...current, rules: current.rules!.map((r, i) => (i === 0 ? { ...r, condition: 'subject.profile.clearance == "high" && subject.department == "Security"' } : r)) };
    const d = diffPolicies(world, current, rewritten, { numRuns: 300 });
    expect(d.ok && d.value.kind).toBe("none");
  });

  it("dropping rule 2 would send some contractor somewhere else", () => {
    const withoutRule2 = { ...current, rules: current.rules!.filter((_, i) => i !== 2) };
    const d = diffPolicies(world, current, withoutRule2, { numRuns: 300 });
    if (!d.ok || d.value.kind !== "different") throw new Error("expected a difference");
    expect(d.value.spec.subject?.employmentType ?? world.index.users.get(d.value.spec.subject?.id ?? "")?.employmentType).toBe("Contractor");
    expect(d.value.before).toMatchObject({ decidedBy: { kind: "rule", ruleIndex: 2 } });
  });
});
