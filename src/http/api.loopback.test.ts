/**
 * Loopback tests of the read, policy and auth services over a real socket: an SDK's token flow
 * (client credentials with an EdDSA client assertion), then every read, search and policy route,
 * each 2xx body validated against its operation's schema in openapi.yaml and every error body
 * against google.rpc.Status (issue 12 points 3-5, "Done when").
 */
import { importJWK, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadWorld } from "../world/load-world.js";
import { sampleJson, SUPER, type Body } from "../../test/helpers.js";
import { createApiClient, parseClientSecret } from "./auth/client-secret.js";
import { JWT_BEARER_ASSERTION } from "./auth/token.js";
import { ROUTES } from "./routes/index.js";
import { DELEGATION_ROUTES } from "./routes/delegation.js";
import { DIRECTORY_WRITE_ROUTES } from "./routes/directory-writes.js";
import { OWNER_WRITE_ROUTES } from "./routes/owners.js";
import { TASK_CREATION_ROUTES } from "./routes/task-creation.js";
import { checkedCaller } from "./loopback.test-helper.js";
import { type RunningServer, serve } from "./server.js";

const CLIENT_ID = "calm-heron-40404@sim.conductor.one/pcc";
let server: RunningServer;
let secret = "";
let token = "";
const called = new Set<string>();

async function assertionFor(aud: string, exp = Math.floor(Date.now() / 1000) + 120): Promise<string> {
  const key = parseClientSecret(secret);
  if (!key.ok) throw new Error(key.error);
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: "EdDSA" })
    .setIssuer(CLIENT_ID)
    .setSubject(CLIENT_ID)
    .setAudience(aud)
    .setIssuedAt(now)
    .setNotBefore(now - 120)
    .setExpirationTime(exp)
    .sign(await importJWK({ ...key.value }, "EdDSA"));
}

async function tokenRequest(fields: Record<string, string>): Promise<{ status: number; body: Body; headers: Headers }> {
  const res = await fetch(`${server.url}/auth/v1/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields) });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

const call = checkedCaller(() => server.url, { token: () => token, onCall: (route) => called.add(route) });

/** Follows nextPageToken until it is empty, as a tenant export does. */
async function readAll(method: string, template: string, params: Record<string, string> = {}, size = 10): Promise<Body[]> {
  const items: Body[] = [];
  let pageToken = "";
  for (let i = 0; i < 1000; i++) {
    const body =
      method === "GET"
        ? await call(method, template, { params, query: `page_size=${size}${pageToken ? `&page_token=${pageToken}` : ""}` })
        : await call(method, template, { params, body: { pageSize: size, pageToken } });
    items.push(...body.list);
    pageToken = body.nextPageToken;
    if (pageToken === "") return items;
  }
  throw new Error("paging did not end");
}

beforeAll(async () => {
  const made = await createApiClient({ clientId: CLIENT_ID, userId: SUPER, displayName: "loopback" });
  secret = made.clientSecret;
  const loaded = loadWorld({ ...sampleJson(), clients: [made.client] });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
  server = await serve({ world: loaded.value, port: 0 });
});
afterAll(async () => server.close());

describe("openapi.yaml oauth scheme over HTTP: POST /auth/v1/token, then GET /api/v1/auth/introspect", () => {
  it("exchanges the SDK's client assertion for a bearer token that names the client's user", async () => {
    const r = await tokenRequest({ grant_type: "client_credentials", client_id: CLIENT_ID, client_assertion_type: JWT_BEARER_ASSERTION, client_assertion: await assertionFor("127.0.0.1") });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ token_type: "Bearer", expires_in: 3600, access_token: expect.any(String) });
    expect(r.headers.get("cache-control")).toBe("no-store");
    token = r.body.access_token;
    const me = await call("GET", "/api/v1/auth/introspect");
    // The world's tenant id (the sample's tenant.id), as a real token belongs to a tenant.
    expect(me).toMatchObject({ userId: SUPER, principleId: SUPER, tenantId: "2VtN7xNorthwindLabs00000001" });
  });
  it("answers RFC 6749 §5.2 bodies: a wrong audience is invalid_client (401), a wrong grant unsupported_grant_type (400)", async () => {
    const bad = await tokenRequest({ grant_type: "client_credentials", client_assertion_type: JWT_BEARER_ASSERTION, client_assertion: await assertionFor("elsewhere.example") });
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual({ error: "invalid_client", error_description: expect.stringContaining("aud") });
    const grant = await tokenRequest({ grant_type: "authorization_code" });
    expect(grant).toMatchObject({ status: 400, body: { error: "unsupported_grant_type" } });
  });
  it("takes the same fields as JSON, and the secret itself as client_secret", async () => {
    const res = await fetch(`${server.url}/auth/v1/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ grant_type: "client_credentials", client_id: CLIENT_ID, client_assertion_type: JWT_BEARER_ASSERTION, client_assertion: await assertionFor("127.0.0.1") }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Body).access_token).toMatch(/^pst1\./);
    const viaSecret = await tokenRequest({ grant_type: "client_credentials", client_id: CLIENT_ID, client_secret: secret });
    expect(viaSecret.status).toBe(200);
    expect(viaSecret.body.token_type).toBe("Bearer");
  });
  it("the world's bearer tokens keep working, and an unknown token is 401 with the status body", async () => {
    const saved = token;
    token = "tok-user";
    expect((await call("GET", "/api/v1/auth/introspect")).userId).toBe("u-dev1");
    token = "pst1.forged.token";
    await call("GET", "/api/v1/auth/introspect", { expect: 401 });
    token = saved;
  });
});

