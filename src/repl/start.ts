/**
 * `startRepl`: a `node:repl` server with a session's functions in its context, the world as a live
 * `world` binding, `.world`/`.undo`/`.help` commands, and id completion inside strings. The session
 * (`session.ts`) and the completer (`complete.ts`) hold the logic; this file only wires them in.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { Recoverable, type REPLServer, start } from "node:repl";
import type { Readable, Writable } from "node:stream";
import { whatIfBinding } from "../cli/whatif.js";
import { inspect } from "node:util";
import type { World } from "../world/world.js";
import { completeLine, openStringAt } from "./complete.js";
import { closest } from "../text/closest.js";
import { Shown } from "./show.js";
import { createSession, HELP, type ReplApi, type ReplSession, type SessionFiles, type WhatIfBinding } from "./session.js";

/**
 * Options of {@link startRepl}. Only `world` is required; the streams default to the process's.
 *
 * @example
 * ```ts
 * const options: StartReplOptions = { world, source: "fixtures/world.json", input: new PassThrough(), output: sink, terminal: false };
 * ```
 */
export interface StartReplOptions {
  readonly world: World;
  /** Where the world came from, for the banner and `.undo` messages. */
  readonly source?: string;
  readonly input?: Readable;
  readonly output?: Writable;
  /** Treat the streams as a terminal (line editing, Tab completion); default: `output.isTTY`. */
  readonly terminal?: boolean;
  /** ANSI colours in echoed values and explanations; default: `terminal`. */
  readonly useColors?: boolean;
  readonly prompt?: string;
  /** Files for `.world` and `save(…)`; `node:fs` by default. */
  readonly files?: SessionFiles;
  /** The what-if analysis behind `whatIf(…)`; the library's by default. */
  readonly whatIf?: WhatIfBinding;
}

/**
 * A started REPL: the `node:repl` server, its session (the current world and history), and a
 * promise that settles when the REPL exits (`.exit`, Ctrl-D, end of input).
 *
 * @example
 * ```ts
 * const repl = startRepl({ world });
 * await repl.closed;
 * console.log(repl.session.depth, "worlds in the history");
 * ```
 */
export interface RunningRepl {
  readonly server: REPLServer;
  readonly session: ReplSession;
  readonly closed: Promise<void>;
}

const FUNCTIONS = ["explain", "reset", "hardReset", "comment", "reduce", "tick", "whatIf", "lint", "check", "task", "policy", "simulate", "save", "undo", "help"] as const satisfies readonly (keyof ReplApi)[];

/** The names Tab completes outside strings. */
function isWorld(v: unknown): v is World {
  return typeof v === "object" && v !== null && "index" in v && "tasks" in v && "policies" in v && "now" in v;
}

/**
 * A world in a few lines: its clock, what it holds, and how to look further. What the REPL prints
 * for `world` (the object itself is still there: `world.tasks.get("…")`, `world.policies[0]`).
 *
 * @example
 * ```ts
 * worldSummary(world); // "World at 2026-11-22T09:00:00Z\n  59 tasks (37 open), 21 policies, …"
 * ```
 */
export function worldSummary(w: World): string {
  let open = 0;
  for (const t of w.tasks.values()) if (t.state === "TASK_STATE_OPEN") open++;
  const n = (count: number, word: string, plural = `${word}s`): string => `${count} ${count === 1 ? word : plural}`;
  return [
    `World at ${w.now}`,
    `  ${n(w.tasks.size, "task")} (${open} open), ${n(w.policies.length, "policy", "policies")}, ${n(w.users.length, "user")}, ${n(w.apps.length, "app")}, ${n(w.entitlements.length, "entitlement")}, ${n(w.groups.length, "group")}, ${n(w.grants.length, "grant")}`,
    ...(w.warnings.length > 0 ? [`  ${n(w.warnings.length, "warning")}: world.warnings`] : []),
    `  look further: task("1001"), policy("${w.policies[0]?.id ?? "pol-…"}"), world.tasks.get(id), world.users, world.index.entitlements`,
  ].join("\n");
}

const NAMES: readonly string[] = [...FUNCTIONS, "world"];

/**
 * The refusals the bound functions returned while the current line ran. A line that goes on past
 * one (`explain("9999").data.rules[0]`) throws a TypeError about `undefined` that says nothing of
 * why; the REPL prints these first, so the reason is on screen.
 */
type Failures = Shown<unknown>[];

function bind(context: Record<string, unknown>, session: ReplSession, failures: Failures): void {
  for (const name of FUNCTIONS) {
    const f = session.api[name] as (...args: unknown[]) => unknown;
    const recorded = (...args: unknown[]): unknown => {
      const r = f(...args);
      if (r instanceof Shown && !r.ok) failures.push(r);
      return r;
    };
    Object.defineProperty(recorded, "name", { value: name });
    Object.defineProperty(context, name, { value: recorded, writable: true, enumerable: false, configurable: true });
  }
  // A getter, so `world` is always the current world, after reset/comment/undo/.world alike.
  Object.defineProperty(context, "world", { get: () => session.world, enumerable: false, configurable: true });
}

