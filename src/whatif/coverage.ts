/**
 * Rule coverage: over a set of tasks (a test suite's cases, or a tenant's open tasks), how often each
 * rule of each policy was evaluated, matched and errored, and, for every sub-expression of every
 * condition, whether it was ever true and ever false — so a policy author sees what the cases never
 * exercised ("the clearance test was never false: no case has a Security user without high
 * clearance"). Counts come from the traces of `decide(…, { trace: true })`, the same evaluation that
 * routes the task.
 */
import { describeArgument, describeValue } from "../codec/diagnostic.js";
import type { TraceRecord, TraceTruth } from "../cel/trace-record.js";
import { traceRecordOf } from "../cel/trace.js";
import type { Policy, Task } from "../model/index.js";
import { decide } from "../policy/decide.js";
import { isRealTimestamp, utcTimestamp } from "../codec/schema.js";
import { isWorld, replaceInWorld, type World } from "../world/world.js";
import { type TaskRef, taskInWorld } from "./task-spec.js";

/**
 * One input of {@link ruleCoverage}: a task object, a task id or numericId, a described task, or
 * anything carrying one under `task` (a policy test case). A `now` beside it (a policy test case's
 * own clock, RFC 3339) is the clock its conditions read, as the case ran; else the world's.
 *
 * @example
 * ```ts
 * const inputs: CoverageInput[] = ["1001", { task: "1002", now: "2026-11-23T22:30:00Z" }, { entitlement: { appId: "app-aws", id: "ent-aws-prod-admin" } }];
 * ```
 */
export type CoverageInput = Task | TaskRef | { readonly task: TaskRef; readonly now?: string };

/**
 * Coverage of one sub-expression of a condition. Evaluations inside a comprehension count once each.
 *
 * @example
 * ```ts
 * const gap = part.boolean && (part.trueCount === 0 || part.falseCount === 0);
 * ```
 */
export interface PartCoverage {
  /** The node's id in the condition's trace (pre-order, the whole condition is 0). */
  readonly id: number;
  readonly text: string;
  readonly span: { readonly start: number; readonly end: number };
  /** Nesting depth under the whole condition (0). */
  readonly depth: number;
  /** Whether it ever produced a boolean (only those have a "true" and a "false" side). */
  readonly boolean: boolean;
  readonly trueCount: number;
  readonly falseCount: number;
  readonly errorCount: number;
  /** Non-boolean values. */
  readonly valueCount: number;
  /** Times the rule was evaluated but CEL skipped this part (short-circuit, branch not taken…). */
  readonly notEvaluatedCount: number;
}

/**
 * Coverage of one rule.
 *
 * @example
 * ```ts
 * if (rule.evaluated === 0) console.log(`rule #${rule.ruleIndex} was never reached`);
 * ```
 */
export interface RuleCoverage {
  readonly ruleIndex: number;
  readonly condition: string;
  /** Tasks whose selection evaluated the rule. */
  readonly evaluated: number;
  /** Tasks for which the condition held. */
  readonly matched: number;
  /** Evaluations with an error: a condition failing at run time, or a match that could not be followed. */
  readonly errored: number;
  /** Tasks the rule routed: it matched and selection went on from it to a step sequence (by its step key or through its reference). */
  readonly selected: number;
  /** Per sub-expression (literals and bare variables left out); empty when never evaluated or not compiling. */
  readonly parts: readonly PartCoverage[];
}

/**
 * Coverage of one policy.
 *
 * @example
 * ```ts
 * for (const p of coverage.policies) console.log(p.policyId, p.reached);
 * ```
 */
export interface PolicyCoverage {
  readonly policyId: string;
  readonly displayName: string;
  /** Tasks whose selection walked this policy (as the resolved policy or through a reference). */
  readonly reached: number;
  readonly rules: readonly RuleCoverage[];
  /** Tasks that fell through to the baseline (entry or `baselinePolicyId`). */
  readonly baseline: number;
}

/**
 * Rule coverage over a set of tasks.
 *
 * @example
 * ```ts
 * const c = ruleCoverage(world, ["1001", "1002"]);
 * console.log(formatCoverage(c));
 * ```
 */
