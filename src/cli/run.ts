/**
 * The `policy-sim` command line. `runCli` takes argv and an IO object, so every command is
 * testable without a process; `main.ts` binds it to the real process.
 *
 * Exit codes: 0 ok; 1 findings, a refused action or an error a policy author must fix; 2 bad input
 * (unknown command or flag, missing or repeated flag, unreadable or invalid world file); 70 an
 * internal failure. Errors are one clear line on
 * stderr, never a stack trace.
 */
import { parseArgs } from "node:util";
import { checkCondition } from "../cel/index.js";
import { explain, type HypotheticalRequest } from "../explain/explain.js";
import { formatExplanation } from "../explain/format.js";
import type { JsonValue } from "../model/json.js";
import { comment } from "../reducers/comment.js";
import { hardReset } from "../reducers/hard-reset.js";
import type { World } from "../world/world.js";
import { closest } from "../text/closest.js";
import { type CliIO, CliInputError, type Command, type CommandArgs, EXIT, InputFileError, readWorld, str, writeWorldFile } from "./command.js";
import { checkWorldCommand } from "./check-world.js";
import { testCommand } from "./test.js";
import { initCommand } from "./init.js";
import { lintCommand } from "./lint.js";
import { pullCommand } from "./pull.js";
import { replCommand } from "./repl.js";
import { clientCommand } from "./client.js";
import { serveCommand } from "./serve.js";
import { simulateCommand } from "./simulate.js";
import { whatifCommand } from "./whatif.js";

export { CliInputError, EXIT, InputFileError, readJsonFile, readWorld } from "./command.js";
export type { CliIO, Command, CommandArgs, ShutdownSignal } from "./command.js";

