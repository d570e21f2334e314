/**
 * Checked conditions compiled to JavaScript closures (issue 16): each node becomes a plain closure
 * over the evaluation context, without cel-js's scope objects, node dispatch and per-node
 * bookkeeping. No code is generated (`new Function` is never used), so the compiled form also runs
 * under a CSP without `unsafe-eval`.
 *
 * Exactly cel-js's results, by construction:
 * - Operators and functions call **cel-js's own handlers** (the overload its type checker picked,
 *   or its run-time dispatch for `dyn` operands) with its evaluator: arithmetic with its int64 /
 *   uint64 overflow checks, division by zero, -0 and NaN, string and list functions, timestamps
 *   and durations, conversions. The extension functions (`c1.*`, time, `matches` on the
 *   linear-time engine) run through the same invoker as in cel-js (extensions.ts). Only the
 *   commonest shapes (`subject.department == "IT"`, string tests, `in` a list of strings) have
 *   hand-written closures, whose results are those of cel-js's overloads for those types.
 * - A closure only answers on its **plain path**: the operand types it expects, no missing key, no
 *   error. Anything else — an error, a value off that path — abandons the compiled run ({@link BAIL}
 *   or the error itself), and the caller evaluates the whole expression with cel-js, which produces
 *   the value or error the service would. Evaluation is pure, so starting again changes nothing but
 *   time. Error-absorbing `&&`, `||` and `all`/`exists` need no special case: an operand or an
 *   iteration that would fail bails, and cel-js decides.
 * - Evaluation order and short circuits are cel-js's (`&&`/`||` left first, the ternary's taken
 *   branch, a quantifier stopping once decided), so a plain compiled run evaluates the nodes cel-js
 *   would. Comprehensions (`all`, `exists`, `exists_one`, `map`, `filter`) run cel-js's own
 *   expansion (its step, accumulator, stop condition and result) as closures.
 * - The cost budget (cost.ts) is charged from the same {@link CostPlan} as cel-js's instrumented
 *   nodes, in cel-js's evaluation order (a call's and a list's last operand first): the same units
 *   at the same nodes (an operator or function that pays before it runs pays in cel-js's handler,
 *   which the closures call, or, in a shape written out by hand, by the same rule before the same
 *   work), so a compiled run runs out exactly when and where cel-js would, and its
 *   `CEL_COST_EXCEEDED` is cel-js's (compile.ts reports it without running cel-js again). A
 *   compiled run never does more work than the budget allows.
 *
 * What stays interpreted, per expression ({@link compileClosuresOrReason} says why): optional
 * values (`optional.*`, `.?`, `[?]`, `orValue`…). A recording compile (traces) records each node's
 * value when cel-js's instrumented copy would, every iteration included.
 */
import type { CostMeter, CostPlan } from "./cost.js";
import { CHARS_PER_UNIT, chargeActive, operandUnits, sizeUnits } from "./cost.js";
import { extensionInvoker, RUNTIME_KEY, type CelRuntime, type ExtensionArgs } from "./extensions.js";
import { isCelNode, type CelNode } from "./internals.js";
import { fieldPresent, presenceOf } from "./presence.js";

/**
 * Thrown by a closure off its plain path: evaluate the expression with cel-js instead.
 *
 * @example
 * ```ts
 * try { return closure(context); } catch (e) { if (e === BAIL) return interpreted(context); throw e; }
 * ```
 */
export const BAIL: unique symbol = Symbol("policy-sim/cel-bail");

/** A compiled (sub-)expression: reads the context's variables by name. */
export type Closure = (context: Readonly<Record<string, unknown>>) => unknown;

/** The variables of the evaluation context (evaluate.ts's CelContext fields). */
export const VARIABLES: ReadonlySet<string> = new Set(["subject", "user", "task", "entitlement", "account", "ip", "appOwners", "campaignOwners"]);

export const PRIMITIVE_EQ: ReadonlySet<string> = new Set(["string", "bool", "int", "double"]);
export const ORDERED: ReadonlySet<string> = new Set(["string", "int", "double"]);

const bail = (): never => {
  throw BAIL;
};

const hasOwn = (o: object, k: string): boolean => Object.hasOwn(o, k);

function isPlainObject(o: object): boolean {
  const p: unknown = Object.getPrototypeOf(o);
  return p === Object.prototype || p === null;
}

/** A value from a map-typed value (a JS Map or any object, as cel-js reads a `map`), or bail. */
export function mapGet(o: unknown, key: string): unknown {
  if (o instanceof Map) {
    const v: unknown = o.get(key);
    return v === undefined ? bail() : v;
  }
  if (typeof o === "object" && o !== null && hasOwn(o, key)) {
    const v: unknown = (o as Record<string, unknown>)[key];
    return v === undefined ? bail() : v;
  }
  return bail();
}

