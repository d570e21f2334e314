/**
 * `matches()` over RE2 (re2js): linear-time matching in the same dialect as the service's cel-go, so
 * no pattern/input pair can backtrack catastrophically. cel-js's own `matches` uses the JS engine.
 *
 * Compiling is bounded too: a pattern's {@link regexWeight} (its length, or what its counted
 * repetitions expand to) is measured before RE2 sees it, and a pattern over
 * `CEL_RESOURCE_LIMITS.maxRegexWeight` is refused without being compiled. RE2's own limit lets
 * `(?:w0|…|w3999){1000}` through, which takes seconds and ~150 MB to compile.
 */
import { RE2JS } from "re2js";
import { CEL_RESOURCE_LIMITS } from "./limits.js";

/**
 * A pattern compiled by RE2 with its {@link regexWeight}, or why it could not be: `unsupported` when
 * the pattern is valid for a backtracking engine but uses what RE2 leaves out on purpose
 * (backreferences, lookaround), `invalid` when it is not a regular expression at all or weighs more
 * than the limit (the message names the limit).
 *
 * @example
 * ```ts
 * const r = compileRegex("(a)\\1");
 * r.ok === false && r.kind; // "unsupported"
 * ```
 */
export type CompiledRegex =
  | { readonly ok: true; readonly re: RE2JS; readonly weight: number }
  | { readonly ok: false; readonly kind: "invalid" | "unsupported"; readonly message: string };

/** Weights saturate here: far beyond any limit, and exact in a double. */
const WEIGHT_CAP = 2 ** 50;

const sat = (n: number): number => (n > WEIGHT_CAP ? WEIGHT_CAP : n);

interface Frame {
  /** Completed alternatives' weights. */
  done: number;
  /** The alternative being read. */
  current: number;
  /** The weight of the last atom of `current` (what a quantifier repeats). */
  last: number;
  alternatives: number;
  capture: boolean;
}

const frame = (capture: boolean): Frame => ({ done: 0, current: 0, last: 0, alternatives: 1, capture });

/** Where `token` closes a short construct (a class name, a group name) that starts at `from`, looking no further than 256 characters; -1 if not there. */
function closeWithin(pattern: string, token: string, from: number): number {
  const at = pattern.slice(from, from + 256 + token.length).indexOf(token);
  return at >= 0 ? from + at : -1;
}

/** A frame's weight once closed: RE2's `calcSize` of an alternation (and of a capture). */
const closed = (f: Frame): number => sat(f.done + f.current + (f.alternatives - 1) + (f.capture ? 2 : 0));

/**
 * The weight of a pattern: an upper estimate of the size of the program RE2 compiles it to, as RE2's
 * parser measures it (`calcSize`: a literal counts its characters, `x{n,m}` m copies of `x` plus
 * m − n, `x*` two more than `x`, an alternation one per `|`), with a character class counted by its
 * text; at least the pattern's length. Linear in the pattern's length; reads any text (a pattern RE2
 * will refuse still gets a weight).
 *
 * @example
 * ```ts
 * regexWeight("^[a-z]+$"); // 8
 * regexWeight("(?:ab|cd){100}"); // 500: (2 + 2 + 1) × 100
 * ```
 */
