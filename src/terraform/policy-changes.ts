/**
 * A Terraform plan's `conductorone_policy` changes as a what-if edit of a world: each planned
 * create, update and delete becomes the API's Policy JSON (decoded by the codec), matched to the
 * world's policy by id or by its `iac_resource_address` annotation; values known only after apply
 * are resolved within the plan; a delete of a policy that something still references is refused,
 * as the service refuses it. Pure: the plan and the world in, the edit out.
 */
import type { Draft } from "immer";
import { decodePolicy, encodePolicy } from "../codec/index.js";
import type { Policy } from "../model/index.js";
import type { App, AppEntitlement } from "../model/directory.js";
import type { Result } from "../result.js";
import type { EditableWorld, EditRecipe } from "../whatif/edit.js";
import type { World } from "../world/world.js";
import { COMPUTED_ATTRIBUTES, isRecord, type PlanDiagnostic, pathKey, planPathOf, policyAttributesToApi, put } from "./attributes.js";
import { directoryPolicyUses } from "../policy/policy-uses.js";
import { directoryEdit } from "./directory-changes.js";
import {
  attributeExpression,
  narrowExpression,
  outputExpression,
  type PlanAction,
  type PlannedPolicyChange,
  readPlan,
  referencesIn,
  withoutInstanceKeys,
} from "./plan.js";

/**
 * The annotation the provider's users set to the resource's Terraform address.
 *
 * @example
 * ```ts
 * world.policies.find((p) => p.annotations?.[IAC_ADDRESS_ANNOTATION] === "conductorone_policy.prod_admin");
 * ```
 */
export const IAC_ADDRESS_ANNOTATION = "iac_resource_address";

/**
 * How a planned change found its policy in the world: by the policy id in the plan, by the
 * world policy's `iac_resource_address` annotation, or not at all (a new policy, simulated under
 * its Terraform address as id until the service gives it one).
 *
 * @example
 * ```ts
 * const m: PolicyMatch = "annotation";
 * ```
 */
export type PolicyMatch = "id" | "annotation" | "new";

/**
 * One planned change, named by its Terraform address.
 *
 * @example
 * ```ts
 * const c: TerraformPolicyChange = { address: "conductorone_policy.prod_admin", action: "update",
 *   policyId: "pol-prod-admin", displayName: "Production administrator access", matchedBy: "id" };
 * ```
 */
export interface TerraformPolicyChange {
  readonly address: string;
  readonly action: PlanAction;
  /** The world's id of the policy (for a new policy: its Terraform address). */
  readonly policyId: string;
  readonly displayName: string;
  readonly matchedBy: PolicyMatch;
}

/**
 * A plan as an edit: the changes by address, the policies written (created, updated, replaced),
 * the ids deleted, notes worth showing (a delete of a policy the world lacks, a match by annotation).
 *
 * @example
 * ```ts
 * const r = terraformPlanEdit(world, plan);
 * if (r.ok) whatIf(world, terraformEditRecipe(r.value));
 * ```
 */
export interface TerraformPlanEdit {
  readonly changes: readonly TerraformPolicyChange[];
  readonly policies: readonly Policy[];
  readonly deleted: readonly string[];
  /** Entitlements and apps the plan's `conductorone_app_entitlement` / `conductorone_app` changes write (each also a note). */
  readonly entitlements?: readonly AppEntitlement[];
  readonly apps?: readonly App[];
  readonly notes: readonly string[];
}

/** The world's policy a change refers to, and how it was found. */
function matchPolicy(world: World, c: PlannedPolicyChange): { id: string; matchedBy: PolicyMatch; existing: Policy | undefined } {
  const planned = [c.before?.["id"], c.after?.["id"]].find((x): x is string => typeof x === "string" && x !== "");
  if (planned !== undefined) {
    const byId = world.index.policies.get(planned);
    if (byId) return { id: planned, matchedBy: "id", existing: byId };
  }
  // A create makes a new policy even where one carries its address (after `terraform state rm`,
  // or a new workspace, the service gets a second policy): only a resource Terraform already
  // manages is matched by its annotation.
  const byAnnotation = c.action === "create" ? undefined : world.policies.find((p) => p.annotations?.[IAC_ADDRESS_ANNOTATION] === c.address);
  if (byAnnotation) return { id: byAnnotation.id, matchedBy: "annotation", existing: byAnnotation };
  return { id: planned ?? c.address, matchedBy: "new", existing: undefined };
}

