/**
 * `pullWorld`: a tenant exported through the service's API as a world document (the world file's
 * JSON). Objects are kept as the API wrote them, field names included (`baton…`, `c1UserPicker`,
 * unknown fields), so they load and round-trip as they came. What the API cannot give — the
 * tenant's default policies, the clock, group members — is inferred where it can be and otherwise
 * listed as a warning that says how to set it. The first listing that fails stops the whole pull:
 * requests in flight are cancelled and no other listing starts, so a server that stops answering
 * costs one request's retries, not those of every listing in turn. Optional reads (grants, roles,
 * access reviews, and per app or entitlement: request defaults, configuration rules, owners) that
 * the server does not offer or the credentials may not read become warnings instead; see
 * {@link OptionalRead} for how a 404 is told apart from "none for this object".
 */
import { isRealTimestamp } from "../codec/schema.js";
import { READS_EVERY_TASK } from "../reducers/permissions.js";
import { DEFAULT_ROLES } from "../world/decode-directory.js";
import { entitlementKey } from "../world/world.js";
import type { Result } from "../result.js";
import { createApiClient, type ApiClient, type ApiClientOptions, type Listing, type PullError } from "./api-client.js";
import type { PullCredentials } from "./credentials.js";
import { pulledRoles } from "./roles.js";
import { tenantDefaults } from "./tenant-defaults.js";

/**
 * Progress of a pull, one event per page read (and per retry): which listing, how many of its
 * items so far, how many listings are done of those known.
 *
 * @example
 * ```ts
 * const onProgress = (p: PullProgress) => console.error(`${p.resource}: ${p.items}`);
 * ```
 */
export interface PullProgress {
  readonly kind: "page" | "retry" | "done";
  /** `policies`, `tasks`, `users`, `apps`, `entitlements of app-aws`, … */
  readonly resource: string;
  /** Items of this listing so far. */
  readonly items: number;
  readonly pages: number;
  /** Bytes of answers read so far, the whole pull (what `retry.maxTotalBytes` bounds). */
  readonly bytes: number;
  /** Listings finished, and listings known so far (per-app listings are known once apps are). */
  readonly listingsDone: number;
  readonly listingsKnown: number;
  /** For a retry: the HTTP status (null when no answer came), why, and the wait. */
  readonly status?: number | null;
  readonly reason?: "status" | "network" | "timeout";
  readonly waitMs?: number;
  /**
   * For a retry, one line to show as it is: the request, why, how many tries are left and the wait
   * (`GET /api/v1/users: no whole answer within 5 s (timeout 1 of at most 3); retrying in 0.5 s`).
   */
  readonly message?: string;
}

/**
 * Something the API could not give, and how to set it.
 *
 * @example
 * ```ts
 * const w: PullWarning = { code: "DEFAULT_POLICY_UNKNOWN", message: "…set tenant.defaultPolicies.revoke…" };
 * ```
 */
export interface PullWarning {
  readonly code: string;
  readonly message: string;
}

/**
 * Options of {@link pullWorld}.
 *
 * @example
 * ```ts
 * const o: PullOptions = { baseUrl: "https://acme.conductor.one", fetch, credentials: { kind: "token", token }, states: "all" };
 * ```
 */
export interface PullOptions {
  readonly baseUrl: string;
  readonly fetch: typeof fetch;
  readonly credentials: PullCredentials;
  /** Items per page to ask for; default the API's. */
  readonly pageSize?: number;
  /** Open tasks (default) or tasks in every state, deleted ones included. */
  readonly states?: "open" | "all";
  /** Requests in flight at once; default 4. */
  readonly concurrency?: number;
  readonly onProgress?: (p: PullProgress) => void;
  /** Stops the pull (with `CANCELLED`), requests in flight included. */
  readonly signal?: AbortSignal;
  /** Milliseconds since the epoch; default `Date.now`. The world's clock is the pull's time. */
  readonly now?: () => number;
  /**
   * Passed to the API client: retries (of timeouts too), backoff, the time one request may take,
   * the largest answer and listing it takes, the bytes all answers may hold together
   * (`maxTotalBytes`), and the injectable sleep and randomness.
   */
  readonly retry?: Pick<
    ApiClientOptions,
    "retries" | "timeoutRetries" | "backoffMs" | "maxBackoffMs" | "sleep" | "random" | "requestTimeoutMs" | "maxResponseBytes" | "maxListingItems" | "maxTotalBytes"
  >;
}

/**
 * A pulled tenant: the world document, what could not be pulled or inferred, and counts.
 *
 * @example
 * ```ts
 * const r = await pullWorld({ baseUrl, fetch, credentials });
 * if (r.ok) { const loaded = loadWorld(r.value.world, { strict: false }); }
 * ```
 */
export interface PullResult {
  readonly world: Record<string, unknown>;
  readonly warnings: readonly PullWarning[];
  readonly counts: Readonly<Record<string, number>>;
}

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** A list item's object: views wrap it (`{ user: {...} }`, `{ task: {...} }`); plain lists do not. */
function unwrap(item: unknown, key: string): Json | undefined {
  if (!isRecord(item)) return undefined;
  const inner = item[key];
  return isRecord(inner) ? inner : item;
}

/**
 * Runs `fn` over `items` with at most `limit` at once, keeping the order of results; once `stopped()`
 * no other item starts, and those not started have no result.
 */
async function mapLimit<T, R>(items: readonly T[], limit: number, stopped: () => boolean, fn: (item: T) => Promise<R>): Promise<(R | undefined)[]> {
  const out = new Array<R | undefined>(items.length).fill(undefined);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length && !stopped()) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}

/** Role ids a world without `roles` knows (world/decode-directory's defaults). */
const DEFAULT_ROLE_IDS: ReadonlySet<string> = new Set(DEFAULT_ROLES.map((r) => r.id));

