/**
 * Which step sequence of a policy applies (docs/domain.md §2): rules top to bottom, first match wins;
 * a rule's outcome is `stepKey`, else `policyId` (evaluated recursively: that policy's own rules,
 * then its baseline), else the legacy `policyKey`. When no rule matches, the baseline entry keyed by
 * the lowercased policy type applies, or `baselinePolicyId` when it is set.
 *
 * Every rule evaluated is recorded in the service's audit shape, so a user can compare a simulation
 * with the audit log. The same records feed explanations: there is no second code path.
 */
import { type Policy, type PolicyStep, type Rule, ruleOutcome } from "../model/index.js";
import { err, ok, type Result } from "../result.js";
import type { World } from "../world/world.js";

/**
 * The deepest a reference chain may go. The policies page lets a policy "chain up to five policies
 * deep" and the spec's Limits say "depth at most 5" with the task's own policy at depth 0 (the audit
 * records' `chainDepth`): what counts is the policies *pointed to*, so the task's own policy and up
 * to five policies it reaches one after another (README, Assumptions).
 *
 * @example
 * ```ts
 * if (chain.length - 1 > MAX_CHAIN_DEPTH) console.log("the service refuses this chain");
 * ```
 */
export const MAX_CHAIN_DEPTH = 5;

/**
 * The tenant flag behind rule `policyId` and `baselinePolicyId` (docs/domain.md §2).
 *
 * @example
 * ```ts
 * const on = world.tenant.featureFlags[POLICY_REFERENCES_FLAG] === true;
 * ```
 */
export const POLICY_REFERENCES_FLAG = "POLICY_REFERENCES_POLICY";

/**
 * Whether a tenant follows policy references. Policies referencing policies are generally available
 * since 21 Aug 2026 (release notes), so they are on unless the tenant's
 * {@link POLICY_REFERENCES_FLAG} is set to `false`, which still turns them off (README, Assumptions).
 *
 * @example
 * ```ts
 * policyReferencesEnabled({ defaultPolicies: {}, featureFlags: {} }); // true
 * policyReferencesEnabled({ defaultPolicies: {}, featureFlags: { POLICY_REFERENCES_POLICY: false } }); // false
 * ```
 */
export function policyReferencesEnabled(tenant: Pick<World["tenant"], "featureFlags">): boolean {
  return tenant.featureFlags[POLICY_REFERENCES_FLAG] !== false;
}

/**
 * Where a selection finds the policies a chain refers to: the world's policies today, or the
 * snapshot a task took of its chain when its policy was put on it.
 *
 * @example
 * ```ts
 * const lookup: PolicyLookup = (id) => world.index.policies.get(id);
 * ```
 */
export type PolicyLookup = (policyId: string) => Policy | undefined;

/**
 * The result of evaluating one condition: a boolean, or the run-time error that stopped it.
 *
 * @example
 * ```ts
 * const r: ConditionResult = { ok: false, error: 'no such key: "clearance"' };
 * ```
 */
export type ConditionResult = { readonly ok: true; readonly value: boolean } | { readonly ok: false; readonly error: string };

/**
 * Evaluates rule conditions for one task. Built once per task so the task's CEL input is prepared
 * once, whatever the number of rules.
 *
 * @example
 * ```ts
 * const runner: ConditionRunner = { run: (src) => ({ ok: true, value: src === "true" }) };
 * ```
 */
