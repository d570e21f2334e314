/**
 * A recorded-API stand-in for pull's tests: serves a world document the way the service's API pages
 * it (views, `list` + `nextPageToken`, offsets as tokens, default page 25), with scripted faults,
 * and checks the bearer token on every call. Like the real API (openapi.yaml), an App and an
 * AppEntitlement carry no owners: they are read through `GET …/ownerids`; a path with no route is
 * answered as grpc-gateway answers one, `404 {"code": 5, "message": "Not Found"}`.
 */
import { readFileSync } from "node:fs";

export type Json = Record<string, unknown>;

export const fixture = JSON.parse(readFileSync("fixtures/world.json", "utf8")) as Json & {
  roles: Json[];
  policies: Json[];
  users: Json[];
  apps: Json[];
  entitlements: Json[];
  appUsers: Json[];
  tasks: Json[];
  grants: Json[];
  resourceTypeDefaults: Json[];
};

/** A scripted answer in place of the normal one. */
export interface Fault {
  /** Matches `METHOD path` (path without query). */
  readonly route: string;
  /** Which request to that route (0-based) gets the fault. */
  readonly nth: number;
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
}

/** Options of {@link fakeApi}. */
export interface FakeApiOptions {
  readonly faults?: readonly Fault[];
  /** Per route, an offset at which an empty page is answered once (the same token moves on). */
  readonly emptyPageAt?: Record<string, number>;
  /**
   * Per route, an offset whose page starts one item early, once: the item before it comes again,
   * as offset paging does when an object is added meanwhile. `changed` is merged into the repeat.
   */
  readonly repeatAt?: Record<string, { readonly offset: number; readonly changed?: Json }>;
  /**
   * Per route, from the page at `offset` on, each of the next `pages` pages starts `by` items (default
   * 1) further back than its token says: `by` objects were added ahead of the cursor before each, as
   * offset paging gives while a listing grows at its head. The added objects are never seen (they
   * are ahead of the cursor); the ones before the cursor come again, and the listing still ends whole.
   */
  readonly shiftFrom?: Record<string, { readonly offset: number; readonly pages: number; readonly by?: number }>;
  /**
   * Routes whose cursor is broken: the page token is ignored, every answer is the first page under
   * a new token (scratch/platform-review/endless-fast.mjs).
   */
  readonly brokenCursor?: ReadonlySet<string>;
  readonly token?: string;
  readonly expireTokensOnce?: string[];
  /** Paths (no query) answered as routes the server does not have. */
  readonly unrouted?: RegExp;
  /** Apps and entitlements keep their `ownerUserIds` in listings (as policy-sim serve writes them). */
  readonly ownersInline?: boolean;
  /**
   * Policies the listing leaves out, as the service leaves out app- and entitlement-scoped ones
   * unless asked (openapi.yaml, SearchPoliciesRequest.scopeView); `GET /api/v1/policies/{id}` reads them.
   */
  readonly unlistedPolicies?: ReadonlySet<string>;
  /** What `GET /api/v1/auth/introspect` answers (the route is not offered without it). */
  readonly introspect?: Json;
}

/** The grpc-gateway answer for a path it has no route for. */
export const NO_ROUTE = { code: 5, message: "Not Found", details: [] };

/**
 * The stand-in: a `fetch` and the request lines it saw (`METHOD path?query`).
 *
 * @example
 * ```ts
 * const api = fakeApi(fixture, { faults: [{ route: "GET /api/v1/users", nth: 0, status: 503 }] });
 * await pullWorld({ baseUrl: "http://api.test", fetch: api.fetch, credentials: { kind: "token", token: "tok-admin" } });
 * ```
 */
