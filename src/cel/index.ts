/**
 * The service's CEL environments (docs/domain.md §5) over @marcbachmann/cel-js: rule conditions and
 * approver expressions, compiled once per source text, evaluated against values prepared once per
 * task, traced sub-expression by sub-expression for explanations. Nothing here throws; failures are
 * diagnostics (check time) or {@link CelRuntimeError} values (run time).
 *
 * @example
 * ```ts
 * import { compileCondition, prepareConditionInput, evaluateCondition } from "policy-sim";
 * const c = compileCondition('subject.department == "Engineering" && subject.status == UserStatus.ENABLED');
 * const p = prepareConditionInput({ subject, task, entitlement, account: null, ip: null, now, directory });
 * if (c.ok && p.ok) evaluateCondition(c.value, p.value); // { ok: true, value: true }
 * ```
 */
export {
  checkApproverExpression,
  checkCondition,
  compileApproverExpression,
  compileCondition,
  CompiledApproverExpression,
  CompiledCondition,
  estimateExpressionCost,
  expressionEvaluation,
} from "./compile.js";
export type { ConditionEnvironment, Evaluation, ExpressionEvaluation } from "./compile.js";
export type { InterpretedReason } from "./closures.js";
export { ENVIRONMENT_SPECS } from "./environment.js";
export type { CelEnvironmentKind, CelEnvironmentSpec } from "./environment.js";
export type { CheckOptions } from "./compile.js";
export { DEFAULT_CEL_COST_LIMIT, WORST_CASE_SIZES } from "./cost.js";
export type { CostEstimate } from "./cost.js";
export type {
  CelDiagnostic,
  CelDiagnosticCode,
  CelRuntimeError,
  CelRuntimeErrorCode,
  SourceLocation,
  Span,
} from "./diagnostics.js";
export { directoryFromArrays } from "./directory.js";
export type { CelDirectory, DirectoryArrays } from "./directory.js";
export {
  evaluateApproverExpression,
  evaluateCondition,
  prepareApproverInput,
  prepareConditionInput,
  prepareConfigRuleInput,
  PreparedApproverInput,
  PreparedConditionInput,
} from "./evaluate.js";
export type { ApproverInput, ConditionInput, ConditionOutcome, ConfigRuleInput } from "./evaluate.js";
export { formatCelValue } from "./format-value.js";
export { traceApproverExpression, traceCondition } from "./trace.js";
export type { ApproverTrace, ConditionTrace, NotEvaluatedReason, Trace, TraceNode, TraceNodeKind, TraceOutcome } from "./trace.js";
export type { TaskFacts } from "./values.js";
