/**
 * What a calling user may do on a task: the task's `actions` and the view's `objectPermissions`,
 * computed from the caller's platform roles and relation to the task. All of the simulation's
 * authorization decisions live here, so they can be read (and changed) in one place.
 *
 * Documented: the roles (product_admin_user-roles.mdx); Cancel, Delete, Restart, Hard Reset, Change
 * Policy, Skip step and Process now are Super Administrator actions
 * (product_how-to_access-change-tasks.mdx); requesters cancel their own requests; a task is reassigned
 * only where its step allows it, by Super Administrators too (user-roles page); campaign managers
 * restart, reassign and remove their campaign's review tasks (product_admin_manage-campaigns.mdx).
 * Assumed (README, Assumptions): the rest of the table in {@link taskActionsFor}.
 */
import type { AccessReview, App, RoleKind, User } from "../model/directory.js";
import { taskSubjectId, certifyReviewId } from "../model/task-refs.js";
import type { Approval, ProvisionInstance, StepInstance, Task } from "../model/index.js";
import { taskConditions } from "../policy/task-conditions.js";
import { emergencyGrantsEnabled } from "../policy/resolve-policy.js";
import { allowsSelfApproval } from "../workflow/approvers.js";
import { isManual, manualProvisioners } from "../workflow/provisioners.js";
import { findEntitlement, type World } from "../world/world.js";

/**
 * How the caller relates to a task.
 *
 * @example
 * ```ts
 * const r: Relation = { roles: ["BASIC_USER"], subject: true, requester: false, approver: false, stepApprover: false };
 * ```
 */
export interface Relation {
  readonly roles: readonly RoleKind[];
  /** The caller is the task's target user. */
  readonly subject: boolean;
  /** The caller created the task. */
  readonly requester: boolean;
  /** The caller approved or denied a step of the task. */
  readonly approver: boolean;
  /** The caller may review the current step. */
  readonly stepApprover: boolean;
  /**
   * The task is a request for an entitlement that enables emergency grants (so it may be escalated
   * to emergency access). Absent when unknown: the action is then offered and the reducer decides.
   */
  readonly emergencyGrantEnabled?: boolean;
  /**
   * The task is an access review (certify task) of a campaign the caller owns: a campaign manager
   * (product_admin_manage-campaigns.mdx). Absent means no.
   */
  readonly campaignManager?: boolean;
  /** The caller was assigned the manual provision step whose failure the task records. Absent means no. */
  readonly failedProvisioner?: boolean;
}

/**
 * The platform role kinds a user holds.
 *
 * @example
 * ```ts
 * rolesOf(world, world.index.users.get("u-it-dir")!); // ["SUPER_ADMIN"]
 * ```
 */
export function rolesOf(world: World, user: User): RoleKind[] {
  // A loop, not flatMap: every task action asks this twice or more.
  const kinds: RoleKind[] = [];
  for (const id of user.roleIds) {
    const role = world.index.roles.get(id);
    if (role) kinds.push(role.kind);
  }
  return kinds;
}

/** Whether the user provisions the task's last, errored, manual provision step (who retries it). */
function assignedFailedProvisioning(world: World, task: Task, userId: string): boolean {
  const last = (task.policy?.history ?? []).at(-1)?.instance;
  if (userId === "" || last?.kind !== "provision" || !failedOutcome(last)) return false;
  const policy = last.provision?.provisionPolicy ?? null;
  return isManual(policy) && manualProvisioners(world, task, policy, taskConditions(world, task).expressions).includes(userId);
}

/**
 * Whether the user performs the task's current manual provision step. A task started by the
 * simulation lists its provisioners in `stepApproverIds`; a task exported from the service may not.
 */
function isManualProvisioner(world: World, task: Task, userId: string): boolean {
  const inst = task.policy?.current?.instance;
  if (task.state !== "TASK_STATE_OPEN" || inst?.kind !== "provision" || inst.outcome !== null) return false;
  const policy = inst.provision?.provisionPolicy ?? null;
  if (!isManual(policy)) return false;
  return manualProvisioners(world, task, policy, taskConditions(world, task).expressions).includes(userId);
}

/**
 * The caller's roles and relation to a task.
 *
 * @example
 * ```ts
 * relationTo(world, task, world.index.users.get("u-ada")!).subject; // true if Ada is the target
 * ```
 */