export function fakeApi(world: typeof fixture, options: FakeApiOptions = {}) {
  const seen = new Map<string, number>();
  const expired = new Set<string>();
  const requests: string[] = [];
  const token = options.token ?? "tok-admin";
  const withoutOwners = (x: Json): Json => {
    if (options.ownersInline === true) return x;
    const { ownerUserIds: _o, ...rest } = x;
    return rest;
  };
  const page = (items: unknown[], size: number, offset: number, route: string): Json => {
    // An empty page in the middle of a listing (the service does this after filtering): same token moves on.
    const emptyAt = options.emptyPageAt?.[route];
    if (emptyAt !== undefined && offset === emptyAt && !seen.has(`${route}#empty`)) {
      seen.set(`${route}#empty`, 1);
      return { list: [], nextPageToken: `e${offset}` };
    }
    const s = size === 0 ? 25 : Math.min(100, Math.max(10, size));
    const repeat = options.repeatAt?.[route];
    if (repeat !== undefined && offset === repeat.offset && !seen.has(`${route}#repeat`)) {
      seen.set(`${route}#repeat`, 1);
      const start = offset - 1;
      const list = items.slice(start, start + s).map((x, i) => (i === 0 && repeat.changed ? merged(x, repeat.changed) : x));
      return { list, nextPageToken: start + s < items.length ? `o${start + s}` : "" };
    }
    if (options.brokenCursor?.has(route)) {
      const n = (seen.get(`${route}#broken`) ?? 0) + 1;
      seen.set(`${route}#broken`, n);
      return { list: items.slice(0, s), nextPageToken: `b${n}` };
    }
    const shift = options.shiftFrom?.[route];
    if (shift !== undefined && offset >= shift.offset && (seen.get(`${route}#shift`) ?? 0) < shift.pages) seen.set(`${route}#shift`, (seen.get(`${route}#shift`) ?? 0) + 1);
    // The server's offsets count the objects added ahead; the items the cursor reaches are those of the grown listing.
    const from = offset - (seen.get(`${route}#shift`) ?? 0) * (shift?.by ?? 1);
    const end = from + s;
    return { list: items.slice(from, end), nextPageToken: end < items.length ? `o${offset + s}` : "" };
  };
  const fetchFn = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input));
    const method = init?.method ?? "GET";
    const route = `${method} ${url.pathname}`;
    requests.push(`${route}${url.search}`);
    const n = seen.get(route) ?? 0;
    seen.set(route, n + 1);
    const fault = options.faults?.find((f) => f.route === route && f.nth === n);
    if (fault) return new Response(fault.body === undefined ? "" : JSON.stringify(fault.body), { status: fault.status, headers: fault.headers ?? {} });
    const reply = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
    if (route === "POST /auth/v1/token") return reply({ access_token: token, token_type: "Bearer", expires_in: 3600 });
    if (options.unrouted?.test(url.pathname)) return reply(NO_ROUTE, 404);
    if (new Headers(init?.headers).get("authorization") !== `Bearer ${token}`) return reply({ code: 16, message: "bad token" }, 401);
    const body = init?.body ? (JSON.parse(String(init.body)) as Json) : {};
    const size = Number(url.searchParams.get("page_size") ?? body["pageSize"] ?? 0);
    const tok = url.searchParams.get("page_token") ?? (typeof body["pageToken"] === "string" ? body["pageToken"] : "");
    if (tok !== "" && options.expireTokensOnce?.includes(route) && !expired.has(route)) {
      expired.add(route);
      return reply({ code: 3, message: "page token expired" }, 400);
    }
    const offset = tok === "" ? 0 : Number(tok.slice(1));
    const p = url.pathname;
    if (p === "/api/v1/auth/introspect" && options.introspect) return reply(options.introspect);
    if (p === "/api/v1/policies") return reply(page(world.policies.filter((x) => !options.unlistedPolicies?.has(String(x["id"]))), size, offset, route));
    const onePolicy = /^\/api\/v1\/policies\/([^/]+)$/.exec(p);
    if (onePolicy && method === "GET") {
      const found = world.policies.find((x) => x["id"] === decodeURIComponent(onePolicy[1] ?? ""));
      return found ? reply({ policy: found }) : reply({ code: 5, message: "policy not found" }, 404);
    }
    // c1.api.iam.v1.Role: the built-in kind is the internal `name` (as policy-sim serve writes it).
    if (p === "/api/v1/iam/roles") return reply(page(world.roles.map((r) => ({ id: r["id"], displayName: r["displayName"], name: r["kind"], permissions: [], systemBuiltin: true })), size, offset, route));
    if (p === "/api/v1/users") return reply({ ...page(world.users.map((u) => ({ user: u, userId: u["id"] })), size, offset, route), expanded: [] });
    if (p === "/api/v1/apps") return reply(page(world.apps.map(withoutOwners), size, offset, route));
    if (p === "/api/v1/search/tasks") {
      const states = body["taskStates"];
      const tasks = world.tasks.filter((t) => !Array.isArray(states) || states.includes(t["state"]));
      return reply({ ...page(tasks.map((t) => ({ task: t })), size, offset, route), expanded: [] });
    }
    if (p === "/api/v1/search/grants") {
      const list = world.grants.map((g) => {
        const account = world.appUsers.find((a) => a["appId"] === g["appId"] && a["identityUserId"] === g["identityUserId"]);
        // AppEntitlementUserView: when the grant was made and when it ends, as the API writes them.
        return {
          appEntitlementUserBinding: {
            appId: g["appId"],
            appEntitlementId: g["appEntitlementId"],
            appUserId: account?.["id"] ?? "",
            appUser: account ? { appUser: account } : null,
            appEntitlementUserBindingCreatedAt: g["createdAt"] ?? null,
            appEntitlementUserBindingDeprovisionAt: g["deprovisionAt"] ?? null,
          },
        };
      });
      return reply(page(list, size, offset, route));
    }
    // c1.api.app.v1.ListAppEntitlementOwnerIDsResponse / ListAppOwnerIDsResponse: `userIds`, not paged.
    const owned = /^\/api\/v1\/apps\/([^/]+)\/entitlements\/([^/]+)\/ownerids$/.exec(p);
    if (owned && method === "GET") {
      const e = world.entitlements.find((x) => x["appId"] === decodeURIComponent(owned[1] ?? "") && x["id"] === decodeURIComponent(owned[2] ?? ""));
      return e ? reply({ userIds: e["ownerUserIds"] ?? null }) : reply({ code: 5, message: "app entitlement not found" }, 404);
    }
    const m = /^\/api\/v1\/apps\/([^/]+)\/(entitlements|app_users|access_request_defaults|ownerids)$/.exec(p);
    if (m) {
      const appId = decodeURIComponent(m[1] ?? "");
      if (m[2] === "entitlements") return reply(page(world.entitlements.filter((e) => e["appId"] === appId).map((e) => ({ appEntitlement: withoutOwners(e) })), size, offset, route));
      if (m[2] === "app_users") return reply(page(world.appUsers.filter((a) => a["appId"] === appId).map((a) => ({ appUser: a })), size, offset, route));
      if (m[2] === "ownerids") {
        const app = world.apps.find((a) => a["id"] === appId);
        return app ? reply({ userIds: app["ownerUserIds"] ?? null }) : reply({ code: 5, message: "app not found" }, 404);
      }
      const d = world.resourceTypeDefaults.find((x) => x["appId"] === appId);
      return reply({ appId, defaultsEnabled: d !== undefined, requestPolicyId: d?.["requestPolicyId"] ?? "", resourceTypeIds: d?.["resourceTypeIds"] ?? [] });
    }
    return reply(NO_ROUTE, 404);
  };
  return { fetch: fetchFn as typeof fetch, requests };
}

const isJson = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** A list item with `changed` merged into its object: a view's one object member (`{ task }`), else the item. */
function merged(x: unknown, changed: Json): unknown {
  if (!isJson(x)) return x;
  const inner = Object.keys(x).filter((k) => isJson(x[k]));
  const key = inner.length === 1 ? inner[0] : undefined;
  return key === undefined ? { ...x, ...changed } : { ...x, [key]: { ...(x[key] as Json), ...changed } };
}

/** Retries without waiting. */
export const noWait = { retries: 4, backoffMs: 1, sleep: async () => undefined, random: () => 0 };

/** 2026-11-25T10:00:00Z: the pulls' clock. */
export const NOW = Date.parse("2026-11-25T10:00:00Z");
