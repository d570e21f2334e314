/**
 * Every example expression of the service's CEL pages, checked in the environment the page puts it
 * in and evaluated on a realistic tenant (Northwind Labs) against what the page says it means:
 * product_admin_expressions-reference.mdx, product_admin_expressions.mdx,
 * product_admin_external-insights.mdx, developer_terraform-best-practices.mdx (the configuration
 * rules page is covered in environments.test.ts).
 */
import { describe, expect, it } from "vitest";
import type { AppEntitlement, AppUser, User } from "../model/directory.js";
import { checkCondition, compileApproverExpression, compileCondition } from "./compile.js";
import { directoryFromArrays } from "./directory.js";
import { evaluateApproverExpression, evaluateCondition, type ConditionInput } from "./evaluate.js";
import { makeEntitlement, makeUser } from "./test-fixtures.js";
import type { TaskFacts } from "./values.js";

// ---------------------------------------------------------------------------------------------
// Northwind Labs

const carol = makeUser({
  id: "u-carol",
  email: "carol@northwind.example",
  displayName: "Carol Chen",
  username: "carol",
  department: "Security",
  jobTitle: "CISO",
  employmentType: "Full Time",
  employmentStatus: "Active",
});
const bob = makeUser({
  id: "u-bob",
  email: "bob@northwind.example",
  displayName: "Bob Babbage",
  username: "bob",
  department: "Engineering",
  jobTitle: "Manager",
  employmentType: "Full Time",
  employmentStatus: "Active",
  managerIds: ["u-carol"],
});
const ada = makeUser({
  id: "u-ada",
  email: "ada@northwind.example",
  emails: ["ada@northwind.example", "ada.lovelace@northwind.example"],
  displayName: "Ada Lovelace",
  username: "ada",
  usernames: ["ada", "alovelace"],
  department: "Engineering",
  jobTitle: "Senior Developer",
  employmentType: "Full Time",
  employmentStatus: "Active",
  status: "ENABLED",
  directoryStatus: "USER_STATUS_ENABLED",
  type: "USER_TYPE_HUMAN",
  managerIds: ["u-bob"],
  profile: { department: "IT", hire_date: "2026-11-02", contract_end_date: "2026-12-10", custom_field: "value", level: 5 },
  attributes: { contractor: "false", firstName: "Ada" },
});
const cy = makeUser({
  id: "u-cy",
  email: "cy@contractors.example",
  displayName: "Cy Young",
  username: "cy",
  department: "Engineering",
  jobTitle: "Developer",
  employmentType: "Contractor",
  employmentStatus: "Active",
  managerIds: ["u-bob"],
  attributes: { contractor: "true" },
});
const admin = makeUser({ id: "u-admin", email: "admin-ops@northwind.example", displayName: "Ops Admin", department: "IT", type: "USER_TYPE_SERVICE", status: "DISABLED" });
const nomad = makeUser({ id: "u-nomad", email: "nomad@northwind.example", displayName: "Nomad", department: "Sales", status: "DELETED", type: "USER_TYPE_AGENT" });

const aws = { id: "app-aws", displayName: "AWS", grantPolicyId: "", revokePolicyId: "", certifyPolicyId: "", ownerUserIds: ["u-carol"], revokeGrantSources: false, isManuallyManaged: false };
const prodAdmin: AppEntitlement = makeEntitlement({
  id: "ent-prod-admin",
  appId: "app-aws",
  displayName: "Production Admin",
  appResourceTypeId: "role",
  riskLevelValueId: "high",
  ownerUserIds: ["u-carol", "u-bob"],
  annotations: { managed_by: "terraform", iac_workspace: "prod" },
});
const readOnly: AppEntitlement = makeEntitlement({ id: "ent-ro", appId: "app-aws", displayName: "ReadOnly", riskLevelValueId: "low" });

const adaAws: AppUser = {
  id: "au-ada-aws",
  appId: "app-aws",
  identityUserId: "u-ada",
  displayName: "Ada Lovelace",
  email: "ada@northwind.example",
  emails: ["ada@northwind.example"],
  username: "ada",
  usernames: ["ada", "ada-admin"],
  employeeIds: ["E-1001"],
  appUserType: "APP_USER_TYPE_USER",
  status: { status: "APP_USER_STATUS_ENABLED", details: "active in IAM" },
  profile: { arn: "arn:aws:iam::1:user/ada" },
  attributes: { costCenter: "CC-100" },
  riskScores: [{ source: "CrowdStrike", normalizedScore: 72 }],
  securityInsights: [
    { source: "Wiz Insights", value: "3 Critical CVEs", severity: "CRITICAL" },
    { source: "Wiz Insights", value: "Exposed secret", severity: "high" },
  ],
};
const cyAws: AppUser = {
  id: "au-cy-aws",
  appId: "app-aws",
  identityUserId: "u-cy",
  displayName: "cy",
  email: "cy@contractors.example",
  username: "cy",
  appUserType: "APP_USER_TYPE_SERVICE_ACCOUNT",
  status: { status: "APP_USER_STATUS_DISABLED", details: "" },
  profile: {},
  riskScores: [{ source: "CrowdStrike", normalizedScore: 15 }],
  securityInsights: [],
};
const bobAws: AppUser = {
  id: "au-bob-aws",
  appId: "app-aws",
  identityUserId: "u-bob",
  displayName: "bob",
  email: "bob@northwind.example",
  username: "bob",
  appUserType: "APP_USER_TYPE_SYSTEM_ACCOUNT",
  status: { status: "APP_USER_STATUS_DELETED", details: "" },
  profile: {},
};

