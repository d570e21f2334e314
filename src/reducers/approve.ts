/**
 * Approve, Approve with step-up, and Deny: deciding the current approval step.
 *
 * Approving completes the step (`approved`, the caller joins `approverIds`) and the workflow runs on:
 * the next step starts, or, after the last, the task closes with its type's approved outcome. A step
 * with `requiresStepUpProviderId` is approved with step-up only (release note 1): the first call
 * returns a `redirectUrl` to verify at the provider and keeps the comment; the call that carries the
 * verified `stepUpTransactionId` completes the approval, with that comment when it brings none.
 * Denying closes the task with its type's denied outcome (a decertified certify task creates its
 * revoke task).
 */
import type { JsonValue } from "../model/json.js";
import type { AppEntitlementReference, ApprovalInstance, PolicyStepInstance, Task } from "../model/index.js";
import { err, ok, type Result } from "../result.js";
import { completeStep, emit, postComment } from "../workflow/advance.js";
import { readSimulation, withSimulation } from "../workflow/sim-config.js";
import type { World } from "../world/world.js";
import type { Step } from "./comment.js";
import type { SimError } from "./errors.js";
import { requiresDistinctApprovers, taskActionsFor } from "./permissions.js";
import { allowsSelfApproval } from "../workflow/approvers.js";
import type { ActionContext, ExpandMaskInput } from "./prelude.js";
import { pendingStep, taskName } from "./step-checks.js";
import { type ActionSpec, type Called, denied, invalid, precondition, readString, runTaskAction } from "./task-action.js";

/**
 * The Approve and Deny request: the task, an optional comment (required when the step requires a
 * reason), and optionally the id of the step acted on (refused when it is no longer current).
 *
 * @example
 * ```ts
 * const req: DecisionInput = { taskId: "1001", comment: "Needed for the Q4 migration", policyStepId: "" };
 * ```
 */
export interface DecisionInput {
  readonly taskId: string;
  readonly comment?: string;
  readonly policyStepId?: string;
  readonly expandMask?: ExpandMaskInput | null;
}

/**
 * The Approve with step-up request: as {@link DecisionInput}, plus the verified step-up transaction
 * (absent on the first call, which asks for verification).
 *
 * @example
 * ```ts
 * const req: StepUpApproveInput = { taskId: "1021", comment: "ok", stepUpTransactionId: "stu-000042" };
 * ```
 */
export interface StepUpApproveInput extends DecisionInput {
  readonly stepUpTransactionId?: string;
}

interface Decision {
  readonly comment: string;
  readonly policyStepId: string;
  readonly stepUpTransactionId: string;
}

function readDecision(req: Readonly<Record<string, unknown>>): Result<Decision, SimError> {
  const comment = readString(req, "comment");
  if (!comment.ok) return comment;
  const policyStepId = readString(req, "policyStepId");
  if (!policyStepId.ok) return policyStepId;
  const tx = readString(req, "stepUpTransactionId");
  if (!tx.ok) return tx;
  return ok({ comment: comment.value, policyStepId: policyStepId.value, stepUpTransactionId: tx.value });
}

function approval(task: Task, what: string, policyStepId: string) {
  return pendingStep(task, "approval", what, policyStepId);
}

/** The entitlements an approval of the task covers (a request's entitlement). */
function entitlementsOf(task: Task): AppEntitlementReference[] {
  const t = task.type;
  return t?.kind === "grant" ? [{ appEntitlementId: t.appEntitlementId, appId: t.appId }] : [];
}

/** Refuses a caller the task's actions do not list, saying why when the step's settings are the reason. */
function mayDecide(action: string) {
  return (c: Called): SimError | undefined => {
    const inst = c.task.policy?.current?.instance;
    if (taskActionsFor(c.task, c.relation).includes(action)) return undefined;
    // Refused only for being the target user: say so, rather than that they are not an approver.
    if (inst?.kind === "approval" && c.relation.subject && !allowsSelfApproval(inst.approval) && taskActionsFor(c.task, { ...c.relation, subject: false }).includes(action))
      return denied(`user "${c.caller.id}" is the target user of task ${taskName(c.task)}, and this step does not allow self-approval: another user must decide it`);
    if (inst?.kind === "approval" && requiresDistinctApprovers(inst.approval) && c.relation.approver)
      return denied(
        `user "${c.caller.id}" already decided an earlier step of task ${taskName(c.task)}, and this step requires distinct approvers`,
      );
    return denied(`user "${c.caller.id}" may not perform ${action} on task ${taskName(c.task)}: only the current step's approvers and Super Administrators may`);
  };
}

