/**
 * Process Now: an administrator ends a waiting wait step at once, as if its time had come or its
 * condition held (assumed: the service offers it on waiting tasks). The wait ends `succeeded` and
 * the workflow runs on.
 */
import type { JsonValue } from "../model/json.js";
import type { PolicyStepInstance } from "../model/index.js";
import { err, ok, type Result } from "../result.js";
import { completeStep, emit } from "../workflow/advance.js";
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
    emit(ctx, c.task.id, c.caller.id, { kind: "waitSucceeded", policyStepId: cur.step.id, reason: `processed now by ${c.caller.id}` });
    const done: PolicyStepInstance = {
      ...cur.step,
      state: "POLICY_STEP_STATE_DONE",
      instance: { ...cur.instance, state: "WAIT_INSTANCE_STATE_COMPLETED", outcome: { kind: "succeeded", succeededAt: ctx.now } },
    };
    return ok({ task: completeStep(ctx, { ...c.task, updatedAt: ctx.now }, done), ticketActionId });
  },
};

/**
 * Ends the task's waiting wait step now, as `POST /api/v1/tasks/{task_id}/action/process-now`.
 *
 * Refusals: `FAILED_PRECONDITION` unless a wait step waits; `PERMISSION_DENIED` for anyone but
 * administrators. Events: `processedNow` (the `ticketActionId`), `waitSucceeded`, then the
 * workflow's.
 *
 * @example
 * ```ts
 * processNow(world, { taskId: "1011" }, { actorId: "u-it-dir" });
 * ```
 */
export function processNow(world: World, req: ProcessNowInput, ctx: ActionContext): Result<Step<JsonValue>, SimError> {
  return runTaskAction(world, req, ctx, spec);
}
