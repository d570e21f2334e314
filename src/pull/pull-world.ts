/**
 * `pullWorld`: a tenant exported through the service's API as a world document (the world file's
 * JSON). Objects are kept as the API wrote them, field names included (`baton…`, `c1UserPicker`,
 * unknown fields), so they load and round-trip as they came. What the API cannot give — the
 * tenant's default policies, the clock, group members — is inferred where it can be and otherwise
 * listed as a warning that says how to set it. The first listing that fails stops the whole pull:
 * requests in flight are cancelled and no other listing starts, so a server that stops answering
 * costs one request's retries, not those of every listing in turn.
 */
import { DEFAULT_ROLES } from "../world/decode-directory.js";
import type { Result } from "../result.js";
import { createApiClient, type ApiClient, type ApiClientOptions, type PullError } from "./api-client.js";
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
   * the largest answer and listing it takes, and the injectable sleep and randomness.
   */
  readonly retry?: Pick<ApiClientOptions, "retries" | "timeoutRetries" | "backoffMs" | "maxBackoffMs" | "sleep" | "random" | "requestTimeoutMs" | "maxResponseBytes" | "maxListingItems">;
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
/** The roles listing, as a NOT_OFFERED warning names it. */
const ROLES_LISTING = "roles (GET /api/v1/iam/roles)";

/** Whether a policy refers to another policy (a rule's `policyId`, a `baselinePolicyId`). */
function refersToPolicies(p: Json): boolean {
  if (typeof p["baselinePolicyId"] === "string" && p["baselinePolicyId"] !== "") return true;
  const rules = p["rules"];
  return Array.isArray(rules) && rules.some((r) => isRecord(r) && typeof r["policyId"] === "string" && r["policyId"] !== "");
}

