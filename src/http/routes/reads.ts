/**
 * The read operations of the service's API over a world, as pure functions from the world, the
 * caller and the decoded request to the 200 body (wire JSON) or a failure, and the directory
 * objects and views as the API writes them. The route table binds them to paths; `policy-sim pull`
 * and the service's SDKs read a tenant through them. The searches have a file each
 * (`task-search.ts`, `user-search.ts`, `app-search.ts`, `entitlement-search.ts`,
 * `app-user-search.ts`, `policy-search.ts`), over the request fields of `search-fields.ts`.
 *
 * Visibility: a task is listed only when the caller may read it (the reducers' `canRead`); the
 * directory and policies are readable by every signed-in user, as in the service's own UI.
 */
import { encodeConfigRule } from "../../world/config-rule-codec.js";
import { encodeCommentResponse, encodePolicy } from "../../codec/index.js";
import type { App, AppEntitlement, AppUser, Grant, User } from "../../model/directory.js";
import { grantCreatedAt } from "./grant-times.js";
import type { Policy, Task } from "../../model/index.js";
import type { JsonObject, JsonValue } from "../../model/json.js";
import { canRead, relationTo, seesInternals } from "../../reducers/permissions.js";
import { buildTaskView, hideFromCaller } from "../../reducers/task-view.js";
import { err, ok, type Result } from "../../result.js";
import type { AuditEvent } from "../../workflow/events.js";
import { encodeAppForApi, encodeAppUserForApi, encodeEntitlementForApi, encodeUser } from "../../world/encode-directory.js";
import { findEntitlement, findTask, type World } from "../../world/world.js";
import type { HttpFailure } from "../error-body.js";
import { bodyFingerprint, pageFromBody, pageOf, type PageLimits, type PageRequest } from "../paging.js";
import { invalid, notFound } from "./refuse.js";
import { type Body, refIds, text } from "./search-fields.js";

type Read = Result<JsonObject, HttpFailure>;

// ---------------------------------------------------------------------------------------------
// Directory objects as the API writes them

/**
 * A User as the API writes it: proto3 JSON, so an enum the world leaves empty is its zero value.
 *
 * @example
 * ```ts
 * userWire(world.index.users.get("u-ada")!).status; // "ENABLED"
 * ```
 */
export function userWire(u: User): JsonObject {
  const o = encodeUser(u);
  return {
    ...o,
    status: u.status === "" ? "UNKNOWN" : u.status,
    directoryStatus: u.directoryStatus === "" ? "UNKNOWN" : u.directoryStatus,
    type: u.type === "" ? "USER_TYPE_UNSPECIFIED" : u.type,
  };
}

/**
 * An App as the API writes it, with its owners as `appOwners` (openapi.yaml `c1.api.app.v1.App`:
 * "The owners of the app", Users; the world's `ownerUserIds` stays beside it).
 *
 * @example
 * ```ts
 * appWire(world, world.index.apps.get("app-aws")!).appOwners; // [{ id: "u-…", … }]
 * ```
 */
export function appWire(world: World, a: App): JsonObject {
  return encodeAppForApi(a, (id) => {
    const u = world.index.users.get(id);
    return u ? userWire(u) : undefined;
  });
}

/**
 * An AppEntitlement as the API writes it.
 *
 * @example
 * ```ts
 * entitlementWire(ent).appId;
 * ```
 */
export function entitlementWire(e: AppEntitlement): JsonObject {
  return encodeEntitlementForApi(e);
}

/**
 * A policy as the API writes it: its maps (`policySteps`, `annotations`) are objects, `{}` when
 * empty, never null (protojson; openapi.yaml declares them non-nullable), whatever the world holds.
 *
 * @example
 * ```ts
 * policyWire(policyWithOnlyABaseline).policySteps; // {}
 * ```
 */
export function policyWire(p: Policy): JsonObject {
  const o = encodePolicy(p) as JsonObject;
  return { ...o, policySteps: o["policySteps"] ?? {}, annotations: o["annotations"] ?? {} };
}

