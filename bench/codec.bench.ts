/**
 * `node --import tsx bench/codec.bench.ts`: µs per task to decode and encode the wire Task, before
 * and after the codec's performance work, measured in the same process in interleaved rounds (the
 * machine this runs on is shared, so figures from separate runs are not comparable).
 *
 * "Before" is the codec as of {@link BASELINE}, extracted with `git archive` into a temporary
 * directory and imported from there; pass `--base <commit>` to compare with another commit, or
 * `--no-base` to time only the working tree. Environment: `CODEC_BENCH_TASKS` (default 2000) tasks
 * from `syntheticWorld({ seed: 3, rulesPerPolicy: 16 })`, `CODEC_BENCH_ROUNDS` (default 9) rounds.
 * Each case is timed with and without the task's policy snapshot (`policy.policy`, ~15 KB of the
 * ~16 KB a task takes on the wire). A sample is as many passes over the tasks as take ~25 ms of the
 * process's CPU time, after a young-generation collection; the figures are the best round of each
 * version (other work on the machine only ever adds time), the speed-up the median of the
 * per-round ratios.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as after from "../src/codec/index.js";
import type { JsonValue } from "../src/model/json.js";
import type { Task } from "../src/model/task.js";
import { syntheticWorld } from "../src/testing/synthetic-world.js";
import { collectYoung } from "./harness.js";

/** The last commit of the codec before the performance work. */
const BASELINE = "1153a8f50dd86a5e53b92a2ed226d20cb921c666";

/** The two functions timed, from either version of the codec. */
interface TaskCodec {
  readonly decodeTask: (json: unknown) => { readonly ok: boolean; readonly value?: Task };
  readonly encodeTask: (task: Task) => JsonValue;
}

const args = process.argv.slice(2);
const baseAt = args.indexOf("--base");
const base = args.includes("--no-base") ? undefined : baseAt >= 0 ? args[baseAt + 1] : BASELINE;
const TASKS = Number(process.env["CODEC_BENCH_TASKS"] ?? 2000);
const ROUNDS = Number(process.env["CODEC_BENCH_ROUNDS"] ?? 9);
const repo = fileURLToPath(new URL("..", import.meta.url));

/** Imports the codec as of `commit` (with the model types it compiles against), or undefined. */
async function loadBaseline(commit: string): Promise<{ readonly codec: TaskCodec; readonly cleanup: () => void } | undefined> {
  const dir = mkdtempSync(join(tmpdir(), "codec-bench-"));
  const cleanup = (): void => rmSync(dir, { recursive: true, force: true });
  try {
    const archive = execFileSync("git", ["-C", repo, "archive", commit, "src/codec", "src/model", "src/result.ts"], {
      maxBuffer: 64 * 1024 * 1024,
    });
    execFileSync("tar", ["-x", "-C", dir], { input: archive });
    const codec = (await import(pathToFileURL(join(dir, "src/codec/index.ts")).href)) as TaskCodec;
    return { codec, cleanup };
  } catch (e: unknown) {
    process.stderr.write(`no baseline (${e instanceof Error ? e.message.split("\n")[0] : String(e)}); timing the working tree only\n`);
    cleanup();
    return undefined;
  }
}

const world = JSON.parse(JSON.stringify(syntheticWorld({ seed: 3, tasks: TASKS, rulesPerPolicy: 16 }))) as {
  readonly tasks: ReadonlyArray<Record<string, unknown>>;
};
const withSnapshot = world.tasks;
const withoutSnapshot = withSnapshot.map((t) => {
  const instance = t["policy"];
  return typeof instance === "object" && instance !== null ? { ...t, policy: { ...instance, policy: null } } : t;
});

function decodeAll(codec: TaskCodec, docs: readonly unknown[]): Task[] {
  return docs.map((doc) => {
    const r = codec.decodeTask(doc);
    if (!r.ok || r.value === undefined) throw new Error("a synthetic task does not decode");
    return r.value;
  });
}

let sink = 0;

/**
 * CPU µs per item of `passes` passes of `run` over `items`: the process's CPU time rather than the
 * wall clock, which on a shared machine also counts the time other processes held the core.
 */
