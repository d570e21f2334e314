import { describe, expect, it } from "vitest";
import { ADMIN, sampleWorld, SUPER, type Body } from "../../../test/helpers.js";

/** Policies are created and managed by Super Administrators (product_admin_user-roles.mdx). */
const EDITOR = SUPER;
import { responseProblems } from "../openapi-validate.test-helper.js";
import { createPolicy, deletePolicy, updatePolicy, validateCel } from "./policy-edits.js";

const world = sampleWorld();
const user = (id: string) => world.index.users.get(id)!;
const NOW = "2026-11-22T10:00:00Z";
const acceptAll = { grant: { steps: [{ accept: { acceptMessage: "ok" } }] } };

describe("000 spec, Policy: create, update and delete over the API", () => {
  it("creates a policy with the next id, readable in the new world and valid against CreatePolicyResponse", () => {
    const r = createPolicy(world, user(EDITOR), { displayName: "Open door", policyType: "POLICY_TYPE_GRANT", policySteps: acceptAll }, NOW);
    if (!r.ok) throw new Error(r.error.message);
    const body: Body = r.value.body;
    expect(body.policy.id).toMatch(/^pol-\d{6}$/);
    expect(r.value.world.index.policies.get(body.policy.id)?.displayName).toBe("Open door");
    expect(r.value.world.seq).toBe(world.seq + 1);
    expect(world.index.policies.has(body.policy.id)).toBe(false);
    expect(responseProblems("POST", "/api/v1/policies", body)).toEqual([]);
  });
  it("refuses a plain user and a Campaign Administrator (PERMISSION_DENIED): product_admin_user-roles.mdx gives policies to Super Administrators", () => {
    expect(createPolicy(world, user("u-dev1"), { displayName: "x" }, NOW)).toMatchObject({ ok: false, error: { status: 403 } });
    expect(createPolicy(world, user(ADMIN), { displayName: "x" }, NOW)).toMatchObject({ ok: false, error: { status: 403 } });
  });
  it("refuses a missing displayName as required, and one of another type as what it is (SDK review F4)", () => {
    for (const displayName of [undefined, null, "", "  "])
      expect(createPolicy(world, user(EDITOR), { displayName, policyType: "POLICY_TYPE_GRANT", policySteps: acceptAll }, NOW)).toMatchObject({
        ok: false,
        error: { status: 400, message: "displayName is required" },
      });
    expect(createPolicy(world, user(EDITOR), { displayName: 5, policyType: "POLICY_TYPE_GRANT", policySteps: acceptAll }, NOW)).toMatchObject({
      ok: false,
      error: { status: 400, message: "displayName must be a string, not 5" },
    });
  });
  it('refuses an int64 written "" in a form field (openapi.yaml c1.api.form.v1.Int64Field.defaultValue: format int64), naming its place (SDK review F1)', () => {
    const steps = (int64Field: object) => ({ grant: { steps: [{ form: { form: { displayName: "F", fields: [{ name: "d", displayName: "D", int64Field }] } } }, { accept: {} }] } });
    for (const int64Field of [{ defaultValue: "" }, { numberField: { step: "" } }]) {
      const r = createPolicy(world, user(EDITOR), { displayName: "F", policyType: "POLICY_TYPE_GRANT", policySteps: steps(int64Field) }, NOW);
      expect(r).toMatchObject({ ok: false, error: { status: 400, code: "INVALID_ARGUMENT", message: expect.stringContaining('found "": write "0" or leave the field out') } });
    }
    expect(createPolicy(world, user(EDITOR), { displayName: "F", policyType: "POLICY_TYPE_GRANT", policySteps: steps({ defaultValue: "3" }) }, NOW).ok).toBe(true);
  });
  it("refuses CEL that does not check, naming the rule", () => {
    const r = createPolicy(
      world,
      user(EDITOR),
      { displayName: "Bad", policyType: "POLICY_TYPE_GRANT", policySteps: { ...acceptAll, s1: acceptAll.grant }, rules: [{ condition: "subject.departmnt == 'IT'", stepKey: "s1" }] },
      NOW,
    );
    expect(r).toMatchObject({ ok: false, error: { status: 400, code: "INVALID_ARGUMENT", message: expect.stringContaining("CEL_TYPE_ERROR") } });
  });
  it("refuses more than 16 rules", () => {
    const rules = Array.from({ length: 17 }, (_, i) => ({ condition: `subject.department == 'd${i}'`, stepKey: "s1" }));
    const r = createPolicy(world, user(EDITOR), { displayName: "Many", policyType: "POLICY_TYPE_GRANT", policySteps: { ...acceptAll, s1: acceptAll.grant }, rules }, NOW);
    expect(r).toMatchObject({ ok: false, error: { message: expect.stringContaining("TOO_MANY_RULES") } });
  });
  it("updates only the masked fields; annotations merge and an empty value deletes a key", () => {
    const before = world.index.policies.get("pol-prod-admin")!;
    const r = updatePolicy(
      world,
      user(EDITOR),
      "pol-prod-admin",
      { policy: { displayName: "Prod admin (v2)", description: "ignored: not in the mask", annotations: { iac_workspace: "", owner: "sec" } }, updateMask: "displayName,annotations" },
      NOW,
    );
    if (!r.ok) throw new Error(r.error.message);
    const after = r.value.world.index.policies.get("pol-prod-admin")!;
    expect(after.displayName).toBe("Prod admin (v2)");
    expect(after.description).toBe(before.description);
    expect(after.annotations).toEqual({ managed_by: "terraform", iac_resource_address: "conductorone_policy.prod_admin", iac_tool_version: "1.9.8", owner: "sec" });
    expect(responseProblems("POST", "/api/v1/policies/{id}", r.value.body)).toEqual([]);
  });
  it("refuses a reference cycle (the edit would close pol-prod-admin → pol-prod-admin-eng → … → pol-prod-admin)", () => {
    const eng = world.index.policies.get("pol-security-review")!;
    const r = updatePolicy(world, user(EDITOR), eng.id, { policy: { baselinePolicyId: "pol-prod-admin", policySteps: {} }, updateMask: "baselinePolicyId,policySteps" }, NOW);
    expect(r).toMatchObject({ ok: false, error: { status: 400, message: expect.stringMatching(/CYCLE|REFERENCE/) } });
  });
  it("refuses to change the type of a policy another refers to (type mismatch seen from the referrer)", () => {
    const r = updatePolicy(
      world,
      user(SUPER),
      "pol-revoke-standard",
      { policy: { policyType: "POLICY_TYPE_GRANT", policySteps: acceptAll, rules: [] }, updateMask: "policyType,policySteps,rules" },
      NOW,
    );
    expect(r).toMatchObject({ ok: false, error: { message: expect.stringContaining("pol-revoke-salesforce") } });
  });
  it("deletes a policy nothing refers to, and refuses one that is referred to", () => {
    expect(deletePolicy(world, user(EDITOR), "pol-prod-admin-eng")).toMatchObject({ ok: false, error: { code: "FAILED_PRECONDITION", message: expect.stringContaining("pol-prod-admin") } });
    const created = createPolicy(world, user(EDITOR), { displayName: "Temp", policyType: "POLICY_TYPE_GRANT", policySteps: acceptAll }, NOW);
    if (!created.ok) throw new Error(created.error.message);
    const id = (created.value.body as Body).policy.id as string;
    const del = deletePolicy(created.value.world, user(EDITOR), id);
    if (!del.ok) throw new Error(del.error.message);
    expect(del.value.world.index.policies.has(id)).toBe(false);
    expect(responseProblems("DELETE", "/api/v1/policies/{id}", del.value.body)).toEqual([]);
  });
});

