/**
 * A small client of the service's API for `pull`: signs in (bearer token, or client credentials
 * exchanged at `/auth/v1/token`), retries 429 and 5xx answers and network failures with
 * exponential backoff that honours `Retry-After`, and walks the API's paging — GET lists take
 * `page_size`/`page_token` query parameters, POST searches `pageSize`/`pageToken` in the body;
 * every page answers `list` and `nextPageToken` ("" on the last page). Failures are values.
 *
 * A request that times out is retried fewer times than other failures: each attempt costs a whole
 * `requestTimeoutMs`, so six retries of a server that accepts and never answers kept a pull silent
 * for seven timeouts and more. See {@link DEFAULT_TIMEOUT_RETRIES}. A `Retry-After` longer than the
 * retries left can wait out stops the request at once (`RETRY_LATER`) instead of after them, and
 * the answers of one client together may hold at most `maxTotalBytes` ({@link DEFAULT_MAX_TOTAL_BYTES}).
 * A listing stops with `PAGING` when the server repeats a page token, answers 100 empty pages in a
 * row, or 10 pages in a row of only items the listing already gave (a broken cursor).
 */
import type { Result } from "../result.js";
import { clientAssertion, type PullCredentials, privateKeyOfSecret } from "./credentials.js";
import { hashKey } from "../world/table.js";

/**
 * Why a pull stopped. `status` is the HTTP status when the server answered. `TOO_LARGE`: the
 * answers read ran past `maxTotalBytes`; `RETRY_LATER`: the server asked to wait (`Retry-After`)
 * longer than the retries left may wait. On a 404, `notFound` says whether the answer is the
 * gateway's own for a path it has no route for (`route`: the server does not offer it) or the
 * service's for a missing object (`object`); see {@link notFoundOf}.
 *
 * @example
 * ```ts
 * const e: PullError = { code: "UNAUTHENTICATED", message: "the server refused the token (401)", status: 401 };
 * ```
 */
export interface PullError {
  readonly code:
    | "INVALID_ARGUMENT"
    | "UNAUTHENTICATED"
    | "PERMISSION_DENIED"
    | "HTTP_ERROR"
    | "NETWORK_ERROR"
    | "DEADLINE_EXCEEDED"
    | "BAD_RESPONSE"
    | "PAGING"
    | "CANCELLED"
    | "TOO_LARGE"
    | "RETRY_LATER";
  readonly message: string;
  readonly status?: number;
  readonly notFound?: "route" | "object";
}

/**
 * What a client needs: where the API is, how to reach it, who signs in, and how patient to be.
 * `sleep`, `now` and `random` are injectable so tests run without waiting.
 *
 * @example
 * ```ts
 * const o: ApiClientOptions = { baseUrl: "https://tenant.conductor.one", fetch, credentials: { kind: "token", token } };
 * ```
 */
export interface ApiClientOptions {
  readonly baseUrl: string;
  readonly fetch: typeof fetch;
  readonly credentials: PullCredentials;
  /** Retries of one request after a 429, a 5xx or a network failure; default 6. */
  readonly retries?: number;
  /**
   * Of those, how many may follow an attempt that timed out (see `requestTimeoutMs`); default
   * {@link DEFAULT_TIMEOUT_RETRIES}. A request that keeps timing out stops with `DEADLINE_EXCEEDED`
   * after at most `(timeoutRetries + 1) × requestTimeoutMs` and the backoffs between.
   */
  readonly timeoutRetries?: number;
  /** First backoff in milliseconds, doubled each retry; default 500. */
  readonly backoffMs?: number;
  /**
   * The longest wait between two attempts, `Retry-After` included; default 60 000. A `Retry-After`
   * longer than this times the retries left stops the request at once with `RETRY_LATER`.
   */
  readonly maxBackoffMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Milliseconds since the epoch; default `Date.now`. */
  readonly now?: () => number;
  /** In [0, 1): spreads retries of concurrent requests; default `Math.random`. */
  readonly random?: () => number;
  /**
   * How long one attempt may take, answer included, in milliseconds; then it is retried at most
   * `timeoutRetries` times. Default {@link DEFAULT_REQUEST_TIMEOUT_MS}: a server that accepts the
   * connection and never answers cannot hold a pull forever.
   */
  readonly requestTimeoutMs?: number;
  /**
   * Stops every request in flight and every later one with `CANCELLED`, backoff waits included:
   * `pullWorld` aborts it when one listing has failed, so the others do not run out their retries.
   */
  readonly signal?: AbortSignal;
  /**
   * The largest answer one request may have, in bytes; a larger one stops the pull with
   * `BAD_RESPONSE` (not retried). Default {@link DEFAULT_MAX_RESPONSE_BYTES}.
   */
  readonly maxResponseBytes?: number;
  /**
   * The most items one listing may collect; a server that pages on past it stops the pull with
   * `PAGING`. Default {@link DEFAULT_MAX_LISTING_ITEMS}.
   */
  readonly maxListingItems?: number;
  /**
   * The most bytes all answers of this client may hold together (a pull keeps what it reads); past
   * it the pull stops with `TOO_LARGE` (not retried). Default {@link DEFAULT_MAX_TOTAL_BYTES}.
   */
  readonly maxTotalBytes?: number;
  /** Called before each retry, for progress output. */
  readonly onRetry?: (info: RetryInfo) => void;
}