function approve(
  ctx: Parameters<ActionSpec<Decision>["apply"]>[0],
  c: Called,
  step: PolicyStepInstance,
  inst: ApprovalInstance,
  comment: string,
  tx: string,
): { task: Task; ticketActionId: string } {
  const ticketActionId = emit(ctx, c.task.id, c.caller.id, { kind: "approved", policyStepId: step.id, comment, stepUpTransactionId: tx });
  postComment(ctx, c.task, c.caller.id, comment);
  const done: PolicyStepInstance = {
    ...step,
    state: "POLICY_STEP_STATE_DONE",
    instance: {
      ...inst,
      state: "APPROVAL_INSTANCE_STATE_DONE",
      outcome: { kind: "approved", approvedAt: ctx.now, entitlements: entitlementsOf(c.task), stepUpTransactionId: tx, userId: c.caller.id },
    },
  };
  const approverIds = [...(c.task.approverIds ?? []).filter((id) => id !== c.caller.id), c.caller.id];
  return { task: completeStep(ctx, { ...c.task, approverIds, updatedAt: ctx.now }, done), ticketActionId };
}

const approveSpec: ActionSpec<Decision> = {
  action: "",
  ticket: true,
  read: readDecision,
  state: (c, r) => {
    const cur = approval(c.task, "approve", r.policyStepId);
    if (!cur.ok) return cur.error;
    const provider = cur.instance.approval?.requiresStepUpProviderId ?? "";
    if (provider)
      return precondition(`step "${cur.step.id}" of task ${taskName(c.task)} requires step-up verification with "${provider}": use approveWithStepUp`);
    return undefined;
  },
  permitted: mayDecide("TASK_ACTION_TYPE_APPROVE"),
  validate: (c, r) => {
    const inst = c.task.policy?.current?.instance;
    if (inst?.kind === "approval" && inst.approval?.requireApprovalReason && r.comment.trim() === "")
      return invalid(`step requires an approval reason: pass a comment`, "comment");
    return undefined;
  },
  apply: (ctx, c, r) => {
    const cur = approval(c.task, "approve", r.policyStepId);
    if (!cur.ok) return err(cur.error);
    return ok(approve(ctx, c, cur.step, cur.instance, r.comment, ""));
  },
};

const STEP_UP_URL = "https://step-up.policy-sim.invalid";

const approveWithStepUpSpec: ActionSpec<Decision> = {
  action: "",
  ticket: true,
  read: readDecision,
  state: (c, r) => {
    const cur = approval(c.task, "approve with step-up", r.policyStepId);
    if (!cur.ok) return cur.error;
    if (!cur.instance.approval?.requiresStepUpProviderId)
      return precondition(`step "${cur.step.id}" of task ${taskName(c.task)} does not require step-up: use approve`);
    return undefined;
  },
  permitted: mayDecide("TASK_ACTION_TYPE_APPROVE_WITH_STEP_UP"),
  validate: (c, r) => {
    const step = c.task.policy?.current;
    const inst = step?.instance;
    if (inst?.kind !== "approval" || !step) return undefined;
    let comment = r.comment;
    if (r.stepUpTransactionId !== "") {
      const pending = readSimulation(c.world).stepUpTransactions[r.stepUpTransactionId];
      if (!pending || pending.taskId !== c.task.id || pending.policyStepId !== step.id || pending.userId !== c.caller.id)
        return precondition(
          `step-up transaction "${r.stepUpTransactionId}" was not verified by user "${c.caller.id}" for step "${step.id}" of task ${taskName(c.task)}: call approveWithStepUp without it to start a verification`,
        );
      comment = comment || pending.comment;
    }
    // Release note 1: the comment is asked for before the verification, and kept through it.
    if (inst.approval?.requireApprovalReason && comment.trim() === "") return invalid(`step requires an approval reason: pass a comment`, "comment");
    return undefined;
  },
  apply: (ctx, c, r) => {
    const cur = approval(c.task, "approve with step-up", r.policyStepId);
    if (!cur.ok) return err(cur.error);
    const sim = readSimulation(c.world);
    const provider = cur.instance.approval?.requiresStepUpProviderId ?? "";
    if (r.stepUpTransactionId === "") {
      const tx = ctx.ids.take("stu");
      const redirectUrl = `${STEP_UP_URL}/${encodeURIComponent(provider)}/verify?transaction=${tx}`;
      emit(ctx, c.task.id, c.caller.id, {
        kind: "stepUpRequested",
        policyStepId: cur.step.id,
        stepUpProviderId: provider,
        stepUpTransactionId: tx,
        redirectUrl,
      });
      const world: World = withSimulation(c.world, {
        ...sim,
        stepUpTransactions: {
          ...sim.stepUpTransactions,
          [tx]: { taskId: c.task.id, policyStepId: cur.step.id, userId: c.caller.id, providerId: provider, comment: r.comment, createdAt: ctx.now },
        },
      });
      // Nothing is decided yet: the task is unchanged and no action record is created.
      return ok({ task: c.task, ticketActionId: "", extra: { redirectUrl, stepUpTransactionId: tx }, world });
    }
    const pending = sim.stepUpTransactions[r.stepUpTransactionId];
    const comment = r.comment || pending?.comment || "";
    const { [r.stepUpTransactionId]: _used, ...rest } = sim.stepUpTransactions;
    const world = withSimulation(c.world, { ...sim, stepUpTransactions: rest });
    return ok({ ...approve(ctx, c, cur.step, cur.instance, comment, r.stepUpTransactionId), extra: { redirectUrl: "" }, world });
  },
};

