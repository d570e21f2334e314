/**
 * Which error `a || b` and `a && b` report when neither operand decides: the left one's, as cel-go
 * answers. cel-go's logical operators evaluate every term and return the first error (left to
 * right) when no term is decisive; cel-js, when its left operand fails, runs the right one plainly
 * and lets the right one's error through. The decision is the same (an error either way), but the
 * error a rule records (the explanation's `error`, the `conditionalPolicyExecutionResult` audit
 * event's) named the other operand: `subject.profile.a == "x" || subject.profile.b == "y"` said
 * "No such key: b" where the service says that `a` is missing.
 *
 * After a check, {@link markLogical} gives each `||` and `&&` node an evaluation that keeps the left
 * error; each operand is evaluated once, as before.
 */
import { type CelNode, walkCheckedAst } from "./internals.js";

interface Evaluator {
  tryEval(node: CelNode, ctx: unknown): unknown;
  createError(code: string, message: string, node: CelNode): Error;
  debugRuntimeType(value: unknown): unknown;
}

type Evaluate = (ev: Evaluator, ast: LogicalNode, ctx: unknown) => unknown;

interface LogicalNode extends CelNode {
  readonly left?: CelNode;
  readonly right?: CelNode;
}

/**
 * Gives every `||` and `&&` of a checked expression cel-go's choice of error: the left operand's,
 * when no operand decides. Call it after the check and before the first evaluation.
 *
 * @example
 * ```ts
 * const parsed = env.cel.parse('m.a == "x" || m.b == "y"');
 * parsed.check();
 * markLogical(parsed.ast); // evaluating with an empty m now throws "No such key: a"
 * ```
 */
export function markLogical(root: CelNode): void {
  walkCheckedAst(root, (n, meta) => {
    if ((n.op === "||" || n.op === "&&") && typeof meta?.evaluate === "function") n.setMeta("evaluate", leftErrorFirst(n.op === "||", meta.evaluate as Evaluate));
  });
}

/**
 * A logical node's evaluation as cel-go's: a decisive operand decides, two non-decisive bools give
 * the other bool, and otherwise the first operand that is not a bool, left to right, names the
 * error (its own error, or cel-js's "requires bool operands" for a value of another type).
 */
function leftErrorFirst(decisive: boolean, own: Evaluate): Evaluate {
  return (ev, ast, ctx) => {
    const left = ast.left ?? (Array.isArray(ast.args) ? (ast.args[0] as CelNode | undefined) : undefined);
    const right = ast.right ?? (Array.isArray(ast.args) ? (ast.args[1] as CelNode | undefined) : undefined);
    if (left === undefined || right === undefined) return own(ev, ast, ctx);
    const l = ev.tryEval(left, ctx);
    if (l === decisive) return l;
    const r = l instanceof Promise ? l : ev.tryEval(right, ctx);
    // Asynchronous functions (which no environment here declares): cel-js's own evaluation.
    if (r instanceof Promise) return own(ev, ast, ctx);
    if (r === decisive) return r;
    if (l === !decisive && r === !decisive) return l;
    const [value, node] = l === !decisive ? [r, right] : [l, left];
    throw value instanceof Error ? value : ev.createError("invalid_logical_operand", `Logical operator requires bool operands, got '${String(ev.debugRuntimeType(value))}'`, node);
  };
}