const directory = directoryFromArrays({
  users: [ada, bob, carol, cy, admin, nomad],
  groups: [{ id: "g-sec", appId: "app-c1", displayName: "Security Team", memberUserIds: ["u-carol"] }],
  apps: [aws],
  entitlements: [prodAdmin, readOnly],
  grants: [
    { appId: "app-aws", appEntitlementId: "ent-ro", identityUserId: "u-ada", source: "enrollment" },
    { appId: "app-aws", appEntitlementId: "ent-ro", identityUserId: "u-cy", source: "automatic-enrollment" },
    { appId: "app-aws", appEntitlementId: "ent-prod-admin", identityUserId: "u-bob", source: "direct" },
  ],
  appUsers: [adaAws, cyAws, bobAws],
});

/** Ada asks for Production Admin from Slack on Saturday evening (New York), for 8 hours. */
const slackRequest: TaskFacts = {
  id: "t-9f2c",
  numericId: "12345",
  displayName: "Access Request",
  origin: "TASK_ORIGIN_CHATAPP",
  isGrantPermanent: false,
  grantDuration: "28800s",
  subjectUserId: "u-ada",
  requestorUserId: "u-ada",
  createdAt: "2026-11-21T23:30:00Z",
  analysis: { id: "analysis123", hasConflictViolations: true, conflictViolations: ["conflict123"] },
};

/** Bob asks for Cy from the web app on a Tuesday morning, permanently. */
const webRequest: TaskFacts = {
  id: "t-4411",
  numericId: "12346",
  displayName: "Grant ReadOnly to Cy",
  origin: "TASK_ORIGIN_WEBAPP",
  isGrantPermanent: true,
  grantDuration: null,
  subjectUserId: "u-cy",
  requestorUserId: "u-bob",
  createdAt: "2026-11-24T14:00:00Z",
  analysis: null,
};

/** Sunday 2026-11-22 03:00 UTC: Saturday 22:00 in New York. */
const SATURDAY_NIGHT = "2026-11-22T03:00:00Z";
/** Tuesday 2026-11-24 15:00 UTC: 10:00 in New York. */
const TUESDAY_MORNING = "2026-11-24T15:00:00Z";

const adaAsks: ConditionInput = { subject: ada, task: slackRequest, entitlement: prodAdmin, account: adaAws, ip: "10.1.2.5", now: SATURDAY_NIGHT, directory };
const cyAsked: ConditionInput = { subject: cy, task: webRequest, entitlement: readOnly, account: cyAws, ip: "203.0.113.9", now: TUESDAY_MORNING, directory };
const bobAsks: ConditionInput = { subject: bob, task: webRequest, entitlement: prodAdmin, account: bobAws, ip: "::1", now: TUESDAY_MORNING, directory };
const withUser = (subject: User, over: Partial<ConditionInput> = {}): ConditionInput => ({ ...adaAsks, subject, ...over });

/** The condition's value for an input, or its error code; a check failure is a test failure. */
function condition(source: string, input: ConditionInput): boolean | string {
  const c = compileCondition(source);
  if (!c.ok) throw new Error(`${source}\n${c.error.map((d) => `${d.code}: ${d.message}`).join("\n")}`);
  const r = evaluateCondition(c.value, input);
  return r.ok ? r.value : r.error.code;
}

/** The ids an approver expression names for an input. */
function approvers(source: string, input: ConditionInput, appOwners: readonly User[] = [carol]): readonly string[] | string {
  const c = compileApproverExpression(source);
  if (!c.ok) throw new Error(`${source}\n${c.error.map((d) => `${d.code}: ${d.message}`).join("\n")}`);
  const r = evaluateApproverExpression(c.value, { subject: input.subject, appOwners, entitlement: input.entitlement, task: input.task, now: input.now, directory });
  return r.ok ? r.value : r.error.code;
}

/** Whether a non-bool example (a timestamp, a string) has the value `expected`, by comparing it in CEL. */
const valueOf = (source: string, expected: string, input: ConditionInput = adaAsks): boolean | string => condition(`(${source}) == ${expected}`, input);

// ---------------------------------------------------------------------------------------------

