import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decide } from "../policy/decide.js";
import { saveWorld } from "../world/save-world.js";
import { loadWorld } from "../world/load-world.js";
import { replaceInWorld, type World } from "../world/world.js";
import { applyPolicyMutation, arbTaskIn, arbTaskSpecIn, arbWorld } from "./arbitraries-entry.js";
import {
  checkApprovers,
  checkRoute,
  policyCases,
  policyMatchers,
  runPolicyCases,
  setupPolicyMatchers,
  taskInWorld,
} from "./index.js";

function sample(): World {
  const r = loadWorld(JSON.parse(readFileSync(new URL("../../fixtures/world.json", import.meta.url), "utf8")));
  if (!r.ok) throw new Error(r.error[0]?.message);
  return r.value;
}
const world = sample();
const prodAdmin = { appId: "app-aws", id: "ent-aws-prod-admin" } as const;

describe("route checks and their messages", () => {
  it("passes when every expectation holds", () => {
    expect(checkRoute(world, "1001", { policy: "pol-prod-admin", source: "entitlement", rule: 2, approvers: ["u-sre-lead"], firstStep: "approval" }).pass).toBe(true);
    expect(checkRoute(world, "1002", { rule: 3, decidedBy: { policy: "pol-prod-admin-eng", rule: 0 }, chain: ["pol-prod-admin", "pol-prod-admin-eng"] }).pass).toBe(true);
    expect(checkRoute(world, "1004", { rule: "baseline", policy: "pol-emergency-breakglass", source: "emergency" }).pass).toBe(true);
  });

  it("a failure says what differs and shows the explanation of what happened", () => {
    const c = checkRoute(world, "1001", { policy: "pol-prod-admin", rule: 4, approvers: ["u-ciso"] });
    expect(c.pass).toBe(false);
    expect(c.mismatches).toEqual(["rule is #2, expected #4", 'first step approvers are ["u-sre-lead"], expected ["u-ciso"]']);
    expect(c.message).toContain('expected task 1001 to route { policy: "pol-prod-admin", rule: 4, approvers: ["u-ciso"] }, but:');
    expect(c.message).toContain("it routes: pol-prod-admin (entitlement): rule #2 of pol-prod-admin");
    // The formatted explanation, rule by rule.
    expect(c.message).toContain("Rules evaluated (first match wins)");
    expect(c.message).toContain("✓ #2  subject.employmentType == \"Contractor\"");
  });

  it("a failure names the rules that failed with an error on the way, right under the route (they do not match)", () => {
    const policy = world.index.policies.get("pol-prod-admin");
    const rules = policy?.rules ?? [];
    const first = rules[0];
    if (!policy || !first) throw new Error("no pol-prod-admin rule #0 in the sample world");
    const edited = replaceInWorld(world, { policies: [{ ...policy, rules: [{ ...first, condition: 'subject.profile.badgeLevel == "gold"' }, ...rules.slice(1)] }] });
    const c = checkRoute(edited, "1001", { rule: 0 });
    expect(c.pass).toBe(false);
    expect(c.message).toContain("it routes: pol-prod-admin (entitlement): rule #2 of pol-prod-admin");
    expect(c.message).toMatch(/\nrules that failed with an error \(they do not match\): #0 of pol-prod-admin \(CEL_NO_SUCH_KEY: No such key: badgeLevel at 1:17\)\n/);
    // None failed: no such line.
    expect(checkRoute(world, "1001", { rule: 0 }).message).not.toContain("rules that failed");
  });

  it("expects errors by code", () => {
    const broken = applyPolicyMutation(world, { kind: "baselineTo", policy: world.policies.findIndex((p) => p.id === "pol-emergency-breakglass"), target: world.policies.findIndex((p) => p.id === "pol-emergency-breakglass") });
    expect(checkRoute(broken, "1004", { error: "SELF_REFERENCE" }).pass).toBe(true);
    // Any other expectation of a policy the service would not save cannot be checked, negated or not.
    const refused = checkRoute(broken, "1004", { rule: "baseline" });
    expect(refused).toMatchObject({ pass: false, invalid: true });
    expect(refused.message).toContain('policy "pol-emergency-breakglass" has 2 lint errors (the service would refuse to save it');
    expect(refused.message).toContain("SELF_REFERENCE at $.baselinePolicyId");
    expect(checkRoute(world, "1004", { error: "CYCLE" }).mismatches).toEqual(["no error, expected CYCLE"]);
    // A misspelt code can never be met: refused with the code meant, not "no error, expected SELF_REFERENCEE".
    const typo = checkRoute(broken, "1004", { error: "SELF_REFERENCEE" });
    expect(typo).toMatchObject({ pass: false });
    expect(typo.message).toContain('error "SELF_REFERENCEE" is not a code a route fails with; did you mean "SELF_REFERENCE"?');
  });

  it("a policy on the route that the service would refuse to save (lint errors) fails the check, negated or not, with each error's position: never a silent pass", () => {
    const edited = (id: string, f: (p: { rules: { condition: string; stepKey: string }[] }) => void): World => {
      const json = JSON.parse(readFileSync(new URL("../../fixtures/world.json", import.meta.url), "utf8")) as { policies: { id: string }[] };
      const p = json.policies.find((x) => x.id === id) as unknown as { rules: { condition: string; stepKey: string }[] };
      f(p);
      const w = loadWorld(json);
      if (!w.ok) throw new Error("world");
      return w.value;
    };
    // A misspelt field in a rule that does not decide the task (the task still routes by rule 2).
    const typo = edited("pol-prod-admin", (p) => {
      p.rules[0]!.condition = 'subject.departmnet == "Security" && subject.profile.clearance == "high"';
    });
    const r = checkRoute(typo, "1001", { policy: "pol-prod-admin", rule: 2 });
    expect(r).toMatchObject({ pass: false, invalid: true });
    expect(r.message).toContain("CEL_TYPE_ERROR at $.rules[0].condition");
    expect(r.message).toContain("did you mean 'department'");
    expect(r.message).toContain("departmnet");
    expect(r.message).toMatch(/\^+/);
    expect(checkApprovers(typo, "1001", ["u-sre-lead"])).toMatchObject({ pass: false, invalid: true });
    // A rule pointed at a step key the policy does not have.
    const dangling = edited("pol-prod-admin", (p) => {
      p.rules[0]!.stepKey = "security-fast-typo";
    });
    expect(checkRoute(dangling, "1001", { rule: 2 }).message).toContain("DANGLING_STEP_KEY");
    // The matchers: `.not` does not turn it into a pass (under `.not`, `pass: true` is the failure).
    expect(policyMatchers.toRoute.call({ isNot: true } as never, typo, "1001", { rule: 0 }).pass).toBe(true);
    expect(policyMatchers.toRoute.call({ isNot: false } as never, typo, "1001", { rule: 2 }).pass).toBe(false);
  });

  it("a rule expected one past the one that decided says rule indexes start at 0 (the docs' \"Rule 1\" is rule 0)", () => {
    expect(checkRoute(world, "1001", { rule: 3 }).mismatches).toEqual(['rule is #2, expected #3 (rule indexes start at 0: the docs\' "Rule 3" is rule 2)']);
    expect(checkRoute(world, "1001", { rule: 0 }).mismatches).toEqual(["rule is #2, expected #0"]);
  });

  it("approvalSteps: who reviews each approval step, in order, later steps and a route that starts with a form included", () => {
    expect(checkRoute(world, "1001", { approvalSteps: [["u-sre-lead"], ["u-ciso", "u-sec-eng"]] }).pass).toBe(true);
    expect(checkRoute(world, "1001", { approvalSteps: [["u-sre-lead"]] }).mismatches).toEqual(['approval steps are reviewed by ["u-sre-lead"], ["u-ciso","u-sec-eng"], expected ["u-sre-lead"]']);
    // 1012: a form first, then two approvals by the CFO; `approvers` (the first step) cannot say that.
    expect(checkRoute(world, "1012", { approvers: ["u-cfo"] }).pass).toBe(false);
    expect(checkRoute(world, "1012", { approvalSteps: [["u-cfo"], ["u-cfo"]] }).pass).toBe(true);
    expect(checkRoute(world, "1001", { approvalSteps: [["kenji.watanabe@northwind-labs.example"]] }).message).toContain('is the email of "u-sre-lead"');
    expect(checkRoute(world, "1001", { approvalSteps: ["u-sre-lead"] as never }).message).toContain("approvalSteps must be a list of lists of user ids");
  });

  it("an approver given by email or name is refused with the id it stands for", () => {
    expect(checkApprovers(world, "1001", ["kenji.watanabe@northwind-labs.example"]).message).toContain('is the email of "u-sre-lead"');
    expect(checkRoute(world, "1001", { approvers: ["Kenji Watanabe"] }).message).toContain('is the name of "u-sre-lead"');
  });

  it("checks approvers of a chosen step", () => {
    expect(checkApprovers(world, "1001", ["u-sre-lead"]).pass).toBe(true);
    expect(checkApprovers(world, "1001", ["u-sec-eng", "u-ciso"], { step: 1 }).pass).toBe(true);
    expect(checkApprovers(world, "1001", ["u-ciso", "u-sec-eng"], { step: "any" }).pass).toBe(true);
    expect(checkApprovers(world, "1001", ["u-ciso"]).mismatches).toEqual(['step 0 (manager) is reviewed by ["u-sre-lead"]']);
    expect(checkApprovers(world, "1010", ["u-ciso"]).mismatches).toEqual(["the selected steps have no approval step"]);
    // A step past the route's end, or of another kind, is told as what it is (REPL review: step 7 was "not an approval step").
    expect(checkApprovers(world, "1001", ["u-ciso"], { step: 7 }).mismatches).toEqual(["the route has 3 steps (0–2), no step 7; its approval steps are 0, 1"]);
    expect(checkApprovers(world, "1001", ["u-ciso"], { step: 2 }).mismatches).toEqual(["step 2 is not an approval step but provision; its approval steps are 0, 1"]);
  });

  it("an unknown task or entitlement fails with the reason, never throws", () => {
    expect(checkRoute(world, "nope", { rule: 0 }).message).toContain('the task cannot be built: task "nope" not found');
    // Negated, it fails too (a task that does not route cannot "not route" either), saying what was asserted (REPL review).
    expect(() => expect(world).not.toRoute("nope", { rule: 0 })).toThrow(/^expected task "?nope"? not to route \{ rule: 0 \}, but the task cannot be built: task "nope" not found/);
    expect(checkRoute(world, { subject: "u-dev2", entitlement: { appId: "app-aws", id: "ent-x" } }, { rule: 0 }).message).toContain('entitlement "ent-x" of app "app-aws" does not exist');
  });
});

describe("policyMatchers", () => {
  it("implement the vitest matcher protocol, negation included", () => {
    const yes = policyMatchers.toRoute.call({ isNot: false }, world, "1001", { rule: 2 });
    expect(yes.pass).toBe(true);
    const no = policyMatchers.toRoute.call({ isNot: true }, world, "1001", { rule: 2 });
    expect(no.pass).toBe(true); // vitest inverts it for .not
    expect(no.message()).toContain("expected task 1001 not to route { rule: 2 }, but it does");
    expect(policyMatchers.toUsePolicy.call({ isNot: false }, world, "1001", "pol-aws-access").message()).toContain('policy is "pol-prod-admin", expected "pol-aws-access"');
    expect(policyMatchers.toRouteToStep.call({ isNot: false }, world, "1001", "5650fd2e-58bd-4dab-a08a-7314c0a4d8a3").pass).toBe(true);
    expect(policyMatchers.toRequireApprovalFrom.call({ isNot: false }, world, "1001", ["u-sre-lead"]).pass).toBe(true);
  });

  it("refuse a received value that is not a world, negated or not", () => {
    expect(policyMatchers.toRoute.call({ isNot: false }, { a: 1 }, "1001", {}).pass).toBe(false);
    expect(policyMatchers.toRoute.call({ isNot: true }, null, "1001", {}).pass).toBe(true);
    expect(policyMatchers.toRoute.call({ isNot: true }, null, "1001", {}).message()).toContain("expected a World");
  });

  it("work through expect.extend, failures included", () => {
    setupPolicyMatchers(expect);
    expect(world).toRoute({ subject: { id: "u-dev1", employmentType: "Contractor" }, entitlement: prodAdmin }, { rule: 2 });
    expect(() => expect(world).toRoute("1001", { rule: 0 })).toThrow(/rule is #2, expected #0[\s\S]*Rules evaluated/);
    expect(() => expect(world).not.toUsePolicy("1001", "pol-prod-admin")).toThrow(/not to route/);
  });

  it("are typed on vitest's assertions (src/testing/vitest.d.ts)", () => {
    // Type-level only: never called, checked by tsc.
    const typed = (): void => {
      expect(world).toRoute("1001", { rule: 2, approvers: ["u-sre-lead"] });
      expect(world).not.toRequireApprovalFrom("1001", ["u-ciso"], { step: "any" });
      // @ts-expect-error a rule is an index or "baseline"
      expect(world).toRoute("1001", { rule: "second" });
      // @ts-expect-error the policy id is required
      expect(world).toUsePolicy("1001");
    };
    expect(typeof typed).toBe("function");
  });

  it("setupPolicyMatchers without an expect to extend is a setup mistake", () => {
    const g = globalThis as { expect?: unknown };
    const saved = g.expect;
    delete g.expect;
    try {
      expect(() => setupPolicyMatchers()).toThrow(/pass vitest's/);
    } finally {
      if (saved !== undefined) g.expect = saved;
    }
  });
});

describe("policy cases", () => {
  const cases = [
    { name: "contractor", task: "1001", expect: { rule: 2 } },
    { name: "inline spec", subject: { id: "u-sec-eng" }, entitlement: prodAdmin, expect: { rule: 0 } },
    { name: "wrong on purpose", task: "1001", expect: { rule: 4 } },
  ];

  it("return one result per case, in order, failures carrying the explanation", () => {
    const results = policyCases(world, cases);
    expect(results.map((r) => [r.name, r.pass])).toEqual([
      ["contractor", true],
      ["inline spec", true],
      ["wrong on purpose", false],
    ]);
    expect(() => results[0]?.assert()).not.toThrow();
    expect(() => results[2]?.assert()).toThrow(/wrong on purpose: expected task 1001 to route \{ rule: 4 \}/);
    expect(results[1]?.task).toEqual({ subject: { id: "u-sec-eng" }, entitlement: prodAdmin });
  });

  it("runPolicyCases reports", () => {
    const run = runPolicyCases(world, cases);
    expect([run.passed, run.failed]).toEqual([2, 1]);
    expect(run.report).toMatch(/^✓ contractor\n✓ inline spec\n✗ wrong on purpose\n/);
    expect(run.report).toContain("2 passed, 1 failed");
  });
});

describe("described tasks", () => {
  it("override the subject and the entitlement in a new world, leaving the original alone", () => {
    const before = JSON.stringify(saveWorld(world));
    const r = taskInWorld(world, {
      subject: { id: "u-dev1", department: "Security", profile: { clearance: "high" } },
      entitlement: { ...prodAdmin, riskLevelValueId: "low" },
      origin: "COPILOT",
      grantDuration: "3600s",
    });
    if (!r.ok) throw new Error(r.error.message);
    const { world: w, task } = r.value;
    expect(w.index.users.get("u-dev1")).toMatchObject({ department: "Security", profile: { clearance: "high", costCenter: "CC-100" } });
    expect(w.index.entitlements.get("app-aws\u0000ent-aws-prod-admin")?.riskLevelValueId).toBe("low");
    expect(task).toMatchObject({ origin: "TASK_ORIGIN_COPILOT", userId: "u-dev1", type: { kind: "grant", grantDuration: "3600s" } });
    expect(JSON.stringify(saveWorld(world))).toBe(before);
    // Without overrides the world itself is used.
    const plain = taskInWorld(world, { subject: { id: "u-dev1" }, entitlement: prodAdmin });
    expect(plain.ok && plain.value.world).toBe(world);
  });
});

describe("arbitraries", () => {
  it("arbWorld makes worlds every task of which decides without throwing", () => {
    fc.assert(
      fc.property(arbWorld({ maxTasks: 10 }), (w) => {
        for (const t of w.tasks.values()) decide(w, t);
      }),
      { numRuns: 25 },
    );
  });

  it("arbTaskIn makes tasks of the world's users and entitlements", () => {
    fc.assert(
      fc.property(arbTaskIn(world), (task) => {
        const d = decide(world, task);
        expect(d.resolution.ok).toBe(true);
      }),
      { numRuns: 50 },
    );
  });

  it("arbTaskSpecIn makes specs that build, mixing in the literals the conditions test", () => {
    const specs = fc.sample(arbTaskSpecIn(world), { seed: 1, numRuns: 300 });
    for (const s of specs) expect(taskInWorld(world, s).ok).toBe(true);
    const departments = new Set(specs.map((s) => s.subject?.department).filter((d) => d !== undefined));
    expect(departments.has("Security")).toBe(true);
    const clearances = new Set(specs.map((s) => s.subject?.profile?.["clearance"]).filter((d) => d !== undefined));
    expect(clearances.has("high")).toBe(true);
  });

  it("applyPolicyMutation returns a new world and leaves the old one alone", () => {
    const before = JSON.stringify(saveWorld(world));
    const after = applyPolicyMutation(world, { kind: "removeRule", policy: 1, rule: 0 });
    expect(after).not.toBe(world);
    expect(after.tasks).toBe(world.tasks);
    expect(JSON.stringify(saveWorld(world))).toBe(before);
  });
});

describe("expectations that cannot be checked fail, with a message (issue 14.3)", () => {
  const world = sample();
  setupPolicyMatchers(expect);

  it("an empty expectation fails, negated or not", () => {
    expect(() => expect(world).toRoute("1001", {})).toThrow(/the expectation is empty/);
    expect(() => expect(world).not.toRoute("1001", {})).toThrow(/the expectation is empty/);
  });

  it("an unknown key fails and names the key meant", () => {
    const bad = { polcy: "pol-prod-admin" } as unknown as Parameters<typeof checkRoute>[2];
    expect(() => expect(world).toRoute("1001", bad)).toThrow(/"polcy" is not an expectation key; did you mean "policy"\?/);
    expect(checkRoute(world, "1001", bad).pass).toBe(false);
  });

  it("a value of the wrong kind fails", () => {
    const bad = { rule: "2" } as unknown as Parameters<typeof checkRoute>[2];
    expect(checkRoute(world, "1001", bad).mismatches).toEqual(['rule must be a rule index (from 0) or "baseline", got "2" (did you mean 2?)']);
  });

  it("a case without expect fails that case alone; the others still run", () => {
    const cases = [
      { name: "no expect", task: "1001" },
      { name: "fine", task: "1001", expect: { rule: 2 } },
      null,
      { name: "no task", expect: { rule: 2 } },
    ] as unknown as Parameters<typeof policyCases>[1];
    const results = policyCases(world, cases);
    expect(results.map((r) => [r.name, r.pass])).toEqual([["no expect", false], ["fine", true], ["case #3", false], ["no task", false]]);
    expect(() => results[0]?.assert()).toThrow(/no expect: the case has no expect/);
    expect(runPolicyCases(world, cases).failed).toBe(3);
  });

  it("a misspelt key of a case is named with the key meant, as a case file's is (REPL review: tsk read as a case naming no task)", () => {
    const [r] = policyCases(world, [{ name: "bad shape", tsk: "1001", expect: { rule: 2 } }] as unknown as Parameters<typeof policyCases>[1]);
    expect(r?.mismatches).toEqual(['unknown key "tsk" in the case; did you mean "task"? (a case has name, task, request, expect, now)']);
    expect(r?.malformed).toBe(true);
  });
});