function timePasses<T>(items: readonly T[], passes: number, run: (item: T) => unknown): number {
  const started = process.cpuUsage();
  for (let p = 0; p < passes; p++) for (const item of items) if (run(item) !== undefined) sink++;
  const used = process.cpuUsage(started);
  return (used.user + used.system) / (passes * items.length);
}

interface Case {
  readonly name: string;
  /** CPU µs per task over `passes` passes over the tasks with a given codec. */
  readonly time: (codec: TaskCodec, models: Models, passes: number) => number;
}

interface Models {
  readonly withSnapshot: readonly Task[];
  readonly withoutSnapshot: readonly Task[];
}

const cases: readonly Case[] = [
  { name: "decode, no snapshot", time: (c, _, n) => timePasses(withoutSnapshot, n, (t) => c.decodeTask(t)) },
  { name: "decode, with snapshot", time: (c, _, n) => timePasses(withSnapshot, n, (t) => c.decodeTask(t)) },
  { name: "encode, no snapshot", time: (c, m, n) => timePasses(m.withoutSnapshot, n, (t) => c.encodeTask(t)) },
  { name: "encode, with snapshot", time: (c, m, n) => timePasses(m.withSnapshot, n, (t) => c.encodeTask(t)) },
];

/** CPU time one sample should take at least: short samples are mostly timer and GC noise. */
const SAMPLE_MS = 25;

const best = (xs: readonly number[]): number => Math.min(...xs);
const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : ((s[(s.length - 1) >> 1] as number) + (s[s.length >> 1] as number)) / 2;
};

const baseline = base === undefined ? undefined : await loadBaseline(base);
const versions: ReadonlyArray<{ readonly label: string; readonly codec: TaskCodec }> = [
  ...(baseline === undefined ? [] : [{ label: "before", codec: baseline.codec }]),
  { label: "after", codec: after as TaskCodec },
];
const models = new Map(
  versions.map((v) => [v.label, { withSnapshot: decodeAll(v.codec, withSnapshot), withoutSnapshot: decodeAll(v.codec, withoutSnapshot) }]),
);

// Warm-up: every case with every version, so both are optimised before the clock starts. The last
// warm-up pass of the fastest version sets how many passes make one sample of the case.
const passesOf = new Map<string, number>();
for (const c of cases) {
  let fastest = Infinity;
  for (const v of versions) for (let i = 0; i < 3; i++) fastest = Math.min(fastest, c.time(v.codec, models.get(v.label) as Models, 1));
  passesOf.set(c.name, Math.max(1, Math.ceil((SAMPLE_MS * 1000) / (fastest * TASKS))));
}

const samples = new Map<string, number[]>();
for (let round = 0; round < ROUNDS; round++) {
  for (const c of cases) {
    // Alternate which version goes first, so neither always runs on a warmer cache.
    const order = round % 2 === 0 ? versions : [...versions].reverse();
    for (const v of order) {
      // Garbage of the previous sample is collected off the clock.
      collectYoung();
      const us = c.time(v.codec, models.get(v.label) as Models, passesOf.get(c.name) ?? 1);
      const key = `${c.name}/${v.label}`;
      samples.set(key, [...(samples.get(key) ?? []), us]);
    }
  }
}

process.stdout.write(`codec bench: ${TASKS} tasks, ${ROUNDS} rounds, CPU µs per task (best round), speed-up (median)\n`);
for (const c of cases) {
  const afterUs = samples.get(`${c.name}/after`) ?? [];
  const beforeUs = samples.get(`${c.name}/before`);
  if (beforeUs === undefined) {
    process.stdout.write(`  ${c.name.padEnd(22)} ${best(afterUs).toFixed(1).padStart(7)}\n`);
    continue;
  }
  const speedup = median(beforeUs.map((b, i) => b / (afterUs[i] as number)));
  process.stdout.write(
    `  ${c.name.padEnd(22)} ${best(beforeUs).toFixed(1).padStart(7)} → ${best(afterUs).toFixed(1).padStart(6)}   ${speedup.toFixed(2)}×\n`,
  );
}
process.stdout.write(`(sink ${sink})\n`);
baseline?.cleanup();
