/**
 * `policy-sim/testing` (matchers, cases, the test runner) must load where fast-check is not
 * installed: it is an optional peer needed only by `policy-sim/testing/arbitraries` (issue 14.7).
 * Walks the static import graph from each entry's source and says which chain reaches fast-check.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The chain of files from `entry` to the first one that imports `pkg` at run time, or undefined. */
function chainTo(entry: string, pkg: string): string[] | undefined {
  const seen = new Set<string>();
  const walk = (file: string, path: string[]): string[] | undefined => {
    if (seen.has(file)) return undefined;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    // Run-time imports and re-exports; `import type` / `export type` vanish from the build.
    for (const m of text.matchAll(/^(?:import|export)\s+(?!type\s)(?:[^;]*?\sfrom\s+)?"([^"]+)";/gms)) {
      const spec = m[1] ?? "";
      if (spec === pkg || spec.startsWith(`${pkg}/`)) return [...path, file];
      if (spec.startsWith(".")) {
        const found = walk(resolve(dirname(file), spec.replace(/\.js$/, ".ts")), [...path, file]);
        if (found) return found;
      }
    }
    return undefined;
  };
  return walk(resolve(SRC, entry), []);
}

describe("entry points and optional peers", () => {
  it("policy-sim/testing imports without fast-check", () => {
    const chain = chainTo("testing/index.ts", "fast-check");
    expect(chain?.map((f) => f.slice(SRC.length + 1)), "this chain of imports reaches fast-check").toBeUndefined();
  });

  it("policy-sim/testing/arbitraries is where fast-check is needed", () => {
    expect(chainTo("testing/arbitraries-entry.ts", "fast-check")).toBeDefined();
  });

  it("no public entry imports vitest at run time", () => {
    for (const entry of ["index.ts", "testing/index.ts", "testing/arbitraries-entry.ts", "http/index.ts", "repl/index.ts"]) {
      expect(chainTo(entry, "vitest"), entry).toBeUndefined();
    }
  });
});