export function relationTo(world: World, task: Task, caller: User): Relation {
  const roles = rolesOf(world, caller);
  const targetId = taskSubjectId(task);
  const t = task.type;
  const campaignManager = t?.kind === "certify" && caller.id !== "" && (world.index.accessReviews.get(certifyReviewId(t))?.ownerUserIds?.includes(caller.id) ?? false);
  // Worked out when first read: it may evaluate configuration rules (CEL), and only the escalate
  // action asks — a search that reads the relation of 100k tasks must not pay it for each.
  let emergency: boolean | undefined;
  return {
    roles,
    get emergencyGrantEnabled(): boolean {
      if (emergency === undefined) {
        const ent = t?.kind === "grant" ? findEntitlement(world, t.appId, t.appEntitlementId) : undefined;
        emergency = ent !== undefined && emergencyGrantsEnabled(world, ent);
      }
      return emergency;
    },
    campaignManager,
    failedProvisioner: assignedFailedProvisioning(world, task, caller.id),
    subject: caller.id !== "" && caller.id === targetId,
    requester: caller.id !== "" && caller.id === task.createdByUserId,
    approver: (task.approverIds ?? []).includes(caller.id),
    stepApprover: (task.stepApproverIds ?? []).includes(caller.id) || isManualProvisioner(world, task, caller.id),
  };
}

/**
 * The caller's relation to a task after a step change that kept its subject, requester, type and
 * entitlement (a Hard Reset, a restart): `before` is the relation to the task as it was, in the same
 * directory. Only what follows from the steps (approvers, step approvers) is worked out again; the
 * roles and the entitlement lookup are `before`'s.
 *
 * @example
 * ```ts
 * const after = relationAfterSteps(next, reset, caller, relationTo(world, task, caller));
 * ```
 */
export function relationAfterSteps(world: World, task: Task, caller: User, before: Relation): Relation {
  return {
    roles: before.roles,
    get emergencyGrantEnabled(): boolean {
      return before.emergencyGrantEnabled ?? false;
    },
    campaignManager: before.campaignManager ?? false,
    subject: before.subject,
    requester: before.requester,
    approver: (task.approverIds ?? []).includes(caller.id),
    stepApprover: (task.stepApproverIds ?? []).includes(caller.id) || isManualProvisioner(world, task, caller.id),
  };
}

const has = (r: Relation, kind: RoleKind): boolean => r.roles.includes(kind);

/**
 * Whether the caller completes the tasks assigned to them (approve, deny, provision, fill a form) and
 * makes requests: every role includes the Basic User's powers except the Read-Only Administrator's;
 * "users assigned only this role cannot complete tasks, request access" (user-roles page). A user
 * with no role holds Basic User, the role every user is given on first sign-in (same page).
 *
 * @example
 * ```ts
 * completesTasks({ roles: ["READ_ONLY_ADMIN"], subject: false, requester: false, approver: false, stepApprover: true }); // false
 * ```
 */
export function completesTasks(r: Pick<Relation, "roles">): boolean {
  return r.roles.length === 0 || r.roles.some((k) => k !== "READ_ONLY_ADMIN");
}

/**
 * The roles that read every task: the Super Administrator and the Read-Only Administrator (the task
 * log, user-roles page). Anyone else reads only the tasks that concern them ({@link canRead}).
 *
 * @example
 * ```ts
 * READS_EVERY_TASK.has("READ_ONLY_ADMIN"); // true
 * ```
 */
export const READS_EVERY_TASK: ReadonlySet<string> = new Set<RoleKind>(["SUPER_ADMIN", "READ_ONLY_ADMIN"]);

/**
 * Whether the caller may read the task: a role of {@link READS_EVERY_TASK}, a person the task
 * concerns, or the manager of its campaign.
 *
 * @example
 * ```ts
 * canRead(relationTo(world, task, caller));
 * ```
 */
export function canRead(r: Relation): boolean {
  return (
    r.roles.some((k) => READS_EVERY_TASK.has(k)) ||
    r.subject ||
    r.requester ||
    r.approver ||
    r.stepApprover ||
    r.failedProvisioner === true ||
    r.campaignManager === true
  );
}

/**
 * Whether the caller sees the task's internal fields (policy definition, analysis, insights); a
 * requester or target who is not an administrator does not (spec: hidden, not emptied).
 *
 * @example
 * ```ts
 * seesInternals(relationTo(world, task, caller)); // false for a plain requester
 * ```
 */
