/**
 * `tick`: what time drives — waits (duration, time of day in a zone, a condition re-checked on each
 * tick, timeout with its comment), approval escalations (reassign, replace policy, skip, cancel,
 * with the escalation comment), and the 24-hour fallback to manual provisioning (release note 3).
 */
import { describe, expect, it } from "vitest";
import type { JsonObject } from "../../src/model/json.js";
import { tick } from "../../src/reducers/tick.js";
import { taskSubjectId } from "../../src/model/task-refs.js";
import { applyEdit } from "../../src/whatif/what-if.js";
import { readSimulation } from "../../src/workflow/sim-config.js";
import { saveWorld } from "../../src/world/save-world.js";
import { at, body, grantPolicy, kinds, load, refuse, run, sampleWith, sampleWorld, task, usersApproval, worldOn } from "./helpers.js";

const PROVISION = { provision: { assigned: false, provisionPolicy: { connector: { defaultBehavior: { connectorId: "conn-okta" } } }, provisionTarget: null } };

function wait(until: JsonObject, extra: JsonObject = {}): JsonObject {
  return { wait: { name: "wait", commentOnFirstWait: "", commentOnTimeout: "", timeoutDuration: null, ...until, ...extra } };
}

/** What a tick fired, for one task (by numericId) or all. */
function fired(step: ReturnType<typeof at>, numericId?: string): { kind: string; at: string }[] {
  return ((body(step)["fired"] as JsonObject[]) ?? [])
    .filter((f) => numericId === undefined || f["numericId"] === numericId)
    .map((f) => ({ kind: String(f["kind"]), at: String(f["at"]) }));
}

