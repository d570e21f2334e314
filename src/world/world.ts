/**
 * The World: an immutable snapshot of one tenant (directory, policies, tasks) plus the simulation's
 * clock and id sequence. Built once by `loadWorld`, indexed once, never mutated; reducers return a
 * new world that shares every untouched part with the old one.
 */
import type {
  AccessReview,
  ApiClient,
  App,
  AppEntitlement,
  AppUser,
  Grant,
  Group,
  ResourceTypeDefault,
  Role,
  User,
} from "../model/directory.js";
import type { Policy, Task } from "../model/index.js";
import type { EntitlementConfigRule } from "../model/config-rule.js";
import type { Diagnostic } from "./read.js";
import type { CommentLog } from "./comment-log.js";
import { Table } from "./table.js";

/**
 * Tenant-wide settings: the default policy per task kind (sim) and feature flags.
 *
 * @example
 * ```ts
 * const t: Tenant = { defaultPolicies: { grant: "pol-default-grant" },
 *   featureFlags: { POLICY_REFERENCES_POLICY: true } };
 * ```
 */
export interface Tenant {
  /** The tenant's id as the API gives it (`IntrospectResponse.tenantId`): kept from a pulled tenant, answered by the twin; absent when unknown. */
  readonly id?: string;
  /** Keyed by lowercased task kind: grant, revoke, certify, offboarding, action, finding. */
  readonly defaultPolicies: Readonly<Record<string, string>>;
  readonly featureFlags: Readonly<Record<string, boolean>>;
  /** (sim) The CEL cost limit of every evaluation in this world (cel/cost.ts); absent: the default. */
  readonly celCostLimit?: number;
  readonly $unknown?: Readonly<Record<string, unknown>>;
}

/**
 * A comment posted on a task.
 *
 * @example
 * ```ts
 * const c: TaskComment = { id: "cmt-000001", taskId: "t-1", userId: "u-ada",
 *   comment: "Looks fine", createdAt: "2026-11-22T09:00:00Z" };
 * ```
 */
export interface TaskComment {
  readonly id: string;
  readonly taskId: string;
  readonly userId: string;
  readonly comment: string;
  readonly createdAt: string;
}

/**
 * Lookups built once when a world is loaded (or its directory or policies change).
 *
 * @example
 * ```ts
 * world.index.users.get("u-ada")?.email;
 * ```
 */
export interface WorldIndex {
  readonly users: ReadonlyMap<string, User>;
  /** By lowercased primary or secondary email. */
  readonly usersByEmail: ReadonlyMap<string, User>;
  /** By lowercased display name, then (where no display name is the same) username. */
  readonly usersByName: ReadonlyMap<string, User>;
  /** Users whose managerIds name the key. */
  readonly directReports: ReadonlyMap<string, readonly User[]>;
  readonly roles: ReadonlyMap<string, Role>;
  readonly apps: ReadonlyMap<string, App>;
  /** Keyed by `entitlementKey(appId, id)`. */
  readonly entitlements: ReadonlyMap<string, AppEntitlement>;
  /**
   * The same entitlements by app id, then entitlement id: what {@link findEntitlement} reads, two
   * lookups without building a joined key (a Hard Reset looks an entitlement up several times).
   */
  readonly entitlementsByApp: ReadonlyMap<string, ReadonlyMap<string, AppEntitlement>>;
  readonly appUsers: ReadonlyMap<string, AppUser>;
  /** Keyed by `${identityUserId}\u0000${appId}`: the user's first account in the app. */
  readonly appUserByUserAndApp: ReadonlyMap<string, AppUser>;
  /** The same accounts by identity user id, then app id (see {@link findAppUserOf}). */
  readonly appUsersByUser: ReadonlyMap<string, ReadonlyMap<string, AppUser>>;
  readonly groups: ReadonlyMap<string, Group>;
  /** By lowercased display name. */
  readonly groupsByName: ReadonlyMap<string, Group>;
  /** Keyed by {@link grantKeyOf}. */
  readonly grants: ReadonlyMap<string, Grant>;
  /** Keyed by `${identityUserId}\u0000${appId}`. */
  readonly appsHeld: ReadonlySet<string>;
  /** Members per entitlement key. */
  readonly entitlementMembers: ReadonlyMap<string, readonly string[]>;
  readonly accessReviews: ReadonlyMap<string, AccessReview>;
  readonly policies: ReadonlyMap<string, Policy>;
  /** Resource-type request defaults keyed by `${appId}\u0000${resourceTypeId}`. */
  readonly resourceTypeDefaults: ReadonlyMap<string, ResourceTypeDefault>;
  /** Entitlement configuration rules by app id, in evaluation order (priority, then id). */
  readonly configRulesByApp: ReadonlyMap<string, readonly EntitlementConfigRule[]>;
}

