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
 * thrownMessage({ code: "E1" }); // '{"code":"E1"}'
 * thrownMessage(Object.create(null)); // "an object"
 * ```
 */
export function thrownMessage(e: unknown): string {
  try {
    if (e instanceof Error) return String(e.message);
    if (typeof e === "string") return e;
    if (typeof e === "symbol") return e.toString();
    // A plain object thrown ({ code: "E1" }): its JSON, short, says more than "an object".
    if (typeof e === "object" && e !== null && (Object.getPrototypeOf(e) === Object.prototype || Array.isArray(e))) {
      let json: string | undefined;
      try {
        json = JSON.stringify(e);
      } catch {
        // Cyclic, or holding a bigint: told by its kind below.
      }
      if (typeof json === "string") return json.length > 200 ? `${json.slice(0, 200)}…` : json;
    }
    return describeValue(e);
  } catch {
    // A getter on `message`, or a revoked proxy: nothing about it can be read.
    return "a value that cannot be read";
  }
}
