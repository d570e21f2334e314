/**
 * Policy step instances (spec, "PolicyStepInstance"): a step being executed or done, with its outcome.
 */
import type {
  AppEntitlementReference,
  DurationString,
  Timestamp,
  UnknownFields,
  UnknownVariant,
  VariantExtras,
} from "./common.js";
import type {
  ActionInstanceState,
  ApprovalInstanceState,
  FormInstanceState,
  PolicyStepState,
  ProvisionInstanceState,
  WaitInstanceState,
} from "./enums.js";
import type { Form } from "./form.js";
import type { JsonObject } from "./json.js";
import type { ActionStep, Approval, EscalationPolicy, Provision } from "./policy-step.js";

/**
 * A step of a task's policy that is running (`current`) or finished (`history`).
 *
 * @example
 * ```ts
 * const done = (s: PolicyStepInstance) => s.state === PolicyStepState.DONE;
 * ```
 */
export interface PolicyStepInstance {
  /** Names the step in action-submission endpoints. */
  readonly id: string;
  readonly policyGenerationId: string;
  readonly state: PolicyStepState;
  /** The approval / provision / accept / reject / wait / form / action oneof. */
  readonly instance: StepInstance | null;
  readonly $unknown?: UnknownFields;
}

/**
 * The kind-specific part of a step instance.
 *
 * @example
 * ```ts
 * function finished(i: StepInstance): boolean {
 *   switch (i.kind) {
 *     case "approval": case "form": case "provision": case "wait": case "action": return i.outcome !== null;
 *     case "accept": case "reject": return true;
 *     case "unknown": return false;
 *   }
 * }
 * ```
 */
export type StepInstance =
  | ApprovalInstance
  | ProvisionInstance
  | AcceptInstance
  | RejectInstance
  | WaitInstance
  | FormInstance
  | ActionInstance
  | UnknownVariant;

/**
 * An accept step that ran.
 *
 * @example
 * ```ts
 * const i: AcceptInstance = { kind: "accept", acceptMessage: "" };
 * ```
 */
export interface AcceptInstance extends VariantExtras {
  readonly kind: "accept";
  readonly acceptMessage: string;
}

/**
 * A reject step that ran.
 *
 * @example
 * ```ts
 * const i: RejectInstance = { kind: "reject", rejectMessage: "no" };
 * ```
 */
export interface RejectInstance extends VariantExtras {
  readonly kind: "reject";
  readonly rejectMessage: string;
}

/**
 * An approval step instance.
 *
 * @example
 * ```ts
 * const approvedBy = (i: ApprovalInstance) => (i.outcome?.kind === "approved" ? i.outcome.userId : null);
 * ```
 */
export interface ApprovalInstance extends VariantExtras {
  readonly kind: "approval";
  /** The step definition. */
  readonly approval: Approval | null;
  readonly state: ApprovalInstanceState;
  readonly assignedAt: Timestamp | null;
  readonly escalationInstance: EscalationInstance | null;
  readonly outcome: ApprovalOutcome | null;
}

/**
 * The escalation state of an approval instance.
 *
 * @example
 * ```ts
 * const e: EscalationInstance = { alreadyEscalated: false, escalationComment: "", expiresAt: null, escalationPolicy: null };
 * ```
 */
export interface EscalationInstance {
  readonly alreadyEscalated: boolean;
  readonly escalationComment: string;
  readonly expiresAt: Timestamp | null;
  readonly escalationPolicy: EscalationPolicy | null;
  readonly $unknown?: UnknownFields;
}

/**
 * The step was approved.
 *
 * @example
 * ```ts
 * const o: ApprovedAction = { kind: "approved", approvedAt: null, entitlements: null, stepUpTransactionId: "", userId: "u-ada" };
 * ```
 */
export interface ApprovedAction extends VariantExtras {
  readonly kind: "approved";
  readonly approvedAt: Timestamp | null;
  readonly entitlements: readonly AppEntitlementReference[] | null;
  readonly stepUpTransactionId: string;
  readonly userId: string;
}

/**
 * The step was denied.
 *
 * @example
 * ```ts
 * const o: DeniedAction = { kind: "denied", deniedAt: null, userId: "u-bob" };
 * ```
 */
export interface DeniedAction extends VariantExtras {
  readonly kind: "denied";
  readonly deniedAt: Timestamp | null;
  readonly userId: string;
}

/**
 * The step was reassigned to a new step.
 *
 * @example
 * ```ts
 * const o: ReassignedAction = { kind: "reassigned", newPolicyStepId: "s2", reassignedAt: null, userId: "u-bob" };
 * ```
 */
export interface ReassignedAction extends VariantExtras {
  readonly kind: "reassigned";
  readonly newPolicyStepId: string;
  readonly reassignedAt: Timestamp | null;
  readonly userId: string;
}

/**
 * The step was reassigned because it failed.
 *
 * @example
 * ```ts
 * const o = { kind: "reassignedByError", errorCode: "E1", newPolicyStepId: "s2" } as ReassignedByErrorAction;
 * ```
 */
