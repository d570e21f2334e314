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

/** The longest lists {@link policyDifferences} aligns item by item (a policy has at most 16 rules). */
const MAX_ALIGNED = 256;

/** The index pairs of a longest common subsequence of two lists, items equal as JSON, in order. */
function commonItems(a: readonly unknown[], b: readonly unknown[]): [number, number][] {
  const ka = a.map((x) => JSON.stringify(x) ?? "");
  const kb = b.map((x) => JSON.stringify(x) ?? "");
  // lengths[i][j]: the longest common subsequence of a[i..] and b[j..].
  const lengths = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      (lengths[i] as number[])[j] = ka[i] === kb[j] ? ((lengths[i + 1] as number[])[j + 1] as number) + 1 : Math.max((lengths[i + 1] as number[])[j] as number, (lengths[i] as number[])[j + 1] as number);
  const out: [number, number][] = [];
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (ka[i] === kb[j]) out.push([i++, j++]);
    else if (((lengths[i + 1] as number[])[j] as number) >= ((lengths[i] as number[])[j + 1] as number)) i++;
    else j++;
  }
  return out;
}

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
    // In the API's names (a person's own edit), a list of objects that grew or shrank is aligned
    // item by item (a longest common subsequence): what was taken out is told as gone (its index
    // before), what was put in as new (its index after), and a gap with as many of each as changed
    // in place; not every later item as changed.
    if (names === "api" && depth < 32 && Array.isArray(a) && Array.isArray(b) && [...a, ...b].some((x) => isRecord(x) || Array.isArray(x))) {
      if (a.length > MAX_ALIGNED || b.length > MAX_ALIGNED) {
        for (let k = 0; k < Math.max(a.length, b.length); k++) walk(a[k], b[k], `${at}[${k}]`, depth + 1);
        return;
      }
      let i = 0;
      let j = 0;
      const gap = (toI: number, toJ: number): void => {
        const removed = toI - i;
        const added = toJ - j;
        if (removed === added) for (; i < toI; i++, j++) walk(a[i], b[j], `${at}[${j}]`, depth + 1);
        for (; i < toI; i++) out.push({ path: `${at}[${i}]`, before: a[i] ?? null, after: null });
        for (; j < toJ; j++) out.push({ path: `${at}[${j}]`, before: null, after: b[j] ?? null });
      };
      for (const [mi, mj] of commonItems(a, b)) {
        gap(mi, mj);
        i = mi + 1;
        j = mj + 1;
      }
      gap(a.length, b.length);
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
