/**
 * `policy-sim/testing/arbitraries`: fast-check arbitraries for every model type (wire JSON and
 * model), for whole consistent worlds (with random policy mutations) and for tasks inside a world,
 * and `diffPolicies`, a seeded search for a task two versions of a policy route differently. Needs
 * `fast-check` (an optional peer dependency, needed by this subpath only); the matchers and
 * table-driven cases of `policy-sim/testing` import without it.
 *
 * @example
 * ```ts
 * import fc from "fast-check";
 * import { arbWorld, arbTaskIn } from "policy-sim/testing/arbitraries";
 * fc.assert(fc.property(arbWorld(), (world) => world.tasks.size >= 0));
 * ```
 * @packageDocumentation
 */
export {
  arbCommentRequest,
  arbCommentResponse,
  arbDurationString,
  arbForm,
  arbHardResetRequest,
  arbHardResetResponse,
  arbPolicy,
  arbPolicyInstance,
  arbPolicyStep,
  arbRfc3339,
  arbTask,
  arbTaskView,
  arbUnknownEnumMember,
  arbWireCommentRequest,
  arbWireCommentResponse,
  arbWireForm,
  arbWireHardResetRequest,
  arbWireHardResetResponse,
  arbWireOf,
  arbWirePolicy,
  arbWirePolicyInstance,
  arbWirePolicyStep,
  arbWireTask,
  arbWireTaskView,
  jsonEqual,
} from "./arbitraries.js";
export {
  applyPolicyMutation,
  arbPolicyMutation,
  arbTaskIn,
  arbWorld,
  arbWorldRecipe,
  worldFromRecipe,
} from "./arb-world.js";
export type { ArbWorldOptions, PolicyMutation, WorldRecipe } from "./arb-world.js";
export { arbSubjectIn, arbTaskSpecIn } from "../whatif/arb-task-spec.js";
export type { TaskSpecArbOptions } from "../whatif/arb-task-spec.js";
export { diffPolicies } from "../whatif/diff-policies.js";
export type { DiffPoliciesOptions, PolicyDiff } from "../whatif/diff-policies.js";