export interface Coverage {
  readonly kind: "coverage";
  /** Tasks decided. */
  readonly tasks: number;
  /** Every policy of the world, in world order (then policies met only in task snapshots). */
  readonly policies: readonly PolicyCoverage[];
  /** Inputs that could not be turned into a task, with why. */
  readonly skipped: readonly { readonly input: string; readonly message: string }[];
}

interface PartAcc {
  id: number;
  text: string;
  span: { start: number; end: number };
  depth: number;
  boolean: boolean;
  trueCount: number;
  falseCount: number;
  errorCount: number;
  valueCount: number;
  notEvaluatedCount: number;
}

interface RuleAcc {
  condition: string;
  evaluated: number;
  matched: number;
  errored: number;
  selected: number;
  parts: Map<number, PartAcc> | null;
}

interface PolicyAcc {
  policy: Policy;
  reached: number;
  rules: RuleAcc[];
  baseline: number;
}

function isTask(x: CoverageInput): x is Task {
  return typeof x === "object" && x !== null && "numericId" in x && "policyGenerationId" in x;
}

/** A skipped input as JSON, or its kind where JSON cannot say it (a bigint, a cycle). */
function inputText(x: unknown): string {
  try {
    return JSON.stringify(x) ?? describeValue(x);
  } catch {
    return describeValue(x);
  }
}

function refOf(x: CoverageInput): TaskRef {
  // Not an object: `taskInWorld` says why it is no task.
  if (typeof x !== "object" || x === null) return x;
  if ("task" in x && (typeof x.task === "string" || (typeof x.task === "object" && x.task !== null))) return x.task;
  // A policy test case describing its request inline: the request without the case's own keys
  // (which a described task does not have, and `taskInWorld` refuses).
  const { name: _name, expect: _expect, now: _now, ...request } = x as Exclude<TaskRef, string> & { readonly name?: unknown; readonly expect?: unknown; readonly now?: unknown };
  return request;
}

/** The input's own clock (a policy test case's `now`), when it is a real timestamp. */
function clockOf(x: CoverageInput): string | undefined {
  if (typeof x !== "object" || x === null || !("now" in x)) return undefined;
  const now: unknown = (x as { readonly now?: unknown }).now;
  return isRealTimestamp(now) ? now : undefined;
}

function count(acc: PartAcc, t: TraceTruth): void {
  switch (t) {
    case "true":
      acc.trueCount++;
      acc.boolean = true;
      return;
    case "false":
      acc.falseCount++;
      acc.boolean = true;
      return;
    case "value":
      acc.valueCount++;
      return;
    case "error":
      acc.errorCount++;
      return;
    case "not-evaluated":
      acc.notEvaluatedCount++;
      return;
    default: {
      const never: never = t;
      return never;
    }
  }
}

/** Counts each node's outcome straight from the trace's record: coverage needs its truth, never its display. */
function record(rule: RuleAcc, r: TraceRecord): void {
  const parts = (rule.parts ??= new Map());
  const { kinds, texts, positions, depths, size } = r.table;
  for (let id = 0; id < size; id++) {
    // Literals and bare variables are never "true sometimes, false other times" in a useful sense.
    const kind = kinds[id];
    if (kind === "literal" || kind === "identifier") continue;
    let acc = parts.get(id);
    if (!acc) {
      const span = positions[id]?.span ?? { start: 0, end: 0 };
      acc = { id, text: texts[id] ?? "", span: { start: span.start, end: span.end }, depth: depths[id] ?? 0, boolean: false, trueCount: 0, falseCount: 0, errorCount: 0, valueCount: 0, notEvaluatedCount: 0 };
      parts.set(id, acc);
    }
    const iterations = r.iterationTruths(id);
    if (iterations !== null) for (const t of iterations) count(acc, t);
    else count(acc, r.truth(id));
  }
}

/**
 * Decides every input with traces on and counts, per policy and rule, evaluations, matches, errors
 * and selections, and per sub-expression its true, false, error and skipped outcomes. Every policy
 * of the world is listed, so rules no input reached show up with zero counts. Inputs that do not
 * resolve to a task are reported in `skipped`. Given something that is not a loaded World, or
 * inputs that are not iterable, it throws a `TypeError` saying so (a programming error, as for the
 * other helpers that take loaded model objects; README, "Embed it").
 *
 * @example
 * ```ts
 * const c = ruleCoverage(world, [...world.tasks.values()].filter((t) => t.state === "TASK_STATE_OPEN"));
 * const never = c.policies.flatMap((p) => p.rules.filter((r) => r.evaluated === 0).map((r) => `${p.policyId}#${r.ruleIndex}`));
 * ```
 */
