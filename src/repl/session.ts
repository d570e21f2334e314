/**
 * The REPL's state and the functions it binds, without the REPL: a history of worlds (the current
 * one last) and `explain`, `reset`, `comment`, `lint`, `check`, `task`, `save`, `undo`, each
 * returning a {@link Shown} value. Everything here runs without a TTY, so tests call it directly;
 * `start.ts` only puts these functions in a `node:repl` context.
 */
import { closest, didYouMean } from "../text/closest.js";
import { checkCondition, ENVIRONMENT_SPECS } from "../cel/index.js";
import { encodePolicy, encodeTask } from "../codec/index.js";
import { isRealTimestamp, utcTimestamp } from "../codec/schema.js";
import { explain as explainTask, type Explanation, type HypotheticalRequest } from "../explain/explain.js";
import { formatExplanation } from "../explain/format.js";
import { refusedWarning, routeLintErrors } from "../explain/route-lint.js";
import type { JsonValue } from "../model/json.js";
import type { Finding } from "../policy/lint.js";
import { comment as commentReducer } from "../reducers/comment.js";
import type { SimError } from "../reducers/errors.js";
import { hardReset } from "../reducers/hard-reset.js";
import { reduce as reduceAction, WORKFLOW_ACTION_TYPES, type WorkflowAction } from "../reducers/reduce.js";
import { tick as tickWorld } from "../reducers/tick.js";
import { formatSimulation, simulate, type SimulationRun } from "../reducers/simulate.js";
import { err, ok, type Result } from "../result.js";
import type { AuditEvent } from "../workflow/events.js";
import { loadWorld } from "../world/load-world.js";
import { saveWorld } from "../world/save-world.js";
import { findTask, replaceInWorld, taskNames, type World } from "../world/world.js";
import { formatFinding, lintDocuments, lintWorld, type LintedPolicy } from "../cli/lint.js";
import { readProblem } from "../cli/command.js";
import { failed, Shown } from "./show.js";

/**
 * Files as the session reads and writes them (`.world`, `save`); `node:fs` in the REPL, maps in tests.
 *
 * @example
 * ```ts
 * const files: SessionFiles = { readFile: (p) => readFileSync(p, "utf8"), writeFile: (p, s) => writeFileSync(p, s) };
 * ```
 */
export interface SessionFiles {
  readFile(path: string): string;
  writeFile(path: string, text: string): void;
}

/**
 * Options of {@link createSession}.
 *
 * @example
 * ```ts
 * const options: SessionOptions = { files, color: true, whatIf: (world, edit) => whatIf(world, edit) };
 * ```
 */
export interface SessionOptions {
  readonly files: SessionFiles;
  /** ANSI colours in explanations and findings. */
  readonly color?: boolean;
  /** Where the first world came from, for messages. */
  readonly source?: string;
  /** The what-if analysis, when this build has it; `whatIf(...)` says it is missing otherwise. */
  readonly whatIf?: WhatIfBinding;
}

/**
 * How the session runs a what-if: the current world, the replacement policies as JSON (one or an
 * array), and filter options as the user typed them. Returns a shown result.
 *
 * @example
 * ```ts
 * const binding: WhatIfBinding = (world, policies, options) => new Shown({ changed: 0 }, "no task changes");
 * ```
 */
export type WhatIfBinding = (world: World, policies: unknown, options: unknown) => Shown<unknown> | Promise<Shown<unknown>>;

/**
 * Options of the bound `reset` and `comment`.
 *
 * @example
 * ```ts
 * const o: ActionOptions = { as: "u-it-dir", comment: "Policy changed", expand: ["user_id"] };
 * ```
 */
export interface ActionOptions {
  /** The acting user's id (required). */
  readonly as?: string;
  readonly comment?: string;
  /** Expand paths for the response (`["user_id", "app_id"]`). */
  readonly expand?: readonly string[];
}

/**
 * What `reset` and `comment` return in `.data`: the endpoint's 200 body and the audit events.
 *
 * @example
 * ```ts
 * reset("1022", { as: "u-it-dir" }).data.events.map((e) => e.kind);
 * ```
 */
export interface ActionData {
  readonly response: JsonValue;
  readonly events: readonly AuditEvent[];
}

/** A failure as `.data` of a shown value. */
type Failure = { readonly code: string; readonly message: string };

/**
 * The functions bound in the REPL, by name. Arguments are checked at run time: the REPL's caller
 * is a person typing JavaScript.
 *
 * @example
 * ```ts
 * const api = createSession(world, { files }).api;
 * console.log(String(api.explain("1001")));
 * ```
 */
