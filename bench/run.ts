/**
 * `npm run bench`: policy-sim's benchmarks (see bench/README.md). Prints a table and writes
 * bench/results/latest.json. Ratios are against floors (or other cases) measured in the same run,
 * in interleaved batches.
 *
 * Environment: BENCH_QUICK=1 for a fast smoke run (10k-task large world, short batches);
 * BENCH_ONLY=selection,explanation,compile,reducers,history,scaling,whatif,worldio,cost,http,cli to run some sections
 * (history runs with reducers, or alone); BENCH_DATE to
 * set the date recorded in the results (default: the clock — the bench is an adapter).
 *
 * The what-if section is bench/whatif.bench.ts, run last in a process of its own (its worlds of up
 * to 100k tasks would otherwise share a heap with this run's), storing its figures under `whatif`.
 * The HTTP section (bench/http.bench.ts: Comment and Hard Reset over `serve` against the reducer
 * and a bare node:http server) runs before it, also in its own process, under `http`.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { compileCondition, type CompiledCondition } from "../src/cel/compile.js";
import { evaluateCondition, prepareConditionInput } from "../src/cel/evaluate.js";
import type { Task } from "../src/model/index.js";
import { traceRecordOf } from "../src/cel/trace.js";
import { decide } from "../src/policy/decide.js";
import { explain } from "../src/explain/explain.js";
import { formatExplanation } from "../src/explain/format.js";
import { selectSteps } from "../src/policy/select-steps.js";
import { taskConditions } from "../src/policy/task-conditions.js";
import { comment } from "../src/reducers/comment.js";
import { hardReset } from "../src/reducers/hard-reset.js";
import { restartTask } from "../src/reducers/restart.js";
import type { World } from "../src/world/world.js";
import {
  bareCompile,
  bareContext,
  bareEnvironment,
  compiledHandles,
  conditionInput,
  evaluateAll,
  firstMatchBare,
  firstMatchHand,
  handContext,
  preparedInput,
  rawCompile,
  rawContext,
} from "./floor.js";
import { collectYoung, measureGroup, sink, type Measurement, type MeasureOptions } from "./harness.js";
import { handwrittenRule, loadSynthetic, mixedSelectionWorld, portableCondition, selectionWorld, type LoadedSynthetic, type SelectionWorld } from "./worlds.js";

const QUICK = process.env["BENCH_QUICK"] === "1";
const ONLY = new Set((process.env["BENCH_ONLY"] ?? "").split(",").filter((x) => x !== ""));
const on = (section: string): boolean => ONLY.size === 0 || ONLY.has(section);
const LARGE = QUICK ? 10_000 : 100_000;
/** Tasks each per-task case cycles through. */
const TASK_POOL = 64;
/** Synthetic worlds of the reducer and scaling cases: 16 rules per grant policy, the last matching. */
const SYNTH = { seed: 7, rulesPerPolicy: 16, matchAt: "last" } as const;
const ACTOR = { actorId: "u-1" }; // a Super Administrator in synthetic worlds
const started = performance.now();
const loadAtStart = loadavg();

// -------------------------------------------------------------------------------------------------
// Results

/** One row of the results. */
interface CaseResult {
  readonly name: string;
  readonly group: string;
  /** Median ns per operation; `unit` says what one operation is. */
  readonly nsPerOp: number;
  /** 95th percentile of ns per operation over the timed batches. */
  readonly p95: number;
  readonly unit: string;
  /** Ratio to the floor named by `floor`: median over interleaved rounds. */
  readonly ratioToFloor?: number;
  readonly floor?: string;
  /** Ratio to another case (not a floor), named by `ratioTo`. */
  readonly ratio?: number;
  readonly ratioTo?: string;
  /** The target the ratio is held to: 1.3 means "≤ 1.3×". */
  readonly target?: number;
  readonly met?: boolean;
  /** Total ms of one pass over a world (scaling cases). */
  readonly totalMs?: number;
  readonly note?: string;
}

const cases: CaseResult[] = [];
const log = (s: string): void => void process.stderr.write(`${s}\n`);

function add(c: CaseResult): void {
  cases.push(c);
  const ratio = c.ratioToFloor ?? c.ratio;
  const target = c.target === undefined ? "" : ` (target ≤ ${c.target}×: ${c.met === true ? "met" : "MISSED"})`;
  log(`  ${c.name}: ${fmtNs(c.nsPerOp)}/${c.unit}${ratio === undefined ? "" : `, ${ratio.toFixed(2)}× ${c.floor ?? c.ratioTo ?? ""}`}${target}`);
}

function row(name: string, group: string, unit: string, m: Measurement | undefined, extra: Partial<CaseResult> = {}): CaseResult {
  const x = need(m, name);
  return { name, group, unit, nsPerOp: x.nsPerOp, p95: x.p95, ...extra };
}