export function ruleCoverage(world: World, inputs: Iterable<CoverageInput>): Coverage {
  if (!isWorld(world)) throw new TypeError(`ruleCoverage: world must be a World (load it with loadWorld first), not ${describeArgument(world)}`);
  if (typeof (inputs as Partial<Iterable<unknown>> | null | undefined)?.[Symbol.iterator] !== "function")
    throw new TypeError(`ruleCoverage: inputs must be an iterable of tasks or task specs, not ${describeArgument(inputs)}`);
  const byPolicy = new Map<Policy, PolicyAcc>();
  const order: PolicyAcc[] = [];
  const accOf = (p: Policy): PolicyAcc => {
    let acc = byPolicy.get(p);
    if (!acc) {
      acc = {
        policy: p,
        reached: 0,
        rules: (p.rules ?? []).map((r) => ({ condition: r.condition, evaluated: 0, matched: 0, errored: 0, selected: 0, parts: null })),
        baseline: 0,
      };
      byPolicy.set(p, acc);
      order.push(acc);
    }
    return acc;
  };
  for (const p of world.policies) accOf(p);
  const skipped: { input: string; message: string }[] = [];
  let tasks = 0;

  for (const input of inputs) {
    let w = world;
    let task: Task;
    if (isTask(input)) task = input;
    else {
      const clock = clockOf(input);
      const r = taskInWorld(clock === undefined ? world : replaceInWorld(world, { now: utcTimestamp(clock) }), refOf(input));
      if (!r.ok) {
        skipped.push({ input: typeof input === "string" ? input : inputText(input), message: r.error.message });
        continue;
      }
      w = r.value.world;
      task = r.value.task;
    }
    tasks++;
    const d = decide(w, task, { trace: true });
    const sel = d.selection;
    if (!sel) continue;
    const evaluations = sel.ok ? sel.value.evaluations : sel.error.evaluations;
    // Policies of a described task's world are the world's own objects (only users and entitlements
    // are replaced), so counts land on the same accumulators; the resolved root may be a snapshot.
    const policyById = (id: string): Policy | undefined => w.index.policies.get(id) ?? (d.resolution.ok && d.resolution.value.policy.id === id ? d.resolution.value.policy : undefined);
    const seen = new Set<string>();
    let trace = 0;
    for (const e of evaluations) {
      const policy = policyById(e.policyId);
      const acc = policy ? accOf(policy) : undefined;
      if (acc && !seen.has(e.policyId)) {
        seen.add(e.policyId);
        acc.reached++;
      }
      if (e.ruleIndex < 0) {
        if (acc) acc.baseline++;
        continue;
      }
      // Selection runs each rule's condition once, in order, so the n-th rule evaluation owns the n-th trace.
      const t = d.traces[trace++];
      const rule = acc?.rules[e.ruleIndex];
      if (!rule) continue;
      rule.evaluated++;
      if (e.conditionMatched) rule.matched++;
      if (e.error !== "") rule.errored++;
      // First match wins: a clean match decides at its depth, by a step key or by the reference it follows.
      if (e.conditionMatched && e.error === "" && sel.ok) rule.selected++;
      const r = traceRecordOf(t);
      if (r) record(rule, r);
    }
  }

  return {
    kind: "coverage",
    tasks,
    policies: order.map((p) => ({
      policyId: p.policy.id,
      displayName: p.policy.displayName,
      reached: p.reached,
      baseline: p.baseline,
      rules: p.rules.map((r, ruleIndex) => ({
        ruleIndex,
        condition: r.condition,
        evaluated: r.evaluated,
        matched: r.matched,
        errored: r.errored,
        selected: r.selected,
        parts: r.parts ? [...r.parts.values()].sort((a, b) => a.id - b.id).map((x) => ({ ...x, span: { ...x.span } })) : [],
      })),
    })),
    skipped,
  };
}

/**
 * Options of {@link formatCoverage}.
 *
 * @example
 * ```ts
 * formatCoverage(c, { onlyGaps: true });
 * ```
 */
