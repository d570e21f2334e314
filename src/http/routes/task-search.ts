/**
 * `POST /api/v1/search/tasks` (`c1.api.task.v1.TaskSearchService.Search`): the tasks the caller may
 * read that match every filter of a `TaskSearchRequest`, each filter read as its openapi.yaml
 * description says, over the world's tasks and directory.
 *
 * A search runs over every task of the world (tenants of 100k tasks), so the request is turned once
 * into a list of tests, each over fields of the task and sets built for this request; the scan
 * itself allocates nothing per task. Filters the world has no data for are refused
 * (`search-fields.ts`).
 */
import type { AppEntitlement, AppUser, User } from "../../model/directory.js";
import {
  KNOWN_CERTIFY_OUTCOMES,
  KNOWN_GRANT_OUTCOMES,
  KNOWN_REVOKE_OUTCOMES,
  KNOWN_TASK_STATES,
  type PolicyStepInstance,
  type StepInstance,
  type Task,
} from "../../model/index.js";
import type { JsonObject, JsonValue } from "../../model/json.js";
import { taskSubjectId, certifyReviewId } from "../../model/task-refs.js";
import { canRead, relationTo } from "../../reducers/permissions.js";
import { validateExpandPaths } from "../../reducers/task-view.js";
import { ok, type Result } from "../../result.js";
import type { World } from "../../world/world.js";
import type { HttpFailure } from "../error-body.js";
import { bodyFingerprint, type Cursor, pageFromBody, pageOf } from "../paging.js";
import { ACCOUNT_STATUSES, ACCOUNT_TYPES, accountStatusOf, accountTypeOf } from "./app-user-search.js";
import { encodedView, shiftPaths } from "./reads.js";
import { invalid } from "./refuse.js";
import {
  type Body,
  collect,
  duration,
  enums,
  type Field,
  flag,
  member,
  refIds,
  refuseUnmodelled,
  type SearchFields,
  strings,
  text,
  timestamp,
} from "./search-fields.js";

type Read = Result<JsonObject, HttpFailure>;

/** `TaskSearchRequest.sortBy`, the zero member first. */
const TASK_SORTS = [
  "TASK_SEARCH_SORT_BY_UNSPECIFIED",
  "TASK_SEARCH_SORT_BY_ACCOUNT",
  "TASK_SEARCH_SORT_BY_RESOURCE",
  "TASK_SEARCH_SORT_BY_ACCOUNT_OWNER",
  "TASK_SEARCH_SORT_BY_REVERSE_TICKET_ID",
  "TASK_SEARCH_SORT_BY_TICKET_ID",
  "TASK_SEARCH_SORT_BY_CREATED_AT",
  "TASK_SEARCH_SORT_BY_REVERSE_CREATED_AT",
  "TASK_SEARCH_SORT_BY_APP_RESOURCE_ID_AND_APP_ENTITLEMENT",
] as const;

/** `TaskSearchRequest.emergencyStatus`: `UNSPECIFIED` and `ALL` both keep every task. */
const EMERGENCY_STATUSES = ["UNSPECIFIED", "ALL", "NON_EMERGENCY", "EMERGENCY"] as const;

const CURRENT_STEPS = ["TASK_SEARCH_CURRENT_STEP_UNSPECIFIED", "TASK_SEARCH_CURRENT_STEP_APPROVAL", "TASK_SEARCH_CURRENT_STEP_PROVISION"] as const;

const PENDING_ACTION_FILTERS = ["PENDING_ACTION_FILTER_UNSPECIFIED", "PENDING_ACTION_FILTER_WITH_PENDING", "PENDING_ACTION_FILTER_WITHOUT_PENDING"] as const;