export function seesInternals(r: Relation): boolean {
  return has(r, "SUPER_ADMIN") || has(r, "READ_ONLY_ADMIN") || r.stepApprover || r.approver;
}

/**
 * Whether the caller may sync an app (the simulation's connector sync): Super Administrators,
 * Connector Administrators (who manage all connectors), and Application Administrators who own the
 * app (they manage the connectors of their apps), per the user-roles page.
 *
 * @example
 * ```ts
 * maySyncApp(rolesOf(world, caller), caller.id, world.index.apps.get("app-aws")!);
 * ```
 */
export function maySyncApp(roles: readonly RoleKind[], callerId: string, app: App | undefined): boolean {
  if (roles.includes("SUPER_ADMIN") || roles.includes("CONNECTOR_ADMIN")) return true;
  return roles.includes("APPLICATION_ADMIN") && app !== undefined && callerId !== "" && app.ownerUserIds.includes(callerId);
}

/**
 * Whether the caller may manage an app and its entitlements (their owners, say): the user-roles
 * page gives "Applications: view, create, manage" to Super Administrators, and to Application
 * Administrators for "the applications that they own".
 *
 * @example
 * ```ts
 * mayManageApp(rolesOf(world, caller), caller.id, world.index.apps.get("app-aws"));
 * ```
 */
export function mayManageApp(roles: readonly RoleKind[], callerId: string, app: App | undefined): boolean {
  if (roles.includes("SUPER_ADMIN")) return true;
  return roles.includes("APPLICATION_ADMIN") && app !== undefined && callerId !== "" && app.ownerUserIds.includes(callerId);
}

/**
 * Whether the caller may create a campaign (`review` undefined) or manage one: the user-roles page
 * gives "Campaigns: view, create, manage" to Super Administrators, and to Campaign Administrators
 * for "the campaigns that they own".
 *
 * @example
 * ```ts
 * mayManageCampaign(rolesOf(world, caller), caller.id, world.index.accessReviews.get("ar-2026-q3"));
 * ```
 */
export function mayManageCampaign(roles: readonly RoleKind[], callerId: string, review: AccessReview | undefined): boolean {
  if (roles.includes("SUPER_ADMIN")) return true;
  if (!roles.includes("CAMPAIGN_ADMIN")) return false;
  return review === undefined || (callerId !== "" && (review.ownerUserIds ?? []).includes(callerId));
}

/**
 * Whether the caller may report the outcome of an action step, standing in for the system that runs
 * it: Super Administrators, who manage every task (user-roles page).
 *
 * @example
 * ```ts
 * mayReportActionOutcome(relationTo(world, task, caller));
 * ```
 */
export function mayReportActionOutcome(r: Relation): boolean {
  return has(r, "SUPER_ADMIN");
}

/**
 * Whether the caller may create and edit policies: the user-roles page gives "Policies: view,
 * create, manage" to Super Administrators only (Read-Only Administrators view them).
 *
 * @example
 * ```ts
 * mayEditPolicies(rolesOf(world, caller));
 * ```
 */
export function mayEditPolicies(roles: readonly RoleKind[]): boolean {
  return roles.includes("SUPER_ADMIN");
}

/** Whether the caller manages the campaign of this review task (restart, reassign, remove it). */
function managesCampaignOf(task: Task, r: Relation): boolean {
  return r.campaignManager === true && task.type?.kind === "certify";
}

/** Whether a step instance already has its outcome (then nobody acts on it any more). */
function decided(i: StepInstance): boolean {
  switch (i.kind) {
    case "approval":
    case "form":
    case "provision":
    case "wait":
    case "action":
      return i.outcome !== null;
    case "accept":
    case "reject":
      return true;
    case "unknown":
      return false;
    default: {
      const never: never = i;
      return never;
    }
  }
}

/**
 * Whether a provision step ended in failure: `errored` (a manual step its provisioner reported
 * failed, or a task exported so), or `reassignedByError` (a system's step handed to manual
 * provisioning because it failed).
 */
function failedOutcome(i: ProvisionInstance): boolean {
  const kind = i.outcome?.kind;
  return kind === "errored" || kind === "reassignedByError";
}

