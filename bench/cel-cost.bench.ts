/**
 * Bounded time and memory of costly CEL (issue 15, point 1): issue 15's two hostile conditions and
 * a generated family of nested comprehensions, each run through every path that evaluates a rule
 * condition (evaluateCondition, traceCondition, decide, explain, whatIf) on the sample world with
 * the condition as its first rule. Before the cost budget, the first took 40 s per decision and
 * the second exhausted 4 GB; now each must stop at the budget (CEL_COST_EXCEEDED).
 *
 *   node --import tsx bench/cel-cost.bench.ts        (or BENCH_ONLY=cost npm run bench)
 *
 * Times are single calls (median of 3), in ms; memory is the process's peak RSS and the heap after
 * the run, sampled after every call.
 */
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { compileCondition } from "../src/cel/compile.js";
import { DEFAULT_CEL_COST_LIMIT } from "../src/cel/cost.js";
import { evaluateCondition, prepareConditionInput } from "../src/cel/evaluate.js";
import { adaInput, nestedLoops, NESTED_ALL, NESTED_MAP, type LoopMacro } from "../src/cel/test-fixtures.js";
import { traceCondition } from "../src/cel/trace.js";
import { explain } from "../src/explain/explain.js";
import { decide } from "../src/policy/decide.js";
import { whatIf } from "../src/whatif/what-if.js";
import { loadWorld } from "../src/world/load-world.js";
import { findTask, type World } from "../src/world/world.js";

const here = dirname(fileURLToPath(import.meta.url));
const worldJson = readFileSync(join(here, "..", "fixtures", "world.json"), "utf8");

function baseWorld(): World {
  const r = loadWorld(JSON.parse(worldJson));
  if (!r.ok) throw new Error(r.error[0]?.message);
  return r.value;
}

function withFirstRule(condition: string): World {
  const json = JSON.parse(worldJson) as { policies: { id: string; rules: Record<string, unknown>[] }[] };
  const p = json.policies.find((x) => x.id === "pol-prod-admin");
  if (!p) throw new Error("fixture");
  p.rules.unshift({ condition, policyKey: "", stepKey: String(p.rules[0]?.["stepKey"]) });
  const r = loadWorld(json);
  if (!r.ok) throw new Error(r.error[0]?.message);
  return r.value;
}

let peakRss = 0;
const sample = (): void => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
};

function timeMs(f: () => unknown): { ms: number; result: unknown } {
  const times: number[] = [];
  let result: unknown;
  for (let i = 0; i < 3; i++) {
    const t0 = process.hrtime.bigint();
    result = f();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    sample();
  }
  times.sort((a, b) => a - b);
  return { ms: times[1] ?? 0, result };
}

/** A deterministic family: every macro at the outer level, two to four levels of 100–1,000 items. */
function family(): { name: string; source: string }[] {
  const macros: LoopMacro[] = ["all", "exists", "exists_one", "map", "filter"];
  const out: { name: string; source: string }[] = [];
  for (const [i, outer] of macros.entries()) {
    for (const depth of [2, 3, 4]) {
      const levels: [LoopMacro, number][] = [];
      for (let d = 0; d < depth; d++) levels.push([d === 0 ? outer : (macros[(i + d) % macros.length] as LoopMacro), depth === 2 ? 1000 : depth === 3 ? 400 : 100]);
      out.push({ name: `generated ${levels.map(([m, n]) => `${m}×${n}`).join(" ∘ ")}`, source: nestedLoops(levels) });
    }
  }
  return out;
}

const cases = [{ name: "issue 15: three nested .all() over 1,000 items (12 KB)", source: NESTED_ALL }, { name: "issue 15: nested .map() blow-up", source: NESTED_MAP }, ...family()];

const prepared = prepareConditionInput(adaInput());
if (!prepared.ok) throw new Error("prepare");
const world0 = baseWorld();

interface Row {
  readonly name: string;
  readonly bytes: number;
  readonly outcome: string;
  readonly evaluateMs: number;
  readonly traceMs: number;
  readonly decideMs: number;
  readonly explainMs: number;
  readonly whatIfMs: number;
}

const rows: Row[] = [];
for (const c of cases) {
  const compiled = compileCondition(c.source);
  if (!compiled.ok) throw new Error(`${c.name}: ${compiled.error[0]?.message}`);
  const evaluated = timeMs(() => evaluateCondition(compiled.value, prepared.value));
  const r = evaluated.result as ReturnType<typeof evaluateCondition>;
  const outcome = r.ok ? String(r.value) : r.error.code;
  const traced = timeMs(() => traceCondition(compiled.value, prepared.value));
  const world = withFirstRule(c.source);
  const task = findTask(world, "1001");
  if (!task) throw new Error("task 1001");
  const decided = timeMs(() => decide(world, task));
  const explained = timeMs(() => explain(world, "1001"));
  const whatIfed = timeMs(() =>
    whatIf(world0, (w) => {
      const p = w.policies.find((x) => x.id === "pol-prod-admin");
      p?.rules?.unshift({ condition: c.source, policyKey: "", stepKey: "s" } as never);
    }),
  );
  rows.push({
    name: c.name,
    bytes: c.source.length,
    outcome,
    evaluateMs: evaluated.ms,
    traceMs: traced.ms,
    decideMs: decided.ms,
    explainMs: explained.ms,
    whatIfMs: whatIfed.ms,
  });
}

const tasks = world0.tasks.size;
const fmt = (x: number): string => x.toFixed(1).padStart(8);
console.log(`CEL cost budget: ${DEFAULT_CEL_COST_LIMIT.toLocaleString("en")} units (default); sample world, ${tasks} tasks for whatIf`);
console.log(`${"case".padEnd(64)} ${"outcome".padEnd(18)} ${"eval ms".padStart(8)} ${"trace".padStart(8)} ${"decide".padStart(8)} ${"explain".padStart(8)} ${"whatIf".padStart(8)}`);
for (const r of rows) {
  console.log(`${r.name.slice(0, 64).padEnd(64)} ${r.outcome.padEnd(18)} ${fmt(r.evaluateMs)} ${fmt(r.traceMs)} ${fmt(r.decideMs)} ${fmt(r.explainMs)} ${fmt(r.whatIfMs)}`);
}
const worst = Math.max(...rows.map((r) => Math.max(r.evaluateMs, r.traceMs, r.decideMs, r.explainMs)));
const heapMb = process.memoryUsage().heapUsed / 2 ** 20;
console.log(`worst single evaluation path: ${worst.toFixed(0)} ms; peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MB; heap after ${heapMb.toFixed(0)} MB`);

const out = join(here, "results", "cel-cost.json");
mkdirSync(dirname(out), { recursive: true });
writeFileSync(
  out,
  `${JSON.stringify({ node: process.version, date: process.env["BENCH_DATE"] ?? new Date().toISOString(), limit: DEFAULT_CEL_COST_LIMIT, whatIfTasks: tasks, peakRssMb: Math.round(peakRss / 2 ** 20), rows }, null, 2)}\n`,
);
console.log(`wrote ${out}`);
