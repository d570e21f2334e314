/**
 * The parts of a `terraform show -json` plan that concern `conductorone_policy` resources: each
 * planned change (address, action, values before and after, which values are unknown until apply)
 * and the configuration expressions that say what an unknown value refers to. HashiCorp documents
 * the format (`resource_changes[]`, `configuration.root_module`); only what is read is decoded.
 */
import { isRecord, pathKey, type PlanDiagnostic } from "./attributes.js";

/** The Terraform resource type of a ConductorOne policy. */
export const POLICY_RESOURCE_TYPE = "conductorone_policy";

/**
 * What a plan does to one resource. A replacement (`["delete","create"]` or the reverse) is one
 * action: a new policy, with a new id, and the old one's id deleted.
 *
 * @example
 * ```ts
 * const a: PlanAction = "update";
 * ```
 */
export type PlanAction = "create" | "update" | "delete" | "replace";

/**
 * One planned change of a `conductorone_policy` resource, as read from the plan.
 *
 * @example
 * ```ts
 * const c: PlannedPolicyChange = { address: "conductorone_policy.prod", moduleAddress: "", action: "update",
 *   before: { id: "pol-1" }, after: { id: "pol-1", display_name: "Prod" }, afterUnknown: {}, path: "$.resource_changes[0]" };
 * ```
 */
export interface PlannedPolicyChange {
  readonly address: string;
  /** `module.iam` (with instance keys) for a resource in a module; "" at the root. */
  readonly moduleAddress: string;
  readonly action: PlanAction;
  readonly before: Readonly<Record<string, unknown>> | null;
  readonly after: Readonly<Record<string, unknown>> | null;
  /** Mirrors `after`: `true` where a value is known only after apply. */
  readonly afterUnknown: unknown;
  /** JSONPath of the resource change in the plan document. */
  readonly path: string;
  /**
   * `deposed` (HashiCorp JSON): the key of a deposed object, an older remote object at the same
   * address (left by a create-before-destroy replacement that failed), which its `before.id` names.
   */
  readonly deposed?: string;
  /**
   * Where Terraform marks a value sensitive, before or after (`before_sensitive`, `after_sensitive`):
   * JSONPaths of the resource's attributes (`"$"` for all of them). A report shows no value there.
   */
  readonly sensitive?: readonly string[];
}

/**
 * The JSONPaths (in the resource's attribute names) of the `true` leaves of `before_sensitive` and
 * `after_sensitive`: the values a report must not print. Bounded in depth, as the plan is input.
 *
 * @example
 * ```ts
 * sensitivePaths(false, { policy_steps: { grant: { steps: [{ approval: { agent: { instructions: true } } }] } } });
 * // ["$.policy_steps.grant.steps[0].approval.agent.instructions"]
 * ```
 */