/**
 * Whether the task's provisioning failed, with the errored provision step last in its history: open
 * on its manual fallback step, or closed with its error outcome. What Retry Provisioning acts on
 * (release note 2, product_how-to_access-change-tasks.mdx).
 *
 * @example
 * ```ts
 * provisioningFailed(findTask(world, "1019")!); // true
 * ```
 */
export function provisioningFailed(task: Task): boolean {
  const last = (task.policy?.history ?? []).at(-1)?.instance;
  if (last?.kind !== "provision" || !failedOutcome(last)) return false;
  // Open: the current step is the manual fallback of the failed one (product_admin_provisioning.mdx).
  const current = task.policy?.current?.instance;
  if (task.state === "TASK_STATE_OPEN") return current?.kind === "provision" && current.outcome === null;
  const t = task.type;
  return task.state === "TASK_STATE_CLOSED" && !!t && t.kind !== "unknown" && t.outcome.endsWith("_ERROR");
}

/**
 * Whether a step can end `skipped`: the spec gives approval, wait, form and provision instances a
 * `skipped` outcome (accept, reject and action steps have none), and openapi.yaml's SkipStep is
 * "Skip a specific policy step in a task, advancing the task to the next step".
 *
 * @example
 * ```ts
 * skippable(task.policy.current.instance); // true for a waiting form step
 * ```
 */
export function skippable(i: StepInstance): i is Extract<StepInstance, { readonly kind: "approval" | "wait" | "form" | "provision" }> {
  return i.kind === "approval" || i.kind === "wait" || i.kind === "form" || i.kind === "provision";
}

/**
 * The `TASK_ACTION_TYPE_*` values the caller may perform on the task now (docs/workflow.md has the
 * table with the reasons). "Completes tasks" is {@link completesTasks}; a campaign manager is an
 * owner of a review task's campaign.
 * - COMMENT: anyone who can read the task and makes changes ({@link completesTasks}): not a user
 *   holding only the Read-Only Administrator role, who has "visibility into C1 without the ability
 *   to make changes" (user-roles page);
 * - CLOSE (Cancel): Super Administrators on an open task (access-change-tasks page), and the
 *   requester on their own open request (grant or revoke task they created);
 * - DELETE, RESTART: Super Administrators (access-change-tasks page), and campaign managers on their
 *   campaign's review tasks (manage-campaigns page), on open or closed tasks;
 * - HARD_RESET, SKIP_STEP (a waiting approval, wait, form or provision step), PROCESS_NOW (a waiting wait step):
 *   Super Administrators (access-change-tasks page);
 * - CHANGE_POLICY: Super Administrators, not on request (grant) tasks (access-change-tasks page);
 * - APPROVE (APPROVE_WITH_STEP_UP when the step requires step-up), DENY: on an undecided approval
 *   step, its approvers who complete tasks and Super Administrators, except an approver who already
 *   decided an earlier step when the step requires distinct approvers ("a user who approved an
 *   earlier step in the workflow cannot approve this step", policies page; Super Administrators
 *   too, unless the step was routed to them for want of a distinct approver), and except the target user
 *   when the step does not allow self-approval (release notes, Feb 2023 and 2024);
 * - REASSIGN: only when the approval step allows reassignment (policies page), by its approvers,
 *   Super Administrators ("when doing so is allowed by the task's governing policy", user-roles
 *   page) and, on review tasks, campaign managers;
 * - SEND_REMINDER: the requester, Super Administrators and campaign managers while an approval waits;
 * - PROVISION_COMPLETE / _CANCELLED / _ERRORED: on an undecided provision step, its manual
 *   provisioners (the step approvers) who complete tasks, and Super Administrators (who manage
 *   every task and stand in for a connector);
 * - RETRY_PROVISIONING: Super Administrators and the provisioners it is assigned to (of the manual
 *   fallback, or of the manual step that failed), on a task whose provisioning failed;
 * - ESCALATE_TO_EMERGENCY_ACCESS: the requester and the target (who complete tasks) and Super
 *   Administrators, on an open request that is not emergency access yet and whose entitlement
 *   enables emergency grants;
 * - UPDATE_REQUEST_DATA (form completion): the requester and the target (who complete tasks) and
 *   Super Administrators, while a form step waits;
 * - UPDATE_GRANT_DURATION: the current approval step's approvers (who complete tasks) and Super
 *   Administrators, on an open grant task whose current step is not a provision step
 *   (product_how-to_access-change-tasks.mdx: a reviewer may change the duration before deciding).
 *
 * @example
 * ```ts
 * taskActionsFor(task, relationTo(world, task, caller)); // ["TASK_ACTION_TYPE_COMMENT", …]
 * ```
 */
