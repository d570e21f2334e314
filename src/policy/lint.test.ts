import { readdirSync, readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileCondition, evaluateCondition } from "../cel/index.js";
import { adaInput, tenant } from "../cel/test-fixtures.js";
import { loadWorld } from "../world/load-world.js";
import type { World } from "../world/world.js";
import { canonicalCondition, foldCondition } from "./lint-fold.js";
import { type Finding, LINT_CODES, lintDecodedPolicy, lintPolicy, type LintCode, MAX_RULES } from "./lint.js";

// ---------------------------------------------------------------------------------------------
// Builders

const fixture = (path: string): unknown => JSON.parse(readFileSync(new URL(`../../fixtures/${path}`, import.meta.url), "utf8"));
const sampleJson = fixture("world.json") as { policies: unknown[] } & Record<string, unknown>;

function load(json: unknown): World {
  const r = loadWorld(json);
  if (!r.ok) throw new Error(`world does not load: ${JSON.stringify(r.error.slice(0, 3))}`);
  return r.value;
}

const sample = load(sampleJson);

const idOf = (p: unknown): unknown => (typeof p === "object" && p !== null ? (p as { id?: unknown }).id : undefined);

/** The sample tenant with more policies (a later policy replaces an earlier one with its id) and optionally other flags. */
function sampleWith(policies: readonly unknown[], flags?: Record<string, boolean>): World {
  const tenantJson = sampleJson["tenant"] as Record<string, unknown>;
  const all = [...sampleJson.policies, ...policies].filter((p, i, list) => !list.slice(i + 1).some((q) => idOf(q) === idOf(p)));
  return load({ ...sampleJson, tenant: flags ? { ...tenantJson, featureFlags: flags } : tenantJson, policies: all });
}

/** A bare world of policies only. */
function worldOf(policies: readonly unknown[], flags: Record<string, boolean> = { POLICY_REFERENCES_POLICY: true }): World {
  return load({ version: 1, now: "2026-11-22T09:00:00Z", tenant: { featureFlags: flags }, policies });
}

type WireRule = { condition: string; stepKey?: string; policyId?: string; policyKey?: string };
const accept = (m = ""): unknown => ({ accept: { acceptMessage: m } });

/** A valid wire policy: baseline entry, one sequence per rule stepKey, overrides last. */
function pol(
  o: {
    id?: string;
    type?: string;
    rules?: WireRule[];
    baselinePolicyId?: string;
    steps?: Record<string, unknown[] | null>;
    annotations?: Record<string, string> | null;
    extra?: Record<string, unknown>;
  } = {},
): Record<string, unknown> {
  const type = o.type ?? "POLICY_TYPE_GRANT";
  const base = type.replace(/^POLICY_TYPE_/, "").toLowerCase();
  const rules = o.rules ?? [];
  const steps: Record<string, unknown> = {};
  if (!o.baselinePolicyId) steps[base] = { steps: [accept()] };
  for (const r of rules) for (const k of [r.stepKey, r.policyKey]) if (k) steps[k] = { steps: [accept(k)] };
  for (const [k, v] of Object.entries(o.steps ?? {})) steps[k] = { steps: v };
  return {
    id: o.id ?? "pol-test",
    displayName: "test",
    policyType: type,
    policySteps: steps,
    rules: rules.map((r) => ({ condition: r.condition, stepKey: r.stepKey ?? "", policyId: r.policyId ?? "", policyKey: r.policyKey ?? "" })),
    baselinePolicyId: o.baselinePolicyId ?? "",
    annotations: o.annotations === undefined ? { managed_by: "terraform" } : o.annotations,
    ...o.extra,
  };
}

const approval = (approvers: Record<string, unknown>, extra: Record<string, unknown> = {}): unknown => ({ approval: { ...approvers, ...extra } });

const codes = (fs: readonly Finding[]): string[] => fs.map((f) => f.code);
const errors = (fs: readonly Finding[]): Finding[] => fs.filter((f) => f.severity === "error");
const only = (fs: readonly Finding[], code: LintCode): Finding[] => fs.filter((f) => f.code === code);

// ---------------------------------------------------------------------------------------------
// fixtures/broken: one problem per file, table read from its README

interface BrokenCase {
  readonly file: string;
  readonly code: LintCode;
  /** Which policies of the file carry the finding, and the path (prefix) it must be at. */
  readonly targets: readonly { readonly index: number; readonly path: string }[];
  readonly needsWorld: boolean;
}

function brokenCases(): BrokenCase[] {
  const readme = readFileSync(new URL("../../fixtures/broken/README.md", import.meta.url), "utf8");
  const known = new Set<string>(LINT_CODES.map((c) => c.code));
  const cases: BrokenCase[] = [];
  for (const line of readme.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    const file = /^`([^`]+\.json)`$/.exec(cells[1] ?? "")?.[1];
    if (!file) continue;
    // "(the 17th is $.rules[16])" and the like are asides, not further places.
    const where = (cells[3] ?? "").replaceAll("`", "").replace(/\([^)]*\)/g, "");
    const code = /[A-Z][A-Z_]+/.exec(cells[4] ?? "")?.[0] ?? "";
    if (!known.has(code)) throw new Error(`README names unknown code ${code} for ${file}`);
    const withCell = cells[5] ?? "";
    const targets = [...where.matchAll(/\$(?:\[(\d+)\])?([^\s]*)/g)].map((m) => ({ index: Number(m[1] ?? 0), path: `$${m[2] ?? ""}` }));
    cases.push({ file, code: code as LintCode, targets, needsWorld: !/alone|no world/.test(withCell) });
  }
  return cases;
}

