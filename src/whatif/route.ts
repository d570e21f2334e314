/**
 * A task's *route*: what a Hard Reset would choose for it — the policy and where it came from, what
 * decided the step sequence, the chain followed, the steps, the first step and who reviews it — as
 * small JSON-safe data that two decisions can be compared on. Built from a {@link Decision}, the
 * same one Hard Reset and `explain` use.
 */
import { summarizeStep } from "../explain/explain.js";
import type { PolicyStep, Task } from "../model/index.js";
import type { Decision } from "../policy/decide.js";
import type { PolicySource } from "../policy/resolve-policy.js";
import type { DecidedBy, Selection, SelectionError } from "../policy/select-steps.js";
import type { Result } from "../result.js";
import { type ApproverResolution, type ExpressionEvaluator, resolveApprovers } from "../workflow/approvers.js";
import type { World } from "../world/world.js";
import { PairMemo } from "./same-value.js";

/**
 * Who reviews the first step of a route when it is an approval.
 *
 * @example
 * ```ts
 * const a: RouteApprovers = { userIds: ["u-sre-lead"], via: "primary" };
 * ```
 */
export interface RouteApprovers {
  readonly userIds: readonly string[];
  readonly via: ApproverResolution["via"];
  /** The documented reason when the step does not go to its kind's own reviewers. */
  readonly reason?: string;
}

/**
 * Where a task goes on a Hard Reset.
 *
 * @example
 * ```ts
 * const r: Route = { kind: "route", policyId: "pol-prod-admin", source: "entitlement",
 *   decidedBy: { kind: "rule", policyId: "pol-prod-admin", chainDepth: 0, ruleIndex: 2, stepKey: "k", field: "stepKey" },
 *   chain: ["pol-prod-admin"], chainVia: [""], steps: ["approval by manager", "provision via connector"],
 *   firstStep: { kind: "approval", detail: "approval by manager" }, approvers: { userIds: ["u-sre-lead"], via: "primary" } };
 * ```
 */
export interface Route {
  readonly kind: "route";
  /** The policy resolution picked (the root of the chain). */
  readonly policyId: string;
  /** Where it came from; `given` when the policy was handed in rather than resolved (`diffPolicies`). */
  readonly source: PolicySource | "given";
  /** The rule or baseline that decided, at the end of the chain. */
  readonly decidedBy: DecidedBy;
  /** The policies followed, root first. */
  readonly chain: readonly string[];
  /**
   * How each policy of the chain was reached from the one before it (`rule #3`, `baseline`), the
   * root's entry "": what a label prints between them. Absent from routes made before it was kept
   * (a label then prints "…" for the step it does not know).
   */
  readonly chainVia?: readonly string[];
  /** The selected steps, one summary each (`approval by manager`, `provision via connector`…). */
  readonly steps: readonly string[];
  /** The first step, summarised; null for an empty sequence. */
  readonly firstStep: { readonly kind: string; readonly detail: string } | null;
  /** Who reviews the first step when it is an approval; null otherwise. */
  readonly approvers: RouteApprovers | null;
}

/**
 * A task for which no route could be chosen: resolution found no policy, or selection failed
 * (a broken chain, a missing step key…).
 *
 * @example
 * ```ts
 * const e: RouteError = { kind: "error", stage: "selection", code: "CYCLE", message: "reference cycle: a → b → a", policyId: "a" };
 * ```
 */
export interface RouteError {
  readonly kind: "error";
  readonly stage: "resolution" | "selection";
  readonly code: string;
  readonly message: string;
  /** The resolved policy when selection failed; "" when resolution did. */
  readonly policyId: string;
}

/**
 * A route or the error that stopped it.
 *
 * @example
 * ```ts
 * const label = (r: RouteOutcome) => (r.kind === "route" ? r.policyId : r.code);
 * ```
 */
export type RouteOutcome = Route | RouteError;

/**
 * What differs between two routes of a task.
 *
 * @example
 * ```ts
 * const a: RouteAspect = "decidedBy";
 * ```
 */
export type RouteAspect = "policy" | "source" | "decidedBy" | "chain" | "steps" | "approvers" | "error";

function stepKind(s: PolicyStep): string {
  return s.kind === "unknown" ? s.key : s.kind;
}

/**
 * What a route is computed from: the outcome of resolution, the selection, and the task's
 * expression evaluator (for approver expressions). A {@link Decision} gives one
 * ({@link decisionInput}); `diffPolicies`, which hands the policy in, builds its own.
 *
 * @example
 * ```ts
 * const input = decisionInput(decide(world, task));
 * ```
 */
