/**
 * Who owns an app or an entitlement (`c1.api.app.v1.AppOwners`, `AppEntitlementOwners`): the
 * world's `ownerUserIds`, as ids (`ListOwnerIDs`) or as the service's User objects (`List`, paged).
 * An owner id that names no user of the world is listed by `ListOwnerIDs` as stored, and left out
 * of `List`, which has no User to write for it. `SearchUserOwnership` answers the other way round:
 * what one user owns.
 */
import type { JsonObject } from "../../model/json.js";
import { ok, type Result } from "../../result.js";
import { findEntitlement, type World } from "../../world/world.js";
import type { HttpFailure } from "../error-body.js";
import { bodyFingerprint, pageFromBody, type PageRequest } from "../paging.js";
import { listBody, userWire } from "./reads.js";
import { invalid, notFound } from "./refuse.js";
import { type Body, collect, enums, type SearchFields, text, unimplemented } from "./search-fields.js";

type Read = Result<JsonObject, HttpFailure>;


function ownersOf(world: World, ids: readonly string[], page: PageRequest): JsonObject {
  const users = ids.flatMap((id) => {
    const u = world.index.users.get(id);
    return u ? [userWire(u)] : [];
  });
  return listBody(users, page);
}

function appOwnerIds(world: World, appId: string): Result<readonly string[], HttpFailure> {
  const app = world.index.apps.get(appId);
  return app ? ok(app.ownerUserIds) : notFound(`app "${appId}" not found`);
}

function entitlementOwnerIds(world: World, appId: string, entitlementId: string): Result<readonly string[], HttpFailure> {
  if (!world.index.apps.has(appId)) return notFound(`app "${appId}" not found`);
  const e = findEntitlement(world, appId, entitlementId);
  return e ? ok(e.ownerUserIds) : notFound(`entitlement "${entitlementId}" of app "${appId}" not found`);
}

/**
 * `GET /api/v1/apps/{app_id}/owners` (`AppOwners.List`): the app's owners as Users, paged.
 *
 * @example
 * ```ts
 * listAppOwners(world, "app-aws", page); // ok({ list: [{ id: "u-sre-lead", … }], nextPageToken: "" })
 * ```
 */
export function listAppOwners(world: World, appId: string, page: PageRequest): Read {
  const ids = appOwnerIds(world, appId);
  return ids.ok ? ok(ownersOf(world, ids.value, page)) : ids;
}

/**
 * `GET /api/v1/apps/{app_id}/ownerids` (`AppOwners.ListOwnerIDs`): the app's owner ids. Not paged.
 *
 * @example
 * ```ts
 * listAppOwnerIds(world, "app-aws"); // ok({ userIds: ["u-sre-lead", "u-it-dir"] })
 * ```
 */
export function listAppOwnerIds(world: World, appId: string): Read {
  const ids = appOwnerIds(world, appId);
  return ids.ok ? ok({ userIds: [...ids.value] }) : ids;
}

/**
 * `GET /api/v1/apps/{app_id}/entitlements/{entitlement_id}/owners` (`AppEntitlementOwners.List`):
 * the entitlement's owners as Users, paged.
 *
 * @example
 * ```ts
 * listEntitlementOwners(world, "app-aws", "ent-aws-prod-admin", page); // ok({ list: [{ id: "u-sre-lead", … }, …], nextPageToken: "" })
 * ```
 */
export function listEntitlementOwners(world: World, appId: string, entitlementId: string, page: PageRequest): Read {
  const ids = entitlementOwnerIds(world, appId, entitlementId);
  return ids.ok ? ok(ownersOf(world, ids.value, page)) : ids;
}

/**
 * `GET /api/v1/apps/{app_id}/entitlements/{entitlement_id}/ownerids` (`AppEntitlementOwners.ListOwnerIDs`).
 *
 * @example
 * ```ts
 * listEntitlementOwnerIds(world, "app-aws", "ent-aws-prod-admin"); // ok({ userIds: ["u-sre-lead", "u-ciso"] })
 * ```
 */
