/**
 * World I/O figures (issues 15 and 13): how loading and the task actions scale with a task's
 * history, and loading large worlds against `JSON.parse` of the same bytes. Prints a table and
 * stores the figures under the `worldio` key of bench/results/latest.json (other keys untouched).
 * `npm run bench` runs it in a process of its own. Asserts nothing about time.
 *
 *   node --import tsx bench/world-io.bench.ts
 *   BENCH_QUICK=1 node --import tsx bench/world-io.bench.ts   # smaller sizes
 *   BENCH_WORLDIO=comments,reset node --import tsx bench/world-io.bench.ts   # some parts
 *   BENCH_WORLDIO=load BENCH_LOAD_SIZES=100000,1000000 node --import tsx bench/world-io.bench.ts
 *
 * Parts:
 * - comments: `loadWorld` of the sample tenant with 10k–80k comments on one task (and the same
 *   number spread over its tasks), and one `comment` call on a task holding 1k or 50k comments.
 *   Linear loading and O(1) appends show as a constant time per comment.
 * - reset: 2,000 Hard Resets of one task; the time of one reset and the size of its response at
 *   the 1st, 10th, 100th, 1,000th and 2,000th. Constant figures mean a reset does not pay for the
 *   resets before it.
 * - load: a synthetic tenant of 100k (and 1M) tasks, each carrying its policy snapshot as exports
 *   do (2-rule policies, ~4.8 KB a task), written to a temporary file with worldJsonChunks; then, each
 *   in a fresh process: JSON.parse of the file's text (only below V8's 512 MiB string limit),
 *   loadWorld(JSON.parse(text)), and loadWorldChunks of the file read in 1 MiB chunks. Reported:
 *   wall time, peak RSS, and the loaded world's heap (heap used after a full GC, less the
 *   process's before loading). The file is deleted afterwards.
 */
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { PerformanceObserver, type PerformanceEntry } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { jsonChunks } from "../src/world/json-writer.js";
import { syntheticWorld } from "../src/testing/synthetic-world.js";
import { comment } from "../src/reducers/comment.js";
import { hardReset } from "../src/reducers/hard-reset.js";
import { loadWorld, loadWorldChunks } from "../src/world/load-world.js";
import type { World } from "../src/world/world.js";

const QUICK = process.env["BENCH_QUICK"] === "1";
const CHILD = process.argv[2] === "--child";
// A child measures one load and prints it (below); it runs none of the parts.
const PARTS = new Set(CHILD ? [] : (process.env["BENCH_WORLDIO"] ?? "comments,reset,load").split(",").filter((x) => x !== ""));
const started = performance.now();
const loadAtStart = loadavg();
const sample = JSON.parse(readFileSync(new URL("../fixtures/world.json", import.meta.url), "utf8")) as Record<string, unknown>;
const sampleTasks = sample["tasks"] as { id: string; userId: string; numericId: string }[];
const log = (s: string): void => void process.stderr.write(`${s}\n`);
let sink = 0;

function mustLoad(json: unknown): World {
  const r = loadWorld(json);
  if (!r.ok) throw new Error(`bench world did not load: ${JSON.stringify(r.error.slice(0, 3))}`);
  return r.value;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)] as number;
}

function comments(n: number, spread: boolean): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => {
    const task = spread ? (sampleTasks[i % sampleTasks.length] as { id: string; userId: string }) : (sampleTasks[0] as { id: string; userId: string });
    return { id: `cmt-b${i}`, taskId: task.id, userId: task.userId, comment: `note ${i}`, createdAt: "2026-11-22T09:00:00Z" };
  });
}

interface CommentRow {
  readonly comments: number;
  readonly oneTaskLoadMs: number;
  readonly spreadLoadMs: number;
  readonly oneTaskNsPerComment: number;
}


// -------------------------------------------------------------------------------------------------
// Child mode: one measurement of loading `file` in a fresh process, printed as one JSON line.

