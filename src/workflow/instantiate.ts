/**
 * Turning step definitions (PolicyStep) into step instances (PolicyStepInstance), and retiring
 * instances that a restart replaces. Definitions live in a policy's `policySteps` and in a task's
 * `policy.next`; instances in `policy.current` and `policy.history` (docs/domain.md §1).
 */
import type {
  Approval,
  EscalationInstance,
  PolicyStep,
  PolicyStepInstance,
  StepInstance,
} from "../model/index.js";
import { nextTimeOfDay } from "./time.js";
import { waitInstanceExtras } from "./wait-timeout.js";

/** Inner messages of frozen step definitions (a world's), made once and shared, frozen too. */
const inners = new WeakMap<object, object>();

/**
 * The inner message of a flat union member: the member without its tag and outer extras. For a
 * frozen member (a world's policies are frozen) it is made once: the rest-destructuring of a
 * frozen object takes V8's slow path (~0.5 µs for an approval), and a shared object lets the
 * encoder share its JSON too.
 */
function inner<T extends { readonly kind: string; readonly $unknownOuter?: unknown }>(member: T): Omit<T, "kind" | "$unknownOuter"> {
  if (!Object.isFrozen(member)) return withoutTag(member);
  let made = inners.get(member) as Omit<T, "kind" | "$unknownOuter"> | undefined;
  if (made === undefined) {
    made = Object.freeze(withoutTag(member));
    inners.set(member, made);
  }
  return made;
}

function withoutTag<T extends { readonly kind: string; readonly $unknownOuter?: unknown }>(member: T): Omit<T, "kind" | "$unknownOuter"> {
  const { kind: _kind, $unknownOuter: _outer, ...rest } = member;
  return rest;
}

/**
 * Adds a protobuf duration string ("3600s") to an RFC 3339 time; null when either is unusable.
 *
 * @example
 * ```ts
 * addDuration("2026-11-22T09:00:00Z", "900s"); // "2026-11-22T09:15:00Z"
 * ```
 */
export function addDuration(at: string, duration: string | null): string | null {
  if (!duration) return null;
  const m = /^(-?\d+(?:\.\d+)?)s$/.exec(duration);
  const base = Date.parse(at);
  if (!m || Number.isNaN(base)) return null;
  return new Date(base + Math.round(Number(m[1]) * 1000)).toISOString().replace(".000Z", "Z");
}

/**
 * The escalation (SLA) of an approval step that starts, or is handed to new reviewers, at `now`:
 * due `expiration` later; `null` when the step has none or it is off.
 *
 * @example
 * ```ts
 * escalationInstance(step.approval, "2026-11-22T09:00:00Z")?.expiresAt; // "2026-11-22T10:00:00Z" for "3600s"
 * ```
 */
export function escalationInstance(approval: Approval, now: string): EscalationInstance | null {
  const e = approval.escalation;
  if (!approval.escalationEnabled || !e) return null;
  // docs/domain.md §1: expiration is an int64 (seconds) or a duration string.
  const raw = e.expiration ?? "";
  const expiration = /^\d+$/.test(raw) ? `${raw}s` : raw;
  return {
    alreadyEscalated: false,
    escalationComment: e.escalationComment,
    expiresAt: addDuration(now, expiration),
    escalationPolicy: e.escalationPolicy,
  };
}

/**
 * Makes the ACTIVE instance of a step definition.
 *
 * @example
 * ```ts
 * const cur = instantiate(policy.policySteps!.grant!.steps![0]!, "step-000001", "gen-000002", world.now);
 * cur.state; // "POLICY_STEP_STATE_ACTIVE"
 * ```
 */
export function instantiate(step: PolicyStep, id: string, policyGenerationId: string, now: string): PolicyStepInstance {
  return { id, policyGenerationId, state: "POLICY_STEP_STATE_ACTIVE", instance: stepInstanceOf(step, now) };
}

