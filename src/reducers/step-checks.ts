/**
 * The state checks the workflow actions share, each returning the `FAILED_PRECONDITION` a caller can
 * act on ("task 1012's current step is a form step, not an approval").
 */
import type { PolicyStepInstance, StepInstance, Task } from "../model/index.js";
import { currentKind } from "../workflow/steps.js";
import type { SimError } from "./errors.js";
import { precondition } from "./task-action.js";

/**
 * The task's name in messages: its numericId when it has one.
 *
 * @example
 * ```ts
 * taskName(task); // "1001"
 * ```
 */
export function taskName(task: Task): string {
  return task.numericId || task.id;
}

/**
 * `FAILED_PRECONDITION` unless the task is open.
 *
 * @example
 * ```ts
 * mustBeOpen(task, "approve"); // undefined for an open task
 * ```
 */
export function mustBeOpen(task: Task, what: string): SimError | undefined {
  if (task.state === "TASK_STATE_OPEN") return undefined;
  return precondition(`cannot ${what} task ${taskName(task)}: it is ${task.state === "TASK_STATE_CLOSED" ? "closed" : `in state ${task.state}`}`);
}

type Kind = Exclude<StepInstance["kind"], "unknown">;
type InstanceOf<K extends Kind> = Extract<StepInstance, { kind: K }>;

/**
 * The open task's current step when it is of `kind` and has no outcome yet; otherwise the
 * `FAILED_PRECONDITION` saying what the step is. `policyStepId`, when given, must name it (a stale
 * id means someone acted first).
 *
 * @example
 * ```ts
 * const cur = pendingStep(task, "approval", "approve", "");
 * if (!cur.ok) return cur.error;
 * ```
 */
export function pendingStep<K extends Kind>(
  task: Task,
  kind: K,
  what: string,
  policyStepId: string,
): { ok: true; step: PolicyStepInstance; instance: InstanceOf<K> } | { ok: false; error: SimError } {
  const closed = mustBeOpen(task, what);
  if (closed) return { ok: false, error: closed };
  const step = task.policy?.current ?? null;
  const inst = step?.instance ?? null;
  if (!step || !inst || inst.kind !== kind) {
    const k = currentKind(task);
    return {
      ok: false,
      error: precondition(`cannot ${what} task ${taskName(task)}: its current step is ${k === "none" ? "missing" : `${article(k)} ${k} step`}, not ${article(kind)} ${kind} step`),
    };
  }
  if (policyStepId !== "" && policyStepId !== step.id)
    return { ok: false, error: precondition(`cannot ${what} step "${policyStepId}" of task ${taskName(task)}: the current step is "${step.id}"`) };
  const decided = "outcome" in inst && inst.outcome !== null;
  if (decided) return { ok: false, error: precondition(`cannot ${what} task ${taskName(task)}: its current ${kind} step already has an outcome`) };
  return { ok: true, step, instance: inst as InstanceOf<K> };
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? "an" : "a";
}
