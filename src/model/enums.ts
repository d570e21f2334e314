/**
 * The spec's enums, open as docs/domain.md §1 asks: each type is its known members plus any other string,
 * because the service adds members and clients must keep them as they are. Each enum also has a
 * `const` object naming the known members (without the common prefix) and a `KNOWN_…` list.
 *
 * Generated once from the spec's tables; edit by hand from now on.
 */

/**
 * Whether a task is open or closed (`Task.state`).
 *
 * @example
 * ```ts
 * const v: TaskState = TaskState.OPEN; // "TASK_STATE_OPEN"
 * ```
 */
export const TaskState = {
  UNSPECIFIED: "TASK_STATE_UNSPECIFIED",
  OPEN: "TASK_STATE_OPEN",
  CLOSED: "TASK_STATE_CLOSED",
} as const;
/**
 * Whether a task is open or closed (`Task.state`). Open: an unknown member is any other string.
 *
 * @example
 * ```ts
 * const later: TaskState = "TASK_STATE_ADDED_LATER"; // kept as it came
 * ```
 */
export type TaskState = (typeof TaskState)[keyof typeof TaskState] | (string & {});
/**
 * The members of {@link TaskState} this version knows, in the spec's order.
 *
 * @example
 * ```ts
 * KNOWN_TASK_STATES.includes("TASK_STATE_UNSPECIFIED"); // true
 * ```
 */
export const KNOWN_TASK_STATES: readonly TaskState[] = Object.values(TaskState);

/**
 * What the service is doing with a task (`Task.processing`).
 *
 * @example
 * ```ts
 * const v: TaskProcessingType = TaskProcessingType.PROCESSING; // "TASK_PROCESSING_TYPE_PROCESSING"
 * ```
 */
export const TaskProcessingType = {
  UNSPECIFIED: "TASK_PROCESSING_TYPE_UNSPECIFIED",
  PROCESSING: "TASK_PROCESSING_TYPE_PROCESSING",
  WAITING: "TASK_PROCESSING_TYPE_WAITING",
  DONE: "TASK_PROCESSING_TYPE_DONE",
} as const;
/**
 * What the service is doing with a task (`Task.processing`). Open: an unknown member is any other string.
 *
 * @example
 * ```ts
 * const later: TaskProcessingType = "TASK_PROCESSING_TYPE_ADDED_LATER"; // kept as it came
 * ```
 */
export type TaskProcessingType = (typeof TaskProcessingType)[keyof typeof TaskProcessingType] | (string & {});
/**
 * The members of {@link TaskProcessingType} this version knows, in the spec's order.
 *
 * @example
 * ```ts
 * KNOWN_TASK_PROCESSING_TYPES.includes("TASK_PROCESSING_TYPE_UNSPECIFIED"); // true
 * ```
 */
export const KNOWN_TASK_PROCESSING_TYPES: readonly TaskProcessingType[] = Object.values(TaskProcessingType);

/**
 * Where a task came from (`Task.origin`).
 *
 * @example
 * ```ts
 * const v: TaskOrigin = TaskOrigin.PROFILE_MEMBERSHIP_AUTOMATION; // "TASK_ORIGIN_PROFILE_MEMBERSHIP_AUTOMATION"
 * ```
 */
export const TaskOrigin = {
  UNSPECIFIED: "TASK_ORIGIN_UNSPECIFIED",
  PROFILE_MEMBERSHIP_AUTOMATION: "TASK_ORIGIN_PROFILE_MEMBERSHIP_AUTOMATION",
  CHATAPP: "TASK_ORIGIN_CHATAPP",
  API: "TASK_ORIGIN_API",
  TRACKER: "TASK_ORIGIN_TRACKER",
  COPILOT: "TASK_ORIGIN_COPILOT",
  WEBAPP: "TASK_ORIGIN_WEBAPP",
  TIME_REVOKE: "TASK_ORIGIN_TIME_REVOKE",
  NON_USAGE_REVOKE: "TASK_ORIGIN_NON_USAGE_REVOKE",
  PROFILE_MEMBERSHIP_MANUAL: "TASK_ORIGIN_PROFILE_MEMBERSHIP_MANUAL",
  PROFILE_MEMBERSHIP: "TASK_ORIGIN_PROFILE_MEMBERSHIP",
  AUTOMATION: "TASK_ORIGIN_AUTOMATION",
  ACCESS_REVIEW: "TASK_ORIGIN_ACCESS_REVIEW",
  CASCADE_DELETE: "TASK_ORIGIN_CASCADE_DELETE",
} as const;
/**
 * Where a task came from (`Task.origin`). Open: an unknown member is any other string.
 *
 * @example
 * ```ts
 * const later: TaskOrigin = "TASK_ORIGIN_ADDED_LATER"; // kept as it came
 * ```
 */
export type TaskOrigin = (typeof TaskOrigin)[keyof typeof TaskOrigin] | (string & {});
/**
 * The members of {@link TaskOrigin} this version knows, in the spec's order.
 *
 * @example
 * ```ts
 * KNOWN_TASK_ORIGINS.includes("TASK_ORIGIN_UNSPECIFIED"); // true
 * ```
 */
export const KNOWN_TASK_ORIGINS: readonly TaskOrigin[] = Object.values(TaskOrigin);

