/**
 * Provisioning outcomes and Retry Provisioning.
 *
 * A provision step is carried out by people (manual, unconfigured: the step approvers) or by a
 * system (connector, webhook, external ticket, …: an administrator reports for it). Its outcome:
 * - complete: the step is done and the workflow runs on; after the last step a request closes
 *   `GRANT_OUTCOME_GRANTED` (the grant is added to the world), a revoke `REVOKE_OUTCOME_REVOKED`
 *   (the grant and any `revocationTargets` are removed);
 * - cancelled: the task closes with its cancelled outcome;
 * - errored: a system's step (connector, webhook, …) falls back to manual provisioning by the app's
 *   owners and the task stays open, offering Retry Provisioning (product_admin_provisioning.mdx,
 *   product_how-to_access-change-tasks.mdx); a manual step reported failed closes the task with its
 *   error outcome, Retry Provisioning offered.
 * Retry Provisioning (release note 2) runs a fresh instance of the failed provision step on the same
 * task (retiring the manual fallback, or reopening the closed task); the approvals already collected
 * stay in its history and `approverIds`.
 */
import { AppendLog } from "../world/append-log.js";
import type { JsonValue } from "../model/json.js";
import type { AppEntitlementReference, PolicyStepInstance, Task } from "../model/index.js";
import { err, ok, type Result } from "../result.js";
import { advance, completeStep, emit, fallBackToManualProvisioning, finishCurrent, postComment } from "../workflow/advance.js";
import { instantiate } from "../workflow/instantiate.js";
import { withOutcome } from "../workflow/outcomes.js";
import type { World } from "../world/world.js";
import type { Step } from "./comment.js";
import { provisioningFailed } from "./permissions.js";
import type { ActionContext, ExpandMaskInput } from "./prelude.js";
import { pendingStep, taskName } from "./step-checks.js";
import { type ActionSpec, commit, contextFor, invalid, precondition, readString, runTaskAction } from "./task-action.js";
import type { User } from "../model/directory.js";
import type { AuditEvent } from "../workflow/events.js";
import { connectorIdOf, isManual } from "../workflow/provisioners.js";
import { readSimulation } from "../workflow/sim-config.js";
import { taskEntitlementRef } from "../model/task-refs.js";
import { guarded, notAWorld, type SimError } from "./errors.js";
import type { Relation } from "./permissions.js";
import { isRealTimestamp, utcTimestamp } from "./prelude.js";

/**
 * The Provision Complete request: optionally the entitlements provisioned (the task's entitlement
 * when absent) and a comment.
 *
 * @example
 * ```ts
 * const req: ProvisionCompleteInput = { taskId: "1042", comment: "Removed in Salesforce Setup" };
 * ```
 */
export interface ProvisionCompleteInput {
  readonly taskId: string;
  readonly entitlements?: readonly AppEntitlementReference[];
  readonly comment?: string;
  readonly policyStepId?: string;
  readonly expandMask?: ExpandMaskInput | null;
}

/**
 * The Provision Cancelled request.
 *
 * @example
 * ```ts
 * const req: ProvisionCancelledInput = { taskId: "1024", comment: "the user left" };
 * ```
 */
export interface ProvisionCancelledInput {
  readonly taskId: string;
  readonly comment?: string;
  readonly policyStepId?: string;
  readonly expandMask?: ExpandMaskInput | null;
}

/**
 * The Provision Errored request: the error the system reported.
 *
 * @example
 * ```ts
 * const req: ProvisionErroredInput = { taskId: "1031", errorCode: "CONNECTOR_GRANT_FAILED", description: "API returned 422" };
 * ```
 */
export interface ProvisionErroredInput {
  readonly taskId: string;
  readonly errorCode: string;
  readonly description: string;
  readonly policyStepId?: string;
  readonly expandMask?: ExpandMaskInput | null;
}

/**
 * The Retry Provisioning request.
 *
 * @example
 * ```ts
 * const req: RetryProvisioningInput = { taskId: "1019" };
 * ```
 */
