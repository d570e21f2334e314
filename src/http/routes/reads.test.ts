import { describe, expect, it } from "vitest";
import { loadWorld } from "../../world/load-world.js";
import { syntheticWorld } from "../../testing/synthetic-world.js";
import { sampleWorld, SUPER, OUTSIDER, type Body } from "../../../test/helpers.js";
import { responseProblems } from "../openapi-validate.test-helper.js";
import type { AuditEvent } from "../../workflow/events.js";
import {
  getAccessRequestDefaults,
  getApp,
  getEntitlement,
  getPolicy,
  getTask,
  getUser,
  appUserWire,
  listAppUsers,
  listTaskAudits,
  listApps,
  listEntitlements,
  listPolicies,
  listUsers,
} from "./reads.js";
import { searchApps } from "./app-search.js";
import { searchAppUsers } from "./app-user-search.js";
import { searchEntitlements, searchGrants } from "./entitlement-search.js";
import { searchPolicies } from "./policy-search.js";
import { searchTasks } from "./task-search.js";
import { searchUsers } from "./user-search.js";

const world = sampleWorld();
const user = (id: string) => {
  const u = world.index.users.get(id);
  if (!u) throw new Error(id);
  return u;
};
const value = <T>(r: { ok: true; value: T } | { ok: false; error: unknown }): T => {
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value;
};
const all = { size: 100, offset: 0, fingerprint: "" };

describe("openapi.yaml: every read answers its operation's 200 schema", () => {
  it("GET /api/v1/tasks/{id} for every fixture task", () => {
    for (const t of world.tasks.values()) {
      const body = value(getTask(world, user(SUPER), t.numericId));
      expect(responseProblems("GET", "/api/v1/tasks/{id}", body), t.id).toEqual([]);
    }
  });
  it("search tasks with every expand path", () => {
    const body = value(
      searchTasks(world, user(SUPER), {
        pageSize: 100,
        expandMask: { paths: ["user_id", "app_id", "app_entitlement_ids", "app_user_id", "identity_user_id", "created_by_user_id", "step_approver_ids", "access_review_id", "approver_ids"] },
      }),
    );
    expect(responseProblems("POST", "/api/v1/search/tasks", body)).toEqual([]);
  });
  it("directory and policies", () => {
    const app = world.apps[0]!;
    const ent = world.entitlements[0]!;
    const checks: [string, string, unknown][] = [
      ["GET", "/api/v1/users/{id}", value(getUser(world, SUPER))],
      ["GET", "/api/v1/users", value(listUsers(world, all))],
      ["POST", "/api/v1/search/users", value(searchUsers(world, {}))],
      ["GET", "/api/v1/apps/{id}", value(getApp(world, app.id))],
      ["GET", "/api/v1/apps", value(listApps(world, all))],
      ["POST", "/api/v1/search/apps", value(searchApps(world, {}))],
      ["GET", "/api/v1/apps/{app_id}/entitlements/{id}", value(getEntitlement(world, ent.appId, ent.id))],
      ["GET", "/api/v1/apps/{app_id}/entitlements", value(listEntitlements(world, ent.appId, all))],
      ["POST", "/api/v1/search/entitlements", value(searchEntitlements(world, { pageSize: 100 }))],
      ["GET", "/api/v1/apps/{app_id}/app_users", value(listAppUsers(world, app.id, all))],
      ["POST", "/api/v1/search/app_users", value(searchAppUsers(world, { pageSize: 100 }))],
      ["POST", "/api/v1/search/grants", value(searchGrants(world, { pageSize: 100 }))],
      ["GET", "/api/v1/apps/{app_id}/access_request_defaults", value(getAccessRequestDefaults(world, "app-github"))],
      ["GET", "/api/v1/policies/{id}", value(getPolicy(world, world.policies[0]!.id))],
      ["GET", "/api/v1/policies", value(listPolicies(world, all))],
      ["POST", "/api/v1/search/policies", value(searchPolicies(world, { pageSize: 100 }))],
    ];
    for (const [m, p, body] of checks) expect(responseProblems(m, p, body), `${m} ${p}`).toEqual([]);
  });
  it("a plain user does not see others' tasks", () => {
    const body: Body = value(searchTasks(world, user(OUTSIDER), { pageSize: 100 }));
    expect(body.list.length).toBeLessThan(world.tasks.size);
  });
});

