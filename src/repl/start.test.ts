import { readFileSync } from "node:fs";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { loadWorld } from "../world/load-world.js";
import { startRepl } from "./start.js";

const disk = (p: string): string => readFileSync(p, "utf8");
const loaded = loadWorld(JSON.parse(disk("fixtures/world.json")));
if (!loaded.ok) throw new Error("the sample world does not load");
const world = loaded.value;

/** Runs a scripted session: each line is typed, then the input ends; returns everything printed. */
async function session(lines: readonly string[], extraFiles: Record<string, string> = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = "";
  output.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
  const written = new Map<string, string>();
  const repl = startRepl({
    world,
    source: "fixtures/world.json",
    input,
    output,
    terminal: false,
    files: { readFile: (p) => extraFiles[p] ?? disk(p), writeFile: (p, s) => void written.set(p, s) },
  });
  for (const line of lines) {
    input.write(`${line}\n`);
    // One line at a time, as a person types: async evaluations finish before the next line.
    await new Promise((r) => setTimeout(r, 20));
  }
  input.end();
  await repl.closed;
  return { text, repl, written };
}

describe("startRepl: a misspelt function", () => {
  it("is named with the function it is near before node's ReferenceError; a name near none is left to node (author review)", async () => {
    const { text } = await session(['explainn("1001")', "zzzqqq"]);
    expect(text).toContain("explainn is no function of this REPL: did you mean explain? (.help lists them)");
    expect(text).toContain("explainn is not defined");
    expect(text).not.toContain("zzzqqq is no function");
  });
});

describe("startRepl: a scripted session", () => {
  it("prints a banner, explains, comments, shows the world, undoes", async () => {
    const { text, repl } = await session([
      'explain("1001")',
      'comment("1001", "hello", { as: "u-contractor" })',
      "world.comments.get(task('1001').data.id).length",
      ".undo",
      "world.comments.get(task('1001').data.id)?.length ?? 0",
    ]);
    expect(text).toMatch(/^policy-sim REPL on fixtures\/world\.json: 59 tasks, \d+ policies, now 2026-11-22T09:00:00Z\n/);
    expect(text).toContain('Task 1001 "Grant');
    expect(text).toContain("Selected: rule #2 of pol-prod-admin");
    expect(text).toContain("✓ comment of task 1001 by u-contractor");
    expect(text).toContain("world #2 (.undo goes back)");
    expect(text).toContain("undid comment of task 1001 by u-contractor; world #1 is current");
    const numbers = text.split("\n").map((l) => l.replace(/^(policy-sim> )+/, "")).filter((l) => /^\d+$/.test(l));
    expect(numbers).toHaveLength(2);
    expect(Number(numbers[0])).toBe(Number(numbers[1]) + 1);
    expect(repl.session.depth).toBe(1);
  });

  it("whatIf on an edited copy of a world policy", async () => {
    const { text } = await session(['p = policy("pol-prod-admin").data; undefined', "p.rules.splice(2, 1); undefined", "whatIf(p)", 'whatIf(p, { type: "revoke" }).data.counts.changed']);
    expect(text).toContain("Scope: open tasks\nEdit: policies pol-prod-admin\nTasks: 37 in scope of 59; 1 changed, 36 unchanged");
    expect(text).toMatch(/\n(policy-sim> )*0\n/);
  });

  it(".world loads another world; .help lists the functions and commands", async () => {
    const small = JSON.parse(disk("fixtures/world.json")) as { tasks: unknown[] };
    small.tasks = small.tasks.slice(0, 2);
    const { text, repl } = await session([".world small.json", "world.tasks.size", ".world nope.json", ".help"], { "small.json": JSON.stringify(small) });
    expect(text).toContain("loaded small.json: 2 tasks");
    expect(text).toMatch(/\n(policy-sim> )*2\n/);
    expect(text).toContain("✗ INVALID_ARGUMENT: cannot read nope.json");
    expect(text).toContain('reset("1022", { as: "u-it-dir", comment })');
    expect(text).toMatch(/\.world +Load another world file/);
    expect(text).toMatch(/\.undo +Go back to the world before the last change/);
    expect(text).toMatch(/\.exit /);
    expect(repl.session.world.tasks.size).toBe(2);
  });

  it("errors are one line, not stack traces; await works; save writes the file", async () => {
    const { text, written } = await session(['reset("1022", { as: "u-dev1" })', "await whatIf({})", 'save("out.json")', 'check("1 +")']);
    expect(text).toContain("✗ PERMISSION_DENIED: ");
    expect(text).toContain("✗ INVALID_ARGUMENT: not replacement policies:\n  $.id: a replacement policy needs the id");
    expect(text).toContain("saved the current world (59 tasks) to out.json");
    expect(text).toContain("CEL_SYNTAX");
    expect(text).not.toMatch(/^\s+at /m);
    expect(written.has("out.json")).toBe(true);
  });

  it("a line that goes on past a refusal shows the refusal before what the line threw", async () => {
    const { text } = await session(['explain("9999").data.rules[0]', 'explain("1001").data.rules[0] !== undefined', 'undefinedThing.x']);
    const lines = text.split("\n");
    const refusal = lines.findIndex((l) => l.includes("✗ NOT_FOUND") && l.includes("returned by a call on this line"));
    const thrown = lines.findIndex((l) => l.includes("TypeError"));
    expect(refusal, text).toBeGreaterThanOrEqual(0);
    expect(thrown).toBeGreaterThan(refusal);
    // A line without a refusal prints only its own error; a successful line prints its value.
    expect(text.match(/returned by a call on this line/g)).toHaveLength(1);
    expect(text).toContain("true");
    expect(text).toContain("undefinedThing is not defined");
  });

  it("the completer completes ids in strings and falls back to Node's for properties", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    output.resume();
    const repl = startRepl({ world, input, output, terminal: true, useColors: false });
    const complete = (line: string) =>
      new Promise<[string[], string]>((resolve, reject) => {
        const completer = repl.server.completer as (l: string, cb: (e: Error | null, r: [string[], string]) => void) => void;
        completer.call(repl.server, line, (e, r) => (e ? reject(e) : resolve(r)));
      });
    expect(await complete('explain("102')).toEqual([["1020", "1021", "1022", "1023", "1024", "1025", "1026", "1027", "1028", "1029"], "102"]);
    expect(await complete('reset("1022", { as: "u-it-d')).toEqual([["u-it-dir"], "u-it-d"]);
    expect((await complete("expl"))[0]).toContain("explain");
    expect((await complete("world.polic"))[0]).toContain("world.policies");
    repl.server.close();
    await repl.closed;
  });
});
