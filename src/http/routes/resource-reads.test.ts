import { describe, expect, it } from "vitest";
import { sampleJson, worldOf, type Body } from "../../../test/helpers.js";
import { responseProblems } from "../openapi-validate.test-helper.js";
import { getResource, listResources, listResourceTypes, searchResources } from "./resource-reads.js";

const page = { size: 100, offset: 0, fingerprint: "" };
const value = <T>(r: { ok: true; value: T } | { ok: false; error: unknown }): T => {
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value;
};

/** The sample with one cloud entitlement whose role and scope refs name resources of their own. */
function cloudWorld() {
  const json = sampleJson() as Body;
  const cloud = {
    ...json.entitlements.find((e: Body) => e.id === "ent-aws-prod-admin"),
    id: "ent-aws-cloud-admin",
    displayName: "AdministratorAccess on Production",
    role: { id: "res-role-admin", displayName: "AdministratorAccess", appResourceTypeId: "rt-iam-role" },
    scope: { id: "res-aws-account-prod", displayName: "Production account", appResourceTypeId: "rt-role" },
  };
  return worldOf({ ...json, entitlements: [...json.entitlements, cloud] });
}

describe("product_admin_entitlement-config-rules.mdx: a cloud entitlement's role and scope are resources of the app", () => {
  const world = cloudWorld();
  it("a role ref adds its resource type and resource, shown by the ref's display name", () => {
    const types = value(listResourceTypes(world, "app-aws", page));
    expect(responseProblems("GET", "/api/v1/apps/{app_id}/resource_types", types)).toEqual([]);
    expect((types.list as Body[]).map((t) => t.appResourceType.id)).toContain("rt-iam-role");
    const roles = value(listResources(world, "app-aws", "rt-iam-role", page));
    expect((roles.list as Body[]).map((r) => [r.appResource.id, r.appResource.displayName, r.appResource.grantCount])).toEqual([["res-role-admin", "AdministratorAccess", "0"]]);
  });
  it("a scope ref names an entitlement's resource: that resource takes the ref's display name and keeps its entitlements", () => {
    const got = value(getResource(world, "app-aws", "rt-role", "res-aws-account-prod"));
    expect(responseProblems("GET", "/api/v1/apps/{app_id}/resource_types/{app_resource_type_id}/resources/{id}", got)).toEqual([]);
    expect((got.appResourceView as Body).appResource.displayName).toBe("Production account");
    expect(Number((got.appResourceView as Body).appResource.grantCount)).toBeGreaterThan(0);
    const found = value(searchResources(world, { query: "administratoraccess" }));
    expect((found.list as Body[]).map((v) => v.appResource.id)).toEqual(["res-role-admin"]);
  });
  it("the sample without refs shows each resource by its id", () => {
    const plain = worldOf(sampleJson());
    const got = value(getResource(plain, "app-aws", "rt-role", "res-aws-account-prod"));
    expect((got.appResourceView as Body).appResource.displayName).toBe("res-aws-account-prod");
  });
});
