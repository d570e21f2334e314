/**
 * Every export of every entry point the package publishes (tsup.config.ts's `dts.entry`) carries
 * TSDoc with an `@example`: a library user reads what a function, type or constant is for, and how
 * it is called, where their editor shows it. Checked on the sources through the TypeScript
 * compiler's own view of each entry's exports (re-exports followed to their declarations).
 */
import { readFileSync } from "node:fs";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/** The published entries, read from tsup.config.ts so that a new entry is checked too. */
function entries(): string[] {
  const config = readFileSync(new URL("../tsup.config.ts", import.meta.url), "utf8");
  const dts = /dts:\s*\{\s*entry:\s*\{([^}]*)\}/.exec(config)?.[1] ?? "";
  return [...dts.matchAll(/"(src\/[^"]+\.ts)"/g)].map((m) => m[1] as string);
}

function hasExample(node: ts.Node): boolean {
  const tagged = (n: ts.Node): boolean => ts.getJSDocTags(n).some((t) => t.tagName.text === "example");
  // `export const x = …`: the comment sits on the statement, not the declaration.
  return tagged(node) || (ts.isVariableDeclaration(node) && tagged(node.parent.parent));
}

describe("TSDoc on the public API", () => {
  it("gives every export of every published entry an @example", () => {
    const files = entries();
    expect(files.length).toBeGreaterThanOrEqual(7);
    const program = ts.createProgram(files, { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, strict: true, noEmit: true });
    const checker = program.getTypeChecker();
    const missing: string[] = [];
    let exports = 0;
    for (const file of files) {
      const source = program.getSourceFile(file);
      const module = source && checker.getSymbolAtLocation(source);
      expect(module, file).toBeDefined();
      for (const exported of checker.getExportsOfModule(module as ts.Symbol)) {
        exports++;
        const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
        if (!(symbol.declarations ?? []).some(hasExample)) missing.push(`${file}: ${exported.name}`);
      }
    }
    expect(missing).toEqual([]);
    // The entries export several hundred names: the walk saw them.
    expect(exports).toBeGreaterThan(500);
  }, 120_000);
});
