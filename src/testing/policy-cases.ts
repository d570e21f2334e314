/**
 * Table-driven policy tests: a list of cases, each a task (by id, or described inline by subject and
 * entitlement) and the route it should take, checked against a world. `policyCases` returns one
 * result per case for `it.each`; `runPolicyCases` checks them all at once and reports.
 */
import { misspeltCaseKey } from "./case-file.js";
import type { Explanation } from "../explain/explain.js";
import { describeValue } from "../codec/diagnostic.js";
import type { TaskRef } from "../whatif/task-spec.js";
import { isRealTimestamp, utcTimestamp } from "../codec/schema.js";
import { replaceInWorld, type World } from "../world/world.js";
import { checkRoute, type RouteExpectation } from "./expect-route.js";

/**
 * One case: a name, the task (`task`: an id, numericId or described request, see {@link TaskRef}; or the request's fields
 * inline) and the expected route.
 *
 * @example
 * ```ts
 * const cases: PolicyCase[] = [
 *   { name: "contractor on prod admin", task: "1001", expect: { policy: "pol-prod-admin", rule: 2 } },
 *   { name: "security lead fast path", subject: { id: "u-sec-eng" },
 *     entitlement: { appId: "app-aws", id: "ent-aws-prod-admin" }, expect: { rule: 0 } },
 *   { name: "after hours", task: "1002", now: "2026-11-23T22:30:00Z", expect: { rule: 4 } },
 * ];
 * ```
 */
export type PolicyCase = {
  readonly name: string;
  readonly expect: RouteExpectation;
  /** The clock this case's conditions read (RFC 3339), for business-hours rules; default the world's `now`. */
  readonly now?: string;
} & ({ readonly task: TaskRef } | Exclude<TaskRef, string>);

/**
 * The outcome of one case. `assert()` throws an `Error` carrying `message` when the case failed —
 * call it inside a test, so the runner reports the case with the explanation.
 *
 * @example
 * ```ts
 * it.each(policyCases(world, cases))("$name", (c) => c.assert());
 * ```
 */
export interface PolicyCaseResult {
  readonly name: string;
  readonly task: TaskRef;
  readonly pass: boolean;
  readonly mismatches: readonly string[];
  /** The failure message (expectation, mismatches, formatted explanation); "" when it passed. */
  readonly message: string;
  readonly explanation: Explanation | null;
  /** The case's `expect`, as given; absent for a case that could not be read. */
  readonly expected?: RouteExpectation;
  /**
   * The case is malformed: not a case (no task, no `expect`, not an object), or its `expect` has an
   * unknown key or a value of the wrong kind. A broken test, not a route that differs:
   * `policy-sim test` exits 2 for it.
   */
  readonly malformed?: boolean;
  assert(): void;
}

function failedCase(name: string, message: string): PolicyCaseResult {
  return {
    name,
    task: "",
    pass: false,
    malformed: true,
    mismatches: [message],
    message: `${name}: ${message}`,
    explanation: null,
    assert(): void {
      throw new Error(`${name}: ${message}`);
    },
  };
}

/** What makes a case unusable before its route is even built: not an object, no name, no `expect`, no task. */
function caseProblem(c: unknown, i: number): { name: string; message: string } | undefined {
  if (typeof c !== "object" || c === null || Array.isArray(c)) return { name: `case #${i + 1}`, message: "a case is an object { name, task | subject + entitlement, expect }" };
  const o = c as Record<string, unknown>;
  const name = caseName(c, i);
  // Own keys only: a case is data (often from JSON or YAML), and `constructor` is no key of it.
  const has = (k: string): boolean => Object.hasOwn(o, k) && o[k] !== undefined;
  // Worded as a case file's: `tsk` is a misspelt task, not a case without one.
  const misspelt = misspeltCaseKey(o);
  if (misspelt) return { name, message: misspelt.message };
  if (!has("expect")) return { name, message: "the case has no expect: say what the route should be, e.g. expect: { policy: \"pol-x\", rule: 0 }" };
  if (has("now") && !isRealTimestamp(o["now"])) return { name, message: `now must be an RFC 3339 timestamp such as "2026-11-23T22:30:00Z", not ${describeValue(o["now"])}` };
  if (has("task")) {
    // A task of the world and a described one at once: which was meant cannot be told.
    const other = Object.keys(o).filter((k) => k !== "name" && k !== "task" && k !== "expect" && k !== "now");
    if (other.length > 0) return { name, message: `a case with task (an id or numericId) has only name, task, expect and now; it also has ${other.join(", ")} (describe a request with subject and entitlement instead of task)` };
    return undefined;
  }
  if (!has("subject") && !has("entitlement")) return { name, message: "the case names no task: give task (an id or numericId) or subject and entitlement" };
  return undefined;
}

