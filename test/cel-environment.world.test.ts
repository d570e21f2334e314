/**
 * The documented CEL environment seen through a world file: what the world carries (accounts' risk
 * scores and issue insights, entitlements' annotations, role and scope) reaches rule conditions,
 * the decision follows it, and saving the world keeps it.
 */
import { describe, expect, it } from "vitest";
import { explain, type Explanation, loadWorld, saveWorld } from "policy-sim";

type Json = Record<string, unknown>;

const users: Json[] = [
  { id: "u-ada", email: "ada@northwind.example", displayName: "Ada Lovelace", department: "Engineering", status: "ENABLED", type: "USER_TYPE_HUMAN", managerIds: ["u-bob"], roleIds: ["user"] },
  { id: "u-cy", email: "cy@contractors.example", displayName: "Cy Young", department: "Engineering", status: "ENABLED", type: "USER_TYPE_HUMAN", managerIds: ["u-bob"], roleIds: ["user"] },
  { id: "u-bob", email: "bob@northwind.example", displayName: "Bob Babbage", department: "Engineering", status: "ENABLED", type: "USER_TYPE_HUMAN", roleIds: ["user"] },
];

const entitlements: Json[] = [
  {
    id: "ent-prod-admin", appId: "app-gcp", displayName: "Admin", appResourceTypeId: "role", appResourceId: "res-admin", riskLevelValueId: "high", grantPolicyId: "pol-risk",
    annotations: { managed_by: "terraform", iac_workspace: "prod" },
    role: { id: "ROLE_RESOURCE_ID", displayName: "Admin", appResourceTypeId: "role" },
    scope: { id: "SCOPE_RESOURCE_ID", displayName: "prod-orders", appResourceTypeId: "production_database" },
  },
];

const appUsers: Json[] = [
  {
    id: "au-ada", appId: "app-gcp", identityUserId: "u-ada", displayName: "ada", email: "ada@northwind.example", username: "ada", appUserType: "APP_USER_TYPE_USER",
    status: { status: "APP_USER_STATUS_ENABLED", details: "" },
    riskScores: [{ source: "CrowdStrike", normalizedScore: 82 }],
    securityInsights: [{ source: "Wiz Insights", value: "3 Critical CVEs", severity: "CRITICAL" }],
  },
  {
    id: "au-cy", appId: "app-gcp", identityUserId: "u-cy", displayName: "cy", email: "cy@contractors.example", username: "cy", appUserType: "APP_USER_TYPE_USER",
    status: { status: "APP_USER_STATUS_DISABLED", details: "" },
    riskScores: [{ source: "CrowdStrike", normalizedScore: 12 }],
  },
];

/** One rule per documented condition, in the order the external-insights page suggests: deny the risky first. */
const policy: Json = {
  id: "pol-risk", displayName: "Risk-aware access", policyType: "POLICY_TYPE_GRANT",
  policySteps: {
    grant: { steps: [{ accept: { acceptMessage: "baseline" } }] },
    deny: { steps: [{ reject: { rejectMessage: "critical findings" } }] },
    auto: { steps: [{ accept: { acceptMessage: "low risk" } }] },
  },
  rules: [
    { condition: 'c1.app_user.v1.HasSecurityInsightWithSeverity(account, "Wiz Insights", "CRITICAL")', stepKey: "deny" },
    { condition: '"CrowdStrike" in account.risk_score && account.risk_score["CrowdStrike"] <= 20 && c1.user.v1.GetAppUserStatus(subject, "app-gcp") == "USER_STATUS_DISABLED"', stepKey: "auto" },
  ],
};

function world(extra: Json = {}) {
  const loaded = loadWorld({
    version: 1,
    now: "2026-11-22T09:00:00Z",
    tenant: { featureFlags: {} },
    users,
    apps: [{ id: "app-gcp", displayName: "GCP", ownerUserIds: ["u-bob"] }],
    entitlements,
    appUsers,
    policies: [policy],
    tasks: [
      { id: "t-ada", numericId: "1", state: "TASK_STATE_OPEN", userId: "u-ada", createdByUserId: "u-ada", createdAt: "2026-11-22T08:00:00Z", type: { grant: { appId: "app-gcp", appEntitlementId: "ent-prod-admin", identityUserId: "u-ada" } } },
      { id: "t-cy", numericId: "2", state: "TASK_STATE_OPEN", userId: "u-cy", createdByUserId: "u-cy", createdAt: "2026-11-22T08:00:00Z", type: { grant: { appId: "app-gcp", appEntitlementId: "ent-prod-admin", identityUserId: "u-cy" } } },
    ],
    ...extra,
  });
  if (!loaded.ok) throw new Error(loaded.error.map((d) => `${d.path}: ${d.message}`).join("\n"));
  return loaded.value;
}

