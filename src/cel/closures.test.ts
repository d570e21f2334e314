import { readFileSync, readdirSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileCondition, compiledOf, compileFresh, type Compiled } from "./compile.js";
import { runtimeError } from "./diagnostics.js";
import { celEnvironment } from "./environment.js";
import { contextOf, prepareConditionInput, type ConditionInput } from "./evaluate.js";
import { adaInput, tenant, variedSubjects } from "./test-fixtures.js";
import { recordRun, REPEATS, SLOTS, TraceTable, traceTableOf } from "./trace-table.js";

/** Both forms of one source: compiled to closures (when it compiles), and cel-js alone. */
function bothWays(source: string): { compiled: Compiled; interpreted: Compiled } | undefined {
  const env = celEnvironment("condition");
  const compiled = compileFresh(env, source);
  const interpreted = compileFresh(env, source, { closures: false });
  if (!compiled.ok || !interpreted.ok) return undefined;
  return { compiled: compiled.value, interpreted: interpreted.value };
}

type Outcome = { readonly value: unknown } | { readonly code: string; readonly message: string };

function outcome(c: Compiled, input: ConditionInput): Outcome {
  const p = prepareConditionInput(input);
  if (!p.ok) throw new Error(p.error.message);
  try {
    return { value: c.run(contextOf(p.value)) };
  } catch (e: unknown) {
    const r = runtimeError(c.source, e);
    return { code: r.code, message: r.message };
  }
}

/** Every rule and wait condition of the bundled worlds and policy fixtures. */
function fixtureConditions(): string[] {
  const out = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === "object" && v !== null) {
      for (const [k, x] of Object.entries(v)) {
        if (k === "condition" && typeof x === "string") out.add(x);
        else walk(x);
      }
    }
  };
  const dirs = ["../../fixtures/", "../../fixtures/broken/"];
  for (const d of dirs) {
    const url = new URL(d, import.meta.url);
    for (const f of readdirSync(url)) if (f.endsWith(".json")) walk(JSON.parse(readFileSync(new URL(f, url), "utf8")));
  }
  return [...out];
}

const subjects = variedSubjects;

const inputs: readonly ConditionInput[] = subjects.flatMap((subject) => [
  adaInput({ subject }),
  adaInput({ subject, entitlement: tenant.awsReadOnly, account: null, ip: null }),
]);

function expectSame(source: string): void {
  const b = bothWays(source);
  if (!b) return;
  for (const input of inputs) expect(outcome(b.compiled, input), `${source} for ${input.subject.id}`).toEqual(outcome(b.interpreted, input));
}

