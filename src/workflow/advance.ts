/**
 * Automatic advance: after a policy is (re)instantiated or a step completes, the workflow runs on by
 * itself until a step waits on a person, a timer or a system, or the task closes:
 * - `accept` completes (its message becomes a comment) and the next step starts; `reject` closes
 *   the task denied; an approval waits for its approvers (`resolveApprovers`: the kind's, the
 *   fallback, or the campaign owners / Super Administrators when nobody is found); only an approver
 *   expression that returns nobody skips its step; a request whose subject may approve it with
 *   self-approval allowed approves itself;
 * - a `wait` starts its timers and posts `commentOnFirstWait`; `tick` ends it;
 * - a `form` waits for the requester;
 * - a `provision` waits for a person (manual, unconfigured) or for a system to report its outcome;
 *   a request for an entitlement created ahead of its connector's sync waits for the sync (release
 *   note 3); a revoke whose connector cannot deprovision the entitlement is routed to manual work
 *   (release note 4);
 * - an `action` starts (RUNNING); an automation with a simulated revoke step runs at once
 *   (release notes 6, 7), other actions wait for their outcome;
 * - when the last step is done the task closes with its type's approved outcome.
 */
import { AppendLog } from "../world/append-log.js";
import type { AppEntitlementReference, PolicyStep, PolicyStepInstance, ProvisionInstance, ProvisionPolicy, Task } from "../model/index.js";
import type { Grant } from "../model/directory.js";
import type { TaskComment, World } from "../world/world.js";
import { findEntitlement, grantKeyOf } from "../world/world.js";
import { type ApproverResolution, type ExpressionEvaluator, resolveApprovers, superAdministrators } from "./approvers.js";
import { runRevokeStep } from "./automation.js";
import { delegatedTo } from "./inheritance.js";
import type { AuditEvent } from "./events.js";
import { durationSeconds, isoOf, msOf } from "./time.js";
import { addDuration, instantiate } from "./instantiate.js";
import { type Verdict, withOutcome } from "./outcomes.js";
import { appOwnersOf, connectorIdOf, isManual, manualProvisioners } from "./provisioners.js";
import { connectorFor, isUnsynced, readSimulation } from "./sim-config.js";

/**
 * The world's deterministic id sequence, taken from during one reducer call and stored back in the
 * world it returns.
 *
 * @example
 * ```ts
 * const ids = new IdSequence(world.seq);
 * ids.take("evt"); // "evt-000001" on a fresh world
 * ```
 */
export class IdSequence {
  /** Whether every number taken is a whole number ≥ 0 (a loaded world's `seq` is), asked once. */
  private readonly whole: boolean;

  constructor(private n: number) {
    this.whole = Number.isSafeInteger(n) && n >= 0;
  }

  /** The next id with this prefix. */
  take(prefix: string): string {
    const n = this.n++;
    // `String(n).padStart(6, "0")` without the call and the padded copy: a Hard Reset takes ~20 ids.
    if (this.whole) return prefix + (n < 10 ? "-00000" : n < 100 ? "-0000" : n < 1000 ? "-000" : n < 10000 ? "-00" : n < 100000 ? "-0" : "-") + n;
    return `${prefix}-${String(n).padStart(6, "0")}`;
  }

  /** The number the next id will use; the new world's `seq`. */
  get next(): number {
    return this.n;
  }
}

/**
 * What automatic advance needs from the reducer that calls it, and where it writes its effects.
 *
 * @example
 * ```ts
 * const ctx: AdvanceContext = { world, now: world.now, actorId: "u-root", ids: new IdSequence(world.seq),
 *   expressions: () => ({ ok: true, value: [] }), events: [], comments: [], approvers: new Map() };
 * ```
 */
export interface AdvanceContext {
  readonly world: World;
  readonly now: string;
  readonly actorId: string;
  readonly ids: IdSequence;
  readonly expressions: ExpressionEvaluator;
  readonly events: AuditEvent[];
  readonly comments: TaskComment[];
  /** Approvers resolved for each approval step instance started, by step instance id. */
  readonly approvers: Map<string, ApproverResolution>;
}

/**
 * An audit event without the fields every event gets from the context (`id`, `taskId`, `at`,
 * `actorId`).
 *
 * @example
 * ```ts
 * const body: EventBody = { kind: "waitTimedOut", policyStepId: "step-000004" };
 * ```
 */