/**
 * An AppUser as the API writes it: an empty account type is its zero value, and the status in the
 * API's `STATUS_*` (openapi.yaml, `c1.api.app.v1.AppUserStatus.status`) whichever spelling the
 * world file has (the sample's `APP_USER_STATUS_*` is the CEL environment's).
 *
 * @example
 * ```ts
 * appUserWire(account).appUserType; // "APP_USER_TYPE_USER"
 * appUserWire(account).status; // { status: "STATUS_ENABLED", details: "" }
 * ```
 */
export function appUserWire(a: AppUser): JsonObject {
  return encodeAppUserForApi(a);
}

/**
 * A UserView: the user and its id, with no expansion paths.
 *
 * @example
 * ```ts
 * userView(user).userId; // user.id
 * ```
 */
export function userView(u: User): JsonObject {
  return { user: userWire(u), userId: u.id, delegatedUserPath: "", directoriesPath: "", managersPath: "", rolesPath: "", objectPermissions: null };
}

/**
 * An AppEntitlementView: the entitlement, with no expansion paths.
 *
 * @example
 * ```ts
 * entitlementView(ent).appEntitlement; // entitlementWire(ent)
 * ```
 */
export function entitlementView(e: AppEntitlement): JsonObject {
  return { appEntitlement: entitlementWire(e), appPath: "", appResourcePath: "", appResourceTypePath: "", objectPermissions: null };
}

/**
 * An AppUserView: the account, with no expansion paths.
 *
 * @example
 * ```ts
 * appUserView(account).appUser; // appUserWire(account)
 * ```
 */
export function appUserView(a: AppUser): JsonObject {
  return { appUser: appUserWire(a), appPath: "", identityUserPath: "", lastUsagePath: "" };
}

/**
 * A list answer: the page of `items` the request asks for, its `nextPageToken`, and `extra` fields
 * (`expanded: []` for the operations that have one).
 *
 * @example
 * ```ts
 * listBody(users.map(userView), page, { expanded: [] }); // { expanded: [], list: [...], nextPageToken: "" }
 * ```
 */
export function listBody(items: readonly JsonValue[], page: PageRequest, extra: JsonObject = {}): JsonObject {
  const p = pageOf(items, page);
  return { ...extra, list: [...p.list], nextPageToken: p.nextPageToken };
}

// ---------------------------------------------------------------------------------------------
// Tasks

/**
 * The caller's view of one task, encoded, with its own `expanded` items; `undefined` when the
 * caller may not read the task.
 *
 * @example
 * ```ts
 * encodedView(world, task, caller, ["app_id"])?.view.appPath; // "$.expanded[0]"
 * ```
 */
export function encodedView(world: World, task: Task, caller: User, expandPaths: readonly string[]): { view: JsonObject; expanded: JsonValue[] } | undefined {
  const relation = relationTo(world, task, caller);
  if (!canRead(relation)) return undefined;
  const built = buildTaskView(world, task, relation, expandPaths);
  const body = encodeCommentResponse(built) as JsonObject;
  const shown = seesInternals(relation) ? body : hideFromCaller(body);
  return { view: (shown["taskView"] ?? {}) as JsonObject, expanded: (shown["expanded"] ?? []) as JsonValue[] };
}

/**
 * Moves a view's `…Path` pointers (`$.expanded[1,2]`) by `offset`, for a list sharing one `expanded`.
 *
 * @example
 * ```ts
 * shiftPaths({ appPath: "$.expanded[0]" }, 3); // { appPath: "$.expanded[3]" }
 * ```
 */
export function shiftPaths(view: JsonObject, offset: number): JsonObject {
  if (offset === 0) return view;
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(view))
    out[k] =
      k.endsWith("Path") && typeof v === "string" && v.startsWith("$.expanded[")
        ? v.replace(/\d+/g, (n) => String(Number(n) + offset))
        : (v as JsonValue);
  return out;
}

/**
 * `GET /api/v1/tasks/{id}`: `{taskView, expanded}` for a task the caller may read.
 *
 * @example
 * ```ts
 * getTask(world, caller, "1001").ok; // true
 * ```
 */
