/**
 * A cache that spares repeated CLI calls on one big world the full load (issue 13): after a world
 * file is loaded, the cache keeps the world without its tasks and comments (the directory, the
 * policies, the tenant, the clock: small) and where each task lies in the file. A later `explain`
 * of one task loads that skeleton and reads that one task's bytes from the file, instead of
 * reading and decoding every task.
 *
 * Correctness first: an entry is used only while the file is the one it was made from. It records
 * the file's device, inode, size, modification time and change time (ctime) in nanoseconds; the
 * kernel sets a file's ctime on every change to it and no call can set it back, so a changed file
 * never matches an entry. Anything unexpected (no entry, a stale or unreadable one) means the full
 * load, never an error. Entries live in `$POLICY_SIM_CACHE_DIR`, else `<tmpdir>/policy-sim-cache`,
 * one per world path; `POLICY_SIM_CACHE=off` turns the cache off.
 */
import { createHash } from "node:crypto";
import { closeSync, mkdirSync, openSync, readFileSync, readSync, realpathSync, renameSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { saveWorld } from "../world/save-world.js";
import { loadWorld } from "../world/load-world.js";
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

interface Entry {
  readonly format: 1;
  readonly file: FileStamp;
  readonly skeleton: unknown;
  /** Task id or numericId → [start, end) in the file. */
  readonly tasks: Record<string, readonly [number, number]>;
}

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
  return join(dir, `${createHash("sha256").update(realpathSync(worldPath)).digest("hex").slice(0, 32)}.json`);
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
    if (!sameStamp(before, stampOf(path))) return;
    const skeleton = saveWorld({ ...world, tasks: Table.empty(), taskIdByNumericId: Table.empty(), comments: Table.empty() });
    const tasks: Record<string, readonly [number, number]> = Object.create(null) as Record<string, readonly [number, number]>;
    for (const [id, r] of ranges) tasks[id] = [r.start, r.end];
    const entry: Entry = { format: 1, file: before, skeleton, tasks };
    mkdirSync(dir, { recursive: true });
    const target = entryPath(dir, path);
    const temp = `${target}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(entry));
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
 * task `taskRef` (id or numericId), from the cache and that task's bytes; undefined when the cache
 * has no entry for this very file or no such task (then load the file).
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
    const entry = JSON.parse(readFileSync(entryPath(dir, path), "utf8")) as Entry;
    if (entry.format !== 1 || !sameStamp(entry.file, stampOf(path))) return undefined;
    const range = Object.hasOwn(entry.tasks, taskRef) ? entry.tasks[taskRef] : undefined;
    if (range === undefined) return undefined;
    const [start, end] = range;
    const bytes = new Uint8Array(end - start);
    const fd = openSync(path, "r");
    try {
      let read = 0;
      while (read < bytes.length) {
        const n = readSync(fd, bytes, read, bytes.length - read, start + read);
        if (n === 0) return undefined;
        read += n;
      }
    } finally {
      closeSync(fd);
    }
    // The file may have changed while it was read: then the entry is not used.
    if (!sameStamp(entry.file, stampOf(path))) return undefined;
    const task = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)) as unknown;
    const loaded = loadWorld({ ...(entry.skeleton as Record<string, unknown>), tasks: [task] });
    return loaded.ok ? loaded.value : undefined;
  } catch {
    return undefined;
  }
}
