/**
 * The two searches of `c1.api.app.v1.AppEntitlementSearchService` over the world's directory:
 * entitlements (`POST /api/v1/search/entitlements`) and who holds them (`POST /api/v1/search/grants`),
 * each view with the app, resource type and resource its `expandMask` asks for.
 */
import { unknownText } from "../../model/common.js";
import { certifyReviewId } from "../../model/task-refs.js";
import type { AppEntitlement, AppUser, Grant } from "../../model/directory.js";
import type { JsonObject, JsonValue } from "../../model/json.js";
import { ok, type Result } from "../../result.js";
import { TYPE_URLS } from "../../world/encode-directory.js";
import { findEntitlement, type World } from "../../world/world.js";
import type { HttpFailure } from "../error-body.js";
import { bodyFingerprint, pageFromBody, pageOf } from "../paging.js";
import { appWire, bindingView, entitlementView, userBinding } from "./reads.js";
import { resourceObject, resourceTypeObject } from "./resource-reads.js";
import {
  appRefs,
  type Body,
  Expanded,
  expandMask,
  flag,
  member,
  refIds,
  type SearchFields,
  searchRequest,
  strings,
  text,
} from "./search-fields.js";

type Read = Result<JsonObject, HttpFailure>;

const EXPAND_PATHS = ["*", "app_id", "app_resource_type_id", "app_resource_id"] as const;
const RESOURCE_TYPE_URL = "type.googleapis.com/c1.api.app.v1.AppResourceType";
const RESOURCE_URL = "type.googleapis.com/c1.api.app.v1.AppResource";

const key = (appId: string, id: string) => `${appId}\u0000${id}`;

/**
 * Every property of `c1.api.app.v1.AppEntitlementSearchServiceSearchRequest`: read by
 * {@link searchEntitlements}, or refused.
 *
 * @example
 * ```ts
 * ENTITLEMENT_SEARCH_FIELDS.implemented.includes("riskLevelIds"); // true
 * ```
 */
export const ENTITLEMENT_SEARCH_FIELDS: SearchFields = {
  implemented: [
    "pageSize",
    "pageToken",
    "expandMask",
    "appIds",
    "excludeAppIds",
    "refs",
    "excludedEntitlementRefs",
    "resourceTypeIds",
    "excludeResourceTypeIds",
    "resourceIds",
    "appUserIds",
    "excludeAppUserIds",
    "accessReviewId",
    "riskLevelIds",
    "policyRefs",
    "requestSchemaIds",
    "displayName",
    "alias",
    "query",
    // The world keeps no deleted entitlement (a delete removes it): there is nothing more to include.
    "includeDeleted",
  ],
  unmodelled: {
    complianceFrameworkIds: { shape: { kind: "strings" }, lacks: "compliance frameworks of entitlements" },
    excludeImmutable: { shape: { kind: "flag" }, lacks: "immutable (system-managed) entitlements" },
    isAutomated: { shape: { kind: "flag" }, lacks: "entitlement automation rules" },
    membershipType: {
      shape: {
        kind: "enums",
        members: [
          "APP_ENTITLEMENT_MEMBERSHIP_TYPE_UNSPECIFIED",
          "APP_ENTITLEMENT_MEMBERSHIP_TYPE_MEMBER",
          "APP_ENTITLEMENT_MEMBERSHIP_TYPE_OWNER",
          "APP_ENTITLEMENT_MEMBERSHIP_TYPE_EXCLUSION",
          "APP_ENTITLEMENT_MEMBERSHIP_TYPE_ADMIN",
        ],
      },
      lacks: "membership types of grants (a grant is only held or not)",
    },
    onlyGetExpiring: { shape: { kind: "flag" }, lacks: "grant expiries" },
    resourceTraitIds: { shape: { kind: "strings" }, lacks: "resource type traits" },
    sourceConnectorId: { shape: { kind: "text" }, lacks: "connectors that entitlements are synced from" },
  },
};

