/**
 * Policy test cases as data, for authors who do not write TypeScript: a JSON or YAML document that
 * is an array of cases (or `{ cases: [...] }`), each
 * `{ name, task | request | subject + entitlement, expect: { policy, source, rule, steps, approvers, … } }`.
 * `request` (and the top-level `subject`/`entitlement`) describes a request that does not exist
 * yet; an entitlement may be written `app-id/entitlement-id`. Decoding is pure and never throws: a
 * malformed case becomes a failing case with the reason, never a failed file.
 */
import type { EntitlementSpec, SubjectSpec, TaskSpec } from "../whatif/task-spec.js";
import type { PolicyCase } from "./policy-cases.js";
import type { RouteExpectation } from "./expect-route.js";

/**
 * A decoded case file: the cases (malformed ones kept, so they fail with their reason) and the
 * problems that concern the whole file.
 *
 * @example
 * ```ts
 * const f: CaseFile = { entries: [{ name: "c", case: { name: "c", task: "1001", expect: { rule: 2 } } }], problems: [] };
 * ```
 */
export interface CaseFile {
  readonly entries: readonly CaseEntry[];
  /** The file is not a list of cases at all (then `entries` is empty). */
  readonly problems: readonly string[];
}

/**
 * One case of a file: decoded, or the reason it cannot be (it fails alone, with that reason).
 *
 * @example
 * ```ts
 * const ok: CaseEntry = { name: "c", case: { name: "c", task: "1001", expect: { rule: 2 } } };
 * const bad: CaseEntry = { name: "case #2", problem: "the case has no expect" };
 * ```
 */
export type CaseEntry = { readonly name: string; readonly case: PolicyCase } | { readonly name: string; readonly problem: string };

function isRecord(v: unknown): v is Readonly<Record<string, unknown>> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** `"app-aws/ent-x"` or `{ appId, id, … }` → an entitlement spec, or a reason it is not one. */
function entitlementOf(v: unknown): EntitlementSpec | string {
  if (typeof v === "string") {
    const slash = v.indexOf("/");
    if (slash <= 0 || slash === v.length - 1) return `entitlement "${v}" must be written app-id/entitlement-id`;
    return { appId: v.slice(0, slash), id: v.slice(slash + 1) };
  }
  if (isRecord(v) && typeof v["appId"] === "string" && typeof v["id"] === "string") return v as unknown as EntitlementSpec;
  return "entitlement must be app-id/entitlement-id or { appId, id }";
}

/** A request described by `subject` (a user id or a described user), `entitlement`, and the rest of a {@link TaskSpec}. */
function requestOf(o: Readonly<Record<string, unknown>>): TaskSpec | string {
  const entitlement = entitlementOf(o["entitlement"]);
  if (typeof entitlement === "string") return entitlement;
  const subject = o["subject"];
  if (subject !== undefined && typeof subject !== "string" && !isRecord(subject)) return "subject must be a user id or { id, … }";
  const spec: Record<string, unknown> = { ...o, entitlement };
  if (typeof subject === "string") spec["subject"] = { id: subject } satisfies SubjectSpec;
  return spec as unknown as TaskSpec;
}

function broken(name: string, problem: string): CaseEntry {
  return { name, problem };
}

/**
 * Decodes a parsed case document (JSON or YAML) into cases. Each case is `{ name, expect }` plus
 * one of: `task` (an id or numericId of the world), `request: { subject, entitlement, kind?,
 * origin?, emergencyAccess? }`, or `subject` and `entitlement` at the top of the case.
 *
 * @example
 * ```ts
 * decodeCaseFile([{ name: "contractor", request: { subject: "u-dev2", entitlement: "app-aws/ent-aws-prod-admin" }, expect: { rule: 2 } }]);
 * // { entries: [{ name: "contractor", case: { name: "contractor", subject: { id: "u-dev2" }, entitlement: { appId: "app-aws", id: "ent-aws-prod-admin" }, expect: { rule: 2 } } }], problems: [] }
 * ```
 */
export function decodeCaseFile(doc: unknown): CaseFile {
  const list = Array.isArray(doc) ? doc : isRecord(doc) && Array.isArray(doc["cases"]) ? (doc["cases"] as unknown[]) : undefined;
  if (list === undefined) return { entries: [], problems: ["a case file is a list of cases, or { cases: [...] }"] };
  const entries = list.map((c: unknown, i): CaseEntry => {
    if (!isRecord(c)) return broken(`case #${i + 1}`, "a case is an object { name, task | request, expect }");
    const name = typeof c["name"] === "string" && c["name"] !== "" ? c["name"] : `case #${i + 1}`;
    if (c["expect"] === undefined) return broken(name, "the case has no expect: say what the route should be, e.g. expect: { policy: pol-x, rule: 0 }");
    const expect = c["expect"] as RouteExpectation;
    if (c["task"] !== undefined) {
      const task = typeof c["task"] === "number" ? String(c["task"]) : c["task"];
      if (typeof task !== "string" || task === "") return broken(name, "task must be a task id or numericId");
      return { name, case: { name, task, expect } };
    }
    const described = isRecord(c["request"]) ? c["request"] : c["entitlement"] !== undefined ? c : undefined;
    if (described === undefined) return broken(name, "the case names no task: give task, or request: { subject, entitlement }");
    const spec = requestOf(described === c ? Object.fromEntries(Object.entries(c).filter(([k]) => k !== "name" && k !== "expect")) : described);
    if (typeof spec === "string") return broken(name, spec);
    return { name, case: { ...spec, name, expect } };
  });
  return { entries, problems: [] };
}
