/**
 * `policy-sim whatif`: which tasks would a Hard Reset route differently if some policies were
 * replaced? The replacement policies are wire JSON (one policy or an array), decoded here; the
 * analysis and its text (the summary grouped by before → after route, then the changed tasks) are
 * the library's `whatIf` and `formatWhatIf`.
 */
import { decodePolicy } from "../codec/index.js";
import type { Policy } from "../model/index.js";
import { KNOWN_TASK_STATES } from "../model/enums.js";
import { formatTerraformWhatIf, parsePlanFile, terraformEditRecipe, terraformPlanEdit } from "../terraform/index.js";
import { differenceText, policyDifferences } from "../terraform/differences.js";
import { failed, Shown } from "../repl/show.js";
import { formatWhatIf, type TaskKind, type TaskScope, whatIf, type WhatIfResult, type WorldEdit } from "../whatif/index.js";
import type { World } from "../world/world.js";
import { type CliIO, CliInputError, type Command, EXIT, InputFileError, isStreamPath, plural, printJson, readFileBytes, readJsonFile, readWorld, str } from "./command.js";
import { progress } from "./progress.js";
import { closest } from "../text/closest.js";
import { shellWord } from "../text/shell-word.js";

/**
 * Decodes replacement policies (one wire policy or an array); the problems, with JSONPaths into
 * the document, when any does not decode.
 *
 * @example
 * ```ts
 * const r = decodePolicies(JSON.parse(readFileSync("edit.json", "utf8")));
 * if (r.ok) console.log(r.value.map((p) => p.id));
 * ```
 */
export function decodePolicies(doc: unknown): { ok: true; value: Policy[] } | { ok: false; error: string[] } {
  // A whole world file given where a policy is expected: say so, rather than that it has no id.
  if (typeof doc === "object" && doc !== null && !Array.isArray(doc) && ("tasks" in doc || "version" in doc) && !("policySteps" in doc))
    return { ok: false, error: ["$: this is a world file; --edit takes a policy (or an array of policies) to put in the world's place: copy one out of its \"policies\" and change it"] };
  const docs: readonly unknown[] = Array.isArray(doc) ? doc : [doc];
  const value: Policy[] = [];
  const error: string[] = [];
  docs.forEach((d, i) => {
    const r = decodePolicy(d);
    const at = Array.isArray(doc) ? `$[${i}]` : "$";
    if (r.ok && r.value.id === "") error.push(`${at}.id: a replacement policy needs the id of the policy it replaces`);
    else if (r.ok) value.push(r.value);
    else for (const x of r.error) error.push(`${at}${x.path.slice(1)}: ${x.message}`);
  });
  if (docs.length === 0) error.push("$: the array holds no policy");
  return error.length > 0 ? { ok: false, error } : { ok: true, value };
}

const KINDS: readonly TaskKind[] = ["grant", "revoke", "certify", "offboarding", "action", "finding"];

/** A scope option as the command line names it (`--state`); the REPL names its option keys bare. */
const cliFlag = (name: string): string => `--${name}`;

/** The REPL's whatIf option keys, which are the CLI's scope flags. */
const SCOPE_KEYS = ["state", "type", "app", "task"] as const;

/** Keys people reach for instead of a scope option's own, by the option they mean. */
const SCOPE_ALIASES: Readonly<Record<string, (typeof SCOPE_KEYS)[number]>> = {
  states: "state", types: "type", kind: "type", kinds: "type",
  apps: "app", appId: "app", appIds: "app", tasks: "task", taskId: "task", taskIds: "task",
};

/**
 * The REPL's `whatIf` options checked as the CLI's flags are: an object whose keys are among
 * state, type, app and task, each a string or a list of strings. A key it does not take is an
 * error, as `explain`'s and `reset`'s are, never ignored (`{ stat: "all" }` had run over open
 * tasks only).
 */
