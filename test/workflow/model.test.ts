/**
 * Model-based tests: fast-check drives random sequences of actions (by random actors, most refused)
 * and ticks against the sample tenant, and after every command checks the workflow's invariants:
 * - a closed task never reopens, except by restart, hard reset or retry provisioning;
 * - a task's history never shrinks, and what it held is never rewritten;
 * - an open task has exactly one current step; a closed one has none;
 * - outcomes (and outcomeTime) only on closed tasks;
 * - determinism: the same command on the same world gives the same world, response and events;
 * - a refused command changes nothing; inputs are never mutated (worlds are deep-frozen);
 * - event ids are unique across the run and the id sequence only grows.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonObject, JsonValue } from "../../src/model/json.js";
import type { Task } from "../../src/model/index.js";
import { reduce, type WorkflowAction } from "../../src/reducers/reduce.js";
import { tick } from "../../src/reducers/tick.js";
import { readSimulation } from "../../src/workflow/sim-config.js";
import { isoOf, msOf } from "../../src/workflow/time.js";
import type { World } from "../../src/world/world.js";
import { deepFreeze, sampleWorld } from "./helpers.js";

const TASK_IDS = Array.from({ length: 64 }, (_, i) => String(1001 + i));
const ACTORS = ["u-it-dir", "u-ciso", "u-sec-eng", "u-sre-lead", "u-eng-mgr", "u-contractor", "u-dev1", "u-cfo", "u-vp-sales", "u-it2", "u-fin1", "u-sales2", "u-sec-analyst"];
const REOPENERS = new Set(["restart", "hardReset", "retryProvisioning"]);

interface Real {
  world: World;
  readonly eventIds: Set<string>;
}

const UNSET = new Set(["", "OFFBOARDING_OUTCOME_IN_PROGRESS"]);

function outcomeOf(t: Task): { outcome: string; time: string | null } {
  const type = t.type;
  if (!type || type.kind === "unknown") return { outcome: "", time: null };
  return { outcome: type.outcome.endsWith("_UNSPECIFIED") ? "" : type.outcome, time: type.outcomeTime };
}

function checkInvariants(before: World, after: World, cause: { type: string; taskId: string }): void {
  for (const [id, a] of after.tasks.entries()) {
    const b = before.tasks.get(id);
    if (a === b) continue;
    const label = `task ${a.numericId} after ${cause.type} ${cause.taskId}`;
    if (b) {
      if (b.state === "TASK_STATE_CLOSED" && a.state === "TASK_STATE_OPEN")
        expect(REOPENERS.has(cause.type) && (cause.taskId === b.numericId || cause.taskId === b.id), `${label}: a closed task reopened`).toBe(true);
      const hb = b.policy?.history ?? [];
      const ha = a.policy?.history ?? [];
      expect(ha.length, `${label}: history shrank`).toBeGreaterThanOrEqual(hb.length);
      expect(JSON.stringify(ha.slice(0, hb.length)), `${label}: history was rewritten`).toBe(JSON.stringify(hb));
    }
    const { outcome, time } = outcomeOf(a);
    if (a.state === "TASK_STATE_OPEN") {
      expect(a.policy?.current, `${label}: an open task has a current step`).toBeTruthy();
      expect(UNSET.has(outcome), `${label}: an open task has outcome ${outcome}`).toBe(true);
      expect(time, `${label}: an open task has an outcomeTime`).toBeNull();
    }
    if (a.state === "TASK_STATE_CLOSED") {
      expect(a.policy?.current ?? null, `${label}: a closed task has a current step`).toBeNull();
      expect(outcome, `${label}: a closed task has no outcome`).not.toBe("");
      expect(time, `${label}: a closed task has no outcomeTime`).not.toBeNull();
    }
  }
  expect(after.seq).toBeGreaterThanOrEqual(before.seq);
}

function stable(step: { world: World; response: JsonValue; events: readonly unknown[] }): string {
  return JSON.stringify({ response: step.response, events: step.events, tasks: [...step.world.tasks.entries()], grants: step.world.grants, seq: step.world.seq, now: step.world.now });
}

/** How many commands succeeded, by kind: the run must exercise the workflow, not only its refusals. */
const succeeded = new Map<string, number>();

class Act implements fc.Command<object, Real> {
  constructor(
    readonly action: WorkflowAction,
    readonly actor: string,
  ) {}
  check(): boolean {
    return true;
  }
  run(_m: object, real: Real): void {
    const before = real.world;
    const r = reduce(before, this.action, { actorId: this.actor });
    const again = reduce(before, this.action, { actorId: this.actor });
    expect(again.ok).toBe(r.ok);
    const taskId = "taskId" in this.action ? String(this.action.taskId) : "";
    if (!r.ok) {
      expect(again.ok ? null : again.error).toEqual(r.error);
      return;
    }
    if (again.ok) expect(stable(again.value)).toBe(stable(r.value));
    succeeded.set(this.action.type, (succeeded.get(this.action.type) ?? 0) + 1);
    for (const e of r.value.events) {
      expect(real.eventIds.has(e.id), `event id ${e.id} reused`).toBe(false);
      real.eventIds.add(e.id);
    }
    checkInvariants(before, r.value.world, { type: this.action.type, taskId });
    real.world = deepFreeze(r.value.world);
  }
  toString(): string {
    return `${this.actor}: ${JSON.stringify(this.action)}`;
  }
}

