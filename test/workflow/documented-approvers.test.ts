/**
 * Approvers as the service documents them (issue 11, points 1–4 and 10): who reviews a step when
 * nobody is found, self-approval, distinct approvers, big groups and delegation windows. Each
 * describe names the page (or release note, the release notes the reference material lists) it follows.
 */
import { describe, expect, it } from "vitest";
import { explain } from "../../src/explain/explain.js";
import { formatExplanation } from "../../src/explain/format.js";
import type { JsonObject } from "../../src/model/json.js";
import { formatWhatIf } from "../../src/whatif/format.js";
import { applyEdit, whatIf } from "../../src/whatif/what-if.js";
import { decide } from "../../src/policy/decide.js";
import { routeOf } from "../../src/whatif/route.js";
import type { World } from "../../src/world/world.js";
import { grantPolicy, kinds, load, refuse, run, SAMPLE_JSON, sampleWith, task, usersApproval, worldOn } from "./helpers.js";

const PROVISION = { provision: { assigned: false, provisionPolicy: { manual: { instructions: "", userIds: ["u-it1"] } }, provisionTarget: null } };

/** An approval step of another kind, with the common settings of `usersApproval`. */
function approval(kind: string, settings: JsonObject, extra: JsonObject = {}): JsonObject {
  const base = usersApproval([], extra)["approval"] as JsonObject;
  const { users: _users, ...rest } = base;
  return { approval: { ...rest, [kind]: settings } };
}

/** Task 1030 requested by `requester` for `subject` (both u-hr1 in the sample). */
function forSubject(subject: string, requester = subject) {
  return (json: Record<string, unknown> & { tasks: JsonObject[] }) => {
    const t = json.tasks.find((x) => x["numericId"] === "1030") as Record<string, unknown>;
    t["userId"] = subject;
    t["createdByUserId"] = requester;
    const grant = (t["type"] as Record<string, Record<string, unknown>>)["grant"] as Record<string, unknown>;
    grant["identityUserId"] = subject;
    grant["appUserId"] = "";
  };
}

function current(w: World) {
  return task(w, "1030").policy?.current?.instance;
}

describe("release note (May 2024) and product_admin_expressions-reference.mdx: a step with nobody to ask", () => {
  it("a CISO requesting for themselves, the only approver, self-approval off: reassigned to the Super Administrators, not skipped to provisioning", () => {
    const w = worldOn([usersApproval(["u-ciso"]), PROVISION], forSubject("u-ciso"));
    expect(current(w)?.kind).toBe("approval");
    // u-ciso is a Super Administrator too, but the subject: only u-it-dir remains.
    expect(task(w, "1030").stepApproverIds).toEqual(["u-it-dir"]);
  });

  it("a manager step for a subject without a manager and without a fallback goes to the Super Administrators, with the reason in the audit", () => {
    const steps = [approval("manager", { allowSelfApproval: false, assignedUserIds: [], fallback: false, fallbackGroupIds: [], fallbackUserIds: [], isGroupFallbackEnabled: false, requireDistinctApprovers: false }), PROVISION];
    const reset = resetOn(steps, forSubject("u-ceo"));
    expect(task(reset.world, "1030").stepApproverIds).toEqual(["u-ciso", "u-it-dir"]);
    expect(reset.events.find((e) => e.kind === "reviewersRouted")).toMatchObject({ via: "superAdmins", reason: "no reviewer: reassigned to Super Administrators" });
  });

  it("a fallback whose users are all disabled is no usable fallback", () => {
    const steps = [approval("manager", { allowSelfApproval: false, assignedUserIds: [], fallback: true, fallbackGroupIds: [], fallbackUserIds: ["u-former"], isGroupFallbackEnabled: false, requireDistinctApprovers: false }), PROVISION];
    const reset = resetOn(steps, forSubject("u-ceo"));
    expect(task(reset.world, "1030").stepApproverIds).toEqual(["u-ciso", "u-it-dir"]);
  });

  it("a usable fallback is used before the Super Administrators", () => {
    const steps = [approval("manager", { allowSelfApproval: false, assignedUserIds: [], fallback: true, fallbackGroupIds: [], fallbackUserIds: ["u-it1"], isGroupFallbackEnabled: false, requireDistinctApprovers: false }), PROVISION];
    const reset = resetOn(steps, forSubject("u-ceo"));
    expect(task(reset.world, "1030").stepApproverIds).toEqual(["u-it1"]);
    expect(reset.events.find((e) => e.kind === "reviewersRouted")).toMatchObject({ via: "fallback" });
  });

  it("only an approver expression whose result is empty skips the step (GetManagers of a subject without a manager)", () => {
    const expr = { allowSelfApproval: false, assignedUserIds: [], expressions: ["c1.directory.users.v1.GetManagers(subject)"], fallback: false, fallbackGroupIds: [], fallbackUserIds: [], isGroupFallbackEnabled: false, requireDistinctApprovers: false };
    const reset = resetOn([approval("expression", expr), PROVISION], forSubject("u-ceo"));
    expect(current(reset.world)?.kind).toBe("provision");
    const skipped = reset.events.find((e) => e.kind === "stepSkipped");
    expect(skipped && "reason" in skipped && skipped.reason).toMatch(/^the approver expression returned nobody; /);
    // The same expression for a subject with a manager asks the manager.
    const managed = resetOn([approval("expression", expr), PROVISION], forSubject("u-hr1"));
    expect(task(managed.world, "1030").stepApproverIds).toEqual(["u-hr-dir"]);
  });

  it("an empty expression with a fallback uses the fallback", () => {
    const expr = { allowSelfApproval: false, assignedUserIds: [], expressions: ["c1.directory.users.v1.GetManagers(subject)"], fallback: true, fallbackGroupIds: [], fallbackUserIds: ["u-it2"], isGroupFallbackEnabled: false, requireDistinctApprovers: false };
    const reset = resetOn([approval("expression", expr), PROVISION], forSubject("u-ceo"));
    expect(task(reset.world, "1030").stepApproverIds).toEqual(["u-it2"]);
  });
});