function replScopeValues(options: unknown): Record<string, unknown> {
  if (options === undefined || options === null) return {};
  if (typeof options !== "object" || Array.isArray(options)) throw new CliInputError(`the options are an object such as { state: "all", type: "grant" }, not ${JSON.stringify(options) ?? String(options)}`);
  // Own keys only (an inherited `state` is no option given), and a key set to undefined is not given.
  const values: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(options as Record<string, unknown>)) {
    if (v === undefined) continue;
    if (!(SCOPE_KEYS as readonly string[]).includes(k)) {
      const meant = (Object.hasOwn(SCOPE_ALIASES, k) ? SCOPE_ALIASES[k] : undefined) ?? closest(k, SCOPE_KEYS);
      throw new CliInputError(`unknown option "${k}"${meant ? `; did you mean "${meant}"?` : ""} (whatIf takes ${SCOPE_KEYS.join(", ")})`);
    }
    const ok = typeof v === "string" || (Array.isArray(v) && v.every((x) => typeof x === "string"));
    if (!ok) throw new CliInputError(`${k} is a string or a list of strings, not ${JSON.stringify(v) ?? String(v)}`);
    values[k] = v;
  }
  return values;
}

/** `["a,b", "c"]` → `["a", "b", "c"]`: a list flag may be repeated or comma-separated. */
function list(v: unknown): string[] {
  const items = Array.isArray(v) ? v : typeof v === "string" ? [v] : [];
  return items.flatMap((s) => (typeof s === "string" ? s.split(",") : [])).map((s) => s.trim()).filter((s) => s !== "");
}

/**
 * The task scope of the `whatif` flags (`--state`, `--type`, `--app`, `--task`); throws
 * {@link CliInputError} for a value it does not know.
 *
 * @example
 * ```ts
 * scopeOf({ state: "all", type: ["grant,revoke"], app: ["app-aws"] });
 * // { states: "any", types: ["grant", "revoke"], appIds: ["app-aws"] }
 * ```
 */
export function scopeOf(values: Readonly<Record<string, unknown>>, flag: (name: string) => string = cliFlag): TaskScope {
  const states = list(values["state"]);
  let scopeStates: TaskScope["states"] | undefined;
  if (states.includes("all") || states.includes("any")) scopeStates = "any";
  else if (states.length > 0)
    scopeStates = states.map((s) => {
      if (s === "open") return "TASK_STATE_OPEN";
      if (s === "closed") return "TASK_STATE_CLOSED";
      if (/^TASK_STATE_[A-Z_]+$/.test(s)) return s;
      throw new CliInputError(`${flag("state")} must be open, closed, all or a TASK_STATE_… name, not "${s}"`);
    });
  const types = list(values["type"]).map((t) => {
    const k = KINDS.find((x) => x === t.toLowerCase());
    if (!k) throw new CliInputError(`${flag("type")} must be among ${KINDS.join(", ")}, not "${t}"`);
    return k;
  });
  const apps = list(values["app"]);
  const tasks = list(values["task"]);
  return {
    ...(scopeStates === undefined ? {} : { states: scopeStates }),
    ...(types.length > 0 ? { types } : {}),
    ...(apps.length > 0 ? { appIds: apps } : {}),
    ...(tasks.length > 0 ? { taskIds: tasks } : {}),
  };
}

/**
 * Refuses a `TASK_STATE_…` name that neither this version nor the world knows. One this version
 * does not know is accepted when the world's tasks carry it (a newer service's state); otherwise it
 * is a typo, and a filter on it would select no task and report "no change".
 */
function checkStatesKnown(world: World, scope: TaskScope, flag: (name: string) => string = cliFlag): void {
  for (const state of scope.states === "any" ? [] : (scope.states ?? [])) {
    if (KNOWN_TASK_STATES.includes(state) || [...world.tasks.values()].some((t) => t.state === state)) continue;
    throw new CliInputError(`${flag("state")} must be open, closed, all or one of ${KNOWN_TASK_STATES.join(", ")}, not "${state}" (no task of the world has it)`);
  }
}

