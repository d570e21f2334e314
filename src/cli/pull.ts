/**
 * `policy-sim pull`: export a tenant through the service's API into a world file. Credentials come
 * from the environment and are never printed; progress is a bar on a terminal, a line every few
 * seconds elsewhere, and JSON lines with `--json`; what the API cannot give is listed as warnings
 * that say how to set it. The world is written streamed and whole or not at all.
 */
import { getHeapStatistics } from "node:v8";
import { credentialsFromEnv } from "../pull/credentials.js";
import { type PullProgress, pullWorld } from "../pull/pull-world.js";
import { jsonChunks } from "../world/json-writer.js";
import { loadWorld } from "../world/load-world.js";
import { worldJsonChunks } from "../world/save-world.js";
import { DEFAULT_MAX_LISTING_ITEMS, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_MAX_TOTAL_BYTES, DEFAULT_REQUEST_TIMEOUT_MS } from "../pull/api-client.js";
import type { WriteMode } from "./check-writable.js";
import { checkOutPath, type CliIO, CliInputError, type Command, EXIT, parseCount, parseSeconds, plural, str, writeOutput } from "./command.js";
import { progress } from "./progress.js";

/**
 * Off a terminal (a pipe, a CI log), the shortest time between two progress lines, by the IO's
 * clock: a long pull must show it is moving, and a short one stays quiet.
 *
 * @example
 * ```ts
 * if (now - last >= PROGRESS_LINE_MS) io.stderr(line);
 * ```
 */
export const PROGRESS_LINE_MS = 5_000;

/**
 * Off a terminal and without a clock in the IO, a progress line every this many pages.
 *
 * @example
 * ```ts
 * if (pages % PROGRESS_LINE_PAGES === 0) io.stderr(line);
 * ```
 */
export const PROGRESS_LINE_PAGES = 100;

/**
 * The default of `--max-bytes`: {@link DEFAULT_MAX_TOTAL_BYTES}, or a third of the heap this Node
 * may use when that is less. A pull holds what it reads (1.2 to 2.2 bytes of memory per byte of
 * JSON: full pages to pages of one item), so a pull stopped at the budget still has room to say
 * why, where one past it ends in minutes of garbage collection and an out-of-memory crash (an
 * endless pager of one task a page stopped here at 1.3 GiB read with 2.9 GB resident, of a 4 GiB heap).
 *
 * @example
 * ```ts
 * defaultMaxBytes(); // about 1.35 GiB with a 4 GiB heap (Node 20 on a machine with memory to spare)
 * ```
 */
export function defaultMaxBytes(): number {
  return Math.min(DEFAULT_MAX_TOTAL_BYTES, Math.floor(getHeapStatistics().heap_size_limit / 3));
}

/** Bytes for a message: `1.4 GiB`. */
function inBytes(n: number): string {
  for (const [unit, size] of [["TiB", 1024 ** 4], ["GiB", 1024 ** 3], ["MiB", 1024 ** 2], ["KiB", 1024]] as const) if (n >= size) return `${Math.round((n / size) * 10) / 10} ${unit}`;
  return `${n} bytes`;
}

const UNITS: Readonly<Record<string, number>> = { "": 1, b: 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3, tib: 1024 ** 4 };

/** A size flag: bytes, or a number with KiB, MiB, GiB or TiB (`8GiB`, `512 MiB`, `1.5GiB`). */
function byteCount(flag: string, v: string | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  const m = /^(\d{1,15}(?:\.\d{1,3})?)\s*([a-z]*)$/i.exec(v.trim());
  const unit = UNITS[(m?.[2] ?? "").toLowerCase()];
  const n = m && unit !== undefined ? Math.floor(Number(m[1]) * unit) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new CliInputError(`${flag} must be a size greater than 0, in bytes or with KiB, MiB, GiB or TiB (such as 8GiB), not "${v}"`);
  return n;
}

/** A whole-number flag; `fallback` when absent. */
function count(flag: string, v: string | undefined, fallback: number, min: number): number {
  if (v === undefined) return fallback;
  const n = /^\d{1,6}$/.test(v) ? Number(v) : Number.NaN;
  if (!Number.isInteger(n) || n < min) throw new CliInputError(`--${flag} must be a whole number ≥ ${min}, not "${v}"`);
  return n;
}

