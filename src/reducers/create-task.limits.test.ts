/**
 * Task creation is bounded (hostile-input review: 4,000 grant requests with 1 MB descriptions took a
 * server out of memory): README "Assumptions", src/reducers/limits.ts.
 */
import { describe, expect, it } from "vitest";
import { sampleWorld } from "../../test/helpers.js";
import type { Task } from "../model/index.js";
import { createGrantTask, createOffboardingTask } from "./create-task.js";
import { MAX_DESCRIPTION_CHARS, MAX_OPEN_TASKS_PER_CREATOR, MAX_REQUEST_DATA_CHARS } from "./limits.js";

const req = { appId: "app-aws", appEntitlementId: "ent-aws-prod-admin" };
const ctx = { actorId: "u-contractor" };

describe("task creation limits", () => {
  it(`a description of ${MAX_DESCRIPTION_CHARS.toLocaleString("en")} characters is taken; one more is INVALID_ARGUMENT at description`, () => {
    const world = sampleWorld();
    expect(createGrantTask(world, { ...req, description: "é".repeat(MAX_DESCRIPTION_CHARS) }, ctx).ok).toBe(true);
    const r = createGrantTask(world, { ...req, description: "x".repeat(MAX_DESCRIPTION_CHARS + 1) }, ctx);
    expect(r.ok ? null : [r.error.code, r.error.message]).toEqual(["INVALID_ARGUMENT", "description is longer than 10,000 characters"]);
    const o = createOffboardingTask(world, { subjectUserId: "u-contractor", description: "x".repeat(1_000_000) }, { actorId: "u-it-dir" });
    expect(o.ok ? null : o.error.code).toBe("INVALID_ARGUMENT");
  });
  it("requestData over 64 KiB of JSON is INVALID_ARGUMENT", () => {
    const r = createGrantTask(sampleWorld(), { ...req, requestData: { note: "x".repeat(MAX_REQUEST_DATA_CHARS) } } as never, ctx);
    expect(r.ok ? null : r.error.code).toBe("INVALID_ARGUMENT");
  });
  it(`a user with ${MAX_OPEN_TASKS_PER_CREATOR.toLocaleString("en")} open tasks of their own making is refused the next one; closed ones do not count`, () => {
    const world = sampleWorld();
    const template = [...world.tasks.values()].find((t) => t.state !== "TASK_STATE_CLOSED") as Task;
    let tasks = world.tasks;
    const made = (state: Task["state"]) => {
      for (let i = 0; i < MAX_OPEN_TASKS_PER_CREATOR; i++) {
        const id = `flood-${state}-${i}`;
        tasks = tasks.set(id, { ...template, id, numericId: `${900000 + i}${state === "TASK_STATE_CLOSED" ? "1" : "0"}`, createdByUserId: "u-contractor", state });
      }
    };
    made("TASK_STATE_CLOSED");
    const closedOnly = { ...world, tasks };
    expect(createGrantTask(closedOnly, req, ctx).ok).toBe(true);
    made("TASK_STATE_OPEN");
    const flooded = { ...world, tasks };
    const r = createGrantTask(flooded, req, ctx);
    expect(r.ok ? null : [r.error.code, r.error.message]).toEqual([
      "FAILED_PRECONDITION",
      'user "u-contractor" already has 10,000 open tasks of their own making, the most one user may have; close some first',
    ]);
    // Someone else is not held to u-contractor's count.
    expect(createGrantTask(flooded, req, { actorId: "u-dev1" }).ok).toBe(true);
  });
});
