import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonObject } from "../model/json.js";
import { compileCondition } from "./compile.js";
import { celEnvironment } from "./environment.js";
import { evaluateCondition, prepareConditionInput, type ConditionInput, type PreparedConditionInput } from "./evaluate.js";
import { CONDITION_INPUT_VARIABLES, conditionInputPaths, type InputPath, InputSignatures } from "./input-signature.js";
import { adaInput, makeEntitlement, makeUser, tenant } from "./test-fixtures.js";

const key = (paths: readonly InputPath[] | null): string[] | null => (paths === null ? null : paths.map((p) => p.join(".")).sort());

function prepared(over: Partial<ConditionInput>): PreparedConditionInput {
  const p = prepareConditionInput(adaInput(over));
  if (!p.ok) throw new Error(p.error.message);
  return p.value;
}

describe("conditionInputPaths", () => {
  it("lists the fields a condition selects from its input, once each", () => {
    expect(key(conditionInputPaths('subject.department == "IT" && entitlement.riskLevelValueId == "high" || subject.department == "HR"'))).toEqual([
      "entitlement.riskLevelValueId",
      "subject.department",
    ]);
  });

  it("follows map keys given as string literals and has()", () => {
    expect(key(conditionInputPaths('subject.profile["clearance"] == "x"'))).toEqual(["subject.profile.clearance"]);
    expect(key(conditionInputPaths("has(subject.profile.costCenter)"))).toEqual(["subject.profile.costCenter"]);
  });

  it("stops at an index that is not a string literal: the whole list or map counts", () => {
    expect(key(conditionInputPaths('subject.emails[0] == "a@b.c"'))).toEqual(["subject.emails"]);
    expect(key(conditionInputPaths('subject.profile[task.displayName] == "x"'))).toEqual(["subject.profile", "task.displayName"]);
  });

  it("keeps snake_case aliases as written and ignores constants", () => {
    expect(key(conditionInputPaths("subject.job_title == '' && subject.status == UserStatus.ENABLED && task.origin != TASK_ORIGIN_API"))).toEqual([
      "subject.job_title",
      "subject.status",
      "task.origin",
    ]);
  });

  it("reads only id (and managerIds) of a subject handed to a c1 function known to read no more", () => {
    expect(key(conditionInputPaths('c1.user.v1.HasApp(subject, "app-aws")'))).toEqual(["subject.id"]);
    expect(key(conditionInputPaths("size(c1.directory.users.v1.GetManagers(subject)) > 0"))).toEqual(["subject.id", "subject.managerIds"]);
  });

  it("claims nothing when an input variable is used whole any other way", () => {
    expect(conditionInputPaths("size([subject]) == 1")).toBeNull();
    expect(conditionInputPaths("[1, 2].exists(subject, subject == 2)")).toBeNull();
    expect(conditionInputPaths('cidr("10.0.0.0/8").contains(ip)')).toBeNull();
    expect(conditionInputPaths("ip.isPrivate() || true")).toBeNull();
    expect(conditionInputPaths('ip == ip("10.0.0.1")')).toBeNull();
    expect(key(conditionInputPaths("ip.isPrivate || ip.isLoopback"))).toEqual(["ip.isLoopback", "ip.isPrivate"]);
  });

  it("reads nothing for a condition that does not compile: it fails alike for every input", () => {
    expect(conditionInputPaths('subject.departmnt == "IT"')).toEqual([]);
  });

  it("knows every input variable the condition environment declares (all others are constants)", () => {
    const declared = [...celEnvironment("condition").variables];
    for (const v of CONDITION_INPUT_VARIABLES) expect(declared).toContain(v);
    const others = declared.filter((v) => !CONDITION_INPUT_VARIABLES.has(v));
    expect(others.filter((v) => !/^[A-Z]/.test(v))).toEqual([]);
  });
});