const GOOD_FORM: JsonObject = { justification: "Quarter-end revenue close for EMEA (FIN-2291)", dataScope: "revenue", accessDays: "14", ticket: "FIN-2291", acknowledge: true };

/** The actions that apply to a task as it stands now, each with a caller who may do it. */
function applicable(t: Task): [WorkflowAction, string][] {
  const id = t.numericId || t.id;
  const admin = "u-it-dir";
  if (t.state !== "TASK_STATE_OPEN")
    return [
      [{ type: "restart", taskId: id }, admin],
      [{ type: "retryProvisioning", taskId: id }, admin],
      [{ type: "hardReset", taskId: id }, admin],
    ];
  const i = t.policy?.current?.instance;
  const who = t.stepApproverIds?.[0] ?? admin;
  switch (i?.kind) {
    case "approval":
      return [
        [i.approval?.requiresStepUpProviderId ? { type: "approveWithStepUp", taskId: id, comment: "verified reason" } : { type: "approve", taskId: id, comment: "reason" }, who],
        [{ type: "deny", taskId: id, comment: "reason" }, who],
        [{ type: "reassign", taskId: id, newStepUserIds: ["u-cto"], comment: "reason" }, admin],
        [{ type: "skipStep", taskId: id }, admin],
        [{ type: "escalateToEmergencyAccess", taskId: id }, admin],
        [{ type: "close", taskId: id }, admin],
      ];
    case "wait":
      return [[{ type: "processNow", taskId: id }, admin], [{ type: "skipStep", taskId: id }, admin]];
    case "form":
      return [[{ type: "completeForm", taskId: id, values: GOOD_FORM }, admin], [{ type: "close", taskId: id }, admin]];
    case "provision":
      return [
        [{ type: "provisionComplete", taskId: id }, admin],
        [{ type: "provisionErrored", taskId: id, errorCode: "E_CONNECTOR", description: "failed" }, admin],
        [{ type: "provisionCancelled", taskId: id }, admin],
      ];
    case "action":
      return [
        [{ type: "actionOutcome", taskId: id, outcome: "success" }, admin],
        [{ type: "actionOutcome", taskId: id, outcome: "error", errorCode: "E1" }, admin],
      ];
    default:
      return [[{ type: "restart", taskId: id }, admin]];
  }
}

/** Picks a task and one of the actions that apply to it now: drives tasks through their steps. */
class Drive implements fc.Command<object, Real> {
  constructor(
    readonly taskPick: number,
    readonly choice: number,
  ) {}
  check(): boolean {
    return true;
  }
  run(m: object, real: Real): void {
    const tasks = [...real.world.tasks.values()].filter((t) => !t.deletedAt);
    const t = tasks[this.taskPick % tasks.length];
    if (!t) return;
    const options = applicable(t);
    const picked = options[this.choice % options.length];
    if (!picked) return;
    new Act(picked[0], picked[1]).run(m, real);
    // A step-up approval completes with the transaction the first call returned.
    if (picked[0].type === "approveWithStepUp") {
      const pending = Object.entries(readSimulation(real.world).stepUpTransactions).find(([, p]) => p.taskId === t.id);
      if (pending) new Act({ type: "approveWithStepUp", taskId: picked[0].taskId, stepUpTransactionId: pending[0] }, picked[1]).run(m, real);
    }
  }
  toString(): string {
    return `drive(${this.taskPick}, ${this.choice})`;
  }
}

class Tick implements fc.Command<object, Real> {
  constructor(readonly minutes: number) {}
  check(): boolean {
    return true;
  }
  run(_m: object, real: Real): void {
    const before = real.world;
    const now = isoOf(msOf(before.now) + this.minutes * 60_000);
    const r = tick(before, now);
    if (!r.ok) throw new Error(r.error.message);
    const again = tick(before, now);
    if (!again.ok) throw new Error(again.error.message);
    expect(stable(again.value)).toBe(stable(r.value));
    for (const e of r.value.events) {
      expect(real.eventIds.has(e.id), `event id ${e.id} reused`).toBe(false);
      real.eventIds.add(e.id);
    }
    checkInvariants(before, r.value.world, { type: "tick", taskId: "" });
    expect(r.value.world.now).toBe(now);
    real.world = deepFreeze(r.value.world);
  }
  toString(): string {
    return `tick +${this.minutes}m`;
  }
}

