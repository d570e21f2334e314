/**
 * `policy-sim test`: a policy test runner for authors who do not write TypeScript. Case files (JSON
 * or YAML) say where requests and tasks should route; the output reads like vitest's, failures show
 * what differs and how the task actually routed, `--coverage` lists the rules and sub-expressions
 * the cases never made true or never made false.
 */
import { parse as parseYaml } from "yaml";
import { type CaseEntry, decodeCaseFile } from "../testing/case-file.js";
import { type PolicyCaseResult, policyCases } from "../testing/policy-cases.js";
import { EXPECTATION_KEYS, failedRules, failedRulesLine, routeActuals, routeLine, routeMismatches, type RouteExpectation } from "../testing/expect-route.js";
import { type CoverageInput, formatCoverage, ruleCoverage } from "../whatif/coverage.js";
import type { World } from "../world/world.js";
import { CliInputError, type CliIO, type Command, EXIT, InputFileError, printJson, readProblem, readWorld, str, worldAtClock } from "./command.js";
import { expandGlobs, globRoot, isGlob } from "./glob.js";

/** How a case file's text is parsed: YAML for `.yaml`/`.yml`, JSON otherwise. */
function parseCaseText(path: string, text: string): unknown {
  const yaml = /\.ya?ml$/i.test(path);
  try {
    return yaml ? (parseYaml(text) as unknown) : (JSON.parse(text) as unknown);
  } catch (e: unknown) {
    throw new InputFileError(`the case file ${path} is not ${yaml ? "YAML" : "JSON"}: ${parseErrorText(e, text)}`);
  }
}

/**
 * What a parser said, whole enough to act on: the yaml library's first line with its code frame
 * (it ends "…at line 4, column 1:" and the frame follows), or JSON.parse's message with the line
 * and column of the position it names.
 */
function parseErrorText(e: unknown, text: string): string {
  const message = e instanceof Error ? e.message : String(e);
  const [first = "", ...rest] = message.split("\n");
  const frame = rest.filter((l) => l.trim() !== "").slice(0, 4);
  if (frame.length > 0) return `${first.replace(/:$/, "")}\n${frame.map((l) => `    ${l}`).join("\n")}`;
  const at = /position (\d+)/.exec(first);
  if (at === null) return first;
  const before = text.slice(0, Number(at[1]));
  const line = before.split("\n").length;
  return `${first} (line ${line}, column ${before.length - before.lastIndexOf("\n")})`;
}

interface FileRun {
  readonly path: string;
  readonly results: readonly ((PolicyCaseResult & { readonly path?: string }) | { readonly name: string; readonly pass: false; readonly malformed: true; readonly path: string; readonly message: string; readonly mismatches: readonly string[] })[];
  readonly refs: readonly CoverageInput[];
  /** Why the file could not be run (not read, not JSON/YAML, not a list of cases, none). */
  readonly unusable?: string;
}

/** One file's run, or why it could not run: one broken file does not hide the results of the others. */
function runUsableFile(world: World, path: string, io: CliIO): FileRun {
  try {
    return runFile(world, path, io);
  } catch (e: unknown) {
    if (!(e instanceof InputFileError)) throw e;
    return { path, results: [], refs: [], unusable: e.message };
  }
}

function runFile(world: World, path: string, io: CliIO): FileRun {
  let text: string;
  try {
    text = io.readFile(path);
  } catch (e: unknown) {
    throw new InputFileError(`cannot read the case file ${path}: ${readProblem(e)}`);
  }
  const decoded = decodeCaseFile(parseCaseText(path, text));
  if (decoded.problems.length > 0) throw new InputFileError(`${path}: ${decoded.problems.join("; ")}`);
  // An emptied file would pass without testing anything (vitest, too, fails a file with no tests).
  if (decoded.entries.length === 0) throw new InputFileError(`the case file ${path} holds no cases: a file with none tests nothing, so it is not taken as passing`);
  const good = decoded.entries.filter((e): e is Extract<CaseEntry, { case: unknown }> => "case" in e);
  const checked = policyCases(world, good.map((e) => e.case));
  let next = 0;
  // A case that is not one is reported where it is in the file (`$[1].tsk`), beside the others' results.
  const results = decoded.entries.map((e) => {
    if (!("case" in e)) return { name: e.name, pass: false as const, malformed: true as const, path: e.path, message: `${e.name}: ${e.path}: ${e.problem}`, mismatches: [`${e.path}: ${e.problem}`] };
    const r = checked[next++] as PolicyCaseResult;
    // Malformed where the kit reads it (its expect, its request, its clock): at the case's path.
    return r.malformed === true ? { ...r, path: e.path, mismatches: r.mismatches.map((m) => `${e.path}: ${m}`) } : r;
  });
  // Each case's own clock goes with it: coverage evaluates the rules as the case ran.
  const cases = good.map((e) => e.case);
  const refs = checked.map((r, i): CoverageInput => {
    const now = cases[i]?.now;
    return now === undefined ? { task: r.task } : { task: r.task, now };
  });
  return { path, results, refs };
}

function paint(io: CliIO, code: string, s: string): string {
  return io.isTTY ? `\u001b[${code}m${s}\u001b[0m` : s;
}

