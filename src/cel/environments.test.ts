import { describe, expect, it } from "vitest";
import { checkApproverExpression, checkCondition, compileCondition } from "./compile.js";
import { ENVIRONMENT_SPECS } from "./environment.js";
import { evaluateCondition, prepareConfigRuleInput } from "./evaluate.js";
import { makeEntitlement } from "./test-fixtures.js";

const NOW = "2026-11-22T09:00:00Z";

/** A cloud infrastructure entitlement: the Admin role on a production database. */
const prodDbAdmin = makeEntitlement({
  id: "ent-prod-db-admin",
  appId: "app-gcp",
  displayName: "Admin",
  appResourceTypeId: "role",
  appResourceId: "res-role-admin",
  riskLevelValueId: "high",
  role: { id: "ROLE_RESOURCE_ID", displayName: "Admin", appResourceTypeId: "role" },
  scope: { id: "SCOPE_RESOURCE_ID", displayName: "prod-orders", appResourceTypeId: "production_database" },
});

/** A classic entitlement: a group. */
const groupMember = makeEntitlement({ id: "ent-eng", appId: "app-okta", displayName: "prod-engineers", appResourceTypeId: "group", appResourceId: "grp-eng" });

function matches(source: string, entitlement = prodDbAdmin): boolean | string {
  const c = compileCondition(source, "config-rule");
  if (!c.ok) return c.error.map((d) => d.message).join("; ");
  const p = prepareConfigRuleInput({ entitlement, now: NOW });
  if (!p.ok) return p.error.message;
  const r = evaluateCondition(c.value, p.value);
  return r.ok ? r.value : r.error.message;
}

describe("three environments, each with its own declarations (product_admin_expressions.mdx, product_admin_expressions-reference.mdx)", () => {
  it("declares subject, account and ip for rule conditions and approvers (product_admin_expressions-reference.mdx: account \"Policies only\", ip \"Policies, Automations\"; product_admin_expressions.mdx: policies are conditions and step approvers), appOwners for approvers only, only entitlement for configuration rules", () => {
    expect(Object.keys(ENVIRONMENT_SPECS.condition.variables).sort()).toEqual(["account", "entitlement", "ip", "subject", "task", "user"]);
    expect(Object.keys(ENVIRONMENT_SPECS.approver.variables).sort()).toEqual(["account", "appOwners", "campaignOwners", "entitlement", "ip", "subject", "task", "user"]);
    expect(Object.keys(ENVIRONMENT_SPECS["config-rule"].variables)).toEqual(["entitlement"]);
  });

  it("checkCondition checks in the environment it is given; one argument is the rule-condition environment", () => {
    expect(checkCondition("account.username != ''")).toEqual([]);
    expect(checkCondition("account.username != ''", "condition")).toEqual([]);
    expect(checkCondition("account.username != ''", "config-rule")).toMatchObject([{ code: "CEL_UNDECLARED_REFERENCE", message: "undeclared reference to 'account'" }]);
    expect(checkCondition("account.username != '' ? appOwners : [subject]", "approver")).toEqual([]);
    expect(checkCondition("ip.isPrivate() ? [subject] : appOwners", "approver")).toEqual([]);
    expect(checkCondition("appOwners", "approver")).toEqual([]);
    expect(checkCondition("appOwners", "approver")).toEqual(checkApproverExpression("appOwners"));
    expect(checkCondition("appOwners")).toMatchObject([{ code: "CEL_UNDECLARED_REFERENCE" }]);
    expect(checkCondition('subject.department == "IT"', "config-rule")).toMatchObject([{ code: "CEL_UNDECLARED_REFERENCE" }]);
    expect(checkCondition("entitlement.display_name", "config-rule")).toMatchObject([{ code: "CEL_NOT_BOOL" }]);
    // "Leave the condition empty to create a catch-all default rule" (product_admin_entitlement-config-rules.mdx).
    expect(checkCondition("", "config-rule")).toEqual([]);
    expect(checkCondition("  \n", "config-rule")).toEqual([]);
    expect(checkCondition("", "condition").map((d) => d.code)).toEqual(["CEL_SYNTAX"]);
  });

  it("external-insights functions are policy-condition functions only (product_admin_external-insights.mdx)", () => {
    const source = 'c1.app_user.v1.HasRiskScore(account)';
    expect(checkCondition(source)).toEqual([]);
    expect(checkCondition(`${source} ? appOwners : []`, "approver")[0]?.code).toBe("CEL_UNDECLARED_REFERENCE");
  });

  it("configuration rules have no directory functions but keep the time functions", () => {
    expect(checkCondition('size(c1.directory.users.v1.GetManagers(entitlement)) > 0', "config-rule")).toMatchObject([
      { code: "CEL_UNDECLARED_REFERENCE", message: "undeclared reference to 'c1.directory.users.v1.GetManagers'" },
    ]);
    expect(matches('time.format(now(), "date") == "2026-11-22"')).toBe(true);
  });
});

