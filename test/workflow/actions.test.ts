/**
 * Each workflow action on the sample tenant: its success, and each of its refusals with the code a
 * caller can act on (PERMISSION_DENIED, FAILED_PRECONDITION, INVALID_ARGUMENT, NOT_FOUND).
 * Inputs are deep-frozen: a reducer that mutated its input would throw here.
 */
import { describe, expect, it } from "vitest";
import type { JsonObject } from "../../src/model/json.js";
import { reduce } from "../../src/reducers/reduce.js";
import type { World } from "../../src/world/world.js";
import { relationTo, taskActionsFor } from "../../src/reducers/permissions.js";
import { createGrantTask } from "../../src/reducers/create-task.js";
import { readSimulation } from "../../src/workflow/sim-config.js";
import {
  body,
  grantPolicy,
  holds,
  kinds,
  sampleWith,
  refuse,
  run,
  sampleWorld,
  task,
  usersApproval,
  viewTask,
  worldOn,
} from "./helpers.js";

const PROVISION = { provision: { assigned: false, provisionPolicy: { connector: { defaultBehavior: { connectorId: "conn-okta" } } }, provisionTarget: null } };

describe("approve", () => {
  it("completes the approval, records the approver and starts the next step; ticketActionId is the approved record", () => {
    const w = sampleWorld();
    const step = run(w, { type: "approve", taskId: "1001", comment: "CHG-4821 checked" }, "u-sre-lead");
    const t = task(step.world, "1001");
    const before = task(w, "1001");
    expect(t.state).toBe("TASK_STATE_OPEN");
    expect(t.approverIds).toEqual(["u-sre-lead"]);
    expect(t.policy?.history?.length).toBe((before.policy?.history?.length ?? 0) + 1);
    const done = t.policy?.history?.at(-1)?.instance;
    expect(done?.kind === "approval" && done.outcome?.kind).toBe("approved");
    expect(t.policy?.current?.instance?.kind).toBe("approval");
    expect(t.policy?.current?.id).not.toBe(before.policy?.current?.id);
    expect(t.commentCount).toBe(before.commentCount + 1);
    expect(kinds(step).slice(0, 2)).toEqual(["approved", "comment"]);
    expect(body(step)["ticketActionId"]).toBe(step.events[0]?.id);
    expect(step.world.seq).toBeGreaterThan(w.seq);
  });

  it("after the last step, a request closes GRANTED with outcomeTime, and the world grants the entitlement", () => {
    let w = worldOn([usersApproval(["u-it2"]), usersApproval(["u-sre-lead"]), PROVISION]);
    w = run(w, { type: "approve", taskId: "1030" }, "u-it2").world;
    w = run(w, { type: "approve", taskId: "1030" }, "u-sre-lead").world;
    expect(task(w, "1030").policy?.current?.instance?.kind).toBe("provision");
    expect(holds(w, "u-hr1", "app-okta", "ent-okta-finance-apps")).toBe(false);
    const s = run(w, { type: "provisionComplete", taskId: "1030" }, "u-it-dir", "2026-11-22T09:30:00Z");
    const t = task(s.world, "1030");
    expect(t.state).toBe("TASK_STATE_CLOSED");
    expect(t.processing).toBe("TASK_PROCESSING_TYPE_DONE");
    expect(t.type?.kind === "grant" && t.type.outcome).toBe("GRANT_OUTCOME_GRANTED");
    expect(t.type?.kind === "grant" && t.type.outcomeTime).toBe("2026-11-22T09:30:00Z");
    expect(t.policy?.current).toBeNull();
    expect(kinds(s)).toContain("grantAdded");
    expect(holds(s.world, "u-hr1", "app-okta", "ent-okta-finance-apps")).toBe(true);
  });

  it("FAILED_PRECONDITION when the current step is not an approval, the task is closed, or the step id is stale", () => {
    const w = sampleWorld();
    expect(refuse(w, { type: "approve", taskId: "1012" }, "u-it-dir", "FAILED_PRECONDITION").message).toMatch(/form step, not an approval/);
    expect(refuse(w, { type: "approve", taskId: "1013" }, "u-it-dir", "FAILED_PRECONDITION").message).toMatch(/closed/);
    expect(refuse(w, { type: "approve", taskId: "1001", policyStepId: "step-old" }, "u-sre-lead", "FAILED_PRECONDITION").message).toMatch(/current step is/);
  });

  it("PERMISSION_DENIED for a caller who can see the task but is not its approver", () => {
    expect(refuse(sampleWorld(), { type: "approve", taskId: "1001" }, "u-contractor", "PERMISSION_DENIED").message).toMatch(/approvers/);
  });

  it("INVALID_ARGUMENT without a comment when the step requires an approval reason", () => {
    const e = refuse(sampleWorld(), { type: "approve", taskId: "1004" }, "u-sec-eng", "INVALID_ARGUMENT");
    expect(e.code === "INVALID_ARGUMENT" && e.field).toBe("comment");
    const ok = run(sampleWorld(), { type: "approve", taskId: "1004", comment: "SEV-1 confirmed" }, "u-sec-eng");
    expect(task(ok.world, "1004").policy?.current?.instance?.kind).toBe("provision");
  });

  it("a Super Administrator may approve any approval step, also one a webhook decides", () => {
    const s = run(sampleWorld(), { type: "approve", taskId: "1020" }, "u-it-dir");
    expect(task(s.world, "1020").policy?.history?.at(-1)?.instance?.kind).toBe("approval");
  });

  it("product_admin_policies.mdx: PERMISSION_DENIED, saying why, for an approver who decided an earlier step when the step requires distinct approvers (the step is not assigned to them)", () => {
    let w = worldOn([usersApproval(["u-sec-eng", "u-sre-lead"]), usersApproval(["u-sec-eng", "u-sre-lead"], {}, { requireDistinctApprovers: true }), PROVISION]);
    w = run(w, { type: "approve", taskId: "1030" }, "u-sec-eng").world;
    expect(refuse(w, { type: "approve", taskId: "1030" }, "u-sec-eng", "PERMISSION_DENIED").message).toMatch(/distinct approvers/);
    expect(task(w, "1030").stepApproverIds).toEqual(["u-sre-lead"]);
    const s = run(w, { type: "approve", taskId: "1030" }, "u-sre-lead");
    expect(task(s.world, "1030").approverIds).toEqual(["u-sec-eng", "u-sre-lead"]);
  });
});

