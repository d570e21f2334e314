import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { clipLongLines } from "./clip.js";

describe("clipLongLines (REPL review: a 2 MB id made a 2 MB error line)", () => {
  it("leaves short text alone, and cuts a long line in the middle saying how much it left out", () => {
    expect(clipLongLines("no task \"9999\"")).toBe('no task "9999"');
    const id = "x".repeat(2_000_000);
    const line = clipLongLines(`NOT_FOUND: no task "${id}"\nsecond line`);
    const [first, second] = line.split("\n");
    expect(first?.length).toBeLessThan(4100);
    expect(first).toMatch(/^NOT_FOUND: no task "x+ … \(1,996,0\d\d characters left out\) … x+"$/);
    expect(second).toBe("second line");
  });

  it("never cuts between the halves of a surrogate pair", () => {
    for (const text of ["a" + "😀".repeat(3000), "😀".repeat(3000), "ab" + "😀".repeat(3000) + "c"]) {
      const out = clipLongLines(text, 101);
      // No lone surrogate: each high one followed by a low one, each low one preceded by a high one.
      expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(out)).toBe(false);
      expect(out).toContain("characters left out");
    }
  });

  it("keeps every line at most the limit plus its note, and the start and end of each", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 300 }), { maxLength: 5 }), fc.integer({ min: 10, max: 120 }), (lines, max) => {
        const out = clipLongLines(lines.join("\n"), max).split("\n");
        expect(out.length).toBe(lines.length === 0 ? 1 : lines.length);
        out.forEach((l, i) => {
          const given = lines[i] ?? "";
          if (given.length <= max) expect(l).toBe(given);
          else {
            expect(l.startsWith(given.slice(0, Math.floor(max * 0.75)))).toBe(true);
            expect(l.endsWith(given.slice(given.length - (max - Math.floor(max * 0.75))))).toBe(true);
            expect(l).toContain(" characters left out) … ");
          }
        });
      }),
    );
  });
});
