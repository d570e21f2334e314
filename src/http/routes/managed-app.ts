/**
 * Who may change an app and what hangs off it (its entitlements, owners, configuration rules,
 * request defaults): one check for every directory write.
 */
import type { App, User } from "../../model/directory.js";
import { mayManageApp, rolesOf } from "../../reducers/permissions.js";
import { err, ok, type Result } from "../../result.js";
import type { World } from "../../world/world.js";
import { refusal, type HttpFailure } from "../error-body.js";

/**
 * The app `appId` if `caller` may manage it (Super Administrators, or Application Administrators who
 * own it: product_admin_user-roles.mdx); otherwise NOT_FOUND or PERMISSION_DENIED.
 *
 * @example
 * ```ts
 * const app = managedApp(world, caller, "app-aws");
 * if (!app.ok) return app;
 * ```
 */
export function managedApp(world: World, caller: User, appId: string): Result<App, HttpFailure> {
  const app = world.index.apps.get(appId);
  if (!app) return err(refusal("NOT_FOUND", `app "${appId}" not found`));
  if (!mayManageApp(rolesOf(world, caller), caller.id, app))
    return err(refusal("PERMISSION_DENIED", `user "${caller.id}" may not manage app "${appId}" (Super Administrators, or Application Administrators who own it)`));
  return ok(app);
}
