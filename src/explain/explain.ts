/**
 * `explain`: what a Hard Reset would choose for a task now, and why — as data first (a tree tests can
 * assert on, JSON-safe for `--json`), text second (`formatExplanation`). It renders the same
 * {@link decide} that Hard Reset acts on, with traces turned on; there is no second code path.
 */
import type { SourcePosition } from "../cel/diagnostics.js";
import type { ConditionTrace } from "../cel/index.js";
import { formatCelValue } from "../cel/index.js";
import type { TraceRecord } from "../cel/trace-record.js";
import { traceCondition, traceRecordOf } from "../cel/trace.js";
import { compileCondition, prepareConfigRuleInput } from "../cel/index.js";
import type { ConfigRuleEvaluation } from "../policy/config-rules.js";
import { readsAValue } from "./format.js";
import type { PolicyStep, Task } from "../model/index.js";
import { ruleOutcome } from "../model/policy.js";
import { decide } from "../policy/decide.js";
import type { PolicySource, SourceCheck } from "../policy/resolve-policy.js";
import type { ChainLink, DecidedBy, RuleEvaluation } from "../policy/select-steps.js";
import { notAWorld, type SimError } from "../reducers/errors.js";
import { err, ok, type Result } from "../result.js";
import { type ApproverResolution, resolveApprovers } from "../workflow/approvers.js";
import { findEntitlement, findTask, TASK_GUESS_LIMIT, taskNames, type World } from "../world/world.js";
import { didYouMean } from "../text/closest.js";
import { type SubjectSpec, type TaskSpec, taskInWorld } from "../whatif/task-spec.js";

/** A hypothetical request: its subject must exist unless described in full, its entitlement must exist. */
function explainRequest(world: World, request: HypotheticalRequest): Result<Explanation, SimError> {
  const { subject, ...rest } = request;
  if (typeof subject === "string" && !world.index.users.has(subject)) return err({ code: "NOT_FOUND", message: `user "${subject}" not found${world.index.users.size <= TASK_GUESS_LIMIT ? didYouMean(subject, world.index.users.keys()) : ""}`, field: "subject" });
  // A missing subject (from untyped callers) is taskInWorld's to refuse, with what to write.
  const spec = { ...rest, ...(subject === undefined || subject === null ? {} : { subject: typeof subject === "string" ? { id: subject } : subject }) } as TaskSpec;
  const built = taskInWorld(world, spec);
  if (!built.ok) return built;
  return ok(explainTask(built.value.world, built.value.task));
}

/**
 * One sub-expression of a condition with its value, JSON-safe.
 *
 * @example
 * ```ts
 * const n: ExplainedNode = { id: 1, parent: 0, text: "subject.department", span: { start: 0, end: 18 },
 *   line: 1, column: 1, outcome: "value", display: '"Engineering"', value: "Engineering" };
 * ```
 */
export interface ExplainedNode {
  readonly id: number;
  /** The enclosing sub-expression's id; -1 for the whole condition. */
  readonly parent: number;
  readonly text: string;
  readonly span: { readonly start: number; readonly end: number };
  readonly line: number;
  readonly column: number;
  readonly outcome: "value" | "error" | "not-evaluated";
  /** The value or error as CEL would print it; the reason when not evaluated. */
  readonly display: string;
  /** The value when it is a JSON scalar (bool, string, number); absent otherwise. */
  readonly value?: boolean | string | number | null;
}

/**
 * The sub-expressions of one evaluated condition, and which of them made it false or errored.
 *
 * @example
 * ```ts
 * const culprit = t.nodes.find((n) => n.id === t.culprit);
 * ```
 */
export interface ExplainedCondition {
  readonly nodes: readonly ExplainedNode[];
  /** The smallest sub-expression responsible for a false or failed result; null when it matched. */
  readonly culprit: number | null;
  /**
   * Operands that failed without deciding the result: an `&&` or `||` beside them came to true or
   * false anyway (`error && false` is false, `error || true` is true, as in CEL). Ids, in order.
   */
  readonly absorbed: readonly number[];
}

