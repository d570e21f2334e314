/**
 * Manually managed memberships of an entitlement (`c1.api.app.v1.AppEntitlements.AddManuallyManagedMembers`,
 * `RemoveEntitlementMembership`): the grants the service tracks itself rather than syncs from the
 * app. They change what the simulation decides: the CEL directory answers whether a user holds an
 * entitlement from the world's grants (`world/cel-directory.ts`), so a policy that asks sees the
 * membership on the next Hard Reset or new task. The service adds members as a bulk action; the
 * simulation adds them at once and answers the action's id. Who may: as for the entitlement's
 * updates (`managedApp`).
 */
import type { AppUser, Grant, User } from "../../model/directory.js";
import { err, ok, type Result } from "../../result.js";
import { buildIndex, findAppUserOf, findEntitlement, grantKeyOf, takeIds, type World } from "../../world/world.js";
import { type HttpFailure, requiredStringProblem } from "../error-body.js";
import type { DirectoryWrite } from "./directory-edits.js";
import { managedApp } from "./managed-app.js";
import { invalid, notFound } from "./refuse.js";
import { userBinding } from "./reads.js";
import { isRealTimestamp, utcTimestamp } from "../../codec/schema.js";

type Body = Readonly<Record<string, unknown>>;

/** The account a new manual member gets in an app where they have none: their directory names. */
function accountFor(user: User, appId: string, id: string): AppUser {
  return {
    id,
    appId,
    identityUserId: user.id,
    displayName: user.displayName,
    email: user.email,
    username: user.username,
    appUserType: "APP_USER_TYPE_USER",
    // The world file's spelling, as the sample's accounts (the API's STATUS_* reads the same: cel/enums.ts).
    status: { status: "APP_USER_STATUS_ENABLED", details: "" },
    profile: {},
  };
}

/**
 * `POST /api/v1/apps/{app_id}/entitlements/{app_entitlement_id}/add-manual-user`: `{userIds}` →
 * `{bulkActionId, failedUsersErrorMap}`. Each user of the world who does not hold the entitlement
 * gets a direct grant of it (and an account in the app if they have none); a user who already holds
 * it is left as is; an id that names no user is answered in `failedUsersErrorMap`.
 *
 * @example
 * ```ts
 * const r = addManualMembers(world, admin, "app-aws", "ent-aws-billing", { userIds: ["u-dev2"] });
 * if (r.ok) store.set(r.value.world); // r.value.body: { bulkActionId: "bulk-000057", failedUsersErrorMap: {} }
 * ```
 */
export function addManualMembers(world: World, caller: User, appId: string, entitlementId: string, body: Body): Result<DirectoryWrite, HttpFailure> {
  const app = managedApp(world, caller, appId);
  if (!app.ok) return app;
  if (!findEntitlement(world, appId, entitlementId)) return notFound(`entitlement "${entitlementId}" of app "${appId}" not found`);
  const ids = body["userIds"];
  if (ids !== undefined && ids !== null && (!Array.isArray(ids) || ids.some((u) => typeof u !== "string"))) return invalid("userIds", "userIds must be an array of user ids");
  const wanted = [...new Set((ids ?? []) as string[])];
  if (wanted.length === 0) return invalid("userIds", "userIds is required: the users to add as members");
  // As entries, made an object at the end: an id such as "__proto__" is then a key like any other.
  const failed: [string, string][] = [];
  const grants: Grant[] = [];
  const accountsFor: User[] = [];
  for (const id of wanted) {
    const user = world.index.users.get(id);
    if (!user) {
      failed.push([id, `user "${id}" does not exist`]);
      continue;
    }
    if (world.index.grants.get(grantKeyOf(id, appId, entitlementId))) continue;
    grants.push({ appId, appEntitlementId: entitlementId, identityUserId: id, source: "direct" });
    if (!findAppUserOf(world, id, appId)) accountsFor.push(user);
  }
  const bulk = takeIds(world, "bulk", 1);
  // New accounts take the next ids no account of the world has (a world file may already use one).
  let seq = bulk.seq;
  const accounts: AppUser[] = [];
  for (const u of accountsFor) {
    let id: string;
    do {
      const taken = takeIds({ seq }, "appuser", 1);
      id = taken.ids[0] ?? "";
      seq = taken.seq;
    } while (world.index.appUsers.has(id));
    accounts.push(accountFor(u, appId, id));
  }
  const parts = {
    ...world,
    grants: grants.length > 0 ? Object.freeze([...world.grants, ...grants]) : world.grants,
    appUsers: accounts.length > 0 ? Object.freeze([...world.appUsers, ...accounts]) : world.appUsers,
  };
  const next = Object.freeze({ ...parts, index: buildIndex(parts, world), seq });
  return ok({ world: next, body: { bulkActionId: bulk.ids[0] ?? "", failedUsersErrorMap: Object.fromEntries(failed) } });
}