describe("product_admin_manage-campaigns.mdx (FAQ): a review step with nobody to ask goes to the campaign's owners", () => {
  // 1043: certify u-dev1's AWS read-only access in ar-2026-q4; pol-certify-default asks the manager,
  // falling back to u-it-dir. Here u-dev1 has no manager.
  function certifyWorld(fallbackUserIds: string[], owners: string[] | undefined): World {
    return sampleWith((json) => {
      const review = (json["accessReviews"] as JsonObject[]).find((r) => r["id"] === "ar-2026-q4") as Record<string, unknown>;
      if (owners) review["ownerUserIds"] = owners;
      const dev = (json["users"] as JsonObject[]).find((u) => u["id"] === "u-dev1") as Record<string, unknown>;
      dev["managerIds"] = [];
      const p = json.policies.find((x) => x["id"] === "pol-certify-default") as Record<string, unknown>;
      const steps = ((p["policySteps"] as Record<string, Record<string, unknown[]>>)["certify"] as Record<string, unknown[]>)["steps"] as Record<string, Record<string, Record<string, unknown>>>[];
      (steps[0] as Record<string, Record<string, Record<string, unknown>>>)["approval"]!["manager"]!["fallbackUserIds"] = fallbackUserIds;
    });
  }

  it("without a fallback user the campaign owners review", () => {
    const w = run(certifyWorld([], ["u-hr-dir", "u-cfo"]), { type: "hardReset", taskId: "1043" }, "u-it-dir");
    expect(task(w.world, "1043").stepApproverIds).toEqual(["u-hr-dir", "u-cfo"]);
    expect(w.events.find((e) => e.kind === "reviewersRouted")).toMatchObject({ via: "campaignOwners", reason: "no reviewer: reassigned to the campaign owners" });
    const text = formatExplanation((explain(w.world, "1043") as { ok: true; value: Parameters<typeof formatExplanation>[0] }).value);
    expect(text).toContain("u-hr-dir, u-cfo (no reviewer: reassigned to the campaign owners)");
  });

  it("a campaign that names no owners falls to the Super Administrators", () => {
    const w = run(certifyWorld([], undefined), { type: "hardReset", taskId: "1043" }, "u-it-dir");
    expect(task(w.world, "1043").stepApproverIds).toEqual(["u-ciso", "u-it-dir"]);
  });

  it("the campaign owners round-trip through the world file", () => {
    const w = certifyWorld([], ["u-hr-dir"]);
    expect(w.index.accessReviews.get("ar-2026-q4")?.ownerUserIds).toEqual(["u-hr-dir"]);
    expect(load(SAMPLE_JSON).index.accessReviews.get("ar-2026-q4")?.ownerUserIds).toBeUndefined();
  });
});

