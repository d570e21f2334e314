import { describe, expect, it } from "vitest";
import { tenantDefaults } from "./tenant-defaults.js";

const task = (kind: string, policyId: string) => ({ type: { [kind]: {} }, policy: { policy: { id: policyId } } });
const policies = [
  { id: "pol-g", systemBuiltin: true, policyType: "POLICY_TYPE_GRANT" },
  { id: "pol-r1", systemBuiltin: true, policyType: "POLICY_TYPE_REVOKE" },
  { id: "pol-r2", systemBuiltin: true, policyType: "POLICY_TYPE_REVOKE" },
  { id: "pol-off" },
  { id: "pol-off-2" },
  { id: "pol-act" },
];

describe("the tenant's default policies, which the API does not list", () => {
  it("one built-in policy of a type is its default; offboarding, action and finding defaults are the policy their tasks carry", () => {
    const d = tenantDefaults(policies, [task("offboarding", "pol-off"), task("offboarding", "pol-off"), task("action", "pol-act"), task("grant", "pol-g")]);
    expect(d.defaultPolicies).toEqual({ grant: "pol-g", offboarding: "pol-off", action: "pol-act" });
    const byKind = (k: string) => d.warnings.find((w) => w.message.includes(`defaultPolicies.${k}"`));
    expect(byKind("revoke")).toMatchObject({ code: "DEFAULT_POLICY_UNKNOWN", message: expect.stringContaining("(2 built-in POLICY_TYPE_REVOKE policies)") as unknown });
    expect(byKind("certify")?.code).toBe("DEFAULT_POLICY_UNKNOWN");
    expect(byKind("offboarding")).toMatchObject({ code: "DEFAULT_POLICY_INFERRED", message: expect.stringContaining('"pol-off", the policy its 2 offboarding task(s) carry') as unknown });
    expect(byKind("finding")?.code).toBe("DEFAULT_POLICY_UNKNOWN");
  });

  it("tasks that carry different policies, or one the pull does not have, tell nothing", () => {
    const d = tenantDefaults(policies, [task("offboarding", "pol-off"), task("offboarding", "pol-off-2"), task("finding", "pol-gone")]);
    expect(d.defaultPolicies).toEqual({ grant: "pol-g" });
    expect(d.warnings.find((w) => w.message.includes("defaultPolicies.offboarding"))?.message).toContain("(its offboarding tasks carry 2 different policies)");
    expect(d.warnings.find((w) => w.message.includes("defaultPolicies.finding"))?.code).toBe("DEFAULT_POLICY_UNKNOWN");
  });
});