const decided = (e: Explanation): string => (e.result.kind === "selected" && e.result.decidedBy.kind === "rule" ? `rule ${e.result.decidedBy.ruleIndex}` : e.result.kind === "selected" ? e.result.decidedBy.kind : e.result.kind);

function explained(taskId: string, w = world()): Explanation {
  const e = explain(w, taskId);
  if (!e.ok) throw new Error(e.error.message);
  return e.value;
}

describe("product_admin_external-insights.mdx: a world's risk scores and issue insights decide the route", () => {
  it("Ada's critical Wiz finding denies; Cy's low CrowdStrike score on a disabled account auto-approves", () => {
    expect(decided(explained("t-ada"))).toBe("rule 0");
    expect(decided(explained("t-cy"))).toBe("rule 1");
    expect(explained("t-cy").rules.map((r) => r.conditionMatched)).toEqual([false, true]);
  });

  it("saving the world keeps the accounts' scores and insights and the entitlement's annotations, role and scope", () => {
    const saved = saveWorld(world());
    const again = loadWorld(JSON.parse(JSON.stringify(saved)) as unknown);
    expect(again.ok).toBe(true);
    const text = JSON.stringify(saved);
    for (const piece of ['"normalizedScore":82', '"severity":"CRITICAL"', '"managed_by":"terraform"', '"SCOPE_RESOURCE_ID"']) expect(text).toContain(piece);
    if (again.ok) expect(decided(explained("t-ada", again.value))).toBe("rule 0");
  });

  it("reports a malformed score with its path", () => {
    const r = loadWorld({ version: 1, users, apps: [{ id: "app-gcp" }], appUsers: [{ id: "au-x", appId: "app-gcp", identityUserId: "u-ada", riskScores: [{ source: "CrowdStrike", normalizedScore: "high" }] }] });
    expect(r.ok ? [] : r.error.map((d) => d.path)).toContain("$.appUsers[0].riskScores[0].normalizedScore");
  });
});

describe("product_admin_expressions-reference.mdx: entitlement annotations, role and scope in rule conditions", () => {
  it("a rule on an annotation and on the cloud scope matches the annotated production entitlement", () => {
    const rules = [{ condition: 'entitlement.annotations["managed_by"] == "terraform" && entitlement.scope.display_name.startsWith("prod-")', stepKey: "auto" }];
    const w = world({ policies: [{ ...policy, rules }] });
    expect(decided(explained("t-cy", w))).toBe("rule 0");
  });
});

describe("product_admin_expressions-reference.mdx: task.analysis from the world", () => {
  it("a task's analysis (data.analysis.conflictViolations) gives hasConflictViolations and the conflict ids", () => {
    const rules = [{ condition: 'task.analysis.hasConflictViolations && "conflict123" in task.analysis.conflictViolations && task.analysis.id == "an-1"', stepKey: "deny" }];
    const tasks = [
      { id: "t-ada", numericId: "1", state: "TASK_STATE_OPEN", userId: "u-ada", createdByUserId: "u-ada", createdAt: "2026-11-22T08:00:00Z", analysisId: "an-1", data: { analysis: { conflictViolations: ["conflict123"] } }, type: { grant: { appId: "app-gcp", appEntitlementId: "ent-prod-admin", identityUserId: "u-ada" } } },
      { id: "t-cy", numericId: "2", state: "TASK_STATE_OPEN", userId: "u-cy", createdByUserId: "u-cy", createdAt: "2026-11-22T08:00:00Z", analysisId: "an-1", type: { grant: { appId: "app-gcp", appEntitlementId: "ent-prod-admin", identityUserId: "u-cy" } } },
    ];
    const w = world({ policies: [{ ...policy, rules }], tasks });
    expect(decided(explained("t-ada", w))).toBe("rule 0");
    expect(decided(explained("t-cy", w))).toBe("baseline");
  });
});

describe("product_admin_external-insights.mdx: a target with no account in the app", () => {
  it("reads as an empty account: no score (the unmanaged-device deny matches), no insight, nothing fails", () => {
    const rules = [
      { condition: 'c1.app_user.v1.HasSecurityInsight(account) || c1.app_user.v1.HasRiskScore(account)', stepKey: "auto" },
      { condition: '!("CrowdStrike" in account.risk_score) && c1.app_user.v1.GetRiskScore(account, "CrowdStrike").normalized_score == 0', stepKey: "deny" },
    ];
    const tasks = [{ id: "t-bob", numericId: "3", state: "TASK_STATE_OPEN", userId: "u-bob", createdByUserId: "u-bob", createdAt: "2026-11-22T08:00:00Z", type: { grant: { appId: "app-gcp", appEntitlementId: "ent-prod-admin", identityUserId: "u-bob" } } }];
    const e = explained("t-bob", world({ policies: [{ ...policy, rules }], tasks }));
    expect(decided(e)).toBe("rule 1");
    expect(e.rules.map((r) => r.error)).toEqual(["", ""]);
  });
});
