/**
 * Close and Delete. Closing cancels an open task: the current step ends as the closer left it
 * (provision and action `cancelled`, wait `skipped`, approval and form marked done) and the task
 * closes with its type's cancelled outcome. Deleting (Super Administrators) closes an open task the
 * same way and sets `deletedAt`; a deleted task stays in the world, its history intact, and every
 * later action on it is `NOT_FOUND`.
 */
import type { JsonValue } from "../model/json.js";
import type { Task } from "../model/index.js";
import { ok, type Result } from "../result.js";
import { type AdvanceContext, closeTask, emit, finishCurrent, postComment } from "../workflow/advance.js";
import { cancelStep } from "../workflow/steps.js";
import type { World } from "../world/world.js";
import type { Step } from "./comment.js";
import type { SimError } from "./errors.js";
import type { ActionContext, ExpandMaskInput } from "./prelude.js";
import { mustBeOpen } from "./step-checks.js";
import { type ActionSpec, readString, runTaskAction } from "./task-action.js";

/**
 * The Close and Delete request.
 *
 * @example
 * ```ts
 * const req: CloseInput = { taskId: "1018", comment: "no longer needed" };
 * ```
 */
export interface CloseInput {
  readonly taskId: string;
  readonly comment?: string;
  readonly expandMask?: ExpandMaskInput | null;
}

function readComment(req: Readonly<Record<string, unknown>>): Result<{ readonly comment: string }, SimError> {
  const comment = readString(req, "comment");
  return comment.ok ? ok({ comment: comment.value }) : comment;
}

/**
 * Cancels an open task under its current step (see the module comment).
 *
 * @example
 * ```ts
 * const closed = cancelTask(ctx, task, "u-sales2");
 * ```
 */
export function cancelTask(ctx: AdvanceContext, task: Task, userId: string): Task {
  const current = task.policy?.current;
  const finished = current ? finishCurrent(task, cancelStep(current, { at: ctx.now, userId })) : task;
  return closeTask(ctx, { ...finished, updatedAt: ctx.now }, "cancelled");
}

const closeSpec: ActionSpec<{ readonly comment: string }> = {
  action: "TASK_ACTION_TYPE_CLOSE",
  ticket: true,
  read: readComment,
  state: (c) => mustBeOpen(c.task, "close"),
  apply: (ctx, c, r) => {
    const ticketActionId = emit(ctx, c.task.id, c.caller.id, { kind: "closeRequested", policyStepId: c.task.policy?.current?.id ?? "", comment: r.comment });
    postComment(ctx, c.task, c.caller.id, r.comment);
    return ok({ task: cancelTask(ctx, c.task, c.caller.id), ticketActionId });
  },
};

const deleteSpec: ActionSpec<{ readonly comment: string }> = {
  action: "TASK_ACTION_TYPE_DELETE",
  ticket: true,
  read: readComment,
  state: () => undefined,
  apply: (ctx, c, r) => {
    const ticketActionId = emit(ctx, c.task.id, c.caller.id, { kind: "taskDeleted", comment: r.comment });
    postComment(ctx, c.task, c.caller.id, r.comment);
    const closed = c.task.state === "TASK_STATE_OPEN" ? cancelTask(ctx, c.task, c.caller.id) : c.task;
    return ok({ task: { ...closed, deletedAt: ctx.now, updatedAt: ctx.now }, ticketActionId });
  },
};

/**
 * Closes (cancels) an open task, as `POST /api/v1/tasks/{task_id}/action/close`.
 *
 * Refusals: `FAILED_PRECONDITION` when the task is already closed; `PERMISSION_DENIED` for anyone
 * but the requester and administrators. Events: `closeRequested` (the `ticketActionId`), `comment`,
 * `taskClosed`.
 *
 * @example
 * ```ts
 * closeTaskAction(world, { taskId: "1024", comment: "requested by mistake" }, { actorId: "u-sales1" });
 * ```
 */
export function closeTaskAction(world: World, req: CloseInput, ctx: ActionContext): Result<Step<JsonValue>, SimError> {
  return runTaskAction(world, req, ctx, closeSpec);
}

/**
 * Deletes a task (Super Administrators): an open task is cancelled first; `deletedAt` is set. Later
 * actions on it are `NOT_FOUND`. Events: `taskDeleted` (the `ticketActionId`), `comment`,
 * `taskClosed` when it was open.
 *
 * @example
 * ```ts
 * deleteTask(world, { taskId: "1053" }, { actorId: "u-it-dir" });
 * ```
 */
export function deleteTask(world: World, req: CloseInput, ctx: ActionContext): Result<Step<JsonValue>, SimError> {
  return runTaskAction(world, req, ctx, deleteSpec);
}
