import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { arbWorld } from "../testing/arb-world.js";
import { loadWorld } from "../world/load-world.js";
import { findEntitlement, replaceInWorld, type World } from "../world/world.js";
import { resolvePolicy } from "./resolve-policy.js";

function fixtureWorld(): World {
  const r = loadWorld(JSON.parse(readFileSync("fixtures/world.json", "utf8")));
  if (!r.ok) throw new Error("fixture world does not load");
  return r.value;
}

/** A world with the same content and a fresh index, so nothing resolved in `w` is remembered for it. */
const rebuilt = (w: World): World => replaceInWorld(w, {});

describe("resolvePolicy remembers resolutions per world index and tenant", () => {
  it("gives every task of a world the resolution a fresh world gives it, in any order", () => {
    fc.assert(
      fc.property(arbWorld({ maxTasks: 25 }), (world) => {
        const tasks = [...world.tasks.values()];
        const forward = tasks.map((t) => resolvePolicy(world, t));
        const fresh = rebuilt(world);
        const backward = [...tasks].reverse().map((t) => resolvePolicy(fresh, t)).reverse();
        expect(backward).toEqual(forward);
      }),
      { numRuns: 60 },
    );
  });

  it("keeps an emergency request and an ordinary one on the same entitlement apart", () => {
    const world = fixtureWorld();
    const grant = [...world.tasks.values()].find((t) => t.type?.kind === "grant" && t.type.appEntitlementId === "ent-aws-prod-admin");
    expect(grant).toBeDefined();
    const ordinary = { ...grant!, emergencyAccess: false };
    const emergency = { ...grant!, emergencyAccess: true };
    const a = resolvePolicy(world, ordinary);
    const b = resolvePolicy(world, emergency);
    const c = resolvePolicy(world, ordinary);
    expect(a.ok && a.value.policy.id).toBe("pol-prod-admin");
    expect(b.ok && [b.value.source, b.value.policy.id]).toEqual(["emergency", "pol-emergency-breakglass"]);
    expect(c).toEqual(a);
  });

  it("answers from the edited world after an edit, and from the old one still for the old world", () => {
    const world = fixtureWorld();
    const grant = [...world.tasks.values()].find((t) => t.type?.kind === "grant" && t.type.appEntitlementId === "ent-aws-prod-admin" && !t.emergencyAccess)!;
    const before = resolvePolicy(world, grant);
    const ent = findEntitlement(world, "app-aws", "ent-aws-prod-admin");
    expect(ent).toBeDefined();
    const edited = replaceInWorld(world, { entitlements: [{ ...ent!, grantPolicyId: "" }] });
    const after = resolvePolicy(edited, grant);
    expect(before.ok && before.value.source).toBe("entitlement");
    expect(after.ok && after.value.source).not.toBe("entitlement");
    expect(after.ok && after.value.checks.find((c) => c.source === "entitlement")?.status).toBe("empty");
    expect(resolvePolicy(world, grant)).toEqual(before);
    // A tenant edit alone (same directory, asked right after that directory) is seen too.
    expect(resolvePolicy(edited, grant)).toEqual(after);
    const tenant = { ...world.tenant, defaultPolicies: { ...world.tenant.defaultPolicies, grant: "pol-nope" } };
    const onlyTenant = { ...edited, tenant };
    const r = resolvePolicy(onlyTenant, grant);
    expect(r.ok ? r.value.checks.find((c) => c.source === "tenantDefault")?.policyId : r.error.checks.find((c) => c.source === "tenantDefault")?.policyId).toBe("pol-nope");
  });

  it("does not share failures, whose message names the task", () => {
    const world = fixtureWorld();
    const grant = [...world.tasks.values()].find((t) => t.type?.kind === "grant")!;
    const nowhere = { ...grant, id: "t-a", type: { ...grant.type!, appId: "app-none", appEntitlementId: "ent-none" } } as typeof grant;
    const empty = replaceInWorld(world, { tenant: { ...world.tenant, defaultPolicies: {} } });
    const a = resolvePolicy(empty, nowhere);
    const b = resolvePolicy(empty, { ...nowhere, id: "t-b" });
    expect(!a.ok && a.error.message).toContain('"t-a"');
    expect(!b.ok && b.error.message).toContain('"t-b"');
  });
});

describe("a certify task's sources say why entitlement and app are read (newcomer review)", () => {
  it("with the review's policy override the entitlement's and app's lines say so; without it they do not apply", () => {
    const world = fixtureWorld();
    const certify = [...world.tasks.values()].filter((t) => t.type?.kind === "certify");
    let withOverride = 0;
    for (const task of certify) {
      const r = resolvePolicy(world, task);
      if (!r.ok) continue;
      const type = task.type as Extract<NonNullable<typeof task.type>, { kind: "certify" }>;
      const review = world.index.accessReviews.get(type.accessReviewId);
      for (const c of r.value.checks.filter((c) => c.source === "entitlement" || c.source === "app")) {
        if (review?.usePolicyOverride) {
          if (c.status !== "notReached") expect(c.detail).toMatch(/ \(access review "[^"]+" uses policy overrides\)$/);
          withOverride++;
        } else {
          expect(c.status).toBe("notApplicable");
          expect(c.detail).toBe(`access review "${type.accessReviewId}" does not use policy overrides`);
        }
      }
    }
    expect(withOverride).toBeGreaterThan(0);
    const t1045 = certify.find((t) => t.numericId === "1045");
    const r = t1045 && resolvePolicy(world, t1045);
    expect(r?.ok && r.value.checks[0]?.detail).toBe('entitlement "ent-aws-prod-admin" certifyPolicyId is "pol-certify-critical" (access review "ar-2026-q4-critical" uses policy overrides)');
  });
});
