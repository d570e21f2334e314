/**
 * Helpers of the workflow suites: the sample tenant (deep-frozen, so a reducer that mutated its input
 * would throw), a world built from it with changes, and a `run` that fails the test with the error.
 */
import { readFileSync } from "node:fs";
import { expect } from "vitest";
import type { JsonObject, JsonValue } from "../../src/model/json.js";
import type { Task } from "../../src/model/index.js";
import type { Step } from "../../src/reducers/comment.js";
import type { SimError } from "../../src/reducers/errors.js";
import { reduce, type WorkflowAction } from "../../src/reducers/reduce.js";
import { tick } from "../../src/reducers/tick.js";
import { loadWorld } from "../../src/world/load-world.js";
import { findTask, type World } from "../../src/world/world.js";

export const SAMPLE_JSON: JsonObject = JSON.parse(readFileSync(new URL("../../fixtures/world.json", import.meta.url), "utf8")) as JsonObject;

/** Freezes every object reachable from `value` (Tables included: their entries are plain objects). */
export function deepFreeze<T>(value: T, seen = new Set<unknown>()): T {
  if (typeof value !== "object" || value === null || seen.has(value)) return value;
  seen.add(value);
  if (value instanceof Map) {
    for (const [k, v] of value) {
      deepFreeze(k, seen);
      deepFreeze(v, seen);
    }
    return value;
  }
  if (value instanceof Set) {
    for (const v of value) deepFreeze(v, seen);
    return value;
  }
  for (const v of Object.values(value)) deepFreeze(v, seen);
  // Table keeps its buckets in private fields, which Object.values does not list.
  for (const k of Object.getOwnPropertyNames(value)) deepFreeze((value as Record<string, unknown>)[k], seen);
  Object.freeze(value);
  return value;
}

/** Loads a world file, failing the test with the diagnostics, and deep-freezes it. */
export function load(json: unknown): World {
  const r = loadWorld(json);
  if (!r.ok) throw new Error(`world does not load: ${r.error.map((d) => `${d.path}: ${d.message}`).join("; ")}`);
  return deepFreeze(r.value);
}

let sample: World | undefined;

/** The sample tenant, loaded once. */
export function sampleWorld(): World {
  return (sample ??= load(SAMPLE_JSON));
}

/** The sample tenant's JSON with changes (a deep copy is passed to `change`). */
export function sampleWith(change: (json: Record<string, unknown> & { tasks: JsonObject[]; policies: JsonObject[] }) => void): World {
  const copy = structuredClone(SAMPLE_JSON) as Record<string, unknown> & { tasks: JsonObject[]; policies: JsonObject[] };
  change(copy);
  return load(copy);
}

/** A task by numericId or id, failing the test when missing. */
export function task(world: World, id: string): Task {
  const t = findTask(world, id);
  if (!t) throw new Error(`no task ${id}`);
  return t;
}

/** Applies an action that must succeed; deep-freezes the result. */
export function run(world: World, action: WorkflowAction, actorId: string, now?: string): Step<JsonValue> {
  const r = reduce(world, action, now ? { actorId, now } : { actorId });
  if (!r.ok) throw new Error(`${action.type} by ${actorId} failed: ${r.error.code} ${r.error.message}`);
  return deepFreeze(r.value);
}

/** Applies an action that must fail with `code`; returns the error. */
export function refuse(world: World, action: WorkflowAction, actorId: string, code: SimError["code"]): SimError {
  const r = reduce(world, action, { actorId });
  if (r.ok) throw new Error(`${action.type} by ${actorId} succeeded; expected ${code}`);
  expect(r.error.code, r.error.message).toBe(code);
  return r.error;
}

/** Advances the clock, which must succeed. */
export function at(world: World, now: string): Step<JsonValue> {
  const r = tick(world, now);
  if (!r.ok) throw new Error(`tick to ${now} failed: ${r.error.message}`);
  return deepFreeze(r.value);
}

/** The kinds of a step's events. */
export function kinds(step: Step<JsonValue>): string[] {
  return step.events.map((e) => e.kind);
}

/** The response body as an object. */
export function body(step: Step<JsonValue>): JsonObject {
  return step.response as JsonObject;
}

/** The task in a response's task view. */
export function viewTask(step: Step<JsonValue>): JsonObject {
  const view = body(step)["taskView"] as JsonObject;
  return view["task"] as JsonObject;
}

/** Whether the world grants the entitlement to the user. */
export function holds(world: World, userId: string, appId: string, entitlementId: string): boolean {
  return world.index.grants.has(`${userId}\u0000${appId}\u0000${entitlementId}`);
}

/** A JSON approval step of a users approval. */
export function usersApproval(userIds: string[], extra: JsonObject = {}, users: JsonObject = {}): JsonObject {
  return {
    approval: {
      allowDelegation: false,
      allowReassignment: false,
      allowedReassignees: [],
      assigned: false,
      escalation: null,
      escalationEnabled: false,
      requireApprovalReason: false,
      requireDenialReason: false,
      requireReassignmentReason: false,
      requiresStepUpProviderId: "",
      ...extra,
      users: { allowSelfApproval: false, requireDistinctApprovers: false, userIds, ...users },
    },
  };
}

/** A JSON grant policy with one baseline sequence. */
export function grantPolicy(id: string, steps: JsonValue[]): JsonObject {
  return { id, displayName: id, description: "", policyType: "POLICY_TYPE_GRANT", policySteps: { grant: { steps } }, rules: [], baselinePolicyId: "" };
}

/**
 * A world where grant task 1030 (Okta, app owners approval) carries a fresh instance of `steps` as
 * its policy: a hard reset by a super admin after pointing its entitlement at the policy.
 */
export function worldOn(steps: JsonValue[], change?: (json: Record<string, unknown> & { tasks: JsonObject[]; policies: JsonObject[] }) => void): World {
  const w = sampleWith((json) => {
    json.policies.push(grantPolicy("pol-test", steps));
    const t = json.tasks.find((x) => x["numericId"] === "1030") as Record<string, unknown>;
    const type = (t["type"] as Record<string, Record<string, unknown>>)["grant"] as Record<string, unknown>;
    const ents = json["entitlements"] as Record<string, unknown>[];
    const ent = ents.find((e) => e["appId"] === type["appId"] && e["id"] === type["appEntitlementId"]) as Record<string, unknown>;
    ent["grantPolicyId"] = "pol-test";
    change?.(json);
  });
  return run(w, { type: "hardReset", taskId: "1030" }, "u-it-dir").world;
}