/**
 * An action the calling user may perform on a task (`Task.actions`).
 *
 * @example
 * ```ts
 * const v: TaskActionType = TaskActionType.CLOSE; // "TASK_ACTION_TYPE_CLOSE"
 * ```
 */
export const TaskActionType = {
  UNSPECIFIED: "TASK_ACTION_TYPE_UNSPECIFIED",
  CLOSE: "TASK_ACTION_TYPE_CLOSE",
  APPROVE: "TASK_ACTION_TYPE_APPROVE",
  DENY: "TASK_ACTION_TYPE_DENY",
  COMMENT: "TASK_ACTION_TYPE_COMMENT",
  DELETE: "TASK_ACTION_TYPE_DELETE",
  REASSIGN: "TASK_ACTION_TYPE_REASSIGN",
  RESTART: "TASK_ACTION_TYPE_RESTART",
  SEND_REMINDER: "TASK_ACTION_TYPE_SEND_REMINDER",
  PROVISION_COMPLETE: "TASK_ACTION_TYPE_PROVISION_COMPLETE",
  PROVISION_CANCELLED: "TASK_ACTION_TYPE_PROVISION_CANCELLED",
  PROVISION_ERRORED: "TASK_ACTION_TYPE_PROVISION_ERRORED",
  ROLLBACK_SKIPPED: "TASK_ACTION_TYPE_ROLLBACK_SKIPPED",
  PROVISION_APP_USER_TARGET_CREATED: "TASK_ACTION_TYPE_PROVISION_APP_USER_TARGET_CREATED",
  HARD_RESET: "TASK_ACTION_TYPE_HARD_RESET",
  ESCALATE_TO_EMERGENCY_ACCESS: "TASK_ACTION_TYPE_ESCALATE_TO_EMERGENCY_ACCESS",
  CHANGE_POLICY: "TASK_ACTION_TYPE_CHANGE_POLICY",
  RECALCULATE_DENIAL_FROM_BASE_POLICY_DECISIONS: "TASK_ACTION_TYPE_RECALCULATE_DENIAL_FROM_BASE_POLICY_DECISIONS",
  SET_INSIGHTS_AND_RECOMMENDATION: "TASK_ACTION_TYPE_SET_INSIGHTS_AND_RECOMMENDATION",
  SET_ANALYSIS_ID: "TASK_ACTION_TYPE_SET_ANALYSIS_ID",
  RECALCULATE_APPROVERS_LIST: "TASK_ACTION_TYPE_RECALCULATE_APPROVERS_LIST",
  PROCESS_NOW: "TASK_ACTION_TYPE_PROCESS_NOW",
  APPROVE_WITH_STEP_UP: "TASK_ACTION_TYPE_APPROVE_WITH_STEP_UP",
  SKIP_STEP: "TASK_ACTION_TYPE_SKIP_STEP",
  ROLLBACK_CANCELLED: "TASK_ACTION_TYPE_ROLLBACK_CANCELLED",
  UPDATE_REQUEST_DATA: "TASK_ACTION_TYPE_UPDATE_REQUEST_DATA",
  UPDATE_GRANT_DURATION: "TASK_ACTION_TYPE_UPDATE_GRANT_DURATION",
  RETRY_PROVISIONING: "TASK_ACTION_TYPE_RETRY_PROVISIONING",
} as const;
/**
 * An action the calling user may perform on a task (`Task.actions`). Open: an unknown member is any other string.
 *
 * @example
 * ```ts
 * const later: TaskActionType = "TASK_ACTION_TYPE_ADDED_LATER"; // kept as it came
 * ```
 */
export type TaskActionType = (typeof TaskActionType)[keyof typeof TaskActionType] | (string & {});
/**
 * The members of {@link TaskActionType} this version knows, in the spec's order.
 *
 * @example
 * ```ts
 * KNOWN_TASK_ACTION_TYPES.includes("TASK_ACTION_TYPE_UNSPECIFIED"); // true
 * ```
 */
export const KNOWN_TASK_ACTION_TYPES: readonly TaskActionType[] = Object.values(TaskActionType);

/**
 * The analysis' recommendation for a task (`Task.recommendation`).
 *
 * @example
 * ```ts
 * const v: InsightRecommendation = InsightRecommendation.APPROVE; // "INSIGHT_RECOMMENDATION_APPROVE"
 * ```
 */
export const InsightRecommendation = {
  UNSPECIFIED: "INSIGHT_RECOMMENDATION_UNSPECIFIED",
  APPROVE: "INSIGHT_RECOMMENDATION_APPROVE",
  DENY: "INSIGHT_RECOMMENDATION_DENY",
  REVIEW: "INSIGHT_RECOMMENDATION_REVIEW",
} as const;
/**
 * The analysis' recommendation for a task (`Task.recommendation`). Open: an unknown member is any other string.
 *
 * @example
 * ```ts
 * const later: InsightRecommendation = "INSIGHT_RECOMMENDATION_ADDED_LATER"; // kept as it came
 * ```
 */
export type InsightRecommendation = (typeof InsightRecommendation)[keyof typeof InsightRecommendation] | (string & {});
/**
 * The members of {@link InsightRecommendation} this version knows, in the spec's order.
 *
 * @example
 * ```ts
 * KNOWN_INSIGHT_RECOMMENDATIONS.includes("INSIGHT_RECOMMENDATION_UNSPECIFIED"); // true
 * ```
 */
