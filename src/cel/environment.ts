/**
 * The three CEL environments of the service (docs/domain.md §5, expressions and expressions-reference
 * pages, entitlement-config-rules page):
 * - `condition`: policy rule and wait conditions. `subject` (also `user`), `task`, `entitlement`,
 *   `account`, `ip`; must return bool. The external-insights functions live here only.
 * - `approver`: approval step expressions. `subject` (also `user`), `appOwners`, `entitlement`,
 *   `task`; return a User or a list of Users.
 * - `config-rule`: entitlement configuration rule conditions. `entitlement` only (with `role` and
 *   `scope`), no directory functions; must return bool.
 * This is the only module that builds cel-js environments; each is built once, on first use, and
 * owns its caches. {@link ENVIRONMENT_SPECS} lists what each declares.
 *
 * Semantics worth knowing, where cel-js and the service's cel-go could differ:
 * - Numbers. CEL ints are BigInts. Fields the service types as int (a risk score) are converted when
 *   the input is prepared; `task.numericId` is a string, as the reference types it. JSON numbers
 *   inside `profile` and `attributes` stay doubles, as cel-go sees a protobuf Struct: they compare
 *   with ints (`subject.profile.level > 3`, `== 5`), but arithmetic with an int needs `int(...)`.
 * - Integer literals beyond int64 (uint64 for `u` literals) are refused at check time, as cel-go's
 *   parser refuses them (compile.ts).
 * - Two values of one message type compare field by field (`subject == user`,
 *   `FindByEmail(subject.manager) in GetManagers(subject)`), as cel-go compares protos.
 * - `1 == 1.0` between literals fails the type check ("found no matching overload for '_==_'
 *   applied to '(int, double)'"), as in cel-go; `dyn(1) == 1.0` is true at run time.
 * - Enums are their own types (see enums.ts): `subject.status == UserStatus.ENABLED`,
 *   `== UserStatus.USER_STATUS_ENABLED` or `== USER_STATUS_ENABLED`; comparing with a string is a
 *   type error, as with proto enums.
 * - `matches()` runs on RE2, the service's dialect, in linear time (regex.ts).
 * - Time zones come from `Intl`, never from the process's zone (time.ts); `now()` is the clock of
 *   the evaluation input.
 * - `has(x.f)` on a declared field is true even when the field is empty, as the service documents.
 */
import { Environment, EvaluationError } from "@marcbachmann/cel-js";
import { fail } from "../result.js";
import { ENUMS, TIME_FORMATS, enumClass, enumValue, type EnumDef, CelEnumValue } from "./enums.js";
import {
  RUNTIME_KEY,
  approverExtensions,
  conditionExtensions,
  configRuleExtensions,
  desugar,
  extensionTable,
  type ExtensionServices,
  type ExtensionTable,
} from "./extensions.js";
import { assertEvaluatorShape, isCelNode } from "./internals.js";
import { CIDR, IPAddress, parseIp, parsePrefix } from "./net.js";
import { RegexCache } from "./regex.js";
import { ZoneCache } from "./time.js";
import {
  ACCOUNT_FIELDS,
  ACCOUNT_STATUS_FIELDS,
  ANALYSIS_FIELDS,
  CelAccount,
  CelAccountStatus,
  CelEntitlement,
  CelEntitlementResource,
  CelGroup,
  CelRiskScore,
  CelSecurityInsight,
  CelTask,
  CelTaskAnalysis,
  CelUser,
  CelUserCache,
  ENTITLEMENT_FIELDS,
  ENTITLEMENT_RESOURCE_FIELDS,
  GROUP_FIELDS,
  RISK_SCORE_FIELDS,
  SECURITY_INSIGHT_FIELDS,
  TASK_FIELDS,
  USER_FIELDS,
} from "./values.js";

/**
 * Parse-time limits. cel-js's defaults are cel-go's (250 levels of nesting, 100k nodes); conditions
 * are short, so fewer nodes bound the work a hostile or generated expression can ask for. cel-js has
 * no evaluation-cost limit: cost.ts budgets every evaluation, and limits.ts holds the hard limits
 * (the largest budget, regular expressions, caches). cel-js does
 * not count a chain of prefix operators (`!!!…x`, `---…1`) as nesting: `compile.ts` holds such a
 * chain to `maxDepth` itself before parsing.
 *
 * @example
 * ```ts
 * LIMITS.maxDepth; // 250
 * ```
 */