export function taskActionsFor(task: Task, r: Relation): string[] {
  if (!canRead(r) || task.deletedAt) return [];
  const actions: string[] = [];
  const open = task.state === "TASK_STATE_OPEN";
  const superAdmin = has(r, "SUPER_ADMIN");
  const completes = completesTasks(r);
  const campaign = managesCampaignOf(task, r);
  const kind = task.type?.kind;
  const current = task.policy?.current?.instance ?? null;
  const pending = open && current !== null && !decided(current) ? current : null;
  const approval = pending?.kind === "approval" ? pending : null;
  const stepApprover = r.stepApprover && completes;
  // The router puts someone who decided an earlier step on a distinct step only as the last resort
  // (no distinct approver anywhere, approvers.ts): then they decide it; otherwise nobody who did may.
  const distinctBlocked = approval !== null && requiresDistinctApprovers(approval.approval) && r.approver && !r.stepApprover;
  // The target user never decides a step that does not allow self-approval, whatever their roles.
  const selfBlocked = approval !== null && r.subject && !allowsSelfApproval(approval.approval);
  if (approval && !distinctBlocked && !selfBlocked && (stepApprover || superAdmin))
    actions.push(approval.approval?.requiresStepUpProviderId ? "TASK_ACTION_TYPE_APPROVE_WITH_STEP_UP" : "TASK_ACTION_TYPE_APPROVE", "TASK_ACTION_TYPE_DENY");
  if (approval?.approval?.allowReassignment && ((stepApprover && !distinctBlocked) || superAdmin || campaign)) actions.push("TASK_ACTION_TYPE_REASSIGN");
  if (open && (superAdmin || (r.requester && completes && (kind === "grant" || kind === "revoke")))) actions.push("TASK_ACTION_TYPE_CLOSE");
  if (completes) actions.push("TASK_ACTION_TYPE_COMMENT");
  if (superAdmin || campaign) actions.push("TASK_ACTION_TYPE_DELETE", "TASK_ACTION_TYPE_RESTART");
  if (approval && (r.requester || superAdmin || campaign)) actions.push("TASK_ACTION_TYPE_SEND_REMINDER");
  if (pending?.kind === "provision" && (stepApprover || superAdmin))
    actions.push("TASK_ACTION_TYPE_PROVISION_COMPLETE", "TASK_ACTION_TYPE_PROVISION_CANCELLED", "TASK_ACTION_TYPE_PROVISION_ERRORED");
  // The provisioner the failed (or fallback) provisioning is assigned to retries it (access-change-tasks page).
  if ((superAdmin || ((r.stepApprover || r.failedProvisioner === true) && completes)) && provisioningFailed(task))
    actions.push("TASK_ACTION_TYPE_RETRY_PROVISIONING");
  if (superAdmin) actions.push("TASK_ACTION_TYPE_HARD_RESET");
  if (superAdmin && kind !== "grant") actions.push("TASK_ACTION_TYPE_CHANGE_POLICY");
  if (superAdmin && pending !== null && skippable(pending)) actions.push("TASK_ACTION_TYPE_SKIP_STEP");
  if (
    open &&
    kind === "grant" &&
    !task.emergencyAccess &&
    (((r.requester || r.subject) && completes) || superAdmin) &&
    // Last: it may evaluate configuration rules.
    r.emergencyGrantEnabled !== false
  )
    actions.push("TASK_ACTION_TYPE_ESCALATE_TO_EMERGENCY_ACCESS");
  if (superAdmin && pending?.kind === "wait") actions.push("TASK_ACTION_TYPE_PROCESS_NOW");
  if (pending?.kind === "form" && (((r.requester || r.subject) && completes) || superAdmin)) actions.push("TASK_ACTION_TYPE_UPDATE_REQUEST_DATA");
  if (open && kind === "grant" && current?.kind !== "provision" && ((approval && r.stepApprover && completes) || superAdmin))
    actions.push("TASK_ACTION_TYPE_UPDATE_GRANT_DURATION");
  return actions;
}

