/**
 * The cost of a CEL expression, in abstract units of work (roughly: one unit per node evaluated,
 * per list element or map entry touched, per ten characters of string touched).
 *
 * Two halves, one unit:
 * - a **static estimate** from the checked AST ({@link estimateCost}), with worst-case sizes for
 *   what only the input knows (Kubernetes' approach for CEL): `check` and `lint` report an
 *   expression whose estimate exceeds the limit, naming the sub-expression responsible;
 * - a **runtime budget** ({@link CostMeter}), counted deterministically while cel-js evaluates: the
 *   expression's node count once, then, inside comprehensions (CEL's only loops), every iteration's
 *   share of nodes and the size of every string, list or map a node there produces. When it runs
 *   out, the evaluation stops with `CEL_COST_EXCEEDED`.
 *
 * Why count this way: cel-js has no hook for counting, and wrapping every node would slow every
 * evaluation. Without a comprehension, an expression's work is bounded by its size (at most
 * 10,000 nodes) times its input's; only comprehensions multiply. So only comprehension steps and
 * the nodes inside them are instrumented, and conditions without one pay nothing per node.
 */
import { EvaluationError } from "@marcbachmann/cel-js";
import type { Span } from "./diagnostics.js";
import type { ExtensionArgs } from "./extensions.js";
import { errorAt, isCelNode, syntacticChildren, type CelNode } from "./internals.js";

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

/** Characters of string work per unit (Kubernetes charges 0.1 per byte). */
const CHARS_PER_UNIT = 10;

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

/** The nodes a node evaluates, macros' arguments included (a comprehension is handled apart). */
function childrenOf(node: CelNode, extensionArgs: ExtensionArgs): readonly CelNode[] {
  // Only calls have extension arguments (extensions.ts, desugar): other nodes skip the lookup.
  if (node.op === "call" || node.op === "rcall") {
    const ext = extensionArgs.get(node);
    if (ext) return ext;
  }
  return syntacticChildren(node);
}

const typeName = (node: CelNode): string => node.checkedType?.name ?? "dyn";

function isSized(type: string): boolean {
  return type === "string" || type === "bytes" || type === "dyn" || type.startsWith("list") || type.startsWith("map");
}

function worstSizeOf(type: string): number {
  if (type === "string" || type === "bytes") return WORST_CASE_SIZES.string;
  if (type === "dyn") return Math.max(WORST_CASE_SIZES.list, WORST_CASE_SIZES.string);
  if (type.startsWith("list") || type.startsWith("map")) return WORST_CASE_SIZES.list;
  return 0;
}

