/**
 * openapi.yaml `POST /api/v1/search/request_catalog/entitlements` (RequestCatalogSearch.SearchEntitlements):
 * "what can I request", the end user's first call through the service's SDKs (SDK review: it was 404).
 */
import { describe, expect, it } from "vitest";
import { sampleWorld, type Body } from "../../test/helpers.js";
import { createFetchHandler } from "./fetch-handler.js";
import { responseProblems } from "./openapi-validate.test-helper.js";
import { createWorldStore } from "./world-store.js";

const PATH = "/api/v1/search/request_catalog/entitlements";
const world = sampleWorld();
const handler = createFetchHandler(createWorldStore(world));

async function search(body: unknown, token = "tok-user"): Promise<{ status: number; body: Body }> {
  const res = await handler(new Request(`http://sim.test${PATH}`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body) }));
  return { status: res.status, body: JSON.parse(await res.text()) };
}

describe("openapi.yaml RequestCatalogSearchService.SearchEntitlements", () => {
  it("every entitlement, paged, each with the caller's own bindings; the body validates", async () => {
    const ids: string[] = [];
    let pageToken = "";
    do {
      const r = await search({ pageSize: 10, pageToken });
      expect(r.status).toBe(200);
      expect(responseProblems("POST", PATH, r.body)).toEqual([]);
      for (const item of r.body.list) {
        ids.push(`${item.entitlement.appEntitlement.appId}/${item.entitlement.appEntitlement.id}`);
        // c1.api.app.v1.AppEntitlementUserBinding: its own fields, not an AppEntitlementUserView's (SDK decode review).
        for (const b of item.appEntitlementUserBindings) {
          expect(Object.keys(b).sort()).toEqual(["appEntitlementId", "appId", "appUserId", "createdAt", "deletedAt", "deprovisionAt", "grantSources"]);
          expect(world.index.appUsers.get(b.appUserId)?.identityUserId).toBe("u-dev1");
        }
      }
      pageToken = r.body.nextPageToken;
    } while (pageToken !== "");
    expect(ids).toEqual(world.entitlements.map((e) => `${e.appId}/${e.id}`));
  });
  it("grantedStatus GRANTED and NOT_GRANTED split the catalog by what the caller holds", async () => {
    const held = new Set(world.grants.filter((g) => g.identityUserId === "u-dev1").map((g) => `${g.appId}/${g.appEntitlementId}`));
    expect(held.size).toBeGreaterThan(0);
    const granted = await search({ grantedStatus: "GRANTED", pageSize: 100 });
    const notGranted = await search({ grantedStatus: "NOT_GRANTED", pageSize: 100 });
    const idsOf = (b: Body) => b.list.map((i: Body) => `${i.entitlement.appEntitlement.appId}/${i.entitlement.appEntitlement.id}`);
    expect(new Set(idsOf(granted.body))).toEqual(held);
    expect(idsOf(notGranted.body).some((id: string) => held.has(id))).toBe(false);
    expect(idsOf(granted.body).length + idsOf(notGranted.body).length).toBe(world.entitlements.length);
    for (const i of granted.body.list) expect(i.appEntitlementUserBindings.length).toBeGreaterThan(0);
  });
  it("query (display name, any case) and appDisplayName (exact); expandMask app_id; a bad grantedStatus is 400", async () => {
    const r = await search({ query: "ADMIN", appDisplayName: "AWS", expandMask: { paths: ["app_id"] }, pageSize: 100 });
    expect(r.status).toBe(200);
    expect(r.body.list.length).toBeGreaterThan(0);
    for (const i of r.body.list) {
      expect(i.entitlement.appEntitlement.displayName.toLowerCase()).toContain("admin");
      expect(i.entitlement.appEntitlement.appId).toBe("app-aws");
    }
    expect(r.body.expanded.map((x: Body) => x["@type"])).toEqual(["type.googleapis.com/c1.api.app.v1.App"]);
    expect(responseProblems("POST", PATH, r.body)).toEqual([]);
    expect((await search({ grantedStatus: "MAYBE" })).status).toBe(400);
  });
});