function caseName(c: object, i: number): string {
  const name: unknown = (c as Record<string, unknown>)["name"];
  // Counted from 1, as a case file's cases are.
  return typeof name === "string" && name !== "" ? name : `case #${i + 1}`;
}

function refOf(c: PolicyCase): TaskRef {
  if ("task" in c) return c.task;
  const { name: _name, expect: _expect, now: _now, ...spec } = c;
  return spec;
}

/** The one result for a `cases` that is not a list at all: the run still reports, with the reason. */
function notAList(cases: unknown): PolicyCaseResult[] {
  const inFile = typeof cases === "object" && cases !== null && Object.hasOwn(cases, "cases") ? " (a case file's { cases: [...] }? pass its cases)" : "";
  const given = cases === undefined ? "undefined" : describeValue(cases);
  return [failedCase("policyCases", `the cases must be an array of { name, task | subject + entitlement, expect }, got ${given}${inFile}`)];
}

/**
 * Checks every case against the world and returns one result per case, in order, ready for
 * `it.each`. Never throws; a case whose task cannot be built fails with the reason, and so does a
 * `cases` that is not an array (one failing result, named `policyCases`).
 *
 * @example
 * ```ts
 * import { it } from "vitest";
 * it.each(policyCases(world, [
 *   { name: "contractor on prod admin", task: "1001", expect: { rule: 2, approvers: ["u-sre-lead"] } },
 * ]))("$name", (c) => c.assert());
 * ```
 */
export function policyCases(world: World, cases: readonly PolicyCase[]): PolicyCaseResult[] {
  if (!Array.isArray(cases)) return notAList(cases);
  return cases.map((c: unknown, i) => {
    // Cases often come from JSON or YAML: a malformed one fails alone, never the whole file.
    const shape = caseProblem(c, i);
    if (shape !== undefined) return failedCase(shape.name, shape.message);
    const pc = c as PolicyCase;
    const name = caseName(pc, i);
    const task = refOf(pc);
    // caseProblem checked the case's clock.
    const r = checkRoute(pc.now === undefined ? world : replaceInWorld(world, { now: utcTimestamp(pc.now) }), task, pc.expect);
    const message = r.pass ? "" : `${name}: ${r.message}`;
    return {
      name,
      task,
      pass: r.pass,
      mismatches: r.mismatches,
      message,
      explanation: r.explanation,
      expected: pc.expect,
      ...(r.malformed === true ? { malformed: true } : {}),
      assert(): void {
        if (!r.pass) throw new Error(message);
      },
    };
  });
}

/**
 * The outcome of {@link runPolicyCases}.
 *
 * @example
 * ```ts
 * const run = runPolicyCases(world, cases);
 * if (run.failed > 0) console.error(run.report);
 * ```
 */
export interface PolicyCasesRun {
  readonly passed: number;
  readonly failed: number;
  readonly results: readonly PolicyCaseResult[];
  /** One line per case (✓ or ✗), each failure followed by its message. */
  readonly report: string;
}

/**
 * Checks every case and summarises: counts, results, and a text report. For scripts and CI steps
 * outside a test runner.
 *
 * @example
 * ```ts
 * const cases: PolicyCase[] = [{ name: "a contractor's admin request needs the security review", task: "1001", expect: { policy: "pol-prod-admin", rule: 2 } }];
 * const run = runPolicyCases(world, cases);
 * console.log(run.report);
 * process.exitCode = run.failed > 0 ? 1 : 0;
 * ```
 */
export function runPolicyCases(world: World, cases: readonly PolicyCase[]): PolicyCasesRun {
  const results = policyCases(world, cases);
  const failed = results.filter((r) => !r.pass).length;
  const lines = results.flatMap((r) => (r.pass ? [`✓ ${r.name}`] : [`✗ ${r.name}`, ...r.message.split("\n").map((l) => `    ${l}`)]));
  lines.push("", `${results.length - failed} passed, ${failed} failed`);
  return { passed: results.length - failed, failed, results, report: lines.join("\n") };
}
