/**
 * Checked conditions compiled to JavaScript closures (issue 16, first part): the common shapes of
 * rule conditions (field and map access, comparisons, `in`, `&&`/`||`/`!`/`?:`, string tests,
 * `size`) run as a tree of plain closures over the evaluation context, without cel-js's scope
 * objects, dispatch and run-time type lookups. No code is generated (`new Function` is never
 * used), so the compiled form also runs under a CSP without `unsafe-eval`.
 *
 * Exactly cel-js's results, by construction: a closure only answers on its **plain path** (the
 * operand types it expects, no missing key, no error), where its result is the one cel-js's own
 * overload computes (`===` for two strings, ints, doubles or bools — so NaN is unequal and -0
 * equals 0, as in CEL). Anything else — a missing key, an unexpected run-time type, a value that
 * would be an error — abandons the compiled run ({@link BAIL}), and the caller evaluates the whole
 * expression with cel-js, which produces the value or error the service would. Evaluation is pure,
 * so starting again changes nothing but time. Error-absorbing `&&`/`||` need no special case: an
 * operand that would fail bails, and cel-js decides.
 *
 * An expression with any other node (comprehensions, arithmetic, timestamps, the `c1.*` and other
 * extension functions, `has()`) is not compiled at all and runs on cel-js ("interpreted").
 */
import type { ExtensionArgs } from "./extensions.js";
import { isCelNode, type CelNode } from "./internals.js";

/**
 * Thrown by a closure off its plain path: evaluate the expression with cel-js instead.
 *
 * @example
 * ```ts
 * try { return closure(context); } catch (e) { if (e === BAIL) return interpreted(context); throw e; }
 * ```
 */
export const BAIL: unique symbol = Symbol("policy-sim/cel-bail");

/** A compiled (sub-)expression: reads the context's variables by name. */
export type Closure = (context: Readonly<Record<string, unknown>>) => unknown;

/** The variables of the evaluation context (evaluate.ts's CelContext fields). */
const VARIABLES: ReadonlySet<string> = new Set(["subject", "task", "entitlement", "account", "ip", "appOwners"]);

const PRIMITIVE_EQ: ReadonlySet<string> = new Set(["string", "bool", "int", "double"]);
const ORDERED: ReadonlySet<string> = new Set(["string", "int", "double"]);

const bail = (): never => {
  throw BAIL;
};

const hasOwn = (o: object, k: string): boolean => Object.hasOwn(o, k);

function isPlainObject(o: object): boolean {
  const p: unknown = Object.getPrototypeOf(o);
  return p === Object.prototype || p === null;
}

/** A value from a map-typed value (a JS Map or any object, as cel-js reads a `map`), or bail. */
function mapGet(o: unknown, key: string): unknown {
  if (o instanceof Map) {
    const v: unknown = o.get(key);
    return v === undefined ? bail() : v;
  }
  if (typeof o === "object" && o !== null && hasOwn(o, key)) {
    const v: unknown = (o as Record<string, unknown>)[key];
    return v === undefined ? bail() : v;
  }
  return bail();
}

/** A value from a dyn: a map only when cel-js would see a map (a Map or a plain object), or bail. */
function dynGet(o: unknown, key: string): unknown {
  if (o instanceof Map) {
    const v: unknown = o.get(key);
    return v === undefined ? bail() : v;
  }
  if (typeof o === "object" && o !== null && isPlainObject(o) && hasOwn(o, key)) {
    const v: unknown = (o as Record<string, unknown>)[key];
    return v === undefined ? bail() : v;
  }
  return bail();
}

const typeOf = (n: CelNode): string => n.checkedType?.name ?? "dyn";

function argsOf(n: CelNode): readonly unknown[] {
  return Array.isArray(n.args) ? n.args : [];
}

function child(n: CelNode, i: number): CelNode | undefined {
  const c = argsOf(n)[i];
  return isCelNode(c) ? c : undefined;
}

/** cel-js keeps macros (`has`, `all`…) and their expansions in `meta`; those stay interpreted. */
function isMacro(n: CelNode): boolean {
  const m: unknown = (n as unknown as { readonly meta?: unknown }).meta;
  if (typeof m !== "object" || m === null) return false;
  const meta = m as { readonly alternate?: unknown; readonly macro?: unknown };
  return meta.alternate !== undefined || meta.macro !== undefined;
}

