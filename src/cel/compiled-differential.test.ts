/**
 * Issue 16's proof: every expression is evaluated compiled (generated code or closures, cel-js as fallback) and
 * interpreted (cel-js alone) on varied inputs, and the two must give identical values and identical
 * errors. Besides, the closures are run alone (no fallback): whenever they answer by themselves,
 * their value must be cel-js's, so the fallback cannot hide a wrong compiled answer; and the function
 * generate.ts writes for them, alone, must answer exactly when they do, with the same value.
 * (a) every expression of the project: fixtures, documentation examples, test files;
 * (b) random well-typed expressions generated from the declared environment (fast-check);
 * (c) the official CEL conformance cases (cel-spec, from `@bufbuild/cel-spec`) that fit the
 *     environment, the others skipped with their reason.
 */
import { tests as conformance } from "@bufbuild/cel-spec/testdata/conformance.js";
import type { SerializedIncrementalTest, SerializedIncrementalTestSuite } from "@bufbuild/cel-spec/testdata/tests.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { contextOf, prepareConditionInput } from "./evaluate.js";
import { adaInput, nestedLoops, type LoopMacro } from "./test-fixtures.js";
import { contextsOf, corpus, differential, type Differential } from "./test-differential.js";

interface Tally {
  expressions: number;
  compiled: number;
  /** Compiled expressions generate.ts wrote a function for (checked alone against the closures). */
  generated: number;
  answered: number;
  bailed: number;
  mismatches: string[];
}

const tally = (): Tally => ({ expressions: 0, compiled: 0, generated: 0, answered: 0, bailed: 0, mismatches: [] });

function add(t: Tally, d: Differential): void {
  t.expressions++;
  if (d.evaluation === "compiled") t.compiled++;
  if (d.generated) t.generated++;
  t.answered += d.answered;
  t.bailed += d.bailed;
  t.mismatches.push(...d.mismatches);
}

describe("(a) the project's own expressions, compiled vs interpreted", () => {
  const all = corpus();

  it.each([
    ["fixtures", all.fixtures, 1],
    ["documentation examples", all.docs, 0.99],
    ["test files", all.tests, 0.98],
  ] as const)("%s: identical outcomes on every input, and (nearly) all compile", (_name, list, share) => {
    expect(list.length).toBeGreaterThan(40);
    const t = tally();
    const interpreted: string[] = [];
    for (const e of list) {
      const d = differential(e.source, e.kind, contextsOf(e.kind));
      if (!d) throw new Error(`no longer compiles: ${e.source}`);
      add(t, d);
      if (d.evaluation === "interpreted") interpreted.push(e.source);
    }
    expect(t.mismatches).toEqual([]);
    expect(t.compiled / t.expressions, interpreted.join("\n")).toBeGreaterThanOrEqual(share);
    // Every expression the closures compile is also generated (generate.ts calls their closures for the rest).
    expect(t.generated).toBe(t.compiled);
    // The closures answer most evaluations by themselves (the rest are errors or unusual values).
    expect(t.answered).toBeGreaterThan(t.bailed);
    // What still runs interpreted is only what the closures leave out on purpose.
    for (const source of interpreted) expect(source).toMatch(/optional|\.\?|\[\?/);
  });
});

// ---------------------------------------------------------------------------------------------
// (b) Random well-typed expressions of the condition environment

const str = fc.constantFrom("subject.department", "subject.email", "subject.employmentType", "entitlement.appId", "task.numericId", '"Security"', '"high"', '""', '"p1@synthetic.example"', '"ümlaut ✓"');
const int = fc.oneof(
  fc.constantFrom("size(subject.managerIds)", "size(subject.emails)", "subject.email.size()", "task.createdAt.getHours()", "now().getDayOfWeek()"),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((n) => (n < 0n ? `(${n})` : `${n}`)),
  fc.constantFrom("0", "1", "-1", "9223372036854775807", "(-9223372036854775807 - 1)"),
);
const dbl = fc.oneof(
  fc.constantFrom("0.0", "-0.0", "1.5", "1e308", "-1e308", "(0.0 / 0.0)", "(1.0 / 0.0)", "double(size(subject.emails))"),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => (/^-?\d+$/.test(`${d}`) ? `${d}.0` : `${d}`).replace(/^(-.*)$/, "($1)")),
);
const list = fc.constantFrom("subject.emails", "subject.managerIds", '["a", "b", subject.department]', "[]", "subject.email.split('@')");
const dyn = fc.constantFrom("subject.profile.clearance", 'subject.profile["level"]', "subject.profile.flag", "subject.profile.nested", "subject.profile.missing", "subject.profile.none");

