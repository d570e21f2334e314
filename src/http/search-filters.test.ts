/**
 * Each search filter the world can answer, against the sample tenant (fixtures/world.json), as its
 * openapi.yaml description reads: the answer is computed here from the world file itself, and every
 * 200 body is held to its operation's response schema (and its `expanded` items to theirs).
 * `search-fields.test.ts` proves no field is left unread; this file proves what each one does.
 */
import { describe, expect, it } from "vitest";
import { sampleJson, sampleWorld, SUPER, worldOf, type Body } from "../../test/helpers.js";
import { expandedProblems, responseProblems } from "./openapi-validate.test-helper.js";
import { searchApps } from "./routes/app-search.js";
import { searchAppUsers } from "./routes/app-user-search.js";
import { searchEntitlements, searchGrants } from "./routes/entitlement-search.js";
import { searchUserOwnership } from "./routes/owner-reads.js";
import { searchPolicies } from "./routes/policy-search.js";
import { searchResources } from "./routes/resource-reads.js";
import { searchTasks } from "./routes/task-search.js";
import { searchUsers } from "./routes/user-search.js";
import type { World } from "../world/world.js";
import type { HttpFailure } from "./error-body.js";

const world = sampleWorld();
const json = sampleJson() as Body;
const caller = world.index.users.get(SUPER)!;
type Answer = { ok: true; value: unknown } | { ok: false; error: HttpFailure };

/** The 200 body of a search, held to its response schema. */
function answer(path: string, r: Answer): Body {
  if (!r.ok) throw new Error(`${path}: ${JSON.stringify(r.error)}`);
  expect(responseProblems("POST", path, r.value), path).toEqual([]);
  expect(expandedProblems(r.value), path).toEqual([]);
  return r.value;
}

const refusalOf = (r: Answer): HttpFailure => {
  if (r.ok) throw new Error(`expected a refusal, got ${JSON.stringify(r.value).slice(0, 200)}`);
  return r.error;
};

const all = { pageSize: 100 };
/** The numericIds the Super Administrator finds, in answer order. */
const tasks = (body: Body, w: World = world): string[] => answer("/api/v1/search/tasks", searchTasks(w, caller, { ...all, ...body })).list.map((v: Body) => v.task.numericId);
const sorted = (ids: readonly string[]) => [...ids].sort();
/** The sample's tasks as the world file has them (every one is live). */
const fileTasks: Body[] = json.tasks;
const typeOf = (t: Body): Body => Object.values(t.type)[0] as Body;
const kindOf = (t: Body): string => Object.keys(t.type)[0] ?? "";
const numericIds = (ts: readonly Body[]) => sorted(ts.map((t) => t.numericId));
const entitlementOf = (t: Body): Body | undefined => json.entitlements.find((e: Body) => e.appId === typeOf(t).appId && e.id === typeOf(t).appEntitlementId);
const accountOf = (t: Body): Body | undefined => json.appUsers.find((a: Body) => a.id === typeOf(t).appUserId);

const TASKS = "openapi.yaml c1.api.task.v1.TaskSearchRequest";

describe(`${TASKS}.createdAfter and the other timestamps (google.protobuf.Timestamp: RFC 3339 with its offset)`, () => {
  it("an offset, a fraction and the Go SDK's nanoseconds are read as the same instant; a naive or free-form date is refused, never read in the server's time zone", () => {
    const all0 = tasks({ createdAfter: "2000-01-01T00:00:00Z" });
    expect(all0.length).toBeGreaterThan(0);
    for (const same of ["2000-01-01T01:00:00+01:00", "2000-01-01T00:00:00.000000000Z", "1999-12-31T19:00:00-05:00"]) expect(tasks({ createdAfter: same })).toEqual(all0);
    for (const bad of ["2026-11-20T00:00:00", "Nov 22 2026", "1", "2027-02-30T00:00:00Z"])
      expect(refusalOf(searchTasks(world, caller, { createdAfter: bad }))).toMatchObject({ status: 400, code: "INVALID_ARGUMENT" });
  });
});

