/**
 * Golden scenarios for "which policy applies and why": every resolution source of every task type,
 * every outcome kind, reference chains and each of their errors, the references flag, run-time
 * condition errors, enums in both forms, snake_case aliases, directory functions and time
 * functions at fixed clocks across time zones. Each scenario builds a small tenant and asserts on
 * the explanation (the same decision Hard Reset acts on).
 */
import { describe, expect, it } from "vitest";
import { explain, type Explanation, formatExplanation, hardReset, loadWorld } from "policy-sim";

type Json = Record<string, unknown>;

const users: Json[] = [
  {
    id: "u-alice", email: "alice@acme.example", emails: ["alice@acme.example", "a.l@acme.example"], displayName: "Alice Liddell",
    username: "alice", department: "Engineering", jobTitle: "Staff Engineer", employmentType: "Full Time", status: "ENABLED",
    type: "USER_TYPE_HUMAN", managerIds: ["u-bob"], profile: { clearance: "high", level: 7 }, roleIds: ["user"],
  },
  { id: "u-bob", email: "bob@acme.example", displayName: "Bob Stone", department: "Engineering", jobTitle: "Engineering Manager", employmentType: "Full Time", status: "ENABLED", type: "USER_TYPE_HUMAN", roleIds: ["user"] },
  { id: "u-carol", email: "carol@acme.example", displayName: "Carol Ng", department: "Sales", jobTitle: "Account Executive", employmentType: "Contractor", status: "DISABLED", type: "USER_TYPE_HUMAN", managerIds: ["u-bob"], roleIds: ["user"] },
  { id: "u-bot", email: "bot@acme.example", displayName: "Deploy Bot", department: "", status: "ENABLED", type: "USER_TYPE_SERVICE", roleIds: ["user"] },
  { id: "u-root", email: "root@acme.example", displayName: "Root", status: "ENABLED", type: "USER_TYPE_HUMAN", roleIds: ["super-admin"] },
];

const baseApps: Json[] = [{ id: "app-a", displayName: "App A", ownerUserIds: ["u-bob"] }, { id: "app-b", displayName: "App B" }];
const baseEntitlements: Json[] = [
  { id: "ent-a", appId: "app-a", displayName: "Admin", appResourceTypeId: "rt-role", riskLevelValueId: "high" },
  { id: "ent-mfa", appId: "app-b", displayName: "MFA", appResourceTypeId: "rt-group", riskLevelValueId: "low", ownerUserIds: ["u-bob"] },
];
const grants: Json[] = [
  { appId: "app-b", appEntitlementId: "ent-mfa", identityUserId: "u-alice", source: "direct" },
  { appId: "app-b", appEntitlementId: "ent-mfa", identityUserId: "u-carol", source: "automatic-enrollment" },
];

type Rule = { condition: string; stepKey?: string; policyId?: string; policyKey?: string };

/** A policy whose every step sequence is one accept step named after the policy and key, so the selection is visible. */
function policy(id: string, rules: Rule[] = [], opts: { type?: string; keys?: string[]; baselinePolicyId?: string; baseline?: boolean } = {}): Json {
  const type = opts.type ?? "POLICY_TYPE_GRANT";
  const baseKey = type.replace("POLICY_TYPE_", "").toLowerCase();
  const steps: Json = {};
  const seq = (key: string) => ({ steps: [{ accept: { acceptMessage: `${id}/${key}` } }] });
  if (!opts.baselinePolicyId && opts.baseline !== false) steps[baseKey] = seq(baseKey);
  for (const k of opts.keys ?? rules.map((r) => r.stepKey ?? r.policyKey ?? "").filter(Boolean)) steps[k] = seq(k);
  return {
    id, displayName: id, policyType: type, policySteps: steps,
    rules: rules.map((r) => ({ condition: r.condition, stepKey: r.stepKey ?? "", policyId: r.policyId ?? "", policyKey: r.policyKey ?? "" })),
    baselinePolicyId: opts.baselinePolicyId ?? "",
  };
}

function grantTask(over: Json = {}, type: Json = {}): Json {
  return {
    id: "t-1", numericId: "1", displayName: "Grant Admin", state: "TASK_STATE_OPEN", origin: "TASK_ORIGIN_WEBAPP",
    userId: "u-alice", createdByUserId: "u-alice", createdAt: "2026-11-20T08:00:00Z",
    type: { grant: { appId: "app-a", appEntitlementId: "ent-a", identityUserId: "u-alice", grantDuration: "28800s", ...type } },
    ...over,
  };
}

