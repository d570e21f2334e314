import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GrowingInts } from "./task-classes.js";

describe("GrowingInts: numbers by number, dense or sparse", () => {
  it("answers what was set, -1 elsewhere, whether its numbers are dense, far apart, or both (against a Map)", () => {
    const index = fc.oneof(fc.nat(200), fc.nat(100_000), fc.integer({ min: 1_000_000, max: 1_000_100 }));
    fc.assert(
      fc.property(fc.array(fc.tuple(index, fc.nat(1_000_000)), { maxLength: 300 }), fc.array(index, { maxLength: 50 }), (sets, probes) => {
        const ints = new GrowingInts();
        const reference = new Map<number, number>();
        for (const [i, v] of sets) {
          ints.set(i, v);
          reference.set(i, v);
        }
        for (const i of [...sets.map(([k]) => k), ...probes]) expect(ints.get(i)).toBe(reference.get(i) ?? -1);
      }),
    );
  });

  it("a few numbers from far up a counter do not size an array to the largest", () => {
    // 10,000 tables each given two numbers near 30,000,000 stay small (an array each would be 10 GB).
    const tables = Array.from({ length: 10_000 }, (_, k) => {
      const t = new GrowingInts();
      t.set(30_000_000 + k, 1);
      t.set(30_000_001 + k, 2);
      return t;
    });
    expect(tables[9_999]?.get(30_010_000)).toBe(2);
    expect(tables[0]?.get(5)).toBe(-1);
  });
});
