/**
 * A Terraform plan's `conductorone_policy` changes as a what-if edit of a world: each planned
 * create, update and delete becomes the API's Policy JSON (decoded by the codec), matched to the
 * world's policy by id or by its `iac_resource_address` annotation; values known only after apply
 * are resolved within the plan; attribute names are checked against the provider's schema; a delete
 * (or a replacement, which deletes the old id) of a policy that something still references is
 * refused, as the service refuses it. Pure: the plan and the world in, the edit out.
 */
import type { Draft } from "immer";
import { decodePolicy, encodePolicy } from "../codec/index.js";
import type { Policy } from "../model/index.js";
import type { App, AppEntitlement } from "../model/directory.js";
import type { Result } from "../result.js";
import type { EditableWorld, EditRecipe } from "../whatif/edit.js";
import type { World } from "../world/world.js";
import { itemWarnings } from "../world/world-warnings.js";
import type { Diagnostic } from "../world/read.js";
import { isRecord, isZeroValue, type PlanDiagnostic, pathKey, planPathOf, policyAttributesToApi, put } from "./attributes.js";
import { directoryPolicyUses } from "../policy/policy-uses.js";
import { type AttributeDifference, policyDifferences, shownValue, withoutSensitive } from "./differences.js";
import { directoryEdit } from "./directory-changes.js";
import { type PlanAction, type PlannedPolicyChange, readPlan } from "./plan.js";
import { unknownAttributes } from "./unknown-attributes.js";
import { holdsPolicyId, renderPath, type ResolvedValues, resolveUnknowns, type UnknownContext } from "./unknown-values.js";

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
  /** The world's id of the policy (for a new policy, a replacement's too: its Terraform address). */
  readonly policyId: string;
  readonly displayName: string;
  readonly matchedBy: PolicyMatch;
  /** A replacement: the world's id of the policy it deletes. */
  readonly replaces?: string;
  /** An update or a replacement: the values it changes, in the provider's names. */
  readonly differences?: readonly AttributeDifference[];
}

/**
 * A plan as an edit: the changes by address, the policies written (created, updated, replaced),
 * the ids deleted (by deletes and replacements), notes worth showing (a delete of a policy the world
 * lacks, an attribute a newer provider added), and warnings about what the simulation leaves out
 * (changes Terraform deferred to a later plan).
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
  /** Absent in an edit built by hand; shown before everything else in a report. */
  readonly warnings?: readonly string[];
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
  // manages is matched by its annotation; nor is a deposed object, which is not the one at its
  // address (its `before.id` says which it is).
  const byAnnotation = c.action === "create" || c.deposed !== undefined ? undefined : world.policies.find((p) => p.annotations?.[IAC_ADDRESS_ANNOTATION] === c.address);
  if (byAnnotation) return { id: byAnnotation.id, matchedBy: "annotation", existing: byAnnotation };
  return { id: planned ?? c.address, matchedBy: "new", existing: undefined };
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
    // Read from the API's JSON and named in the provider's attribute names, as the plan writes them.
    policyIdsIn(encodePolicy(p), "$", found);
    for (const f of found) add(f.id, `policy "${p.id}" (${planPathOf(f.path).replace(/^\$\.?/, "")})`);
  }
  for (const u of directoryPolicyUses({ ...world, apps, entitlements })) add(u.policyId, u.who);
  return out;
}