describe("InputSignatures", () => {
  const { ada } = tenant;

  it("is the same for inputs that agree at every path, whoever they are", () => {
    const sigs = new InputSignatures([["subject", "department"]]);
    const a = sigs.of(prepared({ subject: makeUser({ id: "u-1", department: "IT", jobTitle: "A" }) }));
    const b = sigs.of(prepared({ subject: makeUser({ id: "u-2", department: "IT", jobTitle: "B" }) }));
    const c = sigs.of(prepared({ subject: makeUser({ id: "u-3", department: "HR" }) }));
    expect(a).toBeGreaterThanOrEqual(0);
    expect(b).toBe(a);
    expect(c).not.toBe(a);
  });

  it("tells a missing key from an empty value, a string from a number, and a map from a non-map", () => {
    const sigs = new InputSignatures([["subject", "profile", "level"]]);
    const of = (profile: JsonObject) => sigs.of(prepared({ subject: makeUser({ id: `u-${JSON.stringify(profile)}`, profile }) }));
    const all = [of({}), of({ level: "" }), of({ level: "1" }), of({ level: 1 }), of({ level: null }), of({ level: ["1"] }), of({ level: { n: 1 } })];
    expect(new Set(all).size).toBe(all.length);
    expect(of({ level: "1", other: true })).toBe(of({ level: "1" }));
    expect(of({ level: { n: 1 } })).toBe(of({ level: { n: 1 } }));
  });

  it("compares lists by value and stops where a path cannot go on", () => {
    const sigs = new InputSignatures([["subject", "managerIds"], ["entitlement", "riskLevelValueId"]]);
    const a = sigs.of(prepared({ subject: makeUser({ id: "u-1", managerIds: ["u-bob", "u-cy"] }) }));
    const b = sigs.of(prepared({ subject: makeUser({ id: "u-2", managerIds: ["u-bob", "u-cy"] }) }));
    const c = sigs.of(prepared({ subject: makeUser({ id: "u-3", managerIds: ["u-bob"] }) }));
    // Lists of strings are written unambiguously: ["u-bobSu-cy"] is not ["u-bob", "u-cy"].
    const tricky = sigs.of(prepared({ subject: makeUser({ id: "u-4", managerIds: ["u-bobSu-cy"] }) }));
    const split = sigs.of(prepared({ subject: makeUser({ id: "u-5", managerIds: ["u-bob", "u-cy"] }) }));
    expect(tricky).not.toBe(split);
    const noEntitlement = sigs.of(prepared({ subject: makeUser({ id: "u-1", managerIds: ["u-bob", "u-cy"] }), entitlement: null }));
    expect(b).toBe(a);
    expect(c).not.toBe(a);
    expect(noEntitlement).not.toBe(a);
  });

  it("stops at a map with its own `constructor` key, which cel-js cannot select from", () => {
    const sigs = new InputSignatures([["subject", "profile", "costCenter"]]);
    const plain = sigs.of(prepared({ subject: makeUser({ id: "u-1", profile: { costCenter: "CC-1" } }) }));
    const odd = sigs.of(prepared({ subject: makeUser({ id: "u-2", profile: JSON.parse('{"costCenter":"CC-1","constructor":"Sales"}') as JsonObject }) }));
    expect(odd).not.toBe(plain);
  });

  it("is 0 for every input when there are no paths", () => {
    const sigs = new InputSignatures([]);
    expect(sigs.of(prepared({}))).toBe(0);
    expect(sigs.of(prepared({ subject: ada }))).toBe(0);
  });
});

/**
 * The property the what-if memo rests on: two inputs with one signature over a condition's paths
 * get the same outcome from the condition — the same value, or the same error.
 */
describe("signatures and outcomes", () => {
  const DEPTS = ["IT", "HR", "", "it"];
  const value = fc.oneof(fc.constantFrom("a", "b", "", "1"), fc.constantFrom(1, 0, -0, 1.5), fc.boolean(), fc.constant(null), fc.constant(["a"]), fc.constant({ x: "a" }));
  // `constructor`: a map with that key of its own is no map to cel-js (it reads types by constructor).
  const profile = fc.dictionary(fc.constantFrom("level", "site", "tags", "constructor"), value, { maxKeys: 3 });
  const user = fc.record({
    n: fc.nat(5),
    department: fc.constantFrom(...DEPTS),
    employmentType: fc.constantFrom("Full Time", "Contractor"),
    managerIds: fc.constantFrom([], ["u-bob"], ["u-bob", "u-cy"]),
    profile,
  });
  const CONDITIONS = [
    'subject.department == "IT"',
    'subject.department.lowerAscii() == "it" && subject.employmentType == "Contractor"',
    'subject.profile.level == "a"',
    'subject.profile["site"] == 1',
    "has(subject.profile.tags) && subject.profile.tags == ['a']",
    "subject.profile.level == 1.5 || subject.profile.site == true",
    "size(subject.managerIds) > 1",
    'c1.user.v1.HasApp(subject, "app-aws")',
    "size(c1.directory.users.v1.GetManagers(subject)) == 1",
    'entitlement.riskLevelValueId == "high"',
    "1.0 / subject.profile.level > 0.0",
    // A path that can stop early (level is "a") or go on (level is {x: "a"}) at the same value.
    'subject.profile.level.x == "a"',
  ];
  const compiled = CONDITIONS.map((c) => {
    const r = compileCondition(c);
    if (!r.ok) throw new Error(`${c}: ${r.error[0]?.message}`);
    return r.value;
  });

  it("inputs with the same signature get the same outcome from the condition, each condition alone and all together", () => {
    let collisions = 0;
    const json = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? `${x}n` : x));
    fc.assert(
      fc.property(fc.array(user, { minLength: 2, maxLength: 12 }), fc.array(fc.constantFrom("high", "low", ""), { minLength: 2, maxLength: 12 }), (users, risks) => {
        // One signature set per condition (over its own paths: many collisions) and one over all of them.
        const sets = [...CONDITIONS.map((c) => [c]), CONDITIONS].map((cs) => ({
          indexes: cs.map((c) => CONDITIONS.indexOf(c)),
          sigs: new InputSignatures(cs.flatMap((c) => conditionInputPaths(c) ?? [])),
          seen: new Map<number, string>(),
        }));
        users.forEach((u, i) => {
          const subject = makeUser({ id: `u-gen-${u.n}`, department: u.department, employmentType: u.employmentType, managerIds: u.managerIds, profile: u.profile });
          const entitlement = makeEntitlement({ id: "ent-x", appId: "app-aws", riskLevelValueId: risks[i % risks.length] ?? "" });
          const p = prepared({ subject, entitlement });
          const outcomes = compiled.map((c) => json(evaluateCondition(c, p)));
          for (const set of sets) {
            const s = set.sigs.of(p);
            expect(s).toBeGreaterThanOrEqual(0);
            const mine = set.indexes.map((k) => outcomes[k]).join("\n");
            const before = set.seen.get(s);
            if (before === undefined) set.seen.set(s, mine);
            else {
              collisions++;
              expect(mine).toBe(before);
            }
          }
        });
      }),
      { numRuns: 400 },
    );
    // Not vacuous: inputs did share signatures (and so were compared).
    expect(collisions).toBeGreaterThan(400);
  });
});
