/**
 * Creating a task through the API: `POST /api/v1/task/grant`, `/task/revoke` and `/task/offboarding`.
 * The new task resolves its policy and selects its steps exactly as a Hard Reset would (the same
 * `decide`: the same sources in the same order, the same rules at the same clock), then the
 * workflow runs until a step waits — so a client can ask "what happens if this user requests that
 * entitlement" and see the answer as a task.
 */
import type { AppEntitlement, User } from "../model/directory.js";
import type { JsonObject, JsonValue } from "../model/json.js";
import type { Task, TaskGrantSource, TaskType } from "../model/index.js";
import { decide } from "../policy/decide.js";
import { err, ok, type Result } from "../result.js";
import { taskConditions } from "../policy/task-conditions.js";
import { emergencyGrantsEnabled } from "../policy/resolve-policy.js";
import { type AdvanceContext, emit, IdSequence } from "../workflow/advance.js";
import { addTask, nextNumericId } from "../workflow/effects.js";
import { revocationTargetsFor } from "../workflow/inheritance.js";
import { emitRuleEvaluations, restartOn } from "../workflow/restart.js";
import { durationSeconds } from "../workflow/time.js";
import { maxGrantSeconds } from "../policy/max-grant-duration.js";
import { findEntitlement, type World } from "../world/world.js";
import type { Step } from "./comment.js";
import { guarded, type SimError, notAWorld } from "./errors.js";
import { decisionFailure } from "./hard-reset.js";
import { completesTasks, rolesOf } from "./permissions.js";
import { type ActionContext, type ExpandMaskInput, isRealTimestamp, utcTimestamp } from "./prelude.js";
import { codePointsUpTo, MAX_DESCRIPTION_CHARS, MAX_OPEN_TASKS_PER_CREATOR, MAX_REQUEST_DATA_CHARS } from "./limits.js";
import { commit, invalid, jsonObjectInput, precondition, readString, responseFor } from "./task-action.js";
import { validateExpandPaths } from "./task-view.js";

/**
 * The Create Grant Task request (TaskServiceCreateGrantRequest): the entitlement, for whom (an app
 * user or an identity user, not both; neither is the caller), and the request's details.
 *
 * @example
 * ```ts
 * const req: CreateGrantTaskInput = { appId: "app-aws", appEntitlementId: "ent-aws-prod-admin", description: "on-call", grantDuration: "28800s" };
 * ```
 */
export interface CreateGrantTaskInput {
  readonly appId: string;
  readonly appEntitlementId: string;
  readonly appUserId?: string;
  readonly identityUserId?: string;
  readonly description?: string;
  readonly emergencyAccess?: boolean;
  readonly grantDuration?: string | null;
  readonly requestData?: JsonObject | null;
  readonly source?: Partial<TaskGrantSource> | null;
  readonly expandMask?: ExpandMaskInput | null;
}

/**
 * The Create Revoke Task request (TaskServiceCreateRevokeRequest).
 *
 * @example
 * ```ts
 * const req: CreateRevokeTaskInput = { appId: "app-github", appEntitlementId: "ent-gh-team-sre", identityUserId: "u-sre1" };
 * ```
 */
export interface CreateRevokeTaskInput {
  readonly appId: string;
  readonly appEntitlementId: string;
  readonly appUserId?: string;
  readonly identityUserId?: string;
  readonly description?: string;
  readonly expandMask?: ExpandMaskInput | null;
}

/**
 * The Create Offboarding Task request (TaskServiceCreateOffboardingRequest).
 *
 * @example
 * ```ts
 * const req: CreateOffboardingTaskInput = { subjectUserId: "u-contractor", description: "contract ended" };
 * ```
 */
export interface CreateOffboardingTaskInput {
  readonly subjectUserId: string;
  readonly description?: string;
  readonly expandMask?: ExpandMaskInput | null;
}

type Fields = Readonly<Record<string, unknown>>;