export const LIMITS = { maxAstNodes: 10_000, maxDepth: 250, maxListElements: 1_000, maxMapEntries: 1_000, maxCallArguments: 32 } as const;

/**
 * Which of the service's expression contexts an environment is: policy rule (and wait) conditions,
 * approval step expressions, or entitlement configuration rule conditions.
 *
 * @example
 * ```ts
 * const k: CelEnvironmentKind = "config-rule";
 * ```
 */
export type CelEnvironmentKind = "condition" | "approver" | "config-rule";

/**
 * What one environment declares: its variables with their CEL types, and what an expression must
 * return (`bool`, or `users`: a User or a list of Users).
 *
 * @example
 * ```ts
 * ENVIRONMENT_SPECS["config-rule"].variables; // { entitlement: "Entitlement" }
 * ```
 */
export interface CelEnvironmentSpec {
  readonly variables: Readonly<Record<string, string>>;
  readonly result: "bool" | "users";
}

/**
 * The declarations of each environment, from the expressions-reference page's "Built-in variables"
 * and "Quick object reference" tables and the entitlement-config-rules page. `user` is declared in
 * the policy environments, where the reference marks it available, as the same User as `subject`
 * (assumed: a policy evaluates one user).
 *
 * @example
 * ```ts
 * Object.keys(ENVIRONMENT_SPECS.approver.variables); // ["subject", "user", "entitlement", "task", "account", "ip", "appOwners", "campaignOwners"]
 * ```
 */
export const ENVIRONMENT_SPECS: Readonly<Record<CelEnvironmentKind, CelEnvironmentSpec>> = Object.freeze({
  condition: Object.freeze({
    variables: Object.freeze({ subject: "User", user: "User", entitlement: "Entitlement", task: "Task", account: "AppUser", ip: "net.IP" }),
    result: "bool" as const,
  }),
  approver: Object.freeze({
    // `account` and `ip` as in conditions: the reference gives them to "Policies", which covers both
    // conditions and step approvers (product_admin_expressions.mdx, "Policies").
    variables: Object.freeze({
      subject: "User",
      user: "User",
      entitlement: "Entitlement",
      task: "Task",
      account: "AppUser",
      ip: "net.IP",
      appOwners: "list<User>",
      campaignOwners: "list<User>",
    }),
    result: "users" as const,
  }),
  "config-rule": Object.freeze({ variables: Object.freeze({ entitlement: "Entitlement" }), result: "bool" as const }),
});

/**
 * A built environment: the cel-js environment, its extension functions and its caches.
 *
 * @example
 * ```ts
 * const env = celEnvironment("condition");
 * env.variables.has("ip"); // true
 * ```
 */
export interface CelEnvironment {
  readonly kind: CelEnvironmentKind;
  readonly spec: CelEnvironmentSpec;
  readonly cel: Environment;
  readonly extensions: ExtensionTable;
  readonly services: ExtensionServices;
  /** Declared variables and constants, for "did you mean" hints. */
  readonly variables: ReadonlySet<string>;
  /** Constants that are namespaces (`UserStatus`, `TimeFormat`) and their members. */
  readonly namespaces: ReadonlyMap<string, readonly string[]>;
  /** Names of global functions and of methods, to tell an unknown function from a wrong call. */
  readonly functionNames: ReadonlySet<string>;
  readonly methodNames: ReadonlySet<string>;
  /** Field names of each message type, for hints. */
  readonly fields: ReadonlyMap<string, readonly string[]>;
  /**
   * cel-js's evaluator of this environment, as its macros receive it: the compiled closures
   * (closures.ts) call cel-js's own operator and function handlers with it, so that both
   * evaluators share every overload's code.
   */
  readonly evaluator: unknown;
}

const sync = { async: false } as const;

class Namespace {}

function namespaceClass(name: string): new () => Namespace {
  // cel-js tells message types apart by constructor: one class per namespace.
  return { [name]: class extends Namespace {} }[name] ?? Namespace;
}

