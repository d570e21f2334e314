/**
 * Hard Reset: "restore the task to its starting state and recalculate and apply the policy that
 * governs the task" (docs/domain.md §4). Unlike Restart it re-decides which policy applies.
 *
 * In order: check the caller (Super Administrators only); resolve the policy and select its steps
 * (the same decision `explain` shows); retire the current and pending steps into history as
 * restarted (nothing is dropped); snapshot the policy; issue a new `policyGenerationId`; reset
 * decisions and outcome; reopen the task; run automatic steps until one waits.
 */
import { encodeHardResetResponse } from "../codec/index.js";
import type { PolicyInstance, PolicyStep, PolicyStepInstance, Task } from "../model/index.js";
import { decide, type Decision } from "../policy/decide.js";
import { chainSnapshot, type RuleEvaluation } from "../policy/select-steps.js";
import { err, ok, type Result } from "../result.js";
import { advance, type AdvanceContext, IdSequence } from "../workflow/advance.js";
import type { ApproverResolution } from "../workflow/approvers.js";
import type { AuditEvent } from "../workflow/events.js";
import { instantiate, retire } from "../workflow/instantiate.js";
import { reopened } from "../workflow/restart.js";
import { type TaskComment, type World, withTaskTables } from "../world/world.js";
import { AppendLog } from "../world/append-log.js";
import { appendComments } from "../world/comment-log.js";
import type { HardResetResponseJson, Step } from "./comment.js";
import { guarded, type SimError, notAWorld } from "./errors.js";
import { relationAfterSteps, seesInternals } from "./permissions.js";
import { type ActionContext, type ExpandMaskInput, optionalString, prelude } from "./prelude.js";
import { buildTaskView, hideFromCaller } from "./task-view.js";

/**
 * The Hard Reset request: which task (id or numericId), an optional comment, what to expand.
 *
 * @example
 * ```ts
 * const req: HardResetInput = { taskId: "1001", comment: "Policy updated, re-routing" };
 * ```
 */
export interface HardResetInput {
  readonly taskId: string;
  readonly comment?: string;
  readonly expandMask?: ExpandMaskInput | null;
}

/**
 * Why a Hard Reset could not pick a policy, carried in a `FAILED_PRECONDITION` error's `details`.
 *
 * @example
 * ```ts
 * if (!r.ok && r.error.code === "FAILED_PRECONDITION") console.log((r.error.details as HardResetFailure).decision);
 * ```
 */
export interface HardResetFailure {
  readonly decision: Decision;
}

/** The message of a decision that could not produce steps, or undefined when it did. */
export function decisionFailure(d: Decision): string | undefined {
  if (!d.resolution.ok) return d.resolution.error.message;
  if (d.selection && !d.selection.ok) return `${d.selection.error.code}: ${d.selection.error.message}`;
  return undefined;
}

/**
 * The result of applying a Hard Reset to one task, before it is written into a world: what
 * `hardReset` and what-if analysis share.
 *
 * @example
 * ```ts
 * const r = resetTask(world, task, { actorId: "u-it-dir", now: world.now, comment: "" });
 * const outcome: ResetOutcome | undefined = r.ok ? r.value : undefined;
 * ```
 */
export interface ResetOutcome {
  readonly task: Task;
  readonly decision: Decision;
  readonly events: readonly AuditEvent[];
  readonly comments: readonly TaskComment[];
  readonly approvers: ReadonlyMap<string, ApproverResolution>;
  readonly ticketActionId: string;
  readonly seq: number;
}

/**
 * The audit event of one rule a Hard Reset evaluated: the evaluation with the event's own fields
 * first, and, unlike the other workflows' records (`emitRuleEvaluations`), its `ruleIndex`. Written
 * as literals with the keys in the order `{ kind, id, taskId, at, actorId, ...e }` gave them (the
 * selection writes a rule's and the baseline's evaluation in different orders): that spread cost
 * ~0.15 µs an event, sixteen times per reset of a 16-rule policy.
 */
