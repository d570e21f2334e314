/**
 * The problems a decoder reports, each with the JSONPath of the offending value.
 */

/**
 * Stable codes of codec diagnostics. `TOO_DEEP` guards recursive messages (a multi-step provision
 * nested past any real policy); `UNREADABLE_INPUT` is what a value that throws when read (a proxy,
 * a getter) becomes instead of an exception.
 *
 * @example
 * ```ts
 * const c: DiagnosticCode = "INVALID_INT64";
 * ```
 */
export type DiagnosticCode =
  | "EXPECTED_OBJECT"
  | "EXPECTED_STRING"
  | "EXPECTED_BOOLEAN"
  | "EXPECTED_NUMBER"
  | "EXPECTED_ARRAY"
  | "INVALID_INT64"
  | "INVALID_INT32"
  | "INVALID_TIMESTAMP"
  | "INVALID_DURATION"
  | "ONEOF_CONFLICT"
  | "TOO_DEEP"
  | "UNREADABLE_INPUT";

/**
 * One problem found while decoding: a stable `code`, the JSONPath of the value (`$.type.grant.appId`,
 * `$.policySteps["3f1c-…"]`), and a message a person can act on.
 *
 * @example
 * ```ts
 * const d: Diagnostic = { code: "INVALID_INT64", path: "$.numericId", message: 'expected an int64, found string "12a"' };
 * ```
 */
export interface Diagnostic {
  readonly code: DiagnosticCode;
  readonly path: string;
  readonly message: string;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Appends an object key to a JSONPath, bracket-quoting it when it is not a plain identifier (the
 * same form the world loader uses, so paths can be re-rooted by string surgery).
 *
 * @example
 * ```ts
 * pathKey("$", "type"); // "$.type"
 * pathKey("$.policySteps", "3f1c-9"); // '$.policySteps["3f1c-9"]'
 * ```
 */
export function pathKey(path: string, key: string): string {
  return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/**
 * Appends an array index to a JSONPath.
 *
 * @example
 * ```ts
 * pathIndex("$.rules", 2); // "$.rules[2]"
 * ```
 */
export function pathIndex(path: string, index: number): string {
  return `${path}[${index}]`;
}

/**
 * What a JavaScript caller passed, in a few words, for the message of a wrong argument: an object
 * by its first keys, a string by its start.
 *
 * @example
 * ```ts
 * describeArgument({ users: [], tasks: [] }); // "an object with keys users, tasks"
 * ```
 */
export function describeArgument(v: unknown): string {
  if (v === null || v === undefined) return String(v);
  if (typeof v === "function") return "a function";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "string") return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  if (typeof v === "object") return `an object with keys ${Object.keys(v).slice(0, 5).join(", ") || "(none)"}`;
  return `the ${typeof v} ${String(v)}`;
}

/**
 * A short description of a JSON value for messages ("an array", 'string "x"').
 *
 * @example
 * ```ts
 * describeValue([1]); // "an array"
 * ```
 */
export function describeValue(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return "an object";
  if (typeof v === "string") return `string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  if (typeof v === "number" || typeof v === "boolean") return `${typeof v} ${String(v)}`;
  return typeof v;
}
