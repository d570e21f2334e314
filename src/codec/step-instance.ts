/**
 * Codec of policy step instances (spec, "PolicyStepInstance").
 */
import {
  ActionInstanceState,
  ApprovalInstanceState,
  FormInstanceState,
  PolicyStepState,
  ProvisionInstanceState,
  WaitInstanceState,
} from "../model/enums.js";
import type {
  ApprovalOutcome,
  EscalationInstance,
  FormOutcome,
  PolicyStepInstance,
  ProvisionOutcome,
  ProvisionWaitingOn,
  ReassignedAction,
  ReassignedByErrorAction,
  RestartedAction,
  SkippedAction,
  StepInstance,
} from "../model/step-instance.js";
import { appEntitlementReferenceCodec } from "./common.js";
import { formCodec } from "./form.js";
import { actionStepCodec, approvalCodec, escalationPolicyGroup, provisionCodec } from "./policy-step.js";
import {
  type Codec,
  type FieldSpecs,
  type OneofGroup,
  bool,
  duration,
  encodedOnce,
  enumOf,
  jsonObject,
  list,
  message,
  nullable,
  oneof,
  str,
  timestamp,
} from "./schema.js";

const reassigned: FieldSpecs<ReassignedAction> = { newPolicyStepId: str, reassignedAt: timestamp, userId: str };
const reassignedByError: FieldSpecs<ReassignedByErrorAction> = {
  description: str,
  errorCode: str,
  errorUserId: str,
  erroredAt: timestamp,
  newPolicyStepId: str,
  reassignedAt: timestamp,
};
const restarted: FieldSpecs<RestartedAction> = { oldPolicyStepId: str, restartedAt: timestamp, userId: str };
const skipped: FieldSpecs<SkippedAction> = { newPolicyStepId: str, skippedAt: timestamp, userId: str };

const escalationInstance = message<EscalationInstance>({
  alreadyEscalated: bool,
  escalationComment: str,
  expiresAt: timestamp,
  escalationPolicy: escalationPolicyGroup,
});

const approvalOutcome = oneof<ApprovalOutcome>({
  approved: { approvedAt: timestamp, entitlements: list(appEntitlementReferenceCodec), stepUpTransactionId: str, userId: str },
  denied: { deniedAt: timestamp, userId: str },
  reassigned,
  reassignedByError,
  restarted,
  skipped,
});

const formOutcome = oneof<FormOutcome>({
  completed: { completedAt: timestamp, userId: str },
  reassigned,
  restarted,
  skipped,
});

const provisionOutcome = oneof<ProvisionOutcome>({
  completed: { completedAt: timestamp, entitlements: list(appEntitlementReferenceCodec), userId: str },
  cancelled: { cancelledAt: timestamp, cancelledByUserId: str },
  errored: { description: str, errorCode: str, erroredAt: timestamp },
  reassignedByError,
  skipped,
});

const waitingOn = message<ProvisionWaitingOn>({
  fallbackAt: timestamp,
  startedWaitingAt: timestamp,
  on: oneof({
    devicePlacement: { recipientUserId: str, vaultBoundaryId: str },
    entitlementMerge: { appEntitlementId: str, appId: str },
  }),
});

/**
 * The step instance oneof; with `shared`, a frozen step definition inside an instance (an
 * approval's, a provision's, …: a loaded world's, or one `instantiate` made once) is encoded once
 * and its JSON shared (task views, see {@link encodedOnce}).
 */
function instanceOneof(shared: boolean): OneofGroup<StepInstance> {
  const once = <T extends object>(codec: Codec<T>): Codec<T> => (shared ? encodedOnce(codec) : codec);
  return oneof<StepInstance>(
    {
      approval: {
        approval: nullable(once(approvalCodec)),
        state: enumOf(ApprovalInstanceState),
        assignedAt: timestamp,
        escalationInstance: nullable(escalationInstance),
        outcome: approvalOutcome,
      },
      provision: {
        provision: nullable(once(provisionCodec)),
        state: enumOf(ProvisionInstanceState),
        svcActionInvocationId: str,
        externalTicketId: str,
        externalTicketProvisionerConfigId: str,
        notificationId: str,
        webhookId: str,
        webhookInstanceId: str,
        waitingOn: nullable(waitingOn),
        outcome: provisionOutcome,
      },
      accept: { acceptMessage: str },
      reject: { rejectMessage: str },
      wait: {
        name: str,
        commentOnFirstWait: str,
        commentOnTimeout: str,
        startedWaitingAt: timestamp,
        timeout: timestamp,
        timeoutDuration: duration,
        state: enumOf(WaitInstanceState),
        until: oneof({
          condition: { condition: str },
          untilTime: { durationIfExists: duration, untilTime: timestamp },
        }),
        outcome: oneof({
          succeeded: { succeededAt: timestamp },
          timedOut: { timedOutAt: timestamp },
          skipped,
        }),
      },
      form: {
        form: nullable(once(formCodec)),
        data: nullable(jsonObject),
        state: enumOf(FormInstanceState),
        outcome: formOutcome,
      },
      action: {
        action: nullable(once(actionStepCodec)),
        state: enumOf(ActionInstanceState),
        outcome: oneof({
          success: { outcomeTime: timestamp },
          denied: { outcomeTime: timestamp },
          error: { errorCode: str, errorMessage: str, outcomeTime: timestamp },
          cancelled: { outcomeTime: timestamp },
        }),
        target: oneof({
          automation: { automationExecutionId: str },
          svcResourceActionInstance: { svcActionInvocationId: str },
          clientIdApprovalInstance: { clientIdUrl: str },
        }),
      },
    },
    // Every step instance sets one kind, so an unknown object member is a step kind added later.
    { open: true },
  );
}

/**
 * Codec of {@link PolicyStepInstance}.
 *
 * @example
 * ```ts
 * const fields = { current: nullable(policyStepInstanceCodec) };
 * ```
 */
export const policyStepInstanceCodec: Codec<PolicyStepInstance> = stepInstanceCodec(false);

/**
 * Codec of {@link PolicyStepInstance} as task views carry it: the same wire JSON, with the JSON of
 * frozen step definitions inside shared between responses (see {@link encodedOnce}).
 *
 * @example
 * ```ts
 * const fields = { current: nullable(sharedPolicyStepInstanceCodec) };
 * ```
 */
export const sharedPolicyStepInstanceCodec: Codec<PolicyStepInstance> = stepInstanceCodec(true);

function stepInstanceCodec(shared: boolean): Codec<PolicyStepInstance> {
  return message<PolicyStepInstance>({
    id: str,
    policyGenerationId: str,
    state: enumOf(PolicyStepState),
    instance: instanceOneof(shared),
  });
}
