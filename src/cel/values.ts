/**
 * The CEL-side objects behind the environment's message types (`User`, `Task`, `Entitlement`,
 * `AppUser`, `Group`, …). They are built once from world values (see `prepareConditionInput`) so
 * that every condition evaluated for a task reads the same objects: conversion is not on the
 * per-condition path.
 *
 * Field types are declared to cel-js with the classes, so `subject.departmnt` fails the type check.
 * The snake_case names the service still accepts are getters on the prototype, not copies.
 */
import { Duration } from "@marcbachmann/cel-js/evaluator";
import type { AppEntitlement, AppUser, Group, User } from "../model/directory.js";
import type { JsonObject } from "../model/json.js";
import type { CelDirectory } from "./directory.js";
import { APP_USER_STATUS, APP_USER_TYPE, TASK_ORIGIN, USER_STATUS, USER_TYPE, enumValue, type CelEnumValue } from "./enums.js";

const TS = "google.protobuf.Timestamp";
const DUR = "google.protobuf.Duration";
const JSON_MAP = "map<string, dyn>";

/** Defines snake_case getters that read the camelCase field. */
function aliases(ctor: { prototype: object }, pairs: Readonly<Record<string, string>>): void {
  for (const [snake, camel] of Object.entries(pairs)) {
    Object.defineProperty(ctor.prototype, snake, {
      get(this: Record<string, unknown>) {
        return this[camel];
      },
      enumerable: false,
      configurable: false,
    });
  }
}

/** Field declarations for cel-js, with every alias typed like its camelCase field. */
function withAliases(fields: Readonly<Record<string, string>>, pairs: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = { ...fields };
  for (const [snake, camel] of Object.entries(pairs)) {
    const t = fields[camel];
    if (t !== undefined) out[snake] = t;
  }
  return out;
}

const USER_ALIASES = {
  display_name: "displayName",
  job_title: "jobTitle",
  employment_type: "employmentType",
  employment_status: "employmentStatus",
  directory_status: "directoryStatus",
  manager_id: "managerId",
  manager_ids: "managerIds",
} as const;

/**
 * A directory user as CEL sees it (`subject`, `appOwners`, the users directory functions return).
 * `manager` is the first manager's email and `managerId` their id, as the service exposes them.
 *
 * @example
 * ```ts
 * const u = celUser(ada, directory);
 * u.status.toString(); // "UserStatus.ENABLED"
 * ```
 */
export class CelUser {
  readonly id: string;
  readonly email: string;
  readonly emails: readonly string[];
  readonly displayName: string;
  readonly username: string;
  readonly usernames: readonly string[];
  readonly department: string;
  readonly jobTitle: string;
  readonly employmentType: string;
  readonly employmentStatus: string;
  readonly status: CelEnumValue;
  readonly directoryStatus: CelEnumValue;
  readonly type: CelEnumValue;
  readonly manager: string;
  readonly managerId: string;
  readonly managerIds: readonly string[];
  readonly profile: JsonObject;
  readonly attributes: JsonObject;

  constructor(
    /** The model user this was built from (not visible to CEL). */
    readonly source: User,
    managerEmail: string,
  ) {
    this.id = source.id;
    this.email = source.email;
    this.emails = source.emails;
    this.displayName = source.displayName;
    this.username = source.username;
    this.usernames = source.usernames;
    this.department = source.department;
    this.jobTitle = source.jobTitle;
    this.employmentType = source.employmentType;
    this.employmentStatus = source.employmentStatus;
    this.status = enumValue(USER_STATUS, source.status);
    this.directoryStatus = enumValue(USER_STATUS, source.directoryStatus);
    this.type = enumValue(USER_TYPE, source.type);
    this.managerIds = source.managerIds;
    this.managerId = source.managerIds[0] ?? "";
    this.manager = managerEmail;
    this.profile = source.profile;
    this.attributes = source.attributes;
  }
}
aliases(CelUser, USER_ALIASES);

/**
 * The CEL field types of `User`.
 *
 * @example
 * ```ts
 * USER_FIELDS["job_title"]; // "string"
 * ```
 */
