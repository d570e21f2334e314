/**
 * fast-check arbitraries for the model. The `arbWire*` arbitraries generate wire documents the
 * service could send (every non-oneof field present, at most one member per oneof, unknown fields,
 * unknown enum members and unknown oneof members sprinkled in); the model arbitraries (`arbTask`, …)
 * are those documents decoded.
 *
 * The wire generators are derived from the codec's own schema (`schemaOf`), so a field added to the
 * codec is generated without touching this file.
 */
import fc from "fast-check";
import type { Form } from "../model/form.js";
import type { JsonValue } from "../model/json.js";
import type { PolicyInstance } from "../model/policy-instance.js";
import type { PolicyStep } from "../model/policy-step.js";
import type { Policy } from "../model/policy.js";
import type { CommentRequest, CommentResponse, HardResetRequest, HardResetResponse } from "../model/task-actions.js";
import type { TaskView } from "../model/task-view.js";
import type { Task } from "../model/task.js";
import { fail } from "../result.js";
import { formCodec } from "../codec/form.js";
import { policyInstanceCodec } from "../codec/policy-instance.js";
import { policyStepCodec } from "../codec/policy-step.js";
import { policyCodec } from "../codec/policy.js";
import { type Codec, type FieldNode, type MemberNode, type SchemaNode, runDecode, schemaOf } from "../codec/schema.js";
import {
  commentRequestCodec,
  commentResponseCodec,
  hardResetRequestCodec,
  hardResetResponseCodec,
} from "../codec/task-actions.js";
import { taskViewCodec } from "../codec/task-view.js";
import { taskCodec } from "../codec/task.js";

type Wire = Record<string, unknown>;

function setOwn(obj: Wire, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

const pad = (n: number, width: number): string => String(n).padStart(width, "0");

/**
 * RFC 3339 timestamps in the forms the service and hand-written files use: `Z` or an offset, with
 * no fraction or 1–9 fractional digits.
 *
 * @example
 * ```ts
 * fc.sample(arbRfc3339, 1); // ["2031-04-09T17:03:59.120Z"]
 * ```
 */
export const arbRfc3339: fc.Arbitrary<string> = fc
  .record({
    year: fc.integer({ min: 1, max: 9999 }),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 28 }),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
    second: fc.integer({ min: 0, max: 59 }),
    fraction: fc.option(fc.stringMatching(/^\d{1,9}$/), { nil: undefined }),
    zone: fc.oneof(
      fc.constant("Z"),
      fc.tuple(fc.constantFrom("+", "-"), fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 })).map(
        ([sign, h, m]) => `${sign}${pad(h, 2)}:${pad(m, 2)}`,
      ),
    ),
  })
  .map(
    (t) =>
      `${pad(t.year, 4)}-${pad(t.month, 2)}-${pad(t.day, 2)}T${pad(t.hour, 2)}:${pad(t.minute, 2)}:${pad(t.second, 2)}` +
      `${t.fraction === undefined ? "" : `.${t.fraction}`}${t.zone}`,
  );

/**
 * Protobuf duration strings (`"3600s"`, `"-1.5s"`).
 *
 * @example
 * ```ts
 * fc.sample(arbDurationString, 1); // ["86400s"]
 * ```
 */
export const arbDurationString: fc.Arbitrary<string> = fc
  .tuple(fc.boolean(), fc.integer({ min: 0, max: 315_576_000_000 }), fc.option(fc.stringMatching(/^\d{1,9}$/), { nil: undefined }))
  .map(([neg, s, frac]) => `${neg && s > 0 ? "-" : ""}${s}${frac === undefined ? "" : `.${frac}`}s`);

const arbInt64String = (unsigned: boolean): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 1, arbitrary: fc.constant("0") },
    { weight: 4, arbitrary: fc.bigInt({ min: unsigned ? 0n : INT64_MIN, max: unsigned ? UINT64_MAX : INT64_MAX }).map(String) },
    { weight: 2, arbitrary: fc.integer({ min: unsigned ? 0 : -1000, max: 100_000 }).map(String) },
  );

/**
 * Names of enum members this version does not know (`ZZ_…`), as a newer service might send.
 *
 * @example
 * ```ts
 * fc.sample(arbUnknownEnumMember, 1); // ["ZZ_Q7_"]
 * ```
 */
export const arbUnknownEnumMember: fc.Arbitrary<string> = fc.stringMatching(/^[A-Z][A-Z0-9_]{0,20}$/).map((s) => `ZZ_${s}`);

/** Keys a newer service might add; chosen to exercise prototype-looking and odd keys too. */
const UNKNOWN_KEYS = ["addedLater", "zzFuture", "__proto__", "constructor", "x-y z", "", "$unknown", "kind", "toString"];

const smallJson = fc.jsonValue({ maxDepth: 2 });

