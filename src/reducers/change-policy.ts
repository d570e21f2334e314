/**
 * Change Policy and Escalate to Emergency Access: putting a task on another policy.
 *
 * Change Policy (Super Administrators; not on request tasks, docs/domain.md §4) puts an open task on a
 * named policy of the matching type. Escalate to Emergency Access turns an open request into an
 * emergency-access request: `emergencyAccess` becomes true and the entitlement's emergency policy
 * applies (docs/domain.md §3). Both retire the running and pending steps as `restarted`, issue a new
 * `policyGenerationId`, reset decisions and run the new policy from its first step.
 */
import type { JsonValue } from "../model/json.js";
import type { Task } from "../model/index.js";
import { decide } from "../policy/decide.js";
import { EMERGENCY_SOURCES, emergencyGrantsEnabled, resolvePolicy } from "../policy/resolve-policy.js";
import { err, ok, type Result } from "../result.js";
import { emit, postComment } from "../workflow/advance.js";
import { restartOn, selectOn } from "../workflow/restart.js";
import { findEntitlement, type World } from "../world/world.js";
import type { Step } from "./comment.js";
import type { SimError } from "./errors.js";
import type { ActionContext, ExpandMaskInput } from "./prelude.js";
import { mustBeOpen, taskName } from "./step-checks.js";
import { type ActionSpec, invalid, precondition, readString, runTaskAction } from "./task-action.js";

/**
 * The policy types a task of each kind may be put on (assumed from the service's policy types: an
 * offboarding runs a provision policy, action and finding tasks an access-request policy).
 *
 * @example
 * ```ts
 * POLICY_TYPES_BY_TASK_KIND.revoke; // ["POLICY_TYPE_REVOKE"]
 * ```
 */
export const POLICY_TYPES_BY_TASK_KIND: Readonly<Record<string, readonly string[]>> = {
  grant: ["POLICY_TYPE_GRANT", "POLICY_TYPE_ACCESS_REQUEST"],
  revoke: ["POLICY_TYPE_REVOKE"],
  certify: ["POLICY_TYPE_CERTIFY"],
  offboarding: ["POLICY_TYPE_PROVISION"],
  action: ["POLICY_TYPE_ACCESS_REQUEST"],
  finding: ["POLICY_TYPE_ACCESS_REQUEST"],
};

/**
 * The Change Policy request.
 *
 * @example
 * ```ts
 * const req: ChangePolicyInput = { taskId: "1036", policyId: "pol-revoke-critical" };
 * ```
 */
export interface ChangePolicyInput {
  readonly taskId: string;
  readonly policyId: string;
  readonly comment?: string;
  readonly expandMask?: ExpandMaskInput | null;
}

/**
 * The Escalate to Emergency Access request.
 *
 * @example
 * ```ts
 * const req: EscalateInput = { taskId: "1001", comment: "SEV-1 in progress" };
 * ```
 */
export interface EscalateInput {
  readonly taskId: string;
  readonly comment?: string;
  /** The current step escalated from (openapi.yaml); when given and not the current step, FAILED_PRECONDITION (someone acted first). */
  readonly policyStepId?: string;
  readonly expandMask?: ExpandMaskInput | null;
}

interface ChangeReq {
  readonly policyId: string;
  readonly comment: string;
}

const changeSpec: ActionSpec<ChangeReq> = {
  action: "TASK_ACTION_TYPE_CHANGE_POLICY",
  ticket: true,
  read: (req) => {
    const policyId = readString(req, "policyId");
    if (!policyId.ok) return policyId;
    if (policyId.value === "") return err(invalid("policyId is required: the policy to put the task on", "policyId"));
    const comment = readString(req, "comment");
    if (!comment.ok) return comment;
    return ok({ policyId: policyId.value, comment: comment.value });
  },
  state: (c) => {
    if (c.task.type?.kind === "grant") return precondition(`Change Policy is not available on request tasks (task ${taskName(c.task)} is a grant)`);
    return mustBeOpen(c.task, "change the policy of");
  },
  validate: (c, r) => {
    const policy = c.world.index.policies.get(r.policyId);
    if (!policy) return invalid(`policy "${r.policyId}" does not exist`, "policyId");
    const kind = c.task.type?.kind ?? "unknown";
    const allowed = POLICY_TYPES_BY_TASK_KIND[kind];
    if (allowed && !allowed.includes(policy.policyType))
      return invalid(`policy "${r.policyId}" is a ${policy.policyType} policy; a ${kind} task takes ${allowed.join(" or ")}`, "policyId");
    return undefined;
  },
  apply: (ctx, c, r) => {
    const policy = c.world.index.policies.get(r.policyId);
    if (!policy) return err(invalid(`policy "${r.policyId}" does not exist`, "policyId"));
    const ticketActionId = emit(ctx, c.task.id, c.caller.id, { kind: "policyChanged", oldPolicyId: c.task.policy?.policy?.id ?? "", newPolicyId: policy.id });
    postComment(ctx, c.task, c.caller.id, r.comment);
    const selection = selectOn(ctx, c.task, policy);
    if (!selection.ok) return err(precondition(`cannot put task ${taskName(c.task)} on policy "${policy.id}": ${selection.error}`));
    const task = restartOn(ctx, c.task, { policy, steps: selection.value.steps, newGeneration: true, userId: c.caller.id });
    return ok({ task, ticketActionId });
  },
};

