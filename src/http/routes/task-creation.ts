/**
 * Task creation of the task service (`c1.api.task.v1.TaskService.Create*Task`): `POST
 * /api/v1/task/grant`, `/task/revoke`, `/task/offboarding`. Each new task resolves its policy and
 * selects its steps as a Hard Reset would (`src/reducers/create-task.ts`).
 */
import type { JsonValue } from "../../model/json.js";
import { createGrantTask, createOffboardingTask, createRevokeTask } from "../../reducers/create-task.js";
import type { Step } from "../../reducers/comment.js";
import type { SimError } from "../../reducers/errors.js";
import type { ActionContext } from "../../reducers/prelude.js";
import { ok, type Result } from "../../result.js";
import type { World } from "../../world/world.js";
import type { Route } from "../route.js";

type Creator = (world: World, req: never, ctx: ActionContext) => Result<Step<JsonValue>, SimError>;

function creation(name: string, operation: string, create: Creator): Route {
  return {
    method: "POST",
    path: `/api/v1/task/${name}`,
    operationId: `c1.api.task.v1.TaskService.${operation}`,
    body: "json",
    handle: (input) => ok({ kind: "write", apply: (world, ctx) => create(world, input.body as never, ctx) }),
  };
}

/**
 * The task-creation routes.
 *
 * @example
 * ```ts
 * TASK_CREATION_ROUTES.map((r) => r.path); // ["/api/v1/task/grant", "/api/v1/task/revoke", "/api/v1/task/offboarding"]
 * ```
 */
export const TASK_CREATION_ROUTES: readonly Route[] = [
  creation("grant", "CreateGrantTask", createGrantTask),
  creation("revoke", "CreateRevokeTask", createRevokeTask),
  creation("offboarding", "CreateOffboardingTask", createOffboardingTask),
];