/**
 * Compiles a checked expression to closures, or `undefined` when it has a node outside the
 * compiled subset (it then runs on cel-js).
 *
 * @example
 * ```ts
 * const f = compileClosures(ast, extensionArgs);
 * if (f) f(context); // true, false, a value — or throws BAIL
 * ```
 */
export function compileClosures(root: CelNode, extensionArgs: ExtensionArgs, options: ClosureOptions = {}): Closure | undefined {
  const previous = active;
  active = options;
  try {
    return compile(root, extensionArgs);
  } catch (e: unknown) {
    if (e === UNSUPPORTED) return undefined;
    throw e;
  } finally {
    active = previous;
  }
}

/**
 * How to compile: plainly (the decision path), or recording each node's value for a trace. A
 * recording compile makes one closure per node that cel-js evaluates (no fused shortcuts), so each
 * records exactly when cel-js would.
 *
 * @example
 * ```ts
 * compileClosures(ast, ext, { record: (node) => (value) => slots.set(node, value) });
 * ```
 */
export interface ClosureOptions {
  /** The recorder of a node's value, or `undefined` for a node that records nothing. */
  readonly record?: (node: CelNode) => ((value: unknown) => void) | undefined;
}

// The options of the compile under way (compiling is synchronous; restored after each).
let active: ClosureOptions = {};

function compile(n: CelNode, ext: ExtensionArgs): Closure {
  const f = compileNode(n, ext);
  const r = active.record?.(n);
  if (r === undefined) return f;
  return (c) => {
    const v = f(c);
    r(v);
    return v;
  };
}

/** Whether shortcuts that skip a node's own closure are allowed (not when recording a trace). */
const fused = (): boolean => active.record === undefined;

const UNSUPPORTED = Symbol("unsupported");
const unsupported = (): never => {
  throw UNSUPPORTED;
};

function compileNode(n: CelNode, ext: ExtensionArgs): Closure {
  if (isMacro(n) || ext.has(n)) return unsupported();
  switch (n.op) {
    case "value": {
      const v: unknown = n.args;
      if (!(typeof v === "string" || typeof v === "boolean" || typeof v === "bigint" || typeof v === "number")) return unsupported();
      return () => v;
    }
    case "id": {
      const name = n.args;
      if (typeof name !== "string" || !VARIABLES.has(name)) return unsupported();
      return (c) => {
        const v = c[name];
        return v === undefined ? bail() : v;
      };
    }
    case ".":
      return select(n, ext);
    case "[]": {
      const obj = child(n, 0);
      const key = child(n, 1);
      if (!obj || !key || typeOf(key) !== "string") return unsupported();
      const t = typeOf(obj);
      if (!(t === "dyn" || t.startsWith("map<string,"))) return unsupported();
      const o = compile(obj, ext);
      const k = compile(key, ext);
      const get = t === "dyn" ? dynGet : mapGet;
      return (c) => {
        const ov = o(c);
        const kv = k(c);
        return typeof kv === "string" ? get(ov, kv) : bail();
      };
    }
    case "list": {
      const items = argsOf(n).map((x) => (isCelNode(x) ? compile(x, ext) : unsupported()));
      return (c) => items.map((f) => f(c));
    }
    case "==":
    case "!=":
      return equality(n, ext);
    case "<":
    case "<=":
    case ">":
    case ">=":
      return ordering(n, ext);
    case "in": {
      const l = child(n, 0);
      const r = child(n, 1);
      if (!l || !r || typeOf(l) !== "string" || typeOf(r) !== "list<string>") return unsupported();
      const lf = compile(l, ext);
      const rf = compile(r, ext);
      return (c) => {
        const lv = lf(c);
        const rv = rf(c);
        if (typeof lv !== "string" || !Array.isArray(rv)) return bail();
        for (const x of rv) {
          if (x === lv) return true;
          if (typeof x !== "string") return bail();
        }
        return false;
      };
    }
    case "&&":
    case "||": {
      // `a && b && c` as one loop: the first decisive operand decides; an operand that is not a
      // bool (an error, a dyn value) leaves it to cel-js, which knows which errors are absorbed.
      const terms: CelNode[] = [];
      if (fused()) flatten(n, n.op, terms);
      else terms.push(...[child(n, 0), child(n, 1)].map((x) => x ?? unsupported()));
      const fs = terms.map((t) => compile(t, ext));
      const decisive = n.op === "||";
      return (c) => {
        for (let i = 0; i < fs.length; i++) {
          const v = (fs[i] as Closure)(c);
          if (v === decisive) return decisive;
          if (v !== !decisive) return bail();
        }
        return !decisive;
      };
    }
    case "!_": {
      const a = n.args;
      if (!isCelNode(a)) return unsupported();
      const f = compile(a, ext);
      return (c) => {
        const v = f(c);
        return typeof v === "boolean" ? !v : bail();
      };
    }
    case "?:": {
      const cond = child(n, 0);
      const l = child(n, 1);
      const r = child(n, 2);
      if (!cond || !l || !r) return unsupported();
      const cf = compile(cond, ext);
      const lf = compile(l, ext);
      const rf = compile(r, ext);
      return (c) => {
        const v = cf(c);
        return v === true ? lf(c) : v === false ? rf(c) : bail();
      };
    }
    case "rcall":
      return method(n, ext);
    case "call":
      return call(n, ext);
    default:
      return unsupported();
  }
}