/**
 * The entitlement purposes openapi.yaml lists (`c1.api.app.v1.AppEntitlement.purpose`).
 *
 * @example
 * ```ts
 * ENTITLEMENT_PURPOSES.includes("APP_ENTITLEMENT_PURPOSE_VALUE_OWNERSHIP"); // true
 * ```
 */
export const ENTITLEMENT_PURPOSES: readonly string[] = [
  "APP_ENTITLEMENT_PURPOSE_VALUE_UNSPECIFIED",
  "APP_ENTITLEMENT_PURPOSE_VALUE_ASSIGNMENT",
  "APP_ENTITLEMENT_PURPOSE_VALUE_PERMISSION",
  "APP_ENTITLEMENT_PURPOSE_VALUE_OWNERSHIP",
];

/**
 * Every property of `c1.api.app.v1.AppEntitlementSearchServiceSearchGrantsRequest`: read by
 * {@link searchGrants}, or refused.
 *
 * @example
 * ```ts
 * GRANT_SEARCH_FIELDS.unmodelled["entitlementSlugs"]?.lacks; // "entitlement slugs"
 * ```
 */
export const GRANT_SEARCH_FIELDS: SearchFields = {
  implemented: ["pageSize", "pageToken", "expandMask", "appIds", "appUserIds", "entitlementRefs", "resourceIds", "resourceTypeIds", "userId"],
  unmodelled: {
    entitlementSlugs: { shape: { kind: "strings" }, lacks: "entitlement slugs" },
    purpose: {
      shape: {
        kind: "enums",
        members: ENTITLEMENT_PURPOSES,
      },
      lacks: "entitlement purposes (assignment, permission, ownership)",
    },
  },
};

/** An AppEntitlementView with the objects `expand` asks for appended to `ex`. */
function expandedView(world: World, e: AppEntitlement, expand: readonly string[], ex: Expanded): JsonObject {
  const view = entitlementView(e);
  if (expand.length === 0) return view;
  const wants = (path: string) => expand.includes("*") || expand.includes(path);
  const app = wants("app_id") ? world.index.apps.get(e.appId) : undefined;
  const type = wants("app_resource_type_id") ? resourceTypeObject(world, e.appId, e.appResourceTypeId) : undefined;
  const resource = wants("app_resource_id") ? resourceObject(world, e.appId, e.appResourceTypeId, e.appResourceId) : undefined;
  return {
    ...view,
    appPath: app ? ex.pathOf([ex.add(TYPE_URLS.app, app.id, () => appWire(world, app))]) : "",
    appResourceTypePath: type ? ex.pathOf([ex.add(RESOURCE_TYPE_URL, key(e.appId, e.appResourceTypeId), () => type)]) : "",
    appResourcePath: resource ? ex.pathOf([ex.add(RESOURCE_URL, `${key(e.appId, e.appResourceTypeId)}\u0000${e.appResourceId}`, () => resource)]) : "",
  };
}

/**
 * An entitlement's `{appEntitlementView, expanded}` as `AppEntitlements.Create`/`Update` answer it,
 * with the app, resource type and resource the request's `expandMask` asks for (the paths the
 * searches take); an unknown path is INVALID_ARGUMENT, as there.
 *
 * @example
 * ```ts
 * const r = expandMaskOf({ expandMask: { paths: ["app_id"] } });
 * if (r.ok) entitlementViewExpanded(world, entitlement, r.value).expanded; // [{ "@type": "…c1.api.app.v1.App", id: "app-aws", … }]
 * ```
 */
export function entitlementViewExpanded(world: World, e: AppEntitlement, expand: readonly string[]): { appEntitlementView: JsonObject; expanded: JsonObject[] } {
  const ex = new Expanded();
  return { appEntitlementView: expandedView(world, e, expand, ex), expanded: ex.items };
}

/**
 * The paths of a create or update request's `expandMask` (those of the entitlement search), or the
 * INVALID_ARGUMENT a search gives for an unknown one.
 *
 * @example
 * ```ts
 * expandMaskOf({ expandMask: { paths: ["*"] } }); // ok(["*"])
 * ```
 */
