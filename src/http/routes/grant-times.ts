/**
 * When a grant was made, for the bindings the API writes (`AppEntitlementUserBinding.createdAt`,
 * `AppEntitlementUserView.appEntitlementUserBindingCreatedAt`): openapi.yaml says "With a grant, the
 * whole struct is populated", and ConductorOne's CLI (`cone has`) counts a binding as a grant only
 * when its `createdAt` is set. The time is the grant's own `createdAt` (kept from a pulled tenant,
 * set when a task grants); for a grant without one (a world file that does not say), the outcome
 * time of the latest grant task that granted it, else the Unix epoch, a stand-in no real grant has
 * (README "Assumptions").
 */
import type { Grant } from "../../model/directory.js";
import type { World } from "../../world/world.js";

/** The time a grant the world has no record of the making of is given. */
export const GRANT_TIME_UNKNOWN = "1970-01-01T00:00:00Z";

// Kept per grants list, not per task table: every task action makes a new task table, and a read
// after each would scan every task again; the granting outcome times change only with the grants.
const byGrants = new WeakMap<World["grants"], ReadonlyMap<string, string>>();

const keyOf = (appId: string, entitlementId: string, userId: string): string => `${appId}\u0000${entitlementId}\u0000${userId}`;

/** The latest granting outcome time of every (app, entitlement, user), once per grants list. */
function grantedAt(world: World): ReadonlyMap<string, string> {
  let times = byGrants.get(world.grants);
  if (times) return times;
  const out = new Map<string, string>();
  for (const t of world.tasks.values()) {
    const g = t.type;
    if (g?.kind !== "grant" || g.outcome !== "GRANT_OUTCOME_GRANTED" || typeof g.outcomeTime !== "string" || g.outcomeTime === "") continue;
    const k = keyOf(g.appId, g.appEntitlementId, g.identityUserId || t.userId);
    const was = out.get(k);
    if (was === undefined || Date.parse(g.outcomeTime) > Date.parse(was)) out.set(k, g.outcomeTime);
  }
  byGrants.set(world.grants, (times = out));
  return times;
}

/**
 * When `g` was made, as far as the world tells (see the module's comment).
 *
 * @example
 * ```ts
 * grantCreatedAt(world, { appId: "app-aws", appEntitlementId: "ent-aws-prod-readonly", identityUserId: "u-dev1" });
 * // its createdAt; else the outcome time of the task that granted it, or "1970-01-01T00:00:00Z"
 * ```
 */
export function grantCreatedAt(world: World, g: Pick<Grant, "appId" | "appEntitlementId" | "identityUserId" | "createdAt">): string {
  if (g.createdAt) return g.createdAt;
  return grantedAt(world).get(keyOf(g.appId, g.appEntitlementId, g.identityUserId)) ?? GRANT_TIME_UNKNOWN;
}
