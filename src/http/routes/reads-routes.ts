/**
 * The read services of the API, bound to their OpenAPI paths: tasks (`c1.api.task.v1.TaskService.Get`,
 * `TaskSearchService.Search`, `TaskAudit.List`), the directory (users, apps, entitlements, app
 * users, grants, access-request defaults, entitlement configuration rules) and policies (get,
 * list, search). Each is a read of the current world by the signed-in caller (`./reads.ts`).
 */
import type { User } from "../../model/directory.js";
import type { JsonValue } from "../../model/json.js";
import { err, ok, type Result } from "../../result.js";
import type { World } from "../../world/world.js";
import { type HttpFailure, refusal } from "../error-body.js";
import { pageFromQuery, queryFingerprint, type PageRequest } from "../paging.js";
import type { Operation, Route, RouteInput, ServerContext } from "../route.js";
import * as reviews from "./access-review-reads.js";
import { APP_SEARCH_FIELDS, searchApps } from "./app-search.js";
import { APP_USER_SEARCH_FIELDS, searchAppUsers } from "./app-user-search.js";
import { ENTITLEMENT_SEARCH_FIELDS, GRANT_SEARCH_FIELDS, REQUEST_CATALOG_SEARCH_FIELDS, searchEntitlements, searchGrants, searchRequestCatalog } from "./entitlement-search.js";
import * as grants from "./grant-reads.js";
import * as owners from "./owner-reads.js";
import { POLICY_SEARCH_FIELDS, searchPolicies } from "./policy-search.js";
import * as reads from "./reads.js";
import * as resources from "./resource-reads.js";
import * as roles from "./role-reads.js";
import { jsonNames, type SearchFields } from "./search-fields.js";
import { searchTasks, TASK_SEARCH_FIELDS } from "./task-search.js";
import { searchUsers, USER_SEARCH_FIELDS } from "./user-search.js";

/**
 * The signed-in caller as a user of the world (a token may name a user since disabled).
 *
 * @example
 * ```ts
 * callerOf(world, ctx.actorId); // ok(user) or a 401 failure
 * ```
 */
export function callerOf(world: World, actorId: string): Result<User, HttpFailure> {
  const u = world.index.users.get(actorId);
  if (!u) return err(refusal("UNAUTHENTICATED", `caller "${actorId}" is not a user of this world`, { headers: { "www-authenticate": 'Bearer error="invalid_token"' } }));
  if (u.status === "DISABLED" || u.status === "DELETED")
    return err(refusal("UNAUTHENTICATED", `caller "${actorId}" is ${u.status.toLowerCase()}`, { headers: { "www-authenticate": 'Bearer error="invalid_token"' } }));
  return ok(u);
}

type Reader = (world: World, caller: User, input: RouteInput, server: ServerContext) => Result<JsonValue, HttpFailure>;

function read(input: RouteInput, reader: Reader): Result<Operation, HttpFailure> {
  return ok({
    kind: "read",
    read: (world, ctx, server) => {
      const caller = callerOf(world, ctx.actorId);
      return caller.ok ? reader(world, caller.value, input, server) : caller;
    },
  });
}

const param = (input: RouteInput, name: string) => input.params[name] ?? "";

function route(method: "GET" | "POST", path: string, operationId: string, reader: Reader): Route {
  if (method === "GET") return { method, path, operationId, body: "none", handle: (input) => read(input, reader) };
  // A body may name its fields as protojson reads them: by JSON name or by proto name.
  return {
    method,
    path,
    operationId,
    body: "json",
    handle: (input) => {
      const body = jsonNames(input.body);
      return body.ok ? read({ ...input, body: body.value }, reader) : body;
    },
  };
}

/** A GET list: the query's page, then the list. */
function list(path: string, operationId: string, lister: (world: World, input: RouteInput, page: PageRequest) => Result<JsonValue, HttpFailure>): Route {
  return route("GET", path, operationId, (world, _caller, input) => {
    // Tied to the listing itself: its template and the ids in its path (one app's entitlements, not another's).
    const page = pageFromQuery(input.query, queryFingerprint(input.query, `${path} ${JSON.stringify(Object.entries(input.params).sort())}`));
    return page.ok ? lister(world, input, page.value) : page;
  });
}

/**
 * `c1.api.task.v1.TaskService.Get`, `TaskSearchService.Search`, `TaskAudit.List`.
 *
 * @example
 * ```ts
 * TASK_READ_ROUTES.map((r) => `${r.method} ${r.path}`);
 * ```
 */
