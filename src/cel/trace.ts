/**
 * The value of every sub-expression, with its source span, for explanations. The same compiled
 * evaluation that decides runs: the condition's closures (closures.ts), compiled to record what each
 * node returns, or off their plain path cel-js on a second copy of the AST whose nodes record what
 * they return or throw (`trace-table.ts`). Nodes
 * cel-js skips (the right side of a decided `&&`/`||`, the branch of `?:` not taken) are marked
 * "not evaluated"; nodes inside a comprehension record every iteration.
 *
 * Recording is kept to what cannot be had later: each node's raw value or error, in one array slot
 * by node id (`trace-record.ts`). Positions, texts and the tree's shape are per expression and
 * computed once; displays, located errors and the frozen {@link TraceNode} tree are derived from
 * the record when first read. In a traced decision the recording function decides in the plain
 * run's place ({@link PlainTracer.recordDecision}): one run both decides and records, where
 * deciding plainly and recording on first read ran every condition twice for the readers every
 * traced decision has (explanations, rule coverage). The record is the trace (`TraceRecord`):
 * no second object is made for a reader.
 */
import { err, type Result } from "../result.js";
import { compiledOf, type Compiled, type CompiledApproverExpression, type CompiledCondition } from "./compile.js";
import { runtimeError, type CelRuntimeError, type Span } from "./diagnostics.js";
import {
  approverIds,
  conditionOutcome,
  contextOf,
  type CelContext,
  PreparedApproverInput,
  PreparedConditionInput,
  prepareApproverInput,
  prepareConditionInput,
  type ApproverInput,
  type ConditionInput,
  type ConditionOutcome,
} from "./evaluate.js";
import { SETTLE, TraceRecord } from "./trace-record.js";
import { recordPlain, recordRun, traceTableOf, type TraceTable } from "./trace-table.js";

/**
 * What one sub-expression produced.
 *
 * @example
 * ```ts
 * const o: TraceOutcome = { kind: "value", value: "Eng", display: '"Eng"' };
 * ```
 */
export type TraceOutcome =
  | { readonly kind: "value"; readonly value: unknown; readonly display: string }
  | { readonly kind: "error"; readonly error: CelRuntimeError }
  | { readonly kind: "not-evaluated"; readonly reason: NotEvaluatedReason };

/**
 * Why a sub-expression has no value: CEL skipped it (`short-circuit`: the other side of `&&`/`||`
 * decided; `branch-not-taken` in `?:`), its comprehension had nothing to iterate
 * (`no-iterations`), or evaluation stopped before it (`not-reached`, e.g. after an error).
 *
 * @example
 * ```ts
 * const r: NotEvaluatedReason = "short-circuit";
 * ```
 */
export type NotEvaluatedReason = "short-circuit" | "branch-not-taken" | "no-iterations" | "not-reached";

/**
 * The shape of a sub-expression.
 *
 * @example
 * ```ts
 * const k: TraceNodeKind = "operator"; // label "&&", "==", "!"…
 * ```
 */
export type TraceNodeKind = "literal" | "identifier" | "select" | "index" | "call" | "comprehension" | "operator" | "conditional" | "list" | "map";

/**
 * One sub-expression of a traced expression.
 *
 * @example
 * ```ts
 * // for `subject.department == "Eng"`, the root:
 * // { kind: "operator", label: "==", text: 'subject.department == "Eng"', outcome: { kind: "value", value: true, ... },
 * //   children: [ { kind: "select", label: "department", ... }, { kind: "literal", ... } ] }
 * ```
 */
export interface TraceNode {
  /** Position in pre-order (the root is 0). */
  readonly id: number;
  readonly kind: TraceNodeKind;
  /** The operator, function, field or identifier name. */
  readonly label: string;
  /**
   * The source text of the sub-expression, its parentheses balanced: where cel-js's range leaves
   * out a parenthesis of the sub-expression (`(a || b) && c`), the text takes it in, one character
   * past `span` on that side.
   */
  readonly text: string;
  readonly span: Span;
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
  /** The outcome of the last evaluation (the only one outside comprehensions). */
  readonly outcome: TraceOutcome;
  /** How many times it was evaluated (more than once inside a comprehension). */
  readonly evaluations: number;
  /** Each evaluation's outcome when there were several (the first 32). */
  readonly iterations: readonly TraceOutcome[];
  readonly children: readonly TraceNode[];
}

