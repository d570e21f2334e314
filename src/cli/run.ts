/**
 * The `policy-sim` command line. `runCli` takes argv and an IO object, so every command is
 * testable without a process; `main.ts` binds it to the real process.
 *
 * Exit codes: 0 ok; 1 findings, a refused action or an error a policy author must fix; 2 bad input
 * (unknown command or flag, missing or repeated flag, unreadable or invalid world file); 70 an
 * internal failure. Errors are one clear line on
 * stderr, never a stack trace.
 */
import { checkCondition, ENVIRONMENT_SPECS, expressionEvaluation } from "../cel/index.js";
import type { JsonValue } from "../model/json.js";
import { comment } from "../reducers/comment.js";
import { hardReset } from "../reducers/hard-reset.js";
import type { World } from "../world/world.js";
import { VERSION } from "../version.js";
import { checkOutPath, type CliIO, CliInputError, type Command, EXIT, readWorld, str, writeOutput, writeWorldFile } from "./command.js";
import { checkWorldCommand } from "./check-world.js";
import { commandHelp, EXIT_CODES_LINE, json, runCommand } from "./dispatch.js";
import { explainCommand } from "./explain-command.js";
import { testCommand } from "./test.js";
import { initCommand } from "./init.js";
import { lintCommand } from "./lint.js";
import { pullCommand } from "./pull.js";
import { replCommand } from "./repl.js";
import { clientCommand } from "./client.js";
import { closest, didYouMean } from "../text/closest.js";
import { serveCommand } from "./serve.js";
import { simulateCommand } from "./simulate.js";
import { whatifCommand } from "./whatif.js";

export { CliInputError, EXIT, InputFileError, readJsonFile, readWorld } from "./command.js";
export type { CliIO, Command, CommandArgs, ShutdownSignal } from "./command.js";


/** The flags every task action shares: the world, the task, who acts, what to expand, where to write. */
function taskActionArgs(
  values: Record<string, string | boolean | string[] | undefined>,
  io: CliIO,
  who: string,
): { world: World; taskId: string; actorId: string; expandMask: { paths: string[] }; out: string | undefined } {
  const taskId = str(values["task"]);
  const actorId = str(values["as"]);
  const out = str(values["out"]);
  if (!taskId) throw new CliInputError("--task <id|numericId> is required");
  if (!actorId) throw new CliInputError(`--as <userId> is required: who ${who}`);
  // Before loading the world (seconds for a big one) and acting: a bad --out is known now.
  checkOutPath(io, "--out", out, "in-place");
  const world = readWorld(io, str(values["world"]));
  // A typo in --as is the caller's input (exit 2, as a mistyped --subject is), not the service refusing.
  if (!world.index.users.has(actorId)) {
    const near = closest(actorId, world.index.users.keys());
    throw new CliInputError(`--as ${actorId}: no such user in the world${near ? `; did you mean ${near}?` : ""}`);
  }
  const expand = values["expand"];
  return { world, taskId, actorId, expandMask: { paths: Array.isArray(expand) ? expand : [] }, out };
}

function actionResult(io: CliIO, asJson: boolean, r: { ok: true; value: { world: World; response: JsonValue; events: readonly unknown[] } } | { ok: false; error: { code: string; message: string } }, out: string | undefined): number {
  if (!r.ok) {
    // Errors are one line on stderr; with --json stdout gets them too (README, "Exit codes").
    if (asJson) json(io, { error: { code: r.error.code, message: r.error.message } });
    io.stderr(`${r.error.code}: ${r.error.message}\n`);
    // No such task, or a malformed request, is the caller's input; anything else is the service
    // refusing a well-formed request (permission, state), which is a finding.
    return r.error.code === "NOT_FOUND" || r.error.code === "INVALID_ARGUMENT" ? EXIT.badInput : EXIT.findings;
  }
  if (out) writeOutput("--out", out, () => writeWorldFile(io, out, r.value.world));
  if (asJson) json(io, { response: r.value.response, events: r.value.events });
  else {
    json(io, r.value.response);
    io.stderr(`${r.value.events.length} audit event(s)${out ? `; world written to ${out}` : ""}\n`);
  }
  return EXIT.ok;
}