export function expandMaskOf(body: Body): Result<readonly string[], HttpFailure> {
  return expandMask(body, EXPAND_PATHS);
}

/**
 * The (app, entitlement) keys of what the given accounts hold: the grants of each account's identity
 * user in the account's app (as `GET …/entitlements/users/{app_user_id}` lists them), in one pass.
 */
function heldBy(world: World, appUserIds: readonly string[]): ReadonlySet<string> {
  const holders = new Set<string>();
  for (const id of appUserIds) {
    const au = world.index.appUsers.get(id);
    if (au) holders.add(key(au.appId, au.identityUserId));
  }
  const held = new Set<string>();
  if (holders.size > 0) for (const g of world.grants) if (holders.has(key(g.appId, g.identityUserId))) held.add(key(g.appId, g.appEntitlementId));
  return held;
}

/** The (app, entitlement) keys an access review's certify tasks are about: what it is reviewing. */
function reviewedBy(world: World, accessReviewId: string): ReadonlySet<string> {
  const reviewed = new Set<string>();
  for (const t of world.tasks.values())
    if (t.deletedAt === null && t.type?.kind === "certify" && certifyReviewId(t.type) === accessReviewId) reviewed.add(key(t.type.appId, t.type.appEntitlementId));
  return reviewed;
}

/**
 * `POST /api/v1/search/entitlements`: the entitlements matching every filter (see
 * {@link ENTITLEMENT_SEARCH_FIELDS}): `appUserIds`/`excludeAppUserIds` by the grants of the
 * accounts' users, `accessReviewId` by the certify tasks of that campaign, `policyRefs` by the
 * grant, revoke, certify or emergency policy the entitlement names, `displayName` and `alias`
 * exactly, `query` in the display name, description or id (any case); in world order, paged, with `expanded` as `expandMask` asks.
 *
 * @example
 * ```ts
 * searchEntitlements(world, { appIds: ["app-aws"], riskLevelIds: ["critical"], expandMask: { paths: ["app_id"] } });
 * ```
 */
export function searchEntitlements(world: World, body: Body): Read {
  const f = searchRequest(body, ENTITLEMENT_SEARCH_FIELDS, {
    page: pageFromBody(body, bodyFingerprint(body, "entitlements")),
    apps: strings(body, "appIds"),
    excludeApps: strings(body, "excludeAppIds"),
    refs: appRefs(body, "refs"),
    excludedRefs: appRefs(body, "excludedEntitlementRefs"),
    types: strings(body, "resourceTypeIds"),
    excludeTypes: strings(body, "excludeResourceTypeIds"),
    resources: strings(body, "resourceIds"),
    appUsers: strings(body, "appUserIds"),
    excludeAppUsers: strings(body, "excludeAppUserIds"),
    accessReviewId: text(body, "accessReviewId"),
    risks: strings(body, "riskLevelIds"),
    policies: refIds(body, "policyRefs"),
    schemas: strings(body, "requestSchemaIds"),
    name: text(body, "displayName"),
    alias: text(body, "alias"),
    query: text(body, "query"),
    includeDeleted: flag(body, "includeDeleted"),
    expand: expandMask(body, EXPAND_PATHS),
  });
  if (!f.ok) return f;
  const v = f.value;
  const set = (xs: readonly string[]): ReadonlySet<string> => new Set(xs);
  const apps = set(v.apps);
  const excludeApps = set(v.excludeApps);
  const refs = set(v.refs.map((r) => key(r.appId, r.id)));
  const excludedRefs = set(v.excludedRefs.map((r) => key(r.appId, r.id)));
  const types = set(v.types);
  const excludeTypes = set(v.excludeTypes);
  const resources = set(v.resources);
  const risks = set(v.risks);
  const policies = set(v.policies);
  const schemas = set(v.schemas);
  const held = v.appUsers.length > 0 ? heldBy(world, v.appUsers) : undefined;
  const heldByExcluded = heldBy(world, v.excludeAppUsers);
  const reviewed = v.accessReviewId !== "" ? reviewedBy(world, v.accessReviewId) : undefined;
  const query = v.query.toLowerCase();
  const usesPolicy = (e: AppEntitlement) =>
    policies.has(e.grantPolicyId) || policies.has(e.revokePolicyId) || policies.has(e.certifyPolicyId) || policies.has(e.emergencyGrantPolicyId);
  const found = world.entitlements.filter((e) => {
    const k = key(e.appId, e.id);
    return (
      (apps.size === 0 || apps.has(e.appId)) &&
      !excludeApps.has(e.appId) &&
      (refs.size === 0 || refs.has(k)) &&
      !excludedRefs.has(k) &&
      (types.size === 0 || types.has(e.appResourceTypeId)) &&
      !excludeTypes.has(e.appResourceTypeId) &&
      (resources.size === 0 || resources.has(e.appResourceId)) &&
      (held === undefined || held.has(k)) &&
      !heldByExcluded.has(k) &&
      (reviewed === undefined || reviewed.has(k)) &&
      (risks.size === 0 || risks.has(e.riskLevelValueId)) &&
      (policies.size === 0 || usesPolicy(e)) &&
      (schemas.size === 0 || schemas.has(e.requestSchemaId)) &&
      (v.name === "" || e.displayName === v.name) &&
      (v.alias === "" || unknownText(e, "alias") === v.alias) &&
      (query === "" || e.displayName.toLowerCase().includes(query) || unknownText(e, "description").toLowerCase().includes(query) || e.id.toLowerCase().includes(query))
    );
  });
  const p = pageOf(found, v.page, { idOf: (e) => `${e.appId}/${e.id}` });
  const ex = new Expanded();
  const list: JsonValue[] = p.list.map((e) => expandedView(world, e, v.expand, ex));
  return ok({ expanded: ex.items, list, nextPageToken: p.nextPageToken });
}

