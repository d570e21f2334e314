/**
 * A {@link CliIO} over memory, for tests and for embedding the CLI: files in a map (falling back to
 * a reader you give, e.g. the real disk for fixtures), stdout and stderr collected as strings.
 */
import type { CliIO, ShutdownSignal } from "./command.js";

/**
 * An in-memory IO and what the CLI wrote to it.
 *
 * @example
 * ```ts
 * const io = memoryIO({ files: { "w.json": JSON.stringify(world) } });
 * const code = await runCli(["explain", "--world", "w.json", "--task", "1001"], io);
 * console.log(code, io.out(), io.err());
 * ```
 */
export interface MemoryIO extends CliIO {
  /** Everything written to stdout so far. */
  out(): string;
  /** Everything written to stderr so far. */
  err(): string;
  /** The files written, by path. */
  readonly written: Map<string, string>;
  /** Sends SIGINT or SIGTERM to whatever waits on `onShutdown`. */
  signal(signal: ShutdownSignal): void;
}

/**
 * Options of {@link memoryIO}.
 *
 * @example
 * ```ts
 * const options: MemoryIOOptions = { files: { "policy.json": "{}" }, fallback: (p) => readFileSync(p, "utf8") };
 * ```
 */
export interface MemoryIOOptions {
  readonly files?: Readonly<Record<string, string>>;
  /** Reads a path that is not among `files` (throw to say it does not exist). */
  readonly fallback?: (path: string) => string;
  readonly isTTY?: boolean;
  readonly stderrIsTTY?: boolean;
  readonly stdin?: CliIO["stdin"];
  readonly output?: CliIO["output"];
  readonly env?: CliIO["env"];
  readonly fetch?: CliIO["fetch"];
}

/**
 * Creates a {@link MemoryIO}.
 *
 * @example
 * ```ts
 * const io = memoryIO({ fallback: (p) => readFileSync(p, "utf8") });
 * await runCli(["lint", "--world", "fixtures/world.json"], io);
 * ```
 */
export function memoryIO(options: MemoryIOOptions = {}): MemoryIO {
  let out = "";
  let err = "";
  let ms = 0;
  const written = new Map<string, string>();
  const handlers = new Set<(signal: ShutdownSignal) => void>();
  return {
    stdout: (s) => {
      out += s;
    },
    stderr: (s) => {
      err += s;
    },
    readFile(path) {
      const text = written.get(path) ?? options.files?.[path];
      if (text !== undefined) return text;
      if (options.fallback) return options.fallback(path);
      throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: "ENOENT" });
    },
    writeFile(path, text) {
      written.set(path, text);
    },
    rename(from, to) {
      const text = written.get(from);
      if (text === undefined) throw Object.assign(new Error(`ENOENT: no such file or directory, rename '${from}' -> '${to}'`), { code: "ENOENT" });
      written.delete(from);
      written.set(to, text);
    },
    removeFile(path) {
      written.delete(path);
    },
    isTTY: options.isTTY ?? false,
    stderrIsTTY: options.stderrIsTTY ?? false,
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
    ...(options.output === undefined ? {} : { output: options.output }),
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    // A clock that advances on every read, so throttled progress output still shows.
    now: () => (ms += 1000),
    onShutdown(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    out: () => out,
    err: () => err,
    written,
    signal(signal) {
      for (const h of [...handlers]) h(signal);
    },
  };
}
