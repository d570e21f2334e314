/**
 * Check-time diagnostics and run-time errors as values, with source positions a person can use:
 * a span, 1-based line and column, and an excerpt with carets under the span. The codes are stable;
 * the messages follow cel-go's wording where the service's users will have seen it
 * ("undeclared reference to 'x'", "found no matching overload", "expected type 'bool' but found 'User'").
 */
import { EvaluationError, ParseError, TypeError as CelTypeError } from "@marcbachmann/cel-js";

/**
 * A source range in UTF-16 code units, `end` exclusive.
 *
 * @example
 * ```ts
 * const s: Span = { start: 8, end: 17 }; // "departmnt" in `subject.departmnt == "IT"`
 * ```
 */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/**
 * A span located in its source: 1-based line and column (columns count code points) of its start
 * and end, and the excerpt to print under a message.
 *
 * @example
 * ```ts
 * locate('subject.departmnt == "IT"', { start: 8, end: 17 }).excerpt;
 * // 'subject.departmnt == "IT"\n        ^^^^^^^^^'
 * ```
 */
export interface SourceLocation {
  readonly span: Span;
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
  readonly excerpt: string;
}

/**
 * The codes of check-time diagnostics.
 *
 * @example
 * ```ts
 * const c: CelDiagnosticCode = "CEL_UNDEFINED_FIELD";
 * ```
 */
export type CelDiagnosticCode =
  | "CEL_SYNTAX"
  | "CEL_LIMIT_EXCEEDED"
  | "CEL_COST_LIMIT"
  | "CEL_UNDECLARED_REFERENCE"
  | "CEL_UNDEFINED_FIELD"
  | "CEL_NO_MATCHING_OVERLOAD"
  | "CEL_TYPE_ERROR"
  | "CEL_NOT_BOOL"
  | "CEL_NOT_USERS"
  | "CEL_INVALID_REGEX"
  | "CEL_UNSUPPORTED_REGEX"
  | "CEL_INVALID_CONSTANT"
  | "CEL_INTERNAL";

/**
 * A problem found when checking an expression: it would be refused on save.
 *
 * @example
 * ```ts
 * const [d] = checkCondition("subject.departmnt == 'IT'");
 * d?.code; // "CEL_UNDEFINED_FIELD"
 * d?.line; // 1
 * d?.column; // 9
 * ```
 */
export interface CelDiagnostic extends SourceLocation {
  readonly code: CelDiagnosticCode;
  readonly message: string;
  readonly severity: "error";
  /** A suggestion, e.g. the declared field closest to a misspelt one. */
  readonly hint?: string;
}

/**
 * The codes of run-time errors.
 *
 * @example
 * ```ts
 * const c: CelRuntimeErrorCode = "CEL_NO_SUCH_KEY";
 * ```
 */
export type CelRuntimeErrorCode =
  | "CEL_NO_SUCH_KEY"
  | "CEL_INDEX_OUT_OF_BOUNDS"
  | "CEL_DIVISION_BY_ZERO"
  | "CEL_OVERFLOW"
  | "CEL_NO_MATCHING_OVERLOAD"
  | "CEL_TYPE_MISMATCH"
  | "CEL_NOT_FOUND"
  | "CEL_INVALID_ARGUMENT"
  | "CEL_UNKNOWN_VARIABLE"
  | "CEL_NOT_BOOL"
  | "CEL_NOT_USERS"
  | "CEL_INVALID_INPUT"
  | "CEL_COST_EXCEEDED"
  | "CEL_EVALUATION_ERROR"
  | "CEL_INTERNAL";

/**
 * An expression that failed while evaluating (a missing profile key, a user not in the directory):
 * the value of the expression is this error. `location` is `null` for input problems.
 *
 * @example
 * ```ts
 * const r = evaluateCondition(compiled, input);
 * if (!r.ok) r.error.code; // "CEL_NO_SUCH_KEY"
 * ```
 */
export interface CelRuntimeError {
  readonly code: CelRuntimeErrorCode;
  readonly message: string;
  readonly location: SourceLocation | null;
  /** cel-js's own code (`no_such_key`, …), for debugging. */
  readonly detail: string;
}

/**
 * A span's position without the excerpt: what a trace node needs.
 *
 * @example
 * ```ts
 * const p: SourcePosition = { span: { start: 0, end: 1 }, line: 1, column: 1, endLine: 1, endColumn: 2 };
 * ```
 */
export type SourcePosition = Omit<SourceLocation, "excerpt">;

const SURROGATE = /[\uD800-\uDFFF]/;

/** The most of one line an excerpt shows, and how much of it comes before the span. */
const EXCERPT_MAX = 240;
const EXCERPT_BEFORE = 80;
const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/**
 * One source's line starts, computed once so that locating many spans in it (every node of a
 * traced condition) costs a binary search each instead of a walk over the text. Columns count code
 * points; when the source holds no surrogate, code points are UTF-16 units and need no counting.
 *
 * @example
 * ```ts
 * new SourceLines("a &&\n  b.c").locate({ start: 7, end: 10 }).line; // 2
 * ```
 */
