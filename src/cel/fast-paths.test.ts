/**
 * The hand-written fast paths against the straightforward versions they replaced: timestamps read
 * character by character vs the RFC 3339 regular expression, spans located with a line index vs
 * walking the source with `Array.from`, and displays kept for frozen values vs written afresh.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { locate } from "./diagnostics.js";
import { formatCelValue } from "./format-value.js";
import { isTimestampText, parseTimestamp } from "./values.js";

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;
const daysIn = (y: number, m: number): number => new Date(Date.UTC(2000 + (y % 400), m, 0)).getUTCDate();

/** The regex reading the fast path replaced. */
function referenceTimestamp(s: string): number | undefined {
  const m = RFC3339.exec(s);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i])) as [number, number, number, number, number, number];
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) return undefined;
  const frac = m[7];
  const ms = frac === undefined ? 0 : Math.floor(Number(frac) / 10 ** (frac.length - 3));
  let t = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  if (year < 100) t = Date.UTC(year + 400, month - 1, day, hour, minute, second, ms) - 12622780800000;
  if (m[8] === undefined) t -= (m[9] === "-" ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11])) * 60000;
  return t;
}

/** The `Array.from` walk `locate` replaced. */
function referenceLocate(source: string, span: { start: number; end: number }) {
  const clamp = (n: number, lo: number, hi: number): number => (Number.isFinite(n) ? Math.min(hi, Math.max(lo, Math.trunc(n))) : lo);
  const lineCol = (offset: number): [number, number, number] => {
    let line = 1;
    let lineStart = 0;
    for (let i = source.indexOf("\n"); i >= 0 && i < offset; i = source.indexOf("\n", i + 1)) {
      line++;
      lineStart = i + 1;
    }
    return [line, Array.from(source.slice(lineStart, offset)).length + 1, lineStart];
  };
  const start = clamp(span.start, 0, source.length);
  const end = clamp(Math.max(span.end, start), start, source.length);
  const [line, column, lineStart] = lineCol(start);
  const [endLine, endColumn] = lineCol(end);
  let lineEnd = source.indexOf("\n", lineStart);
  if (lineEnd < 0) lineEnd = source.length;
  const text = source.slice(lineStart, lineEnd).replace(/\r$/, "");
  const lead = Array.from(source.slice(lineStart, start), (ch) => (ch === "\t" ? "\t" : " ")).join("");
  const width = Math.max(1, Array.from(source.slice(start, Math.min(end, lineEnd))).length);
  return { span: { start, end }, line, column, endLine, endColumn, excerpt: `${text}\n${lead}${"^".repeat(width)}` };
}

describe("fast paths agree with the reference versions", () => {
  it("parseTimestamp reads what the RFC 3339 regex reads (property)", () => {
    const char = fc.constantFrom(..."0123456789-:.TtZz +x".split(""), "٣");
    const near = fc
      .tuple(
        fc.date({ min: new Date("0001-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59Z"), noInvalidDate: true }),
        fc.constantFrom("T", "t", " "),
        fc.integer({ min: -1, max: 11 }),
        fc.constantFrom("Z", "z", "+05:30", "-01:00", "+99:99"),
        fc.array(fc.tuple(fc.nat(40), char, fc.boolean()), { maxLength: 2 }),
      )
      .map(([d, sep, digits, zone, edits]) => {
        let s = `${d.toISOString().slice(0, 19).replace("T", sep)}${digits >= 0 ? `.${"123456789012".slice(0, digits)}` : ""}${zone}`;
        for (const [at, c, insert] of edits) {
          const i = at % (s.length + 1);
          s = s.slice(0, i) + c + s.slice(insert ? i : i + 1);
        }
        return s;
      });
    fc.assert(
      fc.property(fc.oneof(near, fc.string()), (s) => {
        const want = referenceTimestamp(s);
        expect(parseTimestamp(s)?.getTime()).toBe(want);
        expect(isTimestampText(s)).toBe(want !== undefined);
      }),
      { numRuns: 3000 },
    );
  });

  it("locate gives the positions and excerpt of the Array.from walk (property)", () => {
    const text = fc.array(fc.constantFrom("a", " ", "\t", "\n", "\r", "😀", "\uD800", "\uDC00", "é"), { maxLength: 30 }).map((a) => a.join(""));
    fc.assert(
      fc.property(text, fc.integer({ min: -3, max: 70 }), fc.integer({ min: -3, max: 70 }), (s, start, end) => {
        expect(locate(s, { start, end })).toEqual(referenceLocate(s, { start, end }));
      }),
      { numRuns: 3000 },
    );
  });

  it("keeps displays only for values that cannot change", () => {
    const frozen = Object.freeze({ a: Object.freeze(["x", 1n]) });
    expect(formatCelValue(frozen)).toBe('{"a": ["x", 1]}');
    expect(formatCelValue(frozen)).toBe('{"a": ["x", 1]}');
    const open: Record<string, unknown> = { a: 1n };
    expect(formatCelValue(open)).toBe('{"a": 1}');
    open["b"] = 2n;
    expect(formatCelValue(open)).toBe('{"a": 1, "b": 2}');
    const dates = Object.freeze([new Date(0)]);
    expect(formatCelValue(dates)).toBe('[timestamp("1970-01-01T00:00:00Z")]');
    dates[0]?.setTime(1000);
    expect(formatCelValue(dates)).toBe('[timestamp("1970-01-01T00:00:01Z")]');
    let n = 0;
    const getter = Object.freeze(Object.defineProperty({}, "k", { get: () => ++n, enumerable: true }));
    expect(formatCelValue(getter)).not.toBe(formatCelValue(getter));
  });
});
