/**
 * Putting a task (back) on a policy: select the policy's steps for the task, retire what was running
 * and pending into history, instantiate the first step and run the workflow on. Restart, Change
 * Policy, Escalate to Emergency Access, an escalation's `replacePolicy` and a task the simulation
 * creates all go through here; Hard Reset has its own copy (`resetTask`) that also re-decides which
 * policy applies.
 */
import { AppendLog } from "../world/append-log.js";
import { API_NAMED, apiNamedMark, isApiNamed } from "../codec/spec-names.js";
import type { Policy, PolicyInstance, PolicyStep, PolicyStepInstance, Task } from "../model/index.js";
import { chainSnapshot, type PolicyLookup, type RuleEvaluation, selectSteps, type Selection } from "../policy/select-steps.js";
import { taskConditions } from "../policy/task-conditions.js";
import { err, ok, type Result } from "../result.js";
import { type AdvanceContext, advance, emit } from "./advance.js";
import { instantiate, retire } from "./instantiate.js";
import { withOutcome } from "./outcomes.js";

/**
 * Selects a policy's steps for a task at the world's clock (its rules, reference chain and
 * baseline), recording one `conditionalPolicyExecutionResult` event per rule evaluated.
 *
 * @example
 * ```ts
 * const s = selectOn(ctx, task, policy);
 * if (s.ok) console.log(s.value.steps.length);
 * ```
 */
/**
 * Emits one `conditionalPolicyExecutionResult` audit event per evaluated rule, in order.
 *
 * @example
 * ```ts
 * emitRuleEvaluations(ctx, task.id, selection.evaluations);
 * ```
 */
export function emitRuleEvaluations(ctx: AdvanceContext, taskId: string, evaluations: readonly RuleEvaluation[]): void {
  for (const e of evaluations)
    emit(ctx, taskId, "", {
      kind: "conditionalPolicyExecutionResult",
      policyId: e.policyId,
      chainDepth: e.chainDepth,
      condition: e.condition,
      conditionMatched: e.conditionMatched,
      defaultCondition: e.defaultCondition,
      error: e.error,
      policyKey: e.policyKey,
      stepKey: e.stepKey,
      outcomePolicyId: e.outcomePolicyId,
    });
}

export function selectOn(ctx: AdvanceContext, task: Task, policy: Policy, lookup?: PolicyLookup): Result<Selection, string> {
  const selection = selectSteps(ctx.world, policy, taskConditions(ctx.world, task), lookup);
  const evaluations = selection.ok ? selection.value.evaluations : selection.error.evaluations;
  emitRuleEvaluations(ctx, task.id, evaluations);
  return selection.ok ? ok(selection.value) : err(`${selection.error.code}: ${selection.error.message}`);
}

/**
 * How {@link restartOn} puts the task on its policy.
 *
 * @example
 * ```ts
 * const how: RestartHow = { policy, steps, newGeneration: true, userId: "u-it-dir" };
 * ```
 */
export interface RestartHow {
  /** The policy snapshot the task carries from now on. */
  readonly policy: Policy;
  readonly steps: readonly PolicyStep[];
  /** Issue a new `policyGenerationId` (the policy on the task changed). */
  readonly newGeneration: boolean;
  /** Who retires the old steps (`""` for the system). */
  readonly userId: string;
  /**
   * The chain snapshot the task carries on (`PolicyInstance.referencedPolicies`): absent to take a
   * new one from the world's policies (a policy newly put on the task); the task's own to keep it (a
   * Restart); `null` for a task that carries none and keeps carrying none.
   */
  readonly referencedPolicies?: readonly Policy[] | null;
}

/**
 * Retires the task's running and pending steps into history (nothing is dropped), resets its
 * outcome and decisions, reopens it on `how.steps` and runs the workflow on.
 *
 * @example
 * ```ts
 * const t = restartOn(ctx, task, { policy: task.policy!.policy!, steps, newGeneration: false, userId: "u-it-dir" });
 * ```
 */
