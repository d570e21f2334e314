/**
 * What pull reads besides the listings it cannot do without: owners (of apps and entitlements),
 * access-request defaults, configuration rules, grants, roles, access reviews. A 404 for one object
 * is "none for it"; a route the server lacks, or a 404 from every object, is "not offered"; a 403
 * leaves a partial world with a warning; objects paged twice are kept once.
 */
import { describe, expect, it } from "vitest";
import { explain } from "../explain/explain.js";
import { loadWorld } from "../world/load-world.js";
import { fakeApi, fixture, type Json, NO_ROUTE, NOW, noWait } from "./fake-api.test-helper.js";
import { pullWorld, type PullOptions } from "./pull-world.js";

const pull = (api: ReturnType<typeof fakeApi>, more: Partial<PullOptions> = {}) =>
  pullWorld({ baseUrl: "http://api.test", fetch: api.fetch, credentials: { kind: "token", token: "tok-admin" }, now: () => NOW, retry: noWait, ...more });
const OWNER_IDS = /^GET \/api\/v1\/apps\/[^/]+\/entitlements\/[^/]+\/ownerids/;
const codes = (warnings: readonly { code: string }[]) => warnings.map((w) => w.code);
const appIds = fixture.apps.map((a) => String(a["id"]));

describe("openapi.yaml GET /api/v1/apps/{app_id}/entitlements/{entitlement_id}/ownerids: entitlement owners", () => {
  it("c1.api.app.v1.AppEntitlement carries no owners, so each entitlement's userIds are asked, one unpaged GET each, and the world has them", async () => {
    const api = fakeApi(fixture);
    const r = await pull(api, { states: "all" });
    if (!r.ok) throw new Error(r.error.message);
    const owners = (es: Json[]) => Object.fromEntries(es.map((e) => [`${String(e["appId"])}/${String(e["id"])}`, e["ownerUserIds"] ?? []]));
    expect(owners(r.value.world["entitlements"] as Json[])).toEqual(owners(fixture.entitlements));
    expect(fixture.entitlements.some((e) => Array.isArray(e["ownerUserIds"]) && e["ownerUserIds"].length > 0)).toBe(true);
    const asked = api.requests.filter((q) => OWNER_IDS.test(q));
    expect(asked).toHaveLength(fixture.entitlements.length);
    // The operation has no page_size/page_token parameters: one request, no query.
    expect(asked.filter((q) => q.includes("?"))).toEqual([]);
    expect(codes(r.value.warnings)).not.toContain("ENTITLEMENT_OWNERS_UNKNOWN");
    // What the reviewer saw change: entitlement-owner steps route to the owners, not to fallbacks.
    // The rest as pull's warnings say to set it (the fake offers no access reviews).
    const fixed = { ...r.value.world, now: fixture["now"], tenant: fixture["tenant"], groups: fixture["groups"], accessReviews: fixture["accessReviews"] };
    const [want, got] = [loadWorld(fixture, { strict: false }), loadWorld(fixed, { strict: false })];
    if (!want.ok || !got.ok) throw new Error("does not load");
    for (const task of ["1002", "1029", "1045", "1050"]) {
      const [a, b] = [explain(want.value, task), explain(got.value, task)];
      expect(b.ok && b.value.result).toEqual(a.ok && a.value.result);
    }
  });

  it("openapi.yaml ListAppEntitlementOwnerIDsResponse.userIds is array | null: null is no owners", async () => {
    const world = { ...fixture, entitlements: fixture.entitlements.map((e) => ({ ...e, ownerUserIds: null })) };
    const r = await pull(fakeApi(world));
    if (!r.ok) throw new Error(r.error.message);
    expect((r.value.world["entitlements"] as Json[]).map((e) => e["ownerUserIds"])).toEqual(fixture.entitlements.map(() => []));
  });

  it("an entitlement that carries ownerUserIds (policy-sim serve writes them) is not asked", async () => {
    const api = fakeApi(fixture, { ownersInline: true });
    const r = await pull(api);
    if (!r.ok) throw new Error(r.error.message);
    expect(api.requests.filter((q) => OWNER_IDS.test(q) || /\/apps\/[^/]+\/ownerids/.test(q))).toEqual([]);
    expect((r.value.world["entitlements"] as Json[]).map((e) => e["ownerUserIds"])).toEqual(fixture.entitlements.map((e) => e["ownerUserIds"] ?? []));
  });

  it("a server without the route is asked once, not per entitlement, and says so: ENTITLEMENT_OWNERS_UNKNOWN, never silently", async () => {
    const api = fakeApi(fixture, { unrouted: /\/entitlements\/[^/]+\/ownerids$/ });
    const r = await pull(api, { concurrency: 1 });
    if (!r.ok) throw new Error(r.error.message);
    expect(api.requests.filter((q) => OWNER_IDS.test(q))).toHaveLength(1);
    const w = r.value.warnings.filter((x) => x.code === "ENTITLEMENT_OWNERS_UNKNOWN");
    expect(w).toHaveLength(1);
    expect(w[0]?.message).toMatch(/^the server does not offer entitlement owners \(GET \/api\/v1\/apps\/\{app_id\}\/entitlements\/\{entitlement_id\}\/ownerids\) \(404\); those entitlements have no owners, so entitlement-owner approval steps route to their fallback approvers or the Super Administrators: set "ownerUserIds" of "entitlements" by hand$/);
  });

  it("a 403 on them: a world without those owners, and a warning naming how many could not be read", async () => {
    const denied = fixture.entitlements.slice(0, 2).map((e) => ({ route: `GET /api/v1/apps/${String(e["appId"])}/entitlements/${String(e["id"])}/ownerids`, nth: 0, status: 403, body: { code: 7, message: "permission denied" } }));
    const r = await pull(fakeApi(fixture, { faults: denied }));
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.warnings.find((x) => x.code === "ENTITLEMENT_OWNERS_UNKNOWN")?.message).toMatch(
      new RegExp(`^these credentials may not read entitlement owners \\(.*\\) of 2 of ${fixture.entitlements.length} entitlements \\(${String(fixture.entitlements[0]?.["appId"])}/${String(fixture.entitlements[0]?.["id"])}, `),
    );
  });
});

