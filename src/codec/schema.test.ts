import { describe, expect, it } from "vitest";
import type { JsonValue } from "../model/json.js";
import type { Result } from "../result.js";
import { jsonEqual } from "../testing/arbitraries.js";
import type { Diagnostic } from "./diagnostic.js";
import { decodePolicy, decodePolicyStep, decodeTask, encodePolicy, encodeTask } from "./index.js";
import { type Codec, duration, durationOrInt64, int32, int64, isRealTimestamp, runDecode, str, timestamp, uint64 } from "./schema.js";
import { MAX_JSON_DEPTH } from "./json-tools.js";

function codes<T>(r: Result<T, Diagnostic[]>): string[] {
  return r.ok ? [] : r.error.map((d) => d.code);
}

const scalar = <T>(codec: Codec<T>, json: unknown): Result<T, Diagnostic[]> => runDecode(codec, json);

describe("int64", () => {
  it.each([
    ["1001", "1001"],
    ["-9223372036854775808", "-9223372036854775808"],
    ["9223372036854775807", "9223372036854775807"],
    ["007", "007"],
    [42, "42"],
    [-0, "0"],
    [Number.MAX_SAFE_INTEGER, "9007199254740991"],
  ])("accepts %j as %j", (input, expected) => {
    expect(scalar(int64, input)).toEqual({ ok: true, value: expected });
  });

  it.each([["12a"], ["1e3"], [" 1"], ["1.0"], ["9223372036854775808"], [1.5], [2 ** 53], [Number.NaN], [true], [{}], [[]]])(
    "rejects %j with INVALID_INT64",
    (input) => {
      expect(codes(scalar(int64, input))).toEqual(["INVALID_INT64"]);
    },
  );

  it('refuses "" (openapi.yaml types every int64 `type: string, format: int64`; protojson and the SDKs cannot read "" back), saying what to write', () => {
    for (const codec of [int64, uint64]) {
      const r = scalar(codec, "");
      expect(codes(r)).toEqual(["INVALID_INT64"]);
      expect(r).toMatchObject({ ok: false, error: [{ message: expect.stringContaining('write "0" or leave the field out') }] });
    }
  });

  it("uint64 refuses negatives and accepts up to 2^64 - 1", () => {
    expect(codes(scalar(uint64, "-1"))).toEqual(["INVALID_INT64"]);
    expect(scalar(uint64, "18446744073709551615").ok).toBe(true);
    expect(codes(scalar(uint64, "18446744073709551616"))).toEqual(["INVALID_INT64"]);
  });
});

describe("int32", () => {
  it("accepts integers in range, and decimal strings as numbers", () => {
    expect(scalar(int32, 7)).toEqual({ ok: true, value: 7 });
    expect(scalar(int32, "-12")).toEqual({ ok: true, value: -12 });
    expect(scalar(int32, 2 ** 31 - 1).ok).toBe(true);
  });
  it("rejects fractions and out-of-range values with INVALID_INT32, other types with EXPECTED_NUMBER", () => {
    expect(codes(scalar(int32, 1.5))).toEqual(["INVALID_INT32"]);
    expect(codes(scalar(int32, 2 ** 31))).toEqual(["INVALID_INT32"]);
    expect(codes(scalar(int32, "99999999999"))).toEqual(["INVALID_INT32"]);
    expect(codes(scalar(int32, true))).toEqual(["EXPECTED_NUMBER"]);
  });
});