export interface RetryProvisioningInput {
  readonly taskId: string;
  readonly comment?: string;
  /**
   * The provision step to retry (openapi.yaml: "The ID of the provision policy step to retry"):
   * the errored step, or the manual fallback it opened; `""` or absent for whichever failed.
   */
  readonly policyStepId?: string;
  readonly expandMask?: ExpandMaskInput | null;
}

interface Outcome {
  readonly comment: string;
  readonly policyStepId: string;
  readonly entitlements: readonly AppEntitlementReference[] | undefined;
  readonly errorCode: string;
  readonly description: string;
}

function readEntitlements(v: unknown): Result<readonly AppEntitlementReference[] | undefined, SimError> {
  if (v === undefined || v === null) return ok(undefined);
  if (!Array.isArray(v)) return err(invalid("entitlements must be an array of {appId, appEntitlementId}", "entitlements"));
  const out: AppEntitlementReference[] = [];
  for (const [i, e] of v.entries()) {
    const o = e as Record<string, unknown> | null;
    if (typeof o !== "object" || o === null || typeof o["appId"] !== "string" || typeof o["appEntitlementId"] !== "string")
      return err(invalid(`entitlements[${i}] must be {appId, appEntitlementId}`, `entitlements[${i}]`));
    out.push({ appId: o["appId"], appEntitlementId: o["appEntitlementId"] });
  }
  return ok(out);
}

function readOutcome(req: Readonly<Record<string, unknown>>): Result<Outcome, SimError> {
  const comment = readString(req, "comment");
  if (!comment.ok) return comment;
  const policyStepId = readString(req, "policyStepId");
  if (!policyStepId.ok) return policyStepId;
  const errorCode = readString(req, "errorCode");
  if (!errorCode.ok) return errorCode;
  const description = readString(req, "description");
  if (!description.ok) return description;
  const entitlements = readEntitlements(req["entitlements"]);
  if (!entitlements.ok) return entitlements;
  return ok({
    comment: comment.value,
    policyStepId: policyStepId.value,
    entitlements: entitlements.value,
    errorCode: errorCode.value,
    description: description.value,
  });
}

function defaultEntitlements(task: Task): AppEntitlementReference[] {
  const t = task.type;
  return t && (t.kind === "grant" || t.kind === "revoke") ? [{ appId: t.appId, appEntitlementId: t.appEntitlementId }] : [];
}

type Which = "complete" | "cancelled" | "errored";

const ACTION: Record<Which, string> = {
  complete: "TASK_ACTION_TYPE_PROVISION_COMPLETE",
  cancelled: "TASK_ACTION_TYPE_PROVISION_CANCELLED",
  errored: "TASK_ACTION_TYPE_PROVISION_ERRORED",
};

