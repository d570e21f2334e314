/**
 * What a calling user may do on a task: the task's `actions` and the view's `objectPermissions`,
 * computed from the caller's platform roles and relation to the task. All of the simulation's
 * authorization decisions live here, so they can be read (and changed) in one place.
 *
 * Documented (DOMAIN.md §4): Restart, Hard Reset and Change Policy are for Super Administrators only.
 * Assumed (README, Assumptions): the rest of the table in {@link taskActionsFor}.
 */
import type { RoleKind, User } from "../model/directory.js";
import type { Task } from "../model/index.js";
import type { World } from "../world/world.js";

/**
 * How the caller relates to a task.
 *
 * @example
 * ```ts
 * const r: Relation = { roles: ["USER"], subject: true, requester: false, approver: false, stepApprover: false };
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
  const roles = caller.roleIds.flatMap((id) => {
    const role = world.index.roles.get(id);
    return role ? [role.kind] : [];
  });
  const targetId = task.userId || (task.type && "identityUserId" in task.type ? task.type.identityUserId : "");
  return {
    roles,
    subject: caller.id !== "" && caller.id === targetId,
    requester: caller.id !== "" && caller.id === task.createdByUserId,
    approver: (task.approverIds ?? []).includes(caller.id),
    stepApprover: (task.stepApproverIds ?? []).includes(caller.id),
  };
}

const has = (r: Relation, kind: RoleKind): boolean => r.roles.includes(kind);

/**
 * Whether the caller may read the task: any administrator role, or a person the task concerns.
 *
 * @example
 * ```ts
 * canRead(relationTo(world, task, caller));
 * ```
 */
export function canRead(r: Relation): boolean {
  return (
    has(r, "SUPER_ADMIN") || has(r, "ADMIN") || has(r, "READ_ONLY_ADMIN") || r.subject || r.requester || r.approver || r.stepApprover
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
  return has(r, "SUPER_ADMIN") || has(r, "ADMIN") || has(r, "READ_ONLY_ADMIN") || r.stepApprover || r.approver;
}

/**
 * The `TASK_ACTION_TYPE_*` values the caller may perform on the task now:
 * - COMMENT: anyone who can read the task;
 * - HARD_RESET, RESTART: Super Administrators (documented), on open or closed tasks;
 * - CHANGE_POLICY: Super Administrators, not on request (grant) tasks (documented);
 * - APPROVE, DENY: the current approval step's approvers, while the task is open;
 *   REASSIGN too when the step allows reassignment; SKIP_STEP: Super Administrators on an open task;
 * - CLOSE: the requester, Administrators and Super Administrators, on an open task;
 * - SEND_REMINDER: the requester and administrators while an approval waits;
 * - DELETE: Super Administrators.
 *
 * @example
 * ```ts
 * taskActionsFor(task, relationTo(world, task, caller)); // ["TASK_ACTION_TYPE_COMMENT", …]
 * ```
 */
export function taskActionsFor(task: Task, r: Relation): string[] {
  if (!canRead(r)) return [];
  const actions: string[] = [];
  const open = task.state === "TASK_STATE_OPEN";
  const superAdmin = has(r, "SUPER_ADMIN");
  const admin = superAdmin || has(r, "ADMIN");
  const current = task.policy?.current?.instance ?? null;
  const approvalWaiting = open && current?.kind === "approval";
  if (open && approvalWaiting && r.stepApprover) {
    actions.push("TASK_ACTION_TYPE_APPROVE", "TASK_ACTION_TYPE_DENY");
    if (current.approval?.allowReassignment) actions.push("TASK_ACTION_TYPE_REASSIGN");
  }
  if (open && (r.requester || admin)) actions.push("TASK_ACTION_TYPE_CLOSE");
  actions.push("TASK_ACTION_TYPE_COMMENT");
  if (superAdmin) actions.push("TASK_ACTION_TYPE_DELETE");
  if (superAdmin) actions.push("TASK_ACTION_TYPE_RESTART");
  if (approvalWaiting && (r.requester || admin)) actions.push("TASK_ACTION_TYPE_SEND_REMINDER");
  if (superAdmin) actions.push("TASK_ACTION_TYPE_HARD_RESET");
  if (superAdmin && task.type?.kind !== "grant") actions.push("TASK_ACTION_TYPE_CHANGE_POLICY");
  if (superAdmin && open) actions.push("TASK_ACTION_TYPE_SKIP_STEP");
  return actions;
}

/**
 * The view's `objectPermissions` for the caller.
 *
 * @example
 * ```ts
 * objectPermissionsFor(relationTo(world, task, caller)); // { read: true, edit: false, delete: false, extra: {} }
 * ```
 */
export function objectPermissionsFor(r: Relation): {
  read: boolean;
  edit: boolean;
  delete: boolean;
  extra: Record<string, boolean>;
} {
  const superAdmin = has(r, "SUPER_ADMIN");
  return {
    read: canRead(r),
    edit: superAdmin || has(r, "ADMIN"),
    delete: superAdmin,
    extra: {},
  };
}
