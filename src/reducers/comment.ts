/**
 * Comment: "post a comment on a task without changing its state" (spec, Endpoints). The comment is
 * recorded, `commentCount` goes up by one and `updatedAt` moves; nothing else on the task changes.
 */
import { produce } from "immer";
import { encodeCommentResponse } from "../codec/index.js";
import type { JsonObject } from "../model/json.js";
import { err, ok, type Result } from "../result.js";
import type { AuditEvent } from "../workflow/events.js";
import { type TaskComment, type World, withTaskTables } from "../world/world.js";
import { appendComments } from "../world/comment-log.js";
import { guarded, type SimError, notAWorld } from "./errors.js";
import { MAX_COMMENT_TEXT_PER_TASK } from "./limits.js";
import { type ActionContext, type ExpandMaskInput, optionalString, prelude } from "./prelude.js";
import { buildTaskView, hideFromCaller } from "./task-view.js";
import { seesInternals } from "./permissions.js";
import { IdSequence } from "../workflow/advance.js";

/**
 * The Comment request: which task (id or numericId), the text, and what to expand.
 *
 * @example
 * ```ts
 * const req: CommentInput = { taskId: "1001", comment: "Checked with the team lead.", expandMask: { paths: ["user_id"] } };
 * ```
 */
export interface CommentInput {
  readonly taskId: string;
  readonly comment: string;
  readonly expandMask?: ExpandMaskInput | null;
}

/**
 * A TaskView in wire JSON: the task and the `…Path` fields as the service writes them.
 *
 * @example
 * ```ts
 * const state = view.task?.["state"]; // "TASK_STATE_OPEN"
 * ```
 */
export type WireTaskView = JsonObject & { readonly task: JsonObject | null };

/**
 * The Comment endpoint's 200 body in wire JSON.
 *
 * @example
 * ```ts
 * const count = body.taskView?.task?.["commentCount"];
 * ```
 */
export type CommentResponseJson = JsonObject & {
  readonly expanded: readonly JsonObject[] | null;
  readonly taskView: WireTaskView | null;
};

/**
 * The Hard Reset endpoint's 200 body in wire JSON.
 *
 * @example
 * ```ts
 * console.log(body.ticketActionId); // "evt-000001"
 * ```
 */
export type HardResetResponseJson = CommentResponseJson & { readonly ticketActionId: string };

/**
 * What a reducer returns: the next world, the endpoint's 200 body in wire JSON, and the audit
 * events it produced, as data.
 *
 * @example
 * ```ts
 * const step: Step<JsonValue> = r.value;
 * world = step.world;
 * ```
 */
export interface Step<R> {
  readonly world: World;
  readonly response: R;
  readonly events: readonly AuditEvent[];
}

/**
 * Posts a comment on a task, as `POST /api/v1/tasks/{task_id}/action/comment` does. Pure: returns a
 * new world (the old one is untouched) and the response body `{expanded, taskView}` in wire JSON.
 * An empty or whitespace-only comment is `INVALID_ARGUMENT`; an unknown task `NOT_FOUND`; a caller
 * who cannot read the task, or who holds only the Read-Only Administrator role (which makes no
 * changes, product_admin_user-roles.mdx), `PERMISSION_DENIED`.
 *
 * @example
 * ```ts
 * const r = comment(world, { taskId: "1001", comment: "Approved by phone" }, { actorId: "u-it-dir" });
 * if (r.ok) { world = r.value.world; console.log(r.value.response); }
 * ```
 */
export function comment(world: World, req: CommentInput, ctx: ActionContext): Result<Step<CommentResponseJson>, SimError> {
  return guarded(() => {
    const notWorld = notAWorld(world);
    if (notWorld) return err<SimError>(notWorld);
    const text = optionalString((req ?? {}) as unknown as Record<string, unknown>, "comment");
    if (!text.ok) return text;
    if (text.value.trim() === "")
      return { ok: false as const, error: { code: "INVALID_ARGUMENT" as const, message: "comment must not be empty", field: "comment" } };
    const pre = prelude(world, req, ctx, "TASK_ACTION_TYPE_COMMENT");
    if (!pre.ok) return pre;
    const { task, caller, relation, now, expandPaths } = pre.value;
    if ((world.comments.get(task.id)?.textLength ?? 0) + text.value.length > MAX_COMMENT_TEXT_PER_TASK)
      return err<SimError>({
        code: "FAILED_PRECONDITION",
        message: `task "${task.numericId || task.id}" has reached ${MAX_COMMENT_TEXT_PER_TASK.toLocaleString("en")} characters of comments, the most a task keeps`,
      });

    const ids = new IdSequence(world.seq);
    const commentId = ids.take("cmt");
    const eventId = ids.take("evt");
    const record: TaskComment = { id: commentId, taskId: task.id, userId: caller.id, comment: text.value, createdAt: now };
    const updated = produce(task, (draft) => {
      draft.commentCount += 1;
      draft.updatedAt = now;
    });
    // withTaskTables, not a spread: worlds are frozen, and Node 20 spreads a frozen object slowly.
    const next = withTaskTables(
      world,
      world.tasks.set(task.id, updated),
      appendComments(world.comments, task.id, [record]),
      ids.next,
    );
    const { taskView, expanded } = buildTaskView(next, updated, relation, expandPaths);
    // A comment changes nothing the caller's relation depends on, so the relation still holds.
    const body = encodeCommentResponse({ expanded, taskView }) as CommentResponseJson;
    const response = seesInternals(relation) ? body : hideFromCaller(body);
    const events: AuditEvent[] = [
      { kind: "comment", id: eventId, taskId: task.id, at: now, actorId: caller.id, commentId, comment: text.value, updatedAt: now, updatedBy: caller.id },
    ];
    return ok({ world: Object.freeze(next), response, events });
  });
}
