/**
 * The functions cel-js cannot express through `registerFunction`, attached to the parsed AST before
 * type checking by one rewriting pass ({@link desugar}):
 *
 * - dotted names (`c1.directory.users.v1.FindByEmail(email)`, `time.format(...)`): cel-js parses them
 *   as a method call on the identifier `c1`; the pass recognises the qualified name instead;
 * - functions that need the evaluation's own data (`now()`, the directory): a registered handler
 *   receives only its arguments, while a macro's `evaluate` also receives the evaluation scope, which
 *   carries the per-task runtime under {@link RUNTIME_KEY};
 * - overrides of built-ins that are unsafe or impure in cel-js: `matches()` (JS regex → RE2) and the
 *   timestamp accessors with a time zone (cel-js reads them through the process's local zone).
 *
 * Each becomes a node macro in cel-js's documented `{typeCheck, evaluate}` protocol, so checking,
 * evaluation and error positions go through the library like any other call.
 */
import { EvaluationError, TypeError as CelTypeError, type TypeDeclaration } from "@marcbachmann/cel-js";
import type { Group, User } from "../model/directory.js";
import type { CelDirectory } from "./directory.js";
import { celTypeNames } from "./diagnostics.js";
import { appUserStatusName } from "./enums.js";
import { asChecker, asEvaluator, asScope, errorAt, qualifiedName, syntacticChildren, type CelMacro, type CelNode } from "./internals.js";
import { CEL_RESOURCE_LIMITS } from "./limits.js";
import { regexWeight, type RegexCache } from "./regex.js";
import { endOf, formatTime, parseTime, resolveLayout, startOf, timeUnit, wallTime, type Zone, type ZoneCache } from "./time.js";
import { CelAccount, CelEntitlement, CelGroup, CelRiskScore, CelUser, type CelSecurityInsight, type CelUserCache } from "./values.js";

/**
 * Where the evaluation's own data sits in the context object. Not an identifier, so no expression
 * can name it.
 *
 * @example
 * ```ts
 * const context = { subject, [RUNTIME_KEY]: { now, directory } };
 * ```
 */
export const RUNTIME_KEY = "$policy-sim/runtime";

/**
 * The data of one evaluation that functions need: the clock and the directory.
 *
 * @example
 * ```ts
 * const rt: CelRuntime = { now: new Date("2026-11-22T09:00:00Z"), directory };
 * ```
 */
export interface CelRuntime {
  readonly now: Date;
  readonly directory: CelDirectory;
}

/**
 * What extension implementations share within one environment.
 *
 * @example
 * ```ts
 * const services: ExtensionServices = { users: new CelUserCache(), regexes: new RegexCache(), zones: new ZoneCache() };
 * ```
 */
export interface ExtensionServices {
  readonly users: CelUserCache;
  readonly regexes: RegexCache;
  readonly zones: ZoneCache;
}

/**
 * An implementation: the evaluated arguments, the evaluation's runtime (clock, directory) and the
 * calling node (for error positions). Independent of cel-js's scopes, so any evaluator can call it.
 *
 * @example
 * ```ts
 * const impl: Impl = ([email], rt) => rt.directory.userByEmail(String(email)) !== undefined;
 * ```
 */
export type Impl = (args: readonly unknown[], rt: CelRuntime, node: CelNode) => unknown;

/**
 * One signature of an extension function. Parameter and result types are cel-js type names.
 *
 * @example
 * ```ts
 * const o: ExtensionOverload = { params: ["User", "string"], result: "bool", impl: ([u, app], rt) => false };
 * ```
 */
export interface ExtensionOverload {
  readonly params: readonly string[];
  readonly result: string;
  readonly impl: Impl;
}

/**
 * An extension function and how it is called.
 *
 * @example
 * ```ts
 * const now: ExtensionFunction = { name: "now", style: "global", overloads: [{ params: [], result: "google.protobuf.Timestamp", impl: () => new Date(0) }] };
 * ```
 */
