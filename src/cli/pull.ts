/**
 * `policy-sim pull`: export a tenant through the service's API into a world file. Credentials come
 * from the environment and are never printed; progress is a bar on a terminal and JSON lines with
 * `--json`; what the API cannot give is listed as warnings that say how to set it.
 */
import { credentialsFromEnv } from "../pull/credentials.js";
import { type PullProgress, pullWorld } from "../pull/pull-world.js";
import { loadWorld } from "../world/load-world.js";
import { saveWorld } from "../world/save-world.js";
import { DEFAULT_MAX_LISTING_ITEMS, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_REQUEST_TIMEOUT_MS } from "../pull/api-client.js";
import { checkOutPath, type CliIO, CliInputError, type Command, EXIT, parseCount, parseSeconds, plural, str, writeOutput } from "./command.js";
import { progress } from "./progress.js";

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

/** Progress output: a redrawn line on a terminal's stderr, JSON lines on stdout with --json. */
function reporter(io: CliIO, json: boolean): { onProgress: (p: PullProgress) => void; end: () => void } {
  if (json) return { onProgress: (p) => io.stdout(`${JSON.stringify({ progress: p })}\n`), end: () => undefined };
  const bar = progress(io, "pull");
  return {
    onProgress(p) {
      if (p.kind === "retry") {
        const line = `${p.resource}: ${p.message ?? `${p.status === null ? "network failure" : `HTTP ${p.status}`}, retrying in ${Math.ceil((p.waitMs ?? 0) / 1000)} s…`}`;
        // A retry is worth a line also where no bar is drawn (a pipe, a CI log): a silent server must not look like a hung pull.
        if (io.stderrIsTTY === true) bar.phase(line);
        else io.stderr(`pull: ${line}\n`);
      }
      else if (p.kind === "page") {
        bar.phase(`${p.resource}: ${p.items} (${plural(p.pages, "page")})`);
        bar.update(p.listingsDone, p.listingsKnown);
      }
    },
    end: () => bar.end(),
  };
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
  usage: "policy-sim pull --base-url <url> --out <world file> [--state open|all] [--page-size <n>] [--concurrency <n>] [--request-timeout <s>] [--max-items <n>] [--json]",
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
    "--json              progress and the summary as JSON lines on stdout",
    "",
    "429 and 5xx answers are retried with backoff (Retry-After honoured). What the API cannot give",
    "(default policies, role kinds, group members, the clock) is inferred where it can be, else a warning.",
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
    checkOutPath(io, "--out", out, "in-place");
    // 0 asks for the API's default page size.
    const pageSize = count("page-size", str(values["page-size"]), 0, 0);
    const concurrency = count("concurrency", str(values["concurrency"]), 4, 1);
    const states = stateOf(str(values["state"]));
    const requestTimeoutMs = parseSeconds("--request-timeout", str(values["request-timeout"]), DEFAULT_REQUEST_TIMEOUT_MS);
    const maxListingItems = parseCount("--max-items", str(values["max-items"]), DEFAULT_MAX_LISTING_ITEMS);
    const credentials = credentialsFromEnv(io.env ?? {});
    if (!credentials.ok) throw new CliInputError(credentials.error);
    if (!io.fetch) throw new CliInputError("pull needs HTTP (no fetch in this environment)");
    const json = values["json"] === true;
    const report = reporter(io, json);
    let pulled: Awaited<ReturnType<typeof pullWorld>>;
    try {
      pulled = await pullWorld({ baseUrl, fetch: io.fetch, credentials: credentials.value, pageSize, states, concurrency, onProgress: report.onProgress, now: () => Date.now(), retry: { requestTimeoutMs, maxListingItems } });
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
      writeOutput("--out", out, () => io.writeFile(out, `${JSON.stringify(doc, null, 2)}\n`));
      const shown = loaded.error.slice(0, 5).map((d) => `  ${d.path}: ${d.message}`);
      io.stderr(`pulled, but the world does not load (${plural(loaded.error.length, "problem")}); written as pulled to ${out}:\n${shown.join("\n")}\n`);
      if (json) io.stdout(`${JSON.stringify({ written: out, counts, warnings, problems: loaded.error })}\n`);
      return EXIT.findings;
    }
    writeOutput("--out", out, () => io.writeFile(out, `${JSON.stringify(saveWorld(loaded.value), null, 2)}\n`));
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
  if (url.protocol === "https:") return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const loopback = host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
  if (url.protocol === "http:" && loopback) return undefined;
  if (url.protocol === "http:") return `--base-url must be https: "${baseUrl}" would send the credentials in clear (plain http is only for a server on this machine, such as policy-sim serve on 127.0.0.1); it is refused, not upgraded`;
  return `--base-url must be an https URL, such as https://acme.conductor.one, not "${baseUrl}"`;
}
