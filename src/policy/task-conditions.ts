/**
 * The CEL side of a decision for one task: the task's condition input prepared once (so a policy
 * with 16 rules converts the task, subject, entitlement and account to CEL values once, not 16
 * times), each condition compiled once per source text for the whole process, and — for
 * explanations — a trace of every evaluated condition from the same evaluation (its recording
 * run decides, and what it records is the trace).
 */
import {
  type CelDirectory,
  type CelRuntimeError,
  compileApproverExpression,
  compileCondition,
  type ConditionTrace,
  evaluateApproverExpression,
  evaluateCondition,
  prepareApproverInput,
  PreparedConditionInput,
  type TaskFacts,
  traceCondition,
} from "../cel/index.js";
import { CelContext, conditionContextOrError, type PlainRun, plainRunOf, plainValue } from "../cel/evaluate.js";
import { PlainTracer, plainTracerOf } from "../cel/trace.js";
import type { InputSignatures } from "../cel/input-signature.js";
import { type AppEntitlement, type AppUser, blankUser, type User } from "../model/directory.js";
import type { JsonObject, Rule, Task } from "../model/index.js";
import { certifyReviewId, taskSubjectId } from "../model/task-refs.js";
import type { ExpressionEvaluator } from "../workflow/approvers.js";
import { celDirectoryOf } from "../world/cel-directory.js";
import { findAppUserOf, findEntitlement, type World } from "../world/world.js";
import type { ConditionResult, ConditionRunner } from "./select-steps.js";

export type { ConditionTrace };

/**
 * A task's conditions environment: runs rule conditions, evaluates approver expressions, and
 * (when traced) returns what every evaluated condition's sub-expressions were.
 *
 * @example
 * ```ts
 * const c = taskConditions(world, task, { trace: true });
 * c.run('subject.department == "Engineering"'); // { ok: true, value: true }
 * c.traces(); // [ { source, outcome, root, nodes } ]
 * ```
 */
export interface TaskConditions extends ConditionRunner {
  readonly expressions: ExpressionEvaluator;
  /** One entry per `run` call, in order; `null` for a condition that did not compile. */
  traces(): readonly (ConditionTrace | null)[];
  /** The facts about the task that conditions see as `task`. */
  readonly facts: TaskFacts;
  /** Rule `index` of `rules`, evaluated: what `run` gives for its condition (always there here). */
  runRule(rules: readonly Rule[], index: number): ConditionResult;
  /** The rules from `from` on that are plainly false, passed over in one call (see {@link ConditionRunner}). */
  passOver(rules: readonly Rule[], from: number): number;
}

/** A user with every field empty: the `subject` of a task whose target is not in the directory. */
const NOBODY: User = Object.freeze(blankUser());

function describeError(e: CelRuntimeError): string {
  const where = e.location ? ` at ${e.location.line}:${e.location.column}` : "";
  return `${e.code}: ${e.message}${where}`;
}

/** What conditions see as `task` (docs/domain.md §5). */
export function taskFacts(task: Task): TaskFacts {
  const t = task.type;
  const grant = t?.kind === "grant";
  const grantDuration = grant ? t.grantDuration : null;
  return {
    id: task.id,
    numericId: task.numericId,
    displayName: task.displayName,
    origin: task.origin,
    isGrantPermanent: grant ? !grantDuration || grantDuration === "0s" : false,
    grantDuration,
    subjectUserId: taskSubjectId(task),
    requestorUserId: task.createdByUserId,
    createdAt: task.createdAt,
    analysis: task.analysisId ? { id: task.analysisId, ...conflictsOf(task) } : null,
  };
}

/**
 * The access-conflict findings of a task's analysis. The world has no analysis objects: a task's
 * free-form `data.analysis.conflictViolations` (conflict ids) stands for them, and it has conflict
 * violations when that list is not empty (assumed, like `data.ip`).
 */
