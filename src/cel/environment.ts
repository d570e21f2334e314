/**
 * The two CEL environments of the service (DOMAIN.md §5): rule conditions (`subject`, `task`,
 * `entitlement`, `account`, `ip`; must return bool) and approver expressions (`subject`,
 * `appOwners`, `entitlement`, `task`; return a User or a list of Users). This is the only module
 * that builds cel-js environments; each is built once, on first use, and owns its caches.
 *
 * Semantics worth knowing, where cel-js and the service's cel-go could differ:
 * - Numbers. CEL ints are BigInts. Fields the service types as int (`task.numericId`, int64 on the
 *   wire as a string) are converted when the input is prepared. JSON numbers inside `profile` and
 *   `attributes` stay doubles, as cel-go sees a protobuf Struct: they compare with ints
 *   (`subject.profile.level > 3`, `== 5`), but arithmetic with an int needs `int(...)`.
 * - `1 == 1.0` between literals fails the type check ("found no matching overload for '_==_'
 *   applied to '(int, double)'"), as in cel-go; `dyn(1) == 1.0` is true at run time.
 * - Enums are their own types (see enums.ts): `subject.status == UserStatus.ENABLED` or
 *   `== USER_STATUS_ENABLED`; comparing with a string is a type error, as with proto enums.
 * - `matches()` runs on RE2, the service's dialect, in linear time (regex.ts).
 * - Time zones come from `Intl`, never from the process's zone (time.ts); `now()` is the clock of
 *   the evaluation input.
 * - `has(x.f)` on a declared field is true even when the field is empty, as the service documents.
 */
import { Environment, EvaluationError } from "@marcbachmann/cel-js";
import { fail } from "../result.js";
import { ENUMS, TIME_FORMATS, enumClass, type EnumDef, CelEnumValue } from "./enums.js";
import {
  RUNTIME_KEY,
  approverExtensions,
  conditionExtensions,
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
  CelGroup,
  CelTask,
  CelTaskAnalysis,
  CelUser,
  CelUserCache,
  ENTITLEMENT_FIELDS,
  GROUP_FIELDS,
  TASK_FIELDS,
  USER_FIELDS,
} from "./values.js";

/**
 * Parse-time limits. cel-js's defaults are cel-go's (250 levels of nesting, 100k nodes); conditions
 * are short, so fewer nodes bound the work a hostile or generated expression can ask for. cel-js has
 * no evaluation-cost limit; comprehensions range over directory lists, which are finite.
 */
const LIMITS = { maxAstNodes: 10_000, maxDepth: 250, maxListElements: 1_000, maxMapEntries: 1_000, maxCallArguments: 32 } as const;

/**
 * Which of the service's expression contexts an environment is.
 *
 * @example
 * ```ts
 * const k: CelEnvironmentKind = "approver";
 * ```
 */