describe("product_admin_expressions-reference.mdx: type definitions", () => {
  it("timestamp arithmetic", () => {
    expect(valueOf('now() + duration("24h")', 'timestamp("2026-11-23T03:00:00Z")')).toBe(true);
    expect(valueOf('now() - duration("720h")', 'timestamp("2026-10-23T03:00:00Z")')).toBe(true);
    expect(valueOf("now() - task.created_at", 'duration("3h30m")')).toBe(true);
    expect(condition('duration("2h") < duration("720h") && duration("30m") == duration("1800s")', adaAsks)).toBe(true);
  });

  it("list operations, on lists the environment has", () => {
    expect(condition("size(subject.emails) == 2", adaAsks)).toBe(true);
    expect(condition('subject.emails[0] == "ada@northwind.example"', adaAsks)).toBe(true);
    expect(condition('"alovelace" in subject.usernames', adaAsks)).toBe(true);
    expect(condition("size(subject.emails + subject.usernames) == 4", adaAsks)).toBe(true);
    expect(approvers("appOwners.filter(x, x.status == UserStatus.ENABLED)", adaAsks, [carol, admin])).toEqual(["u-carol"]);
    expect(condition('c1.directory.users.v1.GetManagers(subject).map(x, x.email) == ["bob@northwind.example"]', adaAsks)).toBe(true);
    expect(condition('c1.directory.users.v1.DirectReports(c1.directory.users.v1.GetByID("u-bob")).exists(x, x.department == "IT")', adaAsks)).toBe(false);
    expect(condition('c1.directory.users.v1.DirectReports(c1.directory.users.v1.GetByID("u-bob")).all(x, x.status == UserStatus.ENABLED)', adaAsks)).toBe(true);
  });

  it("enums: UserStatus, UserType, TaskOrigin, AppUserStatus, AppUserType (also as USER_STATUS_ENABLED-style names)", () => {
    expect(condition("subject.status == UserStatus.ENABLED", adaAsks)).toBe(true);
    expect(condition("subject.status == UserStatus.DISABLED", withUser(admin))).toBe(true);
    expect(condition("subject.status == UserStatus.DELETED", withUser(nomad))).toBe(true);
    expect(condition("subject.status == UserStatus.USER_STATUS_ENABLED && subject.status == USER_STATUS_ENABLED", adaAsks)).toBe(true);
    expect(condition("subject.type == UserType.HUMAN", adaAsks)).toBe(true);
    expect(condition("subject.type == UserType.AGENT", withUser(nomad))).toBe(true);
    expect(condition("subject.type == UserType.SERVICE", withUser(admin))).toBe(true);
    expect(condition("subject.type == UserType.SYSTEM", adaAsks)).toBe(false);
    expect(condition("subject.type == UserType.USER_TYPE_HUMAN", adaAsks)).toBe(true);
    for (const [origin, member] of [
      ["TASK_ORIGIN_WEBAPP", "WEBAPP"],
      ["TASK_ORIGIN_CHATAPP", "SLACK"],
      ["TASK_ORIGIN_API", "API"],
      ["TASK_ORIGIN_TRACKER", "JIRA"],
      ["TASK_ORIGIN_COPILOT", "COPILOT"],
      ["TASK_ORIGIN_PROFILE_MEMBERSHIP_AUTOMATION", "PROFILE_MEMBERSHIP_AUTOMATION"],
      ["TASK_ORIGIN_TIME_REVOKE", "TIME_REVOKE"],
    ]) {
      expect(condition(`task.origin == TaskOrigin.${member}`, { ...adaAsks, task: { ...slackRequest, origin: origin as string } })).toBe(true);
      expect(condition(`task.origin == TaskOrigin.${origin}`, { ...adaAsks, task: { ...slackRequest, origin: origin as string } })).toBe(true);
    }
    expect(condition("account.status.status == APP_USER_STATUS_ENABLED", adaAsks)).toBe(true);
    expect(condition("account.status.status == APP_USER_STATUS_DISABLED", cyAsked)).toBe(true);
    expect(condition("account.status.status == APP_USER_STATUS_DELETED", bobAsks)).toBe(true);
    expect(condition("account.app_user_type == AppUserType.USER", adaAsks)).toBe(true);
    expect(condition("account.app_user_type == AppUserType.SERVICE_ACCOUNT", cyAsked)).toBe(true);
    expect(condition("account.app_user_type == AppUserType.SYSTEM_ACCOUNT", bobAsks)).toBe(true);
  });

  it("TimeFormat constants print as the table shows", () => {
    const t = 'timestamp("2025-10-22T14:30:00Z")';
    expect(valueOf(`time.format(${t}, TimeFormat.RFC3339)`, '"2025-10-22T14:30:00Z"')).toBe(true);
    expect(valueOf(`time.format(${t}, TimeFormat.DATE)`, '"2025-10-22"')).toBe(true);
    expect(valueOf(`time.format(${t}, TimeFormat.DATETIME)`, '"2025-10-22 14:30:00"')).toBe(true);
    expect(valueOf(`time.format(${t}, TimeFormat.TIME)`, '"14:30:00"')).toBe(true);
  });

  it("the time-layout names stand for their layouts, in any case", () => {
    const t = 'timestamp("2025-10-22T14:30:00Z")';
    expect(valueOf(`time.format(${t}, "datetime")`, '"2025-10-22 14:30:00"')).toBe(true);
    expect(valueOf(`time.format(${t}, "date")`, '"2025-10-22"')).toBe(true);
    expect(valueOf(`time.format(${t}, "rfc3339")`, '"2025-10-22T14:30:00Z"')).toBe(true);
    expect(valueOf(`time.format(${t}, "time")`, '"14:30:00"')).toBe(true);
    expect(valueOf(`time.format(${t}, "RFC3339")`, '"2025-10-22T14:30:00Z"')).toBe(true);
    expect(valueOf(`time.format(${t}, "Kitchen")`, '"2:30PM"')).toBe(true);
    expect(valueOf('time.parse("2025-10-22", "date")', 'timestamp("2025-10-22T00:00:00Z")')).toBe(true);
  });

  it("User fields: every documented field reads the directory user", () => {
    expect(condition('subject.id == "u-ada" && subject.email == "ada@northwind.example" && size(subject.emails) == 2', adaAsks)).toBe(true);
    expect(condition('subject.displayName == "Ada Lovelace" && subject.username == "ada" && "alovelace" in subject.usernames', adaAsks)).toBe(true);
    expect(condition('subject.department == "Engineering" && subject.jobTitle == "Senior Developer"', adaAsks)).toBe(true);
    expect(condition('subject.employmentType == "Full Time" && subject.employmentStatus == "Active"', adaAsks)).toBe(true);
    expect(condition("subject.status == UserStatus.ENABLED && subject.directoryStatus == UserStatus.ENABLED && subject.type == UserType.HUMAN", adaAsks)).toBe(true);
    expect(condition('subject.manager == "bob@northwind.example" && subject.manager_id == "u-bob"', adaAsks)).toBe(true);
    expect(condition('subject.profile.department == "IT" && subject.attributes.firstName == "Ada"', adaAsks)).toBe(true);
  });

  it("Group fields (FindByName)", () => {
    expect(condition('c1.directory.groups.v1.FindByName("Security Team").display_name == "Security Team"', adaAsks)).toBe(true);
    expect(condition('c1.directory.groups.v1.FindByName("Security Team").id == "g-sec" && c1.directory.groups.v1.FindByName("Security Team").app_id == "app-c1"', adaAsks)).toBe(true);
  });

  it("AppUser fields: the account in the entitlement's app", () => {
    expect(condition('account.id == "au-ada-aws" && account.displayName == "Ada Lovelace" && account.username == "ada"', adaAsks)).toBe(true);
    expect(condition('"ada-admin" in account.usernames && account.email == "ada@northwind.example" && size(account.emails) == 1', adaAsks)).toBe(true);
    expect(condition('account.employeeIds == ["E-1001"] && account.app_user_type == AppUserType.USER', adaAsks)).toBe(true);
    expect(condition('account.status.status == APP_USER_STATUS_ENABLED && account.status.details == "active in IAM"', adaAsks)).toBe(true);
    expect(condition('account.profile.arn.startsWith("arn:aws") && account.attributes.costCenter == "CC-100"', adaAsks)).toBe(true);
    expect(condition("size(account.usernames) == 0 && size(account.employeeIds) == 0 && size(account.attributes) == 0", cyAsked)).toBe(true);
  });

  it("two values of one message type compare as cel-go compares them", () => {
    expect(condition("subject == user", adaAsks)).toBe(true);
    expect(condition('c1.directory.users.v1.FindByEmail(subject.email) == subject', adaAsks)).toBe(true);
    expect(condition('c1.directory.users.v1.GetByID("u-bob") != subject', adaAsks)).toBe(true);
    expect(condition("c1.directory.users.v1.FindByEmail(subject.manager) in c1.directory.users.v1.GetManagers(subject)", adaAsks)).toBe(true);
    expect(condition("task.analysis == task.analysis && entitlement == entitlement && account == account", adaAsks)).toBe(true);
    expect(checkCondition("subject == entitlement")[0]?.code).toBe("CEL_NO_MATCHING_OVERLOAD");
  });

  it("built-in variables: subject, account, task, entitlement and ip in policies; appOwners in approver expressions only; ctx nowhere here", () => {
    expect(checkCondition('subject.id != "" && account.id != "" && task.id != "" && entitlement.id != "" && ip.is4')).toEqual([]);
    expect(checkCondition("size(appOwners) > 0")).toMatchObject([{ code: "CEL_UNDECLARED_REFERENCE" }]);
    expect(approvers("appOwners", adaAsks, [carol, bob])).toEqual(["u-carol", "u-bob"]);
    expect(checkCondition('ctx.trigger.newUser.department == "Engineering"')).toMatchObject([{ code: "CEL_UNDECLARED_REFERENCE" }]);
  });
});