export interface ConditionRunner {
  run(condition: string): ConditionResult;
  /**
   * Optional: the same as `run(rules[index].condition)`. A runner that compiles conditions can keep
   * a policy's rules compiled side by side and find each by its index, where `run` looks every
   * condition up by its source text (a hash lookup per rule, about as dear as the rest of the
   * adapter). `selectSteps` calls it when it is there.
   */
  runRule?(rules: readonly Rule[], index: number): ConditionResult;
  /**
   * Optional: evaluates `rules[from]`, `rules[from + 1]`, … while each is plainly false (no match, no
   * error) and returns the index of the first that is not — true, an error, or anything else `run`
   * must decide — or `rules.length`. The rules before that index are passed over exactly as if
   * `run` had answered false for each; the one at it is then asked of `runRule`/`run` as usual. A
   * runner that evaluates conditions one by one (a trace) returns `from`. `selectSteps` calls it
   * when it is there: one call for a run of rules that do not match, instead of one per rule.
   */
  passOver?(rules: readonly Rule[], from: number): number;
}

/**
 * One evaluated rule (or the baseline fall-through), in the service's audit shape
 * (`conditionalPolicyExecutionResult`) plus the position of the rule.
 *
 * @example
 * ```ts
 * const e: RuleEvaluation = { policyId: "pol-aws", chainDepth: 0, ruleIndex: 1,
 *   condition: 'subject.department == "Security"', conditionMatched: false, defaultCondition: false,
 *   error: "", stepKey: "sec-review", policyKey: "", outcomePolicyId: "" };
 * ```
 */
export interface RuleEvaluation {
  readonly policyId: string;
  /** 0 for the task's own policy; +1 for each reference followed. */
  readonly chainDepth: number;
  /** Index in the policy's `rules`; -1 for the baseline. */
  readonly ruleIndex: number;
  readonly condition: string;
  readonly conditionMatched: boolean;
  /** True for the baseline, which applies when no rule matches. */
  readonly defaultCondition: boolean;
  /** The run-time error of the condition, or why a matching rule could not be followed; "" if none. */
  readonly error: string;
  readonly stepKey: string;
  readonly policyKey: string;
  /** The policy a `policyId` outcome (or `baselinePolicyId`) refers to; "" otherwise. */
  readonly outcomePolicyId: string;
}

/**
 * How one policy of the chain was reached.
 *
 * @example
 * ```ts
 * const link: ChainLink = { policyId: "pol-prod", chainDepth: 1,
 *   via: { kind: "rule", fromPolicyId: "pol-aws", ruleIndex: 2 } };
 * ```
 */
export interface ChainLink {
  readonly policyId: string;
  readonly chainDepth: number;
  readonly via:
    | { readonly kind: "root" }
    | { readonly kind: "rule"; readonly fromPolicyId: string; readonly ruleIndex: number }
    | { readonly kind: "baselinePolicyId"; readonly fromPolicyId: string };
}

/**
 * What decided the step sequence. A sequence chosen by a rule carries the rule's index; one chosen
 * by the baseline does not.
 *
 * @example
 * ```ts
 * if (sel.decidedBy.kind === "rule") console.log("rule", sel.decidedBy.ruleIndex, "of", sel.decidedBy.policyId);
 * ```
 */
export type DecidedBy =
  | {
      readonly kind: "rule";
      readonly policyId: string;
      readonly chainDepth: number;
      readonly ruleIndex: number;
      readonly stepKey: string;
      /** Whether the key came from `stepKey` or the legacy `policyKey`. */
      readonly field: "stepKey" | "policyKey";
    }
  | { readonly kind: "baseline"; readonly policyId: string; readonly chainDepth: number; readonly stepKey: string };

/**
 * A successful selection: the steps to run, the policy that owns them, and how they were chosen.
 *
 * @example
 * ```ts
 * const s = selectSteps(world, policy, runner);
 * if (s.ok) console.log(s.value.steps.length, "steps from", s.value.decidedBy.policyId);
 * ```
 */
export interface Selection {
  readonly decidedBy: DecidedBy;
  /** The policy the steps belong to: the root, or the end of a reference chain. */
  readonly policy: Policy;
  readonly steps: readonly PolicyStep[];
  readonly evaluations: readonly RuleEvaluation[];
  readonly chain: readonly ChainLink[];
}

