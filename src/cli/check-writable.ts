/**
 * Whether a file the CLI is asked to write (`--out`) can be written, found out before the work that
 * produces it: a `serve` that took writes for an hour, or a `pull` of a whole tenant, must not learn
 * at the end that its directory does not exist. The file itself is never created or truncated.
 */
import { accessSync, closeSync, constants, openSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/**
 * How a command writes its file: `in-place` opens it and writes (reset, comment, simulate, pull…),
 * `replace` writes a temporary file beside it and renames that over it (serve), which needs a new
 * file in the directory and a target that is a regular file (a rename over `/dev/null` would
 * replace the device).
 *
 * @example
 * ```ts
 * const how: WriteMode = "replace";
 * ```
 */
export type WriteMode = "in-place" | "replace";

/** An error shaped as Node's file-system errors are: a `code` the CLI's messages read. */
function fsError(code: string, message: string): Error {
  return Object.assign(new Error(`${code}: ${message}`), { code });
}

/**
 * Throws an error with a Node `code` when `path` cannot be written as `how` says: `EISDIR` for a
 * directory, `ENOTREG` (our own code) for something other than a regular file when replacing it,
 * `EACCES` for an existing file that is not writable, and whatever creating a new file in its
 * directory throws (`ENOENT` for a missing directory, `ENOTDIR`, `EACCES`, `EROFS`, `ENOSPC`).
 * The new file is a probe with a name of its own, removed at once; `path` is never opened.
 *
 * @example
 * ```ts
 * checkWritableOnDisk("/nonexistent/x.json", "in-place"); // throws ENOENT
 * checkWritableOnDisk("after.json", "replace"); // returns: the directory takes new files
 * ```
 */
export function checkWritableOnDisk(path: string, how: WriteMode): void {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat?.isDirectory()) throw fsError("EISDIR", `illegal operation on a directory, open '${path}'`);
  if (stat !== undefined && how === "replace" && !stat.isFile()) throw fsError("ENOTREG", `not a regular file, rename over '${path}'`);
  if (stat !== undefined && how === "in-place") {
    // Written where it is: the file's own permission is what counts, and a device such as
    // /dev/stdout is fine, though its directory takes no new files.
    accessSync(path, constants.W_OK);
    return;
  }
  // A new file, or a temporary one renamed over the old: the directory must take a new file.
  const probe = join(dirname(path), `.${basename(path)}.policy-sim-probe-${process.pid}-${Date.now()}`);
  closeSync(openSync(probe, "wx"));
  rmSync(probe, { force: true });
}