/** A value from a dyn: a map only when cel-js would see a map (a Map or a plain object), or bail. */
export function dynGet(o: unknown, key: string): unknown {
  if (o instanceof Map) {
    const v: unknown = o.get(key);
    return v === undefined ? bail() : v;
  }
  if (typeof o === "object" && o !== null && isPlainObject(o) && hasOwn(o, key)) {
    const v: unknown = (o as Record<string, unknown>)[key];
    return v === undefined ? bail() : v;
  }
  return bail();
}

export const typeOf = (n: CelNode): string => n.checkedType?.name ?? "dyn";

export function argsOf(n: CelNode): readonly unknown[] {
  return Array.isArray(n.args) ? n.args : [];
}

export function child(n: CelNode, i: number): CelNode | undefined {
  const c = argsOf(n)[i];
  return isCelNode(c) ? c : undefined;
}

interface Meta {
  readonly alternate?: unknown;
  readonly macro?: unknown;
}

/** cel-js keeps macros' expansions (`all`…) and constants' values in `meta.alternate`, built-in macros (`has`) in `meta.macro`. */
function metaOf(n: CelNode): Meta {
  const m: unknown = (n as unknown as { readonly meta?: unknown }).meta;
  return typeof m === "object" && m !== null ? (m as Meta) : {};
}

export function isMacro(n: CelNode): boolean {
  const meta = metaOf(n);
  return meta.alternate !== undefined || meta.macro !== undefined;
}

/** The handler cel-js's type checker stored on a node (its operator or function overload). */
type Handle = (...args: unknown[]) => unknown;

function handleOf(n: CelNode): Handle {
  const h: unknown = (n as unknown as { readonly handle?: unknown }).handle;
  return typeof h === "function" ? (h as Handle) : unsupported(`${n.op} without a checked handler`);
}

/** The parts of cel-js's evaluator the closures call (besides passing it to handlers). */
interface EvaluatorParts {
  debugType(v: unknown): { fieldLazy(obj: unknown, key: unknown, node: CelNode, ev: unknown): unknown };
}

function evaluatorParts(ev: unknown): EvaluatorParts | undefined {
  return typeof ev === "object" && ev !== null && typeof (ev as Record<string, unknown>)["debugType"] === "function" ? (ev as EvaluatorParts) : undefined;
}

/**
 * Compiles a checked expression to closures, or `undefined` when it has a node outside the
 * compiled subset (it then runs on cel-js).
 *
 * @example
 * ```ts
 * const f = compileClosures(ast, extensionArgs, { evaluator: env.evaluator });
 * if (f) f(context); // true, false, a value — or throws (BAIL, an error): ask cel-js
 * ```
 */
export function compileClosures(root: CelNode, extensionArgs: ExtensionArgs, options: ClosureOptions = {}): Closure | undefined {
  const r = compileClosuresOrReason(root, extensionArgs, options);
  return r.ok ? r.closure : undefined;
}

/**
 * Why an expression runs interpreted: the first node outside the compiled subset.
 *
 * @example
 * ```ts
 * const why: InterpretedReason = { node: "cel.bind", start: 0, end: 31 };
 * ```
 */
export interface InterpretedReason {
  /** The kind of node, as a person reads it (`cel.bind`, `optional selection .?`). */
  readonly node: string;
  readonly start: number;
  readonly end: number;
}

/**
 * {@link compileClosures}, saying why when it does not compile.
 *
 * @example
 * ```ts
 * const r = compileClosuresOrReason(ast, extensionArgs, { evaluator });
 * if (!r.ok) r.reason.node; // "cel.bind"
 * ```
 */
export function compileClosuresOrReason(
  root: CelNode,
  extensionArgs: ExtensionArgs,
  options: ClosureOptions = {},
): { readonly ok: true; readonly closure: Closure } | { readonly ok: false; readonly reason: InterpretedReason } {
  const cx: Cx = { ext: extensionArgs, options, ev: options.evaluator, parts: evaluatorParts(options.evaluator), scope: new Map(), accu: undefined, loops: 0 };
  try {
    return { ok: true, closure: compile(root, cx) };
  } catch (e: unknown) {
    if (e instanceof Unsupported) return { ok: false, reason: { node: e.what, start: e.at?.start ?? root.start, end: e.at?.end ?? root.end } };
    // A compiler bug must not refuse a valid expression: it runs interpreted, and lint says why.
    return { ok: false, reason: { node: `compiler error: ${e instanceof Error ? e.message : String(e)}`, start: root.start, end: root.end } };
  }
}

