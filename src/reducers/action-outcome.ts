/**
 * Action step outcomes: what the automation, resource action or client-id approval an action step
 * started reports. The simulation lets an administrator report it, standing in for the system that
 * runs it (the enum has no task action for it). `success` ends the step and the workflow runs on;
 * `denied`, `error` and `cancelled` close the task with the matching outcome.
 */
import type { JsonValue } from "../model/json.js";
import type { ActionInstanceOutcome, PolicyStepInstance } from "../model/index.js";
import { err, ok, type Result } from "../result.js";
import { completeStep, emit } from "../workflow/advance.js";
import type { Verdict } from "../workflow/outcomes.js";
import type { World } from "../world/world.js";
import type { Step } from "./comment.js";
import type { SimError } from "./errors.js";
import { mayReportActionOutcome } from "./permissions.js";
import type { ActionContext, ExpandMaskInput } from "./prelude.js";
import { pendingStep } from "./step-checks.js";
import { type ActionSpec, denied, invalid, readString, runTaskAction } from "./task-action.js";

/**
 * The four outcomes of an action step.
 *
 * @example
 * ```ts
 * const o: ActionStepOutcome = "error";
 * ```
 */
export type ActionStepOutcome = "success" | "denied" | "error" | "cancelled";

/**
 * The action outcome report.
 *
 * @example
 * ```ts
 * const req: ActionOutcomeInput = { taskId: "1051", outcome: "error", errorCode: "OKTA_429", errorMessage: "rate limited" };
 * ```
 */
export interface ActionOutcomeInput {
  readonly taskId: string;
  readonly outcome: ActionStepOutcome;
  readonly errorCode?: string;
  readonly errorMessage?: string;
  readonly policyStepId?: string;
  readonly expandMask?: ExpandMaskInput | null;
}

interface Req {
  readonly outcome: ActionStepOutcome;
  readonly errorCode: string;
  readonly errorMessage: string;
  readonly policyStepId: string;
}

const OUTCOMES: readonly ActionStepOutcome[] = ["success", "denied", "error", "cancelled"];
const VERDICT: Record<ActionStepOutcome, Verdict | undefined> = { success: undefined, denied: "denied", error: "error", cancelled: "cancelled" };

const spec: ActionSpec<Req> = {
  action: "",
  ticket: true,
  read: (req) => {
    const outcome = readString(req, "outcome");
    if (!outcome.ok) return outcome;
    if (!(OUTCOMES as readonly string[]).includes(outcome.value))
      return err(invalid(`outcome must be one of ${OUTCOMES.join(", ")}`, "outcome"));
    const errorCode = readString(req, "errorCode");
    if (!errorCode.ok) return errorCode;
    const errorMessage = readString(req, "errorMessage");
    if (!errorMessage.ok) return errorMessage;
    const policyStepId = readString(req, "policyStepId");
    if (!policyStepId.ok) return policyStepId;
    return ok({ outcome: outcome.value as ActionStepOutcome, errorCode: errorCode.value, errorMessage: errorMessage.value, policyStepId: policyStepId.value });
  },
  state: (c, r) => {
    const cur = pendingStep(c.task, "action", "report the action outcome of", r.policyStepId);
    return cur.ok ? undefined : cur.error;
  },
  permitted: (c) =>
    mayReportActionOutcome(c.relation)
      ? undefined
      : denied(`user "${c.caller.id}" may not report an action step's outcome: Super Administrators stand in for the system that runs it`),
  validate: (_c, r) => (r.outcome === "error" && r.errorCode.trim() === "" ? invalid("an error outcome needs an errorCode", "errorCode") : undefined),
  apply: (ctx, c, r) => {
    const cur = pendingStep(c.task, "action", "report the action outcome of", r.policyStepId);
    if (!cur.ok) return err(cur.error);
    const ticketActionId = emit(ctx, c.task.id, c.caller.id, {
      kind: "actionOutcome",
      policyStepId: cur.step.id,
      outcome: r.outcome,
      errorCode: r.errorCode,
      errorMessage: r.errorMessage,
    });
    const outcome: ActionInstanceOutcome =
      r.outcome === "error"
        ? { kind: "error", errorCode: r.errorCode, errorMessage: r.errorMessage, outcomeTime: ctx.now }
        : { kind: r.outcome, outcomeTime: ctx.now };
    const done: PolicyStepInstance = {
      ...cur.step,
      state: "POLICY_STEP_STATE_DONE",
      instance: { ...cur.instance, state: r.outcome === "error" ? "ACTION_INSTANCE_STATE_ERROR" : "ACTION_INSTANCE_STATE_DONE", outcome },
    };
    return ok({ task: completeStep(ctx, { ...c.task, updatedAt: ctx.now }, done, VERDICT[r.outcome]), ticketActionId });
  },
};

/**
 * Reports the outcome of the task's running action step.
 *
 * Refusals: `FAILED_PRECONDITION` unless an undecided action step is current; `PERMISSION_DENIED`
 * for anyone but administrators; `INVALID_ARGUMENT` for an unknown outcome or an error without
 * `errorCode`. Events: `actionOutcome` (the `ticketActionId`), then the workflow's.
 *
 * @example
 * ```ts
 * reportActionOutcome(world, { taskId: "1051", outcome: "success" }, { actorId: "u-it-dir" });
 * ```
 */
export function reportActionOutcome(world: World, req: ActionOutcomeInput, ctx: ActionContext): Result<Step<JsonValue>, SimError> {
  return runTaskAction(world, req, ctx, spec);
}