function registerEnum(env: Environment, d: EnumDef, namespaces: Map<string, readonly string[]>, variables: Set<string>): void {
  env.registerType(d.typeName, { ctor: enumClass(d), fields: {} });
  // The checker guarantees both sides are this enum; known members are shared instances.
  env.registerOperator(`${d.typeName} == ${d.typeName}`, (a: CelEnumValue, b: CelEnumValue) => a === b || a.name === b.name);
  env.registerFunction(`string(${d.typeName}): string`, (v: unknown) => (v instanceof CelEnumValue ? v.longName : fail("enum expected")), sync);
  // `UserStatus.ENABLED`, the documentation's older names (`TaskOrigin.SLACK`) and the proto names
  // (`UserStatus.USER_STATUS_ENABLED`), all the same value.
  const members = [...d.members, ...Object.keys(d.aliases), ...d.members.map((m) => d.prefix + m)];
  const NsClass = namespaceClass(`${d.typeName}.Constants`);
  const ns: Record<string, unknown> = new NsClass() as Record<string, unknown>;
  const fields: Record<string, string> = {};
  for (const m of members) {
    const value = enumValue(d, m);
    ns[m] = value;
    fields[m] = d.typeName;
    if (m.startsWith(d.prefix)) continue;
    env.registerConstant(d.prefix + m, d.typeName, value);
    variables.add(d.prefix + m);
  }
  env.registerType(`${d.typeName}.Constants`, { ctor: NsClass, fields });
  env.registerConstant(d.typeName, `${d.typeName}.Constants`, Object.freeze(ns));
  namespaces.set(d.typeName, members);
  variables.add(d.typeName);
}

function registerTimeFormat(env: Environment, namespaces: Map<string, readonly string[]>, variables: Set<string>): void {
  const NsClass = namespaceClass("TimeFormat.Constants");
  const ns: Record<string, unknown> = new NsClass() as Record<string, unknown>;
  const fields: Record<string, string> = {};
  for (const [k, layout] of Object.entries(TIME_FORMATS)) {
    ns[k] = layout;
    fields[k] = "string";
    env.registerConstant(`TIME_FORMAT_${k}`, "string", layout);
    variables.add(`TIME_FORMAT_${k}`);
  }
  env.registerType("TimeFormat.Constants", { ctor: NsClass, fields });
  env.registerConstant("TimeFormat", "TimeFormat.Constants", Object.freeze(ns));
  namespaces.set("TimeFormat", Object.keys(TIME_FORMATS));
  variables.add("TimeFormat");
}

const IP_FLAGS = [
  "is4",
  "is6",
  "isUnspecified",
  "isLoopback",
  "isPrivate",
  "isGlobalUnicast",
  "isMulticast",
  "isInterfaceLocalMulticast",
  "isLinkLocalMulticast",
  "isLinkLocalUnicast",
] as const;

const asIp = (v: unknown): IPAddress => (v instanceof IPAddress ? v : fail("net.IP expected"));
const asCidr = (v: unknown): CIDR => (v instanceof CIDR ? v : fail("net.CIDR expected"));
const argError = (message: string): EvaluationError => new EvaluationError({ code: "invalid_argument", message });

function ipOf(v: unknown): IPAddress {
  const s = typeof v === "string" ? v : String(v);
  const ip = parseIp(s);
  if (!ip) throw argError(`IP address parse error: invalid address ${JSON.stringify(s)}`);
  return ip;
}

function cidrOf(values: readonly unknown[]): CIDR {
  return new CIDR(
    values.map((v) => {
      const s = typeof v === "string" ? v : String(v);
      const p = parsePrefix(s);
      if (!p) throw argError(`network address parse error: invalid CIDR ${JSON.stringify(s)}`);
      return p;
    }),
  );
}

function singlePrefix(c: CIDR) {
  const [first, ...rest] = c.prefixes;
  if (!first || rest.length > 0) throw argError("this cidr holds several networks; ip(), masked() and prefixLength() need one");
  return first;
}

/** `ip`, `cidr` and friends: cel-go's network extension and the Kubernetes IP/CIDR library, plus
 * the service's spellings (`cidr.contains(ip)`, `ip.within(cidr)`, flags as fields). */
