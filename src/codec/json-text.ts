/**
 * Writing wire JSON as text, reusing the text of JSON that is shared between responses. The codec
 * encodes a frozen value (a world's policy snapshot, its steps, past step instances) once, and every
 * response that carries it refers to the same deep-frozen JSON (`encodedOnce`); this module writes
 * that JSON's text once too, so a response costs what is new in it, not the 18 KB policy it
 * carries. The output is `JSON.stringify`'s, byte for byte.
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
  return write(value) ?? "null";
}

function write(v: unknown): string | undefined {
  switch (typeof v) {
    case "string":
      return JSON.stringify(v);
    case "number":
    case "boolean":
      return JSON.stringify(v);
    case "object": {
      if (v === null) return "null";
      const known = texts.get(v);
      if (known !== undefined) return known;
      if (shared.has(v)) {
        const text = JSON.stringify(v);
        texts.set(v, text);
        return text;
      }
      // Anything that is not plain JSON (toJSON) gets JSON.stringify's own treatment.
      if (typeof (v as { toJSON?: unknown }).toJSON === "function") return JSON.stringify(v);
      if (Array.isArray(v)) {
        if (v.every((x) => typeof x !== "object" || x === null)) return JSON.stringify(v);
        let out = "[";
        for (let i = 0; i < v.length; i++) {
          if (i > 0) out += ",";
          out += write(v[i]) ?? "null";
        }
        return `${out}]`;
      }
      const keys = Object.keys(v);
      // A fresh object of primitives only (most of a task view): the native writer is faster.
      let leaf = true;
      for (const key of keys) {
        const x = (v as Record<string, unknown>)[key];
        if (typeof x === "object" && x !== null) {
          leaf = false;
          break;
        }
      }
      if (leaf) return JSON.stringify(v);
      let out = "{";
      let first = true;
      for (const key of keys) {
        const text = write((v as Record<string, unknown>)[key]);
        if (text === undefined) continue;
        out += `${first ? "" : ","}${JSON.stringify(key)}:${text}`;
        first = false;
      }
      return `${out}}`;
    }
    case "bigint":
      // What JSON.stringify does (a TypeError): wire JSON has no bigint.
      return JSON.stringify(v);
    default:
      // undefined, functions and symbols: left out of objects, null in arrays.
      return undefined;
  }
}

/** Keys as JSON writes them: the field names of a response are a small set, quoted once each. */
const quotedKeys = new Map<string, string>();
const MAX_QUOTED_KEYS = 4096;

function quotedKey(key: string): string {
  let q = quotedKeys.get(key);
  if (q === undefined) {
    q = JSON.stringify(key);
    // Bounded: map keys (annotations, profiles) are anyone's; past the bound they are quoted each time.
    if (quotedKeys.size < MAX_QUOTED_KEYS) quotedKeys.set(key, q);
  }
  return q;
}

/** Where {@link emit} writes: text, or a shared JSON value (written from its cache). */
interface JsonSink {
  text(s: string): void;
  shared(v: object): void;
}

/** Writes `v` as JSON.stringify would into `sink`; false (nothing written) for a value JSON leaves out. */
function emit(v: unknown, sink: JsonSink): boolean {
  if (typeof v !== "object" || v === null || typeof (v as { toJSON?: unknown }).toJSON === "function") {
    const t = write(v);
    if (t === undefined) return false;
    sink.text(t);
    return true;
  }
  if (shared.has(v)) {
    sink.shared(v);
    return true;
  }
  if (Array.isArray(v)) {
    if (v.every((x) => typeof x !== "object" || x === null)) {
      sink.text(JSON.stringify(v));
      return true;
    }
    sink.text("[");
    for (let i = 0; i < v.length; i++) {
      if (i > 0) sink.text(",");
      if (!emit(v[i], sink)) sink.text("null");
    }
    sink.text("]");
    return true;
  }
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.every((k) => typeof o[k] !== "object" || o[k] === null)) {
    sink.text(JSON.stringify(o));
    return true;
  }
  sink.text("{");
  let first = true;
  for (const key of keys) {
    const x = o[key];
    const nested = typeof x === "object" && x !== null && typeof (x as { toJSON?: unknown }).toJSON !== "function";
    const t = nested ? "" : write(x);
    if (t === undefined) continue;
    sink.text(`${first ? "" : ","}${quotedKey(key)}:${t}`);
    if (nested) emit(x, sink);
    first = false;
  }
  sink.text("}");
  return true;
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
  const parts: Uint8Array[] = [];
  let pending = "";
  let total = 0;
  let pendingOnly = true;
  const flush = (): void => {
    if (pending === "") return;
    const e = encoder.encode(pending);
    parts.push(e);
    total += e.byteLength;
    pending = "";
  };
  const sink: JsonSink = {
    text(s) {
      pending += s;
    },
    shared(v) {
      let bytes = bytesOf.get(v);
      if (bytes === undefined) {
        bytes = encoder.encode(texts.get(v) ?? JSON.stringify(v));
        bytesOf.set(v, bytes);
      }
      flush();
      parts.push(bytes);
      total += bytes.byteLength;
      pendingOnly = false;
    },
  };
  if (!emit(value, sink)) pending = "null";
  flush();
  // A part of its own is returned as it is, unless it is a cached one (the caller may write to it).
  if (parts.length === 1 && parts[0] !== undefined) return pendingOnly ? parts[0] : parts[0].slice();
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}