export function regexWeight(pattern: string): number {
  const stack: Frame[] = [frame(false)];
  let top = stack[0] as Frame;
  const atom = (w: number): void => {
    top.current = sat(top.current + w);
    top.last = w;
  };
  const repeat = (w: number): void => {
    top.current = sat(top.current - top.last + w);
    top.last = w;
  };
  const n = pattern.length;
  let i = 0;
  while (i < n) {
    const c = pattern.charCodeAt(i);
    if (c === 0x5c /* \ */) {
      const e = pattern.charAt(i + 1);
      if (e === "Q") {
        // \Q…\E: literal text (to the end of the pattern without an \E: each character is read once).
        const end = pattern.indexOf("\\E", i + 2);
        const stop = end < 0 ? n : end;
        atom(Math.max(1, stop - (i + 2)));
        i = end < 0 ? n : end + 2;
        continue;
      }
      let j = i + 2;
      if ((e === "p" || e === "P" || e === "x") && pattern.charAt(j) === "{") {
        // A class name or code point is short: looking further would make `\p{\p{…` quadratic.
        const close = closeWithin(pattern, "}", j);
        j = close < 0 ? j + 1 : close + 1;
      } else if (e === "p" || e === "P") j += 1;
      else if (e === "x") j += 2;
      atom(Math.max(1, j - i));
      i = Math.min(j, n);
      continue;
    }
    if (c === 0x5b /* [ */) {
      // A character class, to its closing bracket: `[]a]` and `[^]a]` hold a literal `]`.
      let j = i + 1;
      if (pattern.charAt(j) === "^") j++;
      if (pattern.charAt(j) === "]") j++;
      while (j < n && pattern.charAt(j) !== "]") {
        if (pattern.charAt(j) === "\\") j += 2;
        else if (pattern.startsWith("[:", j)) {
          const close = closeWithin(pattern, ":]", j + 2);
          j = close < 0 ? j + 1 : close + 2;
        } else j++;
      }
      const end = Math.min(j + 1, n);
      atom(Math.max(1, end - i));
      i = end;
      continue;
    }
    if (c === 0x28 /* ( */) {
      let capture = true;
      let j = i + 1;
      if (pattern.charAt(j) === "?") {
        // (?flags) sets flags and opens nothing; (?flags:…), (?P<name>…), (?<name>…) open a group.
        const flags = /^\?[imsU-]*(?=[):])/.exec(pattern.slice(j, j + 16));
        if (flags && pattern.charAt(j + flags[0].length) === ")") {
          i = j + flags[0].length + 1;
          continue;
        }
        if (flags) {
          capture = false;
          j += flags[0].length + 1;
        } else {
          capture = pattern.startsWith("?P<", j) || (pattern.startsWith("?<", j) && !pattern.startsWith("?<=", j) && !pattern.startsWith("?<!", j));
          const named = capture ? closeWithin(pattern, ">", j) : -1;
          j = named >= 0 ? named + 1 : j + 1;
        }
      }
      top = frame(capture);
      stack.push(top);
      i = j;
      continue;
    }
    if (c === 0x29 /* ) */ && stack.length > 1) {
      const w = closed(top);
      stack.pop();
      top = stack[stack.length - 1] as Frame;
      atom(w);
      i++;
      continue;
    }
    if (c === 0x7c /* | */) {
      top.done = sat(top.done + top.current);
      top.current = 0;
      top.last = 0;
      top.alternatives++;
      i++;
      continue;
    }
    if (c === 0x2a /* * */ || c === 0x2b /* + */ || c === 0x3f /* ? */) {
      repeat(sat((c === 0x2a ? 2 : 1) + top.last));
      i++;
      if (pattern.charCodeAt(i) === 0x3f) i++; // lazy
      continue;
    }
    if (c === 0x7b /* { */) {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i, i + 24));
      if (m) {
        const min = Number(m[1]);
        const max = m[2] === undefined ? min : m[3] === "" || m[3] === undefined ? -1 : Number(m[3]);
        const w = top.last;
        repeat(max === -1 ? (min === 0 ? 2 + w : sat(1 + min * w)) : sat(max * w + Math.max(0, max - min)));
        i += m[0].length;
        if (pattern.charCodeAt(i) === 0x3f) i++;
        continue;
      }
    }
    atom(1);
    i++;
  }
  while (stack.length > 1) {
    const w = closed(top);
    stack.pop();
    top = stack[stack.length - 1] as Frame;
    atom(w);
  }
  return Math.max(n, closed(top));
}

/**
 * Compiles with RE2 and classifies a failure. A pattern weighing more than
 * `CEL_RESOURCE_LIMITS.maxRegexWeight` is refused before RE2 compiles it (`invalid`, naming the
 * limit).
 *
 * @example
 * ```ts
 * compileRegex("^(a+)+$").ok; // true: RE2 runs it in linear time
 * compileRegex("(?:a|b){1000}{1000}").ok; // false: weighs more than 10,000
 * ```
 */