export type EventBody = AuditEvent extends infer E ? (E extends AuditEvent ? Omit<E, "id" | "taskId" | "at" | "actorId"> : never) : never;

/**
 * Records an audit event with the next id; returns the id (a `ticketActionId` when the event is the
 * record of a task action).
 *
 * @example
 * ```ts
 * const ticketActionId = emit(ctx, task.id, ctx.actorId, { kind: "processedNow", policyStepId: step.id });
 * ```
 */
export function emit(ctx: AdvanceContext, taskId: string, actorId: string, body: EventBody): string {
  const id = ctx.ids.take("evt");
  // Same keys in the same order as `{ ...body, id, taskId, at, actorId }`, which on Node 20 costs
  // ~3 µs an event when bodies of many shapes meet here (a copy, then four stores: ~0.1 µs).
  const event: EventBody & { id?: string; taskId?: string; at?: string; actorId?: string } = Object.assign({}, body);
  event.id = id;
  event.taskId = taskId;
  event.at = ctx.now;
  event.actorId = actorId;
  ctx.events.push(event as AuditEvent);
  return id;
}

/**
 * Posts a comment on a task: recorded in `ctx.comments` with a `comment` audit event. `userId` is
 * `""` for the system (an accept message, a wait's comment, an escalation comment).
 *
 * @example
 * ```ts
 * postComment(ctx, task, "", "Waiting for the next sync of AWS.");
 * ```
 */
export function postComment(ctx: AdvanceContext, task: Pick<Task, "id">, userId: string, text: string): void {
  if (!text.trim()) return;
  const id = ctx.ids.take("cmt");
  ctx.comments.push({ id, taskId: task.id, userId, comment: text, createdAt: ctx.now });
  emit(ctx, task.id, userId, { kind: "comment", commentId: id, comment: text, updatedAt: ctx.now, updatedBy: userId });
}

/**
 * Records a `stepStarted` event: {@link emit}'s event written as one literal, with the keys in the
 * order `emit` gives them (a step starts in every advance; `emit` copies its body with `Object.assign`).
 */
function stepStarted(ctx: AdvanceContext, taskId: string, policyStepId: string, stepKind: string): void {
  const id = ctx.ids.take("evt");
  ctx.events.push({ kind: "stepStarted", policyStepId, stepKind, id, taskId, at: ctx.now, actorId: "" });
}

function postSystemComment(ctx: AdvanceContext, task: Task, text: string): void {
  postComment(ctx, task, "", text);
}

/**
 * When access granted at `now` for `grantDuration` ends: null for access without an end (no
 * duration, or `0s`, which CEL's `isGrantPermanent` also reads as permanent).
 */
function grantEnd(now: string, grantDuration: string | null): string | null {
  const seconds = durationSeconds(grantDuration);
  if (seconds === undefined || !(seconds > 0)) return null;
  // An end past the last instant a timestamp can hold (9999-12-31T23:59:59Z; "999999999999s" is
  // 31,000 years) is no end at all: access without an end (README, "Assumptions").
  const end = msOf(now) + Math.round(seconds * 1000);
  return Number.isFinite(end) && end <= LAST_TIMESTAMP_MS ? isoOf(end) : null;
}

/** 9999-12-31T23:59:59Z, the last second an RFC 3339 timestamp (and the API's date-time) can write. */
const LAST_TIMESTAMP_MS = 253_402_300_799_000;

/**
 * Whether a time revoke still ends the grant it was made for: its end (`source.expired.expiredAt`)
 * is still the grant's. Extended, made standing (Update or Remove Grant Duration, a new request)
 * since: "changing when automatic revocation will occur" (openapi.yaml), so this one revokes nothing.
 */
function stillExpires(task: Task, held: Grant): boolean {
  const source = task.type?.kind === "revoke" ? task.type.source : null;
  if (source?.kind !== "expired") return true;
  return !!held.deprovisionAt && msOf(held.deprovisionAt) === msOf(source.expiredAt);
}

/**
 * Whether granting access that ends at `end` changes a grant already held: a time-limited grant
 * is extended to a later end, or made permanent; a permanent one stays as it is (README,
 * "Assumptions": a time-limited request never shortens access).
 */