interface Gen {
  readonly byNode: Map<SchemaNode, fc.Arbitrary<unknown>>;
}

function scalarArb(node: SchemaNode, gen: Gen): fc.Arbitrary<unknown> {
  switch (node.t) {
    case "string":
      return fc.string({ maxLength: 8 });
    case "bool":
      return fc.boolean();
    case "int32":
      return fc.integer();
    case "int64":
      return arbInt64String(node.unsigned);
    case "timestamp":
      return fc.option(arbRfc3339, { nil: null, freq: 3 });
    case "duration":
      return fc.option(arbDurationString, { nil: null, freq: 3 });
    case "durationOrInt64":
      return fc.option(fc.oneof(arbDurationString, arbInt64String(false)), { nil: null, freq: 3 });
    case "enum":
      return fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...node.members) }, { weight: 1, arbitrary: arbUnknownEnumMember });
    case "jsonObject":
      return fc.dictionary(fc.string({ maxLength: 6 }), smallJson, { maxKeys: 3 });
    case "json":
      return smallJson;
    case "nullable":
      return fc.option(arb(node.inner, gen), { nil: null, freq: 3 });
    case "optional":
    case "omitEmpty":
      // Presence is decided by the enclosing message.
      return arb(node.inner, gen);
    case "list":
      return fc.option(fc.array(arb(node.item, gen), { maxLength: 2 }), { nil: null, freq: 4 });
    case "map":
      // openapi.yaml types every map as a plain object, never null (an empty map is `{}`).
      return fc.dictionary(fc.string({ maxLength: 6 }), arb(node.value, gen), { maxKeys: 2 });
    case "lazy":
      // Recursion (multi-step provisioning) bottoms out through the lists' empty and null cases.
      return fc.constant(null).chain(() => arb(node.get(), gen));
    case "message":
      return messageArb(node.fields, gen);
    case "union":
      return unionArb(node.members, gen);
  }
}

function arb(node: SchemaNode, gen: Gen): fc.Arbitrary<unknown> {
  const known = gen.byNode.get(node);
  if (known !== undefined) return known;
  // Registered before building, so a recursive schema meets a deferred reference to itself.
  let built: fc.Arbitrary<unknown> | undefined;
  gen.byNode.set(
    node,
    fc.constant(null).chain(() => built ?? fail("arbitrary used before it was built")),
  );
  built = scalarArb(node, gen);
  gen.byNode.set(node, built);
  return built;
}

function wireKeys(fields: readonly FieldNode[]): Set<string> {
  const keys = new Set<string>();
  for (const f of fields) {
    if ("oneof" in f) for (const m of f.oneof.members) keys.add(m.key);
    else keys.add(f.prop);
  }
  return keys;
}

function unknownFieldsArb(known: ReadonlySet<string>): fc.Arbitrary<ReadonlyArray<readonly [string, unknown]>> {
  const keys = UNKNOWN_KEYS.filter((k) => !known.has(k));
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant([]) },
    { weight: 1, arbitrary: fc.uniqueArray(fc.tuple(fc.constantFrom(...keys), smallJson), { maxLength: 2, selector: ([k]) => k }) },
  );
}

function memberValueArb(member: MemberNode, gen: Gen): fc.Arbitrary<unknown> {
  return "wrap" in member ? arb(member.wrap, gen) : messageArb(member.fields, gen);
}

function messageArb(fields: readonly FieldNode[], gen: Gen): fc.Arbitrary<Wire> {
  const known = wireKeys(fields);
  const parts: Array<fc.Arbitrary<ReadonlyArray<readonly [string, unknown]>>> = [];
  const omitEmpty = fields.filter((f): f is Extract<FieldNode, { node: SchemaNode }> => "node" in f && f.node.t === "omitEmpty");
  if (omitEmpty.length > 0) {
    // Scalar oneof members (a rule's stepKey / policyId): the service writes only the one set.
    parts.push(
      fc.option(fc.tuple(fc.constantFrom(...omitEmpty.map((f) => f.prop)), fc.string({ minLength: 1, maxLength: 8 })), {
        nil: undefined,
      }).map((kv) => (kv === undefined ? [] : [kv])),
    );
  }
  for (const f of fields) {
    if ("oneof" in f) {
      const members = f.oneof.members.map((m) => memberValueArb(m, gen).map((v): ReadonlyArray<readonly [string, unknown]> => [[m.key, v]]));
      const choices: Array<fc.Arbitrary<ReadonlyArray<readonly [string, unknown]>>> = [fc.constant([]), ...members];
      if (f.oneof.open) {
        const unknownKey = fc.constantFrom("zzAddedKind", "futureStep").filter((k) => !known.has(k));
        choices.push(fc.tuple(unknownKey, fc.dictionary(fc.string({ maxLength: 4 }), smallJson, { maxKeys: 2 })).map((kv) => [kv]));
      }
      parts.push(fc.oneof(...choices));
    } else if (f.node.t === "optional") {
      parts.push(fc.option(arb(f.node, gen), { nil: undefined }).map((v) => (v === undefined ? [] : [[f.prop, v] as const])));
    } else if (f.node.t !== "omitEmpty") {
      parts.push(arb(f.node, gen).map((v) => [[f.prop, v] as const]));
    }
  }
  parts.push(unknownFieldsArb(known));
  return fc.tuple(...parts).map((groups) => {
    const out: Wire = {};
    for (const group of groups) for (const [k, v] of group) setOwn(out, k, v);
    return out;
  });
}

