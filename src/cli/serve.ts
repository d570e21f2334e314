/**
 * `policy-sim serve`: the HTTP face (`policy-sim/http`) on a world file, until SIGINT or SIGTERM.
 * The process binding lives in the IO's `onShutdown`, so tests stop the server the same way a
 * Ctrl-C does, without signalling the test runner.
 *
 * Shutdown: the first signal writes `--out` at once, then lets requests in progress finish for at
 * most `--shutdown-timeout`, and writes `--out` again if they changed the world. A second signal
 * cuts the wait short and still writes. Every write goes to a temporary file renamed over `--out`,
 * so the file is always a whole world: a write that fails is reported and the last good file kept.
 */
import { shellWord } from "../text/shell-word.js";
import type { ConnectionLimits, RunningServer, TlsFiles } from "../http/server.js";
import { DEFAULT_CONNECTION_LIMITS, serve } from "../http/server.js";
import { createWorldStore, DEFAULT_MAX_AUDIT_EVENTS } from "../http/world-store.js";
import type { World } from "../world/world.js";
import { checkOutPath, type CliIO, CliInputError, type Command, EXIT, isStreamPath, parseCount, parseSeconds, plural, type ShutdownSignal, printJson, readWorld, str, writeWorldFile } from "./command.js";

export { parseCount, parseSeconds } from "./command.js";

/**
 * A `--port` value as a TCP port (0 picks a free one); throws {@link CliInputError} otherwise.
 *
 * @example
 * ```ts
 * parsePort("8080"); // 8080
 * parsePort(undefined); // 8080, the default
 * ```
 */
export function parsePort(value: string | undefined): number {
  if (value === undefined) return 8080;
  const n = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n > 65535) throw new CliInputError(`--port must be a number from 0 to 65535, not "${value}"`);
  return n;
}

function listenProblem(e: unknown, host: string, port: number): string {
  const code = typeof e === "object" && e !== null && "code" in e ? String(e.code) : "";
  const where = `${host}:${port}`;
  // Not a listening problem: the files given to --tls-cert/--tls-key.
  if (e instanceof Error && e.message.startsWith("serve: tls: ")) return `--tls-cert/--tls-key: ${e.message.slice("serve: tls: ".length)}`;
  if (code === "EADDRINUSE") return `cannot listen on ${where}: the port is in use (try --port 0 for a free one)`;
  if (code === "EACCES") return `cannot listen on ${where}: permission denied (ports below 1024 need privileges)`;
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND") return `cannot listen on ${where}: no such local address`;
  return `cannot listen on ${where}: ${e instanceof Error ? e.message : String(e)}`;
}