function report(io: CliIO, runs: readonly FileRun[], verbose: boolean): { passed: number; failed: number } {
  let passed = 0;
  let failed = 0;
  let filesFailed = 0;
  for (const run of runs) {
    if (run.unusable !== undefined) {
      filesFailed++;
      io.stdout(` ${paint(io, "31", "❯")} ${run.path} (not run: unusable)\n     ${paint(io, "31", "→")} ${run.unusable.split("\n").join("\n       ")}\n`);
      continue;
    }
    const bad = run.results.filter((r) => !r.pass).length;
    passed += run.results.length - bad;
    failed += bad;
    if (bad > 0) filesFailed++;
    const mark = bad > 0 ? paint(io, "31", "❯") : paint(io, "32", "✓");
    io.stdout(` ${mark} ${run.path} (${run.results.length} test${run.results.length === 1 ? "" : "s"}${bad > 0 ? ` | ${bad} failed` : ""})\n`);
    for (const r of run.results) {
      io.stdout(`   ${r.pass ? paint(io, "32", "✓") : paint(io, "31", "×")} ${r.name}\n`);
      if (r.pass) continue;
      // --verbose prints the whole failure message, which lists the mismatches itself.
      if (verbose && "explanation" in r && r.message) {
        io.stdout(`${r.message.split("\n").map((l) => `       ${l}`).join("\n")}\n`);
        continue;
      }
      for (const m of r.mismatches) io.stdout(`     ${paint(io, "31", "→")} ${m}\n`);
      if ("explanation" in r) {
        // Why, in one line (the rule that decided, the sequence), and where the rest is.
        if (r.explanation) {
          io.stdout(`       it routes: ${routeLine(r.explanation)} (--verbose explains it, value by value)\n`);
          const failedRules = failedRulesLine(r.explanation);
          if (failedRules) io.stdout(`       ${failedRules}\n`);
        }
      }
    }
  }
  const files = runs.length;
  io.stdout(`\n Test Files  ${filesFailed > 0 ? `${paint(io, "31", `${filesFailed} failed`)} | ` : ""}${paint(io, "32", `${files - filesFailed} passed`)} (${files})\n`);
  io.stdout(`      Tests  ${failed > 0 ? `${paint(io, "31", `${failed} failed`)} | ` : ""}${paint(io, "32", `${passed} passed`)} (${passed + failed})\n`);
  return { passed, failed };
}

/** The world, at `--now` when given: the clock its conditions read (business hours, a date). */
function worldAt(io: CliIO, worldPath: string, now: unknown): World {
  return worldAtClock(readWorld(io, worldPath), now);
}

function runOnce(io: CliIO, worldPath: string, patterns: readonly string[], values: Record<string, unknown>): number {
  const world = worldAt(io, worldPath, values["now"]);
  const { files, empty } = expandGlobs(patterns, io);
  if (empty.length > 0) throw new CliInputError(`no case file matches ${empty.map((p) => `"${p}"`).join(", ")}`);
  const runs = files.map((f) => runUsableFile(world, f, io));
  const unusable = runs.filter((r) => r.unusable !== undefined);
  // Unusable input is exit 2 as before, and said on stderr; the other files still run and report.
  for (const r of unusable) io.stderr(`${r.unusable}\n`);
  // So is a malformed case (not a case, an unknown key or a value of the wrong kind in expect): a
  // broken test, which a CI step must not read as a policy that routes differently (exit 1).
  const malformed = runs.flatMap((r) => r.results.filter((x) => "malformed" in x && x.malformed === true).map((x) => `${r.path}: ${x.name}`));
  if (malformed.length > 0) io.stderr(`${malformed.length === 1 ? "a case is" : `${malformed.length} cases are`} malformed (exit 2): ${malformed.join("; ")}\n`);
  const exitOf = (failed: number): number => (unusable.length > 0 || malformed.length > 0 ? EXIT.badInput : failed > 0 ? EXIT.findings : EXIT.ok);
  const refs = runs.flatMap((r) => r.refs);
  const coverage = values["coverage"] === true ? ruleCoverage(world, refs) : undefined;
  if (values["json"] === true) {
    const failed = runs.reduce((n, r) => n + r.results.filter((x) => !x.pass).length, 0);
    printJson(io, {
      passed: runs.reduce((n, r) => n + r.results.length, 0) - failed,
      failed,
      files: runs.map((r) => ({
        path: r.path,
        ...(r.unusable !== undefined ? { unusable: r.unusable } : {}),
        cases: r.results.map((x) => {
          const e = !x.pass && "explanation" in x && x.explanation ? x.explanation : undefined;
          const route = e ? routeLine(e) : undefined;
          const failed = e ? failedRules(e).map((r) => ({ policyId: r.policyId, ruleIndex: r.ruleIndex, error: r.error })) : [];
          // What was expected and what the route is, key by key, for tools that compare rather than read.
          const expected = "expected" in x && typeof x.expected === "object" && x.expected !== null ? x.expected : undefined;
          const actual = e && expected ? routeActuals(e, Object.keys(expected)) : undefined;
          // The verdict key by key: `actual` is the route as it is (whole step summaries, approvers
          // in order), which a key may match without being equal to it (a step kind, a set).
          const failedKeys = e && expected ? Object.keys(expected).filter((k) => routeMismatches(e, { [k]: (expected as Record<string, unknown>)[k] } as RouteExpectation).length > 0) : undefined;
          return {
            name: x.name,
            pass: x.pass,
            ...("malformed" in x && x.malformed === true ? { malformed: true, ...(x.path !== undefined ? { path: x.path } : {}) } : {}),
            mismatches: x.mismatches,
            ...(route === undefined ? {} : { route }),
            ...(expected && actual ? { expected, actual, failedKeys } : {}),
            ...(failed.length > 0 ? { failedRules: failed } : {}),
          };
        }),
      })),
      ...(coverage ? { coverage } : {}),
    });
    return exitOf(failed);
  }
  const { failed } = report(io, runs, values["verbose"] === true);
  if (coverage) io.stdout(`\n${formatCoverage(coverage, { onlyGaps: true, hideUnreached: true })}\n`);
  return exitOf(failed);
}

