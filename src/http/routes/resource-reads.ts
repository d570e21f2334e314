/**
 * App resources and resource types (`c1.api.app.v1.AppResourceTypeService`, `AppResourceService`,
 * `AppResourceSearch`, and `AppEntitlements.ListForAppResource`), as far as the world knows them.
 *
 * The world has no resource objects of its own: it knows a resource by the entitlements on it (an
 * entitlement's `appResourceTypeId` and `appResourceId`) and, for a cloud infrastructure app, by an
 * entitlement's `role` and `scope` refs, which also carry a display name. So a resource type is
 * every type id an app's entitlements name, shown by its id; a resource is every (type, id) pair
 * they name, shown by a ref's display name when one names it, else by its id; its `grantCount` is
 * the grants of the entitlements on it. Traits, owners, parents and times are not modelled: a
 * search restricted to traits, owners or AI-agent, secret, credential or NHI properties is refused
 * (UNIMPLEMENTED, `search-fields.ts`; README "Assumptions").
 */
import type { AppEntitlement } from "../../model/directory.js";
import type { JsonObject, JsonValue } from "../../model/json.js";
import { ok, type Result } from "../../result.js";
import type { World } from "../../world/world.js";
import type { HttpFailure } from "../error-body.js";
import { bodyFingerprint, pageFromBody, type PageRequest } from "../paging.js";
import { entitlementView, listBody } from "./reads.js";
import { invalid, notFound } from "./refuse.js";
import { type Body, flag, type SearchFields, searchRequest, strings, text } from "./search-fields.js";

type Read = Result<JsonObject, HttpFailure>;

interface ResourceType {
  readonly appId: string;
  readonly id: string;
}

interface Resource {
  readonly appId: string;
  readonly appResourceTypeId: string;
  readonly id: string;
  readonly displayName: string;
  /** The entitlements on this resource (its `appResourceTypeId` and `appResourceId`). */
  readonly entitlements: readonly AppEntitlement[];
}

interface Catalog {
  readonly types: readonly ResourceType[];
  readonly resources: readonly Resource[];
  /** The same, by `key(appId, typeId)` and `key(appId, typeId, id)`: an expansion looks one up per entitlement. */
  readonly typeByKey: ReadonlyMap<string, ResourceType>;
  readonly resourceByKey: ReadonlyMap<string, Resource>;
}

const key = (...parts: readonly string[]) => parts.join("\u0000");

/** Derived once per entitlement list: worlds are immutable, and a new directory is a new list. */
const catalogs = new WeakMap<readonly AppEntitlement[], Catalog>();

function catalogOf(world: World): Catalog {
  const hit = catalogs.get(world.entitlements);
  if (hit) return hit;
  const types = new Map<string, ResourceType>();
  const resources = new Map<string, { appId: string; appResourceTypeId: string; id: string; displayName: string; entitlements: AppEntitlement[] }>();
  const note = (appId: string, typeId: string, id: string, displayName: string): void => {
    if (typeId === "") return;
    const tk = key(appId, typeId);
    if (!types.has(tk)) types.set(tk, { appId, id: typeId });
    if (id === "") return;
    const rk = key(appId, typeId, id);
    const r = resources.get(rk);
    if (!r) resources.set(rk, { appId, appResourceTypeId: typeId, id, displayName, entitlements: [] });
    else if (r.displayName === r.id && displayName !== "") r.displayName = displayName;
  };
  for (const e of world.entitlements) {
    note(e.appId, e.appResourceTypeId, e.appResourceId, e.appResourceId);
    if (e.appResourceTypeId !== "" && e.appResourceId !== "") resources.get(key(e.appId, e.appResourceTypeId, e.appResourceId))?.entitlements.push(e);
    for (const ref of [e.role, e.scope]) if (ref) note(e.appId, ref.appResourceTypeId, ref.id, ref.displayName === "" ? ref.id : ref.displayName);
  }
  const catalog = { types: [...types.values()], resources: [...resources.values()], typeByKey: types, resourceByKey: resources };
  catalogs.set(world.entitlements, catalog);
  return catalog;
}

function typeWire(t: ResourceType): JsonObject {
  return { appId: t.appId, id: t.id, displayName: t.id, traitIds: [], createdAt: null, updatedAt: null, deletedAt: null };
}

