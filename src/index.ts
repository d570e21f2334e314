/**
 * policy-sim: simulate the task-policy workflow of an identity-governance service. Give it a
 * snapshot of a tenant (a world): it tells which policy applies to a task and why, and applies the
 * service's task actions (Hard Reset, Comment, …) as pure reducers that return exactly what the
 * service's HTTP endpoints return.
 *
 * @example
 * ```ts
 * import { readFileSync } from "node:fs";
 * import { loadWorld, explain, formatExplanation, hardReset } from "policy-sim";
 * const loaded = loadWorld(JSON.parse(readFileSync("fixtures/world.json", "utf8")));
 * if (loaded.ok) {
 *   const e = explain(loaded.value, "1001");
 *   if (e.ok) console.log(formatExplanation(e.value));
 *   const r = hardReset(loaded.value, { taskId: "1001" }, { actorId: "u-it-dir" });
 *   if (r.ok) console.log(r.value.response);
 * }
 * ```
 * @packageDocumentation
 */

// Results and errors
export { err, ok } from "./result.js";
export { VERSION } from "./version.js";
export type { Result } from "./result.js";
export { httpStatusOf } from "./reducers/errors.js";
export type { SimError, SimErrorCode } from "./reducers/errors.js";

// The world
export { loadWorld, loadWorldChunks } from "./world/load-world.js";
export type { ChunkLoadOptions, LoadOptions } from "./world/load-world.js";
export { saveWorld, worldJsonChunks } from "./world/save-world.js";
export { entitlementKey, findEntitlement, findTask, replaceInWorld } from "./world/world.js";
export type { Tenant, TaskComment, World, WorldIndex, WorldPatch } from "./world/world.js";
export { Table } from "./world/table.js";
export { AppendLog } from "./world/append-log.js";
export { CommentLog } from "./world/comment-log.js";
export type { Diagnostic as WorldDiagnostic } from "./world/read.js";

// Which policy applies, and why
export { decide } from "./policy/decide.js";
export type { Decision, DecideOptions } from "./policy/decide.js";
export { resolvePolicy } from "./policy/resolve-policy.js";
export { resolveMaxGrantDuration } from "./policy/max-grant-duration.js";
export type { MaxGrantDuration } from "./policy/max-grant-duration.js";
export type { ConfigRuleEvaluation } from "./policy/config-rules.js";
export type { EntitlementConfigRule, EntitlementConfigRuleSettings } from "./model/config-rule.js";
export type { PolicySource, Resolution, ResolutionError, SourceCheck } from "./policy/resolve-policy.js";
export { baselineKey, MAX_CHAIN_DEPTH, POLICY_REFERENCES_FLAG, selectSteps } from "./policy/select-steps.js";
export type {
  ChainLink,
  ConditionResult,
  ConditionRunner,
  DecidedBy,
  RuleEvaluation,
  Selection,
  SelectionError,
} from "./policy/select-steps.js";
export { LINT_CODES, lintDecodedPolicy, lintPolicy } from "./policy/lint.js";
export type { Finding, FindingCel, LintCode, LintCodeInfo, LintSeverity } from "./policy/lint.js";
export { taskConditions } from "./policy/task-conditions.js";
export type { TaskConditions } from "./policy/task-conditions.js";
export { explain, explainTask, summarizeStep } from "./explain/explain.js";
export type {
  ExplainedCondition,
  ExplainedNode,
  Explanation,
  HypotheticalRequest,
  RuleExplanation,
  StepApprovers,
  StepSummary,
} from "./explain/explain.js";
export { formatExplanation } from "./explain/format.js";
export type { FormatOptions } from "./explain/format.js";

// CEL
export {
  checkApproverExpression,
  checkCondition,
  compileApproverExpression,
  compileCondition,
  CompiledApproverExpression,
  CompiledCondition,
  DEFAULT_CEL_COST_LIMIT,
  directoryFromArrays,
  ENVIRONMENT_SPECS,
  estimateExpressionCost,
  evaluateApproverExpression,
  expressionEvaluation,
  evaluateCondition,
  formatCelValue,
  prepareApproverInput,
  prepareConditionInput,
  prepareConfigRuleInput,
  PreparedApproverInput,
  PreparedConditionInput,
  traceApproverExpression,
  traceCondition,
} from "./cel/index.js";
export type {
  ApproverInput,
  ApproverTrace,
  CheckOptions,
  CostEstimate,
  CelDiagnostic,
  CelDiagnosticCode,
  CelDirectory,
  CelEnvironmentKind,
  CelEnvironmentSpec,
  CelRuntimeError,
  CelRuntimeErrorCode,
  ConditionEnvironment,
  ConditionInput,
  ConditionOutcome,
  ConfigRuleInput,
  ConditionTrace,
  DirectoryArrays,
  Evaluation,
  ExpressionEvaluation,
  InterpretedReason,
  NotEvaluatedReason,
  SourceLocation,
  Span,
  TaskFacts,
  Trace,
  TraceNode,
  TraceNodeKind,
  TraceOutcome,
} from "./cel/index.js";

