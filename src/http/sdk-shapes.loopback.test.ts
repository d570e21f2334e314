/**
 * The service's own API clients against `serve`, request for request: each call is sent exactly as
 * the service's TypeScript SDK (conductorone-sdk-typescript, Speakeasy-generated) sends it, and each
 * answer is held to what that SDK's response parsers require. Read from its source (not copied):
 *
 * - URL: the `serverURL` option with its path ending in one `/`, the operation's path appended
 *   (`http://127.0.0.1:PORT/` + `api/v1/…`); path parameters percent-encoded (`encodeURIComponent`).
 * - Headers: `Accept: application/json`; `Content-Type: application/json` on every operation with a
 *   request body, **also when that body is absent** (then no body at all); `Authorization: Bearer …`
 *   from its `bearerAuth` or `oauth` security; an empty `cookie` header; its own `user-agent`.
 * - GET lists: `page_size` and `page_token` in the query; POST searches `pageSize`/`pageToken`.
 * - Responses: only `200` with media type `application/json` is parsed (anything else is its error);
 *   each field is `nullable().optional()`, enums are open (unknown strings kept), a date-time must
 *   pass zod's `datetime({ offset: true })` (upper-case `T`/`Z`, seconds present: the validator's
 *   `date-time` format is that regex, `SDK_DATE_TIME`), int64 fields are strings (`numericId` is
 *   `parseInt` of a string).
 * - Tokens: the Go SDK's client-credentials hook posts `grant_type=client_credentials`,
 *   `client_id`, `client_secret` as a form to the token URL and refuses a `token_type` other than
 *   exactly `Bearer`; `expires_in` is a number of seconds.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadWorld } from "../world/load-world.js";
import { sampleJson, SUPER, type Body } from "../../test/helpers.js";
import { createApiClient } from "./auth/client-secret.js";
import { responseProblems, SDK_DATE_TIME } from "./openapi-validate.test-helper.js";
import { ROUTES } from "./routes/index.js";
import { type RunningServer, serve } from "./server.js";

const CLIENT_ID = "quiet-otter-51515@sim.conductor.one/pcc";
const SDK_USER_AGENT = "speakeasy-sdk/typescript 2.2.52 2.709.0 0.1.0-alpha conductorone-sdk-typescript";
let server: RunningServer;
let secret = "";
let token = "";
const served: string[] = [];

/** The request URL as the SDK builds it from `serverURL` and an operation path. */
function sdkUrl(serverURL: string, path: string, query = ""): string {
  const base = new URL(serverURL);
  base.pathname = `${base.pathname.replace(/\/+$/, "")}/`;
  const url = new URL(base);
  url.pathname += new URL(path, base).pathname.replace(/^\/+/, "");
  if (query !== "") url.search = `?${query}`;
  return url.toString();
}

interface SdkCall {
  readonly params?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string | number | undefined>>;
  /** The operation takes a request body; `undefined` sends none, as the SDK does for an absent optional body. */
  readonly hasBody?: boolean;
  readonly body?: unknown;
}

/** Sends one operation as the SDK does; answers the status, the media type and the parsed body. */
async function sdk(method: "GET" | "POST" | "PUT" | "DELETE", template: string, call: SdkCall = {}): Promise<{ status: number; mediaType: string; body: Body }> {
  const path = template.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(call.params?.[n] ?? ""));
  const query = Object.entries(call.query ?? {})
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join("&");
  const headers = new Headers({ Accept: "application/json" });
  if (call.hasBody === true) headers.set("Content-Type", "application/json");
  headers.set("Authorization", `Bearer ${token}`);
  headers.set("cookie", "");
  headers.set("user-agent", SDK_USER_AGENT);
  const res = await fetch(sdkUrl(`${server.url}/`, path, query), {
    method,
    headers,
    body: call.hasBody === true && call.body !== undefined ? JSON.stringify(call.body) : null,
  });
  served.push(`${method} ${template}`);
  const text = await res.text();
  return { status: res.status, mediaType: (res.headers.get("content-type") ?? "").split(";")[0]?.trim() ?? "", body: text === "" ? undefined : JSON.parse(text) };
}

