/**
 * The value of every sub-expression, with its source span, for explanations. The same evaluator
 * that decides runs: the condition is evaluated by cel-js on a second copy of its AST whose nodes
 * record what they return or throw. Nodes cel-js skips (the right side of a decided `&&`/`||`, the
 * branch of `?:` not taken) are marked "not evaluated"; nodes inside a comprehension record every
 * iteration. The traced copy is made once per compiled expression and kept beside it.
 */
import { err, type Result } from "../result.js";
import { compileFresh, compiledOf, type Compiled, type CompiledApproverExpression, type CompiledCondition } from "./compile.js";
import { runtimeError, SourceLines, type CelRuntimeError, type SourcePosition, type Span } from "./diagnostics.js";
import { celEnvironment } from "./environment.js";
import {
  approverIds,
  conditionOutcome,
  contextOf,
  TRACE_KEY,
  type CelContext,
  PreparedApproverInput,
  PreparedConditionInput,
  prepareApproverInput,
  prepareConditionInput,
  type ApproverInput,
  type ConditionInput,
  type ConditionOutcome,
} from "./evaluate.js";
import type { ExtensionArgs } from "./extensions.js";
import { formatCelValue } from "./format-value.js";
import { asScope, isCelNode, qualifiedName, syntacticChildren, type CelNode } from "./internals.js";

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
  /** The source text of the sub-expression. */
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

const MAX_ITERATIONS = 32;

type Raw = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

/** What one node returned on its last evaluation, how often it ran, and every outcome when it ran more than once. */
class Slot {
  count = 1;
  list: Raw[] | undefined = undefined;
  constructor(
    public ok: boolean,
    /** The value, or what was thrown. */
    public value: unknown,
  ) {}
}

const raw = (ok: boolean, value: unknown): Raw => (ok ? { ok: true, value } : { ok: false, error: value });

/**
 * What each node returned, by node id. Ids are dense (0 … size − 1), so an array rather than maps,
 * and one small object per node that ran; the list of outcomes is only made for nodes evaluated more
 * than once (inside comprehensions).
 */
class Recorder {
  readonly slots: (Slot | undefined)[];
  constructor(size: number) {
    this.slots = new Array<Slot | undefined>(size);
  }
  record(id: number, ok: boolean, value: unknown): void {
    const slot = this.slots[id];
    if (slot === undefined) {
      this.slots[id] = new Slot(ok, value);
      return;
    }
    const list = (slot.list ??= [raw(slot.ok, slot.value)]);
    slot.count++;
    slot.ok = ok;
    slot.value = value;
    if (list.length < MAX_ITERATIONS) list.push(raw(ok, value));
  }
}

/**
 * The static shape of the traced tree: each node with its logical children, and where it is in the
 * source. Positions depend only on the source and its parse tree, so they are computed once per
 * compiled expression rather than for every node of every trace.
 */
interface Shape {
  readonly id: number;
  readonly node: CelNode;
  readonly kind: TraceNodeKind;
  readonly label: string;
  readonly text: string;
  readonly position: SourcePosition;
  readonly children: readonly Shape[];
}

interface Instrumented {
  readonly compiled: Compiled;
  readonly shape: Shape;
  /** How many nodes the shape has (ids run from 0 to size − 1). */
  readonly size: number;
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

function instrument(compiled: Compiled): Instrumented {
  const namespaces = celEnvironment(compiled.kind).namespaces;
  const lines = new SourceLines(compiled.source);
  let next = 0;
  const build = (node: CelNode): Shape => {
    const id = next++;
    const d = describeNode(node, namespaces, compiled.extensionArgs);
    wrap(node, id);
    const position = lines.position({ start: node.start, end: node.end });
    const text = compiled.source.slice(node.start, node.end);
    return { id, node, kind: d.kind, label: d.label, text, position, children: d.children.map(build) };
  };
  const shape = build(compiled.root);
  return { compiled, shape, size: next };
}

type Evaluate = (ev: unknown, ast: unknown, scope: unknown) => unknown;

function wrap(node: CelNode, id: number): void {
  const proto: unknown = Object.getPrototypeOf(node);
  const protoEvaluate = typeof proto === "object" && proto !== null && "evaluate" in proto ? proto.evaluate : undefined;
  if (typeof protoEvaluate !== "function") return;
  // cel-js's prototype `evaluate` picks the node's operator function on first use and stores it on
  // the node. The wrapper lets it do that once, puts itself back, and from then on calls the picked
  // function directly: no property writes on the node per evaluation.
  let picked: Evaluate | undefined;
  const wrapper: Evaluate = (ev, ast, scope) => {
    const recorder = asScope(scope).getValue(TRACE_KEY);
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
      if (recorder instanceof Recorder) recorder.record(id, false, e);
      throw e;
    }
    if (recorder instanceof Recorder) recorder.record(id, true, value);
    return value;
  };
  node.evaluate = wrapper;
}

