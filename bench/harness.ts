/**
 * A small benchmark harness: warm up, calibrate a batch size, then time repeated batches with
 * `process.hrtime.bigint()` and report the median and 95th percentile of ns per operation across
 * batches. Every result a measured function returns is folded into {@link sink}, which the runner
 * prints, so the JIT cannot drop the work as dead code.
 */

/** How long to run before measuring, how long one batch should take, how many batches to time. */
export interface MeasureOptions {
  /** Warm-up time in ms (default 300). */
  readonly warmupMs?: number;
  /** Target duration of one timed batch in ms (default 20). */
  readonly batchMs?: number;
  /** Number of timed batches (default 25). */
  readonly batches?: number;
  /** Upper bound on the whole measurement, warm-up included, in ms (default 4000). */
  readonly budgetMs?: number;
  /**
   * Operations each call of the measured function performs (default 1), e.g. the number of tasks a
   * call decides. Reported figures are per operation.
   */
  readonly opsPerCall?: number;
}

/** Median and p95 of ns per operation over the timed batches, plus how much was measured. */
export interface Measurement {
  readonly nsPerOp: number;
  readonly p95: number;
  readonly min: number;
  readonly batches: number;
  readonly opsPerBatch: number;
}

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * A young-generation collection, run between timed batches (never inside one), so that garbage
 * left by one case is not collected on the next case's clock. Each batch still pays for the
 * collections its own allocations cause. A no-op where `gc` cannot be exposed.
 */
export const collectYoung: () => void = (() => {
  try {
    setFlagsFromString("--expose-gc");
    const gc: unknown = runInNewContext("gc");
    if (typeof gc === "function") {
      const minor = gc as (options: { readonly type: "minor" }) => void;
      return () => minor({ type: "minor" });
    }
  } catch {
    // fall through
  }
  return () => undefined;
})();

let sinkValue = 0;

/**
 * Folds a result into the global sink: any value counts (its truthiness, its length, its type), so
 * that the computation producing it is observable.
 *
 * @example
 * ```ts
 * consume(selectSteps(world, policy, runner));
 * ```
 */
export function consume(v: unknown): void {
  if (v === true) sinkValue = (sinkValue + 1) | 0;
  else if (typeof v === "number") sinkValue = (sinkValue + (v | 0)) | 0;
  else if (typeof v === "object" && v !== null) sinkValue = (sinkValue ^ ((sinkValue << 1) | 1)) | 0;
  else sinkValue = (sinkValue + 3) | 0;
}

/** The accumulated sink, printed by the runner so nothing measured is dead code. */
export function sink(): number {
  return sinkValue;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[i] ?? NaN;
}

/**
 * Measures `fn`: warm-up, calibration of calls per batch, then timed batches until the batch count
 * or the time budget is reached (at least 3 batches).
 *
 * @example
 * ```ts
 * const m = measure(() => evaluateAll(), { opsPerCall: 1 });
 * console.log(m.nsPerOp, m.p95);
 * ```
 */
export function measure(fn: () => unknown, options: MeasureOptions = {}): Measurement {
  const warmupMs = options.warmupMs ?? 300;
  const batchMs = options.batchMs ?? 20;
  const batchCount = options.batches ?? 25;
  const budgetNs = BigInt(Math.round((options.budgetMs ?? 4000) * 1e6));
  const opsPerCall = options.opsPerCall ?? 1;
  const start = process.hrtime.bigint();

  // Warm-up, which also estimates the cost of one call.
  let calls = 0;
  const warmEnd = start + BigInt(Math.round(warmupMs * 1e6));
  let now = start;
  do {
    consume(fn());
    calls++;
    now = process.hrtime.bigint();
  } while (now < warmEnd);
  const perCallNs = Number(now - start) / calls;
  const callsPerBatch = Math.max(1, Math.round((batchMs * 1e6) / Math.max(perCallNs, 1)));

  const samples: number[] = [];
  while (samples.length < batchCount) {
    collectYoung();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < callsPerBatch; i++) consume(fn());
    const t1 = process.hrtime.bigint();
    samples.push(Number(t1 - t0) / (callsPerBatch * opsPerCall));
    if (samples.length >= 3 && t1 - start > budgetNs) break;
  }
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    nsPerOp: percentile(sorted, 0.5),
    p95: percentile(sorted, 0.95),
    min: sorted[0] ?? NaN,
    batches: samples.length,
    opsPerBatch: callsPerBatch * opsPerCall,
  };
}