describe("tick: waits", () => {
  it("a duration wait ends at its time, recorded then even when the tick comes later", () => {
    const w = worldOn([wait({ duration: { duration: "3600s" } }, { commentOnFirstWait: "Cooling off for an hour." }), usersApproval(["u-it2"]), PROVISION]);
    const t0 = task(w, "1030");
    expect(t0.policy?.current?.instance?.kind).toBe("wait");
    expect(t0.processing).toBe("TASK_PROCESSING_TYPE_WAITING");
    expect(w.comments.get(t0.id)?.at(-1)?.comment).toBe("Cooling off for an hour.");
    const early = at(w, "2026-11-22T09:30:00Z");
    expect(fired(early, "1030")).toEqual([]);
    expect(early.world.now).toBe("2026-11-22T09:30:00Z");
    const late = at(early.world, "2026-11-22T12:00:00Z");
    expect(fired(late, "1030")).toEqual([{ kind: "waitUntil", at: "2026-11-22T10:00:00Z" }]);
    const t = task(late.world, "1030");
    const done = t.policy?.history?.at(-1)?.instance;
    expect(done?.kind === "wait" && done.outcome).toEqual({ kind: "succeeded", succeededAt: "2026-11-22T10:00:00Z" });
    expect(t.policy?.current?.instance?.kind).toBe("approval");
    expect(late.world.now).toBe("2026-11-22T12:00:00Z");
  });

  it("an untilTime wait ends at the next wall-clock time in its zone", () => {
    // 09:00Z is 10:00 in Berlin; 18:00 Berlin is 17:00Z.
    const w = worldOn([wait({ untilTime: { hours: 18, minutes: 0, timezone: "Europe/Berlin" } }), usersApproval(["u-it2"]), PROVISION]);
    const cur = task(w, "1030").policy?.current?.instance;
    expect(cur?.kind === "wait" && cur.until).toEqual({ kind: "untilTime", durationIfExists: null, untilTime: "2026-11-22T17:00:00Z" });
    const s = at(w, "2026-11-23T00:00:00Z");
    expect(fired(s, "1030")).toEqual([{ kind: "waitUntil", at: "2026-11-22T17:00:00Z" }]);
  });

  it("a condition wait is re-checked on each tick and ends when the condition holds", () => {
    // 1011 waits for the contractor's MFA enrollment.
    const w = sampleWorld();
    expect(fired(at(w, "2026-11-22T10:00:00Z"), "1011")).toEqual([]);
    const enrolled = sampleWith((json) => {
      (json["grants"] as JsonObject[]).push({ appId: "app-okta", appEntitlementId: "ent-okta-mfa", identityUserId: "u-contractor", source: "direct" });
    });
    const s = at(enrolled, "2026-11-22T10:00:00Z");
    expect(fired(s, "1011")).toEqual([{ kind: "waitCondition", at: "2026-11-22T10:00:00Z" }]);
    const t = task(s.world, "1011");
    expect(t.policy?.current?.instance?.kind).toBe("approval");
    expect(s.events.find((e) => e.kind === "waitSucceeded")).toMatchObject({ reason: expect.stringContaining("HasEntitlement") });
  });

  it("a condition wait becomes true when a grant completes in the simulation", () => {
    // Grant the contractor MFA through a task of our own, then tick: 1011 resumes.
    let w = worldOn([PROVISION], (json) => {
      const t = json.tasks.find((x) => x["numericId"] === "1030") as Record<string, unknown>;
      t["userId"] = "u-contractor";
      t["createdByUserId"] = "u-contractor";
      const g = (t["type"] as Record<string, Record<string, unknown>>)["grant"] as Record<string, unknown>;
      g["identityUserId"] = "u-contractor";
      g["appEntitlementId"] = "ent-okta-mfa";
      const ents = json["entitlements"] as Record<string, unknown>[];
      const mfa = ents.find((e) => e["id"] === "ent-okta-mfa") as Record<string, unknown>;
      mfa["grantPolicyId"] = "pol-test";
    });
    w = run(w, { type: "provisionComplete", taskId: "1030" }, "u-it-dir").world;
    const s = at(w, "2026-11-22T10:00:00Z");
    expect(fired(s, "1011").map((f) => f.kind)).toEqual(["waitCondition"]);
  });

  it("product_admin_policies.mdx: a wait times out: commentOnTimeout is posted and the next step begins at the timeout", () => {
    const s = at(sampleWorld(), "2026-12-01T00:00:00Z");
    expect(fired(s)).toContainEqual({ kind: "waitTimeout", at: "2026-11-27T09:30:01Z" });
    const t = task(s.world, "1011");
    expect(t.state).toBe("TASK_STATE_OPEN");
    expect(t.type?.kind === "grant" && t.type.outcome).toBe("GRANT_OUTCOME_UNSPECIFIED");
    const w = t.policy?.history?.at(-1)?.instance;
    expect(w?.kind === "wait" && w.state).toBe("WAIT_INSTANCE_STATE_TIMED_OUT");
    expect(w?.kind === "wait" && w.outcome).toEqual({ kind: "timedOut", timedOutAt: "2026-11-27T09:30:01Z" });
    // 1011's next step: approval by Okta's owners.
    expect(t.policy?.current?.instance?.kind).toBe("approval");
    expect(t.stepApproverIds).toEqual(["u-it-dir", "u-it2"]);
    expect(s.world.comments.get(t.id)?.map((c) => c.comment)).toContain("No MFA enrollment within 7 days: the request timed out.");
  });

  it("a wait step marked closeTaskOnTimeout (sim) closes the request WAIT_TIMED_OUT at the timeout, and the mark round-trips", () => {
    const wait = { wait: { name: "MFA", commentOnFirstWait: "", commentOnTimeout: "timed out", timeoutDuration: "3600s", condition: { condition: "false" }, closeTaskOnTimeout: true } };
    const w = worldOn([wait, usersApproval(["u-it2"])]);
    const inst = task(w, "1030").policy?.current?.instance;
    expect(inst?.kind === "wait" && inst.$unknown).toEqual({ closeTaskOnTimeout: true });
    const again = load(JSON.parse(JSON.stringify(saveWorld(w))));
    const kept = task(again, "1030").policy?.current?.instance;
    expect(kept?.kind === "wait" && kept.$unknown).toEqual({ closeTaskOnTimeout: true });
    const s = at(w, "2026-11-22T11:00:00Z");
    const t = task(s.world, "1030");
    expect(t.state).toBe("TASK_STATE_CLOSED");
    expect(t.type?.kind === "grant" && t.type.outcome).toBe("GRANT_OUTCOME_WAIT_TIMED_OUT");
    // Without the mark the same wait goes on to the approval.
    const { closeTaskOnTimeout: _mark, ...plain } = wait.wait;
    const on = at(worldOn([{ wait: plain }, usersApproval(["u-it2"])]), "2026-11-22T11:00:00Z");
    expect(task(on.world, "1030").stepApproverIds).toEqual(["u-it2"]);
  });
});