/** `stepApprovalTypes` by the approver kind of the current approval step (`ApproverKind`). */
const STEP_APPROVAL_TYPE_OF: Readonly<Record<string, string>> = {
  users: "STEP_APPROVAL_TYPE_USERS",
  manager: "STEP_APPROVAL_TYPE_MANAGER",
  appOwners: "STEP_APPROVAL_TYPE_APP_OWNERS",
  group: "STEP_APPROVAL_TYPE_GROUP",
  self: "STEP_APPROVAL_TYPE_SELF",
  entitlementOwners: "STEP_APPROVAL_TYPE_ENTITLEMENT_OWNERS",
  expression: "STEP_APPROVAL_TYPE_EXPRESSION",
  webhook: "STEP_APPROVAL_TYPE_WEBHOOK",
  resourceOwners: "STEP_APPROVAL_TYPE_RESOURCE_OWNERS",
  agent: "STEP_APPROVAL_TYPE_AGENT",
};
const STEP_APPROVAL_TYPES = ["STEP_APPROVAL_TYPE_UNSPECIFIED", ...Object.values(STEP_APPROVAL_TYPE_OF)];

/** The members of the `TaskType` oneof, as `taskTypes` names them (`{"grant": {}}`). */
const TASK_KINDS = ["grant", "revoke", "certify", "offboarding", "action", "finding"] as const;

/**
 * Every property of `c1.api.task.v1.TaskSearchRequest`: read by {@link searchTasks}, or refused.
 *
 * @example
 * ```ts
 * TASK_SEARCH_FIELDS.implemented.includes("assigneesInIds"); // true
 * ```
 */
export const TASK_SEARCH_FIELDS: SearchFields = {
  implemented: [
    "pageSize",
    "pageToken",
    "expandMask",
    "refs",
    "excludeIds",
    "query",
    "taskStates",
    "taskTypes",
    "includeDeleted",
    "emergencyStatus",
    "createdAfter",
    "createdBefore",
    "olderThanDuration",
    "outcomeAfter",
    "outcomeBefore",
    "grantOutcomes",
    "revokeOutcomes",
    "certifyOutcomes",
    "assigneesInIds",
    "assignedOrStepApproverUserId",
    "myWorkUserIds",
    "previouslyActedOnIds",
    "currentStep",
    "stepApprovalTypes",
    "requireApprovalReason",
    "requireDenialReason",
    "subjectIds",
    "openerIds",
    "openerOrSubjectUserId",
    "userEmploymentStatuses",
    "applicationIds",
    "excludeApplicationIds",
    "appEntitlementIds",
    "excludeAppEntitlementIds",
    "appResourceIds",
    "appResourceTypeIds",
    "excludeAppResourceTypeIds",
    "accessReviewIds",
    "appUserSubjectIds",
    "accountOwnerIds",
    "accountTypes",
    "accountStatuses",
    "sortBy",
  ],
  unmodelled: {
    // The OpenAPI says only "tasks that have this actor ID"; no task field is called the actor.
    actorId: { shape: { kind: "text" }, lacks: 'task "actor" (the OpenAPI says only "tasks that have this actor ID", not which user of a task that is)' },
    // Undescribed in the OpenAPI; a time filter on "acted" needs a meaning the spec does not give.
    includeActedAfter: { shape: { kind: "timestamp" }, lacks: "meaning for includeActedAfter (the OpenAPI leaves it undescribed)" },
    pendingActionFilter: {
      shape: { kind: "member", members: PENDING_ACTION_FILTERS },
      lacks: "pending review actions (the REVIEWS_PENDING_ACTIONS feature)",
    },
  },
};

