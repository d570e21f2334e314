import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IdSequence } from "./advance.js";

describe("IdSequence", () => {
  it("numbers ids from the world's seq, zero-padded to six digits", () => {
    const ids = new IdSequence(9);
    expect([ids.take("evt"), ids.take("step"), ids.take("gen")]).toEqual(["evt-000009", "step-000010", "gen-000011"]);
    expect(ids.next).toBe(12);
    expect(new IdSequence(999_999).take("evt")).toBe("evt-999999");
    expect(new IdSequence(1_000_000).take("evt")).toBe("evt-1000000");
  });

  it("writes what `String(n).padStart(6, \"0\")` writes, for any number", () => {
    const n = fc.oneof(fc.integer({ min: 0, max: 2_000_000 }), fc.maxSafeInteger(), fc.integer(), fc.double({ noNaN: true }), fc.constantFrom(1e21, 2 ** 60, -0, 0.5));
    fc.assert(
      fc.property(n, fc.constantFrom("evt", "step", "gen", "cmt"), (start, prefix) => {
        const ids = new IdSequence(start);
        expect(ids.take(prefix)).toBe(`${prefix}-${String(start).padStart(6, "0")}`);
        expect(ids.take(prefix)).toBe(`${prefix}-${String(start + 1).padStart(6, "0")}`);
      }),
    );
  });
});
