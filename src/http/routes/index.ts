/**
 * The route table of the HTTP face, grouped by the API service each group serves. A group is a
 * list of routes in its own file; this table is where a group joins.
 */
import type { Route } from "../route.js";
import { AUTH_ROUTES } from "./auth.js";
import { DELEGATION_ROUTES } from "./delegation.js";
import { DIRECTORY_WRITE_ROUTES } from "./directory-writes.js";
import { OWNER_WRITE_ROUTES } from "./owners.js";
import { POLICY_WRITE_ROUTES } from "./policies.js";
import { DIRECTORY_ROUTES, POLICY_READ_ROUTES, TASK_READ_ROUTES, TENANT_READ_ROUTES } from "./reads-routes.js";
import { TASK_ACTION_ROUTES } from "./task-actions.js";
import { TASK_CREATION_ROUTES } from "./task-creation.js";

/**
 * Every route served, by API service.
 *
 * @example
 * ```ts
 * ROUTES.some((r) => r.operationId === "c1.api.task.v1.TaskActionsService.HardReset"); // true
 * ```
 */
export const ROUTES: readonly Route[] = [
  // c1.api.task.v1.TaskActionsService
  ...TASK_ACTION_ROUTES,
  // c1.api.task.v1.TaskService: creating tasks
  ...TASK_CREATION_ROUTES,
  // c1.api.task.v1.TaskService, TaskSearchService, TaskAudit
  ...TASK_READ_ROUTES,
  // c1.api.user.v1.*, c1.api.app.v1.*
  ...DIRECTORY_ROUTES,
  // c1.api.iam.v1.Roles, c1.api.accessreview.v1.AccessReviewService
  ...TENANT_READ_ROUTES,
  // c1.api.app.v1.AppOwners, AppEntitlementOwners: writes
  ...OWNER_WRITE_ROUTES,
  // c1.api.app.v1.Apps.Update, AppEntitlements.Update
  ...DIRECTORY_WRITE_ROUTES,
  // c1.api.user.v1.UserService: an administrator sets a user's delegate
  ...DELEGATION_ROUTES,
  // c1.api.policy.v1.Policies, PolicySearch, PolicyValidate
  ...POLICY_READ_ROUTES,
  ...POLICY_WRITE_ROUTES,
  // OAuth token endpoint, c1.api.auth.v1.Auth
  ...AUTH_ROUTES,
];
