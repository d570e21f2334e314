/**
 * What-if figures: `whatIf` over synthetic tenants of 10k to 100k tasks with 16-rule grant policies
 * (about 60% of grant tasks matching some rule, 40% the baseline), for edits of every reach — none,
 * one policy, one entitlement's routing, every grant policy, a user — and the unpruned reference.
 * Next to them, `decide()` of every task once, the cost a what-if run would pay per side without
 * pruning. Prints a table and stores the figures under the `whatif` key of
 * bench/results/latest.json (other keys untouched). `npm run bench` runs it last. Asserts nothing about time: figures vary by machine.
 *
 *   node --import tsx bench/whatif.bench.ts
 *   taskset -c 0 node --import tsx bench/whatif.bench.ts   # one core, GC helpers included
 *   BENCH_QUICK=1 node --import tsx bench/whatif.bench.ts  # 10k and 25k tasks only
 *   BENCH_SIZES=25000,100000 node --import tsx bench/whatif.bench.ts
 *   BENCH_WHATIF_SIZES=1000000 node --max-old-space-size=12000 --import tsx bench/whatif.bench.ts  # 1M tasks:
 *     the reference and the worst case only (BENCH_WHATIF_CASES=all for every case), generated in memory
 *
 * Each case runs once untimed (JIT, compile cache, the world's task order and task groups), then `RUNS` timed
 * runs; the table shows the median wall time, the median CPU time of the process (user + system,
 * which includes the GC's helper threads) and the first (cold) run's wall and CPU time. Nothing is
 * cached between runs over the same world beyond the compiled conditions and the world's task order
 * and task groups (`whatif/task-classes.ts`, made by the first run: its figures include them).
 * The 1 s target is held on CPU time, of the cold run and the median. At sizes from LARGE_SIZE up,
 * the world is prepared right after loading (`prepareWhatIf`: its tasks grouped, as an embedding
 * service does at startup), timed as a setup step (`setups[].prepareMs`): the first run there is
 * the first run of a prepared world. Without it, the first run groups the tasks itself (1.4–1.9 s
 * more at 1M; bench/README.md, "What-if over 1M tasks").
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { decide } from "../src/policy/decide.js";
import { syntheticWorld } from "../src/testing/synthetic-world.js";
import { applyEdit, prepareWhatIf, whatIf, type WhatIfOptions } from "../src/whatif/what-if.js";
import type { WorldEdit } from "../src/whatif/edit.js";
import { createWhatIfPool } from "../src/whatif-pool/index.js";
import { loadWorld } from "../src/world/load-world.js";
import type { World, WorldPatch } from "../src/world/world.js";

const QUICK = process.env["BENCH_QUICK"] === "1";
// BENCH_WHATIF_SIZES (or BENCH_SIZES) picks sizes; 1,000,000 only when asked for (≈ 3 GB of heap, minutes).
const SIZES_ENV = process.env["BENCH_WHATIF_SIZES"] ?? process.env["BENCH_SIZES"];
const SIZES = SIZES_ENV
  ? SIZES_ENV.split(",").map(Number)
  : QUICK
    ? [10_000, 25_000]
    : [10_000, 25_000, 50_000, 100_000];
const TARGET_MS = 1000;
const TARGET_1M_MS = 2000;
const ALL: WhatIfOptions = { scope: { states: "any" } };

/** Generates the synthetic tenant in memory and loads it; how long each part took. */
function load(tasks: number): { readonly world: World; readonly generateMs: number; readonly loadMs: number } {
  const t0 = performance.now();
  const json = syntheticWorld({ seed: 7, tasks, rulesPerPolicy: 16, policySnapshots: false });
  const t1 = performance.now();
  const r = loadWorld(json);
  const t2 = performance.now();
  if (!r.ok) throw new Error(`bench world does not load: ${JSON.stringify(r.error.slice(0, 3))}`);
  return { world: r.value, generateMs: t1 - t0, loadMs: t2 - t1 };
}

/**
 * Sizes from this many tasks up run the reference and the worst case only, once after the untimed
 * first run (BENCH_WHATIF_CASES=all runs every case): a 1M-task world takes minutes to generate.
 */