/**
 * The codes selection fails with ({@link SelectionError}).
 *
 * @example
 * ```ts
 * SELECTION_ERROR_CODES.includes("CYCLE"); // true
 * ```
 */
export const SELECTION_ERROR_CODES = [
  "CYCLE",
  "SELF_REFERENCE",
  "CHAIN_TOO_DEEP",
  "CROSS_TYPE",
  "MISSING_POLICY",
  "MISSING_STEP_KEY",
  "MISSING_BASELINE",
  "RULE_WITHOUT_OUTCOME",
  "REFERENCES_DISABLED",
] as const;

/**
 * Why no step sequence could be selected. Carries the evaluations and chain up to the failure, so
 * an explanation can show where it broke.
 *
 * @example
 * ```ts
 * if (!s.ok && s.error.code === "CYCLE") console.log(s.error.message); // names the chain
 * ```
 */
export interface SelectionError {
  readonly code: (typeof SELECTION_ERROR_CODES)[number];
  readonly message: string;
  readonly policyId: string;
  readonly evaluations: readonly RuleEvaluation[];
  readonly chain: readonly ChainLink[];
}

/**
 * The key of a policy's baseline entry in `policySteps`: the lowercased policy type
 * (`POLICY_TYPE_GRANT` → `grant`).
 *
 * @example
 * ```ts
 * baselineKey({ policyType: "POLICY_TYPE_ACCESS_REQUEST" } as Policy); // "access_request"
 * ```
 */
export function baselineKey(policy: Pick<Policy, "policyType">): string {
  return policy.policyType.replace(/^POLICY_TYPE_/, "").toLowerCase();
}

function stepsAt(policy: Policy, key: string): readonly PolicyStep[] | undefined {
  const entry = policy.policySteps?.[key];
  return entry ? (entry.steps ?? []) : undefined;
}

function chainText(chain: readonly ChainLink[], next?: string): string {
  return [...chain.map((l) => l.policyId), ...(next === undefined ? [] : [next])].join(" → ");
}

interface Walk {
  /** Where references lead: `lookup` when given, else the world's policies (no closure per walk). */
  readonly lookup: PolicyLookup | undefined;
  readonly policies: World["index"]["policies"];
  readonly runner: ConditionRunner;
  readonly evaluations: RuleEvaluation[];
  readonly chain: ChainLink[];
  readonly referencesEnabled: boolean;
}

type Step = Result<Selection, SelectionError>;

function fault(w: Walk, code: SelectionError["code"], policyId: string, message: string): Step {
  return err({ code, message, policyId, evaluations: w.evaluations, chain: w.chain });
}

/** Follows a reference from `from` to `targetId`, checking the chain rules first. */
function follow(w: Walk, from: Policy, depth: number, targetId: string, via: ChainLink["via"]): Step {
  const target = w.lookup ? w.lookup(targetId) : w.policies.get(targetId);
  if (targetId === from.id)
    return fault(w, "SELF_REFERENCE", from.id, `policy "${from.id}" refers to itself (${chainText(w.chain, targetId)})`);
  if (!target)
    return fault(w, "MISSING_POLICY", from.id, `policy "${from.id}" refers to policy "${targetId}", which does not exist`);
  if (w.chain.some((l) => l.policyId === targetId))
    return fault(w, "CYCLE", from.id, `reference cycle: ${chainText(w.chain, targetId)}`);
  if (target.policyType !== from.policyType)
    return fault(
      w,
      "CROSS_TYPE",
      from.id,
      `policy "${from.id}" (${from.policyType}) refers to "${targetId}" of another type (${target.policyType}); references must stay within one policy type`,
    );
  if (depth + 1 > MAX_CHAIN_DEPTH)
    return fault(w, "CHAIN_TOO_DEEP", from.id, `reference chain deeper than ${MAX_CHAIN_DEPTH}: ${chainText(w.chain, targetId)}`);
  w.chain.push({ policyId: targetId, chainDepth: depth + 1, via });
  return walk(w, target, depth + 1);
}

