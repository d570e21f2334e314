// whatIf's options (and the patch) as JavaScript callers pass them: anything. Every option is
// decoded up front — an unknown key or a value of the wrong type is INVALID_ARGUMENT naming the
// place — and valid options select exactly the tasks they say, as before.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Task, whatIf, type WhatIfOptions, type WhatIfResult, whatIfWorlds, type WorldPatch } from "policy-sim";
import { applyPolicyMutation, arbPolicyMutation } from "policy-sim/testing/arbitraries";
import { patchBetween, sampleJson, sampleWorld, value, worldOf } from "./helpers.js";

const world = sampleWorld();

const dropRule2: WorldPatch = (() => {
  const p = world.index.policies.get("pol-prod-admin");
  if (!p?.rules) throw new Error("the sample has no pol-prod-admin");
  return { policies: [{ ...p, rules: p.rules.filter((_, i) => i !== 2) }] };
})();

/** Calls whatIf with options as a JavaScript caller would: no type stands in the way. */
const run = (options: unknown, edit: unknown = {}): ReturnType<typeof whatIf> => whatIf(world, edit as WorldPatch, options as WhatIfOptions);

describe("whatIf refuses options it does not understand, naming the place", () => {
  it("a scope of the wrong shape is INVALID_ARGUMENT, not 'no task changes'", () => {
    const cases: [unknown, string, RegExp][] = [
      [{ scope: { states: ["open"] } }, "options.scope.states[0]", /TASK_STATE_UNSPECIFIED, TASK_STATE_OPEN, TASK_STATE_CLOSED, or another state a task of the world has\), got string "open" \(did you mean "TASK_STATE_OPEN"\?\)/],
      [{ scope: { states: "all" } }, "options.scope.states", /"any" or a list of task states.*did you mean "any"/],
      [{ scope: { states: ["any"] } }, "options.scope.states[0]", /states: "any", not in a list/],
      [{ scope: { types: "grant" } }, "options.scope.types", /list of task kinds \(grant, revoke, certify, offboarding, action, finding, unknown\).*did you mean \["grant"\]/],
      [{ scope: { types: ["Grant"] } }, "options.scope.types[0]", /did you mean "grant"/],
      [{ scope: { appIds: "app-aws" } }, "options.scope.appIds", /list of app ids.*did you mean \["app-aws"\]/],
      [{ scope: { task: ["1001"] } }, "options.scope.task", /not a scope filter; did you mean taskIds/],
      [{ scope: { taskIds: "1001" } }, "options.scope.taskIds", /did you mean \["1001"\]/],
      [{ scope: { taskIds: [1001] } }, "options.scope.taskIds[0]", /got number 1001 \(did you mean "1001"\?\)/],
      [{ scope: { entitlements: ["app-aws/ent-aws-prod-admin"] } }, "options.scope.entitlements[0]", /did you mean \{ appId: "app-aws", id: "ent-aws-prod-admin" \}/],
      [{ scope: { entitlements: [{ appId: "app-aws", entitlementId: "x" }] } }, "options.scope.entitlements[0].entitlementId", /did you mean id/],
      [{ scope: { constructor: ["x"] } }, "options.scope.constructor", /not a scope filter; the keys are states, types, appIds, entitlements, taskIds/],
      [{ scope: "open" }, "options.scope", /must be an object/],
      [{ state: "open" }, "options.state", /not an option of whatIf; did you mean scope: \{ states \}/],
      [{ taskIds: ["1001"] }, "options.taskIds", /did you mean scope: \{ taskIds \}/],
      [{ prune: "no" }, "options.prune", /true or false/],
      [{ onProgress: 1 }, "options.onProgress", /must be a function/],
      [{ shard: { index: 0, count: 1, of: 2 } }, "options.shard.of", /not a key of a shard/],
      [{ shard: { index: 2, count: 2 } }, "options.shard", /0 ≤ index < count/],
      [[], "options", /must be an object/],
      ["any", "options", /must be an object/],
    ];
    for (const [options, field, message] of cases) {
      const r = run(options, []);
      expect(r.ok, JSON.stringify(options)).toBe(false);
      if (r.ok) continue;
      expect(r.error).toMatchObject({ code: "INVALID_ARGUMENT", field });
      expect(r.error.message, JSON.stringify(options)).toMatch(message);
      expect(r.error.message.startsWith(field)).toBe(true);
    }
  });

  it("a scope naming an app, entitlement or task the world does not have is refused with the closest id: no false all-clear", () => {
    const refused = (scope: object) => whatIf(world, () => {}, { scope } as WhatIfOptions);
    expect(refused({ appIds: ["app-aws", "app-awz"] })).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT", field: "options.scope.appIds[1]", message: expect.stringContaining('(did you mean "app-aws"?)') } });
    expect(refused({ entitlements: [{ appId: "app-aws", id: "ent-aws-prod-admn" }] })).toMatchObject({ ok: false, error: { field: "options.scope.entitlements[0]", message: expect.stringContaining('did you mean "ent-aws-prod-admin"') } });
    expect(refused({ taskIds: ["1001", "99999"] })).toMatchObject({ ok: false, error: { field: "options.scope.taskIds[1]", message: expect.stringContaining('task "99999"') } });
    expect(value(whatIf(world, () => {}, { scope: { taskIds: ["1001"] } })).counts.inScope).toBe(1);
  });

  it("whatIfWorlds decodes the same options", () => {
    expect(whatIfWorlds(world, world, { scope: { states: ["open"] } } as unknown as WhatIfOptions)).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT", field: "options.scope.states[0]" } });
    expect(value(whatIfWorlds(world, world, { scope: { states: ["TASK_STATE_OPEN"] } })).counts.inScope).toBe(37);
  });

  it("a state this version does not know is taken when a task of the world has it, refused as a typo otherwise", () => {
    // Task states are an open enum: a later service's state reads as it came. A typo selects nothing.
    const typo = run({ scope: { states: ["TASK_STATE_CLOSD"] } });
    expect(typo).toMatchObject({ ok: false, error: { field: "options.scope.states[0]" } });
    expect(!typo.ok && typo.error.message).toContain('did you mean "TASK_STATE_CLOSED"?');
    expect(run({ scope: { states: ["TASK_STATE_ADDED_LATER"] } })).toMatchObject({ ok: false, error: { field: "options.scope.states[0]" } });
    const json = sampleJson();
    const tasks = json["tasks"] as { state: string }[];
    (tasks[0] as { state: string }).state = "TASK_STATE_ADDED_LATER";
    const later = worldOf(json);
    expect(value(whatIf(later, {}, { scope: { states: ["TASK_STATE_ADDED_LATER"] } })).counts.inScope).toBe(1);
    expect(value(whatIf(later, {}, { scope: { states: ["TASK_STATE_ADDED_LATER", "TASK_STATE_UNSPECIFIED"] } })).counts.inScope).toBe(1);
  });

  it("null options are the defaults, and the options are read once (what was checked is what runs)", () => {
    expect(value(run(null)).counts.inScope).toBe(37);
    let reads = 0;
    const flaky = {
      get scope(): unknown {
        reads++;
        return reads === 1 ? { taskIds: ["1001"] } : { taskIds: "1001" };
      },
    };
    expect(value(run(flaky, dropRule2)).counts.inScope).toBe(1);
    expect(reads).toBe(1);
  });

  it("an onProgress that throws stops the run with its message, at options.onProgress", () => {
    const boom = run({ onProgress: () => { throw new Error("cancelled by the user"); } });
    expect(boom).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT", field: "options.onProgress" } });
    expect(!boom.ok && boom.error.message).toContain("cancelled by the user");
    // Even a thrown value String() cannot print.
    expect(run({ onProgress: () => { throw Object.create(null); } })).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT", field: "options.onProgress" } });
    expect(run((() => { throw Object.create(null); }) as unknown)).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT", field: "options" } });
  });

  it("a patch that names nothing it knows is refused too", () => {
    expect(run({}, [])).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT", field: "edit" } });
    const typo = run({}, { polices: dropRule2.policies });
    expect(typo).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT", field: "edit.polices" } });
    expect(!typo.ok && typo.error.message).toContain("did you mean policies?");
    expect(run({}, { now: 5 })).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT", field: "edit.now" } });
    expect(run({}, { now: "tomorrow" })).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT", field: "edit.now" } });
    expect(value(run({}, { now: "2031-06-01T12:00:00Z" })).counts.inScope).toBe(37);
    // A recipe that throws something String() cannot print is still the edit's failure, not ours.
    expect(whatIf(world, () => { throw Object.create(null); })).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT", field: "edit" } });
  });
});

