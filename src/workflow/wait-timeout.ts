/**
 * What a wait step's timeout does. The policies page: the next step "will begin once the condition
 * has been met or timed out", so by default a timed-out wait goes on like a met one. The service's
 * Wait message has no field to say otherwise; a policy that wants the old ending (the task closes
 * `…_WAIT_TIMED_OUT`, an outcome the spec lists) marks the step with the simulation-only field
 * `closeTaskOnTimeout: true` (README, Assumptions). The step's unknown fields carry it, and the wait
 * instance started from the step keeps it among its own.
 */
import type { PolicyStepWait, WaitInstance } from "../model/index.js";
import type { UnknownFields } from "../model/common.js";

/**
 * The simulation-only field of a wait step (and its instance) that makes a timeout close the task.
 *
 * @example
 * ```ts
 * const step = { wait: { name: "MFA", timeoutDuration: "604800s", condition: { condition: "…" }, [CLOSE_TASK_ON_TIMEOUT]: true } };
 * ```
 */
export const CLOSE_TASK_ON_TIMEOUT = "closeTaskOnTimeout";

/**
 * The unknown fields a wait instance takes over from its step: the timeout choice, when set.
 *
 * @example
 * ```ts
 * const inst = { kind: "wait", ...waitInstanceExtras(step) };
 * ```
 */
export function waitInstanceExtras(step: PolicyStepWait): { $unknown?: UnknownFields } {
  return step.$unknown?.[CLOSE_TASK_ON_TIMEOUT] === true ? { $unknown: { [CLOSE_TASK_ON_TIMEOUT]: true } } : {};
}

/**
 * Whether the wait's timeout closes the task (`…_WAIT_TIMED_OUT`) instead of starting the next step.
 *
 * @example
 * ```ts
 * closesTaskOnTimeout(instance); // false unless the step says closeTaskOnTimeout: true
 * ```
 */
export function closesTaskOnTimeout(wait: WaitInstance): boolean {
  return wait.$unknown?.[CLOSE_TASK_ON_TIMEOUT] === true;
}
