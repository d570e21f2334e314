/**
 * fast-check arbitraries of whole worlds and of tasks inside a world. Worlds come from
 * `syntheticWorld` with random seeds and shapes (consistent: every id resolves, every task carries
 * the policy that applies), then random policy mutations — reordered and removed rules, swapped step
 * keys, negated or replaced conditions, new references (which may make cycles or chains too deep),
 * dropped baselines — so properties meet broken policies too. Mutations are data, so a
 * counterexample prints as the seed and the list of mutations that reproduce it.
 */
import fc from "fast-check";
import type { Policy, Rule, Task } from "../model/index.js";
import { arbTaskSpecIn, type TaskSpecArbOptions } from "../whatif/arb-task-spec.js";
import { taskInWorld } from "../whatif/task-spec.js";
import { loadWorld } from "../world/load-world.js";
import { replaceInWorld, type World } from "../world/world.js";
import { syntheticWorld } from "./synthetic-world.js";

/**
 * One change to one policy. Indices are taken modulo the number of policies (in world order) and
 * of the policy's rules, so any mutation applies to any world; one that has nothing to act on
 * (a rule index on a policy without rules) leaves the world as it is.
 *
 * @example
 * ```ts
 * const m: PolicyMutation = { kind: "swapStepKeys", policy: 0, a: 1, b: 3 };
 * ```
 */
export type PolicyMutation =
  | { readonly kind: "swapStepKeys"; readonly policy: number; readonly a: number; readonly b: number }
  | { readonly kind: "removeRule"; readonly policy: number; readonly rule: number }
  | { readonly kind: "moveRule"; readonly policy: number; readonly from: number; readonly to: number }
  | { readonly kind: "negateCondition"; readonly policy: number; readonly rule: number }
  | { readonly kind: "setCondition"; readonly policy: number; readonly rule: number; readonly condition: string }
  | { readonly kind: "referPolicy"; readonly policy: number; readonly rule: number; readonly target: number }
  | { readonly kind: "baselineTo"; readonly policy: number; readonly target: number }
  | { readonly kind: "dropBaseline"; readonly policy: number };

/** Conditions a mutation may substitute: constant, subject- and entitlement-dependent, failing at run time, not compiling. */
const CONDITIONS = [
  "true",
  "false",
  'subject.department == "Engineering"',
  'subject.employmentType == "Contractor" || entitlement.riskLevelValueId == "critical"',
  'subject.profile.clearance == "high"',
  "subject.profile.noSuchKey == 1",
  "task.isGrantPermanent",
  "subject.department ==",
] as const;

/**
 * Random {@link PolicyMutation}s.
 *
 * @example
 * ```ts
 * fc.sample(arbPolicyMutation, 1); // [{ kind: "removeRule", policy: 3, rule: 0 }]
 * ```
 */
export const arbPolicyMutation: fc.Arbitrary<PolicyMutation> = fc.oneof(
  fc.record({ kind: fc.constant("swapStepKeys" as const), policy: fc.nat(40), a: fc.nat(16), b: fc.nat(16) }),
  fc.record({ kind: fc.constant("removeRule" as const), policy: fc.nat(40), rule: fc.nat(16) }),
  fc.record({ kind: fc.constant("moveRule" as const), policy: fc.nat(40), from: fc.nat(16), to: fc.nat(16) }),
  fc.record({ kind: fc.constant("negateCondition" as const), policy: fc.nat(40), rule: fc.nat(16) }),
  fc.record({ kind: fc.constant("setCondition" as const), policy: fc.nat(40), rule: fc.nat(16), condition: fc.constantFrom(...CONDITIONS) }),
  fc.record({ kind: fc.constant("referPolicy" as const), policy: fc.nat(40), rule: fc.nat(16), target: fc.nat(40) }),
  fc.record({ kind: fc.constant("baselineTo" as const), policy: fc.nat(40), target: fc.nat(40) }),
  fc.record({ kind: fc.constant("dropBaseline" as const), policy: fc.nat(40) }),
);