function lengthens(held: Grant, end: string | null): boolean {
  if (!held.deprovisionAt) return false;
  return end === null || msOf(end) > msOf(held.deprovisionAt);
}

/** The world effects of a task closing, as events: access granted or revoked. */
function closingEffects(ctx: AdvanceContext, task: Task, outcome: string): void {
  const t = task.type;
  const grants = ctx.world.index.grants;
  if (t?.kind === "grant" && outcome === "GRANT_OUTCOME_GRANTED") {
    const userId = t.identityUserId || task.userId;
    // "At the end of the time limit, the user's access will be automatically revoked"
    // (product_admin_access-requests.mdx): the grant records its end; a tick revokes it then.
    const end = grantEnd(ctx.now, t.grantDuration);
    const add = (appId: string, appEntitlementId: string): void => {
      const held = grants.get(grantKeyOf(userId, appId, appEntitlementId));
      if (!held || lengthens(held, end)) emit(ctx, task.id, "", { kind: "grantAdded", appId, appEntitlementId, identityUserId: userId, deprovisionAt: end });
    };
    if (userId && t.appId && t.appEntitlementId) add(t.appId, t.appEntitlementId);
    // Delegated provisioning: the entitlements bound to this one are granted with it (access-requests page).
    if (userId) for (const bound of delegatedTo(ctx.world, t.appId, t.appEntitlementId)) add(bound.appId, bound.id);
  }
  if (t?.kind === "revoke" && outcome === "REVOKE_OUTCOME_REVOKED") {
    const userId = t.identityUserId || task.userId;
    const targets: { appId: string; id: string; reason: "entitlement" | "revocationTarget" }[] = [
      { appId: t.appId, id: t.appEntitlementId, reason: "entitlement" },
      ...(task.revocationTargets ?? []).flatMap((r) => (r.entitlementRef ? [{ ...r.entitlementRef, reason: "revocationTarget" as const }] : [])),
    ];
    for (const target of targets) {
      const g = grants.get(grantKeyOf(userId, target.appId, target.id));
      if (g && !stillExpires(task, g)) {
        postSystemComment(ctx, task, `The access was kept: its end moved to ${g.deprovisionAt || "none (standing access)"} after this time revoke was created.`);
        continue;
      }
      if (g)
        emit(ctx, task.id, "", {
          kind: "grantRevoked",
          appId: g.appId,
          appEntitlementId: g.appEntitlementId,
          identityUserId: g.identityUserId,
          source: g.source,
          reason: target.reason,
        });
    }
  }
}

/**
 * Closes a task with the verdict's outcome: `TASK_STATE_CLOSED`, `TASK_PROCESSING_TYPE_DONE`,
 * no current step and no step approvers. Emits `taskClosed` and, for a granted request or a revoke,
 * the `grantAdded` / `grantRevoked` effects the reducer applies to the world.
 *
 * @example
 * ```ts
 * const closed = closeTask(ctx, task, "denied");
 * ```
 */
export function closeTask(ctx: AdvanceContext, task: Task, verdict: Verdict): Task {
  const type = task.type ? withOutcome(task.type, verdict, ctx.now) : null;
  const outcome = type && type.kind !== "unknown" ? type.outcome : "";
  ctx.events.push({ kind: "taskClosed", id: ctx.ids.take("evt"), taskId: task.id, at: ctx.now, actorId: ctx.actorId, outcome });
  closingEffects(ctx, task, outcome);
  return {
    ...task,
    type,
    state: "TASK_STATE_CLOSED",
    processing: "TASK_PROCESSING_TYPE_DONE",
    stepApproverIds: [],
    updatedAt: ctx.now,
    policy: task.policy ? { ...task.policy, current: null } : null,
  };
}

/**
 * Moves the task's current step, finished as `done`, into its history; nothing is current after.
 *
 * @example
 * ```ts
 * const t = finishCurrent(task, { ...task.policy!.current!, state: "POLICY_STEP_STATE_DONE" });
 * ```
 */
export function finishCurrent(task: Task, done: PolicyStepInstance): Task {
  const p = task.policy;
  return {
    ...task,
    policy: {
      current: null,
      history: (p?.history ?? AppendLog.empty<PolicyStepInstance>()).append(done),
      next: p?.next ?? [],
      policy: p?.policy ?? null,
      ...(p?.$unknown ? { $unknown: p.$unknown } : {}),
    },
  };
}

