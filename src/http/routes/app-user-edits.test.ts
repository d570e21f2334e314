/**
 * AppUserService.Update changes what conditions see (openapi.yaml: "only the appUserType, and
 * identityUserId fields can be updated"; product_admin_expressions-reference.mdx, `account`): a
 * task's `account` is its subject's account in the task's app, with its type.
 */
import { describe, expect, it } from "vitest";
import { sampleJson, worldOf, SUPER } from "../../../test/helpers.js";
import { taskSubjectId } from "../../model/task-refs.js";
import { taskConditions } from "../../policy/task-conditions.js";
import { findAppUserOf } from "../../world/world.js";
import { updateAppUser } from "./app-user-edits.js";

describe("AppUserService.Update and the task's CEL account", () => {
  it("a new type is what account.appUserType says; an account moved to another user is that user's account in the app", () => {
    const w0 = worldOf(sampleJson());
    const task = [...w0.tasks.values()].find((t) => t.type?.kind === "grant" && findAppUserOf(w0, taskSubjectId(t), t.type.appId) !== undefined)!;
    const type = task.type as { appId: string };
    const account = findAppUserOf(w0, taskSubjectId(task), type.appId)!;
    const caller = w0.index.users.get(SUPER)!;
    const run = (w: typeof w0, source: string) => taskConditions(w, task).run(source);
    expect(run(w0, "account.appUserType == AppUserType.SERVICE_ACCOUNT")).toEqual({ ok: true, value: false });
    const typed = updateAppUser(w0, caller, type.appId, account.id, { appUser: { appUserType: "APP_USER_TYPE_SERVICE_ACCOUNT" }, updateMask: "appUserType" });
    if (!typed.ok) throw new Error(typed.error.message);
    expect(run(typed.value.world, "account.appUserType == AppUserType.SERVICE_ACCOUNT")).toEqual({ ok: true, value: true });
    expect(run(w0, `account.id == "${account.id}"`)).toEqual({ ok: true, value: true });
    const moved = updateAppUser(w0, caller, type.appId, account.id, { appUser: { identityUserId: "u-ceo" }, updateMask: "identityUserId" });
    if (!moved.ok) throw new Error(moved.error.message);
    expect(findAppUserOf(moved.value.world, "u-ceo", type.appId)?.id).toBe(account.id);
    expect(findAppUserOf(w0, "u-ceo", type.appId)?.id).not.toBe(account.id);
  });
});
