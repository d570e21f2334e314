/**
 * The fuzz campaign's targets (issue 15.7): each is a fast-check property over hostile input that
 * every public entry point must hold, whatever it is given:
 * - it does not throw and returns a `Result` (or the documented plain value: a list of findings);
 * - its input, deep-frozen before the call, is untouched (a write to it would throw; its JSON is
 *   compared before and after as well);
 * - called twice on the same input it gives byte-identical output (JSON of the result, and of the
 *   saved world for reducers).
 * `npm run fuzz` runs them at any count (scripts/fuzz.ts); the test suite runs a small count of the
 * very same properties (test/fuzz.test.ts).
 */
import fc from "fast-check";
import { checkApproverExpression, checkCondition } from "../../src/cel/compile.js";
import { decodePolicy, decodeTask, encodePolicy, encodeTask } from "../../src/codec/index.js";
import type { JsonValue } from "../../src/model/json.js";
import { lintPolicy } from "../../src/policy/lint.js";
import { comment } from "../../src/reducers/comment.js";
import { hardReset } from "../../src/reducers/hard-reset.js";
import { reduce, WORKFLOW_ACTION_TYPES, type WorkflowAction } from "../../src/reducers/reduce.js";
import { arbWorldRecipe, worldFromRecipe, type WorldRecipe } from "../../src/testing/arb-world.js";
import { deepFreeze, loadWorld, loadWorldChunks } from "../../src/world/load-world.js";
import { saveWorld } from "../../src/world/save-world.js";
import type { World } from "../../src/world/world.js";

/** One fuzz target: a name, what it covers, and its property. */
export interface FuzzTarget {
  readonly name: string;
  readonly covers: string;
  readonly property: () => fc.IProperty<never> | fc.IProperty<unknown[]>;
}

/** Thrown by a check that failed; fast-check records it as the counterexample's reason. */
class Broken extends Error {}

function check(cond: boolean, what: string): void {
  if (!cond) throw new Broken(what);
}

/** JSON text of a value, or a marker when JSON cannot write it (which is itself a finding). */
function text(v: unknown): string {
  try {
    return JSON.stringify(v) ?? "undefined";
  } catch (e: unknown) {
    throw new Broken(`the output cannot be written as JSON: ${String(e)}`);
  }
}

function isResult(r: unknown): boolean {
  return typeof r === "object" && r !== null && typeof (r as { ok?: unknown }).ok === "boolean" && ("value" in r || "error" in r);
}

/**
 * Calls `f` on a deep-frozen `input` twice, checking: no throw, a Result (when `result`), input
 * unchanged, and the two outputs byte-identical (as `render` writes them).
 */
function holds(input: unknown, f: (input: unknown) => unknown, render: (out: unknown) => string, result: boolean): void {
  const frozen = deepFreeze(input);
  const before = text(frozen);
  const first = f(frozen);
  if (result) check(isResult(first), "did not return a Result");
  check(text(frozen) === before, "changed its input");
  const second = f(frozen);
  check(render(first) === render(second), "gave different output for the same input");
}

/** Hostile JSON: any JSON value, with the keys a world file and the wire use mixed in. */
const KEYS = ["id", "numericId", "policy", "policySteps", "rules", "condition", "steps", "approval", "history", "current", "next", "__proto__", "constructor", "toString", "type", "grant", "users", "tasks", "comments", "now", "seq", "$unknown"];
const hostileJson: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>,
    fc.dictionary(fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 6 })), tie("value"), { maxKeys: 6 }) as fc.Arbitrary<JsonValue>,
    fc.array(tie("value"), { maxLength: 4 }) as fc.Arbitrary<JsonValue>,
  ),
})).value;

/** JSON parsed from text, so `__proto__` keys are own keys as in a real file. */
const parsedHostile: fc.Arbitrary<JsonValue> = hostileJson.map((v) => JSON.parse(JSON.stringify(v)) as JsonValue);

const CEL = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc
    .array(
      fc.constantFrom("subject", ".", "department", "==", '"x"', "&&", "||", "!", "(", ")", "[", "]", "1", "99999999999999999999", "size(", "all(", "x", ",", "in", "task", "entitlement", "now()", "timestamp(", "'2026'", "?", ":", "map(", "exists(", "has(", "profile", "{", "}", "-", "*", "/", "%", "0", "1.5", "null", "true", "b'x'", "uint(", "int(", "double("),
      { maxLength: 16 },
    )
    .map((parts) => parts.join(" ")),
);