export interface ExtensionFunction {
  /** The name in messages: `c1.user.v1.HasApp`, `now`, `matches`. */
  readonly name: string;
  readonly style: "global" | "namespaced" | "method";
  readonly overloads: readonly ExtensionOverload[];
  /** Checks literal arguments at check time (e.g. a regular expression); `check` is the whole expression's. */
  readonly checkLiterals?: (args: readonly CelNode[], services: ExtensionServices, check: LiteralCheck) => void;
}

/**
 * The extension functions of one environment, keyed for the rewriting pass.
 *
 * @example
 * ```ts
 * const table = extensionTable(conditionExtensions(services));
 * table.namespaced.has("c1.user.v1.HasApp"); // true
 * ```
 */
export interface ExtensionTable {
  readonly globals: ReadonlyMap<string, ExtensionFunction>;
  readonly namespaced: ReadonlyMap<string, ExtensionFunction>;
  readonly methods: ReadonlyMap<string, ExtensionFunction>;
  /** First segments of namespaced names (`c1`, `time`): a call under them that is not declared is an undeclared reference. */
  readonly roots: ReadonlySet<string>;
}

/**
 * Indexes extension functions: globals and methods by `name/arity`, namespaced by qualified name.
 *
 * @example
 * ```ts
 * extensionTable(fns).methods.has("matches/1"); // true
 * ```
 */
export function extensionTable(fns: readonly ExtensionFunction[]): ExtensionTable {
  const globals = new Map<string, ExtensionFunction>();
  const namespaced = new Map<string, ExtensionFunction>();
  const methods = new Map<string, ExtensionFunction>();
  // `c1` is always a namespace: a `c1.…` call an environment lacks is an undeclared reference there.
  const roots = new Set<string>(["c1"]);
  for (const f of fns) {
    if (f.style === "namespaced") {
      namespaced.set(f.name, f);
      roots.add(f.name.split(".")[0] ?? f.name);
      continue;
    }
    const arities = new Set(f.overloads.map((o) => o.params.length - (f.style === "method" ? 1 : 0)));
    for (const n of arities) (f.style === "global" ? globals : methods).set(`${f.name}/${n}`, f);
  }
  return { globals, namespaced, methods, roots };
}

// ---------------------------------------------------------------------------------------------
// Type matching

function staticMatch(t: TypeDeclaration, param: string): boolean {
  if (param === "dyn" || t.kind === "dyn" || t.kind === "param") return true;
  if (t.name === param) return true;
  if (t.kind === "list" && param.startsWith("list<") && t.valueType) return staticMatch(t.valueType, param.slice(5, -1));
  return false;
}

function runtimeMatch(v: unknown, param: string): boolean {
  switch (param) {
    case "dyn":
      return true;
    case "string":
      return typeof v === "string";
    case "int":
      return typeof v === "bigint";
    case "bool":
      return typeof v === "boolean";
    case "User":
      return v instanceof CelUser;
    case "list<User>":
      return Array.isArray(v) && v.every((u) => u instanceof CelUser);
    case "Entitlement":
      return v instanceof CelEntitlement;
    case "AppUser":
      return v instanceof CelAccount;
    case "google.protobuf.Timestamp":
      return v instanceof Date;
    default:
      return false;
  }
}

const typeName = (t: TypeDeclaration): string => celTypeNames(t.name);

function runtimeTypeName(v: unknown): string {
  if (v === null) return "null";
  if (typeof v === "bigint") return "int";
  if (typeof v === "number") return "double";
  if (typeof v === "string" || typeof v === "boolean") return v === true || v === false ? "bool" : "string";
  if (Array.isArray(v)) return "list";
  if (v instanceof Date) return "timestamp";
  if (v instanceof CelUser) return "User";
  const ctor: unknown = typeof v === "object" ? Object.getPrototypeOf(v)?.constructor : undefined;
  return ctor === Object || ctor === undefined || ctor === Map ? "map" : typeof ctor === "function" ? ctor.name : typeof v;
}

// ---------------------------------------------------------------------------------------------
// Node macros

/**
 * Per node: the argument nodes that an extension call evaluates, for the tracer.
 *
 * @example
 * ```ts
 * desugar(ast, table, services).get(callNode); // [the node of `subject.manager`]
 * ```
 */
export type ExtensionArgs = Map<CelNode, readonly CelNode[]>;