describe("tick: product_admin_manage-campaigns.mdx, \"If the user who is the subject of an access review task is marked deleted … before the task has been completed, that task is automatically canceled\"", () => {
  it("the next tick cancels the open review of a user marked deleted, and only that one", () => {
    const w = sampleWorld();
    const review = task(w, "1049");
    expect([review.type?.kind, review.state]).toEqual(["certify", "TASK_STATE_OPEN"]);
    const subject = w.index.users.get(taskSubjectId(review))!;
    const deleted = applyEdit(w, { users: [{ ...subject, status: "DELETED" }] });
    const s = at(deleted, "2026-11-22T09:30:00Z");
    const t = task(s.world, "1049");
    expect(t.state).toBe("TASK_STATE_CLOSED");
    expect(t.type?.kind === "certify" && t.type.outcome).toBe("CERTIFY_OUTCOME_CANCELLED");
    expect(fired(s, "1049")).toEqual([{ kind: "reviewSubjectDeleted", at: w.now }]);
    // The same tick on the world as it was cancels nothing.
    expect(fired(at(w, "2026-11-22T09:30:00Z")).filter((f) => f.kind === "reviewSubjectDeleted")).toEqual([]);
  });
});

describe("tick: approval escalation", () => {
  it("reassigns to the escalation's approvers once, with its comment", () => {
    const s = at(sampleWorld(), "2026-11-22T09:10:00Z");
    expect(fired(s)).toContainEqual({ kind: "escalation", at: "2026-11-22T09:05:05Z" });
    const t = task(s.world, "1004");
    expect(t.stepApproverIds).toEqual(["u-ciso", "u-it-dir"]);
    const old = t.policy?.history?.at(-1)?.instance;
    expect(old?.kind === "approval" && old.outcome?.kind).toBe("reassigned");
    expect(old?.kind === "approval" && old.escalationInstance?.alreadyEscalated).toBe(true);
    const cur = t.policy?.current?.instance;
    expect(cur?.kind === "approval" && cur.escalationInstance?.alreadyEscalated).toBe(true);
    expect(s.world.comments.get(t.id)?.at(-1)?.comment).toBe("Break-glass request not approved within 15 minutes.");
    expect(kinds(s)).toContain("approvalEscalated");
    // It runs once.
    expect(fired(at(s.world, "2026-11-23T00:00:00Z")).filter((f) => f.kind === "escalation")).toEqual([]);
  });

  const escalating = (policy: JsonObject) =>
    usersApproval(["u-it2"], { escalationEnabled: true, escalation: { escalationComment: "Nobody answered.", expiration: "3600s", ...policy } });

  it("product_admin_policies.mdx (\"if no action has been taken on the task when the time elapses\"): a reassignment starts the SLA again for the new reviewers", () => {
    const step = usersApproval(["u-it2"], { allowReassignment: true, escalationEnabled: true, escalation: { escalationComment: "Nobody answered.", expiration: "3600s", skipStep: {} } });
    const w = worldOn([step, usersApproval(["u-sre-lead"]), PROVISION]);
    // The step started at 09:00 (due 10:00); u-it2 hands it to u-sec-eng at 09:50.
    const handed = run(at(w, "2026-11-22T09:50:00Z").world, { type: "reassign", taskId: "1030", newStepUserIds: ["u-sec-eng"], comment: "on leave" }, "u-it2", "2026-11-22T09:50:00Z").world;
    const cur = task(handed, "1030").policy?.current?.instance;
    expect(cur?.kind === "approval" && cur.escalationInstance?.expiresAt).toBe("2026-11-22T10:50:00Z");
    // 10:00 passes with u-sec-eng still holding the step; at 10:50 nobody has acted since, and it fires.
    expect(fired(at(handed, "2026-11-22T10:30:00Z"))).toEqual([]);
    const late = at(handed, "2026-11-22T11:00:00Z");
    expect(fired(late)).toContainEqual({ kind: "escalation", at: "2026-11-22T10:50:00Z" });
    expect(task(late.world, "1030").stepApproverIds).toEqual(["u-sre-lead"]);
  });

  it("skipStep: the step is skipped and the next one starts", () => {
    const w = worldOn([escalating({ skipStep: {} }), usersApproval(["u-sre-lead"]), PROVISION]);
    const t = task(at(w, "2026-11-22T11:00:00Z").world, "1030");
    const old = t.policy?.history?.at(-1)?.instance;
    expect(old?.kind === "approval" && old.outcome).toMatchObject({ kind: "skipped", userId: "", skippedAt: "2026-11-22T10:00:00Z" });
    expect(t.stepApproverIds).toEqual(["u-sre-lead"]);
  });

  it("cancelTicket: the task closes CANCELLED", () => {
    const w = worldOn([escalating({ cancelTicket: {} }), PROVISION]);
    const t = task(at(w, "2026-11-22T11:00:00Z").world, "1030");
    expect(t.type?.kind === "grant" && t.type.outcome).toBe("GRANT_OUTCOME_CANCELLED");
  });

  it("replacePolicy: the task moves to the named policy with a new generation", () => {
    const w = worldOn([escalating({ replacePolicy: { policyId: "pol-fallback" } }), PROVISION], (json) => {
      json.policies.push(grantPolicy("pol-fallback", [usersApproval(["u-ciso"]), PROVISION]));
    });
    const before = task(w, "1030");
    const s = at(w, "2026-11-22T11:00:00Z");
    const t = task(s.world, "1030");
    expect(t.policy?.policy?.id).toBe("pol-fallback");
    expect(t.policyGenerationId).not.toBe(before.policyGenerationId);
    expect(t.stepApproverIds).toEqual(["u-ciso"]);
    expect(s.events.find((e) => e.kind === "policyChanged")).toMatchObject({ oldPolicyId: "pol-test", newPolicyId: "pol-fallback" });
  });
});