function withTarget(ratio: number, target: number): { target: number; met: boolean } {
  return { target, met: ratio <= target };
}

function fmtNs(ns: number): string {
  if (!Number.isFinite(ns)) return "n/a";
  const sign = ns < 0 ? "-" : "";
  const a = Math.abs(ns);
  if (a >= 1e6) return `${sign}${(a / 1e6).toFixed(2)} ms`;
  if (a >= 1e4) return `${sign}${(a / 1e3).toFixed(1)} µs`;
  if (a >= 1e3) return `${sign}${(a / 1e3).toFixed(2)} µs`;
  return `${sign}${a.toFixed(0)} ns`;
}

function need<T>(v: T | undefined | null, what: string): T {
  if (v === undefined || v === null) throw new Error(`bench: missing ${what}`);
  return v;
}

/** Round-robin over a pool. */
function cycler<T>(pool: readonly T[]): () => T {
  if (pool.length === 0) throw new Error("bench: empty pool");
  let i = 0;
  return () => {
    const x = pool[i] as T;
    i = i + 1 === pool.length ? 0 : i + 1;
    return x;
  };
}

function groupOptions(o: MeasureOptions = {}): MeasureOptions {
  return {
    warmupMs: QUICK ? 100 : (o.warmupMs ?? 400),
    batchMs: QUICK ? 5 : (o.batchMs ?? 15),
    batches: QUICK ? 7 : (o.batches ?? 25),
    budgetMs: QUICK ? 800 : (o.budgetMs ?? 6000),
  };
}

const selectionWorlds = new Map<number, SelectionWorld>();
function selectionWorldOf(n: number): SelectionWorld {
  let sw = selectionWorlds.get(n);
  if (!sw) {
    sw = selectionWorld(n);
    selectionWorlds.set(n, sw);
  }
  return sw;
}

// -------------------------------------------------------------------------------------------------
// 1 + 2. Floor and selection over 1, 16 and 100 rules, the last one matching.

function selectionCases(n: number): void {
  const sw = selectionWorldOf(n);
  const policy = need(sw.world.index.policies.get(sw.policyId), sw.policyId);
  const tasks = sw.tasks.slice(0, TASK_POOL);
  const bare = bareCompile(sw.conditions);
  const raw = rawCompile(sw.conditions);
  const bareCtx = tasks.map((t) => bareContext(sw.world, t));
  const rawCtx = tasks.map((t) => rawContext(sw.world, t));
  // Every task selects the last rule, and the floors see exactly one true condition.
  for (const [i, t] of tasks.entries()) {
    const s = selectSteps(sw.world, policy, taskConditions(sw.world, t));
    if (!s.ok || s.value.decidedBy.kind !== "rule" || s.value.decidedBy.ruleIndex !== n - 1 || s.value.evaluations.length !== n)
      throw new Error(`selection world ${n}: task ${t.id} does not select the last rule`);
    if (evaluateAll(bare, need(bareCtx[i], "context")) !== 1 || evaluateAll(raw, need(rawCtx[i], "context")) !== 1)
      throw new Error(`selection world ${n}: the floor disagrees with the selection for task ${t.id}`);
  }
  // The breakdown: the same work with the adapter's layers added one at a time.
  const handles: readonly CompiledCondition[] = compiledHandles(sw.conditions);
  const runners = tasks.map((t) => taskConditions(sw.world, t)); // reused: input prepared once
  const hand = sw.combos.map((c, k) => handwrittenRule(c, k));
  const nextHand = cycler(tasks.map((t) => handContext(sw.world, t)));
  for (const t of tasks) if (firstMatchHand(hand, handContext(sw.world, t)) !== n - 1) throw new Error(`selection world ${n}: the hand-written rules disagree for task ${t.id}`);
  const nextBare = cycler(bareCtx);
  const nextRaw = cycler(rawCtx);
  const nextPrepared = cycler(tasks.map((t) => preparedInput(sw.world, t)));
  const nextRunner = cycler(runners);
  const nextRunner2 = cycler(runners);
  const nextTask = cycler(tasks);
  const nextInput = cycler(tasks.map((t) => conditionInput(sw.world, t)));
  const g = measureGroup(
    {
      floor: () => evaluateAll(bare, nextBare()),
      hand: () => firstMatchHand(hand, nextHand()),
      raw: () => evaluateAll(raw, nextRaw()),
      prepare: () => prepareConditionInput(nextInput()),
      evaluate: () => {
        const p = nextPrepared();
        let k = 0;
        for (const h of handles) {
          const r = evaluateCondition(h, p);
          if (r.ok && r.value) k++;
        }
        return k;
      },
      run: () => {
        const runner = nextRunner();
        let k = 0;
        for (const c of sw.conditions) {
          const r = runner.run(c);
          if (r.ok && r.value) k++;
        }
        return k;
      },
      walk: () => selectSteps(sw.world, policy, nextRunner2()),
      selection: () => selectSteps(sw.world, policy, taskConditions(sw.world, nextTask())),
    },
    [
      ["selection", "floor"],
      ["raw", "floor"],
      ["selection", "raw"],
      ["selection", "hand"],
    ],
    // More rounds than elsewhere: these ratios carry the main target.
    groupOptions({ batches: 41, budgetMs: 10_000 }),
  );
  const r = g.results;
  const ns = (k: string): number => need(r[k], k).nsPerOp;
  const floorName = `floor: bare cel-js, ${n} condition${n === 1 ? "" : "s"}`;
  add(row(floorName, "floor", "task", r["floor"], { note: `${fmtNs(ns("floor") / n)} per condition` }));
  add(row(`floor (hand-written JS): ${n} rule${n === 1 ? "" : "s"}`, "floor", "task", r["hand"], { note: "the same rules as JavaScript functions on the world's objects" }));
  add(
    row(`floor (raw): our cel-js functions, ${n} condition${n === 1 ? "" : "s"}`, "floor", "task", r["raw"], {
      ratioToFloor: need(g.ratios["raw/floor"], "ratio"),
      floor: floorName,
      note: "our environment's compiled functions on our prepared context; no adapter",
    }),
  );
  add(row(`  + evaluateCondition wrapper`, "breakdown", "task", r["evaluate"], { note: `${fmtNs((ns("evaluate") - ns("raw")) / n)} per rule over raw` }));
  add(row(`  + runner.run (compile lookup, result)`, "breakdown", "task", r["run"], { note: `${fmtNs((ns("run") - ns("evaluate")) / n)} per rule over evaluateCondition` }));
  add(row(`  + selectSteps walk (records), runner reused`, "breakdown", "task", r["walk"], { note: `${fmtNs((ns("walk") - ns("run")) / n)} per rule over runner.run` }));
  add(row(`  (per task: prepareConditionInput)`, "breakdown", "task", r["prepare"], { note: "part of the per-task cost below" }));
  const ratio = need(g.ratios["selection/floor"], "ratio");
  add(
    row(`selection: ${n} rule${n === 1 ? "" : "s"}, last matches`, "selection", "task", r["selection"], {
      ratioToFloor: ratio,
      floor: floorName,
      ...(n >= 16 ? withTarget(ratio, 0.5) : {}),
      note: `${need(g.ratios["selection/hand"], "ratio").toFixed(1)}× hand-written JS; ${need(g.ratios["selection/raw"], "ratio").toFixed(2)}× the raw floor; ${fmtNs(ns("selection") - ns("walk"))} per task over the reused runner (taskConditions + input preparation)`,
    }),
  );
}

