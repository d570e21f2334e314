import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
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
} from "../testing/arbitraries.js";
import type { Diagnostic } from "./diagnostic.js";
import * as codec from "./index.js";
import { withInterpretedCodecs } from "./schema.js";

interface Pair {
  readonly name: string;
  readonly wire: fc.Arbitrary<JsonValue>;
  readonly decode: (json: unknown) => Result<unknown, Diagnostic[]>;
  readonly encode: (value: never) => JsonValue;
}

const pairs: readonly Pair[] = [
  { name: "Task", wire: arbWireTask, decode: codec.decodeTask, encode: codec.encodeTask },
  { name: "Policy", wire: arbWirePolicy, decode: codec.decodePolicy, encode: codec.encodePolicy },
  { name: "PolicyStep", wire: arbWirePolicyStep, decode: codec.decodePolicyStep, encode: codec.encodePolicyStep },
  { name: "PolicyInstance", wire: arbWirePolicyInstance, decode: codec.decodePolicyInstance, encode: codec.encodePolicyInstance },
  { name: "TaskView", wire: arbWireTaskView, decode: codec.decodeTaskView, encode: codec.encodeTaskView },
  { name: "Form", wire: arbWireForm, decode: codec.decodeForm, encode: codec.encodeForm },
  { name: "HardResetRequest", wire: arbWireHardResetRequest, decode: codec.decodeHardResetRequest, encode: codec.encodeHardResetRequest },
  { name: "HardResetResponse", wire: arbWireHardResetResponse, decode: codec.decodeHardResetResponse, encode: codec.encodeHardResetResponse },
  { name: "CommentRequest", wire: arbWireCommentRequest, decode: codec.decodeCommentRequest, encode: codec.encodeCommentRequest },
  { name: "CommentResponse", wire: arbWireCommentResponse, decode: codec.decodeCommentResponse, encode: codec.encodeCommentResponse },
];

/**
 * A value as text that tells apart what deep equality does not: key order, `undefined` properties,
 * prototypes other than Object.prototype.
 */
function exact(v: unknown, seen = new Set<object>()): string {
  if (v === undefined) return "undefined";
  if (typeof v !== "object" || v === null) return JSON.stringify(v) ?? String(v);
  if (seen.has(v)) return "<cycle>";
  seen.add(v);
  const text = Array.isArray(v)
    ? `[${v.map((x) => exact(x, seen)).join(",")}]`
    : `${Object.getPrototypeOf(v) === Object.prototype ? "" : "<prototype>"}{${Object.keys(v)
        .map((k) => `${JSON.stringify(k)}:${exact((v as Record<string, unknown>)[k], seen)}`)
        .join(",")}}`;
  seen.delete(v);
  return text;
}

/** Keys a corruption may add: members of oneofs (for conflicts and unknown members), odd names. */
const KEYS = ["grant", "revoke", "approval", "provision", "accept", "users", "manager", "skipStep", "stepKey", "policyId", "connector"];
const ODD_KEYS = ["stringField", "completed", "condition", "__proto__", "", "constructor", "zzNew", "$unknown", "kind"];
const JUNK: readonly unknown[] = [null, 1, 1.5, "x", "12", "", "2026-13-01T00:00:00Z", "3600s", true, [], {}, { zz: 1 }, [1, "a"], "-1"];

/**
 * A valid document with some of its values replaced by junk, keys dropped or added (oneof members,
 * unknown keys) and objects' key order reversed, driven by a random stream so fast-check can shrink.
 */
function corrupted(wire: fc.Arbitrary<JsonValue>): fc.Arbitrary<unknown> {
  return fc.tuple(wire, fc.array(fc.nat(), { minLength: 64, maxLength: 64 })).map(([doc, rolls]) => {
    let i = 0;
    const roll = (n: number): number => (rolls[i++ % rolls.length] as number) % n;
    const walk = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(walk);
      if (typeof v !== "object" || v === null) return v;
      const out: Record<string, unknown> = {};
      const keys = Object.keys(v);
      if (roll(10) === 0) keys.reverse();
      const define = (k: string, x: unknown): void => void Object.defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true });
      for (const k of keys) {
        const r = roll(40);
        if (r === 0) continue;
        define(k, r < 3 ? JUNK[roll(JUNK.length)] : walk((v as Record<string, unknown>)[k]));
      }
      if (roll(8) === 0) define([...KEYS, ...ODD_KEYS][roll(KEYS.length + ODD_KEYS.length)] as string, roll(3) === 0 ? null : { zz: 1 });
      return out;
    };
    return walk(doc);
  });
}

function bothWays(pair: Pair, doc: unknown): void {
  const generated = pair.decode(doc);
  const interpreted = withInterpretedCodecs(() => pair.decode(doc));
  expect(exact(generated)).toBe(exact(interpreted));
  if (!interpreted.ok) return;
  const value = interpreted.value as never;
  expect(exact(pair.encode(value))).toBe(exact(withInterpretedCodecs(() => pair.encode(value))));
}

describe.each(pairs)("$name: generated and interpreted codecs agree", (pair) => {
  it("on documents the service could send", () => {
    fc.assert(fc.property(pair.wire, (doc) => bothWays(pair, doc)), { numRuns: 300 });
  });

  it("on corrupted documents: same values, same diagnostics in the same order", () => {
    fc.assert(fc.property(corrupted(pair.wire), (doc) => bothWays(pair, doc)), { numRuns: 500 });
  });
});

describe("generating code", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  it("generates each message's functions on first use, and only once", async () => {
    vi.resetModules();
    const real = globalThis.Function;
    let generated = 0;
    vi.stubGlobal(
      "Function",
      new Proxy(real, {
        construct: (target, args: unknown[]) => {
          generated++;
          return Reflect.construct(target, args) as object;
        },
      }),
    );
    const fresh = await import("./index.js");
    const doc = { id: "p", rules: [{ condition: "true", stepKey: "a" }], policySteps: { a: { steps: [{ accept: {} }] } } };
    expect(fresh.decodePolicy(doc).ok).toBe(true);
    const afterFirst = generated;
    expect(afterFirst).toBeGreaterThan(0);
    expect(fresh.decodePolicy(doc).ok).toBe(true);
    expect(generated).toBe(afterFirst);
  });

  it("falls back to the interpreted codecs where code cannot be generated", async () => {
    vi.resetModules();
    vi.stubGlobal(
      "Function",
      new Proxy(globalThis.Function, {
        construct: () => {
          throw new EvalError("Code generation from strings disallowed for this context");
        },
      }),
    );
    const fresh = await import("./index.js");
    const doc = { id: "t", numericId: 7, type: { grant: { appId: 1 } }, zz: { a: 1 } };
    const r = fresh.decodeTask(doc);
    vi.unstubAllGlobals();
    expect(exact(r)).toBe(exact(withInterpretedCodecs(() => codec.decodeTask(doc))));
    expect(r.ok ? [] : r.error).toEqual([{ code: "EXPECTED_STRING", path: "$.type.grant.appId", message: "expected a string, found number 1" }]);
  });
});
