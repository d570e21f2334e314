/**
 * Running one command from its arguments: flag checks, `--help`, parsing, and turning every failure
 * into one line and an exit code. Shared by `runCli` (every command) and the executable's path for
 * `explain` (cli/explain-command.ts), which imports only what `explain` needs so that a warm
 * `explain` does not pay for loading every other command's dependencies.
 */
import { parseArgs } from "node:util";
import { closest } from "../text/closest.js";
import { type CliIO, CliInputError, type Command, type CommandArgs, EXIT, InputFileError } from "./command.js";

/**
 * The last line of every help text.
 *
 * @example
 * ```ts
 * io.stdout(`${EXIT_CODES_LINE}\n`);
 * ```
 */
export const EXIT_CODES_LINE = "Exit codes: 0 ok, 1 findings or a refused action, 2 bad input, 70 an internal failure (please report it).";

/**
 * Prints a value as indented JSON on stdout.
 *
 * @example
 * ```ts
 * json(io, { ok: true });
 * ```
 */
export function json(io: CliIO, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Refuses what `parseArgs` would let through or explain poorly: an unknown flag (with the closest
 * known one), and a single-value flag given twice (the last would silently win).
 */
function checkFlags(args: readonly string[], command: Command): void {
  const { tokens } = parseArgs({ args: [...args], options: command.options, allowPositionals: true, strict: false, tokens: true });
  const seen = new Map<string, string | undefined>();
  for (const t of tokens) {
    if (t.kind !== "option") continue;
    const spec = command.options[t.name];
    if (!spec) {
      const guess = closest(t.name, Object.keys(command.options));
      throw new CliInputError(`unknown flag ${t.rawName}${guess ? `; did you mean --${guess}?` : ""}`);
    }
    if (spec.multiple !== true && seen.has(t.name)) {
      throw new CliInputError(`--${t.name} is given more than once; give it once`);
    }
    seen.set(t.name, t.value);
  }
}

/**
 * Prints one command's help: summary, usage, its help lines and the exit codes.
 *
 * @example
 * ```ts
 * commandHelp(io, "explain", explainCommand);
 * ```
 */
export function commandHelp(io: CliIO, name: string, c: Command): void {
  io.stdout(`policy-sim ${name}: ${c.summary}\n\nusage: ${c.usage}\n`);
  if (c.help && c.help.length > 0) io.stdout(`\n${c.help.map((l) => (l === "" ? "" : `  ${l}`)).join("\n")}\n`);
  io.stdout(`\n${EXIT_CODES_LINE}\n`);
}

// Flags end at "--": after it, "--help" is an argument (a condition to check, say).
const wantsHelp = (args: readonly string[]): boolean => {
  const end = args.indexOf("--");
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === "--help" || a === "-h");
};

/**
 * Runs one command with the arguments after its name and returns the exit code. Never throws:
 * a usage or input problem is one line on stderr and exit 2 (with `--json`, also an
 * `{ "error": … }` document on stdout), a bug of ours one line and exit 70.
 *
 * @example
 * ```ts
 * const code = await runCommand("explain", explainCommand, ["--world", "w.json", "--task", "1001"], io);
 * ```
 */
export async function runCommand(name: string, command: Command, rest: readonly string[], io: CliIO): Promise<number> {
  // Before parsing, so `--help` works whatever else is on the line (even a bad flag).
  if (wantsHelp(rest)) {
    commandHelp(io, name, command);
    return EXIT.ok;
  }
  const beforeEnd = rest.includes("--") ? rest.slice(0, rest.indexOf("--")) : rest;
  // `--format json` (whatif's spelling of `--json`) asks for the same error document.
  const asJson = beforeEnd.includes("--json") || beforeEnd.some((a, i) => a === "--format=json" || (a === "--format" && beforeEnd[i + 1] === "json"));
  try {
    checkFlags(rest, command);
    const parsed = parseArgs({ args: [...rest], options: command.options, allowPositionals: true, strict: true });
    const args: CommandArgs = parsed as CommandArgs;
    if (!command.positionals && args.positionals.length > 0) throw new CliInputError(`unexpected argument "${args.positionals[0] ?? ""}"`);
    return await command.run(args, io);
  } catch (e: unknown) {
    if (e instanceof CliInputError || (e instanceof TypeError && "code" in e && String(e.code).startsWith("ERR_PARSE_ARGS"))) {
      if (asJson) json(io, { error: { code: "BAD_INPUT", message: e.message } });
      io.stderr(e instanceof InputFileError ? `${e.message}\n` : `${e.message}\nusage: ${command.usage}\n`);
      return EXIT.badInput;
    }
    // A bug of ours: still one line, never a stack trace.
    const message = `policy-sim ${name} failed: ${e instanceof Error ? e.message : String(e)}`;
    if (asJson) json(io, { error: { code: "INTERNAL", message } });
    io.stderr(`${message}\n`);
    return EXIT.internal;
  }
}