describe("lintPolicy on fixtures/broken", () => {
  const cases = brokenCases();

  it("the README covers every fixture file", () => {
    const files = readdirSync(new URL("../../fixtures/broken/", import.meta.url)).filter((f) => f.endsWith(".json"));
    expect(cases.map((c) => c.file).sort()).toEqual(files.sort());
  });

  describe.each(cases)("$file", ({ file, code, targets, needsWorld }) => {
    const raw = fixture(`broken/${file}`);
    const policies = Array.isArray(raw) ? raw : [raw];
    const world = sampleWith(policies);

    it(`reports ${code} at the README's path, and no other error, with the sample world`, () => {
      for (const t of targets) {
        const fs = lintPolicy(policies[t.index], world);
        const hits = only(fs, code);
        expect(hits.length, JSON.stringify(fs)).toBeGreaterThan(0);
        expect(hits.some((f) => f.path.startsWith(t.path))).toBe(true);
        expect(new Set(codes(errors(fs)))).toEqual(new Set([code].filter((c) => hits[0]?.severity === "error")));
      }
    });

    it.skipIf(needsWorld)(`reports ${code} without a world`, () => {
      for (const t of targets) {
        const fs = lintPolicy(policies[t.index]);
        expect(only(fs, code).some((f) => f.path.startsWith(t.path)), JSON.stringify(fs)).toBe(true);
        expect(new Set(codes(errors(fs)))).toEqual(new Set([code].filter(() => only(fs, code)[0]?.severity === "error")));
      }
    });

    it("the other policies of the file have no errors", () => {
      policies.forEach((p, i) => {
        if (targets.some((t) => t.index === i)) return;
        expect(errors(lintPolicy(p, world))).toEqual([]);
      });
    });
  });

  it("a condition that runs interpreted instead of compiled is a CEL_INTERPRETED note (info) naming the construct (issue 16)", () => {
    const fs = lintPolicy(pol({ rules: [{ condition: 'subject.department == "IT"', stepKey: "it" }, { condition: "optional.of(subject.department).orValue('') == 'Ops'", stepKey: "ops" }] }));
    const notes = only(fs, "CEL_INTERPRETED");
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ severity: "info", path: "$.rules[1].condition", cel: { line: 1, column: 1, celCode: "CEL_INTERPRETED" } });
    expect(notes[0]?.message).toContain("optional values (orValue) is not in the compiled subset");
    expect(errors(fs)).toEqual([]);
    // Comprehensions, arithmetic, has() and the c1.* functions compile: no note.
    const compiled = lintPolicy(pol({ rules: [{ condition: "subject.emails.exists(e, e.endsWith('@x.example')) && size(subject.managerIds) + 1 > 1 && has(subject.profile.level)", stepKey: "a" }] }));
    expect(only(compiled, "CEL_INTERPRETED")).toEqual([]);
  });

  it("CEL findings carry span, line, column and excerpt", () => {
    const [f] = lintPolicy(fixture("broken/cel-type-error.json"));
    expect(f).toMatchObject({
      code: "CEL_TYPE_ERROR",
      severity: "error",
      path: "$.rules[0].condition",
      cel: { span: { start: 8, end: 17 }, line: 1, column: 9, celCode: "CEL_UNDEFINED_FIELD", hint: "did you mean 'department'?" },
    });
    expect(f?.cel?.excerpt).toBe('subject.departmnt == "x"\n        ^^^^^^^^^');
    expect(f?.message).toContain("departmnt");
    const [s] = lintPolicy(fixture("broken/cel-syntax-error.json"));
    expect(s).toMatchObject({ code: "CEL_SYNTAX_ERROR", cel: { line: 1, column: 39, celCode: "CEL_SYNTAX" } });
  });
});

describe("lintPolicy on the sample tenant", () => {
  it.each(sampleJson.policies.map((p) => [(p as { id: string }).id, p]))("%s has no error-severity findings", (_id, p) => {
    expect(errors(lintPolicy(p, sample))).toEqual([]);
    expect(errors(lintPolicy(p))).toEqual([]);
  });

  it("lintDecodedPolicy agrees with lintPolicy on the world's decoded policies", () => {
    sample.policies.forEach((p, i) => expect(lintDecodedPolicy(p, sample)).toEqual(lintPolicy(sampleJson.policies[i], sample)));
  });
});

// ---------------------------------------------------------------------------------------------
// Checks one by one

