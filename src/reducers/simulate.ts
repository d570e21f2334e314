/**
 * Scenarios as data: `simulate(world, script)` runs a JSON script of actions and ticks, each with
 * its actor and time, and returns every intermediate world, response and event, so a scenario can
 * be saved, replayed (byte-identical: the core is pure), diffed and shown in a REPL.
 *
 * A script:
 * ```jsonc
 * {
 *   "name": "emergency-request",
 *   "description": "…",
 *   "simulation": { "connectors": [...] },          // optional: merged into the world's simulation section
 *   "steps": [
 *     { "at": "2026-11-22T09:02:00Z", "actor": "u-sre1",
 *       "action": { "type": "escalateToEmergencyAccess", "taskId": "1001" },
 *       "note": "why this step", "expect": "ok" | { "error": "PERMISSION_DENIED", "message": "substring" },
 *       "check": [ { "taskId": "1001", "state": "TASK_STATE_OPEN", "currentStep": "approval" },
 *                  { "grant": { "userId": "u-x", "appId": "app-aws", "appEntitlementId": "ent-y" }, "held": true } ] },
 *     { "tick": "2026-11-22T10:00:00Z", "check": [...] }
 *   ]
 * }
 * ```
 * An action step first ticks the clock to its `at` (firing what falls due), then applies the action
 * at that time. A top-level string field of an action written `"$last.<field>"` takes that field of
 * the last successful response (a step-up `stepUpTransactionId`, for instance). A step without `expect` is expected to succeed. Unmet expectations and checks are
 * collected in `failures`; the run goes on.
 */
import type { JsonObject, JsonValue } from "../model/json.js";
import { err, ok, type Result } from "../result.js";
import type { AuditEvent } from "../workflow/events.js";
import { mergeSimulationSection } from "../workflow/sim-config.js";
import { currentKind } from "../workflow/steps.js";
import { saveWorld } from "../world/save-world.js";
import { findTask, grantKeyOf, type World } from "../world/world.js";
import type { SimError } from "./errors.js";
import { guarded, notAWorld } from "./errors.js";
import { isRealTimestamp } from "./prelude.js";
import { reduce, WORKFLOW_ACTION_TYPES, type WorkflowAction } from "./reduce.js";
import { tick } from "./tick.js";
import { MAX_SCRIPT_STEPS } from "./limits.js";

/**
 * A check of the world after a step: a task's state, or whether a user holds a grant.
 *
 * @example
 * ```ts
 * const c: ScriptCheck = { taskId: "1001", state: "TASK_STATE_CLOSED", outcome: "GRANT_OUTCOME_GRANTED" };
 * ```
 */
export type ScriptCheck =
  | {
      readonly taskId: string;
      readonly state?: string;
      readonly processing?: string;
      readonly outcome?: string;
      /** The current step's kind, or `"none"`. */
      readonly currentStep?: string;
      readonly policyId?: string;
      readonly stepApproverIds?: readonly string[];
      readonly emergencyAccess?: boolean;
    }
  | { readonly grant: { readonly userId: string; readonly appId: string; readonly appEntitlementId: string }; readonly held: boolean };

/**
 * What a step expects: success, or an error with its code (and a part of its message).
 *
 * @example
 * ```ts
 * const e: ScriptExpectation = { error: "PERMISSION_DENIED", message: "Super Administrators" };
 * ```
 */
export type ScriptExpectation = "ok" | { readonly error: SimError["code"]; readonly message?: string };

/**
 * One step of a script: an action by an actor at a time, or a tick.
 *
 * @example
 * ```ts
 * const s: ScriptStep = { kind: "action", at: "2026-11-22T09:05:00Z", actor: "u-ciso",
 *   action: { type: "approve", taskId: "1004", comment: "SEV-1" }, note: "", expect: "ok", check: [] };
 * ```
 */
export type ScriptStep =
  | {
      readonly kind: "action";
      readonly at: string;
      readonly actor: string;
      readonly action: WorkflowAction;
      readonly note: string;
      readonly expect: ScriptExpectation;
      readonly check: readonly ScriptCheck[];
    }
  | { readonly kind: "tick"; readonly at: string; readonly note: string; readonly check: readonly ScriptCheck[] };

/**
 * A decoded script.
 *
 * @example
 * ```ts
 * const s = decodeScript(JSON.parse(text));
 * if (s.ok) console.log(s.value.steps.length);
 * ```
 */
export interface Script {
  readonly name: string;
  readonly description: string;
  /** Merged into the world's `simulation` section before the first step. */
  readonly simulation: JsonObject | null;
  readonly steps: readonly ScriptStep[];
}

