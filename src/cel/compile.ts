/**
 * Compile = parse + rewrite extension calls + type check, once per distinct source text per
 * environment (the cache). Compiling never throws: every failure is a list of diagnostics.
 */
import type { TypeDeclaration } from "@marcbachmann/cel-js";
import { err, ok, type Result } from "../result.js";
import { celTypeNames, closest, diagnostic, errorParts, locate, type CelDiagnostic, type ErrorParts, type SourceLocation, type Span } from "./diagnostics.js";
import { celEnvironment, type CelEnvironment, type CelEnvironmentKind, LIMITS, MESSAGE_FIELD_TYPES } from "./environment.js";
import { compileClosuresOrReason, type Closure, type InterpretedReason } from "./closures.js";
import { generateClosure } from "./generate.js";
import { guardRanges } from "./ranges.js";
import { COST_LIMIT_KEY, CostMeter, costPlan, DEFAULT_CEL_COST_LIMIT, estimateCost, instrumentCost, WORST_CASE_SIZES, type CostEstimate } from "./cost.js";
import { CEL_RESOURCE_LIMITS } from "./limits.js";
import { desugar, type ExtensionArgs } from "./extensions.js";
import { ENUMS } from "./enums.js";
import { invalidNetworkLiteral } from "./network-literals.js";
import { markLogical } from "./logical.js";
import { markPresence } from "./presence.js";
import { invalidTimeLiteral } from "./time-literals.js";
import { isCelNode, qualifiedName, type CelNode } from "./internals.js";

/**
 * What a successful compile produces, shared by conditions and approver expressions.
 *
 * @example
 * ```ts
 * const c = compileFresh(celEnvironment("condition"), "true");
 * if (c.ok) c.value.run(context); // true
 * ```
 */
export interface Compiled {
  readonly source: string;
  readonly kind: CelEnvironmentKind;
  readonly type: string;
  readonly root: CelNode;
  /** Evaluates against a context, within the context's cost limit (throws `cost_exceeded` past it). */
  readonly run: (context: object) => unknown;
  readonly extensionArgs: ExtensionArgs;
  /** The static worst-case cost (see cost.ts). */
  readonly cost: CostEstimate;
  /** `compiled`: runs as closures (closures.ts), cel-js only off their plain path; `interpreted`: cel-js. */
  readonly evaluation: Evaluation;
  /** What every evaluation costs before any loop (its node count; see cost.ts). */
  readonly baseCost: number;
  /** For an interpreted expression, the first node the closures do not compile (closures.ts). */
  readonly interpretedBecause: InterpretedReason | undefined;
  /**
   * What `run` tries first, when the expression compiled to closures (closures.ts): the closures
   * (after a few evaluations, the function generate.ts writes for them) under a started meter. It throws whenever they leave their plain path (then `run` decides), so
   * a caller may try it first itself, without `run`'s fallback (evaluate.ts, `plainValue`).
   */
  readonly plain: ((context: object) => unknown) | undefined;
  /** Writes the generated function now rather than at the {@link GENERATE_AFTER}th evaluation (nothing for an interpreted expression). */
  readonly ready: () => void;
}

/**
 * How an expression runs: compiled to closures, or interpreted by cel-js (closures.ts says which
 * shapes compile). Both give the same results; compiled is faster.
 *
 * @example
 * ```ts
 * const c = compileCondition('subject.department == "IT"');
 * if (c.ok) c.value.evaluation; // "compiled"
 * ```
 */
export type Evaluation = "compiled" | "interpreted";

// Assigned by the classes' static blocks: the compiled form stays private to this layer.
let internalsOfCondition: (c: CompiledCondition) => Compiled;
let internalsOfApprover: (c: CompiledApproverExpression) => Compiled;
let runOfConditionImpl: (c: CompiledCondition) => (context: object) => unknown;

/**
 * A rule condition that type-checked as bool. Evaluate it with `evaluateCondition`.
 *
 * @example
 * ```ts
 * const c = compileCondition('subject.department == "Engineering"');
 * if (c.ok) c.value.source; // 'subject.department == "Engineering"'
 * ```
 */
export class CompiledCondition {
  readonly #compiled: Compiled;
  // The hot path reads the cel-js function directly, without going through `#compiled`.
  readonly #run: (context: object) => unknown;
  /** The source text, as given. */
  readonly source: string;
  /** The checked type: `bool`, or `dyn` when only evaluation can tell (e.g. a profile value). */
  readonly resultType: string;
  /** Whether it runs compiled to closures or interpreted by cel-js (same results). */
  readonly evaluation: Evaluation;
  /**
   * Why it runs interpreted: the first node outside the compiled subset (its kind and source span);
   * `undefined` when compiled.
   */
  readonly interpretedBecause: InterpretedReason | undefined;

  /** @internal */
  constructor(compiled: Compiled) {
    this.#compiled = compiled;
    this.#run = compiled.run;
    this.source = compiled.source;
    this.resultType = compiled.type;
    this.evaluation = compiled.evaluation;
    this.interpretedBecause = compiled.interpretedBecause;
    Object.freeze(this);
  }

  static {
    internalsOfCondition = (c) => c.#compiled;
    runOfConditionImpl = (c) => c.#run;
  }
}

/**
 * An approver expression that type-checked as a User or a list of Users. Evaluate it with
 * `evaluateApproverExpression`.
 *
 * @example
 * ```ts
 * const c = compileApproverExpression("c1.directory.users.v1.GetManagers(subject)");
 * if (c.ok) c.value.resultType; // "list<User>"
 * ```
 */
export class CompiledApproverExpression {
  readonly #compiled: Compiled;
  readonly source: string;
  readonly resultType: string;
  /** Whether it runs compiled to closures or interpreted by cel-js (same results). */
  readonly evaluation: Evaluation;
  /** Why it runs interpreted (see {@link CompiledCondition.interpretedBecause}); `undefined` when compiled. */
  readonly interpretedBecause: InterpretedReason | undefined;

