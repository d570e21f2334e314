/**
 * The cost of a CEL expression, in abstract units of work (roughly: one unit per node evaluated,
 * per list element or map entry touched, per ten characters of string touched).
 *
 * Two halves, one unit:
 * - a **static estimate** from the checked AST ({@link estimateCost}), with worst-case sizes for
 *   what only the input knows (Kubernetes' approach for CEL): `check` and `lint` report an
 *   expression whose estimate exceeds the limit, naming the sub-expression responsible. It follows
 *   the shapes of values through `cel.bind` variables, `+`, list and map literals and string
 *   functions, so a value doubled thirty times is estimated at its size, not at the size of an
 *   input list;
 * - a **runtime budget** ({@link CostMeter}), counted deterministically while cel-js evaluates
 *   ({@link CostPlan} says what each node pays):
 *   - the expression's node count, once;
 *   - inside comprehensions (CEL's only loops), every iteration's share of nodes and the size of
 *     every string, list or map a node there produces;
 *   - everywhere, the work of the operations whose work grows with their operands, charged
 *     **before** they run: `+` of strings, lists and bytes by the size of its result (so a value
 *     doubled by nested `cel.bind`s runs out of budget while it is a few megabytes, never at V8's
 *     limits); `==`, `!=`, `in` and the orderings by the elements they visit, nested lists and maps
 *     included (two separately built trees compared element by element pay for every element);
 *     functions by the size of their arguments, and those that build large values (`join`,
 *     `split`, `replace`) by the size of what they build; `matches()` by the size of its subject
 *     times the weight of its pattern (regex.ts);
 *   - everywhere, the size of the value every function call produces.
 *   When it runs out, the evaluation stops with `CEL_COST_EXCEEDED`. No evaluation gets more than
 *   `CEL_RESOURCE_LIMITS.maxCostLimit` units (limits.ts), whatever limit it asks for.
 *
 * Why count this way: cel-js has no hook for counting, and wrapping every node would slow every
 * evaluation. Without a comprehension, an expression's work is its nodes' plus the work of the
 * operations above, which are charged where cel-js runs them (the handler its type checker stored on
 * the node, which the compiled closures call too) or, for the shapes the closures write out
 * themselves (`a == b` of strings, `x in list`, `s.contains(t)`…), by the same rule there. Literal
 * strings shorter than ten characters cost nothing to compare, so `subject.department == "IT"`
 * pays nothing per evaluation.
 */
import { EvaluationError } from "@marcbachmann/cel-js";
import type { Span } from "./diagnostics.js";
import { extensionInvoker, wrapExtensionInvoker, type ExtensionArgs } from "./extensions.js";
import { errorAt, isCelNode, syntacticChildren, type CelNode } from "./internals.js";
import { CEL_RESOURCE_LIMITS } from "./limits.js";
import { regexWeight } from "./regex.js";

/**
 * The default cost limit of one evaluation, and of the static estimate: Kubernetes' per-expression
 * limit for CEL (1,000,000), in units of about one node evaluation. A realistic condition costs
 * tens of units; a comprehension over a 1,000-element list with a ten-node body about 11,000.
 *
 * @example
 * ```ts
 * evaluateCondition(c, { ...input, costLimit: DEFAULT_CEL_COST_LIMIT / 10 });
 * ```
 */
export const DEFAULT_CEL_COST_LIMIT = 1_000_000;

/**
 * The sizes the static estimate assumes for values only the input knows: any list or map from the
 * input (a user's emails, a profile, a directory lookup) holds at most `list` items, any string at
 * most `string` characters. Literals count at their real size. (README "Assumptions".)
 *
 * @example
 * ```ts
 * WORST_CASE_SIZES.list; // 1000
 * ```
 */
export const WORST_CASE_SIZES = Object.freeze({ list: 1_000, string: 1_000 });

/**
 * Where an evaluation context carries its cost limit. Not an identifier, so no expression can
 * name it.
 *
 * @example
 * ```ts
 * context[COST_LIMIT_KEY]; // 1_000_000
 * ```
 */
export const COST_LIMIT_KEY = "$policy-sim/cost-limit";

/** The accumulator nodes of a comprehension: they return the accumulated list, which its iterations pay for. */
const MACHINERY: ReadonlySet<string> = new Set(["accuPush", "accuValue", "accuInc"]);

/**
 * Characters of string work per unit (Kubernetes charges 0.1 per byte): a string literal shorter
 * than this costs nothing to compare with.
 *
 * @example
 * ```ts
 * "IT".length < CHARS_PER_UNIT; // true: `x == "IT"` charges nothing
 * ```
 */
export const CHARS_PER_UNIT = 10;

/**
 * Matching with re2js (a Pike VM, no DFA) visits up to one thread per unit of the pattern's weight
 * per character: a unit of cost per this many character × weight steps (~90 ns a step at worst).
 */
const REGEX_STEPS_PER_UNIT = 4;

/** Units per unit of weight to compile a pattern built at run time (re2js: up to ~3 µs per unit of weight). */
const REGEX_COMPILE_UNITS_PER_WEIGHT = 8;

// ---------------------------------------------------------------------------------------------
// The shape of the AST, as far as cost needs it

interface Meta {
  readonly alternate?: unknown;
  readonly macro?: unknown;
}

/** cel-js keeps a macro's expansion (`all`, `map`…) in `meta.alternate`, a built-in macro in `meta.macro`. */
function metaOf(node: CelNode): Meta {
  const m: unknown = (node as unknown as { readonly meta?: unknown }).meta;
  return typeof m === "object" && m !== null ? (m as Meta) : {};
}

interface Comprehension {
  readonly node: CelNode;
  readonly iterable: CelNode;
  readonly init: CelNode;
  readonly step: CelNode;
  readonly iterVar: string;
  /** `map`/`filter` produce a list of up to one item per iteration; quantifiers a bool. */
  readonly producesList: boolean;
}