/** The caller, enabled, and the time: what every creation needs before it reads its own fields. */
function callerOf(world: World, actx: unknown): Result<{ caller: User; now: string }, SimError> {
  const c = typeof actx === "object" && actx !== null ? (actx as Fields) : {};
  const actorId = c["actorId"];
  if (typeof actorId !== "string" || actorId === "") return err({ code: "UNAUTHENTICATED", message: "no caller: ctx.actorId must name a user of the world" });
  const caller = world.index.users.get(actorId);
  if (!caller) return err({ code: "UNAUTHENTICATED", message: `caller "${actorId}" is not a user of this world` });
  if (caller.status === "DISABLED" || caller.status === "DELETED") return err({ code: "UNAUTHENTICATED", message: `caller "${actorId}" is ${caller.status.toLowerCase()}` });
  const now = c["now"];
  if (now !== undefined && now !== null && !isRealTimestamp(now)) return err(invalid("ctx.now must be an RFC 3339 timestamp of a real date and time", "now"));
  return ok({ caller, now: utcTimestamp(typeof now === "string" ? now : world.now) });
}

function expandPathsOf(req: Fields): Result<readonly string[], SimError> {
  const mask = req["expandMask"];
  if (mask === undefined || mask === null) return ok([]);
  if (typeof mask !== "object" || Array.isArray(mask)) return err(invalid("expandMask must be an object with paths", "expandMask"));
  const paths = (mask as Fields)["paths"];
  if (paths === undefined || paths === null) return ok([]);
  if (!Array.isArray(paths) || paths.some((p) => typeof p !== "string")) return err(invalid("expandMask.paths must be an array of strings", "expandMask.paths"));
  const checked = validateExpandPaths(paths as string[]);
  return checked.ok ? ok(checked.value) : err(invalid(checked.error, "expandMask.paths"));
}

const isAdmin = (world: World, user: User): boolean => rolesOf(world, user).some((k) => k === "SUPER_ADMIN" || k === "ACCESS_REQUEST_ADMIN");

/**
 * Whether `caller` may ask for access, or its removal, for `subject` (product_admin_user-roles.mdx):
 * anyone for themselves; for any user, Super Administrators, Access Request Administrators and the
 * Access Request Helpdesk ("request access to apps and resources for any user"); for a direct
 * report, their manager ("(Managers only) request access to apps and resources for direct
 * reports", Basic User). Revocation requests for another user: Super Administrators and the
 * Access Request Helpdesk ("create revocation requests for any user"), no one else. A user holding
 * only the Read-Only Administrator role requests nothing, not even for themselves.
 */
function mayRequestFor(world: World, caller: User, subject: User, kind: "grant" | "revoke"): boolean {
  const roles = rolesOf(world, caller);
  // "Users assigned only this role cannot complete tasks, request access, or …" (Read-Only Administrator).
  if (!completesTasks({ roles })) return false;
  if (caller.id === subject.id) return true;
  if (roles.includes("SUPER_ADMIN") || roles.includes("ACCESS_REQUEST_HELPDESK")) return true;
  return kind === "grant" && (roles.includes("ACCESS_REQUEST_ADMIN") || subject.managerIds.includes(caller.id));
}

/**
 * Who the request is for: `identityUserId`, or the owner of `appUserId`, or the caller; asking for
 * someone else as {@link mayRequestFor} allows.
 */
function subjectOf(world: World, req: Fields, caller: User, appId: string, kind: "grant" | "revoke"): Result<{ userId: string; appUserId: string }, SimError> {
  const identity = readString(req, "identityUserId");
  if (!identity.ok) return identity;
  const appUser = readString(req, "appUserId");
  if (!appUser.ok) return appUser;
  let userId = identity.value || caller.id;
  let appUserId = "";
  if (appUser.value !== "") {
    const au = world.index.appUsers.get(appUser.value);
    if (!au || au.appId !== appId) return err({ code: "NOT_FOUND", message: `app user "${appUser.value}" not found in app "${appId}"` });
    // openapi.yaml says the two "cannot both be set", yet the service's own CLI (cone get) sends
    // both, the account being the user's own: that is accepted; an account of someone else is not.
    if (identity.value !== "" && au.identityUserId !== identity.value)
      return err(invalid(`appUserId "${au.id}" is an account of user "${au.identityUserId}", not of identityUserId "${identity.value}": give one of them`, "appUserId"));
    userId = au.identityUserId;
    appUserId = au.id;
  }
  const user = world.index.users.get(userId);
  if (!user) return err({ code: "NOT_FOUND", message: `user "${userId}" not found` });
  if (!mayRequestFor(world, caller, user, kind))
    return err({
      code: "PERMISSION_DENIED",
      message: !completesTasks({ roles: rolesOf(world, caller) })
        ? `user "${caller.id}" holds only the Read-Only Administrator role, which requests nothing ("cannot … request access", product_admin_user-roles.mdx)`
        : kind === "grant"
          ? `user "${caller.id}" may not request access for user "${userId}": only for themselves or a direct report, unless a Super Administrator, Access Request Administrator or Access Request Helpdesk`
          : `user "${caller.id}" may not request a revocation for user "${userId}": only for themselves, unless a Super Administrator or Access Request Helpdesk`,
    });
  return ok({ userId, appUserId });
}