function conflictsOf(task: Task): { readonly hasConflictViolations: boolean; readonly conflictViolations: readonly string[] } {
  const analysis = task.data?.["analysis"];
  const listed = analysis !== null && typeof analysis === "object" && !Array.isArray(analysis) ? (analysis as JsonObject)["conflictViolations"] : undefined;
  const conflictViolations = Array.isArray(listed) ? listed.filter((c): c is string => typeof c === "string") : [];
  return { hasConflictViolations: conflictViolations.length > 0, conflictViolations };
}


/**
 * The requester's address, when the task's free-form data carries one (`data.ip`): what conditions
 * see as `ip`.
 *
 * @example
 * ```ts
 * requesterIp(task); // "10.1.2.3" or null
 * ```
 */
export function requesterIp(task: Task): string | null {
  const ip = task.data?.["ip"];
  return typeof ip === "string" && ip !== "" ? ip : null;
}

/**
 * Builds the conditions environment of one task in a world: `subject`, `task`, `entitlement`,
 * `account`, `ip` and the world's clock as `now()`.
 *
 * @example
 * ```ts
 * const runner = taskConditions(world, task);
 * selectSteps(world, policy, runner);
 * ```
 */
export function taskConditions(world: World, task: Task, options: { readonly trace?: boolean } = {}): TaskConditions {
  return new ConditionsOfTask(world, task, options.trace === true);
}

/**
 * The number `signatures` gives the task's condition input (`cel/input-signature.ts`): the same for
 * two tasks only if their conditions over its paths see the same values; -1 when the input does not
 * prepare (its conditions fail with errors that name the task) or the runner is not this module's.
 *
 * @example
 * ```ts
 * const sigs = new InputSignatures([["subject", "department"]]);
 * conditionsSignature(taskConditions(world, a), sigs) === conditionsSignature(taskConditions(world, b), sigs); // same department
 * ```
 */
export function conditionsSignature(conditions: TaskConditions, signatures: InputSignatures): number {
  return conditions instanceof ConditionsOfTask ? conditions.signature(signatures) : -1;
}

/**
 * The compiled conditions by source text, in front of `compileCondition`'s own cache. That cache is
 * keyed per environment behind WeakMaps and wraps every hit in a new result object: about 80 ns a
 * lookup, a third of the cost of evaluating a typical condition, paid for every rule of every task.
 * One `Map.get` on the (hash-cached) source string is a few ns. Bounded like the cache behind it,
 * oldest out first. Holding a handle longer than that cache does is harmless: a handle is immutable.
 */
const compiledConditions = new Map<string, RuleCondition>();
const COMPILED_MAX = 10_000;
type CompiledConditionResult = ReturnType<typeof compileCondition>;

function compiledCondition(source: string): RuleCondition {
  let r = compiledConditions.get(source);
  if (r === undefined) {
    const compiled = compileCondition(source);
    r = compiled.ok ? { compiled, plain: plainRunOf(compiled.value), tracer: plainTracerOf(compiled.value) } : { compiled, plain: undefined, tracer: undefined };
    if (compiledConditions.size >= COMPILED_MAX) {
      const oldest = compiledConditions.keys().next();
      if (!oldest.done) compiledConditions.delete(oldest.value);
    }
    compiledConditions.set(source, r);
  }
  return r;
}

/**
 * One rule's condition, compiled, with its plain run (evaluate.ts, `plainRunOf`) taken out once:
 * what a selection needs to evaluate it against a task's context without the layers of
 * `evaluateCondition` (the handle's accessors, the result wrapping, the meter's bookkeeping).
 */
interface RuleCondition {
  readonly compiled: CompiledConditionResult;
  readonly plain: PlainRun | undefined;
  /** What its traces share (the node table, once read); `undefined` when it does not compile. */
  readonly tracer: PlainTracer | undefined;
}

/**
 * A loaded policy's rule conditions compiled, by rule index, so that selecting steps finds each by
 * its index (`runRule`) instead of hashing its source text: with the rest of the adapter down to a
 * few ns a rule, the lookup by text had become its largest part. Filled as rules are first reached.
 * Kept only for a frozen list of frozen rules (a loaded world's), whose conditions cannot change
 * under an index; any other list is `null` here and looked up by text as `run` does.
 */