/**
 * Refuses a filter that names nothing in the world (`--app app-nope`, `--task 9999`): it would
 * select no task, and a CI gate would pass whatever the edit does.
 */
function checkScopeNamesSomething(world: World, scope: TaskScope, flag: (name: string) => string = cliFlag): void {
  checkStatesKnown(world, scope, flag);
  for (const app of scope.appIds ?? []) {
    if (world.index.apps.has(app)) continue;
    const guess = closest(app, world.index.apps.keys());
    throw new CliInputError(`${flag("app")}: the world has no app "${app}"${guess ? ` (did you mean "${guess}"?)` : ""}`);
  }
  for (const t of scope.taskIds ?? []) {
    if (world.tasks.get(t) !== undefined || world.taskIdByNumericId.get(t) !== undefined) continue;
    throw new CliInputError(`${flag("task")}: the world has no task "${t}" (by id or numericId)`);
  }
}

function scopeText(scope: TaskScope): string {
  const states = scope.states === "any" ? "tasks in any state" : `${(scope.states ?? ["TASK_STATE_OPEN"]).map((s) => s.replace(/^TASK_STATE_/, "").toLowerCase()).join(" or ")} tasks`;
  const parts = [states];
  if (scope.types) parts.push(`of type ${scope.types.join(", ")}`);
  if (scope.appIds) parts.push(`on ${scope.appIds.join(", ")}`);
  if (scope.taskIds) parts.push(`among ${scope.taskIds.join(", ")}`);
  return parts.join(" ");
}

/**
 * The text report: the scope the flags chose (the library's report does not know the flags), then
 * the library's own `formatWhatIf` — the edit, the counts, the summary by (before → after) route
 * and the changed tasks.
 *
 * @example
 * ```ts
 * const r = whatIf(world, { policies: [edited] }, { scope });
 * if (r.ok) console.log(whatIfReport(r.value, scope));
 * ```
 */
export function whatIfReport(result: WhatIfResult, scope: TaskScope): string {
  return `Scope: ${scopeText(scope)}\n${formatWhatIf(result)}`;
}

/**
 * Runs the analysis with the replacement policies, with a per-phase message on a terminal's
 * stderr (the analysis is one synchronous pass and reports no progress of its own).
 */
function analyse(io: CliIO | undefined, world: World, edit: WorldEdit, scope: TaskScope): ReturnType<typeof whatIf> {
  const p = io ? progress(io, "whatif") : undefined;
  p?.phase(`comparing routes of ${plural(world.tasks.size, "task")} before and after the edit…`);
  try {
    return whatIf(world, edit, { scope });
  } finally {
    p?.end();
  }
}

/**
 * The REPL's `whatIf(policies, options)`: the current world with these policies (wire JSON, one or
 * an array) replaced. `options` are the CLI's flags as an object: `{ state: "all", type: ["grant"],
 * app: "app-aws", task: ["1001"] }`.
 *
 * @example
 * ```ts
 * startRepl({ world, whatIf: whatIfBinding });
 * // policy-sim> whatIf({ ...task("1001").data.policy.policy, rules: [] })
 * ```
 */
export function whatIfBinding(world: World, policies: unknown, options: unknown): Shown<unknown> {
  const decoded = decodePolicies(policies);
  if (!decoded.ok) return failed("INVALID_ARGUMENT", `not replacement policies:\n  ${decoded.error.slice(0, 5).join("\n  ")}`);
  let scope: TaskScope;
  try {
    scope = scopeOf(replScopeValues(options), (name) => name);
    checkScopeNamesSomething(world, scope, (name) => name);
  } catch (e: unknown) {
    return failed("INVALID_ARGUMENT", e instanceof Error ? e.message : String(e));
  }
  const r = analyse(undefined, world, { policies: decoded.value }, scope);
  if (!r.ok) return failed(r.error.code, r.error.message);
  return new Shown(r.value, whatIfReport(r.value, scope));
}

