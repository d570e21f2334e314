/**
 * Revoke inherited access (release note 5): off by default and set per app. When it is on, revoking
 * an entitlement follows where the user's access comes from — the direct grant, nested groups, role
 * hierarchies and delegated provisioning — and also revokes the upstream sources the user holds, so
 * the access does not come back through them. Those sources are the revoke task's
 * `revocationTargets`, set when the task is created.
 *
 * The edges come from the `simulation.entitlementSources` section and from an entitlement's
 * `provisionerPolicy.delegated` (the entitlement is provisioned by granting another).
 */
import type { TaskRevocationTarget } from "../model/index.js";
import type { AppEntitlement } from "../model/directory.js";
import { isObject } from "../world/read.js";
import { entitlementKey, grantKeyOf, type World } from "../world/world.js";
import { type EntitlementSource, readSimulation } from "./sim-config.js";

/**
 * Whether an app has "revoke inherited access" turned on (`simulation.apps[appId]`).
 *
 * @example
 * ```ts
 * revokesInheritedAccess(world, "app-okta"); // false unless the section turns it on
 * ```
 */
export function revokesInheritedAccess(world: World, appId: string): boolean {
  return readSimulation(world).apps[appId]?.revokeInheritedAccess === true;
}

/** Edges from entitlement key to its sources, from the section and delegated provisioners. */
function sourcesOf(world: World): Map<string, EntitlementSource[]> {
  const edges = new Map<string, EntitlementSource[]>();
  const add = (e: EntitlementSource): void => {
    const k = entitlementKey(e.appId, e.appEntitlementId);
    edges.set(k, [...(edges.get(k) ?? []), e]);
  };
  for (const e of readSimulation(world).entitlementSources) add(e);
  for (const ent of world.entitlements) {
    const d = delegatedSource(ent);
    if (d) add({ appId: ent.appId, appEntitlementId: ent.id, sourceAppId: d.appId, sourceEntitlementId: d.id, via: "delegated" });
  }
  return edges;
}

/** The entitlement an entitlement's provisioning is delegated to (`provisionerPolicy.delegated`), if any. */
function delegatedSource(ent: AppEntitlement): { readonly appId: string; readonly id: string } | undefined {
  const p = ent.$unknown?.["provisionerPolicy"];
  const d = isObject(p) ? p["delegated"] : undefined;
  if (!isObject(d) || typeof d["entitlementId"] !== "string" || d["entitlementId"] === "") return undefined;
  return { appId: typeof d["appId"] === "string" && d["appId"] !== "" ? d["appId"] : ent.appId, id: d["entitlementId"] };
}

// A memo over the world's immutable entitlement list (a pure function's cache, not state anyone sees).
const boundMemo = new WeakMap<readonly unknown[], Map<string, { readonly appId: string; readonly id: string }[]>>();

/**
 * The entitlements whose provisioning is delegated to this one (`provisionerPolicy.delegated` naming
 * it): "When a user requests access to Entitlement B and their request is approved, the connector
 * automatically adds access to both Entitlement B and Entitlement A" (product_admin_access-requests.mdx,
 * Delegated provisioning), A being the entitlement configured as delegated to B.
 *
 * @example
 * ```ts
 * delegatedTo(world, "app-okta", "ent-okta-sre"); // [{ appId: "app-okta", id: "ent-okta-pagerduty" }] when that one delegates to it
 * ```
 */
export function delegatedTo(world: World, appId: string, appEntitlementId: string): readonly { readonly appId: string; readonly id: string }[] {
  let bound = boundMemo.get(world.entitlements);
  if (bound === undefined) {
    bound = new Map();
    for (const ent of world.entitlements) {
      const d = delegatedSource(ent);
      if (d === undefined) continue;
      const k = entitlementKey(d.appId, d.id);
      bound.set(k, [...(bound.get(k) ?? []), { appId: ent.appId, id: ent.id }]);
    }
    boundMemo.set(world.entitlements, bound);
  }
  return bound.get(entitlementKey(appId, appEntitlementId)) ?? [];
}

/**
 * One upstream source of a user's access, and the path that leads to it.
 *
 * @example
 * ```ts
 * const u: UpstreamSource = { appId: "app-okta", appEntitlementId: "ent-okta-sre", via: ["group"], held: true };
 * ```
 */
export interface UpstreamSource {
  readonly appId: string;
  readonly appEntitlementId: string;
  /** The kinds of edge followed from the revoked entitlement to this source. */
  readonly via: readonly EntitlementSource["via"][];
  /** Whether the user holds this source in the world's grants. */
  readonly held: boolean;
}

/**
 * Every upstream source of an entitlement for a user, breadth first, each once (cycles stop).
 *
 * @example
 * ```ts
 * upstreamSources(world, "app-github", "ent-gh-team-sre", "u-sre1").map((s) => s.appEntitlementId);
 * ```
 */
export function upstreamSources(world: World, appId: string, appEntitlementId: string, userId: string): UpstreamSource[] {
  const edges = sourcesOf(world);
  const seen = new Set([entitlementKey(appId, appEntitlementId)]);
  const out: UpstreamSource[] = [];
  let frontier: { key: string; via: readonly EntitlementSource["via"][] }[] = [{ key: entitlementKey(appId, appEntitlementId), via: [] }];
  while (frontier.length > 0) {
    const next: typeof frontier = [];
    for (const f of frontier)
      for (const e of edges.get(f.key) ?? []) {
        const k = entitlementKey(e.sourceAppId, e.sourceEntitlementId);
        if (seen.has(k)) continue;
        seen.add(k);
        const via = [...f.via, e.via];
        out.push({
          appId: e.sourceAppId,
          appEntitlementId: e.sourceEntitlementId,
          via,
          held: world.index.grants.has(grantKeyOf(userId, e.sourceAppId, e.sourceEntitlementId)),
        });
        next.push({ key: k, via });
      }
    frontier = next;
  }
  return out;
}

/**
 * The `revocationTargets` of a new revoke task: the upstream sources the user holds, when the app
 * revokes inherited access; none otherwise (the default).
 *
 * @example
 * ```ts
 * revocationTargetsFor(world, "app-github", "ent-gh-team-sre", "u-sre1");
 * // [{ entitlementRef: { appId: "app-okta", id: "ent-okta-sre" } }] when app-github revokes inherited access
 * ```
 */
export function revocationTargetsFor(world: World, appId: string, appEntitlementId: string, userId: string): TaskRevocationTarget[] {
  if (!revokesInheritedAccess(world, appId)) return [];
  return upstreamSources(world, appId, appEntitlementId, userId)
    .filter((s) => s.held)
    .map((s) => ({ entitlementRef: { appId: s.appId, id: s.appEntitlementId } }));
}