// ---- properties ----

const junk = fc.anything({ withBigInt: true, withDate: true, withMap: true, withSet: true, withNullPrototype: true, withSparseArray: true, withBoxedValues: true, maxDepth: 2 });
const orJunk = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<unknown> => fc.oneof({ weight: 3, arbitrary: a }, { weight: 1, arbitrary: junk });
const listOrJunk = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<unknown> => orJunk(fc.array(orJunk(a), { maxLength: 3 }));
const taskIdsOfWorld = [...world.tasks.values()].flatMap((t) => [t.id, t.numericId]);
const appIds = world.apps.map((a) => a.id);
const ents = world.entitlements.map((e) => ({ appId: e.appId, id: e.id }));
const STATES = ["TASK_STATE_OPEN", "TASK_STATE_CLOSED", "TASK_STATE_UNSPECIFIED"] as const;
const KINDS = ["grant", "revoke", "certify", "offboarding", "action", "finding", "unknown"] as const;
const someKey = fc.constantFrom("task", "state", "type", "app", "constructor", "__proto__", "toString", "hasOwnProperty", "scope", "prune");

/** Option objects as anyone might write them: mostly the right keys, sometimes wrong values or keys. */
const arbAnyOptions: fc.Arbitrary<unknown> = orJunk(
  fc
    .tuple(
      fc.record(
        {
          scope: orJunk(
            fc.tuple(
              fc.record(
                {
                  states: fc.oneof(fc.constant("any"), fc.constant("open"), listOrJunk(fc.constantFrom(...STATES, "open", "any", "weird"))),
                  types: listOrJunk(fc.constantFrom(...KINDS, "Grant", "nope")),
                  appIds: listOrJunk(fc.constantFrom(...appIds, "", "app-none")),
                  entitlements: listOrJunk(fc.oneof(fc.constantFrom(...ents), fc.record({ appId: orJunk(fc.constantFrom(...appIds)), id: junk }))),
                  taskIds: listOrJunk(fc.constantFrom(...taskIdsOfWorld, "9999")),
                },
                { requiredKeys: [] },
              ),
              fc.dictionary(someKey, junk, { maxKeys: 1 }),
            ).map(([a, b]) => ({ ...b, ...a })),
          ),
          prune: orJunk(fc.boolean()),
          onProgress: orJunk(fc.func(fc.anything())),
          shard: orJunk(fc.record({ index: orJunk(fc.integer({ min: -1, max: 3 })), count: orJunk(fc.integer({ min: 0, max: 3 })) })),
        },
        { requiredKeys: [] },
      ),
      fc.dictionary(someKey, junk, { maxKeys: 1 }),
    )
    .map(([a, b]) => ({ ...b, ...a })),
);

