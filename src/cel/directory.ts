/**
 * The tenant directory as CEL functions see it (`c1.directory.*`, `c1.user.v1.*`). The world layer
 * implements this over its indexes; {@link directoryFromArrays} is a small in-memory implementation
 * for tests and tools.
 */
import type { App, AppEntitlement, AppUser, Grant, Group, User } from "../model/directory.js";

/**
 * What the CEL functions ask the directory. Lookups return `undefined` for "no such thing", so the
 * function can decide between an error (`FindByEmail`) and `false` (`HasEntitlement`).
 *
 * @example
 * ```ts
 * const dir: CelDirectory = directoryFromArrays({ users: [ada, bob] });
 * dir.userByEmail("ADA@example.com")?.id; // "u-ada"
 * ```
 */
export interface CelDirectory {
  userById(id: string): User | undefined;
  /** By primary email or any of `emails`, case-insensitively (email addresses are). */
  userByEmail(email: string): User | undefined;
  /** By username, any of `usernames`, then display name. */
  userByName(name: string): User | undefined;
  /** The user's managers (`managerIds`), skipping ids the directory does not know. */
  managersOf(user: User): readonly User[];
  /** The users that name this user among their managers. */
  directReportsOf(user: User): readonly User[];
  /** A group by display name, else by id. */
  groupByName(name: string): Group | undefined;
  /** Holders of an entitlement; `undefined` when the app has no such entitlement. */
  entitlementMembers(appId: string, entitlementId: string): readonly User[] | undefined;
  /** Owners of an entitlement; `undefined` when the app has no such entitlement. */
  entitlementOwners(appId: string, entitlementId: string): readonly User[] | undefined;
  /** Owners of an app; `undefined` when there is no such app. */
  appOwners(appId: string): readonly User[] | undefined;
  /** How the user came to hold the entitlement, if they do. */
  grantOf(userId: string, appId: string, entitlementId: string): Grant | undefined;
  /** Whether the user has an account in the app (or holds any of its entitlements). */
  hasApp(userId: string, appId: string): boolean;
  /** The status of the user's account in the app (`APP_USER_STATUS_…`), `""` without an account. */
  appUserStatus(userId: string, appId: string): string;
}

/**
 * The arrays {@link directoryFromArrays} indexes. Every part is optional.
 *
 * @example
 * ```ts
 * const parts: DirectoryArrays = { users: [ada], grants: [{ appId: "a", appEntitlementId: "e", identityUserId: "u-ada", source: "direct" }] };
 * ```
 */
export interface DirectoryArrays {
  readonly users?: readonly User[];
  readonly groups?: readonly Group[];
  readonly grants?: readonly Grant[];
  readonly apps?: readonly App[];
  readonly entitlements?: readonly AppEntitlement[];
  readonly appUsers?: readonly AppUser[];
}

const key = (...parts: string[]): string => parts.join("\u0000");

function pushTo<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

/**
 * Builds a {@link CelDirectory} over plain arrays, indexing them once. The first entry wins when two
 * share a key. An entitlement is known when it is listed in `entitlements`.
 *
 * @example
 * ```ts
 * const dir = directoryFromArrays({ users, grants, entitlements });
 * dir.entitlementMembers("app-aws", "ent-admin")?.map((u) => u.id); // ["u-ada"]
 * ```
 */
export function directoryFromArrays(parts: DirectoryArrays): CelDirectory {
  const users = parts.users ?? [];
  const byId = new Map<string, User>();
  const byEmail = new Map<string, User>();
  const byName = new Map<string, User>();
  const byDisplayName = new Map<string, User>();
  const reports = new Map<string, User[]>();
  const setOnce = <V>(m: Map<string, V>, k: string, v: V): void => {
    if (k !== "" && !m.has(k)) m.set(k, v);
  };
  for (const u of users) {
    setOnce(byId, u.id, u);
    setOnce(byEmail, u.email.toLowerCase(), u);
    for (const e of u.emails) setOnce(byEmail, e.toLowerCase(), u);
    setOnce(byName, u.username, u);
    for (const n of u.usernames) setOnce(byName, n, u);
    setOnce(byDisplayName, u.displayName, u);
    for (const m of new Set(u.managerIds)) pushTo(reports, m, u);
  }
  const groupsByName = new Map<string, Group>();
  const groupsById = new Map<string, Group>();
  for (const g of parts.groups ?? []) {
    setOnce(groupsByName, g.displayName, g);
    setOnce(groupsById, g.id, g);
  }
  const apps = new Map<string, App>();
  for (const a of parts.apps ?? []) setOnce(apps, a.id, a);
  const ents = new Map<string, AppEntitlement>();
  for (const e of parts.entitlements ?? []) setOnce(ents, key(e.appId, e.id), e);
  const grants = new Map<string, Grant>();
  const members = new Map<string, User[]>();
  const appsOfUser = new Set<string>();
  for (const g of parts.grants ?? []) {
    const k = key(g.identityUserId, g.appId, g.appEntitlementId);
    if (grants.has(k)) continue;
    grants.set(k, g);
    appsOfUser.add(key(g.identityUserId, g.appId));
    const u = byId.get(g.identityUserId);
    if (u) pushTo(members, key(g.appId, g.appEntitlementId), u);
  }
  const accounts = new Map<string, AppUser>();
  for (const au of parts.appUsers ?? []) {
    setOnce(accounts, key(au.identityUserId, au.appId), au);
    appsOfUser.add(key(au.identityUserId, au.appId));
  }
  const resolve = (ids: readonly string[]): User[] => {
    const out: User[] = [];
    for (const id of new Set(ids)) {
      const u = byId.get(id);
      if (u) out.push(u);
    }
    return out;
  };
  const none: readonly User[] = Object.freeze([]);

  return {
    userById: (id) => byId.get(id),
    userByEmail: (email) => byEmail.get(email.toLowerCase()),
    // "FindByName: display name" (expressions reference): a display name first, the first user with it; a username only when no display name matches.
    userByName: (name) => byDisplayName.get(name) ?? byName.get(name),
    managersOf: (user) => resolve(user.managerIds),
    directReportsOf: (user) => reports.get(user.id) ?? none,
    groupByName: (name) => groupsByName.get(name) ?? groupsById.get(name),
    entitlementMembers: (appId, entitlementId) =>
      ents.has(key(appId, entitlementId)) ? (members.get(key(appId, entitlementId)) ?? none) : undefined,
    entitlementOwners: (appId, entitlementId) => {
      const e = ents.get(key(appId, entitlementId));
      return e ? resolve(e.ownerUserIds) : undefined;
    },
    appOwners: (appId) => {
      const a = apps.get(appId);
      return a ? resolve(a.ownerUserIds) : undefined;
    },
    grantOf: (userId, appId, entitlementId) => grants.get(key(userId, appId, entitlementId)),
    hasApp: (userId, appId) => appsOfUser.has(key(userId, appId)),
    appUserStatus: (userId, appId) => accounts.get(key(userId, appId))?.status?.status ?? "",
  };
}