export const KNOWN_INSIGHT_RECOMMENDATIONS: readonly InsightRecommendation[] = Object.values(InsightRecommendation);

/**
 * Where an external reference points (`ExternalRef.externalRefSource`). The spec gives the bare names `UNSPECIFIED` and `TRACKER`.
 *
 * @example
 * ```ts
 * const v: ExternalRefSource = ExternalRefSource.TRACKER; // "TRACKER"
 * ```
 */
export const ExternalRefSource = {
  UNSPECIFIED: "UNSPECIFIED",
  TRACKER: "TRACKER",
} as const;
/**
 * Where an external reference points (`ExternalRef.externalRefSource`). The spec gives the bare names `UNSPECIFIED` and `TRACKER`. Open: an unknown member is any other string.
 *
 * @example
 * ```ts
 * const later: ExternalRefSource = "ADDED_LATER"; // kept as it came
 * ```
 */
export type ExternalRefSource = (typeof ExternalRefSource)[keyof typeof ExternalRefSource] | (string & {});
/**
 * The members of {@link ExternalRefSource} this version knows, in the spec's order.
 *
 * @example
 * ```ts
 * KNOWN_EXTERNAL_REF_SOURCES.includes("UNSPECIFIED"); // true
 * ```
 */
export const KNOWN_EXTERNAL_REF_SOURCES: readonly ExternalRefSource[] = Object.values(ExternalRefSource);

/**
 * Outcome of a grant task.
 *
 * @example
 * ```ts
 * const v: GrantOutcome = GrantOutcome.GRANTED; // "GRANT_OUTCOME_GRANTED"
 * ```
 */
export const GrantOutcome = {
  UNSPECIFIED: "GRANT_OUTCOME_UNSPECIFIED",
  GRANTED: "GRANT_OUTCOME_GRANTED",
  DENIED: "GRANT_OUTCOME_DENIED",
  ERROR: "GRANT_OUTCOME_ERROR",
  CANCELLED: "GRANT_OUTCOME_CANCELLED",
  WAIT_TIMED_OUT: "GRANT_OUTCOME_WAIT_TIMED_OUT",
} as const;
/**
 * Outcome of a grant task. Open: an unknown member is any other string.
 *
 * @example
 * ```ts
 * const later: GrantOutcome = "GRANT_OUTCOME_ADDED_LATER"; // kept as it came
 * ```
 */
export type GrantOutcome = (typeof GrantOutcome)[keyof typeof GrantOutcome] | (string & {});
/**
 * The members of {@link GrantOutcome} this version knows, in the spec's order.
 *
 * @example
 * ```ts
 * KNOWN_GRANT_OUTCOMES.includes("GRANT_OUTCOME_UNSPECIFIED"); // true
 * ```
 */
export const KNOWN_GRANT_OUTCOMES: readonly GrantOutcome[] = Object.values(GrantOutcome);

/**
 * Outcome of a revoke task.
 *
 * @example
 * ```ts
 * const v: RevokeOutcome = RevokeOutcome.REVOKED; // "REVOKE_OUTCOME_REVOKED"
 * ```
 */
export const RevokeOutcome = {
  UNSPECIFIED: "REVOKE_OUTCOME_UNSPECIFIED",
  REVOKED: "REVOKE_OUTCOME_REVOKED",
  DENIED: "REVOKE_OUTCOME_DENIED",
  ERROR: "REVOKE_OUTCOME_ERROR",
  CANCELLED: "REVOKE_OUTCOME_CANCELLED",
  WAIT_TIMED_OUT: "REVOKE_OUTCOME_WAIT_TIMED_OUT",
} as const;
/**
 * Outcome of a revoke task. Open: an unknown member is any other string.
 *
 * @example
 * ```ts
 * const later: RevokeOutcome = "REVOKE_OUTCOME_ADDED_LATER"; // kept as it came
 * ```
 */
export type RevokeOutcome = (typeof RevokeOutcome)[keyof typeof RevokeOutcome] | (string & {});
/**
 * The members of {@link RevokeOutcome} this version knows, in the spec's order.
 *
 * @example
 * ```ts
 * KNOWN_REVOKE_OUTCOMES.includes("REVOKE_OUTCOME_UNSPECIFIED"); // true
 * ```
 */
export const KNOWN_REVOKE_OUTCOMES: readonly RevokeOutcome[] = Object.values(RevokeOutcome);

/**
 * Outcome of a certify task.
 *
 * @example
 * ```ts
 * const v: CertifyOutcome = CertifyOutcome.CERTIFIED; // "CERTIFY_OUTCOME_CERTIFIED"
 * ```
 */
export const CertifyOutcome = {
  UNSPECIFIED: "CERTIFY_OUTCOME_UNSPECIFIED",
  CERTIFIED: "CERTIFY_OUTCOME_CERTIFIED",
  DECERTIFIED: "CERTIFY_OUTCOME_DECERTIFIED",
  ERROR: "CERTIFY_OUTCOME_ERROR",
  CANCELLED: "CERTIFY_OUTCOME_CANCELLED",
  WAIT_TIMED_OUT: "CERTIFY_OUTCOME_WAIT_TIMED_OUT",
} as const;
/**
 * Outcome of a certify task. Open: an unknown member is any other string.
 *
 * @example
 * ```ts
 * const later: CertifyOutcome = "CERTIFY_OUTCOME_ADDED_LATER"; // kept as it came
 * ```
 */
