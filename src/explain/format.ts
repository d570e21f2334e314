/**
 * An {@link Explanation} as text for terminals and REPLs: resolution sources, every rule with a
 * caret under the part of its condition that made it false or failed, the values of its parts,
 * the chain, the selected steps and their approvers. Colour only when asked (the CLI asks on a TTY).
 */
import type { ConfigRuleEvaluation } from "../policy/config-rules.js";
import { approversSummary } from "../workflow/approvers.js";
import type { Explanation, ExplainedCondition, ExplainedNode, RuleExplanation } from "./explain.js";
import { DESCRIBED_TASK_ID } from "../whatif/task-spec.js";
import { quoted } from "../text/quoted.js";
import { ENVIRONMENT_SPECS } from "../cel/index.js";

/**
 * Options of {@link formatExplanation}.
 *
 * @example
 * ```ts
 * formatExplanation(e, { color: process.stdout.isTTY });
 * ```
 */
export interface FormatOptions {
  /** ANSI colours; off by default so text is stable in files, tests and pipes. */
  readonly color?: boolean;
  /** Show the values of every sub-expression, not only of the deciding rules. */
  readonly verbose?: boolean;
}

type Paint = (code: string, s: string) => string;

function painter(color: boolean): Paint {
  return color ? (code, s) => `\u001b[${code}m${s}\u001b[0m` : (_code, s) => s;
}

/** The source line of a span, with a caret line under it. */
function caret(source: string, start: number, end: number): [string, string] {
  const lineStart = source.lastIndexOf("\n", start - 1) + 1;
  const lineEndAt = source.indexOf("\n", start);
  const lineEnd = lineEndAt === -1 ? source.length : lineEndAt;
  const line = source.slice(lineStart, lineEnd);
  const from = start - lineStart;
  const to = Math.min(Math.max(end, start + 1), lineEnd) - lineStart;
  return [line, " ".repeat(from) + "^".repeat(Math.max(1, to - from))];
}

/** A sub-expression written over several lines (as the expressions reference writes its ternaries), on one. */
export function oneLine(text: string): string {
  return text.includes("\n") ? text.replace(/\s*\n\s*/g, " ") : text;
}

/**
 * Whether a sub-expression's value is one a reader wants told: a field selection or a call
 * (`entitlement.scope.display_name`, `now()`), not a literal word, and not a bare variable
 * (`subject` prints the whole object: noise unless everything is asked for).
 */
export function readsAValue(text: string): boolean {
  return /^[A-Za-z_][\w.]*(\(.*\))?$/s.test(text) && !/^(true|false|null)$/.test(text) && !/^[A-Za-z_]\w*$/.test(text);
}

/** Values of the leaves a reader cares about: field selections, identifiers, calls. */
function partValues(t: ExplainedCondition, all: boolean): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const n of t.nodes) {
    if (n.parent === -1 && !all) continue;
    if (!all && !readsAValue(n.text)) continue;
    // A constant that reads as its own value (`TaskOrigin.COPILOT`, `"Security"`) says nothing new.
    if (seen.has(n.text) || n.display === n.text) continue;
    seen.add(n.text);
    out.push(`${oneLine(n.text)} = ${n.outcome === "not-evaluated" ? `(not evaluated: ${n.display})` : n.display}`);
  }
  return out;
}

/** A literal operand, whose value the text already shows. */
const LITERAL = /^(".*"|-?\d+(\.\d+)?|true|false|null)$/s;

/** Explained nodes are listed by id (pre-order), so the id is usually the index; else search. */
function nodeById(t: ExplainedCondition, id: number): ExplainedNode | undefined {
  const at = t.nodes[id];
  return at?.id === id ? at : t.nodes.find((n) => n.id === id);
}

