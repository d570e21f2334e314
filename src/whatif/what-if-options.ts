/**
 * The options of `whatIf` and `whatIfWorlds` (`what-if.ts`): their types, and their decoding.
 * JavaScript callers pass anything, and a scope that filters on nothing it understands would answer
 * "no task changes" — the one answer a what-if run must never give by mistake. So the options are
 * decoded once, up front, into a fresh object that the run reads instead of the caller's: every key
 * known, every value of its type, or an `INVALID_ARGUMENT` naming the place
 * (`options.scope.states[0]`) and what it takes.
 */
import { describeValue, pathIndex, pathKey } from "../codec/diagnostic.js";
import { KNOWN_TASK_STATES } from "../model/index.js";
import type { SimError } from "../reducers/errors.js";
import { err, ok, type Result } from "../result.js";
import { closest } from "../text/closest.js";
import { thrownMessage } from "./thrown-message.js";
import { findTask, type World } from "../world/world.js";
import { got, isPlainRecord } from "./input-words.js";

/**
 * The kind of a task, as scopes name it.
 *
 * @example
 * ```ts
 * const k: TaskKind = "grant";
 * ```
 */
export type TaskKind = "grant" | "revoke" | "certify" | "offboarding" | "action" | "finding" | "unknown";

/**
 * Which tasks a what-if run considers. Every filter given must hold; omitted filters hold for all.
 *
 * @example
 * ```ts
 * const scope: TaskScope = { states: "any", types: ["grant"], appIds: ["app-aws"] };
 * ```
 */
export interface TaskScope {
  /** Task states (`TASK_STATE_OPEN`, …), or `"any"`. Default: open tasks only. */
  readonly states?: readonly string[] | "any";
  readonly types?: readonly TaskKind[];
  /** Tasks on these apps (grant, revoke and certify tasks). */
  readonly appIds?: readonly string[];
  /** Tasks on these entitlements. */
  readonly entitlements?: readonly { readonly appId: string; readonly id: string }[];
  /** Task ids or numericIds. */
  readonly taskIds?: readonly string[];
}

/**
 * Options of `whatIf`. Anything else — an unknown key, a value of the wrong type — is refused with
 * `INVALID_ARGUMENT` and the path of the culprit (`options.scope.types[0]`).
 *
 * @example
 * ```ts
 * whatIf(world, edit, { scope: { states: "any" }, prune: false });
 * whatIf(world, edit, { onProgress: (done, total) => bar.update(done / total) });
 * ```
 */
export interface WhatIfOptions {
  readonly scope?: TaskScope;
  /** Skip the tasks the edit provably cannot affect (default true); see the module comment of `what-if.ts`. */
  readonly prune?: boolean;
  /**
   * Called every 1,024 tasks and once at the end with the number of tasks looked at so far and the
   * number in the world, for progress bars on long runs. The run is synchronous: the callback
   * reports, it cannot yield. If it throws, the run stops with `INVALID_ARGUMENT` at
   * `options.onProgress`, carrying the callback's message.
   */
  readonly onProgress?: (done: number, total: number) => void;
  /**
   * Only one share of the world's tasks: share `index` (from 0) of `count` contiguous shares of
   * the world's task order. For spreading one run over workers: the results of all `count` shares,
   * merged with `mergeWhatIfResults` in index order, equal the result of the whole run.
   */
  readonly shard?: { readonly index: number; readonly count: number };
}

/**
 * The task kinds a scope's `types` may name, in the order messages list them.
 *
 * @example
 * ```ts
 * TASK_KINDS.includes("grant"); // true
 * ```
 */
export const TASK_KINDS: readonly TaskKind[] = ["grant", "revoke", "certify", "offboarding", "action", "finding", "unknown"];

