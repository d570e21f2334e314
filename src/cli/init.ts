/**
 * `policy-sim init`: writes the bundled sample tenant (Northwind Labs, the world every README
 * example runs on) and its policy test cases into the current folder, so someone who installed the
 * package can run the README's commands without cloning the repository.
 */
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { checkOutPath, CliInputError, type CliIO, type Command, EXIT, str, writeOutput } from "./command.js";
import { shellWord } from "../text/shell-word.js";

/** Where the package keeps the sample files: beside `dist/` when installed, or the repository's `fixtures/`. */
function sampleCandidates(name: string): string[] {
  return [new URL(`../fixtures/${name}`, import.meta.url), new URL(`../../fixtures/${name}`, import.meta.url)].map((u) => fileURLToPath(u));
}

function readSample(io: CliIO, name: string): string {
  for (const path of sampleCandidates(name)) {
    try {
      return io.readFile(path);
    } catch {
      // the next place
    }
  }
  throw new Error(`the package's sample ${name} is missing (looked in ${sampleCandidates(name).join(", ")})`);
}

function exists(io: CliIO, path: string): boolean {
  try {
    io.readFile(path);
    return true;
  } catch {
    return false;
  }
}

/** The files `init` writes: the sample world, and policy test cases that run against it. */
const SAMPLES: ReadonlyArray<{ readonly from: string; readonly to: (world: string) => string }> = [
  { from: "world.json", to: (world) => world },
  // Beside the world, wherever --out puts it (they were written under the current folder).
  { from: "policy-tests/prod-admin.yaml", to: (world) => join(dirname(world), "policy-tests/prod-admin.yaml") },
  { from: "policy-tests/defaults.json", to: (world) => join(dirname(world), "policy-tests/defaults.json") },
];

/**
 * The `init` command.
 *
 * @example
 * ```ts
 * await runCli(["init", "--out", "world.json"], io); // writes world.json and policy-tests/
 * ```
 */
export const initCommand: Command = {
  usage: "policy-sim init [--out <file>] [--force]",
  summary: "write the sample tenant (and policy test cases for it) to start from",
  help: [
    "--out <file>     where to write the sample world (default world.json); the test cases go to policy-tests/ beside it",
    "--force          overwrite files that exist",
    "",
    "The sample is Northwind Labs, the tenant every README example runs on. Then:",
    "  policy-sim explain --world world.json --task 1001",
    "  policy-sim test --world world.json 'policy-tests/*.{yaml,json}'",
    "",
    "  policy-sim init --out world.json",
  ],
  options: { out: { type: "string" }, force: { type: "boolean" } },
  run({ values }, io) {
    const world = str(values["out"]) ?? "world.json";
    checkOutPath(io, "--out", world, "in-place");
    const tests = join(dirname(world), "policy-tests/*.{yaml,json}");
    // A case file's "# Run:" line names the repository's paths; the copy names the ones just written
    // (a function, so a "$" in a path is not read as a replacement pattern).
    const run = `# Run: policy-sim test --world ${shellWord(world)} ${shellWord(tests, true)} --coverage`;
    const writes = SAMPLES.map((s) => ({ path: s.to(world), text: readSample(io, s.from).replace(/^# Run: policy-sim test --world fixtures\/world\.json .*$/m, () => run) }));
    if (values["force"] !== true) {
      const taken = writes.filter((w) => exists(io, w.path)).map((w) => w.path);
      if (taken.length > 0) throw new CliInputError(`${taken.join(", ")} already exist${taken.length === 1 ? "s" : ""}; --force overwrites`);
    }
    for (const w of writes)
      writeOutput(w.path === world ? "--out" : "the test case", w.path, () =>
        io.writeFile(w.path, w.path === world ? w.text.replace('"$schema": "../world.schema.json"', `"$schema": "${schemaFrom(world)}"`) : w.text),
      );
    io.stdout(`wrote ${writes.map((w) => w.path).join(", ")}\nnext: policy-sim explain --world ${shellWord(world)} --task 1001\n      policy-sim test --world ${shellWord(world)} ${shellWord(tests, true)}\n`);
    return EXIT.ok;
  },
};

/** The installed package's world schema, as a path from the folder the world is written to. */
function schemaFrom(world: string): string {
  const path = relative(dirname(world), "node_modules/policy-sim/world.schema.json").split("\\").join("/");
  return path.startsWith(".") ? path : `./${path}`;
}