export function getTask(world: World, caller: User, taskId: string): Read {
  const task = findTask(world, taskId);
  if (!task || task.deletedAt !== null) return notFound(`task "${taskId}" not found (by id or numericId)`);
  const v = encodedView(world, task, caller, []);
  if (!v) return err({ status: 403, code: "PERMISSION_DENIED", reason: "PERMISSION_DENIED", message: `user "${caller.id}" cannot see task "${taskId}"` });
  return ok({ taskView: v.view, expanded: v.expanded });
}

// ---------------------------------------------------------------------------------------------
// Task audits

function auditPayload(e: AuditEvent): JsonObject | undefined {
  switch (e.kind) {
    case "comment":
      return { comment: { comment: e.comment, updatedAt: e.updatedAt, updatedBy: e.updatedBy } };
    case "hardReset":
      return { hardReset: { oldPolicyStepId: e.oldPolicyStepId } };
    case "policyChanged":
      return { policyChanged: { oldPolicyId: e.oldPolicyId, newPolicyId: e.newPolicyId } };
    case "stepSkipped":
      return { stepSkipped: { skippedBy: e.actorId } };
    case "restarted":
      return { taskRestarted: { oldPolicyStepId: e.oldPolicyStepId } };
    case "escalatedToEmergencyAccess":
      return { taskEscalated: { oldPolicyId: e.oldPolicyId, oldPolicyStepId: e.oldPolicyStepId ?? "" } };
    case "reassigned":
      return { approvalReassigned: { oldPolicyStepId: e.policyStepId, newPolicyStepId: e.newPolicyStepId, newUsers: [...e.newStepUserIds], users: [] } };
    case "approved":
      return {
        approvalInstanceChange: {
          instance: { state: "APPROVAL_INSTANCE_STATE_DONE", approved: { approvedAt: e.at, userId: e.actorId, stepUpTransactionId: e.stepUpTransactionId, entitlements: [] } },
        },
      };
    case "denied":
      return { approvalInstanceChange: { instance: { state: "APPROVAL_INSTANCE_STATE_DONE", denied: { deniedAt: e.at, userId: e.actorId } } } };
    case "taskCreated":
      return { taskCreated: {} };
    case "taskClosed":
      return { stateChange: { previousState: "TASK_STATE_OPEN" } };
    case "provisionErrored":
      return { provisionError: { error: e.description === "" ? e.errorCode : e.description } };
    case "provisionCancelled":
      return { provisionCancelled: { cancelReason: "" } };
    case "waitSucceeded":
      return { waitStepSuccess: { condition: e.reason, stepId: e.policyStepId, succeededAt: e.at } };
    case "waitTimedOut":
      return { waitStepTimedOut: { condition: "", stepId: e.policyStepId, timedOutAt: e.at } };
    case "formCompleted":
      return { formInstanceChange: { isValid: true } };
    case "grantDurationUpdated":
      // TaskAuditGrantDurationUpdated: the new duration (the old one is not in the service's record).
      return { grantDurationUpdated: { duration: e.newGrantDuration } };
    case "reassignedToDelegate":
      return {
        reassignedToDelegate: {
          originalAssigneeUserId: e.originalAssigneeUserId,
          delegatedAssigneeUserId: e.delegatedAssigneeUserId,
          originalAssigneeUser: null,
          delegatedAssigneeUser: null,
        },
      };
    case "reviewersRouted":
      // Only the Super Administrator fallback has a record of its own in the service.
      return e.via === "superAdmins" ? { reassignmentFallbackToAdmin: { adminUserIds: [...e.userIds], adminUsers: null } } : undefined;
    case "stepAutoApproved":
      return { approvedAutomatically: {} };
    case "conditionalPolicyExecutionResult":
      return {
        conditionalPolicyExecutionResult: {
          policyId: e.policyId,
          chainDepth: e.chainDepth,
          condition: e.condition,
          conditionMatched: e.conditionMatched,
          defaultCondition: e.defaultCondition,
          error: e.error,
          outcomePolicyId: e.outcomePolicyId,
          // openapi.yaml: outcomePolicyId is "Empty when the outcome is an inline policy_key": the
          // inline outcome is the rule's step key (policyKey its deprecated name).
          policyKey: e.outcomePolicyId === "" ? e.stepKey || e.policyKey : e.policyKey,
        },
      };
    default:
      // The simulation's own bookkeeping (step started, grant added, …) has no audit record in the service.
      return undefined;
  }
}

