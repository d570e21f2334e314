/**
 * The static half of a trace: for each compiled expression, once, a copy of its AST whose nodes
 * record what they return or throw, and a flat table of those nodes (kind, label, source text and
 * position, parent, depth, children), indexed by node id in pre-order. A traced evaluation then
 * writes only one slot per node into an array of that table's size; everything a reader shows is
 * derived from the table and those slots when it is read (see `trace-record.ts`).
 */
import { compileClosures, type Closure, type ClosureOptions } from "./closures.js";
import { compileFresh, type Compiled } from "./compile.js";
import { COST_LIMIT_KEY, CostMeter, costPlan, DEFAULT_CEL_COST_LIMIT } from "./cost.js";
import { SourceLines, type SourcePosition } from "./diagnostics.js";
import { celEnvironment } from "./environment.js";
import type { ExtensionArgs } from "./extensions.js";
import { generateRecording, type Recording } from "./generate.js";
import { isCelNode, qualifiedName, syntacticChildren, type CelNode } from "./internals.js";
import type { NotEvaluatedReason, TraceNodeKind } from "./trace.js";

/**
 * At most this many outcomes are kept per node evaluated more than once (inside a comprehension).
 *
 * @example
 * ```ts
 * node.iterations.length <= MAX_ITERATIONS; // true
 * ```
 */
export const MAX_ITERATIONS = 32;

/**
 * What a node threw, as stored in a slot. A class private to the tracer, so no CEL value can be
 * mistaken for it.
 *
 * @example
 * ```ts
 * if (slot instanceof Thrown) runtimeError(source, slot.error);
 * ```
 */
export class Thrown {
  constructor(readonly error: unknown) {}
}

/**
 * Stored in a slot for a node that returned `undefined`, so that an empty slot (`undefined`) always
 * means "not evaluated".
 *
 * @example
 * ```ts
 * const value = slot === UNDEFINED ? undefined : slot;
 * ```
 */
export const UNDEFINED: unique symbol = Symbol("undefined");

/**
 * Every outcome of a node evaluated more than once, in slot encoding (the first
 * {@link MAX_ITERATIONS}), and how many times it ran.
 *
 * @example
 * ```ts
 * const r: Repeat = { count: 2, list: [false, true] };
 * ```
 */
export interface Repeat {
  count: number;
  readonly list: unknown[];
}

/**
 * The nodes of a traced expression, by id (pre-order; the root is 0). Built once per compiled
 * expression and shared by all of its traces; read-only.
 *
 * @example
 * ```ts
 * const t = traceTableOf(compiled);
 * t?.texts[0]; // the whole expression
 * ```
 */
export class TraceTable {
  /** How many nodes (ids run from 0 to size − 1). */
  readonly size: number;
  readonly kinds: readonly TraceNodeKind[];
  /** The operator, function, field or identifier name. */
  readonly labels: readonly string[];
  /** The source text of each node. */
  readonly texts: readonly string[];
  /** Where each node is in the source (shared: copy before handing out). */
  readonly positions: readonly SourcePosition[];
  /** The enclosing node's id; -1 for the root. */
  readonly parents: readonly number[];
  /** Nesting depth (the root is 0). */
  readonly depths: readonly number[];
  /** Child ids in order. */
  readonly children: readonly (readonly number[])[];
  /** Why a node has no outcome when its parent has one: `&&`/`||` decided, branch not taken, … */
  readonly skipReasons: readonly NotEvaluatedReason[];
  /** The instrumented copy of the expression, whose nodes write into the running {@link RecordingTarget}. */
  readonly compiled: Compiled;
  /**
   * The same expression compiled to recording closures (closures.ts), when it compiles: the traced
   * run is then the compiled evaluation itself, with cel-js's instrumented copy only off its plain path.
   */
  readonly closure: Closure | undefined;
  /** @internal The recording function behind {@link closure}, called without its wrapper by {@link recordPlain}. */
  readonly recording: Recording | undefined;
  /** @internal The meter {@link recording} charges (started by {@link recordRun}). */
  readonly meter: CostMeter | undefined;
  /**
   * @internal Whether {@link recording} is generated code that hands no node to a closure: it then
   * charges no meter and writes only the slots it is given (see {@link recordPlain}).
   */
  readonly alone: boolean;

