/**
 * Policy test cases as data, for authors who do not write TypeScript: a JSON or YAML document that
 * is an array of cases (or `{ cases: [...] }`), each
 * `{ name, task | request | subject + entitlement, expect: { policy, source, rule, steps, approvers, … } }`.
 * `request` (and the top-level `subject`/`entitlement`) describes a request that does not exist
 * yet; an entitlement may be written `app-id/entitlement-id`. Decoding is pure and never throws: a
 * malformed case becomes a failing case with the reason, never a failed file.
 */
import { type EntitlementSpec, SPEC_KEYS, type TaskRef, type TaskSpec } from "../whatif/task-spec.js";
import type { PolicyCase } from "./policy-cases.js";
import type { RouteExpectation } from "./expect-route.js";
import { closest } from "../text/closest.js";
import { pathKey } from "../codec/diagnostic.js";

/**
 * A decoded case file: the cases (malformed ones kept, so they fail with their reason) and the
 * problems that concern the whole file.
 *
 * @example
 * ```ts
 * const f: CaseFile = { entries: [{ name: "c", case: { name: "c", task: "1001", expect: { rule: 2 } }, path: "$[0]" }], problems: [] };
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
 * const ok: CaseEntry = { name: "c", case: { name: "c", task: "1001", expect: { rule: 2 } }, path: "$[0]" };
 * const bad: CaseEntry = { name: "case #2", problem: "the case has no expect", path: "$[1]" };
 * ```
 */
export type CaseEntry = { readonly name: string; readonly case: PolicyCase; readonly path: string } | { readonly name: string; readonly problem: string; readonly path: string };

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

/**
 * A request described by `subject`, `entitlement`, and the rest of a {@link TaskSpec}: the file's
 * `app-id/entitlement-id` shorthand expanded, everything else as written. The subject (a user id,
 * which must be a user of the world, or a described user) and the other fields are read where
 * `explain` and the matchers read them, by `taskInWorld` when the case runs — one reading for all.
 */
function requestOf(o: Readonly<Record<string, unknown>>): Exclude<TaskRef, string> | string {
  const entitlement = entitlementOf(o["entitlement"]);
  if (typeof entitlement === "string") return entitlement;
  return { ...o, entitlement } as Exclude<TaskRef, string>;
}

/** The keys of a case itself (a described request's own keys are checked where it is read). */
const CASE_KEYS: readonly string[] = ["name", "task", "request", "expect", "now"];

/**
 * A misspelt key of a case itself (`tsk`, `expct`, `reqest`, `nwo`), which would otherwise read as a
 * missing one ("the case names no task"), with the key it probably meant; for case files and
 * `policyCases` alike.
 *
 * @example
 * ```ts
 * misspeltCaseKey({ name: "a", tsk: "1001", expect: {} })?.message; // 'unknown key "tsk" in the case; did you mean "task"? (…)'
 * ```
 */
export function misspeltCaseKey(c: Readonly<Record<string, unknown>>): { readonly key: string; readonly message: string } | undefined {
  for (const k of Object.keys(c)) {
    if (CASE_KEYS.includes(k) || SPEC_KEYS.includes(k)) continue;
    const meant = closest(k, CASE_KEYS);
    if (meant !== undefined && (!Object.hasOwn(c, meant) || c[meant] === undefined))
      return { key: k, message: `unknown key "${k}" in the case; did you mean "${meant}"? (a case has ${CASE_KEYS.join(", ")})` };
  }
  return undefined;
}

function broken(name: string, problem: string, path: string): CaseEntry {
  return { name, problem, path };
}

/**
 * Decodes a parsed case document (JSON or YAML) into cases. Each case is `{ name, expect }` plus
 * one of: `task` (an id or numericId of the world), `request: { subject, entitlement, kind?,
 * origin?, emergencyAccess? }`, or `subject` and `entitlement` at the top of the case.
 *
 * @example
 * ```ts
 * decodeCaseFile([{ name: "contractor", request: { subject: "u-dev2", entitlement: "app-aws/ent-aws-prod-admin" }, expect: { rule: 2 } }]);
 * // { entries: [{ name: "contractor", case: { name: "contractor", subject: "u-dev2", entitlement: { appId: "app-aws", id: "ent-aws-prod-admin" }, expect: { rule: 2 } } }], problems: [] }
 * ```
 */
export function decodeCaseFile(doc: unknown): CaseFile {
  const list = Array.isArray(doc) ? doc : isRecord(doc) && Array.isArray(doc["cases"]) ? (doc["cases"] as unknown[]) : undefined;
  if (list === undefined) return { entries: [], problems: ["a case file is a list of cases, or { cases: [...] }"] };
  const base = Array.isArray(doc) ? "$" : "$.cases";
  const entries = list.map((c: unknown, i): CaseEntry => {
    const at = `${base}[${i}]`;
    if (!isRecord(c)) return broken(`case #${i + 1}`, "a case is an object { name, task | request, expect }", at);
    // Own keys only: `constructor` is no key of a case.
    const get = (k: string): unknown => (Object.hasOwn(c, k) ? c[k] : undefined);
    const nameIn = get("name");
    const name = typeof nameIn === "string" && nameIn !== "" ? nameIn : `case #${i + 1}`;
    const misspelt = misspeltCaseKey(c);
    if (misspelt) return broken(name, misspelt.message, pathKey(at, misspelt.key));
    if (get("expect") === undefined) return broken(name, "the case has no expect: say what the route should be, e.g. expect: { policy: pol-x, rule: 0 }", at);
    const expect = get("expect") as RouteExpectation;
    // The clock of this case alone (policyCases checks it): business-hours cases beside others in one file.
    const now = get("now");
    const clock = now === undefined ? {} : { now: now as string };
    // With task or request, anything else at the top of the case would be dropped unread.
    const others = (...allowed: string[]): string[] => Object.keys(c).filter((k) => !allowed.includes(k));
    const taskIn = get("task");
    if (taskIn !== undefined) {
      const task = typeof taskIn === "number" ? String(taskIn) : taskIn;
      if (typeof task !== "string" || task === "") return broken(name, "task must be a task id or numericId", `${at}.task`);
      const extra = others("name", "task", "expect", "now");
      if (extra.length > 0) return broken(name, `a case with task has only name, task, expect and now; it also has ${extra.join(", ")}`, pathKey(at, extra[0] as string));
      return { name, case: { name, task, expect, ...clock }, path: at };
    }
    const request = get("request");
    if (request !== undefined) {
      if (!isRecord(request)) return broken(name, "request must be { subject, entitlement, kind?, origin?, emergencyAccess? }", `${at}.request`);
      const extra = others("name", "request", "expect", "now");
      if (extra.length > 0) return broken(name, `a case with request has only name, request, expect and now; it also has ${extra.join(", ")} (put them in the request)`, pathKey(at, extra[0] as string));
    }
    const described = request ?? (get("entitlement") !== undefined ? c : undefined);
    if (described === undefined) return broken(name, "the case names no task: give task, or request: { subject, entitlement }", at);
    const spec = requestOf(described === c ? Object.fromEntries(Object.entries(c).filter(([k]) => k !== "name" && k !== "expect" && k !== "now")) : (described as Readonly<Record<string, unknown>>));
    if (typeof spec === "string") return broken(name, spec, request === undefined ? `${at}.entitlement` : `${at}.request.entitlement`);
    return { name, case: { ...spec, name, expect, ...clock }, path: at };
  });
  return { entries, problems: [] };
}