describe("approve with step-up (release note 1)", () => {
  const w = sampleWorld();

  it("offers APPROVE_WITH_STEP_UP instead of APPROVE, and plain approve is FAILED_PRECONDITION", () => {
    const view = viewTask(run(w, { type: "comment", taskId: "1021", comment: "looking" }, "u-ciso"));
    expect(view["actions"]).toContain("TASK_ACTION_TYPE_APPROVE_WITH_STEP_UP");
    expect(view["actions"]).not.toContain("TASK_ACTION_TYPE_APPROVE");
    expect(refuse(w, { type: "approve", taskId: "1021", comment: "x" }, "u-ciso", "FAILED_PRECONDITION").message).toMatch(/step-up/);
  });

  it("a step-up approval that also requires a comment prompts for verification and completes once verified", () => {
    // The comment is asked for first…
    refuse(w, { type: "approveWithStepUp", taskId: "1021" }, "u-ciso", "INVALID_ARGUMENT");
    // …then verification is prompted: nothing is decided yet, the comment is kept.
    const first = run(w, { type: "approveWithStepUp", taskId: "1021", comment: "EMEA territory rules reviewed" }, "u-ciso");
    const redirect = body(first)["redirectUrl"];
    const tx = body(first)["stepUpTransactionId"];
    expect(redirect).toMatch(/^https:\/\/step-up\.policy-sim\.invalid\/stepup-okta-verify\/verify\?transaction=/);
    expect(task(first.world, "1021")).toEqual(task(w, "1021"));
    expect(kinds(first)).toEqual(["stepUpRequested"]);
    expect(Object.keys(readSimulation(first.world).stepUpTransactions)).toEqual([tx]);
    // Once verified, the approval completes with the comment given before the verification.
    const done = run(first.world, { type: "approveWithStepUp", taskId: "1021", stepUpTransactionId: String(tx) }, "u-ciso");
    const t = task(done.world, "1021");
    const approved = t.policy?.history?.at(-1)?.instance;
    expect(approved?.kind === "approval" && approved.outcome?.kind === "approved" && approved.outcome.stepUpTransactionId).toBe(tx);
    expect(done.events.find((e) => e.kind === "approved")).toMatchObject({ comment: "EMEA territory rules reviewed" });
    expect(t.policy?.current?.instance?.kind).toBe("provision");
    expect(readSimulation(done.world).stepUpTransactions).toEqual({});
  });

  it("FAILED_PRECONDITION for a transaction that was not started by this user for this step", () => {
    const first = run(w, { type: "approveWithStepUp", taskId: "1021", comment: "ok" }, "u-ciso");
    const tx = String(body(first)["stepUpTransactionId"]);
    refuse(first.world, { type: "approveWithStepUp", taskId: "1021", stepUpTransactionId: "stu-forged", comment: "x" }, "u-ciso", "FAILED_PRECONDITION");
    refuse(first.world, { type: "approveWithStepUp", taskId: "1021", stepUpTransactionId: tx, comment: "x" }, "u-sec-eng", "FAILED_PRECONDITION");
  });

  it("FAILED_PRECONDITION on a step that does not require step-up", () => {
    refuse(w, { type: "approveWithStepUp", taskId: "1001" }, "u-sre-lead", "FAILED_PRECONDITION");
  });
});

describe("deny", () => {
  it("closes a request with GRANT_OUTCOME_DENIED", () => {
    const s = run(sampleWorld(), { type: "deny", taskId: "1001", comment: "not for contractors" }, "u-sre-lead");
    const t = task(s.world, "1001");
    expect(t.state).toBe("TASK_STATE_CLOSED");
    expect(t.type?.kind === "grant" && t.type.outcome).toBe("GRANT_OUTCOME_DENIED");
    expect(t.approverIds).toEqual(["u-sre-lead"]);
    expect(kinds(s)).toEqual(["denied", "comment", "taskClosed"]);
  });

  it("INVALID_ARGUMENT without a reason when the step requires a denial reason", () => {
    const e = refuse(sampleWorld(), { type: "deny", taskId: "1040" }, "u-it-dir", "INVALID_ARGUMENT");
    expect(e.code === "INVALID_ARGUMENT" && e.field).toBe("comment");
  });

  it("FAILED_PRECONDITION on a wait step; PERMISSION_DENIED for the requester", () => {
    refuse(sampleWorld(), { type: "deny", taskId: "1011" }, "u-it-dir", "FAILED_PRECONDITION");
    refuse(sampleWorld(), { type: "deny", taskId: "1001", comment: "x" }, "u-contractor", "PERMISSION_DENIED");
  });

  it("a decertified certify task creates its revoke task carrying accessReviewSelection", () => {
    const w = sampleWorld();
    const s = run(w, { type: "deny", taskId: "1043", comment: "moved teams" }, "u-eng-mgr");
    const certify = task(s.world, "1043");
    expect(certify.type?.kind === "certify" && certify.type.outcome).toBe("CERTIFY_OUTCOME_DECERTIFIED");
    const created = s.events.find((e) => e.kind === "taskCreated");
    expect(created).toBeDefined();
    if (created?.kind !== "taskCreated") return;
    expect(created.numericId).toBe("1060");
    const revoke = task(s.world, created.createdTaskId);
    expect(revoke.type?.kind).toBe("revoke");
    if (revoke.type?.kind !== "revoke" || certify.type?.kind !== "certify") return;
    expect(revoke.type.source).toEqual({ kind: "review", accessReviewId: certify.type.accessReviewId, certTicketId: certify.id });
    expect(revoke.type.$unknown?.["accessReviewSelection"]).toBe(certify.type.accessReviewSelection);
    expect(revoke.type.appEntitlementId).toBe(certify.type.appEntitlementId);
    expect(revoke.origin).toBe("TASK_ORIGIN_ACCESS_REVIEW");
    expect(revoke.policy?.policy?.id).toBe("pol-revoke-standard");
    expect(revoke.state).toBe("TASK_STATE_OPEN");
    expect(task(s.world, "1060").id).toBe(revoke.id);
  });

  it("product_admin_policies.mdx (follow-up steps): a denied review creates no revoke task when its policy's postActions do not ask for one", () => {
    // 1046 carries a snapshot of pol-certify-default; here its follow-up is switched off.
    const follow = (on: boolean) =>
      sampleWith((json) => {
        const t = json.tasks.find((x) => x["numericId"] === "1046") as Record<string, Record<string, Record<string, unknown>>>;
        t["policy"]!["policy"]!["postActions"] = [{ certifyRemediateImmediately: on }];
      });
    const s = run(follow(false), { type: "deny", taskId: "1046", comment: "left sales" }, "u-vp-sales");
    expect(task(s.world, "1046").type).toMatchObject({ outcome: "CERTIFY_OUTCOME_DECERTIFIED" });
    expect(s.events.some((e) => e.kind === "taskCreated")).toBe(false);
    expect(s.world.tasks.size).toBe(sampleWorld().tasks.size);
    // The same review with the follow-up switched on creates it.
    const r = run(follow(true), { type: "deny", taskId: "1046", comment: "left sales" }, "u-vp-sales");
    expect(r.events.some((e) => e.kind === "taskCreated")).toBe(true);
  });

  it("approving a certify task closes it CERTIFIED", () => {
    const s = run(sampleWorld(), { type: "approve", taskId: "1043" }, "u-eng-mgr");
    const t = task(s.world, "1043");
    expect(t.type?.kind === "certify" && t.type.outcome).toBe("CERTIFY_OUTCOME_CERTIFIED");
  });
});