const OPTION_KEYS: readonly string[] = ["scope", "prune", "onProgress", "shard"];
const SCOPE_KEYS: readonly string[] = ["states", "types", "appIds", "entitlements", "taskIds"];
// The CLI's flags and the REPL's options spell the filters in the singular (`--task`, `{ task }`):
// a caller carrying one over is told the library's name for it.
const SCOPE_ALIASES: ReadonlyMap<string, string> = new Map([
  ["state", "states"],
  ["type", "types"],
  ["app", "appIds"],
  ["apps", "appIds"],
  ["appId", "appIds"],
  ["entitlement", "entitlements"],
  ["task", "taskIds"],
  ["tasks", "taskIds"],
  ["taskId", "taskIds"],
]);

/**
 * Thrown through the run by the wrapped `onProgress` when the caller's callback throws: `whatIf`
 * tells it apart from a fault of its own and reports it at `options.onProgress`.
 *
 * @example
 * ```ts
 * try { run(); } catch (e) { if (e instanceof OnProgressFailed) console.log(e.reason); }
 * ```
 */
export class OnProgressFailed extends Error {
  constructor(readonly reason: string) {
    super(`onProgress threw: ${reason}`);
  }
}

type Decoded<T> = Result<T, SimError>;

function invalid(path: string, message: string): { readonly ok: false; readonly error: SimError } {
  return err({ code: "INVALID_ARGUMENT", message: `${path} ${message}`, field: path });
}

function didYouMean(guess: string | undefined): string {
  return guess === undefined ? "" : ` (did you mean ${guess}?)`;
}

/**
 * The first own key of `o` that is not one of `known`, as an error whose message suggests the key
 * meant (`hint`, else the closest known one). Keys are looked up in the list, never on `o`'s
 * prototype chain, so `constructor` is as unknown as any other.
 */
function unknownKey(o: object, known: readonly string[], path: string, what: string, hint: (key: string) => string | undefined): SimError | undefined {
  for (const k of Object.keys(o)) {
    if (known.includes(k)) continue;
    const guess = hint(k) ?? closest(k, known);
    const r = invalid(pathKey(path, k), `is not ${what}${guess === undefined ? `; the keys are ${known.join(", ")}` : `; did you mean ${guess}?`}`);
    return r.error;
  }
  return undefined;
}

/** A list of non-empty strings (app ids, task ids), copied; a lone string is refused with the list it meant. */
function stringList(v: unknown, path: string, what: string, plural: string): Decoded<readonly string[]> {
  if (!Array.isArray(v)) {
    const hint = typeof v === "string" ? didYouMean(`[${JSON.stringify(v)}]`) : typeof v === "number" ? didYouMean(`["${String(v)}"]`) : "";
    return invalid(path, `must be a list of ${plural}, ${got(v)}${hint}`);
  }
  const out: string[] = [];
  for (let i = 0; i < v.length; i++) {
    const x: unknown = v[i];
    if (typeof x === "string" && x !== "") out.push(x);
    else return invalid(pathIndex(path, i), `must be ${what} (a non-empty string), ${got(x)}${typeof x === "number" ? didYouMean(`"${String(x)}"`) : ""}`);
  }
  return ok(out);
}

/** The states a scope accepts, for messages. */
const STATES_TEXT = `${KNOWN_TASK_STATES.join(", ")}, or another state a task of the world has`;

/**
 * Why `s` is not a state to filter on, or undefined. Task states are an open enum (a later service
 * may add one), so a state the world's tasks carry is one; any other name is a typo that would
 * select nothing (`TASK_STATE_CLOSD`), as the CLI's `--state` reads it too.
 */
function badState(s: unknown, path: string, worldStates: () => ReadonlySet<string>): SimError | undefined {
  if (typeof s === "string" && (KNOWN_TASK_STATES.includes(s) || worldStates().has(s))) return undefined;
  let hint = "";
  if (s === "any" || s === "all") hint = ' (for every state, write states: "any", not in a list)';
  else if (typeof s === "string") {
    const known = [...new Set([...KNOWN_TASK_STATES, ...worldStates()])];
    const guess = known.find((k) => k === `TASK_STATE_${s.toUpperCase()}`) ?? closest(s, known);
    hint = didYouMean(guess === undefined ? undefined : `"${guess}"`);
  }
  return invalid(path, `must be a task state (${STATES_TEXT}), ${got(s)}${hint}`).error;
}

