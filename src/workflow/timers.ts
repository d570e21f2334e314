/**
 * What time drives in the workflow, per task: the timer of its current step and what happens when
 * it fires.
 * - wait `untilTime` (a duration or a time of day in a zone): the wait succeeds;
 * - wait `timeout`: the wait times out, `commentOnTimeout` is posted and the next step begins, as
 *   when the condition is met (product_admin_policies.mdx); a step marked `closeTaskOnTimeout`
 *   (sim) closes the task `…_WAIT_TIMED_OUT` instead;
 * - approval escalation `expiresAt`: the escalation runs once (reassign to approvers, replace the
 *   policy, skip the step, cancel the ticket) and its comment is posted;
 * - provision waiting on an entitlement merge, `fallbackAt` (24 hours, release note 3): the step
 *   falls back to manual provisioning by the app's owners.
 * A wait on a condition has no timer: `tick` re-checks the condition each time it runs.
 */
import type { PolicyStepInstance, Task } from "../model/index.js";
import { taskConditions } from "../policy/task-conditions.js";
import { type AdvanceContext, advance, closeTask, completeStep, emit, finishCurrent, postComment } from "./advance.js";
import { appOwnersOf } from "./provisioners.js";
import { restartOn, selectOn } from "./restart.js";
import { cancelStep, moveToNext } from "./steps.js";
import { msOf } from "./time.js";
import { closesTaskOnTimeout } from "./wait-timeout.js";

/**
 * The next timer of a task's current step.
 *
 * @example
 * ```ts
 * const t: Timer = { kind: "waitTimeout", at: "2026-11-29T09:00:01Z", policyStepId: "step-000003" };
 * ```
 */
export interface Timer {
  readonly kind: "waitUntil" | "waitTimeout" | "escalation" | "syncFallback";
  /** When it is due (RFC 3339). */
  readonly at: string;
  readonly policyStepId: string;
}

/**
 * The earliest timer of the open task's current undecided step, or `undefined` when time does not
 * drive it. When a wait's end and its timeout fall together the wait succeeds.
 *
 * @example
 * ```ts
 * nextTimer(findTask(world, "1004")!); // { kind: "escalation", at: "2026-11-22T09:05:05Z", … }
 * ```
 */
export function nextTimer(task: Task): Timer | undefined {
  if (task.state !== "TASK_STATE_OPEN" || task.deletedAt) return undefined;
  const step = task.policy?.current;
  const i = step?.instance;
  if (!step || !i) return undefined;
  const candidates: Timer[] = [];
  switch (i.kind) {
    case "wait":
      if (i.outcome !== null) break;
      if (i.until?.kind === "untilTime" && i.until.untilTime) candidates.push({ kind: "waitUntil", at: i.until.untilTime, policyStepId: step.id });
      if (i.timeout) candidates.push({ kind: "waitTimeout", at: i.timeout, policyStepId: step.id });
      break;
    case "approval":
      if (i.outcome === null && i.escalationInstance && !i.escalationInstance.alreadyEscalated && i.escalationInstance.expiresAt)
        candidates.push({ kind: "escalation", at: i.escalationInstance.expiresAt, policyStepId: step.id });
      break;
    case "provision":
      if (i.outcome === null && i.waitingOn?.on?.kind === "entitlementMerge" && i.waitingOn.fallbackAt)
        candidates.push({ kind: "syncFallback", at: i.waitingOn.fallbackAt, policyStepId: step.id });
      break;
    default:
      break;
  }
  let best: Timer | undefined;
  for (const c of candidates) if (!Number.isNaN(msOf(c.at)) && (best === undefined || msOf(c.at) < msOf(best.at))) best = c;
  return best;
}

/**
 * The condition of the open task's current undecided condition wait, or `undefined`.
 *
 * @example
 * ```ts
 * waitCondition(findTask(world, "1011")!); // '!c1.user.v1.HasEntitlement(subject, "app-okta", "ent-okta-mfa")'
 * ```
 */
export function waitCondition(task: Task): string | undefined {
  if (task.state !== "TASK_STATE_OPEN" || task.deletedAt) return undefined;
  const i = task.policy?.current?.instance;
  return i?.kind === "wait" && i.outcome === null && i.until?.kind === "condition" ? i.until.condition : undefined;
}

