/**
 * Sync (simulation only): the connector of an app reports what it sees. Entitlements created ahead
 * of the sync are now known, and every request waiting on such an entitlement resumes (release note
 * 3: the task "resumes automatically after the next sync"): its provision step stops waiting on the
 * entitlement merge and provisions as configured.
 */
import type { JsonObject, JsonValue } from "../model/json.js";
import type { PolicyStepInstance, Task } from "../model/index.js";
import { err, ok, type Result } from "../result.js";
import { taskConditions } from "../policy/task-conditions.js";
import { type AdvanceContext, emit, IdSequence, postComment } from "../workflow/advance.js";
import { isManual, manualProvisioners } from "../workflow/provisioners.js";
import { readSimulation, withSimulation } from "../workflow/sim-config.js";
import type { World } from "../world/world.js";
import type { Step } from "./comment.js";
import { guarded, type SimError, notAWorld } from "./errors.js";
import { maySyncApp, rolesOf } from "./permissions.js";
import type { ActionContext } from "./prelude.js";
import { commit, invalid } from "./task-action.js";

/**
 * The sync request: which app's connector synced.
 *
 * @example
 * ```ts
 * const req: SyncInput = { appId: "app-aws" };
 * ```
 */
export interface SyncInput {
  readonly appId: string;
}

/** The app an entitlement-merge wait is on, when the task's current step waits on one. */
function mergeWaitApp(task: Task): string | undefined {
  const inst = task.policy?.current?.instance;
  if (task.state !== "TASK_STATE_OPEN" || inst?.kind !== "provision" || inst.outcome !== null) return undefined;
  const on = inst.waitingOn?.on;
  return on?.kind === "entitlementMerge" ? on.appId : undefined;
}

function resume(ctx: AdvanceContext, task: Task, appName: string): Task {
  const step = task.policy?.current;
  const inst = step?.instance;
  if (!step || inst?.kind !== "provision") return task;
  const resumed: PolicyStepInstance = { ...step, instance: { ...inst, waitingOn: null, state: "PROVISION_INSTANCE_STATE_WAITING" } };
  postComment(ctx, task, "", `The sync of ${appName} reported the entitlement: provisioning continues.`);
  emit(ctx, task.id, "", { kind: "provisionResumedAfterSync", policyStepId: step.id, appId: mergeWaitApp(task) ?? "" });
  const policy = inst.provision?.provisionPolicy ?? null;
  const manual = isManual(policy);
  return {
    ...task,
    updatedAt: ctx.now,
    processing: manual ? "TASK_PROCESSING_TYPE_WAITING" : "TASK_PROCESSING_TYPE_PROCESSING",
    stepApproverIds: manual ? manualProvisioners(ctx.world, task, policy, ctx.expressions) : [],
    policy: task.policy ? { ...task.policy, current: resumed } : null,
  };
}

/**
 * Plays a connector sync of an app (simulation only; administrators). The app's entitlements listed
 * in `simulation.unsyncedEntitlements` become known, and open requests waiting on an entitlement
 * merge in that app resume. The response is `{appId, syncedEntitlementIds, resumedTaskIds}`.
 * Costs one pass over the tasks.
 *
 * Refusals: `UNAUTHENTICATED` for an unknown caller, `PERMISSION_DENIED` for a non-administrator,
 * `INVALID_ARGUMENT` for a missing appId, `NOT_FOUND` for an unknown app. Events: `synced` (first),
 * then per resumed task `comment` and `provisionResumedAfterSync`.
 *
 * @example
 * ```ts
 * const r = sync(world, { appId: "app-aws" }, { actorId: "u-it-dir" });
 * if (r.ok) console.log(r.value.response); // { appId: "app-aws", syncedEntitlementIds: [...], resumedTaskIds: ["…"] }
 * ```
 */
export function sync(world: World, req: SyncInput, actx: ActionContext): Result<Step<JsonValue>, SimError> {
  return guarded(() => {
    const notWorld = notAWorld(world);
    if (notWorld) return err<SimError>(notWorld);
    const appId = typeof req === "object" && req !== null && typeof req.appId === "string" ? req.appId : "";
    if (appId === "") return err(invalid("appId is required: the app whose connector synced", "appId"));
    const actorId = typeof actx === "object" && actx !== null && typeof actx.actorId === "string" ? actx.actorId : "";
    const caller = world.index.users.get(actorId);
    if (!caller) return err<SimError>({ code: "UNAUTHENTICATED", message: `caller "${actorId}" is not a user of this world` });
    const app = world.index.apps.get(appId);
    if (!maySyncApp(rolesOf(world, caller), caller.id, app))
      return err<SimError>({
        code: "PERMISSION_DENIED",
        message: `user "${actorId}" may not sync app "${appId}": Super Administrators, Connector Administrators and the app's Application Administrators only`,
      });
    if (!app) return err<SimError>({ code: "NOT_FOUND", message: `app "${appId}" not found` });
    const now = typeof actx.now === "string" && actx.now !== "" ? actx.now : world.now;

    const sim = readSimulation(world);
    const synced = sim.unsyncedEntitlements.filter((u) => u.appId === appId).map((u) => u.appEntitlementId);
    let next = synced.length > 0 ? withSimulation(world, { ...sim, unsyncedEntitlements: sim.unsyncedEntitlements.filter((u) => u.appId !== appId) }) : world;
    const waiting = [...world.tasks.values()].filter((t) => mergeWaitApp(t) === appId);
    const ctx: AdvanceContext = {
      world: next.now === now ? next : { ...next, now },
      now,
      actorId: caller.id,
      ids: new IdSequence(world.seq),
      expressions: () => ({ ok: true, value: [] }),
      events: [],
      comments: [],
      approvers: new Map(),
    };
    emit(ctx, "", caller.id, { kind: "synced", appId, appEntitlementIds: synced, resumedTaskIds: waiting.map((t) => t.id) });
    for (const t of waiting) {
      const before = ctx.comments.length;
      const resumed = resume({ ...ctx, expressions: taskConditions(ctx.world, t).expressions }, t, app.displayName || appId);
      const posted = ctx.comments.length - before;
      next = { ...next, tasks: next.tasks.set(t.id, { ...resumed, commentCount: resumed.commentCount + posted }) };
    }
    const committed = Object.freeze(commit(next, ctx, null));
    const response: JsonObject = { appId, syncedEntitlementIds: synced, resumedTaskIds: waiting.map((t) => t.id) };
    return ok({ world: committed, response, events: ctx.events });
  });
}