export function compileRegex(pattern: string): CompiledRegex {
  const max = CEL_RESOURCE_LIMITS.maxRegexWeight;
  const limit = `over the limit of ${max.toLocaleString("en-US")} (a pattern weighs its length, or its size with counted repetitions multiplied out)`;
  // Longer than the limit: at least as heavy, without reading it through.
  if (pattern.length > max) {
    return { ok: false, kind: "invalid", message: `invalid regular expression: too large: ${pattern.length.toLocaleString("en-US")} characters, ${limit}; use a shorter pattern` };
  }
  const weight = regexWeight(pattern);
  if (weight > max) {
    const shown = weight >= WEIGHT_CAP ? "more than 2^50" : weight.toLocaleString("en-US");
    return { ok: false, kind: "invalid", message: `invalid regular expression: too large: it weighs ${shown}, ${limit}; use fewer or smaller repetition counts` };
  }
  try {
    return { ok: true, re: RE2JS.compile(pattern), weight };
  } catch (e: unknown) {
    const why = e instanceof Error ? e.message : String(e);
    // RE2 refuses a counted repetition past 1000, nested ones multiplied ({100}){98}: a limit, not a missing feature.
    if (/invalid repeat count/i.test(why)) return { ok: false, kind: "invalid", message: `invalid regular expression: RE2 repeats a counted repetition at most 1000 times, nested counts multiplied: ${why}` };
    // Compiling (never running) the pattern with the JS engine only tells the two failures apart.
    let jsAccepts = false;
    try {
      new RegExp(pattern);
      jsAccepts = true;
    } catch {
      jsAccepts = false;
    }
    return jsAccepts
      ? { ok: false, kind: "unsupported", message: `regular expression not supported by RE2 (backreferences and lookaround are not): ${why}` }
      : { ok: false, kind: "invalid", message: `invalid regular expression: ${why}` };
  }
}

/**
 * Bytes a compiled program keeps per unit of weight: measured ~100 (an instruction object each) for
 * alternations of short literals repeated, ~5 where RE2 factors a long alternation; rounded up.
 */
const BYTES_PER_WEIGHT = 128;

/**
 * The bytes a cache entry is estimated to keep: the pattern's text (the key, twice over for
 * two-byte strings), the program RE2 compiled ({@link regexWeight} × 128 bytes) and a fixed part.
 *
 * @example
 * ```ts
 * regexBytes("^a+$", compileRegex("^a+$")); // 1032
 * ```
 */
export function regexBytes(pattern: string, compiled: CompiledRegex): number {
  const program = compiled.ok ? compiled.weight * BYTES_PER_WEIGHT : compiled.message.length * 2;
  return 512 + pattern.length * 2 + program;
}

/**
 * Compiled patterns, kept per environment so a pattern built at run time compiles once. Bounded by
 * count and by estimated bytes ({@link regexBytes}); the oldest go first.
 *
 * @example
 * ```ts
 * const cache = new RegexCache();
 * cache.get("^a+$"); // compiled once, then reused
 * ```
 */
export class RegexCache {
  readonly #entries = new Map<string, { readonly compiled: CompiledRegex; readonly bytes: number }>();
  readonly #max: number;
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(max: number = CEL_RESOURCE_LIMITS.regexCacheEntries, maxBytes: number = CEL_RESOURCE_LIMITS.regexCacheBytes) {
    this.#max = max;
    this.#maxBytes = maxBytes;
  }

  /** Estimated bytes the cache keeps now. */
  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(pattern: string): CompiledRegex {
    const hit = this.#entries.get(pattern);
    if (hit) return hit.compiled;
    const compiled = compileRegex(pattern);
    const bytes = regexBytes(pattern, compiled);
    // Not kept when it alone would fill the cache (a pattern of megabytes that is refused anyway).
    if (bytes > this.#maxBytes) return compiled;
    // Oldest first out: keeps memory bounded when patterns come from data.
    while (this.#entries.size > 0 && (this.#entries.size >= this.#max || this.#bytes + bytes > this.#maxBytes)) {
      const oldest = this.#entries.entries().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value[0]);
      this.#bytes -= oldest.value[1].bytes;
    }
    this.#entries.set(pattern, { compiled, bytes });
    this.#bytes += bytes;
    return compiled;
  }
}
