/**
 * The dynamic half of a trace: what one traced evaluation recorded, one slot per node of the
 * expression's {@link TraceTable}, and the questions readers ask of it, answered from those slots
 * when asked. Rule coverage asks only whether each node was true, false, another value, an error
 * or skipped ({@link TraceRecord.truth}); explanations ask for the value and format it themselves;
 * the public {@link TraceNode} tree is built from the same answers, on first access.
 */
import { runtimeError, type CelRuntimeError } from "./diagnostics.js";
import { formatCelValue } from "./format-value.js";
import type { NotEvaluatedReason, TraceOutcome } from "./trace.js";
import { Thrown, UNDEFINED, type RecordingTarget, type Repeat, type TraceTable } from "./trace-table.js";

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
export class TraceRecord implements RecordingTarget {
  /** @internal One slot per node id, written by the instrumented nodes while the run is under way. */
  readonly slots: unknown[];
  /** @internal Outcomes of the nodes evaluated more than once, by id; `null` when none was. */
  repeats: (Repeat | undefined)[] | null;

  constructor(
    /** The expression's source text. */
    readonly source: string,
    readonly table: TraceTable,
  ) {
    this.slots = new Array<unknown>(table.size);
    this.repeats = null;
  }

  /** Whether the node produced a value, threw, or was skipped (its last evaluation). */
  outcomeKind(id: number): TraceOutcome["kind"] {
    const slot = this.slots[id];
    return slot === undefined ? "not-evaluated" : slot instanceof Thrown ? "error" : "value";
  }

  /** The node's value on its last evaluation; `undefined` when it threw or was skipped. */
  value(id: number): unknown {
    const slot = this.slots[id];
    return slot === UNDEFINED || slot instanceof Thrown ? undefined : slot;
  }

  /** The node's error, located in the source; `null` unless it threw. */
  error(id: number): CelRuntimeError | null {
    const slot = this.slots[id];
    return slot instanceof Thrown ? runtimeError(this.source, slot.error) : null;
  }

  /** Why the node was not evaluated (meaningful when {@link outcomeKind} is `"not-evaluated"`). */
  reason(id: number): NotEvaluatedReason {
    // A child of a skipped node is skipped for its parent's reason; a child of an evaluated node for its own.
    const parents = this.table.parents;
    let node = id;
    for (;;) {
      const parent = parents[node] ?? -1;
      if (parent < 0) return "not-reached";
      if (this.slots[parent] !== undefined) return this.table.skipReasons[node] ?? "not-reached";
      node = parent;
    }
  }

  /** How many times the node was evaluated (more than once inside a comprehension). */
  evaluations(id: number): number {
    const r = this.repeats?.[id];
    return r !== undefined ? r.count : this.slots[id] === undefined ? 0 : 1;
  }

  /** True, false, another value, an error, or not evaluated, on the node's last evaluation. */
  truth(id: number): TraceTruth {
    return truthOf(this.slots[id]);
  }

  /** The same for each evaluation (the first 32) of a node evaluated more than once; `null` otherwise. */
  iterationTruths(id: number): TraceTruth[] | null {
    const r = this.repeats?.[id];
    return r === undefined ? null : r.list.map(truthOf);
  }

  /** The node's public outcome, with the value's display. */
  outcome(id: number): TraceOutcome {
    const slot = this.slots[id];
    return slot === undefined ? { kind: "not-evaluated", reason: this.reason(id) } : this.#outcomeOf(slot);
  }

  /** Each evaluation's outcome when the node ran more than once (the first 32); empty otherwise. */
  iterations(id: number): TraceOutcome[] {
    const r = this.repeats?.[id];
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
