/**
 * Hostile conditions against the cost budget (cost.ts): values doubled through nested `cel.bind`s,
 * comparisons of trees built apart, string functions that build large strings, scans repeated over
 * large strings. Each passed check and then ran for minutes or killed the process (V8's "invalid
 * size"); each must now be flagged by check (`CEL_COST_LIMIT`) and stop at run time with
 * `CEL_COST_EXCEEDED` quickly, having built nothing much larger than the budget, on both evaluators.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkCondition, compileCondition, estimateExpressionCost } from "./compile.js";
import { COST_LIMIT_KEY, DEFAULT_CEL_COST_LIMIT } from "./cost.js";
import { evaluateCondition, type ConditionOutcome } from "./evaluate.js";
import { CEL_RESOURCE_LIMITS } from "./limits.js";
import { adaInput, makeUser, tenant } from "./test-fixtures.js";
import { contextsOf, differential } from "./test-differential.js";
import { traceCondition } from "./trace.js";

/** `cel.bind(s0, seed, cel.bind(s1, f(s0), … final(s{n-1})))`. */
function chain(n: number, seed: string, step: (prev: string) => string, final: (last: string) => string): string {
  let s = `cel.bind(s0, ${seed}, `;
  for (let i = 1; i < n; i++) s += `cel.bind(s${i}, ${step(`s${i - 1}`)}, `;
  return s + final(`s${n - 1}`) + ")".repeat(n);
}

/** Two trees built apart, `a_i = [a_{i-1}, a_{i-1}]` (and `b` alike), then `final(a_n, b_n)`. */
function twoTrees(n: number, leaf: string, node: (prev: string) => string, final: (a: string, b: string) => string): string {
  let s = `cel.bind(a0, ${leaf}, cel.bind(b0, ${leaf}, `;
  for (let i = 1; i < n; i++) s += `cel.bind(a${i}, ${node(`a${i - 1}`)}, cel.bind(b${i}, ${node(`b${i - 1}`)}, `;
  return s + final(`a${n - 1}`, `b${n - 1}`) + "))".repeat(n);
}

const HOSTILE: Readonly<Record<string, string>> = {
  // The review's reproductions, at the sizes that crashed or hung the process.
  "list doubled through 26 binds": chain(26, "[1, 2, 3, 4, 5, 6, 7, 8]", (p) => `${p} + ${p}`, (l) => `${l}.size() > 0`),
  "string doubled through 28 binds": chain(28, '"aaaaaaaaaaaaaaaa"', (p) => `${p} + ${p}`, (l) => `${l}.size() > 0`),
  "two 40-level trees compared with ==": twoTrees(40, "[1]", (p) => `[${p}, ${p}]`, (a, b) => `${a} == ${b}`),
  "two 40-level trees compared with in": twoTrees(40, "[1]", (p) => `[${p}, ${p}]`, (a, b) => `${a} in [${b}]`),
  "two 40-level map trees compared with !=": twoTrees(40, '{"a": 1}', (p) => `{"a": ${p}, "b": ${p}}`, (a, b) => `${a} != ${b}`),
  // Other ways to build large values without a comprehension.
  'replace("", s) through 4 binds': chain(4, `"${"ab".repeat(50)}"`, (p) => `${p}.replace("", ${p})`, (l) => `${l}.size() > 0`),
  "join of four copies through 14 binds": chain(14, `"${"ab".repeat(50)}"`, (p) => `[${p}, ${p}, ${p}, ${p}].join()`, (l) => `${l}.size() > 0`),
  "split into characters of a doubled string": chain(22, '"abcdefgh"', (p) => `${p} + ${p}`, (l) => `${l}.split("").size() > 0`),
  // Scans repeated over one large string: each pays for what it reads.
  "size() of a large string, 800 times": chain(20, '"abcdefgh"', (p) => `${p} + ${p}`, (l) => Array.from({ length: 800 }, () => `${l}.size() > 0`).join(" && ")),
  "contains() over a large string, 800 times": chain(20, '"abcdefgh"', (p) => `${p} + ${p}`, (l) => Array.from({ length: 800 }, () => `!${l}.contains("zz")`).join(" && ")),
  "in over a large list, 800 times": chain(17, "[1, 2, 3, 4, 5, 6, 7, 8]", (p) => `${p} + ${p}`, (l) => Array.from({ length: 800 }, () => `!(9 in ${l})`).join(" && ")),
  "== of two large strings built apart, 800 times": chain(19, '"abcdefgh"', (p) => `${p} + ${p}`, (l) => Array.from({ length: 800 }, () => `${l} + "x" != ${l} + "y"`).join(" && ")),
};