function succeedWait(ctx: AdvanceContext, task: Task, step: PolicyStepInstance, reason: string): Task {
  const i = step.instance;
  if (i?.kind !== "wait") return task;
  emit(ctx, task.id, "", { kind: "waitSucceeded", policyStepId: step.id, reason });
  const done: PolicyStepInstance = {
    ...step,
    state: "POLICY_STEP_STATE_DONE",
    instance: { ...i, state: "WAIT_INSTANCE_STATE_COMPLETED", outcome: { kind: "succeeded", succeededAt: ctx.now } },
  };
  return completeStep(ctx, { ...task, updatedAt: ctx.now }, done);
}

/**
 * Ends a condition wait when its condition now holds (evaluated at the context's clock). A condition
 * that fails to evaluate does not hold (docs/domain.md §2, assumed) and the task keeps waiting.
 *
 * @example
 * ```ts
 * const after = checkWaitCondition(ctx, task); // the same task when the condition is false
 * ```
 */
export function checkWaitCondition(ctx: AdvanceContext, task: Task): Task {
  const condition = waitCondition(task);
  const step = task.policy?.current;
  if (condition === undefined || !step) return task;
  const r = taskConditions(ctx.world, task).run(condition);
  if (!r.ok || !r.value) return task;
  return succeedWait(ctx, task, step, `the condition \`${condition}\` holds`);
}

function escalate(ctx: AdvanceContext, task: Task, step: PolicyStepInstance): Task {
  const i = step.instance;
  if (i?.kind !== "approval" || !i.escalationInstance) return task;
  const e = i.escalationInstance;
  const policy = e.escalationPolicy;
  const kind = policy ? (policy.kind === "unknown" ? policy.key : policy.kind) : "none";
  emit(ctx, task.id, "", { kind: "approvalEscalated", policyStepId: step.id, escalation: kind, escalationComment: e.escalationComment });
  postComment(ctx, task, "", e.escalationComment);
  // The escalation runs once: the step that expired records it.
  const marked: PolicyStepInstance = { ...step, instance: { ...i, escalationInstance: { ...e, alreadyEscalated: true } } };
  const withMarked = { ...task, updatedAt: ctx.now, policy: task.policy ? { ...task.policy, current: marked } : null };
  const mi = marked.instance?.kind === "approval" ? marked.instance : i;
  switch (policy?.kind) {
    case "reassignToApprovers": {
      const newId = ctx.ids.take("step");
      const old = i.approval?.approvers ?? null;
      const done: PolicyStepInstance = {
        ...marked,
        state: "POLICY_STEP_STATE_DONE",
        instance: { ...mi, state: "APPROVAL_INSTANCE_STATE_DONE", outcome: { kind: "reassigned", newPolicyStepId: newId, reassignedAt: ctx.now, userId: "" } },
      };
      const next: PolicyStepInstance = {
        id: newId,
        policyGenerationId: step.policyGenerationId,
        state: "POLICY_STEP_STATE_ACTIVE",
        instance: {
          kind: "approval",
          approval: i.approval
            ? {
                ...i.approval,
                approvers: {
                  kind: "users",
                  allowSelfApproval: old !== null && "allowSelfApproval" in old ? old.allowSelfApproval : false,
                  requireDistinctApprovers: old !== null && "requireDistinctApprovers" in old ? old.requireDistinctApprovers : false,
                  userIds: policy.approverIds ?? [],
                },
              }
            : null,
          state: "APPROVAL_INSTANCE_STATE_WAITING",
          assignedAt: ctx.now,
          escalationInstance: { ...e, alreadyEscalated: true },
          outcome: null,
        },
      };
      const finished = finishCurrent(withMarked, done);
      return advance(ctx, { ...finished, policy: finished.policy ? { ...finished.policy, current: next } : null });
    }
    case "replacePolicy": {
      const replacement = ctx.world.index.policies.get(policy.policyId);
      if (!replacement) {
        postComment(ctx, task, "", `The escalation names policy "${policy.policyId}", which does not exist: the step keeps waiting.`);
        return withMarked;
      }
      const selection = selectOn(ctx, withMarked, replacement);
      if (!selection.ok) {
        postComment(ctx, task, "", `The escalation could not apply policy "${policy.policyId}": ${selection.error}`);
        return withMarked;
      }
      emit(ctx, task.id, "", { kind: "policyChanged", oldPolicyId: task.policy?.policy?.id ?? "", newPolicyId: replacement.id });
      return restartOn(ctx, withMarked, { policy: replacement, steps: selection.value.steps, newGeneration: true, userId: "" });
    }
    case "skipStep":
      return moveToNext(ctx, withMarked, (nextId) => ({
        ...marked,
        state: "POLICY_STEP_STATE_DONE",
        instance: { ...mi, state: "APPROVAL_INSTANCE_STATE_DONE", outcome: { kind: "skipped", newPolicyStepId: nextId, skippedAt: ctx.now, userId: "" } },
      }));
    case "cancelTicket":
      return closeTask(ctx, finishCurrent(withMarked, cancelStep(marked, { at: ctx.now, userId: "" })), "cancelled");
    case "unknown":
    case undefined:
      return withMarked;
    default: {
      const never: never = policy;
      return never;
    }
  }
}

