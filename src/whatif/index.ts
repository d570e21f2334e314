/**
 * What-if analysis: how tasks would route under an edited world (`whatIf`), and which rules and
 * parts of conditions a set of tasks exercises (`ruleCoverage`). Pure, deterministic, no I/O.
 *
 * `diffPolicies` (a fast-check search for a task two versions of a policy route differently) is
 * exported from `policy-sim/testing/arbitraries` instead: it needs fast-check, an optional peer dependency that
 * the main entry must not require.
 *
 * @example
 * ```ts
 * import { formatWhatIf, whatIf } from "policy-sim";
 * const r = whatIf(world, (w) => { w.tenant.defaultPolicies["grant"] = "pol-strict"; });
 * if (r.ok) console.log(formatWhatIf(r.value));
 * ```
 * @packageDocumentation
 */
export { policyReach } from "./closure.js";
export type { PolicyReach } from "./closure.js";
export { formatCoverage, ruleCoverage } from "./coverage.js";
export type { Coverage, CoverageInput, FormatCoverageOptions, PartCoverage, PolicyCoverage, RuleCoverage } from "./coverage.js";
export { applyEditUnchecked, editImpact } from "./edit.js";
export { editDiagnostics } from "./check-edit.js";
export type { EditableWorld, EditImpact, EditRecipe, VisibleChanges, WorldEdit } from "./edit.js";
export { formatWhatIf } from "./format.js";
export type { FormatWhatIfOptions } from "./format.js";
export { routeLabel, routeOf } from "./route.js";
export type { Route, RouteApprovers, RouteAspect, RouteError, RouteInput, RouteOutcome } from "./route.js";
export { describeTaskRef, taskInWorld } from "./task-spec.js";
export type { EntitlementSpec, SubjectSpec, TaskInWorld, TaskRef, TaskSpec } from "./task-spec.js";
export { applyEdit, mergeWhatIfResults, prepareWhatIf, whatIf, whatIfWorlds } from "./what-if.js";
export type { EditSummary, RouteGroup, TaskKind, TaskRouteChange, TaskScope, WhatIfOptions, WhatIfResult } from "./what-if.js";