describe("decoding", () => {
  it("turns codec diagnostics into WIRE_ findings with their paths", () => {
    expect(lintPolicy(42)).toEqual([{ code: "WIRE_EXPECTED_OBJECT", severity: "error", path: "$", message: expect.any(String) }]);
    const fs = lintPolicy({ ...pol(), rules: [{ condition: "true", stepKey: "a", policyId: "p" }], createdAt: "yesterday" });
    expect(fs.map((f) => [f.code, f.path])).toEqual(
      expect.arrayContaining([
        ["WIRE_ONEOF_CONFLICT", "$.rules[0]"],
        ["WIRE_INVALID_TIMESTAMP", "$.createdAt"],
      ]),
    );
  });

  it("checks nothing else when decoding fails", () => {
    const fs = lintPolicy({ ...pol({ annotations: { "svc/x": "y" } }), displayName: 3 });
    expect(codes(fs)).toEqual(["WIRE_EXPECTED_STRING"]);
  });
});

describe("CEL", () => {
  it("reports conditions that are not bool, unsupported regexes, and approver expressions that are not users", () => {
    const fs = lintPolicy(
      pol({
        rules: [
          { condition: "subject.email", stepKey: "a" },
          { condition: "subject.email.matches('(?=x)')", stepKey: "b" },
        ],
        steps: { grant: [approval({ expression: { expressions: ["appOwners", "subject.email"] } })] },
      }),
    );
    expect(fs.map((f) => [f.code, f.path])).toEqual([
      ["CEL_NOT_BOOL", "$.rules[0].condition"],
      ["CEL_UNSUPPORTED_REGEX", "$.rules[1].condition"],
      ["CEL_NOT_USERS", "$.policySteps.grant.steps[0].approval.expression.expressions[1]"],
    ]);
  });

  it("checks wait conditions and manual-provision assignee expressions, also inside multi-step provisioning", () => {
    const manual = { manual: { instructions: "", userIds: [], assignee: { expression: { allowReassignment: false, expressions: ["nobody"] } } } };
    const fs = lintPolicy(
      pol({
        steps: {
          grant: [
            { wait: { name: "w", condition: { condition: "subject.departmnt == 'x'" } } },
            { provision: { provisionPolicy: { multiStep: { provisionSteps: [{ unconfigured: {} }, manual] } } } },
          ],
        },
      }),
    );
    expect(fs.map((f) => [f.code, f.path])).toEqual([
      ["CEL_TYPE_ERROR", "$.policySteps.grant.steps[0].wait.condition.condition"],
      ["CEL_TYPE_ERROR", "$.policySteps.grant.steps[1].provision.provisionPolicy.multiStep.provisionSteps[1].manual.assignee.expression.expressions[0]"],
    ]);
    expect(fs[0]?.message).toContain('wait step "w"');
  });

  it("a wait duration under one hour or over one month is an error (product_admin_policies.mdx: one hour is the minimum allowed, one month the maximum)", () => {
    const waiting = (duration: string) => lintPolicy(pol({ steps: { grant: [{ wait: { name: "cool-off", duration: { duration } } }] } }));
    for (const ok of ["3600s", "86400s", "2592000s", "2678400s"]) expect(codes(waiting(ok)), ok).toEqual([]);
    for (const bad of ["1800s", "59s", "2678401s", "3456000s"]) {
      const [f, ...rest] = waiting(bad);
      expect(rest, bad).toEqual([]);
      expect([f?.code, f?.severity, f?.path]).toEqual(["WAIT_DURATION_OUT_OF_RANGE", "error", "$.policySteps.grant.steps[0].wait.duration.duration"]);
      expect(f?.message).toContain(`wait step "cool-off" waits ${bad}`);
    }
  });
});

describe("wait until a time of day", () => {
  it("hours 0–23, minutes 0–59 and an IANA zone; anything else is an error at its field", () => {
    const waiting = (untilTime: object) => lintPolicy(pol({ steps: { grant: [{ wait: { name: "office", untilTime } }] } }));
    expect(codes(waiting({ hours: 9, minutes: 30, timezone: "Europe/Paris" }))).toEqual([]);
    expect(codes(waiting({ hours: 0, minutes: 0, timezone: "" }))).toEqual([]);
    expect(waiting({ hours: 25, minutes: 99, timezone: "Mars/Base" }).map((f) => [f.code, f.path])).toEqual([
      ["WAIT_TIME_INVALID", "$.policySteps.grant.steps[0].wait.untilTime.hours"],
      ["WAIT_TIME_INVALID", "$.policySteps.grant.steps[0].wait.untilTime.minutes"],
      ["WAIT_TIME_INVALID", "$.policySteps.grant.steps[0].wait.untilTime.timezone"],
    ]);
  });
});

describe("escalations", () => {
  it("one that expires after 0s is a warning at its expiration (it fires as the step starts; replacing the policy with it loops)", () => {
    const escalating = (expiration: string) =>
      lintPolicy(pol({ steps: { grant: [{ approval: { escalationEnabled: true, escalation: { escalationComment: "", expiration, skipStep: {} }, users: { userIds: ["u-1"] } } }] } }));
    for (const ok of ["86400s", "3600", "1s"]) expect(codes(escalating(ok)), ok).not.toContain("ESCALATION_EXPIRES_AT_ONCE");
    for (const bad of ["0s", "0"]) {
      const f = escalating(bad).find((x) => x.code === "ESCALATION_EXPIRES_AT_ONCE");
      expect([f?.severity, f?.path], bad).toEqual(["warning", "$.policySteps.grant.steps[0].approval.escalation.expiration"]);
    }
  });
});

