/**
 * `tick(world, now)`: the clock moves to `now` and everything time drives fires, in the order it
 * falls due, each at its own time (so a wait that ended at 08:00 records 08:00 even when the tick
 * comes at 10:00): waits end or time out, approval escalations run, requests waiting on a sync fall
 * back to manual provisioning; then every condition wait is re-checked at `now`. A step started by a
 * firing whose own timer is already due fires in the same tick. First of all, an open access review
 * whose subject is marked deleted is cancelled (product_admin_manage-campaigns.mdx). A time-limited
 * grant whose end (`deprovisionAt`) comes is revoked by a revoke task of origin
 * `TASK_ORIGIN_TIME_REVOKE` (product_admin_access-requests.mdx), once per end.
 */
import type { JsonObject, JsonValue } from "../model/json.js";
import type { Task } from "../model/index.js";
import { taskConditions } from "../policy/task-conditions.js";
import { err, ok, type Result } from "../result.js";
import { type AdvanceContext, IdSequence } from "../workflow/advance.js";
import { addTask, applyEffects, createRevokeForExpiredGrant } from "../workflow/effects.js";
import type { AuditEvent } from "../workflow/events.js";
import { msOf } from "../workflow/time.js";
import { checkWaitCondition, fireTimer, nextTimer, type Timer, waitCondition } from "../workflow/timers.js";
import { grantKeyOf, type TaskComment, type World } from "../world/world.js";
import { appendComments } from "../world/comment-log.js";
import type { Step } from "./comment.js";
import { cancelTask } from "./close.js";
import { taskSubjectId } from "../model/task-refs.js";
import { guarded, type SimError, notAWorld } from "./errors.js";
import { isRealTimestamp, utcTimestamp } from "./prelude.js";

/** A bound on passes of timers and conditions in one tick; each pass moves some task on a step. */
const MAX_PASSES = 10_000;

/**
 * How many timers one task may fire in one tick. More is a loop in the policy, not a workflow: an
 * escalation that replaces the policy with itself after `0s` fires again at once, forever (one
 * with `1s` fires 31.5 million times in a year's tick). The tick then answers
 * `FAILED_PRECONDITION` naming the task and step, instead of running out of memory.
 */
export const MAX_FIRINGS_PER_TASK = 1_000;

/**
 * One thing a tick fired.
 *
 * @example
 * ```ts
 * const f: Fired = { taskId: "t-1", numericId: "1011", kind: "waitCondition", at: "2026-11-22T10:00:00Z", policyStepId: "step-000004" };
 * ```
 * For `grantExpired`, the task is the revoke task the end of a time-limited grant created.
 */
export interface Fired {
  readonly taskId: string;
  readonly numericId: string;
  readonly kind: Timer["kind"] | "waitCondition" | "reviewSubjectDeleted" | "grantExpired";
  readonly at: string;
  readonly policyStepId: string;
}

interface Due {
  readonly taskId: string;
  readonly timer: Timer;
  readonly ms: number;
  readonly order: number;
}

/** The end of a time-limited grant, due in this tick. */
interface Expiry {
  readonly key: string;
  readonly deprovisionAt: string;
  readonly ms: number;
}

/** One end of one grant (its key and end in ms): what revokes once. */
const expiryKey = (grantKey: string, ms: number): string => `${grantKey}\u0000${ms}`;

/** The time-limited grants whose revoke task already exists, as {@link expiryKey}s: each end revokes once. */
function expiriesRevoked(world: World): Set<string> {
  const out = new Set<string>();
  for (const t of world.tasks.values()) {
    const r = t.type;
    if (r?.kind === "revoke" && r.source?.kind === "expired" && r.source.expiredAt)
      out.add(expiryKey(grantKeyOf(r.identityUserId || t.userId, r.appId, r.appEntitlementId), msOf(r.source.expiredAt)));
  }
  return out;
}

function ctxAt(world: World, now: string, ids: IdSequence, events: AuditEvent[], comments: TaskComment[], task: Task): AdvanceContext {
  const w = world.now === now ? world : { ...world, now };
  return { world: w, now, actorId: "", ids, expressions: taskConditions(w, task).expressions, events, comments, approvers: new Map() };
}

/** An open access review whose subject is marked deleted. */
function reviewOfDeletedUser(world: World, task: Task): boolean {
  return task.state === "TASK_STATE_OPEN" && !task.deletedAt && task.type?.kind === "certify" && world.index.users.get(taskSubjectId(task))?.status === "DELETED";
}

