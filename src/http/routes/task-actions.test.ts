/**
 * Loopback tests of every task action route of openapi.yaml (`/api/v1/tasks/{task_id}/action/…`)
 * and of task creation (`/api/v1/task/grant`, `/revoke`, `/offboarding`), through `serve` on
 * 127.0.0.1, with the sample tenant; every body validated against openapi.yaml.
 */
import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { decodeTask } from "../../codec/index.js";
import type { JsonObject } from "../../model/json.js";
import { reduce } from "../../reducers/reduce.js";
import { loadWorld } from "../../world/load-world.js";
import { findTask, type World } from "../../world/world.js";
import { type ErrorBody, GRPC_CODES } from "../error-body.js";
import { errorProblems, responseProblems } from "../openapi-validate.test-helper.js";
import { type RunningServer, serve } from "../server.js";
import type { MemoryWorldStore } from "../world-store.js";
import type { AuditEvent } from "../../workflow/events.js";

const fixture: World = (() => {
  const r = loadWorld(JSON.parse(readFileSync(new URL("../../../fixtures/world.json", import.meta.url), "utf8")));
  if (!r.ok) throw new Error("fixtures/world.json does not load");
  // Tokens for the approvers and requesters the scenarios need (the fixture has a few).
  return { ...r.value, tokens: { ...r.value.tokens, "tok-sre-lead": "u-sre-lead", "tok-fin1": "u-fin1", "tok-ciso": "u-ciso", "tok-sales3": "u-sales3" } };
})();

let server: RunningServer;
beforeEach(async () => {
  server = await serve({ world: fixture, port: 0 });
});
afterEach(async () => server.close());

/** The OpenAPI path template of a concrete path (`/api/v1/tasks/1001/action/approve` → `…/{task_id}/…`). */
const templateOf = (path: string): string => path.replace(/^\/api\/v1\/tasks\/[^/]+\/action\//, "/api/v1/tasks/{task_id}/action/");

async function post(path: string, body: unknown, token = "tok-super"): Promise<{ status: number; json: JsonObject }> {
  const r = await send(path, body, token);
  // openapi.yaml: every 2xx body validates against its operation's schema, every error body against google.rpc.Status.
  if (r.status === 200) expect(responseProblems("POST", templateOf(path), r.json)).toEqual([]);
  else expect(errorProblems(r.json)).toEqual([]);
  return r;
}

async function send(path: string, body: unknown, token: string): Promise<{ status: number; json: JsonObject }> {
  const res = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as JsonObject };
}
const act = (task: string, name: string, body: unknown, token?: string) => post(`/api/v1/tasks/${task}/action/${name}`, body, token);
const now = () => server.store.get();
const task = (id: string) => findTask(now(), id);
const viewTask = (body: JsonObject): JsonObject => ((body["taskView"] as JsonObject)["task"] as JsonObject);
const currentStepId = (id: string) => task(id)?.policy?.current?.id ?? "";

function expectOk(r: { status: number; json: JsonObject }): JsonObject {
  expect(r.status, JSON.stringify(r.json).slice(0, 400)).toBe(200);
  // Every task in a 200 body decodes with the codec (the wire shape of the OpenAPI's Task).
  expect(decodeTask(viewTask(r.json)).ok).toBe(true);
  return r.json;
}

