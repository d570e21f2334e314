import { describe, expect, it } from "vitest";
import { checkApproverExpression, checkCondition, compileApproverExpression, compileCondition } from "./compile.js";
import { directoryFromArrays } from "./directory.js";
import { APP_USER_STATUS, appUserStatusName, enumValue } from "./enums.js";
import { evaluateApproverExpression, evaluateCondition, type ApproverInput, type ConditionInput } from "./evaluate.js";
import { adaInput, makeUser, tenant } from "./test-fixtures.js";

const { ada, bob, cy, dee, directory, facts, awsAdmin, NOW } = tenant;

function evaluate(source: string, input: ConditionInput = adaInput()) {
  const c = compileCondition(source);
  if (!c.ok) throw new Error(`${source}: ${c.error.map((d) => d.message).join("; ")}`);
  return evaluateCondition(c.value, input);
}

const approverInput = (over: Partial<ApproverInput> = {}): ApproverInput => ({
  subject: ada,
  appOwners: [bob],
  entitlement: awsAdmin,
  task: facts,
  now: NOW,
  directory,
  ...over,
});

function approvers(source: string, input: ApproverInput = approverInput()) {
  const c = compileApproverExpression(source);
  if (!c.ok) throw new Error(`${source}: ${c.error.map((d) => d.message).join("; ")}`);
  return evaluateApproverExpression(c.value, input);
}

describe("c1.directory.users.v1", () => {
  it("FindByEmail finds a user by any of their emails, case-insensitively", () => {
    expect(evaluate('c1.directory.users.v1.FindByEmail("BOB@northwind.example").id == "u-bob"')).toEqual({ ok: true, value: true });
    expect(evaluate('c1.directory.users.v1.FindByEmail("ada.l@northwind.example").id == "u-ada"')).toEqual({ ok: true, value: true });
    expect(evaluate('c1.directory.users.v1.FindByEmail(subject.manager).jobTitle == "Director"')).toEqual({ ok: true, value: true });
  });

  it("FindByEmail, GetByID and FindByName fail for a user not in the directory", () => {
    for (const call of ['FindByEmail("ghost@northwind.example")', 'GetByID("u-ghost")', 'FindByName("ghost")']) {
      const r = evaluate(`c1.directory.users.v1.${call}.id == ""`);
      expect(r).toMatchObject({ ok: false, error: { code: "CEL_NOT_FOUND", location: { line: 1, column: 1 } } });
    }
  });

  it("GetByID and FindByName find users", () => {
    expect(evaluate('c1.directory.users.v1.GetByID("u-cy").employmentType == "Contractor"')).toEqual({ ok: true, value: true });
    expect(evaluate('c1.directory.users.v1.FindByName("alovelace").id == "u-ada"')).toEqual({ ok: true, value: true });
    expect(evaluate('c1.directory.users.v1.FindByName("Bob Babbage").id == "u-bob"')).toEqual({ ok: true, value: true });
  });

  it("GetManagers lists managers, empty when there are none", () => {
    expect(evaluate('c1.directory.users.v1.GetManagers(subject).map(m, m.id) == ["u-bob"]')).toEqual({ ok: true, value: true });
    expect(evaluate("size(c1.directory.users.v1.GetManagers(subject)) == 0", adaInput({ subject: dee }))).toEqual({ ok: true, value: true });
  });

  it("DirectReports takes a user or a list of users", () => {
    expect(evaluate('c1.directory.users.v1.DirectReports(c1.directory.users.v1.GetByID("u-bob")).map(u, u.id) == ["u-ada", "u-cy"]')).toEqual({
      ok: true,
      value: true,
    });
    expect(evaluate('c1.directory.users.v1.DirectReports(c1.directory.users.v1.GetManagers(subject)).map(u, u.id) == ["u-ada", "u-cy"]')).toEqual({
      ok: true,
      value: true,
    });
    expect(evaluate("c1.directory.users.v1.DirectReports(subject) == []")).toEqual({ ok: true, value: true });
  });
});

