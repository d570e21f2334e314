/**
 * The TaskView and `expanded` array a task endpoint returns for a caller: the task with the
 * caller's `actions`, the caller's `objectPermissions`, and for each expand-mask path the related
 * objects appended to `expanded`, with the view's `…Path` fields pointing at them (`$.expanded[N]`).
 */
import { certifyReviewId } from "../model/task-refs.js";
import type { User } from "../model/directory.js";
import type { JsonObject } from "../model/json.js";
import type { PolicyStepInstance, Task, TaskView, TypedMessage } from "../model/index.js";
import { KNOWN_TASK_EXPAND_PATHS } from "../model/index.js";
import { err, ok, type Result } from "../result.js";
import {
  encodeAccessReview,
  encodeAppForApi,
  encodeAppUserForApi,
  encodeEntitlementForApi,
  encodeUser,
  TYPE_URLS,
} from "../world/encode-directory.js";
import { AppendLog } from "../world/append-log.js";
import { findEntitlement, type World } from "../world/world.js";
import { objectPermissionsFor, type Relation, taskActionsFor } from "./permissions.js";

/**
 * Checks the expand mask's paths; an unknown one is named in the message.
 *
 * @example
 * ```ts
 * validateExpandPaths(["user_id", "nope"]); // err('unknown expand path "nope"; …')
 * ```
 */
export function validateExpandPaths(paths: readonly string[]): Result<readonly string[], string> {
  const known = KNOWN_TASK_EXPAND_PATHS as readonly string[];
  const unknown = paths.filter((p) => !known.includes(p));
  if (unknown.length > 0)
    return err(
      `unknown expand path${unknown.length > 1 ? "s" : ""} ${unknown.map((p) => JSON.stringify(p)).join(", ")}; allowed: ${known.join(", ")}`,
    );
  return ok(paths);
}

class Expander {
  readonly items: TypedMessage[] = [];
  private readonly at = new Map<string, number>();

  /** Appends an item once (keyed by type and id) and returns its index. */
  add(typeUrl: string, id: string, encode: () => JsonObject): number {
    const key = `${typeUrl}\u0000${id}`;
    const seen = this.at.get(key);
    if (seen !== undefined) return seen;
    const index = this.items.length;
    this.items.push({ "@type": typeUrl, ...encode() });
    this.at.set(key, index);
    return index;
  }
}

/** A JSONPath to one or several items of `expanded`. */
function pathTo(indexes: readonly number[]): string {
  if (indexes.length === 0) return "";
  return `$.expanded[${indexes.join(",")}]`;
}

function taskRefs(task: Task): { appId: string; entitlementId: string; appUserId: string; identityUserId: string; accessReviewId: string } {
  const t = task.type;
  if (t && (t.kind === "grant" || t.kind === "revoke" || t.kind === "certify"))
    return {
      appId: t.appId,
      entitlementId: t.appEntitlementId,
      appUserId: t.appUserId,
      identityUserId: t.identityUserId,
      accessReviewId: t.kind === "certify" ? certifyReviewId(t) : t.kind === "revoke" && t.source?.kind === "review" ? t.source.accessReviewId : "",
    };
  if (t?.kind === "action" && t.target?.kind === "scopeRole")
    return { appId: t.target.appId, entitlementId: "", appUserId: t.target.appUserId, identityUserId: "", accessReviewId: "" };
  return { appId: "", entitlementId: "", appUserId: "", identityUserId: "", accessReviewId: "" };
}

/** The view's `…Path` fields that an expand mask can set; the others are always `""`. */
interface ExpandedPaths {
  readonly accessReviewPath: string;
  readonly appPath: string;
  readonly appUserPath: string;
  readonly approversPath: string;
  readonly createdByUserPath: string;
  readonly entitlementsPath: string;
  readonly identityUserPath: string;
  readonly stepApproversPath: string;
  readonly userPath: string;
}

/**
 * Appends the objects the expand mask asks for to `ex` and returns the paths to them. Only called
 * with a non-empty mask: most requests expand nothing, and the closures here cost on every call.
 */
