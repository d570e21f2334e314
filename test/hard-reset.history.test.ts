import { describe, expect, it } from "vitest";
import type { JsonObject } from "../src/model/json.js";
import { hardReset } from "../src/reducers/hard-reset.js";
import { viewedHistory } from "../src/reducers/task-view.js";
import { saveWorld } from "../src/world/save-world.js";
import { findTask, type World } from "../src/world/world.js";
import { SUPER, sampleWorld } from "./helpers.js";

type Step = { readonly id: string; readonly policyGenerationId: string };

function resetMany(world: World, taskId: string, times: number): { world: World; sizes: number[]; histories: Step[][] } {
  const sizes: number[] = [];
  const histories: Step[][] = [];
  let w = world;
  for (let i = 0; i < times; i++) {
    const r = hardReset(w, { taskId }, { actorId: SUPER });
    if (!r.ok) throw new Error(r.error.message);
    w = r.value.world;
    sizes.push(JSON.stringify(r.value.response).length);
    const task = (r.value.response.taskView?.task ?? {}) as JsonObject;
    histories.push(((task["policy"] as JsonObject | null)?.["history"] ?? []) as unknown as Step[]);
  }
  return { world: w, sizes, histories };
}

describe("product_how-to_access-change-tasks.mdx: the history prior to a hard reset stays in the task's record; a response carries the last two runs (issue 15.3)", () => {
  const world = sampleWorld();
  const before = findTask(world, "1001")!;

  it("the response does not grow with the number of resets before it", () => {
    const { sizes } = resetMany(world, "1001", 60);
    // From the second reset on, every response carries the same number of steps.
    expect(new Set(sizes.slice(2)).size).toBe(1);
    expect(sizes[59]).toBeLessThan(2 * (sizes[0] as number));
  });

  it("carries the steps the reset retired and the new run's, in order; the world keeps every step", () => {
    const { world: after, histories } = resetMany(world, "1001", 5);
    const task = findTask(after, "1001")!;
    const full = task.policy?.history ?? [];
    // Every reset retires the running step and the pending ones: nothing leaves the world.
    const perReset = 1 + (before.policy?.next?.length ?? 0);
    expect(full.length).toBe((before.policy?.history?.length ?? 0) + 5 * perReset);
    const last = histories[4] as Step[];
    const gens = new Set(last.map((s) => s.policyGenerationId));
    expect(gens.size).toBeLessThanOrEqual(2);
    // The response's steps are the world's last ones, in the same order.
    expect(last.map((s) => s.id)).toEqual(full.slice(full.length - last.length).map((s) => s.id));
    // The steps the last reset retired are there: the previous run's current step.
    const previous = findTask(resetMany(world, "1001", 4).world, "1001")!;
    expect(last.map((s) => s.id)).toContain(previous.policy?.current?.id);
    // …and the file written from the world keeps them all.
    const saved = (saveWorld(after)["tasks"] as JsonObject[]).find((t) => t["id"] === task.id)!;
    expect(((saved["policy"] as JsonObject)["history"] as unknown[]).length).toBe(full.length);
  });

  it("a task never reset shows its whole history", () => {
    for (const task of world.tasks.values()) expect(viewedHistory(task)).toBe(task.policy?.history ?? null);
  });
});
