/**
 * Apps.Delete and AppEntitlements.Delete as world edits (openapi.yaml): what hangs off the deleted
 * object goes with it, the world saved afterwards loads strictly (no dangling id), and the world
 * before is untouched.
 */
import { describe, expect, it } from "vitest";
import { sampleJson, worldOf, SUPER, type Body } from "../../../test/helpers.js";
import { loadWorld } from "../../world/load-world.js";
import { saveWorld } from "../../world/save-world.js";
import type { World } from "../../world/world.js";
import { deleteApp, deleteEntitlement } from "./directory-deletes.js";

/** The sample tenant without the tasks of `appId` (a task is history: an app some task names stays). */
function withoutTasksOf(appId: string): World {
  const json = sampleJson() as Body;
  const mine = (t: Body): boolean => Object.values(t.type ?? {}).some((m) => (m as Body)?.appId === appId);
  return worldOf({ ...json, tasks: json.tasks.filter((t: Body) => !mine(t)) });
}

const caller = (w: World) => w.index.users.get(SUPER)!;
const reloads = (w: World): boolean => loadWorld(JSON.parse(JSON.stringify(saveWorld(w)))).ok;

describe("openapi.yaml Apps.Delete: the app goes with everything that hangs off it", () => {
  it("entitlements, accounts, groups, grants, request defaults and configuration rules of the app are gone; the rest and the old world stay", () => {
    const before = withoutTasksOf("app-okta");
    const counts = (w: World) => [w.entitlements, w.appUsers, w.groups, w.grants, w.resourceTypeDefaults, w.entitlementConfigurationRules ?? []].map((l) => l.filter((x) => x.appId === "app-okta").length);
    expect(counts(before).slice(0, 4).every((n) => n > 0)).toBe(true);
    const r = deleteApp(before, caller(before), "app-okta");
    if (!r.ok) throw new Error(r.error.message);
    const after = r.value.world;
    expect(counts(after)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(after.index.apps.has("app-okta")).toBe(false);
    expect(after.apps.length).toBe(before.apps.length - 1);
    expect(after.grants.length).toBe(before.grants.length - before.grants.filter((g) => g.appId === "app-okta").length);
    expect(before.index.apps.has("app-okta") && counts(before)[0]).toBeGreaterThan(0);
    expect(reloads(after)).toBe(true);
    expect(r.value.body).toEqual({});
  });
  it("an app some task names is refused, and nothing changes", () => {
    const w = worldOf(sampleJson());
    const r = deleteApp(w, caller(w), "app-okta");
    expect(!r.ok && r.error).toMatchObject({ status: 400, code: "FAILED_PRECONDITION" });
    expect(w.index.apps.has("app-okta")).toBe(true);
  });
});

describe("openapi.yaml AppEntitlements.Delete: the entitlement goes with its grants", () => {
  it("the entitlement and its grants are gone; other entitlements' grants stay; the world reloads", () => {
    const before = withoutTasksOf("app-okta");
    const granted = before.grants.find((g) => g.appId === "app-okta")!;
    const r = deleteEntitlement(before, caller(before), "app-okta", granted.appEntitlementId);
    if (!r.ok) throw new Error(r.error.message);
    const after = r.value.world;
    expect(after.grants.filter((g) => g.appEntitlementId === granted.appEntitlementId && g.appId === "app-okta")).toEqual([]);
    expect(after.grants.filter((g) => g.appId === "app-okta").length).toBeGreaterThan(0);
    expect(after.entitlements.length).toBe(before.entitlements.length - 1);
    expect(reloads(after)).toBe(true);
  });
});
