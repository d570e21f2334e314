/**
 * `c1.api.app.v1.AppUserService.Update`: an account's type and the user it belongs to, the two
 * fields the service lets a client write ("only the appUserType, and identityUserId fields can be
 * updated", openapi.yaml). Both change what the simulation decides: a task's CEL `account` is the
 * account the task names, else its subject's account in the task's app (`findAppUserOf`, which
 * follows `identityUserId`), and its type is among the account's fields.
 * Who may: as for the app's updates (`managedApp`).
 */
import type { AppUser, User } from "../../model/directory.js";
import { ok, type Result } from "../../result.js";
import { buildIndex, type World } from "../../world/world.js";
import type { HttpFailure } from "../error-body.js";
import { type DirectoryWrite, type FieldKind, patchOf } from "./directory-edits.js";
import { managedApp } from "./managed-app.js";
import { appUserViewExpanded } from "./app-user-search.js";
import { invalid, notFound } from "./refuse.js";

type Body = Readonly<Record<string, unknown>>;

/** The account types the OpenAPI lists. */
const APP_USER_TYPES: ReadonlySet<string> = new Set(["APP_USER_TYPE_UNSPECIFIED", "APP_USER_TYPE_USER", "APP_USER_TYPE_SERVICE_ACCOUNT", "APP_USER_TYPE_SYSTEM_ACCOUNT"]);
/** The only fields the API lets a client write. */
const APP_USER_FIELDS = { appUserType: "string", identityUserId: "string" } as const satisfies Readonly<Record<string, FieldKind>>;

/**
 * `POST /api/v1/apps/{app_user_app_id}/app_users/{app_user_id}`: `{appUser, updateMask}` →
 * `{appUserView, expanded}` (`expandMask` as the account search reads it). `appUserType` is one of the OpenAPI's four; `identityUserId` a user
 * of the world, or `""` to unlink the account.
 *
 * @example
 * ```ts
 * updateAppUser(world, admin, "app-aws", "au-aws-dev2", { appUser: { appUserType: "APP_USER_TYPE_SERVICE_ACCOUNT" }, updateMask: "appUserType" });
 * ```
 */
export function updateAppUser(world: World, caller: User, appId: string, appUserId: string, body: Body): Result<DirectoryWrite, HttpFailure> {
  const app = managedApp(world, caller, appId);
  if (!app.ok) return app;
  const index = world.appUsers.findIndex((a) => a.id === appUserId && a.appId === appId);
  const current = world.appUsers[index];
  if (!current) return notFound(`app user "${appUserId}" of app "${appId}" not found`);
  const values = patchOf(world, body, "appUser", appUserId, APP_USER_FIELDS);
  if (!values.ok) return values;
  let next: AppUser = current;
  const type = values.value["appUserType"];
  if (typeof type === "string") {
    if (!APP_USER_TYPES.has(type)) return invalid("appUser.appUserType", `appUser.appUserType must be one of ${[...APP_USER_TYPES].join(", ")}, not "${type}"`);
    next = { ...next, appUserType: type };
  }
  const user = values.value["identityUserId"];
  if (typeof user === "string") {
    if (user !== "" && !world.index.users.has(user)) return invalid("appUser.identityUserId", `appUser.identityUserId names user "${user}", who does not exist`);
    next = { ...next, identityUserId: user };
  }
  if (next === current) return answered(world, current, body);
  const appUsers = Object.freeze(world.appUsers.map((a, i) => (i === index ? next : a)));
  const parts = { ...world, appUsers };
  return answered(Object.freeze({ ...parts, index: buildIndex(parts, world) }), next, body);
}

/** The written world and its answer, the account expanded as the request's `expandMask` asks. */
function answered(world: World, account: AppUser, body: Body): Result<DirectoryWrite, HttpFailure> {
  const view = appUserViewExpanded(world, account, body);
  return view.ok ? ok({ world, body: view.value }) : view;
}
