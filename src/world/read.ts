/**
 * Small readers for the world file's directory objects. They collect problems as diagnostics with
 * the JSON path instead of stopping at the first, and keep fields they do not know under `$unknown`
 * (the service adds fields; a tenant export must load).
 */
import type { JsonObject } from "../model/json.js";

/**
 * A problem found while reading input: a stable `code`, the JSONPath of the value, a message a
 * person can act on, and (for warnings) a `severity`.
 *
 * @example
 * ```ts
 * const d: Diagnostic = { code: "DANGLING_REFERENCE", path: "$.tasks[3].userId",
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

  object(key: string): JsonObject {
    const v = this.raw(key);
    if (v === undefined || v === null) return {};
    if (isObject(v)) return v as JsonObject;
    this.problem(key, "object", v);
    return {};
  }

  /** The keys this reader did not read, to keep them as they came. */
  unknown(): { readonly $unknown?: Readonly<Record<string, unknown>> } {
    const rest: Record<string, unknown> = {};
    let any = false;
    for (const k of Object.keys(this.obj)) {
      if (!this.seen.has(k)) {
        rest[k] = this.obj[k];
        any = true;
      }
    }
    return any ? { $unknown: rest } : {};
  }
}