/**
 * The audit record of one evaluated rule. Built as one object literal, with the keys in the order
 * the records have always had: `{ ...base, conditionMatched, error }` (an object spread followed by
 * more properties) costs about 1 µs per object on Node 20's V8, more than evaluating a condition.
 */
function ruleRecord(policy: Policy, depth: number, i: number, rule: Rule, conditionMatched: boolean, error: string): RuleEvaluation {
  // The `policyId` outcome as `ruleOutcome` reads it (a set stepKey wins), without allocating it.
  const outcomePolicyId = rule.stepKey === "" ? rule.policyId : "";
  return {
    policyId: policy.id,
    chainDepth: depth,
    ruleIndex: i,
    condition: rule.condition,
    defaultCondition: false,
    stepKey: rule.stepKey,
    policyKey: rule.policyKey,
    outcomePolicyId,
    conditionMatched,
    error,
  };
}

/**
 * What a selection that walks a frozen policy (a loaded world's, with frozen rules) can share with
 * every other, per chain depth: the records of the rules it passes over (no match, no error), which
 * are most rules of most selections and cost as much as the rest of the walk; and, for a rule that
 * matches with a step key, its record, what it decided and its steps. None of these depends on
 * anything but the policy, the depth and the rule, so each is built once, frozen, and shared.
 * `undefined` for a policy that is not frozen, whose rules could change under an index.
 */
interface Shared {
  readonly passedOver: (RuleEvaluation | undefined)[];
  readonly matched: (StepKeyMatch | undefined)[];
  /**
   * At depth 0, the whole selection of a walk that passed over every rule before `i` and matched
   * rule `i` by step key, or (at `i` = the number of rules) passed over them all and took the
   * policy's own baseline entry: nothing in it depends on the task but `i`, so it is built once,
   * frozen (its lists too), and returned as it is — no record pushed, no array or result allocated.
   */
  readonly whole: (Step | undefined)[];
}

interface StepKeyMatch {
  readonly record: RuleEvaluation;
  readonly decidedBy: DecidedBy;
  readonly steps: readonly PolicyStep[];
}

/** Per frozen policy, by chain depth (`null`: the policy is not frozen; nothing is shared). */
const sharedByPolicy = new WeakMap<Policy, Shared[] | null>();

function sharedAt(policy: Policy, depth: number): Shared | undefined {
  let byDepth = sharedByPolicy.get(policy);
  if (byDepth === undefined) {
    const rules = policy.rules;
    const frozen = Object.isFrozen(policy) && (rules === null || (Object.isFrozen(rules) && rules.every((r) => Object.isFrozen(r))));
    byDepth = frozen ? [] : null;
    sharedByPolicy.set(policy, byDepth);
  }
  if (byDepth === null) return undefined;
  return (byDepth[depth] ??= { passedOver: [], matched: [], whole: [] });
}

const ROOT: ChainLink["via"] = Object.freeze({ kind: "root" });

/** The record of a rule passed over (no match, no error): shared when the policy's records are. */
function passedOverRecord(policy: Policy, depth: number, i: number, rule: Rule, passedOver: (RuleEvaluation | undefined)[] | undefined): RuleEvaluation {
  let record = passedOver?.[i];
  if (record === undefined) {
    record = ruleRecord(policy, depth, i, rule, false, "");
    if (passedOver) passedOver[i] = Object.freeze(record);
  }
  return record;
}

/**
 * What every walk that reaches a rule (or the baseline) alike selects, as the result itself: built
 * once, frozen with its lists (records, chain), and handed to every such selection. A selection is
 * a value: its lists are read-only (`readonly` in its type, frozen here).
 */
function wholeOf(w: Walk, policy: Policy, decidedBy: DecidedBy, steps: readonly PolicyStep[]): Step {
  const chain = Object.freeze([Object.freeze(w.chain[0] as ChainLink)]);
  return Object.freeze(ok(Object.freeze({ decidedBy, policy, steps, evaluations: Object.freeze(w.evaluations.slice()), chain })));
}

