/**
 * A cache that spares repeated CLI calls on one big world the full load (issue 13): after a world
 * file is loaded, the cache keeps the world without its tasks and comments (the directory, the
 * policies, the tenant, the clock: small), the warnings the load printed, and where each task lies
 * in the file. A later `explain` of one task reads that entry, finds the task's line in the
 * entry's index with one byte search (the index is never parsed whole), reads that task's bytes
 * from the world file and loads the skeleton with that one task, instead of reading and decoding
 * every task.
 *
 * Correctness first: an entry is used only while the file is the one it was made from. It records
 * the file's device, inode, size, modification time and change time (ctime) in nanoseconds, and a
 * SHA-256 of its first and last 64 KiB. The kernel sets a file's ctime on every change to it and
 * no call can set it back, so a changed file never matches an entry; the sample hash also catches
 * a file replaced by one with a forged stamp (a restored backup on another file system), and the
 * task read back must be the task asked for. The stamp is checked again after the task's bytes are
 * read, so a file changed meanwhile is not used either. Anything unexpected (no entry, a stale or
 * unreadable one) means the full load, never an error. Entries live in `$POLICY_SIM_CACHE_DIR`,
 * else `<tmpdir>/policy-sim-cache`, one per world path; `POLICY_SIM_CACHE=off` turns the cache off.
 *
 * An entry is one file, written to a temporary name and renamed: a header line (JSON: format, the
 * file's stamp and sample hash, the warnings, the skeleton's length), the skeleton (JSON), then
 * one line per task reference, `"<id or numericId as JSON>"\t<start>\t<end>`, ids before
 * numericIds (so an id wins over another task's equal numericId, as `findTask` decides).
 */
import { createHash } from "node:crypto";
import { closeSync, mkdirSync, openSync, readFileSync, readSync, realpathSync, renameSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { saveWorld } from "../world/save-world.js";
import { loadWorld } from "../world/load-world.js";
import type { Diagnostic } from "../world/read.js";
import { Table } from "../world/table.js";
import type { World } from "../world/world.js";
import type { ByteRange } from "../world/world-splitter.js";

/** What identifies one version of a file on disk. */
interface FileStamp {
  readonly dev: string;
  readonly ino: string;
  readonly size: string;
  readonly mtimeNs: string;
  readonly ctimeNs: string;
}

/** An entry's first line. */
interface Header {
  readonly format: 2;
  readonly file: FileStamp;
  /** SHA-256 (hex) of the file's first and last {@link SAMPLE_BYTES}. */
  readonly sample: string;
  /** What the full load warned about, printed again by a warm call. */
  readonly warnings: readonly Diagnostic[];
  /** Bytes of the skeleton's JSON, which follows the header line. */
  readonly skeletonBytes: number;
}

const FORMAT = 2;
const SAMPLE_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

function stampOf(path: string): FileStamp {
  const s = statSync(path, { bigint: true });
  return { dev: String(s.dev), ino: String(s.ino), size: String(s.size), mtimeNs: String(s.mtimeNs), ctimeNs: String(s.ctimeNs) };
}

function sameStamp(a: FileStamp, b: FileStamp): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
}

function cacheDir(env: NodeJS.ProcessEnv): string | undefined {
  if (env["POLICY_SIM_CACHE"] === "off") return undefined;
  return env["POLICY_SIM_CACHE_DIR"] ?? join(tmpdir(), "policy-sim-cache");
}

function entryPath(dir: string, worldPath: string): string {
  return join(dir, `${createHash("sha256").update(realpathSync(worldPath)).digest("hex").slice(0, 32)}.entry`);
}

/** `length` bytes of the open file `fd` from `start`, or undefined when the file is shorter. */
function readAt(fd: number, start: number, length: number): Uint8Array | undefined {
  const bytes = new Uint8Array(length);
  let read = 0;
  while (read < length) {
    const n = readSync(fd, bytes, read, length - read, start + read);
    if (n === 0) return undefined;
    read += n;
  }
  return bytes;
}

/** SHA-256 of the first and last {@link SAMPLE_BYTES} of the open file `fd` of `size` bytes. */
function sampleHash(fd: number, size: number): string | undefined {
  const head = readAt(fd, 0, Math.min(size, SAMPLE_BYTES));
  const tailStart = Math.max(0, size - SAMPLE_BYTES);
  const tail = readAt(fd, tailStart, size - tailStart);
  if (head === undefined || tail === undefined) return undefined;
  return createHash("sha256").update(head).update(tail).digest("hex");
}

/** The index line key of a task reference: its JSON text between a newline and a tab. */
function indexKey(ref: string): string {
  return `\n${JSON.stringify(ref)}\t`;
}

/**
 * Stores what a later {@link worldForTask} needs, after `world` was loaded from `path` (whose
 * stamp was taken before reading it, so a file changed while it was read is never cached as the
 * new version). Best effort: a cache that cannot be written is no cache.
 *
 * @example
 * ```ts
 * rememberWorld(process.env, "big.json", stamp, world, ranges);
 * ```
 */