export const TASK_READ_ROUTES: readonly Route[] = [
  route("GET", "/api/v1/tasks/{id}", "c1.api.task.v1.TaskService.Get", (w, c, i) => reads.getTask(w, c, param(i, "id"))),
  route("POST", "/api/v1/search/tasks", "c1.api.task.v1.TaskSearchService.Search", (w, c, i) => searchTasks(w, c, i.body)),
  route("POST", "/api/v1/task/audits", "c1.api.task.v1.TaskAudit.List", (w, c, i, s) => reads.listTaskAudits(w, c, s.taskEvents, i.body)),
];

/**
 * Users, apps, entitlements, app users, grants, access-request defaults and entitlement
 * configuration rules.
 *
 * @example
 * ```ts
 * DIRECTORY_ROUTES.some((r) => r.path === "/api/v1/search/users"); // true
 * ```
 */
export const DIRECTORY_ROUTES: readonly Route[] = [
  route("GET", "/api/v1/users/{id}", "c1.api.user.v1.UserService.Get", (w, _c, i) => reads.getUser(w, param(i, "id"))),
  // The caller's own UserView; the SDK sends `expandMask` or no body, and the user has no expansions here.
  route("POST", "/api/v1/users/introspect", "c1.api.user.v1.UserService.Introspect", (w, c) => reads.getUser(w, c.id)),
  list("/api/v1/users", "c1.api.user.v1.UserService.List", (w, _i, p) => reads.listUsers(w, p)),
  route("POST", "/api/v1/search/users", "c1.api.user.v1.UserSearch.Search", (w, _c, i) => searchUsers(w, i.body)),
  route("GET", "/api/v1/apps/{id}", "c1.api.app.v1.Apps.Get", (w, _c, i) => reads.getApp(w, param(i, "id"))),
  list("/api/v1/apps", "c1.api.app.v1.Apps.List", (w, _i, p) => reads.listApps(w, p)),
  route("POST", "/api/v1/search/apps", "c1.api.app.v1.AppSearch.Search", (w, _c, i) => searchApps(w, i.body)),
  route("GET", "/api/v1/apps/{app_id}/entitlements/{id}", "c1.api.app.v1.AppEntitlements.Get", (w, _c, i) =>
    reads.getEntitlement(w, param(i, "app_id"), param(i, "id")),
  ),
  list("/api/v1/apps/{app_id}/entitlements", "c1.api.app.v1.AppEntitlements.List", (w, i, p) => reads.listEntitlements(w, param(i, "app_id"), p)),
  route("POST", "/api/v1/search/entitlements", "c1.api.app.v1.AppEntitlementSearchService.Search", (w, _c, i) => searchEntitlements(w, i.body)),
  list("/api/v1/apps/{app_id}/app_users", "c1.api.app.v1.AppUserService.List", (w, i, p) => reads.listAppUsers(w, param(i, "app_id"), p)),
  list("/api/v1/apps/{app_id}/users/{user_id}/app_users", "c1.api.app.v1.AppUserService.ListAppUsersForUser", (w, i, p) =>
    reads.listAppUsersForUser(w, param(i, "app_id"), param(i, "user_id"), p),
  ),
  list("/api/v1/apps/{app_id}/entitlements/users/{app_user_id}", "c1.api.app.v1.AppEntitlements.ListForAppUser", (w, i, p) =>
    reads.listEntitlementsForAppUser(w, param(i, "app_id"), param(i, "app_user_id"), p),
  ),
  list("/api/v1/apps/{app_id}/entitlements/{app_entitlement_id}/users", "c1.api.app.v1.AppEntitlements.ListUsers", (w, i, p) =>
    reads.listEntitlementUsers(w, param(i, "app_id"), param(i, "app_entitlement_id"), p),
  ),
  route("POST", "/api/v1/search/app_users", "c1.api.app.v1.AppUserService.Search", (w, _c, i) => searchAppUsers(w, i.body)),
  list(
    "/api/v1/apps/{app_id}/entitlements/resource_types/{app_resource_type_id}/resources/{app_resource_id}",
    "c1.api.app.v1.AppEntitlements.ListForAppResource",
    (w, i, p) => resources.listEntitlementsForResource(w, param(i, "app_id"), param(i, "app_resource_type_id"), param(i, "app_resource_id"), p),
  ),
  list("/api/v1/apps/{app_id}/resource_types", "c1.api.app.v1.AppResourceTypeService.List", (w, i, p) => resources.listResourceTypes(w, param(i, "app_id"), p)),
  route("GET", "/api/v1/apps/{app_id}/resource_types/{id}", "c1.api.app.v1.AppResourceTypeService.Get", (w, _c, i) =>
    resources.getResourceType(w, param(i, "app_id"), param(i, "id")),
  ),
  list("/api/v1/apps/{app_id}/resource_types/{app_resource_type_id}/resources", "c1.api.app.v1.AppResourceService.List", (w, i, p) =>
    resources.listResources(w, param(i, "app_id"), param(i, "app_resource_type_id"), p),
  ),
  route("GET", "/api/v1/apps/{app_id}/resource_types/{app_resource_type_id}/resources/{id}", "c1.api.app.v1.AppResourceService.Get", (w, _c, i) =>
    resources.getResource(w, param(i, "app_id"), param(i, "app_resource_type_id"), param(i, "id")),
  ),
  route("POST", "/api/v1/search/app_resource_types", "c1.api.app.v1.AppResourceSearch.SearchAppResourceTypes", (w, _c, i) => resources.searchResourceTypes(w, i.body)),
  route("POST", "/api/v1/search/app_resources", "c1.api.app.v1.AppResourceSearch.SearchAppResources", (w, _c, i) => resources.searchResources(w, i.body)),
  list("/api/v1/apps/{app_id}/entitlements/{app_entitlement_id}/grants", "c1.api.app.v1.AppEntitlementSearchService.SearchAppEntitlementsWithExpired", (w, i, p) =>
    grants.searchAppEntitlementsWithExpired(w, param(i, "app_id"), param(i, "app_entitlement_id"), p),
  ),
  route(
    "GET",
    "/api/v1/apps/{app_id}/entitlements/{app_entitlement_id}/users/{identity_user_id}/grants",
    "c1.api.app.v1.AppEntitlementUserBindingService.ListAppUsersForIdentityWithGrant",
    (w, _c, i) => grants.listAppUsersForIdentityWithGrant(w, param(i, "app_id"), param(i, "app_entitlement_id"), param(i, "identity_user_id")),
  ),
  list("/api/v1/search/apps/{app_id}/entitlements/users/{app_user_id}", "c1.api.app.v1.AppEntitlementSearchService.SearchAppEntitlementsForAppUser", (w, i, p) =>
    grants.searchAppEntitlementsForAppUser(w, param(i, "app_id"), param(i, "app_user_id"), p),
  ),
  list("/api/v1/apps/{app_id}/owners", "c1.api.app.v1.AppOwners.List", (w, i, p) => owners.listAppOwners(w, param(i, "app_id"), p)),
  route("GET", "/api/v1/apps/{app_id}/ownerids", "c1.api.app.v1.AppOwners.ListOwnerIDs", (w, _c, i) => owners.listAppOwnerIds(w, param(i, "app_id"))),
  route("POST", "/api/v1/search/user-ownership", "c1.api.app.v1.AppSearch.SearchUserOwnership", (w, _c, i) => owners.searchUserOwnership(w, i.body)),
  list("/api/v1/apps/{app_id}/entitlements/{entitlement_id}/owners", "c1.api.app.v1.AppEntitlementOwners.List", (w, i, p) =>
    owners.listEntitlementOwners(w, param(i, "app_id"), param(i, "entitlement_id"), p),
  ),
  route("GET", "/api/v1/apps/{app_id}/entitlements/{entitlement_id}/ownerids", "c1.api.app.v1.AppEntitlementOwners.ListOwnerIDs", (w, _c, i) =>
    owners.listEntitlementOwnerIds(w, param(i, "app_id"), param(i, "entitlement_id")),
  ),

  route("POST", "/api/v1/search/grants", "c1.api.app.v1.AppEntitlementSearchService.SearchGrants", (w, _c, i) => searchGrants(w, i.body)),
  route("POST", "/api/v1/search/request_catalog/entitlements", "c1.api.requestcatalog.v1.RequestCatalogSearchService.SearchEntitlements", (w, c, i) =>
    searchRequestCatalog(w, c.id, i.body),
  ),
  route("GET", "/api/v1/apps/{app_id}/access_request_defaults", "c1.api.app.v1.AppAccessRequestsDefaultsService.GetAppAccessRequestsDefaults", (w, _c, i) =>
    reads.getAccessRequestDefaults(w, param(i, "app_id")),
  ),
  list("/api/v1/apps/{app_id}/entitlement_configuration_rules", "c1.api.app.v1.AppEntitlementRoutingRuleService.ListAppEntitlementRoutingRules", (w, i, p) =>
    reads.listEntitlementConfigurationRules(w, param(i, "app_id"), p),
  ),
  route("GET", "/api/v1/apps/{app_id}/entitlement_configuration_rules/{id}", "c1.api.app.v1.AppEntitlementRoutingRuleService.GetAppEntitlementRoutingRule", (w, _c, i) =>
    reads.getEntitlementConfigurationRule(w, param(i, "app_id"), param(i, "id")),
  ),
];

