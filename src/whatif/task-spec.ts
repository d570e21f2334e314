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
import { KNOWN_TASK_ORIGINS, type Task } from "../model/index.js";
import type { SimError } from "../reducers/errors.js";
import { err, ok, type Result } from "../result.js";
import { findEntitlement, findTask, replaceInWorld, taskNames, type World, type WorldPatch } from "../world/world.js";
import { describeValue, pathIndex, pathKey } from "../codec/diagnostic.js";
import { MAX_JSON_DEPTH } from "../codec/json-tools.js";
import { closest, didYouMean } from "../text/closest.js";
import { maxGrantSeconds } from "../policy/max-grant-duration.js";
import { TASK_ORIGIN } from "../cel/enums.js";
import { thrownMessage } from "./thrown-message.js";
import { got, isPlainRecord } from "./input-words.js";

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
  /** Who the request is for; `{ id, … }` describes a user the world does not have (required: a request by nobody routes as no one would). */
  readonly subject: SubjectSpec;
  readonly entitlement: EntitlementSpec;
  readonly emergencyAccess?: boolean;
  /** A task origin, short or long, in any case (`copilot`, `TASK_ORIGIN_COPILOT`), or the docs' older `SLACK`/`JIRA`; default `TASK_ORIGIN_WEBAPP`. An origin the service does not have is refused. */
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
 * The id of a described request's task when the description names none (its numericId is `0`):
 * how an explanation tells a request that does not exist yet from a task of the world.
 *
 * @example
 * ```ts
 * explanation.task.id === DESCRIBED_TASK_ID; // a described request, not a task of the world
 * ```
 */
export const DESCRIBED_TASK_ID = "spec-task";

/**
 * A task of the world (its id or numericId) or a described one: a {@link TaskSpec}, whose
 * `subject` may also be a user id of the world (`"u-dev2"`, which must exist — the user itself,
 * as `explain` and case files read it).
 *
 * @example
 * ```ts
 * const byId: TaskRef = "1001";
 * const described: TaskRef = { subject: { id: "u-new", department: "Engineering" }, entitlement: { appId: "app-aws", id: "ent-aws-prod-admin" } };
 * const asked: TaskRef = { subject: "u-contractor", entitlement: { appId: "app-aws", id: "ent-aws-prod-admin" } };
 * ```
 */
export type TaskRef = string | (Omit<TaskSpec, "subject"> & { readonly subject: string | SubjectSpec });

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

// The keys of each part of a spec, as lists: a caller's key is looked up here, never on an object
// (where `constructor` would be found on the prototype).
/**
 * The keys of a described task ({@link TaskSpec}): what a case may also carry at its top level.
 *
 * @example
 * ```ts
 * SPEC_KEYS.includes("taskId"); // true
 * ```
 */
export const SPEC_KEYS: readonly string[] = ["kind", "subject", "entitlement", "emergencyAccess", "origin", "grantDuration", "requesterId", "accessReviewId", "taskId"];
const SUBJECT_STRINGS: readonly string[] = ["id", "email", "displayName", "department", "jobTitle", "employmentType", "employmentStatus", "status", "directoryStatus", "type"];
const ENTITLEMENT_KEYS: readonly string[] = ["appId", "id", "riskLevelValueId", "appResourceTypeId", "displayName"];
/**
 * Every field of a loaded User and AppEntitlement: one of the world's objects may be passed as it is,
 * and its other fields are left alone; a key that is no field at all (`employmentTyp`, `riskLevel`) is
 * a typo, which would otherwise override nothing and let a `not.toRoute` pass.
 */