/**
 * What the checks of literal arguments share across one expression: the weight of the regular
 * expressions it compiled so far (limits.ts, `maxRegexWeightPerExpression`).
 *
 * @example
 * ```ts
 * const check: LiteralCheck = { regexWeight: 0 };
 * ```
 */
export interface LiteralCheck {
  regexWeight: number;
}

function callMacro(node: CelNode, fn: ExtensionFunction, args: readonly CelNode[], services: ExtensionServices, check: LiteralCheck): CelMacro {
  // Set by typeCheck, read by evaluate: a macro object belongs to one node of one parse.
  let candidates: readonly ExtensionOverload[] = [];
  let checkAtRuntime = true;
  const macro: CelMacro = {
    async: false,
    typeCheck(checker: unknown, _macro: unknown, ctx: unknown): TypeDeclaration {
      const chk = asChecker(checker);
      const types = args.map((a) => chk.check(a, ctx));
      candidates = fn.overloads.filter((o) => o.params.length === types.length && o.params.every((p, i) => staticMatch(types[i] ?? chk.getType("dyn"), p)));
      if (candidates.length === 0) {
        const shown =
          fn.style === "method"
            ? `${types[0] ? typeName(types[0]) : "dyn"}.${fn.name}(${types.slice(1).map(typeName).join(", ")})`
            : `${fn.name}(${types.map(typeName).join(", ")})`;
        throw new CelTypeError({ code: "no_matching_overload", message: `found no matching overload for '${shown}'`, node: errorAt(node) });
      }
      checkAtRuntime = types.some((t) => t.hasDynType || t.hasPlaceholderType) || candidates.length > 1;
      fn.checkLiterals?.(args, services, check);
      const results = new Set(candidates.map((o) => o.result));
      const only = results.size === 1 ? [...results][0] : undefined;
      return chk.getType(only ?? "dyn");
    },
    evaluate(ev: unknown, _macro: unknown, scope: unknown): unknown {
      const e = asEvaluator(ev);
      return holder.invoke(
        args.map((a) => e.run(a, scope)),
        runtimeOf(scope),
      );
    },
  };
  // The overload chosen for the evaluated arguments, called: cel-js's evaluation and the compiled
  // closures (closures.ts) share it.
  function invoke(values: readonly unknown[], rt: CelRuntime): unknown {
    let o = candidates[0];
    if (checkAtRuntime) o = candidates.find((c) => c.params.every((p, i) => runtimeMatch(values[i], p)));
    if (!o) {
      throw new EvaluationError({
        code: "no_matching_overload",
        message: `found no matching overload for '${fn.name}' applied to '(${values.map(runtimeTypeName).join(", ")})'`,
        node: errorAt(node),
      });
    }
    return o.impl(values, rt, node);
  }
  const holder: InvokerHolder = { invoke };
  invokers.set(node, holder);
  return macro;
}

/** How an extension call node is invoked: cel-js's evaluation and the closures read it from here. */
interface InvokerHolder {
  invoke: Invoker;
}

type Invoker = (values: readonly unknown[], rt: CelRuntime) => unknown;

const invokers = new WeakMap<CelNode, InvokerHolder>();

/**
 * Puts a wrapper around how an extension call node is invoked, for cel-js's evaluation and the
 * closures compiled afterwards alike (the cost meter charges a call's arguments this way, cost.ts).
 * Does nothing for other nodes.
 *
 * @example
 * ```ts
 * wrapExtensionInvoker(node, (inner) => (values, rt) => (charge(values), inner(values, rt)));
 * ```
 */
export function wrapExtensionInvoker(node: CelNode, wrap: (inner: Invoker) => Invoker): void {
  const holder = invokers.get(node);
  if (holder) holder.invoke = wrap(holder.invoke);
}

/**
 * How an extension call node is evaluated once its arguments are: the overload is chosen and
 * called exactly as in cel-js's evaluation (the same function). `undefined` for other nodes.
 *
 * @example
 * ```ts
 * const invoke = extensionInvoker(callNode);
 * invoke?.([email], context[RUNTIME_KEY]);
 * ```
 */
export function extensionInvoker(node: CelNode): ((values: readonly unknown[], rt: CelRuntime) => unknown) | undefined {
  return invokers.get(node)?.invoke;
}

