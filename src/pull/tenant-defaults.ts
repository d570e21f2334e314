/**
 * The tenant's default policies, which the API does not list: the simulation falls back on them
 * when nothing closer names a policy (resolve-policy.ts). A grant, revoke or certify default is the
 * one built-in policy of its type; an offboarding, action or finding task is made from the
 * tenant's default of its kind, so the policy those tasks carry says which it is. What cannot be
 * told is a warning that says how to set it.
 */

type Json = Readonly<Record<string, unknown>>;
const isRecord = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Default policies found, and warnings for the rest: `DEFAULT_POLICY_UNKNOWN` (set it by hand) or
 * `DEFAULT_POLICY_INFERRED` (taken from tasks; check it).
 *
 * @example
 * ```ts
 * const d: TenantDefaults = { defaultPolicies: { grant: "pol-default-grant" }, warnings: [] };
 * ```
 */
export interface TenantDefaults {
  readonly defaultPolicies: Readonly<Record<string, string>>;
  readonly warnings: readonly { readonly code: "DEFAULT_POLICY_UNKNOWN" | "DEFAULT_POLICY_INFERRED"; readonly message: string }[];
}

/** Kinds whose default is the tenant's one built-in policy of a type. */
const BUILT_IN_KINDS: readonly (readonly [string, string])[] = [
  ["grant", "POLICY_TYPE_GRANT"],
  ["revoke", "POLICY_TYPE_REVOKE"],
  ["certify", "POLICY_TYPE_CERTIFY"],
];

/**
 * Kinds with no closer policy than the tenant's default: each task of them is made from it and
 * carries it. Without it the simulation resolves their tasks by the policy they carry instead,
 * which a later edit of that policy does not reach.
 */
const TASK_KINDS: readonly string[] = ["offboarding", "action", "finding"];

const unknown = (kind: string, why: string): TenantDefaults["warnings"][number] => ({
  code: "DEFAULT_POLICY_UNKNOWN",
  message: `the API does not say which policy is the tenant's default ${kind} policy${why}: set "tenant.defaultPolicies.${kind}" to its id`,
});

/**
 * The tenant's default policies as far as the pulled policies and tasks tell them.
 *
 * @example
 * ```ts
 * const d = tenantDefaults(
 *   [{ id: "pol-g", systemBuiltin: true, policyType: "POLICY_TYPE_GRANT" }, { id: "pol-off" }],
 *   [{ type: { offboarding: { subjectUserId: "u-1" } }, policy: { policy: { id: "pol-off" } } }],
 * );
 * d.defaultPolicies; // { grant: "pol-g", offboarding: "pol-off" }
 * d.warnings.map((w) => w.code); // revoke and certify unknown, offboarding inferred, action and finding unknown
 * ```
 */
export function tenantDefaults(policies: readonly Json[], tasks: readonly Json[]): TenantDefaults {
  const defaultPolicies: Record<string, string> = {};
  const warnings: TenantDefaults["warnings"][number][] = [];
  for (const [kind, type] of BUILT_IN_KINDS) {
    const builtin = policies.filter((p) => p["systemBuiltin"] === true && p["policyType"] === type && typeof p["id"] === "string");
    const only = builtin.length === 1 ? builtin[0]?.["id"] : undefined;
    if (typeof only === "string") defaultPolicies[kind] = only;
    else warnings.push(unknown(kind, builtin.length > 1 ? ` (${builtin.length} built-in ${type} policies)` : ""));
  }
  const policyIds = new Set(policies.map((p) => p["id"]).filter((id) => typeof id === "string"));
  for (const kind of TASK_KINDS) {
    const carried = new Set<string>();
    let count = 0;
    for (const t of tasks) {
      if (!isRecord(t["type"]) || !isRecord(t["type"][kind])) continue;
      count++;
      const instance = t["policy"];
      const policy = isRecord(instance) ? instance["policy"] : undefined;
      const id = isRecord(policy) ? policy["id"] : undefined;
      if (typeof id === "string" && id !== "") carried.add(id);
    }
    const [only] = carried;
    // Tasks that disagree were made under different defaults: which is current cannot be told.
    if (carried.size === 1 && only !== undefined && policyIds.has(only)) {
      defaultPolicies[kind] = only;
      warnings.push({
        code: "DEFAULT_POLICY_INFERRED",
        message: `the tenant's default ${kind} policy is taken to be "${only}", the policy its ${count} ${kind} task(s) carry: change "tenant.defaultPolicies.${kind}" if the default has changed since`,
      });
    } else warnings.push(unknown(kind, carried.size > 1 ? ` (its ${kind} tasks carry ${carried.size} different policies)` : ""));
  }
  return { defaultPolicies, warnings };
}
