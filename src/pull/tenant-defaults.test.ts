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
