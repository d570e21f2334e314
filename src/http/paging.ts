/**
 * The service's paging, for every list and search route: GET lists take `page_size` and
 * `page_token` in the query, POST searches `pageSize` and `pageToken` in the body; an answer carries
 * `nextPageToken`, empty on the last page. Sizes are clamped as the OpenAPI documents them ("0 <=
 * pageSize <= 100. Values < 10 will be set to 10. A value of 0 returns the default page size
 * (currently 25)"). Tokens are opaque to clients; here they carry the offset, the id of the last
 * item served (where the listing knows its items' ids) and a fingerprint of the request, so a token
 * is refused with a request it was not issued for, and a check, so a damaged one is refused as such.
 *
 * A listing with ids continues after the last item served, wherever it now stands: a client that
 * closes each page's tasks before asking for the next had skipped a page's worth of tasks each time
 * (37 open tasks walked 10 a page: 20 seen), as an offset counts the closed ones out from under it.
 */
import { err, ok, type Result } from "../result.js";
import { type HttpFailure, refusal } from "./error-body.js";
import { hashKey } from "../world/table.js";

/**
 * How a route clamps page sizes: the size for 0 or absent, the smallest and largest served.
 *
 * @example
 * ```ts
 * const audits: PageLimits = { defaultSize: 25, min: 1, max: 200 };
 * ```
 */
export interface PageLimits {
  readonly defaultSize: number;
  readonly min: number;
  readonly max: number;
}

/**
 * The service's common limits: 0 is 25, below 10 is 10, above 100 is 100.
 *
 * @example
 * ```ts
 * clampPageSize(0, DEFAULT_PAGE_LIMITS); // 25
 * ```
 */
export const DEFAULT_PAGE_LIMITS: PageLimits = { defaultSize: 25, min: 10, max: 100 };

/**
 * A decoded page request: the clamped size and the offset its token stands for.
 *
 * @example
 * ```ts
 * const p: PageRequest = { size: 25, offset: 50, fingerprint: "" };
 * ```
 */
export interface PageRequest {
  readonly size: number;
  readonly offset: number;
  /** What the token was issued for (the route and its filters); "" when the caller gives none. */
  readonly fingerprint: string;
  /** The id of the last item the previous page served, when the listing gave its items' ids. */
  readonly after?: string;
}

/**
 * How a listing's items are told apart, so that its next page continues after the last item served
 * rather than at a count of items that may have changed since.
 *
 * @example
 * ```ts
 * const byId: Cursor<User> = { idOf: (u) => u.id }; // a page continues after the last user served, where it still is
 * ```
 */
export interface Cursor<T> {
  /** An item's id, which the next page's token carries. */
  readonly idOf: (item: T) => string;
  /**
   * Where an item the listing no longer holds would stand: the index in `items` of the first item
   * after it; `undefined` when that cannot be told (then the page starts at the offset).
   */
  readonly after?: (id: string, items: readonly T[]) => number | undefined;
}

/** The longest token read (and so issued), in characters. */
const MAX_TOKEN = 1024;

/**
 * One page of a list: its items and the token of the next page (`""` after the last).
 *
 * @example
 * ```ts
 * const { list, nextPageToken } = pageOf(users, page);
 * ```
 */
export interface Page<T> {
  readonly list: readonly T[];
  readonly nextPageToken: string;
}

/**
 * Clamps a requested size as the OpenAPI documents it.
 *
 * @example
 * ```ts
 * clampPageSize(5, DEFAULT_PAGE_LIMITS); // 10
 * clampPageSize(1000, DEFAULT_PAGE_LIMITS); // 100
 * ```
 */
export function clampPageSize(requested: number, limits: PageLimits = DEFAULT_PAGE_LIMITS): number {
  if (requested <= 0) return limits.defaultSize;
  return Math.min(limits.max, Math.max(limits.min, Math.floor(requested)));
}

const invalidPaging = (message: string, field: string): { ok: false; error: HttpFailure } =>
  err(refusal("INVALID_ARGUMENT", message, { field }));

/** A size from JSON or a query string: an int32 as a number or a decimal string (proto3 JSON allows both). */
function readSize(value: unknown, field: string): Result<number, HttpFailure> {
  if (value === undefined || value === null || value === "") return ok(0);
  const n = typeof value === "number" ? value : typeof value === "string" && /^-?\d{1,10}$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 0 || n > 2147483647) return invalidPaging(`${field} must be a non-negative integer, not ${JSON.stringify(value)}`, field);
  return ok(n);
}