export const USER_FIELDS: Readonly<Record<string, string>> = withAliases(
  {
    id: "string",
    email: "string",
    emails: "list<string>",
    displayName: "string",
    username: "string",
    usernames: "list<string>",
    department: "string",
    jobTitle: "string",
    employmentType: "string",
    employmentStatus: "string",
    status: USER_STATUS.typeName,
    directoryStatus: USER_STATUS.typeName,
    type: USER_TYPE.typeName,
    manager: "string",
    managerId: "string",
    managerIds: "list<string>",
    profile: JSON_MAP,
    attributes: JSON_MAP,
  },
  USER_ALIASES,
);

/**
 * Converts directory users to {@link CelUser}s, once per user and directory: the manager's email
 * comes from the directory, and approver expressions see the same users again and again.
 *
 * @example
 * ```ts
 * const users = new CelUserCache();
 * users.get(ada, directory) === users.get(ada, directory); // true
 * ```
 */
export class CelUserCache {
  readonly #byDirectory = new WeakMap<CelDirectory, WeakMap<User, CelUser>>();

  get(user: User, directory: CelDirectory): CelUser {
    let perDir = this.#byDirectory.get(directory);
    if (!perDir) {
      perDir = new WeakMap();
      this.#byDirectory.set(directory, perDir);
    }
    let u = perDir.get(user);
    if (!u) {
      const managerId = user.managerIds[0];
      const manager = managerId === undefined ? undefined : directory.userById(managerId);
      u = Object.freeze(new CelUser(user, manager?.email ?? ""));
      perDir.set(user, u);
    }
    return u;
  }
}

const GROUP_ALIASES = { app_id: "appId", display_name: "displayName", member_user_ids: "memberUserIds" } as const;

/**
 * A group, as `c1.directory.groups.v1.FindByName` returns it.
 *
 * @example
 * ```ts
 * new CelGroup(oncall).displayName; // "On-call"
 * ```
 */
export class CelGroup {
  readonly id: string;
  readonly appId: string;
  readonly displayName: string;
  readonly memberUserIds: readonly string[];
  constructor(g: Group) {
    this.id = g.id;
    this.appId = g.appId;
    this.displayName = g.displayName;
    this.memberUserIds = g.memberUserIds;
  }
}
aliases(CelGroup, GROUP_ALIASES);

/**
 * The CEL field types of `Group`.
 *
 * @example
 * ```ts
 * GROUP_FIELDS["displayName"]; // "string"
 * ```
 */
export const GROUP_FIELDS: Readonly<Record<string, string>> = withAliases(
  { id: "string", appId: "string", displayName: "string", memberUserIds: "list<string>" },
  GROUP_ALIASES,
);

/**
 * The facts about a task that conditions read, in wire form: the policy layer builds this from the
 * model Task. int64 and durations are strings as on the wire; absent messages are `null`.
 *
 * @example
 * ```ts
 * const facts: TaskFacts = { id: "t-1", numericId: "1001", displayName: "Grant admin", origin: "TASK_ORIGIN_WEBAPP",
 *   isGrantPermanent: false, grantDuration: "3600s", subjectUserId: "u-ada", requestorUserId: "u-ada",
 *   createdAt: "2026-11-22T08:00:00Z", analysis: null };
 * ```
 */
export interface TaskFacts {
  readonly id: string;
  /** int64 as a decimal string (`""` reads as 0). */
  readonly numericId: string;
  readonly displayName: string;
  /** `TASK_ORIGIN_…` or the bare member name. */
  readonly origin: string;
  readonly isGrantPermanent: boolean;
  /** A protobuf duration (`"3600s"`) or a Go duration (`"1h"`); `null` reads as 0s. */
  readonly grantDuration: string | null;
  readonly subjectUserId: string;
  readonly requestorUserId: string;
  /** RFC 3339; `null` reads as the epoch, as an unset protobuf timestamp does. */
  readonly createdAt: string | null;
  readonly analysis: {
    readonly id: string;
    readonly hasConflictViolations: boolean;
    readonly conflictViolations: readonly string[];
  } | null;
}

