/**
 * The *changed prefix* of an edited policy: how many of its first rules a task must evaluate to know
 * that its route cannot change. Selection walks the rules top to bottom and stops at the first
 * match. When a policy's two versions agree from rule `t` on — the same rules at the same indexes,
 * the same step sequences behind their keys and behind the baseline, the same baseline reference,
 * and references only into policies the edit did not touch — a task none of whose first `t`
 * conditions (of either version) holds reaches rule `t` in both worlds with nothing matched, and
 * from there both walks read the same things: same steps, same rule, same chain. So the task is
 * decided by evaluating at most `t` conditions, not by two selections. An unedited policy whose
 * reach is untouched has prefix 0 (the pruning of `closure.ts`).
 */
import { type Policy, ruleOutcome, type Rule } from "../model/index.js";
import { baselineKey } from "../policy/select-steps.js";
import type { World } from "../world/world.js";
import type { ReachMemo } from "./closure.js";
import { sameValue } from "./same-value.js";

/**
 * The conditions to evaluate, in order, for a policy whose versions differ in their first rules.
 *
 * @example
 * ```ts
 * const p: ChangedPrefix = { length: 2, conditions: ['subject.department == "IT"', "true"] };
 * ```
 */
export interface ChangedPrefix {
  /** Rules `length` and after are the same in both versions, and so is everything they lead to. */
  readonly length: number;
  /** The conditions of rules before `length` in either version, each once. */
  readonly conditions: readonly string[];
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
  let t = r0.length;
  while (t > 0) {
    const a = r0[t - 1] as Rule;
    const b = r1[t - 1] as Rule;
    if (a !== b && !sameValue(a, b)) break;
    const outcome = ruleOutcome(a);
    if (outcome.kind === "stepKey" || outcome.kind === "policyKey" ? !sameSteps(outcome.stepKey) : outcome.kind === "policyId" && !clean(outcome.policyId)) break;
    t--;
  }
  const conditions: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < t; i++)
    for (const c of [(r0[i] as Rule).condition, (r1[i] as Rule).condition])
      if (!seen.has(c)) {
        seen.add(c);
        conditions.push(c);
      }
  return { length: t, conditions };
}