export interface ReplApi {
  /** `options.now`: the clock the conditions read (the world is not changed); `options.verbose`: every sub-expression's value. */
  explain(task: string | number | HypotheticalRequest, options?: { readonly now?: string; readonly verbose?: boolean }): Shown<Explanation> | Shown<Failure>;
  reset(taskId: string | number, options?: ActionOptions): Shown<ActionData> | Shown<Failure>;
  /** The library's name for {@link ReplApi.reset}. */
  hardReset(taskId: string | number, options?: ActionOptions): Shown<ActionData> | Shown<Failure>;
  /** Any task action of the engine, as the library's `reduce` takes it: `{ type: "approve", taskId, comment }`. */
  reduce(action: unknown, options?: ActionOptions): Shown<ActionData> | Shown<Failure>;
  /** Moves the world's clock to `now` and fires what time drives (waits, escalations, fallbacks), as the library's `tick`. */
  tick(now: string): Shown<ActionData> | Shown<Failure>;
  comment(taskId: string | number, text: string, options?: ActionOptions): Shown<ActionData> | Shown<Failure>;
  whatIf(policies: unknown, options?: unknown): Shown<unknown> | Promise<Shown<unknown>>;
  lint(policy?: unknown): Shown<readonly LintedPolicy[]> | Shown<Failure>;
  /** `environment`: "condition" (default), "approver" or "config-rule", as `checkCondition` takes it. */
  check(condition: string, environment?: string): Shown<readonly Finding[] | ReturnType<typeof checkCondition>> | Shown<Failure>;
  task(taskId: string | number): Shown<JsonValue> | Shown<Failure>;
  policy(policyId: string): Shown<JsonValue> | Shown<Failure>;
  simulate(script: unknown): Shown<SimulationRun> | Shown<Failure>;
  save(path: string): Shown<string> | Shown<Failure>;
  undo(): Shown<number> | Shown<Failure>;
  help(): Shown<readonly string[]>;
}

/**
 * A REPL session: the current world, the history behind it, the bound functions, and loading
 * another world (`.world`).
 *
 * @example
 * ```ts
 * const s = createSession(world, { files });
 * s.api.comment("1001", "hello", { as: "u-contractor" });
 * s.depth; // 2
 * s.api.undo();
 * ```
 */
export interface ReplSession {
  /** The current world. */
  readonly world: World;
  /** How many worlds the history holds, the current one included. */
  readonly depth: number;
  readonly api: ReplApi;
  /** Loads a world file and makes it current (`.undo` goes back). */
  load(path: string): Shown<World> | Shown<Failure>;
}

const HELP_ENTRIES: readonly (readonly [string, string])[] = [
  ['explain("1001")', "why the task routes where it does (.data: the Explanation)"],
  ['explain({ subject: "u-dev2", entitlement: "app-aws/ent-aws-prod-admin" })', "how a request that does not exist yet would route (or entitlement: { appId, id })"],
  ['explain("1001", { now: "2026-11-23T22:30:00Z", verbose: true })', "…at another time (the world is not changed), every value shown"],
  ['reset("1022", { as: "u-it-dir", comment })', "Hard Reset on the current world (.data: { response, events })"],
  ['comment("1001", "text", { as: "u-…" })', "post a comment on the current world"],
  ['reduce({ type: "approve", taskId: "1001", comment }, { as: "u-…" })', "any task action: approve, deny, reassign, skipStep, restart, close, processNow, …"],
  ['tick("2026-11-23T09:00:00Z")', "move the clock: waits, escalations and fallbacks that are due fire"],
  ['whatIf(policyJson | [policies], { state, type, app })', "which tasks would route differently with these policies"],
  ['lint() / lint("pol-id") / lint(policyJson)', "lint every policy, one of the world, or a draft"],
  ['check("subject.department == \\"Eng\\"")', "type-check a condition in the rule environment"],
  ['check("appOwners", "approver")', "…or in the approver (\"approver\") or configuration rule (\"config-rule\") environment"],
  ['task("1001")', "the task as the API returns it (wire JSON)"],
  ['policy("pol-prod-admin")', "the policy as wire JSON (.data), to edit and pass to whatIf"],
  ['simulate("fixtures/scenarios/x.json")', "run a scenario script (a file or its JSON) on the current world"],
  ["world", "the current world"],
  ['save("after.json")', "write the current world to a file"],
  ["undo()", "back to the world before the last change (also .undo)"],
];

