/**
 * `policy-sim lint`: a policy file (one policy or an array of them), or every policy of a world,
 * through `lintPolicy`. Findings print with their code, the JSONPath in the file that was read, the
 * message and, for CEL, the caret excerpt; any error-severity finding makes the exit code 1.
 */
import { quoted } from "../text/quoted.js";
import { lintConfigRule } from "../policy/lint-config-rules.js";
import { decodePolicy } from "../codec/index.js";
import type { Policy } from "../model/index.js";
import { type Finding, lintDecodedPolicy, lintPolicy } from "../policy/lint.js";
import type { Diagnostic } from "../world/read.js";
import { replaceInWorld, type World } from "../world/world.js";
import { type CliIO, CliInputError, type Command, EXIT, InputFileError, plural, printJson, readJsonFile, readWorld, str } from "./command.js";

/**
 * The findings of one linted policy. `base` is the policy's JSONPath in the file that was read
 * (`$`, `$[1]` in an array file, `$.policies[4]` in a world), and each finding's `path` is
 * rewritten under it, so a path points into that file.
 *
 * @example
 * ```ts
 * const r: LintedPolicy = { id: "pol-a", displayName: "A", base: "$[0]", findings: [] };
 * ```
 */
export interface LintedPolicy {
  readonly id: string;
  readonly displayName: string;
  readonly base: string;
  readonly findings: readonly Finding[];
}

/**
 * A finding's path moved under `base` (`$.rules[0]` under `$[2]` is `$[2].rules[0]`).
 *
 * @example
 * ```ts
 * rebase("$[2]", "$.rules[0].condition"); // "$[2].rules[0].condition"
 * ```
 */
export function rebase(base: string, path: string): string {
  return base === "$" ? path : path === "$" ? base : path.startsWith("$") ? base + path.slice(1) : path;
}

function rebased(base: string, findings: readonly Finding[]): Finding[] {
  return findings.map((f) => ({
    ...f,
    path: rebase(base, f.path),
    ...(f.related === undefined ? {} : { related: f.related.map((p) => rebase(base, p)) }),
  }));
}

const field = (doc: unknown, key: string): string => {
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return "";
  const v: unknown = (doc as Record<string, unknown>)[key];
  return typeof v === "string" ? v : "";
};

/**
 * Lints the documents of a policy file. With a world, the file's policies replace (or join) the
 * world's before each is linted, so references between the file's own policies resolve (a cycle
 * split over two policies is found on both).
 *
 * @example
 * ```ts
 * const results = lintDocuments([JSON.parse(text)], world);
 * const failed = results.some((r) => r.findings.some((f) => f.severity === "error"));
 * ```
 */
export function lintDocuments(docs: readonly unknown[], world: World | undefined, isArray: boolean): LintedPolicy[] {
  const decoded: Policy[] = [];
  for (const d of docs) {
    const r = decodePolicy(d);
    if (r.ok) decoded.push(r.value);
  }
  // Without a world the linter checks each policy alone and says which references it could not
  // follow; inventing a world here would invent the tenant flag and the directory too.
  const context = world !== undefined && decoded.length > 0 ? replaceInWorld(world, { policies: decoded }) : world;
  return docs.map((doc, i) => {
    const base = isArray ? `$[${i}]` : "$";
    return { id: field(doc, "id"), displayName: field(doc, "displayName"), base, findings: rebased(base, lintPolicy(doc, context)) };
  });
}

/**
 * Lints every policy of a world and its entitlement configuration rules, or only the policy with `policyId`; paths point into the world file
 * (`$.policies[3].rules[0]`). An id the world does not have gives an empty list.
 *
 * @example
 * ```ts
 * lintWorld(world).filter((r) => r.findings.length > 0);
 * lintWorld(world, "pol-prod-admin")[0]?.findings;
 * ```
 */
export function lintWorld(world: World, policyId?: string): LintedPolicy[] {
  const out: LintedPolicy[] = [];
  world.policies.forEach((p, i) => {
    if (policyId !== undefined && p.id !== policyId) return;
    const base = `$.policies[${i}]`;
    out.push({ id: p.id, displayName: p.displayName, base, findings: rebased(base, lintDecodedPolicy(p, world)) });
  });
  if (policyId !== undefined) return out;
  // Entitlement configuration rules are linted with the policies (their conditions and policy ids).
  (world.entitlementConfigurationRules ?? []).forEach((r, i) => {
    const base = `$.entitlementConfigurationRules[${i}]`;
    out.push({ id: r.id, displayName: `configuration rule of app ${r.appId}${r.displayName ? `: ${r.displayName}` : ""}`, base, findings: rebased(base, lintConfigRule(r, world)) });
  });
  return out;
}

/**
 * One finding as text: severity, code and path on the first line, then the message and, for CEL,
 * the excerpt with its carets.
 *
 * @example
 * ```ts
 * formatFinding({ code: "MISSING_BASELINE", severity: "error", path: "$.policySteps", message: "…" });
 * // "  error   MISSING_BASELINE at $.policySteps\n          …"
 * ```
 */
export function formatFinding(f: Finding, color = false): string {
  const paint = (code: string, s: string): string => (color ? `\u001b[${code}m${s}\u001b[0m` : s);
  const severity = f.severity === "error" ? paint("31", "error  ") : f.severity === "warning" ? paint("33", "warning") : paint("36", "info   ");
  // The checker's own code beside lint's (`CEL_TYPE_ERROR (CEL_UNDEFINED_FIELD)`): `check` names the same mistake by it.
  const celCode = f.cel?.celCode && f.cel.celCode !== f.code ? ` (${f.cel.celCode})` : "";
  const lines = [`  ${severity} ${paint("1", f.code)}${celCode} at ${f.path}`, `          ${f.message}`];
  if (f.cel) for (const l of f.cel.excerpt.split("\n")) lines.push(`          ${l}`);
  if (f.related && f.related.length > 0) lines.push(`          see ${f.related.join(", ")}`);
  return lines.join("\n");
}