/**
 * The `test` command: exit 0 when every case passes, 1 when some fail, 2 for unusable input (a
 * missing or malformed file, a glob that matches nothing).
 *
 * @example
 * ```ts
 * await runCli(["test", "--world", "fixtures/world.json", "fixtures/policy-tests/*.yaml", "--coverage"], io);
 * ```
 */
export const testCommand: Command = {
  usage: "policy-sim test --world <file> <case files or globs…> [--now <time>] [--coverage] [--verbose] [--json] [--watch]",
  summary: "run policy test cases (JSON or YAML) against a world, with rule coverage",
  positionals: "case files or globs",
  help: [
    "--world <file>   the world the cases run against",
    "--now <time>     the clock the conditions read (RFC 3339; default: the world's now), e.g. after hours",
    "--coverage       after the results: the rules never matched, and the sub-expressions never true",
    "                 or never false, over every case's task",
    "--verbose        with each failure, how the task actually routed, rule by rule",
    "--json           { passed, failed, files: [{ path, unusable?, cases: [{ name, pass, mismatches, and for a failed",
    "                 case route, expected, actual (the route's value for each key expected), failedKeys (those",
    "                 that do not hold: a step kind matches its summary, approvers are a set), failedRules? }] }], coverage? }",
    "--watch          run again whenever the world or a case file changes (Ctrl-C stops)",
    "",
    "A case file is a list of cases (or { cases: [...] }), each:",
    "  - name: contractors asking for prod admin go to their manager, then security",
    "    request: { subject: { id: u-dev2, employmentType: Contractor }, entitlement: app-aws/ent-aws-prod-admin }   # or task: \"1001\"",
    "    expect: { policy: pol-prod-admin, rule: 2, steps: [approval, approval, provision], approvers: [u-eng-mgr] }",
    "expect keys (any of them; each must hold):",
    ...Object.entries(EXPECTATION_KEYS).map(([key, what]) => `  ${key.padEnd(14)} ${what}`),
    "A case may also give now: (RFC 3339), the clock its conditions read.",
    "Exit 0 when every case passes, 1 when some fail, 2 for unusable input: a broken case file, or a",
    "malformed case (not a case; an unknown key or a value of the wrong kind in expect), is reported",
    "where it is and the other cases and files still run.",
    "",
    "  policy-sim test --world fixtures/world.json fixtures/policy-tests/*.yaml --coverage",
  ],
  options: { world: { type: "string" }, now: { type: "string" }, coverage: { type: "boolean" }, verbose: { type: "boolean" }, json: { type: "boolean" }, watch: { type: "boolean" } },
  async run({ values, positionals }, io) {
    const worldPath = str(values["world"]);
    if (!worldPath) throw new CliInputError("--world <file> is required: the world the cases run against");
    if (positionals.length === 0) throw new CliInputError("give the case files (or globs) to run, e.g. policy-sim test --world w.json 'cases/*.yaml'");
    if (values["watch"] !== true) return runOnce(io, worldPath, positionals, values);
    if (!io.watch || !io.onShutdown) throw new CliInputError("--watch needs a terminal session to run in");
    // The folders of globs too: a case file created there later is run from then on.
    const watchFiles = [worldPath, ...expandGlobs(positionals, io).files, ...new Set(positionals.filter(isGlob).map((p) => globRoot(p) || "."))];
    let last = EXIT.ok as number;
    const again = (): void => {
      try {
        last = runOnce(io, worldPath, positionals, values);
      } catch (e: unknown) {
        if (!(e instanceof CliInputError)) throw e;
        io.stderr(`${e.message}\n`);
        last = EXIT.badInput;
      }
      io.stdout(`\nwatching ${watchFiles.length} file${watchFiles.length === 1 ? "" : "s"} for changes (Ctrl-C stops)\n`);
    };
    again();
    const stopWatching = io.watch(watchFiles, again);
    await new Promise<void>((resolve) => {
      const stop = io.onShutdown?.(() => {
        stop?.();
        resolve();
      });
    });
    stopWatching();
    return last;
  },
};
