/**
 * Send Reminder: remind the current approval step's reviewers. An event only — the task does not
 * change (notification channels are outside the simulation).
 */
import type { JsonValue } from "../model/json.js";
import { ok, type Result } from "../result.js";
import { emit } from "../workflow/advance.js";
import type { World } from "../world/world.js";
import type { Step } from "./comment.js";
import type { SimError } from "./errors.js";
import type { ActionContext, ExpandMaskInput } from "./prelude.js";
import { pendingStep } from "./step-checks.js";
import { type ActionSpec, runTaskAction } from "./task-action.js";

/**
 * The Send Reminder request.
 *
 * @example
 * ```ts
 * const req: SendReminderInput = { taskId: "1001" };
 * ```
 */
export interface SendReminderInput {
  readonly taskId: string;
  readonly expandMask?: ExpandMaskInput | null;
}

const spec: ActionSpec<Record<string, never>> = {
  action: "TASK_ACTION_TYPE_SEND_REMINDER",
  ticket: true,
  read: () => ok({}),
  state: (c) => {
    const cur = pendingStep(c.task, "approval", "send a reminder on", "");
    return cur.ok ? undefined : cur.error;
  },
  apply: (ctx, c) => {
    const ticketActionId = emit(ctx, c.task.id, c.caller.id, {
      kind: "reminderSent",
      policyStepId: c.task.policy?.current?.id ?? "",
      userIds: c.task.stepApproverIds ?? [],
    });
    return ok({ task: c.task, ticketActionId });
  },
};

/**
 * Reminds the reviewers of the current approval step. The task is unchanged; the `reminderSent`
 * event (the `ticketActionId`) names who was reminded.
 *
 * Refusals: `FAILED_PRECONDITION` unless an approval step waits; `PERMISSION_DENIED` for anyone but
 * the requester and administrators.
 *
 * @example
 * ```ts
 * sendReminder(world, { taskId: "1001" }, { actorId: "u-contractor" });
 * ```
 */
export function sendReminder(world: World, req: SendReminderInput, ctx: ActionContext): Result<Step<JsonValue>, SimError> {
  return runTaskAction(world, req, ctx, spec);
}
