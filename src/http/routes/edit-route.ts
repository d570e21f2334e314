/**
 * One shape for the directory, owner and delegation writes: a route whose handler resolves the
 * caller, runs a pure edit under the store's lock and answers the edit's body.
 */
import type { User } from "../../model/directory.js";
import type { JsonObject } from "../../model/json.js";
import type { ActionContext } from "../../reducers/prelude.js";
import { ok, type Result } from "../../result.js";
import type { World } from "../../world/world.js";
import type { HttpFailure } from "../error-body.js";
import type { HttpMethod, Route, RouteInput } from "../route.js";
import { callerOf } from "./reads-routes.js";

/**
 * What an edit returns: the next world and the 200 body.
 *
 * @example
 * ```ts
 * const w: EditResult = { world, body: { app: appWire(app) } };
 * ```
 */
export interface EditResult {
  readonly world: World;
  readonly body: JsonObject;
}

/**
 * A write route around a pure edit of the world by the calling user (the one the bearer token
 * names). The edit records no audit events: the service's task audit log has no record of these.
 *
 * @example
 * ```ts
 * editRoute("POST", "/api/v1/apps/{id}", "c1.api.app.v1.Apps.Update", (w, caller, input) => updateApp(w, caller, input.params["id"] ?? "", input.body));
 * ```
 */
export function editRoute(
  method: HttpMethod,
  path: string,
  operationId: string,
  edit: (world: World, caller: User, input: RouteInput, ctx: ActionContext) => Result<EditResult, HttpFailure>,
): Route {
  return {
    method,
    path,
    operationId,
    // Every one of these takes an optional JSON body in the OpenAPI, DELETE included (the SDK sends it).
    body: "json",
    handle: (input) =>
      ok({
        kind: "write",
        apply: (world, ctx) => {
          const caller = callerOf(world, ctx.actorId);
          if (!caller.ok) return caller;
          const r = edit(world, caller.value, input, ctx);
          return r.ok ? ok({ world: r.value.world, response: r.value.body, events: [] }) : r;
        },
      }),
  };
}

/**
 * A path parameter of the request, or "" when absent.
 *
 * @example
 * ```ts
 * param(input, "app_id"); // "app-aws"
 * ```
 */
export const param = (input: RouteInput, name: string): string => input.params[name] ?? "";
