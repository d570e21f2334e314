/**
 * A what-if of a Terraform plan as text for a terminal or as Markdown for a pull-request comment:
 * the plan's policy changes named by their Terraform addresses, then how tasks would route.
 */
import { formatWhatIf, type RouteGroup, routeLabel, type RouteOutcome, type TaskRouteChange, type WhatIfResult } from "../whatif/index.js";
import { pathKey, planPathOf } from "./attributes.js";
import { type AttributeDifference, differenceText } from "./differences.js";
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
  // A delete the world has no policy for (matched by nothing) deletes nothing here: it is no new policy.
  if (c.matchedBy === "new" && c.action === "delete") return `${c.policyId}${name} (not in the world: nothing to delete)`;
  if (c.matchedBy === "new") return `new policy${name}${c.replaces ? ` replacing ${c.replaces} (deleted)` : ""}`;
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

/** How many differences to list under one task or route; the count of the rest follows. */
const SHOWN_DIFFERENCES = 3;

/**
 * What differs in the steps a changed task takes, when its route reads the same before and after
 * (the steps are compared whole, their one-line summaries leave details out): the differences under
 * the deciding policy's step key, or else those of every policy on the chain.
 */
function hiddenDifferences(edit: TerraformPlanEdit, before: RouteOutcome, after: RouteOutcome): readonly AttributeDifference[] {
  if (before.kind !== "route" || after.kind !== "route") return [];
  const of = (id: string): readonly AttributeDifference[] => edit.changes.find((c) => c.policyId === id)?.differences ?? [];
  const steps = pathKey("$.policy_steps", after.decidedBy.stepKey);
  const under = of(after.decidedBy.policyId).filter((d) => d.path === steps || d.path.startsWith(`${steps}.`) || d.path.startsWith(`${steps}[`));
  return under.length > 0 ? under : after.chain.flatMap(of);
}

function differenceLines(diffs: readonly AttributeDifference[]): string[] {
  const shown = diffs.slice(0, SHOWN_DIFFERENCES).map(differenceText);
  return diffs.length > SHOWN_DIFFERENCES ? [...shown, `… and ${diffs.length - SHOWN_DIFFERENCES} more`] : shown;
}

/** Whether the text report prints a task's route the same before and after. */
function printsSame(t: TaskRouteChange): boolean {
  const [a, b] = [t.before, t.after];
  if (a.kind !== "route" || b.kind !== "route") return false;
  const approvers = (r: typeof a): string => (r.approvers ? `${r.approvers.via} ${r.approvers.userIds.join(",")} ${r.approvers.reason ?? ""}` : "");
  return routeLabel(a) === routeLabel(b) && a.firstStep?.detail === b.firstStep?.detail && approvers(a) === approvers(b);
}

/** The first task of a route group, whose differences stand for the group's. */
function groupTask(result: WhatIfResult, g: RouteGroup): TaskRouteChange | undefined {
  const id = g.taskIds[0];
  return result.changed.find((t) => t.taskId === id);
}

/**
 * The library's text report with, under each route and task that reads the same before and after,
 * the differences that make it change.
 */
function withHiddenDifferences(text: string, edit: TerraformPlanEdit, result: WhatIfResult, max: number): string {
  const lines = text.split("\n");
  const insertAfter = (i: number, diffs: readonly AttributeDifference[], indent: string): void => {
    if (i >= 0 && diffs.length > 0) lines.splice(i + 1, 0, ...differenceLines(diffs).map((d) => `${indent}differs in: ${d}`));
  };
  for (const g of result.summary) {
    const t = groupTask(result, g);
    if (g.before !== g.after || t === undefined) continue;
    const i = lines.findIndex((l, j) => l === `  ${String(g.count).padStart(6)}  ${g.before}` && lines[j + 1]?.startsWith(`          → ${g.after}`) === true);
    insertAfter(i < 0 ? -1 : i + 1, hiddenDifferences(edit, t.before, t.after), "            ");
  }
  for (const t of result.changed.slice(0, max)) {
    if (!printsSame(t)) continue;
    const head = lines.findIndex((l) => l.startsWith(`  ${t.numericId || t.taskId} "`));
    insertAfter(head < 0 ? -1 : lines.findIndex((l, j) => j > head && l.startsWith("      after:")), hiddenDifferences(edit, t.before, t.after), "      ");
  }
  return lines.join("\n");
}

/** A Markdown "after" cell: the route as text, and what differs when it reads as the one before. */
function afterCell(edit: TerraformPlanEdit, before: RouteOutcome, after: RouteOutcome, afterText: string, beforeText: string): string {
  if (afterText !== beforeText) return cell(afterText);
  const diffs = hiddenDifferences(edit, before, after);
  return diffs.length === 0 ? cell(afterText) : `${cell(afterText)}<br>differs in: ${differenceLines(diffs).map((d) => cell(code(d))).join(", ")}`;
}

/** How many of the service's save errors the Markdown report lists; the count of the rest follows. */
const SHOWN_SAVE_ERRORS = 5;

