import { describe, expect, it } from "vitest";
import {
  type AuditEvent,
  comment,
  decodeCommentResponse,
  decodeHardResetResponse,
  decodePolicy,
  encodeHardResetResponse,
  findTask,
  hardReset,
  replaceInWorld,
  saveWorld,
  type World,
} from "policy-sim";
import { ADMIN, type Body, OUTSIDER, READ_ONLY, SUPER, sampleWorld } from "./helpers.js";

const world = sampleWorld();

function reset(w: World, taskId: string, extra: { comment?: string; paths?: string[]; actorId?: string; now?: string } = {}) {
  const r = hardReset(
    w,
    { taskId, comment: extra.comment ?? "", expandMask: { paths: extra.paths ?? [] } },
    { actorId: extra.actorId ?? SUPER, ...(extra.now ? { now: extra.now } : {}) },
  );
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return { ...r.value, body: r.value.response as Body };
}

const kinds = (events: readonly AuditEvent[]) => events.map((e) => e.kind);

describe("Hard Reset on the sample tenant", () => {
  it.each([
    ["1001", "grant"],
    ["1036", "revoke"],
    ["1043", "certify"],
    ["1051", "offboarding"],
    ["1054", "action"],
    ["1057", "finding"],
  ])("resets task %s (%s): new generation, fresh current step, response in wire shape", (id, type) => {
    const before = findTask(world, id)!;
    const { body, events, world: after } = reset(world, id);
    const task = body.taskView.task;
    expect(Object.keys(task.type)).toEqual([type]);
    expect(task.policyGenerationId).not.toBe(before.policyGenerationId);
    expect(task.policy.current.policyGenerationId).toBe(task.policyGenerationId);
    expect(task.policy.current.state).toBe("POLICY_STEP_STATE_ACTIVE");
    expect(task.state).toBe("TASK_STATE_OPEN");
    expect(task.approverIds).toEqual([]);
    expect(body.ticketActionId).toBe(events[0]?.id);
    expect(events[0]).toMatchObject({ kind: "hardReset", taskId: before.id, actorId: SUPER, oldPolicyStepId: before.policy?.current?.id ?? "" });
    // The response is exactly what the codec writes: it decodes and re-encodes to itself.
    const decoded = decodeHardResetResponse(body);
    expect(decoded.ok).toBe(true);
    if (decoded.ok) expect(encodeHardResetResponse(decoded.value)).toEqual(body);
    // The world moved on; the old one did not.
    expect(findTask(after, id)?.policyGenerationId).toBe(task.policyGenerationId);
    expect(findTask(world, id)).toBe(before);
  });

  it("records one conditionalPolicyExecutionResult per rule evaluated, in the audit shape", () => {
    const { events } = reset(world, "1001");
    const results = events.filter((e) => e.kind === "conditionalPolicyExecutionResult");
    expect(results.map((e) => e.kind === "conditionalPolicyExecutionResult" && [e.policyId, e.chainDepth, e.conditionMatched])).toEqual([
      ["pol-prod-admin", 0, false],
      ["pol-prod-admin", 0, false],
      ["pol-prod-admin", 0, true],
    ]);
    expect(results[2]).toMatchObject({ defaultCondition: false, error: "", stepKey: "5650fd2e-58bd-4dab-a08a-7314c0a4d8a3", outcomePolicyId: "" });
  });

  it("moves the running and pending steps to history as restarted; nothing is dropped", () => {
    const before = findTask(world, "1001")!;
    const pending = before.policy?.next?.length ?? 0;
    const { body } = reset(world, "1001");
    const history = body.taskView.task.policy.history;
    expect(history.length).toBe((before.policy?.history?.length ?? 0) + 1 + pending);
    const restarted = history[before.policy?.history?.length ?? 0];
    expect(restarted.id).toBe(before.policy?.current?.id);
    expect(restarted.state).toBe("POLICY_STEP_STATE_DONE");
    expect(restarted.approval.restarted).toMatchObject({ oldPolicyStepId: before.policy?.current?.id, userId: SUPER, restartedAt: world.now });
  });

  it("names the running step in every pending approval or form step it restarts (openapi.yaml RestartAction.oldPolicyStepId: \"Potentially multiple 'history' steps will reference this ID\")", () => {
    // A task whose running step has pending approval steps after it.
    const task = [...world.tasks.values()].find((t) => t.state === "TASK_STATE_OPEN" && t.policy?.current && (t.policy.next ?? []).some((s) => s.kind === "approval"));
    expect(task).toBeDefined();
    const { body } = reset(world, task!.id);
    const added = body.taskView.task.policy.history.slice(task!.policy?.history?.length ?? 0);
    const restartedIds = added.flatMap((s: Record<string, { restarted?: { oldPolicyStepId: string } }>) => [s["approval"]?.restarted, s["form"]?.restarted].filter((r) => r !== undefined)).map((r: { oldPolicyStepId: string }) => r.oldPolicyStepId);
    // The running step and at least one pending one, all naming the step that was running.
    expect(restartedIds.length).toBeGreaterThanOrEqual(2);
    expect(new Set(restartedIds)).toEqual(new Set([task!.policy!.current!.id]));
  });

  it("picks up a policy edited before the reset", () => {
    const policy = world.index.policies.get("pol-prod-admin")!;
    // Move the contractor rule's target to the security-fast steps of rule 0.
    const rules = (policy.rules ?? []).map((r, i) => (i === 2 ? { ...r, stepKey: policy.rules?.[0]?.stepKey ?? "" } : r));
    const edited = replaceInWorld(world, { policies: [{ ...policy, rules }] });
    const { body } = reset(edited, "1001");
    expect(body.taskView.task.stepApproverIds).toEqual(["u-sre-lead", "u-ciso"]);
    expect(body.taskView.task.policy.policy.rules[2].stepKey).toBe(policy.rules?.[0]?.stepKey);
    // The unedited world still routes the old way.
    expect(reset(world, "1001").body.taskView.task.stepApproverIds).toEqual(["u-sre-lead"]);
  });

  it("switches policy when the governing policy changed, with a policyChanged event", () => {
    const { events, body } = reset(world, "1022");
    expect(events.find((e) => e.kind === "policyChanged")).toMatchObject({ oldPolicyId: "pol-gh-repo-access", newPolicyId: "pol-security-sensitive", actorId: SUPER });
    expect(body.taskView.task.policy.policy.id).toBe("pol-security-sensitive");
    expect(kinds(reset(world, "1001").events)).not.toContain("policyChanged");
  });

  it("reopens a closed task and resets its outcome", () => {
    const before = findTask(world, "1013")!;
    expect(before.state).toBe("TASK_STATE_CLOSED");
    const { body } = reset(world, "1013");
    expect(body.taskView.task.state).toBe("TASK_STATE_OPEN");
    expect(body.taskView.task.type.grant.outcome).toBe("GRANT_OUTCOME_UNSPECIFIED");
    expect(body.taskView.task.type.grant.outcomeTime).toBeNull();
  });

  it("runs a reject first step at once: closed, denied, its message posted as a comment", () => {
    const before = findTask(world, "1009")!;
    const { body, events, world: after } = reset(world, "1009");
    const task = body.taskView.task;
    expect(task.state).toBe("TASK_STATE_CLOSED");
    expect(task.processing).toBe("TASK_PROCESSING_TYPE_DONE");
    expect(task.type.grant.outcome).toBe("GRANT_OUTCOME_DENIED");
    expect(task.type.grant.outcomeTime).toBe(world.now);
    expect(task.policy.current).toBeNull();
    expect(task.policy.history.at(-1).reject.rejectMessage).toContain("Interns may only request low-risk AWS access");
    expect(events.some((e) => e.kind === "comment" && e.comment.startsWith("Interns may only"))).toBe(true);
    expect(task.commentCount).toBe(before.commentCount + 1);
    expect(after.comments.get(before.id)?.at(-1)?.comment).toContain("Interns may only");
  });

  it("runs an accept first step at once and stops at the provision step", () => {
    const { body } = reset(world, "1010");
    const task = body.taskView.task;
    expect(task.policy.history.at(-1)).toHaveProperty("accept");
    expect(task.policy.current).toHaveProperty("provision");
    expect(task.processing).toBe("TASK_PROCESSING_TYPE_PROCESSING");
  });

  it("release note (May 2024): reassigns an approval that resolves to nobody and has no fallback to the Super Administrators, and records why", () => {
    // 1016: the requester, also the subject, is the only owner of PagerDuty and self-approval is off.
    const { body, events } = reset(world, "1016");
    const task = body.taskView.task;
    expect(task.policy.current).toHaveProperty("approval");
    expect(task.stepApproverIds).toEqual(["u-ciso", "u-it-dir"]);
    expect(events.find((e) => e.kind === "reviewersRouted")).toMatchObject({
      policyStepId: task.policy.current.id,
      via: "superAdmins",
      reason: "no reviewer: reassigned to Super Administrators",
    });
    expect(events.some((e) => e.kind === "stepSkipped")).toBe(false);
  });

  it.each([
    ["1006", "users", ["u-sre-lead", "u-ciso"]],
    ["1001", "manager", ["u-sre-lead"]],
    ["1030", "appOwners", ["u-it-dir", "u-it2"]],
    ["1045", "entitlementOwners", ["u-ciso"]],
    ["1003", "group", ["u-ciso", "u-sec-eng", "u-sec-analyst"]],
    ["1032", "self", ["u-intern"]],
    ["1002", "expression", ["u-eng-mgr"]],
    ["1020", "webhook", []],
    ["1005", "agent", []],
  ])("task %s: a %s approval resolves to %j", (id, kind, approvers) => {
    const { body } = reset(world, id);
    const current = body.taskView.task.policy.current.approval;
    expect(Object.keys(current.approval)).toContain(kind);
    expect(body.taskView.task.stepApproverIds).toEqual(approvers);
  });

  it("attaches the request's comment", () => {
    const before = findTask(world, "1001")!;
    const { body, events, world: after } = reset(world, "1001", { comment: "Re-routing after the policy review" });
    expect(body.taskView.task.commentCount).toBe(before.commentCount + 1);
    expect(events.find((e) => e.kind === "comment")).toMatchObject({ comment: "Re-routing after the policy review", updatedBy: SUPER });
    expect(after.comments.get(before.id)?.at(-1)).toMatchObject({ userId: SUPER, comment: "Re-routing after the policy review" });
  });

  it("uses ctx.now for every timestamp it writes", () => {
    const now = "2026-12-01T12:30:00Z";
    const { body } = reset(world, "1001", { now });
    expect(body.taskView.task.updatedAt).toBe(now);
    expect(body.taskView.task.policy.current.approval.assignedAt).toBe(now);
  });
});