/**
 * The policy ids `objects` name (any `…PolicyId` field, a rule's `policyId`) that are not in `known`,
 * each once, in order of first mention.
 */
function namedPolicyIds(objects: readonly Json[], known: ReadonlySet<string>): string[] {
  const out = new Set<string>();
  const add = (v: unknown): void => {
    if (typeof v === "string" && v !== "" && !known.has(v)) out.add(v);
  };
  for (const o of objects) {
    for (const [k, v] of Object.entries(o)) if (k.endsWith("PolicyId")) add(v);
    const rules = o["rules"];
    if (Array.isArray(rules)) for (const r of rules) if (isRecord(r)) add(r["policyId"]);
  }
  return [...out];
}

/** Whether a policy refers to another policy (a rule's `policyId`, a `baselinePolicyId`). */
function refersToPolicies(p: Json): boolean {
  if (typeof p["baselinePolicyId"] === "string" && p["baselinePolicyId"] !== "") return true;
  const rules = p["rules"];
  return Array.isArray(rules) && rules.some((r) => isRecord(r) && typeof r["policyId"] === "string" && r["policyId"] !== "");
}

/**
 * A read the world can do without: what it is (as warnings name it), whether its path names one
 * app or entitlement, and what the world lacks when it cannot be read. A 404 or 501 on a path that
 * names no object, or a 404 whose answer says the route is unknown (`PullError.notFound`), means the
 * server does not offer it: no later object is asked. A 404 for one app or entitlement means that
 * object has none (an app without request defaults answers so); only when every object asked
 * answered 404 is the read taken as not offered. A 403 means these credentials may not read it:
 * the world is pulled without it, and a warning names it.
 */
interface OptionalRead {
  readonly name: string;
  readonly per?: "app" | "entitlement";
  /** The warning's code whatever the cause; else NOT_OFFERED (404, 501) or NOT_PERMITTED (403). */
  readonly code?: string;
  /** What the world lacks then, and how to set it. */
  readonly lacking: string;
}

const BY_HAND = "the world has none: add them by hand if policies depend on them";
const GRANTS: OptionalRead = { name: "grants (POST /api/v1/search/grants)", lacking: BY_HAND };
const ACCESS_REVIEWS: OptionalRead = { name: "access reviews (GET /api/v1/access_reviews)", lacking: BY_HAND };
const ROLES: OptionalRead = { name: "roles (GET /api/v1/iam/roles)", lacking: BY_HAND };
const REQUEST_DEFAULTS: OptionalRead = { name: "access-request defaults (GET /api/v1/apps/{app_id}/access_request_defaults)", per: "app", lacking: BY_HAND };
const CONFIGURATION_RULES: OptionalRead = {
  name: "entitlement configuration rules (GET /api/v1/apps/{app_id}/entitlement_configuration_rules)",
  per: "app",
  lacking: BY_HAND,
};
const APP_OWNERS: OptionalRead = {
  name: "app owners (GET /api/v1/apps/{app_id}/ownerids)",
  per: "app",
  code: "APP_OWNERS_UNKNOWN",
  lacking: 'those apps have no owners, so app-owner approval steps route to their fallback: set "ownerUserIds" of "apps" by hand',
};
const ENTITLEMENT_OWNERS: OptionalRead = {
  name: "entitlement owners (GET /api/v1/apps/{app_id}/entitlements/{entitlement_id}/ownerids)",
  per: "entitlement",
  code: "ENTITLEMENT_OWNERS_UNKNOWN",
  lacking: 'those entitlements have no owners, so entitlement-owner approval steps route to their fallback approvers or the Super Administrators: set "ownerUserIds" of "entitlements" by hand',
};

/** What became of an {@link OptionalRead} so far: objects asked, and those that answered 404 or 403. */
interface ReadState {
  asked: number;
  readonly missing: string[];
  readonly denied: string[];
  /** The status that showed the server does not offer it. */
  off?: number;
}

/** A few ids for a message, and how many more. */
const some = (ids: readonly string[]): string => `${ids.slice(0, 5).join(", ")}${ids.length > 5 ? `, … ${ids.length - 5} more` : ""}`;

/** The warnings of one optional read: not offered (404, 501, or 404 for every object), not permitted (403). */
function readWarnings(read: OptionalRead, s: ReadState): PullWarning[] {
  const out: PullWarning[] = [];
  if (s.off !== undefined) out.push({ code: read.code ?? "NOT_OFFERED", message: `the server does not offer ${read.name} (${s.off}); ${read.lacking}` });
  else if (read.per !== undefined && s.asked > 0 && s.missing.length === s.asked)
    out.push({
      code: read.code ?? "NOT_OFFERED",
      message: `every ${read.per} asked (${s.asked}) answered 404 for ${read.name}: the server does not offer it, or none has any; ${read.lacking}`,
    });
  if (s.denied.length > 0) {
    const which = read.per === undefined ? "" : ` of ${s.denied.length} of ${s.asked} ${read.per}s (${some(s.denied)})`;
    out.push({ code: read.code ?? "NOT_PERMITTED", message: `these credentials may not read ${read.name}${which} (403); the pull went on without: ${read.lacking}` });
  }
  return out;
}

/** Whether anything of a read came back: it is offered, and not every object asked was refused or had none. */
const readSome = (s: ReadState | undefined): boolean => s === undefined || (s.off === undefined && (s.asked === 0 || s.missing.length + s.denied.length < s.asked));

/**
 * `items` with one object per key, the last copy seen in the place of the first, and how many
 * copies were dropped. Offset paging repeats an object when others are added while it pages, and
 * a world with an id twice does not load. Objects without a key are kept as they are.
 */
function dedupe(items: readonly Json[], keyOf: (x: Json) => string | undefined): { readonly items: Json[]; readonly dropped: number } {
  const byKey = new Map<string, Json>();
  const out: (Json | string)[] = [];
  for (const x of items) {
    const k = keyOf(x);
    if (k === undefined) out.push(x);
    else {
      if (!byKey.has(k)) out.push(k);
      byKey.set(k, x);
    }
  }
  return { items: out.map((x) => (typeof x === "string" ? (byKey.get(x) as Json) : x)), dropped: items.length - out.length };
}

