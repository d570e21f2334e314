/**
 * A what-if result as text: what the edit changed, the counts, the summary by route, and each
 * changed task with its route before and after.
 */
import { quoted } from "../text/quoted.js";
import { approversSummary } from "../workflow/approvers.js";
import { routeLabel, type RouteOutcome } from "./route.js";
import type { TaskRouteChange, WhatIfResult } from "./what-if.js";

/**
 * Options of {@link formatWhatIf}.
 *
 * @example
 * ```ts
 * formatWhatIf(result, { maxTasks: 20 });
 * ```
 */
export interface FormatWhatIfOptions {
  /** List at most this many tasks in detail: a whole number from 0, or Infinity (default, and for anything else, 50); the summary always covers all. */
  readonly maxTasks?: number;
}

function detail(r: RouteOutcome): string {
  if (r.kind === "error") return `${r.stage} error ${r.code}: ${r.message}`;
  const first = r.firstStep ? `${r.firstStep.detail}${r.approvers ? ` → ${approversSummary({ kind: r.firstStep.detail, ...r.approvers })}` : ""}` : "no steps";
  return `${routeLabel(r)}; first step: ${first}`;
}

function task(c: TaskRouteChange): string[] {
  const head = `  ${c.numericId || c.taskId} ${quoted(c.displayName)} (${c.type}, ${c.state})${c.changes.length > 0 ? ` — ${c.changes.join(", ")}` : ""}`;
  if (c.changes.length === 0) return [head, `      ${detail(c.before)}`];
  return [head, `      before: ${detail(c.before)}`, `      after:  ${detail(c.after)}`];
}

/**
 * Renders a what-if result for terminals and reports.
 *
 * @example
 * ```ts
 * const r = whatIf(world, (w) => { w.tenant.defaultPolicies["grant"] = "pol-it-standard"; });
 * if (r.ok) console.log(formatWhatIf(r.value)); // "Edit: tenant settings" …
 * ```
 */
export function formatWhatIf(result: WhatIfResult, options: FormatWhatIfOptions = {}): string {
  if (typeof result !== "object" || result === null) throw new TypeError(`formatWhatIf: expected a WhatIfResult (whatIf's value), not ${result === null ? "null" : typeof result}`);
  const asked = options.maxTasks ?? 50;
  // A count of tasks: a whole number from 0 (Infinity lists all); anything else is the default.
  const max = asked === Number.POSITIVE_INFINITY || (Number.isSafeInteger(asked) && asked >= 0) ? asked : 50;
  const e = result.edit;
  const c = result.counts;
  const out: string[] = [];
  const edited = [
    e.policies.length > 0 ? `policies ${e.policies.join(", ")}` : "",
    e.entitlements.length > 0 ? `entitlements ${e.entitlements.join(", ")}` : "",
    e.apps.length > 0 ? `apps ${e.apps.join(", ")}` : "",
    e.users.length > 0 ? `users ${e.users.join(", ")}` : "",
    e.tenant ? "tenant settings" : "",
    e.now ? "the clock" : "",
  ].filter((x) => x !== "");
  out.push(`Edit: ${edited.length > 0 ? edited.join("; ") : "nothing"}`);
  const refused = e.saveErrors ?? [];
  if (refused.length > 0) {
    out.push(`Warning: the service would refuse to save this edit (${refused.length} error${refused.length === 1 ? "" : "s"}); the routes below are what the edit would do if it were saved:`);
    for (const f of refused.slice(0, 5)) out.push(`  ${f.policyId} ${f.code} at ${f.path}: ${f.message}`);
    if (refused.length > 5) out.push(`  … and ${refused.length - 5} more`);
  }
  // A typo'd value reads back and routes as an unknown one: "no change" may be for that reason.
  const warned = e.warnings ?? [];
  for (const w of warned.slice(0, 5)) out.push(`Warning: ${w.path}: ${w.message}`);
  if (warned.length > 5) out.push(`  … and ${warned.length - 5} more warnings`);
  out.push(
    `Tasks: ${c.inScope} in scope of ${c.inWorld}; ${c.changed} changed, ${c.unchanged} unchanged` +
      (c.unchangedErrors > 0 ? `, ${c.unchangedErrors} fail before and after` : ""),
  );
  if (result.summary.length > 0) {
    out.push("");
    out.push("By route (before → after):");
    for (const g of result.summary) {
      out.push(`  ${String(g.count).padStart(6)}  ${g.before}`);
      out.push(`          → ${g.after}${g.changes.length > 0 ? `  [${g.changes.join(", ")}]` : ""}`);
    }
  }
  const sections: [string, readonly TaskRouteChange[]][] = [
    ["Changed tasks", result.changed],
    ["Tasks that fail before and after", result.unchangedErrors],
  ];
  for (const [title, list] of sections) {
    if (list.length === 0) continue;
    out.push("");
    out.push(`${title}:`);
    for (const x of list.slice(0, max)) out.push(...task(x));
    if (list.length > max) out.push(`  … and ${list.length - max} more`);
  }
  return out.join("\n");
}
