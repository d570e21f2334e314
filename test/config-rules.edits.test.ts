import { describe, expect, it } from "vitest";
import { applyEdit, whatIf, type World } from "policy-sim";
import { lintWorld } from "../src/cli/lint.js";
import { getEntitlementConfigurationRule, listEntitlementConfigurationRules } from "../src/http/routes/reads.js";
import type { EntitlementConfigRule } from "../src/model/config-rule.js";
import { sampleJson, worldOf, type Body } from "./helpers.js";

const settings = { requestPolicyId: "pol-prod-admin-eng", emergencyGrantEnabled: false, emergencyGrantPolicyId: "", maxGrantDuration: null, requestSchemaId: "" };
const staging: EntitlementConfigRule = {
  id: "ecr-staging", appId: "app-aws", displayName: "Staging accounts", description: "", condition: 'entitlement.display_name.startsWith("Staging")',
  enabled: true, priority: 2, settings,
};
const catchAll: EntitlementConfigRule = { ...staging, id: "ecr-all", displayName: "Everything else", condition: "", priority: 1, enabled: false, settings: { ...settings, requestPolicyId: "pol-security-review" } };

/** The sample tenant with app-aws's two rules, and task 1001 asking for Staging AdministratorAccess. */
function world(rules: readonly EntitlementConfigRule[] = [staging, catchAll]): World {
  const json: Body = { ...sampleJson(), entitlementConfigurationRules: rules };
  json.tasks.find((t: Body) => t.numericId === "1001").type.grant.appEntitlementId = "ent-aws-staging-admin";
  return worldOf(json);
}

const page = { size: 50, offset: 0, fingerprint: "" };

describe("product_admin_entitlement-config-rules.mdx: rules in what-if edits", () => {
  it("turning a rule Off moves the tasks it routed to the next source, and the original world is unchanged", () => {
    const w = world();
    const r = whatIf(w, (d) => {
      const rule = d.entitlementConfigurationRules.find((x) => x.id === "ecr-staging");
      if (rule) rule.enabled = false;
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const task = r.value.changed.find((c) => c.numericId === "1001");
    expect(task?.before).toMatchObject({ policyId: "pol-prod-admin-eng", source: "configRule" });
    expect(task?.after).toMatchObject({ policyId: "pol-aws-access", source: "app" });
    expect(w.entitlementConfigurationRules?.find((x) => x.id === "ecr-staging")?.enabled).toBe(true);
  });

  it("a patch adds a rule by app and id, and a rule without an appId is refused", () => {
    const w = world([staging]);
    const first = { ...catchAll, enabled: true, priority: 0 };
    const edited = applyEdit(w, { entitlementConfigurationRules: [first] });
    expect(edited.index.configRulesByApp.get("app-aws")?.map((x) => x.id)).toEqual(["ecr-all", "ecr-staging"]);
    const r = whatIf(w, { entitlementConfigurationRules: [first] });
    expect(r.ok && r.value.changed.find((c) => c.numericId === "1001")?.after).toMatchObject({ policyId: "pol-security-review", source: "configRule" });
    const bad = whatIf(w, { entitlementConfigurationRules: [{ ...first, appId: "" }] });
    expect(bad.ok ? "" : bad.error.code).toBe("INVALID_ARGUMENT");
  });

  it("a recipe that removes a rule removes it", () => {
    const edited = applyEdit(world(), (d) => {
      d.entitlementConfigurationRules.splice(0, 1);
    });
    expect(edited.entitlementConfigurationRules?.map((x) => x.id)).toEqual(["ecr-all"]);
  });
});

describe("product_admin_entitlement-config-rules.mdx: lint of configuration rules", () => {
  it("checks a condition in the config-rule environment (entitlement only) and the policies the settings name", () => {
    const bad: EntitlementConfigRule = { ...staging, id: "ecr-bad", condition: 'subject.department == "IT"', settings: { ...settings, requestPolicyId: "pol-nope", emergencyGrantEnabled: true, emergencyGrantPolicyId: "pol-gone" } };
    const linted = lintWorld(world([staging, bad, catchAll]));
    const rules = linted.filter((l) => l.base.startsWith("$.entitlementConfigurationRules"));
    expect(rules.map((l) => [l.id, l.findings.map((f) => [f.code, f.path])])).toEqual([
      ["ecr-staging", []],
      [
        "ecr-bad",
        [
          ["CEL_TYPE_ERROR", "$.entitlementConfigurationRules[1].condition"],
          ["DANGLING_POLICY_ID", "$.entitlementConfigurationRules[1].settings.requestPolicyId"],
          ["DANGLING_POLICY_ID", "$.entitlementConfigurationRules[1].settings.emergencyGrantPolicyId"],
        ],
      ],
      ["ecr-all", []],
    ]);
  });
});

describe("product_admin_entitlement-config-rules.mdx: the HTTP reads of configuration rules", () => {
  it("lists an app's rules in evaluation order (priority, then id) and gets one as routingRule", () => {
    const w = world();
    const list = listEntitlementConfigurationRules(w, "app-aws", page);
    expect(list.ok && (list.value as Body).list.map((r: Body) => [r.id, r.priority])).toEqual([
      ["ecr-all", 1],
      ["ecr-staging", 2],
    ]);
    const one = getEntitlementConfigurationRule(w, "app-aws", "ecr-staging");
    expect(one.ok && (one.value as Body).routingRule).toMatchObject({ id: "ecr-staging", appId: "app-aws", enabled: true, settings: { requestPolicyId: "pol-prod-admin-eng", maxGrantDuration: null } });
    expect(getEntitlementConfigurationRule(w, "app-github", "ecr-staging").ok).toBe(false);
    const none = listEntitlementConfigurationRules(w, "app-github", page);
    expect(none.ok && (none.value as Body).list).toEqual([]);
  });
});
