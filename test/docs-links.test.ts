/**
 * Issue 14.10: the README, the docs and the code's comments point only at files that exist in the
 * repository (the package ships the README and the code's types): no design notes from outside it.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..");

function filesUnder(dir: string, keep: (f: string) => boolean): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const rel = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(rel, keep));
    else if (keep(rel)) out.push(rel);
  }
  return out;
}

const markdown = ["README.md", ...filesUnder("docs", (f) => f.endsWith(".md")), ...filesUnder("src", (f) => f.endsWith(".md")), "bench/README.md", "fixtures/README.md"];
const sources = filesUnder("src", (f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !f.includes("test-helper"));

describe("links stay inside the repository", () => {
  it("no file names design notes that are not in the repository", () => {
    const outside = /DOMAIN\.md|ARCHITECTURE\.md|STYLE\.md|\.\.\/shared\//;
    const found = [...markdown, ...sources].filter((f) => outside.test(readFileSync(join(ROOT, f), "utf8")));
    expect(found).toEqual([]);
  });

  it.each(markdown.map((f) => [f]))("every relative link in %s resolves", (file) => {
    const text = readFileSync(join(ROOT, file), "utf8");
    const broken: string[] = [];
    for (const m of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
      const target = m[1] ?? "";
      if (/^[a-z]+:/.test(target)) continue;
      if (!existsSync(resolve(ROOT, dirname(file), target))) broken.push(target);
    }
    expect(broken).toEqual([]);
  });
});