/**
 * A retry about to happen: which request, why (`status` is null when no answer came; `reason` says
 * whether the answer was a 429 or 5xx, the attempt failed, or it timed out), the wait before it,
 * and the attempt it follows (1 for the first). `message` says it in one line, with how many more
 * tries are left, for progress output.
 *
 * @example
 * ```ts
 * const r: RetryInfo = {
 *   path: "/api/v1/users", status: null, reason: "timeout", waitMs: 500, attempt: 1,
 *   message: "GET /api/v1/users: no whole answer within 5 s (timeout 1 of at most 3); retrying in 0.5 s",
 * };
 * ```
 */
export interface RetryInfo {
  readonly path: string;
  readonly status: number | null;
  readonly reason: "status" | "network" | "timeout";
  readonly waitMs: number;
  readonly attempt: number;
  readonly message: string;
}

/**
 * One paged listing: the path, GET (query paging) or POST (body paging), the request body of a
 * search, and the page size to ask for (0: the API's default).
 *
 * @example
 * ```ts
 * const l: Listing = { method: "POST", path: "/api/v1/search/tasks", body: { taskStates: ["TASK_STATE_OPEN"] }, pageSize: 100 };
 * ```
 */
export interface Listing {
  readonly method: "GET" | "POST";
  readonly path: string;
  readonly body?: Readonly<Record<string, unknown>>;
  readonly pageSize?: number;
}

/**
 * A page as read: its items and any other fields of the answer (`expanded`…).
 *
 * @example
 * ```ts
 * const p: Page = { list: [{ id: "u-1" }], body: { list: [{ id: "u-1" }], nextPageToken: "" } };
 * ```
 */
export interface Page {
  readonly list: readonly unknown[];
  readonly body: Readonly<Record<string, unknown>>;
}

/**
 * The client.
 *
 * @example
 * ```ts
 * const api = createApiClient({ baseUrl, fetch, credentials });
 * const users = await api.list({ method: "GET", path: "/api/v1/users" });
 * ```
 */
export interface ApiClient {
  /** One request; the parsed JSON body of a 2xx answer. */
  call(method: "GET" | "POST", path: string, body?: unknown): Promise<Result<unknown, PullError>>;
  /**
   * Every item of a listing, page after page; `onPage` sees each page as it arrives. `PAGING` when
   * the server's paging makes no progress: a page token twice, 100 empty pages in a row, 10 pages
   * in a row of items already given, or more than `maxListingItems` items.
   */
  list(listing: Listing, onPage?: (page: Page) => void): Promise<Result<unknown[], PullError>>;
  /** Bytes of the answers read so far, all requests together (what `maxTotalBytes` bounds). */
  bytesRead(): number;
}

/**
 * The default `requestTimeoutMs` of {@link createApiClient}: two minutes for one request and its answer.
 *
 * @example
 * ```ts
 * createApiClient({ baseUrl, fetch, credentials, requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS / 2 });
 * ```
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;

/**
 * The default `timeoutRetries` of {@link createApiClient}: a request that timed out is tried twice
 * more, then it stops with `DEADLINE_EXCEEDED`. A slow page gets another chance; a server that
 * accepts and never answers costs at most three timeouts (6 minutes at the default two) and about a
 * second and a half of backoff, each retry announced, instead of seven timeouts in silence.
 *
 * @example
 * ```ts
 * const worst = (DEFAULT_TIMEOUT_RETRIES + 1) * DEFAULT_REQUEST_TIMEOUT_MS; // 360 000 ms, backoff aside
 * ```
 */
export const DEFAULT_TIMEOUT_RETRIES = 2;

