/**
 * The task actions service (`c1.api.task.v1.TaskActionsService`): every
 * `POST /api/v1/tasks/{task_id}/action/…` of the OpenAPI, each the reducer of the same name run
 * through `reduce` (so a deleted task is gone for every action, and Hard Reset's world effects
 * apply). The body is the operation's request body; `task_id` is the task's id or numericId.
 */
import { decodeCommentRequest, decodeHardResetRequest, type Diagnostic } from "../../codec/index.js";
import type { JsonObject, JsonValue } from "../../model/json.js";
import type { TaskExpandMask } from "../../model/task-view.js";
import { reduce, type WorkflowAction } from "../../reducers/reduce.js";
import type { ExpandMaskInput } from "../../reducers/prelude.js";
import { err, ok, type Result } from "../../result.js";
import { type HttpFailure, refusal, requiredStringProblem } from "../error-body.js";
import type { Operation, Route, RouteInput, WriteOperation } from "../route.js";
import { jsonNames } from "./search-fields.js";

/**
 * The failure for codec diagnostics of a request body: the first problem, with its field.
 *
 * @example
 * ```ts
 * bodyFailure([{ code: "EXPECTED_STRING", path: "$.comment", message: "expected a string" }]).field; // "comment"
 * ```
 */
export function bodyFailure(diagnostics: readonly Diagnostic[]): HttpFailure {
  const first = diagnostics[0];
  const field = first ? first.path.replace(/^\$\.?/, "") : "";
  const message = first ? `invalid request body at ${first.path}: ${first.message}` : "invalid request body";
  return refusal("INVALID_ARGUMENT", message, field !== "" ? { field } : {});
}

const maskOf = (m: TaskExpandMask | null): ExpandMaskInput | null => (m === null ? null : { paths: m.paths });

/** How an operation's body names a field the reducer names otherwise (`values.x` → `data.x`). */
type FieldNames = (field: string) => string;

/** A write running one action of `reduce`, its response reshaped for the operation when it differs. */
function write(action: WorkflowAction, reshape?: (body: JsonObject) => JsonObject, fieldNames?: FieldNames): Result<Operation, HttpFailure> {
  return ok({ kind: "write", apply: applying(action, reshape, fieldNames) });
}

/** The write's reducer run. Returned, not written inline in the operation, so no function is named per request. */
function applying(action: WorkflowAction, reshape?: (body: JsonObject) => JsonObject, fieldNames?: FieldNames): WriteOperation["apply"] {
  return (world, ctx) => {
    const r = reduce(world, action, ctx);
    // A refused field is named as the request body names it.
    if (!r.ok && fieldNames !== undefined && r.error.code === "INVALID_ARGUMENT" && r.error.field !== undefined) {
      const field = fieldNames(r.error.field);
      return err({ ...r.error, field, message: r.error.message.split(r.error.field).join(field) });
    }
    if (!r.ok || reshape === undefined) return r;
    const body = r.value.response;
    if (typeof body !== "object" || body === null || Array.isArray(body)) return r;
    return ok({ ...r.value, response: reshape(body as JsonObject) as JsonValue });
  };
}

/** The request body plus the path's task id, for the reducers that read their own fields. */
const withTask = (input: RouteInput): Record<string, unknown> => ({ ...input.body, taskId: input.params["task_id"] ?? "" });

function action(
  name: string,
  operation: string,
  toAction: (input: RouteInput) => Result<WorkflowAction, HttpFailure>,
  reshape?: (body: JsonObject) => JsonObject,
  fieldNames?: FieldNames,
): Route {
  return {
    method: "POST",
    path: `/api/v1/tasks/{task_id}/action/${name}`,
    operationId: `c1.api.task.v1.TaskActionsService.${operation}`,
    body: "json",
    handle: (input) => {
      // protojson reads a field by its proto name too (`expand_mask`); the top level only: form data maps are keyed by data.
      const body = jsonNames(input.body, { deep: false });
      if (!body.ok) return body;
      const a = toAction({ ...input, body: body.value });
      return a.ok ? write(a.value, reshape, fieldNames) : a;
    },
  };
}


