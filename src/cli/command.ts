/**
 * What every CLI command shares: the IO it is given, exit codes, the command shape, and the readers
 * of input files that turn every failure into one readable line (exit 2) instead of a stack trace.
 */
import { dirname, join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { ok, type Result } from "../result.js";
import { loadWorld, loadWorldChunksIndexed } from "../world/load-world.js";
import type { Diagnostic } from "../world/read.js";
import type { ByteRange } from "../world/world-splitter.js";
import { worldJsonChunks } from "../world/save-world.js";
import { replaceInWorld, type World } from "../world/world.js";
import { isRealTimestamp, utcTimestamp } from "../codec/schema.js";
import type { WriteMode } from "./check-writable.js";

/**
 * A signal that asks a long-running command (serve) to stop.
 *
 * @example
 * ```ts
 * io.onShutdown?.((signal: ShutdownSignal) => console.error(`stopping on ${signal}`));
 * ```
 */
export type ShutdownSignal = "SIGINT" | "SIGTERM";

/**
 * What the CLI reads and writes; the real process in `main.ts`, buffers in tests. The optional
 * members are only needed by the long-running commands: `serve` waits on `onShutdown`, `repl`
 * needs `stdin`/`output`, the what-if progress bar needs `stderrIsTTY`.
 *
 * @example
 * ```ts
 * const out: string[] = [];
 * await runCli(["check", "true"], { stdout: (s) => out.push(s), stderr: () => {}, readFile: () => "", writeFile: () => {}, isTTY: false });
 * ```
 */
export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  readFile(path: string): string;
  writeFile(path: string, text: string): void;
  /**
   * Writes a file from chunks, never holding it whole (worlds over 512 MiB). Without it, the
   * chunks are joined and given to `writeFile`.
   */
  writeFileChunks?(path: string, chunks: Iterable<string>): void;
  /** Reads a file as byte chunks (worlds over 512 MiB); without it, `readFile` is used. */
  readFileChunks?(path: string): Iterable<Uint8Array>;
  /** Remembers loaded worlds so a later `explain` need not load the whole file (cli/world-cache.ts). */
  readonly worldCache?: WorldCacheIO;
  /** Renames a file, replacing `to` (atomic on one file system): for writing a file whole or not at all. */
  rename?(from: string, to: string): void;
  /** Removes a file if it exists (a temporary file left by a failed write). */
  removeFile?(path: string): void;
  /**
   * Throws (an error with a Node `code`) when `path` cannot be written as `how` says, without
   * creating or truncating it (cli/check-writable.ts on the real disk). Without it, a bad path
   * shows only when the file is written.
   */
  checkWritable?(path: string, how: WriteMode): void;
  /** stdout is a terminal: colour the text output. */
  readonly isTTY: boolean;
  /** stderr is a terminal: progress bars may redraw in place. */
  readonly stderrIsTTY?: boolean;
  /** Input for the REPL. */
  readonly stdin?: Readable;
  /** The REPL's output stream (stdout as a stream). */
  readonly output?: Writable;
  /** Calls `handler` once on SIGINT or SIGTERM; returns a function that stops listening. */
  onShutdown?(handler: (signal: ShutdownSignal) => void): () => void;
  /** Milliseconds, for throttling progress output; defaults to no throttling. */
  now?(): number;
  /** Environment variables (`pull` reads its credentials there). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** HTTP for `pull`; the global `fetch` in the process. */
  readonly fetch?: typeof fetch;
  /** A folder's entries, for globs (`policy-sim test 'cases/**\/*.yaml'`); throws when it cannot be read. */
  listDir?(path: string): ReadonlyArray<{ readonly name: string; readonly isDirectory: boolean }>;
  /**
   * Calls `onChange` when any of the files changes, is replaced (an editor's save by rename) or,
   * for a folder among the paths, when anything in it does (`--watch`); returns a function that
   * stops watching.
   */
  watch?(paths: readonly string[], onChange: () => void): () => void;
}

/**
 * The world cache as the CLI uses it (cli/world-cache.ts binds it to the file system).
 *
 * @example
 * ```ts
 * const world = io.worldCache?.forTask("big.json", "1001") ?? readWorld(io, "big.json");
 * ```
 */
export interface WorldCacheIO {
  /** The file's identity before reading it; undefined when the cache is off. */
  stamp(path: string): unknown;
  /** Stores the loaded world's skeleton and where its tasks lie, when the file is still `stamp`. */
  remember(path: string, stamp: unknown, world: World, taskRanges: ReadonlyMap<string, ByteRange>): void;
  /** A world with the one task, from the cache, or undefined (then load the file). */
  forTask(path: string, taskRef: string): World | undefined;
}

