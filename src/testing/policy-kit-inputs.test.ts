// The testing kit given what policy authors (and their YAML files) actually write: a subject as a
// user id, a request without an entitlement, cases that are not a list, keys named like prototype
// members, and anything at all. Every one is a matcher failure with a message — never a false pass,
// never a TypeError.
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { explain } from "../explain/explain.js";
import { loadWorld } from "../world/load-world.js";
import type { World } from "../world/world.js";
import { decodeCaseFile } from "./case-file.js";
import { taskInWorld } from "../whatif/task-spec.js";
import { checkApprovers, checkRoute, type PolicyCase, policyCases, policyMatchers, ruleCoverage, setupPolicyMatchers } from "./index.js";

function sample(): World {
  const r = loadWorld(JSON.parse(readFileSync(new URL("../../fixtures/world.json", import.meta.url), "utf8")));
  if (!r.ok) throw new Error(r.error[0]?.message);
  return r.value;
}
const world = sample();
setupPolicyMatchers(expect);
const prodAdmin = { appId: "app-aws", id: "ent-aws-prod-admin" } as const;

/** What `fn` throws (it must throw). */
function thrown(fn: () => void): Error {
  try {
    fn();
  } catch (e: unknown) {
    if (e instanceof Error) return e;
    throw new Error(`threw a non-Error: ${String(e)}`);
  }
  throw new Error("did not throw");
}

describe("a subject given by user id", () => {
  const asked = { subject: "u-contractor", entitlement: prodAdmin };

  it("is that user, as explain reads it: no false pass of .not", () => {
    const e = explain(world, asked);
    if (!e.ok) throw new Error(e.error.message);
    const rule = e.value.rules.find((r) => r.chainDepth === 0 && r.conditionMatched && r.error === "")?.ruleIndex;
    expect(rule).toBe(2);
    expect(world).toRoute(asked, { rule: 2, approvers: ["u-sre-lead"] });
    expect(() => expect(world).not.toRoute(asked, { rule: 2 })).toThrow(/expected a grant of app-aws\/ent-aws-prod-admin to u-contractor not to route \{ rule: 2 \}, but it does/);
    // The same request written with a described subject routes the same way.
    expect(checkRoute(world, { subject: { id: "u-contractor" }, entitlement: prodAdmin }, { rule: 2 }).pass).toBe(true);
  });

  it("an unknown user id is a failure, negated or not, saying how to describe a new user", () => {
    const nobody = { subject: "u-nobody", entitlement: prodAdmin };
    expect(() => expect(world).toRoute(nobody, { rule: 2 })).toThrow(/user "u-nobody" not found \(to describe a user who does not exist yet, give subject: \{ id: "u-nobody", … \}\)/);
    expect(() => expect(world).not.toRoute(nobody, { rule: 2 })).toThrow(/user "u-nobody" not found/);
    expect(explain(world, nobody)).toMatchObject({ ok: false, error: { code: "NOT_FOUND" } });
  });

  it("a described subject or entitlement with a key no user or entitlement has is a failure naming it, negated or not: a typo overrides nothing", () => {
    const typo = { subject: { id: "u-contractor", employmentTyp: "Employee" }, entitlement: prodAdmin };
    expect(() => expect(world).not.toRoute(typo, { rule: 2 })).toThrow(/subject\.employmentTyp is not a key of a user; did you mean employmentType\?/);
    expect(() => expect(world).toRoute(typo, { rule: 2 })).toThrow(/employmentTyp/);
    const risk = { subject: "u-contractor", entitlement: { ...prodAdmin, riskLevel: "low" } };
    expect(() => expect(world).not.toRoute(risk, { rule: 2 })).toThrow(/entitlement\.riskLevel is not a key of an entitlement; did you mean riskLevelValueId\?/);
    // A world user or entitlement passed as it is still routes as its id does.
    const user = world.index.users.get("u-contractor");
    expect(checkRoute(world, { subject: user as never, entitlement: prodAdmin }, { rule: 2 }).pass).toBe(true);
  });

  it("an expectation naming what the world lacks (a policy, a user, a step key, a rule past the policy's) fails negated or not: it could never hold", () => {
    const asked = { subject: "u-contractor", entitlement: prodAdmin };
    for (const [expected, said] of [
      [{ policy: "pol-prod-admn" }, /policy "pol-prod-admn" is not a policy of the world; did you mean "pol-prod-admin"\?/],
      [{ approvers: ["u-sre-led"] }, /approver "u-sre-led" is not a user of the world; did you mean "u-sre-lead"\?/],
      [{ stepKey: "no-such-key" }, /stepKey "no-such-key" is not a step key of any policy/],
      [{ policy: "pol-prod-admin", rule: 99 }, /rule 99 is past the rules of policy "pol-prod-admin"/],
      [{ source: "entitlment" }, /source "entitlment" is not a resolution source; did you mean "entitlement"\?/],
    ] as const) {
      expect(() => expect(world).not.toRoute(asked, expected as never)).toThrow(said);
      expect(() => expect(world).toRoute(asked, expected as never)).toThrow(said);
    }
    expect(() => expect(world).not.toRequireApprovalFrom(asked, ["u-nobody"])).toThrow(/approver "u-nobody" is not a user of the world/);
  });

  it("reads the same in a case file, in inline cases and in rule coverage", () => {
    const file = decodeCaseFile([
      { name: "by id", request: { subject: "u-contractor", entitlement: "app-aws/ent-aws-prod-admin" }, expect: { rule: 2 } },
      { name: "top-level", subject: "u-contractor", entitlement: prodAdmin, expect: { rule: 2 } },
      { name: "unknown", request: { subject: "u-nobody", entitlement: "app-aws/ent-aws-prod-admin" }, expect: { rule: 2 } },
    ]);
    const cases = file.entries.flatMap((e) => ("case" in e ? [e.case] : []));
    const results = policyCases(world, cases);
    expect(results.map((r) => [r.name, r.pass])).toEqual([["by id", true], ["top-level", true], ["unknown", false]]);
    expect(results[2]?.message).toContain('user "u-nobody" not found');
    const inline: PolicyCase[] = [{ name: "inline", subject: "u-contractor", entitlement: prodAdmin, expect: { rule: 2 } }];
    expect(policyCases(world, inline)[0]?.pass).toBe(true);
    const coverage = ruleCoverage(world, inline);
    expect(coverage.skipped).toEqual([]);
    expect(coverage.tasks).toBe(1);
  });
});

