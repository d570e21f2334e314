/**
 * Checking a task's route against what a policy author expects, with a failure message a person can
 * act on: what was expected, what differs, and the formatted explanation of what happened. The
 * vitest matchers and the table-driven policy cases both use it.
 */
import { approversSummary } from "../workflow/approvers.js";
import { type Explanation, explainTask, type RuleExplanation } from "../explain/explain.js";
import { lintErrorLines, routeLintErrors } from "../explain/route-lint.js";
import { conditionReads } from "../cel/reads.js";
import { formatExplanation } from "../explain/format.js";
import { POLICY_SOURCES, type PolicySource, RESOLUTION_ERROR_CODES } from "../policy/resolve-policy.js";
import { SELECTION_ERROR_CODES } from "../policy/select-steps.js";
import { describeTaskRef, type TaskRef, taskInWorld } from "../whatif/task-spec.js";
import { isWorld, type World } from "../world/world.js";
import { closest } from "../text/closest.js";
import { describeValue } from "../codec/diagnostic.js";
import { thrownMessage } from "../whatif/thrown-message.js";

/**
 * What a task's route should be. Every field given must hold; omitted fields are not checked.
 *
 * - `policy`, `source`: the policy resolution picks and where from;
 * - `rule`: the rule *of that policy* that matched (`"baseline"` when none did) — for a rule that
 *   refers to another policy, that rule, not the rule deciding at the end of the chain;
 * - `decidedBy`: the rule or baseline deciding at the end of the chain, and its policy;
 * - `stepKey`: the key of the selected step sequence; `chain`: the policies followed, root first;
 * - `firstStep`: the first step's kind (`"approval"`) or the start of its summary, ending at a word's end (`"approval by manager"`);
 * - `steps`: every selected step in order, each its kind or the start of its summary;
 * - `approvers`: who reviews the first step (order does not matter; `[]` when it is skipped);
 * - `approvalSteps`: who reviews each approval step of the route, in order (each order aside): the
 *   later steps too, and a route whose first step is a form or a wait;
 * - `error`: the code of the error resolution or selection should end in (`"CYCLE"`, `"NO_POLICY"`…).
 *
 * @example
 * ```ts
 * const e: RouteExpectation = { policy: "pol-prod-admin", rule: 2, approvers: ["u-sre-lead"] };
 * ```
 */
export interface RouteExpectation {
  readonly policy?: string;
  readonly source?: PolicySource;
  readonly rule?: number | "baseline";
  readonly decidedBy?: { readonly policy?: string; readonly rule?: number | "baseline" };
  readonly stepKey?: string;
  readonly chain?: readonly string[];
  readonly firstStep?: string;
  readonly steps?: readonly string[];
  readonly approvers?: readonly string[];
  readonly approvalSteps?: readonly (readonly string[])[];
  readonly error?: string;
}

/**
 * Which approval step {@link checkApprovers} looks at: its index in the selected sequence, the first
 * approval step (default), or any approval step.
 *
 * @example
 * ```ts
 * const o: ApprovalOptions = { step: "any" };
 * ```
 */
export interface ApprovalOptions {
  readonly step?: number | "first" | "any";
}

/**
 * The outcome of a route check: whether it passed, what differed, the explanation of what happened
 * (null when the task could not be built), and the message to show.
 *
 * @example
 * ```ts
 * const c = checkRoute(world, "1001", { rule: 2 });
 * if (!c.pass) console.log(c.message);
 * ```
 */
export interface RouteCheck {
  readonly pass: boolean;
  /**
   * The check could not be made — the expectation is empty, has unknown keys or values of the wrong
   * kind, or the task cannot be built (an unknown id, a request without an entitlement): fails
   * negated or not, since a task that does not route cannot "not route" somewhere either.
   */
  readonly invalid?: boolean;
  /** The expectation itself is malformed (an unknown key, a value of the wrong kind): a broken test. */
  readonly malformed?: boolean;
  /** One line per expectation that does not hold. */
  readonly mismatches: readonly string[];
  readonly explanation: Explanation | null;
  /** For a failure: the expectation, the mismatches and the formatted explanation. */
  readonly message: string;
  /** For a negated assertion that failed (the route matched but should not have). */
  readonly negatedMessage: string;
}