/** The decoded request: each filter as the set or value the tests read. */
interface TaskQuery {
  readonly includeDeleted: boolean;
  readonly refs: ReadonlySet<string>;
  readonly excludeIds: ReadonlySet<string>;
  readonly query: string;
  readonly states: ReadonlySet<string>;
  readonly kinds: ReadonlySet<string>;
  readonly emergency: string;
  readonly createdAfter: number | undefined;
  readonly createdBefore: number | undefined;
  readonly olderThan: number | undefined;
  readonly outcomeAfter: number | undefined;
  readonly outcomeBefore: number | undefined;
  readonly grantOutcomes: ReadonlySet<string>;
  readonly revokeOutcomes: ReadonlySet<string>;
  readonly certifyOutcomes: ReadonlySet<string>;
  readonly assignees: ReadonlySet<string>;
  readonly assignedOrApprover: ReadonlySet<string>;
  readonly myWork: ReadonlySet<string>;
  readonly actedOn: ReadonlySet<string>;
  readonly currentStep: string;
  readonly stepApprovalTypes: ReadonlySet<string>;
  readonly requireApprovalReason: boolean;
  readonly requireDenialReason: boolean;
  readonly subjects: ReadonlySet<string>;
  readonly openers: ReadonlySet<string>;
  readonly openerOrSubject: string;
  readonly employmentStatuses: ReadonlySet<string>;
  readonly apps: ReadonlySet<string>;
  readonly excludeApps: ReadonlySet<string>;
  readonly entitlements: ReadonlySet<string>;
  readonly excludeEntitlements: ReadonlySet<string>;
  readonly resources: ReadonlySet<string>;
  readonly resourceTypes: ReadonlySet<string>;
  readonly excludeResourceTypes: ReadonlySet<string>;
  readonly accessReviews: ReadonlySet<string>;
  readonly appUsers: ReadonlySet<string>;
  readonly accountOwners: ReadonlySet<string>;
  readonly accountTypes: ReadonlySet<string>;
  readonly accountStatuses: ReadonlySet<string>;
}

/** `taskTypes`: each element one member of the TaskType oneof, its fields (output fields) unread. */
function taskKinds(body: Body): Field<readonly string[]> {
  const v = body["taskTypes"];
  if (v === undefined || v === null) return ok([]);
  const bad = invalid("taskTypes", `taskTypes must be an array of TaskType objects naming one of ${TASK_KINDS.join(", ")}, such as {"grant": {}}`);
  if (!Array.isArray(v)) return bad;
  const kinds: string[] = [];
  for (const t of v) {
    if (typeof t !== "object" || t === null || Array.isArray(t)) return bad;
    const named = Object.keys(t).filter((k) => (t as Body)[k] !== null && (t as Body)[k] !== undefined);
    if (named.length !== 1 || !(TASK_KINDS as readonly string[]).includes(named[0] ?? "")) return bad;
    kinds.push(named[0] ?? "");
  }
  return ok(kinds);
}