function comprehensionOf(node: CelNode): Comprehension | undefined {
  const alt = metaOf(node).alternate;
  if (!isCelNode(alt) || alt.op !== "comprehension") return undefined;
  const a = alt.args as { readonly iterable?: unknown; readonly init?: unknown; readonly step?: unknown; readonly iterVarName?: unknown; readonly kind?: unknown };
  if (!isCelNode(a.iterable) || !isCelNode(a.init) || !isCelNode(a.step) || typeof a.iterVarName !== "string") return undefined;
  return { node, iterable: a.iterable, init: a.init, step: a.step, iterVar: a.iterVarName, producesList: a.kind !== "quantifier" };
}

interface Bind {
  readonly name: string;
  readonly val: CelNode;
  readonly exp: CelNode;
}

/** `cel.bind(name, val, exp)`: cel-js keeps the three in the node's macro. */
function bindOf(node: CelNode): Bind | undefined {
  if (node.op !== "rcall") return undefined;
  const m = metaOf(node).macro as { readonly var?: unknown; readonly val?: unknown; readonly exp?: unknown } | undefined;
  if (typeof m !== "object" || m === null || typeof m.var !== "string" || !isCelNode(m.val) || !isCelNode(m.exp)) return undefined;
  return { name: m.var, val: m.val, exp: m.exp };
}

/** The nodes a node evaluates, macros' arguments included (a comprehension is handled apart). */
function childrenOf(node: CelNode, extensionArgs: ExtensionArgs): readonly CelNode[] {
  // Only calls have extension arguments (extensions.ts, desugar): other nodes skip the lookup.
  if (node.op === "call" || node.op === "rcall") {
    const ext = extensionArgs.get(node);
    if (ext) return ext;
  }
  return syntacticChildren(node);
}

/** The name of a call (`size`, `join`, `matches`…), or `undefined` for other nodes. */
function callName(node: CelNode): string | undefined {
  if (node.op !== "call" && node.op !== "rcall") return undefined;
  const a = node.args;
  return Array.isArray(a) && typeof a[0] === "string" ? a[0] : undefined;
}

/** A call cel-js runs through a handler or an extension's invoker (not a macro: `has`, `all`, `cel.bind`…). */
function isFunctionCall(node: CelNode, extensionArgs: ExtensionArgs): boolean {
  if (node.op !== "call" && node.op !== "rcall") return false;
  if (extensionArgs.has(node)) return true;
  const meta = metaOf(node);
  return meta.macro === undefined && meta.alternate === undefined;
}

const typeName = (node: CelNode): string => node.checkedType?.name ?? "dyn";

function isSized(type: string): boolean {
  return type === "string" || type === "bytes" || type === "dyn" || type.startsWith("list") || type.startsWith("map");
}

const isText = (type: string): boolean => type === "string" || type === "bytes";

function elementType(type: string): string {
  return type.startsWith("list<") && type.endsWith(">") ? type.slice(5, -1) : "dyn";
}

/** `K` and `V` of `map<K, V>` (split at the top-level comma), or `undefined`. */
function mapTypes(type: string): readonly [string, string] | undefined {
  if (!type.startsWith("map<") || !type.endsWith(">")) return undefined;
  const inner = type.slice(4, -1);
  let depth = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner.charAt(i);
    if (c === "<") depth++;
    else if (c === ">") depth--;
    else if (c === "," && depth === 0) return [inner.slice(0, i).trim(), inner.slice(i + 1).trim()];
  }
  return undefined;
}

/**
 * Units for touching a value of this size: list items count one each, string characters a tenth.
 * A value of unknown type (`dyn`: a profile or attribute value, an element of one) is counted as a
 * string, the type such values nearly always have: counted as a 1,000-item list, any comprehension
 * over a profile list (`subject.profile.groups.exists(g, g == "admins")`) was estimated over the
 * limit and refused at save. The runtime budget still charges what the value really is.
 */
function unitsOf(type: string, size: number): number {
  return type === "string" || type === "bytes" || type === "dyn" ? Math.ceil(size / CHARS_PER_UNIT) : size;
}
// ---------------------------------------------------------------------------------------------
// Static estimate

/**
 * A static cost estimate: the worst-case cost of the whole expression, and the smallest
 * sub-expression that carries most of it (the one to rewrite).
 *
 * @example
 * ```ts
 * const e: CostEstimate = { cost: 1_002_002_001, span: { start: 0, end: 12000 }, text: "[1, …].all(x, …)" };
 * ```
 */
export interface CostEstimate {
  /** Worst-case units (see {@link WORST_CASE_SIZES}); may exceed 2^53 only in magnitude, never NaN. */
  readonly cost: number;
  /** The sub-expression responsible for most of the cost. */
  readonly span: Span;
  readonly text: string;
}

/** The worst-case shape of a value. */
interface Shape {
  /** List items, map entries or string characters. */
  readonly size: number;
  /** Units to visit all of it, nested values included (what `==` may walk): its own, and each element's. */
  readonly deep: number;
  /** The shape of one element (list items, map values) when known; else the element type's. */
  readonly elem: Shape | undefined;
}

interface Est extends Shape {
  readonly cost: number;
  readonly node: CelNode;
  readonly parts: readonly Est[];
}

const CAP = Number.MAX_SAFE_INTEGER;
const add = (...xs: number[]): number => Math.min(CAP, xs.reduce((a, b) => a + b, 0));
const mul = (a: number, b: number): number => Math.min(CAP, a * b);

const SCALAR: Shape = Object.freeze({ size: 0, deep: 0, elem: undefined });

const typeShapes = new Map<string, Shape>();