describe("timestamp (RFC 3339 only)", () => {
  it.each([
    "2026-11-22T09:00:00Z",
    "2026-11-22T09:00:00.123456789Z",
    "2024-02-29T23:59:59+05:30",
    "0001-01-01T00:00:00-00:00",
  ])("accepts %s", (s) => {
    expect(scalar(timestamp, s)).toEqual({ ok: true, value: s });
  });
  it.each(["2026-11-22", "2026-11-22T09:00:00", "2026-11-22 09:00:00Z", "2023-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-11-22T24:00:00Z", "2026-11-22T09:00:00+25:00", "1732266000"])(
    "rejects %s with INVALID_TIMESTAMP",
    (s) => {
      expect(codes(scalar(timestamp, s))).toEqual(["INVALID_TIMESTAMP"]);
    },
  );
  it("refuses a tenth fraction digit, saying so: protobuf's JSON Timestamp holds nanoseconds, and the CEL clock refused such a time on every rule, so a world, a case's now: or --now at one routed every task to the baseline (hostile review 2)", () => {
    const r = scalar(timestamp, "2026-11-22T09:00:00.1234567891Z");
    expect(codes(r)).toEqual(["INVALID_TIMESTAMP"]);
    expect(r).toMatchObject({ ok: false, error: [{ message: expect.stringContaining("(at most nine fraction digits, nanoseconds)") }] });
    expect(isRealTimestamp("2026-11-22T09:00:00.1234567891Z")).toBe(false);
    expect(isRealTimestamp("2026-11-22T09:00:00.123456789Z")).toBe(true);
  });
  it("accepts a lower-case t and z and keeps them upper-case, as protobuf's JSON and the service's TypeScript SDK (zod datetime) want them", () => {
    expect(scalar(timestamp, "2026-11-22t09:00:00z")).toEqual({ ok: true, value: "2026-11-22T09:00:00Z" });
    expect(scalar(timestamp, "2026-11-22t09:00:00.5+01:00")).toEqual({ ok: true, value: "2026-11-22T09:00:00.5+01:00" });
    expect(scalar(timestamp, "2026-11-22T09:00:00z")).toEqual({ ok: true, value: "2026-11-22T09:00:00Z" });
  });
  it("accepts null", () => {
    expect(scalar(timestamp, null)).toEqual({ ok: true, value: null });
  });
  it("checks the day of the month as Date.UTC does, years 0-99 read as 1900-1999 included", () => {
    const pad = (n: number, width: number): string => String(n).padStart(width, "0");
    const mismatches: string[] = [];
    for (const year of [0, 1, 4, 96, 99, 100, 400, 1600, 1900, 2000, 2023, 2024, 2100, 2400, 9999]) {
      for (let month = 1; month <= 12; month++) {
        const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
        for (const day of [28, 29, 30, 31]) {
          const s = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T00:00:00Z`;
          if (scalar(timestamp, s).ok !== day <= days) mismatches.push(s);
        }
      }
    }
    expect(mismatches).toEqual([]);
  });
});

describe("duration", () => {
  it.each(["3600s", "1.5s", "-2s", "0.000000001s", ""])("accepts %j", (s) => {
    expect(scalar(duration, s)).toEqual({ ok: true, value: s });
  });
  it.each(["1h", "3600", "s", "1.1234567891s", "PT1H", 3600])("rejects %j with INVALID_DURATION", (s) => {
    expect(codes(scalar(duration, s))).toEqual(["INVALID_DURATION"]);
  });
  it("escalation expiration takes a duration or an int64 string (docs/domain.md §1)", () => {
    expect(scalar(durationOrInt64, "86400s")).toEqual({ ok: true, value: "86400s" });
    expect(scalar(durationOrInt64, "86400")).toEqual({ ok: true, value: "86400" });
    expect(scalar(durationOrInt64, 86400)).toEqual({ ok: true, value: "86400" });
    expect(codes(scalar(durationOrInt64, "1 day"))).toEqual(["INVALID_DURATION"]);
  });
});

describe("hand-written input", () => {
  it("fills every absent field with its default, and encodes the full wire shape", () => {
    const r = decodeTask({ id: "t1", numericId: 1001, type: { grant: { appId: "app-aws" } } });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.numericId).toBe("1001");
    expect(r.value.state).toBe("TASK_STATE_UNSPECIFIED");
    expect(r.value.commentCount).toBe(0);
    expect(r.value.createdAt).toBeNull();
    expect(r.value.actions).toBeNull();
    expect(r.value.type).toMatchObject({ kind: "grant", appId: "app-aws", outcome: "GRANT_OUTCOME_UNSPECIFIED", source: null });
    const wire = encodeTask(r.value) as Record<string, JsonValue>;
    expect(Object.keys(wire)).toHaveLength(28);
    expect(wire["type"]).toEqual({
      grant: {
        appEntitlementId: "",
        appId: "app-aws",
        appUserId: "",
        identityUserId: "",
        grantDuration: null,
        outcome: "GRANT_OUTCOME_UNSPECIFIED",
        outcomeTime: null,
        source: null,
      },
    });
  });

  it("reads an explicit null field as unset and a null oneof member as absent", () => {
    const r = decodeTask({ displayName: null, commentCount: null, type: { grant: null, revoke: { appId: "a" } } });
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.value.displayName).toBe("");
      expect(r.value.commentCount).toBe(0);
      expect(r.value.type?.kind).toBe("revoke");
    }
  });

  it("a rule carries stepKey or policyId, not both", () => {
    const good = decodePolicy({ rules: [{ condition: "true", policyId: "pol-2" }] });
    expect(good.ok && good.value.rules?.[0]).toEqual({ condition: "true", stepKey: "", policyId: "pol-2", policyKey: "" });
    if (good.ok) expect((encodePolicy(good.value) as { rules: unknown[] }).rules[0]).toEqual({ condition: "true", policyId: "pol-2", policyKey: "" });
    const bad = decodePolicy({ rules: [{ stepKey: "a", policyId: "b" }] });
    expect(bad.ok ? [] : bad.error).toEqual([
      { code: "ONEOF_CONFLICT", path: "$.rules[0]", message: 'oneof "outcome" has more than one member set: "stepKey" and "policyId"' },
    ]);
  });
});

describe("hostile input", () => {
  it("keeps __proto__ keys as own data, in unknown fields, maps and free-form objects, without touching prototypes", () => {
    const wire = JSON.parse(
      '{"__proto__": {"polluted": true}, "annotations": {"__proto__": "x"}, "policySteps": {"__proto__": {"steps": []}}, "id": "p"}',
    ) as JsonValue;
    const r = decodePolicy(wire);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(Object.getPrototypeOf(r.value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    expect(Object.keys(r.value.annotations ?? {})).toEqual(["__proto__"]);
    expect(Object.keys(r.value.$unknown ?? {})).toEqual(["__proto__"]);
    const back = decodePolicy(encodePolicy(r.value));
    expect(back.ok && jsonEqual(back.value, r.value)).toBe(true);
    const out = encodePolicy(r.value) as Record<string, JsonValue>;
    expect(Object.keys(out)).toContain("__proto__");
    expect(jsonEqual(out["__proto__"], { polluted: true })).toBe(true);
  });

  it("does not take inherited properties for fields", () => {
    const r = decodeTask(Object.create({ id: "inherited", numericId: "x" }) as unknown);
    expect(r).toMatchObject({ ok: true, value: { id: "", numericId: "0" } });
  });

  it("copies deep free-form JSON without recursion, up to MAX_JSON_DEPTH, and refuses deeper with TOO_DEEP (not a stack overflow)", () => {
    const deepOf = (levels: number): JsonValue => {
      let deep: JsonValue = { leaf: true };
      for (let i = 0; i < levels; i++) deep = i % 2 === 0 ? [deep] : { d: deep };
      return deep;
    };
    // `data` is the value kept; `deep` sits one level below it.
    const deep = deepOf(MAX_JSON_DEPTH - 2);
    const r = decodeTask({ id: "t", data: { deep } });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    let a: unknown = r.value.data;
    let b: unknown = { deep };
    let depth = 0;
    let shared = 0;
    while (typeof a === "object" && a !== null) {
      // Plain comparisons: an assertion library would try to print a deep value.
      if (a === b) shared++;
      const key: string = Array.isArray(a) ? "0" : (Object.keys(a)[0] ?? "");
      a = (a as Record<string, unknown>)[key];
      b = (b as Record<string, unknown>)[key];
      depth++;
    }
    expect(depth).toBe(MAX_JSON_DEPTH);
    expect(shared).toBe(0);
    expect(encodeTask(r.value)).toBeTypeOf("object");
    // Deeper, in a JSON field or an unknown field: refused at the message that held it.
    for (const task of [{ id: "t", data: { deep: deepOf(100_000) } }, { id: "t", future: deepOf(MAX_JSON_DEPTH + 1) }]) {
      const refused = decodeTask(task);
      expect(!refused.ok && refused.error.map((d) => [d.code, d.path])).toEqual([["TOO_DEEP", "$"]]);
    }
  });

  it("stops at a recursion depth no real policy reaches (TOO_DEEP) instead of overflowing the stack", () => {
    let policy: JsonValue = { unconfigured: {} };
    for (let i = 0; i < 50_000; i++) policy = { multiStep: { provisionSteps: [policy] } };
    const r = decodePolicyStep({ provision: { provisionPolicy: policy } });
    expect(codes(r)).toEqual(["TOO_DEEP"]);
  });

  it("turns a value that throws when read into UNREADABLE_INPUT", () => {
    const trap = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error("no keys for you");
        },
      },
    );
    expect(codes(decodeTask({ id: "t", type: trap }))).toEqual(["UNREADABLE_INPUT"]);
  });

  it.each([[null], [undefined], [42], ["task"], [[{ id: "t" }]], [true]])("refuses %j at the root with EXPECTED_OBJECT", (json) => {
    const r = decodeTask(json);
    expect(r.ok ? [] : r.error).toEqual([expect.objectContaining({ code: "EXPECTED_OBJECT", path: "$" })]);
  });

  it("reports a list where an object belongs, and an object where a list belongs", () => {
    const r = decodeTask({ type: [], policy: { history: { a: 1 } }, form: "x", annotations: [1] });
    expect(r.ok ? [] : r.error.map((d) => `${d.code} ${d.path}`)).toEqual([
      "EXPECTED_OBJECT $.type",
      "EXPECTED_ARRAY $.policy.history",
      "EXPECTED_OBJECT $.form",
      "EXPECTED_OBJECT $.annotations[0]",
    ]);
  });

  it("quotes odd keys in paths", () => {
    const r = decodePolicy({ policySteps: { "3f1c-9 x": { steps: "no" } } });
    expect(r.ok ? [] : r.error.map((d) => d.path)).toEqual(['$.policySteps["3f1c-9 x"].steps']);
  });
});

describe("strings", () => {
  it("refuses non-strings with EXPECTED_STRING", () => {
    expect(codes(scalar(str, 1))).toEqual(["EXPECTED_STRING"]);
  });
});
