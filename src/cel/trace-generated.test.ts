/**
 * Traces recorded by generated code (generate.ts with a recording, trace-table.ts): each node's
 * slot must hold what cel-js's instrumented copy records for it, on random conditions over the
 * shapes the generator writes out and the ones it hands to closures, for varied inputs; and where
 * code cannot be generated, the recording closures must record the same.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { RecordingTarget } from "./trace-table.js";
import { makeUser, tenant, adaInput } from "./test-fixtures.js";
import { combinedConditions } from "./test-differential.js";

const subjects = [
  tenant.ada,
  tenant.bob,
  makeUser({ id: "u-p1", department: "Security", employmentType: "Contractor", email: "p1@synthetic.example", profile: { clearance: "high", level: 4, flag: true, nested: { city: "Oslo" } } }),
  makeUser({ id: "u-p2", department: "Engineering", profile: { clearance: 3 }, managerIds: ["u-ada", "u-bob"] }),
  makeUser({ id: "u-p3", department: "", profile: {} }),
];

const terms = fc.constantFrom(
  'subject.department == "Security"',
  'subject.department != "Engineering"',
  'subject.department in ["Security", "Platform"]',
  "subject.department in subject.emails",
  'subject.profile.clearance == "high"',
  'subject.profile["clearance"] == "high"',
  'subject.profile["level"] == 4',
  "subject.profile.flag == true",
  'subject.profile.nested.city == "Oslo"',
  "subject.profile.missing == 1",
  'entitlement.riskLevelValueId == "high"',
  'subject.email.endsWith("@synthetic.example")',
  "subject.email.startsWith(subject.department)",
  "size(subject.managerIds) > 0",
  'subject.department < "M"',
  "has(subject.profile.clearance)",
  "subject.emails.exists(e, e.contains('@'))",
  "[1, 2].all(x, x > 0)",
  'c1.user.v1.HasApp(subject, "app-aws")',
  "(subject.department == '' ? 1 : 2) == 2",
  "true",
  "false",
);

const condition = combinedConditions(terms);

/** Loads the tracer afresh (a stubbed `Function` is seen at its first use) and compares one source's records both ways. */
async function recorder() {
  const { compileCondition, compiledOf } = await import("./compile.js");
  const { contextOf, prepareConditionInput } = await import("./evaluate.js");
  const { recordRun, TraceTable, traceTableOf, SLOTS, REPEATS } = await import("./trace-table.js");
  const { runtimeError } = await import("./diagnostics.js");
  const contexts = subjects.flatMap((subject) =>
    [adaInput({ subject }), adaInput({ subject, entitlement: tenant.awsReadOnly, account: null, ip: null })].map((input) => {
      const p = prepareConditionInput(input);
      if (!p.ok) throw new Error(p.error.message);
      return contextOf(p.value);
    }),
  );
  /** How many runs the compiled recorder answered itself (0 when the condition does not compile to one). */
  return (source: string): number => {
    const c = compileCondition(source);
    if (!c.ok) return 0;
    const table = traceTableOf(compiledOf(c.value));
    if (!table?.closure) return 0;
    const interpreted = Object.assign(Object.create(TraceTable.prototype) as InstanceType<typeof TraceTable>, { ...table, closure: undefined, recording: undefined });
    let answered = 0;
    for (const context of contexts) {
      const run = (t: InstanceType<typeof TraceTable>) => {
        const target = { [SLOTS]: new Array<unknown>(t.size), [REPEATS]: null } as unknown as RecordingTarget;
        let value: unknown;
        try {
          value = recordRun(t, context, target);
        } catch (e: unknown) {
          value = runtimeError(source, e).code;
        }
        return { value, target };
      };
      const compiled = run(table);
      expect(compiled, source).toEqual(run(interpreted));
      if ((compiled.target as unknown as Record<symbol, unknown[]>)[SLOTS]?.[0] !== undefined) answered++;
    }
    return answered;
  };
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
});

describe("traces recorded by generated code (trace-table.ts, generate.ts)", () => {
  it("hold cel-js's instrumented record for every node, on random conditions and inputs (property)", async () => {
    let generated = 0;
    vi.resetModules();
    vi.stubGlobal(
      "Function",
      new Proxy(globalThis.Function, {
        construct: (target, args: unknown[]) => {
          if (String(args[args.length - 1]).includes("function celCondition(c, s)")) generated++;
          return Reflect.construct(target, args) as object;
        },
      }),
    );
    const compare = await recorder();
    let answered = 0;
    fc.assert(
      fc.property(condition, (source) => {
        answered += compare(source);
      }),
      { numRuns: 250 },
    );
    // Most traced conditions were written out as recording functions, and most runs stayed on them.
    expect(generated).toBeGreaterThan(150);
    expect(answered).toBeGreaterThan(500);
  });

  it("where code cannot be generated, the recording closures record the same (a CSP without unsafe-eval)", async () => {
    vi.resetModules();
    vi.stubGlobal(
      "Function",
      new Proxy(globalThis.Function, {
        construct: () => {
          throw new EvalError("Code generation from strings disallowed for this context");
        },
      }),
    );
    const compare = await recorder();
    let answered = 0;
    for (const source of ['(subject.department in ["Security", "Platform"] && subject.profile.clearance == "high") || size(subject.managerIds) > 1', "subject.emails.exists(e, e.contains('@')) ? subject.profile.missing == 1 : true"]) {
      answered += compare(source);
    }
    expect(answered).toBeGreaterThan(5);
  });
});