/** Small generated worlds (consistent, then mutated), shared by the reducer targets. */
const recipes = arbWorldRecipe({ maxTasks: 6, maxRules: 4, maxPolicies: 3, maxMutations: 2 });
const worldCache = new Map<string, World>();
function worldOf(r: WorldRecipe): World {
  const key = JSON.stringify(r);
  let w = worldCache.get(key);
  if (!w) {
    w = worldFromRecipe(r);
    if (worldCache.size > 200) worldCache.clear();
    worldCache.set(key, w);
  }
  return w;
}

const reducerRender = (out: unknown): string => {
  const r = out as { ok: boolean; value?: { world: World; response: unknown; events: unknown }; error?: unknown };
  return r.ok && r.value ? text({ response: r.value.response, events: r.value.events, world: saveWorld(r.value.world) }) : text(r.error);
};

/** A request built from a world: one of its tasks (or a stranger id), one of its users as actor, random fields. */
function arbCall(world: World) {
  const taskIds = [...world.tasks.values()].flatMap((t) => [t.id, t.numericId]);
  const userIds = world.users.map((u) => u.id);
  return fc.record({
    type: fc.constantFrom(...WORKFLOW_ACTION_TYPES, "noSuchAction"),
    taskId: fc.oneof(fc.constantFrom(...taskIds, "", "missing"), fc.string({ maxLength: 4 })),
    actorId: fc.oneof(fc.constantFrom(...userIds, "", "nobody")),
    comment: fc.oneof(fc.constant(undefined), fc.string({ maxLength: 12 }), hostileJson),
    extra: fc.dictionary(fc.constantFrom("policyStepId", "expandMask", "newStepUserIds", "policyId", "values", "reason", "errorMessage", "__proto__", "force"), hostileJson, { maxKeys: 3 }),
  });
}

function worldUntouched(world: World, call: () => unknown): void {
  const before = text(saveWorld(world));
  const out = call();
  check(isResult(out), "did not return a Result");
  check(text(saveWorld(world)) === before, "changed the world it was given");
}

/**
 * Every fuzz target.
 *
 * @example
 * ```ts
 * for (const t of FUZZ_TARGETS) fc.assert(t.property(), { numRuns: 10 });
 * ```
 */