/**
 * The bound functions, one line each, for `.help` and `help()`.
 *
 * @example
 * ```ts
 * HELP.forEach((line) => console.log(line));
 * ```
 */
export const HELP: readonly string[] = [
  ...HELP_ENTRIES.map(([call, what]) => `${call.padEnd(52)} ${what}`),
  "Tab completes task ids, numeric ids, user, policy and app ids inside strings.",
];

function errorText(e: SimError): Shown<Failure> {
  return failed(e.code, e.message);
}

const isString = (v: unknown): v is string => typeof v === "string";

/**
 * A described request's `entitlement: "app-aws/ent-x"`, as the CLI's `--entitlement` and case files
 * write it, read as `{ appId, id }`; anything else as given (the library says what is wrong with it).
 */
function shorthandEntitlement(request: HypotheticalRequest): HypotheticalRequest {
  const e: unknown = request.entitlement;
  if (typeof e !== "string") return request;
  const slash = e.indexOf("/");
  if (slash <= 0 || slash === e.length - 1) return request;
  return { ...request, entitlement: { appId: e.slice(0, slash), id: e.slice(slash + 1) } };
}

/** A task given by id or numeric id: a string, or a whole number typed without quotes (`explain(1001)`). */
const taskRef = (v: unknown): string | undefined => (typeof v === "string" ? v : typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? String(v) : undefined);

/** The names people reach for instead of `as`, the acting user. */
const AS_ALIASES: ReadonlySet<string> = new Set(["actor", "actorId", "actorUserId", "user", "userId", "by", "who"]);

/** An option an action does not take (`{ actor: "u-it-dir" }`), said with what was probably meant; undefined when every key is known. */
function unknownOption(v: unknown): string | undefined {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return undefined;
  for (const k of Object.keys(v)) {
    if (k === "as" || k === "comment" || k === "expand") continue;
    const meant = AS_ALIASES.has(k) ? "as" : closest(k, ["as", "comment", "expand"]);
    return `unknown option "${k}"${meant ? `; did you mean "${meant}"?` : ""} (an action takes as, comment, expand)`;
  }
  return undefined;
}

/** `explain`'s options, as the CLI's `--now` and `--verbose`; a key it does not take is an error, never ignored. */
function explainOptions(v: unknown): Result<{ readonly now?: string; readonly verbose?: boolean }, string> {
  // `["1001", "1002"].map(explain)` passes each index as the second argument: no options.
  if (v === undefined || v === null || typeof v === "number") return ok({});
  if (typeof v !== "object" || v === null || Array.isArray(v)) return err(`the options are an object, not ${JSON.stringify(v) ?? String(v)}`);
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (k === "now" || k === "verbose") continue;
    const meant = closest(k, ["now", "verbose"]);
    return err(`unknown option "${k}"${meant ? `; did you mean "${meant}"?` : ""} (explain takes now, verbose)`);
  }
  const now = o["now"];
  if (now !== undefined && !isRealTimestamp(now)) return err(`now must be an RFC 3339 timestamp such as "2026-11-23T22:30:00Z", not ${JSON.stringify(now) ?? String(now)}`);
  if (o["verbose"] !== undefined && typeof o["verbose"] !== "boolean") return err("verbose is true or false");
  return ok({ ...(now !== undefined ? { now } : {}), ...(o["verbose"] === true ? { verbose: true } : {}) });
}