export interface FormatCoverageOptions {
  /** Show only policies with something unexercised (default false). */
  readonly onlyGaps?: boolean;
  /** Leave out the detail of policies no task reached, naming them in one line (default false). */
  readonly hideUnreached?: boolean;
}

function gapOf(p: PartCoverage): string {
  if (!p.boolean) return p.errorCount > 0 ? "errors" : "";
  if (p.trueCount === 0 && p.falseCount === 0) return "never evaluated";
  if (p.trueCount === 0) return "never true";
  if (p.falseCount === 0) return "never false";
  return "";
}

function ruleGaps(r: RuleCoverage): boolean {
  return r.evaluated === 0 || r.matched === 0 || r.matched === r.evaluated || r.parts.some((p) => gapOf(p) !== "");
}

/**
 * Renders coverage as text: per policy, per rule, its counts, and per boolean sub-expression
 * whether it was ever true (T) and ever false (F), with what was never exercised spelled out.
 *
 * @example
 * ```ts
 * console.log(formatCoverage(ruleCoverage(world, cases)));
 * // policy pol-prod-admin "Production administrator access" — reached by 3 tasks, baseline 0
 * //   #0 evaluated 3, matched 1, selected 1, errors 0
 * //      T F  subject.department == "Security" && subject.profile.clearance == "high"
 * //      T F    subject.department == "Security"
 * //      T ·    subject.profile.clearance == "high"   never false
 * ```
 */
export function formatCoverage(c: Coverage, options: FormatCoverageOptions = {}): string {
  const out: string[] = [];
  out.push(`Rule coverage over ${c.tasks} task${c.tasks === 1 ? "" : "s"}`);
  for (const p of c.policies) {
    if (options.hideUnreached && p.reached === 0) continue;
    if (options.onlyGaps && !p.rules.some(ruleGaps) && p.baseline > 0) continue;
    out.push("");
    out.push(`policy ${p.policyId}${p.displayName ? ` "${p.displayName}"` : ""} — reached by ${p.reached} task${p.reached === 1 ? "" : "s"}, baseline ${p.baseline}${p.reached > 0 && p.baseline === 0 ? " (never fell through)" : ""}`);
    for (const r of p.rules) {
      if (options.onlyGaps && !ruleGaps(r)) continue;
      const condition = r.condition.replace(/\s*\n\s*/g, " ");
      if (r.evaluated === 0) {
        out.push(`  #${r.ruleIndex} never evaluated: ${condition}`);
        continue;
      }
      const note = r.matched === 0 ? "  never matched" : r.matched === r.evaluated ? "  always matched" : "";
      out.push(`  #${r.ruleIndex} evaluated ${r.evaluated}, matched ${r.matched}, selected ${r.selected}, errors ${r.errored}${note}`);
      if (r.parts.length === 0) {
        out.push(`       ${condition}`);
        continue;
      }
      for (const part of r.parts) {
        if (!part.boolean && part.errorCount === 0 && part.depth > 0) continue;
        const t = part.trueCount > 0 ? "T" : "·";
        const f = part.falseCount > 0 ? "F" : "·";
        const gap = gapOf(part);
        const errors = part.errorCount > 0 && gap !== "errors" ? ` (${part.errorCount} error${part.errorCount === 1 ? "" : "s"})` : "";
        out.push(`     ${t} ${f}  ${"  ".repeat(part.depth)}${part.text.replace(/\s*\n\s*/g, " ")}${gap ? `   ${gap}` : ""}${errors}`);
      }
    }
  }
  if (options.hideUnreached) {
    // Left out of the detail, but named: a policy no case reached is a gap too.
    const unreached = c.policies.filter((p) => p.reached === 0).map((p) => p.policyId);
    if (unreached.length > 0) {
      const shown = unreached.slice(0, 20).join(", ");
      out.push("", `No task reached ${unreached.length} polic${unreached.length === 1 ? "y" : "ies"}: ${shown}${unreached.length > 20 ? `, … and ${unreached.length - 20} more` : ""}`);
    }
  }
  if (c.skipped.length > 0) {
    out.push("");
    out.push(`Skipped ${c.skipped.length} input${c.skipped.length === 1 ? "" : "s"}:`);
    for (const s of c.skipped) out.push(`  ${s.input}: ${s.message}`);
  }
  return out.join("\n");
}