function registerNetwork(env: Environment): void {
  const fields: Record<string, string> = {};
  for (const f of IP_FLAGS) fields[f] = "bool";
  env.registerType("net.IP", { ctor: IPAddress, fields });
  env.registerType("net.CIDR", { ctor: CIDR, fields: {} });
  env.registerFunction("ip(string): net.IP", (s: unknown) => ipOf(s), sync);
  env.registerFunction("isIP(string): bool", (s: unknown) => typeof s === "string" && parseIp(s) !== undefined, sync);
  env.registerFunction("isCIDR(string): bool", (s: unknown) => typeof s === "string" && parsePrefix(s) !== undefined, sync);
  for (let n = 1; n <= 8; n++) {
    env.registerFunction(`cidr(${Array.from({ length: n }, () => "string").join(", ")}): net.CIDR`, (...args: unknown[]) => cidrOf(args), sync);
  }
  // The networks as one list (`cidr(["10.0.0.0/8", "192.168.0.0/16"]).contains(ip)`), as the docs
  // repository's assistant notes (rap/cel-expressions) write it; the same value as the variadic form.
  env.registerFunction("cidr(list<string>): net.CIDR", (list: unknown) => cidrOf(Array.isArray(list) ? list : [...(list as Iterable<unknown>)]), sync);
  for (const f of IP_FLAGS) env.registerFunction(`net.IP.${f}(): bool`, (ip: unknown) => asIp(ip)[f], sync);
  env.registerFunction("net.IP.family(): int", (ip: unknown) => BigInt(asIp(ip).family), sync);
  env.registerFunction("net.IP.within(net.CIDR): bool", (ip: unknown, c: unknown) => asCidr(c).containsIp(asIp(ip)), sync);
  env.registerFunction("string(net.IP): string", (ip: unknown) => asIp(ip).toString(), sync);
  env.registerOperator("net.IP == net.IP", (a: unknown, b: unknown) => asIp(a).toString() === asIp(b).toString());
  env.registerFunction("net.CIDR.containsIP(net.IP): bool", (c: unknown, ip: unknown) => asCidr(c).containsIp(asIp(ip)), sync);
  env.registerFunction("net.CIDR.containsIP(string): bool", (c: unknown, ip: unknown) => asCidr(c).containsIp(ipOf(ip)), sync);
  env.registerFunction("net.CIDR.contains(net.IP): bool", (c: unknown, ip: unknown) => asCidr(c).containsIp(asIp(ip)), sync);
  env.registerFunction("net.CIDR.contains(string): bool", (c: unknown, ip: unknown) => asCidr(c).containsIp(ipOf(ip)), sync);
  env.registerFunction("net.CIDR.containsCIDR(net.CIDR): bool", (c: unknown, o: unknown) => asCidr(c).containsCidr(asCidr(o)), sync);
  env.registerFunction("net.CIDR.containsCIDR(string): bool", (c: unknown, o: unknown) => asCidr(c).containsCidr(cidrOf([o])), sync);
  env.registerFunction("net.CIDR.ip(): net.IP", (c: unknown) => singlePrefix(asCidr(c)).ip, sync);
  env.registerFunction("net.CIDR.masked(): net.CIDR", (c: unknown) => new CIDR([singlePrefix(asCidr(c)).masked()]), sync);
  env.registerFunction("net.CIDR.prefixLength(): int", (c: unknown) => BigInt(singlePrefix(asCidr(c)).bits), sync);
  env.registerFunction("string(net.CIDR): string", (c: unknown) => asCidr(c).toString(), sync);
  env.registerOperator("net.CIDR == net.CIDR", (a: unknown, b: unknown) => asCidr(a).toString() === asCidr(b).toString());
}

/**
 * The members of cel-go's strings extension that cel-js does not have: `replace` (all, or the first
 * n), `charAt` and `reverse`, by code point as cel-go counts.
 */
