/**
 * Reading and copying untrusted JSON without recursion (deep input cannot overflow the stack) and
 * without the `__proto__` pitfall (an own key named `__proto__` stays an own key).
 */
import type { JsonValue } from "../model/json.js";

/**
 * Whether a value is a JSON object (not null, not an array).
 *
 * @example
 * ```ts
 * isJsonObject({}); // true
 * isJsonObject([]); // false
 * ```
 */
export function isJsonObject(v: unknown): v is Readonly<Record<string, unknown>> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Whether `obj` has an own property `key` (never consults the prototype chain, so `"constructor"`
 * on `{}` is absent).
 *
 * @example
 * ```ts
 * hasOwn({}, "constructor"); // false
 * ```
 */
export function hasOwn(obj: object, key: string): boolean {
  return Object.hasOwn(obj, key);
}

/**
 * Sets an own, enumerable property, also for the key `__proto__` (where plain assignment would
 * replace the prototype instead).
 *
 * @example
 * ```ts
 * const o: Record<string, unknown> = {};
 * setOwn(o, "__proto__", 1);
 * Object.keys(o); // ["__proto__"]
 * ```
 */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

/**
 * How deep a value kept as data (unknown fields and variants, profiles, annotations, any JSON
 * field) may nest, in levels below the value itself: the one depth limit of the world file and of
 * the wire codec. Deeper values are refused with `TOO_DEEP`, so every world that loads can be
 * written by `JSON.stringify` as well as by the world writer. 512 levels is far beyond any real
 * export and far below the ~10,000 levels at which V8's `JSON.stringify` runs out of stack.
 *
 * @example
 * ```ts
 * cloneJson(value, MAX_JSON_DEPTH); // throws JsonTooDeep past 512 levels
 * ```
 */
export const MAX_JSON_DEPTH = 512;

/**
 * Thrown by {@link cloneJson} given a depth limit that the value exceeds; decoders turn it into a
 * `TOO_DEEP` diagnostic at the field that held the value.
 *
 * @example
 * ```ts
 * try { cloneJson(deep, MAX_JSON_DEPTH); } catch (e) { if (e instanceof JsonTooDeep) console.log(e.message); }
 * ```
 */
export class JsonTooDeep extends Error {
  constructor(readonly limit: number) {
    super(`this value nests more than ${limit} levels; values are kept at most ${limit} levels deep`);
  }
}

/**
 * Thrown for a value kept as data that refers to itself (a cycle, which only objects built in code
 * can make, and JSON cannot write); decoders report it as `TOO_DEEP` at the field that held it, as
 * they report a value nesting too deep.
 *
 * @example
 * ```ts
 * const o: Record<string, unknown> = {}; o["self"] = o;
 * if (refersToItself(o)) throw new JsonCycle();
 * ```
 */
export class JsonCycle extends JsonTooDeep {
  constructor() {
    super(MAX_JSON_DEPTH);
    this.message = "this value refers to itself, which JSON cannot write";
  }
}

/**
 * Whether an object reaches itself through its fields (shared sub-objects are fine). Iterative,
 * with explicit enter and leave steps so that the objects on the current path are known.
 *
 * @example
 * ```ts
 * const shared = { x: 1 };
 * refersToItself({ a: shared, b: shared }); // false
 * ```
 */
export function refersToItself(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const onPath = new Set<object>();
  const done = new Set<object>();
  const work: Array<{ readonly node: object; readonly leave: boolean }> = [{ node: value, leave: false }];
  for (let step = work.pop(); step !== undefined; step = work.pop()) {
    if (step.leave) {
      onPath.delete(step.node);
      done.add(step.node);
      continue;
    }
    onPath.add(step.node);
    work.push({ node: step.node, leave: true });
    const children: unknown[] = Array.isArray(step.node) ? step.node : Object.values(step.node);
    for (const c of children) {
      if (typeof c !== "object" || c === null || done.has(c)) continue;
      if (onPath.has(c)) return true;
      work.push({ node: c, leave: false });
    }
  }
  return false;
}

/**
 * A deep copy of a JSON value, iterative so that nesting depth is bounded by memory, not the call
 * stack. Shared sub-objects stay shared and cycles are copied as cycles, so it always terminates.
 * Given `maxDepth`, a value nesting deeper (levels below the value itself) throws {@link JsonTooDeep};
 * with `refuseCycles`, a value that refers to itself throws {@link JsonCycle} (it is looked for only
 * when the copy met an object twice, so a tree costs nothing more).
 *
 * @example
 * ```ts
 * const copy = cloneJson({ a: [1, { b: null }] }); // equal, but no shared objects
 * ```
 */
export function cloneJson(value: unknown, maxDepth: number = Infinity, refuseCycles = false): JsonValue {
  if (typeof value !== "object" || value === null) return value as JsonValue;
  const copies = new Map<object, unknown>();
  const root: unknown = Array.isArray(value) ? [] : {};
  copies.set(value, root);
  const work: Array<readonly [object, unknown, number]> = [[value, root, 0]];
  let depth = 0;
  let metTwice = false;
  const copyChild = (child: unknown): unknown => {
    if (typeof child !== "object" || child === null) return child;
    const seen = copies.get(child);
    if (seen !== undefined) {
      metTwice = true;
      return seen;
    }
    if (depth + 1 > maxDepth) throw new JsonTooDeep(maxDepth);
    const fresh: unknown = Array.isArray(child) ? [] : {};
    copies.set(child, fresh);
    work.push([child, fresh, depth + 1]);
    return fresh;
  };
  for (let next = work.pop(); next !== undefined; next = work.pop()) {
    const [source, target] = next;
    depth = next[2];
    if (Array.isArray(source)) {
      const out = target as unknown[];
      for (let i = 0; i < source.length; i++) out.push(copyChild(source[i]));
    } else {
      const out = target as Record<string, unknown>;
      const src = source as Record<string, unknown>;
      for (const key of Object.keys(src)) setOwn(out, key, copyChild(src[key]));
    }
  }
  if (metTwice && refuseCycles && refersToItself(value)) throw new JsonCycle();
  return root as JsonValue;
}

/**
 * Freezes a JSON value and everything in it, iteratively (see {@link cloneJson}); returns it.
 *
 * @example
 * ```ts
 * const wire = freezeJson({ a: [1, { b: null }] });
 * Object.isFrozen(wire.a[1]); // true
 * ```
 */
export function freezeJson<T extends JsonValue>(value: T): T {
  const work: unknown[] = [value];
  for (let next = work.pop(); next !== undefined; next = work.pop()) {
    if (typeof next !== "object" || next === null || Object.isFrozen(next)) continue;
    Object.freeze(next);
    for (const child of Object.values(next)) work.push(child);
  }
  return value;
}
