/**
 * Table-driven policy tests: a list of cases, each a task (by id, or described inline by subject and
 * entitlement) and the route it should take, checked against a world. `policyCases` returns one
 * result per case for `it.each`; `runPolicyCases` checks them all at once and reports.
 */
import type { Explanation } from "../explain/explain.js";
import type { TaskRef, TaskSpec } from "../whatif/task-spec.js";
import type { World } from "../world/world.js";
import { checkRoute, type RouteExpectation } from "./expect-route.js";

/**
 * One case: a name, the task (`task`: an id, numericId or {@link TaskSpec}; or the spec's fields
 * inline) and the expected route.
 *
 * @example
 * ```ts
 * const cases: PolicyCase[] = [
 *   { name: "contractor on prod admin", task: "1001", expect: { policy: "pol-prod-admin", rule: 2 } },
 *   { name: "security lead fast path", subject: { id: "u-sec-eng" },
 *     entitlement: { appId: "app-aws", id: "ent-aws-prod-admin" }, expect: { rule: 0 } },
 * ];
 * ```
 */
export type PolicyCase = { readonly name: string; readonly expect: RouteExpectation } & ({ readonly task: TaskRef } | TaskSpec);

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
  assert(): void;
}

function failedCase(name: string, message: string): PolicyCaseResult {
  return {
    name,
    task: "",
    pass: false,
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
  if (typeof c !== "object" || c === null || Array.isArray(c)) return { name: `case #${i}`, message: "a case is an object { name, task | subject + entitlement, expect }" };
  const o = c as Record<string, unknown>;
  const name = typeof o["name"] === "string" && o["name"] !== "" ? o["name"] : `case #${i}`;
  if (!("expect" in o) || o["expect"] === undefined) return { name, message: "the case has no expect: say what the route should be, e.g. expect: { policy: \"pol-x\", rule: 0 }" };
  if (!("task" in o) && !("subject" in o) && !("entitlement" in o)) return { name, message: "the case names no task: give task (an id or numericId) or subject and entitlement" };
  return undefined;
}

function refOf(c: PolicyCase): TaskRef {
  if ("task" in c) return c.task;
  const { name: _name, expect: _expect, ...spec } = c;
  return spec;
}

/**
 * Checks every case against the world and returns one result per case, in order, ready for
 * `it.each`. Never throws; a case whose task cannot be built fails with the reason.
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
  return cases.map((c: unknown, i) => {
    // Cases often come from JSON or YAML: a malformed one fails alone, never the whole file.
    const shape = caseProblem(c, i);
    if (shape !== undefined) return failedCase(shape.name, shape.message);
    const pc = c as PolicyCase;
    const task = refOf(pc);
    const r = checkRoute(world, task, pc.expect);
    const message = r.pass ? "" : `${pc.name}: ${r.message}`;
    return {
      name: pc.name,
      task,
      pass: r.pass,
      mismatches: r.mismatches,
      message,
      explanation: r.explanation,
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
