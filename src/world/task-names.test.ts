/**
 * A misspelt task id is guessed at only in worlds small enough for the guess to be cheap: a guess
 * reads every task's id, and an embedder may pass ids its own users typed.
 */
import { describe, expect, it } from "vitest";
import { sampleWorld } from "../../test/helpers.js";
import { didYouMean } from "../text/closest.js";
import { TASK_GUESS_LIMIT, taskNames, type World } from "./world.js";

describe("taskNames", () => {
  it("lists every task's id and numericId of the sample, for a guess at 10001", () => {
    const world = sampleWorld();
    const names = [...taskNames(world)];
    expect(names.length).toBe([...world.tasks.values()].reduce((n, t) => n + (t.numericId ? 2 : 1), 0));
    expect(didYouMean("10001", taskNames(world))).toBe('; did you mean "1001"?');
  });

  it(`lists none in a world of more than ${TASK_GUESS_LIMIT.toLocaleString("en")} tasks, without reading them`, () => {
    const world = sampleWorld();
    let read = 0;
    const tasks = {
      size: TASK_GUESS_LIMIT + 1,
      values: () => {
        read++;
        return world.tasks.values();
      },
    } as unknown as World["tasks"];
    const big = { ...world, tasks } as World;
    expect([...taskNames(big)]).toEqual([]);
    expect(read).toBe(0);
    expect(didYouMean("10001", taskNames(big))).toBe("");
  });
});
