/**
 * Where the world's directory and tenant name policies: what the service checks before it deletes a
 * policy (a policy in use cannot be deleted). One list for every caller that asks — the HTTP delete
 * and a Terraform plan's deletes — so they refuse the same deletes.
 */
import type { App, AppEntitlement, ResourceTypeDefault } from "../model/directory.js";
import type { EntitlementConfigRule } from "../model/config-rule.js";
import type { Policy } from "../model/index.js";
import type { World } from "../world/world.js";

/**
 * One place outside the policies that names a policy.
 *
 * @example
 * ```ts
 * const u: PolicyUse = { policyId: "pol-prod", who: 'entitlement "app-aws/ent-admin" (grantPolicyId)' };
 * ```
 */
export interface PolicyUse {
  readonly policyId: string;
  readonly who: string;
}

/**
 * The parts of a world that name policies outside the policies themselves; a caller may pass
 * edited apps or entitlements (a plan that moves a reference before it deletes).
 *
 * @example
 * ```ts
 * const parts: PolicyUseParts = { ...world, apps: editedApps };
 * ```
 */
export type PolicyUseParts = Pick<World, "accessReviews" | "tenant"> & {
  readonly apps: readonly App[];
  readonly entitlements: readonly AppEntitlement[];
  readonly resourceTypeDefaults: readonly ResourceTypeDefault[];
  readonly entitlementConfigurationRules?: readonly EntitlementConfigRule[];
};

/**
 * Every place in apps, entitlements, request defaults, entitlement configuration rules, access
 * reviews and the tenant's defaults that names a policy (empty ids are not names).
 *
 * @example
 * ```ts
 * directoryPolicyUses(world).filter((u) => u.policyId === "pol-prod").map((u) => u.who);
 * ```
 */
export function directoryPolicyUses(parts: PolicyUseParts): PolicyUse[] {
  const out: PolicyUse[] = [];
  const add = (policyId: string | undefined, who: string): void => {
    if (policyId) out.push({ policyId, who });
  };
  for (const a of parts.apps) for (const k of ["grantPolicyId", "revokePolicyId", "certifyPolicyId"] as const) add(a[k], `app "${a.id}" (${k})`);
  for (const e of parts.entitlements)
    for (const k of ["grantPolicyId", "revokePolicyId", "certifyPolicyId", "emergencyGrantPolicyId"] as const) add(e[k], `entitlement "${e.appId}/${e.id}" (${k})`);
  for (const d of parts.resourceTypeDefaults) {
    add(d.requestPolicyId, `the request defaults of app "${d.appId}" (requestPolicyId)`);
    add(d.emergencyGrantPolicyId, `the request defaults of app "${d.appId}" (emergencyGrantPolicyId)`);
  }
  for (const r of parts.entitlementConfigurationRules ?? []) {
    add(r.settings?.requestPolicyId, `configuration rule "${r.id}" of app "${r.appId}" (requestPolicyId)`);
    add(r.settings?.emergencyGrantPolicyId, `configuration rule "${r.id}" of app "${r.appId}" (emergencyGrantPolicyId)`);
  }
  for (const r of parts.accessReviews) add(r.policyId, `access review "${r.id}"`);
  for (const [kind, id] of Object.entries(parts.tenant.defaultPolicies)) add(id, `the tenant's default ${kind} policy`);
  return out;
}

/**
 * The policies a policy's steps name: an approval's escalation that replaces the task's policy
 * (`escalation.replacePolicy.policyId`), and an agent approver's `policyIds`. With its rules'
 * `policyId` and its `baselinePolicyId`, what makes a policy "in use" by another.
 *
 * @example
 * ```ts
 * policiesNamedBySteps(policy); // ["pol-security-review"]
 * ```
 */
export function policiesNamedBySteps(policy: Policy): string[] {
  const out: string[] = [];
  for (const seq of Object.values(policy.policySteps ?? {}))
    for (const step of seq?.steps ?? []) {
      if (step.kind !== "approval") continue;
      const e = step.escalation?.escalationPolicy;
      if (e?.kind === "replacePolicy" && e.policyId) out.push(e.policyId);
      const a = step.approvers;
      if (a?.kind === "agent") for (const id of a.policyIds ?? []) if (id) out.push(id);
    }
  return out;
}

/**
 * The policies `p` names: its baseline, its rules' `policyId`, and those its steps name (not
 * itself).
 *
 * @example
 * ```ts
 * policiesNamedBy(policy).has("pol-prod-admin-eng"); // true when a rule routes there
 * ```
 */
export function policiesNamedBy(p: Policy): Set<string> {
  const named = new Set([p.baselinePolicyId, ...(p.rules ?? []).map((r) => r.policyId), ...policiesNamedBySteps(p)]);
  named.delete("");
  named.delete(p.id);
  return named;
}

/**
 * Where `world` names policy `id` — other policies, then apps, entitlements, request defaults,
 * configuration rules, access reviews and the tenant's defaults — each told as a person reads it:
 * what makes a policy "in use", which the service refuses to delete ("You can't delete a policy
 * that's in use", product_admin_policies.mdx). Empty when nothing does.
 *
 * @example
 * ```ts
 * policyUsesIn(world, "pol-prod-admin-eng"); // ['policy "pol-prod-admin"']
 * ```
 */
export function policyUsesIn(world: World, id: string): string[] {
  const uses: string[] = [];
  for (const p of world.policies) if (policiesNamedBy(p).has(id)) uses.push(`policy "${p.id}"`);
  for (const u of directoryPolicyUses(world)) if (u.policyId === id) uses.push(u.who);
  return uses;
}
