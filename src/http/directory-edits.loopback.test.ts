/**
 * Apps.Update and AppEntitlements.Update over HTTP: each answers its operation's schema, the reads
 * follow, and the policies they name are what later Hard Resets and new tasks resolve (000 spec,
 * policy resolution: entitlement, then app, then the tenant default). Refusals answer google.rpc.Status.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleJson, worldOf, type Body } from "../../test/helpers.js";
import { checkedCaller } from "./loopback.test-helper.js";
import { type RunningServer, serve } from "./server.js";

let server: RunningServer;
const APP = "/api/v1/apps/{id}";
const ENT = "/api/v1/apps/{app_id}/entitlements/{id}";

const call = checkedCaller(() => server.url);

const policyOf = (task: Body): string => task.policy.policy.id;
const newTask = async (appId: string, appEntitlementId: string, identityUserId: string) =>
  (await call("POST", "/api/v1/task/grant", { body: { appId, appEntitlementId, identityUserId } })).taskView.task;

beforeAll(async () => {
  const json = sampleJson() as Body;
  server = await serve({ world: worldOf({ ...json, tokens: { ...json.tokens, "tok-app-admin": "u-it2" } }), port: 0 });
});
afterAll(async () => server.close());

describe("openapi.yaml AppEntitlements.Update: the entitlement's grant policy decides new tasks", () => {
  it("updateMask grantPolicyId: GET answers it, and a new request resolves that policy", async () => {
    const params = { app_id: "app-aws", id: "ent-aws-staging-admin" };
    expect(policyOf(await newTask("app-aws", "ent-aws-staging-admin", "u-sre1"))).toBe("pol-aws-access");
    const updated = await call("POST", ENT, { params, body: { entitlement: { grantPolicyId: "pol-default-grant", displayName: "ignored" }, updateMask: "grantPolicyId" } });
    expect(updated.appEntitlementView.appEntitlement.grantPolicyId).toBe("pol-default-grant");
    const got = await call("GET", ENT, { params });
    expect(got.appEntitlementView.appEntitlement.grantPolicyId).toBe("pol-default-grant");
    expect(got.appEntitlementView.appEntitlement.displayName).not.toBe("ignored");
    expect(policyOf(await newTask("app-aws", "ent-aws-staging-admin", "u-sre1"))).toBe("pol-default-grant");
  });
  it("snake_case masks, several fields, and no mask (every writable field set)", async () => {
    const params = { app_id: "app-aws", id: "ent-aws-billing" };
    await call("POST", ENT, { params, body: { entitlement: { risk_level_value_id: "x", riskLevelValueId: "critical", emergencyGrantEnabled: true }, updateMask: "risk_level_value_id,emergency_grant_enabled" } });
    expect((await call("GET", ENT, { params })).appEntitlementView.appEntitlement).toMatchObject({ riskLevelValueId: "critical", emergencyGrantEnabled: true });
    await call("POST", ENT, { params, body: { entitlement: { displayName: "AWS billing (renamed)" } } });
    expect((await call("GET", ENT, { params })).appEntitlementView.appEntitlement).toMatchObject({ displayName: "AWS billing (renamed)", riskLevelValueId: "critical" });
  });
  it("refusals: unknown app or entitlement (404), a missing policy, an unmodelled field or a wrong type (400), not a manager of the app (403)", async () => {
    const params = { app_id: "app-aws", id: "ent-aws-billing" };
    expect((await call("POST", ENT, { params: { ...params, id: "ent-nope" }, body: { entitlement: {} }, expect: 404 })).code).toBe(5);
    expect((await call("POST", ENT, { params: { ...params, app_id: "app-nope" }, body: { entitlement: {} }, expect: 404 })).code).toBe(5);
    expect((await call("POST", ENT, { params, body: { entitlement: { grantPolicyId: "pol-nope" }, updateMask: "grantPolicyId" }, expect: 400 })).code).toBe(3);
    // A grant field takes a grant policy: a revoke policy would route requests through revoke steps.
    const wrongType = await call("POST", ENT, { params, body: { entitlement: { grantPolicyId: "pol-revoke-standard" }, updateMask: "grantPolicyId" }, expect: 400 });
    expect(wrongType.message).toContain("a POLICY_TYPE_REVOKE policy; it takes a POLICY_TYPE_GRANT policy");
    expect((await call("POST", ENT, { params, body: { entitlement: { notAField: "x" }, updateMask: "notAField" }, expect: 400 })).code).toBe(3);
    expect((await call("POST", ENT, { params, body: { entitlement: { durationGrant: "8 hours" }, updateMask: "durationGrant" }, expect: 400 })).code).toBe(3);
    expect((await call("POST", ENT, { params, body: { entitlement: { emergencyGrantEnabled: "yes" }, updateMask: "emergencyGrantEnabled" }, expect: 400 })).code).toBe(3);
    expect((await call("POST", ENT, { params, body: {}, expect: 400 })).code).toBe(3);
    expect((await call("POST", ENT, { params, body: { entitlement: { displayName: "x" } }, token: "tok-app-admin", expect: 403 })).code).toBe(7);
  });
});

describe("openapi.yaml AppEntitlements.Update and Apps.Update: description and durationGrant are written too (SDK review)", () => {
  it("durationGrant caps the grant durations later requests may ask for; description reads back; null clears", async () => {
    const params = { app_id: "app-aws", id: "ent-aws-staging-admin" };
    const updated = await call("POST", ENT, { params, body: { entitlement: { description: "staging admin", durationGrant: "3600s" }, updateMask: "description,durationGrant" } });
    expect(updated.appEntitlementView.appEntitlement).toMatchObject({ description: "staging admin", durationGrant: "3600s" });
    expect((await call("GET", ENT, { params })).appEntitlementView.appEntitlement).toMatchObject({ description: "staging admin", durationGrant: "3600s" });
    const body = { appId: "app-aws", appEntitlementId: "ent-aws-staging-admin", identityUserId: "u-sre1", grantDuration: "7200s" };
    expect((await call("POST", "/api/v1/task/grant", { body, expect: 400 })).message).toMatch(/longer than|at most|3600s/);
    await call("POST", ENT, { params, body: { entitlement: { durationGrant: null }, updateMask: "durationGrant" } });
    expect((await call("GET", ENT, { params })).appEntitlementView.appEntitlement.durationGrant ?? null).toBeNull();
    expect((await call("POST", "/api/v1/task/grant", { body })).taskView.task.type.grant.grantDuration).toBe("7200s");
  });
  it("an app's description, by mask or without one", async () => {
    const params = { id: "app-aws" };
    await call("POST", APP, { params, body: { app: { description: "Amazon Web Services" }, updateMask: "description" } });
    expect((await call("GET", APP, { params })).app.description).toBe("Amazon Web Services");
    await call("POST", APP, { params, body: { app: { description: "AWS, all accounts" } } });
    expect((await call("GET", APP, { params })).app.description).toBe("AWS, all accounts");
  });
});

describe("openapi.yaml Apps.Update: the app's grant policy decides requests for entitlements without one", () => {
  it("a new request and a Hard Reset of an open one resolve the app's new grant policy", async () => {
    expect(policyOf(await newTask("app-pagerduty", "ent-pd-responder", "u-dev2"))).toBe("pol-default-grant");
    const updated = await call("POST", APP, { params: { id: "app-pagerduty" }, body: { app: { grantPolicyId: "pol-security-review" }, updateMask: "grantPolicyId" } });
    expect(updated.app).toMatchObject({ id: "app-pagerduty", grantPolicyId: "pol-security-review" });
    expect((await call("GET", APP, { params: { id: "app-pagerduty" } })).app.grantPolicyId).toBe("pol-security-review");
    expect(policyOf(await newTask("app-pagerduty", "ent-pd-responder", "u-dev2"))).toBe("pol-security-review");
    const reset = await call("POST", "/api/v1/tasks/{task_id}/action/reset", { params: { task_id: "1008" }, body: {} });
    expect(policyOf(reset.taskView.task)).toBe("pol-security-review");
  });
  it("an Application Administrator updates the app they own; refusals answer the status body", async () => {
    const r = await call("POST", APP, { params: { id: "app-okta" }, body: { app: { displayName: "Okta (prod)" }, updateMask: "display_name" }, token: "tok-app-admin" });
    expect(r.app.displayName).toBe("Okta (prod)");
    expect((await call("POST", APP, { params: { id: "app-aws" }, body: { app: { displayName: "x" } }, token: "tok-app-admin", expect: 403 })).code).toBe(7);
    expect((await call("POST", APP, { params: { id: "app-nope" }, body: { app: {} }, expect: 404 })).code).toBe(5);
    expect((await call("POST", APP, { params: { id: "app-aws" }, body: { app: { id: "app-github" } }, expect: 400 })).code).toBe(3);
    expect((await call("POST", APP, { params: { id: "app-aws" }, body: { app: {}, updateMask: 7 }, expect: 400 })).code).toBe(3);
  });
});

describe("openapi.yaml Apps.Create and product_admin_user-roles.mdx (Application Administrators \"create new applications\")", () => {
  it("a new manual app reads back, lists, and decides requests through the policy it names", async () => {
    const created = (await call("POST", "/api/v1/apps", { body: { displayName: "Payroll", description: "Payroll system", grantPolicyId: "pol-prod-admin", owners: ["u-it2"], monthlyCostUsd: 12 } })).app;
    expect(created).toMatchObject({ displayName: "Payroll", description: "Payroll system", grantPolicyId: "pol-prod-admin", monthlyCostUsd: 12, isManuallyManaged: true });
    expect(created.id).toMatch(/^app-\d{6}$/);
    const read = (await call("GET", APP, { params: { id: created.id } })).app;
    expect(read).toEqual(created);
    const listed = (await call("GET", "/api/v1/apps", { query: "page_size=100" })).list.map((a: Body) => a.id);
    expect(listed).toContain(created.id);
    // Its owner, an Application Administrator, may now manage it.
    const renamed = (await call("POST", APP, { params: { id: created.id }, body: { app: { displayName: "Payroll (EU)" }, updateMask: "displayName" }, token: "tok-app-admin" })).app;
    expect(renamed.displayName).toBe("Payroll (EU)");
    const second = (await call("POST", "/api/v1/apps", { body: { displayName: "Second" }, token: "tok-app-admin" })).app;
    expect(second.id).not.toBe(created.id);
    expect(second.ownerUserIds).toEqual([]);
  });

  it("refuses what it cannot keep, with the status body", async () => {
    expect((await call("POST", "/api/v1/apps", { body: {}, expect: 400 })).code).toBe(3);
    expect((await call("POST", "/api/v1/apps", { body: { displayName: "  " }, expect: 400 })).code).toBe(3);
    expect((await call("POST", "/api/v1/apps", { body: { displayName: "X", grantPolicyId: "pol-nope" }, expect: 400 })).code).toBe(3);
    expect((await call("POST", "/api/v1/apps", { body: { displayName: "X", owners: ["u-nobody"] }, expect: 400 })).code).toBe(3);
    expect((await call("POST", "/api/v1/apps", { body: { displayName: "X", matchBatonRef: { connectorId: "c" } }, expect: 400 })).code).toBe(3);
    expect((await call("POST", "/api/v1/apps", { body: { displayName: "X" }, token: "tok-user", expect: 403 })).code).toBe(7);
  });
});

describe("openapi.yaml AppEntitlements.Create: a custom entitlement is requested through the policy it names", () => {
  it("reads back, carries its maximum grant duration, and a new request resolves its grant policy", async () => {
    const view = (
      await call("POST", "/api/v1/apps/{app_id}/entitlements", {
        params: { app_id: "app-aws" },
        body: { displayName: "Cost Explorer read", grantPolicyId: "pol-default-grant", appEntitlementOwnerIds: ["u-it2"], durationGrant: "3600s", slug: "ce-read", annotations: { managed_by: "terraform" } },
      })
    ).appEntitlementView.appEntitlement;
    expect(view).toMatchObject({ appId: "app-aws", displayName: "Cost Explorer read", grantPolicyId: "pol-default-grant", durationGrant: "3600s", slug: "ce-read", annotations: { managed_by: "terraform" } });
    expect(view.id).toMatch(/^ent-\d{6}$/);
    const got = (await call("GET", ENT, { params: { app_id: "app-aws", id: view.id } })).appEntitlementView.appEntitlement;
    expect(got).toEqual(view);
    expect(policyOf(await newTask("app-aws", view.id, "u-sre1"))).toBe("pol-default-grant");
  });

  it("refuses what it cannot keep, with the status body", async () => {
    const path = "/api/v1/apps/{app_id}/entitlements";
    const aws = { app_id: "app-aws" };
    expect((await call("POST", path, { params: aws, body: {}, expect: 400 })).code).toBe(3);
    expect((await call("POST", path, { params: aws, body: { displayName: "X", grantPolicyId: "pol-nope" }, expect: 400 })).code).toBe(3);
    expect((await call("POST", path, { params: aws, body: { displayName: "X", appEntitlementOwnerIds: ["u-nobody"] }, expect: 400 })).code).toBe(3);
    expect((await call("POST", path, { params: aws, body: { displayName: "X", durationGrant: 60 }, expect: 400 })).code).toBe(3);
    expect((await call("POST", path, { params: { app_id: "app-nope" }, body: { displayName: "X" }, expect: 404 })).code).toBe(5);
    expect((await call("POST", path, { params: aws, body: { displayName: "X" }, token: "tok-user", expect: 403 })).code).toBe(7);
  });
});

describe("openapi.yaml UpdateAppEntitlementRequestInput.expandMask, CreateAppEntitlementRequest.expandMask and UpdateAppUserRequest.expandMask (SDK review)", () => {
  const at = (body: Body, path: string): Body => body.expanded[Number(/\d+/.exec(path)?.[0])];
  it("an entitlement update or create expands its app, resource type and resource as the search does", async () => {
    const params = { app_id: "app-aws", id: "ent-aws-billing" };
    const updated = await call("POST", ENT, { params, body: { entitlement: { riskLevelValueId: "low" }, updateMask: "riskLevelValueId", expandMask: { paths: ["app_id"] } } });
    expect(at(updated, updated.appEntitlementView.appPath)).toMatchObject({ "@type": "type.googleapis.com/c1.api.app.v1.App", id: "app-aws" });
    expect(updated.appEntitlementView.appResourceTypePath).toBe("");
    const all = await call("POST", ENT, { params, body: { entitlement: { riskLevelValueId: "low" }, updateMask: "riskLevelValueId", expandMask: { paths: ["*"] } } });
    expect(at(all, all.appEntitlementView.appResourceTypePath)).toMatchObject({ "@type": "type.googleapis.com/c1.api.app.v1.AppResourceType" });
    const plain = await call("POST", ENT, { params, body: { entitlement: { riskLevelValueId: "low" }, updateMask: "riskLevelValueId" } });
    expect(plain.expanded).toEqual([]);
    expect(plain.appEntitlementView.appPath).toBe("");
    const created = await call("POST", "/api/v1/apps/{app_id}/entitlements", { params: { app_id: "app-aws" }, body: { displayName: "Expanded on create", expandMask: { paths: ["app_id"] } } });
    expect(at(created, created.appEntitlementView.appPath)).toMatchObject({ id: "app-aws" });
  });
  it("an account update expands its identity user and app", async () => {
    const params = { app_user_app_id: "app-aws", app_user_id: "au-aws-intern" };
    const r = await call("POST", "/api/v1/apps/{app_user_app_id}/app_users/{app_user_id}", { params, body: { appUser: { appUserType: "APP_USER_TYPE_USER" }, updateMask: "appUserType", expandMask: { paths: ["identity_user_id", "app_id"] } } });
    expect(at(r, r.appUserView.identityUserPath)).toMatchObject({ "@type": "type.googleapis.com/c1.api.user.v1.User", id: "u-intern" });
    expect(at(r, r.appUserView.appPath)).toMatchObject({ id: "app-aws" });
  });
  it("an unknown expand path is INVALID_ARGUMENT, as in the searches, and nothing is written", async () => {
    const params = { app_id: "app-aws", id: "ent-aws-billing" };
    const before = (await call("GET", ENT, { params })).appEntitlementView.appEntitlement;
    expect((await call("POST", ENT, { params, body: { entitlement: { riskLevelValueId: "critical" }, updateMask: "riskLevelValueId", expandMask: { paths: ["owners"] } }, expect: 400 })).code).toBe(3);
    expect((await call("GET", ENT, { params })).appEntitlementView.appEntitlement).toEqual(before);
    const au = { app_user_app_id: "app-aws", app_user_id: "au-aws-intern" };
    expect((await call("POST", "/api/v1/apps/{app_user_app_id}/app_users/{app_user_id}", { params: au, body: { appUser: {}, expandMask: { paths: ["nope"] } }, expect: 400 })).code).toBe(3);
  });
});

describe("openapi.yaml CreateAppRequest, CreateAppEntitlementRequestInput, UpdateAppEntitlementRequest: fields the world keeps are held to their types (SDK decode review)", () => {
  it("a value of the wrong type is refused (400) and nothing is written; an int32 given as a decimal string is kept as its number, as protojson reads it", async () => {
    const apps = "/api/v1/apps";
    for (const bad of [{ monthlyCostUsd: "twelve" }, { monthlyCostUsd: 12.5 }, { description: 123 }, { instructions: true }, { identityMatching: 3 }, { identityMatching: "FUZZY" }, { strictAccessEntitlementProvisioning: "no" }])
      expect((await call("POST", apps, { body: { displayName: "Typed", ...bad }, expect: 400 })).code, JSON.stringify(bad)).toBe(3);
    const made = (await call("POST", apps, { body: { displayName: "Typed", monthlyCostUsd: "12", strictAccessEntitlementProvisioning: true, identityMatching: "APP_USER_IDENTITY_MATCHING_STRICT" } })).app;
    expect(made).toMatchObject({ monthlyCostUsd: 12, strictAccessEntitlementProvisioning: true, identityMatching: "APP_USER_IDENTITY_MATCHING_STRICT" });
    const ents = "/api/v1/apps/{app_id}/entitlements";
    const aws = { app_id: "app-aws" };
    for (const bad of [{ alias: true }, { slug: 4 }, { complianceFrameworkValueIds: "x" }, { durationUnset: 5 }, { durationGrant: "1h" }, { purpose: "OWNER" }])
      expect((await call("POST", ents, { params: aws, body: { displayName: "Typed", ...bad }, expect: 400 })).code, JSON.stringify(bad)).toBe(3);
    const params = { app_id: "app-aws", id: "ent-aws-billing" };
    expect((await call("POST", ENT, { params, body: { entitlement: { description: 42 }, updateMask: "description" }, expect: 400 })).code).toBe(3);
    expect((await call("POST", APP, { params: { id: "app-aws" }, body: { app: { monthlyCostUsd: "lots" }, updateMask: "monthlyCostUsd" }, expect: 400 })).code).toBe(3);
    const cleared = await call("POST", ENT, { params, body: { entitlement: { description: null }, updateMask: "description" } });
    expect(cleared.appEntitlementView.appEntitlement.description ?? "").toBe("");
  });
});

describe("openapi.yaml Apps.Delete and AppEntitlements.Delete (Terraform's custom app and custom app entitlement destroy)", () => {
  it("a created app and entitlement are deleted; reads and listings no longer have them; deleting again is 404", async () => {
    const app = (await call("POST", "/api/v1/apps", { body: { displayName: "Short-lived", grantPolicyId: "pol-default-grant" } })).app;
    const ent = (await call("POST", "/api/v1/apps/{app_id}/entitlements", { params: { app_id: app.id }, body: { displayName: "Temp access" } })).appEntitlementView.appEntitlement;
    const params = { app_id: app.id, id: ent.id };
    expect(await call("DELETE", ENT, { params, body: {} })).toEqual({});
    expect((await call("GET", ENT, { params, expect: 404 })).code).toBe(5);
    expect((await call("GET", "/api/v1/apps/{app_id}/entitlements", { params: { app_id: app.id } })).list ?? []).toEqual([]);
    expect((await call("DELETE", ENT, { params, body: {}, expect: 404 })).code).toBe(5);
    // The SDK sends the operation's empty request body; none at all is read the same.
    expect(await call("DELETE", APP, { params: { id: app.id } })).toEqual({});
    expect((await call("GET", APP, { params: { id: app.id }, expect: 404 })).code).toBe(5);
    const listed = await call("GET", "/api/v1/apps", { query: "page_size=100" });
    expect(listed.list.map((a: Body) => a.id)).not.toContain(app.id);
    expect((await call("DELETE", APP, { params: { id: app.id }, body: {}, expect: 404 })).code).toBe(5);
  });
  it("an app or entitlement a task names is refused (FAILED_PRECONDITION) and stays; so is a caller who may not manage the app (403)", async () => {
    const refused = await call("DELETE", APP, { params: { id: "app-aws" }, body: {}, expect: 400 });
    expect(refused.code).toBe(9);
    expect(refused.message).toMatch(/app "app-aws" cannot be deleted: tasks .* name it/);
    expect((await call("GET", APP, { params: { id: "app-aws" } })).app.id).toBe("app-aws");
    const ent = (await call("POST", "/api/v1/apps/{app_id}/entitlements", { params: { app_id: "app-aws" }, body: { displayName: "Requested once" } })).appEntitlementView.appEntitlement;
    await newTask("app-aws", ent.id, "u-sre1");
    const named = await call("DELETE", ENT, { params: { app_id: "app-aws", id: ent.id }, body: {}, expect: 400 });
    expect(named.code).toBe(9);
    expect(named.message).toMatch(/task \S+ names it/);
    expect((await call("DELETE", APP, { params: { id: "app-aws" }, body: {}, token: "tok-app-admin", expect: 403 })).code).toBe(7);
  });
});

describe("openapi.yaml AppEntitlements.AddManuallyManagedMembers and RemoveEntitlementMembership", () => {
  const ADD = "/api/v1/apps/{app_id}/entitlements/{app_entitlement_id}/add-manual-user";
  const REMOVE = "/api/v1/apps/{app_id}/entitlements/{app_entitlement_id}/remove-membership";
  const USERS = "/api/v1/apps/{app_id}/entitlements/{app_entitlement_id}/users";
  const sandbox = { app_id: "app-aws", app_entitlement_id: "ent-aws-sandbox" };
  const members = async (): Promise<string> => JSON.stringify(await call("GET", USERS, { params: sandbox, query: "page_size=100" }));
  it("adds users as members (an account made where they have none), answers unknown ids in failedUsersErrorMap, and removes a membership by account", async () => {
    expect(await members()).not.toMatch(/u-dev2|u-hr1/);
    const added = await call("POST", ADD, { params: sandbox, body: { userIds: ["u-dev2", "u-hr1", "u-nope", "u-dev2", "__proto__"] } });
    expect(added.bulkActionId).toMatch(/^bulk-\d+$/);
    expect(Object.entries(added.failedUsersErrorMap)).toEqual([
      ["u-nope", 'user "u-nope" does not exist'],
      ["__proto__", 'user "__proto__" does not exist'],
    ]);
    const now = await members();
    expect(now).toContain("u-dev2");
    expect(now).toContain("u-hr1");
    // u-hr1 had no account in the app: one was made, and it reads back among the app's accounts.
    const accounts = await call("GET", "/api/v1/apps/{app_id}/app_users", { params: { app_id: "app-aws" }, query: "page_size=100" });
    const hr1 = accounts.list.find((a: Body) => (a.appUser ?? a).identityUserId === "u-hr1");
    expect(hr1).toBeDefined();
    // Adding a member again changes nothing.
    expect((await call("POST", ADD, { params: sandbox, body: { userIds: ["u-hr1"] } })).failedUsersErrorMap).toEqual({});
    expect(await call("DELETE", REMOVE, { params: sandbox, body: { appUserId: "au-aws-dev2" } })).toEqual({ revokeTaskId: "" });
    expect(await members()).not.toContain("u-dev2");
    expect(await members()).toContain("u-hr1");
    // An account that holds nothing: unchanged, answered the same.
    expect(await call("DELETE", REMOVE, { params: sandbox, body: { appUserId: "au-aws-dev2" } })).toEqual({ revokeTaskId: "" });
  });
  it("refusals: no users or no account (400), an unknown entitlement or account (404), a caller who may not manage the app (403)", async () => {
    expect((await call("POST", ADD, { params: sandbox, body: {}, expect: 400 })).code).toBe(3);
    expect((await call("POST", ADD, { params: sandbox, body: { userIds: "u-dev1" }, expect: 400 })).code).toBe(3);
    expect((await call("POST", ADD, { params: { ...sandbox, app_entitlement_id: "ent-nope" }, body: { userIds: ["u-dev1"] }, expect: 404 })).code).toBe(5);
    expect((await call("DELETE", REMOVE, { params: sandbox, body: {}, expect: 400 })).code).toBe(3);
    expect((await call("DELETE", REMOVE, { params: sandbox, body: { appUserId: "au-okta-nope" }, expect: 404 })).code).toBe(5);
    expect((await call("POST", ADD, { params: sandbox, body: { userIds: ["u-dev1"] }, token: "tok-app-admin", expect: 403 })).code).toBe(7);
  });
});

describe("openapi.yaml AppEntitlementUserBindingService.UpdateGrantDuration and RemoveGrantDuration; product_admin_access-requests.mdx time limits", () => {
  const BINDING = "/api/v1/apps/{app_id}/entitlements/{app_entitlement_id}/users/{app_user_id}";
  const held = { app_id: "app-aws", app_entitlement_id: "ent-aws-prod-admin", app_user_id: "au-aws-sre-lead" };
  const grantsOf = async () =>
    (await call("GET", "/api/v1/apps/{app_id}/entitlements/{app_entitlement_id}/users/{identity_user_id}/grants", { params: { app_id: "app-aws", app_entitlement_id: "ent-aws-prod-admin", identity_user_id: "u-sre-lead" } })).bindings;
  it("sets when a grant ends (in UTC), reads it back, and removes it again", async () => {
    expect((await grantsOf())[0]).toMatchObject({ appUserId: "au-aws-sre-lead", deprovisionAt: null });
    const set = await call("POST", `${BINDING}/update-grant-duration`, { params: held, body: { newDeprovisionAt: "2026-12-01T10:00:00+01:00" } });
    expect(set.binding).toMatchObject({ appId: "app-aws", appEntitlementId: "ent-aws-prod-admin", appUserId: "au-aws-sre-lead", deprovisionAt: "2026-12-01T09:00:00Z" });
    expect((await grantsOf())[0].deprovisionAt).toBe("2026-12-01T09:00:00Z");
    const removed = await call("POST", `${BINDING}/remove-grant-duration`, { params: held, body: {} });
    expect(removed.binding).toMatchObject({ appUserId: "au-aws-sre-lead", deprovisionAt: null });
    expect((await grantsOf())[0].deprovisionAt).toBeNull();
    // A JavaScript Date's ISO string (the SDKs send one) is written as protojson writes it.
    const fromDate = await call("POST", `${BINDING}/update-grant-duration`, { params: held, body: { newDeprovisionAt: new Date(Date.UTC(2026, 11, 2)).toISOString() } });
    expect(fromDate.binding.deprovisionAt).toBe("2026-12-02T00:00:00Z");
    await call("POST", `${BINDING}/remove-grant-duration`, { params: held, body: {} });
    // A standing grant stays standing.
    expect((await call("POST", `${BINDING}/remove-grant-duration`, { params: held, body: {} })).binding.deprovisionAt).toBeNull();
  });
  it("refusals: no time, not a time, a time not after the clock (400); an account without the grant (404); a caller who may not manage the app (403)", async () => {
    const update = `${BINDING}/update-grant-duration`;
    expect((await call("POST", update, { params: held, body: {}, expect: 400 })).message).toContain("remove-grant-duration");
    expect((await call("POST", update, { params: held, body: { newDeprovisionAt: "in a week" }, expect: 400 })).code).toBe(3);
    expect((await call("POST", update, { params: held, body: { newDeprovisionAt: "2026-11-01T00:00:00Z" }, expect: 400 })).message).toContain("not after the clock");
    const notHeld = await call("POST", update, { params: { ...held, app_user_id: "au-aws-dev1" }, body: { newDeprovisionAt: "2026-12-01T00:00:00Z" }, expect: 404 });
    expect(notHeld.message).toBe('app user "au-aws-dev1" holds no grant of entitlement "ent-aws-prod-admin" of app "app-aws"');
    expect((await call("POST", `${BINDING}/remove-grant-duration`, { params: { ...held, app_user_id: "au-nope" }, body: {}, expect: 404 })).code).toBe(5);
    expect((await call("POST", update, { params: held, body: { newDeprovisionAt: "2026-12-01T00:00:00Z" }, token: "tok-app-admin", expect: 403 })).code).toBe(7);
  });
});

describe("openapi.yaml AppUserService.Update: only appUserType and identityUserId can be updated", () => {
  const AU = "/api/v1/apps/{app_user_app_id}/app_users/{app_user_id}";
  const accountsOf = async (userId: string): Promise<string[]> =>
    (await call("GET", "/api/v1/apps/{app_id}/users/{user_id}/app_users", { params: { app_id: "app-aws", user_id: userId } })).list.map((v: Body) => (v.appUser ?? v).id);
  it("the account's type and user are written, read back, and the account follows its new user", async () => {
    const typed = await call("POST", AU, { params: { app_user_app_id: "app-aws", app_user_id: "au-aws-intern" }, body: { appUser: { appUserType: "APP_USER_TYPE_SERVICE_ACCOUNT" }, updateMask: "app_user_type" } });
    expect(typed.appUserView.appUser).toMatchObject({ id: "au-aws-intern", appUserType: "APP_USER_TYPE_SERVICE_ACCOUNT", identityUserId: "u-intern" });
    expect(await accountsOf("u-sales3")).not.toContain("au-aws-sales2");
    const moved = await call("POST", AU, { params: { app_user_app_id: "app-aws", app_user_id: "au-aws-sales2" }, body: { appUser: { identityUserId: "u-sales3", displayName: "ignored" }, updateMask: "identityUserId" } });
    expect(moved.appUserView.appUser.identityUserId).toBe("u-sales3");
    expect(await accountsOf("u-sales3")).toContain("au-aws-sales2");
    expect(await accountsOf("u-sales2")).not.toContain("au-aws-sales2");
  });
  it("refusals: another field, an unknown type or user (400), an unknown account (404), a caller who may not manage the app (403)", async () => {
    const params = { app_user_app_id: "app-aws", app_user_id: "au-aws-intern" };
    expect((await call("POST", AU, { params, body: { appUser: { displayName: "x" }, updateMask: "displayName" }, expect: 400 })).code).toBe(3);
    expect((await call("POST", AU, { params, body: { appUser: { appUserType: "ROBOT" }, updateMask: "appUserType" }, expect: 400 })).code).toBe(3);
    expect((await call("POST", AU, { params, body: { appUser: { identityUserId: "u-nope" }, updateMask: "identityUserId" }, expect: 400 })).code).toBe(3);
    expect((await call("POST", AU, { params, body: {}, expect: 400 })).code).toBe(3);
    expect((await call("POST", AU, { params: { ...params, app_user_id: "au-nope" }, body: { appUser: {} }, expect: 404 })).code).toBe(5);
    expect((await call("POST", AU, { params, body: { appUser: { appUserType: "APP_USER_TYPE_USER" } }, token: "tok-app-admin", expect: 403 })).code).toBe(7);
  });
});