/**
 * Reads a `terraform show -json` plan and turns its `conductorone_policy` changes into an edit of
 * `world`. Errors (JSONPaths into the plan) for a document that is not a plan or a plan Terraform
 * stopped on an error, attribute names the provider's schema does not have, attributes that do not
 * decode as a Policy, values known only after apply that the plan does not resolve, an update of a
 * policy the world lacks (the world is out of date), and deletes the service would refuse.
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
  const { changes: planned, directory, configuration, pending, updatedOnly, incomplete } = read.value;
  const errors: PlanDiagnostic[] = [];
  const notes: string[] = [];
  const warnings: string[] = [];
  if (incomplete !== null)
    warnings.push(
      incomplete.deferred.length > 0
        ? `this plan is incomplete (complete: false): Terraform deferred ${incomplete.deferred.length === 1 ? "a change" : `${incomplete.deferred.length} changes`} to a later plan, and ${incomplete.deferred.length === 1 ? "it is" : "they are"} not simulated: ${incomplete.deferred.join(", ")}`
        : "this plan is incomplete (complete: false): Terraform will need another plan and apply after this one, and what that changes is not simulated",
    );
  const hasConfiguration = isRecord(configuration);
  /** Whether some value known only after apply was taken as a default for want of a configuration. */
  let guessed = false;
  // A replacement is a new policy: it is simulated under its address, as a create is, and deletes the old id.
  const matches = new Map(
    planned.map((c) => [c, c.action === "replace" ? { id: c.address, matchedBy: "new" as const, existing: undefined } : matchPolicy(world, c)] as const),
  );
  const replaced = new Map(planned.filter((c) => c.action === "replace").map((c) => [c, matchPolicy(world, c)] as const));
  const ctx: UnknownContext = { configuration, changes: planned, idOf: new Map([...matches].map(([c, m]) => [c, m.id] as const)), pending, updatedOnly };

  const seen = new Map<string, string>();
  const claim = (c: PlannedPolicyChange, id: string): void => {
    const other = seen.get(id);
    if (other !== undefined) errors.push({ code: "PLAN_DUPLICATE_POLICY", path: c.path, message: `${c.address} and ${other} both change policy "${id}"` });
    seen.set(id, c.address);
  };
  for (const [c, m] of matches) claim(c, m.id);
  for (const [c, old] of replaced) if (old.existing !== undefined) claim(c, old.id);

  const changes: TerraformPolicyChange[] = [];
  const policies: Policy[] = [];
  /** Each deleted id, and the change that deletes it. */
  const deletedBy = new Map<string, PlannedPolicyChange>();
  for (const c of planned) {
    const m = matches.get(c) ?? { id: c.address, matchedBy: "new" as const, existing: undefined };
    if (c.action === "delete") {
      if (m.existing === undefined) notes.push(`${c.address}: the world has no policy "${m.id}" to delete; nothing to simulate`);
      else deletedBy.set(m.id, c);
      changes.push({ address: c.address, action: c.action, policyId: m.id, displayName: shownValue(m.existing?.displayName ?? "", "$.display_name", c.sensitive ?? []), matchedBy: m.matchedBy });
      continue;
    }
    if (m.matchedBy === "new" && c.action === "update") {
      errors.push({
        code: "PLAN_WORLD_OUT_OF_DATE",
        path: `${c.path}.change.before`,
        message: `${c.address}: the world snapshot lacks policy "${m.id}", which the plan updates (and no policy carries the ${IAC_ADDRESS_ANNOTATION} annotation "${c.address}"): the world is out of date; pull the tenant again (policy-sim pull)`,
      });
      continue;
    }
    const old = replaced.get(c);
    if (old !== undefined) {
      if (old.existing === undefined) notes.push(`${c.address}: the world has no policy "${old.id}" for this replacement to delete; the new policy is added`);
      else deletedBy.set(old.id, c);
    }
    const resolved = resolveUnknowns(c, ctx);
    if (!resolved.ok) {
      errors.push(...resolved.error);
      continue;
    }
    guessed ||= !hasConfiguration && resolved.value.defaulted.length > 0;
    notes.push(...defaultNotes(c, resolved.value, hasConfiguration));
    const at = `${c.path}.change.after`;
    const values = withinSchema(c, resolved.value.values, at, errors, notes);
    if (values === null) continue;
    const base = c.action === "update" && m.existing ? encodePolicy(m.existing) : undefined;
    const api = policyAttributesToApi(values, at, base);
    if (!api.ok) {
      errors.push(...api.error);
      continue;
    }
    const decoded = decodePolicy({
      ...api.value,
      id: m.id,
      ...(m.existing ? { createdAt: m.existing.createdAt, updatedAt: m.existing.updatedAt, systemBuiltin: m.existing.systemBuiltin } : {}),
    });
    // An enum value outside its set: the world keeps it (forward compatibility), but the provider's
    // write would be refused, as protojson refuses an enum name it does not know.
    const enums: Diagnostic[] = [];
    itemWarnings("policies", api.value, "$", {}, enums);
    for (const d of enums)
      if (d.code === "UNKNOWN_ENUM_VALUE")
        errors.push({ code: "PLAN_BAD_POLICY", path: `${at}${planPathOf(d.path).slice(1)}`, message: `${c.address}: ${d.message}: the service would refuse the write (API field path ${d.path})` });
    if (!decoded.ok) {
      for (const d of decoded.error)
        errors.push({ code: "PLAN_BAD_POLICY", path: `${at}${planPathOf(d.path).slice(1)}`, message: `${c.address}: ${d.message} (API field path ${d.path})` });
      continue;
    }
    policies.push(decoded.value);
    warnings.push(...unwrappedForms(c.address, decoded.value));
    const was = m.existing ?? old?.existing;
    changes.push({
      address: c.address,
      action: c.action,
      policyId: m.id,
      displayName: shownValue(decoded.value.displayName, "$.display_name", c.sensitive ?? []),
      matchedBy: m.matchedBy,
      ...(old?.existing ? { replaces: old.id } : {}),
      ...(was ? { differences: withoutSensitive(policyDifferences(was, decoded.value), c.sensitive ?? []) } : {}),
    });
  }
  // Apps and entitlements: the policy ids they name may be policies this plan creates.
  const entitlements: AppEntitlement[] = [];
  const apps: App[] = [];
  for (const c of directory) {
    const d = directoryEdit(world, c, (x) => {
      const r = resolveUnknowns(x, ctx);
      guessed ||= r.ok && !hasConfiguration && r.value.defaulted.length > 0;
      return r.ok ? { ok: true, value: r.value.values } : r;
    });
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
  if (guessed)
    notes.unshift(
      "the plan has no configuration section, so no value known only after apply can be traced to an expression: each is taken as the provider's computed default (its value before an update, unset on a create), and a policy id that names a policy this plan creates is not resolved",
    );

  const gone = new Set(deletedBy.keys());
  const written = new Map(policies.map((p) => [p.id, p]));
  const after = [...world.policies.map((p) => written.get(p.id) ?? p), ...policies.filter((p) => !world.index.policies.has(p.id))];
  const appsAfter = replacedBy(world.apps, apps, (a) => a.id);
  const entitlementsAfter = replacedBy(world.entitlements, entitlements, (e) => `${e.appId}\u0000${e.id}`);
  for (const [id, who] of referrersOf(world, after, gone, appsAfter, entitlementsAfter)) {
    const c = deletedBy.get(id);
    const what = c?.action === "replace" ? `policy "${id}" is replaced (the new policy gets a new id, and "${id}" is deleted)` : `policy "${id}" is deleted`;
    errors.push({
      code: "PLAN_DELETE_REFERENCED",
      // The delete itself: a deposed object shares its address with the instance that replaces it.
      path: c?.path ?? "$",
      message: `${c?.address ?? id}: ${what} but still referenced by ${who.join(", ")}; the service refuses to delete it (${c?.action === "replace" ? "point those references at the new policy" : "move those references"} in the same plan first)`,
    });
  }
  if (errors.length > 0) return { ok: false, error: errors };
  const deleted = [...gone];
  return { ok: true, value: { changes, policies, deleted, entitlements, apps, notes, ...(warnings.length > 0 ? { warnings } : {}) } };
}