/**
 * An evaluated rule in the service's audit shape, with the values of its condition's parts.
 *
 * @example
 * ```ts
 * for (const r of e.rules) console.log(r.ruleIndex, r.conditionMatched, r.error);
 * ```
 */
export interface RuleExplanation extends RuleEvaluation {
  /** Null for the baseline entry and for conditions that did not compile. */
  readonly trace: ExplainedCondition | null;
}

/**
 * A rule left unevaluated because an earlier rule of its policy matched (first match wins).
 *
 * @example
 * ```ts
 * const r: NotEvaluatedRule = { policyId: "pol-prod-admin", ruleIndex: 3, condition: "subject.department == \"Engineering\"", outcome: "policyId pol-prod-admin-eng" };
 * ```
 */
export interface NotEvaluatedRule {
  readonly policyId: string;
  readonly ruleIndex: number;
  readonly condition: string;
  /** Where it would have led: `stepKey …`, `policyId …` or `policyKey … (legacy)`. */
  readonly outcome: string;
}

/** The rules after the last one evaluated in each policy of the chain (see {@link Explanation.notEvaluated}). */
function rulesNotEvaluated(world: World, chain: readonly ChainLink[], evaluations: readonly RuleEvaluation[]): NotEvaluatedRule[] {
  const out: NotEvaluatedRule[] = [];
  for (const link of chain) {
    const policy = world.index.policies.get(link.policyId);
    if (!policy) continue;
    let last = -1;
    let baseline = false;
    for (const e of evaluations)
      if (e.policyId === link.policyId) {
        if (e.ruleIndex < 0) baseline = true;
        else last = Math.max(last, e.ruleIndex);
      }
    // Every rule ran when the baseline was reached; none after an error that stopped selection is "not evaluated" either.
    if (baseline || last < 0) continue;
    (policy.rules ?? []).forEach((rule, ruleIndex) => {
      if (ruleIndex <= last) return;
      const o = ruleOutcome(rule);
      const outcome = o.kind === "policyId" ? `policyId ${o.policyId}` : o.kind === "policyKey" ? `policyKey ${o.stepKey} (legacy)` : o.kind === "stepKey" ? `stepKey ${o.stepKey}` : "no outcome";
      out.push({ policyId: link.policyId, ruleIndex, condition: rule.condition, outcome });
    });
  }
  return out;
}

/**
 * One step of the selected sequence, summarised for reading.
 *
 * @example
 * ```ts
 * const s: StepSummary = { index: 0, kind: "approval", detail: "manager approval" };
 * ```
 */
export interface StepSummary {
  readonly index: number;
  readonly kind: string;
  readonly detail: string;
}

/**
 * Who would review an approval step of the selected sequence.
 *
 * @example
 * ```ts
 * const a: StepApprovers = { stepIndex: 0, kind: "manager", userIds: ["u-bob"], via: "primary", notes: [] };
 * ```
 */
export interface StepApprovers extends ApproverResolution {
  readonly stepIndex: number;
}

/**
 * Why a policy was chosen for a task: resolution sources, every rule evaluated with its value and
 * the values of its parts, the reference chain, the selected steps and their approvers.
 *
 * @example
 * ```ts
 * const r = explain(world, "1001");
 * if (r.ok && r.value.result.kind === "selected") console.log(r.value.result.decidedBy);
 * ```
 */
