/**
 * Time-limited access ends: "At the end of the time limit, the user's access will be automatically
 * revoked" (product_admin_access-requests.mdx). A request granted with a `grantDuration` gives a
 * grant that ends then (`deprovisionAt`, openapi.yaml AppEntitlementUserBinding); the tick that
 * reaches the end creates the spec's time revoke (origin `TASK_ORIGIN_TIME_REVOKE`, source
 * `expired`), which the entitlement's revoke policy runs.
 */
import { describe, expect, it } from "vitest";
import { sampleJson, sampleWorld, value, worldOf, type Body } from "../../test/helpers.js";
import { loadWorld } from "../world/load-world.js";
import { saveWorld } from "../world/save-world.js";
import type { World } from "../world/world.js";
import { completeConnectorProvisioning } from "./provision.js";
import { reduce } from "./reduce.js";
import { tick } from "./tick.js";
import { withGrants } from "../workflow/effects.js";
import { updateBindingGrantDuration } from "../http/routes/membership-edits.js";

const GRANTED_AT = "2026-11-22T09:30:00Z";
// Task 1006 asks for ent-aws-prod-admin for 14400s (4 hours).
const ENDS_AT = "2026-11-22T13:30:00Z";
const grantOf = (w: World) => w.index.grants.get("u-sec-eng\u0000app-aws\u0000ent-aws-prod-admin");

/** The sample with task 1006 approved and provisioned by its connector at GRANTED_AT. */
function granted(world = sampleWorld()): World {
  const task = [...world.tasks.values()].find((t) => t.numericId === "1006");
  if (!task) throw new Error("fixture changed: no task 1006");
  const approved = value(reduce(world, { type: "approve", taskId: task.id, comment: "ok" }, { actorId: "u-sre-lead", now: "2026-11-22T09:10:00Z" }));
  return value(completeConnectorProvisioning(approved.world, GRANTED_AT, [task.id])).world;
}

// The sample already holds one closed time revoke, of u-dev3's access (task 1034).
const timeRevokes = (w: World) => [...w.tasks.values()].filter((t) => t.origin === "TASK_ORIGIN_TIME_REVOKE" && t.userId === "u-sec-eng");