  /** @internal */
  constructor(compiled: Compiled, rows: Rows, closure: Closure | undefined, recording?: Recording, meter?: CostMeter, alone = false) {
    this.compiled = compiled;
    this.closure = closure;
    this.recording = recording;
    this.meter = meter;
    this.alone = alone;
    this.size = rows.kinds.length;
    this.kinds = rows.kinds;
    this.labels = rows.labels;
    this.texts = rows.texts;
    this.positions = rows.positions;
    this.parents = rows.parents;
    this.depths = rows.depths;
    this.children = rows.children;
    this.skipReasons = rows.skipReasons;
    Object.freeze(this);
  }
}

interface Rows {
  kinds: TraceNodeKind[];
  labels: string[];
  texts: string[];
  positions: SourcePosition[];
  parents: number[];
  depths: number[];
  children: number[][];
  skipReasons: NotEvaluatedReason[];
}

/**
 * What a traced run writes into: one slot per node id (`undefined`: not evaluated; a value, the
 * {@link UNDEFINED} marker, or a {@link Thrown}) and, only if some node ran more than once, the
 * repeats by id.
 *
 * @example
 * ```ts
 * const target: RecordingTarget = { [SLOTS]: new Array(table.size), [REPEATS]: null };
 * ```
 */
export interface RecordingTarget {
  readonly [SLOTS]: unknown[];
  [REPEATS]: (Repeat | undefined)[] | null;
}

/**
 * The keys of a {@link RecordingTarget}'s slots and repeats: symbols, so that a trace (which is its
 * own target, `trace-record.ts`) shows neither among its fields.
 *
 * @example
 * ```ts
 * const target: RecordingTarget = { [SLOTS]: new Array(table.size), [REPEATS]: null };
 * ```
 */
export const SLOTS: unique symbol = Symbol("slots");
/** See {@link SLOTS}. */
export const REPEATS: unique symbol = Symbol("repeats");

/**
 * Where the instrumented nodes write while a traced run is under way, `null` otherwise (then they
 * record nothing). Evaluation is synchronous, so one module-level target suffices; {@link recordRun}
 * saves and restores it, so even a traced run started from inside another stays separate. This
 * replaces a lookup of the recorder in the evaluation scope at every node.
 */
let current: RecordingTarget | null = null;

/**
 * What {@link recordPlain} returns when the recording function left its plain path (it threw:
 * BAIL, an error, the budget), or the expression has none: the caller evaluates in full.
 *
 * @example
 * ```ts
 * if (recordPlain(table, context, target) === OFF_PLAIN) recordRun(table, context, fresh);
 * ```
 */
export const OFF_PLAIN: unique symbol = Symbol("off the plain path");

/**
 * The recording function alone on a context, filling `target` (one slot per node id): what it
 * returned, or {@link OFF_PLAIN} (then `target` holds what was written before it left). It runs
 * under the budget the context carries, as the plain run does: an expression whose nodes alone
 * cost more, or a comprehension that runs out, leaves the plain path.
 *
 * @example
 * ```ts
 * const record = new TraceRecord(source, table);
 * const value = recordPlain(table, context, record); // true, false, … or OFF_PLAIN
 * ```
 */