const LARGE_SIZE = 500_000;
const ALL_CASES_LARGE = process.env["BENCH_WHATIF_CASES"] === "all";

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)] ?? NaN;
}

/** Swaps the step keys of two rules of a policy (a real re-routing of the tasks those rules decide). */
function swapKeys(p: { rules: { stepKey: string }[] | null }, a: number, b: number): void {
  const x = p.rules?.[a];
  const y = p.rules?.[b];
  if (!x || !y) return;
  [x.stepKey, y.stepKey] = [y.stepKey, x.stepKey];
}

interface Case {
  readonly name: string;
  readonly edit: WorldEdit;
  readonly options?: WhatIfOptions;
  /** Held to the 1 s target at 100k tasks. */
  readonly targeted: boolean;
}

const CASES: readonly Case[] = [
  { name: "empty edit", edit: {}, targeted: true },
  {
    name: "one policy: two rules swap step keys",
    edit: (w) => {
      const p = w.policies.find((x) => x.id === "pol-grant-3");
      if (p) swapKeys(p, 3, 5);
    },
    targeted: true,
  },
  {
    name: "one entitlement routed to another policy",
    edit: (w) => {
      const e = w.entitlements.find((x) => x.id === "ent-12");
      if (e) e.grantPolicyId = "pol-grant-0";
    },
    targeted: true,
  },
  {
    name: "every grant policy: rules 0 and 1 swap step keys",
    edit: (w) => {
      for (const p of w.policies) if (p.id.startsWith("pol-grant-") && p.id !== "pol-grant-default") swapKeys(p, 0, 1);
    },
    targeted: true,
  },
  {
    // The worst case of a policy edit: every task of every grant policy evaluates all its rules.
    name: "every grant policy: last rule's condition negated",
    edit: (w) => {
      for (const p of w.policies)
        if (p.id.startsWith("pol-grant-") && p.id !== "pol-grant-default") {
          const last = p.rules?.[p.rules.length - 1];
          if (last) last.condition = `!(${last.condition})`;
        }
    },
    targeted: false,
  },
  {
    name: "a user changes department",
    edit: (w) => {
      const u = w.users.find((x) => x.id === "u-30");
      if (u) u.department = u.department === "Security" ? "Finance" : "Security";
    },
    targeted: true,
  },
  {
    // A manager of 8 and maybe an owner or listed approver: their reports' tasks and those they approve re-route.
    name: "an approver is disabled",
    edit: (w) => {
      const u = w.users.find((x) => x.id === "u-3");
      if (u) u.status = "DISABLED";
    },
    targeted: true,
  },
  {
    name: "one policy, unpruned (prune: false)",
    edit: (w) => {
      const p = w.policies.find((x) => x.id === "pol-grant-3");
      if (p) swapKeys(p, 3, 5);
    },
    options: { ...ALL, prune: false },
    targeted: false,
  },
];

interface Row {
  readonly name: string;
  readonly tasks: number;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly firstWallMs: number;
  readonly firstCpuMs: number;
  readonly nsPerTask: number;
  readonly decisions: number;
  readonly pruned: number;
  readonly changed: number;
  readonly target?: number;
  readonly met?: boolean;
}

const rows: Row[] = [];
const WORST_CASE = "every grant policy: last rule's condition negated";
/** How long each size took to generate (in memory) and load, and the heap after loading. */
const setups: { readonly tasks: number; readonly generateMs: number; readonly loadMs: number; readonly heapMB: number; readonly prepareMs?: number; readonly prepareCpuMs?: number }[] = [];
let sink = 0;
const started = performance.now();
const loadAtStart = loadavg();