function stateOf(v: string | undefined): "open" | "all" {
  if (v === undefined || v === "open") return "open";
  if (v === "all") return "all";
  throw new CliInputError(`--state must be open or all, not "${v}"`);
}

/**
 * Progress output: a redrawn line on a terminal's stderr, JSON lines on stdout with --json, and
 * elsewhere (a pipe, a CI log) each retry and a line at most every {@link PROGRESS_LINE_MS} (every
 * {@link PROGRESS_LINE_PAGES} pages without a clock): a pull that runs for minutes must not look hung.
 */
function reporter(io: CliIO, json: boolean): { onProgress: (p: PullProgress) => void; end: () => void } {
  if (json) return { onProgress: (p) => io.stdout(`${JSON.stringify({ progress: p })}\n`), end: () => undefined };
  const bar = progress(io, "pull");
  const tty = io.stderrIsTTY === true;
  let last = io.now?.() ?? 0;
  let pages = 0;
  const due = (): boolean => {
    pages++;
    const now = io.now?.();
    if (now === undefined) return pages % PROGRESS_LINE_PAGES === 0;
    if (now - last < PROGRESS_LINE_MS) return false;
    last = now;
    return true;
  };
  return {
    onProgress(p) {
      if (p.kind === "retry") {
        const line = `${p.resource}: ${p.message ?? `${p.status === null ? "network failure" : `HTTP ${p.status}`}, retrying in ${Math.ceil((p.waitMs ?? 0) / 1000)} s…`}`;
        // A retry is worth a line also where no bar is drawn (a pipe, a CI log): a silent server must not look like a hung pull.
        if (tty) bar.phase(line);
        else io.stderr(`pull: ${line}\n`);
      } else if (p.kind === "page") {
        const line = `${p.resource}: ${p.items.toLocaleString("en")} (${p.pages.toLocaleString("en")} ${p.pages === 1 ? "page" : "pages"})`;
        if (tty) {
          bar.phase(line);
          bar.update(p.listingsDone, p.listingsKnown);
        } else if (due()) io.stderr(`pull: ${line}; ${p.listingsDone} of ${p.listingsKnown} listings done, ${inBytes(p.bytes)} read\n`);
      }
    },
    end: () => bar.end(),
  };
}

/** A JSON document as `JSON.stringify(doc, null, 2)` and a newline would write it, in chunks. */
function* documentChunks(doc: unknown): Generator<string, void, undefined> {
  yield* jsonChunks(doc, 2);
  yield "\n";
}

const codeOf = (e: unknown): string => (typeof e === "object" && e !== null && "code" in e ? String(e.code) : "");

/**
 * How `--out` is written: `replace` (a temporary file beside it, renamed over it) unless it is a
 * device, a pipe or a socket (`/dev/stdout`), which a rename would replace: that one is written in place.
 */
function writeModeOf(io: CliIO, out: string): WriteMode {
  try {
    io.checkWritable?.(out, "replace");
    return "replace";
  } catch (e: unknown) {
    // Any other problem is checkOutPath's to report.
    return codeOf(e) === "ENOTREG" ? "in-place" : "replace";
  }
}

/**
 * Writes `chunks` to `path`, streamed when the IO can (a large tenant's world is more text than one
 * string may hold) and, for `replace`, whole or not at all: a temporary file renamed over `path`,
 * removed when the write fails, so a failure never leaves half a world (nor costs the previous file).
 */
function writeWhole(io: CliIO, path: string, how: WriteMode, chunks: Iterable<string>): void {
  const write = (to: string): void => {
    if (io.writeFileChunks) io.writeFileChunks(to, chunks);
    else io.writeFile(to, [...chunks].join(""));
  };
  if (how === "in-place" || !io.rename) {
    write(path);
    return;
  }
  const temporary = `${path}.pull-tmp`;
  try {
    write(temporary);
    io.rename(temporary, path);
  } catch (e: unknown) {
    try {
      io.removeFile?.(temporary);
    } catch {
      // The write's own failure is the one to report.
    }
    throw e;
  }
}