function stepInstanceOf(step: PolicyStep, now: string): StepInstance {
  switch (step.kind) {
    case "approval": {
      const approval: Approval = inner(step);
      return {
        kind: "approval",
        approval,
        state: "APPROVAL_INSTANCE_STATE_WAITING",
        assignedAt: now,
        escalationInstance: escalationInstance(approval, now),
        outcome: null,
      };
    }
    case "provision":
      return {
        kind: "provision",
        provision: inner(step),
        state: "PROVISION_INSTANCE_STATE_WAITING",
        svcActionInvocationId: "",
        externalTicketId: "",
        externalTicketProvisionerConfigId: "",
        notificationId: "",
        webhookId: "",
        webhookInstanceId: "",
        waitingOn: null,
        outcome: null,
      };
    case "accept":
      return { kind: "accept", acceptMessage: step.acceptMessage };
    case "reject":
      return { kind: "reject", rejectMessage: step.rejectMessage };
    case "wait": {
      const until = step.until;
      return {
        kind: "wait",
        name: step.name,
        commentOnFirstWait: step.commentOnFirstWait,
        commentOnTimeout: step.commentOnTimeout,
        startedWaitingAt: now,
        timeout: addDuration(now, step.timeoutDuration),
        timeoutDuration: step.timeoutDuration,
        state: "WAIT_INSTANCE_STATE_WAITING",
        until:
          until === null
            ? null
            : until.kind === "condition"
              ? { kind: "condition", condition: until.condition }
              : until.kind === "duration"
                ? { kind: "untilTime", durationIfExists: until.duration, untilTime: addDuration(now, until.duration) }
                : until.kind === "untilTime"
                  ? { kind: "untilTime", durationIfExists: null, untilTime: nextTimeOfDay(now, until.hours, until.minutes, until.timezone).at }
                  : until,
        outcome: null,
        ...waitInstanceExtras(step),
      };
    }
    case "form":
      return { kind: "form", form: step.form, data: null, state: "FORM_INSTANCE_STATE_WAITING", outcome: null };
    case "action":
      return { kind: "action", action: step.action, state: "ACTION_INSTANCE_STATE_INIT", outcome: null, target: null };
    case "unknown":
      return { kind: "unknown", key: step.key, raw: step.raw };
    default: {
      const never: never = step;
      return never;
    }
  }
}

/**
 * Retires an instance that a restart or Hard Reset replaces: state DONE and, where the kind has
 * one, the outcome that says so (approval and form: `restarted`, naming `by.restartedStepId`, the
 * step that was running, or else their own; wait: `skipped`; provision and action: `cancelled`).
 * An instance that already has an outcome keeps it.
 *
 * @example
 * ```ts
 * retire(task.policy!.current!, { at: world.now, userId: "u-root", replacedBy: "step-000009" }).state;
 * // "POLICY_STEP_STATE_DONE"
 * ```
 */
export function retire(
  step: PolicyStepInstance,
  by: { readonly at: string; readonly userId: string; readonly replacedBy: string; readonly restartedStepId?: string },
): PolicyStepInstance {
  // RestartAction.oldPolicyStepId (openapi.yaml): "The step ID that was restarted. Potentially
  // multiple "history" steps will reference this ID": the running step's, for the pending steps too.
  const restarted = by.restartedStepId || step.id;
  const i = step.instance;
  // Literals, not `{ ...step, state }`: the step is often a world's (frozen), which a spread
  // copies on V8's slow path. The approval, the step most often retired, is written out too.
  const done: PolicyStepInstance = {
    id: step.id,
    policyGenerationId: step.policyGenerationId,
    state: "POLICY_STEP_STATE_DONE",
    instance: i,
    ...(step.$unknown ? { $unknown: step.$unknown } : {}),
  };
  if (!i) return done;
  switch (i.kind) {
    case "approval":
      return i.outcome
        ? done
        : {
            ...done,
            instance: {
              kind: "approval",
              approval: i.approval,
              state: "APPROVAL_INSTANCE_STATE_DONE",
              assignedAt: i.assignedAt,
              escalationInstance: i.escalationInstance,
              outcome: { kind: "restarted", oldPolicyStepId: restarted, restartedAt: by.at, userId: by.userId },
              ...(i.$unknown ? { $unknown: i.$unknown } : {}),
              ...(i.$unknownOuter ? { $unknownOuter: i.$unknownOuter } : {}),
            },
          };
    case "form":
      return i.outcome
        ? done
        : {
            ...done,
            instance: {
              ...i,
              state: "FORM_INSTANCE_STATE_DONE",
              outcome: { kind: "restarted", oldPolicyStepId: restarted, restartedAt: by.at, userId: by.userId },
            },
          };
    case "wait":
      return i.outcome
        ? done
        : {
            ...done,
            instance: {
              ...i,
              state: "WAIT_INSTANCE_STATE_COMPLETED",
              outcome: { kind: "skipped", newPolicyStepId: by.replacedBy, skippedAt: by.at, userId: by.userId },
            },
          };
    case "provision":
      return i.outcome
        ? done
        : {
            ...done,
            instance: {
              ...i,
              state: "PROVISION_INSTANCE_STATE_DONE",
              outcome: { kind: "cancelled", cancelledAt: by.at, cancelledByUserId: by.userId },
            },
          };
    case "action":
      return i.outcome
        ? done
        : { ...done, instance: { ...i, state: "ACTION_INSTANCE_STATE_DONE", outcome: { kind: "cancelled", outcomeTime: by.at } } };
    case "accept":
    case "reject":
    case "unknown":
      return done;
    default: {
      const never: never = i;
      return never;
    }
  }
}
