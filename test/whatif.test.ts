import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  applyEdit,
  decide,
  editImpact,
  findTask,
  formatWhatIf,
  mergeWhatIfResults,
  policyReach,
  replaceInWorld,
  routeOf,
  saveWorld,
  taskSubjectId,
  whatIf,
  whatIfWorlds,
  type WhatIfOptions,
  type WhatIfResult,
  type World,
  type WorldEdit,
  type WorldPatch,
} from "policy-sim";
import type { ApproverKind, PolicyStep } from "../src/model/index.js";
import { buildIndex } from "../src/world/world.js";
import { applyPolicyMutation, arbPolicyMutation, arbWorldRecipe, worldFromRecipe } from "policy-sim/testing/arbitraries";
import { sampleJson, sampleWorld, unlessRenumbered, worldOf } from "./helpers.js";

const sample = sampleWorld();
const ANY: WhatIfOptions = { scope: { states: "any" } };

function run(world: World, edit: WorldEdit, options: WhatIfOptions = ANY): WhatIfResult {
  const r = whatIf(world, edit, options);
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
}

/** A result without the work counters, which differ between pruned and unpruned runs by design. */
function outcome(r: WhatIfResult): Omit<WhatIfResult, "stats"> {
  const { stats: _stats, ...rest } = r;
  return rest;
}

const inScopeTasks = (world: World) => [...world.tasks.values()];

/**
 * The pruned run and the unpruned one (`prune: false`) of one edit, checked equal (but for the work
 * counters) and against `decide()` task by task; both returned for further checks.
 */
function prunedAgrees(world: World, edit: WorldEdit): { pruned: WhatIfResult; plain: WhatIfResult } {
  const pruned = run(world, edit, ANY);
  const plain = run(world, edit, { ...ANY, prune: false });
  expect(outcome(pruned)).toEqual(outcome(plain));
  checkAgainstDecide(world, applyEdit(world, edit), pruned);
  return { pruned, plain };
}

/**
 * The reference: for every task, both routes straight from `decide`. Listed tasks must carry exactly
 * these routes; unlisted tasks must have equal routes (approvers included).
 */
function checkAgainstDecide(world: World, after: World, r: WhatIfResult): void {
  const listed = new Map([...r.changed, ...r.unchangedErrors].map((c) => [c.taskId, c]));
  for (const task of inScopeTasks(world)) {
    const before = routeOf(world, decide(world, task));
    const afterRoute = routeOf(after, decide(after, task));
    const c = listed.get(task.id);
    if (c) {
      expect(c.before).toEqual(before);
      expect(c.after).toEqual(afterRoute);
    } else {
      expect(unlessRenumbered(before, afterRoute, world, after), `task ${task.numericId} is not listed but its route changed`).toEqual(before);
      expect(before.kind, `task ${task.numericId} errors but is not listed`).toBe("route");
    }
  }
}

/** Edits of every kind an edit can make, described as data so counterexamples print. */
type EditSpec =
  | { kind: "mutation"; mutation: Parameters<typeof applyPolicyMutation>[1] }
  | { kind: "entitlementPolicy"; ent: number; policy: number | null }
  | { kind: "appPolicy"; app: number; policy: number | null }
  | { kind: "tenantDefault"; policy: number | null }
  | { kind: "userDepartment"; user: number; department: string }
  | { kind: "flag"; on: boolean }
  | { kind: "costLimit"; limit: number }
  | { kind: "deletePolicy"; policy: number }
  | { kind: "entitlementRisk"; ent: number; risk: string }
  | { kind: "user"; task: number; role: UserRole; field: "status" | "delegate" | "email" | "managers" | "department" | "remove" | "add"; other: number }
  | { kind: "appOwners"; app: number; user: number }
  | { kind: "entitlementOwners"; ent: number; user: number };

/** A user as a task of the world relates to it. */
type UserRole = "subject" | "manager" | "managerDelegate" | "appOwner" | "entitlementOwner" | "stepUser" | "fallbackUser" | "u-3";
const USER_ROLES: readonly UserRole[] = ["subject", "manager", "managerDelegate", "appOwner", "entitlementOwner", "stepUser", "fallbackUser", "u-3"];

function arbDirectoryEdit(): fc.Arbitrary<EditSpec> {
  return fc.oneof(
    fc.record({
      kind: fc.constant("user" as const),
      task: fc.nat(30),
      role: fc.constantFrom(...USER_ROLES),
      field: fc.constantFrom("status" as const, "delegate" as const, "email" as const, "managers" as const, "department" as const, "remove" as const, "add" as const),
      other: fc.nat(60),
    }),
    fc.record({ kind: fc.constant("appOwners" as const), app: fc.nat(20), user: fc.nat(60) }),
    fc.record({ kind: fc.constant("entitlementOwners" as const), ent: fc.nat(200), user: fc.nat(60) }),
  );
}

const arbEditSpec: fc.Arbitrary<EditSpec> = fc.oneof(
  arbPolicyMutation.map((mutation) => ({ kind: "mutation" as const, mutation })),
  fc.record({ kind: fc.constant("entitlementPolicy" as const), ent: fc.nat(200), policy: fc.option(fc.nat(40), { nil: null }) }),
  fc.record({ kind: fc.constant("appPolicy" as const), app: fc.nat(20), policy: fc.option(fc.nat(40), { nil: null }) }),
  fc.record({ kind: fc.constant("tenantDefault" as const), policy: fc.option(fc.nat(40), { nil: null }) }),
  fc.record({ kind: fc.constant("userDepartment" as const), user: fc.nat(60), department: fc.constantFrom("Engineering", "Security", "Legal") }),
  fc.record({ kind: fc.constant("flag" as const), on: fc.boolean() }),
  // The CEL budget (what-if review 2: an edit of it was pruned away, 39k re-routes at 100k reported as none).
  fc.record({ kind: fc.constant("costLimit" as const), limit: fc.constantFrom(3, 8, 20, 1_000_000) }),
  fc.record({ kind: fc.constant("deletePolicy" as const), policy: fc.nat(40) }),
  fc.record({ kind: fc.constant("entitlementRisk" as const), ent: fc.nat(200), risk: fc.constantFrom("low", "critical") }),
  arbDirectoryEdit(),
);

/**
 * What a generated world is given before the edit, so that every channel a decision reads the
 * directory through is exercised: conditions calling `c1.directory.*` or showing the subject's
 * manager, first steps approved by every kind of approver (with delegation and fallbacks), users
 * who delegate.
 */
type SetupSpec =
  | { kind: "condition"; policy: number; rule: number; condition: number }
  | { kind: "approval"; policy: number; approvers: number; users: [number, number]; delegation: boolean; fallback: boolean }
  | { kind: "delegation"; task: number; role: UserRole; to: number }
  | { kind: "referencesOff" };

const DIRECTORY_CONDITIONS = [
  'c1.directory.users.v1.GetByID("u-3").status == UserStatus.ENABLED',
  "c1.directory.users.v1.GetManagers(subject).exists(m, m.status == UserStatus.ENABLED)",
  'subject.manager.contains("renamed")',
  "c1.directory.users.v1.DirectReports(subject).size() > 0",
  'c1.directory.apps.v1.GetEntitlementOwners("app-0", "ent-0").exists(o, o.department == "Security")',
  'c1.directory.users.v1.GetByID("u-3").department == "Security"',
  'c1.user.v1.HasEntitlement(subject, "app-0", "ent-breakglass-0")',
] as const;

