/**
 * The Policy resource (spec, "Policy") and the rule outcome helper (docs/domain.md §2).
 */
import type { Timestamp, UnknownFields } from "./common.js";
import type { PolicyScopeSlot, PolicyType } from "./enums.js";
import type { PolicyStep } from "./policy-step.js";

/**
 * A policy: named step sequences (`policySteps`), the ordered `rules` that pick one, and a baseline.
 *
 * @example
 * ```ts
 * const r = decodePolicy(json);
 * if (r.ok) console.log(Object.keys(r.value.policySteps ?? {})); // ["grant", "3f1c…"]
 * ```
 */
export interface Policy {
  readonly id: string;
  readonly displayName: string;
  readonly description: string;
  readonly policyType: PolicyType;
  /** Baseline keyed by the lowercased policy type; other keys are opaque ids named by rules. */
  readonly policySteps: Readonly<Record<string, PolicySteps>> | null;
  readonly rules: readonly Rule[] | null;
  /** When set, the baseline defers to this policy instead of the baseline entry. */
  readonly baselinePolicyId: string;
  readonly postActions: readonly PolicyPostAction[] | null;
  readonly scope: PolicyScope | null;
  readonly annotations: Readonly<Record<string, string>> | null;
  /** Deprecated and unused. */
  readonly reassignTasksToDelegates: boolean;
  readonly systemBuiltin: boolean;
  readonly createdAt: Timestamp | null;
  readonly updatedAt: Timestamp | null;
  readonly deletedAt: Timestamp | null;
  readonly $unknown?: UnknownFields;
}

/**
 * One step sequence of a policy.
 *
 * @example
 * ```ts
 * const s: PolicySteps = { steps: [{ kind: "accept", acceptMessage: "" }] };
 * ```
 */
export interface PolicySteps {
  readonly steps: readonly PolicyStep[] | null;
  readonly $unknown?: UnknownFields;
}

/**
 * A rule: when `condition` (CEL) holds, the rule's outcome decides. The wire's `stepKey`/`policyId`
 * oneof and the legacy `policyKey` are kept as three strings (`""` when unset) so a rule round-trips;
 * read the outcome through {@link ruleOutcome}.
 *
 * @example
 * ```ts
 * const r: Rule = { condition: "subject.department == 'Eng'", stepKey: "eng", policyId: "", policyKey: "" };
 * ```
 */
export interface Rule {
  readonly condition: string;
  readonly stepKey: string;
  readonly policyId: string;
  /** Deprecated name of `stepKey`, still read for rules saved before the oneof existed. */
  readonly policyKey: string;
  readonly $unknown?: UnknownFields;
}

/**
 * What a matching rule selects: a step sequence of the same policy, another policy, a step sequence
 * named by the legacy `policyKey`, or nothing.
 *
 * @example
 * ```ts
 * const o: RuleOutcome = { kind: "policyId", policyId: "pol-prod" };
 * ```
 */
export type RuleOutcome =
  | { readonly kind: "stepKey"; readonly stepKey: string }
  | { readonly kind: "policyId"; readonly policyId: string }
  | { readonly kind: "policyKey"; readonly stepKey: string }
  | { readonly kind: "none" };

/**
 * The outcome of a rule: `stepKey`, else `policyId`, else the legacy `policyKey` (docs/domain.md §2).
 *
 * @example
 * ```ts
 * ruleOutcome({ stepKey: "", policyId: "", policyKey: "legacy" });
 * // { kind: "policyKey", stepKey: "legacy" }
 * ```
 */
export function ruleOutcome(rule: Pick<Rule, "stepKey" | "policyId" | "policyKey">): RuleOutcome {
  if (rule.stepKey !== "") return { kind: "stepKey", stepKey: rule.stepKey };
  if (rule.policyId !== "") return { kind: "policyId", policyId: rule.policyId };
  if (rule.policyKey !== "") return { kind: "policyKey", stepKey: rule.policyKey };
  return { kind: "none" };
}

/**
 * An action run after the policy completes.
 *
 * @example
 * ```ts
 * const a: PolicyPostAction = { certifyRemediateImmediately: true };
 * ```
 */
export interface PolicyPostAction {
  readonly certifyRemediateImmediately: boolean;
  readonly $unknown?: UnknownFields;
}

/**
 * What a scoped policy applies to.
 *
 * @example
 * ```ts
 * const s: PolicyScope = { appEntitlementId: "ent-admin", appId: "app-aws", slot: "POLICY_SCOPE_SLOT_EMERGENCY" };
 * ```
 */
export interface PolicyScope {
  readonly appEntitlementId: string;
  readonly appId: string;
  readonly slot: PolicyScopeSlot;
  readonly $unknown?: UnknownFields;
}