interface Setup {
  readonly policies: Json[];
  readonly task?: Json;
  readonly apps?: Json[];
  readonly entitlements?: Json[];
  readonly tenant?: Json;
  readonly now?: string;
  readonly resourceTypeDefaults?: Json[];
  readonly accessReviews?: Json[];
  readonly groups?: Json[];
}

function run(s: Setup): Explanation {
  const loaded = loadWorld({
    version: 1,
    now: s.now ?? "2026-11-22T09:00:00Z",
    tenant: s.tenant ?? { featureFlags: { POLICY_REFERENCES_POLICY: true } },
    users,
    apps: s.apps ?? baseApps,
    entitlements: s.entitlements ?? baseEntitlements,
    grants,
    groups: s.groups ?? [{ id: "g-sec", appId: "app-b", displayName: "Security", memberUserIds: ["u-bob"] }],
    resourceTypeDefaults: s.resourceTypeDefaults ?? [],
    accessReviews: s.accessReviews ?? [],
    policies: s.policies,
    tasks: [s.task ?? grantTask()],
  });
  if (!loaded.ok) throw new Error(loaded.error.map((d) => `${d.path}: ${d.message}`).join("\n"));
  const e = explain(loaded.value, "1");
  if (!e.ok) throw new Error(e.error.message);
  // Every explanation renders, and the same input explains the same way.
  expect(formatExplanation(e.value)).toContain("Task 1");
  expect(explain(loaded.value, "1")).toEqual(e);
  return e.value;
}

const app = (over: Json): Json[] => [{ ...baseApps[0], ...over }, baseApps[1] as Json];
const ent = (over: Json): Json[] => [{ ...baseEntitlements[0], ...over }, baseEntitlements[1] as Json];
const source = (e: Explanation) => (e.resolution.ok ? `${e.resolution.source}:${e.resolution.policyId}` : e.resolution.code);
const decided = (e: Explanation) => (e.result.kind === "selected" ? e.result.decidedBy : e.result);
/** The selection as `policy/key`, via the accept message of the selected sequence. */
const picked = (e: Explanation) => (e.result.kind === "selected" ? e.result.steps[0]?.detail.replace(/^accept "(.*)"$/, "$1") : `${e.result.kind}:${"code" in e.result ? e.result.code : ""}`);
/** A one-rule grant policy on the entitlement whose condition is `cond`: "yes" when it matches. */
const probe = (condition: string, extra: Partial<Setup> = {}): Explanation =>
  run({ policies: [policy("p", [{ condition, stepKey: "yes" }])], entitlements: ent({ grantPolicyId: "p" }), ...extra });
const matched = (e: Explanation) => picked(e) === "p/yes";
const ruleError = (e: Explanation) => e.rules[0]?.error ?? "";

