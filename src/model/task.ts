/**
 * The Task resource (spec, "Task" and "TaskType"): the unit of work a policy processes.
 */
import type {
  AppEntitlementRef,
  AppResourceRef,
  DurationString,
  Int64String,
  Timestamp,
  TypedMessage,
  UnknownFields,
  UnknownVariant,
  VariantExtras,
} from "./common.js";
import type {
  ActionOutcome,
  ActionTaskType,
  CertifyOutcome,
  ConnectorActionOperation,
  ExternalRefSource,
  FindingTaskOutcome,
  GrantOutcome,
  InsightRecommendation,
  OffboardingOutcome,
  RevokeOutcome,
  TaskActionType,
  TaskOrigin,
  TaskProcessingType,
  TaskState,
} from "./enums.js";
import type { Form } from "./form.js";
import type { JsonObject } from "./json.js";
import type { PolicyInstance } from "./policy-instance.js";

/**
 * A task as the service returns it. Every field is present after decoding (defaults filled).
 *
 * @example
 * ```ts
 * const t = decodeTask(json);
 * if (t.ok && t.value.type?.kind === "grant") console.log(t.value.type.appEntitlementId);
 * ```
 */
export interface Task {
  readonly id: string;
  /** int64 as a decimal string; may replace `id` in path parameters. */
  readonly numericId: Int64String;
  readonly displayName: string;
  /** Also called justification. */
  readonly description: string;
  readonly state: TaskState;
  readonly processing: TaskProcessingType;
  readonly origin: TaskOrigin;
  /** Actions the calling user may perform on the task. */
  readonly actions: readonly TaskActionType[] | null;
  readonly type: TaskType | null;
  readonly policy: PolicyInstance | null;
  /** Changes whenever the policy on the task changes. */
  readonly policyGenerationId: string;
  readonly form: Form | null;
  readonly userId: string;
  readonly createdByUserId: string;
  readonly approverIds: readonly string[] | null;
  readonly stepApproverIds: readonly string[] | null;
  readonly commentCount: number;
  readonly emergencyAccess: boolean;
  readonly analysisId: string;
  readonly insightIds: readonly string[] | null;
  readonly recommendation: InsightRecommendation;
  readonly revocationTargets: readonly TaskRevocationTarget[] | null;
  readonly externalRefs: readonly ExternalRef[] | null;
  readonly annotations: readonly TypedMessage[] | null;
  readonly data: JsonObject | null;
  readonly createdAt: Timestamp | null;
  readonly updatedAt: Timestamp | null;
  readonly deletedAt: Timestamp | null;
  readonly $unknown?: UnknownFields;
}

/**
 * A reference to something outside the service (currently unused by the service).
 *
 * @example
 * ```ts
 * const r: ExternalRef = { externalRefSource: "TRACKER", name: "JIRA-1", url: "https://jira/JIRA-1" };
 * ```
 */
export interface ExternalRef {
  readonly externalRefSource: ExternalRefSource;
  readonly name: string;
  readonly url: string;
  readonly $unknown?: UnknownFields;
}

/**
 * An ancestor entitlement also revoked when a revoke task is approved.
 *
 * @example
 * ```ts
 * const t: TaskRevocationTarget = { entitlementRef: { appId: "app-aws", id: "ent-parent" } };
 * ```
 */
export interface TaskRevocationTarget {
  readonly entitlementRef: AppEntitlementRef | null;
  readonly $unknown?: UnknownFields;
}

/**
 * Which kind of task this is: the `TaskType` oneof as a union on `kind` (wire `{"grant": {...}}` is
 * `{ kind: "grant", ... }`).
 *
 * @example
 * ```ts
 * function subject(t: TaskType): string {
 *   switch (t.kind) {
 *     case "grant": case "revoke": case "certify": return t.identityUserId;
 *     case "offboarding": return t.subjectUserId;
 *     case "action": case "finding": case "unknown": return "";
 *   }
 * }
 * ```
 */
export type TaskType =
  | TaskTypeGrant
  | TaskTypeRevoke
  | TaskTypeCertify
  | TaskTypeOffboarding
  | TaskTypeAction
  | TaskTypeFinding
  | UnknownVariant;

/**
 * An access request.
 *
 * @example
 * ```ts
 * const g = { kind: "grant", appId: "app-aws", appEntitlementId: "ent-admin", outcome: "GRANT_OUTCOME_UNSPECIFIED" } as TaskTypeGrant;
 * ```
 */
export interface TaskTypeGrant extends VariantExtras {
  readonly kind: "grant";
  readonly appEntitlementId: string;
  readonly appId: string;
  readonly appUserId: string;
  readonly identityUserId: string;
  readonly grantDuration: DurationString | null;
  readonly outcome: GrantOutcome;
  readonly outcomeTime: Timestamp | null;
  readonly source: TaskGrantSource | null;
}