describe("reassign", () => {
  it("ends the step reassigned and puts a new approval step, by the new users, in its place", () => {
    const w = sampleWorld();
    const old = task(w, "1040").policy?.current;
    const s = run(w, { type: "reassign", taskId: "1040", newStepUserIds: ["u-cto"], comment: "Olivia's new manager" }, "u-it-dir");
    const t = task(s.world, "1040");
    const prev = t.policy?.history?.at(-1);
    expect(prev?.id).toBe(old?.id);
    expect(prev?.instance?.kind === "approval" && prev.instance.outcome).toMatchObject({ kind: "reassigned", newPolicyStepId: t.policy?.current?.id, userId: "u-it-dir" });
    expect(t.stepApproverIds).toEqual(["u-cto"]);
    expect(t.policy?.current?.instance?.kind).toBe("approval");
    expect(kinds(s)[0]).toBe("reassigned");
  });

  it("follows delegation when the step allows it", () => {
    const w = worldOn([usersApproval(["u-it2"], { allowDelegation: true, allowReassignment: true }), PROVISION]);
    const s = run(w, { type: "reassign", taskId: "1030", newStepUserIds: ["u-eng-mgr"] }, "u-it2");
    // Lena Fischer (u-eng-mgr) has delegated to Kenji Watanabe (u-sre-lead).
    expect(task(s.world, "1030").stepApproverIds).toEqual(["u-sre-lead"]);
  });

  it("product_admin_user-roles.mdx: PERMISSION_DENIED when the step does not allow reassignment, for Super Administrators too", () => {
    const w = sampleWorld();
    refuse(w, { type: "reassign", taskId: "1004", newStepUserIds: ["u-it-dir"] }, "u-sec-eng", "PERMISSION_DENIED");
    refuse(w, { type: "reassign", taskId: "1004", newStepUserIds: ["u-it-dir"] }, "u-ciso", "PERMISSION_DENIED");
    const allows = worldOn([usersApproval(["u-it2"], { allowReassignment: true }), PROVISION]);
    run(allows, { type: "reassign", taskId: "1030", newStepUserIds: ["u-eng-mgr"] }, "u-ciso");
  });

  it("INVALID_ARGUMENT for users outside allowedReassignees, a missing required reason, unknown users, or only the target", () => {
    const w = worldOn([usersApproval(["u-it2"], { allowReassignment: true, allowedReassignees: ["u-cto", "u-hr1"], requireReassignmentReason: true }), PROVISION]);
    expect(refuse(w, { type: "reassign", taskId: "1030", newStepUserIds: ["u-ceo"], comment: "x" }, "u-it2", "INVALID_ARGUMENT").message).toMatch(/allowed reassignees/);
    expect(refuse(w, { type: "reassign", taskId: "1030", newStepUserIds: ["u-cto"] }, "u-it2", "INVALID_ARGUMENT").message).toMatch(/reason/);
    refuse(w, { type: "reassign", taskId: "1030", newStepUserIds: [], comment: "x" }, "u-it2", "INVALID_ARGUMENT");
    expect(refuse(w, { type: "reassign", taskId: "1030", newStepUserIds: ["u-hr1"], comment: "x" }, "u-it2", "INVALID_ARGUMENT").message).toMatch(/target user/);
    run(w, { type: "reassign", taskId: "1030", newStepUserIds: ["u-cto"], comment: "covering" }, "u-it2");
  });

  it("FAILED_PRECONDITION when the current step is not an approval", () => {
    refuse(sampleWorld(), { type: "reassign", taskId: "1024", newStepUserIds: ["u-cto"] }, "u-it-dir", "FAILED_PRECONDITION");
  });
});

describe("skip step", () => {
  it("skips a wait step, naming the step that follows", () => {
    const s = run(sampleWorld(), { type: "skipStep", taskId: "1011", comment: "MFA done out of band" }, "u-it-dir");
    const t = task(s.world, "1011");
    const skipped = t.policy?.history?.at(-1)?.instance;
    expect(skipped?.kind === "wait" && skipped.outcome).toMatchObject({ kind: "skipped", newPolicyStepId: t.policy?.current?.id, userId: "u-it-dir" });
    expect(t.policy?.current?.instance?.kind).toBe("approval");
    expect(kinds(s)[0]).toBe("stepSkipped");
  });

  it("PERMISSION_DENIED for an administrator who is not a Super Administrator; FAILED_PRECONDITION on a closed task", () => {
    refuse(sampleWorld(), { type: "skipStep", taskId: "1011" }, "u-sec-eng", "PERMISSION_DENIED");
    refuse(sampleWorld(), { type: "skipStep", taskId: "1013" }, "u-it-dir", "FAILED_PRECONDITION");
  });

  it("skips a provision step (the spec's provision instance has a `skipped` outcome): counted as done, the request ends granted", () => {
    const w = sampleWorld();
    const s = run(w, { type: "skipStep", taskId: "1024", comment: "provisioned by hand" }, "u-it-dir");
    const t = task(s.world, "1024");
    const skipped = t.policy?.history?.find((h) => h.id === task(w, "1024").policy?.current?.id)?.instance;
    expect(skipped?.kind === "provision" && skipped.outcome?.kind).toBe("skipped");
    expect(kinds(s)[0]).toBe("stepSkipped");
  });
});

describe("restart", () => {
  it("reopens a closed task on the policy it carries, keeping history and the generation", () => {
    const w = sampleWorld();
    const before = task(w, "1013");
    const s = run(w, { type: "restart", taskId: "1013", comment: "re-review" }, "u-it-dir");
    const t = task(s.world, "1013");
    expect(t.state).toBe("TASK_STATE_OPEN");
    expect(t.type?.kind === "grant" && t.type.outcome).toBe("GRANT_OUTCOME_UNSPECIFIED");
    expect(t.policy?.policy?.id).toBe(before.policy?.policy?.id);
    expect(t.policyGenerationId).toBe(before.policyGenerationId);
    expect(t.policy?.history?.slice(0, before.policy?.history?.length ?? 0)).toEqual(before.policy?.history?.toArray());
    expect(t.approverIds).toEqual([]);
    expect(kinds(s)[0]).toBe("restarted");
    expect(body(s)["ticketActionId"]).toBe(s.events[0]?.id);
  });

  it("retires the running step as restarted", () => {
    const s = run(sampleWorld(), { type: "restart", taskId: "1001" }, "u-it-dir");
    const old = task(sampleWorld(), "1001").policy?.current?.id;
    const retired = task(s.world, "1001").policy?.history?.find((h) => h.id === old)?.instance;
    expect(retired?.kind === "approval" && retired.outcome?.kind).toBe("restarted");
  });

  it("PERMISSION_DENIED for anyone but a Super Administrator", () => {
    expect(refuse(sampleWorld(), { type: "restart", taskId: "1013" }, "u-sec-analyst", "PERMISSION_DENIED").message).toMatch(/Super Administrators/);
  });
});

