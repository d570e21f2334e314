/**
 * The one decision every consumer shares: which policy applies to a task and which of its step
 * sequences is selected. Hard Reset acts on it, `explain` renders it (with traces turned on), and
 * what-if compares it before and after an edit. There is no second code path.
 */
import type { Task } from "../model/index.js";
import type { Result } from "../result.js";
import type { World } from "../world/world.js";
import { type Resolution, type ResolutionError, resolvePolicy } from "./resolve-policy.js";
import { type Selection, type SelectionError, selectSteps } from "./select-steps.js";
import { type ConditionTrace, taskConditions, type TaskConditions } from "./task-conditions.js";

/**
 * The outcome of deciding a task's policy: the resolution, then (when it succeeded) the selection.
 * With `trace: true`, `traces` holds one trace per evaluated rule (baseline entries have none), in
 * the order of `evaluations`: the n-th rule evaluation owns the n-th trace.
 *
 * @example
 * ```ts
 * const d = decide(world, task);
 * if (d.selection?.ok) console.log(d.selection.value.decidedBy);
 * ```
 */
export interface Decision {
  readonly task: Task;
  readonly resolution: Result<Resolution, ResolutionError>;
  readonly selection: Result<Selection, SelectionError> | null;
  /** Per evaluated rule, in order; empty unless traced. */
  readonly traces: readonly (ConditionTrace | null)[];
  /** The conditions environment used, reusable for approver expressions of the same task. */
  readonly conditions: TaskConditions;
}

/**
 * Options of {@link decide}.
 *
 * @example
 * ```ts
 * decide(world, task, { trace: true });
 * ```
 */
export interface DecideOptions {
  /**
   * Record the value of every sub-expression of each evaluated condition (for explanations). While
   * deciding, each condition's recording run decides and keeps each node's raw value, which is its
   * trace; displays and the node tree are made when first read.
   */
  readonly trace?: boolean;
}

/**
 * Resolves the task's policy and selects its steps, evaluating conditions against the world at its
 * clock. Never throws.
 *
 * @example
 * ```ts
 * const d = decide(world, findTask(world, "1001")!, { trace: true });
 * ```
 */
export function decide(world: World, task: Task, options: DecideOptions = {}): Decision {
  const conditions = taskConditions(world, task, { trace: options.trace === true });
  const resolution = resolvePolicy(world, task);
  const selection = resolution.ok ? selectSteps(world, resolution.value.policy, conditions) : null;
  // Traced, each evaluated condition's recording run left its trace in the list (task-conditions.ts).
  return { task, resolution, selection, traces: conditions.traces(), conditions };
}
