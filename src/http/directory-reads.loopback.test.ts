/**
 * Loopback tests of the directory reads a tenant export walks beyond the basic lists: grants by
 * entitlement, an identity's accounts with their grant, an account's entitlements, owners of apps
 * and entitlements, roles, access reviews and the caller's own user. Each 2xx body is validated
 * against its operation's schema in openapi.yaml, each error body against google.rpc.Status, and
 * each answer against the world it was read from (issue 12, point 3).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleJson, sampleWorld, SUPER, worldOf, type Body } from "../../test/helpers.js";
import { checkedCaller } from "./loopback.test-helper.js";
import { grantCreatedAt } from "./routes/grant-times.js";
import { type RunningServer, serve } from "./server.js";

const world = sampleWorld();
const json = sampleJson() as Body;
let server: RunningServer;

const call = checkedCaller(() => server.url);

/** A GET list read to its end with `page_size`/`page_token`, as a tenant export reads it. */
async function readAll(template: string, params: Record<string, string>, size = 10): Promise<Body[]> {
  const items: Body[] = [];
  let pageToken = "";
  for (let i = 0; i < 100; i++) {
    const body = await call("GET", template, { params, query: `page_size=${size}${pageToken ? `&page_token=${encodeURIComponent(pageToken)}` : ""}` });
    items.push(...body.list);
    pageToken = body.nextPageToken;
    if (pageToken === "") return items;
  }
  throw new Error("paging did not end");
}

/** The account that holds a user's grants in an app: the user's first account there. */
const accountOf = (appId: string, userId: string): Body | undefined => json.appUsers.find((a: Body) => a.appId === appId && a.identityUserId === userId);

beforeAll(async () => {
  server = await serve({ world, port: 0 });
});
afterAll(async () => server.close());

const WITH_EXPIRED = "/api/v1/apps/{app_id}/entitlements/{app_entitlement_id}/grants";
const FOR_IDENTITY = "/api/v1/apps/{app_id}/entitlements/{app_entitlement_id}/users/{identity_user_id}/grants";
const SEARCH_FOR_APP_USER = "/api/v1/search/apps/{app_id}/entitlements/users/{app_user_id}";

describe("openapi.yaml AppEntitlementSearchService.SearchAppEntitlementsWithExpired: GET …/entitlements/{app_entitlement_id}/grants", () => {
  it("lists every grant of every entitlement with its account and user, paged by page_size/page_token until nextPageToken is empty", async () => {
    for (const e of json.entitlements) {
      const rows = await readAll(WITH_EXPIRED, { app_id: e.appId, app_entitlement_id: e.id });
      const grants = json.grants.filter((g: Body) => g.appId === e.appId && g.appEntitlementId === e.id);
      expect(rows.map((r) => r.user?.id ?? "")).toEqual(grants.map((g: Body) => g.identityUserId));
      for (const r of rows) {
        expect(r).toMatchObject({ appId: e.appId, appEntitlementId: e.id, expired: null });
        expect(r.appUserId).toBe(accountOf(e.appId, r.user.id)?.id ?? "");
        if (r.appUserId !== "") expect(r.appUser.identityUserId).toBe(r.user.id);
      }
    }
  });
  it("the 21 holders of ent-okta-mfa come in three pages of 10, 10 and 1", async () => {
    const params = { app_id: "app-okta", app_entitlement_id: "ent-okta-mfa" };
    const first = await call("GET", WITH_EXPIRED, { params, query: "page_size=10" });
    expect(first.list).toHaveLength(10);
    const second = await call("GET", WITH_EXPIRED, { params, query: `page_size=10&page_token=${encodeURIComponent(first.nextPageToken)}` });
    const third = await call("GET", WITH_EXPIRED, { params, query: `page_size=10&page_token=${encodeURIComponent(second.nextPageToken)}` });
    expect([second.list.length, third.list.length, third.nextPageToken]).toEqual([10, 1, ""]);
  });
  it("an unknown app or entitlement is NOT_FOUND (404); a bad page_size is INVALID_ARGUMENT (400)", async () => {
    expect((await call("GET", WITH_EXPIRED, { params: { app_id: "app-nope", app_entitlement_id: "ent-okta-mfa" }, expect: 404 })).code).toBe(5);
    expect((await call("GET", WITH_EXPIRED, { params: { app_id: "app-okta", app_entitlement_id: "ent-nope" }, expect: 404 })).code).toBe(5);
    expect((await call("GET", WITH_EXPIRED, { params: { app_id: "app-okta", app_entitlement_id: "ent-okta-mfa" }, query: "page_size=ten", expect: 400 })).code).toBe(3);
  });
});