function banner(session: ReplSession, source: string | undefined): string {
  const w = session.world;
  return `policy-sim REPL on ${source ?? "a world"}: ${w.tasks.size} tasks, ${w.policies.length} policies, now ${w.now}\n` + `Try explain("1001"). .help lists the functions; Tab completes ids inside strings.\n`;
}

/**
 * Starts the REPL.
 *
 * @example
 * ```ts
 * const loaded = loadWorld(JSON.parse(readFileSync("fixtures/world.json", "utf8")));
 * if (loaded.ok) await startRepl({ world: loaded.value, source: "fixtures/world.json" }).closed;
 * // > explain("1001")
 * // Task 1001 "Grant …" (grant, TASK_STATE_OPEN) …
 * ```
 */
export function startRepl(options: StartReplOptions): RunningRepl {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const terminal = options.terminal ?? ("isTTY" in output && output.isTTY === true);
  const useColors = options.useColors ?? terminal;
  const files: SessionFiles = options.files ?? { readFile: (p) => readFileSync(p, "utf8"), writeFile: (p, s) => writeFileSync(p, s) };
  const session = createSession(options.world, {
    files,
    color: useColors,
    ...(options.source === undefined ? {} : { source: options.source }),
    whatIf: options.whatIf ?? whatIfBinding,
  });

  output.write(banner(session, options.source));
  // A world printed whole is thousands of lines: the REPL shows its summary instead.
  const writer = (v: unknown): string => (isWorld(v) ? worldSummary(v) : inspect(v, { colors: useColors, showProxy: true }));
  const server = start({ prompt: options.prompt ?? "policy-sim> ", input, output, terminal, useColors, ignoreUndefined: true, writer });

  // Outside strings, our names first and then Node's own completion (properties, globals), so
  // `world.tas<Tab>` still works.
  type Callback = (err: Error | null, result: [string[], string]) => void;
  const builtin: unknown = server.completer;
  const completer = (line: string, callback: Callback): void => {
    const ours = completeLine(line, session.world, NAMES);
    if (ours[0].length > 0 || openStringAt(line) >= 0 || typeof builtin !== "function") return callback(null, ours);
    (builtin as (l: string, cb: Callback) => void).call(server, line, callback);
  };
  Object.defineProperty(server, "completer", { value: completer, writable: true, configurable: true });

  const failures: Failures = [];
  bind(server.context, session, failures);
  // `.clear` gives the REPL a fresh context; the functions must be there too.
  server.on("reset", (context: Record<string, unknown>) => bind(context, session, failures));
  // Each line starts with none recorded.
  const evaluate = server.eval;
  const evalFresh: typeof evaluate = (code, context, file, done) => {
    failures.length = 0;
    evaluate.call(server, code, context, file, done);
  };
  Object.defineProperty(server, "eval", { value: evalFresh, writable: true, configurable: true });
  // What a line throws goes to the REPL's domain (node:repl's `_domain`, which prints it); the
  // refusals of the line go out just before it.
  const domain: unknown = (server as unknown as { _domain?: unknown })._domain;
  if (typeof domain === "object" && domain !== null && typeof (domain as { prependListener?: unknown }).prependListener === "function") {
    (domain as NodeJS.EventEmitter).prependListener("error", (error: unknown) => {
      if (error instanceof Recoverable) return;
      for (const f of failures) output.write(`${f.text} (returned by a call on this line; its .data is { code, message })\n`);
      failures.length = 0;
      // `explainn("1001")`: a misspelt function of the REPL is named before node's ReferenceError.
      // The line ran in the REPL's own context: its ReferenceError is of another realm, told by name.
      const e = error as { name?: unknown; message?: unknown } | null;
      const missing = e?.name === "ReferenceError" && typeof e.message === "string" ? /^(\S+) is not defined$/.exec(e.message)?.[1] : undefined;
      const near = missing === undefined ? undefined : closest(missing, NAMES);
      if (near !== undefined) output.write(`${missing} is no function of this REPL: did you mean ${near}? (.help lists them)\n`);
    });
  }

  const say = (text: string): void => {
    output.write(`${text}\n`);
    server.displayPrompt();
  };
  server.defineCommand("world", {
    help: "Load another world file (.undo comes back)",
    action: (path: string) => say(String(session.load(path))),
  });
  server.defineCommand("undo", {
    help: "Go back to the world before the last change",
    action: () => say(String(session.api.undo())),
  });
  server.defineCommand("help", {
    help: "List the bound functions and the commands",
    action: () => {
      const commands = Object.entries(server.commands)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([name, c]) => `.${name.padEnd(51)} ${c?.help ?? ""}`);
      say([...HELP, "", ...commands].join("\n"));
    },
  });

  const closed = new Promise<void>((resolve) => server.once("exit", () => resolve()));
  return { server, session, closed };
}
