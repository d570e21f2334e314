/**
 * The CEL side of a decision for one task: the task's condition input prepared once (so a policy
 * with 16 rules converts the task, subject, entitlement and account to CEL values once, not 16
 * times), each condition compiled once per source text for the whole process, and — for
 * explanations — a trace of every evaluated condition recorded from the same evaluation.
 */
import {
  type CelRuntimeError,
  compileApproverExpression,
  compileCondition,
  type ConditionTrace,
  evaluateApproverExpression,
  evaluateCondition,
  prepareApproverInput,
  prepareConditionInput,
  type PreparedConditionInput,
  type TaskFacts,
  traceCondition,
} from "../cel/index.js";
import type { User } from "../model/directory.js";
import type { Task } from "../model/index.js";
import type { Result } from "../result.js";
import type { ExpressionEvaluator } from "../workflow/approvers.js";
import { celDirectoryOf } from "../world/cel-directory.js";
import { findEntitlement, type World } from "../world/world.js";
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
}

/** A user with every field empty: the `subject` of a task whose target is not in the directory. */
const NOBODY: User = Object.freeze({
  id: "",
  email: "",
  emails: [],
  displayName: "",
  username: "",
  usernames: [],
  department: "",
  jobTitle: "",
  employmentType: "",
  employmentStatus: "",
  status: "",
  directoryStatus: "",
  type: "",
  managerIds: [],
  profile: {},
  attributes: {},
  roleIds: [],
  delegatedUserId: "",
});

function describeError(e: CelRuntimeError): string {
  const where = e.location ? ` at ${e.location.line}:${e.location.column}` : "";
  return `${e.code}: ${e.message}${where}`;
}

/** What conditions see as `task` (DOMAIN.md §5). */
export function taskFacts(task: Task): TaskFacts {
  const t = task.type;
  const grantDuration = t?.kind === "grant" ? t.grantDuration : null;
  return {
    id: task.id,
    numericId: task.numericId,
    displayName: task.displayName,
    origin: task.origin,
    isGrantPermanent: t?.kind === "grant" ? !grantDuration || grantDuration === "0s" : false,
    grantDuration,
    subjectUserId: subjectIdOf(task),
    requestorUserId: task.createdByUserId,
    createdAt: task.createdAt,
    analysis: task.analysisId ? { id: task.analysisId, hasConflictViolations: false, conflictViolations: [] } : null,
  };
}

/** The task's target user id: `userId`, else the identity user of its type. */
export function subjectIdOf(task: Task): string {
  if (task.userId) return task.userId;
  const t = task.type;
  if (!t) return "";
  switch (t.kind) {
    case "grant":
    case "revoke":
    case "certify":
      return t.identityUserId;
    case "offboarding":
      return t.subjectUserId;
    default:
      return "";
  }
}

/** The requester's address, when the task's free-form data carries one (`data.ip`). */
function requesterIp(task: Task): string | null {
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
  const directory = celDirectoryOf(world);
  const subject = world.index.users.get(subjectIdOf(task)) ?? NOBODY;
  const t = task.type;
  const appId = t && (t.kind === "grant" || t.kind === "revoke" || t.kind === "certify") ? t.appId : "";
  const entitlement = t && (t.kind === "grant" || t.kind === "revoke" || t.kind === "certify") ? (findEntitlement(world, t.appId, t.appEntitlementId) ?? null) : null;
  const appUserId = t && (t.kind === "grant" || t.kind === "revoke" || t.kind === "certify") ? t.appUserId : "";
  const account = world.index.appUsers.get(appUserId) ?? (appId ? world.index.appUserByUserAndApp.get(`${subject.id}\u0000${appId}`) : undefined) ?? null;
  const facts = taskFacts(task);
  const trace = options.trace === true;
  const traces: (ConditionTrace | null)[] = [];

  // Prepared lazily: a task that never reaches a condition pays nothing for CEL values.
  let prepared: Result<PreparedConditionInput, CelRuntimeError> | undefined;
  const input = () =>
    (prepared ??= prepareConditionInput({ subject, task: facts, entitlement, account, ip: requesterIp(task), now: world.now, directory }));

  const run = (condition: string): ConditionResult => {
    const compiled = compileCondition(condition);
    if (!compiled.ok) {
      if (trace) traces.push(null);
      const first = compiled.error[0];
      return { ok: false, error: first ? `${first.code}: ${first.message} (the condition does not compile)` : "the condition does not compile" };
    }
    const p = input();
    if (!p.ok) {
      if (trace) traces.push(null);
      return { ok: false, error: describeError(p.error) };
    }
    if (trace) {
      // The trace's outcome is the evaluation: the explanation and the decision cannot disagree.
      const tr = traceCondition(compiled.value, p.value);
      traces.push(tr);
      return tr.outcome.ok ? { ok: true, value: tr.outcome.value } : { ok: false, error: describeError(tr.outcome.error) };
    }
    const r = evaluateCondition(compiled.value, p.value);
    return r.ok ? { ok: true, value: r.value } : { ok: false, error: describeError(r.error) };
  };

  const expressions: ExpressionEvaluator = (expression) => {
    const compiled = compileApproverExpression(expression);
    if (!compiled.ok) return { ok: false, error: compiled.error[0]?.message ?? "the expression does not compile" };
    const appOwners = appId ? (directory.appOwners(appId) ?? []) : [];
    const p = prepareApproverInput({ subject, appOwners, entitlement, task: facts, now: world.now, directory });
    if (!p.ok) return { ok: false, error: describeError(p.error) };
    const r = evaluateApproverExpression(compiled.value, p.value);
    return r.ok ? r : { ok: false, error: describeError(r.error) };
  };

  return { run, expressions, traces: () => traces, facts };
}