describe(`${TASKS}: who a task is assigned to`, () => {
  const waitingOn = (u: string) => fileTasks.filter((t) => t.state === "TASK_STATE_OPEN" && t.stepApproverIds.includes(u));
  const approvedBy = (u: string) => fileTasks.filter((t) => t.state === "TASK_STATE_CLOSED" && t.approverIds.includes(u));

  it(`${TASKS}.assigneesInIds: "currently assigned" is an open task whose current step waits on the user, not a closed one they approved`, () => {
    const found = tasks({ assigneesInIds: ["u-sre-lead"] });
    expect(sorted(found)).toEqual(numericIds(waitingOn("u-sre-lead")));
    expect(found).toContain("1001");
    // 1029 and 1056 were approved by u-sre-lead and are closed: no longer assigned to anyone.
    expect(found).not.toContain("1029");
    expect(found).not.toContain("1056");
    expect(sorted(tasks({ assigneesInIds: ["u-sre-lead", "u-cfo"] }))).toEqual(numericIds([...waitingOn("u-sre-lead"), ...waitingOn("u-cfo")]));
  });
  it(`${TASKS}.assignedOrStepApproverUserId: open tasks assigned to the user, and closed tasks the user approved`, () => {
    const found = tasks({ assignedOrStepApproverUserId: "u-sre-lead" });
    expect(sorted(found)).toEqual(numericIds([...waitingOn("u-sre-lead"), ...approvedBy("u-sre-lead")]));
    expect(found).toEqual(expect.arrayContaining(["1001", "1029", "1056"]));
  });
  it(`${TASKS}.myWorkUserIds: what each user's My Work shows, their open assignments and the closed tasks they approved`, () => {
    const found = tasks({ myWorkUserIds: ["u-eng-mgr", "u-cfo"] });
    expect(sorted(found)).toEqual(numericIds([...new Set([...waitingOn("u-eng-mgr"), ...approvedBy("u-eng-mgr"), ...waitingOn("u-cfo"), ...approvedBy("u-cfo")])]));
    expect(found).not.toContain("1014"); // closed, denied by u-ciso
  });
  it(`${TASKS}.previouslyActedOnIds: tasks the user approved, denied, reassigned, skipped, restarted or completed a step of`, () => {
    // u-sre-lead approved 1029 and 1056, denied 1039 and completed the provision step of 1034.
    expect(sorted(tasks({ previouslyActedOnIds: ["u-sre-lead"] }))).toEqual(["1029", "1034", "1039", "1056"]);
    // u-it-dir restarted an approval of 1015 and skipped one of 1016.
    expect(tasks({ previouslyActedOnIds: ["u-it-dir"] })).toEqual(expect.arrayContaining(["1015", "1016"]));
  });
});

describe(`${TASKS}: the current step`, () => {
  const current = (t: Body): Body => (t.state === "TASK_STATE_OPEN" ? (t.policy?.current ?? {}) : {});
  it(`${TASKS}.currentStep: an open task whose current step is an approval, or a provision`, () => {
    expect(sorted(tasks({ currentStep: "TASK_SEARCH_CURRENT_STEP_APPROVAL" }))).toEqual(numericIds(fileTasks.filter((t) => "approval" in current(t))));
    expect(sorted(tasks({ currentStep: "TASK_SEARCH_CURRENT_STEP_PROVISION" }))).toEqual(numericIds(fileTasks.filter((t) => "provision" in current(t))));
    expect(tasks({ currentStep: "TASK_SEARCH_CURRENT_STEP_UNSPECIFIED" })).toHaveLength(fileTasks.length);
  });
  it(`${TASKS}.stepApprovalTypes: by the approver kind of the current approval step`, () => {
    const approvers = (t: Body, kind: string) => kind in (current(t).approval?.approval ?? {});
    expect(sorted(tasks({ stepApprovalTypes: ["STEP_APPROVAL_TYPE_MANAGER"] }))).toEqual(numericIds(fileTasks.filter((t) => approvers(t, "manager"))));
    expect(sorted(tasks({ stepApprovalTypes: ["STEP_APPROVAL_TYPE_GROUP", "STEP_APPROVAL_TYPE_AGENT"] }))).toEqual(
      numericIds(fileTasks.filter((t) => approvers(t, "group") || approvers(t, "agent"))),
    );
  });
  it(`${TASKS}.requireApprovalReason and .requireDenialReason: the current approval step requires a reason`, () => {
    const step = (t: Body): Body => current(t).approval?.approval ?? {};
    expect(sorted(tasks({ requireApprovalReason: true }))).toEqual(numericIds(fileTasks.filter((t) => step(t).requireApprovalReason === true)));
    expect(sorted(tasks({ requireDenialReason: true }))).toEqual(numericIds(fileTasks.filter((t) => step(t).requireDenialReason === true)));
    expect(tasks({ requireApprovalReason: true, requireDenialReason: true })).toEqual(expect.arrayContaining(["1001", "1021"]));
  });
});