function undeclaredMacro(node: CelNode, name: string): CelMacro {
  return {
    async: false,
    typeCheck(): TypeDeclaration {
      throw new CelTypeError({ code: "undeclared_reference", message: `undeclared reference to '${name}'`, node: errorAt(node) });
    },
    evaluate(): unknown {
      throw new EvaluationError({ code: "undeclared_reference", message: `undeclared reference to '${name}'`, node: errorAt(node) });
    },
  };
}

function attach(node: CelNode, macro: CelMacro): void {
  node.setMeta("macro", macro);
  // Our functions are synchronous; telling cel-js spares the async wrappers on every parent node.
  node.setMeta("async", false);
}

/**
 * Rewrites a freshly parsed AST in place: attaches the extension functions to the nodes that call
 * them. Returns, for each rewritten node, the argument nodes it evaluates.
 *
 * @example
 * ```ts
 * const parsed = env.parse(source);
 * const args = desugar(parsed.ast as CelNode, table, services);
 * parsed.check();
 * ```
 */
export function desugar(root: CelNode, table: ExtensionTable, services: ExtensionServices): ExtensionArgs {
  const out: ExtensionArgs = new Map();
  const check: LiteralCheck = { regexWeight: 0 };
  // Names bound by enclosing comprehensions and cel.bind: `time` there is a variable, as in cel-go.
  const none: ReadonlySet<string> = new Set();
  const stack: Array<readonly [CelNode, ReadonlySet<string>]> = [[root, none]];
  const visit = (nodes: readonly CelNode[], bound: ReadonlySet<string>): void => {
    for (const n of nodes) stack.push([n, bound]);
  };
  while (stack.length > 0) {
    const top = stack.pop();
    if (!top) break;
    const [node, bound] = top;
    const a = node.args;
    if (node.op === "call" && Array.isArray(a) && typeof a[0] === "string") {
      const args = syntacticChildren(node);
      const fn = table.globals.get(`${a[0]}/${args.length}`);
      if (fn) {
        attach(node, callMacro(node, fn, args, services, check));
        out.set(node, args);
      }
      visit(args, bound);
      continue;
    }
    if (node.op === "rcall" && Array.isArray(a) && typeof a[0] === "string") {
      const [receiver, ...args] = syntacticChildren(node);
      if (receiver) {
        const q = qualifiedName(receiver);
        const rootName = q?.split(".")[0] ?? "";
        const full = q === undefined || bound.has(rootName) ? undefined : `${q}.${a[0]}`;
        const fn = full === undefined ? undefined : table.namespaced.get(full);
        if (fn) {
          attach(node, callMacro(node, fn, args, services, check));
          out.set(node, args);
          visit(args, bound);
          continue;
        }
        if (full !== undefined && table.roots.has(rootName)) {
          attach(node, undeclaredMacro(node, full));
          out.set(node, args);
          visit(args, bound);
          continue;
        }
        const m = table.methods.get(`${a[0]}/${args.length}`);
        if (m) {
          const all = [receiver, ...args];
          attach(node, callMacro(node, m, all, services, check));
          out.set(node, all);
          visit(all, bound);
          continue;
        }
        const first = args[0];
        const binder = a[0] === "bind" ? q === "cel" && args.length === 3 : BINDING_MACROS.has(a[0]);
        if (binder && first?.op === "id" && typeof first.args === "string") {
          const inner = new Set(bound).add(first.args);
          visit([receiver], bound);
          visit(args.slice(1), inner);
          continue;
        }
      }
    }
    visit(syntacticChildren(node), bound);
  }
  return out;
}

const BINDING_MACROS: ReadonlySet<string> = new Set(["all", "exists", "exists_one", "map", "filter"]);

// ---------------------------------------------------------------------------------------------
// The functions

const runtimeOf = (scope: unknown): CelRuntime => asScope(scope).getValue(RUNTIME_KEY) as CelRuntime;

const notFound = (node: CelNode, message: string): EvaluationError => new EvaluationError({ code: "not_found", message, node: errorAt(node) });
const invalid = (node: CelNode, message: string): EvaluationError => new EvaluationError({ code: "invalid_argument", message, node: errorAt(node) });

