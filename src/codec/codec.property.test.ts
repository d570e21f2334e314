import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonValue } from "../model/json.js";
import type { Result } from "../result.js";
import {
  arbWireCommentRequest,
  arbWireCommentResponse,
  arbWireForm,
  arbWireHardResetRequest,
  arbWireHardResetResponse,
  arbWirePolicy,
  arbWirePolicyInstance,
  arbWirePolicyStep,
  arbWireTask,
  arbWireTaskView,
  jsonEqual,
} from "../testing/arbitraries.js";
import type { Diagnostic } from "./diagnostic.js";
import {
  decodeCommentRequest,
  decodeCommentResponse,
  decodeForm,
  decodeHardResetRequest,
  decodeHardResetResponse,
  decodePolicy,
  decodePolicyInstance,
  decodePolicyStep,
  decodeTask,
  decodeTaskView,
  encodeCommentRequest,
  encodeCommentResponse,
  encodeForm,
  encodeHardResetRequest,
  encodeHardResetResponse,
  encodePolicy,
  encodePolicyInstance,
  encodePolicyStep,
  encodeTask,
  encodeTaskView,
} from "./index.js";

const RUNS = { numRuns: 1000 };

interface Pair {
  readonly name: string;
  readonly wire: fc.Arbitrary<JsonValue>;
  readonly decode: (json: unknown) => Result<unknown, Diagnostic[]>;
  readonly encode: (value: never) => JsonValue;
}

const pairs: readonly Pair[] = [
  { name: "Task", wire: arbWireTask, decode: decodeTask, encode: encodeTask },
  { name: "Policy", wire: arbWirePolicy, decode: decodePolicy, encode: encodePolicy },
  { name: "PolicyStep", wire: arbWirePolicyStep, decode: decodePolicyStep, encode: encodePolicyStep },
  { name: "PolicyInstance", wire: arbWirePolicyInstance, decode: decodePolicyInstance, encode: encodePolicyInstance },
  { name: "TaskView", wire: arbWireTaskView, decode: decodeTaskView, encode: encodeTaskView },
  { name: "Form", wire: arbWireForm, decode: decodeForm, encode: encodeForm },
  { name: "HardResetRequest", wire: arbWireHardResetRequest, decode: decodeHardResetRequest, encode: encodeHardResetRequest },
  { name: "HardResetResponse", wire: arbWireHardResetResponse, decode: decodeHardResetResponse, encode: encodeHardResetResponse },
  { name: "CommentRequest", wire: arbWireCommentRequest, decode: decodeCommentRequest, encode: encodeCommentRequest },
  { name: "CommentResponse", wire: arbWireCommentResponse, decode: decodeCommentResponse, encode: encodeCommentResponse },
];

function roundTrip(pair: Pair, wire: unknown): JsonValue {
  const r = pair.decode(wire);
  if (!r.ok) throw new Error(`${pair.name} did not decode: ${JSON.stringify(r.error)}`);
  return pair.encode(r.value as never);
}

function expectJsonEqual(actual: unknown, expected: unknown): void {
  if (!jsonEqual(actual, expected)) expect(actual).toEqual(expected);
  expect(jsonEqual(actual, expected)).toBe(true);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

describe.each(pairs)("$name codec", (pair) => {
  it("round-trips every wire document the service could send: encode(decode(x)) deep-equals x", () => {
    fc.assert(
      fc.property(pair.wire, (wire) => {
        expectJsonEqual(roundTrip(pair, wire), wire);
      }),
      RUNS,
    );
  });

  it("is a fixed point after one round trip: decode(encode(decode(x))) deep-equals decode(x)", () => {
    fc.assert(
      fc.property(pair.wire, (wire) => {
        const once = pair.decode(wire);
        expect(once.ok).toBe(true);
        if (once.ok) expectJsonEqual(pair.decode(pair.encode(once.value as never)), once);
      }),
      RUNS,
    );
  });

  it("returns a Result and never throws on any JSON, deep or wide", () => {
    const anyJson = fc.oneof(
      fc.jsonValue(),
      fc.jsonValue({ maxDepth: 30, depthSize: "large" }),
      fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 40 }),
      fc.anything({ withNullPrototype: true, withBoxedValues: true, withMap: true, withSet: true, withDate: true }),
    );
    fc.assert(
      fc.property(anyJson, (json) => {
        const r = pair.decode(json);
        expect(typeof r.ok).toBe("boolean");
        if (!r.ok) {
          expect(r.error.length).toBeGreaterThan(0);
          for (const d of r.error) expect(d.path.startsWith("$")).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it("never throws when any part of a valid document is replaced by arbitrary JSON", () => {
    const corrupted = fc.tuple(pair.wire, fc.nat(), fc.jsonValue({ maxDepth: 4 })).map(([wire, pick, junk]) => {
      const copy = structuredClone(wire) as JsonValue;
      // Walk to the pick-th container (by a deterministic traversal) and overwrite one of its slots.
      const containers: Array<Record<string, unknown> | unknown[]> = [];
      const stack: unknown[] = [copy];
      while (stack.length > 0) {
        const v = stack.pop();
        if (typeof v === "object" && v !== null) {
          containers.push(v as Record<string, unknown>);
          for (const child of Object.values(v)) stack.push(child);
        }
      }
      const target = containers[pick % Math.max(containers.length, 1)];
      if (target !== undefined) {
        const keys = Object.keys(target);
        const key = keys[pick % Math.max(keys.length, 1)];
        if (key !== undefined) Object.defineProperty(target, key, { value: junk, enumerable: true, writable: true, configurable: true });
      }
      return copy;
    });
    fc.assert(
      fc.property(corrupted, (json) => {
        const r = pair.decode(json);
        expect(typeof r.ok).toBe("boolean");
      }),
      RUNS,
    );
  });

  it("never mutates its input (deep-frozen, and unchanged afterwards)", () => {
    fc.assert(
      fc.property(pair.wire, (wire) => {
        const before = structuredClone(wire);
        const frozen = deepFreeze(wire);
        const r = pair.decode(frozen);
        expect(r.ok).toBe(true);
        if (r.ok) pair.encode(r.value as never);
        expectJsonEqual(frozen, before);
      }),
      RUNS,
    );
  });

  it("shares no object with its input: the decoded value is independent of the JSON", () => {
    fc.assert(
      fc.property(pair.wire, (wire) => {
        const inputs = new Set<unknown>();
        const stack: unknown[] = [wire];
        while (stack.length > 0) {
          const v = stack.pop();
          if (typeof v === "object" && v !== null) {
            inputs.add(v);
            stack.push(...Object.values(v));
          }
        }
        const r = pair.decode(wire);
        if (!r.ok) return;
        const out: unknown[] = [r.value, pair.encode(r.value as never)];
        while (out.length > 0) {
          const v = out.pop();
          if (typeof v === "object" && v !== null) {
            expect(inputs.has(v)).toBe(false);
            out.push(...Object.values(v));
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