describe("openapi.yaml per-object paths: a 404 for one app is none for that app, not a route the server lacks", () => {
  it("openapi.yaml GET /api/v1/apps/{app_id}/access_request_defaults: an app without defaults answering 404 costs no other app its defaults", async () => {
    const withDefaults = fixture.resourceTypeDefaults.map((d) => String(d["appId"]));
    const first = appIds.find((id) => !withDefaults.includes(id));
    expect(appIds.indexOf(first ?? "")).toBeLessThan(appIds.indexOf(withDefaults[0] ?? ""));
    const api = fakeApi(fixture, { faults: [{ route: `GET /api/v1/apps/${first}/access_request_defaults`, nth: 0, status: 404, body: { code: 5, message: "access request defaults not found" } }] });
    const r = await pull(api, { concurrency: 1 });
    if (!r.ok) throw new Error(r.error.message);
    expect((r.value.world["resourceTypeDefaults"] as Json[]).map((d) => d["appId"])).toEqual(withDefaults);
    expect(api.requests.filter((q) => q.endsWith("/access_request_defaults"))).toHaveLength(appIds.length);
    expect(r.value.warnings.filter((w) => w.message.includes("access_request_defaults"))).toEqual([]);
  });

  it("openapi.yaml GET /api/v1/apps/{app_id}/ownerids (x-speakeasy-entity-missing-codes: 404): one app's 404 leaves it without owners and the others with theirs", async () => {
    const [gone, ...rest] = appIds;
    const r = await pull(fakeApi(fixture, { faults: [{ route: `GET /api/v1/apps/${gone}/ownerids`, nth: 0, status: 404, body: { code: 5, message: "app not found" } }] }), { concurrency: 1 });
    if (!r.ok) throw new Error(r.error.message);
    const owners = new Map((r.value.world["apps"] as Json[]).map((a) => [a["id"], a["ownerUserIds"]]));
    expect(owners.get(gone)).toBeUndefined();
    for (const id of rest) expect(owners.get(id)).toEqual(fixture.apps.find((a) => a["id"] === id)?.["ownerUserIds"] ?? []);
    expect(codes(r.value.warnings)).not.toContain("APP_OWNERS_UNKNOWN");
  });

  it("every app answering 404 (the service's own NOT_FOUND) is taken as not offered, with a warning that says both readings", async () => {
    const faults = appIds.map((id) => ({ route: `GET /api/v1/apps/${id}/access_request_defaults`, nth: 0, status: 404, body: { code: 5, message: "not found" } }));
    const r = await pull(fakeApi(fixture, { faults }));
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.world["resourceTypeDefaults"]).toEqual([]);
    expect(r.value.warnings.filter((w) => w.code === "NOT_OFFERED" && w.message.includes("access_request_defaults")).map((w) => w.message)).toEqual([
      `every app asked (${appIds.length}) answered 404 for access-request defaults (GET /api/v1/apps/{app_id}/access_request_defaults): the server does not offer it, or none has any; the world has none: add them by hand if policies depend on them`,
    ]);
  });

  it('grpc-gateway\'s own 404 for a path it has no route for ({"code": 5, "message": "Not Found"}) is not offered at once: no other app is asked', async () => {
    const api = fakeApi(fixture, { faults: [{ route: `GET /api/v1/apps/${appIds[0]}/access_request_defaults`, nth: 0, status: 404, body: NO_ROUTE }] });
    const r = await pull(api, { concurrency: 1 });
    if (!r.ok) throw new Error(r.error.message);
    expect(api.requests.filter((q) => q.endsWith("/access_request_defaults"))).toHaveLength(1);
    expect(r.value.warnings.find((w) => w.message.includes("access_request_defaults"))).toMatchObject({ code: "NOT_OFFERED", message: expect.stringMatching(/^the server does not offer access-request defaults .* \(404\)/) as unknown });
  });

  it("an app listed and then answering the service's 404 for its entitlements or accounts (deleted while the pull ran) is left out with APPS_VANISHED; the route's own 404 still stops the pull", async () => {
    const [first, second] = appIds;
    const faults = [
      { route: `GET /api/v1/apps/${first}/entitlements`, nth: 0, status: 404, body: { code: 5, message: "app not found" } },
      { route: `GET /api/v1/apps/${second}/app_users`, nth: 0, status: 404, body: { code: 5, message: "app not found" } },
    ];
    const r = await pull(fakeApi(fixture, { faults }), { concurrency: 1, states: "all" });
    if (!r.ok) throw new Error(r.error.message);
    const apps = (r.value.world["apps"] as Json[]).map((a) => a["id"]);
    expect(apps).toEqual(appIds.filter((id) => id !== first && id !== second));
    const kept = (list: string) => new Set((r.value.world[list] as Json[]).map((x) => x["appId"]));
    for (const list of ["entitlements", "appUsers"]) {
      expect(kept(list).has(first)).toBe(false);
      expect(kept(list).has(second)).toBe(false);
    }
    expect(r.value.warnings.find((w) => w.code === "APPS_VANISHED")?.message).toBe(
      `2 app(s) listed and then not found (deleted while the pull ran?), left out with their entitlements and accounts: ${[first, second].sort().join(", ")}; pull again for a consistent snapshot`,
    );
    // The world still loads (its tasks for those apps dangle, as warnings).
    expect(loadWorld(r.value.world, { strict: false }).ok).toBe(true);
    const unrouted = await pull(fakeApi(fixture, { faults: [{ route: `GET /api/v1/apps/${first}/entitlements`, nth: 0, status: 404, body: NO_ROUTE }] }), { concurrency: 1 });
    expect(!unrouted.ok && unrouted.error.status).toBe(404);
  });

  it("a listing that names no object (grants) is not offered on any 404", async () => {
    const r = await pull(fakeApi(fixture, { faults: [{ route: "POST /api/v1/search/grants", nth: 0, status: 404, body: { code: 5, message: "grants not found" } }] }));
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.warnings.find((w) => w.message.includes("search/grants"))?.code).toBe("NOT_OFFERED");
  });
});