describe("resolution: grant", () => {
  const all = { policies: ["pol-emerg", "pol-ent", "pol-rt", "pol-app", "pol-default"].map((id) => policy(id)), tenant: { defaultPolicies: { grant: "pol-default" }, featureFlags: {} } };
  it("emergency: an emergency task on an entitlement with emergency grants", () => {
    const e = run({ ...all, entitlements: ent({ emergencyGrantEnabled: true, emergencyGrantPolicyId: "pol-emerg", grantPolicyId: "pol-ent" }), task: grantTask({ emergencyAccess: true }) });
    expect(source(e)).toBe("emergency:pol-emerg");
    expect(e.resolution.checks.map((c) => c.status)).toEqual(["used", "notReached", "notReached", "notReached", "notReached", "notReached"]);
  });
  it("an emergency task whose entitlement does not enable emergency grants uses the entitlement's policy", () => {
    const e = run({ ...all, entitlements: ent({ emergencyGrantPolicyId: "pol-emerg", grantPolicyId: "pol-ent" }), task: grantTask({ emergencyAccess: true }) });
    expect(source(e)).toBe("entitlement:pol-ent");
    expect(e.resolution.checks[0]).toMatchObject({ source: "emergency", status: "notApplicable" });
  });
  it("entitlement", () => expect(source(run({ ...all, entitlements: ent({ grantPolicyId: "pol-ent" }), apps: app({ grantPolicyId: "pol-app" }) }))).toBe("entitlement:pol-ent"));
  it("the app's request default for the entitlement's resource type", () => {
    const e = run({ ...all, apps: app({ grantPolicyId: "pol-app" }), resourceTypeDefaults: [{ appId: "app-a", resourceTypeIds: ["rt-role"], requestPolicyId: "pol-rt" }] });
    expect(source(e)).toBe("resourceTypeDefault:pol-rt");
    expect(e.resolution.checks[1]).toMatchObject({ source: "entitlement", status: "empty" });
  });
  it("request defaults are skipped when the entitlement overrides them", () => {
    const e = run({ ...all, entitlements: ent({ overrideAccessRequestsDefaults: true }), apps: app({ grantPolicyId: "pol-app" }), resourceTypeDefaults: [{ appId: "app-a", resourceTypeIds: ["rt-role"], requestPolicyId: "pol-rt" }] });
    expect(source(e)).toBe("app:pol-app");
  });
  it("app", () => expect(source(run({ ...all, apps: app({ grantPolicyId: "pol-app" }) }))).toBe("app:pol-app"));
  it("tenant default", () => expect(source(run(all))).toBe("tenantDefault:pol-default"));
  it("a source naming a missing policy is reported and passed over", () => {
    const policies = all.policies.filter((p) => p["id"] !== "pol-ent");
    const loaded = loadWorld({ version: 1, now: "2026-11-22T09:00:00Z", users, apps: app({ grantPolicyId: "pol-app" }), entitlements: ent({ grantPolicyId: "pol-gone" }), policies, tasks: [grantTask()], tenant: all.tenant }, { strict: false });
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    const e = explain(loaded.value, "1");
    expect(e.ok && source(e.value)).toBe("app:pol-app");
    expect(e.ok && e.value.resolution.checks[1]).toMatchObject({ source: "entitlement", status: "missing", policyId: "pol-gone" });
  });
  it("no source names a policy: NO_POLICY, and Hard Reset refuses with FAILED_PRECONDITION", () => {
    const e = run({ policies: [policy("unused")] });
    expect(source(e)).toBe("NO_POLICY");
    expect(e.result.kind).toBe("noPolicy");
    const loaded = loadWorld({ version: 1, users, apps: baseApps, entitlements: baseEntitlements, policies: [policy("unused")], tasks: [grantTask()] });
    expect(loaded.ok && hardReset(loaded.value, { taskId: "1" }, { actorId: "u-root" })).toMatchObject({ ok: false, error: { code: "FAILED_PRECONDITION" } });
  });
});

