/**
 * `POST /api/v1/search/policies` (`c1.api.policy.v1.PolicySearch.Search`): the world's policies
 * that match every filter of a `SearchPoliciesRequest`, in world order, paged.
 *
 * Scope: a policy whose `scope` names an app is local to that app (to one of its entitlements when
 * it also names `appEntitlementId`); any other policy is global. As the OpenAPI says, a search
 * returns global policies unless `scopeView` asks for local ones, and `refs` look policies up
 * whatever their scope.
 */
import { KNOWN_POLICY_SCOPE_SLOTS, KNOWN_POLICY_TYPES, type Policy } from "../../model/index.js";
import type { JsonObject } from "../../model/json.js";
import { ok, type Result } from "../../result.js";
import type { World } from "../../world/world.js";
import type { HttpFailure } from "../error-body.js";
import { bodyFingerprint, pageFromBody } from "../paging.js";
import { listBody, policyWire } from "./reads.js";
import { type Body, enums, flag, member, refIds, type SearchFields, searchRequest, strings, text } from "./search-fields.js";

type Read = Result<JsonObject, HttpFailure>;

const SCOPE_VIEWS = ["POLICY_SCOPE_VIEW_UNSPECIFIED", "POLICY_SCOPE_VIEW_GLOBAL", "POLICY_SCOPE_VIEW_SCOPED", "POLICY_SCOPE_VIEW_ALL", "POLICY_SCOPE_VIEW_GLOBAL_AND_OBJECT"] as const;
const SCOPE_OBJECT_TYPES = ["POLICY_SCOPE_OBJECT_TYPE_UNSPECIFIED", "POLICY_SCOPE_OBJECT_TYPE_APP", "POLICY_SCOPE_OBJECT_TYPE_ENTITLEMENT"] as const;

/**
 * Every property of `c1.api.policy.v1.SearchPoliciesRequest`: all read by {@link searchPolicies}.
 *
 * @example
 * ```ts
 * POLICY_SEARCH_FIELDS.implemented.includes("scopeView"); // true
 * ```
 */
export const POLICY_SEARCH_FIELDS: SearchFields = {
  implemented: [
    "pageSize",
    "pageToken",
    "refs",
    "excludePolicyIds",
    "policyTypes",
    "displayName",
    "query",
    "includeDeleted",
    "scopeView",
    "scopeAppId",
    "scopeAppEntitlementId",
    "scopeObjectType",
    "scopeSlot",
  ],
  unmodelled: {},
};

interface ScopeQuery {
  readonly view: string;
  readonly appId: string;
  readonly entitlementId: string;
  readonly objectType: string;
  readonly slot: string;
}

const isLocal = (p: Policy) => p.scope !== null && p.scope.appId !== "";

/** Whether a local policy is one of those the scoped part of the request asks for. */
function inScope(p: Policy, s: ScopeQuery): boolean {
  const scope = p.scope;
  if (scope === null || scope.appId === "") return false;
  if (s.appId !== "" && scope.appId !== s.appId) return false;
  if (s.entitlementId !== "" && scope.appEntitlementId !== s.entitlementId) return false;
  if (s.objectType === "POLICY_SCOPE_OBJECT_TYPE_APP" && scope.appEntitlementId !== "") return false;
  if (s.objectType === "POLICY_SCOPE_OBJECT_TYPE_ENTITLEMENT" && scope.appEntitlementId === "") return false;
  // "Ignored when no object is identified by scope_app_id": the slot narrows one object's policies.
  return s.appId === "" || s.slot === "POLICY_SCOPE_SLOT_UNSPECIFIED" || scope.slot === s.slot;
}

/** openapi.yaml `scopeView`: global only by default; local ones as SCOPED and GLOBAL_AND_OBJECT narrow them. */
function visible(p: Policy, s: ScopeQuery): boolean {
  switch (s.view) {
    case "POLICY_SCOPE_VIEW_ALL":
      return true;
    case "POLICY_SCOPE_VIEW_SCOPED":
      return inScope(p, s);
    case "POLICY_SCOPE_VIEW_GLOBAL_AND_OBJECT":
      // "the identified object's" local policies beside the global ones; with no object, the global ones.
      return !isLocal(p) || (s.appId !== "" && inScope(p, s));
    default:
      return !isLocal(p);
  }
}

/**
 * `POST /api/v1/search/policies`: by `refs`, `excludePolicyIds`, `policyTypes`, `displayName`
 * (case-insensitive), `query`, `includeDeleted` (policies with `deletedAt` are left out otherwise),
 * and scope (`scopeView` with `scopeAppId`, `scopeAppEntitlementId`, `scopeObjectType`,
 * `scopeSlot`); paged.
 *
 * @example
 * ```ts
 * searchPolicies(world, { policyTypes: ["POLICY_TYPE_GRANT"], scopeView: "POLICY_SCOPE_VIEW_ALL" });
 * ```
 */
export function searchPolicies(world: World, body: Body): Read {
  const f = searchRequest(body, POLICY_SEARCH_FIELDS, {
    page: pageFromBody(body, bodyFingerprint(body, "policies")),
    refs: refIds(body, "refs"),
    exclude: strings(body, "excludePolicyIds"),
    types: enums(body, "policyTypes", KNOWN_POLICY_TYPES),
    name: text(body, "displayName"),
    query: text(body, "query"),
    includeDeleted: flag(body, "includeDeleted"),
    view: member(body, "scopeView", SCOPE_VIEWS),
    appId: text(body, "scopeAppId"),
    entitlementId: text(body, "scopeAppEntitlementId"),
    objectType: member(body, "scopeObjectType", SCOPE_OBJECT_TYPES),
    slot: member(body, "scopeSlot", KNOWN_POLICY_SCOPE_SLOTS),
  });
  if (!f.ok) return f;
  const { page, includeDeleted } = f.value;
  const refs = new Set(f.value.refs);
  const exclude = new Set(f.value.exclude);
  const types = new Set(f.value.types);
  const name = f.value.name.toLowerCase();
  const query = f.value.query.toLowerCase();
  const found = world.policies.filter(
    (p) =>
      (refs.size === 0 ? visible(p, f.value) : refs.has(p.id)) &&
      !exclude.has(p.id) &&
      (includeDeleted || p.deletedAt === null) &&
      (types.size === 0 || types.has(p.policyType)) &&
      (name === "" || p.displayName.toLowerCase() === name) &&
      (query === "" || [p.displayName, p.description, p.id].some((s) => s.toLowerCase().includes(query))),
  );
  return ok(listBody(found.map(policyWire), page));
}