describe("a scoped API key: a 403 on an optional read gives a partial world and a warning naming what could not be read", () => {
  it("403 on POST /api/v1/search/grants: the world without grants, NOT_PERMITTED", async () => {
    const r = await pull(fakeApi(fixture, { faults: [{ route: "POST /api/v1/search/grants", nth: 0, status: 403, body: { code: 7, message: "permission denied" } }] }));
    if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
    expect(r.value.world["grants"]).toEqual([]);
    expect(r.value.counts["policies"]).toBe(fixture.policies.length);
    expect(r.value.warnings.filter((w) => w.code === "NOT_PERMITTED").map((w) => w.message)).toEqual([
      "these credentials may not read grants (POST /api/v1/search/grants) (403); the pull went on without: the world has none: add them by hand if policies depend on them",
    ]);
    expect(loadWorld(r.value.world, { strict: false }).ok).toBe(true);
  });

  it("403 on every app's access-request defaults: every app is still asked (an app administrator may read some), and the warning counts them", async () => {
    const faults = appIds.map((id) => ({ route: `GET /api/v1/apps/${id}/access_request_defaults`, nth: 0, status: 403, body: { code: 7, message: "permission denied" } }));
    const r = await pull(fakeApi(fixture, { faults }));
    if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
    expect(r.value.world["resourceTypeDefaults"]).toEqual([]);
    expect(r.value.warnings.find((w) => w.code === "NOT_PERMITTED")?.message).toBe(
      `these credentials may not read access-request defaults (GET /api/v1/apps/{app_id}/access_request_defaults) of ${appIds.length} of ${appIds.length} apps (${appIds.slice(0, 5).join(", ")}${appIds.length > 5 ? `, … ${appIds.length - 5} more` : ""}) (403); the pull went on without: the world has none: add them by hand if policies depend on them`,
    );
  });

  it("a 403 on a listing the world cannot do without (policies) still stops the pull", async () => {
    const r = await pull(fakeApi(fixture, { faults: [{ route: "GET /api/v1/policies", nth: 0, status: 403, body: { code: 7, message: "no" } }] }));
    expect(!r.ok && r.error).toMatchObject({ code: "PERMISSION_DENIED", status: 403 });
  });
});