function decode(body: Body): Field<TaskQuery> {
  const f = collect({
    refs: refIds(body, "refs"),
    excludeIds: strings(body, "excludeIds"),
    query: text(body, "query"),
    states: enums(body, "taskStates", KNOWN_TASK_STATES),
    kinds: taskKinds(body),
    includeDeleted: flag(body, "includeDeleted"),
    emergency: member(body, "emergencyStatus", EMERGENCY_STATUSES),
    createdAfter: timestamp(body, "createdAfter"),
    createdBefore: timestamp(body, "createdBefore"),
    olderThan: duration(body, "olderThanDuration"),
    outcomeAfter: timestamp(body, "outcomeAfter"),
    outcomeBefore: timestamp(body, "outcomeBefore"),
    grantOutcomes: enums(body, "grantOutcomes", KNOWN_GRANT_OUTCOMES),
    revokeOutcomes: enums(body, "revokeOutcomes", KNOWN_REVOKE_OUTCOMES),
    certifyOutcomes: enums(body, "certifyOutcomes", KNOWN_CERTIFY_OUTCOMES),
    assignees: strings(body, "assigneesInIds"),
    assignedOrApprover: text(body, "assignedOrStepApproverUserId"),
    myWork: strings(body, "myWorkUserIds"),
    actedOn: strings(body, "previouslyActedOnIds"),
    currentStep: member(body, "currentStep", CURRENT_STEPS),
    stepApprovalTypes: enums(body, "stepApprovalTypes", STEP_APPROVAL_TYPES),
    requireApprovalReason: flag(body, "requireApprovalReason"),
    requireDenialReason: flag(body, "requireDenialReason"),
    subjects: strings(body, "subjectIds"),
    openers: strings(body, "openerIds"),
    openerOrSubject: text(body, "openerOrSubjectUserId"),
    employmentStatuses: strings(body, "userEmploymentStatuses"),
    apps: strings(body, "applicationIds"),
    excludeApps: strings(body, "excludeApplicationIds"),
    entitlements: strings(body, "appEntitlementIds"),
    excludeEntitlements: strings(body, "excludeAppEntitlementIds"),
    resources: strings(body, "appResourceIds"),
    resourceTypes: strings(body, "appResourceTypeIds"),
    excludeResourceTypes: strings(body, "excludeAppResourceTypeIds"),
    accessReviews: strings(body, "accessReviewIds"),
    appUsers: strings(body, "appUserSubjectIds"),
    accountOwners: strings(body, "accountOwnerIds"),
    accountTypes: enums(body, "accountTypes", ACCOUNT_TYPES),
    accountStatuses: enums(body, "accountStatuses", ACCOUNT_STATUSES),
  });
  if (!f.ok) return f;
  const v = f.value;
  const s = (xs: readonly string[]): ReadonlySet<string> => new Set(xs);
  return ok({
    ...v,
    refs: s(v.refs),
    excludeIds: s(v.excludeIds),
    states: s(v.states),
    kinds: s(v.kinds),
    grantOutcomes: s(v.grantOutcomes),
    revokeOutcomes: s(v.revokeOutcomes),
    certifyOutcomes: s(v.certifyOutcomes),
    assignees: s(v.assignees),
    assignedOrApprover: s(v.assignedOrApprover === "" ? [] : [v.assignedOrApprover]),
    myWork: s(v.myWork),
    actedOn: s(v.actedOn),
    stepApprovalTypes: s(v.stepApprovalTypes),
    subjects: s(v.subjects),
    openers: s(v.openers),
    employmentStatuses: s(v.employmentStatuses),
    apps: s(v.apps),
    excludeApps: s(v.excludeApps),
    entitlements: s(v.entitlements),
    excludeEntitlements: s(v.excludeEntitlements),
    resources: s(v.resources),
    resourceTypes: s(v.resourceTypes),
    excludeResourceTypes: s(v.excludeResourceTypes),
    accessReviews: s(v.accessReviews),
    appUsers: s(v.appUsers),
    accountOwners: s(v.accountOwners),
    accountTypes: s(v.accountTypes),
    accountStatuses: s(v.accountStatuses),
  });
}

// ---------------------------------------------------------------------------------------------
// What a task is about, read without allocating (the view's `taskRefs` reads the same fields)

function appIdOf(t: Task): string {
  const type = t.type;
  if (!type) return "";
  if (type.kind === "grant" || type.kind === "revoke" || type.kind === "certify") return type.appId;
  return type.kind === "action" && type.target?.kind === "scopeRole" ? type.target.appId : "";
}

function entitlementIdOf(t: Task): string {
  const type = t.type;
  return type && (type.kind === "grant" || type.kind === "revoke" || type.kind === "certify") ? type.appEntitlementId : "";
}

function appUserIdOf(t: Task): string {
  const type = t.type;
  if (!type) return "";
  if (type.kind === "grant" || type.kind === "revoke" || type.kind === "certify") return type.appUserId;
  return type.kind === "action" && type.target?.kind === "scopeRole" ? type.target.appUserId : "";
}

function outcomeTimeOf(t: Task): string | null {
  const type = t.type;
  return type && type.kind !== "unknown" ? type.outcomeTime : null;
}

function createdMs(t: Task): number {
  return t.createdAt === null ? Number.NaN : Date.parse(t.createdAt);
}

const isOpen = (t: Task) => t.state === "TASK_STATE_OPEN";

function anyIn(ids: readonly string[] | null, wanted: ReadonlySet<string>): boolean {
  if (ids) for (let i = 0; i < ids.length; i++) if (wanted.has(ids[i] ?? "")) return true;
  return false;
}

