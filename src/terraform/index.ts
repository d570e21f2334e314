/**
 * What-if of a Terraform plan: the `conductorone_policy` changes of `terraform show -json` output
 * as an edit of a world (the API's Policy JSON, decoded by the codec), and the report naming each
 * change by its Terraform address. Pure: no I/O.
 *
 * @example
 * ```ts
 * import { formatTerraformWhatIf, terraformEditRecipe, terraformPlanEdit, whatIf } from "policy-sim";
 * const edit = terraformPlanEdit(world, JSON.parse(planJson));
 * if (edit.ok) {
 *   const r = whatIf(world, terraformEditRecipe(edit.value));
 *   if (r.ok) console.log(formatTerraformWhatIf(edit.value, r.value, { format: "markdown" }));
 * }
 * ```
 * @packageDocumentation
 */
export { camelCase, policyAttributesToApi } from "./attributes.js";
export type { PlanDiagnostic, PlanDiagnosticCode } from "./attributes.js";
export type { AttributeDifference } from "./differences.js";
export { formatTerraformWhatIf } from "./format.js";
export type { FormatTerraformWhatIfOptions } from "./format.js";
export { readPlan } from "./plan.js";
export { parsePlanFile } from "./plan-file.js";
export type { PlanAction, PlannedPolicyChange, PolicyPlan } from "./plan.js";
export { IAC_ADDRESS_ANNOTATION, terraformEditRecipe, terraformPlanEdit } from "./policy-changes.js";
export type { PolicyMatch, TerraformPlanEdit, TerraformPolicyChange } from "./policy-changes.js";
