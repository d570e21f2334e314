/**
 * `npm run fuzz -- --runs 1000000`: the fuzz campaign of issue 15.7 over codecs, loadWorld, the CEL
 * checker, lint, and reduce / hardReset / comment on generated worlds (targets in
 * scripts/fuzz/targets.ts). Every call gets deep-frozen input and must not throw, must return a
 * Result, must leave its input untouched and must give byte-identical output when called twice.
 *
 * Options:
 *   --runs N       total runs, shared evenly by the targets (default 10000)
 *   --seed S       fast-check seed (default: fast-check's own, printed so a run can be replayed)
 *   --target a,b   only these targets (names as printed)
 *   --json         one JSON line per target instead of the table
 *
 * Prints, per target, the runs made, the failures, and a failure's counterexample shrunk by
 * fast-check with the seed and path that replay it. Exits 1 when any target failed.
 */
import fc from "fast-check";
import { FUZZ_TARGETS } from "./fuzz/targets.js";

function option(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

const runs = Number(option("runs") ?? 10_000);
if (!Number.isSafeInteger(runs) || runs < 1) {
  console.error("--runs takes a positive integer");
  process.exit(2);
}
const seedText = option("seed");
const seed = seedText === undefined ? undefined : Number(seedText);
const only = option("target")?.split(",");
const json = process.argv.includes("--json");
const targets = FUZZ_TARGETS.filter((t) => !only || only.includes(t.name));
if (targets.length === 0) {
  console.error(`no such target; targets: ${FUZZ_TARGETS.map((t) => t.name).join(", ")}`);
  process.exit(2);
}
const perTarget = Math.ceil(runs / targets.length);
let failed = 0;
const started = performance.now();
for (const t of targets) {
  const t0 = performance.now();
  const details = fc.check(t.property(), { numRuns: perTarget, ...(seed === undefined ? {} : { seed }), endOnFailure: false });
  const seconds = (performance.now() - t0) / 1000;
  const row = {
    target: t.name,
    covers: t.covers,
    runs: details.numRuns,
    skipped: details.numSkips,
    failures: details.failed ? 1 : 0,
    seconds: Number(seconds.toFixed(1)),
    seed: details.seed,
    ...(details.failed
      ? {
          shrinks: details.numShrinks,
          counterexample: fc.stringify(details.counterexample),
          path: details.counterexamplePath,
          reason: details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance),
        }
      : {}),
  };
  if (details.failed) failed++;
  if (json) console.log(JSON.stringify(row));
  else {
    console.log(`${details.failed ? "FAIL" : "ok  "} ${t.name.padEnd(18)} ${String(row.runs).padStart(9)} runs  ${row.seconds.toFixed(1).padStart(7)} s  seed ${row.seed}`);
    if (details.failed) {
      console.log(`     ${row.reason}`);
      console.log(`     counterexample (shrunk ${row.shrinks} times): ${row.counterexample}`);
      console.log(`     replay: npm run fuzz -- --target ${t.name} --seed ${row.seed} (path ${row.path})`);
    }
  }
}
if (!json)
  console.log(`${targets.length - failed} passed, ${failed} failed (${targets.length} targets, ${perTarget} runs each, ${((performance.now() - started) / 1000).toFixed(0)} s)`);
process.exitCode = failed > 0 ? 1 : 0;