describe("product_admin_expressions-reference.mdx: user library functions", () => {
  it("HasApp and HasEntitlement; unknown ids are false, not errors", () => {
    expect(condition('c1.user.v1.HasApp(subject, "app-aws")', adaAsks)).toBe(true);
    expect(condition('c1.user.v1.HasApp(subject, "app-nope")', adaAsks)).toBe(false);
    expect(condition('c1.user.v1.HasEntitlement(subject, "app-aws", "ent-ro")', adaAsks)).toBe(true);
    expect(condition('c1.user.v1.HasEntitlement(subject, "app-aws", "ent-nope")', adaAsks)).toBe(false);
  });

  it("GrantedFromEnrollment and AutomaticallyGrantedFromEnrollment, in policy conditions only", () => {
    expect(condition('c1.user.v1.GrantedFromEnrollment(subject, "app-aws", "ent-ro")', adaAsks)).toBe(true);
    expect(condition('c1.user.v1.AutomaticallyGrantedFromEnrollment(subject, "app-aws", "ent-ro")', adaAsks)).toBe(false);
    expect(condition('c1.user.v1.AutomaticallyGrantedFromEnrollment(subject, "app-aws", "ent-ro")', cyAsked)).toBe(true);
    expect(checkCondition('c1.user.v1.GrantedFromEnrollment(subject, "app-aws", "ent-ro") ? appOwners : []', "approver")[0]?.code).toBe("CEL_UNDECLARED_REFERENCE");
  });

  it('GetAppUserStatus: "USER_STATUS_ENABLED", "…DISABLED", "…DELETED", and "USER_STATUS_UNSPECIFIED" without an account', () => {
    expect(condition('c1.user.v1.GetAppUserStatus(subject, "app-aws") == "USER_STATUS_ENABLED"', adaAsks)).toBe(true);
    expect(condition('c1.user.v1.GetAppUserStatus(subject, "app-aws") == "USER_STATUS_DISABLED"', cyAsked)).toBe(true);
    expect(condition('c1.user.v1.GetAppUserStatus(subject, "app-aws") == "USER_STATUS_DELETED"', bobAsks)).toBe(true);
    expect(condition('c1.user.v1.GetAppUserStatus(subject, "app-aws") == "USER_STATUS_UNSPECIFIED"', withUser(carol))).toBe(true);
    expect(condition('c1.user.v1.GetAppUserStatus(subject, "app-okta") == "USER_STATUS_UNSPECIFIED"', adaAsks)).toBe(true);
    expect(checkCondition('c1.user.v1.GetAppUserStatus(subject, "app-aws") == "USER_STATUS_ENABLED"', "approver")).toMatchObject([{ code: "CEL_NOT_USERS" }]);
  });
});