/**
 * How to compile: plainly (the decision path), or recording each node's value for a trace. A
 * recording compile makes one closure per node that cel-js evaluates (no fused shortcuts), so each
 * records exactly when cel-js would.
 *
 * @example
 * ```ts
 * compileClosures(ast, ext, { evaluator, meter, plan, record: (node) => (value) => slots.set(node, value) });
 * ```
 */
export interface ClosureOptions {
  /** The recorder of a node's value, or `undefined` for a node that records nothing. */
  readonly record?: (node: CelNode) => ((value: unknown) => void) | undefined;
  /** cel-js's evaluator of the environment (environment.ts): without it, only hand-written shapes compile. */
  readonly evaluator?: unknown;
  /** The meter and plan of the expression's cost budget: without them, comprehensions stay interpreted. */
  readonly meter?: CostMeter | undefined;
  readonly plan?: CostPlan | undefined;
}

/** A cell an iteration variable or a comprehension's accumulator lives in while its loop runs. */
interface Cell {
  v: unknown;
}

/** The compile under way: what a node's closure may refer to. */
interface Cx {
  readonly ext: ExtensionArgs;
  readonly options: ClosureOptions;
  readonly ev: unknown;
  readonly parts: EvaluatorParts | undefined;
  /** Iteration variables in scope, innermost last (they shadow the context's variables). */
  readonly scope: ReadonlyMap<string, Cell>;
  /** The accumulator of the innermost comprehension. */
  readonly accu: Cell | undefined;
  /** How many comprehensions enclose the node. */
  readonly loops: number;
}

function compile(n: CelNode, cx: Cx): Closure {
  const f = compileNode(n, cx);
  const plan = cx.options.plan;
  const meter = cx.options.meter;
  let g = f;
  if (plan !== undefined && meter !== undefined && plan.sized.has(n)) {
    // Inside a loop, a string, list or map costs its size, as cel-js's instrumented node charges.
    g = (c) => {
      const v = f(c);
      const units = sizeUnits(v);
      if (units > 0) meter.charge(units, n);
      return v;
    };
  }
  const r = cx.options.record?.(n);
  if (r === undefined) return g;
  return (c) => {
    const v = g(c);
    r(v);
    return v;
  };
}

/**
 * Whether shortcuts that skip a node's own closure are allowed: not when recording a trace, and not
 * inside a loop (a skipped node would not charge its size).
 */
const fused = (cx: Cx): boolean => cx.options.record === undefined && cx.loops === 0;

class Unsupported {
  constructor(
    readonly what: string,
    readonly at: CelNode | undefined,
  ) {}
}

const unsupported = (what: string, at?: CelNode): never => {
  throw new Unsupported(what, at);
};

function compileNode(n: CelNode, cx: Cx): Closure {
  if (cx.ext.has(n)) return extensionCall(n, cx);
  const meta = metaOf(n);
  if (meta.alternate !== undefined) return alternate(n, meta.alternate, cx);
  if (meta.macro !== undefined) return macro(n, meta.macro, cx);
  switch (n.op) {
    case "value": {
      const v: unknown = n.args;
      return () => v;
    }
    case "id": {
      const name = n.args;
      if (typeof name !== "string") return unsupported("identifier", n);
      const cell = cx.scope.get(name);
      if (cell) return () => cell.v;
      if (name === "optional") return unsupported("optional values (optional.*)", n);
      if (!VARIABLES.has(name)) return unsupported(`identifier ${name}`, n);
      return (c) => {
        const v = c[name];
        return v === undefined ? bail() : v;
      };
    }
    case ".":
      return select(n, cx);
    case "[]":
      return index(n, cx);
    case "list": {
      const items = argsOf(n).map((x) => (isCelNode(x) ? compile(x, cx) : unsupported("list element", n)));
      return (c) => {
        // Last element first, as cel-js evaluates a list (operators.js `resolveAstArray`): the
        // budget is charged in the same order, so it runs out at the same node.
        const out = new Array<unknown>(items.length);
        for (let i = items.length - 1; i >= 0; i--) out[i] = (items[i] as Closure)(c);
        return out;
      };
    }
    case "map":
      return mapLiteral(n, cx);
    case "==":
    case "!=":
      return equality(n, cx);
    case "<":
    case "<=":
    case ">":
    case ">=":
      return ordering(n, cx);
    case "in":
      return membership(n, cx);
    case "+":
    case "-":
    case "*":
    case "/":
    case "%":
      return binary(n, cx);
    case "&&":
    case "||":
      return logical(n, cx);
    case "!_": {
      const a = n.args;
      if (!isCelNode(a)) return unsupported("!", n);
      const f = compile(a, cx);
      return (c) => {
        const v = f(c);
        return typeof v === "boolean" ? !v : bail();
      };
    }
    case "-_": {
      const a = n.args;
      if (!isCelNode(a) || cx.ev === undefined) return unsupported("unary -", n);
      const f = compile(a, cx);
      const h = handleOf(n);
      const ev = cx.ev;
      return (c) => h(f(c), n, ev);
    }
    case "?:": {
      const cond = child(n, 0);
      const l = child(n, 1);
      const r = child(n, 2);
      if (!cond || !l || !r) return unsupported("?:", n);
      const cf = compile(cond, cx);
      const lf = compile(l, cx);
      const rf = compile(r, cx);
      return (c) => {
        const v = cf(c);
        return v === true ? lf(c) : v === false ? rf(c) : bail();
      };
    }
    case "rcall":
      return method(n, cx);
    case "call":
      return call(n, cx);
    case "accuValue": {
      const accu = cx.accu ?? unsupported("accumulator", n);
      return () => accu.v;
    }
    case "accuInc": {
      const accu = cx.accu ?? unsupported("accumulator", n);
      return () => (accu.v = (accu.v as number) + 1);
    }
    case "accuPush": {
      const accu = cx.accu ?? unsupported("accumulator", n);
      const a = n.args;
      if (!isCelNode(a)) return unsupported("accumulator", n);
      const f = compile(a, cx);
      return (c) => {
        const list = accu.v;
        if (!Array.isArray(list)) return bail();
        list.push(f(c));
        return list;
      };
    }
    case ".?":
    case "[?]":
      return unsupported(`optional selection ${n.op}`, n);
    default:
      return unsupported(n.op, n);
  }
}