describe("arguments that are not what a matcher needs fail with a message, never a TypeError", () => {
  it("a request without an entitlement", () => {
    const e = thrown(() => expect(world).toRoute({ subject: "u-dev2" } as never, { rule: 2 }));
    expect(e).not.toBeInstanceOf(TypeError);
    expect(e.message).toMatch(/the task cannot be built: entitlement is missing: a described task needs an entitlement \{ appId, id \}/);
    expect(() => expect(world).not.toRoute({ subject: "u-dev2" } as never, { rule: 2 })).toThrow(/entitlement is missing/);
  });

  it("a misspelt request key, a number for a task id, an entitlement in the file shorthand", () => {
    expect(() => expect(world).toRoute({ subjet: "u-dev2", entitlement: prodAdmin } as never, { rule: 2 })).toThrow(/subjet is not a key of a described task; did you mean subject\?/);
    expect(() => expect(world).toRoute(1001 as never, { rule: 2 })).toThrow(/got number 1001 \(did you mean "1001"\?\)/);
    expect(() => expect(world).toRoute({ entitlement: "app-aws/ent-aws-prod-admin" } as never, { rule: 2 })).toThrow(/did you mean \{ appId: "app-aws", id: "ent-aws-prod-admin" \}/);
    expect(() => expect(world).toRoute({ subject: { id: "u-dev2", profile: { n: 1n } }, entitlement: prodAdmin } as never, { rule: 2 })).toThrow(/subject\.profile\.n must be JSON/);
  });

  it("a described request without a subject, or with an origin the service does not have, is refused: each routed to a rule for that reason alone (author review)", () => {
    expect(() => expect(world).toRoute({ entitlement: prodAdmin } as never, { rule: 2 })).toThrow(/a described request needs a subject: a user id \("u-dev1"\), or \{ id: "u-new"/);
    // A described user without an id is nobody in particular either (hostile review 2).
    for (const subject of [{}, { employmentType: "Contractor" }, { id: "" }])
      expect(() => expect(world).toRoute({ subject, entitlement: prodAdmin }, { rule: 2 })).toThrow(/subject\.id a described user needs an id: \{ id: "u-new"/);
    expect(() => expect(world).toRoute({ subject: "u-dev2", entitlement: prodAdmin, origin: "COPILOTT" }, { rule: 2 })).toThrow(/origin must be one of .*COPILOT.* \(or its TASK_ORIGIN_… name\), not "COPILOTT"/);
    // Any case, the long name and the docs' older names (TaskOrigin.SLACK is CHATAPP) are the origins they name.
    const copilot = policyCases(world, [
      { name: "lower", subject: "u-contractor", entitlement: prodAdmin, origin: "copilot", expect: { rule: 1 } },
      { name: "long", subject: "u-contractor", entitlement: prodAdmin, origin: "TASK_ORIGIN_COPILOT", expect: { rule: 1 } },
    ]);
    expect(copilot.map((c) => [c.name, c.pass, c.message])).toEqual([["lower", true, ""], ["long", true, ""]]);
    const slack = taskInWorld(world, { subject: "u-dev2", entitlement: prodAdmin, origin: "slack" });
    expect(slack.ok && slack.value.task.origin).toBe("TASK_ORIGIN_CHATAPP");
  });

  it("a rule past the policy's last, a rule written \"#2\", a step summary cut mid-word: each said plainly (author review)", () => {
    // pol-prod-admin has rules #0–#4.
    expect(checkRoute(world, "1001", { rule: 9 }).mismatches).toEqual(["rule is #2, expected #9 (pol-prod-admin has rules #0–#4)"]);
    expect(checkRoute(world, "1001", { rule: "#2" } as never).mismatches).toEqual(['rule must be a rule index (from 0) or "baseline", got "#2" (did you mean 2?)']);
    // 1001's first step is "approval by manager …": a start cut inside a word is no start.
    expect(checkRoute(world, "1001", { firstStep: "approval by manager" }).pass).toBe(true);
    expect(checkRoute(world, "1001", { firstStep: "approval by manag" }).pass).toBe(false);
    expect(checkRoute(world, "1001", { firstStep: "approval by" }).pass).toBe(true);
  });

  it("policyCases given something other than a list", () => {
    const results = policyCases(world, { name: "x", task: "1001", expect: { rule: 2 } } as never);
    expect(results).toHaveLength(1);
    expect(results[0]?.pass).toBe(false);
    expect(() => results[0]?.assert()).toThrow(/policyCases: the cases must be an array of \{ name, task \| subject \+ entitlement, expect \}, got an object/);
    expect(policyCases(world, { cases: [] } as never)[0]?.message).toContain("(a case file's { cases: [...] }? pass its cases)");
    expect(policyCases(world, undefined as never)[0]?.message).toContain("got undefined");
  });

  it("an expectation key named like a prototype member is no expectation key", () => {
    expect(() => expect(world).toRoute("1001", { constructor: 1 } as never)).toThrow(/"constructor" is not an expectation key/);
    expect(() => expect(world).toRoute("1001", JSON.parse('{"__proto__": 1}') as never)).toThrow(/"__proto__" is not an expectation key/);
    expect(() => expect(world).toRoute("1001", { toString: "x" } as never)).toThrow(/"toString" is not an expectation key/);
  });

  it("a case with task and a described request at once, or with keys a case does not have", () => {
    const both = policyCases(world, [{ name: "both", task: "1001", subject: "u-dev2", expect: { rule: 2 } }] as never);
    expect(both[0]?.message).toContain("it also has subject");
    expect(decodeCaseFile([{ name: "both", task: "1001", constructor: "x", expect: { rule: 2 } }]).entries[0]).toMatchObject({ problem: expect.stringContaining("it also has constructor") });
  });

  it("approvers that are not a list, options that are not { step }, a missing step key or policy id", () => {
    expect(() => expect(world).toRequireApprovalFrom("1001", "u-sre-lead" as never)).toThrow(/the approvers must be a list of user ids, got "u-sre-lead"/);
    expect(() => expect(world).not.toRequireApprovalFrom("1001", ["u-x"], "any" as never)).toThrow(/the options must be \{ step \}/);
    expect(checkApprovers(world, "1001", ["u-sre-lead"], { step: "second" } as never).invalid).toBe(true);
    expect(() => expect(world).toRouteToStep("1001", undefined as never)).toThrow(/toRouteToStep\(task, stepKey\): the step key is missing/);
    expect(() => expect(world).not.toUsePolicy("1001", undefined as never)).toThrow(/toUsePolicy\(task, policyId\): the policy id is missing/);
  });

  it("a matcher called unbound has no negation, and still answers", () => {
    const { toRoute } = policyMatchers;
    expect(toRoute.call(undefined as never, world, "1001", { rule: 2 }).pass).toBe(true);
  });
});

// ---- property: arbitrary requests and expectations ----

const junk = fc.anything({ withBigInt: true, withDate: true, withMap: true, withSet: true, withNullPrototype: true, withSparseArray: true, withBoxedValues: true, maxDepth: 2 });
const orJunk = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<unknown> => fc.oneof({ weight: 4, arbitrary: a }, { weight: 1, arbitrary: junk });
const listOrJunk = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<unknown> => orJunk(fc.array(orJunk(a), { maxLength: 3 }));
const userIds = world.users.map((u) => u.id);
const ents = world.entitlements.map((e) => ({ appId: e.appId, id: e.id }));
const policyIds = world.policies.map((p) => p.id);
const taskIds = [...world.tasks.values()].slice(0, 10).flatMap((t) => [t.id, t.numericId]);
const oddKey = fc.constantFrom("constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "polcy", "subjet", "name", "expect");
const withOddKey = <T extends object>(a: fc.Arbitrary<T>): fc.Arbitrary<unknown> =>
  fc.tuple(a, fc.option(fc.tuple(oddKey, junk), { freq: 4 })).map(([o, extra]) => (extra ? Object.assign(JSON.parse(JSON.stringify({ [extra[0]]: 0 })) as object, o, { [extra[0]]: extra[1] }) : o));

const arbSubject = fc.oneof(
  fc.constantFrom(...userIds, "u-nobody", ""),
  withOddKey(
    fc.record(
      {
        id: orJunk(fc.constantFrom(...userIds, "u-new")),
        department: orJunk(fc.constantFrom("Security", "Engineering")),
        employmentType: orJunk(fc.constantFrom("Contractor", "Employee")),
        status: orJunk(fc.constantFrom("ENABLED", "USER_STATUS_DISABLED")),
        managerIds: listOrJunk(fc.constantFrom(...userIds)),
        profile: orJunk(fc.dictionary(fc.constantFrom("clearance", "costCenter", "constructor", "__proto__"), orJunk(fc.constantFrom("high", "low", 1, null)))),
      },
      { requiredKeys: [] },
    ),
  ),
  junk,
);
const arbEntitlement = fc.oneof(
  fc.constantFrom(...ents),
  fc.constant("app-aws/ent-aws-prod-admin"),
  withOddKey(fc.record({ appId: orJunk(fc.constantFrom("app-aws", "app-none")), id: orJunk(fc.constantFrom(...ents.map((e) => e.id))), riskLevelValueId: orJunk(fc.constantFrom("low", "high")) }, { requiredKeys: [] })),
  junk,
);
// Mostly well-formed, so that most checks get as far as an explanation; then noisy; then anything.
const wellFormedRequest = fc.oneof(
  fc.constantFrom(...taskIds),
  fc.record(
    {
      subject: fc.oneof(fc.constantFrom(...userIds), fc.record({ id: fc.constantFrom(...userIds, "u-new"), employmentType: fc.constantFrom("Contractor", "Employee") }, { requiredKeys: ["id"] })),
      entitlement: fc.constantFrom(...ents),
      kind: fc.constantFrom("grant" as const, "revoke" as const),
      emergencyAccess: fc.boolean(),
    },
    { requiredKeys: ["entitlement"] },
  ),
);
const wellFormedExpectation = fc
  .record(
    {
      policy: fc.constantFrom(...policyIds),
      rule: fc.oneof(fc.nat(4), fc.constant("baseline" as const)),
      firstStep: fc.constantFrom("approval", "reject", "accept"),
      approvers: fc.subarray(userIds, { maxLength: 2 }),
      decidedBy: fc.record({ rule: fc.oneof(fc.nat(4), fc.constant("baseline" as const)) }),
    },
    { requiredKeys: [] },
  )
  .filter((o) => Object.keys(o).length > 0);
const noisyRequest: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...taskIds, "9999", ""),
  withOddKey(
    fc.record(
      {
        subject: arbSubject,
        entitlement: arbEntitlement,
        kind: orJunk(fc.constantFrom("grant", "revoke", "certify")),
        origin: orJunk(fc.constantFrom("COPILOT", "TASK_ORIGIN_WEBAPP")),
        emergencyAccess: orJunk(fc.boolean()),
        grantDuration: orJunk(fc.constantFrom("3600s", null)),
      },
      { requiredKeys: [] },
    ),
  ),
  junk,
);
const arbRule = orJunk(fc.oneof(fc.nat(5), fc.constant("baseline" as const)));
const noisyExpectation: fc.Arbitrary<unknown> = fc.oneof(
  withOddKey(
    fc.record(
      {
        policy: orJunk(fc.constantFrom(...policyIds)),
        source: orJunk(fc.constantFrom("entitlement", "app", "tenantDefault", "emergency")),
        rule: arbRule,
        decidedBy: orJunk(withOddKey(fc.record({ policy: orJunk(fc.constantFrom(...policyIds)), rule: arbRule }, { requiredKeys: [] }))),
        stepKey: orJunk(fc.string({ maxLength: 4 })),
        chain: listOrJunk(fc.constantFrom(...policyIds)),
        firstStep: orJunk(fc.constantFrom("approval", "approval by manager", "reject", "accept")),
        steps: listOrJunk(fc.constantFrom("approval", "provision")),
        approvers: listOrJunk(fc.constantFrom(...userIds)),
        error: orJunk(fc.constantFrom("CYCLE", "NO_POLICY")),
      },
      { requiredKeys: [] },
    ),
  ),
  junk,
);

const arbRequest = fc.oneof({ weight: 3, arbitrary: wellFormedRequest }, { weight: 2, arbitrary: noisyRequest });
const arbExpectation = fc.oneof({ weight: 3, arbitrary: wellFormedExpectation }, { weight: 2, arbitrary: noisyExpectation });

describe("the matchers over arbitrary requests and expectations (fast-check)", () => {
  it("only ever fail as assertions with a message: no TypeError, no RangeError, no internal error", () => {
    const attempt = (fn: () => void): void => {
      try {
        fn();
      } catch (e: unknown) {
        expect(e).toBeInstanceOf(Error);
        expect(e).not.toBeInstanceOf(TypeError);
        expect(e).not.toBeInstanceOf(RangeError);
        const message = (e as Error).message;
        expect(message.length).toBeGreaterThan(0);
        expect(message).not.toMatch(/internal error/);
      }
    };
    fc.assert(
      fc.property(arbRequest, arbExpectation, orJunk(fc.constantFrom(...policyIds)), listOrJunk(fc.constantFrom(...userIds)), orJunk(fc.record({ step: orJunk(fc.constantFrom("first", "any", 0, 1)) }, { requiredKeys: [] })), (request, expected, policyId, approvers, options) => {
        const r = request as never;
        for (const not of [false, true]) {
          const a = not ? expect(world).not : expect(world);
          attempt(() => a.toRoute(r, expected as never));
          attempt(() => a.toRouteToStep(r, (expected as { stepKey?: never } | null)?.stepKey as never));
          attempt(() => a.toRequireApprovalFrom(r, approvers as never, options as never));
          attempt(() => a.toUsePolicy(r, policyId as never));
        }
        // policyCases never throws, whatever the cases hold.
        attempt(() => void policyCases(world, [{ name: "c", task: request, expect: expected }, { name: "d", ...(typeof request === "object" ? request : {}), expect: expected }] as never));
      }),
      { numRuns: 250 },
    );
  });
});

describe("the world's own objects are accepted as they are (a variable compiles where a literal would not)", () => {
  it("a world user as subject and a world entitlement as entitlement route as their ids do; what-if scopes take world entitlements", async () => {
    const { whatIf } = await import("../whatif/what-if.js");
    const user = world.index.users.get("u-contractor");
    const ent = world.entitlements.find((e) => e.appId === "app-aws" && e.id === "ent-aws-prod-admin");
    if (!user || !ent) throw new Error("fixture changed");
    const byObjects = explain(world, { subject: user, entitlement: ent } as never);
    const byIds = explain(world, { subject: "u-contractor", entitlement: { appId: "app-aws", id: "ent-aws-prod-admin" } });
    if (!byObjects.ok || !byIds.ok) throw new Error(`not explained: ${JSON.stringify(byObjects.ok ? byIds : byObjects)}`);
    expect(byIds.value.result.kind).toBe("selected");
    expect([byObjects.value.result, byObjects.value.subject?.id]).toEqual([byIds.value.result, "u-contractor"]);
    const scoped = whatIf(world, {}, { scope: { states: "any", entitlements: world.entitlements.filter((e) => e.appId === "app-aws") } });
    expect(scoped.ok && scoped.value.counts.inScope).toBeGreaterThan(0);
  });
});