/**
 * The default `maxResponseBytes` of {@link createApiClient}: 64 MiB for one answer. A page of the
 * service's largest page size is far below it (a task is a few KB); a server that streams without
 * end cannot exhaust the puller's memory.
 *
 * @example
 * ```ts
 * createApiClient({ baseUrl, fetch, credentials, maxResponseBytes: 4 * DEFAULT_MAX_RESPONSE_BYTES });
 * ```
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * The default `maxListingItems` of {@link createApiClient}: ten million items in one listing (tasks,
 * users, grants…), ten times the largest tenant the project is measured on. A server that answers
 * ever new pages of one item each is stopped there rather than followed until memory runs out.
 *
 * @example
 * ```ts
 * createApiClient({ baseUrl, fetch, credentials, maxListingItems: 50_000_000 });
 * ```
 */
export const DEFAULT_MAX_LISTING_ITEMS = 10_000_000;

/**
 * The default `maxTotalBytes` of {@link createApiClient}: 2 GiB of answers in one pull. A pull holds
 * what it reads (1.2 to 2.2 bytes of memory per byte of JSON: full pages to pages of one item, as
 * measured, for answers of ordinary JSON; answers of little else than empty objects and arrays take
 * up to 20, so their objects and arrays, at 64 bytes each, count past twice their text), so a server that pages
 * without end is stopped before the process runs out of memory, rather than followed for half an
 * hour of garbage collection. `policy-sim pull` lowers it to a third of
 * the heap Node may use when that is less (`--max-bytes`).
 *
 * @example
 * ```ts
 * createApiClient({ baseUrl, fetch, credentials, maxTotalBytes: 4 * DEFAULT_MAX_TOTAL_BYTES });
 * ```
 */
export const DEFAULT_MAX_TOTAL_BYTES = 2 * 1024 ** 3;

/** An answer over `maxResponseBytes`, or one that takes the client past `maxTotalBytes`: not retried (the server would send it again). */
class TooLarge extends Error {
  constructor(
    message: string,
    readonly code: "BAD_RESPONSE" | "TOO_LARGE",
  ) {
    super(message);
  }
}

/** Bytes for a message: `64 MiB`, `1.5 GiB`, `512 bytes`. */
function bytes(n: number): string {
  for (const [unit, size] of [["GiB", 1024 ** 3], ["MiB", 1024 ** 2], ["KiB", 1024]] as const) if (n >= size) return `${Math.round((n / size) * 10) / 10} ${unit}`;
  return `${n} bytes`;
}

/** What all answers of one client may still hold: `used` of `max` bytes (their text and, once parsed, their objects); `read`: their text alone. */
interface Budget {
  used: number;
  read: number;
  readonly max: number;
}

const overBudget = (budget: Budget): TooLarge =>
  new TooLarge(
    `the answers read so far ran past ${bytes(budget.max)} (maxTotalBytes); stopping before the process runs out of memory: a server that pages without end, or a tenant larger than the budget (raise it, and the heap, to pull it)`,
    "TOO_LARGE",
  );

/**
 * A response's whole text, refusing (with {@link TooLarge}) to hold more than `limit` bytes of it
 * or to take the client's answers past its `budget`; the bytes read count against the budget, and
 * so does the heap its objects and arrays will take once parsed (within `limit` too).
 */
async function textWithin(response: Response, limit: number, budget: Budget): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? NaN);
  if (declared > limit) {
    await response.body?.cancel().catch(() => undefined);
    throw new TooLarge(`the answer is ${declared} bytes, over the ${limit}-byte limit of one answer`, "BAD_RESPONSE");
  }
  if (budget.used + declared > budget.max) {
    await response.body?.cancel().catch(() => undefined);
    throw overBudget(budget);
  }
  const body = response.body;
  if (body === null) return "";
  const reader = body.getReader();
  // Decoded as it arrives (a character split between chunks is kept for the next), as `text()` does.
  const decoder = new TextDecoder();
  let text = "";
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    budget.used += value.byteLength;
    budget.read += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new TooLarge(`the answer ran past the ${limit}-byte limit of one answer`, "BAD_RESPONSE");
    }
    if (budget.used > budget.max) {
      await reader.cancel().catch(() => undefined);
      throw overBudget(budget);
    }
    text += decoder.decode(value, { stream: true });
  }
  const whole = text + decoder.decode();
  // Parsed, an answer takes more than its text: ~64 bytes of heap for each object and array in it
  // (60 MB of `{},{},…` parsed to 1.3 GB). Counted now, before JSON.parse makes them: against the
  // answer's limit, and against the budget where they pass the twice the text it already allows
  // for (ordinary API JSON comes to 0.5–1× its text in objects and arrays: nothing more).
  const parsed = containersIn(whole) * BYTES_PER_CONTAINER;
  if (parsed > limit) throw new TooLarge(`the answer holds about ${bytes(parsed)} of objects and arrays once parsed, over the ${limit}-byte limit of one answer`, "BAD_RESPONSE");
  budget.used += Math.max(0, parsed - 2 * size);
  if (budget.used > budget.max) throw overBudget(budget);
  return whole;
}