/** What the SDK's parsers need beyond the OpenAPI's types: every `numericId` a string of digits. */
function sdkParseProblems(body: unknown, at = "$"): string[] {
  if (Array.isArray(body)) return body.flatMap((x, i) => sdkParseProblems(x, `${at}[${i}]`));
  if (typeof body !== "object" || body === null) return [];
  return Object.entries(body).flatMap(([k, v]) => [
    ...(k === "numericId" && !(typeof v === "string" && /^\d+$/.test(v)) ? [`${at}.${k} is ${JSON.stringify(v)}, not an int64 string`] : []),
    ...sdkParseProblems(v, `${at}.${k}`),
  ]);
}

/** The SDK's success path: 200, `application/json`, a body its parsers take. */
async function ok(method: "GET" | "POST" | "PUT" | "DELETE", template: string, call: SdkCall = {}): Promise<Body> {
  const r = await sdk(method, template, call);
  expect(r.status, `${method} ${template}: ${JSON.stringify(r.body).slice(0, 300)}`).toBe(200);
  expect(r.mediaType).toBe("application/json");
  expect(responseProblems(method, template, r.body), `${method} ${template}`).toEqual([]);
  expect(sdkParseProblems(r.body), `${method} ${template}`).toEqual([]);
  return r.body;
}

beforeAll(async () => {
  const made = await createApiClient({ clientId: CLIENT_ID, userId: SUPER, displayName: "sdk shapes" });
  secret = made.clientSecret;
  const loaded = loadWorld({ ...sampleJson(), clients: [made.client] });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
  server = await serve({ world: loaded.value, port: 0 });
});
afterAll(async () => server.close());

describe("SDK_DATE_TIME is zod's datetime({ offset: true }), what the TypeScript SDK parses dates with", () => {
  it.each(["2026-11-25T12:00:00Z", "2026-11-25T12:00:00.123456789Z", "2024-02-29T23:59:59+05:30", "2026-11-25T12:00:00-0800", "2026-11-25T12:00:00+01"])(
    "takes %s",
    (s) => expect(SDK_DATE_TIME.test(s)).toBe(true),
  );
  it.each(["2026-11-25t12:00:00Z", "2026-11-25T12:00:00z", "2026-11-25 12:00:00Z", "2026-11-25T12:00Z", "2023-02-29T00:00:00Z", "2026-11-25T23:59:60Z", "2026-11-25T12:00:00"])(
    "refuses %s",
    (s) => expect(SDK_DATE_TIME.test(s)).toBe(false),
  );
});

describe("openapi.yaml oauth scheme as the SDKs' client-credentials hook posts it", () => {
  it("client_id and client_secret as a form, no scope: token_type exactly Bearer, expires_in in seconds, and the token works", async () => {
    const res = await fetch(sdkUrl(`${server.url}/`, "/auth/v1/token"), {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "client_credentials", client_id: CLIENT_ID, client_secret: secret }).toString(),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Body;
    expect(body.token_type).toBe("Bearer");
    expect(Number.isInteger(body.expires_in) && body.expires_in > 60).toBe(true);
    token = body.access_token;
    const me = await ok("GET", "/api/v1/auth/introspect");
    expect(me.userId).toBe(SUPER);
  });
  it("RFC 6749 §2.3.1 client_secret_basic, what generic OAuth clients send: id and secret form-encoded in Authorization: Basic", async () => {
    const basic = (id: string, sec: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(sec)}`).toString("base64")}`;
    const post = (authorization: string) =>
      fetch(sdkUrl(`${server.url}/`, "/auth/v1/token"), {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: authorization },
        body: "grant_type=client_credentials",
      });
    const good = await post(basic(CLIENT_ID, secret));
    expect(good.status).toBe(200);
    expect(((await good.json()) as Body).token_type).toBe("Bearer");
    const wrong = await post(basic(CLIENT_ID, "secret-token:conductorone.com:v1:e30="));
    expect(wrong.status).toBe(401);
    expect((await post("Basic !!!")).status).toBe(401);
  });
  it("a wrong secret is the hook's non-2xx (401 invalid_client), never a 200 it would parse", async () => {
    const res = await fetch(sdkUrl(`${server.url}/`, "/auth/v1/token"), {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "client_credentials", client_id: CLIENT_ID, client_secret: "secret-token:conductorone.com:v1:e30=" }).toString(),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as Body).error).toBe("invalid_client");
  });
});

