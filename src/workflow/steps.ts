/**
 * Finishing the current step in the ways the workflow's actions and timers finish it: moving on to
 * the next step with its id known in advance (a `skipped` outcome names it), and cancelling the
 * step when the task is closed under it.
 */
import type { PolicyStepInstance, StepInstance, Task } from "../model/index.js";
import { type AdvanceContext, advance, finishCurrent } from "./advance.js";
import { instantiate } from "./instantiate.js";

/**
 * Finishes the current step as `done(nextStepId)` — the id the next step will have, `""` when there
 * is none — starts the next step and runs the workflow on (or closes the task approved when no step
 * is left).
 *
 * @example
 * ```ts
 * moveToNext(ctx, task, (nextId) => ({ ...cur, state: "POLICY_STEP_STATE_DONE",
 *   instance: { ...inst, outcome: { kind: "skipped", newPolicyStepId: nextId, skippedAt: ctx.now, userId } } }));
 * ```
 */
export function moveToNext(ctx: AdvanceContext, task: Task, done: (nextStepId: string) => PolicyStepInstance): Task {
  const [first, ...rest] = task.policy?.next ?? [];
  const nextId = first ? ctx.ids.take("step") : "";
  const finished = finishCurrent(task, done(nextId));
  if (!first || !finished.policy) return advance(ctx, finished);
  const current = instantiate(first, nextId, task.policyGenerationId, ctx.now);
  return advance(ctx, { ...finished, policy: { ...finished.policy, current, next: rest } });
}

/**
 * The current step as it stands when its task is closed or deleted under it: DONE, a provision
 * `cancelled` by the user, an action `cancelled`, a wait `skipped`; an approval or form has no
 * outcome for this and is only marked DONE. A step that already has its outcome keeps it.
 *
 * @example
 * ```ts
 * cancelStep(task.policy!.current!, { at: world.now, userId: "u-sales2" }).state; // "POLICY_STEP_STATE_DONE"
 * ```
 */
export function cancelStep(step: PolicyStepInstance, by: { readonly at: string; readonly userId: string }): PolicyStepInstance {
  const done = { ...step, state: "POLICY_STEP_STATE_DONE" as const };
  const i: StepInstance | null = step.instance;
  if (!i) return done;
  switch (i.kind) {
    case "approval":
      return { ...done, instance: { ...i, state: "APPROVAL_INSTANCE_STATE_DONE" } };
    case "form":
      return { ...done, instance: { ...i, state: "FORM_INSTANCE_STATE_DONE" } };
    case "wait":
      return i.outcome
        ? done
        : {
            ...done,
            instance: { ...i, state: "WAIT_INSTANCE_STATE_COMPLETED", outcome: { kind: "skipped", newPolicyStepId: "", skippedAt: by.at, userId: by.userId } },
          };
    case "provision":
      return i.outcome
        ? done
        : {
            ...done,
            instance: { ...i, state: "PROVISION_INSTANCE_STATE_DONE", outcome: { kind: "cancelled", cancelledAt: by.at, cancelledByUserId: by.userId } },
          };
    case "action":
      return i.outcome ? done : { ...done, instance: { ...i, state: "ACTION_INSTANCE_STATE_DONE", outcome: { kind: "cancelled", outcomeTime: by.at } } };
    case "accept":
    case "reject":
    case "unknown":
      return done;
    default: {
      const never: never = i;
      return never;
    }
  }
}

/**
 * The kind of the task's current step, or `"none"`.
 *
 * @example
 * ```ts
 * currentKind(task); // "approval"
 * ```
 */
export function currentKind(task: Task): string {
  const i = task.policy?.current?.instance;
  if (!i) return "none";
  return i.kind === "unknown" ? i.key || "unknown" : i.kind;
}
