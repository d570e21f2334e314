/**
 * `policy-sim/testing`: what a policy author's test suite needs — vitest matchers
 * (`expect(world).toRoute("1001", { policy: "pol-prod-admin", rule: 2 })`) and table-driven cases
 * whose failures print the explanation of what happened, rule coverage of a suite, described
 * tasks, and a seeded generator of large consistent worlds. Imports neither fast-check nor vitest
 * at run time: the fast-check arbitraries and `diffPolicies` are in `policy-sim/testing/arbitraries`.
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
export { syntheticWorld } from "./synthetic-world.js";
export type { SyntheticWorldOptions, WorldJson } from "./synthetic-world.js";
export { checkApprovers, checkRoute, expectationProblems, routeMismatches } from "./expect-route.js";
export type { ApprovalOptions, RouteCheck, RouteExpectation } from "./expect-route.js";
export { policyMatchers, setupPolicyMatchers } from "./matchers.js";
export type { ExpectLike, MatcherContext, PolicyMatcherResult, PolicyMatchers } from "./matchers.js";
export { policyCases, runPolicyCases } from "./policy-cases.js";
export type { PolicyCase, PolicyCaseResult, PolicyCasesRun } from "./policy-cases.js";
// Coverage of a suite's cases, and described tasks (which matchers and cases take): also in the main entry.
export { formatCoverage, ruleCoverage } from "../whatif/coverage.js";
export type { Coverage, CoverageInput, FormatCoverageOptions } from "../whatif/coverage.js";
export { describeTaskRef, taskInWorld } from "../whatif/task-spec.js";
export type { EntitlementSpec, SubjectSpec, TaskRef, TaskSpec } from "../whatif/task-spec.js";