let largestWorld: World | undefined;
for (const n of SIZES) {
  const loaded = load(n);
  const world = loaded.world;
  const large = n >= LARGE_SIZE;
  // The pool loads the world once per thread from a file: not at a size made for one process.
  if (!large) largestWorld = world;
  const tasks = [...world.tasks.values()];
  const runs = large ? 1 : n >= 100_000 ? 3 : 5;
  // A large world is prepared as a service would at startup; a smaller one is grouped by its first run.
  let prepared: { prepareMs: number; prepareCpuMs: number } | undefined;
  if (large) {
    const w0 = performance.now();
    const c0 = cpuMs();
    prepareWhatIf(world);
    prepared = { prepareMs: performance.now() - w0, prepareCpuMs: cpuMs() - c0 };
  }
  setups.push({ tasks: n, generateMs: loaded.generateMs, loadMs: loaded.loadMs, heapMB: process.memoryUsage().heapUsed / 2 ** 20, ...prepared });
  process.stderr.write(
    `${n.toLocaleString("en")} tasks: world generated in ${(loaded.generateMs / 1000).toFixed(1)} s, loaded in ${(loaded.loadMs / 1000).toFixed(1)} s${prepared ? `, prepared (prepareWhatIf) in ${(prepared.prepareMs / 1000).toFixed(2)} s wall, ${(prepared.prepareCpuMs / 1000).toFixed(2)} s CPU` : ""}\n`,
  );

  // The reference cost: one decision per task.
  {
    const walls: number[] = [];
    const cpus: number[] = [];
    let first = 0;
    let firstCpu = 0;
    for (let i = 0; i <= runs; i++) {
      const w0 = performance.now();
      const c0 = cpuMs();
      for (const t of tasks) if (decide(world, t).selection?.ok) sink++;
      const wall = performance.now() - w0;
      if (i === 0) {
        first = wall;
        firstCpu = cpuMs() - c0;
      }
      else {
        walls.push(wall);
        cpus.push(cpuMs() - c0);
      }
    }
    rows.push({ name: "decide() every task once (reference)", tasks: n, wallMs: median(walls), cpuMs: median(cpus), firstWallMs: first, firstCpuMs: firstCpu, nsPerTask: (median(walls) * 1e6) / n, decisions: n, pruned: 0, changed: 0 });
  }

  for (const c of CASES) {
    if (large && !ALL_CASES_LARGE && c.name !== WORST_CASE) continue;
    const walls: number[] = [];
    const cpus: number[] = [];
    let first = 0;
    let firstCpu = 0;
    let stats = { decisions: 0, pruned: 0, changed: 0 };
    for (let i = 0; i <= runs; i++) {
      const w0 = performance.now();
      const c0 = cpuMs();
      const r = whatIf(world, c.edit, c.options ?? ALL);
      const wall = performance.now() - w0;
      const cpu = cpuMs() - c0;
      if (!r.ok) throw new Error(`${c.name}: ${r.error.message}`);
      sink += r.value.counts.changed;
      stats = { decisions: r.value.stats.decisions, pruned: r.value.stats.pruned, changed: r.value.counts.changed };
      if (i === 0) {
        first = wall;
        firstCpu = cpu;
      }
      else {
        walls.push(wall);
        cpus.push(cpu);
      }
    }
    const wallMs = median(walls);
    // Issue 16: the worst case over 1M tasks within 2 s on one core (CPU time, as above).
    const held = (c.targeted && n === 100_000) || (c.name === WORST_CASE && n === 1_000_000);
    const target = n === 1_000_000 ? TARGET_1M_MS : TARGET_MS;
    rows.push({
      name: c.name,
      tasks: n,
      wallMs,
      cpuMs: median(cpus),
      firstWallMs: first,
      firstCpuMs: firstCpu,
      nsPerTask: (wallMs * 1e6) / n,
      ...stats,
      // CPU time, cold and warm: on a shared machine wall time also counts other processes.
      ...(held ? { target, met: firstCpu <= target && median(cpus) <= target } : {}),
    });
  }
}

// -------------------------------------------------------------------------------------------------
// Threads: the same edits, as replacement lists, over a pool of 2 threads (policy-sim/whatif-pool)
// holding the largest world, against one thread; the pool's result checked equal to whatIf's.

const fmtInt = (x: number): string => x.toLocaleString("en");

/** The objects an edit replaced (by identity), as the replacement list a pool takes. */
function patchOf(world: World, edit: WorldEdit): WorldPatch {
  const after = applyEdit(world, edit);
  const fresh = <T,>(before: readonly T[], next: readonly T[]): T[] => {
    const old = new Set(before);
    return next.filter((x) => !old.has(x));
  };
  return {
    policies: fresh(world.policies, after.policies),
    entitlements: fresh(world.entitlements, after.entitlements),
    apps: fresh(world.apps, after.apps),
    users: fresh(world.users, after.users),
  };
}