describe(`${TASKS}: outcomes and times`, () => {
  it(`${TASKS}.grantOutcomes, .revokeOutcomes, .certifyOutcomes: each kind by its own list, the lists together a union`, () => {
    const outcome = (kind: string, o: string) => fileTasks.filter((t) => kindOf(t) === kind && typeOf(t).outcome === o);
    expect(sorted(tasks({ grantOutcomes: ["GRANT_OUTCOME_GRANTED"] }))).toEqual(numericIds(outcome("grant", "GRANT_OUTCOME_GRANTED")));
    expect(sorted(tasks({ revokeOutcomes: ["REVOKE_OUTCOME_REVOKED"] }))).toEqual(numericIds(outcome("revoke", "REVOKE_OUTCOME_REVOKED")));
    expect(sorted(tasks({ certifyOutcomes: ["CERTIFY_OUTCOME_DECERTIFIED", "CERTIFY_OUTCOME_CERTIFIED"] }))).toEqual(["1044", "1048"]);
    expect(sorted(tasks({ grantOutcomes: ["GRANT_OUTCOME_DENIED"], revokeOutcomes: ["REVOKE_OUTCOME_DENIED"] }))).toEqual(
      numericIds([...outcome("grant", "GRANT_OUTCOME_DENIED"), ...outcome("revoke", "REVOKE_OUTCOME_DENIED")]),
    );
  });
  it(`${TASKS}.outcomeAfter and .outcomeBefore: the outcome time, after inclusive, before exclusive; no outcome, no match`, () => {
    const from = "2026-11-14T00:00:00Z";
    const to = "2026-11-17T00:00:00Z";
    const within = fileTasks.filter((t) => typeOf(t).outcomeTime && typeOf(t).outcomeTime >= from && typeOf(t).outcomeTime < to);
    expect(within.length).toBeGreaterThan(1);
    expect(sorted(tasks({ outcomeAfter: from, outcomeBefore: to }))).toEqual(numericIds(within));
    expect(sorted(tasks({ outcomeAfter: "2000-01-01T00:00:00Z" }))).toEqual(numericIds(fileTasks.filter((t) => typeOf(t).outcomeTime)));
  });
  it(`${TASKS}.olderThanDuration: created at least that long before the world's clock`, () => {
    const week = 7 * 24 * 3600;
    const cut = Date.parse(json.now) - week * 1000;
    expect(sorted(tasks({ olderThanDuration: `${week}s` }))).toEqual(numericIds(fileTasks.filter((t) => Date.parse(t.createdAt) <= cut)));
    expect(refusalOf(searchTasks(world, caller, { olderThanDuration: "one week" })).field).toBe("olderThanDuration");
  });
  it(`${TASKS}.taskStates: an unknown member is INVALID_ARGUMENT (400) naming the field, not an empty 200`, () => {
    const e = refusalOf(searchTasks(world, caller, { taskStates: ["BOGUS"] }));
    expect(e).toMatchObject({ status: 400, code: "INVALID_ARGUMENT", field: "taskStates" });
    expect(e.message).toContain("BOGUS");
    expect(refusalOf(searchTasks(world, caller, { taskTypes: [{ bogus: {} }] })).field).toBe("taskTypes");
    expect(refusalOf(searchTasks(world, caller, { emergencyStatus: "SOMETIMES" })).field).toBe("emergencyStatus");
  });
});

describe(`${TASKS}: what a task is about`, () => {
  // A scope-role action task (1054) targets its app too, as the task view's app_id says.
  const aws = fileTasks.filter((t) => (typeOf(t).appId ?? typeOf(t).scopeRole?.appId) === "app-aws");
  it(`${TASKS}.excludeApplicationIds: tasks that do not target these apps`, () => {
    expect(aws.map((t) => t.numericId)).toContain("1054");
    expect(sorted(tasks({ excludeApplicationIds: ["app-aws"] }))).toEqual(numericIds(fileTasks.filter((t) => !aws.includes(t))));
    expect(tasks({ applicationIds: ["app-aws"], excludeApplicationIds: ["app-aws"] })).toEqual([]);
  });
  it(`${TASKS}.excludeAppEntitlementIds: tasks that do not target these entitlements`, () => {
    expect(sorted(tasks({ excludeAppEntitlementIds: ["ent-aws-prod-admin"] }))).toEqual(numericIds(fileTasks.filter((t) => typeOf(t).appEntitlementId !== "ent-aws-prod-admin")));
  });
  it(`${TASKS}.appResourceIds, .appResourceTypeIds, .excludeAppResourceTypeIds: the resource of the task's entitlement`, () => {
    const on = (f: (e: Body) => boolean) => fileTasks.filter((t) => {
      const e = entitlementOf(t);
      return e !== undefined && f(e);
    });
    const role = on((e) => e.appResourceTypeId === "rt-role");
    expect(role.length).toBeGreaterThan(0);
    expect(sorted(tasks({ appResourceTypeIds: ["rt-role"] }))).toEqual(numericIds(role));
    expect(sorted(tasks({ excludeAppResourceTypeIds: ["rt-role"] }))).toEqual(numericIds(fileTasks.filter((t) => !role.includes(t))));
    const resource = entitlementOf(role[0])?.appResourceId as string;
    expect(sorted(tasks({ appResourceIds: [resource] }))).toEqual(numericIds(on((e) => e.appResourceId === resource)));
  });
  it(`${TASKS}.accessReviewIds: the certify tasks of those campaigns`, () => {
    expect(sorted(tasks({ accessReviewIds: ["ar-2026-q4"] }))).toEqual(["1043", "1049", "1050"]);
    expect(sorted(tasks({ accessReviewIds: ["ar-2026-q4", "ar-2026-q3"] }))).toEqual(["1043", "1044", "1048", "1049", "1050"]);
  });
  it(`${TASKS}.appUserSubjectIds: the task's account`, () => {
    expect(sorted(tasks({ appUserSubjectIds: ["au-aws-dev2"] }))).toEqual(numericIds(fileTasks.filter((t) => typeOf(t).appUserId === "au-aws-dev2")));
  });
  it(`${TASKS}.accountOwnerIds, .accountTypes, .accountStatuses: the task's account, its identity user, type and status`, () => {
    expect(sorted(tasks({ accountOwnerIds: ["u-dev1"] }))).toEqual(numericIds(fileTasks.filter((t) => accountOf(t)?.identityUserId === "u-dev1")));
    const disabled = fileTasks.filter((t) => accountOf(t)?.status?.status === "APP_USER_STATUS_DISABLED");
    expect(disabled.length).toBeGreaterThan(0);
    expect(sorted(tasks({ accountStatuses: ["STATUS_DISABLED"] }))).toEqual(numericIds(disabled));
    expect(sorted(tasks({ accountTypes: ["APP_USER_TYPE_SERVICE_ACCOUNT"] }))).toEqual(numericIds(fileTasks.filter((t) => accountOf(t)?.appUserType === "APP_USER_TYPE_SERVICE_ACCOUNT")));
    // A task without an account has no account type: APP_USER_TYPE_USER does not match it.
    expect(tasks({ accountTypes: ["APP_USER_TYPE_USER"] })).not.toContain("1008");
  });
  it(`${TASKS}.userEmploymentStatuses: the employment status of the task's subject`, () => {
    const terminated = new Set(json.users.filter((u: Body) => u.employmentStatus === "Terminated").map((u: Body) => u.id));
    const found = tasks({ userEmploymentStatuses: ["Terminated"] });
    expect(found.length).toBeGreaterThan(0);
    expect(sorted(found)).toEqual(numericIds(fileTasks.filter((t) => terminated.has(t.userId))));
  });
});