const instrumented = new WeakMap<Compiled, Instrumented | null>();

function instrumentedOf(compiled: Compiled): Instrumented | null {
  if (instrumented.has(compiled)) return instrumented.get(compiled) ?? null;
  const fresh = compileFresh(celEnvironment(compiled.kind), compiled.source);
  const result = fresh.ok ? instrument(fresh.value) : null;
  instrumented.set(compiled, result);
  return result;
}

function outcomeOf(source: string, raw: Raw | Slot | undefined, reason: NotEvaluatedReason): TraceOutcome {
  if (!raw) return { kind: "not-evaluated", reason };
  if (raw instanceof Slot) return raw.ok ? valueOutcome(raw.value) : errorOutcome(source, raw.value);
  return raw.ok ? valueOutcome(raw.value) : errorOutcome(source, raw.error);
}

const valueOutcome = (value: unknown): TraceOutcome => ({ kind: "value", value, display: formatCelValue(value) });
const errorOutcome = (source: string, e: unknown): TraceOutcome => ({ kind: "error", error: runtimeError(source, e) });

function childReason(parent: Shape, index: number, parentReason: NotEvaluatedReason | undefined): NotEvaluatedReason {
  if (parentReason) return parentReason;
  if ((parent.label === "&&" || parent.label === "||") && parent.kind === "operator" && index === 1) return "short-circuit";
  if (parent.kind === "conditional" && index > 0) return "branch-not-taken";
  if (parent.kind === "comprehension" && index > 0) return "no-iterations";
  return "not-reached";
}

// Loops rather than `map` with a closure: this runs for every node of every trace, and tsx's
// `keepNames` turns each closure creation into an `Object.defineProperty` call.
function materialise(source: string, shape: Shape, rec: Recorder, reason: NotEvaluatedReason, out: TraceNode[]): TraceNode {
  const id = shape.id;
  const slot = rec.slots[id];
  const outcome = outcomeOf(source, slot, reason);
  const loc = shape.position;
  const at = out.length;
  out.push(undefined as unknown as TraceNode); // keeps pre-order while children are built
  const notEvaluated = outcome.kind === "not-evaluated" ? outcome.reason : undefined;
  const shapes = shape.children;
  const children: TraceNode[] = [];
  for (let i = 0; i < shapes.length; i++) children.push(materialise(source, shapes[i] as Shape, rec, childReason(shape, i, notEvaluated), out));
  const count = slot ? slot.count : 0;
  const iterations: TraceOutcome[] = [];
  if (slot?.list) for (const r of slot.list) iterations.push(outcomeOf(source, r, reason));
  const node: TraceNode = Object.freeze({
    id,
    kind: shape.kind,
    label: shape.label,
    text: shape.text,
    // A fresh span per trace, as before: the shape's is shared by every trace of the expression.
    span: { start: loc.span.start, end: loc.span.end },
    line: loc.line,
    column: loc.column,
    endLine: loc.endLine,
    endColumn: loc.endColumn,
    outcome,
    evaluations: count,
    iterations,
    children,
  });
  out[at] = node;
  return node;
}

function runTraced<O>(
  compiled: Compiled,
  context: CelContext,
  finish: (source: string, value: unknown) => O,
  failed: (e: unknown) => O,
): Trace<O> {
  const inst = instrumentedOf(compiled);
  const rec = new Recorder(inst ? inst.size : 0);
  let outcome: O;
  if (inst) {
    // The prepared variables and the recorder, in a context of the same shape as every other.
    const traced = context.withRecorder(rec);
    try {
      outcome = finish(compiled.source, inst.compiled.run(traced));
    } catch (e: unknown) {
      outcome = failed(e);
    }
  } else {
    // Unreachable for an expression that compiled once; keep the decision rather than fail.
    try {
      outcome = finish(compiled.source, compiled.run(context));
    } catch (e: unknown) {
      outcome = failed(e);
    }
  }
  const nodes: TraceNode[] = [];
  const root = inst ? materialise(compiled.source, inst.shape, rec, "not-reached", nodes) : null;
  return Object.freeze({ source: compiled.source, outcome, root, nodes: Object.freeze(nodes) });
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