/** A node cel-js evaluates through `meta.alternate`: a constant (enum, namespace) or a macro's expansion. */
function alternate(n: CelNode, alt: unknown, cx: Cx): Closure {
  if (!isCelNode(alt)) return unsupported(n.op, n);
  if (alt.op === "value" && !isMacro(alt)) {
    const v: unknown = alt.args;
    return () => v;
  }
  if (alt.op === "comprehension") return comprehension(n, alt, cx);
  return unsupported(alt.op, n);
}

/** `has()`, as cel-js's macro evaluates it: the root variable, then each field lazily. */
function macro(n: CelNode, m: unknown, cx: Cx): Closure {
  const name = argsOf(n)[0];
  // has() of a message's field: more than its default (presence.ts).
  const field = presenceOf(m)?.field;
  const props: unknown = typeof m === "object" && m !== null ? (m as { readonly macroHasProps?: unknown }).macroHasProps : undefined;
  if (n.op === "call" && name === "has" && Array.isArray(props) && props.length >= 2 && props.every(isCelNode) && cx.parts !== undefined) {
    const nodes: readonly CelNode[] = props;
    const rootNode = nodes[nodes.length - 1] as CelNode;
    const root = compile(rootNode, cx);
    const parts = cx.parts;
    const ev = cx.ev;
    const fields = nodes.map((x) => argsOf(x)[1]);
    return (c) => {
      let obj = root(c);
      let optional = false;
      for (let i = nodes.length - 2; i >= 0; i--) {
        const node = nodes[i] as CelNode;
        if (node.op === ".?") optional = true;
        if (i === 0 && field !== undefined) {
          // A value of no message type (dyn holding a map) is answered as cel-js answers it.
          const present = fieldPresent(obj, field);
          if (present !== undefined) return present;
        }
        obj = parts.debugType(obj).fieldLazy(obj, fields[i], node, ev);
        if (obj !== undefined) continue;
        if (!(!optional && i > 0 && node.op === ".")) break;
        return bail();
      }
      return obj !== undefined;
    };
  }
  if (n.op === "rcall" && name === "bind") return bind(n, m, cx);
  if (name === "or" || name === "orValue") return unsupported(`optional values (${name})`, n);
  return unsupported(typeof name === "string" ? `${name}()` : "macro", n);
}

/** `cel.bind(v, value, expr)`, as cel-js's macro evaluates it: the value (type-checked as cel-js does), then the expression with `v` bound. */
function bind(n: CelNode, m: unknown, cx: Cx): Closure {
  const b = (typeof m === "object" && m !== null ? m : {}) as { readonly var?: unknown; readonly val?: unknown; readonly exp?: unknown; readonly bindCtx?: unknown };
  const iterType: unknown = typeof b.bindCtx === "object" && b.bindCtx !== null ? (b.bindCtx as { readonly iterType?: unknown }).iterType : undefined;
  const matches = typeof iterType === "object" && iterType !== null ? (iterType as Record<string, unknown>)["matchesValueType"] : undefined;
  if (typeof b.var !== "string" || !isCelNode(b.val) || !isCelNode(b.exp) || typeof matches !== "function" || cx.ev === undefined) return unsupported("cel.bind", n);
  const type = iterType as ComprehensionArgs["iterType"];
  const val = compile(b.val, cx);
  const cell: Cell = { v: undefined };
  const exp = compile(b.exp, { ...cx, scope: new Map(cx.scope).set(b.var, cell) });
  const ev = cx.ev;
  return (c) => {
    const v = val(c);
    if (!type.matchesValueType(v, ev)) return bail();
    const outer = cell.v;
    cell.v = v;
    try {
      return exp(c);
    } finally {
      cell.v = outer;
    }
  };
}