describe("resolution: revoke, certify, offboarding, action, finding", () => {
  const revokeTask = grantTask({}, {});
  revokeTask["type"] = { revoke: { appId: "app-a", appEntitlementId: "ent-a", identityUserId: "u-alice" } };
  const cpols = ["c-ent", "c-app", "c-rev", "c-def"].map((id) => policy(id, [], { type: "POLICY_TYPE_CERTIFY" }));
  // One set of policies for every scenario here, so the tenant defaults always resolve.
  const pols = [
    ...["r-ent", "r-app", "r-def"].map((id) => policy(id, [], { type: "POLICY_TYPE_REVOKE" })),
    ...cpols,
    policy("o-def", [], { type: "POLICY_TYPE_PROVISION" }),
    policy("f-def", [], { type: "POLICY_TYPE_ACCESS_REQUEST" }),
  ];
  const tenant = { defaultPolicies: { revoke: "r-def", certify: "c-def", offboarding: "o-def", finding: "f-def" }, featureFlags: {} };
  it("revoke: entitlement", () => expect(source(run({ policies: pols, tenant, task: revokeTask, entitlements: ent({ revokePolicyId: "r-ent" }), apps: app({ revokePolicyId: "r-app" }) }))).toBe("entitlement:r-ent"));
  it("revoke: app", () => expect(source(run({ policies: pols, tenant, task: revokeTask, apps: app({ revokePolicyId: "r-app" }) }))).toBe("app:r-app"));
  it("revoke: tenant default", () => expect(source(run({ policies: pols, tenant, task: revokeTask }))).toBe("tenantDefault:r-def"));

  const cert = (review: string): Json => ({ ...grantTask(), type: { certify: { appId: "app-a", appEntitlementId: "ent-a", identityUserId: "u-alice", accessReviewId: review } } });
  const reviews = [{ id: "ar-plain", policyId: "c-rev", usePolicyOverride: false }, { id: "ar-over", policyId: "c-rev", usePolicyOverride: true }];
  it("certify: the access review's policy when it does not use overrides", () => {
    const e = run({ policies: pols, tenant, task: cert("ar-plain"), accessReviews: reviews, entitlements: ent({ certifyPolicyId: "c-ent" }) });
    expect(source(e)).toBe("accessReview:c-rev");
    expect(e.resolution.checks[0]).toMatchObject({ source: "entitlement", status: "notApplicable" });
  });
  it("certify with override: the entitlement's policy", () => expect(source(run({ policies: pols, tenant, task: cert("ar-over"), accessReviews: reviews, entitlements: ent({ certifyPolicyId: "c-ent" }), apps: app({ certifyPolicyId: "c-app" }) }))).toBe("entitlement:c-ent"));
  it("certify with override: the app's policy", () => expect(source(run({ policies: pols, tenant, task: cert("ar-over"), accessReviews: reviews, apps: app({ certifyPolicyId: "c-app" }) }))).toBe("app:c-app"));
  it("certify with override: the review's policy last", () => expect(source(run({ policies: pols, tenant, task: cert("ar-over"), accessReviews: reviews }))).toBe("accessReview:c-rev"));
  it("certify naming its review only by accessReviewSelection (the spec: the id of the access review owning the task): that review's policy", () => {
    const task = { ...grantTask(), type: { certify: { appId: "app-a", appEntitlementId: "ent-a", identityUserId: "u-alice", accessReviewId: "", accessReviewSelection: "ar-plain" } } };
    expect(source(run({ policies: pols, tenant, task, accessReviews: reviews, entitlements: ent({ certifyPolicyId: "c-ent" }) }))).toBe("accessReview:c-rev");
  });
  it("certify without a review: the tenant default", () => expect(source(run({ policies: pols, tenant, task: cert("") }))).toBe("tenantDefault:c-def"));

  it("offboarding: the tenant default for offboarding", () => {
    const task = { ...grantTask(), type: { offboarding: { subjectUserId: "u-carol" } } };
    expect(source(run({ policies: pols, tenant, task }))).toBe("tenantDefault:o-def");
  });
  it("action without a tenant default: the policy the task already carries", () => {
    const snapshot = policy("a-snap", [], { type: "POLICY_TYPE_ACCESS_REQUEST" });
    const task = { ...grantTask(), type: { action: { actionId: "act-1", displayName: "Rotate key" } }, policy: { current: null, history: [], next: [], policy: snapshot } };
    const e = run({ policies: pols, tenant, task });
    expect(source(e)).toBe("taskSnapshot:a-snap");
    expect(picked(e)).toBe("a-snap/access_request");
  });
  it("finding: the tenant default for findings", () => {
    const task = { ...grantTask(), type: { finding: { findingId: "f-1", findingType: "stale-admin" } } };
    expect(source(run({ policies: pols, tenant, task }))).toBe("tenantDefault:f-def");
  });
});

