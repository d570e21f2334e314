/**
 * The differential harness of issue 16 (tests only, not part of the public API): the CEL
 * expressions the project itself holds (fixtures, test files, documentation), the varied inputs
 * to evaluate them on, and the comparison of an expression's compiled and interpreted evaluations.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import fc from "fast-check";
import ts from "typescript";
import { compileClosuresOrReason } from "./closures.js";
import { generateClosure } from "./generate.js";
import { compileFresh, type Compiled } from "./compile.js";
import { COST_LIMIT_KEY, CostMeter, costPlan, DEFAULT_CEL_COST_LIMIT } from "./cost.js";
import { runtimeError } from "./diagnostics.js";
import { celEnvironment, type CelEnvironmentKind } from "./environment.js";
import { contextOf, prepareApproverInput, prepareConditionInput, prepareConfigRuleInput, type CelContext } from "./evaluate.js";
import { adaInput, tenant, variedSubjects } from "./test-fixtures.js";

const ROOT = new URL("../../", import.meta.url);

function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const name of readdirSync(new URL(rel, ROOT))) {
      if (name === "node_modules" || name.startsWith(".")) continue;
      const path = `${rel}${name}`;
      if (statSync(new URL(path, ROOT)).isDirectory()) walk(`${path}/`);
      else if (keep(name)) out.push(path);
    }
  };
  walk(dir);
  return out.sort();
}

const read = (path: string): string => readFileSync(new URL(path, ROOT), "utf8");

/** Every string literal (and template literal without substitutions) of a TypeScript file. */
function stringLiterals(path: string): string[] {
  const file = ts.createSourceFile(path, read(path), ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) out.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

/** Conditions (`condition`) and approver expressions (`expressions`) anywhere in a JSON document. */
function jsonExpressions(v: unknown, out: string[]): void {
  if (Array.isArray(v)) for (const x of v) jsonExpressions(x, out);
  else if (typeof v === "object" && v !== null) {
    for (const [k, x] of Object.entries(v)) {
      if ((k === "condition" || k === "expression") && typeof x === "string") out.push(x);
      else if (k === "expressions" && Array.isArray(x)) {
        for (const e of x) if (typeof e === "string") out.push(e);
      } else jsonExpressions(x, out);
    }
  }
}

/** Inline code and code blocks of a Markdown file. */
function markdownCode(path: string): string[] {
  const text = read(path);
  const out: string[] = [];
  for (const m of text.matchAll(/`([^`\n]+)`/g)) if (m[1] !== undefined) out.push(m[1]);
  return out;
}

/**
 * An expression the project holds, and the environment it checks in (the first of condition,
 * config-rule, approver that accepts it).
 *
 * @example
 * ```ts
 * const e: CorpusExpression = { source: 'subject.department == "IT"', kind: "condition" };
 * ```
 */
export interface CorpusExpression {
  readonly source: string;
  readonly kind: CelEnvironmentKind;
}

const KINDS: readonly CelEnvironmentKind[] = ["condition", "config-rule", "approver"];

function checked(candidates: Iterable<string>): CorpusExpression[] {
  const out: CorpusExpression[] = [];
  const seen = new Set<string>();
  for (const source of candidates) {
    if (seen.has(source) || source.length > 4000 || !/[a-z]/i.test(source)) continue;
    seen.add(source);
    const kind = KINDS.find((k) => compileFresh(celEnvironment(k), source, { closures: false }).ok);
    if (kind !== undefined) out.push({ source, kind });
  }
  return out;
}

/**
 * The expressions of the project: `fixtures` (every condition and approver expression of the JSON
 * fixtures), `docs` (the documentation's examples: docs-examples.test.ts and the code spans of the
 * README and docs/), `tests` (every string literal of the test files, the fixture builders and the
 * benches that checks in an environment).
 *
 * @example
 * ```ts
 * corpus().fixtures.length; // every distinct fixture condition
 * ```
 */
export function corpus(): { readonly fixtures: CorpusExpression[]; readonly docs: CorpusExpression[]; readonly tests: CorpusExpression[] } {
  const fixtureSources: string[] = [];
  for (const f of filesUnder("fixtures/", (n) => n.endsWith(".json"))) jsonExpressions(JSON.parse(read(f)), fixtureSources);
  const docSources = [
    ...stringLiterals("src/cel/docs-examples.test.ts"),
    ...["README.md", ...filesUnder("docs/", (n) => n.endsWith(".md"))].flatMap(markdownCode),
  ];
  const testFiles = [
    ...filesUnder("src/", (n) => n.endsWith(".test.ts")),
    ...filesUnder("test/", (n) => n.endsWith(".ts")),
    ...filesUnder("fixtures/src/", (n) => n.endsWith(".ts")),
    ...filesUnder("bench/", (n) => n.endsWith(".ts")),
  ];
  return { fixtures: checked(fixtureSources), docs: checked(docSources), tests: checked(testFiles.flatMap(stringLiterals)) };
}

const subjects = variedSubjects;

/**
 * Evaluation contexts of an environment: varied subjects, with and without an entitlement,
 * account and address (conditions), app owners (approver expressions), entitlements (configuration
 * rules).
 *
 * @example
 * ```ts
 * contextsOf("condition").length; // 14
 * ```
 */
export function contextsOf(kind: CelEnvironmentKind): CelContext[] {
  const must = <T>(r: { ok: true; value: T } | { ok: false; error: { message: string } }): T => {
    if (!r.ok) throw new Error(r.error.message);
    return r.value;
  };
  if (kind === "condition") {
    return subjects.flatMap((subject) => [
      contextOf(must(prepareConditionInput(adaInput({ subject })))),
      contextOf(must(prepareConditionInput(adaInput({ subject, entitlement: tenant.awsReadOnly, account: null, ip: null })))),
    ]);
  }
  if (kind === "approver") {
    return subjects.map((subject, i) =>
      contextOf(must(prepareApproverInput({ subject, appOwners: i % 2 === 0 ? [tenant.bob, tenant.cy] : [], entitlement: tenant.awsAdmin, task: tenant.facts, now: tenant.NOW, directory: tenant.directory }))),
    );
  }
  return [tenant.awsAdmin, tenant.awsReadOnly].map((entitlement) => contextOf(must(prepareConfigRuleInput({ entitlement, now: tenant.NOW }))));
}

/**
 * A CEL value written so that two values compare equal exactly when they are the same CEL value of
 * the same runtime kind (ints, uints and doubles apart, -0 apart from 0, NaN equal to itself).
 *
 * @example
 * ```ts
 * canonical(-0); // "double:-0"
 * ```
 */
export function canonical(v: unknown, depth = 0): string {
  if (depth > 20) return "…";
  if (v === null) return "null";
  if (v === undefined) return "undefined";
  if (typeof v === "bigint") return `int:${v}`;
  if (typeof v === "number") return `double:${Object.is(v, -0) ? "-0" : String(v)}`;
  if (typeof v === "string") return `string:${JSON.stringify(v)}`;
  if (typeof v === "boolean") return `bool:${v}`;
  if (Array.isArray(v)) return `[${v.map((x) => canonical(x, depth + 1)).join(",")}]`;
  if (v instanceof Date) return `timestamp:${v.getTime()}`;
  if (v instanceof Uint8Array) return `bytes:${[...v].join(",")}`;
  if (v instanceof Map) return `map{${[...v].map(([k, x]) => `${canonical(k, depth + 1)}:${canonical(x, depth + 1)}`).join(",")}}`;
  if (v instanceof Set) return `set{${[...v].map((x) => canonical(x, depth + 1)).join(",")}}`;
  if (typeof v === "object") {
    const proto: unknown = Object.getPrototypeOf(v);
    const name = proto === null || proto === Object.prototype ? "map" : ((v as { constructor?: { name?: string } }).constructor?.name ?? "object");
    const fields = Object.entries(v).map(([k, x]) => `${k}:${canonical(x, depth + 1)}`);
    // Classes with private state (cel-js's Duration, UnsignedInt) show it through String().
    return `${name}(${name === "map" ? "" : String(v)}){${fields.join(",")}}`;
  }
  return typeof v;
}

/**
 * One evaluation's outcome: the value (canonical), or the error code, message and where it is.
 *
 * @example
 * ```ts
 * const o: Outcome = { value: "bool:true" };
 * ```
 */
export type Outcome = { readonly value: string } | { readonly code: string; readonly message: string; readonly at: string };

/**
 * Runs a compiled expression's `run` on a context.
 *
 * @example
 * ```ts
 * outcomeOf(compiled, context); // { value: "bool:true" }
 * ```
 */
export function outcomeOf(c: Compiled, context: object): Outcome {
  try {
    return { value: canonical(c.run(context)) };
  } catch (e: unknown) {
    const r = runtimeError(c.source, e);
    return { code: r.code, message: r.message, at: r.location ? `${r.location.span.start}-${r.location.span.end}` : "" };
  }
}

/**
 * The compiled closures (or, with `"generated"`, the function generate.ts writes for them) of an expression alone, without the fallback to cel-js, with their own
 * meter on the same cost plan: a value means the compiled path answered by itself; a throw means it
 * left its plain path. `undefined` for an expression that does not compile to closures.
 *
 * @example
 * ```ts
 * rawClosures(compiled)?.(context); // true, or throws
 * rawClosures(compiled, "generated")?.(context); // the same from the generated function (generate.ts)
 * ```
 */
export function rawClosures(c: Compiled, how: "closures" | "generated" = "closures"): ((context: object) => unknown) | undefined {
  const plan = costPlan(c.root, c.extensionArgs);
  const meter = new CostMeter();
  meter.base = plan.base;
  const options = { evaluator: celEnvironment(c.kind).evaluator, meter, plan };
  const r = compileClosuresOrReason(c.root, c.extensionArgs, options);
  if (!r.ok) return undefined;
  const closure = how === "closures" ? r.closure : generateClosure(c.root, c.extensionArgs, options);
  if (closure === undefined) return undefined;
  return (context) => {
    const limit: unknown = (context as Record<string, unknown>)[COST_LIMIT_KEY];
    meter.start(typeof limit === "number" ? limit : DEFAULT_CEL_COST_LIMIT);
    return closure(context as Readonly<Record<string, unknown>>);
  };
}

const BAILED = "(left its plain path)";

/** What a compiled path alone gives: the canonical value, or {@link BAILED} when it throws. */
function alone(f: (context: object) => unknown, context: object): string {
  try {
    return canonical(f(context));
  } catch {
    return BAILED;
  }
}

/**
 * Both ways of one source (closures with cel-js as fallback, and cel-js alone), or `undefined`
 * when it does not compile.
 *
 * @example
 * ```ts
 * bothWays("1 + 1", "condition", true)?.compiled.evaluation; // "compiled"
 * ```
 */
export function bothWays(source: string, kind: CelEnvironmentKind, anyResultType = false): { compiled: Compiled; interpreted: Compiled } | undefined {
  const env = celEnvironment(kind);
  const compiled = compileFresh(env, source, { anyResultType });
  const interpreted = compileFresh(env, source, { closures: false, anyResultType });
  if (!compiled.ok || !interpreted.ok) return undefined;
  return { compiled: compiled.value, interpreted: interpreted.value };
}

/**
 * What comparing the two ways over some contexts found: mismatches (should be none), and how
 * often the closures answered alone versus left it to cel-js.
 *
 * @example
 * ```ts
 * const d = differential("1 + 1 == 2", "condition", contextsOf("condition"));
 * d.mismatches; // []
 * ```
 */
export interface Differential {
  readonly evaluation: "compiled" | "interpreted";
  /** Whether generate.ts wrote a function for it (checked alone against the closures alone). */
  readonly generated: boolean;
  readonly mismatches: string[];
  /** Evaluations the closures answered by themselves (equal to cel-js's value). */
  readonly answered: number;
  /** Evaluations where the closures left their plain path (cel-js answered: an error, or an unusual value). */
  readonly bailed: number;
}

/**
 * Evaluates a source compiled and interpreted on each context: the outcomes must be identical, and
 * whenever the closures answer alone their value must be cel-js's (and cel-js must not fail there).
 *
 * @example
 * ```ts
 * differential("subject.department == 'IT'", "condition", contextsOf("condition")).mismatches; // []
 * ```
 */
export function differential(source: string, kind: CelEnvironmentKind, contexts: readonly object[], anyResultType = false): Differential | undefined {
  const b = bothWays(source, kind, anyResultType);
  if (!b) return undefined;
  const raw = rawClosures(b.compiled);
  const generated = rawClosures(b.compiled, "generated");
  const mismatches: string[] = [];
  let answered = 0;
  let bailed = 0;
  contexts.forEach((context, i) => {
    const want = outcomeOf(b.interpreted, context);
    const got = outcomeOf(b.compiled, context);
    if (JSON.stringify(got) !== JSON.stringify(want)) mismatches.push(`${source} on context ${i}: compiled ${JSON.stringify(got)}, interpreted ${JSON.stringify(want)}`);
    if (!raw) return;
    const closures = alone(raw, context);
    if (closures === BAILED) bailed++;
    else {
      answered++;
      if (!("value" in want) || want.value !== closures) mismatches.push(`${source} on context ${i}: closures alone ${closures}, interpreted ${JSON.stringify(want)}`);
    }
    // The generated function answers exactly when the closures do, with their value.
    if (generated && alone(generated, context) !== closures) mismatches.push(`${source} on context ${i}: generated alone ${alone(generated, context)}, closures alone ${closures}`);
  });
  return { evaluation: b.compiled.evaluation, generated: generated !== undefined, mismatches, answered, bailed };
}

/**
 * Conditions built from `terms` with `&&`, `||`, `!` and the ternary, nested a little: what the
 * generated-code property tests draw from.
 *
 * @example
 * ```ts
 * fc.sample(combinedConditions(fc.constantFrom("true", "subject.department == \"X\"")), 3);
 * ```
 */
export function combinedConditions(terms: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.letrec<{ c: string }>((tie) => ({
    c: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      terms,
      fc.tuple(tie("c"), fc.constantFrom("&&", "||"), tie("c")).map(([a, op, b]) => `(${a} ${op} ${b})`),
      tie("c").map((a) => `!(${a})`),
      fc.tuple(tie("c"), tie("c"), tie("c")).map(([c, a, b]) => `(${c} ? ${a} : ${b})`),
    ),
  })).c;
}