describe("openapi.yaml PolicyValidate.ValidateCEL: markers from the project's checker", () => {
  it("a valid condition has no markers; a misspelt field has one ERROR marker at its columns", () => {
    expect(validateCel({ text: "subject.department == 'IT'" })).toEqual({ ok: true, value: { markers: [] } });
    const r = validateCel({ text: "subject.departmnt == 'IT'" });
    if (!r.ok) throw new Error(r.error.message);
    const m = (r.value as Body).markers;
    expect(m).toHaveLength(1);
    expect(m[0]).toMatchObject({ severity: "ERROR", startLineNumber: 1, endLineNumber: 1 });
    expect(m[0].message).toMatch(/departmnt/);
    expect(responseProblems("POST", "/api/v1/policies/validate/cel", r.value)).toEqual([]);
  });

  it("a time unit written as a literal that can never be valid is a WARNING marker (EditorMarker severity): the expression still runs", () => {
    const r = validateCel({ text: 'time.start_of(now(), "fortnight") < now()' });
    if (!r.ok) throw new Error(r.error.message);
    expect((r.value as Body).markers).toEqual([expect.objectContaining({ severity: "WARNING", message: expect.stringContaining('unknown time unit "fortnight"') })]);
    expect(responseProblems("POST", "/api/v1/policies/validate/cel", r.value)).toEqual([]);
  });

  it("the approver expressions of product_admin_expressions-reference.mdx get no ERROR, and an INFO marker saying what they are", () => {
    const docs = [
      "c1.directory.users.v1.GetManagers(subject)",
      "size(c1.directory.users.v1.GetManagers(subject)) > 0\n  ? c1.directory.users.v1.GetManagers(subject)\n  : appOwners",
    ];
    for (const text of docs) {
      const r = validateCel({ text });
      if (!r.ok) throw new Error(r.error.message);
      const m = (r.value as Body).markers;
      expect(m.filter((x: Body) => x.severity === "ERROR")).toEqual([]);
      expect(m).toEqual([expect.objectContaining({ severity: "INFO", startLineNumber: 1, startColumn: 1, endLineNumber: text.split("\n").length, message: expect.stringContaining("approver expression") })]);
      expect(responseProblems("POST", "/api/v1/policies/validate/cel", r.value)).toEqual([]);
    }
  });

  it("text valid in neither context keeps the rule condition's error, with a hint naming where a variable is declared (expressions.mdx: \"wrong context\")", () => {
    const r = validateCel({ text: "appOwners.size() > 0 && subject.departmnt == 'IT'" });
    if (!r.ok) throw new Error(r.error.message);
    const m = (r.value as Body).markers;
    expect(m).toHaveLength(1);
    expect(m[0]).toMatchObject({ severity: "ERROR", message: expect.stringContaining("'appOwners' is declared in approval step approver expressions, not in policy rule conditions") });
  });
});
