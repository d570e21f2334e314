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
import { unknownText } from "../model/common.js";
import type { AppEntitlement, AppUser, EntitlementResourceRef, Group, RiskScore, SecurityInsight, User } from "../model/directory.js";
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
  // The directory asked about last, and its users: every task of a world asks about the same one.
  #lastDirectory: CelDirectory | undefined;
  #lastUsers: WeakMap<User, CelUser> | undefined;

  get(user: User, directory: CelDirectory): CelUser {
    let perDir = directory === this.#lastDirectory ? this.#lastUsers : this.#byDirectory.get(directory);
    if (!perDir) {
      perDir = new WeakMap();
      this.#byDirectory.set(directory, perDir);
    }
    this.#lastDirectory = directory;
    this.#lastUsers = perDir;
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
  /** The task's number, as the reference types it: a string (`task.numericId == "12345"`). */
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
 * `task`. `numericId` is a string, as the expressions-reference page types it
 * (`task.numericId == "12345"`).
 *
 * `origin` and `createdAt` are converted on first read (getters): most conditions never read the
 * task, and making an enum value and a Date for every task was most of the cost of preparing it. {@link celTask} checks them all up front, so a malformed task still fails
 * preparation with the same error, and a task reads the same value (the same object) every time.
 *
 * Every field is private behind a getter, so the instance needs no `Object.freeze` to stay as it was
 * made: one is made per task, and freezing it (~50 ns on Node 20) cost as much as the rest of it.
 *
 * @example
 * ```ts
 * const t = celTask(facts);
 * t.ok && t.value.numericId; // "1001"
 * ```
 */
export class CelTask {
  readonly #id: string;
  readonly #displayName: string;
  readonly #isGrantPermanent: boolean;
  readonly #grantDuration: Duration;
  readonly #subjectUserId: string;
  readonly #requestorUserId: string;
  readonly #analysis: CelTaskAnalysis;
  readonly #numericId: string;
  // Each holds the checked text until its getter first converts it.
  #origin: CelEnumValue | string;
  #createdAt: Date | number | string;

  /**
   * @param numericId the task's number as text
   * @param origin an enum value, or the text to convert on first read
   * @param createdAt a timestamp, or its epoch milliseconds or checked RFC 3339 text to make one from on first read
   */
  constructor(
    id: string,
    numericId: string,
    displayName: string,
    origin: CelEnumValue | string,
    isGrantPermanent: boolean,
    grantDuration: Duration,
    subjectUserId: string,
    requestorUserId: string,
    createdAt: Date | number | string,
    analysis: CelTaskAnalysis,
  ) {
    this.#id = id;
    this.#numericId = numericId;
    this.#displayName = displayName;
    this.#origin = origin;
    this.#isGrantPermanent = isGrantPermanent;
    this.#grantDuration = grantDuration;
    this.#subjectUserId = subjectUserId;
    this.#requestorUserId = requestorUserId;
    this.#createdAt = createdAt;
    this.#analysis = analysis;
  }

  get id(): string {
    return this.#id;
  }

  get displayName(): string {
    return this.#displayName;
  }

  get isGrantPermanent(): boolean {
    return this.#isGrantPermanent;
  }

  get grantDuration(): Duration {
    return this.#grantDuration;
  }

  get subjectUserId(): string {
    return this.#subjectUserId;
  }

  get requestorUserId(): string {
    return this.#requestorUserId;
  }

  get analysis(): CelTaskAnalysis {
    return this.#analysis;
  }

  get numericId(): string {
    return this.#numericId;
  }

  get origin(): CelEnumValue {
    const v = this.#origin;
    return typeof v === "string" ? (this.#origin = enumValue(TASK_ORIGIN, v)) : v;
  }

  get createdAt(): Date {
    const v = this.#createdAt;
    if (typeof v === "number") return (this.#createdAt = new Date(v));
    // Checked by celTask, so it reads (NaN cannot happen).
    if (typeof v === "string") return (this.#createdAt = new Date(parseTimestampMs(v) ?? Number.NaN));
    return v;
  }
}
aliases(CelTask, TASK_ALIASES);

/**
 * The CEL field types of `Task`.
 *
 * @example
 * ```ts
 * TASK_FIELDS["numericId"]; // "string"
 * ```
 */
export const TASK_FIELDS: Readonly<Record<string, string>> = withAliases(
  {
    id: "string",
    numericId: "string",
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
  const t = parseTimestampMs(s);
  return t === undefined ? undefined : new Date(t);
}

/**
 * {@link parseTimestamp} as milliseconds since the epoch: a number can be cached and shared, a
 * `Date` (mutable) cannot.
 *
 * @example
 * ```ts
 * parseTimestampMs("1970-01-01T00:00:01Z"); // 1000
 * ```
 */
export function parseTimestampMs(s: string): number | undefined {
  // Strings are read character by character: this runs for every task (its `createdAt`), and the
  // regular expression with its eleven groups cost more than the rest of preparing the task.
  // Anything else goes through the regular expression, which converts it as it always did.
  return typeof s === "string" ? scanTimestamp(s, true) : parseWithRegex(s);
}

/**
 * Reads an RFC 3339 string; with `convert` false it only checks it (and returns 0 when it is
 * valid), leaving out the conversion to milliseconds, which costs as much as the reading.
 */
function scanTimestamp(s: string, convert: boolean): number | undefined {
  const n = s.length;
  if (n < 20) return undefined;
  const century = twoDigits(s, 0);
  const yy = twoDigits(s, 2);
  const month = twoDigits(s, 5);
  const day = twoDigits(s, 8);
  const hour = twoDigits(s, 11);
  const minute = twoDigits(s, 14);
  const second = twoDigits(s, 17);
  if ((century | yy | month | day | hour | minute | second) < 0) return undefined;
  const year = century * 100 + yy;
  const sep = s.charCodeAt(10);
  if (s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || (sep !== 84 && sep !== 116 && sep !== 32) || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return undefined;
  let i = 19;
  let frac = 0;
  let fracDigits = 0;
  if (s.charCodeAt(i) === 46) {
    i++;
    for (let c = s.charCodeAt(i); c >= 48 && c <= 57; c = s.charCodeAt(++i)) {
      if (++fracDigits > 9) return undefined;
      frac = frac * 10 + (c - 48);
    }
    if (fracDigits === 0) return undefined;
  }
  const zone = s.charCodeAt(i);
  let offsetMinutes = 0;
  if (zone === 90 || zone === 122) {
    if (i + 1 !== n) return undefined;
  } else if (zone === 43 || zone === 45) {
    const oh = twoDigits(s, i + 1);
    const om = twoDigits(s, i + 4);
    if (i + 6 !== n || oh < 0 || om < 0 || s.charCodeAt(i + 3) !== 58) return undefined;
    offsetMinutes = (zone === 45 ? -1 : 1) * (oh * 60 + om);
  } else return undefined;
  if (!convert) return validFields(year, month, day, hour, minute, second) ? 0 : undefined;
  return utcMs(year, month, day, hour, minute, second, frac, fracDigits, offsetMinutes);
}

/**
 * The value of the two ASCII digits at `at`, or −1 if either is not a digit (or is past the end).
 * Two at a time, unrolled: validating each task's `createdAt` is on the path of every decision.
 */
function twoDigits(s: string, at: number): number {
  const a = s.charCodeAt(at) - 48;
  const b = s.charCodeAt(at + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

function parseWithRegex(s: string): number | undefined {
  const m = RFC3339.exec(s);
  if (!m) return undefined;
  const frac = m[7];
  const offsetMinutes = m[8] === undefined ? (m[9] === "-" ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11])) : 0;
  return utcMs(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), frac === undefined ? 0 : Number(frac), frac === undefined ? 0 : frac.length, offsetMinutes);
}

function utcMs(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  frac: number,
  /** How many fraction digits were written (0: none). */
  fracDigits: number,
  offsetMinutes: number,
): number | undefined {
  if (!validFields(year, month, day, hour, minute, second)) return undefined;
  const ms = fracDigits === 0 ? 0 : Math.floor(frac / 10 ** (fracDigits - 3));
  let t = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  if (year < 100) t = Date.UTC(year + 400, month - 1, day, hour, minute, second, ms) - 12622780800000; // Date.UTC reads 0-99 as 19xx
  return t - offsetMinutes * 60000;
}

const validFields = (year: number, month: number, day: number, hour: number, minute: number, second: number): boolean =>
  year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month) && hour <= 23 && minute <= 59 && second <= 59;

/**
 * Whether a string is an RFC 3339 timestamp {@link parseTimestamp} reads, without converting it.
 *
 * @example
 * ```ts
 * isTimestampText("2026-02-29T00:00:00Z"); // false
 * ```
 */
export function isTimestampText(s: string): boolean {
  return scanTimestamp(s, false) !== undefined;
}

const daysInMonth = (y: number, m: number): number =>
  m === 2 ? ((y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28) : m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;

const EPOCH = new Date(0);
const NO_ANALYSIS = Object.freeze(new CelTaskAnalysis("", false, Object.freeze([])));
// Shared: a Duration keeps its fields private and has no setters, so no holder can change it.
const ZERO_DURATION = Object.freeze(new Duration(0, 0));

/**
 * Durations already read, by their text (`undefined`: not a duration). Grant durations repeat from
 * task to task ("3600s"); Durations are immutable, so sharing one cannot change a result.
 */
const durations = new Map<string, Duration | null>();
const DURATIONS_MAX = 256;

function durationOf(s: string): Duration | undefined {
  // Not a string (a JS caller): read as before, and not cached.
  if (typeof s !== "string") return parseDuration(s);
  let d = durations.get(s);
  if (d === undefined) {
    const parsed = parseDuration(s);
    d = parsed ? Object.freeze(parsed) : null;
    if (durations.size >= DURATIONS_MAX) durations.clear();
    durations.set(s, d);
  }
  return d ?? undefined;
}

function taskProblem(path: string, message: string): Converted<CelTask> {
  return { ok: false, error: { path: `task.${path}`, message } };
}

/**
 * Whether {@link celTask} converts facts with this grant duration and creation time: the only two
 * of its checks that can fail for facts of the declared types (both strings or null). For callers
 * that must know a task's input prepares without converting it (what-if's task classes).
 *
 * @example
 * ```ts
 * taskTextsConvert("3600s", "2026-01-01T00:00:00Z"); // true
 * taskTextsConvert(null, "yesterday"); // false
 * ```
 */
export function taskTextsConvert(grantDuration: string | null, createdAt: string | null): boolean {
  if (grantDuration !== null && grantDuration !== "" && (typeof grantDuration !== "string" || !durationOf(grantDuration))) return false;
  return createdAt === null || createdAt === "" || (typeof createdAt === "string" && isTimestampText(createdAt));
}

/**
 * Converts task facts to the CEL `task`. Every field is checked here; the conversions that cost
 * (bigint, enum, Date) are left to the first read when the input is of the declared type.
 *
 * @example
 * ```ts
 * celTask({ ...facts, createdAt: "x" }); // { ok: false, error: { path: "task.createdAt", ... } }
 * ```
 */
export function celTask(f: TaskFacts): Converted<CelTask> {
  // No closures and no regular expressions for well-typed input: this runs once per task.
  // Input of another type (a JS caller) takes the old path, with its conversions and errors.
  const numericId = typeof f.numericId === "string" ? f.numericId : String(f.numericId ?? "");
  let grantDuration: Duration = ZERO_DURATION;
  if (f.grantDuration !== null && f.grantDuration !== "") {
    const d = durationOf(f.grantDuration);
    if (!d) return taskProblem("grantDuration", `not a duration: ${JSON.stringify(f.grantDuration)}`);
    grantDuration = d;
  }
  // Checked now, a Date on first read: fresh per task, as a Date can be changed by its holder.
  let createdAt: Date | number | string = EPOCH;
  const c = f.createdAt;
  if (c !== null && c !== "") {
    if (typeof c === "string") {
      if (!isTimestampText(c)) return taskProblem("createdAt", `not an RFC 3339 timestamp: ${JSON.stringify(c)}`);
      createdAt = c;
    } else {
      const ms = parseTimestampMs(c);
      if (ms === undefined) return taskProblem("createdAt", `not an RFC 3339 timestamp: ${JSON.stringify(c)}`);
      createdAt = ms;
    }
  }
  const a = f.analysis;
  const analysis = a ? Object.freeze(new CelTaskAnalysis(a.id, a.hasConflictViolations, a.conflictViolations)) : NO_ANALYSIS;
  const origin = typeof f.origin === "string" ? f.origin : enumValue(TASK_ORIGIN, f.origin);
  const task = new CelTask(f.id, numericId, f.displayName, origin, f.isGrantPermanent, grantDuration, f.subjectUserId, f.requestorUserId, createdAt, analysis);
  return { ok: true, value: task };
}

const RESOURCE_ALIASES = { display_name: "displayName", app_resource_type_id: "appResourceTypeId" } as const;

/**
 * `entitlement.role` and `entitlement.scope`: the role a cloud infrastructure app's entitlement
 * grants and the scope it is granted on. For a classic entitlement every field is `""`
 * (entitlement-config-rules page).
 *
 * @example
 * ```ts
 * new CelEntitlementResource(null).display_name; // ""
 * ```
 */
export class CelEntitlementResource {
  readonly id: string;
  readonly displayName: string;
  readonly appResourceTypeId: string;
  constructor(r: EntitlementResourceRef | null | undefined) {
    this.id = r?.id ?? "";
    this.displayName = r?.displayName ?? "";
    this.appResourceTypeId = r?.appResourceTypeId ?? "";
  }
}
aliases(CelEntitlementResource, RESOURCE_ALIASES);

/**
 * The CEL field types of `EntitlementResource`.
 *
 * @example
 * ```ts
 * ENTITLEMENT_RESOURCE_FIELDS["app_resource_type_id"]; // "string"
 * ```
 */
export const ENTITLEMENT_RESOURCE_FIELDS: Readonly<Record<string, string>> = withAliases(
  { id: "string", displayName: "string", appResourceTypeId: "string" },
  RESOURCE_ALIASES,
);

const NO_RESOURCE = Object.freeze(new CelEntitlementResource(null));
const NO_STRINGS: Readonly<Record<string, string>> = Object.freeze({});

const ENTITLEMENT_ALIASES = {
  app_id: "appId",
  display_name: "displayName",
  app_resource_type_id: "appResourceTypeId",
  app_resource_id: "appResourceId",
  risk_level_value_id: "riskLevelValueId",
} as const;

/**
 * `entitlement`: the entitlement a task is about, or the one a configuration rule is matched
 * against. `annotations` is the entitlement's key/value metadata; `role` and `scope` are empty for a
 * classic entitlement.
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
  /** The API's `AppEntitlement.description` (a world file keeps it among the entitlement's other fields). */
  readonly description: string;
  readonly annotations: Readonly<Record<string, string>>;
  readonly role: CelEntitlementResource;
  readonly scope: CelEntitlementResource;
  constructor(e: AppEntitlement) {
    this.id = e.id;
    this.appId = e.appId;
    this.displayName = e.displayName;
    this.description = unknownText(e, "description");
    this.appResourceTypeId = e.appResourceTypeId;
    this.appResourceId = e.appResourceId;
    this.riskLevelValueId = e.riskLevelValueId;
    this.annotations = annotationMap(e.annotations);
    this.role = e.role ? Object.freeze(new CelEntitlementResource(e.role)) : NO_RESOURCE;
    this.scope = e.scope ? Object.freeze(new CelEntitlementResource(e.scope)) : NO_RESOURCE;
  }
}
aliases(CelEntitlement, ENTITLEMENT_ALIASES);

/** The string map of an entitlement's annotations (only its string values: a JS caller may pass anything). */
function annotationMap(a: AppEntitlement["annotations"]): Readonly<Record<string, string>> {
  if (a === null || a === undefined || Array.isArray(a) || typeof a !== "object") return NO_STRINGS;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(a as Readonly<Record<string, unknown>>)) if (typeof v === "string") out[k] = v;
  return Object.freeze(out);
}

/**
 * The world's entitlements and accounts as CEL values, once per source object: every task of an
 * entitlement reads the same one. Only frozen sources are cached (the world's are deep-frozen), so
 * an object that can still change is converted afresh each time, as before.
 */
const entitlements = new WeakMap<AppEntitlement, CelEntitlement>();
const accounts = new WeakMap<AppUser, CelAccount>();

/**
 * The CEL `entitlement` for a directory entitlement.
 *
 * @example
 * ```ts
 * celEntitlement(admin) === celEntitlement(admin); // true when `admin` is frozen
 * ```
 */
export function celEntitlement(e: AppEntitlement): CelEntitlement {
  const hit = entitlements.get(e);
  if (hit) return hit;
  const value = Object.freeze(new CelEntitlement(e));
  if (typeof e === "object" && Object.isFrozen(e)) entitlements.set(e, value);
  return value;
}

/**
 * The CEL field types of `Entitlement`.
 *
 * @example
 * ```ts
 * ENTITLEMENT_FIELDS["appId"]; // "string"
 * ```
 */
export const ENTITLEMENT_FIELDS: Readonly<Record<string, string>> = withAliases(
  {
    id: "string",
    appId: "string",
    displayName: "string",
    appResourceTypeId: "string",
    appResourceId: "string",
    riskLevelValueId: "string",
    description: "string",
    annotations: "map<string, string>",
    role: "EntitlementResource",
    scope: "EntitlementResource",
  },
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

/**
 * One risk score of an account (`c1.risk_score.v1`): the source app's display name and the
 * normalized score, 0–100 (external-insights page).
 *
 * @example
 * ```ts
 * new CelRiskScore("CrowdStrike", 72n).normalized_score; // 72n
 * ```
 */
export class CelRiskScore {
  constructor(
    readonly source: string,
    readonly normalizedScore: bigint,
  ) {}
}
aliases(CelRiskScore, { normalized_score: "normalizedScore" });

/**
 * The CEL field types of `c1.risk_score.v1`.
 *
 * @example
 * ```ts
 * RISK_SCORE_FIELDS["normalized_score"]; // "int"
 * ```
 */
export const RISK_SCORE_FIELDS: Readonly<Record<string, string>> = withAliases({ source: "string", normalizedScore: "int" }, { normalized_score: "normalizedScore" });

/**
 * One issue insight of an account (a Wiz finding): source app, description, severity.
 *
 * @example
 * ```ts
 * new CelSecurityInsight("Wiz Insights", "3 Critical CVEs", "CRITICAL").severity; // "CRITICAL"
 * ```
 */
export class CelSecurityInsight {
  constructor(
    readonly source: string,
    readonly value: string,
    readonly severity: string,
  ) {}
}

/**
 * The CEL field types of `c1.security_insight.v1`.
 *
 * @example
 * ```ts
 * SECURITY_INSIGHT_FIELDS["severity"]; // "string"
 * ```
 */
export const SECURITY_INSIGHT_FIELDS: Readonly<Record<string, string>> = { source: "string", value: "string", severity: "string" };

const ACCOUNT_ALIASES = {
  app_id: "appId",
  identity_user_id: "identityUserId",
  display_name: "displayName",
  app_user_type: "appUserType",
  employee_ids: "employeeIds",
  security_insights: "securityInsights",
  risk_score: "riskScore",
  risk_scores: "riskScores",
} as const;

const NONE: readonly never[] = Object.freeze([]);
const NO_JSON: JsonObject = Object.freeze({});

/**
 * `account`: the target's account (AppUser) in the entitlement's app, with the external insights
 * synced for it: `riskScore` (`risk_score`, a map from source app to score), `riskScores` (the same
 * as a list) and `securityInsights` (external-insights page).
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
  readonly usernames: readonly string[];
  readonly email: string;
  readonly emails: readonly string[];
  readonly employeeIds: readonly string[];
  readonly appUserType: CelEnumValue;
  readonly status: CelAccountStatus;
  readonly profile: JsonObject;
  readonly attributes: JsonObject;
  readonly securityInsights: readonly CelSecurityInsight[];
  readonly riskScores: readonly CelRiskScore[];
  readonly riskScore: ReadonlyMap<string, bigint>;
  constructor(a: AppUser) {
    this.id = a.id;
    this.appId = a.appId;
    this.identityUserId = a.identityUserId;
    this.displayName = a.displayName;
    this.username = a.username;
    this.usernames = a.usernames ?? NONE;
    this.email = a.email;
    this.emails = a.emails ?? NONE;
    this.employeeIds = a.employeeIds ?? NONE;
    this.appUserType = enumValue(APP_USER_TYPE, a.appUserType);
    this.status = Object.freeze(new CelAccountStatus(enumValue(APP_USER_STATUS, a.status?.status ?? ""), a.status?.details ?? ""));
    this.profile = a.profile;
    this.attributes = a.attributes ?? NO_JSON;
    this.securityInsights = Object.freeze((a.securityInsights ?? NONE).map((i: SecurityInsight) => Object.freeze(new CelSecurityInsight(i.source, i.value, i.severity))));
    const scores = (a.riskScores ?? NONE).map((r: RiskScore) => Object.freeze(new CelRiskScore(r.source, scoreOf(r.normalizedScore))));
    this.riskScores = Object.freeze(scores);
    // The first score of a source wins, as a map from source to score can hold one.
    const bySource = new Map<string, bigint>();
    for (const r of scores) if (!bySource.has(r.source)) bySource.set(r.source, r.normalizedScore);
    this.riskScore = bySource;
  }
}
aliases(CelAccount, ACCOUNT_ALIASES);

/** A world score (a JSON number) as a CEL int; anything that is not a whole number reads as 0. */
const scoreOf = (n: number): bigint => (Number.isSafeInteger(n) ? BigInt(n) : 0n);

/**
 * The CEL `account` for a directory account (cached like {@link celEntitlement}; its status is read
 * too, so it must be frozen as well).
 *
 * @example
 * ```ts
 * celAccount(acct).appUserType.toString(); // "AppUserType.USER"
 * ```
 */
export function celAccount(a: AppUser): CelAccount {
  const hit = accounts.get(a);
  if (hit) return hit;
  const value = Object.freeze(new CelAccount(a));
  if (typeof a === "object" && Object.isFrozen(a) && (a.status === null || Object.isFrozen(a.status))) accounts.set(a, value);
  return value;
}

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
    emails: "list<string>",
    usernames: "list<string>",
    employeeIds: "list<string>",
    appUserType: APP_USER_TYPE.typeName,
    status: "AppUser.Status",
    profile: JSON_MAP,
    attributes: JSON_MAP,
    securityInsights: "list<c1.security_insight.v1>",
    riskScores: "list<c1.risk_score.v1>",
    riskScore: "map<string, int>",
  },
  ACCOUNT_ALIASES,
);
