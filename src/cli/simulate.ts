/**
 * `policy-sim simulate`: run a scenario script (actions and clock ticks, each with its actor and
 * time, with expectations and checks) through the workflow engine, and print every frame.
 */
import { dirname, isAbsolute, join } from "node:path";
import { encodeSimulation, formatSimulation, simulate, type WorldsOption } from "../reducers/simulate.js";
import { checkOutPath, CliInputError, type Command, EXIT, InputFileError, plural, printJson, readJsonFile, readWorld, str, writeOutput, writeWorldFile } from "./command.js";

const WORLDS: readonly WorldsOption[] = ["none", "final", "all"];

/**
 * The world file a script names (`"world": "../world.json"`), relative to the script's own folder
 * as the scenario files under `fixtures/scenarios/` write it; undefined when it names none.
 *
 * @example
 * ```ts
 * scriptWorld({ world: "../world.json" }, "fixtures/scenarios/emergency-request.json"); // "fixtures/world.json"
 * ```
 */
export function scriptWorld(script: unknown, scriptPath: string): string | undefined {
  if (typeof script !== "object" || script === null || Array.isArray(script)) return undefined;
  const w: unknown = (script as Record<string, unknown>)["world"];
  if (typeof w !== "string" || w === "") return undefined;
  return isAbsolute(w) ? w : join(dirname(scriptPath), w);
}

/**
 * The `simulate` command. Exit 0 when every expectation and check of the script holds, 1 when some
 * do not, 2 when the script or world cannot be used.
 *
 * @example
 * ```ts
 * await runCli(["simulate", "--script", "fixtures/scenarios/emergency-request.json"], io);
 * ```
 */
export const simulateCommand: Command = {
  usage: "policy-sim simulate [--world <file>] --script <file> [--out <file>] [--json [--worlds none|final|all]]",
  summary: "run a scenario script of actions and clock ticks through the workflow engine",
  help: [
    "--script <file>  a JSON scenario: { name, steps: [{ at, actor, action, expect, check } | { tick, check }] }",
    "--world <file>   the world to run it on; default: the script's own \"world\" (relative to the script)",
    "--out <file>     write the world after the last step to this file",
    "--json           the run as JSON: frames with responses, errors, events and fired timers, and failures",
    "--worlds <w>     with --json, which worlds to include: none (default), final, all",
    "",
    "Exit 0 when every expectation and check holds, 1 when some fail, 2 for an unusable script or world",
    "or an --out that cannot be written (checked before the run).",
    "",
    "  policy-sim simulate --script fixtures/scenarios/emergency-request.json",
  ],
  options: { world: { type: "string" }, script: { type: "string" }, out: { type: "string" }, json: { type: "boolean" }, worlds: { type: "string" } },
  run({ values }, io) {
    const scriptPath = str(values["script"]);
    if (!scriptPath) throw new CliInputError("--script <file> is required: the scenario to run");
    const worlds = str(values["worlds"]) ?? "none";
    const worldsOption = WORLDS.find((w) => w === worlds);
    if (!worldsOption) throw new CliInputError(`--worlds must be none, final or all, not "${worlds}"`);
    const out = str(values["out"]);
    checkOutPath(io, "--out", out, "in-place");
    const script = readJsonFile(io, scriptPath, "script");
    if (typeof script !== "object" || script === null || Array.isArray(script) || !Array.isArray((script as Record<string, unknown>)["steps"])) {
      const looksLikeWorld = typeof script === "object" && script !== null && ("tasks" in script || "policies" in script);
      throw new InputFileError(
        `${scriptPath} is not a scenario script: a script is a JSON object { "name", "world"?, "steps": [...] }` +
          (looksLikeWorld ? `, and this looks like a world file (pass it as --world)` : ""),
      );
    }
    const worldPath = str(values["world"]) ?? scriptWorld(script, scriptPath);
    if (!worldPath) throw new CliInputError("--world <file> is required (the script names no world of its own)");
    const world = readWorld(io, worldPath);
    const r = simulate(world, script);
    if (!r.ok) {
      if (values["json"] === true) printJson(io, { error: r.error });
      io.stderr(`${r.error.code}: ${r.error.message}\n`);
      return r.error.code === "INVALID_ARGUMENT" ? EXIT.badInput : EXIT.findings;
    }
    const run = r.value;
    if (out !== undefined) writeOutput("--out", out, () => writeWorldFile(io, out, run.world));
    if (values["json"] === true) printJson(io, encodeSimulation(run, { worlds: worldsOption }));
    else {
      io.stdout(`${formatSimulation(run)}\n`);
      const verdict = run.failures.length === 0 ? "every expectation and check holds" : `${plural(run.failures.length, "failure")}`;
      io.stderr(`${verdict}${out === undefined ? "" : `; world written to ${out}`}\n`);
    }
    return run.failures.length === 0 ? EXIT.ok : EXIT.findings;
  },
};
