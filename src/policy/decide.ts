/**
 * The one decision every consumer shares: which policy applies to a task and which of its step
 * sequences is selected. Hard Reset acts on it, `explain` renders it (with traces turned on), and
 * what-if compares it before and after an edit. There is no second code path.
 */
import type { Task } from "../model/index.js";
import type { Result } from "../result.js";
import { describeArgument } from "../codec/diagnostic.js";
import { findTask, isWorld, type World } from "../world/world.js";
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
 * The task `decide` is asked about: a Task as it is, the task an id or numericId names (as
 * `explain` takes it), or — for an id the world lacks or a value that is not a task — why not,
 * which `decide` answers as a resolution error rather than a throw or a decision about a task
 * with no fields.
 */
function taskOf(world: World, task: unknown): { readonly task: Task } | { readonly missing: string; readonly id: string } {
  if (!isWorld(world))
    throw new TypeError(`decide(world, task): world must be a World (loadWorld's value), not ${describeArgument(world)}`);
  if (typeof task === "string") {
    const found = findTask(world, task);
    return found !== undefined ? { task: found } : { missing: `the world has no task "${task}" (by id or numericId)`, id: task };
  }
  if (typeof task !== "object" || task === null || typeof (task as Partial<Task>).id !== "string" || !("type" in task))
    return { missing: `decide(world, task): task must be a Task (e.g. findTask(world, "1001")) or a task id or numericId, not ${describeArgument(task)}`, id: "" };
  return { task: task as Task };
}

/**
 * Resolves the task's policy and selects its steps, evaluating conditions against the world at its
 * clock. `task` is a Task (of the world, or a draft not yet in it), or the id or numericId of one of
 * the world's tasks. Never throws for a task: an id the world lacks, or a value that is not a task,
 * is a resolution error (`NO_TASK`) with no selection. (A `world` that is not a World is a
 * programmer error TypeScript refuses; it throws a TypeError saying so.)
 *
 * @example
 * ```ts
 * const d = decide(world, "1001", { trace: true });
 * if (d.selection?.ok) console.log(d.selection.value.decidedBy);
 * const same = decide(world, findTask(world, "1001")!);
 * decide(world, "nope").resolution; // { ok: false, error: { code: "NO_TASK", … } }
 * ```
 */
export function decide(world: World, task: Task | string, options: DecideOptions = {}): Decision {
  let found: ReturnType<typeof taskOf>;
  try {
    found = taskOf(world, task);
  } catch (e: unknown) {
    if (e instanceof TypeError && !isWorld(world)) throw e;
    return noTask(world, "", unreadable(e));
  }
  if ("missing" in found) return noTask(world, found.id, found.missing);
  if (typeof task === "string") return decideTask(world, found.task, options);
  try {
    return decideTask(world, found.task, options);
  } catch (e: unknown) {
    // A task object of the caller's whose fields throw when read (a proxy, a getter).
    return noTask(world, "", unreadable(e));
  }
}

const unreadable = (e: unknown): string => `decide(world, task): the task cannot be read: ${e instanceof Error ? e.message : String(e)}`;

/** A decision without a task: what a Decision needs of one, and nothing a reader could take for a real one. */
function noTask(world: World, id: string, message: string): Decision {
  const none = { id, numericId: "", type: null } as unknown as Task;
  const conditions = taskConditions(world, none, { trace: false });
  return { task: none, resolution: { ok: false, error: { code: "NO_TASK", message, checks: [] } }, selection: null, traces: [], conditions };
}

function decideTask(world: World, t: Task, options: DecideOptions): Decision {
  const conditions = taskConditions(world, t, { trace: options?.trace === true });
  const resolution = resolvePolicy(world, t);
  const selection = resolution.ok ? selectSteps(world, resolution.value.policy, conditions) : null;
  // Traced, each evaluated condition's recording run left its trace in the list (task-conditions.ts).
  return { task: t, resolution, selection, traces: conditions.traces(), conditions };
}
