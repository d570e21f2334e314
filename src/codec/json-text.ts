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
