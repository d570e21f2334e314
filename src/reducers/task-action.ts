/**
 * The shape every workflow action shares, so each action file says only what is its own: the
 * request fields it reads, the state it needs, who may do it, what it checks in the arguments, and
 * what it changes. In order (docs/workflow.md, "Order of checks"):
 *
 * 1. the request and the caller (`INVALID_ARGUMENT`, `UNAUTHENTICATED`), the task (`NOT_FOUND`,
 *    also for a deleted task), whether the caller can see it (`PERMISSION_DENIED`);
 * 2. the action's own request fields (`INVALID_ARGUMENT`);
 * 3. the task's state (`FAILED_PRECONDITION`: e.g. approving a task whose current step is not an
 *    approval);
 * 4. whether the caller may do it (`PERMISSION_DENIED`: the action is not in the task's `actions`
 *    for the caller, or the step's settings refuse this caller);
 * 5. the arguments against the step's settings (`INVALID_ARGUMENT`: a required reason, a form value);
 * 6. the change, the workflow running on, the world effects, and the response for the caller.
 */
import { encodeCommentResponse, encodeHardResetResponse } from "../codec/index.js";
import { cloneJson, JsonCycle, JsonTooDeep, MAX_JSON_DEPTH } from "../codec/json-tools.js";
import type { User } from "../model/directory.js";
import type { JsonObject, JsonValue } from "../model/json.js";
import type { Task } from "../model/index.js";
import { taskConditions } from "../policy/task-conditions.js";
import { err, ok, type Result } from "../result.js";
import { type AdvanceContext, IdSequence } from "../workflow/advance.js";
import { applyEffects } from "../workflow/effects.js";
import { findTask, type World } from "../world/world.js";
import { appendComments } from "../world/comment-log.js";
import type { Step } from "./comment.js";
import { guarded, type SimError, notAWorld } from "./errors.js";
import { type Relation, relationTo, seesInternals, taskActionsFor, whoMay } from "./permissions.js";
import { prelude } from "./prelude.js";
import { buildTaskView, hideFromCaller } from "./task-view.js";

/**
 * What an action's `apply` returns: the task after the change (and the workflow running on), the
 * id of the action record (`ticketActionId`), fields the response adds, and — when the action
 * changes more of the world than the task (the simulation section) — that world.
 *
 * @example
 * ```ts
 * const applied: Applied = { task: next, ticketActionId: "evt-000042" };
 * ```
 */
export interface Applied {
  readonly task: Task;
  readonly ticketActionId: string;
  readonly extra?: JsonObject;
  readonly world?: World;
}

/**
 * Who calls, on what, when: what the checks and `apply` see.
 *
 * @example
 * ```ts
 * const check = (c: Called) => c.task.state === "TASK_STATE_OPEN";
 * ```
 */
export interface Called {
  readonly world: World;
  readonly task: Task;
  readonly caller: User;
  readonly relation: Relation;
  readonly now: string;
}

/**
 * One workflow action, as its checks and its change.
 *
 * @example
 * ```ts
 * const spec: ActionSpec<{ comment: string }> = { action: "TASK_ACTION_TYPE_CLOSE", ticket: true,
 *   read: (req) => ok({ comment: "" }), state: () => undefined, apply: (ctx, c) => ok({ task: c.task, ticketActionId: "" }) };
 * ```
 */
export interface ActionSpec<R> {
  /** The `TASK_ACTION_TYPE_*` the caller must have, or `""` when `permitted` decides alone. */
  readonly action: string;
  /** Whether the response carries a `ticketActionId` (the service's action responses do; Comment's does not). */
  readonly ticket: boolean;
  readonly read: (req: Readonly<Record<string, unknown>>) => Result<R, SimError>;
  /** `FAILED_PRECONDITION` when the task is not in a state the action applies to. */
  readonly state: (c: Called, r: R) => SimError | undefined;
  /** Refuses a caller the task's `actions` let through (the step's own settings). */
  readonly permitted?: (c: Called, r: R) => SimError | undefined;
  /** `INVALID_ARGUMENT` for arguments the step's settings refuse. */
  readonly validate?: (c: Called, r: R) => SimError | undefined;
  readonly apply: (ctx: AdvanceContext, c: Called, r: R) => Result<Applied, SimError>;
}