describe("product_admin_expressions-reference.mdx: directory library functions", () => {
  it("FindByEmail, FindByName, GetByID name users; a missing user fails at run time", () => {
    expect(approvers("c1.directory.users.v1.FindByEmail(subject.manager)", adaAsks)).toEqual(["u-bob"]);
    expect(approvers('c1.directory.users.v1.FindByName("Carol Chen")', adaAsks)).toEqual(["u-carol"]);
    expect(approvers('c1.directory.users.v1.GetByID("u-carol")', adaAsks)).toEqual(["u-carol"]);
    expect(approvers('c1.directory.users.v1.GetByID("user123")', adaAsks)).toBe("CEL_NOT_FOUND");
    expect(approvers('c1.directory.users.v1.FindByEmail("nobody@northwind.example")', adaAsks)).toBe("CEL_NOT_FOUND");
  });

  it("GetManagers, DirectReports (of a user or a list of users); empty lists, not errors", () => {
    expect(approvers("c1.directory.users.v1.GetManagers(subject)", adaAsks)).toEqual(["u-bob"]);
    expect(approvers("c1.directory.users.v1.GetManagers(subject)", withUser(carol))).toEqual([]);
    expect(approvers('c1.directory.users.v1.DirectReports(c1.directory.users.v1.GetByID("u-bob"))', adaAsks)).toEqual(["u-ada", "u-cy"]);
    expect(approvers("c1.directory.users.v1.DirectReports(c1.directory.users.v1.GetManagers(subject))", adaAsks)).toEqual(["u-ada", "u-cy"]);
    expect(approvers("c1.directory.users.v1.DirectReports(subject)", adaAsks)).toEqual([]);
    // Indexing the empty list fails, and says its size (cel-js wrote "size undefined" for an empty list).
    const first = compileApproverExpression("c1.directory.users.v1.GetManagers(subject)[0]");
    if (!first.ok) throw new Error("does not compile");
    const r = evaluateApproverExpression(first.value, { subject: carol, appOwners: [carol], entitlement: adaAsks.entitlement, task: adaAsks.task, now: adaAsks.now, directory });
    expect(!r.ok && r.error).toMatchObject({ code: "CEL_INDEX_OUT_OF_BOUNDS", message: "No such key: index out of bounds, index 0 >= size 0" });
  });

  it("GetEntitlementMembers and GetEntitlementOwners, the latter by ids or by the entitlement", () => {
    expect(approvers("c1.directory.apps.v1.GetEntitlementMembers(entitlement.appId, entitlement.id)", adaAsks)).toEqual(["u-bob"]);
    expect(approvers('c1.directory.apps.v1.GetEntitlementOwners("app-aws", "ent-prod-admin")', adaAsks)).toEqual(["u-carol", "u-bob"]);
    expect(approvers("c1.directory.apps.v1.GetEntitlementOwners(entitlement)", adaAsks)).toEqual(["u-carol", "u-bob"]);
    expect(approvers("c1.directory.apps.v1.GetEntitlementOwners(entitlement)", { ...adaAsks, entitlement: readOnly })).toEqual([]);
    expect(condition("size(c1.directory.apps.v1.GetEntitlementOwners(entitlement)) == 2", adaAsks)).toBe(true);
  });

  it("the warning: GetManagers alone is empty without a manager; the fallback form uses the app owners", () => {
    const safe = "size(c1.directory.users.v1.GetManagers(subject)) > 0\n  ? c1.directory.users.v1.GetManagers(subject)\n  : appOwners";
    expect(approvers("c1.directory.users.v1.GetManagers(subject)", withUser(carol))).toEqual([]);
    expect(approvers(safe, withUser(carol))).toEqual(["u-carol"]);
    expect(approvers(safe, adaAsks)).toEqual(["u-bob"]);
  });
});

describe("product_admin_expressions-reference.mdx: time functions", () => {
  it("core functions, as the table's examples", () => {
    expect(condition('now() > timestamp("2025-01-01T00:00:00Z")', adaAsks)).toBe(true);
    expect(valueOf('time.parse("2025-10-22", TimeFormat.DATE)', 'timestamp("2025-10-22T00:00:00Z")')).toBe(true);
    expect(valueOf('time.parse("2025-10-22 14:30:00", TimeFormat.DATETIME, "America/New_York")', 'timestamp("2025-10-22T18:30:00Z")')).toBe(true);
    expect(valueOf("time.format(now(), TimeFormat.RFC3339)", '"2026-11-22T03:00:00Z"')).toBe(true);
    expect(valueOf('time.format(now(), "Monday", "America/New_York")', '"Saturday"')).toBe(true);
    expect(valueOf("time.unix(1734787200)", 'timestamp("2024-12-21T13:20:00Z")')).toBe(true);
    expect(valueOf("time.unix_ms(1734787200123)", 'timestamp("2024-12-21T13:20:00.123Z")')).toBe(true);
    expect(valueOf('time.start_of(now(), "day")', 'timestamp("2026-11-22T00:00:00Z")')).toBe(true);
    expect(valueOf('time.start_of(now(), "week", "America/New_York")', 'timestamp("2026-11-16T05:00:00Z")')).toBe(true);
    expect(valueOf('time.end_of(now(), "month")', 'timestamp("2026-11-30T23:59:59.999Z")')).toBe(true);
  });

  it("units day, week (Monday to Sunday), month, quarter, year", () => {
    const t = 'timestamp("2026-08-19T10:00:00Z")';
    expect(valueOf(`time.start_of(${t}, "week")`, 'timestamp("2026-08-17T00:00:00Z")')).toBe(true);
    expect(condition(`time.end_of(${t}, "week") > timestamp("2026-08-23T23:59:59Z") && time.end_of(${t}, "week") < timestamp("2026-08-24T00:00:00Z")`, adaAsks)).toBe(true);
    expect(valueOf(`time.start_of(${t}, "month")`, 'timestamp("2026-08-01T00:00:00Z")')).toBe(true);
    expect(valueOf(`time.start_of(${t}, "quarter")`, 'timestamp("2026-07-01T00:00:00Z")')).toBe(true);
    expect(valueOf(`time.start_of(${t}, "year")`, 'timestamp("2026-01-01T00:00:00Z")')).toBe(true);
  });

  it("custom Go layouts", () => {
    const t = 'timestamp("2025-10-22T14:30:00Z")';
    expect(valueOf(`time.format(${t}, "2006-01-02")`, '"2025-10-22"')).toBe(true);
    expect(valueOf(`time.format(${t}, "Monday, January 2, 2006")`, '"Wednesday, October 22, 2025"')).toBe(true);
  });

  it("is the hire date recent (profile date within the last 30 days)", () => {
    const source = 'has(subject.profile.hire_date) &&\ntime.parse(subject.profile.hire_date, TimeFormat.DATE) > now() - duration("720h")';
    expect(condition(source, adaAsks)).toBe(true);
    expect(condition(source, withUser(carol))).toBe(false);
  });

  it("business hours and after hours in New York", () => {
    const business = 'time.format(now(), "15", "America/New_York") >= "09" &&\ntime.format(now(), "15", "America/New_York") < "17"';
    const after = 'time.format(now(), "15", "America/New_York") >= "17" ||\ntime.format(now(), "15", "America/New_York") < "09"';
    expect([condition(business, adaAsks), condition(after, adaAsks)]).toEqual([false, true]);
    expect([condition(business, cyAsked), condition(after, cyAsked)]).toEqual([true, false]);
  });

  it("weekend and weekday", () => {
    const weekend = 'time.format(now(), "Monday", "America/New_York") == "Saturday" ||\ntime.format(now(), "Monday", "America/New_York") == "Sunday"';
    const weekday = '!(time.format(now(), "Monday") == "Saturday" || time.format(now(), "Monday") == "Sunday")';
    expect([condition(weekend, adaAsks), condition(weekday, adaAsks)]).toEqual([true, false]);
    expect([condition(weekend, cyAsked), condition(weekday, cyAsked)]).toEqual([false, true]);
  });

  it("profile date fields: a contract ending within 30 days, a hire date in the past", () => {
    const ending = 'has(subject.profile.contract_end_date) &&\ntime.parse(subject.profile.contract_end_date, TimeFormat.DATE) - now() < duration("720h")';
    const hired = 'has(subject.profile.hire_date) &&\ntime.parse(subject.profile.hire_date, TimeFormat.DATE) < now()';
    expect([condition(ending, adaAsks), condition(hired, adaAsks)]).toEqual([true, true]);
    expect([condition(ending, cyAsked), condition(hired, cyAsked)]).toEqual([false, false]);
  });

  it("time zones: start of day in New York, a date and time in London", () => {
    expect(valueOf('time.start_of(now(), "day", "America/New_York")', 'timestamp("2026-11-21T05:00:00Z")')).toBe(true);
    expect(valueOf('time.format(now(), TimeFormat.DATETIME, "Europe/London")', '"2026-11-22 03:00:00"')).toBe(true);
  });

  it("now() is one value throughout an evaluation", () => {
    expect(condition("now() == now() && now() - now() == duration(\"0s\")", adaAsks)).toBe(true);
  });
});