/** The operands of a chain of one logical operator, left to right. */
function flatten(n: CelNode, op: string, out: CelNode[]): void {
  if (n.op === op && !isMacro(n)) {
    const l = child(n, 0);
    const r = child(n, 1);
    if (!l || !r) return unsupported();
    flatten(l, op, out);
    flatten(r, op, out);
    return;
  }
  out.push(n);
}

/** The variable a node names, when it is a plain identifier of the context. */
function rootVariable(n: CelNode): string | undefined {
  return n.op === "id" && typeof n.args === "string" && VARIABLES.has(n.args) && !isMacro(n) ? n.args : undefined;
}

/** The value of a literal node of a primitive type, or `undefined`. */
function literalOf(n: CelNode): string | boolean | bigint | number | undefined {
  if (n.op !== "value" || isMacro(n)) return undefined;
  const v: unknown = n.args;
  return typeof v === "string" || typeof v === "boolean" || typeof v === "bigint" || typeof v === "number" ? v : undefined;
}

/** `a.f` on a message (a field read), a map or a dyn map (a key read). */
function select(n: CelNode, ext: ExtensionArgs): Closure {
  const a = argsOf(n);
  const obj = a[0];
  const field = a[1];
  if (!isCelNode(obj) || typeof field !== "string") return unsupported();
  const t = typeOf(obj);
  const isMap = t === "dyn" || t.startsWith("map<string,");
  if (!isMap && !/^[A-Z][A-Za-z]*$/.test(t)) return unsupported();
  const root = fused() ? rootVariable(obj) : undefined;
  if (root !== undefined && !isMap) {
    // `subject.department`: the most common read, in one closure.
    return (c) => {
      const o = c[root];
      if (typeof o !== "object" || o === null) return bail();
      const v: unknown = (o as Record<string, unknown>)[field];
      return v === undefined ? bail() : v;
    };
  }
  const of = compile(obj, ext);
  if (t === "dyn") return (c) => dynGet(of(c), field);
  if (isMap) return (c) => mapGet(of(c), field);
  // A message of ours (values.ts): a declared field, read as cel-js reads it; absent: cel-js says why.
  return (c) => {
    const o = of(c);
    if (typeof o !== "object" || o === null) return bail();
    const v: unknown = (o as Record<string, unknown>)[field];
    return v === undefined ? bail() : v;
  };
}