// Reducers and workflow
export { hardReset, resetTask } from "./reducers/hard-reset.js";
export type { HardResetFailure, HardResetInput, ResetOutcome } from "./reducers/hard-reset.js";
export { comment } from "./reducers/comment.js";
export type { CommentInput, CommentResponseJson, HardResetResponseJson, Step, WireTaskView } from "./reducers/comment.js";
export type { ActionContext, ExpandMaskInput } from "./reducers/prelude.js";
export { reduce, WORKFLOW_ACTION_TYPES } from "./reducers/reduce.js";
export type { WorkflowAction, WorkflowActionType } from "./reducers/reduce.js";
export { approveTask, approveWithStepUp, denyTask } from "./reducers/approve.js";
export type { DecisionInput, StepUpApproveInput } from "./reducers/approve.js";
export { reassignTask } from "./reducers/reassign.js";
export type { ReassignInput } from "./reducers/reassign.js";
export { skipStep } from "./reducers/skip-step.js";
export type { SkipStepInput } from "./reducers/skip-step.js";
export { restartTask } from "./reducers/restart.js";
export type { RestartInput } from "./reducers/restart.js";
export { cancelTask, closeTaskAction, deleteTask } from "./reducers/close.js";
export type { CloseInput } from "./reducers/close.js";
export { sendReminder } from "./reducers/send-reminder.js";
export type { SendReminderInput } from "./reducers/send-reminder.js";
export { changePolicy, escalateToEmergencyAccess } from "./reducers/change-policy.js";
export type { ChangePolicyInput, EscalateInput } from "./reducers/change-policy.js";
export { updateGrantDuration } from "./reducers/update-grant-duration.js";
export type { UpdateGrantDurationInput } from "./reducers/update-grant-duration.js";
export { createGrantTask, createOffboardingTask, createRevokeTask } from "./reducers/create-task.js";
export type { CreateGrantTaskInput, CreateOffboardingTaskInput, CreateRevokeTaskInput } from "./reducers/create-task.js";
export { processNow } from "./reducers/process-now.js";
export type { ProcessNowInput } from "./reducers/process-now.js";
export { provisionCancelled, provisionComplete, provisionErrored, retryProvisioning } from "./reducers/provision.js";
export type {
  ProvisionCancelledInput,
  ProvisionCompleteInput,
  ProvisionErroredInput,
  RetryProvisioningInput,
} from "./reducers/provision.js";
export { completeForm } from "./reducers/complete-form.js";
export type { CompleteFormInput } from "./reducers/complete-form.js";
export { reportActionOutcome } from "./reducers/action-outcome.js";
export type { ActionOutcomeInput, ActionStepOutcome } from "./reducers/action-outcome.js";
export { sync } from "./reducers/sync.js";
export type { SyncInput } from "./reducers/sync.js";
export { tick } from "./reducers/tick.js";
export type { Fired } from "./reducers/tick.js";
export { decodeScript, encodeSimulation, formatSimulation, simulate } from "./reducers/simulate.js";
export type { Frame, Script, ScriptCheck, ScriptExpectation, ScriptStep, SimulationRun, WorldsOption } from "./reducers/simulate.js";
export { validateFormValues } from "./workflow/form-validation.js";
export type { FieldProblem, FormValidation } from "./workflow/form-validation.js";
export { readSimulation, SIMULATION_KEY, withSimulation } from "./workflow/sim-config.js";
export type {
  AutomationRevokeStep,
  EntitlementSource,
  PendingStepUp,
  SimAppSettings,
  SimAutomation,
  SimConnector,
  Simulation,
  UnsyncedEntitlement,
} from "./workflow/sim-config.js";
export { revocationTargetsFor } from "./workflow/inheritance.js";
export { nextTimer } from "./workflow/timers.js";
export type { Timer } from "./workflow/timers.js";
export { canRead, objectPermissionsFor, relationTo, taskActionsFor } from "./reducers/permissions.js";
export type { Relation } from "./reducers/permissions.js";
export { HIDDEN_TASK_FIELDS, VIEWED_HISTORY_MAX_STEPS } from "./reducers/task-view.js";
export { APPROVER_POLICY, approversSummary, resolveApprovers } from "./workflow/approvers.js";
export type { ApproverResolution, ApproverVia, ExpressionEvaluator } from "./workflow/approvers.js";
export type { AuditEvent, AuditEventKind } from "./workflow/events.js";