describe("selection: outcomes, chains and their errors", () => {
  const on = (policies: Json[], root = "root") => run({ policies, entitlements: ent({ grantPolicyId: root }) });
  it("stepKey", () => expect(picked(on([policy("root", [{ condition: "false", stepKey: "k0" }, { condition: "true", stepKey: "k1" }])]))).toBe("root/k1"));
  it("legacy policyKey", () => {
    const e = on([policy("root", [{ condition: "true", policyKey: "old" }])]);
    expect(picked(e)).toBe("root/old");
    expect(decided(e)).toMatchObject({ kind: "rule", field: "policyKey" });
  });
  it("stepKey wins over a legacy policyKey on the same rule", () => expect(picked(on([policy("root", [{ condition: "true", stepKey: "new", policyKey: "old" }], { keys: ["new", "old"] })]))).toBe("root/new"));
  it("baseline when no rule matches", () => expect(decided(on([policy("root", [{ condition: "false", stepKey: "k" }])]))).toEqual({ kind: "baseline", policyId: "root", chainDepth: 0, stepKey: "grant" }));
  it("policyId: the referenced policy's rules, then its baseline", () => {
    const e = on([policy("root", [{ condition: "true", policyId: "mid" }]), policy("mid", [{ condition: "false", stepKey: "x" }])]);
    expect(picked(e)).toBe("mid/grant");
    expect(e.chain.map((l) => `${l.policyId}@${l.chainDepth}`)).toEqual(["root@0", "mid@1"]);
    expect(e.rules.map((r) => [r.policyId, r.ruleIndex, r.outcomePolicyId])).toEqual([["root", 0, "mid"], ["mid", 0, ""], ["mid", -1, ""]]);
  });
  it("baselinePolicyId, then a rule of the referenced policy", () => {
    const e = on([policy("root", [{ condition: "false", stepKey: "x" }], { baselinePolicyId: "base", keys: ["x"] }), policy("base", [{ condition: "true", stepKey: "b" }])]);
    expect(picked(e)).toBe("base/b");
    expect(e.chain[1]?.via).toEqual({ kind: "baselinePolicyId", fromPolicyId: "root" });
  });
  it("a chain of depth 5 is followed", () => {
    const chain = [0, 1, 2, 3, 4, 5].map((i) => policy(`p${i}`, i < 5 ? [{ condition: "true", policyId: `p${i + 1}` }] : []));
    expect(picked(on(chain, "p0"))).toBe("p5/grant");
  });
  it.each([
    ["CYCLE", [policy("root", [{ condition: "true", policyId: "b" }]), policy("b", [], { baselinePolicyId: "root" })], "root → b → root"],
    ["SELF_REFERENCE", [policy("root", [], { baselinePolicyId: "root" })], "refers to itself"],
    ["CHAIN_TOO_DEEP", [0, 1, 2, 3, 4, 5, 6].map((i) => policy(i === 0 ? "root" : `p${i}`, i < 6 ? [{ condition: "true", policyId: `p${i + 1}` }] : [])), "deeper than 5"],
    ["CROSS_TYPE", [policy("root", [{ condition: "true", policyId: "rev" }]), policy("rev", [], { type: "POLICY_TYPE_REVOKE" })], "another type"],
    ["MISSING_POLICY", [policy("root", [{ condition: "true", policyId: "ghost" }])], '"ghost"'],
    ["MISSING_STEP_KEY", [policy("root", [{ condition: "true", stepKey: "nope" }], { keys: [] })], '"nope"'],
    ["MISSING_BASELINE", [policy("root", [], { baseline: false })], 'baseline entry "grant"'],
  ])("%s is an error value naming the problem", (code, policies, mention) => {
    const e = on(policies as Json[]);
    expect(e.result).toMatchObject({ kind: "error", code });
    expect(e.result.kind === "error" && e.result.message).toContain(mention);
  });
});

describe("the POLICY_REFERENCES_POLICY flag", () => {
  const policies = [policy("root", [{ condition: "true", policyId: "other" }, { condition: "true", stepKey: "own" }]), policy("other")];
  it("off: a policyId rule is passed over with its reason, and evaluation goes on", () => {
    const e = run({ policies, entitlements: ent({ grantPolicyId: "root" }), tenant: { featureFlags: { POLICY_REFERENCES_POLICY: false } } });
    expect(picked(e)).toBe("root/own");
    expect(ruleError(e)).toContain("POLICY_REFERENCES_POLICY");
  });
  it("on: the reference is followed", () => expect(picked(run({ policies, entitlements: ent({ grantPolicyId: "root" }) }))).toBe("other/grant"));
  it("off: a baselinePolicyId cannot be followed (REFERENCES_DISABLED)", () => {
    const e = run({ policies: [policy("root", [], { baselinePolicyId: "other" }), policy("other")], entitlements: ent({ grantPolicyId: "root" }), tenant: { featureFlags: { POLICY_REFERENCES_POLICY: false } } });
    expect(e.result).toMatchObject({ kind: "error", code: "REFERENCES_DISABLED" });
  });
});