describe("rules", () => {
  it("reports a rule with no outcome, a dangling stepKey, and legacy policyKey", () => {
    const p = pol({ rules: [{ condition: "true" }] });
    expect(codes(lintPolicy(p))).toEqual(["RULE_WITHOUT_OUTCOME"]);
    const q = { ...pol(), rules: [{ condition: "subject.department == 'x'", stepKey: "nope" }] };
    expect(lintPolicy(q).map((f) => [f.code, f.path])).toEqual([["DANGLING_STEP_KEY", "$.rules[0].stepKey"]]);
  });

  it(`allows ${MAX_RULES} rules and refuses ${MAX_RULES + 1}`, () => {
    const rules = (n: number): WireRule[] => Array.from({ length: n }, (_, i) => ({ condition: `subject.department == "d${i}"`, stepKey: `k${i}` }));
    expect(lintPolicy(pol({ rules: rules(MAX_RULES) }))).toEqual([]);
    expect(codes(lintPolicy(pol({ rules: rules(MAX_RULES + 1) })))).toEqual(["TOO_MANY_RULES"]);
  });

  it.each(["true", "1 == 1", "true || x", "(true)", "!false", "2 > 1 && 'a' in ['a', 'b']", "false ? subject.department == 'x' : true"])(
    "a rule after one whose condition is %j is unreachable, naming the rule that shadows it",
    (condition) => {
      const fs = lintPolicy(
        pol({
          rules: [
            { condition: "subject.department == 'a'", stepKey: "a" },
            { condition, stepKey: "b" },
            { condition: "subject.department == 'c'", stepKey: "c" },
            { condition: "subject.department == 'd'", stepKey: "d" },
          ],
        }),
      );
      const hits = only(fs, "UNREACHABLE_RULE");
      expect(hits.map((f) => f.path)).toEqual(["$.rules[2]", "$.rules[3]"]);
      expect(hits[0]?.related).toEqual(["$.rules[1].condition"]);
      expect(hits[0]?.message).toContain("rule 1");
      expect(hits[0]?.severity).toBe("warning");
    },
  );

  it("reports duplicate conditions whatever their spacing and quotes, and conditions that never match", () => {
    const fs = lintPolicy(
      pol({
        rules: [
          { condition: 'subject.department == "IT"', stepKey: "a" },
          { condition: "subject.department=='IT'  // again", stepKey: "b" },
          { condition: "1 > 2", stepKey: "c" },
        ],
      }),
    );
    expect(fs.map((f) => [f.code, f.path, f.severity])).toEqual([
      ["DUPLICATE_CONDITION", "$.rules[1].condition", "warning"],
      ["RULE_NEVER_MATCHES", "$.rules[2].condition", "warning"],
    ]);
    expect(fs[0]?.related).toEqual(["$.rules[0].condition"]);
  });
});

describe("baseline and step sequences", () => {
  it("requires the baseline unless baselinePolicyId is set, and not both", () => {
    expect(codes(lintPolicy(pol({ type: "POLICY_TYPE_ACCESS_REQUEST", steps: {} })))).toEqual([]);
    const noBaseline = pol();
    delete (noBaseline["policySteps"] as Record<string, unknown>)["grant"];
    expect(codes(lintPolicy(noBaseline))).toEqual(["MISSING_BASELINE"]);
    const both = { ...pol({ baselinePolicyId: "pol-other" }), policySteps: { grant: { steps: [accept()] } } };
    expect(codes(lintPolicy(both))).toEqual(["BASELINE_CONFLICT", "REFERENCES_UNCHECKED"]);
  });

  it("reports an unset policy type instead of a baseline named 'unspecified'", () => {
    expect(codes(lintPolicy({ id: "p" }))).toEqual(["POLICY_TYPE_UNSET"]);
  });

  it("reports empty step sequences and ones no rule selects", () => {
    const fs = lintPolicy(pol({ rules: [{ condition: "subject.department == 'x'", stepKey: "used" }], steps: { used: [], spare: [accept()], grant: null } }));
    expect(fs.map((f) => [f.code, f.path])).toEqual([
      ["EMPTY_STEPS", "$.policySteps.grant.steps"],
      ["EMPTY_STEPS", "$.policySteps.used.steps"],
      ["UNUSED_STEP_KEY", "$.policySteps.spare"],
    ]);
  });

  it("does not mistake inherited object members for step keys", () => {
    const fs = lintPolicy({ ...pol(), rules: [{ condition: "subject.department == 'x'", stepKey: "constructor" }] });
    expect(codes(fs)).toEqual(["DANGLING_STEP_KEY"]);
  });

  it("reports steps with no kind, unknown step kinds and approvals without approvers", () => {
    const fs = lintPolicy(pol({ steps: { grant: [{}, { teleport: {} }, { approval: {} }] } }));
    expect(fs.map((f) => [f.code, f.path])).toEqual([
      ["STEP_WITHOUT_KIND", "$.policySteps.grant.steps[0]"],
      ["UNKNOWN_STEP_KIND", "$.policySteps.grant.steps[1].teleport"],
      ["APPROVAL_WITHOUT_APPROVERS", "$.policySteps.grant.steps[2].approval"],
    ]);
  });

  it("says a built-in policy cannot be edited, as a warning", () => {
    expect(lintPolicy(pol({ extra: { systemBuiltin: true } }))).toEqual([
      { code: "SYSTEM_BUILTIN", severity: "warning", path: "$.systemBuiltin", message: expect.stringContaining("cannot be edited") },
    ]);
  });
});

