import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonValue } from "../model/json.js";
import type { Result } from "../result.js";
import {
  arbUnknownEnumMember,
  arbWirePolicy,
  arbWirePolicyInstance,
  arbWirePolicyStep,
  arbWireTask,
  arbWireTaskView,
  arbWireForm,
  jsonEqual,
} from "../testing/arbitraries.js";
import { type Diagnostic, pathIndex, pathKey } from "./diagnostic.js";
import { formCodec } from "./form.js";
import { decodePolicy, decodePolicyStep, decodeTask, encodePolicy, encodePolicyStep, encodeTask } from "./index.js";
import { policyInstanceCodec } from "./policy-instance.js";
import { policyStepCodec } from "./policy-step.js";
import { policyCodec } from "./policy.js";
import { type Codec, type FieldNode, type MemberNode, type SchemaNode, runDecode, schemaOf } from "./schema.js";
import { taskViewCodec } from "./task-view.js";
import { taskCodec } from "./task.js";

const RUNS = { numRuns: 1000 };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const own = (o: Obj, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** A oneof found in a wire document: the object holding it, its JSONPath, and its member names. */
interface OneofSite {
  readonly path: string;
  readonly holder: Obj;
  readonly members: readonly string[];
}

/** Walks a wire document along its schema and lists every oneof it could set. */
function oneofSites(node: SchemaNode, wire: unknown, path: string, out: OneofSite[]): void {
  switch (node.t) {
    case "nullable":
    case "optional":
    case "omitEmpty":
      if (wire !== null && wire !== undefined) oneofSites(node.inner, wire, path, out);
      return;
    case "lazy":
      oneofSites(node.get(), wire, path, out);
      return;
    case "list":
      if (Array.isArray(wire)) wire.forEach((item, i) => oneofSites(node.item, item, pathIndex(path, i), out));
      return;
    case "map":
      if (isObj(wire)) for (const k of Object.keys(wire)) oneofSites(node.value, wire[k], pathKey(path, k), out);
      return;
    case "message":
      if (isObj(wire)) fieldSites(node.fields, wire, path, out);
      return;
    case "union":
      if (isObj(wire)) {
        out.push({ path, holder: wire, members: node.members.map((m) => m.key) });
        memberSites(node.members, wire, path, out);
      }
      return;
    default:
      return;
  }
}

function memberSites(members: readonly MemberNode[], holder: Obj, path: string, out: OneofSite[]): void {
  for (const m of members) {
    if (!own(holder, m.key) || holder[m.key] === null) continue;
    const value = holder[m.key];
    const at = pathKey(path, m.key);
    if ("wrap" in m) oneofSites(m.wrap, value, at, out);
    else if (isObj(value)) fieldSites(m.fields, value, at, out);
  }
}

function fieldSites(fields: readonly FieldNode[], holder: Obj, path: string, out: OneofSite[]): void {
  for (const f of fields) {
    if ("oneof" in f) {
      out.push({ path, holder, members: f.oneof.members.map((m) => m.key) });
      memberSites(f.oneof.members, holder, path, out);
    } else if (own(holder, f.prop)) {
      oneofSites(f.node, holder[f.prop], pathKey(path, f.prop), out);
    }
  }
}

interface Target {
  readonly name: string;
  readonly codec: Codec<unknown>;
  readonly wire: fc.Arbitrary<JsonValue>;
}

const targets: readonly Target[] = [
  { name: "Task", codec: taskCodec as Codec<unknown>, wire: arbWireTask },
  { name: "Policy", codec: policyCodec as Codec<unknown>, wire: arbWirePolicy },
  { name: "PolicyStep", codec: policyStepCodec as Codec<unknown>, wire: arbWirePolicyStep },
  { name: "PolicyInstance", codec: policyInstanceCodec as Codec<unknown>, wire: arbWirePolicyInstance },
  { name: "TaskView", codec: taskViewCodec as Codec<unknown>, wire: arbWireTaskView },
  { name: "Form", codec: formCodec as Codec<unknown>, wire: arbWireForm },
];

describe.each(targets)("$name: two members of one oneof", ({ codec, wire }) => {
  it("is ONEOF_CONFLICT at the JSONPath of the object holding them, and nothing else", () => {
    const withConflict = fc
      .tuple(wire, fc.nat(), fc.nat(), fc.nat())
      .map(([doc, pickSite, pickA, pickB]) => {
        const copy = structuredClone(doc);
        const sites: OneofSite[] = [];
        oneofSites(schemaOf(codec), copy, "$", sites);
        const site = sites[pickSite % Math.max(sites.length, 1)];
        if (site === undefined || site.members.length < 2) return undefined;
        const set = site.members.filter((m) => own(site.holder, m) && site.holder[m] !== null);
        const first = set[0] ?? site.members[pickA % site.members.length];
        const others = site.members.filter((m) => m !== first);
        const second = others[pickB % others.length];
        if (first === undefined || second === undefined) return undefined;
        if (!own(site.holder, first) || site.holder[first] === null) site.holder[first] = {};
        site.holder[second] = {};
        return { doc: copy, path: site.path };
      })
      .filter((x): x is { doc: JsonValue; path: string } => x !== undefined);
    fc.assert(
      fc.property(withConflict, ({ doc, path }) => {
        const r = runDecode(codec, doc);
        expect(r.ok).toBe(false);
        if (r.ok) return;
        expect(r.error.map((d) => [d.code, d.path])).toEqual([["ONEOF_CONFLICT", path]]);
      }),
      RUNS,
    );
  });
});

describe("unknown members survive a round trip", () => {
  it("an unknown enum member is kept as it came, at the top and nested", () => {
    fc.assert(
      fc.property(arbWireTask, arbUnknownEnumMember, (doc, member) => {
        const wire = { ...(doc as Obj), state: member, recommendation: member };
        const r = decodeTask(wire);
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        expect(r.value.state).toBe(member);
        expect(r.value.recommendation).toBe(member);
        expect(jsonEqual(encodeTask(r.value), wire)).toBe(true);
      }),
      RUNS,
    );
    fc.assert(
      fc.property(arbWirePolicy, arbUnknownEnumMember, (doc, member) => {
        const wire = { ...(doc as Obj), policyType: member, scope: { appEntitlementId: "e", appId: "a", slot: member } };
        const r = decodePolicy(wire);
        expect(r.ok && r.value.policyType === member && r.value.scope?.slot === member).toBe(true);
        if (r.ok) expect(jsonEqual(encodePolicy(r.value), wire)).toBe(true);
      }),
      RUNS,
    );
  });

  const arbNewKind = fc.constantFrom("spendRemedy", "quarantine", "zzAddedLater");
  const arbPayload = fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });

  it("an unknown oneof member of a pure oneof message (TaskType) becomes kind unknown and is written back", () => {
    fc.assert(
      fc.property(arbWireTask, arbNewKind, arbPayload, (doc, key, payload) => {
        const wire = JSON.parse(JSON.stringify({ ...(doc as Obj), type: { [key]: payload } })) as Obj;
        const r = decodeTask(wire);
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        expect(r.value.type).toEqual({ kind: "unknown", key, raw: (wire["type"] as Obj)[key] });
        expect(jsonEqual(encodeTask(r.value), wire)).toBe(true);
      }),
      RUNS,
    );
  });

  it('a "" key is never a member: alone it is kept beside an empty unknown variant', () => {
    for (const value of ["x", { a: 1 }, null]) {
      const r = decodePolicyStep({ "": value });
      expect(r).toEqual({ ok: true, value: { kind: "unknown", key: "", raw: null, $unknownOuter: { "": value } } });
      if (r.ok) expect(encodePolicyStep(r.value)).toEqual({ "": value });
    }
  });

  it("an unknown step kind in a policy (PolicyStep) and in a step instance (open oneof) survives", () => {
    fc.assert(
      fc.property(arbNewKind, arbPayload, (key, payload) => {
        const step = JSON.parse(JSON.stringify({ [key]: payload })) as Obj;
        const r = decodePolicyStep(step);
        expect(r.ok && r.value.kind === "unknown" && r.value.key === key).toBe(true);
        if (r.ok) expect(jsonEqual(encodePolicyStep(r.value), step)).toBe(true);

        const task = JSON.parse(
          JSON.stringify({ policy: { current: { id: "s1", policyGenerationId: "g", state: "POLICY_STEP_STATE_ACTIVE", [key]: payload } } }),
        ) as Obj;
        const t = decodeTask(task);
        expect(t.ok).toBe(true);
        if (!t.ok) return;
        const instance = t.value.policy?.current?.instance;
        expect(instance?.kind === "unknown" && instance.key === key).toBe(true);
        const back = encodeTask(t.value) as Obj;
        expect(jsonEqual((back["policy"] as Obj)["current"], (task["policy"] as Obj)["current"])).toBe(true);
      }),
      RUNS,
    );
  });
});

describe("decoding reports every problem", () => {
  it("lists one diagnostic per bad value, each with its path", () => {
    const r: Result<unknown, Diagnostic[]> = decodeTask({
      numericId: "12a",
      commentCount: 1.5,
      createdAt: "yesterday",
      actions: ["TASK_ACTION_TYPE_APPROVE", 7],
      type: { grant: { grantDuration: "1h", outcomeTime: "2026-02-30T00:00:00Z" } },
      policy: { next: [{ wait: { untilTime: { hours: "nine" } } }], history: {} },
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.map((d) => `${d.code} ${d.path}`).sort()).toEqual(
      [
        "INVALID_INT64 $.numericId",
        "INVALID_INT32 $.commentCount",
        "INVALID_TIMESTAMP $.createdAt",
        "EXPECTED_STRING $.actions[1]",
        "INVALID_DURATION $.type.grant.grantDuration",
        "INVALID_TIMESTAMP $.type.grant.outcomeTime",
        "EXPECTED_NUMBER $.policy.next[0].wait.untilTime.hours",
        "EXPECTED_ARRAY $.policy.history",
      ].sort(),
    );
  });
});