describe("conditions compiled to closures give cel-js's results", () => {
  it("every condition of the fixtures, on varied subjects (values and errors alike)", () => {
    const conditions = fixtureConditions();
    expect(conditions.length).toBeGreaterThan(20);
    let compiled = 0;
    for (const s of conditions) {
      expectSame(s);
      if (bothWays(s)?.compiled.evaluation === "compiled") compiled++;
    }
    // Most of the fixtures' conditions are in the compiled subset.
    expect(compiled).toBeGreaterThan(conditions.length / 3);
  });

  it("the shapes the closures handle, and their edges: missing keys, dyn types, -0, NaN", () => {
    for (const s of [
      'subject.department == "Security"',
      'subject.department != "Security" && subject.employmentType == "Contractor"',
      'subject.profile.clearance == "high"',
      'subject.profile["clearance"] == "high"',
      "subject.profile.level == 4.0",
      'subject.profile.level == "4"',
      "subject.profile.flag == true",
      "subject.profile.none == null",
      'subject.profile.nested.city == "Oslo"',
      'subject.profile.missing == "x" || true',
      'true || subject.profile.missing == "x"',
      'subject.profile.missing == "x" && false',
      'subject.department in ["Security", "Engineering"]',
      'subject.email.endsWith("@synthetic.example") || subject.email.startsWith("ada")',
      'subject.email.contains("@")',
      "size(subject.managerIds) > 0",
      "size(subject.managerIds) >= 2",
      '!(subject.department == "")',
      'subject.department == "" ? subject.profile.clearance == "x" : true',
      "-0.0 == 0.0",
      "0.0 / 0.0 == 0.0 / 0.0",
      '"a" < "b" && "b" <= "b" && 2 > 1 && 1.5 >= 1.5',
      "1 == 1 && 2u == 2u",
      'dyn(1) == 1.0',
      'subject.profile.level > 3.0',
      'account.status.details == "synced"',
      'ip == ip',
      // Arithmetic with CEL's int/uint/double rules: overflow, division and modulo by zero are errors.
      "9223372036854775807 + 1 > 0",
      "-9223372036854775808 - 1 < 0",
      "9223372036854775807 * 2 > 0",
      "1 / 0 == 0",
      "1 % 0 == 0",
      "7 / 2 == 3 && -7 / 2 == -3 && -7 % 3 == -1",
      "1u - 2u > 0u",
      "18446744073709551615u + 1u > 0u",
      "1.0 / 0.0 > 1e308 && -1.0 / 0.0 < -1e308",
      "0.0 * -1.0 == 0.0",
      "int(subject.profile.level) + 1 == 5",
      "double(size(subject.managerIds)) / 2.0 == 1.0",
      "int('12') * 3 == 36 && uint(7) == 7u && string(3) == '3'",
      "int('nope') == 0",
      // Literals, has(), the string functions, matches on RE2.
      "[1, 2, 3][1] == 2 && [1, 2][5] == 0",
      "{'a': 1, 'b': 2}['b'] == 2 && size({'a': 1}) == 1",
      "{'a': 1}['z'] == 1",
      "has(subject.profile.clearance) && !has(subject.profile.absent)",
      "has(subject.profile.nested.city)",
      "has(subject.department)",
      "subject.email.lowerAscii().upperAscii().size() > 3 && subject.email.indexOf('@') > 0",
      "subject.email.split('@')[1] == 'synthetic.example'",
      "subject.email.replace('@', ' at ').contains(' at ') && ' x '.trim() == 'x'",
      "subject.email.substring(2) != '' && subject.email.substring(50) == ''",
      "subject.department.matches('^[A-Z][a-z]+$')",
      "matches(subject.email, '(a|b)+@')",
      "subject.jobTitle.ifEmpty('none') != ''",
      // Timestamps and durations.
      "now() > timestamp('2020-01-01T00:00:00Z') && now() - duration('24h') < now()",
      "timestamp('2026-11-22T09:00:00Z').getHours() == 9 && duration('90m').getMinutes() == 90",
      "time.format(now(), 'RFC3339') != '' && now().getDayOfYear('Europe/Oslo') >= 0",
      "timestamp('9999-12-31T23:59:59Z') + duration('1s') > now()",
      "duration('1h') + duration('30m') == duration('90m')",
      // Comprehensions, with error absorption left to cel-js.
      "subject.emails.exists(e, e.endsWith('.example'))",
      "subject.emails.all(e, e.contains('@'))",
      "subject.emails.exists_one(e, e == subject.email)",
      "subject.emails.map(e, e.size()).all(n, n > 3)",
      "subject.emails.filter(e, e.startsWith('x')).size() == 0",
      "[1, 2, 3].map(x, x > 1, x * 2) == [4, 6]",
      "[0, 1].all(x, 1 / x > 0)",
      "[0, 1].exists(x, 1 / x > 0)",
      "[1, 0].exists(x, 1 / x > 0)",
      "[0, 1].exists_one(x, 1 / x > 0)",
      "{'a': 1, 'b': 2}.all(k, k.size() == 1)",
      "[[1, 2], [3]].all(l, l.all(x, x > 0))",
      "[1, 2].exists(subject, subject == 2)",
      // The environment's functions.
      "c1.directory.users.v1.GetManagers(subject).exists(m, m.department == 'Engineering')",
      "c1.directory.users.v1.FindByEmail('nobody@nowhere') == subject",
      "c1.user.v1.HasApp(subject, 'app-aws')",
      "ip.isPrivate() || ip.within(cidr('10.0.0.0/8'))",
      "cidr('10.0.0.0/8').containsIP(ip('10.1.2.3'))",
      "UserStatus.ENABLED == subject.status",
      "cel.bind(d, subject.department, d == 'Engineering' || d.size() == 0)",
      "cel.bind(x, 1, cel.bind(x, x + 1, x * 10) == 20 && x == 1)",
      "[1, 2].all(x, cel.bind(y, x * 2, y > x))",
    ]) {
      const b = bothWays(s);
      expect(b?.compiled.evaluation, s).toBe("compiled");
      expectSame(s);
    }
  });

  it("tells which conditions run compiled", () => {
    const c = compileCondition('subject.department == "Security"');
    const l = compileCondition("subject.emails.exists(e, e.endsWith('x'))");
    const i = compileCondition('subject.profile.?clearance.orValue("") == "high"');
    expect(c.ok && c.value.evaluation).toBe("compiled");
    expect(c.ok && c.value.interpretedBecause).toBeUndefined();
    expect(l.ok && l.value.evaluation).toBe("compiled");
    expect(i.ok && i.value.evaluation).toBe("interpreted");
    expect(i.ok && i.value.interpretedBecause).toMatchObject({ node: "optional values (orValue)" });
  });

  it("optional values (cel-go's optional types) give cel-js's results, compiled or not", () => {
    for (const s of [
      "optional.of(subject.department).hasValue()",
      'optional.none().orValue("x") == "x"',
      'subject.profile.?clearance.orValue("none") == "high"',
      'subject.profile.?missing.orValue("none") == "none"',
      '{"a": subject.department}[?"a"].hasValue()',
    ]) {
      expect(bothWays(s), s).toBeDefined();
      expectSame(s);
    }
  });
});

