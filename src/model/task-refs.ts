/**
 * What a task refers to, read the same way everywhere (conditions, approvers, permissions, views).
 */
import type { Task } from "./task.js";

/**
 * The task's target user: `userId`, else the identity user of its type (offboarding: the subject).
 * The spec lets `userId` be empty when the target is an app user with no known identity user.
 *
 * @example
 * ```ts
 * taskSubjectId(task); // "u-contractor"
 * ```
 */
export function taskSubjectId(task: Task): string {
  if (task.userId) return task.userId;
  const t = task.type;
  if (!t) return "";
  switch (t.kind) {
    case "grant":
    case "revoke":
    case "certify":
      return t.identityUserId;
    case "offboarding":
      return t.subjectUserId;
    default:
      return "";
  }
}

/**
 * The app and entitlement a grant, revoke or certify task is about; empty strings otherwise.
 *
 * @example
 * ```ts
 * taskEntitlementRef(task); // { appId: "app-aws", entitlementId: "ent-aws-prod-admin", appUserId: "" }
 * ```
 */
export function taskEntitlementRef(task: Task): { readonly appId: string; readonly entitlementId: string; readonly appUserId: string } {
  const t = task.type;
  if (t && (t.kind === "grant" || t.kind === "revoke" || t.kind === "certify"))
    return { appId: t.appId, entitlementId: t.appEntitlementId, appUserId: t.appUserId };
  return { appId: "", entitlementId: "", appUserId: "" };
}

/**
 * The access review a certify task belongs to: `accessReviewId`, else `accessReviewSelection` (the
 * spec: "id of the access review object owning the task"), which some exports carry alone.
 *
 * @example
 * ```ts
 * certifyReviewId({ accessReviewId: "", accessReviewSelection: "ar-1" }); // "ar-1"
 * ```
 */
export function certifyReviewId(t: { readonly accessReviewId: string; readonly accessReviewSelection: string }): string {
  return t.accessReviewId || t.accessReviewSelection;
}