describe("product_admin_expressions-reference.mdx and product_admin_external-insights.mdx: external insights functions", () => {
  it("HasSecurityInsight, GetSecurityInsights, HasSecurityInsightWithSeverity (severity in any case, source exact)", () => {
    expect([condition("c1.app_user.v1.HasSecurityInsight(account)", adaAsks), condition("c1.app_user.v1.HasSecurityInsight(account)", cyAsked)]).toEqual([true, false]);
    expect(condition('size(c1.app_user.v1.GetSecurityInsights(account, "Wiz Insights")) == 2', adaAsks)).toBe(true);
    expect(condition('c1.app_user.v1.GetSecurityInsights(account, "wiz insights").size() == 0', adaAsks)).toBe(true);
    expect(condition('c1.app_user.v1.HasSecurityInsightWithSeverity(account, "Wiz Insights", "critical")', adaAsks)).toBe(true);
    expect(condition('c1.app_user.v1.HasSecurityInsightWithSeverity(account, "Wiz Insights", "HIGH")', adaAsks)).toBe(true);
    expect(condition('c1.app_user.v1.HasSecurityInsightWithSeverity(account, "Wiz Insights", "LOW")', adaAsks)).toBe(false);
    expect(condition('c1.app_user.v1.GetSecurityInsights(account, "Wiz Insights").exists(i, i.severity == "HIGH")', adaAsks)).toBe(false);
    expect(condition('c1.app_user.v1.GetSecurityInsights(account, "Wiz Insights").exists(i, i.severity == "CRITICAL" && i.value == "3 Critical CVEs" && i.source == "Wiz Insights")', adaAsks)).toBe(true);
  });

  it("HasRiskScore, GetRiskScore (a missing source scores 0), account.risk_score and account.risk_scores", () => {
    expect(condition("c1.app_user.v1.HasRiskScore(account)", adaAsks)).toBe(true);
    expect(condition('c1.app_user.v1.GetRiskScore(account, "CrowdStrike").normalized_score == 72', adaAsks)).toBe(true);
    expect(condition('c1.app_user.v1.GetRiskScore(account, "Okta").normalized_score == 0', adaAsks)).toBe(true);
    expect(condition('c1.app_user.v1.HasRiskScore(account) || c1.app_user.v1.GetRiskScore(account, "CrowdStrike").normalized_score == 0', bobAsks)).toBe(true);
    expect(condition("c1.app_user.v1.HasRiskScore(account)", bobAsks)).toBe(false);
    expect(condition('account.risk_score["CrowdStrike"] == 72 && size(account.risk_scores) == 1', adaAsks)).toBe(true);
    expect(condition('account.risk_scores.exists(s, s.source == "CrowdStrike" && s.normalized_score > 50)', adaAsks)).toBe(true);
  });

  it.each([
    ['c1.app_user.v1.HasSecurityInsightWithSeverity(account, "Wiz Insights", "CRITICAL")', true, false],
    ['c1.app_user.v1.HasSecurityInsightWithSeverity(account, "Wiz Insights", "CRITICAL")\n  || c1.app_user.v1.HasSecurityInsightWithSeverity(account, "Wiz Insights", "HIGH")', true, false],
    ['c1.app_user.v1.GetSecurityInsights(account, "Wiz Insights").size() == 0', false, true],
    ['c1.app_user.v1.GetRiskScore(account, "CrowdStrike").normalized_score > 70', true, false],
    ['c1.app_user.v1.HasRiskScore(account)\n  && c1.app_user.v1.GetRiskScore(account, "CrowdStrike").normalized_score > 50', true, false],
    ['"CrowdStrike" in account.risk_score && account.risk_score["CrowdStrike"] <= 20', false, true],
    ['!("CrowdStrike" in account.risk_score)', false, false],
    ['("CrowdStrike" in account.risk_score && account.risk_score["CrowdStrike"] > 50)\n  && c1.app_user.v1.HasSecurityInsightWithSeverity(account, "Wiz Insights", "CRITICAL")', true, false],
    [
      '("CrowdStrike" in account.risk_score && account.risk_score["CrowdStrike"] <= 30)\n  && !c1.app_user.v1.HasSecurityInsightWithSeverity(account, "Wiz Insights", "HIGH")\n  && !c1.app_user.v1.HasSecurityInsightWithSeverity(account, "Wiz Insights", "CRITICAL")',
      false,
      true,
    ],
  ])("product_admin_external-insights.mdx: %s (risky Ada: %s, clean Cy: %s)", (source, risky, clean) => {
    expect(condition(source, adaAsks)).toBe(risky);
    expect(condition(source, cyAsked)).toBe(clean);
  });

  it("no CrowdStrike score at all (an unmanaged device): the deny example matches", () => {
    expect(condition('!("CrowdStrike" in account.risk_score)', bobAsks)).toBe(true);
  });
});