function entitlementOf(world: World, req: Fields): Result<AppEntitlement, SimError> {
  const appId = readString(req, "appId");
  if (!appId.ok) return appId;
  const entId = readString(req, "appEntitlementId");
  if (!entId.ok) return entId;
  if (appId.value === "") return err(invalid("appId is required", "appId"));
  if (entId.value === "") return err(invalid("appEntitlementId is required", "appEntitlementId"));
  if (!world.index.apps.get(appId.value)) return err({ code: "NOT_FOUND", message: `app "${appId.value}" not found` });
  const ent = findEntitlement(world, appId.value, entId.value);
  return ent ? ok(ent) : err({ code: "NOT_FOUND", message: `entitlement "${entId.value}" not found in app "${appId.value}"` });
}

function draftTask(id: string, numericId: string, fields: Pick<Task, "displayName" | "description" | "type" | "userId" | "createdByUserId" | "emergencyAccess" | "data" | "revocationTargets">, now: string): Task {
  return {
    id,
    numericId,
    state: "TASK_STATE_OPEN",
    processing: "TASK_PROCESSING_TYPE_PROCESSING",
    origin: "TASK_ORIGIN_API",
    actions: [],
    policy: null,
    policyGenerationId: "",
    form: null,
    approverIds: [],
    stepApproverIds: [],
    commentCount: 0,
    analysisId: "",
    insightIds: [],
    recommendation: "INSIGHT_RECOMMENDATION_UNSPECIFIED",
    externalRefs: [],
    annotations: [],
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
    ...fields,
  };
}

/**
 * Starts a drafted task as a Hard Reset would start it: `decide` picks the policy and its steps (the
 * rule evaluations are recorded), the first step starts and the workflow runs on. A task no policy
 * can be found for is not created: `FAILED_PRECONDITION` with the reason, as Hard Reset answers.
 */
function start(
  world: World,
  caller: User,
  now: string,
  build: (id: string, numericId: string) => Task,
  expandPaths: readonly string[],
): Result<Step<JsonValue>, SimError> {
  const ids = new IdSequence(world.seq);
  const draft = build(ids.take("task"), nextNumericId(world));
  const at: World = world.now === now ? world : { ...world, now };
  const decision = decide(at, draft);
  const failure = decisionFailure(decision);
  if (failure !== undefined || !decision.resolution.ok || !decision.selection?.ok)
    return err(precondition(`cannot create the ${draft.type?.kind ?? ""} task: ${failure ?? "no policy"}`, { decision }));
  const ctx: AdvanceContext = {
    world: at,
    now,
    actorId: caller.id,
    ids,
    expressions: taskConditions(at, draft).expressions,
    events: [],
    comments: [],
    approvers: new Map(),
  };
  emit(ctx, draft.id, caller.id, { kind: "taskCreated", createdTaskId: draft.id, numericId: draft.numericId, taskKind: draft.type?.kind ?? "" });
  emitRuleEvaluations(ctx, draft.id, decision.selection.value.evaluations);
  const started = restartOn(ctx, draft, { policy: decision.resolution.value.policy, steps: decision.selection.value.steps, newGeneration: true, userId: "" });
  const next = Object.freeze(commit(addTask(world, started), ctx, started));
  const after = next.tasks.get(draft.id) ?? started;
  return ok({ world: next, response: responseFor(next, after, caller, expandPaths, undefined), events: ctx.events });
}

