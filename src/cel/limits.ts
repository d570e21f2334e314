/**
 * The resource limits of the CEL layer that no expression, input or world setting can raise: how
 * much one evaluation may cost, how large a regular expression may grow when compiled, and how many
 * bytes the caches keep. They exist so that no hostile expression makes a process run out of memory
 * or hold one evaluation for seconds (README, "Limits": each is documented there).
 *
 * The parse-time limits cel-js enforces itself (nesting, nodes, literal sizes) are `LIMITS` in
 * environment.ts; the default cost limit and the static estimate's worst-case input sizes are
 * `DEFAULT_CEL_COST_LIMIT` and `WORST_CASE_SIZES` in cost.ts.
 */

/**
 * The hard limits, in one place.
 *
 * - `maxCostLimit`: the largest cost budget any evaluation gets, whatever `tenant.celCostLimit` or a
 *   call's `costLimit` asks (10× the default). A unit stands for at most a few dozen bytes of the
 *   values an evaluation produces, so this bounds an evaluation's memory (about 160 MB at worst)
 *   and time (about a second) as well as its work.
 * - `maxSourceLength`: the longest expression text, in UTF-16 code units, that is parsed at all. A
 *   condition's text is read several times before its nodes are counted (tokens, string literals),
 *   at ~1 µs a character: 100,000 is ~20× the longest real condition (a list of 1,000 ids) and is
 *   read in ~0.1 s; a megabyte literal took over a second per edit.
 * - `maxRegexWeight`: the most a regular expression may weigh: its length, or the size it expands
 *   to once counted repetitions are multiplied out (`(?:ab|cd){100}` weighs 500), whichever is
 *   larger; RE2's own limit is ~1.4 million. re2js compiles at up to ~5 µs and ~130 bytes per unit
 *   of weight (an instruction), and matches in up to ~90 ns per character and unit of weight: the
 *   largest allowed pattern compiles in at most ~50 ms into ~1.3 MB.
 * - `maxRegexWeightPerExpression`: the weight of all the pattern literals of one expression
 *   together, compiled when it is checked (at most ~100 ms).
 * - `regexCacheBytes` / `regexCacheEntries`: what an environment's cache of compiled patterns keeps,
 *   by estimated size (see `regexBytes` in regex.ts) and by count.
 * - `compileCacheBytes` / `compileCacheEntries`: the same for its cache of compiled expressions
 *   (see `compiledBytes` in compile.ts).
 *
 * @example
 * ```ts
 * CEL_RESOURCE_LIMITS.maxRegexWeight; // 10_000
 * ```
 */
export const CEL_RESOURCE_LIMITS = Object.freeze({
  maxCostLimit: 10_000_000,
  maxSourceLength: 100_000,
  maxRegexWeight: 10_000,
  maxRegexWeightPerExpression: 20_000,
  regexCacheBytes: 16 * 1024 * 1024,
  regexCacheEntries: 512,
  compileCacheBytes: 96 * 1024 * 1024,
  compileCacheEntries: 10_000,
});