/**
 * A traced evaluation: the same outcome {@link evaluateCondition} gives, and the tree of
 * sub-expression values. `root` is `null` when the input could not be prepared.
 *
 * @example
 * ```ts
 * const t = traceCondition(compiled, prepared);
 * t.nodes.filter((n) => n.outcome.kind === "error"); // where it failed
 * ```
 */
export interface Trace<O> {
  readonly source: string;
  readonly outcome: O;
  readonly root: TraceNode | null;
  /** Every node, in pre-order. */
  readonly nodes: readonly TraceNode[];
}

/**
 * The trace of a rule condition.
 *
 * @example
 * ```ts
 * const t: ConditionTrace = traceCondition(compiled, prepared);
 * t.outcome; // { ok: true, value: true }
 * ```
 */
export type ConditionTrace = Trace<ConditionOutcome>;

/**
 * The trace of an approver expression; its outcome is the approvers' user ids.
 *
 * @example
 * ```ts
 * const t: ApproverTrace = traceApproverExpression(compiled, prepared);
 * ```
 */
export type ApproverTrace = Trace<Result<readonly string[], CelRuntimeError>>;

// ---------------------------------------------------------------------------------------------

/**
 * What a traced decision's runs of one condition share: the expression, and its node table once
 * first needed (looked up once per condition, not once per run). Made once per compiled condition
 * ({@link plainTracerOf}); a caller that keeps compiled conditions keeps this beside them.
 *
 * @example
 * ```ts
 * const trace = plainTracerOf(compiled).recordDecision(context);
 * if (trace) traces.push(trace); // the record is the condition's trace
 * ```
 */
export class PlainTracer {
  readonly #compiled: Compiled;
  #table: TraceTable | null | undefined;

  /** @internal */
  constructor(compiled: Compiled) {
    this.#compiled = compiled;
    this.#table = undefined;
  }