/** The refusal of a tick in which one task's timers fire in a loop. */
function loopRefusal(task: Task, timer: Timer, at: string): Result<never, SimError> {
  const policy = task.policy?.policy?.id ?? "";
  return err<SimError>({
    code: "FAILED_PRECONDITION",
    message:
      `task ${task.numericId || task.id} fired ${MAX_FIRINGS_PER_TASK.toLocaleString("en")} timers in one tick (the last a ${timer.kind} of step ${timer.policyStepId} at ${at}): ` +
      `its policy${policy ? ` ${policy}` : ""} loops (an escalation that replaces the policy with itself, or restarts it, with an expiration of 0s or close to it). ` +
      "Give the escalation a longer expiration or another policy; nothing was changed",
  });
}

/**
 * Advances the clock to `now` and fires what time drives (see the module comment). Pure; never
 * throws. The response is `{ now, fired: [{taskId, numericId, kind, at, policyStepId}] }`; the events
 * are the workflow's (`waitSucceeded`, `waitTimedOut`, `approvalEscalated`,
 * `provisionFellBackToManual`, `taskClosed`, …).
 *
 * Refusals: `INVALID_ARGUMENT` when `now` is not an RFC 3339 timestamp of a date that exists (not
 * `2027-02-30`, not hour 24) or is before the world's clock.
 *
 * @example
 * ```ts
 * const r = tick(world, "2026-11-22T09:30:00Z");
 * if (r.ok) { world = r.value.world; console.log(r.value.response); }
 * ```
 */