// Random well-typed expressions from the declared environment: string, dyn and bool atoms of the
// condition variables, combined by the compiled operators and by some that are not.
const str = fc.constantFrom('subject.department', 'subject.email', 'subject.employmentType', 'entitlement.appId', '"Security"', '"high"', '""', '"p1@synthetic.example"');
const dyn = fc.constantFrom("subject.profile.clearance", 'subject.profile["level"]', "subject.profile.flag", "subject.profile.nested", "subject.profile.missing", "subject.profile.none");
const bool: fc.Arbitrary<string> = fc.letrec<{ b: string }>((tie) => ({
  b: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.tuple(str, fc.constantFrom("==", "!=", "<", ">="), str).map(([a, op, b]) => `${a} ${op} ${b}`),
    fc.tuple(dyn, fc.constantFrom("==", "!="), fc.constantFrom('"high"', "4.0", "4", "true", "null", '"4"')).map(([a, op, b]) => `${a} ${op} ${b}`),
    fc.tuple(str, fc.constantFrom("startsWith", "endsWith", "contains"), str).map(([a, m, b]) => `${a}.${m}(${b})`),
    fc.tuple(str, fc.array(str, { maxLength: 3 })).map(([a, l]) => `${a} in [${l.join(", ")}]`),
    fc.constantFrom("true", "false", "size(subject.managerIds) > 0", "has(subject.profile.clearance)", "subject.emails.exists(e, e == subject.email)"),
    fc.tuple(tie("b"), fc.constantFrom("&&", "||"), tie("b")).map(([a, op, b]) => `(${a} ${op} ${b})`),
    tie("b").map((a) => `!(${a})`),
    fc.tuple(tie("b"), tie("b"), tie("b")).map(([c, a, b]) => `(${c} ? ${a} : ${b})`),
  ),
})).b;

describe("random well-typed conditions (fast-check)", () => {
  it("evaluate to the same value or the same error both ways, on every subject", () => {
    fc.assert(
      fc.property(bool, (source) => {
        const b = bothWays(source);
        if (!b) return; // not well-typed after all (e.g. a type error the grammar allows): nothing to compare
        for (const input of inputs) expect(outcome(b.compiled, input)).toEqual(outcome(b.interpreted, input));
      }),
      { numRuns: 300 },
    );
  });
});

/** Comprehensions (every iteration recorded), errors they absorb or not, cel.bind. */
const LOOPS = [
  "subject.emails.exists(e, e.endsWith('.example'))",
  "subject.emails.all(e, e.contains('@')) && subject.emails.exists_one(e, e == subject.email)",
  "[0, 1].exists(x, 1 / x > 0)",
  "[0, 1].all(x, 1 / x > 0)",
  "[1, 2, 3].map(x, x > 1, x * 2) == [4, 6] && subject.emails.filter(e, e.size() > 3).size() >= 0",
  "[[1, 2], [3]].all(l, l.all(x, x > 0))",
  "cel.bind(d, subject.department, d == 'Engineering')",
];

describe("traces recorded by the compiled evaluation", () => {
  it("record the same value for every node as cel-js's instrumented run, on every fixture condition and subject", () => {
    let compiledTraces = 0;
    for (const source of [...fixtureConditions(), 'subject.profile.missing == "x" || subject.department != ""', 'size(subject.managerIds) > 0 ? subject.email.endsWith("@x") : !(subject.department in ["A", "B"])', ...LOOPS]) {
      const c = compileCondition(source);
      if (!c.ok) continue;
      const table = traceTableOf(compiledOf(c.value));
      if (!table) throw new Error("no table");
      if (table.closure) compiledTraces++;
      const interpreted: TraceTable = Object.assign(Object.create(TraceTable.prototype) as TraceTable, { ...table, closure: undefined });
      for (const input of inputs) {
        const p = prepareConditionInput(input);
        if (!p.ok) throw new Error("prepare");
        const run = (t: TraceTable) => {
          const target = { [SLOTS]: new Array<unknown>(t.size), [REPEATS]: null };
          let value: unknown;
          try {
            value = recordRun(t, contextOf(p.value), target);
          } catch (e: unknown) {
            value = runtimeError(source, e).code;
          }
          return { value, target };
        };
        expect(run(table), `${source} for ${input.subject.id}`).toEqual(run(interpreted));
      }
    }
    expect(compiledTraces).toBeGreaterThan(10);
    for (const source of LOOPS) {
      const c = compileCondition(source);
      expect(c.ok && traceTableOf(compiledOf(c.value))?.closure, source).toBeTypeOf("function");
    }
  });
});