  /**
   * @internal A traced decision's run of the condition: its recording function on `context`, which
   * decides as the plain run does and records every node on the way. The record when it answered
   * `true` or `false` on that path (its root, slot 0, holds the answer; its outcome says it), else
   * `undefined`: the caller evaluates in full, as after a plain run that did not answer.
   */
  recordDecision(context: CelContext): TraceRecord<ConditionOutcome> | undefined {
    let table = this.#table;
    if (table === undefined) table = this.#table = traceTableOf(this.#compiled);
    if (table === null) return undefined;
    const record = new TraceRecord<ConditionOutcome>(this.#compiled.source, table, FALSE_OUTCOME);
    const value = recordPlain(table, context, record);
    if (value === true) return record[SETTLE](TRUE_OUTCOME);
    return value === false ? record : undefined;
  }
}

// The outcomes a recording run that decided leaves: shared, frozen (evaluate.ts).
const TRUE_OUTCOME: ConditionOutcome = conditionOutcome("", true);
const FALSE_OUTCOME: ConditionOutcome = conditionOutcome("", false);

const tracers = new WeakMap<CompiledCondition, PlainTracer>();

/**
 * The {@link PlainTracer} of a compiled condition, made on first use and kept beside it.
 *
 * @example
 * ```ts
 * plainTracerOf(compiled).recordDecision(context)?.truth(0); // "true"
 * ```
 */
export function plainTracerOf(compiled: CompiledCondition): PlainTracer {
  let t = tracers.get(compiled);
  if (t === undefined) {
    t = new PlainTracer(compiledOf(compiled));
    tracers.set(compiled, t);
  }
  return t;
}

/**
 * The compact record behind a trace, for readers in this package that need less than the node
 * tree: rule coverage reads only each node's truth, explanations the values they format. `null` for
 * a trace without nodes (input that could not be prepared) or not made by this module.
 *
 * @example
 * ```ts
 * const r = traceRecordOf(trace);
 * const neverFalse = r !== null && r.truth(0) !== "false";
 * ```
 */
export function traceRecordOf(trace: Trace<unknown> | null | undefined): TraceRecord | null {
  return trace instanceof TraceRecord ? trace : null;
}

function runTraced<O>(
  compiled: Compiled,
  context: CelContext,
  finish: (source: string, value: unknown) => O,
  failed: (e: unknown) => O,
): Trace<O> {
  const table = traceTableOf(compiled);
  if (table === null) {
    // Unreachable for an expression that compiled once; keep the decision rather than fail.
    let outcome: O;
    try {
      outcome = finish(compiled.source, compiled.run(context));
    } catch (e: unknown) {
      outcome = failed(e);
    }
    return Object.freeze({ source: compiled.source, outcome, root: null, nodes: Object.freeze([]) });
  }
  // The outcome is settled when the run is over; until then the record is nobody's.
  const record = new TraceRecord<O>(compiled.source, table, undefined as O);
  let outcome: O;
  try {
    outcome = finish(compiled.source, recordRun(table, context, record));
  } catch (e: unknown) {
    outcome = failed(e);
  }
  return record[SETTLE](outcome);
}

/**
 * Evaluates a condition and records the value (or error) of each sub-expression with its source
 * span. Its `outcome` is exactly what {@link evaluateCondition} returns for the same input.
 *
 * @example
 * ```ts
 * const t = traceCondition(compiled, prepared);
 * for (const n of t.nodes) console.log(n.text, "→", n.outcome.kind === "value" ? n.outcome.display : n.outcome.kind);
 * ```
 */
export function traceCondition(compiled: CompiledCondition, input: PreparedConditionInput | ConditionInput): ConditionTrace {
  try {
    return traceConditionUnsafe(compiled, input);
  } catch (e: unknown) {
    return failedTrace(compiled, e);
  }
}

function failedTrace<T>(compiled: { readonly source?: unknown }, e: unknown): Trace<Result<T, CelRuntimeError>> {
  const source = typeof compiled?.source === "string" ? compiled.source : "";
  return Object.freeze({ source, outcome: err(runtimeError(source, e)), root: null, nodes: [] });
}

function traceConditionUnsafe(compiled: CompiledCondition, input: PreparedConditionInput | ConditionInput): ConditionTrace {
  const c = compiledOf(compiled);
  let prepared: PreparedConditionInput;
  if (input instanceof PreparedConditionInput) prepared = input;
  else {
    const p = prepareConditionInput(input);
    if (!p.ok) return Object.freeze({ source: c.source, outcome: p, root: null, nodes: [] });
    prepared = p.value;
  }
  return runTraced<ConditionOutcome>(c, contextOf(prepared), conditionOutcome, (e) => err(runtimeError(c.source, e)));
}

/**
 * Evaluates an approver expression and records each sub-expression's value.
 *
 * @example
 * ```ts
 * const t = traceApproverExpression(compiled, prepared);
 * t.outcome; // { ok: true, value: ["u-bob"] }
 * ```
 */
export function traceApproverExpression(compiled: CompiledApproverExpression, input: PreparedApproverInput | ApproverInput): ApproverTrace {
  try {
    return traceApproverUnsafe(compiled, input);
  } catch (e: unknown) {
    return failedTrace(compiled, e);
  }
}

function traceApproverUnsafe(compiled: CompiledApproverExpression, input: PreparedApproverInput | ApproverInput): ApproverTrace {
  const c = compiledOf(compiled);
  let prepared: PreparedApproverInput;
  if (input instanceof PreparedApproverInput) prepared = input;
  else {
    const p = prepareApproverInput(input);
    if (!p.ok) return Object.freeze({ source: c.source, outcome: p, root: null, nodes: [] });
    prepared = p.value;
  }
  return runTraced<Result<readonly string[], CelRuntimeError>>(c, contextOf(prepared), approverIds, (e) => err(runtimeError(c.source, e)));
}