describe("c1.directory.groups.v1 and apps.v1", () => {
  it("FindByName finds a group, fails for an unknown one", () => {
    expect(evaluate('"u-ada" in c1.directory.groups.v1.FindByName("On-call").memberUserIds')).toEqual({ ok: true, value: true });
    expect(evaluate('c1.directory.groups.v1.FindByName("Nope").id == ""')).toMatchObject({ ok: false, error: { code: "CEL_NOT_FOUND" } });
  });

  it("GetEntitlementMembers and GetEntitlementOwners list users, fail for an unknown entitlement", () => {
    expect(evaluate('c1.directory.apps.v1.GetEntitlementMembers("app-aws", "ent-ro").map(u, u.id) == ["u-cy", "u-dee"]')).toEqual({ ok: true, value: true });
    expect(evaluate('c1.directory.apps.v1.GetEntitlementOwners(entitlement.appId, entitlement.id).map(u, u.id) == ["u-bob"]')).toEqual({ ok: true, value: true });
    expect(evaluate('size(c1.directory.apps.v1.GetEntitlementOwners("app-aws", "ent-ro")) == 0')).toEqual({ ok: true, value: true });
    expect(evaluate('size(c1.directory.apps.v1.GetEntitlementMembers("app-aws", "ent-nope")) == 0')).toMatchObject({ ok: false, error: { code: "CEL_NOT_FOUND" } });
  });
});

describe("c1.user.v1", () => {
  it("HasApp and HasEntitlement answer false, not an error, for unknown ids", () => {
    expect(evaluate('c1.user.v1.HasApp(subject, "app-aws") && c1.user.v1.HasEntitlement(subject, "app-aws", "ent-admin")')).toEqual({ ok: true, value: true });
    expect(evaluate('c1.user.v1.HasApp(subject, "app-nope") || c1.user.v1.HasEntitlement(subject, "app-aws", "ent-nope")')).toEqual({ ok: true, value: false });
    expect(evaluate('c1.user.v1.HasApp(subject, "app-aws")', adaInput({ subject: bob }))).toEqual({ ok: true, value: false });
  });

  it("GrantedFromEnrollment and AutomaticallyGrantedFromEnrollment read the grant's source", () => {
    const both = 'c1.user.v1.GrantedFromEnrollment(subject, "app-aws", "ent-ro") && !c1.user.v1.AutomaticallyGrantedFromEnrollment(subject, "app-aws", "ent-ro")';
    expect(evaluate(both, adaInput({ subject: cy }))).toEqual({ ok: true, value: true });
    expect(evaluate('c1.user.v1.AutomaticallyGrantedFromEnrollment(subject, "app-aws", "ent-ro")', adaInput({ subject: dee }))).toEqual({ ok: true, value: true });
    expect(evaluate('c1.user.v1.GrantedFromEnrollment(subject, "app-aws", "ent-admin")')).toEqual({ ok: true, value: false });
  });

  it("offers the enrollment functions in conditions only", () => {
    expect(checkApproverExpression('c1.user.v1.GrantedFromEnrollment(subject, "a", "e") ? [subject] : appOwners')).toMatchObject([
      { code: "CEL_UNDECLARED_REFERENCE", message: "undeclared reference to 'c1.user.v1.GrantedFromEnrollment'" },
    ]);
  });

  it("GetAppUserStatus gives the account's status as USER_STATUS_*, USER_STATUS_UNSPECIFIED without an account (product_admin_expressions-reference.mdx)", () => {
    expect(evaluate('c1.user.v1.GetAppUserStatus(subject, "app-aws") == "USER_STATUS_ENABLED"')).toEqual({ ok: true, value: true });
    expect(evaluate('c1.user.v1.GetAppUserStatus(subject, "app-aws") == "USER_STATUS_UNSPECIFIED"', adaInput({ subject: bob }))).toEqual({ ok: true, value: true });
  });

  it("an account status in the API's spelling (openapi.yaml c1.api.app.v1.AppUserStatus.status: STATUS_*) is the same AppUserStatus as the world file's APP_USER_STATUS_*", () => {
    for (const m of ["UNSPECIFIED", "ENABLED", "DISABLED", "DELETED"]) {
      expect(enumValue(APP_USER_STATUS, `STATUS_${m}`)).toBe(enumValue(APP_USER_STATUS, `APP_USER_STATUS_${m}`));
      expect(appUserStatusName(`STATUS_${m}`)).toBe(`USER_STATUS_${m}`);
    }
  });

  it("reports an undeclared function under c1 by its full name", () => {
    expect(checkCondition('c1.user.v1.HasApps(subject, "x")')).toMatchObject([{ code: "CEL_UNDECLARED_REFERENCE", message: "undeclared reference to 'c1.user.v1.HasApps'" }]);
    expect(checkCondition("c1.directory == 1")).toMatchObject([{ code: "CEL_UNDECLARED_REFERENCE", message: "undeclared reference to 'c1'" }]);
  });
});

