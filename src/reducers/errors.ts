/**
 * The errors a task action returns, tagged by the gRPC canonical code the service's HTTP gateway
 * maps to a status (docs/architecture.md).
 */

/**
 * Why an action was refused. `code` is the gRPC canonical name; `httpStatusOf` gives its status.
 * `details` carries data a program can use (the explanation of a failed Hard Reset, the bad field).
 *
 * @example
 * ```ts
 * const r = hardReset(world, { taskId: "nope" }, { actorId: "u-root" });
 * if (!r.ok && r.error.code === "NOT_FOUND") console.log(r.error.message);
 * ```
 */
export type SimError =
  | { readonly code: "NOT_FOUND"; readonly message: string }
  | { readonly code: "PERMISSION_DENIED"; readonly message: string }
  | { readonly code: "UNAUTHENTICATED"; readonly message: string }
  | { readonly code: "INVALID_ARGUMENT"; readonly message: string; readonly field?: string }
  | { readonly code: "FAILED_PRECONDITION"; readonly message: string; readonly details?: unknown }
  | { readonly code: "INTERNAL"; readonly message: string };

/**
 * The gRPC canonical codes used by {@link SimError}.
 *
 * @example
 * ```ts
 * const c: SimErrorCode = "PERMISSION_DENIED";
 * ```
 */
export type SimErrorCode = SimError["code"];

const STATUS: Record<SimErrorCode, number> = {
  NOT_FOUND: 404,
  PERMISSION_DENIED: 403,
  UNAUTHENTICATED: 401,
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  INTERNAL: 500,
};

/**
 * The HTTP status the service's gateway returns for a code.
 *
 * @example
 * ```ts
 * httpStatusOf("NOT_FOUND"); // 404
 * ```
 */
export function httpStatusOf(code: SimErrorCode): number {
  return STATUS[code];
}

/**
 * Runs a reducer body, turning an unexpected exception (a bug of ours) into an `INTERNAL` error
 * value, so no public function throws.
 */
export function guarded<T>(body: () => T | { ok: false; error: SimError }): T | { ok: false; error: SimError } {
  try {
    return body();
  } catch (e: unknown) {
    return { ok: false, error: { code: "INTERNAL", message: `policy-sim internal error: ${e instanceof Error ? e.message : String(e)}` } };
  }
}
