/**
 * Update Grant Duration: how long the access a grant task asks for will last
 * (`POST /api/v1/tasks/{task_id}/action/update-grant-duration`). The OpenAPI: "Only applies to
 * grant tasks with a single entitlement that are not in a provision step. The new duration must not
 * exceed the entitlement's maximum allowed provision time." A reviewer does it before deciding
 * (product_how-to_access-change-tasks.mdx, "edit the duration of the requested grant").
 */
import type { JsonValue } from "../model/json.js";
import type { Task } from "../model/index.js";
import { err, ok, type Result } from "../result.js";
import { emit } from "../workflow/advance.js";
import { durationSeconds } from "../workflow/time.js";
import type { World } from "../world/world.js";
import { maxGrantSeconds } from "../policy/max-grant-duration.js";
import type { Step } from "./comment.js";
import type { SimError } from "./errors.js";
import type { ActionContext, ExpandMaskInput } from "./prelude.js";
import { mustBeOpen, taskName } from "./step-checks.js";
import { type ActionSpec, invalid, precondition, runTaskAction } from "./task-action.js";

/**
 * The Update Grant Duration request: the new duration as a protobuf JSON duration (`"3600s"`).
 *
 * @example
 * ```ts
 * const req: UpdateGrantDurationInput = { taskId: "1001", duration: "86400s" };
 * ```
 */
export interface UpdateGrantDurationInput {
  readonly taskId: string;
  readonly duration: string | null;
  readonly expandMask?: ExpandMaskInput | null;
}

/** A positive protobuf JSON duration, normalised to whole or fractional seconds (`"90s"`). */
function readDuration(req: Readonly<Record<string, unknown>>): Result<{ readonly seconds: number; readonly text: string }, SimError> {
  const v = req["duration"];
  if (v === undefined || v === null || v === "") return err(invalid('duration is required, as a duration string such as "86400s"', "duration"));
  if (typeof v !== "string" || !/^\d{1,12}(\.\d{1,9})?s$/.test(v.trim()))
    return err(invalid(`duration must be a duration string such as "86400s", not ${JSON.stringify(v)}`, "duration"));
  const seconds = durationSeconds(v) ?? 0;
  if (seconds <= 0) return err(invalid("duration must be longer than zero", "duration"));
  return ok({ seconds, text: `${seconds}s` });
}

/**
 * The longest grant the entitlement allows, in seconds, and where the limit comes from, or
 * `undefined` for no maximum (policy/max-grant-duration.ts: the entitlement's own `durationGrant`,
 * else a configuration rule's, else its resource type's request defaults).
 */
function maximumSeconds(world: World, task: Task): { readonly seconds: number; readonly detail: string } | undefined {
  const t = task.type;
  return t?.kind === "grant" ? maxGrantSeconds(world, t.appId, t.appEntitlementId) : undefined;
}

const spec: ActionSpec<{ readonly seconds: number; readonly text: string }> = {
  action: "TASK_ACTION_TYPE_UPDATE_GRANT_DURATION",
  ticket: true,
  read: readDuration,
  state: (c) => {
    const closed = mustBeOpen(c.task, "update the grant duration of");
    if (closed) return closed;
    if (c.task.type?.kind !== "grant")
      return precondition(`task ${taskName(c.task)} is not an access request: only grant tasks have a grant duration`);
    if (c.task.policy?.current?.instance?.kind === "provision")
      return precondition(`task ${taskName(c.task)} is at its provision step: the grant duration can no longer change`);
    return undefined;
  },
  validate: (c, r) => {
    const max = maximumSeconds(c.world, c.task);
    return max !== undefined && r.seconds > max.seconds
      ? invalid(`duration ${r.text} is longer than the entitlement allows (${max.seconds}s: ${max.detail})`, "duration")
      : undefined;
  },
  apply: (ctx, c, r) => {
    const t = c.task.type;
    if (t?.kind !== "grant") return err(precondition("not a grant task"));
    const ticketActionId = emit(ctx, c.task.id, c.caller.id, {
      kind: "grantDurationUpdated",
      oldGrantDuration: t.grantDuration ?? "",
      newGrantDuration: r.text,
    });
    return ok({ task: { ...c.task, type: { ...t, grantDuration: r.text }, updatedAt: ctx.now }, ticketActionId });
  },
};

/**
 * Changes the grant duration of an open grant task, as the service's Update Grant Duration.
 *
 * Refusals: `INVALID_ARGUMENT` for a missing, malformed or non-positive `duration`, or one longer
 * than the entitlement's `durationGrant`; `FAILED_PRECONDITION` for a closed task, a task that is
 * not a grant, or one at its provision step; `PERMISSION_DENIED` for anyone but the current approval
 * step's approvers and administrators. Events: `grantDurationUpdated` (the `ticketActionId`).
 *
 * @example
 * ```ts
 * const r = updateGrantDuration(world, { taskId: "1001", duration: "28800s" }, { actorId: "u-sre-lead" });
 * if (r.ok) world = r.value.world;
 * ```
 */
export function updateGrantDuration(world: World, req: UpdateGrantDurationInput, ctx: ActionContext): Result<Step<JsonValue>, SimError> {
  return runTaskAction(world, req, ctx, spec);
}