const arbSetupSpec: fc.Arbitrary<SetupSpec> = fc.oneof(
  fc.record({ kind: fc.constant("condition" as const), policy: fc.nat(40), rule: fc.nat(2), condition: fc.nat(DIRECTORY_CONDITIONS.length - 1) }),
  fc.record({
    kind: fc.constant("approval" as const),
    policy: fc.nat(40),
    approvers: fc.nat(7),
    users: fc.tuple(fc.nat(60), fc.nat(60)),
    delegation: fc.boolean(),
    fallback: fc.boolean(),
  }),
  fc.record({ kind: fc.constant("delegation" as const), task: fc.nat(30), role: fc.constantFrom(...USER_ROLES), to: fc.nat(60) }),
  fc.constant({ kind: "referencesOff" as const }),
);

function approversFor(world: World, spec: Extract<SetupSpec, { kind: "approval" }>): ApproverKind {
  const uid = (i: number) => at(world.users, i)?.id ?? "";
  const ent = world.entitlements[0];
  const fb = {
    fallback: spec.fallback,
    fallbackUserIds: [uid(spec.users[1])],
    fallbackGroupIds: ent ? [{ appId: ent.appId, appEntitlementId: ent.id }] : [],
    isGroupFallbackEnabled: spec.fallback,
  };
  const common = { allowSelfApproval: false, requireDistinctApprovers: false };
  switch (spec.approvers) {
    case 0:
      return { kind: "users", ...common, userIds: [uid(spec.users[0]), uid(spec.users[1])] };
    case 1:
      return { kind: "manager", ...common, ...fb, assignedUserIds: [] };
    case 2:
      return { kind: "appOwners", ...common };
    case 3:
      return { kind: "entitlementOwners", ...common, ...fb };
    case 4:
      return { kind: "self", ...fb, assignedUserIds: [] };
    case 5:
      return { kind: "expression", ...common, ...fb, assignedUserIds: [], expressions: ["c1.directory.users.v1.GetManagers(subject)"] };
    case 6:
      return { kind: "expression", ...common, ...fb, assignedUserIds: [], expressions: ["appOwners", "subject"] };
    default:
      return { kind: "group", ...common, ...fb, appGroupId: "grp-none", appId: "" };
  }
}

function applySetup(world: World, spec: SetupSpec): World {
  switch (spec.kind) {
    case "condition": {
      const p = at(world.policies, spec.policy);
      const rules = p?.rules ?? [];
      if (!p || rules.length === 0) return world;
      const i = spec.rule % rules.length;
      const condition = DIRECTORY_CONDITIONS[spec.condition % DIRECTORY_CONDITIONS.length] ?? "true";
      return replaceInWorld(world, { policies: [{ ...p, rules: rules.map((r, j) => (j === i ? { ...r, condition } : r)) }] });
    }
    case "approval": {
      // Every step sequence of the policy starts with the approval, whichever is selected.
      const p = at(world.policies, spec.policy);
      const template = [...world.policies]
        .flatMap((q) => Object.values(q.policySteps ?? {}).flatMap((e) => e?.steps ?? []))
        .find((s): s is Extract<PolicyStep, { kind: "approval" }> => s.kind === "approval");
      if (!p || !template) return world;
      const step: PolicyStep = { ...template, allowDelegation: spec.delegation, approvers: approversFor(world, spec) };
      const policySteps = Object.fromEntries(
        Object.entries(p.policySteps ?? {}).map(([k, e]) => [k, e && { ...e, steps: [step, ...(e.steps ?? []).slice(1)] }]),
      );
      return replaceInWorld(world, { policies: [{ ...p, policySteps }] });
    }
    case "referencesOff":
      return replaceInWorld(world, { tenant: { ...world.tenant, featureFlags: { ...world.tenant.featureFlags, POLICY_REFERENCES_POLICY: false } } });
    case "delegation": {
      const u = world.index.users.get(userInRole(world, spec.task, spec.role));
      const to = at(world.users, spec.to);
      return u && to ? replaceInWorld(world, { users: [{ ...u, delegatedUserId: to.id }] }) : world;
    }
  }
}

const at = <T>(xs: readonly T[], i: number): T | undefined => xs[i % Math.max(1, xs.length)];

/** The user in `role` for the `task`-th task, so that directory edits touch what some task reads. */
function userInRole(world: World, task: number, role: UserRole): string {
  const t = at([...world.tasks.values()], task);
  const subject = t ? world.index.users.get(taskSubjectId(t)) : undefined;
  const ent = t?.type && "appEntitlementId" in t.type ? world.index.entitlements.get(`${t.type.appId}\u0000${t.type.appEntitlementId}`) : undefined;
  const app = t?.type && "appId" in t.type ? world.index.apps.get(t.type.appId) : undefined;
  const manager = subject?.managerIds[0] ?? "";
  switch (role) {
    case "subject":
      return subject?.id ?? "";
    case "manager":
      return manager;
    case "managerDelegate":
      return world.index.users.get(manager)?.delegatedUserId || manager;
    case "appOwner":
      return app?.ownerUserIds[0] ?? "";
    case "entitlementOwner":
      return ent?.ownerUserIds[0] ?? "";
    case "stepUser": {
      for (const p of world.policies)
        for (const entry of Object.values(p.policySteps ?? {})) {
          const k = entry?.steps?.[0]?.kind === "approval" ? entry.steps[0].approvers : null;
          if (k?.kind === "users" && k.userIds?.[0]) return k.userIds[task % k.userIds.length] ?? "";
        }
      return "";
    }
    case "fallbackUser": {
      for (const p of world.policies)
        for (const entry of Object.values(p.policySteps ?? {})) {
          const k = entry?.steps?.[0]?.kind === "approval" ? entry.steps[0].approvers : null;
          if (k && "fallbackUserIds" in k && k.fallback && k.fallbackUserIds?.[0]) return k.fallbackUserIds[0];
        }
      return "";
    }
    case "u-3":
      return "u-3";
  }
}

function editOf(world: World, spec: EditSpec): WorldEdit {
  const policyId = (i: number | null) => (i === null ? "" : (at(world.policies, i)?.id ?? ""));
  switch (spec.kind) {
    case "mutation": {
      const mutated = applyPolicyMutation(world, spec.mutation);
      return { policies: mutated.policies.filter((p) => world.index.policies.get(p.id) !== p) } satisfies WorldPatch;
    }
    case "entitlementPolicy":
      return (w) => {
        const e = at(w.entitlements, spec.ent);
        if (e) e.grantPolicyId = policyId(spec.policy);
      };
    case "appPolicy":
      return (w) => {
        const a = at(w.apps, spec.app);
        if (a) a.grantPolicyId = policyId(spec.policy);
      };
    case "tenantDefault":
      return (w) => {
        w.tenant.defaultPolicies["grant"] = policyId(spec.policy);
      };
    case "userDepartment":
      return (w) => {
        const u = at(w.users, spec.user);
        if (u) u.department = spec.department;
      };
    case "flag":
      return (w) => {
        w.tenant.featureFlags["POLICY_REFERENCES_POLICY"] = spec.on;
      };
    case "costLimit":
      return (w) => {
        w.tenant.celCostLimit = spec.limit;
      };
    case "deletePolicy":
      return (w) => {
        w.policies.splice(spec.policy % Math.max(1, w.policies.length), 1);
      };
    case "entitlementRisk":
      return (w) => {
        const e = at(w.entitlements, spec.ent);
        if (e) e.riskLevelValueId = spec.risk;
      };
    case "user": {
      const id = userInRole(world, spec.task, spec.role);
      return (w) => {
        const i = w.users.findIndex((x) => x.id === id);
        const u = w.users[i];
        const other = at(w.users, spec.other);
        if (!u || !other) return;
        switch (spec.field) {
          case "status":
            u.status = u.status === "DISABLED" ? "ENABLED" : "DISABLED";
            break;
          case "delegate":
            u.delegatedUserId = u.delegatedUserId === other.id ? "" : other.id;
            break;
          case "email":
            u.email = `renamed-${u.email}`;
            break;
          case "managers":
            u.managerIds = [other.id];
            break;
          case "department":
            u.department = u.department === "Security" ? "Engineering" : "Security";
            break;
          case "remove":
            w.users.splice(i, 1);
            break;
          case "add":
            w.users.push({ ...JSON.parse(JSON.stringify(u)), id: "u-added", email: "added@synthetic.example", emails: [] });
            break;
        }
      };
    }
    case "appOwners":
      return (w) => {
        const a = at(w.apps, spec.app);
        const u = at(w.users, spec.user);
        if (a && u) a.ownerUserIds = [u.id];
      };
    case "entitlementOwners":
      return (w) => {
        const e = at(w.entitlements, spec.ent);
        const u = at(w.users, spec.user);
        if (e && u) e.ownerUserIds = [u.id];
      };
  }
}

