/**
 * `policy-sim simulate`: run a scenario script (actions and clock ticks) through the workflow
 * engine. The engine is an optional part; until a build has it, the command says so (exit 2).
 */
import { type Command, EXIT, printJson, readJsonFile, readWorld, str } from "./command.js";
import { optionalExport } from "./optional.js";

/** Where the workflow engine's `simulate(world, script)` may live, in the order tried. */
export const SIMULATE_MODULES = ["../workflow/simulate.js", "../workflow/index.js", "../reducers/simulate.js", "../reducers/index.js"] as const;

/**
 * The `simulate` command.
 *
 * @example
 * ```ts
 * await runCli(["simulate", "--world", "fixtures/world.json", "--script", "scenario.json"], io);
 * ```
 */
export const simulateCommand: Command = {
  usage: "policy-sim simulate --world <file> --script <file> [--out <file>] [--json]",
  summary: "run a scenario script of actions and clock ticks through the workflow engine",
  help: [
    "--script <file>  a JSON scenario: the actions and ticks to apply, in order",
    "--out <file>     write the world after the scenario to this file",
    "--json           the engine's result as JSON",
    "",
    "Needs the workflow engine (simulate); builds without it exit 2 with a message.",
  ],
  options: { world: { type: "string" }, script: { type: "string" }, out: { type: "string" }, json: { type: "boolean" } },
  async run({ values }, io) {
    const simulate = await optionalExport(SIMULATE_MODULES, "simulate");
    if (!simulate) {
      const message = "simulate is not available: this build of policy-sim has no workflow engine (simulate) yet";
      if (values["json"] === true) printJson(io, { error: { code: "UNAVAILABLE", message } });
      io.stderr(`${message}\n`);
      return EXIT.badInput;
    }
    readWorld(io, str(values["world"]));
    readJsonFile(io, str(values["script"]) ?? "", "script");
    io.stderr("simulate: the engine was found but this CLI does not know its result shape yet\n");
    return EXIT.badInput;
  },
};