export function tick(world: World, now: string): Result<Step<JsonValue>, SimError> {
  return guarded(() => {
    const notWorld = notAWorld(world);
    if (notWorld) return err<SimError>(notWorld);
    if (!isRealTimestamp(now))
      return err<SimError>({
        code: "INVALID_ARGUMENT",
        message: `now must be an RFC 3339 timestamp of a real date and time, such as "2026-11-22T09:00:00Z", not ${typeof now === "string" ? JSON.stringify(now) : typeof now}`,
        field: "now",
      });
    const end = msOf(now);
    if (end < msOf(world.now))
      return err<SimError>({ code: "INVALID_ARGUMENT", message: `time cannot go back: the world's clock is ${world.now}, the tick is ${now}`, field: "now" });
    // The clock is kept, and written, in UTC (protobuf's timestamp form).
    now = utcTimestamp(now);

    const ids = new IdSequence(world.seq);
    const events: AuditEvent[] = [];
    const comments: TaskComment[] = [];
    const fired: Fired[] = [];
    let w: World = world;
    let order = 0;
    const orderOf = new Map<string, number>();
    // Tasks in a condition wait: re-checked at `now`. Kept as a set so a pass does not scan the world.
    const conditionWaits = new Set<string>();
    const firings = new Map<string, number>();

    const queue: Due[] = [];
    const schedule = (task: Task): void => {
      if (waitCondition(task) !== undefined) conditionWaits.add(task.id);
      const t = nextTimer(task);
      if (!t) return;
      const ms = msOf(t.at);
      if (ms <= end) queue.push({ taskId: task.id, timer: t, ms, order: orderOf.get(task.id) ?? order++ });
    };
    const apply = (task: Task, at: string, before: number, beforeComments: number): void => {
      const posted = comments.slice(beforeComments).filter((c) => c.taskId === task.id).length;
      w = { ...w, tasks: w.tasks.set(task.id, { ...task, commentCount: task.commentCount + posted }) };
      const ctx = ctxAt(w, at, ids, events, comments, task);
      w = { ...applyEffects(ctx.world, ctx, before), now: world.now };
      // A task the effects created may have timers of its own.
      for (const e of events.slice(before)) if (e.kind === "taskCreated") {
        const created = w.tasks.get(e.createdTaskId);
        if (created) schedule(created);
      }
    };

    // Time-limited grants whose end falls in the tick: "At the end of the time limit, the user's
    // access will be automatically revoked" (product_admin_access-requests.mdx), by a revoke task.
    const expiries: Expiry[] = [];
    const expiryQueued = new Set<string>();
    let revoked: Set<string> | null = null;
    let grantsSeen: World["grants"] | null = null;
    const scheduleExpiries = (): void => {
      if (w.grants === grantsSeen) return;
      grantsSeen = w.grants;
      for (const g of w.grants) {
        if (!g.deprovisionAt) continue;
        const ms = msOf(g.deprovisionAt);
        if (!(ms <= end)) continue;
        const key = grantKeyOf(g.identityUserId, g.appId, g.appEntitlementId);
        const once = expiryKey(key, ms);
        revoked ??= expiriesRevoked(world);
        if (expiryQueued.has(once) || revoked.has(once)) continue;
        expiryQueued.add(once);
        expiries.push({ key, deprovisionAt: g.deprovisionAt, ms });
      }
    };
    const expire = (due: Expiry): void => {
      const grant = w.index.grants.get(due.key);
      // Revoked, extended or made permanent since it was queued.
      if (!grant || grant.deprovisionAt !== due.deprovisionAt) return;
      const at = due.ms < msOf(world.now) ? world.now : due.deprovisionAt;
      const before = events.length;
      const beforeComments = comments.length;
      const created = createRevokeForExpiredGrant({ world: w.now === at ? w : { ...w, now: at }, now: at, actorId: "", ids, events, comments, approvers: new Map() }, grant);
      fired.push({ taskId: created.id, numericId: created.numericId, kind: "grantExpired", at, policyStepId: created.policy?.current?.id ?? "" });
      // Added, then applied as any firing is (its comments counted, its effects, its timers scheduled).
      w = addTask(w, created);
      apply({ ...created, commentCount: 0 }, at, before, beforeComments);
    };

    // One pass over the world, in its stable order (ties between timers fall due in that order).
    const orphanedReviews: Task[] = [];
    for (const task of w.tasks.values()) {
      orderOf.set(task.id, order++);
      if (reviewOfDeletedUser(w, task)) orphanedReviews.push(task);
      else schedule(task);
    }
    // "If the user who is the subject of an access review task is marked deleted … before the task
    // has been completed, that task is automatically canceled" (product_admin_manage-campaigns.mdx).
    for (const task of orphanedReviews) {
      const before = events.length;
      const beforeComments = comments.length;
      const stepId = task.policy?.current?.id ?? "";
      const after = cancelTask(ctxAt(w, world.now, ids, events, comments, task), task, "");
      fired.push({ taskId: task.id, numericId: task.numericId, kind: "reviewSubjectDeleted", at: world.now, policyStepId: stepId });
      apply(after, world.now, before, beforeComments);
    }
    scheduleExpiries();
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      while (queue.length > 0 || expiries.length > 0) {
        queue.sort((a, b) => a.ms - b.ms || a.order - b.order);
        expiries.sort((a, b) => a.ms - b.ms || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
        // A grant's end comes before a task timer due after it (a timer at the same time goes first).
        const first = expiries[0];
        if (first && (queue.length === 0 || first.ms < (queue[0] as Due).ms)) {
          expiries.shift();
          expire(first);
          scheduleExpiries();
          continue;
        }
        const due = queue.shift() as Due;
        const task = w.tasks.get(due.taskId);
        const timer = task ? nextTimer(task) : undefined;
        if (!task || !timer || timer.kind !== due.timer.kind || timer.at !== due.timer.at || timer.policyStepId !== due.timer.policyStepId) continue;
        const before = events.length;
        const beforeComments = comments.length;
        const at = msOf(timer.at) < msOf(world.now) ? world.now : timer.at;
        const count = (firings.get(task.id) ?? 0) + 1;
        if (count > MAX_FIRINGS_PER_TASK) return loopRefusal(task, timer, at);
        firings.set(task.id, count);
        const after = fireTimer(ctxAt(w, at, ids, events, comments, task), task, timer);
        fired.push({ taskId: task.id, numericId: task.numericId, kind: timer.kind, at, policyStepId: timer.policyStepId });
        apply(after, at, before, beforeComments);
        const updated = w.tasks.get(task.id);
        if (updated) schedule(updated);
        scheduleExpiries();
      }
      // Conditions are re-checked at the tick's time, after everything that fell due before it.
      let changed = false;
      const waiting = [...conditionWaits].sort((a, b) => (orderOf.get(a) ?? 0) - (orderOf.get(b) ?? 0));
      for (const id of waiting) {
        const task = w.tasks.get(id);
        if (!task || waitCondition(task) === undefined) {
          conditionWaits.delete(id);
          continue;
        }
        const before = events.length;
        const beforeComments = comments.length;
        const stepId = task.policy?.current?.id ?? "";
        const after = checkWaitCondition(ctxAt(w, now, ids, events, comments, task), task);
        if (after === task) continue;
        changed = true;
        fired.push({ taskId: task.id, numericId: task.numericId, kind: "waitCondition", at: now, policyStepId: stepId });
        apply(after, now, before, beforeComments);
        const updated = w.tasks.get(task.id);
        if (updated) schedule(updated);
        scheduleExpiries();
      }
      if (!changed && queue.length === 0 && expiries.length === 0) break;
    }

    if (comments.length > 0) {
      let table = w.comments;
      for (const c of comments) table = appendComments(table, c.taskId, [c]);
      w = { ...w, comments: table };
    }
    const next = Object.freeze({ ...w, now, seq: ids.next });
    const response: JsonObject = {
      now,
      fired: fired.map((f) => ({ taskId: f.taskId, numericId: f.numericId, kind: f.kind, at: f.at, policyStepId: f.policyStepId })),
    };
    return ok({ world: next, response, events });
  });
}