const idOf = (x: Json): string | undefined => (typeof x["id"] === "string" && x["id"] !== "" ? x["id"] : undefined);
const appAndIdOf = (x: Json): string | undefined => (idOf(x) === undefined ? undefined : `${String(x["appId"] ?? "")}/${String(x["id"])}`);


/**
 * An App as the world keeps it: `appOwners` (openapi.yaml: "The owners of the app", Users the
 * service derives, read-only) becomes the world's `ownerUserIds` when it names any, and is not kept
 * itself; an app without it (or with none) has its owners read from `…/owners` as before.
 */
function ownersFromAppOwners(app: Record<string, unknown>): Record<string, unknown> {
  if (!Object.hasOwn(app, "appOwners")) return app;
  const { appOwners, ...rest } = app;
  const ids = Array.isArray(appOwners) ? appOwners.map((u) => (isRecord(u) && typeof u["id"] === "string" ? u["id"] : "")).filter((id) => id !== "") : [];
  return ids.length > 0 && !Array.isArray(rest["ownerUserIds"]) ? { ...rest, ownerUserIds: ids } : rest;
}

/**
 * The groups policies name as approvers, once each, by app and id: a group approver's
 * `{ appGroupId, appId }` (fallback groups, `{ appEntitlementId, appId }`, are resolved from the
 * entitlement's grants, not from `groups`). Looked for without recursion: a listed object may nest
 * deeper than the call stack allows.
 */
function namedGroups(policies: readonly Json[]): { readonly appId: string; readonly id: string }[] {
  const out = new Map<string, { appId: string; id: string }>();
  const add = (appId: unknown, id: unknown): void => {
    // A group without its app is still named: it finds no entitlement, and is said to be unknown.
    const app = typeof appId === "string" ? appId : "";
    if (typeof id === "string" && id !== "" && !out.has(entitlementKey(app, id))) out.set(entitlementKey(app, id), { appId: app, id });
  };
  const stack: unknown[] = [...policies];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== "object" || v === null) continue;
    if (Array.isArray(v)) {
      for (const x of v) stack.push(x);
      continue;
    }
    const o = v as Json;
    if (Object.hasOwn(o, "appGroupId")) add(o["appId"], o["appGroupId"]);
    for (const x of Object.values(o)) stack.push(x);
  }
  return [...out.values()].sort((a, b) => (a.appId === b.appId ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.appId < b.appId ? -1 : 1));
}

/**
 * Exports a tenant through the service's API: policies, tasks (search; open ones unless
 * `states: "all"`), users, roles, apps, each app's entitlements, accounts, access-request defaults,
 * entitlement configuration rules and owners, each entitlement's owners (`…/ownerids`, unless the
 * entitlement carries `ownerUserIds`), and grants. Optional reads the server does not offer (404,
 * 501) or the credentials may not read (403) become warnings ({@link OptionalRead}); objects a
 * listing gives twice (offset paging while the tenant changes) are kept once, with a warning. Stops
 * with a {@link PullError} when the server refuses the credentials or a listing fails after its
 * retries (a request that times out is retried at most `timeoutRetries` times, two by default), the
 * answers run past `retry.maxTotalBytes` (`TOO_LARGE`), or the server asks to wait longer than the
 * retries left may (`RETRY_LATER`), cancelling the requests still in flight.
 *
 * @example
 * ```ts
 * import { pullWorld } from "policy-sim/pull";
 * import { loadWorld } from "policy-sim";
 * const r = await pullWorld({ baseUrl: "http://127.0.0.1:8080", fetch, credentials: { kind: "token", token: "tok-super" } });
 * if (r.ok) {
 *   for (const w of r.value.warnings) console.warn(w.message);
 *   const world = loadWorld(r.value.world, { strict: false });
 * }
 * ```
 */
