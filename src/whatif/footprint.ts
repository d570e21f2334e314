/**
 * Which tasks a directory edit can reach. A decision reads the directory through known channels
 * only: the task's subject (every field, and its first manager's email, which `subject.manager`
 * shows); the task's entitlement and app; the `c1.directory.*` functions, which may return any user,
 * group or entitlement (`cel/reads.ts` finds them on a condition's AST); and, for a first step that
 * is an approval, approver resolution — the kind's candidates (listed users, the subject's managers,
 * the app's or entitlement's owners, a group's members, an expression's result, the fallback users
 * and fallback groups' members, and, when nobody is found, the Super Administrators or the
 * campaign's owners), of each its existence, `status`, roles and delegation, and of its delegate,
 * existence and `status` (`workflow/approvers.ts`). A task none of whose channels carries
 * a change ({@link VisibleChanges}) decides alike in both worlds, conditions and approvers included.
 *
 * What a task may evaluate or route to is bounded by the reach of its policy (`closure.ts`): every
 * rule condition of every policy selection may visit, and the first step of every step sequence
 * they hold. The bound is taken in both worlds, so an edit that also changes policies is covered.
 */
import { approverExpressionReads, conditionReads } from "../cel/reads.js";
import type { Approval, Policy, Task } from "../model/index.js";
import { taskEntitlementRef, taskSubjectId } from "../model/task-refs.js";
import { superAdministrators } from "../workflow/approvers.js";
import { entitlementKey, type World } from "../world/world.js";
import type { ReachMemo } from "./closure.js";
import type { VisibleChanges } from "./edit.js";

/** What the policies of a reach can make a decision read of the directory. */
interface ReachReads {
  /** Some condition calls a `c1.directory.*` function. */
  readonly directory: boolean;
  /** The approvals that start some step sequence of the reach. */
  readonly approvals: readonly Approval[];
}

/**
 * How a task's routing depends on the directory, once its resolution key is known: `always` when
 * something every task of the key reads changed; otherwise whether its subject's managers must be
 * checked (a manager approval may start its route), and whether their delegates too.
 */
export interface KeyFootprint {
  readonly always: boolean;
  readonly managers: "no" | "plain" | "delegation";
}

function approvalsOf(world: World, root: Policy, reach: ReadonlySet<string>): { directory: boolean; approvals: Approval[] } {
  let directory = false;
  const approvals: Approval[] = [];
  // The root as resolved (it may be a task's own snapshot, absent from the world); the others as
  // selection looks them up. A reference back to the root's id is a cycle and reads nothing.
  const policies: Policy[] = [root];
  for (const id of reach) {
    const p = id === root.id ? undefined : world.index.policies.get(id);
    if (p) policies.push(p);
  }
  for (const p of policies) {
    for (const rule of p.rules ?? []) if (conditionReads(rule.condition).directory) directory = true;
    for (const entry of Object.values(p.policySteps ?? {})) {
      const first = entry?.steps?.[0];
      if (first?.kind === "approval") approvals.push(first);
    }
  }
  return { directory, approvals };
}

/** Whoever a step with nobody to ask may go to: Super Administrators and every campaign's owners. */
function lastResortUsers(world: World): string[] {
  const ids = superAdministrators(world);
  for (const review of world.index.accessReviews.values()) ids.push(...(review.ownerUserIds ?? []));
  return ids;
}

/**
 * The directory footprint of tasks, for one pair of worlds and the changes between them.
 *
 * @example
 * ```ts
 * const fp = new DirectoryFootprint(world, after, impact.visible!, reaches0, reaches1);
 * const key = fp.ofKey(task, [p0, p1]);
 * if (fp.reaches(task, key)) console.log("decide", task.id, "in both worlds");
 * ```
 */
export class DirectoryFootprint {
  readonly #before: World;
  readonly #changes: VisibleChanges;
  // Per world: a policy object both worlds share may reach different policies in each.
  readonly #reads: readonly [Map<Policy, ReachReads>, Map<Policy, ReachReads>] = [new Map(), new Map()];
  readonly #reaches: readonly [ReachMemo, ReachMemo];
  readonly #worlds: readonly [World, World];
  readonly #managersHit = new Map<string, boolean>();
  readonly #anyUser: boolean;
  /** A changed approver is a Super Administrator or a campaign owner in either world: every step that may find nobody can route to them. */
  readonly #lastResortHit: boolean;

  constructor(before: World, after: World, changes: VisibleChanges, reachesBefore: ReachMemo, reachesAfter: ReachMemo) {
    this.#before = before;
    this.#changes = changes;
    this.#reaches = [reachesBefore, reachesAfter];
    this.#worlds = [before, after];
    this.#anyUser = changes.users.size > 0;
    this.#lastResortHit = changes.approverUsers.size > 0 && [before, after].some((w) => lastResortUsers(w).some((id) => changes.approverUsers.has(id)));
  }

