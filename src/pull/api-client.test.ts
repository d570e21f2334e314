/**
 * The API client's bounds: a 404 told apart (route the server lacks, or object missing), a byte
 * budget over all answers, and a `Retry-After` longer than the retries left can wait out.
 */
import { describe, expect, it } from "vitest";
import { createApiClient, DEFAULT_MAX_TOTAL_BYTES, notFoundOf, type RetryInfo } from "./api-client.js";
import { fakeApi, fixture, NOW, noWait } from "./fake-api.test-helper.js";
import { type PullProgress, pullWorld } from "./pull-world.js";

const token = { kind: "token", token: "t" } as const;

describe("a 404: a route the server lacks, or an object it does not have", () => {
  it('grpc-gateway\'s routing error ({"code": 5, "message": "Not Found"}), a proxy\'s page and policy-sim serve\'s ROUTE_NOT_FOUND are routes; the service\'s NOT_FOUND with a message of its own is an object', () => {
    expect(notFoundOf('{"code":5,"message":"Not Found","details":[]}')).toBe("route");
    expect(notFoundOf("404 page not found")).toBe("route");
    expect(notFoundOf("<html><body>Not Found</body></html>")).toBe("route");
    expect(notFoundOf("")).toBe("route");
    expect(notFoundOf('{"error":"not found"}')).toBe("route");
    expect(notFoundOf('{"code":5,"message":"Not Found: no route for /api/v1/x","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"ROUTE_NOT_FOUND"}]}')).toBe("route");
    expect(notFoundOf('{"code":5,"message":"nope","details":[{"reason":"ROUTE_NOT_FOUND"}]}')).toBe("route");
    expect(notFoundOf('{"code":5,"message":"no route /api/v1/apps/a/x"}')).toBe("route");
    expect(notFoundOf('{"code":5,"message":"app not found"}')).toBe("object");
    expect(notFoundOf('{"code":5,"message":"not found"}')).toBe("object");
    expect(notFoundOf('{"code":5,"message":"access request defaults not found","details":[]}')).toBe("object");
  });

  it("call() says which on a 404 (PullError.notFound), and nothing on other statuses", async () => {
    const answers: Record<string, [number, unknown]> = {
      "/gone": [404, { code: 5, message: "app not found" }],
      "/nowhere": [404, { code: 5, message: "Not Found" }],
      "/broken": [500, { code: 13, message: "internal" }],
    };
    const f = (async (input: string | URL | Request) => {
      const [status, body] = answers[new URL(String(input)).pathname] ?? [200, {}];
      return new Response(JSON.stringify(body), { status });
    }) as typeof fetch;
    const api = createApiClient({ baseUrl: "http://api.test", fetch: f, credentials: token, ...noWait, retries: 0 });
    expect(await api.call("GET", "/gone")).toMatchObject({ ok: false, error: { status: 404, notFound: "object" } });
    expect(await api.call("GET", "/nowhere")).toMatchObject({ ok: false, error: { status: 404, notFound: "route" } });
    const broken = await api.call("GET", "/broken");
    expect(!broken.ok && "notFound" in broken.error).toBe(false);
  });
});