describe("openapi.yaml reads, sent as the SDK sends them (query paging, percent-encoded ids)", () => {
  it("task get (by numericId and by id), users, apps, entitlements, app users, defaults, configuration rules, policies", async () => {
    const json = sampleJson() as Body;
    const byNumber = await ok("GET", "/api/v1/tasks/{id}", { params: { id: "1001" } });
    expect(byNumber.taskView.task.numericId).toBe("1001");
    await ok("GET", "/api/v1/tasks/{id}", { params: { id: byNumber.taskView.task.id } });
    expect((await ok("GET", "/api/v1/users", { query: { page_size: 10 } })).list.length).toBe(10);
    await ok("GET", "/api/v1/users/{id}", { params: { id: SUPER } });
    const apps = await ok("GET", "/api/v1/apps", { query: { page_size: undefined, page_token: undefined } });
    const app = apps.list[0];
    await ok("GET", "/api/v1/apps/{id}", { params: { id: app.id } });
    const ents = await ok("GET", "/api/v1/apps/{app_id}/entitlements", { params: { app_id: app.id }, query: { page_size: 10 } });
    await ok("GET", "/api/v1/apps/{app_id}/entitlements/{id}", { params: { app_id: app.id, id: ents.list[0].appEntitlement.id } });
    await ok("GET", "/api/v1/apps/{app_id}/app_users", { params: { app_id: app.id } });
    const grant = json.grants.find((g: Body) => json.appUsers.some((a: Body) => a.appId === g.appId && a.identityUserId === g.identityUserId));
    const account = json.appUsers.find((a: Body) => a.appId === grant.appId && a.identityUserId === grant.identityUserId);
    await ok("GET", "/api/v1/apps/{app_id}/users/{user_id}/app_users", { params: { app_id: grant.appId, user_id: grant.identityUserId }, query: { page_size: 10 } });
    await ok("GET", "/api/v1/apps/{app_id}/entitlements/users/{app_user_id}", { params: { app_id: grant.appId, app_user_id: account.id } });
    await ok("GET", "/api/v1/apps/{app_id}/entitlements/{app_entitlement_id}/users", { params: { app_id: grant.appId, app_entitlement_id: grant.appEntitlementId } });
    await ok("GET", "/api/v1/apps/{app_id}/access_request_defaults", { params: { app_id: app.id } });
    await ok("GET", "/api/v1/apps/{app_id}/entitlement_configuration_rules", { params: { app_id: app.id } });
    const policies = await ok("GET", "/api/v1/policies", { query: { page_size: 100 } });
    expect(policies.list.map((p: Body) => p.id)).toEqual(json.policies.map((p: Body) => p.id));
    await ok("GET", "/api/v1/policies/{id}", { params: { id: json.policies[0].id } });
  });
  it("a page token travels percent-encoded in the query and the listing ends with an empty nextPageToken", async () => {
    const seen: string[] = [];
    let pageToken: string | undefined;
    for (let i = 0; i < 50; i++) {
      const page = await ok("GET", "/api/v1/users", { query: { page_size: 10, page_token: pageToken } });
      seen.push(...page.list.map((v: Body) => v.user.id));
      if (page.nextPageToken === "") break;
      pageToken = page.nextPageToken;
    }
    expect(seen).toEqual((sampleJson() as Body).users.map((u: Body) => u.id));
  });
  it("searches with the SDK's bodies, and with none at all (Content-Type sent, no body)", async () => {
    const tasks = await ok("POST", "/api/v1/search/tasks", {
      hasBody: true,
      body: { pageSize: 5, taskStates: ["TASK_STATE_OPEN"], createdAfter: new Date(Date.UTC(2020, 0, 1)).toISOString(), expandMask: { paths: ["*"] } },
    });
    expect(tasks.list.length).toBeGreaterThan(0);
    for (const path of ["/api/v1/search/tasks", "/api/v1/search/users", "/api/v1/search/apps", "/api/v1/search/entitlements", "/api/v1/search/app_users", "/api/v1/search/grants", "/api/v1/search/policies", "/api/v1/search/request_catalog/entitlements"])
      await ok("POST", path, { hasBody: true });
    await ok("POST", "/api/v1/task/audits", { hasBody: true, body: { taskId: "1001", pageSize: 10 } });
  });
});