/**
 * The `pull` command.
 *
 * @example
 * ```ts
 * await runCli(["pull", "--base-url", "http://127.0.0.1:8080", "--out", "tenant.json"], { ...io, env: { POLICY_SIM_TOKEN: "tok-super" } });
 * ```
 */
export const pullCommand: Command = {
  usage: "policy-sim pull --base-url <url> --out <world file> [--state open|all] [--page-size <n>] [--concurrency <n>] [--request-timeout <s>] [--max-items <n>] [--max-bytes <size>] [--json]",
  summary: "export a tenant through the service's API into a world file",
  help: [
    "Credentials from the environment (never printed):",
    "  POLICY_SIM_CLIENT_ID and POLICY_SIM_CLIENT_SECRET   an API client (client credentials, JWT assertion)",
    "  POLICY_SIM_TOKEN                                     or a bearer token",
    "--state <s>         open (default) or all (every task, deleted ones included)",
    "--page-size <n>     items per page (default: the API's)",
    "--concurrency <n>   requests in flight at once (default 4)",
    `--request-timeout <s>  seconds one request and its answer may take (default ${DEFAULT_REQUEST_TIMEOUT_MS / 1000}); a request that times out is retried at most twice, each retry reported, then the pull stops with DEADLINE_EXCEEDED`,
    `--max-items <n>     the most items one listing may collect before the pull stops (default ${DEFAULT_MAX_LISTING_ITEMS.toLocaleString("en")}); one answer may be at most ${DEFAULT_MAX_RESPONSE_BYTES / 1024 / 1024} MiB`,
    `--max-bytes <size>  the most bytes of answers the whole pull may read, such as 8GiB, before it stops with TOO_LARGE (default ${inBytes(defaultMaxBytes())}: a third of this Node's heap, at most ${inBytes(DEFAULT_MAX_TOTAL_BYTES)}; for a larger tenant raise it and the heap, NODE_OPTIONS=--max-old-space-size=…)`,
    "--json              progress and the summary as JSON lines on stdout",
    "",
    "429 and 5xx answers are retried with backoff (Retry-After honoured, at most 60 s a wait; a longer",
    "one than the retries left can wait out stops the pull at once with RETRY_LATER). Off a terminal,",
    `a progress line every ${PROGRESS_LINE_MS / 1000} s. What the API cannot give (default policies, role kinds, group members,`,
    "the clock) or the credentials may not read (403 on grants, request defaults, owners…) is inferred",
    "where it can be, else a warning. The world is written to a temporary file renamed over --out.",
    "Exit 0 written, 1 written but the world has problems to fix, 2 bad input, the pull failed or --out",
    "cannot be written (checked before pulling).",
    "",
    "  policy-sim pull --base-url https://acme.conductor.one --out tenant.json --state all",
    "  (with POLICY_SIM_TOKEN=… or the client pair in the environment)",
  ],
  options: {
    "base-url": { type: "string" },
    out: { type: "string" },
    state: { type: "string" },
    "page-size": { type: "string" },
    concurrency: { type: "string" },
    "request-timeout": { type: "string" },
    "max-items": { type: "string" },
    "max-bytes": { type: "string" },
    json: { type: "boolean" },
  },
  async run({ values }, io) {
    const baseUrl = str(values["base-url"]);
    const out = str(values["out"]);
    if (!baseUrl) throw new CliInputError("--base-url <url> is required: where the service's API is");
    const refused = baseUrlProblem(baseUrl);
    if (refused) throw new CliInputError(refused);
    if (!out) throw new CliInputError("--out <file> is required: where to write the world");
    // Before the pull, which may take minutes: its result must have somewhere to go.
    const how = writeModeOf(io, out);
    checkOutPath(io, "--out", out, how);
    // 0 asks for the API's default page size.
    const pageSize = count("page-size", str(values["page-size"]), 0, 0);
    const concurrency = count("concurrency", str(values["concurrency"]), 4, 1);
    const states = stateOf(str(values["state"]));
    const requestTimeoutMs = parseSeconds("--request-timeout", str(values["request-timeout"]), DEFAULT_REQUEST_TIMEOUT_MS);
    const maxListingItems = parseCount("--max-items", str(values["max-items"]), DEFAULT_MAX_LISTING_ITEMS);
    const maxTotalBytes = byteCount("--max-bytes", str(values["max-bytes"]), defaultMaxBytes());
    const credentials = credentialsFromEnv(io.env ?? {});
    if (!credentials.ok) throw new CliInputError(credentials.error);
    if (!io.fetch) throw new CliInputError("pull needs HTTP (no fetch in this environment)");
    const json = values["json"] === true;
    const report = reporter(io, json);
    let pulled: Awaited<ReturnType<typeof pullWorld>>;
    try {
      pulled = await pullWorld({ baseUrl, fetch: io.fetch, credentials: credentials.value, pageSize, states, concurrency, onProgress: report.onProgress, now: () => Date.now(), retry: { requestTimeoutMs, maxListingItems, maxTotalBytes } });
    } finally {
      report.end();
    }
    if (!pulled.ok) {
      if (json) io.stdout(`${JSON.stringify({ error: pulled.error })}\n`);
      io.stderr(`pull failed: ${pulled.error.code}: ${pulled.error.message}\n`);
      return EXIT.badInput;
    }
    const { world: doc, warnings, counts } = pulled.value;
    const loaded = loadWorld(doc, { strict: false });
    if (!loaded.ok) {
      // Keep what was pulled: a problem in one object must not cost the whole export.
      writeOutput("--out", out, () => writeWhole(io, out, how, documentChunks(doc)));
      const shown = loaded.error.slice(0, 5).map((d) => `  ${d.path}: ${d.message}`);
      io.stderr(`pulled, but the world does not load (${plural(loaded.error.length, "problem")}); written as pulled to ${out}:\n${shown.join("\n")}\n`);
      if (json) io.stdout(`${JSON.stringify({ written: out, counts, warnings, problems: loaded.error })}\n`);
      return EXIT.findings;
    }
    writeOutput("--out", out, () => writeWhole(io, out, how, worldJsonChunks(loaded.value)));
    const dangling = loaded.value.warnings;
    if (json) io.stdout(`${JSON.stringify({ written: out, counts, warnings, dangling })}\n`);
    else {
      io.stderr(`pulled ${Object.entries(counts).map(([k, n]) => `${n} ${k}`).join(", ")} into ${out}\n`);
      for (const w of warnings) io.stderr(`warning: ${w.message}\n`);
      for (const d of dangling.slice(0, 5)) io.stderr(`warning: ${d.path}: ${d.message}\n`);
      if (dangling.length > 5) io.stderr(`warning: … and ${dangling.length - 5} more ids that do not resolve\n`);
    }
    return EXIT.ok;
  },
};

