/**
 * One dispatcher for every task action: `reduce(world, action, ctx)`. An action is plain JSON tagged
 * by `type`, so a script can carry it; each type is its own pure function (one file each under
 * `src/reducers/`), and this module only routes. Never throws; an unknown `type` is
 * `INVALID_ARGUMENT` naming the known ones.
 */
import type { JsonObject, JsonValue } from "../model/json.js";
import { err, ok, type Result } from "../result.js";
import { type AdvanceContext, IdSequence } from "../workflow/advance.js";
import { type ActionOutcomeInput, reportActionOutcome } from "./action-outcome.js";
import { approveTask, approveWithStepUp, type DecisionInput, denyTask, type StepUpApproveInput } from "./approve.js";
import { changePolicy, type ChangePolicyInput, escalateToEmergencyAccess, type EscalateInput } from "./change-policy.js";
import { closeTaskAction, type CloseInput, deleteTask } from "./close.js";
import { comment, type CommentInput, type Step } from "./comment.js";
import { completeForm, type CompleteFormInput } from "./complete-form.js";
import { guarded, type SimError, notAWorld } from "./errors.js";
import { hardReset, type HardResetInput } from "./hard-reset.js";
import type { ActionContext } from "./prelude.js";
import { processNow, type ProcessNowInput } from "./process-now.js";
import {
  provisionCancelled,
  type ProvisionCancelledInput,
  provisionComplete,
  type ProvisionCompleteInput,
  provisionErrored,
  type ProvisionErroredInput,
  retryProvisioning,
  type RetryProvisioningInput,
} from "./provision.js";
import { reassignTask, type ReassignInput } from "./reassign.js";
import { restartTask, type RestartInput } from "./restart.js";
import { sendReminder, type SendReminderInput } from "./send-reminder.js";
import { skipStep, type SkipStepInput } from "./skip-step.js";
import { sync, type SyncInput } from "./sync.js";
import { updateGrantDuration, type UpdateGrantDurationInput } from "./update-grant-duration.js";
import { commit, deletedTask } from "./task-action.js";
import type { World } from "../world/world.js";

/**
 * Every action `reduce` applies, tagged by `type`. The other fields are the request body of the
 * service's endpoint for it (plus `taskId`, the path parameter).
 *
 * @example
 * ```ts
 * const a: WorkflowAction = { type: "approve", taskId: "1001", comment: "ok" };
 * ```
 */
export type WorkflowAction =
  | ({ readonly type: "approve" } & DecisionInput)
  | ({ readonly type: "approveWithStepUp" } & StepUpApproveInput)
  | ({ readonly type: "deny" } & DecisionInput)
  | ({ readonly type: "reassign" } & ReassignInput)
  | ({ readonly type: "skipStep" } & SkipStepInput)
  | ({ readonly type: "restart" } & RestartInput)
  | ({ readonly type: "close" } & CloseInput)
  | ({ readonly type: "delete" } & CloseInput)
  | ({ readonly type: "sendReminder" } & SendReminderInput)
  | ({ readonly type: "escalateToEmergencyAccess" } & EscalateInput)
  | ({ readonly type: "changePolicy" } & ChangePolicyInput)
  | ({ readonly type: "processNow" } & ProcessNowInput)
  | ({ readonly type: "provisionComplete" } & ProvisionCompleteInput)
  | ({ readonly type: "provisionCancelled" } & ProvisionCancelledInput)
  | ({ readonly type: "provisionErrored" } & ProvisionErroredInput)
  | ({ readonly type: "retryProvisioning" } & RetryProvisioningInput)
  | ({ readonly type: "completeForm" } & CompleteFormInput)
  | ({ readonly type: "updateGrantDuration" } & UpdateGrantDurationInput)
  | ({ readonly type: "actionOutcome" } & ActionOutcomeInput)
  | ({ readonly type: "sync" } & SyncInput)
  | ({ readonly type: "hardReset" } & HardResetInput)
  | ({ readonly type: "comment" } & CommentInput);

/**
 * The `type` of a {@link WorkflowAction}.
 *
 * @example
 * ```ts
 * const t: WorkflowActionType = "retryProvisioning";
 * ```
 */
