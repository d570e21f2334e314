/**
 * The words the what-if inputs' checks (options, task specs) use for what a caller gave.
 */
import { describeValue } from "../codec/diagnostic.js";

/**
 * A plain object: not an array, and not a Map, Date or boxed string, whose entries `Object.keys`
 * would not see.
 *
 * @example
 * ```ts
 * isPlainRecord({ a: 1 }); // true
 * isPlainRecord(new Map()); // false
 * ```
 */
export function isPlainRecord(v: unknown): v is Readonly<Record<string, unknown>> {
  return typeof v === "object" && v !== null && Object.prototype.toString.call(v) === "[object Object]";
}

/**
 * What was given, short: `got string "open"`, `got an array`, `got undefined`.
 *
 * @example
 * ```ts
 * got("open"); // 'got string "open"'
 * ```
 */
export function got(v: unknown): string {
  return `got ${v === undefined ? "undefined" : describeValue(v)}`;
}