function emergencyState(world: World, task: Task): SimError | undefined {
  const closed = mustBeOpen(task, "escalate");
  if (closed) return closed;
  const t = task.type;
  if (t?.kind !== "grant") return precondition(`only access requests can be escalated to emergency access (task ${taskName(task)} is ${t ? `a ${t.kind}` : "untyped"})`);
  if (task.emergencyAccess) return precondition(`task ${taskName(task)} is already an emergency-access request`);
  const ent = findEntitlement(world, t.appId, t.appEntitlementId);
  // Enabled by the entitlement, a configuration rule or its resource type's request defaults: the
  // sources an emergency request is routed by.
  if (!ent || !emergencyGrantsEnabled(world, ent))
    return precondition(
      `entitlement "${t.appEntitlementId}" of app "${t.appId}" does not enable emergency grants (neither itself, a configuration rule nor its resource type's request defaults), so task ${taskName(task)} cannot be escalated`,
    );
  const routed = resolvePolicy(world, { ...task, emergencyAccess: true });
  if (!routed.ok || !EMERGENCY_SOURCES.has(routed.value.source)) {
    const why = (routed.ok ? routed.value.checks : routed.error.checks).filter((c) => EMERGENCY_SOURCES.has(c.source) && c.status !== "notApplicable").map((c) => c.detail);
    return precondition(`emergency grants are on for entitlement "${t.appEntitlementId}", but no emergency policy applies to task ${taskName(task)}: ${why.join("; ") || "none is set"}`);
  }
  return undefined;
}

const escalateSpec: ActionSpec<{ readonly comment: string; readonly policyStepId: string }> = {
  action: "TASK_ACTION_TYPE_ESCALATE_TO_EMERGENCY_ACCESS",
  ticket: true,
  read: (req) => {
    const comment = readString(req, "comment");
    if (!comment.ok) return comment;
    // openapi.yaml: "The ID of the current policy step being escalated from."
    const policyStepId = readString(req, "policyStepId");
    return policyStepId.ok ? ok({ comment: comment.value, policyStepId: policyStepId.value }) : policyStepId;
  },
  state: (c) => emergencyState(c.world, c.task),
  apply: (ctx, c, r) => {
    const current = c.task.policy?.current?.id ?? "";
    if (r.policyStepId !== "" && r.policyStepId !== current)
      return err(precondition(`cannot escalate task ${taskName(c.task)} from step "${r.policyStepId}": the current step is "${current}" (someone acted first?)`));
    const emergency: Task = { ...c.task, emergencyAccess: true };
    const decision = decide(ctx.world, emergency);
    if (!decision.resolution.ok) return err(precondition(decision.resolution.error.message));
    const policy = decision.resolution.value.policy;
    const oldPolicyId = c.task.policy?.policy?.id ?? "";
    const ticketActionId = emit(ctx, c.task.id, c.caller.id, { kind: "escalatedToEmergencyAccess", oldPolicyId, oldPolicyStepId: current, newPolicyId: policy.id });
    if (oldPolicyId !== policy.id) emit(ctx, c.task.id, c.caller.id, { kind: "policyChanged", oldPolicyId, newPolicyId: policy.id });
    postComment(ctx, c.task, c.caller.id, r.comment);
    const selection = selectOn(ctx, emergency, policy);
    if (!selection.ok) return err(precondition(`cannot put task ${taskName(c.task)} on emergency policy "${policy.id}": ${selection.error}`));
    const task = restartOn(ctx, emergency, { policy, steps: selection.value.steps, newGeneration: true, userId: c.caller.id });
    return ok({ task, ticketActionId });
  },
};

/**
 * Puts a task on another policy, as `POST /api/v1/tasks/{task_id}/action/change-policy`.
 *
 * Refusals: `FAILED_PRECONDITION` on a request (grant) task or a closed task; `PERMISSION_DENIED`
 * for anyone but a Super Administrator; `INVALID_ARGUMENT` for a missing or unknown `policyId` or a
 * policy of another type. Events: `policyChanged` (the `ticketActionId`), `comment`, the rule
 * evaluations, then the workflow's.
 *
 * @example
 * ```ts
 * changePolicy(world, { taskId: "1036", policyId: "pol-revoke-critical" }, { actorId: "u-it-dir" });
 * ```
 */
export function changePolicy(world: World, req: ChangePolicyInput, ctx: ActionContext): Result<Step<JsonValue>, SimError> {
  return runTaskAction(world, req, ctx, changeSpec);
}

/**
 * Escalates an open request to emergency access, as
 * `POST /api/v1/tasks/{task_id}/action/escalate-emergency`: the entitlement's emergency policy
 * applies from its first step.
 *
 * Refusals: `FAILED_PRECONDITION` for a closed task, a non-request task, a task already emergency,
 * or an entitlement without emergency grants; `PERMISSION_DENIED` for anyone but the requester, the
 * target and administrators. Events: `escalatedToEmergencyAccess` (the `ticketActionId`),
 * `policyChanged`, `comment`, the rule evaluations, then the workflow's.
 *
 * @example
 * ```ts
 * escalateToEmergencyAccess(world, { taskId: "1001", comment: "SEV-1" }, { actorId: "u-contractor" });
 * ```
 */
export function escalateToEmergencyAccess(world: World, req: EscalateInput, ctx: ActionContext): Result<Step<JsonValue>, SimError> {
  return runTaskAction(world, req, ctx, escalateSpec);
}