/**
 * A grant's requested duration: a positive protobuf duration, within the entitlement's maximum
 * (its own `durationGrant`, else a configuration rule's or its resource type's request defaults:
 * product_admin_access-requests.mdx's order of precedence). None asked under a maximum is the
 * maximum: "at the end of the time limit, the user's access will be automatically revoked" (same page).
 */
function readGrantDuration(world: World, req: Fields, ent: AppEntitlement): Result<string | null, SimError> {
  const v = req["grantDuration"];
  const limit = maxGrantSeconds(world, ent.appId, ent.id);
  if (v === undefined || v === null || v === "") return ok(limit === undefined ? null : `${limit.seconds}s`);
  if (typeof v !== "string" || !/^\d{1,12}(\.\d{1,9})?s$/.test(v.trim()))
    return err(invalid(`grantDuration must be a duration string such as "86400s", not ${JSON.stringify(v)}`, "grantDuration"));
  const seconds = durationSeconds(v) ?? 0;
  if (seconds <= 0) return err(invalid("grantDuration must be longer than zero", "grantDuration"));
  if (limit !== undefined && seconds > limit.seconds)
    return err(invalid(`grantDuration ${seconds}s is longer than the entitlement allows (${limit.seconds}s: ${limit.detail})`, "grantDuration"));
  return ok(`${seconds}s`);
}

/** A grant's `source` (TaskGrantSource), every field optional. */
function readSource(v: unknown): Result<TaskGrantSource | null, SimError> {
  if (v === undefined || v === null) return ok(null);
  if (typeof v !== "object" || Array.isArray(v)) return err(invalid("source must be an object", "source"));
  const o = v as Fields;
  const str = (k: string): Result<string, SimError> => {
    const r = readString(o, k);
    return r.ok ? r : err(invalid(`source.${k} must be a string`, `source.${k}`));
  };
  const conversationId = str("conversationId");
  if (!conversationId.ok) return conversationId;
  const externalUrl = str("externalUrl");
  if (!externalUrl.ok) return externalUrl;
  const integrationId = str("integrationId");
  if (!integrationId.ok) return integrationId;
  const requestId = str("requestId");
  if (!requestId.ok) return requestId;
  const isExtension = o["isExtension"];
  if (isExtension !== undefined && isExtension !== null && typeof isExtension !== "boolean") return err(invalid("source.isExtension must be a boolean", "source.isExtension"));
  return ok({ conversationId: conversationId.value, externalUrl: externalUrl.value, integrationId: integrationId.value, isExtension: isExtension === true, requestId: requestId.value });
}

function readDescription(req: Fields): Result<string, SimError> {
  const d = readString(req, "description");
  if (d.ok && codePointsUpTo(d.value, MAX_DESCRIPTION_CHARS) > MAX_DESCRIPTION_CHARS)
    return err(invalid(`description is longer than ${MAX_DESCRIPTION_CHARS.toLocaleString("en")} characters`, "description"));
  return d;
}

/** `FAILED_PRECONDITION` when `caller` already has {@link MAX_OPEN_TASKS_PER_CREATOR} open tasks of their own making. */
function creationQuota(world: World, callerId: string): SimError | undefined {
  let open = 0;
  for (const t of world.tasks.values())
    if (t.createdByUserId === callerId && t.deletedAt === null && t.state !== "TASK_STATE_CLOSED" && ++open >= MAX_OPEN_TASKS_PER_CREATOR)
      return {
        code: "FAILED_PRECONDITION",
        message: `user "${callerId}" already has ${MAX_OPEN_TASKS_PER_CREATOR.toLocaleString("en")} open tasks of their own making, the most one user may have; close some first`,
      };
  return undefined;
}

/** What a grant and a revoke request share: who asks, when, for which entitlement and user, the description and the expand paths. */
function accessRequestOf(world: World, req: unknown, actx: ActionContext, kind: "grant" | "revoke") {
  const who = callerOf(world, actx);
  if (!who.ok) return who;
  const { caller, now } = who.value;
  const quota = creationQuota(world, caller.id);
  if (quota) return err(quota);
  const r = (typeof req === "object" && req !== null ? req : {}) as Fields;
  const ent = entitlementOf(world, r);
  if (!ent.ok) return ent;
  const subject = subjectOf(world, r, caller, ent.value.appId, kind);
  if (!subject.ok) return subject;
  const description = readDescription(r);
  if (!description.ok) return description;
  const paths = expandPathsOf(r);
  if (!paths.ok) return paths;
  return ok({ caller, now, r, ent, subject, description, paths });
}

