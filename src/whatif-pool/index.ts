/**
 * `policy-sim/whatif-pool`: what-if over several threads. Each thread loads the world once and
 * keeps it; a run sends the edit to every thread, each answers for one contiguous share of the
 * world's tasks (`whatIf`'s `shard` option), and the shares are merged (`mergeWhatIfResults`) into
 * exactly the result `whatIf` gives on one thread. Worth it for repeated runs over one large world
 * (an embedding service asking "what if…" again and again); a single run pays the loading of the
 * world in every thread first.
 *
 * Built on `node:worker_threads` directly rather than a pool package: a run needs one share on each
 * thread, each thread holding its own copy of the world, which a task queue that hands work to any
 * idle thread cannot promise.
 *
 * Edits cross threads by structured clone, so they are replacement lists (`WorldPatch`), not immer
 * recipes; `onProgress` is not available.
 *
 * @example
 * ```ts
 * import { createWhatIfPool } from "policy-sim/whatif-pool";
 * const pool = await createWhatIfPool({ file: "fixtures/world.json" }, { threads: 2 });
 * if (pool.ok) {
 *   const r = await pool.value.whatIf({ policies: [editedPolicy] });
 *   if (r.ok) console.log(r.value.counts.changed, "tasks change");
 *   await pool.value.close();
 * }
 * ```
 * @packageDocumentation
 */
import { availableParallelism } from "node:os";
import { closest } from "../text/closest.js";
import { Worker } from "node:worker_threads";
import type { SimError } from "../reducers/errors.js";
import { err, ok, type Result } from "../result.js";
import { mergeWhatIfResults, type WhatIfOptions, type WhatIfResult } from "../whatif/what-if.js";
import { saveWorld } from "../world/save-world.js";
import type { World, WorldPatch } from "../world/world.js";
import type { PoolReply, PoolRequest, PoolWorkerData, PoolWorldSource } from "./protocol.js";

export type { PoolWorldSource } from "./protocol.js";

/**
 * The world a pool's threads load: a world file's path, its JSON, or a loaded world (saved to JSON
 * once and copied to each thread).
 *
 * @example
 * ```ts
 * const source: WhatIfPoolWorld = { file: "fixtures/world.json" };
 * ```
 */
export type WhatIfPoolWorld = PoolWorldSource | World;

/**
 * Options of {@link createWhatIfPool}.
 *
 * @example
 * ```ts
 * const options: WhatIfPoolOptions = { threads: 2 };
 * ```
 */
export interface WhatIfPoolOptions {
  /** Threads to run, each with its own copy of the world (default: the machine's available parallelism, at most 16). */
  readonly threads?: number;
}

/**
 * A pool of threads holding one world.
 *
 * @example
 * ```ts
 * const r = await pool.whatIf({ users: [{ ...ada, department: "Security" }] }, { scope: { states: "any" } });
 * ```
 */
export interface WhatIfPool {
  readonly threads: number;
  /**
   * `whatIf(world, edit, options)` over the pool's threads: the same result. Runs may overlap; each
   * thread takes its shares in order. After `close`, `FAILED_PRECONDITION`.
   */
  whatIf(edit: WorldPatch, options?: Omit<WhatIfOptions, "onProgress" | "shard">): Promise<Result<WhatIfResult, SimError>>;
  /** Stops the threads. Pending runs end with `FAILED_PRECONDITION`. */
  close(): Promise<void>;
}

const MAX_THREADS = 16;

/** The thread's script: the bundle's next to this one in dist/, or the source through tsx. */
function workerUrl(): URL {
  const here = import.meta.url;
  if (here.endsWith(".ts")) return new URL("./worker-tsx.mjs", here);
  return new URL(here.endsWith(".cjs") ? "./whatif-pool-worker.cjs" : "./whatif-pool-worker.js", here);
}

function isWorld(x: WhatIfPoolWorld): x is World {
  return typeof x === "object" && x !== null && "index" in x && "tasks" in x;
}

