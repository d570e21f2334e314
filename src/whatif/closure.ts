/**
 * The static reach of a policy: every policy id selection could look up when it starts from it
 * (rule `policyId` outcomes and `baselinePolicyId`, transitively), and whether selection from it can
 * fail at all. This is what lets `whatIf` skip tasks an edit provably cannot affect: if no policy
 * in the reach changed and the conditions see the same inputs, selection walks the same objects and
 * returns the same result; and if the reach is *sound*, that result is never an error, so the task
 * need not be decided even to be listed among the errors.
 */
import { type Policy, ruleOutcome } from "../model/index.js";
import { baselineKey, MAX_CHAIN_DEPTH, policyReferencesEnabled } from "../policy/select-steps.js";
import type { World } from "../world/world.js";

/**
 * The reach of one policy in one world.
 *
 * @example
 * ```ts
 * const r = policyReach(world, policy);
 * r.ids.has("pol-prod-admin-eng"); // true when a rule refers to it
 * ```
 */
export interface PolicyReach {
  /** The policy's own id and every id selection may look up from it, present in the world or not. */
  readonly ids: ReadonlySet<string>;
  /**
   * True when no walk from the policy can end in a selection error: every rule has an outcome, every
   * step key and baseline entry exists, every reference resolves to a policy of the same type (with
   * the flag on), and the reference graph below it is acyclic and at most `MAX_CHAIN_DEPTH` deep.
   * Each `SelectionError` code is ruled out by one of these; false means "may fail", not "fails".
   */
  readonly sound: boolean;
}

/**
 * Computes the reach of `root` in `world`.
 *
 * @example
 * ```ts
 * if (policyReach(world, policy).sound) console.log("no task can fail selection under", policy.id);
 * ```
 */
export function policyReach(world: World, root: Policy): PolicyReach {
  const enabled = policyReferencesEnabled(world.tenant);
  const policies = world.index.policies;
  const ids = new Set<string>([root.id]);
  let sound = true;
  // Longest reference path (in edges) below each policy, for the depth check; "visiting" finds cycles.
  const height = new Map<Policy, number>();
  const visiting = new Set<Policy>();

  const edge = (from: Policy, targetId: string): number => {
    ids.add(targetId);
    const target = policies.get(targetId);
    // SELF_REFERENCE, MISSING_POLICY, CROSS_TYPE.
    if (targetId === from.id || !target || target.policyType !== from.policyType) {
      sound = false;
      return 0;
    }
    return 1 + visit(target);
  };

  const visit = (p: Policy): number => {
    const known = height.get(p);
    if (known !== undefined) return known;
    if (visiting.has(p)) {
      sound = false; // CYCLE
      return 0;
    }
    visiting.add(p);
    let h = 0;
    for (const rule of p.rules ?? []) {
      const outcome = ruleOutcome(rule);
      switch (outcome.kind) {
        case "stepKey":
        case "policyKey":
          if (!p.policySteps?.[outcome.stepKey]) sound = false; // MISSING_STEP_KEY
          break;
        case "policyId":
          // With the flag off, selection passes such a rule over without looking the target up.
          if (enabled) h = Math.max(h, edge(p, outcome.policyId));
          else ids.add(outcome.policyId);
          break;
        case "none":
          sound = false; // RULE_WITHOUT_OUTCOME
          break;
        default: {
          const never: never = outcome;
          return never;
        }
      }
    }
    if (p.baselinePolicyId) {
      if (enabled) h = Math.max(h, edge(p, p.baselinePolicyId));
      else {
        ids.add(p.baselinePolicyId);
        sound = false; // REFERENCES_DISABLED
      }
    } else if (!p.policySteps?.[baselineKey(p)]) sound = false; // MISSING_BASELINE
    visiting.delete(p);
    height.set(p, h);
    return h;
  };

  // CHAIN_TOO_DEEP: the root is depth 0, so a path of more than MAX_CHAIN_DEPTH references fails.
  if (visit(root) > MAX_CHAIN_DEPTH) sound = false;
  return { ids, sound };
}

/**
 * Reaches memoised per policy object, for one world.
 *
 * @example
 * ```ts
 * const reaches = new ReachMemo(world);
 * reaches.of(policy).sound;
 * ```
 */
export class ReachMemo {
  readonly #world: World;
  readonly #memo = new Map<Policy, PolicyReach>();

  constructor(world: World) {
    this.#world = world;
  }

  of(policy: Policy): PolicyReach {
    let r = this.#memo.get(policy);
    if (!r) {
      r = policyReach(this.#world, policy);
      this.#memo.set(policy, r);
    }
    return r;
  }
}