describe("whatIf on the sample tenant", () => {
  it("an empty edit changes nothing, whatever its form", () => {
    const copies: WorldPatch = { policies: sample.policies.map((p) => ({ ...p })), users: sample.users.map((u) => ({ ...u })) };
    for (const edit of [{}, () => {}, copies] satisfies WorldEdit[]) {
      const r = run(sample, edit);
      expect(r.changed).toEqual([]);
      expect(r.summary).toEqual([]);
      expect(r.counts.unchanged + r.counts.unchangedErrors).toBe(sample.tasks.size);
      expect(r.edit.policies).toEqual([]);
    }
  });

  it("a smaller CEL budget (tenant.celCostLimit) re-routes the tasks whose rules now run out, as decide says (what-if review 2: reported as no change)", () => {
    const { pruned } = prunedAgrees(sample, (w) => {
      w.tenant.celCostLimit = 3;
    });
    expect(pruned.counts.changed).toBeGreaterThan(0);
    expect(pruned.edit.conditionsMayChange).toBe(true);
    // And back: the budget raised again restores every route.
    const lowered = applyEdit(sample, { tenant: { ...sample.tenant, celCostLimit: 3 } });
    expect(run(lowered, { tenant: sample.tenant }).counts.changed).toBe(pruned.counts.changed);
  });

  it("removing a rule moves exactly the tasks it decided, and names what changed", () => {
    const r = run(sample, (w) => {
      w.policies.find((p) => p.id === "pol-prod-admin")?.rules?.splice(2, 1);
    });
    expect(r.changed.map((c) => c.numericId)).toEqual(["1001"]);
    const [c] = r.changed;
    expect(c?.changes).toEqual(["chain", "decidedBy", "steps", "approvers"]);
    expect(c?.after).toMatchObject({ kind: "route", decidedBy: { policyId: "pol-security-review", ruleIndex: 0 } });
    expect(r.summary).toHaveLength(1);
    expect(r.summary[0]).toMatchObject({ count: 1, before: expect.stringContaining("rule #2"), changes: c?.changes });
    expect(r.edit).toMatchObject({ policies: ["pol-prod-admin"], conditionsMayChange: false });
    // Only the tasks under pol-prod-admin (and nothing that cannot fail) were decided.
    expect(r.stats.pruned).toBeGreaterThan(40);
    checkAgainstDecide(sample, applyEdit(sample, (w) => void w.policies.find((p) => p.id === "pol-prod-admin")?.rules?.splice(2, 1)), r);
  });

  it("an edit the service would refuse to save (a condition that does not check) says so, in the result and in formatWhatIf", () => {
    const broken = run(sample, (w) => {
      const rule = w.policies.find((p) => p.id === "pol-prod-admin")?.rules?.[2];
      if (rule) rule.condition = "subject.employmentTyp == 'Contractor'";
    });
    expect(broken.edit.saveErrors).toEqual([expect.objectContaining({ policyId: "pol-prod-admin", path: "$.rules[2].condition", code: expect.stringMatching(/^CEL_/) })]);
    expect(formatWhatIf(broken)).toContain("Warning: the service would refuse to save this edit (1 error)");
    expect(formatWhatIf(broken)).toContain("pol-prod-admin CEL_");
    // A sound edit has none.
    expect(run(sample, (w) => void w.policies.find((p) => p.id === "pol-prod-admin")?.rules?.splice(2, 1)).edit.saveErrors).toEqual([]);
  });

  it("deleting a policy that is in use is an edit the service would refuse (product_admin_policies.mdx: \"You can't delete a policy that's in use\")", () => {
    const deleted = run(sample, (w) => void (w.policies = w.policies.filter((p) => p.id !== "pol-prod-admin-eng")));
    expect(deleted.edit.saveErrors).toEqual([
      { policyId: "pol-prod-admin-eng", code: "POLICY_IN_USE", path: "$", message: expect.stringContaining('policy "pol-prod-admin" refers to it') as unknown },
    ]);
    expect(formatWhatIf(deleted)).toContain("Warning: the service would refuse to save this edit (1 error)");
    // Every policy something names (or a built-in one) is refused: the tenant's default grant policy among them.
    const inUse = sample.policies.map((p) => p.id).filter((id) => run(sample, (w) => void (w.policies = w.policies.filter((p) => p.id !== id))).edit.saveErrors.length > 0);
    expect(inUse).toContain("pol-default-grant");
    // A policy nothing names deletes cleanly; so does one whose last user the same edit moves away.
    const unused = sample.policies.find((p) => !p.systemBuiltin && !inUse.includes(p.id));
    if (unused) expect(run(sample, (w) => void (w.policies = w.policies.filter((p) => p.id !== unused.id))).edit.saveErrors).toEqual([]);
    const moved = run(sample, (w) => {
      w.policies = w.policies.filter((p) => p.id !== "pol-prod-admin-eng");
      for (const r of w.policies.find((p) => p.id === "pol-prod-admin")?.rules ?? []) if (r.policyId === "pol-prod-admin-eng") r.policyId = "pol-prod-admin";
    });
    expect(moved.edit.saveErrors.filter((e) => e.code === "POLICY_IN_USE")).toEqual([]);
  });

  it("a setting the edit points at a policy that exists nowhere is an error; one the world already had dangling is not the edit's", () => {
    const r = run(sample, (w) => void (w.tenant.defaultPolicies["grant"] = "pol-does-not-exist"));
    expect(r.edit.saveErrors).toEqual([
      { policyId: "pol-does-not-exist", code: "UNKNOWN_POLICY", path: "$", message: "the tenant's default grant policy names policy \"pol-does-not-exist\", which does not exist: the service would not save a setting that names no policy" },
    ]);
    const app = run(sample, (w) => void Object.assign(w.apps.find((a) => a.id === "app-aws") ?? {}, { revokePolicyId: "pol-typo" }));
    expect(app.edit.saveErrors.map((e) => [e.code, e.policyId])).toEqual([["UNKNOWN_POLICY", "pol-typo"]]);
    // A configuration rule the edit adds is a setting too (diff review).
    const rule = {
      id: "rule-typo", appId: "app-github", displayName: "typo", description: "", condition: "true", enabled: true, priority: 1,
      settings: { requestPolicyId: "pol-typo", emergencyGrantEnabled: false, emergencyGrantPolicyId: "", maxGrantDuration: null, requestSchemaId: "" },
    };
    const viaRule = run(sample, { entitlementConfigurationRules: [rule] as never });
    expect(viaRule.edit.saveErrors.map((e) => [e.code, e.policyId, e.message])).toEqual([
      ["UNKNOWN_POLICY", "pol-typo", 'configuration rule "rule-typo" of app "app-github" (requestPolicyId) names policy "pol-typo", which does not exist: the service would not save a setting that names no policy'],
    ]);
    const dangling = replaceInWorld(sample, { tenant: { ...sample.tenant, defaultPolicies: { ...sample.tenant.defaultPolicies, finding: "pol-gone" } } });
    expect(run(dangling, (w) => void (w.tenant.defaultPolicies["grant"] = "pol-prod-admin")).edit.saveErrors).toEqual([]);
  });

  it("a user status written with the API's USER_STATUS_ prefix reads as a world file reads it", () => {
    const prefixed = run(sample, (w) => void Object.assign(w.users.find((u) => u.id === "u-sre-lead") ?? {}, { status: "USER_STATUS_DISABLED" }));
    const bare = run(sample, (w) => void Object.assign(w.users.find((u) => u.id === "u-sre-lead") ?? {}, { status: "DISABLED" }));
    expect(prefixed.counts.changed).toBeGreaterThan(0);
    expect(prefixed.changed).toEqual(bare.changed);
  });

  it("defaults to open tasks and honours every scope filter", () => {
    const open = [...sample.tasks.values()].filter((t) => t.state === "TASK_STATE_OPEN").length;
    expect(run(sample, {}, {}).counts.inScope).toBe(open);
    expect(run(sample, {}, { scope: { states: "any", types: ["revoke"] } }).counts.inScope).toBe(9);
    expect(run(sample, {}, { scope: { states: "any", appIds: ["app-okta"] } }).counts.inScope).toBe(
      [...sample.tasks.values()].filter((t) => t.type && "appId" in t.type && t.type.appId === "app-okta").length,
    );
    expect(run(sample, {}, { scope: { states: "any", entitlements: [{ appId: "app-aws", id: "ent-aws-prod-admin" }] } }).counts.inScope).toBe(
      [...sample.tasks.values()].filter((t) => t.type && "appEntitlementId" in t.type && t.type.appEntitlementId === "ent-aws-prod-admin").length,
    );
    const byIds = run(sample, {}, { scope: { states: "any", taskIds: ["1001", findTask(sample, "1002")!.id] } });
    expect(byIds.counts.inScope).toBe(2);
  });

  it("lists tasks whose selection breaks, with the error, and keeps listing them while they stay broken", () => {
    // pol-security-review now refers back to pol-prod-admin: task 1003's chain becomes a cycle.
    const cyclic: WorldEdit = (w) => {
      const p = w.policies.find((x) => x.id === "pol-security-review");
      const rule = p?.rules?.[0];
      if (rule) {
        rule.stepKey = "";
        rule.policyId = "pol-prod-admin";
      }
    };
    const r = run(sample, cyclic);
    const c = r.changed.find((x) => x.numericId === "1003");
    expect(c?.after).toMatchObject({ kind: "error", stage: "selection", code: "CYCLE" });
    expect(c?.changes).toEqual(["error"]);
    expect(r.summary.some((g) => g.after === "error CYCLE in pol-prod-admin")).toBe(true);

    // In the broken world, an edit that does not touch the cycle still lists the broken task.
    const broken = applyEdit(sample, cyclic);
    const again = run(broken, (w) => {
      const p = w.policies.find((x) => x.id === "pol-finance-form");
      if (p) p.description = "edited";
    });
    expect(again.changed).toEqual([]);
    expect(again.unchangedErrors.map((x) => x.numericId)).toEqual(["1003"]);
    expect(again.unchangedErrors[0]?.before).toEqual(again.unchangedErrors[0]?.after);
    expect(again.counts.unchangedErrors).toBe(1);
  });

  it("handles a recipe that deletes a policy (tasks fall through to the next source)", () => {
    const r = run(sample, (w) => {
      const i = w.policies.findIndex((p) => p.id === "pol-finance-form");
      w.policies.splice(i, 1);
    });
    expect(r.edit.policies).toEqual(["pol-finance-form"]);
    const c = r.changed.find((x) => x.numericId === "1012");
    expect(c?.before).toMatchObject({ policyId: "pol-finance-form", source: "entitlement" });
    expect(c?.after).toMatchObject({ kind: "route", source: "app" });
  });

  it("routes an entitlement to another policy (a routing-only edit still prunes)", () => {
    const r = run(sample, (w) => {
      const e = w.entitlements.find((x) => x.id === "ent-aws-staging-admin");
      if (e) e.grantPolicyId = "pol-prod-admin";
    });
    expect(r.edit).toMatchObject({ entitlements: ["app-aws/ent-aws-staging-admin"], conditionsMayChange: false });
    expect(r.stats.pruned).toBeGreaterThan(0);
  });

  it("recomputes approvers when the directory changes", () => {
    // u-eng-mgr stops delegating: the manager approval of their reports goes to them again.
    const r = run(sample, (w) => {
      const u = w.users.find((x) => x.id === "u-eng-mgr");
      if (u) u.delegatedUserId = "";
    });
    expect(r.edit.conditionsMayChange).toBe(true);
    // Only the tasks whose conditions or approvers can see u-eng-mgr are decided.
    expect(r.stats.pruned).toBeGreaterThan(0);
    const c = r.changed.find((x) => x.numericId === "1028");
    expect(c?.changes).toEqual(["approvers"]);
    expect(c?.after).toMatchObject({ approvers: { userIds: ["u-eng-mgr"] } });
  });

  it("never throws: a recipe that throws is INVALID_ARGUMENT", () => {
    const r = whatIf(sample, () => {
      throw new Error("boom");
    });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringContaining("boom") });
  });

  it("a recipe that throws a plain object or a symbol is told by its value, not as \"an object\" (embedder review)", () => {
    const plain = whatIf(sample, () => {
      throw { code: "E_QUOTA", detail: "over" };
    });
    expect(!plain.ok && plain.error.message).toBe('the edit failed: {"code":"E_QUOTA","detail":"over"}');
    const symbol = whatIf(sample, () => {
      throw Symbol("no-edit");
    });
    expect(!symbol.ok && symbol.error.message).toBe("the edit failed: Symbol(no-edit)");
    const cyclic: Record<string, unknown> = {};
    cyclic["self"] = cyclic;
    const c = whatIf(sample, () => {
      throw cyclic;
    });
    expect(!c.ok && c.error.code).toBe("INVALID_ARGUMENT");
  });

  it("an async recipe is refused as one, saying a recipe must be synchronous, and its late rejection is absorbed (embedder review)", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on("unhandledRejection", onUnhandled);
    try {
      const r = whatIf(sample, (async (w: { policies: unknown[] }) => {
        await Promise.resolve();
        // Meets a revoked draft: this throws, after whatIf has returned.
        w.policies.splice(0, 1);
      }) as never);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.message).toMatch(/^the edit failed: it returned a Promise: a recipe must be synchronous/);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("a patch may hold a policy as world.json or the API writes it (steps as { approval: … }): read as loadWorld reads it (embedder review)", () => {
    const wire = (sampleJson().policies as { id: string }[]).find((p) => p.id === "pol-prod-admin") as Record<string, unknown>;
    // Unchanged, it changes nothing; it was refused as ill-typed.
    const same = run(sample, { policies: [structuredClone(wire)] as never });
    expect(same.counts.changed).toBe(0);
    // Edited in the API's form, it routes as the same edit in the library's form.
    const edited = structuredClone(wire) as { rules: { condition: string }[] };
    (edited.rules[2] as { condition: string }).condition = "false";
    const asWire = run(sample, { policies: [edited] as never });
    const asModel = run(sample, (w) => void Object.assign(w.policies.find((p) => p.id === "pol-prod-admin")?.rules?.[2] ?? {}, { condition: "false" }));
    expect(asWire.counts.changed).toBeGreaterThan(0);
    expect(asWire.changed).toEqual(asModel.changed);
  });

  it("a celCostLimit the edit sets above the cap is warned of as a load warns of it (embedder review)", () => {
    const r = run(sample, (w) => void (w.tenant.celCostLimit = 50_000_000));
    expect(r.edit.warnings).toEqual([
      { code: "CEL_COST_LIMIT_CAPPED", path: "edit.tenant.celCostLimit", message: expect.stringContaining("celCostLimit 50,000,000 is above the simulation's cap of 10,000,000 units") as unknown },
    ]);
    expect(run(sample, (w) => void (w.tenant.celCostLimit = 2_000_000)).edit.warnings).toEqual([]);
    // A world that already asked for it was warned when it loaded; an edit of another tenant setting is not blamed (diff review).
    const capped = replaceInWorld(sample, { tenant: { ...sample.tenant, celCostLimit: 50_000_000 } });
    expect(run(capped, (w) => void (w.tenant.defaultPolicies["finding"] = "pol-finding-triage")).edit.warnings).toEqual([]);
  });

  it("an escalation's expiration written as openapi.yaml's int64 seconds (\"86400\", what serve answers and a pull keeps) and as the spec's duration (\"86400s\") is the same time: no change (e2e review)", () => {
    const json = sampleJson() as { policies: Record<string, unknown>[] };
    const wire = json.policies.find((p) => p["id"] === "pol-prod-admin") as { policySteps: Record<string, { steps: { approval?: { escalation?: { expiration: string } } }[] }> };
    const asPulled = structuredClone(wire);
    let rewritten = 0;
    for (const seq of Object.values(asPulled.policySteps))
      for (const step of seq.steps) {
        const e = step.approval?.escalation;
        if (e && e.expiration.endsWith("s")) {
          e.expiration = e.expiration.slice(0, -1);
          rewritten++;
        }
      }
    expect(rewritten).toBeGreaterThan(0);
    const pulled = run(sample, { policies: [asPulled] as never });
    // The world now holds "86400"; the file's policy, unchanged, says "86400s".
    const pulledWorld = applyEdit(sample, { policies: [asPulled] as never });
    const back = run(pulledWorld, { policies: [structuredClone(wire)] as never });
    expect([pulled.counts.changed, back.counts.changed]).toEqual([0, 0]);
    // A different time is still a change.
    const later = structuredClone(wire);
    const esc = Object.values(later.policySteps).flatMap((q) => q.steps).find((x) => x.approval?.escalation)?.approval?.escalation;
    if (esc) esc.expiration = "90000s";
    expect(run(pulledWorld, { policies: [later] as never }).counts.changed).toBeGreaterThan(0);
  });

  it("leaves the world untouched", () => {
    const before = JSON.stringify(saveWorld(sample));
    run(sample, (w) => {
      w.policies[0]!.rules = [];
      w.users[0]!.department = "Nowhere";
      w.tenant.defaultPolicies["grant"] = "";
    });
    expect(JSON.stringify(saveWorld(sample))).toBe(before);
  });

  it("renders as text", () => {
    const text = formatWhatIf(run(sample, (w) => void w.policies.find((p) => p.id === "pol-prod-admin")?.rules?.splice(2, 1)));
    expect(text).toContain("Edit: policies pol-prod-admin");
    expect(text).toContain("1 change");
    expect(text).toContain("1001");
    expect(text).toContain("before: pol-prod-admin (entitlement): rule #2");
  });

  it("reports progress every 1,024 tasks and at the end", () => {
    const big = worldFromRecipe({ seed: 3, tasks: 2500, rulesPerPolicy: 2, policies: 2, matchAt: "mixed", mutations: [] });
    const calls: [number, number][] = [];
    run(big, {}, { onProgress: (done, total) => calls.push([done, total]) });
    expect(calls).toEqual([
      [1024, 2500],
      [2048, 2500],
      [2500, 2500],
    ]);
  });

  it("whatIfWorlds compares two worlds as whatIf compares a world and its edit", () => {
    const edit: WorldEdit = (w) => void w.policies.find((p) => p.id === "pol-okta-groups")?.rules?.reverse();
    const a = whatIf(sample, edit, ANY);
    const b = whatIfWorlds(sample, applyEdit(sample, edit), ANY);
    expect(a).toEqual(b);
  });
});

