/**
 * Access-request defaults writes over HTTP (product_admin_access-requests.mdx): Create answers the
 * app's AppAccessRequestDefaults, GET follows it, and a new request for an entitlement of those
 * resource types resolves the defaults' request policy; Cancel changes nothing. Refusals answer
 * google.rpc.Status.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleWorld, type Body } from "../../test/helpers.js";
import { checkedCaller } from "./loopback.test-helper.js";
import { type RunningServer, serve } from "./server.js";

let server: RunningServer;
const PATH = "/api/v1/apps/{app_id}/access_request_defaults";
const CANCEL = `${PATH}/cancel`;
const params = { app_id: "app-pagerduty" };

const call = checkedCaller(() => server.url);

const policyOfNewTask = async (appEntitlementId: string) =>
  (await call("POST", "/api/v1/task/grant", { body: { appId: "app-pagerduty", appEntitlementId, identityUserId: "u-dev2" } })).taskView.task.policy.policy.id;

beforeAll(async () => {
  server = await serve({ world: sampleWorld(), port: 0 });
});
afterAll(async () => server.close());

describe("product_admin_access-requests.mdx over HTTP: an app's request defaults route requests for its resource types", () => {
  it("create: GET answers the defaults, and a role request resolves their policy while a team request does not", async () => {
    expect(await policyOfNewTask("ent-pd-responder")).toBe("pol-default-grant");
    const set = await call("POST", PATH, {
      params,
      body: { defaultsEnabled: true, resourceTypeIds: ["rt-role"], requestPolicyId: "pol-security-review", durationGrant: "86400s", catalogIds: [], requestSchemaId: "" },
    });
    expect(set).toMatchObject({ appId: "app-pagerduty", defaultsEnabled: true, resourceTypeIds: ["rt-role"], requestPolicyId: "pol-security-review", durationGrant: "86400s" });
    expect(await call("GET", PATH, { params })).toEqual(set);
    expect(await policyOfNewTask("ent-pd-responder")).toBe("pol-security-review");
    expect(await policyOfNewTask("ent-pd-team-sre")).toBe("pol-default-grant");
  });
  it("cancel changes nothing; defaultsEnabled false removes the defaults", async () => {
    const before = await call("GET", PATH, { params });
    expect(await call("POST", CANCEL, { params, body: {} })).toEqual(before);
    const off = await call("POST", PATH, { params, body: { defaultsEnabled: false } });
    expect(off).toMatchObject({ defaultsEnabled: false, requestPolicyId: "" });
    expect(await policyOfNewTask("ent-pd-responder")).toBe("pol-default-grant");
  });
  it("refusals: a missing policy, a bad duration, unmodelled catalogs and schemas (400), an unknown app (404), not a manager of the app (403)", async () => {
    expect((await call("POST", PATH, { params, body: { defaultsEnabled: true, requestPolicyId: "pol-nope" }, expect: 400 })).code).toBe(3);
    expect((await call("POST", PATH, { params, body: { defaultsEnabled: true, durationGrant: "1 day" }, expect: 400 })).code).toBe(3);
    expect((await call("POST", PATH, { params, body: { defaultsEnabled: true, catalogIds: ["cat-1"] }, expect: 400 })).code).toBe(3);
    expect((await call("POST", PATH, { params, body: { defaultsEnabled: true, requestSchemaId: "rs-1" }, expect: 400 })).code).toBe(3);
    expect((await call("POST", PATH, { params: { app_id: "app-nope" }, body: {}, expect: 404 })).code).toBe(5);
    expect((await call("POST", CANCEL, { params: { app_id: "app-nope" }, body: {}, expect: 404 })).code).toBe(5);
    expect((await call("POST", PATH, { params, body: {}, token: "tok-user", expect: 403 })).code).toBe(7);
    expect((await call("GET", PATH, { params })).defaultsEnabled).toBe(false);
  });
});