function unionArb(members: readonly MemberNode[], gen: Gen): fc.Arbitrary<Wire> {
  const known = new Set(members.map((m) => m.key));
  const outerKeys = UNKNOWN_KEYS.filter((k) => !known.has(k));
  const known$ = members.map((m) => memberValueArb(m, gen).map((v): Wire => ({ [m.key]: v })));
  const unknownMember = fc
    .tuple(fc.constantFrom("spendRemedy", "zzAddedKind"), fc.dictionary(fc.string({ maxLength: 4 }), smallJson, { maxKeys: 2 }))
    .filter(([k]) => !known.has(k))
    .map(([k, v]): Wire => ({ [k]: v }));
  const body = fc.oneof({ weight: 8, arbitrary: fc.oneof(...known$) }, { weight: 1, arbitrary: unknownMember }, { weight: 1, arbitrary: fc.constant({}) });
  const outer = fc.oneof(
    { weight: 6, arbitrary: fc.constant([]) },
    { weight: 1, arbitrary: fc.uniqueArray(fc.tuple(fc.constantFrom(...outerKeys), smallJson), { maxLength: 2, selector: ([k]) => k }) },
  );
  return fc.tuple(body, outer).map(([b, extra]) => {
    const out: Wire = {};
    for (const [k, v] of Object.entries(b)) setOwn(out, k, v);
    for (const [k, v] of extra) setOwn(out, k, v);
    return out;
  });
}

const shared: Gen = { byNode: new Map() };

/**
 * Wire documents for any codec, derived from its schema.
 *
 * @example
 * ```ts
 * fc.assert(fc.property(arbWireOf(taskCodec), (wire) => decodeTask(wire).ok));
 * ```
 */
export function arbWireOf<T>(codec: Codec<T>): fc.Arbitrary<JsonValue> {
  // Through JSON text, so documents look exactly like `JSON.parse` output (plain prototypes, no -0).
  return arb(schemaOf(codec), shared).map((doc) => JSON.parse(JSON.stringify(doc)) as JsonValue);
}

function decoded<T>(codec: Codec<T>, wire: fc.Arbitrary<JsonValue>): fc.Arbitrary<T> {
  return wire.map((w) => {
    const r = runDecode(codec, w);
    return r.ok ? r.value : fail(`a generated wire document does not decode: ${JSON.stringify(r.error.slice(0, 3))}`);
  });
}

/**
 * Wire Task documents the service could send.
 *
 * @example
 * ```ts
 * fc.assert(fc.property(arbWireTask, (w) => decodeTask(w).ok));
 * ```
 */
export const arbWireTask: fc.Arbitrary<JsonValue> = arbWireOf(taskCodec);
/**
 * Wire Policy documents.
 *
 * @example
 * ```ts
 * fc.sample(arbWirePolicy, 1);
 * ```
 */
export const arbWirePolicy: fc.Arbitrary<JsonValue> = arbWireOf(policyCodec);
/**
 * Wire PolicyStep documents (`{"approval": {...}}`, …).
 *
 * @example
 * ```ts
 * fc.sample(arbWirePolicyStep, 1);
 * ```
 */
export const arbWirePolicyStep: fc.Arbitrary<JsonValue> = arbWireOf(policyStepCodec);
/**
 * Wire PolicyInstance documents.
 *
 * @example
 * ```ts
 * fc.sample(arbWirePolicyInstance, 1);
 * ```
 */
export const arbWirePolicyInstance: fc.Arbitrary<JsonValue> = arbWireOf(policyInstanceCodec);
/**
 * Wire TaskView documents.
 *
 * @example
 * ```ts
 * fc.sample(arbWireTaskView, 1);
 * ```
 */
export const arbWireTaskView: fc.Arbitrary<JsonValue> = arbWireOf(taskViewCodec);
/**
 * Wire Form documents.
 *
 * @example
 * ```ts
 * fc.sample(arbWireForm, 1);
 * ```
 */