/**
 * Creates a grant task (an access request), as `POST /api/v1/task/grant`: resolved and started as
 * a Hard Reset would. Answers `{expanded, taskView}` (TaskServiceCreateGrantResponse).
 *
 * Refusals: `INVALID_ARGUMENT` (missing app or entitlement id, both `appUserId` and
 * `identityUserId`, a bad `grantDuration`, or one longer than the entitlement's `durationGrant`;
 * `emergencyAccess` on an entitlement without emergency grants), `NOT_FOUND` (app, entitlement, app
 * user or user), `PERMISSION_DENIED` (a request for someone else by a non-administrator),
 * `FAILED_PRECONDITION` (no policy applies, as for Hard Reset). Events: `taskCreated`, one
 * `conditionalPolicyExecutionResult` per rule evaluated, then the workflow's.
 *
 * @example
 * ```ts
 * const r = createGrantTask(world, { appId: "app-aws", appEntitlementId: "ent-aws-prod-admin" }, { actorId: "u-contractor" });
 * if (r.ok) console.log(r.value.response); // { expanded: [], taskView: { task: { ... the new task, at its first waiting step } } }
 * ```
 */
export function createGrantTask(world: World, req: CreateGrantTaskInput, actx: ActionContext): Result<Step<JsonValue>, SimError> {
  return guarded(() => {
    const notWorld = notAWorld(world);
    if (notWorld) return err<SimError>(notWorld);
    const read = accessRequestOf(world, req, actx, "grant");
    if (!read.ok) return read;
    const { caller, now, r, ent, subject, description, paths } = read.value;
    const emergency = r["emergencyAccess"];
    if (emergency !== undefined && emergency !== null && typeof emergency !== "boolean") return err(invalid("emergencyAccess must be a boolean", "emergencyAccess"));
    if (emergency === true && !emergencyGrantsEnabled(world, ent.value))
      return err(invalid(`entitlement "${ent.value.id}" does not allow emergency grants`, "emergencyAccess"));
    const duration = readGrantDuration(world, r, ent.value);
    if (!duration.ok) return duration;
    const given = r["requestData"];
    if (given !== undefined && given !== null && (typeof given !== "object" || Array.isArray(given))) return err(invalid("requestData must be an object", "requestData"));
    const copied = given === undefined || given === null ? ok(null) : jsonObjectInput(given, "requestData");
    if (!copied.ok) return copied;
    const data = copied.value;
    if (data !== null && JSON.stringify(data).length > MAX_REQUEST_DATA_CHARS)
      return err(invalid(`requestData is larger than ${MAX_REQUEST_DATA_CHARS.toLocaleString("en")} characters of JSON`, "requestData"));
    const source = readSource(r["source"]);
    if (!source.ok) return source;

    const app = world.index.apps.get(ent.value.appId);
    const user = world.index.users.get(subject.value.userId);
    const type: TaskType = {
      kind: "grant",
      appEntitlementId: ent.value.id,
      appId: ent.value.appId,
      appUserId: subject.value.appUserId,
      identityUserId: subject.value.userId,
      grantDuration: duration.value,
      outcome: "GRANT_OUTCOME_UNSPECIFIED",
      outcomeTime: null,
      source: source.value,
    };
    const build = (id: string, numericId: string) => draftTask(id, numericId, {
      displayName: `Grant "${ent.value.displayName || ent.value.id}" (${app?.displayName || ent.value.appId}) to ${user?.displayName || subject.value.userId}`,
      description: description.value,
      type,
      userId: subject.value.userId,
      createdByUserId: caller.id,
      emergencyAccess: emergency === true,
      data,
      revocationTargets: [],
    }, now);
    return start(world, caller, now, build, paths.value);
  });
}

