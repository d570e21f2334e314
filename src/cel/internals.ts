/**
 * Typed views over the few parts of @marcbachmann/cel-js (pinned at 8.0.0) that its type declarations
 * leave out: the AST node's `setMeta`/`evaluate`, the checker and evaluator objects a macro receives,
 * and the evaluation context's `getValue`. The library's macro protocol (`{typeCheck, evaluate}`)
 * is documented; attaching it to a node after parsing is what the parser itself does for `has()`.
 *
 * Everything here checks the runtime shape before trusting it, so an upgrade that changes these
 * internals fails loudly at environment construction (and in the tests), never silently.
 */
import type { ErrorLocation, TypeDeclaration } from "@marcbachmann/cel-js";
import { fail } from "../result.js";

/**
 * A parsed CEL node, as far as this package relies on it.
 *
 * @example
 * ```ts
 * const n: CelNode = parsed.ast as unknown as CelNode; // after isCelNode(parsed.ast)
 * n.input.slice(n.start, n.end); // the node's source text
 * ```
 */
export interface CelNode {
  readonly op: string;
  readonly args: unknown;
  /** Start offset of the node's source (UTF-16 code units). */
  readonly start: number;
  /** End offset (exclusive). */
  readonly end: number;
  /** The anchor cel-js reports errors at (for `a.b`, the start of `b`). */
  readonly pos: number;
  readonly input: string;
  readonly checkedType?: TypeDeclaration;
  setMeta(key: string, value: unknown): unknown;
  evaluate: (ev: unknown, ast: unknown, ctx: unknown) => unknown;
}

/**
 * The type checker a macro's `typeCheck` receives.
 *
 * @example
 * ```ts
 * const t = asChecker(chk).check(argNode, ctx); // the argument's TypeDeclaration
 * ```
 */
export interface CelChecker {
  check(node: CelNode, ctx: unknown): TypeDeclaration;
  getType(name: string): TypeDeclaration;
}

/**
 * The evaluator a macro's `evaluate` receives.
 *
 * @example
 * ```ts
 * const v = asEvaluator(ev).run(argNode, scope);
 * ```
 */
export interface CelEvaluator {
  run(node: CelNode, ctx: unknown): unknown;
}

/**
 * An evaluation scope (root or comprehension overlay).
 *
 * @example
 * ```ts
 * asScope(scope).getValue("subject");
 * ```
 */
export interface CelScope {
  getValue(key: string): unknown;
}

/**
 * The macro protocol cel-js runs for a node carrying `meta.macro`.
 *
 * @example
 * ```ts
 * node.setMeta("macro", { async: false, typeCheck: (c) => asChecker(c).getType("bool"), evaluate: () => true } satisfies CelMacro);
 * ```
 */
export interface CelMacro {
  readonly async: false;
  typeCheck(checker: unknown, macro: unknown, ctx: unknown): TypeDeclaration;
  evaluate(ev: unknown, macro: unknown, ctx: unknown): unknown;
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null;

/**
 * Narrows a value to a parsed node.
 *
 * @example
 * ```ts
 * if (isCelNode(parsed.ast)) walk(parsed.ast);
 * ```
 */
export function isCelNode(x: unknown): x is CelNode {
  return (
    isObject(x) &&
    typeof x["op"] === "string" &&
    typeof x["start"] === "number" &&
    typeof x["end"] === "number" &&
    typeof x["setMeta"] === "function" &&
    typeof x["evaluate"] === "function"
  );
}

/**
 * Visits every node of a checked expression once: each node's operands (a list, a node, or a
 * comprehension's named parts), the node a macro expanded to (`meta.alternate`) and a macro's own
 * arguments (`meta.macro.args`). For the passes that give nodes their own evaluation after the
 * check (presence.ts, logical.ts).
 *
 * @example
 * ```ts
 * walkCheckedAst(parsed.ast, (n) => { if (n.op === "||") count++; });
 * ```
 */
export function walkCheckedAst(root: CelNode, visit: (node: CelNode, meta: NodeMeta | undefined) => void): void {
  const stack: unknown[] = [root];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const n = stack.pop();
    if (Array.isArray(n)) {
      for (const x of n) stack.push(x);
      continue;
    }
    if (!isCelNode(n) || seen.has(n)) continue;
    seen.add(n);
    const meta = (n as unknown as { readonly meta?: NodeMeta }).meta;
    if (meta?.alternate !== undefined) stack.push(meta.alternate);
    if (isObject(meta?.macro)) stack.push(meta.macro["args"]);
    // A unary operator's operand (`!has(…)`, `-x`) is its args itself, not a list of them.
    if (Array.isArray(n.args) || isCelNode(n.args)) stack.push(n.args);
    else if (isObject(n.args)) stack.push(...Object.values(n.args));
    visit(n, meta);
  }
}