/**
 * Read-only attributes inside a policy's steps (the provider's resource schema): the service fills
 * them in, so a plan leaves them unknown on create; like the top-level computed attributes, they
 * are the service's to set and say nothing about routing. By the attribute and the block holding it.
 */
const NESTED_COMPUTED: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ["assigned", new Set(["approval"])],
  ["assigned_user_ids", new Set(["expression", "manager", "self"])],
]);

function isNestedComputed(path: readonly (string | number)[]): boolean {
  const last = path[path.length - 1];
  const holder = path[path.length - 2];
  return typeof last === "string" && typeof holder === "string" && (NESTED_COMPUTED.get(last)?.has(holder) ?? false);
}

/** `true` leaves of an `after_unknown` value, as paths, skipping the computed attributes. */
function unknownLeaves(u: unknown): (string | number)[][] {
  const out: (string | number)[][] = [];
  const walk = (v: unknown, path: (string | number)[]): void => {
    if (path.length > 64) return;
    if (v === true) {
      if (!isNestedComputed(path)) out.push(path);
    } else if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (isRecord(v)) for (const [k, x] of Object.entries(v)) if (path.length > 0 || !COMPUTED_ATTRIBUTES.has(k)) walk(x, [...path, k]);
  };
  walk(u, []);
  return out;
}

function renderPath(base: string, path: readonly (string | number)[]): string {
  return path.reduce<string>((at, seg) => (typeof seg === "number" ? `${at}[${seg}]` : pathKey(at, seg)), base);
}

/** A copy of `values` with `value` written at `path` (containers along it copied). */
function setAt(values: unknown, path: readonly (string | number)[], value: unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return value;
  if (typeof head === "number") {
    const arr = Array.isArray(values) ? [...(values as unknown[])] : [];
    arr[head] = setAt(arr[head], rest, value);
    return arr;
  }
  const obj: Record<string, unknown> = isRecord(values) ? { ...values } : {};
  put(obj, head, setAt(Object.hasOwn(obj, head) ? obj[head] : undefined, rest, value));
  return obj;
}

/**
 * The policy changes a reference (written inside the module at `moduleAddress`) points at: a
 * `conductorone_policy` of the same module, or one that a child module's output names.
 */