/**
 * An immutable snapshot of one tenant. Create it with `loadWorld`; change it only through the
 * reducers or `replaceInWorld`, which return a new world.
 *
 * @example
 * ```ts
 * const loaded = loadWorld(JSON.parse(text));
 * if (loaded.ok) console.log(loaded.value.tasks.size, "tasks at", loaded.value.now);
 * ```
 */
export interface World {
  readonly version: 1;
  /** The simulation clock (RFC 3339): CEL `now()` and every timestamp a reducer writes. */
  readonly now: string;
  readonly tenant: Tenant;
  readonly roles: readonly Role[];
  readonly users: readonly User[];
  readonly apps: readonly App[];
  readonly entitlements: readonly AppEntitlement[];
  readonly appUsers: readonly AppUser[];
  readonly groups: readonly Group[];
  readonly grants: readonly Grant[];
  readonly resourceTypeDefaults: readonly ResourceTypeDefault[];
  /** Entitlement configuration rules of every app, as the file lists them (absent: none). */
  readonly entitlementConfigurationRules?: readonly EntitlementConfigRule[];
  readonly accessReviews: readonly AccessReview[];
  readonly policies: readonly Policy[];
  /** Tasks by id, in file order. A persistent table: updating one task does not copy the rest. */
  readonly tasks: Table<Task>;
  /** Task id by numericId. */
  readonly taskIdByNumericId: Table<string>;
  /** Comments by task id, oldest first; a log appends in O(1) amortised (see {@link CommentLog}). */
  readonly comments: Table<CommentLog>;
  /** (sim) Bearer tokens of the HTTP face: token → user id. */
  readonly tokens: Readonly<Record<string, string>>;
  /** (sim) OAuth clients of the HTTP face (client credentials with a JWT assertion). */
  readonly clients: readonly ApiClient[];
  /** (sim) The next number of the deterministic id sequence. */
  readonly seq: number;
  readonly index: WorldIndex;
  /** Problems that did not stop the load (only with `strict: false`). */
  readonly warnings: readonly Diagnostic[];
  readonly $unknown?: Readonly<Record<string, unknown>>;
}

/**
 * The world with its tasks, comments and id sequence replaced, which is what a task action
 * writes; everything else is shared. Written out field by field rather than as
 * `{ ...world, tasks, comments, seq }`: worlds are frozen, and Node 20 copies a frozen object in a
 * spread on V8's slow path, ~0.6 µs for a world against ~60 ns for this literal. A field added to
 * {@link World} must be added here too.
 *
 * @example
 * ```ts
 * const next = withTaskTables(world, world.tasks.set(task.id, updated), world.comments, ids.next);
 * ```
 */
