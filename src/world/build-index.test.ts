import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadWorld } from "./load-world.js";
import { buildIndex, replaceInWorld, type World, type WorldPatch } from "./world.js";

const sample = JSON.parse(readFileSync(new URL("../../fixtures/world.json", import.meta.url), "utf8")) as Record<string, unknown>;

function load(json: unknown): World {
  const r = loadWorld(json);
  if (!r.ok) throw new Error(JSON.stringify(r.error.slice(0, 2)));
  return r.value;
}

const world = load(sample);

/**
 * Patches that replace or add users (emails, names, managers moved), apps, entitlements and
 * policies: every list an index part is built from, in every combination.
 */
const arbPatch: fc.Arbitrary<WorldPatch> = fc
  .record(
    {
      users: fc.array(
        fc.record({
          at: fc.nat(),
          fresh: fc.boolean(),
          email: fc.constantFrom("", "a@x.example", "HELENA.VOGT@northwind-labs.example"),
          name: fc.constantFrom("", "Helena Vogt", "someone"),
          manager: fc.option(fc.nat(), { nil: undefined }),
        }),
        { maxLength: 4 },
      ),
      apps: fc.array(fc.record({ at: fc.nat(), fresh: fc.boolean() }), { maxLength: 2 }),
      entitlements: fc.array(fc.record({ at: fc.nat(), fresh: fc.boolean() }), { maxLength: 3 }),
      policies: fc.array(fc.record({ at: fc.nat(), fresh: fc.boolean() }), { maxLength: 3 }),
    },
    { requiredKeys: [] },
  )
  .map((p) => {
    const pick = <T>(xs: readonly T[], at: number): T => xs[at % xs.length] as T;
    const patch: { -readonly [K in keyof WorldPatch]: WorldPatch[K] } = {};
    if (p.users)
      patch.users = p.users.map((u, i) => {
        const base = pick(world.users, u.at);
        const manager = u.manager === undefined ? base.managerIds : [pick(world.users, u.manager).id];
        return { ...base, id: u.fresh ? `u-new-${i}` : base.id, email: u.email, displayName: u.name, managerIds: manager };
      });
    if (p.apps) patch.apps = p.apps.map((a, i) => ({ ...pick(world.apps, a.at), ...(a.fresh ? { id: `app-new-${i}` } : {}) }));
    if (p.entitlements) patch.entitlements = p.entitlements.map((e, i) => ({ ...pick(world.entitlements, e.at), ...(e.fresh ? { id: `ent-new-${i}` } : {}) }));
    if (p.policies) patch.policies = p.policies.map((x, i) => ({ ...pick(world.policies, x.at), ...(x.fresh ? { id: `pol-new-${i}` } : {}) }));
    return patch;
  });

describe("buildIndex with the previous world", () => {
  it("builds the same index as from scratch, and shares the parts of lists the patch left alone", () => {
    fc.assert(
      fc.property(arbPatch, (patch) => {
        const after = replaceInWorld(world, patch);
        const fresh = buildIndex(after);
        expect(after.index).toEqual(fresh);
        // Same order of entries too: lookups that iterate (direct reports, members) see the same lists.
        for (const k of Object.keys(fresh) as (keyof typeof fresh)[]) expect([...after.index[k]]).toEqual([...fresh[k]]);
        expect(after.index.grants).toBe(world.index.grants);
        expect(after.index.appUserByUserAndApp).toBe(world.index.appUserByUserAndApp);
        expect(after.index.users === world.index.users).toBe(!patch.users?.length);
        expect(after.index.policies === world.index.policies).toBe(!patch.policies?.length);
      }),
      { numRuns: 200 },
    );
  });
});

describe("users by name (c1.directory.users.v1.FindByName)", () => {
  it("a display name wins over another user's username, the first user with it wins (product_admin_expressions-reference.mdx: FindByName takes a display name, returns the first matching user)", () => {
    const users = sample["users"] as Record<string, unknown>[];
    const base = users[0] as Record<string, unknown>;
    const extra = [
      { ...base, id: "u-other", email: "other@x.example", emails: [], displayName: "Other Person", username: "Pat Smith", usernames: [] },
      { ...base, id: "u-pat", email: "pat@x.example", emails: [], displayName: "Pat Smith", username: "psmith", usernames: [] },
      { ...base, id: "u-twin", email: "twin@x.example", emails: [], displayName: "Pat Smith", username: "pat2", usernames: [] },
    ];
    const w = load({ ...sample, users: [...users, ...extra] });
    expect(w.index.usersByName.get("pat smith")?.id).toBe("u-pat");
    expect(w.index.usersByName.get("pat2")?.id).toBe("u-twin");
    expect(w.index.usersByName.get("psmith")?.id).toBe("u-pat");
  });
});