/**
 * The tenant's roles (`c1.api.iam.v1.Roles` List and Get) and access review campaigns
 * (`c1.api.accessreview.v1.AccessReviewService` List and Get).
 *
 * @example
 * ```ts
 * TENANT_READ_ROUTES.some((r) => r.path === "/api/v1/access_reviews"); // true
 * ```
 */
export const TENANT_READ_ROUTES: readonly Route[] = [
  list("/api/v1/iam/roles", "c1.api.iam.v1.Roles.List", (w, _i, p) => roles.listRoles(w, p)),
  route("GET", "/api/v1/iam/roles/{role_id}", "c1.api.iam.v1.Roles.Get", (w, _c, i) => roles.getRole(w, param(i, "role_id"))),
  list("/api/v1/access_reviews", "c1.api.accessreview.v1.AccessReviewService.List", (w, _i, p) => reviews.listAccessReviews(w, p)),
  route("GET", "/api/v1/access_review/{id}", "c1.api.accessreview.v1.AccessReviewService.Get", (w, _c, i) => reviews.getAccessReview(w, param(i, "id"))),
];

/**
 * `c1.api.policy.v1.Policies.Get`, `Policies.List`, `PolicySearch.Search`.
 *
 * @example
 * ```ts
 * POLICY_READ_ROUTES.length; // 3
 * ```
 */
