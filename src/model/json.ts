/**
 * A JSON value as `JSON.parse` returns it.
 *
 * @example
 * ```ts
 * const v: JsonValue = { a: [1, "two", null, true] };
 * ```
 */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | JsonObject;

/**
 * A JSON object.
 *
 * @example
 * ```ts
 * const o: JsonObject = { department: "Engineering" };
 * ```
 */
export interface JsonObject {
  readonly [key: string]: JsonValue;
}
