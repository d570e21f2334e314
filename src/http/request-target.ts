/**
 * The request target as the router sees it: the raw path split into segments, each percent-decoded
 * once, and the query. Nothing is normalised: a path that a normaliser would turn into another
 * route (`…/comment/../reset`, `…/comment/%2e%2e/reset`, `…\action\reset`, an encoded slash) is
 * refused, so one route can never be reached through the spelling of another.
 */
import { err, ok, type Result } from "../result.js";
import { type HttpFailure, refusal } from "./error-body.js";

/**
 * A request target, split: the decoded path segments and the query string's parameters.
 *
 * @example
 * ```ts
 * const t = parseRequestTarget("/api/v1/tasks/1001?x=1");
 * if (t.ok) t.value.segments; // ["api", "v1", "tasks", "1001"]
 * ```
 */
export interface RequestTarget {
  /** The path as sent (before the query), for messages. */
  readonly path: string;
  /** Each segment percent-decoded once; the leading empty segment of `/` is not included. */
  readonly segments: readonly string[];
  readonly query: URLSearchParams;
}

const badPath = (message: string): HttpFailure => refusal("INVALID_ARGUMENT", message, { reason: "INVALID_PATH" });

/**
 * Splits and checks a raw request target (origin-form, as the request line carries it). Refused
 * with 400 `INVALID_PATH`: a backslash, an encoded slash or backslash (`%2F`, `%5C`), a `.` or `..`
 * segment in any spelling (`%2e`), invalid percent-encoding, and control characters. Empty
 * segments are kept as they are (no route has one, so `//` matches nothing). An absolute-form target (`http://host/path`) is reduced to its path.
 *
 * @example
 * ```ts
 * parseRequestTarget("/api/v1/tasks/1001/action/comment/../reset").ok; // false: never a Hard Reset
 * parseRequestTarget("/api/v1/tasks/100%31/action/comment"); // segments [..., "1001", ...]
 * ```
 */
export function parseRequestTarget(raw: string): Result<RequestTarget, HttpFailure> {
  let target = raw;
  if (!target.startsWith("/")) {
    // absolute-form (RFC 9112 §3.2.2): only the path and query matter to us.
    const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(target);
    if (!m) return err(badPath(`request target "${printable(raw)}" is not a path`));
    target = target.slice(m[0].length) || "/";
    if (!target.startsWith("/")) target = `/${target}`;
  }
  const q = target.indexOf("?");
  const path = q < 0 ? target : target.slice(0, q);
  const query = new URLSearchParams(q < 0 ? "" : target.slice(q + 1));
  if (/[\\\x00-\x1f\x7f#]/.test(path)) return err(badPath(`path "${printable(path)}" contains a backslash or a control character`));
  if (/%(2f|5c)/i.test(path)) return err(badPath(`path "${printable(path)}" contains an encoded slash or backslash`));
  const raws = path === "/" ? [] : path.slice(1).split("/");
  const segments: string[] = [];
  for (const s of raws) {
    let decoded: string;
    if (s.includes("%")) {
      try {
        decoded = decodeURIComponent(s);
      } catch {
        return err(badPath(`path segment "${printable(s)}" is not valid percent-encoding`));
      }
    } else decoded = s;
    if (decoded === "." || decoded === "..") return err(badPath(`path "${printable(path)}" contains a dot segment; send the path as it is meant`));
    segments.push(decoded);
  }
  return ok({ path, segments, query });
}

/** The target for a message: control characters escaped, at most 200 characters. */
function printable(s: string): string {
  const shown = s.replace(/[\x00-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
  return shown.length > 200 ? `${shown.slice(0, 200)}…` : shown;
}