describe("close", () => {
  it("the requester cancels a request under its provision step", () => {
    const s = run(sampleWorld(), { type: "close", taskId: "1024", comment: "requested by mistake" }, "u-sales3");
    const t = task(s.world, "1024");
    expect(t.type?.kind === "grant" && t.type.outcome).toBe("GRANT_OUTCOME_CANCELLED");
    const last = t.policy?.history?.at(-1)?.instance;
    expect(last?.kind === "provision" && last.outcome).toMatchObject({ kind: "cancelled", cancelledByUserId: "u-sales3" });
    expect(kinds(s)).toEqual(["closeRequested", "comment", "taskClosed"]);
  });

  it("FAILED_PRECONDITION on a closed task; PERMISSION_DENIED for an approver who is not the requester", () => {
    refuse(sampleWorld(), { type: "close", taskId: "1013" }, "u-it-dir", "FAILED_PRECONDITION");
    refuse(sampleWorld(), { type: "close", taskId: "1001" }, "u-sre-lead", "PERMISSION_DENIED");
  });
});

describe("delete", () => {
  it("cancels an open task, sets deletedAt, and makes every later action NOT_FOUND", () => {
    const s = run(sampleWorld(), { type: "delete", taskId: "1001" }, "u-it-dir");
    const t = task(s.world, "1001");
    expect(t.deletedAt).toBe(s.world.now);
    expect(t.state).toBe("TASK_STATE_CLOSED");
    refuse(s.world, { type: "approve", taskId: "1001" }, "u-sre-lead", "NOT_FOUND");
    refuse(s.world, { type: "comment", taskId: "1001", comment: "hello" }, "u-it-dir", "NOT_FOUND");
    refuse(s.world, { type: "hardReset", taskId: "1001" }, "u-it-dir", "NOT_FOUND");
  });

  it("the comment and hardReset functions say NOT_FOUND for a deleted task too, not PERMISSION_DENIED '(Super Administrators only)'", async () => {
    const { comment } = await import("../../src/reducers/comment.js");
    const { hardReset } = await import("../../src/reducers/hard-reset.js");
    const s = run(sampleWorld(), { type: "delete", taskId: "1001" }, "u-it-dir");
    const c = comment(s.world, { taskId: "1001", comment: "hello" }, { actorId: "u-it-dir" });
    expect(!c.ok && c.error).toMatchObject({ code: "NOT_FOUND", message: expect.stringContaining("was deleted at") });
    const h = hardReset(s.world, { taskId: "1001" }, { actorId: "u-it-dir" });
    expect(!h.ok && h.error).toMatchObject({ code: "NOT_FOUND", message: expect.stringContaining("was deleted at") });
  });

  it("PERMISSION_DENIED for an administrator", () => {
    refuse(sampleWorld(), { type: "delete", taskId: "1001" }, "u-sec-eng", "PERMISSION_DENIED");
  });
});

describe("send reminder", () => {
  it("is an event only: the task is the same object", () => {
    const w = sampleWorld();
    const s = run(w, { type: "sendReminder", taskId: "1001" }, "u-contractor");
    expect(task(s.world, "1001")).toBe(task(w, "1001"));
    expect(s.events).toMatchObject([{ kind: "reminderSent", userIds: ["u-sre-lead"] }]);
  });

  it("FAILED_PRECONDITION unless an approval waits; PERMISSION_DENIED for the approver", () => {
    refuse(sampleWorld(), { type: "sendReminder", taskId: "1012" }, "u-it-dir", "FAILED_PRECONDITION");
    refuse(sampleWorld(), { type: "sendReminder", taskId: "1001" }, "u-sre-lead", "PERMISSION_DENIED");
  });
});

describe("self-approval off: the target user never decides the step (release notes, Feb 2023 and 2024)", () => {
  // Task 1030 asks for an Okta entitlement for u-hr1. `superAdmins` lists who is a Super Administrator.
  const reviewOf = (approverIds: string[], superAdmins: string[]): World => {
    const w = sampleWith((json) => {
      json.policies.push(grantPolicy("pol-test", [usersApproval(approverIds), PROVISION]));
      const ent = (json["entitlements"] as Record<string, unknown>[]).find((e) => e["id"] === "ent-okta-finance-apps") as Record<string, unknown>;
      ent["grantPolicyId"] = "pol-test";
      for (const u of json["users"] as Record<string, unknown>[]) {
        const roles = (u["roleIds"] as string[]).filter((r) => r !== "r-super-admin");
        u["roleIds"] = superAdmins.includes(u["id"] as string) ? [...roles, "r-super-admin"] : roles;
      }
    });
    return run(w, { type: "hardReset", taskId: "1030" }, superAdmins[0] as string).world;
  };
  const actionsOf = (w: World, userId: string): string[] => taskActionsFor(task(w, "1030"), relationTo(w, task(w, "1030"), w.index.users.get(userId)!));

  it("a Super Administrator who is the target and a listed approver is not offered Approve or Deny, and is refused; another approver decides", () => {
    const w = reviewOf(["u-hr1", "u-dev2"], ["u-it-dir", "u-hr1"]);
    expect(task(w, "1030").stepApproverIds).toEqual(["u-dev2"]);
    expect(actionsOf(w, "u-hr1")).not.toContain("TASK_ACTION_TYPE_APPROVE");
    expect(actionsOf(w, "u-hr1")).not.toContain("TASK_ACTION_TYPE_DENY");
    expect(actionsOf(w, "u-hr1")).toContain("TASK_ACTION_TYPE_HARD_RESET");
    expect(refuse(w, { type: "approve", taskId: "1030" }, "u-hr1", "PERMISSION_DENIED").message).toMatch(/target user.*self-approval/);
    refuse(w, { type: "deny", taskId: "1030" }, "u-hr1", "PERMISSION_DENIED");
    expect(task(run(w, { type: "approve", taskId: "1030" }, "u-dev2").world, "1030").policy?.current?.instance?.kind).toBe("provision");
    // Another Super Administrator still may.
    expect(actionsOf(w, "u-it-dir")).toContain("TASK_ACTION_TYPE_APPROVE");
  });

  it("when the target is the only possible reviewer, the step waits on them (not skipped) and they may not approve it; they may skip it", () => {
    const w = reviewOf(["u-hr1"], ["u-hr1"]);
    const t = task(w, "1030");
    // Before: the approval was skipped and the task went on to provisioning without any approval.
    expect(t.policy?.current?.instance?.kind).toBe("approval");
    expect(t.stepApproverIds).toEqual(["u-hr1"]);
    expect(actionsOf(w, "u-hr1")).not.toContain("TASK_ACTION_TYPE_APPROVE");
    refuse(w, { type: "approve", taskId: "1030" }, "u-hr1", "PERMISSION_DENIED");
    const skipped = run(w, { type: "skipStep", taskId: "1030", comment: "no other reviewer" }, "u-hr1");
    expect(task(skipped.world, "1030").policy?.current?.instance?.kind).toBe("provision");
  });
});