describe(`${TASKS}.sortBy`, () => {
  const open = { taskStates: ["TASK_STATE_OPEN"], taskTypes: [{ grant: {} }] };
  const keyed = (ids: string[], key: (t: Body) => string) => ids.map((id) => key(fileTasks.find((t) => t.numericId === id)));
  const ordered = (keys: string[]) => {
    const present = keys.filter((k) => k !== "");
    expect(present).toEqual([...present].sort());
    // Tasks without the column come last.
    expect(keys.slice(present.length).every((k) => k === "")).toBe(true);
  };
  it(`${TASKS}.sortBy ACCOUNT and ACCOUNT_OWNER: by the account's name, by its owner's name`, () => {
    ordered(keyed(tasks({ ...open, sortBy: "TASK_SEARCH_SORT_BY_ACCOUNT" }), (t) => accountOf(t)?.displayName ?? ""));
    const ownerName = (t: Body) => json.users.find((u: Body) => u.id === accountOf(t)?.identityUserId)?.displayName ?? "";
    ordered(keyed(tasks({ ...open, sortBy: "TASK_SEARCH_SORT_BY_ACCOUNT_OWNER" }), ownerName));
  });
  it(`${TASKS}.sortBy RESOURCE and APP_RESOURCE_ID_AND_APP_ENTITLEMENT: by the entitlement's name; by its resource, then its id`, () => {
    ordered(keyed(tasks({ ...open, sortBy: "TASK_SEARCH_SORT_BY_RESOURCE" }), (t) => entitlementOf(t)?.displayName ?? ""));
    ordered(keyed(tasks({ ...open, sortBy: "TASK_SEARCH_SORT_BY_APP_RESOURCE_ID_AND_APP_ENTITLEMENT" }), (t) => `${entitlementOf(t)?.appResourceId}\u0000${entitlementOf(t)?.id}`));
  });
  it(`${TASKS}.sortBy: every order pages the same set, and an unknown order is INVALID_ARGUMENT`, () => {
    const base = sorted(tasks(open));
    for (const sortBy of ["TASK_SEARCH_SORT_BY_ACCOUNT", "TASK_SEARCH_SORT_BY_REVERSE_TICKET_ID", "TASK_SEARCH_SORT_BY_CREATED_AT"]) {
      const first = answer("/api/v1/search/tasks", searchTasks(world, caller, { ...open, sortBy, pageSize: 10 }));
      const rest = answer("/api/v1/search/tasks", searchTasks(world, caller, { ...open, sortBy, pageSize: 100, pageToken: first.nextPageToken }));
      expect(sorted([...first.list, ...rest.list].map((v: Body) => v.task.numericId))).toEqual(base);
    }
    expect(refusalOf(searchTasks(world, caller, { sortBy: "BY_MOOD" })).field).toBe("sortBy");
  });
});