export interface ReassignedByErrorAction extends VariantExtras {
  readonly kind: "reassignedByError";
  readonly description: string;
  readonly errorCode: string;
  readonly errorUserId: string;
  readonly erroredAt: Timestamp | null;
  readonly newPolicyStepId: string;
  readonly reassignedAt: Timestamp | null;
}

/**
 * The task was restarted while this step was pending.
 *
 * @example
 * ```ts
 * const o: RestartedAction = { kind: "restarted", oldPolicyStepId: "s1", restartedAt: null, userId: "u-admin" };
 * ```
 */
export interface RestartedAction extends VariantExtras {
  readonly kind: "restarted";
  readonly oldPolicyStepId: string;
  readonly restartedAt: Timestamp | null;
  readonly userId: string;
}

/**
 * The step was skipped.
 *
 * @example
 * ```ts
 * const o: SkippedAction = { kind: "skipped", newPolicyStepId: "s2", skippedAt: null, userId: "u-admin" };
 * ```
 */
export interface SkippedAction extends VariantExtras {
  readonly kind: "skipped";
  readonly newPolicyStepId: string;
  readonly skippedAt: Timestamp | null;
  readonly userId: string;
}

/**
 * How an approval step ended.
 *
 * @example
 * ```ts
 * const o: ApprovalOutcome = { kind: "denied", deniedAt: "2026-11-22T09:00:00Z", userId: "u-bob" };
 * ```
 */
export type ApprovalOutcome =
  | ApprovedAction
  | DeniedAction
  | ReassignedAction
  | ReassignedByErrorAction
  | RestartedAction
  | SkippedAction
  | UnknownVariant;

/**
 * A form step instance.
 *
 * @example
 * ```ts
 * const submitted = (i: FormInstance) => i.outcome?.kind === "completed";
 * ```
 */
export interface FormInstance extends VariantExtras {
  readonly kind: "form";
  readonly form: Form | null;
  readonly data: JsonObject | null;
  readonly state: FormInstanceState;
  readonly outcome: FormOutcome | null;
}

/**
 * The form was filled in.
 *
 * @example
 * ```ts
 * const o: FormCompletedAction = { kind: "completed", completedAt: null, userId: "u-ada" };
 * ```
 */
export interface FormCompletedAction extends VariantExtras {
  readonly kind: "completed";
  readonly completedAt: Timestamp | null;
  readonly userId: string;
}

/**
 * How a form step ended.
 *
 * @example
 * ```ts
 * const o: FormOutcome = { kind: "completed", completedAt: null, userId: "u-ada" };
 * ```
 */
export type FormOutcome = FormCompletedAction | ReassignedAction | RestartedAction | SkippedAction | UnknownVariant;

/**
 * A provision step instance.
 *
 * @example
 * ```ts
 * const failed = (i: ProvisionInstance) => i.outcome?.kind === "errored";
 * ```
 */
export interface ProvisionInstance extends VariantExtras {
  readonly kind: "provision";
  /** The step definition. */
  readonly provision: Provision | null;
  readonly state: ProvisionInstanceState;
  readonly svcActionInvocationId: string;
  readonly externalTicketId: string;
  readonly externalTicketProvisionerConfigId: string;
  readonly notificationId: string;
  readonly webhookId: string;
  readonly webhookInstanceId: string;
  readonly waitingOn: ProvisionWaitingOn | null;
  readonly outcome: ProvisionOutcome | null;
}

/**
 * Provisioning completed.
 *
 * @example
 * ```ts
 * const o: ProvisionCompletedAction = { kind: "completed", completedAt: null, entitlements: null, userId: "u-ops" };
 * ```
 */
export interface ProvisionCompletedAction extends VariantExtras {
  readonly kind: "completed";
  readonly completedAt: Timestamp | null;
  readonly entitlements: readonly AppEntitlementReference[] | null;
  readonly userId: string;
}

/**
 * Provisioning was cancelled.
 *
 * @example
 * ```ts
 * const o: ProvisionCancelledAction = { kind: "cancelled", cancelledAt: null, cancelledByUserId: "u-ops" };
 * ```
 */
export interface ProvisionCancelledAction extends VariantExtras {
  readonly kind: "cancelled";
  readonly cancelledAt: Timestamp | null;
  readonly cancelledByUserId: string;
}

/**
 * Provisioning failed.
 *
 * @example
 * ```ts
 * const o: ProvisionErroredAction = { kind: "errored", description: "timeout", errorCode: "E_TIMEOUT", erroredAt: null };
 * ```
 */
export interface ProvisionErroredAction extends VariantExtras {
  readonly kind: "errored";
  readonly description: string;
  readonly errorCode: string;
  readonly erroredAt: Timestamp | null;
}

/**
 * How a provision step ended.
 *
 * @example
 * ```ts
 * const o: ProvisionOutcome = { kind: "errored", description: "timeout", errorCode: "E1", erroredAt: null };
 * ```
 */