describe("maxTotalBytes: a budget of answer bytes for the whole pull", () => {
  it("a server that pages one item at a time with ever new tokens is stopped with TOO_LARGE once the answers pass the budget, long before maxListingItems", async () => {
    let n = 0;
    const item = { id: "x", padding: "p".repeat(1000) };
    // Ends after 2 000 pages, ten times what the budget allows: a client without one finishes, and fails here, rather than hang.
    const endless = (async () => new Response(JSON.stringify({ list: [{ ...item, id: `u-${n}` }], nextPageToken: n++ < 2000 ? `t-${n}` : "" }), { status: 200 })) as typeof fetch;
    const api = createApiClient({ baseUrl: "http://api.test", fetch: endless, credentials: token, ...noWait, maxTotalBytes: 200_000 });
    const r = await api.list({ method: "GET", path: "/api/v1/users" });
    expect(!r.ok && r.error).toMatchObject({ code: "TOO_LARGE", message: expect.stringMatching(/^GET \/api\/v1\/users(\?\S+)?: the answers read so far ran past 195\.3 KiB \(maxTotalBytes\); stopping before the process runs out of memory/) as unknown });
    // About 1 KB a page: stopped within the page that crossed 200 000 bytes, not retried. (Its three
    // objects and arrays, 3 × 64 bytes once parsed, are well within twice its text: not counted.)
    expect(n).toBeGreaterThan(150);
    expect(n).toBeLessThan(250);
    expect(api.bytesRead()).toBeGreaterThan(200_000);
    expect(api.bytesRead()).toBeLessThan(200_000 + 1100);
  });

  it("an answer whose Content-Length would pass the budget is not read", async () => {
    let cancelled = false;
    const declared = (async () =>
      new Response(
        new ReadableStream({
          pull: (c) => c.enqueue(new TextEncoder().encode(" ".repeat(1000))),
          cancel: () => void (cancelled = true),
        }),
        { status: 200, headers: { "content-length": "5000" } },
      )) as typeof fetch;
    const api = createApiClient({ baseUrl: "http://api.test", fetch: declared, credentials: token, ...noWait, maxTotalBytes: 4000 });
    const r = await api.call("GET", "/api/v1/users");
    expect(!r.ok && r.error.code).toBe("TOO_LARGE");
    expect(api.bytesRead()).toBe(0);
    expect(cancelled).toBe(true);
  });

  it("pullWorld stops with TOO_LARGE, and its progress counts the bytes read", async () => {
    const pull = (maxTotalBytes: number, progress: PullProgress[]) =>
      pullWorld({ baseUrl: "http://api.test", fetch: fakeApi(fixture).fetch, credentials: { kind: "token", token: "tok-admin" }, now: () => NOW, concurrency: 1, onProgress: (p) => progress.push(p), retry: { ...noWait, maxTotalBytes } });
    const whole: PullProgress[] = [];
    expect((await pull(DEFAULT_MAX_TOTAL_BYTES, whole)).ok).toBe(true);
    const total = whole.at(-1)?.bytes ?? 0;
    expect(whole.at(-1)?.kind).toBe("done");
    const progress: PullProgress[] = [];
    const r = await pull(Math.floor(total / 2), progress);
    expect(!r.ok && r.error.code).toBe("TOO_LARGE");
    const bytes = progress.map((p) => p.bytes);
    expect(bytes.length).toBeGreaterThan(1);
    expect(bytes).toEqual([...bytes].sort((a, b) => a - b));
    expect(bytes.at(-1)).toBeGreaterThan(0);
    expect(DEFAULT_MAX_TOTAL_BYTES).toBe(2 * 1024 ** 3);
  });
});

