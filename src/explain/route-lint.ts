/**
 * The lint errors of the policies a route went through: what the service would refuse to save (a
 * condition that does not compile, an approver expression that is not users, a dangling step key).
 * An explanation of such a route shows what the broken policy does, which the service would never
 * let happen: `explain` and the testing kit both say so, from here.
 */
import type { Policy } from "../model/index.js";
import { lintDecodedPolicy } from "../policy/lint.js";
import type { Finding } from "../policy/lint-finding.js";
import type { World } from "../world/world.js";
import type { Explanation } from "./explain.js";

/**
 * One policy of a route and its lint errors.
 *
 * @example
 * ```ts
 * const p: RoutePolicyLint = { policyId: "pol-x", errors: [{ code: "CEL_TYPE_ERROR", severity: "error", path: "$.rules[0].condition", message: "…" }] };
 * ```
 */
export interface RoutePolicyLint {
  readonly policyId: string;
  readonly errors: readonly Finding[];
}

// Per world index and policy object: a world's policies are linted once however many tasks are checked.
const linted = new WeakMap<object, WeakMap<Policy, readonly Finding[]>>();

function lintErrorsOf(world: World, policy: Policy): readonly Finding[] {
  let byPolicy = linted.get(world.index);
  if (byPolicy === undefined) linted.set(world.index, (byPolicy = new WeakMap()));
  let errors = byPolicy.get(policy);
  if (errors === undefined) byPolicy.set(policy, (errors = lintDecodedPolicy(policy, world).filter((f) => f.severity === "error")));
  return errors;
}

/**
 * The policies on an explanation's route (the resolved one and every policy of its chain) that
 * have lint errors, in route order, each with its errors.
 *
 * @example
 * ```ts
 * for (const p of routeLintErrors(world, explanation)) console.log(p.policyId, p.errors.length);
 * ```
 */
export function routeLintErrors(world: World, e: Explanation): RoutePolicyLint[] {
  const ids = new Set<string>();
  if (e.resolution.ok) ids.add(e.resolution.policyId);
  for (const l of e.chain) ids.add(l.policyId);
  const out: RoutePolicyLint[] = [];
  for (const id of ids) {
    const policy = world.index.policies.get(id);
    if (!policy) continue;
    const errors = lintErrorsOf(world, policy);
    if (errors.length > 0) out.push({ policyId: id, errors });
  }
  return out;
}

/**
 * One lint error as lines of text, each starting with `indent`: code, path and message, then the
 * CEL excerpt with its carets two spaces further in. How `explain` and the testing kit show the
 * errors of a route's policies.
 *
 * @example
 * ```ts
 * lintErrorLines(finding, "  "); // ["  CEL_TYPE_ERROR at $.rules[0].condition: …", "    subject.departmnt == …", "            ^^^^^^^^^"]
 * ```
 */
export function lintErrorLines(f: Finding, indent: string): string[] {
  const lines = [`${indent}${f.code} at ${f.path}: ${f.message}`];
  if (f.cel) for (const line of f.cel.excerpt.split("\n")) lines.push(`${indent}  ${line}`);
  return lines;
}

/**
 * The warning `explain` prints before the explanation of a route through policies the service
 * would refuse to save, every error with its position; "" when there are none. The CLI's and the
 * REPL's `explain` both print it.
 *
 * @example
 * ```ts
 * process.stdout.write(refusedWarning(routeLintErrors(world, explanation)) + formatExplanation(explanation));
 * ```
 */
export function refusedWarning(refused: readonly RoutePolicyLint[]): string {
  let out = "";
  for (const { policyId, errors } of refused) {
    out += `Warning: the service would refuse to save policy "${policyId}" (${errors.length} lint error${errors.length === 1 ? "" : "s"}); the route below is what the broken policy would do:\n`;
    for (const f of errors) for (const line of lintErrorLines(f, "  ")) out += `${line}\n`;
  }
  return out === "" ? "" : `${out}\n`;
}