const USERS = "openapi.yaml c1.api.user.v1.SearchUsersRequest";
describe(USERS, () => {
  const users = (body: Body) => answer("/api/v1/search/users", searchUsers(world, { ...all, ...body })).list.map((v: Body) => v.userId);
  it(`${USERS}.excludeTypes: leaves out users of these types`, () => {
    expect(sorted(users({ excludeTypes: ["USER_TYPE_AGENT", "USER_TYPE_SERVICE"] }))).toEqual(sorted(json.users.filter((u: Body) => u.type === "USER_TYPE_HUMAN").map((u: Body) => u.id)));
  });
  it(`${USERS}.isDelegate, .delegateStatus, .delegatedUserIds: from each user's delegatedUserId`, () => {
    // u-eng-mgr delegates to u-sre-lead (product_admin_delegate.mdx).
    expect(users({ isDelegate: true })).toEqual(["u-sre-lead"]);
    expect(users({ delegateStatus: "DELEGATE_STATUS_HAS_DELEGATE" })).toEqual(["u-eng-mgr"]);
    expect(users({ delegateStatus: "DELEGATE_STATUS_NO_DELEGATE" })).toHaveLength(json.users.length - 1);
    expect(users({ delegatedUserIds: ["u-sre-lead"] })).toEqual(["u-eng-mgr"]);
    expect(users({ delegatedUserIds: ["u-ceo"] })).toEqual([]);
  });
  it(`${USERS}.expandMask: roles, managers and the delegate, each once in expanded`, () => {
    const body = answer("/api/v1/search/users", searchUsers(world, { refs: [{ id: "u-eng-mgr" }], expandMask: { paths: ["*"] } }));
    const view = body.list[0];
    const at = (path: string) => path.replace(/^\$\.expanded\[|\]$/g, "").split(",").map((i) => body.expanded[Number(i)]);
    expect(at(view.delegatedUserPath)[0]).toMatchObject({ "@type": "type.googleapis.com/c1.api.user.v1.User", id: "u-sre-lead" });
    expect(at(view.managersPath).map((u: Body) => u.id)).toEqual(json.users.find((u: Body) => u.id === "u-eng-mgr").managerIds);
    expect(at(view.rolesPath)[0]["@type"]).toBe("type.googleapis.com/c1.api.iam.v1.Role");
    expect(view.directoriesPath).toBe("");
    expect(refusalOf(searchUsers(world, { expandMask: { paths: ["nope"] } })).field).toBe("expandMask.paths");
  });
});

const APPS = "openapi.yaml c1.api.app.v1.SearchAppsRequest";
describe(APPS, () => {
  const apps = (body: Body) => answer("/api/v1/search/apps", searchApps(world, body)).list.map((a: Body) => a.id);
  it(`${APPS}.displayName: "a case insensitive match on the display name"`, () => {
    expect(apps({ displayName: "github" })).toEqual(["app-github"]);
    expect(apps({ displayName: "GITHUB" })).toEqual(["app-github"]);
    expect(apps({ displayName: "git" })).toEqual([]);
  });
  it(`${APPS}.policyRefs: apps whose grant, revoke or certify policy is one of these`, () => {
    expect(apps({ policyRefs: [{ id: "pol-certify-manager" }] })).toEqual(["app-github"]);
    expect(apps({ policyRefs: [{ id: "pol-aws-access" }, { id: "pol-revoke-salesforce" }] })).toEqual(["app-aws", "app-salesforce"]);
  });
  it(`${APPS}.query: "fuzzy search on display name and description", any case`, () => {
    const described = worldOf({ ...json, apps: json.apps.map((a: Body) => (a.id === "app-github" ? { ...a, description: "Source code and CI for every team" } : a)) });
    const byQuery = (query: string) => answer("/api/v1/search/apps", searchApps(described, { query })).list.map((a: Body) => a.id);
    expect(byQuery("source CODE")).toEqual(["app-github"]);
    expect(byQuery("hub")).toEqual(["app-github"]);
    expect(byQuery("no app says this")).toEqual([]);
  });
});