function ruleEvaluationEvent(id: string, taskId: string, at: string, e: RuleEvaluation): AuditEvent {
  const kind = "conditionalPolicyExecutionResult";
  const { policyId, chainDepth, ruleIndex, condition, conditionMatched, defaultCondition, error, stepKey, policyKey, outcomePolicyId } = e;
  return e.defaultCondition
    ? { kind, id, taskId, at, actorId: "", policyId, chainDepth, ruleIndex, condition, conditionMatched, defaultCondition, error, stepKey, policyKey, outcomePolicyId }
    : { kind, id, taskId, at, actorId: "", policyId, chainDepth, ruleIndex, condition, defaultCondition, stepKey, policyKey, outcomePolicyId, conditionMatched, error };
}

/**
 * The items of `list` from `start` on, in a new array, by a loop: the lists here are a world's or
 * a selection's (frozen), and on Node 20 `slice` and `concat` of a frozen array take a slow path
 * (~0.2 µs for two items; the loop ~15 ns), as `[first, ...rest]` and spreads go through the
 * iteration protocol.
 */
function copyFrom<T>(list: readonly T[], start: number): T[] {
  const out: T[] = [];
  for (let i = start; i < list.length; i++) out.push(list[i] as T);
  return out;
}

/**
 * Applies a Hard Reset to a task without the caller checks or the response: the decision, the new
 * policy instance and the automatic advance. Returns a `FAILED_PRECONDITION` when no step sequence
 * can be selected.
 *
 * @example
 * ```ts
 * const r = resetTask(world, task, { actorId: "u-it-dir", now: world.now, comment: "" });
 * if (r.ok) console.log(r.value.task.policy?.current?.instance?.kind);
 * ```
 */
export function resetTask(
  world: World,
  task: Task,
  by: { readonly actorId: string; readonly now: string; readonly comment: string },
): Result<ResetOutcome, SimError> {
  const decision = decide(world, task);
  const failure = decisionFailure(decision);
  if (failure !== undefined || !decision.resolution.ok || !decision.selection?.ok)
    return {
      ok: false,
      error: {
        code: "FAILED_PRECONDITION",
        message: `cannot hard reset task "${task.id}": ${failure ?? "no policy"}`,
        details: { decision } satisfies HardResetFailure,
      },
    };
  const { now, actorId } = by;
  const resolution = decision.resolution.value;
  const selection = decision.selection.value;
  const ids = new IdSequence(world.seq);
  const events: AuditEvent[] = [];
  const comments: TaskComment[] = [];

  const old = task.policy;
  const oldCurrentId = old?.current?.id ?? "";
  const ticketActionId = ids.take("evt");
  events.push({ kind: "hardReset", id: ticketActionId, taskId: task.id, at: now, actorId, oldPolicyStepId: oldCurrentId, comment: by.comment });
  for (const e of selection.evaluations) events.push(ruleEvaluationEvent(ids.take("evt"), task.id, now, e));
  const oldPolicyId = old?.policy?.id ?? "";
  if (oldPolicyId !== resolution.policy.id)
    events.push({ kind: "policyChanged", id: ids.take("evt"), taskId: task.id, at: now, actorId, oldPolicyId, newPolicyId: resolution.policy.id });
  let commentCount = task.commentCount;
  if (by.comment.trim() !== "") {
    const commentId = ids.take("cmt");
    comments.push({ id: commentId, taskId: task.id, userId: actorId, comment: by.comment, createdAt: now });
    events.push({ kind: "comment", id: ids.take("evt"), taskId: task.id, at: now, actorId, commentId, comment: by.comment, updatedAt: now, updatedBy: actorId });
    commentCount += 1;
  }

  // Nothing is dropped: the step that was running and the steps still pending go to history.
  const generation = ids.take("gen");
  const steps = selection.steps;
  const first = steps[0];
  const firstId = first ? ids.take("step") : "";
  const retiredBy = { at: now, userId: actorId, replacedBy: firstId, restartedStepId: old?.current?.id ?? "" };
  // Appended to the task's log, not copied: a reset costs the same however many came before it.
  const retired: PolicyStepInstance[] = [];
  if (old?.current) retired.push(retire(old.current, retiredBy));
  const pendingSteps = old?.next;
  if (pendingSteps)
    for (let i = 0; i < pendingSteps.length; i++)
      retired.push(retire(instantiate(pendingSteps[i] as PolicyStep, ids.take("step"), task.policyGenerationId, now), retiredBy));
  const history = (old?.history ?? AppendLog.empty<PolicyStepInstance>()).appendAll(retired);

  const current = first ? instantiate(first, firstId, generation, now) : null;
  const next = copyFrom(steps, 1);
  // Today's policies: a fresh snapshot of the chain (policies page), which a later Restart uses.
  const referencedPolicies = chainSnapshot(world, resolution.policy);
  const policy: PolicyInstance = old?.$unknown
    ? { current, history, next, policy: resolution.policy, referencedPolicies, $unknown: old.$unknown }
    : { current, history, next, policy: resolution.policy, referencedPolicies };
  const fresh = reopened(task, policy, generation, now, commentCount);
  const ctx: AdvanceContext = {
    world,
    now,
    actorId,
    ids,
    expressions: decision.conditions.expressions,
    events,
    comments,
    approvers: new Map(),
  };
  const settled = advance(ctx, fresh);
  // The comments the workflow posted (an accept step's message, a wait's first comment) count too.
  let posted = 0;
  for (const c of comments) if (c.userId === "") posted++;
  const withCount: Task = posted === 0 ? settled : { ...settled, commentCount: commentCount + posted };
  return ok({ task: withCount, decision, events, comments, approvers: ctx.approvers, ticketActionId, seq: ids.next });
}