export function rememberWorld(env: NodeJS.ProcessEnv, path: string, before: FileStamp | undefined, world: World, ranges: ReadonlyMap<string, ByteRange>): void {
  const dir = cacheDir(env);
  if (dir === undefined || before === undefined) return;
  try {
    const fd = openSync(path, "r");
    let sample: string | undefined;
    try {
      sample = sampleHash(fd, Number(before.size));
    } finally {
      closeSync(fd);
    }
    if (sample === undefined || !sameStamp(before, stampOf(path))) return;
    const skeleton = JSON.stringify(saveWorld({ ...world, tasks: Table.empty(), taskIdByNumericId: Table.empty(), comments: Table.empty() }));
    const header: Header = { format: FORMAT, file: before, sample, warnings: world.warnings, skeletonBytes: Buffer.byteLength(skeleton) };
    const lines: string[] = [];
    const line = (ref: string, r: ByteRange | undefined): void => {
      if (r !== undefined) lines.push(`${indexKey(ref)}${r.start}\t${r.end}`);
    };
    // Ids first: a byte search finds the first line, and an id wins over an equal numericId.
    for (const task of world.tasks.values()) line(task.id, ranges.get(task.id));
    for (const task of world.tasks.values()) if (task.numericId !== "" && !world.tasks.has(task.numericId)) line(task.numericId, ranges.get(task.numericId));
    mkdirSync(dir, { recursive: true });
    const target = entryPath(dir, path);
    const temp = `${target}.${process.pid}.tmp`;
    const out = openSync(temp, "w");
    try {
      for (const text of [`${JSON.stringify(header)}\n`, skeleton, lines.join(""), "\n"]) writeFileSync(out, text);
    } finally {
      closeSync(out);
    }
    renameSync(temp, target);
  } catch {
    // No cache this time; the next call loads the file again.
  }
}

/**
 * The stamp of `path` before it is read, for {@link rememberWorld}; undefined when the cache is off
 * or the file cannot be stat'ed (the read that follows reports that).
 *
 * @example
 * ```ts
 * const stamp = stampBeforeRead(process.env, "big.json");
 * ```
 */
export function stampBeforeRead(env: NodeJS.ProcessEnv, path: string): FileStamp | undefined {
  if (cacheDir(env) === undefined) return undefined;
  try {
    return stampOf(path);
  } catch {
    return undefined;
  }
}

/**
 * A world holding the directory, policies and settings of the world file at `path` and the one
 * task `taskRef` (id or numericId), from the cache and that task's bytes, with the full load's
 * warnings; undefined when the cache has no entry for this very file or no such task (then load
 * the file).
 *
 * @example
 * ```ts
 * const world = worldForTask(process.env, "big.json", "1001") ?? fullLoad();
 * ```
 */
export function worldForTask(env: NodeJS.ProcessEnv, path: string, taskRef: string): World | undefined {
  const dir = cacheDir(env);
  if (dir === undefined) return undefined;
  try {
    const entry = readFileSync(entryPath(dir, path));
    const headerEnd = entry.indexOf(NEWLINE);
    if (headerEnd < 0) return undefined;
    const header = JSON.parse(entry.toString("utf8", 0, headerEnd)) as Header;
    if (header.format !== FORMAT || !sameStamp(header.file, stampOf(path))) return undefined;
    const skeletonEnd = headerEnd + 1 + header.skeletonBytes;
    const key = Buffer.from(indexKey(taskRef));
    const at = entry.indexOf(key, skeletonEnd);
    if (at < 0) return undefined;
    const lineEnd = entry.indexOf(NEWLINE, at + key.length);
    const [start, end] = entry.toString("latin1", at + key.length, lineEnd < 0 ? entry.length : lineEnd).split("\t").map(Number);
    if (start === undefined || end === undefined || !Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end < start) return undefined;
    const fd = openSync(path, "r");
    let bytes: Uint8Array | undefined;
    let sample: string | undefined;
    try {
      bytes = readAt(fd, start, end - start);
      sample = sampleHash(fd, Number(header.file.size));
    } finally {
      closeSync(fd);
    }
    // The file may have changed while it was read: then the entry is not used.
    if (bytes === undefined || sample !== header.sample || !sameStamp(header.file, stampOf(path))) return undefined;
    const task = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)) as unknown;
    if (typeof task !== "object" || task === null || !("id" in task) || (task.id !== taskRef && !("numericId" in task && task.numericId === taskRef))) return undefined;
    const skeleton = JSON.parse(entry.toString("utf8", headerEnd + 1, skeletonEnd)) as Record<string, unknown>;
    // The full load already warned about this file (the header keeps what it said).
    const loaded = loadWorld({ ...skeleton, tasks: [task] }, { warnings: false });
    return loaded.ok ? Object.freeze({ ...loaded.value, warnings: header.warnings }) : undefined;
  } catch {
    return undefined;
  }
}