describe("escalate to emergency access", () => {
  it("switches an open request to the entitlement's emergency policy", () => {
    const w = sampleWorld();
    const s = run(w, { type: "escalateToEmergencyAccess", taskId: "1001", comment: "SEV-1" }, "u-contractor");
    const t = task(s.world, "1001");
    expect(t.emergencyAccess).toBe(true);
    expect(t.policy?.policy?.id).toBe("pol-emergency-breakglass");
    expect(t.policyGenerationId).not.toBe(task(w, "1001").policyGenerationId);
    const cur = t.policy?.current?.instance;
    expect(cur?.kind === "approval" && cur.escalationInstance?.expiresAt).toBe("2026-11-22T09:15:00Z");
    expect(kinds(s).slice(0, 2)).toEqual(["escalatedToEmergencyAccess", "policyChanged"]);
  });

  it("FAILED_PRECONDITION when already emergency, or the entitlement does not enable emergency grants", () => {
    refuse(sampleWorld(), { type: "escalateToEmergencyAccess", taskId: "1004" }, "u-it-dir", "FAILED_PRECONDITION");
    expect(refuse(sampleWorld(), { type: "escalateToEmergencyAccess", taskId: "1030" }, "u-it-dir", "FAILED_PRECONDITION").message).toMatch(
      /does not enable emergency grants/,
    );
  });

  it("PERMISSION_DENIED for an approver who is neither requester, target nor administrator", () => {
    refuse(sampleWorld(), { type: "escalateToEmergencyAccess", taskId: "1001" }, "u-sre-lead", "PERMISSION_DENIED");
  });

  // product_admin_access-requests.mdx: a resource type's request defaults can turn on "Emergency
  // access" for its entitlements; product_admin_emergency.mdx: an open standard request can be
  // escalated. Task 1007 asks for a GitHub repository entitlement (rt-repo), which does not enable
  // emergency grants itself.
  const repoDefaults = (on: boolean, policyId = "pol-emergency-breakglass") =>
    sampleWith((j) => {
      const d = (j["resourceTypeDefaults"] as JsonObject[])[0] as Record<string, unknown>;
      d["emergencyGrantEnabled"] = on;
      d["emergencyGrantPolicyId"] = policyId;
    });

  it("escalates a request whose resource type's request defaults turn emergency access on (product_admin_access-requests.mdx)", () => {
    const w = repoDefaults(true);
    const before = task(w, "1007");
    const offered = (world: typeof w) => taskActionsFor(task(world, "1007"), relationTo(world, task(world, "1007"), world.index.users.get(before.createdByUserId)!));
    expect(offered(w)).toContain("TASK_ACTION_TYPE_ESCALATE_TO_EMERGENCY_ACCESS");
    const s = run(w, { type: "escalateToEmergencyAccess", taskId: "1007" }, "u-it-dir");
    const t = task(s.world, "1007");
    expect(t.emergencyAccess).toBe(true);
    expect(t.policy?.policy?.id).toBe("pol-emergency-breakglass");
    // Off in the defaults: refused and not offered, as before.
    const off = repoDefaults(false);
    expect(offered(off)).not.toContain("TASK_ACTION_TYPE_ESCALATE_TO_EMERGENCY_ACCESS");
    expect(refuse(off, { type: "escalateToEmergencyAccess", taskId: "1007" }, "u-it-dir", "FAILED_PRECONDITION").message).toMatch(/does not enable emergency grants/);
  });

  it("creates an emergency request for such an entitlement, routed by the defaults' emergency policy, and refuses one where they are off", () => {
    const { appEntitlementId } = task(sampleWorld(), "1007").type as { readonly appEntitlementId: string };
    const req = { appId: "app-github", appEntitlementId, identityUserId: "u-dev2", emergencyAccess: true };
    const made = createGrantTask(repoDefaults(true), req, { actorId: "u-dev2", now: "2026-11-22T09:00:00Z" });
    expect(made.ok && (((made.value.response as JsonObject)["taskView"] as JsonObject)["task"] as JsonObject)["emergencyAccess"]).toBe(true);
    expect(made.ok && made.value.world.tasks.valueList().at(-1)?.policy?.policy?.id).toBe("pol-emergency-breakglass");
    const refused = createGrantTask(repoDefaults(false), req, { actorId: "u-dev2", now: "2026-11-22T09:00:00Z" });
    expect(!refused.ok && refused.error.code).toBe("INVALID_ARGUMENT");
  });

  it("FAILED_PRECONDITION when emergency access is on but no emergency policy applies, naming the source", () => {
    const w = repoDefaults(true, "pol-gone");
    expect(refuse(w, { type: "escalateToEmergencyAccess", taskId: "1007" }, "u-it-dir", "FAILED_PRECONDITION").message).toMatch(/no emergency policy applies.*pol-gone/);
  });
});

describe("change policy", () => {
  it("puts a revoke task on another revoke policy with a new generation", () => {
    const w = sampleWorld();
    const s = run(w, { type: "changePolicy", taskId: "1036", policyId: "pol-revoke-critical" }, "u-it-dir");
    const t = task(s.world, "1036");
    expect(t.policy?.policy?.id).toBe("pol-revoke-critical");
    expect(t.policyGenerationId).not.toBe(task(w, "1036").policyGenerationId);
    expect(s.events[0]).toMatchObject({ kind: "policyChanged", oldPolicyId: "pol-revoke-standard", newPolicyId: "pol-revoke-critical" });
  });

  it("is refused on request tasks (FAILED_PRECONDITION), for a policy of another type or unknown (INVALID_ARGUMENT), and for non-Super Administrators", () => {
    expect(refuse(sampleWorld(), { type: "changePolicy", taskId: "1001", policyId: "pol-aws-access" }, "u-it-dir", "FAILED_PRECONDITION").message).toMatch(
      /not available on request tasks/,
    );
    refuse(sampleWorld(), { type: "changePolicy", taskId: "1036", policyId: "pol-aws-access" }, "u-it-dir", "INVALID_ARGUMENT");
    refuse(sampleWorld(), { type: "changePolicy", taskId: "1036", policyId: "pol-nope" }, "u-it-dir", "INVALID_ARGUMENT");
    refuse(sampleWorld(), { type: "changePolicy", taskId: "1036", policyId: "pol-revoke-critical" }, "u-sec-eng", "PERMISSION_DENIED");
  });
});