describe("approval steps", () => {
  const users = (n: number): string[] => Array.from({ length: n }, () => "u-ciso");

  it.each([
    [0, 1],
    [1, 0],
    [32, 0],
    [33, 1],
  ])("users.userIds with %i ids: %i APPROVAL_USERS_COUNT", (n, expected) => {
    const p = pol({ steps: { grant: [approval({ users: { userIds: users(n) } })] } });
    expect(only(lintPolicy(p, sample), "APPROVAL_USERS_COUNT").map((f) => f.path)).toEqual(
      Array.from({ length: expected }, () => "$.policySteps.grant.steps[0].approval.users.userIds"),
    );
  });

  it("warns about user, group, entitlement and policy ids the world does not have, only with a world", () => {
    const p = pol({
      steps: {
        grant: [
          approval(
            { manager: { fallback: true, fallbackUserIds: ["u-ciso", "u-ghost"], fallbackGroupIds: [{ appId: "app-aws", appEntitlementId: "ent-ghost" }] } },
            { allowedReassignees: ["u-nobody"], escalation: { expiration: "3600s", replacePolicy: { policyId: "pol-ghost" } } },
          ),
          approval({ group: { appGroupId: "grp-ghost", appId: "app-okta" } }),
          approval({ group: { appGroupId: "grp-security-oncall", appId: "app-aws" } }),
          approval({ group: { appGroupId: "grp-security-oncall", appId: "app-okta" } }),
        ],
      },
    });
    expect(lintPolicy(p)).toEqual([]);
    const fs = lintPolicy(p, sample);
    expect(fs.map((f) => [f.code, f.path, f.severity])).toEqual([
      ["UNKNOWN_USER", "$.policySteps.grant.steps[0].approval.allowedReassignees[0]", "warning"],
      ["UNKNOWN_POLICY", "$.policySteps.grant.steps[0].approval.escalation.replacePolicy.policyId", "warning"],
      ["UNKNOWN_USER", "$.policySteps.grant.steps[0].approval.manager.fallbackUserIds[1]", "warning"],
      ["UNKNOWN_ENTITLEMENT", "$.policySteps.grant.steps[0].approval.manager.fallbackGroupIds[0]", "warning"],
      ["UNKNOWN_GROUP", "$.policySteps.grant.steps[1].approval.group.appGroupId", "warning"],
      ["UNKNOWN_GROUP", "$.policySteps.grant.steps[2].approval.group.appGroupId", "warning"],
    ]);
  });
});

