/**
 * The route table of the HTTP face, grouped by the API service each group serves. A group is a
 * list of routes in its own file; this table is where a group joins.
 */
import type { Route } from "../route.js";
import { TASK_ACTION_ROUTES } from "./task-actions.js";

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
];
