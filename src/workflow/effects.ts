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
import { buildIndex, findEntitlement, type World } from "../world/world.js";
import { type AdvanceContext, closeTask, emit, postComment } from "./advance.js";
import { revocationTargetsFor } from "./inheritance.js";
import { emitRuleEvaluations, restartOn } from "./restart.js";

function grantKey(g: Pick<Grant, "identityUserId" | "appId" | "appEntitlementId">): string {
  return `${g.identityUserId}\u0000${g.appId}\u0000${g.appEntitlementId}`;
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
  const world = ctx.world;
  const userId = t.identityUserId || certify.userId;
  const ent = findEntitlement(world, t.appId, t.appEntitlementId);
  const app = world.index.apps.get(t.appId);
  const user = world.index.users.get(userId);
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
  const id = ctx.ids.take("task");
  const draft: Task = {
    id,
    numericId: nextNumericId(world),
    displayName: `Revoke "${ent?.displayName || t.appEntitlementId}" (${app?.displayName || t.appId}) from ${user?.displayName || userId}`,
    description: `Created from the decertification in certify task ${certify.numericId || certify.id} (access review ${t.accessReviewId}).`,
    state: "TASK_STATE_OPEN",
    processing: "TASK_PROCESSING_TYPE_PROCESSING",
    origin: "TASK_ORIGIN_ACCESS_REVIEW",
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
    revocationTargets: revocationTargetsFor(world, t.appId, t.appEntitlementId, userId),
    externalRefs: [],
    annotations: [],
    data: null,
    createdAt: ctx.now,
    updatedAt: ctx.now,
    deletedAt: null,
  };
  emit(ctx, certify.id, "", { kind: "taskCreated", createdTaskId: id, numericId: draft.numericId, taskKind: "revoke" });
  const taskCtx: AdvanceContext = { ...ctx, expressions: taskConditions(world, draft).expressions };
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
        if (!list.some((g) => grantKey(g) === grantKey(e)))
          list.push({ appId: e.appId, appEntitlementId: e.appEntitlementId, identityUserId: e.identityUserId, source: "direct" });
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