export interface Explanation {
  readonly kind: "explanation";
  /** The clock the conditions were evaluated at. */
  readonly now: string;
  readonly task: {
    readonly id: string;
    readonly numericId: string;
    readonly displayName: string;
    readonly type: string;
    readonly state: string;
    readonly emergencyAccess: boolean;
    /** The policy the task carries now (its snapshot), "" when none. */
    readonly currentPolicyId: string;
    /**
     * Where the task stands on that policy: its running step (1-based, of the steps done, running
     * and to come), the step's kind and, for an approval, who may approve it now; `null` when no
     * step runs (a task done, or not on a policy). The rules and steps below are what selection
     * (a Hard Reset) would give now, not where the task is.
     */
    readonly currentStep?: { readonly position: number; readonly of: number; readonly kind: string; readonly approverIds: readonly string[] } | null;
  };
  readonly subject: { readonly id: string; readonly displayName: string; readonly email: string } | null;
  readonly resolution:
    | { readonly ok: true; readonly source: PolicySource; readonly policyId: string; readonly policyName: string; readonly checks: readonly SourceCheck[] }
    | { readonly ok: false; readonly code: string; readonly message: string; readonly checks: readonly SourceCheck[] };
  readonly rules: readonly RuleExplanation[];
  /**
   * The rules of each policy of the chain after the one that matched there: first match wins, so
   * they were never evaluated. Listed so the whole policy can be read, in order.
   */
  readonly notEvaluated: readonly NotEvaluatedRule[];
  readonly chain: readonly ChainLink[];
  readonly result:
    | { readonly kind: "selected"; readonly decidedBy: DecidedBy; readonly policyId: string; readonly steps: readonly StepSummary[] }
    | { readonly kind: "error"; readonly code: string; readonly message: string; readonly policyId: string }
    | { readonly kind: "noPolicy"; readonly message: string };
  readonly approvers: readonly StepApprovers[];
  /** True when a Hard Reset now would put the task on another policy than the one it carries. */
  readonly policyWouldChange: boolean;
}

/** A value as `ExplainedNode.value`: JSON scalars as they are, safe integers as numbers, nothing otherwise. */
function jsonScalar(v: unknown): boolean | string | number | null | undefined {
  if (typeof v === "boolean" || typeof v === "string" || (typeof v === "number" && Number.isFinite(v))) return v;
  if (typeof v === "bigint" && Number.isSafeInteger(Number(v))) return Number(v);
  return v === null ? null : undefined;
}

/** One node of a recorded trace as data; its display is written here, where it is read. */
function explainNode(r: TraceRecord, id: number): ExplainedNode {
  const table = r.table;
  const loc = table.positions[id] as SourcePosition;
  const parent = table.parents[id] ?? -1;
  const text = table.texts[id] ?? "";
  const span = { start: loc.span.start, end: loc.span.end };
  const { line, column } = loc;
  // Literals with the same keys in the same order: an object spread costs about 1 µs on Node 20.
  const kind = r.outcomeKind(id);
  switch (kind) {
    case "value": {
      const v = r.value(id);
      const value = jsonScalar(v);
      const display = formatCelValue(v);
      return value === undefined
        ? { id, parent, text, span, line, column, outcome: "value", display }
        : { id, parent, text, span, line, column, outcome: "value", display, value };
    }
    case "error": {
      const e = r.error(id);
      return { id, parent, text, span, line, column, outcome: "error", display: e ? `${e.code}: ${e.message}` : "" };
    }
    case "not-evaluated":
      return { id, parent, text, span, line, column, outcome: "not-evaluated", display: r.reason(id) };
    default: {
      const never: never = kind;
      return never;
    }
  }
}

/** The first of `ids` that is an error; -1 if none. */
function firstError(r: TraceRecord, ids: readonly number[]): number {
  for (const id of ids) if (r.truth(id) === "error") return id;
  return -1;
}

/** The first of `ids` that is false; -1 if none. */
function firstFalse(r: TraceRecord, ids: readonly number[]): number {
  for (const id of ids) if (r.truth(id) === "false") return id;
  return -1;
}

/**
 * Operands that failed while their `&&` or `||` still came to true or false: CEL absorbed their
 * errors (`error && false` is false, `error || true` is true), so they did not decide the result.
 */
