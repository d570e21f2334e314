/**
 * Values a plan knows only after apply (`after_unknown`), resolved to what apply would send. Two
 * kinds exist. An attribute the configuration does not set, which the provider declares
 * `Optional` and `Computed` (the Speakeasy-generated provider does so for nearly every optional
 * attribute), is planned unknown by terraform-plugin-framework on every create and update; the
 * provider's update then fills it from the prior state and its create leaves it unset, so it is the
 * value before the change, or nothing. A value the configuration does write from an expression is
 * unknown because something it refers to is: a policy id of a policy the same plan creates resolves
 * to that policy; anything else cannot be simulated. HashiCorp's JSON output format says which is
 * which: the resource's `configuration` block has an `expressions` entry (a `constant_value` or
 * `references`) for every attribute the configuration writes.
 */
import { isRecord, type PlanDiagnostic, put } from "./attributes.js";
import { COMPUTED_ATTRIBUTES, isReadOnly, oneofSiblings } from "./policy-schema.js";
import { forEachExpression, outputExpression, type PlannedPolicyChange, referencesIn, resourceExpressions, variableExpression, withoutInstanceKeys } from "./plan.js";

/** A path of keys and indexes into attribute values. */
type Path = readonly (string | number)[];

/**
 * What resolving a change's unknown values needs of the plan: its configuration, its policy changes
 * with the id each is simulated under, and the resources whose values wait for apply.
 *
 * @example
 * ```ts
 * const ctx: UnknownContext = { configuration: plan.configuration, changes: plan.changes, idOf, pending: plan.pending };
 * ```
 */
export interface UnknownContext {
  readonly configuration: unknown;
  readonly changes: readonly PlannedPolicyChange[];
  readonly idOf: ReadonlyMap<PlannedPolicyChange, string>;
  readonly pending: ReadonlySet<string>;
  /** `PolicyPlan.updatedOnly`: the attributes of resources updated in place that stay known. */
  readonly updatedOnly?: ReadonlyMap<string, readonly unknown[]>;
}

/**
 * A change's values after apply: unknown ones resolved, with which were taken as the provider's
 * computed defaults and whether the plan's configuration had a block for the resource to tell.
 *
 * @example
 * ```ts
 * const r: ResolvedValues = { values: { display_name: "P" }, defaulted: [["description"]], unset: [["rules", 0, "policy_id"]], configured: true };
 * ```
 */
export interface ResolvedValues {
  readonly values: Readonly<Record<string, unknown>>;
  /** Unknown values no expression of the configuration writes: the value before an update, unset on a create. */
  readonly defaulted: readonly Path[];
  /** Unknown values beside a set member of their oneof: unset, whatever the prior state holds. */
  readonly unset: readonly Path[];
  /** False when the plan's configuration has no block for the resource (or there is no configuration). */
  readonly configured: boolean;
  /**
   * Of {@link defaulted}, those written by an expression that reads a local (which the plan's JSON
   * does not describe): a default only if the local holds nothing known only after apply.
   */
  readonly throughLocals?: readonly { readonly leaf: Path; readonly locals: readonly string[] }[];
}

/** Where an unknown value comes from, as the configuration tells. */
type Origin =
  | { readonly kind: "default" }
  /** Another member of its oneof is set: whatever the prior state holds, the provider sends this one unset. */
  | { readonly kind: "unset" }
  /** `whole`: the expression writes an enclosing attribute (a nested attribute is one expression), not this value alone. */
  | { readonly kind: "expression"; readonly expr: unknown; readonly whole: boolean };

/**
 * `true` leaves of an `after_unknown` value, as paths: those a configuration may write, and apart
 * the read-only attributes (of a policy's schema), which only the service writes.
 */