const errorText = (source: string, o: ConditionOutcome): string => {
  if (o.ok) return `value ${String(o.value)}`;
  const span = o.error.location?.span;
  return `${o.error.code} at ${span ? source.slice(span.start, span.end) : "?"}`;
};

function compiled(source: string) {
  const c = compileCondition(source);
  if (!c.ok) throw new Error(`${source.slice(0, 80)}: ${c.error[0]?.code} ${c.error[0]?.message}`);
  return c.value;
}

describe("hostile conditions: runtime budget", () => {
  for (const [name, source] of Object.entries(HOSTILE)) {
    it(`${name}: CEL_COST_EXCEEDED within seconds, the same when traced`, () => {
      const c = compiled(source);
      const started = performance.now();
      const outcome = evaluateCondition(c, adaInput());
      const traced = traceCondition(c, adaInput());
      const elapsed = performance.now() - started;
      expect(outcome).toMatchObject({ ok: false, error: { code: "CEL_COST_EXCEEDED" } });
      // Compiled and traced (cel-js's instrumented copy) stop at the same node.
      expect(errorText(source, traced.outcome)).toBe(errorText(source, outcome));
      // Before: minutes, or the process died. Generous for a loaded CI machine.
      expect(elapsed).toBeLessThan(10_000);
    });
  }

  it("stops doubling while the values are small: the list at the level of about a million items", () => {
    const source = HOSTILE["list doubled through 26 binds"] ?? "";
    const outcome = evaluateCondition(compiled(source), adaInput());
    // Each `+` pays for its result before building it: 16 × (2^16 − 1) units by level 16, so the
    // last list built holds 8 × 2^15 = 262,144 items and the one that would hold 524,288 is refused.
    expect(errorText(source, outcome)).toBe("CEL_COST_EXCEEDED at s15 + s15");
    const strings = HOSTILE["string doubled through 28 binds"] ?? "";
    // Strings: a unit per ten characters, so about 10 million characters at most.
    const at = errorText(strings, evaluateCondition(compiled(strings), adaInput()));
    const level = Number(/s(\d+) \+ s\d+$/.exec(at)?.[1]);
    expect(level).toBeGreaterThan(14);
    expect(level).toBeLessThan(21);
  });

  it("no world or call gets more than the hard limit: a budget of 10^12 still stops them", () => {
    for (const name of ["list doubled through 26 binds", "two 40-level trees compared with =="]) {
      const source = HOSTILE[name] ?? "";
      const started = performance.now();
      const outcome = evaluateCondition(compiled(source), adaInput({ costLimit: 1e12 }));
      expect(outcome).toMatchObject({ ok: false, error: { code: "CEL_COST_EXCEEDED", message: expect.stringContaining(`limit of ${CEL_RESOURCE_LIMITS.maxCostLimit} units`) } });
      expect(performance.now() - started).toBeLessThan(20_000);
    }
  });

  it("compiled closures, generated code and cel-js run out at the same node (differential)", () => {
    // Small sizes, budgets around where each runs out.
    const sources = [
      chain(8, "[1, 2, 3, 4, 5, 6, 7, 8]", (p) => `${p} + ${p}`, (l) => `${l}.size() > 0`),
      chain(8, '"aaaaaaaaaaaaaaaa"', (p) => `${p} + ${p}`, (l) => `${l}.size() > 0 && ${l}.contains("b") == false`),
      twoTrees(8, "[1]", (p) => `[${p}, ${p}]`, (a, b) => `${a} == ${b}`),
      twoTrees(8, "[1]", (p) => `[${p}, ${p}]`, (a, b) => `${a} in [${b}]`),
      'subject.email.endsWith("@northwind.example") && subject.department == "Engineering"',
      'subject.department in ["Engineering", "Platform"] && subject.email != subject.department + "x"',
      'cel.bind(s, subject.email + subject.email, s.startsWith(subject.email) && s > subject.email && s.replace("a", s).size() > 0)',
      'subject.profile.clearance == "top-secret-clearance" || [subject.email].join(",").split("@").size() == 2',
    ];
    for (const source of sources) {
      const contexts = contextsOf("condition").flatMap((c) =>
        [10, 30, 60, 200, 1000, 5000].map((limit) => Object.assign(Object.create(Object.getPrototypeOf(c) as object) as object, c, { [COST_LIMIT_KEY]: limit })),
      );
      const d = differential(source, "condition", contexts);
      expect(d?.mismatches ?? ["does not compile"], source).toEqual([]);
    }
  });

  it("nested comparisons pay for every element they visit, through cel-js's own equality", () => {
    const source = twoTrees(12, "[1, 2, 3]", (p) => `[${p}, ${p}]`, (a, b) => `${a} == ${b}`);
    const c = compiled(source);
    // 2^11 leaves of three items each: some thousands of units, not the few the nodes cost.
    expect(evaluateCondition(c, adaInput({ costLimit: 2000 }))).toMatchObject({ ok: false, error: { code: "CEL_COST_EXCEEDED" } });
    expect(evaluateCondition(c, adaInput({ costLimit: 100_000 }))).toEqual({ ok: true, value: true });
  });

  it("ordinary conditions still pay about their nodes", () => {
    // Its nodes; comparing with literals, or testing for one, costs no more (bounded by the text);
    // a unit per ten characters compared or read otherwise.
    for (const [source, limit] of [
      ['subject.department == "IT"', 4],
      ['subject.department == "Engineering"', 4],
      ['subject.department == "IT" || subject.department in ["Engineering", "Platform"]', 11],
      ['subject.email.endsWith("@northwind.example")', 4],
      ['subject.profile.level > 3 && subject.manager != ""', 10],
      ['subject.email.contains("northwind")', 6], // 4 nodes, 21 characters read (and 9)
      ["subject.department == subject.jobTitle", 6], // 5 nodes, 11 characters compared
      ['subject.emails.exists(e, e == "ada@northwind.example")', 16], // inside a loop, comparing with a literal pays too
    ] as const) {
      const c = compiled(source);
      expect(evaluateCondition(c, adaInput({ costLimit: limit })).ok, source).toBe(true);
      expect(evaluateCondition(c, adaInput({ costLimit: limit - 1 })), source).toMatchObject({ ok: false, error: { code: "CEL_COST_EXCEEDED" } });
    }
  });
});