describe("without one built-in policy, a default is the policy tasks carry where nothing closer names one (platform review)", () => {
  const apps = [
    { id: "app-gh", grantPolicyId: "", revokePolicyId: "", certifyPolicyId: "" },
    { id: "app-sf", grantPolicyId: "pol-sf", revokePolicyId: "pol-sf-revoke", certifyPolicyId: "" },
  ];
  const entitlements = [
    { appId: "app-gh", id: "ent-repo", grantPolicyId: "", revokePolicyId: "", certifyPolicyId: "" },
    { appId: "app-gh", id: "ent-admin", grantPolicyId: "", revokePolicyId: "pol-critical", certifyPolicyId: "pol-cert-critical" },
    { appId: "app-sf", id: "ent-user", grantPolicyId: "", revokePolicyId: "", certifyPolicyId: "" },
  ];
  const accessReviews = [
    { id: "ar-plain", policyId: "", usePolicyOverride: false },
    { id: "ar-override", policyId: "", usePolicyOverride: true },
    { id: "ar-named", policyId: "pol-cert-named", usePolicyOverride: false },
  ];
  const all = [{ id: "pol-revoke-standard" }, { id: "pol-critical" }, { id: "pol-sf-revoke" }, { id: "pol-cert" }, { id: "pol-cert-critical" }, { id: "pol-cert-named" }, { id: "pol-g" }];
  const typed = (kind: string, body: Record<string, unknown>, policyId: string) => ({ type: { [kind]: body }, policy: { policy: { id: policyId } } });
  const revoke = (appId: string, ent: string, policyId: string) => typed("revoke", { appId, appEntitlementId: ent }, policyId);
  const certify = (review: string, ent: string, policyId: string) => typed("certify", { accessReviewId: review, appId: "app-gh", appEntitlementId: ent }, policyId);
  const sources = { apps, entitlements, accessReviews, resourceTypeDefaults: [], configurationRules: [] };

  it("revoke: tasks whose entitlement and app name no revoke policy carry the default; the others say nothing of it", () => {
    const d = tenantDefaults(all, [revoke("app-gh", "ent-repo", "pol-revoke-standard"), revoke("app-gh", "ent-admin", "pol-critical"), revoke("app-sf", "ent-user", "pol-sf-revoke"), revoke("app-gh", "ent-repo", "pol-revoke-standard")], sources);
    expect(d.defaultPolicies["revoke"]).toBe("pol-revoke-standard");
    expect(d.warnings.find((w) => w.message.includes('defaultPolicies.revoke"'))).toMatchObject({
      code: "DEFAULT_POLICY_INFERRED",
      message: expect.stringContaining('"pol-revoke-standard", the policy its 2 revoke task(s) carry whose entitlement and app name no revoke policy') as unknown,
    });
  });

  it("certify: a review that names no policy, and with policy overrides no entitlement or app policy either", () => {
    const d = tenantDefaults(all, [certify("ar-plain", "ent-admin", "pol-cert"), certify("ar-override", "ent-repo", "pol-cert"), certify("ar-override", "ent-admin", "pol-cert-critical"), certify("ar-named", "ent-repo", "pol-cert-named")], sources);
    expect(d.defaultPolicies["certify"]).toBe("pol-cert");
  });

  it("grant: only where the app has no request defaults or configuration rules, and never from an emergency request", () => {
    const grant = (appId: string, ent: string, policyId: string, emergency = false) => ({ ...typed("grant", { appId, appEntitlementId: ent }, policyId), emergencyAccess: emergency });
    expect(tenantDefaults(all, [grant("app-gh", "ent-repo", "pol-g"), grant("app-gh", "ent-repo", "pol-critical", true)], sources).defaultPolicies["grant"]).toBe("pol-g");
    const withDefaults = { ...sources, resourceTypeDefaults: [{ appId: "app-gh", resourceTypeIds: ["rt-repo"], requestPolicyId: "pol-x" }] };
    expect(tenantDefaults(all, [grant("app-gh", "ent-repo", "pol-g")], withDefaults).defaultPolicies["grant"]).toBeUndefined();
    // Configuration rules the pull could not read: whether one matched cannot be told.
    expect(tenantDefaults(all, [grant("app-gh", "ent-repo", "pol-g")], { ...sources, configurationRules: undefined }).defaultPolicies["grant"]).toBeUndefined();
    // Nor for an app whose request defaults or rules were refused, or when none were read.
    expect(tenantDefaults(all, [grant("app-gh", "ent-repo", "pol-g")], { ...sources, unreadApps: new Set(["app-gh"]) }).defaultPolicies["grant"]).toBeUndefined();
    expect(tenantDefaults(all, [grant("app-gh", "ent-repo", "pol-g")], { ...sources, unreadApps: "all" }).defaultPolicies["grant"]).toBeUndefined();
    expect(tenantDefaults(all, [grant("app-gh", "ent-repo", "pol-g")], { ...sources, unreadApps: new Set(["app-sf"]) }).defaultPolicies["grant"]).toBe("pol-g");
  });

  it("tasks that disagree, a policy the pull lacks, or an entitlement it lacks tell nothing; a built-in policy still wins", () => {
    const disagree = tenantDefaults(all, [revoke("app-gh", "ent-repo", "pol-revoke-standard"), revoke("app-gh", "ent-repo", "pol-critical")], sources);
    expect(disagree.defaultPolicies["revoke"]).toBeUndefined();
    expect(disagree.warnings.find((w) => w.message.includes('defaultPolicies.revoke"'))?.message).toContain("(its revoke tasks carry 2 different policies)");
    expect(tenantDefaults(all, [revoke("app-gh", "ent-repo", "pol-gone")], sources).defaultPolicies["revoke"]).toBeUndefined();
    expect(tenantDefaults(all, [revoke("app-gh", "ent-unknown", "pol-revoke-standard")], sources).defaultPolicies["revoke"]).toBeUndefined();
    const builtin = [...all, { id: "pol-r", systemBuiltin: true, policyType: "POLICY_TYPE_REVOKE" }];
    expect(tenantDefaults(builtin, [revoke("app-gh", "ent-repo", "pol-revoke-standard")], sources).defaultPolicies["revoke"]).toBe("pol-r");
  });
});
