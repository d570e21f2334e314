/**
 * What a thrown value says, for the messages of the functions that catch what a caller's code
 * throws (a what-if recipe, an `onProgress` callback) or what a bug of ours throws.
 */
import { describeValue } from "../codec/diagnostic.js";

/**
 * The message of a thrown value, without trusting it: `String(x)` itself throws for an object
 * without a prototype, and a caller's code may throw anything.
 *
 * @example
 * ```ts
 * thrownMessage(new Error("boom")); // "boom"
 * thrownMessage(Object.create(null)); // "an object"
 * ```
 */
export function thrownMessage(e: unknown): string {
  try {
    if (e instanceof Error) return String(e.message);
    return typeof e === "string" ? e : describeValue(e);
  } catch {
    // A getter on `message`, or a revoked proxy: nothing about it can be read.
    return "a value that cannot be read";
  }
}