describe("policy reach", () => {
  it("follows references and says whether selection can fail", () => {
    const admin = sample.index.policies.get("pol-prod-admin")!;
    const reach = policyReach(sample, admin);
    expect([...reach.ids].sort()).toEqual(["pol-prod-admin", "pol-prod-admin-eng", "pol-security-review"]);
    expect(reach.sound).toBe(true);
    const cyclic = replaceInWorld(sample, { policies: [{ ...sample.index.policies.get("pol-security-review")!, baselinePolicyId: "pol-prod-admin" }] });
    expect(policyReach(cyclic, admin).sound).toBe(false);
  });
});

describe("whatIf properties over generated worlds", () => {
  const arbCase = fc.tuple(arbWorldRecipe({ maxTasks: 25, maxRules: 6, maxPolicies: 4, maxMutations: 3 }), arbEditSpec);
  const arbSetups = fc.array(arbSetupSpec, { minLength: 1, maxLength: 6 });

  it("pruned and unpruned runs agree, and both agree with decide() task by task", () => {
    fc.assert(
      fc.property(arbCase, arbSetups, ([recipe, spec], setups) => {
        const world = setups.reduce(applySetup, worldFromRecipe(recipe));
        const { plain } = prunedAgrees(world, editOf(world, spec));
        expect(plain.stats.pruned).toBe(0);
      }),
      { numRuns: 150 },
    );
  });

  it("directory edits prune only what provably cannot change (pruned and unpruned agree)", () => {
    fc.assert(
      fc.property(arbWorldRecipe({ maxTasks: 20, maxRules: 4, maxPolicies: 3, maxMutations: 1 }), arbSetups, arbDirectoryEdit(), (recipe, setups, spec) => {
        const world = setups.reduce(applySetup, worldFromRecipe(recipe));
        prunedAgrees(world, editOf(world, spec));
      }),
      { numRuns: 200 },
    );
  });

  it("every channel of a decision's directory footprint is seen: one edit each, pruned and unpruned agree and the change is found", () => {
    const base = worldFromRecipe({ seed: 11, tasks: 12, rulesPerPolicy: 3, policies: 1, matchAt: "mixed", mutations: [] });
    const policy = base.policies.findIndex((p) => p.id === "pol-grant-0");
    const task = [...base.tasks.values()].find((t) => t.type?.kind === "grant" && decide(base, t).resolution.ok && (decide(base, t).resolution as { value: { policy: { id: string } } }).value.policy.id === "pol-grant-0");
    expect(task).toBeDefined();
    const t = [...base.tasks.values()].indexOf(task!);
    const approval = (approvers: number, delegation: boolean, fallback: boolean): SetupSpec => ({ kind: "approval", policy, approvers, users: [t, t], delegation, fallback });
    const edit = (role: UserRole, field: Extract<EditSpec, { kind: "user" }>["field"]): EditSpec => ({ kind: "user", task: t, role, field, other: 0 });
    const cases: [string, SetupSpec[], EditSpec][] = [
      ["the subject's first manager's email (subject.manager)", [{ kind: "condition", policy, rule: 0, condition: 2 }], edit("manager", "email")],
      ["a manager's delegate (manager approval with delegation)", [approval(1, true, false), { kind: "delegation", task: t, role: "manager", to: 3 }], edit("managerDelegate", "status")],
      ["a manager (manager approval)", [approval(1, false, false)], edit("manager", "status")],
      ["a fallback user (a group of nobody)", [approval(7, false, true)], edit("fallbackUser", "status")],
      ["an app owner", [approval(2, false, false)], edit("appOwner", "status")],
      ["a listed user", [approval(0, false, false)], edit("stepUser", "status")],
      ["the managers an expression returns", [approval(5, false, false)], edit("manager", "status")],
      ["a directory condition", [{ kind: "condition", policy, rule: 0, condition: 0 }], edit("u-3", "status")],
    ];
    for (const [name, setups, spec] of cases) {
      const world = setups.reduce(applySetup, base);
      const e = editOf(world, spec);
      const pruned = run(world, e, ANY);
      const plain = run(world, e, { ...ANY, prune: false });
      expect(outcome(pruned), name).toEqual(outcome(plain));
      expect(plain.counts.changed, name).toBeGreaterThan(0);
      checkAgainstDecide(world, applyEdit(world, e), pruned);
    }
  });

  it("a rule both versions share is passed over alike when the flag is off: the edited rule after it still counts", () => {
    let world = worldFromRecipe({ seed: 5, tasks: 12, rulesPerPolicy: 3, policies: 2, matchAt: "mixed", mutations: [] });
    const p = world.index.policies.get("pol-grant-0")!;
    const rules = p.rules!;
    // Rule 0 matches every task and refers to pol-grant-1: with the flag off it is passed over.
    world = replaceInWorld(world, {
      policies: [{ ...p, rules: [{ ...rules[0]!, condition: "true", stepKey: "", policyId: "pol-grant-1" }, ...rules.slice(1)] }],
      tenant: { ...world.tenant, featureFlags: { ...world.tenant.featureFlags, POLICY_REFERENCES_POLICY: false } },
    });
    const edit: WorldEdit = (w) => {
      const q = w.policies.find((x) => x.id === "pol-grant-0")!;
      q.rules![1]!.condition = "true";
    };
    const { plain } = prunedAgrees(world, edit);
    expect(plain.counts.changed).toBeGreaterThan(0);
  });

  it("worlds that differ in grants or groups (whatIfWorlds): pruned and unpruned agree", () => {
    let changing = 0;
    fc.assert(
      fc.property(arbWorldRecipe({ maxTasks: 15, maxRules: 4, maxPolicies: 2, maxMutations: 1 }), arbSetups, fc.nat(30), fc.boolean(), (recipe, setups, ti, grant) => {
        // Rule 0 of every policy tests a grant, and every step sequence of every policy starts with a
        // group's approval, so that the differences below reach what decisions read.
        const base = setups.reduce(applySetup, worldFromRecipe(recipe));
        const world = base.policies.reduce(
          (w, _p, i) =>
            applySetup(
              applySetup(w, { kind: "approval", policy: i, approvers: 7, users: [0, 0], delegation: false, fallback: false }),
              { kind: "condition", policy: i, rule: 0, condition: DIRECTORY_CONDITIONS.indexOf('c1.user.v1.HasEntitlement(subject, "app-0", "ent-breakglass-0")') },
            ),
          base,
        );
        const subject = userInRole(world, ti, "subject");
        // A grant of the break-glass entitlements nobody holds, or the group the approvals name.
        const parts = grant
          ? { grants: [...world.grants, ...world.apps.map((a) => ({ appId: a.id, appEntitlementId: `ent-breakglass-${a.id.slice(4)}`, identityUserId: subject, source: "direct" as const }))] }
          : { groups: [...world.groups, { id: "grp-none", appId: "", displayName: "None", memberUserIds: [subject, "u-3"] }] };
        const after: World = Object.freeze({ ...world, ...parts, index: buildIndex({ ...world, ...parts }) });
        const pruned = whatIfWorlds(world, after, ANY);
        const plain = whatIfWorlds(world, after, { ...ANY, prune: false });
        if (!pruned.ok || !plain.ok) throw new Error("whatIfWorlds failed");
        expect(outcome(pruned.value)).toEqual(outcome(plain.value));
        checkAgainstDecide(world, after, pruned.value);
        if (plain.value.counts.changed > 0) changing++;
      }),
      { numRuns: 60 },
    );
    // The generated differences do re-route tasks, often enough for the comparison to mean something.
    expect(changing).toBeGreaterThan(5);
  });

  it("is deterministic", () => {
    fc.assert(
      fc.property(arbCase, ([recipe, spec]) => {
        const a = run(worldFromRecipe(recipe), editOf(worldFromRecipe(recipe), spec));
        const b = run(worldFromRecipe(recipe), editOf(worldFromRecipe(recipe), spec));
        expect(JSON.stringify(a)).toBe(JSON.stringify(b));
      }),
      { numRuns: 20 },
    );
  });

  it("tasks whose conditions see the same values share their results (signatures): pruned and unpruned agree on edits that walk whole policies", () => {
    // Many tasks on few users and entitlements, so that signatures repeat; edits whose changed prefix is
    // long or whose policy changes, the two cases in which results are shared by signature.
    const edits: Record<string, (world: World) => WorldEdit> = {
      "last rule negated": () => (w) => {
        for (const p of w.policies) {
          const last = p.rules?.[p.rules.length - 1];
          if (p.policyType === "POLICY_TYPE_GRANT" && last) last.condition = `!(${last.condition})`;
        }
      },
      "first and last rules swapped": () => (w) => {
        for (const p of w.policies) {
          const rules = p.rules;
          if (p.policyType === "POLICY_TYPE_GRANT" && rules && rules.length > 1) [rules[0], rules[rules.length - 1]] = [rules[rules.length - 1]!, rules[0]!];
        }
      },
      "entitlements re-routed": (world) => {
        const grants = world.policies.filter((p) => p.policyType === "POLICY_TYPE_GRANT").map((p) => p.id);
        return (w) => {
          w.entitlements.forEach((e, i) => {
            if (i % 3 === 0 && grants.length > 1) e.grantPolicyId = grants[(grants.indexOf(e.grantPolicyId) + 1) % grants.length] ?? e.grantPolicyId;
          });
        };
      },
    };
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), (seed) => {
        const world = worldFromRecipe({ seed, tasks: 1000, rulesPerPolicy: 8, policies: 3, matchAt: "mixed", mutations: [] });
        for (const make of Object.values(edits)) prunedAgrees(world, make(world));
      }),
      { numRuns: 4 },
    );
  });

  it("a subject whose profile has its own `constructor` key (no map to cel-js) shares no results with one whose profile has not", () => {
    // Found in review: the signature followed `subject.profile.costCenter` through such a map and
    // shared results with the original subject, whose conditions evaluate where the clone's fail.
    const json = sampleJson() as { users: Record<string, unknown>[]; tasks: Record<string, unknown>[]; apps: Record<string, unknown>[] };
    const users = new Map(json.users.map((u) => [u["id"], u]));
    const clones: Record<string, unknown>[] = [];
    let n = 9000;
    for (const t of json.tasks) {
      const grant = (t["type"] as { grant?: { appId: string; identityUserId: string } } | null)?.grant;
      if (!grant || grant.appId !== "app-aws") continue;
      const u = users.get(grant.identityUserId);
      if (!u) continue;
      const id = `${String(u["id"])}-clone${n}`;
      json.users.push({ ...u, id, email: `${id}@clone.example`, emails: [], username: id, usernames: [], profile: { ...(u["profile"] as object), constructor: "x" } });
      const c = structuredClone(t) as { id: string; numericId: string; userId: string; createdByUserId: string; type: { grant: { identityUserId: string } } };
      c.id = `clone-${n}`;
      c.numericId = String(n++);
      c.userId = id;
      c.createdByUserId = id;
      c.type.grant.identityUserId = id;
      clones.push(c);
    }
    json.tasks.push(...clones);
    const world = worldOf(json);
    expect(clones.length).toBeGreaterThan(3);
    const aws = json.apps.find((a) => a["id"] === "app-aws");
    const edit: WorldEdit = { apps: [{ ...(aws as object), grantPolicyId: "pol-default-grant" } as never] };
    prunedAgrees(world, edit);
  });

  it("an empty edit changes nothing and decides only what could fail", () => {
    fc.assert(
      fc.property(arbWorldRecipe({ maxTasks: 25 }), (recipe) => {
        const world = worldFromRecipe(recipe);
        const r = run(world, () => {});
        expect(r.changed).toEqual([]);
        expect(r.stats.decisions).toBe(r.counts.unchangedErrors + (r.counts.inScope - r.stats.pruned - r.counts.unchangedErrors));
      }),
      { numRuns: 30 },
    );
  });

  it("pointing a rule at another step key changes exactly the tasks that rule decided", () => {
    fc.assert(
      fc.property(arbWorldRecipe({ maxTasks: 30, maxRules: 6, maxMutations: 0 }), fc.nat(), fc.nat(), fc.nat(), (recipe, pi, ri, rj) => {
        const world = worldFromRecipe(recipe);
        const candidates = world.policies.filter((p) => (p.rules?.length ?? 0) >= 2);
        fc.pre(candidates.length > 0);
        const policy = candidates[pi % candidates.length]!;
        const rules = policy.rules!;
        const i = ri % rules.length;
        const j = (i + 1 + (rj % (rules.length - 1))) % rules.length;
        fc.pre(rules[i]!.stepKey !== "" && rules[j]!.stepKey !== "" && rules[i]!.stepKey !== rules[j]!.stepKey);
        const edit: WorldEdit = (w) => {
          const p = w.policies.find((x) => x.id === policy.id)!;
          p.rules![i]!.stepKey = rules[j]!.stepKey;
        };
        const r = run(world, edit);
        const decidedByRule = inScopeTasks(world)
          .filter((t) => {
            const s = decide(world, t).selection;
            return s?.ok === true && s.value.decidedBy.kind === "rule" && s.value.decidedBy.policyId === policy.id && s.value.decidedBy.ruleIndex === i;
          })
          .map((t) => t.id);
        expect(r.changed.map((c) => c.taskId)).toEqual(decidedByRule);
        for (const c of r.changed) expect(c.changes).toContain("decidedBy");
        checkAgainstDecide(world, applyEdit(world, edit), r);
      }),
      { numRuns: 40 },
    );
  });

  it("editImpact: only policies, routing fields and default policies leave conditions alone", () => {
    fc.assert(
      fc.property(arbWorldRecipe({ maxTasks: 3 }), arbEditSpec, (recipe, spec) => {
        const world = worldFromRecipe(recipe);
        const after = applyEdit(world, editOf(world, spec));
        const impact = editImpact(world, after);
        const visible = ["userDepartment", "flag", "costLimit", "entitlementRisk", "user", "appOwners", "entitlementOwners"].includes(spec.kind);
        if (!visible) expect(impact.conditionsMayChange).toBe(false);
        if (spec.kind === "flag") expect(impact.conditionsMayChange).toBe(world.tenant.featureFlags["POLICY_REFERENCES_POLICY"] !== spec.on);
        if (spec.kind === "costLimit") expect(impact.conditionsMayChange).toBe(world.tenant.celCostLimit !== spec.limit);
      }),
      { numRuns: 60 },
    );
  });
});

