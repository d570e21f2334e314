/**
 * `c1.api.user.v1.UserService.SetExpiringUserDelegationBindingByAdmin`, bound to its OpenAPI path.
 * A write under the store's lock, so tasks created afterwards see the delegate.
 */
import type { Route } from "../route.js";
import { setDelegationByAdmin } from "./delegation-edits.js";
import { editRoute, param } from "./edit-route.js";

/**
 * The delegation route.
 *
 * @example
 * ```ts
 * DELEGATION_ROUTES[0]?.path; // "/api/v1/users/{user_id}/set-delegation-by-admin"
 * ```
 */
export const DELEGATION_ROUTES: readonly Route[] = [
  editRoute("POST", "/api/v1/users/{user_id}/set-delegation-by-admin", "c1.api.user.v1.UserService.SetExpiringUserDelegationBindingByAdmin", (world, caller, input, ctx) =>
    setDelegationByAdmin(world, caller, param(input, "user_id"), input.body, ctx.now ?? world.now),
  ),
];