/** An extension function (`c1.*`, time, `matches`…): its arguments, then the same invoker as cel-js's. */
function extensionCall(n: CelNode, cx: Cx): Closure {
  const invoke = extensionInvoker(n);
  const args = cx.ext.get(n);
  if (!invoke || !args) return unsupported("extension function", n);
  const fs = args.map((a) => compile(a, cx));
  return (c) => {
    const values = new Array<unknown>(fs.length);
    for (let i = 0; i < fs.length; i++) values[i] = (fs[i] as Closure)(c);
    return invoke(values, c[RUNTIME_KEY] as CelRuntime);
  };
}

/** What cel-js iterates over for a comprehension's range (operators.js `toIterable`), or bail. */
function itemsOf(coll: unknown): readonly unknown[] {
  if (Array.isArray(coll)) return coll;
  if (coll instanceof Set) return [...(coll as Set<unknown>)];
  if (coll instanceof Map) return [...(coll as Map<unknown, unknown>).keys()];
  if (typeof coll === "object" && coll !== null) return Object.keys(coll);
  return bail();
}

interface ComprehensionArgs {
  readonly iterable: CelNode;
  readonly init: CelNode;
  readonly step: CelNode;
  readonly iterVarName: string;
  readonly condition: ((accu: unknown) => unknown) | undefined;
  readonly result: (accu: unknown) => unknown;
  readonly iterType: { matchesValueType(v: unknown, ev: unknown): unknown };
}

function comprehensionArgs(alt: CelNode): ComprehensionArgs | undefined {
  const a = alt.args as Record<string, unknown> | null;
  if (typeof a !== "object" || a === null) return undefined;
  const { iterable, init, step, iterVarName, condition, result, iterCtx } = a;
  const iterType: unknown = typeof iterCtx === "object" && iterCtx !== null ? (iterCtx as { readonly iterType?: unknown }).iterType : undefined;
  if (!isCelNode(iterable) || !isCelNode(init) || !isCelNode(step) || typeof iterVarName !== "string" || typeof result !== "function") return undefined;
  if (!(condition === undefined || typeof condition === "function")) return undefined;
  if (typeof iterType !== "object" || iterType === null || typeof (iterType as Record<string, unknown>)["matchesValueType"] !== "function") return undefined;
  return {
    iterable,
    init,
    step,
    iterVarName,
    condition: condition as ((accu: unknown) => unknown) | undefined,
    result: result as (accu: unknown) => unknown,
    iterType: iterType as ComprehensionArgs["iterType"],
  };
}

/**
 * `all`, `exists`, `exists_one`, `map`, `filter`: cel-js's expansion (operators.js
 * `iterateLoop`/`iterateQuantifier`) as closures. Each iteration charges the step's units first,
 * as cel-js's instrumented step does; an iteration that fails bails (cel-js absorbs or reports it).
 */
function comprehension(n: CelNode, alt: CelNode, cx: Cx): Closure {
  const label = `${String(argsOf(n)[0])}()`;
  const meter = cx.options.meter;
  const plan = cx.options.plan;
  if (meter === undefined || plan === undefined || cx.ev === undefined) return unsupported(label, n);
  const a = comprehensionArgs(alt) ?? unsupported(label, n);
  const charge = plan.steps.get(a.step) ?? unsupported(label, n);
  const iterable = compile(a.iterable, cx);
  const init = compile(a.init, cx);
  const item: Cell = { v: undefined };
  const accu: Cell = { v: undefined };
  const inner: Cx = { ...cx, scope: new Map(cx.scope).set(a.iterVarName, item), accu, loops: cx.loops + 1 };
  const step = compile(a.step, inner);
  const { condition, result, iterType } = a;
  const { units, comprehension: at } = charge;
  const ev = cx.ev;
  return (c) => {
    const items = itemsOf(iterable(c));
    let acc = init(c);
    accu.v = acc;
    try {
      for (let i = 0; i < items.length; i++) {
        if (condition !== undefined && !condition(acc)) break;
        const v = items[i];
        if (!iterType.matchesValueType(v, ev)) return bail();
        meter.charge(units, at);
        item.v = v;
        acc = step(c);
      }
      return result(acc);
    } finally {
      // Nothing of this evaluation stays reachable from the compiled expression.
      item.v = undefined;
      accu.v = undefined;
    }
  };
}