describe("release note (Feb 2023) and product_admin_policies.mdx: self-approval concerns the subject", () => {
  it("the subject among the approvers with self-approval allowed: the step approves itself and the workflow goes on", () => {
    const s = resetOn([usersApproval(["u-sec-eng", "u-it1"], {}, { allowSelfApproval: true }), PROVISION], forSubject("u-sec-eng"));
    const t = task(s.world, "1030");
    expect(t.policy?.current?.instance?.kind).toBe("provision");
    const done = t.policy?.history?.at(-1)?.instance;
    expect(done?.kind === "approval" && done.outcome).toMatchObject({ kind: "approved", userId: "u-sec-eng" });
    expect(t.approverIds).toEqual(["u-sec-eng"]);
    expect(kinds(s)).toContain("stepAutoApproved");
  });

  it("the subject among the step's fallback reviewers, self-approval allowed: approved automatically too (they are an approver of it)", () => {
    // u-ceo has no manager: the manager step falls back to its fallback users, u-ceo among them.
    const manager = (allowSelfApproval: boolean) =>
      approval("manager", { allowSelfApproval, assignedUserIds: [], fallback: true, fallbackGroupIds: [], fallbackUserIds: ["u-ceo", "u-hr-dir"], isGroupFallbackEnabled: false, requireDistinctApprovers: false });
    const s = resetOn([manager(true), PROVISION], forSubject("u-ceo"));
    const t = task(s.world, "1030");
    expect(t.policy?.current?.instance?.kind).toBe("provision");
    expect(t.approverIds).toEqual(["u-ceo"]);
    expect(kinds(s)).toContain("stepAutoApproved");
    // Self-approval off: the fallback's other reviewer decides.
    expect(task(resetOn([manager(false), PROVISION], forSubject("u-ceo")).world, "1030").stepApproverIds).toEqual(["u-hr-dir"]);
  });

  it("self-approval off: the subject is left out, a requester who is not the subject stays", () => {
    const s = resetOn([usersApproval(["u-hr1", "u-it1"]), PROVISION], forSubject("u-hr1", "u-it1"));
    expect(task(s.world, "1030").stepApproverIds).toEqual(["u-it1"]);
  });

  it("a review the subject may complete is not approved for them (the setting lets them act, it does not act)", () => {
    const steps = [approval("self", { assignedUserIds: [], fallback: false, fallbackGroupIds: [], fallbackUserIds: [], isGroupFallbackEnabled: false }), PROVISION];
    const s = resetOn(steps, forSubject("u-hr1"));
    expect(task(s.world, "1030").stepApproverIds).toEqual(["u-hr1"]);
  });
});