describe("process now", () => {
  it("FAILED_PRECONDITION unless a wait step waits; PERMISSION_DENIED for a plain user", () => {
    refuse(sampleWorld(), { type: "processNow", taskId: "1001" }, "u-it-dir", "FAILED_PRECONDITION");
    refuse(sampleWorld(), { type: "processNow", taskId: "1011" }, "u-intern", "PERMISSION_DENIED");
  });
});

describe("provisioning outcomes", () => {
  it("product_admin_access-requests.mdx (Delegated): granting B also grants each entitlement A whose provisioning is delegated to B", () => {
    // ent-aws-billing (A) is provisioned by granting ent-aws-sandbox (B), 1031's entitlement.
    const w = sampleWith((json) => {
      const ents = json["entitlements"] as JsonObject[];
      const a = ents.find((e) => e["appId"] === "app-aws" && e["id"] === "ent-aws-billing");
      if (!a) throw new Error("sample changed");
      (a as Record<string, unknown>)["provisionerPolicy"] = { delegated: { appId: "app-aws", entitlementId: "ent-aws-sandbox" } };
    });
    expect(holds(w, "u-sales2", "app-aws", "ent-aws-billing")).toBe(false);
    const s = run(w, { type: "provisionComplete", taskId: "1031", comment: "done" }, "u-it-dir");
    expect(task(s.world, "1031").type).toMatchObject({ outcome: "GRANT_OUTCOME_GRANTED" });
    expect(holds(s.world, "u-sales2", "app-aws", "ent-aws-sandbox")).toBe(true);
    expect(holds(s.world, "u-sales2", "app-aws", "ent-aws-billing")).toBe(true);
    // Without the binding, B alone.
    expect(holds(run(sampleWorld(), { type: "provisionComplete", taskId: "1031", comment: "done" }, "u-it-dir").world, "u-sales2", "app-aws", "ent-aws-billing")).toBe(false);
  });

  it("manual deprovisioning completed by the app owner closes the revoke REVOKED and removes the grant", () => {
    const w = sampleWorld();
    expect(holds(w, "u-fin2", "app-salesforce", "ent-sf-finance-reports")).toBe(true);
    const s = run(w, { type: "provisionComplete", taskId: "1042", comment: "permission set removed" }, "u-vp-sales");
    const t = task(s.world, "1042");
    expect(t.type?.kind === "revoke" && t.type.outcome).toBe("REVOKE_OUTCOME_REVOKED");
    expect(holds(s.world, "u-fin2", "app-salesforce", "ent-sf-finance-reports")).toBe(false);
    expect(s.events.find((e) => e.kind === "grantRevoked")).toMatchObject({ reason: "entitlement", source: "direct" });
  });

  it("product_admin_provisioning.mdx: a connector's error falls back to manual provisioning by the app's owners; the task stays open and offers RETRY_PROVISIONING; cancelled closes CANCELLED", () => {
    const w = sampleWorld();
    const e = run(w, { type: "provisionErrored", taskId: "1031", errorCode: "CONNECTOR_GRANT_FAILED", description: "API returned 422" }, "u-it-dir");
    const t = task(e.world, "1031");
    expect(t.state).toBe("TASK_STATE_OPEN");
    expect(t.type?.kind === "grant" && t.type.outcome).toBe("GRANT_OUTCOME_UNSPECIFIED");
    const last = t.policy?.history?.at(-1)?.instance;
    expect(last?.kind === "provision" && [last.state, last.waitingOn]).toEqual(["PROVISION_INSTANCE_STATE_DONE", null]);
    // openapi.yaml ReassignedByErrorAction: "a policy step that has been reassigned because it had an
    // error provisioning", naming the step it created; errorUserId "exclusively the System's UserID".
    expect(last?.kind === "provision" && last.outcome).toEqual({
      kind: "reassignedByError",
      errorCode: "CONNECTOR_GRANT_FAILED",
      description: "API returned 422",
      errorUserId: "",
      erroredAt: w.now,
      newPolicyStepId: t.policy?.current?.id,
      reassignedAt: w.now,
    });
    const cur = t.policy?.current?.instance;
    expect(cur?.kind === "provision" && cur.provision?.provisionPolicy?.kind).toBe("manual");
    expect(t.stepApproverIds).toEqual(["u-sre-lead", "u-it-dir"]);
    expect(kinds(e)).toContain("provisionRoutedToManual");
    expect(viewTask(e)["actions"]).toContain("TASK_ACTION_TYPE_RETRY_PROVISIONING");
    // An app owner provisions by hand: the request is granted.
    const done = run(e.world, { type: "provisionComplete", taskId: "1031", comment: "created by hand" }, "u-sre-lead");
    expect(task(done.world, "1031").type).toMatchObject({ outcome: "GRANT_OUTCOME_GRANTED" });
    const c = run(w, { type: "provisionCancelled", taskId: "1031" }, "u-it-dir");
    const ct = task(c.world, "1031");
    expect(ct.type?.kind === "grant" && ct.type.outcome).toBe("GRANT_OUTCOME_CANCELLED");
  });

  it("a manual step reported failed by its provisioner closes with the error outcome and offers RETRY_PROVISIONING", () => {
    const manual = { provision: { assigned: false, provisionPolicy: { manual: { instructions: "", userIds: ["u-it1"] } }, provisionTarget: null } };
    let w = worldOn([manual]);
    const e = run(w, { type: "provisionErrored", taskId: "1030", errorCode: "NO_LICENSE", description: "no seat left" }, "u-it1");
    w = e.world;
    expect(task(w, "1030").type).toMatchObject({ outcome: "GRANT_OUTCOME_ERROR" });
    expect(viewTask(e)["actions"]).toContain("TASK_ACTION_TYPE_RETRY_PROVISIONING");
  });

  it("refusals: INVALID_ARGUMENT without errorCode, PERMISSION_DENIED for a plain user, FAILED_PRECONDITION on an approval", () => {
    const w = sampleWorld();
    expect(refuse(w, { type: "provisionErrored", taskId: "1031", errorCode: "", description: "x" }, "u-it-dir", "INVALID_ARGUMENT")).toMatchObject({ field: "errorCode" });
    refuse(w, { type: "provisionComplete", taskId: "1031" }, "u-sales2", "PERMISSION_DENIED");
    refuse(w, { type: "provisionComplete", taskId: "1001" }, "u-it-dir", "FAILED_PRECONDITION");
    refuse(w, { type: "provisionComplete", taskId: "1031", entitlements: [{ appId: 1 } as unknown as { appId: string; appEntitlementId: string }] }, "u-it-dir", "INVALID_ARGUMENT");
  });
});