describe("hostile conditions: static estimate", () => {
  it("flags every one of them at check time (CEL_COST_LIMIT)", () => {
    for (const [name, source] of Object.entries(HOSTILE)) {
      const started = performance.now();
      const codes = checkCondition(source).map((d) => d.code);
      expect(codes, name).toEqual(["CEL_COST_LIMIT"]);
      expect(performance.now() - started, name).toBeLessThan(5_000);
    }
  });

  it("follows cel.bind variables and + results: a few doublings pass, thirty do not", () => {
    const doubled = (n: number) => chain(n, "[1, 2, 3, 4, 5, 6, 7, 8]", (p) => `${p} + ${p}`, (l) => `${l}.size() > 0`);
    const cost = (s: string) => {
      const e = estimateExpressionCost(s, "condition");
      return e.ok ? e.value.cost : Number.NaN;
    };
    expect(checkCondition(doubled(4))).toEqual([]);
    // Exponential in the number of binds, not linear as with a variable counted as an input list.
    expect(cost(doubled(12)) / cost(doubled(11))).toBeGreaterThan(1.8);
    expect(cost(doubled(30))).toBeGreaterThan(1e9);
    // The smallest sub-expression over the limit on its own is named.
    const [d] = checkCondition(doubled(30));
    expect(d?.message).toMatch(/^estimated cost [\d,]+ exceeds the limit of 1,000,000/);
    // A bound variable is read at its size, not at its value's cost.
    expect(cost('cel.bind(d, subject.department, d == "IT" || d == "Eng" || d == "Sales")')).toBeLessThan(1_000);
    // Trees: their nested size, as `==` walks them.
    expect(checkCondition(twoTrees(6, "[1]", (p) => `[${p}, ${p}]`, (a, b) => `${a} == ${b}`))).toEqual([]);
    expect(checkCondition(twoTrees(30, "[1]", (p) => `[${p}, ${p}]`, (a, b) => `${a} == ${b}`)).map((x) => x.code)).toEqual(["CEL_COST_LIMIT"]);
  });

  it("keeps ordinary conditions well under the limit", () => {
    for (const s of [
      'subject.department == "Engineering" && entitlement.riskLevelValueId in ["low", "medium"]',
      'c1.user.v1.HasEntitlement(subject, "app-okta", "ent-okta-mfa") && subject.job_title.contains("Engineer")',
      'now().getHours("Europe/Berlin") >= 18 || now().getHours("Europe/Berlin") < 7',
      'cel.bind(d, subject.department, d == "IT" || d.startsWith("Eng"))',
      'subject.emails.exists(e, e.endsWith("@example.com"))',
      'subject.email.lowerAscii().split("@")[1] == "example.com"',
    ]) {
      expect(checkCondition(s), s).toEqual([]);
      const e = estimateExpressionCost(s, "condition");
      expect(e.ok && e.value.cost, s).toBeLessThan(DEFAULT_CEL_COST_LIMIT / 4);
    }
  });
});