function unknownLeaves(u: unknown, policy: boolean): { writable: (string | number)[][]; readOnly: (string | number)[][] } {
  const writable: (string | number)[][] = [];
  const readOnly: (string | number)[][] = [];
  const walk = (v: unknown, path: (string | number)[]): void => {
    if (path.length > 64) return;
    if (v === true) (policy && isReadOnly(path) ? readOnly : writable).push(path);
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (isRecord(v)) for (const [k, x] of Object.entries(v)) if (path.length > 0 || !COMPUTED_ATTRIBUTES.has(k)) walk(x, [...path, k]);
  };
  walk(u, []);
  return { writable, readOnly };
}

/**
 * `base` + `.key` / `[0]` / `["key"]` for each segment of a path.
 *
 * @example
 * ```ts
 * renderPath("$.after", ["rules", 0, "policy_id"]); // "$.after.rules[0].policy_id"
 * ```
 */
export function renderPath(base: string, path: Path): string {
  return path.reduce<string>((at, seg) => (typeof seg === "number" ? `${at}[${seg}]` : /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(seg) ? `${at}.${seg}` : `${at}[${JSON.stringify(seg)}]`), base);
}

/** The value at a path, or undefined. */
function valueAt(v: unknown, path: Path): unknown {
  let x = v;
  for (const seg of path) {
    if (typeof seg === "number" ? !Array.isArray(x) : !isRecord(x) || !Object.hasOwn(x, seg)) return undefined;
    x = (x as Record<string | number, unknown>)[seg];
  }
  return x;
}

/** A copy of `values` with `value` written at `path` (containers along it copied). */
function setAt(values: unknown, path: Path, value: unknown): unknown {
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
 * Where the unknown value at `leaf` comes from: the resource's expressions (one per attribute; a
 * block would give one per nested attribute) narrowed along the path. No expression, or a constant
 * without this value, means the configuration leaves it unset.
 */
function originOf(expressions: Readonly<Record<string, unknown>>, leaf: Path): Origin {
  let e: unknown = expressions;
  for (let i = 0; i <= leaf.length; i++) {
    if (e === undefined || e === null) return { kind: "default" };
    if (isRecord(e) && Object.hasOwn(e, "constant_value")) {
      const v = valueAt(e["constant_value"], leaf.slice(i));
      return v === undefined || v === null ? { kind: "default" } : { kind: "expression", expr: e, whole: i < leaf.length };
    }
    if (i === leaf.length || (isRecord(e) && Object.hasOwn(e, "references"))) return { kind: "expression", expr: e, whole: i < leaf.length };
    const seg = leaf[i];
    if (Array.isArray(e) && typeof seg === "number") e = e[seg];
    else if (isRecord(e) && typeof seg === "string" && (i === 0 || Object.keys(e).length > 0)) e = Object.hasOwn(e, seg) ? e[seg] : undefined;
    // An expression the format does not break down (a function call, no references): it writes all below.
    else return { kind: "expression", expr: e, whole: true };
  }
  return { kind: "default" };
}

/** Whether an `after_unknown` value is or holds `true` (bounded: the plan is input). */
function containsTrue(v: unknown, depth = 0): boolean {
  if (v === true) return true;
  if (depth > 64) return false;
  if (Array.isArray(v)) return v.some((x) => containsTrue(x, depth + 1));
  return isRecord(v) && Object.values(v).some((x) => containsTrue(x, depth + 1));
}

/**
 * Whether a value's path ends at a policy id (`…policy_id`, or an element of `policy_ids`).
 *
 * @example
 * ```ts
 * holdsPolicyId(["rules", 0, "policy_id"]); // true
 * holdsPolicyId(["policy_steps", "grant", "steps", 0, "approval", "agent", "policy_ids", 1]); // true
 * holdsPolicyId(["policy_steps", "grant", "steps", 0, "approval", "agent", "policy_ids"]); // true: the whole list
 * ```
 */
export function holdsPolicyId(path: Path): boolean {
  const last = path[path.length - 1];
  const named = typeof last === "number" ? path[path.length - 2] : last;
  return typeof named === "string" && (typeof last === "number" ? named === "policy_ids" : named.endsWith("policy_id") || isIdList(path));
}