describe("openapi.yaml reads: a tenant export reads back the whole world, page by page", () => {
  it("users, apps, entitlements per app, app users per app, policies, tasks and grants", async () => {
    const json = sampleJson() as Body;
    expect((await readAll("GET", "/api/v1/users")).map((v: Body) => v.user.id)).toEqual(json.users.map((u: Body) => u.id));
    expect((await readAll("POST", "/api/v1/search/users")).length).toBe(json.users.length);
    const apps = await readAll("GET", "/api/v1/apps");
    expect(apps.map((a: Body) => a.id)).toEqual(json.apps.map((a: Body) => a.id));
    expect((await readAll("POST", "/api/v1/search/apps")).length).toBe(json.apps.length);
    let ents = 0;
    let accounts = 0;
    for (const a of apps) {
      ents += (await readAll("GET", "/api/v1/apps/{app_id}/entitlements", { app_id: a.id })).length;
      accounts += (await readAll("GET", "/api/v1/apps/{app_id}/app_users", { app_id: a.id })).length;
      await call("GET", "/api/v1/apps/{app_id}/access_request_defaults", { params: { app_id: a.id } });
      await call("GET", "/api/v1/apps/{app_id}/entitlement_configuration_rules", { params: { app_id: a.id } });
    }
    expect(ents).toBe(json.entitlements.length);
    expect(accounts).toBe(json.appUsers.length);
    // Owners of every app and entitlement, and every grant read entitlement by entitlement.
    let grants = 0;
    for (const a of apps) {
      expect((await call("GET", "/api/v1/apps/{app_id}/ownerids", { params: { app_id: a.id } })).userIds).toEqual(json.apps.find((x: Body) => x.id === a.id).ownerUserIds);
      await readAll("GET", "/api/v1/apps/{app_id}/owners", { app_id: a.id });
    }
    for (const e of json.entitlements) {
      grants += (await readAll("GET", "/api/v1/apps/{app_id}/entitlements/{app_entitlement_id}/grants", { app_id: e.appId, app_entitlement_id: e.id })).length;
      await call("GET", "/api/v1/apps/{app_id}/entitlements/{entitlement_id}/ownerids", { params: { app_id: e.appId, entitlement_id: e.id } });
      await readAll("GET", "/api/v1/apps/{app_id}/entitlements/{entitlement_id}/owners", { app_id: e.appId, entitlement_id: e.id });
    }
    expect(grants).toBe(json.grants.length);
    // Roles, campaigns, and the resources the entitlements are on.
    expect((await readAll("GET", "/api/v1/iam/roles")).map((r: Body) => r.id)).toEqual(json.roles.map((r: Body) => r.id));
    await call("GET", "/api/v1/iam/roles/{role_id}", { params: { role_id: json.roles[0].id } });
    expect((await readAll("GET", "/api/v1/access_reviews")).map((v: Body) => v.accessReview.id)).toEqual(json.accessReviews.map((r: Body) => r.id));
    await call("GET", "/api/v1/access_review/{id}", { params: { id: json.accessReviews[0].id } });
    let onResources = 0;
    for (const a of apps)
      for (const t of await readAll("GET", "/api/v1/apps/{app_id}/resource_types", { app_id: a.id })) {
        const typeId = t.appResourceType.id;
        await call("GET", "/api/v1/apps/{app_id}/resource_types/{id}", { params: { app_id: a.id, id: typeId } });
        for (const r of await readAll("GET", "/api/v1/apps/{app_id}/resource_types/{app_resource_type_id}/resources", { app_id: a.id, app_resource_type_id: typeId })) {
          await call("GET", "/api/v1/apps/{app_id}/resource_types/{app_resource_type_id}/resources/{id}", { params: { app_id: a.id, app_resource_type_id: typeId, id: r.appResource.id } });
          const path = "/api/v1/apps/{app_id}/entitlements/resource_types/{app_resource_type_id}/resources/{app_resource_id}";
          onResources += (await readAll("GET", path, { app_id: a.id, app_resource_type_id: typeId, app_resource_id: r.appResource.id })).length;
        }
      }
    expect(onResources).toBe(json.entitlements.filter((e: Body) => e.appResourceTypeId && e.appResourceId).length);
    expect((await readAll("POST", "/api/v1/search/app_resource_types")).length).toBeGreaterThan(0);
    expect((await readAll("POST", "/api/v1/search/app_resources")).length).toBeGreaterThan(0);
    expect((await call("POST", "/api/v1/users/introspect", { body: {} })).userView.user.id).toBe(SUPER);
    const owned = await call("POST", "/api/v1/search/user-ownership", { body: { userId: json.apps[0].ownerUserIds[0], pageSize: 100 } });
    expect(owned.list.map((x: Body) => x.appId)).toContain(json.apps[0].id);
    expect((await readAll("POST", "/api/v1/search/entitlements")).length).toBe(json.entitlements.length);
    expect((await readAll("POST", "/api/v1/search/app_users")).length).toBe(json.appUsers.length);
    expect((await readAll("POST", "/api/v1/search/grants")).length).toBe(json.grants.length);
    expect((await readAll("POST", "/api/v1/search/request_catalog/entitlements")).length).toBe(json.entitlements.length);
    expect((await readAll("GET", "/api/v1/policies")).map((p: Body) => p.id)).toEqual(json.policies.map((p: Body) => p.id));
    expect((await readAll("POST", "/api/v1/search/policies")).length).toBe(json.policies.length);
    const tasks = await readAll("POST", "/api/v1/search/tasks", {}, 7);
    expect(tasks.map((v: Body) => v.task.id).sort()).toEqual(json.tasks.filter((t: Body) => t.deletedAt === null).map((t: Body) => t.id).sort());
  });
  it("gets one of each by id, and 404s an unknown one with the status body", async () => {
    const json = sampleJson() as Body;
    const ent = json.entitlements[0];
    expect((await call("GET", "/api/v1/users/{id}", { params: { id: SUPER } })).userView.user.id).toBe(SUPER);
    expect((await call("GET", "/api/v1/apps/{id}", { params: { id: ent.appId } })).app.id).toBe(ent.appId);
    expect((await call("GET", "/api/v1/apps/{app_id}/entitlements/{id}", { params: { app_id: ent.appId, id: ent.id } })).appEntitlementView.appEntitlement.id).toBe(ent.id);
    expect((await call("GET", "/api/v1/policies/{id}", { params: { id: json.policies[0].id } })).policy.id).toBe(json.policies[0].id);
    expect((await call("GET", "/api/v1/tasks/{id}", { params: { id: "1001" } })).taskView.task.numericId).toBe("1001");
    await call("GET", "/api/v1/users/{id}", { params: { id: "u-nobody" }, expect: 404 });
    // Who holds what, per account and per entitlement, as the world's grants say.
    const grant = json.grants.find((g: Body) => json.appUsers.some((a: Body) => a.appId === g.appId && a.identityUserId === g.identityUserId));
    const account = json.appUsers.find((a: Body) => a.appId === grant.appId && a.identityUserId === grant.identityUserId);
    const accounts = await call("GET", "/api/v1/apps/{app_id}/users/{user_id}/app_users", { params: { app_id: grant.appId, user_id: grant.identityUserId } });
    expect(accounts.list.map((v: Body) => v.appUser.id)).toContain(account.id);
    const held = await call("GET", "/api/v1/apps/{app_id}/entitlements/users/{app_user_id}", { params: { app_id: grant.appId, app_user_id: account.id } });
    expect(held.list.map((v: Body) => v.appEntitlement.id).sort()).toEqual(
      [...new Set(json.grants.filter((g: Body) => g.appId === grant.appId && g.identityUserId === grant.identityUserId).map((g: Body) => g.appEntitlementId))].sort(),
    );
    const holders = await call("GET", "/api/v1/apps/{app_id}/entitlements/{app_entitlement_id}/users", { params: { app_id: grant.appId, app_entitlement_id: grant.appEntitlementId }, query: "page_size=100" });
    expect(holders.list.length).toBe(json.grants.filter((g: Body) => g.appId === grant.appId && g.appEntitlementId === grant.appEntitlementId).length);
    expect(holders.list.map((v: Body) => v.appUserId)).toContain(account.id);
    await call("GET", "/api/v1/apps/{app_id}/entitlements/users/{app_user_id}", { params: { app_id: grant.appId, app_user_id: "au-nobody" }, expect: 404 });
    const searched = await call("GET", "/api/v1/search/apps/{app_id}/entitlements/users/{app_user_id}", { params: { app_id: grant.appId, app_user_id: account.id } });
    expect(searched.list).toEqual(held.list);
    const bindings = await call("GET", "/api/v1/apps/{app_id}/entitlements/{app_entitlement_id}/users/{identity_user_id}/grants", {
      params: { app_id: grant.appId, app_entitlement_id: grant.appEntitlementId, identity_user_id: grant.identityUserId },
    });
    expect(bindings.bindings.find((b: Body) => b.appUserId === account.id)?.appEntitlementId).toBe(grant.appEntitlementId);
    await call("GET", "/api/v1/apps/{app_id}/entitlement_configuration_rules/{id}", { params: { app_id: ent.appId, id: "r-none" }, expect: 404 });
  });
  it("a page token is good for the listing that issued it only: another listing refuses it as issued for a different request (hostile review: a policies token skipped 10 tasks)", async () => {
    const policies = await call("GET", "/api/v1/policies", { query: "page_size=2" });
    const token = policies.nextPageToken as string;
    expect(token).not.toBe("");
    expect((await call("GET", "/api/v1/policies", { query: `page_size=2&page_token=${token}` })).list.length).toBeGreaterThan(0);
    const elsewhere = [
      await call("POST", "/api/v1/search/tasks", { body: { pageToken: token }, expect: 400 }),
      await call("GET", "/api/v1/apps", { query: `page_token=${token}`, expect: 400 }),
    ];
    for (const e of elsewhere) expect(e.message).toContain("was issued for a different request");
    const tasks = await call("POST", "/api/v1/search/tasks", { body: { pageSize: 2 } });
    await call("POST", "/api/v1/search/apps", { body: { pageToken: tasks.nextPageToken }, expect: 400 });

  });

  it("search filters: open grant tasks of one app, by text, by created time", async () => {
    const open = await call("POST", "/api/v1/search/tasks", { body: { taskStates: ["TASK_STATE_OPEN"], taskTypes: [{ grant: {} }], applicationIds: ["app-aws"], pageSize: 100 } });
    expect(open.list.length).toBeGreaterThan(0);
    for (const v of open.list) {
      expect(v.task.state).toBe("TASK_STATE_OPEN");
      expect(v.task.type.grant.appId).toBe("app-aws");
    }
    const none = await call("POST", "/api/v1/search/tasks", { body: { createdAfter: "2999-01-01T00:00:00Z" } });
    expect(none).toMatchObject({ list: [], nextPageToken: "" });
    // 000 spec, Task.numericId: "May replace the task id in path parameters, never in search queries."
    const byText = await call("POST", "/api/v1/search/tasks", { body: { query: "1001" } });
    expect(byText.list.map((v: Body) => v.task.numericId)).not.toContain("1001");
    const byNumber = await call("POST", "/api/v1/search/tasks", { body: { refs: [{ id: "1001" }] } });
    expect(byNumber).toMatchObject({ list: [], nextPageToken: "" });
    const task = await call("GET", "/api/v1/tasks/{id}", { params: { id: "1001" } });
    const byId = await call("POST", "/api/v1/search/tasks", { body: { refs: [{ id: task.taskView.task.id }] } });
    expect(byId.list.map((v: Body) => v.task.numericId)).toEqual(["1001"]);
    const byTitle = await call("POST", "/api/v1/search/tasks", { body: { query: String(task.taskView.task.displayName).slice(0, 12) } });
    expect(byTitle.list.map((v: Body) => v.task.numericId)).toContain("1001");
    await call("POST", "/api/v1/search/tasks", { body: { pageToken: "not-a-token" }, expect: 400 });
  });
  it("task audits list the simulation's events as the service's audit records", async () => {
    await fetch(`${server.url}/api/v1/tasks/1001/action/comment`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: JSON.stringify({ comment: "audit me" }) });
    const audits = await call("POST", "/api/v1/task/audits", { body: { taskId: "1001" } });
    expect(audits.list.some((a: Body) => a.comment?.comment === "audit me" && a.userId === SUPER)).toBe(true);
  });
});

