/**
 * The service's paging, for every list and search route: GET lists take `page_size` and
 * `page_token` in the query, POST searches `pageSize` and `pageToken` in the body; an answer carries
 * `nextPageToken`, empty on the last page. Sizes are clamped as the OpenAPI documents them ("0 <=
 * pageSize <= 100. Values < 10 will be set to 10. A value of 0 returns the default page size
 * (currently 25)"). Tokens are opaque to clients; here they carry the offset and a fingerprint of
 * the request, so a token is refused with a request it was not issued for.
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
}

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
  if (!/^[A-Za-z0-9_-]{1,1024}$/.test(t) || t.length % 4 === 1) return undefined;
  const binary = atob(t.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function readToken(value: unknown, field: string, fingerprint: string): Result<number, HttpFailure> {
  if (value === undefined || value === null || value === "") return ok(0);
  if (typeof value !== "string") return invalidPaging(`${field} must be a string`, field);
  const text = fromToken(value);
  const m = text === undefined ? null : /^o(\d{1,9}):(.*)$/s.exec(text);
  if (!m) return invalidPaging(`${field} is not a page token this server issued`, field);
  if ((m[2] ?? "") !== fingerprint)
    return invalidPaging(`${field} was issued for a different request: send the same filters with it, or start again without it`, field);
  return ok(Number(m[1]));
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
  const offset = readToken(tokenText.value, "page_token", fingerprint);
  if (!offset.ok) return offset;
  return ok({ size: clampPageSize(size.value, limits), offset: offset.value, fingerprint });
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
  const offset = readToken(body["pageToken"], "pageToken", fingerprint);
  if (!offset.ok) return offset;
  return ok({ size: clampPageSize(size.value, limits), offset: offset.value, fingerprint });
}

/**
 * The page `request` asks for out of `items` (in a stable order the caller chose), with the token
 * of the next page, or `""` when this is the last.
 *
 * @example
 * ```ts
 * const first = pageOf(["a", "b", "c"], { size: 2, offset: 0, fingerprint: "" }); // list ["a","b"], a token
 * const rest = pageOf(["a", "b", "c"], { size: 2, offset: 2, fingerprint: "" }); // list ["c"], ""
 * ```
 */
export function pageOf<T>(items: readonly T[], request: PageRequest): Page<T> {
  const end = request.offset + request.size;
  const list = items.slice(request.offset, end);
  return { list, nextPageToken: end < items.length ? toToken(`o${end}:${request.fingerprint}`) : "" };
}