describe("retry provisioning (release note 2)", () => {
  it("retries on the same task and keeps the approvals already collected", () => {
    let w = worldOn([usersApproval(["u-it2"]), usersApproval(["u-sre-lead"]), PROVISION]);
    w = run(w, { type: "approve", taskId: "1030" }, "u-it2").world;
    w = run(w, { type: "approve", taskId: "1030" }, "u-sre-lead").world;
    w = run(w, { type: "provisionErrored", taskId: "1030", errorCode: "OKTA_429", description: "Rate limited" }, "u-it-dir").world;
    const failed = task(w, "1030");
    expect(failed.state).toBe("TASK_STATE_OPEN");
    const s = run(w, { type: "retryProvisioning", taskId: "1030" }, "u-it-dir");
    const t = task(s.world, "1030");
    expect(t.id).toBe(failed.id);
    expect(t.state).toBe("TASK_STATE_OPEN");
    expect(t.approverIds).toEqual(["u-it2", "u-sre-lead"]);
    // The history is kept; the manual fallback step joins it, cancelled by the retry.
    expect(t.policy?.history?.slice(0, -1)).toEqual(failed.policy?.history?.toArray());
    const fallback = t.policy?.history?.at(-1)?.instance;
    expect(fallback?.kind === "provision" && fallback.outcome).toMatchObject({ kind: "cancelled", cancelledByUserId: "u-it-dir" });
    const retried = t.policy?.current?.instance;
    expect(retried?.kind === "provision" && retried.provision?.provisionPolicy?.kind).toBe("connector");
    const approvals = (t.policy?.history ?? []).filter((h) => h.instance?.kind === "approval" && h.instance.outcome?.kind === "approved");
    expect(approvals).toHaveLength(2);
    expect(t.policy?.current?.instance?.kind).toBe("provision");
    expect(t.type?.kind === "grant" && t.type.outcome).toBe("GRANT_OUTCOME_UNSPECIFIED");
    const done = run(s.world, { type: "provisionComplete", taskId: "1030" }, "u-it-dir");
    const g = task(done.world, "1030");
    expect(g.type?.kind === "grant" && g.type.outcome).toBe("GRANT_OUTCOME_GRANTED");
  });

  it("works on the sample's errored task 1019", () => {
    const s = run(sampleWorld(), { type: "retryProvisioning", taskId: "1019" }, "u-it-dir");
    expect(task(s.world, "1019").state).toBe("TASK_STATE_OPEN");
  });

  it("policyStepId, when given, must name the failed provision step (openapi.yaml RetryProvisioningRequest: the step to retry)", () => {
    const failed = task(sampleWorld(), "1019").policy?.history?.at(-1)?.id ?? "";
    expect(failed).not.toBe("");
    expect(task(run(sampleWorld(), { type: "retryProvisioning", taskId: "1019", policyStepId: failed }, "u-it-dir").world, "1019").state).toBe("TASK_STATE_OPEN");
    expect(refuse(sampleWorld(), { type: "retryProvisioning", taskId: "1019", policyStepId: "bogus" }, "u-it-dir", "FAILED_PRECONDITION").message).toContain(`the provision step that failed is "${failed}"`);
  });

  it("restart accepts any policyStepId: openapi.yaml RestartRequest says it is deprecated and does not affect behavior", () => {
    const plain = run(sampleWorld(), { type: "restart", taskId: "1030" }, "u-it-dir");
    const withId = run(sampleWorld(), { type: "restart", taskId: "1030", policyStepId: "bogus" } as never, "u-it-dir");
    expect(task(withId.world, "1030").policy?.current?.instance?.kind).toBe(task(plain.world, "1030").policy?.current?.instance?.kind);
  });

  it("FAILED_PRECONDITION on a task that did not fail provisioning; PERMISSION_DENIED for a plain user", () => {
    refuse(sampleWorld(), { type: "retryProvisioning", taskId: "1013" }, "u-it-dir", "FAILED_PRECONDITION");
    refuse(sampleWorld(), { type: "retryProvisioning", taskId: "1019" }, "u-dev3", "PERMISSION_DENIED");
  });
});

describe("form completion", () => {
  const good: JsonObject = {
    justification: "Quarter-end revenue close for EMEA (FIN-2291)",
    dataScope: "revenue",
    accessDays: "14",
    ticket: "FIN-2291",
    acknowledge: true,
  };

  it("stores the values (with defaults), completes the step and runs on", () => {
    const s = run(sampleWorld(), { type: "completeForm", taskId: "1012", values: good }, "u-fin1");
    const t = task(s.world, "1012");
    const form = t.policy?.history?.at(-1)?.instance;
    expect(form?.kind === "form" && form.outcome).toMatchObject({ kind: "completed", userId: "u-fin1" });
    expect(form?.kind === "form" && form.data).toMatchObject({ justification: good["justification"], accessDays: "14" });
    expect(t.policy?.current?.instance?.kind).toBe("approval");
  });

  it("INVALID_ARGUMENT with one clear problem per field", () => {
    const e = refuse(
      sampleWorld(),
      {
        type: "completeForm",
        taskId: "1012",
        values: { justification: "too short", dataScope: "everything", accessDays: "120", costCenter: "CC-1", ticket: "JIRA-1", acknowledge: false, extra: 1 },
      },
      "u-fin1",
      "INVALID_ARGUMENT",
    );
    expect(e.message).toMatch(/extra: is not a field/);
    expect(e.message).toMatch(/justification: must be at least 20 characters/);
    expect(e.message).toMatch(/dataScope: must be one of the options/);
    expect(e.message).toMatch(/accessDays: must be at most 90/);
    expect(e.message).toMatch(/costCenter: is read-only/);
    expect(e.message).toMatch(/ticket: must match the pattern/);
    expect(e.message).toMatch(/acknowledge: must be true/);
    expect(e.code === "INVALID_ARGUMENT" && e.field).toBe("values.extra");
  });

  it("checks relationships: mutually exclusive fields and at-least-one", () => {
    const { ticket: _t, ...noTicket } = good;
    const e1 = refuse(sampleWorld(), { type: "completeForm", taskId: "1012", values: noTicket }, "u-fin1", "INVALID_ARGUMENT");
    expect(e1.message).toMatch(/at least one of manager, ticket/);
    const e2 = refuse(sampleWorld(), { type: "completeForm", taskId: "1012", values: { ...good, endDate: "2026-12-01" } }, "u-fin1", "INVALID_ARGUMENT");
    expect(e2.message).toMatch(/mutually exclusive/);
  });

  it("the values are the world's own copy; values that refer to themselves are INVALID_ARGUMENT, not a world that cannot be saved", () => {
    const values: Record<string, unknown> = { ...good };
    const s = run(sampleWorld(), { type: "completeForm", taskId: "1012", values } as never, "u-fin1");
    values["justification"] = "changed by the caller afterwards";
    const form = task(s.world, "1012").policy?.history?.at(-1)?.instance;
    expect(form?.kind === "form" && form.data).toMatchObject({ justification: good["justification"] });
    const loop: Record<string, unknown> = { ...good };
    loop["self"] = loop;
    const e = refuse(sampleWorld(), { type: "completeForm", taskId: "1012", values: loop } as never, "u-fin1", "INVALID_ARGUMENT");
    expect(e.message).toBe("values refers to itself, which JSON cannot write");
  });

  it("FAILED_PRECONDITION on another step; PERMISSION_DENIED for an unrelated approver", () => {
    refuse(sampleWorld(), { type: "completeForm", taskId: "1001", values: {} }, "u-it-dir", "FAILED_PRECONDITION");
    refuse(sampleWorld(), { type: "completeForm", taskId: "1054", values: {} }, "u-sre-lead", "FAILED_PRECONDITION");
  });
});