function grantCount(world: World, r: Resource): number {
  if (r.entitlements.length === 0) return 0;
  const on = new Set(r.entitlements.map((e) => e.id));
  return world.grants.filter((g) => g.appId === r.appId && on.has(g.appEntitlementId)).length;
}

function resourceWire(world: World, r: Resource): JsonObject {
  return {
    appId: r.appId,
    appResourceTypeId: r.appResourceTypeId,
    id: r.id,
    displayName: r.displayName,
    description: "",
    grantCount: String(grantCount(world, r)),
    parentAppResourceId: "",
    parentAppResourceTypeId: "",
    createdAt: null,
    updatedAt: null,
    deletedAt: null,
  };
}

const typeView = (t: ResourceType): JsonObject => ({ appResourceType: typeWire(t), appPath: "" });

const resourceView = (world: World, r: Resource): JsonObject => ({
  appResource: resourceWire(world, r),
  appPath: "",
  resourceTypePath: "",
  parentResourcePath: "",
  parentResourceTypePath: "",
  objectPermissions: null,
});

function findType(world: World, appId: string, typeId: string): Result<ResourceType, HttpFailure> {
  if (!world.index.apps.has(appId)) return notFound(`app "${appId}" not found`);
  const t = catalogOf(world).types.find((x) => x.appId === appId && x.id === typeId);
  return t ? ok(t) : notFound(`resource type "${typeId}" of app "${appId}" not found: no entitlement of the app names it`);
}

/**
 * The AppResourceType an entitlement names, as the API writes it (for `expandMask`
 * `app_resource_type_id`); `undefined` when it names none.
 *
 * @example
 * ```ts
 * resourceTypeObject(world, "app-aws", "rt-role"); // { appId: "app-aws", id: "rt-role", displayName: "rt-role", … }
 * ```
 */
export function resourceTypeObject(world: World, appId: string, typeId: string): JsonObject | undefined {
  const t = catalogOf(world).typeByKey.get(key(appId, typeId));
  return t ? typeWire(t) : undefined;
}

/**
 * The AppResource an entitlement is on, as the API writes it (for `expandMask` `app_resource_id`);
 * `undefined` when it is on none.
 *
 * @example
 * ```ts
 * resourceObject(world, "app-aws", "rt-role", "res-aws-account-prod")?.grantCount; // "4"
 * ```
 */
export function resourceObject(world: World, appId: string, typeId: string, id: string): JsonObject | undefined {
  const r = catalogOf(world).resourceByKey.get(key(appId, typeId, id));
  return r ? resourceWire(world, r) : undefined;
}

/**
 * `GET /api/v1/apps/{app_id}/resource_types`: the resource types the app's entitlements name, paged.
 *
 * @example
 * ```ts
 * listResourceTypes(world, "app-aws", page); // ok({ list: [{ appResourceType: { id: "rt-role", … } }], expanded: [], nextPageToken: "" })
 * ```
 */
export function listResourceTypes(world: World, appId: string, page: PageRequest): Read {
  if (!world.index.apps.has(appId)) return notFound(`app "${appId}" not found`);
  return ok(listBody(catalogOf(world).types.filter((t) => t.appId === appId).map(typeView), page, { expanded: [] }));
}

/**
 * `GET /api/v1/apps/{app_id}/resource_types/{id}`.
 *
 * @example
 * ```ts
 * getResourceType(world, "app-aws", "rt-role"); // ok({ appResourceTypeView: { appResourceType: { id: "rt-role", … } }, expanded: [] })
 * ```
 */
export function getResourceType(world: World, appId: string, typeId: string): Read {
  const t = findType(world, appId, typeId);
  return t.ok ? ok({ appResourceTypeView: typeView(t.value), expanded: [] }) : t;
}

/**
 * `GET /api/v1/apps/{app_id}/resource_types/{app_resource_type_id}/resources`: the type's resources, paged.
 *
 * @example
 * ```ts
 * listResources(world, "app-aws", "rt-role", page); // ok({ list: [{ appResource: { id: "res-aws-account-prod", … } }], … })
 * ```
 */
