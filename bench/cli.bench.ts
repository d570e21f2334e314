/**
 * The CLI's warm `explain` (issue 13): `policy-sim explain` on a big world the CLI loaded before,
 * through the BUILT executable (`bin/policy-sim.mjs` → dist/cli.js), as a user runs it. Builds
 * first (`npm run build`), writes a synthetic tenant (100k tasks with embedded policy snapshots,
 * ~460 MiB; 20k with BENCH_QUICK=1; BENCH_CLI_TASKS to choose) to a temporary file, then times in
 * fresh processes: bare `node -e 0` (Node's own start-up, the floor), `policy-sim --help`, the first
 * `explain` (full load, fills the cache), and 7 warm ones (median, min, max). Stores the figures
 * under `cli` in bench/results/latest.json. Asserts nothing about time. Everything it wrote
 * (the world file, the cache) is deleted afterwards.
 *
 *   node --import tsx bench/cli.bench.ts        # or: BENCH_ONLY=cli npm run bench
 */
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { syntheticWorld } from "../src/testing/synthetic-world.js";
import { jsonChunks } from "../src/world/json-writer.js";

const QUICK = process.env["BENCH_QUICK"] === "1";
const TASKS = Number(process.env["BENCH_CLI_TASKS"] ?? (QUICK ? 20_000 : 100_000));
const WARM_RUNS = 7;
const root = new URL("..", import.meta.url).pathname;
const bin = join(root, "bin", "policy-sim.mjs");
const log = (s: string): void => void process.stderr.write(`${s}\n`);
const loadAtStart = loadavg();

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)] as number;
}

log("cli: npm run build (the bench times the built executable)");
const build = spawnSync("npm", ["run", "-s", "build"], { cwd: root, encoding: "utf8" });
if (build.status !== 0) throw new Error(`build failed: ${build.stderr.slice(0, 500)}`);

const file = join(tmpdir(), `policy-sim-bench-cli-${process.pid}.json`);
const cacheDir = join(tmpdir(), `policy-sim-bench-cli-cache-${process.pid}`);
const json = syntheticWorld({ seed: 11, tasks: TASKS, rulesPerPolicy: 2, policies: 20 });
const fd = openSync(file, "w");
for (const chunk of jsonChunks(json)) writeSync(fd, chunk);
closeSync(fd);
const bytes = statSync(file).size;
log(`cli: ${TASKS} tasks with embedded snapshots, ${(bytes / 2 ** 20).toFixed(0)} MiB`);

/** Wall time of one fresh process, with its output (the explanations must agree). */
function time(args: readonly string[]): { readonly ms: number; readonly stdout: string; readonly status: number | null } {
  const t0 = performance.now();
  const child = spawnSync(process.execPath, args, { encoding: "utf8", maxBuffer: 1 << 24, env: { ...process.env, POLICY_SIM_CACHE_DIR: cacheDir, NO_COLOR: "1" } });
  const ms = performance.now() - t0;
  if (child.status !== 0 && child.status !== 1) throw new Error(`${args.join(" ")} failed: ${child.stderr.slice(0, 300)}`);
  return { ms, stdout: child.stdout, status: child.status };
}

try {
  const explainArgs = [bin, "explain", "--world", file, "--task", "1001"];
  const nodeMs = median([1, 2, 3].map(() => time(["-e", "0"]).ms));
  const helpMs = median([1, 2, 3].map(() => time([bin, "--help"]).ms));
  const cold = time(explainArgs);
  const entryBytes = readdirSync(cacheDir).reduce((n, f) => n + statSync(join(cacheDir, f)).size, 0);
  const warm = Array.from({ length: WARM_RUNS }, () => time(explainArgs));
  for (const w of warm) if (w.stdout !== cold.stdout || w.status !== cold.status) throw new Error("a warm explain printed something else than the cold one");
  const warmMs = warm.map((w) => w.ms);
  const row = {
    tasks: TASKS,
    fileMiB: Math.round(bytes / 2 ** 20),
    cacheEntryMiB: Number((entryBytes / 2 ** 20).toFixed(1)),
    nodeStartupMs: Math.round(nodeMs),
    helpMs: Math.round(helpMs),
    coldExplainMs: Math.round(cold.ms),
    warmExplainMs: Math.round(median(warmMs)),
    warmExplainMinMs: Math.round(Math.min(...warmMs)),
    warmExplainMaxMs: Math.round(Math.max(...warmMs)),
    target: "warm explain ≤ 1000 ms",
  };
  log(`  node -e 0 ${row.nodeStartupMs} ms; policy-sim --help ${row.helpMs} ms; explain cold ${row.coldExplainMs} ms; warm ${row.warmExplainMs} ms (min ${row.warmExplainMinMs}, max ${row.warmExplainMaxMs}); cache entry ${row.cacheEntryMiB} MiB`);
  const doc = {
    node: process.version,
    date: process.env["BENCH_DATE"] ?? new Date().toISOString(),
    quick: QUICK,
    machine: { cpus: availableParallelism(), loadavgAtStart: loadAtStart.map((x) => Number(x.toFixed(2))), loadavgAtEnd: loadavg().map((x) => Number(x.toFixed(2))) },
    ...row,
  };
  const latest = new URL("./results/latest.json", import.meta.url);
  const all = existsSync(latest) ? (JSON.parse(readFileSync(latest, "utf8")) as Record<string, unknown>) : {};
  all["cli"] = doc;
  mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
  writeFileSync(latest, `${JSON.stringify(all, null, 2)}\n`);
  console.log(`figures stored under "cli" in ${latest.pathname}`);
} finally {
  rmSync(file, { force: true });
  rmSync(cacheDir, { recursive: true, force: true });
}
