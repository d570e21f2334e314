/**
 * The enums of the condition environment (docs/domain.md §5) and how world values map onto them.
 *
 * Representation: each enum is its own CEL type (`UserStatus`, `UserType`, `TaskOrigin`,
 * `AppUserType`, `AppUserStatus`) whose values are {@link CelEnumValue} objects compared by member
 * name. Both spellings of a constant denote the same value: `UserStatus.ENABLED == USER_STATUS_ENABLED`.
 * World data is normalised into it whatever form it uses: the directory's `"ENABLED"`, the wire's
 * `"USER_STATUS_ENABLED"`, or `""` (the enum's zero member).
 *
 * Why not strings or ints: the service's enums are proto enums, so comparing one with a string
 * (`subject.status == "ENABLED"`) fails its type check; a distinct type fails ours the same way
 * instead of silently evaluating to false. The proto numbers are not documented, so ints would be
 * guesses. `string(subject.status)` gives the long name when a string is needed.
 */

/**
 * The definition of one enum: its CEL type name, the prefix of its long constant names, its members
 * (the first is the zero value an empty string maps to) and documented alternative names.
 *
 * @example
 * ```ts
 * const def: EnumDef = { typeName: "UserType", prefix: "USER_TYPE_", members: ["UNSPECIFIED", "HUMAN"], aliases: {} };
 * ```
 */
export interface EnumDef {
  readonly typeName: string;
  readonly prefix: string;
  readonly members: readonly string[];
  /** Older names the public documentation still uses, mapped to the spec's member. */
  readonly aliases: Readonly<Record<string, string>>;
}

/**
 * A value of one of the environment's enums. Two values are equal when they belong to the same enum
 * and have the same member name; unknown members (the enums are open) are kept as they came.
 *
 * @example
 * ```ts
 * enumValue(USER_STATUS, "ENABLED").longName; // "USER_STATUS_ENABLED"
 * ```
 */
export class CelEnumValue {
  constructor(
    readonly def: EnumDef,
    /** The member name without the prefix, e.g. `ENABLED`. */
    readonly name: string,
  ) {}

  /** The proto-style name, e.g. `USER_STATUS_ENABLED`. */
  get longName(): string {
    return this.def.prefix + this.name;
  }

  toString(): string {
    return `${this.def.typeName}.${this.name}`;
  }
}

const def = (typeName: string, prefix: string, members: readonly string[], aliases: Record<string, string> = {}): EnumDef =>
  Object.freeze({ typeName, prefix, members: Object.freeze([...members]), aliases: Object.freeze(aliases) });

/**
 * `UserStatus`: a user's `status` and `directoryStatus`.
 *
 * @example
 * ```ts
 * enumValue(USER_STATUS, "DISABLED").toString(); // "UserStatus.DISABLED"
 * ```
 */
export const USER_STATUS = def("UserStatus", "USER_STATUS_", ["UNKNOWN", "ENABLED", "DISABLED", "DELETED"]);

/**
 * `UserType`: a user's `type`.
 *
 * @example
 * ```ts
 * enumValue(USER_TYPE, "USER_TYPE_HUMAN").name; // "HUMAN"
 * ```
 */
export const USER_TYPE = def("UserType", "USER_TYPE_", ["UNSPECIFIED", "HUMAN", "AGENT", "SERVICE", "SYSTEM"]);

/**
 * `TaskOrigin`: where a task was created. The spec's members, plus the names the public
 * documentation still shows (`SLACK`, `JIRA`), read as `CHATAPP` and `TRACKER` (assumed).
 *
 * @example
 * ```ts
 * enumValue(TASK_ORIGIN, "SLACK").name; // "CHATAPP"
 * ```
 */
export const TASK_ORIGIN = def(
  "TaskOrigin",
  "TASK_ORIGIN_",
  [
    "UNSPECIFIED",
    "PROFILE_MEMBERSHIP_AUTOMATION",
    "CHATAPP",
    "API",
    "TRACKER",
    "COPILOT",
    "WEBAPP",
    "TIME_REVOKE",
    "NON_USAGE_REVOKE",
    "PROFILE_MEMBERSHIP_MANUAL",
    "PROFILE_MEMBERSHIP",
    "AUTOMATION",
    "ACCESS_REVIEW",
    "CASCADE_DELETE",
  ],
  { SLACK: "CHATAPP", JIRA: "TRACKER" },
);

/**
 * `AppUserType`: an account's `appUserType`.
 *
 * @example
 * ```ts
 * enumValue(APP_USER_TYPE, "APP_USER_TYPE_SERVICE_ACCOUNT").name; // "SERVICE_ACCOUNT"
 * ```
 */
