/**
 * `policy-sim explain`: why a policy applies to a task, or how a request that does not exist yet
 * would route. In a module of its own, importing only what `explain` needs: the executable runs it
 * without loading the other commands (their YAML, JOSE and HTTP dependencies), which is most of a
 * warm `explain`'s start-up.
 */
import { explain, type HypotheticalRequest } from "../explain/explain.js";
import { formatExplanation } from "../explain/format.js";
import { refusedWarning, routeLintErrors } from "../explain/route-lint.js";
import { TASK_ORIGIN_NAMES, taskOriginName } from "../whatif/task-spec.js";
import type { World } from "../world/world.js";
import { type CliIO, CliInputError, type Command, type CommandArgs, EXIT, formatWorldWarning, InputFileError, readWorld, str, worldAtClock } from "./command.js";
import { json, runCommand } from "./dispatch.js";

/**
 * An `--origin` value as the task origin it names, short or long (`copilot`, `COPILOT`,
 * `TASK_ORIGIN_COPILOT`); throws {@link CliInputError} listing the accepted values otherwise. The
 * library keeps an origin it does not know (a world from a newer service may carry one), but on the
 * command line an unknown one is a typo that would route as "no rule about origins matched".
 *
 * @example
 * ```ts
 * parseOrigin("copilot"); // "COPILOT"
 * ```
 */
export function parseOrigin(value: string): string {
  // Read as case files read it: the docs' older names too (TaskOrigin.SLACK is CHATAPP).
  const short = taskOriginName(value);
  if (short !== undefined) return short;
  throw new CliInputError(`--origin must be one of ${TASK_ORIGIN_NAMES.join(", ")} (or its TASK_ORIGIN_… name), not "${value}"`);
}

/** `items` comma-separated in lines of at most `width` characters, each indented by `indent`. */
function wrapList(items: readonly string[], indent: number, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const [i, item] of items.entries()) {
    const piece = `${item}${i < items.length - 1 ? "," : ""}`;
    if (line !== "" && indent + line.length + 1 + piece.length > width) {
      lines.push(`${" ".repeat(indent)}${line}`);
      line = piece;
    } else line = line === "" ? piece : `${line} ${piece}`;
  }
  if (line !== "") lines.push(`${" ".repeat(indent)}${line}`);
  return lines;
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
  const originFlag = str(values["origin"]);
  const origin = originFlag === undefined ? undefined : parseOrigin(originFlag);
  return {
    kind,
    subject,
    entitlement: { appId: entitlement.slice(0, slash), id: entitlement.slice(slash + 1) },
    ...(origin === undefined ? {} : { origin }),
    ...(values["emergency"] === true ? { emergencyAccess: true } : {}),
  };
}

/**
 * The `explain` command (see {@link runExplain}).
 *
 * @example
 * ```ts
 * await runCommand("explain", explainCommand, ["--world", "w.json", "--task", "1001"], io);
 * ```
 */
