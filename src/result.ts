/**
 * Expected failures are values. A `Result` is either `{ ok: true, value }` or `{ ok: false, error }`;
 * the library's public functions return one instead of throwing.
 *
 * @example
 * ```ts
 * import { ok, err, type Result } from "policy-sim";
 * const half = (n: number): Result<number, string> => (n % 2 === 0 ? ok(n / 2) : err("odd"));
 * half(4); // { ok: true, value: 2 }
 * ```
 */
export type Result<T, E> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E };

/**
 * Wraps a value as a successful {@link Result}.
 *
 * @example
 * ```ts
 * ok(1); // { ok: true, value: 1 }
 * ```
 */
export const ok = <T>(value: T): { readonly ok: true; readonly value: T } => ({ ok: true, value });

/**
 * Wraps an error as a failed {@link Result}.
 *
 * @example
 * ```ts
 * err({ code: "NOT_FOUND", message: "no task 42" }); // { ok: false, error: {...} }
 * ```
 */
export const err = <E>(error: E): { readonly ok: false; readonly error: E } => ({ ok: false, error });

/**
 * Throws for a programmer error: a state the types say cannot happen. Expected failures never come
 * through here; they are {@link Result} values.
 *
 * @example
 * ```ts
 * const never = (x: never): never => fail(`unexpected ${String(x)}`);
 * ```
 */
export function fail(message: string): never {
  throw new Error(`policy-sim internal error: ${message}`);
}