interface PoolRow {
  readonly name: string;
  readonly tasks: number;
  readonly oneThreadWallMs: number;
  readonly poolWallMs: number;
  readonly speedup: number;
}
const poolRows: PoolRow[] = [];
let poolStartMs = 0;
const POOL_THREADS = 2;
if (largestWorld && !process.env["BENCH_NO_POOL"]) {
  const world = largestWorld;
  const n = world.tasks.size;
  const file = join(tmpdir(), `policy-sim-bench-${process.pid}.json`);
  writeFileSync(file, JSON.stringify(syntheticWorld({ seed: 7, tasks: n, rulesPerPolicy: 16, policySnapshots: false })));
  const p0 = performance.now();
  const created = await createWhatIfPool({ file }, { threads: POOL_THREADS });
  poolStartMs = performance.now() - p0;
  rmSync(file, { force: true });
  if (!created.ok) throw new Error(`pool: ${created.error.message}`);
  const pool = created.value;
  process.stderr.write(`pool of ${POOL_THREADS} threads: each loaded the ${fmtInt(n)}-task world; ready in ${(poolStartMs / 1000).toFixed(1)} s\n`);
  for (const c of CASES) {
    const patch = patchOf(world, c.edit);
    const options = c.options ?? ALL;
    const one: number[] = [];
    const two: number[] = [];
    for (let i = 0; i <= 3; i++) {
      const w0 = performance.now();
      const a = whatIf(world, patch, options);
      const w1 = performance.now();
      const b = await pool.whatIf(patch, options);
      const w2 = performance.now();
      if (!a.ok || !b.ok) throw new Error(`${c.name}: ${a.ok ? "" : a.error.message} ${b.ok ? "" : b.error.message}`);
      if (i === 0 && JSON.stringify(a.value) !== JSON.stringify(b.value)) throw new Error(`${c.name}: the pool's result differs from whatIf's`);
      sink += b.value.counts.changed;
      if (i > 0) {
        one.push(w1 - w0);
        two.push(w2 - w1);
      }
    }
    poolRows.push({ name: c.name, tasks: n, oneThreadWallMs: median(one), poolWallMs: median(two), speedup: median(one) / median(two) });
  }
  await pool.close();
}

// -------------------------------------------------------------------------------------------------
// Report

