/**
 * Audit events: what a reducer did, as data. Names follow the service's audit records (docs/domain.md §4):
 * `hardReset {oldPolicyStepId}`, `policyChanged {oldPolicyId, newPolicyId}`,
 * `comment {comment, updatedAt, updatedBy}`, `stepSkipped`, and one
 * `conditionalPolicyExecutionResult` per rule evaluated.
 */

interface EventBase {
  /** Deterministic id from the world's sequence. */
  readonly id: string;
  readonly taskId: string;
  /** When it happened (the simulation clock). */
  readonly at: string;
  /** Who did it; "" for the system. */
  readonly actorId: string;
}

/**
 * One audit event. A union on `kind`.
 *
 * @example
 * ```ts
 * for (const e of step.events) if (e.kind === "policyChanged") console.log(e.oldPolicyId, "→", e.newPolicyId);
 * ```
 */
export type AuditEvent =
  | (EventBase & { readonly kind: "hardReset"; readonly oldPolicyStepId: string; readonly comment: string })
  | (EventBase & { readonly kind: "policyChanged"; readonly oldPolicyId: string; readonly newPolicyId: string })
  | (EventBase & { readonly kind: "comment"; readonly commentId: string; readonly comment: string; readonly updatedAt: string; readonly updatedBy: string })
  | (EventBase & { readonly kind: "stepSkipped"; readonly policyStepId: string; readonly reason: string })
  | (EventBase & { readonly kind: "stepCompleted"; readonly policyStepId: string; readonly stepKind: string })
  // An approval step whose reviewers are not the kind's own (fallback, campaign owners, Super
  // Administrators), with the documented reason; and one the subject's self-approval decided.
  | (EventBase & {
      readonly kind: "reviewersRouted";
      readonly policyStepId: string;
      readonly via: string;
      readonly reason: string;
      readonly userIds: readonly string[];
    })
  // A reviewer replaced by their delegate (product_admin_delegate.mdx: "Each task's audit log will
  // contain an entry showing the delegation reassignment").
  | (EventBase & {
      readonly kind: "reassignedToDelegate";
      readonly policyStepId: string;
      readonly originalAssigneeUserId: string;
      readonly delegatedAssigneeUserId: string;
    })
  | (EventBase & { readonly kind: "stepAutoApproved"; readonly policyStepId: string; readonly userId: string; readonly reason: string })
  | (EventBase & { readonly kind: "taskClosed"; readonly outcome: string })
  // The workflow engine (docs/workflow.md): one record per task action, whose id is the response's
  // `ticketActionId`, then what the workflow did as a consequence.
  | (EventBase & { readonly kind: "approved"; readonly policyStepId: string; readonly comment: string; readonly stepUpTransactionId: string })
  | (EventBase & { readonly kind: "denied"; readonly policyStepId: string; readonly comment: string })
  | (EventBase & {
      readonly kind: "stepUpRequested";
      readonly policyStepId: string;
      readonly stepUpProviderId: string;
      readonly stepUpTransactionId: string;
      readonly redirectUrl: string;
    })
  | (EventBase & {
      readonly kind: "reassigned";
      readonly policyStepId: string;
      readonly newPolicyStepId: string;
      readonly newStepUserIds: readonly string[];
      readonly comment: string;
    })
  | (EventBase & { readonly kind: "restarted"; readonly oldPolicyStepId: string; readonly comment: string })
  | (EventBase & { readonly kind: "closeRequested"; readonly policyStepId: string; readonly comment: string })
  | (EventBase & { readonly kind: "taskDeleted"; readonly comment: string })
  | (EventBase & { readonly kind: "reminderSent"; readonly policyStepId: string; readonly userIds: readonly string[] })
  | (EventBase & { readonly kind: "escalatedToEmergencyAccess"; readonly oldPolicyId: string; readonly oldPolicyStepId?: string; readonly newPolicyId: string })
  | (EventBase & { readonly kind: "processedNow"; readonly policyStepId: string })
  | (EventBase & { readonly kind: "stepStarted"; readonly policyStepId: string; readonly stepKind: string })
  | (EventBase & {
      readonly kind: "provisionCompleted";
      readonly policyStepId: string;
      readonly entitlements: readonly { readonly appId: string; readonly appEntitlementId: string }[];
    })
  | (EventBase & { readonly kind: "provisionCancelled"; readonly policyStepId: string })
  | (EventBase & { readonly kind: "provisionErrored"; readonly policyStepId: string; readonly errorCode: string; readonly description: string })
  | (EventBase & { readonly kind: "provisioningRetried"; readonly erroredPolicyStepId: string; readonly newPolicyStepId: string })
  | (EventBase & { readonly kind: "provisionRoutedToManual"; readonly policyStepId: string; readonly reason: string; readonly provisionerIds: readonly string[] })
  | (EventBase & {
      readonly kind: "provisionWaitingOnSync";
      readonly policyStepId: string;
      readonly appId: string;
      readonly appEntitlementId: string;
      readonly fallbackAt: string;
    })
  | (EventBase & { readonly kind: "provisionResumedAfterSync"; readonly policyStepId: string; readonly appId: string })
  | (EventBase & { readonly kind: "provisionFellBackToManual"; readonly policyStepId: string; readonly provisionerIds: readonly string[] })
  | (EventBase & { readonly kind: "formCompleted"; readonly policyStepId: string; readonly fieldNames: readonly string[] })
  | (EventBase & {
      readonly kind: "actionOutcome";
      readonly policyStepId: string;
      readonly outcome: "success" | "denied" | "error" | "cancelled";
      readonly errorCode: string;
      readonly errorMessage: string;
    })
  | (EventBase & { readonly kind: "waitSucceeded"; readonly policyStepId: string; readonly reason: string })
  | (EventBase & { readonly kind: "waitTimedOut"; readonly policyStepId: string })
  | (EventBase & {
      readonly kind: "approvalEscalated";
      readonly policyStepId: string;
      readonly escalation: string;
      readonly escalationComment: string;
    })
  | (EventBase & { readonly kind: "synced"; readonly appId: string; readonly appEntitlementIds: readonly string[]; readonly resumedTaskIds: readonly string[] })
  | (EventBase & {
      readonly kind: "grantAdded";
      readonly appId: string;
      readonly appEntitlementId: string;
      readonly identityUserId: string;
      /**
       * When the access ends: the closing time plus the request's `grantDuration`, null for access
       * without an end. A grant already held is given the later end (an extension), or none.
       */
      readonly deprovisionAt: string | null;
    })
  | (EventBase & {
      readonly kind: "grantRevoked";
      readonly appId: string;
      readonly appEntitlementId: string;
      readonly identityUserId: string;
      /** The grant's source in the world (`direct`, `enrollment`, `automatic-enrollment`). */
      readonly source: string;
      /** Why: the revoke task's own entitlement, an inherited upstream source, or an automation. */
      readonly reason: "entitlement" | "revocationTarget" | "automation";
    })
  | (EventBase & { readonly kind: "taskCreated"; readonly createdTaskId: string; readonly numericId: string; readonly taskKind: string })
  | (EventBase & { readonly kind: "grantDurationUpdated"; readonly oldGrantDuration: string; readonly newGrantDuration: string })
  | (EventBase & {
      readonly kind: "conditionalPolicyExecutionResult";
      readonly policyId: string;
      readonly chainDepth: number;
      /** The rule's index in its policy's `rules`, -1 for the baseline; Hard Reset records it. */
      readonly ruleIndex?: number;
      readonly condition: string;
      readonly conditionMatched: boolean;
      readonly defaultCondition: boolean;
      readonly error: string;
      readonly policyKey: string;
      readonly stepKey: string;
      readonly outcomePolicyId: string;
    });

/**
 * The kinds of {@link AuditEvent}.
 *
 * @example
 * ```ts
 * const k: AuditEventKind = "hardReset";
 * ```
 */
export type AuditEventKind = AuditEvent["kind"];