function formatRule(r: RuleExplanation, deciding: boolean, paint: Paint, verbose: boolean): string[] {
  const lines: string[] = [];
  const mark = r.error ? paint("33", "!") : r.conditionMatched ? paint("32", "✓") : paint("31", "✗");
  if (r.ruleIndex < 0) {
    const target = r.outcomePolicyId ? `baselinePolicyId → ${r.outcomePolicyId}` : `baseline "${r.stepKey}"`;
    lines.push(`  ${mark} baseline: no rule matched → ${target}${r.error ? paint("33", `  (${r.error})`) : ""}`);
    return lines;
  }
  const outcome = r.stepKey ? `stepKey ${r.stepKey}` : r.outcomePolicyId ? `policyId ${r.outcomePolicyId}` : r.policyKey ? `policyKey ${r.policyKey} (legacy)` : "no outcome";
  // Most conditions are one line; the replace (a regex over every rule) only runs for the others.
  lines.push(`  ${mark} #${r.ruleIndex}  ${r.condition.includes("\n") ? r.condition.replace(/\s*\n\s*/g, " ") : r.condition}`);
  lines.push(`       → ${outcome}${r.conditionMatched ? paint("32", "  matched") : ""}`);
  const t = r.trace;
  if (t && t.culprit !== null) {
    const node = nodeById(t, t.culprit);
    if (node) {
      const [src, under] = caret(r.condition, node.span.start, node.span.end);
      lines.push(`       ${src}`);
      // Beside the caret, the values the culprit compared: "is false (subject.department = "Eng")".
      // A field read that is false tells its own value; its operand (`task` = Task("…")) says nothing more.
      const why = node.outcome === "value" && FIELD_READ.test(node.text) ? "" : operandValues(t, node.id);
      lines.push(`       ${paint(r.error ? "33" : "31", under)} ${node.outcome === "error" ? paint("33", node.display + why) : `is ${node.display}${why}`}`);
    }
  } else if (r.error) {
    lines.push(`       ${paint("33", r.error)}`);
  }
  if (t && (deciding || verbose)) {
    const values = partValues(t, verbose);
    // One value a line: a rule's sub-expressions on one line ran past any terminal's width.
    if (values.length > 0) lines.push(`       ${paint("2", "values:")}`, ...values.map((v) => `         ${paint("2", v)}`));
  }
  if (r.error && t && t.culprit === null) lines.push(`       ${paint("33", r.error)}`);
  if (t) for (const id of t.absorbed) lines.push(`       ${paint("33", absorbedNote(t, id))}`);
  return lines;
}

/**
 * Why an operand's error did not decide its rule: `&&` is false, and `||` true, when either side
 * is, whatever the other (CEL's error-absorbing logic).
 */
function absorbedNote(t: ExplainedCondition, id: number): string {
  const node = nodeById(t, id);
  const parent = node ? nodeById(t, node.parent) : undefined;
  if (!node || !parent) return "";
  const op = parent.display === "false" ? "&&" : "||";
  const decider = t.nodes.find((n) => n.parent === parent.id && n.id !== id && n.display === parent.display);
  const because = decider ? `${oneLine(decider.text)} is ${decider.display}, and ` : "";
  return `absorbed: ${oneLine(node.text)} failed (${node.display}) but did not decide the rule: ${because}${op} with a ${parent.display} side is ${parent.display}`;
}

/** The variables of every kind of expression; any other bare name is a comprehension's iteration variable. */
const CONTEXT_VARIABLES: ReadonlySet<string> = new Set(Object.values(ENVIRONMENT_SPECS).flatMap((spec) => Object.keys(spec.variables)));
const isIterationVariable = (text: string): boolean => /^[A-Za-z_]\w*$/.test(text) && !CONTEXT_VARIABLES.has(text);

