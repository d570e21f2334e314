/**
 * `POST /api/v1/search/users` (`c1.api.user.v1.UserSearch.Search`): the world's users that match
 * every filter of a `SearchUsersRequest`, in world order, paged, with the roles, managers and
 * delegates its `expandMask` asks for.
 */
import type { User } from "../../model/directory.js";
import type { JsonObject, JsonValue } from "../../model/json.js";
import { ok, type Result } from "../../result.js";
import { TYPE_URLS } from "../../world/encode-directory.js";
import type { World } from "../../world/world.js";
import type { HttpFailure } from "../error-body.js";
import { bodyFingerprint, pageFromBody, pageOf } from "../paging.js";
import { userView, userWire } from "./reads.js";
import { roleWire } from "./role-reads.js";
import {
  type Body,
  enums,
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

const USER_STATUSES = ["UNKNOWN", "ENABLED", "DISABLED", "DELETED"] as const;
const USER_TYPES = ["USER_TYPE_UNSPECIFIED", "USER_TYPE_SYSTEM", "USER_TYPE_HUMAN", "USER_TYPE_SERVICE", "USER_TYPE_AGENT"] as const;
const USER_ORIGINS = ["USER_ORIGIN_UNSPECIFIED", "USER_ORIGIN_DIRECTORY", "USER_ORIGIN_LOCAL", "USER_ORIGIN_SYSTEM"] as const;
const DELEGATE_STATUSES = ["DELEGATE_STATUS_UNSPECIFIED", "DELEGATE_STATUS_HAS_DELEGATE", "DELEGATE_STATUS_NO_DELEGATE"] as const;
const EXPAND_PATHS = ["*", "role_ids", "manager_ids", "delegated_user_id", "directory_ids"] as const;
const ROLE_TYPE_URL = "type.googleapis.com/c1.api.iam.v1.Role";

/**
 * Every property of `c1.api.user.v1.SearchUsersRequest`: read by {@link searchUsers}, or refused.
 *
 * @example
 * ```ts
 * USER_SEARCH_FIELDS.implemented.includes("isDelegate"); // true
 * ```
 */
export const USER_SEARCH_FIELDS: SearchFields = {
  implemented: [
    "pageSize",
    "pageToken",
    "expandMask",
    "ids",
    "refs",
    "excludeIds",
    "email",
    "query",
    "userStatuses",
    "excludeTypes",
    "roleIds",
    "managerIds",
    "departments",
    "jobTitles",
    "isDelegate",
    "delegateStatus",
    "delegatedUserIds",
  ],
  unmodelled: {
    origins: { shape: { kind: "enums", members: USER_ORIGINS }, lacks: "user origins (who owns a user's lifecycle)" },
    excludeOrigins: { shape: { kind: "enums", members: USER_ORIGINS }, lacks: "user origins (who owns a user's lifecycle)" },
    sourceAppIds: { shape: { kind: "strings" }, lacks: "source directories of users (source_app_ids)" },
  },
};

/** A user's status and type as the API writes them (`userWire`): empty is the zero member. */
const statusOf = (u: User) => (u.status === "" ? "UNKNOWN" : u.status);
const typeOf = (u: User) => (u.type === "" ? "USER_TYPE_UNSPECIFIED" : u.type);

const matches = (q: string, u: User) =>
  u.displayName.toLowerCase().includes(q) ||
  u.email.toLowerCase().includes(q) ||
  u.emails.some((e) => e.toLowerCase().includes(q)) ||
  u.username.toLowerCase().includes(q) ||
  u.id.toLowerCase().includes(q);

/**
 * `POST /api/v1/search/users`: the users matching every filter (see {@link USER_SEARCH_FIELDS}):
 * `isDelegate` keeps the users some other user's `delegatedUserId` names, `delegateStatus` those
 * with (or without) a `delegatedUserId`, `delegatedUserIds` those whose delegate is listed; paged.
 *
 * @example
 * ```ts
 * searchUsers(world, { query: "ada", excludeTypes: ["USER_TYPE_AGENT"] });
 * ```
 */
export function searchUsers(world: World, body: Body): Read {
  const f = searchRequest(body, USER_SEARCH_FIELDS, {
    page: pageFromBody(body, bodyFingerprint(body, "users")),
    ids: strings(body, "ids"),
    refs: refIds(body, "refs"),
    exclude: strings(body, "excludeIds"),
    email: text(body, "email"),
    query: text(body, "query"),
    statuses: enums(body, "userStatuses", USER_STATUSES),
    excludeTypes: enums(body, "excludeTypes", USER_TYPES),
    roles: strings(body, "roleIds"),
    managers: strings(body, "managerIds"),
    departments: strings(body, "departments"),
    titles: strings(body, "jobTitles"),
    isDelegate: flag(body, "isDelegate"),
    delegateStatus: member(body, "delegateStatus", DELEGATE_STATUSES),
    delegatedUserIds: strings(body, "delegatedUserIds"),
    expand: expandMask(body, EXPAND_PATHS),
  });
  if (!f.ok) return f;
  const { page, email, isDelegate, delegateStatus, expand } = f.value;
  const set = (xs: readonly string[]): ReadonlySet<string> => new Set(xs);
  const ids = set([...f.value.ids, ...f.value.refs]);
  const exclude = set(f.value.exclude);
  const statuses = set(f.value.statuses);
  const excludeTypes = set(f.value.excludeTypes);
  const roles = set(f.value.roles);
  const managers = set(f.value.managers);
  const departments = set(f.value.departments);
  const titles = set(f.value.titles);
  const delegates = set(f.value.delegatedUserIds);
  // Who is someone else's delegate, from every user's `delegatedUserId`.
  const delegatesOfOthers = isDelegate ? set(world.users.flatMap((u) => (u.delegatedUserId !== "" && u.delegatedUserId !== u.id ? [u.delegatedUserId] : []))) : undefined;
  const mail = email.toLowerCase();
  const query = f.value.query.toLowerCase();
  const found = world.users.filter(
    (u) =>
      (ids.size === 0 || ids.has(u.id)) &&
      !exclude.has(u.id) &&
      (mail === "" || u.email.toLowerCase() === mail || u.emails.some((e) => e.toLowerCase() === mail)) &&
      (statuses.size === 0 || statuses.has(statusOf(u))) &&
      !excludeTypes.has(typeOf(u)) &&
      (roles.size === 0 || u.roleIds.some((r) => roles.has(r))) &&
      (managers.size === 0 || u.managerIds.some((m) => managers.has(m))) &&
      (departments.size === 0 || departments.has(u.department)) &&
      (titles.size === 0 || titles.has(u.jobTitle)) &&
      (delegatesOfOthers === undefined || delegatesOfOthers.has(u.id)) &&
      (delegateStatus !== "DELEGATE_STATUS_HAS_DELEGATE" || u.delegatedUserId !== "") &&
      (delegateStatus !== "DELEGATE_STATUS_NO_DELEGATE" || u.delegatedUserId === "") &&
      (delegates.size === 0 || delegates.has(u.delegatedUserId)) &&
      (query === "" || matches(query, u)),
  );

  const p = pageOf(found, page, { idOf: (u) => u.id });
  const ex = new Expanded();
  const wants = (path: string) => expand.includes("*") || expand.includes(path);
  const users = (userIds: readonly string[]) =>
    userIds.flatMap((id) => {
      const u = world.index.users.get(id);
      return u ? [ex.add(TYPE_URLS.user, u.id, () => userWire(u))] : [];
    });
  const list: JsonValue[] = p.list.map((u) => ({
    ...userView(u),
    rolesPath: wants("role_ids")
      ? ex.pathOf(
          u.roleIds.flatMap((id) => {
            const r = world.index.roles.get(id);
            return r ? [ex.add(ROLE_TYPE_URL, r.id, () => roleWire(r))] : [];
          }),
        )
      : "",
    managersPath: wants("manager_ids") ? ex.pathOf(users(u.managerIds)) : "",
    delegatedUserPath: wants("delegated_user_id") && u.delegatedUserId !== "" ? ex.pathOf(users([u.delegatedUserId])) : "",
    // directory_ids: the world has no directory apps of users, so it expands to nothing.
  }));
  return ok({ expanded: ex.items, list, nextPageToken: p.nextPageToken });
}