describe("random well-typed expressions never exceed time or memory (property)", () => {
  // Chains of binds over strings and lists, each step one of the operations whose work grows with
  // its operands; two chains built alike (equal, never identical) compared at the end.
  const stringSteps = ["x + x", 'x.replace("", x)', '[x, x, x].join("-")', "x.lowerAscii()", 'x.replace("a", x + x)', "string(x) + x", "x.reverse() + x"];
  const listSteps = ["x + x", "[x, x].map(y, y)[0] + x", "x.filter(y, true) + x", "dyn([x, x])", "[x]"];
  const finals = ["a == b", "a != b", "a in [b]", "size(a) >= 0", "string(size(a)) != ''"];
  const arbChain = fc.record({
    strings: fc.boolean(),
    steps: fc.array(fc.nat(), { minLength: 1, maxLength: 40 }),
    final: fc.constantFrom(...finals),
  });

  const build = (r: { strings: boolean; steps: number[]; final: string }, v: string): string => {
    const menu = r.strings ? stringSteps : listSteps;
    let s = `cel.bind(${v}0, dyn(${r.strings ? '"ab"' : "[1, 2]"}), `;
    r.steps.forEach((k, i) => {
      s += `cel.bind(${v}${i + 1}, dyn(${(menu[k % menu.length] ?? "x").replaceAll("x", `${v}${i}`)}), `;
    });
    return s;
  };

  it("evaluate (and trace) to a value or CEL_COST_EXCEEDED, within a second or two", () => {
    fc.assert(
      fc.property(arbChain, (r) => {
        const n = r.steps.length;
        const source = `${build(r, "a")}${build(r, "b")}${r.final.replaceAll("a", `a${n}`).replaceAll("b", `b${n}`)}${")".repeat(2 * (n + 1))}`;
        expect(() => checkCondition(source)).not.toThrow();
        const c = compileCondition(source);
        if (!c.ok) return; // a step the type checker refuses for this shape
        const started = performance.now();
        const outcome = evaluateCondition(c.value, adaInput());
        const traced = traceCondition(c.value, adaInput());
        expect(performance.now() - started).toBeLessThan(5_000);
        // A value, or the budget's error: never V8's "Invalid string length" or "invalid size".
        if (!outcome.ok) expect(outcome.error.code, outcome.error.message).toBe("CEL_COST_EXCEEDED");
        expect(traced.outcome).toEqual(outcome);
        const heap = process.memoryUsage().heapUsed;
        expect(heap).toBeLessThan(1.5 * 1024 ** 3);
      }),
      { numRuns: 60 },
    );
  });
});

describe("large input values", () => {
  it("a profile string of millions of characters pays for every scan of it", () => {
    const big = "x".repeat(3_000_000);
    const subject = makeUser({ ...tenant.ada, id: "u-big", profile: { note: big } });
    const scans = Array.from({ length: 200 }, () => 'subject.profile.note.contains("y") == false').join(" && ");
    const started = performance.now();
    const outcome = evaluateCondition(compiled(scans), adaInput({ subject }));
    expect(outcome).toMatchObject({ ok: false, error: { code: "CEL_COST_EXCEEDED" } });
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