describe("objects a listing gives twice (offset paging while the tenant changes)", () => {
  it("are kept once, the last copy in the place of the first, with a DUPLICATES warning counting them: the world loads", async () => {
    const open = fixture.tasks.filter((t) => t["state"] === "TASK_STATE_OPEN");
    const api = fakeApi(fixture, { repeatAt: { "POST /api/v1/search/tasks": { offset: 10, changed: { displayName: "renamed while paged" } } } });
    const r = await pull(api, { pageSize: 10 });
    if (!r.ok) throw new Error(r.error.message);
    const tasks = r.value.world["tasks"] as Json[];
    expect(tasks.map((t) => t["id"])).toEqual(open.map((t) => t["id"]));
    expect(tasks[9]).toEqual({ ...open[9], displayName: "renamed while paged" });
    expect(r.value.warnings.filter((w) => w.code === "DUPLICATES").map((w) => w.message)).toEqual([
      "the API gave some objects more than once (1 of tasks): a listing that changed while it was paged; each is kept once, its last copy. Pull again for a consistent snapshot",
    ]);
    const loaded = loadWorld(r.value.world, { strict: false });
    expect(loaded.ok).toBe(true);
  });

  it("entitlements repeated across pages are asked for their owners once", async () => {
    // Two pages of one app's entitlements (the fake's smallest page is 10).
    const more: Json[] = Array.from({ length: 6 }, (_, i) => ({ ...fixture.entitlements[0], id: `ent-extra-${i}`, ownerUserIds: [] }));
    const world = { ...fixture, entitlements: [...fixture.entitlements, ...more] };
    const app = String(fixture.entitlements[0]?.["appId"]);
    expect(world.entitlements.filter((e) => e["appId"] === app).length).toBeGreaterThan(10);
    const api = fakeApi(world, { repeatAt: { [`GET /api/v1/apps/${app}/entitlements`]: { offset: 10 } } });
    const r = await pull(api, { pageSize: 10 });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.counts["entitlements"]).toBe(world.entitlements.length);
    expect(api.requests.filter((q) => OWNER_IDS.test(q))).toHaveLength(world.entitlements.length);
    expect(r.value.warnings.find((w) => w.code === "DUPLICATES")?.message).toContain("(1 of entitlements)");
  });
});