describe("product_admin_policies.mdx: require distinct approvers", () => {
  it("the step goes to approvers who have not approved an earlier step", () => {
    let w = worldOn([usersApproval(["u-sec-eng", "u-sre-lead"]), usersApproval(["u-sec-eng", "u-sre-lead"], {}, { requireDistinctApprovers: true }), PROVISION]);
    w = run(w, { type: "approve", taskId: "1030" }, "u-sec-eng").world;
    expect(task(w, "1030").stepApproverIds).toEqual(["u-sre-lead"]);
  });

  it("failing that, to the Super Administrators (the task does not stall)", () => {
    let w = worldOn([usersApproval(["u-sec-eng"]), usersApproval(["u-sec-eng"], {}, { requireDistinctApprovers: true }), PROVISION]);
    const s = run(w, { type: "approve", taskId: "1030" }, "u-sec-eng");
    w = s.world;
    expect(task(w, "1030").stepApproverIds).toEqual(["u-ciso", "u-it-dir"]);
    expect(s.events.find((e) => e.kind === "reviewersRouted")).toMatchObject({ via: "superAdmins", reason: "no distinct approver: reassigned to Super Administrators" });
    const done = run(w, { type: "approve", taskId: "1030" }, "u-it-dir").world;
    expect(task(done, "1030").policy?.current?.instance?.kind).toBe("provision");
  });

  it("a Super Administrator who approved an earlier step may not approve this one either (\"a different set of eyes reviews each stage\")", () => {
    // u-it-dir (Super Administrator) approves step 1; step 2 lists u-it-dir and u-sre-lead, distinct.
    let w = worldOn([usersApproval(["u-it-dir", "u-sec-eng"]), usersApproval(["u-it-dir", "u-sre-lead"], {}, { requireDistinctApprovers: true }), PROVISION]);
    w = run(w, { type: "approve", taskId: "1030" }, "u-it-dir").world;
    expect(task(w, "1030").stepApproverIds).toEqual(["u-sre-lead"]);
    expect(refuse(w, { type: "approve", taskId: "1030" }, "u-it-dir", "PERMISSION_DENIED").message).toMatch(/distinct approvers/);
    // Another Super Administrator, who decided nothing yet, still may.
    expect(task(run(w, { type: "approve", taskId: "1030" }, "u-ciso").world, "1030").approverIds).toEqual(["u-it-dir", "u-ciso"]);
  });

  it("routed to the Super Administrators for want of a distinct approver, the one who approved before decides it (the task does not stall)", () => {
    // u-ciso and u-it-dir are the tenant's Super Administrators; both approve an earlier step.
    let w = worldOn([usersApproval(["u-it-dir"]), usersApproval(["u-ciso"]), usersApproval(["u-it-dir", "u-ciso"], {}, { requireDistinctApprovers: true }), PROVISION]);
    w = run(w, { type: "approve", taskId: "1030" }, "u-it-dir").world;
    w = run(w, { type: "approve", taskId: "1030" }, "u-ciso").world;
    expect(task(w, "1030").stepApproverIds).toEqual(["u-ciso", "u-it-dir"]);
    expect(task(run(w, { type: "approve", taskId: "1030" }, "u-ciso").world, "1030").policy?.current?.instance?.kind).toBe("provision");
  });

  it("with a fallback, to the fallback reviewers who are distinct", () => {
    const distinctManager = approval("manager", { allowSelfApproval: false, assignedUserIds: [], fallback: true, fallbackGroupIds: [], fallbackUserIds: ["u-hr-dir", "u-it2"], isGroupFallbackEnabled: false, requireDistinctApprovers: true });
    let w = worldOn([usersApproval(["u-hr-dir"]), distinctManager, PROVISION]);
    w = run(w, { type: "approve", taskId: "1030" }, "u-hr-dir").world;
    expect(task(w, "1030").stepApproverIds).toEqual(["u-it2"]);
  });
});

describe("product_admin_policies.mdx: a group of more than 128 members uses the step's fallback reviewers", () => {
  function bigGroup(members: number, fallbackUserIds: string[]): World {
    return sampleWith((json) => {
      const users = json["users"] as JsonObject[];
      const ids: string[] = [];
      for (let i = 0; i < members; i++) {
        const id = `u-crowd-${i}`;
        ids.push(id);
        users.push({ id, email: `${id}@acme.example`, displayName: id, status: "ENABLED", type: "USER_TYPE_HUMAN", roleIds: ["r-user"] });
      }
      (json["groups"] as JsonObject[]).push({ id: "grp-crowd", appId: "app-okta", displayName: "Everyone", memberUserIds: ids });
      json.policies.push({
        id: "pol-test", displayName: "t", description: "", policyType: "POLICY_TYPE_GRANT", rules: [], baselinePolicyId: "",
        policySteps: { grant: { steps: [approval("group", { allowSelfApproval: false, appGroupId: "grp-crowd", appId: "app-okta", fallback: fallbackUserIds.length > 0, fallbackGroupIds: [], fallbackUserIds, isGroupFallbackEnabled: false, requireDistinctApprovers: false }), PROVISION] } },
      });
      const t = json.tasks.find((x) => x["numericId"] === "1030") as Record<string, unknown>;
      const grant = (t["type"] as Record<string, Record<string, unknown>>)["grant"] as Record<string, unknown>;
      const ent = (json["entitlements"] as Record<string, unknown>[]).find((e) => e["appId"] === grant["appId"] && e["id"] === grant["appEntitlementId"]) as Record<string, unknown>;
      ent["grantPolicyId"] = "pol-test";
    });
  }

  it("128 members are asked", () => {
    const w = run(bigGroup(128, ["u-it2"]), { type: "hardReset", taskId: "1030" }, "u-it-dir").world;
    expect(task(w, "1030").stepApproverIds).toHaveLength(128);
  });

  it("129 members: the fallback reviewers, with the reason", () => {
    const s = run(bigGroup(129, ["u-it2"]), { type: "hardReset", taskId: "1030" }, "u-it-dir");
    expect(task(s.world, "1030").stepApproverIds).toEqual(["u-it2"]);
    expect(s.events.find((e) => e.kind === "reviewersRouted")).toMatchObject({ via: "fallback", reason: "group of 129 members (over 128): using the step's fallback reviewers" });
  });

  it("129 members and no fallback: the Super Administrators", () => {
    const s = run(bigGroup(129, []), { type: "hardReset", taskId: "1030" }, "u-it-dir");
    expect(task(s.world, "1030").stepApproverIds).toEqual(["u-ciso", "u-it-dir"]);
  });
});