export function withTaskTables(world: World, tasks: Table<Task>, comments: Table<CommentLog>, seq: number): World {
  return {
    version: world.version,
    now: world.now,
    tenant: world.tenant,
    roles: world.roles,
    users: world.users,
    apps: world.apps,
    entitlements: world.entitlements,
    appUsers: world.appUsers,
    groups: world.groups,
    grants: world.grants,
    resourceTypeDefaults: world.resourceTypeDefaults,
    ...(world.entitlementConfigurationRules ? { entitlementConfigurationRules: world.entitlementConfigurationRules } : {}),
    accessReviews: world.accessReviews,
    policies: world.policies,
    tasks,
    taskIdByNumericId: world.taskIdByNumericId,
    comments,
    tokens: world.tokens,
    clients: world.clients,
    seq,
    index: world.index,
    warnings: world.warnings,
    ...(world.$unknown ? { $unknown: world.$unknown } : {}),
  };
}

/**
 * Key of an entitlement in {@link WorldIndex.entitlements}.
 *
 * @example
 * ```ts
 * world.index.entitlements.get(entitlementKey("app-aws", "ent-aws-prod-admin"));
 * ```
 */
export function entitlementKey(appId: string, entitlementId: string): string {
  return `${appId}\u0000${entitlementId}`;
}

function lower(s: string): string {
  return s.toLowerCase();
}

/** The lists a {@link WorldIndex} is built from. */
type IndexedParts = {
  readonly roles: readonly Role[];
  readonly users: readonly User[];
  readonly apps: readonly App[];
  readonly entitlements: readonly AppEntitlement[];
  readonly appUsers: readonly AppUser[];
  readonly groups: readonly Group[];
  readonly grants: readonly Grant[];
  readonly resourceTypeDefaults: readonly ResourceTypeDefault[];
  readonly entitlementConfigurationRules?: readonly EntitlementConfigRule[] | undefined;
  readonly accessReviews: readonly AccessReview[];
  readonly policies: readonly Policy[];
};

/**
 * Builds the lookups of a world's directory and policies. With `previous` (a world, or any lists
 * with their index), each part of the index whose list is the very list `previous` was indexed
 * from is taken from its index: lists are frozen, so the same list gives the same lookups. An
 * edit of a few users or policies then costs a pass over those lists, not over the accounts and
 * grants, which grow with the tasks.
 */
export function buildIndex(parts: IndexedParts, previous?: IndexedParts & { readonly index: WorldIndex }): WorldIndex {
  // The previous index when the list `k` is the one it was built from.
  const reuse = (k: keyof IndexedParts): WorldIndex | undefined => (previous !== undefined && parts[k] === previous[k] ? previous.index : undefined);
  const users = reuse("users") ?? usersIndex(parts.users);
  const entitlements = reuse("entitlements") ?? entitlementsIndex(parts.entitlements);
  const appUsers = reuse("appUsers") ?? appUsersIndex(parts.appUsers);
  const grants = reuse("grants") ?? grantsIndex(parts.grants);
  const groups = reuse("groups") ?? { groups: new Map(parts.groups.map((g) => [g.id, g])), groupsByName: new Map(parts.groups.map((g) => [lower(g.displayName), g])) };
  return {
    users: users.users,
    usersByEmail: users.usersByEmail,
    usersByName: users.usersByName,
    directReports: users.directReports,
    roles: reuse("roles")?.roles ?? new Map(parts.roles.map((r) => [r.id, r])),
    apps: reuse("apps")?.apps ?? new Map(parts.apps.map((a) => [a.id, a])),
    entitlements: entitlements.entitlements,
    entitlementsByApp: entitlements.entitlementsByApp,
    appUsers: appUsers.appUsers,
    appUserByUserAndApp: appUsers.appUserByUserAndApp,
    appUsersByUser: appUsers.appUsersByUser,
    groups: groups.groups,
    groupsByName: groups.groupsByName,
    grants: grants.grants,
    appsHeld: grants.appsHeld,
    entitlementMembers: grants.entitlementMembers,
    accessReviews: reuse("accessReviews")?.accessReviews ?? new Map(parts.accessReviews.map((r) => [r.id, r])),
    policies: reuse("policies")?.policies ?? new Map(parts.policies.map((p) => [p.id, p])),
    resourceTypeDefaults: reuse("resourceTypeDefaults")?.resourceTypeDefaults ?? resourceTypeDefaultsIndex(parts.resourceTypeDefaults),
    configRulesByApp: reuse("entitlementConfigurationRules")?.configRulesByApp ?? configRulesIndex(parts.entitlementConfigurationRules ?? []),
  };
}

