/**
 * The service's paging: GET lists take `page_size`/`page_token` query parameters, POST searches take
 * `pageSize`/`pageToken` in the body; every answer carries `nextPageToken`, "" on the last page.
 * Sizes follow the OpenAPI: 0 (or none) is the default 25, below 10 becomes 10, above 100 becomes 100.
 * A page token is opaque to clients; ours is the offset of the next item, so it stays valid while
 * the world only grows at the end (which is how the simulation adds tasks).
 */
import { err, ok, type Result } from "../../result.js";
import type { HttpFailure } from "../error-body.js";

/**
 * The page size when none is asked for.
 *
 * @example
 * ```ts
 * clampPageSize(0); // DEFAULT_PAGE_SIZE (25)
 * ```
 */
export const DEFAULT_PAGE_SIZE = 25;
/**
 * The smallest page the service returns.
 *
 * @example
 * ```ts
 * clampPageSize(3); // MIN_PAGE_SIZE (10)
 * ```
 */
export const MIN_PAGE_SIZE = 10;
/**
 * The largest page the service returns.
 *
 * @example
 * ```ts
 * clampPageSize(5000); // MAX_PAGE_SIZE (100)
 * ```
 */
export const MAX_PAGE_SIZE = 100;

/**
 * A page request, decoded: how many items, and from which offset.
 *
 * @example
 * ```ts
 * const p: PageRequest = { size: 25, offset: 50 };
 * ```
 */
export interface PageRequest {
  readonly size: number;
  readonly offset: number;
}

/**
 * The page size the service would use for `asked` ("The pageSize where 0 <= pageSize <= 100.
 * Values < 10 will be set to 10. A value of 0 returns the default page size (currently 25)").
 *
 * @example
 * ```ts
 * [0, 1, 10, 50, 101].map(clampPageSize); // [25, 10, 10, 50, 100]
 * ```
 */
export function clampPageSize(asked: number): number {
  if (asked <= 0) return DEFAULT_PAGE_SIZE;
  return Math.min(MAX_PAGE_SIZE, Math.max(MIN_PAGE_SIZE, Math.floor(asked)));
}

const TOKEN_PREFIX = "o";

/**
 * The token of the page starting at `offset`.
 *
 * @example
 * ```ts
 * decodePageToken(encodePageToken(50)); // ok(50)
 * ```
 */
export function encodePageToken(offset: number): string {
  return Buffer.from(`${TOKEN_PREFIX}${offset}`, "utf8").toString("base64url");
}

const invalid = (field: string, message: string) =>
  err<HttpFailure>({ status: 400, code: "INVALID_ARGUMENT", reason: "INVALID_ARGUMENT", message, field });

/**
 * The offset in a page token; "" is the first page.
 *
 * @example
 * ```ts
 * decodePageToken(""); // ok(0)
 * ```
 */
export function decodePageToken(token: string, field = "pageToken"): Result<number, HttpFailure> {
  if (token === "") return ok(0);
  const text = /^[A-Za-z0-9_-]{1,24}$/.test(token) ? Buffer.from(token, "base64url").toString("utf8") : "";
  const m = /^o(\d{1,9})$/.exec(text);
  if (!m) return invalid(field, `${field} is not a token this server gave: start again with an empty ${field}`);
  return ok(Number(m[1]));
}

function sizeOf(value: unknown, field: string): Result<number, HttpFailure> {
  if (value === undefined || value === null || value === "") return ok(DEFAULT_PAGE_SIZE);
  const n = typeof value === "string" && /^-?\d{1,10}$/.test(value.trim()) ? Number(value) : value;
  if (typeof n !== "number" || !Number.isInteger(n)) return invalid(field, `${field} must be an integer from 0 to 100`);
  if (n < 0) return invalid(field, `${field} must not be negative (0 means the default, ${DEFAULT_PAGE_SIZE})`);
  return ok(clampPageSize(n));
}

/**
 * The page a POST search asks for, from its body's `pageSize` and `pageToken`.
 *
 * @example
 * ```ts
 * pageFromBody({ pageSize: 5, pageToken: "" }); // ok({ size: 10, offset: 0 })
 * ```
 */
export function pageFromBody(body: Readonly<Record<string, unknown>>): Result<PageRequest, HttpFailure> {
  const size = sizeOf(body["pageSize"], "pageSize");
  if (!size.ok) return size;
  const token = body["pageToken"];
  if (token !== undefined && token !== null && typeof token !== "string") return invalid("pageToken", "pageToken must be a string");
  const offset = decodePageToken(typeof token === "string" ? token : "", "pageToken");
  if (!offset.ok) return offset;
  return ok({ size: size.value, offset: offset.value });
}

/**
 * The page a GET list asks for, from its `page_size` and `page_token` query parameters.
 *
 * @example
 * ```ts
 * pageFromQuery(new URL("http://sim/api/v1/users?page_size=50").searchParams); // ok({ size: 50, offset: 0 })
 * ```
 */
export function pageFromQuery(query: URLSearchParams): Result<PageRequest, HttpFailure> {
  const size = sizeOf(query.get("page_size") ?? query.get("pageSize") ?? undefined, "page_size");
  if (!size.ok) return size;
  const offset = decodePageToken(query.get("page_token") ?? query.get("pageToken") ?? "", "page_token");
  if (!offset.ok) return offset;
  return ok({ size: size.value, offset: offset.value });
}

/**
 * One page of `items` and the token of the next ("" when this is the last).
 *
 * @example
 * ```ts
 * pageOf([1, 2, 3], { size: 2, offset: 0 }); // { items: [1, 2], nextPageToken: "bzI" }
 * ```
 */
export function pageOf<T>(items: readonly T[], page: PageRequest): { readonly items: readonly T[]; readonly nextPageToken: string } {
  const end = page.offset + page.size;
  return { items: items.slice(page.offset, end), nextPageToken: end < items.length ? encodePageToken(end) : "" };
}