describe("tick: 24-hour fallback to manual provisioning (release note 3)", () => {
  it("a request waiting on an entitlement merge falls back to manual provisioning by the app owners at fallbackAt", () => {
    const s = at(sampleWorld(), "2026-11-22T18:00:00Z");
    expect(fired(s)).toContainEqual({ kind: "syncFallback", at: "2026-11-22T16:00:02Z" });
    const t = task(s.world, "1010");
    const cur = t.policy?.current?.instance;
    expect(cur?.kind === "provision" && cur.waitingOn).toBeNull();
    expect(cur?.kind === "provision" && cur.provision?.provisionPolicy?.kind).toBe("manual");
    expect(t.stepApproverIds).toEqual(["u-sre-lead", "u-it-dir"]);
    expect(s.world.comments.get(t.id)?.at(-1)?.comment).toMatch(/within 24 hours: falling back to manual provisioning/);
    const done = run(s.world, { type: "provisionComplete", taskId: "1010" }, "u-sre-lead");
    const g = task(done.world, "1010");
    expect(g.type?.kind === "grant" && g.type.outcome).toBe("GRANT_OUTCOME_GRANTED");
  });

  it("a sync makes the app's unsynced entitlements known; other apps' stay listed", () => {
    const w = sampleWith((json) => {
      json["simulation"] = {
        unsyncedEntitlements: [
          { appId: "app-aws", appEntitlementId: "ent-aws-staging-dev" },
          { appId: "app-okta", appEntitlementId: "ent-okta-app-admin" },
        ],
      };
    });
    const s = run(w, { type: "sync", appId: "app-aws" }, "u-it2");
    expect(body(s)["syncedEntitlementIds"]).toEqual(["ent-aws-staging-dev"]);
    expect(readSimulation(s.world).unsyncedEntitlements).toEqual([{ appId: "app-okta", appEntitlementId: "ent-okta-app-admin" }]);
    expect(s.events[0]).toMatchObject({ kind: "synced", appId: "app-aws" });
  });

  it("a sync before then resumes it instead", () => {
    const s = run(sampleWorld(), { type: "sync", appId: "app-aws" }, "u-it-dir");
    const t = task(s.world, "1010");
    expect(body(s)["resumedTaskIds"]).toEqual([t.id]);
    const cur = t.policy?.current?.instance;
    expect(cur?.kind === "provision" && cur.waitingOn).toBeNull();
    expect(fired(at(s.world, "2026-11-23T00:00:00Z")).filter((f) => f.kind === "syncFallback")).toEqual([]);
  });
});