const ANALYSIS_ALIASES = { has_conflict_violations: "hasConflictViolations", conflict_violations: "conflictViolations" } as const;

/**
 * `task.analysis`.
 *
 * @example
 * ```ts
 * new CelTaskAnalysis("an-1", true, ["c-1"]).hasConflictViolations; // true
 * ```
 */
export class CelTaskAnalysis {
  constructor(
    readonly id: string,
    readonly hasConflictViolations: boolean,
    readonly conflictViolations: readonly string[],
  ) {}
}
aliases(CelTaskAnalysis, ANALYSIS_ALIASES);

/**
 * The CEL field types of `TaskAnalysis`.
 *
 * @example
 * ```ts
 * ANALYSIS_FIELDS["conflictViolations"]; // "list<string>"
 * ```
 */
export const ANALYSIS_FIELDS: Readonly<Record<string, string>> = withAliases(
  { id: "string", hasConflictViolations: "bool", conflictViolations: "list<string>" },
  ANALYSIS_ALIASES,
);

const TASK_ALIASES = {
  numeric_id: "numericId",
  display_name: "displayName",
  is_grant_permanent: "isGrantPermanent",
  grant_duration: "grantDuration",
  subject_user_id: "subjectUserId",
  requestor_user_id: "requestorUserId",
  created_at: "createdAt",
} as const;

/**
 * `task`. `numericId` is a CEL int (the proto field is int64; only its JSON form is a string).
 *
 * @example
 * ```ts
 * const t = celTask(facts);
 * t.ok && t.value.numericId; // 1001n
 * ```
 */
export class CelTask {
  constructor(
    readonly id: string,
    readonly numericId: bigint,
    readonly displayName: string,
    readonly origin: CelEnumValue,
    readonly isGrantPermanent: boolean,
    readonly grantDuration: Duration,
    readonly subjectUserId: string,
    readonly requestorUserId: string,
    readonly createdAt: Date,
    readonly analysis: CelTaskAnalysis,
  ) {}
}
aliases(CelTask, TASK_ALIASES);

/**
 * The CEL field types of `Task`.
 *
 * @example
 * ```ts
 * TASK_FIELDS["numericId"]; // "int"
 * ```
 */
export const TASK_FIELDS: Readonly<Record<string, string>> = withAliases(
  {
    id: "string",
    numericId: "int",
    displayName: "string",
    origin: TASK_ORIGIN.typeName,
    isGrantPermanent: "bool",
    grantDuration: DUR,
    subjectUserId: "string",
    requestorUserId: "string",
    createdAt: TS,
    analysis: "TaskAnalysis",
  },
  TASK_ALIASES,
);

/**
 * A problem with input data, reported with the path of the offending value.
 *
 * @example
 * ```ts
 * const p: InputProblem = { path: "task.numericId", message: 'not an int64: "12a"' };
 * ```
 */
export interface InputProblem {
  readonly path: string;
  readonly message: string;
}

type Converted<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: InputProblem };

/**
 * Reads a protobuf JSON duration (`"3600s"`, `"1.5s"`) or a Go duration (`"1h30m"`).
 *
 * @example
 * ```ts
 * parseDuration("90s")?.seconds; // 90n
 * ```
 */