const USER_FIELDS: readonly string[] = [
  ...SUBJECT_STRINGS,
  "emails", "username", "usernames", "managerIds", "profile", "attributes", "roleIds", "delegatedUserId", "$unknown",
];
const ENTITLEMENT_FIELDS: readonly string[] = [
  ...ENTITLEMENT_KEYS,
  "appResourceId", "grantPolicyId", "revokePolicyId", "certifyPolicyId", "emergencyGrantEnabled", "emergencyGrantPolicyId",
  "overrideAccessRequestsDefaults", "requestSchemaId", "ownerUserIds", "annotations", "role", "scope", "durationGrant", "durationUnset", "$unknown",
];
const SPEC_STRINGS: readonly string[] = ["origin", "requesterId", "accessReviewId", "taskId"];
// Names a caller may reach for, from the wire task (`identityUserId`) or the case files (`request`).
const SPEC_HINTS: ReadonlyMap<string, string> = new Map([
  ["user", "subject"],
  ["userId", "subject"],
  ["subjectId", "subject"],
  ["identityUserId", "subject"],
  ["entitlementId", "entitlement"],
  ["appEntitlementId", "entitlement"],
  ["type", "kind"],
  ["emergency", "emergencyAccess"],
]);

type Bad = { readonly ok: false; readonly error: SimError };

function invalid(field: string, message: string): Bad {
  return err({ code: "INVALID_ARGUMENT", message: `${field} ${message}`, field });
}

/** The first own key of `o` not in `known`, refused with the key probably meant. */
function unknownKey(o: object, known: readonly string[], path: string, what: string, hints: ReadonlyMap<string, string> = new Map()): Bad | undefined {
  for (const k of Object.keys(o)) {
    if (known.includes(k)) continue;
    const guess = hints.get(k) ?? closest(k, known);
    // `$unknown` (fields kept unread) is accepted but no key to offer.
    const listed = known.filter((x) => !x.startsWith("$"));
    return invalid(path === "" ? k : pathKey(path, k), `is not a key of ${what}${guess === undefined ? ` (the keys are ${listed.join(", ")})` : `; did you mean ${guess}?`}`);
  }
  return undefined;
}

/**
 * Why `v` is not JSON a world file could hold (a function, a bigint, a non-finite number, a cycle,
 * nesting past {@link MAX_JSON_DEPTH}), or undefined. Iterative, and each object is looked at once,
 * so neither depth nor sharing can make it slow.
 */
function jsonProblem(v: unknown, path: string): Bad | undefined {
  const onPath = new Set<object>();
  const done = new Set<object>();
  // An entry with `leave` marks the end of an object's children: it comes off the current path.
  const work: { value: unknown; at: string; depth: number; leave?: object }[] = [{ value: v, at: path, depth: 0 }];
  for (let next = work.pop(); next !== undefined; next = work.pop()) {
    if (next.leave) {
      onPath.delete(next.leave);
      done.add(next.leave);
      continue;
    }
    const { value, at, depth } = next;
    if (value === null || typeof value === "string" || typeof value === "boolean") continue;
    if (typeof value === "number") {
      if (Number.isFinite(value)) continue;
      return invalid(at, `must be JSON (a finite number), ${got(value)}`);
    }
    if (typeof value !== "object" || !(Array.isArray(value) || isPlainRecord(value)))
      return invalid(at, `must be JSON (null, a boolean, number, string, list or plain object), ${typeof value === "object" ? `got ${Object.prototype.toString.call(value).slice(8, -1)}` : got(value)}`);
    if (onPath.has(value)) return invalid(at, "refers to itself: a described value must be JSON, without cycles");
    if (done.has(value)) continue;
    if (depth > MAX_JSON_DEPTH) return invalid(at, `nests more than ${MAX_JSON_DEPTH} levels`);
    onPath.add(value);
    work.push({ value: undefined, at, depth, leave: value });
    if (Array.isArray(value)) for (let i = 0; i < value.length; i++) work.push({ value: value[i], at: pathIndex(at, i), depth: depth + 1 });
    else for (const k of Object.keys(value)) work.push({ value: (value as Record<string, unknown>)[k], at: pathKey(at, k), depth: depth + 1 });
  }
  return undefined;
}