/** One member of a group measured together: per-member figures, plus per-round ratios on request. */
export interface GroupMeasurement {
  readonly results: Readonly<Record<string, Measurement>>;
  /** Median over rounds of `a / b`, for the pairs asked for, keyed `"a/b"`. */
  readonly ratios: Readonly<Record<string, number>>;
}

/**
 * Measures several functions together, interleaving their batches round by round (in a rotating
 * order), so that drift in the machine's state (frequency, GC, JIT) hits them alike. Ratios are
 * computed per round, from batches timed next to each other, and their median reported.
 *
 * @example
 * ```ts
 * const g = measureGroup({ floor: () => f(), selection: () => s() }, [["selection", "floor"]]);
 * g.ratios["selection/floor"];
 * ```
 */
export function measureGroup(
  fns: Readonly<Record<string, () => unknown>>,
  pairs: readonly (readonly [string, string])[] = [],
  options: MeasureOptions & { readonly opsPerCallOf?: Readonly<Record<string, number>> } = {},
): GroupMeasurement {
  const names = Object.keys(fns);
  const warmupMs = options.warmupMs ?? 300;
  const batchMs = options.batchMs ?? 15;
  const rounds = options.batches ?? 25;
  const budgetNs = BigInt(Math.round((options.budgetMs ?? 6000) * 1e6));
  const start = process.hrtime.bigint();
  const call = (name: string): (() => unknown) => {
    const f = fns[name];
    if (!f) throw new Error(`no function ${name}`);
    return f;
  };

  // Warm-up, round robin, which also estimates each function's cost per call.
  const calls = new Map<string, number>(names.map((n) => [n, 0]));
  const spent = new Map<string, number>(names.map((n) => [n, 0]));
  const warmEnd = start + BigInt(Math.round(warmupMs * 1e6));
  while (process.hrtime.bigint() < warmEnd) {
    for (const n of names) {
      const f = call(n);
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < 8; i++) consume(f());
      spent.set(n, (spent.get(n) ?? 0) + Number(process.hrtime.bigint() - t0));
      calls.set(n, (calls.get(n) ?? 0) + 8);
    }
  }
  const perBatch = new Map<string, number>(
    names.map((n) => [n, Math.max(1, Math.round((batchMs * 1e6) / Math.max(1, (spent.get(n) ?? 1) / (calls.get(n) ?? 1))))]),
  );

  const samples = new Map<string, number[]>(names.map((n) => [n, []]));
  const roundSamples: Record<string, number>[] = [];
  for (let r = 0; r < rounds; r++) {
    const round: Record<string, number> = {};
    for (let k = 0; k < names.length; k++) {
      const n = names[(k + r) % names.length] as string;
      const f = call(n);
      const count = perBatch.get(n) ?? 1;
      const ops = count * (options.opsPerCallOf?.[n] ?? options.opsPerCall ?? 1);
      collectYoung();
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < count; i++) consume(f());
      const ns = Number(process.hrtime.bigint() - t0) / ops;
      round[n] = ns;
      samples.get(n)?.push(ns);
    }
    roundSamples.push(round);
    if (r >= 4 && process.hrtime.bigint() - start > budgetNs) break;
  }

  const results: Record<string, Measurement> = {};
  for (const n of names) {
    const sorted = [...(samples.get(n) ?? [])].sort((a, b) => a - b);
    results[n] = {
      nsPerOp: percentile(sorted, 0.5),
      p95: percentile(sorted, 0.95),
      min: sorted[0] ?? NaN,
      batches: sorted.length,
      opsPerBatch: (perBatch.get(n) ?? 1) * (options.opsPerCallOf?.[n] ?? options.opsPerCall ?? 1),
    };
  }
  const ratios: Record<string, number> = {};
  for (const [a, b] of pairs) {
    const rs = roundSamples.map((r) => (r[a] ?? NaN) / (r[b] ?? NaN)).sort((x, y) => x - y);
    ratios[`${a}/${b}`] = percentile(rs, 0.5);
  }
  return { results, ratios };
}