/**
 * Builds a `FAILED_PRECONDITION` error.
 *
 * @example
 * ```ts
 * precondition("task 1013 is closed");
 * ```
 */
export const precondition = (message: string, details?: unknown): SimError =>
  details === undefined ? { code: "FAILED_PRECONDITION", message } : { code: "FAILED_PRECONDITION", message, details };

/**
 * Builds an `INVALID_ARGUMENT` error naming the field.
 *
 * @example
 * ```ts
 * invalid("step requires a denial reason: pass a comment", "comment");
 * ```
 */
export const invalid = (message: string, field: string): SimError => ({ code: "INVALID_ARGUMENT", message, field });

/**
 * A caller's JSON object, copied so that the world never shares it with the caller (who may change
 * it after the call), or the refusal of one that nests deeper than a world file may
 * ({@link MAX_JSON_DEPTH}) or refers to itself: either would make the world unsaveable.
 *
 * @example
 * ```ts
 * const data = jsonObjectInput(req["requestData"], "requestData"); // ok({ … }) or INVALID_ARGUMENT
 * ```
 */
export function jsonObjectInput(value: object, field: string): Result<JsonObject, SimError> {
  try {
    return ok(cloneJson(value, MAX_JSON_DEPTH, true) as JsonObject);
  } catch (e) {
    if (!(e instanceof JsonTooDeep)) throw e;
    const why = e instanceof JsonCycle ? "refers to itself, which JSON cannot write" : `nests more than ${MAX_JSON_DEPTH} levels, the most a world file keeps`;
    return err(invalid(`${field} ${why}`, field));
  }
}

/**
 * Builds a `PERMISSION_DENIED` error.
 *
 * @example
 * ```ts
 * denied('user "u-dev1" may not approve task 1001');
 * ```
 */
export const denied = (message: string): SimError => ({ code: "PERMISSION_DENIED", message });

/**
 * Reads an optional string field of a request: `""` when absent.
 *
 * @example
 * ```ts
 * readString(req, "comment"); // ok("") when the request has no comment
 * ```
 */
export function readString(req: Readonly<Record<string, unknown>>, key: string): Result<string, SimError> {
  const v = req[key];
  if (v === undefined || v === null) return ok("");
  if (typeof v !== "string") return err(invalid(`"${key}" must be a string`, key));
  return ok(v);
}

/**
 * Reads an optional list of strings: `[]` when absent.
 *
 * @example
 * ```ts
 * readStrings(req, "newStepUserIds"); // ok(["u-cto"])
 * ```
 */
export function readStrings(req: Readonly<Record<string, unknown>>, key: string): Result<readonly string[], SimError> {
  const v = req[key];
  if (v === undefined || v === null) return ok([]);
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) return err(invalid(`"${key}" must be an array of strings`, key));
  return ok(v as string[]);
}

/** A world whose clock reads `now` for the evaluations of one call (CEL `now()`, rules). */
function at(world: World, now: string): World {
  return world.now === now ? world : { ...world, now };
}

/**
 * The advance context of one call on a task: ids from the world's sequence, the task's approver
 * expressions, empty event and comment lists.
 *
 * @example
 * ```ts
 * const ctx = contextFor(world, task, "u-it-dir", world.now);
 * ```
 */
export function contextFor(world: World, task: Task, actorId: string, now: string): AdvanceContext {
  const w = at(world, now);
  return {
    world: w,
    now,
    actorId,
    ids: new IdSequence(world.seq),
    expressions: taskConditions(w, task).expressions,
    events: [],
    comments: [],
    approvers: new Map(),
  };
}

/**
 * Writes what a call produced into the world: the task (its `commentCount` raised by the comments
 * posted on it), the comments, the id sequence, then the world effects of the events (grants,
 * created tasks). The clock is not moved: `tick` moves it.
 *
 * @example
 * ```ts
 * const next = commit(world, ctx, task);
 * ```
 */