function decodeSubject(v: unknown): Bad | undefined {
  if (typeof v === "string") return v === "" ? invalid("subject", "must be a user id (a non-empty string) or a described user { id, … }, got an empty string") : undefined;
  if (!isPlainRecord(v)) return invalid("subject", `must be a user id or a described user { id, department, … }, ${got(v)}`);
  // A user's other fields are left alone: a caller may pass one of the world's users as it is
  // (`emails`, `roleIds`, …). A key no user has is a typo.
  const typo = unknownKey(v, USER_FIELDS, "subject", "a user", new Map([["userId", "id"], ["name", "displayName"], ["manager", "managerIds"], ["managerId", "managerIds"]]));
  if (typo) return typo;
  // A described user is someone: without an id ({}, { employmentType }) the request was by a
  // placeholder, whose route said nothing of anyone's (hostile review 2).
  const id: unknown = v["id"];
  if (id === undefined || id === "") return invalid("subject.id", 'a described user needs an id: { id: "u-new", employmentType: "Contractor", … } (the id of a user of the world takes that user and changes only the fields given)');
  for (const k of SUBJECT_STRINGS) {
    const x: unknown = v[k];
    if (x !== undefined && typeof x !== "string") return invalid(`subject.${k}`, `must be a string, ${got(x)}`);
  }
  const managers: unknown = v["managerIds"];
  if (managers !== undefined) {
    if (!Array.isArray(managers)) return invalid("subject.managerIds", `must be a list of user ids, ${got(managers)}`);
    const i = managers.findIndex((m) => typeof m !== "string");
    if (i >= 0) return invalid(pathIndex("subject.managerIds", i), `must be a user id, ${got(managers[i])}`);
  }
  for (const k of ["profile", "attributes"]) {
    const x: unknown = v[k];
    if (x === undefined) continue;
    if (!isPlainRecord(x)) return invalid(`subject.${k}`, `must be an object of JSON values, ${got(x)}`);
    const bad = jsonProblem(x, `subject.${k}`);
    if (bad) return bad;
  }
  return undefined;
}

function decodeEntitlement(v: unknown): Bad | undefined {
  if (v === undefined) return invalid("entitlement", "is missing: a described task needs an entitlement { appId, id }");
  if (!isPlainRecord(v)) {
    const slash = typeof v === "string" ? v.indexOf("/") : -1;
    const hint = typeof v === "string" && slash > 0 ? ` (did you mean { appId: ${JSON.stringify(v.slice(0, slash))}, id: ${JSON.stringify(v.slice(slash + 1))} }?)` : "";
    return invalid("entitlement", `must be { appId, id }, ${got(v)}${hint}`);
  }
  // Other keys are left alone (one of the world's entitlements may be passed as it is); without an
  // `id`, the API's names for it are pointed out.
  if (v["id"] === undefined) {
    const extra = unknownKey(v, ENTITLEMENT_KEYS, "entitlement", "an entitlement", new Map([["entitlementId", "id"], ["appEntitlementId", "id"]]));
    if (extra) return extra;
  }
  const typo = unknownKey(v, ENTITLEMENT_FIELDS, "entitlement", "an entitlement", new Map([["riskLevel", "riskLevelValueId"], ["risk", "riskLevelValueId"], ["resourceType", "appResourceTypeId"]]));
  if (typo) return typo;
  for (const k of ENTITLEMENT_KEYS) {
    const x: unknown = v[k];
    const required = k === "appId" || k === "id";
    if (required ? typeof x !== "string" || x === "" : x !== undefined && typeof x !== "string")
      return invalid(`entitlement.${k}`, `must be ${required ? "a non-empty string" : "a string"}, ${got(x)}`);
  }
  return undefined;
}

/**
 * Why `ref` is not a well-formed task reference, or undefined: the shape only (an id is looked up,
 * and a subject id checked, by {@link taskInWorld}). Every key known, every value of its type.
 */