function fileChunks(path: string): Iterable<Uint8Array> {
  return {
    *[Symbol.iterator]() {
      const fd = openSync(path, "r");
      try {
        for (;;) {
          const buffer = new Uint8Array(1 << 20);
          const n = readSync(fd, buffer, 0, buffer.length, null);
          if (n === 0) return;
          yield buffer.subarray(0, n);
        }
      } finally {
        closeSync(fd);
      }
    },
  };
}

if (CHILD) {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  const [mode, file] = [process.argv[3], process.argv[4] as string];
  gc();
  const gcEntries: PerformanceEntry[] = [];
  new PerformanceObserver((list) => void gcEntries.push(...list.getEntries())).observe({ entryTypes: ["gc"] });
  const heapBefore = process.memoryUsage().heapUsed;
  const rssBeforeMB = process.memoryUsage().rss / 2 ** 20;
  const t0 = performance.now();
  let kept: unknown;
  if (mode === "parse") kept = JSON.parse(readFileSync(file, "utf8"));
  else if (mode === "loadWorld") {
    const r = loadWorld(JSON.parse(readFileSync(file, "utf8")));
    if (!r.ok) throw new Error(JSON.stringify(r.error.slice(0, 3)));
    kept = r.value;
  } else {
    const r = loadWorldChunks(fileChunks(file));
    if (!r.ok) throw new Error(JSON.stringify(r.error.slice(0, 3)));
    kept = r.value;
  }
  const t1 = performance.now();
  const ms = t1 - t0;
  gc();
  const heapMB = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
  const peakRssMB = process.resourceUsage().maxRSS / 1024;
  // GC entries arrive on the event loop: count those that started during the load.
  setTimeout(() => {
    const gcMs = gcEntries.filter((e) => e.startTime >= t0 && e.startTime < t1).reduce((sum, e) => sum + e.duration, 0);
    console.log(JSON.stringify({ mode, ms, gcMs, heapMB, peakRssMB, rssBeforeMB, kept: typeof kept }));
    process.exit(0);
  }, 100);
}

const results: Record<string, unknown> = {};

if (PARTS.has("comments")) {
  log("comments: loadWorld with N comments on one task / spread over the sample's tasks; comment() at 1k and 50k");
  const sizes = QUICK ? [10_000, 20_000] : [10_000, 20_000, 40_000, 80_000];
  const rows: CommentRow[] = [];
  const timeLoad = (json: unknown): number => {
    const times: number[] = [];
    for (let run = 0; run < 3; run++) {
      const t0 = performance.now();
      sink += mustLoad(json).comments.size;
      times.push(performance.now() - t0);
    }
    return median(times);
  };
  for (const n of sizes) {
    const one = timeLoad({ ...sample, comments: comments(n, false) });
    const spread = timeLoad({ ...sample, comments: comments(n, true) });
    rows.push({ comments: n, oneTaskLoadMs: one, spreadLoadMs: spread, oneTaskNsPerComment: (one * 1e6) / n });
    log(`  ${String(n).padStart(6)} comments: one task ${one.toFixed(1)} ms (${((one * 1e6) / n).toFixed(0)} ns/comment), spread ${spread.toFixed(1)} ms`);
  }
  const appendRows: { readonly existing: number; readonly usPerComment: number }[] = [];
  for (const existing of [1_000, 50_000]) {
    let world = mustLoad({ ...sample, comments: comments(existing, false) });
    const task = sampleTasks[0] as { id: string; userId: string };
    const calls = 2_000;
    // Warm-up on a copy of the chain, then time a fresh chain of calls on the newest world.
    for (let i = 0; i < 200; i++) {
      const r = comment(world, { taskId: task.id, comment: `w${i}` }, { actorId: task.userId });
      if (!r.ok) throw new Error(r.error.message);
      world = r.value.world;
    }
    const t0 = performance.now();
    for (let i = 0; i < calls; i++) {
      const r = comment(world, { taskId: task.id, comment: `c${i}` }, { actorId: task.userId });
      if (!r.ok) throw new Error(r.error.message);
      world = r.value.world;
    }
    const us = ((performance.now() - t0) * 1000) / calls;
    sink += world.comments.get(task.id)?.length ?? 0;
    appendRows.push({ existing, usPerComment: us });
    log(`  comment() on a task holding ${existing} comments: ${us.toFixed(1)} µs a call`);
  }
  results["comments"] = {
    load: rows.map((r) => ({ ...r, oneTaskLoadMs: Number(r.oneTaskLoadMs.toFixed(1)), spreadLoadMs: Number(r.spreadLoadMs.toFixed(1)), oneTaskNsPerComment: Math.round(r.oneTaskNsPerComment) })),
    append: appendRows.map((r) => ({ ...r, usPerComment: Number(r.usPerComment.toFixed(2)) })),
  };
}