/**
 * `POST /api/v1/search/grants`: who holds what, as `{entitlement, appEntitlementUserBinding}` pairs
 * in the world's grant order, by `appIds`, `entitlementRefs`, `appUserIds`, `userId`,
 * `resourceTypeIds`, `resourceIds` (see {@link GRANT_SEARCH_FIELDS}); paged, each entitlement with
 * `expanded` as `expandMask` asks.
 *
 * @example
 * ```ts
 * searchGrants(world, { userId: "u-ada" });
 * ```
 */
export function searchGrants(world: World, body: Body): Read {
  const f = searchRequest(body, GRANT_SEARCH_FIELDS, {
    page: pageFromBody(body, bodyFingerprint(body, "grants")),
    apps: strings(body, "appIds"),
    refs: appRefs(body, "entitlementRefs"),
    appUserIds: strings(body, "appUserIds"),
    userId: text(body, "userId"),
    types: strings(body, "resourceTypeIds"),
    resources: strings(body, "resourceIds"),
    expand: expandMask(body, EXPAND_PATHS),
  });
  if (!f.ok) return f;
  const { page, userId, expand } = f.value;
  const set = (xs: readonly string[]): ReadonlySet<string> => new Set(xs);
  const apps = set(f.value.apps);
  const refs = set(f.value.refs.map((r) => key(r.appId, r.id)));
  const appUserIds = set(f.value.appUserIds);
  const types = set(f.value.types);
  const resources = set(f.value.resources);
  const rows: { readonly e: AppEntitlement; readonly g: Grant; readonly account: AppUser | undefined }[] = [];
  for (const g of world.grants) {
    if ((apps.size > 0 && !apps.has(g.appId)) || (userId !== "" && g.identityUserId !== userId)) continue;
    if (refs.size > 0 && !refs.has(key(g.appId, g.appEntitlementId))) continue;
    const e = findEntitlement(world, g.appId, g.appEntitlementId);
    if (!e || (types.size > 0 && !types.has(e.appResourceTypeId)) || (resources.size > 0 && !resources.has(e.appResourceId))) continue;
    // The user's first account in the app holds the grant (README "Assumptions").
    const account = world.index.appUserByUserAndApp.get(key(g.identityUserId, g.appId));
    if (appUserIds.size > 0 && !(account && appUserIds.has(account.id))) continue;
    rows.push({ e, g, account });
  }
  const p = pageOf(rows, page);
  const ex = new Expanded();
  const list: JsonValue[] = p.list.map((r) => ({ entitlement: expandedView(world, r.e, expand, ex), appEntitlementUserBinding: bindingView(world, r.g, r.account) }));
  return ok({ expanded: ex.items, list, nextPageToken: p.nextPageToken });
}

