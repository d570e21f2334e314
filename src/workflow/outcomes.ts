/**
 * The outcome each task type reaches when its policy approves or rejects it. The spec lists the
 * outcome enums; which member an `accept` or `reject` step produces for the non-request types is
 * assumed here, in one place (README, Assumptions).
 */
import type { TaskType } from "../model/index.js";

/**
 * Which way a task's policy ended. `timedOut` is a wait step's timeout: the request types have a
 * `WAIT_TIMED_OUT` member; the others (offboarding, action, finding) have none, and their nearest
 * member is used (assumed, docs/workflow.md).
 *
 * @example
 * ```ts
 * const v: Verdict = "approved";
 * ```
 */
export type Verdict = "approved" | "denied" | "cancelled" | "error" | "timedOut";

const OUTCOMES: Record<Exclude<TaskType["kind"], "unknown">, Record<Verdict, string>> = {
  grant: {
    approved: "GRANT_OUTCOME_GRANTED",
    denied: "GRANT_OUTCOME_DENIED",
    cancelled: "GRANT_OUTCOME_CANCELLED",
    error: "GRANT_OUTCOME_ERROR",
    timedOut: "GRANT_OUTCOME_WAIT_TIMED_OUT",
  },
  revoke: {
    approved: "REVOKE_OUTCOME_REVOKED",
    denied: "REVOKE_OUTCOME_DENIED",
    cancelled: "REVOKE_OUTCOME_CANCELLED",
    error: "REVOKE_OUTCOME_ERROR",
    timedOut: "REVOKE_OUTCOME_WAIT_TIMED_OUT",
  },
  certify: {
    approved: "CERTIFY_OUTCOME_CERTIFIED",
    denied: "CERTIFY_OUTCOME_DECERTIFIED",
    cancelled: "CERTIFY_OUTCOME_CANCELLED",
    error: "CERTIFY_OUTCOME_ERROR",
    timedOut: "CERTIFY_OUTCOME_WAIT_TIMED_OUT",
  },
  offboarding: {
    approved: "OFFBOARDING_OUTCOME_DONE",
    denied: "OFFBOARDING_OUTCOME_CANCELLED",
    cancelled: "OFFBOARDING_OUTCOME_CANCELLED",
    error: "OFFBOARDING_OUTCOME_ERROR",
    timedOut: "OFFBOARDING_OUTCOME_ERROR",
  },
  action: {
    approved: "ACTION_OUTCOME_SUCCESS",
    denied: "ACTION_OUTCOME_DENIED",
    cancelled: "ACTION_OUTCOME_CANCELLED",
    error: "ACTION_OUTCOME_ERROR",
    timedOut: "ACTION_OUTCOME_ERROR",
  },
  finding: {
    approved: "FINDING_TASK_OUTCOME_REMEDIATED",
    denied: "FINDING_TASK_OUTCOME_RISK_ACCEPTED",
    cancelled: "FINDING_TASK_OUTCOME_CANCELLED",
    error: "FINDING_TASK_OUTCOME_CANCELLED",
    timedOut: "FINDING_TASK_OUTCOME_CANCELLED",
  },
};

const UNSPECIFIED: Record<Exclude<TaskType["kind"], "unknown">, string> = {
  grant: "GRANT_OUTCOME_UNSPECIFIED",
  revoke: "REVOKE_OUTCOME_UNSPECIFIED",
  certify: "CERTIFY_OUTCOME_UNSPECIFIED",
  offboarding: "OFFBOARDING_OUTCOME_UNSPECIFIED",
  action: "ACTION_OUTCOME_UNSPECIFIED",
  finding: "FINDING_TASK_OUTCOME_UNSPECIFIED",
};

/**
 * The task type with its outcome set to the verdict's member and `outcomeTime` to `at`
 * (`verdict: null` resets both, as a Hard Reset does). An unknown type is returned unchanged.
 *
 * @example
 * ```ts
 * withOutcome(task.type!, "denied", "2026-11-22T09:00:00Z"); // grant → GRANT_OUTCOME_DENIED
 * ```
 */
export function withOutcome(type: TaskType, verdict: Verdict | null, at: string | null): TaskType {
  if (type.kind === "unknown") return type;
  const outcome = verdict === null ? UNSPECIFIED[type.kind] : OUTCOMES[type.kind][verdict];
  const outcomeTime = verdict === null ? null : at;
  // Already so (a Hard Reset of an open task): the same value, without copying a frozen object.
  if (type.outcome === outcome && type.outcomeTime === outcomeTime) return type;
  return { ...type, outcome, outcomeTime };
}