describe("whatIf over arbitrary options (fast-check)", () => {
  it("never throws and never answers INTERNAL; a refusal is INVALID_ARGUMENT at a path under options", () => {
    fc.assert(
      fc.property(arbAnyOptions, fc.boolean(), (options, edited) => {
        let r: ReturnType<typeof whatIf> | undefined;
        expect(() => (r = run(options, edited ? dropRule2 : {}))).not.toThrow();
        if (r === undefined || r.ok) return;
        expect(r.error.code).toBe("INVALID_ARGUMENT");
        const field = (r.error as { field?: string }).field ?? "";
        expect(field === "options" || field.startsWith("options.") || field.startsWith("options[")).toBe(true);
        expect(r.error.message.length).toBeGreaterThan(field.length);
      }),
      { numRuns: 300 },
    );
  });

  // The independent reading of a scope: what each filter means, written out again.
  const kindOf = (t: Task): string => (t.type ? t.type.kind : "");
  const onEntitlement = (t: Task): { appId: string; id: string } | null =>
    t.type && (t.type.kind === "grant" || t.type.kind === "revoke" || t.type.kind === "certify") ? { appId: t.type.appId, id: t.type.appEntitlementId } : null;
  const byIdOrNumericId = (x: string, t: Task): boolean => x === t.id || (!world.tasks.has(x) && world.taskIdByNumericId.get(x) === t.id);
  const inScope = (scope: NonNullable<WhatIfOptions["scope"]>) => (t: Task): boolean => {
    const states = scope.states ?? ["TASK_STATE_OPEN"];
    if (states !== "any" && !states.includes(t.state)) return false;
    if (scope.types && !scope.types.some((k) => k === kindOf(t))) return false;
    if (scope.taskIds && !scope.taskIds.some((x) => byIdOrNumericId(x, t))) return false;
    const e = onEntitlement(t);
    if (scope.appIds && !(e && scope.appIds.includes(e.appId))) return false;
    if (scope.entitlements && !(e && scope.entitlements.some((x) => x.appId === e.appId && x.id === e.id))) return false;
    return true;
  };
  const arbScope: fc.Arbitrary<NonNullable<WhatIfOptions["scope"]>> = fc.record(
    {
      // Non-empty lists: an empty one is refused (no task would be in scope; see below).
      states: fc.oneof(fc.constant("any" as const), fc.subarray([...STATES], { minLength: 1 })),
      types: fc.subarray([...KINDS], { minLength: 1 }),
      appIds: fc.subarray(appIds, { minLength: 1 }),
      entitlements: fc.subarray(ents, { minLength: 1, maxLength: 4 }),
      taskIds: fc.subarray(taskIdsOfWorld, { minLength: 1, maxLength: 6 }),
    },
    { requiredKeys: [] },
  );

  it("an empty filter list is refused, naming it: no task would be in scope and the run would say nothing changes (what-if review 8)", () => {
    for (const key of ["states", "types", "appIds", "entitlements", "taskIds"]) {
      const r = whatIf(world, {}, { scope: { [key]: [] } });
      expect(r.ok).toBe(false);
      expect(!r.ok && r.error).toMatchObject({ code: "INVALID_ARGUMENT", field: `options.scope.${key}`, message: expect.stringContaining("empty list") });
    }
  });

  it("valid options select exactly the tasks they say, pruned or not, with the routes of the whole run", () => {
    fc.assert(
      fc.property(fc.array(arbPolicyMutation, { minLength: 1, maxLength: 2 }), arbScope, fc.option(fc.boolean(), { nil: undefined }), (mutations, scope, prune) => {
        const patch = patchBetween(world, mutations.reduce(applyPolicyMutation, world));
        const whole: WhatIfResult = value(whatIf(world, patch, { scope: { states: "any" }, prune: false }));
        const r = value(whatIf(world, patch, { scope, ...(prune === undefined ? {} : { prune }) }));
        const keep = inScope(scope);
        const task = (id: string): Task => world.tasks.get(id) as Task;
        expect(r.counts.inScope).toBe([...world.tasks.values()].filter(keep).length);
        expect(r.changed).toEqual(whole.changed.filter((c) => keep(task(c.taskId))));
        expect(r.unchangedErrors).toEqual(whole.unchangedErrors.filter((c) => keep(task(c.taskId))));
      }),
      { numRuns: 40 },
    );
  });
});
