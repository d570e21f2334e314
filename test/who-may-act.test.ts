/**
 * Who may act on a task (issue 11, point 8): the documented roles and what each may do, against the
 * sample tenant (fixtures/world.json, described in fixtures/SAMPLE.md).
 */
import { describe, expect, it } from "vitest";
import { createGrantTask, createRevokeTask, loadWorld, reduce, type World } from "../src/index.js";
import { ROLE_KINDS, type RoleKind } from "../src/model/directory.js";
import { type Relation, relationTo, taskActionsFor } from "../src/reducers/permissions.js";
import { findTask } from "../src/world/world.js";
import { sampleJson, sampleWorld } from "./helpers.js";

const T = "2026-11-22T10:00:00Z";

function act(world: World, action: Parameters<typeof reduce>[1], actorId: string) {
  return reduce(world, action, { actorId, now: T });
}

function actionsOf(world: World, taskId: string, userId: string): string[] {
  const task = findTask(world, taskId);
  const user = world.index.users.get(userId);
  if (!task || !user) throw new Error(`no task ${taskId} or user ${userId}`);
  return taskActionsFor(task, relationTo(world, task, user));
}

/** A world whose user `u-dev1` holds exactly `kinds` (one role per kind). */
function withRoles(kinds: readonly string[]): World {
  const json = sampleJson();
  const roles = kinds.map((kind, i) => ({ id: `r-test-${i}`, displayName: kind, kind }));
  const users = (json["users"] as { id: string; roleIds: string[] }[]).map((u) => (u.id === "u-dev1" ? { ...u, roleIds: roles.map((r) => r.id) } : u));
  const loaded = loadWorld({ ...json, roles: [...(json["roles"] as object[]), ...roles], users });
  if (!loaded.ok) throw new Error(loaded.error.map((d) => d.message).join("; "));
  return loaded.value;
}

const SUPER_ONLY = [
  "TASK_ACTION_TYPE_PROCESS_NOW",
  "TASK_ACTION_TYPE_RESTART",
  "TASK_ACTION_TYPE_HARD_RESET",
  "TASK_ACTION_TYPE_SKIP_STEP",
  "TASK_ACTION_TYPE_CHANGE_POLICY",
  "TASK_ACTION_TYPE_DELETE",
] as const;

describe("product_how-to_access-change-tasks.mdx: Cancel, Delete, Restart, Hard Reset, Change policy, Skip step and Process now are Super Administrator actions", () => {
  const everyOtherRole: RoleKind[] = ROLE_KINDS.map((r) => r.kind).filter((k) => k !== "SUPER_ADMIN");

  it("no other role, whatever its relation to the task, is offered them (Cancel: only on one's own request; Restart and Delete: only a campaign's manager, on its review tasks)", () => {
    const world = sampleWorld();
    let checked = 0;
    for (const task of world.tasks.values())
      for (let bits = 0; bits < 32; bits++) {
        const r: Relation = {
          roles: everyOtherRole,
          subject: (bits & 1) !== 0,
          requester: (bits & 2) !== 0,
          approver: (bits & 4) !== 0,
          stepApprover: (bits & 8) !== 0,
          campaignManager: (bits & 16) !== 0,
        };
        const actions = taskActionsFor(task, r);
        const review = task.type?.kind === "certify" && r.campaignManager === true;
        for (const a of SUPER_ONLY) {
          const allowed = review && (a === "TASK_ACTION_TYPE_RESTART" || a === "TASK_ACTION_TYPE_DELETE");
          expect(actions.includes(a), `${task.numericId} ${a} bits ${bits}`).toBe(allowed);
        }
        const ownRequest = r.requester && (task.type?.kind === "grant" || task.type?.kind === "revoke") && task.state === "TASK_STATE_OPEN";
        expect(actions.includes("TASK_ACTION_TYPE_CLOSE"), `${task.numericId} CLOSE bits ${bits}`).toBe(ownRequest);
        checked++;
      }
    expect(checked).toBeGreaterThan(1000);
  });

  it("a Super Administrator is offered each of them where the task's state allows it", () => {
    const world = sampleWorld();
    expect(actionsOf(world, "1011", "u-it-dir")).toEqual(expect.arrayContaining(["TASK_ACTION_TYPE_PROCESS_NOW", "TASK_ACTION_TYPE_SKIP_STEP", "TASK_ACTION_TYPE_CLOSE"]));
    expect(actionsOf(world, "1036", "u-it-dir")).toEqual(expect.arrayContaining(["TASK_ACTION_TYPE_CHANGE_POLICY", "TASK_ACTION_TYPE_RESTART", "TASK_ACTION_TYPE_HARD_RESET", "TASK_ACTION_TYPE_DELETE"]));
  });

  it("Process now by an Application Administrator who owns the app is PERMISSION_DENIED (the invented generic Administrator is gone)", () => {
    const world = withRoles(["APPLICATION_ADMIN", "CONNECTOR_ADMIN", "ACCESS_REQUEST_ADMIN"]);
    const r = act(world, { type: "processNow", taskId: "1011" }, "u-dev1");
    expect(!r.ok && r.error.code).toMatch(/PERMISSION_DENIED/);
  });
});