export function restartOn(ctx: AdvanceContext, task: Task, how: RestartHow): Task {
  const old = task.policy;
  const generation = how.newGeneration || task.policyGenerationId === "" ? ctx.ids.take("gen") : task.policyGenerationId;
  const [first, ...rest] = how.steps;
  const firstId = first ? ctx.ids.take("step") : "";
  const by = { at: ctx.now, userId: how.userId, replacedBy: firstId, restartedStepId: old?.current?.id ?? "" };
  const retired: PolicyStepInstance[] = [];
  if (old?.current) retired.push(retire(old.current, by));
  // A closed task's leftover `next` never ran; it is not retired into history again.
  if (task.state !== "TASK_STATE_CLOSED")
    for (const pending of old?.next ?? []) retired.push(retire(instantiate(pending, ctx.ids.take("step"), task.policyGenerationId, ctx.now), by));
  const referencedPolicies = how.referencedPolicies === undefined ? chainSnapshot(ctx.world, how.policy) : how.referencedPolicies;
  const policy: PolicyInstance = {
    current: first ? instantiate(first, firstId, generation, ctx.now) : null,
    // Appended to the task's log, not copied: a restart costs the same however many came before.
    history: (old?.history ?? AppendLog.empty<PolicyStepInstance>()).appendAll(retired),
    next: rest,
    policy: how.policy,
    ...(referencedPolicies !== null ? { referencedPolicies } : {}),
    ...(old?.$unknown ? { $unknown: old.$unknown } : {}),
  };
  return advance(ctx, reopened(task, policy, generation, ctx.now, task.commentCount));
}

/**
 * The task reopened on a new policy instance, before its first step starts: open and processing,
 * its type's outcome and its approvers reset. Restart and Hard Reset share it.
 *
 * One literal rather than `{ ...task, state, … }`: a world's tasks are frozen, and V8 (Node 20)
 * copies a frozen object's properties one by one on its slow path, ~1.2 µs for a task.
 *
 * @example
 * ```ts
 * const open = reopened(task, { current, history, next, policy }, "gen-000007", world.now, task.commentCount);
 * open.state; // "TASK_STATE_OPEN"
 * ```
 */
export function reopened(task: Task, policy: PolicyInstance, generation: string, now: string, commentCount: number): Task {
  return {
    id: task.id,
    numericId: task.numericId,
    displayName: task.displayName,
    description: task.description,
    state: "TASK_STATE_OPEN",
    processing: "TASK_PROCESSING_TYPE_PROCESSING",
    origin: task.origin,
    actions: task.actions,
    type: task.type ? withOutcome(task.type, null, null) : null,
    policy,
    policyGenerationId: generation,
    form: task.form,
    userId: task.userId,
    createdByUserId: task.createdByUserId,
    approverIds: [],
    stepApproverIds: [],
    commentCount,
    emergencyAccess: task.emergencyAccess,
    analysisId: task.analysisId,
    insightIds: task.insightIds,
    recommendation: task.recommendation,
    revocationTargets: task.revocationTargets,
    externalRefs: task.externalRefs,
    annotations: task.annotations,
    data: task.data,
    createdAt: task.createdAt,
    updatedAt: now,
    deletedAt: task.deletedAt,
    ...(task.$unknown ? { $unknown: task.$unknown } : {}),
    // A task written with the API's names is saved with them after a reset too.
    ...(isApiNamed(task) ? { [API_NAMED]: apiNamedMark(task) } : {}),
  };
}

/**
 * The policy a task carries now (its snapshot), or `undefined` when it carries none.
 *
 * @example
 * ```ts
 * currentPolicyOf(task)?.id; // "pol-aws-access"
 * ```
 */
export function currentPolicyOf(task: Task): Policy | undefined {
  return task.policy?.policy ?? undefined;
}