export type CertifyOutcome = (typeof CertifyOutcome)[keyof typeof CertifyOutcome] | (string & {});
/**
 * The members of {@link CertifyOutcome} this version knows, in the spec's order.
 *
 * @example
 * ```ts
 * KNOWN_CERTIFY_OUTCOMES.includes("CERTIFY_OUTCOME_UNSPECIFIED"); // true
 * ```
 */
export const KNOWN_CERTIFY_OUTCOMES: readonly CertifyOutcome[] = Object.values(CertifyOutcome);

/**
 * Outcome of an offboarding task.
 *
 * @example
 * ```ts
 * const v: OffboardingOutcome = OffboardingOutcome.IN_PROGRESS; // "OFFBOARDING_OUTCOME_IN_PROGRESS"
 * ```
 */
export const OffboardingOutcome = {
  UNSPECIFIED: "OFFBOARDING_OUTCOME_UNSPECIFIED",
  IN_PROGRESS: "OFFBOARDING_OUTCOME_IN_PROGRESS",
  DONE: "OFFBOARDING_OUTCOME_DONE",
  ERROR: "OFFBOARDING_OUTCOME_ERROR",
  CANCELLED: "OFFBOARDING_OUTCOME_CANCELLED",
} as const;
/**
 * Outcome of an offboarding task. Open: an unknown member is any other string.
 *
 * @example
 * ```ts
 * const later: OffboardingOutcome = "OFFBOARDING_OUTCOME_ADDED_LATER"; // kept as it came
 * ```
 */
export type OffboardingOutcome = (typeof OffboardingOutcome)[keyof typeof OffboardingOutcome] | (string & {});
/**
 * The members of {@link OffboardingOutcome} this version knows, in the spec's order.
 *
 * @example
 * ```ts
 * KNOWN_OFFBOARDING_OUTCOMES.includes("OFFBOARDING_OUTCOME_UNSPECIFIED"); // true
 * ```
 */
export const KNOWN_OFFBOARDING_OUTCOMES: readonly OffboardingOutcome[] = Object.values(OffboardingOutcome);

/**
 * Outcome of a finding task.
 *
 * @example
 * ```ts
 * const v: FindingTaskOutcome = FindingTaskOutcome.REMEDIATED; // "FINDING_TASK_OUTCOME_REMEDIATED"
 * ```
 */
export const FindingTaskOutcome = {
  UNSPECIFIED: "FINDING_TASK_OUTCOME_UNSPECIFIED",
  REMEDIATED: "FINDING_TASK_OUTCOME_REMEDIATED",
  RISK_ACCEPTED: "FINDING_TASK_OUTCOME_RISK_ACCEPTED",
  CANCELLED: "FINDING_TASK_OUTCOME_CANCELLED",
} as const;
/**
 * Outcome of a finding task. Open: an unknown member is any other string.
 *
 * @example
 * ```ts
 * const later: FindingTaskOutcome = "FINDING_TASK_OUTCOME_ADDED_LATER"; // kept as it came
 * ```
 */
export type FindingTaskOutcome = (typeof FindingTaskOutcome)[keyof typeof FindingTaskOutcome] | (string & {});
/**
 * The members of {@link FindingTaskOutcome} this version knows, in the spec's order.
 *
 * @example
 * ```ts
 * KNOWN_FINDING_TASK_OUTCOMES.includes("FINDING_TASK_OUTCOME_UNSPECIFIED"); // true
 * ```
 */
export const KNOWN_FINDING_TASK_OUTCOMES: readonly FindingTaskOutcome[] = Object.values(FindingTaskOutcome);

/**
 * Outcome of an action task.
 *
 * @example
 * ```ts
 * const v: ActionOutcome = ActionOutcome.SUCCESS; // "ACTION_OUTCOME_SUCCESS"
 * ```
 */
export const ActionOutcome = {
  UNSPECIFIED: "ACTION_OUTCOME_UNSPECIFIED",
  SUCCESS: "ACTION_OUTCOME_SUCCESS",
  DENIED: "ACTION_OUTCOME_DENIED",
  ERROR: "ACTION_OUTCOME_ERROR",
  CANCELLED: "ACTION_OUTCOME_CANCELLED",
} as const;
/**
 * Outcome of an action task. Open: an unknown member is any other string.
 *
 * @example
 * ```ts
 * const later: ActionOutcome = "ACTION_OUTCOME_ADDED_LATER"; // kept as it came
 * ```
 */
export type ActionOutcome = (typeof ActionOutcome)[keyof typeof ActionOutcome] | (string & {});
/**
 * The members of {@link ActionOutcome} this version knows, in the spec's order.
 *
 * @example
 * ```ts
 * KNOWN_ACTION_OUTCOMES.includes("ACTION_OUTCOME_UNSPECIFIED"); // true
 * ```
 */
export const KNOWN_ACTION_OUTCOMES: readonly ActionOutcome[] = Object.values(ActionOutcome);

/**
 * Kind of an action task (`TaskType.action.type`). `TYPE_SPEND_REMEDY` (= 7) was added later; more may come.
 *
 * @example
 * ```ts
 * const v: ActionTaskType = ActionTaskType.GRANT; // "TYPE_GRANT"
 * ```
 */