  /** @internal */
  constructor(compiled: Compiled) {
    this.#compiled = compiled;
    this.source = compiled.source;
    this.resultType = compiled.type;
    this.evaluation = compiled.evaluation;
    this.interpretedBecause = compiled.interpretedBecause;
    Object.freeze(this);
  }

  static {
    internalsOfApprover = (c) => c.#compiled;
  }
}

/**
 * The cel-js function of a compiled condition (the evaluation hot path).
 *
 * @example
 * ```ts
 * runOfCondition(condition)(context);
 * ```
 */
export function runOfCondition(c: CompiledCondition): (context: object) => unknown {
  return runOfConditionImpl(c);
}

/**
 * The compiled form behind a public handle (for evaluate and trace in this layer).
 *
 * @example
 * ```ts
 * compiledOf(condition).run(context);
 * ```
 */
export function compiledOf(c: CompiledCondition | CompiledApproverExpression): Compiled {
  return c instanceof CompiledCondition ? internalsOfCondition(c) : internalsOfApprover(c);
}

type CompileResult = Result<Compiled, readonly CelDiagnostic[]>;

/**
 * Compiles a source in an environment, without the cache (the tracer needs its own copy of the AST).
 * `closures: false` keeps it on cel-js; `anyResultType` skips the environment's result-type check.
 *
 * @example
 * ```ts
 * compileFresh(celEnvironment("condition"), "true").ok; // true
 * ```
 */
export function compileFresh(env: CelEnvironment, source: string, options: { readonly closures?: boolean; readonly anyResultType?: boolean } = {}): CompileResult {
  try {
    if (typeof source !== "string") return err([diagnostic("", "CEL_SYNTAX", "Syntax error: the expression must be a string", { start: 0, end: 0 })]);
    const { maxSourceLength } = CEL_RESOURCE_LIMITS;
    if (source.length > maxSourceLength)
      return err([
        diagnostic(source, "CEL_LIMIT_EXCEEDED", `expression too large: ${source.length} characters exceed the ${maxSourceLength} an expression may have`, {
          start: maxSourceLength,
          end: source.length,
        }),
      ]);
    const chain = longestPrefixChain(source);
    if (chain.length > LIMITS.maxDepth)
      return err([
        diagnostic(source, "CEL_LIMIT_EXCEEDED", `expression too large: ${chain.length} prefix operators in a row exceed maxDepth (${LIMITS.maxDepth})`, {
          start: chain.start,
          end: chain.start + chain.span,
        }),
      ]);
    let parsed;
    try {
      parsed = env.cel.parse(source);
    } catch (e: unknown) {
      return err([checkDiagnostic(env, source, errorParts(e), e)]);
    }
    const ast: unknown = parsed.ast;
    if (!isCelNode(ast)) return err([diagnostic(source, "CEL_INTERNAL", "internal error: unexpected AST", { start: 0, end: source.length })]);
    const outOfRange = MAY_HOLD_BIG_INT.test(source) ? intLiteralOutOfRange(ast, source) : undefined;
    if (outOfRange) return err([outOfRange]);
    const extensionArgs = desugar(ast, env.extensions, env.services);
    const checked = parsed.check();
    if (!checked.valid) return err([checkDiagnostic(env, source, errorParts(checked.error), checked.error)]);
    // has() of a message's field asks for more than its default, as in cel-go (presence.ts).
    markPresence(ast);
    // Neither operand of || or && decides: the left one's error, as in cel-go (logical.ts).
    markLogical(ast);
    const badLiteral = invalidNetworkLiteral(ast, source);
    if (badLiteral) return err([badLiteral]);
    // Out of CEL's int, duration and timestamp ranges is an error, as in cel-go (ranges.ts).
    guardRanges(ast);
    const type = celTypeNames(typeNameOf(ast.checkedType) ?? checked.type ?? "dyn");
    const wantsBool = env.spec.result === "bool";
    // Any result type: for tests that evaluate plain expressions (the CEL conformance cases) in an environment.
    const resultProblem = options.anyResultType ? undefined : wantsBool ? notBool(type) : notUsers(type);
    if (resultProblem) {
      // A list of users where a bool is wanted is an approver expression in the wrong place (expressions.mdx:
      // saving catches "Wrong return type (returning a user when true/false is expected)").
      const names = wantsBool && (type === "User" || type === "list<User>");
      const why = names ? "it names users, as an approval step's approver expression does (the \"approver\" environment)" : undefined;
      return err([diagnostic(source, wantsBool ? "CEL_NOT_BOOL" : "CEL_NOT_USERS", resultProblem, { start: ast.start, end: ast.end }, why)]);
    }
    // One cost plan for both evaluators: cel-js's instrumented nodes and the closures charge alike.
    const plan = costPlan(ast, extensionArgs);
    const meter = new CostMeter();
    instrumentCost(ast, extensionArgs, meter, plan);
    const cost = estimateCost(ast, extensionArgs);
    // The tracer's copy stays on cel-js: its instrumented nodes are what record the trace.
    const closures = options.closures === false ? undefined : compileClosuresOrReason(ast, extensionArgs, { evaluator: env.evaluator, meter, plan });
    // The closures, then their plain path written out as one function (generate.ts) once used.
    const closure = closures?.ok ? new Tier(closures.closure, () => generateClosure(ast, extensionArgs, { evaluator: env.evaluator, meter, plan })) : undefined;
    const run = meteredRun(parsed as (context: object) => unknown, meter, closure);
    const evaluation: Evaluation = closure ? "compiled" : "interpreted";
    const interpretedBecause = closures && !closures.ok ? Object.freeze(closures.reason) : undefined;
    const plain = closure && plainRun(meter, closure);
    const ready = closure ? () => closure.ready() : () => {};
    return ok(Object.freeze({ source, kind: env.kind, type, root: ast, run, extensionArgs, cost, evaluation, baseCost: meter.base, interpretedBecause, plain, ready }));
  } catch (e: unknown) {
    const message = e instanceof Error ? e.message : String(e);
    if (e instanceof RangeError) return err([tooDeep(source)]);
    return err([diagnostic(source, "CEL_INTERNAL", `internal error while compiling: ${message}`, { start: 0, end: source.length })]);
  }
}