/** The list a user a what-if edit wrote without one is indexed with. */
const NONE: readonly string[] = Object.freeze([]);

function usersIndex(list: readonly User[]): Pick<WorldIndex, "users" | "usersByEmail" | "usersByName" | "directReports"> {
  const users = new Map<string, User>();
  const usersByEmail = new Map<string, User>();
  const usersByName = new Map<string, User>();
  const directReports = new Map<string, User[]>();
  for (const u of list) {
    users.set(u.id, u);
    // A loaded user has every list; a what-if edit's user may not yet (`{ id, department }`): it is
    // indexed as it stands, then read back with its defaults (whatif/check-edit.ts) and indexed again.
    for (const e of [u.email, ...(u.emails ?? NONE)]) if (e && !usersByEmail.has(lower(e))) usersByEmail.set(lower(e), u);
    if (u.displayName && !usersByName.has(lower(u.displayName))) usersByName.set(lower(u.displayName), u);
    for (const m of u.managerIds ?? NONE) {
      const list = directReports.get(m) ?? [];
      list.push(u);
      directReports.set(m, list);
    }
  }
  // FindByName takes a display name (the expressions reference): every display name first, the
  // first user with it; then usernames, where no display name is the same.
  for (const u of list) for (const n of [u.username, ...(u.usernames ?? NONE)]) if (n && !usersByName.has(lower(n))) usersByName.set(lower(n), u);
  return { users, usersByEmail, usersByName, directReports };
}

function appUsersIndex(list: readonly AppUser[]): Pick<WorldIndex, "appUsers" | "appUserByUserAndApp" | "appUsersByUser"> {
  const appUserByUserAndApp = new Map<string, AppUser>();
  const appUsersByUser = new Map<string, Map<string, AppUser>>();
  for (const au of list) {
    const k = `${au.identityUserId}\u0000${au.appId}`;
    if (au.identityUserId && !appUserByUserAndApp.has(k)) {
      appUserByUserAndApp.set(k, au);
      let byApp = appUsersByUser.get(au.identityUserId);
      if (!byApp) appUsersByUser.set(au.identityUserId, (byApp = new Map()));
      byApp.set(au.appId, au);
    }
  }
  return { appUsers: new Map(list.map((a) => [a.id, a])), appUserByUserAndApp, appUsersByUser };
}

function entitlementsIndex(list: readonly AppEntitlement[]): Pick<WorldIndex, "entitlements" | "entitlementsByApp"> {
  const entitlements = new Map<string, AppEntitlement>();
  const entitlementsByApp = new Map<string, Map<string, AppEntitlement>>();
  for (const e of list) {
    entitlements.set(entitlementKey(e.appId, e.id), e);
    let byId = entitlementsByApp.get(e.appId);
    if (!byId) entitlementsByApp.set(e.appId, (byId = new Map()));
    byId.set(e.id, e);
  }
  return { entitlements, entitlementsByApp };
}

function grantsIndex(list: readonly Grant[]): Pick<WorldIndex, "grants" | "appsHeld" | "entitlementMembers"> {
  const grants = new Map<string, Grant>();
  const appsHeld = new Set<string>();
  // A set per entitlement while building: `includes` on the growing list made an entitlement
  // held by n users cost n² (a tenant's "All employees" group: 50k holders, 1.25e9 comparisons).
  const members = new Map<string, Set<string>>();
  for (const g of list) {
    grants.set(grantKeyOf(g.identityUserId, g.appId, g.appEntitlementId), g);
    appsHeld.add(`${g.identityUserId}\u0000${g.appId}`);
    const k = entitlementKey(g.appId, g.appEntitlementId);
    let set = members.get(k);
    if (!set) members.set(k, (set = new Set()));
    set.add(g.identityUserId);
  }
  const entitlementMembers = new Map<string, string[]>();
  for (const [k, set] of members) entitlementMembers.set(k, [...set]);
  return { grants, appsHeld, entitlementMembers };
}