/** `{k: v, …}`: a plain object, keys as cel-js writes them (operators.js `safeFromEntries`). */
function mapLiteral(n: CelNode, cx: Cx): Closure {
  const entries = argsOf(n).map((e) => {
    if (!Array.isArray(e) || !isCelNode(e[0]) || !isCelNode(e[1])) return unsupported("map literal", n);
    return [compile(e[0], cx), compile(e[1], cx)] as const;
  });
  return (c) => {
    const obj: Record<string, unknown> = {};
    for (const [kf, vf] of entries) {
      const k = kf(c);
      const v = vf(c);
      const key = String(k);
      if (key === "__proto__" || key === "constructor" || key === "prototype") continue;
      obj[key] = v;
    }
    return obj;
  };
}

/** A binary operator through cel-js's handler (its overload, or its run-time dispatch for dyn). */
function binary(n: CelNode, cx: Cx): Closure {
  const l = child(n, 0);
  const r = child(n, 1);
  if (!l || !r || cx.ev === undefined) return unsupported(n.op, n);
  const h = handleOf(n);
  const lf = compile(l, cx);
  const rf = compile(r, cx);
  const ev = cx.ev;
  return (c) => h(lf(c), rf(c), n, ev);
}

function logical(n: CelNode, cx: Cx): Closure {
  // `a && b && c` as one loop: the first decisive operand decides; an operand that is not a
  // bool (an error, a dyn value) leaves it to cel-js, which knows which errors are absorbed.
  const terms: CelNode[] = [];
  if (fused(cx)) flatten(n, n.op, terms);
  else terms.push(...[child(n, 0), child(n, 1)].map((x) => x ?? unsupported(n.op, n)));
  const fs = terms.map((t) => compile(t, cx));
  const decisive = n.op === "||";
  return (c) => {
    for (let i = 0; i < fs.length; i++) {
      const v = (fs[i] as Closure)(c);
      if (v === decisive) return decisive;
      if (v !== !decisive) return bail();
    }
    return !decisive;
  };
}

/** The operands of a chain of one logical operator, left to right. */
function flatten(n: CelNode, op: string, out: CelNode[]): void {
  if (n.op === op && !isMacro(n)) {
    const l = child(n, 0);
    const r = child(n, 1);
    if (!l || !r) return unsupported(op, n);
    flatten(l, op, out);
    flatten(r, op, out);
    return;
  }
  out.push(n);
}

/** The variable a node names, when it is a plain identifier of the context (not an iteration variable). */
function rootVariable(n: CelNode, cx: Cx): string | undefined {
  return n.op === "id" && typeof n.args === "string" && VARIABLES.has(n.args) && !cx.scope.has(n.args) && !isMacro(n) ? n.args : undefined;
}

/** The value of a literal node of a primitive type, or `undefined`. */
export function literalOf(n: CelNode): string | boolean | bigint | number | undefined {
  if (n.op !== "value" || isMacro(n)) return undefined;
  const v: unknown = n.args;
  return typeof v === "string" || typeof v === "boolean" || typeof v === "bigint" || typeof v === "number" ? v : undefined;
}

/** `a.f` on a message (a field read), a map or a dyn map (a key read); other receivers through cel-js's handler. */
function select(n: CelNode, cx: Cx): Closure {
  const a = argsOf(n);
  const obj = a[0];
  const field = a[1];
  if (!isCelNode(obj) || typeof field !== "string") return unsupported(".", n);
  const t = typeOf(obj);
  const isMap = t === "dyn" || t.startsWith("map<string,");
  if (!isMap && !/^[A-Z][A-Za-z]*$/.test(t)) {
    if (cx.ev === undefined) return unsupported(".", n);
    const h = handleOf(n);
    const of = compile(obj, cx);
    const ev = cx.ev;
    return (c) => h(of(c), field, n, ev);
  }
  const root = fused(cx) ? rootVariable(obj, cx) : undefined;
  if (root !== undefined && !isMap) {
    // `subject.department`: the most common read, in one closure.
    return (c) => {
      const o = c[root];
      if (typeof o !== "object" || o === null) return bail();
      const v: unknown = (o as Record<string, unknown>)[field];
      return v === undefined ? bail() : v;
    };
  }
  const of = compile(obj, cx);
  if (t === "dyn") return (c) => dynGet(of(c), field);
  if (isMap) return (c) => mapGet(of(c), field);
  // A message of ours (values.ts): a declared field, read as cel-js reads it; absent: cel-js says why.
  return (c) => {
    const o = of(c);
    if (typeof o !== "object" || o === null) return bail();
    const v: unknown = (o as Record<string, unknown>)[field];
    return v === undefined ? bail() : v;
  };
}