export const POLICY_READ_ROUTES: readonly Route[] = [
  route("GET", "/api/v1/policies/{id}", "c1.api.policy.v1.Policies.Get", (w, _c, i) => reads.getPolicy(w, param(i, "id"))),
  list("/api/v1/policies", "c1.api.policy.v1.Policies.List", (w, _i, p) => reads.listPolicies(w, p)),
  route("POST", "/api/v1/search/policies", "c1.api.policy.v1.PolicySearch.Search", (w, _c, i) => searchPolicies(w, i.body)),
];

/**
 * The request fields of each served search (`POST /api/v1/search/…`), by operationId: those its
 * route reads and those it refuses as unmodelled. `search-fields.test.ts` holds each to the
 * request schema of its operation in openapi.yaml, so a field cannot be left unread unnoticed.
 *
 * @example
 * ```ts
 * SEARCH_REQUEST_FIELDS["c1.api.task.v1.TaskSearchService.Search"]?.implemented.includes("assigneesInIds"); // true
 * ```
 */
export const SEARCH_REQUEST_FIELDS: Readonly<Record<string, SearchFields>> = {
  "c1.api.task.v1.TaskSearchService.Search": TASK_SEARCH_FIELDS,
  "c1.api.user.v1.UserSearch.Search": USER_SEARCH_FIELDS,
  "c1.api.app.v1.AppSearch.Search": APP_SEARCH_FIELDS,
  "c1.api.app.v1.AppEntitlementSearchService.Search": ENTITLEMENT_SEARCH_FIELDS,
  "c1.api.app.v1.AppUserService.Search": APP_USER_SEARCH_FIELDS,
  "c1.api.app.v1.AppEntitlementSearchService.SearchGrants": GRANT_SEARCH_FIELDS,
  "c1.api.requestcatalog.v1.RequestCatalogSearchService.SearchEntitlements": REQUEST_CATALOG_SEARCH_FIELDS,
  "c1.api.app.v1.AppResourceSearch.SearchAppResourceTypes": resources.RESOURCE_TYPE_SEARCH_FIELDS,
  "c1.api.app.v1.AppResourceSearch.SearchAppResources": resources.RESOURCE_SEARCH_FIELDS,
  "c1.api.app.v1.AppSearch.SearchUserOwnership": owners.USER_OWNERSHIP_SEARCH_FIELDS,
  "c1.api.policy.v1.PolicySearch.Search": POLICY_SEARCH_FIELDS,
};
