/**
 * Small readers for the world file's directory objects. They collect problems as diagnostics with
 * the JSON path instead of stopping at the first, and keep fields they do not know under `$unknown`
 * (the service adds fields; a tenant export must load).
 */
import { MAX_JSON_DEPTH, setOwn } from "../codec/json-tools.js";
import type { JsonObject, JsonValue } from "../model/json.js";

/**
 * A problem found while reading input: a stable `code`, the JSONPath of the value, a message a
 * person can act on, and (for warnings) a `severity`.
 *
 * @example
 * ```ts
 * const d: WorldDiagnostic = { code: "DANGLING_REFERENCE", path: "$.tasks[3].userId",
 *   message: 'user "u-9" does not exist' };
 * ```
 */
export interface Diagnostic {
  readonly code: string;
  readonly path: string;
  readonly message: string;
  readonly severity?: "error" | "warning";
}

/** Appends a key to a JSONPath, quoting it when it is not a plain identifier. */
export function pathKey(path: string, key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/** Appends an index to a JSONPath. */
export function pathIndex(path: string, index: number): string {
  return `${path}[${index}]`;
}

export function isObject(v: unknown): v is Readonly<Record<string, unknown>> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object" : `${typeof v} ${JSON.stringify(v)}`;
}

// The one depth limit of the world file (values kept as data), shared with the wire codec.
export { MAX_JSON_DEPTH };

/**
 * The most items a world file's list may hold. Far above any tenant (a 1M-task world is 4.6 GB of
 * JSON), and low enough that a list built in code with a huge `length` (`list.length = 2 ** 32 - 1`,
 * all holes) is refused at once instead of walked for minutes.
 */
export const MAX_LIST_ITEMS = 50_000_000;

/**
 * Calls `each` for every item of `list` in order: a list longer than {@link MAX_LIST_ITEMS} is a
 * `TOO_LARGE` diagnostic and nothing is read; holes (indexes a list built in code never set, which
 * JSON cannot write) are one `EXPECTED_OBJECT` diagnostic at the first, counting the rest.
 *
 * @example
 * ```ts
 * const out: Diagnostic[] = [];
 * eachItem([{ id: "a" }, , { id: "b" }], "$.users", out, (item, i) => console.log(i, item)); // 0 …, 2 …; out: a hole at $.users[1]
 * ```
 */
export function eachItem(list: readonly unknown[], path: string, out: Diagnostic[], each: (item: unknown, i: number) => void): void {
  if (list.length > MAX_LIST_ITEMS) {
    out.push({ code: "TOO_LARGE", path, message: `a list of ${list.length.toLocaleString("en")} items; a world file's lists hold at most ${MAX_LIST_ITEMS.toLocaleString("en")}` });
    return;
  }
  let holes = 0;
  let first = -1;
  for (let i = 0; i < list.length; i++) {
    if (!(i in list)) {
      if (holes++ === 0) first = i;
      continue;
    }
    each(list[i], i);
  }
  if (holes > 0)
    out.push({
      code: "EXPECTED_OBJECT",
      path: pathIndex(path, first),
      message: `no item here: the list has ${holes.toLocaleString("en")} hole${holes === 1 ? "" : "s"} (indexes a list built in code never set); a world file's lists have an item at every index`,
    });
}

/**
 * A copy of an untrusted JSON value to keep in a world: iterative (no recursion, so no depth can
 * overflow the stack), with a key named `__proto__` kept as an own key (never a prototype), and
 * nothing shared with the caller's object (a world is frozen; the caller's JSON must not be).
 * Nesting deeper than {@link MAX_JSON_DEPTH} is a `TOO_DEEP` diagnostic and the value is dropped
 * from the result (the load fails, so nothing is lost silently). Values JSON cannot hold (functions,
 * symbols, undefined, non-finite numbers) are copied as `null`, as `JSON.stringify` would write them.
 *
 * @example
 * ```ts
 * const out: Diagnostic[] = [];
 * adoptJson(JSON.parse('{"__proto__": {"a": 1}}'), "$.x", out); // an own key "__proto__"
 * ```
 */
export function adoptJson(value: unknown, path: string, out: Diagnostic[]): JsonValue {
  if (typeof value !== "object" || value === null) return scalar(value);
  // Most kept values (profiles, attributes) are one level of scalars: no cycle, no depth, no
  // sharing to keep, so no bookkeeping either (it was most of the cost of loading a directory).
  const flat = copyFlat(value);
  if (flat !== undefined) return flat;
  // Depth-first with explicit enter/leave steps, so the objects on the current path are known: a
  // cycle (impossible from JSON.parse, possible from a caller's objects) is refused, an object
  // shared by two fields is copied once and stays shared.
  const copies = new Map<object, unknown[] | Record<string, unknown>>();
  const onPath = new Set<object>();
  const fresh = (v: object): unknown[] | Record<string, unknown> => (Array.isArray(v) ? [] : {});
  const root = fresh(value);
  copies.set(value, root);
  type Step = { readonly leave: false; readonly source: object; readonly depth: number } | { readonly leave: true; readonly source: object };
  const work: Step[] = [{ leave: false, source: value, depth: 0 }];
  let problem: string | undefined;
  for (let step = work.pop(); step !== undefined && problem === undefined; step = work.pop()) {
    if (step.leave) {
      onPath.delete(step.source);
      continue;
    }
    const { source, depth } = step;
    const target = copies.get(source) as unknown[] | Record<string, unknown>;
    onPath.add(source);
    work.push({ leave: true, source });
    const child = (v: unknown): unknown => {
      if (typeof v !== "object" || v === null) return scalar(v);
      if (onPath.has(v)) problem = "refers to itself, which JSON cannot";
      else if (depth + 1 > MAX_JSON_DEPTH) problem = `nests more than ${MAX_JSON_DEPTH} levels`;
      if (problem !== undefined) return null;
      const seen = copies.get(v);
      if (seen !== undefined) return seen;
      const copy = fresh(v);
      copies.set(v, copy);
      work.push({ leave: false, source: v, depth: depth + 1 });
      return copy;
    };
    if (Array.isArray(source)) for (let i = 0; i < source.length; i++) (target as unknown[]).push(child(source[i]));
    else for (const key of Object.keys(source)) setOwn(target as Record<string, unknown>, key, child((source as Record<string, unknown>)[key]));
  }
  if (problem === undefined) return root as JsonValue;
  out.push({
    code: "TOO_DEEP",
    path,
    message: `this value ${problem}; a world file keeps values at most ${MAX_JSON_DEPTH} levels deep`,
  });
  return null;
}


