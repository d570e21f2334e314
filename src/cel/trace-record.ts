/**
 * A trace as evaluation leaves it: its outcome, and what the traced run recorded, one slot per node
 * of the expression's {@link TraceTable}. The record is the trace: the questions readers ask are
 * answered from those slots when asked. Rule coverage asks only whether each node was true, false,
 * another value, an error or skipped ({@link TraceRecord.truth}); explanations ask for the value and
 * format it themselves; the public {@link TraceNode} tree is built from the same answers, on first
 * access, frozen, and kept.
 */
import { runtimeError, type CelRuntimeError, type SourcePosition } from "./diagnostics.js";
import { formatCelValue } from "./format-value.js";
import type { NotEvaluatedReason, Trace, TraceNode, TraceNodeKind, TraceOutcome } from "./trace.js";
import { REPEATS, SLOTS, Thrown, UNDEFINED, type RecordingTarget, type Repeat, type TraceTable } from "./trace-table.js";

/**
 * The key of the method that gives a record its outcome when its run is over: a symbol, so a trace
 * shows no such method among its members.
 *
 * @example
 * ```ts
 * record[SETTLE](conditionOutcome(source, true));
 * ```
 */
export const SETTLE: unique symbol = Symbol("settle");

/**
 * What a node produced, as far as coverage cares: `true`, `false`, another value, an error, or
 * nothing (CEL skipped it).
 *
 * @example
 * ```ts
 * const t: TraceTruth = record.truth(0); // "false": the condition did not hold
 * ```
 */
export type TraceTruth = "true" | "false" | "value" | "error" | "not-evaluated";

const truthOf = (slot: unknown): TraceTruth =>
  slot === true ? "true" : slot === false ? "false" : slot === undefined ? "not-evaluated" : slot instanceof Thrown ? "error" : "value";

/**
 * One traced evaluation of an expression: the raw value or error of each node by id, next to the
 * expression's shared node table (`table`: kinds, labels, texts, positions, parents, children).
 * Nothing is formatted or allocated per node until a reader asks.
 *
 * @example
 * ```ts
 * const r = traceRecordOf(traceCondition(compiled, prepared));
 * if (r) for (let id = 0; id < r.table.size; id++) console.log(r.table.texts[id], r.truth(id));
 * ```
 */
/**
 * One traced evaluation of an expression: its outcome, and the raw value or error of each node by
 * id next to the expression's shared node table (`table`: kinds, labels, texts, positions, parents,
 * children). Nothing is formatted or allocated per node until a reader asks. It is the trace the
 * package hands out ({@link Trace}): its own enumerable fields are `source` and `outcome`; `root`
 * and `nodes` are built on first access; `JSON.stringify` writes all four. The object itself is not
 * frozen (`Object.freeze` was ~20 ns a trace, more than recording one of its nodes), as a decision is
 * not: its fields are read-only by type, its record private (the slots and the method that settles
 * the outcome are under symbol keys this layer keeps), and its node tree frozen.
 *
 * @example
 * ```ts
 * const r = traceRecordOf(traceCondition(compiled, prepared));
 * if (r) for (let id = 0; id < r.table.size; id++) console.log(r.table.texts[id], r.truth(id));
 * ```
 */
export class TraceRecord<O = unknown> implements Trace<O>, RecordingTarget {
  /** The expression's source text. */
  readonly source: string;
  /** @internal Written once, by the run that recorded, when it ends (see {@link settle}). */
  outcome: O;
  readonly #table: TraceTable;
  readonly #slots: unknown[];
  #repeats: (Repeat | undefined)[] | null;
  #nodes: readonly TraceNode[] | undefined;

  /** @internal `outcome` is a placeholder until the run that fills the slots {@link settle}s it. */
  constructor(source: string, table: TraceTable, outcome: O) {
    this.source = source;
    this.outcome = outcome;
    this.#table = table;
    this.#slots = new Array<unknown>(table.size);
    this.#repeats = null;
    this.#nodes = undefined;
  }

  /** @internal The run that recorded is over: its outcome (a symbol key: not among a trace's fields). */
  [SETTLE](outcome: O): this {
    this.outcome = outcome;
    return this;
  }

  /** The expression's node table, shared by every trace of it. */
  get table(): TraceTable {
    return this.#table;
  }

  /** @internal One slot per node id, written by the instrumented nodes while the run is under way. */
  get [SLOTS](): unknown[] {
    return this.#slots;
  }

  /** @internal Outcomes of the nodes evaluated more than once, by id; `null` when none was. */
  get [REPEATS](): (Repeat | undefined)[] | null {
    return this.#repeats;
  }

  set [REPEATS](value: (Repeat | undefined)[] | null) {
    this.#repeats = value;
  }