/**
 * Why `--base-url` is refused, or undefined. A tenant is reached over HTTPS only: plain `http:` would
 * send the token or client secret in clear, so it is refused, not upgraded (the spec's Errors table:
 * "A non-HTTPS tenant URL in the command-line client: rejected, not upgraded"). A server on this
 * machine (`policy-sim serve` on 127.0.0.1, ::1 or localhost) may be plain HTTP.
 */
function baseUrlProblem(baseUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return `--base-url must be an https URL, such as https://acme.conductor.one, not "${baseUrl}"`;
  }
  // Credentials come from the environment, never the URL: fetch refuses such a URL, and every
  // message that names it would print the password (the URL itself is not repeated here).
  if (url.username !== "" || url.password !== "") return `--base-url must not carry a user name or password (user:password@host): set credentials in the environment instead (POLICY_SIM_CLIENT_ID and POLICY_SIM_CLIENT_SECRET, or a bearer token: see --help)`;
  if (url.protocol === "https:") return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const loopback = host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
  if (url.protocol === "http:" && loopback) return undefined;
  if (url.protocol === "http:") return `--base-url must be https: "${baseUrl}" would send the credentials in clear (plain http is only for a server on this machine, such as policy-sim serve on 127.0.0.1); it is refused, not upgraded`;
  return `--base-url must be an https URL, such as https://acme.conductor.one, not "${baseUrl}"`;
}