if (PARTS.has("reset")) {
  const total = QUICK ? 500 : 2_000;
  log(`reset: ${total} Hard Resets of task 1001 (sample tenant); time and response size at points along the way`);
  let world = mustLoad(sample);
  const marks = new Set([1, 10, 100, 1_000, 2_000].filter((m) => m <= total));
  const rows: { readonly reset: number; readonly usPerReset: number; readonly responseBytes: number; readonly historyInWorld: number }[] = [];
  const window = 20; // resets timed around each mark
  const times: number[] = [];
  for (let i = 1; i <= total; i++) {
    const t0 = performance.now();
    const r = hardReset(world, { taskId: "1001" }, { actorId: "u-it-dir" });
    const t1 = performance.now();
    if (!r.ok) throw new Error(r.error.message);
    world = r.value.world;
    times.push((t1 - t0) * 1000);
    if (marks.has(i)) {
      const bytes = Buffer.byteLength(JSON.stringify(r.value.response));
      const recent = times.slice(-Math.min(window, times.length));
      const historyInWorld = world.tasks.get(sampleTasks[0]?.id ?? "")?.policy?.history?.length ?? 0;
      rows.push({ reset: i, usPerReset: median(recent), responseBytes: bytes, historyInWorld });
      log(`  reset #${String(i).padStart(5)}: ${median(recent).toFixed(1)} µs (median of the last ${recent.length}), response ${bytes} bytes, history in the world ${historyInWorld} steps`);
    }
  }
  results["reset"] = rows.map((r) => ({ ...r, usPerReset: Number(r.usPerReset.toFixed(1)) }));
}