const denySpec: ActionSpec<Decision> = {
  action: "",
  ticket: true,
  read: readDecision,
  state: (c, r) => {
    const cur = approval(c.task, "deny", r.policyStepId);
    return cur.ok ? undefined : cur.error;
  },
  permitted: mayDecide("TASK_ACTION_TYPE_DENY"),
  validate: (c, r) => {
    const inst = c.task.policy?.current?.instance;
    if (inst?.kind === "approval" && inst.approval?.requireDenialReason && r.comment.trim() === "")
      return invalid(`step requires a denial reason: pass a comment`, "comment");
    return undefined;
  },
  apply: (ctx, c, r) => {
    const cur = approval(c.task, "deny", r.policyStepId);
    if (!cur.ok) return err(cur.error);
    const ticketActionId = emit(ctx, c.task.id, c.caller.id, { kind: "denied", policyStepId: cur.step.id, comment: r.comment });
    postComment(ctx, c.task, c.caller.id, r.comment);
    const done: PolicyStepInstance = {
      ...cur.step,
      state: "POLICY_STEP_STATE_DONE",
      instance: { ...cur.instance, state: "APPROVAL_INSTANCE_STATE_DONE", outcome: { kind: "denied", deniedAt: ctx.now, userId: c.caller.id } },
    };
    const approverIds = [...(c.task.approverIds ?? []).filter((id) => id !== c.caller.id), c.caller.id];
    const task = completeStep(ctx, { ...c.task, approverIds, updatedAt: ctx.now }, done, "denied");
    return ok({ task, ticketActionId });
  },
};

/**
 * Approves the task's current approval step, as `POST /api/v1/tasks/{task_id}/action/approve`:
 * the workflow runs on to the next step, or closes the task with its approved outcome.
 *
 * Refusals: `FAILED_PRECONDITION` when the task is closed, its current step is not an undecided
 * approval, `policyStepId` is stale, or the step requires step-up; `PERMISSION_DENIED` for a caller
 * who is not the step's approver (nor a Super Administrator) or who decided an earlier step when
 * the step requires distinct approvers; `INVALID_ARGUMENT` when the step requires an approval reason
 * and no comment is given. Events: `approved` (its id is `ticketActionId`), `comment`, then what the
 * workflow does (`stepStarted`, `taskClosed`, `grantAdded`, …).
 *
 * @example
 * ```ts
 * const r = approveTask(world, { taskId: "1001", comment: "ok" }, { actorId: "u-sre-lead" });
 * if (r.ok) world = r.value.world;
 * ```
 */
export function approveTask(world: World, req: DecisionInput, ctx: ActionContext): Result<Step<JsonValue>, SimError> {
  return runTaskAction(world, req, ctx, approveSpec);
}

/**
 * Approves a step that requires step-up, as `POST /api/v1/tasks/{task_id}/action/approve-with-step-up`
 * (release note 1). Without `stepUpTransactionId` nothing is decided: the response carries
 * `redirectUrl` and `stepUpTransactionId` to verify, and the comment is kept. With the verified
 * transaction (same user and step) the step is approved and `stepUpTransactionId` recorded on it.
 * Refusals as {@link approveTask}, plus `FAILED_PRECONDITION` for a transaction this user did not
 * start for this step.
 *
 * @example
 * ```ts
 * const first = approveWithStepUp(world, { taskId: "1021", comment: "EMEA rules" }, { actorId: "u-ciso" });
 * // first.value.response.redirectUrl → verify, then:
 * if (first.ok) {
 *   const done = approveWithStepUp(first.value.world, { taskId: "1021", stepUpTransactionId: "stu-000001" }, { actorId: "u-ciso" });
 * }
 * ```
 */
export function approveWithStepUp(world: World, req: StepUpApproveInput, ctx: ActionContext): Result<Step<JsonValue>, SimError> {
  return runTaskAction(world, req, ctx, approveWithStepUpSpec);
}

/**
 * Denies the task's current approval step, as `POST /api/v1/tasks/{task_id}/action/deny`: the task
 * closes with its type's denied outcome (`GRANT_OUTCOME_DENIED`, `CERTIFY_OUTCOME_DECERTIFIED`, …);
 * a decertified certify task creates its revoke task (`taskCreated`).
 *
 * Refusals as {@link approveTask}; `INVALID_ARGUMENT` when the step requires a denial reason and no
 * comment is given. Events: `denied` (the `ticketActionId`), `comment`, `taskClosed`, effects.
 *
 * @example
 * ```ts
 * const r = denyTask(world, { taskId: "1043", comment: "no longer on the team" }, { actorId: "u-eng-mgr" });
 * ```
 */
export function denyTask(world: World, req: DecisionInput, ctx: ActionContext): Result<Step<JsonValue>, SimError> {
  return runTaskAction(world, req, ctx, denySpec);
}
