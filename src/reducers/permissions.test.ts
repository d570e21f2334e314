import { describe, expect, it } from "vitest";
import type { RoleKind } from "../model/directory.js";
import { sampleWorld } from "../../test/helpers.js";
import { mayPerform, objectPermissionsFor, type Relation, relationTo, taskActionsFor } from "./permissions.js";

const ROLES: readonly (readonly RoleKind[])[] = [[], ["SUPER_ADMIN"], ["CAMPAIGN_ADMIN"], ["READ_ONLY_ADMIN"], ["BASIC_USER"]];
const ACTIONS = [
  "TASK_ACTION_TYPE_COMMENT",
  "TASK_ACTION_TYPE_HARD_RESET",
  "TASK_ACTION_TYPE_RESTART",
  "TASK_ACTION_TYPE_DELETE",
  "TASK_ACTION_TYPE_APPROVE",
  "TASK_ACTION_TYPE_CLOSE",
];

describe("mayPerform", () => {
  it("agrees with taskActionsFor for every task of the sample world, every role and relation", () => {
    const world = sampleWorld();
    let checked = 0;
    for (const task of world.tasks.values())
      for (const deleted of [false, true]) {
        const t = deleted ? { ...task, deletedAt: "2026-11-22T09:00:00Z" } : task;
        for (const roles of ROLES)
          for (let bits = 0; bits < 32; bits++) {
            const r: Relation = {
              roles,
              emergencyGrantEnabled: false,
              subject: (bits & 1) !== 0,
              requester: (bits & 2) !== 0,
              approver: (bits & 4) !== 0,
              stepApprover: (bits & 8) !== 0,
              campaignManager: (bits & 16) !== 0,
            };
            const actions = taskActionsFor(t, r);
            for (const a of ACTIONS) {
              expect(mayPerform(t, r, a), `${task.id} ${a}`).toBe(actions.includes(a));
              checked++;
            }
          }
      }
    expect(checked).toBeGreaterThan(1000);
  });
});

describe("objectPermissions against actions (the spec: each task carries `actions` and `objectPermissions`, what the caller may do)", () => {
  it("says delete exactly when the task's actions offer DELETE, for every user and task of the sample (campaign managers included)", () => {
    const world = sampleWorld();
    let deletable = 0;
    let pairs = 0;
    for (const task of world.tasks.values())
      for (const user of world.users) {
        const r = relationTo(world, task, user);
        expect(objectPermissionsFor(r, task).delete, `${user.id} on ${task.numericId}`).toBe(taskActionsFor(task, r).includes("TASK_ACTION_TYPE_DELETE"));
        if (objectPermissionsFor(r, task).delete) deletable++;
        pairs++;
      }
    // Super Administrators and campaign managers: some pairs may delete, most may not.
    expect(deletable).toBeGreaterThan(world.tasks.size);
    expect(deletable).toBeLessThan(pairs / 2);
  });
});
