/**
 * Edits for what-if analysis: an immer recipe over the editable parts of a world, or a
 * {@link WorldPatch}; and the *impact* of an edit — what changed between two worlds, in the terms
 * the pruning of {@link whatIf} reasons about (which policies, whether anything a condition or an
 * approver resolution can see changed).
 */
import { type Draft, produce } from "immer";
import type { App, AppEntitlement, User } from "../model/directory.js";
import type { Policy } from "../model/index.js";
import type { EntitlementConfigRule } from "../model/config-rule.js";
import { policyReferencesEnabled } from "../policy/select-steps.js";
import { buildIndex, entitlementKey, replaceInWorld, type Tenant, type World, type WorldPatch } from "../world/world.js";
import { delegationWindow } from "../workflow/delegation.js";
import { ownValue, sameValue } from "./same-value.js";

/**
 * The parts of a world an edit may change. Tasks are not among them: what-if asks how today's
 * tasks would route under edited policies and directory.
 *
 * @example
 * ```ts
 * const view: EditableWorld = { policies: world.policies, entitlements: world.entitlements,
 *   apps: world.apps, users: world.users, entitlementConfigurationRules: [], tenant: world.tenant };
 * ```
 */
export interface EditableWorld {
  readonly policies: readonly Policy[];
  readonly entitlements: readonly AppEntitlement[];
  readonly apps: readonly App[];
  readonly users: readonly User[];
  /** Entitlement configuration rules of every app (entitlement-config-rules page). */
  readonly entitlementConfigurationRules: readonly EntitlementConfigRule[];
  readonly tenant: Tenant;
}

/**
 * An immer recipe over {@link EditableWorld}: mutate the draft freely; only the parts it touches
 * are replaced, everything else is shared with the original world.
 *
 * @example
 * ```ts
 * const recipe: EditRecipe = (w) => {
 *   const p = w.policies.find((x) => x.id === "pol-prod-admin");
 *   if (p?.rules?.[2]) p.rules[2].condition = "false";
 * };
 * ```
 */
export type EditRecipe = (draft: Draft<EditableWorld>) => void;

/**
 * An edit: an immer recipe or a list of replacements.
 *
 * @example
 * ```ts
 * const byPatch: WorldEdit = { policies: [{ ...policy, rules: [] }] };
 * const byRecipe: WorldEdit = (w) => { w.tenant.featureFlags["POLICY_REFERENCES_POLICY"] = false; };
 * ```
 */
export type WorldEdit = EditRecipe | WorldPatch;

const NO_RULES: readonly EntitlementConfigRule[] = Object.freeze([]);

function isEmptyPatch(p: WorldPatch): boolean {
  return (
    (p.policies?.length ?? 0) === 0 &&
    (p.entitlements?.length ?? 0) === 0 &&
    (p.apps?.length ?? 0) === 0 &&
    (p.users?.length ?? 0) === 0 &&
    (p.entitlementConfigurationRules?.length ?? 0) === 0 &&
    p.tenant === undefined &&
    p.now === undefined
  );
}

/**
 * Items of `next` that are not (by identity) the item of `prev` with the same key, and whether the
 * list cannot be a patch: a key went away, or two items share one (a patch would keep the last and
 * drop the other unsaid; the whole list goes to the check instead, which names the second).
 */
function delta<T>(prev: readonly T[], next: readonly T[], key: (t: T) => string): { changed: T[]; removed: boolean } {
  if (prev === next) return { changed: [], removed: false };
  const before = new Map<string, T>();
  for (const item of prev) before.set(key(item), item);
  const changed: T[] = [];
  const seen = new Set<string>();
  let removed = false;
  for (const item of next) {
    const k = key(item);
    if (seen.has(k)) removed = true;
    seen.add(k);
    if (before.get(k) !== item) changed.push(item);
  }
  for (const k of before.keys()) if (!seen.has(k)) removed = true;
  return { changed, removed };
}

/**
 * Applies an edit to a world as it stands, unchecked: the edited world may hold what the edit wrote,
 * ill-typed or not (`rules = "nope"`), and throws what a broken recipe throws. `applyEdit` and
 * `whatIf` check the edit around it; this is for checking an edit yourself (`editDiagnostics`). A
 * recipe runs through immer `produce`; what it changed becomes a {@link WorldPatch} for
 * `replaceInWorld`, so tasks, comments and every untouched object are shared. A recipe that removes
 * items (which a patch cannot express) gets the same treatment by hand: the lists as the recipe
 * left them, the indexes rebuilt once. An edit that changes nothing returns the world itself.
 *
 * @example
 * ```ts
 * const raw = applyEditUnchecked(world, (w) => { (w.policies[0] as { rules: unknown }).rules = "nope"; });
 * editDiagnostics(world, raw)[0]?.path; // "edit.policies[0].rules"
 * ```
 */