// What-if analysis
export {
  applyEdit,
  applyEditUnchecked,
  editDiagnostics,
  describeTaskRef,
  editImpact,
  formatCoverage,
  formatWhatIf,
  mergeWhatIfResults,
  policyReach,
  prepareWhatIf,
  routeLabel,
  routeOf,
  ruleCoverage,
  taskInWorld,
  whatIf,
  whatIfWorlds,
} from "./whatif/index.js";
export type {
  Coverage,
  CoverageInput,
  EditableWorld,
  EditImpact,
  EditRecipe,
  EditSummary,
  EntitlementSpec,
  FormatCoverageOptions,
  FormatWhatIfOptions,
  PartCoverage,
  PolicyCoverage,
  PolicyReach,
  Route,
  RouteApprovers,
  RouteAspect,
  RouteError,
  RouteGroup,
  RouteInput,
  RouteOutcome,
  RuleCoverage,
  SubjectSpec,
  TaskInWorld,
  TaskKind,
  TaskRef,
  TaskRouteChange,
  TaskScope,
  TaskSpec,
  VisibleChanges,
  WhatIfOptions,
  WhatIfResult,
  WorldEdit,
} from "./whatif/index.js";

// What-if of a Terraform plan
export { formatTerraformWhatIf, IAC_ADDRESS_ANNOTATION, readPlan, terraformEditRecipe, terraformPlanEdit } from "./terraform/index.js";
export type {
  AttributeDifference,
  FormatTerraformWhatIfOptions,
  PlanAction,
  PlanDiagnostic,
  PlanDiagnosticCode,
  PlannedPolicyChange,
  PolicyMatch,
  PolicyPlan,
  TerraformPlanEdit,
  TerraformPolicyChange,
} from "./terraform/index.js";

// The wire codec
export {
  decodeCommentRequest,
  decodeCommentResponse,
  decodeForm,
  decodeHardResetRequest,
  decodeHardResetResponse,
  decodePolicy,
  decodePolicyInstance,
  decodePolicyStep,
  decodeTask,
  decodeTaskView,
  encodeCommentRequest,
  encodeCommentResponse,
  encodeForm,
  encodeHardResetRequest,
  encodeHardResetResponse,
  encodePolicy,
  encodePolicyInstance,
  encodePolicyStep,
  encodeTask,
  encodeTaskView,
} from "./codec/index.js";
export type { Diagnostic, DiagnosticCode } from "./codec/index.js";

export { taskEntitlementRef, taskSubjectId } from "./model/task-refs.js";