// -------------------------------------------------------------------------------------------------
// 2b. The mixed workload (issue 16): 16 and 100 rules, the matching rule spread evenly, one task in five
// matching none; bare cel-js and hand-written JS stop at the first match, as selection does.

function mixedCases(n: number): void {
  const sw = selectionWorldOf(n);
  const mixed = mixedSelectionWorld(sw);
  const policy = need(mixed.world.index.policies.get(sw.policyId), sw.policyId);
  const tasks = mixed.tasks.slice(0, 4 * TASK_POOL);
  const bare = bareCompile(sw.conditions);
  const hand = sw.combos.map((c, k) => handwrittenRule(c, k));
  const bareCtx = tasks.map((t) => bareContext(mixed.world, t));
  const handCtx = tasks.map((t) => handContext(mixed.world, t));
  const positions = new Map<number, number>();
  for (const [i, t] of tasks.entries()) {
    const s = selectSteps(mixed.world, policy, taskConditions(mixed.world, t));
    if (!s.ok) throw new Error(`mixed: task ${t.id} fails: ${s.error.code}`);
    const chosen = s.value.decidedBy.kind === "rule" ? s.value.decidedBy.ruleIndex : -1;
    const b = firstMatchBare(bare, need(bareCtx[i], "context"));
    const h = firstMatchHand(hand, need(handCtx[i], "context"));
    if (chosen !== b || chosen !== h) throw new Error(`mixed: task ${t.id}: selection ${chosen}, bare cel-js ${b}, hand-written ${h}`);
    positions.set(chosen, (positions.get(chosen) ?? 0) + 1);
  }
  const none = positions.get(-1) ?? 0;
  const nextBare = cycler(bareCtx);
  const nextHand = cycler(handCtx);
  const nextTask = cycler(tasks);
  const g = measureGroup(
    {
      floor: () => firstMatchBare(bare, nextBare()),
      hand: () => firstMatchHand(hand, nextHand()),
      selection: () => selectSteps(mixed.world, policy, taskConditions(mixed.world, nextTask())),
    },
    [
      ["selection", "floor"],
      ["selection", "hand"],
      ["hand", "floor"],
    ],
    groupOptions({ batches: 41, budgetMs: 10_000 }),
  );
  const r = g.results;
  const floorName = `floor: bare cel-js, ${n} rules, mixed`;
  const spread = `${tasks.length} tasks: ${positions.size - (none > 0 ? 1 : 0)} distinct matching rules, ${none} matching none`;
  add(row(floorName, "mixed", "task", r["floor"], { note: spread }));
  add(row(`floor (hand-written JS): ${n} rules, mixed`, "mixed", "task", r["hand"], { ratioToFloor: need(g.ratios["hand/floor"], "ratio"), floor: floorName }));
  const ratio = need(g.ratios["selection/floor"], "ratio");
  add(
    row(`selection: ${n} rules, mixed`, "mixed", "task", r["selection"], {
      ratioToFloor: ratio,
      floor: floorName,
      ...withTarget(ratio, 0.5),
      note: `${need(g.ratios["selection/hand"], "ratio").toFixed(1)}× hand-written JS`,
    }),
  );
}

