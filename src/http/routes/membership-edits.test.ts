/**
 * Manual memberships change what conditions see (openapi.yaml AppEntitlements.AddManuallyManagedMembers
 * and RemoveEntitlementMembership; product_admin_expressions-reference.mdx `c1.user.v1.HasEntitlement`):
 * the grant they add or remove is what the CEL directory answers for the next decision.
 */
import { describe, expect, it } from "vitest";
import { sampleJson, worldOf, SUPER } from "../../../test/helpers.js";
import { taskConditions } from "../../policy/task-conditions.js";
import { loadWorld } from "../../world/load-world.js";
import { saveWorld } from "../../world/save-world.js";
import { findAppUserOf, type World } from "../../world/world.js";
import { taskSubjectId } from "../../model/task-refs.js";
import { addManualMembers, removeMembership } from "./membership-edits.js";

const HOLDS = 'c1.user.v1.HasEntitlement(subject, "app-aws", "ent-aws-sandbox")';

describe("manual memberships and c1.user.v1.HasEntitlement", () => {
  it("a member added is seen by the task's conditions; removed, no longer; each world reloads", () => {
    const w0 = worldOf(sampleJson());
    const task = [...w0.tasks.values()].find((t) => taskSubjectId(t) === "u-hr1") ?? [...w0.tasks.values()].find((t) => taskSubjectId(t) !== "")!;
    const subject = taskSubjectId(task);
    const holds = (w: World) => taskConditions(w, task).run(HOLDS);
    expect(holds(w0)).toEqual({ ok: true, value: false });
    const caller = w0.index.users.get(SUPER)!;
    const added = addManualMembers(w0, caller, "app-aws", "ent-aws-sandbox", { userIds: [subject] });
    if (!added.ok) throw new Error(added.error.message);
    const w1 = added.value.world;
    expect(holds(w1)).toEqual({ ok: true, value: true });
    expect(holds(w0)).toEqual({ ok: true, value: false });
    expect(loadWorld(JSON.parse(JSON.stringify(saveWorld(w1)))).ok).toBe(true);
    const account = findAppUserOf(w1, subject, "app-aws");
    expect(account?.identityUserId).toBe(subject);
    const removed = removeMembership(w1, caller, "app-aws", "ent-aws-sandbox", { appUserId: account?.id ?? "" });
    if (!removed.ok) throw new Error(removed.error.message);
    expect(holds(removed.value.world)).toEqual({ ok: true, value: false });
    expect(loadWorld(JSON.parse(JSON.stringify(saveWorld(removed.value.world)))).ok).toBe(true);
  });
});

describe("manual members' new accounts", () => {
  it("take the next id no account of the world has", () => {
    const json = sampleJson() as Record<string, unknown> & { appUsers: Record<string, unknown>[] };
    const clash = { ...json.appUsers.find((a) => a["appId"] === "app-aws"), id: "appuser-000501", identityUserId: "u-ceo" };
    const w = worldOf({ ...json, seq: 500, appUsers: [...json.appUsers, clash] });
    const r = addManualMembers(w, w.index.users.get(SUPER)!, "app-aws", "ent-aws-sandbox", { userIds: ["u-hr1"] });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.body["bulkActionId"]).toBe("bulk-000500");
    const made = findAppUserOf(r.value.world, "u-hr1", "app-aws");
    expect(made?.id).toBe("appuser-000502");
    expect(r.value.world.index.appUsers.get("appuser-000501")?.identityUserId).toBe("u-ceo");
    expect(r.value.world.seq).toBe(503);
  });
});
