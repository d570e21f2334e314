import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadWorld } from "../world/load-world.js";
import type { World } from "../world/world.js";
import { hardReset } from "./hard-reset.js";
import { MAX_FIRINGS_PER_TASK, tick } from "./tick.js";

const world: World = (() => {
  const r = loadWorld(JSON.parse(readFileSync("fixtures/world.json", "utf8")));
  if (!r.ok) throw new Error("fixtures/world.json does not load");
  return r.value;
})();

describe("tick(world, now): now must be a real instant", () => {
  it.each([
    ["30 February", "2027-02-30T00:00:00Z"],
    ["29 February of a common year", "2027-02-29T00:00:00Z"],
    ["31 April", "2027-04-31T09:00:00Z"],
    ["month 13", "2027-13-01T00:00:00Z"],
    ["hour 24", "2027-01-01T24:00:00Z"],
    ["minute 60", "2027-01-01T09:60:00Z"],
    ["an offset of 24 hours", "2027-01-01T09:00:00+24:00"],
  ])("%s is INVALID_ARGUMENT, as the world file refuses it", (_what, now) => {
    const r = tick(world, now);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatchObject({ code: "INVALID_ARGUMENT", field: "now" });
    expect(r.error.message).toContain(JSON.stringify(now));
  });

  it("not a string, not RFC 3339: INVALID_ARGUMENT, never a throw", () => {
    for (const now of [undefined, null, 1_800_000_000_000, "2027-03-02", "next tuesday"]) {
      const r = tick(world, now as unknown as string);
      expect(r.ok ? "ok" : r.error.code).toBe("INVALID_ARGUMENT");
    }
  });

  it("a real date, 29 February of a leap year included, moves the clock", () => {
    for (const [now, kept] of [
      ["2028-02-29T00:00:00Z", "2028-02-29T00:00:00Z"],
      // Kept in UTC, as protobuf writes timestamps: the same instant, its fraction as given.
      ["2026-12-31T23:59:59.5+01:00", "2026-12-31T22:59:59.5Z"],
    ]) {
      const r = tick(world, now as string);
      expect(r.ok && r.value.world.now).toBe(kept);
    }
  });
});

describe("timestamps the simulation writes are UTC (Z), whatever offset the caller's clock has", () => {
  it("a comment's updatedAt, a created task's createdAt and a world's now", async () => {
    const { comment } = await import("./comment.js");
    const { createGrantTask } = await import("./create-task.js");
    const { loadWorld } = await import("../world/load-world.js");
    const { sampleJson, SUPER } = await import("../../test/helpers.js");
    const c = comment(world, { taskId: "1001", comment: "ok" }, { actorId: SUPER, now: "2026-11-22T11:00:00.5+02:00" });
    expect(c.ok && (c.value.response as unknown as { taskView: { task: { updatedAt: string } } }).taskView.task.updatedAt).toBe("2026-11-22T09:00:00.5Z");
    const g = createGrantTask(world, { appId: "app-aws", appEntitlementId: "ent-aws-staging-dev", identityUserId: SUPER }, { actorId: SUPER, now: "2026-11-22T04:00:00-05:00" });
    expect(g.ok && (g.value.response as unknown as { taskView: { task: { createdAt: string } } }).taskView.task.createdAt).toBe("2026-11-22T09:00:00Z");
    const w = loadWorld({ ...sampleJson(), now: "2026-11-22T10:00:00+01:00" });
    expect(w.ok && w.value.now).toBe("2026-11-22T09:00:00Z");
  });
});