// -------------------------------------------------------------------------------------------------
// 3. Explanation on vs off.

function explanationCases(n: number): void {
  const sw = selectionWorldOf(n);
  const nextTask = cycler(sw.tasks.slice(0, TASK_POOL));
  const traced = decide(sw.world, nextTask(), { trace: true });
  if (traced.traces.length !== n || traced.traces.some((t) => t === null)) throw new Error("trace: one trace per evaluated rule expected");
  // Each expression's trace table is compiled on its first traced run: done here, not in the warm-up,
  // whose first calls would otherwise make one call look ~1 s and the batches one call long.
  if (traced.traces.some((t) => traceRecordOf(t)?.truth(0) === undefined)) throw new Error("trace: every trace records its root");
  const e = explain(sw.world, traced.task.id);
  if (!e.ok || formatExplanation(e.value) === "") throw new Error("explain: an explanation expected");
  const g = measureGroup(
    {
      off: () => decide(sw.world, nextTask()),
      on: () => decide(sw.world, nextTask(), { trace: true }),
      // The same, with every trace's recorded root read: what coverage and explain pay.
      read: () => {
        let t = 0;
        for (const tr of decide(sw.world, nextTask(), { trace: true }).traces) if (traceRecordOf(tr)?.truth(0) === "true") t++;
        return t;
      },
      // What the CLI's `explain` prints: the whole explanation (approvers included), rendered.
      explain: () => {
        const e = explain(sw.world, nextTask().id);
        return e.ok ? formatExplanation(e.value) : e;
      },
    },
    [
      ["on", "off"],
      ["read", "off"],
      ["explain", "off"],
    ],
    groupOptions({ budgetMs: 5000 }),
  );
  const off = `decide, trace off: ${n} rules`;
  add(row(off, "explanation", "task", g.results["off"]));
  const ratio = need(g.ratios["on/off"], "ratio");
  add(row(`decide, trace on: ${n} rules`, "explanation", "task", g.results["on"], { ratio, ratioTo: off, ...withTarget(ratio, 2) }));
  add(
    row(`decide, trace on, every trace read: ${n} rules`, "explanation", "task", g.results["read"], {
      ratio: need(g.ratios["read/off"], "ratio"),
      ratioTo: off,
      // Issue 16's "explanation still ≤ 2× a decision", as its readers (explain, coverage) pay it.
      ...withTarget(need(g.ratios["read/off"], "ratio"), 2),
      note: "each trace's recorded root read (every node recorded while deciding), as rule coverage reads them; no node tree, no displays",
    }),
  );
  add(
    row(`explain + format: ${n} rules`, "explanation", "task", g.results["explain"], {
      ratio: need(g.ratios["explain/off"], "ratio"),
      ratioTo: off,
      note: "explain(world, id) + formatExplanation, as the CLI prints it; where the trace's displays are built now",
    }),
  );
}

// -------------------------------------------------------------------------------------------------
// 4. Cold compile vs cached.