function actionOptions(v: unknown): ActionOptions | undefined {
  if (v === undefined) return {};
  if (typeof v !== "object" || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  const expand = o["expand"];
  if (o["as"] !== undefined && !isString(o["as"])) return undefined;
  if (o["comment"] !== undefined && !isString(o["comment"])) return undefined;
  if (expand !== undefined && !(Array.isArray(expand) && expand.every(isString))) return undefined;
  return {
    ...(isString(o["as"]) ? { as: o["as"] } : {}),
    ...(isString(o["comment"]) ? { comment: o["comment"] } : {}),
    ...(Array.isArray(expand) ? { expand: expand.filter(isString) } : {}),
  };
}

/** `a, b ×3, c`: consecutive repeats folded, so a reset's per-rule events read as one entry. */
function eventKinds(events: readonly AuditEvent[]): string {
  const out: string[] = [];
  let last = "";
  let n = 0;
  const flush = (): void => {
    if (n > 0) out.push(n > 1 ? `${last} ×${n}` : last);
  };
  for (const e of events) {
    if (e.kind === last) n++;
    else {
      flush();
      last = e.kind;
      n = 1;
    }
  }
  flush();
  return out.join(", ");
}

/**
 * Loads a world file, as the REPL's `.world` does: the reason it failed as one message (with the
 * first diagnostics and their JSON paths) rather than an exception.
 *
 * @example
 * ```ts
 * const r = readWorldFile(files, "fixtures/world.json");
 * if (r.ok) console.log(r.value.tasks.size);
 * ```
 */
export function readWorldFile(files: Pick<SessionFiles, "readFile">, path: string): Result<World, string> {
  let json: unknown;
  try {
    json = JSON.parse(files.readFile(path)) as unknown;
  } catch (e: unknown) {
    const why = readProblem(e);
    return { ok: false, error: e instanceof SyntaxError ? `${path} is not JSON: ${why}` : `cannot read ${path}: ${why}` };
  }
  const loaded = loadWorld(json);
  if (loaded.ok) return loaded;
  const shown = loaded.error.slice(0, 5).map((d) => `\n  ${d.path}: ${d.message}`).join("");
  const more = loaded.error.length > 5 ? `\n  … and ${loaded.error.length - 5} more` : "";
  return { ok: false, error: `${path} is not a valid world (${loaded.error.length} problem(s)):${shown}${more}` };
}

function lintText(results: readonly LintedPolicy[], color: boolean): string {
  const lines: string[] = [];
  let errors = 0;
  let warnings = 0;
  for (const r of results) {
    if (r.findings.length === 0) continue;
    lines.push(`${r.id || "(no id)"}${r.displayName ? ` "${r.displayName}"` : ""}${r.base === "$" ? "" : ` at ${r.base}`}`);
    for (const f of r.findings) {
      lines.push(formatFinding(f, color));
      if (f.severity === "error") errors++;
      else warnings++;
    }
  }
  lines.push(errors + warnings === 0 ? `ok: ${results.length} polic${results.length === 1 ? "y" : "ies"}, no findings` : `${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}`);
  return lines.join("\n");
}

/**
 * Creates a session on `world`.
 *
 * @example
 * ```ts
 * const session = createSession(world, { files: { readFile: (p) => readFileSync(p, "utf8"), writeFile: writeFileSync } });
 * console.log(String(session.api.explain("1001")));
 * ```
 */
export function createSession(world: World, options: SessionOptions): ReplSession {
  const color = options.color === true;
  // The history is the only mutable state of the REPL: each change pushes the next world, undo pops.
  const history: { world: World; label: string }[] = [{ world, label: options.source ?? "the initial world" }];
  const current = (): World => (history[history.length - 1] ?? { world }).world;
  const push = (next: World, label: string): void => {
    history.push({ world: next, label });
  };

  const act = (
    name: string,
    r: Result<{ world: World; response: JsonValue; events: readonly AuditEvent[] }, SimError>,
    taskId: string,
    actorId: string,
  ): Shown<ActionData> | Shown<Failure> => {
    if (!r.ok) return errorText(r.error);
    const label = `${name} of task ${taskId} by ${actorId}`;
    push(r.value.world, label);
    const task = findTask(r.value.world, taskId);
    const lines = [`✓ ${label}`, `  events: ${eventKinds(r.value.events) || "none"}`];
    if (task) lines.push(`  task ${task.numericId || task.id} is ${task.state}${task.policy?.policy ? ` on policy ${task.policy.policy.id}` : ""}`);
    lines.push(`  world #${history.length} (.undo goes back); .data has { response, events }`);
    return new Shown({ response: r.value.response, events: r.value.events }, lines.join("\n"));
  };

  const api: ReplApi = {
    explain(given, raw) {
      const isRequest = typeof given === "object" && given !== null && !Array.isArray(given);
      const taskId = isRequest ? shorthandEntitlement(given) : taskRef(given);
      if (taskId === undefined)
        return failed("INVALID_ARGUMENT", 'explain("1001"), or explain({ subject: "u-dev2", entitlement: { appId: "app-aws", id: "ent-aws-prod-admin" } }) for a request that does not exist yet');
      const o = explainOptions(raw);
      if (!o.ok) return failed("INVALID_ARGUMENT", `${o.error}: explain("1001", { now: "2026-11-23T22:30:00Z", verbose: true })`);
      // The clock the conditions read, as the CLI's --now: the world itself is not changed.
      const w = o.value.now === undefined ? current() : replaceInWorld(current(), { now: utcTimestamp(o.value.now) });
      const r = explainTask(w, taskId);
      if (!r.ok) return errorText(r.error);
      // As the CLI's explain: a route through a policy the service would refuse to save says so first.
      return new Shown(r.value, refusedWarning(routeLintErrors(w, r.value)) + formatExplanation(r.value, { color, verbose: o.value.verbose === true }));
    },
    reset(given, raw) {
      const o = actionOptions(raw);
      const taskId = taskRef(given);
      const unknown = unknownOption(raw);
      if (unknown) return failed("INVALID_ARGUMENT", `${unknown}: reset("1022", { as: "u-it-dir", comment: "why" })`);
      if (taskId === undefined || !o?.as) return failed("INVALID_ARGUMENT", 'reset("1022", { as: "u-it-dir", comment: "why" }): give a task id and who acts');
      const r = hardReset(current(), { taskId, comment: o.comment ?? "", expandMask: { paths: [...(o.expand ?? [])] } }, { actorId: o.as });
      return act("Hard Reset", r, taskId, o.as);
    },
    hardReset(taskId, raw) {
      return api.reset(taskId, raw);
    },
    reduce(action, raw) {
      const o = actionOptions(raw);
      const a = typeof action === "object" && action !== null && !Array.isArray(action) ? (action as Record<string, unknown>) : undefined;
      const type = a?.["type"];
      const taskId = a?.["taskId"];
      const unknown = unknownOption(raw);
      if (unknown) return failed("INVALID_ARGUMENT", `${unknown}: reduce({ type: "approve", taskId: "1001" }, { as: "u-sre-lead" })`);
      if (!a || !isString(type) || !isString(taskId) || !o?.as)
        return failed("INVALID_ARGUMENT", `reduce({ type: "approve", taskId: "1001", comment: "ok" }, { as: "u-sre-lead" }): an action (type: ${WORKFLOW_ACTION_TYPES.join(", ")}) and who acts`);
      const r = reduceAction(current(), a as unknown as WorkflowAction, { actorId: o.as });
      return act(type, r, taskId, o.as);
    },
    tick(now) {
      if (!isString(now)) return failed("INVALID_ARGUMENT", 'tick("2026-11-23T09:00:00Z"): the time to move the clock to');
      const r = tickWorld(current(), now);
      if (!r.ok) return errorText(r.error);
      push(r.value.world, `tick to ${now}`);
      const fired = r.value.events.length;
      return new Shown({ response: r.value.response, events: r.value.events }, [`✓ clock at ${now}`, `  events: ${eventKinds(r.value.events) || "none"}${fired === 0 ? " (nothing was due)" : ""}`, `  world #${history.length} (.undo goes back)`].join("\n"));
    },
    comment(given, text, raw) {
      const o = actionOptions(raw);
      const taskId = taskRef(given);
      const unknown = unknownOption(raw);
      if (unknown) return failed("INVALID_ARGUMENT", `${unknown}: comment("1001", "text", { as: "u-contractor" })`);
      if (taskId === undefined || !isString(text) || !o?.as) return failed("INVALID_ARGUMENT", 'comment("1001", "text", { as: "u-contractor" }): give a task id, the text and who comments');
      const r = commentReducer(current(), { taskId, comment: text, expandMask: { paths: [...(o.expand ?? [])] } }, { actorId: o.as });
      return act("comment", r, taskId, o.as);
    },
    whatIf(policies, whatIfOptions) {
      if (!options.whatIf) return failed("UNAVAILABLE", "what-if analysis is not available in this build of policy-sim");
      return options.whatIf(current(), policies, whatIfOptions);
    },
    lint(policy) {
      const w = current();
      if (policy === undefined) {
        const all = lintWorld(w);
        return new Shown(all, lintText(all, color));
      }
      if (isString(policy)) {
        const result = lintWorld(w, policy);
        if (result.length === 0) return failed("NOT_FOUND", `no policy "${policy}" in the world${didYouMean(policy, w.index.policies.keys())}; lint(policyJson) lints a draft`);
        return new Shown(result, lintText(result, color));
      }
      const results = Array.isArray(policy) ? lintDocuments(policy, w, true) : lintDocuments([policy], w, false);
      return new Shown(results, lintText(results, color));
    },
    check(condition, environment = "condition") {
      if (!isString(condition)) return failed("INVALID_ARGUMENT", 'check("subject.department == \\"Eng\\""): give the condition as a string');
      if (environment !== "condition" && environment !== "approver" && environment !== "config-rule") {
        const near = isString(environment) ? didYouMean(environment, Object.keys(ENVIRONMENT_SPECS)) : "";
        return failed("INVALID_ARGUMENT", `check(expression, environment): the environment is "condition", "approver" or "config-rule", not ${JSON.stringify(environment)}${near}`);
      }
      const d = checkCondition(condition, environment);
      const ok = environment === "condition" ? "ok: the condition type-checks and returns bool" : `ok: the expression type-checks in the ${environment} environment`;
      const text = d.length === 0 ? ok : d.map((x) => `${x.code} at ${x.line}:${x.column}: ${x.message}${x.hint ? ` (${x.hint})` : ""}\n${x.excerpt}`).join("\n");
      return new Shown(d, text, d.length === 0);
    },
    task(given) {
      const taskId = taskRef(given);
      if (taskId === undefined) return failed("INVALID_ARGUMENT", 'task("1001"): give a task id or numeric id as a string');
      const t = findTask(current(), taskId);
      if (!t) return failed("NOT_FOUND", `no task "${taskId}" (neither an id nor a numericId)${didYouMean(taskId, taskNames(current()))}`);
      const wire = encodeTask(t);
      return new Shown(wire, JSON.stringify(wire, null, 2));
    },
    policy(policyId) {
      if (!isString(policyId)) return failed("INVALID_ARGUMENT", 'policy("pol-prod-admin"): give a policy id as a string');
      const p = current().index.policies.get(policyId);
      if (!p) return failed("NOT_FOUND", `no policy "${policyId}" in the world${didYouMean(policyId, current().index.policies.keys())}`);
      // A fresh copy each time, so editing .data in the REPL cannot touch the world.
      const wire = encodePolicy(p);
      return new Shown(wire, JSON.stringify(wire, null, 2));
    },
    simulate(script) {
      let json: unknown = script;
      // A string is a file, or the script's JSON itself when it starts as JSON does.
      if (isString(script) && /^\s*[[{]/.test(script)) {
        try {
          json = JSON.parse(script) as unknown;
        } catch (e: unknown) {
          return failed("INVALID_ARGUMENT", `the script is not JSON: ${e instanceof Error ? e.message : String(e)}`);
        }
      } else if (isString(script)) {
        try {
          json = JSON.parse(options.files.readFile(script)) as unknown;
        } catch (e: unknown) {
          const why = readProblem(e);
          return failed("INVALID_ARGUMENT", e instanceof SyntaxError ? `the script ${script} is not JSON: ${why}` : `cannot read the script ${script}: ${why}`);
        }
      }
      // The REPL's world, not the one a script file names: the point is to play it on this world.
      const r = simulate(current(), json);
      if (!r.ok) return errorText(r.error);
      const run = r.value;
      push(run.world, `scenario ${run.name || "(unnamed)"}`);
      const verdict = run.failures.length === 0 ? "every expectation and check holds" : `${run.failures.length} failure(s)`;
      return new Shown(run, `${formatSimulation(run)}\n${verdict}; world #${history.length} (.undo goes back)`, run.failures.length === 0);
    },
    save(path) {
      if (!isString(path) || path === "") return failed("INVALID_ARGUMENT", 'save("after.json"): give a file name');
      try {
        options.files.writeFile(path, `${JSON.stringify(saveWorld(current()), null, 2)}\n`);
      } catch (e: unknown) {
        return failed("UNAVAILABLE", `cannot write ${path}: ${e instanceof Error ? e.message : String(e)}`);
      }
      return new Shown(path, `saved the current world (${current().tasks.size} tasks) to ${path}`);
    },
    undo() {
      if (history.length <= 1) return failed("FAILED_PRECONDITION", "nothing to undo: this is the first world of the session");
      const undone = history.pop();
      return new Shown(history.length, `undid ${undone?.label ?? "the last change"}; world #${history.length} is current`);
    },
    help() {
      return new Shown(HELP, HELP.join("\n"));
    },
  };

  return {
    get world() {
      return current();
    },
    get depth() {
      return history.length;
    },
    api,
    load(path) {
      if (!isString(path) || path.trim() === "") return failed("INVALID_ARGUMENT", ".world <file>: give a world file");
      const r = readWorldFile(options.files, path.trim());
      if (!r.ok) return failed("INVALID_ARGUMENT", r.error);
      push(r.value, `loading ${path.trim()}`);
      return new Shown(r.value, `loaded ${path.trim()}: ${r.value.tasks.size} tasks, ${r.value.policies.length} policies, now ${r.value.now} (world #${history.length})`);
    },
  };
}
