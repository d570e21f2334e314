/**
 * Automatic advance: after a policy is (re)instantiated, steps that need nobody run at once —
 * `accept` completes (its message becomes a comment) and the next step starts, `reject` closes the
 * task denied, an approval whose approvers resolve to nobody and that has no fallback is skipped —
 * until a step waits on a person, a timer or a system.
 */
import type { PolicyStep, PolicyStepInstance, Task } from "../model/index.js";
import type { TaskComment, World } from "../world/world.js";
import { type ApproverResolution, type ExpressionEvaluator, resolveApprovers } from "./approvers.js";
import type { AuditEvent } from "./events.js";
import { instantiate } from "./instantiate.js";
import { type Verdict, withOutcome } from "./outcomes.js";

/**
 * The world's deterministic id sequence, taken from during one reducer call and stored back in the
 * world it returns.
 *
 * @example
 * ```ts
 * const ids = new IdSequence(world.seq);
 * ids.take("evt"); // "evt-000001" on a fresh world
 * ```
 */
export class IdSequence {
  constructor(private n: number) {}

  /** The next id with this prefix. */
  take(prefix: string): string {
    return `${prefix}-${String(this.n++).padStart(6, "0")}`;
  }

  /** The number the next id will use; the new world's `seq`. */
  get next(): number {
    return this.n;
  }
}

/**
 * What automatic advance needs from the reducer that calls it, and where it writes its effects.
 *
 * @example
 * ```ts
 * const ctx: AdvanceContext = { world, now: world.now, actorId: "u-root", ids: new IdSequence(world.seq),
 *   expressions: () => ({ ok: true, value: [] }), events: [], comments: [], approvers: new Map() };
 * ```
 */
export interface AdvanceContext {
  readonly world: World;
  readonly now: string;
  readonly actorId: string;
  readonly ids: IdSequence;
  readonly expressions: ExpressionEvaluator;
  readonly events: AuditEvent[];
  readonly comments: TaskComment[];
  /** Approvers resolved for each approval step instance started, by step instance id. */
  readonly approvers: Map<string, ApproverResolution>;
}

function postSystemComment(ctx: AdvanceContext, task: Task, text: string): void {
  if (!text) return;
  const id = ctx.ids.take("cmt");
  ctx.comments.push({ id, taskId: task.id, userId: "", comment: text, createdAt: ctx.now });
  ctx.events.push({
    kind: "comment",
    id: ctx.ids.take("evt"),
    taskId: task.id,
    at: ctx.now,
    actorId: "",
    commentId: id,
    comment: text,
    updatedAt: ctx.now,
    updatedBy: "",
  });
}

/**
 * Closes a task with the verdict's outcome: `TASK_STATE_CLOSED`, `TASK_PROCESSING_TYPE_DONE`,
 * no current step and no step approvers.
 *
 * @example
 * ```ts
 * const closed = closeTask(ctx, task, "denied");
 * ```
 */
export function closeTask(ctx: AdvanceContext, task: Task, verdict: Verdict): Task {
  const type = task.type ? withOutcome(task.type, verdict, ctx.now) : null;
  const outcome = type && type.kind !== "unknown" ? type.outcome : "";
  ctx.events.push({ kind: "taskClosed", id: ctx.ids.take("evt"), taskId: task.id, at: ctx.now, actorId: ctx.actorId, outcome });
  return {
    ...task,
    type,
    state: "TASK_STATE_CLOSED",
    processing: "TASK_PROCESSING_TYPE_DONE",
    stepApproverIds: [],
    policy: task.policy ? { ...task.policy, current: null } : null,
  };
}

function processingFor(step: PolicyStepInstance): string {
  const kind = step.instance?.kind;
  // Steps that wait on people or time are WAITING; steps the system runs are PROCESSING.
  return kind === "action" || kind === "provision" ? "TASK_PROCESSING_TYPE_PROCESSING" : "TASK_PROCESSING_TYPE_WAITING";
}

/**
 * Runs automatic steps from the task's current step on. The task's `policy.current` must be set
 * (or `next` non-empty); returns the task as it stands when a step waits or the task closes.
 *
 * @example
 * ```ts
 * const settled = advance(ctx, taskWithFreshPolicy);
 * settled.processing; // "TASK_PROCESSING_TYPE_WAITING" when an approval waits
 * ```
 */
export function advance(ctx: AdvanceContext, start: Task): Task {
  let task = start;
  // Each turn either stops or moves one step from next to history, so this ends.
  for (;;) {
    const policy = task.policy;
    if (!policy) return task;
    let current = policy.current;
    let next: readonly PolicyStep[] = policy.next ?? [];
    if (!current) {
      const [first, ...rest] = next;
      // DOMAIN.md §4 (assumed): a policy whose steps run out without a reject has approved the task.
      if (!first) return closeTask(ctx, task, "approved");
      current = instantiate(first, ctx.ids.take("step"), task.policyGenerationId, ctx.now);
      next = rest;
      task = { ...task, policy: { ...policy, current, next } };
    }
    const history = task.policy?.history ?? [];
    const finish = (done: PolicyStepInstance): Task => ({
      ...task,
      policy: { ...task.policy, current: null, next, history: [...history, done], policy: task.policy?.policy ?? null },
    });
    const inst = current.instance;
    switch (inst?.kind) {
      case "accept": {
        postSystemComment(ctx, task, inst.acceptMessage);
        ctx.events.push({ kind: "stepCompleted", id: ctx.ids.take("evt"), taskId: task.id, at: ctx.now, actorId: "", policyStepId: current.id, stepKind: "accept" });
        task = finish({ ...current, state: "POLICY_STEP_STATE_DONE" });
        continue;
      }
      case "reject": {
        postSystemComment(ctx, task, inst.rejectMessage);
        ctx.events.push({ kind: "stepCompleted", id: ctx.ids.take("evt"), taskId: task.id, at: ctx.now, actorId: "", policyStepId: current.id, stepKind: "reject" });
        return closeTask(ctx, finish({ ...current, state: "POLICY_STEP_STATE_DONE" }), "denied");
      }
      case "approval": {
        const resolution = inst.approval
          ? resolveApprovers(ctx.world, task, inst.approval, ctx.expressions)
          : { kind: "none", userIds: [], via: "skipped" as const, notes: ["the approval step has no definition"] };
        ctx.approvers.set(current.id, resolution);
        if (resolution.via === "skipped") {
          const skipped: PolicyStepInstance = {
            ...current,
            state: "POLICY_STEP_STATE_DONE",
            instance: {
              ...inst,
              state: "APPROVAL_INSTANCE_STATE_DONE",
              outcome: { kind: "skipped", newPolicyStepId: "", skippedAt: ctx.now, userId: "" },
            },
          };
          ctx.events.push({
            kind: "stepSkipped",
            id: ctx.ids.take("evt"),
            taskId: task.id,
            at: ctx.now,
            actorId: "",
            policyStepId: current.id,
            reason: resolution.notes.join("; "),
          });
          task = finish(skipped);
          continue;
        }
        return {
          ...task,
          state: "TASK_STATE_OPEN",
          processing: processingFor(current),
          stepApproverIds: resolution.userIds,
        };
      }
      default:
        return { ...task, state: "TASK_STATE_OPEN", processing: processingFor(current), stepApproverIds: [] };
    }
  }
}
