import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mergeWhatIfResults, whatIf, type WhatIfOptions, type WhatIfResult, type WorldPatch } from "policy-sim";
import { applyPolicyMutation, arbPolicyMutation, arbWorldRecipe, worldFromRecipe } from "policy-sim/testing/arbitraries";
import { createWhatIfPool, type WhatIfPool } from "policy-sim/whatif-pool";
import { patchBetween, sampleJson, sampleWorld, value } from "./helpers.js";

const ANY: WhatIfOptions = { scope: { states: "any" } };

describe("whatIf shards", () => {
  it("the shards of a run, merged in order, are the whole run", () => {
    fc.assert(
      fc.property(arbWorldRecipe({ maxTasks: 40, maxRules: 6, maxPolicies: 4, maxMutations: 1 }), fc.array(arbPolicyMutation, { minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 5 }), (recipe, mutations, count) => {
        const world = worldFromRecipe(recipe);
        const patch = patchBetween(world, mutations.reduce(applyPolicyMutation, world));
        const whole = value(whatIf(world, patch, ANY));
        const parts = Array.from({ length: count }, (_, index) => value(whatIf(world, patch, { ...ANY, shard: { index, count } })));
        expect(parts.reduce((n, p) => n + p.counts.inScope, 0)).toBe(whole.counts.inScope);
        expect(value(mergeWhatIfResults(parts))).toEqual(whole);
      }),
      { numRuns: 60 },
    );
  });

  it("refuses a shard that is not one and parts that are not of one run", () => {
    const world = sampleWorld();
    for (const shard of [{ index: 2, count: 2 }, { index: -1, count: 2 }, { index: 0, count: 0 }, { index: 0.5, count: 2 }])
      expect(whatIf(world, {}, { shard })).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT", field: "options.shard" } });
    expect(mergeWhatIfResults([])).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT" } });
    const a = value(whatIf(world, {}, ANY));
    const b = value(whatIf(world, { now: "2030-01-01T00:00:00Z" }, ANY));
    expect(mergeWhatIfResults([a, b])).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT" } });
  });
});

describe("createWhatIfPool", () => {
  const world = worldFromRecipe({ seed: 3, tasks: 400, rulesPerPolicy: 6, policies: 3, matchAt: "mixed", mutations: [] });
  let pool: WhatIfPool;

  beforeAll(async () => {
    pool = value(await createWhatIfPool(world, { threads: 3 }));
  });
  afterAll(async () => {
    await pool.close();
  });

  it("gives exactly whatIf's result, for edits of every kind", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(arbPolicyMutation, { minLength: 1, maxLength: 3 }), fc.nat(), fc.boolean(), async (mutations, u, any) => {
        const user = world.users[u % world.users.length];
        const patch: WorldPatch = {
          ...patchBetween(world, mutations.reduce(applyPolicyMutation, world)),
          ...(user ? { users: [{ ...user, department: user.department === "Security" ? "Finance" : "Security" }] } : {}),
        };
        const options: WhatIfOptions = any ? ANY : {};
        const expected: WhatIfResult = value(whatIf(world, patch, options));
        expect(value(await pool.whatIf(patch, options))).toEqual(expected);
      }),
      { numRuns: 12 },
    );
  });

  it("runs that overlap each get their own result", async () => {
    const patches: WorldPatch[] = [{}, { now: "2031-06-01T12:00:00Z" }, patchBetween(world, applyPolicyMutation(world, { kind: "negateCondition", policy: 0, rule: 0 }))];
    const results = await Promise.all(patches.map((p) => pool.whatIf(p, ANY)));
    results.forEach((r, i) => expect(value(r)).toEqual(value(whatIf(world, patches[i] as WorldPatch, ANY))));
  });

  it("refuses recipes and anything else that cannot cross threads, naming it, and goes on serving", async () => {
    const recipe = (() => {}) as unknown as WorldPatch;
    expect(await pool.whatIf(recipe)).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT", field: "edit" } });
    const uncloneable = { policies: [() => 1] } as unknown as WorldPatch;
    // The place is named, as whatIf in this thread names it (embedder review: it said only "edit").
    expect(await pool.whatIf(uncloneable)).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT", field: "edit.policies[0]" } });
    const named = { policies: [{ ...world.policies[0], displayName: () => 1 }] } as unknown as WorldPatch;
    expect(await pool.whatIf(named)).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT", field: "edit.policies[0].displayName", message: expect.stringMatching(/^edit\.policies\[0\]\.displayName cannot be sent to the threads/) as unknown } });
    const badScope = { scope: { taskIds: [Symbol("x")] } } as unknown as WhatIfOptions;
    expect(await pool.whatIf({}, badScope)).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT", field: "options.scope.taskIds[0]" } });
    // An unknown option lists what a pool takes, not the options only a thread's whatIf has.
    const unknown = await pool.whatIf({}, { scope: { states: "any" }, frobnicate: true } as unknown as WhatIfOptions);
    expect(unknown).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT", field: "options.frobnicate", message: "options.frobnicate is not an option of a pool's whatIf; the keys are scope, prune" } });
    expect(await pool.whatIf({}, { prun: false } as unknown as WhatIfOptions)).toMatchObject({ ok: false, error: { message: "options.prun is not an option of a pool's whatIf; did you mean prune?" } });
    // null options are no options.
    expect(value(await pool.whatIf({}, null as unknown as WhatIfOptions))).toEqual(value(whatIf(world, {})));
    // Options the threads' whatIf does not understand are refused as whatIf refuses them, never "no change".
    const open = { scope: { states: ["open"] } } as unknown as WhatIfOptions;
    expect(await pool.whatIf({}, open)).toEqual(whatIf(world, {}, open));
    expect(await pool.whatIf({}, open)).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT", field: "options.scope.states[0]" } });
    // What only one thread's whatIf offers is refused, not silently dropped.
    for (const [field, v] of [["onProgress", () => undefined], ["shard", { index: 0, count: 2 }]] as const)
      expect(await pool.whatIf({}, { [field]: v } as unknown as WhatIfOptions)).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT", field: `options.${field}` } });
    const singular = { scope: { task: ["1001"] } } as unknown as WhatIfOptions;
    expect(await pool.whatIf({}, singular)).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT", field: "options.scope.task" } });
    expect(await pool.whatIf({ polices: [] } as unknown as WorldPatch)).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT", field: "edit.polices" } });
  });

  it("loads a world file or its JSON, and says why a world does not load", async () => {
    const fromJson = value(await createWhatIfPool({ json: sampleJson() }, { threads: 1 }));
    const sample = sampleWorld();
    expect(value(await fromJson.whatIf({}, ANY))).toEqual(value(whatIf(sample, {}, ANY)));
    await fromJson.close();
    expect(await fromJson.whatIf({})).toMatchObject({ ok: false, error: { code: "FAILED_PRECONDITION" } });

    const broken = await createWhatIfPool({ json: { users: "nobody" } }, { threads: 2 });
    expect(broken).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT", field: "world" } });
    const missing = await createWhatIfPool({ file: "/nonexistent/world.json" }, { threads: 1 });
    expect(missing).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT", field: "world" } });
    for (const threads of [0, 1.5, 99])
      expect(await createWhatIfPool({ json: sampleJson() }, { threads })).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT", field: "threads" } });
  });
});