/**
 * The `whatif` command. Exit 0 when no task in scope would route differently, 1 when some would
 * (as `diff` does, so a CI step can fail on an edit that re-routes work), 2 for bad input.
 *
 * @example
 * ```ts
 * await runCli(["whatif", "--world", "fixtures/world.json", "--edit", "edited-policy.json"], io);
 * ```
 */
export const whatifCommand: Command = {
  usage:
    "policy-sim whatif --world <file> (--edit <policy file> | --terraform-plan <plan.json>) [--state open|closed|all] [--type grant,…] [--app <id>,…] [--task <id>,…] [--format text|markdown|json] [--json]",
  summary: "which tasks would route differently if these policies replaced the world's",
  help: [
    "--edit <file>    a wire Policy, or an array of them, replacing the world's policies of the same ids",
    "--terraform-plan <file>  `terraform show -json` output: its conductorone_policy creates, updates and",
    "                 deletes are the edit, each named by its Terraform address",
    "--format <f>     text (default), markdown (a summary for a pull-request comment) or json (= --json)",
    "--state <s>      open (default), closed, all, or TASK_STATE_… names; comma-separated",
    "--type <kinds>   grant, revoke, certify, offboarding, action, finding; comma-separated",
    "--app <ids>      only tasks on these apps; --task <ids> only these tasks (ids or numeric ids)",
    "--json           the WhatIfResult: counts, changed tasks with routes before and after, summary",
    "                 (the text lists at most 50 tasks in detail; the summary and --json cover all)",
    "",
    "Exit 0 when no task in scope would route differently, 1 when some would (like diff), 2 bad input.",
    "",
    "  policy-sim whatif --world fixtures/world.json --edit edited.json --state all --type grant",
    "  policy-sim whatif --world fixtures/world.json --terraform-plan fixtures/terraform/plan.json --format markdown",
  ],
  options: {
    world: { type: "string" },
    edit: { type: "string" },
    "terraform-plan": { type: "string" },
    format: { type: "string" },
    state: { type: "string", multiple: true },
    type: { type: "string", multiple: true },
    app: { type: "string", multiple: true },
    task: { type: "string", multiple: true },
    json: { type: "boolean" },
  },
  run({ values }, io) {
    const world = readWorld(io, str(values["world"]));
    const editPath = str(values["edit"]);
    const planPath = str(values["terraform-plan"]);
    const asked = str(values["format"]) ?? "text";
    // `--format json` is `--json`, as a newcomer would guess it.
    if (asked === "json") values["json"] = true;
    const format = asked === "json" ? "text" : asked;
    if (format !== "text" && format !== "markdown") throw new CliInputError(`--format must be text, markdown or json, not "${format}"`);
    if (editPath && planPath) throw new CliInputError("give --edit or --terraform-plan, not both");
    if (!editPath && !planPath)
      throw new CliInputError("--edit <file> (the policy JSON to replace, one policy or an array) or --terraform-plan <plan.json> is required");
    const scope = scopeOf(values);
    // For --terraform-plan too, which does not go through checkScopeNamesSomething.
    checkStatesKnown(world, scope);
    if (planPath) return runPlan(io, world, planPath, scope, values["json"] === true, format, str(values["world"]) ?? "");
    if (format === "markdown") throw new CliInputError("--format markdown goes with --terraform-plan");
    const edit = policyEditFile(io, world, editPath ?? "");
    checkScopeNamesSomething(world, scope);
    const r = analyse(io, world, edit, scope);
    if (!r.ok) {
      if (values["json"] === true) printJson(io, { error: r.error });
      io.stderr(`${r.error.code}: ${r.error.message}\n`);
      return r.error.code === "INVALID_ARGUMENT" ? EXIT.badInput : EXIT.findings;
    }
    if (values["json"] === true) printJson(io, r.value);
    else io.stdout(`${whatIfReport(r.value, scope)}${editedLines(world, edit.policies)}${whyLine(r.value, str(values["world"]) ?? "", "--edit", editPath ?? "")}\n`);
    return findingsExit(r.value);
  },
};

