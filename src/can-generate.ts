/**
 * Whether this runtime lets the library compile code with `new Function`: a Content-Security-Policy
 * without `unsafe-eval` forbids it, and then the codecs and conditions run their interpreted forms.
 * Asked once, on first use (the answer cannot change within a process).
 */
let evalAllowed: boolean | undefined;

/**
 * True where `new Function` works.
 *
 * @example
 * ```ts
 * const run = canGenerate() ? generated() : closures();
 * ```
 */
export function canGenerate(): boolean {
  if (evalAllowed === undefined) {
    try {
      evalAllowed = (new Function("return true") as () => unknown)() === true;
    } catch {
      evalAllowed = false;
    }
  }
  return evalAllowed;
}
