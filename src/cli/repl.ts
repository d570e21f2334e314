/**
 * `policy-sim repl`: the REPL (`src/repl/`) on a world file, on the process's stdin and stdout.
 */
import { startRepl } from "../repl/start.js";
import { CliInputError, type Command, EXIT, readWorld, str } from "./command.js";

/**
 * The `repl` command.
 *
 * @example
 * ```ts
 * await runCli(["repl", "--world", "fixtures/world.json"], { ...io, stdin: process.stdin, output: process.stdout });
 * ```
 */
export const replCommand: Command = {
  usage: "policy-sim repl --world <file>",
  summary: "an interactive session with the world loaded and the API bound",
  help: [
    'explain("1001"), reset("1022", { as: "u-it-dir" }), comment("1001", "text", { as: "u-contractor" }),',
    'whatIf(policyJson), lint("pol-id"), check("cond"), task("1001"), policy("pol-id"), simulate("script.json"),',
    'world, save("file"); .undo, .world <file>, .help. Tab completes task, user, policy and app ids in strings.',
    "",
    "  policy-sim repl --world fixtures/world.json",
  ],
  options: { world: { type: "string" } },
  async run({ values }, io) {
    const source = str(values["world"]);
    const world = readWorld(io, source);
    if (!io.stdin || !io.output) throw new CliInputError("repl needs an interactive input and output");
    const running = startRepl({
      world,
      ...(source === undefined ? {} : { source }),
      input: io.stdin,
      output: io.output,
      // Line editing and completion need a terminal on both ends; a piped script gets plain lines.
      terminal: io.isTTY && "isTTY" in io.stdin && io.stdin.isTTY === true,
    });
    await running.closed;
    return EXIT.ok;
  },
};