/**
 * Finishes the current step as `done` and runs the workflow on from there: the next step starts, or
 * the task closes with `verdict` when it is given (a denial, an error, a cancellation).
 *
 * @example
 * ```ts
 * const after = completeStep(ctx, task, approvedStep);           // next step starts
 * const closed = completeStep(ctx, task, deniedStep, "denied"); // task closes denied
 * ```
 */
export function completeStep(ctx: AdvanceContext, task: Task, done: PolicyStepInstance, verdict?: Verdict): Task {
  const finished = finishCurrent(task, done);
  return verdict === undefined ? advance(ctx, finished) : closeTask(ctx, finished, verdict);
}

function processingFor(step: PolicyStepInstance): string {
  const kind = step.instance?.kind;
  // Steps that wait on people or time are WAITING; steps the system runs are PROCESSING.
  return kind === "action" || kind === "provision" ? "TASK_PROCESSING_TYPE_PROCESSING" : "TASK_PROCESSING_TYPE_WAITING";
}

/** How a step's start went: it waits, it finished (and the workflow goes on), or the task closes. */
type StepStart =
  | { readonly kind: "waiting"; readonly task: Task }
  | { readonly kind: "continue"; readonly task: Task }
  | { readonly kind: "close"; readonly task: Task; readonly verdict: Verdict };

function waiting(task: Task, current: PolicyStepInstance, stepApproverIds: readonly string[], processing?: string): StepStart {
  return {
    kind: "waiting",
    task: {
      ...task,
      state: "TASK_STATE_OPEN",
      processing: processing ?? processingFor(current),
      stepApproverIds,
      // Usually the current step already is `current` (it was just instantiated): no copy then.
      policy: task.policy && task.policy.current !== current ? { ...task.policy, current } : task.policy,
    },
  };
}

const HOURS_24 = "86400s";

function withProvision(current: PolicyStepInstance, inst: ProvisionInstance, policy: ProvisionPolicy): PolicyStepInstance {
  return { ...current, instance: { ...inst, provision: { ...(inst.provision ?? { assigned: false, provisionTarget: null }), provisionPolicy: policy } } };
}

function startProvision(ctx: AdvanceContext, task: Task, current: PolicyStepInstance, inst: ProvisionInstance): StepStart {
  const t = task.type;
  const sim = readSimulation(ctx.world);
  let step = current;
  let policy = inst.provision?.provisionPolicy ?? null;
  const connectorId = connectorIdOf(policy);
  const appName = (appId: string): string => ctx.world.index.apps.get(appId)?.displayName || appId;
  const entName = (appId: string, id: string): string => findEntitlement(ctx.world, appId, id)?.displayName || id;

  // Release note 4: a connector that cannot remove the entitlement hands the revoke to people.
  if (t?.kind === "revoke" && connectorId !== undefined) {
    const conn = connectorFor(sim, connectorId, t.appId);
    if (conn && (!conn.canDeprovision || conn.cannotDeprovisionEntitlementIds.includes(t.appEntitlementId))) {
      const owners = appOwnersOf(ctx.world, task);
      const reason = `connector "${conn.id}" cannot deprovision "${entName(t.appId, t.appEntitlementId)}"`;
      policy = {
        kind: "manual",
        instructions: `The ${reason}: remove the access by hand in ${appName(t.appId)}, then mark this step complete.`,
        userIds: owners,
        assignee: null,
      };
      step = withProvision(step, inst, policy);
      postSystemComment(ctx, task, `Routed to manual deprovisioning: the ${reason}.`);
      emit(ctx, task.id, "", { kind: "provisionRoutedToManual", policyStepId: current.id, reason, provisionerIds: owners });
    }
  }

  // Release note 3: an entitlement created before the connector synced it waits for the sync.
  if (t?.kind === "grant" && connectorId !== undefined && isUnsynced(sim, t.appId, t.appEntitlementId)) {
    const fallbackAt = addDuration(ctx.now, HOURS_24) ?? ctx.now;
    const cur = step.instance?.kind === "provision" ? step.instance : inst;
    step = {
      ...step,
      instance: {
        ...cur,
        state: "PROVISION_INSTANCE_STATE_WAITING",
        waitingOn: {
          startedWaitingAt: ctx.now,
          fallbackAt,
          on: { kind: "entitlementMerge", appEntitlementId: t.appEntitlementId, appId: t.appId },
        },
      },
    };
    postSystemComment(
      ctx,
      task,
      `Waiting for the next sync of ${appName(t.appId)}: "${entName(t.appId, t.appEntitlementId)}" was created before the connector synced it. ` +
        `Provisioning resumes after the sync, or falls back to manual provisioning at ${fallbackAt}.`,
    );
    emit(ctx, task.id, "", { kind: "provisionWaitingOnSync", policyStepId: current.id, appId: t.appId, appEntitlementId: t.appEntitlementId, fallbackAt });
    return waiting(task, step, [], "TASK_PROCESSING_TYPE_WAITING");
  }

  if (isManual(policy)) return waiting(task, step, manualProvisioners(ctx.world, task, policy, ctx.expressions), "TASK_PROCESSING_TYPE_WAITING");
  return waiting(task, step, []);
}