/** Heap an object or array of a parsed answer takes, about (V8, measured: 43 to 67 bytes for an empty one). */
const BYTES_PER_CONTAINER = 64;

/** The `{` and `[` of a JSON text (those inside strings too: an upper bound on its objects and arrays). */
function containersIn(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 123 || c === 91) n++;
  }
  return n;
}

/**
 * Pages in a row that hold no item but name a next page, after which a listing stops with
 * `PAGING`: a server that answers empty pages with ever new tokens would otherwise be followed forever.
 */
const MAX_EMPTY_PAGES_IN_A_ROW = 100;

/**
 * Pages in a row that hold items but none the listing has not already given, after which it stops
 * with `PAGING`: a server whose cursor is broken (it answers the first page again under a new token
 * each time) was followed for hours, to `maxListingItems`, at hundreds of pages a second. Offset
 * paging gives such a page legitimately when a whole page of objects is added ahead of the cursor
 * between two requests (at page size 1, one insert), and an insert may land between any two pages;
 * ten in a row would need objects added as fast as the pull pages, ten times running, which no
 * tenant does, while a broken server costs eleven requests. Empty pages neither count nor reset
 * the run: they have their own bound above.
 */
const MAX_STALE_PAGES_IN_A_ROW = 10;

/**
 * Ids one listing tracks at most, under V8's limit on a `Set` (2^24 entries): a listing past it
 * (only with `maxListingItems` raised past it) takes an id it has not tracked as new.
 */
const MAX_TRACKED_IDS = 16_000_000;

/**
 * What tells a listing's item from the others, as `pullWorld` dedupes them: its `id` (beside its
 * `appId`, when it has one: entitlements and accounts are an app's), or the `id` of a view's one
 * object member (`{ user: {...} }`, `{ task: {...} }`). Undefined for an item without one (a
 * grant's binding): such an item is told by its content ({@link contentKey}).
 */
function itemKeyOf(item: unknown): string | undefined {
  if (!isRecord(item)) return undefined;
  const own = objectKeyOf(item);
  if (own !== undefined) return own;
  const inner = Object.values(item).filter(isRecord);
  return inner.length === 1 && inner[0] !== undefined ? objectKeyOf(inner[0]) : undefined;
}

/** A hash of an item's JSON (the world table's), for items {@link itemKeyOf} has no key for. */
function contentKey(item: unknown): string {
  return `#${hashKey(JSON.stringify(item) ?? "")}`;
}

function objectKeyOf(x: Readonly<Record<string, unknown>>): string | undefined {
  const id = x["id"];
  if (typeof id !== "string" || id === "") return undefined;
  const appId = x["appId"];
  return typeof appId === "string" && appId !== "" ? `${appId}/${id}` : id;
}

/** A response and its whole text. */
interface Answer {
  readonly response: Response;
  readonly text: string;
}

const RETRY_STATUSES = new Set([429, 500, 502, 503, 504]);
const fail = (code: PullError["code"], message: string, status?: number, notFound?: PullError["notFound"]): { ok: false; error: PullError } => ({
  ok: false,
  error: { code, message, ...(status === undefined ? {} : { status }), ...(notFound === undefined ? {} : { notFound }) },
});

/** `Retry-After` in milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
function retryAfterMs(value: string | null, nowMs: number): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/**
 * What a failed request's error says, with the cause behind fetch's bare "fetch failed" (the
 * system's code and message: `connect ECONNREFUSED 127.0.0.1:9`), and whether trying again could
 * help: a host name that does not resolve, a certificate this Node does not trust, or an address
 * fetch will not use stay so whatever the wait, so the pull stops at once with what to check.
 */