/**
 * An audit event as the service's TaskAuditView, or undefined for events the service does not
 * record (see the README's "Assumptions").
 *
 * @example
 * ```ts
 * auditRecord(world, event, task)?.hardReset; // { oldPolicyStepId: "…" }
 * ```
 */
export function auditRecord(world: World, e: AuditEvent, task: Task): JsonObject | undefined {
  const payload = auditPayload(e);
  if (!payload) return undefined;
  const actor = world.index.users.get(e.actorId);
  const isError = e.kind === "provisionErrored" || (e.kind === "conditionalPolicyExecutionResult" && e.error !== "");
  return {
    id: e.id,
    ticketId: task.id,
    userId: e.actorId,
    created: e.at,
    eventType: isError ? "TASK_AUDIT_EVENT_TYPE_ERROR" : "TASK_AUDIT_EVENT_TYPE_NEUTRAL",
    source: "SOURCE_C1",
    currentState: task.state === "TASK_STATE_CLOSED" ? "TASK_STATE_CLOSED" : "TASK_STATE_OPEN",
    workflowStep: 0,
    metadata: actor ? { user: userWire(actor) } : null,
    ...payload,
  };
}

/**
 * Task audit pages: openapi.yaml's TaskAuditListRequest.pageSize is "the maximum number of audit
 * events to return per page", with none of the searches' "values < 10 will be set to 10": a client
 * may ask for the newest one alone.
 */
const AUDIT_PAGE_LIMITS: PageLimits = { defaultSize: 25, min: 1, max: 100 };

/**
 * `POST /api/v1/task/audits`: the audit records of one task the caller may read, oldest first
 * (`newestFirst` reverses), `commentsOnly` keeps comments, `refs` keeps the records it names; paged.
 * `eventsOf` gives the server's kept events of one task.
 *
 * @example
 * ```ts
 * listTaskAudits(world, caller, store.eventsOf, { taskId: "1001" });
 * ```
 */
export function listTaskAudits(world: World, caller: User, eventsOf: (taskId: string) => readonly AuditEvent[], body: Body): Read {
  const page = pageFromBody(body, bodyFingerprint(body, "task-audits"), AUDIT_PAGE_LIMITS);
  if (!page.ok) return page;
  const taskId = text(body, "taskId");
  if (!taskId.ok) return taskId;
  if (taskId.value === "") return invalid("taskId", "taskId is required: the task's id or numericId");
  const task = findTask(world, taskId.value);
  if (!task) return notFound(`task "${taskId.value}" not found (by id or numericId)`);
  if (!canRead(relationTo(world, task, caller)))
    return err({ status: 403, code: "PERMISSION_DENIED", reason: "PERMISSION_DENIED", message: `user "${caller.id}" cannot see task "${taskId.value}"` });
  const refs = refIds(body, "refs");
  if (!refs.ok) return refs;
  const wanted = refs.value.length > 0 ? new Set(refs.value) : undefined;
  const records: JsonValue[] = [];
  for (const e of withWorldComments(world, task, eventsOf(task.id))) {
    if (body["commentsOnly"] === true && e.kind !== "comment") continue;
    if (wanted && !wanted.has(e.id)) continue;
    const r = auditRecord(world, e, task);
    if (r) records.push(r);
  }
  if (body["newestFirst"] === true) records.reverse();
  return ok(listBody(records, page.value));
}

/**
 * The server's events of a task, with the task's comments the log does not hold (those the world
 * file brought, posted before the server started, or dropped from a full log) as the comment records
 * the service keeps for them, in time order: a task's comments are part of its audit trail from the
 * start, whenever the server started.
 */
