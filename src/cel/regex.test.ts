import { describe, expect, it } from "vitest";
import { checkCondition, compileCacheStats, compileCondition, compiledBytes, compileFresh } from "./compile.js";
import { celEnvironment } from "./environment.js";
import { evaluateCondition } from "./evaluate.js";
import { CEL_RESOURCE_LIMITS } from "./limits.js";
import { RegexCache, regexWeight } from "./regex.js";
import { adaInput, makeUser } from "./test-fixtures.js";

function run(source: string, department: string) {
  const c = compileCondition(source);
  if (!c.ok) throw new Error(`${source}: ${c.error.map((d) => d.message).join("; ")}`);
  return evaluateCondition(c.value, adaInput({ subject: makeUser({ id: "u-r", department }) }));
}

describe("matches() runs on RE2", () => {
  it("does not backtrack catastrophically: ^(a+)+$ on 10,000 characters", () => {
    const almost = `${"a".repeat(10_000)}!`;
    const started = performance.now();
    const miss = run('subject.department.matches("^(a+)+$")', almost);
    const hit = run('subject.department.matches("^(a+)+$")', "a".repeat(10_000));
    const elapsed = performance.now() - started;
    expect(miss).toEqual({ ok: true, value: false });
    expect(hit).toEqual({ ok: true, value: true });
    // RE2 takes a few milliseconds (125–162 ms cold, under load); the JS engine would not finish in
    // minutes. The bound only tells the two apart, with room for a loaded CI machine.
    expect(elapsed).toBeLessThan(5000);
  });

  it("matches anywhere in the string unless anchored, as CEL's matches does", () => {
    expect(run('subject.department.matches("gin")', "Engineering")).toEqual({ ok: true, value: true });
    expect(run('subject.department.matches("^gin")', "Engineering")).toEqual({ ok: true, value: false });
    expect(run('subject.department.matches("(?i)^engineering$")', "Engineering")).toEqual({ ok: true, value: true });
    expect(run('matches(subject.department, "^Eng")', "Engineering")).toEqual({ ok: true, value: true });
  });

  it("refuses patterns RE2 does not support at check time when they are literals", () => {
    expect(checkCondition('subject.department.matches("(a)\\\\1")')).toMatchObject([{ code: "CEL_UNSUPPORTED_REGEX", column: 28 }]);
    expect(checkCondition('subject.department.matches("foo(?=bar)")')).toMatchObject([{ code: "CEL_UNSUPPORTED_REGEX" }]);
    expect(checkCondition('matches(subject.department, "(?<!x)y")')).toMatchObject([{ code: "CEL_UNSUPPORTED_REGEX" }]);
    expect(checkCondition('subject.department.matches("([a-z]")')).toMatchObject([{ code: "CEL_INVALID_REGEX" }]);
    // A count past RE2's 1000 (nested counts multiplied) is RE2's limit, not a missing feature (hostile review).
    expect(checkCondition('subject.department.matches("(?:a{100}){98}")')).toMatchObject([{ code: "CEL_INVALID_REGEX", message: expect.stringContaining("at most 1000 times") }]);
  });

  it("reports an unusable pattern built at run time as a run-time error", () => {
    expect(run('subject.department.matches(subject.department)', "(a)\\1")).toMatchObject({ ok: false, error: { code: "CEL_INVALID_ARGUMENT" } });
    expect(run('subject.department.matches(subject.department)', "a+")).toEqual({ ok: true, value: true });
  });

  it("type-checks its arguments", () => {
    expect(checkCondition("subject.department.matches(1)")).toMatchObject([{ code: "CEL_NO_MATCHING_OVERLOAD", message: "found no matching overload for 'string.matches(int)'" }]);
    expect(checkCondition('subject.profile.x.matches("a")')).toEqual([]);
  });
});