/** The flag lines of a task action's help (reset, comment): the same flags, each action's own words for two. */
function actionFlagsHelp(who: string, comment: string, action: string): string[] {
  return [
    "--world <file>     the world to act on",
    "--task <id>        the task's id or numericId",
    `--as <userId>      ${who}`,
    `--comment <text>   ${comment}`,
    '--expand <path>    expand a reference in the response (repeatable), e.g. --expand app_id or --expand "*"',
    `--out <file>       write the world after the ${action} to this file`,
    "--json             print { response, events } as one JSON document",
  ];
}

const commands: Record<string, Command> = {
  explain: explainCommand,
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
      const a = taskActionArgs(values, io, "performs the reset");
      const r = hardReset(a.world, { taskId: a.taskId, comment: str(values["comment"]) ?? "", expandMask: a.expandMask }, { actorId: a.actorId });
      return actionResult(io, values["json"] === true, r, a.out);
    },
    help: [
      ...actionFlagsHelp("who performs the reset (a Super Administrator, as on the service)", "the reset's comment, recorded in the task's audit trail", "reset"),
      "",
      "Prints the endpoint's 200 body. Exit 1 when the service would refuse (permission, state), 2 for",
      "an unknown task, a malformed request or an --out that cannot be written (checked before acting).",
      "",
      "  policy-sim reset --world fixtures/world.json --task 1001 --as u-it-dir --comment \"re-route\" --out after.json",
    ],
  },
  comment: {
    usage: "policy-sim comment --world <file> --task <id> --as <userId> --comment <text> [--expand <path>]… [--out <file>] [--json]",
    summary: "post a comment on a task; prints the endpoint's response",
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
      const a = taskActionArgs(values, io, "comments");
      const text = str(values["comment"]);
      if (text === undefined) throw new CliInputError("--comment <text> is required: what to post");
      const r = comment(a.world, { taskId: a.taskId, comment: text, expandMask: a.expandMask }, { actorId: a.actorId });
      return actionResult(io, values["json"] === true, r, a.out);
    },
    help: [
      ...actionFlagsHelp("who comments (the requester, the subject, an approver, an administrator)", "the comment (the same flag as reset's)", "comment"),
      "",
      "Prints the endpoint's 200 body. Exit 1 when the service would refuse, 2 for an unknown task or an",
      "--out that cannot be written (checked before acting).",
      "",
      "  policy-sim comment --world fixtures/world.json --task 1001 --as u-contractor --comment \"Needed for Q4\"",
    ],
  },
  check: {
    usage: "policy-sim check '<CEL expression>' [--env condition|approver|config-rule] [--json]",
    summary: "type-check one expression in one of the service's CEL environments (rule conditions by default)",
    positionals: "the expression",
    help: [
      "Put the expression in single quotes; exit 1 when it does not type-check or return what its environment needs.",
      "--env condition (default): a policy rule or wait condition, returns bool;",
      "--env approver: an approval step expression, returns a User or a list of Users;",
      "--env config-rule: an entitlement configuration rule condition (sees `entitlement` only), returns bool.",
      "",
      "  policy-sim check 'subject.department == \"Engineering\"'",
      "  policy-sim check --env config-rule 'entitlement.role.display_name.contains(\"Admin\")'",
    ],
    options: { json: { type: "boolean" }, env: { type: "string" } },
    run({ values, positionals }, io) {
      const source = positionals.join(" ");
      const env = str(values["env"]) ?? "condition";
      if (env !== "condition" && env !== "approver" && env !== "config-rule")
        throw new CliInputError(`--env must be condition, approver or config-rule, not ${JSON.stringify(env)}${typeof env === "string" ? didYouMean(env, Object.keys(ENVIRONMENT_SPECS)) : ""}`);
      // An empty configuration rule condition is the documented catch-all rule; elsewhere, nothing to check.
      if (env === "config-rule" && positionals.length > 0 && !source.trim()) {
        if (values["json"]) json(io, { diagnostics: [] });
        else io.stdout("ok: an empty configuration rule condition matches every entitlement of the app (a catch-all rule)\n");
        return EXIT.ok;
      }
      if (!source.trim()) throw new CliInputError("give the condition to check, e.g. policy-sim check 'subject.department == \"Eng\"'");
      const diagnostics = checkCondition(source, env);
      const returns = env === "approver" ? "returns users" : "returns bool";
      // How it would run (compiled or interpreted, and why), once it checks: a note, never a finding.
      const evaluation = diagnostics.length === 0 ? expressionEvaluation(source, env) : undefined;
      if (values["json"]) json(io, evaluation ? { diagnostics, evaluation } : { diagnostics });
      else if (diagnostics.length === 0) {
        io.stdout(env === "condition" ? "ok: the condition type-checks and returns bool\n" : `ok: the expression type-checks in the ${env} environment and ${returns}\n`);
        if (evaluation?.evaluation === "interpreted") {
          const l = evaluation.location;
          io.stdout(`note: runs on the cel-js interpreter, not compiled (${evaluation.node} at ${l.line}:${l.column} is not in the compiled subset); same results, slower\n${l.excerpt}\n`);
        }
      }
      else for (const d of diagnostics) io.stdout(`${d.code} at ${d.line}:${d.column}: ${d.message}${d.hint ? ` (${d.hint})` : ""}\n${d.excerpt}\n`);
      return diagnostics.length === 0 ? EXIT.ok : EXIT.findings;
    },
  },
  lint: lintCommand,
  "check-world": checkWorldCommand,
  test: testCommand,
  init: initCommand,
  whatif: whatifCommand,
  pull: pullCommand,
  simulate: simulateCommand,
  repl: replCommand,
  serve: serveCommand,
  client: clientCommand,
};

