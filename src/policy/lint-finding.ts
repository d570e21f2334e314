/**
 * The shape of a lint finding and the helpers every lint check builds findings with, so a code's
 * severity and the CEL location format are decided in one place.
 */
import { expressionEvaluation, type CelDiagnostic, type CelDiagnosticCode, type CelEnvironmentKind, type Span } from "../cel/index.js";
import { type LintCode, type LintSeverity, severityOf } from "./lint-codes.js";

/**
 * Where in a CEL expression a finding is: the span (UTF-16 offsets, end exclusive), 1-based line and
 * column of its start and end, the excerpt with carets under the span, the CEL layer's own code, and
 * a suggestion when there is one.
 *
 * @example
 * ```ts
 * const cel: FindingCel = { span: { start: 8, end: 17 }, line: 1, column: 9, endLine: 1, endColumn: 18,
 *   excerpt: 'subject.departmnt == "x"\n        ^^^^^^^^^', celCode: "CEL_UNDEFINED_FIELD", hint: "did you mean 'department'?" };
 * ```
 */
export interface FindingCel {
  readonly span: Span;
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
  readonly excerpt: string;
  /** The CEL layer's code: a check-time diagnostic's, or `CEL_INTERPRETED` for the note of {@link interpretedFindings}. */
  readonly celCode: CelDiagnosticCode | "CEL_INTERPRETED";
  readonly hint?: string;
}

/**
 * One problem `lintPolicy` found: a stable `code`, its `severity` (fixed per code, see `LINT_CODES`),
 * the JSONPath of the offending value in the wire document (`$.rules[2].condition`), a message a
 * person can act on, the CEL location for CEL problems, and the paths of related values (the rule
 * that shadows an unreachable one).
 *
 * @example
 * ```ts
 * const f: Finding = { code: "DANGLING_STEP_KEY", severity: "error", path: "$.rules[0].stepKey",
 *   message: 'rule 0 selects step key "eng", which is not a key of policySteps' };
 * ```
 */
export interface Finding {
  readonly code: LintCode;
  readonly severity: LintSeverity;
  readonly path: string;
  readonly message: string;
  readonly cel?: FindingCel;
  readonly related?: readonly string[];
}

/**
 * Builds a finding; the severity comes from the code.
 *
 * @example
 * ```ts
 * finding("EMPTY_STEPS", "$.policySteps.grant.steps", "the baseline has no steps");
 * ```
 */
export function finding(code: LintCode, path: string, message: string, related?: readonly string[]): Finding {
  const base = { code, severity: severityOf(code), path, message };
  return related === undefined || related.length === 0 ? base : { ...base, related };
}

function celCode(code: CelDiagnosticCode): LintCode {
  switch (code) {
    case "CEL_SYNTAX":
      return "CEL_SYNTAX_ERROR";
    // The service reports all of these as a failed type check on save; the CEL layer's finer code
    // stays on `cel.celCode`.
    case "CEL_UNDECLARED_REFERENCE":
    case "CEL_UNDEFINED_FIELD":
    case "CEL_NO_MATCHING_OVERLOAD":
    case "CEL_TYPE_ERROR":
      return "CEL_TYPE_ERROR";
    case "CEL_NOT_BOOL":
    case "CEL_NOT_USERS":
    case "CEL_INVALID_REGEX":
    case "CEL_UNSUPPORTED_REGEX":
    case "CEL_INVALID_CONSTANT":
    case "CEL_LIMIT_EXCEEDED":
    case "CEL_COST_LIMIT":
    case "CEL_INTERNAL":
      return code;
    default: {
      const never: never = code;
      return never;
    }
  }
}

/**
 * Turns the CEL layer's diagnostics of one expression into findings at `path`; `what` names the
 * expression in the message ("rule 2 condition").
 *
 * @example
 * ```ts
 * celFindings(checkCondition("subject.departmnt == 'x'"), "$.rules[0].condition", "rule 0 condition");
 * // [{ code: "CEL_TYPE_ERROR", path: "$.rules[0].condition", cel: { line: 1, column: 9, … }, … }]
 * ```
 */
export function celFindings(diagnostics: readonly CelDiagnostic[], path: string, what: string): Finding[] {
  return diagnostics.map((d) => {
    const cel: FindingCel = {
      span: d.span,
      line: d.line,
      column: d.column,
      endLine: d.endLine,
      endColumn: d.endColumn,
      excerpt: d.excerpt,
      celCode: d.code,
      ...(d.hint === undefined ? {} : { hint: d.hint }),
    };
    const hint = d.hint === undefined ? "" : ` (${d.hint})`;
    const code = celCode(d.code);
    return { code, severity: severityOf(code), path, message: `${what}, line ${d.line} column ${d.column}: ${d.message}${hint}`, cel };
  });
}

/**
 * The note that an expression runs interpreted by cel-js rather than compiled (code
 * `CEL_INTERPRETED`, severity info), pointing at the construct that keeps it so; nothing for an
 * expression that compiles to closures or does not compile at all (its errors say why).
 *
 * @example
 * ```ts
 * interpretedFindings("cel.bind(d, subject.department, d == 'IT')", "condition", "$.rules[0].condition", "rule 0 condition");
 * // [{ code: "CEL_INTERPRETED", severity: "info", message: "rule 0 condition, line 1 column 1: runs on the interpreter …", … }]
 * ```
 */
export function interpretedFindings(source: string, kind: CelEnvironmentKind, path: string, what: string): Finding[] {
  const e = expressionEvaluation(source, kind);
  if (e === undefined || e.evaluation === "compiled") return [];
  const l = e.location;
  const cel: FindingCel = { span: l.span, line: l.line, column: l.column, endLine: l.endLine, endColumn: l.endColumn, excerpt: l.excerpt, celCode: "CEL_INTERPRETED" };
  const message = `${what}, line ${l.line} column ${l.column}: runs on the cel-js interpreter, not compiled (${e.node} is not in the compiled subset); same results, slower`;
  return [{ code: "CEL_INTERPRETED", severity: severityOf("CEL_INTERPRETED"), path, message, cel }];
}
