/**
 * `policy-sim serve`: the HTTP face (`policy-sim/http`) on a world file, until SIGINT or SIGTERM.
 * The process binding lives in the IO's `onShutdown`, so tests stop the server the same way a
 * Ctrl-C does, without signalling the test runner.
 */
import { serve, type RunningServer } from "../http/server.js";
import { createWorldStore } from "../http/world-store.js";
import { saveWorld } from "../world/save-world.js";
import { type CliIO, CliInputError, type Command, EXIT, plural, type ShutdownSignal, printJson, readWorld, str } from "./command.js";

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
  if (code === "EADDRINUSE") return `cannot listen on ${where}: the port is in use (try --port 0 for a free one)`;
  if (code === "EACCES") return `cannot listen on ${where}: permission denied (ports below 1024 need privileges)`;
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND") return `cannot listen on ${where}: no such local address`;
  return `cannot listen on ${where}: ${e instanceof Error ? e.message : String(e)}`;
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
  usage: "policy-sim serve --world <file> [--port <n>] [--host <addr>] [--out <file>] [--json]",
  summary: "serve the service's API (task actions, reads, policy edits, OAuth token) on a world until Ctrl-C",
  help: [
    "--port <n>       TCP port, default 8080; 0 picks a free one (the URL printed says which)",
    "--host <addr>    address to listen on, default 127.0.0.1 (not reachable from the network)",
    "--out <file>     on shutdown, write the world with every accepted action to this file",
    "--json           print { url } instead of the banner",
    "",
    "Routes: the service's task actions, task/directory/policy reads and searches, policy edits and",
    "POST /auth/v1/token (README: \"Point your SDK at the simulation\"), authenticated with",
    "`Authorization: Bearer <token>`: a token from /auth/v1/token (register a client with",
    "`policy-sim client add`) or from the world's tokens. Stops on SIGINT or SIGTERM.",
    "",
    "  policy-sim serve --world fixtures/world.json --port 8080",
    "  curl -X POST -H 'authorization: Bearer tok-super' -H 'content-type: application/json' -d '{\"comment\":\"hi\"}' http://127.0.0.1:8080/api/v1/tasks/1001/action/comment",
  ],
  options: { world: { type: "string" }, port: { type: "string" }, host: { type: "string" }, out: { type: "string" }, json: { type: "boolean" } },
  async run({ values }, io) {
    const world = readWorld(io, str(values["world"]));
    const port = parsePort(str(values["port"]));
    const host = str(values["host"]) ?? "127.0.0.1";
    const out = str(values["out"]);
    if (!io.onShutdown) throw new CliInputError("serve needs a process to run in (no shutdown signal to wait for)");
    const store = createWorldStore(world);
    let server: RunningServer;
    try {
      server = await serve({ store, port, host });
    } catch (e: unknown) {
      throw new CliInputError(listenProblem(e, host, port));
    }
    if (values["json"] === true) printJson(io, { url: server.url });
    else {
      io.stdout(`policy-sim serving ${world.tasks.size} tasks at ${server.url}\n`);
      io.stdout(`  POST ${server.url}/api/v1/tasks/{task_id}/action/reset    (and …/action/comment)\n`);
      io.stdout("  Ctrl-C to stop\n");
    }
    const onShutdown = io.onShutdown.bind(io);
    let unsubscribe = (): void => undefined;
    const signal = await new Promise<ShutdownSignal>((resolve) => {
      unsubscribe = onShutdown(resolve);
    });
    unsubscribe();
    await server.close();
    if (out !== undefined) io.writeFile(out, `${JSON.stringify(saveWorld(store.get()), null, 2)}\n`);
    io.stderr(`stopped on ${signal} after ${plural(store.events().length, "audit event")}${out === undefined ? "" : `; world written to ${out}`}\n`);
    return EXIT.ok;
  },
};