const ENTS = "openapi.yaml c1.api.app.v1.AppEntitlementSearchServiceSearchRequest";
describe(ENTS, () => {
  const ents = (body: Body) => answer("/api/v1/search/entitlements", searchEntitlements(world, { ...all, ...body })).list.map((v: Body) => v.appEntitlement.id);
  const ids = (f: (e: Body) => boolean) => json.entitlements.filter(f).map((e: Body) => e.id);
  it(`${ENTS}.riskLevelIds: by risk level`, () => {
    expect(ents({ riskLevelIds: ["critical"] })).toEqual(ids((e) => e.riskLevelValueId === "critical"));
    expect(ents({ riskLevelIds: ["critical", "high"] })).toEqual(ids((e) => ["critical", "high"].includes(e.riskLevelValueId)));
  });
  it(`${ENTS}.resourceTypeIds and .excludeResourceTypeIds: by the entitlement's resource type`, () => {
    expect(ents({ resourceTypeIds: ["rt-group"] })).toEqual(ids((e) => e.appResourceTypeId === "rt-group"));
    expect(ents({ excludeResourceTypeIds: ["rt-group", "rt-role"] })).toEqual(ids((e) => !["rt-group", "rt-role"].includes(e.appResourceTypeId)));
  });
  it(`${ENTS}.policyRefs: entitlements whose grant, revoke, certify or emergency policy is one of these`, () => {
    expect(ents({ policyRefs: [{ id: "pol-emergency-breakglass" }] })).toEqual(["ent-aws-prod-admin", "ent-aws-prod-db", "ent-okta-super-admin"]);
    expect(ents({ policyRefs: [{ id: "pol-security-sensitive" }] })).toEqual(ids((e) => e.grantPolicyId === "pol-security-sensitive"));
  });
  it(`${ENTS}.excludeAppUserIds: leaves out what these accounts' users hold`, () => {
    const account = json.appUsers.find((a: Body) => a.id === "au-aws-dev2");
    const held = new Set(json.grants.filter((g: Body) => g.appId === account.appId && g.identityUserId === account.identityUserId).map((g: Body) => g.appEntitlementId));
    expect(held.size).toBeGreaterThan(0);
    expect(ents({ excludeAppUserIds: ["au-aws-dev2"] })).toEqual(ids((e) => !(e.appId === account.appId && held.has(e.id))));
    expect(sorted(ents({ appUserIds: ["au-aws-dev2"] }))).toEqual(sorted([...held] as string[]));
  });
  it(`${ENTS}.accessReviewId: the entitlements that campaign's certify tasks review`, () => {
    const reviewed = fileTasks.filter((t) => kindOf(t) === "certify" && typeOf(t).accessReviewId === "ar-2026-q4-critical").map((t) => typeOf(t).appEntitlementId);
    expect(sorted(ents({ accessReviewId: "ar-2026-q4-critical" }))).toEqual(sorted([...new Set(reviewed)] as string[]));
  });
  it(`${ENTS}.requestSchemaIds: by the entitlement's request schema`, () => {
    const withSchema = worldOf({ ...json, entitlements: json.entitlements.map((e: Body) => (e.id === "ent-sf-finance-reports" ? { ...e, requestSchemaId: "rs-finance" } : e)) });
    expect(answer("/api/v1/search/entitlements", searchEntitlements(withSchema, { requestSchemaIds: ["rs-finance"] })).list.map((v: Body) => v.appEntitlement.id)).toEqual(["ent-sf-finance-reports"]);
  });
  it(`${ENTS}.expandMask: the app, resource type and resource of each entitlement, in expanded`, () => {
    const body = answer("/api/v1/search/entitlements", searchEntitlements(world, { refs: [{ appId: "app-aws", id: "ent-aws-prod-admin" }], expandMask: { paths: ["*"] } }));
    const view = body.list[0];
    const item = (path: string) => body.expanded[Number(/\d+/.exec(path)?.[0])];
    expect(item(view.appPath)).toMatchObject({ "@type": "type.googleapis.com/c1.api.app.v1.App", id: "app-aws" });
    expect(item(view.appResourceTypePath)).toMatchObject({ "@type": "type.googleapis.com/c1.api.app.v1.AppResourceType", id: view.appEntitlement.appResourceTypeId });
    expect(item(view.appResourcePath)).toMatchObject({ "@type": "type.googleapis.com/c1.api.app.v1.AppResource", id: view.appEntitlement.appResourceId });
    const plain = answer("/api/v1/search/entitlements", searchEntitlements(world, all));
    expect(plain.expanded).toEqual([]);
  });
  it(`${ENTS}.alias: "Search for app entitlements that have this alias (exact match)", the alias a world file or AppEntitlements.Update keeps`, () => {
    const aliased = worldOf({
      ...json,
      entitlements: json.entitlements.map((e: Body) => (e.id === "ent-aws-sandbox" ? { ...e, alias: "sbx" } : e.id === "ent-aws-prod-admin" ? { ...e, alias: "sbx-admin" } : e)),
    });
    const byAlias = (alias: string) => answer("/api/v1/search/entitlements", searchEntitlements(aliased, { ...all, alias })).list.map((v: Body) => v.appEntitlement.id);
    expect(byAlias("sbx")).toEqual(["ent-aws-sandbox"]);
    expect(byAlias("SBX")).toEqual([]);
    expect(byAlias("sbx-")).toEqual([]);
    expect(byAlias("")).toHaveLength(json.entitlements.length);
  });
  it(`${ENTS}.query: "fuzzy search on display name and description", any case; the id as well`, () => {
    const described = worldOf({ ...json, entitlements: json.entitlements.map((e: Body) => (e.id === "ent-aws-billing" ? { ...e, description: "Read invoices and Cost Explorer" } : e)) });
    const byQuery = (query: string) => answer("/api/v1/search/entitlements", searchEntitlements(described, { ...all, query })).list.map((v: Body) => v.appEntitlement.id);
    expect(byQuery("cost explorer")).toEqual(["ent-aws-billing"]);
    expect(byQuery("INVOICES")).toEqual(["ent-aws-billing"]);
    expect(byQuery("ent-aws-billing")).toEqual(["ent-aws-billing"]);
    const named = json.entitlements[0] as Body;
    expect(byQuery(String(named.displayName).toUpperCase())).toContain(named.id);
    expect(byQuery("no entitlement says this")).toEqual([]);
  });
  it(`${ENTS}.isAutomated, .membershipType: the world has no automation rules or membership types, so they are UNIMPLEMENTED`, () => {
    for (const body of [{ isAutomated: true }, { membershipType: ["APP_ENTITLEMENT_MEMBERSHIP_TYPE_OWNER"] }])
      expect(refusalOf(searchEntitlements(world, body))).toMatchObject({ status: 501, code: "UNIMPLEMENTED", metadata: { field: Object.keys(body)[0] } });
    expect(ents({ alias: "", isAutomated: false, membershipType: [] })).toHaveLength(json.entitlements.length);
  });
});