export class SourceLines {
  readonly #source: string;
  /** `#starts[k]` is the offset where line k + 1 begins (just after the k-th newline). */
  readonly #starts: number[] = [0];
  readonly #surrogates: boolean;

  constructor(source: string) {
    this.#source = source;
    for (let i = source.indexOf("\n"); i >= 0; i = source.indexOf("\n", i + 1)) this.#starts.push(i + 1);
    this.#surrogates = SURROGATE.test(source);
  }

  /** Line, column and span of `span`, clamped to the source. */
  position(span: Span): SourcePosition {
    const source = this.#source;
    const start = clamp(span.start, 0, source.length);
    const end = clamp(Math.max(span.end, start), start, source.length);
    const k = this.#lineIndex(start);
    const endK = this.#lineIndex(end);
    return {
      span: { start, end },
      line: k + 1,
      column: this.#codePoints(this.#lineStart(k), start) + 1,
      endLine: endK + 1,
      endColumn: this.#codePoints(this.#lineStart(endK), end) + 1,
    };
  }

  /** {@link position} and the excerpt with carets under the span (a long line cut to a window around it). */
  locate(span: Span): SourceLocation {
    const p = this.position(span);
    const source = this.#source;
    const { start, end } = p.span;
    const lineStart = this.#lineStart(p.line - 1);
    let lineEnd = source.indexOf("\n", lineStart);
    if (lineEnd < 0) lineEnd = source.length;
    // A line longer than an excerpt shows is cut to a window from a little before the span, each
    // cut marked "…": a megabyte literal on one line must not make a megabyte excerpt.
    let from = lineStart;
    let to = lineEnd;
    if (lineEnd - lineStart > EXCERPT_MAX) {
      from = Math.max(lineStart, start - EXCERPT_BEFORE);
      if (isLowSurrogate(source.charCodeAt(from)) && from > lineStart) from++;
      to = Math.min(lineEnd, from + EXCERPT_MAX);
      if (to < lineEnd && isLowSurrogate(source.charCodeAt(to))) to--;
    }
    const line = source.slice(from, to);
    const cut = (from > lineStart ? "…" : "") + (line.endsWith("\r") && to === lineEnd ? line.slice(0, -1) : line) + (to < lineEnd ? "…" : "");
    const text = cut;
    const before = source.slice(from, start);
    // Keep tabs in the caret line so the carets stay aligned under tab-indented source. Without
    // tabs (the usual case) the lead is spaces, one per code point.
    const lead =
      (from > lineStart ? " " : "") +
      (!before.includes("\t") ? " ".repeat(this.#codePoints(from, start)) : Array.from(before, (ch) => (ch === "\t" ? "\t" : " ")).join(""));
    const width = Math.max(1, this.#codePoints(start, Math.min(end, to)));
    // A literal, not a spread: on Node 20 spreading into a new object costs about a microsecond.
    return { span: p.span, line: p.line, column: p.column, endLine: p.endLine, endColumn: p.endColumn, excerpt: `${text}\n${lead}${"^".repeat(width)}` };
  }

  #lineStart(k: number): number {
    return this.#starts[k] ?? 0;
  }

  /** The last line whose start is at or before `offset` (a newline at `offset` itself is not before it). */
  #lineIndex(offset: number): number {
    const starts = this.#starts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Code points in `[from, to)`, as `Array.from(source.slice(from, to)).length` counts them. */
  #codePoints(from: number, to: number): number {
    if (!this.#surrogates) return to - from;
    const s = this.#source;
    let pairs = 0;
    for (let i = from; i + 1 < to; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff) {
        const d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          pairs++;
          i++;
        }
      }
    }
    return to - from - pairs;
  }
}

/**
 * Locates a span in its source.
 *
 * @example
 * ```ts
 * locate("a &&\n  b.c", { start: 7, end: 10 }).line; // 2
 * ```
 */
export function locate(source: string, span: Span): SourceLocation {
  return new SourceLines(source).locate(span);
}

const clamp = (n: number, lo: number, hi: number): number => (Number.isFinite(n) ? Math.min(hi, Math.max(lo, Math.trunc(n))) : lo);

/**
 * Builds a diagnostic at a span.
 *
 * @example
 * ```ts
 * diagnostic("x", "CEL_SYNTAX", "Syntax error: unexpected end", { start: 1, end: 1 });
 * ```
 */
export function diagnostic(source: string, code: CelDiagnosticCode, message: string, span: Span, hint?: string): CelDiagnostic {
  const base = { code, message, severity: "error" as const, ...locate(source, span) };
  return hint === undefined ? base : { ...base, hint };
}