/**
 * Every property of `c1.api.requestcatalog.v1.RequestCatalogSearchServiceSearchEntitlementsRequest`:
 * read by {@link searchRequestCatalog}, or refused.
 *
 * @example
 * ```ts
 * REQUEST_CATALOG_SEARCH_FIELDS.implemented.includes("grantedStatus"); // true
 * ```
 */
export const REQUEST_CATALOG_SEARCH_FIELDS: SearchFields = {
  implemented: ["pageSize", "pageToken", "expandMask", "query", "appDisplayName", "entitlementAlias", "grantedStatus", "includeDeleted"],
  unmodelled: {},
};

const GRANTED_STATUSES = ["UNSPECIFIED", "ALL", "GRANTED", "NOT_GRANTED"] as const;

/**
 * `POST /api/v1/search/request_catalog/entitlements` (`RequestCatalogSearch.SearchEntitlements`):
 * the entitlements the signed-in user can request, each with that user's own bindings to it (what
 * they hold), by `query` (display name, case-insensitive), `appDisplayName` and `entitlementAlias`
 * (exact), and `grantedStatus` (`GRANTED`: those the caller holds; `NOT_GRANTED`: the others); in
 * world order, paged, with `expanded` as `expandMask` asks. The world has no request catalogs: every
 * entitlement counts as in one open catalog everyone sees (README "Assumptions").
 *
 * @example
 * ```ts
 * searchRequestCatalog(world, "u-dev1", { query: "admin", grantedStatus: "NOT_GRANTED" });
 * ```
 */
export function searchRequestCatalog(world: World, callerId: string, body: Body): Read {
  const f = searchRequest(body, REQUEST_CATALOG_SEARCH_FIELDS, {
    page: pageFromBody(body, bodyFingerprint(body, "request-catalog")),
    query: text(body, "query"),
    appName: text(body, "appDisplayName"),
    alias: text(body, "entitlementAlias"),
    granted: member(body, "grantedStatus", GRANTED_STATUSES),
    includeDeleted: flag(body, "includeDeleted"),
    expand: expandMask(body, EXPAND_PATHS),
  });
  if (!f.ok) return f;
  const { page, appName, alias, granted, expand } = f.value;
  const query = f.value.query.toLowerCase();
  // The caller's grants, by entitlement: what "granted" means and the bindings each row carries.
  const mine = new Map<string, Grant[]>();
  for (const g of world.grants)
    if (g.identityUserId === callerId) {
      const k = key(g.appId, g.appEntitlementId);
      const held = mine.get(k);
      if (held) held.push(g);
      else mine.set(k, [g]);
    }
  const found = world.entitlements.filter((e) => {
    const held = mine.has(key(e.appId, e.id));
    return (
      (query === "" || e.displayName.toLowerCase().includes(query)) &&
      (appName === "" || world.index.apps.get(e.appId)?.displayName === appName) &&
      (alias === "" || unknownText(e, "alias") === alias) &&
      (granted !== "GRANTED" || held) &&
      (granted !== "NOT_GRANTED" || !held)
    );
  });
  const p = pageOf(found, page, { idOf: (e) => `${e.appId}/${e.id}` });
  const ex = new Expanded();
  const list: JsonValue[] = p.list.map((e) => ({
    entitlement: expandedView(world, e, expand, ex),
    appEntitlementUserBindings: (mine.get(key(e.appId, e.id)) ?? []).map((g) => userBinding(world, g, world.index.appUserByUserAndApp.get(key(g.identityUserId, g.appId)))),
  }));
  return ok({ expanded: ex.items, list, nextPageToken: p.nextPageToken });
}