/** Whether a path ends at a whole list of policy ids (`…policy_ids`, not one of its elements). */
function isIdList(path: Path): boolean {
  return path[path.length - 1] === "policy_ids";
}

/** A copy of `values` without the value at `path` (containers along it copied); `values` itself when there is none. */
function unsetAt(values: unknown, path: Path): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return undefined;
  if (typeof head === "number") {
    if (!Array.isArray(values) || head >= values.length) return values;
    const arr = [...(values as unknown[])];
    arr[head] = rest.length === 0 ? null : unsetAt(arr[head], rest);
    return arr;
  }
  if (!isRecord(values) || !Object.hasOwn(values, head)) return values;
  const obj: Record<string, unknown> = { ...values };
  if (rest.length === 0) delete obj[head];
  else put(obj, head, unsetAt(obj[head], rest));
  return obj;
}

/**
 * Whether another member of the oneof the value at `leaf` belongs to is set in the plan
 * (terraform/policy-resource.md: "Only a single field of the following list may be set at a time";
 * a rule's `policy_id` and `step_key` are "part of the `outcome` oneof"). Such an unknown value is the
 * provider's default whatever expression writes the enclosing attribute, and it is sent unset: the
 * prior state's value there (a step's old approver kind, a rule's old outcome) is not brought back.
 */
function otherMemberSet(after: unknown, leaf: Path): boolean {
  const container = leaf.slice(0, -1);
  return oneofSiblings(leaf).some((n) => {
    const v = valueAt(after, [...container, n]);
    return v !== undefined && v !== null && v !== "";
  });
}

/**
 * Whether the value at `leaf` is a rule's `policy_id` or `step_key` beside a set `policy_key`: a
 * rule persisted before the `outcome` oneof existed (terraform/policy-resource.md: `policy_key`
 * "Still read by the request path for backward compatibility"). The configuration leaves its
 * outcome unset, so the provider keeps the prior state there, whatever expression writes `rules`.
 */
function legacyRuleOutcome(after: unknown, leaf: Path): boolean {
  if (leaf.length !== 3 || leaf[0] !== "rules" || (leaf[2] !== "policy_id" && leaf[2] !== "step_key")) return false;
  const key = valueAt(after, [leaf[0], leaf[1] as number, "policy_key"]);
  return typeof key === "string" && key !== "";
}

/** Whether the plan leaves the resource's id unknown (a create or a replacement). */
function isUnknownId(c: PlannedPolicyChange): boolean {
  return isRecord(c.afterUnknown) && c.afterUnknown["id"] === true;
}

const INSTANCE_KEY = String.raw`(?:\[(?:"(?:[^"\\]|\\.)*"|\d+)\])`;
const RESOURCE_REF = new RegExp(String.raw`^conductorone_policy\.([A-Za-z_][\w-]*)(${INSTANCE_KEY}?)`);
const OUTPUT_REF = new RegExp(String.raw`^module\.([A-Za-z_][\w-]*)(${INSTANCE_KEY}?)\.([A-Za-z_][\w-]*)`);

/**
 * The policy changes a reference (written inside the module at `moduleAddress`) points at: a
 * `conductorone_policy` of the same module, or one that a child module's output names — of one
 * instance of the module (`module.team[0].policy_id`, `module.team["eu"].policy_id`) or of its only one.
 *
 * @example
 * ```ts
 * referencedChanges("module.team[0].policy_id", "", plan.configuration, plan.changes); // [the change of module.team[0].conductorone_policy.p]
 * ```
 */
