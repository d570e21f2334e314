// Shown whole in the README ("Test your policies"); test/readme.test.ts keeps the two identical.
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { loadWorld } from "policy-sim";
import { policyCases, setupPolicyMatchers, type PolicyCase } from "policy-sim/testing";
import { diffPolicies } from "policy-sim/testing/arbitraries"; // needs fast-check

const loaded = loadWorld(JSON.parse(readFileSync("fixtures/world.json", "utf8")));
if (!loaded.ok) throw new Error(loaded.error.map((d) => `${d.path}: ${d.message}`).join("\n"));
const world = loaded.value;

setupPolicyMatchers(expect);
const prodAdmin = { appId: "app-aws", id: "ent-aws-prod-admin" } as const;

it("sends the contractor's open request (task 1001) to the contractor steps: manager, then security", () => {
  expect(world).toRoute("1001", { policy: "pol-prod-admin", source: "entitlement", rule: 2 });
  expect(world).toRequireApprovalFrom("1001", ["u-sre-lead"]);
  expect(world).toRequireApprovalFrom("1001", ["u-ciso", "u-sec-eng"], { step: 1 });
});

it("routes any contractor asking for a critical entitlement the same way", () => {
  const contractor = { subject: { id: "u-dev2", employmentType: "Contractor" }, entitlement: prodAdmin };
  expect(world).toRoute(contractor, { rule: 2, firstStep: "approval by manager", approvers: ["u-eng-mgr"] });
  expect(world).not.toRoute({ ...contractor, entitlement: { ...prodAdmin, riskLevelValueId: "medium" } }, { rule: 2 });
});

const cases: PolicyCase[] = [
  { name: "interns cannot get beyond low-risk AWS access", subject: { id: "u-intern" },
    entitlement: { appId: "app-aws", id: "ent-aws-staging-admin" }, expect: { policy: "pol-aws-access", rule: 0, firstStep: "reject" } },
  { name: "PagerDuty falls back to the tenant default", task: "1008", expect: { policy: "pol-default-grant", source: "tenantDefault" } },
];
it.each(policyCases(world, cases))("$name", (c) => c.assert());

it("dropping rule 2 would send some contractor somewhere else", () => {
  const current = world.index.policies.get("pol-prod-admin")!;
  const d = diffPolicies(world, current, { ...current, rules: current.rules!.filter((_, i) => i !== 2) });
  expect(d.ok && d.value.kind).toBe("different"); // with a shrunk counterexample task and both routes
});