function mutateRules(p: Policy, m: PolicyMutation, policies: readonly Policy[]): Policy {
  const rules: Rule[] = [...(p.rules ?? [])];
  const n = rules.length;
  const at = (i: number) => i % n;
  switch (m.kind) {
    case "swapStepKeys": {
      if (n === 0) return p;
      const a = rules[at(m.a)] as Rule;
      const b = rules[at(m.b)] as Rule;
      rules[at(m.a)] = { ...a, stepKey: b.stepKey, policyId: b.policyId, policyKey: b.policyKey };
      rules[at(m.b)] = { ...b, stepKey: a.stepKey, policyId: a.policyId, policyKey: a.policyKey };
      return { ...p, rules };
    }
    case "removeRule":
      if (n === 0) return p;
      rules.splice(at(m.rule), 1);
      return { ...p, rules };
    case "moveRule": {
      if (n === 0) return p;
      const [r] = rules.splice(at(m.from), 1);
      if (r) rules.splice(at(m.to) % (rules.length + 1), 0, r);
      return { ...p, rules };
    }
    case "negateCondition":
    case "setCondition": {
      if (n === 0) return p;
      const r = rules[at(m.rule)] as Rule;
      rules[at(m.rule)] = { ...r, condition: m.kind === "negateCondition" ? `!(${r.condition})` : m.condition };
      return { ...p, rules };
    }
    case "referPolicy": {
      const target = policies[m.target % policies.length];
      if (n === 0 || !target) return p;
      const r = rules[at(m.rule)] as Rule;
      rules[at(m.rule)] = { ...r, stepKey: "", policyKey: "", policyId: target.id };
      return { ...p, rules };
    }
    case "baselineTo": {
      const target = policies[m.target % policies.length];
      return target ? { ...p, baselinePolicyId: target.id } : p;
    }
    case "dropBaseline": {
      const steps = { ...(p.policySteps ?? {}) };
      delete steps[p.policyType.replace(/^POLICY_TYPE_/, "").toLowerCase()];
      return { ...p, baselinePolicyId: "", policySteps: steps };
    }
    default: {
      const never: never = m;
      return never;
    }
  }
}

/**
 * Applies a mutation to a world (a new world; tasks shared, the old world unchanged).
 *
 * @example
 * ```ts
 * const broken = applyPolicyMutation(world, { kind: "baselineTo", policy: 0, target: 0 }); // a self-reference
 * ```
 */
export function applyPolicyMutation(world: World, m: PolicyMutation): World {
  const policies = world.policies;
  const p = policies[m.policy % Math.max(1, policies.length)];
  if (!p) return world;
  const next = mutateRules(p, m, policies);
  return next === p ? world : replaceInWorld(world, { policies: [next] });
}

/**
 * Options of {@link arbWorld}.
 *
 * @example
 * ```ts
 * arbWorld({ maxTasks: 50, maxRules: 16, maxMutations: 0 });
 * ```
 */
export interface ArbWorldOptions {
  /** At most this many tasks (default 30; at least 1). */
  readonly maxTasks?: number;
  /** At most this many rules per grant policy (default 8, at most 16). */
  readonly maxRules?: number;
  /** At most this many grant policies (default 4). */
  readonly maxPolicies?: number;
  /** At most this many random policy mutations (default 3; 0 for the generator's worlds as they are). */
  readonly maxMutations?: number;
}

/**
 * The parameters a generated world is built from: print them to reproduce a counterexample with
 * {@link worldFromRecipe}.
 *
 * @example
 * ```ts
 * const r: WorldRecipe = { seed: 7, tasks: 10, rulesPerPolicy: 4, policies: 2, matchAt: "last", mutations: [] };
 * ```
 */
export interface WorldRecipe {
  readonly seed: number;
  readonly tasks: number;
  readonly rulesPerPolicy: number;
  readonly policies: number;
  readonly matchAt: "first" | "last" | "none" | "mixed";
  readonly mutations: readonly PolicyMutation[];
}

