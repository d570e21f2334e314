/**
 * Tasks described rather than looked up: "a contractor asking for prod-admin", as a subject (an
 * existing user with some attributes overridden, or a new one) and an entitlement. Policy tests,
 * `diffPolicies` and rule coverage build such tasks inside a world; the world gets the overridden
 * subject (and entitlement) through `replaceInWorld`, so conditions and approvers see them exactly
 * as they would see a real user.
 */
import { decodeTask } from "../codec/index.js";
import { type AppEntitlement, blankUser, type User } from "../model/directory.js";
import type { JsonObject, JsonValue } from "../model/json.js";
import type { Task } from "../model/index.js";
import type { SimError } from "../reducers/errors.js";
import { err, ok, type Result } from "../result.js";
import { findEntitlement, findTask, replaceInWorld, type World, type WorldPatch } from "../world/world.js";

/**
 * The subject of a described task: start from user `id` when it exists (keeping its grants,
 * accounts and manager), or from an empty user with that id (`u-spec-subject` by default), and
 * override the fields given. `profile` and `attributes` are merged key by key.
 *
 * @example
 * ```ts
 * const s: SubjectSpec = { id: "u-dev1", employmentType: "Contractor", profile: { clearance: "low" } };
 * ```
 */
export interface SubjectSpec {
  readonly id?: string;
  readonly email?: string;
  readonly displayName?: string;
  readonly department?: string;
  readonly jobTitle?: string;
  readonly employmentType?: string;
  readonly employmentStatus?: string;
  /** `ENABLED`, `DISABLED`, `DELETED`, `UNKNOWN` (a `USER_STATUS_` prefix is accepted). */
  readonly status?: string;
  readonly directoryStatus?: string;
  /** `USER_TYPE_HUMAN`, `USER_TYPE_AGENT`, `USER_TYPE_SERVICE`, `USER_TYPE_SYSTEM`. */
  readonly type?: string;
  readonly managerIds?: readonly string[];
  readonly profile?: Readonly<Record<string, JsonValue>>;
  readonly attributes?: Readonly<Record<string, JsonValue>>;
}

/**
 * The entitlement a described task is about: an existing one, optionally with the fields conditions
 * see overridden (the world gets the overridden copy).
 *
 * @example
 * ```ts
 * const e: EntitlementSpec = { appId: "app-aws", id: "ent-aws-prod-admin", riskLevelValueId: "high" };
 * ```
 */
export interface EntitlementSpec {
  readonly appId: string;
  readonly id: string;
  readonly riskLevelValueId?: string;
  readonly appResourceTypeId?: string;
  readonly displayName?: string;
}

/**
 * A described task: a grant (by default), revoke or certify task of `subject` for `entitlement`.
 *
 * @example
 * ```ts
 * const spec: TaskSpec = { subject: { id: "u-contractor" }, entitlement: { appId: "app-aws", id: "ent-aws-prod-admin" } };
 * const copilot: TaskSpec = { ...spec, origin: "COPILOT", emergencyAccess: false };
 * ```
 */
export interface TaskSpec {
  readonly kind?: "grant" | "revoke" | "certify";
  readonly subject?: SubjectSpec;
  readonly entitlement: EntitlementSpec;
  readonly emergencyAccess?: boolean;
  /** A task origin, long (`TASK_ORIGIN_COPILOT`) or short (`COPILOT`); default `TASK_ORIGIN_WEBAPP`. */
  readonly origin?: string;
  /** Grant duration (`"3600s"`); absent or null for a permanent grant. */
  readonly grantDuration?: string | null;
  /** Who asked; default the subject. */
  readonly requesterId?: string;
  /** The access review of a certify task. */
  readonly accessReviewId?: string;
  /** The id of the built task (default `spec-task`; its numericId is `0`). */
  readonly taskId?: string;
}

/**
 * A task of the world (its id or numericId) or a described one.
 *
 * @example
 * ```ts
 * const byId: TaskRef = "1001";
 * const described: TaskRef = { entitlement: { appId: "app-aws", id: "ent-aws-prod-admin" } };
 * ```
 */
export type TaskRef = string | TaskSpec;

/**
 * A task and the world to decide it in: the world itself for a task of the world, the world with
 * the spec's subject and entitlement for a described one.
 *
 * @example
 * ```ts
 * const r = taskInWorld(world, "1001");
 * if (r.ok) decide(r.value.world, r.value.task);
 * ```
 */
export interface TaskInWorld {
  readonly world: World;
  readonly task: Task;
}

const DEFAULT_SUBJECT = "u-spec-subject";

/** A described subject that is not in the world starts as an enabled human with nothing else set. */
function emptyUser(id: string): User {
  return { ...blankUser(id), status: "ENABLED", type: "USER_TYPE_HUMAN" };
}

function hasOverrides(s: SubjectSpec): boolean {
  return Object.keys(s).some((k) => k !== "id" && (s as Record<string, unknown>)[k] !== undefined);
}

function subjectOf(base: User, s: SubjectSpec): User {
  const status = s.status === undefined ? base.status : s.status.replace(/^USER_STATUS_/, "");
  const email = s.email ?? base.email;
  return {
    ...base,
    email,
    emails: s.email === undefined ? base.emails : [email],
    displayName: s.displayName ?? base.displayName,
    department: s.department ?? base.department,
    jobTitle: s.jobTitle ?? base.jobTitle,
    employmentType: s.employmentType ?? base.employmentType,
    employmentStatus: s.employmentStatus ?? base.employmentStatus,
    status,
    directoryStatus: s.directoryStatus ?? base.directoryStatus,
    type: s.type ?? base.type,
    managerIds: s.managerIds ?? base.managerIds,
    profile: s.profile ? ({ ...base.profile, ...s.profile } as JsonObject) : base.profile,
    attributes: s.attributes ? ({ ...base.attributes, ...s.attributes } as JsonObject) : base.attributes,
  };
}