describe("product_admin_entitlement-config-rules.mdx: rule conditions see the entitlement, its role and its scope", () => {
  it.each([
    ['entitlement.display_name == "Admin"', true, false],
    ['entitlement.app_resource_type_id == "group"', false, true],
    ['entitlement.display_name.startsWith("prod-")', false, true],
    ['entitlement.role.display_name.contains("Admin")', true, false],
    ['entitlement.scope.app_resource_type_id == "production_database"', true, false],
    ['entitlement.role.display_name.contains("Admin")\n  && entitlement.scope.display_name.startsWith("prod-")', true, false],
    ['entitlement.role.id == "ROLE_RESOURCE_ID" && entitlement.scope.id == "SCOPE_RESOURCE_ID"', true, false],
    ['entitlement.scope.id != ""', true, false],
    ['entitlement.app_resource_type_id in ["group", "role"]', true, true],
    ['entitlement.risk_level_value_id == "high"', true, false],
    ['entitlement.app_resource_id == "grp-eng" || entitlement.role.app_resource_type_id == "role"', true, true],
    ['entitlement.scope.display_name.endsWith("orders") && entitlement.scope.display_name != ""', true, false],
  ])("%s (cloud: %s, classic: %s)", (source, cloud, classic) => {
    expect(matches(source, prodDbAdmin)).toBe(cloud);
    expect(matches(source, groupMember)).toBe(classic);
  });

  it("entitlement.description: the API's AppEntitlement.description (kept among a world entitlement's other fields), \"\" when it has none", () => {
    const described = makeEntitlement({ id: "ent-prod", appId: "app-okta", displayName: "prod-admins", $unknown: { description: "Admin access to prod" } });
    expect(matches('entitlement.description.contains("prod")', described)).toBe(true);
    expect(matches('entitlement.description == ""', groupMember)).toBe(true);
    expect(checkCondition('entitlement.description.startsWith("Admin")')).toEqual([]);
  });

  it("a classic entitlement's role and scope are empty: every string field is \"\"", () => {
    expect(matches('entitlement.role.display_name == "" && entitlement.role.id == "" && entitlement.scope.app_resource_type_id == ""', groupMember)).toBe(true);
  });

  it("a condition of the rule-condition environment does not check as a configuration rule", () => {
    expect(compileCondition('task.origin == TaskOrigin.API', "config-rule").ok).toBe(false);
    expect(prepareConfigRuleInput({ entitlement: prodDbAdmin, now: "yesterday" })).toMatchObject({ ok: false, error: { code: "CEL_INVALID_INPUT" } });
  });
});

describe("integer literals beyond int64 are refused at check time, as cel-go refuses them (issue 15)", () => {
  it.each([["99999999999999999999 > 0"], ["9223372036854775808 == 1"], ["0x8000000000000000 > 0"], ["-(9223372036854775808) < 0"], ["[1, 99999999999999999999][0] == 1"]])("%s", (source) => {
    expect(checkCondition(source)).toMatchObject([{ code: "CEL_SYNTAX" }]);
    expect(checkCondition(source)[0]?.message).toMatch(/beyond the range of int64/);
  });

  it("keeps the extremes of int64 and uint64, and refuses uint64 beyond it", () => {
    expect(checkCondition("9223372036854775807 > 0 && -9223372036854775808 < 0 && - 9223372036854775808 < 0")).toEqual([]);
    expect(checkCondition("18446744073709551615u > 0u")).toEqual([]);
    expect(checkCondition("18446744073709551616u > 0u")).toMatchObject([{ code: "CEL_SYNTAX" }]);
    expect(checkCondition("entitlement.display_name == '99999999999999999999'")).toEqual([]);
  });
});

describe("cel-go's strings extension, as the service's expressions use it", () => {
  const value = (source: string): boolean | string => {
    const c = compileCondition(source, "config-rule");
    if (!c.ok) return c.error.map((d) => d.message).join("; ");
    const p = prepareConfigRuleInput({ entitlement: groupMember, now: NOW });
    const r = p.ok ? evaluateCondition(c.value, p.value) : p;
    return r.ok ? r.value : r.error.code;
  };
  it.each([
    ['entitlement.display_name.replace("-", "_") == "prod_engineers"'],
    ['"a.b.c".replace(".", "/", 1) == "a/b.c" && "a.b.c".replace(".", "/", -1) == "a/b/c" && "a.b.c".replace(".", "/", 0) == "a.b.c"'],
    ['"abc".replace("", "-") == "-a-b-c-" && "".replace("", "x") == "x"'],
    ['"héllo".charAt(1) == "é" && "abc".charAt(3) == ""'],
    ['"héllo".reverse() == "olléh"'],
    ['entitlement.display_name.split("-")[0] == "prod" && entitlement.display_name.upperAscii() == "PROD-ENGINEERS"'],
  ])("%s", (source) => expect(value(source)).toBe(true));

  it("charAt beyond the end is an error, as in cel-go", () => {
    expect(value('"abc".charAt(4) == ""')).toBe("CEL_INVALID_ARGUMENT");
  });
});

describe("properties", () => {
  it("an int literal checks exactly when it fits int64, with or without its minus sign", async () => {
    const fc = await import("fast-check");
    const INT64_MAX = 9223372036854775807n;
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 70n }), fc.boolean(), (n, negative) => {
        const source = `${negative ? "-" : ""}${n.toString()} != 1`;
        const fits = negative ? n <= INT64_MAX + 1n : n <= INT64_MAX;
        expect(checkCondition(source).length === 0).toBe(fits);
      }),
      { numRuns: 200 },
    );
  });

  it("a layout name formats as the layout it names, in any case and at any instant", async () => {
    const fc = await import("fast-check");
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4102444800 }), fc.constantFrom("date", "DATE", "Date", "datetime", "DateTime", "rfc3339", "RFC3339", "time", "TIME"), (seconds, name) => {
        const constant = name.toUpperCase();
        expect(matches(`time.format(time.unix(${seconds}), "${name}", "Europe/Berlin") == time.format(time.unix(${seconds}), TimeFormat.${constant}, "Europe/Berlin")`)).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});