export function referencedChanges(
  ref: string,
  moduleAddress: string,
  configuration: unknown,
  changes: readonly PlannedPolicyChange[],
  depth = 0,
  instanceKey = "",
  seen: Set<string> = new Set(),
): PlannedPolicyChange[] {
  if (depth > 16) return [];
  // Variables and outputs can refer to each other in a cycle (an output of a module fed back into
  // its own call): each (module, reference) is followed once.
  const visit = `${moduleAddress}\u0000${ref}`;
  if (seen.has(visit)) return [];
  seen.add(visit);
  const prefix = moduleAddress === "" ? "" : `${moduleAddress}.`;
  const resource = RESOURCE_REF.exec(ref);
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
  const variable = VARIABLE_REF.exec(ref);
  if (variable) {
    // A module's input: what its call gives it, in the calling module.
    const given = variableExpression(configuration, moduleAddress, variable[1] ?? "");
    return given === null ? [] : referencesIn(given.expr).flatMap((r) => referencedChanges(r, given.callerAddress, configuration, changes, depth + 1, "", seen));
  }
  const output = OUTPUT_REF.exec(ref);
  if (output) {
    const child = `${prefix}module.${output[1]}${output[2] ?? ""}`;
    const expr = outputExpression(configuration, child, output[3] ?? "");
    // A keyed reference names its instance; an unkeyed one, the module's only instance.
    const instances = [...new Set(changes.map((c) => c.moduleAddress).filter((m) => withoutInstanceKeys(m) === withoutInstanceKeys(child)))];
    const childAddress = output[2] ? child : instances.length === 1 && instances[0] !== undefined ? instances[0] : child;
    return referencesIn(expr).flatMap((r) => referencedChanges(r, childAddress, configuration, changes, depth + 1, "", seen));
  }
  return [];
}

/**
 * References taken as known while planning: locals, `each`, `count`, `path`, `terraform`, `self`
 * (the plan's JSON does not describe locals; a module's variables are followed to what its call
 * gives them, and the root module's come from `-var` and `.tfvars`).
 */
const KNOWN_AT_PLAN = /^(?:local|each|count|path|terraform|self)\./;

/** `var.NAME`: a module's input variable. */
const VARIABLE_REF = /^var\.([A-Za-z_][\w-]*)/;

/**
 * The first reference of an expression that may be unknown until apply: a resource or data source
 * the plan creates, updates or reads at apply (HashiCorp JSON: they have `resource_changes`), also
 * behind a module output. References to `conductorone_policy` resources are left out: what they
 * make unknown are ids, resolved on their own.
 */
