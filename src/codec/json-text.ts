/**
 * Writing wire JSON as text or bytes, reusing the text and bytes of JSON that is shared between
 * responses. The codec encodes a frozen value (a world's policy snapshot, its steps, past step
 * instances) once, and every response that carries it refers to the same deep-frozen JSON
 * (`encodedOnce`); this module writes that JSON's text, and encodes its UTF-8 bytes, once too (both
 * cached in WeakMaps keyed by the frozen JSON itself, so they live as long as it does). A response
 * then costs what is new in it, not the 18 KB policy it carries: its fresh part is written in one
 * walk that cuts the shared values out where they stand. The output is `JSON.stringify`'s, byte for
 * byte.
 */
import type { JsonValue } from "../model/json.js";
import { apiAliasOf, apiValueOf, toApiNames, withApiAliases } from "./spec-names.js";

/** JSON objects and arrays known to be deep-frozen and shared (the codec's `encodedOnce` results). */
const shared = new WeakSet<object>();
/** Their text, written the first time one is serialised. */
const texts = new WeakMap<object, string>();
/** Their UTF-8 bytes, encoded the first time one is written as bytes ({@link jsonBytes}). */
const bytesOf = new WeakMap<object, Uint8Array>();
/** The same two, written with the API's names beside the spec's ({@link JsonWriteOptions.apiAliases}). */
const aliasedTexts = new WeakMap<object, string>();
const aliasedBytesOf = new WeakMap<object, Uint8Array>();
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

/** The cached UTF-8 bytes of a shared JSON value written with the API's names beside the spec's. */
function sharedAliasedBytes(v: object): Uint8Array {
  let bytes = aliasedBytesOf.get(v);
  if (bytes === undefined) {
    let text = aliasedTexts.get(v);
    if (text === undefined) {
      text = JSON.stringify(withApiAliases(v));
      aliasedTexts.set(v, text);
    }
    bytes = encoder.encode(text);
    aliasedBytesOf.set(v, bytes);
  }
  return bytes;
}

/**
 * How {@link jsonParts} and {@link jsonBytes} write.
 *
 * @example
 * ```ts
 * const options: JsonWriteOptions = { apiAliases: true };
 * ```
 */
export interface JsonWriteOptions {
  /**
   * Write the API's name beside each key the spec names differently (`batonResourceAction` beside
   * `svcResourceAction`, `c1UserPicker` beside `svcUserPicker`), and a value the API writes in
   * another form in that form (`apiValueOf`: an escalation's `expiration` as int64 seconds), as
   * `withApiAliases` would: what `serve` answers, so that the service's SDKs keep and parse those fields.
   */
  readonly apiAliases?: boolean;
}

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Keys as JSON text with their colon, `"id":`, kept once written: most keys are the schema's, met in
 * every response, and quoting one is the costliest step of writing a key. At most 4,096 are kept, and
 * the table starts afresh when full, so keys from callers' data cannot grow it or crowd the schema's
 * out for good.
 */
const keyTexts = new Map<string, string>();
function keyText(key: string): string {
  let text = keyTexts.get(key);
  if (text === undefined) {
    text = `${quote(key)}:`;
    if (keyTexts.size >= 4096) keyTexts.clear();
    keyTexts.set(key, text);
  }
  return text;
}