/**
 * openapi.yaml `assignedOrStepApproverUserId`: "currently assigned to this user, or … closed and
 * were previously approved by this user". Currently assigned: an open task whose current step
 * waits on the user (`stepApproverIds`); `approverIds` are those who already approved.
 */
const assignedOrApprovedBy = (t: Task, users: ReadonlySet<string>): boolean =>
  isOpen(t) ? anyIn(t.stepApproverIds, users) : t.state === "TASK_STATE_CLOSED" && anyIn(t.approverIds, users);

function currentOf(t: Task): StepInstance | null {
  return t.policy?.current?.instance ?? null;
}

/** Who ended a step (approved, denied, reassigned, restarted, skipped, completed or cancelled it). */
function actorOf(step: PolicyStepInstance | undefined): string {
  const inst = step?.instance;
  if (!inst || inst.kind === "unknown" || inst.kind === "accept" || inst.kind === "reject" || inst.kind === "action") return "";
  const o = inst.outcome;
  if (!o || o.kind === "unknown") return "";
  if ("userId" in o) return o.userId;
  return "cancelledByUserId" in o ? o.cancelledByUserId : "";
}

/** openapi.yaml `previouslyActedOnIds`: an approver of the task, or the user who ended one of its steps. */
function actedOnBy(t: Task, users: ReadonlySet<string>): boolean {
  if (anyIn(t.approverIds, users)) return true;
  const history = t.policy?.history;
  if (history) for (let i = 0; i < history.length; i++) if (users.has(actorOf(history.at(i)))) return true;
  return false;
}

/** The task's entitlement in the world (grant, revoke and certify tasks). */
function entitlementOf(world: World, t: Task): AppEntitlement | undefined {
  const id = entitlementIdOf(t);
  return id === "" ? undefined : world.index.entitlementsByApp.get(appIdOf(t))?.get(id);
}

/** The account the task is about (`appUserId`), as the task view expands it. */
function accountOf(world: World, t: Task): AppUser | undefined {
  const id = appUserIdOf(t);
  return id === "" ? undefined : world.index.appUsers.get(id);
}

/** `query`: "fuzzy" as the service's other searches are here, a case-insensitive substring. */
// The spec: a task's numericId "may replace the task id in path parameters, never in search
// queries" (openapi.yaml's refs description names numeric IDs; the spec is the contract here).
const matchesText = (q: RegExp, t: Task) => q.test(t.displayName) || q.test(t.description) || q.test(t.id);

type Test = (t: Task) => boolean;