function pendingReference(refs: readonly string[], moduleAddress: string, ctx: UnknownContext, depth = 0, seen: Set<string> = new Set()): string | undefined {
  if (depth > 16) return undefined;
  const prefix = moduleAddress === "" ? "" : `${moduleAddress}.`;
  for (const ref of refs) {
    if (KNOWN_AT_PLAN.test(ref) || RESOURCE_REF.test(ref)) continue;
    // Each (module, reference) is followed once: variables and outputs may form a cycle.
    const visit = `${moduleAddress}\u0000${ref}`;
    if (seen.has(visit)) continue;
    seen.add(visit);
    const variable = VARIABLE_REF.exec(ref);
    if (variable) {
      const given = variableExpression(ctx.configuration, moduleAddress, variable[1] ?? "");
      if (given !== null && pendingReference(referencesIn(given.expr), given.callerAddress, ctx, depth + 1, seen) !== undefined) return ref;
      continue;
    }
    const output = OUTPUT_REF.exec(ref);
    if (output) {
      const child = `${prefix}module.${output[1]}${output[2] ?? ""}`;
      if (pendingReference(referencesIn(outputExpression(ctx.configuration, child, output[3] ?? "")), child, ctx, depth + 1, seen) !== undefined) return ref;
      continue;
    }
    const resource = /^(data\.)?([A-Za-z_][\w-]*)\.([A-Za-z_][\w-]*)(?:\[(?:"(?:[^"\\]|\\.)*"|\d+)\])?(?:\.([A-Za-z_][\w-]*))?/.exec(ref);
    if (!resource) continue;
    const address = withoutInstanceKeys(`${prefix}${resource[1] ?? ""}${resource[2]}.${resource[3]}`);
    if (!ctx.pending.has(address)) continue;
    const attribute = resource[4];
    // The whole object, when the expression also names which of its attributes it reads: those say.
    if (attribute === undefined && refs.some((r) => r !== ref && r.startsWith(ref) && /^[.[]/.test(r.slice(ref.length)))) continue;
    // An attribute an in-place update leaves known.
    const updated = attribute === undefined ? undefined : ctx.updatedOnly?.get(address);
    if (updated !== undefined && updated.every((u) => !containsTrue(isRecord(u) ? u[attribute as string] : undefined))) continue;
    return ref;
  }
  return undefined;
}

/**
 * The values after apply of one planned change, each unknown value resolved: an attribute the
 * configuration does not write is the provider's computed default (its value before an update,
 * unset on a create or a replacement); a policy id an expression writes is the id of the planned
 * policy it refers to. A diagnostic for an unknown value an expression writes from something else
 * known only after apply.
 *
 * @example
 * ```ts
 * const r = resolveUnknowns(change, { configuration, changes, idOf, pending });
 * if (r.ok) console.log(r.value.values["description"], r.value.defaulted);
 * ```
 */
export function resolveUnknowns(c: PlannedPolicyChange, ctx: UnknownContext): { ok: true; value: ResolvedValues } | { ok: false; error: PlanDiagnostic[] } {
  const after = c.after ?? {};
  // HashiCorp's format writes after_unknown as an object of the attributes unknown (or nothing);
  // `true` makes the whole resource unknown, anything else is no plan Terraform writes.
  const au = c.afterUnknown;
  if (au !== undefined && au !== null && au !== false && !isRecord(au))
    return {
      ok: false,
      error: [
        {
          code: "PLAN_BAD_RESOURCE_CHANGE",
          path: `${c.path}.change.after_unknown`,
          message: au === true ? `${c.address}: the whole resource is known only after apply, so it cannot be simulated` : `${c.address}: after_unknown must be an object of the attributes known only after apply`,
        },
      ],
    };
  // An app or entitlement change (it has a type) is not read against the policy schema.
  const policy = !("type" in c);
  const { writable: leaves, readOnly } = unknownLeaves(c.afterUnknown, policy);
  const expressions = resourceExpressions(ctx.configuration, c.address, c.moduleAddress);
  let value: unknown = after;
  // A read-only attribute is the service's: the framework plans it unknown on every update of a
  // policy (it has no plan modifier), and after the update it reads what it read before.
  if (c.action === "update")
    for (const leaf of readOnly) {
      const before = valueAt(c.before, leaf);
      if (before !== undefined) value = setAt(value, leaf, before);
    }
  if (leaves.length === 0) return { ok: true, value: { values: isRecord(value) ? value : after, defaulted: [], unset: [], configured: expressions !== null } };
  const errors: PlanDiagnostic[] = [];
  const defaulted: Path[] = [];
  const unset: Path[] = [];
  const throughLocals: { leaf: Path; locals: string[] }[] = [];
  const takeDefault = (leaf: Path): void => {
    defaulted.push(leaf);
    // The provider's update sends the prior state for what the plan left unknown; its create sends nothing.
    const before = c.action === "update" ? valueAt(c.before, leaf) : undefined;
    if (before !== undefined) value = setAt(value, leaf, before);
  };
  const fromExpression = (leaf: Path, expr: unknown, whole: boolean, why: string): void => {
    const pending = pendingReference(referencesIn(expr), c.moduleAddress, ctx);
    // Nothing the expression refers to waits for apply: an enclosing expression did not make this value
    // unknown. Unless a local it reads does: the plan's JSON does not say what a local holds.
    if (whole && pending === undefined) {
      const locals = [...new Set(referencesIn(expr).filter((r) => r.startsWith("local.")).map((r) => /^local\.[A-Za-z_][\w-]*/.exec(r)?.[0] ?? r))];
      if (locals.length > 0) throughLocals.push({ leaf, locals });
      return takeDefault(leaf);
    }
    errors.push({
      code: "PLAN_UNRESOLVED_UNKNOWN",
      path: renderPath(`${c.path}.change.after`, leaf),
      message: `${c.address}: ${renderPath("", leaf).slice(1)} is known only after apply and ${why}${pending === undefined ? "" : ` (it refers to ${pending})`}, so it cannot be simulated`,
    });
  };
  // Policy ids written by expressions are grouped by the expression: one expression may hold several.
  const groups = new Map<unknown, { leaves: Path[]; whole: boolean }>();
  for (const leaf of leaves) {
    const origin: Origin =
      policy && otherMemberSet(after, leaf)
        ? { kind: "unset" }
        : expressions === null || (policy && legacyRuleOutcome(after, leaf))
          ? { kind: "default" }
          : originOf(expressions, leaf);
    if (origin.kind === "unset") unset.push(leaf);
    else if (origin.kind === "default") takeDefault(leaf);
    else if (!holdsPolicyId(leaf)) fromExpression(leaf, origin.expr, origin.whole, "comes from an expression of its configuration that is not a policy id");
    else {
      const g = groups.get(origin.expr) ?? { leaves: [], whole: origin.whole };
      g.leaves.push(leaf);
      groups.set(origin.expr, g);
    }
  }
  for (const [expr, g] of groups) {
    const targets: string[] = [];
    const written = mostSpecific(referencesIn(expr));
    // `each.value` is an element of the resource's `for_each` collection: what that refers to.
    const refs = written.some((r) => r === "each.value" || r.startsWith("each.value.") || r.startsWith("each.value["))
      ? [...written, ...referencesIn(forEachExpression(ctx.configuration, c.address, c.moduleAddress))]
      : written;
    // An expression indexed by the instance's own key names the sibling instance with that key.
    const byOwnKey = refs.includes("each.key") || refs.includes("count.index") ? (/(\[(?:"(?:[^"\\]|\\.)*"|\d+)\])$/.exec(c.address)?.[1] ?? "") : "";
    // Every policy referred to, known ids too, in the order referred to: a whole list holds them all.
    const referred: string[] = [];
    const referredSet = new Set<string>();
    const targetSet = new Set<string>();
    for (const ref of refs)
      for (const t of referencedChanges(ref, c.moduleAddress, ctx.configuration, ctx.changes, 0, byOwnKey)) {
        const id = ctx.idOf.get(t);
        if (id === undefined) continue;
        if (!referredSet.has(id)) {
          referredSet.add(id);
          referred.push(id);
        }
        // A reference to a policy whose id is already known is not what made this value unknown.
        if (isUnknownId(t) && !targetSet.has(id)) {
          targetSet.add(id);
          targets.push(id);
        }
      }
    const list = g.leaves.find(isIdList);
    if (list !== undefined) {
      // A whole list of policy ids unknown (`compact([conductorone_policy.x.id])`): the policies its
      // own expression refers to. An expression that writes more than the list (the whole
      // `policy_steps`) may refer to policies for other attributes: only ids unknown until apply
      // are the list's then, and only when nothing else of it waits for one.
      // Policies referred to by name (`conductorone_policy.x`), whether or not this plan changes them.
      const named = new Set(refs.flatMap((r) => {
        const m = RESOURCE_REF.exec(r);
        return m ? [withoutInstanceKeys(`${c.moduleAddress === "" ? "" : `${c.moduleAddress}.`}conductorone_policy.${m[1]}${m[2] ?? ""}`)] : [];
      }));
      const ids = g.whole ? (referred.length === targets.length && named.size <= targets.length ? targets : []) : referred;
      if (g.leaves.length === 1 && ids.length > 0) value = setAt(value, list, ids);
      else
        errors.push({
          code: "PLAN_UNRESOLVED_UNKNOWN",
          path: renderPath(`${c.path}.change.after`, list),
          message: `${c.address}: ${renderPath("", list).slice(1)} is known only after apply and which policies it holds cannot be told: its configuration writes it within an expression that refers to ${referred.length === 0 ? "no planned policy" : `${referred.length} policies (${referred.join(", ")})`}${g.leaves.length > 1 ? ` for ${g.leaves.length} unknown values` : ""}; write the list as its own attribute of conductorone_policy ids`,
        });
      continue;
    }
    if (targets.length === 1 || (targets.length === g.leaves.length && targets.length > 0)) {
      g.leaves.forEach((leaf, i) => {
        value = setAt(value, leaf, targets.length === 1 ? targets[0] : targets[i]);
      });
    } else if (targets.length === 0 && refs.some((r) => r.startsWith("local."))) {
      // A local may hold the id of a policy this plan creates, and the plan's JSON does not say what it holds.
      const local = refs.find((r) => r.startsWith("local.")) ?? "";
      for (const leaf of g.leaves)
        errors.push({
          code: "PLAN_UNRESOLVED_UNKNOWN",
          path: renderPath(`${c.path}.change.after`, leaf),
          message: `${c.address}: ${renderPath("", leaf).slice(1)} is known only after apply and its configuration reads ${local}, whose value \`terraform show -json\` does not describe, so which policy it names cannot be told: refer to the conductorone_policy (or a module output or variable) directly`,
        });
    } else if (targets.length === 0) {
      for (const leaf of g.leaves) fromExpression(leaf, expr, g.whole, "its configuration refers to no conductorone_policy created in this plan");
    } else {
      const first = g.leaves[0] ?? [];
      errors.push({
        code: "PLAN_UNRESOLVED_UNKNOWN",
        path: renderPath(`${c.path}.change.after`, first),
        message: `${c.address}: a value known only after apply cannot be resolved: its configuration refers to ${targets.length} policies created in this plan (${targets.join(", ")}) for ${g.leaves.length} unknown values, so which is which cannot be told`,
      });
    }
  }
  if (errors.length > 0) return { ok: false, error: errors };
  // A value taken from the prior state is unset when a sibling of its oneof is set now, by the
  // configuration: a rule written with a new policy's id where an old rule had a step key (the list
  // index is all they share) sends the policy id alone.
  if (policy)
    for (let i = defaulted.length - 1; i >= 0; i--) {
      const leaf = defaulted[i] as Path;
      const container = leaf.slice(0, -1);
      const setNow = oneofSiblings(leaf).some((n) => {
        const sibling = [...container, n];
        const v = valueAt(value, sibling);
        return v !== undefined && v !== null && v !== "" && !defaulted.some((d) => samePath(d, sibling));
      });
      if (!setNow || valueAt(value, leaf) === undefined) continue;
      value = unsetAt(value, leaf);
      defaulted.splice(i, 1);
      unset.push(leaf);
    }
  return { ok: true, value: { values: isRecord(value) ? value : after, defaulted, unset, configured: expressions !== null, ...(throughLocals.length > 0 ? { throughLocals } : {}) } };
}

/**
 * References without those another of the list narrows: Terraform lists `conductorone_policy.team`
 * and `conductorone_policy.team["eu"]` beside `conductorone_policy.team["eu"].id`, and only the
 * last says which instance is read.
 *
 * @example
 * ```ts
 * mostSpecific(['conductorone_policy.team["eu"].id', 'conductorone_policy.team["eu"]', "conductorone_policy.team"]);
 * // ['conductorone_policy.team["eu"].id']
 * ```
 */
export function mostSpecific(refs: readonly string[]): string[] {
  // Every start of a reference that ends before a `.` or `[` (outside a quoted key, where they may
  // be part of the key): a reference that is one is narrowed by another. Linear in the references'
  // length, where comparing each with each was quadratic (20k references took 16 s).
  const narrowed = new Set<string>();
  for (const r of refs) {
    let quoted = false;
    for (let i = 1; i < r.length; i++) {
      const ch = r.charCodeAt(i);
      if (ch === 34 /* " */ && r.charCodeAt(i - 1) !== 92 /* \ */) quoted = !quoted;
      else if (!quoted && (ch === 46 /* . */ || ch === 91 /* [ */)) narrowed.add(r.slice(0, i));
    }
  }
  return refs.filter((r) => !narrowed.has(r));
}

function samePath(a: Path, b: Path): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
