/**
 * When neither operand of `||` or `&&` decides, the error is the left one's, as cel-go's logical
 * operators answer (logical.ts). cel-js had let the right operand's error through, so a rule's
 * recorded error (explain's `error`, the conditionalPolicyExecutionResult audit event) named a
 * different key from the one explain's text pointed at (REPL review).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileCondition } from "./compile.js";
import { evaluateCondition } from "./evaluate.js";
import { adaInput, makeUser } from "./test-fixtures.js";
import { traceCondition } from "./trace.js";

/** The outcome of a condition over a subject whose profile holds these keys: its value, or the message of its error. */
function outcome(source: string, profile: Readonly<Record<string, unknown>>): { value: boolean } | { error: string } {
  const c = compileCondition(source);
  if (!c.ok) throw new Error(`${source}: ${c.error.map((d) => d.message).join("; ")}`);
  const input = adaInput({ subject: makeUser({ id: "u-p", profile: profile as never }) });
  const r = evaluateCondition(c.value, input);
  const traced = traceCondition(c.value, input).outcome;
  // One evaluation decides and explains: the trace's outcome is the decision's.
  expect(traced.ok ? { value: traced.value } : { error: traced.error.message }).toEqual(r.ok ? { value: r.value } : { error: r.error.message });
  return r.ok ? { value: r.value } : { error: r.error.message };
}

const missing = (key: string) => ({ error: expect.stringMatching(new RegExp(`^No such key: ${key}\\b`)) as unknown as string });

describe("|| and && report the left operand's error when neither decides, as cel-go", () => {
  it("both operands fail: the left one's error (the REPL review's rule named b where explain pointed at a)", () => {
    expect(outcome('subject.profile.a == "x" || subject.profile.b == "y"', {})).toEqual(missing("a"));
    expect(outcome('subject.profile.a == "x" && subject.profile.b == "y"', {})).toEqual(missing("a"));
    expect(outcome('subject.profile.a == "x" || subject.profile.b == "y" || subject.profile.c == "z"', {})).toEqual(missing("a"));
    expect(outcome('subject.profile.a == "x" || (subject.profile.b == "y" || subject.profile.c == "z")', {})).toEqual(missing("a"));
    expect(outcome('subject.profile.b == "y" || subject.profile.a == "x"', {})).toEqual(missing("b"));
  });

  it("a decisive operand absorbs the other's error, on either side; a non-decisive one leaves it", () => {
    expect(outcome('subject.profile.a == "x" || subject.profile.b == "y"', { b: "y" })).toEqual({ value: true });
    expect(outcome('subject.profile.a == "x" && subject.profile.b == "y"', { b: "n" })).toEqual({ value: false });
    expect(outcome('subject.profile.a == "x" || subject.profile.b == "y"', { a: "n" })).toEqual(missing("b"));
    expect(outcome('subject.profile.a == "x" || subject.profile.b == "y"', { b: "n" })).toEqual(missing("a"));
    expect(outcome('subject.profile.a == "x" && subject.profile.b == "y"', { a: "x", b: "y" })).toEqual({ value: true });
  });

  it("a value that is not a bool beside a failing operand: the first of them names the error", () => {
    expect(outcome("subject.profile.s || subject.profile.a", { s: "text" })).toEqual({ error: expect.stringMatching(/^Logical operator requires bool operands, got 'string'/) as unknown as string });
    expect(outcome("subject.profile.a || subject.profile.s", { s: "text" })).toEqual(missing("a"));
    expect(outcome("subject.profile.s || subject.profile.t", { s: "text", t: true })).toEqual({ value: true });
  });

  it("over random trees of ||, && and ! with missing keys: the value or the key of the first error cel-go's order reaches", () => {
    type Tree = { k: string } | { not: Tree } | { op: "||" | "&&"; l: Tree; r: Tree };
    const keys = ["k0", "k1", "k2", "k3", "k4"];
    const { tree } = fc.letrec<{ tree: Tree }>((tie) => ({
      tree: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        fc.constantFrom(...keys).map((k) => ({ k })),
        tie("tree").map((t) => ({ not: t })),
        fc.tuple(fc.constantFrom("||" as const, "&&" as const), tie("tree"), tie("tree")).map(([op, l, r]) => ({ op, l, r })),
      ),
    }));
    const text = (t: Tree): string => ("k" in t ? `subject.profile.${t.k}` : "not" in t ? `!(${text(t.not)})` : `(${text(t.l)} ${t.op} ${text(t.r)})`);
    // cel-go's interpreter: each operand evaluated; a decisive bool decides; else the first non-bool (left to right) is the result.
    type Out = { value: boolean } | { missing: string };
    const model = (t: Tree, profile: Record<string, boolean>): Out => {
      if ("k" in t) return t.k in profile ? { value: profile[t.k] as boolean } : { missing: t.k };
      if ("not" in t) {
        const v = model(t.not, profile);
        return "value" in v ? { value: !v.value } : v;
      }
      const decisive = t.op === "||";
      const l = model(t.l, profile);
      if ("value" in l && l.value === decisive) return l;
      const r = model(t.r, profile);
      if ("value" in r && r.value === decisive) return r;
      return "missing" in l ? l : r;
    };
    fc.assert(
      fc.property(tree, fc.dictionary(fc.constantFrom(...keys), fc.boolean()), (t, profile) => {
        const want = model(t, profile);
        expect(outcome(text(t), profile)).toEqual("value" in want ? want : missing(want.missing));
      }),
      { numRuns: 300 },
    );
  });
});
