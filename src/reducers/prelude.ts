/**
 * What every task action checks before it acts, in the order the service's gateway would: the
 * request's shape, the caller, the clock, the task, and whether the caller may do this action.
 */
import type { User } from "../model/directory.js";
import type { Task } from "../model/index.js";
import { err, ok, type Result } from "../result.js";
import { findTask, type World } from "../world/world.js";
import type { SimError } from "./errors.js";
import { canRead, mayPerform, type Relation, relationTo, whoMay } from "./permissions.js";
import { codePointsUpTo, MAX_COMMENT_CHARS } from "./limits.js";
import { validateExpandPaths } from "./task-view.js";
import { isRealTimestamp, utcTimestamp } from "../codec/schema.js";

/**
 * Who acts and when. `now` defaults to the world's clock.
 *
 * @example
 * ```ts
 * const ctx: ActionContext = { actorId: "u-root", now: "2026-11-22T10:00:00Z" };
 * ```
 */
export interface ActionContext {
  readonly actorId: string;
  readonly now?: string;
}

/**
 * The expand mask of a request: which related objects to return in `expanded`.
 *
 * @example
 * ```ts
 * const mask: ExpandMaskInput = { paths: ["user_id", "app_id"] };
 * ```
 */
export interface ExpandMaskInput {
  readonly paths?: readonly string[] | null;
}

export interface Prelude {
  readonly task: Task;
  readonly caller: User;
  readonly relation: Relation;
  readonly now: string;
  readonly expandPaths: readonly string[];
}

// The one test of a `now` or `at` the reducers take (the codec's, which knows the calendar).
export { isRealTimestamp, utcTimestamp } from "../codec/schema.js";

const invalid = (message: string, field: string): { ok: false; error: SimError } =>
  err({ code: "INVALID_ARGUMENT", message, field });

/** Reads an optional string field of an untyped request. */
export function optionalString(req: Readonly<Record<string, unknown>>, key: string): Result<string, SimError> {
  const v = req[key];
  if (v === undefined || v === null) return ok("");
  if (typeof v !== "string") return invalid(`"${key}" must be a string`, key);
  return ok(v);
}

/**
 * Checks the common parts of a task action: a request object with a `taskId` (id or numericId), an
 * optional `expandMask.paths` of known paths, a known caller, a valid clock, an existing task the
 * caller can read, and `action` among the caller's actions on it (`""`: reading is all it checks;
 * the caller asks about the action itself).
 */
export function prelude(world: World, req: unknown, ctx: unknown, action: string): Result<Prelude, SimError> {
  if (typeof req !== "object" || req === null || Array.isArray(req))
    return invalid("the request must be an object with a taskId", "");
  const r = req as Readonly<Record<string, unknown>>;
  const taskId = r["taskId"];
  if (typeof taskId === "number" || typeof taskId === "bigint")
    return invalid(`taskId must be a string: the task's id or numericId, such as "${String(taskId)}", not the number ${String(taskId)}`, "taskId");
  if (typeof taskId !== "string" || taskId.trim() === "")
    return invalid("taskId is required: the task's id or numericId", "taskId");

  const text = r["comment"];
  if (typeof text === "string" && text.length > MAX_COMMENT_CHARS && codePointsUpTo(text, MAX_COMMENT_CHARS) > MAX_COMMENT_CHARS)
    return invalid(`comment is longer than ${MAX_COMMENT_CHARS.toLocaleString("en")} characters: shorten it, or link to a document`, "comment");

  let expandPaths: readonly string[] = [];
  const mask = r["expandMask"];
  if (mask !== undefined && mask !== null) {
    if (typeof mask !== "object" || Array.isArray(mask)) return invalid("expandMask must be an object with paths", "expandMask");
    const paths = (mask as Record<string, unknown>)["paths"];
    if (paths !== undefined && paths !== null) {
      if (!Array.isArray(paths) || paths.some((p) => typeof p !== "string"))
        return invalid("expandMask.paths must be an array of strings", "expandMask.paths");
      const checked = validateExpandPaths(paths as string[]);
      if (!checked.ok) return invalid(checked.error, "expandMask.paths");
      expandPaths = checked.value;
    }
  }

  if (typeof ctx !== "object" || ctx === null) return err({ code: "UNAUTHENTICATED", message: "no caller: pass { actorId }" });
  const c = ctx as Readonly<Record<string, unknown>>;
  const actorId = c["actorId"];
  if (typeof actorId !== "string" || actorId === "")
    return err({ code: "UNAUTHENTICATED", message: "no caller: ctx.actorId must name a user of the world" });
  const caller = world.index.users.get(actorId);
  if (!caller) return err({ code: "UNAUTHENTICATED", message: `caller "${actorId}" is not a user of this world` });
  if (caller.status === "DISABLED" || caller.status === "DELETED")
    return err({ code: "UNAUTHENTICATED", message: `caller "${actorId}" is ${caller.status.toLowerCase()}` });

  const nowIn = c["now"];
  let now = world.now;
  if (nowIn !== undefined && nowIn !== null) {
    if (!isRealTimestamp(nowIn)) return invalid(`ctx.now must be an RFC 3339 timestamp of a real date and time, such as "2026-11-22T09:00:00Z"`, "now");
    now = nowIn;
  }
  // Written as protobuf writes timestamps, in UTC: `updatedAt` of a call at +02:00 ends in Z.
  now = utcTimestamp(now);

  const task = findTask(world, taskId);
  if (!task) return err({ code: "NOT_FOUND", message: `task "${taskId}" not found (by id or numericId)` });
  // A deleted task is gone for everyone, as `reduce` has it (task-action.ts deletedTask).
  if (task.deletedAt) return err({ code: "NOT_FOUND", message: `task "${taskId}" was deleted at ${task.deletedAt}` });
  const relation = relationTo(world, task, caller);
  if (!canRead(relation))
    return err({ code: "PERMISSION_DENIED", message: `user "${actorId}" cannot see task "${taskId}"` });
  if (action !== "" && !mayPerform(task, relation, action))
    return err({
      code: "PERMISSION_DENIED",
      message: `user "${actorId}" may not perform ${action} on task "${taskId}"${whoMay(action) ? ` (${whoMay(action)})` : ""}`,
    });
  return ok({ task, caller, relation, now, expandPaths });
}