export function recordPlain(table: TraceTable, context: object, target: RecordingTarget): unknown {
  const recording = table.recording;
  const meter = table.meter;
  if (recording === undefined || meter === undefined) return OFF_PLAIN;
  const limit = limitOf(context);
  if (table.compiled.baseCost > limit) return OFF_PLAIN;
  if (table.alone) {
    // Nothing in it charges the meter: its cost is its nodes', the base just checked.
    try {
      return recording(context as Readonly<Record<string, unknown>>, target[SLOTS]);
    } catch {
      return OFF_PLAIN;
    }
  }
  // The generated code writes its own nodes into the slots it is given; the closures it hands
  // nodes to (and the recording closures where code cannot be generated) record through `current`.
  const previous = current;
  current = target;
  try {
    meter.start(limit);
    return recording(context as Readonly<Record<string, unknown>>, target[SLOTS]);
  } catch {
    return OFF_PLAIN;
  } finally {
    current = previous;
  }
}

/**
 * Runs the instrumented copy of an expression on a context, filling `target` (one slot per node
 * id): its recording function ({@link recordPlain}), or cel-js's instrumented copy off that path.
 * Returns what the expression returned and throws what it threw.
 *
 * @example
 * ```ts
 * const target = { [SLOTS]: new Array<unknown>(table.size), [REPEATS]: null };
 * const value = recordRun(table, context, target);
 * ```
 */
export function recordRun(table: TraceTable, context: object, target: RecordingTarget): unknown {
  const value = recordPlain(table, context, target);
  if (value !== OFF_PLAIN) return value;
  // Off the closures' plain path: cel-js records the trace afresh, as for any interpreted one.
  target[SLOTS].fill(undefined);
  target[REPEATS] = null;
  const previous = current;
  current = target;
  try {
    return table.compiled.run(context);
  } catch (e: unknown) {
    // The budget ran out under an `||`, `&&` or quantifier that absorbed the error and answered
    // (compile.ts: the run fails all the same): the expression's value is the error, not that answer.
    const slots = target[SLOTS];
    if (slots[0] !== undefined && !(slots[0] instanceof Thrown)) slots[0] = new Thrown(e);
    throw e;
  } finally {
    current = previous;
  }
}

function limitOf(context: object): number {
  const limit: unknown = (context as Record<string, unknown>)[COST_LIMIT_KEY];
  return typeof limit === "number" ? limit : DEFAULT_CEL_COST_LIMIT;
}

/** A node ran again (inside a comprehension): its slot keeps the last outcome, the list every one. */
function again(target: RecordingTarget, id: number, previous: unknown, next: unknown): void {
  const repeats = (target[REPEATS] ??= []);
  let r = repeats[id];
  if (r === undefined) {
    r = { count: 1, list: [previous] };
    repeats[id] = r;
  }
  r.count++;
  if (r.list.length < MAX_ITERATIONS) r.list.push(next);
  target[SLOTS][id] = next;
}

function store(id: number, encoded: unknown): void {
  const target = current;
  if (target === null) return;
  const previous = target[SLOTS][id];
  if (previous === undefined) target[SLOTS][id] = encoded;
  else again(target, id, previous, encoded);
}

const COMPREHENSIONS = new Set(["all", "exists", "exists_one", "filter", "map"]);
const OPERATOR_LABELS: Readonly<Record<string, string>> = { "!_": "!", "-_": "-" };

function argsOf(node: CelNode): unknown[] {
  return Array.isArray(node.args) ? node.args : [];
}