/** A stack overflow in the parser, checker or compiler: the expression nests deeper than they can follow. */
function tooDeep(source: string): CelDiagnostic {
  return diagnostic(source, "CEL_LIMIT_EXCEEDED", "expression too large: it nests too deeply to check", { start: 0, end: source.length });
}

/**
 * The longest run of prefix operators (`!`, `-`; white space between them allowed) outside string
 * literals and `//` comments: where it starts, how many, and how many characters it spans. cel-js's parser recurses
 * once per prefix operator without counting it against `maxDepth`, so thousands in a row overflow
 * the stack; {@link compileFresh} refuses a run longer than `maxDepth` before parsing. A `-` between
 * operands is counted too (one more at most), and `!=` is not a prefix operator.
 *
 * @example
 * ```ts
 * longestPrefixChain("!!x && y != '!!!'"); // { length: 2, start: 0, span: 2 }
 * ```
 */
export function longestPrefixChain(source: string): { readonly length: number; readonly start: number; readonly span: number } {
  let best = { length: 0, start: 0, span: 0 };
  let run = 0;
  let runStart = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === 0x22 || c === 0x27) {
      // A string literal, single- or triple-quoted; a raw one (r"…") has no escapes.
      const quote = source.charAt(i);
      const close = source.startsWith(quote.repeat(3), i) ? quote.repeat(3) : quote;
      const raw = i > 0 && (source.charAt(i - 1) === "r" || source.charAt(i - 1) === "R");
      let j = i + close.length;
      while (j < source.length && !source.startsWith(close, j)) j += !raw && source.charAt(j) === "\\" ? 2 : 1;
      i = j + close.length - 1;
      run = 0;
      continue;
    }
    if (c === 0x2f && source.charCodeAt(i + 1) === 0x2f) {
      // A comment, to the end of its line: neither its dashes nor its quotes are the expression's.
      const end = source.indexOf("\n", i);
      i = end < 0 ? source.length : end;
      continue;
    }
    const prefix = c === 0x2d || (c === 0x21 && source.charCodeAt(i + 1) !== 0x3d);
    if (prefix) {
      if (run === 0) runStart = i;
      run++;
      if (run > best.length) best = { length: run, start: runStart, span: i + 1 - runStart };
    } else if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0c && c !== 0x0d) run = 0;
  }
  return best;
}

/** Evaluations of an expression on its closures before its generated function is written. */
const GENERATE_AFTER = 8;

/**
 * What a compiled expression runs first: its closures for its first {@link GENERATE_AFTER}
 * evaluations, then the function generate.ts writes for them (the same answers; see there), or the
 * closures still where none can be generated. Generating costs about half as much again as the rest
 * of a compile, which an expression that is only checked (lint, `check`) or evaluated once or twice
 * (one decision, the CLI) never pays back.
 */