function outcomeSpec(which: Which): ActionSpec<Outcome> {
  const what = which === "complete" ? "complete the provisioning of" : which === "cancelled" ? "cancel the provisioning of" : "report a provisioning error on";
  return {
    action: ACTION[which],
    ticket: true,
    read: readOutcome,
    state: (c, r) => {
      const cur = pendingStep(c.task, "provision", what, r.policyStepId);
      return cur.ok ? undefined : cur.error;
    },
    validate: (_c, r) => {
      if (which !== "errored") return undefined;
      if (r.errorCode.trim() === "") return invalid("errorCode is required: the code the connector or system reported", "errorCode");
      if (r.description.trim() === "") return invalid("description is required: what went wrong", "description");
      return undefined;
    },
    apply: (ctx, c, r) => {
      const cur = pendingStep(c.task, "provision", what, r.policyStepId);
      if (!cur.ok) return err(cur.error);
      const step = cur.step;
      const inst = { ...cur.instance, state: "PROVISION_INSTANCE_STATE_DONE", waitingOn: null };
      const task = { ...c.task, updatedAt: ctx.now };
      if (which === "complete") {
        const entitlements = r.entitlements ?? defaultEntitlements(c.task);
        const ticketActionId = emit(ctx, c.task.id, c.caller.id, {
          kind: "provisionCompleted",
          policyStepId: step.id,
          entitlements: entitlements.map((e) => ({ appId: e.appId, appEntitlementId: e.appEntitlementId })),
        });
        postComment(ctx, c.task, c.caller.id, r.comment);
        const done: PolicyStepInstance = {
          ...step,
          state: "POLICY_STEP_STATE_DONE",
          instance: { ...inst, outcome: { kind: "completed", completedAt: ctx.now, entitlements, userId: c.caller.id } },
        };
        return ok({ task: completeStep(ctx, task, done), ticketActionId });
      }
      if (which === "cancelled") {
        const ticketActionId = emit(ctx, c.task.id, c.caller.id, { kind: "provisionCancelled", policyStepId: step.id });
        postComment(ctx, c.task, c.caller.id, r.comment);
        const done: PolicyStepInstance = {
          ...step,
          state: "POLICY_STEP_STATE_DONE",
          instance: { ...inst, outcome: { kind: "cancelled", cancelledAt: ctx.now, cancelledByUserId: c.caller.id } },
        };
        return ok({ task: completeStep(ctx, task, done, "cancelled"), ticketActionId });
      }
      const ticketActionId = emit(ctx, c.task.id, c.caller.id, { kind: "provisionErrored", policyStepId: step.id, errorCode: r.errorCode, description: r.description });
      const done: PolicyStepInstance = {
        ...step,
        state: "POLICY_STEP_STATE_DONE",
        instance: { ...inst, outcome: { kind: "errored", description: r.description, errorCode: r.errorCode, erroredAt: ctx.now } },
      };
      // A person who reports their own manual step failed closes the task; a system's failure
      // falls back to manual provisioning and the task stays open (product_admin_provisioning.mdx).
      if (isManual(cur.instance.provision?.provisionPolicy ?? null)) return ok({ task: completeStep(ctx, task, done, "error"), ticketActionId });
      return ok({ task: fallBackToManualProvisioning(ctx, task, step, r), ticketActionId });
    },
  };
}

const completeSpec = outcomeSpec("complete");
const cancelledSpec = outcomeSpec("cancelled");
const erroredSpec = outcomeSpec("errored");

const retrySpec: ActionSpec<{ readonly comment: string; readonly policyStepId: string }> = {
  action: "TASK_ACTION_TYPE_RETRY_PROVISIONING",
  ticket: true,
  read: (req) => {
    const comment = readString(req, "comment");
    if (!comment.ok) return comment;
    const policyStepId = readString(req, "policyStepId");
    return policyStepId.ok ? ok({ comment: comment.value, policyStepId: policyStepId.value }) : policyStepId;
  },
  state: (c) =>
    provisioningFailed(c.task)
      ? undefined
      : precondition(`task ${taskName(c.task)} did not close because provisioning failed: only a task closed with an errored provision step can retry it`),
  apply: (ctx, c, r) => {
    const failed = (c.task.policy?.history ?? []).at(-1);
    const inst = failed?.instance;
    if (!failed || inst?.kind !== "provision") return err(precondition("no errored provision step"));
    // A stale or wrong step id is refused, as approve and skip refuse one, rather than retrying another step.
    const fallbackId = c.task.policy?.current?.id;
    if (r.policyStepId !== "" && r.policyStepId !== failed.id && r.policyStepId !== fallbackId)
      return err(precondition(`cannot retry step "${r.policyStepId}" of task ${taskName(c.task)}: the provision step that failed is "${failed.id}"`));
    const definition = inst.provision ?? { assigned: false, provisionTarget: null, provisionPolicy: null };
    const newId = ctx.ids.take("step");
    const ticketActionId = emit(ctx, c.task.id, c.caller.id, { kind: "provisioningRetried", erroredPolicyStepId: failed.id, newPolicyStepId: newId });
    postComment(ctx, c.task, c.caller.id, r.comment);
    const current = instantiate({ kind: "provision", ...definition }, newId, c.task.policyGenerationId, ctx.now);
    // Still open on its manual fallback: that step is retired, cancelled by whoever retries.
    const fallback = c.task.policy?.current;
    const retired =
      fallback?.instance?.kind === "provision"
        ? finishCurrent(c.task, {
            ...fallback,
            state: "POLICY_STEP_STATE_DONE",
            instance: { ...fallback.instance, state: "PROVISION_INSTANCE_STATE_DONE", outcome: { kind: "cancelled", cancelledAt: ctx.now, cancelledByUserId: c.caller.id } },
          })
        : c.task;
    // Reopened on the same task: history and approverIds (the approvals collected) are kept.
    const reopened: Task = {
      ...retired,
      state: "TASK_STATE_OPEN",
      processing: "TASK_PROCESSING_TYPE_PROCESSING",
      type: retired.type ? withOutcome(retired.type, null, null) : null,
      updatedAt: ctx.now,
      policy: retired.policy ? { ...retired.policy, current } : { current, history: AppendLog.empty(), next: [], policy: null },
    };
    return ok({ task: advance(ctx, reopened), ticketActionId });
  },
};

