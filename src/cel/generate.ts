/**
 * Checked conditions compiled to JavaScript source (issue 16): the closures' plain path
 * (closures.ts) written out as one function per expression.
 *
 * Why generate code: every closure of one kind (a field read, a comparison with a literal, an `&&`
 * chain) is one piece of code shared by every condition, and V8 optimises per place in the code. At
 * the shared places each read meets every field name and every kind of operand (megamorphic access,
 * calls it cannot inline), which left a closure-compiled rule at ~75 ns where the same test written
 * in JavaScript takes ~15. A function per expression sees one field name and one shape at each
 * place, and its operators are inline code rather than calls.
 *
 * The generated function does exactly what the closures do on their plain path, node for node and
 * in the same order: the same reads, the same type tests, the same short circuits, and it throws
 * {@link BAIL} (or the error of a handler) wherever a closure would. Only the shapes policies use
 * most are written out (field and key reads, `==`/`!=`/ordering of primitives, `in` a list of
 * strings, `&&`/`||`/`!`/ternary, `size`, the string tests); any other node — extension calls,
 * comprehensions, arithmetic, conversions — runs as the closure closures.ts compiles for it, called
 * from the generated code, so it charges the cost meter and answers exactly as before. The source
 * holds only this module's code and JSON string literals (field names, string constants); every
 * other value is passed in, never written into the source.
 *
 * Where code cannot be generated (a Content-Security-Policy without `unsafe-eval`, a runtime that
 * forbids `new Function`), the closures run instead, with the same results.
 */
import { argsOf, BAIL, child, type Closure, type ClosureOptions, compileClosures, dynGet, isMacro, literalOf, mapGet, ORDERED, PRIMITIVE_EQ, typeOf, VARIABLES } from "./closures.js";
import type { ExtensionArgs } from "./extensions.js";
import { isCelNode, type CelNode } from "./internals.js";
import { CHARS_PER_UNIT, FAST_PATH_CHARGES } from "./cost.js";
import { canGenerate } from "../can-generate.js";

/**
 * A recording function (trace-table.ts): the expression's generated function that also writes each
 * node's value into `slots[id]`, the running trace's slots, passed in by the caller.
 *
 * @example
 * ```ts
 * const value = recording(context, new Array(table.size));
 * ```
 */
export type Recording = (c: Readonly<Record<string, unknown>>, slots: unknown[]) => unknown;

/**
 * What {@link generateRecording} writes: the function, and whether it hands any node to a closure
 * or charges the cost meter itself (`alone` when neither: then nothing in it charges the cost meter
 * or records through the tracer's running target, and its caller need not set either up).
 *
 * @example
 * ```ts
 * const g: GeneratedRecording = { run: (c, s) => (s[0] = true), alone: true };
 * ```
 */
export interface GeneratedRecording {
  readonly run: Recording;
  readonly alone: boolean;
}

/**
 * The plain path of a checked expression as one generated function, or `undefined` where code
 * cannot be generated, or when a node does not compile to closures either. Called like a closure:
 * returns the value, or throws (BAIL, an error) when the expression leaves its plain path.
 *
 * @example
 * ```ts
 * const f = generateClosure(ast, extensionArgs, { evaluator, meter, plan }) ?? compileClosures(ast, extensionArgs, { evaluator, meter, plan });
 * ```
 */
export function generateClosure(root: CelNode, extensionArgs: ExtensionArgs, options: ClosureOptions): Closure | undefined {
  if (options.record !== undefined) return undefined;
  return generated(root, extensionArgs, options, undefined)?.f as Closure | undefined;
}

/**
 * The same for a recording compile (`options.record`, for traces): the function also writes each
 * node's value into its slot (`slotOf`) of the slots it is given, node for node as the recording
 * closures do, without the shortcuts that skip a node (a literal compared with, a flattened `&&`
 * chain, a context variable read inside a field read), so every node cel-js evaluates is written.
 * Nodes it hands to closures record through `options.record`, as a recording compile's closures do.
 *
 * @example
 * ```ts
 * const rec = generateRecording(ast, extensionArgs, { evaluator, meter, plan, record }, (node) => ids.get(node));
 * ```
 */