function compileCases(): void {
  let fresh = 0;
  const combo = { dept: "Engineering", emp: "Full Time", clearance: "high", risk: "critical" };
  // A new source text each call, shaped like a real rule (its department literal is unique).
  const freshSource = (): string => portableCondition({ ...combo, dept: `Dept-${fresh++}` }, fresh);
  const cached = portableCondition(combo, 0);
  if (!compileCondition(cached).ok || !compileCondition(freshSource()).ok) throw new Error("compile: the bench sources do not compile");
  const env = bareEnvironment();
  // compileCondition keeps what it compiles (up to 10,000 sources an environment), so after the
  // first batches every cold compile runs with a full cache, and its young collections copy each
  // new compile into the old generation. The second floor keeps its parses the same way (a Map of
  // at most 10,000, oldest out), so that ratio compares like with like; the first keeps nothing.
  const CACHE_MAX = 10_000;
  const kept = new Map<string, unknown>();
  const g = measureGroup(
    {
      bareCold: () => env.parse(freshSource()).check().valid,
      bareKept: () => {
        const source = freshSource();
        const parsed = env.parse(source);
        const valid = parsed.check().valid;
        if (kept.size >= CACHE_MAX) {
          const oldest = kept.keys().next();
          if (!oldest.done) kept.delete(oldest.value);
        }
        kept.set(source, parsed);
        return valid;
      },
      cold: () => compileCondition(freshSource()).ok,
      cached: () => compileCondition(cached).ok,
    },
    [
      ["cold", "cached"],
      ["cold", "bareCold"],
      ["cold", "bareKept"],
    ],
    groupOptions({ batchMs: 10, budgetMs: 4000 }),
  );
  const floor = "compile cold: bare cel-js parse + check";
  const keptFloor = "compile cold: bare cel-js parse + check, kept";
  add(row(floor, "compile", "source", g.results["bareCold"], { note: "the floor of a cold compile (keeps nothing)" }));
  add(row(keptFloor, "compile", "source", g.results["bareKept"], { note: "the same, each parse kept in a 10,000-source Map as a cache would" }));
  add(
    row("compile cold: compileCondition, new source", "compile", "source", g.results["cold"], {
      ratioToFloor: need(g.ratios["cold/bareCold"], "ratio"),
      floor,
      note: `${need(g.ratios["cold/bareKept"], "ratio").toFixed(2)}× the kept floor; ${need(g.ratios["cold/cached"], "ratio").toFixed(0)}× a cached compile`,
    }),
  );
  add(row("compile cached: compileCondition, same source", "compile", "source", g.results["cached"]));
}

// -------------------------------------------------------------------------------------------------
// 5. Reducers: a call's cost on a small vs a large world; Hard Reset vs the floor.

function reducerSizeCases(large: LoadedSynthetic): void {
  const small = loadSynthetic({ ...SYNTH, tasks: 100 });
  // The first 100 tasks of the large world are the small world's (same seed, same stream): the
  // same tasks are reset and commented in both.
  if (small.head !== large.head) throw new Error("reducers: the small world's tasks are not the large world's first tasks");
  const ids = [...small.world.tasks.values()].filter((t) => t.type?.kind === "grant" && t.state === "TASK_STATE_OPEN").map((t) => t.id);
  for (const w of [small.world, large.world])
    for (const id of ids) {
      const h = hardReset(w, { taskId: id }, ACTOR);
      const c = comment(w, { taskId: id, comment: "bench" }, ACTOR);
      if (!h.ok || !c.ok) throw new Error(`reducers: ${id}: ${JSON.stringify(h.ok ? c : h).slice(0, 300)}`);
    }
  const text = "Checked with the team lead.";
  const [a, b, c, d] = [cycler(ids), cycler(ids), cycler(ids), cycler(ids)];
  const g = measureGroup(
    {
      hardResetSmall: () => hardReset(small.world, { taskId: a() }, ACTOR),
      hardResetLarge: () => hardReset(large.world, { taskId: b() }, ACTOR),
      commentSmall: () => comment(small.world, { taskId: c(), comment: text }, ACTOR),
      commentLarge: () => comment(large.world, { taskId: d(), comment: text }, ACTOR),
    },
    [
      ["hardResetLarge", "hardResetSmall"],
      ["commentLarge", "commentSmall"],
    ],
    groupOptions({ budgetMs: 8000 }),
  );
  for (const reducer of ["hardReset", "comment"] as const) {
    const smallName = `${reducer}: world of 100 tasks`;
    add(row(smallName, "reducers", "call", g.results[`${reducer}Small`]));
    const ratio = need(g.ratios[`${reducer}Large/${reducer}Small`], "ratio");
    add(
      row(`${reducer}: world of ${LARGE.toLocaleString("en")} tasks`, "reducers", "call", g.results[`${reducer}Large`], {
        ratio,
        ratioTo: smallName,
        ...withTarget(ratio, 1.3),
      }),
    );
  }
}

function hardResetFloorCases(): void {
  // Hard Reset of a task whose policy has 16 portable rules, the last matching, vs their floor.
  const sw = selectionWorldOf(16);
  const tasks = sw.tasks.slice(0, TASK_POOL);
  const bare = bareCompile(sw.conditions);
  const bareCtx = tasks.map((t) => bareContext(sw.world, t));
  for (const t of tasks) {
    const h = hardReset(sw.world, { taskId: t.id }, ACTOR);
    if (!h.ok) throw new Error(`hardReset 16 rules: ${t.id}: ${JSON.stringify(h.error).slice(0, 300)}`);
  }
  const nextBare = cycler(bareCtx);
  const nextTask = cycler(tasks);
  const g = measureGroup(
    {
      floor: () => evaluateAll(bare, nextBare()),
      hardReset: () => hardReset(sw.world, { taskId: nextTask().id }, ACTOR),
    },
    [["hardReset", "floor"]],
    groupOptions(),
  );
  const floor = "floor: bare cel-js, 16 conditions (Hard Reset run)";
  add(row(floor, "floor", "task", g.results["floor"]));
  const ratio = need(g.ratios["hardReset/floor"], "ratio");
  add(row("hardReset: 16 rules, last matches", "reducers", "call", g.results["hardReset"], { ratioToFloor: ratio, floor, ...withTarget(ratio, 3) }));
}

