/**
 * Who reviews an approval step. Each of the ten approver kinds resolves against the world's
 * directory; self-approval, inactive users, delegation, distinct approvers and fallbacks are applied
 * the same way for all of them, and every exclusion is noted so an explanation can say why someone
 * is not an approver. The routes the service documents when nobody is found:
 *
 * - the kind's own reviewers (`primary`); a group of more than 128 members is not asked, its step's
 *   fallback is (product_admin_policies.mdx);
 * - the step's fallback users and groups (`fallback`);
 * - nobody and no usable fallback: a certify task goes to its campaign's owners
 *   (product_admin_manage-campaigns.mdx, FAQ), every other task to the tenant's Super Administrators
 *   (release note, May 2024) — `campaignOwners` / `superAdmins`;
 * - only an approver *expression* whose result is empty skips the step (`skipped`;
 *   product_admin_expressions-reference.mdx);
 * - the subject among the reviewers with self-approval allowed: the step approves itself
 *   (`selfApproved`; release note, Feb 2023);
 * - `requireDistinctApprovers`: whoever approved an earlier step is not asked again; when that leaves
 *   nobody, the fallback, then the campaign owners / Super Administrators (product_admin_policies.mdx).
 *
 * The choices the pages leave open are in {@link APPROVER_POLICY}, and in README "Assumptions".
 */
import type { User } from "../model/directory.js";
import type { Approval, ApproverKind, Task } from "../model/index.js";
import { taskEntitlementRef, taskSubjectId, certifyReviewId } from "../model/task-refs.js";
import type { Result } from "../result.js";
import { entitlementKey, findEntitlement, type World } from "../world/world.js";
import { delegateFor } from "./delegation.js";

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
 * How the approvers of a step were found.
 * - `primary`: the kind's own reviewers; `fallback`: the step's fallback users and groups;
 * - `superAdmins`, `campaignOwners`: nobody could be found (or no distinct approver), so the
 *   documented last resort reviews;
 * - `selfApproved`: the subject may approve and self-approval is allowed: approved automatically;
 * - `system`: a webhook or agent decides, no human approvers;
 * - `skipped`: an approver expression returned nobody and there is no fallback, so the step is skipped.
 *
 * @example
 * ```ts
 * const v: ApproverVia = "superAdmins";
 * ```
 */
export type ApproverVia = "primary" | "fallback" | "superAdmins" | "campaignOwners" | "selfApproved" | "system" | "skipped";

/**
 * The approvers of one approval step and how they were found.
 *
 * @example
 * ```ts
 * const r: ApproverResolution = { kind: "manager", userIds: ["u-bob"], via: "primary", notes: [] };
 * ```
 */
export interface ApproverResolution {
  readonly kind: string;
  readonly userIds: readonly string[];
  readonly via: ApproverVia;
  /** Why users were excluded or where they came from, for explanations. */
  readonly notes: readonly string[];
  /**
   * The documented reason, when the step does not simply go to the kind's own reviewers
   * ("no reviewer: reassigned to Super Administrators").
   */
  readonly reason?: string;
  /**
   * Reviewers replaced by their delegate (the step allows delegation and the delegation was in
   * force when the task was created), in order; each becomes a `reassignedToDelegate` audit
   * record (product_admin_delegate.mdx). Absent when nobody was replaced.
   */
  readonly delegations?: readonly Delegation[];
}

/**
 * A reviewer the step would have asked, replaced by the user they delegated their tasks to.
 *
 * @example
 * ```ts
 * const d: Delegation = { originalUserId: "u-eng-mgr", delegateUserId: "u-sre-lead" };
 * ```
 */
export interface Delegation {
  readonly originalUserId: string;
  readonly delegateUserId: string;
}

/**
 * The choices the documentation leaves open, in one place (README, Assumptions).
 *
 * @example
 * ```ts
 * APPROVER_POLICY.maxGroupMembers; // 128
 * ```
 */
export const APPROVER_POLICY = {
  /** A group with more members than this is not asked; its step's fallback is (documented). */
  maxGroupMembers: 128,
  /** Task kinds whose steps approve themselves when the subject may approve (the note speaks of requests). */
  selfApprovingTaskKinds: ["grant", "revoke"] as readonly string[],
  /**
   * Where a step with nobody to ask goes, by task kind: certify → the campaign's owners (documented),
   * then the Super Administrators when the campaign names none; every other kind → Super
   * Administrators (documented for requests, assumed for offboarding, action and finding tasks).
   */
  lastResort: (taskKind: string): readonly ("campaignOwners" | "superAdmins")[] =>
    taskKind === "certify" ? ["campaignOwners", "superAdmins"] : ["superAdmins"],
} as const;