describe("product_admin_delegate.mdx: only tasks created while a delegate is set are redirected", () => {
  // u-eng-mgr has delegated to u-sre-lead; task 1030 was created 2026-11-20T15:00:00Z.
  function delegated(window: JsonObject): World {
    const steps = [usersApproval(["u-eng-mgr"], { allowDelegation: true }), PROVISION];
    return worldOn(steps, (json) => {
      const u = (json["users"] as JsonObject[]).find((x) => x["id"] === "u-eng-mgr") as Record<string, unknown>;
      Object.assign(u, window);
    });
  }

  it.each([
    ["a permanent delegate", {}, "u-sre-lead"],
    ["a window that contains the task's creation", { delegationStartAt: "2026-11-01T00:00:00Z", delegationExpireAt: "2026-12-01T00:00:00Z" }, "u-sre-lead"],
    ["a delegate set after the task was created", { delegationStartAt: "2026-11-21T00:00:00Z" }, "u-eng-mgr"],
    ["a delegation that ended before the task was created", { delegationStartAt: "2026-10-01T00:00:00Z", delegationExpireAt: "2026-11-01T00:00:00Z" }, "u-eng-mgr"],
  ])("%s", (_name, window, who) => {
    expect(task(delegated(window), "1030").stepApproverIds).toEqual([who]);
  });

  it("each task's audit log contains an entry showing the delegation reassignment", () => {
    const setDelegate = (window: JsonObject) => (json: Record<string, unknown> & { tasks: JsonObject[] }) => {
      const u = (json["users"] as JsonObject[]).find((x) => x["id"] === "u-eng-mgr") as Record<string, unknown>;
      Object.assign(u, window);
    };
    const redirected = resetOn([usersApproval(["u-eng-mgr", "u-it2"], { allowDelegation: true }), PROVISION], setDelegate({}));
    const step = task(redirected.world, "1030").policy?.current?.id;
    expect(redirected.events.filter((e) => e.kind === "reassignedToDelegate")).toEqual([
      expect.objectContaining({ kind: "reassignedToDelegate", taskId: task(redirected.world, "1030").id, policyStepId: step, originalAssigneeUserId: "u-eng-mgr", delegatedAssigneeUserId: "u-sre-lead" }),
    ]);
    // No delegation, no entry: the step does not allow it, or the window does not cover the task.
    const notAllowed = resetOn([usersApproval(["u-eng-mgr"], { allowDelegation: false }), PROVISION], setDelegate({}));
    expect(notAllowed.events.some((e) => e.kind === "reassignedToDelegate")).toBe(false);
    const outside = resetOn([usersApproval(["u-eng-mgr"], { allowDelegation: true }), PROVISION], setDelegate({ delegationStartAt: "2026-11-21T00:00:00Z" }));
    expect(outside.events.some((e) => e.kind === "reassignedToDelegate")).toBe(false);
  });

  it("a delegate another rule then leaves out (the subject, self-approval off) is no delegation entry", () => {
    const steps = [usersApproval(["u-eng-mgr", "u-it2"], { allowDelegation: true }), PROVISION];
    const r = resetOn(steps, (json) => {
      const u = (json["users"] as JsonObject[]).find((x) => x["id"] === "u-eng-mgr") as Record<string, unknown>;
      u["delegatedUserId"] = "u-hr1"; // u-hr1 is task 1030's subject
    });
    expect(task(r.world, "1030").stepApproverIds).toEqual(["u-it2"]);
    expect(r.events.some((e) => e.kind === "reassignedToDelegate")).toBe(false);
  });

  it("the window round-trips through the world file and a what-if edit of it reaches the task", () => {
    const w = delegated({ delegationStartAt: "2026-11-21T00:00:00Z" });
    const user = w.index.users.get("u-eng-mgr")!;
    const edit = { users: [{ ...user, $unknown: { ...(user.$unknown ?? {}), delegationStartAt: "2026-11-01T00:00:00Z" } }] };
    const r = whatIf(w, edit, { scope: { states: "any" } });
    expect(r.ok && r.value.changed.map((c) => c.numericId)).toContain("1030");
  });
});