export function parseDuration(s: string): Duration | undefined {
  // The wire's usual form ("3600s") without the general parser: this runs once per task.
  if (/^\d{1,12}s$/.test(s)) return new Duration(BigInt(s.slice(0, -1)), 0);
  const proto = /^(-)?(\d+)(?:\.(\d{1,9}))?s$/.exec(s);
  if (proto) {
    const seconds = BigInt(proto[2] ?? "0");
    const nanos = Number((proto[3] ?? "").padEnd(9, "0"));
    return proto[1] ? new Duration(-seconds, -nanos) : new Duration(seconds, nanos);
  }
  const units: Record<string, bigint> = { h: 3_600_000_000_000n, m: 60_000_000_000n, s: 1_000_000_000n, ms: 1_000_000n, us: 1_000n, "µs": 1_000n, ns: 1n };
  const go = /^([+-])?((?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+)$/.exec(s);
  if (!go) return undefined;
  let total = 0n;
  for (const m of (go[2] ?? "").matchAll(/(\d+)(?:\.(\d+))?(ns|us|µs|ms|s|m|h)/g)) {
    const unit = units[m[3] ?? "s"] ?? 1n;
    const frac = m[2] ?? "";
    total += BigInt(m[1] ?? "0") * unit + (frac ? (BigInt(frac.slice(0, 12).padEnd(12, "0")) * unit) / 1_000_000_000_000n : 0n);
  }
  if (go[1] === "-") total = -total;
  return new Duration(total / 1_000_000_000n, Number(total % 1_000_000_000n));
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * Reads an RFC 3339 timestamp.
 *
 * @example
 * ```ts
 * parseTimestamp("2026-11-22T09:00:00Z")?.toISOString(); // "2026-11-22T09:00:00.000Z"
 * ```
 */
export function parseTimestamp(s: string): Date | undefined {
  // Fields by hand: `new Date(string)` costs more than the rest of preparing a task.
  const m = RFC3339.exec(s);
  if (!m) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6]);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) return undefined;
  const frac = m[7];
  const ms = frac === undefined ? 0 : Math.floor(Number(frac) / 10 ** (frac.length - 3));
  let t = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  if (year < 100) t = Date.UTC(year + 400, month - 1, day, hour, minute, second, ms) - 12622780800000; // Date.UTC reads 0-99 as 19xx
  if (m[8] === undefined) t -= (m[9] === "-" ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11])) * 60000;
  return new Date(t);
}