/**
 * cel-js writes the protobuf names of the well-known types; CEL users know them by these.
 *
 * @example
 * ```ts
 * celTypeNames("no such overload: google.protobuf.Timestamp + int"); // "no such overload: timestamp + int"
 * ```
 */
export function celTypeNames(message: string): string {
  return message.replaceAll("google.protobuf.Timestamp", "timestamp").replaceAll("google.protobuf.Duration", "duration");
}

/**
 * An error's code, summary and range, whatever threw it.
 *
 * @example
 * ```ts
 * const p: ErrorParts = { kind: "type", code: "no_such_key", summary: "No such key: x", span: { start: 8, end: 9 } };
 * ```
 */
export interface ErrorParts {
  readonly kind: "parse" | "type" | "evaluation" | "other";
  readonly code: string;
  readonly summary: string;
  readonly span: Span | undefined;
}

/**
 * Reads a thrown value from cel-js (or from this package's functions).
 *
 * @example
 * ```ts
 * errorParts(new Error("boom")).kind; // "other"
 * ```
 */
export function errorParts(e: unknown): ErrorParts {
  const kind = e instanceof ParseError ? "parse" : e instanceof CelTypeError ? "type" : e instanceof EvaluationError ? "evaluation" : "other";
  if (kind === "other") {
    const message = e instanceof Error ? e.message : String(e);
    return { kind, code: e instanceof RangeError ? "range_error" : "internal", summary: message, span: undefined };
  }
  // All three cel-js errors extend one class with these getters.
  const err = e as ParseError;
  const range = err.range;
  const span = range && Number.isFinite(range.start) ? { start: range.start, end: range.end } : undefined;
  return { kind, code: err.code, summary: err.summary, span };
}

/**
 * Turns whatever an evaluation threw into a {@link CelRuntimeError}.
 *
 * @example
 * ```ts
 * runtimeError("x.y", new Error("boom")).code; // "CEL_INTERNAL"
 * ```
 */
export function runtimeError(source: string, e: unknown): CelRuntimeError {
  const p = errorParts(e);
  const location = p.span ? locate(source, p.span) : null;
  let summary = celTypeNames(p.summary);
  if (p.code === "unknown_variable") summary = summary.replace(/^Unknown variable: (.*)$/, "no value for variable '$1' in this evaluation");
  // cel-js writes `obj.length || obj.size`, so an empty list's size comes out as undefined.
  if (p.code === "index_out_of_bounds") summary = summary.replace(/>= size undefined$/, ">= size 0");
  // A date such as "2027-03-31" is ISO 8601 too; timestamp() takes RFC 3339's date-time, as cel-go.
  if (p.code === "invalid_timestamp") summary = summary.replace(/^timestamp\(\) requires a string in ISO 8601 format$/, 'timestamp() requires an RFC 3339 date-time such as "2027-03-31T00:00:00Z"');
  return { code: runtimeCode(p), message: summary, location, detail: p.code };
}

function runtimeCode(p: ErrorParts): CelRuntimeErrorCode {
  if (p.kind === "other") return p.code === "range_error" ? "CEL_EVALUATION_ERROR" : "CEL_INTERNAL";
  switch (p.code) {
    case "no_such_key":
      return "CEL_NO_SUCH_KEY";
    case "index_out_of_bounds":
    case "index_out_of_range":
      return "CEL_INDEX_OUT_OF_BOUNDS";
    case "division_by_zero":
    case "modulo_by_zero":
      return "CEL_DIVISION_BY_ZERO";
    case "numeric_overflow":
      return "CEL_OVERFLOW";
    case "no_matching_overload":
    case "no_such_overload":
      return "CEL_NO_MATCHING_OVERLOAD";
    case "field_type_mismatch":
    case "list_item_type_mismatch":
    case "variable_type_mismatch":
    case "invalid_logical_operand":
    case "invalid_condition_type":
    case "unsupported_type":
      return "CEL_TYPE_MISMATCH";
    case "not_found":
      return "CEL_NOT_FOUND";
    case "unknown_variable":
      return "CEL_UNKNOWN_VARIABLE";
    case "cost_exceeded":
      return "CEL_COST_EXCEEDED";
    case "invalid_argument":
    case "invalid_regular_expression":
    case "invalid_timestamp":
    case "invalid_duration":
    case "int_conversion_error":
    case "uint_conversion_error":
    case "double_conversion_error":
    case "bool_conversion_error":
      return "CEL_INVALID_ARGUMENT";
    default:
      return "CEL_EVALUATION_ERROR";
  }
}

/**
 * Builds a run-time error that is not tied to a source position (bad input data, wrong result type).
 *
 * @example
 * ```ts
 * plainRuntimeError("CEL_INVALID_INPUT", "task.numericId: not an int64", "input");
 * ```
 */
export function plainRuntimeError(code: CelRuntimeErrorCode, message: string, detail: string, location: SourceLocation | null = null): CelRuntimeError {
  return { code, message, location, detail };
}

export { closest } from "../text/closest.js";
