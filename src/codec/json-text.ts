/**
 * Writing wire JSON as text or bytes, reusing the text and bytes of JSON that is shared between
 * responses. The codec encodes a frozen value (a world's policy snapshot, its steps, past step
 * instances) once, and every response that carries it refers to the same deep-frozen JSON
 * (`encodedOnce`); this module writes that JSON's text, and encodes its UTF-8 bytes, once too (both
 * cached in WeakMaps keyed by the frozen JSON itself, so they live as long as it does). A response
 * then costs what is new in it, not the 18 KB policy it carries: its fresh part is written by one
 * `JSON.stringify` of a copy in which each shared value is a marker, and cut at the markers. The
 * output is `JSON.stringify`'s, byte for byte.
 */
import type { JsonValue } from "../model/json.js";

/** JSON objects and arrays known to be deep-frozen and shared (the codec's `encodedOnce` results). */
const shared = new WeakSet<object>();
/** Their text, written the first time one is serialised. */
const texts = new WeakMap<object, string>();
/** Their UTF-8 bytes, encoded the first time one is written as bytes ({@link jsonBytes}). */
const bytesOf = new WeakMap<object, Uint8Array>();
const encoder = new TextEncoder();

/**
 * Marks deep-frozen JSON as shared, so {@link jsonText} writes its text once. Only for JSON that can
 * never change: it must be deep-frozen.
 *
 * @example
 * ```ts
 * markSharedJson(freezeJson(encodePolicy(policy)));
 * ```
 */
export function markSharedJson(json: JsonValue): void {
  if (typeof json === "object" && json !== null && Object.isFrozen(json)) shared.add(json);
}

/**
 * `JSON.stringify(value)` for wire JSON, with the text of shared JSON written once and reused.
 *
 * @example
 * ```ts
 * jsonText({ taskView: { task }, expanded: [] }) === JSON.stringify({ taskView: { task }, expanded: [] }); // true
 * ```
 */
export function jsonText(value: JsonValue): string {
  let out = "";
  for (const p of split(value, sharedText)) out += p;
  return out;
}

/** The cached text of a shared JSON value, written the first time it is asked for. */
function sharedText(v: object): string {
  let text = texts.get(v);
  if (text === undefined) {
    text = JSON.stringify(v);
    texts.set(v, text);
  }
  return text;
}

/** The cached UTF-8 bytes of a shared JSON value, encoded the first time they are asked for. */
function sharedBytes(v: object): Uint8Array {
  let bytes = bytesOf.get(v);
  if (bytes === undefined) {
    bytes = encoder.encode(sharedText(v));
    bytesOf.set(v, bytes);
  }
  return bytes;
}

const hasToJson = (v: object): boolean => typeof (v as { toJSON?: unknown }).toJSON === "function";

/**
 * Stands in for a shared value in the masked copy that `JSON.stringify` writes. Control characters
 * are escaped in JSON text, so the marker is written as `"\u0000…\u0000"`. Text a caller wrote could
 * contain the same sequence; then the markers found outnumber the values masked, and the value is
 * written whole instead (`jsonParts`).
 */
const MARK = "\u0000policy-sim:shared-json\u0000";
const MARK_TEXT = JSON.stringify(MARK);

/**
 * `v` with every shared value in or under it replaced by {@link MARK}, each recorded in `found` in
 * the order `JSON.stringify` writes them (own keys in `Object.keys` order, items in order): one walk
 * of the fresh part. Only objects on the way to a shared value are copied (a spread of a fresh object
 * is a native clone); anything holding none is returned as it is, and so is `v`.
 */
function masked(v: object, found: object[]): object {
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      const m = maskedValue(x, found);
      if (m !== x) (out ??= v.slice())[i] = m;
    }
    return out ?? v;
  }
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(v)) {
    const x: unknown = (v as Record<string, unknown>)[key];
    const m = maskedValue(x, found);
    if (m === x) continue;
    out ??= { ...(v as Record<string, unknown>) };
    // An own "__proto__" key stays a key (assignment would set the copy's prototype).
    if (key === "__proto__") Object.defineProperty(out, key, { value: m, enumerable: true, writable: true, configurable: true });
    else out[key] = m;
  }
  return out ?? v;
}

/** One value of {@link masked}: the marker for a shared value, a masked copy, or the value itself. */
function maskedValue(x: unknown, found: object[]): unknown {
  if (typeof x !== "object" || x === null) return x;
  if (shared.has(x)) {
    found.push(x);
    return MARK;
  }
  // JSON.stringify writes what toJSON returns: not walked, as shared values never have one.
  return hasToJson(x) ? x : masked(x, found);
}

/**
 * `JSON.stringify(value)` as parts: strings of text written for this value, and the UTF-8 bytes of
 * the shared JSON it carries (see {@link markSharedJson}), cached and never to be written to. The
 * UTF-8 encoding of the strings followed by the bytes, in order, is exactly `JSON.stringify(value)`
 * encoded (`"null"` for a value JSON leaves out). A transport that assembles these copies the bytes
 * of a policy snapshot instead of writing and encoding its text again.
 *
 * @example
 * ```ts
 * jsonParts({ ok: true }); // ['{"ok":true}']
 * ```
 */
export function jsonParts(value: JsonValue): readonly (string | Uint8Array)[] {
  return split(value, sharedBytes);
}

/**
 * `JSON.stringify(value)` cut where the shared values in it go: the text around them, and `cached`
 * of each shared value in their place.
 */
function split<T>(value: JsonValue, cached: (v: object) => T): (string | T)[] {
  if (typeof value !== "object" || value === null || hasToJson(value)) return [JSON.stringify(value) ?? "null"];
  if (shared.has(value)) return [cached(value)];
  // The fresh part is written by one native call, with markers where the shared values go.
  const found: object[] = [];
  const copy = masked(value, found);
  if (found.length === 0) return [JSON.stringify(value)];
  const text = JSON.stringify(copy);
  const parts: (string | T)[] = [];
  let from = 0;
  for (const v of found) {
    const at = text.indexOf(MARK_TEXT, from);
    if (at < 0) return [JSON.stringify(value)];
    if (at > from) parts.push(text.slice(from, at));
    parts.push(cached(v));
    from = at + MARK_TEXT.length;
  }
  // One marker more means a caller's text spelled one: the positions cannot be trusted.
  if (text.indexOf(MARK_TEXT, from) >= 0) return [JSON.stringify(value)];
  if (from < text.length) parts.push(text.slice(from));
  return parts;
}

/**
 * `JSON.stringify(value)` as UTF-8 bytes, with the bytes of shared JSON (see
 * {@link markSharedJson}) encoded once and copied into every answer that carries them: a transport
 * then encodes only what is new in a response, instead of flattening and encoding one long string.
 *
 * @example
 * ```ts
 * new TextDecoder().decode(jsonBytes({ ok: true })); // '{"ok":true}'
 * ```
 */
export function jsonBytes(value: JsonValue): Uint8Array {
  const parts = jsonParts(value);
  let bound = 0;
  for (const p of parts) bound += typeof p === "string" ? p.length * 3 : p.byteLength;
  const out = new Uint8Array(bound);
  let at = 0;
  for (const p of parts) {
    if (typeof p === "string") at += encoder.encodeInto(p, out.subarray(at)).written;
    else {
      out.set(p, at);
      at += p.byteLength;
    }
  }
  return at === bound ? out : out.subarray(0, at);
}
