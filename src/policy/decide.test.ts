import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadWorld } from "../world/load-world.js";
import { findTask, type World } from "../world/world.js";
import { decide } from "./decide.js";

const world: World = (() => {
  const r = loadWorld(JSON.parse(readFileSync("fixtures/world.json", "utf8")));
  if (!r.ok) throw new Error("fixtures/world.json does not load");
  return r.value;
})();

/** What a decision says, without its functions (the conditions environment). */
const outcome = (d: ReturnType<typeof decide>) => ({ task: d.task, resolution: d.resolution, selection: d.selection });

describe("decide(world, task) from a JavaScript caller", () => {
  it("takes a task id or numericId, as explain does: the same decision as for the Task", () => {
    const task = findTask(world, "1001");
    if (!task) throw new Error("fixture changed: 1001");
    const byTask = outcome(decide(world, task));
    expect(byTask.selection?.ok).toBe(true);
    expect(outcome(decide(world, "1001"))).toEqual(byTask);
    expect(outcome(decide(world, task.id))).toEqual(byTask);
  });

  it("an id of no task: a NO_TASK resolution error saying so, no selection, no throw", () => {
    const d = decide(world, "9999");
    expect(d.resolution).toEqual({ ok: false, error: { code: "NO_TASK", message: 'the world has no task "9999" (by id or numericId)', checks: [] } });
    expect(d.selection).toBeNull();
  });

  it.each([
    ["undefined", undefined, "not undefined"],
    ["null", null, "not null"],
    ["a number", 1001, "not the number 1001"],
    ["an empty object", {}, "not an object with keys (none)"],
    ["an object that is not a task", { numericId: "1001" }, "not an object with keys numericId"],
  ])("%s: a NO_TASK resolution error that says what to pass, not a TypeError from deep inside", (_what, task, tail) => {
    const d = decide(world, task as never);
    expect(!d.resolution.ok && d.resolution.error.code).toBe("NO_TASK");
    expect(!d.resolution.ok && d.resolution.error.message).toBe(`decide(world, task): task must be a Task (e.g. findTask(world, "1001")) or a task id or numericId, ${tail}`);
  });

  it("a world that is not a World: a TypeError naming it", () => {
    expect(() => decide(undefined as never, "1001")).toThrow("decide(world, task): world must be a World (loadWorld's value), not undefined");
  });
});
