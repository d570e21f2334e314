/**
 * The world's indexes as the directory CEL functions query (`c1.directory.*`, `c1.user.v1.*`).
 * Built once per world and cached, so evaluating conditions for 100k tasks builds it once.
 */
import type { CelDirectory } from "../cel/directory.js";
import type { User } from "../model/directory.js";
import { entitlementKey, grantKeyOf, type World } from "./world.js";

const cache = new WeakMap<World["index"], CelDirectory>();
// The index asked about last and its directory (a cache of the cache; see celDirectoryOf).
let lastIndex: World["index"] | undefined;
let lastDirectory: CelDirectory | undefined;

function usersOf(world: World, ids: readonly string[]): User[] {
  const out: User[] = [];
  for (const id of ids) {
    const u = world.index.users.get(id);
    if (u) out.push(u);
  }
  return out;
}

/**
 * The {@link CelDirectory} of a world. Cached per world index: worlds that share their directory
 * (every reducer's output shares its input's) share the directory too.
 *
 * @example
 * ```ts
 * celDirectoryOf(world).userByEmail("ada@northwind.example")?.id;
 * ```
 */
export function celDirectoryOf(world: World): CelDirectory {
  // Every task of a world asks for the same directory: one comparison instead of a WeakMap lookup.
  if (world.index === lastIndex && lastDirectory !== undefined) return lastDirectory;
  const hit = cache.get(world.index);
  if (hit) {
    lastIndex = world.index;
    lastDirectory = hit;
    return hit;
  }
  const { index } = world;
  const dir: CelDirectory = {
    userById: (id) => index.users.get(id),
    userByEmail: (email) => index.usersByEmail.get(email.toLowerCase()),
    userByName: (name) => index.usersByName.get(name.toLowerCase()),
    managersOf: (user) => usersOf(world, user.managerIds),
    directReportsOf: (user) => index.directReports.get(user.id) ?? [],
    groupByName: (name) => index.groupsByName.get(name.toLowerCase()) ?? index.groups.get(name),
    entitlementMembers: (appId, entitlementId) => {
      const key = entitlementKey(appId, entitlementId);
      if (!index.entitlements.has(key)) return undefined;
      return usersOf(world, index.entitlementMembers.get(key) ?? []);
    },
    entitlementOwners: (appId, entitlementId) => {
      const ent = index.entitlements.get(entitlementKey(appId, entitlementId));
      return ent ? usersOf(world, ent.ownerUserIds) : undefined;
    },
    appOwners: (appId) => {
      const app = index.apps.get(appId);
      return app ? usersOf(world, app.ownerUserIds) : undefined;
    },
    grantOf: (userId, appId, entitlementId) => index.grants.get(grantKeyOf(userId, appId, entitlementId)),
    hasApp: (userId, appId) =>
      index.appsHeld.has(`${userId}\u0000${appId}`) || index.appUserByUserAndApp.has(`${userId}\u0000${appId}`),
    appUserStatus: (userId, appId) => {
      const status = index.appUserByUserAndApp.get(`${userId}\u0000${appId}`)?.status?.status ?? "";
      return status;
    },
  };
  cache.set(index, dir);
  return dir;
}