function equality(n: CelNode, ext: ExtensionArgs): Closure {
  const l = child(n, 0);
  const r = child(n, 1);
  if (!l || !r) return unsupported();
  const lt = typeOf(l);
  const rt = typeOf(r);
  const lf = compile(l, ext);
  const rf = compile(r, ext);
  const negate = n.op === "!=";
  if (lt === rt && PRIMITIVE_EQ.has(lt)) {
    // cel-js: `(a, b) => a === b` for two of these types (overloads.js); `!=` is its negation.
    const want = lt === "string" ? "string" : lt === "bool" ? "boolean" : lt === "int" ? "bigint" : "number";
    const k = fused() ? literalOf(r) : undefined;
    if (k !== undefined && typeof k === want) {
      // `x == "literal"`: the constant in the closure.
      return negate
        ? (c) => {
            const a = lf(c);
            return typeof a === want ? a !== k : bail();
          }
        : (c) => {
            const a = lf(c);
            return typeof a === want ? a === k : bail();
          };
    }
    return (c) => {
      const a = lf(c);
      const b = rf(c);
      if (typeof a !== want || typeof b !== want) return bail();
      return negate ? a !== b : a === b;
    };
  }
  const k = fused() ? literalOf(r) : undefined;
  if (lt === "dyn" && typeof k === "string") {
    // `subject.profile.clearance == "high"`: a string on the left compares; anything else, cel-js.
    return (c) => {
      const a = lf(c);
      return typeof a === "string" ? (negate ? a !== k : a === k) : bail();
    };
  }
  if ((lt === "dyn" && (rt === "dyn" || PRIMITIVE_EQ.has(rt))) || (rt === "dyn" && PRIMITIVE_EQ.has(lt))) {
    // Decided at run time: two strings or two bools compare as above; anything else goes to cel-js.
    return (c) => {
      const a = lf(c);
      const b = rf(c);
      const ta = typeof a;
      if (ta !== typeof b || !(ta === "string" || ta === "boolean")) return bail();
      return negate ? a !== b : a === b;
    };
  }
  return unsupported();
}

function ordering(n: CelNode, ext: ExtensionArgs): Closure {
  const l = child(n, 0);
  const r = child(n, 1);
  if (!l || !r) return unsupported();
  const lt = typeOf(l);
  if (lt !== typeOf(r) || !ORDERED.has(lt)) return unsupported();
  const want = lt === "string" ? "string" : lt === "int" ? "bigint" : "number";
  const lf = compile(l, ext);
  const rf = compile(r, ext);
  const cmp =
    n.op === "<"
      ? (a: string | bigint | number, b: string | bigint | number) => a < b
      : n.op === "<="
        ? (a: string | bigint | number, b: string | bigint | number) => a <= b
        : n.op === ">"
          ? (a: string | bigint | number, b: string | bigint | number) => a > b
          : (a: string | bigint | number, b: string | bigint | number) => a >= b;
  return (c) => {
    const a = lf(c);
    const b = rf(c);
    if (typeof a !== want || typeof b !== want) return bail();
    return cmp(a as string | bigint | number, b as string | bigint | number);
  };
}

const STRING_TESTS: Readonly<Record<string, (a: string, b: string) => boolean>> = {
  startsWith: (a, b) => a.startsWith(b),
  endsWith: (a, b) => a.endsWith(b),
  contains: (a, b) => a.includes(b),
};

/** `s.startsWith(x)`, `s.endsWith(x)`, `s.contains(x)` on strings (cel-js's own definitions). */
function method(n: CelNode, ext: ExtensionArgs): Closure {
  const a = argsOf(n);
  const name = a[0];
  const receiver = a[1];
  const params = a[2];
  if (typeof name !== "string" || !isCelNode(receiver) || !Array.isArray(params) || params.length !== 1) return unsupported();
  const test = Object.prototype.hasOwnProperty.call(STRING_TESTS, name) ? STRING_TESTS[name] : undefined;
  const p: unknown = params[0];
  if (!test || !isCelNode(p) || typeOf(receiver) !== "string" || typeOf(p) !== "string") return unsupported();
  const rf = compile(receiver, ext);
  const pf = compile(p, ext);
  return (c) => {
    const s = rf(c);
    const x = pf(c);
    return typeof s === "string" && typeof x === "string" ? test(s, x) : bail();
  };
}

/** `size(list)` (a JS array's length, as cel-js reads it); other calls stay interpreted. */
function call(n: CelNode, ext: ExtensionArgs): Closure {
  const a = argsOf(n);
  const params = a[1];
  if (a[0] !== "size" || !Array.isArray(params) || params.length !== 1) return unsupported();
  const p: unknown = params[0];
  if (!isCelNode(p) || !typeOf(p).startsWith("list<")) return unsupported();
  const f = compile(p, ext);
  return (c) => {
    const v = f(c);
    return Array.isArray(v) ? BigInt(v.length) : bail();
  };
}