describe("openapi.yaml over a generated world (policy-sim/testing syntheticWorld)", () => {
  it("every task, user, app, entitlement, account and policy of a synthetic tenant validates", () => {
    const loaded = loadWorld(syntheticWorld({ seed: 7, tasks: 60 }));
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error.slice(0, 3)));
    const w = loaded.value;
    const admin = w.users.find((u) => w.roles.some((r) => r.kind === "SUPER_ADMIN" && u.roleIds.includes(r.id))) ?? w.users[0]!;
    const every = ["user_id", "app_id", "app_entitlement_ids", "app_user_id", "identity_user_id", "created_by_user_id", "step_approver_ids", "access_review_id", "approver_ids"];
    let pageToken = "";
    let seen = 0;
    do {
      const body: Body = value(searchTasks(w, admin, { pageSize: 25, pageToken, expandMask: { paths: every } }));
      expect(responseProblems("POST", "/api/v1/search/tasks", body)).toEqual([]);
      seen += body.list.length;
      pageToken = body.nextPageToken;
    } while (pageToken !== "");
    expect(seen).toBe([...w.tasks.values()].filter((t) => t.deletedAt === null).length);
    const page = { size: 100, offset: 0, fingerprint: "" };
    expect(responseProblems("GET", "/api/v1/users", value(listUsers(w, page)))).toEqual([]);
    expect(responseProblems("GET", "/api/v1/apps", value(listApps(w, page)))).toEqual([]);
    expect(responseProblems("POST", "/api/v1/search/entitlements", value(searchEntitlements(w, { pageSize: 100 })))).toEqual([]);
    expect(responseProblems("POST", "/api/v1/search/app_users", value(searchAppUsers(w, { pageSize: 100 })))).toEqual([]);
    expect(responseProblems("GET", "/api/v1/policies", value(listPolicies(w, page)))).toEqual([]);
  });
});

describe("openapi.yaml TaskAuditView and product_admin_delegate.mdx: routing records", () => {
  it("a delegation, the Super Administrator fallback and an automatic approval each answer their own audit record", () => {
    // A task without comments: the world's comments are records of their own (tested apart).
    const task = [...world.tasks.values()].find((t) => (world.comments.get(t.id)?.length ?? 0) === 0);
    if (!task) throw new Error("no task");
    const base = { taskId: task.id, at: "2026-11-22T09:00:00Z", actorId: "" };
    const events: AuditEvent[] = [
      { ...base, id: "evt-1", kind: "reassignedToDelegate", policyStepId: "step-1", originalAssigneeUserId: "u-eng-mgr", delegatedAssigneeUserId: "u-sre-lead" },
      { ...base, id: "evt-2", kind: "reviewersRouted", policyStepId: "step-1", via: "superAdmins", reason: "no reviewer: reassigned to Super Administrators", userIds: ["u-ciso", "u-it-dir"] },
      { ...base, id: "evt-3", kind: "reviewersRouted", policyStepId: "step-1", via: "fallback", reason: "", userIds: ["u-it2"] },
      { ...base, id: "evt-4", kind: "stepAutoApproved", policyStepId: "step-1", userId: "u-hr1", reason: "" },
    ];
    const body = value(listTaskAudits(world, user(SUPER), () => events, { taskId: task.id })) as Body;
    expect(responseProblems("POST", "/api/v1/task/audits", body)).toEqual([]);
    // The fallback to the step's own fallback users has no record of its own in the service.
    expect(body.list.map((r: Body) => r.id)).toEqual(["evt-1", "evt-2", "evt-4"]);
    expect(body.list[0].reassignedToDelegate).toMatchObject({ originalAssigneeUserId: "u-eng-mgr", delegatedAssigneeUserId: "u-sre-lead" });
    expect(body.list[1].reassignmentFallbackToAdmin).toMatchObject({ adminUserIds: ["u-ciso", "u-it-dir"] });
    expect(body.list[2].approvedAutomatically).toEqual({});
  });

  it("TaskAuditListRequest.refs answers only the records it names, in the log's order", () => {
    // A task without comments: the world's comments are records of their own (tested apart).
    const task = [...world.tasks.values()].find((t) => (world.comments.get(t.id)?.length ?? 0) === 0);
    if (!task) throw new Error("no task");
    const base = { taskId: task.id, at: "2026-11-22T09:00:00Z", actorId: "" };
    const events: AuditEvent[] = [
      { ...base, id: "evt-1", kind: "stepAutoApproved", policyStepId: "step-1", userId: "u-hr1", reason: "" },
      { ...base, id: "evt-2", kind: "stepAutoApproved", policyStepId: "step-2", userId: "u-hr1", reason: "" },
      { ...base, id: "evt-3", kind: "stepAutoApproved", policyStepId: "step-3", userId: "u-hr1", reason: "" },
    ];
    const ids = (b: Body) => (value(listTaskAudits(world, user(SUPER), () => events, b)) as Body).list.map((r: Body) => r.id);
    expect(ids({ taskId: task.id, refs: [{ id: "evt-3" }, { id: "evt-1" }] })).toEqual(["evt-1", "evt-3"]);
    expect(ids({ taskId: task.id, refs: [{ id: "evt-3" }, { id: "evt-1" }], newestFirst: true })).toEqual(["evt-3", "evt-1"]);
    expect(ids({ taskId: task.id, refs: null })).toEqual(["evt-1", "evt-2", "evt-3"]);
    expect(ids({ taskId: task.id, refs: [{ id: "nope" }] })).toEqual([]);
    const bad = listTaskAudits(world, user(SUPER), () => events, { taskId: task.id, refs: "evt-1" });
    expect(bad.ok).toBe(false);
  });

  it("TaskAuditListRequest.pageSize is the most records a page holds: 1 gives the newest alone (no \"values < 10 will be set to 10\" there, unlike the searches)", () => {
    // A task without comments: the world's comments are records of their own (tested apart).
    const task = [...world.tasks.values()].find((t) => (world.comments.get(t.id)?.length ?? 0) === 0);
    if (!task) throw new Error("no task");
    const events: AuditEvent[] = Array.from({ length: 12 }, (_, i) => ({ taskId: task.id, at: "2026-11-22T09:00:00Z", actorId: "", id: `evt-${i}`, kind: "stepAutoApproved", policyStepId: `step-${i}`, userId: "u-hr1", reason: "" }));
    const page = (b: Body) => value(listTaskAudits(world, user(SUPER), () => events, { taskId: task.id, ...b })) as Body;
    const newest = page({ pageSize: 1, newestFirst: true });
    expect(newest.list.map((r: Body) => r.id)).toEqual(["evt-11"]);
    const second = page({ pageSize: 1, newestFirst: true, pageToken: newest.nextPageToken });
    expect(second.list.map((r: Body) => r.id)).toEqual(["evt-10"]);
    expect(page({ pageSize: 0 }).list).toHaveLength(12);
    expect(page({ pageSize: 500 }).list).toHaveLength(12);
  });
});