/**
 * One step's outcome. Frame 0 is the set-up world.
 *
 * @example
 * ```ts
 * for (const f of run.frames) console.log(f.index, f.ok, f.events.length);
 * ```
 */
export interface Frame {
  readonly index: number;
  readonly step: ScriptStep | null;
  /** The world's clock after the step. */
  readonly now: string;
  readonly ok: boolean;
  readonly response: JsonValue | null;
  readonly error: SimError | null;
  /** The events of the tick to the step's time, then of the action. */
  readonly events: readonly AuditEvent[];
  /** What the tick to the step's time fired (`{taskId, numericId, kind, at, policyStepId}`). */
  readonly fired: readonly JsonValue[];
  readonly failures: readonly string[];
  readonly world: World;
}

/**
 * The result of a script: every frame, the final world, and every unmet expectation.
 *
 * @example
 * ```ts
 * const r = simulate(world, script);
 * if (r.ok && r.value.failures.length === 0) console.log("scenario holds");
 * ```
 */
export interface SimulationRun {
  readonly name: string;
  readonly frames: readonly Frame[];
  readonly world: World;
  readonly failures: readonly string[];
}

const CODES: readonly string[] = ["NOT_FOUND", "PERMISSION_DENIED", "UNAUTHENTICATED", "INVALID_ARGUMENT", "FAILED_PRECONDITION", "INTERNAL"];

function isObject(v: unknown): v is Readonly<Record<string, unknown>> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function decodeChecks(v: unknown, path: string, problems: string[]): ScriptCheck[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) {
    problems.push(`${path}: expected an array of checks`);
    return [];
  }
  const out: ScriptCheck[] = [];
  v.forEach((c: unknown, i) => {
    const p = `${path}[${i}]`;
    if (!isObject(c)) return void problems.push(`${p}: expected an object`);
    const g = c["grant"];
    if (isObject(g)) {
      const { userId, appId, appEntitlementId } = g;
      if (typeof userId !== "string" || typeof appId !== "string" || typeof appEntitlementId !== "string")
        return void problems.push(`${p}.grant: expected {userId, appId, appEntitlementId}`);
      out.push({ grant: { userId, appId, appEntitlementId }, held: c["held"] !== false });
      return;
    }
    if (typeof c["taskId"] !== "string") return void problems.push(`${p}: a check names a taskId or a grant`);
    const str = (k: string): string | undefined => (typeof c[k] === "string" ? (c[k] as string) : undefined);
    const ids = c["stepApproverIds"];
    out.push({
      taskId: c["taskId"],
      ...(str("state") !== undefined ? { state: str("state") as string } : {}),
      ...(str("processing") !== undefined ? { processing: str("processing") as string } : {}),
      ...(str("outcome") !== undefined ? { outcome: str("outcome") as string } : {}),
      ...(str("currentStep") !== undefined ? { currentStep: str("currentStep") as string } : {}),
      ...(str("policyId") !== undefined ? { policyId: str("policyId") as string } : {}),
      ...(Array.isArray(ids) && ids.every((x) => typeof x === "string") ? { stepApproverIds: ids as string[] } : {}),
      ...(typeof c["emergencyAccess"] === "boolean" ? { emergencyAccess: c["emergencyAccess"] } : {}),
    });
  });
  return out;
}

/**
 * Decodes a script, naming every problem with its JSON path.
 *
 * @example
 * ```ts
 * const s = decodeScript({ name: "x", steps: [{ tick: "2026-11-23T00:00:00Z" }] });
 * s.ok; // true
 * ```
 */