/**
 * The keys a {@link RouteExpectation} may have, with what each takes: for the message of a bad one
 * and for `policy-sim test --help`.
 *
 * @example
 * ```ts
 * EXPECTATION_KEYS.rule; // 'a rule index (from 0) or "baseline"'
 * ```
 */
export const EXPECTATION_KEYS: Readonly<Record<keyof RouteExpectation, string>> = {
  policy: "a policy id",
  source: "a policy source (entitlement, app, resourceTypeDefault, tenantDefault, emergency, …)",
  rule: 'a rule index (from 0) or "baseline"',
  decidedBy: "{ policy?, rule? } (the policy and rule at the end of a policyId chain)",
  stepKey: "a step key",
  chain: "a list of policy ids, the resolved policy first",
  firstStep: "a step kind (approval, provision, wait, form, …) or the start of its summary",
  steps: "a list of step kinds or summary starts, in order",
  approvers: "a list of user ids (the first approval step's reviewers)",
  approvalSteps: "a list of lists of user ids, one per approval step",
  error: "an error code (such as SELF_REFERENCE)",
};

export { isWorld } from "../world/world.js";

/**
 * A value for a message, never throwing: JSON where it can be written (`JSON.stringify` throws on a
 * bigint or a cycle, and gives nothing for a function), else its kind.
 */
function show(v: unknown): string {
  try {
    const text = JSON.stringify(v);
    if (text !== undefined) return text.length > 200 ? `${text.slice(0, 200)}…` : text;
  } catch {
    // Falls through to the kind of value.
  }
  return v === undefined ? "undefined" : describeValue(v);
}

function isRule(v: unknown): boolean {
  return v === "baseline" || (typeof v === "number" && Number.isInteger(v) && v >= 0);
}

function isStringList(v: unknown): boolean {
  return Array.isArray(v) && v.every((x) => typeof x === "string");
}

/**
 * What is wrong with an expectation, one line each; empty when it can be checked. An expectation
 * that checks nothing (`{}`), names a key that is not one (`{ polcy: … }`) or gives a key a value
 * of the wrong kind would otherwise pass whatever the route is.
 *
 * @example
 * ```ts
 * expectationProblems({});               // ["the expectation is empty: give at least one of policy, source, rule, …"]
 * expectationProblems({ polcy: "p" });   // ['"polcy" is not an expectation key; did you mean "policy"?']
 * ```
 */
export function expectationProblems(x: unknown): string[] {
  const out = shapeProblems(x);
  if (out.length > 0 || !isRecordLike(x)) return out;
  if (Object.entries(x).every(([, v]) => v === undefined)) out.push(`the expectation is empty: give at least one of ${Object.keys(EXPECTATION_KEYS).join(", ")}`);
  return out;
}


/** The codes a route fails with: resolution's, selection's, and route.ts's "selection did not run". */
const ROUTE_ERROR_CODES: readonly string[] = [...RESOLUTION_ERROR_CODES, ...SELECTION_ERROR_CODES, "NO_SELECTION"];

/**
 * What an expectation names that the world does not have: a policy, a user, a step key, a rule
 * index past the policy's rules, a source no resolution has. Such an expectation can never hold, so
 * `not.toRoute` would pass whatever the route: it is refused instead, with the closest name.
 */
