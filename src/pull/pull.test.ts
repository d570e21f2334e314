import { generateKeyPairSync, verify, createPublicKey } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { type AddressInfo, createServer as createNetServer, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { memoryIO } from "../cli/memory-io.js";
import { EXIT, runCli } from "../cli/run.js";
import { loadWorld } from "../world/load-world.js";
import { saveWorld } from "../world/save-world.js";
import { createApiClient, DEFAULT_MAX_LISTING_ITEMS, DEFAULT_TIMEOUT_RETRIES, type RetryInfo } from "./api-client.js";
import { CLIENT_SECRET_PREFIX, credentialsFromEnv, privateKeyOfSecret } from "./credentials.js";
import { fakeApi, fixture, type Json, NOW, noWait } from "./fake-api.test-helper.js";
import { type PullProgress, pullWorld } from "./pull-world.js";

/** Listens on a free loopback port. */
const listen = (srv: { listen: (port: number, host: string, cb: () => void) => unknown; address: () => unknown }) =>
  new Promise<number>((resolve) => void srv.listen(0, "127.0.0.1", () => resolve((srv.address() as AddressInfo).port)));

/** The sections a pull must bring back unchanged, as saveWorld writes them. */
function comparable(world: Json): Json {
  const loaded = loadWorld(world, { strict: false });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.error.slice(0, 3)));
  const saved = saveWorld(loaded.value) as Json;
  // Directory order is the API's (per app), not the file's: compare as sets.
  const pick = (k: string) => [...(saved[k] as Json[])].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  return {
    policies: pick("policies"),
    users: pick("users"),
    // Owners too: the fake, as the real API, reads them through GET …/ownerids only.
    entitlements: pick("entitlements"),
    apps: pick("apps"),
    appUsers: pick("appUsers"),
    resourceTypeDefaults: pick("resourceTypeDefaults"),
    grants: pick("grants").map(({ source: _s, ...g }) => g),
  };
}