describe("a listed object nested deeper than the call stack allows (hostile review: pull threw RangeError, the CLI exited 70)", () => {
  it("pull answers a value, and still sees the groups a policy names", async () => {
    const api = fakeApi(fixture);
    const depth = 20_000;
    const deep = `${"[".repeat(depth)}{"appGroupId":"g-1"}${"]".repeat(depth)}`;
    const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const res = await api.fetch(input, init);
      if (!String(input).includes("/api/v1/policies") || res.status !== 200) return res;
      // The policy listing's first policy carries the deep value (written by hand: JSON.stringify would overflow too).
      const page = (await res.json()) as { list: Json[]; nextPageToken: string };
      if (page.list.length === 0) return new Response(JSON.stringify(page), { status: 200, headers: { "content-type": "application/json" } });
      const [first, ...rest] = page.list;
      const text = `{"list":[${JSON.stringify(first).slice(0, -1)},"x":${deep}}${rest.map((p) => `,${JSON.stringify(p)}`).join("")}],"nextPageToken":${JSON.stringify(page.nextPageToken)}}`;
      return new Response(text, { status: 200, headers: { "content-type": "application/json" } });
    };
    const r = await pullWorld({ baseUrl: "http://api.test", fetch, credentials: { kind: "token", token: "tok-admin" }, now: () => NOW, retry: { ...noWait, maxTotalBytes: 512 * 1024 * 1024 } });
    expect(r.ok).toBe(true);
    expect(r.ok && codes(r.value.warnings)).toContain("GROUPS_UNKNOWN");
  });
});

describe("listed items that are not objects (hostile review 8: dropped without a word)", () => {
  it("are dropped with a NOT_OBJECTS warning that counts them per listing", async () => {
    const api = fakeApi(fixture);
    const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const res = await api.fetch(input, init);
      if (!new URL(String(input)).pathname.endsWith("/api/v1/users") || res.status !== 200) return res;
      const page = (await res.json()) as { list: unknown[]; nextPageToken: string };
      return new Response(JSON.stringify({ ...page, list: [...page.list, 1, "x", null, []] }), { status: 200, headers: { "content-type": "application/json" } });
    };
    const r = await pullWorld({ baseUrl: "http://api.test", fetch, credentials: { kind: "token", token: "tok-admin" }, now: () => NOW, retry: noWait });
    if (!r.ok) throw new Error(r.error.message);
    const w = r.value.warnings.find((x) => x.code === "NOT_OBJECTS");
    expect(w?.message).toMatch(/\(\d+ of users\)/);
    expect((r.value.world["users"] as Json[]).length).toBe(fixture.users.length);
    // A clean pull says nothing of the kind.
    const clean = await pull(fakeApi(fixture));
    expect(clean.ok && codes(clean.value.warnings)).not.toContain("NOT_OBJECTS");
  });
});
