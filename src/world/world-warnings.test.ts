/**
 * Issue 14.1: a world with a typo loads (unknown fields are kept: the service adds fields), but a
 * field name close to a known one, or a closed-set value that is not a member, is a warning that
 * names what was probably meant. Warnings never fail a load.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadWorld, loadWorldChunks } from "./load-world.js";

type Json = Record<string, unknown> & { users: Array<Record<string, unknown>>; tasks: Array<Record<string, unknown>>; policies: Array<Record<string, unknown>> };
const sample = (): Json => JSON.parse(readFileSync("fixtures/world.json", "utf8")) as Json;
const warningsOf = (json: unknown) => {
  const r = loadWorld(json);
  if (!r.ok) throw new Error(r.error.map((d) => `${d.path}: ${d.message}`).join("\n"));
  return r.value.warnings;
};

describe("world warnings: probable typos, each with what was meant", () => {
  it("the sample world has none", () => {
    expect(warningsOf(sample())).toEqual([]);
  });

  it('"managerId" on a user (the field is managerIds) loads, with a warning that says so', () => {
    const w = sample();
    w.users[0] = { ...w.users[0], managerId: "u-eng-mgr" };
    const warnings = warningsOf(w);
    expect(warnings).toEqual([
      expect.objectContaining({ code: "UNKNOWN_FIELD_NEAR_KNOWN", path: "$.users[0].managerId", severity: "warning", message: expect.stringContaining('did you mean "managerIds"?') }),
    ]);
  });

  it('"status": "ACTIVE" on a user is not a user status', () => {
    const w = sample();
    w.users[1] = { ...w.users[1], status: "ACTIVE" };
    expect(warningsOf(w)).toEqual([expect.objectContaining({ code: "UNKNOWN_ENUM_VALUE", path: "$.users[1].status", message: expect.stringContaining("ENABLED") })]);
  });

  it("a misspelt task field, a task enum value, a policy field and a top-level key", () => {
    const w = sample();
    w.tasks[0] = { ...w.tasks[0], stat: "x", state: "TASK_STATE_OPN" };
    w.policies[0] = { ...w.policies[0], rulez: [] };
    (w as Record<string, unknown>)["taks"] = [];
    const byPath = new Map(warningsOf(w).map((d) => [d.path, d.message]));
    expect(byPath.get("$.tasks[0].stat")).toContain('did you mean "state"?');
    expect(byPath.get("$.tasks[0].state")).toContain('did you mean "TASK_STATE_OPEN"?');
    expect(byPath.get("$.policies[0].rulez")).toContain('did you mean "rules"?');
    expect(byPath.get("$.taks")).toContain('did you mean "tasks"?');
  });

  it("a world streamed from bytes has the same warnings as one loaded from JSON", () => {
    const w = sample();
    w.users[0] = { ...w.users[0], managerId: "u-eng-mgr" };
    w.tasks[0] = { ...w.tasks[0], stat: "x", state: "TASK_STATE_OPN" };
    w.policies[0] = { ...w.policies[0], rulez: [] };
    (w as Record<string, unknown>)["taks"] = [];
    const bytes = new TextEncoder().encode(JSON.stringify(w));
    const streamed = loadWorldChunks([bytes.subarray(0, 1000), bytes.subarray(1000)]);
    expect(streamed.ok).toBe(true);
    const paths = (ws: readonly { path: string }[]) => ws.map((d) => d.path).sort();
    expect(streamed.ok && paths(streamed.value.warnings)).toEqual(paths(warningsOf(w)));
    expect(paths(warningsOf(w))).toHaveLength(5);
  });

  it("fields far from every known one (the API adds fields) and $schema are kept without a warning", () => {
    const w = sample();
    w.users[0] = { ...w.users[0], lastLoginSource: "okta" };
    w.tasks[0] = { ...w.tasks[0], insightsSummary: { n: 1 } };
    (w as Record<string, unknown>)["$schema"] = "./node_modules/policy-sim/world.schema.json";
    expect(warningsOf(w)).toEqual([]);
  });

  it("warnings never fail a load, and { warnings: false } skips them (property)", () => {
    fc.assert(
      fc.property(fc.constantFrom("managerId", "emial", "departmen", "statuss", "roleId"), fc.integer({ min: 0, max: 5 }), (key, i) => {
        const w = sample();
        const u = w.users[i % w.users.length] ?? {};
        w.users[i % w.users.length] = { ...u, [key]: "x" };
        const loaded = loadWorld(w);
        expect(loaded.ok).toBe(true);
        expect(loaded.ok && loaded.value.warnings.some((d) => d.code === "UNKNOWN_FIELD_NEAR_KNOWN")).toBe(true);
        const quiet = loadWorld(w, { warnings: false });
        expect(quiet.ok && quiet.value.warnings).toEqual([]);
      }),
      { numRuns: 20 },
    );
  });
});
