/**
 * `diffPolicies`: does an edit to a policy change where any task goes? A seeded fast-check search
 * over described tasks inside the world ({@link arbTaskSpecIn}: subjects with attributes taken from
 * the world and from the literals the two versions test, entitlements with their risk level varied,
 * origins, emergency access, grant durations) for one that the two versions route differently; the
 * counterexample is shrunk to the fewest overrides that still show the difference.
 *
 * The policy is handed in, not resolved: each version selects steps for the task exactly as
 * `decide` does once resolution has picked it (`taskConditions`, then `selectSteps`), in the world
 * with that version installed, so references to other policies and the tenant flag apply as usual.
 *
 * Needs fast-check (an optional peer dependency of `policy-sim/testing/arbitraries`, which re-exports this module).
 */
import fc from "fast-check";
import type { Policy } from "../model/index.js";
import { selectSteps } from "../policy/select-steps.js";
import { taskConditions } from "../policy/task-conditions.js";
import type { SimError } from "../reducers/errors.js";
import { err, ok, type Result } from "../result.js";
import { replaceInWorld, type World } from "../world/world.js";
import { arbTaskSpecIn } from "./arb-task-spec.js";
import { RouteComparer, type RouteAspect, type RouteInput, routeOf, type RouteOutcome } from "./route.js";
import { type TaskSpec, taskInWorld } from "./task-spec.js";

/**
 * Options of {@link diffPolicies}.
 *
 * @example
 * ```ts
 * diffPolicies(world, before, after, { seed: 7, numRuns: 2000 });
 * ```
 */
export interface DiffPoliciesOptions {
  /** The search's seed (default 42): the same seed, world and policies give the same answer. */
  readonly seed?: number;
  /** How many tasks to try (default 500). */
  readonly numRuns?: number;
  /** The kind of task to describe (default: from the policy type — revoke, certify, else grant). */
  readonly kind?: "grant" | "revoke" | "certify";
  /** The entitlements to request (default: every entitlement of the world). */
  readonly entitlements?: readonly { readonly appId: string; readonly id: string }[];
}

/**
 * What {@link diffPolicies} found: a task the versions route differently (shrunk), or none.
 *
 * @example
 * ```ts
 * if (d.kind === "different") console.log(describeTaskRef(d.spec), routeLabel(d.before), "→", routeLabel(d.after));
 * ```
 */
export type PolicyDiff =
  | {
      readonly kind: "different";
      /** The shrunk task: build it with `taskInWorld(world, spec)`. */
      readonly spec: TaskSpec;
      readonly before: RouteOutcome;
      readonly after: RouteOutcome;
      readonly changes: readonly RouteAspect[];
      /** Tasks tried before the first difference, and shrinking steps taken. */
      readonly runs: number;
      readonly shrinks: number;
      readonly seed: number;
    }
  | { readonly kind: "none"; readonly runs: number; readonly seed: number };

function defaultKind(policy: Policy): "grant" | "revoke" | "certify" {
  if (policy.policyType === "POLICY_TYPE_REVOKE") return "revoke";
  if (policy.policyType === "POLICY_TYPE_CERTIFY") return "certify";
  return "grant";
}

/** The route input of `policy` (as installed in `world`) for a described task. */
function inputFor(world: World, policy: Policy, spec: TaskSpec): { world: World; input: RouteInput } | undefined {
  const built = taskInWorld(world, spec);
  if (!built.ok) return undefined;
  const { world: w, task } = built.value;
  const conditions = taskConditions(w, task);
  return {
    world: w,
    input: { task, resolution: { ok: true, policyId: policy.id, source: "given" }, selection: selectSteps(w, policy, conditions), conditions },
  };
}

/**
 * Searches for a task that `before` and `after` (two versions of one policy) route differently:
 * another rule or baseline, step key, chain, step sequence or first-step approvers, or an error on
 * one side only. `after` is evaluated under `before`'s id, so references to the policy resolve to
 * the version being evaluated. Deterministic for a seed. Never throws; a world without entitlements
 * is an `INVALID_ARGUMENT`.
 *
 * @example
 * ```ts
 * const before = world.index.policies.get("pol-prod-admin")!;
 * const after = { ...before, rules: before.rules!.filter((_, i) => i !== 2) };
 * const d = diffPolicies(world, before, after);
 * if (d.ok && d.value.kind === "different") console.log(d.value.spec, d.value.changes);
 * ```
 */
export function diffPolicies(world: World, before: Policy, after: Policy, options: DiffPoliciesOptions = {}): Result<PolicyDiff, SimError> {
  try {
    const seed = options.seed ?? 42;
    const numRuns = Math.max(1, Math.floor(options.numRuns ?? 500));
    const second = after.id === before.id ? after : { ...after, id: before.id };
    const w0 = replaceInWorld(world, { policies: [before] });
    const w1 = replaceInWorld(world, { policies: [second] });
    if (world.entitlements.length === 0 && !options.entitlements?.length)
      return err({ code: "INVALID_ARGUMENT", message: "diffPolicies needs a world with at least one entitlement to request", field: "world" });
    const arb = arbTaskSpecIn(world, {
      policies: [before, after],
      kind: options.kind ?? defaultKind(before),
      ...(options.entitlements ? { entitlements: options.entitlements } : {}),
    });
    const comparer = new RouteComparer(w0, w1);
    const differs = (spec: TaskSpec): boolean => {
      const a = inputFor(w0, before, spec);
      const b = inputFor(w1, second, spec);
      if (!a || !b) return false;
      return comparer.aspects(a.input, b.input).length > 0 || comparer.approversDiffer(a.world, a.input, b.world, b.input);
    };
    const details = fc.check(
      fc.property(arb, (spec) => !differs(spec)),
      { seed, numRuns },
    );
    const found = details.counterexample?.[0];
    if (!details.failed || found === undefined) return ok({ kind: "none", runs: details.numRuns, seed });
    const a = inputFor(w0, before, found);
    const b = inputFor(w1, second, found);
    if (!a || !b) return err({ code: "INTERNAL", message: "policy-sim internal error: the counterexample no longer builds a task" });
    const beforeRoute = routeOf(a.world, a.input);
    const afterRoute = routeOf(b.world, b.input);
    const changes = comparer.aspects(a.input, b.input);
    if (comparer.approversDiffer(a.world, a.input, b.world, b.input) && !changes.includes("approvers")) changes.push("approvers");
    return ok({ kind: "different", spec: found, before: beforeRoute, after: afterRoute, changes, runs: details.numRuns, shrinks: details.numShrinks, seed });
  } catch (e: unknown) {
    return err({ code: "INTERNAL", message: `policy-sim internal error: ${e instanceof Error ? e.message : String(e)}` });
  }
}