export function applyEditUnchecked(world: World, edit: WorldEdit): World {
  if (typeof edit !== "function") return isEmptyPatch(edit) ? world : replaceInWorld(world, edit);
  const base: EditableWorld = {
    policies: world.policies,
    entitlements: world.entitlements,
    apps: world.apps,
    users: world.users,
    entitlementConfigurationRules: world.entitlementConfigurationRules ?? NO_RULES,
    tenant: world.tenant,
  };
  const next = produce(base, edit);
  if (next === base) return world;
  const policies = delta(base.policies, next.policies, (p) => p.id);
  const entitlements = delta(base.entitlements, next.entitlements, (e) => entitlementKey(e.appId, e.id));
  const apps = delta(base.apps, next.apps, (a) => a.id);
  const users = delta(base.users, next.users, (u) => u.id);
  const rules = delta(base.entitlementConfigurationRules, next.entitlementConfigurationRules, (r) => entitlementKey(r.appId, r.id));
  if (!policies.removed && !entitlements.removed && !apps.removed && !users.removed && !rules.removed) {
    const patch: WorldPatch = {
      ...(policies.changed.length > 0 ? { policies: policies.changed } : {}),
      ...(entitlements.changed.length > 0 ? { entitlements: entitlements.changed } : {}),
      ...(apps.changed.length > 0 ? { apps: apps.changed } : {}),
      ...(users.changed.length > 0 ? { users: users.changed } : {}),
      ...(rules.changed.length > 0 ? { entitlementConfigurationRules: rules.changed } : {}),
      ...(next.tenant !== base.tenant ? { tenant: next.tenant } : {}),
    };
    return isEmptyPatch(patch) ? world : replaceInWorld(world, patch);
  }
  const parts = {
    policies: next.policies,
    entitlements: next.entitlements,
    apps: next.apps,
    users: next.users,
    ...(next.entitlementConfigurationRules.length > 0 || world.entitlementConfigurationRules ? { entitlementConfigurationRules: next.entitlementConfigurationRules } : {}),
  };
  return Object.freeze({ ...world, ...parts, tenant: next.tenant, index: buildIndex({ ...world, ...parts }, world) });
}

/**
 * The fields of an entitlement that only policy resolution reads (`policy/resolve-policy.ts`):
 * CEL's `entitlement` has none of them, and neither the directory functions nor approver resolution
 * read them. An entitlement edit confined to these changes which policy a task resolves to, never
 * what a condition or an approver resolution sees.
 */
const ENTITLEMENT_ROUTING_FIELDS: ReadonlySet<string> = new Set([
  "grantPolicyId",
  "revokePolicyId",
  "certifyPolicyId",
  "emergencyGrantEnabled",
  "emergencyGrantPolicyId",
  "overrideAccessRequestsDefaults",
]);

/** The same for apps: CEL and approvers see an app only through its owners. */
const APP_ROUTING_FIELDS: ReadonlySet<string> = new Set(["grantPolicyId", "revokePolicyId", "certifyPolicyId"]);

/** Equal but for the routing fields. */
function sameButRouting(a: object, b: object, routing: ReadonlySet<string>): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) if (!routing.has(k) && !sameValue(ownValue(a, k), ownValue(b, k))) return false;
  return true;
}

/**
 * What an edit changed, as the pruning of `whatIf` needs it.
 *
 * @example
 * ```ts
 * const impact = editImpact(world, applyEditUnchecked(world, edit));
 * if (!impact.conditionsMayChange) console.log("only", [...impact.policies], "changed");
 * ```
 */
export interface EditImpact {
  /** Ids of policies added, removed or changed (structurally). */
  readonly policies: ReadonlySet<string>;
  /** Keys (`appId/id`) of entitlements added, removed or changed. */
  readonly entitlements: readonly string[];
  readonly apps: readonly string[];
  readonly users: readonly string[];
  /** Whether the tenant's settings (default policies, flags) changed. */
  readonly tenant: boolean;
  /** Whether the simulation clock changed. */
  readonly now: boolean;
  /**
   * Whether anything besides policies, the routing fields of entitlements and apps, and the tenant's
   * default policies changed: the users, an entitlement's or app's other fields, an entitlement or
   * app added or removed, the clock, the policy-references flag, or the CEL budget
   * (`tenant.celCostLimit`). When false, every condition and
   * every approver resolution gives the same result in both worlds.
   */
  readonly conditionsMayChange: boolean;
  /**
   * When `conditionsMayChange`, what changed in detail, if every change is one the pruning can trace
   * to the tasks that see it: users, and the non-routing fields of entitlements and apps (including
   * their addition or removal). Null when something else visible changed (the clock, the flag, the
   * CEL budget, or —
   * between worlds given to `whatIfWorlds` — groups, grants, accounts, roles, resource-type
   * defaults, access reviews): then every task is decided in both worlds.
   */
  readonly visible: VisibleChanges | null;
}

/**
 * Directory changes a decision can see, split by what of them is read where (`footprint.ts`).
 *
 * @example
 * ```ts
 * const v: VisibleChanges = { users: new Set(["u-30"]), approverUsers: new Set(), managerUsers: new Set(),
 *   entitlements: new Set(), apps: new Set() };
 * ```
 */
