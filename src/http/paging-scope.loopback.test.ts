/**
 * A page token is tied to the listing that issued it, its path's ids included: one app's
 * entitlement token sent to another app's listing skipped that app's first entitlements (diff review).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleJson } from "../../test/helpers.js";
import { loadWorld } from "../world/load-world.js";
import { checkedCaller } from "./loopback.test-helper.js";
import { type RunningServer, serve } from "./server.js";

let server: RunningServer;
const call = checkedCaller(() => server.url);

beforeAll(async () => {
  const json = sampleJson() as { entitlements: Record<string, unknown>[] };
  // Twelve more entitlements in each of two apps: more than a page of the smallest size (10).
  for (const appId of ["app-aws", "app-github"]) {
    const model = json.entitlements.find((e) => e["appId"] === appId) as Record<string, unknown>;
    for (let i = 0; i < 12; i++) json.entitlements.push({ ...model, id: `ent-extra-${appId}-${i}`, displayName: `Extra ${i}`, alias: "" });
  }
  const loaded = loadWorld(json);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.error).slice(0, 400));
  server = await serve({ world: loaded.value, port: 0 });
});
afterAll(() => server.close());

describe("GET list page tokens (openapi.yaml page_token: from a previous List response)", () => {
  it("one app's entitlement token is refused by another app's listing, and accepted by its own", async () => {
    const aws = await call("GET", "/api/v1/apps/{app_id}/entitlements", { params: { app_id: "app-aws" }, query: "page_size=10" });
    expect(aws.nextPageToken).not.toBe("");
    const own = await call("GET", "/api/v1/apps/{app_id}/entitlements", { params: { app_id: "app-aws" }, query: `page_size=10&page_token=${aws.nextPageToken}` });
    expect(own.list.length).toBeGreaterThan(0);
    const other = await call("GET", "/api/v1/apps/{app_id}/entitlements", { params: { app_id: "app-github" }, query: `page_size=10&page_token=${aws.nextPageToken}`, expect: 400 });
    expect(other.message).toContain("was issued for a different request");
  });
});