describe("openapi.yaml paging and retries: pull against recorded API pages", () => {
  it("pulls the fixture tenant back: every policy, open task, user, app, entitlement, account, grant and request default", async () => {
    const api = fakeApi(fixture);
    const r = await pullWorld({ baseUrl: "http://api.test", fetch: api.fetch, credentials: { kind: "token", token: "tok-admin" }, now: () => NOW, retry: noWait });
    if (!r.ok) throw new Error(r.error.message);
    const open = fixture.tasks.filter((t) => t["state"] === "TASK_STATE_OPEN");
    expect(r.value.counts).toMatchObject({ policies: fixture.policies.length, tasks: open.length, users: fixture.users.length, grants: fixture.grants.length });
    expect(comparable(r.value.world)).toEqual(comparable(fixture));
    const tasks = r.value.world["tasks"] as Json[];
    expect(tasks.map((t) => t["id"])).toEqual(open.map((t) => t["id"]));
    expect(tasks).toEqual(open);
  });

  it("openapi.yaml, SearchPoliciesRequest.scopeView (\"app/entitlement-scoped policies never appear unless explicitly requested\"): a policy an entitlement, app or policy names but the listing left out is read by id, and those it names in turn", async () => {
    // Every policy some entitlement or app names, and their baselines, left out of the listing.
    const named = new Set<string>();
    for (const o of [...fixture.entitlements, ...fixture.apps]) for (const [k, v] of Object.entries(o)) if (k.endsWith("PolicyId") && typeof v === "string" && v !== "") named.add(v);
    expect(named.size).toBeGreaterThan(2);
    const api = fakeApi(fixture, { unlistedPolicies: new Set([...named, "pol-deleted"]) });
    const r = await pullWorld({ baseUrl: "http://api.test", fetch: api.fetch, credentials: { kind: "token", token: "tok-admin" }, now: () => NOW, retry: noWait });
    if (!r.ok) throw new Error(r.error.message);
    expect(comparable(r.value.world)).toEqual(comparable(fixture));
    expect(r.value.counts["policies"]).toBe(fixture.policies.length);
    expect(api.requests.filter((q) => q.startsWith("GET /api/v1/policies/")).length).toBe(named.size);
    expect(r.value.warnings.find((w) => w.code === "POLICIES_NOT_LISTED")?.message).toBe(
      `${named.size} policies named by apps, entitlements, request defaults or other policies were not in the policy listing (the API lists app- and entitlement-scoped policies only on request) and were read by id: ${named.size} found`,
    );
    // A named policy the server does not have stays dangling, said in the warning.
    const gone = { ...fixture, entitlements: fixture.entitlements.map((e, i) => (i === 0 ? { ...e, grantPolicyId: "pol-deleted" } : e)) };
    const r2 = await pullWorld({ baseUrl: "http://api.test", fetch: fakeApi(gone).fetch, credentials: { kind: "token", token: "tok-admin" }, now: () => NOW, retry: noWait });
    expect(r2.ok && r2.value.warnings.find((w) => w.code === "POLICIES_NOT_LISTED")?.message).toMatch(/: 0 found, 1 not found or not readable \(pol-deleted\), left dangling$/);
  });

  it("credentials that are not an administrator's (GET /api/v1/auth/introspect, openapi.yaml IntrospectResponse.roles) give a PARTIAL_VIEW warning: the task search shows such a caller only its own tasks", async () => {
    const admin = fixture.roles.find((r) => r["kind"] === "SUPER_ADMIN") as Json;
    const basic = fixture.roles.find((r) => r["kind"] === "BASIC_USER") as Json;
    const pull = async (roles: unknown) => {
      const r = await pullWorld({ baseUrl: "http://api.test", fetch: fakeApi(fixture, { introspect: { userId: "u-x", roles } }).fetch, credentials: { kind: "token", token: "tok-admin" }, now: () => NOW, retry: noWait });
      if (!r.ok) throw new Error(r.error.message);
      return r.value.warnings.find((w) => w.code === "PARTIAL_VIEW")?.message;
    };
    expect(await pull([basic["id"]])).toBe(
      `the credentials' roles (${String(basic["id"])}) are not an administrator's (Super Administrator or Read-only Administrator): the API shows such a caller only the tasks it takes part in, so the world likely lacks tasks; pull with an administrator's API client`,
    );
    expect(await pull([])).toMatch(/^the credentials' roles \(none\) are not an administrator's/);
    expect(await pull([basic["id"], admin["id"]])).toBeUndefined();
  });

  it("a by-id policy read the server refuses (400, 500) leaves that policy dangling with the warning, not a failed pull; a bad introspect answer leaves the caller unchecked (today's review)", async () => {
    const named = String(fixture.entitlements.find((e) => typeof e["grantPolicyId"] === "string" && e["grantPolicyId"] !== "")?.["grantPolicyId"]);
    const route = `GET /api/v1/policies/${named}`;
    for (const status of [400, 500]) {
      const faults = Array.from({ length: 8 }, (_, nth) => ({ route, nth, status, body: { code: 13, message: "nope" } }));
      const api = fakeApi(fixture, { unlistedPolicies: new Set([named]), faults: [...faults, { route: "GET /api/v1/auth/introspect", nth: 0, status: 200 }] });
      const progress: PullProgress[] = [];
      const r = await pullWorld({ baseUrl: "http://api.test", fetch: api.fetch, credentials: { kind: "token", token: "tok-admin" }, now: () => NOW, retry: noWait, onProgress: (p) => void progress.push(p) });
      if (!r.ok) throw new Error(`${status}: ${r.error.message}`);
      expect(r.value.warnings.find((w) => w.code === "POLICIES_NOT_LISTED")?.message).toMatch(new RegExp(`0 found, 1 not found or not readable \\(${named}\\)`));
      expect(r.value.warnings.find((w) => w.code === "CALLER_UNKNOWN")?.message).toMatch(/could not be read \(200\): whether they see every task is not checked$/);
      // Progress never says more listings are done than it knows of.
      expect(progress.filter((p) => p.listingsDone > p.listingsKnown)).toEqual([]);
    }
  });

  it("an empty 200 answer is BAD_RESPONSE, not an empty listing (pull review: a proxy's empty body pulled as 0 tasks, exit 0)", async () => {
    const api = fakeApi(fixture, { faults: [{ route: "POST /api/v1/search/tasks", nth: 0, status: 200 }] });
    const r = await pullWorld({ baseUrl: "http://api.test", fetch: api.fetch, credentials: { kind: "token", token: "tok-admin" }, now: () => NOW, retry: noWait });
    expect(!r.ok && r.error).toMatchObject({ code: "BAD_RESPONSE", message: "POST /api/v1/search/tasks: the server answered 200 with an empty body, where the API answers a JSON object (a proxy in the way?)" });
  });

  it("a base URL with user:password@ is refused before anything is sent, without printing the password (pull review: 28 retries, the password 25 times on stderr)", async () => {
    const api = fakeApi(fixture);
    const r = await pullWorld({ baseUrl: "https://user:hunter2@api.test", fetch: api.fetch, credentials: { kind: "token", token: "tok-admin" }, now: () => NOW, retry: noWait });
    expect(!r.ok && r.error.code).toBe("INVALID_ARGUMENT");
    expect(JSON.stringify(r)).not.toContain("hunter2");
    expect(api.requests).toEqual([]);
    const io = memoryIO({ env: { POLICY_SIM_TOKEN: "tok-admin" }, fetch: api.fetch });
    const code = await runCli(["pull", "--base-url", "https://user:hunter2@api.test", "--out", "w.json"], io);
    expect(code).toBe(EXIT.badInput);
    expect(io.err()).toMatch(/--base-url must not carry a user name or password/);
    expect(io.err() + io.out()).not.toContain("hunter2");
  });

  it("--state all asks for every task, deleted ones included", async () => {
    const api = fakeApi(fixture);
    const r = await pullWorld({ baseUrl: "http://api.test", fetch: api.fetch, credentials: { kind: "token", token: "tok-admin" }, states: "all", now: () => NOW, retry: noWait });
    expect(r.ok && r.value.counts["tasks"]).toBe(fixture.tasks.length);
  });

  it("429 with Retry-After, 503s, an empty page and a page token that expires mid-listing: the same world, nothing twice", async () => {
    const waits: number[] = [];
    const progress: PullProgress[] = [];
    const api = fakeApi(fixture, {
      faults: [
        { route: "GET /api/v1/users", nth: 0, status: 429, headers: { "retry-after": "7" } },
        { route: "GET /api/v1/policies", nth: 1, status: 503 },
        { route: "GET /api/v1/policies", nth: 2, status: 502 },
        { route: "POST /api/v1/search/tasks", nth: 1, status: 429, headers: { "retry-after": "Wed, 25 Nov 2026 10:00:03 GMT" } },
      ],
      emptyPageAt: { "POST /api/v1/search/tasks": 10 },
      expireTokensOnce: ["GET /api/v1/apps/app-okta/app_users"],
    });
    const r = await pullWorld({
      baseUrl: "http://api.test",
      fetch: api.fetch,
      credentials: { kind: "token", token: "tok-admin" },
      pageSize: 10,
      now: () => NOW,
      onProgress: (p) => progress.push(p),
      retry: { ...noWait, sleep: async (ms) => void waits.push(ms) },
    });
    if (!r.ok) throw new Error(r.error.message);
    expect(comparable(r.value.world)).toEqual(comparable(fixture));
    expect(r.value.counts["tasks"]).toBe(fixture.tasks.filter((t) => t["state"] === "TASK_STATE_OPEN").length);
    // Retry-After in seconds and as an HTTP date; exponential backoff otherwise (1 ms, then 2 ms, random() = 0 halves them).
    expect(waits).toEqual(expect.arrayContaining([7000, 3000]));
    expect(progress.filter((p) => p.kind === "retry").map((p) => p.status).sort()).toEqual([429, 429, 502, 503]);
    expect(api.requests.filter((q) => q.startsWith("GET /api/v1/apps/app-okta/app_users")).length).toBeGreaterThan(2);
    const lists = api.requests.filter((q) => /^GET \/api\/v1\/(users|policies|apps|apps\/[^/]+\/(entitlements|app_users))(\?|$)/.test(q));
    expect(lists.length).toBeGreaterThan(10);
    expect(lists.filter((q) => !q.includes("page_size=10"))).toEqual([]);
  });

  it("a server that answers one page token twice is stopped, not followed for ever", async () => {
    const loop = (async (input: string | URL | Request) => {
      const url = new URL(String(input));
      return new Response(JSON.stringify({ list: [{ id: `p-${url.searchParams.get("page_token") ?? ""}` }], nextPageToken: "same" }), { status: 200 });
    }) as typeof fetch;
    const api = createApiClient({ baseUrl: "http://api.test", fetch: loop, credentials: { kind: "token", token: "t" }, ...noWait });
    const r = await api.list({ method: "GET", path: "/api/v1/policies" });
    expect(!r.ok && r.error.code).toBe("PAGING");
  });

  it("a server that answers empty pages with ever new tokens is stopped after 100 in a row", async () => {
    let n = 0;
    const endless = (async () => new Response(JSON.stringify({ list: [], nextPageToken: `t-${n++}` }), { status: 200 })) as typeof fetch;
    const api = createApiClient({ baseUrl: "http://api.test", fetch: endless, credentials: { kind: "token", token: "t" }, ...noWait });
    const r = await api.list({ method: "GET", path: "/api/v1/users" });
    expect(!r.ok && r.error.code).toBe("PAGING");
    expect(!r.ok && r.error.message).toMatch(/100 empty pages in a row/);
    expect(n).toBe(100);
  });

  it("a server whose cursor is broken (the first page again under a new token each time) is stopped with PAGING after 10 pages in a row of users it already gave, at once (platform review: 18k pages in 60 s, 5.5 h to maxListingItems)", async () => {
    const api = fakeApi(fixture, { brokenCursor: new Set(["GET /api/v1/users"]) });
    const started = Date.now();
    // maxListingItems only so that a client without the check fails here quickly, rather than after minutes.
    const r = await pullWorld({ baseUrl: "http://api.test", fetch: api.fetch, credentials: { kind: "token", token: "tok-admin" }, pageSize: 10, now: () => NOW, retry: { ...noWait, maxListingItems: 5000 } });
    expect(!r.ok && r.error).toMatchObject({
      code: "PAGING",
      message: expect.stringMatching(
        /^GET \/api\/v1\/users: the server kept answering pages of items it had already given in this listing \(10 pages in a row, each naming a next page\), so its paging is broken; stopping instead of following it until 5,000 items$/,
      ) as unknown,
    });
    // The first page, then ten that bring nothing new.
    expect(api.requests.filter((q) => q.startsWith("GET /api/v1/users")).length).toBe(11);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("a listing that shifts while it is paged (objects added ahead of its cursor) still completes with nothing lost: one item again, or 9 whole pages again in a row; 10 in a row is PAGING", async () => {
    const open = fixture.tasks.filter((t) => t["state"] === "TASK_STATE_OPEN").length;
    const pull = (shift: { offset: number; pages: number; by?: number }) => {
      const api = fakeApi(fixture, { shiftFrom: { "POST /api/v1/search/tasks": shift } });
      return pullWorld({ baseUrl: "http://api.test", fetch: api.fetch, credentials: { kind: "token", token: "tok-admin" }, pageSize: 10, now: () => NOW, retry: noWait });
    };
    // One object added while page 3 is asked for: that page starts with the last task of page 2.
    const one = await pull({ offset: 20, pages: 1 });
    if (!one.ok) throw new Error(one.error.message);
    expect(comparable(one.value.world)).toEqual(comparable(fixture));
    expect(one.value.counts["tasks"]).toBe(open);
    expect(one.value.warnings.find((w) => w.code === "DUPLICATES")?.message).toContain("(1 of tasks)");
    // A page's worth added before each of nine requests (page size 1 and one insert each, ten times over):
    // page 2 comes back nine times, then the listing goes on where it was.
    const nine = await pull({ offset: 20, pages: 9, by: 10 });
    if (!nine.ok) throw new Error(nine.error.message);
    expect(comparable(nine.value.world)).toEqual(comparable(fixture));
    expect(nine.value.counts["tasks"]).toBe(open);
    expect(nine.value.warnings.find((w) => w.code === "DUPLICATES")?.message).toContain("(90 of tasks)");
    const ten = await pull({ offset: 20, pages: 10, by: 10 });
    expect(!ten.ok && ten.error).toMatchObject({ code: "PAGING", message: expect.stringContaining("POST /api/v1/search/tasks: the server kept answering pages of items it had already given in this listing (10 pages in a row") as unknown });
  });

  it("a server that pages one item at a time with ever new tokens is stopped at maxListingItems (PAGING), not followed until memory runs out", async () => {
    let n = 0;
    const endless = (async () => new Response(JSON.stringify({ list: [{ id: `u-${n}` }], nextPageToken: `t-${n++}` }), { status: 200 })) as typeof fetch;
    const api = createApiClient({ baseUrl: "http://api.test", fetch: endless, credentials: { kind: "token", token: "t" }, ...noWait, maxListingItems: 250 });
    const r = await api.list({ method: "GET", path: "/api/v1/users" });
    expect(!r.ok && r.error).toMatchObject({ code: "PAGING", message: expect.stringMatching(/ran past 250 items/) as unknown });
    expect(n).toBe(251);
    // A listing of exactly the limit is whole.
    let m = 0;
    const fifty = (async () => new Response(JSON.stringify({ list: Array.from({ length: 50 }, (_, i) => ({ id: `u-${m * 50 + i}` })), nextPageToken: ++m < 5 ? `t-${m}` : "" }), { status: 200 })) as typeof fetch;
    const whole = await createApiClient({ baseUrl: "http://api.test", fetch: fifty, credentials: { kind: "token", token: "t" }, ...noWait, maxListingItems: 250 }).list({ method: "GET", path: "/api/v1/users" });
    expect(whole.ok && whole.value.length).toBe(250);
    expect(DEFAULT_MAX_LISTING_ITEMS).toBe(10_000_000);
  });

  it("an answer over maxResponseBytes stops the pull (BAD_RESPONSE, not retried), declared or streamed without end on a real socket", async () => {
    const declared = (async () => new Response("x".repeat(2000), { status: 200, headers: { "content-length": "2000" } })) as typeof fetch;
    let calls = 0;
    const counting = (async (...a: Parameters<typeof fetch>) => (calls++, declared(...a))) as typeof fetch;
    const big = await createApiClient({ baseUrl: "http://api.test", fetch: counting, credentials: { kind: "token", token: "t" }, ...noWait, maxResponseBytes: 1000 }).call("GET", "/api/v1/users");
    expect(!big.ok && big.error).toMatchObject({ code: "BAD_RESPONSE", message: expect.stringMatching(/2000 bytes, over the 1000-byte limit/) as unknown });
    expect(calls).toBe(1);
    // A chunked answer that never ends: stopped once past the limit, the socket let go.
    const sockets = new Set<Socket>();
    const flood = createHttpServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = (): void => {
        while (res.write(chunk));
        res.once("drain", pump);
      };
      res.write('{"list":[');
      pump();
    });
    flood.on("connection", (s) => void sockets.add(s));
    const port = await new Promise<number>((resolve) => void flood.listen(0, "127.0.0.1", () => resolve((flood.address() as AddressInfo).port)));
    try {
      const r = await createApiClient({ baseUrl: `http://127.0.0.1:${port}`, fetch, credentials: { kind: "token", token: "t" }, ...noWait, maxResponseBytes: 4 * 1024 * 1024 }).call("GET", "/api/v1/users");
      expect(!r.ok && r.error).toMatchObject({ code: "BAD_RESPONSE", message: expect.stringMatching(/ran past the 4194304-byte limit/) as unknown });
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => flood.close(r));
    }
    // Text split across chunks in the middle of a character is decoded whole.
    const split = (async () => {
      const bytes = new TextEncoder().encode(JSON.stringify({ list: [{ id: "ü€𝄞" }], nextPageToken: "" }));
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          for (const b of bytes) c.enqueue(new Uint8Array([b]));
          c.close();
        },
      });
      return new Response(body, { status: 200 });
    }) as typeof fetch;
    const one = await createApiClient({ baseUrl: "http://api.test", fetch: split, credentials: { kind: "token", token: "t" }, ...noWait }).list({ method: "GET", path: "/api/v1/users" });
    expect(one.ok && one.value).toEqual([{ id: "ü€𝄞" }]);
  });

  it("a server that never answers, or stops mid-answer, times out (requestTimeoutMs): retried timeoutRetries times (2 by default), each retry announced, then DEADLINE_EXCEEDED", async () => {
    // A real socket: one server accepts and says nothing, the other sends headers and half a body.
    const sockets = new Set<Socket>();
    const silent = createNetServer((s) => void sockets.add(s));
    const half = createHttpServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
      res.write('{"list":[');
    });
    half.on("connection", (s) => void sockets.add(s));
    const [silentPort, halfPort] = [await listen(silent), await listen(half)];
    try {
      const retries: RetryInfo[] = [];
      // Six retries of other failures (the default), but a timeout costs a whole requestTimeoutMs.
      const options = { credentials: { kind: "token", token: "t" } as const, fetch, requestTimeoutMs: 300, backoffMs: 10, onRetry: (r: RetryInfo) => void retries.push(r) };
      const started = Date.now();
      const none = await createApiClient({ ...options, baseUrl: `http://127.0.0.1:${silentPort}` }).call("GET", "/api/v1/users");
      const took = Date.now() - started;
      expect(!none.ok && none.error).toMatchObject({ code: "DEADLINE_EXCEEDED", message: expect.stringMatching(/^GET \/api\/v1\/users at http:\/\/127\.0\.0\.1:\d+: no whole answer within 0\.3 s on each of 3 attempts; gave up/) as unknown });
      expect(retries.map((r) => [r.attempt, r.reason, r.status])).toEqual([[1, "timeout", null], [2, "timeout", null]]);
      expect(retries.map((r) => r.message)).toEqual([
        expect.stringMatching(/^GET \/api\/v1\/users: no whole answer within 0\.3 s \(timeout 1 of at most 3\); retrying in 0 s$/),
        expect.stringMatching(/^GET \/api\/v1\/users: no whole answer within 0\.3 s \(timeout 2 of at most 3\); retrying in 0 s$/),
      ]);
      // Three timeouts and two short backoffs: bounded, not seven timeouts. The retries above count
      // the attempts; the time only has to rule out a wait without end, with room for a loaded CI machine.
      expect(took).toBeGreaterThanOrEqual(3 * 300 - 50);
      expect(took).toBeLessThan(10_000);
      // An answer that stops part-way is retried like one that never came; timeoutRetries sets how often.
      retries.length = 0;
      const cut = await createApiClient({ ...options, timeoutRetries: 1, baseUrl: `http://127.0.0.1:${halfPort}` }).call("GET", "/api/v1/users");
      expect(!cut.ok && cut.error).toMatchObject({ code: "DEADLINE_EXCEEDED", message: expect.stringMatching(/no whole answer within 0\.3 s on each of 2 attempts/) as unknown });
      expect(retries.map((r) => r.attempt)).toEqual([1]);
      expect(DEFAULT_TIMEOUT_RETRIES).toBe(2);
    } finally {
      for (const s of sockets) s.destroy();
      await Promise.all([new Promise((r) => silent.close(r)), new Promise((r) => half.close(r))]);
    }
  });

  it("pullWorld against a server that accepts and never answers: one request's timeouts, every retry in progress, then DEADLINE_EXCEEDED; no listing starts after", async () => {
    const sockets = new Set<Socket>();
    const requests: string[] = [];
    const silent = createNetServer((s) => {
      sockets.add(s);
      s.once("data", (d) => void requests.push(String(d).split("\r\n")[0] ?? ""));
    });
    const port = await listen(silent);
    try {
      const progress: PullProgress[] = [];
      const started = Date.now();
      const r = await pullWorld({
        baseUrl: `http://127.0.0.1:${port}`,
        fetch,
        credentials: { kind: "token", token: "t" },
        concurrency: 4,
        onProgress: (p) => progress.push(p),
        retry: { requestTimeoutMs: 300, backoffMs: 10 },
      });
      const took = Date.now() - started;
      expect(!r.ok && r.error).toMatchObject({ code: "DEADLINE_EXCEEDED", message: expect.stringMatching(/no whole answer within 0\.3 s on each of 3 attempts; gave up/) as unknown });
      // Before: the first four listings ran out 7 attempts each, then the next two did the same (about 14 timeouts).
      expect(took).toBeLessThan(10_000);
      const retries = progress.filter((p) => p.kind === "retry");
      expect(retries.length).toBeGreaterThan(0);
      expect(retries.length).toBeLessThanOrEqual(4 * DEFAULT_TIMEOUT_RETRIES);
      for (const p of retries) {
        expect(p).toMatchObject({ reason: "timeout", status: null });
        expect(p.message).toMatch(/no whole answer within 0\.3 s \(timeout [12] of at most 3\); retrying in/);
      }
      // The four first listings, three attempts each at most: the others never started.
      expect(requests.length).toBeLessThanOrEqual(4 * 3);
      expect(new Set(requests)).toEqual(new Set(["GET /api/v1/policies HTTP/1.1", "GET /api/v1/users HTTP/1.1", "GET /api/v1/apps HTTP/1.1", "POST /api/v1/search/tasks HTTP/1.1"]));
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  it("the first listing that fails stops the pull: no other listing starts, requests in flight are cancelled, the failure reported is the first", async () => {
    const api = fakeApi(fixture, { faults: [{ route: "GET /api/v1/policies", nth: 0, status: 403, body: { code: 7, message: "no" } }] });
    const r = await pullWorld({ baseUrl: "http://api.test", fetch: api.fetch, credentials: { kind: "token", token: "tok-admin" }, concurrency: 1, retry: noWait });
    expect(!r.ok && r.error).toMatchObject({ code: "PERMISSION_DENIED", status: 403 });
    expect(api.requests).toEqual(["GET /api/v1/policies"]);
    // In flight: a listing that waits out a long Retry-After is cut short, and its CANCELLED is not what is reported.
    let sleeping = 0;
    const slow = fakeApi(fixture, {
      faults: [
        { route: "GET /api/v1/users", nth: 0, status: 429, headers: { "retry-after": "3600" } },
        { route: "GET /api/v1/apps", nth: 0, status: 401 },
      ],
    });
    const started = Date.now();
    const stopped = await pullWorld({
      baseUrl: "http://api.test",
      fetch: slow.fetch,
      credentials: { kind: "token", token: "tok-admin" },
      concurrency: 3,
      retry: { retries: 2, maxBackoffMs: 3_600_000, sleep: (ms) => (sleeping++, new Promise((resolve) => setTimeout(resolve, ms).unref())) },
    });
    expect(!stopped.ok && stopped.error.code).toBe("UNAUTHENTICATED");
    expect(sleeping).toBe(1);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("a pull given an AbortSignal stops with CANCELLED when it is aborted", async () => {
    const before = new AbortController();
    before.abort();
    const api = fakeApi(fixture);
    const r = await pullWorld({ baseUrl: "http://api.test", fetch: api.fetch, credentials: { kind: "token", token: "tok-admin" }, signal: before.signal, retry: noWait });
    expect(!r.ok && r.error.code).toBe("CANCELLED");
    expect(api.requests).toEqual([]);
    const during = new AbortController();
    const sockets = new Set<Socket>();
    const silent = createNetServer((s) => void sockets.add(s));
    const port = await listen(silent);
    try {
      setTimeout(() => during.abort(), 100);
      const started = Date.now();
      const cut = await pullWorld({ baseUrl: `http://127.0.0.1:${port}`, fetch, credentials: { kind: "token", token: "t" }, signal: during.signal, retry: { requestTimeoutMs: 60_000 } });
      expect(!cut.ok && cut.error.code).toBe("CANCELLED");
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  it("a 5xx that outlasts the retries, a refused token and a network failure are errors with their cause, never a throw", async () => {
    const always503 = fakeApi(fixture, { faults: [0, 1, 2, 3, 4, 5].map((nth) => ({ route: "GET /api/v1/policies", nth, status: 503 })) });
    const r = await pullWorld({ baseUrl: "http://api.test", fetch: always503.fetch, credentials: { kind: "token", token: "tok-admin" }, retry: noWait });
    expect(!r.ok && r.error).toMatchObject({ code: "HTTP_ERROR", status: 503 });
    const wrong = await pullWorld({ baseUrl: "http://api.test", fetch: fakeApi(fixture).fetch, credentials: { kind: "token", token: "nope" }, retry: noWait });
    expect(!wrong.ok && wrong.error.code).toBe("UNAUTHENTICATED");
    expect(!wrong.ok && wrong.error.message).not.toContain("nope");
    const down = (async () => {
      throw new TypeError("fetch failed");
    }) as typeof fetch;
    const net = await pullWorld({ baseUrl: "http://api.test", fetch: down, credentials: { kind: "token", token: "t" }, retry: noWait });
    expect(!net.ok && net.error.code).toBe("NETWORK_ERROR");
  });

  it("a network failure says its cause; one that retrying cannot fix (DNS, certificate, blocked port) stops at the first attempt", async () => {
    const failing = (cause: unknown) => {
      let calls = 0;
      const fetch = (async () => {
        calls++;
        throw new TypeError("fetch failed", { cause });
      }) as typeof globalThis.fetch;
      return { fetch, calls: () => calls };
    };
    const code = (message: string, c: string) => Object.assign(new Error(message), { code: c });
    const cases = [
      { cause: code("getaddrinfo ENOTFOUND api.nope", "ENOTFOUND"), says: ["getaddrinfo ENOTFOUND api.nope", "does not resolve"], once: true },
      { cause: code("certificate has expired", "CERT_HAS_EXPIRED"), says: ["certificate has expired", "NODE_EXTRA_CA_CERTS"], once: true },
      { cause: new Error("bad port"), says: ["bad port"], once: true },
      { cause: code("connect ECONNREFUSED 127.0.0.1:8080", "ECONNREFUSED"), says: ["connect ECONNREFUSED 127.0.0.1:8080", "is the server running"], once: false },
      // localhost tried on both addresses: each refusal named.
      { cause: new AggregateError([code("connect ECONNREFUSED ::1:8080", "ECONNREFUSED"), code("connect ECONNREFUSED 127.0.0.1:8080", "ECONNREFUSED")]), says: ["ECONNREFUSED ::1:8080", "ECONNREFUSED 127.0.0.1:8080"], once: false },
    ];
    for (const c of cases) {
      const f = failing(c.cause);
      const r = await pullWorld({ baseUrl: "http://api.test", fetch: f.fetch, credentials: { kind: "token", token: "t" }, retry: noWait, concurrency: 1 });
      expect(!r.ok && r.error.code).toBe("NETWORK_ERROR");
      for (const s of c.says) expect(!r.ok && r.error.message).toContain(s);
      if (c.once) expect(f.calls()).toBe(1);
      else expect(f.calls()).toBeGreaterThan(1);
    }
  });

  it("what the API cannot give is inferred (built-in default policies, the reference flag, the clock) or a warning saying how to set it", async () => {
    const r = await pullWorld({ baseUrl: "http://api.test", fetch: fakeApi(fixture).fetch, credentials: { kind: "token", token: "tok-admin" }, now: () => NOW, retry: noWait });
    if (!r.ok) throw new Error(r.error.message);
    const w = r.value.world;
    expect(w["now"]).toBe("2026-11-25T10:00:00Z");
    // Grant: the one built-in grant policy; offboarding, action, finding: the policy their tasks carry;
    // revoke (no built-in one): the policy its tasks carry whose entitlement and app name none.
    expect(w["tenant"]).toEqual({
      defaultPolicies: { grant: "pol-default-grant", revoke: "pol-revoke-standard", offboarding: "pol-offboarding", action: "pol-action-approval", finding: "pol-finding-triage" },
      featureFlags: { POLICY_REFERENCES_POLICY: true },
    });
    const codes = r.value.warnings.map((x) => x.code);
    expect(codes).toEqual(expect.arrayContaining(["DEFAULT_POLICY_UNKNOWN", "DEFAULT_POLICY_INFERRED", "CLOCK", "NOT_OFFERED"]));
    // The roles listing gives every role users hold, with its kind.
    expect(codes).not.toContain("ROLES_UNKNOWN");
    expect(w["roles"]).toEqual(fixture.roles);
    expect(r.value.counts["roles"]).toBe(fixture.roles.length);
    const revoke = r.value.warnings.find((x) => x.message.includes('"tenant.defaultPolicies.revoke"'));
    expect(revoke).toMatchObject({ code: "DEFAULT_POLICY_INFERRED", message: expect.stringContaining("whose entitlement and app name no revoke policy") as unknown });
    // Certify: every certify task's access review names its policy, so none tells the default.
    expect(r.value.warnings.find((x) => x.message.includes('"tenant.defaultPolicies.certify"'))?.code).toBe("DEFAULT_POLICY_UNKNOWN");
    const notOffered = r.value.warnings.filter((x) => x.code === "NOT_OFFERED").map((x) => x.message);
    expect(notOffered.some((m) => m.includes("entitlement configuration rules"))).toBe(true);
    // Reported once, not once per app.
    expect(notOffered.filter((m) => m.includes("entitlement configuration rules"))).toHaveLength(1);
  });
});

describe("openapi.yaml c1.api.iam.v1.Roles: the tenant's roles, so users' roleIds resolve", () => {
  it("a role whose name and display name name no documented role is read as a Basic User, with a warning saying how to set it", async () => {
    const world = { ...fixture, roles: [...fixture.roles, { id: "r-auditors", displayName: "Auditors", kind: "custom-auditor" }] };
    const r = await pullWorld({ baseUrl: "http://api.test", fetch: fakeApi(world).fetch, credentials: { kind: "token", token: "tok-admin" }, now: () => NOW, retry: noWait });
    if (!r.ok) throw new Error(r.error.message);
    expect((r.value.world["roles"] as Json[]).at(-1)).toEqual({ id: "r-auditors", displayName: "Auditors", kind: "BASIC_USER" });
    const w = r.value.warnings.find((x) => x.code === "ROLE_KIND_UNKNOWN");
    expect(w?.message).toMatch(/1 role\(s\) name no documented role \(r-auditors "Auditors"\); they are read as BASIC_USER/);
    expect(w?.message).toContain('"kind"');
  });

  it("a user holding a role the listing lacks is a ROLES_UNKNOWN warning, not a silent dangling id", async () => {
    const world = { ...fixture, roles: fixture.roles.filter((x) => x["id"] !== "r-helpdesk") };
    const r = await pullWorld({ baseUrl: "http://api.test", fetch: fakeApi(world).fetch, credentials: { kind: "token", token: "tok-admin" }, now: () => NOW, retry: noWait });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.warnings.find((x) => x.code === "ROLES_UNKNOWN")?.message).toMatch(/users hold 1 role id\(s\) the API does not describe \(r-helpdesk\)/);
  });
});

describe("openapi.yaml oauth: client credentials with an EdDSA JWT assertion", () => {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const jwk = privateKey.export({ format: "jwk" });
  const secret = `${CLIENT_SECRET_PREFIX}${Buffer.from(JSON.stringify(jwk)).toString("base64")}`;

  it("posts a client_credentials form whose assertion is signed by the secret's key, iss = sub = client id, aud = host without port", async () => {
    let form: URLSearchParams | undefined;
    const fetchFn = (async (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(String(input));
      if (url.pathname === "/auth/v1/token") {
        form = new URLSearchParams(String(init?.body));
        return new Response(JSON.stringify({ access_token: "at-1", token_type: "Bearer", expires_in: 60 }), { status: 200 });
      }
      const ok = new Headers(init?.headers).get("authorization") === "Bearer at-1";
      return new Response(JSON.stringify(ok ? { list: [], nextPageToken: "" } : { message: "no" }), { status: ok ? 200 : 401 });
    }) as typeof fetch;
    const api = createApiClient({ baseUrl: "http://tenant.example:8443/", fetch: fetchFn, credentials: { kind: "client", clientId: "bot@tenant/pcc", clientSecret: secret }, now: () => NOW, ...noWait });
    const r = await api.list({ method: "GET", path: "/api/v1/policies" });
    expect(r.ok).toBe(true);
    expect(form?.get("grant_type")).toBe("client_credentials");
    expect(form?.get("client_assertion_type")).toBe("urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
    const [h, p, s] = (form?.get("client_assertion") ?? "").split(".");
    expect(JSON.parse(Buffer.from(h ?? "", "base64url").toString())).toMatchObject({ alg: "EdDSA" });
    const claims = JSON.parse(Buffer.from(p ?? "", "base64url").toString()) as Json;
    expect(claims).toMatchObject({ iss: "bot@tenant/pcc", sub: "bot@tenant/pcc", aud: "tenant.example", iat: NOW / 1000, exp: NOW / 1000 + 300 });
    expect(verify(null, Buffer.from(`${h}.${p}`), createPublicKey(publicKey.export({ format: "pem", type: "spki" })), Buffer.from(s ?? "", "base64url"))).toBe(true);
  });

  it("a malformed secret is refused before anything is sent, without echoing it", async () => {
    expect(privateKeyOfSecret("hunter2").ok).toBe(false);
    expect(privateKeyOfSecret(`${CLIENT_SECRET_PREFIX}!!!`).ok).toBe(false);
    expect(privateKeyOfSecret(`${CLIENT_SECRET_PREFIX}${Buffer.from('{"kty":"RSA"}').toString("base64")}`).ok).toBe(false);
    let sent = 0;
    const counting = (async () => {
      sent++;
      return new Response("{}");
    }) as typeof fetch;
    const api = createApiClient({ baseUrl: "http://x.test", fetch: counting, credentials: { kind: "client", clientId: "c", clientSecret: "secret-token:conductorone.com:v1:hunter2=" }, ...noWait });
    const r = await api.call("GET", "/api/v1/policies");
    expect(!r.ok && r.error.code).toBe("UNAUTHENTICATED");
    expect(!r.ok && r.error.message).not.toContain("hunter2");
    expect(sent).toBe(0);
  });

  it("credentials come from POLICY_SIM_CLIENT_ID + POLICY_SIM_CLIENT_SECRET, else POLICY_SIM_TOKEN", () => {
    expect(credentialsFromEnv({ POLICY_SIM_CLIENT_ID: "c", POLICY_SIM_CLIENT_SECRET: "s", POLICY_SIM_TOKEN: "t" })).toEqual({ ok: true, value: { kind: "client", clientId: "c", clientSecret: "s" } });
    expect(credentialsFromEnv({ POLICY_SIM_TOKEN: "t" })).toEqual({ ok: true, value: { kind: "token", token: "t" } });
    const half = credentialsFromEnv({ POLICY_SIM_CLIENT_SECRET: "s3cr3t" });
    expect(!half.ok && half.error).toContain("POLICY_SIM_CLIENT_ID");
    expect(!half.ok && half.error).not.toContain("s3cr3t");
    expect(credentialsFromEnv({}).ok).toBe(false);
  });
});

describe("policy-sim pull", () => {
  const run = async (argv: string[], env: Record<string, string>, fetchFn: typeof fetch) => {
    const io = memoryIO({ env, fetch: fetchFn });
    const code = await runCli(argv, io);
    return { code, out: io.out(), err: io.err(), written: io.written };
  };

  it("off a terminal (a pipe, a CI log) each retry is a line on stderr, so a slow server does not look like a hung pull", async () => {
    const api = fakeApi(fixture, { faults: [{ route: "GET /api/v1/users", nth: 0, status: 503, body: { code: 14, message: "busy" } }] });
    const r = await run(["pull", "--base-url", "https://api.test", "--out", "tenant.json"], { POLICY_SIM_TOKEN: "tok-admin" }, api.fetch);
    expect(r.code).toBe(EXIT.ok);
    expect(r.err).toMatch(/^pull: users: .*503.*$/m);
  });

  it("writes a world that loads, with warnings on stderr and the token nowhere in the output", async () => {
    const r = await run(["pull", "--base-url", "https://api.test", "--out", "tenant.json"], { POLICY_SIM_TOKEN: "tok-admin" }, fakeApi(fixture).fetch);
    expect(r.code).toBe(EXIT.ok);
    const text = r.written.get("tenant.json") ?? "";
    const loaded = loadWorld(JSON.parse(text), { strict: false });
    expect(loaded.ok).toBe(true);
    expect(r.err).toMatch(/^pulled \d+ policies, \d+ tasks/m);
    expect(r.err).toContain("warning:");
    expect(r.err + r.out).not.toContain("tok-admin");
  });

  it("--json writes progress lines and a summary on stdout", async () => {
    const r = await run(["pull", "--base-url", "https://api.test", "--out", "t.json", "--json", "--page-size", "10"], { POLICY_SIM_TOKEN: "tok-admin" }, fakeApi(fixture).fetch);
    const lines = r.out.trim().split("\n").map((l) => JSON.parse(l) as Json);
    expect(lines.filter((l) => l["progress"] !== undefined).length).toBeGreaterThan(5);
    expect(lines.at(-1)).toMatchObject({ written: "t.json" });
  });

  it("--request-timeout against a server that never answers: each retry is a progress line, then exit 2 with DEADLINE_EXCEEDED, within three timeouts", async () => {
    const sockets = new Set<Socket>();
    const silent = createNetServer((s) => void sockets.add(s));
    const port = await listen(silent);
    try {
      const started = Date.now();
      const r = await run(["pull", "--base-url", `http://127.0.0.1:${port}`, "--out", "t.json", "--json", "--request-timeout", "0.3", "--concurrency", "1"], { POLICY_SIM_TOKEN: "t" }, fetch);
      const took = Date.now() - started;
      expect(r.code).toBe(EXIT.badInput);
      expect(r.err).toMatch(/pull failed: DEADLINE_EXCEEDED: GET \/api\/v1\/policies at http:\/\/127\.0\.0\.1:\d+: no whole answer within 0\.3 s on each of 3 attempts/);
      const lines = r.out.trim().split("\n").map((l) => JSON.parse(l) as Json);
      const retries = lines.flatMap((l) => (l["progress"] as PullProgress | undefined)?.kind === "retry" ? [l["progress"] as PullProgress] : []);
      expect(retries.map((p) => p.message?.replace(/retrying in .*/, "retrying"))).toEqual([
        "GET /api/v1/policies: no whole answer within 0.3 s (timeout 1 of at most 3); retrying",
        "GET /api/v1/policies: no whole answer within 0.3 s (timeout 2 of at most 3); retrying",
      ]);
      // Three timeouts and two backoffs of at most 0.5 s and 1 s (the retries above count them); the
      // time only rules out a wait without end, with room for a loaded CI machine.
      expect(took).toBeLessThan(10_000);
      expect(r.written.has("t.json")).toBe(false);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  it("no credentials, a bad URL or a failed pull exit 2", async () => {
    const f = fakeApi(fixture).fetch;
    expect((await run(["pull", "--base-url", "https://api.test", "--out", "t.json"], {}, f)).code).toBe(EXIT.badInput);
    expect((await run(["pull", "--base-url", "ftp://x", "--out", "t.json"], { POLICY_SIM_TOKEN: "x" }, f)).code).toBe(EXIT.badInput);
    // "A non-HTTPS tenant URL in the command-line client: rejected, not upgraded" (the spec's Errors
    // table): nothing is sent, not even to sign in. Plain http is for a server on this machine only.
    let sent = 0;
    const counting: typeof f = (input, init) => {
      sent++;
      return f(input, init);
    };
    const plain = await run(["pull", "--base-url", "http://api.test", "--out", "t.json"], { POLICY_SIM_TOKEN: "x" }, counting);
    expect(plain.code).toBe(EXIT.badInput);
    expect(plain.err).toContain("--base-url must be https");
    expect(plain.err).toContain("refused, not upgraded");
    expect(sent).toBe(0);
    const refused = await run(["pull", "--base-url", "https://api.test", "--out", "t.json"], { POLICY_SIM_TOKEN: "wrong-token" }, f);
    expect(refused.code).toBe(EXIT.badInput);
    expect(refused.err).toContain("UNAUTHENTICATED");
    expect(refused.err).not.toContain("wrong-token");
    const badTimeout = await run(["pull", "--base-url", "https://api.test", "--out", "t.json", "--request-timeout", "0"], { POLICY_SIM_TOKEN: "x" }, f);
    expect(badTimeout.code).toBe(EXIT.badInput);
    expect(badTimeout.err).toMatch(/--request-timeout must be a number of seconds greater than 0/);
    const badMax = await run(["pull", "--base-url", "https://api.test", "--out", "t.json", "--max-items", "lots"], { POLICY_SIM_TOKEN: "x" }, f);
    expect(badMax.code).toBe(EXIT.badInput);
    expect(badMax.err).toMatch(/--max-items must be a whole number greater than 0, not "lots"/);
    const tooFew = await run(["pull", "--base-url", "https://api.test", "--out", "t.json", "--max-items", "3"], { POLICY_SIM_TOKEN: "tok-admin" }, f);
    expect(tooFew.code).toBe(EXIT.badInput);
    expect(tooFew.err).toMatch(/PAGING: .*ran past 3 items/);
  });
});

describe("openapi.yaml: replaying recorded API pages (fixtures/pull/recorded-pages.json)", () => {
  interface Recorded {
    request: string;
    status: number;
    headers?: Record<string, string>;
    body: unknown;
  }
  const recorded = (JSON.parse(readFileSync("fixtures/pull/recorded-pages.json", "utf8")) as { pages: Recorded[] }).pages;
  /** Answers each request line with the next recorded answer for it; an unrecorded request is a 404. */
  const replay = () => {
    const queue = new Map<string, Recorded[]>();
    for (const p of recorded) queue.set(p.request, [...(queue.get(p.request) ?? []), p]);
    const unanswered: string[] = [];
    const fetchFn = (async (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(String(input));
      url.searchParams.delete("page_size");
      const line = `${init?.method ?? "GET"} ${url.pathname}${url.search}`;
      const bodyToken = init?.body && !String(init.body).includes("=") ? (JSON.parse(String(init.body)) as Json)["pageToken"] : undefined;
      const key = typeof bodyToken === "string" ? `${line}#${bodyToken}` : line;
      const next = queue.get(key)?.shift();
      if (!next) {
        unanswered.push(key);
        return new Response(JSON.stringify({ code: 5, message: "Not Found" }), { status: 404 });
      }
      return new Response(JSON.stringify(next.body), { status: next.status, headers: next.headers ?? {} });
    }) as typeof fetch;
    return { fetch: fetchFn, unanswered, left: () => [...queue.values()].flat() };
  };
  const { privateKey } = generateKeyPairSync("ed25519");
  const secret = `${CLIENT_SECRET_PREFIX}${Buffer.from(JSON.stringify(privateKey.export({ format: "jwk" }))).toString("base64")}`;

  it("objects come back as the API wrote them (batonResourceAction, c1UserPicker, unknown fields) and load and save unchanged", async () => {
    const api = replay();
    const r = await pullWorld({ baseUrl: "https://acme.conductor.one", fetch: api.fetch, credentials: { kind: "client", clientId: "pull@acme/pcc", clientSecret: secret }, now: () => NOW, retry: noWait });
    if (!r.ok) throw new Error(r.error.message);
    expect(api.left()).toEqual([]);
    // The recording has no roles listing and no entitlement owners: 404s, taken as "not offered".
    // Its AppEntitlement carries no owners (openapi.yaml), so pull asks for them, once per entitlement.
    const entitlementIds = recorded.filter((p) => p.request.endsWith("/entitlements")).flatMap((p) => ((p.body as Json)["list"] as Json[]).map((v) => (v["appEntitlement"] as Json)["id"]));
    expect(entitlementIds.length).toBeGreaterThan(0);
    // A policy some object names that the listing lacks is asked for by id (the recording has none: left dangling).
    expect(api.unanswered).toEqual([
      "GET /api/v1/iam/roles",
      "GET /api/v1/auth/introspect",
      ...entitlementIds.map((id) => `GET /api/v1/apps/app-salesforce/entitlements/${String(id)}/ownerids`),
      "GET /api/v1/policies/pol-certify-default",
    ]);
    expect(r.value.warnings.find((w) => w.code === "POLICIES_NOT_LISTED")?.message).toMatch(/0 found, 1 not found or not readable \(pol-certify-default\)/);
    expect(r.value.world["roles"]).toBeUndefined();
    expect(r.value.warnings.filter((w) => w.code === "NOT_OFFERED").map((w) => w.message)).toEqual(expect.arrayContaining([expect.stringContaining("roles (GET /api/v1/iam/roles) (404)")]));
    expect(r.value.warnings.find((w) => w.code === "ENTITLEMENT_OWNERS_UNKNOWN")?.message).toMatch(/does not offer entitlement owners \(GET \/api\/v1\/apps\/\{app_id\}\/entitlements\/\{entitlement_id\}\/ownerids\) \(404\)/);
    const pages = recorded.filter((p) => p.status === 200).map((p) => p.body as Json);
    const policies = pages.filter((b) => Array.isArray(b["list"]) && (b["list"] as Json[]).some((x) => typeof x["policySteps"] === "object")).flatMap((b) => b["list"] as Json[]);
    expect(r.value.world["policies"]).toEqual(policies);
    expect(JSON.stringify(r.value.world["policies"])).toContain('"batonResourceAction"');
    expect(r.value.counts).toMatchObject({ policies: 2, users: 4, tasks: 1, entitlementConfigurationRules: 1 });
    const loaded = loadWorld(r.value.world, { strict: false });
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error.slice(0, 3)));
    const saved = saveWorld(loaded.value) as Json;
    expect(saved["policies"]).toEqual(policies);
    expect(JSON.stringify(saved["policies"])).toContain('"c1UserPicker"');
    expect(saved["tasks"]).toEqual(r.value.world["tasks"]);
    expect((saved["apps"] as Json[])[0]?.["ownerUserIds"]).toEqual(["u-it-dir"]);
    expect(r.value.warnings.map((w) => w.code)).toEqual(expect.arrayContaining(["ROLES_UNKNOWN", "NOT_OFFERED", "CLOCK", "DEFAULT_POLICY_UNKNOWN"]));
    expect(r.value.world["tenant"]).toMatchObject({ defaultPolicies: { grant: "2hQ1pRsDk9aXdefaultgrant" } });
  });
});

describe("policy-sim pull on a terminal", () => {
  it("draws a progress bar on stderr, redrawn in place and erased at the end", async () => {
    const io = memoryIO({ env: { POLICY_SIM_TOKEN: "tok-admin" }, fetch: fakeApi(fixture).fetch, stderrIsTTY: true });
    const code = await runCli(["pull", "--base-url", "https://api.test", "--out", "t.json", "--page-size", "10"], io);
    expect(code).toBe(EXIT.ok);
    expect(io.err()).toMatch(/\rpull: tasks: \d+ \(\d+ pages?\)/);
    expect(io.err()).toMatch(/\[[#.]+\]\s+\d+\/\d+/);
    expect(io.err()).toContain("\r\u001b[K");
    expect(io.out()).toBe("");
  });
});

describe("a grant default inferred from tasks only where the pull read what else could have routed them (diff review)", () => {
  it("with the apps' request defaults refused (403), a grant they routed does not name the tenant's default; read, the same tenant infers nothing false either", async () => {
    const world = structuredClone(fixture);
    world.policies = world.policies.map((p) => (p["id"] === "pol-default-grant" ? { ...p, systemBuiltin: false } : p));
    // The github grants' only closer source is then the rt-repo request default (pol-gh-repo-access).
    world.apps = world.apps.map((a) => (a["id"] === "app-github" ? { ...a, grantPolicyId: "" } : a));
    world.tasks = world.tasks.filter((t) => t["numericId"] !== "1008");
    const grantDefault = async (deny: boolean) => {
      const api = fakeApi(world);
      const fetchFn = (async (input: string | URL | Request, init?: RequestInit) => {
        const path = new URL(String(input)).pathname;
        if (path.endsWith("/entitlement_configuration_rules")) return new Response(JSON.stringify({ list: [], nextPageToken: "" }), { status: 200 });
        if (deny && path.endsWith("/access_request_defaults")) return new Response(JSON.stringify({ code: 7, message: "denied" }), { status: 403 });
        return api.fetch(input, init);
      }) as typeof fetch;
      const r = await pullWorld({ baseUrl: "http://api.test", fetch: fetchFn, credentials: { kind: "token", token: "tok-admin" }, now: () => NOW, retry: noWait });
      if (!r.ok) throw new Error(r.error.message);
      return { id: ((r.value.world["tenant"] as Json)["defaultPolicies"] as Record<string, string>)["grant"], codes: r.value.warnings.filter((w) => w.message.includes('"tenant.defaultPolicies.grant"')).map((w) => w.code) };
    };
    expect(await grantDefault(true)).toEqual({ id: undefined, codes: ["DEFAULT_POLICY_UNKNOWN"] });
    expect(await grantDefault(false)).toEqual({ id: undefined, codes: ["DEFAULT_POLICY_UNKNOWN"] });
  });
});

describe("the groups policies name, from the entitlements and grants pulled (e2e review)", () => {
  it("a group is its app's entitlement of that id, its members the users granted it: the fixture's groups come back, and a group approval routes as before", async () => {
    const r = await pullWorld({ baseUrl: "http://api.test", fetch: fakeApi(fixture).fetch, credentials: { kind: "token", token: "tok-admin" }, now: () => NOW, retry: noWait });
    if (!r.ok) throw new Error(r.error.message);
    const groups = (r.value.world["groups"] ?? []) as Json[];
    expect(groups.length).toBeGreaterThan(0);
    const byKey = new Map((fixture.groups as Json[]).map((g) => [`${String(g["appId"])}/${String(g["id"])}`, g]));
    for (const g of groups) {
      const want = byKey.get(`${String(g["appId"])}/${String(g["id"])}`);
      expect(want, `${String(g["id"])} is a fixture group`).toBeDefined();
      expect(g).toEqual({ ...want, memberUserIds: [...((want?.["memberUserIds"] as string[]) ?? [])].sort() });
    }
    expect(r.value.warnings.find((w) => w.code === "GROUPS_INFERRED")?.message).toContain("with the users granted them as members");
    expect(r.value.warnings.map((w) => w.code)).not.toContain("GROUPS_UNKNOWN");
    // Fallback groups are read from the entitlement's grants, not from "groups": never asked for.
    expect(r.value.warnings.find((w) => w.code === "GROUPS_INFERRED")?.message).not.toContain("fallback");
    // Task 1003's group approval: the same reviewers in the pulled world as in the fixture.
    const pulled = loadWorld(r.value.world, { strict: false });
    const original = loadWorld(fixture as never);
    if (!pulled.ok || !original.ok) throw new Error("load");
    const { explain } = await import("../explain/explain.js");
    const first = (w: typeof pulled.value) => {
      const e = explain(w, "1003");
      return e.ok && e.value.result.kind === "selected" ? e.value.result.steps[0] : undefined;
    };
    expect(first(pulled.value)).toEqual(first(original.value));
  });
});

describe("groups of one id in two apps (diff review)", () => {
  it("a world keeps groups by id: the second is left out with GROUPS_AMBIGUOUS, not written twice", async () => {
    const world = structuredClone(fixture) as Record<string, Json[]>;
    const grp = (world["entitlements"] as Json[]).find((e) => e["id"] === "grp-security-oncall");
    if (!grp) throw new Error("fixture");
    world["entitlements"] = [...(world["entitlements"] as Json[]), { ...grp, appId: "app-github", displayName: "GitHub security" }];
    // A second policy names the same id in app-github as a group approver.
    const named = JSON.stringify(world["policies"]).replace(/"appGroupId":"grp-security-oncall","appId":"app-okta"/, '"appGroupId":"grp-security-oncall","appId":"app-github"');
    world["policies"] = [...(world["policies"] as Json[]), ...((JSON.parse(named) as Json[]).filter((p) => JSON.stringify(p).includes('"appId":"app-github"') && JSON.stringify(p).includes('"appGroupId":"grp-security-oncall"')).map((p) => ({ ...p, id: `${String(p["id"])}-gh` })))];
    const r = await pullWorld({ baseUrl: "http://api.test", fetch: fakeApi(world as never).fetch, credentials: { kind: "token", token: "tok-admin" }, now: () => NOW, retry: noWait });
    if (!r.ok) throw new Error(r.error.message);
    const groups = ((r.value.world["groups"] ?? []) as Json[]).filter((g) => g["id"] === "grp-security-oncall");
    expect(groups).toHaveLength(1);
    expect(r.value.warnings.find((w) => w.code === "GROUPS_AMBIGUOUS")?.message).toContain("grp-security-oncall (kept app-");
  });
});