/** The worst-case shape of a value of a type only the input knows (see {@link WORST_CASE_SIZES}). */
function shapeOfType(type: string): Shape {
  const known = typeShapes.get(type);
  if (known) return known;
  const { list, string } = WORST_CASE_SIZES;
  let shape: Shape;
  if (type === "string" || type === "bytes" || type === "dyn") shape = { size: string, deep: unitsOf(type, string), elem: undefined };
  else if (type.startsWith("list")) {
    const e = shapeOfType(elementType(type));
    shape = { size: list, deep: add(list, mul(list, e.deep)), elem: undefined };
  } else if (type.startsWith("map")) {
    const kv = mapTypes(type);
    const deep = kv ? add(shapeOfType(kv[0]).deep, shapeOfType(kv[1]).deep) : unitsOf("dyn", string);
    shape = { size: list, deep: add(list, mul(list, deep)), elem: undefined };
  } else shape = SCALAR;
  if (typeShapes.size < 10_000) typeShapes.set(type, shape);
  return shape;
}

/** The shape of one element of a value of `type` with shape `s` (list items, map values). */
function elemOf(s: Shape, type: string): Shape {
  if (s.elem) return s.elem;
  const kv = mapTypes(type);
  return shapeOfType(kv ? kv[1] : elementType(type));
}

/** The larger of two shapes, part by part. */
function maxShape(a: Shape, b: Shape): Shape {
  if (a === b) return a;
  const elem = a.elem && b.elem ? maxShape(a.elem, b.elem) : (a.elem ?? b.elem);
  return { size: Math.max(a.size, b.size), deep: Math.max(a.deep, b.deep), elem };
}

/** The shape alone (an estimate also carries its cost and node, which a variable's reads must not inherit). */
const shapeOnly = (s: Shape): Shape => ({ size: s.size, deep: s.deep, elem: s.elem });

/** A string (or bytes) value of `size` characters. */
const text = (size: number): Shape => ({ size, deep: Math.ceil(Math.min(CAP, size) / CHARS_PER_UNIT), elem: undefined });

/**
 * The static worst-case cost of a checked expression.
 *
 * @example
 * ```ts
 * estimateCost(compiled.root, compiled.extensionArgs).cost; // 106 for `subject.department == "IT"` (a 1,000-character department read)
 * ```
 */
export function estimateCost(root: CelNode, extensionArgs: ExtensionArgs, limit: number = DEFAULT_CEL_COST_LIMIT): CostEstimate {
  const top = estimate(root, new Map(), extensionArgs);
  let at = top;
  // Over the limit: the smallest sub-expression over it on its own (a loop whose single iteration
  // is cheap is itself responsible). Otherwise the smallest carrying at least half the cost.
  const over = top.cost > limit;
  for (;;) {
    let best: Est | undefined;
    for (const p of at.parts) if (!best || p.cost > best.cost) best = p;
    if (!best || (over ? best.cost <= limit : best.cost * 2 < at.cost)) break;
    at = best;
  }
  const n = at.node;
  return { cost: top.cost, span: { start: n.start, end: n.end }, text: n.input.slice(n.start, n.end) };
}

function estimate(node: CelNode, vars: ReadonlyMap<string, Shape>, extensionArgs: ExtensionArgs): Est {
  const e = shape(node, vars, extensionArgs);
  // Producing (or reading) a string, list or map costs its size, as the meter charges it.
  const type = typeName(node);
  return isSized(type) && !MACHINERY.has(node.op) ? { ...e, cost: add(e.cost, unitsOf(type, e.size)) } : e;
}

/** The estimate of the value a `map`/`filter` step pushes (its `accuPush` argument), found among the step's parts. */
function pushed(step: Est): Est | undefined {
  const queue: Est[] = [step];
  for (let i = 0; i < queue.length && i < 64; i++) {
    const e = queue[i] as Est;
    if (e.node.op === "accuPush") return e.parts[0];
    queue.push(...e.parts);
  }
  return undefined;
}