const str = (v: unknown): string => (typeof v === "string" ? v : String(v));
const user = (v: unknown): CelUser => v as CelUser;

const MIN_TS = -62135596800000; // 0001-01-01T00:00:00Z
const MAX_TS = 253402300799999; // 9999-12-31T23:59:59.999Z

function timestampAt(ms: number, node: CelNode): Date {
  if (!Number.isFinite(ms) || ms < MIN_TS || ms > MAX_TS) throw invalid(node, "timestamp out of range");
  return new Date(ms);
}

function zoneOf(services: ExtensionServices, name: unknown, node: CelNode): Zone {
  const z = services.zones.get(str(name));
  if (!z.ok) throw invalid(node, z.error.message);
  return z.value;
}

function regexOf(services: ExtensionServices, pattern: string, node: CelNode) {
  const r = services.regexes.get(pattern);
  if (!r.ok) throw invalid(node, r.message);
  return r.re;
}

const TS = "google.protobuf.Timestamp";

function directoryFunctions(services: ExtensionServices, conditionsOnly: boolean): ExtensionFunction[] {
  const cel = (u: User, rt: CelRuntime): CelUser => services.users.get(u, rt.directory);
  const list = (users: readonly User[], rt: CelRuntime): CelUser[] => users.map((u) => cel(u, rt));
  const ns = (name: string, overloads: ExtensionOverload[]): ExtensionFunction => ({ name, style: "namespaced", overloads });
  const owners = (appId: string, entId: string, rt: CelRuntime, node: CelNode): CelUser[] => {
    const users = rt.directory.entitlementOwners(appId, entId);
    if (!users) throw notFound(node, `c1.directory.apps.v1.GetEntitlementOwners: no entitlement ${JSON.stringify(entId)} in app ${JSON.stringify(appId)}`);
    return list(users, rt);
  };
  const fns: ExtensionFunction[] = [
    ns("c1.directory.users.v1.FindByEmail", [
      {
        params: ["string"],
        result: "User",
        impl: ([email], rt, node) => {
          const u = rt.directory.userByEmail(str(email));
          if (!u) throw notFound(node, `c1.directory.users.v1.FindByEmail: no user with email ${JSON.stringify(email)}`);
          return cel(u, rt);
        },
      },
    ]),
    ns("c1.directory.users.v1.GetByID", [
      {
        params: ["string"],
        result: "User",
        impl: ([id], rt, node) => {
          const u = rt.directory.userById(str(id));
          if (!u) throw notFound(node, `c1.directory.users.v1.GetByID: no user with id ${JSON.stringify(id)}`);
          return cel(u, rt);
        },
      },
    ]),
    ns("c1.directory.users.v1.FindByName", [
      {
        params: ["string"],
        result: "User",
        impl: ([name], rt, node) => {
          const u = rt.directory.userByName(str(name));
          if (!u) throw notFound(node, `c1.directory.users.v1.FindByName: no user named ${JSON.stringify(name)}`);
          return cel(u, rt);
        },
      },
    ]),
    ns("c1.directory.users.v1.GetManagers", [
      { params: ["User"], result: "list<User>", impl: ([u], rt) => list(rt.directory.managersOf(user(u).source), rt) },
    ]),
    ns("c1.directory.users.v1.DirectReports", [
      { params: ["User"], result: "list<User>", impl: ([u], rt) => list(rt.directory.directReportsOf(user(u).source), rt) },
      {
        params: ["list<User>"],
        result: "list<User>",
        impl: ([us], rt) => {
          const seen = new Set<string>();
          const out: CelUser[] = [];
          for (const m of us as readonly CelUser[])
            for (const r of rt.directory.directReportsOf(m.source))
              if (!seen.has(r.id)) {
                seen.add(r.id);
                out.push(cel(r, rt));
              }
          return out;
        },
      },
    ]),
    ns("c1.directory.groups.v1.FindByName", [
      {
        params: ["string"],
        result: "Group",
        impl: ([name], rt, node) => {
          const g: Group | undefined = rt.directory.groupByName(str(name));
          if (!g) throw notFound(node, `c1.directory.groups.v1.FindByName: no group named ${JSON.stringify(name)}`);
          return Object.freeze(new CelGroup(g));
        },
      },
    ]),
    ns("c1.directory.apps.v1.GetEntitlementMembers", [
      {
        params: ["string", "string"],
        result: "list<User>",
        impl: ([appId, entId], rt, node) => {
          const users = rt.directory.entitlementMembers(str(appId), str(entId));
          if (!users) throw notFound(node, `c1.directory.apps.v1.GetEntitlementMembers: no entitlement ${JSON.stringify(entId)} in app ${JSON.stringify(appId)}`);
          return list(users, rt);
        },
      },
    ]),
    ns("c1.directory.apps.v1.GetEntitlementOwners", [
      { params: ["string", "string"], result: "list<User>", impl: ([appId, entId], rt, node) => owners(str(appId), str(entId), rt, node) },
      // The reference's other form: the entitlement itself (`GetEntitlementOwners(entitlement)`).
      {
        params: ["Entitlement"],
        result: "list<User>",
        impl: ([e], rt, node) => owners((e as CelEntitlement).appId, (e as CelEntitlement).id, rt, node),
      },
    ]),
    ns("c1.user.v1.HasApp", [
      { params: ["User", "string"], result: "bool", impl: ([u, appId], rt) => rt.directory.hasApp(user(u).id, str(appId)) },
    ]),
    ns("c1.user.v1.HasEntitlement", [
      {
        params: ["User", "string", "string"],
        result: "bool",
        impl: ([u, appId, entId], rt) => rt.directory.grantOf(user(u).id, str(appId), str(entId)) !== undefined,
      },
    ]),
    ns("c1.user.v1.GetAppUserStatus", [
      {
        params: ["User", "string"],
        result: "string",
        impl: ([u, appId], rt) => appUserStatusName(rt.directory.appUserStatus(user(u).id, str(appId))),
      },
    ]),
  ];
  if (conditionsOnly) {
    fns.push(
      ns("c1.user.v1.GrantedFromEnrollment", [
        {
          params: ["User", "string", "string"],
          result: "bool",
          impl: ([u, appId, entId], rt) => {
            const source = rt.directory.grantOf(user(u).id, str(appId), str(entId))?.source;
            return source === "enrollment" || source === "automatic-enrollment";
          },
        },
      ]),
      ns("c1.user.v1.AutomaticallyGrantedFromEnrollment", [
        {
          params: ["User", "string", "string"],
          result: "bool",
          impl: ([u, appId, entId], rt) => rt.directory.grantOf(user(u).id, str(appId), str(entId))?.source === "automatic-enrollment",
        },
      ]),
    );
  }
  return fns;
}