function networkProblem(e: unknown): { readonly text: string; readonly final: boolean } {
  if (!(e instanceof Error)) return { text: String(e), final: false };
  const causes: { code?: unknown; message?: unknown }[] = [];
  let c: unknown = (e as { cause?: unknown }).cause;
  for (let depth = 0; c !== undefined && c !== null && depth < 4; depth++) {
    if (c instanceof AggregateError) causes.push(...(c.errors as { code?: unknown; message?: unknown }[]));
    else if (typeof c === "object") causes.push(c as { code?: unknown; message?: unknown });
    c = typeof c === "object" ? (c as { cause?: unknown }).cause : undefined;
  }
  const codes = causes.map((x) => (typeof x?.code === "string" ? x.code : "")).filter((x) => x !== "");
  const said = [...new Set(causes.map((x) => (typeof x?.message === "string" ? x.message : "")).filter((m) => m !== "" && m !== e.message))];
  const text = said.length > 0 ? `${e.message} (${said.join("; ")})` : e.message;
  if (codes.includes("ENOTFOUND")) return { text: `${text}: the host name does not resolve; check --base-url`, final: true };
  const cert = codes.find((x) => /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME/.test(x));
  if (cert !== undefined) return { text: `${text}: this Node does not trust the server's certificate (${cert}); NODE_EXTRA_CA_CERTS=<file> trusts a private CA`, final: true };
  if (codes.includes("ERR_INVALID_URL") || codes.includes("UND_ERR_INVALID_ARG")) return { text, final: true };
  if (said.includes("bad port")) return { text: `${text}: fetch refuses this port (one browsers block); serve the API on another`, final: true };
  if (codes.includes("ECONNREFUSED")) return { text: `${text}: nothing listens there; is the server running at --base-url?`, final: false };
  return { text, final: false };
}

/** Whether a fetch or body read failed because its `AbortSignal.timeout` fired. */
function timedOut(e: unknown): boolean {
  return e instanceof Error && (e.name === "TimeoutError" || (e.name === "AbortError" && String((e as { cause?: unknown }).cause ?? "").includes("Timeout")));
}

/** Seconds for a message: `5 s`, `0.3 s`. */
const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

/** A wait for a message, in the largest unit that reads well: `1 h`, `6 min`, `45 s`. */
function duration(ms: number): string {
  if (ms >= 3_600_000) return `${Math.round(ms / 360_000) / 10} h`;
  if (ms >= 120_000) return `${Math.round(ms / 6_000) / 10} min`;
  return seconds(ms);
}

function isRecord(v: unknown): v is Readonly<Record<string, unknown>> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Whether a 404 answers a path the server has no route for (`route`: it does not offer that read)
 * or says an object is missing (`object`: the path is offered, this app or entitlement has none).
 * grpc-gateway answers a path it has no route for itself, with `{"code": 5, "message": "Not Found"}`
 * (`http.StatusText(404)`, its `DefaultRoutingErrorHandler`); a proxy in front of it answers in text
 * or HTML; `policy-sim serve` says `Not Found: no route for …` with the reason `ROUTE_NOT_FOUND`. The
 * service's own NOT_FOUND for a missing object carries a message of its own (`app not found`). So:
 * a body that is not a grpc-gateway error, or whose message is exactly `Not Found`, starts `Not
 * Found:` or speaks of no route, or whose `ErrorInfo` reason is `ROUTE_NOT_FOUND`, is `route`;
 * any other is `object`.
 *
 * @example
 * ```ts
 * notFoundOf('{"code":5,"message":"Not Found","details":[]}'); // "route"
 * notFoundOf('{"code":5,"message":"app not found"}'); // "object"
 * notFoundOf("404 page not found"); // "route"
 * ```
 */
export function notFoundOf(text: string): "route" | "object" {
  let j: unknown;
  try {
    j = JSON.parse(text);
  } catch {
    return "route";
  }
  if (!isRecord(j) || typeof j["message"] !== "string") return "route";
  const message = j["message"].trim();
  if (message === "Not Found" || message.startsWith("Not Found:") || /\b(no|unknown) route\b|\broute not found\b/i.test(message)) return "route";
  const details = j["details"];
  if (Array.isArray(details) && details.some((d) => isRecord(d) && d["reason"] === "ROUTE_NOT_FOUND")) return "route";
  return "object";
}

/** The message of a grpc-gateway error body (`{code, message}`), or the first characters of the text. */
function problemOf(text: string): string {
  try {
    const j: unknown = JSON.parse(text);
    if (isRecord(j) && typeof j["message"] === "string") return j["message"];
    if (isRecord(j) && typeof j["error_description"] === "string") return j["error_description"];
  } catch {
    // not JSON: the text itself says it
  }
  return text.slice(0, 200);
}