/** `m[k]` with a string key on a map or a dyn; any other through cel-js's handler (list indexes…). */
function index(n: CelNode, cx: Cx): Closure {
  const obj = child(n, 0);
  const key = child(n, 1);
  if (!obj || !key) return unsupported("[]", n);
  const t = typeOf(obj);
  if (typeOf(key) === "string" && (t === "dyn" || t.startsWith("map<string,"))) {
    const o = compile(obj, cx);
    const k = compile(key, cx);
    const get = t === "dyn" ? dynGet : mapGet;
    return (c) => {
      const ov = o(c);
      const kv = k(c);
      return typeof kv === "string" ? get(ov, kv) : bail();
    };
  }
  return binary(n, cx);
}

/** `x in list`: a string in a list of strings by hand; anything else through cel-js's handler. */
function membership(n: CelNode, cx: Cx): Closure {
  const l = child(n, 0);
  const r = child(n, 1);
  if (!l || !r) return unsupported("in", n);
  if (typeOf(l) !== "string" || typeOf(r) !== "list<string>") return binary(n, cx);
  const lf = compile(l, cx);
  const rf = compile(r, cx);
  // The handler's charge (cost.ts): each element compared with the needle.
  const units = cx.options.plan?.pre.get(n)?.units;
  return (c) => {
    const lv = lf(c);
    const rv = rf(c);
    if (typeof lv !== "string" || !Array.isArray(rv)) return bail();
    if (units !== undefined) chargeActive(units(lv, rv), n);
    for (const x of rv) {
      if (x === lv) return true;
      if (typeof x !== "string") return bail();
    }
    return false;
  };
}

/** Two strings both of ten characters or more: only then does comparing them cost anything (cost.ts `compareUnits`). */
const longText = (a: unknown, b: unknown): boolean => typeof a === "string" && typeof b === "string" && a.length >= CHARS_PER_UNIT && b.length >= CHARS_PER_UNIT;

function equality(n: CelNode, cx: Cx): Closure {
  const l = child(n, 0);
  const r = child(n, 1);
  if (!l || !r) return unsupported(n.op, n);
  const lt = typeOf(l);
  const rt = typeOf(r);
  const negate = n.op === "!=";
  // The handler's charge (cost.ts): two strings by the shorter one's characters (none under ten).
  // None outside a loop when one side is a literal, so the literal shortcuts below never charge.
  const units = cx.options.plan?.pre.get(n)?.units;
  if (lt === rt && PRIMITIVE_EQ.has(lt)) {
    const lf = compile(l, cx);
    const rf = compile(r, cx);
    // cel-js: `(a, b) => a === b` for two of these types (overloads.js); `!=` is its negation.
    const want = lt === "string" ? "string" : lt === "bool" ? "boolean" : lt === "int" ? "bigint" : "number";
    const k = fused(cx) ? literalOf(r) : undefined;
    if (k !== undefined && typeof k === want) {
      // `x == "literal"`: the constant in the closure.
      return negate
        ? (c) => {
            const a = lf(c);
            return typeof a === want ? a !== k : bail();
          }
        : (c) => {
            const a = lf(c);
            return typeof a === want ? a === k : bail();
          };
    }
    return (c) => {
      const a = lf(c);
      const b = rf(c);
      if (typeof a !== want || typeof b !== want) return bail();
      if (units !== undefined && longText(a, b)) chargeActive(units(a, b), n);
      return negate ? a !== b : a === b;
    };
  }
  const k = fused(cx) ? literalOf(r) : undefined;
  if (lt === "dyn" && typeof k === "string") {
    // `subject.profile.clearance == "high"`: a string on the left compares; anything else, cel-js.
    const lf = compile(l, cx);
    return (c) => {
      const a = lf(c);
      return typeof a === "string" ? (negate ? a !== k : a === k) : bail();
    };
  }
  if ((lt === "dyn" && (rt === "dyn" || PRIMITIVE_EQ.has(rt))) || (rt === "dyn" && PRIMITIVE_EQ.has(lt))) {
    // Decided at run time: two strings or two bools compare as above; anything else goes to cel-js.
    const lf = compile(l, cx);
    const rf = compile(r, cx);
    return (c) => {
      const a = lf(c);
      const b = rf(c);
      const ta = typeof a;
      if (ta !== typeof b || !(ta === "string" || ta === "boolean")) return bail();
      if (units !== undefined && longText(a, b)) chargeActive(units(a, b), n);
      return negate ? a !== b : a === b;
    };
  }
  return binary(n, cx);
}