export function decodeScript(json: unknown): Result<Script, readonly string[]> {
  if (!isObject(json)) return err(["$: a script is an object with steps"]);
  const problems: string[] = [];
  const stepsIn = json["steps"];
  if (!Array.isArray(stepsIn)) problems.push("$.steps: expected an array");
  else if (stepsIn.length > MAX_SCRIPT_STEPS) return err([`$.steps: ${stepsIn.length.toLocaleString("en")} steps; a script holds at most ${MAX_SCRIPT_STEPS.toLocaleString("en")}`]);
  const steps: ScriptStep[] = [];
  (Array.isArray(stepsIn) ? stepsIn : []).forEach((s: unknown, i) => {
    const p = `$.steps[${i}]`;
    if (!isObject(s)) return void problems.push(`${p}: expected an object`);
    const note = typeof s["note"] === "string" ? s["note"] : "";
    const check = decodeChecks(s["check"], `${p}.check`, problems);
    if (s["tick"] !== undefined) {
      const at = s["tick"];
      if (!isRealTimestamp(at)) return void problems.push(`${p}.tick: expected an RFC 3339 timestamp of a real date and time`);
      steps.push({ kind: "tick", at, note, check });
      return;
    }
    const action = s["action"];
    if (!isObject(action) || typeof action["type"] !== "string")
      return void problems.push(`${p}.action: expected an action object with a type (${WORKFLOW_ACTION_TYPES.join(", ")})`);
    if (!(WORKFLOW_ACTION_TYPES as readonly string[]).includes(action["type"]))
      problems.push(`${p}.action.type: unknown action type "${action["type"]}"`);
    const actor = s["actor"];
    if (typeof actor !== "string" || actor === "") problems.push(`${p}.actor: every action names its actor (a user id)`);
    const at = s["at"];
    if (at !== undefined && !isRealTimestamp(at)) problems.push(`${p}.at: expected an RFC 3339 timestamp of a real date and time`);
    const e = s["expect"];
    let expect: ScriptExpectation = "ok";
    if (isObject(e)) {
      if (typeof e["error"] !== "string" || !CODES.includes(e["error"])) problems.push(`${p}.expect.error: one of ${CODES.join(", ")}`);
      expect = { error: e["error"] as SimError["code"], ...(typeof e["message"] === "string" ? { message: e["message"] } : {}) };
    } else if (e !== undefined && e !== "ok") problems.push(`${p}.expect: "ok" or { "error": CODE }`);
    steps.push({
      kind: "action",
      at: typeof at === "string" ? at : "",
      actor: typeof actor === "string" ? actor : "",
      action: action as unknown as WorkflowAction,
      note,
      expect,
      check,
    });
  });
  const sim = json["simulation"];
  if (sim !== undefined && sim !== null && !isObject(sim)) problems.push("$.simulation: expected an object");
  if (problems.length > 0) return err(problems);
  return ok({
    name: typeof json["name"] === "string" ? json["name"] : "",
    description: typeof json["description"] === "string" ? json["description"] : "",
    simulation: isObject(sim) ? (sim as JsonObject) : null,
    steps,
  });
}

