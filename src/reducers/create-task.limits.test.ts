/**
 * Task creation is bounded (hostile-input review: 4,000 grant requests with 1 MB descriptions took a
 * server out of memory): README "Assumptions", src/reducers/limits.ts.
 */
import { describe, expect, it } from "vitest";
import { sampleWorld } from "../../test/helpers.js";
import type { Task } from "../model/index.js";
import { createGrantTask, createOffboardingTask } from "./create-task.js";
import { MAX_DESCRIPTION_CHARS, MAX_OPEN_TASKS_PER_CREATOR, MAX_REQUEST_DATA_CHARS } from "./limits.js";
import { MAX_JSON_DEPTH } from "../codec/json-tools.js";
import { loadWorld } from "../world/load-world.js";
import { saveWorld } from "../world/save-world.js";

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
  it("requestData is the world's own copy: changing the caller's object afterwards changes nothing, and a saved world loads again", () => {
    const data: Record<string, unknown> = { reason: "on call" };
    const r = createGrantTask(sampleWorld(), { ...req, requestData: data } as never, ctx);
    if (!r.ok) throw new Error(r.error.message);
    data["reason"] = "changed afterwards";
    const made = [...r.value.world.tasks.values()].find((t) => t.data !== null && (t.data as Record<string, unknown>)["reason"] !== undefined);
    expect(made?.data).toEqual({ reason: "on call" });
    // As deep as a world file keeps: taken, saved and loaded again.
    let deep: unknown = "leaf";
    for (let i = 0; i < MAX_JSON_DEPTH; i++) deep = { d: deep };
    const kept = createGrantTask(sampleWorld(), { ...req, requestData: deep } as never, ctx);
    if (!kept.ok) throw new Error(kept.error.message);
    expect(loadWorld(JSON.parse(JSON.stringify(saveWorld(kept.value.world)))).ok).toBe(true);
  });
  it("requestData deeper than a world file keeps, or referring to itself, is INVALID_ARGUMENT at requestData, not a throw", () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 20_000; i++) deep = { d: deep };
    const tooDeep = createGrantTask(sampleWorld(), { ...req, requestData: deep } as never, ctx);
    expect(tooDeep.ok ? null : tooDeep.error).toMatchObject({ code: "INVALID_ARGUMENT", field: "requestData", message: `requestData nests more than ${MAX_JSON_DEPTH} levels, the most a world file keeps` });
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic["self"] = cyclic;
    const cycle = createGrantTask(sampleWorld(), { ...req, requestData: cyclic } as never, ctx);
    expect(cycle.ok ? null : cycle.error).toMatchObject({ code: "INVALID_ARGUMENT", field: "requestData", message: "requestData refers to itself, which JSON cannot write" });
    // Shared, not cyclic: fine.
    const shared = { x: 1 };
    expect(createGrantTask(sampleWorld(), { ...req, requestData: { a: shared, b: shared } } as never, ctx).ok).toBe(true);
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