function timeFunctions(services: ExtensionServices): ExtensionFunction[] {
  const ns = (name: string, overloads: ExtensionOverload[]): ExtensionFunction => ({ name, style: "namespaced", overloads });
  const ms = (v: unknown): number => (v as Date).getTime();
  const withZone = (params: string[], result: string, f: (args: readonly unknown[], zone: Zone, node: CelNode) => unknown): ExtensionOverload[] => [
    { params, result, impl: (args, _s, node) => f(args, zoneOf(services, "UTC", node), node) },
    { params: [...params, "string"], result, impl: (args, _s, node) => f(args, zoneOf(services, args[params.length], node), node) },
  ];
  const unitOf = (v: unknown, node: CelNode) => {
    const u = timeUnit(str(v));
    if (!u) throw invalid(node, `unknown time unit ${JSON.stringify(v)} (use minute, hour, day, week, month, quarter or year)`);
    return u;
  };
  const startOfOverloads = withZone([TS, "string"], TS, ([t, unit], zone, node) => timestampAt(startOf(ms(t), unitOf(unit, node), zone), node));
  return [
    ns(
      "time.parse",
      withZone(["string", "string"], TS, ([value, layout], zone, node) => {
        const r = parseTime(str(value), resolveLayout(str(layout)), zone);
        if (!r.ok) throw invalid(node, r.error.message);
        return timestampAt(r.value, node);
      }),
    ),
    // The examples page of the service's docs ("Validate date fields in profile"):
    // `time.try_parse(subject.profile.hire_date, TimeFormat.DATE, now())` — time.parse, or the
    // fallback when the value does not parse (README Assumptions: not in the reference's table).
    ns("time.try_parse", [
      {
        params: ["string", "string", TS],
        result: TS,
        impl: ([value, layout, fallback], _scope, node) => {
          const r = parseTime(str(value), resolveLayout(str(layout)), zoneOf(services, "UTC", node));
          return r.ok ? timestampAt(r.value, node) : fallback;
        },
      },
    ]),
    ns(
      "time.format",
      withZone([TS, "string"], "string", ([t, layout], zone) => formatTime(ms(t), resolveLayout(str(layout)), zone)),
    ),
    ns("time.start_of", startOfOverloads),
    // The docs repository's assistant notes (rap/cel-expressions) name `time.truncate` beside `time.start_of`, for the same thing.
    ns("time.truncate", startOfOverloads),
    ns(
      "time.end_of",
      withZone([TS, "string"], TS, ([t, unit], zone, node) => timestampAt(endOf(ms(t), unitOf(unit, node), zone), node)),
    ),
    ns("time.unix", [{ params: ["int"], result: TS, impl: ([s], _scope, node) => timestampAt(Number(s) * 1000, node) }]),
    ns("time.unix_ms", [{ params: ["int"], result: TS, impl: ([m], _scope, node) => timestampAt(Number(m), node) }]),
    { name: "now", style: "global", overloads: [{ params: [], result: TS, impl: (_args, rt) => rt.now }] },
  ];
}