describe("every now and at the reducers take is a real instant (prelude.ts isRealTimestamp)", () => {
  it("an action's ctx.now, a created task's ctx.now and a scenario's at refuse 30 February", async () => {
    const { reduce } = await import("./reduce.js");
    const { createGrantTask } = await import("./create-task.js");
    const { simulate } = await import("./simulate.js");
    const { isRealTimestamp } = await import("./prelude.js");
    expect([isRealTimestamp("2026-11-22T09:00:00Z"), isRealTimestamp("2027-02-30T00:00:00Z"), isRealTimestamp(42)]).toEqual([true, false, false]);
    const bad = "2027-02-30T00:00:00Z";
    const acted = reduce(world, { type: "comment", taskId: "1001", comment: "x" }, { actorId: "u-it-dir", now: bad });
    expect(!acted.ok && [acted.error.code, acted.error.code === "INVALID_ARGUMENT" && acted.error.field]).toEqual(["INVALID_ARGUMENT", "now"]);
    const created = createGrantTask(world, { appId: "app-aws", appEntitlementId: "ent-aws-prod-admin" }, { actorId: "u-it-dir", now: bad });
    expect(!created.ok && created.error.code).toBe("INVALID_ARGUMENT");
    const played = simulate(world, { name: "s", steps: [{ at: bad, action: { type: "comment", taskId: "1001", comment: "x" }, actor: "u-it-dir" }] } as never);
    expect(!played.ok && played.error.message).toContain("$.steps[0].at: expected an RFC 3339 timestamp of a real date and time");
    // The world file's clock and a what-if edit's clock use the same check.
    const { loadWorld: load } = await import("../world/load-world.js");
    const { whatIf } = await import("../whatif/what-if.js");
    const json = JSON.parse(readFileSync("fixtures/world.json", "utf8")) as Record<string, unknown>;
    const loaded = load({ ...json, now: bad });
    expect(!loaded.ok && loaded.error.map((d) => [d.code, d.path])).toContainEqual(["INVALID_TIMESTAMP", "$.now"]);
    const edited = whatIf(world, { now: bad });
    expect(!edited.ok && [edited.error.code, edited.error.code === "INVALID_ARGUMENT" && edited.error.field]).toEqual(["INVALID_ARGUMENT", "edit.now"]);
  });
});

describe("a world that is not a World (null, a raw world file) is INVALID_ARGUMENT naming it, not INTERNAL", () => {
  it("for the reducers, explain and whatIf", async () => {
    const { comment } = await import("./comment.js");
    const { hardReset } = await import("./hard-reset.js");
    const { explain } = await import("../explain/explain.js");
    const { whatIf } = await import("../whatif/what-if.js");
    const raw = JSON.parse(readFileSync("fixtures/world.json", "utf8")) as unknown;
    for (const bad of [null, undefined, {}, raw]) {
      const results = [
        comment(bad as World, { taskId: "1001", comment: "x" }, { actorId: "u-it-dir" }),
        hardReset(bad as World, { taskId: "1001" }, { actorId: "u-it-dir" }),
        tick(bad as World, "2026-11-22T10:00:00Z"),
        explain(bad as World, "1001"),
        whatIf(bad as World, () => {}),
      ];
      for (const r of results) expect(!r.ok && r.error).toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringContaining("world must be a World (loadWorld's value)") });
    }
    const fromFile = comment(raw as World, { taskId: "1001", comment: "x" }, { actorId: "u-it-dir" });
    expect(!fromFile.ok && fromFile.error.message).toContain("load it with loadWorld first");
  });
});

describe("a tick cannot run forever: a task whose timers fire in a loop is refused (hostile-input review)", () => {
  const loopWorld = (expiration: string): World => {
    const raw = JSON.parse(readFileSync("fixtures/world.json", "utf8"));
    raw.policies.push({
      id: "pol-loop",
      displayName: "loop",
      policyType: "POLICY_TYPE_GRANT",
      rules: [],
      policySteps: {
        grant: { steps: [{ approval: { escalationEnabled: true, escalation: { escalationComment: "esc", expiration, replacePolicy: { policyId: "pol-loop" } }, users: { userIds: ["u-ciso"] } } }] },
      },
    });
    raw.entitlements.find((e: { id: string }) => e.id === "ent-aws-prod-admin").grantPolicyId = "pol-loop";
    const l = loadWorld(raw);
    if (!l.ok) throw new Error("loop world does not load");
    const r = hardReset(l.value, { taskId: "1001" }, { actorId: "u-it-dir" });
    if (!r.ok) throw new Error(r.error.message);
    return r.value.world;
  };
  it("an escalation that replaces its policy with itself after 0s: FAILED_PRECONDITION naming the task, at once, the world untouched", () => {
    const w = loopWorld("0s");
    const started = Date.now();
    const r = tick(w, "2026-11-22T09:01:00Z");
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe("FAILED_PRECONDITION");
    expect(r.error.message).toMatch(/^task 1001 fired 1,000 timers in one tick .* its policy pol-loop loops/);
  });
  it("the same escalation after 1h fires once per hour: a day's tick is 24 firings, not a refusal", () => {
    const r = tick(loopWorld("3600s"), "2026-11-23T09:00:00Z");
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const fired = (r.value.response as { fired: { numericId: string; kind: string }[] }).fired.filter((f) => f.numericId === "1001");
    expect(fired.length).toBeGreaterThanOrEqual(23);
    expect(fired.length).toBeLessThanOrEqual(MAX_FIRINGS_PER_TASK);
  });
});