function walk(w: Walk, policy: Policy, depth: number): Step {
  const rules: readonly Rule[] = policy.rules ?? [];
  const shared = sharedAt(policy, depth);
  const passedOver = shared?.passedOver;
  const runner = w.runner;
  // Audit records on demand: while every rule so far was passed over on a policy whose records are
  // shared, none is pushed; when something else happens, the `skipped` ones are pushed first (the
  // same records, in the same order). A walk that ends without anything else returns a whole
  // shared selection (`Shared.whole`).
  let skipped = shared === undefined ? -1 : 0;
  for (let i = 0; i < rules.length; i++) {
    if (runner.passOver) {
      // A run of rules that are plainly false, in one call: passed over as one by one below.
      const j = runner.passOver(rules, i);
      if (j > i) {
        if (skipped >= 0) skipped += j - i;
        else for (let k = i; k < j; k++) w.evaluations.push(passedOverRecord(policy, depth, k, rules[k] as Rule, passedOver));
        i = j;
        if (i >= rules.length) break;
      }
    }
    const rule = rules[i] as Rule;
    const result = runner.runRule ? runner.runRule(rules, i) : runner.run(rule.condition);
    if (result.ok && !result.value) {
      if (skipped >= 0) skipped++;
      else w.evaluations.push(passedOverRecord(policy, depth, i, rule, passedOver));
      continue;
    }
    // Every rule before this one was passed over, and the walk started here at the root.
    const untouched = skipped >= 0 && depth === 0;
    if (untouched && result.ok) {
      const whole = shared?.whole[i];
      if (whole !== undefined) return whole;
    }
    if (skipped > 0) for (let k = 0; k < skipped; k++) w.evaluations.push(passedOverRecord(policy, depth, k, rules[k] as Rule, passedOver));
    skipped = -1;
    if (!result.ok) {
      // docs/domain.md §2: a condition that fails at run time does not match; evaluation goes on.
      w.evaluations.push(ruleRecord(policy, depth, i, rule, false, result.error));
      continue;
    }
    const known = shared?.matched[i];
    if (known) {
      w.evaluations.push(known.record);
      if (untouched && shared) return (shared.whole[i] = wholeOf(w, policy, known.decidedBy, known.steps));
      return ok({ decidedBy: known.decidedBy, policy, steps: known.steps, evaluations: w.evaluations, chain: w.chain });
    }
    const outcome = ruleOutcome(rule);
    switch (outcome.kind) {
      case "stepKey":
      case "policyKey": {
        const record = ruleRecord(policy, depth, i, rule, true, "");
        w.evaluations.push(record);
        const steps = stepsAt(policy, outcome.stepKey);
        if (!steps)
          return fault(w, "MISSING_STEP_KEY", policy.id, `rule ${i} of policy "${policy.id}" selects step key "${outcome.stepKey}", which is not in its policySteps`);
        const decidedBy: DecidedBy = { kind: "rule", policyId: policy.id, chainDepth: depth, ruleIndex: i, stepKey: outcome.stepKey, field: outcome.kind };
        // Steps of a frozen policy are frozen with it: the match can be shared as it is.
        if (shared && Object.isFrozen(steps)) {
          shared.matched[i] = Object.freeze({ record: Object.freeze(record), decidedBy: Object.freeze(decidedBy), steps });
          if (untouched) return (shared.whole[i] = wholeOf(w, policy, decidedBy, steps));
        }
        return ok({ decidedBy, policy, steps, evaluations: w.evaluations, chain: w.chain });
      }
      case "policyId": {
        if (!w.referencesEnabled) {
          // With the flag turned off the service does not follow references; the rule is passed over
          // like a rule whose condition errors, and evaluation goes on (README, Assumptions).
          w.evaluations.push(
            ruleRecord(policy, depth, i, rule, true, `policy references are disabled (tenant flag ${POLICY_REFERENCES_FLAG} is off); rule not followed`),
          );
          continue;
        }
        w.evaluations.push(ruleRecord(policy, depth, i, rule, true, ""));
        return follow(w, policy, depth, outcome.policyId, { kind: "rule", fromPolicyId: policy.id, ruleIndex: i });
      }
      case "none":
        w.evaluations.push(ruleRecord(policy, depth, i, rule, true, "the rule has no stepKey, policyId or policyKey"));
        return fault(w, "RULE_WITHOUT_OUTCOME", policy.id, `rule ${i} of policy "${policy.id}" matched but names no stepKey, policyId or policyKey`);
      default: {
        const never: never = outcome;
        return never;
      }
    }
  }

  // Every rule passed over: the policy's own baseline entry, when it has one, is shared whole.
  const untouched = skipped >= 0 && depth === 0 && !policy.baselinePolicyId;
  if (untouched) {
    const whole = shared?.whole[rules.length];
    if (whole !== undefined) return whole;
  }
  if (skipped > 0) for (let k = 0; k < skipped; k++) w.evaluations.push(passedOverRecord(policy, depth, k, rules[k] as Rule, passedOver));
  const key = baselineKey(policy);
  if (policy.baselinePolicyId) {
    w.evaluations.push({
      policyId: policy.id,
      chainDepth: depth,
      ruleIndex: -1,
      condition: "",
      conditionMatched: true,
      defaultCondition: true,
      error: w.referencesEnabled ? "" : `tenant flag ${POLICY_REFERENCES_FLAG} is off`,
      stepKey: "",
      policyKey: "",
      outcomePolicyId: policy.baselinePolicyId,
    });
    if (!w.referencesEnabled)
      return fault(
        w,
        "REFERENCES_DISABLED",
        policy.id,
        `policy "${policy.id}" defers its baseline to "${policy.baselinePolicyId}", but policy references are disabled (tenant flag ${POLICY_REFERENCES_FLAG} is off)`,
      );
    return follow(w, policy, depth, policy.baselinePolicyId, { kind: "baselinePolicyId", fromPolicyId: policy.id });
  }
  const steps = stepsAt(policy, key);
  w.evaluations.push({
    policyId: policy.id,
    chainDepth: depth,
    ruleIndex: -1,
    condition: "",
    conditionMatched: steps !== undefined,
    defaultCondition: true,
    error: steps ? "" : `no baseline entry "${key}"`,
    stepKey: key,
    policyKey: "",
    outcomePolicyId: "",
  });
  if (!steps)
    return fault(w, "MISSING_BASELINE", policy.id, `no rule of policy "${policy.id}" matched and it has no baseline entry "${key}" in policySteps`);
  const decidedBy: DecidedBy = { kind: "baseline", policyId: policy.id, chainDepth: depth, stepKey: key };
  if (untouched && shared && Object.isFrozen(steps)) {
    Object.freeze(w.evaluations[w.evaluations.length - 1]);
    return (shared.whole[rules.length] = wholeOf(w, policy, Object.freeze(decidedBy), steps));
  }
  return ok({ decidedBy, policy, steps, evaluations: w.evaluations, chain: w.chain });
}