type Atoms = { b: string; i: string; d: string; s: string };
const gen = fc.letrec<Atoms>((tie) => ({
  s: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    str,
    fc.tuple(tie("s"), tie("s")).map(([a, b]) => `(${a} + ${b})`),
    tie("s").map((a) => `${a}.lowerAscii()`),
    fc.tuple(tie("s"), tie("i")).map(([a, i]) => `${a}.substring(${i})`),
    tie("i").map((i) => `string(${i})`),
    fc.tuple(tie("b"), tie("s"), tie("s")).map(([c, a, b]) => `(${c} ? ${a} : ${b})`),
    fc.tuple(list, tie("i")).map(([l, i]) => `${l}[${i}]`),
  ),
  i: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    int,
    fc.tuple(tie("i"), fc.constantFrom("+", "-", "*", "/", "%"), tie("i")).map(([a, op, b]) => `(${a} ${op} ${b})`),
    tie("i").map((a) => `-(${a})`),
    tie("s").map((s) => `size(${s})`),
    tie("d").map((d) => `int(${d})`),
    fc.tuple(list, tie("b")).map(([l, b]) => `${l}.filter(x, ${b.replaceAll("subject.department", "x")}).size()`),
  ),
  d: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    dbl,
    fc.tuple(tie("d"), fc.constantFrom("+", "-", "*", "/"), tie("d")).map(([a, op, b]) => `(${a} ${op} ${b})`),
    tie("i").map((i) => `double(${i})`),
    tie("d").map((a) => `-(${a})`),
  ),
  b: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom("true", "false", "has(subject.profile.clearance)", "has(subject.profile.nested.city)", "ip.isPrivate()", "c1.user.v1.HasApp(subject, 'app-aws')"),
    fc.tuple(tie("s"), fc.constantFrom("==", "!=", "<", ">="), tie("s")).map(([a, op, b]) => `${a} ${op} ${b}`),
    fc.tuple(tie("i"), fc.constantFrom("==", "!=", "<", ">=", ">"), tie("i")).map(([a, op, b]) => `${a} ${op} ${b}`),
    fc.tuple(tie("d"), fc.constantFrom("==", "!=", "<", ">=", ">"), tie("d")).map(([a, op, b]) => `${a} ${op} ${b}`),
    fc.tuple(tie("i"), tie("d")).map(([a, b]) => `dyn(${a}) == ${b}`),
    fc.tuple(dyn, fc.constantFrom("==", "!="), fc.constantFrom('"high"', "4.0", "4", "true", "null", '"4"', "{'city': 'Oslo'}")).map(([a, op, b]) => `${a} ${op} ${b}`),
    fc.tuple(tie("s"), fc.constantFrom("startsWith", "endsWith", "contains", "matches"), tie("s")).map(([a, m, b]) => `${a}.${m}(${b})`),
    fc.tuple(tie("s"), list).map(([a, l]) => `${a} in ${l}`),
    fc.tuple(tie("s"), tie("i")).map(([k, v]) => `${k} in {${k}: ${v}, "k": 1}`),
    fc.tuple(list, fc.constantFrom("all", "exists", "exists_one"), tie("b")).map(([l, m, b]) => `${l}.${m}(x, ${b.replaceAll("subject.department", "x")})`),
    fc.tuple(list, tie("s")).map(([l, s]) => `${l}.map(x, x + ${s}).exists(y, y.size() > 3)`),
    tie("i").map((i) => `now() + duration(string(${i}) + "s") > timestamp("2026-01-01T00:00:00Z")`),
    tie("i").map((i) => `time.unix(${i}) < now()`),
    fc.tuple(tie("i"), fc.constantFrom("+", "-", "*", "/", "%")).map(([i, op]) => `uint(${i}) ${op} 3u >= 1u`),
    fc.tuple(tie("b"), fc.constantFrom("&&", "||"), tie("b")).map(([a, op, b]) => `(${a} ${op} ${b})`),
    tie("b").map((a) => `!(${a})`),
    fc.tuple(tie("b"), tie("b"), tie("b")).map(([c, a, b]) => `(${c} ? ${a} : ${b})`),
  ),
}));