function expand(world: World, task: Task, expandPaths: readonly string[], ex: Expander): ExpandedPaths {
  const all = expandPaths.includes("*");
  const wants = (p: string): boolean => all || expandPaths.includes(p);
  const refs = taskRefs(task);
  const userIndexes = (ids: readonly string[]): number[] =>
    ids.flatMap((id) => {
      const u: User | undefined = world.index.users.get(id);
      return u ? [ex.add(TYPE_URLS.user, u.id, () => encodeUser(u))] : [];
    });

  const paths: Record<string, string> = {};
  if (wants("user_id")) paths["userPath"] = pathTo(userIndexes(task.userId ? [task.userId] : []));
  if (wants("created_by_user_id")) paths["createdByUserPath"] = pathTo(userIndexes(task.createdByUserId ? [task.createdByUserId] : []));
  if (wants("identity_user_id")) paths["identityUserPath"] = pathTo(userIndexes(refs.identityUserId ? [refs.identityUserId] : []));
  if (wants("app_id")) {
    const app = world.index.apps.get(refs.appId);
    // With its owners as Users, as every read of an app writes them.
    const owner = (id: string): JsonObject | undefined => {
      const u = world.index.users.get(id);
      return u ? encodeUser(u) : undefined;
    };
    paths["appPath"] = app ? pathTo([ex.add(TYPE_URLS.app, app.id, () => encodeAppForApi(app, owner))]) : "";
  }
  if (wants("app_entitlement_ids")) {
    const ent = findEntitlement(world, refs.appId, refs.entitlementId);
    paths["entitlementsPath"] = ent ? pathTo([ex.add(TYPE_URLS.entitlement, `${ent.appId}/${ent.id}`, () => encodeEntitlementForApi(ent))]) : "";
  }
  if (wants("app_user_id")) {
    const au = world.index.appUsers.get(refs.appUserId);
    paths["appUserPath"] = au ? pathTo([ex.add(TYPE_URLS.appUser, au.id, () => encodeAppUserForApi(au))]) : "";
  }
  if (wants("access_review_id")) {
    const review = world.index.accessReviews.get(refs.accessReviewId);
    paths["accessReviewPath"] = review ? pathTo([ex.add(TYPE_URLS.accessReview, review.id, () => encodeAccessReview(review))]) : "";
  }
  if (wants("step_approver_ids")) paths["stepApproversPath"] = pathTo(userIndexes(task.stepApproverIds ?? []));
  if (wants("approver_ids")) paths["approversPath"] = pathTo(userIndexes(task.approverIds ?? []));
  // insight_ids, app_user_last_usage, entitlement_scope_bindings, scope_role_resources and resource
  // name objects the world file does not carry: they are accepted and expand to nothing.
  return {
    accessReviewPath: paths["accessReviewPath"] ?? "",
    appPath: paths["appPath"] ?? "",
    appUserPath: paths["appUserPath"] ?? "",
    approversPath: paths["approversPath"] ?? "",
    createdByUserPath: paths["createdByUserPath"] ?? "",
    entitlementsPath: paths["entitlementsPath"] ?? "",
    identityUserPath: paths["identityUserPath"] ?? "",
    stepApproversPath: paths["stepApproversPath"] ?? "",
    userPath: paths["userPath"] ?? "",
  };
}

const NOTHING_EXPANDED: ExpandedPaths = Object.freeze({
  accessReviewPath: "",
  appPath: "",
  appUserPath: "",
  approversPath: "",
  createdByUserPath: "",
  entitlementsPath: "",
  identityUserPath: "",
  stepApproversPath: "",
  userPath: "",
});

/**
 * Builds the task view and `expanded` items for a caller. The task's `actions` are the caller's;
 * fields the caller may not see are removed later, at encoding (see `hideFromCaller`).
 *
 * @example
 * ```ts
 * const { taskView, expanded } = buildTaskView(world, task, relation, ["user_id", "app_id"]);
 * taskView.userPath; // "$.expanded[0]"
 * ```
 */
export function buildTaskView(
  world: World,
  task: Task,
  relation: Relation,
  expandPaths: readonly string[],
): { taskView: TaskView; expanded: TypedMessage[] } {
  if (expandPaths.length === 0) return { taskView: viewOf(task, relation, NOTHING_EXPANDED), expanded: [] };
  const ex = new Expander();
  const paths = expand(world, task, expandPaths, ex);
  return { taskView: viewOf(task, relation, paths), expanded: ex.items };
}

/**
 * The most steps of a task's history a response carries: {@link viewedHistory}'s bound. Two runs of
 * any policy the fixtures, the synthetic worlds or the reference pages show fit well under it. The
 * world keeps every step; read `task.policy.history` (or the saved world file) for all of them.
 *
 * @example
 * ```ts
 * const r = restartTask(world, { taskId: "1001" }, { actorId: "u-it-dir" });
 * // r.value.response.taskView.task.policy.history.length <= VIEWED_HISTORY_MAX_STEPS
 * ```
 */