/**
 * Hard-resets a task, as `POST /api/v1/tasks/{task_id}/action/reset` does: recalculates which
 * policy applies and restarts the task on it. Pure: returns a new world (the old one is untouched),
 * the response body `{expanded, taskView, ticketActionId}` in wire JSON, and the audit events
 * (`hardReset`, one `conditionalPolicyExecutionResult` per rule evaluated, `policyChanged` when the
 * policy changed, `comment` when a comment came with the request, `stepSkipped`…).
 *
 * Errors: `NOT_FOUND` (no such task), `UNAUTHENTICATED` (unknown caller), `PERMISSION_DENIED`
 * (not a Super Administrator), `INVALID_ARGUMENT` (bad request or expand path),
 * `FAILED_PRECONDITION` (no policy or a broken chain; `details.decision` says why).
 *
 * @example
 * ```ts
 * const r = hardReset(world, { taskId: "1001", expandMask: { paths: ["step_approver_ids"] } }, { actorId: "u-it-dir" });
 * if (r.ok) {
 *   world = r.value.world;
 *   console.log(r.value.response); // { expanded: [...], taskView: {...}, ticketActionId: "evt-000001" }
 * }
 * ```
 */
export function hardReset(world: World, req: HardResetInput, ctx: ActionContext): Result<Step<HardResetResponseJson>, SimError> {
  return guarded(() => {
    const notWorld = notAWorld(world);
    if (notWorld) return err<SimError>(notWorld);
    const text = optionalString((req ?? {}) as unknown as Record<string, unknown>, "comment");
    if (!text.ok) return text;
    const pre = prelude(world, req, ctx, "TASK_ACTION_TYPE_HARD_RESET");
    if (!pre.ok) return pre;
    const { task, caller, relation, now, expandPaths } = pre.value;
    const reset = resetTask(world, task, { actorId: caller.id, now, comment: text.value });
    if (!reset.ok) return reset;
    const r = reset.value;
    const comments = appendComments(world.comments, task.id, r.comments);
    const next = withTaskTables(world, world.tasks.set(task.id, r.task), comments, r.seq);
    // The caller's relation to the task may have changed (e.g. they now review the new first step);
    // its subject, requester and entitlement have not.
    const after = relationAfterSteps(next, r.task, caller, relation);
    const { taskView, expanded } = buildTaskView(next, r.task, after, expandPaths);
    const body = encodeHardResetResponse({ expanded, taskView, ticketActionId: r.ticketActionId }) as HardResetResponseJson;
    const response = seesInternals(after) ? body : hideFromCaller(body);
    return ok({ world: Object.freeze(next), response, events: r.events });
  });
}