describe("product_how-to_access-change-tasks.mdx: requesters may cancel their own requests", () => {
  it("the requester of an open request closes it; another user, and the requester of a non-request task, may not", () => {
    const world = sampleWorld();
    // 1001: u-contractor asked for production admin access on AWS.
    const own = act(world, { type: "close", taskId: "1001", comment: "no longer needed" }, "u-contractor");
    expect(own.ok && findTask(own.value.world, "1001")?.state).toBe("TASK_STATE_CLOSED");
    expect(act(world, { type: "close", taskId: "1001" }, "u-sre-lead")).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
    // 1051: an offboarding task u-hr-dir created is not a request.
    expect(act(world, { type: "close", taskId: "1051" }, "u-hr-dir")).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
    expect(act(world, { type: "close", taskId: "1051" }, "u-it-dir").ok).toBe(true);
  });
});

describe("product_admin_policies.mdx / product_admin_user-roles.mdx: reassignment only where the step allows it", () => {
  it("no one, a Super Administrator included, reassigns a step that does not allow it", () => {
    const world = sampleWorld();
    const step = findTask(world, "1004")?.policy?.current?.instance;
    expect(step?.kind === "approval" && step.approval?.allowReassignment).toBe(false);
    for (const who of ["u-it-dir", "u-ciso"]) expect(actionsOf(world, "1004", who)).not.toContain("TASK_ACTION_TYPE_REASSIGN");
    expect(act(world, { type: "reassign", taskId: "1004", newStepUserIds: ["u-cto"] }, "u-it-dir")).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
  });
});

describe("product_admin_manage-campaigns.mdx: a campaign manager may restart (and remove) the campaign's review tasks", () => {
  // ar-2026-q3 is owned by u-hr-dir; 1048 is its certified (closed) review of an entitlement.
  it("the owner of the campaign restarts a completed review; the owner of another campaign may not", () => {
    const world = sampleWorld();
    expect(world.index.accessReviews.get("ar-2026-q3")?.ownerUserIds).toEqual(["u-hr-dir"]);
    const restarted = act(world, { type: "restart", taskId: "1048", comment: "reviewer picked the wrong outcome" }, "u-hr-dir");
    expect(restarted.ok && findTask(restarted.value.world, "1048")?.state).toBe("TASK_STATE_OPEN");
    // u-sec-eng manages ar-2026-q4-critical, not ar-2026-q3, and cannot even see 1048.
    expect(act(world, { type: "restart", taskId: "1048" }, "u-sec-eng")).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
  });

  it("a campaign manager may not Hard Reset or change the policy: those stay Super Administrator actions", () => {
    const actions = actionsOf(sampleWorld(), "1048", "u-hr-dir");
    expect(actions).toEqual(expect.arrayContaining(["TASK_ACTION_TYPE_RESTART", "TASK_ACTION_TYPE_DELETE", "TASK_ACTION_TYPE_COMMENT"]));
    expect(actions).not.toContain("TASK_ACTION_TYPE_HARD_RESET");
    expect(actions).not.toContain("TASK_ACTION_TYPE_CHANGE_POLICY");
  });
});

