/**
 * Lint of policy annotations against the service's limits (docs/domain.md §6). The limits live here as
 * constants so that, if the service changes them, one place changes.
 *
 * Assumed: "URL-safe ASCII" is RFC 3986's unreserved set (`A-Z a-z 0-9 - . _ ~`), the characters a
 * URL never needs to escape; "serialized" is the annotations map as compact JSON, counted in UTF-8.
 */
import { pathKey } from "../codec/diagnostic.js";
import { type Finding, finding } from "./lint-finding.js";

/**
 * At most this many annotations.
 *
 * @example
 * ```ts
 * Object.keys(policy.annotations ?? {}).length <= MAX_ANNOTATIONS;
 * ```
 */
export const MAX_ANNOTATIONS = 16;
/**
 * At most this many bytes for the annotations serialized as JSON (UTF-8).
 *
 * @example
 * ```ts
 * new TextEncoder().encode(JSON.stringify(annotations)).length <= MAX_ANNOTATIONS_BYTES;
 * ```
 */
export const MAX_ANNOTATIONS_BYTES = 4096;
/**
 * Longest annotation value, in characters.
 *
 * @example
 * ```ts
 * "1.9.8".length <= MAX_ANNOTATION_VALUE_LENGTH; // true
 * ```
 */
export const MAX_ANNOTATION_VALUE_LENGTH = 256;
/**
 * A valid annotation key: a letter, then up to 127 of letters, digits and `._/-`.
 *
 * @example
 * ```ts
 * ANNOTATION_KEY.test("iac_resource_address"); // true
 * ANNOTATION_KEY.test("1st"); // false
 * ```
 */
export const ANNOTATION_KEY = /^[A-Za-z][A-Za-z0-9._/-]{0,127}$/;
/**
 * Keys under this prefix are the service's own.
 *
 * @example
 * ```ts
 * "svc/owner".startsWith(RESERVED_ANNOTATION_PREFIX); // true: reserved
 * ```
 */
export const RESERVED_ANNOTATION_PREFIX = "svc/";

const URL_SAFE = /^[A-Za-z0-9._~-]*$/;

function utf8Length(s: string): number {
  let n = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    n += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return n;
}

const show = (s: string): string => JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s);

function keyProblem(key: string): string | undefined {
  if (key.length === 0) return "an annotation key is empty; keys are 1 to 128 characters";
  if (key.length > 128) return `annotation key ${show(key)} is ${key.length} characters; at most 128 are allowed`;
  if (!/^[A-Za-z]/.test(key)) return `annotation key ${show(key)} must start with a letter`;
  if (!ANNOTATION_KEY.test(key)) {
    const bad = [...key].find((c) => !/[A-Za-z0-9._/-]/.test(c)) ?? "";
    return `annotation key ${show(key)} contains ${JSON.stringify(bad)}; keys may hold only letters, digits and . _ / -`;
  }
  return undefined;
}

function valueProblem(key: string, value: string): string | undefined {
  if (value.length > MAX_ANNOTATION_VALUE_LENGTH)
    return `the value of annotation ${show(key)} is ${value.length} characters; at most ${MAX_ANNOTATION_VALUE_LENGTH} are allowed`;
  if (!URL_SAFE.test(value)) {
    const bad = [...value].find((c) => !/[A-Za-z0-9._~-]/.test(c)) ?? "";
    return `the value of annotation ${show(key)} contains ${JSON.stringify(bad)}; values may hold only URL-safe ASCII (letters, digits and - . _ ~)`;
  }
  return undefined;
}

/**
 * Checks a policy's annotations: count, serialized size, each key's shape and prefix, each value.
 *
 * @example
 * ```ts
 * checkAnnotations({ "svc/owner": "x" }).map((f) => f.code); // ["ANNOTATION_KEY_RESERVED"]
 * ```
 */
export function checkAnnotations(annotations: Readonly<Record<string, string>> | null): Finding[] {
  const out: Finding[] = [];
  if (!annotations) return out;
  const entries = Object.entries(annotations);
  if (entries.length > MAX_ANNOTATIONS)
    out.push(finding("ANNOTATIONS_TOO_MANY", "$.annotations", `${entries.length} annotations; at most ${MAX_ANNOTATIONS} are allowed, remove ${entries.length - MAX_ANNOTATIONS}`));
  const bytes = utf8Length(JSON.stringify(annotations));
  if (bytes > MAX_ANNOTATIONS_BYTES)
    out.push(finding("ANNOTATIONS_TOO_LARGE", "$.annotations", `the annotations take ${bytes} bytes serialized; at most ${MAX_ANNOTATIONS_BYTES} are allowed`));
  for (const [key, value] of entries) {
    const path = pathKey("$.annotations", key);
    const kp = keyProblem(key);
    if (kp !== undefined) out.push(finding("ANNOTATION_KEY_INVALID", path, kp));
    else if (key.startsWith(RESERVED_ANNOTATION_PREFIX))
      out.push(finding("ANNOTATION_KEY_RESERVED", path, `annotation keys starting with "${RESERVED_ANNOTATION_PREFIX}" are reserved by the service; rename ${show(key)}`));
    const vp = valueProblem(key, value);
    if (vp !== undefined) out.push(finding("ANNOTATION_VALUE_INVALID", path, vp));
  }
  return out;
}