function elementType(type: string): string {
  return type.startsWith("list<") && type.endsWith(">") ? type.slice(5, -1) : "dyn";
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

interface Est {
  readonly cost: number;
  /** Worst-case size of the value: list items, map entries or string characters. */
  readonly size: number;
  /** For a list: worst-case size of one element. */
  readonly elem: number;
  readonly node: CelNode;
  readonly parts: readonly Est[];
}

const CAP = Number.MAX_SAFE_INTEGER;
const add = (...xs: number[]): number => Math.min(CAP, xs.reduce((a, b) => a + b, 0));
const mul = (a: number, b: number): number => Math.min(CAP, a * b);

/**
 * The static worst-case cost of a checked expression.
 *
 * @example
 * ```ts
 * estimateCost(compiled.root, compiled.extensionArgs).cost; // e.g. 7 for `subject.department == "IT"`
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

function estimate(node: CelNode, vars: ReadonlyMap<string, number>, extensionArgs: ExtensionArgs): Est {
  const e = shape(node, vars, extensionArgs);
  // Producing (or reading) a string, list or map costs its size, as the meter charges it.
  const type = typeName(node);
  return isSized(type) && !MACHINERY.has(node.op) ? { ...e, cost: add(e.cost, unitsOf(type, e.size)) } : e;
}

function shape(node: CelNode, vars: ReadonlyMap<string, number>, extensionArgs: ExtensionArgs): Est {
  const type = typeName(node);
  const comp = comprehensionOf(node);
  if (comp) {
    const iterable = estimate(comp.iterable, vars, extensionArgs);
    const init = estimate(comp.init, vars, extensionArgs);
    const inner = new Map(vars);
    inner.set(comp.iterVar, iterable.elem);
    // The step itself is the macro's machinery (it returns the accumulator, as `costPlan` says): its
    // nodes are charged, not the accumulated list it hands back each iteration.
    const step = shape(comp.step, inner, extensionArgs);
    const loop = mul(iterable.size, add(step.cost, 1));
    return {
      cost: add(1, iterable.cost, init.cost, loop),
      size: comp.producesList ? iterable.size : 0,
      elem: step.size,
      node,
      parts: [iterable, step],
    };
  }
  const parts = childrenOf(node, extensionArgs).map((c) => estimate(c, vars, extensionArgs));
  const cost = add(1, ...parts.map((p) => p.cost));
  const a = node.args;
  switch (node.op) {
    case "value": {
      const size = typeof a === "string" ? a.length : a instanceof Uint8Array ? a.length : 0;
      return { cost: 1, size, elem: 0, node, parts };
    }
    case "id": {
      const known = typeof a === "string" ? vars.get(a) : undefined;
      return { cost: 1, size: known ?? worstSizeOf(type), elem: worstSizeOf(elementType(type)), node, parts };
    }
    case "list":
      return { cost, size: parts.length, elem: Math.max(0, ...parts.map((p) => p.size)), node, parts };
    case "map":
      return { cost, size: parts.length / 2, elem: 0, node, parts };
    case "?:": {
      const [c, l, r] = parts;
      const size = Math.max(l?.size ?? 0, r?.size ?? 0);
      return { cost: add(1, c?.cost ?? 0, Math.max(l?.cost ?? 0, r?.cost ?? 0)), size, elem: Math.max(l?.elem ?? 0, r?.elem ?? 0), node, parts };
    }
    case "+":
      return { cost, size: isSized(type) ? add(...parts.map((p) => p.size)) : 0, elem: Math.max(0, ...parts.map((p) => p.elem)), node, parts };
    case "[]":
    case "[?]": {
      const base = parts[0];
      return { cost, size: base && base.elem > 0 ? base.elem : worstSizeOf(type), elem: worstSizeOf(elementType(type)), node, parts };
    }
    default:
      return { cost, size: worstSizeOf(type), elem: worstSizeOf(elementType(type)), node, parts };
  }
}

// ---------------------------------------------------------------------------------------------
// Runtime budget

/**
 * The budget of one evaluation. Each compiled expression owns one meter (evaluation is
 * synchronous, so one evaluation uses it at a time); {@link CostMeter.start} resets it.
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

  start(limit: number): void {
    this.limit = limit;
    this.error = undefined;
    this.used = this.base;
    if (this.used > limit) this.exceed(undefined);
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
 * What one evaluation of an expression is charged, wherever it runs: the one rule both evaluators
 * follow (cel-js through {@link instrumentCost}, the compiled closures of closures.ts directly).
 * - `base`: the expression's node count, charged when the evaluation starts;
 * - `steps`: per comprehension step node, the units charged each time it runs (one iteration);
 * - `sized`: the nodes inside a loop whose value is charged by its size ({@link sizeUnits}) each
 *   time they produce one.
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
    if (inLoop && !MACHINERY.has(node.op) && parentOp !== "." && parentOp !== ".?" && isSized(typeName(node))) sized.add(node);
    let w = 1;
    for (const c of childrenOf(node, extensionArgs)) w += visit(c, inLoop, node.op);
    return w;
  };
  const base = visit(root, false, "");
  return { base, steps, sized };
}

/**
 * Units for a value a charged node produced: list items and map entries one each, string and
 * bytes characters a tenth (rounded down).
 *
 * @example
 * ```ts
 * sizeUnits("a".repeat(25)); // 2
 * ```
 */
export function sizeUnits(v: unknown): number {
  if (typeof v === "string") return (v.length / CHARS_PER_UNIT) | 0;
  if (Array.isArray(v)) return v.length;
  if (v instanceof Map || v instanceof Set) return v.size;
  if (v instanceof Uint8Array) return (v.length / CHARS_PER_UNIT) | 0;
  return 0;
}

/**
 * Instruments a checked expression so that every evaluation by cel-js charges `meter` as its
 * {@link costPlan} says: comprehension steps per iteration, and inside them every node producing a
 * string, list or map by its size.
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
}