function withWorldComments(world: World, task: Task, logged: readonly AuditEvent[]): readonly AuditEvent[] {
  const comments = world.comments.get(task.id);
  if (!comments || comments.length === 0) return logged;
  const seen = new Set<string>();
  for (const e of logged) if (e.kind === "comment") seen.add(e.commentId);
  const earlier: AuditEvent[] = [];
  for (const c of comments)
    if (!seen.has(c.id)) earlier.push({ kind: "comment", id: c.id, taskId: task.id, at: c.createdAt, actorId: c.userId, commentId: c.id, comment: c.comment, updatedAt: c.createdAt, updatedBy: c.userId });
  if (earlier.length === 0) return logged;
  // Two lists each in time order, merged; a comment before an event of the same instant.
  const out: AuditEvent[] = [];
  let i = 0;
  let j = 0;
  while (i < earlier.length || j < logged.length) {
    const a = earlier[i];
    const b = logged[j];
    if (a && (!b || Date.parse(a.at) <= Date.parse(b.at))) {
      out.push(a);
      i++;
    } else if (b) {
      out.push(b);
      j++;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Users

/**
 * `GET /api/v1/users/{id}`.
 *
 * @example
 * ```ts
 * getUser(world, "u-ada"); // ok({ userView: { user: {...}, userId: "u-ada", ... }, expanded: [] })
 * ```
 */
export function getUser(world: World, id: string): Read {
  const u = world.index.users.get(id);
  return u ? ok({ userView: userView(u), expanded: [] }) : notFound(`user "${id}" not found`);
}

/**
 * `GET /api/v1/users`: every user, paged.
 *
 * @example
 * ```ts
 * listUsers(world, { size: 25, offset: 0 }).value.list.length;
 * ```
 */
export function listUsers(world: World, page: PageRequest): Read {
  return ok(listBody(world.users.map(userView), page, { expanded: [] }));
}

// ---------------------------------------------------------------------------------------------
// Apps, entitlements, app users, grants

/**
 * `GET /api/v1/apps/{id}`.
 *
 * @example
 * ```ts
 * getApp(world, "app-aws");
 * ```
 */
export function getApp(world: World, id: string): Read {
  const a = world.index.apps.get(id);
  return a ? ok({ app: appWire(world, a) }) : notFound(`app "${id}" not found`);
}

/**
 * `GET /api/v1/apps`: every app, paged.
 *
 * @example
 * ```ts
 * listApps(world, { size: 100, offset: 0 });
 * ```
 */
export function listApps(world: World, page: PageRequest): Read {
  return ok(listBody(world.apps.map((a) => appWire(world, a)), page));
}

/**
 * `GET /api/v1/apps/{app_id}/entitlements/{id}`.
 *
 * @example
 * ```ts
 * getEntitlement(world, "app-aws", "ent-admin");
 * ```
 */
export function getEntitlement(world: World, appId: string, id: string): Read {
  const e = findEntitlement(world, appId, id);
  return e ? ok({ appEntitlementView: entitlementView(e), expanded: [] }) : notFound(`entitlement "${id}" of app "${appId}" not found`);
}

/**
 * `GET /api/v1/apps/{app_id}/entitlements`: the app's entitlements, paged.
 *
 * @example
 * ```ts
 * listEntitlements(world, "app-aws", { size: 25, offset: 0 });
 * ```
 */
export function listEntitlements(world: World, appId: string, page: PageRequest): Read {
  if (!world.index.apps.has(appId)) return notFound(`app "${appId}" not found`);
  return ok(listBody(world.entitlements.filter((e) => e.appId === appId).map(entitlementView), page, { expanded: [] }));
}

/**
 * `GET /api/v1/apps/{app_id}/app_users`: the app's accounts, paged.
 *
 * @example
 * ```ts
 * listAppUsers(world, "app-aws", { size: 25, offset: 0 });
 * ```
 */
export function listAppUsers(world: World, appId: string, page: PageRequest): Read {
  if (!world.index.apps.has(appId)) return notFound(`app "${appId}" not found`);
  return ok(listBody(world.appUsers.filter((a) => a.appId === appId).map(appUserView), page, { expanded: [] }));
}

/**
 * A grant as the API's AppEntitlementUserView: who (the account) holds which entitlement.
 *
 * @example
 * ```ts
 * bindingView(world, grant, account).appUserId; // account.id
 * ```
 */
export function bindingView(world: World, g: Grant, account: AppUser | undefined): JsonObject {
  return {
    appId: g.appId,
    appEntitlementId: g.appEntitlementId,
    appUserId: account?.id ?? "",
    appUser: account ? appUserView(account) : null,
    appEntitlementUserBindingCreatedAt: grantCreatedAt(world, g),
    appEntitlementUserBindingDeprovisionAt: g.deprovisionAt ?? null,
    grantSources: [],
    originatingTicketId: "",
  };
}

/**
 * A grant as the API's AppEntitlementUserBinding (the request catalog's bindings): the account that
 * holds an entitlement, without its view, made when `grantCreatedAt` says.
 *
 * @example
 * ```ts
 * userBinding(world, grant, account); // { appId, appEntitlementId, appUserId: account.id, createdAt: "…", … }
 * ```
 */
export function userBinding(world: World, g: Grant, account: AppUser | undefined): JsonObject {
  return { appId: g.appId, appEntitlementId: g.appEntitlementId, appUserId: account?.id ?? "", createdAt: grantCreatedAt(world, g), deprovisionAt: g.deprovisionAt ?? null, deletedAt: null, grantSources: [] };
}

/**
 * `GET /api/v1/apps/{app_id}/users/{user_id}/app_users` (`AppUserService.ListAppUsersForUser`):
 * the accounts an identity user has in an app, paged.
 *
 * @example
 * ```ts
 * listAppUsersForUser(world, "app-aws", "u-ada", { size: 25, offset: 0 });
 * ```
 */
export function listAppUsersForUser(world: World, appId: string, userId: string, page: PageRequest): Read {
  if (!world.index.apps.has(appId)) return notFound(`app "${appId}" not found`);
  return ok(listBody(world.appUsers.filter((a) => a.appId === appId && a.identityUserId === userId).map(appUserView), page, { expanded: [] }));
}

/**
 * `GET /api/v1/apps/{app_id}/entitlements/users/{app_user_id}` (`AppEntitlements.ListForAppUser`):
 * the entitlements of an app the account's user holds, paged.
 *
 * @example
 * ```ts
 * listEntitlementsForAppUser(world, "app-aws", "au-aws-ada", { size: 25, offset: 0 });
 * ```
 */
export function listEntitlementsForAppUser(world: World, appId: string, appUserId: string, page: PageRequest): Read {
  const account = world.appUsers.find((a) => a.appId === appId && a.id === appUserId);
  if (!account) return notFound(`app user "${appUserId}" of app "${appId}" not found`);
  const held: AppEntitlement[] = [];
  for (const g of world.grants) {
    if (g.appId !== appId || g.identityUserId !== account.identityUserId) continue;
    const e = findEntitlement(world, g.appId, g.appEntitlementId);
    if (e && !held.includes(e)) held.push(e);
  }
  return ok(listBody(held.map(entitlementView), page, { expanded: [] }));
}

/**
 * `GET /api/v1/apps/{app_id}/entitlements/{app_entitlement_id}/users` (`AppEntitlements.ListUsers`):
 * who holds an entitlement, one binding per grant, paged.
 *
 * @example
 * ```ts
 * listEntitlementUsers(world, "app-aws", "ent-aws-prod-admin", { size: 25, offset: 0 });
 * ```
 */
export function listEntitlementUsers(world: World, appId: string, entitlementId: string, page: PageRequest): Read {
  if (!findEntitlement(world, appId, entitlementId)) return notFound(`entitlement "${entitlementId}" of app "${appId}" not found`);
  const list = world.grants
    .filter((g) => g.appId === appId && g.appEntitlementId === entitlementId)
    .map((g) => bindingView(world, g, world.index.appUserByUserAndApp.get(`${g.identityUserId}\u0000${g.appId}`)));
  return ok(listBody(list, page, { expanded: [] }));
}

/**
 * `GET /api/v1/apps/{app_id}/access_request_defaults`: the app's request defaults, from the world's
 * (sim) `resourceTypeDefaults` for the app (the first one when there are several).
 *
 * @example
 * ```ts
 * getAccessRequestDefaults(world, "app-aws"); // ok({ appId: "app-aws", requestPolicyId: "pol-…", … })
 * ```
 */
export function getAccessRequestDefaults(world: World, appId: string): Read {
  if (!world.index.apps.has(appId)) return notFound(`app "${appId}" not found`);
  const d = world.resourceTypeDefaults.find((x) => x.appId === appId);
  return ok({
    appId,
    catalogIds: [],
    defaultsEnabled: d !== undefined,
    durationGrant: d?.maxGrantDuration ?? null,
    durationUnset: d !== undefined && !d.maxGrantDuration ? {} : null,
    emergencyGrantEnabled: d?.emergencyGrantEnabled ?? false,
    emergencyGrantPolicyId: d?.emergencyGrantPolicyId ?? "",
    requestPolicyId: d?.requestPolicyId ?? "",
    requestSchemaId: "",
    resourceTypeIds: d ? [...d.resourceTypeIds] : [],
    // openapi.yaml: `state` is the last *apply* of the defaults to the app's entitlements (an enum of
    // APP_ACCESS_REQUEST_DEFAULTS_LAST_APPLY_STATE_*); whether they are on is `defaultsEnabled`.
    state: d ? "APP_ACCESS_REQUEST_DEFAULTS_LAST_APPLY_STATE_SUCCESS" : "APP_ACCESS_REQUEST_DEFAULTS_LAST_APPLY_STATE_UNSPECIFIED",
  });
}

/**
 * `GET /api/v1/apps/{app_id}/entitlement_configuration_rules`: the app's entitlement configuration
 * rules from the world file, in evaluation order (priority, then id), as the API sorts them.
 *
 * @example
 * ```ts
 * listEntitlementConfigurationRules(world, "app-aws", page); // ok({ list: [{ id: "ecr-…", … }], nextPageToken: "" })
 * ```
 */
export function listEntitlementConfigurationRules(world: World, appId: string, page: PageRequest): Read {
  if (!world.index.apps.has(appId)) return notFound(`app "${appId}" not found`);
  return ok(listBody((world.index.configRulesByApp.get(appId) ?? []).map(encodeConfigRule), page));
}

/**
 * `GET /api/v1/apps/{app_id}/entitlement_configuration_rules/{id}`: one rule, as `routingRule`.
 *
 * @example
 * ```ts
 * getEntitlementConfigurationRule(world, "app-aws", "ecr-staging"); // ok({ routingRule: { id: "ecr-staging", … } })
 * ```
 */
export function getEntitlementConfigurationRule(world: World, appId: string, id: string): Read {
  if (!world.index.apps.has(appId)) return notFound(`app "${appId}" not found`);
  const rule = world.index.configRulesByApp.get(appId)?.find((r) => r.id === id);
  return rule ? ok({ routingRule: encodeConfigRule(rule) }) : notFound(`entitlement configuration rule "${id}" of app "${appId}" not found`);
}

// ---------------------------------------------------------------------------------------------
// Policies

/**
 * `GET /api/v1/policies/{id}`.
 *
 * @example
 * ```ts
 * getPolicy(world, "pol-default-grant");
 * ```
 */
export function getPolicy(world: World, id: string): Read {
  const p = world.index.policies.get(id);
  return p ? ok({ policy: policyWire(p) }) : notFound(`policy "${id}" not found`);
}

/**
 * `GET /api/v1/policies`: every policy, paged.
 *
 * @example
 * ```ts
 * listPolicies(world, { size: 100, offset: 0 });
 * ```
 */
export function listPolicies(world: World, page: PageRequest): Read {
  return ok(listBody(world.policies.map(policyWire), page));
}