export type WorkflowActionType = WorkflowAction["type"];

type Reducer = (world: World, req: never, ctx: ActionContext) => Result<Step<JsonValue>, SimError>;

/** Each action type and its reducer. `satisfies` keeps this table complete. */
const REDUCERS = {
  approve: approveTask,
  approveWithStepUp,
  deny: denyTask,
  reassign: reassignTask,
  skipStep,
  restart: restartTask,
  close: closeTaskAction,
  delete: deleteTask,
  sendReminder,
  escalateToEmergencyAccess,
  changePolicy,
  processNow,
  provisionComplete,
  provisionCancelled,
  provisionErrored,
  retryProvisioning,
  completeForm,
  updateGrantDuration,
  actionOutcome: reportActionOutcome,
  sync,
  hardReset,
  comment,
} as const satisfies Record<WorkflowActionType, Reducer>;

/**
 * The action types `reduce` knows, in a stable order.
 *
 * @example
 * ```ts
 * WORKFLOW_ACTION_TYPES.includes("approve"); // true
 * ```
 */
export const WORKFLOW_ACTION_TYPES: readonly WorkflowActionType[] = Object.keys(REDUCERS) as WorkflowActionType[];

/**
 * Hard Reset predates the workflow's world effects: when its automatic advance closes the task (an
 * accept-only policy grants at once), the grant is applied here.
 */
function withEffects(step: Step<JsonValue>): Result<Step<JsonValue>, SimError> {
  if (!step.events.some((e) => e.kind === "grantAdded" || e.kind === "grantRevoked" || e.kind === "taskClosed")) return ok(step);
  const ctx: AdvanceContext = {
    world: step.world,
    now: step.world.now,
    actorId: "",
    ids: new IdSequence(step.world.seq),
    expressions: () => ({ ok: true, value: [] }),
    events: [...step.events],
    comments: [],
    approvers: new Map(),
  };
  const world = Object.freeze(commit(step.world, ctx, null));
  return ok({ world, response: step.response, events: ctx.events });
}

function isKnown(type: unknown): type is WorkflowActionType {
  return typeof type === "string" && Object.prototype.hasOwnProperty.call(REDUCERS, type);
}

/**
 * Applies one action to the world, as the service's endpoint for it would: returns the next world
 * (the old one untouched), the endpoint's response body in wire JSON, and the audit events. A
 * deleted task is `NOT_FOUND` for every action. Time is `ctx.now` (default: the world's clock);
 * `reduce` does not move the clock — `tick` does.
 *
 * @example
 * ```ts
 * const r = reduce(world, { type: "approve", taskId: "1001", comment: "ok" }, { actorId: "u-sre-lead" });
 * if (r.ok) world = r.value.world;
 * else console.error(r.error.code, r.error.message);
 * ```
 */
export function reduce(world: World, action: WorkflowAction, ctx: ActionContext): Result<Step<JsonValue>, SimError> {
  return guarded(() => {
    const notWorld = notAWorld(world);
    if (notWorld) return err<SimError>(notWorld);
    const a = action as unknown;
    if (typeof a !== "object" || a === null || Array.isArray(a))
      return err<SimError>({ code: "INVALID_ARGUMENT", message: "an action is an object with a type", field: "type" });
    const { type, ...req } = a as JsonObject & { type?: unknown };
    if (!isKnown(type))
      return err<SimError>({
        code: "INVALID_ARGUMENT",
        message: `unknown action type ${JSON.stringify(type)}; known: ${WORKFLOW_ACTION_TYPES.join(", ")}`,
        field: "type",
      });
    // The original reducers (comment, hardReset) know nothing of deletion; a deleted task is gone for them too.
    const gone = deletedTask(world, req);
    if (gone) return err(gone);
    const reducer = REDUCERS[type] as (world: World, req: unknown, ctx: ActionContext) => Result<Step<JsonValue>, SimError>;
    const r = reducer(world, req, ctx);
    return type === "hardReset" && r.ok ? withEffects(r.value) : r;
  });
}