function fallBackToManual(ctx: AdvanceContext, task: Task, step: PolicyStepInstance): Task {
  const i = step.instance;
  if (i?.kind !== "provision") return task;
  const owners = appOwnersOf(ctx.world, task);
  const on = i.waitingOn?.on;
  const what = on?.kind === "entitlementMerge" ? `"${on.appEntitlementId}"` : "the entitlement";
  const current: PolicyStepInstance = {
    ...step,
    instance: {
      ...i,
      waitingOn: null,
      state: "PROVISION_INSTANCE_STATE_WAITING",
      provision: {
        ...(i.provision ?? { assigned: false, provisionTarget: null }),
        provisionPolicy: {
          kind: "manual",
          instructions: `No sync reported ${what} within 24 hours: provision it by hand, then mark this step complete.`,
          userIds: owners,
          assignee: null,
        },
      },
    },
  };
  postComment(ctx, task, "", `No connector sync reported ${what} within 24 hours: falling back to manual provisioning.`);
  emit(ctx, task.id, "", { kind: "provisionFellBackToManual", policyStepId: step.id, provisionerIds: owners });
  return {
    ...task,
    updatedAt: ctx.now,
    processing: "TASK_PROCESSING_TYPE_WAITING",
    stepApproverIds: owners,
    policy: task.policy ? { ...task.policy, current } : null,
  };
}

/**
 * Fires a timer of the task at the context's clock (its due time).
 *
 * @example
 * ```ts
 * const t = nextTimer(task);
 * if (t) task = fireTimer({ ...ctx, now: t.at }, task, t);
 * ```
 */
export function fireTimer(ctx: AdvanceContext, task: Task, timer: Timer): Task {
  const step = task.policy?.current;
  if (!step || step.id !== timer.policyStepId) return task;
  switch (timer.kind) {
    case "waitUntil": {
      const i = step.instance;
      const why = i?.kind === "wait" && i.until?.kind === "untilTime" && i.until.durationIfExists ? `waited ${i.until.durationIfExists}` : `until ${timer.at}`;
      return succeedWait(ctx, task, step, why);
    }
    case "waitTimeout": {
      const i = step.instance;
      if (i?.kind !== "wait") return task;
      emit(ctx, task.id, "", { kind: "waitTimedOut", policyStepId: step.id });
      postComment(ctx, task, "", i.commentOnTimeout);
      const done: PolicyStepInstance = {
        ...step,
        state: "POLICY_STEP_STATE_DONE",
        instance: { ...i, state: "WAIT_INSTANCE_STATE_TIMED_OUT", outcome: { kind: "timedOut", timedOutAt: ctx.now } },
      };
      return completeStep(ctx, { ...task, updatedAt: ctx.now }, done, closesTaskOnTimeout(i) ? "timedOut" : undefined);
    }
    case "escalation":
      return escalate(ctx, task, step);
    case "syncFallback":
      return fallBackToManual(ctx, task, step);
    default: {
      const never: never = timer.kind;
      return never;
    }
  }
}
