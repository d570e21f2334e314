/**
 * This package's version, as `package.json` states it (a test holds the two together): what
 * `policy-sim --version` prints and what a bug report should quote.
 *
 * @example
 * ```ts
 * import { VERSION } from "policy-sim";
 * console.log(`policy-sim ${VERSION}`); // "policy-sim 0.1.0"
 * ```
 */
export const VERSION = "0.1.0";