/** One test per filter the request sets, in the order a cheap one rules a task out first. */
function testsOf(world: World, q: TaskQuery): Test[] {
  const tests: Test[] = [];
  const add = (when: boolean, test: Test) => {
    if (when) tests.push(test);
  };
  add(!q.includeDeleted, (t) => t.deletedAt === null);
  add(q.excludeIds.size > 0, (t) => !q.excludeIds.has(t.id));
  add(q.refs.size > 0, (t) => q.refs.has(t.id));
  add(q.states.size > 0, (t) => q.states.has(t.state));
  add(q.kinds.size > 0, (t) => q.kinds.has(t.type?.kind ?? ""));
  add(q.emergency === "EMERGENCY", (t) => t.emergencyAccess);
  add(q.emergency === "NON_EMERGENCY", (t) => !t.emergencyAccess);

  // Created and outcome times: `after` inclusive, `before` exclusive; a task without the time is out.
  const { createdAfter: ca, createdBefore: cb, outcomeAfter: oa, outcomeBefore: ob } = q;
  if (ca !== undefined) tests.push((t) => createdMs(t) >= ca);
  if (cb !== undefined) tests.push((t) => createdMs(t) < cb);
  // openapi.yaml olderThanDuration: created at least that long before the world's clock.
  if (q.olderThan !== undefined) {
    const latest = Date.parse(world.now) - q.olderThan;
    tests.push((t) => createdMs(t) <= latest);
  }
  const outcomeMs = (t: Task) => {
    const at = outcomeTimeOf(t);
    return at === null ? Number.NaN : Date.parse(at);
  };
  if (oa !== undefined) tests.push((t) => outcomeMs(t) >= oa);
  if (ob !== undefined) tests.push((t) => outcomeMs(t) < ob);

  // The three outcome lists are one filter: a grant task by grantOutcomes, a revoke task by
  // revokeOutcomes, a certify task by certifyOutcomes; a task of a kind whose list is empty is out.
  const { grantOutcomes: go, revokeOutcomes: ro, certifyOutcomes: co } = q;
  add(go.size + ro.size + co.size > 0, (t) => {
    const type = t.type;
    if (type?.kind === "grant") return go.has(type.outcome);
    if (type?.kind === "revoke") return ro.has(type.outcome);
    return type?.kind === "certify" && co.has(type.outcome);
  });

  // openapi.yaml assigneesInIds: "UserIDs which are currently assigned"; see assignedOrApprovedBy.
  add(q.assignees.size > 0, (t) => isOpen(t) && anyIn(t.stepApproverIds, q.assignees));
  add(q.assignedOrApprover.size > 0, (t) => assignedOrApprovedBy(t, q.assignedOrApprover));
  // "where the user would see this task in the My Work section": their open tasks waiting on them,
  // and the closed ones they approved (the section's closed tab), as assignedOrStepApproverUserId.
  add(q.myWork.size > 0, (t) => assignedOrApprovedBy(t, q.myWork));
  add(q.actedOn.size > 0, (t) => actedOnBy(t, q.actedOn));

  const current = (t: Task) => (isOpen(t) ? currentOf(t) : null);
  add(q.currentStep === "TASK_SEARCH_CURRENT_STEP_APPROVAL", (t) => current(t)?.kind === "approval");
  add(q.currentStep === "TASK_SEARCH_CURRENT_STEP_PROVISION", (t) => current(t)?.kind === "provision");
  const approval = (t: Task) => {
    const c = current(t);
    return c?.kind === "approval" ? c.approval : null;
  };
  add(q.stepApprovalTypes.size > 0, (t) => q.stepApprovalTypes.has(STEP_APPROVAL_TYPE_OF[approval(t)?.approvers?.kind ?? ""] ?? ""));
  add(q.requireApprovalReason, (t) => approval(t)?.requireApprovalReason === true);
  add(q.requireDenialReason, (t) => approval(t)?.requireDenialReason === true);

  add(q.subjects.size > 0, (t) => q.subjects.has(taskSubjectId(t)));
  add(q.openers.size > 0, (t) => q.openers.has(t.createdByUserId));
  add(q.openerOrSubject !== "", (t) => t.createdByUserId === q.openerOrSubject || taskSubjectId(t) === q.openerOrSubject);
  add(q.employmentStatuses.size > 0, (t) => q.employmentStatuses.has(world.index.users.get(taskSubjectId(t))?.employmentStatus ?? ""));

  add(q.apps.size > 0, (t) => q.apps.has(appIdOf(t)));
  add(q.excludeApps.size > 0, (t) => !q.excludeApps.has(appIdOf(t)));
  add(q.entitlements.size > 0, (t) => q.entitlements.has(entitlementIdOf(t)));
  add(q.excludeEntitlements.size > 0, (t) => !q.excludeEntitlements.has(entitlementIdOf(t)));
  // Resources and their types: those of the task's entitlement (the world's resources are the ones
  // entitlements name; see resource-reads.ts).
  add(q.resources.size > 0, (t) => q.resources.has(entitlementOf(world, t)?.appResourceId ?? ""));
  add(q.resourceTypes.size > 0, (t) => q.resourceTypes.has(entitlementOf(world, t)?.appResourceTypeId ?? ""));
  add(q.excludeResourceTypes.size > 0, (t) => !q.excludeResourceTypes.has(entitlementOf(world, t)?.appResourceTypeId ?? ""));
  // "Belong to" an access review: its certify tasks (a revoke a review caused is a task of its own).
  add(q.accessReviews.size > 0, (t) => t.type?.kind === "certify" && q.accessReviews.has(certifyReviewId(t.type)));

  add(q.appUsers.size > 0, (t) => q.appUsers.has(appUserIdOf(t)));
  // The account's owner is its identity user (the AppUser's `identityUserId`).
  add(q.accountOwners.size > 0, (t) => q.accountOwners.has(accountOf(world, t)?.identityUserId ?? ""));
  add(q.accountTypes.size > 0, (t) => {
    const a = accountOf(world, t);
    return a !== undefined && q.accountTypes.has(accountTypeOf(a));
  });
  add(q.accountStatuses.size > 0, (t) => {
    const a = accountOf(world, t);
    return a !== undefined && q.accountStatuses.has(accountStatusOf(a));
  });

  if (q.query !== "") {
    // A case-insensitive pattern rather than lower-casing every task's text: no string per task.
    const pattern = new RegExp(q.query.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "i");
    tests.push((t) => matchesText(pattern, t));
  }
  return tests;
}