const daysInMonth = (y: number, m: number): number =>
  m === 2 ? ((y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28) : m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;

const EPOCH = new Date(0);
const NO_ANALYSIS = Object.freeze(new CelTaskAnalysis("", false, Object.freeze([])));

/**
 * Converts task facts to the CEL `task`.
 *
 * @example
 * ```ts
 * celTask({ ...facts, numericId: "x" }); // { ok: false, error: { path: "task.numericId", ... } }
 * ```
 */
export function celTask(f: TaskFacts): Converted<CelTask> {
  const problem = (path: string, message: string): Converted<CelTask> => ({ ok: false, error: { path: `task.${path}`, message } });
  if (!/^-?\d{0,19}$/.test(f.numericId)) return problem("numericId", `not an int64: ${JSON.stringify(f.numericId)}`);
  const numericId = f.numericId === "" || f.numericId === "-" ? 0n : BigInt(f.numericId);
  if (numericId > 9223372036854775807n || numericId < -9223372036854775808n) return problem("numericId", "int64 overflow");
  let grantDuration = new Duration(0, 0);
  if (f.grantDuration !== null && f.grantDuration !== "") {
    const d = parseDuration(f.grantDuration);
    if (!d) return problem("grantDuration", `not a duration: ${JSON.stringify(f.grantDuration)}`);
    grantDuration = d;
  }
  let createdAt = EPOCH;
  if (f.createdAt !== null && f.createdAt !== "") {
    const d = parseTimestamp(f.createdAt);
    if (!d) return problem("createdAt", `not an RFC 3339 timestamp: ${JSON.stringify(f.createdAt)}`);
    createdAt = d;
  }
  const a = f.analysis;
  const analysis = a ? Object.freeze(new CelTaskAnalysis(a.id, a.hasConflictViolations, a.conflictViolations)) : NO_ANALYSIS;
  return {
    ok: true,
    value: Object.freeze(
      new CelTask(
        f.id,
        numericId,
        f.displayName,
        enumValue(TASK_ORIGIN, f.origin),
        f.isGrantPermanent,
        grantDuration,
        f.subjectUserId,
        f.requestorUserId,
        createdAt,
        analysis,
      ),
    ),
  };
}

const ENTITLEMENT_ALIASES = {
  app_id: "appId",
  display_name: "displayName",
  app_resource_type_id: "appResourceTypeId",
  app_resource_id: "appResourceId",
  risk_level_value_id: "riskLevelValueId",
} as const;

/**
 * `entitlement`.
 *
 * @example
 * ```ts
 * new CelEntitlement(admin).risk_level_value_id; // same as riskLevelValueId
 * ```
 */
export class CelEntitlement {
  readonly id: string;
  readonly appId: string;
  readonly displayName: string;
  readonly appResourceTypeId: string;
  readonly appResourceId: string;
  readonly riskLevelValueId: string;
  constructor(e: AppEntitlement) {
    this.id = e.id;
    this.appId = e.appId;
    this.displayName = e.displayName;
    this.appResourceTypeId = e.appResourceTypeId;
    this.appResourceId = e.appResourceId;
    this.riskLevelValueId = e.riskLevelValueId;
  }
}
aliases(CelEntitlement, ENTITLEMENT_ALIASES);

/**
 * The CEL field types of `Entitlement`.
 *
 * @example
 * ```ts
 * ENTITLEMENT_FIELDS["appId"]; // "string"
 * ```
 */
export const ENTITLEMENT_FIELDS: Readonly<Record<string, string>> = withAliases(
  { id: "string", appId: "string", displayName: "string", appResourceTypeId: "string", appResourceId: "string", riskLevelValueId: "string" },
  ENTITLEMENT_ALIASES,
);

/**
 * `account.status`: the account's status and the connector's details.
 *
 * @example
 * ```ts
 * new CelAccountStatus(enumValue(APP_USER_STATUS, "ENABLED"), "").status.toString(); // "AppUserStatus.ENABLED"
 * ```
 */
export class CelAccountStatus {
  constructor(
    readonly status: CelEnumValue,
    readonly details: string,
  ) {}
}

/**
 * The CEL field types of `AppUser.Status`.
 *
 * @example
 * ```ts
 * ACCOUNT_STATUS_FIELDS["details"]; // "string"
 * ```
 */
export const ACCOUNT_STATUS_FIELDS: Readonly<Record<string, string>> = { status: APP_USER_STATUS.typeName, details: "string" };

const ACCOUNT_ALIASES = {
  app_id: "appId",
  identity_user_id: "identityUserId",
  display_name: "displayName",
  app_user_type: "appUserType",
} as const;

/**
 * `account`: the target's account (AppUser) in the entitlement's app.
 *
 * @example
 * ```ts
 * new CelAccount(acct).appUserType.toString(); // "AppUserType.USER"
 * ```
 */
export class CelAccount {
  readonly id: string;
  readonly appId: string;
  readonly identityUserId: string;
  readonly displayName: string;
  readonly username: string;
  readonly email: string;
  readonly appUserType: CelEnumValue;
  readonly status: CelAccountStatus;
  readonly profile: JsonObject;
  constructor(a: AppUser) {
    this.id = a.id;
    this.appId = a.appId;
    this.identityUserId = a.identityUserId;
    this.displayName = a.displayName;
    this.username = a.username;
    this.email = a.email;
    this.appUserType = enumValue(APP_USER_TYPE, a.appUserType);
    this.status = Object.freeze(new CelAccountStatus(enumValue(APP_USER_STATUS, a.status?.status ?? ""), a.status?.details ?? ""));
    this.profile = a.profile;
  }
}
aliases(CelAccount, ACCOUNT_ALIASES);

/**
 * The CEL field types of `AppUser`.
 *
 * @example
 * ```ts
 * ACCOUNT_FIELDS["status"]; // "AppUser.Status"
 * ```
 */
export const ACCOUNT_FIELDS: Readonly<Record<string, string>> = withAliases(
  {
    id: "string",
    appId: "string",
    identityUserId: "string",
    displayName: "string",
    username: "string",
    email: "string",
    appUserType: APP_USER_TYPE.typeName,
    status: "AppUser.Status",
    profile: JSON_MAP,
  },
  ACCOUNT_ALIASES,
);