const ACCESSORS: Readonly<Record<string, (w: ReturnType<typeof wallTime>) => number>> = {
  getFullYear: (w) => w.year,
  getMonth: (w) => w.month - 1,
  getDate: (w) => w.day,
  getDayOfMonth: (w) => w.day - 1,
  getDayOfWeek: (w) => w.weekday,
  getDayOfYear: (w) => w.yearDay - 1,
  getHours: (w) => w.hour,
  getMinutes: (w) => w.minute,
  getSeconds: (w) => w.second,
  getMilliseconds: (w) => w.millisecond,
};

function timestampAccessors(services: ExtensionServices): ExtensionFunction[] {
  return Object.entries(ACCESSORS).map(([name, field]) => {
    const tz: ExtensionOverload = {
      params: [TS, "string"],
      result: "int",
      impl: ([t, zone], _s, node) => BigInt(field(wallTime((t as Date).getTime(), zoneOf(services, zone, node)))),
    };
    // Only getDayOfYear() without a zone is overridden: cel-js computes it in the process's zone.
    const overloads =
      name === "getDayOfYear"
        ? [tz, { params: [TS], result: "int", impl: ([t]: readonly unknown[], _s: unknown, node: CelNode) => BigInt(field(wallTime((t as Date).getTime(), zoneOf(services, "UTC", node)))) }]
        : [tz];
    return { name, style: "method" as const, overloads };
  });
}

function regexFunctions(services: ExtensionServices): ExtensionFunction[] {
  const checkLiterals = (args: readonly CelNode[], _services: ExtensionServices, check: LiteralCheck): void => {
    const pattern = args[1];
    if (pattern?.op !== "value" || typeof pattern.args !== "string") return;
    // The expression's patterns together, before compiling one more: checking is bounded too.
    // Longer than the limit: refused by compiling, without reading it through.
    const weight = pattern.args.length > CEL_RESOURCE_LIMITS.maxRegexWeight ? pattern.args.length : regexWeight(pattern.args);
    const max = CEL_RESOURCE_LIMITS.maxRegexWeightPerExpression;
    if (weight <= CEL_RESOURCE_LIMITS.maxRegexWeight && check.regexWeight + weight > max) {
      throw new CelTypeError({
        code: "regex_limit_exceeded",
        message:
          `the regular expressions of this expression together weigh more than ${max.toLocaleString("en-US")} ` +
          `(their lengths, or their sizes with counted repetitions multiplied out): this one weighs ${weight.toLocaleString("en-US")}`,
        node: errorAt(pattern),
      });
    }
    check.regexWeight += weight;
    const r = services.regexes.get(pattern.args);
    if (!r.ok) throw new CelTypeError({ code: r.kind === "unsupported" ? "unsupported_regex" : "invalid_regex", message: r.message, node: errorAt(pattern) });
  };
  const impl: Impl = ([s, pattern], _scope, node) => regexOf(services, str(pattern), node).test(str(s));
  return [
    { name: "matches", style: "method", overloads: [{ params: ["string", "string"], result: "bool", impl }], checkLiterals },
    { name: "matches", style: "global", overloads: [{ params: ["string", "string"], result: "bool", impl }], checkLiterals },
  ];
}