describe("regular expressions are bounded before they are compiled (limits.ts)", () => {
  /** The review's pattern: 4,000 alternatives repeated 1,000 times, 31 KB, just under RE2's own limit. */
  const hostile = (k: number): string => `(?:${Array.from({ length: 4000 }, (_, i) => `w${k}x${i}`).join("|")}){1000}`;
  const max = CEL_RESOURCE_LIMITS.maxRegexWeight;

  it("weighs a pattern as RE2 measures its size, counted repetitions multiplied out", () => {
    expect(regexWeight("^[a-z]+$")).toBe(8);
    expect(regexWeight("(?:ab|cd){100}")).toBe(500);
    expect(regexWeight("a{2,5}")).toBe(8); // 5 copies + 3 optional, at least its length
    expect(regexWeight("((a{10}){10}){10}")).toBe(((10 + 2) * 10 + 2) * 10); // a capture adds 2
    expect(regexWeight(".{0,1000}")).toBe(2000);
    expect(regexWeight("\\Qa.b\\E{10}")).toBe(30);
    expect(regexWeight(hostile(0))).toBeGreaterThan(20_000_000);
    // Any text gets a weight, however malformed.
    for (const p of ["(", ")", "[", "\\", "{1000}", "a{99999999999}", "(?", "(?P<", "[[:alpha:]"]) expect(Number.isFinite(regexWeight(p))).toBe(true);
  });

  it("refuses the review's pattern at check time at once, naming the limit (was ~3–7 s and ~150 MB each)", () => {
    const started = performance.now();
    const [d, ...rest] = checkCondition(`subject.department.matches("${hostile(0)}")`);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(rest).toEqual([]);
    expect(d?.code).toBe("CEL_INVALID_REGEX");
    expect(d?.message).toContain(`over the limit of ${max.toLocaleString("en-US")}`);
  });

  it("validate/cel's attack (16 requests of 2 such patterns; 8 in one are longer than any expression may be) keeps nothing large and takes no time", () => {
    const regexes = celEnvironment("condition").services.regexes;
    const started = performance.now();
    for (let request = 0; request < 16; request++) {
      const text = Array.from({ length: 2 }, (_, k) => `subject.department.matches("${hostile(100 + request * 2 + k)}")`).join(" || ");
      expect(checkCondition(text)[0]?.code).toBe("CEL_INVALID_REGEX");
    }
    const eight = Array.from({ length: 8 }, (_, k) => `subject.department.matches("${hostile(200 + k)}")`).join(" || ");
    expect(checkCondition(eight)[0]?.code).toBe("CEL_LIMIT_EXCEEDED");
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(regexes.bytes).toBeLessThanOrEqual(CEL_RESOURCE_LIMITS.regexCacheBytes);
  });

  it("refuses a pattern built at run time as an error value naming the limit", () => {
    const c = compileCondition("subject.department.matches(subject.profile.pattern)");
    if (!c.ok) throw new Error("does not compile");
    const started = performance.now();
    const r = evaluateCondition(c.value, adaInput({ subject: makeUser({ id: "u-r", department: "w1x1", profile: { pattern: hostile(1) } }) }));
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(r).toMatchObject({ ok: false, error: { code: "CEL_INVALID_ARGUMENT", message: expect.stringContaining(`over the limit of ${max.toLocaleString("en-US")}`) } });
  });

  it("bounds the patterns of one expression together (CEL_LIMIT_EXCEEDED), each under the limit", () => {
    const big = (k: number): string => `(?:ab${k}|cdefgh|ijklmn){500}`; // (3 + 6 + 6 + 2) × 500 = 8,500 each
    expect(regexWeight(big(1))).toBeLessThanOrEqual(max);
    // On a short literal subject, so that matching them is cheap enough for the cost estimate.
    const two = [1, 2].map((k) => `"ab".matches("${big(k)}")`).join(" || ");
    expect(checkCondition(two)).toEqual([]);
    const three = [1, 2, 3].map((k) => `"ab".matches("${big(k)}")`).join(" || ");
    const [d] = checkCondition(three);
    expect(d?.code).toBe("CEL_LIMIT_EXCEEDED");
    expect(d?.message).toContain(CEL_RESOURCE_LIMITS.maxRegexWeightPerExpression.toLocaleString("en-US"));
    expect(three.slice(d?.span.start, d?.span.end)).toBe(`"${big(3)}"`);
  });

  it("charges matching by subject length × pattern weight: a pattern with thousands of live states on a long subject stops", () => {
    // `.{0,1000}` five times: 10,000 weight; re2js takes seconds per match on 10,000 characters.
    const pattern = ".{0,1000}".repeat(5);
    expect(checkCondition(`subject.department.matches("${pattern}")`)).toMatchObject([{ code: "CEL_COST_LIMIT" }]);
    const c = compileCondition(`subject.department.matches("${pattern}")`);
    if (!c.ok) throw new Error("does not compile");
    const started = performance.now();
    const r = evaluateCondition(c.value, adaInput({ subject: makeUser({ id: "u-r", department: "a".repeat(10_000) }) }));
    expect(r).toMatchObject({ ok: false, error: { code: "CEL_COST_EXCEEDED" } });
    expect(performance.now() - started).toBeLessThan(1_000);
    // An ordinary pattern on an ordinary string costs a few units.
    const email = compileCondition('subject.email.matches("^[a-z.]+@northwind[.]example$")');
    if (!email.ok) throw new Error("does not compile");
    expect(evaluateCondition(email.value, adaInput({ costLimit: 300 }))).toEqual({ ok: true, value: true });
  });

  it("keeps compiled patterns within a byte budget, not only a count", () => {
    const budget = 4 * 1024 * 1024;
    const cache = new RegexCache(512, budget);
    for (let k = 0; k < 30; k++) expect(cache.get(`(?:ab${k}|cd){1000}`).ok).toBe(true); // 6,000 weight, ~770 KB each by the estimate
    expect(cache.bytes).toBeLessThanOrEqual(budget);
    expect(cache.size).toBeLessThan(10);
    // Failures are kept too, and small.
    expect(cache.get(hostile(7)).ok).toBe(false);
    expect(cache.bytes).toBeLessThanOrEqual(budget);
  });
});

describe("compiled expressions are cached within a byte budget (limits.ts)", () => {
  it("evicts the oldest when large sources would exceed it", () => {
    const budget = CEL_RESOURCE_LIMITS.compileCacheBytes;
    // A comprehension over a 1,000-element list: about 1 MB by the estimate (its cost bound, not its
    // text: no text may be long enough, CEL_RESOURCE_LIMITS.maxSourceLength); 120 of them would be 120 MB.
    const list = Array.from({ length: 1000 }, (_, i) => i).join(",");
    for (let k = 0; k < 120; k++) expect(compileCondition(`[${list}].exists(x, x == ${k})`).ok).toBe(true);
    const stats = compileCacheStats("condition");
    expect(stats.bytes).toBeLessThanOrEqual(budget);
    expect(stats.entries).toBeLessThan(CEL_RESOURCE_LIMITS.compileCacheEntries);
    // Still a cache: a small condition compiled twice is the same handle.
    const a = compileCondition('subject.department == "cache-check"');
    expect(compileCondition('subject.department == "cache-check"')).toBe(a);
    expect(compiledBytes('subject.department == "IT"', compileFresh(celEnvironment("condition"), 'subject.department == "IT"'))).toBeLessThan(20_000);
  });
});