/** A copy of an object or array whose members are all scalars, as {@link adoptJson} makes it; else undefined. */
function copyFlat(value: object): JsonValue | undefined {
  if (Array.isArray(value)) {
    const copy: JsonValue[] = [];
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (typeof v === "object" && v !== null) return undefined;
      copy.push(scalar(v));
    }
    return copy;
  }
  const copy: Record<string, JsonValue> = {};
  const source = value as Record<string, unknown>;
  for (const key of Object.keys(source)) {
    const v = source[key];
    if (typeof v === "object" && v !== null) return undefined;
    setOwn(copy, key, scalar(v));
  }
  return copy;
}

function scalar(v: unknown): JsonValue {
  if (typeof v === "string" || typeof v === "boolean") return v;
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  return null;
}

/**
 * Reads the fields of one JSON object, recording a diagnostic for each wrong type and remembering
 * which keys were read so the rest can be kept as `$unknown`.
 */
export class ObjectReader {
  private readonly seen = new Set<string>();

  constructor(
    readonly obj: Readonly<Record<string, unknown>>,
    readonly path: string,
    private readonly out: Diagnostic[],
  ) {}

  private problem(key: string, expected: string, value: unknown): void {
    this.report(key, undefined, expected, value);
  }

  /** The diagnostics this reader reports into (for readers of nested objects). */
  get diagnostics(): Diagnostic[] {
    return this.out;
  }

  /** Reports a value of the wrong type at `key` (or at `key`'s entry `sub`). */
  report(key: string, sub: string | undefined, expected: string, value: unknown): void {
    const at = pathKey(this.path, key);
    this.out.push({
      code: `EXPECTED_${expected.toUpperCase().replace(/ .*/, "")}`,
      path: sub === undefined ? at : pathKey(at, sub),
      message: `expected ${expected}, found ${describe(value)}`,
    });
  }

  raw(key: string): unknown {
    this.seen.add(key);
    return Object.prototype.hasOwnProperty.call(this.obj, key) ? this.obj[key] : undefined;
  }

  string(key: string): string {
    const v = this.raw(key);
    if (v === undefined || v === null) return "";
    if (typeof v === "string") return v;
    this.problem(key, "string", v);
    return "";
  }

  boolean(key: string): boolean {
    const v = this.raw(key);
    if (v === undefined || v === null) return false;
    if (typeof v === "boolean") return v;
    this.problem(key, "boolean", v);
    return false;
  }

  strings(key: string): readonly string[] {
    const v = this.raw(key);
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) {
      this.problem(key, "array of strings", v);
      return [];
    }
    const result: string[] = [];
    v.forEach((item: unknown, i) => {
      if (typeof item === "string") result.push(item);
      else
        this.out.push({
          code: "EXPECTED_STRING",
          path: pathIndex(pathKey(this.path, key), i),
          message: `expected string, found ${describe(item)}`,
        });
    });
    return result;
  }

  /** A JSON value kept as data: a copy of the caller's (see {@link adoptJson}). */
  json(key: string): JsonValue {
    return adoptJson(this.raw(key), pathKey(this.path, key), this.out);
  }

  object(key: string): JsonObject {
    const v = this.raw(key);
    if (v === undefined || v === null) return {};
    if (isObject(v)) {
      // A value adoptJson refuses (one that refers to itself, or nests too deep) is reported there and read as empty.
      const copy = adoptJson(v, pathKey(this.path, key), this.out);
      return isObject(copy) ? (copy as JsonObject) : {};
    }
    this.problem(key, "object", v);
    return {};
  }

  /** The keys this reader did not read, to keep them as they came. */
  /** The keys read so far, present or not: after a decoder ran, the fields it knows. */
  keysRead(): ReadonlySet<string> {
    return this.seen;
  }

  unknown(): { readonly $unknown?: Readonly<Record<string, unknown>> } {
    const rest: Record<string, unknown> = {};
    let any = false;
    for (const k of Object.keys(this.obj)) {
      if (!this.seen.has(k)) {
        setOwn(rest, k, adoptJson(this.obj[k], pathKey(this.path, k), this.out));
        any = true;
      }
    }
    return any ? { $unknown: rest } : {};
  }
}
