/**
 * Request and response bodies of the Hard Reset and Comment operations (spec, "Endpoints").
 */
import type { TypedMessage, UnknownFields } from "./common.js";
import type { TaskExpandMask, TaskView } from "./task-view.js";

/**
 * Body of `POST /api/v1/tasks/{task_id}/action/reset`.
 *
 * @example
 * ```ts
 * const req: HardResetRequest = { comment: "policy changed", expandMask: { paths: ["*"] } };
 * ```
 */
export interface HardResetRequest {
  readonly comment: string;
  readonly expandMask: TaskExpandMask | null;
  readonly $unknown?: UnknownFields;
}

/**
 * 200 body of Hard Reset.
 *
 * @example
 * ```ts
 * const id = (r: HardResetResponse) => r.ticketActionId;
 * ```
 */
export interface HardResetResponse {
  readonly expanded: readonly TypedMessage[] | null;
  readonly taskView: TaskView | null;
  /** Id of the task-reset action record created. */
  readonly ticketActionId: string;
  readonly $unknown?: UnknownFields;
}

/**
 * Body of `POST /api/v1/tasks/{task_id}/action/comment`.
 *
 * @example
 * ```ts
 * const req: CommentRequest = { comment: "looks fine", expandMask: null };
 * ```
 */
export interface CommentRequest {
  readonly comment: string;
  readonly expandMask: TaskExpandMask | null;
  readonly $unknown?: UnknownFields;
}

/**
 * 200 body of Comment.
 *
 * @example
 * ```ts
 * const count = (r: CommentResponse) => r.taskView?.task?.commentCount ?? 0;
 * ```
 */
export interface CommentResponse {
  readonly expanded: readonly TypedMessage[] | null;
  readonly taskView: TaskView | null;
  readonly $unknown?: UnknownFields;
}