describe("000 spec, Policy: edits over HTTP change what later resets see", () => {
  it("create, update with updateMask, refuse a lint error, delete; validate CEL", async () => {
    const created = await call("POST", "/api/v1/policies", {
      body: { displayName: "Loopback", policyType: "POLICY_TYPE_GRANT", policySteps: { grant: { steps: [{ accept: {} }] } } },
    });
    const id = created.policy.id;
    const updated = await call("POST", "/api/v1/policies/{id}", { params: { id }, body: { policy: { displayName: "Loopback 2" }, updateMask: "displayName" } });
    expect(updated.policy.displayName).toBe("Loopback 2");
    expect(server.store.get().index.policies.get(id)?.displayName).toBe("Loopback 2");
    const refused = await call("POST", "/api/v1/policies/{id}", {
      params: { id },
      body: { policy: { rules: [{ condition: "subject.nope", stepKey: "grant" }] }, updateMask: "rules" },
      expect: 400,
    });
    expect(refused.message).toMatch(/refused/);
    await call("DELETE", "/api/v1/policies/{id}", { params: { id } });
    await call("DELETE", "/api/v1/policies/{id}", { params: { id: "pol-prod-admin-eng" }, expect: 400 });
    const cel = await call("POST", "/api/v1/policies/validate/cel", { body: { text: "subject.department ==" } });
    expect(cel.markers.length).toBeGreaterThan(0);
  });
});