export function generateRecording(root: CelNode, extensionArgs: ExtensionArgs, options: ClosureOptions, slotOf: (node: CelNode) => number | undefined): GeneratedRecording | undefined {
  if (options.record === undefined) return undefined;
  const g = generated(root, extensionArgs, options, slotOf);
  return g && { run: g.f as Recording, alone: g.delegates === 0 && g.charges === 0 };
}

function generated(
  root: CelNode,
  extensionArgs: ExtensionArgs,
  options: ClosureOptions,
  slotOf: ((node: CelNode) => number | undefined) | undefined,
): { readonly f: Closure | Recording; readonly delegates: number; readonly charges: number } | undefined {
  if (!canGenerate()) return undefined;
  try {
    const g = new Source(extensionArgs, options, slotOf);
    const out = g.node(root);
    return { f: g.build(out), delegates: g.delegates, charges: g.charges };
  } catch {
    // A node without closures (NotCompiled) or a generator bug: the closures decide alone.
    return undefined;
  }
}

class NotCompiled {}

const literal = (s: string): string => JSON.stringify(s);

const STRING_TESTS: Readonly<Record<string, string>> = { startsWith: "startsWith", endsWith: "endsWith", contains: "includes" };

const ORDER_OPS: ReadonlySet<string> = new Set(["<", "<=", ">", ">="]);

/** The source of one expression's function, built node by node. */
class Source {
  readonly #ext: ExtensionArgs;
  readonly #options: ClosureOptions;
  /** The slot of each node, when recording. */
  readonly #slotOf: ((node: CelNode) => number | undefined) | undefined;
  readonly #lines: string[] = [];
  readonly #constants: unknown[] = [];
  readonly #delegates: Closure[] = [];
  /** The nodes handed whole to a delegate (which records them itself when recording). */
  readonly #delegated = new Set<CelNode>();
  #vars = 0;
  #labels = 0;
  #charges = 0;
  #depth = 1;

  constructor(ext: ExtensionArgs, options: ClosureOptions, slotOf: ((node: CelNode) => number | undefined) | undefined) {
    this.#ext = ext;
    this.#options = options;
    this.#slotOf = slotOf;
  }

  /** How many nodes it hands to closures. */
  get delegates(): number {
    return this.#delegates.length;
  }

  /** How many charges of the cost meter it writes out (cost.ts `FAST_PATH_CHARGES`). */
  get charges(): number {
    return this.#charges;
  }