describe("expand mask", () => {
  it.each([
    ["user_id", "userPath", "type.googleapis.com/c1.api.user.v1.User", "u-contractor"],
    ["created_by_user_id", "createdByUserPath", "type.googleapis.com/c1.api.user.v1.User", "u-contractor"],
    ["identity_user_id", "identityUserPath", "type.googleapis.com/c1.api.user.v1.User", "u-contractor"],
    ["app_id", "appPath", "type.googleapis.com/c1.api.app.v1.App", "app-aws"],
    ["app_entitlement_ids", "entitlementsPath", "type.googleapis.com/c1.api.app.v1.AppEntitlement", "ent-aws-prod-admin"],
    ["step_approver_ids", "stepApproversPath", "type.googleapis.com/c1.api.user.v1.User", "u-sre-lead"],
  ])("%s fills %s", (path, viewPath, type, id) => {
    const { body } = reset(world, "1001", { paths: [path] });
    const at = /^\$\.expanded\[(\d+)\]$/.exec(body.taskView[viewPath])?.[1];
    expect(at).toBeDefined();
    const item = body.expanded[Number(at)];
    expect(item["@type"]).toBe(type);
    expect(item.id).toBe(id);
  });

  it("access_review_id and approver_ids on tasks that have them", () => {
    const certify = reset(world, "1043", { paths: ["access_review_id"] }).body;
    expect(certify.expanded[0]).toMatchObject({ "@type": "type.googleapis.com/c1.api.accessreview.v1.AccessReview", id: "ar-2026-q4" });
    expect(certify.taskView.accessReviewPath).toBe("$.expanded[0]");
    const c = comment(world, { taskId: "1013", comment: "fyi", expandMask: { paths: ["approver_ids"] } }, { actorId: SUPER });
    expect(c.ok).toBe(true);
    if (!c.ok) return;
    const b = c.value.response as Body;
    expect(b.taskView.approversPath).toBe("$.expanded[0]");
    expect(b.expanded[0].id).toBe("u-eng-mgr");
  });

  it("an expanded account has the API's STATUS_* and type, as GET /api/v1/apps/{app_id}/app_users answers (openapi.yaml c1.api.app.v1.AppUserStatus)", () => {
    const task = [...world.tasks.values()].find((t) => t.numericId === "1001");
    const appUserId = task?.type?.kind === "grant" ? task.type.appUserId : "";
    const account = world.appUsers.find((a) => a.id === appUserId);
    expect(account?.status?.status).toMatch(/^APP_USER_STATUS_/);
    const { body } = reset(world, "1001", { paths: ["app_user_id"] });
    const expanded = body.expanded.find((x: Body) => x["@type"] === "type.googleapis.com/c1.api.app.v1.AppUser");
    expect(expanded.status.status).toBe(account?.status?.status.replace(/^APP_USER_/, ""));
    expect(expanded.appUserType).toMatch(/^APP_USER_TYPE_/);
  });

  it("* expands everything once, and the same user is listed once", () => {
    const { body } = reset(world, "1001", { paths: ["*"] });
    const ids = body.expanded.map((x: Body) => `${x["@type"]}/${x.id}`);
    expect(new Set(ids).size).toBe(ids.length);
    expect(body.taskView.userPath).toBe(body.taskView.createdByUserPath);
    expect(body.taskView.appPath).not.toBe("");
    expect(body.taskView.entitlementsPath).not.toBe("");
  });

  it("paths the world has no objects for are accepted and expand to nothing", () => {
    const { body } = reset(world, "1001", { paths: ["insight_ids", "resource", "scope_role_resources", "app_user_last_usage", "entitlement_scope_bindings"] });
    expect(body.expanded).toEqual([]);
  });

  it("an unknown path is INVALID_ARGUMENT naming it", () => {
    const r = hardReset(world, { taskId: "1001", expandMask: { paths: ["user_id", "manager_id"] } }, { actorId: SUPER });
    expect(!r.ok && r.error).toMatchObject({ code: "INVALID_ARGUMENT" });
    expect(!r.ok && r.error.message).toContain('"manager_id"');
  });
});