/**
 * `DELETE /api/v1/apps/{app_id}/entitlements/{app_entitlement_id}/remove-membership`:
 * `{appUserId}` → `{revokeTaskId: ""}`. The account's user no longer holds the entitlement (their
 * grant of it is removed, whatever its source); an account that did not hold it is left as is. No
 * revoke task is made: the simulation has no access profiles (the service makes one only for them).
 *
 * @example
 * ```ts
 * removeMembership(world, admin, "app-aws", "ent-aws-billing", { appUserId: "au-aws-dev2" });
 * ```
 */
export function removeMembership(world: World, caller: User, appId: string, entitlementId: string, body: Body): Result<DirectoryWrite, HttpFailure> {
  const app = managedApp(world, caller, appId);
  if (!app.ok) return app;
  if (!findEntitlement(world, appId, entitlementId)) return notFound(`entitlement "${entitlementId}" of app "${appId}" not found`);
  const appUserId = body["appUserId"];
  const missing = requiredStringProblem("appUserId", appUserId, "the account whose membership to remove");
  if (missing !== undefined || typeof appUserId !== "string") return invalid("appUserId", missing ?? "appUserId is required");
  const account = world.index.appUsers.get(appUserId);
  if (account?.appId !== appId) return err({ status: 404, code: "NOT_FOUND", reason: "NOT_FOUND", message: `app user "${appUserId}" of app "${appId}" not found` });
  const holder = account.identityUserId;
  const gone = (g: Grant): boolean => g.appId === appId && g.appEntitlementId === entitlementId && g.identityUserId === holder;
  if (holder === "" || !world.grants.some(gone)) return ok({ world, body: { revokeTaskId: "" } });
  const parts = { ...world, grants: Object.freeze(world.grants.filter((g) => !gone(g))) };
  return ok({ world: Object.freeze({ ...parts, index: buildIndex(parts, world) }), body: { revokeTaskId: "" } });
}

/** The account `appUserId` of app `appId` and its user's grant of the entitlement, or the refusal. */
function heldGrant(world: World, caller: User, appId: string, entitlementId: string, appUserId: string): Result<{ account: AppUser; grant: Grant }, HttpFailure> {
  const app = managedApp(world, caller, appId);
  if (!app.ok) return app;
  if (!findEntitlement(world, appId, entitlementId)) return notFound(`entitlement "${entitlementId}" of app "${appId}" not found`);
  const account = world.index.appUsers.get(appUserId);
  if (account?.appId !== appId) return notFound(`app user "${appUserId}" of app "${appId}" not found`);
  const grant = account.identityUserId ? world.index.grants.get(grantKeyOf(account.identityUserId, appId, entitlementId)) : undefined;
  // The account that holds it, as the binding reads answer it: the user's account in the app (a
  // second account of the same user holds nothing).
  const holder = account.identityUserId ? findAppUserOf(world, account.identityUserId, appId) : undefined;
  if (!grant || holder !== account) return notFound(`app user "${appUserId}" holds no grant of entitlement "${entitlementId}" of app "${appId}"`);
  return ok({ account, grant });
}

