/**
 * The README is a walk-through a newcomer runs: each `$ npm run -s cli -- …` transcript in it is
 * run here (in-process, on the README's own files) and must print what the README shows; the policy
 * test file it shows whole is test/readme-policy.test.ts, byte for byte. When a change of behaviour
 * changes a transcript, update the README with the new output.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { memoryIO } from "../src/cli/memory-io.js";
import { runCli } from "../src/cli/run.js";
import { explain } from "../src/explain/explain.js";
import { formatWhatIf, whatIf } from "../src/whatif/index.js";
import { loadWorld } from "../src/world/load-world.js";

const README = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const disk = (p: string): string => readFileSync(p, "utf8");

/** Splits a shell command line: single and double quotes, no expansions. */
function argv(line: string): string[] {
  const out: string[] = [];
  const re = /'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (const m of line.matchAll(re)) out.push(m[1] ?? (m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : (m[3] ?? "")));
  return out;
}

interface Transcript {
  readonly command: string;
  readonly expected: string;
}

/** `$ npm run -s cli -- …` lines in console blocks, each with the lines printed up to the next `$` or the block's end. */
function transcripts(markdown: string): Transcript[] {
  const out: Transcript[] = [];
  for (const block of markdown.matchAll(/```console\n([\s\S]*?)```/g)) {
    const lines = (block[1] ?? "").split("\n");
    let current: { command: string; lines: string[] } | undefined;
    const flush = (): void => {
      if (current) out.push({ command: current.command, expected: `${current.lines.join("\n").trimEnd()}\n` });
      current = undefined;
    };
    for (const line of lines) {
      if (line.startsWith("$ ")) {
        flush();
        current = { command: line.slice(2), lines: [] };
      } else current?.lines.push(line);
    }
    flush();
  }
  return out;
}

// The README's recipe for edited.json: pol-prod-admin without rule #2.
function editedPolicy(): string {
  const world = JSON.parse(disk("fixtures/world.json")) as { policies: Array<{ id: string; rules: unknown[] }> };
  const p = world.policies.find((x) => x.id === "pol-prod-admin");
  p?.rules.splice(2, 1);
  return JSON.stringify(p, null, 2);
}

describe("README", () => {
  const runnable = transcripts(README).filter((t) => t.command.startsWith("npm run -s cli -- ") && !/ repl\b/.test(t.command));

  it("has CLI transcripts to check", () => {
    expect(runnable.length).toBeGreaterThanOrEqual(4);
  });

  it.each(runnable.map((t) => [t.command, t] as const))("$ %s prints what the README shows", async (_c, t) => {
    const io = memoryIO({ files: { "edited.json": editedPolicy() }, fallback: disk });
    await runCli(argv(t.command.slice("npm run -s cli -- ".length)), io);
    expect(io.out() + io.err(), "update the README's transcript if the new output is right").toBe(t.expected);
  });

  it("shows test/readme-policy.test.ts whole, as the policy test file", () => {
    const file = readFileSync(new URL("./readme-policy.test.ts", import.meta.url), "utf8");
    expect(README).toContain("```ts\n" + file + "```\n");
  });

  it("its minimal complete world loads without warnings and routes as the README says", () => {
    const block = /### A minimal complete world[\s\S]*?```json\n([\s\S]*?)```/.exec(README)?.[1];
    expect(block, "the README's minimal world").toBeDefined();
    const loaded = loadWorld(JSON.parse(block ?? "null"));
    if (!loaded.ok) throw new Error(loaded.error.map((d) => `${d.path}: ${d.message}`).join("\n"));
    expect(loaded.value.warnings).toEqual([]);
    const w = loaded.value;
    expect([w.apps.length, w.entitlements.length, w.users.length, w.tasks.size, w.policies[0]?.rules?.length]).toEqual([1, 2, 3, 2, 2]);
    const t1 = explain(w, "1");
    const t2 = explain(w, "2");
    expect(t1.ok && t1.value.result.kind === "selected" && t1.value.result.steps.map((x) => x.detail)).toEqual(["approval by manager", "approval by users u-cy", "provision via connector"]);
    expect(t2.ok && t2.value.result.kind === "selected" && t2.value.result.steps.map((x) => x.kind)).toEqual(["provision"]);
  });

  it("its what-if example prints what the README shows (formatWhatIf of the same recipe on the sample)", () => {
    const loaded = loadWorld(JSON.parse(disk("fixtures/world.json")));
    if (!loaded.ok) throw new Error("the sample does not load");
    const r = whatIf(loaded.value, (draft) => {
      const p = draft.policies.find((x) => x.id === "pol-prod-admin");
      p?.rules?.splice(2, 1);
    });
    expect(r.ok && r.value.counts).toEqual({ inWorld: 59, inScope: 37, changed: 1, unchanged: 36, unchangedErrors: 0 });
    const block = /console\.log\(formatWhatIf\(r\.value\)\);[\s\S]*?```text\n([\s\S]*?)```/.exec(README)?.[1];
    expect(block, "the README's formatWhatIf output").toBeDefined();
    expect(r.ok && `${formatWhatIf(r.value).trimEnd()}\n`, "update the README's what-if output if the new one is right").toBe(block);
  });

  it("starts with the two commands a newcomer runs, both with npm ci", () => {
    expect(README).toMatch(/^# policy-sim\n\n```sh\nnpm ci && npm run sample[^\n]*\nnpm ci && npm test[^\n]*\n```/);
  });
});