  /** Whether shortcuts that skip a node are allowed: not when every node's value is recorded. */
  get #fused(): boolean {
    return this.#slotOf === undefined;
  }

  build(out: string): Closure | Recording {
    const names = Array.from({ length: this.#vars }, (_, i) => `v${i}`);
    const source = [
      '"use strict";',
      "const B = $.B, mapGet = $.mapGet, dynGet = $.dynGet, Q = $.Q;",
      ...this.#constants.map((_, i) => `const k${i} = $.k[${i}];`),
      ...this.#delegates.map((_, i) => `const d${i} = $.d[${i}];`),
      // Recording, the running trace's slots come in beside the context.
      this.#slotOf ? "return function celCondition(c, s) {" : "return function celCondition(c) {",
      ...(names.length > 0 ? [`  let ${names.join(", ")};`] : []),
      ...this.#lines,
      `  return ${out};`,
      "};",
    ].join("\n");
    const factory = new Function("$", source) as (inputs: object) => Closure | Recording;
    return factory({ B: BAIL, mapGet, dynGet, Q: FAST_PATH_CHARGES, k: this.#constants, d: this.#delegates });
  }

  #emit(line: string): void {
    this.#lines.push("  ".repeat(this.#depth) + line);
  }

  #fresh(): string {
    return `v${this.#vars++}`;
  }

  /** Whether a node pays before it runs (cost.ts `pre`): the closures' fast path charges it, so does the code. */
  #charged(n: CelNode): boolean {
    return this.#options.plan?.pre.has(n) === true;
  }

  /**
   * Emits the charge a fast path pays before it runs, as the closure does (cost.ts `pre`): the
   * node's own units on `a` and `b`, when `when` holds (the cases where they can be more than 0).
   */
  #charge(n: CelNode, a: string, b: string, when?: string): void {
    const units = this.#options.plan?.pre.get(n)?.units;
    if (units === undefined) return;
    this.#charges++;
    const call = `Q.charge(${this.#constant(units)}(${a}, ${b}), ${this.#constant(n)});`;
    this.#emit(when === undefined ? call : `if (${when}) ${call}`);
  }

  /** Two string variables both of ten characters or more (else comparing them costs nothing). */
  #long(a: string, b: string, typed: boolean): string {
    const k = CHARS_PER_UNIT;
    return `${typed ? "" : `typeof ${a} === "string" && typeof ${b} === "string" && `}${a}.length >= ${k} && ${b}.length >= ${k}`;
  }

  /** A value that is no literal in the source: a constant bound before the function. */
  #constant(v: unknown): string {
    if (typeof v === "string") return literal(v);
    if (typeof v === "boolean") return v ? "true" : "false";
    this.#constants.push(v);
    return `k${this.#constants.length - 1}`;
  }

  /** A node the generator does not write out: its closure, called from the generated code. */
  #delegate(n: CelNode): string {
    const f = compileClosures(n, this.#ext, this.#options);
    if (f === undefined) throw new NotCompiled();
    this.#delegated.add(n);
    this.#delegates.push(f);
    const v = this.#fresh();
    this.#emit(`${v} = d${this.#delegates.length - 1}(c);`);
    return v;
  }

  /**
   * Emits the statements computing `n` and returns an expression (a variable or a literal) for its
   * value. Each case mirrors the closure closures.ts builds for the same node.
   */
  node(n: CelNode): string {
    // A delegate's closure records its node itself (a recording compile wraps every node it makes).
    if (this.#ext.has(n) || isMacro(n) || this.#options.plan?.sized.has(n) === true) return this.#delegate(n);
    const v = this.#written(n);
    const id = this.#slotOf?.(n);
    // Written out here (not handed whole to a delegate): its value goes into its slot.
    if (id !== undefined && !this.#delegated.has(n)) this.#emit(`s[${id}] = ${v};`);
    return v;
  }

  #written(n: CelNode): string {
    switch (n.op) {
      case "value":
        return this.#constant(n.args);
      case "id":
        return typeof n.args === "string" && VARIABLES.has(n.args) ? this.#variable(n.args) : this.#delegate(n);
      case ".":
        return this.#select(n);
      case "[]":
        return this.#index(n);
      case "in":
        return this.#membership(n);
      case "==":
      case "!=":
        return this.#equality(n);
      case "<":
      case "<=":
      case ">":
      case ">=":
        return this.#ordering(n);
      case "&&":
      case "||":
        return this.#logical(n);
      case "!_":
        return this.#not(n);
      case "?:":
        return this.#ternary(n);
      case "rcall":
        return this.#method(n);
      case "call":
        return this.#call(n);
      case "list":
        return this.#list(n);
      default:
        return this.#delegate(n);
    }
  }

  #variable(name: string): string {
    const v = this.#fresh();
    this.#emit(`${v} = c[${literal(name)}];`);
    this.#emit(`if (${v} === undefined) throw B;`);
    return v;
  }

  /** A field of a message: the object, then the field, bailing where the closure bails. */
  #field(o: string, field: string): string {
    const v = this.#fresh();
    this.#emit(`if (typeof ${o} !== "object" || ${o} === null) throw B;`);
    this.#emit(`${v} = ${o}[${literal(field)}];`);
    this.#emit(`if (${v} === undefined) throw B;`);
    return v;
  }

  #select(n: CelNode): string {
    const [obj, field] = argsOf(n);
    if (!isCelNode(obj) || typeof field !== "string") return this.#delegate(n);
    const t = typeOf(obj);
    const isMap = t === "dyn" || t.startsWith("map<string,");
    if (!isMap && !/^[A-Z][A-Za-z]*$/.test(t)) return this.#delegate(n);
    if (this.#fused && !isMap && obj.op === "id" && typeof obj.args === "string" && VARIABLES.has(obj.args) && !isMacro(obj)) {
      // `subject.department`: the context's variable read without its own undefined test, as the closure does.
      const o = this.#fresh();
      this.#emit(`${o} = c[${literal(obj.args)}];`);
      return this.#field(o, field);
    }
    const o = this.node(obj);
    if (!isMap) return this.#field(o, field);
    const v = this.#fresh();
    this.#emit(`${v} = ${t === "dyn" ? "dynGet" : "mapGet"}(${o}, ${literal(field)});`);
    return v;
  }

  #index(n: CelNode): string {
    const obj = child(n, 0);
    const key = child(n, 1);
    if (!obj || !key) return this.#delegate(n);
    const t = typeOf(obj);
    if (!(typeOf(key) === "string" && (t === "dyn" || t.startsWith("map<string,")))) return this.#delegate(n);
    const o = this.node(obj);
    const k = this.node(key);
    this.#emit(`if (typeof ${k} !== "string") throw B;`);
    const v = this.#fresh();
    this.#emit(`${v} = ${t === "dyn" ? "dynGet" : "mapGet"}(${o}, ${k});`);
    return v;
  }

  #membership(n: CelNode): string {
    const l = child(n, 0);
    const r = child(n, 1);
    if (!l || !r || typeOf(l) !== "string" || typeOf(r) !== "list<string>") return this.#delegate(n);
    const lv = this.node(l);
    const v = this.#fresh();
    const items = this.#fused ? this.#stringLiterals(r) : undefined;
    if (items !== undefined) {
      // `x in ["a", "b"]`: the closure builds the list and walks it; its items are constants.
      this.#emit(`if (typeof ${lv} !== "string") throw B;`);
      if (this.#charged(n) && items.length > 0) {
        // The plan charges a literal list by its needle only (cost.ts `literalMembershipUnits`).
        this.#charges++;
        this.#emit(`if (${lv}.length >= ${CHARS_PER_UNIT}) Q.literalMembership(${lv}, ${items.length}, ${this.#constant(n)});`);
      }
      this.#emit(`${v} = ${items.length === 0 ? "false" : items.map((s) => `${lv} === ${literal(s)}`).join(" || ")};`);
      return v;
    }
    const rv = this.node(r);
    this.#emit(`if (typeof ${lv} !== "string" || !Array.isArray(${rv})) throw B;`);
    this.#charge(n, lv, rv);
    this.#emit(`${v} = false;`);
    this.#emit(`for (const x of ${rv}) {`);
    this.#emit(`  if (x === ${lv}) { ${v} = true; break; }`);
    this.#emit(`  if (typeof x !== "string") throw B;`);
    this.#emit("}");
    return v;
  }

  /** A list literal: a fresh array of its items, the last evaluated first, as the closure does. */
  #list(n: CelNode): string {
    const args = argsOf(n);
    if (!args.every(isCelNode)) return this.#delegate(n);
    const items: string[] = [];
    for (let i = args.length - 1; i >= 0; i--) items.unshift(this.node(args[i] as CelNode));
    const v = this.#fresh();
    this.#emit(`${v} = [${items.join(", ")}];`);
    return v;
  }

  /** The items of a list literal made of string literals only, else `undefined`. */
  #stringLiterals(r: CelNode): string[] | undefined {
    if (r.op !== "list" || this.#ext.has(r) || isMacro(r) || this.#options.plan?.sized.has(r) === true) return undefined;
    const out: string[] = [];
    for (const x of argsOf(r)) {
      if (!isCelNode(x) || this.#ext.has(x) || this.#options.plan?.sized.has(x) === true) return undefined;
      const s = literalOf(x);
      if (typeof s !== "string") return undefined;
      out.push(s);
    }
    return out;
  }

  #equality(n: CelNode): string {
    const l = child(n, 0);
    const r = child(n, 1);
    if (!l || !r) return this.#delegate(n);
    const lt = typeOf(l);
    const rt = typeOf(r);
    const op = n.op === "!=" ? "!==" : "===";
    // A literal on the right is written into the comparison, unless its own value is recorded
    // (comparing with a literal outside a loop charges nothing: cost.ts).
    const k = this.#fused ? literalOf(r) : undefined;
    const v = this.#fresh();
    if (lt === rt && PRIMITIVE_EQ.has(lt)) {
      const want = literal(lt === "string" ? "string" : lt === "bool" ? "boolean" : lt === "int" ? "bigint" : "number");
      if (k !== undefined && literal(typeof k) === want) {
        const a = this.node(l);
        this.#emit(`if (typeof ${a} !== ${want}) throw B;`);
        this.#emit(`${v} = ${a} ${op} ${this.#constant(k)};`);
        return v;
      }
      const a = this.node(l);
      const b = this.node(r);
      this.#emit(`if (typeof ${a} !== ${want} || typeof ${b} !== ${want}) throw B;`);
      if (lt === "string") this.#charge(n, a, b, this.#long(a, b, true));
      this.#emit(`${v} = ${a} ${op} ${b};`);
      return v;
    }
    if (lt === "dyn" && typeof k === "string") {
      const a = this.node(l);
      this.#emit(`if (typeof ${a} !== "string") throw B;`);
      this.#emit(`${v} = ${a} ${op} ${literal(k)};`);
      return v;
    }
    if ((lt === "dyn" && (rt === "dyn" || PRIMITIVE_EQ.has(rt))) || (rt === "dyn" && PRIMITIVE_EQ.has(lt))) {
      const a = this.node(l);
      const b = this.node(r);
      this.#emit(`if (typeof ${a} !== typeof ${b} || !(typeof ${a} === "string" || typeof ${a} === "boolean")) throw B;`);
      this.#charge(n, a, b, this.#long(a, b, false));
      this.#emit(`${v} = ${a} ${op} ${b};`);
      return v;
    }
    return this.#delegate(n);
  }

  #ordering(n: CelNode): string {
    const l = child(n, 0);
    const r = child(n, 1);
    if (!l || !r || !ORDER_OPS.has(n.op)) return this.#delegate(n);
    const lt = typeOf(l);
    if (lt !== typeOf(r) || !ORDERED.has(lt)) return this.#delegate(n);
    const want = literal(lt === "string" ? "string" : lt === "int" ? "bigint" : "number");
    const v = this.#fresh();
    const list = this.#fused ? this.#sizeOperand(l) : undefined;
    if (list !== undefined) {
      // `size(list) > 0`: the closure's `BigInt(list.length)` compared as a number (the same order:
      // a safe integer against a bigint compares exactly), without allocating the bigint.
      const xs = this.node(list);
      this.#emit(`if (!Array.isArray(${xs})) throw B;`);
      const b = this.node(r);
      this.#emit(`if (typeof ${b} !== "bigint") throw B;`);
      this.#emit(`${v} = ${xs}.length ${n.op} ${b};`);
      return v;
    }
    const a = this.node(l);
    const b = this.node(r);
    this.#emit(`if (typeof ${a} !== ${want} || typeof ${b} !== ${want}) throw B;`);
    if (lt === "string") this.#charge(n, a, b, this.#long(a, b, true));
    this.#emit(`${v} = ${a} ${n.op} ${b};`);
    return v;
  }

  /** The list of a `size(list)` node the closures compute by hand (see `#call`), else `undefined`. */
  #sizeOperand(n: CelNode): CelNode | undefined {
    if (n.op !== "call" || this.#ext.has(n) || isMacro(n) || this.#options.plan?.sized.has(n) === true) return undefined;
    const [name, params] = argsOf(n);
    if (name !== "size" || !Array.isArray(params) || params.length !== 1 || !params.every(isCelNode)) return undefined;
    const p: unknown = params[0];
    return isCelNode(p) && typeOf(p).startsWith("list<") ? p : undefined;
  }

  #logical(n: CelNode): string {
    // `a && b && c` as one chain, as the closure runs it: the first decisive operand decides; an
    // operand that is not a bool leaves it to cel-js.
    const terms: CelNode[] = [];
    if (this.#fused) flatten(n, n.op, terms);
    else {
      // Recording: each `&&` node is one, with its own value (cel-js evaluates them one by one).
      const l = child(n, 0);
      const r = child(n, 1);
      if (!l || !r) return this.#delegate(n);
      terms.push(l, r);
    }
    const decisive = n.op === "||" ? "true" : "false";
    const other = n.op === "||" ? "false" : "true";
    const v = this.#fresh();
    const label = `L${this.#labels++}`;
    this.#emit(`${v} = ${other};`);
    this.#emit(`${label}: {`);
    this.#depth++;
    for (const t of terms) {
      const tv = this.node(t);
      this.#emit(`if (${tv} !== ${other}) { if (${tv} === ${decisive}) { ${v} = ${decisive}; break ${label}; } throw B; }`);
    }
    this.#depth--;
    this.#emit("}");
    return v;
  }

  #not(n: CelNode): string {
    const a = n.args;
    if (!isCelNode(a)) return this.#delegate(n);
    const t = this.node(a);
    const v = this.#fresh();
    this.#emit(`if (typeof ${t} !== "boolean") throw B;`);
    this.#emit(`${v} = !${t};`);
    return v;
  }

  #ternary(n: CelNode): string {
    const cond = child(n, 0);
    const l = child(n, 1);
    const r = child(n, 2);
    if (!cond || !l || !r) return this.#delegate(n);
    const t = this.node(cond);
    const v = this.#fresh();
    this.#emit(`if (${t} === true) {`);
    this.#depth++;
    this.#emit(`${v} = ${this.node(l)};`);
    this.#depth--;
    this.#emit(`} else if (${t} === false) {`);
    this.#depth++;
    this.#emit(`${v} = ${this.node(r)};`);
    this.#depth--;
    this.#emit("} else throw B;");
    // A slot holding `undefined` reads "not evaluated": a branch's value that is `undefined` (none
    // on the plain path) is left to cel-js, which records it as it is.
    if (!this.#fused) this.#emit(`if (${v} === undefined) throw B;`);
    return v;
  }

  #method(n: CelNode): string {
    const [name, receiver, params] = argsOf(n);
    if (typeof name !== "string" || !isCelNode(receiver) || !Array.isArray(params) || params.length !== 1 || !params.every(isCelNode)) return this.#delegate(n);
    const test = Object.hasOwn(STRING_TESTS, name) ? STRING_TESTS[name] : undefined;
    const p: unknown = params[0];
    if (test === undefined || !isCelNode(p) || typeOf(receiver) !== "string" || typeOf(p) !== "string") return this.#delegate(n);
    // The argument before the receiver, as cel-js evaluates a method call.
    const x = this.node(p);
    const s = this.node(receiver);
    const v = this.#fresh();
    this.#emit(`if (typeof ${s} !== "string" || typeof ${x} !== "string") throw B;`);
    if (this.#charged(n)) {
      this.#charges++;
      this.#emit(`if (${s}.length >= ${CHARS_PER_UNIT} || ${x}.length >= ${CHARS_PER_UNIT}) Q.charge(Q.operands(${s}, ${x}), ${this.#constant(n)});`);
    }
    this.#emit(`${v} = ${s}.${test}(${x});`);
    return v;
  }

  #call(n: CelNode): string {
    const list = this.#sizeOperand(n);
    if (list === undefined) return this.#delegate(n);
    const xs = this.node(list);
    const v = this.#fresh();
    this.#emit(`if (!Array.isArray(${xs})) throw B;`);
    this.#emit(`${v} = BigInt(${xs}.length);`);
    return v;
  }
}

/** The operands of a chain of one logical operator, left to right (closures.ts does the same). */
function flatten(n: CelNode, op: string, out: CelNode[]): void {
  if (n.op === op && !isMacro(n)) {
    const l = child(n, 0);
    const r = child(n, 1);
    if (!l || !r) throw new NotCompiled();
    flatten(l, op, out);
    flatten(r, op, out);
    return;
  }
  out.push(n);
}