function resourceTypeDefaultsIndex(list: readonly ResourceTypeDefault[]): WorldIndex["resourceTypeDefaults"] {
  const resourceTypeDefaults = new Map<string, ResourceTypeDefault>();
  for (const d of list) for (const rt of d.resourceTypeIds) resourceTypeDefaults.set(`${d.appId}\u0000${rt}`, d);
  return resourceTypeDefaults;
}

function configRulesIndex(list: readonly EntitlementConfigRule[]): WorldIndex["configRulesByApp"] {
  const configRulesByApp = new Map<string, EntitlementConfigRule[]>();
  for (const r of list) {
    const rules = configRulesByApp.get(r.appId) ?? [];
    rules.push(r);
    configRulesByApp.set(r.appId, rules);
  }
  for (const rules of configRulesByApp.values()) rules.sort(byEvaluationOrder);
  return configRulesByApp;
}

/** Configuration rules are evaluated by priority (lower first), then by id (the API's order). */
function byEvaluationOrder(a: EntitlementConfigRule, b: EntitlementConfigRule): number {
  return a.priority - b.priority || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * Whether a value is a loaded {@link World} (what `loadWorld` returns), as far as a caller's mistake
 * goes: a raw world file (`JSON.parse` of one, not loaded) or null is not.
 *
 * @example
 * ```ts
 * isWorld(world); // true
 * isWorld({ tasks: [] }); // false
 * ```
 */
export function isWorld(x: unknown): x is World {
  return (
    typeof x === "object" &&
    x !== null &&
    Object.hasOwn(x, "index") &&
    Object.hasOwn(x, "policies") &&
    typeof (x as { readonly tasks?: { readonly get?: unknown } }).tasks?.get === "function"
  );
}

/** The most tasks a world may have for a misspelt task id to be guessed at (~60 ms at this size). */
export const TASK_GUESS_LIMIT = 50_000;

/**
 * Every task's id and numericId, for a guess at a misspelt one (`didYouMean`): only on the way to an
 * error, and never on a path a server's client can drive. A guess reads every task, so a world of
 * more than {@link TASK_GUESS_LIMIT} tasks gives none (a bad id stays an error, as cheap as ever).
 *
 * @example
 * ```ts
 * didYouMean("10001", taskNames(world)); // '; did you mean "1001"?'
 * ```
 */
export function* taskNames(world: World): Iterable<string> {
  if (world.tasks.size > TASK_GUESS_LIMIT) return;
  for (const t of world.tasks.values()) {
    yield t.id;
    if (t.numericId) yield t.numericId;
  }
}

/**
 * Finds a task by its `id` or its `numericId` (the spec lets a numericId replace the id in path
 * parameters).
 *
 * @example
 * ```ts
 * findTask(world, "1001")?.displayName;
 * ```
 */
export function findTask(world: World, idOrNumericId: string): Task | undefined {
  const byId = world.tasks.get(idOrNumericId);
  if (byId) return byId;
  const id = world.taskIdByNumericId.get(idOrNumericId);
  return id === undefined ? undefined : world.tasks.get(id);
}

/**
 * The key of a user's grant of an entitlement in `world.index.grants`.
 *
 * @example
 * ```ts
 * world.index.grants.get(grantKeyOf("u-sre-lead", "app-aws", "ent-aws-prod-admin"))?.deprovisionAt;
 * ```
 */
export function grantKeyOf(userId: string, appId: string, entitlementId: string): string {
  return `${userId}\u0000${appId}\u0000${entitlementId}`;
}

/**
 * Finds an entitlement by app and id.
 *
 * @example
 * ```ts
 * findEntitlement(world, "app-aws", "ent-aws-prod-admin")?.riskLevelValueId;
 * ```
 */
export function findEntitlement(world: World, appId: string, entitlementId: string): AppEntitlement | undefined {
  return world.index.entitlementsByApp.get(appId)?.get(entitlementId);
}

/**
 * A user's first account in an app (file order), as {@link WorldIndex.appUserByUserAndApp} holds it,
 * looked up without building a joined key.
 *
 * @example
 * ```ts
 * findAppUserOf(world, "u-ada", "app-aws")?.id;
 * ```
 */
export function findAppUserOf(world: World, identityUserId: string, appId: string): AppUser | undefined {
  return world.index.appUsersByUser.get(identityUserId)?.get(appId);
}

/**
 * Deterministic ids for what a reducer creates: `${prefix}-${n}` from the world's sequence.
 * Returns the ids and the sequence number to store in the next world.
 *
 * @example
 * ```ts
 * const { ids: [eventId], seq } = takeIds(world, "evt", 1);
 * ```
 */
export function takeIds(world: Pick<World, "seq">, prefix: string, count: number): { ids: string[]; seq: number } {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push(`${prefix}-${String(world.seq + i).padStart(6, "0")}`);
  return { ids, seq: world.seq + count };
}

/**
 * Parts of a world that an edit may replace. Tasks are not among them: reducers change tasks.
 *
 * @example
 * ```ts
 * const patch: WorldPatch = { policies: [editedPolicy] };
 * ```
 */
export interface WorldPatch {
  /** Policies to add or replace, matched by id. */
  readonly policies?: readonly Policy[];
  /** Entitlements to add or replace, matched by app and id. */
  readonly entitlements?: readonly AppEntitlement[];
  /** Apps to add or replace, matched by id. */
  readonly apps?: readonly App[];
  /** Users to add or replace, matched by id. */
  readonly users?: readonly User[];
  /** Entitlement configuration rules to add or replace, matched by app and id. */
  readonly entitlementConfigurationRules?: readonly EntitlementConfigRule[];
  readonly tenant?: Tenant;
  readonly now?: string;
}

function upsert<T>(list: readonly T[], changes: readonly T[] | undefined, key: (t: T) => string): readonly T[] {
  if (!changes || changes.length === 0) return list;
  const byKey = new Map(changes.map((c) => [key(c), c]));
  const out = list.map((item) => {
    const k = key(item);
    const next = byKey.get(k);
    if (next === undefined) return item;
    byKey.delete(k);
    return next;
  });
  return Object.freeze([...out, ...byKey.values()]);
}

/**
 * A new world with some directory objects, policies or tenant settings replaced (matched by id) and
 * the indexes of the replaced lists rebuilt (the rest of the index is shared); tasks and comments
 * are shared with the old world, which is unchanged. Costs a pass over the replaced lists, not over
 * the tasks, accounts or grants. Ids are not re-checked: use `loadWorld` on
 * `saveWorld(w)` to validate an edited world.
 *
 * @example
 * ```ts
 * const edited = replaceInWorld(world, { policies: [{ ...policy, rules: [] }] });
 * explain(edited, "1001"); // now routes by the baseline
 * ```
 */
export function replaceInWorld(world: World, patch: WorldPatch): World {
  const policies = upsert(world.policies, patch.policies, (p) => p.id);
  const entitlements = upsert(world.entitlements, patch.entitlements, (e) => entitlementKey(e.appId, e.id));
  const apps = upsert(world.apps, patch.apps, (a) => a.id);
  const users = upsert(world.users, patch.users, (u) => u.id);
  const rules = upsert(world.entitlementConfigurationRules ?? [], patch.entitlementConfigurationRules, (r) => entitlementKey(r.appId, r.id));
  const configRules = rules.length > 0 ? { entitlementConfigurationRules: rules } : {};
  const index = buildIndex({ ...world, policies, entitlements, apps, users, ...configRules }, world);
  return Object.freeze({ ...world, policies, entitlements, apps, users, ...configRules, index, tenant: patch.tenant ?? world.tenant, now: patch.now ?? world.now });
}
