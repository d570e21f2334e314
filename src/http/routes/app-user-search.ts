/**
 * `POST /api/v1/search/app_users` (`c1.api.app.v1.AppUserService.Search`): the world's accounts
 * that match every filter of an `AppUserServiceSearchRequest`, in display-name order (or by app),
 * paged, with the identity users and apps its `expandMask` asks for.
 */
import type { AppUser } from "../../model/directory.js";
import type { JsonObject, JsonValue } from "../../model/json.js";
import { ok, type Result } from "../../result.js";
import { accountStatusOf, accountTypeOf, TYPE_URLS } from "../../world/encode-directory.js";
import type { World } from "../../world/world.js";
import type { HttpFailure } from "../error-body.js";
import { bodyFingerprint, pageFromBody, pageOf } from "../paging.js";
import { appUserView, appWire, userWire } from "./reads.js";
import {
  appRefs,
  type Body,
  enums,
  Expanded,
  expandMask,
  flag,
  member,
  type SearchFields,
  searchRequest,
  strings,
  text,
} from "./search-fields.js";

type Read = Result<JsonObject, HttpFailure>;

/**
 * The `AppUserStatus.status` members, as the search requests name them (`accountStatuses`,
 * `appUserStatuses`).
 *
 * @example
 * ```ts
 * ACCOUNT_STATUSES[0]; // "STATUS_UNSPECIFIED"
 * ```
 */
export const ACCOUNT_STATUSES = ["STATUS_UNSPECIFIED", "STATUS_ENABLED", "STATUS_DISABLED", "STATUS_DELETED"] as const;

/**
 * The `AppUser.appUserType` members.
 *
 * @example
 * ```ts
 * ACCOUNT_TYPES.includes("APP_USER_TYPE_SERVICE_ACCOUNT"); // true
 * ```
 */
export const ACCOUNT_TYPES = ["APP_USER_TYPE_UNSPECIFIED", "APP_USER_TYPE_USER", "APP_USER_TYPE_SERVICE_ACCOUNT", "APP_USER_TYPE_SYSTEM_ACCOUNT"] as const;

export { accountStatusOf, accountTypeOf };

const SORTS = ["APP_USER_SEARCH_SORT_BY_UNSPECIFIED", "APP_USER_SEARCH_SORT_BY_APP"] as const;
const EXPAND_PATHS = ["*", "identity_user_id", "app_id", "last_usage"] as const;

/**
 * Every property of `c1.api.app.v1.AppUserServiceSearchRequest`: read by {@link searchAppUsers}, or refused.
 *
 * @example
 * ```ts
 * APP_USER_SEARCH_FIELDS.unmodelled["nhiTypes"]?.lacks; // "non-human identity classification of accounts"
 * ```
 */
export const APP_USER_SEARCH_FIELDS: SearchFields = {
  implemented: [
    "pageSize",
    "pageToken",
    "expandMask",
    "appId",
    "appIds",
    "appUserIds",
    "excludeAppUserIds",
    "refs",
    "userIds",
    "appUserTypes",
    "appUserStatuses",
    "appUserStatusDetails",
    "withoutResponsibleParty",
    // The world keeps no deleted app (a delete removes it with its accounts): nothing to exclude.
    "excludeDeletedApps",
    "query",
    "sortBy",
  ],
  unmodelled: {
    agentStatuses: {
      shape: { kind: "enums", members: ["APP_USER_AGENT_STATUS_UNSPECIFIED", "APP_USER_AGENT_STATUS_READY", "APP_USER_AGENT_STATUS_DISABLED", "APP_USER_AGENT_STATUS_DELETED"] },
      lacks: "agent trait (agent_status) on accounts",
    },
    appUserDomains: {
      shape: { kind: "enums", members: ["APP_USER_DOMAIN_UNSPECIFIED", "APP_USER_DOMAIN_EXTERNAL", "APP_USER_DOMAIN_TRUSTED"] },
      lacks: "account domains (external or trusted accounts)",
    },
    nhiTypes: {
      shape: { kind: "enums", members: ["APP_USER_NHI_TYPE_UNSPECIFIED", "APP_USER_NHI_TYPE_APP_REGISTRATION", "APP_USER_NHI_TYPE_ASSUMABLE_ROLE", "APP_USER_NHI_TYPE_MANAGED_IDENTITY"] },
      lacks: "non-human identity classification of accounts",
    },
    withOpenFindings: { shape: { kind: "flag" }, lacks: "findings" },
  },
};

const matches = (query: string, a: AppUser) =>
  a.displayName.toLowerCase().includes(query) || a.email.toLowerCase().includes(query) || a.username.toLowerCase().includes(query) || a.id.toLowerCase().includes(query);

/** Case-insensitive text order, an empty name last; ties keep world order (the sort is stable). */
function byName(a: string, b: string): number {
  if (a === "" || b === "") return a === b ? 0 : a === "" ? 1 : -1;
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x === y ? 0 : x < y ? -1 : 1;
}