const GRANTS = "openapi.yaml c1.api.app.v1.AppEntitlementSearchServiceSearchGrantsRequest";
describe(GRANTS, () => {
  it(`${GRANTS}.expandMask: each grant's entitlement with its app in expanded`, () => {
    const body = answer("/api/v1/search/grants", searchGrants(world, { userId: "u-dev2", expandMask: { paths: ["app_id"] } }));
    expect(body.list.length).toBeGreaterThan(0);
    for (const row of body.list) expect(body.expanded[Number(/\d+/.exec(row.entitlement.appPath)?.[0])].id).toBe(row.entitlement.appEntitlement.appId);
  });
});

const APP_USERS = "openapi.yaml c1.api.app.v1.AppUserServiceSearchRequest";
describe(APP_USERS, () => {
  const accounts = (body: Body): string[] => answer("/api/v1/search/app_users", searchAppUsers(world, { ...all, ...body })).list.map((v: Body) => v.appUser.id);
  it(`${APP_USERS}.appUserStatuses and .appUserStatusDetails: by the account's status`, () => {
    const disabled = json.appUsers.filter((a: Body) => a.status?.status === "APP_USER_STATUS_DISABLED").map((a: Body) => a.id);
    expect(disabled.length).toBe(4);
    expect(sorted(accounts({ appUserStatuses: ["STATUS_DISABLED"] }))).toEqual(sorted(disabled));
    expect(sorted(accounts({ appUserStatusDetails: ["Suspended by identity lifecycle"] }))).toEqual(sorted(disabled));
    expect(accounts({ appUserStatuses: ["STATUS_DELETED"] })).toEqual([]);
  });
  it(`${APP_USERS}.refs: the accounts named by {appId, id}`, () => {
    expect(accounts({ refs: [{ appId: "app-aws", id: "au-aws-dev2" }, { appId: "app-okta", id: "au-aws-dev1" }] })).toEqual(["au-aws-dev2"]);
  });
  it(`${APP_USERS}.withoutResponsibleParty: accounts with no identity user`, () => {
    expect(accounts({ withoutResponsibleParty: true })).toEqual(json.appUsers.filter((a: Body) => a.identityUserId === "").map((a: Body) => a.id));
  });
  it(`${APP_USERS}.sortBy: by display name by default, by app then display name with APP_USER_SEARCH_SORT_BY_APP`, () => {
    const name = (id: string) => json.appUsers.find((a: Body) => a.id === id).displayName.toLowerCase();
    const byName = accounts({}).map(name);
    expect(byName).toEqual([...byName].sort());
    const app = (id: string) => json.apps.find((a: Body) => a.id === json.appUsers.find((x: Body) => x.id === id).appId).displayName.toLowerCase();
    const byApp = accounts({ sortBy: "APP_USER_SEARCH_SORT_BY_APP" }).map((id: string) => `${app(id)}\u0000${name(id)}`);
    expect(byApp).toEqual([...byApp].sort());
  });
  it(`${APP_USERS}.expandMask: each account's identity user and app`, () => {
    const body = answer("/api/v1/search/app_users", searchAppUsers(world, { appUserIds: ["au-aws-dev2"], expandMask: { paths: ["identity_user_id", "app_id", "last_usage"] } }));
    const view = body.list[0];
    expect(body.expanded[Number(/\d+/.exec(view.identityUserPath)?.[0])]).toMatchObject({ id: "u-dev2" });
    expect(body.expanded[Number(/\d+/.exec(view.appPath)?.[0])]).toMatchObject({ id: "app-aws" });
    expect(view.lastUsagePath).toBe("");
  });
});