describe("action step outcomes", () => {
  it("success closes an action task ACTION_OUTCOME_SUCCESS; error, denied and cancelled close with theirs", () => {
    const w = run(sampleWorld(), { type: "approve", taskId: "1054" }, "u-sre-lead").world;
    const cur = task(w, "1054").policy?.current?.instance;
    expect(cur?.kind === "action" && cur.state).toBe("ACTION_INSTANCE_STATE_RUNNING");
    const expectOutcome = (outcome: "success" | "denied" | "error" | "cancelled", want: string) => {
      const s = run(w, { type: "actionOutcome", taskId: "1054", outcome, errorCode: outcome === "error" ? "E1" : "" }, "u-it-dir");
      const t = task(s.world, "1054");
      expect(t.type?.kind === "action" && t.type.outcome).toBe(want);
      expect(t.state).toBe("TASK_STATE_CLOSED");
    };
    expectOutcome("success", "ACTION_OUTCOME_SUCCESS");
    expectOutcome("denied", "ACTION_OUTCOME_DENIED");
    expectOutcome("error", "ACTION_OUTCOME_ERROR");
    expectOutcome("cancelled", "ACTION_OUTCOME_CANCELLED");
  });

  it("refusals: PERMISSION_DENIED for a plain user, INVALID_ARGUMENT for an error without code or an unknown outcome, FAILED_PRECONDITION on an approval", () => {
    const w = run(sampleWorld(), { type: "approve", taskId: "1054" }, "u-sre-lead").world;
    refuse(w, { type: "actionOutcome", taskId: "1054", outcome: "success" }, "u-sre1", "PERMISSION_DENIED");
    refuse(w, { type: "actionOutcome", taskId: "1054", outcome: "error" }, "u-it-dir", "INVALID_ARGUMENT");
    refuse(w, { type: "actionOutcome", taskId: "1054", outcome: "done" as "success" }, "u-it-dir", "INVALID_ARGUMENT");
    refuse(sampleWorld(), { type: "actionOutcome", taskId: "1054", outcome: "success" }, "u-it-dir", "FAILED_PRECONDITION");
  });
});

describe("reduce", () => {
  it("passes comment and hardReset through to their reducers", () => {
    const c = run(sampleWorld(), { type: "comment", taskId: "1001", comment: "hi" }, "u-contractor");
    expect(kinds(c)).toEqual(["comment"]);
    const h = run(sampleWorld(), { type: "hardReset", taskId: "1022" }, "u-it-dir");
    expect(kinds(h)[0]).toBe("hardReset");
    expect(task(h.world, "1022").policy?.policy?.id).toBe("pol-security-sensitive");
  });

  it("a Hard Reset through reduce applies the world effects of its automatic advance (an accept-only policy grants at once)", () => {
    const w = worldOn([{ accept: { acceptMessage: "Approved automatically." } }]);
    const t = task(w, "1030");
    expect(t.type?.kind === "grant" && t.type.outcome).toBe("GRANT_OUTCOME_GRANTED");
    expect(holds(w, "u-hr1", "app-okta", "ent-okta-finance-apps")).toBe(true);
  });

  it("INVALID_ARGUMENT for an unknown type, naming the known ones; never throws on junk", () => {
    const r = reduce(sampleWorld(), { type: "approveAll" } as unknown as Parameters<typeof reduce>[1], { actorId: "u-it-dir" });
    expect(!r.ok && r.error.message).toMatch(/known: approve, approveWithStepUp/);
    for (const junk of [null, 1, "x", [], { type: 3 }, { type: "approve" }, { type: "approve", taskId: 5 }])
      expect(reduce(sampleWorld(), junk as unknown as Parameters<typeof reduce>[1], { actorId: "u-it-dir" }).ok).toBe(false);
    expect(reduce(sampleWorld(), { type: "approve", taskId: "1001" }, null as unknown as { actorId: string }).ok).toBe(false);
  });

  it("lists the new actions in the caller's task actions", () => {
    const w = sampleWorld();
    const actionsOf = (id: string, actor: string) => viewTask(run(w, { type: "comment", taskId: id, comment: "." }, actor))["actions"];
    expect(actionsOf("1024", "u-it-dir")).toEqual(expect.arrayContaining(["TASK_ACTION_TYPE_PROVISION_COMPLETE", "TASK_ACTION_TYPE_PROVISION_ERRORED"]));
    expect(actionsOf("1019", "u-it-dir")).toContain("TASK_ACTION_TYPE_RETRY_PROVISIONING");
    expect(actionsOf("1011", "u-it-dir")).toEqual(expect.arrayContaining(["TASK_ACTION_TYPE_PROCESS_NOW", "TASK_ACTION_TYPE_SKIP_STEP"]));
    expect(actionsOf("1012", "u-fin1")).toContain("TASK_ACTION_TYPE_UPDATE_REQUEST_DATA");
    expect(actionsOf("1001", "u-contractor")).toContain("TASK_ACTION_TYPE_ESCALATE_TO_EMERGENCY_ACCESS");
    expect(actionsOf("1030", "u-it-dir")).not.toContain("TASK_ACTION_TYPE_ESCALATE_TO_EMERGENCY_ACCESS");
  });
});
