/**
 * File globs for the CLI (`policy-sim test 'policies/**\/*.cases.yaml'`), for shells that do not
 * expand them and CI configs that quote them: `*` and `?` within a name, `**` across folders,
 * `{a,b}` alternatives. Node 20 has no `fs.glob`; this walks with the IO's directory listing.
 */
import type { CliIO } from "./command.js";

/**
 * The folder a glob is walked from: its longest prefix of folders without glob syntax (`""` for the
 * working folder). `--watch` watches it, so that a file created there later is seen.
 *
 * @example
 * ```ts
 * globRoot("fixtures/policy-tests/*.yaml"); // "fixtures/policy-tests"
 * ```
 */
export function globRoot(pattern: string): string {
  const fixed: string[] = [];
  for (const p of pattern.split("/")) {
    if (isGlob(p)) break;
    fixed.push(p);
  }
  return fixed.join("/");
}

/** Whether a pattern has glob syntax at all (else it is a path, used as it is). */
export function isGlob(pattern: string): boolean {
  return /[*?{]/.test(pattern);
}

/** A glob as a regular expression over `/`-separated paths. */
export function globRegExp(pattern: string): RegExp {
  let re = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === "*" && pattern[i + 1] === "*") {
      // "**/" matches zero or more folders; a trailing "**" anything.
      const slash = pattern[i + 2] === "/";
      re += slash ? "(?:[^/]*/)*" : ".*";
      i += slash ? 2 : 1;
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else if (c === "{") {
      const end = pattern.indexOf("}", i);
      if (end < 0) re += "\\{";
      else {
        re += `(?:${pattern.slice(i + 1, end).split(",").map((a) => a.replace(/[.+^$()|[\]\\]/g, "\\$&")).join("|")})`;
        i = end;
      }
    } else re += c.replace(/[.+^$()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

/**
 * The files a list of paths and globs names, in order, each once. A glob is walked from its
 * longest folder prefix without glob syntax; folders named `node_modules` and hidden ones are skipped.
 *
 * @example
 * ```ts
 * expandGlobs(["fixtures/policy-tests/*.yaml"], io); // ["fixtures/policy-tests/prod-admin.yaml", …]
 * ```
 */
export function expandGlobs(patterns: readonly string[], io: Pick<CliIO, "listDir">): { files: string[]; empty: string[] } {
  const files: string[] = [];
  const seen = new Set<string>();
  const empty: string[] = [];
  const add = (f: string): void => {
    if (!seen.has(f)) {
      seen.add(f);
      files.push(f);
    }
  };
  for (const pattern of patterns) {
    if (!isGlob(pattern)) {
      add(pattern);
      continue;
    }
    const root = globRoot(pattern);
    const re = globRegExp(pattern);
    const found: string[] = [];
    const walk = (dir: string, depth: number): void => {
      if (depth > 32 || !io.listDir) return;
      for (const entry of io.listDir(dir === "" ? "." : dir)) {
        if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
        const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
        if (entry.isDirectory) walk(path, depth + 1);
        else if (re.test(path)) found.push(path);
      }
    };
    try {
      walk(root, 0);
    } catch (e: unknown) {
      // The folder before the first wildcard is not there (or not a folder): nothing matches.
      const code = typeof e === "object" && e !== null && "code" in e ? String(e.code) : "";
      if (code !== "ENOENT" && code !== "ENOTDIR") throw e;
    }
    found.sort();
    if (found.length === 0) empty.push(pattern);
    found.forEach(add);
  }
  return { files, empty };
}
