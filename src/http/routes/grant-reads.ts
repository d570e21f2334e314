/**
 * The grant reads an entitlement's page and an account's page make: who holds an entitlement with
 * their account and user (`AppEntitlementSearchService.SearchAppEntitlementsWithExpired`), an
 * identity's accounts in an app with the grant each holds (`AppEntitlementUserBindingService.
 * ListAppUsersForIdentityWithGrant`), and the entitlements an account holds
 * (`AppEntitlementSearchService.SearchAppEntitlementsForAppUser`).
 *
 * The world's grants are current: a grant names the identity user, and the user's first account in
 * the app holds it (the world index's `appUserByUserAndApp`, as `search/grants` reads it). The world
 * keeps no grant history, times or expiries, so those fields are null (README "Assumptions").
 */
import type { Grant } from "../../model/directory.js";
import type { JsonObject, JsonValue } from "../../model/json.js";
import { ok, type Result } from "../../result.js";
import { findAppUserOf, findEntitlement, grantKeyOf, type World } from "../../world/world.js";
import type { HttpFailure } from "../error-body.js";
import type { PageRequest } from "../paging.js";
import { grantCreatedAt } from "./grant-times.js";
import { appUserWire, listBody, listEntitlementsForAppUser, userWire } from "./reads.js";
import { notFound } from "./refuse.js";

type Read = Result<JsonObject, HttpFailure>;


const accountKey = (g: Grant) => `${g.identityUserId}\u0000${g.appId}`;

/**
 * `GET /api/v1/apps/{app_id}/entitlements/{app_entitlement_id}/grants`: one AppEntitlementWithExpired
 * per grant of the entitlement, with the account that holds it and its identity user, in the
 * world's grant order, paged. Nothing in the world has expired, so `expired` is null throughout.
 *
 * @example
 * ```ts
 * searchAppEntitlementsWithExpired(world, "app-aws", "ent-aws-prod-admin", page); // ok({ list: [{ appUserId: "au-…", user: {…}, … }], nextPageToken: "" })
 * ```
 */
export function searchAppEntitlementsWithExpired(world: World, appId: string, entitlementId: string, page: PageRequest): Read {
  if (!world.index.apps.has(appId)) return notFound(`app "${appId}" not found`);
  if (!findEntitlement(world, appId, entitlementId)) return notFound(`entitlement "${entitlementId}" of app "${appId}" not found`);
  const rows: JsonValue[] = [];
  for (const g of world.grants) {
    if (g.appId !== appId || g.appEntitlementId !== entitlementId) continue;
    const account = world.index.appUserByUserAndApp.get(accountKey(g));
    const user = world.index.users.get(g.identityUserId);
    rows.push({
      appId: g.appId,
      appEntitlementId: g.appEntitlementId,
      appUserId: account?.id ?? "",
      appUser: account ? appUserWire(account) : null,
      user: user ? userWire(user) : null,
      discovered: null,
      expired: null,
      grantReasons: [],
      grantSources: [],
    });
  }
  return ok(listBody(rows, page));
}

/**
 * `GET /api/v1/apps/{app_id}/entitlements/{app_entitlement_id}/users/{identity_user_id}/grants`:
 * every account the identity user has in the app, as an AppEntitlementUserBinding; the account
 * that holds the entitlement carries the entitlement's id, the others only the app and account ids
 * (as the OpenAPI says: "Without a grant, only the tenant, app, and app user ID will be set").
 * Not paged.
 *
 * @example
 * ```ts
 * listAppUsersForIdentityWithGrant(world, "app-aws", "ent-aws-prod-admin", "u-sre-lead"); // ok({ bindings: [{ appUserId: "au-…", appEntitlementId: "ent-aws-prod-admin", … }] })
 * ```
 */
export function listAppUsersForIdentityWithGrant(world: World, appId: string, entitlementId: string, identityUserId: string): Read {
  if (!world.index.apps.has(appId)) return notFound(`app "${appId}" not found`);
  if (!findEntitlement(world, appId, entitlementId)) return notFound(`entitlement "${entitlementId}" of app "${appId}" not found`);
  if (!world.index.users.has(identityUserId)) return notFound(`user "${identityUserId}" not found`);
  const grant = world.index.grants.get(grantKeyOf(identityUserId, appId, entitlementId));
  const holder = grant ? findAppUserOf(world, identityUserId, appId) : undefined;
  const bindings: JsonValue[] = world.appUsers
    .filter((a) => a.appId === appId && a.identityUserId === identityUserId)
    .map((a) =>
      a === holder
        ? { appId, appUserId: a.id, appEntitlementId: entitlementId, createdAt: grantCreatedAt(world, grant ?? { appId, appEntitlementId: entitlementId, identityUserId }), deletedAt: null, deprovisionAt: grant?.deprovisionAt ?? null, grantSources: [] }
        : { appId, appUserId: a.id, appEntitlementId: "", createdAt: null, deletedAt: null, deprovisionAt: null, grantSources: [] },
    );
  return ok({ bindings });
}

/**
 * `GET /api/v1/search/apps/{app_id}/entitlements/users/{app_user_id}`: the entitlements of the app
 * the account holds, paged: the same answer as `AppEntitlements.ListForAppUser`. The OpenAPI's
 * resource-trait filter has no query parameter (nor an SDK field), so none is read.
 *
 * @example
 * ```ts
 * searchAppEntitlementsForAppUser(world, "app-aws", "au-aws-ada", page); // ok({ list: [{ appEntitlement: {…} }], expanded: [], nextPageToken: "" })
 * ```
 */
export function searchAppEntitlementsForAppUser(world: World, appId: string, appUserId: string, page: PageRequest): Read {
  if (!world.index.apps.has(appId)) return notFound(`app "${appId}" not found`);
  return listEntitlementsForAppUser(world, appId, appUserId, page);
}