/**
 * Reports a provision step done, as `TASK_ACTION_TYPE_PROVISION_COMPLETE`: the workflow runs on
 * (closing a request GRANTED or a revoke REVOKED after the last step, with the world's grants
 * updated).
 *
 * Refusals: `FAILED_PRECONDITION` unless an undecided provision step is current (or with a stale
 * `policyStepId`); `PERMISSION_DENIED` for anyone but the step's provisioners and administrators;
 * `INVALID_ARGUMENT` for malformed entitlements. Events: `provisionCompleted` (the
 * `ticketActionId`), `comment`, then the workflow's (`taskClosed`, `grantAdded`, `grantRevoked`).
 *
 * @example
 * ```ts
 * provisionComplete(world, { taskId: "1042" }, { actorId: "u-vp-sales" });
 * ```
 */
export function provisionComplete(world: World, req: ProvisionCompleteInput, ctx: ActionContext): Result<Step<JsonValue>, SimError> {
  return runTaskAction(world, req, ctx, completeSpec);
}

/**
 * Reports a provision step cancelled: the task closes with its cancelled outcome. Refusals as
 * {@link provisionComplete}. Events: `provisionCancelled` (the `ticketActionId`), `taskClosed`.
 *
 * @example
 * ```ts
 * provisionCancelled(world, { taskId: "1024" }, { actorId: "u-sec-eng" });
 * ```
 */
export function provisionCancelled(world: World, req: ProvisionCancelledInput, ctx: ActionContext): Result<Step<JsonValue>, SimError> {
  return runTaskAction(world, req, ctx, cancelledSpec);
}

/**
 * Reports a provision step failed: the errored step goes to history with its `errorCode` and
 * `description`, the task closes with its error outcome, and Retry Provisioning is offered.
 * Refusals as {@link provisionComplete}, plus `INVALID_ARGUMENT` without `errorCode` or
 * `description`. Events: `provisionErrored` (the `ticketActionId`), `taskClosed`.
 *
 * @example
 * ```ts
 * provisionErrored(world, { taskId: "1031", errorCode: "E_TIMEOUT", description: "connector timed out" }, { actorId: "u-sec-eng" });
 * ```
 */
export function provisionErrored(world: World, req: ProvisionErroredInput, ctx: ActionContext): Result<Step<JsonValue>, SimError> {
  return runTaskAction(world, req, ctx, erroredSpec);
}

/**
 * Retries failed provisioning on the same task (release note 2): reopens it on a fresh instance of
 * the errored provision step; approvals already collected are kept.
 *
 * Refusals: `FAILED_PRECONDITION` unless the task closed with an errored provision step;
 * `PERMISSION_DENIED` for anyone but administrators. Events: `provisioningRetried` (the
 * `ticketActionId`), `comment`, `stepStarted`.
 *
 * @example
 * ```ts
 * retryProvisioning(world, { taskId: "1019" }, { actorId: "u-it-dir" });
 * ```
 */