class Tier {
  /** The function evaluations call now. */
  current: Closure;
  #calls = 0;
  readonly #closure: Closure;
  readonly #generate: () => Closure | undefined;
  constructor(closure: Closure, generate: () => Closure | undefined) {
    this.current = closure;
    this.#closure = closure;
    this.#generate = generate;
  }
  /** Counts an evaluation; at the {@link GENERATE_AFTER}th, switches to the generated function. */
  count(): void {
    if (++this.#calls === GENERATE_AFTER) this.current = this.#generate() ?? this.#closure;
  }
  get counting(): boolean {
    return this.#calls < GENERATE_AFTER;
  }
  /** Switches to the generated function now, as the {@link GENERATE_AFTER}th evaluation would. */
  ready(): void {
    if (this.#calls < GENERATE_AFTER) {
      this.#calls = GENERATE_AFTER;
      this.current = this.#generate() ?? this.#closure;
    }
  }
}

/**
 * Runs cel-js within the budget the context carries (under {@link COST_LIMIT_KEY}; the default
 * when absent). A budget that ran out fails the evaluation even when an error-absorbing `||`,
 * `&&` or quantifier swallowed the error it threw.
 */
function meteredRun(parsed: (context: object) => unknown, meter: CostMeter, closure: Tier | undefined): (context: object) => unknown {
  return (context) => {
    const limit: unknown = (context as Record<string, unknown>)[COST_LIMIT_KEY];
    const budget = typeof limit === "number" ? limit : DEFAULT_CEL_COST_LIMIT;
    meter.start(budget);
    if (closure) {
      if (closure.counting) closure.count();
      // The closures charge the meter as cel-js's instrumented nodes do (the same cost plan).
      try {
        return closure.current(context as Readonly<Record<string, unknown>>);
      } catch {
        // The budget ran out: the closures charge cel-js's units at cel-js's nodes in its order
        // (closures.ts), so cel-js would stop at the same node with the same error.
        if (meter.error) throw meter.error;
        // BAIL or an error: cel-js decides afresh, as if never compiled, under the same budget.
        meter.start(budget);
      }
    }
    let value: unknown;
    try {
      value = parsed(context);
    } catch (e: unknown) {
      throw meter.error ?? e;
    }
    if (meter.error) throw meter.error;
    return value;
  };
}

/** The closures alone, under the budget the context carries: `meteredRun`'s first try, without its fallback. */
function plainRun(meter: CostMeter, closure: Tier): (context: object) => unknown {
  return (context) => {
    const limit: unknown = (context as Record<string, unknown>)[COST_LIMIT_KEY];
    meter.start(typeof limit === "number" ? limit : DEFAULT_CEL_COST_LIMIT);
    if (closure.counting) closure.count();
    return closure.current(context as Readonly<Record<string, unknown>>);
  };
}

const typeNameOf = (t: TypeDeclaration | undefined): string | undefined => t?.name;

const INT64_MAX = 9223372036854775807n;

/**
 * Whether a source could hold an int literal beyond int64: one needs at least 19 decimal or 16 hex
 * digits in a row. Most sources have none, and skip {@link intLiteralOutOfRange}'s walk of the AST.
 */
const MAY_HOLD_BIG_INT = /\d{19}|0[xX][0-9a-fA-F]{16}/;

/**
 * The first int literal beyond int64, as cel-go's parser refuses it ("invalid int literal"); cel-js
 * reads any size. `-9223372036854775808` is one literal with its sign, as in cel-go's grammar; a
 * parenthesised `-(9223372036854775808)` is not. (cel-js refuses uint literals beyond uint64 itself.)
 */
function intLiteralOutOfRange(root: CelNode, source: string): CelDiagnostic | undefined {
  const stack: Array<readonly [CelNode, CelNode | undefined]> = [[root, undefined]];
  while (stack.length > 0) {
    const top = stack.pop();
    if (!top) break;
    const [node, parent] = top;
    const a: unknown = node.args;
    if (node.op === "value") {
      if (typeof a === "bigint" && a > INT64_MAX && !(a === INT64_MAX + 1n && signedLiteral(node, parent, source))) {
        return diagnostic(source, "CEL_SYNTAX", `Syntax error: invalid int literal ${source.slice(node.start, node.end)}: beyond the range of int64`, { start: node.start, end: node.end });
      }
      continue;
    }
    const visit = (x: unknown): void => {
      if (isCelNode(x)) stack.push([x, node]);
      else if (Array.isArray(x)) for (const y of x) visit(y);
    };
    if (node.op !== "id") visit(a);
  }
  return undefined;
}

/** Whether a literal is the operand of a minus written right before it (blanks between allowed). */
function signedLiteral(node: CelNode, parent: CelNode | undefined, source: string): boolean {
  return parent?.op === "-_" && parent.args === node && /^-\s*$/.test(source.slice(parent.start, node.start));
}

function notBool(type: string): string | undefined {
  return type === "bool" || type === "dyn" ? undefined : `expected type 'bool' but found '${type}'`;
}

function notUsers(type: string): string | undefined {
  const ok = ["User", "list<User>", "dyn", "list<dyn>", "list<T>"];
  return ok.includes(type) ? undefined : `expected type 'User' or 'list<User>' but found '${type}'`;
}

const BINARY_NAMES: Readonly<Record<string, string>> = {
  "==": "_==_",
  "!=": "_!=_",
  "<": "_<_",
  "<=": "_<=_",
  ">": "_>_",
  ">=": "_>=_",
  "+": "_+_",
  "-": "_-_",
  "*": "_*_",
  "/": "_/_",
  "%": "_%_",
  in: "@in",
  "!_": "!_",
  "-_": "-_",
};

function errorNode(e: unknown): CelNode | undefined {
  if (typeof e !== "object" || e === null || !("node" in e)) return undefined;
  const n: unknown = e.node;
  return isCelNode(n) ? n : undefined;
}

function checkDiagnostic(env: CelEnvironment, source: string, p: ErrorParts, e: unknown): CelDiagnostic {
  const span = p.span ?? { start: 0, end: source.length };
  const summary = celTypeNames(p.summary);
  const node = errorNode(e);
  if (p.kind === "parse") {
    if (p.code === "limit_exceeded") return diagnostic(source, "CEL_LIMIT_EXCEEDED", `expression too large: ${summary}`, span);
    // `a = b`: CEL compares with `==` (a lone `=` is no operator).
    const lone = /Unexpected character: '?='?$/.test(summary) && source[span.start] === "=" && source[span.start + 1] !== "=";
    return diagnostic(source, "CEL_SYNTAX", `Syntax error: ${summary}`, span, lone ? "CEL compares with '==': did you mean '=='?" : undefined);
  }
  if (e instanceof RangeError || /Maximum call stack size exceeded/.test(summary)) return tooDeep(source);
  if (p.kind !== "type") return diagnostic(source, "CEL_INTERNAL", `internal error while checking: ${summary}`, span);
  switch (p.code) {
    case "unknown_variable": {
      const name = summary.replace(/^Unknown variable: /, "");
      // A variable of another kind of expression (`user` in a configuration rule): said before any guess at a spelling.
      const elsewhere = otherContext(env.kind, name);
      if (elsewhere !== undefined) return diagnostic(source, "CEL_UNDECLARED_REFERENCE", `undeclared reference to '${name}'`, span, elsewhere);
      // `subject.status == ENABLED`: an enum value is written with its type (UserStatus.ENABLED).
      const spelt = enumSpellings(env, source, span, name);
      if (spelt.names.length > 0) return diagnostic(source, "CEL_UNDECLARED_REFERENCE", `undeclared reference to '${name}'`, span, enumHint(spelt));
      // `x == Engineering`: a word compared with something is most likely text without its quotes.
      const compared = /(?:==|!=|\bin|\[|,)\s*$/.test(source.slice(0, span.start)) || /^\s*(?:==|!=)/.test(source.slice(span.end));
      if (compared && /^[A-Za-z][\w-]*$/.test(name)) {
        const near = closest(name, env.variables);
        return diagnostic(source, "CEL_UNDECLARED_REFERENCE", `undeclared reference to '${name}'`, span, `text is written in quotes: "${name}"${near === undefined ? "" : `; or did you mean '${near}'?`}`);
      }
      return diagnostic(source, "CEL_UNDECLARED_REFERENCE", `undeclared reference to '${name}'`, span, hint(closest(name, env.variables)));
    }
    case "undeclared_reference":
      return diagnostic(source, "CEL_UNDECLARED_REFERENCE", summary, span);
    case "no_such_key": {
      const field = summary.replace(/^No such key: /, "");
      const base = node && Array.isArray(node.args) && isCelNode(node.args[0]) ? node.args[0] : undefined;
      if (base?.op === "id" && typeof base.args === "string" && env.namespaces.has(base.args)) {
        const members = env.namespaces.get(base.args) ?? [];
        // Nothing close (`TaskOrigin.COPILOT_CHAT`): the enum's values, so the right one can be picked.
        const d = ENUMS.find((x) => x.typeName === base.args);
        const listed = d === undefined ? undefined : `${d.typeName} values: ${d.members.filter((m) => m !== "UNSPECIFIED").join(", ")}`;
        return diagnostic(source, "CEL_UNDECLARED_REFERENCE", `undeclared reference to '${base.args}.${field}'`, span, hint(closest(field, members)) ?? listed);
      }
      const type = base?.checkedType?.name ?? "message";
      return diagnostic(source, "CEL_UNDEFINED_FIELD", `undefined field '${field}' on type '${celTypeNames(type)}'`, span, hint(closest(field, env.fields.get(type) ?? [])));
    }
    case "no_matching_overload": {
      const unknown = node ? unknownFunction(env, node) : undefined;
      if (unknown) return diagnostic(source, "CEL_UNDECLARED_REFERENCE", `undeclared reference to '${unknown}'`, span);
      return diagnostic(source, "CEL_NO_MATCHING_OVERLOAD", summary, span);
    }
    case "no_such_overload":
      return diagnostic(source, "CEL_NO_MATCHING_OVERLOAD", node ? operatorMessage(node) ?? summary : summary, span, node ? enumAgainstText(env, node) : undefined);
    case "invalid_regex":
      return diagnostic(source, "CEL_INVALID_REGEX", summary, span);
    case "unsupported_regex":
      return diagnostic(source, "CEL_UNSUPPORTED_REGEX", summary, span);
    case "regex_limit_exceeded":
      return diagnostic(source, "CEL_LIMIT_EXCEEDED", `expression too large: ${summary}`, span, "use fewer or smaller regular expressions");
    default:
      return diagnostic(source, "CEL_TYPE_ERROR", summary, span);
  }
}

const hint = (name: string | undefined): string | undefined => (name === undefined ? undefined : `did you mean '${name}'?`);

const CONTEXT_NAMES: Readonly<Record<CelEnvironmentKind, string>> = {
  condition: "policy rule conditions",
  approver: "approval step approver expressions",
  "config-rule": "entitlement configuration rule conditions",
};

/**
 * Where a variable this environment lacks is declared (expressions.mdx: saving catches "Undefined
 * variables (typos, wrong context)"), or `ctx`, an automation trigger's: not a policy expression.
 */
function otherContext(kind: CelEnvironmentKind, name: string): string | undefined {
  if (name === "ctx") return "'ctx' is an automation trigger's variable; automations are not policy expressions, and policy-sim does not model them";
  const where = (Object.keys(CONTEXT_NAMES) as CelEnvironmentKind[]).filter((k) => {
    if (k === kind) return false;
    const env = safeEnv(k);
    return env.ok && env.value.variables.has(name);
  });
  if (where.length === 0) return undefined;
  const declared = `'${name}' is declared in ${where.map((k) => CONTEXT_NAMES[k]).join(" and ")}`;
  return kind === "config-rule" ? `${CONTEXT_NAMES[kind]} see only 'entitlement'; ${declared}` : `${declared}, not in ${CONTEXT_NAMES[kind]}`;
}

/** The enum types of the environment (`UserStatus`, `TaskOrigin`…) and their members' short names. */
function enumMembers(env: CelEnvironment): [string, readonly string[]][] {
  const out: [string, readonly string[]][] = [];
  for (const [ns, members] of env.namespaces) if (ENUMS.some((d) => d.typeName === ns)) out.push([ns, members]);
  return out;
}

/**
 * Where `source` first fails to parse or type-check in `env` (the checker alone: nothing is
 * compiled): the error's start, 0 when it cannot tell, -1 when it checks.
 */
function firstCheckError(env: CelEnvironment, source: string): number {
  try {
    const parsed = env.cel.parse(source);
    if (!isCelNode(parsed.ast)) return 0;
    desugar(parsed.ast, env.extensions, env.services);
    const checked = parsed.check();
    return checked.valid ? -1 : (errorParts(checked.error).span?.start ?? 0);
  } catch {
    return 0;
  }
}

/**
 * The enum values a bare word names (`ENABLED` → `UserStatus.ENABLED`, `AppUserStatus.ENABLED`)
 * that fit where it stands: the expression checks with it, or fails only further on (another bare
 * word). `fits: false` with every value of that name when none does (`account.status == ENABLED`,
 * whose left side is a message, not an enum).
 */
function enumSpellings(env: CelEnvironment, source: string, span: Span, name: string): { readonly names: string[]; readonly fits: boolean } {
  const word = name.toUpperCase();
  const found: string[] = [];
  for (const [ns, members] of enumMembers(env)) if (members.includes(word)) found.push(`${ns}.${word}`);
  if (found.length === 0) return { names: [], fits: false };
  const fitting = found.filter((c) => {
    const at = firstCheckError(env, source.slice(0, span.start) + c + source.slice(span.end));
    return at === -1 || at >= span.start + c.length;
  });
  return fitting.length > 0 ? { names: fitting.slice(0, 3), fits: true } : { names: found.slice(0, 3), fits: false };
}

function enumHint({ names, fits }: { readonly names: readonly string[]; readonly fits: boolean }): string {
  if (!fits) return `an enum value is written with its type (${names.join(", ")}), but ${names.length === 1 ? "it does not compare" : "none of these compares"} with the other side here: check that side's type`;
  return names.length === 1 ? `an enum value is written with its type: ${names[0]}` : `an enum value is written with its type: one of ${names.join(", ")}`;
}

/** The member of enum `d` that `text` names (`"ENABLED"`, `"USER_STATUS_ENABLED"`, any case), or undefined. */
function memberNamed(d: (typeof ENUMS)[number], text: string): string | undefined {
  const upper = text.toUpperCase();
  const short = upper.startsWith(d.prefix) ? upper.slice(d.prefix.length) : upper;
  return d.members.includes(short) || short in d.aliases ? short : undefined;
}

/**
 * `subject.status == "ENABLED"`: an enum compared with text; the value it probably meant. Or
 * `account.status == AppUserStatus.ENABLED` (or `== "ENABLED"`): a message that holds an enum in a
 * field, compared with a value of that enum; the field to compare.
 */
function enumAgainstText(env: CelEnvironment, node: CelNode): string | undefined {
  if (BINARY_NAMES[node.op] === undefined || !Array.isArray(node.args)) return undefined;
  const [a, b] = node.args as unknown[];
  if (!isCelNode(a) || !isCelNode(b)) return undefined;
  const textOf = (n: CelNode): string | undefined => (n.op === "value" && typeof n.args === "string" ? n.args : undefined);
  for (const [e, t] of [[a, b], [b, a]] as const) {
    const d = ENUMS.find((x) => x.typeName === e.checkedType?.name);
    if (d === undefined || !env.namespaces.has(d.typeName)) continue;
    const message = t.checkedType?.name;
    const fields = message === undefined ? undefined : MESSAGE_FIELD_TYPES.get(message);
    const field = fields === undefined ? undefined : Object.keys(fields).find((f) => fields[f] === d.typeName && !f.includes("_"));
    const base = t.input.slice(t.start, t.end);
    if (field !== undefined) return `${base} is of type ${celTypeNames(message as string)}, whose field ${field} holds the ${d.typeName}: compare ${base}.${field}`;
    if (message !== "string") continue;
    const member = memberNamed(d, textOf(t) ?? "");
    if (member !== undefined) return `compare with the enum value, not text: ${d.typeName}.${member}`;
    return `${d.typeName} values are compared with ${d.typeName}.<NAME> (such as ${d.typeName}.${d.members[1] ?? d.members[0] ?? ""}), not with text`;
  }
  for (const [m, t] of [[a, b], [b, a]] as const) {
    const message = m.checkedType?.name;
    const fields = message === undefined ? undefined : MESSAGE_FIELD_TYPES.get(message);
    const text = textOf(t);
    if (fields === undefined || text === undefined) continue;
    for (const [field, type] of Object.entries(fields)) {
      const d = ENUMS.find((x) => x.typeName === type);
      if (d === undefined || field.includes("_") || !env.namespaces.has(d.typeName)) continue;
      const member = memberNamed(d, text);
      if (member === undefined) continue;
      const base = m.input.slice(m.start, m.end);
      return `${base} is of type ${celTypeNames(message as string)}; compare its field with the enum value: ${base}.${field} == ${d.typeName}.${member}`;
    }
  }
  return undefined;
}

function unknownFunction(env: CelEnvironment, node: CelNode): string | undefined {
  const a = node.args;
  if (!Array.isArray(a) || typeof a[0] !== "string") return undefined;
  if (node.op === "call" && !env.functionNames.has(a[0])) return a[0];
  if (node.op === "rcall" && !env.methodNames.has(a[0])) {
    const receiver = isCelNode(a[1]) ? qualifiedName(a[1]) : undefined;
    if (receiver !== undefined && env.extensions.namespaced.has(`${receiver}.${a[0]}`)) return undefined;
    return a[0];
  }
  return undefined;
}

function operatorMessage(node: CelNode): string | undefined {
  const name = BINARY_NAMES[node.op];
  if (name === undefined) return undefined;
  const operands = Array.isArray(node.args) ? node.args : [node.args];
  const types = operands.map((o: unknown) => (isCelNode(o) ? celTypeNames(o.checkedType?.name ?? "dyn") : "dyn"));
  return `found no matching overload for '${name}' applied to '(${types.join(", ")})'`;
}

// ---------------------------------------------------------------------------------------------
// Caches

/**
 * The bytes a cache entry is estimated to keep: a compiled expression about a kilobyte per node (its
 * AST, closures, cost plan; measured ~500 bytes, and as much again once traced or written out as a
 * function) and a fixed part; a failure its diagnostics (each holds a line of the source); and the
 * source itself, the key.
 *
 * @example
 * ```ts
 * compiledBytes('subject.department == "IT"', compileFresh(celEnvironment("condition"), 'subject.department == "IT"')); // 8200
 * ```
 */
export function compiledBytes(source: string, compiled: Result<Compiled, readonly CelDiagnostic[]>): number {
  const text = 2 * source.length;
  if (compiled.ok) return 4096 + 1000 * compiled.value.baseCost + 2 * text;
  let diagnostics = 0;
  for (const d of compiled.error) diagnostics += 256 + 2 * (d.message.length + d.excerpt.length);
  return 1024 + diagnostics + text;
}

interface CacheEntry<H> {
  readonly result: Result<H, readonly CelDiagnostic[]>;
  readonly bytes: number;
}

/** One environment's compiled sources, bounded by count and by estimated bytes (limits.ts). */
interface Cache<H> {
  readonly entries: Map<string, CacheEntry<H>>;
  bytes: number;
}

/**
 * Per environment, each source's result with its public handle made once. The handle sits in the
 * cache entry itself: a WeakMap from compiled forms to handles (as before) made every young
 * collection of a compile-heavy run (lint of a large tenant) pay for its ephemerons, which was most
 * of a cold compile's time.
 */
const conditionCaches = new WeakMap<CelEnvironment, Cache<CompiledCondition>>();
const approverCaches = new WeakMap<CelEnvironment, Cache<CompiledApproverExpression>>();

function compileCached<H>(caches: WeakMap<CelEnvironment, Cache<H>>, env: CelEnvironment, source: string, handle: (c: Compiled) => H): Result<H, readonly CelDiagnostic[]> {
  let cache = caches.get(env);
  if (!cache) {
    cache = { entries: new Map(), bytes: 0 };
    caches.set(env, cache);
  }
  const hit = cache.entries.get(source);
  if (hit) return hit.result;
  const compiled = compileFresh(env, source);
  const result: Result<H, readonly CelDiagnostic[]> = Object.freeze(compiled.ok ? ok(handle(compiled.value)) : err(Object.freeze(compiled.error)));
  const bytes = compiledBytes(typeof source === "string" ? source : "", compiled);
  const { compileCacheEntries, compileCacheBytes } = CEL_RESOURCE_LIMITS;
  // Not kept when it alone would fill the cache (not expected: 10,000 nodes are ~10 MB).
  if (bytes > compileCacheBytes) return result;
  // Oldest first out: what-if runs over many policies, and clients sending many large expressions,
  // must not grow memory without bound.
  while (cache.entries.size > 0 && (cache.entries.size >= compileCacheEntries || cache.bytes + bytes > compileCacheBytes)) {
    const oldest = cache.entries.entries().next();
    if (oldest.done) break;
    cache.entries.delete(oldest.value[0]);
    cache.bytes -= oldest.value[1].bytes;
  }
  cache.entries.set(source, { result, bytes });
  cache.bytes += bytes;
  return result;
}

/**
 * What an environment's cache of compiled conditions (or, for `"approver"`, approver expressions)
 * holds now: entries and their estimated bytes ({@link compiledBytes}), both bounded (limits.ts).
 *
 * @example
 * ```ts
 * compileCacheStats("condition"); // { entries: 42, bytes: 463_120 }
 * ```
 */
export function compileCacheStats(kind: CelEnvironmentKind): { readonly entries: number; readonly bytes: number } {
  const env = safeEnv(kind);
  const cache = env.ok ? (kind === "approver" ? approverCaches : conditionCaches).get(env.value) : undefined;
  return { entries: cache?.entries.size ?? 0, bytes: cache?.bytes ?? 0 };
}

function safeEnv(kind: CelEnvironmentKind): Result<CelEnvironment, readonly CelDiagnostic[]> {
  try {
    return ok(celEnvironment(kind));
  } catch (e: unknown) {
    const message = e instanceof Error ? e.message : String(e);
    return err([diagnostic("", "CEL_INTERNAL", `internal error building the CEL environment: ${message}`, { start: 0, end: 0 })]);
  }
}


/**
 * The environments whose expressions are conditions (they must return bool).
 *
 * @example
 * ```ts
 * const e: ConditionEnvironment = "config-rule";
 * ```
 */
export type ConditionEnvironment = "condition" | "config-rule";

/**
 * Parses and type-checks a condition (it must be bool), once per distinct source text per
 * environment: a policy rule or wait condition (`"condition"`, the default) or an entitlement
 * configuration rule condition (`"config-rule"`, which sees `entitlement` only).
 *
 * @example
 * ```ts
 * const c = compileCondition("subject.departmnt == 'IT'");
 * if (!c.ok) c.error[0]?.message; // "undefined field 'departmnt' on type 'User'"
 * compileCondition('entitlement.role.display_name.contains("Admin")', "config-rule").ok; // true
 * ```
 */
export function compileCondition(source: string, environment: ConditionEnvironment = "condition"): Result<CompiledCondition, readonly CelDiagnostic[]> {
  const env = safeEnv(environment === "config-rule" ? "config-rule" : "condition");
  if (!env.ok) return env;
  return compileCached(conditionCaches, env.value, source, (c) => new CompiledCondition(c));
}

/**
 * Compiles a rule condition as {@link compileCondition} does (into the same cache) and writes its
 * generated function now, where an evaluation would write it at its {@link GENERATE_AFTER}th run:
 * what a caller does ahead of a burst of evaluations it knows will come (`prepareWhatIf`). Results
 * never depend on it. Returns whether the condition compiled.
 *
 * @example
 * ```ts
 * readyCondition('subject.department == "IT"'); // true
 * readyCondition("subject.department"); // false: not a bool
 * ```
 */
export function readyCondition(source: string, environment: ConditionEnvironment = "condition"): boolean {
  const r = compileCondition(source, environment);
  if (r.ok) internalsOfCondition(r.value).ready();
  return r.ok;
}

/**
 * The diagnostics of an expression in one of the service's environments: empty when the service
 * would accept it. The environment is that of policy rule conditions unless given: `"approver"`
 * checks an approval step expression (it must name users), `"config-rule"` an entitlement
 * configuration rule condition. Never throws.
 *
 * @example
 * ```ts
 * checkCondition("subject.department == 'IT'"); // []
 * checkCondition("subject.department")[0]?.code; // "CEL_NOT_BOOL"
 * checkCondition("subject.department == 'IT'", "config-rule")[0]?.code; // "CEL_UNDECLARED_REFERENCE"
 * checkCondition("", "config-rule"); // []: an empty configuration rule condition is a catch-all
 * ```
 */
export function checkCondition(source: string, environment: CelEnvironmentKind = "condition", options: CheckOptions = {}): readonly CelDiagnostic[] {
  if (environment === "approver") return checkApproverExpression(source, options);
  // "Leave the condition empty to create a catch-all default rule" (the configuration rules page).
  if (environment === "config-rule" && typeof source === "string" && source.trim() === "") return [];
  const r = compileCondition(source, environment);
  return r.ok ? checkedDiagnostics(internalsOfCondition(r.value), options) : r.error;
}

/**
 * Parses and type-checks an approver expression (a User or a list of Users), once per source.
 *
 * @example
 * ```ts
 * compileApproverExpression("appOwners").ok; // true
 * compileApproverExpression("subject.email").ok; // false: CEL_NOT_USERS
 * ```
 */
export function compileApproverExpression(source: string): Result<CompiledApproverExpression, readonly CelDiagnostic[]> {
  const env = safeEnv("approver");
  if (!env.ok) return env;
  return compileCached(approverCaches, env.value, source, (c) => new CompiledApproverExpression(c));
}

/**
 * The diagnostics of an approver expression. Never throws.
 *
 * @example
 * ```ts
 * checkApproverExpression("c1.directory.users.v1.GetManagers(subject)"); // []
 * ```
 */
export function checkApproverExpression(source: string, options: CheckOptions = {}): readonly CelDiagnostic[] {
  const r = compileApproverExpression(source);
  return r.ok ? checkedDiagnostics(internalsOfApprover(r.value), options) : r.error;
}

/**
 * Options of {@link checkCondition} and {@link checkApproverExpression}.
 *
 * @example
 * ```ts
 * checkCondition(source, "condition", { costLimit: 100_000 });
 * ```
 */
export interface CheckOptions {
  /**
   * The cost limit the static estimate must stay within (default {@link DEFAULT_CEL_COST_LIMIT}), at
   * most `CEL_RESOURCE_LIMITS.maxCostLimit` (limits.ts), which no evaluation exceeds either.
   */
  readonly costLimit?: number | undefined;
}

/**
 * What a check says of an expression that compiles: a time unit or zone literal that can never be
 * valid (`CEL_INVALID_CONSTANT`: the expression compiles and runs, as the service's would, and that
 * call fails each time it is reached; `a || …` may still hold), and a cost over the limit.
 */
function checkedDiagnostics(c: Compiled, options: CheckOptions): readonly CelDiagnostic[] {
  const constant = invalidTimeLiteral(c.root, c.source, c.extensionArgs);
  const cost = costDiagnostics(c, options);
  return constant === undefined ? cost : [constant, ...cost];
}

function costDiagnostics(c: Compiled, options: CheckOptions): readonly CelDiagnostic[] {
  // No evaluation gets more than the hard limit, whatever it asks for (cost.ts, `CostMeter.start`).
  const limit = Math.min(options.costLimit ?? DEFAULT_CEL_COST_LIMIT, CEL_RESOURCE_LIMITS.maxCostLimit);
  if (!(c.cost.cost > limit)) return [];
  const cost = limit === DEFAULT_CEL_COST_LIMIT ? c.cost : estimateCost(c.root, c.extensionArgs, limit);
  const { list, string } = WORST_CASE_SIZES;
  const message =
    `estimated cost ${formatUnits(cost.cost)} exceeds the limit of ${formatUnits(limit)} ` +
    `(worst case: input lists of ${list} items, strings of ${string} characters); most of it is here`;
  return [diagnostic(c.source, "CEL_COST_LIMIT", message, cost.span, "iterate over fewer items, or nest fewer comprehensions")];
}

const formatUnits = (n: number): string => (n >= Number.MAX_SAFE_INTEGER ? "more than 2^53" : Math.round(n).toLocaleString("en-US"));

/**
 * The static worst-case cost of an expression (see {@link WORST_CASE_SIZES}) and the
 * sub-expression that carries most of it, or why it does not compile.
 *
 * @example
 * ```ts
 * const e = estimateExpressionCost("[1, 2, 3].all(x, x > 0)", "condition");
 * if (e.ok) e.value.cost; // 21
 * ```
 */
export function estimateExpressionCost(source: string, kind: CelEnvironmentKind): Result<CostEstimate, readonly CelDiagnostic[]> {
  const r = kind === "condition" ? compileCondition(source) : compileApproverExpression(source);
  return r.ok ? ok(compiledOf(r.value).cost) : r;
}

/**
 * How an expression that compiles runs: `compiled` to closures, or `interpreted` by cel-js with the
 * node that keeps it so (its kind) and where it is. Same results either way; `lint` reports the
 * interpreted ones as notes (code `CEL_INTERPRETED`).
 *
 * @example
 * ```ts
 * const e: ExpressionEvaluation = { evaluation: "interpreted", node: "cel.bind", location };
 * ```
 */
export type ExpressionEvaluation =
  | { readonly evaluation: "compiled" }
  | { readonly evaluation: "interpreted"; readonly node: string; readonly location: SourceLocation };

/**
 * Whether an expression runs compiled or interpreted, and why; `undefined` when it does not compile
 * at all (its diagnostics say why). Never throws.
 *
 * @example
 * ```ts
 * expressionEvaluation('subject.department == "IT"', "condition"); // { evaluation: "compiled" }
 * expressionEvaluation("cel.bind(d, subject.department, d == 'IT')", "condition")?.evaluation; // "interpreted"
 * ```
 */
export function expressionEvaluation(source: string, kind: CelEnvironmentKind): ExpressionEvaluation | undefined {
  const r = kind === "approver" ? compileApproverExpression(source) : compileCondition(source, kind);
  if (!r.ok) return undefined;
  const why = r.value.interpretedBecause;
  if (r.value.evaluation === "compiled" || why === undefined) return { evaluation: "compiled" };
  return { evaluation: "interpreted", node: why.node, location: locate(source, { start: why.start, end: why.end }) };
}
