/**
 * Finding the library's optional parts at run time. The workflow engine's `simulate` may be absent
 * from a build (or not written yet); the CLI must still build, run every other command, and say
 * clearly that a command is not available rather than fail to load.
 */

/**
 * A module's export when it exists and is a function; `undefined` when the module cannot be loaded
 * or lacks it. `specifiers` are tried in order, relative to this file.
 *
 * @example
 * ```ts
 * const simulate = await optionalExport(["../workflow/simulate.js"], "simulate");
 * if (!simulate) io.stderr("simulate is not available in this build\n");
 * ```
 */
export async function optionalExport(specifiers: readonly string[], name: string): Promise<((...args: never[]) => unknown) | undefined> {
  for (const specifier of specifiers) {
    let mod: unknown;
    try {
      // A computed specifier, so neither tsc nor the bundler requires the module to exist.
      mod = (await import(specifier)) as unknown;
    } catch {
      continue;
    }
    if (typeof mod !== "object" || mod === null) continue;
    const f: unknown = (mod as Record<string, unknown>)[name];
    if (typeof f === "function") return f as (...args: never[]) => unknown;
  }
  return undefined;
}