function describeNode(node: CelNode, namespaces: ReadonlyMap<string, readonly string[]>, ext: ExtensionArgs): { kind: TraceNodeKind; label: string; children: CelNode[] } {
  const a = argsOf(node);
  const extArgs = ext.get(node);
  switch (node.op) {
    case "value":
      return { kind: "literal", label: node.input.slice(node.start, node.end), children: [] };
    case "id":
      return { kind: "identifier", label: String(node.args), children: [] };
    case ".":
    case ".?": {
      const base = a[0];
      // `UserStatus.ENABLED` is a constant, not a lookup worth showing step by step.
      if (isCelNode(base) && base.op === "id" && typeof base.args === "string" && namespaces.has(base.args)) {
        return { kind: "identifier", label: `${base.args}.${String(a[1])}`, children: [] };
      }
      return { kind: "select", label: String(a[1]), children: syntacticChildren(node) };
    }
    case "[]":
    case "[?]":
      return { kind: "index", label: "[]", children: syntacticChildren(node) };
    case "call": {
      const name = String(a[0]);
      if (extArgs) return { kind: "call", label: name, children: [...extArgs] };
      if (name === "has") return { kind: "call", label: name, children: [] };
      return { kind: "call", label: name, children: syntacticChildren(node) };
    }
    case "rcall": {
      const name = String(a[0]);
      const [receiver, ...args] = syntacticChildren(node);
      if (extArgs) {
        const q = receiver ? qualifiedName(receiver) : undefined;
        const namespaced = extArgs.length === args.length && q !== undefined;
        return { kind: "call", label: namespaced ? `${q}.${name}` : name, children: [...extArgs] };
      }
      if (COMPREHENSIONS.has(name) && args[0]?.op === "id" && receiver) return { kind: "comprehension", label: name, children: [receiver, ...args.slice(1)] };
      if (name === "bind" && receiver?.op === "id" && receiver.args === "cel" && args[0]?.op === "id") return { kind: "call", label: "cel.bind", children: args.slice(1) };
      return { kind: "call", label: name, children: syntacticChildren(node) };
    }
    case "list":
      return { kind: "list", label: "[]", children: syntacticChildren(node) };
    case "map":
      return { kind: "map", label: "{}", children: syntacticChildren(node) };
    case "?:":
      return { kind: "conditional", label: "?:", children: syntacticChildren(node) };
    default:
      return { kind: "operator", label: OPERATOR_LABELS[node.op] ?? node.op, children: syntacticChildren(node) };
  }
}

/** Why the `index`-th child of a node that was evaluated was not. */
function skipReason(kind: TraceNodeKind, label: string, index: number): NotEvaluatedReason {
  if ((label === "&&" || label === "||") && kind === "operator" && index === 1) return "short-circuit";
  if (kind === "conditional" && index > 0) return "branch-not-taken";
  if (kind === "comprehension" && index > 0) return "no-iterations";
  return "not-reached";
}

/**
 * A node's source text with its parentheses balanced: cel-js's range of `(a || b) && c` starts
 * inside the opening parenthesis (`a || b) && c`), so an unmatched `)` takes the `(` before the
 * range and an unmatched `(` the `)` after it. The range as it is when no such one is there.
 */
export function balancedText(source: string, start: number, end: number): string {
  let open = 0;
  let close = 0;
  let quote = "";
  for (let i = start; i < end; i++) {
    const c = source[i];
    if (quote !== "") {
      if (c === "\\") i++;
      else if (c === quote) quote = "";
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "(") open++;
    else if (c === ")") {
      if (open > 0) open--;
      else close++;
    }
  }
  if (quote !== "" || (open === 0 && close === 0)) return source.slice(start, end);
  let from = start;
  for (let k = 0; k < close; k++) {
    let j = from - 1;
    while (j >= 0 && /\s/.test(source[j] ?? "")) j--;
    if (source[j] !== "(") return source.slice(start, end);
    from = j;
  }
  let to = end;
  for (let k = 0; k < open; k++) {
    let j = to;
    while (j < source.length && /\s/.test(source[j] ?? "")) j++;
    if (source[j] !== ")") return source.slice(start, end);
    to = j + 1;
  }
  return source.slice(from, to);
}

