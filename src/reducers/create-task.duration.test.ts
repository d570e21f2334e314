/**
 * The longest grant a request may ask for follows product_admin_access-requests.mdx's order of
 * precedence ("1. The entitlement's configuration 2. … resource types 3. … application") and
 * product_admin_entitlement-config-rules.mdx (a matching rule sets "the maximum grant duration"),
 * as `resolveMaxGrantDuration` resolves it, both when a request is made and when its duration is
 * changed. A request that asks for none under a maximum gets the maximum: "at the end of the time
 * limit, the user's access will be automatically revoked" (access-requests page).
 */
import { describe, expect, it } from "vitest";
import { sampleJson, worldOf } from "../../test/helpers.js";
import type { EntitlementConfigRule } from "../model/config-rule.js";
import type { JsonObject } from "../model/json.js";
import { resolveMaxGrantDuration } from "../policy/max-grant-duration.js";
import { applyEdit } from "../whatif/what-if.js";
import { findEntitlement } from "../world/world.js";
import { createGrantTask } from "./create-task.js";
import { reduce } from "./reduce.js";

// The sample tenant with a configuration rule on app-aws's Staging entitlements: at most 8 hours.
const stagingRule: EntitlementConfigRule = {
  id: "ecr-staging",
  appId: "app-aws",
  displayName: "Staging accounts",
  description: "",
  condition: 'entitlement.display_name.startsWith("Staging")',
  enabled: true,
  priority: 1,
  settings: { requestPolicyId: "", emergencyGrantEnabled: false, emergencyGrantPolicyId: "", maxGrantDuration: "28800s", requestSchemaId: "" },
};
const world = worldOf({ ...sampleJson(), entitlementConfigurationRules: [stagingRule] });
const now = "2026-11-22T09:00:00Z";
const taskOf = (r: ReturnType<typeof createGrantTask>): JsonObject | undefined => (r.ok ? (((r.value.response as JsonObject)["taskView"] as JsonObject)["task"] as JsonObject) : undefined);
const grantOf = (r: ReturnType<typeof createGrantTask>) => (taskOf(r)?.["type"] as { grant: JsonObject } | undefined)?.grant;

describe("product_admin_access-requests.mdx / _entitlement-config-rules.mdx: the maximum grant duration of a request", () => {
  // ent-aws-staging-admin has no durationGrant of its own; configuration rule ecr-staging sets 8 hours.
  const staging = { appId: "app-aws", appEntitlementId: "ent-aws-staging-admin", description: "deploy" };

  it("a configuration rule's maximum bounds a new request, and the refusal says where the limit comes from", () => {
    expect(resolveMaxGrantDuration(world, "app-aws", "ent-aws-staging-admin")).toMatchObject({ duration: "28800s", source: "configRule" });
    const long = createGrantTask(world, { ...staging, grantDuration: "604800s" }, { actorId: "u-dev1", now });
    expect(!long.ok && long.error).toMatchObject({ code: "INVALID_ARGUMENT", field: "grantDuration" });
    expect(!long.ok && long.error.message).toContain('configuration rule "ecr-staging"');
    expect(grantOf(createGrantTask(world, { ...staging, grantDuration: "3600s" }, { actorId: "u-dev1", now }))?.["grantDuration"]).toBe("3600s");
  });

  it("a request that asks for no duration under a maximum is granted for the maximum; with no maximum, for no set time", () => {
    expect(grantOf(createGrantTask(world, staging, { actorId: "u-dev1", now }))?.["grantDuration"]).toBe("28800s");
    const none = resolveMaxGrantDuration(world, "app-okta", "ent-okta-mfa");
    expect(none.duration).toBeNull();
    expect(grantOf(createGrantTask(world, { appId: "app-okta", appEntitlementId: "ent-okta-mfa", description: "x" }, { actorId: "u-dev1", now }))?.["grantDuration"]).toBeNull();
  });

  it("the entitlement's own durationGrant comes first, and its durationUnset says there is no maximum", () => {
    const ent = findEntitlement(world, "app-aws", "ent-aws-staging-admin")!;
    const own = applyEdit(world, { entitlements: [{ ...ent, $unknown: { ...ent.$unknown, durationGrant: "600s" } }] });
    expect(resolveMaxGrantDuration(own, "app-aws", "ent-aws-staging-admin")).toMatchObject({ duration: "600s", source: "entitlement" });
    expect(createGrantTask(own, { ...staging, grantDuration: "3600s" }, { actorId: "u-dev1", now }).ok).toBe(false);
    const unset = applyEdit(world, { entitlements: [{ ...ent, $unknown: { ...ent.$unknown, durationUnset: {} } }] });
    expect(resolveMaxGrantDuration(unset, "app-aws", "ent-aws-staging-admin")).toMatchObject({ duration: null, source: "entitlement" });
    expect(grantOf(createGrantTask(unset, { ...staging, grantDuration: "604800s" }, { actorId: "u-dev1", now }))?.["grantDuration"]).toBe("604800s");
  });

  it("a request described for explain, what-if or a test case gets the same duration a created one does", async () => {
    const { taskInWorld } = await import("../whatif/task-spec.js");
    const described = taskInWorld(world, { subject: "u-dev1", entitlement: { appId: "app-aws", id: "ent-aws-staging-admin" } });
    if (!described.ok) throw new Error(described.error.message);
    const t = described.value.task.type;
    expect(t?.kind === "grant" && t.grantDuration).toBe("28800s");
    expect(grantOf(createGrantTask(world, staging, { actorId: "u-dev1", now }))?.["grantDuration"]).toBe("28800s");
  });

  it("Update Grant Duration is held to the same maximum", () => {
    const made = createGrantTask(world, { ...staging, grantDuration: "3600s" }, { actorId: "u-dev1", now });
    if (!made.ok) throw new Error(made.error.message);
    const id = String(taskOf(made)?.["id"]);
    const r = reduce(made.value.world, { type: "updateGrantDuration", taskId: id, duration: "2592000s" }, { actorId: "u-it-dir", now });
    expect(!r.ok && r.error).toMatchObject({ code: "INVALID_ARGUMENT" });
    expect(!r.ok && r.error.message).toContain('configuration rule "ecr-staging"');
    expect(reduce(made.value.world, { type: "updateGrantDuration", taskId: id, duration: "7200s" }, { actorId: "u-it-dir", now }).ok).toBe(true);
  });
});