/** The untyped body as an action of `type`: the reducer decodes and checks its own fields. */
const passThrough =
  (type: WorkflowAction["type"]) =>
  (input: RouteInput): Result<WorkflowAction, HttpFailure> =>
    ok({ ...withTask(input), type } as unknown as WorkflowAction);

/**
 * `toAction`, once the body has a non-empty string in each of `fields`: the fields openapi.yaml's
 * request schema lists as `required` (TaskActionsServiceApproveRequestInput, …SkipStepRequestInput:
 * `policyStepId`). The library's reducers take a missing step id as the current step's; the service
 * refuses the request, so a client that forgets it fails here as it would there.
 */
function requiring(fields: readonly string[], toAction: (input: RouteInput) => Result<WorkflowAction, HttpFailure>) {
  return (input: RouteInput): Result<WorkflowAction, HttpFailure> => {
    for (const field of fields) {
      const problem = requiredStringProblem(field, input.body[field]);
      if (problem === undefined) continue;
      const hint = field === "policyStepId" ? " (the id of the step acted on: taskView.task.policy.current.id)" : "";
      return err(refusal("INVALID_ARGUMENT", `invalid request body: ${problem}${hint}`, { field }));
    }
    return toAction(input);
  };
}

/** Close answers `taskActionId` (TaskActionsServiceCloseResponse), not `ticketActionId`. */
function closeResponse(body: JsonObject): JsonObject {
  const { ticketActionId, ...rest } = body;
  return { ...rest, taskActionId: ticketActionId ?? "" };
}

/** Process Now answers the task view alone (TaskActionsServiceProcessNowResponse). */
function processNowResponse(body: JsonObject): JsonObject {
  const { ticketActionId: _dropped, ...rest } = body;
  return rest;
}

/**
 * Every route of the task actions service, in the OpenAPI's order.
 *
 * @example
 * ```ts
 * TASK_ACTION_ROUTES.map((r) => r.path.split("/").pop()); // ["approve", "approve-with-step-up", "close", ...]
 * ```
 */
export const TASK_ACTION_ROUTES: readonly Route[] = [
  action("approve", "Approve", requiring(["policyStepId"], passThrough("approve"))),
  action("approve-with-step-up", "ApproveWithStepUp", requiring(["policyStepId"], passThrough("approveWithStepUp"))),
  action("close", "Close", passThrough("close"), closeResponse),
  action("comment", "Comment", (input) => {
    const req = decodeCommentRequest(input.body);
    if (!req.ok) return err(bodyFailure(req.error));
    return ok({ type: "comment", taskId: input.params["task_id"] ?? "", comment: req.value.comment, expandMask: maskOf(req.value.expandMask) });
  }),
  action("deny", "Deny", passThrough("deny")),
  action("escalate", "EscalateToEmergencyAccess", passThrough("escalateToEmergencyAccess")),
  action("process", "ProcessNow", passThrough("processNow"), processNowResponse),
  action("reassign", "Reassign", passThrough("reassign")),
  action("reset", "HardReset", (input) => {
    const req = decodeHardResetRequest(input.body);
    if (!req.ok) return err(bodyFailure(req.error));
    return ok({ type: "hardReset", taskId: input.params["task_id"] ?? "", comment: req.value.comment, expandMask: maskOf(req.value.expandMask) });
  }),
  action("restart", "Restart", passThrough("restart")),
  action("retry-provisioning", "RetryProvisioning", passThrough("retryProvisioning")),
  action("skip-step", "SkipStep", requiring(["policyStepId"], passThrough("skipStep"))),
  action("update-grant-duration", "UpdateGrantDuration", passThrough("updateGrantDuration")),
  // The OpenAPI's `data` is the form's values: completing the current form step with them.
  action(
    "update-request-data",
    "UpdateRequestData",
    (input) => {
      const { data, values, ...rest } = input.body;
      return ok({ ...rest, values: data ?? values ?? {}, taskId: input.params["task_id"] ?? "", type: "completeForm" } as unknown as WorkflowAction);
    },
    undefined,
    (field) => (field === "values" || field.startsWith("values.") ? `data${field.slice("values".length)}` : field),
  ),
];
