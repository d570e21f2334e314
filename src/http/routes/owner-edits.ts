/**
 * Owner edits of apps and entitlements (`c1.api.app.v1.AppOwners` Add, Remove, Set, Delete and
 * `AppEntitlementOwners` Add, Remove, Set, Delete): they replace the world's `ownerUserIds`, so
 * later Hard Resets and new tasks route `appOwners` and `entitlementOwners` approval steps to the
 * new owners. Each answers the API's empty response.
 *
 * Who may: Super Administrators, and Application Administrators on the apps they own
 * (product_admin_user-roles.mdx; `mayManageApp`). Owners named must be users of the world.
 */
import type { App, AppEntitlement, User } from "../../model/directory.js";
import type { JsonObject } from "../../model/json.js";
import { ok, type Result } from "../../result.js";
import { findEntitlement, replaceInWorld, type World } from "../../world/world.js";
import { type HttpFailure, requiredStringProblem } from "../error-body.js";
import { managedApp } from "./managed-app.js";
import { invalid, notFound } from "./refuse.js";

type Body = Readonly<Record<string, unknown>>;

/**
 * A successful owner edit: the next world and the (empty) 200 body.
 *
 * @example
 * ```ts
 * const r = addAppOwner(world, caller, "app-aws", "u-ada");
 * if (r.ok) store.set(r.value.world);
 * ```
 */
export interface OwnerWrite {
  readonly world: World;
  readonly body: JsonObject;
}



function entitlementFor(world: World, caller: User, appId: string, entitlementId: string): Result<AppEntitlement, HttpFailure> {
  const app = managedApp(world, caller, appId);
  if (!app.ok) return app;
  const e = findEntitlement(world, appId, entitlementId);
  return e ? ok(e) : notFound(`entitlement "${entitlementId}" of app "${appId}" not found`);
}

function knownUsers(world: World, ids: readonly string[], field: string): Result<readonly string[], HttpFailure> {
  const unknown = ids.filter((id) => !world.index.users.has(id));
  if (unknown.length > 0) return notFound(`${field}: user${unknown.length > 1 ? "s" : ""} ${unknown.map((id) => `"${id}"`).join(", ")} not found`);
  return ok([...new Set(ids)]);
}

function userIdsOf(world: World, body: Body): Result<readonly string[], HttpFailure> {
  const v = body["userIds"];
  if (v === undefined || v === null) return ok([]);
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string" || x === "")) return invalid("userIds", "userIds must be an array of user ids");
  return knownUsers(world, v as string[], "userIds");
}

const done = (world: World): Result<OwnerWrite, HttpFailure> => ok({ world, body: {} });
const withAppOwners = (world: World, app: App, owners: readonly string[]) => done(replaceInWorld(world, { apps: [{ ...app, ownerUserIds: owners }] }));
const withEntitlementOwners = (world: World, e: AppEntitlement, owners: readonly string[]) =>
  done(replaceInWorld(world, { entitlements: [{ ...e, ownerUserIds: owners }] }));

/**
 * `POST /api/v1/apps/{app_id}/owners/{user_id}`: adds an owner (already one: unchanged).
 *
 * @example
 * ```ts
 * addAppOwner(world, caller, "app-aws", "u-ada"); // ok({ world, body: {} })
 * ```
 */
export function addAppOwner(world: World, caller: User, appId: string, userId: string): Result<OwnerWrite, HttpFailure> {
  const app = managedApp(world, caller, appId);
  if (!app.ok) return app;
  const user = knownUsers(world, [userId], "user_id");
  if (!user.ok) return user;
  return app.value.ownerUserIds.includes(userId) ? done(world) : withAppOwners(world, app.value, [...app.value.ownerUserIds, userId]);
}

/**
 * `DELETE /api/v1/apps/{app_id}/owners/{user_id}`: removes an owner (not one: unchanged).
 *
 * @example
 * ```ts
 * removeAppOwner(world, caller, "app-aws", "u-ada");
 * ```
 */
export function removeAppOwner(world: World, caller: User, appId: string, userId: string): Result<OwnerWrite, HttpFailure> {
  const app = managedApp(world, caller, appId);
  if (!app.ok) return app;
  return withAppOwners(world, app.value, app.value.ownerUserIds.filter((id) => id !== userId));
}

/**
 * `PUT /api/v1/apps/{app_id}/owners`: the owners become `userIds` exactly.
 *
 * @example
 * ```ts
 * setAppOwners(world, caller, "app-aws", { userIds: ["u-ada"] });
 * ```
 */