export type CelEnvironmentKind = "condition" | "approver";

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
  const members = [...d.members, ...Object.keys(d.aliases)];
  const NsClass = namespaceClass(`${d.typeName}.Constants`);
  const ns: Record<string, unknown> = new NsClass() as Record<string, unknown>;
  const C = enumClass(d);
  const fields: Record<string, string> = {};
  for (const m of members) {
    const value = Object.freeze(new C(d, d.aliases[m] ?? m));
    ns[m] = value;
    fields[m] = d.typeName;
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

function buildBase(namespaces: Map<string, readonly string[]>, variables: Set<string>): Environment {
  const env = new Environment({ limits: LIMITS });
  for (const d of ENUMS) registerEnum(env, d, namespaces, variables);
  registerTimeFormat(env, namespaces, variables);
  env.registerType("User", { ctor: CelUser, fields: USER_FIELDS });
  env.registerType("Group", { ctor: CelGroup, fields: GROUP_FIELDS });
  env.registerType("TaskAnalysis", { ctor: CelTaskAnalysis, fields: ANALYSIS_FIELDS });
  env.registerType("Task", { ctor: CelTask, fields: TASK_FIELDS });
  env.registerType("Entitlement", { ctor: CelEntitlement, fields: ENTITLEMENT_FIELDS });
  env.registerType("AppUser.Status", { ctor: CelAccountStatus, fields: ACCOUNT_STATUS_FIELDS });
  env.registerType("AppUser", { ctor: CelAccount, fields: ACCOUNT_FIELDS });
  registerNetwork(env);
  // The service's strings extension: `subject.jobTitle.ifEmpty("unknown")`.
  env.registerFunction("string.ifEmpty(string): string", (s: unknown, d: unknown) => (s === "" ? d : s), sync);
  return env;
}

const FIELDS: ReadonlyMap<string, readonly string[]> = new Map([
  ["User", Object.keys(USER_FIELDS)],
  ["Group", Object.keys(GROUP_FIELDS)],
  ["TaskAnalysis", Object.keys(ANALYSIS_FIELDS)],
  ["Task", Object.keys(TASK_FIELDS)],
  ["Entitlement", Object.keys(ENTITLEMENT_FIELDS)],
  ["AppUser.Status", Object.keys(ACCOUNT_STATUS_FIELDS)],
  ["AppUser", Object.keys(ACCOUNT_FIELDS)],
  ["net.IP", [...IP_FLAGS]],
]);

function build(kind: CelEnvironmentKind): CelEnvironment {
  const namespaces = new Map<string, readonly string[]>();
  const variables = new Set<string>();
  const cel = buildBase(namespaces, variables).clone();
  const declare = (name: string, type: string): void => {
    cel.registerVariable(name, type);
    variables.add(name);
  };
  declare("subject", "User");
  declare("entitlement", "Entitlement");
  declare("task", "Task");
  if (kind === "condition") {
    declare("account", "AppUser");
    declare("ip", "net.IP");
  } else {
    declare("appOwners", "list<User>");
  }
  const services: ExtensionServices = { users: new CelUserCache(), regexes: new RegexCache(), zones: new ZoneCache() };
  const fns = kind === "condition" ? conditionExtensions(services) : approverExtensions(services);
  const extensions = extensionTable(fns);
  const defs = cel.getDefinitions();
  const functionNames = new Set<string>();
  const methodNames = new Set<string>();
  for (const f of defs.functions) (f.receiverType ? methodNames : functionNames).add(f.name);
  for (const f of fns) (f.style === "method" ? methodNames : functionNames).add(f.name);
  for (const name of ["has", "all", "exists", "exists_one", "map", "filter", "bind"]) methodNames.add(name);
  functionNames.add("has");
  const env: CelEnvironment = {
    kind,
    cel,
    extensions,
    services,
    variables,
    namespaces,
    functionNames,
    methodNames,
    fields: FIELDS,
  };
  selfTest(env);
  return Object.freeze(env);
}

/** Fails at construction, not in the middle of an evaluation, if cel-js's internals moved. */
function selfTest(env: CelEnvironment): void {
  const parsed = env.cel.parse("now() == now()");
  const ast: unknown = parsed.ast;
  if (!isCelNode(ast)) fail("cel-js AST has an unexpected shape");
  const probe = env.cel.parse("x");
  const probeAst: unknown = probe.ast;
  if (!isCelNode(probeAst)) fail("cel-js AST has an unexpected shape");
  probeAst.setMeta("macro", {
    async: false,
    typeCheck: (chk: { getType(n: string): unknown }) => chk.getType("bool"),
    evaluate: (ev: unknown, _m: unknown, ctx: unknown) => (assertEvaluatorShape(ev, ctx), true),
  });
  probeAst.setMeta("async", false);
  desugar(ast, env.extensions, env.services);
  if (!parsed.check().valid || !probe.check().valid) fail("cel-js rejected the environment's self-test");
  const runtime = { now: new Date(0), directory: undefined };
  if (parsed({ [RUNTIME_KEY]: runtime }) !== true || probe({}) !== true) fail("cel-js self-test evaluated wrongly");
}

// One slot per kind rather than a Map: preparing every task's input asks for one.
let conditionEnvironment: CelEnvironment | undefined;
let approverEnvironment: CelEnvironment | undefined;

/**
 * The environment of a kind, built on first use.
 *
 * @example
 * ```ts
 * celEnvironment("approver").variables.has("appOwners"); // true
 * ```
 */
export function celEnvironment(kind: CelEnvironmentKind): CelEnvironment {
  return kind === "condition" ? (conditionEnvironment ??= build(kind)) : (approverEnvironment ??= build(kind));
}