export interface RouteInput {
  readonly task: Task;
  readonly resolution:
    | { readonly ok: true; readonly policyId: string; readonly source: Route["source"] }
    | { readonly ok: false; readonly code: string; readonly message: string };
  readonly selection: Result<Selection, SelectionError> | null;
  /** Evaluates the task's approver expressions; read only for a first step that is an approval. */
  readonly conditions: { readonly expressions: ExpressionEvaluator };
}

/**
 * The route input of a decision.
 *
 * @example
 * ```ts
 * routeOf(world, decisionInput(decide(world, task)));
 * ```
 */
export function decisionInput(d: Decision): RouteInput {
  const r = d.resolution;
  return {
    task: d.task,
    resolution: r.ok ? { ok: true, policyId: r.value.policy.id, source: r.value.source } : { ok: false, code: r.error.code, message: r.error.message },
    selection: d.selection,
    // The conditions themselves, not their evaluator: it is built on first read, and only tasks
    // whose first step is an approval read it.
    conditions: d.conditions,
  };
}

/**
 * Who reviews the route input's first step when it is an approval; null otherwise.
 *
 * @example
 * ```ts
 * approversOf(world, decisionInput(decide(world, task)))?.userIds; // ["u-sre-lead"]
 * ```
 */
export function approversOf(world: World, input: RouteInput): RouteApprovers | null {
  const sel = input.selection;
  const step = sel?.ok ? sel.value.steps[0] : undefined;
  if (!step || step.kind !== "approval") return null;
  const r = resolveApprovers(world, input.task, step, input.conditions.expressions);
  return r.reason === undefined ? { userIds: r.userIds, via: r.via } : { userIds: r.userIds, via: r.via, reason: r.reason };
}

/** A step sequence as routes show it, summarised once per sequence (many tasks share one). */
interface StepSummaries {
  readonly steps: readonly string[];
  readonly firstStep: Route["firstStep"];
}

const summaries = new WeakMap<readonly PolicyStep[], StepSummaries>();

function summariesOf(steps: readonly PolicyStep[]): StepSummaries {
  let s = summaries.get(steps);
  if (!s) {
    const first = steps[0];
    // Frozen: the routes of many tasks share these.
    s = {
      steps: Object.freeze(steps.map(summarizeStep)),
      firstStep: first ? Object.freeze({ kind: stepKind(first), detail: summarizeStep(first) }) : null,
    };
    summaries.set(steps, s);
  }
  return s;
}

/**
 * The route of a decision (or route input), or the error that stopped it.
 *
 * @example
 * ```ts
 * const r = routeOf(world, decide(world, task));
 * if (r.kind === "route") console.log(r.decidedBy, r.approvers);
 * ```
 */
export function routeOf(world: World, d: Decision | RouteInput): RouteOutcome {
  return routeWith(world, "traces" in d ? decisionInput(d) : d, undefined);
}

/**
 * {@link routeOf} of a route input, with the first step's approvers given when the caller has them
 * (resolved for another task that provably resolves alike); `undefined`: resolve them here.
 *
 * @example
 * ```ts
 * routeWith(world, input, undefined); // = routeOf(world, input)
 * ```
 */
export function routeWith(world: World, input: RouteInput, approvers: RouteApprovers | null | undefined): RouteOutcome {
  const res = input.resolution;
  if (!res.ok) return { kind: "error", stage: "resolution", code: res.code, message: res.message, policyId: "" };
  const sel = input.selection;
  if (!sel) return { kind: "error", stage: "selection", code: "NO_SELECTION", message: "selection did not run", policyId: res.policyId };
  if (!sel.ok) return { kind: "error", stage: "selection", code: sel.error.code, message: sel.error.message, policyId: res.policyId };
  const v = sel.value;
  const s = summariesOf(v.steps);
  return {
    kind: "route",
    policyId: res.policyId,
    source: res.source,
    decidedBy: v.decidedBy,
    chain: v.chain.map((l) => l.policyId),
    chainVia: v.chain.length === 1 ? ROOT_ONLY : v.chain.map((l) => (l.via.kind === "rule" ? `rule #${l.via.ruleIndex}` : l.via.kind === "root" ? "" : "baseline")),
    steps: s.steps,
    firstStep: s.firstStep,
    approvers: approvers === undefined ? approversOf(world, input) : approvers,
  };
}

/**
 * A one-line label of a route, for summaries and messages: the policy and its source, the chain,
 * what decided, the step key.
 *
 * @example
 * ```ts
 * routeLabel(route); // 'pol-prod-admin (entitlement): rule #2 → 5650fd2e-…'
 * routeLabel(chained); // 'pol-prod-admin (entitlement): rule #3 → pol-prod-admin-eng: rule #0 → 0a1b…'
 * routeLabel(error); // 'error CYCLE in pol-a'
 * ```
 */