/**
 * Notes on unknown values taken as the provider's defaults where the plan cannot say they are:
 * a resource without a block in the configuration, or, without any configuration, a policy id
 * (it might have named a policy this plan creates).
 */
function defaultNotes(c: PlannedPolicyChange, r: ResolvedValues, hasConfiguration: boolean): string[] {
  const n = r.defaulted.length;
  if (n === 0) return [];
  const taken = c.action === "update" ? "its value before the change" : "unset";
  if (!hasConfiguration)
    return r.defaulted.filter(holdsPolicyId).map((leaf) => `${c.address}: ${renderPath("", leaf).slice(1)} is known only after apply; without a configuration it is taken as ${taken}`);
  if (r.configured) return r.throughLocals ? [localsNote(c, r.throughLocals)] : [];
  return [
    `${c.address}: the plan's configuration has no block for this resource, so its ${n === 1 ? "value" : `${n} values`} known only after apply ${n === 1 ? "is" : "are"} taken as the provider's computed defaults (${c.action === "update" ? "as before the change" : "unset"})`,
  ];
}

/**
 * Form steps whose JSON holds a form's own fields (`displayName`, `fields`, …) without the `form`
 * member around them: terraform/policy-resource.md's `form` is "parsed as JSON" into the API's
 * policy Form, whose one member is `form` (openapi.yaml `c1.api.policy.v1.Form`), so the provider
 * would drop them and the step would have no form. The simulation does as the apply would; the
 * report says why.
 */
