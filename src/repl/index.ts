/**
 * The policy-sim REPL: a `node:repl` with a world loaded and the API bound (`policy-sim repl`).
 * The session and the completer are exported too, for embedding them in another shell and for
 * tests that need no TTY.
 *
 * @example
 * ```ts
 * import { startRepl } from "./repl/index.js";
 * const loaded = loadWorld(JSON.parse(readFileSync("fixtures/world.json", "utf8")));
 * if (loaded.ok) await startRepl({ world: loaded.value, source: "fixtures/world.json" }).closed;
 * ```
 * @packageDocumentation
 */
export { completeLine, openStringAt } from "./complete.js";
export type { Completion } from "./complete.js";
export { createSession, HELP, readWorldFile } from "./session.js";
export type { ActionData, ActionOptions, ReplApi, ReplSession, SessionFiles, SessionOptions, WhatIfBinding } from "./session.js";
export { failed, Shown } from "./show.js";
export { startRepl } from "./start.js";
export type { RunningRepl, StartReplOptions } from "./start.js";
