/**
 * Owner edits over HTTP (`AppOwners`, `AppEntitlementOwners` Add, Remove, Set, Delete): each answers
 * the OpenAPI's empty response, changes what the owner reads answer, and changes who a later Hard
 * Reset routes an owners approval step to. Refusals answer google.rpc.Status.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleJson, worldOf, type Body } from "../../test/helpers.js";
import { OWNER_WRITE_ROUTES } from "./routes/owners.js";
import { findEntitlement } from "../world/world.js";
import { checkedCaller } from "./loopback.test-helper.js";
import { type RunningServer, serve } from "./server.js";

let server: RunningServer;
const called = new Set<string>();

const call = checkedCaller(() => server.url, { onCall: (route) => called.add(route) });

const APP = "/api/v1/apps/{app_id}/owners";
const APP_ONE = "/api/v1/apps/{app_id}/owners/{user_id}";
const ENT = "/api/v1/apps/{app_id}/entitlements/{entitlement_id}/owners";
const ENT_ONE = "/api/v1/apps/{app_id}/entitlements/{entitlement_id}/owners/{user_id}";
const appOwners = async (appId: string) => (await call("GET", "/api/v1/apps/{app_id}/ownerids", { params: { app_id: appId } })).userIds;
const entOwners = async (appId: string, entitlementId: string) =>
  (await call("GET", "/api/v1/apps/{app_id}/entitlements/{entitlement_id}/ownerids", { params: { app_id: appId, entitlement_id: entitlementId } })).userIds;

beforeAll(async () => {
  const json = sampleJson() as Body;
  server = await serve({ world: worldOf({ ...json, tokens: { ...json.tokens, "tok-app-admin": "u-it2" } }), port: 0 });
});
afterAll(async () => server.close());

describe("openapi.yaml AppOwners: Add, Remove, Set, Delete", () => {
  it("each edit answers {} and the owner reads follow it", async () => {
    const params = { app_id: "app-pagerduty" };
    expect(await call("POST", APP_ONE, { params: { ...params, user_id: "u-dev1" } })).toEqual({});
    expect(await appOwners("app-pagerduty")).toEqual(["u-sre-lead", "u-dev1"]);
    await call("POST", APP_ONE, { params: { ...params, user_id: "u-dev1" } });
    expect(await appOwners("app-pagerduty")).toEqual(["u-sre-lead", "u-dev1"]);
    await call("DELETE", APP_ONE, { params: { ...params, user_id: "u-sre-lead" } });
    expect(await appOwners("app-pagerduty")).toEqual(["u-dev1"]);
    await call("PUT", APP, { params, body: { userIds: ["u-dev2", "u-dev3", "u-dev2"] } });
    expect(await appOwners("app-pagerduty")).toEqual(["u-dev2", "u-dev3"]);
    await call("DELETE", APP, { params, body: { userIds: ["u-dev2"] } });
    expect(await appOwners("app-pagerduty")).toEqual(["u-dev3"]);
    await call("DELETE", APP, { params });
    expect(await appOwners("app-pagerduty")).toEqual([]);
  });
  it("an unknown app or user is NOT_FOUND (404); a malformed userIds INVALID_ARGUMENT (400)", async () => {
    expect((await call("POST", APP_ONE, { params: { app_id: "app-nope", user_id: "u-dev1" }, expect: 404 })).code).toBe(5);
    expect((await call("POST", APP_ONE, { params: { app_id: "app-aws", user_id: "u-nope" }, expect: 404 })).code).toBe(5);
    expect((await call("PUT", APP, { params: { app_id: "app-aws" }, body: { userIds: ["u-nope"] }, expect: 404 })).code).toBe(5);
    expect((await call("PUT", APP, { params: { app_id: "app-aws" }, body: { userIds: "u-dev1" }, expect: 400 })).code).toBe(3);
    expect(await appOwners("app-aws")).toEqual(["u-sre-lead", "u-it-dir"]);
  });
});

describe("product_admin_user-roles.mdx: Applications are managed by Super Administrators, and by Application Administrators on the apps they own", () => {
  it("a basic user is PERMISSION_DENIED (403); an Application Administrator edits the app they own, not another", async () => {
    expect((await call("POST", APP_ONE, { params: { app_id: "app-aws", user_id: "u-dev1" }, token: "tok-user", expect: 403 })).code).toBe(7);
    await call("POST", APP_ONE, { params: { app_id: "app-okta", user_id: "u-dev1" }, token: "tok-app-admin" });
    expect(await appOwners("app-okta")).toContain("u-dev1");
    await call("PUT", ENT, { params: { app_id: "app-aws", entitlement_id: "ent-aws-prod-admin" }, body: { userIds: ["u-dev1"] }, token: "tok-app-admin", expect: 403 });
  });
});

describe("openapi.yaml AppEntitlementOwners: Add, Remove, Set, Delete", () => {
  it("each edit answers {} and the owner reads follow it", async () => {
    const params = { app_id: "app-aws", entitlement_id: "ent-aws-staging-dev" };
    expect(await call("POST", ENT, { params, body: { userId: "u-dev1" } })).toEqual({});
    expect(await entOwners("app-aws", "ent-aws-staging-dev")).toEqual(["u-eng-mgr", "u-dev1"]);
    await call("DELETE", ENT_ONE, { params: { ...params, user_id: "u-eng-mgr" } });
    expect(await entOwners("app-aws", "ent-aws-staging-dev")).toEqual(["u-dev1"]);
    await call("PUT", ENT, { params, body: { userIds: ["u-dev2"] } });
    expect(await entOwners("app-aws", "ent-aws-staging-dev")).toEqual(["u-dev2"]);
    await call("DELETE", ENT, { params });
    expect(await entOwners("app-aws", "ent-aws-staging-dev")).toEqual([]);
    expect((await call("POST", ENT, { params, body: {}, expect: 400 })).code).toBe(3);
    expect((await call("POST", ENT, { params: { ...params, entitlement_id: "ent-nope" }, body: { userId: "u-dev1" }, expect: 404 })).code).toBe(5);
  });
});

describe("000 spec, owner approval steps: a Hard Reset after an owner edit routes the step to the new owners", () => {
  const reset = async (id: string): Promise<Body> => {
    const res = await fetch(`${server.url}/api/v1/tasks/${id}/action/reset`, { method: "POST", headers: { authorization: "Bearer tok-super" }, body: "{}" });
    expect(res.status).toBe(200);
    return ((await res.json()) as Body).taskView.task;
  };
  it("app owners (task 1030, an appOwners step on app-okta)", async () => {
    await call("PUT", APP, { params: { app_id: "app-okta" }, body: { userIds: ["u-cfo"] } });
    expect((await reset("1030")).stepApproverIds).toEqual(["u-cfo"]);
  });
  it("entitlement owners (task 1045, an entitlementOwners review step on ent-aws-prod-admin)", async () => {
    const before = (await call("GET", "/api/v1/tasks/{id}", { params: { id: "1045" } })).taskView.task.stepApproverIds;
    expect(before).toEqual(["u-ciso"]);
    await call("PUT", ENT, { params: { app_id: "app-aws", entitlement_id: "ent-aws-prod-admin" }, body: { userIds: ["u-cfo"] } });
    expect((await reset("1045")).stepApproverIds).toEqual(["u-cfo"]);
  });
});

describe("coverage", () => {
  it("every owner write route was called", () => {
    expect(OWNER_WRITE_ROUTES.map((r) => `${r.method} ${r.path}`).filter((r) => !called.has(r))).toEqual([]);
  });
});

describe("an entitlement whose id is a literal segment of another route (grpc-gateway's ServeMux matches the request's method first)", () => {
  it("`users` under /apps/{app_id}/entitlements/{entitlement_id}/owners takes owners, though GET …/entitlements/users/{app_user_id} is a route", async () => {
    const json = sampleJson() as Body;
    const source = (json.entitlements as Body[]).find((e) => e.appId === "app-pagerduty") as Body;
    const own = await serve({ world: worldOf({ ...json, entitlements: [...(json.entitlements as Body[]), { ...source, id: "users", ownerUserIds: [] }] }), port: 0 });
    try {
      const ownCall = checkedCaller(() => own.url);
      const params = { app_id: "app-pagerduty", entitlement_id: "users" };
      // Its GETs stay ambiguous (GET …/entitlements/users/{app_user_id} is tried first): read the world.
      const owners = async () => findEntitlement(own.store.get(), "app-pagerduty", "users")?.ownerUserIds;
      expect(await ownCall("POST", ENT, { params, body: { userId: "u-dev1" } })).toEqual({});
      expect(await owners()).toEqual(["u-dev1"]);
      expect(await ownCall("PUT", ENT, { params, body: { userIds: ["u-dev2", "u-dev1"] } })).toEqual({});
      expect(await owners()).toEqual(["u-dev2", "u-dev1"]);
      expect(await ownCall("DELETE", ENT_ONE, { params: { ...params, user_id: "u-dev2" } })).toEqual({});
      expect(await owners()).toEqual(["u-dev1"]);
      expect(await ownCall("DELETE", ENT, { params })).toEqual({});
      expect(await owners()).toEqual([]);
    } finally {
      await own.close();
    }
  });
});