export const VIEWED_HISTORY_MAX_STEPS = 50;

/**
 * The history a task view carries: the steps of the task's current policy generation and of the
 * generation before it (what the last Hard Reset or Change Policy retired), never the runs before
 * those, and of those at most the newest {@link VIEWED_HISTORY_MAX_STEPS}. The world keeps every
 * step (the spec's `history` holds every completed step; `saveWorld` writes them all); a response
 * carrying them all grew with the task's past (3.9 MB after 2,000 resets of one task). The service
 * keeps "the task's history prior to the hard reset" — and prior to a restart or a policy change —
 * in the task's audit log (product_how-to_access-change-tasks.mdx), and OpenAPI's `history` is
 * read-only output with no promise of completeness. The step bound is what keeps a response
 * bounded where generations do not: a Restart keeps the generation, and reassigning or retrying a
 * provision adds steps without a new one. Costs the steps it keeps, not the task's whole history;
 * a history that fits is returned as it is.
 *
 * @example
 * ```ts
 * viewedHistory(task)?.length; // ≤ VIEWED_HISTORY_MAX_STEPS: the current and the previous run's steps
 * ```
 */
export function viewedHistory(task: Task): AppendLog<PolicyStepInstance> | null {
  const history = task.policy?.history ?? null;
  if (history === null || history.length === 0) return history;
  const current = task.policyGenerationId;
  const oldest = Math.max(0, history.length - VIEWED_HISTORY_MAX_STEPS);
  let previous: string | undefined;
  let from = history.length;
  while (from > oldest) {
    const gen = (history.at(from - 1) as PolicyStepInstance).policyGenerationId;
    if (gen !== current) {
      if (previous === undefined) previous = gen;
      else if (gen !== previous) break;
    }
    from--;
  }
  return from === 0 ? history : AppendLog.of(history.slice(from));
}

/** The task's policy without the simulation's chain snapshot, which the service's responses do not carry. */
function withoutChainSnapshot(policy: Task["policy"]): Task["policy"] {
  if (policy?.referencedPolicies === undefined) return policy;
  const { referencedPolicies: _snapshot, ...rest } = policy;
  return rest;
}

function viewOf(task: Task, relation: Relation, paths: ExpandedPaths): TaskView {
  const history = viewedHistory(task);
  const policy = task.policy && history !== task.policy.history ? { ...task.policy, history } : task.policy;
  return {
    task: { ...task, policy: withoutChainSnapshot(policy), actions: taskActionsFor(task, relation) },
    objectPermissions: objectPermissionsFor(relation, task),
    accessReviewPath: paths.accessReviewPath,
    appPath: paths.appPath,
    appUserPath: paths.appUserPath,
    appUserLastUsagePath: "",
    approversPath: paths.approversPath,
    createdByUserPath: paths.createdByUserPath,
    entitlementsPath: paths.entitlementsPath,
    identityUserPath: paths.identityUserPath,
    insightsPath: "",
    principalResourcePath: "",
    resourceBindingsPath: "",
    roleResourcePath: "",
    scopeResourcePath: "",
    stepApproversPath: paths.stepApproversPath,
    userPath: paths.userPath,
  };
}

/**
 * Task fields a caller without administrator rights, who is not an approver, does not see: the
 * AI analysis and insights (`analysisId`, `insightIds`, `recommendation`) and the free-form `data`.
 * They are removed from the encoded task, not emptied (spec: Authentication).
 *
 * @example
 * ```ts
 * HIDDEN_TASK_FIELDS.includes("data"); // true
 * ```
 */
export const HIDDEN_TASK_FIELDS = ["analysisId", "insightIds", "recommendation", "data"] as const;

/**
 * Removes {@link HIDDEN_TASK_FIELDS} from an encoded response's `taskView.task`.
 *
 * @example
 * ```ts
 * const body = hideFromCaller(encodeCommentResponse(res));
 * ```
 */
export function hideFromCaller<T>(encoded: T): T {
  const body = encoded as unknown as { taskView?: { task?: Record<string, unknown> | null } | null };
  const task = body.taskView?.task;
  if (task) for (const f of HIDDEN_TASK_FIELDS) delete task[f];
  return encoded;
}