describe("conditions: run-time errors, enums, aliases", () => {
  it("a missing profile key is a run-time error: the rule does not match, the error is recorded, the next rule decides", () => {
    const e = run({ policies: [policy("p", [{ condition: 'subject.profile.costCenter == "CC-1"', stepKey: "a" }, { condition: "true", stepKey: "b" }])], entitlements: ent({ grantPolicyId: "p" }) });
    expect(picked(e)).toBe("p/b");
    expect(ruleError(e)).toMatch(/CEL_NO_SUCH_KEY/);
    const culprit = e.rules[0]?.trace?.nodes.find((n) => n.id === e.rules[0]?.trace?.culprit);
    expect(culprit?.outcome).toBe("error");
  });
  it("a condition that does not compile does not match and says why", () => {
    const e = probe("subject.departmnt == 'Engineering'");
    expect(matched(e)).toBe(false);
    expect(ruleError(e)).toContain("does not compile");
  });
  it.each([
    ["subject.status == UserStatus.ENABLED", true],
    ["subject.status == USER_STATUS_ENABLED", true],
    ["subject.status == UserStatus.DISABLED", false],
    ["subject.type == UserType.HUMAN", true],
    ["subject.type == USER_TYPE_SERVICE", false],
    ["task.origin == TaskOrigin.WEBAPP", true],
    ["task.origin == TASK_ORIGIN_WEBAPP", true],
    ["task.origin == TaskOrigin.COPILOT", false],
  ])("enum %s → %s", (condition, expected) => expect(matched(probe(condition))).toBe(expected));
  it.each([
    ['subject.job_title == "Staff Engineer"', true],
    ['subject.jobTitle == "Staff Engineer"', true],
    ['subject.employment_type == "Full Time"', true],
    ['subject.manager_id == "u-bob"', true],
    ['subject.managerId == "u-bob"', true],
    ['subject.manager == "bob@acme.example"', true],
    ['entitlement.risk_level_value_id == "high"', true],
    ['entitlement.riskLevelValueId == "high"', true],
    ['task.created_at == timestamp("2026-11-20T08:00:00Z")', true],
  ])("alias %s → %s", (condition, expected) => expect(matched(probe(condition))).toBe(expected));
  it("profile values and task fields", () => {
    expect(matched(probe('subject.profile.clearance == "high" && subject.profile.level > 5'))).toBe(true);
    expect(matched(probe('task.grantDuration == duration("8h") && !task.isGrantPermanent'))).toBe(true);
    expect(matched(probe('task.numericId == "1"'))).toBe(true);
  });
});

describe("conditions: directory functions", () => {
  it.each([
    ['c1.directory.users.v1.FindByEmail("bob@acme.example").displayName == "Bob Stone"', true],
    ['c1.directory.users.v1.FindByEmail("a.l@acme.example").id == subject.id', true],
    ['c1.directory.users.v1.GetByID("u-bob").department == "Engineering"', true],
    ['c1.directory.users.v1.GetManagers(subject).exists(m, m.id == "u-bob")', true],
    ['size(c1.directory.users.v1.DirectReports(c1.directory.users.v1.GetByID("u-bob"))) == 2', true],
    ['c1.user.v1.HasEntitlement(subject, "app-b", "ent-mfa")', true],
    ['c1.user.v1.HasEntitlement(subject, "app-b", "no-such-ent")', false],
    ['c1.user.v1.HasApp(subject, "app-b")', true],
    ['c1.user.v1.GrantedFromEnrollment(subject, "app-b", "ent-mfa")', false],
    ['c1.user.v1.AutomaticallyGrantedFromEnrollment(c1.directory.users.v1.GetByID("u-carol"), "app-b", "ent-mfa")', true],
    ['c1.directory.apps.v1.GetEntitlementMembers("app-b", "ent-mfa").exists(u, u.id == "u-carol")', true],
    ['c1.directory.apps.v1.GetEntitlementOwners("app-b", "ent-mfa").all(u, u.id == "u-bob")', true],
    ['c1.directory.groups.v1.FindByName("Security").displayName == "Security"', true],
  ])("%s → %s", (condition, expected) => expect(matched(probe(condition))).toBe(expected));
  it("a user that does not exist is a run-time error, recorded on the rule", () => {
    const e = probe('c1.directory.users.v1.GetByID("u-nobody").department == "x"');
    expect(matched(e)).toBe(false);
    expect(ruleError(e)).not.toBe("");
  });
});

