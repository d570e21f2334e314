/**
 * What-if with an edit that leaves the world ill-typed: a recipe is JavaScript over a draft, and
 * whatever it writes, `whatIf` answers a result or `INVALID_ARGUMENT` naming the place, never an
 * `INTERNAL` error and never a run over a value no world file could hold (src/whatif/check-edit.ts).
 * Every edit that leaves the world well-typed is still accepted: the check reads back exactly what a
 * world file holds.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyEdit, formatWhatIf, replaceInWorld, whatIf, whatIfWorlds, type EditRecipe, type World } from "policy-sim";
import { arbPolicy, arbPolicyMutation, arbWorldRecipe, applyPolicyMutation, worldFromRecipe } from "policy-sim/testing/arbitraries";
import { editDiagnostics } from "../src/whatif/check-edit.js";
import { sampleWorld } from "./helpers.js";

const sample = sampleWorld();
type Loose = Record<string, unknown> & { [k: string]: any };

function refusal(world: World, recipe: EditRecipe): { code: string; field?: string; message: string } | null {
  const r = whatIf(world, recipe, { scope: { states: "any" } });
  return r.ok ? null : r.error;
}

/** A fresh copy of every object of the lists a recipe may edit: nothing changes, every object is checked. */
function everyObjectCopied(world: World): World {
  const copy = <T>(xs: readonly T[]): T[] => xs.map((x) => structuredClone(x));
  return Object.freeze({
    ...applyEdit(world, (w) => {
      w.policies = copy(world.policies) as typeof w.policies;
      w.apps = copy(world.apps) as typeof w.apps;
      w.entitlements = copy(world.entitlements) as typeof w.entitlements;
      w.users = copy(world.users) as typeof w.users;
      w.entitlementConfigurationRules = copy(world.entitlementConfigurationRules ?? []) as typeof w.entitlementConfigurationRules;
      w.tenant = structuredClone(world.tenant) as typeof w.tenant;
    }),
  });
}