function referencedChanges(
  ref: string,
  moduleAddress: string,
  configuration: unknown,
  changes: readonly PlannedPolicyChange[],
  depth = 0,
  instanceKey = "",
): PlannedPolicyChange[] {
  if (depth > 16) return [];
  const prefix = moduleAddress === "" ? "" : `${moduleAddress}.`;
  const resource = /^conductorone_policy\.([A-Za-z_][\w-]*)((?:\[(?:"(?:[^"\\]|\\.)*"|\d+)\])?)/.exec(ref);
  if (resource) {
    const target = `${prefix}conductorone_policy.${resource[1]}${resource[2] ?? ""}`;
    const exact = changes.filter((c) => c.address === target);
    if (exact.length > 0) return exact;
    // A reference without an instance key to a resource with instances: only one may match.
    const stripped = withoutInstanceKeys(target);
    const like = changes.filter((c) => withoutInstanceKeys(c.address) === stripped && c.address.startsWith(prefix));
    if (like.length <= 1) return like;
    // `other[each.key]` / `other[count.index]` from an instance: the sibling with the same key.
    const sibling = instanceKey === "" ? [] : like.filter((c) => c.address.endsWith(instanceKey));
    return sibling.length === 1 ? sibling : like;
  }
  const output = /^module\.([A-Za-z_][\w-]*)\.([A-Za-z_][\w-]*)/.exec(ref);
  if (output) {
    const child = `${prefix}module.${output[1]}`;
    const expr = outputExpression(configuration, child, output[2] ?? "");
    const instances = [...new Set(changes.map((c) => c.moduleAddress).filter((m) => withoutInstanceKeys(m) === withoutInstanceKeys(child)))];
    const childAddress = instances.length === 1 && instances[0] !== undefined ? instances[0] : child;
    return referencesIn(expr).flatMap((r) => referencedChanges(r, childAddress, configuration, changes, depth + 1));
  }
  return [];
}

/**
 * The values after apply with each unknown one resolved to the id of the planned policy its
 * configuration refers to; a diagnostic for an unknown value that is not such a reference.
 */
function resolveUnknowns(
  c: PlannedPolicyChange,
  configuration: unknown,
  changes: readonly PlannedPolicyChange[],
  idOf: ReadonlyMap<PlannedPolicyChange, string>,
): { ok: true; value: Readonly<Record<string, unknown>> } | { ok: false; error: PlanDiagnostic[] } {
  const after = c.after ?? {};
  const leaves = unknownLeaves(c.afterUnknown);
  if (leaves.length === 0) return { ok: true, value: after };
  const errors: PlanDiagnostic[] = [];
  // Leaves are grouped by the expression they come from: one expression may hold several.
  const groups = new Map<unknown, { leaves: (string | number)[][]; path: string }>();
  for (const leaf of leaves) {
    const attribute = leaf[0];
    const at = renderPath(`${c.path}.change.after`, leaf);
    if (typeof attribute !== "string" || !holdsPolicyId(leaf)) {
      errors.push({
        code: "PLAN_UNRESOLVED_UNKNOWN",
        path: at,
        message: `${c.address}: ${renderPath("", leaf).slice(1)} is known only after apply and is not a policy id, so it cannot be simulated`,
      });
      continue;
    }
    const expr = narrowExpression(attributeExpression(configuration, c.address, c.moduleAddress, attribute), leaf.slice(1));
    const key = expr ?? at;
    const g = groups.get(key) ?? { leaves: [], path: at };
    g.leaves.push(leaf);
    groups.set(key, g);
  }
  let value: unknown = after;
  for (const [expr, g] of groups) {
    const targets: string[] = [];
    const refs = referencesIn(expr);
    // An expression indexed by the instance's own key names the sibling instance with that key.
    const byOwnKey = refs.includes("each.key") || refs.includes("count.index") ? (/(\[(?:"(?:[^"\\]|\\.)*"|\d+)\])$/.exec(c.address)?.[1] ?? "") : "";
    for (const ref of refs)
      for (const t of referencedChanges(ref, c.moduleAddress, configuration, changes, 0, byOwnKey)) {
        const id = idOf.get(t);
        // A reference to a policy whose id is already known is not what made this value unknown.
        if (id !== undefined && isUnknownId(t) && !targets.includes(id)) targets.push(id);
      }
    const at = g.path;
    if (targets.length === 1 || (targets.length === g.leaves.length && targets.length > 0)) {
      g.leaves.forEach((leaf, i) => {
        value = setAt(value, leaf, targets.length === 1 ? targets[0] : targets[i]);
      });
    } else {
      const why =
        targets.length === 0
          ? "its configuration refers to no conductorone_policy created in this plan"
          : `its configuration refers to ${targets.length} policies created in this plan (${targets.join(", ")}) for ${g.leaves.length} unknown values, so which is which cannot be told`;
      errors.push({ code: "PLAN_UNRESOLVED_UNKNOWN", path: at, message: `${c.address}: a value known only after apply cannot be resolved: ${why}` });
    }
  }
  return errors.length > 0 ? { ok: false, error: errors } : { ok: true, value: isRecord(value) ? value : after };
}

/** Whether a value's path ends at a policy id (`…policy_id`, or an element of `policy_ids`). */
function holdsPolicyId(path: readonly (string | number)[]): boolean {
  const last = path[path.length - 1];
  const named = typeof last === "number" ? path[path.length - 2] : last;
  return typeof named === "string" && (typeof last === "number" ? named === "policy_ids" : named.endsWith("policy_id"));
}

/** Whether the plan leaves the resource's id unknown (a create or a replacement). */
function isUnknownId(c: PlannedPolicyChange): boolean {
  return isRecord(c.afterUnknown) && c.afterUnknown["id"] === true;
}

/** Every policy id a value holds under `policyId`, `baselinePolicyId` or `policyIds`, with the path. */
function policyIdsIn(v: unknown, at: string, out: { id: string; path: string }[], depth = 0): void {
  if (depth > 64) return;
  if (Array.isArray(v)) {
    v.forEach((x, i) => policyIdsIn(x, `${at}[${i}]`, out, depth + 1));
    return;
  }
  if (!isRecord(v)) return;
  for (const [k, x] of Object.entries(v)) {
    const path = pathKey(at, k);
    if ((k === "policyId" || k === "baselinePolicyId") && typeof x === "string" && x !== "") out.push({ id: x, path });
    else if (k === "policyIds" && Array.isArray(x)) x.forEach((id, i) => typeof id === "string" && out.push({ id, path: `${path}[${i}]` }));
    else policyIdsIn(x, path, out, depth + 1);
  }
}

/** Who still refers to a deleted policy once the plan is applied: what the service checks on delete. */
function referrersOf(
  world: World,
  policies: readonly Policy[],
  deleted: ReadonlySet<string>,
  apps: readonly App[] = world.apps,
  entitlements: readonly AppEntitlement[] = world.entitlements,
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (id: string, who: string): void => {
    if (!deleted.has(id)) return;
    const list = out.get(id) ?? [];
    list.push(who);
    out.set(id, list);
  };
  for (const p of policies) {
    if (deleted.has(p.id)) continue;
    const found: { id: string; path: string }[] = [];
    policyIdsIn(p, "", found);
    for (const f of found) add(f.id, `policy "${p.id}" (${f.path.slice(1)})`);
  }
  for (const u of directoryPolicyUses({ ...world, apps, entitlements })) add(u.policyId, u.who);
  return out;
}

/**
 * Reads a `terraform show -json` plan and turns its `conductorone_policy` changes into an edit of
 * `world`. Errors (JSONPaths into the plan) for a document that is not a plan, attributes that do
 * not decode as a Policy, values known only after apply that the plan does not resolve, and deletes
 * the service would refuse.
 *
 * @example
 * ```ts
 * const r = terraformPlanEdit(world, JSON.parse(readFileSync("plan.json", "utf8")));
 * if (r.ok) {
 *   const w = whatIf(world, terraformEditRecipe(r.value));
 *   for (const c of r.value.changes) console.log(c.action, c.address, c.policyId);
 * }
 * ```
 */
export function terraformPlanEdit(world: World, plan: unknown): Result<TerraformPlanEdit, PlanDiagnostic[]> {
  const read = readPlan(plan);
  if (!read.ok) return read;
  const { changes: planned, directory, configuration } = read.value;
  const errors: PlanDiagnostic[] = [];
  const notes: string[] = [];
  const matches = new Map(planned.map((c) => [c, matchPolicy(world, c)] as const));
  const idOf = new Map([...matches].map(([c, m]) => [c, m.id] as const));

  const seen = new Map<string, string>();
  for (const [c, m] of matches) {
    const other = seen.get(m.id);
    if (other !== undefined)
      errors.push({ code: "PLAN_DUPLICATE_POLICY", path: c.path, message: `${c.address} and ${other} both change policy "${m.id}"` });
    seen.set(m.id, c.address);
  }

  const changes: TerraformPolicyChange[] = [];
  const policies: Policy[] = [];
  const deleted: string[] = [];
  for (const c of planned) {
    const m = matches.get(c) ?? { id: c.address, matchedBy: "new" as const, existing: undefined };
    if (c.action === "delete") {
      if (m.existing === undefined) notes.push(`${c.address}: the world has no policy "${m.id}" to delete; nothing to simulate`);
      else deleted.push(m.id);
      changes.push({ address: c.address, action: c.action, policyId: m.id, displayName: m.existing?.displayName ?? "", matchedBy: m.matchedBy });
      continue;
    }
    if (m.matchedBy === "new" && c.action !== "create")
      notes.push(`${c.address}: the world has no policy "${m.id}"; it is added, and only tasks that reach it can change`);
    const resolved = resolveUnknowns(c, configuration, planned, idOf);
    if (!resolved.ok) {
      errors.push(...resolved.error);
      continue;
    }
    const api = policyAttributesToApi(resolved.value, `${c.path}.change.after`, m.existing ? encodePolicy(m.existing) : undefined);
    if (!api.ok) {
      errors.push(...api.error);
      continue;
    }
    const decoded = decodePolicy({
      ...api.value,
      id: m.id,
      ...(m.existing ? { createdAt: m.existing.createdAt, updatedAt: m.existing.updatedAt, systemBuiltin: m.existing.systemBuiltin } : {}),
    });
    if (!decoded.ok) {
      for (const d of decoded.error)
        errors.push({ code: "PLAN_BAD_POLICY", path: `${c.path}.change.after${planPathOf(d.path).slice(1)}`, message: `${c.address}: ${d.message} (API field path ${d.path})` });
      continue;
    }
    policies.push(decoded.value);
    changes.push({ address: c.address, action: c.action, policyId: m.id, displayName: decoded.value.displayName, matchedBy: m.matchedBy });
  }
  // Apps and entitlements: the policy ids they name may be policies this plan creates.
  const entitlements: AppEntitlement[] = [];
  const apps: App[] = [];
  for (const c of directory) {
    const d = directoryEdit(world, c, (x) => resolveUnknowns(x, configuration, planned, idOf));
    if (!d.ok) {
      errors.push(...d.error);
      continue;
    }
    notes.push(d.value.note);
    if (d.value.object === null) continue;
    if (d.value.kind === "app") apps.push(d.value.object as App);
    else entitlements.push(d.value.object as AppEntitlement);
  }
  if (errors.length > 0) return { ok: false, error: errors };

  const gone = new Set(deleted);
  const written = new Map(policies.map((p) => [p.id, p]));
  const after = [...world.policies.map((p) => written.get(p.id) ?? p), ...policies.filter((p) => !world.index.policies.has(p.id))];
  const appsAfter = replacedBy(world.apps, apps, (a) => a.id);
  const entitlementsAfter = replacedBy(world.entitlements, entitlements, (e) => `${e.appId}\u0000${e.id}`);
  for (const [id, who] of referrersOf(world, after, gone, appsAfter, entitlementsAfter)) {
    const c = changes.find((x) => x.policyId === id);
    // The delete itself: a deposed object shares its address with the instance that replaces it.
    const path = planned.find((x) => x.address === c?.address && x.action === c?.action)?.path ?? "$";
    errors.push({
      code: "PLAN_DELETE_REFERENCED",
      path,
      message: `${c?.address ?? id}: policy "${id}" is deleted but still referenced by ${who.join(", ")}; the service refuses to delete it (move those references in the same plan first)`,
    });
  }
  return errors.length > 0 ? { ok: false, error: errors } : { ok: true, value: { changes, policies, deleted, entitlements, apps, notes } };
}

/** `list` with the items of `written` in place of those of the same key. */
function replacedBy<T>(list: readonly T[], written: readonly T[], key: (x: T) => string): T[] {
  if (written.length === 0) return [...list];
  const byKey = new Map(written.map((x) => [key(x), x]));
  return list.map((x) => byKey.get(key(x)) ?? x);
}

/**
 * The plan's edit as a what-if recipe: policies written in place (new ones appended), deleted ones
 * removed, and the apps and entitlements it writes in place.
 *
 * @example
 * ```ts
 * const r = terraformPlanEdit(world, plan);
 * if (r.ok) console.log(whatIf(world, terraformEditRecipe(r.value)));
 * ```
 */
export function terraformEditRecipe(edit: TerraformPlanEdit): EditRecipe {
  return (draft: Draft<EditableWorld>) => {
    const written = new Map(edit.policies.map((p) => [p.id, p]));
    const gone = new Set(edit.deleted);
    const present = new Set(draft.policies.map((p) => p.id));
    const next = draft.policies.filter((p) => !gone.has(p.id)).map((p) => (written.get(p.id) as Draft<Policy> | undefined) ?? p);
    for (const p of edit.policies) if (!present.has(p.id)) next.push(p as Draft<Policy>);
    draft.policies = next;
    // Absent in an edit built by hand before apps and entitlements were read from plans.
    const entitlements = edit.entitlements ?? [];
    const apps = edit.apps ?? [];
    if (entitlements.length > 0) draft.entitlements = replacedBy(draft.entitlements, entitlements as Draft<AppEntitlement>[], (e) => `${e.appId}\u0000${e.id}`);
    if (apps.length > 0) draft.apps = replacedBy(draft.apps, apps as Draft<App>[], (a) => a.id);
  };
}