/** `world` with `grant` replaced by `changed`, and the answer the binding routes give: `{binding}`. */
function withGrantChanged(world: World, grant: Grant, changed: Grant, account: AppUser): DirectoryWrite {
  const parts = { ...world, grants: Object.freeze(world.grants.map((g) => (g === grant ? changed : g))) };
  const next = Object.freeze({ ...parts, index: buildIndex(parts, world) });
  return { world: next, body: { binding: userBinding(next, changed, account) } };
}

/**
 * `POST /api/v1/apps/{app_id}/entitlements/{app_entitlement_id}/users/{app_user_id}/update-grant-duration`
 * (`AppEntitlementUserBindingService.UpdateGrantDuration`): `{newDeprovisionAt}` → `{binding}`.
 * "Update the expiration time of an existing grant, changing when automatic revocation will occur"
 * (openapi.yaml): the grant's `deprovisionAt` becomes the new time, and a tick that reaches it
 * revokes the access (product_admin_access-requests.mdx). The time must be after the world's clock
 * (README, "Assumptions"); to make a grant standing, Remove Grant Duration. Who may: as for the
 * entitlement's updates (`managedApp`).
 *
 * @example
 * ```ts
 * const r = updateBindingGrantDuration(world, admin, "app-aws", "ent-aws-prod-admin", "au-aws-sre-lead", { newDeprovisionAt: "2026-12-01T00:00:00Z" }, "2026-11-22T09:00:00Z");
 * if (r.ok) store.set(r.value.world); // r.value.body: { binding: { deprovisionAt: "2026-12-01T00:00:00Z", … } }
 * ```
 */
export function updateBindingGrantDuration(world: World, caller: User, appId: string, entitlementId: string, appUserId: string, body: Body, now: string): Result<DirectoryWrite, HttpFailure> {
  const held = heldGrant(world, caller, appId, entitlementId, appUserId);
  if (!held.ok) return held;
  const at = body["newDeprovisionAt"];
  if (at === undefined || at === null || at === "") return invalid("newDeprovisionAt", "newDeprovisionAt is required: when the access ends, such as \"2026-12-01T09:00:00Z\" (to remove the end, use remove-grant-duration)");
  if (typeof at !== "string" || !isRealTimestamp(at)) return invalid("newDeprovisionAt", `newDeprovisionAt must be an RFC 3339 timestamp such as "2026-12-01T09:00:00Z", not ${JSON.stringify(at) ?? typeof at}`);
  // In UTC, and without a fraction of zeros, as protojson writes a timestamp (".000Z" from a JavaScript Date).
  const end = utcTimestamp(at).replace(/\.0+Z$/, "Z");
  if (Date.parse(end) <= Date.parse(now)) return invalid("newDeprovisionAt", `newDeprovisionAt ${end} is not after the clock (${now}): the access would end before it was changed`);
  const { grant, account } = held.value;
  return ok(withGrantChanged(world, grant, { ...grant, deprovisionAt: end }, account));
}

/**
 * `POST /api/v1/apps/{app_id}/entitlements/{app_entitlement_id}/users/{app_user_id}/remove-grant-duration`
 * (`AppEntitlementUserBindingService.RemoveGrantDuration`): `{}` → `{binding}`. "Remove the
 * expiration time from a grant, converting it to an indefinite (standing) grant" (openapi.yaml).
 * A grant without an end is left as it is. Who may: as for the entitlement's updates.
 *
 * @example
 * ```ts
 * removeBindingGrantDuration(world, admin, "app-aws", "ent-aws-prod-admin", "au-aws-sre-lead"); // body: { binding: { deprovisionAt: null, … } }
 * ```
 */
export function removeBindingGrantDuration(world: World, caller: User, appId: string, entitlementId: string, appUserId: string): Result<DirectoryWrite, HttpFailure> {
  const held = heldGrant(world, caller, appId, entitlementId, appUserId);
  if (!held.ok) return held;
  const { grant, account } = held.value;
  if (!grant.deprovisionAt) return ok({ world, body: { binding: userBinding(world, grant, account) } });
  const { deprovisionAt: _end, ...standing } = grant;
  return ok(withGrantChanged(world, grant, standing, account));
}