describe("applyEdit is the world whatIf compares against", () => {
  it("reads back what the edit wrote as a world file's would be: a user disabled as USER_STATUS_DISABLED is disabled for decide too", () => {
    const edit: WorldEdit = (w) => {
      const u = w.users.find((x) => x.id === "u-sre-lead");
      if (u) (u as { status: string }).status = "USER_STATUS_DISABLED";
    };
    const r = run(sample, edit, {});
    expect(r.changed.length).toBeGreaterThan(0);
    const after = applyEdit(sample, edit);
    // decide on applyEdit's world gives each listed task the route whatIf reported after the edit.
    for (const c of r.changed) {
      const task = sample.tasks.get(c.taskId);
      if (!task) throw new Error(c.taskId);
      expect(routeOf(after, decide(after, task))).toEqual(c.after);
    }
    expect(after.index.users.get("u-sre-lead")?.status).toBe("DISABLED");
  });

  it("throws a TypeError naming the place for an edit whatIf refuses, not whatever the broken world would throw later", () => {
    expect(() => applyEdit(sample, (w) => void ((w.policies[0] as { rules: unknown }).rules = "nope"))).toThrow(/applyEdit: .*edit\.policies\[0\]\.rules/);
    expect(() => applyEdit(sample, { policies: "x" } as unknown as WorldEdit)).toThrow(new TypeError("applyEdit: edit.policies must be an array (at edit.policies)"));
    expect(() => applyEdit(sample, null as unknown as WorldEdit)).toThrow(TypeError);
    expect(() => applyEdit(sample, { policies: [null] } as unknown as WorldEdit)).toThrow(/has no id/);
    expect(() => applyEdit(null as unknown as World, {})).toThrow(TypeError);
  });

  it("whatIf refuses a recipe that replaces a part with something of another shape (a null tenant was taken as no change)", () => {
    for (const [part, value, says] of [
      ["tenant", null, "the tenant is an object"],
      ["policies", {}, "policies is a list"],
      ["users", null, "users is a list"],
    ] as const) {
      const r = whatIf(sample, (w) => void ((w as unknown as Record<string, unknown>)[part] = value));
      expect(r.ok).toBe(false);
      expect(!r.ok && r.error).toMatchObject({ code: "INVALID_ARGUMENT", field: "edit", message: expect.stringContaining(says) });
    }
  });
});