/** `--tls-cert` and `--tls-key` read, both or neither; throws {@link CliInputError} saying which is missing or unreadable. */
function readTls(io: CliIO, cert: string | undefined, key: string | undefined): TlsFiles | undefined {
  if (cert === undefined && key === undefined) return undefined;
  if (cert === undefined || key === undefined)
    throw new CliInputError(`--tls-cert and --tls-key go together: give ${cert === undefined ? "--tls-cert <certificate.pem>" : "--tls-key <private-key.pem>"} too`);
  const read = (flag: string, path: string): string => {
    try {
      return io.readFile(path);
    } catch (e: unknown) {
      throw new CliInputError(`${flag}: cannot read ${path}: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  return { cert: read("--tls-cert", cert), key: read("--tls-key", key) };
}

/** The default `--shutdown-timeout`: how long requests in progress may take after the first signal. */
const DEFAULT_SHUTDOWN_MS = 10_000;

/**
 * Writes the world to `path` whole or not at all: a temporary file beside it, renamed over it.
 * Returns the problem, or `undefined` when written; on failure the previous file is untouched.
 */
function writeWorldAtomically(io: CliIO, path: string, world: World, attempt: number): string | undefined {
  // The process id in the name: two servers saving to one --out must not write one temporary file.
  const temporary = `${path}.tmp-${process.pid}-${attempt}`;
  try {
    // world-io's writer (streamed when the IO can), to a temporary file first.
    if (!io.rename) {
      writeWorldFile(io, path, world);
      return undefined;
    }
    writeWorldFile(io, temporary, world);
    io.rename(temporary, path);
    return undefined;
  } catch (e: unknown) {
    try {
      io.removeFile?.(temporary);
    } catch {
      // Nothing more to do: the message below says what failed.
    }
    return e instanceof Error ? e.message : String(e);
  }
}

/**
 * The `serve` command.
 *
 * @example
 * ```ts
 * await runCli(["serve", "--world", "fixtures/world.json", "--port", "0"], io); // resolves after io.onShutdown fires
 * ```
 */
export const serveCommand: Command = {
  usage:
    "policy-sim serve --world <file> [--port <n>] [--host <addr>] [--out <file>] [--json] [--header-timeout <s>] [--request-timeout <s>] " +
    "[--keep-alive-timeout <s>] [--max-connections <n>] [--shutdown-timeout <s>] [--max-audit-events <n>] [--tls-cert <file> --tls-key <file>] [--connectors-complete] [--clock world|system]",
  summary: "serve the service's API (task actions, task creation, reads, policy edits, OAuth token) on a world until Ctrl-C",
  help: [
    "--port <n>                TCP port, default 8080; 0 picks a free one (the URL printed says which)",
    "--host <addr>             address to listen on, default 127.0.0.1 (not reachable from the network)",
    "--out <file>              on shutdown, write the world with every accepted action to this file",
    "                          (written whole: a temporary file renamed over it; a failed write keeps the last good file);",
    "                          checked at start: its directory must exist and take new files, and it must not be a directory",
    "--json                    print { url } instead of the banner",
    "--tls-cert <file>         serve HTTPS with this PEM certificate (chain) — for clients that only speak HTTPS;",
    "--tls-key <file>          and its PEM private key (both or neither; `openssl req -x509` makes a pair)",
    `--header-timeout <s>      seconds a client may take to send a request's headers, default ${DEFAULT_CONNECTION_LIMITS.headersTimeoutMs / 1000}`,
    "                          (also a connection that sends nothing at all)",
    `--request-timeout <s>     seconds a client may take to send a whole request, default ${DEFAULT_CONNECTION_LIMITS.requestTimeoutMs / 1000}`,
    `--keep-alive-timeout <s>  seconds an idle keep-alive connection is kept, default ${DEFAULT_CONNECTION_LIMITS.keepAliveTimeoutMs / 1000}`,
    `--max-connections <n>     connections open at once, default ${DEFAULT_CONNECTION_LIMITS.maxConnections}; over it, the connection idle the longest is closed`,
    `--shutdown-timeout <s>    seconds requests in progress may take after Ctrl-C, default ${DEFAULT_SHUTDOWN_MS / 1000}; a second Ctrl-C stops at once`,
    `--max-audit-events <n>    audit events kept for POST /api/v1/task/audits, default ${DEFAULT_MAX_AUDIT_EVENTS.toLocaleString("en")}; past it the oldest`,
    "                          are dropped (the world, and so --out, keeps every comment and step)",
    "--connectors-complete     connectors finish provisioning on their own, as the service's do: right after the",
    "                          write that brings a task to a connector provision step, the step completes (the",
    "                          write's answer shows it running, the next read the task closed), so a client that",
    "                          polls a request (cone get --wait) sees it granted; tasks already at such a step",
    "                          complete when the server starts; default: the step waits for a report",
    "--clock world|system      world (default): actions happen at the world's now, which stays put (reproducible);",
    "                          system: actions happen at the wall clock, and time passes in the world as in the",
    "                          service — the world's clock moves to now at start and before each request (at most",
    "                          once a second), and the waits, escalations and grant ends due fire (as tick does)",
    "",
    "Routes: the service's task actions, task creation (POST /api/v1/task/grant, /revoke, /offboarding),",
    "task/directory/policy reads and searches, policy edits and POST /auth/v1/token (README: \"Point your",
    "SDK at the simulation\"), authenticated with `Authorization: Bearer <token>`: a token from",
    "/auth/v1/token (register a client with `policy-sim client add`) or from the world's tokens.",
    "Stops on SIGINT or SIGTERM.",
    "",
    "  policy-sim serve --world fixtures/world.json --port 8080",
    "  curl -X POST -H 'authorization: Bearer tok-super' -H 'content-type: application/json' -d '{\"comment\":\"hi\"}' http://127.0.0.1:8080/api/v1/tasks/1001/action/comment",
  ],
  options: {
    world: { type: "string" },
    port: { type: "string" },
    host: { type: "string" },
    out: { type: "string" },
    json: { type: "boolean" },
    "header-timeout": { type: "string" },
    "request-timeout": { type: "string" },
    "keep-alive-timeout": { type: "string" },
    "max-connections": { type: "string" },
    "shutdown-timeout": { type: "string" },
    "max-audit-events": { type: "string" },
    "tls-cert": { type: "string" },
    "tls-key": { type: "string" },
    "connectors-complete": { type: "boolean" },
    clock: { type: "string" },
  },
  async run({ values }, io) {
    const out = str(values["out"]);
    // At start, not at Ctrl-C: a server that accepted an hour of writes must not find out then
    // that they have nowhere to go. A temporary file is made and removed in --out's directory,
    // which is also what each save's rename needs; --out itself is left as it is.
    checkOutPath(io, "--out", out, "replace");
    const world = readWorld(io, str(values["world"]));
    const port = parsePort(str(values["port"]));
    const host = str(values["host"]) ?? "127.0.0.1";
    const limits: Required<ConnectionLimits> = {
      headersTimeoutMs: parseSeconds("--header-timeout", str(values["header-timeout"]), DEFAULT_CONNECTION_LIMITS.headersTimeoutMs),
      requestTimeoutMs: parseSeconds("--request-timeout", str(values["request-timeout"]), DEFAULT_CONNECTION_LIMITS.requestTimeoutMs),
      keepAliveTimeoutMs: parseSeconds("--keep-alive-timeout", str(values["keep-alive-timeout"]), DEFAULT_CONNECTION_LIMITS.keepAliveTimeoutMs),
      maxConnections: parseCount("--max-connections", str(values["max-connections"]), DEFAULT_CONNECTION_LIMITS.maxConnections),
    };
    if (limits.headersTimeoutMs > limits.requestTimeoutMs)
      throw new CliInputError(`--header-timeout (${limits.headersTimeoutMs / 1000}) must not exceed --request-timeout (${limits.requestTimeoutMs / 1000})`);
    const shutdownMs = parseSeconds("--shutdown-timeout", str(values["shutdown-timeout"]), DEFAULT_SHUTDOWN_MS);
    if (!io.onShutdown) throw new CliInputError("serve needs a process to run in (no shutdown signal to wait for)");
    const maxEvents = parseCount("--max-audit-events", str(values["max-audit-events"]), DEFAULT_MAX_AUDIT_EVENTS);
    const tls = readTls(io, str(values["tls-cert"]), str(values["tls-key"]));
    const clockMode = str(values["clock"]) ?? "world";
    if (clockMode !== "world" && clockMode !== "system") throw new CliInputError(`--clock is "world" (the world's clock, moved only by tick: reproducible) or "system" (the wall clock: timers fire as it passes), not "${clockMode}"`);
    // The wall clock: actions happen when they are sent, and the world's timers fire as time passes.
    const wallClock = (): string => new Date(io.now ? io.now() : Date.now()).toISOString();
    // A refused tick leaves the world's clock where it was: said on stderr, once per reason.
    const onTimersRefused = (r: { now: string; worldNow: string; code: string; message: string }): void =>
      io.stderr(`the clock could not move to ${r.now}: ${r.code}: ${r.message}; the world stays at ${r.worldNow}, and what falls due after it does not fire until this is fixed\n`);
    const timing = clockMode === "system" ? { clock: wallClock, timersFire: true, onTimersRefused } : {};
    const store = createWorldStore(world, { maxEvents });
    let server: RunningServer;
    try {
      server = await serve({ store, port, host, ...limits, ...timing, ...(tls === undefined ? {} : { tls }), ...(values["connectors-complete"] === true ? { connectorsComplete: true } : {}) });
    } catch (e: unknown) {
      throw new CliInputError(listenProblem(e, host, port));
    }
    // A pulled world keeps no tokens or clients: every request would answer 401, so say so at once.
    if (Object.keys(world.tokens).length === 0 && world.clients.length === 0) {
      const given = str(values["world"]);
      // A stream cannot be read again: then the command names the file to save it to.
      const file = given === undefined || isStreamPath(given) ? "<world file>" : given;
      io.stderr(
        `warning: the world has no tokens and no API clients, so every API request answers 401 (only /auth/v1/token is open): register a client with \`policy-sim client add --world ${shellWord(file)} --user <userId> --out <file>\` and serve that file (a pulled world keeps neither)\n`,
      );
    }
    if (values["json"] === true) printJson(io, { url: server.url });
    else {
      io.stdout(`policy-sim serving ${world.tasks.size} tasks at ${server.url}\n`);
      io.stdout(`  POST ${server.url}/api/v1/tasks/{task_id}/action/reset    (and every other task action: src/http/README.md)\n`);
      // Without the flag an approved grant stops at its connector step: say so where a client's user looks first.
      if (values["connectors-complete"] !== true)
        io.stdout("  connector provision steps wait for a report; --connectors-complete lets connectors finish them, as the service's do\n");
      io.stdout(
        clockMode === "system"
          ? `  the clock is the wall clock: the world's moved from ${world.now} to now, and waits, escalations and grant ends fire as time passes\n`
          : `  the clock stays at the world's ${world.now}; --clock system runs it on the wall clock, timers firing as time passes\n`,
      );
      io.stdout("  Ctrl-C to stop\n");
    }
    const onShutdown = io.onShutdown.bind(io);
    const nextSignal = (): { signal: Promise<ShutdownSignal>; stop: () => void } => {
      let stop = (): void => undefined;
      const signal = new Promise<ShutdownSignal>((resolve) => {
        stop = onShutdown(resolve);
      });
      return { signal, stop: () => stop() };
    };

    const first = nextSignal();
    const signal = await first.signal;
    first.stop();
    // A second signal from here on cuts the wait for requests in progress short.
    const second = nextSignal();
    let attempt = 0;
    let failed = false;
    let written: World | undefined;
    const save = (): void => {
      if (out === undefined) return;
      const current = store.get();
      if (current === written) return;
      const problem = writeWorldAtomically(io, out, current, attempt++);
      if (problem === undefined) written = current;
      else {
        failed = true;
        io.stderr(`could not write ${out}: ${problem}; ${out} keeps its last good contents\n`);
      }
    };
    // The accepted actions are saved before anything waits on a client.
    save();
    const closing = server.close({ deadlineMs: shutdownMs });
    const forced = await Promise.race([closing.then(() => false), second.signal.then(() => true)]);
    second.stop();
    if (forced) await server.close({ deadlineMs: 0 });
    // What the requests in progress accepted meanwhile.
    save();
    const dropped = store.droppedEvents();
    const events = `${plural(store.events().length + dropped, "audit event")}${dropped > 0 ? ` (the oldest ${dropped.toLocaleString("en")} no longer kept)` : ""}`;
    io.stderr(
      `stopped on ${signal}${forced ? " (twice: requests in progress were cut off)" : ""} after ${events}` +
        `${out === undefined || failed ? "" : `; world written to ${out}`}\n`,
    );
    return failed ? EXIT.findings : EXIT.ok;
  },
};