function instrument(compiled: Compiled): TraceTable {
  const namespaces = celEnvironment(compiled.kind).namespaces;
  const lines = new SourceLines(compiled.source);
  const rows: Rows = { kinds: [], labels: [], texts: [], positions: [], parents: [], depths: [], children: [], skipReasons: [] };
  const ids = new Map<CelNode, number>();
  const build = (node: CelNode, parent: number, depth: number, reason: NotEvaluatedReason): number => {
    const id = rows.kinds.length;
    ids.set(node, id);
    const d = describeNode(node, namespaces, compiled.extensionArgs);
    wrap(node, id);
    rows.kinds.push(d.kind);
    rows.labels.push(d.label);
    rows.texts.push(balancedText(compiled.source, node.start, node.end));
    rows.positions.push(Object.freeze(lines.position({ start: node.start, end: node.end })));
    rows.parents.push(parent);
    rows.depths.push(depth);
    rows.skipReasons.push(reason);
    const kids: number[] = [];
    rows.children.push(kids);
    d.children.forEach((child, i) => kids.push(build(child, id, depth + 1, skipReason(d.kind, d.label, i))));
    Object.freeze(kids);
    return id;
  };
  build(compiled.root, -1, 0, "not-reached");
  // The recording closures charge their own meter on the same cost plan as the instrumented copy,
  // so a traced comprehension runs out of budget exactly where cel-js's would (closures.ts).
  const plan = costPlan(compiled.root, compiled.extensionArgs);
  const meter = new CostMeter();
  meter.base = plan.base;
  const options: ClosureOptions = {
    evaluator: celEnvironment(compiled.kind).evaluator,
    meter,
    plan,
    record: (node) => {
      const id = ids.get(node);
      return id === undefined ? undefined : (value: unknown) => store(id, value === undefined ? UNDEFINED : value);
    },
  };
  // Written out as one function where code can be generated (its nodes write their slots
  // directly); the closures where it cannot. Both record what cel-js's instrumented copy would.
  const generated = generateRecording(compiled.root, compiled.extensionArgs, options, (node) => ids.get(node));
  const recording: Recording | undefined = generated?.run ?? compileClosures(compiled.root, compiled.extensionArgs, options);
  const closure: Closure | undefined =
    recording &&
    ((context) => {
      meter.start(limitOf(context));
      // Run through this wrapper, the slots of the running target (where `current` points).
      return recording(context, current === null ? [] : current[SLOTS]);
    });
  return new TraceTable(compiled, rows, closure, recording, meter, generated?.alone === true);
}

type Evaluate = (ev: unknown, ast: unknown, scope: unknown) => unknown;

function wrap(node: CelNode, id: number): void {
  // The node's own evaluate when it has one (the cost meter's wrapper, cost.ts), else cel-js's.
  const protoEvaluate: unknown = node.evaluate;
  if (typeof protoEvaluate !== "function") return;
  // cel-js's prototype `evaluate` picks the node's operator function on first use and stores it on
  // the node. The wrapper lets it do that once, puts itself back, and from then on calls the picked
  // function directly: no property writes on the node per evaluation. What it records is only the
  // raw value or what was thrown, in the slot of its id; nothing is formatted here.
  let picked: Evaluate | undefined;
  const wrapper: Evaluate = (ev, ast, scope) => {
    let value: unknown;
    try {
      if (picked !== undefined) value = picked.call(node, ev, ast, scope);
      else {
        try {
          value = protoEvaluate.call(node, ev, ast, scope);
        } finally {
          const own: unknown = node.evaluate;
          if (own !== wrapper && typeof own === "function") picked = own as Evaluate;
          node.evaluate = wrapper;
        }
      }
    } catch (e: unknown) {
      store(id, new Thrown(e));
      throw e;
    }
    store(id, value === undefined ? UNDEFINED : value);
    return value;
  };
  node.evaluate = wrapper;
}

const tables = new WeakMap<Compiled, TraceTable | null>();

/**
 * The node table (and instrumented copy) of a compiled expression, made on first use and kept
 * beside it; `null` if the source no longer compiles on its own (not expected for a compiled one).
 *
 * @example
 * ```ts
 * const table = traceTableOf(compiledOf(condition));
 * ```
 */
export function traceTableOf(compiled: Compiled): TraceTable | null {
  const known = tables.get(compiled);
  if (known !== undefined) return known;
  const fresh = compileFresh(celEnvironment(compiled.kind), compiled.source, { closures: false });
  const table = fresh.ok ? instrument(fresh.value) : null;
  tables.set(compiled, table);
  return table;
}