describe("a rule that only moved is not a change of route", () => {
  it("removing pol-prod-admin's rule #0 lists the tasks it decided, not those a later rule still decides under a new number (1001: rule #2 → rule #1)", () => {
    const edit: WorldEdit = (w) => void w.policies.find((p) => p.id === "pol-prod-admin")?.rules?.splice(0, 1);
    const r = run(sample, edit);
    const after = applyEdit(sample, edit);
    const listed = new Set(r.changed.map((c) => c.taskId));
    const t1001 = findTask(sample, "1001");
    if (!t1001) throw new Error("1001");
    const before = routeOf(sample, decide(sample, t1001));
    const moved = routeOf(after, decide(after, t1001));
    // 1001 is decided by the same rule, now numbered 1: same steps, same approvers.
    expect(before.kind === "route" && before.decidedBy.kind === "rule" && before.decidedBy.ruleIndex).toBe(2);
    expect(moved.kind === "route" && moved.decidedBy.kind === "rule" && moved.decidedBy.ruleIndex).toBe(1);
    expect(listed.has(t1001.id)).toBe(false);
    // Every task listed changed for real: another rule, steps, approvers or an error.
    for (const c of r.changed) expect(unlessRenumbered(c.before, c.after, sample, after)).not.toEqual(c.before);
    checkAgainstDecide(sample, after, r);
    // Swapping two rules whose conditions differ still re-routes the tasks both match: another condition decides.
    const swapped = run(sample, (w) => {
      const rules = w.policies.find((p) => p.id === "pol-prod-admin")?.rules;
      if (rules && rules.length > 1) [rules[0], rules[1]] = [rules[1]!, rules[0]!];
    });
    for (const c of swapped.changed) expect(c.changes.length).toBeGreaterThan(0);
  });
});

