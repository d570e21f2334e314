/**
 * `matches()` over RE2 (re2js): linear-time matching in the same dialect as the service's cel-go, so
 * no pattern/input pair can backtrack catastrophically. cel-js's own `matches` uses the JS engine.
 */
import { RE2JS } from "re2js";

/**
 * A pattern compiled by RE2, or why it could not be: `unsupported` when the pattern is valid for a
 * backtracking engine but uses what RE2 leaves out on purpose (backreferences, lookaround), `invalid`
 * when it is not a regular expression at all.
 *
 * @example
 * ```ts
 * const r = compileRegex("(a)\\1");
 * r.ok === false && r.kind; // "unsupported"
 * ```
 */
export type CompiledRegex =
  | { readonly ok: true; readonly re: RE2JS }
  | { readonly ok: false; readonly kind: "invalid" | "unsupported"; readonly message: string };

/**
 * Compiles with RE2 and classifies a failure.
 *
 * @example
 * ```ts
 * compileRegex("^(a+)+$").ok; // true: RE2 runs it in linear time
 * ```
 */
export function compileRegex(pattern: string): CompiledRegex {
  try {
    return { ok: true, re: RE2JS.compile(pattern) };
  } catch (e: unknown) {
    const why = e instanceof Error ? e.message : String(e);
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
 * Compiled patterns, kept per environment so a pattern built at run time compiles once.
 *
 * @example
 * ```ts
 * const cache = new RegexCache();
 * cache.get("^a+$"); // compiled once, then reused
 * ```
 */
export class RegexCache {
  readonly #entries = new Map<string, CompiledRegex>();
  readonly #max: number;

  constructor(max = 512) {
    this.#max = max;
  }

  get(pattern: string): CompiledRegex {
    const hit = this.#entries.get(pattern);
    if (hit) return hit;
    const compiled = compileRegex(pattern);
    // Oldest first out: keeps memory bounded when patterns come from data.
    if (this.#entries.size >= this.#max) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(pattern, compiled);
    return compiled;
  }
}