export const FUZZ_TARGETS: readonly FuzzTarget[] = [
  {
    name: "codec.task",
    covers: "decodeTask on hostile JSON; encodeTask of what decodes",
    property: () =>
      fc.property(parsedHostile, (json) => {
        holds(json, decodeTask, text, true);
        const r = decodeTask(json);
        if (r.ok) holds(r.value, (t) => encodeTask(t as Parameters<typeof encodeTask>[0]), text, false);
      }),
  },
  {
    name: "codec.policy",
    covers: "decodePolicy on hostile JSON; encodePolicy of what decodes",
    property: () =>
      fc.property(parsedHostile, (json) => {
        holds(json, decodePolicy, text, true);
        const r = decodePolicy(json);
        if (r.ok) holds(r.value, (p) => encodePolicy(p as Parameters<typeof encodePolicy>[0]), text, false);
      }),
  },
  {
    name: "loadWorld.json",
    covers: "loadWorld on hostile JSON (also inside a world's known fields); saveWorld of what loads",
    property: () =>
      fc.property(
        fc.record({ users: parsedHostile, tasks: parsedHostile, policies: parsedHostile, comments: parsedHostile, tenant: parsedHostile, now: parsedHostile, extra: parsedHostile }, { requiredKeys: [] }),
        (json) => holds(json, (j) => loadWorld(j, { strict: false }), (r) => text((r as { ok: boolean; value?: World }).ok ? saveWorld((r as { value: World }).value) : (r as { error: unknown }).error), true),
      ),
  },
  {
    name: "loadWorld.saved",
    covers: "loadWorld of a generated world's file with one field replaced by hostile JSON",
    property: () =>
      fc.property(recipes, fc.nat(), parsedHostile, (recipe, at, junk) => {
        const json = JSON.parse(JSON.stringify(saveWorld(worldOf(recipe)))) as Record<string, unknown>;
        const keys = Object.keys(json);
        const key = keys[at % keys.length] as string;
        const list = json[key];
        if (Array.isArray(list) && list.length > 0) list[at % list.length] = junk;
        else json[key] = junk;
        holds(json, (j) => loadWorld(j), (r) => text((r as { ok: boolean; value?: World }).ok ? saveWorld((r as { value: World }).value) : (r as { error: unknown }).error), true);
      }),
  },
  {
    name: "loadWorldChunks",
    covers: "loadWorldChunks on hostile text cut into chunks and on random bytes; agrees with loadWorld on JSON",
    property: () =>
      fc.property(parsedHostile, fc.uint8Array({ maxLength: 64 }), fc.integer({ min: 1, max: 16 }), (json, noise, size) => {
        const bytes = new TextEncoder().encode(JSON.stringify(json));
        const chunks = (data: Uint8Array): readonly Uint8Array[] => Object.freeze(Array.from({ length: Math.ceil(data.length / size) }, (_, k) => data.slice(k * size, (k + 1) * size)));
        const render = (r: unknown): string => text((r as { ok: boolean; value?: World }).ok ? saveWorld((r as { value: World }).value) : (r as { error: unknown }).error);
        holds(chunks(bytes), (c) => loadWorldChunks(c as Uint8Array[]), render, true);
        const streamed = loadWorldChunks(chunks(bytes));
        const parsed = loadWorld(JSON.parse(JSON.stringify(json)));
        check(streamed.ok === parsed.ok, "loadWorldChunks and loadWorld disagree on whether a document loads");
        if (streamed.ok && parsed.ok) check(text(saveWorld(streamed.value)) === text(saveWorld(parsed.value)), "loadWorldChunks and loadWorld load different worlds");
        holds(chunks(noise), (c) => loadWorldChunks(c as Uint8Array[]), render, true);
      }),
  },
  {
    name: "checker",
    covers: "checkCondition and checkApproverExpression on CEL-like and random text",
    property: () =>
      fc.property(CEL, (source) => {
        holds(source, (s) => checkCondition(s as string), text, false);
        holds(source, (s) => checkApproverExpression(s as string), text, false);
        check(Array.isArray(checkCondition(source)), "checkCondition did not return a list");
      }),
  },
  {
    name: "lint",
    covers: "lintPolicy on hostile JSON and on a generated world's policies with a hostile condition",
    property: () =>
      fc.property(recipes, parsedHostile, CEL, (recipe, json, condition) => {
        const world = worldOf(recipe);
        holds(json, (p) => lintPolicy(p, world), text, false);
        const policy = world.policies[0];
        if (policy) {
          const wire = JSON.parse(JSON.stringify(encodePolicy(policy))) as Record<string, unknown>;
          wire["rules"] = [{ condition, stepKey: "nope" }, ...((wire["rules"] as unknown[] | null) ?? [])];
          holds(wire, (p) => lintPolicy(p, world), text, false);
        }
      }),
  },
  {
    name: "reduce",
    covers: "reduce with any action type, task, actor and fields on generated worlds",
    property: () =>
      fc.property(
        recipes.chain((r) => fc.tuple(fc.constant(r), arbCall(worldOf(r)))),
        ([recipe, call]) => {
          const world = worldOf(recipe);
          const action = deepFreeze({ ...call.extra, type: call.type, taskId: call.taskId, ...(call.comment === undefined ? {} : { comment: call.comment }) });
          worldUntouched(world, () => reduce(world, action as unknown as WorkflowAction, { actorId: call.actorId }));
          holds(action, (a) => reduce(world, a as WorkflowAction, { actorId: call.actorId }), reducerRender, true);
        },
      ),
  },
  {
    name: "hardReset+comment",
    covers: "hardReset and comment called directly, also several times in a row",
    property: () =>
      fc.property(
        recipes.chain((r) => fc.tuple(fc.constant(r), fc.array(arbCall(worldOf(r)), { minLength: 1, maxLength: 4 }))),
        ([recipe, calls]) => {
          let world = worldOf(recipe);
          for (const call of calls) {
            const req = deepFreeze({ ...call.extra, taskId: call.taskId, comment: call.comment });
            const useReset = call.type.length % 2 === 0;
            const run = (w: World) => (useReset ? hardReset(w, req as never, { actorId: call.actorId }) : comment(w, req as never, { actorId: call.actorId }));
            worldUntouched(world, () => run(world));
            holds(req, () => run(world), reducerRender, true);
            const r = run(world);
            if (r.ok) world = r.value.world;
          }
        },
      ),
  },
];