describe("approver expressions", () => {
  it("return the ids of a user or a list of users", () => {
    expect(approvers("c1.directory.users.v1.GetManagers(subject)")).toEqual({ ok: true, value: ["u-bob"] });
    expect(approvers("c1.directory.users.v1.FindByEmail(subject.manager)")).toEqual({ ok: true, value: ["u-bob"] });
    expect(approvers("appOwners")).toEqual({ ok: true, value: ["u-bob"] });
    expect(approvers('c1.directory.apps.v1.GetEntitlementMembers("app-aws", "ent-ro") + appOwners + appOwners')).toEqual({
      ok: true,
      value: ["u-cy", "u-dee", "u-bob"],
    });
    expect(approvers('[c1.directory.users.v1.GetByID("u-cy"), subject]')).toEqual({ ok: true, value: ["u-cy", "u-ada"] });
  });

  it("fall back as the documented pattern does", () => {
    const source = "size(c1.directory.users.v1.GetManagers(subject)) > 0 ? c1.directory.users.v1.GetManagers(subject) : appOwners";
    expect(approvers(source, approverInput({ subject: dee, appOwners: [cy] }))).toEqual({ ok: true, value: ["u-cy"] });
    expect(approvers("c1.directory.users.v1.GetManagers(subject)", approverInput({ subject: dee }))).toEqual({ ok: true, value: [] });
  });

  it("see subject, appOwners, entitlement and task", () => {
    expect(approvers('task.numericId == "1001" && entitlement.id == "ent-admin" ? appOwners : [subject]')).toEqual({ ok: true, value: ["u-bob"] });
    // An account is no list of users.
    expect(checkApproverExpression("account")).toMatchObject([{ code: "CEL_NOT_USERS" }]);
  });

  it("must return users", () => {
    expect(checkApproverExpression("subject.email")).toMatchObject([{ code: "CEL_NOT_USERS", message: "expected type 'User' or 'list<User>' but found 'string'" }]);
    expect(checkApproverExpression("[subject.email]")[0]?.code).toBe("CEL_NOT_USERS");
    expect(checkApproverExpression("[]")).toEqual([]);
    expect(approvers("subject.profile.tags")).toMatchObject({ ok: false, error: { code: "CEL_NOT_USERS" } });
  });

  it("report a missing user as a run-time error", () => {
    expect(approvers('c1.directory.users.v1.FindByEmail("ghost@northwind.example")')).toMatchObject({ ok: false, error: { code: "CEL_NOT_FOUND" } });
  });
});

describe("directoryFromArrays", () => {
  it("indexes users, reports, entitlements, grants and accounts", () => {
    expect(directory.userByEmail("ADA@NORTHWIND.EXAMPLE")).toBe(ada);
    expect(directory.userByName("ada")).toBe(ada);
    // "FindByName: display name … returns the first matching user if multiple users share the same
    // display name" (product_admin_expressions-reference.mdx): a display name wins over another
    // user's username, and the first of two users with one display name is found.
    const pat = makeUser({ id: "u-pat", email: "pat@example.com", displayName: "Pat Smith", username: "psmith" });
    const other = makeUser({ id: "u-other", email: "o@example.com", displayName: "Other", username: "Pat Smith" });
    const twin = makeUser({ id: "u-twin", email: "t@example.com", displayName: "Pat Smith", username: "pat2" });
    const names = directoryFromArrays({ users: [other, pat, twin] });
    expect(names.userByName("Pat Smith")?.id).toBe("u-pat");
    expect(names.userByName("pat2")?.id).toBe("u-twin");
    expect(directory.managersOf(ada)).toEqual([bob]);
    expect(directory.directReportsOf(bob)).toEqual([ada, cy]);
    expect(directory.groupByName("g-oncall")?.displayName).toBe("On-call");
    expect(directory.entitlementMembers("app-aws", "ent-admin")).toEqual([ada]);
    expect(directory.entitlementMembers("app-aws", "nope")).toBeUndefined();
    expect(directory.appOwners("app-aws")).toEqual([bob]);
    expect(directory.appOwners("nope")).toBeUndefined();
    expect(directory.grantOf("u-cy", "app-aws", "ent-ro")?.source).toBe("enrollment");
    expect(directory.hasApp("u-ada", "app-aws")).toBe(true);
    expect(directory.appUserStatus("u-ada", "app-aws")).toBe("APP_USER_STATUS_ENABLED");
  });

  it("works with parts missing, and skips managers it does not know", () => {
    const lone = makeUser({ id: "u-lone", managerIds: ["u-nobody"] });
    const d = directoryFromArrays({ users: [lone] });
    expect(d.managersOf(lone)).toEqual([]);
    expect(d.hasApp("u-lone", "app")).toBe(false);
    expect(d.entitlementOwners("a", "e")).toBeUndefined();
  });
});