  #readsOf(side: 0 | 1, policy: Policy): ReachReads {
    const memo = this.#reads[side];
    let r = memo.get(policy);
    if (!r) {
      r = approvalsOf(this.#worlds[side], policy, this.#reaches[side].of(policy).ids);
      memo.set(policy, r);
    }
    return r;
  }

  /** A candidate approver whose change approver resolution would see (itself or, with delegation, its delegate). */
  #candidateHit(id: string, delegation: boolean): boolean {
    const changed = this.#changes.approverUsers;
    if (changed.has(id)) return true;
    if (!delegation) return false;
    const d = this.#before.index.users.get(id)?.delegatedUserId;
    return d !== undefined && d !== "" && changed.has(d);
  }

  #anyHit(ids: readonly string[] | null | undefined, delegation: boolean): boolean {
    if (!ids) return false;
    for (const id of ids) if (this.#candidateHit(id, delegation)) return true;
    return false;
  }

  /**
   * The part of a task's footprint its resolution key fixes (the entitlement, the app, the
   * policies resolved in either world): shared by every task of the key.
   */
  ofKey(task: Task, policies: readonly [Policy | null, Policy | null]): KeyFootprint {
    const changes = this.#changes;
    const { appId, entitlementId } = taskEntitlementRef(task);
    if (appId && (changes.apps.has(appId) || changes.entitlements.has(entitlementKey(appId, entitlementId)))) return { always: true, managers: "no" };
    const world = this.#before;
    let managers: KeyFootprint["managers"] = "no";
    for (const side of [0, 1] as const) {
      const policy = policies[side];
      if (!policy) continue;
      const reads = this.#readsOf(side, policy);
      if (reads.directory && (this.#anyUser || changes.entitlements.size > 0 || changes.apps.size > 0)) return { always: true, managers: "no" };
      for (const step of reads.approvals) {
        const kind = step.approvers;
        if (!kind) {
          if (this.#lastResortHit) return { always: true, managers: "no" };
          continue;
        }
        const delegation = step.allowDelegation;
        // Any approval a person reviews may end with the campaign owners or Super Administrators.
        if (this.#lastResortHit && kind.kind !== "webhook" && kind.kind !== "agent" && kind.kind !== "unknown") return { always: true, managers: "no" };
        switch (kind.kind) {
          case "users":
            if (this.#anyHit(kind.userIds, delegation)) return { always: true, managers: "no" };
            break;
          case "manager":
            if (delegation) managers = "delegation";
            else if (managers === "no") managers = "plain";
            break;
          case "appOwners":
            if (this.#anyHit(world.index.apps.get(appId)?.ownerUserIds, delegation)) return { always: true, managers: "no" };
            break;
          case "entitlementOwners":
            if (this.#anyHit(world.index.entitlements.get(entitlementKey(appId, entitlementId))?.ownerUserIds, delegation)) return { always: true, managers: "no" };
            break;
          case "group":
            if (this.#anyHit(world.index.groups.get(kind.appGroupId)?.memberUserIds, delegation)) return { always: true, managers: "no" };
            break;
          case "expression":
            // An expression sees the subject, the app's owners (as users, with their managers' emails)
            // and, through c1.directory, anyone: any user change may reach it.
            if (this.#anyUser) return { always: true, managers: "no" };
            for (const e of kind.expressions ?? []) if (approverExpressionReads(e).directory && (changes.entitlements.size > 0 || changes.apps.size > 0)) return { always: true, managers: "no" };
            break;
          case "self":
          case "resourceOwners":
          case "webhook":
          case "agent":
          case "unknown":
            // The subject is checked per task; the others read no user.
            break;
          default: {
            const never: never = kind;
            return never;
          }
        }
        if ("fallback" in kind && kind.fallback) {
          if (this.#anyHit(kind.fallbackUserIds, delegation)) return { always: true, managers: "no" };
          if (kind.isGroupFallbackEnabled)
            for (const g of kind.fallbackGroupIds ?? []) {
              if (this.#anyHit(world.index.entitlementMembers.get(entitlementKey(g.appId, g.appEntitlementId)), delegation)) return { always: true, managers: "no" };
            }
        }
      }
    }
    return { always: false, managers };
  }

  /** Whether the changes reach this task's decision in either world. */
  reaches(task: Task, key: KeyFootprint): boolean {
    if (key.always) return true;
    if (!this.#anyUser) return false;
    const changes = this.#changes;
    const subjectId = taskSubjectId(task);
    if (changes.users.has(subjectId)) return true;
    const subject = this.#before.index.users.get(subjectId);
    if (!subject) return false;
    const first = subject.managerIds[0];
    if (first !== undefined && changes.managerUsers.has(first)) return true;
    if (key.managers === "no") return false;
    const memoKey = key.managers === "delegation" ? `d${subjectId}` : `p${subjectId}`;
    let hit = this.#managersHit.get(memoKey);
    if (hit === undefined) {
      hit = this.#anyHit(subject.managerIds, key.managers === "delegation");
      this.#managersHit.set(memoKey, hit);
    }
    return hit;
  }
}
