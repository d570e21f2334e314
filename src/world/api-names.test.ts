/**
 * Issue 13: a world file written with the API's names (`batonResourceAction…`, `c1UserPicker`, as
 * openapi.yaml and a pulled tenant write them) loads as the spec's (`svcResourceAction…`,
 * `svcUserPicker`), so the engine acts on them, and saves back with the names it came with.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hardReset, loadWorld, loadWorldChunks, saveWorld, type World } from "policy-sim";
import { sampleJson, SUPER, worldOf } from "../../test/helpers.js";
import { API_TO_SPEC_NAMES, scanNames, toApiNames, toApiNamesAt, toSpecNames } from "../codec/spec-names.js";
import type { Form } from "../model/form.js";
import { validateFormValues } from "../workflow/form-validation.js";

const canonical = JSON.stringify(saveWorld(worldOf(sampleJson())));
const apiText = JSON.stringify(toApiNames(JSON.parse(canonical)));

function formOf(world: World, policyId: string): Form {
  const forms = Object.values(world.index.policies.get(policyId)?.policySteps ?? {})
    .flatMap((s) => s.steps ?? [])
    .flatMap((s) => (s.kind === "form" && s.form ? [s.form] : []));
  expect(forms.length).toBeGreaterThan(0);
  return forms[0] as Form;
}

describe("openapi.yaml / the spec: world files written with the API's names (batonResourceAction, c1UserPicker)", () => {
  it("the API-named sample really uses the API's names (the fixture this test rests on)", () => {
    expect(apiText).toMatch(/"batonResourceAction"/);
    expect(apiText).toMatch(/"batonResourceActionInstance"/);
    expect(apiText).toMatch(/"c1UserPicker"/);
    expect(apiText).not.toMatch(/"svc(ResourceAction|UserPicker|Action)/);
  });

  it("loads to the same model as the spec-named world, so an action step is a svcResourceAction step", () => {
    const api = worldOf(JSON.parse(apiText));
    const spec = worldOf(JSON.parse(canonical));
    expect(JSON.stringify(api.index.policies.get("pol-offboarding"))).toMatch(/"kind":"svcResourceAction"/);
    expect(JSON.stringify(api.index.policies.get("pol-offboarding"))).not.toMatch(/baton/);
    expect(JSON.stringify(api.policies)).toBe(JSON.stringify(spec.policies));
    expect(JSON.stringify([...api.tasks.values()])).toBe(JSON.stringify([...spec.tasks.values()]));
  });

  it("Hard Reset of an offboarding task runs its action step as an action step, as with the spec's names", () => {
    const run = (text: string) => {
      const world = worldOf(JSON.parse(text));
      const r = hardReset(world, { taskId: "1051" }, { actorId: SUPER });
      if (!r.ok) throw new Error(r.error.message);
      return { response: JSON.stringify(r.value.response) };
    };
    const bySpec = run(canonical);
    const byApi = run(apiText);
    expect(byApi.response).toBe(bySpec.response);
    expect(bySpec.response).toMatch(/"svcResourceActionInstance"/);
  });

  it("a c1UserPicker form field validates as a user picker", () => {
    const world = worldOf(JSON.parse(apiText));
    const form = formOf(world, "pol-finance-form");
    const manager = form.fields?.find((f) => f.name === "manager");
    expect(JSON.stringify(manager)).toMatch(/"kind":"svcUserPicker"/);
    const bad = validateFormValues(form, { manager: "nobody-such" }, { now: world.now, world });
    expect(bad.problems).toContainEqual(expect.objectContaining({ field: "manager", message: expect.stringContaining('"nobody-such" is not a user') }));
    const good = validateFormValues(form, { manager: SUPER }, { now: world.now, world });
    expect(good.problems.filter((p) => p.field === "manager")).toEqual([]);
  });

  it("saveWorld(loadWorld(x)) is byte-identical for API-named and spec-named input, whole or streamed", () => {
    for (const text of [apiText, canonical]) {
      expect(JSON.stringify(saveWorld(worldOf(JSON.parse(text))))).toBe(text);
      const streamed = loadWorldChunks([new TextEncoder().encode(text)]);
      if (!streamed.ok) throw new Error(streamed.error[0]?.message);
      expect(JSON.stringify(saveWorld(streamed.value))).toBe(text);
    }
  });

  it("an API-named task keeps its names after Hard Reset rebuilt it, and a spec-named one keeps the spec's", () => {
    for (const [text, names, not] of [[apiText, /"batonResourceAction"/, /"svc(ResourceAction|UserPicker|Action)/], [canonical, /"svcResourceAction"/, /"baton|"c1UserPicker"/]] as const) {
      const world = worldOf(JSON.parse(text));
      const r = hardReset(world, { taskId: "1051" }, { actorId: SUPER });
      if (!r.ok) throw new Error(r.error.message);
      const saved = JSON.stringify(saveWorld(r.value.world));
      const task = (JSON.parse(saved) as { tasks: { numericId: string }[] }).tasks.find((t) => t.numericId === "1051");
      expect(JSON.stringify(task)).toMatch(names);
      expect(saved).not.toMatch(not);
    }
  });

  it("a document that mixes both namings (one picker c1UserPicker, another svcUserPicker) saves back exactly as it came, whole or streamed", () => {
    const sample = JSON.parse(canonical) as { policies: Record<string, unknown>[] };
    // Rename only the first svcUserPicker of the whole file to the API's name.
    let done = false;
    const mixOnce = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(mixOnce);
      if (typeof v !== "object" || v === null) return v;
      return Object.fromEntries(
        Object.entries(v).map(([k, x]) => {
          if (k === "svcUserPicker" && !done) {
            done = true;
            return ["c1UserPicker", x];
          }
          return [k, mixOnce(x)];
        }),
      );
    };
    const mixed = mixOnce(sample) as typeof sample;
    const text = JSON.stringify(mixed);
    expect(done).toBe(true);
    expect(text).toMatch(/"c1UserPicker"/);
    expect(text).toMatch(/"svcUserPicker"/);
    expect(JSON.stringify(saveWorld(worldOf(JSON.parse(text))))).toBe(text);
    const streamed = loadWorldChunks([new TextEncoder().encode(text)]);
    if (!streamed.ok) throw new Error(streamed.error[0]?.message);
    expect(JSON.stringify(saveWorld(streamed.value))).toBe(text);
  });

  it("property: renaming back exactly the keys a mixed document renamed gives the document again", () => {
    const keys = fc.constantFrom("batonResourceAction", "c1UserPicker", "svcUserPicker", "svcActionName", "batonActionName", "id", "x");
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: "small" }, fc.string(), fc.integer(), fc.array(tie("value"), { maxLength: 3 }), fc.dictionary(keys, tie("value"), { maxKeys: 4 })),
    })).value;
    fc.assert(
      fc.property(json, (j) => {
        // Where an object has both names the API's stays as written, so only the renamed keys go back;
        // with the same value on both (serve's answers: withApiAliases) they are one field, the spec's.
        // (Compared as values: toSpecNames may move a renamed key last; the codec writes its own order.)
        expect(toApiNamesAt(toSpecNames(j), scanNames(j).paths)).toEqual(withoutEqualAliases(j));
      }),
    );
  });

  it("property: renaming to the API's names and back is the identity on spec-named JSON", () => {
    const keys = fc.constantFrom("svcResourceAction", "svcUserPicker", "svcActionName", "id", "kind", "x");
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: "small" }, fc.string(), fc.integer(), fc.array(tie("value"), { maxLength: 3 }), fc.dictionary(keys, tie("value"), { maxKeys: 4 })),
    })).value;
    fc.assert(
      fc.property(json, (j) => {
        // toSpecNames may move a renamed key last; the codec writes its fields in its own order anyway.
        expect(toSpecNames(toApiNames(j))).toEqual(j);
      }),
    );
  });
});

describe("loadWorld of a spec-named world is unchanged by the API names", () => {
  it("a world without the API's names saves with the spec's", () => {
    const r = loadWorld(JSON.parse(canonical));
    expect(r.ok).toBe(true);
    if (r.ok) expect(JSON.stringify(saveWorld(r.value))).not.toMatch(/baton|c1UserPicker/);
  });
});

/** `j` without each API-named key whose spec-named twin in the same object holds an equal value. */
function withoutEqualAliases(j: unknown): unknown {
  if (Array.isArray(j)) return j.map(withoutEqualAliases);
  if (typeof j !== "object" || j === null) return j;
  const o = j as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    const spec = API_TO_SPEC_NAMES[k];
    if (spec !== undefined && Object.hasOwn(o, spec)) {
      if (sortedJson(toSpecNames(o[spec])) === sortedJson(toSpecNames(v))) continue;
      // An API-named key beside its spec-named twin with another value is kept as written, its
      // contents too (toSpecNames renames nothing inside it).
      out[k] = v;
      continue;
    }
    out[k] = withoutEqualAliases(v);
  }
  return out;
}

/** JSON text with every object's keys sorted: equal for values equal whatever their key order. */
function sortedJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(",")}]`;
  if (typeof v !== "object" || v === null) return JSON.stringify(v);
  return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${sortedJson((v as Record<string, unknown>)[k])}`).join(",")}}`;
}