/** Names people try for a command it has under another name: what they probably meant. */
const COMMAND_ALIASES: Readonly<Record<string, string>> = {
  decide: "explain",
  route: "explain",
  why: "explain",
  select: "explain",
  validate: "check",
  "hard-reset": "reset",
  hardreset: "reset",
  "what-if": "whatif",
  tests: "test",
  server: "serve",
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

/**
 * Every subcommand by name, the optional ones included once registered: what `--help` lists.
 *
 * @example
 * ```ts
 * for (const [name, c] of listCommands()) console.log(name, c.summary);
 * ```
 */
export function listCommands(): ReadonlyArray<readonly [string, Command]> {
  return Object.entries(commands);
}

function help(io: CliIO): void {
  io.stdout("policy-sim: simulate an identity-governance service's task policies\n\nCommands:\n");
  for (const [name, c] of Object.entries(commands)) io.stdout(`  ${name.padEnd(11)} ${c.summary}\n      ${c.usage}\n`);
  io.stdout("\n`policy-sim <command> --help` for one command's flags and examples; `policy-sim --version` for the version.\n");
  io.stdout(`${EXIT_CODES_LINE}\n`);
}

/**
 * Runs the CLI and returns its exit code. Never throws: every failure is a line on stderr (and,
 * with `--json`, an `{ "error": { "code", "message" } }` document on stdout).
 *
 * @example
 * ```ts
 * const code = await runCli(["explain", "--world", "fixtures/world.json", "--task", "1001"], io);
 * ```
 */
export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === "--version" || name === "-V" || name === "version") {
    io.stdout(`policy-sim ${VERSION}\n`);
    return EXIT.ok;
  }
  if (!name || name === "help" || name === "--help" || name === "-h") {
    const target = name === "help" ? rest[0] : undefined;
    const c = target === undefined || !Object.hasOwn(commands, target) ? undefined : commands[target];
    if (target !== undefined && c) commandHelp(io, target, c);
    else help(io);
    return name && (target === undefined || c) ? EXIT.ok : EXIT.badInput;
  }
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!command) {
    const near = closest(name, Object.keys(commands)) ?? (Object.hasOwn(COMMAND_ALIASES, name) ? COMMAND_ALIASES[name] : undefined);
    io.stderr(`unknown command "${name}"${near ? `; did you mean ${near}?` : ""} try: ${Object.keys(commands).join(", ")} (policy-sim --help)\n`);
    return EXIT.badInput;
  }
  return runCommand(name, command, rest, io);
}
