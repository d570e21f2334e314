/**
 * Scenarios as data: every script in fixtures/scenarios/ runs against the sample tenant with all its
 * expectations and checks met, replays byte for byte (also from a saved and reloaded world), and
 * leaves its input untouched. Plus the script format's own refusals.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { JsonObject } from "../../src/model/json.js";
import { decodeScript, encodeSimulation, formatSimulation, simulate } from "../../src/reducers/simulate.js";
import { MAX_SCRIPT_STEPS } from "../../src/reducers/limits.js";
import { saveWorld } from "../../src/world/save-world.js";
import { load, sampleWorld } from "./helpers.js";

const DIR = new URL("../../fixtures/scenarios/", import.meta.url);
const FILES = readdirSync(DIR)
  .filter((f) => f.endsWith(".json"))
  .sort();

function script(file: string): JsonObject {
  return JSON.parse(readFileSync(new URL(file, DIR), "utf8")) as JsonObject;
}

describe("fixtures/scenarios", () => {
  it("holds a dozen or more scripts", () => {
    expect(FILES.length).toBeGreaterThanOrEqual(12);
  });

  for (const file of FILES)
    it(`${file}: runs with every expectation and check met, and replays to the same bytes`, () => {
      const world = sampleWorld();
      const s = script(file);
      const r = simulate(world, s);
      if (!r.ok) throw new Error(r.error.message);
      expect(r.value.failures, formatSimulation(r.value)).toEqual([]);
      expect(r.value.frames).toHaveLength((s["steps"] as unknown[]).length + 1);
      expect(r.value.name).toBe(s["name"]);
      const first = JSON.stringify(encodeSimulation(r.value, { worlds: "all" }));
      const again = simulate(world, s);
      if (!again.ok) throw new Error(again.error.message);
      expect(JSON.stringify(encodeSimulation(again.value, { worlds: "all" }))).toBe(first);
      // Saved and loaded again, the world replays the same way.
      const reloaded = load(JSON.parse(JSON.stringify(saveWorld(world))));
      const replay = simulate(reloaded, s);
      if (!replay.ok) throw new Error(replay.error.message);
      expect(JSON.stringify(encodeSimulation(replay.value, { worlds: "final" }))).toBe(JSON.stringify(encodeSimulation(r.value, { worlds: "final" })));
    });
});

describe("simulate: a script too long to keep a frame per step (hostile review 2: a sparse list of 1e9 steps ran 46 s)", () => {
  it("is refused at once, decoded or not; the longest allowed still decodes", () => {
    const world = sampleWorld();
    for (const steps of [new Array<unknown>(1e9), new Array<unknown>(MAX_SCRIPT_STEPS + 1)]) {
      const started = performance.now();
      expect(simulate(world, { name: "huge", steps })).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT", message: expect.stringContaining(`a script holds at most ${MAX_SCRIPT_STEPS.toLocaleString("en")}`) } });
      expect(decodeScript({ steps })).toMatchObject({ ok: false });
      expect(performance.now() - started).toBeLessThan(5000);
    }
    const most = Array.from({ length: MAX_SCRIPT_STEPS }, () => ({ tick: "2026-11-23T00:00:00Z" }));
    expect(decodeScript({ name: "long", steps: most }).ok).toBe(true);
  });
});

describe("simulate", () => {
  const tiny = {
    name: "tiny",
    steps: [
      { at: "2026-11-22T09:30:00Z", actor: "u-sre-lead", action: { type: "approve", taskId: "1001", comment: "ok" } },
      { tick: "2026-11-22T10:00:00Z" },
      { at: "2026-11-22T10:30:00Z", actor: "u-dev1", action: { type: "approve", taskId: "1001" }, expect: { error: "PERMISSION_DENIED" } },
    ],
  };

  it("returns every intermediate world, response and event; frame 0 is the input world", () => {
    const w = sampleWorld();
    const r = simulate(w, tiny);
    if (!r.ok) throw new Error(r.error.message);
    const [f0, f1, f2, f3] = r.value.frames;
    expect(f0?.world).toBe(w);
    expect(f1?.ok).toBe(true);
    expect(f1?.events.map((e) => e.kind)).toContain("approved");
    expect((f1?.response as JsonObject)["ticketActionId"]).toBeTruthy();
    expect(f2?.now).toBe("2026-11-22T10:00:00Z");
    expect(f3?.ok).toBe(false);
    expect(f3?.error?.code).toBe("PERMISSION_DENIED");
    // The clock moved to the step's time before the action was refused.
    expect(f3?.now).toBe("2026-11-22T10:30:00Z");
    expect(r.value.world).toBe(f3?.world);
    expect(r.value.failures).toEqual([]);
    expect(formatSimulation(r.value)).toMatch(/#1 2026-11-22T09:30:00Z u-sre-lead approve 1001 → ok: task 1001 OPEN, at approval/);
  });

  it("collects unmet expectations and checks as failures and goes on", () => {
    const r = simulate(sampleWorld(), {
      name: "wrong",
      steps: [
        { at: "2026-11-22T09:30:00Z", actor: "u-dev1", action: { type: "approve", taskId: "1001" } },
        { tick: "2026-11-22T10:00:00Z", check: [{ taskId: "1001", state: "TASK_STATE_CLOSED" }, { grant: { userId: "u-dev1", appId: "app-aws", appEntitlementId: "ent-aws-prod-admin" }, held: true }] },
        { at: "2026-11-22T09:00:00Z", actor: "u-it-dir", action: { type: "comment", taskId: "1001", comment: "back in time" } },
      ],
    });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.failures).toHaveLength(4);
    expect(r.value.failures[0]).toMatch(/step 1 .*expected success, got PERMISSION_DENIED/);
    expect(r.value.failures[1]).toMatch(/task 1001 state is "TASK_STATE_OPEN", expected "TASK_STATE_CLOSED"/);
    expect(r.value.failures[2]).toMatch(/does not hold app-aws\/ent-aws-prod-admin/);
    expect(r.value.failures[3]).toMatch(/before the clock/);
  });

  it("refuses a script that does not decode, naming each problem with its path", () => {
    const bad = { steps: [{ action: { type: "approve", taskId: "1" } }, { tick: "soon" }, { at: "x", actor: "u", action: { type: "fly" } }, 3] };
    const d = decodeScript(bad);
    expect(!d.ok && d.error).toEqual([
      "$.steps[0].actor: every action names its actor (a user id)",
      "$.steps[1].tick: expected an RFC 3339 timestamp of a real date and time",
      '$.steps[2].action.type: unknown action type "fly"',
      "$.steps[2].at: expected an RFC 3339 timestamp of a real date and time",
      "$.steps[3]: expected an object",
    ]);
    const r = simulate(sampleWorld(), bad);
    expect(!r.ok && r.error.code).toBe("INVALID_ARGUMENT");
    for (const junk of [null, 1, "x", [], {}, { steps: {} }]) expect(simulate(sampleWorld(), junk).ok).toBe(false);
  });

  it("encodes without worlds, with the final one, or with all of them", () => {
    const r = simulate(sampleWorld(), tiny);
    if (!r.ok) throw new Error(r.error.message);
    expect(encodeSimulation(r.value, { worlds: "none" })["world"]).toBeUndefined();
    expect(encodeSimulation(r.value)["world"]).toBeDefined();
    const all = encodeSimulation(r.value, { worlds: "all" });
    expect((all["frames"] as JsonObject[]).every((f) => f["world"] !== undefined)).toBe(true);
  });
});
