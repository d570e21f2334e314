/**
 * The *changed prefix* of an edited policy: how many of its first rules a task must evaluate to know
 * that its route cannot change. Selection walks the rules top to bottom and stops at the first
 * match. When a policy's two versions agree from rule `t` on — the same rules at the same indexes,
 * the same step sequences behind their keys and behind the baseline, the same baseline reference,
 * and references only into policies the edit did not touch — a task none of whose first `t`
 * conditions (of either version) holds reaches rule `t` in both worlds with nothing matched, and
 * from there both walks read the same things: same steps, same rule, same chain. Before `t`, a rule
 * both versions share that ends the walk ends it alike: a task whose first holding condition is
 * such a rule's has the same route too. Only a task whose first holding condition belongs to a rule
 * that differs needs its two selections. So most tasks cost at most `t` evaluations, and no walk.
 * An unedited policy whose reach is untouched has prefix 0 (the pruning of `closure.ts`).
 */
import { type Policy, ruleOutcome, type Rule } from "../model/index.js";
import { baselineKey, policyReferencesEnabled } from "../policy/select-steps.js";
import type { World } from "../world/world.js";
import type { ReachMemo } from "./closure.js";
import { sameValue } from "./same-value.js";

/**
 * One rule of the changed prefix, as a task checks it: the condition of a rule both versions share
 * (`same`: it ends the walk alike in both worlds when it holds), or the conditions of the two
 * versions of a rule that differs (the routes may differ when either holds).
 *
 * @example
 * ```ts
 * const r: PrefixRule = { same: false, conditions: ['subject.department == "IT"', 'subject.department == "HR"'] };
 * ```
 */
export interface PrefixRule {
  readonly same: boolean;
  readonly conditions: readonly string[];
}

/**
 * The rules to check, in order, for a policy whose versions differ in their first rules.
 *
 * @example
 * ```ts
 * const p: ChangedPrefix = { length: 2, rules: [{ same: true, conditions: ["task.isGrantPermanent"] },
 *   { same: false, conditions: ['subject.department == "IT"', "true"] }] };
 * ```
 */
export interface ChangedPrefix {
  /** Rules `length` and after are the same in both versions, and so is everything they lead to. */
  readonly length: number;
  /** The rules before `length`. */
  readonly rules: readonly PrefixRule[];
}

/**
 * The changed prefix of `before` (in `world`) and `after` (in `edited`), the same policy id resolved
 * for a task in each world; `null` when the versions do not line up (another type, another number
 * of rules, another baseline) or their tails lead into edited policies.
 *
 * @example
 * ```ts
 * const p = changedPrefix(world, before, edited, after, impact.policies, reaches);
 * if (p?.length === 0) console.log("no task of this policy can change route");
 * ```
 */
export function changedPrefix(
  world: World,
  before: Policy,
  edited: World,
  after: Policy,
  changed: ReadonlySet<string>,
  reaches: ReachMemo,
): ChangedPrefix | null {
  if (before.id !== after.id || before.policyType !== after.policyType || before.baselinePolicyId !== after.baselinePolicyId) return null;
  const r0: readonly Rule[] = before.rules ?? [];
  const r1: readonly Rule[] = after.rules ?? [];
  if (r0.length !== r1.length) return null;
  const s0 = before.policySteps ?? {};
  const s1 = after.policySteps ?? {};
  const sameSteps = (key: string): boolean => s0[key] === s1[key] || sameValue(s0[key], s1[key]);
  // A reference the tail may follow reads the same policies in both worlds: the root itself (a
  // self-reference or cycle, which fails alike whatever the root holds), or a policy outside the
  // edit whose own reach is outside it too.
  const clean = (targetId: string): boolean => {
    if (targetId === before.id) return true;
    if (changed.has(targetId)) return false;
    const target = world.index.policies.get(targetId);
    if (!target) return edited.index.policies.get(targetId) === undefined;
    for (const id of reaches.of(target).ids) if (changed.has(id)) return false;
    return true;
  };
  if (before.baselinePolicyId ? !clean(before.baselinePolicyId) : !sameSteps(baselineKey(before))) return null;
  // Rule i is the same in both versions, and so is what it leads to.
  const sameRule = (i: number): boolean => {
    const a = r0[i] as Rule;
    const b = r1[i] as Rule;
    if (a !== b && !sameValue(a, b)) return false;
    const outcome = ruleOutcome(a);
    return outcome.kind === "stepKey" || outcome.kind === "policyKey" ? sameSteps(outcome.stepKey) : outcome.kind === "policyId" ? clean(outcome.policyId) : true;
  };
  let t = r0.length;
  while (t > 0 && sameRule(t - 1)) t--;
  // With the flag off a matching `policyId` rule is passed over and the walk goes on; a rule without
  // an outcome fails. Only a rule that ends the walk the same way is `same` for a task that matches it.
  const enabled = policyReferencesEnabled(world.tenant);
  const rules: PrefixRule[] = [];
  for (let i = 0; i < t; i++) {
    const a = r0[i] as Rule;
    const b = r1[i] as Rule;
    const kind = ruleOutcome(a).kind;
    if (sameRule(i) && (kind === "stepKey" || kind === "policyKey" || (kind === "policyId" && enabled))) rules.push({ same: true, conditions: [a.condition] });
    else rules.push({ same: false, conditions: a.condition === b.condition ? [a.condition] : [a.condition, b.condition] });
  }
  return { length: t, rules };
}
