/**
 * Codecs of the Hard Reset and Comment request and response bodies (spec, "Endpoints").
 */
import type { JsonValue } from "../model/json.js";
import type { CommentRequest, CommentResponse, HardResetRequest, HardResetResponse } from "../model/task-actions.js";
import type { Result } from "../result.js";
import type { Diagnostic } from "./diagnostic.js";
import { type Codec, jsonObject, list, message, nullable, runDecode, str } from "./schema.js";
import { taskExpandMaskCodec, taskViewCodec } from "./task-view.js";

/**
 * Codec of {@link HardResetRequest}.
 *
 * @example
 * ```ts
 * hardResetRequestCodec.missing(); // { comment: "", expandMask: null }
 * ```
 */
export const hardResetRequestCodec: Codec<HardResetRequest> = message<HardResetRequest>({
  comment: str,
  expandMask: nullable(taskExpandMaskCodec),
});

/**
 * Codec of {@link HardResetResponse}.
 *
 * @example
 * ```ts
 * hardResetResponseCodec.missing(); // { expanded: null, taskView: null, ticketActionId: "" }
 * ```
 */
export const hardResetResponseCodec: Codec<HardResetResponse> = message<HardResetResponse>({
  expanded: list(jsonObject),
  taskView: nullable(taskViewCodec),
  ticketActionId: str,
});

/**
 * Codec of {@link CommentRequest}.
 *
 * @example
 * ```ts
 * commentRequestCodec.missing(); // { comment: "", expandMask: null }
 * ```
 */
export const commentRequestCodec: Codec<CommentRequest> = message<CommentRequest>({
  comment: str,
  expandMask: nullable(taskExpandMaskCodec),
});

/**
 * Codec of {@link CommentResponse}.
 *
 * @example
 * ```ts
 * commentResponseCodec.missing(); // { expanded: null, taskView: null }
 * ```
 */
export const commentResponseCodec: Codec<CommentResponse> = message<CommentResponse>({
  expanded: list(jsonObject),
  taskView: nullable(taskViewCodec),
});

/**
 * Decodes a Hard Reset request body. Absent fields get defaults (`comment: ""`, `expandMask: null`).
 *
 * @example
 * ```ts
 * decodeHardResetRequest({ comment: "policy changed" });
 * // { ok: true, value: { comment: "policy changed", expandMask: null } }
 * ```
 */
export function decodeHardResetRequest(json: unknown): Result<HardResetRequest, Diagnostic[]> {
  return runDecode(hardResetRequestCodec, json);
}

/**
 * Encodes a Hard Reset request body.
 *
 * @example
 * ```ts
 * encodeHardResetRequest({ comment: "", expandMask: { paths: ["*"] } }); // { comment: "", expandMask: { paths: ["*"] } }
 * ```
 */
export function encodeHardResetRequest(req: HardResetRequest): JsonValue {
  return hardResetRequestCodec.encode(req);
}

/**
 * Decodes a Hard Reset 200 body.
 *
 * @example
 * ```ts
 * const r = decodeHardResetResponse(body);
 * if (r.ok) r.value.ticketActionId;
 * ```
 */
export function decodeHardResetResponse(json: unknown): Result<HardResetResponse, Diagnostic[]> {
  return runDecode(hardResetResponseCodec, json);
}

/**
 * Encodes a Hard Reset 200 body exactly as the service writes it.
 *
 * @example
 * ```ts
 * encodeHardResetResponse({ expanded: [], taskView: null, ticketActionId: "ta-1" });
 * // { expanded: [], taskView: null, ticketActionId: "ta-1" }
 * ```
 */
export function encodeHardResetResponse(res: HardResetResponse): JsonValue {
  return hardResetResponseCodec.encode(res);
}

/**
 * Decodes a Comment request body.
 *
 * @example
 * ```ts
 * decodeCommentRequest({ comment: "looks fine" });
 * // { ok: true, value: { comment: "looks fine", expandMask: null } }
 * ```
 */
export function decodeCommentRequest(json: unknown): Result<CommentRequest, Diagnostic[]> {
  return runDecode(commentRequestCodec, json);
}

/**
 * Encodes a Comment request body.
 *
 * @example
 * ```ts
 * encodeCommentRequest({ comment: "hi", expandMask: null }); // { comment: "hi", expandMask: null }
 * ```
 */
export function encodeCommentRequest(req: CommentRequest): JsonValue {
  return commentRequestCodec.encode(req);
}

/**
 * Decodes a Comment 200 body.
 *
 * @example
 * ```ts
 * const r = decodeCommentResponse(body);
 * if (r.ok) r.value.taskView?.task?.commentCount;
 * ```
 */
export function decodeCommentResponse(json: unknown): Result<CommentResponse, Diagnostic[]> {
  return runDecode(commentResponseCodec, json);
}

/**
 * Encodes a Comment 200 body exactly as the service writes it.
 *
 * @example
 * ```ts
 * encodeCommentResponse({ expanded: null, taskView: null }); // { expanded: null, taskView: null }
 * ```
 */
export function encodeCommentResponse(res: CommentResponse): JsonValue {
  return commentResponseCodec.encode(res);
}