/**
 * A system provision step (connector, webhook, external ticket, …) that failed falls back to manual
 * provisioning by the app's owners (product_admin_provisioning.mdx): the failed step goes to history
 * `reassignedByError` (openapi.yaml `ReassignedByErrorAction`: "a policy step that has been
 * reassigned because it had an error provisioning", naming the step it created, by the system), a
 * manual provision step with the same target takes its place, and the task stays open, offering
 * "retry failed provisioning" (product_how-to_access-change-tasks.mdx). Approvals already collected
 * are kept. An app without active owners falls to the Super Administrators, as a step with nobody
 * to ask does (README, Assumptions).
 *
 * @example
 * ```ts
 * const open = fallBackToManualProvisioning(ctx, task, task.policy!.current!, { errorCode: "E_LIMIT", description: "account limit" });
 * open.policy?.current?.instance?.kind; // "provision" (manual)
 * ```
 */
export function fallBackToManualProvisioning(ctx: AdvanceContext, task: Task, failed: PolicyStepInstance, cause: { readonly errorCode: string; readonly description: string }): Task {
  const error = `${cause.errorCode}: ${cause.description}`;
  const newId = ctx.ids.take("step");
  const failedInst = failed.instance;
  const errored: PolicyStepInstance =
    failedInst?.kind === "provision"
      ? {
          ...failed,
          state: "POLICY_STEP_STATE_DONE",
          instance: {
            ...failedInst,
            state: "PROVISION_INSTANCE_STATE_DONE",
            waitingOn: null,
            outcome: { kind: "reassignedByError", description: cause.description, errorCode: cause.errorCode, errorUserId: "", erroredAt: ctx.now, newPolicyStepId: newId, reassignedAt: ctx.now },
          },
        }
      : failed;
  task = finishCurrent(task, errored);
  const inst = errored.instance;
  const definition = inst?.kind === "provision" && inst.provision ? inst.provision : { assigned: false, provisionTarget: null, provisionPolicy: null };
  const owners = appOwnersOf(ctx.world, task);
  const provisionerIds = owners.length > 0 ? owners : superAdministrators(ctx.world);
  const t = task.type;
  const appId = t && (t.kind === "grant" || t.kind === "revoke" || t.kind === "certify") ? t.appId : "";
  const app = ctx.world.index.apps.get(appId)?.displayName || appId || "the app";
  const reason = `provisioning failed (${error})`;
  const policy: ProvisionPolicy = {
    kind: "manual",
    instructions: `Connector provisioning failed (${error}). Provision the access by hand in ${app} and mark this step complete, or fix the cause and retry failed provisioning.`,
    userIds: provisionerIds,
    assignee: null,
  };
  const current = instantiate({ kind: "provision", ...definition, provisionPolicy: policy }, newId, task.policyGenerationId, ctx.now);
  postSystemComment(ctx, task, `Routed to manual provisioning by ${owners.length > 0 ? "the app's owners" : "the Super Administrators (the app has no owners)"}: ${reason}.`);
  emit(ctx, task.id, "", { kind: "provisionRoutedToManual", policyStepId: current.id, reason, provisionerIds });
  stepStarted(ctx, task.id, current.id, "provision");
  const withCurrent: Task = { ...task, policy: task.policy ? { ...task.policy, current } : { current, history: AppendLog.empty(), next: [], policy: null } };
  return waiting(withCurrent, current, provisionerIds, "TASK_PROCESSING_TYPE_WAITING").task;
}