describe("openapi.yaml UpdatePolicyRequest updateMask (google.protobuf.FieldMask): nested paths, *, and maps never null", () => {
  it("policySteps.grant replaces that entry and keeps the others; a path below a scalar is 400; * replaces every field", async () => {
    const created = await call("POST", "/api/v1/policies", {
      body: {
        displayName: "Masks",
        policyType: "POLICY_TYPE_GRANT",
        policySteps: { grant: { steps: [{ accept: {} }] }, it: { steps: [{ accept: { acceptMessage: "it" } }] } },
        rules: [{ condition: 'subject.department == "IT"', stepKey: "it" }],
      },
    });
    const id = created.policy.id;
    const nested = await call("POST", "/api/v1/policies/{id}", {
      params: { id },
      body: { policy: { policySteps: { grant: { steps: [{ reject: { rejectMessage: "no" } }] } } }, updateMask: "policySteps.grant" },
    });
    expect(Object.keys(nested.policy.policySteps).sort()).toEqual(["grant", "it"]);
    expect(nested.policy.policySteps.grant.steps[0].reject).toBeDefined();
    expect(nested.policy.policySteps.it.steps[0].accept.acceptMessage).toBe("it");
    const below = await call("POST", "/api/v1/policies/{id}", { params: { id }, body: { policy: { displayName: "x" }, updateMask: "displayName.bogus" }, expect: 400 });
    expect(below.message).toContain("not a message or map");
    const all = await call("POST", "/api/v1/policies/{id}", {
      params: { id },
      body: { policy: { displayName: "All", policyType: "POLICY_TYPE_GRANT", policySteps: { grant: { steps: [{ accept: {} }] } } }, updateMask: "*" },
    });
    expect(all.policy.displayName).toBe("All");
    expect(Object.keys(all.policy.policySteps)).toEqual(["grant"]);
    expect(all.policy.rules ?? []).toEqual([]);
    await call("DELETE", "/api/v1/policies/{id}", { params: { id } });
  });

  it("an update at the bottom of a chain cannot push the chain above it past depth 5 (openapi.yaml: \"any reachable chain\")", async () => {
    const grant = { policyType: "POLICY_TYPE_GRANT", policySteps: { grant: { steps: [{ accept: {} }] } } };
    const leaf = (await call("POST", "/api/v1/policies", { body: { displayName: "Leaf", ...grant } })).policy.id as string;
    const made = [leaf];
    // Policies referring to the one before, until the service refuses one as too deep.
    for (let i = 0; i < 10; i++) {
      const r = await fetch(`${server.url}/api/v1/policies`, {
        method: "POST",
        headers: { authorization: "Bearer tok-super", "content-type": "application/json" },
        body: JSON.stringify({ displayName: `Chain ${i}`, ...grant, rules: [{ condition: "true", policyId: made[made.length - 1] }] }),
      });
      const b = (await r.json()) as Body;
      if (r.status !== 200) {
        expect(b.message).toContain("CHAIN_TOO_DEEP");
        break;
      }
      made.push(b.policy.id as string);
    }
    expect(made.length).toBeGreaterThan(2);
    const extra = (await call("POST", "/api/v1/policies", { body: { displayName: "Below the leaf", ...grant } })).policy.id as string;
    const deeper = await call("POST", "/api/v1/policies/{id}", { params: { id: leaf }, body: { policy: { rules: [{ condition: "true", policyId: extra }] }, updateMask: "rules" }, expect: 400 });
    expect(deeper.message).toContain("CHAIN_TOO_DEEP");
    expect(deeper.message).toContain(`policy "${made[made.length - 1]}", which refers to this one`);
    for (const id of [...made].reverse()) await call("DELETE", "/api/v1/policies/{id}", { params: { id } });
    await call("DELETE", "/api/v1/policies/{id}", { params: { id: extra } });
  });

  it("refuses on write what protojson would not read, and the server's annotation prefix (openapi.yaml: c1/ keys \"rejected on write\")", async () => {
    const steps = { grant: { steps: [{ accept: {} }] } };
    const base = { displayName: "Refused", policyType: "POLICY_TYPE_GRANT", policySteps: steps };
    const typo = await call("POST", "/api/v1/policies", { body: { ...base, policySteps: { grant: { steps: [{ approve: { manager: {} } }] } } }, expect: 400 });
    expect(typo.message).toContain("UNKNOWN_STEP_KIND");
    const type = await call("POST", "/api/v1/policies", { body: { ...base, policyType: "POLICY_TYPE_FOO" }, expect: 400 });
    expect(type.message).toContain("POLICY_TYPE_FOO");
    for (const key of ["c1/owner", "svc/owner"]) {
      const r = await call("POST", "/api/v1/policies", { body: { ...base, annotations: { [key]: "x" } }, expect: 400 });
      expect(r.message).toContain("reserved");
    }
    const made = (await call("POST", "/api/v1/policies", { body: base })).policy.id as string;
    await call("POST", "/api/v1/policies/{id}", { params: { id: made }, body: { policy: { annotations: { "c1/x": "y" } }, updateMask: "annotations" }, expect: 400 });
    await call("DELETE", "/api/v1/policies/{id}", { params: { id: made } });
  });

  it("an approval escalation that replaces the policy must name one that exists, and keeps it from being deleted", async () => {
    const grant = { policyType: "POLICY_TYPE_GRANT" };
    const escalating = (policyId: string) => ({
      displayName: "Escalates",
      ...grant,
      policySteps: { grant: { steps: [{ approval: { users: { userIds: ["u-ciso"] }, escalationEnabled: true, escalation: { escalationComment: "", expiration: "86400s", replacePolicy: { policyId } } } }] } },
    });
    const dangling = await call("POST", "/api/v1/policies", { body: escalating("pol-nowhere"), expect: 400 });
    expect(dangling.message).toContain("UNKNOWN_POLICY");
    const target = (await call("POST", "/api/v1/policies", { body: { displayName: "Replacement", ...grant, policySteps: { grant: { steps: [{ accept: {} }] } } } })).policy.id as string;
    const user = (await call("POST", "/api/v1/policies", { body: escalating(target) })).policy.id as string;
    const inUse = await call("DELETE", "/api/v1/policies/{id}", { params: { id: target }, expect: 400 });
    expect(inUse.message).toContain(`policy "${user}"`);
    await call("DELETE", "/api/v1/policies/{id}", { params: { id: user } });
    await call("DELETE", "/api/v1/policies/{id}", { params: { id: target } });
  });

  it("a policy that has only a baseline policy is written with policySteps {} (a map is never null)", async () => {
    const created = await call("POST", "/api/v1/policies", { body: { displayName: "Baseline only", policyType: "POLICY_TYPE_GRANT", baselinePolicyId: "pol-prod-admin-eng" } });
    expect(created.policy.policySteps).toEqual({});
    const got = await call("GET", "/api/v1/policies/{id}", { params: { id: created.policy.id } });
    expect(got.policy.policySteps).toEqual({});
    await call("DELETE", "/api/v1/policies/{id}", { params: { id: created.policy.id } });
  });
});

describe("coverage", () => {
  it("every read, policy and auth route was called above", () => {
    // Task actions and task creation are called, and validated, in routes/task-actions.test.ts; owner writes in owner-edits.loopback.test.ts; delegation in delegation.loopback.test.ts; app and entitlement updates in directory-edits.loopback.test.ts.
    const elsewhere = (r: (typeof ROUTES)[number]) => r.path.includes("/action/") || TASK_CREATION_ROUTES.includes(r) || OWNER_WRITE_ROUTES.includes(r) || DELEGATION_ROUTES.includes(r) || DIRECTORY_WRITE_ROUTES.includes(r) || r.path === "/auth/v1/token";
    const mine = ROUTES.filter((r) => !elsewhere(r)).map((r) => `${r.method} ${r.path}`);
    expect(mine.filter((r) => !called.has(r))).toEqual([]);
  });
});