interface Pending {
  readonly parts: (Result<WhatIfResult, SimError> | undefined)[];
  remaining: number;
  readonly resolve: (r: Result<WhatIfResult, SimError>) => void;
}

/**
 * Starts `threads` threads, each loading the world and grouping its tasks (`prepareWhatIf`, so the
 * first run is as fast as later ones), and resolves once all have loaded it: with the
 * pool, or with why the world does not load (`INVALID_ARGUMENT`, the first diagnostic). Never
 * rejects.
 *
 * @example
 * ```ts
 * const pool = await createWhatIfPool(world, { threads: 2 });
 * if (!pool.ok) console.error(pool.error.message);
 * ```
 */
export async function createWhatIfPool(world: WhatIfPoolWorld, options: WhatIfPoolOptions = {}): Promise<Result<WhatIfPool, SimError>> {
  const threads = options.threads ?? Math.min(availableParallelism(), MAX_THREADS);
  if (!Number.isSafeInteger(threads) || threads < 1 || threads > MAX_THREADS)
    return err({ code: "INVALID_ARGUMENT", message: `threads must be a whole number from 1 to ${MAX_THREADS}, got ${String(threads)}`, field: "threads" });
  let data: PoolWorkerData;
  try {
    data = { source: isWorld(world) ? { json: saveWorld(world) } : "file" in world ? { file: String(world.file) } : { json: world.json } };
  } catch (e: unknown) {
    return err({ code: "INVALID_ARGUMENT", message: `the world cannot be sent to the threads: ${e instanceof Error ? e.message : String(e)}`, field: "world" });
  }

  const workers: Worker[] = [];
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let closed = false;
  let failure: SimError | null = null;

  // Threads keep the process alive only while a run is pending.
  const unrefIfIdle = (): void => {
    if (pending.size === 0) for (const w of workers) w.unref();
  };
  const settle = (id: number, index: number, result: Result<WhatIfResult, SimError>): void => {
    const p = pending.get(id);
    if (!p || p.parts[index] !== undefined) return unrefIfIdle();
    p.parts[index] = result;
    if (--p.remaining > 0) return;
    pending.delete(id);
    unrefIfIdle();
    const failed = p.parts.find((r) => r && !r.ok);
    if (failed) p.resolve(failed);
    else p.resolve(mergeWhatIfResults(p.parts.map((r) => (r as { value: WhatIfResult }).value)));
  };
  const failAll = (error: SimError): void => {
    failure ??= error;
    for (const [id, p] of [...pending]) {
      pending.delete(id);
      p.resolve(err(error));
    }
    unrefIfIdle();
  };

  let ready: Promise<(SimError | null)[]>;
  try {
    ready = Promise.all(
      Array.from({ length: threads }, (_, index) => {
        const worker = new Worker(workerUrl(), { workerData: data });
        workers.push(worker);
        return new Promise<SimError | null>((resolve) => {
          worker.on("message", (m: PoolReply) => {
            if (m.kind === "ready") resolve(m.error);
            else settle(m.id, index, m.result);
          });
          worker.on("error", (e: Error) => {
            const error: SimError = { code: "INTERNAL", message: `policy-sim internal error: a what-if thread failed: ${e.message}` };
            resolve(error);
            failAll(error);
          });
          worker.on("exit", (code) => {
            if (closed) return;
            const error: SimError = { code: "INTERNAL", message: `policy-sim internal error: a what-if thread stopped (exit code ${code})` };
            resolve(error);
            failAll(error);
          });
        });
      }),
    );
  } catch (e: unknown) {
    closed = true;
    await Promise.all(workers.map((w) => w.terminate()));
    return err({ code: "INTERNAL", message: `policy-sim internal error: the what-if threads cannot start: ${e instanceof Error ? e.message : String(e)}` });
  }
  const problems = await ready;
  const problem = problems.find((p) => p !== null);
  if (problem) {
    closed = true;
    await Promise.all(workers.map((w) => w.terminate()));
    return err(problem);
  }
  // Idle threads do not keep the process alive; a pending run does.
  for (const w of workers) w.unref();

  const pool: WhatIfPool = {
    threads,
    whatIf(edit, runOptions) {
      if (closed) return Promise.resolve(err({ code: "FAILED_PRECONDITION", message: "the what-if pool is closed" }));
      if (failure) return Promise.resolve(err(failure));
      if (typeof edit !== "object" || edit === null || Array.isArray(edit))
        return Promise.resolve(
          err({ code: "INVALID_ARGUMENT", message: "a pool's edit is a list of replacements ({ policies, entitlements, apps, users, tenant, now }); recipes cannot cross threads", field: "edit" }),
        );
      if (runOptions !== undefined && runOptions !== null && typeof runOptions !== "object")
        return Promise.resolve(err({ code: "INVALID_ARGUMENT", message: "options must be an object", field: "options" }));
      const { onProgress, shard, ...rest } = (runOptions ?? {}) as WhatIfOptions;
      // The pool shards the run itself and its threads cannot call back: refused, not dropped
      // (a JavaScript caller that passed them would otherwise think they applied).
      for (const [field, v] of [["onProgress", onProgress], ["shard", shard]] as const)
        if (v !== undefined && v !== null)
          return Promise.resolve(err({ code: "INVALID_ARGUMENT", message: `options.${field} is not available in a pool (it shards each run over its threads itself); run whatIf in this thread to use it`, field: `options.${field}` }));
      // Only what a pool's run takes: the worker's own refusal would list options a pool refuses.
      for (const k of Object.keys(rest))
        if (!POOL_OPTION_KEYS.includes(k)) {
          const guess = closest(k, POOL_OPTION_KEYS);
          return Promise.resolve(
            err({ code: "INVALID_ARGUMENT", message: `options.${k} is not an option of a pool's whatIf; ${guess === undefined ? `the keys are ${POOL_OPTION_KEYS.join(", ")}` : `did you mean ${guess}?`}`, field: `options.${k}` }),
          );
        }
      // Copied here first, so that what cannot cross a thread is refused before any thread is asked.
      for (const [field, v] of [["edit", edit], ["options", rest]] as const) {
        try {
          structuredClone(v);
        } catch (e: unknown) {
          const at = uncloneablePath(v, field);
          return Promise.resolve(err({ code: "INVALID_ARGUMENT", message: `${at ?? `the ${field}`} cannot be sent to the threads: ${e instanceof Error ? e.message : String(e)}`, field: at ?? field }));
        }
      }
      const id = nextId++;
      return new Promise((resolve) => {
        pending.set(id, { parts: new Array<Result<WhatIfResult, SimError> | undefined>(threads).fill(undefined), remaining: threads, resolve });
        for (const w of workers) w.ref();
        workers.forEach((w, index) => w.postMessage({ id, edit, options: { ...rest, shard: { index, count: threads } } } satisfies PoolRequest));
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      failAll({ code: "FAILED_PRECONDITION", message: "the what-if pool was closed before the run ended" });
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
  return ok(pool);
}

/** The options a pool's run takes (`onProgress` and `shard` are refused apart, with why). */
const POOL_OPTION_KEYS: readonly string[] = ["scope", "prune"];

/**
 * The path of the first value in `v` that cannot cross a thread (a function, a symbol), as
 * `edit.policies[0].displayName`; undefined when none is found within a bounded walk.
 */
function uncloneablePath(v: unknown, path: string): string | undefined {
  const seen = new Set<object>();
  let visited = 0;
  const walk = (x: unknown, at: string, depth: number): string | undefined => {
    if (typeof x === "function" || typeof x === "symbol") return at;
    if (typeof x !== "object" || x === null || seen.has(x) || depth > 64 || ++visited > 100_000) return undefined;
    seen.add(x);
    try {
      for (const [k, child] of Object.entries(x)) {
        const found = walk(child, Array.isArray(x) ? `${at}[${k}]` : `${at}.${k}`, depth + 1);
        if (found !== undefined) return found;
      }
    } catch {
      // A getter that throws or a revoked proxy: the clone's own message says what failed.
    }
    return undefined;
  };
  return walk(v, path, 0);
}
