/**
 * Entitlement configuration rule writes over HTTP (product_admin_entitlement-config-rules.mdx):
 * create, update, reorder and delete answer their operation's schema, the reads follow, a new task
 * is routed by the edited rules, and a rule the linter refuses is not written.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleWorld, type Body } from "../../test/helpers.js";
import { checkedCaller } from "./loopback.test-helper.js";
import { type RunningServer, serve } from "./server.js";

let server: RunningServer;
const RULES = "/api/v1/apps/{app_id}/entitlement_configuration_rules";
const RULE = `${RULES}/{id}`;
const REORDER = `${RULES}/reorder`;
const app = { app_id: "app-aws" };

const call = checkedCaller(() => server.url);

const listed = async () => (await call("GET", RULES, { params: app, body: undefined })).list.map((r: Body) => [r.id, r.priority]);
const policyOfNewTask = async () =>
  (await call("POST", "/api/v1/task/grant", { body: { appId: "app-aws", appEntitlementId: "ent-aws-staging-admin", identityUserId: "u-sre1" } })).taskView.task.policy.policy.id;

beforeAll(async () => {
  server = await serve({ world: sampleWorld(), port: 0 });
});
afterAll(async () => server.close());

describe("product_admin_entitlement-config-rules.mdx over HTTP: rules written through the API route later requests", () => {
  let staging = "";
  let catchAll = "";
  it("create: the rule routes a new request for a staging entitlement to its request policy", async () => {
    expect(await policyOfNewTask()).toBe("pol-aws-access");
    const created = await call("POST", RULES, {
      params: app,
      body: { displayName: "Staging", condition: 'entitlement.appResourceId == "res-aws-account-staging"', enabled: true, settings: { requestPolicyId: "pol-default-grant" } },
    });
    staging = created.routingRule.id;
    expect(created.routingRule).toMatchObject({ appId: "app-aws", priority: 1, enabled: true });
    expect((await call("GET", RULE, { params: { ...app, id: staging } })).routingRule.displayName).toBe("Staging");
    expect(await policyOfNewTask()).toBe("pol-default-grant");
  });
  it("create at slot 1 re-packs the others; reorder assigns 1..N in the order given", async () => {
    const created = await call("POST", RULES, { params: app, body: { displayName: "Catch-all", condition: "", enabled: true, priority: 1, settings: { requestPolicyId: "pol-security-review" } } });
    catchAll = created.routingRule.id;
    expect(await listed()).toEqual([[catchAll, 1], [staging, 2]]);
    expect(await policyOfNewTask()).toBe("pol-security-review");
    const reordered = await call("POST", REORDER, { params: app, body: { ruleIds: [staging, catchAll] } });
    expect(reordered.list.map((r: Body) => r.id)).toEqual([staging, catchAll]);
    expect(await listed()).toEqual([[staging, 1], [catchAll, 2]]);
    expect(await policyOfNewTask()).toBe("pol-default-grant");
  });
  it("update writes the fields sent and keeps the rest; a disabled rule routes nothing", async () => {
    const updated = await call("POST", RULE, { params: { ...app, id: staging }, body: { enabled: false, priority: 9 } });
    expect(updated.routingRule).toMatchObject({ id: staging, enabled: false, priority: 1, displayName: "Staging", condition: 'entitlement.appResourceId == "res-aws-account-staging"' });
    expect(await policyOfNewTask()).toBe("pol-security-review");
  });
  it("delete removes the rule; the reads and routing follow", async () => {
    expect(await call("DELETE", RULE, { params: { ...app, id: catchAll } })).toEqual({});
    expect(await listed()).toEqual([[staging, 1]]);
    await call("GET", RULE, { params: { ...app, id: catchAll }, expect: 404 });
    expect(await policyOfNewTask()).toBe("pol-aws-access");
  });
  it("refusals: CEL that does not check, a missing policy, a bad reorder (400); unknown app or rule (404); not a manager of the app (403)", async () => {
    const before = await listed();
    expect((await call("POST", RULES, { params: app, body: { condition: "subject.department ==", enabled: true }, expect: 400 })).code).toBe(3);
    expect((await call("POST", RULES, { params: app, body: { condition: "", settings: { requestPolicyId: "pol-nope" } }, expect: 400 })).code).toBe(3);
    expect((await call("POST", RULE, { params: { ...app, id: staging }, body: { enabled: "yes" }, expect: 400 })).code).toBe(3);
    expect((await call("POST", REORDER, { params: app, body: { ruleIds: [] }, expect: 400 })).code).toBe(3);
    expect((await call("POST", REORDER, { params: app, body: { ruleIds: [staging, staging] }, expect: 400 })).code).toBe(3);
    expect((await call("POST", RULE, { params: { ...app, id: "ecr-nope" }, body: {}, expect: 404 })).code).toBe(5);
    expect((await call("DELETE", RULE, { params: { ...app, id: "ecr-nope" }, expect: 404 })).code).toBe(5);
    expect((await call("POST", RULES, { params: { app_id: "app-nope" }, body: {}, expect: 404 })).code).toBe(5);
    expect((await call("POST", RULES, { params: app, body: {}, token: "tok-user", expect: 403 })).code).toBe(7);
    expect(await listed()).toEqual(before);
  });
});