function registerStringExtras(env: Environment): void {
  const text = (v: unknown): string => (typeof v === "string" ? v : fail("string expected"));
  // Go splits around an empty separator at every code point boundary, both ends included.
  const pieces = (s: unknown, a: unknown): string[] => (text(a) === "" ? ["", ...text(s), ""] : text(s).split(text(a)));
  env.registerFunction("string.replace(string, string): string", (s: unknown, a: unknown, b: unknown) => pieces(s, a).join(text(b)), sync);
  env.registerFunction(
    "string.replace(string, string, int): string",
    (s: unknown, a: unknown, b: unknown, n: unknown) => {
      const parts = pieces(s, a);
      const limit = typeof n === "bigint" && n >= 0n ? Number(n < BigInt(parts.length) ? n : BigInt(parts.length)) : parts.length;
      if (limit >= parts.length - 1) return parts.join(text(b));
      return parts.slice(0, limit + 1).join(text(b)) + text(a) + parts.slice(limit + 1).join(text(a));
    },
    sync,
  );
  env.registerFunction(
    "string.charAt(int): string",
    (s: unknown, i: unknown) => {
      // Walks to the code point without spreading the string into an array.
      const at = typeof i === "bigint" ? i : -1n;
      if (at < 0n) throw argError(`index out of range: ${String(i)}`);
      let k = 0n;
      for (const ch of text(s)) {
        if (k === at) return ch;
        k++;
      }
      if (at > k) throw argError(`index out of range: ${String(i)}`);
      return "";
    },
    sync,
  );
  env.registerFunction("string.reverse(): string", (s: unknown) => reverseCodePoints(text(s)), sync);
}

/**
 * A string's code points in reverse order (a surrogate pair stays in order, as cel-go reverses
 * runes), built in chunks: no array of one string per character.
 */
function reverseCodePoints(s: string): string {
  const chunks: string[] = [];
  const buffer = new Array<number>();
  for (let i = s.length - 1; i >= 0; i--) {
    const c = s.charCodeAt(i);
    const h = i > 0 ? s.charCodeAt(i - 1) : 0;
    if (c >= 0xdc00 && c <= 0xdfff && h >= 0xd800 && h <= 0xdbff) {
      buffer.push(h, c);
      i--;
    } else buffer.push(c);
    if (buffer.length >= 4096) {
      chunks.push(String.fromCharCode(...buffer));
      buffer.length = 0;
    }
  }
  chunks.push(String.fromCharCode(...buffer));
  return chunks.join("");
}

/**
 * The message types of the environments: name, class (cel-js tells types apart by constructor) and
 * field types.
 */
const MESSAGE_TYPES: readonly (readonly [string, new (...args: never[]) => object, Readonly<Record<string, string>>])[] = [
  ["User", CelUser, USER_FIELDS],
  ["Group", CelGroup, GROUP_FIELDS],
  ["TaskAnalysis", CelTaskAnalysis, ANALYSIS_FIELDS],
  ["Task", CelTask, TASK_FIELDS],
  ["EntitlementResource", CelEntitlementResource, ENTITLEMENT_RESOURCE_FIELDS],
  ["Entitlement", CelEntitlement, ENTITLEMENT_FIELDS],
  ["AppUser.Status", CelAccountStatus, ACCOUNT_STATUS_FIELDS],
  ["c1.risk_score.v1", CelRiskScore, RISK_SCORE_FIELDS],
  ["c1.security_insight.v1", CelSecurityInsight, SECURITY_INSIGHT_FIELDS],
  ["AppUser", CelAccount, ACCOUNT_FIELDS],
];

/**
 * Whether two CEL values are equal as cel-go compares them: messages field by field, lists in order,
 * maps by key, timestamps by instant, enums by member, numbers across int and double.
 *
 * @example
 * ```ts
 * celValuesEqual([1n, "a"], [1, "a"]); // true: ints and doubles compare by value
 * ```
 */
export function celValuesEqual(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true;
  if (depth > 64) return false;
  if ((typeof a === "bigint" || typeof a === "number") && (typeof b === "bigint" || typeof b === "number")) return Number(a) === Number(b);
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  if (a instanceof CelEnumValue || b instanceof CelEnumValue) return a instanceof CelEnumValue && b instanceof CelEnumValue && a.def === b.def && a.name === b.name;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x: unknown, i) => celValuesEqual(x, b[i], depth + 1));
  }
  if (a instanceof Map || b instanceof Map) {
    if (!(a instanceof Map) || !(b instanceof Map) || a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !celValuesEqual(v, b.get(k), depth + 1)) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(a) as unknown;
  if (proto !== Object.getPrototypeOf(b)) return false;
  const fields = MESSAGE_FIELDS.get(proto);
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  if (fields) return fields.every((f) => celValuesEqual(ra[f], rb[f], depth + 1));
  const ka = Object.keys(ra);
  if (ka.length !== Object.keys(rb).length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(rb, k) && celValuesEqual(ra[k], rb[k], depth + 1));
}