function shape(node: CelNode, vars: ReadonlyMap<string, Shape>, extensionArgs: ExtensionArgs): Est {
  const type = typeName(node);
  const comp = comprehensionOf(node);
  if (comp) {
    const iterable = estimate(comp.iterable, vars, extensionArgs);
    const init = estimate(comp.init, vars, extensionArgs);
    const inner = new Map(vars);
    inner.set(comp.iterVar, shapeOnly(elemOf(iterable, typeName(comp.iterable))));
    // The step itself is the macro's machinery (it returns the accumulator, as `costPlan` says): its
    // nodes are charged, not the accumulated list it hands back each iteration.
    const step = shape(comp.step, inner, extensionArgs);
    const loop = mul(iterable.size, add(step.cost, 1));
    const cost = add(1, iterable.cost, init.cost, loop);
    if (!comp.producesList) return { cost, ...SCALAR, node, parts: [iterable, step] };
    const push = pushed(step);
    const item: Shape = push ? shapeOnly(push) : shapeOfType(elementType(type));
    return { cost, size: iterable.size, deep: add(iterable.size, mul(iterable.size, item.deep)), elem: item, node, parts: [iterable, step] };
  }
  const bind = bindOf(node);
  if (bind) {
    // The variable has the shape of its value: a value doubled at each of thirty binds is estimated
    // at its size, not at an input list's.
    const val = estimate(bind.val, vars, extensionArgs);
    const inner = new Map(vars);
    inner.set(bind.name, shapeOnly(val));
    const exp = estimate(bind.exp, inner, extensionArgs);
    return { cost: add(1, val.cost, exp.cost), ...shapeOnly(exp), node, parts: [val, exp] };
  }
  const parts = childrenOf(node, extensionArgs).map((c) => estimate(c, vars, extensionArgs));
  const cost = add(1, ...parts.map((p) => p.cost));
  const a = node.args;
  const own = (s: Shape, extra = 0): Est => ({ cost: add(cost, extra), size: s.size, deep: s.deep, elem: s.elem, node, parts });
  switch (node.op) {
    case "value": {
      const size = typeof a === "string" ? a.length : a instanceof Uint8Array ? a.length : 0;
      return { cost: 1, ...text(size), node, parts };
    }
    case "id": {
      const known = typeof a === "string" ? vars.get(a) : undefined;
      return { cost: 1, ...shapeOnly(known ?? shapeOfType(type)), node, parts };
    }
    case "list": {
      let elem: Shape | undefined;
      for (const p of parts) elem = elem ? maxShape(elem, p) : p;
      return own({ size: parts.length, deep: add(parts.length, ...parts.map((p) => p.deep)), elem: elem && shapeOnly(elem) });
    }
    case "map": {
      let elem: Shape | undefined;
      for (let i = 1; i < parts.length; i += 2) elem = elem ? maxShape(elem, parts[i] as Est) : parts[i];
      return own({ size: parts.length / 2, deep: add(parts.length / 2, ...parts.map((p) => p.deep)), elem: elem && shapeOnly(elem) });
    }
    case "?:": {
      const [c, l, r] = parts;
      const s = l && r ? maxShape(l, r) : SCALAR;
      return { cost: add(1, c?.cost ?? 0, Math.max(l?.cost ?? 0, r?.cost ?? 0)), size: s.size, deep: s.deep, elem: s.elem, node, parts };
    }
    case "+": {
      if (!isSized(type)) return own(SCALAR);
      const [l, r] = parts;
      if (!l || !r) return own(shapeOfType(type));
      // Charged by the size of the result (which `estimate` adds for a sized node).
      if (isText(type)) return own(text(add(l.size, r.size)));
      const elem = shapeOnly(maxShape(elemOf(l, typeName(l.node)), elemOf(r, typeName(r.node))));
      return own({ size: add(l.size, r.size), deep: add(l.deep, r.deep), elem });
    }
    case "[]":
    case "[?]":
    case ".":
    case ".?": {
      const base = parts[0];
      const baseType = base ? typeName(base.node) : "dyn";
      // An element of a list or map whose shape is known (a literal, a bound variable); a message's field by its type.
      if (base?.elem && (baseType.startsWith("list") || baseType.startsWith("map") || baseType === "dyn")) return own(shapeOnly(base.elem));
      return own(shapeOfType(type));
    }
    case "==":
    case "!=":
    case "<":
    case "<=":
    case ">":
    case ">=": {
      const [l, r] = parts;
      // The elements the comparison may visit: the smaller side, nested values included.
      const visits = l && r && (isSized(typeName(l.node)) || isSized(typeName(r.node))) ? Math.min(l.deep, r.deep) : 0;
      return own(SCALAR, visits);
    }
    case "in": {
      const [l, r] = parts;
      if (!l || !r) return own(SCALAR);
      const collType = typeName(r.node);
      if (collType.startsWith("map")) return own(SCALAR);
      // Each element compared with the needle, nested values included.
      const e = elemOf(r, collType);
      return own(SCALAR, mul(r.size, add(1, Math.min(l.deep, e.deep))));
    }
    case "call":
    case "rcall": {
      if (!isFunctionCall(node, extensionArgs)) return own(shapeOfType(type));
      return callEstimate(node, type, parts, cost, extensionArgs);
    }
    default:
      return own(shapeOfType(type));
  }
}

/** A function call: its arguments' sizes (the work of reading them), what it builds, and the shape of its result. */
function callEstimate(node: CelNode, type: string, parts: readonly Est[], cost: number, extensionArgs: ExtensionArgs): Est {
  const name = callName(node);
  const operands = add(...parts.map((p) => unitsOf(typeName(p.node), p.size)));
  const est = (s: Shape, extra: number): Est => ({ cost: add(cost, operands, extra), size: s.size, deep: s.deep, elem: s.elem, node, parts });
  const [first, second, third] = parts;
  if (extensionArgs.has(node)) {
    if (name === "matches" && first && second) {
      const p = second.node;
      const literal = p.op === "value" && typeof p.args === "string";
      const weight = literal ? regexWeight(p.args as string) : Math.max(second.size, 1);
      return est(SCALAR, add(Math.ceil(mul(first.size, weight) / REGEX_STEPS_PER_UNIT), literal ? 0 : mul(REGEX_COMPILE_UNITS_PER_WEIGHT, weight)));
    }
    return est(shapeOfType(type), 0);
  }
  switch (name) {
    case "join": {
      // Every element's characters, plus a separator between each two.
      if (!first) break;
      const e = elemOf(first, typeName(first.node));
      const size = add(mul(first.size, e.size), mul(first.size, second?.size ?? 0));
      return est(text(size), first.deep);
    }
    case "split": {
      if (!first) break;
      // Up to one piece per character.
      return est({ size: add(first.size, 1), deep: add(first.size, 1, first.deep), elem: text(first.size) }, add(first.size, 1));
    }
    case "replace": {
      if (!first || !third) break;
      // Worst case: every character (or every boundary, for "") replaced.
      const size = add(first.size, mul(add(first.size, 1), third.size));
      return est(text(size), add(first.size, 1));
    }
    case "lowerAscii":
    case "upperAscii":
    case "trim":
    case "reverse":
    case "substring":
      if (first) return est(text(first.size), 0);
      break;
    case "ifEmpty":
      if (first && second) return est(text(Math.max(first.size, second.size)), 0);
      break;
    case "string":
    case "bytes":
      if (first && isText(typeName(first.node))) return est(text(first.size), 0);
      break;
    case "dyn":
      if (first) return est(shapeOnly(first), 0);
      break;
  }
  return est(shapeOfType(type), 0);
}

// ---------------------------------------------------------------------------------------------
// Runtime budget

/** The meter of the evaluation running now (evaluation is synchronous): what operators' handlers charge. */
const running: { meter: CostMeter | undefined } = { meter: undefined };

/** `CEL_RESOURCE_LIMITS.maxCostLimit`, read once: `start` runs on every evaluation. */
const MAX_COST_LIMIT = CEL_RESOURCE_LIMITS.maxCostLimit;

/**
 * The budget of one evaluation. Each compiled expression owns one meter (evaluation is
 * synchronous, so one evaluation uses it at a time); {@link CostMeter.start} resets it and makes it
 * the one the operators' handlers charge ({@link chargeActive}).
 *
 * @example
 * ```ts
 * meter.start(1_000_000);
 * run(context);
 * if (meter.error) throw meter.error; // CEL_COST_EXCEEDED, even if a `||` absorbed it
 * ```
 */