function specProblem(ref: unknown): Bad | undefined {
  if (typeof ref === "string") return undefined;
  if (!isPlainRecord(ref)) return invalid("task", `must be a task id or numericId (a string) or a described request { subject, entitlement, … }, ${got(ref)}${typeof ref === "number" ? ` (did you mean "${String(ref)}"?)` : ""}`);
  const extra = unknownKey(ref, SPEC_KEYS, "", "a described task", SPEC_HINTS);
  if (extra) return extra;
  const kind: unknown = ref["kind"];
  if (kind !== undefined && kind !== "grant" && kind !== "revoke" && kind !== "certify") return invalid("kind", `must be grant, revoke or certify, ${got(kind)}`);
  const subject: unknown = ref["subject"];
  // No subject at all is a request by nobody: its conditions would read an empty user and a case
  // would pass or fail for that reason alone (author review). Someone who does not exist is { id, … }.
  const missing = subject === undefined || subject === null;
  const bad = (missing ? undefined : decodeSubject(subject)) ?? decodeEntitlement(ref["entitlement"]);
  if (bad) return bad;
  if (missing) return invalid("subject", 'a described request needs a subject: a user id ("u-dev1"), or { id: "u-new", department: …, … } for a user who does not exist yet');
  const o: unknown = ref["origin"];
  if (typeof o === "string" && o !== "" && originOf(o) === undefined)
    return invalid("origin", `must be one of ${TASK_ORIGIN_NAMES.join(", ")} (or its TASK_ORIGIN_… name), not ${JSON.stringify(o)}`);
  const emergency: unknown = ref["emergencyAccess"];
  if (emergency !== undefined && typeof emergency !== "boolean") return invalid("emergencyAccess", `must be true or false, ${got(emergency)}`);
  const duration: unknown = ref["grantDuration"];
  if (duration !== undefined && duration !== null && typeof duration !== "string") return invalid("grantDuration", `must be a duration such as "3600s", or null, ${got(duration)}`);
  for (const k of SPEC_STRINGS) {
    const x: unknown = ref[k];
    if (x !== undefined && typeof x !== "string") return invalid(k, `must be a string, ${got(x)}`);
  }
  return undefined;
}

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

/**
 * The origins a request may name, short (`COPILOT`): UNSPECIFIED is no origin to ask about.
 *
 * @example
 * ```ts
 * TASK_ORIGIN_NAMES.includes("COPILOT"); // true
 * ```
 */
export const TASK_ORIGIN_NAMES: readonly string[] = KNOWN_TASK_ORIGINS.filter((o) => o !== "TASK_ORIGIN_UNSPECIFIED").map((o) => o.replace(/^TASK_ORIGIN_/, ""));

/**
 * The short name of the origin a request names, short or long in any case (`copilot`,
 * `TASK_ORIGIN_COPILOT`), or by the documentation's older name (`SLACK`, `JIRA`: `TaskOrigin.SLACK`
 * in conditions); `undefined` for one the service does not have. Described requests and explain's
 * `--origin` read origins through it.
 *
 * @example
 * ```ts
 * taskOriginName("slack"); // "CHATAPP"
 * taskOriginName("COPILOTT"); // undefined
 * ```
 */
export function taskOriginName(value: string): string | undefined {
  const upper = value.toUpperCase().replace(/^TASK_ORIGIN_/, "");
  const short = TASK_ORIGIN.aliases[upper] ?? upper;
  return TASK_ORIGIN_NAMES.includes(short) ? short : undefined;
}

/** A described request's origin as its task carries it; UNSPECIFIED too (generated specs name it). */
function originOf(o: string): string | undefined {
  const short = taskOriginName(o) ?? (o.toUpperCase().replace(/^TASK_ORIGIN_/, "") === "UNSPECIFIED" ? "UNSPECIFIED" : undefined);
  return short === undefined ? undefined : `TASK_ORIGIN_${short}`;
}

function origin(o: string | undefined): string {
  if (o === undefined || o === "") return "TASK_ORIGIN_WEBAPP";
  // specProblem refused any other.
  return originOf(o) ?? o;
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
  try {
    return build(world, ref);
  } catch (e: unknown) {
    return err({ code: "INTERNAL", message: `policy-sim internal error: ${thrownMessage(e)}` });
  }
}

