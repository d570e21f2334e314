/**
 * Skip Step: a Super Administrator moves a task past its waiting approval, wait, form or provision
 * step (a skipped provision step provisions nothing: the task moves on as if it were done). The step
 * ends `skipped` (naming the step that follows) and the workflow runs on; skipping the last step
 * closes the task with its approved outcome (docs/domain.md §4, assumed: running out of steps approves).
 */
import type { JsonValue } from "../model/json.js";
import type { PolicyStepInstance } from "../model/index.js";
import { err, ok, type Result } from "../result.js";
import { emit, postComment } from "../workflow/advance.js";
import { moveToNext } from "../workflow/steps.js";
import type { World } from "../world/world.js";
import type { Step } from "./comment.js";
import type { SimError } from "./errors.js";
import type { ActionContext, ExpandMaskInput } from "./prelude.js";
import { skippable } from "./permissions.js";
import { mustBeOpen, taskName } from "./step-checks.js";
import { type ActionSpec, precondition, readString, runTaskAction } from "./task-action.js";

/**
 * The Skip Step request.
 *
 * @example
 * ```ts
 * const req: SkipStepInput = { taskId: "1011", comment: "MFA enrolled out of band" };
 * ```
 */
export interface SkipStepInput {
  readonly taskId: string;
  readonly comment?: string;
  readonly policyStepId?: string;
  readonly expandMask?: ExpandMaskInput | null;
}

interface Req {
  readonly comment: string;
  readonly policyStepId: string;
}

/**
 * The current step marked skipped by `userId`, naming the step that replaces it.
 *
 * @example
 * ```ts
 * skipped(step, "step-000010", "u-it-dir", world.now).instance?.kind; // "approval"
 * ```
 */
export function skipped(step: PolicyStepInstance, nextId: string, userId: string, at: string): PolicyStepInstance {
  const i = step.instance;
  const outcome = { kind: "skipped" as const, newPolicyStepId: nextId, skippedAt: at, userId };
  const done = { ...step, state: "POLICY_STEP_STATE_DONE" as const };
  if (i?.kind === "approval") return { ...done, instance: { ...i, state: "APPROVAL_INSTANCE_STATE_DONE", outcome } };
  if (i?.kind === "wait") return { ...done, instance: { ...i, state: "WAIT_INSTANCE_STATE_COMPLETED", outcome } };
  if (i?.kind === "form") return { ...done, instance: { ...i, state: "FORM_INSTANCE_STATE_DONE", outcome } };
  if (i?.kind === "provision") return { ...done, instance: { ...i, state: "PROVISION_INSTANCE_STATE_DONE", outcome } };
  return done;
}

const spec: ActionSpec<Req> = {
  action: "TASK_ACTION_TYPE_SKIP_STEP",
  ticket: true,
  read: (req) => {
    const comment = readString(req, "comment");
    if (!comment.ok) return comment;
    const policyStepId = readString(req, "policyStepId");
    if (!policyStepId.ok) return policyStepId;
    return ok({ comment: comment.value, policyStepId: policyStepId.value });
  },
  state: (c, r) => {
    const closed = mustBeOpen(c.task, "skip a step of");
    if (closed) return closed;
    const step = c.task.policy?.current;
    const i = step?.instance;
    if (!step || !i || !skippable(i))
      return precondition(
        `cannot skip the current step of task ${taskName(c.task)}: only a waiting approval, wait, form or provision step can be skipped (it is ${i ? `a ${i.kind} step` : "missing"})`,
      );
    if (r.policyStepId !== "" && r.policyStepId !== step.id)
      return precondition(`cannot skip step "${r.policyStepId}" of task ${taskName(c.task)}: the current step is "${step.id}"`);
    if (i.outcome !== null) return precondition(`the current step of task ${taskName(c.task)} already has an outcome`);
    return undefined;
  },
  apply: (ctx, c, r) => {
    const step = c.task.policy?.current;
    if (!step) return err(precondition("no current step"));
    const reason = r.comment.trim() ? `skipped by ${c.caller.id}: ${r.comment}` : `skipped by ${c.caller.id}`;
    const ticketActionId = emit(ctx, c.task.id, c.caller.id, { kind: "stepSkipped", policyStepId: step.id, reason });
    postComment(ctx, c.task, c.caller.id, r.comment);
    const task = moveToNext(ctx, { ...c.task, updatedAt: ctx.now }, (nextId) => skipped(step, nextId, c.caller.id, ctx.now));
    return ok({ task, ticketActionId });
  },
};

/**
 * Skips the task's current approval, wait, form or provision step, as `POST /api/v1/tasks/{task_id}/action/skip-step`.
 *
 * Refusals: `FAILED_PRECONDITION` when the task is closed or its current step is not a waiting
 * approval, wait, form or provision step; `PERMISSION_DENIED` for anyone but a Super Administrator. Events:
 * `stepSkipped` (the `ticketActionId`), `comment`, then the workflow's.
 *
 * @example
 * ```ts
 * skipStep(world, { taskId: "1011" }, { actorId: "u-it-dir" });
 * ```
 */
export function skipStep(world: World, req: SkipStepInput, ctx: ActionContext): Result<Step<JsonValue>, SimError> {
  return runTaskAction(world, req, ctx, spec);
}
