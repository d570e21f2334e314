import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CommentLog } from "./comment-log.js";
import { loadWorld } from "./load-world.js";
import { type World, withTaskTables } from "./world.js";

const sample = JSON.parse(readFileSync(new URL("../../fixtures/world.json", import.meta.url), "utf8")) as Record<string, unknown>;

function load(json: unknown): World {
  const r = loadWorld(json);
  if (!r.ok) throw new Error(JSON.stringify(r.error.slice(0, 2)));
  return r.value;
}

describe("withTaskTables", () => {
  it.each([
    ["the sample tenant", load(sample)],
    ["a world with unknown top-level fields", load({ ...sample, addedLater: { x: 1 } })],
  ])("is `{ ...world, tasks, comments, seq }`, key for key (%s)", (_, world) => {
    const task = [...world.tasks.values()][0]!;
    const tasks = world.tasks.set(task.id, { ...task, displayName: "changed" });
    const comments = world.comments.set(task.id, CommentLog.of([]));
    const next = withTaskTables(world, tasks, comments, world.seq + 5);
    const spread = { ...world, tasks, comments, seq: world.seq + 5 };
    expect(Object.keys(next)).toEqual(Object.keys(spread));
    for (const key of Object.keys(spread) as (keyof World)[]) expect(next[key]).toBe(spread[key]);
  });
});