export function setAppOwners(world: World, caller: User, appId: string, body: Body): Result<OwnerWrite, HttpFailure> {
  const app = managedApp(world, caller, appId);
  if (!app.ok) return app;
  const ids = userIdsOf(world, body);
  return ids.ok ? withAppOwners(world, app.value, ids.value) : ids;
}

/**
 * `DELETE /api/v1/apps/{app_id}/owners`: removes the owners `userIds` names; without any, every
 * owner (README "Assumptions": the OpenAPI says only "deletes the owners").
 *
 * @example
 * ```ts
 * deleteAppOwners(world, caller, "app-aws", { userIds: ["u-ada"] });
 * ```
 */
export function deleteAppOwners(world: World, caller: User, appId: string, body: Body): Result<OwnerWrite, HttpFailure> {
  const app = managedApp(world, caller, appId);
  if (!app.ok) return app;
  const v = body["userIds"];
  if (v !== undefined && v !== null && (!Array.isArray(v) || v.some((x) => typeof x !== "string"))) return invalid("userIds", "userIds must be an array of user ids");
  const gone = new Set(Array.isArray(v) ? (v as string[]) : []);
  return withAppOwners(world, app.value, gone.size === 0 ? [] : app.value.ownerUserIds.filter((id) => !gone.has(id)));
}

/**
 * `POST /api/v1/apps/{app_id}/entitlements/{entitlement_id}/owners` with `{userId}`: adds an owner.
 *
 * @example
 * ```ts
 * addEntitlementOwner(world, caller, "app-aws", "ent-aws-prod-admin", { userId: "u-ada" });
 * ```
 */
export function addEntitlementOwner(world: World, caller: User, appId: string, entitlementId: string, body: Body): Result<OwnerWrite, HttpFailure> {
  const e = entitlementFor(world, caller, appId, entitlementId);
  if (!e.ok) return e;
  const userId = body["userId"];
  const missing = requiredStringProblem("userId", userId, "the user to add as an owner");
  if (missing !== undefined || typeof userId !== "string") return invalid("userId", missing ?? "userId is required");
  const user = knownUsers(world, [userId], "userId");
  if (!user.ok) return user;
  return e.value.ownerUserIds.includes(userId) ? done(world) : withEntitlementOwners(world, e.value, [...e.value.ownerUserIds, userId]);
}

/**
 * `DELETE /api/v1/apps/{app_id}/entitlements/{entitlement_id}/owners/{user_id}`: removes an owner.
 *
 * @example
 * ```ts
 * removeEntitlementOwner(world, caller, "app-aws", "ent-aws-prod-admin", "u-ada");
 * ```
 */
export function removeEntitlementOwner(world: World, caller: User, appId: string, entitlementId: string, userId: string): Result<OwnerWrite, HttpFailure> {
  const e = entitlementFor(world, caller, appId, entitlementId);
  if (!e.ok) return e;
  return withEntitlementOwners(world, e.value, e.value.ownerUserIds.filter((id) => id !== userId));
}

/**
 * `PUT /api/v1/apps/{app_id}/entitlements/{entitlement_id}/owners`: the owners become `userIds`.
 *
 * @example
 * ```ts
 * setEntitlementOwners(world, caller, "app-aws", "ent-aws-prod-admin", { userIds: ["u-ada"] });
 * ```
 */
export function setEntitlementOwners(world: World, caller: User, appId: string, entitlementId: string, body: Body): Result<OwnerWrite, HttpFailure> {
  const e = entitlementFor(world, caller, appId, entitlementId);
  if (!e.ok) return e;
  const ids = userIdsOf(world, body);
  return ids.ok ? withEntitlementOwners(world, e.value, ids.value) : ids;
}

/**
 * `DELETE /api/v1/apps/{app_id}/entitlements/{entitlement_id}/owners`: removes every owner (the
 * request has no fields).
 *
 * @example
 * ```ts
 * deleteEntitlementOwners(world, caller, "app-aws", "ent-aws-prod-admin");
 * ```
 */
export function deleteEntitlementOwners(world: World, caller: User, appId: string, entitlementId: string): Result<OwnerWrite, HttpFailure> {
  const e = entitlementFor(world, caller, appId, entitlementId);
  return e.ok ? withEntitlementOwners(world, e.value, []) : e;
}