// -------------------------------------------------------------------------------------------------
// 5b. History depth (issue 15.3): a Hard Reset / Restart after 1 … 10,000 prior ones of the same task.

/** Prior resets (or restarts) of one task before the timed one. */
const HISTORY_DEPTHS = QUICK ? [1, 10, 100, 1_000] : [1, 10, 100, 1_000, 10_000];

/**
 * Hard Reset and Restart of a task that was hard-reset (restarted) 1 … 10,000 times before, each
 * timed from the same world (every call appends to the same old history: the branching case, the
 * one a Go-style shared slice copies), interleaved, as a ratio to the 1-prior figure; with the
 * response bytes and the history the world keeps. A short-history task is the first row.
 */
function historyDepthCases(): void {
  const { world } = loadSynthetic({ ...SYNTH, tasks: 100 });
  const taskId = [...world.tasks.values()].find((t) => t.type?.kind === "grant" && t.state === "TASK_STATE_OPEN")?.id;
  if (taskId === undefined) throw new Error("history: no open grant task");
  const reset = (w: World) => hardReset(w, { taskId }, ACTOR);
  const again = (w: World) => restartTask(w, { taskId }, ACTOR);
  const worlds = new Map<string, World>();
  const bytes = new Map<string, number>();
  const steps = new Map<string, number>();
  for (const [kind, act] of [["hardReset", reset], ["restart", again]] as const) {
    let w = world;
    let done = 0;
    for (const depth of HISTORY_DEPTHS) {
      for (; done < depth; done++) {
        const r = act(w);
        if (!r.ok) throw new Error(`history: ${kind} #${done + 1}: ${r.error.message}`);
        w = r.value.world;
      }
      const r = act(w);
      if (!r.ok) throw new Error(`history: ${kind} after ${depth}: ${r.error.message}`);
      worlds.set(`${kind}${depth}`, w);
      bytes.set(`${kind}${depth}`, Buffer.byteLength(JSON.stringify(r.value.response)));
      steps.set(`${kind}${depth}`, w.tasks.get(taskId)?.policy?.history?.length ?? 0);
    }
  }
  // Ratios to the 1-prior figure, and to the 100-prior one: a response carries at most 50 steps
  // (VIEWED_HISTORY_MAX_STEPS), so from 100 prior runs on it is as large as it gets; the target is
  // that nothing grows after that: ≤ 1.3× the 100-prior figure at 1,000 and 10,000.
  const fns: Record<string, () => unknown> = {};
  const pairs: [string, string][] = [];
  const [first, , plateau] = HISTORY_DEPTHS;
  for (const [key, w] of worlds) {
    const kind = key.startsWith("hardReset") ? "hardReset" : "restart";
    fns[key] = kind === "hardReset" ? () => reset(w) : () => again(w);
    if (key !== `${kind}${first}`) pairs.push([key, `${kind}${first}`]);
    if (key !== `${kind}${plateau}`) pairs.push([key, `${kind}${plateau}`]);
  }
  const g = measureGroup(fns, pairs, groupOptions({ budgetMs: 25000, batches: 41 }));
  for (const kind of ["hardReset", "restart"] as const)
    for (const depth of HISTORY_DEPTHS) {
      const key = `${kind}${depth}`;
      const name = `${kind} after ${depth.toLocaleString("en")} prior ${kind === "hardReset" ? "resets" : "restarts"}`;
      const toPlateau = g.ratios[`${key}/${kind}${plateau}`];
      const note = `response ${bytes.get(key)} bytes; the world keeps ${steps.get(key)} steps${toPlateau === undefined ? "" : `; ${toPlateau.toFixed(2)}× after ${plateau} prior`}`;
      if (depth === first) add(row(name, "history", "call", g.results[key], { note }));
      else {
        const ratio = need(g.ratios[`${key}/${kind}${first}`], "ratio");
        const target = depth > (plateau ?? 0) && toPlateau !== undefined ? withTarget(toPlateau, 1.3) : {};
        add(row(name, "history", "call", g.results[key], { ratio, ratioTo: `${kind} after ${first} prior`, ...target, note }));
      }
    }
}

// -------------------------------------------------------------------------------------------------
// 6. Scaling: decide() over every task of a world.

function decideAll(world: World): number {
  let n = 0;
  for (const t of world.tasks.values()) if (decide(world, t).selection?.ok === true) n++;
  return n;
}