export const arbWireForm: fc.Arbitrary<JsonValue> = arbWireOf(formCodec);
/**
 * Wire Hard Reset request bodies.
 *
 * @example
 * ```ts
 * fc.sample(arbWireHardResetRequest, 1); // [{ comment: "x", expandMask: null }]
 * ```
 */
export const arbWireHardResetRequest: fc.Arbitrary<JsonValue> = arbWireOf(hardResetRequestCodec);
/**
 * Wire Hard Reset 200 bodies.
 *
 * @example
 * ```ts
 * fc.sample(arbWireHardResetResponse, 1);
 * ```
 */
export const arbWireHardResetResponse: fc.Arbitrary<JsonValue> = arbWireOf(hardResetResponseCodec);
/**
 * Wire Comment request bodies.
 *
 * @example
 * ```ts
 * fc.sample(arbWireCommentRequest, 1);
 * ```
 */
export const arbWireCommentRequest: fc.Arbitrary<JsonValue> = arbWireOf(commentRequestCodec);
/**
 * Wire Comment 200 bodies.
 *
 * @example
 * ```ts
 * fc.sample(arbWireCommentResponse, 1);
 * ```
 */
export const arbWireCommentResponse: fc.Arbitrary<JsonValue> = arbWireOf(commentResponseCodec);

/**
 * Tasks, as decoded from {@link arbWireTask}.
 *
 * @example
 * ```ts
 * fc.assert(fc.property(arbTask, (t) => typeof t.id === "string"));
 * ```
 */
export const arbTask: fc.Arbitrary<Task> = decoded(taskCodec, arbWireTask);
/**
 * Policies, as decoded from {@link arbWirePolicy}.
 *
 * @example
 * ```ts
 * fc.assert(fc.property(arbPolicy, (p) => p.rules === null || Array.isArray(p.rules)));
 * ```
 */
export const arbPolicy: fc.Arbitrary<Policy> = decoded(policyCodec, arbWirePolicy);
/**
 * Policy steps, as decoded from {@link arbWirePolicyStep}.
 *
 * @example
 * ```ts
 * fc.sample(arbPolicyStep, 1)[0]?.kind;
 * ```
 */
export const arbPolicyStep: fc.Arbitrary<PolicyStep> = decoded(policyStepCodec, arbWirePolicyStep);
/**
 * Policy instances, as decoded from {@link arbWirePolicyInstance}.
 *
 * @example
 * ```ts
 * fc.sample(arbPolicyInstance, 1);
 * ```
 */
export const arbPolicyInstance: fc.Arbitrary<PolicyInstance> = decoded(policyInstanceCodec, arbWirePolicyInstance);
/**
 * Task views, as decoded from {@link arbWireTaskView}.
 *
 * @example
 * ```ts
 * fc.sample(arbTaskView, 1);
 * ```
 */
export const arbTaskView: fc.Arbitrary<TaskView> = decoded(taskViewCodec, arbWireTaskView);
/**
 * Forms, as decoded from {@link arbWireForm}.
 *
 * @example
 * ```ts
 * fc.sample(arbForm, 1);
 * ```
 */
export const arbForm: fc.Arbitrary<Form> = decoded(formCodec, arbWireForm);
/**
 * Hard Reset request bodies, decoded.
 *
 * @example
 * ```ts
 * fc.sample(arbHardResetRequest, 1);
 * ```
 */
export const arbHardResetRequest: fc.Arbitrary<HardResetRequest> = decoded(hardResetRequestCodec, arbWireHardResetRequest);
/**
 * Hard Reset 200 bodies, decoded.
 *
 * @example
 * ```ts
 * fc.sample(arbHardResetResponse, 1);
 * ```
 */
export const arbHardResetResponse: fc.Arbitrary<HardResetResponse> = decoded(hardResetResponseCodec, arbWireHardResetResponse);
/**
 * Comment request bodies, decoded.
 *
 * @example
 * ```ts
 * fc.sample(arbCommentRequest, 1);
 * ```
 */
export const arbCommentRequest: fc.Arbitrary<CommentRequest> = decoded(commentRequestCodec, arbWireCommentRequest);
/**
 * Comment 200 bodies, decoded.
 *
 * @example
 * ```ts
 * fc.sample(arbCommentResponse, 1);
 * ```
 */
export const arbCommentResponse: fc.Arbitrary<CommentResponse> = decoded(commentResponseCodec, arbWireCommentResponse);

/**
 * Exact equality of JSON values, key order aside. Use it for wire documents instead of Vitest's
 * `toStrictEqual`, which compares `constructor` properties and so fails on a JSON object with an own
 * `"constructor"` key.
 *
 * @example
 * ```ts
 * jsonEqual({ a: [1], b: null }, { b: null, a: [1] }); // true
 * ```
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const ka = Object.keys(ra);
  if (ka.length !== Object.keys(rb).length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(rb, k) && jsonEqual(ra[k], rb[k]));
}
