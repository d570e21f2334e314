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

describe("a page continues after the last item served, whatever changed before it (SDK replay review: closing each page's tasks, a walk of 37 open tasks saw 20)", () => {
  /** Walks open tasks 10 a page on a fresh server, closing every task of a page before asking for the next, as a bot working a queue does. */
  async function walkClosing(sortBy?: string): Promise<{ seen: string[]; open: string[] }> {
    const loaded = loadWorld(sampleJson());
    if (!loaded.ok) throw new Error("sample");
    const own = await serve({ world: loaded.value, port: 0 });
    const at = checkedCaller(() => own.url);
    try {
      const filter = { taskStates: ["TASK_STATE_OPEN"], ...(sortBy ? { sortBy } : {}) };
      const idsOf = (page: { list: { task: { id: string } }[] }): string[] => page.list.map((v) => v.task.id);
      const open = idsOf(await at("POST", "/api/v1/search/tasks", { body: { ...filter, pageSize: 100 } }));
      const seen: string[] = [];
      let pageToken = "";
      for (let i = 0; i < 100; i++) {
        const page = await at("POST", "/api/v1/search/tasks", { body: { ...filter, pageSize: 10, pageToken } });
        seen.push(...idsOf(page));
        for (const id of idsOf(page)) await at("POST", "/api/v1/tasks/{task_id}/action/close", { params: { task_id: id }, body: { comment: "handled" } });
        pageToken = page.nextPageToken as string;
        if (pageToken === "") break;
      }
      return { seen, open };
    } finally {
      await own.close();
    }
  }

  it("in world order and in a sort order: every open task is served once, none skipped", async () => {
    for (const sortBy of [undefined, "TASK_SEARCH_SORT_BY_REVERSE_TICKET_ID", "TASK_SEARCH_SORT_BY_CREATED_AT"]) {
      const walk = await walkClosing(sortBy);
      expect(walk.open.length, sortBy).toBeGreaterThan(20);
      expect(walk.seen, sortBy).toEqual(walk.open);
    }
  });

  it("a damaged token (cut short) is told as no token of this server's, not as one of another request", async () => {
    const first = await call("POST", "/api/v1/search/users", { body: { pageSize: 10 } });
    const token = first.nextPageToken as string;
    expect(token).not.toBe("");
    for (const damaged of [token.slice(0, -3), token.slice(0, -1), `${token.slice(0, -2)}AA`]) {
      const r = await call("POST", "/api/v1/search/users", { body: { pageSize: 10, pageToken: damaged }, expect: 400 });
      expect(r.message).toMatch(/^pageToken is not a page token this server issued/);
    }
  });
});