const compiledRuleLists = new WeakMap<readonly Rule[], RuleCondition[] | null>();

function compiledRuleList(rules: readonly Rule[]): RuleCondition[] | null {
  let list = compiledRuleLists.get(rules);
  if (list === undefined) {
    list = Object.isFrozen(rules) && rules.every((r) => Object.isFrozen(r)) ? [] : null;
    compiledRuleLists.set(rules, list);
  }
  return list;
}

const TRUE: ConditionResult = Object.freeze({ ok: true, value: true });
const FALSE: ConditionResult = Object.freeze({ ok: true, value: false });

/** What a task's conditions read of the world: found on first need, once. */
interface TaskParts {
  readonly directory: CelDirectory;
  readonly subject: User;
  readonly appId: string;
  readonly entitlement: AppEntitlement | null;
  readonly account: AppUser | null;
}

/**
 * {@link TaskConditions} as a class rather than a bundle of closures: built once per task on the
 * decision hot path, it allocates one object instead of four functions (each of which tsx's
 * `keepNames` also renames through `Object.defineProperty`). Everything else is made on first
 * need: the task's subject, entitlement and account, its facts, its prepared input. A runner whose
 * approver evaluator is asked for takes them at that moment (the task may be an immer draft that
 * changes later, see `expressions`).
 */
class ConditionsOfTask implements TaskConditions {
  readonly #world: World;
  readonly #task: Task;
  readonly #trace: boolean;
  // Made on first use: a decision without explanation records none. A condition its recording
  // run decided leaves its record, which is its trace.
  #traces: (ConditionTrace | null)[] | undefined;
  #facts: TaskFacts | undefined;
  #parts: TaskParts | undefined;
  // Prepared lazily: a task that never reaches a condition pays nothing for CEL values. The
  // wrapper a full evaluation takes, or why the input does not prepare.
  #prepared: PreparedConditionInput | CelRuntimeError | undefined;
  // The context behind `#prepared`, for plain runs; `null` when the input did not prepare.
  #context: CelContext | null | undefined;
  #expressions: ExpressionEvaluator | undefined;
  // The compiled conditions of the rule list `runRule` was last given: a selection walks one policy
  // at a time, so this saves even the lookup for all its rules but the first.
  #rulesOf: readonly Rule[] | undefined;
  #compiledRules: RuleCondition[] | null = null;
  // The rule `passOver` stopped at because it was plainly true: `runRule` answers it without
  // evaluating it again (-1: none). Only for `#rulesOf`. Traced, the record of that run.
  #trueAt = -1;
  #trueRecord: ConditionTrace | undefined;

  constructor(world: World, task: Task, trace: boolean) {
    this.#world = world;
    this.#task = task;
    this.#trace = trace;
  }

