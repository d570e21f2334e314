/**
 * Who a grant request is for (openapi.yaml c1.api.task.v1.TaskServiceCreateGrantRequest): the
 * identity user, the owner of the account, or both when they agree — as ConductorOne's own CLI
 * (`cone get`, pkg/client/task.go) sends them for a user who has an account in the app.
 */
import { describe, expect, it } from "vitest";
import { sampleWorld } from "../../test/helpers.js";
import type { JsonObject } from "../model/json.js";
import { createGrantTask } from "./create-task.js";

const world = sampleWorld();
const ctx = { actorId: "u-dev1", now: "2026-11-22T09:00:00Z" };
const base = { appId: "app-aws", appEntitlementId: "ent-aws-prod-admin", description: "incident INC-42", grantDuration: "3600s", emergencyAccess: false };
const taskOf = (r: ReturnType<typeof createGrantTask>): JsonObject | undefined => (r.ok ? (((r.value.response as JsonObject)["taskView"] as JsonObject)["task"] as JsonObject) : undefined);

describe("openapi.yaml TaskServiceCreateGrantRequest: identityUserId and appUserId", () => {
  it("both, naming the user and the user's own account (cone get): the task is the user's, on that account", () => {
    const both = createGrantTask(world, { ...base, identityUserId: "u-dev1", appUserId: "au-aws-dev1" }, ctx);
    const t = taskOf(both);
    expect(t?.["userId"]).toBe("u-dev1");
    expect((t?.["type"] as { grant: JsonObject }).grant).toMatchObject({ identityUserId: "u-dev1", appUserId: "au-aws-dev1" });
  });
  it("both, the account another user's: INVALID_ARGUMENT saying whose it is; an empty appUserId (cone without an account) is the identity alone", () => {
    const r = createGrantTask(world, { ...base, identityUserId: "u-dev1", appUserId: "au-aws-cfo" }, ctx);
    expect(!r.ok && r.error).toMatchObject({ code: "INVALID_ARGUMENT" });
    expect(!r.ok && r.error.message).toContain('"u-cfo"');
    expect(taskOf(createGrantTask(world, { ...base, identityUserId: "u-dev1", appUserId: "" }, ctx))?.["userId"]).toBe("u-dev1");
  });
});