export const APP_USER_TYPE = def("AppUserType", "APP_USER_TYPE_", ["UNSPECIFIED", "USER", "SERVICE_ACCOUNT", "SYSTEM_ACCOUNT"]);

/**
 * `AppUserStatus`: an account's `status.status`.
 *
 * @example
 * ```ts
 * enumValue(APP_USER_STATUS, "").name; // "UNSPECIFIED"
 * ```
 */
export const APP_USER_STATUS = def("AppUserStatus", "APP_USER_STATUS_", ["UNSPECIFIED", "ENABLED", "DISABLED", "DELETED"], {
  // The API's spelling of the same statuses (openapi.yaml, c1.api.app.v1.AppUserStatus.status):
  // accounts pulled from the service or added over HTTP carry it.
  STATUS_UNSPECIFIED: "UNSPECIFIED",
  STATUS_ENABLED: "ENABLED",
  STATUS_DISABLED: "DISABLED",
  STATUS_DELETED: "DELETED",
});

/**
 * Every enum of the environment, in registration order.
 *
 * @example
 * ```ts
 * ENUMS.map((e) => e.typeName); // ["UserStatus", "UserType", "TaskOrigin", "AppUserType", "AppUserStatus"]
 * ```
 */
export const ENUMS: readonly EnumDef[] = Object.freeze([USER_STATUS, USER_TYPE, TASK_ORIGIN, APP_USER_TYPE, APP_USER_STATUS]);

// cel-js tells message types apart by constructor, so each enum gets its own subclass.
const classes = new Map<EnumDef, typeof CelEnumValue>(
  ENUMS.map((d) => [d, { [d.typeName]: class extends CelEnumValue {} }[d.typeName] ?? CelEnumValue]),
);

/**
 * The class of an enum's values, as registered with cel-js.
 *
 * @example
 * ```ts
 * enumValue(USER_TYPE, "HUMAN") instanceof enumClass(USER_TYPE); // true
 * ```
 */
export function enumClass(d: EnumDef): typeof CelEnumValue {
  return classes.get(d) ?? CelEnumValue;
}

// Known members are shared instances: world values of a known member allocate nothing.
const interned = new Map<EnumDef, Map<string, CelEnumValue>>(
  ENUMS.map((d) => {
    const C = enumClass(d);
    return [d, new Map(d.members.map((m) => [m, Object.freeze(new C(d, m))]))];
  }),
);

/**
 * Normalises a world or wire value (`"ENABLED"`, `"USER_STATUS_ENABLED"`, `""`) to the enum value.
 * Unknown members are kept (open enums), without their prefix.
 *
 * @example
 * ```ts
 * enumValue(USER_STATUS, "ENABLED") === enumValue(USER_STATUS, "USER_STATUS_ENABLED"); // true
 * ```
 */
export function enumValue(d: EnumDef, raw: string): CelEnumValue {
  const members = interned.get(d);
  let name = raw === "" ? (d.members[0] ?? "") : raw.startsWith(d.prefix) ? raw.slice(d.prefix.length) : raw;
  name = d.aliases[name] ?? name;
  if (members) {
    const known = members.get(name);
    if (known) return known;
  }
  return Object.freeze(new (enumClass(d))(d, name));
}

/**
 * What `c1.user.v1.GetAppUserStatus` returns for an account's status (expressions-reference page):
 * `USER_STATUS_ENABLED`, `USER_STATUS_DISABLED`, `USER_STATUS_DELETED`, and
 * `USER_STATUS_UNSPECIFIED` when the user has no account in the app or its status is unset. A
 * member the documentation does not list keeps its name under the same prefix.
 *
 * @example
 * ```ts
 * appUserStatusName("APP_USER_STATUS_DISABLED"); // "USER_STATUS_DISABLED"
 * appUserStatusName(""); // "USER_STATUS_UNSPECIFIED"
 * ```
 */
export function appUserStatusName(accountStatus: string): string {
  const member = accountStatus === "" ? "UNSPECIFIED" : enumValue(APP_USER_STATUS, accountStatus).name;
  return `USER_STATUS_${member === "" ? "UNSPECIFIED" : member}`;
}

/**
 * The layouts behind `TimeFormat.*` (Go reference-time layouts, as the service documents them).
 *
 * @example
 * ```ts
 * TIME_FORMATS.DATE; // "2006-01-02"
 * ```
 */
export const TIME_FORMATS: Readonly<Record<"RFC3339" | "DATE" | "DATETIME" | "TIME", string>> = Object.freeze({
  RFC3339: "2006-01-02T15:04:05Z07:00",
  DATE: "2006-01-02",
  DATETIME: "2006-01-02 15:04:05",
  TIME: "15:04:05",
});