function startAction(ctx: AdvanceContext, task: Task, current: PolicyStepInstance): StepStart {
  const inst = current.instance;
  if (inst?.kind !== "action") return waiting(task, current, []);
  const def = inst.action;
  const target =
    def?.kind === "automation"
      ? { kind: "automation" as const, automationExecutionId: ctx.ids.take("exec") }
      : def?.kind === "svcResourceAction"
        ? { kind: "svcResourceActionInstance" as const, svcActionInvocationId: ctx.ids.take("inv") }
        : def?.kind === "clientIdApproval"
          ? { kind: "clientIdApprovalInstance" as const, clientIdUrl: "" }
          : inst.target;
  const running: PolicyStepInstance = { ...current, instance: { ...inst, state: "ACTION_INSTANCE_STATE_RUNNING", target } };
  const automation = def?.kind === "automation" ? readSimulation(ctx.world).automations.find((a) => a.id === def.automationTemplateId) : undefined;
  if (!automation?.revokeStep) return waiting(task, running, []);

  const result = runRevokeStep(ctx.world, task, automation.revokeStep);
  const runningInst = running.instance?.kind === "action" ? running.instance : inst;
  if (!result.ok) {
    emit(ctx, task.id, "", { kind: "actionOutcome", policyStepId: current.id, outcome: "error", errorCode: result.errorCode, errorMessage: result.errorMessage });
    const failed: PolicyStepInstance = {
      ...running,
      state: "POLICY_STEP_STATE_DONE",
      instance: {
        ...runningInst,
        state: "ACTION_INSTANCE_STATE_ERROR",
        outcome: { kind: "error", errorCode: result.errorCode, errorMessage: result.errorMessage, outcomeTime: ctx.now },
      },
    };
    return { kind: "close", task: finishCurrent(task, failed), verdict: "error" };
  }
  for (const g of result.grants)
    emit(ctx, task.id, "", {
      kind: "grantRevoked",
      appId: g.appId,
      appEntitlementId: g.appEntitlementId,
      identityUserId: g.identityUserId,
      source: g.source,
      reason: "automation",
    });
  emit(ctx, task.id, "", { kind: "actionOutcome", policyStepId: current.id, outcome: "success", errorCode: "", errorMessage: "" });
  const done: PolicyStepInstance = {
    ...running,
    state: "POLICY_STEP_STATE_DONE",
    instance: { ...runningInst, state: "ACTION_INSTANCE_STATE_DONE", outcome: { kind: "success", outcomeTime: ctx.now } },
  };
  return { kind: "continue", task: finishCurrent(task, done) };
}

/** The entitlements an approval of the task covers (a request's entitlement). */
export function approvedEntitlements(task: Task): AppEntitlementReference[] {
  const t = task.type;
  return t?.kind === "grant" ? [{ appEntitlementId: t.appEntitlementId, appId: t.appId }] : [];
}

