/**
 * has() on a message's field (presence.ts): product_admin_expressions-reference.mdx, "Use the has()
 * macro to check for existence of optional fields", and its has-manager test
 * `subject.manager_id != ""`: has(subject.manager_id) is false for a user without a manager, as
 * cel-go answers for a proto3 field holding its default. Maps keep key presence.
 */
import { describe, expect, it } from "vitest";
import { compileCondition } from "./compile.js";
import { evaluateCondition, type ConditionInput } from "./evaluate.js";
import { adaInput, makeUser, tenant } from "./test-fixtures.js";
import { contextsOf, differential } from "./test-differential.js";

const { ada, dee, facts } = tenant;

function value(source: string, input: ConditionInput = adaInput()): boolean {
  const c = compileCondition(source);
  if (!c.ok) throw new Error(`${source}: ${c.error.map((d) => d.message).join("; ")}`);
  const r = evaluateCondition(c.value, input);
  if (!r.ok) throw new Error(`${source}: ${r.error.code} ${r.error.message}`);
  return r.value;
}

const bare = makeUser({ id: "u-bare" });

describe("has() on a message field: present when it holds more than its default (product_admin_expressions-reference.mdx)", () => {
  it("agrees with the page's has-manager test, subject.manager_id != \"\"", () => {
    for (const subject of [ada, dee, bare]) {
      const input = adaInput({ subject });
      expect(value("has(subject.manager_id)", input)).toBe(value('subject.manager_id != ""', input));
      expect(value("has(subject.managerId)", input)).toBe(value('subject.managerId != ""', input));
    }
    expect(value("has(subject.manager_id)", adaInput({ subject: ada }))).toBe(true);
    expect(value("has(subject.manager_id)", adaInput({ subject: dee }))).toBe(false);
  });

  it("a string, list, map or enum at its default is absent; set, present", () => {
    expect(value("has(subject.department) || has(subject.emails) || has(subject.profile) || has(subject.jobTitle)", adaInput({ subject: bare }))).toBe(false);
    expect(value("has(subject.department) && has(subject.emails) && has(subject.profile)", adaInput({ subject: ada }))).toBe(true);
    // status is ENABLED (set); a user whose status was never given reads UNSPECIFIED.
    expect(value("has(subject.status)", adaInput({ subject: bare }))).toBe(true);
    expect(value("has(subject.status)", adaInput({ subject: makeUser({ id: "u-x", status: "" }) }))).toBe(false);
  });

  it("an unset message (a task without analysis) is absent, and a field below it is absent without an error", () => {
    expect(value("has(task.analysis)", adaInput({ task: { ...facts, analysis: null } }))).toBe(false);
    expect(value("has(task.analysis.id)", adaInput({ task: { ...facts, analysis: null } }))).toBe(false);
    expect(value("has(task.analysis) && has(task.analysis.id)", adaInput({ task: { ...facts, analysis: { id: "an-1", hasConflictViolations: true, conflictViolations: ["c-1"] } } }))).toBe(true);
  });

  it("keeps a profile map's key presence, as the page's example uses it", () => {
    const input = adaInput({ subject: makeUser({ id: "u-p", profile: { custom_field: "value", empty: "" } }) });
    expect(value('has(subject.profile.custom_field) ? subject.profile.custom_field == "value" : false', input)).toBe(true);
    // A key present with an empty value is present: a map's has() asks for the key.
    expect(value("has(subject.profile.empty)", input)).toBe(true);
    expect(value("has(subject.profile.missing)", input)).toBe(false);
  });

  it("answers the same under a negation, a unary minus and inside a comprehension (diff review: `!has(…)` kept the old answer)", () => {
    for (const subject of [ada, dee]) {
      const input = adaInput({ subject });
      const present = value("has(subject.manager_id)", input);
      expect(value("!has(subject.manager_id)", input)).toBe(!present);
      expect(value("[subject].exists(u, !has(u.manager_id))", input)).toBe(!present);
      expect(value("-(has(subject.manager_id) ? 1 : 0) == 0", input)).toBe(!present);
      expect(value("!(!has(subject.manager_id))", input)).toBe(present);
    }
  });

  it("gives the same outcomes compiled (closures, generated code) and interpreted (cel-js), on every test context", () => {
    const sources = [
      "has(subject.manager_id)",
      "has(subject.department) && !has(subject.delegatedUserId)",
      "has(task.analysis) || has(task.grantDuration)",
      "has(task.analysis.id)",
      "has(entitlement.riskLevelValueId)",
      "has(subject.profile.costCenter)",
      "[subject].all(u, has(u.email))",
      "!has(subject.manager_id) || [subject].exists(u, !has(u.delegatedUserId))",
      "has(account.username) && has(account.status)",
    ];
    const contexts = contextsOf("condition");
    for (const s of sources) {
      const d = differential(s, "condition", contexts);
      expect(d, s).toBeDefined();
      expect(d?.mismatches, s).toEqual([]);
    }
  });
});
