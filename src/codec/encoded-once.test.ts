import { readFileSync } from "node:fs";
import { AppendLog } from "../world/append-log.js";
import { describe, expect, it } from "vitest";
import type { Task } from "../model/index.js";
import type { JsonObject, JsonValue } from "../model/json.js";
import { decodePolicy, decodeTask, encodePolicy, encodeTask, encodeTaskView } from "./index.js";
import { freezeJson } from "./json-tools.js";
import { encodedOnce, str, message } from "./schema.js";

const wire = (name: string): unknown => JSON.parse(readFileSync(new URL(`../../fixtures/wire/${name}`, import.meta.url), "utf8"));

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

function frozenTask(): Task {
  const r = decodeTask(wire("task-grant-open.json"));
  if (!r.ok) throw new Error("fixture does not decode");
  const p = decodePolicy(wire("policy-every-step.json"));
  if (!p.ok) throw new Error("fixture does not decode");
  return deepFreeze({ ...r.value, policy: { current: null, history: AppendLog.empty(), next: [], ...r.value.policy, policy: p.value } });
}

const view = (task: Task) => ({
  task,
  objectPermissions: null,
  accessReviewPath: "",
  appPath: "",
  appUserPath: "",
  appUserLastUsagePath: "",
  approversPath: "",
  createdByUserPath: "",
  entitlementsPath: "",
  identityUserPath: "",
  insightsPath: "",
  principalResourcePath: "",
  resourceBindingsPath: "",
  roleResourcePath: "",
  scopeResourcePath: "",
  stepApproversPath: "",
  userPath: "",
});

const snapshotOf = (encodedView: JsonValue): JsonValue | undefined =>
  (((encodedView as JsonObject)["task"] as JsonObject)["policy"] as JsonObject)["policy"];

describe("encodedOnce", () => {
  const codec = encodedOnce(message<{ readonly id: string }>({ id: str }));

  it("returns the same frozen JSON for the same frozen value", () => {
    const v = Object.freeze({ id: "a" });
    const first = codec.encode(v);
    expect(first).toEqual({ id: "a" });
    expect(codec.encode(v)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it("encodes a value that is not frozen afresh each time", () => {
    const v = { id: "a" };
    const first = codec.encode(v);
    expect(codec.encode(v)).not.toBe(first);
    expect(codec.encode(v)).toEqual(first);
    expect(Object.isFrozen(first)).toBe(false);
  });

  it("decodes as the inner codec", () => {
    expect(codec.decode({ id: "b" }, "$", { diags: [], path: [], depth: 0 })).toEqual({ id: "b" });
    expect(codec.missing()).toEqual({ id: "" });
  });
});

describe("task views share the policy snapshot's JSON", () => {
  it("writes the same JSON as encodeTask, with the snapshot shared and deep-frozen", () => {
    const task = frozenTask();
    const a = encodeTaskView(view(task));
    const b = encodeTaskView(view({ ...task, id: "other" }));
    expect((a as JsonObject)["task"]).toEqual(encodeTask(task));
    expect(JSON.stringify((a as JsonObject)["task"])).toBe(JSON.stringify(encodeTask(task)));
    const snapshot = snapshotOf(a);
    expect(snapshot).toEqual(encodePolicy(task.policy!.policy!));
    expect(snapshotOf(b)).toBe(snapshot);
    expect(() => {
      (snapshot as { displayName: string }).displayName = "changed";
    }).toThrow(TypeError);
    const steps = (snapshot as JsonObject)["policySteps"] as JsonObject;
    for (const v of Object.values(steps)) expect(Object.isFrozen(v)).toBe(true);
  });

  it("shares the JSON of frozen step definitions and past steps too, not of fresh ones", () => {
    const task = frozenTask();
    const steps = task.policy!.policy!.policySteps!;
    const definition = Object.values(steps)[0]!.steps![0]!;
    const past = deepFreeze({ id: "s-1", policyGenerationId: "g-1", state: "POLICY_STEP_STATE_DONE" as const, instance: { kind: "accept" as const, acceptMessage: "ok" } });
    const fresh = { ...past, id: "s-2" };
    const withSteps = { ...task, policy: { ...task.policy!, current: fresh, history: AppendLog.of([past]), next: [definition] } };
    const policyOf = (v: JsonValue) => ((v as JsonObject)["task"] as JsonObject)["policy"] as JsonObject;
    const a = policyOf(encodeTaskView(view(withSteps)));
    const b = policyOf(encodeTaskView(view(withSteps)));
    expect(a).toEqual((encodeTask(withSteps) as JsonObject)["policy"]);
    expect((a["history"] as JsonValue[])[0]).toBe((b["history"] as JsonValue[])[0]);
    expect((a["next"] as JsonValue[])[0]).toBe((b["next"] as JsonValue[])[0]);
    expect(a["current"]).not.toBe(b["current"]);
    expect(a["current"]).toEqual(b["current"]);
  });

  it("encodeTask and encodePolicy still return fresh JSON", () => {
    const task = frozenTask();
    expect(encodeTask(task)).not.toBe(encodeTask(task));
    const policy = (encodeTask(task) as JsonObject)["policy"] as JsonObject;
    expect(Object.isFrozen(policy["policy"])).toBe(false);
    expect(encodePolicy(task.policy!.policy!)).not.toBe(encodePolicy(task.policy!.policy!));
  });
});

describe("freezeJson", () => {
  it("freezes every object and array, and returns its argument", () => {
    const v: JsonValue = { a: [1, { b: null }], c: { d: "x" } };
    expect(freezeJson(v)).toBe(v);
    const a = (v as JsonObject)["a"] as JsonValue[];
    expect(Object.isFrozen(v)).toBe(true);
    expect(Object.isFrozen(a)).toBe(true);
    expect(Object.isFrozen(a[1])).toBe(true);
    expect(Object.isFrozen((v as JsonObject)["c"])).toBe(true);
  });
});