export function listResources(world: World, appId: string, typeId: string, page: PageRequest): Read {
  const t = findType(world, appId, typeId);
  if (!t.ok) return t;
  const found = catalogOf(world).resources.filter((r) => r.appId === appId && r.appResourceTypeId === typeId);
  return ok(listBody(found.map((r) => resourceView(world, r)), page, { expanded: [] }));
}

/**
 * `GET /api/v1/apps/{app_id}/resource_types/{app_resource_type_id}/resources/{id}`.
 *
 * @example
 * ```ts
 * getResource(world, "app-aws", "rt-role", "res-aws-account-prod"); // ok({ appResourceView: { appResource: {…} }, expanded: [] })
 * ```
 */
export function getResource(world: World, appId: string, typeId: string, id: string): Read {
  const t = findType(world, appId, typeId);
  if (!t.ok) return t;
  const r = catalogOf(world).resources.find((x) => x.appId === appId && x.appResourceTypeId === typeId && x.id === id);
  return r ? ok({ appResourceView: resourceView(world, r), expanded: [] }) : notFound(`resource "${id}" of type "${typeId}" of app "${appId}" not found`);
}

/**
 * `GET /api/v1/apps/{app_id}/entitlements/resource_types/{app_resource_type_id}/resources/{app_resource_id}`
 * (`AppEntitlements.ListForAppResource`): the entitlements on one resource, paged.
 *
 * @example
 * ```ts
 * listEntitlementsForResource(world, "app-aws", "rt-role", "res-aws-account-prod", page); // ok({ list: [{ appEntitlement: {…} }], … })
 * ```
 */
export function listEntitlementsForResource(world: World, appId: string, typeId: string, resourceId: string, page: PageRequest): Read {
  const t = findType(world, appId, typeId);
  if (!t.ok) return t;
  const r = catalogOf(world).resources.find((x) => x.appId === appId && x.appResourceTypeId === typeId && x.id === resourceId);
  if (!r) return notFound(`resource "${resourceId}" of type "${typeId}" of app "${appId}" not found`);
  return ok(listBody(r.entitlements.map(entitlementView), page, { expanded: [] }));
}

// ---------------------------------------------------------------------------------------------
// Searches

const TRAITS = "resource type traits";

/**
 * Every property of `c1.api.app.v1.SearchAppResourceTypesRequest`: read by
 * {@link searchResourceTypes}, or refused.
 *
 * @example
 * ```ts
 * RESOURCE_TYPE_SEARCH_FIELDS.unmodelled["resourceTypeTraitIds"]?.lacks; // "resource type traits"
 * ```
 */
export const RESOURCE_TYPE_SEARCH_FIELDS: SearchFields = {
  implemented: ["pageSize", "pageToken", "appIds", "resourceTypeIds", "excludeResourceTypeIds", "appUserIds", "displayName", "query"],
  unmodelled: {
    resourceTypeTraitIds: { shape: { kind: "strings" }, lacks: TRAITS },
    excludeResourceTypeTraitIds: { shape: { kind: "strings" }, lacks: TRAITS },
  },
};

/**
 * Every property of `c1.api.app.v1.SearchAppResourcesRequest`: read by {@link searchResources}, or
 * refused.
 *
 * @example
 * ```ts
 * RESOURCE_SEARCH_FIELDS.unmodelled["ownerUserIds"]?.lacks; // "resource owners"
 * ```
 */
