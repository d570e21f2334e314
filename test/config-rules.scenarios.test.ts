import { describe, expect, it } from "vitest";
import { explain, formatExplanation, loadWorld, resolveMaxGrantDuration, resolvePolicy, saveWorld, type World } from "policy-sim";
import { sampleJson, worldOf, type Body } from "./helpers.js";

/** app-aws's configuration rules: an Off catch-all first, a staging rule, then a catch-all. */
const RULES = [
  {
    id: "ecr-3-catch-all", appId: "app-aws", displayName: "Everything else", description: "", condition: "", enabled: true, priority: 3,
    settings: { requestPolicyId: "pol-security-review", emergencyGrantEnabled: false, emergencyGrantPolicyId: "", maxGrantDuration: null, requestSchemaId: "" },
    createdAt: "2026-06-04T10:00:00Z",
  },
  {
    id: "ecr-2-staging", appId: "app-aws", displayName: "Staging accounts", description: "", condition: 'entitlement.display_name.startsWith("Staging")', enabled: true, priority: 2,
    settings: { requestPolicyId: "pol-prod-admin-eng", emergencyGrantEnabled: true, emergencyGrantPolicyId: "pol-emergency-breakglass", maxGrantDuration: "28800s", requestSchemaId: "" },
  },
  {
    id: "ecr-1-off", appId: "app-aws", displayName: "Draft", description: "", condition: "", enabled: false, priority: 1,
    settings: { requestPolicyId: "pol-default-grant", emergencyGrantEnabled: false, emergencyGrantPolicyId: "", maxGrantDuration: null, requestSchemaId: "" },
  },
];

/** The sample tenant with app-aws's rules, task 1001 asking for `entitlementId` (emergency or not). */
function worldAsking(entitlementId: string, appId = "app-aws", emergencyAccess = false, extra: Record<string, unknown> = {}): World {
  const json: Body = { ...sampleJson(), entitlementConfigurationRules: RULES, ...extra };
  const task = json.tasks.find((t: Body) => t.numericId === "1001");
  task.type.grant.appEntitlementId = entitlementId;
  task.type.grant.appId = appId;
  task.emergencyAccess = emergencyAccess;
  return worldOf(json);
}

function resolved(world: World): { policyId: string; source: string } {
  const r = resolvePolicy(world, world.tasks.get("2j4u65242B2opqOFuN15r5WrwMH")!);
  if (!r.ok) throw new Error(r.error.message);
  return { policyId: r.value.policy.id, source: r.value.source };
}