/**
 * The declared field types of a message type of the environments (`"User"` → `{ manager_id: "string", … }`),
 * or `undefined` for any other type.
 *
 * @example
 * ```ts
 * messageFieldTypes("Task")?.["analysis"]; // "TaskAnalysis"
 * ```
 */
export function messageFieldTypes(typeName: string): Readonly<Record<string, string>> | undefined {
  return MESSAGE_TYPES.find(([name]) => name === typeName)?.[2];
}

/**
 * The camelCase fields of a value of a message type of the environments, or `undefined` when the
 * value is of no such type.
 *
 * @example
 * ```ts
 * messageFieldsOf(celUser(user))?.includes("department"); // true
 * ```
 */
export function messageFieldsOf(value: unknown): readonly string[] | undefined {
  return typeof value === "object" && value !== null ? MESSAGE_FIELDS.get(Object.getPrototypeOf(value)) : undefined;
}

/** The camelCase fields of each message class's prototype (aliases read the same values). */
const MESSAGE_FIELDS: ReadonlyMap<unknown, readonly string[]> = new Map(
  MESSAGE_TYPES.map(([, ctor, fields]) => [ctor.prototype, Object.keys(fields).filter((f) => !f.includes("_"))] as const),
);

function buildBase(namespaces: Map<string, readonly string[]>, variables: Set<string>): Environment {
  const env = new Environment({ limits: LIMITS, enableOptionalTypes: true });
  for (const d of ENUMS) registerEnum(env, d, namespaces, variables);
  registerTimeFormat(env, namespaces, variables);
  for (const [name, ctor, fields] of MESSAGE_TYPES) {
    env.registerType(name, { ctor, fields });
    // Equality of two values of one message type, as cel-go allows (`subject == user`).
    env.registerOperator(`${name} == ${name}`, (a: unknown, b: unknown) => celValuesEqual(a, b));
  }
  registerNetwork(env);
  // The service's strings extension: `subject.jobTitle.ifEmpty("unknown")`.
  env.registerFunction("string.ifEmpty(string): string", (s: unknown, d: unknown) => (s === "" ? d : s), sync);
  registerStringExtras(env);
  // cel-go's identity conversion, which cel-js lacks: `timestamp(task.created_at)`.
  env.registerFunction("timestamp(google.protobuf.Timestamp): google.protobuf.Timestamp", (t: unknown) => t, sync);
  // CEL's standard conversions cel-js lacks (cel-spec "Standard definitions"; cel-go's output):
  // `string(task.createdAt).startsWith("2026-")`, `string(duration("90m")) == "5400s"`, `int(now())`.
  env.registerFunction("string(google.protobuf.Timestamp): string", (t: unknown) => timestampText(t as Date), sync);
  env.registerFunction("string(google.protobuf.Duration): string", (d: unknown) => durationText(d as CelDuration), sync);
  env.registerFunction("int(google.protobuf.Timestamp): int", (t: unknown) => BigInt(Math.floor((t as Date).getTime() / 1000)), sync);
  return env;
}

interface CelDuration {
  readonly seconds: bigint | number;
  readonly nanos: number;
}

/** A timestamp as cel-go writes it (RFC 3339 in UTC, the fraction without trailing zeros): `2026-11-22T09:00:00.5Z`. */
function timestampText(t: Date): string {
  return t.toISOString().replace(/\.?0+Z$/, "Z");
}

/** A duration as cel-go writes it: seconds with the fraction needed, `5400s`, `-1.5s`, `0.000000001s`. */
function durationText(d: CelDuration): string {
  const seconds = BigInt(d.seconds);
  const negative = seconds < 0n || d.nanos < 0;
  const whole = seconds < 0n ? -seconds : seconds;
  const nanos = Math.abs(d.nanos);
  const fraction = nanos === 0 ? "" : `.${String(nanos).padStart(9, "0").replace(/0+$/, "")}`;
  return `${negative ? "-" : ""}${whole}${fraction}s`;
}