function decodeStates(v: unknown, path: string, world: World): Decoded<readonly string[] | "any"> {
  if (v === "any") return ok("any");
  let states: ReadonlySet<string> | undefined;
  // Only a state this version does not know costs a pass over the tasks.
  const worldStates = (): ReadonlySet<string> => (states ??= new Set([...world.tasks.values()].map((t) => t.state)));
  if (!Array.isArray(v)) {
    const single = typeof v === "string" && badState(v, path, worldStates) === undefined;
    const hint = v === "all" ? didYouMean('"any"') : single ? didYouMean(`[${JSON.stringify(v)}]`) : "";
    return invalid(path, `must be "any" or a list of task states (${STATES_TEXT}), ${got(v)}${hint}`);
  }
  const out: string[] = [];
  for (let i = 0; i < v.length; i++) {
    const s: unknown = v[i];
    const bad = badState(s, pathIndex(path, i), worldStates);
    if (bad) return err(bad);
    out.push(s as string);
  }
  return ok(out);
}

function decodeTypes(v: unknown, path: string): Decoded<readonly TaskKind[]> {
  const kinds = TASK_KINDS.join(", ");
  if (!Array.isArray(v)) {
    const single = typeof v === "string" ? TASK_KINDS.find((k) => k === v.toLowerCase()) : undefined;
    return invalid(path, `must be a list of task kinds (${kinds}), ${got(v)}${didYouMean(single === undefined ? undefined : `["${single}"]`)}`);
  }
  const out: TaskKind[] = [];
  for (let i = 0; i < v.length; i++) {
    const t: unknown = v[i];
    const kind = TASK_KINDS.find((k) => k === t);
    if (kind !== undefined) {
      out.push(kind);
      continue;
    }
    const guess = typeof t === "string" ? closest(t.replace(/^TASK_TYPE_/i, ""), TASK_KINDS) : undefined;
    return invalid(pathIndex(path, i), `must be a task kind (${kinds}), ${got(t)}${didYouMean(guess === undefined ? undefined : `"${guess}"`)}`);
  }
  return ok(out);
}

function decodeEntitlements(v: unknown, path: string): Decoded<readonly { readonly appId: string; readonly id: string }[]> {
  if (!Array.isArray(v)) return invalid(path, `must be a list of entitlements { appId, id }, ${got(v)}`);
  const out: { appId: string; id: string }[] = [];
  for (let i = 0; i < v.length; i++) {
    const at = pathIndex(path, i);
    const e: unknown = v[i];
    if (!isPlainRecord(e)) {
      const slash = typeof e === "string" ? e.indexOf("/") : -1;
      const hint = typeof e === "string" && slash > 0 ? didYouMean(`{ appId: ${JSON.stringify(e.slice(0, slash))}, id: ${JSON.stringify(e.slice(slash + 1))} }`) : "";
      return invalid(at, `must be an entitlement { appId, id }, ${got(e)}${hint}`);
    }
    // Other keys are left alone: the world's own entitlements may be passed as they are.
    if (e["id"] === undefined) {
      const extra = unknownKey(e, ["appId", "id"], at, "a key of an entitlement", (k) => (k === "entitlementId" || k === "appEntitlementId" ? "id" : undefined));
      if (extra) return err(extra);
    }
    const appId: unknown = e["appId"];
    const id: unknown = e["id"];
    if (typeof appId !== "string" || appId === "") return invalid(pathKey(at, "appId"), `must be an app id (a non-empty string), ${got(appId)}`);
    if (typeof id !== "string" || id === "") return invalid(pathKey(at, "id"), `must be an entitlement id (a non-empty string), ${got(id)}`);
    out.push({ appId, id });
  }
  return ok(out);
}