describe("product_admin_entitlement-config-rules.mdx: the first matching enabled rule gives the request policy", () => {
  it("skips an Off rule, matches the staging rule's condition, and leaves the catch-all unreached", () => {
    const world = worldAsking("ent-aws-staging-admin");
    expect(resolved(world)).toEqual({ policyId: "pol-prod-admin-eng", source: "configRule" });
    const r = resolvePolicy(world, world.tasks.get("2j4u65242B2opqOFuN15r5WrwMH")!);
    const check = r.ok ? r.value.checks.find((c) => c.source === "configRule") : undefined;
    expect(check?.status).toBe("used");
    expect(check?.configRules?.map((e) => [e.ruleId, e.outcome])).toEqual([
      ["ecr-1-off", "disabled"],
      ["ecr-2-staging", "matched"],
      ["ecr-3-catch-all", "notReached"],
    ]);
  });

  it("an empty condition is a catch-all for entitlements no earlier rule matched", () => {
    expect(resolved(worldAsking("ent-aws-billing"))).toEqual({ policyId: "pol-security-review", source: "configRule" });
  });

  it("orders rules by priority, then id, whatever the file's order", () => {
    const tie = { ...RULES[1], id: "ecr-0-tie", priority: 3, condition: "", settings: { ...RULES[1]!.settings, requestPolicyId: "pol-aws-access" } };
    const world = worldAsking("ent-aws-billing", "app-aws", false, { entitlementConfigurationRules: [...RULES, tie] });
    expect(resolved(world)).toEqual({ policyId: "pol-aws-access", source: "configRule" });
  });

  it("the app's policy applies when no enabled rule matches", () => {
    const onlyStaging = RULES.filter((r) => r.id === "ecr-2-staging");
    const world = worldAsking("ent-aws-billing", "app-aws", false, { entitlementConfigurationRules: onlyStaging });
    expect(resolved(world)).toEqual({ policyId: "pol-aws-access", source: "app" });
  });

  it("a rule whose condition cannot be evaluated counts as not matching", () => {
    const broken = { ...RULES[1], id: "ecr-0-broken", priority: 0, condition: "entitlement.no_such_field == 1" };
    const world = worldAsking("ent-aws-staging-admin", "app-aws", false, { entitlementConfigurationRules: [broken, ...RULES] });
    const r = resolvePolicy(world, world.tasks.get("2j4u65242B2opqOFuN15r5WrwMH")!);
    const check = r.ok ? r.value.checks.find((c) => c.source === "configRule") : undefined;
    expect(check?.configRules?.[0]?.outcome).toBe("error");
    expect(resolved(world).policyId).toBe("pol-prod-admin-eng");
  });

  it("gives the emergency policy of the matching rule to an emergency request, and lets a rule without emergency grants fall through", () => {
    expect(resolved(worldAsking("ent-aws-staging-admin", "app-aws", true))).toEqual({ policyId: "pol-emergency-breakglass", source: "emergencyConfigRule" });
    // The catch-all does not enable emergency grants: the request is routed by the ordinary chain.
    expect(resolved(worldAsking("ent-aws-billing", "app-aws", true))).toEqual({ policyId: "pol-security-review", source: "configRule" });
  });

  it("explain shows each rule like a policy rule: its priority, condition, outcome and values", () => {
    const e = explain(worldAsking("ent-aws-staging-admin"), "1001");
    expect(e.ok).toBe(true);
    if (!e.ok) return;
    const text = formatExplanation(e.value);
    expect(text).toContain('configuration rule "ecr-2-staging" "Staging accounts" (priority 2, condition "entitlement.display_name.startsWith(\\"Staging\\")") requestPolicyId is "pol-prod-admin-eng"');
    expect(text).toContain('config rule 1 "ecr-1-off" "Draft" when (empty: matches every entitlement) → disabled');
    expect(text).toContain('config rule 2 "ecr-2-staging" "Staging accounts" when entitlement.display_name.startsWith("Staging") → matched (entitlement.display_name = "Staging AdministratorAccess"); requestPolicyId="pol-prod-admin-eng" emergencyGrantEnabled=true emergencyGrantPolicyId="pol-emergency-breakglass" maxGrantDuration=28800s');
    // What each evaluated rule read is in the explanation's JSON too (docs CEL review: "configuration-rule results show no values").
    const check = e.value.resolution.checks.find((c) => c.source === "configRule");
    expect(check?.configRules?.find((r) => r.ruleId === "ecr-2-staging")?.values).toEqual(['entitlement.display_name = "Staging AdministratorAccess"']);
    expect(check?.configRules?.find((r) => r.ruleId === "ecr-1-off")?.values).toBeUndefined();
    expect(text).toContain('config rule 3 "ecr-3-catch-all" "Everything else" when (empty: matches every entitlement) → notReached');
  });

  it("the world file keeps the rules (with fields it does not read) through save and load", () => {
    const world = worldAsking("ent-aws-staging-admin");
    const saved = JSON.parse(JSON.stringify(saveWorld(world))) as Body;
    expect(saved.entitlementConfigurationRules).toHaveLength(3);
    expect(saved.entitlementConfigurationRules.find((r: Body) => r.id === "ecr-3-catch-all").createdAt).toBe("2026-06-04T10:00:00Z");
    const again = loadWorld(saved);
    expect(again.ok && again.value.entitlementConfigurationRules).toEqual(world.entitlementConfigurationRules);
  });

  it("refuses a world whose rule has a wrongly typed priority or settings", () => {
    const bad = { ...RULES[0], priority: "first", settings: "pol-x" };
    const r = loadWorld({ ...sampleJson(), entitlementConfigurationRules: [bad] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.map((d) => d.path)).toEqual(["$.entitlementConfigurationRules[0].priority", "$.entitlementConfigurationRules[0].settings"]);
  });
});

describe("product_admin_access-requests.mdx: request settings follow entitlement → resource type → app", () => {
  it("the entitlement's own request policy wins over a matching configuration rule", () => {
    expect(resolved(worldAsking("ent-aws-prod-admin"))).toEqual({ policyId: "pol-prod-admin", source: "entitlement" });
  });

  it("an entitlement that overrides the app's defaults is not governed by configuration rules", () => {
    const json: Body = sampleJson();
    const ent = json.entitlements.find((e: Body) => e.id === "ent-aws-billing");
    ent.overrideAccessRequestsDefaults = true;
    const task = json.tasks.find((t: Body) => t.numericId === "1001");
    task.type.grant.appEntitlementId = "ent-aws-billing";
    const world = worldOf({ ...json, entitlementConfigurationRules: RULES });
    expect(resolved(world)).toEqual({ policyId: "pol-aws-access", source: "app" });
  });

  it("an emergency request takes the resource type's emergency policy when the entitlement sets none", () => {
    const defaults = [{ appId: "app-github", resourceTypeIds: ["rt-repo"], requestPolicyId: "pol-gh-repo-access", emergencyGrantEnabled: true, emergencyGrantPolicyId: "pol-emergency-breakglass" }];
    const world = worldAsking("ent-gh-repo-platform-write", "app-github", true, { resourceTypeDefaults: defaults });
    expect(resolved(world)).toEqual({ policyId: "pol-emergency-breakglass", source: "emergencyResourceTypeDefault" });
    // Not an emergency request: the resource type's request policy.
    expect(resolved(worldAsking("ent-gh-repo-platform-write", "app-github", false, { resourceTypeDefaults: defaults }))).toEqual({
      policyId: "pol-gh-repo-access",
      source: "resourceTypeDefault",
    });
    // The resource type's emergency fields survive save and load.
    expect((JSON.parse(JSON.stringify(saveWorld(world))) as Body).resourceTypeDefaults).toEqual(defaults);
  });
});

describe("product_admin_access-requests.mdx: the maximum grant duration follows entitlement → configuration rule → resource type", () => {
  it("takes the entitlement's own durationGrant first, then the matching rule's, then none", () => {
    const json: Body = { ...sampleJson(), entitlementConfigurationRules: RULES };
    json.entitlements.find((e: Body) => e.id === "ent-aws-staging-dev").durationGrant = "3600s";
    const world = worldOf(json);
    expect(resolveMaxGrantDuration(world, "app-aws", "ent-aws-staging-dev")).toMatchObject({ duration: "3600s", source: "entitlement" });
    expect(resolveMaxGrantDuration(world, "app-aws", "ent-aws-staging-admin")).toMatchObject({ duration: "28800s", source: "configRule" });
    // The catch-all matches but sets no limit, and app-aws's resource type has no defaults.
    expect(resolveMaxGrantDuration(world, "app-aws", "ent-aws-billing")).toMatchObject({ duration: null, source: "none" });
    expect(resolveMaxGrantDuration(world, "app-aws", "ent-nope")).toMatchObject({ duration: null, source: "none" });
  });

  it("falls through to the resource type's default, which an entitlement overriding the defaults does not use", () => {
    const defaults = [{ appId: "app-github", resourceTypeIds: ["rt-repo"], requestPolicyId: "pol-gh-repo-access", maxGrantDuration: "86400s" }];
    const world = worldOf({ ...sampleJson(), resourceTypeDefaults: defaults });
    expect(resolveMaxGrantDuration(world, "app-github", "ent-gh-repo-platform-write")).toMatchObject({ duration: "86400s", source: "resourceTypeDefault" });
    expect(resolveMaxGrantDuration(world, "app-github", "ent-gh-repo-platform-admin")).toMatchObject({ duration: null, source: "none" });
  });
});
