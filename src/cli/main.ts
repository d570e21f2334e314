/**
 * The `policy-sim` executable: binds {@link runCli} to the real process (files, streams, signals,
 * the exit code). This adapter is the only place the CLI touches the process.
 */
import { closeSync, fstatSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, watch, writeFileSync, writeSync } from "node:fs";
import { basename, dirname } from "node:path";
import { checkWritableOnDisk } from "./check-writable.js";
import { rememberWorld, stampBeforeRead, worldForTask } from "./world-cache.js";
import type { CliIO, ShutdownSignal } from "./command.js";
import { clipLongLines } from "../text/clip.js";

// A reader that stops early (`policy-sim --help | head -1`) closes the pipe; what is left to write
// has nowhere to go, so the command ends quietly instead of dying on an unhandled EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "EPIPE") process.exit(typeof process.exitCode === "number" ? process.exitCode : 0);
    throw e;
  });
}

const argv = process.argv.slice(2);
// `explain` runs from a module that imports only what it needs: a warm explain of a big world
// (cli/world-cache.ts) is then mostly Node's own start-up, not loading every other command.
const run: Promise<(io: CliIO) => Promise<number>> =
  argv[0] === "explain"
    ? import("./explain-command.js").then((m) => (io) => m.runExplain(argv.slice(1), io))
    : import("./run.js").then((m) => (io) => m.runCli(argv, io));

void run.then((runWith) => runWith({
  stdout: (s) => process.stdout.write(s),
  // A message echoing a huge input (a 2 MB id) is clipped in the middle; --json on stdout keeps it whole.
  stderr: (s) => process.stderr.write(clipLongLines(s)),
  readFile: (p) => readFileSync(p, "utf8"),
  writeFile(p, s) {
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, s);
  },
  writeFileChunks(p, chunks) {
    const fd = openSync(p, "w");
    try {
      for (const chunk of chunks) writeSync(fd, chunk);
      // On disk before serve renames it over the last good file: a crash then leaves one or the other
      // whole. Only a regular file: /dev/stdout (a pipe, a terminal) cannot be synced.
      if (fstatSync(fd).isFile()) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  },
  *readFileChunks(p) {
    const fd = openSync(p, "r");
    try {
      for (;;) {
        // A fresh buffer per chunk: the loader may keep a view of it until the next one.
        const buffer = new Uint8Array(1 << 20);
        const n = readSync(fd, buffer, 0, buffer.length, null);
        if (n === 0) return;
        yield buffer.subarray(0, n);
      }
    } finally {
      closeSync(fd);
    }
  },
  worldCache: {
    stamp: (p) => stampBeforeRead(process.env, p),
    remember: (p, stamp, world, ranges) => rememberWorld(process.env, p, stamp as Parameters<typeof rememberWorld>[2], world, ranges),
    forTask: (p, ref) => worldForTask(process.env, p, ref),
  },
  rename: (from, to) => renameSync(from, to),
  removeFile: (p) => rmSync(p, { force: true }),
  checkWritable: (p, how) => checkWritableOnDisk(p, how),
  isTTY: process.stdout.isTTY === true,
  stderrIsTTY: process.stderr.isTTY === true,
  stdin: process.stdin,
  output: process.stdout,
  now: () => Date.now(),
  env: process.env,
  fetch: globalThis.fetch,
  listDir: (p) => readdirSync(p, { withFileTypes: true }).map((d) => ({ name: d.name, isDirectory: d.isDirectory() })),
  watch(paths, onChange) {
    // Editors save by rename or several writes: one call per burst of events.
    let timer: NodeJS.Timeout | undefined;
    const fire = (): void => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(onChange, 100);
    };
    // Each file through its folder, by name: a save that replaces the file (sed -i, vim, "safe
    // write") gives it a new inode, which a watch on the file itself stops seeing. A folder among
    // the paths (a glob's) fires on anything in it.
    const names = new Map<string, Set<string> | "all">();
    for (const p of paths) {
      let folder: boolean;
      try {
        folder = statSync(p).isDirectory();
      } catch {
        folder = false;
      }
      const dir = folder ? p : dirname(p);
      if (folder) names.set(dir, "all");
      else {
        const known = names.get(dir);
        if (known === "all") continue;
        names.set(dir, (known ?? new Set<string>()).add(basename(p)));
      }
    }
    // A glob's folder is watched itself (saves by rename in it) and with its subfolders (`**`, new
    // ones included: Node's recursive watch on Linux follows files, and loses one replaced by rename).
    const watchers = [...names].flatMap(([dir, which]) =>
      which === "all"
        ? [watch(dir, fire), watch(dir, { recursive: true }, fire)]
        : [
            watch(dir, (_event, name) => {
              if (name === null || which.has(String(name))) fire();
            }),
          ],
    );
    return () => {
      if (timer) clearTimeout(timer);
      for (const w of watchers) w.close();
    };
  },
  onShutdown(handler) {
    // While a handler is registered, SIGINT/SIGTERM stop the command (serve) instead of killing
    // the process mid-response; once it is removed, Node's default handling is back.
    const listeners = (["SIGINT", "SIGTERM"] as const).map((signal) => {
      const listener = (): void => handler(signal satisfies ShutdownSignal);
      process.once(signal, listener);
      return [signal, listener] as const;
    });
    return () => {
      for (const [signal, listener] of listeners) process.off(signal, listener);
    };
  },
})).then((code) => {
  process.exitCode = code;
});
