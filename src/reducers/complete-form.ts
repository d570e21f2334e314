/**
 * Form completion: the requester (or the target, or an administrator) fills the current form step.
 * The values are validated against the form's fields and rules, with one problem per field; on
 * success the step stores them (with the defaults of fields left empty), ends `completed`, and the
 * workflow runs on. An action task also keeps them as its `formValues`. The task's `actions` show it
 * as `TASK_ACTION_TYPE_UPDATE_REQUEST_DATA` (assumed: the enum has no form member).
 */
import type { JsonObject, JsonValue } from "../model/json.js";
import type { PolicyStepInstance, Task } from "../model/index.js";
import { err, ok, type Result } from "../result.js";
import { completeStep, emit } from "../workflow/advance.js";
import { validateFormValues } from "../workflow/form-validation.js";
import type { World } from "../world/world.js";
import type { Step } from "./comment.js";
import type { SimError } from "./errors.js";
import type { ActionContext, ExpandMaskInput } from "./prelude.js";
import { pendingStep } from "./step-checks.js";
import { type ActionSpec, invalid, jsonObjectInput, readString, runTaskAction } from "./task-action.js";

/**
 * The form completion request: the values by field name.
 *
 * @example
 * ```ts
 * const req: CompleteFormInput = { taskId: "1012", values: { justification: "Quarter-end close for EMEA", accessDays: "14" } };
 * ```
 */
export interface CompleteFormInput {
  readonly taskId: string;
  readonly values: JsonObject;
  readonly policyStepId?: string;
  readonly expandMask?: ExpandMaskInput | null;
}

interface Req {
  readonly values: JsonObject;
  readonly policyStepId: string;
}

const spec: ActionSpec<Req> = {
  action: "TASK_ACTION_TYPE_UPDATE_REQUEST_DATA",
  ticket: true,
  read: (req) => {
    const v = req["values"];
    if (typeof v !== "object" || v === null || Array.isArray(v)) return err(invalid("values must be an object of field name to value", "values"));
    const policyStepId = readString(req, "policyStepId");
    if (!policyStepId.ok) return policyStepId;
    const values = jsonObjectInput(v, "values");
    if (!values.ok) return values;
    return ok({ values: values.value, policyStepId: policyStepId.value });
  },
  state: (c, r) => {
    const cur = pendingStep(c.task, "form", "complete the form of", r.policyStepId);
    return cur.ok ? undefined : cur.error;
  },
  validate: (c, r) => {
    const inst = c.task.policy?.current?.instance;
    if (inst?.kind !== "form") return undefined;
    const { problems } = validateFormValues(inst.form, r.values, { now: c.now, world: c.world });
    if (problems.length === 0) return undefined;
    const first = problems[0];
    return {
      code: "INVALID_ARGUMENT",
      message: `the form values are not valid: ${problems.map((p) => (p.field ? `${p.field}: ${p.message}` : p.message)).join("; ")}`,
      field: first?.field ? `values.${first.field}` : "values",
    };
  },
  apply: (ctx, c, r) => {
    const cur = pendingStep(c.task, "form", "complete the form of", r.policyStepId);
    if (!cur.ok) return err(cur.error);
    const { values } = validateFormValues(cur.instance.form, r.values, { now: ctx.now, world: ctx.world });
    const ticketActionId = emit(ctx, c.task.id, c.caller.id, { kind: "formCompleted", policyStepId: cur.step.id, fieldNames: Object.keys(values) });
    const done: PolicyStepInstance = {
      ...cur.step,
      state: "POLICY_STEP_STATE_DONE",
      instance: { ...cur.instance, data: values, state: "FORM_INSTANCE_STATE_DONE", outcome: { kind: "completed", completedAt: ctx.now, userId: c.caller.id } },
    };
    const t = c.task.type;
    const task: Task = { ...c.task, updatedAt: ctx.now, type: t?.kind === "action" ? { ...t, formValues: values } : t };
    return ok({ task: completeStep(ctx, task, done), ticketActionId });
  },
};

/**
 * Completes the task's current form step with validated values.
 *
 * Refusals: `FAILED_PRECONDITION` unless an undecided form step is current; `PERMISSION_DENIED` for
 * anyone but the requester, the target and administrators; `INVALID_ARGUMENT` listing every field
 * problem (unknown field, read-only field, required field empty, wrong type, a rule or option or
 * relationship broken), with `field` naming the first (`values.<name>`). Events: `formCompleted`
 * (the `ticketActionId`), then the workflow's.
 *
 * @example
 * ```ts
 * completeForm(world, { taskId: "1012", values: { justification: "Quarter-end close" } }, { actorId: "u-fin1" });
 * ```
 */
export function completeForm(world: World, req: CompleteFormInput, ctx: ActionContext): Result<Step<JsonValue>, SimError> {
  return runTaskAction(world, req, ctx, spec);
}