function worldProblems(world: World, x: RouteExpectation): string[] {
  if (!isWorld(world)) return [];
  const out: string[] = [];
  const policies = world.index.policies;
  const policyIds = [...policies.keys()];
  const policy = (id: string, what: string): void => {
    if (policies.has(id)) return;
    const guess = closest(id, policyIds);
    out.push(`${what} "${id}" is not a policy of the world${guess ? `; did you mean "${guess}"?` : ""}`);
  };
  if (typeof x.policy === "string") policy(x.policy, "policy");
  if (Array.isArray(x.chain)) x.chain.forEach((id, i) => typeof id === "string" && policy(id, `chain[${i}]`));
  if (x.decidedBy && typeof x.decidedBy.policy === "string") policy(x.decidedBy.policy, "decidedBy.policy");
  if (typeof x.error === "string" && !ROUTE_ERROR_CODES.includes(x.error)) {
    const guess = closest(x.error, ROUTE_ERROR_CODES);
    out.push(`error "${x.error}" is not a code a route fails with${guess ? `; did you mean "${guess}"?` : ` (codes: ${ROUTE_ERROR_CODES.join(", ")})`}`);
  }
  if (typeof x.source === "string" && !(POLICY_SOURCES as readonly string[]).includes(x.source)) {
    const guess = closest(x.source, POLICY_SOURCES);
    out.push(`source "${x.source}" is not a resolution source${guess ? `; did you mean "${guess}"?` : ` (sources: ${POLICY_SOURCES.join(", ")})`}`);
  }
  const approverIds = [...(Array.isArray(x.approvers) ? x.approvers : []), ...(Array.isArray(x.approvalSteps) ? x.approvalSteps.flat() : [])];
  if (approverIds.length > 0)
    for (const id of approverIds)
      if (typeof id === "string" && !world.index.users.has(id)) {
        // An email or a display name for a user id: say whose it is.
        const wanted = id.toLowerCase();
        const named = world.users.filter((u) => u.email.toLowerCase() === wanted || u.displayName.toLowerCase() === wanted);
        if (named.length === 1 && named[0]) {
          out.push(`approver "${id}" is not a user id: approvers are user ids, and "${id}" is the ${named[0].email.toLowerCase() === wanted ? "email" : "name"} of "${named[0].id}"`);
          continue;
        }
        const guess = closest(id, [...world.index.users.keys()]);
        out.push(`approver "${id}" is not a user of the world${guess ? `; did you mean "${guess}"?` : ""}`);
      }
  const named = typeof x.policy === "string" ? policies.get(x.policy) : undefined;
  if (typeof x.rule === "number" && named && x.rule >= (named.rules ?? []).length)
    out.push(`rule ${x.rule} is past the rules of policy "${named.id}", which has ${(named.rules ?? []).length} (rule indexes start at 0)`);
  if (typeof x.stepKey === "string") {
    const keys = named ? Object.keys(named.policySteps ?? {}) : [...new Set(world.policies.flatMap((p) => Object.keys(p.policySteps ?? {})))];
    if (!keys.includes(x.stepKey)) {
      const guess = closest(x.stepKey, keys);
      out.push(`stepKey "${x.stepKey}" is not a step key of ${named ? `policy "${named.id}"` : "any policy of the world"}${guess ? `; did you mean "${guess}"?` : ""}`);
    }
  }
  return out;
}

/** A plain object: not an array, and not a Map or boxed value, whose entries `Object.entries` would not see. */
function isRecordLike(x: unknown): x is object {
  return typeof x === "object" && x !== null && Object.prototype.toString.call(x) === "[object Object]";
}

/** {@link expectationProblems} but for emptiness: the shape of every key given. */
function shapeProblems(x: unknown): string[] {
  const keys = Object.keys(EXPECTATION_KEYS);
  if (!isRecordLike(x)) return [`the expectation must be an object with some of ${keys.join(", ")}; got ${x === undefined ? "undefined" : describeValue(x)}`];
  const out: string[] = [];
  for (const [k, v] of Object.entries(x)) {
    if (v === undefined) continue;
    // The key is the caller's: looked up as an own key, so `constructor` is no expectation key.
    if (!Object.hasOwn(EXPECTATION_KEYS, k)) {
      const guess = closest(k, keys);
      out.push(`"${k}" is not an expectation key${guess ? `; did you mean "${guess}"?` : ` (keys: ${keys.join(", ")})`}`);
      continue;
    }
    const key = k as keyof RouteExpectation;
    const fine =
      key === "rule" ? isRule(v)
      : key === "chain" || key === "approvers" || key === "steps" ? isStringList(v)
      : key === "approvalSteps" ? Array.isArray(v) && v.every(isStringList)
      : key === "decidedBy" ? isRecordLike(v) && Object.keys(v).length > 0 &&
          Object.entries(v).every(([dk, dv]) => (dk === "policy" && typeof dv === "string") || (dk === "rule" && isRule(dv)))
      : typeof v === "string";
    // `rule: "#2"` (the docs and explain write rules so): the number it names.
    const written = key === "rule" && typeof v === "string" ? /^\s*#?\s*(\d+)\s*$/.exec(v)?.[1] : undefined;
    if (!fine) out.push(`${key} must be ${EXPECTATION_KEYS[key]}, got ${show(v)}${written === undefined ? "" : ` (did you mean ${written}?)`}`);
  }
  return out;
}

