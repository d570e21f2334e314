/**
 * The release notes' behaviour rules, each as a scenario (a script run by `simulate`, so it can be
 * replayed and shown), with the details the scripts' checks do not state.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { JsonObject } from "../../src/model/json.js";
import { type SimulationRun, simulate } from "../../src/reducers/simulate.js";
import { upstreamSources } from "../../src/workflow/inheritance.js";
import type { World } from "../../src/world/world.js";
import { holds, sampleWith, sampleWorld, task } from "./helpers.js";

function scenario(name: string, world: World = sampleWorld(), patch?: (s: JsonObject) => JsonObject): SimulationRun {
  const base = JSON.parse(readFileSync(new URL(`../../fixtures/scenarios/${name}.json`, import.meta.url), "utf8")) as JsonObject;
  const r = simulate(world, patch ? patch(base) : base);
  if (!r.ok) throw new Error(r.error.message);
  expect(r.value.failures).toEqual([]);
  return r.value;
}

function commentsOf(world: World, taskId: string): string[] {
  return (world.comments.get(task(world, taskId).id) ?? []).map((c) => c.comment);
}

describe("release note 1: a step-up approval that also requires a comment prompts for step-up and completes once verified", () => {
  it("step-up-approval", () => {
    const run = scenario("step-up-approval");
    const prompt = run.frames[3];
    expect((prompt?.response as JsonObject)["redirectUrl"]).toMatch(/verify\?transaction=stu-/);
    expect(task(prompt?.world as World, "1021")).toEqual(task(sampleWorld(), "1021"));
    const verified = run.frames[4];
    const approved = verified?.events.find((e) => e.kind === "approved");
    expect(approved).toMatchObject({ comment: "Territory rules for EMEA reviewed with Sales Ops.", actorId: "u-ciso" });
    const step = task(verified?.world as World, "1021").policy?.history?.at(-1)?.instance;
    expect(step?.kind === "approval" && step.outcome?.kind === "approved" && step.outcome.stepUpTransactionId).toBe(
      (prompt?.response as JsonObject)["stepUpTransactionId"],
    );
  });
});

describe("release note 2 and product_how-to_access-change-tasks.mdx: a failed connector falls back to manual work, and retry provisioning on the same task keeps the approvals already collected", () => {
  it("provisioning-failure-and-retry", () => {
    const run = scenario("provisioning-failure-and-retry");
    const failed = task(run.frames[1]?.world as World, "1031");
    const retried = task(run.frames[3]?.world as World, "1031");
    expect(retried.id).toBe(failed.id);
    expect(retried.approverIds).toEqual(failed.approverIds);
    expect(retried.policy?.history?.slice(0, -1)).toEqual(failed.policy?.history?.toArray());
    expect(run.frames[3]?.events[0]).toMatchObject({ kind: "provisioningRetried", erroredPolicyStepId: failed.policy?.history?.at(-1)?.id });
  });
});

describe("release note 3: a request for an entitlement created ahead of a sync waits, says why, resumes after the sync, falls back after 24 hours", () => {
  it("sync-resumes-request", () => {
    const run = scenario("sync-resumes-request");
    const synced = run.frames[3];
    expect(synced?.response).toMatchObject({ appId: "app-aws", resumedTaskIds: [task(sampleWorld(), "1010").id] });
    expect(commentsOf(synced?.world as World, "1010").at(-1)).toMatch(/sync of AWS reported the entitlement: provisioning continues/);
  });

  it("sync-fallback-to-manual", () => {
    const run = scenario("sync-fallback-to-manual");
    const waiting = run.frames[1]?.world as World;
    const cur = task(waiting, "1010").policy?.current?.instance;
    expect(cur?.kind === "provision" && cur.waitingOn).toMatchObject({
      startedWaitingAt: "2026-11-22T09:30:00Z",
      fallbackAt: "2026-11-23T09:30:00Z",
      on: { kind: "entitlementMerge", appId: "app-aws", appEntitlementId: "ent-aws-staging-dev" },
    });
    expect(commentsOf(waiting, "1010").at(-1)).toMatch(/^Waiting for the next sync of AWS: "Staging Developer" was created before the connector synced it/);
    const fell = run.frames[3]?.world as World;
    const manual = task(fell, "1010").policy?.current?.instance;
    expect(manual?.kind === "provision" && manual.provision?.provisionPolicy?.kind).toBe("manual");
  });
});

describe("release note 4: a revoke on a connector that cannot deprovision routes to manual deprovisioning and does not close as revoked", () => {
  it("revoke-connector-cannot-deprovision", () => {
    const run = scenario("revoke-connector-cannot-deprovision");
    const routed = run.frames[1];
    expect(routed?.events.find((e) => e.kind === "provisionRoutedToManual")).toMatchObject({ provisionerIds: ["u-eng-mgr", "u-cto"] });
    const step = task(routed?.world as World, "1036").policy?.current?.instance;
    expect(step?.kind === "provision" && step.provision?.provisionPolicy).toMatchObject({ kind: "manual", userIds: ["u-eng-mgr", "u-cto"] });
    expect(commentsOf(routed?.world as World, "1036").at(-1)).toMatch(/Routed to manual deprovisioning: the connector "conn-github" cannot deprovision/);
    // An administrator's report for the connector is not what closes it: the owners confirm by hand.
    expect(task(run.frames[2]?.world as World, "1036").state).toBe("TASK_STATE_OPEN");
  });

  it("a connector that deprovisions other entitlements but not this one routes it too; a capable one does not", () => {
    const only = scenario("revoke-connector-cannot-deprovision", sampleWorld(), (s) => ({
      ...s,
      simulation: { connectors: [{ id: "conn-github", appId: "app-github", cannotDeprovisionEntitlementIds: ["ent-gh-repo-infra-write"] }] },
    }));
    expect(only.frames[1]?.events.some((e) => e.kind === "provisionRoutedToManual")).toBe(true);
    const capable = simulate(sampleWorld(), {
      simulation: { connectors: [{ id: "conn-github", appId: "app-github", canDeprovision: true }] },
      steps: [{ at: "2026-11-22T09:30:00Z", actor: "u-eng-mgr", action: { type: "approve", taskId: "1036" } }],
    });
    if (!capable.ok) throw new Error(capable.error.message);
    expect(capable.value.frames[1]?.events.some((e) => e.kind === "provisionRoutedToManual")).toBe(false);
    expect(task(capable.value.world, "1036").stepApproverIds).toEqual([]);
  });
});

describe("release note 5: revoke inherited access, off by default and set per app", () => {
  it("revoke-inherited-access: the revoke follows nested groups and revokes the upstream sources too", () => {
    const run = scenario("revoke-inherited-access");
    const revoke = task(run.frames[1]?.world as World, "1060");
    expect(revoke.revocationTargets).toEqual([
      { entitlementRef: { appId: "app-github", id: "ent-gh-team-frontend" } },
      { entitlementRef: { appId: "app-okta", id: "grp-engineering" } },
    ]);
    const reasons = run.frames[2]?.events.filter((e) => e.kind === "grantRevoked").map((e) => (e.kind === "grantRevoked" ? `${e.appEntitlementId}:${e.reason}` : ""));
    expect(reasons).toEqual(["ent-gh-repo-platform-write:entitlement", "ent-gh-team-frontend:revocationTarget", "grp-engineering:revocationTarget"]);
  });

  it("off (the default): only the entitlement itself is revoked and the sources stay", () => {
    const run = scenario("revoke-inherited-access", sampleWorld(), (s) => {
      const sim = s["simulation"] as JsonObject;
      const steps = (s["steps"] as JsonObject[]).map((st) => ({ ...st, check: [] }));
      return { ...s, simulation: { entitlementSources: sim["entitlementSources"] ?? [] }, steps };
    });
    expect(task(run.world, "1060").revocationTargets).toEqual([]);
    expect(holds(run.world, "u-dev3", "app-github", "ent-gh-repo-platform-write")).toBe(false);
    expect(holds(run.world, "u-dev3", "app-github", "ent-gh-team-frontend")).toBe(true);
    expect(holds(run.world, "u-dev3", "app-okta", "grp-engineering")).toBe(true);
  });

  it("follows direct grants, nested groups, role hierarchies and delegated provisioning; skips sources the user does not hold", () => {
    const w = sampleWith((json) => {
      json["simulation"] = {
        entitlementSources: [
          { appId: "app-aws", appEntitlementId: "ent-aws-prod-readonly", sourceAppId: "app-aws", sourceEntitlementId: "ent-aws-staging-admin", via: "role" },
          { appId: "app-aws", appEntitlementId: "ent-aws-staging-admin", sourceAppId: "app-okta", sourceEntitlementId: "grp-sre", via: "group" },
          { appId: "app-aws", appEntitlementId: "ent-aws-prod-readonly", sourceAppId: "app-okta", sourceEntitlementId: "grp-it-helpdesk", via: "group" },
        ],
      };
      const ents = json["entitlements"] as JsonObject[];
      const i = ents.findIndex((e) => e["id"] === "ent-aws-staging-admin");
      ents[i] = { ...ents[i], provisionerPolicy: { delegated: { appId: "app-okta", entitlementId: "grp-engineering", implicit: false } } };
    });
    const sources = upstreamSources(w, "app-aws", "ent-aws-prod-readonly", "u-sre1");
    expect(sources.map((s) => [s.appEntitlementId, s.via.join(">"), s.held])).toEqual([
      ["ent-aws-staging-admin", "role", false],
      ["grp-it-helpdesk", "group", false],
      ["grp-sre", "role>group", true],
      ["grp-engineering", "role>delegated", true],
    ]);
  });
});

describe("release note 6: an automation revoke step's grant source All or Direct", () => {
  it("offboarding-automation-direct: Direct removes the direct grants the criteria match", () => {
    const run = scenario("offboarding-automation-direct");
    const revoked = run.world;
    expect(holds(revoked, "u-former", "app-aws", "ent-aws-prod-db")).toBe(false);
    const action = task(revoked, "1051").policy?.history?.at(-1)?.instance;
    expect(action?.kind === "action" && action.outcome?.kind).toBe("success");
    expect(action?.kind === "action" && action.target?.kind).toBe("automation");
  });

  it("Direct keeps enrollment grants; All removes them too", () => {
    const withEnrollment = sampleWith((json) => {
      (json["grants"] as JsonObject[]).push(
        { appId: "app-okta", appEntitlementId: "grp-engineering", identityUserId: "u-former", source: "enrollment" },
        { appId: "app-github", appEntitlementId: "ent-gh-org-member", identityUserId: "u-former", source: "automatic-enrollment" },
      );
    });
    const direct = scenario("offboarding-automation-direct", withEnrollment);
    expect(holds(direct.world, "u-former", "app-aws", "ent-aws-prod-db")).toBe(false);
    expect(holds(direct.world, "u-former", "app-okta", "grp-engineering")).toBe(true);
    expect(holds(direct.world, "u-former", "app-github", "ent-gh-org-member")).toBe(true);
    const all = scenario("offboarding-automation-direct", withEnrollment, (s) => {
      const sim = structuredClone(s["simulation"]) as { automations: { revokeStep: { grantSource: string } }[] };
      for (const a of sim.automations) a.revokeStep.grantSource = "All";
      return { ...s, simulation: sim as unknown as JsonObject };
    });
    expect(holds(all.world, "u-former", "app-okta", "grp-engineering")).toBe(false);
    expect(holds(all.world, "u-former", "app-github", "ent-gh-org-member")).toBe(false);
  });
});

describe("release note 7: a revoke criteria scoped only by a legacy resource-type name fails the step", () => {
  it("legacy-revoke-criteria-fails", () => {
    const run = scenario("legacy-revoke-criteria-fails");
    const action = task(run.world, "1051").policy?.history?.at(-1)?.instance;
    expect(action?.kind === "action" && action.outcome).toMatchObject({ kind: "error", errorCode: "LEGACY_RESOURCE_TYPE_CRITERIA" });
    expect(action?.kind === "action" && action.state).toBe("ACTION_INSTANCE_STATE_ERROR");
  });

  it("the same name scoped by an app is read as that app's resource type and matches", () => {
    const run = scenario("legacy-revoke-criteria-fails", sampleWorld(), (s) => ({
      ...s,
      simulation: { automations: [{ id: "auto-delete-accounts", revokeStep: { grantSource: "All", criteria: { appIds: ["app-aws"], resourceTypeName: "rt-role" } } }] },
      steps: (s["steps"] as JsonObject[]).map((st) => ({ ...st, check: [] })),
    }));
    const t = task(run.world, "1051");
    expect(t.type?.kind === "offboarding" && t.type.outcome).toBe("OFFBOARDING_OUTCOME_DONE");
    expect(holds(run.world, "u-former", "app-aws", "ent-aws-prod-db")).toBe(false);
  });
});
