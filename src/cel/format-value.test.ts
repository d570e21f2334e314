import { Duration } from "@marcbachmann/cel-js/evaluator";
import { describe, expect, it } from "vitest";
import { APP_USER_TYPE, enumValue } from "./enums.js";
import { formatCelValue } from "./format-value.js";
import { parseIp, parsePrefix, CIDR } from "./net.js";
import { tenant } from "./test-fixtures.js";
import { CelEntitlementResource, CelRiskScore, CelSecurityInsight, CelUserCache } from "./values.js";

describe("formatCelValue", () => {
  it("writes values as CEL source", () => {
    expect(formatCelValue("a\"b")).toBe('"a\\"b"');
    expect(formatCelValue(5n)).toBe("5");
    expect(formatCelValue(5)).toBe("5.0");
    expect(formatCelValue(0.25)).toBe("0.25");
    expect(formatCelValue(true)).toBe("true");
    expect(formatCelValue(null)).toBe("null");
    expect(formatCelValue(["a", 1n, [2]])).toBe('["a", 1, [2.0]]');
    expect(formatCelValue({ k: "v" })).toBe('{"k": "v"}');
    expect(formatCelValue(new Date("2026-11-22T09:00:00Z"))).toBe('timestamp("2026-11-22T09:00:00Z")');
    expect(formatCelValue(new Duration(5400n, 0))).toBe('duration("5400s")');
    expect(formatCelValue(enumValue(APP_USER_TYPE, "APP_USER_TYPE_USER"))).toBe("AppUserType.USER");
    expect(formatCelValue(new CelUserCache().get(tenant.ada, tenant.directory))).toBe('User("u-ada", "ada@northwind.example")');
    expect(formatCelValue(parseIp("10.0.0.1"))).toBe('ip("10.0.0.1")');
    const p = parsePrefix("10.0.0.0/8");
    if (p) expect(formatCelValue(new CIDR([p]))).toBe('cidr("10.0.0.0/8")');
  });

  it("writes external insights and an entitlement's role or scope by what identifies them (product_admin_external-insights.mdx)", () => {
    expect(formatCelValue(new CelRiskScore("CrowdStrike", 72n))).toBe('RiskScore("CrowdStrike", 72)');
    expect(formatCelValue(new CelSecurityInsight("Wiz Insights", "3 Critical CVEs", "CRITICAL"))).toBe('SecurityInsight("Wiz Insights", "CRITICAL", "3 Critical CVEs")');
    expect(formatCelValue(new CelEntitlementResource({ id: "SCOPE_RESOURCE_ID", displayName: "prod-orders", appResourceTypeId: "production_database" }))).toBe('EntitlementResource("SCOPE_RESOURCE_ID")');
    expect(formatCelValue(new Map([["CrowdStrike", 72n]]))).toBe('{"CrowdStrike": 72}');
  });

  it("shortens long values", () => {
    expect(formatCelValue(Array.from({ length: 12 }, (_, i) => BigInt(i)))).toBe("[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, … 2 more]");
    expect(formatCelValue("x".repeat(500)).length).toBeLessThan(210);
  });
});