const taskId = fc.constantFrom(...TASK_IDS);
// Super administrators are over-weighted so that many commands succeed.
const actor = fc.oneof({ weight: 2, arbitrary: fc.constantFrom("u-it-dir", "u-ciso") }, { weight: 3, arbitrary: fc.constantFrom(...ACTORS) });
const comment = fc.constantFrom("", "Reviewed with the team lead.");
const users = fc.subarray(["u-cto", "u-ciso", "u-sre-lead", "u-it2", "u-hr1"], { minLength: 1, maxLength: 2 });
const formValues: fc.Arbitrary<JsonObject> = fc.constantFrom<JsonObject>(
  { justification: "Quarter-end revenue close for EMEA (FIN-2291)", dataScope: "revenue", accessDays: "14", ticket: "FIN-2291", acknowledge: true },
  { justification: "short" },
  {},
);

const action: fc.Arbitrary<WorkflowAction> = fc.oneof(
  fc.record({ type: fc.constant("approve" as const), taskId, comment }),
  fc.record({ type: fc.constant("approveWithStepUp" as const), taskId, comment, stepUpTransactionId: fc.constantFrom("", "stu-000001") }),
  fc.record({ type: fc.constant("deny" as const), taskId, comment }),
  fc.record({ type: fc.constant("reassign" as const), taskId, comment, newStepUserIds: users }),
  fc.record({ type: fc.constant("skipStep" as const), taskId, comment }),
  fc.record({ type: fc.constant("restart" as const), taskId, comment }),
  fc.record({ type: fc.constant("close" as const), taskId, comment }),
  fc.record({ type: fc.constant("delete" as const), taskId }),
  fc.record({ type: fc.constant("sendReminder" as const), taskId }),
  fc.record({ type: fc.constant("escalateToEmergencyAccess" as const), taskId }),
  fc.record({ type: fc.constant("changePolicy" as const), taskId, policyId: fc.constantFrom("pol-revoke-critical", "pol-certify-manager", "pol-aws-access") }),
  fc.record({ type: fc.constant("processNow" as const), taskId }),
  fc.record({ type: fc.constant("provisionComplete" as const), taskId, comment }),
  fc.record({ type: fc.constant("provisionCancelled" as const), taskId }),
  fc.record({ type: fc.constant("provisionErrored" as const), taskId, errorCode: fc.constantFrom("", "E_CONNECTOR"), description: fc.constant("connector failed") }),
  fc.record({ type: fc.constant("retryProvisioning" as const), taskId }),
  fc.record({ type: fc.constant("completeForm" as const), taskId, values: formValues }),
  fc.record({ type: fc.constant("actionOutcome" as const), taskId, outcome: fc.constantFrom("success", "denied", "error", "cancelled") as fc.Arbitrary<"success">, errorCode: fc.constant("E1") }),
  fc.record({ type: fc.constant("sync" as const), appId: fc.constantFrom("app-aws", "app-okta") }),
  fc.record({ type: fc.constant("hardReset" as const), taskId }),
  fc.record({ type: fc.constant("comment" as const), taskId, comment: fc.constant("A note.") }),
);

const commands = [
  fc.tuple(action, actor).map(([a, who]) => new Act(a, who)),
  fc.tuple(fc.nat(), fc.nat()).map(([t, c]) => new Drive(t, c)),
  fc.tuple(fc.nat(), fc.nat()).map(([t, c]) => new Drive(t, c)),
  // Ticks from minutes to weeks, so waits, escalations and fallbacks fire.
  fc.constantFrom(5, 60, 24 * 60, 8 * 24 * 60, 31 * 24 * 60).map((m) => new Tick(m)),
];

describe("model-based: random actions and ticks keep the workflow's invariants", () => {
  it("closed tasks stay closed (except restart, reset, retry), history never shrinks, one current step per open task, outcomes only when closed, determinism", () => {
    const start = sampleWorld();
    fc.assert(
      fc.property(fc.commands(commands, { maxCommands: 30, size: "max" }), (cmds) => {
        fc.modelRun(() => ({ model: {}, real: { world: start, eventIds: new Set<string>() } }), cmds);
      }),
      { numRuns: 80 },
    );
    // Most random calls are refused; enough must succeed to drive tasks through their steps.
    const total = [...succeeded.values()].reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(300);
    expect(succeeded.size).toBeGreaterThan(15);
  });

  it("a closed task is reopened by restart", () => {
    // The exception above is real: a restart of a closed task reopens it.
    const r = reduce(sampleWorld(), { type: "restart", taskId: "1013" }, { actorId: "u-it-dir" });
    expect(r.ok && r.value.world.tasks.get(sampleWorld().taskIdByNumericId.get("1013") ?? "")?.state).toBe("TASK_STATE_OPEN");
  });
});
