/**
 * Issue 14.11: the REPL offers every action of the engine under the library's names (reduce, tick,
 * hardReset beside reset and comment), and printing `world` shows a summary, not thousands of lines.
 */
import { readFileSync } from "node:fs";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { loadWorld } from "../world/load-world.js";
import { createSession } from "./session.js";
import { startRepl, worldSummary } from "./start.js";

const disk = (p: string): string => readFileSync(p, "utf8");
const loaded = loadWorld(JSON.parse(disk("fixtures/world.json")));
if (!loaded.ok) throw new Error("fixture");
const world = loaded.value;
const session = () => createSession(world, { files: { readFile: disk, writeFile: () => {} } });

describe("REPL actions under the library's names", () => {
  it("reduce applies any engine action and pushes the world (undo goes back)", () => {
    const s = session();
    const r = s.api.reduce({ type: "approve", taskId: "1001", comment: "ok" }, { as: "u-sre-lead" });
    expect(String(r)).toContain("✓ approve of task 1001 by u-sre-lead");
    expect(s.depth).toBe(2);
    s.api.undo();
    expect(s.depth).toBe(1);
  });

  it("reduce with an unknown type or without who acts is a failure that lists the types", () => {
    const s = session();
    expect(String(s.api.reduce({ type: "approve", taskId: "1001" }))).toMatch(/✗ INVALID_ARGUMENT: .*approve, approveWithStepUp, deny/);
    expect(String(s.api.reduce({ type: "fly", taskId: "1001" }, { as: "u-sre-lead" }))).toContain("✗ INVALID_ARGUMENT: unknown action type");
  });

  it("tick moves the clock and fires what is due; hardReset is reset", () => {
    const s = session();
    expect(String(s.api.tick("2026-11-23T09:00:00Z"))).toContain("✓ clock at 2026-11-23T09:00:00Z");
    expect(s.world.now).toBe("2026-11-23T09:00:00Z");
    expect(String(s.api.hardReset("1022", { as: "u-it-dir" }))).toContain("✓ Hard Reset of task 1022 by u-it-dir");
  });
});

describe("printing the world", () => {
  it("is a summary of a few lines", () => {
    const text = worldSummary(world);
    expect(text.split("\n").length).toBeLessThanOrEqual(5);
    expect(text).toContain("59 tasks (37 open)");
  });

  it("the REPL prints the summary for `world`", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let out = "";
    output.on("data", (c: Buffer) => (out += c.toString()));
    const repl = startRepl({ world, input, output, terminal: false });
    input.end("world\n");
    await repl.closed;
    expect(out).toContain("World at 2026-11-22T09:00:00Z\n  59 tasks (37 open)");
    expect(out.split("\n").length).toBeLessThan(15);
  });
});
