/**
 * World effects of the workflow, applied from the events that describe them (effects are data):
 * `grantAdded` and `grantRevoked` change the world's grants, and a certify task closing
 * `CERTIFY_OUTCOME_DECERTIFIED` creates its revoke task. A reducer runs the workflow, then hands its
 * events here; what a created task does is appended to the same events and applied in turn.
 */
import { AppendLog } from "../world/append-log.js";
import type { Grant } from "../model/directory.js";
import type { Task, TaskTypeRevoke } from "../model/index.js";
import { decide } from "../policy/decide.js";
import { taskConditions } from "../policy/task-conditions.js";
import { buildIndex, findAppUserOf, findEntitlement, grantKeyOf, type World } from "../world/world.js";
import { type AdvanceContext, closeTask, emit, postComment } from "./advance.js";
import { revocationTargetsFor } from "./inheritance.js";
import { emitRuleEvaluations, restartOn } from "./restart.js";

function grantKey(g: Pick<Grant, "identityUserId" | "appId" | "appEntitlementId">): string {
  return grantKeyOf(g.identityUserId, g.appId, g.appEntitlementId);
}

/**
 * A world with other grants (and its index rebuilt from them). Costs the size of the directory,
 * not of the tasks.
 *
 * @example
 * ```ts
 * const w = withGrants(world, world.grants.filter((g) => g.identityUserId !== "u-leaver"));
 * ```
 */
export function withGrants(world: World, grants: readonly Grant[]): World {
  const frozen = Object.freeze(grants.map((g) => Object.freeze({ ...g })));
  return { ...world, grants: frozen, index: buildIndex({ ...world, grants: frozen }) };
}

/**
 * The largest numeric id of each numericId table, remembered per (immutable) table so that creating
 * a task does not scan 100k keys each time: `addTask` carries the figure over to the table it makes.
 */
const largestNumericId = new WeakMap<World["taskIdByNumericId"], number>();

function largestNumericIdOf(table: World["taskIdByNumericId"]): number {
  const known = largestNumericId.get(table);
  if (known !== undefined) return known;
  let max = 0;
  for (const k of table.keys()) {
    const n = Number(k);
    if (Number.isSafeInteger(n) && n > max) max = n;
  }
  largestNumericId.set(table, max);
  return max;
}

/**
 * The numericId a task created now gets: the world's largest plus one, as the service numbers tasks.
 *
 * @example
 * ```ts
 * nextNumericId(world); // "1031" when 1030 is the largest
 * ```
 */
export function nextNumericId(world: World): string {
  return String(largestNumericIdOf(world.taskIdByNumericId) + 1);
}

/**
 * Writes a new task into the world's tables (by id and by numericId).
 *
 * @example
 * ```ts
 * const next = addTask(world, createdTask);
 * ```
 */
export function addTask(world: World, task: Task): World {
  const byNumericId = task.numericId ? world.taskIdByNumericId.set(task.numericId, task.id) : world.taskIdByNumericId;
  const known = largestNumericId.get(world.taskIdByNumericId);
  if (known !== undefined && byNumericId !== world.taskIdByNumericId) {
    const n = Number(task.numericId);
    largestNumericId.set(byNumericId, Number.isSafeInteger(n) && n > known ? n : known);
  }
  return { ...world, tasks: world.tasks.set(task.id, task), taskIdByNumericId: byNumericId };
}

/** What a revoke task the workflow creates is about, and why it was made. */
interface RevokeOf {
  readonly type: TaskTypeRevoke;
  readonly userId: string;
  readonly origin: string;
  readonly description: string;
  /** The task whose event says the revoke task was created: the certify task, or the revoke task itself. */
  readonly by: string | null;
}

/**
 * Creates a revoke task and starts it: the `revocationTargets` of an app that revokes inherited
 * access, the revoke policy docs/domain.md §3 resolves, run until a step waits.
 */
