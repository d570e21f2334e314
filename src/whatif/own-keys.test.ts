// Keys that come from data (a profile field, a field a condition names) are looked up as own keys,
// never on an object's prototype chain: `constructor` is data like any other key.
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadWorld } from "../world/load-world.js";
import { replaceInWorld, type World } from "../world/world.js";
import { arbTaskSpecIn } from "./arb-task-spec.js";
import { sameValue } from "./same-value.js";
import { taskInWorld } from "./task-spec.js";
import { whatIf } from "./what-if.js";

function sample(): World {
  const r = loadWorld(JSON.parse(readFileSync(new URL("../../fixtures/world.json", import.meta.url), "utf8")));
  if (!r.ok) throw new Error(r.error[0]?.message);
  return r.value;
}
const world = sample();

/** The sample with rule 0 of pol-prod-admin replaced by `condition`. */
function withRule0(condition: string): World {
  const p = world.index.policies.get("pol-prod-admin");
  if (!p?.rules) throw new Error("the sample has no pol-prod-admin");
  return replaceInWorld(world, { policies: [{ ...p, rules: p.rules.map((r, i) => (i === 0 ? { ...r, condition } : r)) }] });
}

describe("own keys", () => {
  it("sameValue tells an object with a key named like a prototype member from one without it", () => {
    expect(sameValue({}, { constructor: "x" })).toBe(false);
    expect(sameValue({ constructor: "x" }, {})).toBe(false);
    expect(sameValue({ toString: undefined }, {})).toBe(true);
    expect(sameValue({ a: { constructor: 1 } }, { a: { constructor: 1 } })).toBe(true);
  });

  it("whatIf sees a profile field named constructor change, and re-routes the task a condition on it reaches", () => {
    const w = withRule0('subject.profile.constructor == "x"');
    const u = w.index.users.get("u-contractor");
    if (!u) throw new Error("no u-contractor");
    for (const prune of [true, false]) {
      const r = whatIf(w, { users: [{ ...u, profile: { ...u.profile, constructor: "x" } }] }, { prune });
      if (!r.ok) throw new Error(r.error.message);
      expect(r.value.edit.users).toEqual(["u-contractor"]);
      expect(r.value.changed.map((c) => c.numericId)).toEqual(["1001"]);
    }
  });

  it("arbTaskSpecIn reads `subject.constructor` in a condition as no subject field, and its specs build", () => {
    const w = withRule0('subject.constructor == "x" || subject.toString == "y"');
    const known = new Set(["id", "email", "displayName", "department", "jobTitle", "employmentType", "employmentStatus", "status", "directoryStatus", "type", "managerIds", "profile", "attributes"]);
    for (const spec of fc.sample(arbTaskSpecIn(w), { seed: 7, numRuns: 200 })) {
      for (const k of Object.keys(spec.subject ?? {})) expect(known.has(k), k).toBe(true);
      expect(taskInWorld(w, spec).ok).toBe(true);
    }
  });
});

describe("sameValue reads only an escalation's expiration as a time (diff review)", async () => {
  const { sameExpiration } = await import("../codec/spec-names.js");
  it("\"86400\" and \"86400s\" are one time under escalation, two values anywhere else (a profile is data)", () => {
    expect(sameValue({ escalation: { expiration: "86400" } }, { escalation: { expiration: "86400s" } })).toBe(true);
    expect(sameValue({ profile: { expiration: "86400" } }, { profile: { expiration: "86400s" } })).toBe(false);
    expect(sameValue({ expiration: "86400" }, { expiration: "86400s" })).toBe(false);
  });
  it("a negative time is compared as written: \"-60\" never fires and \"-60s\" fires at once", () => {
    expect(sameExpiration("-60", "-60s")).toBe(false);
    expect(sameExpiration("-60s", "-60s")).toBe(true);
    expect(sameExpiration("60", "60s")).toBe(true);
  });
});