export const explainCommand: Command = {
  usage: "policy-sim explain --world <file> (--task <id|numericId> | --subject <userId> --entitlement <appId>/<entitlementId> [--kind grant|revoke] [--origin <o>] [--emergency]) [--edit <policy file> | --terraform-plan <plan.json>] [--now <time>] [--json] [--verbose]",
  summary: "why a policy applies to a task, or how a request that does not exist yet would route",
  options: {
    world: { type: "string" },
    task: { type: "string" },
    subject: { type: "string" },
    entitlement: { type: "string" },
    kind: { type: "string" },
    origin: { type: "string" },
    emergency: { type: "boolean" },
    now: { type: "string" },
    edit: { type: "string" },
    "terraform-plan": { type: "string" },
    json: { type: "boolean" },
    verbose: { type: "boolean" },
  },
  async run({ values }, io) {
    const target = explainTarget(values);
    const worldPath = str(values["world"]);
    const editPath = str(values["edit"]);
    const planPath = str(values["terraform-plan"]);
    if (editPath !== undefined && planPath !== undefined) throw new CliInputError("give --edit or --terraform-plan, not both");
    const editFile = editPath ?? planPath;
    // A world loaded before is not loaded again: the cache has its skeleton and this task's place.
    const cached = editFile === undefined && typeof target === "string" && worldPath ? io.worldCache?.forTask(worldPath, target) : undefined;
    // The warnings the full load printed, kept with the cache entry: the same output either way.
    if (cached && worldPath) for (const w of cached.warnings) io.stderr(`${worldPath}: ${formatWorldWarning(w)}\n`);
    const loaded = cached ?? readWorld(io, worldPath);
    // The world `whatif` compares against, with the same edit: why a task it lists routes as it now would.
    const edited = editFile === undefined ? loaded : await editedWorld(io, loaded, editPath, planPath);
    const world = worldAtClock(edited, values["now"]);
    const r = explain(world, target);
    if (!r.ok) {
      // Errors are one line on stderr; with --json stdout gets them too (README, "Exit codes").
      if (values["json"]) json(io, { error: r.error });
      io.stderr(`${r.error.code}: ${r.error.message}\n`);
      return r.error.code === "NOT_FOUND" || r.error.code === "INVALID_ARGUMENT" ? EXIT.badInput : EXIT.findings;
    }
    // A policy on the route the service would refuse to save: what it does here could never happen there.
    const refused = routeLintErrors(world, r.value);
    const warning = refusedWarning(refused);
    if (values["json"]) {
      json(io, r.value);
      if (warning !== "") io.stderr(warning);
    } else {
      const after = editFile === undefined ? "" : `After the edit in ${editFile} (without --${editPath !== undefined ? "edit" : "terraform-plan"}: before it)\n\n`;
      io.stdout(`${after}${warning}${formatExplanation(r.value, { color: io.isTTY, verbose: values["verbose"] === true })}\n`);
    }
    return r.value.result.kind === "selected" && refused.length === 0 ? EXIT.ok : EXIT.findings;
  },
  help: [
    "--world <file>          the world",
    "--task <id>             a task of the world: its id or numericId",
    "--subject <userId>      …or a request that does not exist yet: who asks (a user of the world)",
    "--entitlement <a>/<e>   what for: the app id and entitlement id, e.g. app-aws/ent-aws-prod-admin",
    "--kind <k>              grant (default) or revoke",
    "--origin <o>            where the request comes from, WEBAPP by default; one of",
    ...wrapList(TASK_ORIGIN_NAMES, 24, 100),
    "--emergency             an emergency-access request",
    "--now <time>            the clock the conditions read (RFC 3339; default: the world's now), e.g. after hours",
    "--edit <file>           explain in the world after this edit (a wire Policy or an array of them,",
    "                        as for whatif): why a task whatif lists routes as it would",
    "--terraform-plan <file> …or after this plan's conductorone_policy changes (`terraform show -json`)",
    "--verbose               the values of every sub-expression, not only of the deciding rules",
    "--json                  the Explanation as JSON (the same data the text is made from)",
    "",
    "A request is explained exactly as a new task for it would route. Exit 1 when no steps can be",
    "selected (no policy, a broken reference chain) or a policy on the route has a lint error the",
    "service would refuse to save (the text starts with a warning naming it).",
    "",
    "  policy-sim explain --world fixtures/world.json --task 1001",
    "  policy-sim explain --world fixtures/world.json --subject u-dev2 --entitlement app-aws/ent-aws-prod-admin --emergency",
  ],
};

/**
 * `world` after an `--edit` or `--terraform-plan` file's edit, as `whatif` applies it. The edit's
 * readers are loaded only then: a plain `explain` starts without them.
 */
async function editedWorld(io: CliIO, world: World, editPath: string | undefined, planPath: string | undefined): Promise<World> {
  const [{ policyEditFile, terraformPlanFile }, { applyEdit }] = await Promise.all([import("./whatif.js"), import("../whatif/what-if.js")]);
  let edit;
  if (editPath !== undefined) edit = policyEditFile(io, world, editPath);
  else {
    const plan = terraformPlanFile(io, world, planPath ?? "");
    // On stderr, as whatif prints them: an incomplete plan explains less than it seems to.
    for (const w of plan.warnings) io.stderr(`${planPath}: warning: ${w}\n`);
    edit = plan.edit;
  }
  try {
    return applyEdit(world, edit);
  } catch (e: unknown) {
    // applyEdit's TypeError: an edit the what-if would refuse, with its place.
    throw new InputFileError(`${editPath ?? planPath}: ${e instanceof Error ? e.message.replace(/^applyEdit: /, "") : String(e)}`);
  }
}

/**
 * Runs `policy-sim explain` with the arguments after the command's name (what the executable does
 * for `policy-sim explain …`, without loading the other commands); the same as
 * `runCli(["explain", ...args], io)`.
 *
 * @example
 * ```ts
 * const code = await runExplain(["--world", "fixtures/world.json", "--task", "1001"], io);
 * ```
 */
export function runExplain(args: readonly string[], io: CliIO): Promise<number> {
  return runCommand("explain", explainCommand, args, io);
}
