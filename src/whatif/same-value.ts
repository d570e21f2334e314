/**
 * Structural equality of model values (plain objects, arrays, primitives), for deciding whether an
 * edit really changed something: a policy re-decoded from JSON is a new object but the same policy.
 */
import { sameExpiration } from "../codec/spec-names.js";

/**
 * Whether two model values are structurally equal: same primitives (`Object.is`), arrays of equal
 * items, plain objects with the same keys and equal values. An absent key and a key holding
 * `undefined` are the same (as in JSON). An escalation's `expiration` (under a key `escalation`) is
 * compared as the time it is: `"86400"` and `"86400s"` are equal ({@link sameExpiration}); a field
 * of that name anywhere else (a user's profile) is data, compared as written.
 *
 * @example
 * ```ts
 * sameValue({ a: [1, "x"] }, { a: [1, "x"] }); // true
 * sameValue({ a: 1 }, { a: 1, b: undefined }); // true
 * ```
 */
export function sameValue(a: unknown, b: unknown): boolean {
  return sameUnder(a, b, "");
}

/** {@link sameValue} of the values under key `parent` of their objects ("" at the top or in a list). */
function sameUnder(a: unknown, b: unknown, parent: string): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameUnder(a[i], b[i], "")) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ra = a as Record<string, unknown>;
  for (const k of Object.keys(ra)) {
    const x = ra[k];
    const y = ownValue(b, k);
    if (parent === "escalation" && k === "expiration" && typeof x === "string" && typeof y === "string" ? !sameExpiration(x, y) : !sameUnder(x, y, k)) return false;
  }
  for (const k of Object.keys(b)) if (!Object.hasOwn(ra, k) && ownValue(b, k) !== undefined) return false;
  return true;
}

/**
 * The value of an own property, or `undefined`: never one inherited from the prototype chain, so a
 * profile field named `constructor` or `toString` is compared as the data it is.
 *
 * @example
 * ```ts
 * ownValue({}, "constructor"); // undefined (not Object)
 * ownValue({ constructor: "x" }, "constructor"); // "x"
 * ```
 */
export function ownValue(o: object, key: string): unknown {
  return Object.hasOwn(o, key) ? (o as Record<string, unknown>)[key] : undefined;
}

/**
 * {@link sameValue} memoised per pair of objects: comparing the step sequences of two decisions
 * costs one deep comparison per distinct pair, however many tasks share them.
 *
 * @example
 * ```ts
 * const same = new PairMemo();
 * same.equal(stepsBefore, stepsAfter); // deep comparison once, then a lookup
 * ```
 */
export class PairMemo {
  readonly #memo = new WeakMap<object, WeakMap<object, boolean>>();

  equal(a: object, b: object): boolean {
    if (a === b) return true;
    let inner = this.#memo.get(a);
    if (!inner) {
      inner = new WeakMap();
      this.#memo.set(a, inner);
    }
    let r = inner.get(b);
    if (r === undefined) {
      r = sameValue(a, b);
      inner.set(b, r);
    }
    return r;
  }
}