/**
 * What cel-js keeps on a node after the check: its evaluation, the macro it is a call of, and the
 * node it expanded to.
 *
 * @example
 * ```ts
 * const meta = (node as unknown as { meta?: NodeMeta }).meta;
 * ```
 */
export interface NodeMeta {
  readonly evaluate?: unknown;
  readonly macro?: unknown;
  readonly alternate?: unknown;
}

/**
 * The checker object passed to a macro. Checked once per call: a macro runs at check time only.
 *
 * @example
 * ```ts
 * typeCheck(chk, _m, ctx) { return asChecker(chk).getType("bool"); }
 * ```
 */
export function asChecker(x: unknown): CelChecker {
  if (isObject(x) && typeof x["check"] === "function" && typeof x["getType"] === "function") {
    // Shape verified just above; the methods keep their own `this`.
    return x as unknown as CelChecker;
  }
  return fail("cel-js checker has an unexpected shape");
}

/**
 * The evaluator passed to a macro. Not re-checked on the hot path: {@link assertEvaluatorShape}
 * verified it when the environment was built.
 *
 * @example
 * ```ts
 * evaluate(ev, _m, ctx) { return asEvaluator(ev).run(argNode, ctx); }
 * ```
 */
export function asEvaluator(x: unknown): CelEvaluator {
  return x as CelEvaluator;
}

/**
 * The evaluation scope passed to a macro (see {@link asEvaluator} for why it is not re-checked).
 *
 * @example
 * ```ts
 * const runtime = asScope(ctx).getValue(RUNTIME_KEY);
 * ```
 */
export function asScope(x: unknown): CelScope {
  return x as CelScope;
}

/**
 * Verifies once that an evaluator and a scope have the methods this package calls.
 *
 * @example
 * ```ts
 * assertEvaluatorShape(ev, ctx); // throws a programmer error after an incompatible upgrade
 * ```
 */
export function assertEvaluatorShape(ev: unknown, ctx: unknown): void {
  if (!(isObject(ev) && typeof ev["run"] === "function")) fail("cel-js evaluator has an unexpected shape");
  if (!(isObject(ctx) && typeof ctx["getValue"] === "function")) fail("cel-js scope has an unexpected shape");
}

/**
 * The direct sub-nodes of a node in syntax order, whatever the operator. Used by the rewriting pass
 * and by the tracer; macro expansions reuse these same node objects, so visiting them suffices.
 *
 * @example
 * ```ts
 * for (const child of syntacticChildren(node)) visit(child);
 * ```
 */
export function syntacticChildren(node: CelNode): CelNode[] {
  const out: CelNode[] = [];
  const a = node.args;
  switch (node.op) {
    case "value":
    case "id":
      return out;
    case "call":
      if (Array.isArray(a) && Array.isArray(a[1])) for (const x of a[1]) if (isCelNode(x)) out.push(x);
      return out;
    case "rcall":
      if (Array.isArray(a)) {
        if (isCelNode(a[1])) out.push(a[1]);
        if (Array.isArray(a[2])) for (const x of a[2]) if (isCelNode(x)) out.push(x);
      }
      return out;
    case ".":
    case ".?":
      if (Array.isArray(a) && isCelNode(a[0])) out.push(a[0]);
      return out;
    case "map":
      if (Array.isArray(a))
        for (const entry of a) if (Array.isArray(entry)) for (const x of entry) if (isCelNode(x)) out.push(x);
      return out;
    default:
      if (isCelNode(a)) out.push(a);
      else if (Array.isArray(a)) for (const x of a) if (isCelNode(x)) out.push(x);
      return out;
  }
}

/**
 * The dotted name a node spells when it is a chain of selections on an identifier
 * (`c1.directory.users.v1`), or `undefined`.
 *
 * @example
 * ```ts
 * qualifiedName(receiverOf("c1.user.v1.HasApp(subject, 'a')")); // "c1.user.v1"
 * ```
 */
export function qualifiedName(node: CelNode): string | undefined {
  const parts: string[] = [];
  let n: CelNode = node;
  while (n.op === ".") {
    const a = n.args;
    if (!Array.isArray(a) || typeof a[1] !== "string" || !isCelNode(a[0])) return undefined;
    parts.push(a[1]);
    n = a[0];
  }
  if (n.op !== "id" || typeof n.args !== "string") return undefined;
  parts.push(n.args);
  return parts.reverse().join(".");
}

/**
 * A node as the location of an error cel-js reports. The library's declared `ErrorLocation.op` is its
 * closed operator union; the node is the same object the library itself attaches to errors.
 *
 * @example
 * ```ts
 * throw new EvaluationError({ code: "not_found", message: "no user", node: errorAt(node) });
 * ```
 */
export function errorAt(node: CelNode): ErrorLocation {
  return node as unknown as ErrorLocation;
}