/**
 * The `--edit` file as a patch of the world's policies: one wire policy or an array of them, each
 * replacing the world's policy of its id. Throws {@link InputFileError} for a file that is not such
 * a policy, or names a policy the world lacks (it would be added and reach nothing: "0 changes"
 * whatever the edit, almost always a typo in its id). Shared by `whatif` and `explain --edit`.
 *
 * @example
 * ```ts
 * const patch = policyEditFile(io, world, "edited.json"); // { policies: [Policy] }
 * ```
 */
export function policyEditFile(io: CliIO, world: World, editPath: string): { readonly policies: Policy[] } {
  const decoded = decodePolicies(readJsonFile(io, editPath, "edit"));
  if (!decoded.ok) {
    const more = decoded.error.length > 5 ? `\n  … and ${decoded.error.length - 5} more` : "";
    throw new InputFileError(`${editPath} is not a valid policy (or array of policies):\n  ${decoded.error.slice(0, 5).join("\n  ")}${more}`);
  }
  for (const id of decoded.value.map((p) => p.id)) {
    if (world.index.policies.has(id)) continue;
    const guess = closest(id, world.index.policies.keys());
    throw new InputFileError(`${editPath}: the world has no policy "${id}"${guess ? ` (did you mean "${guess}"?)` : ""}; --edit replaces the world's policies by id`);
  }
  return { policies: decoded.value };
}

/**
 * A `--terraform-plan` file as the edit it makes of `world` (what `whatif --terraform-plan`
 * compares against), with its warnings. Throws {@link InputFileError} naming the file and its
 * problems when it is not a plan or cannot be simulated.
 *
 * @example
 * ```ts
 * const { edit } = terraformPlanFile(io, world, "plan.json");
 * explain(applyEdit(world, edit), "1001");
 * ```
 */
export function terraformPlanFile(io: CliIO, world: World, planPath: string): { readonly edit: WorldEdit; readonly warnings: readonly string[] } {
  const r = planEditOf(io, world, planPath);
  if (!r.ok) throw new InputFileError(r.message);
  return { edit: terraformEditRecipe(r.value), warnings: r.value.warnings ?? [] };
}

type PlanEdit = ReturnType<typeof terraformPlanEdit>;

/**
 * A plan file read (as bytes: a binary plan, the setup-terraform wrapper's output and UTF-16 are
 * told apart from JSON) and turned into an edit of `world`. A file that is no plan throws
 * {@link InputFileError}; a plan that cannot be simulated is its problems, with the message to show.
 */
function planEditOf(io: CliIO, world: World, planPath: string): (PlanEdit & { ok: true }) | { readonly ok: false; readonly message: string; readonly problems: (PlanEdit & { ok: false })["error"] } {
  const doc = parsePlanFile(readFileBytes(io, planPath, "Terraform plan"));
  if (!doc.ok) throw new InputFileError(`${planPath}: ${doc.error.map((d) => d.message).join("; ")}`);
  const edit = terraformPlanEdit(world, doc.value);
  if (edit.ok) return edit;
  const n = edit.error.length;
  const shown = edit.error.slice(0, SHOWN_PLAN_PROBLEMS).map((d) => `  ${d.code} at ${d.path}: ${d.message}`);
  const more = n > SHOWN_PLAN_PROBLEMS ? `\n  … and ${n - SHOWN_PLAN_PROBLEMS} more` : "";
  return { ok: false, message: `${planPath}: the plan cannot be simulated (${plural(n, "problem")}):\n${shown.join("\n")}${more}`, problems: edit.error };
}

/** How many of one policy's differences `whatif --edit` lists; the count of the rest follows. */
const SHOWN_EDIT_DIFFERENCES = 10;

/**
 * What each `--edit` policy changes in the world's, field by field in the API's names: a route that
 * reads the same before and after (its steps differ in a detail the one-line summary leaves out)
 * otherwise leaves nothing to point at.
 */