  get facts(): TaskFacts {
    return (this.#facts ??= taskFacts(this.#task));
  }

  #taskParts(): TaskParts {
    const known = this.#parts;
    if (known !== undefined) return known;
    const world = this.#world;
    const task = this.#task;
    const subject = world.index.users.get(taskSubjectId(task)) ?? NOBODY;
    const t = task.type;
    const scoped = t && (t.kind === "grant" || t.kind === "revoke" || t.kind === "certify") ? t : null;
    const appId = scoped ? scoped.appId : "";
    const appUserId = scoped ? scoped.appUserId : "";
    const parts: TaskParts = {
      directory: celDirectoryOf(world),
      subject,
      appId,
      entitlement: scoped ? (findEntitlement(world, scoped.appId, scoped.appEntitlementId) ?? null) : null,
      account:
        (appUserId !== "" ? world.index.appUsers.get(appUserId) : undefined) ??
        (appId ? findAppUserOf(world, subject.id, appId) : undefined) ??
        // None (most grant requests): the CEL input reads it as an empty account (cel/evaluate.ts).
        null,
    };
    return (this.#parts = parts);
  }

  /** The task's context (or why it does not prepare), once: all a plain run needs. */
  #prepareContext(): CelContext | null {
    const parts = this.#taskParts();
    const world = this.#world;
    const c = conditionContextOrError(parts.subject, this.facts, parts.entitlement, parts.account, requesterIp(this.#task), world.now, parts.directory, world.tenant.celCostLimit);
    if (c instanceof CelContext) return (this.#context = c);
    this.#prepared = c;
    return (this.#context = null);
  }

  /** The prepared input a full evaluation or a trace takes: the same context, wrapped on first need. */
  #input(): PreparedConditionInput | CelRuntimeError {
    const known = this.#prepared;
    if (known !== undefined) return known;
    const context = this.#context === undefined ? this.#prepareContext() : this.#context;
    // A context that did not prepare left its error in `#prepared` (see #prepareContext).
    if (context === null) return this.#prepared as CelRuntimeError;
    return (this.#prepared = new PreparedConditionInput(context));
  }

  run(condition: string): ConditionResult {
    return this.#evaluateRule(compiledCondition(condition));
  }

  runRule(rules: readonly Rule[], index: number): ConditionResult {
    if (rules !== this.#rulesOf) this.#useRules(rules);
    else if (index === this.#trueAt) {
      this.#trueAt = -1;
      // `passOver` ran it on the plain path and stopped here: it was true (traced, its record is one now).
      const record = this.#trueRecord;
      this.#trueRecord = undefined;
      if (record !== undefined) this.#traceList().push(record);
      return TRUE;
    }
    const entry = this.#ruleCondition(rules, index);
    return entry === undefined ? { ok: false, error: `no rule at index ${index}` } : this.#evaluateRule(entry);
  }

  passOver(rules: readonly Rule[], from: number): number {
    if (rules !== this.#rulesOf) this.#useRules(rules);
    const context = this.#context === undefined ? this.#prepareContext() : this.#context;
    if (context === null) return from;
    if (this.#trace) return this.#passOverRecording(rules, from, context);
    // The plain path of each condition, as `#evaluateRule` takes it, without a result per rule.
    let i = from;
    for (; i < rules.length; i++) {
      const plain = this.#ruleCondition(rules, i)?.plain;
      if (plain === undefined) break;
      let v: unknown;
      try {
        v = plain.run(context);
      } catch {
        break;
      }
      if (v === false) continue;
      if (v === true) this.#trueAt = i;
      break;
    }
    return i;
  }

  /**
   * {@link passOver} traced: each condition's recording run decides as its plain run would (see
   * `#evaluateRule`), and what it recorded is kept for the rule's trace.
   */
  #passOverRecording(rules: readonly Rule[], from: number, context: CelContext): number {
    let i = from;
    for (; i < rules.length; i++) {
      const entry = this.#ruleCondition(rules, i);
      if (entry?.plain === undefined || entry.tracer === undefined) break;
      const record = entry.tracer.recordDecision(context);
      if (record === undefined) break;
      if (record.truth(0) === "false") {
        this.#traceList().push(record);
        continue;
      }
      this.#trueAt = i;
      this.#trueRecord = record;
      break;
    }
    return i;
  }

  #useRules(rules: readonly Rule[]): void {
    this.#rulesOf = rules;
    this.#compiledRules = compiledRuleList(rules);
    this.#trueAt = -1;
    this.#trueRecord = undefined;
  }

  /** The compiled condition of `rules[index]` (`#rulesOf`), kept by index for a frozen list. */
  #ruleCondition(rules: readonly Rule[], index: number): RuleCondition | undefined {
    const list = this.#compiledRules;
    let entry = list?.[index];
    if (entry === undefined) {
      const rule = rules[index];
      if (rule === undefined) return undefined;
      entry = compiledCondition(rule.condition);
      if (list) list[index] = entry;
    }
    return entry;
  }

  #evaluateRule(entry: RuleCondition): ConditionResult {
    const plain = entry.plain;
    if (plain !== undefined) {
      // The plain path: the closures straight on the task's context. Anything off it (an error, a
      // budget smaller than the expression) is evaluated in full below, as if this had not run.
      const context = this.#context === undefined ? this.#prepareContext() : this.#context;
      if (context) {
        if (this.#trace) {
          // Traced, the condition's recording run takes the plain run's place: the same answers
          // on the same path (generate.ts), and every node's value recorded on the way, so the
          // trace's readers do not evaluate the condition a second time.
          const record = entry.tracer?.recordDecision(context);
          if (record !== undefined) {
            this.#traceList().push(record);
            return record.truth(0) === "true" ? TRUE : FALSE;
          }
        } else {
          const v = plainValue(plain, context);
          if (v !== undefined) return v ? TRUE : FALSE;
        }
      }
    }
    return this.#evaluate(entry.compiled);
  }

  #evaluate(compiled: CompiledConditionResult): ConditionResult {
    if (!compiled.ok) {
      if (this.#trace) this.#traceList().push(null);
      const first = compiled.error[0];
      return { ok: false, error: first ? `${first.code}: ${first.message} (the condition does not compile)` : "the condition does not compile" };
    }
    const p = this.#prepared ?? this.#input();
    if (!(p instanceof PreparedConditionInput)) {
      if (this.#trace) this.#traceList().push(null);
      return { ok: false, error: describeError(p) };
    }
    if (this.#trace) {
      // The trace's outcome is the evaluation: the explanation and the decision cannot disagree.
      const tr = traceCondition(compiled.value, p);
      this.#traceList().push(tr);
      return tr.outcome.ok ? (tr.outcome.value ? TRUE : FALSE) : { ok: false, error: describeError(tr.outcome.error) };
    }
    const r = evaluateCondition(compiled.value, p);
    return r.ok ? (r.value ? TRUE : FALSE) : { ok: false, error: describeError(r.error) };
  }

  traces(): readonly (ConditionTrace | null)[] {
    return this.#traceList();
  }

  /** See {@link conditionsSignature}. */
  signature(signatures: InputSignatures): number {
    const p = this.#prepared ?? this.#input();
    return p instanceof PreparedConditionInput ? signatures.of(p) : -1;
  }

  #traceList(): (ConditionTrace | null)[] {
    return (this.#traces ??= []);
  }

  /**
   * A plain function (callers pass it around unbound), made on first use: most decisions never need
   * it. What it reads of the task is taken now: a caller may hand an immer draft and ask for this
   * right away, then change the draft before calling it.
   */
  get expressions(): ExpressionEvaluator {
    const known = this.#expressions;
    if (known !== undefined) return known;
    const { directory, subject, appId, entitlement, account } = this.#taskParts();
    const ip = requesterIp(this.#task);
    const facts = this.facts;
    const world = this.#world;
    const campaignOwners = campaignOwnersOf(world, this.#task);
    return (this.#expressions = (expression) => {
      const compiled = compileApproverExpression(expression);
      if (!compiled.ok) return { ok: false, error: compiled.error[0]?.message ?? "the expression does not compile" };
      const appOwners = appId ? (directory.appOwners(appId) ?? []) : [];
      const p = prepareApproverInput({ subject, appOwners, campaignOwners, entitlement, task: facts, account, ip, now: world.now, directory, costLimit: world.tenant.celCostLimit });
      if (!p.ok) return { ok: false, error: describeError(p.error) };
      const r = evaluateApproverExpression(compiled.value, p.value);
      return r.ok ? r : { ok: false, error: describeError(r.error) };
    });
  }
}

/**
 * `campaignOwners` of an approver expression: the owners of the access review a certify task belongs
 * to (the world's `accessReviews[].ownerUserIds`, users the directory knows), none for other tasks.
 */
function campaignOwnersOf(world: World, task: Task): readonly User[] {
  const t = task.type;
  if (t?.kind !== "certify") return [];
  const review = world.index.accessReviews.get(certifyReviewId(t));
  const out: User[] = [];
  for (const id of review?.ownerUserIds ?? []) {
    const u = world.index.users.get(id);
    if (u) out.push(u);
  }
  return out;
}