/**
 * Where an access request came from.
 *
 * @example
 * ```ts
 * const s: TaskGrantSource = { conversationId: "", externalUrl: "", integrationId: "", isExtension: true, requestId: "r1" };
 * ```
 */
export interface TaskGrantSource {
  readonly conversationId: string;
  readonly externalUrl: string;
  readonly integrationId: string;
  readonly isExtension: boolean;
  readonly requestId: string;
  readonly $unknown?: UnknownFields;
}

/**
 * A revocation.
 *
 * @example
 * ```ts
 * const r = { kind: "revoke", appId: "app-aws", source: { kind: "expired", expiredAt: "2026-01-01T00:00:00Z" } } as TaskTypeRevoke;
 * ```
 */
export interface TaskTypeRevoke extends VariantExtras {
  readonly kind: "revoke";
  readonly appEntitlementId: string;
  readonly appId: string;
  readonly appUserId: string;
  readonly identityUserId: string;
  readonly outcome: RevokeOutcome;
  readonly outcomeTime: Timestamp | null;
  readonly resource: AppResourceRef | null;
  readonly source: RevokeSource | null;
}

/**
 * Why a revoke task was created: the revoke `source` oneof.
 *
 * @example
 * ```ts
 * const s: RevokeSource = { kind: "review", accessReviewId: "ar-q3", certTicketId: "t-9" };
 * ```
 */
export type RevokeSource =
  | RevokeSourceExpired
  | RevokeSourceNonUsage
  | RevokeSourceRequest
  | RevokeSourceReview
  | UnknownVariant;

/**
 * The grant expired.
 *
 * @example
 * ```ts
 * const s: RevokeSourceExpired = { kind: "expired", expiredAt: "2026-01-01T00:00:00Z" };
 * ```
 */
export interface RevokeSourceExpired extends VariantExtras {
  readonly kind: "expired";
  readonly expiredAt: Timestamp | null;
}

/**
 * The grant went unused.
 *
 * @example
 * ```ts
 * const s: RevokeSourceNonUsage = { kind: "nonUsage", expiresAt: null, lastLogin: "2025-06-01T00:00:00Z" };
 * ```
 */
export interface RevokeSourceNonUsage extends VariantExtras {
  readonly kind: "nonUsage";
  readonly expiresAt: Timestamp | null;
  readonly lastLogin: Timestamp | null;
}

/**
 * Someone asked for the revocation.
 *
 * @example
 * ```ts
 * const s: RevokeSourceRequest = { kind: "request", requestUserId: "u-ada" };
 * ```
 */
export interface RevokeSourceRequest extends VariantExtras {
  readonly kind: "request";
  readonly requestUserId: string;
}

/**
 * An access review decertified the grant.
 *
 * @example
 * ```ts
 * const s: RevokeSourceReview = { kind: "review", accessReviewId: "ar-q3", certTicketId: "t-9" };
 * ```
 */
export interface RevokeSourceReview extends VariantExtras {
  readonly kind: "review";
  readonly accessReviewId: string;
  readonly certTicketId: string;
}

/**
 * An access-review certification.
 *
 * @example
 * ```ts
 * const c = { kind: "certify", accessReviewId: "ar-q3", outcome: "CERTIFY_OUTCOME_CERTIFIED" } as TaskTypeCertify;
 * ```
 */
export interface TaskTypeCertify extends VariantExtras {
  readonly kind: "certify";
  readonly accessReviewId: string;
  /** Id of the access review object owning the task. */
  readonly accessReviewSelection: string;
  readonly appEntitlementId: string;
  readonly appId: string;
  readonly appUserId: string;
  readonly identityUserId: string;
  readonly outcome: CertifyOutcome;
  readonly outcomeTime: Timestamp | null;
  /** The resource principal under review. */
  readonly resource: AppResourceRef | null;
}

/**
 * An offboarding.
 *
 * @example
 * ```ts
 * const o: TaskTypeOffboarding = { kind: "offboarding", subjectUserId: "u-bob", outcome: "OFFBOARDING_OUTCOME_DONE", outcomeTime: null };
 * ```
 */
export interface TaskTypeOffboarding extends VariantExtras {
  readonly kind: "offboarding";
  readonly subjectUserId: string;
  readonly outcome: OffboardingOutcome;
  readonly outcomeTime: Timestamp | null;
}

/**
 * A task about a finding.
 *
 * @example
 * ```ts
 * const f: TaskTypeFinding = { kind: "finding", findingId: "f1", findingType: "stale", outcome: "FINDING_TASK_OUTCOME_UNSPECIFIED", outcomeTime: null };
 * ```
 */
export interface TaskTypeFinding extends VariantExtras {
  readonly kind: "finding";
  readonly findingId: string;
  readonly findingType: string;
  readonly outcome: FindingTaskOutcome;
  readonly outcomeTime: Timestamp | null;
}

/**
 * An action task (automation, resource action, tool call, scope-role grant, credential issue, …).
 *
 * @example
 * ```ts
 * const a = { kind: "action", type: "TYPE_SPEND_REMEDY", target: null } as TaskTypeAction;
 * ```
 */
