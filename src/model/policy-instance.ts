/**
 * The policy a task carries (spec, "PolicyInstance").
 */
import type { AppendLog } from "../world/append-log.js";
import type { UnknownFields } from "./common.js";
import type { Policy } from "./policy.js";
import type { PolicyStep } from "./policy-step.js";
import type { PolicyStepInstance } from "./step-instance.js";

/**
 * A task's policy: the snapshot it was created from, the step running now, the steps done, and the
 * step definitions still to come.
 *
 * @example
 * ```ts
 * const pending = (p: PolicyInstance) => (p.next ?? []).map((s) => s.kind);
 * const lastDone = (p: PolicyInstance) => p.history?.at(-1)?.state;
 * ```
 */
export interface PolicyInstance {
  readonly current: PolicyStepInstance | null;
  /**
   * The steps done, oldest first: an append-only log (read it like a read-only array: `length`,
   * `at(i)`, iteration, `map`, `filter`, `some`, `find`, `slice`), so that retiring steps into it
   * costs the same however long it is. JSON writes it as an array.
   */
  readonly history: AppendLog<PolicyStepInstance> | null;
  /** Step definitions, not instances (docs/domain.md §1). */
  readonly next: readonly PolicyStep[] | null;
  readonly policy: Policy | null;
  /**
   * (sim) The policies `policy` refers to, directly or through others, as they were when the policy
   * was put on the task (policies page: the whole chain is snapshotted when the task is created). A
   * Restart selects against them; a Hard Reset reads the world's policies and takes a new snapshot.
   * Absent when the task was not put on its policy by the simulation (a world file's task).
   */
  readonly referencedPolicies?: readonly Policy[] | null;
  readonly $unknown?: UnknownFields;
}