if (PARTS.has("load")) {
  const sizes = (process.env["BENCH_LOAD_SIZES"] ?? (QUICK ? "20000" : "100000,1000000")).split(",").map(Number);
  const rows: Record<string, unknown>[] = [];
  /** JSON.parse's ms per MiB, from the last size small enough for it. */
  let parseRate: number | undefined;
  for (const n of sizes) {
    const file = join(tmpdir(), `policy-sim-bench-world-${process.pid}-${n}.json`);
    const tw = performance.now();
    const json = syntheticWorld({ seed: 11, tasks: n, rulesPerPolicy: 2, policies: 20 });
    const fd = openSync(file, "w");
    for (const chunk of jsonChunks(json)) writeSync(fd, chunk);
    closeSync(fd);
    const bytes = statSync(file).size;
    log(`load: ${n} tasks with embedded snapshots, ${(bytes / 2 ** 20).toFixed(0)} MiB file written in ${((performance.now() - tw) / 1000).toFixed(1)} s`);
    const measure = (mode: string): Record<string, number> | undefined => {
      const child = spawnSync(process.execPath, ["--max-old-space-size=16384", "--import", "tsx", new URL(import.meta.url).pathname, "--child", mode, file], { encoding: "utf8", maxBuffer: 1 << 20 });
      const line = child.stdout.trim().split("\n").at(-1) ?? "";
      if (child.status !== 0 || !line.startsWith("{")) {
        log(`  ${mode}: failed (${child.status ?? child.signal}) ${child.stderr.split("\n").find((l) => /Error|error/.test(l)) ?? ""}`);
        return undefined;
      }
      const m = JSON.parse(line) as Record<string, number>;
      log(`  ${mode.padEnd(16)} ${(m["ms"] as number).toFixed(0).padStart(7)} ms (GC ${(m["gcMs"] as number).toFixed(0)} ms), peak RSS ${(m["peakRssMB"] as number).toFixed(0)} MiB, heap kept ${(m["heapMB"] as number).toFixed(0)} MiB`);
      return m;
    };
    const underLimit = bytes < 512 * 2 ** 20 - 64;
    const parse = underLimit ? measure("parse") : undefined;
    const viaParse = underLimit ? measure("loadWorld") : undefined;
    const chunked = measure("loadWorldChunks");
    rmSync(file, { force: true });
    const parseMsPerMiB = parse ? (parse["ms"] as number) / (bytes / 2 ** 20) : undefined;
    // Over V8's string limit JSON.parse cannot read the file: the floor is JSON.parse's rate on a
    // smaller file of the same run (BENCH_LOAD_SIZES=100000,1000000), times this file's size.
    const parseFloorMs = parse ? (parse["ms"] as number) : parseRate === undefined ? undefined : parseRate * (bytes / 2 ** 20);
    const row: Record<string, unknown> = {
      tasks: n,
      fileMiB: Math.round(bytes / 2 ** 20),
      ...(parse ? { jsonParseMs: Math.round(parse["ms"] as number), jsonParsePeakRssMiB: Math.round(parse["peakRssMB"] as number) } : { jsonParse: "not possible: the file is over V8's 512 MiB string limit" }),
      ...(viaParse ? { loadWorldOfParsedMs: Math.round(viaParse["ms"] as number), loadWorldOfParsedPeakRssMiB: Math.round(viaParse["peakRssMB"] as number) } : {}),
      ...(chunked
        ? {
            loadWorldChunksMs: Math.round(chunked["ms"] as number),
            peakRssMiB: Math.round(chunked["peakRssMB"] as number),
            worldHeapMiB: Math.round(chunked["heapMB"] as number),
            rssBeforeLoadMiB: Math.round(chunked["rssBeforeMB"] as number),
            /** Peak RSS the load added (less the process's RSS before it), over the world's heap. */
            peakOverWorldHeap: Number((((chunked["peakRssMB"] as number) - (chunked["rssBeforeMB"] as number)) / (chunked["heapMB"] as number)).toFixed(2)),
            gcMs: Math.round(chunked["gcMs"] as number),
            gcShare: Number(((chunked["gcMs"] as number) / (chunked["ms"] as number)).toFixed(2)),
            ...(parseFloorMs === undefined ? {} : { [parse ? "loadOverJsonParse" : "loadOverJsonParseRateOfSmallerFile"]: Number(((chunked["ms"] as number) / parseFloorMs).toFixed(2)) }),
          }
        : {}),
    };
    if (parseMsPerMiB !== undefined) {
      results["jsonParseMsPerMiB"] = Number(parseMsPerMiB.toFixed(2));
      parseRate = parseMsPerMiB;
    }
    rows.push(row);
    log(`  ${JSON.stringify(row)}`);
  }
  results["load"] = rows;
}

if (!CHILD) writeResults();

function writeResults(): void {
const doc = {
  node: process.version,
  date: process.env["BENCH_DATE"] ?? new Date().toISOString(),
  quick: QUICK,
  elapsedSeconds: Math.round((performance.now() - started) / 1000),
  machine: { cpus: availableParallelism(), loadavgAtStart: loadAtStart.map((x) => Number(x.toFixed(2))), loadavgAtEnd: loadavg().map((x) => Number(x.toFixed(2))) },
  ...results,
};
console.log(`sink ${sink}`);
const latest = new URL("./results/latest.json", import.meta.url);
const all = existsSync(latest) ? (JSON.parse(readFileSync(latest, "utf8")) as Record<string, unknown>) : {};
all["worldio"] = { ...((all["worldio"] as Record<string, unknown> | undefined) ?? {}), ...doc };
mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
writeFileSync(latest, `${JSON.stringify(all, null, 2)}\n`);
console.log(`figures stored under "worldio" in ${latest.pathname}`);
}