// The model: the spec's resources, oneofs as unions on `kind`, open enums
export {
  ActionInstanceState,
  ActionOutcome,
  ActionTaskType,
  ApprovalAgentFailureAction,
  ApprovalAgentMode,
  ApprovalInstanceState,
  CertifyOutcome,
  ConnectorActionOperation,
  ExternalRefSource,
  FindingTaskOutcome,
  FormInstanceState,
  GrantOutcome,
  InsightRecommendation,
  KNOWN_ACTION_INSTANCE_STATES,
  KNOWN_ACTION_OUTCOMES,
  KNOWN_ACTION_TASK_TYPES,
  KNOWN_APPROVAL_AGENT_FAILURE_ACTIONS,
  KNOWN_APPROVAL_AGENT_MODES,
  KNOWN_APPROVAL_INSTANCE_STATES,
  KNOWN_CERTIFY_OUTCOMES,
  KNOWN_CONNECTOR_ACTION_OPERATIONS,
  KNOWN_EXTERNAL_REF_SOURCES,
  KNOWN_FINDING_TASK_OUTCOMES,
  KNOWN_FORM_INSTANCE_STATES,
  KNOWN_GRANT_OUTCOMES,
  KNOWN_INSIGHT_RECOMMENDATIONS,
  KNOWN_OFFBOARDING_OUTCOMES,
  KNOWN_POLICY_SCOPE_SLOTS,
  KNOWN_POLICY_STEP_STATES,
  KNOWN_POLICY_TYPES,
  KNOWN_PROVISION_INSTANCE_STATES,
  KNOWN_REVOKE_OUTCOMES,
  KNOWN_SELECT_TYPES,
  KNOWN_TASK_ACTION_TYPES,
  KNOWN_TASK_ORIGINS,
  KNOWN_TASK_PROCESSING_TYPES,
  KNOWN_TASK_STATES,
  KNOWN_WAIT_INSTANCE_STATES,
  KNOWN_WELL_KNOWN_REGEXES,
  OffboardingOutcome,
  PolicyScopeSlot,
  PolicyStepState,
  PolicyType,
  ProvisionInstanceState,
  RevokeOutcome,
  SelectType,
  TaskActionType,
  TaskOrigin,
  TaskProcessingType,
  TaskState,
  WaitInstanceState,
  WellKnownRegex,
  ruleOutcome,
  KNOWN_TASK_EXPAND_PATHS,
  TASK_VIEW_PATHS,
} from "./model/index.js";
export type {
  AppEntitlementRef,
  AppEntitlementReference,
  AppResourceRef,
  DurationString,
  Int64String,
  Timestamp,
  TypedMessage,
  UnknownFields,
  UnknownVariant,
  VariantExtras,
  ActionTargetCredentialIssue,
  ActionTargetFinding,
  ActionTargetScopeRole,
  ActionTargetToolCall,
  ActionTaskTarget,
  ConnectorActionRef,
  ExternalRef,
  RevokeSource,
  RevokeSourceExpired,
  RevokeSourceNonUsage,
  RevokeSourceRequest,
  RevokeSourceReview,
  SvcResourceActionRef,
  Task,
  TaskActionInstance,
  TaskGrantSource,
  TaskRevocationTarget,
  TaskType,
  TaskTypeAction,
  TaskTypeCertify,
  TaskTypeFinding,
  TaskTypeGrant,
  TaskTypeOffboarding,
  TaskTypeRevoke,
  Policy,
  PolicyPostAction,
  PolicyScope,
  PolicySteps,
  Rule,
  RuleOutcome,
  AccountStorage,
  ActionStep,
  Approval,
  ApproverAgent,
  ApproverAppOwners,
  ApproverEntitlementOwners,
  ApproverExpression,
  ApproverFallback,
  ApproverGroup,
  ApproverKind,
  ApproverManager,
  ApproverResourceOwners,
  ApproverSelf,
  ApproverUsers,
  ApproverWebhook,
  ConnectorProvision,
  ConnectorProvisionAccount,
  Escalation,
  EscalationPolicy,
  ManualAssignee,
  PolicyStep,
  PolicyStepAccept,
  PolicyStepAction,
  PolicyStepApproval,
  PolicyStepForm,
  PolicyStepProvision,
  PolicyStepReject,
  PolicyStepWait,
  Provision,
  ProvisionPolicy,
  ProvisionPolicyAction,
  ProvisionPolicyConnector,
  ProvisionPolicyDelegated,
  ProvisionPolicyDevicePlacement,
  ProvisionPolicyExternalTicket,
  ProvisionPolicyManual,
  ProvisionPolicyMultiStep,
  ProvisionPolicyUnconfigured,
  ProvisionPolicyWebhook,
  ProvisionTarget,
  WaitUntil,
  AcceptInstance,
  ActionInstance,
  ActionInstanceOutcome,
  ActionInstanceTarget,
  ApprovalInstance,
  ApprovalOutcome,
  ApprovedAction,
  DeniedAction,
  EscalationInstance,
  FormCompletedAction,
  FormInstance,
  FormOutcome,
  PolicyStepInstance,
  ProvisionCancelledAction,
  ProvisionCompletedAction,
  ProvisionErroredAction,
  ProvisionInstance,
  ProvisionOutcome,
  ProvisionWaitingOn,
  ReassignedAction,
  ReassignedByErrorAction,
  RejectInstance,
  RestartedAction,
  SkippedAction,
  StepInstance,
  WaitInstance,
  WaitInstanceUntil,
  WaitOutcome,
  WaitingOnKind,
  PolicyInstance,
  BoolField,
  BoolFieldView,
  BoolRules,
  DateFieldView,
  Field,
  FieldGroup,
  FieldProvider,
  FieldRelationship,
  FieldType,
  FileField,
  FileFieldView,
  Form,
  Int64Field,
  Int64FieldView,
  Int64Rules,
  Oauth2Field,
  Oauth2FieldView,
  Picker,
  PickerFieldView,
  RelationshipKind,
  RepeatedRules,
  SelectFieldView,
  SelectOption,
  StringField,
  StringFieldView,
  StringMapField,
  StringMapRules,
  StringRules,
  StringSliceField,
  StringSliceFieldView,
  ActorObjectPermissions,
  TaskExpandMask,
  TaskView,
  TaskViewPath,
  CommentRequest,
  CommentResponse,
  HardResetRequest,
  HardResetResponse,
  JsonObject,
  JsonValue,
  AccessReview,
  App,
  AppEntitlement,
  AppUser,
  EntitlementResourceRef,
  Grant,
  Group,
  ResourceTypeDefault,
  RiskScore,
  Role,
  RoleKind,
  SecurityInsight,
  User,
} from "./model/index.js";
