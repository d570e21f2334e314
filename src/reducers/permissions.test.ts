import { describe, expect, it } from "vitest";
import type { RoleKind } from "../model/directory.js";
import { sampleWorld } from "../../test/helpers.js";
import { mayPerform, type Relation, taskActionsFor } from "./permissions.js";

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