const fmt = (x: number, d = 0) => x.toLocaleString("en", { minimumFractionDigits: d, maximumFractionDigits: d });
const header = ["case", "tasks", "wall ms", "cpu ms", "first ms", "first cpu", "ns/task", "decisions", "µs/decision", "pruned", "changed", "target met (1 s at 100k, 2 s at 1M)"];
const table = rows.map((r) => [
  r.name,
  fmt(r.tasks),
  fmt(r.wallMs, 1),
  fmt(r.cpuMs, 1),
  fmt(r.firstWallMs, 1),
  fmt(r.firstCpuMs, 1),
  fmt(r.nsPerTask),
  fmt(r.decisions),
  r.decisions > 0 ? fmt((r.cpuMs * 1000) / r.decisions, 1) : "",
  fmt(r.pruned),
  fmt(r.changed),
  r.met === undefined ? "" : r.met ? "yes" : "NO",
]);
const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => (row[i] ?? "").length)));
const line = (cells: readonly string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
console.log(line(header));
console.log(widths.map((w) => "-".repeat(w)).join("  "));
for (const row of table) console.log(line(row));

// Scaling: CPU time per task of the same case at the largest size over the second smallest (the
// smallest size is dominated by per-run costs: the edited world's indexes, memos, JIT). CPU time,
// not wall time: on a shared machine wall time also counts other processes.
const scaling: Record<string, number> = {};
const smallest = SIZES[SIZES.length > 2 ? 1 : 0] ?? 0;
const largest = SIZES[SIZES.length - 1] ?? 0;
const cpuPerTask = (r: Row) => r.cpuMs / r.tasks;
for (const name of new Set(rows.map((r) => r.name))) {
  const a = rows.find((r) => r.name === name && r.tasks === smallest);
  const b = rows.find((r) => r.name === name && r.tasks === largest);
  if (a && b && cpuPerTask(a) > 0) scaling[name] = Number((cpuPerTask(b) / cpuPerTask(a)).toFixed(2));
}
console.log(`\nCPU time per task at ${fmt(largest)} tasks ÷ at ${fmt(smallest)} (1.0 = linear):`);
for (const [name, ratio] of Object.entries(scaling)) console.log(`  ${ratio.toFixed(2)}  ${name}`);
if (poolRows.length > 0) {
  console.log(`\n${POOL_THREADS} threads (policy-sim/whatif-pool, ${fmtInt(poolRows[0]?.tasks ?? 0)} tasks; pool ready in ${(poolStartMs / 1000).toFixed(1)} s: every thread loads the world), wall ms:`);
  for (const r of poolRows) console.log(`  ${fmt(r.oneThreadWallMs, 1).padStart(8)} → ${fmt(r.poolWallMs, 1).padStart(8)}  ${r.speedup.toFixed(2)}×  ${r.name}`);
}
for (const x of setups)
  console.log(
    `\n${fmtInt(x.tasks)} tasks: generated in memory in ${(x.generateMs / 1000).toFixed(1)} s, loaded in ${(x.loadMs / 1000).toFixed(1)} s; heap ${x.heapMB.toFixed(0)} MB after loading` +
      (x.prepareMs === undefined ? "" : `; prepareWhatIf ${(x.prepareMs / 1000).toFixed(2)} s wall, ${((x.prepareCpuMs ?? 0) / 1000).toFixed(2)} s CPU (the "first" columns at this size are a prepared world's first run)`),
  );
console.log(`\nsink ${sink}; ${availableParallelism()} CPUs, load average ${loadAtStart.map((x) => x.toFixed(2)).join(" ")} at start`);

const results = {
  node: process.version,
  date: process.env["BENCH_DATE"] ?? new Date().toISOString(),
  quick: QUICK,
  elapsedSeconds: Math.round((performance.now() - started) / 1000),
  machine: { cpus: availableParallelism(), loadavgAtStart: loadAtStart.map((x) => Number(x.toFixed(2))), loadavgAtEnd: loadavg().map((x) => Number(x.toFixed(2))) },
  world: { generator: "syntheticWorld", seed: 7, rulesPerPolicy: 16, policies: 20, matchAt: "mixed (about 60% of grant tasks match a rule)" },
  cases: rows.map((r) => ({ ...r, wallMs: Number(r.wallMs.toFixed(2)), cpuMs: Number(r.cpuMs.toFixed(2)), firstWallMs: Number(r.firstWallMs.toFixed(2)), firstCpuMs: Number(r.firstCpuMs.toFixed(2)), nsPerTask: Math.round(r.nsPerTask) })),
  scaling,
  setups: setups.map((x) => ({ tasks: x.tasks, generateMs: Math.round(x.generateMs), loadMs: Math.round(x.loadMs), heapMB: Math.round(x.heapMB), ...(x.prepareMs === undefined ? {} : { prepareMs: Math.round(x.prepareMs), prepareCpuMs: Math.round(x.prepareCpuMs ?? 0) }) })),
  pool: { threads: POOL_THREADS, readyMs: Number(poolStartMs.toFixed(0)), cases: poolRows.map((r) => ({ ...r, oneThreadWallMs: Number(r.oneThreadWallMs.toFixed(2)), poolWallMs: Number(r.poolWallMs.toFixed(2)), speedup: Number(r.speedup.toFixed(2)) })) },
};
const latest = new URL("./results/latest.json", import.meta.url);
const doc = existsSync(latest) ? (JSON.parse(readFileSync(latest, "utf8")) as Record<string, unknown>) : {};
doc["whatif"] = results;
mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
writeFileSync(latest, `${JSON.stringify(doc, null, 2)}\n`);
console.log(`figures stored under "whatif" in ${latest.pathname}`);