/**
 * What the service's refusal of the plan's changes is called: a policy it would not save, or a
 * setting naming a policy that does not exist (`UNKNOWN_POLICY`, not any policy's error).
 */
function refusedHeadline(refused: readonly { readonly code: string }[]): string {
  const n = refused.length;
  const policies = refused.filter((f) => f.code !== "UNKNOWN_POLICY").length;
  const what = policies === n ? (n === 1 ? "save this policy" : "save these policies") : "apply these changes";
  const would = policies === n ? "the broken policy would do" : "the changes would do";
  return `the service would refuse to ${what} (${n} error${n === 1 ? "" : "s"}): the apply fails, and the routes below are what ${would}`;
}

/** The Terraform address that writes a policy (a created one's id is its address already). */
function addressOf(edit: TerraformPlanEdit, policyId: string): string {
  return edit.changes.find((c) => c.policyId === policyId)?.address ?? policyId;
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
  for (const w of edit.warnings ?? []) out.push("", "> [!WARNING]", `> ${cell(w)}`);
  const refused = result.edit.saveErrors ?? [];
  if (refused.length > 0) {
    const headline = refusedHeadline(refused);
    out.push("", "> [!CAUTION]", `> ${headline.charAt(0).toUpperCase()}${headline.slice(1)}.`);
    for (const f of refused.slice(0, SHOWN_SAVE_ERRORS))
      out.push(f.code === "UNKNOWN_POLICY" ? `> - ${f.code}: ${cell(f.message)}` : `> - ${code(addressOf(edit, f.policyId))} ${f.code} at ${code(planPathOf(f.path))}: ${cell(f.message)}`);
    if (refused.length > SHOWN_SAVE_ERRORS) out.push(`> - … and ${refused.length - SHOWN_SAVE_ERRORS} more`);
  }
  if (options.scope) out.push("", `Scope: ${options.scope}`);
  out.push("", "| Action | Terraform address | Policy |", "|---|---|---|");
  for (const ch of edit.changes) out.push(`| ${ch.action} | ${code(ch.address)} | ${cell(policyText(ch))} |`);
  if (edit.changes.length === 0) out.push("| — | — | the plan changes no conductorone_policy |");
  if (edit.notes.length > 0) out.push("", ...edit.notes.map((n) => `> ${cell(n)}`));
  if (result.summary.length > 0) {
    out.push("", "#### By route", "", "| Tasks | Before | After | What changes |", "|---:|---|---|---|");
    for (const g of result.summary) {
      const t = groupTask(result, g);
      const after = t === undefined ? cell(g.after) : afterCell(edit, t.before, t.after, g.after, g.before);
      out.push(`| ${g.count} | ${cell(g.before)} | ${after} | ${g.changes.join(", ")} |`);
    }
  }
  const rows = (list: readonly TaskRouteChange[]): string[] => [
    "| Task | Type | State | Before | After |",
    "|---|---|---|---|---|",
    ...list
      .slice(0, max)
      .map(
        (t) =>
          `| ${cell(`${t.numericId || t.taskId} ${t.displayName}`)} | ${t.type} | ${t.state.replace(/^TASK_STATE_/, "")} | ${cell(outcome(t.before))} | ${t.changes.length > 0 ? afterCell(edit, t.before, t.after, outcome(t.after), outcome(t.before)) : cell(outcome(t.after))} |`,
      ),
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
  for (const w of edit.warnings ?? []) out.push(`  WARNING: ${w}`);
  for (const ch of edit.changes) out.push(`  ${SIGN[ch.action].padEnd(3)} ${ch.action.padEnd(7)} ${ch.address} → ${policyText(ch)}`);
  for (const n of edit.notes) out.push(`  note: ${n}`);
  // Lint errors by Terraform address and plan path, as the Markdown report names them (not by the
  // API's field names, which formatWhatIf prints for edits written in them).
  const { saveErrors: refused = [], ...rest } = result.edit;
  if (refused.length > 0) {
    out.push(`Warning: ${refusedHeadline(refused)}:`);
    for (const f of refused.slice(0, SHOWN_SAVE_ERRORS)) out.push(f.code === "UNKNOWN_POLICY" ? `  ${f.code}: ${f.message}` : `  ${addressOf(edit, f.policyId)} ${f.code} at ${planPathOf(f.path)}: ${f.message}`);
    if (refused.length > SHOWN_SAVE_ERRORS) out.push(`  … and ${refused.length - SHOWN_SAVE_ERRORS} more`);
  }
  if (options.scope) out.push(`Scope: ${options.scope}`);
  const max = options.maxTasks ?? 50;
  const shown: WhatIfResult = refused.length > 0 ? { ...result, edit: { ...rest, saveErrors: [] } } : result;
  out.push(withHiddenDifferences(formatWhatIf(shown, options.maxTasks === undefined ? {} : { maxTasks: max }), edit, result, max));
  return out.join("\n");
}