function unwrappedForms(address: string, policy: Policy): string[] {
  const out: string[] = [];
  for (const [key, list] of Object.entries(policy.policySteps ?? {}))
    (list?.steps ?? []).forEach((step, i) => {
      if (step.kind !== "form" || step.form !== null || step.$unknown === undefined) return;
      const keys = Object.keys(step.$unknown);
      if (keys.length === 0) return;
      const at = `policy_steps${/^[A-Za-z_][\w-]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`}.steps[${i}].form`;
      out.push(
        `${address}: ${at} has no "form" member, only ${keys.slice(0, 4).join(", ")}${keys.length > 4 ? ", …" : ""}: the provider reads it as {"form": {…}}, ` +
          `so these would be dropped and the step would have no form (simulated so). Write form = jsonencode({ form = { … } })`,
      );
    });
  return out;
}

/**
 * The note on unknown values taken as defaults under an expression that reads a local: the plan's
 * JSON does not say what a local holds, so a local that reads a data source or a resource known
 * only after apply would make the simulated values wrong, and the report must say so.
 */
function localsNote(c: PlannedPolicyChange, through: NonNullable<ResolvedValues["throughLocals"]>): string {
  const locals = [...new Set(through.flatMap((t) => t.locals))];
  const shown = through.slice(0, 3).map((t) => renderPath("", t.leaf).slice(1));
  const more = through.length > shown.length ? ` and ${through.length - shown.length} more` : "";
  const taken = c.action !== "update" ? "unset" : through.length === 1 ? "its value before the change" : "their values before the change";
  return (
    `${c.address}: ${shown.join(", ")}${more} ${through.length === 1 ? "is" : "are"} known only after apply and written by an expression that reads ${locals.join(", ")}, ` +
    `which \`terraform show -json\` does not describe: taken as the provider's defaults (${taken}). If ${locals.length === 1 ? "that local reads" : "those locals read"} a data source or resource known only after apply, the simulation is not what will be applied: refer to it directly`
  );
}

/**
 * The attribute values with the names the provider's schema lacks taken out: one holding a value is
 * an error (a plan of another provider version, or the API's camelCase names: what it says would be
 * lost), and the values are null; an unset one says nothing, as a newer provider's attribute the
 * configuration leaves out says nothing, and is a note.
 */
function withinSchema(
  c: PlannedPolicyChange,
  values: Readonly<Record<string, unknown>>,
  at: string,
  errors: PlanDiagnostic[],
  notes: string[],
): Readonly<Record<string, unknown>> | null {
  let kept = values;
  let refused = false;
  for (const u of unknownAttributes(values, at)) {
    const hint = u.suggestion === undefined ? "" : ` (did you mean "${u.suggestion}"?)`;
    if (!isZeroValue(u.value)) {
      refused = true;
      errors.push({
        code: "PLAN_UNKNOWN_ATTRIBUTE",
        path: u.path,
        message: `${c.address}: the conductorone_policy schema has no attribute "${u.name}" here${hint}; a plan of another provider version, or the API's camelCase names, cannot be simulated`,
      });
      continue;
    }
    notes.push(`${c.address}: ${u.path.slice(at.length + 1)} is not an attribute of the conductorone_policy schema this version knows${hint}; it is unset, so it is ignored`);
    const rest = withoutPath(kept, u.segments);
    if (isRecord(rest)) kept = rest;
  }
  return refused ? null : kept;
}

/** A copy of attribute values without the value at a path (containers along it copied). */
function withoutPath(values: unknown, path: readonly (string | number)[]): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return values;
  if (Array.isArray(values)) return typeof head === "number" ? values.map((x, i) => (i === head ? withoutPath(x, rest) : x)) : values;
  if (!isRecord(values) || typeof head !== "string") return values;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(values)) if (k !== head || rest.length > 0) put(out, k, k === head ? withoutPath(x, rest) : x);
  return out;
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