/** Text order; an empty key (a task without that column) goes last, as SQL's NULLS LAST. */
function byKey(a: string, b: string): number {
  if (a === b) return 0;
  if (a === "") return 1;
  if (b === "") return -1;
  return a < b ? -1 : 1;
}

/** A sort's key of a task, and its direction; ties keep world order. */
interface TaskSort {
  readonly keyOf: (t: Task) => string | number;
  readonly reverse: boolean;
}

/** Numbers by value; text as {@link byKey}. */
function compareKeys(a: string | number, b: string | number): number {
  return typeof a === "number" && typeof b === "number" ? a - b : byKey(String(a), String(b));
}

/** The key a `sortBy` orders tasks by; `undefined` for world order (UNSPECIFIED). */
function taskSort(world: World, sortBy: string): TaskSort | undefined {
  const userName = (id: string): string => world.index.users.get(id)?.displayName ?? "";
  const by = (keyOf: (t: Task) => string | number, reverse = false): TaskSort => ({ keyOf, reverse });
  switch (sortBy) {
    case "TASK_SEARCH_SORT_BY_CREATED_AT":
      return by((t) => t.createdAt ?? "");
    case "TASK_SEARCH_SORT_BY_REVERSE_CREATED_AT":
      return by((t) => t.createdAt ?? "", true);
    case "TASK_SEARCH_SORT_BY_TICKET_ID":
      return by((t) => Number(t.numericId));
    case "TASK_SEARCH_SORT_BY_REVERSE_TICKET_ID":
      return by((t) => Number(t.numericId), true);
    case "TASK_SEARCH_SORT_BY_ACCOUNT":
      return by((t) => accountOf(world, t)?.displayName ?? "");
    case "TASK_SEARCH_SORT_BY_ACCOUNT_OWNER":
      return by((t) => userName(accountOf(world, t)?.identityUserId ?? ""));
    case "TASK_SEARCH_SORT_BY_RESOURCE":
      // The task list's "Resource" column: the entitlement the task is about, by its name.
      return by((t) => entitlementOf(world, t)?.displayName ?? "");
    case "TASK_SEARCH_SORT_BY_APP_RESOURCE_ID_AND_APP_ENTITLEMENT":
      return by((t) => {
        const e = entitlementOf(world, t);
        return e ? `${e.appResourceId}\u0000${e.id}` : "";
      });
    default:
      // UNSPECIFIED, and `member` admits only TASK_SORTS.
      return undefined;
  }
}

/** Sorts in place by a key computed once per task; ties keep world order (the sort is stable). */
function sortTasks(found: Task[], sort: TaskSort | undefined): void {
  if (sort === undefined) return;
  const keyed = found.map((t) => ({ k: sort.keyOf(t), t }));
  keyed.sort((a, b) => (sort.reverse ? compareKeys(b.k, a.k) : compareKeys(a.k, b.k)));
  for (let i = 0; i < keyed.length; i++) found[i] = (keyed[i] as { t: Task }).t;
}

