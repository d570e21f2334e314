/**
 * Process Now: "force a refresh and update of the task's current status"
 * (product_how-to_access-change-tasks.mdx), offered to Super Administrators on a task whose wait
 * step waits. The wait is looked at now, as the clock would look at it: when its time has come it
 * ends (or times out) at that time; when its condition holds now it ends; otherwise it keeps
 * waiting, since a wait condition "must be met before the policy is allowed to move forward"
 * (product_admin_policies.mdx). Skip step is what moves a task past a wait that has not ended.
 */
import type { JsonValue } from "../model/json.js";
import { err, ok, type Result } from "../result.js";
import { emit } from "../workflow/advance.js";
import { msOf } from "../workflow/time.js";
import { checkWaitCondition, fireTimer, nextTimer } from "../workflow/timers.js";
import type { World } from "../world/world.js";
import type { Step } from "./comment.js";
import type { SimError } from "./errors.js";
import type { ActionContext, ExpandMaskInput } from "./prelude.js";
import { pendingStep } from "./step-checks.js";
import { type ActionSpec, runTaskAction } from "./task-action.js";

/**
 * The Process Now request.
 *
 * @example
 * ```ts
 * const req: ProcessNowInput = { taskId: "1011" };
 * ```
 */
export interface ProcessNowInput {
  readonly taskId: string;
  readonly expandMask?: ExpandMaskInput | null;
}

const spec: ActionSpec<Record<string, never>> = {
  action: "TASK_ACTION_TYPE_PROCESS_NOW",
  ticket: true,
  read: () => ok({}),
  state: (c) => {
    const cur = pendingStep(c.task, "wait", "process now", "");
    return cur.ok ? undefined : cur.error;
  },
  apply: (ctx, c) => {
    const cur = pendingStep(c.task, "wait", "process now", "");
    if (!cur.ok) return err(cur.error);
    const ticketActionId = emit(ctx, c.task.id, c.caller.id, { kind: "processedNow", policyStepId: cur.step.id });
    // The wait's own timer, when due, fires at its time (as a tick would have); else its condition now.
    const timer = nextTimer(c.task);
    if (timer !== undefined && timer.policyStepId === cur.step.id && msOf(timer.at) <= msOf(ctx.now))
      return ok({ task: fireTimer({ ...ctx, now: timer.at }, c.task, timer), ticketActionId });
    return ok({ task: checkWaitCondition(ctx, c.task), ticketActionId });
  },
};

/**
 * Refreshes the task's waiting wait step now, as `POST /api/v1/tasks/{task_id}/action/process-now`:
 * the wait ends if its time has come or its condition holds now, and keeps waiting otherwise.
 *
 * Refusals: `FAILED_PRECONDITION` unless a wait step waits; `PERMISSION_DENIED` for anyone but
 * Super Administrators. Events: `processedNow` (the `ticketActionId`), then `waitSucceeded` or
 * `waitTimedOut` and the workflow's when the wait ended.
 *
 * @example
 * ```ts
 * processNow(world, { taskId: "1011" }, { actorId: "u-it-dir" });
 * ```
 */
export function processNow(world: World, req: ProcessNowInput, ctx: ActionContext): Result<Step<JsonValue>, SimError> {
  return runTaskAction(world, req, ctx, spec);
}