export class CostMeter {
  used = 0;
  limit = DEFAULT_CEL_COST_LIMIT;
  /** The first error of this evaluation's exhausted budget: sticky, whatever absorbed it. */
  error: EvaluationError | undefined = undefined;
  /** Units every evaluation costs before any loop: the expression's node count. */
  base = 0;

  /** Starts an evaluation with `limit` units, at most `CEL_RESOURCE_LIMITS.maxCostLimit`. */
  start(limit: number): void {
    this.limit = limit > MAX_COST_LIMIT ? MAX_COST_LIMIT : limit;
    this.error = undefined;
    this.used = this.base;
    running.meter = this;
    if (this.used > this.limit) this.exceed(undefined);
  }

  charge(units: number, node: CelNode): void {
    if ((this.used += units) > this.limit) this.exceed(node);
  }

  exceed(node: CelNode | undefined): never {
    const e = (this.error ??= new EvaluationError({
      code: "cost_exceeded",
      message: `evaluation cost exceeded the limit of ${this.limit} units${node ? " here" : " (the expression alone costs more)"}`,
      ...(node ? { node: errorAt(node) } : {}),
    }));
    throw e;
  }
}

/**
 * Charges the meter of the evaluation running now (none: nothing is charged).
 *
 * @example
 * ```ts
 * chargeActive(compareUnits(a, b), node); // before comparing a and b
 * ```
 */
export function chargeActive(units: number, node: CelNode): void {
  const m = running.meter;
  if (units > 0 && m !== undefined) m.charge(units, node);
}

type Evaluate = (ev: unknown, ast: unknown, scope: unknown) => unknown;

/**
 * Wraps a node's evaluation. cel-js's prototype `evaluate` picks the node's operator function on
 * first use and stores it on the node; the wrapper lets it, puts itself back, and then calls the
 * picked function directly (the tracer wraps the same way, on top of this).
 */
function wrapNode(node: CelNode, around: (inner: Evaluate, ev: unknown, ast: unknown, scope: unknown) => unknown): void {
  const initial = node.evaluate as Evaluate;
  let picked: Evaluate | undefined;
  const wrapper: Evaluate = (ev, ast, scope) => {
    if (picked !== undefined) return around(picked, ev, ast, scope);
    const first: Evaluate = (e, a, s) => {
      try {
        return initial.call(node, e, a, s);
      } finally {
        const own: unknown = node.evaluate;
        if (own !== wrapper && typeof own === "function") picked = own as Evaluate;
        node.evaluate = wrapper;
      }
    };
    return around(first, ev, ast, scope);
  };
  node.evaluate = wrapper;
}

/** Nodes counted once per evaluation of their step: all but nested loops' steps. */
function weight(node: CelNode, extensionArgs: ExtensionArgs): number {
  const comp = comprehensionOf(node);
  if (comp) return 1 + weight(comp.iterable, extensionArgs) + weight(comp.init, extensionArgs);
  let w = 1;
  for (const c of childrenOf(node, extensionArgs)) w += weight(c, extensionArgs);
  return w;
}

/**
 * What a node pays before it runs, from its evaluated operands: `units(left, right)` for an
 * operator, `units(values)` for a call (its arguments, the receiver first). `deep`: the operator
 * compares values that may nest (lists, maps), and pays for each nested one it visits as well.
 *
 * @example
 * ```ts
 * plan.pre.get(node)?.units("abc", "abd"); // 0: strings shorter than ten characters
 * ```
 */
export interface PreCharge {
  readonly units: (a: unknown, b?: unknown) => number;
  readonly deep: boolean;
}

/**
 * What one evaluation of an expression is charged, wherever it runs: the one rule both evaluators
 * follow (cel-js through {@link instrumentCost}, the compiled closures of closures.ts directly).
 * - `base`: the expression's node count, charged when the evaluation starts;
 * - `steps`: per comprehension step node, the units charged each time it runs (one iteration);
 * - `sized`: the nodes whose value is charged by its size ({@link sizeUnits}) each time they
 *   produce one: inside a loop every string, list or map; everywhere, a function call's result;
 * - `pre`: the nodes charged before they run, by their operands ({@link PreCharge}): `+` of
 *   strings and lists, comparisons, `in`, function calls.
 * Both evaluators evaluate the same nodes on a plain run (closures.ts keeps cel-js's order and
 * short circuits), so they charge the same total and run out at the same point.
 *
 * @example
 * ```ts
 * const plan = costPlan(ast, extensionArgs);
 * plan.steps.get(stepNode); // units per iteration
 * ```
 */
export interface CostPlan {
  readonly base: number;
  readonly steps: ReadonlyMap<CelNode, { readonly units: number; readonly comprehension: CelNode }>;
  readonly sized: ReadonlySet<CelNode>;
  readonly pre: ReadonlyMap<CelNode, PreCharge>;
}

/**
 * The {@link CostPlan} of a checked expression.
 *
 * @example
 * ```ts
 * costPlan(ast, extensionArgs).base; // 3 for `subject.department == "IT"`
 * ```
 */
export function costPlan(root: CelNode, extensionArgs: ExtensionArgs): CostPlan {
  const steps = new Map<CelNode, { readonly units: number; readonly comprehension: CelNode }>();
  const sized = new Set<CelNode>();
  const pre = new Map<CelNode, PreCharge>();
  // Returns the node's weight (see `weight`), so the base needs no second walk.
  const visit = (node: CelNode, inLoop: boolean, parentOp: string): number => {
    const comp = comprehensionOf(node);
    if (comp) {
      const w = 1 + visit(comp.iterable, inLoop, "comprehension") + visit(comp.init, inLoop, "comprehension");
      steps.set(comp.step, { units: weight(comp.step, extensionArgs), comprehension: node });
      // The step itself and the accumulator nodes are the macro's machinery: they return the
      // accumulated list, whose growth the iterations already pay for.
      for (const c of childrenOf(comp.step, extensionArgs)) visit(c, true, comp.step.op);
      return w;
    }
    const p = preChargeOf(node, extensionArgs, inLoop);
    if (p) pre.set(node, p);
    // `+` pays for its result before it runs.
    if (isSized(typeName(node)) && !MACHINERY.has(node.op) && !(p && node.op === "+")) {
      if (inLoop ? parentOp !== "." && parentOp !== ".?" : isFunctionCall(node, extensionArgs)) sized.add(node);
    }
    let w = 1;
    for (const c of childrenOf(node, extensionArgs)) w += visit(c, inLoop, node.op);
    return w;
  };
  const base = visit(root, false, "");
  return { base, steps, sized, pre };
}