describe("formatWhatIf's maxTasks (what-if review: -1 listed 7 of 8 and said \"9 more\", 2.5 said \"5.5 more\")", () => {
  it("takes a whole number from 0 or Infinity, and reads anything else as the default; what it lists and what it says is left add up", () => {
    const r = run(sample, (w) => void w.policies.find((p) => p.id === "pol-prod-admin")?.rules?.splice(2, 1), { scope: { states: "any" } });
    const n = r.changed.length;
    expect(n).toBeGreaterThan(0);
    const listedOf = (text: string): number => (text.split("Changed tasks:")[1] ?? "").split("\n").filter((l) => /^ {2}\S/.test(l) && !l.startsWith("  …")).length;
    const moreOf = (text: string): number => Number(/… and (\d+) more/.exec(text.split("Changed tasks:")[1] ?? "")?.[1] ?? 0);
    for (const maxTasks of [0, 1, 2, Number.POSITIVE_INFINITY, -1, 2.5, Number.NaN, "x" as unknown as number]) {
      const text = formatWhatIf(r, { maxTasks });
      const expected = Number.isSafeInteger(maxTasks) && maxTasks >= 0 ? Math.min(maxTasks, n) : maxTasks === Number.POSITIVE_INFINITY ? n : Math.min(50, n);
      expect(listedOf(text), String(maxTasks)).toBe(expected);
      expect(listedOf(text) + moreOf(text), String(maxTasks)).toBe(n);
    }
    expect(formatWhatIf(r)).toContain(`; ${n} changed, `);
  });
});