function counts(results: readonly LintedPolicy[]): { errors: number; warnings: number; infos: number } {
  let errors = 0;
  let warnings = 0;
  let infos = 0;
  for (const r of results) for (const f of r.findings) f.severity === "error" ? errors++ : f.severity === "warning" ? warnings++ : infos++;
  return { errors, warnings, infos };
}

function report(io: CliIO, results: readonly LintedPolicy[], source: string, asJson: boolean, world?: { path: string; warnings: readonly Diagnostic[] }): number {
  const c = counts(results);
  const errors = c.errors;
  const worldWarnings = world?.warnings ?? [];
  const warnings = c.warnings + worldWarnings.length;
  if (asJson) printJson(io, { source, errors, warnings, ...(world ? { worldWarnings } : {}), policies: results });
  else {
    if (world && worldWarnings.length > 0) {
      io.stdout(`world ${world.path}\n`);
      const warn = io.isTTY ? "\u001b[33mwarning\u001b[0m" : "warning";
      for (const w of worldWarnings) io.stdout(`  ${warn} ${w.code} at ${w.path}\n          ${w.message}\n`);
    }
    for (const r of results) {
      if (r.findings.length === 0) continue;
      const name = r.displayName ? ` ${quoted(r.displayName)}` : "";
      io.stdout(`${r.id || "(no id)"}${name} at ${source}${r.base === "$" ? "" : ` ${r.base}`}\n`);
      for (const f of r.findings) io.stdout(`${formatFinding(f, io.isTTY)}\n`);
    }
    const total = plural(results.length, "policy").replace(/policys$/, "policies");
    // Notes (info: e.g. a condition that runs interpreted) are listed, and counted only when there are some.
    const notes = c.infos > 0 ? `, ${plural(c.infos, "note")}` : "";
    const clean = c.infos === 0 ? `ok: ${total}, no findings` : `ok: ${total}, no errors or warnings${notes}`;
    io.stdout(errors + warnings === 0 ? `${clean}\n` : `${plural(errors, "error")}, ${plural(warnings, "warning")}${notes} in ${total}\n`);
  }
  return errors > 0 ? EXIT.findings : EXIT.ok;
}

/**
 * The `lint` command.
 *
 * @example
 * ```ts
 * await runCli(["lint", "--world", "fixtures/world.json", "--policy", "fixtures/broken/cel-type-error.json"], io); // 1
 * ```
 */
export const lintCommand: Command = {
  usage: "policy-sim lint [--world <file>] (--policy <file> | --all) [--json]",
  summary: "lint a policy file (one policy or an array), or every policy of a world",
  help: [
    "--policy <file>  a wire Policy, or a JSON array of policies linted together",
    "--all            every policy of the world (the default when --policy is not given)",
    "--world <file>   resolve references, users and groups against this world (required with --all);",
    "                 the world's own warnings (probable typos: a field close to a known one, a value",
    "                 that is not one of its set) are listed first",
    "--json           { source, errors, warnings, policies: [{ id, displayName, base, findings }] }",
    "",
    "Paths point into the file that was read: $.rules[0] in a policy file, $[1].rules[0] in an",
    "array, $.policies[4].rules[0] in a world. Exit 1 when any finding is an error (warnings alone: 0).",
    "",
    "  policy-sim lint --world fixtures/world.json --policy fixtures/broken/cel-type-error.json",
    "  policy-sim lint --world fixtures/world.json --all",
  ],
  options: { world: { type: "string" }, policy: { type: "string" }, all: { type: "boolean" }, json: { type: "boolean" } },
  run({ values }, io) {
    const worldPath = str(values["world"]);
    const policyPath = str(values["policy"]);
    if (policyPath !== undefined && values["all"] === true) throw new CliInputError("give --policy <file> or --all, not both");
    const world = worldPath === undefined ? undefined : readWorld(io, worldPath, { quiet: true });
    const worldReport = world && worldPath ? { path: worldPath, warnings: world.warnings } : undefined;
    const asJson = values["json"] === true;
    if (policyPath === undefined) {
      if (!world || !worldPath) throw new CliInputError("give --policy <file>, or --world <file> to lint every policy of a world");
      return report(io, lintWorld(world), worldPath, asJson, worldReport);
    }
    const doc = readJsonFile(io, policyPath, "policy");
    if (isWorldFile(doc)) {
      throw new InputFileError(`${policyPath} is a world file, not a policy: lint its policies with policy-sim lint --world ${policyPath} --all`);
    }
    const docs: readonly unknown[] = Array.isArray(doc) ? doc : [doc];
    if (docs.length === 0) throw new InputFileError(`the policy file ${policyPath} is an empty array`);
    return report(io, lintDocuments(docs, world, Array.isArray(doc)), policyPath, asJson, worldReport);
  },
};

/** A world file (its `policies` list beside tasks, users or a version), which a policy never is. */
function isWorldFile(doc: unknown): boolean {
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return false;
  const o = doc as Record<string, unknown>;
  return Array.isArray(o["policies"]) && (Array.isArray(o["tasks"]) || Array.isArray(o["users"]) || o["version"] !== undefined);
}