describe("explain and what-if name the documented reason (issue 11)", () => {
  it("explain gives the route and reason; formatExplanation prints it", () => {
    const w = worldOn([usersApproval(["u-ciso"]), PROVISION], forSubject("u-ciso"));
    const e = explain(w, "1030");
    if (!e.ok) throw new Error(e.error.message);
    expect(e.value.approvers[0]).toMatchObject({ via: "superAdmins", userIds: ["u-it-dir"], reason: "no reviewer: reassigned to Super Administrators" });
    expect(formatExplanation(e.value)).toContain("→ u-it-dir (no reviewer: reassigned to Super Administrators)");
  });

  it("explain says when an empty expression skips the step and when the subject's self-approval approves it", () => {
    const expr = { allowSelfApproval: false, assignedUserIds: [], expressions: ["c1.directory.users.v1.GetManagers(subject)"], fallback: false, fallbackGroupIds: [], fallbackUserIds: [], isGroupFallbackEnabled: false, requireDistinctApprovers: false };
    const skipped = explain(worldOn([approval("expression", expr), PROVISION], forSubject("u-ceo")), "1030");
    if (!skipped.ok) throw new Error(skipped.error.message);
    expect(formatExplanation(skipped.value)).toContain("→ skipped (the approver expression returned nobody)");
    const self = explain(worldOn([usersApproval(["u-sec-eng"], {}, { allowSelfApproval: true }), PROVISION], forSubject("u-sec-eng")), "1030");
    if (!self.ok) throw new Error(self.error.message);
    expect(self.value.approvers[0]).toMatchObject({ via: "selfApproved", userIds: ["u-sec-eng"] });
    expect(formatExplanation(self.value)).toContain("→ approved automatically by u-sec-eng (the subject may approve and self-approval is allowed)");
  });

  it("what-if reports a route that now falls to the Super Administrators as such", () => {
    const w = worldOn([usersApproval(["u-it2"]), PROVISION]);
    const u = w.index.users.get("u-it2")!;
    const edit = { users: [{ ...u, status: "DISABLED" }] };
    const r = whatIf(w, edit, { scope: { states: "any" } });
    if (!r.ok) throw new Error(r.error.message);
    const c = r.value.changed.find((x) => x.numericId === "1030");
    expect(c?.changes).toContain("approvers");
    expect(c?.after.kind === "route" && c.after.approvers).toEqual({ userIds: ["u-ciso", "u-it-dir"], via: "superAdmins", reason: "no reviewer: reassigned to Super Administrators" });
    expect(formatWhatIf(r.value)).toContain("u-ciso, u-it-dir (no reviewer: reassigned to Super Administrators)");
    // The pruned run agrees with deciding every task again.
    const after = applyEdit(w, edit);
    expect(c?.after).toEqual(routeOf(after, decide(after, task(w, "1030"))));
  });

  it("what-if sees a change of who is a Super Administrator on a step that falls to them", () => {
    const w = worldOn([usersApproval(["u-ciso"]), PROVISION], forSubject("u-ciso"));
    const u = w.index.users.get("u-it2")!;
    const r = whatIf(w, { users: [{ ...u, roleIds: ["r-super-admin"] }] }, { scope: { states: "any" } });
    if (!r.ok) throw new Error(r.error.message);
    const c = r.value.changed.find((x) => x.numericId === "1030");
    expect(c?.after.kind === "route" && c.after.approvers?.userIds).toEqual(["u-it-dir", "u-it2"]);
  });
});

/** `worldOn`, returning the Hard Reset's step (events included). */
function resetOn(steps: JsonObject[], change?: Parameters<typeof sampleWith>[0]) {
  const w = sampleWith((json) => {
    change?.(json);
    json.policies.push(grantPolicy("pol-test", steps));
    const t = json.tasks.find((x) => x["numericId"] === "1030") as Record<string, unknown>;
    const grant = (t["type"] as Record<string, Record<string, unknown>>)["grant"] as Record<string, unknown>;
    const ent = (json["entitlements"] as Record<string, unknown>[]).find((e) => e["appId"] === grant["appId"] && e["id"] === grant["appEntitlementId"]) as Record<string, unknown>;
    ent["grantPolicyId"] = "pol-test";
  });
  return run(w, { type: "hardReset", taskId: "1030" }, "u-it-dir");
}