describe("openapi.yaml AppEntitlementUserBindingService.ListAppUsersForIdentityWithGrant: every account of the identity, grant data only where it holds the entitlement", () => {
  it("a holder's account carries the entitlement; a non-holder's accounts only the app and account ids", async () => {
    for (const e of json.entitlements) {
      for (const u of json.users) {
        const accounts = json.appUsers.filter((a: Body) => a.appId === e.appId && a.identityUserId === u.id);
        const body = await call("GET", FOR_IDENTITY, { params: { app_id: e.appId, app_entitlement_id: e.id, identity_user_id: u.id } });
        expect(body.bindings.map((b: Body) => b.appUserId)).toEqual(accounts.map((a: Body) => a.id));
        const holds = json.grants.some((g: Body) => g.appId === e.appId && g.appEntitlementId === e.id && g.identityUserId === u.id);
        const granted = body.bindings.filter((b: Body) => b.appEntitlementId === e.id).map((b: Body) => b.appUserId);
        expect(granted, `${e.id} ${u.id}`).toEqual(holds && accounts.length > 0 ? [accounts[0].id] : []);
      }
    }
  });
  it('"With a grant, the whole struct is populated": createdAt is the grant\'s own, else the outcome time of the task that granted it, else the epoch stand-in; without one it is null (cone has counts a grant by createdAt)', async () => {
    const at = async (app_id: string, app_entitlement_id: string, identity_user_id: string): Promise<unknown[]> =>
      (await call("GET", FOR_IDENTITY, { params: { app_id, app_entitlement_id, identity_user_id } })).bindings.map((b: Body) => (b.appEntitlementId === "" ? null : b.createdAt));
    // Task 1013 granted ent-aws-prod-readonly to u-dev2 at 2026-11-10T11:31:00Z.
    expect(await at("app-aws", "ent-aws-prod-readonly", "u-dev2")).toContain("2026-11-10T11:31:00Z");
    // u-dev1 holds it with no task on record: the time the world file gives it.
    const own = json.grants.find((g: Body) => g.appEntitlementId === "ent-aws-prod-readonly" && g.identityUserId === "u-dev1")?.createdAt;
    expect(own).toMatch(/^20\d\d-/);
    expect(await at("app-aws", "ent-aws-prod-readonly", "u-dev1")).toContain(own);
    // A grant the world gives no time, made by no task: the epoch stand-in.
    expect(grantCreatedAt(world, { appId: "app-aws", appEntitlementId: "ent-aws-prod-readonly", identityUserId: "u-dev1" })).toBe("1970-01-01T00:00:00Z");
    const users = (await call("GET", "/api/v1/apps/{app_id}/entitlements/{app_entitlement_id}/users", { params: { app_id: "app-aws", app_entitlement_id: "ent-aws-prod-readonly" }, query: "page_size=100" })).list;
    expect(users.length).toBeGreaterThan(0);
    for (const v of users) expect(v.appEntitlementUserBindingCreatedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });
  it("unknown app, entitlement or user is NOT_FOUND (404)", async () => {
    for (const params of [
      { app_id: "app-nope", app_entitlement_id: "ent-okta-mfa", identity_user_id: SUPER },
      { app_id: "app-okta", app_entitlement_id: "ent-nope", identity_user_id: SUPER },
      { app_id: "app-okta", app_entitlement_id: "ent-okta-mfa", identity_user_id: "u-nope" },
    ])
      expect((await call("GET", FOR_IDENTITY, { params, expect: 404 })).code).toBe(5);
  });
});

describe("openapi.yaml AppEntitlementSearchService.SearchAppEntitlementsForAppUser: GET /api/v1/search/apps/{app_id}/entitlements/users/{app_user_id}", () => {
  it("answers the entitlements each account holds, as AppEntitlements.ListForAppUser does", async () => {
    for (const a of json.appUsers) {
      const params = { app_id: a.appId, app_user_id: a.id };
      const searched = await readAll(SEARCH_FOR_APP_USER, params, 10);
      const listed = await readAll("/api/v1/apps/{app_id}/entitlements/users/{app_user_id}", params, 10);
      expect(searched).toEqual(listed);
      const held = new Set(json.grants.filter((g: Body) => g.appId === a.appId && g.identityUserId === a.identityUserId).map((g: Body) => g.appEntitlementId));
      expect(new Set(searched.map((v) => v.appEntitlement.id))).toEqual(new Set([...held].filter((id) => json.entitlements.some((e: Body) => e.appId === a.appId && e.id === id))));
    }
  });
  it("an unknown app or account is NOT_FOUND (404)", async () => {
    expect((await call("GET", SEARCH_FOR_APP_USER, { params: { app_id: "app-nope", app_user_id: json.appUsers[0].id }, expect: 404 })).code).toBe(5);
    expect((await call("GET", SEARCH_FOR_APP_USER, { params: { app_id: "app-okta", app_user_id: "au-nope" }, expect: 404 })).code).toBe(5);
  });
});

describe("openapi.yaml AppOwners and AppEntitlementOwners: List and ListOwnerIDs", () => {
  it("every app's owners, as ids and as Users", async () => {
    for (const app of json.apps) {
      const ids = await call("GET", "/api/v1/apps/{app_id}/ownerids", { params: { app_id: app.id } });
      expect(ids.userIds).toEqual(world.index.apps.get(app.id)?.ownerUserIds);
      const users = await readAll("/api/v1/apps/{app_id}/owners", { app_id: app.id });
      expect(users.map((u) => u.id)).toEqual(ids.userIds.filter((id: string) => world.index.users.has(id)));
    }
  });
  it("every entitlement's owners, as ids and as Users", async () => {
    for (const e of json.entitlements) {
      const params = { app_id: e.appId, entitlement_id: e.id };
      const ids = await call("GET", "/api/v1/apps/{app_id}/entitlements/{entitlement_id}/ownerids", { params });
      expect(ids.userIds).toEqual(e.ownerUserIds ?? []);
      const users = await readAll("/api/v1/apps/{app_id}/entitlements/{entitlement_id}/owners", params);
      expect(users.map((u) => u.id)).toEqual(ids.userIds.filter((id: string) => world.index.users.has(id)));
    }
  });
  it("an unknown app or entitlement is NOT_FOUND (404)", async () => {
    expect((await call("GET", "/api/v1/apps/{app_id}/ownerids", { params: { app_id: "app-nope" }, expect: 404 })).code).toBe(5);
    expect((await call("GET", "/api/v1/apps/{app_id}/owners", { params: { app_id: "app-nope" }, expect: 404 })).code).toBe(5);
    const params = { app_id: "app-aws", entitlement_id: "ent-nope" };
    expect((await call("GET", "/api/v1/apps/{app_id}/entitlements/{entitlement_id}/ownerids", { params, expect: 404 })).code).toBe(5);
    expect((await call("GET", "/api/v1/apps/{app_id}/entitlements/{entitlement_id}/owners", { params, expect: 404 })).code).toBe(5);
  });
});

describe("openapi.yaml Roles.List and Roles.Get: GET /api/v1/iam/roles", () => {
  it("lists the world's roles, paged, and gets each by id", async () => {
    const listed = await readAll("/api/v1/iam/roles", {}, 10);
    expect(listed.map((r) => [r.id, r.displayName, r.name])).toEqual(json.roles.map((r: Body) => [r.id, r.displayName, r.kind]));
    for (const r of json.roles) expect((await call("GET", "/api/v1/iam/roles/{role_id}", { params: { role_id: r.id } })).role.id).toBe(r.id);
    expect((await call("GET", "/api/v1/iam/roles/{role_id}", { params: { role_id: "r-nope" }, expect: 404 })).code).toBe(5);
  });
});

describe("openapi.yaml AccessReviewService.List and Get: GET /api/v1/access_reviews, /api/v1/access_review/{id}", () => {
  it("lists the world's campaigns, paged, and gets each by id", async () => {
    const listed = await readAll("/api/v1/access_reviews", {}, 10);
    expect(listed.map((v) => v.accessReview.id)).toEqual(json.accessReviews.map((r: Body) => r.id));
    for (const r of json.accessReviews) {
      const got = await call("GET", "/api/v1/access_review/{id}", { params: { id: r.id } });
      expect(got.accessReview.accessReview).toMatchObject({ id: r.id, displayName: r.displayName, policyId: r.policyId, usePolicyOverride: r.usePolicyOverride });
    }
    expect((await call("GET", "/api/v1/access_review/{id}", { params: { id: "ar-nope" }, expect: 404 })).code).toBe(5);
  });
});

describe("openapi.yaml UserService.Introspect: POST /api/v1/users/introspect answers the caller's UserView", () => {
  it("with an expand mask and with an empty body", async () => {
    expect((await call("POST", "/api/v1/users/introspect", { body: { expandMask: { paths: ["*"] } } })).userView.user.id).toBe(SUPER);
    expect((await call("POST", "/api/v1/users/introspect", { body: {} })).userView.userId).toBe(SUPER);
  });
});

describe("openapi.yaml app resources and resource types, as the world's entitlements name them", () => {
  const typesOf = (appId: string) => [...new Set(json.entitlements.filter((e: Body) => e.appId === appId && e.appResourceTypeId).map((e: Body) => e.appResourceTypeId))];
  const resourcesOf = (appId: string, typeId: string) => [
    ...new Set(json.entitlements.filter((e: Body) => e.appId === appId && e.appResourceTypeId === typeId && e.appResourceId).map((e: Body) => e.appResourceId)),
  ];
  it("every app's resource types and every type's resources, listed, got, and the entitlements on each resource", async () => {
    let total = 0;
    for (const app of json.apps) {
      const types = await readAll("/api/v1/apps/{app_id}/resource_types", { app_id: app.id });
      expect(types.map((t) => t.appResourceType.id)).toEqual(typesOf(app.id));
      for (const t of types) {
        const typeId = t.appResourceType.id;
        await call("GET", "/api/v1/apps/{app_id}/resource_types/{id}", { params: { app_id: app.id, id: typeId } });
        const listed = await readAll("/api/v1/apps/{app_id}/resource_types/{app_resource_type_id}/resources", { app_id: app.id, app_resource_type_id: typeId });
        expect(listed.map((r) => r.appResource.id)).toEqual(resourcesOf(app.id, typeId));
        for (const r of listed) {
          const params = { app_id: app.id, app_resource_type_id: typeId, id: r.appResource.id };
          expect((await call("GET", "/api/v1/apps/{app_id}/resource_types/{app_resource_type_id}/resources/{id}", { params })).appResourceView).toEqual(r);
          const ents = await readAll("/api/v1/apps/{app_id}/entitlements/resource_types/{app_resource_type_id}/resources/{app_resource_id}", {
            app_id: app.id,
            app_resource_type_id: typeId,
            app_resource_id: r.appResource.id,
          });
          const on = json.entitlements.filter((e: Body) => e.appId === app.id && e.appResourceTypeId === typeId && e.appResourceId === r.appResource.id);
          expect(ents.map((v) => v.appEntitlement.id)).toEqual(on.map((e: Body) => e.id));
          const grants = json.grants.filter((g: Body) => g.appId === app.id && on.some((e: Body) => e.id === g.appEntitlementId)).length;
          expect(r.appResource.grantCount).toBe(String(grants));
          total += ents.length;
        }
      }
    }
    expect(total).toBe(json.entitlements.filter((e: Body) => e.appResourceTypeId && e.appResourceId).length);
  });
  it("searches: by app, by type, by text, by account; unmodelled restrictions are UNIMPLEMENTED (501), their SDK defaults accepted", async () => {
    const types = await call("POST", "/api/v1/search/app_resource_types", { body: { appIds: ["app-aws"], pageSize: 100 } });
    expect(types.list.map((t: Body) => t.id)).toEqual(typesOf("app-aws"));
    const traits = await call("POST", "/api/v1/search/app_resource_types", { body: { resourceTypeTraitIds: ["t-group"] }, expect: 501 });
    expect(traits).toMatchObject({ code: 12, details: [{ reason: "UNMODELLED_FIELD", metadata: { field: "resourceTypeTraitIds" } }] });
    expect((await call("POST", "/api/v1/search/app_resource_types", { body: { resourceTypeTraitIds: [], appIds: ["app-aws"], pageSize: 100 } })).list.length).toBe(typesOf("app-aws").length);
    const prod = await call("POST", "/api/v1/search/app_resources", { body: { appId: "app-aws", query: "prod", pageSize: 100 } });
    expect(prod.list.length).toBeGreaterThan(0);
    for (const v of prod.list) expect(v.appResource.id).toMatch(/prod/);
    const account = json.appUsers.find((a: Body) => a.appId === "app-aws");
    const held = await call("POST", "/api/v1/search/app_resources", { body: { appUserIds: [account.id], pageSize: 100 } });
    const mine = new Set(
      json.grants
        .filter((g: Body) => g.appId === "app-aws" && g.identityUserId === account.identityUserId)
        .map((g: Body) => json.entitlements.find((e: Body) => e.appId === "app-aws" && e.id === g.appEntitlementId)?.appResourceId)
        .filter(Boolean),
    );
    expect(new Set(held.list.map((v: Body) => v.appResource.id))).toEqual(mine);
    for (const body of [{ nhiTypes: ["NHI_TYPE_ASSUMABLE_ROLE"] }, { ownerUserIds: [SUPER] }, { ownerUserIds: ["none"] }, { unownedOnly: true }, { secretAging: {} }])
      expect((await call("POST", "/api/v1/search/app_resources", { body, expect: 501 })).details[0].metadata.field).toBe(Object.keys(body)[0]);
    const defaults = { nhiTypes: [], ownerUserIds: [], unownedOnly: false, secretAging: null, sortField: "APP_RESOURCE_SORT_FIELD_UNSPECIFIED", pageSize: 100 };
    expect((await call("POST", "/api/v1/search/app_resources", { body: defaults })).list.length).toBeGreaterThan(0);
    expect((await call("POST", "/api/v1/search/app_resources", { body: { resourceIds: "x" }, expect: 400 })).code).toBe(3);
  });
  it("unknown app, type or resource is NOT_FOUND (404)", async () => {
    expect((await call("GET", "/api/v1/apps/{app_id}/resource_types", { params: { app_id: "app-nope" }, expect: 404 })).code).toBe(5);
    expect((await call("GET", "/api/v1/apps/{app_id}/resource_types/{id}", { params: { app_id: "app-aws", id: "rt-nope" }, expect: 404 })).code).toBe(5);
    const params = { app_id: "app-aws", app_resource_type_id: "rt-role", id: "res-nope" };
    expect((await call("GET", "/api/v1/apps/{app_id}/resource_types/{app_resource_type_id}/resources/{id}", { params, expect: 404 })).code).toBe(5);
    expect((await call("GET", "/api/v1/apps/{app_id}/resource_types/{app_resource_type_id}/resources", { params: { app_id: "app-aws", app_resource_type_id: "rt-nope" }, expect: 404 })).code).toBe(5);
    expect(
      (
        await call("GET", "/api/v1/apps/{app_id}/entitlements/resource_types/{app_resource_type_id}/resources/{app_resource_id}", {
          params: { app_id: "app-aws", app_resource_type_id: "rt-role", app_resource_id: "res-nope" },
          expect: 404,
        })
      ).code,
    ).toBe(5);
  });
});

describe("openapi.yaml AppSearch.SearchUserOwnership: POST /api/v1/search/user-ownership", () => {
  it("every user's apps and entitlements owned, as the world's ownerUserIds say, paged", async () => {
    for (const u of json.users) {
      const entries: Body[] = [];
      let pageToken = "";
      do {
        const body = await call("POST", "/api/v1/search/user-ownership", { body: { userId: u.id, pageSize: 10, pageToken } });
        entries.push(...body.list);
        pageToken = body.nextPageToken;
      } while (pageToken !== "");
      const apps = json.apps.filter((a: Body) => (a.ownerUserIds ?? []).includes(u.id)).map((a: Body) => `app ${a.id}`);
      const ents = json.entitlements.filter((e: Body) => (e.ownerUserIds ?? []).includes(u.id)).map((e: Body) => `ent ${e.appId}/${e.id}`);
      expect(entries.map((x) => (x.ownershipType === "USER_OWNERSHIP_TYPE_APP" ? `app ${x.appId}` : `ent ${x.appId}/${x.entitlementId}`))).toEqual([...apps, ...ents]);
    }
  });
  it("ownershipTypes narrows to one kind; a missing userId is INVALID_ARGUMENT (400), an unknown one NOT_FOUND (404)", async () => {
    const onlyApps = await call("POST", "/api/v1/search/user-ownership", { body: { userId: "u-sre-lead", ownershipTypes: ["USER_OWNERSHIP_TYPE_APP"], pageSize: 100 } });
    expect(onlyApps.list.length).toBeGreaterThan(0);
    expect(onlyApps.list.every((x: Body) => x.ownershipType === "USER_OWNERSHIP_TYPE_APP")).toBe(true);
    expect((await call("POST", "/api/v1/search/user-ownership", { body: {}, expect: 400 })).code).toBe(3);
    expect((await call("POST", "/api/v1/search/user-ownership", { body: { userId: "u-nope" }, expect: 404 })).code).toBe(5);
  });
});

describe("openapi.yaml c1.api.app.v1.App and AppEntitlement as the SDKs decode them (SDK decode review)", () => {
  it("App.appOwners: \"The owners of the app\", as Users, on every read of an app", async () => {
    const aws = json.apps.find((a: Body) => a.id === "app-aws");
    expect(aws.ownerUserIds.length).toBeGreaterThan(0);
    const got = (await call("GET", "/api/v1/apps/{id}", { params: { id: "app-aws" } })).app;
    expect(got.appOwners.map((u: Body) => u.id)).toEqual(aws.ownerUserIds);
    expect(got.appOwners[0]).toMatchObject({ id: aws.ownerUserIds[0], email: expect.any(String) });
    const listed = (await call("GET", "/api/v1/apps", { query: "page_size=100" })).list.find((a: Body) => a.id === "app-aws");
    expect(listed.appOwners.map((u: Body) => u.id)).toEqual(aws.ownerUserIds);
    // And an app a task view expands.
    const found = await call("POST", "/api/v1/search/tasks", { body: { pageSize: 100, expandMask: { paths: ["app_id"] } } });
    const expandedAws = found.expanded.find((x: Body) => x.id === "app-aws");
    expect(expandedAws?.appOwners.map((u: Body) => u.id)).toEqual(aws.ownerUserIds);
  });

  it("int64 counts a world file writes as numbers are answered as int64 strings, an int32 written as a string as its number, timestamps in UTC with T and Z", async () => {
    const edited = {
      ...json,
      apps: json.apps.map((a: Body) => (a.id === "app-aws" ? { ...a, userCount: 5, monthlyCostUsd: "12", createdAt: "2026-01-01t01:00:00+01:00" } : a)),
      entitlements: json.entitlements.map((e: Body) => (e.id === "ent-aws-billing" ? { ...e, grantCount: 7 } : e)),
    };
    const other = await serve({ world: worldOf(edited), port: 0 });
    try {
      const get = async (path: string): Promise<Body> => (await fetch(`${other.url}${path}`, { headers: { authorization: "Bearer tok-super" } })).json() as Promise<Body>;
      expect((await get("/api/v1/apps/app-aws")).app).toMatchObject({ userCount: "5", monthlyCostUsd: 12, createdAt: "2026-01-01T00:00:00Z" });
      expect((await get("/api/v1/apps/app-aws/entitlements/ent-aws-billing")).appEntitlementView.appEntitlement.grantCount).toBe("7");
    } finally {
      await other.close();
    }
  });
});