describe("openapi.yaml grant and owner reads, as the SDK's GET operations send them (path ids percent-encoded, page_size/page_token in the query)", () => {
  it("SearchAppEntitlementsWithExpired, ListAppUsersForIdentityWithGrant, SearchAppEntitlementsForAppUser", async () => {
    const json = sampleJson() as Body;
    const grant = json.grants.find((g: Body) => json.appUsers.some((a: Body) => a.appId === g.appId && a.identityUserId === g.identityUserId));
    const account = json.appUsers.find((a: Body) => a.appId === grant.appId && a.identityUserId === grant.identityUserId);
    const expired = await ok("GET", "/api/v1/apps/{app_id}/entitlements/{app_entitlement_id}/grants", {
      params: { app_id: grant.appId, app_entitlement_id: grant.appEntitlementId },
      query: { page_size: 10, page_token: undefined },
    });
    expect(expired.list.some((r: Body) => r.appUserId === account.id)).toBe(true);
    const bindings = await ok("GET", "/api/v1/apps/{app_id}/entitlements/{app_entitlement_id}/users/{identity_user_id}/grants", {
      params: { app_id: grant.appId, app_entitlement_id: grant.appEntitlementId, identity_user_id: grant.identityUserId },
    });
    expect(bindings.bindings[0]).toMatchObject({ appUserId: account.id, appEntitlementId: grant.appEntitlementId });
    const held = await ok("GET", "/api/v1/search/apps/{app_id}/entitlements/users/{app_user_id}", { params: { app_id: grant.appId, app_user_id: account.id }, query: { page_size: 10 } });
    expect(held.list.map((v: Body) => v.appEntitlement.id)).toContain(grant.appEntitlementId);
  });
  it("AppOwners and AppEntitlementOwners List and ListOwnerIDs", async () => {
    const json = sampleJson() as Body;
    const ent = json.entitlements.find((e: Body) => (e.ownerUserIds ?? []).length > 0);
    expect((await ok("GET", "/api/v1/apps/{app_id}/ownerids", { params: { app_id: json.apps[0].id } })).userIds.length).toBeGreaterThan(0);
    expect((await ok("GET", "/api/v1/apps/{app_id}/owners", { params: { app_id: json.apps[0].id }, query: { page_size: 10 } })).list.length).toBeGreaterThan(0);
    const params = { app_id: ent.appId, entitlement_id: ent.id };
    expect((await ok("GET", "/api/v1/apps/{app_id}/entitlements/{entitlement_id}/ownerids", { params })).userIds).toEqual(ent.ownerUserIds);
    expect((await ok("GET", "/api/v1/apps/{app_id}/entitlements/{entitlement_id}/owners", { params })).list.length).toBeGreaterThan(0);
  });
});