const POLICIES = "openapi.yaml c1.api.policy.v1.SearchPoliciesRequest";
describe(POLICIES, () => {
  const policies = (w: World, body: Body) => answer("/api/v1/search/policies", searchPolicies(w, { ...all, ...body })).list.map((p: Body) => p.id);
  it(`${POLICIES}.displayName: "a case insensitive match on the display name"`, () => {
    const p = json.policies[1];
    expect(policies(world, { displayName: p.displayName.toUpperCase() })).toEqual([p.id]);
  });
  it(`${POLICIES}.includeDeleted: a deleted policy is left out unless asked for`, () => {
    const w = worldOf({ ...json, policies: json.policies.map((p: Body) => (p.id === "pol-finding-triage" ? { ...p, deletedAt: "2026-11-01T00:00:00Z" } : p)) });
    expect(policies(w, {})).not.toContain("pol-finding-triage");
    expect(policies(w, { includeDeleted: true })).toContain("pol-finding-triage");
  });
  it(`${POLICIES}.scopeView, .scopeAppId, .scopeAppEntitlementId, .scopeObjectType, .scopeSlot: global only by default, local ones when asked`, () => {
    const scoped = (id: string, scope: Body) => (p: Body) => (p.id === id ? { ...p, scope } : p);
    const w = worldOf({
      ...json,
      policies: json.policies
        .map(scoped("pol-aws-access", { appId: "app-aws", appEntitlementId: "", slot: "POLICY_SCOPE_SLOT_UNSPECIFIED" }))
        .map(scoped("pol-prod-admin", { appId: "app-aws", appEntitlementId: "ent-aws-prod-admin", slot: "POLICY_SCOPE_SLOT_EMERGENCY" })),
    });
    const local = ["pol-aws-access", "pol-prod-admin"];
    expect(policies(w, {}).filter((id: string) => local.includes(id))).toEqual([]);
    expect(policies(w, { scopeView: "POLICY_SCOPE_VIEW_ALL" })).toEqual(expect.arrayContaining(local));
    expect(sorted(policies(w, { scopeView: "POLICY_SCOPE_VIEW_SCOPED" }))).toEqual(local);
    expect(policies(w, { scopeView: "POLICY_SCOPE_VIEW_SCOPED", scopeObjectType: "POLICY_SCOPE_OBJECT_TYPE_ENTITLEMENT" })).toEqual(["pol-prod-admin"]);
    expect(policies(w, { scopeView: "POLICY_SCOPE_VIEW_SCOPED", scopeAppId: "app-aws", scopeSlot: "POLICY_SCOPE_SLOT_EMERGENCY" })).toEqual(["pol-prod-admin"]);
    expect(policies(w, { scopeView: "POLICY_SCOPE_VIEW_SCOPED", scopeAppEntitlementId: "ent-aws-prod-admin" })).toEqual(["pol-prod-admin"]);
    const globalAndAws = policies(w, { scopeView: "POLICY_SCOPE_VIEW_GLOBAL_AND_OBJECT", scopeAppId: "app-aws" });
    expect(globalAndAws).toHaveLength(json.policies.length);
    expect(policies(w, { refs: [{ id: "pol-prod-admin" }] })).toEqual(["pol-prod-admin"]);
  });
});

describe("openapi.yaml c1.api.app.v1.SearchAppResourcesRequest and SearchUserOwnershipRequest", () => {
  it("openapi.yaml c1.api.app.v1.SearchAppResourcesRequest.sortField: unspecified keeps the default order, app then display name", () => {
    const body = answer("/api/v1/search/app_resources", searchResources(world, all));
    const keys = body.list.map((v: Body) => `${json.apps.find((a: Body) => a.id === v.appResource.appId).displayName.toLowerCase()}\u0000${v.appResource.displayName.toLowerCase()}`);
    expect(keys).toEqual([...keys].sort());
  });
  it("openapi.yaml c1.api.app.v1.SearchUserOwnershipRequest.ownershipTypes: USER_OWNERSHIP_TYPE_RESOURCE is UNIMPLEMENTED (no resource owners), the others answer", () => {
    const owner = json.apps[0].ownerUserIds[0];
    expect(refusalOf(searchUserOwnership(world, { userId: owner, ownershipTypes: ["USER_OWNERSHIP_TYPE_RESOURCE"] }))).toMatchObject({ status: 501, metadata: { field: "ownershipTypes" } });
    expect(refusalOf(searchUserOwnership(world, { userId: owner, ownershipTypes: ["USER_OWNERSHIP_TYPE_BOGUS"] }))).toMatchObject({ status: 400, field: "ownershipTypes" });
    expect(answer("/api/v1/search/user-ownership", searchUserOwnership(world, { userId: owner, ownershipTypes: ["USER_OWNERSHIP_TYPE_APP"] })).list.length).toBeGreaterThan(0);
  });
});