describe("product_admin_user-roles.mdx: world roles are the documented roles", () => {
  it("the sample tenant's roles are all documented kinds", () => {
    const kinds = new Set<string>(ROLE_KINDS.map((r) => r.kind));
    for (const r of sampleWorld().roles) expect(kinds.has(r.kind), r.id).toBe(true);
    expect(ROLE_KINDS.map((r) => r.displayName)).toEqual([
      "Basic User",
      "Access Request Helpdesk",
      "Access Request Administrator",
      "AI Governance Administrator",
      "Application Administrator",
      "Campaign Administrator",
      "Connector Administrator",
      "Read-Only Administrator",
      "Super Administrator",
    ]);
  });

  it("an old world's ADMIN and USER kinds still load, read as Application Administrator and Basic User, with a warning each", () => {
    const world = withRoles(["ADMIN", "USER"]);
    const kinds = world.roles.filter((r) => r.id.startsWith("r-test-")).map((r) => r.kind);
    expect(kinds).toEqual(["APPLICATION_ADMIN", "BASIC_USER"]);
    expect(world.warnings.filter((w) => w.code === "LEGACY_ROLE_KIND").map((w) => w.path)).toHaveLength(2);
    // The old Administrator closed, processed and provisioned any task; the documented roles do not.
    expect(actionsOf(world, "1011", "u-dev1")).toEqual([]);
  });

  it("an unknown role kind is an error naming the documented ones", () => {
    const json = sampleJson();
    const r = loadWorld({ ...json, roles: [...(json["roles"] as object[]), { id: "r-x", displayName: "Wizard", kind: "WIZARD" }] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error[0]?.message).toMatch(/SUPER_ADMIN.*WIZARD/);
  });

  it("a user holding only Read-Only Administrator sees every task but completes none, even one assigned to them, and does not comment (\"without the ability to make changes\")", () => {
    const world = sampleWorld();
    const task = findTask(world, "1003");
    const user = world.index.users.get("u-sec-analyst");
    if (!task || !user) throw new Error("sample changed");
    const assigned: Relation = { ...relationTo(world, task, user), stepApprover: true };
    expect(taskActionsFor(task, assigned)).toContain("TASK_ACTION_TYPE_APPROVE");
    expect(taskActionsFor(task, { ...assigned, roles: ["READ_ONLY_ADMIN"] })).toEqual([]);
    // Held with another role, it comments as that role does.
    expect(taskActionsFor(task, { ...assigned, roles: ["READ_ONLY_ADMIN", "BASIC_USER"] })).toContain("TASK_ACTION_TYPE_COMMENT");
    const auditor = withRoles(["READ_ONLY_ADMIN"]);
    const refused = act(auditor, { type: "comment", taskId: "1003", comment: "looks fine" }, "u-dev1");
    expect(refused).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
    expect(!refused.ok && refused.error.message).toContain("Read-Only Administrator");
  });

  it("a Connector Administrator, and an Application Administrator who owns the app, may sync it; a Campaign Administrator may not", () => {
    const world = sampleWorld();
    // u-it2: Application Administrator (owner of app-okta) and Connector Administrator.
    expect(act(world, { type: "sync", appId: "app-aws" }, "u-it2").ok).toBe(true);
    expect(act(withRoles(["APPLICATION_ADMIN"]), { type: "sync", appId: "app-okta" }, "u-dev1")).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
    expect(act(world, { type: "sync", appId: "app-aws" }, "u-sec-eng")).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
  });
});

describe("product_admin_user-roles.mdx: who may request access, or its removal, for whom", () => {
  const grant = { appId: "app-aws", appEntitlementId: "ent-aws-prod-admin", description: "on call" };
  // u-fin2 holds Salesforce Finance Reports directly.
  const revoke = { appId: "app-salesforce", appEntitlementId: "ent-sf-finance-reports", identityUserId: "u-fin2" };
  type Made = ReturnType<typeof createGrantTask>;
  const code = (r: Made) => (r.ok ? "ok" : r.error.code);
  const asked = (world: World, kind: "grant" | "revoke", req: Record<string, unknown>, actorId: string): Made =>
    (kind === "grant" ? createGrantTask : createRevokeTask)(world, req as never, { actorId, now: T });

  it("Basic User: \"(Managers only) request access to apps and resources for direct reports\", and no one else's", () => {
    const world = sampleWorld();
    expect(code(asked(world, "grant", { ...grant, identityUserId: "u-dev2" }, "u-eng-mgr"))).toBe("ok");
    const other = asked(world, "grant", { ...grant, identityUserId: "u-fin2" }, "u-eng-mgr");
    expect(code(other)).toBe("PERMISSION_DENIED");
    expect(!other.ok && other.error.message).toContain("direct report");
    // A manager does not ask for a report's access to be removed.
    expect(code(asked(world, "revoke", revoke, "u-cfo"))).toBe("PERMISSION_DENIED");
  });

  it("Access Request Helpdesk: \"request access … for any user\" and \"create revocation requests for any user\"", () => {
    const world = sampleWorld();
    expect(world.index.roles.get(world.index.users.get("u-it1")!.roleIds[0]!)?.kind).toBe("ACCESS_REQUEST_HELPDESK");
    expect(code(asked(world, "grant", { ...grant, identityUserId: "u-dev2" }, "u-it1"))).toBe("ok");
    expect(code(asked(world, "revoke", revoke, "u-it1"))).toBe("ok");
  });

  it("Read-Only Administrator alone: \"cannot complete tasks, request access\": no request, not even for themselves; and a refused action is named as itself", () => {
    const world = withRoles(["READ_ONLY_ADMIN"]);
    const r = asked(world, "grant", { ...grant }, "u-dev1");
    expect(code(r)).toBe("PERMISSION_DENIED");
    expect(!r.ok && r.error.message).toContain("Read-Only Administrator");
    // Cancelling a task they can see: refused as CLOSE (before, as COMMENT, the read gate's action).
    const closed = act(world, { type: "close", taskId: "1001" }, "u-dev1");
    expect(!closed.ok && closed.error).toMatchObject({ code: "PERMISSION_DENIED", message: expect.stringContaining("TASK_ACTION_TYPE_CLOSE") });
  });

  it("Access Request Administrator: access for any user, but revocation requests only for themselves (the page gives them no revocation line)", () => {
    const world = withRoles(["ACCESS_REQUEST_ADMIN"]);
    expect(code(asked(world, "grant", { ...grant, identityUserId: "u-fin2" }, "u-dev1"))).toBe("ok");
    const r = asked(world, "revoke", revoke, "u-dev1");
    expect(code(r)).toBe("PERMISSION_DENIED");
    expect(!r.ok && r.error.message).toContain("revocation");
  });
});

