/**
 * `POST /api/v1/users/{user_id}/set-delegation-by-admin` over HTTP: the answer validates against the
 * OpenAPI, a task created afterwards goes to the delegate, a task created before stays with the
 * user (product_admin_delegate.mdx), and refusals answer google.rpc.Status.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleWorld, type Body } from "../../test/helpers.js";
import { errorProblems, responseProblems } from "./openapi-validate.test-helper.js";
import { type RunningServer, serve } from "./server.js";
import { setDelegationByAdmin } from "./routes/delegation-edits.js";
import { delegateFor } from "../workflow/delegation.js";

let server: RunningServer;
const PATH = "/api/v1/users/{user_id}/set-delegation-by-admin";

async function post(path: string, body: unknown, token = "tok-super"): Promise<{ status: number; body: Body }> {
  const res = await fetch(`${server.url}${path}`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

async function delegate(userId: string, body: unknown, expectStatus = 200, token = "tok-super"): Promise<Body> {
  const r = await post(`/api/v1/users/${encodeURIComponent(userId)}/set-delegation-by-admin`, body, token);
  expect(r.status, JSON.stringify(r.body)).toBe(expectStatus);
  expect(r.status === 200 ? responseProblems("POST", PATH, r.body) : errorProblems(r.body)).toEqual([]);
  return r.body;
}

/** A new grant request of u-sre1 for AWS staging admin (high risk): pol-aws-access's manager step (delegation allowed) goes to u-sre-lead. */
async function newStagingTask(): Promise<Body> {
  const r = await post("/api/v1/task/grant", { appId: "app-aws", appEntitlementId: "ent-aws-staging-admin", identityUserId: "u-sre1" });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.taskView.task;
}

beforeAll(async () => {
  server = await serve({ world: sampleWorld(), port: 0 });
});
afterAll(async () => server.close());

describe("product_admin_delegate.mdx: an administrator sets a delegate; tasks created while it is set go to the delegate", () => {
  it("before: u-sre-lead; after setting u-dev3 as delegate: u-dev3; after removing it: u-sre-lead again", async () => {
    expect((await newStagingTask()).stepApproverIds).toEqual(["u-sre-lead"]);
    const set = await delegate("u-sre-lead", { delegatedUserId: "u-dev3", delegationExpireAt: "2999-01-01t00:00:00z" });
    expect(set.item).toMatchObject({ userId: "u-sre-lead", delegatedUserId: "u-dev3", expirationAt: "2999-01-01T00:00:00Z" });
    expect(server.store.get().index.users.get("u-sre-lead")?.delegatedUserId).toBe("u-dev3");
    expect((await newStagingTask()).stepApproverIds).toEqual(["u-dev3"]);
    expect(await delegate("u-sre-lead", { delegatedUserId: "" })).toEqual({ item: null });
    expect((await newStagingTask()).stepApproverIds).toEqual(["u-sre-lead"]);
  });
  it("openapi.yaml (date-time, protojson): a window the Go SDK sends with its local offset and nanoseconds is answered in UTC with Z, the same instant", async () => {
    const set = await delegate("u-sre-lead", { delegatedUserId: "u-dev3", delegationStartAt: "2026-11-22T10:00:00.123456789+01:00", delegationExpireAt: "2999-01-01T00:00:00-05:30" });
    expect(set.item).toMatchObject({ startAt: "2026-11-22T09:00:00.123456789Z", expirationAt: "2999-01-01T05:30:00Z" });
    expect(await delegate("u-sre-lead", { delegatedUserId: "" })).toEqual({ item: null });
  });
  it("a delegation starting later leaves tasks created now with the user", async () => {
    await delegate("u-sre-lead", { delegatedUserId: "u-dev3", delegationStartAt: "2999-01-01T00:00:00Z" });
    expect((await newStagingTask()).stepApproverIds).toEqual(["u-sre-lead"]);
    await delegate("u-sre-lead", { delegatedUserId: "" });
  });
  it("\"C1 cannot retroactively reassign tasks to your delegate if you set a start date in the past\": a start before now takes effect now", () => {
    const world = sampleWorld();
    const admin = world.index.users.get("u-it-dir")!;
    const set = setDelegationByAdmin(world, admin, "u-sre-lead", { delegatedUserId: "u-dev3", delegationStartAt: "2026-11-01T00:00:00Z" }, "2026-11-22T10:00:00Z");
    if (!set.ok) throw new Error(set.error.message);
    expect((set.value.body["item"] as Body)["startAt"]).toBe("2026-11-22T10:00:00Z");
    const lead = set.value.world.index.users.get("u-sre-lead")!;
    // A task created at 09:00, before the delegate was set at 10:00, stays with the user; one created after goes to the delegate.
    expect(delegateFor(lead, "2026-11-22T09:00:00Z").delegateId).toBe("");
    expect(delegateFor(lead, "2026-11-22T11:00:00Z").delegateId).toBe("u-dev3");
  });

  it("refusals: not a Super Administrator (403), unknown user or delegate (404), self, bad or inverted times (400)", async () => {
    expect((await delegate("u-sre-lead", { delegatedUserId: "u-sre1" }, 403, "tok-admin")).code).toBe(7);
    expect((await delegate("u-nope", { delegatedUserId: "u-sre1" }, 404)).code).toBe(5);
    expect((await delegate("u-sre-lead", { delegatedUserId: "u-nope" }, 404)).code).toBe(5);
    expect((await delegate("u-sre-lead", { delegatedUserId: "u-sre-lead" }, 400)).code).toBe(3);
    expect((await delegate("u-sre-lead", { delegatedUserId: "u-dev3", delegationExpireAt: "tomorrow" }, 400)).code).toBe(3);
    const inverted = { delegatedUserId: "u-sre1", delegationStartAt: "2030-01-02T00:00:00Z", delegationExpireAt: "2030-01-01T00:00:00Z" };
    expect((await delegate("u-sre-lead", inverted, 400)).code).toBe(3);
    expect(server.store.get().index.users.get("u-sre-lead")?.delegatedUserId).toBe("");
  });
});