function editedLines(world: World, policies: readonly Policy[]): string {
  const out: string[] = [];
  for (const p of policies) {
    const old = world.index.policies.get(p.id);
    if (old === undefined) {
      out.push(`  ${p.id}: new, not in the world`);
      continue;
    }
    const diffs = policyDifferences(old, p, "api");
    if (diffs.length === 0) {
      out.push(`  ${p.id}: the same as the world's`);
      continue;
    }
    out.push(`  ${p.id}:`, ...diffs.slice(0, SHOWN_EDIT_DIFFERENCES).map((d) => `    ${differenceText(d)}`));
    if (diffs.length > SHOWN_EDIT_DIFFERENCES) out.push(`    … and ${diffs.length - SHOWN_EDIT_DIFFERENCES} more`);
  }
  return out.length === 0 ? "" : `\n\nWhat the edit changes:\n${out.join("\n")}`;
}

/**
 * The command that explains, rule by rule and value by value, why the first listed task routes as
 * it would after the edit (a route label says where, not why): empty when no task changed.
 */
function whyLine(result: WhatIfResult, worldPath: string, flag: string, file: string): string {
  const first = result.changed[0];
  if (first === undefined || worldPath === "") return "";
  const task = first.numericId !== "" && first.numericId !== "0" ? first.numericId : first.taskId;
  // A stream (`/dev/stdin`, `-`, a process substitution) cannot be read a second time.
  if (isStreamPath(worldPath) || isStreamPath(file))
    return `\n\nWhy a task changes, rule by rule: save the ${isStreamPath(file) ? "edit" : "world"} to a file, then run policy-sim explain --task ${shellWord(task)} with ${flag} (after the edit; without ${flag}: before it)`;
  return `\n\nWhy a task changes, rule by rule: policy-sim explain --world ${shellWord(worldPath)} --task ${shellWord(task)} ${flag} ${shellWord(file)} (after the edit; without ${flag}: before it)`;
}

/** How many of a plan's problems to show; the count of the rest follows. */
const SHOWN_PLAN_PROBLEMS = 10;

/** `whatif --terraform-plan`: the plan's policy changes as the edit, reported by Terraform address. */
function runPlan(io: CliIO, world: World, planPath: string, scope: TaskScope, json: boolean, format: "text" | "markdown", worldPath: string): number {
  // A file that is no plan throws: under --json the dispatcher writes the error document (BAD_INPUT).
  const edit = planEditOf(io, world, planPath);
  if (!edit.ok) {
    const { message } = edit;
    if (!json) throw new InputFileError(message);
    // One document on stdout: thrown, the dispatcher would write a second (BAD_INPUT) after it.
    printJson(io, { error: { code: "INVALID_ARGUMENT", message, problems: edit.problems } });
    io.stderr(`${message}\n`);
    return EXIT.badInput;
  }
  const warnings = edit.value.warnings ?? [];
  // On stderr too: a CI log shows it even when the report goes to a pull-request comment.
  for (const w of warnings) io.stderr(`${planPath}: warning: ${w}\n`);
  const r = analyse(io, world, terraformEditRecipe(edit.value), scope);
  if (!r.ok) {
    if (json) printJson(io, { error: r.error });
    io.stderr(`${r.error.code}: ${r.error.message}\n`);
    return r.error.code === "INVALID_ARGUMENT" ? EXIT.badInput : EXIT.findings;
  }
  if (json) printJson(io, { terraform: { changes: edit.value.changes, notes: edit.value.notes, warnings }, ...r.value });
  else io.stdout(`${formatTerraformWhatIf(edit.value, r.value, { format, scope: scopeText(scope) })}${format === "text" ? whyLine(r.value, worldPath, "--terraform-plan", planPath) : ""}\n`);
  return findingsExit(r.value);
}

/**
 * 1 when some task would route differently or an edited policy would not save (a lint error: the
 * service would refuse the write, a Terraform apply would fail), as the README's exit codes say; else 0.
 */
function findingsExit(result: WhatIfResult): number {
  return result.counts.changed > 0 || result.edit.saveErrors.length > 0 ? EXIT.findings : EXIT.ok;
}