export const RESOURCE_SEARCH_FIELDS: SearchFields = {
  implemented: [
    "pageSize",
    "pageToken",
    "appId",
    "appIds",
    "resourceTypeIds",
    "resourceIds",
    "excludeResourceIds",
    "refs",
    "appUserIds",
    "query",
    // The world keeps no deleted app nor deleted binding (its resources are those live entitlements
    // name): there is nothing to exclude.
    "excludeDeletedApps",
    "excludeDeletedResourceBindings",
  ],
  unmodelled: {
    agentStatuses: {
      shape: { kind: "enums", members: ["AGENT_STATUS_UNSPECIFIED", "AGENT_STATUS_READY", "AGENT_STATUS_DISABLED", "AGENT_STATUS_DELETED"] },
      lacks: "AI-agent resources",
    },
    credentialTypes: {
      shape: { kind: "enums", members: ["CREDENTIAL_TYPE_UNSPECIFIED", "CREDENTIAL_TYPE_STATIC_SECRET", "CREDENTIAL_TYPE_ASYMMETRIC_KEY", "CREDENTIAL_TYPE_CERTIFICATE"] },
      lacks: "secret or credential resources",
    },
    nhiTypes: {
      shape: { kind: "enums", members: ["NHI_TYPE_UNSPECIFIED", "NHI_TYPE_APP_REGISTRATION", "NHI_TYPE_ASSUMABLE_ROLE", "NHI_TYPE_MANAGED_IDENTITY"] },
      lacks: "non-human identity classification of resources",
    },
    ownerUserIds: { shape: { kind: "strings" }, lacks: "resource owners" },
    unownedOnly: { shape: { kind: "flag" }, lacks: "resource owners" },
    resourceTypeTraitIds: { shape: { kind: "strings" }, lacks: TRAITS },
    excludeResourceTypeTraitIds: { shape: { kind: "strings" }, lacks: TRAITS },
    secretAging: { shape: { kind: "message" }, lacks: "secret resources or their creation, expiry and last-use times" },
    withOpenFindings: { shape: { kind: "flag" }, lacks: "findings" },
    sortField: {
      shape: {
        kind: "member",
        members: ["APP_RESOURCE_SORT_FIELD_UNSPECIFIED", "APP_RESOURCE_SORT_FIELD_SECRET_CREATED_AT", "APP_RESOURCE_SORT_FIELD_SECRET_EXPIRES_AT", "APP_RESOURCE_SORT_FIELD_LAST_USED_AT"],
      },
      lacks: "secret creation, expiry or last-use times to sort resources by",
    },
    // "Direction to sort in", of sortField's column: the default order has no direction to set.
    direction: {
      shape: { kind: "member", members: ["SORT_DIRECTION_UNSPECIFIED", "SORT_DIRECTION_ASC", "SORT_DIRECTION_DESC"] },
      lacks: "sortField columns for a direction to apply to",
    },
  },
};

/** The (app, type, resource) keys of the entitlements the given accounts' users hold. */
function heldBy(world: World, appUserIds: readonly string[]): { types: Set<string>; resources: Set<string> } {
  const holders = new Set<string>();
  for (const id of appUserIds) {
    const au = world.index.appUsers.get(id);
    if (au) holders.add(key(au.appId, au.identityUserId));
  }
  const types = new Set<string>();
  const resources = new Set<string>();
  for (const g of world.grants) {
    if (!holders.has(key(g.appId, g.identityUserId))) continue;
    const e = world.index.entitlementsByApp.get(g.appId)?.get(g.appEntitlementId);
    if (!e || e.appResourceTypeId === "") continue;
    types.add(key(e.appId, e.appResourceTypeId));
    if (e.appResourceId !== "") resources.add(key(e.appId, e.appResourceTypeId, e.appResourceId));
  }
  return { types, resources };
}

/**
 * `POST /api/v1/search/app_resource_types`: by `appIds`, `resourceTypeIds`, `excludeResourceTypeIds`,
 * `appUserIds` (types of the entitlements those accounts hold), `displayName` (exact), `query`;
 * trait filters are refused (no type has traits here); paged.
 *
 * @example
 * ```ts
 * searchResourceTypes(world, { appIds: ["app-aws"] }); // ok({ list: [{ id: "rt-role", … }], nextPageToken: "" })
 * ```
 */
export function searchResourceTypes(world: World, body: Body): Read {
  const f = searchRequest(body, RESOURCE_TYPE_SEARCH_FIELDS, {
    page: pageFromBody(body, bodyFingerprint(body, "resource-types")),
    apps: strings(body, "appIds"),
    ids: strings(body, "resourceTypeIds"),
    exclude: strings(body, "excludeResourceTypeIds"),
    appUsers: strings(body, "appUserIds"),
    name: text(body, "displayName"),
    query: text(body, "query"),
  });
  if (!f.ok) return f;
  const { page, appUsers, name } = f.value;
  const apps = new Set(f.value.apps);
  const ids = new Set(f.value.ids);
  const exclude = new Set(f.value.exclude);
  const query = f.value.query.toLowerCase();
  const held = appUsers.length > 0 ? heldBy(world, appUsers).types : undefined;
  const found = catalogOf(world).types.filter(
    (t) =>
      (apps.size === 0 || apps.has(t.appId)) &&
      (ids.size === 0 || ids.has(t.id)) &&
      !exclude.has(t.id) &&
      (held === undefined || held.has(key(t.appId, t.id))) &&
      (name === "" || t.id === name) &&
      (query === "" || t.id.toLowerCase().includes(query)),
  );
  return ok(listBody(found.map(typeWire), page));
}

