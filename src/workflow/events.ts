/**
 * Audit events: what a reducer did, as data. Names follow the service's audit records (DOMAIN.md §4):
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
  | (EventBase & { readonly kind: "taskClosed"; readonly outcome: string })
  | (EventBase & {
      readonly kind: "conditionalPolicyExecutionResult";
      readonly policyId: string;
      readonly chainDepth: number;
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
