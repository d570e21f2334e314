import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { makeUser } from "./test-fixtures.js";
import { combinedConditions, contextsOf, differential } from "./test-differential.js";
import { contextOf, prepareConditionInput } from "./evaluate.js";
import { adaInput } from "./test-fixtures.js";

/** The shapes generate.ts writes out, as the policies of the selection benchmark use them. */
const terms = fc.constantFrom(
  'subject.department == "Security"',
  'subject.department != "Engineering"',
  'subject.department in ["Security", "Platform"]',
  "subject.department in []",
  'subject.department in subject.emails',
  'subject.employmentType == "Contractor"',
  'subject.profile.clearance == "high"',
  'subject.profile["clearance"] == "high"',
  'subject.profile["level"] == 4',
  "subject.profile.flag == true",
  'subject.profile.nested.city == "Oslo"',
  'entitlement.riskLevelValueId == "high"',
  'subject.email.endsWith("@synthetic.example")',
  'subject.email.startsWith(subject.department)',
  'subject.email.contains("@")',
  "size(subject.managerIds) > 0",
  "size(subject.managerIds) >= 2",
  "size(subject.emails) < 9223372036854775807",
  'subject.department < "M"',
  "account.displayName == subject.displayName",
  'has(subject.profile.clearance)',
  "subject.user == subject",
);

const condition = combinedConditions(terms);

describe("generated conditions (generate.ts)", () => {
  it("answer exactly when the closures answer, with their value, and compiled outcomes stay cel-js's (property)", () => {
    const contexts = contextsOf("condition");
    let generated = 0;
    fc.assert(
      fc.property(condition, (source) => {
        const d = differential(source, "condition", contexts);
        if (!d) return; // `subject.user == subject` compares messages: refused by the checker in some combinations
        expect(d.mismatches).toEqual([]);
        if (d.generated) generated++;
      }),
      { numRuns: 300 },
    );
    expect(generated).toBeGreaterThan(200);
  });

  it("read map keys and fields written anywhere in the source as data, never as code", () => {
    // Not "constructor": cel-js itself fails on a map with that own key ("Unsupported type: object",
    // it reads the map's type from it), where the closures read the key; closures.ts's matter.
    const hostile = ['"); throw 1; //', "\u2028", "__proto__", "`${1}`", "\\", "'", "\n"];
    const subject = makeUser({ id: "u-h", profile: Object.fromEntries(hostile.map((k, i) => [k, `v${i}`])) });
    const p = prepareConditionInput(adaInput({ subject }));
    if (!p.ok) throw new Error(p.error.message);
    const contexts = [contextOf(p.value), ...contextsOf("condition")];
    for (const [i, key] of hostile.entries()) {
      for (const source of [`subject.profile[${JSON.stringify(key)}] == "v${i}"`, `${JSON.stringify(key)} in ["a", ${JSON.stringify(key)}]`]) {
        const d = differential(source, "condition", contexts);
        expect(d, source).toBeDefined();
        expect(d?.generated, source).toBe(true);
        expect(d?.mismatches, source).toEqual([]);
      }
    }
  });
});

describe("where code cannot be generated", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  it("conditions run as closures, with the same outcomes (a Content-Security-Policy without unsafe-eval)", async () => {
    vi.resetModules();
    vi.stubGlobal(
      "Function",
      new Proxy(globalThis.Function, {
        construct: () => {
          throw new EvalError("Code generation from strings disallowed for this context");
        },
      }),
    );
    const fresh = await import("./test-differential.js");
    const source = '(subject.department in ["Security", "Platform"] && subject.profile.clearance == "high") || size(subject.managerIds) > 1';
    const d = fresh.differential(source, "condition", fresh.contextsOf("condition"));
    vi.unstubAllGlobals();
    expect(d?.evaluation).toBe("compiled");
    expect(d?.generated).toBe(false);
    expect(d?.mismatches).toEqual([]);
    expect(d?.answered).toBeGreaterThan(0);
  });
});

/** Counts the functions written with `new Function` from now on (vi.unstubAllGlobals stops it). */
function countGenerated(): { readonly generated: number } {
  vi.resetModules();
  const counter = { generated: 0 };
  vi.stubGlobal(
    "Function",
    new Proxy(globalThis.Function, {
      construct: (target, args: unknown[]) => {
        counter.generated++;
        return Reflect.construct(target, args) as object;
      },
    }),
  );
  return counter;
}

/** The CEL modules loaded afresh (their caches empty), with three prepared inputs. */
async function freshModules() {
  const compile = await import("./compile.js");
  const cel = await import("./index.js");
  const fixtures = await import("./test-fixtures.js");
  const inputs = [fixtures.adaInput(), fixtures.adaInput({ subject: fixtures.tenant.bob }), fixtures.adaInput({ subject: fixtures.tenant.cy })].map((i) => {
    const p = cel.prepareConditionInput(i);
    if (!p.ok) throw new Error(p.error.message);
    return p.value;
  });
  return { compile, cel, inputs };
}

describe("when code is generated", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  it("only for an expression evaluated a few times: a compile alone generates nothing, and the answers never change", async () => {
    const counter = countGenerated();
    const { cel, inputs } = await freshModules();
    const c = cel.compileCondition('subject.department == "Security" || size(subject.managerIds) > 1');
    if (!c.ok) throw new Error("does not compile");
    expect(counter.generated).toBe(0);
    const first = inputs.map((p) => cel.evaluateCondition(c.value, p));
    for (let round = 0; round < 10; round++) expect(inputs.map((p) => cel.evaluateCondition(c.value, p))).toEqual(first);
    vi.unstubAllGlobals();
    expect(counter.generated).toBeGreaterThan(0);
  });
  it("at once for an expression readied (readyCondition, as prepareWhatIf does), once, and the answers never change", async () => {
    const counter = countGenerated();
    const { cel, compile, inputs } = await freshModules();
    const source = 'subject.department == "Security" || size(subject.managerIds) > 1';
    // Three evaluations on its closures (a condition is written out at its eighth).
    const c = cel.compileCondition(source);
    if (!c.ok) throw new Error("does not compile");
    const expected = inputs.map((p) => cel.evaluateCondition(c.value, p));
    expect(counter.generated).toBe(0);
    expect(compile.readyCondition(source)).toBe(true);
    const written = counter.generated;
    expect(written).toBeGreaterThan(0);
    // Readying again, or evaluating past the eighth time, writes nothing more; the answers stay.
    expect(compile.readyCondition(source)).toBe(true);
    for (let round = 0; round < 10; round++) expect(inputs.map((p) => cel.evaluateCondition(c.value, p))).toEqual(expected);
    expect(counter.generated).toBe(written);
    vi.unstubAllGlobals();
    // A condition that does not compile is not readied, and says so.
    expect(compile.readyCondition("subject.department")).toBe(false);
  });
});