/**
 * A task search's cursor: the next page continues after the last task served. A task that no
 * longer matches (a client closed it, so it left a search of open tasks) is still in the world:
 * the page starts at the first task found that sorts after it, by the search's order and then
 * world order, as the found tasks are sorted.
 */
function taskCursor(world: World, caller: User, sort: TaskSort | undefined): Cursor<Task> {
  return {
    idOf: (t) => t.id,
    after: (id, items) => {
      const last = world.tasks.get(id);
      // Only a task the caller may read places the page: a made-up token naming a hidden task would
      // otherwise tell that it exists, and where it sorts.
      if (last === undefined || !canRead(relationTo(world, last, caller))) return undefined;
      const ordinal = new Map<string, number>();
      let i = 0;
      for (const t of world.tasks.values()) ordinal.set(t.id, i++);
      const rank = ordinal.get(last.id) ?? -1;
      const lastKey = sort?.keyOf(last) ?? "";
      const comesAfter = (t: Task): boolean => {
        if (sort !== undefined) {
          const c = sort.reverse ? compareKeys(lastKey, sort.keyOf(t)) : compareKeys(sort.keyOf(t), lastKey);
          if (c !== 0) return c > 0;
        }
        return (ordinal.get(t.id) ?? -1) > rank;
      };
      const at = items.findIndex(comesAfter);
      return at === -1 ? items.length : at;
    },
  };
}

/**
 * `POST /api/v1/search/tasks`: the tasks the caller may read that match every filter of the
 * `TaskSearchRequest` (each as its openapi.yaml description says; see {@link TASK_SEARCH_FIELDS}),
 * in world order or the asked `sortBy`, paged. An unknown enum member is INVALID_ARGUMENT; a filter
 * the world has no data for is UNIMPLEMENTED.
 *
 * @example
 * ```ts
 * searchTasks(world, caller, { taskStates: ["TASK_STATE_OPEN"], assigneesInIds: ["u-sre-lead"], pageSize: 50 });
 * ```
 */
export function searchTasks(world: World, caller: User, body: Body): Read {
  const f = collect({ page: pageFromBody(body, bodyFingerprint(body, "tasks")), sortBy: member(body, "sortBy", TASK_SORTS), query: decode(body), expand: expandPathsOf(body) });
  if (!f.ok) return f;
  const refused = refuseUnmodelled(body, TASK_SEARCH_FIELDS);
  if (!refused.ok) return refused;
  const { page, sortBy, query, expand } = f.value;
  const tests = testsOf(world, query);
  const found: Task[] = [];
  scan: for (const task of world.tasks.values()) {
    for (let i = 0; i < tests.length; i++) if (!(tests[i] as Test)(task)) continue scan;
    if (canRead(relationTo(world, task, caller))) found.push(task);
  }
  const sort = taskSort(world, sortBy);
  sortTasks(found, sort);

  const p = pageOf(found, page, taskCursor(world, caller, sort));
  const list: JsonValue[] = [];
  const expanded: JsonValue[] = [];
  for (const task of p.list) {
    const v = encodedView(world, task, caller, expand);
    if (!v) continue;
    list.push(shiftPaths(v.view, expanded.length));
    expanded.push(...v.expanded);
  }
  return ok({ list, expanded, nextPageToken: p.nextPageToken });
}

function expandPathsOf(body: Body): Field<readonly string[]> {
  const mask = body["expandMask"];
  if (mask === undefined || mask === null) return ok([]);
  if (typeof mask !== "object" || Array.isArray(mask)) return invalid("expandMask", "expandMask must be an object with paths");
  const paths = strings(mask as Body, "paths");
  if (!paths.ok) return invalid("expandMask.paths", "expandMask.paths must be an array of strings");
  const checked = validateExpandPaths(paths.value);
  return checked.ok ? ok(checked.value) : invalid("expandMask.paths", checked.error);
}