export function listEntitlementOwnerIds(world: World, appId: string, entitlementId: string): Read {
  const ids = entitlementOwnerIds(world, appId, entitlementId);
  return ids.ok ? ok({ userIds: [...ids.value] }) : ids;
}

const OWNERSHIP_TYPES = ["USER_OWNERSHIP_TYPE_UNSPECIFIED", "USER_OWNERSHIP_TYPE_APP", "USER_OWNERSHIP_TYPE_RESOURCE", "USER_OWNERSHIP_TYPE_ENTITLEMENT"] as const;

/**
 * Every property of `c1.api.app.v1.SearchUserOwnershipRequest`: all read by {@link searchUserOwnership}
 * (which refuses one `ownershipTypes` member, `USER_OWNERSHIP_TYPE_RESOURCE`).
 *
 * @example
 * ```ts
 * USER_OWNERSHIP_SEARCH_FIELDS.implemented; // ["pageSize", "pageToken", "userId", "ownershipTypes"]
 * ```
 */
export const USER_OWNERSHIP_SEARCH_FIELDS: SearchFields = { implemented: ["pageSize", "pageToken", "userId", "ownershipTypes"], unmodelled: {} };

/**
 * `POST /api/v1/search/user-ownership` (`AppSearch.SearchUserOwnership`): what one user owns, the
 * apps (in world order) then the entitlements, each a UserOwnershipEntry, filtered by
 * `ownershipTypes` (none: every type); paged. The world has no resource owners: asking for
 * `USER_OWNERSHIP_TYPE_RESOURCE` by name is refused (UNIMPLEMENTED), and a search of every type
 * lists apps and entitlements only.
 *
 * @example
 * ```ts
 * searchUserOwnership(world, { userId: "u-sre-lead" }); // ok({ list: [{ ownershipType: "USER_OWNERSHIP_TYPE_APP", appId: "app-aws", … }, …], nextPageToken: "" })
 * ```
 */
export function searchUserOwnership(world: World, body: Body): Read {
  const f = collect({ page: pageFromBody(body, bodyFingerprint(body, "owners")), userId: text(body, "userId"), types: enums(body, "ownershipTypes", OWNERSHIP_TYPES) });
  if (!f.ok) return f;
  const { page, userId, types } = f.value;
  if (userId === "") return invalid("userId", "userId is required: the user whose ownership to search");
  if (types.includes("USER_OWNERSHIP_TYPE_RESOURCE")) return unimplemented("ownershipTypes", "resource owners (USER_OWNERSHIP_TYPE_RESOURCE)");
  if (!world.index.users.has(userId)) return notFound(`user "${userId}" not found`);
  const wanted = (t: string) => types.length === 0 || types.includes(t);
  const blank = { appId: "", appDisplayName: "", entitlementId: "", entitlementDisplayName: "", resourceId: "", resourceDisplayName: "", resourceTypeId: "" };
  const entries: JsonObject[] = [];
  if (wanted("USER_OWNERSHIP_TYPE_APP"))
    for (const a of world.apps)
      if (a.ownerUserIds.includes(userId)) entries.push({ ...blank, ownershipType: "USER_OWNERSHIP_TYPE_APP", appId: a.id, appDisplayName: a.displayName });
  if (wanted("USER_OWNERSHIP_TYPE_ENTITLEMENT"))
    for (const e of world.entitlements)
      if (e.ownerUserIds.includes(userId))
        entries.push({
          ...blank,
          ownershipType: "USER_OWNERSHIP_TYPE_ENTITLEMENT",
          appId: e.appId,
          appDisplayName: world.index.apps.get(e.appId)?.displayName ?? "",
          entitlementId: e.id,
          entitlementDisplayName: e.displayName,
        });
  return ok(listBody(entries, page));
}
