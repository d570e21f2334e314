/**
 * What a planned change does to a policy, attribute by attribute, in the provider's names: the
 * report shows it where a task's route reads the same before and after although its steps differ
 * (an agent's `policy_ids`, a fallback list: details a route's one-line summary leaves out).
 */
import { sameExpiration } from "../codec/spec-names.js";
import { encodePolicy } from "../codec/index.js";
import type { Policy } from "../model/index.js";
import { isRecord, isZeroValue, pathKey, planPathOf } from "./attributes.js";

/**
 * One value a plan changes: where (a JSONPath of the resource's attributes, in the provider's names)
 * and the value before and after (JSON; `null` for unset).
 *
 * @example
 * ```ts
 * const d: AttributeDifference = { path: "$.rules[0].condition", before: "true", after: "false" };
 * ```
 */
export interface AttributeDifference {
  readonly path: string;
  readonly before: unknown;
  readonly after: unknown;
}

/** Fields the service sets, not the plan. */
const SERVICE_FIELDS: ReadonlySet<string> = new Set(["id", "createdAt", "updatedAt", "systemBuiltin", "deletedAt"]);

function same(a: unknown, b: unknown): boolean {
  return (isZeroValue(a) && isZeroValue(b)) || JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The values that differ between a world's policy and the one a plan writes, leaf by leaf (a list
 * of plain values, or a list whose length changes, is one leaf), with paths in the provider's names
 * (`names: "api"`: in the API's, as a policy file for `whatif --edit` writes them).
 *
 * @example
 * ```ts
 * policyDifferences(world.index.policies.get("pol-a")!, { ...p, description: "new" });
 * // [{ path: "$.description", before: "old", after: "new" }]
 * ```
 */
export function policyDifferences(before: Policy, after: Policy, names: "terraform" | "api" = "terraform"): AttributeDifference[] {
  const out: AttributeDifference[] = [];
  const walk = (a: unknown, b: unknown, at: string, depth: number): void => {
    if (same(a, b)) return;
    // The same escalation time written as the spec's duration or the API's int64 seconds.
    if (typeof a === "string" && typeof b === "string" && at.endsWith(".escalation.expiration") && sameExpiration(a, b)) return;
    if (depth < 32 && isRecord(a) && isRecord(b)) {
      for (const k of new Set([...Object.keys(a), ...Object.keys(b)]))
        if (depth > 0 || !SERVICE_FIELDS.has(k)) walk(Object.hasOwn(a, k) ? a[k] : undefined, Object.hasOwn(b, k) ? b[k] : undefined, pathKey(at, k), depth + 1);
      return;
    }
    if (depth < 32 && Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.some((x) => isRecord(x) || Array.isArray(x))) {
      a.forEach((x, i) => walk(x, b[i], `${at}[${i}]`, depth + 1));
      return;
    }
    // In the API's names (a person's own edit), a list of objects that grew or shrank is told item by
    // item too, the ones past the shorter list as added or gone, not as one long value.
    if (names === "api" && depth < 32 && Array.isArray(a) && Array.isArray(b) && [...a, ...b].some((x) => isRecord(x) || Array.isArray(x))) {
      // Items taken out of (or put into) one place, the rest as they were: said as that, not as every later item changed.
      const [long, short] = a.length > b.length ? [a, b] : [b, a];
      const n = long.length - short.length;
      let i = 0;
      while (i < short.length && same(long[i], short[i])) i++;
      if (short.slice(i).every((x, k) => same(x, long[i + n + k]))) {
        for (let k = i; k < i + n; k++) out.push({ path: `${at}[${k}]`, before: a === long ? (long[k] ?? null) : null, after: a === long ? null : (long[k] ?? null) });
        return;
      }
      for (let k = 0; k < long.length; k++) walk(a[k], b[k], `${at}[${k}]`, depth + 1);
      return;
    }
    out.push({ path: names === "api" ? at : planPathOf(at), before: isZeroValue(a) ? null : a, after: isZeroValue(b) ? null : b });
  };
  walk(encodePolicy(before), encodePolicy(after), "$", 0);
  return out;
}

/**
 * A difference as one line: `path: before → after`, long values cut short.
 *
 * @example
 * ```ts
 * differenceText({ path: "$.rules[0].condition", before: "true", after: "false" }); // 'rules[0].condition: "true" → "false"'
 * ```
 */
export function differenceText(d: AttributeDifference): string {
  const short = (v: unknown): string => {
    const s = v === null ? "unset" : v === SENSITIVE_VALUE ? SENSITIVE_VALUE : JSON.stringify(v);
    return s.length > 120 ? `${s.slice(0, 119)}…` : s;
  };
  return `${d.path.replace(/^\$\.?/, "")}: ${short(d.before)} → ${short(d.after)}`;
}

const within = (inner: string, outer: string): boolean => outer === "$" || inner === outer || inner.startsWith(`${outer}.`) || inner.startsWith(`${outer}[`);

/**
 * A value a report may print: `value`, or `(sensitive value)` when Terraform marks it, or what holds
 * it, sensitive (`sensitive`: the change's JSONPaths in the resource's attribute names).
 *
 * @example
 * ```ts
 * shownValue("TOPSECRET", "$.display_name", ["$.display_name"]); // "(sensitive value)"
 * ```
 */
export function shownValue(value: string, path: string, sensitive: readonly string[]): string {
  return value !== "" && sensitive.some((s) => within(path, s)) ? SENSITIVE_VALUE : value;
}

/** What a report shows for a value Terraform marks sensitive, as Terraform's own output does. */
export const SENSITIVE_VALUE = "(sensitive value)";

/**
 * The differences with every value at, under or holding a path Terraform marks sensitive
 * (`sensitivePaths`) shown as `(sensitive value)`: `terraform show -json` writes such values in
 * clear, and the report goes into a pull-request comment.
 *
 * @example
 * ```ts
 * withoutSensitive([{ path: "$.description", before: "a", after: "b" }], ["$.description"]);
 * // [{ path: "$.description", before: "(sensitive value)", after: "(sensitive value)" }]
 * ```
 */
export function withoutSensitive(diffs: readonly AttributeDifference[], sensitive: readonly string[]): AttributeDifference[] {
  if (sensitive.length === 0) return [...diffs];
  return diffs.map((d) =>
    sensitive.some((s) => within(d.path, s) || within(s, d.path))
      ? { path: d.path, before: d.before === null ? null : SENSITIVE_VALUE, after: d.after === null ? null : SENSITIVE_VALUE }
      : d,
  );
}