function ordering(n: CelNode, cx: Cx): Closure {
  const l = child(n, 0);
  const r = child(n, 1);
  if (!l || !r) return unsupported(n.op, n);
  const lt = typeOf(l);
  if (lt !== typeOf(r) || !ORDERED.has(lt)) return binary(n, cx);
  const want = lt === "string" ? "string" : lt === "int" ? "bigint" : "number";
  const lf = compile(l, cx);
  const rf = compile(r, cx);
  // The handler's charge (cost.ts): two strings by the shorter one's characters (none under ten).
  const units = cx.options.plan?.pre.get(n)?.units;
  const cmp =
    n.op === "<"
      ? (a: string | bigint | number, b: string | bigint | number) => a < b
      : n.op === "<="
        ? (a: string | bigint | number, b: string | bigint | number) => a <= b
        : n.op === ">"
          ? (a: string | bigint | number, b: string | bigint | number) => a > b
          : (a: string | bigint | number, b: string | bigint | number) => a >= b;
  return (c) => {
    const a = lf(c);
    const b = rf(c);
    if (typeof a !== want || typeof b !== want) return bail();
    if (units !== undefined && longText(a, b)) chargeActive(units(a, b), n);
    return cmp(a as string | bigint | number, b as string | bigint | number);
  };
}

const STRING_TESTS: Readonly<Record<string, (a: string, b: string) => boolean>> = {
  startsWith: (a, b) => a.startsWith(b),
  endsWith: (a, b) => a.endsWith(b),
  contains: (a, b) => a.includes(b),
};

/** `s.startsWith(x)`, `s.endsWith(x)`, `s.contains(x)` on strings by hand; other methods through cel-js's handler. */
function method(n: CelNode, cx: Cx): Closure {
  const a = argsOf(n);
  const name = a[0];
  const receiver = a[1];
  const params = a[2];
  if (typeof name !== "string" || !isCelNode(receiver) || !Array.isArray(params) || !params.every(isCelNode)) return unsupported("method call", n);
  const args: readonly CelNode[] = params;
  const test = Object.prototype.hasOwnProperty.call(STRING_TESTS, name) ? STRING_TESTS[name] : undefined;
  const p = args[0];
  if (test && args.length === 1 && p && typeOf(receiver) === "string" && typeOf(p) === "string") {
    const rf = compile(receiver, cx);
    const pf = compile(p, cx);
    // The handler's charge (cost.ts): both strings' characters (none under ten), its units of `[s, x]`.
    const charge = cx.options.plan?.pre.has(n) === true;
    return (c) => {
      // The argument before the receiver, as cel-js evaluates a method call.
      const x = pf(c);
      const s = rf(c);
      if (typeof s !== "string" || typeof x !== "string") return bail();
      if (charge && (s.length >= CHARS_PER_UNIT || x.length >= CHARS_PER_UNIT)) chargeActive(operandUnits(s, x), n);
      return test(s, x);
    };
  }
  if (cx.ev === undefined) return unsupported(`${name}()`, n);
  const h = handleOf(n);
  const fs = [receiver, ...args].map((x) => compile(x, cx));
  const ev = cx.ev;
  return (c) => {
    const values = new Array<unknown>(fs.length);
    // cel-js evaluates a call's arguments last first (operators.js `resolveAstArray`).
    for (let i = fs.length - 1; i >= 0; i--) values[i] = (fs[i] as Closure)(c);
    return h(values, ev, n);
  };
}

/** `size(list)` by hand; other global functions through cel-js's handler. */
function call(n: CelNode, cx: Cx): Closure {
  const a = argsOf(n);
  const name = a[0];
  const params = a[1];
  if (typeof name !== "string" || !Array.isArray(params) || !params.every(isCelNode)) return unsupported("call", n);
  const args: readonly CelNode[] = params;
  const p = args[0];
  if (name === "size" && args.length === 1 && p && typeOf(p).startsWith("list<")) {
    const f = compile(p, cx);
    return (c) => {
      const v = f(c);
      return Array.isArray(v) ? BigInt(v.length) : bail();
    };
  }
  if (cx.ev === undefined) return unsupported(`${name}()`, n);
  const h = handleOf(n);
  const fs = args.map((x) => compile(x, cx));
  const ev = cx.ev;
  return (c) => {
    const values = new Array<unknown>(fs.length);
    for (let i = fs.length - 1; i >= 0; i--) values[i] = (fs[i] as Closure)(c);
    return h(values, n, ev);
  };
}
