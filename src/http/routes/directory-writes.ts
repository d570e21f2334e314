/**
 * `c1.api.app.v1.Apps.Update`, `AppEntitlements.Update` and the entitlement configuration rule
 * writes, bound to their OpenAPI paths. A write runs under the store's lock like a task action, so
 * a later Hard Reset or new task resolves its policy from the updated app, entitlement or rules.
 */
import { editRoute, param as p } from "./edit-route.js";
import * as reviews from "./access-review-edits.js";
import * as rules from "./config-rule-edits.js";
import { updateAppUser } from "./app-user-edits.js";
import { deleteApp, deleteEntitlement } from "./directory-deletes.js";
import { addManualMembers, removeBindingGrantDuration, removeMembership, updateBindingGrantDuration } from "./membership-edits.js";
import { createApp, createEntitlement, updateApp, updateEntitlement } from "./directory-edits.js";
import * as defaults from "./request-defaults-edits.js";
import type { Route } from "../route.js";

const route = (path: string, operationId: string, edit: Parameters<typeof editRoute>[3], method: "POST" | "DELETE" = "POST"): Route =>
  editRoute(method, path, operationId, edit);

const RULES = "/api/v1/apps/{app_id}/entitlement_configuration_rules";
const BINDING = "/api/v1/apps/{app_id}/entitlements/{app_entitlement_id}/users/{app_user_id}";

/**
 * Create, update and delete an app and an entitlement; add and remove an entitlement's manual
 * members; change or remove when a grant ends; update an account's type and user; create, update, delete and reorder configuration rules;
 * set the app's access-request defaults; create, update and delete campaigns.
 *
 * @example
 * ```ts
 * DIRECTORY_WRITE_ROUTES[0]?.operationId; // "c1.api.app.v1.Apps.Update"
 * ```
 */
export const DIRECTORY_WRITE_ROUTES: readonly Route[] = [
  route("/api/v1/apps", "c1.api.app.v1.Apps.Create", (w, c, i) => createApp(w, c, i.body)),
  route("/api/v1/apps/{app_id}/entitlements", "c1.api.app.v1.AppEntitlements.Create", (w, c, i) => createEntitlement(w, c, p(i, "app_id"), i.body)),
  route("/api/v1/apps/{id}", "c1.api.app.v1.Apps.Update", (w, c, i) => updateApp(w, c, p(i, "id"), i.body)),
  route("/api/v1/apps/{app_id}/entitlements/{id}", "c1.api.app.v1.AppEntitlements.Update", (w, c, i) => updateEntitlement(w, c, p(i, "app_id"), p(i, "id"), i.body)),
  route("/api/v1/apps/{id}", "c1.api.app.v1.Apps.Delete", (w, c, i) => deleteApp(w, c, p(i, "id")), "DELETE"),
  route("/api/v1/apps/{app_id}/entitlements/{id}", "c1.api.app.v1.AppEntitlements.Delete", (w, c, i) => deleteEntitlement(w, c, p(i, "app_id"), p(i, "id")), "DELETE"),
  route("/api/v1/apps/{app_id}/entitlements/{app_entitlement_id}/add-manual-user", "c1.api.app.v1.AppEntitlements.AddManuallyManagedMembers", (w, c, i) =>
    addManualMembers(w, c, p(i, "app_id"), p(i, "app_entitlement_id"), i.body),
  ),
  route("/api/v1/apps/{app_user_app_id}/app_users/{app_user_id}", "c1.api.app.v1.AppUserService.Update", (w, c, i) =>
    updateAppUser(w, c, p(i, "app_user_app_id"), p(i, "app_user_id"), i.body),
  ),
  route(
    "/api/v1/apps/{app_id}/entitlements/{app_entitlement_id}/remove-membership",
    "c1.api.app.v1.AppEntitlements.RemoveEntitlementMembership",
    (w, c, i) => removeMembership(w, c, p(i, "app_id"), p(i, "app_entitlement_id"), i.body),
    "DELETE",
  ),
  route(`${BINDING}/update-grant-duration`, "c1.api.app.v1.AppEntitlementUserBindingService.UpdateGrantDuration", (w, c, i, ctx) =>
    updateBindingGrantDuration(w, c, p(i, "app_id"), p(i, "app_entitlement_id"), p(i, "app_user_id"), i.body, ctx.now ?? w.now),
  ),
  route(`${BINDING}/remove-grant-duration`, "c1.api.app.v1.AppEntitlementUserBindingService.RemoveGrantDuration", (w, c, i) =>
    removeBindingGrantDuration(w, c, p(i, "app_id"), p(i, "app_entitlement_id"), p(i, "app_user_id")),
  ),
  route(RULES, "c1.api.app.v1.AppEntitlementRoutingRuleService.CreateAppEntitlementRoutingRule", (w, c, i) => rules.createConfigRule(w, c, p(i, "app_id"), i.body)),
  route(`${RULES}/{id}`, "c1.api.app.v1.AppEntitlementRoutingRuleService.UpdateAppEntitlementRoutingRule", (w, c, i) =>
    rules.updateConfigRule(w, c, p(i, "app_id"), p(i, "id"), i.body),
  ),
  route(
    `${RULES}/{id}`,
    "c1.api.app.v1.AppEntitlementRoutingRuleService.DeleteAppEntitlementRoutingRule",
    (w, c, i) => rules.deleteConfigRule(w, c, p(i, "app_id"), p(i, "id")),
    "DELETE",
  ),
  route(`${RULES}/reorder`, "c1.api.app.v1.AppEntitlementRoutingRuleService.ReorderAppEntitlementRoutingRules", (w, c, i) =>
    rules.reorderConfigRules(w, c, p(i, "app_id"), i.body),
  ),
  route("/api/v1/apps/{app_id}/access_request_defaults", "c1.api.app.v1.AppAccessRequestsDefaultsService.CreateAppAccessRequestsDefaults", (w, c, i) =>
    defaults.setAccessRequestDefaults(w, c, p(i, "app_id"), i.body),
  ),
  route("/api/v1/apps/{app_id}/access_request_defaults/cancel", "c1.api.app.v1.AppAccessRequestsDefaultsService.CancelAppAccessRequestsDefaults", (w, c, i) =>
    defaults.cancelAccessRequestDefaults(w, c, p(i, "app_id")),
  ),
  route("/api/v1/access_review", "c1.api.accessreview.v1.AccessReviewService.Create", (w, c, i) => reviews.createAccessReview(w, c, i.body)),
  route("/api/v1/access_review/{id}", "c1.api.accessreview.v1.AccessReviewService.Update", (w, c, i) => reviews.updateAccessReview(w, c, p(i, "id"), i.body)),
  route("/api/v1/access_review/{id}", "c1.api.accessreview.v1.AccessReviewService.Delete", (w, c, i) => reviews.deleteAccessReview(w, c, p(i, "id")), "DELETE"),
];