function startRevokeTask(ctx: Omit<AdvanceContext, "expressions">, of: RevokeOf): Task {
  const world = ctx.world;
  const { type, userId } = of;
  const ent = findEntitlement(world, type.appId, type.appEntitlementId);
  const app = world.index.apps.get(type.appId);
  const user = world.index.users.get(userId);
  const id = ctx.ids.take("task");
  const draft: Task = {
    id,
    numericId: nextNumericId(world),
    displayName: `Revoke "${ent?.displayName || type.appEntitlementId}" (${app?.displayName || type.appId}) from ${user?.displayName || userId}`,
    description: of.description,
    state: "TASK_STATE_OPEN",
    processing: "TASK_PROCESSING_TYPE_PROCESSING",
    origin: of.origin,
    actions: [],
    type,
    policy: null,
    policyGenerationId: "",
    form: null,
    userId,
    createdByUserId: "",
    approverIds: [],
    stepApproverIds: [],
    commentCount: 0,
    emergencyAccess: false,
    analysisId: "",
    insightIds: [],
    recommendation: "INSIGHT_RECOMMENDATION_UNSPECIFIED",
    revocationTargets: revocationTargetsFor(world, type.appId, type.appEntitlementId, userId),
    externalRefs: [],
    annotations: [],
    data: null,
    createdAt: ctx.now,
    updatedAt: ctx.now,
    deletedAt: null,
  };
  const taskCtx: AdvanceContext = { ...ctx, expressions: taskConditions(world, draft).expressions };
  emit(taskCtx, of.by ?? id, "", { kind: "taskCreated", createdTaskId: id, numericId: draft.numericId, taskKind: "revoke" });
  const decision = decide(world, draft);
  const resolution = decision.resolution;
  const selection = decision.selection;
  let started: Task;
  if (!resolution.ok || !selection?.ok) {
    const why = !resolution.ok ? resolution.error.message : selection && !selection.ok ? selection.error.message : "no steps";
    postComment(taskCtx, draft, "", `No revoke policy could be applied: ${why}`);
    started = closeTask(taskCtx, { ...draft, policy: { current: null, history: AppendLog.empty(), next: [], policy: null } }, "error");
  } else {
    emitRuleEvaluations(taskCtx, id, selection.value.evaluations);
    started = restartOn(taskCtx, draft, { policy: resolution.value.policy, steps: selection.value.steps, newGeneration: true, userId: "" });
  }
  return { ...started, commentCount: ctx.comments.filter((c) => c.taskId === id).length };
}

/**
 * Creates and starts the revoke task of a decertified certify task: same entitlement and user, its
 * source the review (`certTicketId` is the certify task), `accessReviewSelection` carried over, the
 * `revocationTargets` of an app that revokes inherited access, the revoke policy docs/domain.md §3
 * resolves, run until a step waits. Returns the new task.
 *
 * @example
 * ```ts
 * const revoke = createRevokeForDecertified(ctx, certifyTask);
 * revoke?.type?.kind; // "revoke"
 * ```
 */
export function createRevokeForDecertified(ctx: AdvanceContext, certify: Task): Task | undefined {
  const t = certify.type;
  if (t?.kind !== "certify") return undefined;
  const userId = t.identityUserId || certify.userId;
  const type: TaskTypeRevoke = {
    kind: "revoke",
    appEntitlementId: t.appEntitlementId,
    appId: t.appId,
    appUserId: t.appUserId,
    identityUserId: userId,
    outcome: "REVOKE_OUTCOME_UNSPECIFIED",
    outcomeTime: null,
    resource: t.resource,
    source: { kind: "review", accessReviewId: t.accessReviewId, certTicketId: certify.id },
    // The revoke variant has no such field in the model; the spec says the service sets it.
    $unknown: { accessReviewSelection: t.accessReviewSelection || t.accessReviewId },
  };
  return startRevokeTask(ctx, {
    type,
    userId,
    origin: "TASK_ORIGIN_ACCESS_REVIEW",
    description: `Created from the decertification in certify task ${certify.numericId || certify.id} (access review ${t.accessReviewId}).`,
    by: certify.id,
  });
}

/**
 * Creates and starts the revoke task of a time-limited grant whose end has come: "At the end of the
 * time limit, the user's access will be automatically revoked" (product_admin_access-requests.mdx).
 * The task is the spec's time revoke: origin `TASK_ORIGIN_TIME_REVOKE`, source `expired` with the
 * grant's end as `expiredAt`; it runs the entitlement's revoke policy like any revoke task (README,
 * "Assumptions"). `ctx.now` is the grant's end (or the world's clock, when that is later).
 *
 * @example
 * ```ts
 * const revoke = createRevokeForExpiredGrant(ctx, { appId: "app-aws", appEntitlementId: "ent-aws-prod-admin", identityUserId: "u-dev1", source: "direct", deprovisionAt: "2026-11-22T17:00:00Z" });
 * revoke.origin; // "TASK_ORIGIN_TIME_REVOKE"
 * ```
 */
