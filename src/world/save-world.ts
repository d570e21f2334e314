/**
 * `saveWorld`: a world back to the world-file format, so a simulated tenant can be written out,
 * diffed and loaded again. `loadWorld(saveWorld(w))` gives back an equal world.
 */
import { encodePolicy, encodeTask } from "../codec/index.js";
import type { JsonObject, JsonValue } from "../model/json.js";
import { encodeAccessReview, encodeApp, encodeAppUser, encodeEntitlement, encodeUser } from "./encode-directory.js";
import type { World } from "./world.js";

/**
 * Writes a world as a world file (ARCHITECTURE.md): tasks and policies in the service's wire JSON,
 * the directory in its service shapes, plus the simulation's clock, id sequence and comments.
 * Unknown fields come back as they were loaded.
 *
 * @example
 * ```ts
 * import { writeFileSync } from "node:fs";
 * writeFileSync("after.json", JSON.stringify(saveWorld(step.world), null, 2));
 * ```
 */
export function saveWorld(world: World): JsonObject {
  const comments: JsonValue[] = [];
  for (const log of world.comments.values()) for (const c of log) comments.push({ ...c });
  return {
    ...((world.$unknown ?? {}) as JsonObject),
    version: 1,
    now: world.now,
    seq: world.seq,
    tenant: {
      ...((world.tenant.$unknown ?? {}) as JsonObject),
      defaultPolicies: { ...world.tenant.defaultPolicies },
      featureFlags: { ...world.tenant.featureFlags },
    },
    tokens: { ...world.tokens },
    ...(world.clients.length > 0 ? { clients: world.clients.map((c) => ({ clientId: c.clientId, userId: c.userId, displayName: c.displayName, publicJwk: { ...c.publicJwk } })) } : {}),
    roles: world.roles.map((r) => ({ id: r.id, displayName: r.displayName, kind: r.kind })),
    users: world.users.map(encodeUser),
    apps: world.apps.map(encodeApp),
    entitlements: world.entitlements.map(encodeEntitlement),
    appUsers: world.appUsers.map(encodeAppUser),
    groups: world.groups.map((g) => ({ id: g.id, appId: g.appId, displayName: g.displayName, memberUserIds: [...g.memberUserIds] })),
    grants: world.grants.map((g) => ({ appId: g.appId, appEntitlementId: g.appEntitlementId, identityUserId: g.identityUserId, source: g.source })),
    resourceTypeDefaults: world.resourceTypeDefaults.map((d) => ({ appId: d.appId, resourceTypeIds: [...d.resourceTypeIds], requestPolicyId: d.requestPolicyId })),
    accessReviews: world.accessReviews.map(encodeAccessReview),
    policies: world.policies.map(encodePolicy),
    tasks: [...world.tasks.values()].map(encodeTask),
    comments,
  };
}