export async function pullWorld(options: PullOptions): Promise<Result<PullResult, PullError>> {
  const now = options.now ?? Date.now;
  const pageSize = options.pageSize ?? 0;
  if (!Number.isInteger(pageSize) || pageSize < 0) return { ok: false, error: { code: "INVALID_ARGUMENT", message: `the page size must be a whole number ≥ 0, not ${pageSize}` } };
  // A URL carrying user:password@ is refused by fetch on every request, which reads as a network
  // failure worth retrying; and a message naming the URL would print the password.
  let credentialsInUrl = false;
  try {
    const u = new URL(options.baseUrl);
    credentialsInUrl = u.username !== "" || u.password !== "";
  } catch {
    // Not a URL: the first request says so.
  }
  if (credentialsInUrl) return { ok: false, error: { code: "INVALID_ARGUMENT", message: "the base URL carries a user name or password (user:password@host): pass them as credentials, not in the URL" } };
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 4));
  let listingsDone = 0;
  let listingsKnown = 7;
  // Listings run side by side: a retry names the listing of its own path, not the one started last.
  const resourceOf = new Map<string, string>([["/auth/v1/token", "sign-in"]]);
  // The first failure is the one to report: the requests it cancels fail too, with CANCELLED.
  const stop = new AbortController();
  const signal = options.signal === undefined ? stop.signal : AbortSignal.any([stop.signal, options.signal]);
  let firstFailure: PullError | undefined;
  const fatal = (e: PullError): void => {
    firstFailure ??= e;
    stop.abort();
  };
  const failure = (): PullError | undefined => firstFailure ?? (options.signal?.aborted ? { code: "CANCELLED", message: "the pull was cancelled" } : undefined);
  const api: ApiClient = createApiClient({
    baseUrl: options.baseUrl,
    fetch: options.fetch,
    credentials: options.credentials,
    now,
    ...options.retry,
    signal,
    onRetry: (r) =>
      options.onProgress?.({
        kind: "retry",
        resource: resourceOf.get(r.path.replace(/\?.*$/, "")) ?? r.path,
        items: 0,
        pages: 0,
        bytes: api.bytesRead(),
        listingsDone,
        listingsKnown,
        status: r.status,
        reason: r.reason,
        waitMs: r.waitMs,
        message: r.message,
      }),
  });
  const warnings: PullWarning[] = [];
  const reads = new Map<OptionalRead, ReadState>();
  const stopped = (): boolean => signal.aborted;

  /** Every item of a listing, with progress; a failure stops the pull unless {@link optional} takes it. */
  const listAll = async (resource: string, listing: Listing): Promise<Result<unknown[], PullError>> => {
    let items = 0;
    let pages = 0;
    resourceOf.set(listing.path, resource);
    const r = await api.list({ ...listing, pageSize }, (page) => {
      items += page.list.length;
      pages++;
      options.onProgress?.({ kind: "page", resource, items, pages, bytes: api.bytesRead(), listingsDone, listingsKnown });
    });
    listingsDone++;
    return r;
  };
  /**
   * One unpaged GET, counted as a listing and reported as a page of `resource`; GETs that share a
   * `tally` (one per entitlement) report how many of them have answered.
   */
  const getOne = async (resource: string, path: string, tally = { answers: 0 }): Promise<Result<unknown, PullError>> => {
    resourceOf.set(path, resource);
    const r = await api.call("GET", path);
    listingsDone++;
    tally.answers++;
    if (r.ok) options.onProgress?.({ kind: "page", resource, items: tally.answers, pages: tally.answers, bytes: api.bytesRead(), listingsDone, listingsKnown });
    return r;
  };
  const required = <T>(r: Result<T, PullError>): Result<T, PullError> => {
    if (!r.ok) fatal(r.error);
    return r;
  };
  /** `run` for `object` (an app or entitlement id; "" for a read that names none), with its 404, 501 and 403 taken as {@link OptionalRead} says. */
  const optional = async <T>(read: OptionalRead, object: string, run: () => Promise<Result<T, PullError>>): Promise<Result<T | undefined, PullError>> => {
    const s = reads.get(read) ?? { asked: 0, missing: [], denied: [] };
    reads.set(read, s);
    if (s.off !== undefined) return { ok: true, value: undefined };
    const r = await run();
    if (r.ok) {
      s.asked++;
      return r;
    }
    const { status, notFound } = r.error;
    if (status === 501 || (status === 404 && (read.per === undefined || notFound === "route"))) {
      s.off ??= status;
      return { ok: true, value: undefined };
    }
    if (status === 404 || status === 403) {
      s.asked++;
      (status === 404 ? s.missing : s.denied).push(object);
      return { ok: true, value: undefined };
    }
    fatal(r.error);
    return r;
  };

  const taskBody = options.states === "all" ? { includeDeleted: true } : { taskStates: ["TASK_STATE_OPEN"] };
  const [policies, users, apps, tasks, grants, reviews, roles] = await mapLimit(
    [
      async () => required(await listAll("policies", { method: "GET", path: "/api/v1/policies" })),
      async () => required(await listAll("users", { method: "GET", path: "/api/v1/users" })),
      async () => required(await listAll("apps", { method: "GET", path: "/api/v1/apps" })),
      async () => required(await listAll("tasks", { method: "POST", path: "/api/v1/search/tasks", body: taskBody })),
      () => optional(GRANTS, "", () => listAll("grants", { method: "POST", path: "/api/v1/search/grants", body: {} })),
      () => optional(ACCESS_REVIEWS, "", () => listAll("access reviews", { method: "GET", path: "/api/v1/access_reviews" })),
      () => optional(ROLES, "", () => listAll("roles", { method: "GET", path: "/api/v1/iam/roles" })),
    ],
    concurrency,
    stopped,
    (f): Promise<Result<unknown[] | undefined, PullError>> => f(),
  );
  const failedFirst = failure();
  if (failedFirst) return { ok: false, error: failedFirst };
  // Who the credentials are (GET /api/v1/auth/introspect): the task search answers a caller only the
  // tasks it may read, so a pull with a non-administrator's credentials is partial, and said so.
  // Only a check: any answer but a refused sign-in leaves it unchecked, with a warning, not a failed pull.
  listingsKnown++;
  const introspected = await getOne("caller", "/api/v1/auth/introspect");
  let caller: unknown;
  if (introspected.ok) caller = introspected.value;
  else if (introspected.error.status === 401 || introspected.error.code === "CANCELLED") return { ok: false, error: introspected.error };
  else
    warnings.push({
      code: "CALLER_UNKNOWN",
      message: `who the credentials are (GET /api/v1/auth/introspect) could not be read (${introspected.error.status ?? introspected.error.code}): whether they see every task is not checked`,
    });
  const ok = <T>(r: Result<T, PullError> | undefined): T | undefined => (r?.ok ? r.value : undefined);
  const duplicates = new Map<string, number>();
  // Items of a listing that are not objects: dropped, and said (a world of none would look complete).
  const notObjects = new Map<string, number>();
  const objectsOf =
    (what: string) =>
    (x: unknown): x is Json => {
      if (isRecord(x)) return true;
      notObjects.set(what, (notObjects.get(what) ?? 0) + 1);
      return false;
    };
  const once = (what: string, items: readonly Json[], keyOf: (x: Json) => string | undefined): Json[] => {
    const d = dedupe(items, keyOf);
    if (d.dropped > 0) duplicates.set(what, (duplicates.get(what) ?? 0) + d.dropped);
    return d.items;
  };
  const listedPolicies = once("policies", (ok(policies) ?? []).map((x) => unwrap(x, "policy")).filter(objectsOf("policies")), idOf);
  const userList = once("users", (ok(users) ?? []).map((x) => unwrap(x, "user")).filter(objectsOf("users")), idOf);
  const appList = once("apps", (ok(apps) ?? []).map((x) => unwrap(x, "app")).filter(objectsOf("apps")).map(ownersFromAppOwners), idOf);
  const taskList = once("tasks", (ok(tasks) ?? []).map((x) => unwrap(x, "task")).filter(objectsOf("tasks")), idOf);

  // Per app: entitlements, accounts, request defaults, configuration rules, owners (unless the app carries them).
  const appIds = appList.map((a) => a["id"]).filter((id): id is string => typeof id === "string" && id !== "");
  const appsWithOwners = new Set(appList.filter((a) => Array.isArray(a["ownerUserIds"])).map((a) => a["id"]));
  // An app the listing gave whose own listings then answer the service's 404 for a missing object:
  // deleted while the pull ran. Left out (with a warning), not a failed pull.
  const vanishedApps = new Set<string>();
  const vanished = (e: PullError): boolean => e.status === 404 && e.notFound === "object";
  const gone = (appId: string): { ok: true; value: undefined } => {
    vanishedApps.add(appId);
    return { ok: true, value: undefined };
  };
  /** A listing of one app the pull needs: its failure stops the pull, unless the app is gone. */
  const appListing = async (resource: string, path: string): Promise<Result<unknown[], PullError>> => {
    const r = await listAll(resource, { method: "GET", path });
    if (!r.ok && !vanished(r.error)) fatal(r.error);
    return r;
  };
  listingsKnown += appIds.length * 5 - appsWithOwners.size;
  const perApp = await mapLimit(appIds, concurrency, stopped, async (appId) => {
    const at = encodeURIComponent(appId);
    const ents = await appListing(`entitlements of ${appId}`, `/api/v1/apps/${at}/entitlements`);
    if (!ents.ok) return vanished(ents.error) ? gone(appId) : ents;
    const accounts = await appListing(`accounts of ${appId}`, `/api/v1/apps/${at}/app_users`);
    if (!accounts.ok) return vanished(accounts.error) ? gone(appId) : accounts;
    const defaults = await optional(REQUEST_DEFAULTS, appId, () => getOne(`access-request defaults of ${appId}`, `/api/v1/apps/${at}/access_request_defaults`));
    if (!defaults.ok) return defaults;
    const rules = await optional(CONFIGURATION_RULES, appId, () =>
      listAll(`entitlement configuration rules of ${appId}`, { method: "GET", path: `/api/v1/apps/${at}/entitlement_configuration_rules` }),
    );
    if (!rules.ok) return rules;
    const owners = appsWithOwners.has(appId) ? { ok: true as const, value: undefined } : await optional(APP_OWNERS, appId, () => getOne(`owners of ${appId}`, `/api/v1/apps/${at}/ownerids`));
    if (!owners.ok) return owners;
    return { ok: true as const, value: { appId, ents: ents.value, accounts: accounts.value, defaults: defaults.value, rules: rules.value, owners: owners.value } };
  });
  const failedPerApp = failure();
  if (failedPerApp) return { ok: false, error: failedPerApp };
  const appData = perApp.flatMap((r) => (r?.ok && r.value !== undefined ? [r.value] : []));
  if (vanishedApps.size > 0) {
    const ids = [...vanishedApps].sort();
    warnings.push({
      code: "APPS_VANISHED",
      message: `${ids.length} app(s) listed and then not found (deleted while the pull ran?), left out with their entitlements and accounts: ${ids.slice(0, 10).join(", ")}${ids.length > 10 ? ", …" : ""}; pull again for a consistent snapshot`,
    });
  }

  const pulledEntitlements = once("entitlements", appData.flatMap((d) => d.ents.map((x) => unwrap(x, "appEntitlement")).filter(objectsOf("entitlements"))), appAndIdOf);
  const appUsers = once("appUsers", appData.flatMap((d) => d.accounts.map((x) => unwrap(x, "appUser")).filter(objectsOf("appUsers"))), appAndIdOf);
  const appUserById = new Map(appUsers.map((a) => [a["id"], a] as const));
  const userIdsOf = (answer: unknown): string[] | undefined => {
    if (!isRecord(answer)) return undefined;
    // `userIds` is `array | null` (openapi.yaml): null is no owners.
    const ids = answer["userIds"];
    return ids === null ? [] : Array.isArray(ids) ? ids.filter((x): x is string => typeof x === "string") : undefined;
  };
  const ownersOf = new Map(
    appData.flatMap((d) => {
      const ids = userIdsOf(d.owners);
      return ids === undefined ? [] : [[d.appId, ids] as const];
    }),
  );
  const appsOut = appList.filter((a) => !vanishedApps.has(String(a["id"]))).map((a) => {
    const owners = ownersOf.get(typeof a["id"] === "string" ? a["id"] : "");
    return owners && !Array.isArray(a["ownerUserIds"]) ? { ...a, ownerUserIds: owners } : a;
  });

  // `c1.api.app.v1.AppEntitlement` has no owners (openapi.yaml): one unpaged `ownerids` GET each.
  const ownerless = pulledEntitlements.filter((e) => !Array.isArray(e["ownerUserIds"]) && idOf(e) !== undefined && typeof e["appId"] === "string" && e["appId"] !== "");
  listingsKnown += ownerless.length;
  const ownerAnswers = { answers: 0 };
  const entitlementOwners = await mapLimit(ownerless, concurrency, stopped, async (e) => {
    const [appId, id] = [String(e["appId"]), String(e["id"])];
    const path = `/api/v1/apps/${encodeURIComponent(appId)}/entitlements/${encodeURIComponent(id)}/ownerids`;
    const r = await optional(ENTITLEMENT_OWNERS, `${appId}/${id}`, () => getOne("entitlement owners", path, ownerAnswers));
    return r.ok ? userIdsOf(r.value) : undefined;
  });
  const failedOwners = failure();
  if (failedOwners) return { ok: false, error: failedOwners };
  const ownersOfEntitlement = new Map(ownerless.flatMap((e, i) => (entitlementOwners[i] === undefined ? [] : [[e, entitlementOwners[i]] as const])));
  const entitlements = pulledEntitlements.map((e) => {
    const owners = ownersOfEntitlement.get(e);
    return owners === undefined ? e : { ...e, ownerUserIds: owners };
  });

  const resourceTypeDefaults = appData.flatMap((d) => {
    const x = d.defaults;
    if (!isRecord(x)) return [];
    const body = isRecord(x["accessRequestDefaults"]) ? x["accessRequestDefaults"] : x;
    // `defaultsEnabled` says whether they are on; `state` is only how the last apply went (openapi.yaml).
    const enabled = body["defaultsEnabled"] === true;
    if (!enabled) return [];
    // Enabled defaults are kept as they came, an empty request policy too: their emergency policy
    // and maximum grant duration still apply to the app's resource types.
    const policyId = body["requestPolicyId"];
    const types = body["resourceTypeIds"];
    const emergency = body["emergencyGrantEnabled"] === true && typeof body["emergencyGrantPolicyId"] === "string" ? { emergencyGrantEnabled: true, emergencyGrantPolicyId: body["emergencyGrantPolicyId"] } : {};
    // The API's `max_grant_duration` oneof: `durationGrant` set, or `durationUnset` (no limit).
    const duration = typeof body["durationGrant"] === "string" && body["durationGrant"] !== "" ? { maxGrantDuration: body["durationGrant"] } : {};
    return [
      {
        appId: d.appId,
        resourceTypeIds: Array.isArray(types) ? types.filter((t) => typeof t === "string") : [],
        requestPolicyId: typeof policyId === "string" ? policyId : "",
        ...emergency,
        ...duration,
      },
    ];
  });
  // A rule's appId is read-only in the API; the world needs it to know whose rule it is.
  const configurationRules = once(
    "entitlementConfigurationRules",
    appData.flatMap((d) =>
      (d.rules ?? [])
        .map((x) => unwrap(x, "entitlementConfigurationRule") ?? unwrap(x, "routingRule"))
        .filter(objectsOf("entitlementConfigurationRules"))
        .map((r) => (typeof r["appId"] === "string" && r["appId"] !== "" ? r : { ...r, appId: d.appId })),
    ),
    appAndIdOf,
  );

  // Policies named but not listed. The service lists app- and entitlement-scoped policies only when
  // asked for them (openapi.yaml, SearchPoliciesRequest.scopeView: "Defaults to global-only, so
  // app/entitlement-scoped policies never appear unless explicitly requested"); without them a task
  // of such an entitlement routed to its app's policy, with one dangling-id warning. Each is read by
  // id (GET /api/v1/policies/{id}), and the policies those name in turn (a baseline, a rule's policy).
  const policyIds = new Set(listedPolicies.map(idOf).filter((id): id is string => id !== undefined));
  const asked = new Set<string>();
  const unlisted: Json[] = [];
  const notReadable: string[] = [];
  let wanted = namedPolicyIds([...entitlements, ...appsOut, ...resourceTypeDefaults, ...configurationRules, ...listedPolicies], policyIds);
  for (let round = 0; wanted.length > 0 && round < 8; round++) {
    for (const id of wanted) asked.add(id);
    listingsKnown += wanted.length;
    const answers = await mapLimit(wanted, concurrency, stopped, async (id) => {
      const r = await getOne("policies named but not listed", `/api/v1/policies/${encodeURIComponent(id)}`);
      if (r.ok) return unwrap(r.value, "policy");
      // Deleted, not the caller's to read, or refused for any reason but the sign-in: left dangling,
      // named in the warning (the pull without it got as far before these reads existed).
      if (r.error.status !== undefined && r.error.status !== 401) notReadable.push(id);
      else fatal(r.error);
      return undefined;
    });
    const failedPolicies = failure();
    if (failedPolicies) return { ok: false, error: failedPolicies };
    const got = answers.filter((p): p is Json => isRecord(p) && idOf(p) !== undefined && !policyIds.has(idOf(p) as string));
    for (const p of got) {
      policyIds.add(idOf(p) as string);
      unlisted.push(p);
    }
    wanted = namedPolicyIds(got, policyIds).filter((id) => !asked.has(id));
  }
  const policyList = [...listedPolicies, ...unlisted];
  if (asked.size > 0)
    warnings.push({
      code: "POLICIES_NOT_LISTED",
      message: `${asked.size} polic${asked.size === 1 ? "y" : "ies"} named by apps, entitlements, request defaults or other policies ${asked.size === 1 ? "was" : "were"} not in the policy listing (the API lists app- and entitlement-scoped policies only on request) and ${asked.size === 1 ? "was" : "were"} read by id: ${unlisted.length} found${notReadable.length > 0 ? `, ${notReadable.length} not found or not readable (${notReadable.slice(0, 5).join(", ")}${notReadable.length > 5 ? ", …" : ""}), left dangling` : ""}`,
    });

  const grantRows: Json[] = [];
  let grantsWithoutUser = 0;
  for (const g of ok(grants) ?? []) {
    const b = isRecord(g) ? g["appEntitlementUserBinding"] : undefined;
    if (!isRecord(b)) continue;
    const view = b["appUser"];
    const account = (isRecord(view) ? unwrap(view, "appUser") : undefined) ?? appUserById.get(b["appUserId"]);
    const identityUserId = account?.["identityUserId"];
    if (typeof identityUserId !== "string" || identityUserId === "") {
      grantsWithoutUser++;
      continue;
    }
    const sources = b["grantSources"];
    const viaEnrollment = Array.isArray(sources) && sources.length > 0;
    // AppEntitlementUserView.appEntitlementUserBindingDeprovisionAt: when time-limited access ends.
    const end = b["appEntitlementUserBindingDeprovisionAt"];
    // AppEntitlementUserView.appEntitlementUserBindingCreatedAt: when the grant was made, kept.
    const made = b["appEntitlementUserBindingCreatedAt"];
    grantRows.push({
      appId: b["appId"],
      appEntitlementId: b["appEntitlementId"],
      identityUserId,
      source: viaEnrollment ? "enrollment" : "direct",
      // The Unix epoch is a twin's stand-in for "unknown" (policy-sim serve), never a real grant's time.
      ...(typeof made === "string" && isRealTimestamp(made) && Date.parse(made) !== 0 ? { createdAt: made } : {}),
      ...(typeof end === "string" && isRealTimestamp(end) ? { deprovisionAt: end } : {}),
    });
  }
  const grantList = once("grants", grantRows, (g) => `${String(g["appId"])}/${String(g["appEntitlementId"])}/${String(g["identityUserId"])}`);
  if (grantsWithoutUser > 0)
    warnings.push({ code: "GRANT_WITHOUT_USER", message: `${grantsWithoutUser} grant(s) belong to accounts linked to no user; they are left out (CEL's HasEntitlement reads grants of users)` });
  const accessReviews = ok(reviews) === undefined ? undefined : once("accessReviews", (ok(reviews) ?? []).map((x) => unwrap(x, "accessReview")).filter(objectsOf("accessReviews")), idOf);
  for (const [read, s] of reads) warnings.push(...readWarnings(read, s));

  // What the API cannot say.
  const tenant: Json = { defaultPolicies: {}, featureFlags: {} };
  // IntrospectResponse.tenantId: whose tenant this is, kept so the twin answers it too.
  const tenantId = isRecord(caller) ? caller["tenantId"] : undefined;
  if (typeof tenantId === "string" && tenantId !== "") tenant["id"] = tenantId;
  // Apps whose request defaults or rules did not come back: a grant on them may have been routed by those.
  const unreadOf = (s: ReadState | undefined): readonly string[] | "all" => (s === undefined ? [] : s.off !== undefined ? "all" : [...s.missing, ...s.denied]);
  const unreadParts = [unreadOf(reads.get(REQUEST_DEFAULTS)), unreadOf(reads.get(CONFIGURATION_RULES))];
  const unreadApps = unreadParts.includes("all") ? "all" : new Set(unreadParts.flatMap((u) => (u === "all" ? [] : u)));
  const defaults = tenantDefaults(policyList, taskList, {
    apps: appsOut,
    entitlements,
    accessReviews,
    resourceTypeDefaults,
    configurationRules: readSome(reads.get(CONFIGURATION_RULES)) ? configurationRules : undefined,
    unreadApps,
  });
  warnings.push(...defaults.warnings);
  tenant["defaultPolicies"] = defaults.defaultPolicies;
  if (policyList.some(refersToPolicies)) tenant["featureFlags"] = { POLICY_REFERENCES_POLICY: true };
  else
    warnings.push({
      code: "FEATURE_FLAG_UNKNOWN",
      message: 'no policy refers to another, so whether the tenant has POLICY_REFERENCES_POLICY is unknown: set "tenant.featureFlags.POLICY_REFERENCES_POLICY" to true if it does',
    });
  // Without the listing the world keeps its default roles, whose ids a tenant's users rarely hold.
  const rolesListed = ok(roles);
  const roleList = rolesListed === undefined ? undefined : pulledRoles(once("roles", rolesListed.map((x) => unwrap(x, "role")).filter(objectsOf("roles")), idOf));
  if (notObjects.size > 0) {
    const counted = [...notObjects].map(([what, n]) => `${n} of ${what}`).join(", ");
    warnings.push({ code: "NOT_OBJECTS", message: `the API listed items that are not JSON objects (${counted}): they were dropped, so the world lacks whatever they stood for` });
  }
  if (duplicates.size > 0) {
    const counted = [...duplicates].map(([what, n]) => `${n} of ${what}`).join(", ");
    warnings.push({
      code: "DUPLICATES",
      message: `the API gave some objects more than once (${counted}): a listing that changed while it was paged; each is kept once, its last copy. Pull again for a consistent snapshot`,
    });
  }
  const guessed = (roleList ?? []).filter((r) => r.guessed).map((r) => r.role);
  if (guessed.length > 0)
    warnings.push({
      code: "ROLE_KIND_UNKNOWN",
      message: `${guessed.length} role(s) name no documented role (${guessed.slice(0, 5).map((r) => `${r.id} "${r.displayName}"`).join(", ")}${guessed.length > 5 ? ", …" : ""}); they are read as BASIC_USER, which has no administrator power: set their "kind" in "roles" if they are more`,
    });
  const knownRoleIds: ReadonlySet<string> = roleList === undefined ? DEFAULT_ROLE_IDS : new Set(roleList.map((r) => r.role.id));
  const callerRoles = isRecord(caller) && Array.isArray(caller["roles"]) ? caller["roles"].filter((r): r is string => typeof r === "string") : undefined;
  if (callerRoles !== undefined && roleList !== undefined) {
    // A role is named by its id (or, from another client, its name): an administrator's reads every task.
    const kinds = new Map<string, string>();
    // By id, and by display name (a client may show roles so): what the introspection lists is not documented further.
    for (const { role } of roleList) {
      kinds.set(role.id, role.kind);
      if (role.displayName !== "" && !kinds.has(role.displayName)) kinds.set(role.displayName, role.kind);
    }
    for (const item of rolesListed ?? []) {
      const r = unwrap(item, "role");
      if (r && typeof r["name"] === "string" && typeof r["id"] === "string") kinds.set(r["name"], kinds.get(r["id"]) ?? "");
    }
    if (!callerRoles.some((r) => READS_EVERY_TASK.has(kinds.get(r) ?? "")))
      warnings.push({
        code: "PARTIAL_VIEW",
        message: `the credentials' roles (${callerRoles.length > 0 ? callerRoles.slice(0, 5).join(", ") : "none"}) are not an administrator's (Super Administrator or Read-only Administrator): the API shows such a caller only the tasks it takes part in, so the world likely lacks tasks; pull with an administrator's API client`,
      });
  }
  const roleIds = [...new Set(userList.flatMap((u) => (Array.isArray(u["roleIds"]) ? u["roleIds"].filter((r): r is string => typeof r === "string") : [])))];
  const unknownRoles = roleIds.filter((r) => !knownRoleIds.has(r));
  if (unknownRoles.length > 0)
    warnings.push({
      code: "ROLES_UNKNOWN",
      message: `users hold ${unknownRoles.length} role id(s) the API does not describe (${unknownRoles.slice(0, 5).join(", ")}${unknownRoles.length > 5 ? ", …" : ""}): add "roles": [{ "id": "…", "displayName": "…", "kind": "SUPER_ADMIN" }] to say which is which`,
    });
  // A group is an entitlement of its app (fallbackGroupIds name them { appEntitlementId, appId }),
  // and its members are the users granted it: the groups the policies name, from what was pulled.
  const named = namedGroups(policyList);
  const groupKeys = new Set(named.map((g) => entitlementKey(g.appId, g.id)));
  // One pass over entitlements and grants for all the groups (a tenant has many grants, few groups).
  const groupEntitlements = new Map<string, Json>();
  const groupMembers = new Map<string, Set<string>>();
  if (groupKeys.size > 0) {
    for (const e of entitlements) {
      const key = entitlementKey(String(e["appId"]), String(e["id"]));
      if (groupKeys.has(key) && !groupEntitlements.has(key)) groupEntitlements.set(key, e);
    }
    for (const g of grantList) {
      const key = entitlementKey(String(g["appId"]), String(g["appEntitlementId"]));
      if (!groupKeys.has(key) || typeof g["identityUserId"] !== "string") continue;
      let members = groupMembers.get(key);
      if (members === undefined) groupMembers.set(key, (members = new Set()));
      members.add(g["identityUserId"]);
    }
  }
  const groupList: Json[] = [];
  const groupsLacking: string[] = [];
  // The world keys groups by id alone: of two apps' entitlements of one id, the first is kept, said.
  const groupIds = new Map<string, string>();
  const groupsShadowed: string[] = [];
  for (const { appId, id } of named) {
    const ent = groupEntitlements.get(entitlementKey(appId, id));
    if (ent === undefined) {
      groupsLacking.push(appId === "" ? `${id} (no appId)` : `${appId}/${id}`);
      continue;
    }
    const first = groupIds.get(id);
    if (first !== undefined) {
      groupsShadowed.push(`${appId}/${id} (kept ${first}/${id})`);
      continue;
    }
    groupIds.set(id, appId);
    const members = groupMembers.get(entitlementKey(appId, id)) ?? new Set<string>();
    groupList.push({ id, appId, displayName: typeof ent["displayName"] === "string" ? ent["displayName"] : "", memberUserIds: [...members].sort() });
  }
  if (groupList.length > 0)
    warnings.push({
      code: "GROUPS_INFERRED",
      message: `${groupList.length} group(s) the policies name are taken to be their apps' entitlements of those ids, with the users granted them as members (${groupList.slice(0, 5).map((g) => `${String(g["appId"])}/${String(g["id"])}: ${(g["memberUserIds"] as string[]).length}`).join(", ")}${groupList.length > 5 ? ", …" : ""}): check "groups" if a group's members are not its grantees`,
    });
  if (groupsShadowed.length > 0)
    warnings.push({
      code: "GROUPS_AMBIGUOUS",
      message: `policies name groups of one id in two apps, which a world keeps once (by id): ${groupsShadowed.slice(0, 5).join(", ")}${groupsShadowed.length > 5 ? ", …" : ""}; give one of them another id in "groups" and in the policies that name it`,
    });
  if (groupsLacking.length > 0)
    warnings.push({
      code: "GROUPS_UNKNOWN",
      message: `policies name ${groupsLacking.length} group(s) that are no entitlement the pull read (${groupsLacking.slice(0, 5).join(", ")}${groupsLacking.length > 5 ? ", …" : ""}): add "groups": [{ "id", "appId", "displayName", "memberUserIds" }] for their approvers`,
    });
  const clock = new Date(Math.floor(now() / 1000) * 1000).toISOString().replace(".000Z", "Z");
  warnings.push({ code: "CLOCK", message: `the simulation clock is the time of the pull, ${clock}: change "now" to simulate another moment` });

  const world: Json = {
    version: 1,
    now: clock,
    tenant,
    ...(roleList === undefined ? {} : { roles: roleList.map((r) => r.role) }),
    users: userList,
    apps: appsOut,
    entitlements,
    appUsers,
    grants: grantList,
    resourceTypeDefaults,
    ...(groupList.length > 0 ? { groups: groupList } : {}),
    ...(accessReviews === undefined ? {} : { accessReviews }),
    ...(readSome(reads.get(CONFIGURATION_RULES)) ? { entitlementConfigurationRules: configurationRules } : {}),
    policies: policyList,
    tasks: taskList,
  };
  const counts = {
    policies: policyList.length,
    tasks: taskList.length,
    users: userList.length,
    roles: roleList?.length ?? 0,
    apps: appsOut.length,
    entitlements: entitlements.length,
    appUsers: appUsers.length,
    grants: grantList.length,
    resourceTypeDefaults: resourceTypeDefaults.length,
    entitlementConfigurationRules: configurationRules.length,
  };
  options.onProgress?.({ kind: "done", resource: "all", items: taskList.length, pages: 0, bytes: api.bytesRead(), listingsDone, listingsKnown: listingsDone });
  return { ok: true, value: { world, warnings, counts } };
}