export function sensitivePaths(...marks: readonly unknown[]): string[] {
  const out = new Set<string>();
  const walk = (v: unknown, at: string, depth: number): void => {
    if (v === true) out.add(at);
    else if (depth > 64) return;
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${at}[${i}]`, depth + 1));
    else if (isRecord(v)) for (const [k, x] of Object.entries(v)) walk(x, pathKey(at, k), depth + 1);
  };
  for (const m of marks) walk(m, "$", 0);
  return [...out];
}

/**
 * The resource types besides policies whose planned changes can re-route tasks: the policy ids an
 * app or entitlement names and its emergency and request-default settings
 * (developer_terraform-best-practices.mdx attaches policies with them), by the world object each
 * one is.
 *
 * @example
 * ```ts
 * DIRECTORY_RESOURCE_TYPES.get("conductorone_app_entitlement"); // "entitlement"
 * ```
 */
export const DIRECTORY_RESOURCE_TYPES: ReadonlyMap<string, "entitlement" | "app"> = new Map([
  ["conductorone_app_entitlement", "entitlement"],
  ["conductorone_custom_app_entitlement", "entitlement"],
  ["conductorone_app", "app"],
]);

/**
 * One planned change of an app or entitlement resource (see {@link DIRECTORY_RESOURCE_TYPES}).
 *
 * @example
 * ```ts
 * const c: PlannedDirectoryChange = { ...change, type: "conductorone_app_entitlement", kind: "entitlement" };
 * ```
 */
export interface PlannedDirectoryChange extends PlannedPolicyChange {
  readonly type: string;
  readonly kind: "entitlement" | "app";
}

/**
 * A decoded plan: the policy changes in plan order, the app and entitlement changes, the raw
 * `configuration` section (null when the document has none), the addresses of every resource
 * whose values the plan leaves to apply, and whether Terraform deferred changes to a later plan.
 *
 * @example
 * ```ts
 * const r = readPlan(JSON.parse(text));
 * if (r.ok) console.log(r.value.changes.map((c) => `${c.action} ${c.address}`));
 * ```
 */
export interface PolicyPlan {
  readonly changes: readonly PlannedPolicyChange[];
  readonly directory: readonly PlannedDirectoryChange[];
  readonly configuration: unknown;
  /**
   * Every resource (of any type, data sources as `data.…`, instance keys stripped) the plan creates,
   * updates, replaces or reads at apply: only these can make a value that refers to them unknown.
   */
  readonly pending: ReadonlySet<string>;
  /**
   * Of the pending resources that the plan only updates in place (every instance), the
   * `after_unknown` of each instance: an attribute none of them marks unknown is known while
   * planning (an entitlement whose description changes keeps its `id` and `app_id`).
   */
  readonly updatedOnly: ReadonlyMap<string, readonly unknown[]>;
  /** `complete: false` (Terraform 1.8+): the addresses of the changes deferred to a later plan. */
  readonly incomplete: { readonly deferred: readonly string[] } | null;
}

function actionOf(actions: readonly unknown[]): PlanAction | "none" | null {
  const a = actions.filter((x): x is string => typeof x === "string");
  if (a.length !== actions.length) return null;
  const key = a.join(",");
  if (key === "no-op" || key === "read" || key === "forget") return "none";
  if (key === "create") return "create";
  if (key === "update") return "update";
  if (key === "delete") return "delete";
  if (key === "delete,create" || key === "create,delete") return "replace";
  return null;
}

/**
 * Reads the policy, app and entitlement changes of a plan; diagnostics (with JSONPaths into the
 * plan) for a document that is not a plan, a plan Terraform stopped on an error (`errored: true`),
 * or a change that is malformed. Other resource types only count as pending (their values may make
 * an expression unknown); they do not say which policy a task takes.
 *
 * @example
 * ```ts
 * readPlan({ format_version: "1.2", resource_changes: [] }); // ok, no changes
 * ```
 */
export function readPlan(doc: unknown): { ok: true; value: PolicyPlan } | { ok: false; error: PlanDiagnostic[] } {
  const notAPlan = (message: string, path = "$") => ({ ok: false as const, error: [{ code: "PLAN_NOT_A_PLAN" as const, path, message }] });
  const howTo = "write one with `terraform plan -out plan.tfplan && terraform show -json plan.tfplan > plan.json`";
  if (!isRecord(doc) || (!Array.isArray(doc["resource_changes"]) && doc["resource_changes"] !== undefined) || doc["format_version"] === undefined)
    return notAPlan(`not a Terraform plan in JSON: ${howTo}`);
  // HashiCorp's JSON output format: a new major version is incompatible with readers of this one.
  const version = doc["format_version"];
  if (typeof version !== "string" || !/^1\.\d+$/.test(version))
    return notAPlan(`format_version ${JSON.stringify(version)} is not one this reader knows (1.x of \`terraform show -json\`)`, "$.format_version");
  // `terraform show -json` without a plan file writes the state: values, and no planned ones.
  if (doc["planned_values"] === undefined && doc["resource_changes"] === undefined)
    return notAPlan(
      doc["values"] !== undefined
        ? `this is Terraform state (\`terraform show -json\` without a plan file), not a plan: ${howTo}`
        : `not a Terraform plan in JSON (no planned_values, no resource_changes): ${howTo}`,
    );
  // HashiCorp's JSON output format (Terraform 1.5+): a plan that stopped on an error is partial.
  if (doc["errored"] === true)
    return {
      ok: false,
      error: [
        {
          code: "PLAN_ERRORED",
          path: "$.errored",
          message: "Terraform stopped this plan on an error (errored: true), so its changes are partial and would not be applied: fix the errors `terraform plan` reported and plan again",
        },
      ],
    };
  const raw: readonly unknown[] = Array.isArray(doc["resource_changes"]) ? doc["resource_changes"] : [];
  const errors: PlanDiagnostic[] = [];
  const pending = new Set<string>();
  const updates = new Map<string, unknown[]>();
  const otherwise = new Set<string>();
  const changes: PlannedPolicyChange[] = [];
  const directory: PlannedDirectoryChange[] = [];
  raw.forEach((rc, i) => {
    const path = `$.resource_changes[${i}]`;
    // Not skipped unsaid: it may be the policy change the run is about.
    if (!isRecord(rc)) {
      errors.push({ code: "PLAN_BAD_RESOURCE_CHANGE", path, message: `a resource change must be an object, not ${rc === null ? "null" : Array.isArray(rc) ? "a list" : typeof rc}` });
      return;
    }
    if (typeof rc["address"] === "string" && isRecord(rc["change"]) && Array.isArray(rc["change"]["actions"])) {
      const a = actionOf(rc["change"]["actions"]);
      const stripped = withoutInstanceKeys(rc["address"]);
      if (a === "create" || a === "update" || a === "replace" || rc["change"]["actions"].includes("read")) {
        pending.add(stripped);
        if (a === "update" && !rc["change"]["actions"].includes("read")) {
          const list = updates.get(stripped);
          if (list) list.push(rc["change"]["after_unknown"] ?? null);
          else updates.set(stripped, [rc["change"]["after_unknown"] ?? null]);
        }
        else otherwise.add(stripped);
      }
    }
    if (rc["mode"] !== undefined && rc["mode"] !== "managed") return;
    const type = rc["type"];
    if (typeof type !== "string") {
      errors.push({ code: "PLAN_BAD_RESOURCE_CHANGE", path: `${path}.type`, message: "a resource change needs its resource type (conductorone_policy, …)" });
      return;
    }
    const kind = DIRECTORY_RESOURCE_TYPES.get(type);
    if (type !== POLICY_RESOURCE_TYPE && kind === undefined) return;
    const change = rc["change"];
    const address = rc["address"];
    if (typeof address !== "string" || !isRecord(change) || !Array.isArray(change["actions"])) {
      errors.push({ code: "PLAN_BAD_RESOURCE_CHANGE", path, message: "a resource change needs an address and change.actions" });
      return;
    }
    const action = actionOf(change["actions"]);
    if (action === null) {
      errors.push({ code: "PLAN_BAD_RESOURCE_CHANGE", path: `${path}.change.actions`, message: `unknown actions ${JSON.stringify(change["actions"])}` });
      return;
    }
    if (action === "none") return;
    const before = isRecord(change["before"]) ? change["before"] : null;
    const after = isRecord(change["after"]) ? change["after"] : null;
    if (action !== "create" && before === null)
      errors.push({ code: "PLAN_BAD_RESOURCE_CHANGE", path: `${path}.change.before`, message: `a planned ${action} needs the values before it` });
    else if (action !== "delete" && after === null)
      errors.push({ code: "PLAN_BAD_RESOURCE_CHANGE", path: `${path}.change.after`, message: `a planned ${action} needs the values after it` });
    else {
      const planned: PlannedPolicyChange = {
        address,
        moduleAddress: typeof rc["module_address"] === "string" ? rc["module_address"] : "",
        action,
        before,
        after,
        afterUnknown: change["after_unknown"] ?? null,
        path,
        sensitive: sensitivePaths(change["before_sensitive"], change["after_sensitive"]),
        ...(typeof rc["deposed"] === "string" && rc["deposed"] !== "" ? { deposed: rc["deposed"] } : {}),
      };
      if (kind === undefined) changes.push(planned);
      else directory.push({ ...planned, type: type as string, kind });
    }
  });
  if (errors.length > 0) return { ok: false, error: errors };
  const deferred = deferredAddresses(doc["deferred_changes"]);
  for (const a of deferred) {
    pending.add(withoutInstanceKeys(a));
    otherwise.add(withoutInstanceKeys(a));
  }
  for (const a of otherwise) updates.delete(a);
  const incomplete = doc["complete"] === false || deferred.length > 0 ? { deferred } : null;
  return { ok: true, value: { changes, directory, configuration: doc["configuration"] ?? null, pending, updatedOnly: updates, incomplete } };
}

/** The addresses of a plan's `deferred_changes` (each `{ reason, resource_change: { address, … } }`). */
function deferredAddresses(v: unknown): string[] {
  if (!Array.isArray(v)) return [];
  const out: string[] = [];
  for (const d of v) {
    const rc = isRecord(d) ? d["resource_change"] : undefined;
    const address = isRecord(rc) ? rc["address"] : undefined;
    if (typeof address === "string" && !out.includes(address)) out.push(address);
  }
  return out;
}

/**
 * `module.a["x"].module.b[0].conductorone_policy.p[1]` → `module.a.module.b.conductorone_policy.p`:
 * the configuration knows resources and modules, not their instances.
 *
 * @example
 * ```ts
 * withoutInstanceKeys('module.iam["eu"].conductorone_policy.p[0]'); // "module.iam.conductorone_policy.p"
 * ```
 */
export function withoutInstanceKeys(address: string): string {
  return address.replace(/\[(?:"(?:[^"\\]|\\.)*"|\d+)\]/g, "");
}

/** The configuration module of a (key-stripped) module address, or null. */
function configModule(configuration: unknown, moduleAddress: string): Readonly<Record<string, unknown>> | null {
  if (!isRecord(configuration)) return null;
  let mod: unknown = configuration["root_module"];
  const names = withoutInstanceKeys(moduleAddress).split(".").filter((_, i) => i % 2 === 1);
  for (const name of names) {
    if (!isRecord(mod)) return null;
    const calls = mod["module_calls"];
    const call = isRecord(calls) ? calls[name] : undefined;
    mod = isRecord(call) ? call["module"] : undefined;
  }
  return isRecord(mod) ? mod : null;
}

/**
 * The configuration of one resource (its `expressions` by attribute), or null when the plan's
 * `configuration` has no block for it (or no configuration at all).
 *
 * @example
 * ```ts
 * resourceExpressions(plan.configuration, 'module.iam["eu"].conductorone_policy.p', 'module.iam["eu"]');
 * // { display_name: { constant_value: "P" }, rules: { references: [...] } }
 * ```
 */
export function resourceExpressions(configuration: unknown, address: string, moduleAddress: string): Readonly<Record<string, unknown>> | null {
  const resources = configModule(configuration, moduleAddress)?.["resources"];
  if (!Array.isArray(resources)) return null;
  const local = withoutInstanceKeys(moduleAddress === "" ? address : address.slice(moduleAddress.length + 1));
  for (const r of resources) {
    if (!isRecord(r) || r["address"] !== local) continue;
    return isRecord(r["expressions"]) ? r["expressions"] : {};
  }
  return null;
}

/**
 * What a module's input variable is given: the expression of `var.NAME` in the module call of the
 * module at `moduleAddress`, and the address of the calling module it is written in; null for the
 * root module (its variables come from `-var` and `.tfvars`, known while planning) or a call the
 * configuration does not describe.
 *
 * @example
 * ```ts
 * variableExpression(plan.configuration, "module.prod", "policy_id");
 * // { expr: { references: ["conductorone_policy.v2.id", "conductorone_policy.v2"] }, callerAddress: "" }
 * ```
 */
export function variableExpression(configuration: unknown, moduleAddress: string, name: string): { expr: unknown; callerAddress: string } | null {
  const call = /^(?:(.*)\.)?module\.([A-Za-z_][\w-]*)(?:\[(?:"(?:[^"\\]|\\.)*"|\d+)\])?$/.exec(moduleAddress);
  if (!call) return null;
  const callerAddress = call[1] ?? "";
  const calls = configModule(configuration, callerAddress)?.["module_calls"];
  const c = isRecord(calls) ? calls[call[2] ?? ""] : undefined;
  const expressions = isRecord(c) ? c["expressions"] : undefined;
  const expr = isRecord(expressions) ? expressions[name] : undefined;
  return expr === undefined || expr === null ? null : { expr, callerAddress };
}

/**
 * The `for_each` expression of a resource's configuration (what `each.value` is taken from), or null.
 *
 * @example
 * ```ts
 * forEachExpression(plan.configuration, 'conductorone_policy.team["eu"]', ""); // { references: ["var.teams"] }
 * ```
 */
export function forEachExpression(configuration: unknown, address: string, moduleAddress: string): unknown {
  const resources = configModule(configuration, moduleAddress)?.["resources"];
  if (!Array.isArray(resources)) return null;
  const local = withoutInstanceKeys(moduleAddress === "" ? address : address.slice(moduleAddress.length + 1));
  const r = resources.find((x) => isRecord(x) && x["address"] === local);
  return isRecord(r) ? (r["for_each_expression"] ?? null) : null;
}

/**
 * The expression of a module's output (`module.M.OUT` from its caller), or null.
 *
 * @example
 * ```ts
 * outputExpression(plan.configuration, "module.iam", "policy_id"); // { references: ["conductorone_policy.p.id", …] }
 * ```
 */
export function outputExpression(configuration: unknown, moduleAddress: string, output: string): unknown {
  const outputs = configModule(configuration, moduleAddress)?.["outputs"];
  const o = isRecord(outputs) ? outputs[output] : undefined;
  return isRecord(o) ? (o["expression"] ?? null) : null;
}

/**
 * Every reference string under an expression, in order, without repeats. Bounded: a hostile plan
 * cannot make this recurse without end.
 *
 * @example
 * ```ts
 * referencesIn({ references: ["conductorone_policy.a.id", "conductorone_policy.a"] }); // both strings
 * ```
 */
export function referencesIn(expr: unknown): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const walk = (e: unknown, depth: number): void => {
    if (depth > 64) return;
    if (Array.isArray(e)) {
      for (const x of e) walk(x, depth + 1);
      return;
    }
    if (!isRecord(e)) return;
    for (const [k, v] of Object.entries(e)) {
      if (k === "references" && Array.isArray(v)) {
        for (const r of v)
          if (typeof r === "string" && !seen.has(r)) {
            seen.add(r);
            out.push(r);
          }
      } else if (k !== "constant_value") walk(v, depth + 1);
    }
  };
  walk(expr, 0);
  return out;
}