/** base64url of a string's UTF-8, and back (`undefined` for anything that is not one). Portable: no Buffer. */
function toToken(s: string): string {
  let binary = "";
  for (const b of new TextEncoder().encode(s)) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
function fromToken(t: string): string | undefined {
  if (t.length > MAX_TOKEN || !/^[A-Za-z0-9_-]+$/.test(t) || t.length % 4 === 1) return undefined;
  const binary = atob(t.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** A token's text: the offset, the fingerprint, the last id served, and a check of them all. */
function tokenText(offset: number, fingerprint: string, after: string | undefined): string {
  const body = `o${offset}:${fingerprint}:${after ?? ""}`;
  return `${body}:${hashText(body)}`;
}

/**
 * The page token {@link pageOf} issues: the next page starts at `offset`, or after the item `after`
 * names. The check in it finds a damaged token, not a made-up one: anyone may write a token, so
 * what it names is checked where it is used (a task search places a page only by a task the
 * caller may read).
 *
 * @example
 * ```ts
 * pageToken(10, bodyFingerprint({}, "tasks"), "task-1"); // what a search's first page of 10 would answer
 * ```
 */
export function pageToken(offset: number, fingerprint: string, after?: string): string {
  return toToken(tokenText(offset, fingerprint, after));
}

function readToken(value: unknown, field: string, fingerprint: string): Result<{ readonly offset: number; readonly after?: string }, HttpFailure> {
  if (value === undefined || value === null || value === "") return ok({ offset: 0 });
  if (typeof value !== "string") return invalidPaging(`${field} must be a string`, field);
  const text = fromToken(value);
  // A damaged token (cut short, a character changed) fails its check, and is told as no token of this server's.
  const m = text === undefined ? null : /^(o(\d{1,9}):([^:]*):(.*)):([0-9a-z]+)$/s.exec(text);
  if (!m || hashText(m[1] as string) !== m[5]) return invalidPaging(`${field} is not a page token this server issued (it may have been cut short: send it whole, or start again without it)`, field);
  if ((m[3] ?? "") !== fingerprint)
    return invalidPaging(`${field} was issued for a different request: send the same filters with it, or start again without it`, field);
  const after = m[4] ?? "";
  return ok({ offset: Number(m[2]), ...(after === "" ? {} : { after }) });
}

/**
 * A query parameter by its proto name or its JSON name (grpc-gateway takes either); given more than
 * once, under either, it is refused as grpc-gateway refuses a repeated singular field.
 */
function queryField(query: URLSearchParams, proto: string, json: string): Result<string | undefined, HttpFailure> {
  const values = [...query.getAll(proto), ...query.getAll(json)];
  if (values.length > 1) return invalidPaging(`${proto} is given ${values.length} times; give it once`, proto);
  return ok(values[0]);
}

const PAGE_FIELDS = new Set(["pageSize", "pageToken", "page_size", "page_token"]);

/** JSON with object keys sorted, so that two bodies equal but for key order read the same. */
function canonical(v: unknown, depth = 0): string {
  if (depth > 64 || typeof v !== "object" || v === null) return JSON.stringify(v) ?? "null";
  if (Array.isArray(v)) return `[${v.map((x) => canonical(x, depth + 1)).join(",")}]`;
  const keys = Object.keys(v).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k], depth + 1)}`).join(",")}}`;
}

/** The world table's key hash of a text, in base 36: short, and enough to tell two requests apart. */
function hashText(text: string): string {
  return (hashKey(text) >>> 0).toString(36);
}

/**
 * What a page token is tied to: the request's fields but its page size and token (a client walks
 * the pages by sending the same request with each `nextPageToken`, at any page size), in any key
 * order, and the listing it is for (`scope`).
 *
 * @example
 * ```ts
 * bodyFingerprint({ query: "aws", pageToken: "x" }) === bodyFingerprint({ pageSize: 50, query: "aws" }); // true
 * bodyFingerprint({ query: "aws" }) === bodyFingerprint({ query: "gcp" }); // false
 * ```
 */
export function bodyFingerprint(body: Readonly<Record<string, unknown>>, scope = ""): string {
  const rest: Record<string, unknown> = {};
  for (const k of Object.keys(body)) if (!PAGE_FIELDS.has(k)) rest[k] = body[k];
  return hashText(scoped(scope, canonical(rest)));
}

/** A fingerprint's text with the listing it is for: a token of one listing is refused by another (it would skip its items). */
const scoped = (scope: string, text: string): string => (scope === "" ? text : `${scope}\u0000${text}`);

