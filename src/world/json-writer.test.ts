import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonChunks, LazyList } from "./json-writer.js";

const write = (v: unknown, indent = 0): string => [...jsonChunks(v, indent)].join("");

describe("jsonChunks: an iterative JSON.stringify in chunks", () => {
  it("writes exactly what JSON.stringify writes, compact and indented", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(0, 2, 4), (v, indent) => {
        expect(write(v, indent)).toBe(indent === 0 ? JSON.stringify(v) : JSON.stringify(v, null, indent));
      }),
      { numRuns: 500 },
    );
  });

  it("skips what JSON.stringify skips and applies toJSON", () => {
    const v = { a: undefined, b: () => 1, c: [undefined, () => 1, NaN, -0], d: { toJSON: () => ({ e: 1 }) }, f: new Date(0), g: {} as Record<string, unknown>, h: [] };
    expect(write(v, 2)).toBe(JSON.stringify(v, null, 2));
    expect(write(v)).toBe(JSON.stringify(v));
    expect(write(undefined)).toBe("");
  });

  it("writes a __proto__ own key as JSON.stringify does", () => {
    const v = JSON.parse('{"__proto__": {"x": 1}, "y": [{"__proto__": 2}]}') as unknown;
    expect(write(v, 2)).toBe(JSON.stringify(v, null, 2));
  });

  it("writes 100,000 levels of nesting, where JSON.stringify overflows the stack", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = i % 2 === 0 ? [deep] : { k: deep };
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    const text = write(deep);
    expect(text.length).toBeGreaterThan(300_000);
    expect(text.startsWith('{"k":[{"k":')).toBe(true);
    // JSON.parse reads it back (V8's parser is iterative); written again it is the same text.
    expect(write(JSON.parse(text))).toBe(text);
  });

  it("writes a LazyList as an array, making its items only as it goes", () => {
    let made = 0;
    const list = new LazyList(function* () {
      for (let i = 0; i < 3; i++) {
        made++;
        yield { i };
      }
    });
    const chunks = jsonChunks({ items: list, empty: new LazyList(() => [][Symbol.iterator]()) }, 2);
    expect(made).toBe(0);
    expect([...chunks].join("")).toBe(JSON.stringify({ items: [{ i: 0 }, { i: 1 }, { i: 2 }], empty: [] }, null, 2));
    expect(made).toBe(3);
  });

  it("throws on a value that refers to itself, as JSON.stringify does, and hands out bounded chunks", () => {
    const loop: Record<string, unknown> = {};
    loop["self"] = { loop };
    expect(() => write(loop)).toThrow(TypeError);
    const big = Array.from({ length: 50_000 }, (_, i) => ({ i, s: "x".repeat(20) }));
    const chunks = [...jsonChunks(big)];
    expect(chunks.length).toBeGreaterThan(10);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(70_000);
    expect(chunks.join("")).toBe(JSON.stringify(big));
  });
});