describe("openapi.yaml roles, access reviews, resources and introspection, as the SDK sends them", () => {
  it("GET lists with page_size/page_token, GETs by percent-encoded id, searches and introspect with a body or none", async () => {
    const json = sampleJson() as Body;
    const roles = await ok("GET", "/api/v1/iam/roles", { query: { page_size: 10, page_token: undefined } });
    await ok("GET", "/api/v1/iam/roles/{role_id}", { params: { role_id: roles.list[0].id } });
    const reviews = await ok("GET", "/api/v1/access_reviews", { query: { page_size: 10 } });
    await ok("GET", "/api/v1/access_review/{id}", { params: { id: reviews.list[0].accessReview.id } });
    const ent = json.entitlements.find((e: Body) => e.appResourceTypeId && e.appResourceId);
    const types = await ok("GET", "/api/v1/apps/{app_id}/resource_types", { params: { app_id: ent.appId }, query: { page_size: 10 } });
    expect(types.list.map((t: Body) => t.appResourceType.id)).toContain(ent.appResourceTypeId);
    await ok("GET", "/api/v1/apps/{app_id}/resource_types/{id}", { params: { app_id: ent.appId, id: ent.appResourceTypeId } });
    const resources = await ok("GET", "/api/v1/apps/{app_id}/resource_types/{app_resource_type_id}/resources", {
      params: { app_id: ent.appId, app_resource_type_id: ent.appResourceTypeId },
      query: { page_size: 10 },
    });
    expect(resources.list.map((r: Body) => r.appResource.id)).toContain(ent.appResourceId);
    await ok("GET", "/api/v1/apps/{app_id}/resource_types/{app_resource_type_id}/resources/{id}", {
      params: { app_id: ent.appId, app_resource_type_id: ent.appResourceTypeId, id: ent.appResourceId },
    });
    const on = await ok("GET", "/api/v1/apps/{app_id}/entitlements/resource_types/{app_resource_type_id}/resources/{app_resource_id}", {
      params: { app_id: ent.appId, app_resource_type_id: ent.appResourceTypeId, app_resource_id: ent.appResourceId },
      query: { page_size: 10 },
    });
    expect(on.list.map((v: Body) => v.appEntitlement.id)).toContain(ent.id);
    for (const path of ["/api/v1/search/app_resource_types", "/api/v1/search/app_resources"]) await ok("POST", path, { hasBody: true });
    await ok("POST", "/api/v1/search/app_resources", { hasBody: true, body: { appId: ent.appId, resourceTypeIds: [ent.appResourceTypeId], pageSize: 10 } });
    const owner = json.apps[0].ownerUserIds[0];
    expect((await ok("POST", "/api/v1/search/user-ownership", { hasBody: true, body: { userId: owner, ownershipTypes: ["USER_OWNERSHIP_TYPE_APP"], pageSize: 10 } })).list[0].appId).toBe(json.apps[0].id);
    expect((await ok("POST", "/api/v1/users/introspect", { hasBody: true })).userView.user.id).toBe(SUPER);
    expect((await ok("POST", "/api/v1/users/introspect", { hasBody: true, body: { expandMask: { paths: ["*"] } } })).userView.userId).toBe(SUPER);
  });
});

describe("openapi.yaml AppOwners and AppEntitlementOwners writes, as the SDK sends them (Content-Type always, DELETE with its JSON body)", () => {
  it("Add, Remove, Set, Delete answer {} and the owner ids follow", async () => {
    const json = sampleJson() as Body;
    const app = json.apps.find((a: Body) => a.id === "app-salesforce");
    const ids = async () => (await ok("GET", "/api/v1/apps/{app_id}/ownerids", { params: { app_id: app.id } })).userIds;
    expect(await ok("POST", "/api/v1/apps/{app_id}/owners/{user_id}", { params: { app_id: app.id, user_id: SUPER }, hasBody: true })).toEqual({});
    expect(await ids()).toEqual([...app.ownerUserIds, SUPER]);
    await ok("DELETE", "/api/v1/apps/{app_id}/owners/{user_id}", { params: { app_id: app.id, user_id: SUPER }, hasBody: true });
    await ok("PUT", "/api/v1/apps/{app_id}/owners", { params: { app_id: app.id }, hasBody: true, body: { userIds: [SUPER, ...app.ownerUserIds] } });
    await ok("DELETE", "/api/v1/apps/{app_id}/owners", { params: { app_id: app.id }, hasBody: true, body: { userIds: [SUPER] } });
    expect(await ids()).toEqual(app.ownerUserIds);
    const ent = json.entitlements.find((e: Body) => e.appId === app.id);
    const params = { app_id: ent.appId, entitlement_id: ent.id };
    await ok("POST", "/api/v1/apps/{app_id}/entitlements/{entitlement_id}/owners", { params, hasBody: true, body: { userId: SUPER } });
    await ok("DELETE", "/api/v1/apps/{app_id}/entitlements/{entitlement_id}/owners/{user_id}", { params: { ...params, user_id: SUPER }, hasBody: true });
    await ok("PUT", "/api/v1/apps/{app_id}/entitlements/{entitlement_id}/owners", { params, hasBody: true, body: { userIds: [SUPER] } });
    expect((await ok("GET", "/api/v1/apps/{app_id}/entitlements/{entitlement_id}/ownerids", { params })).userIds).toEqual([SUPER]);
    await ok("DELETE", "/api/v1/apps/{app_id}/entitlements/{entitlement_id}/owners", { params, hasBody: true });
    expect((await ok("GET", "/api/v1/apps/{app_id}/entitlements/{entitlement_id}/ownerids", { params })).userIds).toEqual([]);
  });
});