/**
 * Whether `start` begins a step's summary at a word's end: "approval by manager" begins "approval by
 * manager → …", "approval by user" does not begin "approval by users u-cfo" (author review).
 */
function startsSummary(detail: string, start: string): boolean {
  if (start === "" || !detail.startsWith(start)) return false;
  const next = detail.charAt(start.length);
  return next === "" || !/[\p{L}\p{N}_-]/u.test(next) || !/[\p{L}\p{N}_-]/u.test(start.charAt(start.length - 1));
}

/** How many rules the resolved policy has, as the explanation saw them (evaluated or not). */
function ruleCount(e: Explanation): number {
  const root = e.resolution.ok ? e.resolution.policyId : undefined;
  let n = 0;
  for (const r of e.rules) if (r.chainDepth === 0 && r.policyId === root && r.ruleIndex >= 0) n = Math.max(n, r.ruleIndex + 1);
  for (const r of e.notEvaluated) if (r.policyId === root && r.ruleIndex >= 0) n = Math.max(n, r.ruleIndex + 1);
  return n;
}

/** The rule of the resolved policy that matched, or "baseline", or null when selection did not get that far. */
/**
 * When the rule expected reads the clock (`now()`): the time it was evaluated at, and how to run the
 * case at another (author review: "rule is the baseline, expected #4" said nothing of 09:00Z).
 */
function clockHint(e: Explanation, expected: number | "baseline"): string {
  if (typeof expected !== "number") return "";
  const rootPolicy = e.resolution.ok ? e.resolution.policyId : undefined;
  // Only a rule that ran and did not hold: one an earlier rule kept from running did not miss for the time.
  const rule = e.rules.find((r) => r.chainDepth === 0 && r.ruleIndex === expected && r.policyId === rootPolicy);
  if (rule === undefined || rule.conditionMatched || !conditionReads(rule.condition).clock) return "";
  return ` (rule #${expected} reads the clock and ran at ${e.now}: set another time with a case's now:, the test command's --now, or a world at that time, replaceInWorld(world, { now }))`;
}