describe("Retry-After longer than the retries left can wait out", () => {
  const asking = (retryAfter: string, times = Number.POSITIVE_INFINITY) => {
    let n = 0;
    const f = (async () =>
      n++ < times
        ? new Response(JSON.stringify({ code: 8, message: "slow down" }), { status: 429, headers: { "retry-after": retryAfter } })
        : new Response(JSON.stringify({ list: [], nextPageToken: "" }), { status: 200 })) as typeof fetch;
    return { fetch: f, count: () => n };
  };

  it("3600 s against a 60 s cap and 6 retries: stops at once with RETRY_LATER, saying the server asked for an hour", async () => {
    const server = asking("3600");
    const waits: number[] = [];
    const started = Date.now();
    const r = await createApiClient({ baseUrl: "http://api.test", fetch: server.fetch, credentials: token, retries: 6, sleep: async (ms) => void waits.push(ms) }).call("GET", "/api/v1/users");
    expect(!r.ok && r.error).toEqual({
      code: "RETRY_LATER",
      status: 429,
      message:
        "GET /api/v1/users: the server answered 429 (slow down) and asked to wait 1 h (Retry-After: 3600) before trying again; this pull waits at most 60 s between tries and has 6 tries left (6 min in all), so it stops now: run it again in 1 h",
    });
    expect(server.count()).toBe(1);
    expect(waits).toEqual([]);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("a wait the retries left can cover is waited at the cap, and the retry line says what the server asked for", async () => {
    const server = asking("120", 2);
    const waits: number[] = [];
    const retries: RetryInfo[] = [];
    const r = await createApiClient({ baseUrl: "http://api.test", fetch: server.fetch, credentials: token, retries: 6, sleep: async (ms) => void waits.push(ms), onRetry: (i) => void retries.push(i) }).call("GET", "/api/v1/users");
    expect(r.ok).toBe(true);
    expect(waits).toEqual([60_000, 60_000]);
    expect(retries[0]?.message).toBe("GET /api/v1/users: HTTP 429 (attempt 1 of at most 7); retrying in 60 s (the server asked to wait 2 min; 60 s is the longest wait)");
    // On the last retry, a wait over one cap is more than is left.
    const last = asking("61");
    const once = await createApiClient({ baseUrl: "http://api.test", fetch: last.fetch, credentials: token, retries: 1, sleep: async () => undefined }).call("GET", "/api/v1/users");
    expect(!once.ok && once.error.code).toBe("RETRY_LATER");
    expect(!once.ok && once.error.message).toContain("has 1 try left (60 s in all)");
  });
});

describe("a listing that makes no progress: pages of items it already gave", () => {
  /** A GET listing's pages, one answer per request, each naming a new next page until `pages` runs out. */
  const paging = (pageOf: (n: number) => unknown[], pages = Number.POSITIVE_INFINITY) => {
    let n = 0;
    const f = (async () => {
      const list = pageOf(n);
      return new Response(JSON.stringify({ list, nextPageToken: ++n < pages ? `t-${n}` : "" }), { status: 200 });
    }) as typeof fetch;
    return { fetch: f, count: () => n };
  };
  const list = (f: typeof fetch, more: Partial<Parameters<typeof createApiClient>[0]> = {}) =>
    createApiClient({ baseUrl: "http://api.test", fetch: f, credentials: token, ...noWait, ...more }).list({ method: "GET", path: "/api/v1/users" });

  it("scratch/platform-review/endless-fast.mjs: the same user under a new token each time stops with PAGING after the first page and 10 more, saying the paging is broken", async () => {
    const server = paging(() => [{ user: { id: "u-1", email: "a@x" }, userId: "u-1" }]);
    // maxListingItems only so that a client without the check fails here quickly.
    const r = await list(server.fetch, { maxListingItems: 5000 });
    expect(!r.ok && r.error).toEqual({
      code: "PAGING",
      message:
        "GET /api/v1/users: the server kept answering pages of items it had already given in this listing (10 pages in a row, each naming a next page), so its paging is broken; stopping instead of following it until 5,000 items",
    });
    expect(server.count()).toBe(11);
  });

  it("items are told apart by their id, a view's object's id, or the app and id; empty pages between neither count nor reset the run", async () => {
    // Plain objects, with empty pages between the repeats: still ten repeats.
    const plain = paging((n) => (n % 2 === 1 ? [] : [{ id: "p-1" }, { id: "p-2" }]));
    expect((await list(plain.fetch, { maxListingItems: 5000 })).ok).toBe(false);
    expect(plain.count()).toBe(21);
    // The same entitlement id in ever new apps is ever new entitlements.
    const perApp = paging((n) => [{ appEntitlement: { id: "e-1", appId: `app-${n}` } }], 30);
    const r = await list(perApp.fetch);
    expect(r.ok && r.value.length).toBe(30);
  });

  it("items without an id are told by their content: the same ones again are stale (hostile review: 1.7M id-less items, then out of memory), new ones are bounded by maxListingItems", async () => {
    const same = paging(() => [{ x: 1 }, { appEntitlementUserBinding: { appId: "a", appEntitlementId: "e", appUserId: "x" } }]);
    const r = await list(same.fetch, { maxListingItems: 5000 });
    expect(!r.ok && r.error).toMatchObject({ code: "PAGING", message: expect.stringContaining("already given in this listing (10 pages in a row") as unknown });
    expect(same.count()).toBe(11);
    const fresh = paging((n) => [{ appEntitlementUserBinding: { appId: "a", appEntitlementId: "e", appUserId: `x-${n}` } }]);
    const bounded = await list(fresh.fetch, { maxListingItems: 50 });
    expect(!bounded.ok && bounded.error.message).toMatch(/ran past 50 items/);
    expect(fresh.count()).toBe(51);
  });

  it("an answer of little but objects and arrays is refused by what it would take parsed (hostile review: 60 MB of {},{},… parsed to 1.3 GB)", async () => {
    const bomb = `{"list":[],"x":[${"{},".repeat(300_000)}{}]}`;
    const f = (async () => new Response(bomb, { status: 200 })) as typeof fetch;
    const api = createApiClient({ baseUrl: "http://api.test", fetch: f, credentials: token, ...noWait, maxResponseBytes: 4 * 1024 * 1024 });
    const r = await api.call("GET", "/api/v1/users");
    // 0.9 MB of text, under the 4 MiB limit of one answer; about 18 MiB of objects once parsed.
    expect(bomb.length).toBeLessThan(1024 * 1024);
    expect(!r.ok && r.error).toMatchObject({ code: "BAD_RESPONSE", message: expect.stringMatching(/holds about 18\.3 MiB of objects and arrays once parsed, over the 4194304-byte limit of one answer/) as unknown });
    // Under the answer's limit, the same count goes against the pull's budget past twice the text:
    // 300,000 objects in 0.9 MB are ~17 MiB over it.
    const budgeted = createApiClient({ baseUrl: "http://api.test", fetch: f, credentials: token, ...noWait, maxTotalBytes: 16 * 1024 * 1024 });
    expect(await budgeted.call("GET", "/api/v1/users")).toMatchObject({ ok: false, error: { code: "TOO_LARGE" } });
    // An ordinary answer passes, and counts its text as bytes read.
    const plain = createApiClient({ baseUrl: "http://api.test", fetch: (async () => new Response('{"list":[{"id":"u-1"}]}', { status: 200 })) as typeof fetch, credentials: token, ...noWait });
    expect((await plain.call("GET", "/api/v1/users")).ok).toBe(true);
    expect(plain.bytesRead()).toBe('{"list":[{"id":"u-1"}]}'.length);
  });

  it("a page size 1 listing that one insert ahead of the cursor shifts, nine times running, completes with every item: 9 stale pages in a row are not 10", async () => {
    // Items 0..19, page size 1; before each of the requests for pages 5 to 13 an object is added ahead
    // of the cursor, so each of them answers item 4 again; then the listing goes on from item 5.
    let asked = 0;
    let added = 0;
    const f = (async () => {
      const offset = asked++;
      if (offset >= 5 && added < 9) added++;
      const at = offset - added;
      return new Response(JSON.stringify({ list: [{ id: `u-${at}` }], nextPageToken: at + 1 < 20 ? `o${offset + 1}` : "" }), { status: 200 });
    }) as typeof fetch;
    const r = await list(f);
    if (!r.ok) throw new Error(r.error.message);
    expect(new Set(r.value.map((x) => (x as { id: string }).id))).toEqual(new Set(Array.from({ length: 20 }, (_, i) => `u-${i}`)));
    expect(r.value.length).toBe(29);
  });
});