describe("tick: refusals", () => {
  it("INVALID_ARGUMENT when time would go back or is not a timestamp", () => {
    const back = tick(sampleWorld(), "2026-11-22T08:00:00Z");
    expect(!back.ok && back.error.code).toBe("INVALID_ARGUMENT");
    expect(!back.ok && back.error.message).toMatch(/cannot go back/);
    for (const bad of ["tomorrow", "", 5 as unknown as string]) expect(tick(sampleWorld(), bad).ok).toBe(false);
  });

  it("sync refusals: a plain user, an unknown app", () => {
    refuse(sampleWorld(), { type: "sync", appId: "app-aws" }, "u-dev1", "PERMISSION_DENIED");
    refuse(sampleWorld(), { type: "sync", appId: "app-nope" }, "u-it-dir", "NOT_FOUND");
    refuse(sampleWorld(), { type: "sync", appId: "" }, "u-it-dir", "INVALID_ARGUMENT");
  });

  it("is deterministic: the same tick gives deep-equal worlds, responses and events", () => {
    const a = at(sampleWorld(), "2026-12-30T00:00:00Z");
    const b = at(sampleWorld(), "2026-12-30T00:00:00Z");
    expect(JSON.stringify(b.response)).toBe(JSON.stringify(a.response));
    expect(b.events).toEqual(a.events);
    expect([...b.world.tasks.values()]).toEqual([...a.world.tasks.values()]);
  });
});

describe("process now: \"force a refresh and update of the task's current status\" (product_how-to_access-change-tasks.mdx)", () => {
  const onSecurity = () => worldOn([wait({ condition: { condition: 'subject.department == "Security"' } }), usersApproval(["u-it2"]), PROVISION]);

  it("a wait whose condition does not hold keeps waiting: it \"must be met before the policy is allowed to move forward\" (product_admin_policies.mdx)", () => {
    const w = onSecurity();
    expect(w.index.users.get(taskSubjectId(task(w, "1030")))?.department).not.toBe("Security");
    const s = run(w, { type: "processNow", taskId: "1030" }, "u-it-dir");
    const t = task(s.world, "1030");
    expect(t.policy?.current?.instance?.kind).toBe("wait");
    expect(t.policy?.current?.id).toBe(task(w, "1030").policy?.current?.id);
    expect(kinds(s)).toEqual(["processedNow"]);
    // The sample's 1011 waits on a condition that does not hold yet, too.
    expect(task(run(sampleWorld(), { type: "processNow", taskId: "1011" }, "u-it-dir").world, "1011").policy?.current?.instance?.kind).toBe("wait");
  });

  it("a wait whose condition holds now ends, and the workflow runs on", () => {
    const w = onSecurity();
    const subject = w.index.users.get(taskSubjectId(task(w, "1030")))!;
    const moved = applyEdit(w, { users: [{ ...subject, department: "Security" }] });
    const s = run(moved, { type: "processNow", taskId: "1030" }, "u-it-dir");
    const t = task(s.world, "1030");
    const done = t.policy?.history?.at(-1)?.instance;
    expect(done?.kind === "wait" && done.outcome?.kind).toBe("succeeded");
    expect(t.stepApproverIds).toEqual(["u-it2"]);
    expect(kinds(s).slice(0, 2)).toEqual(["processedNow", "waitSucceeded"]);
  });

  it("a wait whose time has come, with no tick since, ends at its time; one whose time has not come keeps waiting", () => {
    const w = worldOn([wait({ duration: { duration: "3600s" } }), usersApproval(["u-it2"]), PROVISION]);
    const early = run(w, { type: "processNow", taskId: "1030" }, "u-it-dir", "2026-11-22T09:30:00Z");
    expect(task(early.world, "1030").policy?.current?.instance?.kind).toBe("wait");
    const late = run(w, { type: "processNow", taskId: "1030" }, "u-it-dir", "2026-11-22T12:00:00Z");
    const done = task(late.world, "1030").policy?.history?.at(-1)?.instance;
    expect(done?.kind === "wait" && done.outcome).toEqual({ kind: "succeeded", succeededAt: "2026-11-22T10:00:00Z" });
    expect(task(late.world, "1030").stepApproverIds).toEqual(["u-it2"]);
  });
});
