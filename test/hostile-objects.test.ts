/**
 * Arguments whose reads throw (a proxy whose traps throw, a getter that throws): the public
 * functions answer with a value saying the argument cannot be read, never by throwing.
 */
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { decide, explain, loadWorld, whatIf, whatIfWorlds } from "../src/index.js";
import type { Task } from "../src/index.js";

const loaded = loadWorld(JSON.parse(readFileSync("fixtures/world.json", "utf8")));
if (!loaded.ok) throw new Error("the sample world does not load");
const world = loaded.value;

const TRAPS = ["get", "has", "ownKeys", "getOwnPropertyDescriptor", "getPrototypeOf"] as const;

/** A proxy over `target` whose traps in `throwing` throw; the rest behave. */
function hostile(target: object, throwing: readonly (typeof TRAPS)[number][]): object {
  const handler: ProxyHandler<object> = {};
  for (const trap of throwing)
    (handler as Record<string, unknown>)[trap] = () => {
      throw new Error(`trap ${trap}`);
    };
  return new Proxy(target, handler);
}

const someTraps = fc.subarray([...TRAPS], { minLength: 1 });
const task1001 = (): Task => {
  const t = world.tasks.get(world.taskIdByNumericId.get("1001") ?? "");
  if (!t) throw new Error("no task 1001");
  return t;
};

describe("hostile arguments", () => {
  it("decide: a task whose reads throw is a NO_TASK resolution saying it cannot be read", () => {
    fc.assert(
      fc.property(someTraps, fc.constantFrom<object>({}, task1001()), (traps, target) => {
        const d = decide(world, hostile(target, traps) as Task);
        // A trap the decision never reached leaves a real decision; one it reached, a NO_TASK.
        if (!d.resolution.ok && d.resolution.error.code === "NO_TASK") expect(d.resolution.error.message).toMatch(/cannot be read: trap |must be a Task/);
        expect(d.selection === null || typeof d.selection.ok === "boolean").toBe(true);
      }),
      { numRuns: 60 },
    );
    const d = decide(world, hostile({}, ["get"]) as Task);
    expect(!d.resolution.ok && d.resolution.error).toMatchObject({ code: "NO_TASK", message: "decide(world, task): the task cannot be read: trap get" });
  });

  it("explain: a request whose reads throw is INVALID_ARGUMENT", () => {
    const r = explain(world, hostile({}, ["get"]) as never);
    expect(!r.ok && r.error).toMatchObject({ code: "INVALID_ARGUMENT", message: "the request cannot be read: trap get" });
  });

  it("whatIf: an edit or options whose reads throw are INVALID_ARGUMENT naming them; an edited world likewise", () => {
    fc.assert(
      fc.property(someTraps, (traps) => {
        const edit = whatIf(world, hostile({ policies: [] }, traps) as never);
        // Only a trap the reader reached refuses; a proxy read without them is an ordinary edit.
        if (!edit.ok) expect(edit.error).toMatchObject({ code: "INVALID_ARGUMENT", field: "edit" });
        const options = whatIf(world, {}, hostile({}, traps) as never);
        if (!options.ok) expect(options.error.code).toBe("INVALID_ARGUMENT");
      }),
      { numRuns: 40 },
    );
    expect(whatIf(world, hostile({}, ["ownKeys"]) as never)).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT", message: "the edit cannot be read: trap ownKeys", field: "edit" } });
    const after = { ...world, policies: [hostile(world.policies[0] as object, ["get"])] };
    const r = whatIfWorlds(world, after as never);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error.code).toBe("INVALID_ARGUMENT");
    expect(!r.ok && r.error.message).toContain("trap get");
  });
  it("whatIf: an edit that writes a value 100,000 levels deep is INVALID_ARGUMENT saying so, not a bare stack overflow (hostile review)", () => {
    const r = whatIf(world, (w) => {
      let o: Record<string, unknown> = {};
      const root = o;
      for (let i = 0; i < 100_000; i++) o = (o["a"] = {}) as Record<string, unknown>;
      (w.policies[0] as { annotations: unknown }).annotations = root;
    });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatchObject({ code: "INVALID_ARGUMENT", field: "edit" });
    expect(!r.ok && r.error.message).toMatch(/nests too deeply \(a world keeps at most 512 levels\)|nests more than 512 levels/);
  });
});

describe("functions typed to take a loaded value say so when given null (hostile review 7: each threw 'Cannot read properties of null')", () => {
  it("loadWorldChunks answers a diagnostic; the formatters and savers throw a TypeError naming what they take", async () => {
    const { loadWorldChunks, saveWorld, worldJsonChunks, formatExplanation, formatWhatIf, encodeSimulation } = await import("policy-sim");
    const r = loadWorldChunks(null as unknown as Iterable<Uint8Array>);
    expect(!r.ok && r.error[0]).toMatchObject({ code: "EXPECTED_BYTES" });
    expect(() => saveWorld(null as never)).toThrow(new TypeError("saveWorld: world must be a World (loadWorld's value), not null"));
    expect(() => [...worldJsonChunks(null as never)]).toThrow(/^worldJsonChunks: world must be a World/);
    expect(() => formatExplanation(null as never)).toThrow(/^formatExplanation: expected an Explanation/);
    expect(() => formatWhatIf(null as never)).toThrow(/^formatWhatIf: expected a WhatIfResult/);
    expect(() => encodeSimulation(null as never)).toThrow(/^encodeSimulation: expected a SimulationRun/);
  });
});