/**
 * {@link bodyFingerprint} of a query string: its parameters but the page's, sorted, with the
 * listing's path as `scope`.
 *
 * @example
 * ```ts
 * queryFingerprint(new URLSearchParams("page_size=5"), "/api/v1/policies") !== queryFingerprint(new URLSearchParams(), "/api/v1/apps"); // true
 * ```
 */
export function queryFingerprint(query: URLSearchParams, scope = ""): string {
  const rest = [...query].filter(([k]) => !PAGE_FIELDS.has(k)).sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  return hashText(scoped(scope, rest.length === 0 ? "{}" : JSON.stringify(rest)));
}

/**
 * Reads a GET list's paging from its query: `page_size`, `page_token` (or their JSON names
 * `pageSize`, `pageToken`, as grpc-gateway reads either).
 *
 * @example
 * ```ts
 * pageFromQuery(new URLSearchParams("page_size=5")); // ok({ size: 10, offset: 0, fingerprint: "…" }): the query's, page fields aside
 * ```
 */
export function pageFromQuery(query: URLSearchParams, fingerprint = queryFingerprint(query), limits: PageLimits = DEFAULT_PAGE_LIMITS): Result<PageRequest, HttpFailure> {
  const sizeText = queryField(query, "page_size", "pageSize");
  if (!sizeText.ok) return sizeText;
  const size = readSize(sizeText.value, "page_size");
  if (!size.ok) return size;
  const tokenText = queryField(query, "page_token", "pageToken");
  if (!tokenText.ok) return tokenText;
  const token = readToken(tokenText.value, "page_token", fingerprint);
  if (!token.ok) return token;
  return ok({ size: clampPageSize(size.value, limits), ...token.value, fingerprint });
}

/**
 * Reads a POST search's paging from its JSON body: `pageSize`, `pageToken`.
 *
 * @example
 * ```ts
 * pageFromBody({ pageSize: 50, pageToken: "" }); // ok({ size: 50, offset: 0, fingerprint: bodyFingerprint({}) })
 * ```
 */
export function pageFromBody(
  body: Readonly<Record<string, unknown>>,
  fingerprint = bodyFingerprint(body),
  limits: PageLimits = DEFAULT_PAGE_LIMITS,
): Result<PageRequest, HttpFailure> {
  const size = readSize(body["pageSize"], "pageSize");
  if (!size.ok) return size;
  const token = readToken(body["pageToken"], "pageToken", fingerprint);
  if (!token.ok) return token;
  return ok({ size: clampPageSize(size.value, limits), ...token.value, fingerprint });
}

/**
 * The page `request` asks for out of `items` (in a stable order the caller chose), with the token
 * of the next page, or `""` when this is the last. With a {@link Cursor}, a page continues after
 * the last item the previous one served: where that item stands now, or where the cursor says it
 * would stand; the offset only when neither can be told.
 *
 * @example
 * ```ts
 * const first = pageOf(["a", "b", "c"], { size: 2, offset: 0, fingerprint: "" }); // list ["a","b"], a token
 * const rest = pageOf(["a", "b", "c"], { size: 2, offset: 2, fingerprint: "" }); // list ["c"], ""
 * pageOf(["b", "c"], { size: 2, offset: 2, fingerprint: "", after: "b" }, { idOf: (x) => x }); // list ["c"]: "a" went, nothing is skipped
 * ```
 */
export function pageOf<T>(items: readonly T[], request: PageRequest, cursor?: Cursor<T>): Page<T> {
  const start = Math.min(items.length, cursor && request.after !== undefined ? startAfter(items, request.after, cursor) ?? request.offset : request.offset);
  const end = start + request.size;
  const list = items.slice(start, end);
  if (end >= items.length) return { list, nextPageToken: "" };
  const lastId = cursor && list.length > 0 ? cursor.idOf(list[list.length - 1] as T) : undefined;
  const token = toToken(tokenText(end, request.fingerprint, lastId));
  // An id too long for a token: the next page starts at the offset.
  return { list, nextPageToken: token.length <= MAX_TOKEN ? token : toToken(tokenText(end, request.fingerprint, undefined)) };
}

/** The index after the item `id` names: where it is, else where the cursor says it would be. */
function startAfter<T>(items: readonly T[], id: string, cursor: Cursor<T>): number | undefined {
  for (let i = 0; i < items.length; i++) if (cursor.idOf(items[i] as T) === id) return i + 1;
  return cursor.after?.(id, items);
}
