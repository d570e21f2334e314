/**
 * The errors a task action returns, tagged by the gRPC canonical code the service's HTTP gateway
 * maps to a status (docs/architecture.md).
 */
import { describeArgument } from "../codec/diagnostic.js";
import { isWorld } from "../world/world.js";

/**
 * Why an action was refused. `code` is the gRPC canonical name; `httpStatusOf` gives its status.
 * `details` carries data a program can use (the explanation of a failed Hard Reset, the bad field).
 *
 * @example
 * ```ts
 * const r = hardReset(world, { taskId: "nope" }, { actorId: "u-it-dir" });
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

/**
 * `INVALID_ARGUMENT` when `world` is not a World (what `loadWorld` returns), naming what it is;
 * `undefined` for a World. Entry points taking a world check it first, so a null or a raw world
 * file (not loaded) is the caller's error, with what to do, not an `INTERNAL` one.
 *
 * @example
 * ```ts
 * notAWorld(JSON.parse(text))?.message; // "world must be a World (loadWorld's value), not an object with keys users, tasks, …"
 * ```
 */
export function notAWorld(world: unknown): SimError | undefined {
  if (isWorld(world)) return undefined;
  const file = typeof world === "object" && world !== null && !Array.isArray(world) && Object.hasOwn(world, "tasks") ? " (a world file: load it with loadWorld first)" : "";
  return { code: "INVALID_ARGUMENT", message: `world must be a World (loadWorld's value), not ${describeArgument(world)}${file}`, field: "world" };
}