/**
 * Exit codes of the CLI: 0 ok; 1 findings, a refused action or a failed simulation; 2 bad input;
 * 70 an internal failure of policy-sim itself (a bug to report; `EX_SOFTWARE` of sysexits.h), so a
 * CI gate never mistakes a crash for a finding.
 *
 * @example
 * ```ts
 * if ((await runCli(argv, io)) === EXIT.badInput) console.error("fix the command line");
 * ```
 */
export const EXIT = { ok: 0, findings: 1, badInput: 2, internal: 70 } as const;

/**
 * Parsed flags as `node:util` `parseArgs` gives them.
 *
 * @example
 * ```ts
 * const args: CommandArgs = { values: { world: "w.json", json: true }, positionals: [] };
 * ```
 */
export interface CommandArgs {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/**
 * A command: its flags (node:util parseArgs options), usage line, summary, optional longer help,
 * and body.
 *
 * @example
 * ```ts
 * const hello: Command = { usage: "policy-sim hello", summary: "say hi", options: {}, run: (_a, io) => { io.stdout("hi\n"); return EXIT.ok; } };
 * ```
 */
export interface Command {
  readonly usage: string;
  readonly summary: string;
  /** Lines shown by `policy-sim <cmd> --help` under the usage: flags, exit codes, examples. */
  readonly help?: readonly string[];
  /** What the positional arguments are ("the condition"); without it, positionals are refused. */
  readonly positionals?: string;
  readonly options: Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }>;
  run(args: CommandArgs, io: CliIO): Promise<number> | number;
}

/**
 * A usage or input problem: reported as one line (plus, for an invalid world, its first
 * diagnostics), exit code 2.
 *
 * @example
 * ```ts
 * throw new CliInputError("--task <id|numericId> is required");
 * ```
 */
export class CliInputError extends Error {}

/**
 * A file given on the command line that cannot be used (missing, not JSON, not a valid world).
 * Still exit 2, but without the usage line: the flags were right, the file is not.
 *
 * @example
 * ```ts
 * throw new InputFileError("cannot read the world file w.json: no such file");
 * ```
 */
export class InputFileError extends CliInputError {}

/**
 * A string flag's value, or undefined.
 *
 * @example
 * ```ts
 * const out = str(values["out"]);
 * ```
 */
export const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/**
 * Prints a value as indented JSON on stdout.
 *
 * @example
 * ```ts
 * printJson(io, { findings: [] });
 * ```
 */