/**
 * The duration a request that asks for none gets, as `createGrantTask` gives it: the entitlement's
 * maximum when one is set (policy/max-grant-duration.ts), else none (a permanent grant).
 */
function defaultGrantDuration(world: World, described: AppEntitlement | undefined, appId: string, entitlementId: string): string | null {
  // A described entitlement (its fields overridden) is read as the world with it would read it.
  const limit = described === undefined ? maxGrantSeconds(world, appId, entitlementId) : maxGrantSeconds(replaceInWorld(world, { entitlements: [described] }), appId, entitlementId);
  return limit === undefined ? null : `${limit.seconds}s`;
}


/** The guess for an entitlement that is not there: its app's closest entitlement, or the closest app. */
function entitlementHint(world: World, appId: string, entitlementId: string): string {
  const own = world.index.entitlementsByApp.get(appId);
  if (own !== undefined) return didYouMean(entitlementId, own.keys());
  const app = closest(appId, world.index.apps.keys());
  return app === undefined ? ` (there is no app "${appId}")` : ` (there is no app "${appId}"; did you mean "${app}"?)`;
}

function build(world: World, ref: TaskRef): Result<TaskInWorld, SimError> {
  if (typeof ref === "string") {
    const task = findTask(world, ref);
    return task ? ok({ world, task }) : err({ code: "NOT_FOUND", message: `task "${ref}" not found (by id or numericId)${didYouMean(ref, taskNames(world))}` });
  }
  const bad = specProblem(ref);
  if (bad) return bad;
  // A subject given by id is that user, as explain and case files read it: an unknown id is a
  // mistake to report, not a new user to make up (describing one is { id, … }).
  if (typeof ref.subject === "string" && !world.index.users.has(ref.subject))
    return err({
      code: "NOT_FOUND",
      message: `user "${ref.subject}" not found${didYouMean(ref.subject, world.index.users.keys())} (to describe a user who does not exist yet, give subject: { id: "${ref.subject}", … })`,
      field: "subject",
    } as SimError);
  const s: SubjectSpec = typeof ref.subject === "string" ? { id: ref.subject } : (ref.subject ?? {});
  const { appId, id: entitlementId } = ref.entitlement;
  const ent = findEntitlement(world, appId, entitlementId);
  if (!ent) return err({ code: "NOT_FOUND", message: `entitlement "${entitlementId}" of app "${appId}" does not exist${entitlementHint(world, appId, entitlementId)}` });
  const subjectId = s.id ?? DEFAULT_SUBJECT;
  const existing = world.index.users.get(subjectId);
  const subject = existing && !hasOverrides(s) ? undefined : subjectOf(existing ?? emptyUser(subjectId), s);
  const entitlement = entitlementOf(ent, ref.entitlement);
  const patch: WorldPatch = { ...(subject ? { users: [subject] } : {}), ...(entitlement ? { entitlements: [entitlement] } : {}) };
  const kind = ref.kind ?? "grant";
  const common = { appId, appEntitlementId: entitlementId, identityUserId: subjectId };
  const type =
    kind === "grant"
      ? { grant: { ...common, grantDuration: ref.grantDuration ?? defaultGrantDuration(world, entitlement, appId, entitlementId) } }
      : kind === "revoke"
        ? { revoke: { ...common, source: { request: { requestUserId: ref.requesterId ?? subjectId } } } }
        : { certify: { ...common, accessReviewId: ref.accessReviewId ?? "" } };
  const decoded = decodeTask({
    id: ref.taskId ?? DESCRIBED_TASK_ID,
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
  // A reference that is not one (no entitlement, a number, …) is still named, never thrown over:
  // the message it goes into says what is wrong with it.
  if (specProblem(ref) !== undefined) return typeof ref === "object" && ref !== null ? "the described task" : `the task given (${describeValue(ref)})`;
  const s: SubjectSpec = typeof ref.subject === "string" ? { id: ref.subject } : (ref.subject ?? {});
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
