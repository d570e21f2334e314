/**
 * `policy-sim check-world`: does a world file load, and does it say what its author meant? Errors
 * (it does not load) and warnings (probable typos) with their JSON paths, and a one-line verdict.
 */
import { loadWorldChunks } from "../world/load-world.js";
import type { World } from "../world/world.js";
import { type Command, EXIT, plural, printJson, readChunks, str, CliInputError, formatWorldWarning } from "./command.js";
import { lintWorld } from "./lint.js";

/** The lint errors of the world's policies and configuration rules (what the service would refuse to save), as `lint --all` finds them. */
function policyLintErrors(world: World): { readonly policyId: string; readonly code: string; readonly path: string; readonly message: string }[] {
  return lintWorld(world).flatMap((l) => l.findings.filter((f) => f.severity === "error").map((f) => ({ policyId: l.id, code: f.code, path: f.path, message: f.message })));
}

/**
 * The `check-world` command: exit 0 when the world loads (warnings are printed but pass, unless
 * `--strict`), 1 when it does not load or (with `--strict`) has warnings, 2 when the file cannot be read.
 *
 * @example
 * ```ts
 * await runCli(["check-world", "--world", "fixtures/world.json"], io); // 0, "ok: … no warnings"
 * ```
 */
export const checkWorldCommand: Command = {
  usage: "policy-sim check-world --world <file> [--strict] [--json]",
  summary: "check a world file: what stops it loading, and probable typos (a field close to a known one, a value not in its set)",
  help: [
    "--world <file>   the world file to check",
    "--strict         warnings and policy lint errors fail too (exit 1): for a CI gate on hand-written worlds",
    "--json           { errors: [...], warnings: [...] }, each { code, path, message }",
    "",
    "Unknown fields are kept (the service adds fields), so only near misses are warned about,",
    "each with the name it probably meant. Exit 0 when the world loads, 1 when it does not.",
    "",
    "  policy-sim check-world --world fixtures/world.json",
  ],
  options: { world: { type: "string" }, strict: { type: "boolean" }, json: { type: "boolean" } },
  run({ values }, io) {
    const path = str(values["world"]);
    if (!path) throw new CliInputError("--world <file> is required: the world file to check");
    // Streamed when the IO can (as every other command loads a world): a file over V8's 512 MiB
    // string limit loads, and malformed JSON is an error of the world (exit 1), not of the flag.
    const read = io.readFileChunks ?? ((p: string) => [new TextEncoder().encode(io.readFile(p))]);
    const loaded = loadWorldChunks(readChunks(read, path));
    const errors = loaded.ok ? [] : loaded.error;
    const warnings = loaded.ok ? loaded.value.warnings : [];
    // What the service would refuse to save: the world loads, but its policies do not pass lint.
    const lintErrors = loaded.ok ? policyLintErrors(loaded.value) : [];
    const failed = errors.length > 0 || (values["strict"] === true && (warnings.length > 0 || lintErrors.length > 0));
    if (values["json"] === true) printJson(io, { world: path, ok: !failed, errors, warnings, lintErrors });
    else {
      for (const e of errors) io.stdout(`error ${e.code} at ${e.path}: ${e.message}\n`);
      for (const w of warnings) io.stdout(`${formatWorldWarning(w)}\n`);
      for (const l of lintErrors) io.stdout(`lint error ${l.code} in policy ${l.policyId} at ${l.path}: ${l.message}\n`);
      const lint = lintErrors.length > 0 ? `; ${plural(lintErrors.length, "lint error")} in its policies (policy-sim lint --world ${path} --all)` : "";
      io.stdout(
        errors.length > 0
          ? `${path} does not load: ${plural(errors.length, "error")}\n`
          : `${warnings.length === 0 && lint === "" ? "ok" : "loads"}: ${path}, ${warnings.length === 0 ? "no warnings" : plural(warnings.length, "warning")}${lint}\n`,
      );
    }
    return failed ? EXIT.findings : EXIT.ok;
  },
};