describe("product_admin_access-requests.mdx: time-limited access is revoked at the end of the time limit", () => {
  it("a request granted for 4 hours gives a grant that ends 4 hours after it was granted", () => {
    const w = granted();
    // Made when the task granted (openapi.yaml AppEntitlementUserBinding.createdAt), and saved so.
    expect(grantOf(w)).toMatchObject({ source: "direct", createdAt: GRANTED_AT, deprovisionAt: ENDS_AT });
    const again = loadWorld(saveWorld(w));
    expect(again.ok && grantOf(again.value)?.createdAt).toBe(GRANTED_AT);
    expect(grantOf(sampleWorld())).toBeUndefined();
  });

  it("before the end nothing happens; the tick that reaches it creates one time revoke, run by the revoke policy", () => {
    const w = granted();
    const early = value(tick(w, "2026-11-22T13:29:59Z"));
    expect(timeRevokes(early.world)).toEqual([]);
    expect((early.response as Body).fired.filter((f: Body) => f.kind === "grantExpired")).toEqual([]);

    const late = value(tick(w, "2026-11-22T15:00:00Z"));
    const [revoke, ...more] = timeRevokes(late.world);
    expect(more).toEqual([]);
    expect(revoke?.type).toMatchObject({ kind: "revoke", appId: "app-aws", appEntitlementId: "ent-aws-prod-admin", identityUserId: "u-sec-eng", appUserId: "au-aws-sec-eng", source: { kind: "expired", expiredAt: ENDS_AT } });
    expect(revoke?.createdAt).toBe(ENDS_AT);
    // pol-revoke-critical is ent-aws-prod-admin's revoke policy; its first step provisions through the connector.
    expect(revoke?.policy?.policy?.id).toBe("pol-revoke-critical");
    expect((late.response as Body).fired).toContainEqual(expect.objectContaining({ kind: "grantExpired", taskId: revoke?.id, at: ENDS_AT }));
    expect(late.events.map((e) => e.kind)).toContain("taskCreated");
    // The access stays until the revoke task is done, as with any revoke.
    expect(grantOf(late.world)).toBeDefined();
    // The world before the tick is untouched.
    expect(timeRevokes(w)).toEqual([]);
  });

  it("the access goes when the revoke task is done: here a manual provision step the app owners complete", () => {
    const json = sampleJson() as Body;
    json.entitlements.find((e: Body) => e.id === "ent-aws-prod-admin").revokePolicyId = "pol-revoke-salesforce";
    const late = value(tick(granted(worldOf(json)), "2026-11-22T15:00:00Z")).world;
    const [revoke] = timeRevokes(late);
    expect(revoke?.policy?.current?.instance?.kind).toBe("provision");
    expect(grantOf(late)).toBeDefined();
    const done = value(reduce(late, { type: "provisionComplete", taskId: revoke!.id }, { actorId: "u-it-dir", now: "2026-11-22T15:10:00Z" })).world;
    expect(done.tasks.get(revoke!.id)?.type).toMatchObject({ outcome: "REVOKE_OUTCOME_REVOKED" });
    expect(grantOf(done)).toBeUndefined();
  });

  it("an end revokes once: later ticks, and a tick of a world saved and loaded again, create no second task", () => {
    const late = value(tick(granted(), "2026-11-22T15:00:00Z")).world;
    const again = value(tick(late, "2026-11-23T15:00:00Z")).world;
    expect(timeRevokes(again)).toHaveLength(1);
    const reloaded = loadWorld(JSON.parse(JSON.stringify(saveWorld(late))));
    if (!reloaded.ok) throw new Error(reloaded.error[0]?.message);
    expect(grantOf(reloaded.value)?.deprovisionAt).toBe(ENDS_AT);
    expect(timeRevokes(value(tick(reloaded.value, "2026-11-24T00:00:00Z")).world)).toHaveLength(1);
  });

  it("an end before the world's clock is revoked at the world's clock", () => {
    const json = sampleJson() as Body;
    json.grants = [...json.grants, { appId: "app-aws", appEntitlementId: "ent-aws-prod-admin", identityUserId: "u-sec-eng", source: "direct", deprovisionAt: "2026-11-01T00:00:00Z" }];
    const w = worldOf(json);
    const r = value(tick(w, w.now));
    const [revoke] = timeRevokes(r.world);
    expect(revoke?.createdAt).toBe(w.now);
    expect(revoke?.type?.kind === "revoke" && revoke.type.source).toMatchObject({ kind: "expired", expiredAt: "2026-11-01T00:00:00Z" });
  });

  it("granting again extends a time-limited grant, or makes it permanent; it never shortens one", () => {
    const w = granted();
    const ent = { appId: "app-aws", appEntitlementId: "ent-aws-prod-admin", identityUserId: "u-sec-eng", source: "direct" };
    const withEnd = (deprovisionAt?: string) => {
      const json = sampleJson() as Body;
      json.grants = [...json.grants, { ...ent, ...(deprovisionAt ? { deprovisionAt } : {}) }];
      return granted(worldOf(json));
    };
    // Held until 12:00: the 4-hour grant at 09:30 extends it to 13:30; it was made when it was made.
    expect(grantOf(withEnd("2026-11-22T12:00:00Z"))?.deprovisionAt).toBe(ENDS_AT);
    expect(grantOf(withEnd("2026-11-22T12:00:00Z"))?.createdAt).toBeUndefined();
    // Held until next week: it stays so.
    expect(grantOf(withEnd("2026-11-29T00:00:00Z"))?.deprovisionAt).toBe("2026-11-29T00:00:00Z");
    // Held without an end: it stays so.
    expect(grantOf(withEnd())?.deprovisionAt).toBeUndefined();
    expect(grantOf(w)?.deprovisionAt).toBe(ENDS_AT);
  });

  it("a request without a duration, or for 0s, gives access without an end", () => {
    const json = sampleJson() as Body;
    const t = json.tasks.find((x: Body) => x.numericId === "1006");
    t.type.grant.grantDuration = "0s";
    expect(grantOf(granted(worldOf(json)))?.deprovisionAt).toBeUndefined();
    t.type.grant.grantDuration = null;
    expect(grantOf(granted(worldOf(json)))?.deprovisionAt).toBeUndefined();
  });

  it("a duration whose end would pass 9999-12-31T23:59:59Z gives access without an end, and the task still closes (diff review)", () => {
    for (const d of ["999999999999s", "99999999999999999s"]) {
      const json = sampleJson() as Body;
      json.tasks.find((x: Body) => x.numericId === "1006").type.grant.grantDuration = d;
      const w = granted(worldOf(json));
      expect(grantOf(w), d).toMatchObject({ source: "direct" });
      expect(grantOf(w)?.deprovisionAt, d).toBeUndefined();
      expect(loadWorld(JSON.parse(JSON.stringify(saveWorld(w)))).ok, d).toBe(true);
    }
  });

  it("a time revoke whose grant was extended or made standing since revokes nothing: the end changed (openapi.yaml UpdateGrantDuration; diff review)", () => {
    const json = sampleJson() as Body;
    json.entitlements.find((e: Body) => e.id === "ent-aws-prod-admin").revokePolicyId = "pol-revoke-salesforce";
    const late = value(tick(granted(worldOf(json)), "2026-11-22T15:00:00Z")).world;
    const [revoke] = timeRevokes(late);
    const grant = grantOf(late)!;
    for (const changed of [{ ...grant, deprovisionAt: "2026-12-01T00:00:00Z" }, { ...grant, deprovisionAt: null }]) {
      const edited = withGrants(late, late.grants.map((g) => (g === grant ? changed : g)));
      const done = value(reduce(edited, { type: "provisionComplete", taskId: revoke!.id }, { actorId: "u-it-dir", now: "2026-11-22T15:10:00Z" })).world;
      expect(done.tasks.get(revoke!.id)?.state).toBe("TASK_STATE_CLOSED");
      expect(grantOf(done)).toBeDefined();
      expect(grantOf(done)?.deprovisionAt ?? null).toBe(changed.deprovisionAt);
      // The task says why nothing was revoked.
      const said = [...(done.comments.get(revoke!.id) ?? [])].map((c) => c.comment);
      expect(said).toContainEqual(`The access was kept: its end moved to ${changed.deprovisionAt ?? "none (standing access)"} after this time revoke was created.`);
    }
  });

  it("UpdateGrantDuration answers 404 for a second account of the holder: the binding reads show the grant on the first (diff review)", () => {
    const json = sampleJson() as Body;
    const first = json.appUsers.find((a: Body) => a.id === "au-aws-sre-lead");
    json.appUsers.push({ ...first, id: "au-aws-sre-lead-2" });
    const w = worldOf(json);
    const admin = w.index.users.get("u-it-dir")!;
    const body = { newDeprovisionAt: "2026-12-01T00:00:00Z" };
    const second = updateBindingGrantDuration(w, admin, "app-aws", "ent-aws-prod-admin", "au-aws-sre-lead-2", body, w.now);
    expect(!second.ok && second.error).toMatchObject({ status: 404 });
    const held = updateBindingGrantDuration(w, admin, "app-aws", "ent-aws-prod-admin", "au-aws-sre-lead", body, w.now);
    expect(held.ok && held.value.body).toMatchObject({ binding: { appUserId: "au-aws-sre-lead", deprovisionAt: "2026-12-01T00:00:00Z" } });
  });

  it("a world file's createdAt must be a timestamp; it is kept in UTC", () => {
    const json = sampleJson() as Body;
    json.grants = [{ ...json.grants[0], createdAt: "2026-06-01T11:00:00+02:00" }, { ...json.grants[1], createdAt: "June" }, ...json.grants.slice(2)];
    const r = loadWorld(json);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error.map((d) => [d.code, d.path])).toContainEqual(["INVALID_TIMESTAMP", "$.grants[1].createdAt"]);
    json.grants[1] = { ...json.grants[1], createdAt: null };
    const fixed = loadWorld(json);
    expect(fixed.ok && fixed.value.grants[0]?.createdAt).toBe("2026-06-01T09:00:00Z");
    expect(fixed.ok && fixed.value.grants[1]?.createdAt).toBeUndefined();
  });

  it("a world file's deprovisionAt must be a timestamp; it is kept in UTC", () => {
    const json = sampleJson() as Body;
    json.grants = [...json.grants, { appId: "app-aws", appEntitlementId: "ent-aws-prod-admin", identityUserId: "u-sec-eng", source: "direct", deprovisionAt: "next week" }];
    const bad = loadWorld(json);
    expect(!bad.ok && bad.error).toContainEqual(expect.objectContaining({ code: "INVALID_TIMESTAMP", path: `$.grants[${json.grants.length - 1}].deprovisionAt` }));
    json.grants.at(-1).deprovisionAt = "2026-12-01T10:00:00+01:00";
    expect(grantOf(worldOf(json))?.deprovisionAt).toBe("2026-12-01T09:00:00Z");
  });
});
