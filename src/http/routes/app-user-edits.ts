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
import type { DirectoryWrite } from "./directory-edits.js";
import { managedApp } from "./managed-app.js";
import { appUserView } from "./reads.js";
import { invalid, notFound } from "./refuse.js";

type Body = Readonly<Record<string, unknown>>;

/** The account types the OpenAPI lists. */
const APP_USER_TYPES: ReadonlySet<string> = new Set(["APP_USER_TYPE_UNSPECIFIED", "APP_USER_TYPE_USER", "APP_USER_TYPE_SERVICE_ACCOUNT", "APP_USER_TYPE_SYSTEM_ACCOUNT"]);
const WRITABLE = ["appUserType", "identityUserId"] as const;
type Writable = (typeof WRITABLE)[number];

const camel = (s: string): string => s.trim().replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** The fields the mask names (camelCase or snake_case); with none, the writable fields the object sets. */
function maskOf(mask: unknown, appUser: Body): Result<readonly Writable[], HttpFailure> {
  let paths: string[];
  if (mask === undefined || mask === null || mask === "") paths = WRITABLE.filter((f) => appUser[f] !== undefined);
  else if (typeof mask === "string") paths = mask.split(",").map(camel).filter((p) => p !== "");
  else return invalid("updateMask", 'updateMask must be a field mask: a comma-separated string such as "appUserType"');
  for (const p of paths)
    if (!(WRITABLE as readonly string[]).includes(p)) return invalid("updateMask", `updateMask names "${p}": only appUserType and identityUserId can be updated`);
  return ok(paths as Writable[]);
}

/**
 * `POST /api/v1/apps/{app_user_app_id}/app_users/{app_user_id}`: `{appUser, updateMask}` →
 * `{appUserView, expanded: []}`. `appUserType` is one of the OpenAPI's four; `identityUserId` a user
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
  const patch = body["appUser"];
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) return invalid("appUser", "appUser is required: the fields to write");
  const fields = patch as Body;
  const id = fields["id"];
  if (typeof id === "string" && id !== "" && id !== appUserId) return invalid("appUser.id", `appUser.id "${id}" does not match the path's "${appUserId}"`);
  const paths = maskOf(body["updateMask"], fields);
  if (!paths.ok) return paths;
  let next: AppUser = current;
  for (const p of paths.value) {
    const v = fields[p] ?? "";
    if (typeof v !== "string") return invalid(`appUser.${p}`, `appUser.${p} must be a string`);
    if (p === "appUserType") {
      if (!APP_USER_TYPES.has(v)) return invalid("appUser.appUserType", `appUser.appUserType must be one of ${[...APP_USER_TYPES].join(", ")}, not "${v}"`);
      next = { ...next, appUserType: v };
    } else {
      if (v !== "" && !world.index.users.has(v)) return invalid("appUser.identityUserId", `appUser.identityUserId names user "${v}", who does not exist`);
      next = { ...next, identityUserId: v };
    }
  }
  if (next === current) return ok({ world, body: { appUserView: appUserView(current), expanded: [] } });
  const appUsers = Object.freeze(world.appUsers.map((a, i) => (i === index ? next : a)));
  const parts = { ...world, appUsers };
  return ok({ world: Object.freeze({ ...parts, index: buildIndex(parts, world) }), body: { appUserView: appUserView(next), expanded: [] } });
}
