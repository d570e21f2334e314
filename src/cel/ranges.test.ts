/**
 * CEL's value ranges (ranges.ts): the official conformance cases (cel-spec, `@bufbuild/cel-spec`)
 * whose answer is an out-of-range error, compiled and interpreted, now err as cel-go does; values
 * at the edge of each range still evaluate. Before, cel-js answered `-(-9223372036854775808)` as
 * 9223372036854775808 and `int(1e300) > 0` as true (hostile review), so a rule could route on it.
 */
import { describe, expect, it } from "vitest";
import { tests as conformance } from "@bufbuild/cel-spec/testdata/conformance.js";
import type { SerializedIncrementalTestSuite } from "@bufbuild/cel-spec/testdata/tests.js";
import { bothWays, contextsOf, outcomeOf } from "./test-differential.js";

/** The conformance cases of these sections whose expected answer is an error. */
const SECTIONS = ["integer_math/int64_math", "conversions/int", "timestamps/timestamp_range", "timestamps/duration_range"];

function rangeErrorCases(): { name: string; expr: string }[] {
  const out: { name: string; expr: string }[] = [];
  const walk = (s: SerializedIncrementalTestSuite, path: string[]): void => {
    const here = path.join("/");
    for (const t of s.tests ?? []) {
      const o = t.original as Record<string, unknown>;
      if (SECTIONS.includes(here) && o["evalError"] !== undefined) out.push({ name: `${here}/${String(o["name"])}`, expr: t.original.expr });
    }
    for (const sub of s.suites ?? []) walk(sub, [...path, sub.name]);
  };
  for (const s of conformance.suites ?? []) walk(s, [s.name]);
  return out;
}

describe("cel-spec conformance: values out of CEL's int, duration and timestamp ranges are errors", () => {
  const context = contextsOf("condition")[0] as object;
  const cases = rangeErrorCases();

  it("finds the sections' error cases", () => {
    expect(cases.map((c) => c.name)).toEqual(
      expect.arrayContaining(["integer_math/int64_math/int64_min_negate", "integer_math/int64_math/int64_min_negate_div", "conversions/int/double_range", "timestamps/duration_range/add_over"]),
    );
  });

  it("each errs both ways, compiled and interpreted (a case the environment refuses at check time errs too)", () => {
    const answered: string[] = [];
    for (const c of cases) {
      // Timestamps are JavaScript Dates in cel-js: milliseconds, so a nanosecond past the end is not seen.
      if (c.name.includes("nanos")) continue;
      const b = bothWays(c.expr, "condition", true);
      if (!b) continue;
      const compiled = outcomeOf(b.compiled, context);
      const interpreted = outcomeOf(b.interpreted, context);
      expect(compiled, c.name).not.toHaveProperty("value");
      expect(interpreted, c.name).toEqual(compiled);
      answered.push(c.name);
    }
    // Those that failed before ranges.ts: all are checked and must err.
    expect(answered).toEqual(
      expect.arrayContaining([
        "integer_math/int64_math/int64_min_negate",
        "integer_math/int64_math/int64_min_negate_div",
        "conversions/int/double_range",
        "conversions/int/double_int_max_range",
        "conversions/int/double_int_min_range",
        "timestamps/timestamp_range/add_duration_over",
        "timestamps/timestamp_range/add_duration_under",
        "timestamps/timestamp_range/sub_time_duration_over",
        "timestamps/duration_range/from_string_over",
        "timestamps/duration_range/add_over",
        "timestamps/duration_range/sub_under",
      ]),
    );
  });

  it("the edges of each range still evaluate, and the error is CEL_OVERFLOW at the operator", () => {
    const value = (src: string): unknown => {
      const b = bothWays(src, "condition", true);
      if (!b) throw new Error(`does not check: ${src}`);
      const o = outcomeOf(b.compiled, context);
      expect(outcomeOf(b.interpreted, context), src).toEqual(o);
      return o;
    };
    expect(value("-9223372036854775807 / -1 == 9223372036854775807")).toEqual({ value: "bool:true" });
    expect(value("-9223372036854775808 % 1 == 0")).toEqual({ value: "bool:true" });
    expect(value("-(-9223372036854775807) == 9223372036854775807")).toEqual({ value: "bool:true" });
    expect(value("int(9223372036854774784.0) > 0")).toEqual({ value: "bool:true" });
    expect(value('duration("315576000000s") > duration("0s")')).toEqual({ value: "bool:true" });
    expect(value('timestamp("9999-12-31T23:59:58Z") + duration("1s") > timestamp("2000-01-01T00:00:00Z")')).toEqual({ value: "bool:true" });
    expect(value('timestamp("2026-11-22T09:00:00Z") - timestamp("1970-01-01T00:00:00Z") > duration("0s")')).toEqual({ value: "bool:true" });
    expect(value("1 == 1 && -9223372036854775808 % -1 == 0")).toMatchObject({ code: "CEL_OVERFLOW", at: "10-35" });
    // An error absorbed by || as CEL absorbs any: the other side decides.
    expect(value("true || -(-9223372036854775808) > 0")).toEqual({ value: "bool:true" });
  });
});