const COMPARISONS: ReadonlySet<string> = new Set(["==", "!=", "<", "<=", ">", ">="]);

/** The comparisons that walk nested values. */
const COMPARE_DEEP: ReadonlySet<string> = new Set(["==", "!="]);

/** The {@link PreCharge} of a node, or `undefined` when its work does not grow with its operands. */
function preChargeOf(node: CelNode, extensionArgs: ExtensionArgs, inLoop: boolean): PreCharge | undefined {
  const op = node.op;
  if (op === "+") return isSized(typeName(node)) ? { units: operandUnits, deep: false } : undefined;
  if (COMPARISONS.has(op) || op === "in") {
    const [l, r] = syntacticChildren(node);
    if (!l || !r) return undefined;
    const lt = typeName(l);
    const rt = typeName(r);
    if (op !== "in" && !isSized(lt) && !isSized(rt)) return undefined;
    // Outside a loop, comparing with a literal (`x == "Engineering"`, `x in ["IT", "Eng"]`) does at
    // most as much work as the literal's own characters: bounded by the expression's text, once.
    if (!inLoop && (op === "in" ? literalList(r) : isLiteral(l) || isLiteral(r))) return undefined;
    // Nested lists and maps are compared one by one: each pays as it is visited.
    const deep = op === "in" ? container(lt) || holdsContainers(rt) : COMPARE_DEEP.has(op) && (holdsContainers(lt) || holdsContainers(rt));
    // The elements of a list literal are nodes, which the base counts: only a long needle pays.
    const listLiteral = r.op === "list" && !isMacroNode(r);
    return { units: op !== "in" ? compareUnits : listLiteral ? literalMembershipUnits : membershipUnits, deep };
  }
  if (!isFunctionCall(node, extensionArgs)) return undefined;
  const name = callName(node);
  const ext = extensionArgs.get(node);
  if (ext) {
    if (name === "matches" && ext.length === 2) {
      const p = ext[1];
      const w = p?.op === "value" && typeof p.args === "string" ? regexWeight(p.args) : undefined;
      return { units: (values) => regexUnits(values, w), deep: false };
    }
    return argumentsCharge(ext, inLoop);
  }
  switch (name) {
    case "startsWith":
    case "endsWith": {
      // Outside a loop, testing for a literal reads no more than the literal (see comparisons above).
      const arg = syntacticChildren(node)[1];
      if (!inLoop && arg !== undefined && isLiteral(arg)) return undefined;
      break;
    }
    case "join":
      return { units: joinUnits, deep: false };
    case "split":
      return { units: splitUnits, deep: false };
    case "replace":
      return { units: replaceUnits, deep: false };
    case "size":
      // A list's, a map's or bytes' size is known at once; a string's counts its code points.
      return { units: sizeCallUnits, deep: false };
  }
  return argumentsCharge(syntacticChildren(node), inLoop);
}

const isMacroNode = (n: CelNode): boolean => metaOf(n).alternate !== undefined || metaOf(n).macro !== undefined;

/** A literal written in the expression (not a constant such as an enum, which cel-js keeps in `meta`). */
const isLiteral = (n: CelNode): boolean => n.op === "value" && !isMacroNode(n);

/**
 * A list literal each of whose items compares in a bounded time: literals (`["IT", "Eng"]`) and
 * values that are no string, list or map (`[TaskOrigin.SLACK, TaskOrigin.API]`).
 */
const literalList = (n: CelNode): boolean => n.op === "list" && !isMacroNode(n) && syntacticChildren(n).every((x) => isLiteral(x) || !isSized(typeName(x)));

/**
 * A call's arguments that may be strings, lists or maps, each by its size; `undefined` when none may
 * be. Outside a loop a literal argument is left out: reading it costs what its text does, once.
 */
function argumentsCharge(args: readonly CelNode[], inLoop: boolean): PreCharge | undefined {
  const at: number[] = [];
  args.forEach((a, i) => {
    if (isSized(typeName(a)) && (inLoop || !isLiteral(a))) at.push(i);
  });
  if (at.length === 0) return undefined;
  if (at.length === args.length) return { units: valuesUnits, deep: false };
  return {
    units: (values) => {
      if (!Array.isArray(values)) return 0;
      let u = 0;
      for (const i of at) u += sizeUnits(values[i]);
      return u;
    },
    deep: false,
  };
}

/** Whether a value of this type may be a list or a map. */
const container = (type: string): boolean => type === "dyn" || type.startsWith("list") || type.startsWith("map");

/** Whether a value of this type may hold lists or maps (whose comparison visits them one by one). */
function holdsContainers(type: string): boolean {
  if (type === "dyn") return true;
  if (type.startsWith("list")) return container(elementType(type));
  if (type.startsWith("map")) {
    const kv = mapTypes(type);
    return kv === undefined || container(kv[1]);
  }
  return false;
}

/**
 * Units for a value a charged node produced: list items and map entries one each, string and
 * bytes characters a tenth (rounded down); other values (numbers, messages) nothing.
 *
 * @example
 * ```ts
 * sizeUnits("a".repeat(25)); // 2
 * sizeUnits({ a: 1, b: 2 }); // 2
 * ```
 */
