/**
 * Lint of entitlement configuration rules (product_admin_entitlement-config-rules.mdx): the
 * condition is checked in the `config-rule` CEL environment (it sees `entitlement` alone), and the
 * policies the settings name must exist.
 */
import { checkCondition } from "../cel/index.js";
import type { EntitlementConfigRule } from "../model/config-rule.js";
import type { World } from "../world/world.js";
import { celFindings, finding, interpretedFindings, type Finding } from "./lint-finding.js";

/**
 * Findings for one configuration rule, with paths relative to the rule (`$.condition`,
 * `$.settings.requestPolicyId`). An empty condition is a catch-all and is not checked.
 *
 * @example
 * ```ts
 * lintConfigRule({ ...rule, condition: 'subject.department == "IT"' }, world)[0]?.code; // "CEL_TYPE_ERROR"
 * ```
 */
export function lintConfigRule(rule: EntitlementConfigRule, world: World): Finding[] {
  const out: Finding[] = [];
  if (rule.condition.trim() !== "")
    out.push(...celFindings(checkCondition(rule.condition, "config-rule", { costLimit: world.tenant.celCostLimit }), "$.condition", `configuration rule "${rule.id}" condition`));
    out.push(...interpretedFindings(rule.condition, "config-rule", "$.condition", `configuration rule "${rule.id}" condition`));
  const s = rule.settings;
  const named: [string, string][] = s ? [["requestPolicyId", s.requestPolicyId], ...(s.emergencyGrantEnabled ? ([["emergencyGrantPolicyId", s.emergencyGrantPolicyId]] as [string, string][]) : [])] : [];
  for (const [field, id] of named)
    if (id !== "" && !world.index.policies.has(id))
      out.push(finding("DANGLING_POLICY_ID", `$.settings.${field}`, `configuration rule "${rule.id}" ${field} names policy "${id}", which is not in the world`));
  return out;
}