/** A plain field read or index (`subject.profile["level"]`): told by its value, never broken down. */
const FIELD_READ = /^[\w.]+(?:\[(?:"[^"]*"|'[^']*'|\d+)\])*(?:\.[\w]+)*$/;

/**
 * The values a node's operands had, for beside its caret: `(subject.department = "Eng")`. An operand
 * that is itself true or false (the sides of a false `||`) is told by its own operands' values, so
 * `a >= 18 || a < 7` reads `(a = 10)`, not `(a >= 18 = false; a < 7 = false)`. Each text once.
 */
function operandValues(t: ExplainedCondition, id: number): string {
  const out: string[] = [];
  const seen = new Set<string>();
  // An iteration variable (`k` of `exists(k, …)`) holds only the last element tried: not a value the rule read.
  const told = (n: ExplainedNode): boolean => n.outcome === "value" && !LITERAL.test(n.text) && n.display !== n.text && !isIterationVariable(n.text);
  const add = (text: string, display: string): void => {
    if (seen.has(text)) return;
    seen.add(text);
    out.push(`${text} = ${display}`);
  };
  // Down through true/false operands (a chain `a || b || c` nests), a few levels at most.
  const visit = (parent: number, depth: number): void => {
    for (const n of t.nodes) {
      if (n.parent !== parent || !told(n)) continue;
      // A predicate over an iteration variable (`k == "nope"`) is its last element's result, not the rule's reason.
      if (t.nodes.some((c) => c.parent === n.id && isIterationVariable(c.text))) continue;
      // A comparison, logical operator or call, not a field read (`subject.isAdmin` is told as it is).
      const composite = (n.display === "true" || n.display === "false") && !FIELD_READ.test(n.text);
      if (composite && depth < 4 && t.nodes.some((c) => c.parent === n.id && told(c))) visit(n.id, depth + 1);
      else add(oneLine(n.text), n.display);
    }
  };
  visit(id, 0);
  return out.length > 0 ? ` (${out.join("; ")})` : "";
}

/**
 * Renders an explanation as text.
 *
 * @example
 * ```ts
 * const r = explain(world, "1001");
 * if (r.ok) process.stdout.write(formatExplanation(r.value, { color: process.stdout.isTTY }) + "\n");
 * ```
 */
export function formatExplanation(e: Explanation, options: FormatOptions = {}): string {
  if (typeof e !== "object" || e === null) throw new TypeError(`formatExplanation: expected an Explanation (explain's value), not ${e === null ? "null" : typeof e}`);
  const paint = painter(options.color === true);
  const bold = (s: string) => paint("1", s);
  const out: string[] = [];
  const t = e.task;
  // A described request is no task yet: its placeholder numericId (0) would read as a task's.
  const described = t.id === DESCRIBED_TASK_ID && t.numericId === "0";
  const name = quoted(t.displayName);
  const title = described ? `Request (not a task yet) ${name}` : `Task ${t.numericId || t.id} ${name}`;
  out.push(bold(title) + ` (${t.type || "no type"}${described ? "" : `, ${t.state}`}${t.emergencyAccess ? ", emergency access" : ""})`);
  if (e.subject) {
    // A described subject may have no name or email: no empty "<>" and no id twice.
    const { id, displayName, email } = e.subject;
    out.push(`  subject: ${displayName || id}${email ? ` <${email}>` : ""}${displayName ? ` (${id})` : ""}`);
  }
  out.push(`  evaluated at ${e.now}${t.currentPolicyId ? `; the task now carries policy ${t.currentPolicyId}` : described ? "" : "; the task carries no policy yet"}`);
  // Where the task is, apart from where selection would put it: the rules below are what a Hard Reset would start.
  const at = t.currentStep;
  if (at) {
    const waiting = at.kind !== "approval" ? "" : at.approverIds.length > 0 ? `, waiting on ${at.approverIds.join(", ")}` : ", no one assigned to approve it";
    out.push(`  it is at step ${at.position} of ${at.of} (${at.kind}${waiting}); what follows is where selection would start it now (a Hard Reset)`);
  }
  out.push("");

  if (e.resolution.ok) out.push(bold(`Policy ${e.resolution.policyId}`) + ` "${e.resolution.policyName}" — from ${e.resolution.source}`);
  else out.push(bold("No policy") + ` — ${e.resolution.code}: ${e.resolution.message}`);
  for (const c of e.resolution.checks) {
    const mark = c.status === "used" ? paint("32", "✓") : c.status === "missing" ? paint("31", "✗") : c.status === "notReached" ? paint("2", "·") : paint("2", "–");
    out.push(`  ${mark} ${c.source.padEnd(19)} ${c.status === "notReached" ? paint("2", c.detail) : c.detail}`);
    for (const r of c.configRules ?? []) out.push(`      ${formatConfigRule(r)}`);
  }

  if (e.rules.length > 0) {
    out.push("");
    out.push(bold("Rules evaluated") + " (first match wins)");
    const decidingIndex = e.rules.length - 1;
    let policyId = "";
    // The rules first match left unevaluated, after the evaluated ones of their policy.
    const rest = (id: string): void => {
      for (const n of e.notEvaluated ?? [])
        if (n.policyId === id) out.push(`  ${paint("2", `· #${n.ruleIndex}  ${n.condition.replace(/\s*\n\s*/g, " ")}`)}`, `       ${paint("2", `→ ${n.outcome}  not evaluated (an earlier rule matched)`)}`);
    };
    e.rules.forEach((r, i) => {
      if (r.policyId !== policyId) {
        if (policyId !== "") rest(policyId);
        policyId = r.policyId;
        out.push(`  ${paint("36", `policy ${policyId}`)}${r.chainDepth > 0 ? ` (chain depth ${r.chainDepth})` : ""}`);
      }
      out.push(...formatRule(r, i === decidingIndex || r.conditionMatched, paint, options.verbose === true));
    });
    rest(policyId);
  }

  if (e.chain.length > 1) {
    out.push("");
    out.push(bold("Reference chain"));
    for (const l of e.chain) {
      const via = l.via.kind === "root" ? "the task's policy" : l.via.kind === "rule" ? `rule #${l.via.ruleIndex} of ${l.via.fromPolicyId}` : `baselinePolicyId of ${l.via.fromPolicyId}`;
      out.push(`  ${"  ".repeat(l.chainDepth)}${l.policyId}  ${paint("2", `(${via})`)}`);
    }
  }

  out.push("");
  const r = e.result;
  switch (r.kind) {
    case "selected": {
      const d = r.decidedBy;
      const by = d.kind === "rule" ? `rule #${d.ruleIndex} of ${d.policyId} → ${d.field === "policyKey" ? "policyKey (legacy)" : "stepKey"} ${d.stepKey}` : `the baseline "${d.stepKey}" of ${d.policyId}`;
      out.push(bold("Selected: ") + by);
      for (const s of r.steps) {
        const a = e.approvers.find((x) => x.stepIndex === s.index);
        const who = a ? (a.via === "skipped" ? paint("33", `  → ${approversSummary(a)}`) : `  → ${approversSummary(a)}`) : "";
        out.push(`  ${s.index + 1}. ${s.detail}${who}`);
        if (a && options.verbose) for (const n of a.notes) out.push(`       ${paint("2", n)}`);
      }
      if (r.steps.length === 0) out.push("  (no steps: the policy completes at once)");
      break;
    }
    case "error":
      out.push(paint("31", bold(`Cannot select steps: ${r.code}`)) + ` — ${r.message}`);
      break;
    case "noPolicy":
      out.push(paint("31", bold("No policy applies")) + ` — ${r.message}`);
      break;
    default: {
      const never: never = r;
      return never;
    }
  }
  if (e.policyWouldChange && e.resolution.ok)
    out.push(paint("33", `A Hard Reset would move the task from ${t.currentPolicyId} to ${e.resolution.policyId}.`));
  return out.join("\n");
}

/** One configuration rule under its source, like a policy rule: its condition, outcome and values. */
function formatConfigRule(r: ConfigRuleEvaluation): string {
  const condition = r.condition.trim() === "" ? "(empty: matches every entitlement)" : oneLine(r.condition.trim());
  const s = r.settings;
  const values = s
    ? `requestPolicyId=${JSON.stringify(s.requestPolicyId)} emergencyGrantEnabled=${s.emergencyGrantEnabled}` +
      `${s.emergencyGrantEnabled ? ` emergencyGrantPolicyId=${JSON.stringify(s.emergencyGrantPolicyId)}` : ""}` +
      `${s.maxGrantDuration ? ` maxGrantDuration=${s.maxGrantDuration}` : ""}`
    : "no settings";
  const read = r.values && r.values.length > 0 ? ` (${r.values.map(oneLine).join("; ")})` : "";
  const outcome = `${r.outcome === "error" ? `error: ${r.detail}` : r.outcome}${read}`;
  return `config rule ${r.priority} "${r.ruleId}"${r.displayName ? ` ${quoted(r.displayName)}` : ""} when ${condition} → ${outcome}; ${values}`;
}
