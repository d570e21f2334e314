/**
 * The owner writes of apps and entitlements (`c1.api.app.v1.AppOwners`, `AppEntitlementOwners`),
 * bound to their OpenAPI paths. A write runs under the store's lock like a task action, so a later
 * Hard Reset or new task routes owner approval steps to the new owners.
 */
import type { Route } from "../route.js";
import { editRoute as route, param as p } from "./edit-route.js";
import * as edits from "./owner-edits.js";

const APP = "/api/v1/apps/{app_id}/owners";
const ENTITLEMENT = "/api/v1/apps/{app_id}/entitlements/{entitlement_id}/owners";

/**
 * Add, remove, set and delete owners of an app and of an entitlement.
 *
 * @example
 * ```ts
 * OWNER_WRITE_ROUTES.map((r) => `${r.method} ${r.path}`);
 * ```
 */
export const OWNER_WRITE_ROUTES: readonly Route[] = [
  route("POST", `${APP}/{user_id}`, "c1.api.app.v1.AppOwners.Add", (w, c, i) => edits.addAppOwner(w, c, p(i, "app_id"), p(i, "user_id"))),
  route("DELETE", `${APP}/{user_id}`, "c1.api.app.v1.AppOwners.Remove", (w, c, i) => edits.removeAppOwner(w, c, p(i, "app_id"), p(i, "user_id"))),
  route("PUT", APP, "c1.api.app.v1.AppOwners.Set", (w, c, i) => edits.setAppOwners(w, c, p(i, "app_id"), i.body)),
  route("DELETE", APP, "c1.api.app.v1.AppOwners.Delete", (w, c, i) => edits.deleteAppOwners(w, c, p(i, "app_id"), i.body)),
  route("POST", ENTITLEMENT, "c1.api.app.v1.AppEntitlementOwners.Add", (w, c, i) => edits.addEntitlementOwner(w, c, p(i, "app_id"), p(i, "entitlement_id"), i.body)),
  route("DELETE", `${ENTITLEMENT}/{user_id}`, "c1.api.app.v1.AppEntitlementOwners.Remove", (w, c, i) =>
    edits.removeEntitlementOwner(w, c, p(i, "app_id"), p(i, "entitlement_id"), p(i, "user_id")),
  ),
  route("PUT", ENTITLEMENT, "c1.api.app.v1.AppEntitlementOwners.Set", (w, c, i) => edits.setEntitlementOwners(w, c, p(i, "app_id"), p(i, "entitlement_id"), i.body)),
  route("DELETE", ENTITLEMENT, "c1.api.app.v1.AppEntitlementOwners.Delete", (w, c, i) => edits.deleteEntitlementOwners(w, c, p(i, "app_id"), p(i, "entitlement_id"))),
];