/**
 * Selects the step sequence of `policy` for one task, whose conditions `runner` evaluates.
 * Follows `policyId` rules and `baselinePolicyId` (same type only, depth ≤ {@link MAX_CHAIN_DEPTH},
 * no cycles) unless the tenant turned policy references off ({@link policyReferencesEnabled}).
 * Referenced policies come from `lookup`, by default the world's policies today; a Restart passes
 * the task's chain snapshot ({@link chainLookup}). Never throws.
 *
 * @example
 * ```ts
 * const sel = selectSteps(world, policy, runnerForTask(world, task));
 * if (sel.ok) console.log(sel.value.decidedBy); // { kind: "rule", ruleIndex: 2, stepKey: "sec", … }
 * else console.log(sel.error.code, sel.error.message);
 * ```
 */
export function selectSteps(world: World, policy: Policy, runner: ConditionRunner, lookup?: PolicyLookup): Result<Selection, SelectionError> {
  const w: Walk = {
    lookup,
    policies: world.index.policies,
    runner,
    evaluations: [],
    chain: [{ policyId: policy.id, chainDepth: 0, via: ROOT }],
    referencesEnabled: policyReferencesEnabled(world.tenant),
  };
  return walk(w, policy, 0);
}

/** The policies a policy refers to directly: its rules' `policyId` outcomes and its `baselinePolicyId`. */
function referencesOf(policy: Policy): string[] {
  const out: string[] = [];
  for (const rule of policy.rules ?? []) {
    const o = ruleOutcome(rule);
    if (o.kind === "policyId") out.push(o.policyId);
  }
  if (policy.baselinePolicyId) out.push(policy.baselinePolicyId);
  return out;
}