describe("openapi.yaml AppAccessRequestDefaults: defaultsEnabled says whether they are on, state how the last apply went", () => {
  it("an app with defaults answers enabled and a last-apply state of the OpenAPI's enum; one without, neither", () => {
    const withDefaults = world.resourceTypeDefaults[0];
    if (!withDefaults) throw new Error("the sample has request defaults");
    const on = value(getAccessRequestDefaults(world, withDefaults.appId)) as Body;
    expect(on).toMatchObject({ defaultsEnabled: true, state: "APP_ACCESS_REQUEST_DEFAULTS_LAST_APPLY_STATE_SUCCESS" });
    const bare = [...world.index.apps.keys()].find((id) => !world.resourceTypeDefaults.some((d) => d.appId === id));
    if (!bare) throw new Error("the sample has an app without defaults");
    expect(value(getAccessRequestDefaults(world, bare))).toMatchObject({ defaultsEnabled: false, state: "APP_ACCESS_REQUEST_DEFAULTS_LAST_APPLY_STATE_UNSPECIFIED" });
  });
});

describe("openapi.yaml c1.api.app.v1.AppUserStatus.status: accounts answer the API's STATUS_* spelling", () => {
  it("whether the world file writes APP_USER_STATUS_* (the sample) or STATUS_* (a pulled tenant)", () => {
    const w = sampleWorld();
    const accounts = w.appUsers.filter((a) => (a.status?.status ?? "") !== "");
    expect(accounts.length).toBeGreaterThan(0);
    expect(accounts.some((a) => a.status?.status.startsWith("APP_USER_STATUS_"))).toBe(true);
    const allowed = ["STATUS_UNSPECIFIED", "STATUS_ENABLED", "STATUS_DISABLED", "STATUS_DELETED"];
    for (const a of accounts) {
      const wire = appUserWire(a)["status"] as { status: string; details: string };
      expect(allowed, a.id).toContain(wire.status);
      expect(wire.status.slice("STATUS_".length)).toBe((a.status?.status ?? "").replace(/^(APP_USER_)?STATUS_/, ""));
      expect(wire.details).toBe(a.status?.details ?? "");
      expect(appUserWire({ ...a, status: { status: wire.status, details: wire.details } })["status"]).toEqual(wire);
    }
  });
});