export type ProvisionOutcome =
  | ProvisionCompletedAction
  | ProvisionCancelledAction
  | ProvisionErroredAction
  | ReassignedByErrorAction
  | SkippedAction
  | UnknownVariant;

/**
 * What a provision step is waiting on, and until when.
 *
 * @example
 * ```ts
 * const w: ProvisionWaitingOn = { fallbackAt: null, startedWaitingAt: null,
 *   on: { kind: "entitlementMerge", appEntitlementId: "e", appId: "a" } };
 * ```
 */
export interface ProvisionWaitingOn {
  readonly fallbackAt: Timestamp | null;
  readonly startedWaitingAt: Timestamp | null;
  /** The devicePlacement / entitlementMerge oneof. */
  readonly on: WaitingOnKind | null;
  readonly $unknown?: UnknownFields;
}

/**
 * The thing a provision step waits on.
 *
 * @example
 * ```ts
 * const k: WaitingOnKind = { kind: "devicePlacement", recipientUserId: "u-ada", vaultBoundaryId: "vb1" };
 * ```
 */
export type WaitingOnKind =
  | ({ readonly kind: "devicePlacement"; readonly recipientUserId: string; readonly vaultBoundaryId: string } & VariantExtras)
  | ({ readonly kind: "entitlementMerge"; readonly appEntitlementId: string; readonly appId: string } & VariantExtras)
  | UnknownVariant;

/**
 * A wait step instance.
 *
 * @example
 * ```ts
 * const timedOut = (i: WaitInstance) => i.outcome?.kind === "timedOut";
 * ```
 */
export interface WaitInstance extends VariantExtras {
  readonly kind: "wait";
  readonly name: string;
  readonly commentOnFirstWait: string;
  readonly commentOnTimeout: string;
  readonly startedWaitingAt: Timestamp | null;
  readonly timeout: Timestamp | null;
  readonly timeoutDuration: DurationString | null;
  readonly state: WaitInstanceState;
  /** The condition / untilTime oneof. */
  readonly until: WaitInstanceUntil | null;
  readonly outcome: WaitOutcome | null;
}

/**
 * What a running wait step waits for.
 *
 * @example
 * ```ts
 * const u: WaitInstanceUntil = { kind: "untilTime", durationIfExists: null, untilTime: "2026-11-23T09:00:00Z" };
 * ```
 */
export type WaitInstanceUntil =
  | { readonly kind: "condition"; readonly condition: string } & VariantExtras
  | ({
      readonly kind: "untilTime";
      readonly durationIfExists: DurationString | null;
      readonly untilTime: Timestamp | null;
    } & VariantExtras)
  | UnknownVariant;

/**
 * How a wait step ended.
 *
 * @example
 * ```ts
 * const o: WaitOutcome = { kind: "succeeded", succeededAt: "2026-11-22T10:00:00Z" };
 * ```
 */
export type WaitOutcome =
  | { readonly kind: "succeeded"; readonly succeededAt: Timestamp | null } & VariantExtras
  | { readonly kind: "timedOut"; readonly timedOutAt: Timestamp | null } & VariantExtras
  | SkippedAction
  | UnknownVariant;

/**
 * An action step instance.
 *
 * @example
 * ```ts
 * const ok = (i: ActionInstance) => i.outcome?.kind === "success";
 * ```
 */
export interface ActionInstance extends VariantExtras {
  readonly kind: "action";
  /** The step definition. */
  readonly action: ActionStep | null;
  readonly state: ActionInstanceState;
  readonly outcome: ActionInstanceOutcome | null;
  readonly target: ActionInstanceTarget | null;
}

/**
 * How an action step ended.
 *
 * @example
 * ```ts
 * const o: ActionInstanceOutcome = { kind: "error", errorCode: "E1", errorMessage: "boom", outcomeTime: null };
 * ```
 */
export type ActionInstanceOutcome =
  | { readonly kind: "success"; readonly outcomeTime: Timestamp | null } & VariantExtras
  | { readonly kind: "denied"; readonly outcomeTime: Timestamp | null } & VariantExtras
  | ({
      readonly kind: "error";
      readonly errorCode: string;
      readonly errorMessage: string;
      readonly outcomeTime: Timestamp | null;
    } & VariantExtras)
  | { readonly kind: "cancelled"; readonly outcomeTime: Timestamp | null } & VariantExtras
  | UnknownVariant;

/**
 * What an action step instance runs.
 *
 * @example
 * ```ts
 * const t: ActionInstanceTarget = { kind: "automation", automationExecutionId: "ae-1" };
 * ```
 */
export type ActionInstanceTarget =
  | { readonly kind: "automation"; readonly automationExecutionId: string } & VariantExtras
  | { readonly kind: "svcResourceActionInstance"; readonly svcActionInvocationId: string } & VariantExtras
  | { readonly kind: "clientIdApprovalInstance"; readonly clientIdUrl: string } & VariantExtras
  | UnknownVariant;