function rootRule(e: Explanation): number | "baseline" | null {
  let last: number | "baseline" | null = null;
  for (const r of e.rules) {
    if (r.chainDepth !== 0) continue;
    if (r.ruleIndex < 0) last = "baseline";
    else if (r.conditionMatched && r.error === "") last = r.ruleIndex;
  }
  return last;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const x = [...new Set(a)].sort();
  const y = [...new Set(b)].sort();
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/** The first step's approvers, or undefined when the first step is not an approval. */
function firstApprovers(e: Explanation): readonly string[] | undefined {
  return e.approvers.find((a) => a.stepIndex === 0)?.userIds;
}

/**
 * What a task's route is, written as an expectation would be, for the keys asked (all when none
 * are): a tool reading `policy-sim test --json` compares `expected` with `actual` key by key instead
 * of parsing the English of a mismatch. `null` where the route has none (no policy, no first step).
 *
 * @example
 * ```ts
 * routeActuals(explanation, ["rule", "policy"]); // { rule: 2, policy: "pol-prod-admin" }
 * ```
 */
export function routeActuals(e: Explanation, keys: readonly string[] = Object.keys(EXPECTATION_KEYS)): Record<string, unknown> {
  const res = e.resolution;
  const r = e.result;
  const d = r.kind === "selected" ? r.decidedBy : null;
  const steps = r.kind === "selected" ? r.steps : [];
  const values: Readonly<Record<keyof RouteExpectation, () => unknown>> = {
    policy: () => (res.ok ? res.policyId : null),
    source: () => (res.ok ? res.source : null),
    rule: () => rootRule(e),
    decidedBy: () => (d ? { policy: d.policyId, rule: d.kind === "rule" ? d.ruleIndex : "baseline" } : null),
    stepKey: () => d?.stepKey ?? null,
    chain: () => e.chain.map((l) => l.policyId),
    firstStep: () => steps[0]?.detail ?? null,
    steps: () => steps.map((st) => st.detail),
    approvers: () => firstApprovers(e) ?? null,
    approvalSteps: () => (r.kind === "selected" ? e.approvers.map((a) => a.userIds) : []),
    error: () => (!res.ok ? res.code : r.kind === "error" ? r.code : null),
  };
  const out: Record<string, unknown> = {};
  for (const k of keys) if (Object.hasOwn(values, k)) out[k] = values[k as keyof RouteExpectation]();
  return out;
}

/**
 * The mismatches between an explanation and an expectation.
 *
 * @example
 * ```ts
 * routeMismatches(explanation, { policy: "pol-x" }); // ['policy is "pol-prod-admin", expected "pol-x"']
 * ```
 */
export function routeMismatches(e: Explanation, x: RouteExpectation): string[] {
  // An expectation of the wrong shape would compare as nothing, or throw: its problems are the answer.
  const problems = shapeProblems(x);
  if (problems.length > 0) return problems;
  const out: string[] = [];
  const res = e.resolution;
  const r = e.result;
  if (x.error !== undefined) {
    const code = !res.ok ? res.code : r.kind === "error" ? r.code : undefined;
    if (code !== x.error) out.push(code === undefined ? `no error, expected ${x.error}` : `error is ${code}, expected ${x.error}`);
  } else if (!res.ok) out.push(`no policy: ${res.code}: ${res.message}`);
  else if (r.kind === "error") out.push(`selection failed: ${r.code}: ${r.message}`);
  if (x.policy !== undefined && (!res.ok || res.policyId !== x.policy)) out.push(`policy is ${res.ok ? show(res.policyId) : "none"}, expected ${show(x.policy)}`);
  if (x.source !== undefined && (!res.ok || res.source !== x.source)) out.push(`source is ${res.ok ? res.source : "none"}, expected ${x.source}`);
  if (x.rule !== undefined) {
    const got = rootRule(e);
    if (got !== x.rule) {
      // ConductorOne's pages call the first rule "Rule 1": an expectation one past the rule that decided is that slip.
      const offByOne = typeof got === "number" && typeof x.rule === "number" && x.rule === got + 1 ? ` (rule indexes start at 0: the docs' "Rule ${x.rule}" is rule ${got})` : "";
      const count = ruleCount(e);
      const beyond = typeof x.rule === "number" && e.resolution.ok && x.rule >= count ? ` (${e.resolution.policyId} has ${count === 0 ? "no rules" : count === 1 ? "one rule, #0" : `rules #0–#${count - 1}`})` : "";
      out.push(`rule is ${got === null ? "none" : got === "baseline" ? "the baseline" : `#${got}`}, expected ${x.rule === "baseline" ? "the baseline" : `#${x.rule}`}${offByOne}${beyond}${clockHint(e, x.rule)}`);
    }
  }
  const d = r.kind === "selected" ? r.decidedBy : null;
  if (x.decidedBy?.policy !== undefined && d?.policyId !== x.decidedBy.policy) out.push(`decided in ${d ? show(d.policyId) : "no policy"}, expected ${show(x.decidedBy.policy)}`);
  if (x.decidedBy?.rule !== undefined) {
    const got = d ? (d.kind === "rule" ? d.ruleIndex : "baseline") : null;
    if (got !== x.decidedBy.rule) out.push(`decided by ${got === null ? "nothing" : got === "baseline" ? "the baseline" : `rule #${got}`}, expected ${x.decidedBy.rule === "baseline" ? "the baseline" : `rule #${x.decidedBy.rule}`}`);
  }
  if (x.stepKey !== undefined && d?.stepKey !== x.stepKey) out.push(`step key is ${d ? show(d.stepKey) : "none"}, expected ${show(x.stepKey)}`);
  if (x.chain !== undefined) {
    const got = e.chain.map((l) => l.policyId);
    if (got.join("\u0000") !== x.chain.join("\u0000")) out.push(`chain is ${got.join(" → ") || "empty"}, expected ${x.chain.join(" → ")}`);
  }
  if (x.firstStep !== undefined) {
    const first = r.kind === "selected" ? r.steps[0] : undefined;
    if (!first || (first.kind !== x.firstStep && !startsSummary(first.detail, x.firstStep)))
      out.push(`first step is ${first ? show(first.detail) : "none"}, expected ${show(x.firstStep)}`);
  }
  if (x.steps !== undefined) {
    const got = r.kind === "selected" ? r.steps : [];
    const fits = got.length === x.steps.length && got.every((st, i) => st.kind === x.steps?.[i] || startsSummary(st.detail, x.steps?.[i] ?? "\u0000"));
    if (!fits) out.push(`steps are ${show(got.map((st) => st.detail))}, expected ${show(x.steps)}`);
  }
  if (x.approvers !== undefined) {
    const got = firstApprovers(e);
    if (got === undefined || !sameSet(got, x.approvers)) out.push(`first step approvers are ${got === undefined ? "none (the first step is not an approval)" : show(got)}, expected ${show(x.approvers)}`);
  }
  if (x.approvalSteps !== undefined) {
    const got = e.result.kind === "selected" ? e.approvers.map((a) => a.userIds) : [];
    const fits = got.length === x.approvalSteps.length && got.every((ids, i) => sameSet(ids, x.approvalSteps?.[i] ?? []));
    if (!fits)
      out.push(
        `approval steps are reviewed by ${got.length === 0 ? "none (no approval step)" : got.map((ids) => show(ids)).join(", ")}, expected ${x.approvalSteps.map((ids) => show(ids)).join(", ")}`,
      );
  }
  return out;
}

/**
 * How a task routes, in one line: the policy and its source, the rule or baseline that decided, the
 * first step and who reviews it (what a failed check prints after "it routes:").
 *
 * @example
 * ```ts
 * routeLine(explanation); // "pol-prod-admin (entitlement): rule #2 of pol-prod-admin → step key …; first step approval by manager → u-sre-lead"
 * ```
 */
export function routeLine(e: Explanation): string {
  const res = e.resolution;
  const r = e.result;
  if (!res.ok) return `no policy (${res.code})`;
  if (r.kind !== "selected") return `${res.policyId} (${res.source}), then ${r.kind === "error" ? `${r.code}: ${r.message}` : r.message}`;
  const d = r.decidedBy;
  const how = d.kind === "rule" ? `rule #${d.ruleIndex} of ${d.policyId}` : `the baseline of ${d.policyId}`;
  const first = r.steps[0];
  const a = e.approvers.find((x) => x.stepIndex === 0);
  const who = a ? ` → ${approversSummary(a)}` : "";
  return `${res.policyId} (${res.source}): ${how} → step key ${d.stepKey}${first ? `; first step ${first.detail}${who}` : ""}`;
}

/**
 * The rules whose conditions failed with an error on the way to the route, in one line, or "" when
 * none did: a rule that fails does not match (its error is recorded), so a case that expected it
 * fails for a reason its route alone does not show.
 *
 * @example
 * ```ts
 * failedRulesLine(explanation); // 'rules that failed with an error (they do not match): #0 of pol-prod-admin (CEL_NO_SUCH_KEY: No such key: badgeLevel)'
 * ```
 */
export function failedRulesLine(e: Explanation): string {
  const failed = failedRules(e);
  if (failed.length === 0) return "";
  return `rules that failed with an error (they do not match): ${failed.map((r) => `#${r.ruleIndex} of ${r.policyId} (${r.error})`).join(", ")}`;
}

/**
 * The rules whose conditions failed with an error on the way to the route (the baseline aside).
 *
 * @example
 * ```ts
 * failedRules(explanation).map((r) => r.ruleIndex); // [0]
 * ```
 */
export function failedRules(e: Explanation): RuleExplanation[] {
  return e.rules.filter((r) => r.error !== "" && r.ruleIndex >= 0);
}

/** `it routes: …`, and the rules that failed on the way when some did. */
function routesLines(e: Explanation): string {
  const failed = failedRulesLine(e);
  return `it routes: ${routeLine(e)}${failed ? `\n${failed}` : ""}`;
}

/**
 * A check that could not be made (see {@link RouteCheck.invalid}): fails negated or not, with
 * `message`. For the matchers' own arguments (`toRouteToStep(task)` without the step key).
 *
 * @example
 * ```ts
 * cannotCheck(["no step key"], "toRouteToStep needs the step key").invalid; // true
 * ```
 */
export function cannotCheck(problems: readonly string[], message: string): RouteCheck {
  return { pass: false, invalid: true, mismatches: problems, explanation: null, message, negatedMessage: message };
}

/**
 * A check that names what the world lacks, with how the task does route when it can be built: the
 * step key or policy id the author meant is most often in that line.
 */
function withRoute(world: World, ref: TaskRef, c: RouteCheck): RouteCheck {
  try {
    if (!isWorld(world)) return c;
    const built = taskInWorld(world, ref);
    if (!built.ok) return c;
    const e = explainTask(built.value.world, built.value.task);
    const message = `${c.message}\n${routesLines(e)}`;
    return { ...c, explanation: e, message, negatedMessage: message };
  } catch {
    return c;
  }
}

/** How many of a refused policy's lint errors a failed check lists; the count of the rest follows. */
const SHOWN_LINT_ERRORS = 5;

/**
 * The lint errors (`lintDecodedPolicy`, error severity) of the policies a route went through: a
 * condition that does not compile, an approver expression that is not users, a dangling step key.
 * The service refuses to save such a policy, so no routing of it can be asserted; each error is
 * told with its path, position and excerpt, as `policy-sim lint` tells it.
 */
function refusedPolicies(world: World, e: Explanation): string[] {
  const out: string[] = [];
  for (const { policyId: id, errors } of routeLintErrors(world, e)) {
    // Such a policy is one the service refuses to save, or one written with something policy-sim
    // does not model: either way its conditions do not evaluate as written.
    out.push(`policy "${id}" has ${errors.length} lint error${errors.length === 1 ? "" : "s"} (the service would refuse to save it, or it uses what policy-sim does not model), so its routing cannot be asserted:`);
    for (const f of errors.slice(0, SHOWN_LINT_ERRORS)) out.push(...lintErrorLines(f, "    "));
    if (errors.length > SHOWN_LINT_ERRORS) out.push(`    … and ${errors.length - SHOWN_LINT_ERRORS} more (policy-sim lint lists them all)`);
  }
  return out;
}

/** Builds the task, explains it and applies `mismatches`; the shared body of every check. */
function check(world: unknown, ref: TaskRef, wanted: string, mismatches: (e: Explanation) => string[], expectsError = false): RouteCheck {
  const what = describeTaskRef(ref);
  if (!isWorld(world)) return cannotCheck(["not a world"], `cannot check ${what}: expected a World (from loadWorld), got ${world === undefined ? "undefined" : describeValue(world)}`);
  // Through the one path that builds tasks for explain and case files alike: a string subject is
  // that user of the world, an unknown one NOT_FOUND.
  const built = taskInWorld(world, ref);
  if (!built.ok) {
    const cannot = {
      ...cannotCheck([built.error.message], `expected ${what} to ${wanted}, but the task cannot be built: ${built.error.message}`),
      // Negated, the message says what was asserted: not to route there.
      negatedMessage: `expected ${what} not to ${wanted}, but the task cannot be built: ${built.error.message}`,
    };
    // A described request that is malformed (a misspelt key, an unknown kind) is a broken test; an id the world lacks is not.
    return built.error.code === "INVALID_ARGUMENT" ? { ...cannot, malformed: true } : cannot;
  }
  try {
    const e = explainTask(built.value.world, built.value.task);
    const text = formatExplanation(e);
    // A policy the service would not save: the check fails whether negated or not, unless it
    // expects the route to fail (`error`), which is how a broken policy's behaviour is asserted.
    const refused = expectsError ? [] : refusedPolicies(built.value.world, e);
    if (refused.length > 0) {
      const message = `cannot check that ${what} would ${wanted}: ${refused.join("\n")}\n${routesLines(e)}\n\n${text}`;
      return { pass: false, invalid: true, mismatches: refused, explanation: e, message, negatedMessage: message };
    }
    const found = mismatches(e);
    return {
      pass: found.length === 0,
      mismatches: found,
      explanation: e,
      message: `expected ${what} to ${wanted}, but:\n${found.map((m) => `  - ${m}`).join("\n")}\n${routesLines(e)}\n\n${text}`,
      negatedMessage: `expected ${what} not to ${wanted}, but it does: ${routeLine(e)}\n\n${text}`,
    };
  } catch (e: unknown) {
    // A fault of ours, reported as a failed check rather than thrown into the test runner.
    return cannotCheck(["internal error"], `cannot check ${what}: policy-sim internal error: ${thrownMessage(e)}`);
  }
}

function expectationText(x: RouteExpectation): string {
  const parts = Object.entries(x)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}: ${show(v)}`);
  return `{ ${parts.join(", ")} }`;
}

/**
 * Checks a task's route (a task of the world by id or numericId, or a described one) against an
 * expectation. Never throws.
 *
 * @example
 * ```ts
 * const c = checkRoute(world, "1001", { policy: "pol-prod-admin", rule: 2 });
 * c.pass; // true
 * ```
 */
export function checkRoute(world: World, ref: TaskRef, expected: RouteExpectation): RouteCheck {
  const shape = expectationProblems(expected);
  if (shape.length > 0) return { ...cannotCheck(shape, `cannot check the route of ${describeTaskRef(ref)}: ${shape.join("; ")}`), malformed: true };
  const problems = worldProblems(world, expected);
  if (problems.length > 0) return withRoute(world, ref, cannotCheck(problems, `cannot check the route of ${describeTaskRef(ref)}: ${problems.join("; ")}`));
  return check(world, ref, `route ${expectationText(expected)}`, (e) => routeMismatches(e, expected), typeof expected.error === "string");
}

/** What is wrong with the arguments of {@link checkApprovers}, one line each. */
function approvalProblems(userIds: unknown, options: unknown): string[] {
  const out: string[] = [];
  if (!isStringList(userIds)) out.push(`the approvers must be a list of user ids, got ${show(userIds)}`);
  if (options === undefined) return out;
  if (!isRecordLike(options)) return [...out, `the options must be { step }, got ${show(options)}`];
  for (const [k, v] of Object.entries(options)) {
    if (k !== "step") out.push(`"${k}" is not an option of an approval check (options: step)`);
    else if (v !== undefined && v !== "first" && v !== "any" && !(typeof v === "number" && Number.isInteger(v) && v >= 0))
      out.push(`step must be a step index, "first" or "any", got ${show(v)}`);
  }
  return out;
}

/**
 * Checks that an approval step of a task's route is reviewed by exactly `userIds` (order aside):
 * the first approval step by default, a given step index, or any approval step.
 *
 * @example
 * ```ts
 * checkApprovers(world, "1001", ["u-ciso", "u-sec-eng"], { step: 1 }).pass; // true
 * ```
 */
export function checkApprovers(world: World, ref: TaskRef, userIds: readonly string[], options: ApprovalOptions = {}): RouteCheck {
  const shape = approvalProblems(userIds, options);
  const problems = shape.length > 0 ? shape : worldProblems(world, { approvers: userIds });
  if (problems.length > 0) return cannotCheck(problems, `cannot check the approvers of ${describeTaskRef(ref)}: ${problems.join("; ")}`);
  const step = options.step ?? "first";
  const where = step === "first" ? "its first approval step" : step === "any" ? "some approval step" : `step ${step}`;
  return check(world, ref, `require approval from ${show(userIds)} at ${where}`, (e) => {
    if (e.result.kind !== "selected") return routeMismatches(e, {});
    const approvals = e.approvers;
    if (approvals.length === 0) return ["the selected steps have no approval step"];
    const chosen = step === "first" ? approvals.slice(0, 1) : step === "any" ? approvals : approvals.filter((a) => a.stepIndex === step);
    if (chosen.length === 0) {
      const steps = e.result.steps;
      const approvalsAt = approvals.map((a) => a.stepIndex).join(", ");
      // A step past the route's end is told as such, not as a step of another kind.
      const at = typeof step === "number" && step >= steps.length ? `the route has ${steps.length} step${steps.length === 1 ? "" : "s"} (0–${steps.length - 1}), no step ${step}` : `step ${String(step)} is not an approval step but ${steps[step as number]?.kind ?? "none"}`;
      return [`${at}; its approval steps are ${approvalsAt}`];
    }
    if (chosen.some((a) => sameSet(a.userIds, userIds))) return [];
    return chosen.map((a) => `step ${a.stepIndex} (${a.kind}) is reviewed by ${a.userIds.length > 0 ? show(a.userIds) : `nobody (${a.via})`}`);
  });
}