describe("references", () => {
  const ref = (id: string, to: string, via: "rule" | "baseline" = "rule", type?: string): Record<string, unknown> =>
    via === "rule"
      ? pol({ id, ...(type ? { type } : {}), rules: [{ condition: `subject.department == "${id}"`, policyId: to }] })
      : pol({ id, ...(type ? { type } : {}), baselinePolicyId: to });

  it("reports self-reference with or without a world", () => {
    expect(lintPolicy(ref("a", "a", "baseline")).map((f) => [f.code, f.path])).toEqual([["SELF_REFERENCE", "$.baselinePolicyId"]]);
    expect(codes(lintPolicy(ref("a", "a"), worldOf([])))).toEqual(["SELF_REFERENCE"]);
  });

  it("warns that references cannot be checked without a world", () => {
    expect(lintPolicy(ref("a", "b"))).toEqual([
      { code: "REFERENCES_UNCHECKED", severity: "warning", path: "$.rules[0].policyId", message: expect.stringContaining("without a world") },
    ]);
  });

  it("reports dangling references and references across types", () => {
    const w = worldOf([pol({ id: "r", type: "POLICY_TYPE_REVOKE" })]);
    expect(codes(lintPolicy(ref("a", "ghost"), w))).toEqual(["DANGLING_POLICY_ID"]);
    expect(codes(lintPolicy(ref("a", "ghost", "baseline"), w))).toEqual(["DANGLING_BASELINE_POLICY_ID"]);
    expect(codes(lintPolicy(ref("a", "r"), w))).toEqual(["CROSS_TYPE_REFERENCE"]);
  });

  it("warns when the tenant turned the flag off; a tenant without the flag follows references (generally available since 21 Aug 2026)", () => {
    const off = worldOf([pol({ id: "b" })], { POLICY_REFERENCES_POLICY: false });
    expect(lintPolicy(ref("a", "b"), off).map((f) => [f.code, f.severity])).toEqual([["REFERENCES_DISABLED", "warning"]]);
    expect(codes(lintPolicy(ref("a", "b"), worldOf([pol({ id: "b" })], {})))).toEqual([]);
  });

  it("reports a cycle through the policy, naming it", () => {
    const w = worldOf([ref("b", "c", "baseline"), ref("c", "a")]);
    const [f] = lintPolicy(ref("a", "b"), w);
    expect(f).toMatchObject({ code: "REFERENCE_CYCLE", path: "$.rules[0].policyId" });
    expect(f?.message).toContain('"a" → "b" → "c" → "a"');
  });

  it("reports a cycle further down the chain that the policy reaches", () => {
    const w = worldOf([ref("b", "c"), ref("c", "d"), ref("d", "c", "baseline")]);
    const [f] = lintPolicy(ref("a", "b"), w);
    expect(f).toMatchObject({ code: "REFERENCE_CYCLE", path: "$.rules[0].policyId" });
    expect(f?.message).toContain('"c" → "d" → "c"');
  });

  it("checks the linted policy in place of the world's policy with the same id", () => {
    const w = worldOf([pol({ id: "a" }), ref("b", "a")]);
    expect(codes(lintPolicy(pol({ id: "a" }), w))).toEqual([]);
    expect(codes(lintPolicy(ref("a", "b"), w))).toEqual(["REFERENCE_CYCLE"]);
  });

  /** p0 → p1 → … → p{n}; links alternate rule policyId and baselinePolicyId. */
  const chain = (n: number, prefix = "p"): Record<string, unknown>[] =>
    Array.from({ length: n + 1 }, (_, i) =>
      i === n ? pol({ id: `${prefix}${i}` }) : ref(`${prefix}${i}`, `${prefix}${i + 1}`, i % 2 === 0 ? "rule" : "baseline"),
    );

  it("allows a chain exactly 5 deep and refuses 6, following rules and baselines alike", () => {
    const ok = chain(5);
    expect(lintPolicy(ok[0], worldOf(ok))).toEqual([]);
    const deep = chain(6);
    const fs = lintPolicy(deep[0], worldOf(deep));
    expect(fs.map((f) => [f.code, f.path])).toEqual([["CHAIN_TOO_DEEP", "$.rules[0].policyId"]]);
    expect(fs[0]?.message).toContain("6 deep");
    expect(lintPolicy(deep[1], worldOf(deep))).toEqual([]);
  });

  it("measures the longest of several branches", () => {
    const branches = chain(5, "l");
    const root = pol({
      id: "root",
      rules: [
        { condition: "subject.department == 'short'", policyId: "l4" },
        { condition: "subject.department == 'long'", policyId: "l0" },
      ],
    });
    expect(lintPolicy(root, worldOf(branches)).map((f) => [f.code, f.path])).toEqual([["CHAIN_TOO_DEEP", "$.rules[1].policyId"]]);
  });
});

describe("annotations", () => {
  const lintAnn = (annotations: Record<string, string>): Finding[] => lintPolicy(pol({ annotations }));

  it("accepts the well-known keys, an empty value, and 16 entries", () => {
    const sixteen = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, "v"]));
    expect(lintAnn({ managed_by: "terraform", iac_workspace: "", "a/b.c-d": "x~y", ...sixteen }).filter((f) => f.code !== "ANNOTATIONS_TOO_MANY")).toEqual([]);
    expect(lintAnn(sixteen)).toEqual([]);
  });

  it.each([
    ["", "ANNOTATION_KEY_INVALID"],
    ["1abc", "ANNOTATION_KEY_INVALID"],
    ["a b", "ANNOTATION_KEY_INVALID"],
    [`k${"x".repeat(128)}`, "ANNOTATION_KEY_INVALID"],
    ["svc/owner", "ANNOTATION_KEY_RESERVED"],
  ])("key %j: %s", (key, code) => {
    const fs = lintAnn({ [key]: "v" });
    expect(codes(fs)).toEqual([code]);
    expect(fs[0]?.path.startsWith("$.annotations")).toBe(true);
  });

  it.each([["has space"], ["ünï"], ["a&b"], ["x".repeat(257)]])("value %j is invalid", (value) => {
    expect(codes(lintAnn({ owner: value }))).toEqual(["ANNOTATION_VALUE_INVALID"]);
  });

  it("refuses more than 4096 bytes serialized", () => {
    const big = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`key${i}`, "v".repeat(250)]));
    expect(codes(lintAnn(big))).toEqual(["ANNOTATIONS_TOO_LARGE"]);
  });
});

// ---------------------------------------------------------------------------------------------
// Constant folding

