/**
 * Reading a request body as a JSON object: the media type, the size limit (enforced while
 * reading, so an oversized body is never held in memory), UTF-8, JSON, and "must be an object".
 */
import { err, ok, type Result } from "../result.js";
import { MAX_JSON_DEPTH } from "../world/read.js";
import type { HttpFailure } from "./error-body.js";

/**
 * The default largest request body, in bytes: 1 MiB. A Hard Reset or Comment body is a comment and
 * an expand mask; anything near this size is a mistake or abuse.
 *
 * @example
 * ```ts
 * createFetchHandler(store, { maxBodyBytes: DEFAULT_MAX_BODY_BYTES * 4 });
 * ```
 */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

const badRequest = (reason: string, message: string): HttpFailure => ({ status: 400, code: "INVALID_ARGUMENT", reason, message });

/**
 * Refuses a body that is clearly not JSON. Lenient on purpose: no Content-Type is fine, and so is
 * `text/plain`, because `fetch(url, { body: JSON.stringify(x) })` sends that by default. Refused:
 * form encodings, XML, binary and anything else, and any Content-Encoding but identity (a gzip body
 * would otherwise surface as a baffling "invalid JSON").
 */
export function mediaTypeFailure(header: (name: string) => string | undefined, kind: "json" | "form" = "json"): HttpFailure | undefined {
  const encoding = header("content-encoding")?.trim().toLowerCase() ?? "";
  if (encoding !== "" && encoding !== "identity")
    return {
      status: 415,
      code: "INVALID_ARGUMENT",
      reason: "UNSUPPORTED_CONTENT_ENCODING",
      message: `Content-Encoding "${encoding}" is not supported: send the JSON body uncompressed`,
    };
  const contentType = header("content-type");
  if (contentType === undefined) return undefined;
  const type = (contentType.split(";")[0] ?? "").trim().toLowerCase();
  if (kind === "form") {
    // RFC 6749 posts forms; a client that posts the same fields as JSON is served too.
    if (type === "" || type === "application/x-www-form-urlencoded" || type === "application/json") return undefined;
    return {
      status: 415,
      code: "INVALID_ARGUMENT",
      reason: "UNSUPPORTED_MEDIA_TYPE",
      message: `Content-Type "${type}" is not supported: send "application/x-www-form-urlencoded"`,
      headers: { "accept-post": "application/x-www-form-urlencoded" },
    };
  }
  if (type === "" || type === "application/json" || type === "text/json" || type === "text/plain" || /^[a-z]+\/[^/]+\+json$/.test(type))
    return undefined;
  return {
    status: 415,
    code: "INVALID_ARGUMENT",
    reason: "UNSUPPORTED_MEDIA_TYPE",
    message: `Content-Type "${type}" is not supported: send "application/json"`,
    headers: { "accept-post": "application/json" },
  };
}

/**
 * The 413 for a body over `limit` bytes.
 *
 * @example
 * ```ts
 * tooLarge(1024).status; // 413
 * ```
 */
export function tooLarge(limit: number): HttpFailure {
  return {
    status: 413,
    // What gRPC itself answers for a message over its size limit.
    code: "RESOURCE_EXHAUSTED",
    reason: "BODY_TOO_LARGE",
    message: `request body is larger than ${limit} bytes`,
    metadata: { limitBytes: String(limit) },
  };
}

/**
 * A web Request's body bytes, refusing as soon as more than `limit` arrived.
 *
 * @example
 * ```ts
 * const bytes = await readLimited(request, DEFAULT_MAX_BODY_BYTES);
 * ```
 */
export async function readLimited(request: Request, limit: number): Promise<Result<Uint8Array, HttpFailure>> {
  // A declared length over the limit is refused without reading a byte; node:http then discards
  // the unread body itself.
  const declared = request.headers.get("content-length")?.trim() ?? "";
  if (/^\d+$/.test(declared) && Number(declared) > limit) return err(tooLarge(limit));
  if (request.body === null) return ok(new Uint8Array(0));
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      // Cancelling tells the source we will not read the rest (serve() then drains it unbuffered).
      reader.cancel().catch(() => undefined);
      return err(tooLarge(limit));
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return ok(bytes);
}

/**
 * Parses body bytes as a JSON object. An empty (or all-whitespace) body is `{}`, as grpc-gateway
 * treats it. 400 for invalid UTF-8, malformed JSON, or JSON that is not an object.
 *
 * @example
 * ```ts
 * parseJsonObject(new TextEncoder().encode('{"comment":"hi"}')); // { ok: true, value: { comment: "hi" } }
 * ```
 */
export function parseJsonObject(bytes: Uint8Array): Result<Readonly<Record<string, unknown>>, HttpFailure> {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return err(badRequest("MALFORMED_JSON", "request body is not valid UTF-8"));
  }
  return parseJsonText(text);
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * Parses body text as a JSON object (see {@link parseJsonObject}).
 *
 * @example
 * ```ts
 * parseJsonText("[]").ok; // false: BODY_NOT_OBJECT
 * ```
 */
export function parseJsonText(text: string): Result<Readonly<Record<string, unknown>>, HttpFailure> {
  if (text.length === 0 || text.trim() === "") return ok({});
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e: unknown) {
    return err(badRequest("MALFORMED_JSON", `request body is not valid JSON: ${e instanceof Error ? e.message : String(e)}`));
  }
  if (typeof json !== "object" || json === null || Array.isArray(json))
    return err(badRequest("BODY_NOT_OBJECT", `request body must be a JSON object, not ${json === null ? "null" : Array.isArray(json) ? "an array" : typeof json}`));
  if (nestsDeeperThan(json, MAX_JSON_DEPTH))
    return err(
      badRequest(
        "BODY_TOO_DEEP",
        `request body nests more than ${MAX_JSON_DEPTH} levels; the world keeps values at most ${MAX_JSON_DEPTH} levels deep, so a deeper one could be accepted but never saved and loaded again`,
      ),
    );
  return ok(json as Readonly<Record<string, unknown>>);
}

/**
 * Whether parsed JSON nests more than `max` levels of objects and arrays below its top: walked
 * with an explicit stack, so no depth can overflow ours. A world keeps values at most
 * {@link MAX_JSON_DEPTH} levels deep (`loadWorld` refuses deeper ones), and a request's values end up
 * in the world (annotations, kept fields, form values): refused here, a body cannot make the
 * world it changes one that `--out` writes but `loadWorld` refuses.
 */
function nestsDeeperThan(json: object, max: number): boolean {
  const stack: [object, number][] = [[json, 0]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [value, depth] = top;
    const items: unknown[] = Array.isArray(value) ? value : Object.values(value);
    for (const item of items)
      if (typeof item === "object" && item !== null) {
        if (depth + 1 > max) return true;
        stack.push([item, depth + 1]);
      }
  }
  return false;
}

/**
 * Parses body bytes as an HTML form (`application/x-www-form-urlencoded`, RFC 6749's token
 * request) into an object of strings; a repeated name keeps its first value.
 *
 * @example
 * ```ts
 * parseForm(new TextEncoder().encode("grant_type=client_credentials")); // ok({ grant_type: "client_credentials" })
 * ```
 */
export function parseForm(bytes: Uint8Array): Result<Readonly<Record<string, unknown>>, HttpFailure> {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return err(badRequest("MALFORMED_FORM", "request body is not valid UTF-8"));
  }
  // No prototype: a field named "__proto__" is a field, not a prototype.
  const out = Object.create(null) as Record<string, string>;
  for (const [k, v] of new URLSearchParams(text)) if (!Object.hasOwn(out, k)) out[k] = v;
  return ok(out);
}