describe("openapi.yaml UserService.SetExpiringUserDelegationBindingByAdmin, as the SDK sends it", () => {
  it("sets a delegate with the SDK's dates (toISOString), answers the binding, and removes it with an empty delegatedUserId", async () => {
    const params = { user_id: "u-sre-lead" };
    const path = "/api/v1/users/{user_id}/set-delegation-by-admin";
    const set = await ok("POST", path, { params, hasBody: true, body: { delegatedUserId: "u-dev3", delegationExpireAt: new Date(Date.UTC(2999, 0, 1)).toISOString() } });
    expect(set.item).toMatchObject({ userId: "u-sre-lead", delegatedUserId: "u-dev3", expirationAt: "2999-01-01T00:00:00.000Z" });
    expect((await ok("POST", path, { params, hasBody: true, body: { delegatedUserId: "" } })).item).toBeNull();
  });
});

describe("openapi.yaml Apps.Update and AppEntitlements.Update, as the SDK sends them ({app|entitlement, updateMask} as a string)", () => {
  it("updates the salesforce app's display name and one entitlement's risk level", async () => {
    const json = sampleJson() as Body;
    const app = json.apps.find((a: Body) => a.id === "app-salesforce");
    const updated = await ok("POST", "/api/v1/apps/{id}", { params: { id: app.id }, hasBody: true, body: { app: { displayName: `${app.displayName} (sim)` }, updateMask: "displayName" } });
    expect(updated.app.displayName).toBe(`${app.displayName} (sim)`);
    const ent = json.entitlements.find((e: Body) => e.appId === app.id);
    const body = { entitlement: { riskLevelValueId: "high" }, updateMask: "riskLevelValueId", expandMask: { paths: [] }, overrideAccessRequestsDefaults: false };
    const e = await ok("POST", "/api/v1/apps/{app_id}/entitlements/{id}", { params: { app_id: app.id, id: ent.id }, hasBody: true, body });
    expect(e.appEntitlementView.appEntitlement.riskLevelValueId).toBe("high");
  });
});

describe("openapi.yaml AppEntitlementRoutingRuleService writes, as the SDK sends them", () => {
  it("create, update, reorder, delete on an app without rules leave it without rules", async () => {
    const params = { app_id: "app-pagerduty" };
    const path = "/api/v1/apps/{app_id}/entitlement_configuration_rules";
    const made = await ok("POST", path, { params, hasBody: true, body: { displayName: "SDK", condition: "", enabled: false, priority: 0, settings: { requestPolicyId: "pol-default-grant" } } });
    const id = made.routingRule.id;
    await ok("POST", `${path}/{id}`, { params: { ...params, id }, hasBody: true, body: { description: "from the SDK" } });
    expect((await ok("POST", `${path}/reorder`, { params, hasBody: true, body: { ruleIds: [id] } })).list[0].description).toBe("from the SDK");
    expect(await ok("DELETE", `${path}/{id}`, { params: { ...params, id }, hasBody: true })).toEqual({});
    expect((await ok("GET", path, { params })).list).toEqual([]);
  });
});

