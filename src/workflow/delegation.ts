/**
 * Delegation windows (product_admin_delegate.mdx): a user's delegate is permanent or temporary, with
 * a start and an end, and only tasks created while the delegate is set are redirected to it; tasks
 * already open keep their original assignee.
 *
 * The service's User object carries `delegatedUserId` only; the window comes from its expiring
 * delegation binding (`SetExpiringUserDelegationBindingByAdminRequest`: `delegationStartAt`,
 * `delegationExpireAt`). A world file writes those two fields on the user next to `delegatedUserId`;
 * the loader keeps them among the user's unknown fields and this module is their only reader.
 * A delegate without `delegationStartAt` is taken as set before every task (README, Assumptions).
 */
import type { User } from "../model/directory.js";

/**
 * When a user's delegation is in force: RFC 3339 timestamps, `null` for an open end.
 *
 * @example
 * ```ts
 * const w: DelegationWindow = { delegatedUserId: "u-sre-lead", startAt: "2026-11-20T00:00:00Z", expireAt: null };
 * ```
 */
export interface DelegationWindow {
  readonly delegatedUserId: string;
  readonly startAt: string | null;
  readonly expireAt: string | null;
}

/** The user fields (beside `delegatedUserId`) that hold the window, as the service names them. */
export const DELEGATION_START_FIELD = "delegationStartAt";
export const DELEGATION_EXPIRE_FIELD = "delegationExpireAt";

function timestampField(user: User, key: string): string | null {
  const v = user.$unknown?.[key];
  return typeof v === "string" && v !== "" && Number.isFinite(Date.parse(v)) ? v : null;
}

/**
 * A user's delegation and its window; `null` when the user has no delegate.
 *
 * @example
 * ```ts
 * delegationWindow(world.index.users.get("u-eng-mgr")!)?.delegatedUserId; // "u-sre-lead"
 * ```
 */
export function delegationWindow(user: User): DelegationWindow | null {
  if (!user.delegatedUserId) return null;
  return {
    delegatedUserId: user.delegatedUserId,
    startAt: timestampField(user, DELEGATION_START_FIELD),
    expireAt: timestampField(user, DELEGATION_EXPIRE_FIELD),
  };
}

/**
 * The delegate who takes a task created at `taskCreatedAt`, or why nobody does: a task created
 * before the delegation started, or after it ended, stays with the user. An unreadable creation time
 * counts as inside the window.
 *
 * @example
 * ```ts
 * const d = delegateFor(user, task.createdAt ?? "");
 * if (d.delegateId) console.log("redirected to", d.delegateId);
 * ```
 */
export function delegateFor(user: User, taskCreatedAt: string): { readonly delegateId: string; readonly note: string } {
  const w = delegationWindow(user);
  if (!w) return { delegateId: "", note: "" };
  const created = Date.parse(taskCreatedAt);
  if (Number.isFinite(created)) {
    if (w.startAt !== null && created < Date.parse(w.startAt))
      return { delegateId: "", note: `${user.id}: delegate ${w.delegatedUserId} set from ${w.startAt}, after the task was created (${taskCreatedAt})` };
    if (w.expireAt !== null && created >= Date.parse(w.expireAt))
      return { delegateId: "", note: `${user.id}: delegation to ${w.delegatedUserId} ended at ${w.expireAt}, before the task was created (${taskCreatedAt})` };
  }
  return { delegateId: w.delegatedUserId, note: "" };
}
