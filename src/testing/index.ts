/**
 * `policy-sim/testing`: what a policy author's test suite needs — vitest matchers
 * (`expect(world).toRoute("1001", { policy: "pol-prod-admin", rule: 2 })`) and table-driven cases
 * whose failures print the explanation of what happened; `diffPolicies`, a seeded search for a task
 * two versions of a policy route differently; fast-check arbitraries for every model type, for
 * whole consistent worlds (with random policy mutations) and for tasks inside a world; and a seeded
 * generator of large consistent worlds. Needs `fast-check` (a peer dependency of this subpath);
 * does not import vitest at run time.
 *
 * @example
 * ```ts
 * import { expect, it } from "vitest";
 * import { policyCases, setupPolicyMatchers } from "policy-sim/testing";
 * setupPolicyMatchers(expect);
 * expect(world).toRoute("1001", { policy: "pol-prod-admin", rule: 2 });
 * it.each(policyCases(world, [{ name: "contractor", task: "1001", expect: { rule: 2 } }]))("$name", (c) => c.assert());
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
export { syntheticWorld } from "./synthetic-world.js";
export type { SyntheticWorldOptions, WorldJson } from "./synthetic-world.js";
export {
  applyPolicyMutation,
  arbPolicyMutation,
  arbTaskIn,
  arbWorld,
  arbWorldRecipe,
  worldFromRecipe,
} from "./arb-world.js";
export type { ArbWorldOptions, PolicyMutation, WorldRecipe } from "./arb-world.js";
export { checkApprovers, checkRoute, routeMismatches } from "./expect-route.js";
export type { ApprovalOptions, RouteCheck, RouteExpectation } from "./expect-route.js";
export { policyMatchers, setupPolicyMatchers } from "./matchers.js";
export type { ExpectLike, MatcherContext, PolicyMatcherResult, PolicyMatchers } from "./matchers.js";
export { policyCases, runPolicyCases } from "./policy-cases.js";
export type { PolicyCase, PolicyCaseResult, PolicyCasesRun } from "./policy-cases.js";
// Built on fast-check, so exported here rather than from the main entry (see src/whatif/index.ts).
export { arbSubjectIn, arbTaskSpecIn } from "../whatif/arb-task-spec.js";
export type { TaskSpecArbOptions } from "../whatif/arb-task-spec.js";
export { diffPolicies } from "../whatif/diff-policies.js";
export type { DiffPoliciesOptions, PolicyDiff } from "../whatif/diff-policies.js";
// Coverage of a suite's cases, and described tasks (which matchers and cases take): also in the main entry.
export { formatCoverage, ruleCoverage } from "../whatif/coverage.js";
export type { Coverage, CoverageInput, FormatCoverageOptions } from "../whatif/coverage.js";
export { describeTaskRef, taskInWorld } from "../whatif/task-spec.js";
export type { EntitlementSpec, SubjectSpec, TaskRef, TaskSpec } from "../whatif/task-spec.js";