function absorbedOf(r: TraceRecord): number[] {
  const { kinds, labels, children } = r.table;
  const out: number[] = [];
  for (let id = 0; id < r.table.size; id++) {
    if (kinds[id] !== "operator" || (labels[id] !== "&&" && labels[id] !== "||")) continue;
    const t = r.truth(id);
    if (t !== "true" && t !== "false") continue;
    for (const k of children[id] ?? []) if (r.truth(k) === "error") out.push(k);
  }
  return out;
}

/**
 * The smallest node that explains a false or failed result: follow the false/failing child down.
 * Loops rather than closures: this runs for every rule of every explanation.
 */
function culpritOf(r: TraceRecord): number | null {
  const { kinds, labels, children } = r.table;
  const rootTruth = r.truth(0);
  if (rootTruth !== "error" && rootTruth !== "false") return null;
  let node = 0;
  for (;;) {
    const kids = children[node] ?? [];
    let child: number;
    if (r.truth(node) === "error") child = firstError(r, kids);
    // A false `&&` is false because of an operand that is false: one that failed beside it did not
    // decide it (CEL's `error && false` is false). A false `||` or comparison is false as a whole.
    else if (kinds[node] === "operator" && labels[node] === "&&") child = firstFalse(r, kids);
    else return node;
    if (child < 0) return node;
    node = child;
  }
}

function explainTrace(t: ConditionTrace | null | undefined): ExplainedCondition | null {
  const r = traceRecordOf(t);
  if (!r || r.table.size === 0) return null;
  const nodes: ExplainedNode[] = [];
  for (let id = 0; id < r.table.size; id++) nodes.push(explainNode(r, id));
  return { nodes, culprit: culpritOf(r), absorbed: absorbedOf(r) };
}

/** Where a task stands on its policy: the running step, counted among the done and the coming ones. */
function currentStepOf(task: Task): NonNullable<Explanation["task"]["currentStep"]> | null {
  const p = task.policy;
  const running = p?.current;
  if (!p || !running) return null;
  // The steps done in this run only: a Hard Reset keeps the earlier runs' steps in the history (with
  // the generation they ran under), and a reset or Restart retires its steps as restarted.
  let done = 0;
  const history = p.history;
  for (let i = (history?.length ?? 0) - 1; i >= 0; i--) {
    const step = history?.at(i);
    if (!step || step.policyGenerationId !== running.policyGenerationId) break;
    const outcome = step.instance && "outcome" in step.instance ? step.instance.outcome : null;
    if (outcome && typeof outcome === "object" && "kind" in outcome && outcome.kind === "restarted") break;
    done++;
  }
  const kind = running.instance ? (running.instance.kind === "unknown" ? running.instance.key : running.instance.kind) : "unknown";
  return { position: done + 1, of: done + 1 + (p.next?.length ?? 0), kind, approverIds: kind === "approval" ? [...(task.stepApproverIds ?? [])] : [] };
}

/**
 * A one-line summary of a step definition.
 *
 * @example
 * ```ts
 * summarizeStep({ kind: "accept", acceptMessage: "ok" }); // 'accept "ok"'
 * ```
 */