describe("(b) random well-typed conditions from the declared environment (fast-check)", () => {
  it("evaluate to the same value or the same error both ways, on every input; the closures alone agree whenever they answer", () => {
    const contexts = contextsOf("condition");
    const t = tally();
    let illTyped = 0;
    fc.assert(
      fc.property(gen.b, (source) => {
        const d = differential(source, "condition", contexts);
        if (!d) {
          illTyped++; // the grammar allows a few ill-typed ones (e.g. a dyn compared with a map)
          return;
        }
        add(t, d);
        expect(d.mismatches).toEqual([]);
        expect(d.evaluation).toBe("compiled");
      }),
      { numRuns: 400 },
    );
    expect(t.expressions).toBeGreaterThan(illTyped * 3);
    expect(t.answered).toBeGreaterThan(0);
    expect(t.generated).toBe(t.compiled);
  });
});

describe("issue 15's cost budget holds identically for compiled comprehensions", () => {
  it("nested loops under random limits: the same value or the same CEL_COST_EXCEEDED both ways, and the closures never answer past the budget", () => {
    const macro = fc.constantFrom<LoopMacro>("all", "exists", "exists_one", "map", "filter");
    let exceeded = 0;
    let within = 0;
    fc.assert(
      fc.property(fc.array(fc.tuple(macro, fc.integer({ min: 0, max: 30 })), { minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 20_000 }), (levels, costLimit) => {
        const p = prepareConditionInput(adaInput({ costLimit }));
        if (!p.ok) throw new Error(p.error.message);
        const source = nestedLoops(levels);
        const d = differential(source, "condition", [contextOf(p.value)]);
        if (!d) throw new Error(`does not compile: ${source}`);
        expect(d.evaluation).toBe("compiled");
        expect(d.mismatches).toEqual([]);
        if (d.answered > 0) within++;
        else exceeded++;
      }),
      { numRuns: 200 },
    );
    // Both sides of the limit were exercised.
    expect(within).toBeGreaterThan(10);
    expect(exceeded).toBeGreaterThan(10);
  });

  it("strings and lists charged by size inside loops run out at the same node, with the same error and location", () => {
    const text = fc.integer({ min: 0, max: 60 }).map((n) => `'${"s".repeat(n)}'`);
    let exceeded = 0;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.array(text, { minLength: 1, maxLength: 4 }), text, fc.integer({ min: 1, max: 3_000 }), (n, items, prefix, costLimit) => {
        const p = prepareConditionInput(adaInput({ costLimit }));
        if (!p.ok) throw new Error(p.error.message);
        const range = `[${Array.from({ length: n }, (_, i) => i).join(", ")}]`;
        const source = `${range}.all(x, [${items.join(", ")}].exists(s, s.startsWith(${prefix}) || (s + subject.email).size() > x) || x >= 0)`;
        const d = differential(source, "condition", [contextOf(p.value)]);
        if (!d) throw new Error(`does not compile: ${source}`);
        expect(d.mismatches).toEqual([]);
        if (d.answered === 0) exceeded++;
      }),
      { numRuns: 200 },
    );
    expect(exceeded).toBeGreaterThan(10);
  });
});