/**
 * Creates a client. Nothing is sent until the first call; a client secret is checked then.
 *
 * @example
 * ```ts
 * const api = createApiClient({ baseUrl: "http://127.0.0.1:8080", fetch, credentials: { kind: "token", token: "tok-super" } });
 * const r = await api.call("GET", "/api/v1/policies");
 * ```
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const base = options.baseUrl.replace(/\/+$/, "");
  const retries = options.retries ?? 6;
  const timeoutRetries = Math.min(retries, options.timeoutRetries ?? DEFAULT_TIMEOUT_RETRIES);
  const backoff = options.backoffMs ?? 500;
  const maxBackoff = options.maxBackoffMs ?? 60_000;
  const signal = options.signal;
  // A stopped client clears its timer too: a pending minute-long wait would keep the process alive.
  const sleep =
    options.sleep ??
    ((ms: number) =>
      new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        signal?.addEventListener("abort", done, { once: true });
      }));
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const maxListingItems = options.maxListingItems ?? DEFAULT_MAX_LISTING_ITEMS;
  const budget: Budget = { used: 0, read: 0, max: options.maxTotalBytes ?? DEFAULT_MAX_TOTAL_BYTES };
  let bearer: string | undefined = options.credentials.kind === "token" ? options.credentials.token : undefined;
  let signingIn: Promise<Result<string, PullError>> | undefined;

  /**
   * A backoff wait that ends early when the client is stopped: a stopped pull must not wait out a
   * minute-long `Retry-After` before it reports why it stopped.
   */
  function pause(ms: number): Promise<void> {
    if (signal === undefined) return sleep(ms);
    if (signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        signal.removeEventListener("abort", done);
        resolve();
      };
      signal.addEventListener("abort", done, { once: true });
      void sleep(ms).then(done);
    });
  }

  const cancelled = (what: string): { ok: false; error: PullError } => fail("CANCELLED", `${what}: stopped before an answer (the pull was stopped)`);

  /**
   * One HTTP exchange with retries: the response of the last attempt with its whole text, or why
   * none came. An attempt that fails, times out, or whose answer stops arriving part-way is retried
   * like a 429 or a 5xx, but timeouts only `timeoutRetries` times.
   */
  async function send(path: string, init: RequestInit): Promise<Result<Answer, PullError>> {
    const what = `${init.method ?? "GET"} ${path}`;
    let timeouts = 0;
    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) return cancelled(what);
      let answer: Answer | undefined;
      let problem = "";
      let timed = false;
      try {
        // One signal bounds the request and reading its answer.
        const limit = AbortSignal.timeout(timeoutMs);
        const response = await options.fetch(`${base}${path}`, { ...init, signal: signal === undefined ? limit : AbortSignal.any([signal, limit]) });
        answer = { response, text: await textWithin(response, maxResponseBytes, budget) };
      } catch (e: unknown) {
        if (e instanceof TooLarge) return fail(e.code, `${what}: ${e.message}`);
        if (signal?.aborted) return cancelled(what);
        timed = timedOut(e);
        if (timed) problem = `no whole answer within ${seconds(timeoutMs)}`;
        else {
          const network = networkProblem(e);
          problem = network.text;
          if (network.final) return fail("NETWORK_ERROR", `cannot reach ${base}${path}: ${problem}`);
        }
      }
      if (answer && !RETRY_STATUSES.has(answer.response.status)) return { ok: true, value: answer };
      if (timed) timeouts++;
      if (timed && timeouts > timeoutRetries)
        return fail(
          "DEADLINE_EXCEEDED",
          `${what} at ${base}: ${problem} ${timeouts === attempt + 1 ? `on each of ${timeouts} attempts` : `on ${timeouts} of ${attempt + 1} attempts`}; gave up: the server takes requests but does not answer them in time (a longer request timeout gives a slow server more time)`,
        );
      if (attempt >= retries) {
        if (answer) return { ok: true, value: answer };
        return fail("NETWORK_ERROR", `cannot reach ${base}${path}: ${problem} (gave up after ${attempt + 1} attempts)`);
      }
      const exp = Math.min(maxBackoff, backoff * 2 ** attempt);
      const told = answer ? retryAfterMs(answer.response.headers.get("retry-after"), now()) : undefined;
      const status = answer?.response.status ?? null;
      // Waiting out every retry at the cap would still come back too early: say so now, not after them.
      const left = retries - attempt;
      if (answer && told !== undefined && told > maxBackoff * left)
        return fail(
          "RETRY_LATER",
          `${what}: the server answered ${answer.response.status} (${problemOf(answer.text)}) and asked to wait ${duration(told)} (Retry-After: ${answer.response.headers.get("retry-after")}) before trying again; this pull waits at most ${seconds(maxBackoff)} between tries and has ${left} ${left === 1 ? "try" : "tries"} left (${duration(maxBackoff * left)} in all), so it stops now: run it again in ${duration(told)}`,
          answer.response.status,
        );
      const waitMs = Math.min(maxBackoff, told ?? Math.round(exp * (0.5 + random() / 2)));
      const why = status !== null ? `HTTP ${status}` : problem;
      const count = timed ? `timeout ${timeouts} of at most ${timeoutRetries + 1}` : `attempt ${attempt + 1} of at most ${retries + 1}`;
      const asked = told !== undefined && told > waitMs ? ` (the server asked to wait ${duration(told)}; ${seconds(waitMs)} is the longest wait)` : "";
      options.onRetry?.({
        path,
        status,
        reason: status !== null ? "status" : timed ? "timeout" : "network",
        waitMs,
        attempt: attempt + 1,
        message: `${what}: ${why} (${count}); retrying in ${seconds(waitMs)}${asked}`,
      });
      await pause(waitMs);
    }
  }

  async function signIn(): Promise<Result<string, PullError>> {
    const c = options.credentials;
    if (c.kind === "token") return c.token === "" ? fail("UNAUTHENTICATED", "the bearer token is empty") : { ok: true, value: c.token };
    const key = privateKeyOfSecret(c.clientSecret);
    if (!key.ok) return fail("UNAUTHENTICATED", key.error);
    let audience: string;
    try {
      audience = new URL(base).hostname.replace(/^\[|\]$/g, "");
    } catch {
      return fail("INVALID_ARGUMENT", `the base URL "${options.baseUrl}" is not a URL`);
    }
    const form = new URLSearchParams({
      grant_type: "client_credentials",
      client_id: c.clientId,
      client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
      client_assertion: clientAssertion(c.clientId, key.value, audience, now() / 1000),
    });
    const sent = await send("/auth/v1/token", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" }, body: form.toString() });
    if (!sent.ok) return sent;
    const { response, text } = sent.value;
    if (!response.ok) return fail("UNAUTHENTICATED", `the token endpoint refused client "${c.clientId}" (${response.status}): ${problemOf(text)}`, response.status);
    let token: unknown;
    try {
      token = (JSON.parse(text) as Record<string, unknown>)["access_token"];
    } catch {
      token = undefined;
    }
    return typeof token === "string" && token !== "" ? { ok: true, value: token } : fail("BAD_RESPONSE", "the token endpoint answered without an access_token");
  }

  async function token(renew: boolean): Promise<Result<string, PullError>> {
    if (bearer !== undefined && !renew) return { ok: true, value: bearer };
    // Concurrent requests share one sign-in.
    signingIn ??= signIn().finally(() => {
      signingIn = undefined;
    });
    const t = await signingIn;
    if (t.ok) bearer = t.value;
    return t;
  }

  async function call(method: "GET" | "POST", path: string, body?: unknown): Promise<Result<unknown, PullError>> {
    for (let renewed = false; ; renewed = true) {
      const t = await token(renewed);
      if (!t.ok) return t;
      const headers: Record<string, string> = { authorization: `Bearer ${t.value}`, accept: "application/json" };
      if (body !== undefined) headers["content-type"] = "application/json";
      const sent = await send(path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      if (!sent.ok) return sent;
      const { response: res, text } = sent.value;
      // An expired access token: sign in again once (a bearer token from the environment cannot be renewed).
      if (res.status === 401 && !renewed && options.credentials.kind === "client") continue;
      if (res.status === 401) return fail("UNAUTHENTICATED", `${method} ${path}: the server refused the credentials (401): ${problemOf(text)}`, 401);
      if (res.status === 403) return fail("PERMISSION_DENIED", `${method} ${path}: not allowed (403): ${problemOf(text)}; pull needs an administrator's credentials`, 403);
      if (!res.ok) return fail("HTTP_ERROR", `${method} ${path}: ${res.status} ${problemOf(text)}`, res.status, res.status === 404 ? notFoundOf(text) : undefined);
      // The service always answers a JSON object (an empty message is `{}`): an empty 200 is something
      // in the way (a proxy, a gateway), and read as `{}` it was an empty listing, "0 tasks", unsaid.
      if (text.trim() === "") return fail("BAD_RESPONSE", `${method} ${path}: the server answered ${res.status} with an empty body, where the API answers a JSON object (a proxy in the way?)`, res.status);
      try {
        return { ok: true, value: JSON.parse(text) as unknown };
      } catch {
        return fail("BAD_RESPONSE", `${method} ${path}: the answer is not JSON`, res.status);
      }
    }
  }

  async function listOnce(listing: Listing, onPage?: (page: Page) => void): Promise<Result<unknown[], PullError & { readonly pageIndex?: number }>> {
    const items: unknown[] = [];
    const seen = new Set<string>();
    const given = new Set<string>();
    let pageToken = "";
    let emptyInARow = 0;
    let staleInARow = 0;
    for (let pageIndex = 0; ; pageIndex++) {
      let r: Result<unknown, PullError>;
      if (listing.method === "GET") {
        const q = new URLSearchParams();
        if (listing.pageSize) q.set("page_size", String(listing.pageSize));
        if (pageToken !== "") q.set("page_token", pageToken);
        const qs = q.toString();
        r = await call("GET", qs === "" ? listing.path : `${listing.path}${listing.path.includes("?") ? "&" : "?"}${qs}`);
      } else {
        r = await call("POST", listing.path, { ...listing.body, ...(listing.pageSize ? { pageSize: listing.pageSize } : {}), ...(pageToken === "" ? {} : { pageToken }) });
      }
      if (!r.ok) return { ok: false, error: { ...r.error, pageIndex } };
      const body = r.value;
      if (!isRecord(body)) return fail("BAD_RESPONSE", `${listing.method} ${listing.path}: a page is not a JSON object`);
      const list = body["list"] ?? [];
      if (!Array.isArray(list)) return fail("BAD_RESPONSE", `${listing.method} ${listing.path}: the page's "list" is not an array`);
      if (items.length + list.length > maxListingItems)
        return fail("PAGING", `${listing.method} ${listing.path}: the listing ran past ${maxListingItems.toLocaleString("en")} items; stopping instead of collecting without end`);
      let fresh = false;
      for (const item of list) {
        items.push(item);
        // An item without an id (a grant's binding) is told by its content: a page of the same
        // id-less items again is no more new than one of the same ids.
        const key = itemKeyOf(item) ?? contentKey(item);
        if (!given.has(key)) {
          fresh = true;
          if (given.size < MAX_TRACKED_IDS) given.add(key);
        }
      }
      onPage?.({ list, body });
      const next = body["nextPageToken"];
      if (next === undefined || next === null || next === "") return { ok: true, value: items };
      if (typeof next !== "string") return fail("BAD_RESPONSE", `${listing.method} ${listing.path}: nextPageToken is not a string`);
      if (seen.has(next)) return fail("PAGING", `${listing.method} ${listing.path}: the server answered page token "${next.slice(0, 40)}" twice; stopping instead of looping`);
      seen.add(next);
      emptyInARow = list.length === 0 ? emptyInARow + 1 : 0;
      if (emptyInARow >= MAX_EMPTY_PAGES_IN_A_ROW)
        return fail("PAGING", `${listing.method} ${listing.path}: the server answered ${emptyInARow} empty pages in a row, each naming a next page; stopping instead of following it forever`);
      if (list.length > 0) staleInARow = fresh ? 0 : staleInARow + 1;
      if (staleInARow >= MAX_STALE_PAGES_IN_A_ROW)
        return fail(
          "PAGING",
          `${listing.method} ${listing.path}: the server kept answering pages of items it had already given in this listing (${staleInARow} pages in a row, each naming a next page), so its paging is broken; stopping instead of following it until ${maxListingItems.toLocaleString("en")} items`,
        );
      pageToken = next;
    }
  }

  async function list(listing: Listing, onPage?: (page: Page) => void): Promise<Result<unknown[], PullError>> {
    const first = await listOnce(listing, onPage);
    // A page token the server no longer accepts (it expired, or the listing changed under it):
    // start the listing over once, rather than stop with half of it.
    if (!first.ok && (first.error.pageIndex ?? 0) > 0 && (first.error.status === 400 || first.error.status === 404 || first.error.status === 410)) {
      const again = await listOnce(listing, onPage);
      if (again.ok) return again;
      return fail(again.error.code, `${again.error.message} (also after starting the listing over: a page token was refused)`, again.error.status, again.error.notFound);
    }
    if (!first.ok) {
      const { pageIndex: _dropped, ...error } = first.error;
      return { ok: false, error };
    }
    return first;
  }

  return { call, list, bytesRead: () => budget.read };
}
