/**
 * Who reviews an approval step. Each of the ten approver kinds resolves against the world's
 * directory; self-approval, inactive users, delegation and fallbacks are applied the same way for
 * all of them, and every exclusion is noted so an explanation can say why someone is not an approver.
 */
import type { User } from "../model/directory.js";
import type { Approval, ApproverKind, Task } from "../model/index.js";
import { taskEntitlementRef, taskSubjectId } from "../model/task-refs.js";
import type { Result } from "../result.js";
import { entitlementKey, findEntitlement, type World } from "../world/world.js";

/**
 * Evaluates approver expressions (CEL) for one task: the user ids an expression returns, or why it
 * failed.
 *
 * @example
 * ```ts
 * const none: ExpressionEvaluator = () => ({ ok: true, value: [] });
 * ```
 */
export type ExpressionEvaluator = (expression: string) => Result<readonly string[], string>;

/**
 * The approvers of one approval step and how they were found.
 * - `primary`: the kind's own approvers; `fallback`: the fallback users and groups;
 * - `system`: a webhook or agent decides, no human approvers;
 * - `skipped`: nobody resolved and there is no fallback, so the step is skipped.
 *
 * @example
 * ```ts
 * const r: ApproverResolution = { kind: "manager", userIds: ["u-bob"], via: "primary", notes: [] };
 * ```
 */
export interface ApproverResolution {
  readonly kind: string;
  readonly userIds: readonly string[];
  readonly via: "primary" | "fallback" | "system" | "skipped";
  /** Why users were excluded or where they came from, for explanations. */
  readonly notes: readonly string[];
}

interface Candidates {
  readonly ids: readonly string[];
  readonly note: string;
}

function primaryCandidates(world: World, task: Task, kind: ApproverKind, expressions: ExpressionEvaluator): Candidates {
  const { appId, entitlementId } = taskEntitlementRef(task);
  const subjectId = taskSubjectId(task);
  switch (kind.kind) {
    case "users":
      return { ids: kind.userIds ?? [], note: "the step's listed users" };
    case "manager": {
      const subject = world.index.users.get(subjectId);
      return { ids: subject?.managerIds ?? [], note: `the managers of ${subjectId || "the (unknown) target user"}` };
    }
    case "appOwners":
      return { ids: world.index.apps.get(appId)?.ownerUserIds ?? [], note: `the owners of app "${appId}"` };
    case "entitlementOwners":
      return {
        ids: findEntitlement(world, appId, entitlementId)?.ownerUserIds ?? [],
        note: `the owners of entitlement "${entitlementId}"`,
      };
    case "resourceOwners":
      // The world file carries no resource objects, so resource owners are unknown (README, Assumptions).
      return { ids: [], note: "resource owners (the world has no resource objects)" };
    case "group": {
      const group = world.index.groups.get(kind.appGroupId);
      return { ids: group?.memberUserIds ?? [], note: `the members of group "${kind.appGroupId}"` };
    }
    case "self":
      return { ids: subjectId ? [subjectId] : [], note: "the target user (self review)" };
    case "expression": {
      for (const [i, expression] of (kind.expressions ?? []).entries()) {
        const result = expressions(expression);
        // DOMAIN.md §5: the first expression that returns a non-empty list wins.
        if (result.ok && result.value.length > 0) return { ids: result.value, note: `expression ${i} \`${expression}\`` };
      }
      return { ids: [], note: "no approver expression returned anyone" };
    }
    case "webhook":
    case "agent":
    case "unknown":
      return { ids: [], note: "" };
    default: {
      const never: never = kind;
      return never;
    }
  }
}

function isActive(user: User | undefined): user is User {
  return user !== undefined && user.status !== "DISABLED" && user.status !== "DELETED";
}

/**
 * Applies the rules every kind shares: unknown and inactive users are dropped, a delegate stands in
 * when the step allows delegation, and the target and requester are dropped unless self-approval is
 * allowed. Returns the ids in first-seen order without duplicates.
 */
function filter(
  world: World,
  task: Task,
  approval: Approval,
  ids: readonly string[],
  allowSelf: boolean,
  notes: string[],
): string[] {
  const subjectId = taskSubjectId(task);
  const out: string[] = [];
  for (const id of ids) {
    let user = world.index.users.get(id);
    if (!user) {
      notes.push(`${id}: not a user of this world`);
      continue;
    }
    if (approval.allowDelegation && user.delegatedUserId) {
      const delegate = world.index.users.get(user.delegatedUserId);
      if (isActive(delegate)) {
        notes.push(`${id}: delegated to ${delegate.id}`);
        user = delegate;
      }
    }
    if (user.status === "DISABLED" || user.status === "DELETED") {
      notes.push(`${user.id}: ${user.status.toLowerCase()}`);
      continue;
    }
    if (!allowSelf && (user.id === subjectId || user.id === task.createdByUserId)) {
      notes.push(`${user.id}: ${user.id === subjectId ? "is the target user" : "is the requester"} and self-approval is off`);
      continue;
    }
    if (!out.includes(user.id)) out.push(user.id);
  }
  return out;
}

function fallbackCandidates(world: World, kind: ApproverKind): readonly string[] | undefined {
  if (!("fallback" in kind) || !kind.fallback) return undefined;
  const ids = [...(kind.fallbackUserIds ?? [])];
  if (kind.isGroupFallbackEnabled)
    for (const g of kind.fallbackGroupIds ?? [])
      ids.push(...(world.index.entitlementMembers.get(entitlementKey(g.appId, g.appEntitlementId)) ?? []));
  return ids;
}

/**
 * Resolves the approvers of an approval step for a task.
 *
 * @example
 * ```ts
 * const r = resolveApprovers(world, task, step, () => ({ ok: true, value: [] }));
 * r.via === "skipped"; // nobody to ask and no fallback: the step is skipped
 * ```
 */
export function resolveApprovers(
  world: World,
  task: Task,
  approval: Approval,
  expressions: ExpressionEvaluator,
): ApproverResolution {
  const kind = approval.approvers;
  if (!kind) return { kind: "none", userIds: [], via: "skipped", notes: ["the step names no approvers"] };
  const name = kind.kind === "unknown" ? kind.key : kind.kind;
  if (kind.kind === "webhook" || kind.kind === "agent" || kind.kind === "unknown")
    return { kind: name, userIds: [], via: "system", notes: [`a ${name} decides this step; no human approvers`] };
  const allowSelf = kind.kind === "self" || ("allowSelfApproval" in kind && kind.allowSelfApproval);
  const notes: string[] = [];
  const primary = primaryCandidates(world, task, kind, expressions);
  const primaryIds = filter(world, task, approval, primary.ids, allowSelf, notes);
  if (primaryIds.length > 0) return { kind: name, userIds: primaryIds, via: "primary", notes: [`from ${primary.note}`, ...notes] };
  const fallback = fallbackCandidates(world, kind);
  if (fallback) {
    const fallbackIds = filter(world, task, approval, fallback, allowSelf, notes);
    if (fallbackIds.length > 0)
      return { kind: name, userIds: fallbackIds, via: "fallback", notes: [`${primary.note} resolved to nobody; using the fallback`, ...notes] };
  }
  return {
    kind: name,
    userIds: [],
    via: "skipped",
    notes: [`${primary.note} resolved to nobody${fallback ? " and so did the fallback" : " and the step has no fallback"}`, ...notes],
  };
}