export function createRevokeForExpiredGrant(ctx: Omit<AdvanceContext, "expressions">, grant: Grant): Task {
  const account = findAppUserOf(ctx.world, grant.identityUserId, grant.appId);
  const type: TaskTypeRevoke = {
    kind: "revoke",
    appEntitlementId: grant.appEntitlementId,
    appId: grant.appId,
    appUserId: account?.id ?? "",
    identityUserId: grant.identityUserId,
    outcome: "REVOKE_OUTCOME_UNSPECIFIED",
    outcomeTime: null,
    resource: null,
    source: { kind: "expired", expiredAt: grant.deprovisionAt ?? ctx.now },
  };
  return startRevokeTask(ctx, {
    type,
    userId: grant.identityUserId,
    origin: "TASK_ORIGIN_TIME_REVOKE",
    description: `Created when the time-limited access ended at ${grant.deprovisionAt ?? ctx.now}.`,
    by: null,
  });
}

/**
 * Whether a denied review creates its revoke task: only when the review's policy asks for it in its
 * follow-up steps, `postActions[].certifyRemediateImmediately` (product_admin_policies.mdx, "Add
 * follow-up steps"; product_admin_manage-campaigns.mdx: otherwise access is revoked by hand). The
 * policy is the task's snapshot (its `postActions`, else those of the world's policy of that id); a
 * task without a policy asks for nothing.
 *
 * @example
 * ```ts
 * remediatesImmediately(world, certifyTask); // true under pol-certify-default of the sample
 * ```
 */
export function remediatesImmediately(world: World, certify: Task): boolean {
  const snapshot = certify.policy?.policy ?? null;
  if (!snapshot) return false;
  const actions = snapshot.postActions ?? world.index.policies.get(snapshot.id)?.postActions ?? [];
  return actions.some((a) => a.certifyRemediateImmediately);
}

/**
 * Applies the effects recorded in `ctx.events` from `from` on: grants added and revoked, revoke tasks
 * created for decertified certify tasks (their own events are appended and applied too). Returns the
 * world with them; `ctx.comments` gains the comments of created tasks.
 *
 * @example
 * ```ts
 * const next = applyEffects(worldWithTask, ctx, 0);
 * ```
 */
export function applyEffects(world: World, ctx: AdvanceContext, from = 0): World {
  let w = world;
  let grants: Grant[] | undefined;
  const mutable = (): Grant[] => (grants ??= [...w.grants]);
  for (let i = from; i < ctx.events.length; i++) {
    const e = ctx.events[i];
    if (!e) continue;
    switch (e.kind) {
      case "grantAdded": {
        const list = mutable();
        // Made now: the binding's createdAt. An extension keeps the time the grant was made.
        const grant: Grant = { appId: e.appId, appEntitlementId: e.appEntitlementId, identityUserId: e.identityUserId, source: "direct", createdAt: ctx.now, ...(e.deprovisionAt ? { deprovisionAt: e.deprovisionAt } : {}) };
        const at = list.findIndex((g) => grantKey(g) === grantKey(e));
        if (at < 0) list.push(grant);
        else {
          // An extension (or access made permanent): the grant keeps how it was given.
          const { deprovisionAt: _old, ...held } = list[at] as Grant;
          list[at] = e.deprovisionAt ? { ...held, deprovisionAt: e.deprovisionAt } : held;
        }
        break;
      }
      case "grantRevoked": {
        const list = mutable();
        const at = list.findIndex((g) => grantKey(g) === grantKey(e));
        if (at >= 0) list.splice(at, 1);
        break;
      }
      case "taskClosed": {
        if (e.outcome !== "CERTIFY_OUTCOME_DECERTIFIED") break;
        const certify = w.tasks.get(e.taskId);
        if (!certify || !remediatesImmediately(w, certify)) break;
        const current = grants ? withGrants(w, grants) : w;
        const created = createRevokeForDecertified({ ...ctx, world: current, now: e.at }, certify);
        if (created) w = addTask(w, created);
        break;
      }
      default:
        break;
    }
  }
  return grants ? withGrants(w, grants) : w;
}