function decodeScope(v: unknown, world: World): Decoded<TaskScope> {
  const path = "options.scope";
  if (!isPlainRecord(v)) return invalid(path, `must be an object with some of ${SCOPE_KEYS.join(", ")}, ${got(v)}`);
  const extra = unknownKey(v, SCOPE_KEYS, path, "a scope filter", (k) => SCOPE_ALIASES.get(k));
  if (extra) return err(extra);
  // Each filter read once: what was checked is what the run uses.
  const states: unknown = v["states"];
  const types: unknown = v["types"];
  const appIds: unknown = v["appIds"];
  const entitlements: unknown = v["entitlements"];
  const taskIds: unknown = v["taskIds"];
  const s = states === undefined ? undefined : decodeStates(states, pathKey(path, "states"), world);
  if (s && !s.ok) return s;
  const t = types === undefined ? undefined : decodeTypes(types, pathKey(path, "types"));
  if (t && !t.ok) return t;
  const a = appIds === undefined ? undefined : stringList(appIds, pathKey(path, "appIds"), "an app id", "app ids");
  if (a && !a.ok) return a;
  const e = entitlements === undefined ? undefined : decodeEntitlements(entitlements, pathKey(path, "entitlements"));
  if (e && !e.ok) return e;
  const i = taskIds === undefined ? undefined : stringList(taskIds, pathKey(path, "taskIds"), "a task id or numericId", "task ids or numericIds");
  if (i && !i.ok) return i;
  const missing = unknownIds(world, path, a?.value, e?.value, i?.value);
  if (missing) return missing;
  // An empty filter leaves no task in scope, and "nothing changes" would be the answer: never by mistake.
  for (const [key, d] of [["states", s], ["types", t], ["appIds", a], ["entitlements", e], ["taskIds", i]] as const)
    if (d !== undefined && Array.isArray(d.value) && d.value.length === 0)
      return invalid(pathKey(path, key), `is an empty list, which no task matches: leave ${key} out${key === "states" ? ' (open tasks) or write "any"' : " to take every task"}`);
  return ok({
    ...(s ? { states: s.value } : {}),
    ...(t ? { types: t.value } : {}),
    ...(a ? { appIds: a.value } : {}),
    ...(e ? { entitlements: e.value } : {}),
    ...(i ? { taskIds: i.value } : {}),
  });
}

/**
 * An id of the scope the world does not have: such a filter selects no task, and a run that reports
 * "nothing changes" for it is a false all-clear. The closest id is named.
 */
function unknownIds(
  world: World,
  path: string,
  appIds: readonly string[] | undefined,
  entitlements: readonly { readonly appId: string; readonly id: string }[] | undefined,
  taskIds: readonly string[] | undefined,
): Decoded<never> | undefined {
  const apps = world.index.apps;
  const appList = (appIds ?? []).findIndex((id) => !apps.has(id));
  if (appIds && appList >= 0) {
    const id = appIds[appList] as string;
    const guess = closest(id, [...apps.keys()]);
    return invalid(pathIndex(pathKey(path, "appIds"), appList), `names app "${id}", which the world does not have${guess ? ` (did you mean "${guess}"?)` : ""}`);
  }
  const entList = (entitlements ?? []).findIndex((x) => !world.index.entitlementsByApp.get(x.appId)?.has(x.id));
  if (entitlements && entList >= 0) {
    const x = entitlements[entList] as { readonly appId: string; readonly id: string };
    const ofApp = world.index.entitlementsByApp.get(x.appId);
    const guess = ofApp ? closest(x.id, [...ofApp.keys()]) : undefined;
    return invalid(
      pathIndex(pathKey(path, "entitlements"), entList),
      `names entitlement "${x.id}" of app "${x.appId}", which the world does not have${!ofApp ? ` (no app "${x.appId}")` : guess ? ` (did you mean "${guess}"?)` : ""}`,
    );
  }
  const taskList = (taskIds ?? []).findIndex((id) => findTask(world, id) === undefined);
  if (taskIds && taskList >= 0)
    return invalid(pathIndex(pathKey(path, "taskIds"), taskList), `names task "${taskIds[taskList] as string}", which the world does not have (by id or numericId)`);
  return undefined;
}