export function sizeUnits(v: unknown): number {
  if (typeof v === "string") return (v.length / CHARS_PER_UNIT) | 0;
  if (typeof v !== "object" || v === null) return 0;
  if (Array.isArray(v)) return v.length;
  if (v instanceof Map || v instanceof Set) return v.size;
  if (v instanceof Uint8Array) return (v.length / CHARS_PER_UNIT) | 0;
  // A map as cel-js makes one (a plain object); not a message.
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null ? Object.keys(v).length : 0;
}

const textUnits = (v: unknown): number => (typeof v === "string" ? (v.length / CHARS_PER_UNIT) | 0 : 0);

/**
 * Units of two operands read in full: `a + b` (the size of its result), `s.contains(t)`.
 *
 * @example
 * ```ts
 * operandUnits("a".repeat(20), [1, 2]); // 4
 * ```
 */
export function operandUnits(a: unknown, b: unknown): number {
  return sizeUnits(a) + sizeUnits(b);
}

/**
 * Units to compare two values (`==`, `!=`, `<`…) before nested values: two strings (or bytes) by
 * the shorter one's characters, two lists or maps by the smaller one's elements; others nothing.
 * A string literal shorter than ten characters therefore costs nothing to compare with.
 *
 * @example
 * ```ts
 * compareUnits("a".repeat(50), "a".repeat(30)); // 3
 * compareUnits([1, 2, 3], [1, 2]); // 2
 * ```
 */
export function compareUnits(a: unknown, b: unknown): number {
  if (typeof a === "string") return typeof b === "string" ? ((a.length < b.length ? a.length : b.length) / CHARS_PER_UNIT) | 0 : 0;
  if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) return 0;
  const x = sizeUnits(a);
  return x === 0 ? 0 : Math.min(x, sizeUnits(b));
}

/**
 * Units of `x in coll` before nested values: a list's elements, each compared with `x` (a string
 * needle by its characters too); a map's lookup nothing.
 *
 * @example
 * ```ts
 * membershipUnits("IT", ["IT", "Eng"]); // 2
 * ```
 */
export function membershipUnits(x: unknown, coll: unknown): number {
  return membershipOfCount(x, Array.isArray(coll) ? coll.length : coll instanceof Set ? coll.size : 0);
}

/** {@link membershipUnits} of a list of `n` elements. */
function membershipOfCount(x: unknown, n: number): number {
  return n === 0 ? 0 : n * (1 + textUnits(x));
}

/**
 * {@link membershipUnits} when the list is a literal (`x in ["a", "b"]`): its elements are nodes,
 * which the base already counts, so only a needle of ten characters or more pays, per element.
 *
 * @example
 * ```ts
 * literalMembershipUnits("IT", ["IT", "Eng"]); // 0
 * ```
 */
export function literalMembershipUnits(x: unknown, coll: unknown): number {
  const n = Array.isArray(coll) ? coll.length : 0;
  return n * textUnits(x);
}

/**
 * What the shapes the compiled closures and the generated code write out themselves (instead of
 * calling cel-js's handler) use to pay their node's {@link PreCharge}: the same units, on the
 * meter of the evaluation running now.
 *
 * @example
 * ```ts
 * FAST_PATH_CHARGES.charge(plan.pre.get(node).units(a, b), node); // before `a === b` of two strings
 * ```
 */
export const FAST_PATH_CHARGES = Object.freeze({
  charge: chargeActive,
  /** `s.startsWith(t)` and the like on two strings: the call's units ({@link PreCharge} of a call on `[s, t]`). */
  operands: operandUnits,
  /** `x in [n literal items]` ({@link literalMembershipUnits}), its items written into the code. */
  literalMembership: (x: unknown, n: number, node: CelNode): void => chargeActive(n * textUnits(x), node),
});

/** A call's arguments: each one's size. */
function valuesUnits(values: unknown): number {
  if (!Array.isArray(values)) return 0;
  let u = 0;
  for (const v of values) u += sizeUnits(v);
  return u;
}

/** `size(x)`: a string's code points are counted (a tenth of a unit each), a plain map's keys; other sizes are known at once. */
function sizeCallUnits(values: unknown): number {
  const v: unknown = Array.isArray(values) ? values[0] : undefined;
  if (typeof v === "string") return textUnits(v);
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Map) && !(v instanceof Set) && !(v instanceof Uint8Array) ? sizeUnits(v) : 0;
}

/** `list.join(sep)`: the list, and the characters of the string it builds. */
function joinUnits(values: unknown): number {
  if (!Array.isArray(values)) return 0;
  const [list, sep] = values as unknown[];
  if (!Array.isArray(list)) return 0;
  let chars = 0;
  for (const e of list) if (typeof e === "string") chars += e.length;
  if (typeof sep === "string") chars += sep.length * list.length;
  // Not `| 0`: the characters of what would be built may be far beyond 2^31.
  return list.length + Math.floor(chars / CHARS_PER_UNIT);
}

/** `s.split(sep)`: the string, and up to one piece per separator (per character for ""). */
function splitUnits(values: unknown): number {
  if (!Array.isArray(values)) return 0;
  const [s, sep] = values as unknown[];
  if (typeof s !== "string") return 0;
  const pieces = typeof sep === "string" && sep.length > 0 ? ((s.length / sep.length) | 0) + 1 : s.length + 1;
  return textUnits(s) + pieces;
}

/** `s.replace(a, b[, n])`: the string, its pieces and the characters of the result, counted before it is built. */
function replaceUnits(values: unknown): number {
  if (!Array.isArray(values)) return 0;
  const [s, a, b, n] = values as unknown[];
  if (typeof s !== "string" || typeof a !== "string" || typeof b !== "string") return valuesUnits(values);
  // Every occurrence splits the string (environment.ts), however many are replaced.
  let found = 0;
  if (a === "") found = s.length + 1;
  else for (let i = s.indexOf(a); i >= 0; i = s.indexOf(a, i + a.length)) found++;
  const replaced = typeof n === "bigint" && n >= 0n && n < BigInt(found) ? Number(n) : found;
  const result = s.length + replaced * (b.length - a.length);
  return textUnits(s) + textUnits(a) + textUnits(b) + found + Math.floor(Math.max(0, result) / CHARS_PER_UNIT);
}

