/**
 * `saveWorld`: a world back to the world-file format, so a simulated tenant can be written out,
 * diffed and loaded again. `loadWorld(saveWorld(w))` gives back an equal world.
 */
import { encodePolicy, encodeTask } from "../codec/index.js";
import { encodeAsWritten } from "../codec/spec-names.js";
import type { JsonObject, JsonValue } from "../model/json.js";
import { encodeAccessReview, encodeApp, encodeAppUser, encodeEntitlement, encodeUser } from "./encode-directory.js";
import { encodeConfigRule } from "./config-rule-codec.js";
import { jsonChunks, LazyList } from "./json-writer.js";
import { isWorld, type Tenant, type World } from "./world.js";

/**
 * The world file's `tenant` object: the tenant's fields it does not model as they came, then its
 * default policies, feature flags and CEL cost limit.
 *
 * @example
 * ```ts
 * encodeTenant(world.tenant); // { defaultPolicies: { grant: "pol-default" }, featureFlags: {} }
 * ```
 */
export function encodeTenant(tenant: Tenant): JsonObject {
  return {
    ...((tenant.$unknown ?? {}) as JsonObject),
    ...(tenant.id ? { id: tenant.id } : {}),
    defaultPolicies: { ...tenant.defaultPolicies },
    featureFlags: { ...tenant.featureFlags },
    ...(tenant.celCostLimit === undefined ? {} : { celCostLimit: tenant.celCostLimit }),
  };
}

/**
 * The members of a world file in the order they are written, each a JSON value or a
 * {@link LazyList} (tasks and comments, encoded as they are written). What {@link saveWorld} and
 * {@link worldJsonChunks} both write, so the two never differ.
 */
function worldMembers(world: World): [string, unknown][] {
  const members: [string, unknown][] = Object.entries((world.$unknown ?? {}) as JsonObject);
  const known: [string, unknown][] = [
    ["version", 1],
    ["now", world.now],
    ["seq", world.seq],
    ["tenant", encodeTenant(world.tenant)],
    ["tokens", { ...world.tokens }],
    ...(world.clients.length > 0
      ? ([["clients", world.clients.map((c) => ({ clientId: c.clientId, userId: c.userId, displayName: c.displayName, publicJwk: { ...c.publicJwk } }))]] as [string, unknown][])
      : []),
    ["roles", world.roles.map((r) => ({ id: r.id, displayName: r.displayName, kind: r.kind }))],
    ["users", world.users.map(encodeUser)],
    ["apps", world.apps.map(encodeApp)],
    ["entitlements", world.entitlements.map(encodeEntitlement)],
    ["appUsers", world.appUsers.map(encodeAppUser)],
    ["groups", world.groups.map((g) => ({ id: g.id, appId: g.appId, displayName: g.displayName, memberUserIds: [...g.memberUserIds] }))],
    ["grants", world.grants.map((g) => ({ appId: g.appId, appEntitlementId: g.appEntitlementId, identityUserId: g.identityUserId, source: g.source, ...(g.createdAt ? { createdAt: g.createdAt } : {}), ...(g.deprovisionAt ? { deprovisionAt: g.deprovisionAt } : {}) }))],
    ["resourceTypeDefaults", world.resourceTypeDefaults.map((d) => ({ ...d, resourceTypeIds: [...d.resourceTypeIds] }))],
    ...(world.entitlementConfigurationRules && world.entitlementConfigurationRules.length > 0
      ? ([["entitlementConfigurationRules", world.entitlementConfigurationRules.map(encodeConfigRule)]] as [string, unknown][])
      : []),
    ["accessReviews", world.accessReviews.map(encodeAccessReview)],
    // Each in the names it was written with (README Assumptions, "Spec vs API names").
    ["policies", world.policies.map((p) => encodeAsWritten(encodePolicy, p))],
    [
      "tasks",
      new LazyList(function* () {
        for (const t of world.tasks.values()) yield encodeAsWritten(encodeTask, t);
      }),
    ],
    [
      "comments",
      new LazyList(function* () {
        for (const log of world.comments.values()) for (const c of log) yield { ...c };
      }),
    ],
  ];
  // As a spread would: a known key replaces an unknown one of the same name, in its place.
  const at = new Map(members.map(([k], i) => [k, i]));
  for (const [k, v] of known) {
    const i = at.get(k);
    if (i === undefined) members.push([k, v]);
    else members[i] = [k, v];
  }
  return members;
}

/** A programmer error, said as one: these take a loaded World, and anything else fails deep inside. */
function mustBeWorld(fn: string, world: unknown): void {
  if (!isWorld(world)) throw new TypeError(`${fn}: world must be a World (loadWorld's value), not ${world === null ? "null" : Array.isArray(world) ? "an array" : typeof world}`);
}

/**
 * Writes a world as a world file (docs/architecture.md): tasks and policies in the service's wire JSON,
 * the directory in its service shapes, plus the simulation's clock, id sequence and comments.
 * Unknown fields come back as they were loaded. For large worlds, write with
 * {@link worldJsonChunks}: the same document, streamed, never one string.
 *
 * @example
 * ```ts
 * import { readFileSync, writeFileSync } from "node:fs";
 * const loaded = loadWorld(JSON.parse(readFileSync("fixtures/world.json", "utf8")));
 * const after = loaded.ok ? hardReset(loaded.value, { taskId: "1022", comment: "re-route" }, { actorId: "u-it-dir" }) : null;
 * if (after?.ok) writeFileSync("after.json", JSON.stringify(saveWorld(after.value.world), null, 2));
 * ```
 */
export function saveWorld(world: World): JsonObject {
  mustBeWorld("saveWorld", world);
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of worldMembers(world)) {
    const value = v instanceof LazyList ? materialise(v) : (v as JsonValue);
    // An unknown top-level key named __proto__ is data: an own key, never the prototype.
    if (k === "__proto__") Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
    else out[k] = value;
  }
  return out;
}

function materialise(list: LazyList): JsonValue[] {
  const items: JsonValue[] = [];
  const it = list.items();
  for (let next = it.next(); next.done !== true; next = it.next()) items.push(next.value as JsonValue);
  return items;
}

/**
 * The world file of `world` as text in chunks (about 64 KiB each): equal, joined, to
 * `JSON.stringify(saveWorld(world), null, indent)`, but tasks are encoded as they are written and no
 * string holds the whole file, so a world of any size (or any nesting) is written. Pure: hand the
 * chunks to a file, a socket or a hash.
 *
 * @example
 * ```ts
 * import { writeSync, openSync, closeSync } from "node:fs";
 * const fd = openSync("after.json", "w");
 * for (const chunk of worldJsonChunks(world)) writeSync(fd, chunk);
 * closeSync(fd);
 * ```
 */
export function* worldJsonChunks(world: World, indent = 2): Generator<string, void, undefined> {
  mustBeWorld("worldJsonChunks", world);
  const doc: Record<string, unknown> = {};
  for (const [k, v] of worldMembers(world)) Object.defineProperty(doc, k, { value: v, enumerable: true, writable: true, configurable: true });
  yield* jsonChunks(doc, indent);
  if (indent > 0) yield "\n";
}
