/**
 * The task view a task endpoint returns (spec, "TaskView" and "Expand mask").
 */
import type { UnknownFields } from "./common.js";
import type { Task } from "./task.js";

/**
 * A task with the caller's permissions on it and, for each related object, a JSONPath into the
 * response's `expanded` array (`""` when not expanded).
 *
 * @example
 * ```ts
 * const canEdit = (v: TaskView) => v.objectPermissions?.edit === true;
 * ```
 */
export interface TaskView {
  readonly task: Task | null;
  readonly objectPermissions: ActorObjectPermissions | null;
  readonly accessReviewPath: string;
  readonly appPath: string;
  readonly appUserPath: string;
  readonly appUserLastUsagePath: string;
  /** Users who approved or denied the task. */
  readonly approversPath: string;
  readonly createdByUserPath: string;
  readonly entitlementsPath: string;
  /** The identity user targeted when the target is an app user. */
  readonly identityUserPath: string;
  readonly insightsPath: string;
  /** The resource under review in a resource-principal certify task. */
  readonly principalResourcePath: string;
  readonly resourceBindingsPath: string;
  /** The role resource of a scope-role action task. */
  readonly roleResourcePath: string;
  /** The scope resource of a scope-role action task. */
  readonly scopeResourcePath: string;
  readonly stepApproversPath: string;
  /** The direct target user with no app-user relationship. */
  readonly userPath: string;
  readonly $unknown?: UnknownFields;
}

/**
 * The `…Path` properties of a {@link TaskView}, in the spec's order.
 *
 * @example
 * ```ts
 * const set = TASK_VIEW_PATHS.filter((k) => view[k] !== "");
 * ```
 */
export const TASK_VIEW_PATHS = [
  "accessReviewPath",
  "appPath",
  "appUserPath",
  "appUserLastUsagePath",
  "approversPath",
  "createdByUserPath",
  "entitlementsPath",
  "identityUserPath",
  "insightsPath",
  "principalResourcePath",
  "resourceBindingsPath",
  "roleResourcePath",
  "scopeResourcePath",
  "stepApproversPath",
  "userPath",
] as const satisfies readonly (keyof TaskView)[];

/**
 * Name of one `…Path` property of a {@link TaskView}.
 *
 * @example
 * ```ts
 * const k: TaskViewPath = "appPath";
 * ```
 */
export type TaskViewPath = (typeof TASK_VIEW_PATHS)[number];

/**
 * What the calling user may do on an object.
 *
 * @example
 * ```ts
 * const p: ActorObjectPermissions = { read: true, edit: false, delete: false, extra: { comment: true } };
 * ```
 */
export interface ActorObjectPermissions {
  readonly read: boolean;
  readonly edit: boolean;
  readonly delete: boolean;
  readonly extra: Readonly<Record<string, boolean>> | null;
  readonly $unknown?: UnknownFields;
}

/**
 * Which related objects a response should expand.
 *
 * @example
 * ```ts
 * const m: TaskExpandMask = { paths: ["user_id", "app_id"] };
 * ```
 */
export interface TaskExpandMask {
  /** `*` or any of {@link KNOWN_TASK_EXPAND_PATHS}; other strings are kept. */
  readonly paths: readonly string[] | null;
  readonly $unknown?: UnknownFields;
}

/**
 * The expand-mask paths the spec allows.
 *
 * @example
 * ```ts
 * KNOWN_TASK_EXPAND_PATHS.includes("app_id"); // true
 * ```
 */
export const KNOWN_TASK_EXPAND_PATHS = [
  "*",
  "access_review_id",
  "user_id",
  "created_by_user_id",
  "app_id",
  "app_user_id",
  "app_entitlement_ids",
  "step_approver_ids",
  "approver_ids",
  "identity_user_id",
  "insight_ids",
  "app_user_last_usage",
  "entitlement_scope_bindings",
  "scope_role_resources",
  "resource",
] as const;