describe("openapi.yaml AppAccessRequestsDefaultsService writes, as the SDK sends them", () => {
  it("create or replace, then cancel, on an app the other tests do not route", async () => {
    const params = { app_id: "app-pagerduty" };
    const body = { defaultsEnabled: true, resourceTypeIds: ["rt-team"], requestPolicyId: "pol-default-grant", emergencyGrantEnabled: false, emergencyGrantPolicyId: "", catalogIds: [], durationUnset: {} };
    const set = await ok("POST", "/api/v1/apps/{app_id}/access_request_defaults", { params, hasBody: true, body });
    expect(set).toMatchObject({ appId: "app-pagerduty", defaultsEnabled: true, resourceTypeIds: ["rt-team"] });
    expect(await ok("POST", "/api/v1/apps/{app_id}/access_request_defaults/cancel", { params, hasBody: true })).toEqual(set);
    await ok("POST", "/api/v1/apps/{app_id}/access_request_defaults", { params, hasBody: true, body: { defaultsEnabled: false } });
  });
});

describe("openapi.yaml AccessReviewService Create and Update, as the SDK sends them", () => {
  it("creates a campaign and renames it with an updateMask string", async () => {
    const made = await ok("POST", "/api/v1/access_review", { hasBody: true, body: { displayName: "SDK campaign", policyId: "pol-certify-default", ownerIds: [SUPER] } });
    const id = made.accessReview.accessReview.id;
    const renamed = await ok("POST", "/api/v1/access_review/{id}", { params: { id }, hasBody: true, body: { accessReview: { displayName: "SDK campaign (renamed)" }, updateMask: "displayName" } });
    expect(renamed.accessReview.accessReview).toMatchObject({ id, displayName: "SDK campaign (renamed)", policyId: "pol-certify-default" });
  });
});

describe("openapi.yaml TaskActionsService and TaskService, as the SDK sends them", () => {
  it("comment with an expand mask, and actions whose optional body the SDK leaves out", async () => {
    const c = await ok("POST", "/api/v1/tasks/{task_id}/action/comment", { params: { task_id: "1001" }, hasBody: true, body: { comment: "from the SDK", expandMask: { paths: ["*"] } } });
    expect(c.taskView.task.commentCount).toBeGreaterThan(0);
    // Hard Reset and Process Now take an optional body: the SDK then sends Content-Type and nothing else.
    const reset = await ok("POST", "/api/v1/tasks/{task_id}/action/reset", { params: { task_id: "1001" }, hasBody: true });
    expect(reset.taskView.task.numericId).toBe("1001");
  });
  it("creates a grant task with the SDK's body (its dates as toISOString writes them)", async () => {
    const json = sampleJson() as Body;
    const ent = json.entitlements[0];
    const created = await ok("POST", "/api/v1/task/grant", {
      hasBody: true,
      body: { appEntitlementId: ent.id, appId: ent.appId, identityUserId: SUPER, description: "via the SDK", grantDuration: "3600s" },
    });
    expect(created.taskView.task.state).toBe("TASK_STATE_OPEN");
    expect(typeof created.taskView.task.numericId).toBe("string");
  });
});

describe("a world written with a lower-case t and z answers the SDK upper-case (zod refuses the lower case)", () => {
  it("task timestamps read from such a world parse in the SDK", async () => {
    const json = sampleJson() as Body;
    const lower = (s: unknown) => (typeof s === "string" ? s.replace("T", "t").replace(/Z$/, "z") : s);
    const tasks = json.tasks.map((t: Body) => ({ ...t, createdAt: lower(t.createdAt), updatedAt: lower(t.updatedAt) }));
    const loaded = loadWorld({ ...json, tasks, now: lower(json.now) });
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
    const other = await serve({ world: loaded.value, port: 0 });
    try {
      const res = await fetch(`${other.url}/api/v1/tasks/1001`, { headers: { Authorization: "Bearer tok-super", Accept: "application/json" } });
      const body = (await res.json()) as Body;
      expect(res.status).toBe(200);
      expect(SDK_DATE_TIME.test(body.taskView.task.createdAt)).toBe(true);
      expect(responseProblems("GET", "/api/v1/tasks/{id}", body)).toEqual([]);
    } finally {
      await other.close();
    }
  });
});

describe("coverage", () => {
  it("every GET and every search route was sent in the SDK's shape", () => {
    const expected = ROUTES.filter((r) => (r.method === "GET" && !r.path.endsWith("/{id}")) || r.path.startsWith("/api/v1/search/")).map((r) => `${r.method} ${r.path}`);
    expect(expected.filter((r) => !served.includes(r))).toEqual([]);
  });
});