function checkFailures(world: World, checks: readonly ScriptCheck[], where: string): string[] {
  const out: string[] = [];
  for (const c of checks) {
    if ("grant" in c) {
      const held = world.index.grants.has(grantKeyOf(c.grant.userId, c.grant.appId, c.grant.appEntitlementId));
      if (held !== c.held)
        out.push(`${where}: ${c.grant.userId} ${held ? "holds" : "does not hold"} ${c.grant.appId}/${c.grant.appEntitlementId}, expected ${c.held ? "held" : "not held"}`);
      continue;
    }
    const t = findTask(world, c.taskId);
    if (!t) {
      out.push(`${where}: task ${c.taskId} not found`);
      continue;
    }
    const type = t.type;
    const actual: Record<string, unknown> = {
      state: t.state,
      processing: t.processing,
      outcome: type && type.kind !== "unknown" ? type.outcome : "",
      currentStep: currentKind(t),
      policyId: t.policy?.policy?.id ?? "",
      stepApproverIds: t.stepApproverIds ?? [],
      emergencyAccess: t.emergencyAccess,
    };
    for (const [k, want] of Object.entries(c)) {
      if (k === "taskId") continue;
      const got = actual[k];
      if (JSON.stringify(got) !== JSON.stringify(want)) out.push(`${where}: task ${c.taskId} ${k} is ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
    }
  }
  return out;
}

function describeStep(step: ScriptStep, index: number): string {
  if (step.kind === "tick") return `step ${index} (tick ${step.at})`;
  const taskId = "taskId" in step.action ? ` ${String(step.action.taskId)}` : "";
  return `step ${index} (${step.action.type}${taskId} by ${step.actor})`;
}

/**
 * Runs a script against a world. The script may be JSON (it is decoded) or a {@link Script}.
 * Returns every frame; never throws. `INVALID_ARGUMENT` when the script does not decode (every
 * problem is in the message).
 *
 * @example
 * ```ts
 * const r = simulate(world, JSON.parse(readFileSync("fixtures/scenarios/emergency-request.json", "utf8")));
 * if (r.ok) for (const f of r.value.frames) console.log(f.index, f.ok ? "ok" : f.error?.code);
 * ```
 */
export function simulate(world: World, script: unknown): Result<SimulationRun, SimError> {
  return guarded(() => {
    const notWorld = notAWorld(world);
    if (notWorld) return err<SimError>(notWorld);
    const many = isObject(script) && Array.isArray(script["steps"]) ? (script["steps"] as unknown[]).length : 0;
    // Refused before anything walks the list: every step keeps a frame.
    if (many > MAX_SCRIPT_STEPS)
      return err<SimError>({ code: "INVALID_ARGUMENT", message: `the script has ${many.toLocaleString("en")} steps; a script holds at most ${MAX_SCRIPT_STEPS.toLocaleString("en")}`, field: "script" });
    const decoded = isObject(script) && Array.isArray(script["steps"]) && isStepList(script) ? ok(script as unknown as Script) : decodeScript(script);
    if (!decoded.ok) return err<SimError>({ code: "INVALID_ARGUMENT", message: `the script is not valid: ${decoded.error.join("; ")}`, field: "script" });
    const s = decoded.value;
    let w = s.simulation ? Object.freeze(mergeSimulationSection(world, s.simulation)) : world;
    const frames: Frame[] = [{ index: 0, step: null, now: w.now, ok: true, response: null, error: null, events: [], fired: [], failures: [], world: w }];
    const failures: string[] = [];
    let lastResponse: JsonValue | null = null;
    s.steps.forEach((step, i) => {
      const index = i + 1;
      const where = describeStep(step, index);
      const stepFailures: string[] = [];
      let events: AuditEvent[] = [];
      let fired: JsonValue[] = [];
      let response: JsonValue | null = null;
      let error: SimError | null = null;
      let okStep = true;
      const when = step.at || w.now;
      const late = Date.parse(when) < Date.parse(w.now);
      if (late && step.kind === "action") {
        // The clock never goes back: an action dated before it is refused, not applied.
        error = { code: "INVALID_ARGUMENT", message: `the step is dated ${when}, before the clock (${w.now})`, field: "at" };
        stepFailures.push(`${where}: ${error.message}`);
        failures.push(...stepFailures);
        frames.push({ index, step, now: w.now, ok: false, response: null, error, events, fired, failures: stepFailures, world: w });
        return;
      }
      if (Date.parse(when) > Date.parse(w.now) || step.kind === "tick") {
        const t = tick(w, when);
        if (t.ok) {
          w = t.value.world;
          events = [...t.value.events];
          const f = (t.value.response as JsonObject)["fired"];
          fired = Array.isArray(f) ? [...f] : [];
          if (step.kind === "tick") response = t.value.response;
        } else {
          okStep = false;
          error = t.error;
          stepFailures.push(`${where}: the clock could not move to ${when}: ${t.error.message}`);
        }
      }
      if (step.kind === "action") {
        const r = reduce(w, withReferences(step.action, lastResponse), { actorId: step.actor, now: when });
        if (r.ok) lastResponse = r.value.response;
        if (r.ok) {
          w = r.value.world;
          events = [...events, ...r.value.events];
          response = r.value.response;
        } else {
          okStep = false;
          error = r.error;
        }
        const e = step.expect;
        if (e === "ok" && !r.ok) stepFailures.push(`${where}: expected success, got ${r.error.code}: ${r.error.message}`);
        if (e !== "ok") {
          if (r.ok) stepFailures.push(`${where}: expected ${e.error}, but it succeeded`);
          else if (r.error.code !== e.error) stepFailures.push(`${where}: expected ${e.error}, got ${r.error.code}: ${r.error.message}`);
          else if (e.message !== undefined && !r.error.message.includes(e.message))
            stepFailures.push(`${where}: the ${e.error} message does not mention "${e.message}": ${r.error.message}`);
        }
      }
      stepFailures.push(...checkFailures(w, step.check, where));
      failures.push(...stepFailures);
      frames.push({ index, step, now: w.now, ok: okStep, response, error, events, fired, failures: stepFailures, world: w });
    });
    return ok({ name: s.name, frames, world: w, failures });
  });
}

/** The action with its `"$last.<field>"` strings replaced by the last response's fields. */
function withReferences(action: WorkflowAction, last: JsonValue | null): WorkflowAction {
  const entries = Object.entries(action as unknown as JsonObject);
  if (!entries.some(([, v]) => typeof v === "string" && v.startsWith("$last."))) return action;
  const from = isObject(last) ? (last as JsonObject) : {};
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of entries) out[k] = typeof v === "string" && v.startsWith("$last.") ? (from[v.slice("$last.".length)] ?? "") : v;
  return out as unknown as WorkflowAction;
}

/** Whether a script-shaped object already holds decoded steps (each with a `kind`). */
function isStepList(script: Readonly<Record<string, unknown>>): boolean {
  const steps = script["steps"] as unknown[];
  return steps.every((x) => isObject(x) && (x["kind"] === "action" || x["kind"] === "tick"));
}

/**
 * Which worlds {@link encodeSimulation} writes: none, the final one, or one per frame.
 *
 * @example
 * ```ts
 * const w: WorldsOption = "final";
 * ```
 */
export type WorldsOption = "none" | "final" | "all";

function encodeError(e: SimError | null): JsonValue {
  if (!e) return null;
  return { code: e.code, message: e.message, ...("field" in e && e.field !== undefined ? { field: e.field } : {}) };
}

function encodeStep(step: ScriptStep | null): JsonValue {
  if (!step) return null;
  if (step.kind === "tick") return { tick: step.at, ...(step.note ? { note: step.note } : {}) };
  return {
    at: step.at,
    actor: step.actor,
    action: step.action as unknown as JsonValue,
    ...(step.note ? { note: step.note } : {}),
    ...(step.expect !== "ok" ? { expect: step.expect as JsonValue } : {}),
  };
}

/**
 * A run as JSON, to save, diff or compare: frames with their step, response, error, events and
 * fired timers, the failures, and the worlds asked for (world files, as `saveWorld` writes them).
 * The same script on the same world encodes to the same bytes.
 *
 * @example
 * ```ts
 * writeFileSync("run.json", JSON.stringify(encodeSimulation(run, { worlds: "final" }), null, 2));
 * ```
 */
export function encodeSimulation(run: SimulationRun, options: { readonly worlds?: WorldsOption } = {}): JsonObject {
  if (typeof run !== "object" || run === null) throw new TypeError(`encodeSimulation: expected a SimulationRun (simulate's value), not ${run === null ? "null" : typeof run}`);
  const worlds = options.worlds ?? "final";
  return {
    name: run.name,
    failures: [...run.failures],
    frames: run.frames.map((f) => ({
      index: f.index,
      now: f.now,
      step: encodeStep(f.step),
      ok: f.ok,
      response: f.response,
      error: encodeError(f.error),
      events: f.events.map((e) => ({ ...e }) as unknown as JsonValue),
      fired: [...f.fired],
      failures: [...f.failures],
      ...(worlds === "all" ? { world: saveWorld(f.world) } : {}),
    })),
    ...(worlds === "final" || worlds === "all" ? { world: saveWorld(run.world) } : {}),
  };
}

function summaryOf(world: World, taskId: string): string {
  const t = findTask(world, taskId);
  if (!t) return "";
  const type = t.type;
  const outcome = type && type.kind !== "unknown" && !type.outcome.endsWith("_UNSPECIFIED") ? ` ${type.outcome}` : "";
  const state = t.state.replace("TASK_STATE_", "");
  const step = currentKind(t);
  const who = (t.stepApproverIds ?? []).length > 0 ? ` (${(t.stepApproverIds ?? []).join(", ")})` : "";
  return `task ${t.numericId || t.id} ${state}${outcome}${step !== "none" ? `, at ${step}${who}` : ""}`;
}

/**
 * A run as text for a terminal or REPL: one block per frame with what was done, its result, the
 * task it touched, what fired and the events.
 *
 * @example
 * ```ts
 * console.log(formatSimulation(run));
 * // #1 2026-11-22T09:02:00Z u-sre1 escalateToEmergencyAccess 1001 → ok: task 1001 OPEN, at approval (u-ciso, …)
 * ```
 */
export function formatSimulation(run: SimulationRun): string {
  const lines: string[] = [`scenario ${run.name || "(unnamed)"}: ${run.frames.length - 1} steps, ${run.failures.length} failures`];
  for (const f of run.frames) {
    if (!f.step) continue;
    const head =
      f.step.kind === "tick"
        ? `#${f.index} ${f.now} tick`
        : `#${f.index} ${f.step.at || f.now} ${f.step.actor} ${f.step.action.type}${"taskId" in f.step.action ? ` ${String(f.step.action.taskId)}` : ""}`;
    const taskId = f.step.kind === "action" && "taskId" in f.step.action ? String(f.step.action.taskId) : "";
    const result = f.ok ? `ok${taskId ? `: ${summaryOf(f.world, taskId)}` : ""}` : `${f.error?.code ?? "error"}: ${f.error?.message ?? ""}`;
    lines.push(`${head} → ${result}`);
    if (f.step.note) lines.push(`    ${f.step.note}`);
    for (const x of f.fired) {
      const o = x as JsonObject;
      lines.push(`    fired ${String(o["kind"])} on task ${String(o["numericId"] || o["taskId"])} at ${String(o["at"])}`);
    }
    if (f.events.length > 0) lines.push(`    events: ${f.events.map((e) => e.kind).join(", ")}`);
    for (const failure of f.failures) lines.push(`    FAILED ${failure}`);
  }
  return lines.join("\n");
}
