/**
 * `POST /api/v1/search/apps` (`c1.api.app.v1.AppSearch.Search`): the world's apps that match every
 * filter of a `SearchAppsRequest`, in world order, paged.
 */
import { unknownText } from "../../model/common.js";
import type { App } from "../../model/directory.js";
import type { JsonObject } from "../../model/json.js";
import { ok, type Result } from "../../result.js";
import type { World } from "../../world/world.js";
import type { HttpFailure } from "../error-body.js";
import { bodyFingerprint, pageFromBody } from "../paging.js";
import { appWire, listBody } from "./reads.js";
import { type Body, refIds, type SearchFields, searchRequest, strings, text } from "./search-fields.js";

type Read = Result<JsonObject, HttpFailure>;

/**
 * Every property of `c1.api.app.v1.SearchAppsRequest`: read by {@link searchApps}, or refused.
 *
 * @example
 * ```ts
 * APP_SEARCH_FIELDS.implemented.includes("policyRefs"); // true
 * ```
 */
export const APP_SEARCH_FIELDS: SearchFields = {
  implemented: ["pageSize", "pageToken", "appIds", "excludeAppIds", "displayName", "query", "policyRefs"],
  unmodelled: {
    onlyDirectories: { shape: { kind: "flag" }, lacks: "directory apps (which apps are sources of users)" },
  },
};

const usesPolicy = (a: App, policies: ReadonlySet<string>) => policies.has(a.grantPolicyId) || policies.has(a.revokePolicyId) || policies.has(a.certifyPolicyId);

/**
 * `POST /api/v1/search/apps`: by `appIds`, `excludeAppIds`, `displayName` (case-insensitive, as the
 * OpenAPI says), `query` (display name or id), `policyRefs` (the app's grant, revoke or certify
 * policy is one of them); paged.
 *
 * @example
 * ```ts
 * searchApps(world, { displayName: "aws" }); // the app named "AWS"
 * ```
 */
export function searchApps(world: World, body: Body): Read {
  const f = searchRequest(body, APP_SEARCH_FIELDS, {
    page: pageFromBody(body, bodyFingerprint(body, "apps")),
    ids: strings(body, "appIds"),
    exclude: strings(body, "excludeAppIds"),
    name: text(body, "displayName"),
    query: text(body, "query"),
    policies: refIds(body, "policyRefs"),
  });
  if (!f.ok) return f;
  const { page } = f.value;
  const ids = new Set(f.value.ids);
  const exclude = new Set(f.value.exclude);
  const policies = new Set(f.value.policies);
  const name = f.value.name.toLowerCase();
  const query = f.value.query.toLowerCase();
  const found = world.apps.filter(
    (a) =>
      (ids.size === 0 || ids.has(a.id)) &&
      !exclude.has(a.id) &&
      (name === "" || a.displayName.toLowerCase() === name) &&
      (policies.size === 0 || usesPolicy(a, policies)) &&
      (query === "" || a.displayName.toLowerCase().includes(query) || unknownText(a, "description").toLowerCase().includes(query) || a.id.toLowerCase().includes(query)),
  );
  return ok(listBody(found.map((a) => appWire(world, a)), page));
}