export function summarizeStep(step: PolicyStep): string {
  switch (step.kind) {
    case "approval": {
      const k = step.approvers;
      const who = !k ? "no approvers set" : k.kind === "unknown" ? k.key : k.kind === "users" ? `users ${(k.userIds ?? []).join(", ")}` : k.kind;
      return `approval by ${who}${step.escalationEnabled ? " (escalates)" : ""}`;
    }
    case "provision":
      return `provision via ${step.provisionPolicy ? (step.provisionPolicy.kind === "unknown" ? step.provisionPolicy.key : step.provisionPolicy.kind) : "default"}`;
    case "accept":
      return step.acceptMessage ? `accept "${step.acceptMessage}"` : "accept";
    case "reject":
      return step.rejectMessage ? `reject "${step.rejectMessage}"` : "reject";
    case "wait":
      return `wait${step.name ? ` "${step.name}"` : ""} for ${step.until ? (step.until.kind === "unknown" ? step.until.key : step.until.kind === "condition" ? `\`${step.until.condition}\`` : step.until.kind === "duration" ? step.until.duration ?? "" : `${step.until.hours}:${String(step.until.minutes).padStart(2, "0")} ${step.until.timezone}`) : "nothing"}`;
    case "form":
      return `form${step.form?.displayName ? ` "${step.form.displayName}"` : ""}`;
    case "action":
      return `action ${step.action ? (step.action.kind === "unknown" ? step.action.key : step.action.kind) : ""}`.trim();
    case "unknown":
      return `unknown step "${step.key}"`;
    default: {
      const never: never = step;
      return never;
    }
  }
}

/**
 * The values a configuration rule's condition read for the task's entitlement, as a policy rule's
 * are told (`text = value`): traced again here, off the decision's path.
 */
function configRuleValues(world: World, task: Task, e: ConfigRuleEvaluation): ConfigRuleEvaluation {
  if ((e.outcome !== "matched" && e.outcome !== "noMatch" && e.outcome !== "error") || e.condition.trim() === "") return e;
  const t = task.type;
  const entitlement = t && (t.kind === "grant" || t.kind === "revoke" || t.kind === "certify") ? findEntitlement(world, t.appId, t.appEntitlementId) : undefined;
  const compiled = compileCondition(e.condition, "config-rule");
  if (!entitlement || !compiled.ok) return e;
  const input = prepareConfigRuleInput({ entitlement, now: world.now, costLimit: world.tenant.celCostLimit });
  if (!input.ok) return e;
  const trace = traceCondition(compiled.value, input.value);
  const values: string[] = [];
  const seen = new Set<string>();
  for (const n of trace.nodes) {
    // The whole condition's value is the outcome, told already.
    if (n === trace.root || !readsAValue(n.text) || seen.has(n.text) || n.outcome.kind === "not-evaluated") continue;
    seen.add(n.text);
    values.push(`${n.text} = ${n.outcome.kind === "value" ? n.outcome.display : `error: ${n.outcome.error.message}`}`);
  }
  return values.length > 0 ? { ...e, values } : e;
}

/**
 * Builds the explanation of what a Hard Reset would decide for a task now.
 *
 * @example
 * ```ts
 * const task = findTask(world, "1001")!;
 * const e = explainTask(world, task);
 * ```
 */
export function explainTask(world: World, task: Task): Explanation {
  const d = decide(world, task, { trace: true });
  const subject = world.index.users.get(d.conditions.facts.subjectUserId);
  const selection = d.selection;
  const evaluations = selection ? (selection.ok ? selection.value.evaluations : selection.error.evaluations) : [];
  // Selection runs every rule's condition exactly once, in order, and the baseline entries
  // (ruleIndex -1) run none; so the n-th rule evaluation owns the n-th trace.
  const traces = d.traces;
  const withConfigRuleValues = (checks: readonly SourceCheck[]): readonly SourceCheck[] =>
    checks.map((c) => (c.configRules ? { ...c, configRules: c.configRules.map((e) => configRuleValues(world, task, e)) } : c));
  let next = 0;
  const rules: RuleExplanation[] = evaluations.map((e) => ({ ...e, trace: e.ruleIndex >= 0 ? explainTrace(traces[next++]) : null }));
  const resolution: Explanation["resolution"] = d.resolution.ok
    ? {
        ok: true,
        source: d.resolution.value.source,
        policyId: d.resolution.value.policy.id,
        policyName: d.resolution.value.policy.displayName,
        checks: withConfigRuleValues(d.resolution.value.checks),
      }
    : { ok: false, code: d.resolution.error.code, message: d.resolution.error.message, checks: withConfigRuleValues(d.resolution.error.checks) };
  let result: Explanation["result"];
  let approvers: StepApprovers[] = [];
  if (!selection) result = { kind: "noPolicy", message: d.resolution.ok ? "" : d.resolution.error.message };
  else if (!selection.ok) result = { kind: "error", code: selection.error.code, message: selection.error.message, policyId: selection.error.policyId };
  else {
    const steps = selection.value.steps;
    result = {
      kind: "selected",
      decidedBy: selection.value.decidedBy,
      policyId: selection.value.policy.id,
      steps: steps.map((s, index) => ({ index, kind: s.kind === "unknown" ? s.key : s.kind, detail: summarizeStep(s) })),
    };
    approvers = steps.flatMap((s, stepIndex) =>
      s.kind === "approval" ? [{ stepIndex, ...resolveApprovers(world, task, s, d.conditions.expressions) }] : [],
    );
  }
  const currentPolicyId = task.policy?.policy?.id ?? "";
  const chain = selection ? (selection.ok ? selection.value.chain : selection.error.chain) : [];
  return {
    kind: "explanation",
    now: world.now,
    task: {
      id: task.id,
      numericId: task.numericId,
      displayName: task.displayName,
      type: task.type ? (task.type.kind === "unknown" ? task.type.key : task.type.kind) : "",
      state: task.state,
      emergencyAccess: task.emergencyAccess,
      currentPolicyId,
      currentStep: currentStepOf(task),
    },
    subject: subject ? { id: subject.id, displayName: subject.displayName, email: subject.email } : null,
    resolution,
    rules,
    notEvaluated: rulesNotEvaluated(world, chain, evaluations),
    chain,
    result,
    approvers,
    policyWouldChange: d.resolution.ok && currentPolicyId !== "" && currentPolicyId !== d.resolution.value.policy.id,
  };
}

/**
 * A request that does not exist yet, to explain as a new task would route: who asks for what. It is
 * a {@link TaskSpec} whose `subject` may also be just a user id.
 *
 * @example
 * ```ts
 * const r: HypotheticalRequest = { subject: "u-contractor", entitlement: { appId: "app-aws", id: "ent-aws-prod-admin" }, emergencyAccess: true };
 * ```
 */
export type HypotheticalRequest = Omit<TaskSpec, "subject"> & { readonly subject: string | SubjectSpec };

/**
 * Explains what a Hard Reset would choose for a task now, and why — or, given a request that does not
 * exist yet (`{ subject, entitlement, origin?, emergencyAccess?, kind? }`), how a new task for it
 * would route. `task` is an id or numericId of the world's. Never throws; an unknown task, user or
 * entitlement is `NOT_FOUND`.
 *
 * @example
 * ```ts
 * const r = explain(world, "1001");
 * if (r.ok) console.log(formatExplanation(r.value));
 * const asked = explain(world, { subject: "u-dev2", entitlement: { appId: "app-aws", id: "ent-aws-prod-admin" } });
 * ```
 */
export function explain(world: World, task: string | HypotheticalRequest): Result<Explanation, SimError> {
  const notWorld = notAWorld(world);
  if (notWorld) return err(notWorld);
  if (typeof task === "object" && task !== null) {
    try {
      return explainRequest(world, task);
    } catch (e: unknown) {
      // The caller's request object, whose fields throw when read (a proxy, a getter).
      return err({ code: "INVALID_ARGUMENT", message: `the request cannot be read: ${e instanceof Error ? e.message : String(e)}`, field: "task" });
    }
  }
  try {
    const taskId = task;
    if (typeof taskId === "number") return err({ code: "INVALID_ARGUMENT", message: `taskId must be a string, such as "${taskId}", not the number ${taskId}`, field: "taskId" });
    if (typeof taskId !== "string" || taskId === "") return err({ code: "INVALID_ARGUMENT", message: "taskId is required", field: "taskId" });
    const found = findTask(world, taskId);
    if (!found) return err({ code: "NOT_FOUND", message: `task "${taskId}" not found (by id or numericId)${didYouMean(taskId, taskNames(world))}` });
    return ok(explainTask(world, found));
  } catch (e: unknown) {
    return err({ code: "INTERNAL", message: `policy-sim internal error: ${e instanceof Error ? e.message : String(e)}` });
  }
}