export interface VisibleChanges {
  /** Users added, removed or changed in any field. */
  readonly users: ReadonlySet<string>;
  /** Of these, the users whose existence, `status`, delegation (delegate and window) or roles changed: what approver resolution reads of a candidate. */
  readonly approverUsers: ReadonlySet<string>;
  /** Of these, the users whose existence or `email` changed: what a `subject` shows of its first manager. */
  readonly managerUsers: ReadonlySet<string>;
  /** Entitlements (`entitlementKey`) added, removed or changed beyond their routing fields. */
  readonly entitlements: ReadonlySet<string>;
  /** Apps added, removed or changed beyond their routing fields. */
  readonly apps: ReadonlySet<string>;
}

function changedIds<T>(
  before: ReadonlyMap<string, T>,
  after: ReadonlyMap<string, T>,
  onChange: (prev: T | undefined, next: T | undefined) => void,
): string[] {
  const out: string[] = [];
  for (const [id, next] of after) {
    const prev = before.get(id);
    if (prev !== next && !sameValue(prev, next)) {
      out.push(id);
      onChange(prev, next);
    }
  }
  for (const [id, prev] of before)
    if (!after.has(id)) {
      out.push(id);
      onChange(prev, undefined);
    }
  return out.sort();
}

/** Whether approver resolution sees the same delegation (delegate and window) on both users. */
function sameDelegation(p: User, n: User): boolean {
  const a = delegationWindow(p);
  const b = delegationWindow(n);
  return a === b || (a !== null && b !== null && a.delegatedUserId === b.delegatedUserId && a.startAt === b.startAt && a.expireAt === b.expireAt);
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * Compares a world with its edited version.
 *
 * @example
 * ```ts
 * editImpact(world, world).policies.size; // 0
 * ```
 */
export function editImpact(before: World, after: World): EditImpact {
  if (before === after)
    return { policies: new Set(), entitlements: [], apps: [], users: [], tenant: false, now: false, conditionsMayChange: false, visible: null };
  let visible = false;
  // Something visible that is not traced per task.
  let untraced = false;
  const usersSeen = new Set<string>();
  const approverUsers = new Set<string>();
  const managerUsers = new Set<string>();
  const entsSeen = new Set<string>();
  const appsSeen = new Set<string>();
  const policies = before.index.policies === after.index.policies ? [] : changedIds(before.index.policies, after.index.policies, () => {});
  const users =
    before.users === after.users
      ? []
      : changedIds(before.index.users, after.index.users, (p, n) => {
          visible = true;
          const id = (p ?? n)?.id ?? "";
          usersSeen.add(id);
          if (!p || !n || p.status !== n.status || !sameDelegation(p, n) || !sameStrings(p.roleIds, n.roleIds)) approverUsers.add(id);
          if (!p || !n || p.email !== n.email) managerUsers.add(id);
        });
  const entitlements =
    before.entitlements === after.entitlements
      ? []
      : changedIds(before.index.entitlements, after.index.entitlements, (p, n) => {
          const e = p ?? n;
          if (e && (!p || !n || !sameButRouting(p, n, ENTITLEMENT_ROUTING_FIELDS))) {
            visible = true;
            entsSeen.add(entitlementKey(e.appId, e.id));
          }
        }).map((k) => k.replace("\u0000", "/"));
  const apps =
    before.apps === after.apps
      ? []
      : changedIds(before.index.apps, after.index.apps, (p, n) => {
          const a = p ?? n;
          if (a && (!p || !n || !sameButRouting(p, n, APP_ROUTING_FIELDS))) {
            visible = true;
            appsSeen.add(a.id);
          }
        });
  const tenant = before.tenant !== after.tenant && !sameValue(before.tenant, after.tenant);
  // Selection reads exactly one flag; the others change nothing a decision sees.
  const flag = (w: World) => policyReferencesEnabled(w.tenant);
  if (flag(before) !== flag(after)) visible = untraced = true;
  // The CEL budget every condition and approver expression runs under: a smaller one can fail a
  // rule that held (its task falls through), a larger one let through a rule that ran out.
  if (before.tenant.celCostLimit !== after.tenant.celCostLimit) visible = untraced = true;
  const now = before.now !== after.now;
  if (now) visible = untraced = true;
  // Not editable through an edit, but `editImpact` may be handed any two worlds.
  if (
    before.appUsers !== after.appUsers ||
    before.groups !== after.groups ||
    before.grants !== after.grants ||
    before.roles !== after.roles ||
    before.resourceTypeDefaults !== after.resourceTypeDefaults ||
    // A configuration rule edit moves tasks between policies by their entitlements' attributes.
    (before.entitlementConfigurationRules !== after.entitlementConfigurationRules &&
      !sameValue(before.entitlementConfigurationRules ?? NO_RULES, after.entitlementConfigurationRules ?? NO_RULES)) ||
    before.accessReviews !== after.accessReviews
  )
    visible = untraced = true;
  const traced: VisibleChanges | null =
    visible && !untraced ? { users: usersSeen, approverUsers, managerUsers, entitlements: entsSeen, apps: appsSeen } : null;
  return { policies: new Set(policies), entitlements, apps, users, tenant, now, conditionsMayChange: visible, visible: traced };
}
