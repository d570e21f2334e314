/**
 * vitest (and Jest-compatible) matchers for policy tests: `expect(world).toRoute("1001", { policy:
 * "pol-prod-admin", rule: 2 })`. A failing assertion prints what differs and the formatted
 * explanation of what happened instead, so the fix is usually visible in the message.
 *
 * Nothing here imports vitest at run time: a matcher needs only `this.isNot` and returns
 * `{ pass, message }`, so this module loads without vitest installed. The types that put the
 * matchers on vitest's `expect(…)` are an opt-in declaration file, `vitest.d.ts` beside this one.
 */
import type { World } from "../world/world.js";
import type { TaskRef } from "../whatif/task-spec.js";
import { type ApprovalOptions, cannotCheck, checkApprovers, checkRoute, isWorld, type RouteCheck, type RouteExpectation } from "./expect-route.js";

/**
 * The part of vitest's (and Jest's) matcher state the policy matchers use.
 *
 * @example
 * ```ts
 * policyMatchers.toUsePolicy.call({ isNot: false }, world, "1001", "pol-prod-admin").pass; // true
 * ```
 */
export interface MatcherContext {
  readonly isNot: boolean;
}

/**
 * What a matcher returns, as vitest and Jest expect it.
 *
 * @example
 * ```ts
 * const r: PolicyMatcherResult = { pass: true, message: () => "" };
 * ```
 */
export interface PolicyMatcherResult {
  readonly pass: boolean;
  readonly message: () => string;
}

/**
 * The policy matchers' signatures on an assertion (`R` is what the assertion returns).
 *
 * @example
 * ```ts
 * expect(world).toRoute("1001", { policy: "pol-prod-admin", rule: 2 });
 * expect(world).toRouteToStep("1001", "5650fd2e-58bd-4dab-a08a-7314c0a4d8a3");
 * expect(world).toRequireApprovalFrom("1001", ["u-sre-lead"]);
 * expect(world).toUsePolicy("1001", "pol-prod-admin");
 * ```
 */
export interface PolicyMatchers<R = unknown> {
  /** The task's route meets every field of `expected` (see {@link RouteExpectation}). */
  toRoute(task: TaskRef, expected: RouteExpectation): R;
  /** The selected step sequence is the one keyed `stepKey`. */
  toRouteToStep(task: TaskRef, stepKey: string): R;
  /** An approval step (the first by default) is reviewed by exactly these users, order aside. */
  toRequireApprovalFrom(task: TaskRef, userIds: readonly string[], options?: ApprovalOptions): R;
  /** Resolution picks `policyId` for the task. */
  toUsePolicy(task: TaskRef, policyId: string): R;
}

// The `declare module "vitest"` augmentation that types `expect(world).toRoute(...)` lives in
// vitest.d.ts beside this file: the declaration build cannot resolve "vitest" (an optional peer),
// so users add the same three lines to their own setup types (README, "Test your policies").

function result(ctx: MatcherContext | undefined, received: unknown, run: (world: World) => RouteCheck): PolicyMatcherResult {
  // Called unbound (`const { toRoute } = policyMatchers`), there is no negation to honour.
  const isNot = ctx?.isNot === true;
  if (!isWorld(received)) {
    // A wrong receiver fails whether negated or not: `expect(x).not.toRoute(…)` on a non-world is a mistake.
    const message = () => `expected a World (from loadWorld) as the received value, got ${received === null ? "null" : typeof received}`;
    return { pass: isNot, message };
  }
  const c = run(received);
  // A check that cannot be made fails whether negated or not: `.not.toRoute(t, {})` is a mistake
  // too, and so is `.not.toRoute` of a request naming a user who does not exist.
  if (c.invalid === true) return { pass: isNot, message: () => (isNot ? c.negatedMessage : c.message) };
  return { pass: c.pass, message: () => (isNot ? c.negatedMessage : c.message) };
}

/** A matcher called without an argument it needs: an expectation of nothing would pass, or say "empty". */
function missing(call: string, what: string): RouteCheck {
  return cannotCheck([`${what} is missing`], `${call}: ${what} is missing`);
}

/**
 * The matchers, for `expect.extend(policyMatchers)`.
 *
 * @example
 * ```ts
 * import { expect } from "vitest";
 * import { policyMatchers } from "policy-sim/testing";
 * expect.extend(policyMatchers);
 * expect(world).toRoute({ subject: { id: "u-contractor" }, entitlement: { appId: "app-aws", id: "ent-aws-prod-admin" } },
 *   { policy: "pol-prod-admin", rule: 2 });
 * ```
 */
export const policyMatchers = {
  toRoute(this: MatcherContext, received: unknown, task: TaskRef, expected: RouteExpectation): PolicyMatcherResult {
    return result(this, received, (w) => checkRoute(w, task, expected));
  },
  toRouteToStep(this: MatcherContext, received: unknown, task: TaskRef, stepKey: string): PolicyMatcherResult {
    return result(this, received, (w) => (stepKey === undefined ? missing("toRouteToStep(task, stepKey)", "the step key") : checkRoute(w, task, { stepKey })));
  },
  toRequireApprovalFrom(this: MatcherContext, received: unknown, task: TaskRef, userIds: readonly string[], options?: ApprovalOptions): PolicyMatcherResult {
    return result(this, received, (w) => checkApprovers(w, task, userIds, options ?? {}));
  },
  toUsePolicy(this: MatcherContext, received: unknown, task: TaskRef, policyId: string): PolicyMatcherResult {
    return result(this, received, (w) => (policyId === undefined ? missing("toUsePolicy(task, policyId)", "the policy id") : checkRoute(w, task, { policy: policyId })));
  },
};

/**
 * Anything with an `extend` method taking matchers: vitest's or Jest's `expect`.
 *
 * @example
 * ```ts
 * import { expect } from "vitest";
 * const e: ExpectLike = expect;
 * ```
 */
export interface ExpectLike {
  extend(matchers: typeof policyMatchers): void;
}

/**
 * Registers {@link policyMatchers} on `expect` (vitest's or Jest's), or on the global `expect` when
 * none is passed (vitest with `globals: true`, Jest). Throws when there is no `expect` to extend: a
 * mistake in the test setup, not a test failure.
 *
 * @example
 * ```ts
 * // vitest.setup.ts
 * import { expect } from "vitest";
 * import { setupPolicyMatchers } from "policy-sim/testing";
 * setupPolicyMatchers(expect);
 * ```
 */
export function setupPolicyMatchers(expect?: ExpectLike): void {
  const target = expect ?? (globalThis as { expect?: Partial<ExpectLike> }).expect;
  if (!target || typeof target.extend !== "function")
    throw new Error("setupPolicyMatchers: pass vitest's (or Jest's) `expect`, or enable the test runner's globals");
  target.extend(policyMatchers);
}