/**
 * `POST /api/v1/search/app_users`: the accounts matching every filter (see
 * {@link APP_USER_SEARCH_FIELDS}), by display name ("Defaults to display-name ordering") or, with
 * `APP_USER_SEARCH_SORT_BY_APP`, by app name then display name; paged.
 *
 * @example
 * ```ts
 * searchAppUsers(world, { appId: "app-aws", appUserStatuses: ["STATUS_DISABLED"] });
 * ```
 */
export function searchAppUsers(world: World, body: Body): Read {
  const f = searchRequest(body, APP_USER_SEARCH_FIELDS, {
    page: pageFromBody(body, bodyFingerprint(body, "app-users")),
    appId: text(body, "appId"),
    apps: strings(body, "appIds"),
    ids: strings(body, "appUserIds"),
    exclude: strings(body, "excludeAppUserIds"),
    refs: appRefs(body, "refs"),
    users: strings(body, "userIds"),
    types: enums(body, "appUserTypes", ACCOUNT_TYPES),
    statuses: enums(body, "appUserStatuses", ACCOUNT_STATUSES),
    details: strings(body, "appUserStatusDetails"),
    unowned: flag(body, "withoutResponsibleParty"),
    excludeDeletedApps: flag(body, "excludeDeletedApps"),
    query: text(body, "query"),
    sortBy: member(body, "sortBy", SORTS),
    expand: expandMask(body, EXPAND_PATHS),
  });
  if (!f.ok) return f;
  const { page, appId, refs, unowned, sortBy, expand } = f.value;
  const set = (xs: readonly string[]): ReadonlySet<string> => new Set(xs);
  const apps = set(appId === "" ? f.value.apps : [appId, ...f.value.apps]);
  const ids = set(f.value.ids);
  const exclude = set(f.value.exclude);
  const users = set(f.value.users);
  const types = set(f.value.types);
  const statuses = set(f.value.statuses);
  const details = set(f.value.details);
  const query = f.value.query.toLowerCase();
  // refs as sets: an account id in any app, and (app, id) pairs; a body of 95k refs was 4 s of refs.some per search.
  const anyAppRefs = set(refs.filter((r) => r.appId === "").map((r) => r.id));
  const pairRefs = set(refs.filter((r) => r.appId !== "").map((r) => `${r.appId}\u0000${r.id}`));
  const found = world.appUsers.filter(
    (a) =>
      (apps.size === 0 || apps.has(a.appId)) &&
      (ids.size === 0 || ids.has(a.id)) &&
      !exclude.has(a.id) &&
      (refs.length === 0 || anyAppRefs.has(a.id) || pairRefs.has(`${a.appId}\u0000${a.id}`)) &&
      (users.size === 0 || users.has(a.identityUserId)) &&
      (types.size === 0 || types.has(accountTypeOf(a))) &&
      (statuses.size === 0 || statuses.has(accountStatusOf(a))) &&
      (details.size === 0 || details.has(a.status?.details ?? "")) &&
      (!unowned || a.identityUserId === "") &&
      (query === "" || matches(query, a)),
  );
  const appName = (a: AppUser) => world.index.apps.get(a.appId)?.displayName ?? "";
  found.sort(sortBy === "APP_USER_SEARCH_SORT_BY_APP" ? (a, b) => byName(appName(a), appName(b)) || byName(a.displayName, b.displayName) : (a, b) => byName(a.displayName, b.displayName));

  const p = pageOf(found, page, { idOf: (a) => `${a.appId}/${a.id}` });
  const ex = new Expanded();
  const list: JsonValue[] = p.list.map((a) => expandedView(world, a, expand, ex));
  return ok({ expanded: ex.items, list, nextPageToken: p.nextPageToken });
}

/** An AppUserView with the identity user and app `expand` asks for appended to `ex`. */
function expandedView(world: World, a: AppUser, expand: readonly string[], ex: Expanded): JsonObject {
  const wants = (path: string) => expand.includes("*") || expand.includes(path);
  const user = wants("identity_user_id") ? world.index.users.get(a.identityUserId) : undefined;
  const app = wants("app_id") ? world.index.apps.get(a.appId) : undefined;
  return {
    ...appUserView(a),
    identityUserPath: user ? ex.pathOf([ex.add(TYPE_URLS.user, user.id, () => userWire(user))]) : "",
    appPath: app ? ex.pathOf([ex.add(TYPE_URLS.app, app.id, () => appWire(world, app))]) : "",
    // last_usage: the world records no account usage, so it expands to nothing.
  };
}

/**
 * An account's `{appUserView, expanded}` as `AppUserService.Update` answers it, with the identity
 * user and app its `expandMask` asks for (the paths of the account search; an unknown one is
 * INVALID_ARGUMENT, as there).
 *
 * @example
 * ```ts
 * const r = appUserViewExpanded(world, account, { expandMask: { paths: ["identity_user_id"] } });
 * if (r.ok) r.value.appUserView.identityUserPath; // "$.expanded[0]"
 * ```
 */
export function appUserViewExpanded(world: World, a: AppUser, body: Body): Result<{ appUserView: JsonObject; expanded: JsonObject[] }, HttpFailure> {
  const expand = expandMask(body, EXPAND_PATHS);
  if (!expand.ok) return expand;
  const ex = new Expanded();
  return ok({ appUserView: expandedView(world, a, expand.value, ex), expanded: ex.items });
}