describe("foldCondition", () => {
  it.each([
    ["true", true],
    ["false", false],
    ["1 == 1", true],
    ["1 == 2", false],
    ["true || x", true],
    ["x || true", true],
    ["false && x", false],
    ["!(1 < 2)", false],
    ["'a' + 'b' == 'ab'", true],
    ["[1, 2][1] == 2", true],
    ["2 * 3 - 1 == 5 && 7 / 2 == 3 && -7 % 2 == -1", true],
    ["1u + 1u == 2u", true],
    ["0.5 + 0.25 == 0.75", true],
    ["null == null", true],
    ["true ? true : false", true],
    ["r'\\d' == '\\\\d'", true],
    ["'\\x41\\u0042' == 'AB'", true],
  ])("%s folds to %s", (src, value) => {
    expect(foldCondition(src)).toBe(value);
  });

  it.each([
    "subject.department == 'x'",
    "x",
    "1 / 0 == 0",
    "9223372036854775807 + 1 > 0",
    "1 == 1.0",
    "now() > timestamp('2000-01-01T00:00:00Z')",
    "size([]) == 0",
    "{1: true}[1]",
    "b'a' == b'a'",
    "1 +",
    "",
    "1 == 1 )",
  ])("%s is not folded", (src) => {
    expect(foldCondition(src)).toBeUndefined();
  });

  it("gives up on absurd nesting instead of overflowing the stack", () => {
    expect(foldCondition(`${"(".repeat(10_000)}true${")".repeat(10_000)}`)).toBeUndefined();
    expect(foldCondition("!".repeat(100_000) + "true")).toBe(true);
  });

  it("canonical text ignores spacing, comments and quote style", () => {
    expect(canonicalCondition("a  ==\n'x' // c")).toBe(canonicalCondition('a == "x"'));
    expect(canonicalCondition("a == 'x'")).not.toBe(canonicalCondition("a == 'y'"));
  });

  /**
   * Well-typed conditions mixing constants with task-dependent parts and run-time errors (1 / 0),
   * typed so that most of them type-check and a good share fold.
   */
  const typed = fc.letrec<{ b: string; i: string; s: string }>((tie) => ({
    b: fc.oneof(
      { depthSize: "small" },
      fc.constantFrom("true", "false", 'subject.department == "Engineering"', "subject.status == UserStatus.ENABLED", "1 / 0 == 1"),
      fc.tuple(tie("i"), fc.constantFrom("==", "!=", "<", "<=", ">", ">="), tie("i")).map(([a, op, b]) => `(${a} ${op} ${b})`),
      fc.tuple(tie("s"), fc.constantFrom("==", "!=", "<", ">="), tie("s")).map(([a, op, b]) => `(${a} ${op} ${b})`),
      fc.tuple(tie("i"), fc.array(tie("i"), { maxLength: 3 })).map(([a, l]) => `(${a} in [${l.join(", ")}])`),
      fc.tuple(tie("b"), fc.constantFrom("&&", "||", "==", "!="), tie("b")).map(([a, op, b]) => `(${a} ${op} ${b})`),
      tie("b").map((e) => `!(${e})`),
      fc.tuple(tie("b"), tie("b"), tie("b")).map(([a, b, c]) => `(${a} ? ${b} : ${c})`),
    ),
    i: fc.oneof(
      { depthSize: "small" },
      fc.constantFrom("0", "1", "2", "-3", "7", "9223372036854775807", "size(subject.emails)", "[1, 2][1]"),
      fc.tuple(tie("i"), fc.constantFrom("+", "-", "*", "/", "%"), tie("i")).map(([a, op, b]) => `(${a} ${op} ${b})`),
      tie("i").map((e) => `-(${e})`),
      fc.tuple(tie("b"), tie("i"), tie("i")).map(([a, b, c]) => `(${a} ? ${b} : ${c})`),
    ),
    s: fc.oneof(
      { depthSize: "small" },
      fc.constantFrom("'a'", '"b"', "''", "subject.department", "'\\u00e9'"),
      fc.tuple(tie("s"), tie("s")).map(([a, b]) => `(${a} + ${b})`),
    ),
  }));
  const expr = typed.b;

  it("agrees with the CEL evaluator whenever it folds (property)", () => {
    const inputs = [adaInput(), adaInput({ subject: tenant.bob })];
    let checked = 0;
    fc.assert(
      fc.property(expr, (src) => {
        const folded = foldCondition(src);
        if (folded === undefined) return;
        const compiled = compileCondition(src);
        // A folded expression that does not type-check is refused on save anyway.
        if (!compiled.ok) return;
        checked++;
        for (const input of inputs) expect(evaluateCondition(compiled.value, input)).toEqual({ ok: true, value: folded });
      }),
      { numRuns: 1000 },
    );
    // Guard the generator: the property means little if almost nothing folds.
    expect(checked).toBeGreaterThan(150);
  });
});

// ---------------------------------------------------------------------------------------------
// Properties over any input

const known = new Map<string, string>(LINT_CODES.map((c) => [c.code, c.severity]));

function wellFormed(fs: readonly Finding[]): void {
  for (const f of fs) {
    expect(f.path.startsWith("$")).toBe(true);
    expect(known.get(f.code)).toBe(f.severity);
    expect(f.message.length).toBeGreaterThan(0);
  }
}

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === "object" && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

