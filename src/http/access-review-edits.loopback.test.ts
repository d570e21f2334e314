/**
 * Campaign writes over HTTP (AccessReviewService Create and Update): each answers its operation's
 * schema, the reads follow, and a Hard Reset of a campaign's certify task resolves the campaign's
 * new policy (product_admin_manage-campaigns.mdx). Refusals answer google.rpc.Status.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleWorld, type Body } from "../../test/helpers.js";
import { checkedCaller } from "./loopback.test-helper.js";
import { type RunningServer, serve } from "./server.js";

let server: RunningServer;
const CREATE = "/api/v1/access_review";
const ONE = "/api/v1/access_review/{id}";

const call = checkedCaller(() => server.url);

beforeAll(async () => {
  server = await serve({ world: sampleWorld(), port: 0 });
});
afterAll(async () => server.close());

describe("product_admin_manage-campaigns.mdx over HTTP: a campaign's policy decides its review tasks", () => {
  it("update policyId: GET follows, and a Hard Reset of the campaign's task resolves the new policy", async () => {
    const reset = async () => (await call("POST", "/api/v1/tasks/{task_id}/action/reset", { params: { task_id: "1050" }, body: {} })).taskView.task.policy.policy.id;
    expect(await reset()).toBe("pol-certify-default");
    const updated = await call("POST", ONE, { params: { id: "ar-2026-q4" }, body: { accessReview: { policyId: "pol-certify-manager", displayName: "kept" }, updateMask: "policy_id" } });
    expect(updated.accessReview.accessReview).toMatchObject({ id: "ar-2026-q4", policyId: "pol-certify-manager", displayName: "Q4 2026 quarterly access review" });
    expect((await call("GET", ONE, { params: { id: "ar-2026-q4" } })).accessReview.accessReview.policyId).toBe("pol-certify-manager");
    expect(await reset()).toBe("pol-certify-manager");
  });
  it("create: a new campaign is listed and got, with its owners", async () => {
    const created = await call("POST", CREATE, { body: { displayName: "Q1 2027", policyId: "pol-certify-default", ownerIds: ["u-hr-dir"], description: "" } });
    const id = created.accessReview.accessReview.id;
    expect(created.accessReview.accessReview).toMatchObject({ displayName: "Q1 2027", policyId: "pol-certify-default", ownerUserIds: ["u-hr-dir"] });
    const listed = await call("GET", "/api/v1/access_reviews", { body: undefined });
    expect(listed.list.map((v: Body) => v.accessReview.id)).toContain(id);
  });
  it("refusals: unmodelled fields, a missing policy, an unknown field in the mask (400); unknown campaign or owner (404); a Campaign Administrator on another's campaign (403)", async () => {
    expect((await call("POST", CREATE, { body: { displayName: "x", description: "scoped" }, expect: 400 })).code).toBe(3);
    expect((await call("POST", CREATE, { body: { displayName: "x", scopeType: "ACCESS_REVIEW_SCOPE_TYPE_BY_USERS" }, expect: 400 })).code).toBe(3);
    expect((await call("POST", CREATE, { body: { displayName: "x", policyId: "pol-nope" }, expect: 400 })).code).toBe(3);
    expect((await call("POST", CREATE, { body: { displayName: "x", ownerIds: ["u-nope"] }, expect: 404 })).code).toBe(5);
    expect((await call("POST", ONE, { params: { id: "ar-2026-q3" }, body: { accessReview: {}, updateMask: "state" }, expect: 400 })).code).toBe(3);
    expect((await call("POST", ONE, { params: { id: "ar-nope" }, body: { accessReview: {} }, expect: 404 })).code).toBe(5);
    // u-sec-eng is a Campaign Administrator who owns ar-2026-q4-critical, not ar-2026-q3.
    expect((await call("POST", ONE, { params: { id: "ar-2026-q3" }, body: { accessReview: { displayName: "x" } }, token: "tok-admin", expect: 403 })).code).toBe(7);
    await call("POST", ONE, { params: { id: "ar-2026-q4-critical" }, body: { accessReview: { displayName: "SOX (renamed)" } }, token: "tok-admin" });
    expect((await call("POST", CREATE, { body: { displayName: "x" }, token: "tok-user", expect: 403 })).code).toBe(7);
  });
});

describe("openapi.yaml AccessReviewService.Delete (Terraform's access review destroy)", () => {
  it("a campaign no task names is deleted: got 404 and no longer listed; one its tasks name is refused and stays", async () => {
    const id = (await call("POST", CREATE, { body: { displayName: "Short-lived review", policyId: "pol-certify-default" } })).accessReview.accessReview.id;
    expect(await call("DELETE", ONE, { params: { id }, body: {} })).toEqual({});
    expect((await call("GET", ONE, { params: { id }, expect: 404 })).code).toBe(5);
    expect((await call("GET", "/api/v1/access_reviews", {})).list.map((v: Body) => v.accessReview.id)).not.toContain(id);
    expect((await call("DELETE", ONE, { params: { id }, body: {}, expect: 404 })).code).toBe(5);
    const refused = await call("DELETE", ONE, { params: { id: "ar-2026-q4" }, body: {}, expect: 400 });
    expect(refused.code).toBe(9);
    expect(refused.message).toMatch(/access review "ar-2026-q4" cannot be deleted: tasks? .* names? it/);
    expect((await call("GET", ONE, { params: { id: "ar-2026-q4" } })).accessReview.accessReview.id).toBe("ar-2026-q4");
    expect((await call("DELETE", ONE, { params: { id: "ar-2026-q3" }, body: {}, token: "tok-admin", expect: 403 })).code).toBe(7);
  });
});