export interface TaskTypeAction extends VariantExtras {
  readonly kind: "action";
  /** Empty for synthesized action tasks (for example scope-role grants). */
  readonly actionId: string;
  readonly actionInstance: TaskActionInstance | null;
  /** Label captured at creation, stable under later renames. */
  readonly displayName: string;
  readonly type: ActionTaskType;
  readonly outcome: ActionOutcome;
  readonly outcomeTime: Timestamp | null;
  readonly formValues: JsonObject | null;
  readonly createdAppEntitlementIds: readonly string[] | null;
  readonly createdAppResourceId: string;
  readonly createdAppResourceTypeId: string;
  /** The target-object oneof (scopeRole, toolCall, finding, credentialIssue). */
  readonly target: ActionTaskTarget | null;
}

/**
 * How an action task is dispatched.
 *
 * @example
 * ```ts
 * const i: TaskActionInstance = { svcResourceActionRef: null, connectorActionRef: null, displayName: "Rotate key" };
 * ```
 */
export interface TaskActionInstance {
  readonly svcResourceActionRef: SvcResourceActionRef | null;
  readonly connectorActionRef: ConnectorActionRef | null;
  readonly displayName: string;
  readonly $unknown?: UnknownFields;
}

/**
 * A reference to a resource action of a connector.
 *
 * @example
 * ```ts
 * const r: SvcResourceActionRef = { appId: "a", svcActionDisplayName: "Rotate", svcActionName: "rotate", connectorId: "c", resourceTypeId: "rt" };
 * ```
 */
export interface SvcResourceActionRef {
  readonly appId: string;
  readonly svcActionDisplayName: string;
  readonly svcActionName: string;
  readonly connectorId: string;
  readonly resourceTypeId: string;
  readonly $unknown?: UnknownFields;
}

/**
 * A reference to a connector action.
 *
 * @example
 * ```ts
 * const r: ConnectorActionRef = { appId: "a", connectorId: "c", operation: "OPERATION_UNSPECIFIED" };
 * ```
 */
export interface ConnectorActionRef {
  readonly appId: string;
  readonly connectorId: string;
  readonly operation: ConnectorActionOperation;
  readonly $unknown?: UnknownFields;
}

/**
 * The target object of an action task: the action variant's oneof.
 *
 * @example
 * ```ts
 * const t: ActionTaskTarget = { kind: "finding", findingId: "f1", findingType: "stale" };
 * ```
 */
export type ActionTaskTarget =
  | ActionTargetScopeRole
  | ActionTargetToolCall
  | ActionTargetFinding
  | ActionTargetCredentialIssue
  | UnknownVariant;

/**
 * A scope-role grant: a role resource bound within a scope resource.
 *
 * @example
 * ```ts
 * const t = { kind: "scopeRole", roleResourceId: "r-admin", scopeResourceId: "proj-1" } as ActionTargetScopeRole;
 * ```
 */
export interface ActionTargetScopeRole extends VariantExtras {
  readonly kind: "scopeRole";
  readonly appId: string;
  readonly appUserId: string;
  readonly grantDuration: DurationString | null;
  readonly roleResourceId: string;
  readonly roleResourceTypeId: string;
  readonly scopeResourceId: string;
  readonly scopeResourceTypeId: string;
}

/**
 * A gated tool call.
 *
 * @example
 * ```ts
 * const t = { kind: "toolCall", toolName: "deploy", inputSizeBytes: 12, toolInput: { env: "prod" } } as ActionTargetToolCall;
 * ```
 */
export interface ActionTargetToolCall extends VariantExtras {
  readonly kind: "toolCall";
  readonly appEntitlementId: string;
  readonly appId: string;
  readonly callerKind: string;
  readonly connectorId: string;
  readonly gateId: string;
  readonly inputSizeBytes: number;
  readonly toolError: string;
  readonly toolId: string;
  readonly toolInput: JsonObject | null;
  readonly toolKind: string;
  readonly toolName: string;
  readonly toolOutput: string;
}

/**
 * An action about a finding.
 *
 * @example
 * ```ts
 * const t: ActionTargetFinding = { kind: "finding", findingId: "f1", findingType: "stale" };
 * ```
 */
export interface ActionTargetFinding extends VariantExtras {
  readonly kind: "finding";
  readonly findingId: string;
  readonly findingType: string;
}

/**
 * Issuing a credential.
 *
 * @example
 * ```ts
 * const t = { kind: "credentialIssue", duration: "3600s", scopes: ["read"] } as ActionTargetCredentialIssue;
 * ```
 */
export interface ActionTargetCredentialIssue extends VariantExtras {
  readonly kind: "credentialIssue";
  readonly duration: DurationString | null;
  readonly identityAppUserId: string;
  readonly identityResourceId: string;
  readonly identityUserId: string;
  readonly offeringId: string;
  readonly requestCatalogId: string;
  readonly scopes: readonly string[] | null;
}