function startStep(ctx: AdvanceContext, task: Task, current: PolicyStepInstance): StepStart {
  const inst = current.instance;
  const stepKind = inst?.kind === "unknown" ? inst.key : (inst?.kind ?? "");
  switch (inst?.kind) {
    case "accept": {
      postSystemComment(ctx, task, inst.acceptMessage);
      emit(ctx, task.id, "", { kind: "stepCompleted", policyStepId: current.id, stepKind: "accept" });
      return { kind: "continue", task: finishCurrent(task, { ...current, state: "POLICY_STEP_STATE_DONE" }) };
    }
    case "reject": {
      postSystemComment(ctx, task, inst.rejectMessage);
      emit(ctx, task.id, "", { kind: "stepCompleted", policyStepId: current.id, stepKind: "reject" });
      return { kind: "close", task: finishCurrent(task, { ...current, state: "POLICY_STEP_STATE_DONE" }), verdict: "denied" };
    }
    case "approval": {
      const resolution = inst.approval
        ? resolveApprovers(ctx.world, task, inst.approval, ctx.expressions)
        : { kind: "none", userIds: [], via: "skipped" as const, notes: ["the approval step has no definition"] };
      ctx.approvers.set(current.id, resolution);
      if (resolution.via === "skipped") {
        const skipped: PolicyStepInstance = {
          ...current,
          state: "POLICY_STEP_STATE_DONE",
          instance: {
            ...inst,
            state: "APPROVAL_INSTANCE_STATE_DONE",
            outcome: { kind: "skipped", newPolicyStepId: "", skippedAt: ctx.now, userId: "" },
          },
        };
        emit(ctx, task.id, "", { kind: "stepSkipped", policyStepId: current.id, reason: [resolution.reason ?? "", ...resolution.notes].filter(Boolean).join("; ") });
        return { kind: "continue", task: finishCurrent(task, skipped) };
      }
      stepStarted(ctx, task.id, current.id, stepKind);
      if (resolution.via === "selfApproved") {
        // Release note (Feb 2023): a request whose subject may approve it is approved automatically.
        const userId = resolution.userIds[0] ?? "";
        emit(ctx, task.id, userId, { kind: "stepAutoApproved", policyStepId: current.id, userId, reason: resolution.reason ?? "" });
        const approved: PolicyStepInstance = {
          ...current,
          state: "POLICY_STEP_STATE_DONE",
          instance: {
            ...inst,
            state: "APPROVAL_INSTANCE_STATE_DONE",
            outcome: { kind: "approved", approvedAt: ctx.now, entitlements: approvedEntitlements(task), stepUpTransactionId: "", userId },
          },
        };
        const approverIds = [...(task.approverIds ?? []).filter((id) => id !== userId), userId];
        return { kind: "continue", task: finishCurrent({ ...task, approverIds }, approved) };
      }
      for (const d of resolution.delegations ?? [])
        emit(ctx, task.id, "", { kind: "reassignedToDelegate", policyStepId: current.id, originalAssigneeUserId: d.originalUserId, delegatedAssigneeUserId: d.delegateUserId });
      if (resolution.via !== "primary" && resolution.via !== "system")
        emit(ctx, task.id, "", { kind: "reviewersRouted", policyStepId: current.id, via: resolution.via, reason: resolution.reason ?? "", userIds: resolution.userIds });
      return waiting(task, current, resolution.userIds);
    }
    case "wait":
      postSystemComment(ctx, task, inst.commentOnFirstWait);
      stepStarted(ctx, task.id, current.id, stepKind);
      return waiting(task, current, []);
    case "provision":
      stepStarted(ctx, task.id, current.id, stepKind);
      return startProvision(ctx, task, current, inst);
    case "action":
      stepStarted(ctx, task.id, current.id, stepKind);
      return startAction(ctx, task, current);
    case "form":
    case "unknown":
    case undefined:
      stepStarted(ctx, task.id, current.id, stepKind);
      return waiting(task, current, []);
    default: {
      const never: never = inst;
      return never;
    }
  }
}

/**
 * Runs automatic steps from the task's current step on. The task's `policy.current` must be a step
 * that has just been instantiated (or be null, with `next` the steps to run); returns the task as it
 * stands when a step waits or the task closes.
 *
 * @example
 * ```ts
 * const settled = advance(ctx, taskWithFreshPolicy);
 * settled.processing; // "TASK_PROCESSING_TYPE_WAITING" when an approval waits
 * ```
 */
export function advance(ctx: AdvanceContext, start: Task): Task {
  let task = start;
  // Each turn either stops or moves one step from next to history, so this ends.
  for (;;) {
    const policy = task.policy;
    if (!policy) return task;
    let current = policy.current;
    if (!current) {
      const [first, ...rest]: readonly PolicyStep[] = policy.next ?? [];
      // docs/domain.md §4 (assumed): a policy whose steps run out without a reject has approved the task.
      if (!first) return closeTask(ctx, task, "approved");
      current = instantiate(first, ctx.ids.take("step"), task.policyGenerationId, ctx.now);
      task = { ...task, policy: { ...policy, current, next: rest } };
    }
    const started = startStep(ctx, task, current);
    switch (started.kind) {
      case "waiting":
        return started.task;
      case "close":
        return closeTask(ctx, started.task, started.verdict);
      case "continue":
        task = started.task;
        continue;
      default: {
        const never: never = started;
        return never;
      }
    }
  }
}