// ---------------------------------------------------------------------------------------------
// (c) The CEL conformance suite

/** Suites that need what the environment does not declare, with the reason. */
const SKIPPED_SUITES: Readonly<Record<string, string>> = {
  dynamic: "protobuf messages and wrapper types (google.protobuf.*) the environment does not declare",
  enums: "protobuf enums of the conformance test messages",
  proto2: "the conformance protobuf messages (TestAllTypes)",
  proto2_ext: "protobuf extensions",
  proto3: "the conformance protobuf messages (TestAllTypes)",
  wrappers: "protobuf wrapper types",
  unknowns: "partial evaluation with unknowns",
  namespace: "a container (namespace resolution)",
};

/** Why cases of a suite the environment runs do not check in it, by suite. */
const UNDECLARED: Readonly<Record<string, string>> = {
  math_ext: "the math extension (math.*), not declared",
  string_ext: "strings extension functions not declared (format, quote, join…)",
  macros2: "two-variable comprehensions, not declared",
  block_ext: "cel.block, not declared",
  optionals: "optional syntax (.?, [?], optional types) beyond what cel-js parses",
};

interface ConformanceCase {
  readonly suite: string;
  readonly name: string;
  readonly expr: string;
  readonly skip: string | undefined;
}

function conformanceCases(): ConformanceCase[] {
  const out: ConformanceCase[] = [];
  const walk = (s: SerializedIncrementalTestSuite, path: string[]): void => {
    for (const t of s.tests ?? []) out.push(caseOf(path, t));
    for (const sub of s.suites ?? []) walk(sub, [...path, sub.name]);
  };
  const caseOf = (path: string[], t: SerializedIncrementalTest): ConformanceCase => {
    const o = t.original as Record<string, unknown>;
    const suite = path[0] ?? "";
    const name = `${path.join("/")}/${String(o["name"] ?? t.original.expr)}`;
    const skip =
      SKIPPED_SUITES[suite] ??
      (o["typeEnv"] !== undefined || o["bindings"] !== undefined
        ? "declares variables of its own"
        : o["container"] !== undefined
          ? "needs a container"
          : o["disableMacros"] === true || o["disableCheck"] === true
            ? "runs unchecked or without macros"
            : undefined);
    return { suite, name, expr: t.original.expr, skip };
  };
  walk(conformance, []);
  return out;
}

describe("(c) cel-spec conformance cases (@bufbuild/cel-spec) that fit the environment", () => {
  it("each gives identical outcomes compiled and interpreted; counts of compiled, interpreted, skipped", () => {
    const cases = conformanceCases();
    const contexts = contextsOf("condition").slice(0, 3);
    const t = tally();
    const skipped = new Map<string, number>();
    const skip = (reason: string): void => void skipped.set(reason, (skipped.get(reason) ?? 0) + 1);
    for (const c of cases) {
      if (c.skip !== undefined) {
        skip(c.skip);
        continue;
      }
      const d = differential(c.expr, "condition", contexts, true);
      if (!d) {
        skip(UNDECLARED[c.suite] ?? "refused at check time by the environment (mixed-type literals, int(uint), bytes, protobuf literals…)");
        continue;
      }
      add(t, d);
    }
    const report = {
      cases: cases.length,
      compiled: t.compiled,
      interpreted: t.expressions - t.compiled,
      skipped: Object.fromEntries([...skipped].sort((a, b) => b[1] - a[1])),
      closuresAnswered: t.answered,
      leftToCelJs: t.bailed,
    };
    console.log(`cel-spec conformance, compiled vs interpreted: ${JSON.stringify(report, null, 2)}`);
    expect(t.mismatches).toEqual([]);
    expect(t.expressions).toBeGreaterThan(500);
    expect(t.compiled).toBeGreaterThan(t.expressions * 0.9);
    expect(t.generated).toBe(t.compiled);
  });
});