/**
 * The snapshot of a policy's reference chain that a task takes when the policy is put on it: every
 * policy `root` can reach through rule `policyId`s and `baselinePolicyId` within
 * {@link MAX_CHAIN_DEPTH} references, as `lookup` has them now, root excluded, in the order first
 * reached. All of them, not only the path the task's conditions followed: a Restart evaluates the
 * rules again and may take another branch of the same snapshot (policies page: "C1 resolves the
 * full chain at that point and snapshots it onto the task"). Empty for a policy without references.
 *
 * @example
 * ```ts
 * chainSnapshot(world, world.index.policies.get("pol-aws-access")!).map((p) => p.id); // ["pol-prod-admin", …]
 * ```
 */
export function chainSnapshot(world: World, root: Policy, lookup?: PolicyLookup): readonly Policy[] {
  if (lookup) return snapshotOf(root, lookup);
  // A world's policies never change: each root's snapshot is taken once per policy index.
  const policies = world.index.policies;
  let byRoot = snapshots.get(policies);
  if (!byRoot) snapshots.set(policies, (byRoot = new WeakMap()));
  let known = byRoot.get(root);
  if (!known) byRoot.set(root, (known = Object.freeze(snapshotOf(root, (id) => policies.get(id)))));
  return known;
}

const snapshots = new WeakMap<ReadonlyMap<string, Policy>, WeakMap<Policy, readonly Policy[]>>();

function snapshotOf(root: Policy, find: PolicyLookup): Policy[] {
  const seen = new Set<string>([root.id]);
  const out: Policy[] = [];
  let frontier: readonly Policy[] = [root];
  for (let depth = 1; depth <= MAX_CHAIN_DEPTH && frontier.length > 0; depth++) {
    const next: Policy[] = [];
    for (const p of frontier)
      for (const id of referencesOf(p)) {
        if (seen.has(id)) continue;
        seen.add(id);
        const target = find(id);
        if (target) {
          out.push(target);
          next.push(target);
        }
      }
    frontier = next;
  }
  return out;
}

/**
 * Where a Restart finds a task's referenced policies: the chain snapshot the task carries
 * (`policy.referencedPolicies`), so edits made to those policies since do not reach it. A task that
 * carries no snapshot (a world file written without one) reads the world's policies.
 *
 * @example
 * ```ts
 * selectSteps(world, task.policy!.policy!, conditions, chainLookup(world, task.policy));
 * ```
 */
export function chainLookup(world: World, instance: { readonly referencedPolicies?: readonly Policy[] | null } | null): PolicyLookup {
  const snapshot = instance?.referencedPolicies;
  if (snapshot === undefined || snapshot === null) return (id) => world.index.policies.get(id);
  const byId = new Map(snapshot.map((p) => [p.id, p]));
  return (id) => byId.get(id);
}