export function routeLabel(r: RouteOutcome): string {
  if (r.kind === "error") return `error ${r.code}${r.policyId ? ` in ${r.policyId}` : ""}`;
  const d = r.decidedBy;
  const how = d.kind === "rule" ? `rule #${d.ruleIndex}` : "baseline";
  // A chain is a path: what of each policy led to the next (`rule #3 → pol-b: rule #0`).
  let path = "";
  for (let i = 1; i < r.chain.length; i++) path += `${r.chainVia?.[i] || "…"} → ${r.chain[i]}: `;
  return `${r.policyId} (${r.source}): ${path}${how} → ${d.stepKey}`;
}

/** The `chainVia` of every route that follows no `policyId`: one array, not one per route. */
const ROOT_ONLY: readonly string[] = Object.freeze([""]);

/**
 * Whether the same thing decided: the same rule (or the baseline) of the same policy with the same
 * step key. A rule that only moved — one added, removed or moved before it — is the same rule when
 * its condition reads the same in both worlds: the same condition decides, with the same outcome,
 * so the task does not route differently; only its number in an explanation changed.
 */
function sameDecidedBy(a: DecidedBy, b: DecidedBy, worlds: readonly [World, World] | undefined): boolean {
  if (a.kind !== b.kind || a.policyId !== b.policyId || a.chainDepth !== b.chainDepth || a.stepKey !== b.stepKey) return false;
  if (a.kind === "rule" && b.kind === "rule") {
    if (a.field !== b.field) return false;
    if (a.ruleIndex === b.ruleIndex) return true;
    if (worlds === undefined) return false;
    const ra = worlds[0].index.policies.get(a.policyId)?.rules?.[a.ruleIndex];
    const rb = worlds[1].index.policies.get(b.policyId)?.rules?.[b.ruleIndex];
    return ra !== undefined && rb !== undefined && ra.condition === rb.condition;
  }
  return true;
}

/**
 * Whether two lists of strings are equal, element by element.
 *
 * @example
 * ```ts
 * sameStrings(["u-a"], ["u-a"]); // true
 * ```
 */
export function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Compares the routes of one task in two worlds without building them. Step sequences are compared
 * by content (memoised per pair of sequences, so 100k tasks sharing a handful of sequences cost a
 * handful of deep comparisons), so a policy re-created with the same steps is not a change.
 * Approvers are compared only on request: resolving them costs a lookup per candidate.
 *
 * @example
 * ```ts
 * const cmp = new RouteComparer(world, edited);
 * cmp.aspects(decisionInput(before), decisionInput(after)); // [] or e.g. ["decidedBy", "steps"]
 * ```
 */
export class RouteComparer {
  readonly #steps = new PairMemo();
  readonly #worlds: readonly [World, World] | undefined;

  /**
   * `before` and `after`: the worlds the two sides of each comparison are decided in. Given, a rule
   * that only moved (the same condition deciding, under another number) is not a `decidedBy`
   * change; without them, any other rule number is.
   */
  constructor(before?: World, after?: World) {
    this.#worlds = before !== undefined && after !== undefined ? [before, after] : undefined;
  }

  /** The aspects that differ, approvers aside. */
  aspects(a: RouteInput, b: RouteInput): RouteAspect[] {
    const out: RouteAspect[] = [];
    const ra = a.resolution;
    const rb = b.resolution;
    if (!ra.ok || !rb.ok) {
      if (ra.ok || rb.ok || ra.code !== rb.code || ra.message !== rb.message) out.push("error");
      return out;
    }
    if (ra.policyId !== rb.policyId) out.push("policy");
    if (ra.source !== rb.source) out.push("source");
    const sa = a.selection;
    const sb = b.selection;
    if (!sa || !sb || !sa.ok || !sb.ok) {
      const ea = sa && !sa.ok ? sa.error : null;
      const eb = sb && !sb.ok ? sb.error : null;
      if (!ea || !eb || ea.code !== eb.code || ea.message !== eb.message || ea.policyId !== eb.policyId) out.push("error");
      return out;
    }
    const va = sa.value;
    const vb = sb.value;
    if (!sameDecidedBy(va.decidedBy, vb.decidedBy, this.#worlds)) out.push("decidedBy");
    if (va.chain.length !== vb.chain.length || va.chain.some((l, i) => l.policyId !== vb.chain[i]?.policyId)) out.push("chain");
    if (!this.#steps.equal(va.steps, vb.steps)) out.push("steps");
    return out;
  }

  /** Whether the first step's approvers differ (both inputs resolved against their own world). */
  approversDiffer(worldA: World, a: RouteInput, worldB: World, b: RouteInput): boolean {
    const x = approversOf(worldA, a);
    const y = approversOf(worldB, b);
    if (x === null || y === null) return x !== y;
    return x.via !== y.via || !sameStrings(x.userIds, y.userIds);
  }
}
