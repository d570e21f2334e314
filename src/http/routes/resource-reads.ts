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
 * search restricted to traits, owners or AI-agent, secret, credential or NHI properties matches
 * nothing (README "Assumptions").
 */
import type { AppEntitlement } from "../../model/directory.js";
import type { JsonObject, JsonValue } from "../../model/json.js";
import { ok, type Result } from "../../result.js";
import type { World } from "../../world/world.js";
import type { HttpFailure } from "../error-body.js";
import { pageFromBody, type PageRequest } from "../paging.js";
import { entitlementView, listBody } from "./reads.js";
import { invalid, notFound } from "./refuse.js";

type Body = Readonly<Record<string, unknown>>;
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
  const catalog = { types: [...types.values()], resources: [...resources.values()] };
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

function strings(body: Body, k: string): Result<readonly string[], HttpFailure> {
  const v = body[k];
  if (v === undefined || v === null) return ok([]);
  if (!Array.isArray(v) || v.some((s) => typeof s !== "string")) return invalid(k, `${k} must be an array of strings`);
  return ok(v as string[]);
}

function text(body: Body, k: string): Result<string, HttpFailure> {
  const v = body[k];
  if (v === undefined || v === null) return ok("");
  return typeof v === "string" ? ok(v) : invalid(k, `${k} must be a string`);
}

/** Several request fields at once: their values, or the first failure. */
function all<T extends readonly Result<unknown, HttpFailure>[]>(
  ...fields: T
): Result<{ readonly [K in keyof T]: T[K] extends Result<infer V, HttpFailure> ? V : never }, HttpFailure> {
  const out: unknown[] = [];
  for (const f of fields) {
    if (!f.ok) return f;
    out.push(f.value);
  }
  return ok(out as never);
}

const anyOf = (wanted: readonly string[], v: string) => wanted.length === 0 || wanted.includes(v);
const fuzzy = (query: string, ...fields: readonly string[]) => query === "" || fields.some((f) => f.toLowerCase().includes(query.toLowerCase()));

/** The (app, type, resource) keys of the entitlements the given accounts' users hold. */
function heldBy(world: World, appUserIds: readonly string[]): { types: Set<string>; resources: Set<string> } {
  const types = new Set<string>();
  const resources = new Set<string>();
  for (const id of appUserIds) {
    const au = world.index.appUsers.get(id);
    if (!au) continue;
    for (const g of world.grants) {
      if (g.appId !== au.appId || g.identityUserId !== au.identityUserId) continue;
      const e = world.index.entitlementsByApp.get(g.appId)?.get(g.appEntitlementId);
      if (!e || e.appResourceTypeId === "") continue;
      types.add(key(e.appId, e.appResourceTypeId));
      if (e.appResourceId !== "") resources.add(key(e.appId, e.appResourceTypeId, e.appResourceId));
    }
  }
  return { types, resources };
}

/**
 * `POST /api/v1/search/app_resource_types`: by `appIds`, `resourceTypeIds`, `excludeResourceTypeIds`,
 * `appUserIds` (types of the entitlements those accounts hold), `displayName` (exact), `query`; a
 * `resourceTypeTraitIds` restriction matches nothing (no type has traits here); paged.
 *
 * @example
 * ```ts
 * searchResourceTypes(world, { appIds: ["app-aws"] }); // ok({ list: [{ id: "rt-role", … }], nextPageToken: "" })
 * ```
 */
export function searchResourceTypes(world: World, body: Body): Read {
  const page = pageFromBody(body);
  if (!page.ok) return page;
  const f = all(
    strings(body, "appIds"),
    strings(body, "resourceTypeIds"),
    strings(body, "excludeResourceTypeIds"),
    strings(body, "appUserIds"),
    text(body, "displayName"),
    text(body, "query"),
    strings(body, "resourceTypeTraitIds"),
    strings(body, "excludeResourceTypeTraitIds"),
  );
  if (!f.ok) return f;
  const [apps, ids, exclude, appUsers, name, query, traits] = f.value;
  const held = appUsers.length > 0 ? heldBy(world, appUsers).types : undefined;
  const found = catalogOf(world).types.filter(
    (t) =>
      traits.length === 0 &&
      anyOf(apps, t.appId) &&
      anyOf(ids, t.id) &&
      !exclude.includes(t.id) &&
      (held === undefined || held.has(key(t.appId, t.id))) &&
      (name === "" || t.id === name) &&
      fuzzy(query, t.id),
  );
  return ok(listBody(found.map(typeWire), page.value));
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

/** Filters about what the world does not model: a restriction by any of them matches nothing. */
const UNMODELLED_RESTRICTIONS = ["resourceTypeTraitIds", "agentStatuses", "credentialTypes", "nhiTypes"] as const;

/**
 * `POST /api/v1/search/app_resources`: by `appId`/`appIds`, `resourceTypeIds`, `resourceIds`,
 * `excludeResourceIds`, `refs`, `appUserIds` (resources of the entitlements those accounts hold),
 * `query`; `ownerUserIds` matches only with the "none" sentinel and `unownedOnly` matches all (no
 * resource has owners here); trait, agent, credential, NHI, secret-aging and finding restrictions
 * match nothing; paged.
 *
 * @example
 * ```ts
 * searchResources(world, { appId: "app-aws", query: "prod" }); // ok({ list: [{ appResource: {…} }], expanded: [], nextPageToken: "" })
 * ```
 */
export function searchResources(world: World, body: Body): Read {
  const page = pageFromBody(body);
  if (!page.ok) return page;
  const f = all(
    text(body, "appId"),
    strings(body, "appIds"),
    strings(body, "resourceTypeIds"),
    strings(body, "resourceIds"),
    strings(body, "excludeResourceIds"),
    strings(body, "appUserIds"),
    strings(body, "ownerUserIds"),
    text(body, "query"),
    resourceRefs(body),
  );
  if (!f.ok) return f;
  const [appId, appIdList, types, ids, exclude, appUsers, owners, query, refs] = f.value;
  for (const k of UNMODELLED_RESTRICTIONS) {
    const v = strings(body, k);
    if (!v.ok) return v;
    if (v.value.length > 0) return ok(listBody([], page.value, { expanded: [] }));
  }
  const unmodelled = (body["secretAging"] !== undefined && body["secretAging"] !== null) || body["withOpenFindings"] === true;
  if (unmodelled || (owners.length > 0 && !owners.includes("none"))) return ok(listBody([], page.value, { expanded: [] }));
  const apps = appId === "" ? appIdList : [appId, ...appIdList];
  const held = appUsers.length > 0 ? heldBy(world, appUsers).resources : undefined;
  const found = catalogOf(world).resources.filter(
    (r) =>
      anyOf(apps, r.appId) &&
      anyOf(types, r.appResourceTypeId) &&
      anyOf(ids, r.id) &&
      !exclude.includes(r.id) &&
      (refs.length === 0 || refs.includes(key(r.appId, r.appResourceTypeId, r.id))) &&
      (held === undefined || held.has(key(r.appId, r.appResourceTypeId, r.id))) &&
      fuzzy(query, r.displayName, r.id),
  );
  const list: JsonValue[] = found.map((r) => resourceView(world, r));
  return ok(listBody(list, page.value, { expanded: [] }));
}
