/**
 * The `policy-sim` command line. `runCli` takes argv and an IO object, so every command is
 * testable without a process; `main.ts` binds it to the real process.
 *
 * Exit codes: 0 ok; 1 findings, a refused action or an error a policy author must fix; 2 bad input
 * (unknown command, missing flag, unreadable or invalid world file). Errors are one clear line on
 * stderr, never a stack trace.
 */
import { parseArgs } from "node:util";
import { checkCondition } from "../cel/index.js";
import { explain } from "../explain/explain.js";
import { formatExplanation } from "../explain/format.js";
import type { JsonValue } from "../model/json.js";
import { comment } from "../reducers/comment.js";
import { hardReset } from "../reducers/hard-reset.js";
import { loadWorld } from "../world/load-world.js";
import { saveWorld } from "../world/save-world.js";
import type { World } from "../world/world.js";

/**
 * What the CLI reads and writes; the real process in `main.ts`, buffers in tests.
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
  readonly isTTY: boolean;
}

/** Exit codes of the CLI. */
export const EXIT = { ok: 0, findings: 1, badInput: 2 } as const;

/** A command: its flags (node:util parseArgs options), usage line, and body. */
export interface Command {
  readonly usage: string;
  readonly summary: string;
  readonly options: Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }>;
  run(args: { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] }, io: CliIO): Promise<number> | number;
}

/** A usage or input problem: reported as one line, exit code 2. */
export class CliInputError extends Error {}

/**
 * Reads and loads a world file; throws {@link CliInputError} with one readable line on failure.
 *
 * @example
 * ```ts
 * const world = readWorld(io, "fixtures/world.json");
 * ```
 */
