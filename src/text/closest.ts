/**
 * "Did you mean" for every layer: the known name closest to a misspelt one. Pure and small, so the
 * codec, the CEL checker and the CLI all suggest with the same rule.
 */

/**
 * The candidate closest to `name` by edit distance (case-insensitive), when it is within `maxDistance`
 * (default 2) — the misspellings people make; farther names are unrelated and suggest nothing.
 *
 * @example
 * ```ts
 * closest("departmnt", ["department", "email"]); // "department"
 * closest("managerId", ["managerIds", "email"]);  // "managerIds"
 * closest("zzz", ["department"]);                 // undefined
 * ```
 */
export function closest(name: string, candidates: Iterable<string>, maxDistance = 2): string | undefined {
  let best: string | undefined;
  let bestD = maxDistance + 1;
  const lower = name.toLowerCase();
  for (const c of candidates) {
    const d = distance(lower, c.toLowerCase(), bestD);
    if (d < bestD) {
      best = c;
      bestD = d;
    }
  }
  return best;
}

/** Levenshtein distance, or `limit` when it is at least that (the rows stop early). */
function distance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) >= limit) return limit;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin >= limit) return limit;
    prev = cur;
  }
  return Math.min(prev[b.length] ?? limit, limit);
}

/**
 * `; did you mean "x"?` for the known name closest to `name`, or "" when none is near (or it is
 * `name` itself): the tail of a not-found message. Only on the way to an error.
 *
 * @example
 * ```ts
 * `task "10001" not found${didYouMean("10001", ["1001", "1002"])}`; // 'task "10001" not found; did you mean "1001"?'
 * ```
 */
export function didYouMean(name: string, known: Iterable<string>): string {
  const guess = closest(name, known);
  return guess === undefined || guess === name ? "" : `; did you mean "${guess}"?`;
}