/**
 * The external-insights functions (`c1.app_user.v1.*`, external-insights page): issue insights and
 * risk scores synced for an account. Source names match exactly (case-sensitive); the severity given
 * to `HasSecurityInsightWithSeverity` matches regardless of case.
 */
function insightFunctions(): ExtensionFunction[] {
  const ns = (name: string, overloads: ExtensionOverload[]): ExtensionFunction => ({ name, style: "namespaced", overloads });
  const account = (v: unknown): CelAccount => v as CelAccount;
  const fromSource = (a: unknown, source: unknown): readonly CelSecurityInsight[] => account(a).securityInsights.filter((i) => i.source === str(source));
  return [
    ns("c1.app_user.v1.HasSecurityInsight", [{ params: ["AppUser"], result: "bool", impl: ([a]) => account(a).securityInsights.length > 0 }]),
    ns("c1.app_user.v1.GetSecurityInsights", [
      { params: ["AppUser", "string"], result: "list<c1.security_insight.v1>", impl: ([a, source]) => Object.freeze(fromSource(a, source)) },
    ]),
    ns("c1.app_user.v1.HasSecurityInsightWithSeverity", [
      {
        params: ["AppUser", "string", "string"],
        result: "bool",
        impl: ([a, source, severity]) => {
          const wanted = str(severity).toUpperCase();
          return fromSource(a, source).some((i) => i.severity.toUpperCase() === wanted);
        },
      },
    ]),
    ns("c1.app_user.v1.HasRiskScore", [{ params: ["AppUser"], result: "bool", impl: ([a]) => account(a).riskScores.length > 0 }]),
    ns("c1.app_user.v1.GetRiskScore", [
      {
        params: ["AppUser", "string"],
        result: "c1.risk_score.v1",
        // A missing source reads as a score of 0, as the page documents.
        impl: ([a, source]) => account(a).riskScores.find((r) => r.source === str(source)) ?? Object.freeze(new CelRiskScore(str(source), 0n)),
      },
    ]),
  ];
}

/**
 * The extension functions of the rule-condition environment.
 *
 * @example
 * ```ts
 * conditionExtensions(services).some((f) => f.name === "c1.app_user.v1.GetRiskScore"); // true
 * ```
 */
export function conditionExtensions(services: ExtensionServices): ExtensionFunction[] {
  return [...directoryFunctions(services, true), ...insightFunctions(), ...timeFunctions(services), ...timestampAccessors(services), ...regexFunctions(services)];
}

/**
 * The extension functions of the approver-expression environment (no enrollment functions: the
 * service offers them in conditions only).
 *
 * @example
 * ```ts
 * approverExtensions(services).some((f) => f.name === "c1.user.v1.GrantedFromEnrollment"); // false
 * ```
 */
export function approverExtensions(services: ExtensionServices): ExtensionFunction[] {
  return [...directoryFunctions(services, false), ...timeFunctions(services), ...timestampAccessors(services), ...regexFunctions(services)];
}

/**
 * The extension functions of the entitlement configuration rule environment: time and regular
 * expressions only. A rule sees the entitlement alone, not the directory, the requester or the app
 * (entitlement-config-rules page); time functions are available in every context
 * (expressions-reference page).
 *
 * @example
 * ```ts
 * configRuleExtensions(services).some((f) => f.name.startsWith("c1.")); // false
 * ```
 */
export function configRuleExtensions(services: ExtensionServices): ExtensionFunction[] {
  return [...timeFunctions(services), ...timestampAccessors(services), ...regexFunctions(services)];
}
