/**
 * The messages between a what-if pool and its threads. Everything here crosses a thread boundary
 * by structured clone: plain data only.
 */
import type { SimError } from "../reducers/errors.js";
import type { Result } from "../result.js";
import type { WhatIfOptions, WhatIfResult } from "../whatif/what-if.js";
import type { WorldPatch } from "../world/world.js";

/**
 * What a thread loads: a world file's path, or its JSON.
 *
 * @example
 * ```ts
 * const source: PoolWorldSource = { file: "fixtures/world.json" };
 * ```
 */
export type PoolWorldSource = { readonly file: string } | { readonly json: unknown };

/** A thread's `workerData`. */
export interface PoolWorkerData {
  readonly source: PoolWorldSource;
}

/** One run's share: the edit and the options, with the thread's shard. */
export interface PoolRequest {
  readonly id: number;
  readonly edit: WorldPatch;
  readonly options: Omit<WhatIfOptions, "onProgress">;
}

/** A thread's answers: once when its world is loaded (or not), then one per request. */
export type PoolReply =
  | { readonly kind: "ready"; readonly error: SimError | null }
  | { readonly kind: "result"; readonly id: number; readonly result: Result<WhatIfResult, SimError> };
