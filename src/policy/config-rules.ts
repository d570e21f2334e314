/**
 * Which entitlement configuration rule gives an entitlement its request settings
 * (product_admin_entitlement-config-rules.mdx): the app's rules in priority order, rules that are Off
 * skipped, an empty condition matching everything, the first match winning.
 */
import { compileCondition, evaluateCondition, prepareConfigRuleInput } from "../cel/index.js";
import type { EntitlementConfigRule, EntitlementConfigRuleSettings } from "../model/config-rule.js";
import type { AppEntitlement } from "../model/directory.js";
import type { World } from "../world/world.js";

/**
 * How one configuration rule fared against an entitlement:
 * - `matched`: enabled, and its condition is empty or true (it provides the settings);
 * - `noMatch`: its condition is false;
 * - `disabled`: the rule is Off, so it is skipped;
 * - `error`: its condition does not compile or stopped with an error: it is treated as not matching;
 * - `notReached`: an earlier rule matched.
 *
 * @example
 * ```ts
 * const e: ConfigRuleEvaluation = { ruleId: "ecr-admin", displayName: "Admin roles", priority: 1,
 *   condition: 'entitlement.display_name.contains("Admin")', outcome: "matched", detail: "", settings: null };
 * ```
 */
export interface ConfigRuleEvaluation {
  readonly ruleId: string;
  readonly displayName: string;
  readonly priority: number;
  readonly condition: string;
  readonly outcome: "matched" | "noMatch" | "disabled" | "error" | "notReached";
  /** Why a condition failed (`error`), else "". */
  readonly detail: string;
  readonly settings: EntitlementConfigRuleSettings | null;
  /**
   * What the condition read, `text = value` per field or call (`entitlement.scope.display_name = "dev-eu"`):
   * set by `explain` for a rule it evaluated, absent elsewhere.
   */
  readonly values?: readonly string[];
}

/**
 * The rule that gives an entitlement its request settings, if any, and how each rule of the app fared.
 *
 * @example
 * ```ts
 * const m = matchConfigRule(world, entitlement);
 * m.rule?.settings?.requestPolicyId; // "pol-prod"
 * ```
 */
export interface ConfigRuleMatch {
  readonly rule: EntitlementConfigRule | undefined;
  readonly evaluations: readonly ConfigRuleEvaluation[];
}

const NO_RULES: ConfigRuleMatch = Object.freeze({ rule: undefined, evaluations: Object.freeze([]) });

/**
 * Evaluates the entitlement's app's configuration rules in order (priority, then id) at the world's
 * `now`; the first enabled rule whose condition is empty or true wins. A condition that fails to
 * compile or to evaluate counts as not matching (README "Assumptions"), and the next rule is tried.
 * Never throws.
 *
 * @example
 * ```ts
 * const m = matchConfigRule(world, findEntitlement(world, "app-aws", "ent-admin")!);
 * for (const e of m.evaluations) console.log(e.ruleId, e.outcome);
 * ```
 */
export function matchConfigRule(world: World, entitlement: AppEntitlement): ConfigRuleMatch {
  const rules = world.index.configRulesByApp.get(entitlement.appId);
  if (!rules || rules.length === 0) return NO_RULES;
  const evaluations: ConfigRuleEvaluation[] = [];
  let winner: EntitlementConfigRule | undefined;
  let prepared: ReturnType<typeof prepareConfigRuleInput> | undefined;
  for (const rule of rules) {
    const base = { ruleId: rule.id, displayName: rule.displayName, priority: rule.priority, condition: rule.condition, settings: rule.settings };
    if (winner) {
      evaluations.push({ ...base, outcome: "notReached", detail: "" });
      continue;
    }
    if (!rule.enabled) {
      evaluations.push({ ...base, outcome: "disabled", detail: "" });
      continue;
    }
    if (rule.condition.trim() === "") {
      evaluations.push({ ...base, outcome: "matched", detail: "" });
      winner = rule;
      continue;
    }
    const compiled = compileCondition(rule.condition, "config-rule");
    if (!compiled.ok) {
      evaluations.push({ ...base, outcome: "error", detail: compiled.error.map((d) => d.message).join("; ") });
      continue;
    }
    prepared ??= prepareConfigRuleInput({ entitlement, now: world.now, costLimit: world.tenant.celCostLimit });
    if (!prepared.ok) {
      evaluations.push({ ...base, outcome: "error", detail: prepared.error.message });
      continue;
    }
    const value = evaluateCondition(compiled.value, prepared.value);
    if (!value.ok) evaluations.push({ ...base, outcome: "error", detail: value.error.message });
    else if (value.value) {
      evaluations.push({ ...base, outcome: "matched", detail: "" });
      winner = rule;
    } else evaluations.push({ ...base, outcome: "noMatch", detail: "" });
  }
  return { rule: winner, evaluations };
}

/**
 * Whether the entitlement's app has configuration rules (their conditions may read `now()`, so a
 * resolution that consulted them is not shared between clocks).
 *
 * @example
 * ```ts
 * hasConfigRules(world, "app-aws"); // true
 * ```
 */
export function hasConfigRules(world: World, appId: string): boolean {
  return (world.index.configRulesByApp.get(appId)?.length ?? 0) > 0;
}