function decodeShard(v: unknown): Decoded<{ readonly index: number; readonly count: number }> {
  const path = "options.shard";
  const what = `must be { index, count } with 0 ≤ index < count, whole numbers`;
  if (!isPlainRecord(v)) return invalid(path, `${what}, ${got(v)}`);
  const extra = unknownKey(v, ["index", "count"], path, "a key of a shard", () => undefined);
  if (extra) return err(extra);
  const index: unknown = v["index"];
  const count: unknown = v["count"];
  if (typeof index === "number" && typeof count === "number" && Number.isSafeInteger(index) && Number.isSafeInteger(count) && count >= 1 && index >= 0 && index < count)
    return ok({ index, count });
  return invalid(path, `${what}, got { index: ${typeof index === "number" ? String(index) : describeValue(index)}, count: ${typeof count === "number" ? String(count) : describeValue(count)} }`);
}

function decode(options: unknown, world: World): Decoded<WhatIfOptions> {
  // No options and `null` alike mean the defaults (the what-if pool takes `null` so too).
  if (options === undefined || options === null) return ok({});
  if (!isPlainRecord(options)) return invalid("options", `must be an object with some of ${OPTION_KEYS.join(", ")}, ${got(options)}`);
  const extra = unknownKey(options, OPTION_KEYS, "options", "an option of whatIf", (k) =>
    SCOPE_KEYS.includes(k) ? `scope: { ${k} }` : SCOPE_ALIASES.has(k) ? `scope: { ${SCOPE_ALIASES.get(k) ?? k} }` : undefined,
  );
  if (extra) return err(extra);
  const scope: unknown = options["scope"];
  const prune: unknown = options["prune"];
  const onProgress: unknown = options["onProgress"];
  const shard: unknown = options["shard"];
  const sc = scope === undefined ? undefined : decodeScope(scope, world);
  if (sc && !sc.ok) return sc;
  if (prune !== undefined && typeof prune !== "boolean") return invalid("options.prune", `must be true or false, ${got(prune)}`);
  if (onProgress !== undefined && typeof onProgress !== "function") return invalid("options.onProgress", `must be a function (done, total) => void, ${got(onProgress)}`);
  const sh = shard === undefined ? undefined : decodeShard(shard);
  if (sh && !sh.ok) return sh;
  const report = onProgress as ((done: number, total: number) => unknown) | undefined;
  return ok({
    ...(sc ? { scope: sc.value } : {}),
    ...(prune === undefined ? {} : { prune }),
    ...(report === undefined
      ? {}
      : {
          onProgress: (done: number, total: number): void => {
            try {
              report(done, total);
            } catch (e: unknown) {
              throw new OnProgressFailed(thrownMessage(e));
            }
          },
        }),
    ...(sh ? { shard: sh.value } : {}),
  });
}

/**
 * Decodes the options of a what-if run over `world`: a fresh {@link WhatIfOptions} the run reads
 * (the caller's object is read once, so a getter cannot change what was checked), with
 * `onProgress` wrapped so that a throw of the caller's callback is told apart from a fault of the
 * run ({@link OnProgressFailed}). `undefined` and `null` are the defaults. Refuses, with
 * `INVALID_ARGUMENT` at the culprit's path: an unknown key (`options.scope.task`, with the key
 * meant), a value of the wrong type, a state that is neither one this version knows nor one a task
 * of the world has (`TASK_STATE_CLOSD`), a task kind that is not one, an empty id. Never throws.
 *
 * @example
 * ```ts
 * decodeWhatIfOptions({ scope: { states: ["open"] } }, world);
 * // { ok: false, error: { code: "INVALID_ARGUMENT", field: "options.scope.states[0]",
 * //   message: 'options.scope.states[0] must be a task state (TASK_STATE_UNSPECIFIED, …), got string "open" (did you mean "TASK_STATE_OPEN"?)' } }
 * ```
 */
export function decodeWhatIfOptions(options: unknown, world: World): Result<WhatIfOptions, SimError> {
  try {
    return decode(options, world);
  } catch (e: unknown) {
    // Only a hostile object gets here (a getter or proxy trap that throws): its own fault, not ours.
    return invalid("options", `cannot be read: ${thrownMessage(e)}`);
  }
}