/**
 * Whether `action` is among {@link taskActionsFor}`(task, r)`. Comment, Hard Reset, Restart and
 * Delete depend only on who the caller is and whether the task is deleted, and are answered without
 * listing every action (each task action checks its own before it acts).
 *
 * @example
 * ```ts
 * mayPerform(task, relationTo(world, task, caller), "TASK_ACTION_TYPE_HARD_RESET"); // Super Administrators
 * ```
 */
export function mayPerform(task: Task, r: Relation, action: string): boolean {
  switch (action) {
    case "TASK_ACTION_TYPE_COMMENT":
      return canRead(r) && !task.deletedAt && completesTasks(r);
    case "TASK_ACTION_TYPE_HARD_RESET":
      return canRead(r) && !task.deletedAt && has(r, "SUPER_ADMIN");
    case "TASK_ACTION_TYPE_RESTART":
    case "TASK_ACTION_TYPE_DELETE":
      return canRead(r) && !task.deletedAt && (has(r, "SUPER_ADMIN") || managesCampaignOf(task, r));
    default:
      return taskActionsFor(task, r).includes(action);
  }
}

/**
 * Who may perform a task action, for a refusal's message ("" when nothing useful can be said).
 *
 * @example
 * ```ts
 * whoMay("TASK_ACTION_TYPE_HARD_RESET"); // "Super Administrators only"
 * ```
 */
export function whoMay(action: string): string {
  switch (action) {
    case "TASK_ACTION_TYPE_HARD_RESET":
    case "TASK_ACTION_TYPE_CHANGE_POLICY":
    case "TASK_ACTION_TYPE_SKIP_STEP":
    case "TASK_ACTION_TYPE_PROCESS_NOW":
      return "Super Administrators only";
    case "TASK_ACTION_TYPE_RETRY_PROVISIONING":
      return "Super Administrators and the provisioners of the failed provisioning";
    case "TASK_ACTION_TYPE_RESTART":
    case "TASK_ACTION_TYPE_DELETE":
      return "Super Administrators only, and a review task's campaign managers";
    case "TASK_ACTION_TYPE_CLOSE":
      return "Super Administrators, and the requester on their own request";
    case "TASK_ACTION_TYPE_COMMENT":
      return "those who may read the task, except users holding only the Read-Only Administrator role (who make no changes)";
    case "TASK_ACTION_TYPE_APPROVE":
    case "TASK_ACTION_TYPE_APPROVE_WITH_STEP_UP":
    case "TASK_ACTION_TYPE_DENY":
      return "only the current step's approvers and Super Administrators";
    case "TASK_ACTION_TYPE_REASSIGN":
      return "the step does not allow reassignment, or the caller is not its approver";
    case "TASK_ACTION_TYPE_PROVISION_COMPLETE":
    case "TASK_ACTION_TYPE_PROVISION_CANCELLED":
    case "TASK_ACTION_TYPE_PROVISION_ERRORED":
      return "only the step's provisioners and Super Administrators";
    default:
      return "";
  }
}

/**
 * Whether an approval step requires distinct approvers: someone who decided an earlier step of the
 * task may not decide this one.
 *
 * @example
 * ```ts
 * requiresDistinctApprovers(step.approval); // true for { users: { requireDistinctApprovers: true } }
 * ```
 */
export function requiresDistinctApprovers(approval: Approval | null): boolean {
  const k = approval?.approvers;
  return k !== null && k !== undefined && "requireDistinctApprovers" in k && k.requireDistinctApprovers;
}

/**
 * The view's `objectPermissions` for the caller: `delete` exactly when {@link taskActionsFor} offers
 * DELETE (Super Administrators, and the managers of the task's campaign), so that the two never
 * disagree; `edit` for Super Administrators. Without `task`, as for a task of no campaign.
 *
 * @example
 * ```ts
 * objectPermissionsFor(relationTo(world, task, caller), task); // { read: true, edit: false, delete: false, extra: {} }
 * ```
 */
export function objectPermissionsFor(
  r: Relation,
  task?: Task,
): {
  read: boolean;
  edit: boolean;
  delete: boolean;
  extra: Record<string, boolean>;
} {
  const superAdmin = has(r, "SUPER_ADMIN");
  const read = canRead(r);
  return {
    read,
    edit: superAdmin,
    // As taskActionsFor: nothing on a task the caller cannot read or that is deleted.
    delete: task === undefined ? superAdmin : read && !task.deletedAt && (superAdmin || managesCampaignOf(task, r)),
    extra: {},
  };
}
