/**
 * Reassign: hand the current approval step to other users. The step must allow reassignment (Super
 * Administrators may always), the new users must be among `allowedReassignees` when the step lists
 * any, a reason is required when the step says so, and delegation applies to the new users as it
 * does to the step's own approvers (`allowDelegation`: a user who delegated is replaced by the
 * delegate). The old step ends `reassigned` and a new approval step, the same definition with the
 * new users as approvers, takes its place.
 */
import type { JsonValue } from "../model/json.js";
import type { Approval, PolicyStepInstance } from "../model/index.js";
import { err, ok, type Result } from "../result.js";
import { advance, emit, finishCurrent, postComment } from "../workflow/advance.js";
import { resolveApprovers } from "../workflow/approvers.js";
import { escalationInstance } from "../workflow/instantiate.js";
import type { World } from "../world/world.js";
import type { Step } from "./comment.js";
import type { SimError } from "./errors.js";
import type { ActionContext, ExpandMaskInput } from "./prelude.js";
import { pendingStep } from "./step-checks.js";
import { type ActionSpec, invalid, readString, readStrings, runTaskAction } from "./task-action.js";

/**
 * The Reassign request: the users who review the step from now on, a comment, and optionally the
 * id of the step acted on.
 *
 * @example
 * ```ts
 * const req: ReassignInput = { taskId: "1043", newStepUserIds: ["u-cto"], comment: "Lena is on leave" };
 * ```
 */
export interface ReassignInput {
  readonly taskId: string;
  readonly newStepUserIds: readonly string[];
  readonly comment?: string;
  readonly policyStepId?: string;
  readonly expandMask?: ExpandMaskInput | null;
}

interface Req {
  readonly newStepUserIds: readonly string[];
  readonly comment: string;
  readonly policyStepId: string;
}

function reassigned(approval: Approval, userIds: readonly string[]): Approval {
  const old = approval.approvers;
  const allowSelfApproval = old !== null && "allowSelfApproval" in old ? old.allowSelfApproval : false;
  const requireDistinctApprovers = old !== null && "requireDistinctApprovers" in old ? old.requireDistinctApprovers : false;
  return { ...approval, approvers: { kind: "users", allowSelfApproval, requireDistinctApprovers, userIds } };
}

const spec: ActionSpec<Req> = {
  action: "TASK_ACTION_TYPE_REASSIGN",
  ticket: true,
  read: (req) => {
    const users = readStrings(req, "newStepUserIds");
    if (!users.ok) return users;
    const comment = readString(req, "comment");
    if (!comment.ok) return comment;
    const policyStepId = readString(req, "policyStepId");
    if (!policyStepId.ok) return policyStepId;
    return ok({ newStepUserIds: users.value, comment: comment.value, policyStepId: policyStepId.value });
  },
  state: (c, r) => {
    const cur = pendingStep(c.task, "approval", "reassign", r.policyStepId);
    return cur.ok ? undefined : cur.error;
  },
  validate: (c, r) => {
    const inst = c.task.policy?.current?.instance;
    if (inst?.kind !== "approval" || !inst.approval) return undefined;
    const a = inst.approval;
    if (r.newStepUserIds.length === 0) return invalid("newStepUserIds must name at least one user", "newStepUserIds");
    const unknown = r.newStepUserIds.filter((id) => !c.world.index.users.has(id));
    if (unknown.length > 0) return invalid(`not users of this world: ${unknown.join(", ")}`, "newStepUserIds");
    const allowed = a.allowedReassignees ?? [];
    const outside = r.newStepUserIds.filter((id) => !allowed.includes(id));
    if (allowed.length > 0 && outside.length > 0)
      return invalid(`${outside.join(", ")} ${outside.length > 1 ? "are" : "is"} not among the step's allowed reassignees (${allowed.join(", ")})`, "newStepUserIds");
    if (a.requireReassignmentReason && r.comment.trim() === "") return invalid("step requires a reassignment reason: pass a comment", "comment");
    const resolution = resolveApprovers(c.world, c.task, reassigned(a, r.newStepUserIds), () => ({ ok: true, value: [] }));
    // Only the new users themselves count: a last-resort route (Super Administrators) is not theirs.
    if (resolution.via !== "primary" && resolution.via !== "selfApproved")
      return invalid(`none of the new users may review this step: ${resolution.notes.join("; ")}`, "newStepUserIds");
    return undefined;
  },
  apply: (ctx, c, r) => {
    const cur = pendingStep(c.task, "approval", "reassign", r.policyStepId);
    if (!cur.ok) return err(cur.error);
    const definition = cur.instance.approval;
    if (!definition) return err(invalid("the step has no approval definition to reassign", "policyStepId"));
    const newId = ctx.ids.take("step");
    const ticketActionId = emit(ctx, c.task.id, c.caller.id, {
      kind: "reassigned",
      policyStepId: cur.step.id,
      newPolicyStepId: newId,
      newStepUserIds: r.newStepUserIds,
      comment: r.comment,
    });
    postComment(ctx, c.task, c.caller.id, r.comment);
    const done: PolicyStepInstance = {
      ...cur.step,
      state: "POLICY_STEP_STATE_DONE",
      instance: {
        ...cur.instance,
        state: "APPROVAL_INSTANCE_STATE_DONE",
        outcome: { kind: "reassigned", newPolicyStepId: newId, reassignedAt: ctx.now, userId: c.caller.id },
      },
    };
    const next: PolicyStepInstance = {
      id: newId,
      policyGenerationId: cur.step.policyGenerationId,
      state: "POLICY_STEP_STATE_ACTIVE",
      instance: {
        kind: "approval",
        approval: reassigned(definition, r.newStepUserIds),
        state: "APPROVAL_INSTANCE_STATE_WAITING",
        assignedAt: ctx.now,
        // The SLA fires "if no action has been taken on the task when the time elapses" (policies
        // page): a reassignment is an action, so the new reviewers get the step's full time from
        // now. An SLA that already fired on the step does not fire again.
        escalationInstance: cur.instance.escalationInstance?.alreadyEscalated ? cur.instance.escalationInstance : escalationInstance(definition, ctx.now),
        outcome: null,
      },
    };
    const finished = finishCurrent({ ...c.task, updatedAt: ctx.now }, done);
    const task = advance(ctx, { ...finished, policy: finished.policy ? { ...finished.policy, current: next } : null });
    return ok({ task, ticketActionId });
  },
};

/**
 * Reassigns the current approval step, as `POST /api/v1/tasks/{task_id}/action/reassign`.
 *
 * Refusals: `FAILED_PRECONDITION` when the current step is not an undecided approval (or
 * `policyStepId` is stale); `PERMISSION_DENIED` when the step does not allow reassignment or the
 * caller is not its approver (Super Administrators may always); `INVALID_ARGUMENT` for no or unknown
 * users, users outside `allowedReassignees`, a missing required reason, or users who may not review
 * (the target without self-approval, inactive users). Events: `reassigned` (the
 * `ticketActionId`), `comment`, `stepStarted`.
 *
 * @example
 * ```ts
 * reassignTask(world, { taskId: "1043", newStepUserIds: ["u-cto"], comment: "on leave" }, { actorId: "u-eng-mgr" });
 * ```
 */
export function reassignTask(world: World, req: ReassignInput, ctx: ActionContext): Result<Step<JsonValue>, SimError> {
  return runTaskAction(world, req, ctx, spec);
}