/** Timed passes over the whole world (after the shared warm-up); ns per task of each pass. */
function scale(name: string, world: World): void {
  const tasks = world.tasks.size;
  const passes = QUICK ? 3 : tasks >= 100_000 ? 3 : 7;
  const budgetNs = (QUICK ? 2 : 10) * 1e9;
  const decided = decideAll(world); // also warms this world's caches (CEL users, directory)
  const samples: number[] = [];
  const t0 = process.hrtime.bigint();
  while (samples.length < passes) {
    collectYoung();
    const a = process.hrtime.bigint();
    if (decideAll(world) !== decided) throw new Error(`scaling: ${name}: decisions changed between passes`);
    const b = process.hrtime.bigint();
    samples.push(Number(b - a) / tasks);
    if (samples.length >= 2 && Number(b - t0) > budgetNs) break;
  }
  const sorted = [...samples].sort((x, y) => x - y);
  const nsPerOp = sorted[Math.ceil(sorted.length / 2) - 1] ?? NaN;
  add({
    name,
    group: "scaling",
    unit: "task",
    nsPerOp,
    p95: sorted[sorted.length - 1] ?? NaN,
    totalMs: (nsPerOp * tasks) / 1e6,
    note: `${decided} of ${tasks} tasks selected steps; ${samples.length} passes`,
  });
}

function scalingCases(large: LoadedSynthetic): void {
  const first = loadSynthetic({ ...SYNTH, tasks: 1_000 }).world;
  // Warm the JIT on the decision path before the first timed pass (every size runs the same code).
  const until = performance.now() + (QUICK ? 300 : 1500);
  while (performance.now() < until) decideAll(first);
  for (const size of QUICK ? [1_000, 10_000] : [1_000, 10_000, 100_000]) {
    const world = size === LARGE ? large.world : size === 1_000 ? first : loadSynthetic({ ...SYNTH, tasks: size }).world;
    scale(`decide all: ${size.toLocaleString("en")} tasks, 16 rules`, world);
  }
  for (const rules of [1, 4, 16]) {
    const w = loadSynthetic({ seed: 7, tasks: 2_000, rulesPerPolicy: rules, matchAt: "last" });
    scale(`decide all: 2,000 tasks, ${rules} rule${rules === 1 ? "" : "s"} per policy`, w.world);
  }
}

// -------------------------------------------------------------------------------------------------
// Run.

if (on("selection")) {
  log("selection (last rule matches) vs floor");
  for (const n of [1, 16, 100]) selectionCases(n);
  log("selection (mixed: matching rule spread, some none) vs floor");
  for (const n of [16, 100]) mixedCases(n);
}
if (on("explanation")) {
  log("explanation (trace) vs decision");
  for (const n of [16, 100]) explanationCases(n);
}
if (on("compile")) {
  log("compile: cold vs cached");
  compileCases();
}
if (on("reducers") || on("history")) {
  log(`history: Hard Reset and Restart after ${HISTORY_DEPTHS.join(" / ")} prior ones of the same task`);
  historyDepthCases();
}
if (on("reducers") || on("scaling")) {
  log(`loading a ${LARGE.toLocaleString("en")}-task world (generate + loadWorld)…`);
  const large = loadSynthetic({ ...SYNTH, tasks: LARGE });
  add({
    name: `loadWorld: ${LARGE.toLocaleString("en")} tasks (setup, one shot)`,
    group: "setup",
    unit: "task",
    nsPerOp: (large.loadMs * 1e6) / LARGE,
    p95: (large.loadMs * 1e6) / LARGE,
    totalMs: large.loadMs,
    note: `syntheticWorld ${large.generateMs.toFixed(0)} ms; loadWorld ${large.loadMs.toFixed(0)} ms`,
  });
  if (on("reducers")) {
    log(`reducers: 100 vs ${LARGE.toLocaleString("en")} tasks; Hard Reset vs the floor`);
    reducerSizeCases(large);
    hardResetFloorCases();
  }
  if (on("scaling")) {
    log("scaling: decide() over all tasks");
    scalingCases(large);
  }
}

// -------------------------------------------------------------------------------------------------
// Report.

const elapsedS = (performance.now() - started) / 1000;
const header = ["case", "ns/op", "p95", "unit", "ratio", "target", "note"];
const cells = cases.map((c) => {
  const ratio = c.ratioToFloor ?? c.ratio;
  return [
    c.name,
    fmtNs(c.nsPerOp),
    fmtNs(c.p95),
    c.totalMs === undefined ? c.unit : `${c.unit}, ${c.totalMs.toFixed(0)} ms total`,
    ratio === undefined ? "" : `${ratio.toFixed(2)}×`,
    c.target === undefined ? "" : `≤ ${c.target}× ${c.met === true ? "met" : "MISSED"}`,
    c.note ?? "",
  ];
});
const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? "").length)));
const left = new Set([0, 3, 6]);
const line = (r: readonly string[]): string =>
  r
    .map((x, i) => (left.has(i) ? x.padEnd(widths[i] ?? 0) : x.padStart(widths[i] ?? 0)))
    .join("  ")
    .trimEnd();