export const ActionTaskType = {
  UNSPECIFIED: "TYPE_UNSPECIFIED",
  GRANT: "TYPE_GRANT",
  WORKFLOW: "TYPE_WORKFLOW",
  RESOURCE_ACTION: "TYPE_RESOURCE_ACTION",
  TOOL_CALL: "TYPE_TOOL_CALL",
  MANUAL: "TYPE_MANUAL",
  CREDENTIAL_ISSUE: "TYPE_CREDENTIAL_ISSUE",
  SPEND_REMEDY: "TYPE_SPEND_REMEDY",
} as const;
/**
 * Kind of an action task (`TaskType.action.type`). `TYPE_SPEND_REMEDY` (= 7) was added later; more may come. Open: an unknown member is any other string.
 *
 * @example
 * ```ts
 * const later: ActionTaskType = "TYPE_ADDED_LATER"; // kept as it came
 * ```
 */
export type ActionTaskType = (typeof ActionTaskType)[keyof typeof ActionTaskType] | (string & {});
/**
 * The members of {@link ActionTaskType} this version knows, in the spec's order.
 *
 * @example
 * ```ts
 * KNOWN_ACTION_TASK_TYPES.includes("TYPE_UNSPECIFIED"); // true
 * ```
 */
export const KNOWN_ACTION_TASK_TYPES: readonly ActionTaskType[] = Object.values(ActionTaskType);

/**
 * Operation of a connector action reference. Only the UNSPECIFIED member is published.
 *
 * @example
 * ```ts
 * const v: ConnectorActionOperation = ConnectorActionOperation.UNSPECIFIED; // "OPERATION_UNSPECIFIED"
 * ```
 */
export const ConnectorActionOperation = {
  UNSPECIFIED: "OPERATION_UNSPECIFIED",
} as const;
/**
 * Operation of a connector action reference. Only the UNSPECIFIED member is published. Open: an unknown member is any other string.
 *
 * @example
 * ```ts
 * const later: ConnectorActionOperation = "OPERATION_ADDED_LATER"; // kept as it came
 * ```
 */
export type ConnectorActionOperation = (typeof ConnectorActionOperation)[keyof typeof ConnectorActionOperation] | (string & {});
/**
 * The members of {@link ConnectorActionOperation} this version knows, in the spec's order.
 *
 * @example
 * ```ts
 * KNOWN_CONNECTOR_ACTION_OPERATIONS.includes("OPERATION_UNSPECIFIED"); // true
 * ```
 */
export const KNOWN_CONNECTOR_ACTION_OPERATIONS: readonly ConnectorActionOperation[] = Object.values(ConnectorActionOperation);

/**
 * Kind of a policy. Its lowercased name (`grant`) keys the baseline entry of `policySteps`.
 *
 * @example
 * ```ts
 * const v: PolicyType = PolicyType.GRANT; // "POLICY_TYPE_GRANT"
 * ```
 */
export const PolicyType = {
  UNSPECIFIED: "POLICY_TYPE_UNSPECIFIED",
  GRANT: "POLICY_TYPE_GRANT",
  REVOKE: "POLICY_TYPE_REVOKE",
  CERTIFY: "POLICY_TYPE_CERTIFY",
  ACCESS_REQUEST: "POLICY_TYPE_ACCESS_REQUEST",
  PROVISION: "POLICY_TYPE_PROVISION",
} as const;
/**
 * Kind of a policy. Its lowercased name (`grant`) keys the baseline entry of `policySteps`. Open: an unknown member is any other string.
 *
 * @example
 * ```ts
 * const later: PolicyType = "POLICY_TYPE_ADDED_LATER"; // kept as it came
 * ```
 */
export type PolicyType = (typeof PolicyType)[keyof typeof PolicyType] | (string & {});
/**
 * The members of {@link PolicyType} this version knows, in the spec's order.
 *
 * @example
 * ```ts
 * KNOWN_POLICY_TYPES.includes("POLICY_TYPE_UNSPECIFIED"); // true
 * ```
 */
export const KNOWN_POLICY_TYPES: readonly PolicyType[] = Object.values(PolicyType);

/**
 * Slot of a scoped policy. `EMERGENCY` comes from the public description (docs/domain.md §1).
 *
 * @example
 * ```ts
 * const v: PolicyScopeSlot = PolicyScopeSlot.EMERGENCY; // "POLICY_SCOPE_SLOT_EMERGENCY"
 * ```
 */
export const PolicyScopeSlot = {
  UNSPECIFIED: "POLICY_SCOPE_SLOT_UNSPECIFIED",
  EMERGENCY: "POLICY_SCOPE_SLOT_EMERGENCY",
} as const;
/**
 * Slot of a scoped policy. `EMERGENCY` comes from the public description (docs/domain.md §1). Open: an unknown member is any other string.
 *
 * @example
 * ```ts
 * const later: PolicyScopeSlot = "POLICY_SCOPE_SLOT_ADDED_LATER"; // kept as it came
 * ```
 */
export type PolicyScopeSlot = (typeof PolicyScopeSlot)[keyof typeof PolicyScopeSlot] | (string & {});
/**
 * The members of {@link PolicyScopeSlot} this version knows, in the spec's order.
 *
 * @example
 * ```ts
 * KNOWN_POLICY_SCOPE_SLOTS.includes("POLICY_SCOPE_SLOT_UNSPECIFIED"); // true
 * ```
 */
export const KNOWN_POLICY_SCOPE_SLOTS: readonly PolicyScopeSlot[] = Object.values(PolicyScopeSlot);

