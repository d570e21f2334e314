/**
 * Codec of task views and expand masks (spec, "TaskView", "Expand mask").
 */
import type { JsonValue } from "../model/json.js";
import type { ActorObjectPermissions, TaskExpandMask, TaskView } from "../model/task-view.js";
import type { Result } from "../result.js";
import type { Diagnostic } from "./diagnostic.js";
import { type Codec, bool, list, map, message, nullable, runDecode, str } from "./schema.js";
import { taskInViewCodec } from "./task.js";

const objectPermissions = message<ActorObjectPermissions>({ read: bool, edit: bool, delete: bool, extra: map(bool) });

/**
 * Codec of {@link TaskView}.
 *
 * @example
 * ```ts
 * const fields = { taskView: nullable(taskViewCodec) };
 * ```
 */
export const taskViewCodec: Codec<TaskView> = message<TaskView>({
  task: nullable(taskInViewCodec),
  objectPermissions: nullable(objectPermissions),
  accessReviewPath: str,
  appPath: str,
  appUserPath: str,
  appUserLastUsagePath: str,
  approversPath: str,
  createdByUserPath: str,
  entitlementsPath: str,
  identityUserPath: str,
  insightsPath: str,
  principalResourcePath: str,
  resourceBindingsPath: str,
  roleResourcePath: str,
  scopeResourcePath: str,
  stepApproversPath: str,
  userPath: str,
});

/**
 * Codec of {@link TaskExpandMask}.
 *
 * @example
 * ```ts
 * const fields = { expandMask: nullable(taskExpandMaskCodec) };
 * ```
 */
export const taskExpandMaskCodec: Codec<TaskExpandMask> = message<TaskExpandMask>({ paths: list(str) });

/**
 * Decodes a wire TaskView.
 *
 * @example
 * ```ts
 * const r = decodeTaskView({ task: { id: "t1" }, objectPermissions: { read: true } });
 * if (r.ok) r.value.task?.id; // "t1"
 * ```
 */
export function decodeTaskView(json: unknown): Result<TaskView, Diagnostic[]> {
  return runDecode(taskViewCodec, json);
}

/**
 * Encodes a TaskView as wire JSON.
 *
 * @example
 * ```ts
 * const wire = encodeTaskView(view);
 * ```
 */
export function encodeTaskView(view: TaskView): JsonValue {
  return taskViewCodec.encode(view);
}