/**
 * Builds the world a {@link WorldRecipe} describes: a loaded synthetic world (60 users, without
 * task policy snapshots to keep it small), then the mutations in order.
 *
 * @example
 * ```ts
 * const world = worldFromRecipe({ seed: 1, tasks: 5, rulesPerPolicy: 3, policies: 2, matchAt: "mixed", mutations: [] });
 * ```
 */
export function worldFromRecipe(r: WorldRecipe): World {
  const json = syntheticWorld({
    seed: r.seed,
    tasks: r.tasks,
    users: 60,
    rulesPerPolicy: r.rulesPerPolicy,
    policies: r.policies,
    policySnapshots: false,
    ...(r.matchAt === "mixed" ? {} : { matchAt: r.matchAt }),
  });
  const loaded = loadWorld(json);
  // The generator's worlds always load; a failure here is a bug in the generator.
  if (!loaded.ok) throw new Error(`policy-sim internal error: a synthetic world does not load: ${loaded.error[0]?.message ?? ""}`);
  return r.mutations.reduce(applyPolicyMutation, loaded.value);
}

/**
 * Recipes of random worlds (see {@link arbWorld}); shrinking makes them smaller and drops mutations.
 *
 * @example
 * ```ts
 * fc.assert(fc.property(arbWorldRecipe(), (r) => worldFromRecipe(r).tasks.size === r.tasks));
 * ```
 */
export function arbWorldRecipe(options: ArbWorldOptions = {}): fc.Arbitrary<WorldRecipe> {
  return fc.record({
    seed: fc.integer(),
    tasks: fc.integer({ min: 1, max: Math.max(1, options.maxTasks ?? 30) }),
    rulesPerPolicy: fc.integer({ min: 0, max: Math.min(16, Math.max(0, options.maxRules ?? 8)) }),
    policies: fc.integer({ min: 1, max: Math.max(1, options.maxPolicies ?? 4) }),
    matchAt: fc.constantFrom("mixed" as const, "first" as const, "last" as const, "none" as const),
    mutations: fc.array(arbPolicyMutation, { maxLength: Math.max(0, options.maxMutations ?? 3) }),
  });
}

/**
 * Whole consistent worlds of random size and shape, with random policy mutations on top.
 *
 * @example
 * ```ts
 * fc.assert(fc.property(arbWorld({ maxTasks: 10 }), (world) => {
 *   for (const t of world.tasks.values()) decide(world, t); // never throws
 * }));
 * ```
 */
export function arbWorld(options: ArbWorldOptions = {}): fc.Arbitrary<World> {
  return arbWorldRecipe(options).map(worldFromRecipe);
}

/**
 * Tasks inside a given world: one of its own tasks, or a grant (revoke, certify) task built for one
 * of its users and entitlements as they are (no attribute overrides, so the task is valid in the
 * world itself; use `arbTaskSpecIn` and `taskInWorld` to vary the subject too).
 *
 * @example
 * ```ts
 * fc.assert(fc.property(arbTaskIn(world), (task) => decide(world, task).resolution.ok));
 * ```
 */
export function arbTaskIn(world: World, options: Omit<TaskSpecArbOptions, "overrides"> = {}): fc.Arbitrary<Task> {
  const own: Task[] = [...world.tasks.values()];
  const built = world.entitlements.length > 0 && world.users.length > 0
    ? arbTaskSpecIn(world, { ...options, overrides: false }).map((spec) => {
        const r = taskInWorld(world, spec);
        // Specs drawn from the world's own users and entitlements always build.
        if (!r.ok) throw new Error(`policy-sim internal error: ${r.error.message}`);
        return r.value.task;
      })
    : undefined;
  const choices: fc.Arbitrary<Task>[] = [];
  if (own.length > 0) choices.push(fc.constantFrom(...own));
  if (built) choices.push(built);
  if (choices.length === 0) throw new Error("arbTaskIn: the world has no tasks, users or entitlements to build tasks from");
  return fc.oneof(...choices);
}