/**
 * State of a policy step instance.
 *
 * @example
 * ```ts
 * const v: PolicyStepState = PolicyStepState.ACTIVE; // "POLICY_STEP_STATE_ACTIVE"
 * ```
 */
export const PolicyStepState = {
  UNSPECIFIED: "POLICY_STEP_STATE_UNSPECIFIED",
  ACTIVE: "POLICY_STEP_STATE_ACTIVE",
  DONE: "POLICY_STEP_STATE_DONE",
} as const;
/**
 * State of a policy step instance. Open: an unknown member is any other string.
 *
 * @example
 * ```ts
 * const later: PolicyStepState = "POLICY_STEP_STATE_ADDED_LATER"; // kept as it came
 * ```
 */
export type PolicyStepState = (typeof PolicyStepState)[keyof typeof PolicyStepState] | (string & {});
/**
 * The members of {@link PolicyStepState} this version knows, in the spec's order.
 *
 * @example
 * ```ts
 * KNOWN_POLICY_STEP_STATES.includes("POLICY_STEP_STATE_UNSPECIFIED"); // true
 * ```
 */
export const KNOWN_POLICY_STEP_STATES: readonly PolicyStepState[] = Object.values(PolicyStepState);

/**
 * What an approval agent does when it fails (members beyond UNSPECIFIED from docs/domain.md §1).
 *
 * @example
 * ```ts
 * const v: ApprovalAgentFailureAction = ApprovalAgentFailureAction.REASSIGN_TO_USERS; // "APPROVAL_AGENT_FAILURE_ACTION_REASSIGN_TO_USERS"
 * ```
 */
export const ApprovalAgentFailureAction = {
  UNSPECIFIED: "APPROVAL_AGENT_FAILURE_ACTION_UNSPECIFIED",
  REASSIGN_TO_USERS: "APPROVAL_AGENT_FAILURE_ACTION_REASSIGN_TO_USERS",
  REASSIGN_TO_SUPER_ADMINS: "APPROVAL_AGENT_FAILURE_ACTION_REASSIGN_TO_SUPER_ADMINS",
  SKIP_POLICY_STEP: "APPROVAL_AGENT_FAILURE_ACTION_SKIP_POLICY_STEP",
} as const;
/**
 * What an approval agent does when it fails (members beyond UNSPECIFIED from docs/domain.md §1). Open: an unknown member is any other string.
 *
 * @example
 * ```ts
 * const later: ApprovalAgentFailureAction = "APPROVAL_AGENT_FAILURE_ACTION_ADDED_LATER"; // kept as it came
 * ```
 */
export type ApprovalAgentFailureAction = (typeof ApprovalAgentFailureAction)[keyof typeof ApprovalAgentFailureAction] | (string & {});
/**
 * The members of {@link ApprovalAgentFailureAction} this version knows, in the spec's order.
 *
 * @example
 * ```ts
 * KNOWN_APPROVAL_AGENT_FAILURE_ACTIONS.includes("APPROVAL_AGENT_FAILURE_ACTION_UNSPECIFIED"); // true
 * ```
 */
export const KNOWN_APPROVAL_AGENT_FAILURE_ACTIONS: readonly ApprovalAgentFailureAction[] = Object.values(ApprovalAgentFailureAction);

/**
 * How much an approval agent may do (members beyond UNSPECIFIED from docs/domain.md §1).
 *
 * @example
 * ```ts
 * const v: ApprovalAgentMode = ApprovalAgentMode.FULL_CONTROL; // "APPROVAL_AGENT_MODE_FULL_CONTROL"
 * ```
 */
export const ApprovalAgentMode = {
  UNSPECIFIED: "APPROVAL_AGENT_MODE_UNSPECIFIED",
  FULL_CONTROL: "APPROVAL_AGENT_MODE_FULL_CONTROL",
  CHANGE_POLICY_ONLY: "APPROVAL_AGENT_MODE_CHANGE_POLICY_ONLY",
  COMMENT_ONLY: "APPROVAL_AGENT_MODE_COMMENT_ONLY",
} as const;
/**
 * How much an approval agent may do (members beyond UNSPECIFIED from docs/domain.md §1). Open: an unknown member is any other string.
 *
 * @example
 * ```ts
 * const later: ApprovalAgentMode = "APPROVAL_AGENT_MODE_ADDED_LATER"; // kept as it came
 * ```
 */
export type ApprovalAgentMode = (typeof ApprovalAgentMode)[keyof typeof ApprovalAgentMode] | (string & {});
/**
 * The members of {@link ApprovalAgentMode} this version knows, in the spec's order.
 *
 * @example
 * ```ts
 * KNOWN_APPROVAL_AGENT_MODES.includes("APPROVAL_AGENT_MODE_UNSPECIFIED"); // true
 * ```
 */
export const KNOWN_APPROVAL_AGENT_MODES: readonly ApprovalAgentMode[] = Object.values(ApprovalAgentMode);

/**
 * Internal state of an approval step instance (members beyond UNSPECIFIED from docs/domain.md §1).
 *
 * @example
 * ```ts
 * const v: ApprovalInstanceState = ApprovalInstanceState.INIT; // "APPROVAL_INSTANCE_STATE_INIT"
 * ```
 */