describe("who may act", () => {
  // 1001: target and requester u-contractor; step approver u-sre-lead. 1013: approver u-eng-mgr.
  it.each([
    ["the target and requester", "1001", "u-contractor"],
    ["a step approver", "1001", "u-sre-lead"],
    ["an approver", "1013", "u-eng-mgr"],
    ["an administrator", "1001", ADMIN],
    ["a read-only administrator", "1001", READ_ONLY],
    ["an unrelated user", "1001", OUTSIDER],
  ])("Hard Reset by %s is PERMISSION_DENIED and changes nothing", (_who, id, actorId) => {
    const r = hardReset(world, { taskId: id }, { actorId });
    expect(!r.ok && r.error.code).toBe("PERMISSION_DENIED");
  });

  it.each([
    ["the target and requester", "1001", "u-contractor"],
    ["a step approver", "1001", "u-sre-lead"],
    ["an approver", "1013", "u-eng-mgr"],
    ["a read-only administrator", "1001", READ_ONLY],
    ["a super administrator", "1001", SUPER],
  ])("Comment by %s succeeds and the caller's actions include COMMENT", (_who, id, actorId) => {
    const r = comment(world, { taskId: id, comment: "checking in" }, { actorId });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const body = r.value.response as Body;
    expect(body.taskView.task.actions).toContain("TASK_ACTION_TYPE_COMMENT");
    expect(body.taskView.objectPermissions.read).toBe(true);
    expect(decodeCommentResponse(body).ok).toBe(true);
  });

  it("Comment by an unrelated user is PERMISSION_DENIED", () => {
    const r = comment(world, { taskId: "1001", comment: "hi" }, { actorId: OUTSIDER });
    expect(!r.ok && r.error.code).toBe("PERMISSION_DENIED");
  });

  it("product_admin_user-roles.mdx: a Campaign Administrator has no task log, so cannot see an unrelated task", () => {
    const r = comment(world, { taskId: "1001", comment: "hi" }, { actorId: ADMIN });
    expect(!r.ok && r.error.code).toBe("PERMISSION_DENIED");
  });

  it("only Super Administrators see HARD_RESET among their actions", () => {
    const bySuper = comment(world, { taskId: "1001", comment: "a" }, { actorId: SUPER });
    const byAdmin = comment(world, { taskId: "1001", comment: "a" }, { actorId: READ_ONLY });
    expect(bySuper.ok && (bySuper.value.response as Body).taskView.task.actions).toContain("TASK_ACTION_TYPE_HARD_RESET");
    expect(byAdmin.ok && (byAdmin.value.response as Body).taskView.task.actions).not.toContain("TASK_ACTION_TYPE_HARD_RESET");
  });

  it("leaves out, not empties, the fields a plain requester may not see", () => {
    const r = comment(world, { taskId: "1001", comment: "a" }, { actorId: "u-contractor" });
    const task = r.ok ? (r.value.response as Body).taskView.task : {};
    for (const f of ["analysisId", "insightIds", "recommendation", "data"]) expect(task).not.toHaveProperty(f);
    const admin = comment(world, { taskId: "1001", comment: "a" }, { actorId: READ_ONLY });
    expect(admin.ok && (admin.value.response as Body).taskView.task).toHaveProperty("analysisId");
  });

  it("an unknown or disabled caller is UNAUTHENTICATED", () => {
    expect(hardReset(world, { taskId: "1001" }, { actorId: "nobody" })).toMatchObject({ ok: false, error: { code: "UNAUTHENTICATED" } });
    expect(comment(world, { taskId: "1001", comment: "x" }, { actorId: "u-fin2" })).toMatchObject({ ok: false, error: { code: "UNAUTHENTICATED" } });
  });
});