function entitlementOf(base: AppEntitlement, e: EntitlementSpec): AppEntitlement | undefined {
  if (e.riskLevelValueId === undefined && e.appResourceTypeId === undefined && e.displayName === undefined) return undefined;
  return {
    ...base,
    riskLevelValueId: e.riskLevelValueId ?? base.riskLevelValueId,
    appResourceTypeId: e.appResourceTypeId ?? base.appResourceTypeId,
    displayName: e.displayName ?? base.displayName,
  };
}

function origin(o: string | undefined): string {
  if (o === undefined || o === "") return "TASK_ORIGIN_WEBAPP";
  return o.startsWith("TASK_ORIGIN_") ? o : `TASK_ORIGIN_${o}`;
}

/**
 * Builds a described task in a world. The world returned holds the spec's subject and entitlement
 * (when it overrides them); the task itself is not added to the world's tasks (deciding and
 * explaining a task do not need it there). Errors: `NOT_FOUND` for an unknown entitlement or a task
 * id that is not in the world, `INVALID_ARGUMENT` for a malformed spec.
 *
 * @example
 * ```ts
 * const r = taskInWorld(world, { subject: { id: "u-dev1", employmentType: "Contractor" },
 *   entitlement: { appId: "app-aws", id: "ent-aws-prod-admin" } });
 * if (r.ok) console.log(explainTask(r.value.world, r.value.task).result);
 * ```
 */
export function taskInWorld(world: World, ref: TaskRef): Result<TaskInWorld, SimError> {
  if (typeof ref === "string") {
    const task = findTask(world, ref);
    return task ? ok({ world, task }) : err({ code: "NOT_FOUND", message: `task "${ref}" not found (by id or numericId)` });
  }
  if (typeof ref !== "object" || ref === null || typeof ref.entitlement !== "object" || ref.entitlement === null)
    return err({ code: "INVALID_ARGUMENT", message: "a task spec needs an entitlement { appId, id }", field: "entitlement" });
  const { appId, id: entitlementId } = ref.entitlement;
  const ent = findEntitlement(world, appId, entitlementId);
  if (!ent) return err({ code: "NOT_FOUND", message: `entitlement "${entitlementId}" of app "${appId}" does not exist` });
  const s = ref.subject ?? {};
  const subjectId = s.id ?? DEFAULT_SUBJECT;
  const existing = world.index.users.get(subjectId);
  const subject = existing && !hasOverrides(s) ? undefined : subjectOf(existing ?? emptyUser(subjectId), s);
  const entitlement = entitlementOf(ent, ref.entitlement);
  const patch: WorldPatch = { ...(subject ? { users: [subject] } : {}), ...(entitlement ? { entitlements: [entitlement] } : {}) };
  const kind = ref.kind ?? "grant";
  const common = { appId, appEntitlementId: entitlementId, identityUserId: subjectId };
  const type =
    kind === "grant"
      ? { grant: { ...common, grantDuration: ref.grantDuration ?? null } }
      : kind === "revoke"
        ? { revoke: { ...common, source: { request: { requestUserId: ref.requesterId ?? subjectId } } } }
        : { certify: { ...common, accessReviewId: ref.accessReviewId ?? "" } };
  const decoded = decodeTask({
    id: ref.taskId ?? "spec-task",
    numericId: "0",
    displayName: `${kind} ${entitlementId} (${appId}) for ${subjectId}`,
    state: "TASK_STATE_OPEN",
    processing: "TASK_PROCESSING_TYPE_PROCESSING",
    origin: origin(ref.origin),
    userId: subjectId,
    createdByUserId: ref.requesterId ?? subjectId,
    emergencyAccess: ref.emergencyAccess === true,
    createdAt: world.now,
    updatedAt: world.now,
    type,
  });
  if (!decoded.ok)
    return err({ code: "INVALID_ARGUMENT", message: `the task spec does not make a valid task: ${decoded.error.map((d) => `${d.path}: ${d.message}`).join("; ")}` });
  return ok({ world: patch.users || patch.entitlements ? replaceInWorld(world, patch) : world, task: decoded.value });
}

/**
 * A short human name for a task reference, for messages.
 *
 * @example
 * ```ts
 * describeTaskRef("1001"); // 'task 1001'
 * describeTaskRef({ subject: { id: "u-dev1" }, entitlement: { appId: "app-aws", id: "ent-x" } }); // 'a grant of app-aws/ent-x to u-dev1'
 * ```
 */
export function describeTaskRef(ref: TaskRef): string {
  if (typeof ref === "string") return `task ${ref}`;
  const s = ref.subject ?? {};
  const overrides = Object.entries(s)
    .filter(([k, v]) => k !== "id" && v !== undefined)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  const who = `${s.id ?? DEFAULT_SUBJECT}${overrides.length > 0 ? ` (${overrides.join(", ")})` : ""}`;
  const { appId, id, ...entOverrides } = ref.entitlement;
  const ent = Object.entries(entOverrides)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  const extra = [
    ref.origin ? `origin ${ref.origin}` : "",
    ref.emergencyAccess ? "emergency access" : "",
    ref.grantDuration ? `for ${ref.grantDuration}` : "",
    ref.requesterId ? `requested by ${ref.requesterId}` : "",
  ].filter((x) => x !== "");
  return `a ${ref.kind ?? "grant"} of ${appId}/${id}${ent.length > 0 ? ` (${ent.join(", ")})` : ""} to ${who}${extra.length > 0 ? `, ${extra.join(", ")}` : ""}`;
}