describe("product_admin_expressions-reference.mdx: subject, user, task, analysis, entitlement, ip fields", () => {
  it.each([
    ['subject.email.endsWith("@company.com")', false],
    ['subject.email.endsWith("@northwind.example")', true],
    ['subject.department == "Engineering"', true],
    ["subject.status == UserStatus.ENABLED", true],
    ["subject.type == UserType.HUMAN", true],
    ['subject.id == "user123"', false],
    ['subject.email.startsWith("admin")', false],
    ['subject.manager == "boss@company.com"', false],
    ['subject.manager_id != ""', true],
    ['subject.jobTitle == "Senior Developer"', true],
    ['subject.employmentType == "Full Time"', true],
    ['subject.employmentStatus == "Active"', true],
    ["subject.directoryStatus == UserStatus.ENABLED", true],
    ['subject.profile.department == "IT"', true],
    ['subject.attributes.contractor == "true"', false],
    ['user.id == "user123"', false],
    ['user.email.endsWith("@company.com")', false],
    ['user.displayName == "John Doe"', false],
    ['user.username == "johndoe"', false],
    ['user.department == "Engineering"', true],
    ['user.jobTitle == "Manager"', false],
    ["user.status == UserStatus.ENABLED", true],
    ["user.directoryStatus == UserStatus.ENABLED", true],
    ['user.employmentType == "Full Time"', true],
    ['user.employmentStatus == "Active"', true],
    ['user.profile.department == "IT"', true],
    ['task.id == "task123"', false],
    ['task.numericId == "12345"', true],
    ['task.displayName == "Access Request"', true],
    ["task.origin == TaskOrigin.SLACK", true],
    ["task.isGrantPermanent == true", false],
    ['task.grantDuration > duration("2h")', true],
    ["task.subjectUserId == task.requestorUserId", true],
    ['task.requestorUserId == "user123"', false],
    ['task.created_at > now() - duration("24h")', true],
    ["task.analysis.hasConflictViolations", true],
    ['task.analysis.id == "analysis123"', true],
    ['"conflict123" in task.analysis.conflictViolations', true],
    ['entitlement.id == "entitlement123"', false],
    ['entitlement.appId == "app123"', false],
    ['entitlement.risk_level_value_id == "high"', true],
    ["ip.is4", true],
    ["ip.is6", false],
    ["ip.isPrivate", true],
    ["ip.isLoopback", false],
    ["ip.isGlobalUnicast", true],
    ["ip.isMulticast", false],
    ["ip.isInterfaceLocalMulticast", false],
    ["ip.isLinkLocalMulticast", false],
    ["ip.isUnspecified", false],
    ["cidr('10.1.2.0/24').contains(ip('1.2.3.4'))", false],
    ["cidr('10.1.2.0/24').contains(ip('10.1.2.5'))", true],
    ["ip('10.1.2.5').within(cidr('10.1.2.0/24'))", true],
    ["cidr('10.1.2.0/24', '5.4.3.2/32').contains(ip('5.4.3.2'))", true],
  ])("%s → %s for Ada's Slack request", (source, expected) => {
    expect(condition(source, adaAsks)).toBe(expected);
  });

  it("the same fields for Cy's web request, made for him by Bob", () => {
    expect(condition('subject.email.endsWith("@company.com")', cyAsked)).toBe(false);
    expect(condition('!subject.email.endsWith("@northwind.example")', cyAsked)).toBe(true);
    expect(condition('subject.attributes.contractor == "true"', cyAsked)).toBe(true);
    expect(condition("task.isGrantPermanent == true && task.origin == TaskOrigin.WEBAPP", cyAsked)).toBe(true);
    expect(condition("task.subjectUserId == task.requestorUserId", cyAsked)).toBe(false);
    expect(condition("task.analysis.hasConflictViolations", cyAsked)).toBe(false);
    expect(condition("ip.isGlobalUnicast && !ip.isPrivate && ip.is4", cyAsked)).toBe(true);
    expect(condition("ip.isLoopback && ip.is6", bobAsks)).toBe(true);
    expect(condition('subject.email.startsWith("admin")', withUser(admin))).toBe(true);
  });

  it("a custom attribute or profile key the user does not have fails at run time; has() guards it", () => {
    expect(condition('subject.attributes.contractor == "true"', withUser(carol))).toBe("CEL_NO_SUCH_KEY");
    expect(condition('has(subject.profile.custom_field) ? subject.profile.custom_field == "value" : false', adaAsks)).toBe(true);
    expect(condition('has(subject.profile.custom_field) ? subject.profile.custom_field == "value" : false', withUser(carol))).toBe(false);
    expect(condition("has(subject.attributes.contractor)", withUser(carol))).toBe(false);
  });
});