describe("errors", () => {
  it("unknown task: NOT_FOUND; numericId and id both work", () => {
    expect(hardReset(world, { taskId: "424242" }, { actorId: SUPER })).toMatchObject({ ok: false, error: { code: "NOT_FOUND" } });
    const id = findTask(world, "1001")!.id;
    expect(hardReset(world, { taskId: id }, { actorId: SUPER }).ok).toBe(true);
  });

  it.each(["", "   ", "\n\t"])("Comment %j is INVALID_ARGUMENT", (text) => {
    expect(comment(world, { taskId: "1001", comment: text }, { actorId: SUPER })).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT", field: "comment" } });
  });

  it("a broken chain is FAILED_PRECONDITION with the decision that explains it, and the world is unchanged", () => {
    const policy = world.index.policies.get("pol-prod-admin")!;
    const broken = decodePolicy({ id: "pol-prod-admin", policyType: "POLICY_TYPE_GRANT", policySteps: {}, rules: [{ condition: "true", policyId: "pol-prod-admin" }] });
    if (!broken.ok) throw new Error("fixture");
    const edited = replaceInWorld(world, { policies: [{ ...policy, ...broken.value, displayName: policy.displayName }] });
    const snapshot = JSON.stringify(saveWorld(edited));
    const r = hardReset(edited, { taskId: "1001" }, { actorId: SUPER });
    expect(!r.ok && r.error.code).toBe("FAILED_PRECONDITION");
    expect(!r.ok && r.error.message).toContain("SELF_REFERENCE");
    expect(!r.ok && r.error.code === "FAILED_PRECONDITION" && r.error.details).toHaveProperty("decision");
    expect(JSON.stringify(saveWorld(edited))).toBe(snapshot);
  });

  it("a malformed request or context is a value, not an exception", () => {
    const bad: unknown[] = [null, 42, "x", [], { taskId: 7 }, { taskId: "1001", comment: 5 }, { taskId: "1001", expandMask: { paths: "user_id" } }];
    for (const req of bad) {
      const r = hardReset(world, req as never, { actorId: SUPER });
      expect(r.ok).toBe(false);
      expect(!r.ok && r.error.code).toBe("INVALID_ARGUMENT");
    }
    expect(hardReset(world, { taskId: "1001" }, null as never)).toMatchObject({ ok: false, error: { code: "UNAUTHENTICATED" } });
    expect(hardReset(world, { taskId: "1001" }, { actorId: SUPER, now: "yesterday" })).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT" } });
  });
});

describe("Comment", () => {
  it("records the comment, bumps commentCount and updatedAt, and nothing else changes", () => {
    const before = findTask(world, "1001")!;
    const now = "2026-11-22T11:00:00Z";
    const r = comment(world, { taskId: "1001", comment: "Needed for the migration" }, { actorId: "u-contractor", now });
    if (!r.ok) throw new Error(r.error.message);
    const after = findTask(r.value.world, "1001")!;
    expect(after).toEqual({ ...before, commentCount: before.commentCount + 1, updatedAt: now });
    expect(r.value.world.comments.get(before.id)?.at(-1)).toMatchObject({ userId: "u-contractor", comment: "Needed for the migration", createdAt: now });
    expect(r.value.events).toEqual([
      expect.objectContaining({ kind: "comment", comment: "Needed for the migration", updatedAt: now, updatedBy: "u-contractor", actorId: "u-contractor" }),
    ]);
    expect((r.value.response as Body).taskView.task.commentCount).toBe(before.commentCount + 1);
    expect(r.value.response).not.toHaveProperty("ticketActionId");
  });
});