describe("openapi.yaml TaskActionsService: every action over HTTP", () => {
  it("approve: the current step is approved, with ticketActionId", async () => {
    const step = currentStepId("1001");
    const body = expectOk(await act("1001", "approve", { policyStepId: step, comment: "fine for on-call" }, "tok-sre-lead"));
    expect(body["ticketActionId"]).toMatch(/^evt-/);
    const done = task("1001")?.policy?.history?.find((s) => s.id === step)?.instance;
    expect(done?.kind === "approval" && done.outcome?.kind).toBe("approved");
  });

  it("approve-with-step-up: the first call answers a redirectUrl, the verified one approves", async () => {
    const first = expectOk(await act("1021", "approve-with-step-up", { policyStepId: currentStepId("1021"), comment: "EMEA rules reviewed" }, "tok-ciso"));
    expect(first["redirectUrl"]).toMatch(/^https:\/\//);
    const tx = String(first["stepUpTransactionId"]);
    const second = expectOk(await act("1021", "approve-with-step-up", { policyStepId: currentStepId("1021"), stepUpTransactionId: tx }, "tok-ciso"));
    expect(second["ticketActionId"]).toMatch(/^evt-/);
  });

  it("close: the task closes, and the body names the action taskActionId as the OpenAPI does", async () => {
    const body = expectOk(await act("1024", "close", { comment: "requested by mistake" }, "tok-sales3"));
    expect(body["taskActionId"]).toMatch(/^evt-/);
    expect(body).not.toHaveProperty("ticketActionId");
    expect(task("1024")?.state).toBe("TASK_STATE_CLOSED");
  });

  it("comment: posted, commentCount up, no ticketActionId", async () => {
    const before = task("1002")?.commentCount ?? 0;
    const body = expectOk(await act("1002", "comment", { comment: "any news?" }));
    expect(body).not.toHaveProperty("ticketActionId");
    expect(task("1002")?.commentCount).toBe(before + 1);
  });

  it("deny: the task closes denied", async () => {
    expectOk(await act("1001", "deny", { policyStepId: currentStepId("1001"), comment: "not for contractors" }, "tok-sre-lead"));
    const t = task("1001");
    expect(t?.state).toBe("TASK_STATE_CLOSED");
    expect(t?.type?.kind === "grant" && t.type.outcome).toBe("GRANT_OUTCOME_DENIED");
  });

  it("escalate: the requester moves the grant to emergency access", async () => {
    expectOk(await act("1001", "escalate", { comment: "SEV-1" }, "tok-contractor"));
    expect(task("1001")?.emergencyAccess).toBe(true);
  });

  it("process: a refresh of the waiting step, which keeps waiting while its condition does not hold; the body is the task view alone", async () => {
    const step = currentStepId("1011");
    const body = expectOk(await act("1011", "process", {}));
    expect(Object.keys(body).sort()).toEqual(["expanded", "taskView"]);
    expect(currentStepId("1011")).toBe(step);
  });

  it("reassign: the step goes to the new users", async () => {
    expectOk(await act("1040", "reassign", { policyStepId: currentStepId("1040"), newStepUserIds: ["u-cto"], comment: "new manager" }));
    expect(task("1040")?.stepApproverIds).toEqual(["u-cto"]);
  });

  it("reset: a Hard Reset, with a new policy generation", async () => {
    const gen = task("1001")?.policyGenerationId;
    const body = expectOk(await act("1001", "reset", { comment: "policy changed" }));
    expect(body["ticketActionId"]).toMatch(/^evt-/);
    expect(task("1001")?.policyGenerationId).not.toBe(gen);
  });

  it("restart: a closed task reopens on its policy", async () => {
    expectOk(await act("1013", "restart", { comment: "re-review" }));
    expect(task("1013")?.state).toBe("TASK_STATE_OPEN");
  });

  it("retry-provisioning: the failed provision step is tried again", async () => {
    const body = expectOk(await act("1019", "retry-provisioning", {}));
    expect(body["ticketActionId"]).toMatch(/^evt-/);
  });

  it("skip-step: the current step is skipped", async () => {
    const step = currentStepId("1011");
    expectOk(await act("1011", "skip-step", { policyStepId: step, comment: "MFA done out of band" }));
    expect(task("1011")?.policy?.history?.some((s) => s.id === step)).toBe(true);
  });

  it("skip-step: a form or provision step is skipped too (the spec gives both a `skipped` outcome; product_how-to_access-change-tasks.mdx: \"move a task forward without waiting for a user or system to act\")", async () => {
    for (const id of ["1012", "1042", "1031"]) {
      const view = expectOk(await post(`/api/v1/tasks/${id}/action/comment`, { comment: "looking" }));
      expect(viewTask(view)["actions"], id).toContain("TASK_ACTION_TYPE_SKIP_STEP");
    }
    // 1012 waits at a form: the form ends skipped and its approval step starts.
    const form = currentStepId("1012");
    expectOk(await act("1012", "skip-step", { policyStepId: form, comment: "data given by phone" }));
    const formDone = task("1012")?.policy?.history?.find((s) => s.id === form)?.instance;
    expect(formDone?.kind === "form" && formDone.outcome?.kind).toBe("skipped");
    expect(task("1012")?.policy?.current?.instance?.kind).toBe("approval");
    // 1042 (a revoke) waits at a manual provision step, its last: skipped, the task closes revoked.
    const provision = currentStepId("1042");
    expectOk(await act("1042", "skip-step", { policyStepId: provision }));
    const provisionDone = task("1042")?.policy?.history?.find((s) => s.id === provision)?.instance;
    expect(provisionDone?.kind === "provision" && provisionDone.outcome?.kind).toBe("skipped");
    expect(task("1042")?.state).toBe("TASK_STATE_CLOSED");
    // An accept or action step has no skipped outcome: still refused.
    const others = [...now().tasks.values()].filter((t) => t.state === "TASK_STATE_OPEN" && (t.policy?.current?.instance?.kind === "accept" || t.policy?.current?.instance?.kind === "action"));
    for (const t of others) expect((await act(t.numericId, "skip-step", { policyStepId: t.policy?.current?.id })).status).toBe(400);
  });

  it("update-grant-duration: the approver changes the duration (product_how-to_access-change-tasks.mdx)", async () => {
    const body = expectOk(await act("1001", "update-grant-duration", { duration: "28800s" }, "tok-sre-lead"));
    expect(body["ticketActionId"]).toMatch(/^evt-/);
    const t = task("1001");
    expect(t?.type?.kind === "grant" && t.type.grantDuration).toBe("28800s");
    expect((viewTask(body)["type"] as JsonObject)["grant"]).toMatchObject({ grantDuration: "28800s" });
  });

  it("update-request-data: the form step's data, validated, completes the form", async () => {
    const step = currentStepId("1012");
    const data = { justification: "Quarter-end revenue close for EMEA (FIN-2291)", dataScope: "revenue", accessDays: "14", ticket: "FIN-2291", acknowledge: true };
    expectOk(await act("1012", "update-request-data", { data }, "tok-fin1"));
    const form = task("1012")?.policy?.history?.find((s) => s.id === step)?.instance;
    expect(form?.kind === "form" && form.data).toMatchObject({ justification: data.justification });
    const bad = await act("1025", "update-request-data", { data: { nope: 1 } });
    expect(bad.status).toBe(400);
    expect((bad.json as unknown as ErrorBody).code).toBe(GRPC_CODES.INVALID_ARGUMENT);
    // The refused field is named as the OpenAPI's body names it (`data`), not as the reducer does (`values`).
    const text = JSON.stringify(bad.json);
    expect(text).toContain("data.nope");
    expect(text).not.toContain('"values.');
  });

  it("the reducers' refusals keep their status: a stale policyStepId, a non-approver, a deleted task", async () => {
    expect((await act("1001", "approve", { policyStepId: "step-stale" }, "tok-sre-lead")).status).toBe(400);
    expect((await act("1001", "approve", { policyStepId: currentStepId("1001") }, "tok-user")).status).toBe(403);
    expect((await act("1001", "update-grant-duration", { duration: "3600s" }, "tok-user")).status).toBe(403);
    expect((await act("999999", "deny", {})).status).toBe(404);
  });

  it("escalate checks policyStepId as the current step (openapi.yaml: \"The ID of the current policy step being escalated from\") and its audit record keeps that step (TaskAuditEscalateToEmergencyAccess.oldPolicyStepId)", async () => {
    const stale = await act("1001", "escalate", { comment: "SEV-1", policyStepId: "no-such-step" }, "tok-contractor");
    expect(stale.status).toBe(400);
    expect(stale.json).toMatchObject({ code: GRPC_CODES.FAILED_PRECONDITION });
    const step = currentStepId("1001");
    const body = expectOk(await act("1001", "escalate", { comment: "SEV-1", policyStepId: step }, "tok-contractor"));
    const audits = await post("/api/v1/task/audits", { taskId: "1001", refs: [{ id: body["ticketActionId"] }] });
    expect(audits.status).toBe(200);
    expect((audits.json["list"] as JsonObject[])[0]?.["taskEscalated"]).toEqual({ oldPolicyId: "pol-prod-admin", oldPolicyStepId: step });
  });

  it("update-grant-duration leaves its audit record (TaskAuditView.grantDurationUpdated), the one its ticketActionId names", async () => {
    const body = expectOk(await act("1001", "update-grant-duration", { duration: "28800s" }, "tok-sre-lead"));
    const audits = await post("/api/v1/task/audits", { taskId: "1001", refs: [{ id: body["ticketActionId"] }] });
    expect(audits.json["list"]).toHaveLength(1);
    expect((audits.json["list"] as JsonObject[])[0]?.["grantDurationUpdated"]).toEqual({ duration: "28800s" });
  });

  it("a Hard Reset's rule records name the inline outcome in policyKey (openapi.yaml: outcomePolicyId is \"Empty when the outcome is an inline policy_key\")", async () => {
    expectOk(await act("1001", "reset", { comment: "re-route" }));
    const audits = await post("/api/v1/task/audits", { taskId: "1001" });
    const results = (audits.json["list"] as JsonObject[]).map((r) => r["conditionalPolicyExecutionResult"] as JsonObject | undefined).filter((r) => r !== undefined);
    const matched = results.find((r) => r["conditionMatched"] === true);
    expect(matched).toMatchObject({ outcomePolicyId: "", policyKey: "5650fd2e-58bd-4dab-a08a-7314c0a4d8a3" });
    // A rule that did not decide still names where it would have led.
    expect(results.every((r) => r["outcomePolicyId"] !== "" || r["policyKey"] !== "" || r["defaultCondition"] === true)).toBe(true);
  });

  it("refuses an approve, approve-with-step-up or skip-step without policyStepId (openapi.yaml: `required: - policyStepId`), the task untouched", async () => {
    for (const [id, name, token] of [
      ["1001", "approve", "tok-sre-lead"],
      ["1021", "approve-with-step-up", "tok-ciso"],
      ["1011", "skip-step", "tok-super"],
    ] as const) {
      const before = task(id);
      for (const body of [{}, { policyStepId: "" }, { comment: "ok", policyStepId: null }]) {
        const r = await act(id, name, body, token);
        expect(r.status, `${name} ${JSON.stringify(body)}`).toBe(400);
        expect(r.json).toMatchObject({ code: GRPC_CODES.INVALID_ARGUMENT, message: expect.stringContaining("policyStepId is required") });
      }
      // A value of another type is no missing one: the message says what came (SDK review F4).
      for (const [sent, shown] of [[5, "5"], [["x"], "a list"], [{ id: "x" }, "an object"]] as const) {
        const r = await act(id, name, { policyStepId: sent }, token);
        expect(r.status).toBe(400);
        expect(r.json).toMatchObject({ code: GRPC_CODES.INVALID_ARGUMENT, message: expect.stringContaining(`policyStepId must be a string, not ${shown}`) });
      }
      expect(task(id)).toBe(before);
      // With the step's id, the same call goes through.
      expectOk(await act(id, name, { policyStepId: currentStepId(id), comment: "ok" }, token));
    }
  });
});

describe("update-grant-duration (openapi.yaml: \"Only applies to grant tasks … not in a provision step … must not exceed the entitlement's maximum\")", () => {
  it("refuses a missing or malformed duration, a revoke task, and a task at its provision step", async () => {
    for (const duration of [undefined, null, "", "8h", "-5s", "0s", 3600]) {
      const r = await act("1001", "update-grant-duration", duration === undefined ? {} : { duration });
      expect(r.status, String(duration)).toBe(400);
      expect(JSON.stringify(r.json)).toContain("duration");
    }
    expect((await act("1036", "update-grant-duration", { duration: "3600s" })).json["message"]).toMatch(/not an access request/);
    expect((await act("1010", "update-grant-duration", { duration: "3600s" })).json["message"]).toMatch(/provision step/);
  });

  it("refuses a duration over the entitlement's durationGrant, and allows one within it", () => {
    const t = findTask(fixture, "1001");
    const grant = t?.type?.kind === "grant" ? t.type : undefined;
    if (!grant) throw new Error("1001 is a grant task");
    // The same tenant, the entitlement capped at 12 hours (the API's AppEntitlement.durationGrant).
    const json = JSON.parse(readFileSync(new URL("../../../fixtures/world.json", import.meta.url), "utf8")) as { entitlements: Record<string, unknown>[] };
    for (const e of json.entitlements) if (e["id"] === grant.appEntitlementId && e["appId"] === grant.appId) e["durationGrant"] = "43200s";
    const loaded = loadWorld(json);
    if (!loaded.ok) throw new Error("the capped world loads");
    const over = reduce(loaded.value, { type: "updateGrantDuration", taskId: "1001", duration: "86400s" }, { actorId: "u-it-dir" });
    expect(!over.ok && over.error).toMatchObject({ code: "INVALID_ARGUMENT", field: "duration" });
    expect(reduce(loaded.value, { type: "updateGrantDuration", taskId: "1001", duration: "43200s" }, { actorId: "u-it-dir" }).ok).toBe(true);
  });
});

describe("openapi.yaml TaskService: creating tasks resolves and starts them as a Hard Reset would", () => {
  it("grant: a new open task, its policy and steps those a Hard Reset of it then selects", async () => {
    const before = now().tasks.size;
    const body = expectOk(
      await post("/api/v1/task/grant", { appId: "app-aws", appEntitlementId: "ent-aws-prod-admin", description: "on-call rotation", grantDuration: "28800s" }, "tok-contractor"),
    );
    expect(now().tasks.size).toBe(before + 1);
    const created = viewTask(body);
    expect(created["state"]).toBe("TASK_STATE_OPEN");
    expect(created["origin"]).toBe("TASK_ORIGIN_API");
    expect((created["type"] as JsonObject)["grant"]).toMatchObject({ appEntitlementId: "ent-aws-prod-admin", identityUserId: "u-contractor", grantDuration: "28800s" });
    const id = String(created["id"]);
    const t = task(id);
    const policyId = t?.policy?.policy?.id;
    const kinds = [t?.policy?.current?.instance?.kind, ...(t?.policy?.next ?? []).map((s) => s.kind)];
    // What a Hard Reset of the new task selects is what creation started it on.
    const reset = reduce(now(), { type: "hardReset", taskId: id }, { actorId: "u-it-dir" });
    if (!reset.ok) throw new Error(reset.error.message);
    const r = findTask(reset.value.world, id);
    expect(r?.policy?.policy?.id).toBe(policyId);
    expect([r?.policy?.current?.instance?.kind, ...(r?.policy?.next ?? []).map((s) => s.kind)]).toEqual(kinds);
    // Hard Reset and creation evaluated the same rules, with the same results.
    const evals = (events: readonly AuditEvent[]) =>
      events.flatMap((e) => (e.kind === "conditionalPolicyExecutionResult" && e.taskId === id ? [[e.policyId, e.condition, e.conditionMatched, e.stepKey, e.outcomePolicyId]] : []));
    const log = (server.store as MemoryWorldStore).events();
    expect(evals(log).length).toBeGreaterThan(0);
    expect(evals(reset.value.events)).toEqual(evals(log));
  });

  it("grant: refusals name the field (both user fields, unknown entitlement, a bad duration, emergency not allowed, for someone else as a user)", async () => {
    const base = { appId: "app-aws", appEntitlementId: "ent-aws-prod-admin" };
    // Both user fields: the user's own account is accepted (as cone sends it), another user's is refused, an unknown one is not found.
    expect((await post("/api/v1/task/grant", { ...base, identityUserId: "u-dev1", appUserId: "au-aws-cfo" })).status).toBe(400);
    expect((await post("/api/v1/task/grant", { ...base, identityUserId: "u-dev1", appUserId: "au-x" })).status).toBe(404);
    expect((await post("/api/v1/task/grant", { appId: "app-aws", appEntitlementId: "nope" })).status).toBe(404);
    expect((await post("/api/v1/task/grant", { ...base, grantDuration: "2 days" })).json["message"]).toMatch(/grantDuration/);
    expect((await post("/api/v1/task/grant", {})).status).toBe(400);
    expect((await post("/api/v1/task/grant", { ...base, identityUserId: "u-dev2" }, "tok-user")).status).toBe(403);
  });

  it("revoke: for a grant the user holds; refused when they hold none", async () => {
    const g = now().grants[0];
    if (!g) throw new Error("the fixture has grants");
    const body = expectOk(await post("/api/v1/task/revoke", { appId: g.appId, appEntitlementId: g.appEntitlementId, identityUserId: g.identityUserId }));
    expect((viewTask(body)["type"] as JsonObject)["revoke"]).toMatchObject({ identityUserId: g.identityUserId, appEntitlementId: g.appEntitlementId });
    const holders = new Set(now().grants.filter((x) => x.appId === g.appId && x.appEntitlementId === g.appEntitlementId).map((x) => x.identityUserId));
    const other = [...now().index.users.keys()].find((u) => !holders.has(u)) ?? "";
    const none = await post("/api/v1/task/revoke", { appId: g.appId, appEntitlementId: g.appEntitlementId, identityUserId: other });
    expect(none.status).toBe(400);
  });

  it("offboarding: administrators only", async () => {
    expect((await post("/api/v1/task/offboarding", { subjectUserId: "u-contractor" }, "tok-user")).status).toBe(403);
    const r = await post("/api/v1/task/offboarding", { subjectUserId: "u-contractor", description: "contract ended" });
    // The tenant may have no offboarding policy: then creation fails as a Hard Reset would.
    if (r.status === 200) expect((viewTask(r.json)["type"] as JsonObject)["offboarding"]).toMatchObject({ subjectUserId: "u-contractor" });
    else expect(r.json["code"]).toBe(GRPC_CODES.FAILED_PRECONDITION);
  });
});