describe("mergeWhatIfResults takes every shard of one run once (TSDoc: INVALID_ARGUMENT if the parts are not of one run)", () => {
  it("merges shards in any order into the whole run, and refuses a missing, repeated or foreign shard and several whole runs", () => {
    const edit: WorldEdit = (w) => void w.policies.find((p) => p.id === "pol-prod-admin")?.rules?.splice(2, 1);
    const whole = run(sample, edit);
    const shard = (index: number, count = 3) => run(sample, edit, { ...ANY, shard: { index, count } });
    const [s0, s1, s2] = [shard(0), shard(1), shard(2)];
    expect(s1.stats.shard).toEqual({ index: 1, count: 3, run: s0.stats.shard?.run });
    expect(s1.stats.shard?.run).toMatch(/^[0-9a-f]{16}$/);
    expect(whole.stats.shard).toBeUndefined();
    for (const order of [[s0, s1, s2], [s2, s0, s1]]) {
      const merged = mergeWhatIfResults(order);
      expect(merged.ok && JSON.stringify(merged.value)).toBe(JSON.stringify(whole));
    }
    for (const bad of [[s0], [s0, s0], [s0, s1], [s0, s1, s1], [s0, s1, s2, s2], [s0, s1, shard(1, 2)], [whole, whole], [whole, s0]]) {
      const r = mergeWhatIfResults(bad);
      expect(r.ok, JSON.stringify(bad.map((p) => p.stats.shard ?? "whole"))).toBe(false);
      expect(!r.ok && r.error.code).toBe("INVALID_ARGUMENT");
    }
    // Shards of two runs over one world (what-if review 2: both merged): another rule dropped from the
    // same policy, another scope, another clock.
    const other: WorldEdit = (w) => void w.policies.find((p) => p.id === "pol-prod-admin")?.rules?.splice(1, 1);
    for (const foreign of [
      run(sample, other, { ...ANY, shard: { index: 1, count: 3 } }),
      run(sample, edit, { scope: { states: "any", types: ["revoke"] }, shard: { index: 1, count: 3 } }),
      run(sample, { policies: applyEdit(sample, edit).policies.filter((p) => p.id === "pol-prod-admin"), now: "2030-01-01T00:00:00Z" }, { ...ANY, shard: { index: 1, count: 3 } }),
    ]) {
      const r = mergeWhatIfResults([s0, foreign, s2]);
      expect(!r.ok && r.error).toMatchObject({ code: "INVALID_ARGUMENT", message: "the results to merge are not shards of one run (worlds, edits or scopes differ)" });
    }
    // Between two worlds, parts an edit summary does not list (grants, groups) tell runs apart too (today's review).
    const withoutGrants = worldOf({ ...sampleJson(), grants: [] });
    const withoutGroups = worldOf({ ...sampleJson(), groups: [] });
    const a = whatIfWorlds(sample, withoutGrants, { ...ANY, shard: { index: 0, count: 2 } });
    const b = whatIfWorlds(sample, withoutGroups, { ...ANY, shard: { index: 1, count: 2 } });
    const b2 = whatIfWorlds(sample, withoutGrants, { ...ANY, shard: { index: 1, count: 2 } });
    if (!a.ok || !b.ok || !b2.ok) throw new Error("whatIfWorlds failed");
    expect(mergeWhatIfResults([a.value, b.value]).ok).toBe(false);
    expect(mergeWhatIfResults([a.value, b2.value]).ok).toBe(true);
    // The same edit written as a patch is the same run.
    const asPatch = run(sample, { policies: applyEdit(sample, edit).policies.filter((p) => p.id === "pol-prod-admin") }, { ...ANY, shard: { index: 1, count: 3 } });
    expect(mergeWhatIfResults([s0, asPatch, s2]).ok).toBe(true);
    const one = mergeWhatIfResults([whole]);
    expect(one.ok && JSON.stringify(one.value)).toBe(JSON.stringify(whole));
  });
});

describe("whatIfWorlds names the argument that is not a world", () => {
  it("after, when after is not a World; world, when world is not", () => {
    const bad = whatIfWorlds(sample, {} as World);
    expect(!bad.ok && bad.error).toMatchObject({ code: "INVALID_ARGUMENT", field: "after", message: expect.stringMatching(/^after must be a World/) });
    const first = whatIfWorlds({} as World, sample);
    expect(!first.ok && first.error).toMatchObject({ code: "INVALID_ARGUMENT", field: "world" });
  });
});

describe("an ill-typed patch item is named where the caller wrote it (what-if review 5: edit.policies[11] for a one-policy patch)", () => {
  it("names the patch's index, not the policy's place in the world", () => {
    const target = sample.policies.find((p) => p.id === "pol-sales-access") ?? sample.policies[5]!;
    const other = sample.policies.find((p) => p.id !== target.id)!;
    const r = whatIf(sample, { policies: [other, { ...target, rules: "nope" } as never] });
    expect(sample.policies.indexOf(target)).not.toBe(1);
    expect(!r.ok && r.error).toMatchObject({ code: "INVALID_ARGUMENT", field: "edit.policies[1].rules", message: expect.stringContaining("edit.policies[1].rules") });
    // A recipe edits the world's list: its place there is the caller's place.
    const i = sample.policies.indexOf(target);
    const rec = whatIf(sample, (w) => void ((w.policies[i] as { rules: unknown }).rules = "nope"));
    expect(!rec.ok && "field" in rec.error && rec.error.field).toBe(`edit.policies[${i}].rules`);
  });
});