/**
 * Exports a tenant through the service's API: policies, tasks (search; open ones unless
 * `states: "all"`), users, roles, apps, each app's entitlements, accounts, access-request defaults,
 * entitlement configuration rules and owners, and grants. Listings an API does not offer (404 or
 * 501) become warnings. Stops with a {@link PullError} when the server refuses the credentials or a
 * listing fails after its retries (a request that times out is retried at most `timeoutRetries`
 * times, two by default), cancelling the requests still in flight.
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
        listingsDone,
        listingsKnown,
        status: r.status,
        reason: r.reason,
        waitMs: r.waitMs,
        message: r.message,
      }),
  });
  const warnings: PullWarning[] = [];
  const unsupported = new Set<string>();

  /** Every item of a listing, with progress; `optional` listings the server lacks (404 on the first page) give undefined. */
  const listAll = async (resource: string, listing: Parameters<ApiClient["list"]>[0], optional: string | undefined): Promise<Result<unknown[] | undefined, PullError>> => {
    if (optional !== undefined && unsupported.has(optional)) return { ok: true, value: undefined };
    let items = 0;
    let pages = 0;
    resourceOf.set(listing.path, resource);
    const r = await api.list({ ...listing, pageSize }, (page) => {
      items += page.list.length;
      pages++;
      options.onProgress?.({ kind: "page", resource, items, pages, listingsDone, listingsKnown });
    });
    listingsDone++;
    if (!r.ok && optional !== undefined && (r.error.status === 404 || r.error.status === 501)) {
      if (!unsupported.has(optional)) {
        unsupported.add(optional);
        warnings.push({ code: "NOT_OFFERED", message: `the server does not offer ${optional} (${r.error.status}); the world has none: add them by hand if policies depend on them` });
      }
      return { ok: true, value: undefined };
    }
    if (!r.ok) fatal(r.error);
    return r;
  };
  const callOptional = async (what: string, path: string): Promise<Result<unknown, PullError>> => {
    if (unsupported.has(what)) return { ok: true, value: undefined };
    const r = await api.call("GET", path);
    listingsDone++;
    if (!r.ok && (r.error.status === 404 || r.error.status === 501)) {
      if (!unsupported.has(what)) {
        unsupported.add(what);
        warnings.push({ code: "NOT_OFFERED", message: `the server does not offer ${what} (${r.error.status}); the world has none: add them by hand if policies depend on them` });
      }
      return { ok: true, value: undefined };
    }
    if (!r.ok) fatal(r.error);
    return r;
  };
  const stopped = (): boolean => signal.aborted;

  const taskBody = options.states === "all" ? { includeDeleted: true } : { taskStates: ["TASK_STATE_OPEN"] };
  const [policies, users, apps, tasks, grants, reviews, roles] = await mapLimit(
    [
      () => listAll("policies", { method: "GET", path: "/api/v1/policies" }, undefined),
      () => listAll("users", { method: "GET", path: "/api/v1/users" }, undefined),
      () => listAll("apps", { method: "GET", path: "/api/v1/apps" }, undefined),
      () => listAll("tasks", { method: "POST", path: "/api/v1/search/tasks", body: taskBody }, undefined),
      () => listAll("grants", { method: "POST", path: "/api/v1/search/grants", body: {} }, "grants (POST /api/v1/search/grants)"),
      () => listAll("access reviews", { method: "GET", path: "/api/v1/access_reviews" }, "access reviews (GET /api/v1/access_reviews)"),
      () => listAll("roles", { method: "GET", path: "/api/v1/iam/roles" }, ROLES_LISTING),
    ],
    concurrency,
    stopped,
    (f) => f(),
  );
  const failedFirst = failure();
  if (failedFirst) return { ok: false, error: failedFirst };
  const ok = <T>(r: Result<T, PullError> | undefined): T | undefined => (r?.ok ? r.value : undefined);
  const policyList = (ok(policies) ?? []).map((x) => unwrap(x, "policy")).filter(isRecord);
  const userList = (ok(users) ?? []).map((x) => unwrap(x, "user")).filter(isRecord);
  const appList = (ok(apps) ?? []).map((x) => unwrap(x, "app")).filter(isRecord);
  const taskList = (ok(tasks) ?? []).map((x) => unwrap(x, "task")).filter(isRecord);

  // Per app: entitlements, accounts, request defaults, configuration rules, owners.
  const appIds = appList.map((a) => a["id"]).filter((id): id is string => typeof id === "string" && id !== "");
  listingsKnown += appIds.length * 5;
  const perApp = await mapLimit(appIds, concurrency, stopped, async (appId) => {
    const at = encodeURIComponent(appId);
    const ents = await listAll(`entitlements of ${appId}`, { method: "GET", path: `/api/v1/apps/${at}/entitlements` }, undefined);
    if (!ents.ok) return ents;
    const accounts = await listAll(`accounts of ${appId}`, { method: "GET", path: `/api/v1/apps/${at}/app_users` }, undefined);
    if (!accounts.ok) return accounts;
    const defaults = await callOptional("access-request defaults (GET /api/v1/apps/{app_id}/access_request_defaults)", `/api/v1/apps/${at}/access_request_defaults`);
    if (!defaults.ok) return defaults;
    const rules = await listAll(
      `entitlement configuration rules of ${appId}`,
      { method: "GET", path: `/api/v1/apps/${at}/entitlement_configuration_rules` },
      "entitlement configuration rules (GET /api/v1/apps/{app_id}/entitlement_configuration_rules)",
    );
    if (!rules.ok) return rules;
    const owners = await callOptional("app owners (GET /api/v1/apps/{app_id}/ownerids)", `/api/v1/apps/${at}/ownerids`);
    if (!owners.ok) return owners;
    return { ok: true as const, value: { appId, ents: ents.value ?? [], accounts: accounts.value ?? [], defaults: defaults.value, rules: rules.value, owners: owners.value } };
  });
  const failedPerApp = failure();
  if (failedPerApp) return { ok: false, error: failedPerApp };
  const appData = perApp.flatMap((r) => (r?.ok ? [r.value] : []));

  const entitlements = appData.flatMap((d) => d.ents.map((x) => unwrap(x, "appEntitlement")).filter(isRecord));
  const appUsers = appData.flatMap((d) => d.accounts.map((x) => unwrap(x, "appUser")).filter(isRecord));
  const appUserById = new Map(appUsers.map((a) => [a["id"], a] as const));
  const ownersOf = new Map(
    appData.flatMap((d) => {
      const ids = isRecord(d.owners) ? d.owners["userIds"] : undefined;
      return Array.isArray(ids) ? [[d.appId, ids.filter((x): x is string => typeof x === "string")] as const] : [];
    }),
  );
  const appsOut = appList.map((a) => {
    const owners = ownersOf.get(typeof a["id"] === "string" ? a["id"] : "");
    return owners && !Array.isArray(a["ownerUserIds"]) ? { ...a, ownerUserIds: owners } : a;
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
  const configurationRules = appData.flatMap((d) =>
    (d.rules ?? [])
      .map((x) => unwrap(x, "entitlementConfigurationRule") ?? unwrap(x, "routingRule"))
      .filter(isRecord)
      .map((r) => (typeof r["appId"] === "string" && r["appId"] !== "" ? r : { ...r, appId: d.appId })),
  );

  const grantList: Json[] = [];
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
    grantList.push({ appId: b["appId"], appEntitlementId: b["appEntitlementId"], identityUserId, source: viaEnrollment ? "enrollment" : "direct" });
  }
  if (grantsWithoutUser > 0)
    warnings.push({ code: "GRANT_WITHOUT_USER", message: `${grantsWithoutUser} grant(s) belong to accounts linked to no user; they are left out (CEL's HasEntitlement reads grants of users)` });

  // What the API cannot say.
  const tenant: Json = { defaultPolicies: {}, featureFlags: {} };
  const defaults = tenantDefaults(policyList, taskList);
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
  const roleList = rolesListed === undefined ? undefined : pulledRoles(rolesListed);
  const guessed = (roleList ?? []).filter((r) => r.guessed).map((r) => r.role);
  if (guessed.length > 0)
    warnings.push({
      code: "ROLE_KIND_UNKNOWN",
      message: `${guessed.length} role(s) name no documented role (${guessed.slice(0, 5).map((r) => `${r.id} "${r.displayName}"`).join(", ")}${guessed.length > 5 ? ", …" : ""}); they are read as BASIC_USER, which has no administrator power: set their "kind" in "roles" if they are more`,
    });
  const knownRoleIds: ReadonlySet<string> = roleList === undefined ? DEFAULT_ROLE_IDS : new Set(roleList.map((r) => r.role.id));
  const roleIds = [...new Set(userList.flatMap((u) => (Array.isArray(u["roleIds"]) ? u["roleIds"].filter((r): r is string => typeof r === "string") : [])))];
  const unknownRoles = roleIds.filter((r) => !knownRoleIds.has(r));
  if (unknownRoles.length > 0)
    warnings.push({
      code: "ROLES_UNKNOWN",
      message: `users hold ${unknownRoles.length} role id(s) the API does not describe (${unknownRoles.slice(0, 5).join(", ")}${unknownRoles.length > 5 ? ", …" : ""}): add "roles": [{ "id": "…", "displayName": "…", "kind": "SUPER_ADMIN" }] to say which is which`,
    });
  if (policyList.some((p) => JSON.stringify(p).includes('"appGroupId"')))
    warnings.push({ code: "GROUPS_UNKNOWN", message: 'policies name groups, whose members the API does not list here: add "groups": [{ "id", "appId", "displayName", "memberUserIds" }] for group approvers' });
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
    ...(ok(reviews) === undefined ? {} : { accessReviews: (ok(reviews) ?? []).map((x) => unwrap(x, "accessReview")).filter(isRecord) }),
    ...(unsupported.has("entitlement configuration rules (GET /api/v1/apps/{app_id}/entitlement_configuration_rules)") ? {} : { entitlementConfigurationRules: configurationRules }),
    policies: policyList,
    tasks: taskList,
  };
  const counts = {
    policies: policyList.length,
    tasks: taskList.length,
    users: userList.length,
    roles: roleList?.length ?? 0,
    apps: appList.length,
    entitlements: entitlements.length,
    appUsers: appUsers.length,
    grants: grantList.length,
    resourceTypeDefaults: resourceTypeDefaults.length,
    entitlementConfigurationRules: configurationRules.length,
  };
  options.onProgress?.({ kind: "done", resource: "all", items: taskList.length, pages: 0, listingsDone, listingsKnown: listingsDone });
  return { ok: true, value: { world, warnings, counts } };
}