export const ApprovalInstanceState = {
  UNSPECIFIED: "APPROVAL_INSTANCE_STATE_UNSPECIFIED",
  INIT: "APPROVAL_INSTANCE_STATE_INIT",
  SENDING_NOTIFICATIONS: "APPROVAL_INSTANCE_STATE_SENDING_NOTIFICATIONS",
  WAITING: "APPROVAL_INSTANCE_STATE_WAITING",
  DONE: "APPROVAL_INSTANCE_STATE_DONE",
} as const;
/**
 * Internal state of an approval step instance (members beyond UNSPECIFIED from docs/domain.md §1). Open: an unknown member is any other string.
 *
 * @example
 * ```ts
 * const later: ApprovalInstanceState = "APPROVAL_INSTANCE_STATE_ADDED_LATER"; // kept as it came
 * ```
 */
export type ApprovalInstanceState = (typeof ApprovalInstanceState)[keyof typeof ApprovalInstanceState] | (string & {});
/**
 * The members of {@link ApprovalInstanceState} this version knows, in the spec's order.
 *
 * @example
 * ```ts
 * KNOWN_APPROVAL_INSTANCE_STATES.includes("APPROVAL_INSTANCE_STATE_UNSPECIFIED"); // true
 * ```
 */
export const KNOWN_APPROVAL_INSTANCE_STATES: readonly ApprovalInstanceState[] = Object.values(ApprovalInstanceState);

/**
 * Internal state of a form step instance (members beyond UNSPECIFIED from docs/domain.md §1).
 *
 * @example
 * ```ts
 * const v: FormInstanceState = FormInstanceState.WAITING; // "FORM_INSTANCE_STATE_WAITING"
 * ```
 */
export const FormInstanceState = {
  UNSPECIFIED: "FORM_INSTANCE_STATE_UNSPECIFIED",
  WAITING: "FORM_INSTANCE_STATE_WAITING",
  DONE: "FORM_INSTANCE_STATE_DONE",
} as const;
/**
 * Internal state of a form step instance (members beyond UNSPECIFIED from docs/domain.md §1). Open: an unknown member is any other string.
 *
 * @example
 * ```ts
 * const later: FormInstanceState = "FORM_INSTANCE_STATE_ADDED_LATER"; // kept as it came
 * ```
 */
export type FormInstanceState = (typeof FormInstanceState)[keyof typeof FormInstanceState] | (string & {});
/**
 * The members of {@link FormInstanceState} this version knows, in the spec's order.
 *
 * @example
 * ```ts
 * KNOWN_FORM_INSTANCE_STATES.includes("FORM_INSTANCE_STATE_UNSPECIFIED"); // true
 * ```
 */
export const KNOWN_FORM_INSTANCE_STATES: readonly FormInstanceState[] = Object.values(FormInstanceState);

/**
 * Internal state of a wait step instance (members beyond UNSPECIFIED from docs/domain.md §1).
 *
 * @example
 * ```ts
 * const v: WaitInstanceState = WaitInstanceState.WAITING; // "WAIT_INSTANCE_STATE_WAITING"
 * ```
 */
export const WaitInstanceState = {
  UNSPECIFIED: "WAIT_INSTANCE_STATE_UNSPECIFIED",
  WAITING: "WAIT_INSTANCE_STATE_WAITING",
  COMPLETED: "WAIT_INSTANCE_STATE_COMPLETED",
  TIMED_OUT: "WAIT_INSTANCE_STATE_TIMED_OUT",
} as const;
/**
 * Internal state of a wait step instance (members beyond UNSPECIFIED from docs/domain.md §1). Open: an unknown member is any other string.
 *
 * @example
 * ```ts
 * const later: WaitInstanceState = "WAIT_INSTANCE_STATE_ADDED_LATER"; // kept as it came
 * ```
 */
export type WaitInstanceState = (typeof WaitInstanceState)[keyof typeof WaitInstanceState] | (string & {});
/**
 * The members of {@link WaitInstanceState} this version knows, in the spec's order.
 *
 * @example
 * ```ts
 * KNOWN_WAIT_INSTANCE_STATES.includes("WAIT_INSTANCE_STATE_UNSPECIFIED"); // true
 * ```
 */
export const KNOWN_WAIT_INSTANCE_STATES: readonly WaitInstanceState[] = Object.values(WaitInstanceState);

/**
 * Internal state of an action step instance (members beyond UNSPECIFIED from docs/domain.md §1).
 *
 * @example
 * ```ts
 * const v: ActionInstanceState = ActionInstanceState.INIT; // "ACTION_INSTANCE_STATE_INIT"
 * ```
 */
export const ActionInstanceState = {
  UNSPECIFIED: "ACTION_INSTANCE_STATE_UNSPECIFIED",
  INIT: "ACTION_INSTANCE_STATE_INIT",
  RUNNING: "ACTION_INSTANCE_STATE_RUNNING",
  DONE: "ACTION_INSTANCE_STATE_DONE",
  ERROR: "ACTION_INSTANCE_STATE_ERROR",
} as const;
/**
 * Internal state of an action step instance (members beyond UNSPECIFIED from docs/domain.md §1). Open: an unknown member is any other string.
 *
 * @example
 * ```ts
 * const later: ActionInstanceState = "ACTION_INSTANCE_STATE_ADDED_LATER"; // kept as it came
 * ```
 */
