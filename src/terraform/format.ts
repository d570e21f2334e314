/**
 * A what-if of a Terraform plan as text for a terminal or as Markdown for a pull-request comment:
 * the plan's policy changes named by their Terraform addresses, then how tasks would route.
 */
import { formatWhatIf, routeLabel, type RouteOutcome, type TaskRouteChange, type WhatIfResult } from "../whatif/index.js";
import type { TerraformPlanEdit, TerraformPolicyChange } from "./policy-changes.js";

/**
 * Options of {@link formatTerraformWhatIf}.
 *
 * @example
 * ```ts
 * formatTerraformWhatIf(edit, result, { format: "markdown", maxTasks: 20 });
 * ```
 */
export interface FormatTerraformWhatIfOptions {
  /** `text` (default) for terminals, `markdown` for a pull-request comment. */
  readonly format?: "text" | "markdown";
  /** List at most this many tasks in detail (default 50); counts and the summary cover all. */
  readonly maxTasks?: number;
  /** A line saying which tasks were compared (the CLI's flags), shown under the heading. */
  readonly scope?: string;
}

const SIGN: Record<TerraformPolicyChange["action"], string> = { create: "+", update: "~", delete: "-", replace: "-/+" };

function policyText(c: TerraformPolicyChange): string {
  const name = c.displayName ? ` "${c.displayName}"` : "";
  if (c.matchedBy === "new") return `new policy${name}`;
  return `${c.policyId}${name}${c.matchedBy === "annotation" ? " (matched by its iac_resource_address annotation)" : ""}`;
}

/** A Markdown table cell: no line breaks, pipes escaped. */
function cell(s: string): string {
  return s.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
}

function code(s: string): string {
  return `\`${s.replace(/`/g, "'")}\``;
}

function outcome(r: RouteOutcome): string {
  if (r.kind === "error") return `${r.stage} error ${r.code}`;
  return routeLabel(r);
}

function markdown(edit: TerraformPlanEdit, result: WhatIfResult, options: FormatTerraformWhatIfOptions): string {
  const max = options.maxTasks ?? 50;
  const c = result.counts;
  const out: string[] = ["### policy-sim: what-if of this Terraform plan", ""];
  out.push(
    c.changed > 0
      ? `**${c.changed} of ${c.inScope} task${c.inScope === 1 ? "" : "s"} would route differently.**`
      : `No task would route differently (${c.inScope} task${c.inScope === 1 ? "" : "s"} compared).`,
  );
  if (options.scope) out.push("", `Scope: ${options.scope}`);
  out.push("", "| Action | Terraform address | Policy |", "|---|---|---|");
  for (const ch of edit.changes) out.push(`| ${ch.action} | ${code(ch.address)} | ${cell(policyText(ch))} |`);
  if (edit.changes.length === 0) out.push("| — | — | the plan changes no conductorone_policy |");
  if (edit.notes.length > 0) out.push("", ...edit.notes.map((n) => `> ${cell(n)}`));
  if (result.summary.length > 0) {
    out.push("", "#### By route", "", "| Tasks | Before | After | What changes |", "|---:|---|---|---|");
    for (const g of result.summary) out.push(`| ${g.count} | ${cell(g.before)} | ${cell(g.after)} | ${g.changes.join(", ")} |`);
  }
  const rows = (list: readonly TaskRouteChange[]): string[] => [
    "| Task | Type | State | Before | After |",
    "|---|---|---|---|---|",
    ...list.slice(0, max).map((t) => `| ${cell(`${t.numericId || t.taskId} ${t.displayName}`)} | ${t.type} | ${t.state.replace(/^TASK_STATE_/, "")} | ${cell(outcome(t.before))} | ${cell(outcome(t.after))} |`),
    ...(list.length > max ? [`| … and ${list.length - max} more | | | | |`] : []),
  ];
  if (result.changed.length > 0) out.push("", `<details><summary>Changed tasks (${result.changed.length})</summary>`, "", ...rows(result.changed), "", "</details>");
  if (result.unchangedErrors.length > 0)
    out.push("", `<details><summary>Tasks that fail before and after (${result.unchangedErrors.length})</summary>`, "", ...rows(result.unchangedErrors), "", "</details>");
  return out.join("\n");
}

/**
 * Renders the what-if of a Terraform plan: each policy change by its Terraform address, then the
 * routes (the library's {@link formatWhatIf} for text; tables and a collapsed task list for
 * Markdown).
 *
 * @example
 * ```ts
 * const edit = terraformPlanEdit(world, plan);
 * if (edit.ok) {
 *   const r = whatIf(world, terraformEditRecipe(edit.value));
 *   if (r.ok) console.log(formatTerraformWhatIf(edit.value, r.value, { format: "markdown" }));
 * }
 * ```
 */
export function formatTerraformWhatIf(edit: TerraformPlanEdit, result: WhatIfResult, options: FormatTerraformWhatIfOptions = {}): string {
  if (options.format === "markdown") return markdown(edit, result, options);
  const out = [`Terraform plan: ${edit.changes.length} policy change${edit.changes.length === 1 ? "" : "s"}`];
  for (const ch of edit.changes) out.push(`  ${SIGN[ch.action].padEnd(3)} ${ch.action.padEnd(7)} ${ch.address} → ${policyText(ch)}`);
  for (const n of edit.notes) out.push(`  note: ${n}`);
  if (options.scope) out.push(`Scope: ${options.scope}`);
  out.push(formatWhatIf(result, options.maxTasks === undefined ? {} : { maxTasks: options.maxTasks }));
  return out.join("\n");
}