function resourceRefs(body: Body): Result<readonly string[], HttpFailure> {
  const v = body["refs"];
  if (v === undefined || v === null) return ok([]);
  const bad = invalid("refs", "refs must be an array of {appId, appResourceTypeId, id} refs");
  if (!Array.isArray(v)) return bad;
  const out: string[] = [];
  for (const r of v) {
    const o = typeof r === "object" && r !== null ? (r as Record<string, unknown>) : {};
    const [a, t, id] = [o["appId"] ?? "", o["appResourceTypeId"] ?? "", o["id"]];
    if (typeof a !== "string" || typeof t !== "string" || typeof id !== "string") return bad;
    out.push(key(a, t, id));
  }
  return ok(out);
}

/** Case-insensitive text order; ties keep the catalog's order (the sort is stable). */
function byName(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x === y ? 0 : x < y ? -1 : 1;
}

/**
 * `POST /api/v1/search/app_resources`: by `appId`/`appIds`, `resourceTypeIds`, `resourceIds`,
 * `excludeResourceIds`, `refs`, `appUserIds` (resources of the entitlements those accounts hold),
 * `query`; in the OpenAPI's default order (app, then display name); paged. Filters on owners,
 * traits, AI-agent, credential, NHI, secret-aging or finding properties, and sorting by a column,
 * are refused: the world has none of them.
 *
 * @example
 * ```ts
 * searchResources(world, { appId: "app-aws", query: "prod" }); // ok({ list: [{ appResource: {…} }], expanded: [], nextPageToken: "" })
 * ```
 */
export function searchResources(world: World, body: Body): Read {
  const f = searchRequest(body, RESOURCE_SEARCH_FIELDS, {
    page: pageFromBody(body, bodyFingerprint(body, "resources")),
    appId: text(body, "appId"),
    apps: strings(body, "appIds"),
    types: strings(body, "resourceTypeIds"),
    ids: strings(body, "resourceIds"),
    exclude: strings(body, "excludeResourceIds"),
    appUsers: strings(body, "appUserIds"),
    query: text(body, "query"),
    refs: resourceRefs(body),
    excludeDeletedApps: flag(body, "excludeDeletedApps"),
    excludeDeletedResourceBindings: flag(body, "excludeDeletedResourceBindings"),
  });
  if (!f.ok) return f;
  const { page, appId, appUsers } = f.value;
  const apps = new Set(appId === "" ? f.value.apps : [appId, ...f.value.apps]);
  const types = new Set(f.value.types);
  const ids = new Set(f.value.ids);
  const exclude = new Set(f.value.exclude);
  const refs = new Set(f.value.refs);
  const query = f.value.query.toLowerCase();
  const held = appUsers.length > 0 ? heldBy(world, appUsers).resources : undefined;
  const found = catalogOf(world).resources.filter((r) => {
    const k = key(r.appId, r.appResourceTypeId, r.id);
    return (
      (apps.size === 0 || apps.has(r.appId)) &&
      (types.size === 0 || types.has(r.appResourceTypeId)) &&
      (ids.size === 0 || ids.has(r.id)) &&
      !exclude.has(r.id) &&
      (refs.size === 0 || refs.has(k)) &&
      (held === undefined || held.has(k)) &&
      (query === "" || r.displayName.toLowerCase().includes(query) || r.id.toLowerCase().includes(query))
    );
  });
  const appName = (r: Resource) => world.index.apps.get(r.appId)?.displayName ?? r.appId;
  found.sort((a, b) => byName(appName(a), appName(b)) || byName(a.displayName, b.displayName));
  const list: JsonValue[] = found.map((r) => resourceView(world, r));
  return ok(listBody(list, page, { expanded: [] }));
}