export function readWorld(io: CliIO, path: string | undefined): World {
  if (!path) throw new CliInputError("--world <file> is required");
  let text: string;
  try {
    text = io.readFile(path);
  } catch (e: unknown) {
    throw new CliInputError(`cannot read ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e: unknown) {
    throw new CliInputError(`${path} is not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  const loaded = loadWorld(json);
  if (!loaded.ok) {
    const shown = loaded.error.slice(0, 10).map((d) => `  ${d.path}: ${d.message}`);
    const more = loaded.error.length > 10 ? `\n  … and ${loaded.error.length - 10} more` : "";
    throw new CliInputError(`${path} is not a valid world (${loaded.error.length} problem${loaded.error.length === 1 ? "" : "s"}):\n${shown.join("\n")}${more}`);
  }
  return loaded.value;
}

function json(io: CliIO, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

function actionResult(io: CliIO, asJson: boolean, r: { ok: true; value: { world: World; response: JsonValue; events: readonly unknown[] } } | { ok: false; error: { code: string; message: string } }, out: string | undefined): number {
  if (!r.ok) {
    if (asJson) json(io, { error: { code: r.error.code, message: r.error.message } });
    else io.stderr(`${r.error.code}: ${r.error.message}\n`);
    return EXIT.findings;
  }
  if (out) io.writeFile(out, `${JSON.stringify(saveWorld(r.value.world), null, 2)}\n`);
  if (asJson) json(io, { response: r.value.response, events: r.value.events });
  else {
    json(io, r.value.response);
    io.stderr(`${r.value.events.length} audit event(s)${out ? `; world written to ${out}` : ""}\n`);
  }
  return EXIT.ok;
}

const commands: Record<string, Command> = {
  explain: {
    usage: "policy-sim explain --world <file> --task <id|numericId> [--json] [--verbose]",
    summary: "why a policy applies to a task: sources, each rule with its values, the chain, the steps",
    options: { world: { type: "string" }, task: { type: "string" }, json: { type: "boolean" }, verbose: { type: "boolean" } },
    run({ values }, io) {
      const world = readWorld(io, str(values["world"]));
      const task = str(values["task"]);
      if (!task) throw new CliInputError("--task <id|numericId> is required");
      const r = explain(world, task);
      if (!r.ok) {
        if (values["json"]) json(io, { error: r.error });
        else io.stderr(`${r.error.code}: ${r.error.message}\n`);
        return r.error.code === "NOT_FOUND" || r.error.code === "INVALID_ARGUMENT" ? EXIT.badInput : EXIT.findings;
      }
      if (values["json"]) json(io, r.value);
      else io.stdout(`${formatExplanation(r.value, { color: io.isTTY, verbose: values["verbose"] === true })}\n`);
      return r.value.result.kind === "selected" ? EXIT.ok : EXIT.findings;
    },
  },
  reset: {
    usage: "policy-sim reset --world <file> --task <id> --as <userId> [--comment <text>] [--expand <path>]… [--out <file>] [--json]",
    summary: "Hard Reset a task; prints the endpoint's response",
    options: {
      world: { type: "string" },
      task: { type: "string" },
      as: { type: "string" },
      comment: { type: "string" },
      expand: { type: "string", multiple: true },
      out: { type: "string" },
      json: { type: "boolean" },
    },
    run({ values }, io) {
      const world = readWorld(io, str(values["world"]));
      const taskId = str(values["task"]);
      const actorId = str(values["as"]);
      if (!taskId) throw new CliInputError("--task <id|numericId> is required");
      if (!actorId) throw new CliInputError("--as <userId> is required: who performs the reset");
      const expand = values["expand"];
      const r = hardReset(
        world,
        { taskId, comment: str(values["comment"]) ?? "", expandMask: { paths: Array.isArray(expand) ? expand : [] } },
        { actorId },
      );
      return actionResult(io, values["json"] === true, r, str(values["out"]));
    },
  },
  comment: {
    usage: "policy-sim comment --world <file> --task <id> --as <userId> --text <comment> [--expand <path>]… [--out <file>] [--json]",
    summary: "post a comment on a task; prints the endpoint's response",
    options: {
      world: { type: "string" },
      task: { type: "string" },
      as: { type: "string" },
      text: { type: "string" },
      expand: { type: "string", multiple: true },
      out: { type: "string" },
      json: { type: "boolean" },
    },
    run({ values }, io) {
      const world = readWorld(io, str(values["world"]));
      const taskId = str(values["task"]);
      const actorId = str(values["as"]);
      if (!taskId) throw new CliInputError("--task <id|numericId> is required");
      if (!actorId) throw new CliInputError("--as <userId> is required: who comments");
      const expand = values["expand"];
      const r = comment(world, { taskId, comment: str(values["text"]) ?? "", expandMask: { paths: Array.isArray(expand) ? expand : [] } }, { actorId });
      return actionResult(io, values["json"] === true, r, str(values["out"]));
    },
  },
  check: {
    usage: "policy-sim check '<CEL condition>' [--json]",
    summary: "type-check one rule condition in the service's CEL environment",
    options: { json: { type: "boolean" } },
    run({ values, positionals }, io) {
      const source = positionals.join(" ");
      if (!source.trim()) throw new CliInputError("give the condition to check, e.g. policy-sim check 'subject.department == \"Eng\"'");
      const diagnostics = checkCondition(source);
      if (values["json"]) json(io, { diagnostics });
      else if (diagnostics.length === 0) io.stdout("ok: the condition type-checks and returns bool\n");
      else for (const d of diagnostics) io.stdout(`${d.code} at ${d.line}:${d.column}: ${d.message}\n${d.excerpt}\n`);
      return diagnostics.length === 0 ? EXIT.ok : EXIT.findings;
    },
  },
};

/**
 * Adds a subcommand (used by the optional parts: lint, what-if, simulate, repl, serve).
 *
 * @example
 * ```ts
 * registerCommand("hello", { usage: "policy-sim hello", summary: "say hi", options: {}, run: (_a, io) => { io.stdout("hi\n"); return 0; } });
 * ```
 */
export function registerCommand(name: string, command: Command): void {
  commands[name] = command;
}

function help(io: CliIO): void {
  io.stdout("policy-sim: simulate an identity-governance service's task policies\n\nCommands:\n");
  for (const [name, c] of Object.entries(commands)) io.stdout(`  ${name.padEnd(9)} ${c.summary}\n      ${c.usage}\n`);
  io.stdout("\nExit codes: 0 ok, 1 findings or a refused action, 2 bad input.\n");
}

/**
 * Runs the CLI and returns its exit code. Never throws: every failure is a line on stderr.
 *
 * @example
 * ```ts
 * const code = await runCli(["explain", "--world", "fixtures/world.json", "--task", "1001"], io);
 * ```
 */
export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "help" || name === "--help" || name === "-h") {
    help(io);
    return name ? EXIT.ok : EXIT.badInput;
  }
  const command = commands[name];
  if (!command) {
    io.stderr(`unknown command "${name}"; try: ${Object.keys(commands).join(", ")}\n`);
    return EXIT.badInput;
  }
  try {
    const parsed = parseArgs({ args: [...rest], options: command.options, allowPositionals: true, strict: true });
    return await command.run(parsed as { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] }, io);
  } catch (e: unknown) {
    if (e instanceof CliInputError || (e instanceof TypeError && "code" in e && String(e.code).startsWith("ERR_PARSE_ARGS"))) {
      io.stderr(`${e.message}\nusage: ${command.usage}\n`);
      return EXIT.badInput;
    }
    io.stderr(`policy-sim ${name} failed: ${e instanceof Error ? e.message : String(e)}\n`);
    return EXIT.findings;
  }
}