export type ActionInstanceState = (typeof ActionInstanceState)[keyof typeof ActionInstanceState] | (string & {});
/**
 * The members of {@link ActionInstanceState} this version knows, in the spec's order.
 *
 * @example
 * ```ts
 * KNOWN_ACTION_INSTANCE_STATES.includes("ACTION_INSTANCE_STATE_UNSPECIFIED"); // true
 * ```
 */
export const KNOWN_ACTION_INSTANCE_STATES: readonly ActionInstanceState[] = Object.values(ActionInstanceState);

/**
 * Internal state of a provision step instance (members beyond UNSPECIFIED from docs/domain.md §1).
 *
 * @example
 * ```ts
 * const v: ProvisionInstanceState = ProvisionInstanceState.INIT; // "PROVISION_INSTANCE_STATE_INIT"
 * ```
 */
export const ProvisionInstanceState = {
  UNSPECIFIED: "PROVISION_INSTANCE_STATE_UNSPECIFIED",
  INIT: "PROVISION_INSTANCE_STATE_INIT",
  CREATE_CONNECTOR_ACTIONS_FOR_TARGET: "PROVISION_INSTANCE_STATE_CREATE_CONNECTOR_ACTIONS_FOR_TARGET",
  SENDING_NOTIFICATIONS: "PROVISION_INSTANCE_STATE_SENDING_NOTIFICATIONS",
  WAITING: "PROVISION_INSTANCE_STATE_WAITING",
  WEBHOOK: "PROVISION_INSTANCE_STATE_WEBHOOK",
  WEBHOOK_WAITING: "PROVISION_INSTANCE_STATE_WEBHOOK_WAITING",
  EXTERNAL_TICKET: "PROVISION_INSTANCE_STATE_EXTERNAL_TICKET",
  EXTERNAL_TICKET_WAITING: "PROVISION_INSTANCE_STATE_EXTERNAL_TICKET_WAITING",
  ACCOUNT_LIFECYCLE_ACTIONS: "PROVISION_INSTANCE_STATE_ACCOUNT_LIFECYCLE_ACTIONS",
  ACCOUNT_LIFECYCLE_ACTIONS_WAITING: "PROVISION_INSTANCE_STATE_ACCOUNT_LIFECYCLE_ACTIONS_WAITING",
  DEVICE_PLACEMENT: "PROVISION_INSTANCE_STATE_DEVICE_PLACEMENT",
  DONE: "PROVISION_INSTANCE_STATE_DONE",
} as const;
/**
 * Internal state of a provision step instance (members beyond UNSPECIFIED from docs/domain.md §1). Open: an unknown member is any other string.
 *
 * @example
 * ```ts
 * const later: ProvisionInstanceState = "PROVISION_INSTANCE_STATE_ADDED_LATER"; // kept as it came
 * ```
 */
export type ProvisionInstanceState = (typeof ProvisionInstanceState)[keyof typeof ProvisionInstanceState] | (string & {});
/**
 * The members of {@link ProvisionInstanceState} this version knows, in the spec's order.
 *
 * @example
 * ```ts
 * KNOWN_PROVISION_INSTANCE_STATES.includes("PROVISION_INSTANCE_STATE_UNSPECIFIED"); // true
 * ```
 */
export const KNOWN_PROVISION_INSTANCE_STATES: readonly ProvisionInstanceState[] = Object.values(ProvisionInstanceState);

/**
 * Presentation of a select field. Only the UNSPECIFIED member is published.
 *
 * @example
 * ```ts
 * const v: SelectType = SelectType.UNSPECIFIED; // "SELECT_TYPE_UNSPECIFIED"
 * ```
 */
export const SelectType = {
  UNSPECIFIED: "SELECT_TYPE_UNSPECIFIED",
} as const;
/**
 * Presentation of a select field. Only the UNSPECIFIED member is published. Open: an unknown member is any other string.
 *
 * @example
 * ```ts
 * const later: SelectType = "SELECT_TYPE_ADDED_LATER"; // kept as it came
 * ```
 */
export type SelectType = (typeof SelectType)[keyof typeof SelectType] | (string & {});
/**
 * The members of {@link SelectType} this version knows, in the spec's order.
 *
 * @example
 * ```ts
 * KNOWN_SELECT_TYPES.includes("SELECT_TYPE_UNSPECIFIED"); // true
 * ```
 */
export const KNOWN_SELECT_TYPES: readonly SelectType[] = Object.values(SelectType);

/**
 * A well-known pattern a string rule may require. Only `UNKNOWN` is published.
 *
 * @example
 * ```ts
 * const v: WellKnownRegex = WellKnownRegex.UNKNOWN; // "UNKNOWN"
 * ```
 */
export const WellKnownRegex = {
  UNKNOWN: "UNKNOWN",
} as const;
/**
 * A well-known pattern a string rule may require. Only `UNKNOWN` is published. Open: an unknown member is any other string.
 *
 * @example
 * ```ts
 * const later: WellKnownRegex = "ADDED_LATER"; // kept as it came
 * ```
 */
export type WellKnownRegex = (typeof WellKnownRegex)[keyof typeof WellKnownRegex] | (string & {});
/**
 * The members of {@link WellKnownRegex} this version knows, in the spec's order.
 *
 * @example
 * ```ts
 * KNOWN_WELL_KNOWN_REGEXES.includes("UNKNOWN"); // true
 * ```
 */
export const KNOWN_WELL_KNOWN_REGEXES: readonly WellKnownRegex[] = Object.values(WellKnownRegex);