/**
 * Creates a revoke task, as `POST /api/v1/task/revoke`: resolved and started as a Hard Reset would.
 * Answers `{expanded, taskView}` (TaskServiceCreateRevokeResponse). The user must hold the grant.
 *
 * @example
 * ```ts
 * const r = createRevokeTask(world, { appId: "app-github", appEntitlementId: "ent-gh-team-sre", identityUserId: "u-sre1" }, { actorId: "u-it-dir" });
 * ```
 */
export function createRevokeTask(world: World, req: CreateRevokeTaskInput, actx: ActionContext): Result<Step<JsonValue>, SimError> {
  return guarded(() => {
    const notWorld = notAWorld(world);
    if (notWorld) return err<SimError>(notWorld);
    const read = accessRequestOf(world, req, actx, "revoke");
    if (!read.ok) return read;
    const { caller, now, r, ent, subject, description, paths } = read.value;
    const { userId } = subject.value;
    if (!world.grants.some((g) => g.identityUserId === userId && g.appId === ent.value.appId && g.appEntitlementId === ent.value.id))
      return err(precondition(`user "${userId}" holds no grant of entitlement "${ent.value.id}" in app "${ent.value.appId}": nothing to revoke`));
    const app = world.index.apps.get(ent.value.appId);
    const user = world.index.users.get(userId);
    const type: TaskType = {
      kind: "revoke",
      appEntitlementId: ent.value.id,
      appId: ent.value.appId,
      appUserId: subject.value.appUserId,
      identityUserId: userId,
      outcome: "REVOKE_OUTCOME_UNSPECIFIED",
      outcomeTime: null,
      resource: null,
      source: { kind: "request", requestUserId: caller.id },
    };
    const build = (id: string, numericId: string) => draftTask(id, numericId, {
      displayName: `Revoke "${ent.value.displayName || ent.value.id}" (${app?.displayName || ent.value.appId}) from ${user?.displayName || userId}`,
      description: description.value,
      type,
      userId,
      createdByUserId: caller.id,
      emergencyAccess: false,
      data: null,
      revocationTargets: revocationTargetsFor(world, ent.value.appId, ent.value.id, userId),
    }, now);
    return start(world, caller, now, build, paths.value);
  });
}

/**
 * Creates an offboarding task, as `POST /api/v1/task/offboarding` (administrators only, assumed):
 * resolved (the tenant's default offboarding policy) and started as a Hard Reset would.
 *
 * @example
 * ```ts
 * const r = createOffboardingTask(world, { subjectUserId: "u-contractor" }, { actorId: "u-it-dir" });
 * ```
 */
export function createOffboardingTask(world: World, req: CreateOffboardingTaskInput, actx: ActionContext): Result<Step<JsonValue>, SimError> {
  return guarded(() => {
    const notWorld = notAWorld(world);
    if (notWorld) return err<SimError>(notWorld);
    const who = callerOf(world, actx);
    if (!who.ok) return who;
    const { caller, now } = who.value;
    const r = (typeof req === "object" && req !== null ? req : {}) as Fields;
    const subjectId = readString(r, "subjectUserId");
    if (!subjectId.ok) return subjectId;
    if (subjectId.value === "") return err(invalid("subjectUserId is required", "subjectUserId"));
    const subject = world.index.users.get(subjectId.value);
    if (!subject) return err({ code: "NOT_FOUND", message: `user "${subjectId.value}" not found` });
    if (!isAdmin(world, caller)) return err({ code: "PERMISSION_DENIED", message: `user "${caller.id}" may not offboard users: administrators only` });
    const quota = creationQuota(world, caller.id);
    if (quota) return err(quota);
    const description = readDescription(r);
    if (!description.ok) return description;
    const paths = expandPathsOf(r);
    if (!paths.ok) return paths;
    const build = (id: string, numericId: string) => draftTask(id, numericId, {
      displayName: `Offboard ${subject.displayName || subject.id}`,
      description: description.value,
      type: { kind: "offboarding", subjectUserId: subject.id, outcome: "OFFBOARDING_OUTCOME_UNSPECIFIED", outcomeTime: null },
      userId: subject.id,
      createdByUserId: caller.id,
      emergencyAccess: false,
      data: null,
      revocationTargets: [],
    }, now);
    return start(world, caller, now, build, paths.value);
  });
}