export function retryProvisioning(world: World, req: RetryProvisioningInput, ctx: ActionContext): Result<Step<JsonValue>, SimError> {
  return runTaskAction(world, req, ctx, retrySpec);
}

/** The caller of a connector's own report: nobody (`""`), as the firings of `tick` are nobody's. */
const CONNECTOR_CALLER = Object.freeze({ id: "" }) as unknown as User;
const CONNECTOR_RELATION: Relation = Object.freeze({ roles: [], subject: false, requester: false, approver: false, stepApprover: false });

/**
 * What {@link completeConnectorProvisioning} did: the world after, the audit events, the tasks
 * whose connector step completed.
 *
 * @example
 * ```ts
 * const done: ConnectorProvisioning = { world, events: [], completed: ["2jHto8…"] };
 * ```
 */
export interface ConnectorProvisioning {
  readonly world: World;
  readonly events: readonly AuditEvent[];
  readonly completed: readonly string[];
}

/**
 * Connectors finish their provisioning, as the service's do on their own
 * (product_admin_provisioning.mdx): every open task (of `taskIds`, or of the world) whose current
 * step is an undecided connector provision step completes it at `now`, reported by nobody (`""`),
 * and its workflow runs on (a request closes GRANTED, a revoke REVOKED, with the world's grants
 * updated). Left as they are: a step waiting on something (a sync), a connector the world's
 * `simulation` section says cannot provision, and every other provisioner (manual, webhook,
 * delegated, external ticket), which a person or system reports. Used by `serve
 * --connectors-complete`, so that a client polling a request sees it end as with the service.
 *
 * @example
 * ```ts
 * const r = completeConnectorProvisioning(world, "2026-11-22T09:30:00Z");
 * if (r.ok) store.set(r.value.world, r.value.events);
 * ```
 */
export function completeConnectorProvisioning(world: World, now: string, taskIds?: Iterable<string>): Result<ConnectorProvisioning, SimError> {
  return guarded(() => {
    const notWorld = notAWorld(world);
    if (notWorld) return err<SimError>(notWorld);
    if (!isRealTimestamp(now)) return err(invalid(`now must be an RFC 3339 timestamp, not ${JSON.stringify(now)}`, "now"));
    const at = utcTimestamp(now);
    const unable = new Set(readSimulation(world).connectors.filter((c) => !c.canProvision).flatMap((c) => [`id:${c.id}`, `app:${c.appId}`]));
    const ids = taskIds === undefined ? [...world.tasks.keys()] : [...new Set(taskIds)];
    let w = world;
    const events: AuditEvent[] = [];
    const completed: string[] = [];
    const idle: Outcome = { comment: "", policyStepId: "", entitlements: undefined, errorCode: "", description: "" };
    for (const id of ids) {
      const task = w.tasks.get(id);
      if (!task || task.deletedAt) continue;
      const cur = pendingStep(task, "provision", "complete the provisioning of", "");
      if (!cur.ok) continue;
      const policy = cur.instance.provision?.provisionPolicy ?? null;
      if (policy?.kind !== "connector" || cur.instance.waitingOn !== null) continue;
      const connectorId = connectorIdOf(policy) ?? "";
      const appId = taskEntitlementRef(task).appId;
      if ((connectorId !== "" && unable.has(`id:${connectorId}`)) || (connectorId === "" && unable.has(`app:${appId}`))) continue;
      const ctx = contextFor(w, task, "", at);
      const applied = completeSpec.apply(ctx, { world: w, task, caller: CONNECTOR_CALLER, relation: CONNECTOR_RELATION, now: at }, idle);
      if (!applied.ok) continue;
      w = Object.freeze(commit(applied.value.world ?? w, ctx, applied.value.task));
      events.push(...ctx.events);
      completed.push(task.id);
    }
    return ok({ world: w, events, completed });
  });
}