/**
 * `matches(s, pattern)`: its arguments, then matching (the subject's characters times the pattern's
 * weight, a unit per four such steps), and for a pattern built at run time compiling it (eight units
 * per unit of weight, whether or not the cache has it). A pattern over the weight limit pays its
 * arguments only: compiling refuses it.
 */
function regexUnits(values: unknown, literalWeight: number | undefined): number {
  if (!Array.isArray(values)) return 0;
  const [s, p] = values as unknown[];
  const operands = textUnits(s) + textUnits(p);
  // Longer than the limit: compiling refuses it without reading it through.
  if (typeof s !== "string" || typeof p !== "string" || p.length > CEL_RESOURCE_LIMITS.maxRegexWeight) return operands;
  const w = literalWeight ?? regexWeight(p);
  if (w > CEL_RESOURCE_LIMITS.maxRegexWeight) return operands;
  return operands + Math.ceil((s.length * w) / REGEX_STEPS_PER_UNIT) + (literalWeight === undefined ? REGEX_COMPILE_UNITS_PER_WEIGHT * w : 0);
}

// ---------------------------------------------------------------------------------------------
// Nested comparisons

/** The node whose comparison the counting evaluators charge for now. */
let comparing: CelNode | undefined;

const countingEvaluators = new WeakMap<object, unknown>();

/**
 * cel-js's evaluator as `==` and `in` receive it, but paying one unit, plus the size of the value,
 * for every value its equality looks at: cel-js compares nested lists and maps by asking the
 * evaluator each element's type (`isEqual`, overloads.js), so a comparison of two trees built
 * apart pays for every element it visits instead of running for minutes.
 */
function countingEvaluator(ev: unknown): unknown {
  if (typeof ev !== "object" || ev === null) return ev;
  const known = countingEvaluators.get(ev);
  if (known !== undefined) return known;
  const debugType: unknown = (ev as { readonly debugType?: unknown }).debugType;
  const debugTypeDeep: unknown = (ev as { readonly debugTypeDeep?: unknown }).debugTypeDeep;
  if (typeof debugType !== "function" || typeof debugTypeDeep !== "function") return ev;
  const counting: unknown = Object.create(ev, {
    debugType: {
      value(this: unknown, v: unknown): unknown {
        const m = running.meter;
        if (m !== undefined && comparing !== undefined) m.charge(1 + sizeUnits(v), comparing);
        return (debugType as (v: unknown) => unknown).call(this, v);
      },
    },
    // It reads the evaluator's private members, which only the evaluator itself has; it follows
    // first elements only, so what it visits is not worth counting.
    debugTypeDeep: {
      value(v: unknown): unknown {
        return (debugTypeDeep as (v: unknown) => unknown).call(ev, v);
      },
    },
  });
  countingEvaluators.set(ev, counting);
  return counting;
}

type Handler = (...args: unknown[]) => unknown;

/** Nodes whose handler (or extension invoker) charges already: an AST is instrumented once. */
const charging = new WeakSet<CelNode>();

/** Puts a node's {@link PreCharge} in front of the handler cel-js stored on it, which the closures call too. */
function chargeBeforeHandler(node: CelNode, p: PreCharge, extensionArgs: ExtensionArgs): void {
  if (charging.has(node)) return;
  charging.add(node);
  const units = p.units;
  if (extensionArgs.has(node)) {
    if (extensionInvoker(node) === undefined) return;
    wrapExtensionInvoker(node, (inner) => (values, rt) => {
      chargeActive(units(values), node);
      return inner(values, rt);
    });
    return;
  }
  const target = node as unknown as { handle?: unknown };
  const h = target.handle;
  if (typeof h !== "function") return;
  const inner = h as Handler;
  if (node.op === "call") {
    // cel-js: `handle(values, ast, ev)`.
    target.handle = (values: unknown, ast: unknown, ev: unknown) => (chargeActive(units(values), node), inner(values, ast, ev));
  } else if (node.op === "rcall") {
    // cel-js: `handle([receiver, ...args], ev, ast)`.
    target.handle = (values: unknown, ev: unknown, ast: unknown) => (chargeActive(units(values), node), inner(values, ev, ast));
  } else if (p.deep) {
    target.handle = (l: unknown, r: unknown, ast: unknown, ev: unknown) => {
      chargeActive(units(l, r), node);
      comparing = node;
      return inner(l, r, ast, countingEvaluator(ev));
    };
  } else {
    target.handle = (l: unknown, r: unknown, ast: unknown, ev: unknown) => (chargeActive(units(l, r), node), inner(l, r, ast, ev));
  }
}

/**
 * Instruments a checked expression so that every evaluation by cel-js charges `meter` as its
 * {@link costPlan} says: comprehension steps per iteration, the nodes of `sized` by the size of
 * their value, and the nodes of `pre` before their handler runs (the closures call the same
 * handlers, so they charge alike).
 *
 * @example
 * ```ts
 * const meter = new CostMeter();
 * instrumentCost(ast, extensionArgs, meter);
 * ```
 */
export function instrumentCost(root: CelNode, extensionArgs: ExtensionArgs, meter: CostMeter, plan: CostPlan = costPlan(root, extensionArgs)): void {
  meter.base = plan.base;
  for (const [step, { units, comprehension }] of plan.steps) {
    wrapNode(step, (inner, ev, ast, scope) => {
      meter.charge(units, comprehension);
      return inner.call(step, ev, ast, scope);
    });
  }
  for (const node of plan.sized) {
    wrapNode(node, (inner, ev, ast, scope) => {
      const v = inner.call(node, ev, ast, scope);
      const units = sizeUnits(v);
      if (units > 0) meter.charge(units, node);
      return v;
    });
  }
  for (const [node, p] of plan.pre) chargeBeforeHandler(node, p, extensionArgs);
}