export function commit(world: World, ctx: AdvanceContext, task: Task | null): World {
  let next: World = world;
  if (task) {
    const posted = ctx.comments.filter((c) => c.taskId === task.id).length;
    // An unchanged task stays the same object, so the world's table is shared as it was.
    next = { ...next, tasks: next.tasks.set(task.id, posted > 0 ? { ...task, commentCount: task.commentCount + posted } : task) };
  }
  // Effects are evaluated at the call's time (a created task's rules see it as now()).
  next = { ...applyEffects({ ...next, now: ctx.world.now }, ctx, 0), now: world.now };
  if (ctx.comments.length > 0) {
    let comments = next.comments;
    for (const c of ctx.comments) comments = appendComments(comments, c.taskId, [c]);
    next = { ...next, comments };
  }
  return { ...next, seq: ctx.ids.next };
}

/**
 * The response body for the caller: `{expanded, taskView, ticketActionId}` (or Comment's
 * `{expanded, taskView}`), with the caller's `actions`, hidden fields removed, plus `extra`.
 *
 * @example
 * ```ts
 * const body = responseFor(next, task, caller, ["user_id"], "evt-000007");
 * ```
 */
export function responseFor(
  world: World,
  task: Task,
  caller: User,
  expandPaths: readonly string[],
  ticketActionId: string | undefined,
  extra?: JsonObject,
): JsonValue {
  const relation = relationTo(world, task, caller);
  const { taskView, expanded } = buildTaskView(world, task, relation, expandPaths);
  const body =
    ticketActionId === undefined ? encodeCommentResponse({ expanded, taskView }) : encodeHardResetResponse({ expanded, taskView, ticketActionId });
  const shown = seesInternals(relation) ? body : hideFromCaller(body);
  return extra && typeof shown === "object" && shown !== null && !Array.isArray(shown) ? { ...(shown as JsonObject), ...extra } : shown;
}

/**
 * Runs one workflow action on a task: the checks in order, the change, the effects, the response.
 * Never throws.
 *
 * @example
 * ```ts
 * return runTaskAction(world, req, ctx, closeSpec);
 * ```
 */
export function runTaskAction<R>(world: World, req: unknown, actx: unknown, spec: ActionSpec<R>): Result<Step<JsonValue>, SimError> {
  return guarded(() => {
    const notWorld = notAWorld(world);
    if (notWorld) return err<SimError>(notWorld);
    const gone = deletedTask(world, req);
    if (gone) return err(gone);
    // Only "can read" here (""): whether the caller may perform the action is asked below, after
    // the request and the task's state, so a refusal names the action, not another.
    const pre = prelude(world, req, actx, "");
    if (!pre.ok) return pre;
    const { task, caller, relation, now, expandPaths } = pre.value;
    const r = spec.read(req as Readonly<Record<string, unknown>>);
    if (!r.ok) return r;
    const called: Called = { world, task, caller, relation, now };
    const stateError = spec.state(called, r.value);
    if (stateError) return err(stateError);
    if (spec.action !== "" && !taskActionsFor(task, relation).includes(spec.action))
      return err(denied(`user "${caller.id}" may not perform ${spec.action} on task "${task.numericId || task.id}"${whoMay(spec.action) ? ` (${whoMay(spec.action)})` : ""}`));
    const refused = spec.permitted?.(called, r.value);
    if (refused) return err(refused);
    const bad = spec.validate?.(called, r.value);
    if (bad) return err(bad);
    const ctx = contextFor(world, task, caller.id, now);
    const applied = spec.apply(ctx, called, r.value);
    if (!applied.ok) return applied;
    const base = applied.value.world ?? world;
    const next = Object.freeze(commit(base, ctx, applied.value.task));
    const after = next.tasks.get(task.id) ?? applied.value.task;
    const response = responseFor(next, after, caller, expandPaths, spec.ticket ? applied.value.ticketActionId : undefined, applied.value.extra);
    return ok({ world: next, response, events: ctx.events });
  });
}

/**
 * `NOT_FOUND` when the request names a deleted task: a deleted task is gone for everyone, before any
 * other check.
 *
 * @example
 * ```ts
 * deletedTask(world, { taskId: "1001" }); // undefined unless 1001 was deleted
 * ```
 */
export function deletedTask(world: World, req: unknown): SimError | undefined {
  if (typeof req !== "object" || req === null) return undefined;
  const taskId = (req as Readonly<Record<string, unknown>>)["taskId"];
  if (typeof taskId !== "string") return undefined;
  const task = findTask(world, taskId);
  return task?.deletedAt ? { code: "NOT_FOUND", message: `task "${taskId}" was deleted at ${task.deletedAt}` } : undefined;
}