describe("product_admin_expressions-reference.mdx: context-specific examples in policies", () => {
  it.each([
    ['subject.department == "Engineering"', true, true],
    ["task.origin == TaskOrigin.SLACK", true, false],
    ["task.analysis.hasConflictViolations", true, false],
    ['task.isGrantPermanent == false && task.grantDuration > duration("2h")', true, false],
    ["task.subjectUserId == task.requestorUserId", true, false],
    ['task.created_at.getHours("America/New_York") < 9 ||\ntask.created_at.getHours("America/New_York") >= 17', true, false],
    ['now() - task.created_at > duration("24h")', false, false],
    ['task.created_at.getDayOfWeek("America/New_York") == 0 ||\ntask.created_at.getDayOfWeek("America/New_York") == 6', true, false],
    ['"conflict123" in task.analysis.conflictViolations', true, false],
    ['entitlement.id == "entitlement123"', false, false],
    ['entitlement.risk_level_value_id == "high"', true, false],
    ["ip.isPrivate", true, false],
    ["ip.is4", true, true],
    ["cidr('10.1.2.0/24').contains(ip('10.1.2.5'))", true, true],
    ['subject.department == "Engineering" && subject.status == UserStatus.ENABLED', true, true],
    ["subject.status == UserStatus.DISABLED", false, false],
    ['!subject.email.endsWith("@company.com")', true, true],
    ['user.department == "Engineering"', true, true],
    ["user.status == UserStatus.ENABLED", true, true],
  ])("condition %s (Ada on Saturday: %s, Cy on Tuesday: %s)", (source, ada, cy) => {
    expect(condition(source, adaAsks)).toBe(ada);
    expect(condition(source, cyAsked)).toBe(cy);
  });

  it("approver expressions: route to the manager, to a user, to the entitlement's members", () => {
    expect(approvers("c1.directory.users.v1.FindByEmail(subject.manager)", adaAsks)).toEqual(["u-bob"]);
    expect(approvers('c1.directory.users.v1.GetByID("u-carol")', adaAsks)).toEqual(["u-carol"]);
    expect(approvers('c1.directory.users.v1.GetByID("user123")', adaAsks)).toBe("CEL_NOT_FOUND");
    expect(approvers("c1.directory.apps.v1.GetEntitlementMembers(entitlement.appId, entitlement.id)", adaAsks)).toEqual(["u-bob"]);
    expect(approvers("c1.directory.apps.v1.GetEntitlementMembers(entitlement.appId, entitlement.id)", cyAsked)).toEqual(["u-ada", "u-cy"]);
  });

  it("account provisioning's data mapping reads an attribute (a string, so not a condition)", () => {
    expect(valueOf("subject.attributes.firstName", '"Ada"')).toBe(true);
    expect(checkCondition("subject.attributes.firstName")).toEqual([]);
  });

  it("the performance note's directory call is a User, not a bool: the check refuses it, as cel-go's would", () => {
    expect(checkCondition('subject.department == "Engineering" && c1.directory.users.v1.FindByEmail(subject.email)')).toMatchObject([{ code: "CEL_TYPE_ERROR" }]);
    expect(condition('subject.department == "Engineering" && c1.directory.users.v1.FindByEmail(subject.email) == subject', adaAsks)).toBe(true);
  });

  it("automation-only objects (ctx, template syntax) are not part of policy expressions", () => {
    expect(checkCondition("ctx.trigger.newAccount.status.status == APP_USER_STATUS_DISABLED")[0]?.code).toBe("CEL_UNDECLARED_REFERENCE");
    expect(checkCondition('c1.user.v1.ListAppUsersForUser(subject, "app-aws").size() > 0')[0]?.code).toBe("CEL_UNDECLARED_REFERENCE");
  });
});

describe("developer_terraform-best-practices.mdx: an entitlement automation's CEL expression", () => {
  const source = 'has(subject.department) &&\nsubject.department != "" &&\nsubject.department.lowerAscii().contains("engineering")';
  it("type-checks, and is true for an engineer only", () => {
    expect(condition(source, adaAsks)).toBe(true);
    expect(condition(source, withUser(carol))).toBe(false);
    expect(condition(source, withUser(makeUser({ id: "u-new" })))).toBe(false);
    expect(condition("false", adaAsks)).toBe(false);
  });
});

describe("product_admin_expressions.mdx: what is caught when an expression is saved, and what only at run time", () => {
  it("syntax errors, undefined variables, type mismatches and wrong return types fail the check", () => {
    expect(checkCondition('subject.department == "Engineering')[0]?.code).toBe("CEL_SYNTAX");
    expect(checkCondition('subjct.department == "Engineering"')[0]).toMatchObject({ code: "CEL_UNDECLARED_REFERENCE", hint: "did you mean 'subject'?" });
    expect(checkCondition("subject.department == 5")[0]?.code).toBe("CEL_NO_MATCHING_OVERLOAD");
    expect(checkCondition("c1.directory.users.v1.GetManagers(subject)")[0]?.code).toBe("CEL_NOT_BOOL");
    expect(checkCondition('subject.department == "Engineering"', "approver")[0]?.code).toBe("CEL_NOT_USERS");
  });

  it("account provisioning derives a username from the part of the email before the @ (a string expression)", () => {
    expect(valueOf('subject.email.split("@")[0]', '"ada"')).toBe(true);
  });

  it("empty results, empty lists and missing profile fields only show at run time", () => {
    expect(approvers('c1.directory.users.v1.FindByEmail("gone@northwind.example")', adaAsks)).toBe("CEL_NOT_FOUND");
    expect(approvers("c1.directory.users.v1.GetManagers(subject)", withUser(carol))).toEqual([]);
    expect(condition('subject.profile.badge == "gold"', adaAsks)).toBe("CEL_NO_SUCH_KEY");
  });
});