/** Wire policies built from parts that reach every check: CEL, keys, references, steps, annotations. */
const policyArb: fc.Arbitrary<Record<string, unknown>> = (() => {
  const ids = fc.constantFrom("pa", "pb", "pc", "pd", "pol-prod-admin", "pol-security-review", "pol-revoke-standard", "");
  const keys = fc.constantFrom("grant", "revoke", "k1", "k2", "__proto__", "constructor", "a b", "");
  const conditions = fc.oneof(
    fc.constantFrom("true", "1 == 1", "false", 'subject.department == "x"', "subject.departmnt", "subject.email.matches('(?=a)')", "", "((", "true || x"),
    fc.string({ maxLength: 20 }),
  );
  const rule = fc.record(
    { condition: conditions, stepKey: keys, policyId: ids, policyKey: keys },
    { requiredKeys: ["condition"] },
  );
  const userIds = fc.array(fc.constantFrom("u-ciso", "u-ghost", ""), { maxLength: 40 });
  const step = fc.oneof(
    fc.constant(accept()),
    fc.constant({}),
    fc.constant({ mystery: { x: 1 } }),
    userIds.map((u) => approval({ users: { userIds: u } }, { allowedReassignees: u.slice(0, 2) })),
    fc.array(conditions, { maxLength: 3 }).map((e) => approval({ expression: { expressions: e, fallbackUserIds: ["u-ghost"] } })),
    fc.constantFrom("grp-security-oncall", "grp-ghost").map((g) => approval({ group: { appGroupId: g, appId: "app-okta" } })),
    conditions.map((c) => ({ wait: { name: "w", condition: { condition: c } } })),
  );
  const steps = fc.dictionary(keys, fc.option(fc.record({ steps: fc.option(fc.array(step, { maxLength: 3 })) }), { nil: null }), { maxKeys: 4 });
  const annotations = fc.option(fc.dictionary(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), { maxKeys: 20 }), { nil: null });
  return fc.record(
    {
      id: ids,
      policyType: fc.constantFrom("POLICY_TYPE_GRANT", "POLICY_TYPE_REVOKE", "POLICY_TYPE_UNSPECIFIED", "POLICY_TYPE_LATER"),
      policySteps: fc.option(steps, { nil: null }),
      rules: fc.option(fc.array(rule, { maxLength: 18 }), { nil: null }),
      baselinePolicyId: ids,
      annotations,
      systemBuiltin: fc.boolean(),
    },
    { requiredKeys: [] },
  );
})();

const worldArb: fc.Arbitrary<World | undefined> = fc.option(
  fc.tuple(fc.array(policyArb, { maxLength: 5 }), fc.boolean()).map(([ps, flag]) => {
    const decodable = ps.filter((p) => lintPolicy(p).every((f) => !f.code.startsWith("WIRE_")));
    return sampleWith(decodable, flag ? { POLICY_REFERENCES_POLICY: true } : {});
  }),
  { nil: undefined },
);

describe("properties", () => {
  it("never throws on any JSON, deep or wide, and every finding is well formed", () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue({ maxDepth: 40, depthSize: "large" }), fc.jsonValue({ depthSize: "small" }), fc.anything()), (json) => {
        wellFormed(lintPolicy(json));
        wellFormed(lintPolicy(json, sample));
      }),
      { numRuns: 1000 },
    );
  });

  it("never throws on policy-shaped input, with or without a world; paths start with $, severities match LINT_CODES", () => {
    fc.assert(
      fc.property(policyArb, worldArb, (p, w) => {
        wellFormed(lintPolicy(p, w));
      }),
      { numRuns: 1000 },
    );
  });

  it("is deterministic and does not mutate its input", () => {
    fc.assert(
      fc.property(policyArb, worldArb, (p, w) => {
        const copy = structuredClone(p);
        const first = lintPolicy(deepFreeze(p), w);
        expect(lintPolicy(copy, w)).toEqual(first);
        expect(p).toEqual(copy);
      }),
      { numRuns: 300 },
    );
  });

  it("returns a finding instead of throwing when given something that is not a world", () => {
    const fs = lintPolicy(pol({ rules: [{ condition: "subject.department == 'x'", policyId: "b" }] }), {} as World);
    expect(codes(fs)).toEqual(["LINT_INTERNAL"]);
  });

  it("survives hostile values: throwing getters, proxies, huge documents", () => {
    const hostile = Object.defineProperty({ id: "x" }, "rules", {
      enumerable: true,
      get() {
        throw new Error("boom");
      },
    });
    wellFormed(lintPolicy(hostile));
    const proxy = new Proxy({}, { ownKeys: () => { throw new Error("no keys"); } });
    wellFormed(lintPolicy(proxy));
    let deep: unknown = accept();
    for (let i = 0; i < 50_000; i++) deep = { multiStep: { provisionSteps: [deep] } };
    wellFormed(lintPolicy(pol({ steps: { grant: [{ provision: { provisionPolicy: deep } }] } })));
    let nested: unknown = [];
    for (let i = 0; i < 50_000; i++) nested = [nested];
    wellFormed(lintPolicy({ ...pol(), rules: nested, annotations: nested }));
    const wide = pol({ steps: Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, [accept()]])) });
    expect(only(lintPolicy(wide), "UNUSED_STEP_KEY")).toHaveLength(2000);
  });
});

describe("LINT_CODES", () => {
  it("has unique codes, each with a one-line description", () => {
    expect(new Set(LINT_CODES.map((c) => c.code)).size).toBe(LINT_CODES.length);
    for (const c of LINT_CODES) {
      expect(c.description).toMatch(/^\S.*\.$/);
      expect(c.description).not.toContain("\n");
    }
  });
});