export function printJson(io: CliIO, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Why a file could not be read, in words: fs errors read "ENOENT: no such file or directory, open
 * 'x'"; the code alone says it better.
 *
 * @example
 * ```ts
 * readProblem(Object.assign(new Error("ENOENT: …"), { code: "ENOENT" })); // "no such file"
 * ```
 */
export function readProblem(e: unknown): string {
  const code = typeof e === "object" && e !== null && "code" in e ? String(e.code) : "";
  if (code === "ENOENT") return "no such file";
  if (code === "EISDIR") return "it is a directory";
  if (code === "EACCES") return "permission denied";
  return e instanceof Error ? e.message : String(e);
}

/**
 * Reads and parses a JSON file; throws {@link CliInputError} naming the file and what is wrong.
 * `what` says what the file is for ("world", "policy", "script") in the message.
 *
 * @example
 * ```ts
 * const policy: unknown = readJsonFile(io, "draft.json", "policy");
 * ```
 */
export function readJsonFile(io: CliIO, path: string, what: string): unknown {
  let text: string;
  try {
    const read = readFileBytes(io, path, what);
    text = typeof read === "string" ? read : new TextDecoder().decode(read);
  } catch (e: unknown) {
    if (e instanceof InputFileError) throw e;
    throw new InputFileError(`cannot read the ${what} file ${path}: ${readProblem(e)}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e: unknown) {
    throw new InputFileError(`the ${what} file ${path} is not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * Whether a path names a stream read once (`-`, `/dev/stdin`, a process substitution under
 * `/dev/fd` or `/proc`), not a file a command the CLI suggests could read again.
 *
 * @example
 * ```ts
 * isStreamPath("/dev/stdin"); // true
 * isStreamPath("plan.json"); // false
 * ```
 */
export function isStreamPath(path: string): boolean {
  return path === "-" || path.startsWith("/dev/") || path.startsWith("/proc/");
}

/**
 * The bytes of a file when the IO reads bytes (`readFileChunks`), else its text as `readFile`
 * decodes it (UTF-8): for readers that must see the encoding (a UTF-16 plan, a binary file). A read
 * error becomes an {@link InputFileError} naming the file, as in {@link readJsonFile}.
 *
 * @example
 * ```ts
 * const file: Uint8Array | string = readFileBytes(io, "plan.json", "Terraform plan");
 * ```
 */
export function readFileBytes(io: CliIO, path: string, what: string): Uint8Array | string {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    if (!io.readFileChunks) return io.readFile(path);
    for (const c of io.readFileChunks(path)) {
      size += c.length;
      // Stopped here, not read on: /dev/zero as a plan file held 10 GB (hostile review).
      if (size > MAX_INPUT_FILE_BYTES) break;
      chunks.push(c);
    }
  } catch (e: unknown) {
    throw new InputFileError(`cannot read the ${what} file ${path}: ${readProblem(e)}`);
  }
  if (size > MAX_INPUT_FILE_BYTES) throw new InputFileError(`the ${what} file ${path} is larger than ${MAX_INPUT_FILE_BYTES / 1024 ** 2} MiB, more than any ${what} file this command reads`);
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return bytes;
}

/** The largest input file other than a world (a policy, an edit, a plan, a script) the CLI reads: 256 MiB. */
export const MAX_INPUT_FILE_BYTES = 256 * 1024 ** 2;

/**
 * Writes `world` to `path` as a world file, streamed when the IO can (see {@link worldJsonChunks}):
 * what `--out` does in every command. Throws what the IO throws; {@link writeOutput} turns that
 * into a message.
 *
 * @example
 * ```ts
 * writeWorldFile(io, "after.json", step.world);
 * ```
 */
export function writeWorldFile(io: CliIO, path: string, world: World): void {
  if (io.writeFileChunks) io.writeFileChunks(path, worldJsonChunks(world));
  else io.writeFile(path, [...worldJsonChunks(world)].join(""));
}

const codeOf = (e: unknown): string => (typeof e === "object" && e !== null && "code" in e ? String(e.code) : "");

/**
 * Why a file cannot be written, and what to do about it, from a file-system error: the OS's reason
 * in words, its code, and the way out. A full disk or a missing directory is the environment's
 * problem, never a bug of ours to report.
 *
 * @example
 * ```ts
 * writeProblem(Object.assign(new Error("…"), { code: "ENOSPC" }), "/dev/full");
 * // "no space left on the device (ENOSPC); free some space, or write to another disk"
 * ```
 */
export function writeProblem(e: unknown, path: string): string {
  const code = codeOf(e);
  const dir = dirname(path);
  switch (code) {
    case "ENOENT":
      return `the directory ${dir} does not exist (ENOENT); create it first, or choose a path in an existing directory`;
    case "ENOTDIR":
      return `a part of ${dir} is not a directory (ENOTDIR); choose a path in an existing directory`;
    case "EISDIR":
      return `it is a directory (EISDIR); give a file path, such as ${join(path, "world.json")}`;
    case "ENOTREG":
      return "it is not a regular file but a device, a pipe or a socket, and it would be replaced whole (a temporary file renamed over it); give the path of a regular file";
    case "EACCES":
    case "EPERM":
      return `permission denied (${code}); choose a path you can write, or change the permissions of ${dir}`;
    case "EROFS":
      return "the file system is read-only (EROFS); choose a path on a writable one";
    case "ENOSPC":
      return "no space left on the device (ENOSPC); free some space, or write to another disk";
    case "EDQUOT":
      return "the disk quota is exhausted (EDQUOT); free some space, or write to another disk";
    default:
      return e instanceof Error ? e.message : String(e);
  }
}

/**
 * Checks before any work that `path`, given as `flag`, can be written (see {@link CliIO.checkWritable});
 * throws {@link InputFileError} naming the flag, the path and the reason (exit 2) when it cannot.
 * A no-op for an IO that cannot tell (memory).
 *
 * @example
 * ```ts
 * checkOutPath(io, "--out", str(values["out"]), "in-place"); // before loading the world
 * ```
 */
export function checkOutPath(io: CliIO, flag: string, path: string | undefined, how: WriteMode): void {
  if (path === "") throw new CliInputError(`${flag} needs a file path, not an empty string`);
  if (path === undefined || !io.checkWritable) return;
  try {
    io.checkWritable(path, how);
  } catch (e: unknown) {
    throw new InputFileError(`cannot write ${flag} ${path}: ${writeProblem(e, path)}`);
  }
}

/**
 * Runs `write` (a write of `path`, given as `flag`); a failure of the file system (a full disk, a
 * directory removed meanwhile) becomes {@link InputFileError} naming the path and the reason (exit 2).
 *
 * @example
 * ```ts
 * writeOutput("--out", out, () => writeWorldFile(io, out, world));
 * ```
 */
export function writeOutput(flag: string, path: string, write: () => void): void {
  try {
    write();
  } catch (e: unknown) {
    // Only the system's errors (ENOSPC, EACCES…) are the environment's; anything else, Node's own
    // ERR_… codes included, is still a bug of ours and exits 70.
    if (!/^E[A-Z0-9]+$/.test(codeOf(e))) throw e;
    throw new InputFileError(`cannot write ${flag} ${path}: ${writeProblem(e, path)}`);
  }
}

/**
 * The chunks of a file, with a read error turned into an {@link InputFileError} naming the file.
 *
 * @example
 * ```ts
 * const loaded = loadWorldChunks(readChunks(io.readFileChunks, "world.json"));
 * ```
 */
export function* readChunks(read: (path: string) => Iterable<Uint8Array>, path: string): Generator<Uint8Array> {
  try {
    yield* read(path);
  } catch (e: unknown) {
    throw new InputFileError(`cannot read the world file ${path}: ${readProblem(e)}`);
  }
}

/** How many of an invalid world's diagnostics to show; the count of the rest follows. */
const SHOWN_DIAGNOSTICS = 5;

/**
 * One world warning as text, for stderr or a report.
 *
 * @example
 * ```ts
 * formatWorldWarning({ code: "UNKNOWN_FIELD_NEAR_KNOWN", path: "$.users[0].managerId", message: "…" });
 * // "warning UNKNOWN_FIELD_NEAR_KNOWN at $.users[0].managerId: …"
 * ```
 */
export function formatWorldWarning(d: Diagnostic): string {
  return `warning ${d.code} at ${d.path}: ${d.message}`;
}

/**
 * Reads and loads a world file; throws {@link CliInputError} with one readable line (and the first
 * diagnostics with their JSON paths, for a world that does not load). The world's warnings (probable
 * typos, which never stop a load) go to stderr unless `quiet` (a command that reports them itself).
 *
 * @example
 * ```ts
 * const world = readWorld(io, "fixtures/world.json");
 * ```
 */
export function readWorld(io: CliIO, path: string | undefined, options: { readonly quiet?: boolean } = {}): World {
  if (!path) throw new CliInputError("--world <file> is required");
  let loaded: Result<World, Diagnostic[]>;
  if (io.readFileChunks) {
    const stamp = io.worldCache?.stamp(path);
    const indexed = loadWorldChunksIndexed(readChunks(io.readFileChunks, path));
    if (indexed.ok) io.worldCache?.remember(path, stamp, indexed.value.world, indexed.value.taskRanges);
    loaded = indexed.ok ? ok(indexed.value.world) : indexed;
  } else loaded = loadWorld(readJsonFile(io, path, "world"));
  if (!loaded.ok) {
    const n = loaded.error.length;
    const shown = loaded.error.slice(0, SHOWN_DIAGNOSTICS).map((d) => `  ${d.path}: ${d.message}`);
    const more = n > SHOWN_DIAGNOSTICS ? `\n  … and ${n - SHOWN_DIAGNOSTICS} more` : "";
    throw new InputFileError(`${path} is not a valid world (${n} problem${n === 1 ? "" : "s"}):\n${shown.join("\n")}${more}`);
  }
  if (options.quiet !== true) for (const w of loaded.value.warnings) io.stderr(`${path}: ${formatWorldWarning(w)}\n`);
  return loaded.value;
}

/**
 * `n thing` or `n things`.
 *
 * @example
 * ```ts
 * plural(2, "task"); // "2 tasks"
 * ```
 */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/**
 * A duration flag in seconds (fractions allowed) as milliseconds; throws {@link CliInputError} otherwise.
 *
 * @example
 * ```ts
 * parseSeconds("--header-timeout", "2.5", 10_000); // 2500
 * parseSeconds("--header-timeout", undefined, 10_000); // 10000, the default
 * ```
 */
export function parseSeconds(flag: string, value: string | undefined, defaultMs: number): number {
  if (value === undefined) return defaultMs;
  const n = /^\d{1,6}(\.\d{1,3})?$/.test(value) ? Math.round(Number(value) * 1000) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new CliInputError(`${flag} must be a number of seconds greater than 0, such as 10 or 0.5, not "${value}"`);
  return n;
}

/**
 * A count flag as a positive integer; throws {@link CliInputError} otherwise.
 *
 * @example
 * ```ts
 * parseCount("--max-connections", "256", 1024); // 256
 * ```
 */
export function parseCount(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = /^\d{1,9}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new CliInputError(`${flag} must be a whole number greater than 0, not "${value}"`);
  return n;
}

/**
 * The world at a `--now` flag's time when one is given: the clock its conditions read (business
 * hours, a date), for `explain` and `test` alike; throws {@link CliInputError} for a value that is
 * no RFC 3339 timestamp.
 *
 * @example
 * ```ts
 * const world = worldAtClock(readWorld(io, path), values["now"]);
 * ```
 */
export function worldAtClock(world: World, now: unknown): World {
  if (now === undefined) return world;
  if (!isRealTimestamp(now)) throw new CliInputError(`--now must be an RFC 3339 timestamp such as "2026-11-23T22:30:00Z", not ${JSON.stringify(now)}`);
  return replaceInWorld(world, { now: utcTimestamp(now) });
}