describe("whatIf refuses an edit that leaves the world ill-typed", () => {
  it.each<[string, EditRecipe, string]>([
    ["a policy's rules set to a string", (w) => void ((w.policies[0] as Loose).rules = "nope"), "edit.policies[0].rules"],
    ["an app's grant policy set to a number", (w) => void ((w.apps[0] as Loose).grantPolicyId = 42), "edit.apps[0].grantPolicyId"],
    ["a user's department set to a number", (w) => void ((w.users[1] as Loose).department = 7), "edit.users[1].department"],
    ["an entitlement's emergency flag set to a string", (w) => void ((w.entitlements[2] as Loose).emergencyGrantEnabled = "yes"), "edit.entitlements[2].emergencyGrantEnabled"],
    ["a rule's condition set to null", (w) => void ((w.policies[3] as Loose).rules = [{ condition: null, stepKey: "x" }]), "edit.policies[3].rules[0].condition"],
    ["a feature flag set to a string", (w) => void ((w.tenant.featureFlags as Loose)["POLICY_REFERENCES_POLICY"] = "yes"), 'edit.tenant.featureFlags.POLICY_REFERENCES_POLICY'],
    ["a policy added with steps as a list", (w) => void w.policies.push({ id: "pol-new", policySteps: [] } as never), `edit.policies[${sample.policies.length}].policySteps`],
    ["an app's id removed", (w) => void ((w.apps[0] as Loose).id = undefined), "edit.apps[0].id"],
    ["two policies given one id", (w) => void ((w.policies[2] as Loose).id = w.policies[1]?.id), "edit.policies[2].id"],
    // What-if review 2: a pushed copy of an existing policy replaced it, rules and all, unsaid.
    ["a second policy pushed with an existing id", (w) => void w.policies.push({ ...(w.policies[3] as Loose), rules: [] } as never), `edit.policies[${sample.policies.length}].id`],
    ["a second user pushed with an existing id", (w) => void w.users.push({ ...(w.users[0] as Loose) } as never), `edit.users[${sample.users.length}].id`],
    ["the tenant's default policies set to a list", (w) => void ((w.tenant as Loose).defaultPolicies = ["pol-default-grant"]), "edit.tenant.defaultPolicies"],
    ["a field the tenant does not have", (w) => void ((w.tenant as Loose).defaultPolicy = { grant: "pol-default-grant" }), "edit.tenant.defaultPolicy"],
  ])("%s", (_, recipe, field) => {
    const e = refusal(sample, recipe);
    expect(e?.code).toBe("INVALID_ARGUMENT");
    expect(e?.field?.startsWith(field), `${e?.field}: ${e?.message}`).toBe(true);
    expect(e?.message).toMatch(/ill-typed/);
  });

  it("a field set on an object that policy-sim does not model (an entitlement's description) is refused with where it goes: $unknown, as a world file keeps it", () => {
    const e = refusal(sample, (w) => void ((w.entitlements[0] as Loose).description = "Production admin"));
    expect(e).toMatchObject({ code: "INVALID_ARGUMENT", field: "edit.entitlements[0].description" });
    expect(e?.message).toContain('the edit set "description", which policy-sim does not model on this object; a world file keeps such a field as it came, in $unknown');
    // Set where a world file keeps it, the edit is taken.
    expect(refusal(sample, (w) => void ((w.entitlements[0] as Loose).$unknown = { ...(w.entitlements[0] as Loose).$unknown, description: "Production admin" }))).toBeNull();
  });

  it("gives a field the recipe leaves out its default, as a world file that leaves it out gets it", () => {
    const partial = whatIf(sample, (w) => void ((w.policies[0] as Loose).rules = [{ condition: "true" }]), { scope: { states: "any" } });
    expect(partial.ok, partial.ok ? "" : partial.error.message).toBe(true);
    const cleared = whatIf(sample, (w) => void ((w.apps[0] as Loose).displayName = undefined), { scope: { states: "any" } });
    expect(cleared.ok, cleared.ok ? "" : cleared.error.message).toBe(true);
  });

  it("refuses a recipe that sets a part what-if does not edit, rather than dropping the change", () => {
    const e = refusal(sample, (w) => void ((w as Loose).tasks = null));
    expect(e).toMatchObject({ code: "INVALID_ARGUMENT", field: "edit" });
    expect(e?.message).toContain('"tasks"');
  });

  it("takes a replacement a recipe returns, as immer does, and checks it the same", () => {
    const returned = whatIf(sample, ((w: Loose) => ({ ...w, apps: w.apps.slice(1) })) as unknown as EditRecipe, { scope: { states: "any" } });
    expect(returned.ok && returned.value.counts.changed).toBeGreaterThan(0);
    const e = refusal(sample, ((w: Loose) => ({ ...w, tasks: [] })) as unknown as EditRecipe);
    expect(e).toMatchObject({ code: "INVALID_ARGUMENT", field: "edit" });
    expect(e?.message).toContain('"tasks"');
  });

  it("refuses the same through whatIfWorlds, for a world edited by hand", () => {
    const broken = replaceInWorld(sample, { apps: [{ ...(sample.apps[0] as unknown as Loose), revokePolicyId: false } as never] });
    const r = whatIfWorlds(sample, broken);
    expect(r.ok ? null : r.error.code).toBe("INVALID_ARGUMENT");
  });

  it("accepts every object of the sample and of generated worlds as they are (the round trip is exact)", () => {
    expect(editDiagnostics(sample, everyObjectCopied(sample))).toEqual([]);
    fc.assert(
      fc.property(arbWorldRecipe({ maxTasks: 20, maxRules: 6, maxPolicies: 4 }), (recipe) => {
        const world = worldFromRecipe(recipe);
        expect(editDiagnostics(world, everyObjectCopied(world))).toEqual([]);
      }),
      { numRuns: 15 },
    );
  });

  it("accepts any policy a world file can hold, and the project's own policy mutations", () => {
    fc.assert(
      fc.property(arbPolicy, (p) => {
        expect(editDiagnostics(sample, replaceInWorld(sample, { policies: [{ ...p, id: sample.policies[0]?.id ?? p.id }] }))).toEqual([]);
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(arbPolicyMutation, (m) => {
        const mutated = applyPolicyMutation(sample, m);
        expect(editDiagnostics(sample, mutated)).toEqual([]);
        const r = whatIfWorlds(sample, mutated);
        expect(r.ok, r.ok ? "" : r.error.message).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it("never answers INTERNAL, whatever a recipe writes at whatever place of a policy, app, entitlement, user or the tenant", () => {
    const lists = ["policies", "apps", "entitlements", "users", "tenant"] as const;
    fc.assert(
      fc.property(fc.constantFrom(...lists), fc.nat(), fc.array(fc.oneof(fc.string({ maxLength: 12 }), fc.nat(3)), { minLength: 1, maxLength: 4 }), fc.anything(), (list, at, keys, value) => {
        const recipe: EditRecipe = (w) => {
          const items = (list === "tenant" ? [w.tenant] : w[list]) as unknown as Loose[];
          if (items.length === 0) return;
          // Walk down existing keys where there are some, so the write lands inside the object's shape
          // (ids and app ids included).
          let node: Loose = items[at % items.length] as Loose;
          for (let i = 0; i < keys.length - 1; i++) {
            const own = Object.keys(node);
            const k = own.length > 0 ? (own[Number(keys[i]) % own.length] ?? String(keys[i])) : String(keys[i]);
            // Own keys only: "__proto__" (which fast-check's strings include) would walk out of the
            // world onto Object.prototype, and the write below would change every object in the process.
            if (!Object.hasOwn(node, k)) break;
            const next = node[k];
            if (typeof next !== "object" || next === null) break;
            node = next as Loose;
          }
          const own = Object.keys(node);
          const last = keys[keys.length - 1];
          node[typeof last === "number" && own.length > 0 ? (own[last % own.length] as string) : String(last)] = value;
        };
        const r = whatIf(sample, recipe, { scope: { states: "any" } });
        if (!r.ok) expect(r.error.code, r.error.message).toBe("INVALID_ARGUMENT");
      }),
      { numRuns: Number(process.env["EDIT_FUZZ_RUNS"] ?? (process.env["CI"] ? 400 : 150)) },
    );
  });
});

describe("a patch is one version of each object, and its objects may leave fields out (what-if review 2)", () => {
  it("two items with one id are INVALID_ARGUMENT naming both: the last silently won, and the run said nothing changes", () => {
    const p = sample.policies[3] as (typeof sample.policies)[number];
    const r = whatIf(sample, { policies: [{ ...p, rules: [] }, p] });
    expect(!r.ok && r.error).toEqual({ code: "INVALID_ARGUMENT", field: "edit.policies[1]", message: `edit.policies[1] and edit.policies[0] are both "${p.id}": a patch holds one version of each object` });
    const e = sample.entitlements[0] as (typeof sample.entitlements)[number];
    const r2 = whatIf(sample, { entitlements: [e, { ...e, riskLevelValueId: "critical" }] });
    expect(!r2.ok && r2.error).toMatchObject({ code: "INVALID_ARGUMENT", field: "edit.entitlements[1]", message: `edit.entitlements[1] and edit.entitlements[0] are both appId "${e.appId}", id "${e.id}": a patch holds one version of each object` });
    // An app id or id with "/" in it is no other entitlement's key ("a/b" + "c" is not "a" + "b/c").
    const slashed = whatIf(sample, { entitlements: [{ ...e, appId: "a/b", id: "c" }, { ...e, appId: "a", id: "b/c" }] });
    expect(slashed.ok, JSON.stringify(slashed.ok ? null : slashed.error)).toBe(true);
    // Entitlements are one object per app and id: the same id in two apps is two objects.
    const other = sample.entitlements.find((x) => x.appId !== e.appId) as typeof e;
    expect(whatIf(sample, { entitlements: [e, { ...other, id: e.id }] }).ok).toBe(true);
  });

  it("a user, entitlement or app given with some fields gets the others' defaults, as docs/whatif.md says (a user threw 'u.emails is not iterable')", () => {
    const e = sample.entitlements[0] as (typeof sample.entitlements)[number];
    for (const patch of [
      { users: [{ id: "u-dev1", department: "Security" }] },
      { entitlements: [{ id: e.id, appId: e.appId }] },
      { apps: [{ id: (sample.apps[0] as (typeof sample.apps)[number]).id }] },
    ] as never[]) {
      const r = whatIf(sample, patch);
      expect(r.ok, JSON.stringify(r.ok ? null : r.error)).toBe(true);
    }
    const u = applyEdit(sample, { users: [{ id: "u-dev1", department: "Security" } as never] }).index.users.get("u-dev1");
    expect(u).toMatchObject({ department: "Security", emails: [], managerIds: [], roleIds: [], usernames: [] });
    // A list field given as something else is named at its place, not thrown on.
    expect(whatIf(sample, { users: [{ id: "u-dev1", emails: "nope" } as never] })).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT", field: "edit.users[0].emails" } });
    expect(whatIf(sample, { entitlements: [{ id: e.id, appId: e.appId, annotations: 3 } as never] })).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT", field: "edit.entitlements[0].annotations" } });
  });
});

describe("an edited value a world file would be warned of is named in the result (what-if review 2: status \"DISABLD\" ran silently, changed 0)", () => {
  it("a recipe's or a patch's typo'd enum value comes back in edit.warnings with what it probably meant, and formatWhatIf prints it", () => {
    const user = sample.users.find((u) => u.id === "u-dev1") as (typeof sample.users)[number];
    const at = sample.users.indexOf(user);
    const byRecipe = whatIf(sample, (w) => void ((w.users[at] as Loose).status = "DISABLD"));
    expect(byRecipe.ok && byRecipe.value.edit.warnings).toEqual([{ code: "UNKNOWN_ENUM_VALUE", path: `edit.users[${at}].status`, message: '"DISABLD" is not a known value; did you mean "DISABLED"?' }]);
    expect(byRecipe.ok && formatWhatIf(byRecipe.value)).toContain(`Warning: edit.users[${at}].status: "DISABLD" is not a known value; did you mean "DISABLED"?`);
    const byPatch = whatIf(sample, { users: [{ ...user, status: "DISABLD" } as never] });
    expect(byPatch.ok && byPatch.value.edit.warnings.map((w) => w.code)).toEqual(["UNKNOWN_ENUM_VALUE"]);
    // A value the service knows, in either spelling, is no warning.
    const fine = whatIf(sample, { users: [{ ...user, status: "USER_STATUS_DISABLED" } as never] });
    expect(fine.ok && fine.value.edit.warnings).toEqual([]);
  });
});

describe("whatIf refuses an edit too large to run, as a value, before compiling it (embedder review: 100,000 rules held a run for 53 s)", () => {
  const base = sample.policies.find((p) => p.id === "pol-prod-admin");
  if (!base) throw new Error("no pol-prod-admin in the sample");
  const rules = (n: number, tag = "") => Array.from({ length: n }, (_, i) => ({ ...base.rules?.[0], condition: `subject.department == "d${tag}${i}"` }));

  it("an edited policy of more than 256 rules (16 × the service's 16) is refused; 17 to 256 run, with the service's TOO_MANY_RULES among the saveErrors", () => {
    const over = whatIf(sample, (w) => void ((w.policies.find((p) => p.id === base.id) as Loose).rules = rules(257)));
    expect(over.ok).toBe(false);
    if (over.ok) return;
    expect(over.error).toMatchObject({ code: "INVALID_ARGUMENT", field: `edit.policies[${sample.policies.indexOf(base)}].rules` });
    expect(over.error.message).toMatch(/^the edit is too large to run at edit\.policies\[\d+\]\.rules: 257 rules: a what-if runs an edited policy of at most 256 \(the service saves at most 16\)/);
    const under = whatIf(sample, (w) => void ((w.policies.find((p) => p.id === base.id) as Loose).rules = rules(256)));
    expect(under.ok && under.value.edit.saveErrors.map((e) => e.code)).toContain("TOO_MANY_RULES");
    // A policy the edit did not touch is not counted, however many rules the world gave it.
    const wide = replaceInWorld(sample, { policies: [{ ...base, rules: rules(300) as never }] });
    expect(whatIf(wide, (w) => void (w.tenant.defaultPolicies["finding"] = "pol-finding-triage")).ok).toBe(true);
  });

  it("more new conditions than the compile cache keeps are refused; conditions the world already has are not counted", () => {
    const copies = (n: number, tag: string) => Array.from({ length: n }, (_, k) => ({ ...base, id: `pol-new-${tag}-${k}`, rules: rules(16, `${tag}${k}-`) }));
    const over = whatIf(sample, (w) => void w.policies.push(...(copies(626, "a") as never[])));
    expect(!over.ok && over.error).toMatchObject({ code: "INVALID_ARGUMENT", field: "edit.policies", message: expect.stringContaining("the edit brings 10016 conditions the world does not have; a what-if compiles at most 10000 new ones") as unknown });
    // Brought by configuration rules, the place says so.
    const configRules = Array.from({ length: 10_001 }, (_, k) => ({
      id: `rule-${k}`, appId: "app-github", displayName: "", description: "", condition: `entitlement.displayName == "e${k}"`, enabled: true, priority: k + 1,
      settings: { requestPolicyId: "", emergencyGrantEnabled: false, emergencyGrantPolicyId: "", maxGrantDuration: null, requestSchemaId: "" },
    }));
    const viaRules = whatIf(sample, (w) => void (w.entitlementConfigurationRules = configRules as never));
    expect(!viaRules.ok && viaRules.error).toMatchObject({ field: "edit.entitlementConfigurationRules", message: expect.stringContaining("10001 conditions the world does not have") as unknown });
    // Every policy rewritten with the conditions it had: nothing new to compile.
    const rewritten = whatIf(sample, (w) => void (w.policies = w.policies.map((p) => ({ ...p, displayName: `${p.displayName} (v2)` }))));
    expect(rewritten.ok).toBe(true);
  });

  it("new conditions are bounded by what compiling them costs: their characters together, and their patterns' weight together (hostile review: 10,026 conditions of heavy patterns held a run for 104 s)", () => {
    const withRules = (conditions: readonly string[]) => (w: Loose) => {
      const p = (w.policies as Loose[]).find((x) => x["id"] === base.id) as Loose;
      p["rules"] = conditions.map((condition) => ({ ...base.rules?.[0], condition }));
    };
    // 60 conditions of weight ~10,000 each: past 500,000, refused before any is compiled.
    const heavy = (n: number) => Array.from({ length: n }, (_, i) => `subject.email.matches("(?:abcdefgh${i}){1000}")`);
    const over = whatIf(sample, withRules(heavy(60)) as never);
    expect(!over.ok && over.error).toMatchObject({ code: "INVALID_ARGUMENT", field: "edit.policies", message: expect.stringContaining("the patterns of the edit's new conditions (matches) weigh more than 500,000 together") as unknown });
    // 16 of them run (the service's limit of rules), each pattern compiled as its condition is checked.
    expect(whatIf(sample, withRules(heavy(16)) as never).ok).toBe(true);
    // The same texts without matches() are not weighed as patterns.
    expect(whatIf(sample, withRules(Array.from({ length: 60 }, (_, i) => `subject.email == "(?:abcdefgh${i}){1000}"`)) as never).ok).toBe(true);
    // A comment cannot hide the patterns (diff review: `// \"\"\"[` … `// ]\"\"\"` read as one literal), nor a raw string.
    const hidden = heavy(60).map((c) => `// """[\n${c}\n// ]"""`);
    expect(whatIf(sample, withRules(hidden) as never)).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT", message: expect.stringContaining("weigh more than 500,000") } });
    const raw = Array.from({ length: 60 }, (_, i) => `matches(subject.email, r"(?:abcdefgh${i}){1000}")`);
    expect(whatIf(sample, withRules(raw) as never)).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT", message: expect.stringContaining("weigh more than 500,000") } });
    // Only the patterns are weighed: a long list of ids beside a small pattern is not one (45 × 1,500
    // ids, ~800,000 if every literal were weighed as a pattern).
    const ids = `[${Array.from({ length: 1500 }, (_, k) => `"u-${String(k).padStart(10, "0")}"`).join(", ")}]`;
    const listed = Array.from({ length: 45 }, (_, i) => `subject.id in ${ids} && subject.email.matches("^a${i}")`);
    expect(whatIf(sample, withRules(listed) as never).ok).toBe(true);
    // 21 conditions of 99,000 characters: past 2,000,000 characters together.
    const long = Array.from({ length: 21 }, (_, i) => `subject.department == "${String(i).padEnd(99_000, "x")}"`);
    const chars = whatIf(sample, withRules(long) as never);
    expect(!chars.ok && chars.error.message).toContain("the new conditions of the edit are more than 2,000,000 characters together");
  });
});