/** The documented reasons, as explanations and what-if show them. */
const REASON = {
  superAdmins: "no reviewer: reassigned to Super Administrators",
  campaignOwners: "no reviewer: reassigned to the campaign owners",
  distinctSuperAdmins: "no distinct approver: reassigned to Super Administrators",
  distinctCampaignOwners: "no distinct approver: reassigned to the campaign owners",
  distinctFallback: "no distinct approver: using the step's fallback reviewers",
  fallback: "no reviewer: using the step's fallback reviewers",
  bigGroup: (n: number) => `group of ${n} members (over ${APPROVER_POLICY.maxGroupMembers}): using the step's fallback reviewers`,
  selfApproved: "the subject may approve and self-approval is allowed",
  expressionEmpty: "the approver expression returned nobody",
} as const;

interface Candidates {
  readonly ids: readonly string[];
  readonly note: string;
  /** Only for expressions: every expression evaluated and returned an empty list. */
  readonly emptyExpression?: boolean;
  /** Only for groups: the group has too many members to be asked. */
  readonly bigGroup?: number;
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
      const members = world.index.groups.get(kind.appGroupId)?.memberUserIds ?? [];
      const note = `the members of group "${kind.appGroupId}"`;
      if (members.length > APPROVER_POLICY.maxGroupMembers) return { ids: [], note, bigGroup: members.length };
      return { ids: members, note };
    }
    case "self":
      return { ids: subjectId ? [subjectId] : [], note: "the target user (self review)" };
    case "expression": {
      let failed = "";
      for (const [i, expression] of (kind.expressions ?? []).entries()) {
        const result = expressions(expression);
        // docs/domain.md §5: the first expression that returns a non-empty list wins.
        if (result.ok && result.value.length > 0) return { ids: result.value, note: `expression ${i} \`${expression}\`` };
        if (!result.ok && !failed) failed = `expression ${i} failed: ${result.error}`;
      }
      // An expression that fails has no result, empty or not: nobody to ask (README, Assumptions).
      if (failed) return { ids: [], note: failed };
      return { ids: [], note: "no approver expression returned anyone", emptyExpression: (kind.expressions ?? []).length > 0 };
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

interface Filtered {
  readonly ids: string[];
  /** The delegations behind the ids kept (a delegate dropped later by another rule is not one). */
  readonly delegations: Delegation[];
  /** Candidates left out only because they approved an earlier step (distinct approvers). */
  readonly earlierApprovers: number;
}

/**
 * Applies the rules every kind shares: unknown and inactive users are dropped; a delegate stands in
 * when the step allows delegation and the task was created while the delegation was in force; the
 * subject is dropped unless self-approval is allowed (the setting concerns the subject only, so a
 * requester who is not the subject stays); with distinct approvers, whoever approved an earlier step
 * is dropped. Returns the ids in first-seen order without duplicates.
 */
function filter(world: World, task: Task, approval: Approval, ids: readonly string[], allowSelf: boolean, distinct: boolean, notes: string[]): Filtered {
  const subjectId = taskSubjectId(task);
  const earlier = distinct ? (task.approverIds ?? []) : [];
  const out: string[] = [];
  const delegations: Delegation[] = [];
  let earlierApprovers = 0;
  for (const id of ids) {
    let user = world.index.users.get(id);
    let delegatedFrom = "";
    if (!user) {
      notes.push(`${id}: not a user of this world`);
      continue;
    }
    if (approval.allowDelegation && user.delegatedUserId) {
      const d = delegateFor(user, task.createdAt ?? "");
      const delegate = d.delegateId ? world.index.users.get(d.delegateId) : undefined;
      if (d.note) notes.push(d.note);
      else if (isActive(delegate)) {
        notes.push(`${id}: delegated to ${delegate.id}`);
        delegatedFrom = id;
        user = delegate;
      }
    }
    if (user.status === "DISABLED" || user.status === "DELETED") {
      notes.push(`${user.id}: ${user.status.toLowerCase()}`);
      continue;
    }
    if (!allowSelf && user.id === subjectId) {
      notes.push(`${user.id}: is the target user and self-approval is off`);
      continue;
    }
    if (earlier.includes(user.id)) {
      notes.push(`${user.id}: approved an earlier step and this step requires distinct approvers`);
      earlierApprovers++;
      continue;
    }
    if (!out.includes(user.id)) out.push(user.id);
    if (delegatedFrom !== "") delegations.push({ originalUserId: delegatedFrom, delegateUserId: user.id });
  }
  return { ids: out, delegations, earlierApprovers };
}

function withDelegations(r: ApproverResolution, f: Filtered): ApproverResolution {
  return f.delegations.length === 0 ? r : { ...r, delegations: f.delegations };
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
 * The tenant's Super Administrators: users holding a role of kind `SUPER_ADMIN`, in directory order.
 *
 * @example
 * ```ts
 * superAdministrators(world); // ["u-ciso", "u-it-dir"] in the sample tenant
 * ```
 */
export function superAdministrators(world: World): string[] {
  const out: string[] = [];
  for (const user of world.users) {
    for (const roleId of user.roleIds)
      if (world.index.roles.get(roleId)?.kind === "SUPER_ADMIN") {
        out.push(user.id);
        break;
      }
  }
  return out;
}

/**
 * The owners of the campaign (access review) a certify task belongs to; empty for other tasks and
 * for campaigns that name none.
 *
 * @example
 * ```ts
 * campaignOwners(world, certifyTask); // the access review's ownerUserIds
 * ```
 */
export function campaignOwners(world: World, task: Task): readonly string[] {
  const t = task.type;
  if (t?.kind !== "certify") return [];
  return world.index.accessReviews.get(certifyReviewId(t))?.ownerUserIds ?? [];
}

function selfApproves(task: Task, kind: ApproverKind, allowSelf: boolean, ids: readonly string[]): boolean {
  const subjectId = taskSubjectId(task);
  // A `self` step is the subject's own review: the subject acts, nothing is approved for them.
  return (
    allowSelf &&
    kind.kind !== "self" &&
    subjectId !== "" &&
    ids.includes(subjectId) &&
    APPROVER_POLICY.selfApprovingTaskKinds.includes(task.type?.kind ?? "")
  );
}

/**
 * Whether a step lets the task's target user approve it: a `self` step, or one whose approvers
 * allow self-approval. When it does not, the target user is never among its approvers, and may not
 * approve or deny it even where they hold a role that decides other steps — "another user must
 * approve" (release notes, Feb 2023), and "the Approve and Deny buttons are not shown to you"
 * (release notes, 2024).
 *
 * @example
 * ```ts
 * allowsSelfApproval({ ...approval, approvers: { kind: "manager", allowSelfApproval: false } }); // false
 * ```
 */
export function allowsSelfApproval(approval: Approval | null): boolean {
  const kind = approval?.approvers ?? null;
  return kind !== null && (kind.kind === "self" || ("allowSelfApproval" in kind && kind.allowSelfApproval === true));
}

/**
 * Resolves the approvers of an approval step for a task.
 *
 * @example
 * ```ts
 * const r = resolveApprovers(world, task, step, () => ({ ok: true, value: [] }));
 * r.via; // "superAdmins" when nobody is found and the step has no usable fallback
 * r.reason; // "no reviewer: reassigned to Super Administrators"
 * ```
 */
export function resolveApprovers(world: World, task: Task, approval: Approval, expressions: ExpressionEvaluator): ApproverResolution {
  const kind = approval.approvers;
  const name = !kind ? "none" : kind.kind === "unknown" ? kind.key : kind.kind;
  if (kind && (kind.kind === "webhook" || kind.kind === "agent" || kind.kind === "unknown"))
    return { kind: name, userIds: [], via: "system", notes: [`a ${name} decides this step; no human approvers`] };
  const allowSelf = allowsSelfApproval(approval);
  const distinct = kind !== null && "requireDistinctApprovers" in kind && kind.requireDistinctApprovers;
  const notes: string[] = [];
  const primary: Candidates = kind ? primaryCandidates(world, task, kind, expressions) : { ids: [], note: "the step names no approvers" };
  const first = filter(world, task, approval, primary.ids, allowSelf, distinct, notes);
  if (kind && first.ids.length > 0) {
    if (selfApproves(task, kind, allowSelf, first.ids))
      return { kind: name, userIds: [taskSubjectId(task)], via: "selfApproved", notes: [`from ${primary.note}`, ...notes], reason: REASON.selfApproved };
    return withDelegations({ kind: name, userIds: first.ids, via: "primary", notes: [`from ${primary.note}`, ...notes] }, first);
  }
  let noDistinct = first.earlierApprovers > 0;
  const why = primary.bigGroup !== undefined ? `${primary.note} has ${primary.bigGroup} members, over ${APPROVER_POLICY.maxGroupMembers}` : `${primary.note} resolved to nobody`;
  const fallback = kind ? fallbackCandidates(world, kind) : undefined;
  if (fallback) {
    const second = filter(world, task, approval, fallback, allowSelf, distinct, notes);
    noDistinct ||= second.earlierApprovers > 0;
    if (second.ids.length > 0) {
      // A fallback reviewer is an approver too: their own request is approved as a primary one's is.
      if (kind && selfApproves(task, kind, allowSelf, second.ids))
        return { kind: name, userIds: [taskSubjectId(task)], via: "selfApproved", notes: [`${why}; using the fallback`, ...notes], reason: REASON.selfApproved };
      const reason = primary.bigGroup !== undefined ? REASON.bigGroup(primary.bigGroup) : noDistinct ? REASON.distinctFallback : REASON.fallback;
      return withDelegations({ kind: name, userIds: second.ids, via: "fallback", notes: [`${why}; using the fallback`, ...notes], reason }, second);
    }
  }
  const head = `${why}${fallback ? " and so did the fallback" : " and the step has no fallback"}`;
  // Only an expression whose result is empty skips its step (product_admin_expressions-reference.mdx).
  if (primary.emptyExpression && !noDistinct)
    return { kind: name, userIds: [], via: "skipped", notes: [head, ...notes], reason: REASON.expressionEmpty };
  const routes = APPROVER_POLICY.lastResort(task.type?.kind ?? "");
  // Each route's people, found once and only when asked (the second pass below reuses them).
  const found = new Map<string, readonly string[]>();
  const idsOf = (route: string): readonly string[] => {
    let ids = found.get(route);
    if (ids === undefined) found.set(route, (ids = route === "campaignOwners" ? campaignOwners(world, task) : superAdministrators(world)));
    return ids;
  };
  for (const route of routes) {
    const ids = idsOf(route);
    // The last resort is not refused for having approved before: that would leave the task stalled.
    let last = filter(world, task, approval, ids, allowSelf, distinct, notes);
    if (last.ids.length === 0 && distinct) last = filter(world, task, approval, ids, allowSelf, false, notes);
    if (last.ids.length > 0) {
      const reason = route === "campaignOwners" ? (noDistinct ? REASON.distinctCampaignOwners : REASON.campaignOwners) : noDistinct ? REASON.distinctSuperAdmins : REASON.superAdmins;
      return withDelegations({ kind: name, userIds: last.ids, via: route, notes: [head, ...notes], reason }, last);
    }
  }
  // Every route came up empty. If only the target user was left out (self-approval is off), the
  // step waits on them rather than being skipped — skipping would grant without any approval. They
  // may not approve it (`allowsSelfApproval`); they can reassign or skip it, or another user made an
  // administrator can decide it.
  if (!allowSelf)
    for (const route of routes) {
      const last = filter(world, task, approval, idsOf(route), true, false, []);
      if (last.ids.length === 0) continue;
      notes.push(`assigned to ${last.ids.join(", ")} though the target user: self-approval is off, so another user must approve`);
      const reason = route === "campaignOwners" ? REASON.campaignOwners : REASON.superAdmins;
      return withDelegations({ kind: name, userIds: last.ids, via: route, notes: [head, ...notes], reason }, last);
    }
  return {
    kind: name,
    userIds: [],
    via: "skipped",
    notes: [head, "and no campaign owner or Super Administrator can review it", ...notes],
    reason: "no reviewer and no Super Administrator",
  };
}

/**
 * One line saying who reviews a step and, where a fallback or automatic route applies, the
 * documented reason: what explanations, what-if reports and route checks print after the step.
 *
 * @example
 * ```ts
 * approversSummary({ kind: "users", userIds: ["u-ciso"], via: "superAdmins", reason: "no reviewer: reassigned to Super Administrators" });
 * // "u-ciso (no reviewer: reassigned to Super Administrators)"
 * ```
 */
export function approversSummary(a: Pick<ApproverResolution, "kind" | "userIds" | "via" | "reason">): string {
  const ids = a.userIds.join(", ");
  switch (a.via) {
    case "primary":
      return ids;
    case "system":
      return `${a.kind} decides`;
    case "skipped":
      return `skipped (${a.reason ?? "nobody to ask"})`;
    case "selfApproved":
      return `approved automatically by ${ids} (${a.reason ?? REASON.selfApproved})`;
    case "fallback":
    case "superAdmins":
    case "campaignOwners":
      return `${ids} (${a.reason ?? a.via})`;
    default: {
      const never: never = a.via;
      return never;
    }
  }
}
