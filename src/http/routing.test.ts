import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { loadWorld } from "../world/load-world.js";
import { findTask, type World } from "../world/world.js";
import { clampPageSize, DEFAULT_PAGE_LIMITS, pageFromBody, pageFromQuery, pageOf } from "./paging.js";
import { parseRequestTarget } from "./request-target.js";
import { type Route, routeTable } from "./route.js";
import { ROUTES } from "./routes/index.js";
import { type RunningServer, serve } from "./server.js";
import { ok } from "../result.js";

const fixture: World = (() => {
  const r = loadWorld(JSON.parse(readFileSync(new URL("../../fixtures/world.json", import.meta.url), "utf8")));
  if (!r.ok) throw new Error("fixtures/world.json does not load");
  return r.value;
})();

/** One raw HTTP/1.1 exchange, the request target sent exactly as written (fetch would normalise it). */
function raw(url: string, target: string, body: string, token = "tok-super"): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `POST ${target} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    });
    let data = "";
    socket.on("data", (c: Buffer) => (data += c.toString("utf8")));
    socket.on("end", () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0), text: data }));
    socket.on("error", reject);
  });
}

describe("issue 12 point 7: no path is normalised into another route", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serve({ world: fixture, port: 0 });
  });
  afterAll(async () => server.close());

  it("dot segments, encoded dots, encoded slashes and backslashes are 400 and run no Hard Reset", async () => {
    const before = server.store.get();
    const generation = findTask(before, "1001")?.policyGenerationId;
    for (const target of [
      "/api/v1/tasks/1001/action/comment/../reset",
      "/api/v1/tasks/1001/action/comment/%2e%2e/reset",
      "/api/v1/tasks/1001/action/comment/.%2E/reset",
      "/api/v1/tasks/1001/action/./reset",
      "/api/v1/tasks/1001\\action\\reset",
      "/api/v1/tasks/1001/action%2Freset",
      "/api/v1/tasks/1001%5Caction%5Creset",
    ]) {
      const res = await raw(server.url, target, '{"comment":"x"}');
      expect(res.status, target).toBe(400);
      expect(res.text, target).toContain("INVALID_PATH");
    }
    expect(server.store.get()).toBe(before);
    expect(findTask(server.store.get(), "1001")?.policyGenerationId).toBe(generation);
  });

  it("the same target spelled plainly still works, and a percent-encoded id is decoded once", async () => {
    const res = await raw(server.url, "/api/v1/tasks/100%31/action/comment", '{"comment":"plain"}');
    expect(res.status).toBe(200);
  });
});

describe("parseRequestTarget", () => {
  it("splits, decodes each segment once, and keeps the query", () => {
    const t = parseRequestTarget("/api/v1/users/u%2541?page_size=5&page_token=abc");
    expect(t.ok && t.value.segments).toEqual(["api", "v1", "users", "u%41"]);
    expect(t.ok && t.value.query.get("page_size")).toBe("5");
  });

  it("refuses bad percent-encoding and control characters; reduces absolute-form to its path", () => {
    expect(parseRequestTarget("/api/%zz").ok).toBe(false);
    expect(parseRequestTarget("/api/a\u0001b").ok).toBe(false);
    const abs = parseRequestTarget("http://127.0.0.1:8080/api/v1/tasks/1?x=1");
    expect(abs.ok && abs.value.segments).toEqual(["api", "v1", "tasks", "1"]);
  });

  it("never throws, and a target it accepts has no dot segment and no slash inside a segment", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (s) => {
        const t = parseRequestTarget(`/${s}`);
        if (t.ok) for (const seg of t.value.segments) expect(seg === "." || seg === ".." || seg.includes("/") || seg.includes("\\")).toBe(false);
      }),
    );
  });
});

describe("routeTable", () => {
  const route = (method: Route["method"], path: string): Route => ({
    method,
    path,
    operationId: `${method} ${path}`,
    body: "none",
    handle: () => ok({ kind: "read", read: () => ok(path) }),
  });
  const table = routeTable([route("GET", "/api/v1/tasks/{id}"), route("POST", "/api/v1/tasks/search"), route("DELETE", "/api/v1/tasks/{id}")]);

  it("matches parameters, literal before parameter within a method, and answers 405's methods for a known path", () => {
    const m = table.match("GET", ["api", "v1", "tasks", "1001"]);
    expect(m.kind === "route" && m.params).toEqual({ id: "1001" });
    const s = table.match("POST", ["api", "v1", "tasks", "search"]);
    expect(s.kind === "route" && s.route.path).toBe("/api/v1/tasks/search");
    // grpc-gateway's ServeMux keeps handlers by method: a GET of ".../search" is the GET route's, id "search".
    const g = table.match("GET", ["api", "v1", "tasks", "search"]);
    expect(g.kind === "route" && g.params).toEqual({ id: "search" });
    expect(table.match("PUT", ["api", "v1", "tasks", "7"])).toEqual({ kind: "method", allow: ["GET", "DELETE"] });
    expect(table.match("PUT", ["api", "v1", "tasks", "search"])).toEqual({ kind: "method", allow: ["POST", "GET", "DELETE"] });
    expect(table.match("GET", ["api", "v1", "tasks", ""]).kind).toBe("none");
    expect(table.match("GET", ["api", "v2", "tasks", "1"]).kind).toBe("none");
  });

  it("the served table has no two routes with the same method and path, and every operationId is unique", () => {
    const keys = ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    const ids = ROUTES.map((r) => r.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("paging (openapi.yaml: \"0 <= pageSize <= 100. Values < 10 will be set to 10. A value of 0 returns the default page size (currently 25)\")", () => {
  it("clamps as documented", () => {
    expect([0, 1, 9, 10, 55, 100, 101, 5000].map((n) => clampPageSize(n, DEFAULT_PAGE_LIMITS))).toEqual([25, 10, 10, 10, 55, 100, 100, 100]);
  });

  it("walks a list with nextPageToken until empty, every item once, in order", () => {
    fc.assert(
      fc.property(fc.array(fc.integer(), { maxLength: 300 }), fc.integer({ min: 0, max: 150 }), (items, size) => {
        const seen: number[] = [];
        let token = "";
        for (let guard = 0; guard < 1000; guard++) {
          const req = pageFromBody({ pageSize: size, pageToken: token }, "f");
          if (!req.ok) throw new Error(req.error.message);
          const page = pageOf(items, req.value);
          seen.push(...page.list);
          expect(page.list.length).toBeLessThanOrEqual(clampPageSize(size));
          token = page.nextPageToken;
          if (token === "") break;
        }
        expect(seen).toEqual(items);
      }),
    );
  });

  it("reads GET lists' page_size/page_token and refuses a bad size, a forged token, or a token of another request", () => {
    const q = pageFromQuery(new URLSearchParams("page_size=5"));
    expect(q.ok && q.value).toMatchObject({ size: 10, offset: 0 });
    expect(pageFromQuery(new URLSearchParams("page_size=-1")).ok).toBe(false);
    expect(pageFromBody({ pageSize: "x" }).ok).toBe(false);
    expect(pageFromBody({ pageToken: "not a token!" }).ok).toBe(false);
    const next = pageOf(Array.from({ length: 30 }, (_, i) => i), { size: 10, offset: 0, fingerprint: "state=open" }).nextPageToken;
    expect(pageFromBody({ pageToken: next }, "state=open").ok).toBe(true);
    const other = pageFromBody({ pageToken: next }, "state=closed");
    expect(!other.ok && other.error.field).toBe("pageToken");
  });

  it("ties a token to the request it was issued for by default: the same filters (in any key order, at any page size) take it, others refuse it", () => {
    const body = { query: "aws", states: ["TASK_STATE_OPEN"], pageSize: 10 };
    const first = pageFromBody(body);
    expect(first.ok).toBe(true);
    const next = pageOf(Array.from({ length: 30 }, (_, i) => i), first.ok ? first.value : { size: 10, offset: 0, fingerprint: "" }).nextPageToken;
    const again = pageFromBody({ states: ["TASK_STATE_OPEN"], query: "aws", pageSize: 25, pageToken: next });
    expect(again.ok && again.value.offset).toBe(10);
    for (const changed of [{ query: "gcp" }, { states: ["TASK_STATE_CLOSED"] }, { extra: true }]) {
      const r = pageFromBody({ ...body, ...changed, pageToken: next });
      expect(!r.ok && [r.error.status, r.error.field]).toEqual([400, "pageToken"]);
    }
    // GET lists the same by their query.
    const q = pageFromQuery(new URLSearchParams("app_id=a&page_size=10"));
    const qNext = pageOf(Array.from({ length: 30 }, (_, i) => i), q.ok ? q.value : { size: 10, offset: 0, fingerprint: "" }).nextPageToken;
    expect(pageFromQuery(new URLSearchParams(`page_token=${qNext}&app_id=a`)).ok).toBe(true);
    expect(pageFromQuery(new URLSearchParams(`page_token=${qNext}&app_id=b`)).ok).toBe(false);
  });

  it("GET lists also take the JSON names pageSize/pageToken, and refuse a size given twice (grpc-gateway's query parameters)", () => {
    const json = pageFromQuery(new URLSearchParams("pageSize=50"));
    expect(json.ok && json.value.size).toBe(50);
    const first = pageFromQuery(new URLSearchParams("pageSize=10"));
    const next = pageOf(Array.from({ length: 30 }, (_, i) => i), first.ok ? first.value : { size: 10, offset: 0, fingerprint: "" }).nextPageToken;
    const token = pageFromQuery(new URLSearchParams(`pageToken=${encodeURIComponent(next)}`));
    expect(token.ok && token.value.offset).toBe(10);
    for (const twice of ["page_size=10&page_size=50", "page_size=10&pageSize=50"]) {
      const r = pageFromQuery(new URLSearchParams(twice));
      expect(!r.ok && [r.error.status, r.error.field]).toEqual([400, "page_size"]);
    }
  });
});