console.log(line(header));
console.log(line(widths.map((w) => "-".repeat(w))));
for (const [i, r] of cells.entries()) {
  const g = cases[i]?.group;
  if (i > 0 && g !== cases[i - 1]?.group && !(g === "breakdown" || cases[i - 1]?.group === "breakdown")) console.log("");
  console.log(line(r));
}
const targets = cases.filter((c) => c.target !== undefined);
console.log(
  `\ntargets met: ${targets.filter((c) => c.met === true).length}/${targets.length}; node ${process.version}; ` +
    `${availableParallelism()} CPUs, load ${loadAtStart.map((x) => x.toFixed(1)).join(" ")}; ${elapsedS.toFixed(0)} s; sink ${sink()}`,
);

const out = join(dirname(fileURLToPath(import.meta.url)), "results", "latest.json");
mkdirSync(dirname(out), { recursive: true });
const round = (x: number): number => Math.round(x * 100) / 100;
const results = {
  node: process.version,
  date: process.env["BENCH_DATE"] ?? new Date().toISOString(),
  quick: QUICK,
  ...(ONLY.size > 0 ? { only: [...ONLY] } : {}),
  elapsedSeconds: Math.round(elapsedS),
  machine: { cpus: availableParallelism(), loadavgAtStart: loadAtStart.map(round), loadavgAtEnd: loadavg().map(round) },
  cases: cases.map((c) => ({
    ...c,
    nsPerOp: round(c.nsPerOp),
    p95: round(c.p95),
    ...(c.ratioToFloor === undefined ? {} : { ratioToFloor: round(c.ratioToFloor) }),
    ...(c.ratio === undefined ? {} : { ratio: round(c.ratio) }),
    ...(c.totalMs === undefined ? {} : { totalMs: round(c.totalMs) }),
  })),
};
// Only what-if asked for: keep the other figures of the last run.
const ranHere = ONLY.size === 0 || [...ONLY].some((s) => s !== "whatif" && s !== "worldio" && s !== "cost" && s !== "http" && s !== "cli");
if (ranHere) {
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`wrote ${out}`);
}

if (on("worldio")) {
  log("world I/O: comments, Hard Reset history, loading 100k/1M-task files (bench/world-io.bench.ts, own process)");
  const script = join(dirname(fileURLToPath(import.meta.url)), "world-io.bench.ts");
  const child = spawnSync(process.execPath, ["--import", "tsx", script], { stdio: "inherit", env: process.env });
  if (child.status !== 0) {
    console.error(`world I/O bench failed (exit ${child.status ?? child.signal})`);
    process.exitCode = 1;
  }
}

if (on("cli")) {
  log("cli: a warm explain on a 100k-task world through the built executable (bench/cli.bench.ts, own process)");
  const script = join(dirname(fileURLToPath(import.meta.url)), "cli.bench.ts");
  const child = spawnSync(process.execPath, ["--import", "tsx", script], { stdio: "inherit", env: process.env });
  if (child.status !== 0) {
    console.error(`cli bench failed (exit ${child.status ?? child.signal})`);
    process.exitCode = 1;
  }
}

if (on("http")) {
  log("http: Comment and Hard Reset over serve vs the reducer and bare node:http (bench/http.bench.ts, own process)");
  const script = join(dirname(fileURLToPath(import.meta.url)), "http.bench.ts");
  const child = spawnSync(process.execPath, ["--import", "tsx", script], { stdio: "inherit", env: process.env });
  if (child.status !== 0) {
    console.error(`http bench failed (exit ${child.status ?? child.signal})`);
    process.exitCode = 1;
  }
}

if (on("whatif")) {
  log("what-if: whatIf over 10k–100k tasks (bench/whatif.bench.ts, own process)");
  const script = join(dirname(fileURLToPath(import.meta.url)), "whatif.bench.ts");
  const child = spawnSync(process.execPath, ["--import", "tsx", script], { stdio: "inherit", env: process.env });
  if (child.status !== 0) {
    console.error(`what-if bench failed (exit ${child.status ?? child.signal})`);
    process.exitCode = 1;
  }
}

if (on("cost")) {
  log("cost: costly CEL stopped by the budget (bench/cel-cost.bench.ts, own process)");
  const script = join(dirname(fileURLToPath(import.meta.url)), "cel-cost.bench.ts");
  const child = spawnSync(process.execPath, ["--import", "tsx", script], { stdio: "inherit", env: process.env });
  if (child.status !== 0) {
    console.error(`cost bench failed (exit ${child.status ?? child.signal})`);
    process.exitCode = 1;
  }
}