/**
 * The fields of each message type with their CEL types, by type name (`AppUser.Status` →
 * `{ status: "AppUserStatus", details: "string" }`): what a hint needs to point from a message to
 * the field that holds what was compared with it.
 *
 * @example
 * ```ts
 * MESSAGE_FIELD_TYPES.get("AppUser.Status")?.status; // "AppUserStatus"
 * ```
 */
export const MESSAGE_FIELD_TYPES: ReadonlyMap<string, Readonly<Record<string, string>>> = new Map(MESSAGE_TYPES.map(([name, , fields]) => [name, fields] as const));

const FIELDS: ReadonlyMap<string, readonly string[]> = new Map([
  ...MESSAGE_TYPES.map(([name, , fields]) => [name, Object.keys(fields)] as const),
  ["net.IP", [...IP_FLAGS]],
]);

const EXTENSIONS = {
  condition: conditionExtensions,
  approver: approverExtensions,
  "config-rule": configRuleExtensions,
} as const;

function build(kind: CelEnvironmentKind): CelEnvironment {
  const namespaces = new Map<string, readonly string[]>();
  const variables = new Set<string>();
  const cel = buildBase(namespaces, variables).clone();
  const spec = ENVIRONMENT_SPECS[kind];
  for (const [name, type] of Object.entries(spec.variables)) {
    cel.registerVariable(name, type);
    variables.add(name);
  }
  const services: ExtensionServices = { users: new CelUserCache(), regexes: new RegexCache(), zones: new ZoneCache() };
  const fns = EXTENSIONS[kind](services);
  const extensions = extensionTable(fns);
  const defs = cel.getDefinitions();
  const functionNames = new Set<string>();
  const methodNames = new Set<string>();
  for (const f of defs.functions) (f.receiverType ? methodNames : functionNames).add(f.name);
  for (const f of fns) (f.style === "method" ? methodNames : functionNames).add(f.name);
  for (const name of ["has", "all", "exists", "exists_one", "map", "filter", "bind"]) methodNames.add(name);
  functionNames.add("has");
  const env: CelEnvironment = {
    evaluator: undefined,
    kind,
    spec,
    cel,
    extensions,
    services,
    variables,
    namespaces,
    functionNames,
    methodNames,
    fields: FIELDS,
  };
  return Object.freeze({ ...env, evaluator: selfTest(env) });
}

/**
 * Fails at construction, not in the middle of an evaluation, if cel-js's internals moved. Returns
 * the environment's evaluator, as the probe macro received it.
 */
function selfTest(env: CelEnvironment): unknown {
  let evaluator: unknown;
  const parsed = env.cel.parse("now() == now()");
  const ast: unknown = parsed.ast;
  if (!isCelNode(ast)) fail("cel-js AST has an unexpected shape");
  const probe = env.cel.parse("x");
  const probeAst: unknown = probe.ast;
  if (!isCelNode(probeAst)) fail("cel-js AST has an unexpected shape");
  probeAst.setMeta("macro", {
    async: false,
    typeCheck: (chk: { getType(n: string): unknown }) => chk.getType("bool"),
    evaluate: (ev: unknown, _m: unknown, ctx: unknown) => (assertEvaluatorShape(ev, ctx), (evaluator = ev), true),
  });
  probeAst.setMeta("async", false);
  desugar(ast, env.extensions, env.services);
  if (!parsed.check().valid || !probe.check().valid) fail("cel-js rejected the environment's self-test");
  const runtime = { now: new Date(0), directory: undefined };
  if (parsed({ [RUNTIME_KEY]: runtime }) !== true || probe({}) !== true) fail("cel-js self-test evaluated wrongly");
  return evaluator;
}

// One slot per kind rather than a Map: preparing every task's input asks for one.
let conditionEnvironment: CelEnvironment | undefined;
let approverEnvironment: CelEnvironment | undefined;
let configRuleEnvironment: CelEnvironment | undefined;

/**
 * The environment of a kind, built on first use.
 *
 * @example
 * ```ts
 * celEnvironment("approver").variables.has("appOwners"); // true
 * ```
 */
export function celEnvironment(kind: CelEnvironmentKind): CelEnvironment {
  if (kind === "condition") return (conditionEnvironment ??= build(kind));
  if (kind === "approver") return (approverEnvironment ??= build(kind));
  return (configRuleEnvironment ??= build("config-rule"));
}