describe("conditions: time at fixed clocks across time zones", () => {
  // 2026-11-22T09:00:00Z is a Sunday: 10:00 in Berlin, 01:00 in Los Angeles, 18:00 in Tokyo.
  it.each([
    ['now().getHours("Europe/Berlin") == 10', "2026-11-22T09:00:00Z", true],
    ['now().getHours("America/Los_Angeles") == 1', "2026-11-22T09:00:00Z", true],
    ['now().getHours("Asia/Tokyo") >= 18', "2026-11-22T09:00:00Z", true],
    ["now().getHours() == 9", "2026-11-22T09:00:00Z", true],
    ['now().getDayOfWeek("Europe/Berlin") == 0', "2026-11-22T09:00:00Z", true],
    ['now().getDayOfWeek("America/Los_Angeles") == 6', "2026-11-22T05:00:00Z", true],
    ['time.format(now(), "Monday", "Europe/Berlin") == "Sunday"', "2026-11-22T09:00:00Z", true],
    ['time.format(now(), "2006-01-02", "Pacific/Auckland") == "2026-11-23"', "2026-11-22T12:00:00Z", true],
    ['time.format(now(), "15", "Europe/Berlin") == "10"', "2026-11-22T09:00:00Z", true],
    ['time.format(now(), TimeFormat.DATE) == "2026-11-22"', "2026-11-22T09:00:00Z", true],
    ['now() - task.createdAt > duration("48h")', "2026-11-22T09:00:00Z", true],
    ['now() - task.createdAt > duration("72h")', "2026-11-22T09:00:00Z", false],
    ['time.parse("2026-11-22", "2006-01-02") < now()', "2026-11-22T09:00:00Z", true],
  ])("%s at %s → %s", (condition, now, expected) => expect(matched(probe(condition, { now }))).toBe(expected));
  it("a business-hours rule flips with the clock", () => {
    const rule = 'now().getHours("Europe/Berlin") >= 9 && now().getHours("Europe/Berlin") < 17';
    expect(matched(probe(rule, { now: "2026-11-23T08:30:00Z" }))).toBe(true);
    expect(matched(probe(rule, { now: "2026-11-23T16:30:00Z" }))).toBe(false);
  });
});

describe("explanations", () => {
  it("show the values of the deciding rule's parts and a culprit for each failed rule", () => {
    const e = run({ policies: [policy("p", [{ condition: 'subject.department == "Sales" && subject.profile.clearance == "high"', stepKey: "a" }, { condition: 'subject.department == "Engineering"', stepKey: "b" }])], entitlements: ent({ grantPolicyId: "p" }) });
    const first = e.rules[0]!;
    const culprit = first.trace?.nodes.find((n) => n.id === first.trace?.culprit);
    expect(culprit?.text).toBe('subject.department == "Sales"');
    expect(first.trace?.nodes.find((n) => n.text === 'subject.profile.clearance == "high"')?.outcome).toBe("not-evaluated");
    expect(e.rules[1]?.trace?.nodes.find((n) => n.text === "subject.department")).toMatchObject({ outcome: "value", value: "Engineering" });
    const text = formatExplanation(e);
    expect(text).toContain('^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ is false (subject.department = "Engineering")');
  });
  it("a false `||` is told by the values its sides compared, each once, not by the sides' own true or false", () => {
    const e = run({
      policies: [policy("p", [{ condition: 'now().getHours("Europe/Berlin") >= 18 || now().getHours("Europe/Berlin") < 7 || subject.department == "Sales"', stepKey: "a" }])],
      entitlements: ent({ grantPolicyId: "p" }),
    });
    const text = formatExplanation(e);
    expect(text).toMatch(/\^+ is false \(now\(\)\.getHours\("Europe\/Berlin"\) = \d+; subject\.department = "Engineering"\)/);
    expect(text).not.toContain(">= 18 = false");
  });
  it("list the approvers of every approval step of the selected sequence", () => {
    const p = policy("p");
    (p["policySteps"] as Json)["grant"] = { steps: [{ approval: { manager: { allowSelfApproval: false } } }, { approval: { appOwners: {} } }, { approval: { users: { userIds: ["u-alice"] } } }] };
    const e = run({ policies: [p], entitlements: ent({ grantPolicyId: "p" }) });
    expect(e.approvers.map((a) => [a.stepIndex, a.kind, a.via, a.userIds])).toEqual([
      [0, "manager", "primary", ["u-bob"]],
      [1, "appOwners", "primary", ["u-bob"]],
      [2, "users", "superAdmins", ["u-root"]],
    ]);
    expect(e.approvers[2]?.reason).toBe("no reviewer: reassigned to Super Administrators");
    expect(e.approvers[2]?.notes.join(" ")).toContain("self-approval is off");
  });
});
