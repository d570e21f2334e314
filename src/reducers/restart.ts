/**
 * Restart: like Hard Reset, but the task keeps the policy it carries (docs/domain.md §4) and the snapshot
 * of its reference chain taken when that policy was put on it (policies page: "the policy locks in
 * when a task is created"); a task without a snapshot reads the world's policies. Its rules are
 * evaluated again at the clock, the running and pending steps are retired into history as
 * `restarted`, decisions and outcome are reset, the task reopens (also a closed one) and runs from
 * the first step. The policy did not change, so `policyGenerationId` stays (assumed).
 */
import type { JsonValue } from "../model/json.js";
import { err, ok, type Result } from "../result.js";
import { emit, postComment } from "../workflow/advance.js";
import { chainLookup } from "../policy/select-steps.js";
import { restartOn, selectOn } from "../workflow/restart.js";
import type { World } from "../world/world.js";
import type { Step } from "./comment.js";
import type { SimError } from "./errors.js";
import type { ActionContext, ExpandMaskInput } from "./prelude.js";
import { taskName } from "./step-checks.js";
import { type ActionSpec, precondition, readString, runTaskAction } from "./task-action.js";

/**
 * The Restart request.
 *
 * @example
 * ```ts
 * const req: RestartInput = { taskId: "1015", comment: "approver left the company" };
 * ```
 */
export interface RestartInput {
  readonly taskId: string;
  readonly comment?: string;
  readonly expandMask?: ExpandMaskInput | null;
}

const spec: ActionSpec<{ readonly comment: string }> = {
  action: "TASK_ACTION_TYPE_RESTART",
  ticket: true,
  read: (req) => {
    const comment = readString(req, "comment");
    return comment.ok ? ok({ comment: comment.value }) : comment;
  },
  state: (c) =>
    c.task.policy?.policy
      ? undefined
      : precondition(`task ${taskName(c.task)} carries no policy to restart on: use Hard Reset, which resolves one`),
  apply: (ctx, c, r) => {
    const policy = c.task.policy?.policy;
    if (!policy) return err(precondition("no policy"));
    const ticketActionId = emit(ctx, c.task.id, c.caller.id, { kind: "restarted", oldPolicyStepId: c.task.policy?.current?.id ?? "", comment: r.comment });
    postComment(ctx, c.task, c.caller.id, r.comment);
    // The chain as the task snapshotted it, not today's policies (a Hard Reset reads those).
    const snapshot = c.task.policy?.referencedPolicies ?? null;
    const selection = selectOn(ctx, c.task, policy, chainLookup(ctx.world, c.task.policy));
    if (!selection.ok) return err(precondition(`cannot restart task ${taskName(c.task)} on policy "${policy.id}": ${selection.error}`));
    const task = restartOn(ctx, c.task, { policy, steps: selection.value.steps, newGeneration: false, userId: c.caller.id, referencedPolicies: snapshot });
    return ok({ task, ticketActionId });
  },
};

/**
 * Restarts a task on the policy it carries, as `POST /api/v1/tasks/{task_id}/action/restart`.
 *
 * Refusals: `PERMISSION_DENIED` for anyone but a Super Administrator (documented);
 * `FAILED_PRECONDITION` when the task carries no policy or its steps cannot be selected. Events:
 * `restarted` (the `ticketActionId`), `comment`, one `conditionalPolicyExecutionResult` per rule,
 * then the workflow's.
 *
 * @example
 * ```ts
 * restartTask(world, { taskId: "1019" }, { actorId: "u-it-dir" });
 * ```
 */
export function restartTask(world: World, req: RestartInput, ctx: ActionContext): Result<Step<JsonValue>, SimError> {
  return runTaskAction(world, req, ctx, spec);
}
