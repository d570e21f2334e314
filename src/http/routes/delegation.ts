/**
 * `c1.api.user.v1.UserService.SetExpiringUserDelegationBindingByAdmin`, bound to its OpenAPI path.
 * A write under the store's lock, so tasks created afterwards see the delegate.
 */
import { ok } from "../../result.js";
import type { Route } from "../route.js";
import { setDelegationByAdmin } from "./delegation-edits.js";
import { callerOf } from "./reads-routes.js";

/**
 * The delegation route.
 *
 * @example
 * ```ts
 * DELEGATION_ROUTES[0]?.path; // "/api/v1/users/{user_id}/set-delegation-by-admin"
 * ```
 */
export const DELEGATION_ROUTES: readonly Route[] = [
  {
    method: "POST",
    path: "/api/v1/users/{user_id}/set-delegation-by-admin",
    operationId: "c1.api.user.v1.UserService.SetExpiringUserDelegationBindingByAdmin",
    body: "json",
    handle: (input) =>
      ok({
        kind: "write",
        apply: (world, ctx) => {
          const caller = callerOf(world, ctx.actorId);
          if (!caller.ok) return caller;
          const r = setDelegationByAdmin(world, caller.value, input.params["user_id"] ?? "", input.body, ctx.now ?? world.now);
          return r.ok ? ok({ world: r.value.world, response: r.value.body, events: [] }) : r;
        },
      }),
  },
];