  /** The root node (built with {@link nodes}). */
  get root(): TraceNode | null {
    return this.nodes[0] ?? null;
  }

  /** Every node, in pre-order, frozen: built on first access and kept. */
  get nodes(): readonly TraceNode[] {
    return (this.#nodes ??= materialise(this));
  }

  /** The same fields as a plain trace, for `JSON.stringify`. */
  toJSON(): { source: string; outcome: O; root: TraceNode | null; nodes: readonly TraceNode[] } {
    return { source: this.source, outcome: this.outcome, root: this.root, nodes: this.nodes };
  }

  /** Whether the node produced a value, threw, or was skipped (its last evaluation). */
  outcomeKind(id: number): TraceOutcome["kind"] {
    const slot = this.#slots[id];
    return slot === undefined ? "not-evaluated" : slot instanceof Thrown ? "error" : "value";
  }

  /** The node's value on its last evaluation; `undefined` when it threw or was skipped. */
  value(id: number): unknown {
    const slot = this.#slots[id];
    return slot === UNDEFINED || slot instanceof Thrown ? undefined : slot;
  }

  /** The node's error, located in the source; `null` unless it threw. */
  error(id: number): CelRuntimeError | null {
    const slot = this.#slots[id];
    return slot instanceof Thrown ? runtimeError(this.source, slot.error) : null;
  }

  /** Why the node was not evaluated (meaningful when {@link outcomeKind} is `"not-evaluated"`). */
  reason(id: number): NotEvaluatedReason {
    // A child of a skipped node is skipped for its parent's reason; a child of an evaluated node for its own.
    const parents = this.#table.parents;
    let node = id;
    for (;;) {
      const parent = parents[node] ?? -1;
      if (parent < 0) return "not-reached";
      if (this.#slots[parent] !== undefined) return this.#table.skipReasons[node] ?? "not-reached";
      node = parent;
    }
  }

  /** How many times the node was evaluated (more than once inside a comprehension). */
  evaluations(id: number): number {
    const r = this.#repeats?.[id];
    return r !== undefined ? r.count : this.#slots[id] === undefined ? 0 : 1;
  }

  /** True, false, another value, an error, or not evaluated, on the node's last evaluation. */
  truth(id: number): TraceTruth {
    return truthOf(this.#slots[id]);
  }

  /** The same for each evaluation (the first 32) of a node evaluated more than once; `null` otherwise. */
  iterationTruths(id: number): TraceTruth[] | null {
    const r = this.#repeats?.[id];
    return r === undefined ? null : r.list.map(truthOf);
  }

  /** The node's public outcome, with the value's display. */
  nodeOutcome(id: number): TraceOutcome {
    const slot = this.#slots[id];
    return slot === undefined ? { kind: "not-evaluated", reason: this.reason(id) } : this.#outcomeOf(slot);
  }

  /** Each evaluation's outcome when the node ran more than once (the first 32); empty otherwise. */
  iterations(id: number): TraceOutcome[] {
    const r = this.#repeats?.[id];
    const out: TraceOutcome[] = [];
    if (r !== undefined) for (const slot of r.list) out.push(this.#outcomeOf(slot));
    return out;
  }

  #outcomeOf(slot: unknown): TraceOutcome {
    if (slot instanceof Thrown) return { kind: "error", error: runtimeError(this.source, slot.error) };
    const value = slot === UNDEFINED ? undefined : slot;
    return { kind: "value", value, display: formatCelValue(value) };
  }
}

/**
 * Every node of a record, in pre-order, frozen. Built from the last id back to the first: in
 * pre-order a node's children come after it, so they exist by the time it is built. Loops rather
 * than `map` with a closure (tsx's `keepNames` turns each closure creation into a defineProperty).
 */
function materialise(record: TraceRecord<unknown>): readonly TraceNode[] {
  const table = record.table;
  const out = new Array<TraceNode>(table.size);
  for (let id = table.size - 1; id >= 0; id--) {
    const ids = table.children[id] ?? [];
    const children: TraceNode[] = [];
    for (const c of ids) children.push(out[c] as TraceNode);
    const loc = table.positions[id] as SourcePosition;
    out[id] = Object.freeze({
      id,
      kind: table.kinds[id] as TraceNodeKind,
      label: table.labels[id] as string,
      text: table.texts[id] as string,
      // A fresh span per trace, as before: the table's is shared by every trace of the expression.
      span: { start: loc.span.start, end: loc.span.end },
      line: loc.line,
      column: loc.column,
      endLine: loc.endLine,
      endColumn: loc.endColumn,
      outcome: record.nodeOutcome(id),
      evaluations: record.evaluations(id),
      iterations: record.iterations(id),
      children,
    });
  }
  return Object.freeze(out);
}