function json(io: CliIO, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

/** The flags every task action shares: the world, the task, who acts, what to expand. */
function taskActionArgs(
  values: Record<string, string | boolean | string[] | undefined>,
  io: CliIO,
  who: string,
): { world: World; taskId: string; actorId: string; expandMask: { paths: string[] } } {
  const world = readWorld(io, str(values["world"]));
  const taskId = str(values["task"]);
  const actorId = str(values["as"]);
  if (!taskId) throw new CliInputError("--task <id|numericId> is required");
  if (!actorId) throw new CliInputError(`--as <userId> is required: who ${who}`);
  const expand = values["expand"];
  return { world, taskId, actorId, expandMask: { paths: Array.isArray(expand) ? expand : [] } };
}

function actionResult(io: CliIO, asJson: boolean, r: { ok: true; value: { world: World; response: JsonValue; events: readonly unknown[] } } | { ok: false; error: { code: string; message: string } }, out: string | undefined): number {
  if (!r.ok) {
    if (asJson) json(io, { error: { code: r.error.code, message: r.error.message } });
    else io.stderr(`${r.error.code}: ${r.error.message}\n`);
    // No such task, or a malformed request, is the caller's input; anything else is the service
    // refusing a well-formed request (permission, state), which is a finding.
    return r.error.code === "NOT_FOUND" || r.error.code === "INVALID_ARGUMENT" ? EXIT.badInput : EXIT.findings;
  }
  if (out) writeWorldFile(io, out, r.value.world);
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

/** What `explain` is asked about: `--task`, or a request described by `--subject` and `--entitlement`. */
function explainTarget(values: CommandArgs["values"]): string | HypotheticalRequest {
  const task = str(values["task"]);
  const subject = str(values["subject"]);
  const entitlement = str(values["entitlement"]);
  const described = subject !== undefined || entitlement !== undefined || values["kind"] !== undefined || values["origin"] !== undefined || values["emergency"] === true;
  if (task !== undefined && described) throw new CliInputError("give --task, or --subject and --entitlement for a request that does not exist yet, not both");
  if (task !== undefined) return task;
  if (!described) throw new CliInputError("--task <id|numericId> is required (or --subject and --entitlement for a request that does not exist yet)");
  if (subject === undefined) throw new CliInputError("--subject <userId> is required with --entitlement: who asks");
  const slash = entitlement?.indexOf("/") ?? -1;
  if (entitlement === undefined || slash <= 0 || slash === entitlement.length - 1)
    throw new CliInputError("--entitlement <appId>/<entitlementId> is required with --subject, e.g. app-aws/ent-aws-prod-admin");
  const kind = str(values["kind"]) ?? "grant";
  if (kind !== "grant" && kind !== "revoke") throw new CliInputError(`--kind must be grant or revoke, not "${kind}"`);
  const origin = str(values["origin"]);
  return {
    kind,
    subject,
    entitlement: { appId: entitlement.slice(0, slash), id: entitlement.slice(slash + 1) },
    ...(origin === undefined ? {} : { origin }),
    ...(values["emergency"] === true ? { emergencyAccess: true } : {}),
  };
}

const commands: Record<string, Command> = {
  explain: {
    usage: "policy-sim explain --world <file> (--task <id|numericId> | --subject <userId> --entitlement <appId>/<entitlementId> [--kind grant|revoke] [--origin <o>] [--emergency]) [--json] [--verbose]",
    summary: "why a policy applies to a task, or how a request that does not exist yet would route",
    options: {
      world: { type: "string" },
      task: { type: "string" },
      subject: { type: "string" },
      entitlement: { type: "string" },
      kind: { type: "string" },
      origin: { type: "string" },
      emergency: { type: "boolean" },
      json: { type: "boolean" },
      verbose: { type: "boolean" },
    },
    run({ values }, io) {
      const target = explainTarget(values);
      const worldPath = str(values["world"]);
      // A world loaded before is not loaded again: the cache has its skeleton and this task's place.
      const cached = typeof target === "string" && worldPath ? io.worldCache?.forTask(worldPath, target) : undefined;
      const world = cached ?? readWorld(io, worldPath);
      const r = explain(world, target);
      if (!r.ok) {
        if (values["json"]) json(io, { error: r.error });
        else io.stderr(`${r.error.code}: ${r.error.message}\n`);
        return r.error.code === "NOT_FOUND" || r.error.code === "INVALID_ARGUMENT" ? EXIT.badInput : EXIT.findings;
      }
      if (values["json"]) json(io, r.value);
      else io.stdout(`${formatExplanation(r.value, { color: io.isTTY, verbose: values["verbose"] === true })}\n`);
      return r.value.result.kind === "selected" ? EXIT.ok : EXIT.findings;
    },
    help: [
      "--world <file>          the world",
      "--task <id>             a task of the world: its id or numericId",
      "--subject <userId>      …or a request that does not exist yet: who asks (a user of the world)",
      "--entitlement <a>/<e>   what for: the app id and entitlement id, e.g. app-aws/ent-aws-prod-admin",
      "--kind <k>              grant (default) or revoke",
      "--origin <o>            where the request comes from: WEBAPP (default), COPILOT, SLACK, API, …",
      "--emergency             an emergency-access request",
      "--verbose               the values of every sub-expression, not only of the deciding rules",
      "--json                  the Explanation as JSON (the same data the text is made from)",
      "",
      "A request is explained exactly as a new task for it would route. Exit 1 when no steps can be",
      "selected (no policy, a broken reference chain).",
      "",
      "  policy-sim explain --world fixtures/world.json --task 1001",
      "  policy-sim explain --world fixtures/world.json --subject u-dev2 --entitlement app-aws/ent-aws-prod-admin --emergency",
    ],
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
      const a = taskActionArgs(values, io, "performs the reset");
      const r = hardReset(a.world, { taskId: a.taskId, comment: str(values["comment"]) ?? "", expandMask: a.expandMask }, { actorId: a.actorId });
      return actionResult(io, values["json"] === true, r, str(values["out"]));
    },
    help: [
      ...actionFlagsHelp("who performs the reset (a Super Administrator, as on the service)", "the reset's comment, recorded in the task's audit trail", "reset"),
      "",
      "Prints the endpoint's 200 body. Exit 1 when the service would refuse (permission, state), 2 for",
      "an unknown task or a malformed request.",
      "",
      "  policy-sim reset --world fixtures/world.json --task 1001 --as u-super --comment \"re-route\" --out after.json",
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
      return actionResult(io, values["json"] === true, r, str(values["out"]));
    },
    help: [
      ...actionFlagsHelp("who comments (the requester, the subject, an approver, an administrator)", "the comment (the same flag as reset's)", "comment"),
      "",
      "Prints the endpoint's 200 body. Exit 1 when the service would refuse, 2 for an unknown task.",
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
      if (!source.trim()) throw new CliInputError("give the condition to check, e.g. policy-sim check 'subject.department == \"Eng\"'");
      const env = str(values["env"]) ?? "condition";
      if (env !== "condition" && env !== "approver" && env !== "config-rule") throw new CliInputError(`--env must be condition, approver or config-rule, not ${JSON.stringify(env)}`);
      const diagnostics = checkCondition(source, env);
      const returns = env === "approver" ? "returns users" : "returns bool";
      if (values["json"]) json(io, { diagnostics });
      else if (diagnostics.length === 0) io.stdout(env === "condition" ? "ok: the condition type-checks and returns bool\n" : `ok: the expression type-checks in the ${env} environment and ${returns}\n`);
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

const EXIT_CODES_LINE = "Exit codes: 0 ok, 1 findings or a refused action, 2 bad input, 70 an internal failure (please report it).";

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

function help(io: CliIO): void {
  io.stdout("policy-sim: simulate an identity-governance service's task policies\n\nCommands:\n");
  for (const [name, c] of Object.entries(commands)) io.stdout(`  ${name.padEnd(11)} ${c.summary}\n      ${c.usage}\n`);
  io.stdout("\n`policy-sim <command> --help` for one command's flags and examples.\n");
  io.stdout(`${EXIT_CODES_LINE}\n`);
}

function commandHelp(io: CliIO, name: string, c: Command): void {
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
  if (!name || name === "help" || name === "--help" || name === "-h") {
    const target = name === "help" ? rest[0] : undefined;
    const c = target === undefined ? undefined : commands[target];
    if (target !== undefined && c) commandHelp(io, target, c);
    else help(io);
    return name && (target === undefined || c) ? EXIT.ok : EXIT.badInput;
  }
  const command = commands[name];
  if (!command) {
    io.stderr(`unknown command "${name}"; try: ${Object.keys(commands).join(", ")} (policy-sim --help)\n`);
    return EXIT.badInput;
  }
  // Before parsing, so `--help` works whatever else is on the line (even a bad flag).
  if (wantsHelp(rest)) {
    commandHelp(io, name, command);
    return EXIT.ok;
  }
  const asJson = rest.includes("--json") && !rest.slice(0, Math.max(0, rest.indexOf("--json"))).includes("--");
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