/** A string that JSON.stringify would escape: a quote, a backslash, a control character, a surrogate. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A string as JSON text: most need no escaping and are written as they are, the rest by JSON.stringify. */
const quote = (s: string): string => (NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`);

/**
 * Writes JSON text as `JSON.stringify` does (ECMA-262 SerializeJSONProperty, no replacer, no
 * indent), in one walk that puts the cached form of each shared value in its place: the text written
 * so far becomes a part, the shared value's cached form the next. Fresh objects are read once, shared
 * ones not at all. (It was a masked copy written by JSON.stringify and cut at marker strings: two
 * walks, copies, and a search of the text; this is about twice as fast on a task view.) One
 * difference is known, and only for objects no JSON value is: a boxed primitive whose prototype
 * was replaced by `Object.prototype` or `null` is written as an object, where JSON.stringify
 * unboxes it (telling it apart would cost every plain object a check).
 */
class PartWriter<T> {
  readonly parts: (string | T)[] = [];
  text = "";

  /** Inside the value of a key written with its alias: no alias of their own for the keys there. */
  private plain = 0;

  /** `aliased`: write API aliases (and shared values as `aliased` caches them); without it, none. */
  constructor(
    private readonly cached: (v: object) => T,
    private readonly aliased?: (v: object) => T,
  ) {}

  /**
   * Writes `v`, the value of `key` in its holder (an array's index as a number, turned into the
   * string toJSON is given only when one is called); false when JSON leaves it out (undefined, a
   * function, a symbol).
   */
  value(v: unknown, key: string | number): boolean {
    if ((typeof v === "object" && v !== null) || typeof v === "bigint" || typeof v === "function") {
      if (typeof v === "object" && shared.has(v)) {
        // Shared JSON is frozen plain data: no toJSON to call, its form cached.
        if (this.text !== "") this.parts.push(this.text);
        this.text = "";
        this.parts.push(this.aliased !== undefined && this.plain === 0 ? this.aliased(v) : this.cached(v));
        return true;
      }
      const toJSON: unknown = (v as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === "function") v = (toJSON as (k: string) => unknown).call(v, String(key));
    }
    switch (typeof v) {
      case "string":
        this.text += quote(v);
        return true;
      case "number":
        this.text += Number.isFinite(v) ? String(v) : "null";
        return true;
      case "boolean":
        this.text += v ? "true" : "false";
        return true;
      case "object":
        if (v === null) {
          this.text += "null";
          return true;
        }
        // What toJSON returned is written as it is, shared or not (JSON.stringify does not look again).
        if (Array.isArray(v)) this.array(v);
        else if (!this.boxed(v)) this.object(v);
        return true;
      case "bigint":
        throw new TypeError("Do not know how to serialize a BigInt");
      default:
        return false;
    }
  }

  private array(v: readonly unknown[]): void {
    this.text += "[";
    for (let i = 0; i < v.length; i++) {
      if (i > 0) this.text += ",";
      if (!this.value(v[i], i)) this.text += "null";
    }
    this.text += "]";
  }

  private object(v: object): void {
    this.text += "{";
    let first = true;
    // Own enumerable keys in Object.keys order, without the array Object.keys would allocate.
    for (const key in v) {
      if (!hasOwn.call(v, key)) continue;
      const mark = this.text;
      const parts = this.parts.length;
      const name = keyText(key);
      this.text += first ? name : `,${name}`;
      // A left-out value takes its key with it (it can have written nothing: only objects write parts).
      const apiForm = this.aliased !== undefined && this.plain === 0;
      const field = apiForm ? apiValueOf(key, (v as Record<string, unknown>)[key]) : (v as Record<string, unknown>)[key];
      const api = apiForm ? apiAliasOf(key) : undefined;
      if (api === undefined || hasOwn.call(v, api)) {
        if (this.value(field, key)) first = false;
        else if (this.parts.length === parts) this.text = mark;
        continue;
      }
      // The spec's key, then the API's with the same value in the API's names (withApiAliases).
      this.plain++;
      if (this.value(field, key)) {
        first = false;
        this.text += `,${keyText(api)}`;
        this.value(toApiNames(field), api);
      } else if (this.parts.length === parts) this.text = mark;
      this.plain--;
    }
    this.text += "}";
  }

  /**
   * A Number, String, Boolean or BigInt object, written as its primitive (JSON.stringify unboxes
   * them). Told apart by their internal slot, as JSON.stringify does, not by their prototype: a
   * boxed number from another realm is one, an object made from `Number.prototype` is not.
   */
  private boxed(v: object): boolean {
    const proto: unknown = Object.getPrototypeOf(v);
    if (proto === Object.prototype || proto === null) return false;
    if (hasSlot(numberValueOf, v)) this.text += Number.isFinite(Number(v)) ? String(Number(v)) : "null";
    else if (hasSlot(stringValueOf, v)) this.text += quote(String(v));
    else if (hasSlot(booleanValueOf, v)) this.text += booleanValueOf.call(v) ? "true" : "false";
    else if (hasSlot(bigintValueOf, v)) throw new TypeError("Do not know how to serialize a BigInt");
    else return false;
    return true;
  }
}

const numberValueOf = Number.prototype.valueOf;
const stringValueOf = String.prototype.valueOf;
const booleanValueOf = Boolean.prototype.valueOf;
const bigintValueOf = BigInt.prototype.valueOf;

/** Whether `v` carries the primitive slot whose `valueOf` this is (the methods throw on anything else). */
function hasSlot(valueOf: (this: never) => unknown, v: object): boolean {
  try {
    (valueOf as (this: object) => unknown).call(v);
    return true;
  } catch {
    return false;
  }
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
export function jsonParts(value: JsonValue, options: JsonWriteOptions = {}): readonly (string | Uint8Array)[] {
  return split(value, sharedBytes, options.apiAliases === true ? sharedAliasedBytes : undefined);
}

/**
 * `JSON.stringify(value)` cut where the shared values in it go: the text around them, and `cached`
 * of each shared value in their place. A value JSON leaves out is `"null"`. Like JSON.stringify, it
 * throws on a BigInt and on a cycle (here a RangeError): JSON values have neither.
 */
function split<T>(value: JsonValue, cached: (v: object) => T, aliased?: (v: object) => T): (string | T)[] {
  const w = new PartWriter(cached, aliased);
  if (!w.value(value, "")) return ["null"];
  if (w.text !== "" || w.parts.length === 0) w.parts.push(w.text);
  return w.parts;
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
export function jsonBytes(value: JsonValue, options: JsonWriteOptions = {}): Uint8Array {
  const parts = jsonParts(value, options);
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
