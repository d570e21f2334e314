/**
 * Constant folding of CEL conditions for the linter: does a condition hold (or fail) whatever the
 * task, and what is its canonical text (to spot duplicates written with other spacing)?
 *
 * This is a small recursive-descent reader of CEL's grammar, separate from the CEL layer on purpose:
 * the linter needs to know what a condition is *without any input*, which the evaluator cannot say
 * (it always has a subject). Anything that depends on a variable, a function or a message is "not
 * constant"; errors (1 / 0, overflow) are "not constant" too, and `||` / `&&` absorb them the way CEL
 * does, so `true || x` folds to true and `false && x` to false. It is conservative: when unsure it
 * answers "not constant", never a wrong constant. It never throws.
 */

/** A constant CEL value. Bytes and maps are never constants here: nothing the lint needs folds them. */
type Val =
  | { readonly t: "bool"; readonly v: boolean }
  | { readonly t: "int"; readonly v: bigint }
  | { readonly t: "uint"; readonly v: bigint }
  | { readonly t: "double"; readonly v: number }
  | { readonly t: "string"; readonly v: string }
  | { readonly t: "null" }
  | { readonly t: "list"; readonly v: readonly Val[] };

/** `undefined`: not a constant (depends on the input, or is an error). */
type Folded = Val | undefined;

type Tok =
  | { readonly t: "lit"; readonly text: string; readonly v: Folded }
  | { readonly t: "id"; readonly text: string }
  | { readonly t: "op"; readonly text: string };

const INT_MIN = -(2n ** 63n);
const INT_MAX = 2n ** 63n - 1n;
const UINT_MAX = 2n ** 64n - 1n;
/** Deeper nesting than this is not worth folding; the reader gives up instead of risking the stack. */
const MAX_NESTING = 128;

const OPS = ["||", "&&", "==", "!=", "<=", ">=", "<", ">", "!", "+", "-", "*", "/", "%", "?", ":", ".", "(", ")", "[", "]", "{", "}", ","];
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  "\\": "\\",
  '"': '"',
  "'": "'",
  "`": "`",
  "?": "?",
  n: "\n",
  r: "\r",
  t: "\t",
  a: "\u0007",
  b: "\b",
  f: "\f",
  v: "\v",
};

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";
const isIdStart = (c: string | undefined): boolean => c !== undefined && /[A-Za-z_]/.test(c);
const isIdPart = (c: string | undefined): boolean => c !== undefined && /[A-Za-z0-9_]/.test(c);

/** Splits a source into tokens, or `undefined` when it is not lexically CEL. */
function tokenize(src: string): Tok[] | undefined {
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f") {
      i++;
      continue;
    }
    if (src.startsWith("//", i)) {
      const nl = src.indexOf("\n", i);
      i = nl < 0 ? src.length : nl + 1;
      continue;
    }
    // String and bytes literals, with their r/b prefixes.
    const prefix = /^(?:[rR][bB]?|[bB][rR]?)?(?="|')/.exec(src.slice(i, i + 3));
    if (prefix) {
      const s = readString(src, i + prefix[0].length, /[rR]/.test(prefix[0]), /[bB]/.test(prefix[0]));
      if (!s) return undefined;
      out.push({ t: "lit", text: s.v === undefined ? src.slice(i, s.end) : JSON.stringify(s.v), v: s.v === undefined ? undefined : { t: "string", v: s.v } });
      i = s.end;
      continue;
    }
    if (isDigit(c) || (c === "." && isDigit(src[i + 1]))) {
      const n = readNumber(src, i);
      if (!n) return undefined;
      out.push({ t: "lit", text: src.slice(i, n.end), v: n.v });
      i = n.end;
      continue;
    }
    if (isIdStart(c)) {
      let j = i + 1;
      while (isIdPart(src[j])) j++;
      const word = src.slice(i, j);
      if (word === "true" || word === "false") out.push({ t: "lit", text: word, v: { t: "bool", v: word === "true" } });
      else if (word === "null") out.push({ t: "lit", text: word, v: { t: "null" } });
      else if (word === "in") out.push({ t: "op", text: word });
      else out.push({ t: "id", text: word });
      i = j;
      continue;
    }
    const op = OPS.find((o) => src.startsWith(o, i));
    if (op === undefined) return undefined;
    out.push({ t: "op", text: op });
    i += op.length;
  }
  return out;
}

/** Reads a quoted literal starting at its quote. A bytes literal reads but is not a constant. */
function readString(src: string, start: number, raw: boolean, bytes: boolean): { end: number; v: string | undefined } | undefined {
  const q1 = src[start];
  if (q1 === undefined) return undefined;
  const quote = src.startsWith(q1.repeat(3), start) ? q1.repeat(3) : q1;
  let i = start + quote.length;
  let v = "";
  while (i < src.length) {
    if (src.startsWith(quote, i)) return { end: i + quote.length, v: bytes ? undefined : v };
    const c = src[i] as string;
    if (c === "\\" && !raw) {
      const e = readEscape(src, i + 1);
      if (!e) return undefined;
      v += e.text;
      i = e.end;
      continue;
    }
    if (c === "\\" && raw && src[i + 1] === q1) {
      // A raw string still cannot hold its own quote unescaped; CEL keeps the backslash.
      v += src.slice(i, i + 2);
      i += 2;
      continue;
    }
    v += c;
    i++;
  }
  return undefined;
}

function readEscape(src: string, i: number): { text: string; end: number } | undefined {
  const c = src[i];
  if (c === undefined) return undefined;
  const simple = SIMPLE_ESCAPES[c];
  if (simple !== undefined) return { text: simple, end: i + 1 };
  const hex = (len: number): { text: string; end: number } | undefined => {
    const digits = src.slice(i + 1, i + 1 + len);
    if (digits.length !== len || !/^[0-9a-fA-F]+$/.test(digits)) return undefined;
    const cp = Number.parseInt(digits, 16);
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return undefined;
    return { text: String.fromCodePoint(cp), end: i + 1 + len };
  };
  if (c === "x" || c === "X") return hex(2);
  if (c === "u") return hex(4);
  if (c === "U") return hex(8);
  const oct = src.slice(i, i + 3);
  if (/^[0-3][0-7][0-7]$/.test(oct)) return { text: String.fromCodePoint(Number.parseInt(oct, 8)), end: i + 3 };
  return undefined;
}

function readNumber(src: string, i: number): { end: number; v: Folded } | undefined {
  const rest = src.slice(i);
  const hexM = /^0[xX]([0-9a-fA-F]+)([uU])?/.exec(rest);
  if (hexM) {
    const n = BigInt(`0x${hexM[1] ?? "0"}`);
    return { end: i + hexM[0].length, v: intLiteral(n, hexM[2] !== undefined) };
  }
  const m = /^(\d*)(\.\d+)?([eE][+-]?\d+)?([uU])?/.exec(rest);
  if (!m || m[0] === "") return undefined;
  const isDouble = m[2] !== undefined || m[3] !== undefined;
  if (isDouble) {
    if (m[4] !== undefined) return undefined;
    return { end: i + m[0].length, v: { t: "double", v: Number(m[0]) } };
  }
  return { end: i + m[0].length, v: intLiteral(BigInt(m[1] ?? "0"), m[4] !== undefined) };
}

function intLiteral(n: bigint, unsigned: boolean): Folded {
  if (unsigned) return n <= UINT_MAX ? { t: "uint", v: n } : undefined;
  // 9223372036854775808 is only legal negated; it folds to "not constant", which is safe.
  return n <= INT_MAX ? { t: "int", v: n } : undefined;
}

// ---------------------------------------------------------------------------------------------
// Folding

function bool(v: boolean): Val {
  return { t: "bool", v };
}

function int(t: "int" | "uint", v: bigint): Folded {
  if (t === "int") return v >= INT_MIN && v <= INT_MAX ? { t, v } : undefined;
  return v >= 0n && v <= UINT_MAX ? { t, v } : undefined;
}

const hasSurrogates = (s: string): boolean => /[\uD800-\uDFFF]/.test(s);

/** CEL equality of two constants; `undefined` when the types differ (the checker decides those). */
function equals(a: Val, b: Val): boolean | undefined {
  if (a.t !== b.t) return undefined;
  switch (a.t) {
    case "null":
      return true;
    case "list": {
      const bl = (b as typeof a).v;
      if (a.v.length !== bl.length) return false;
      let all: boolean | undefined = true;
      for (let k = 0; k < a.v.length; k++) {
        const e = equals(a.v[k] as Val, bl[k] as Val);
        if (e === false) return false;
        if (e === undefined) all = undefined;
      }
      return all;
    }
    default:
      return a.v === (b as typeof a).v;
  }
}

function compare(a: Val, b: Val): number | undefined {
  if (a.t !== b.t) return undefined;
  switch (a.t) {
    case "int":
    case "uint":
    case "double": {
      const bv = (b as typeof a).v;
      if (typeof a.v === "number" && (Number.isNaN(a.v) || Number.isNaN(bv as number))) return undefined;
      return a.v < bv ? -1 : a.v > bv ? 1 : 0;
    }
    case "string": {
      const bv = (b as typeof a).v;
      // UTF-16 order differs from CEL's code point order only around surrogates; stay out of it.
      if (hasSurrogates(a.v) || hasSurrogates(bv)) return undefined;
      return a.v < bv ? -1 : a.v > bv ? 1 : 0;
    }
    case "bool":
      return Number(a.v) - Number((b as typeof a).v);
    default:
      return undefined;
  }
}

function relation(op: string, a: Folded, b: Folded): Folded {
  if (!a || !b) return undefined;
  if (op === "in") {
    if (b.t !== "list") return undefined;
    let unsure = false;
    for (const e of b.v) {
      const eq = equals(a, e);
      if (eq === true) return bool(true);
      if (eq === undefined) unsure = true;
    }
    return unsure ? undefined : bool(false);
  }
  if (op === "==" || op === "!=") {
    const eq = equals(a, b);
    return eq === undefined ? undefined : bool(op === "==" ? eq : !eq);
  }
  const c = compare(a, b);
  if (c === undefined) return undefined;
  switch (op) {
    case "<":
      return bool(c < 0);
    case "<=":
      return bool(c <= 0);
    case ">":
      return bool(c > 0);
    case ">=":
      return bool(c >= 0);
    default:
      return undefined;
  }
}

function arithmetic(op: string, a: Folded, b: Folded): Folded {
  if (!a || !b || a.t !== b.t) return undefined;
  if (a.t === "int" || a.t === "uint") {
    const x = a.v;
    const y = (b as typeof a).v;
    switch (op) {
      case "+":
        return int(a.t, x + y);
      case "-":
        return int(a.t, x - y);
      case "*":
        return int(a.t, x * y);
      // BigInt division truncates toward zero and % takes the dividend's sign, as in CEL.
      case "/":
        return y === 0n ? undefined : int(a.t, x / y);
      case "%":
        return y === 0n ? undefined : int(a.t, x % y);
      default:
        return undefined;
    }
  }
  if (a.t === "double") {
    const y = (b as typeof a).v;
    switch (op) {
      case "+":
        return { t: "double", v: a.v + y };
      case "-":
        return { t: "double", v: a.v - y };
      case "*":
        return { t: "double", v: a.v * y };
      case "/":
        return { t: "double", v: a.v / y };
      default:
        return undefined;
    }
  }
  if (op === "+" && a.t === "string") return { t: "string", v: a.v + (b as typeof a).v };
  if (op === "+" && a.t === "list") return { t: "list", v: [...a.v, ...(b as typeof a).v] };
  return undefined;
}

/** Reads and folds one expression over a token list; `bad` is set when it is not CEL's grammar. */
class Folder {
  #pos = 0;
  #depth = 0;
  bad = false;

  constructor(private readonly toks: readonly Tok[]) {}

  get done(): boolean {
    return this.#pos >= this.toks.length;
  }

  #peek(text: string): boolean {
    const t = this.toks[this.#pos];
    return t !== undefined && t.t === "op" && t.text === text;
  }

  #accept(text: string): boolean {
    if (!this.#peek(text)) return false;
    this.#pos++;
    return true;
  }

  #expect(text: string): void {
    if (!this.#accept(text)) this.bad = true;
  }

  expr(): Folded {
    if (++this.#depth > MAX_NESTING) {
      this.bad = true;
      return undefined;
    }
    const c = this.#or();
    let result = c;
    if (!this.bad && this.#accept("?")) {
      const a = this.#or();
      this.#expect(":");
      const b = this.bad ? undefined : this.expr();
      result = c?.t === "bool" ? (c.v ? a : b) : undefined;
    }
    this.#depth--;
    return result;
  }

  #or(): Folded {
    let l = this.#and();
    while (!this.bad && this.#accept("||")) {
      const r = this.#and();
      // CEL's || is commutative over errors: one true side decides.
      if ((l?.t === "bool" && l.v) || (r?.t === "bool" && r.v)) l = bool(true);
      else l = l?.t === "bool" && r?.t === "bool" ? bool(false) : undefined;
    }
    return l;
  }

  #and(): Folded {
    let l = this.#relation();
    while (!this.bad && this.#accept("&&")) {
      const r = this.#relation();
      if ((l?.t === "bool" && !l.v) || (r?.t === "bool" && !r.v)) l = bool(false);
      else l = l?.t === "bool" && r?.t === "bool" ? bool(true) : undefined;
    }
    return l;
  }

  #relation(): Folded {
    let l = this.#additive();
    for (;;) {
      if (this.bad) return undefined;
      const op = ["==", "!=", "<=", ">=", "<", ">", "in"].find((o) => this.#peek(o));
      if (op === undefined) return l;
      this.#pos++;
      l = relation(op, l, this.#additive());
    }
  }

  #additive(): Folded {
    let l = this.#multiplicative();
    for (;;) {
      if (this.bad) return undefined;
      const op = this.#peek("+") ? "+" : this.#peek("-") ? "-" : undefined;
      if (op === undefined) return l;
      this.#pos++;
      l = arithmetic(op, l, this.#multiplicative());
    }
  }

  #multiplicative(): Folded {
    let l = this.#unary();
    for (;;) {
      if (this.bad) return undefined;
      const op = ["*", "/", "%"].find((o) => this.#peek(o));
      if (op === undefined) return l;
      this.#pos++;
      l = arithmetic(op, l, this.#unary());
    }
  }

  #unary(): Folded {
    let nots = 0;
    let negs = 0;
    if (this.#peek("!")) while (this.#accept("!")) nots++;
    else if (this.#peek("-")) while (this.#accept("-")) negs++;
    let v = this.#member();
    for (let k = 0; k < nots; k++) v = v?.t === "bool" ? bool(!v.v) : undefined;
    for (let k = 0; k < negs; k++) {
      if (v?.t === "int") v = int("int", -v.v);
      else if (v?.t === "double") v = { t: "double", v: -v.v };
      else v = undefined;
    }
    return v;
  }

  #member(): Folded {
    let v = this.#primary();
    for (;;) {
      if (this.bad) return undefined;
      if (this.#accept(".")) {
        if (this.toks[this.#pos]?.t !== "id") {
          this.bad = true;
          return undefined;
        }
        this.#pos++;
        if (this.#peek("(")) this.#args(")");
        else if (this.#peek("{")) this.#fields();
        v = undefined;
      } else if (this.#accept("[")) {
        const index = this.expr();
        this.#expect("]");
        v = v?.t === "list" && index?.t === "int" && index.v >= 0n && index.v < BigInt(v.v.length) ? v.v[Number(index.v)] : undefined;
      } else return v;
    }
  }

  #primary(): Folded {
    const t = this.toks[this.#pos];
    if (t === undefined) {
      this.bad = true;
      return undefined;
    }
    this.#pos++;
    if (t.t === "lit") return t.v;
    if (t.t === "id") {
      if (this.#peek("(")) this.#args(")");
      else if (this.#peek("{")) this.#fields();
      return undefined;
    }
    switch (t.text) {
      case ".": {
        if (this.toks[this.#pos]?.t !== "id") this.bad = true;
        else this.#pos++;
        return undefined;
      }
      case "(": {
        const v = this.expr();
        this.#expect(")");
        return v;
      }
      case "[": {
        this.#pos--;
        const items = this.#args("]");
        return items.every((e): e is Val => e !== undefined) ? { t: "list", v: items } : undefined;
      }
      case "{": {
        this.#pos--;
        this.#entries();
        return undefined;
      }
      default:
        this.bad = true;
        return undefined;
    }
  }

  /** `(a, b,)` or `[a, b,]`, starting at the opening token. */
  #args(close: ")" | "]"): Folded[] {
    this.#pos++;
    const items: Folded[] = [];
    while (!this.bad && !this.#peek(close)) {
      items.push(this.expr());
      if (!this.#accept(",")) break;
    }
    this.#expect(close);
    return items;
  }

  /** A map literal `{k: v, …}`, starting at `{`. */
  #entries(): void {
    this.#pos++;
    while (!this.bad && !this.#peek("}")) {
      this.expr();
      this.#expect(":");
      if (!this.bad) this.expr();
      if (!this.#accept(",")) break;
    }
    this.#expect("}");
  }

  /** A message literal's fields `{name: v, …}`, starting at `{`. */
  #fields(): void {
    this.#pos++;
    while (!this.bad && !this.#peek("}")) {
      if (this.toks[this.#pos]?.t !== "id") {
        this.bad = true;
        return;
      }
      this.#pos++;
      this.#expect(":");
      if (!this.bad) this.expr();
      if (!this.#accept(",")) break;
    }
    this.#expect("}");
  }
}

/**
 * The constant value of a condition: `true` or `false` when it holds (or fails) whatever the task,
 * `undefined` when it depends on the task, is an error, or is not CEL this reader follows.
 *
 * @example
 * ```ts
 * foldCondition("true"); // true
 * foldCondition("1 == 1"); // true
 * foldCondition("true || subject.department == 'IT'"); // true
 * foldCondition("subject.department == 'IT'"); // undefined
 * ```
 */
export function foldCondition(source: string): boolean | undefined {
  try {
    const toks = tokenize(source);
    if (!toks || toks.length === 0) return undefined;
    const f = new Folder(toks);
    const v = f.expr();
    if (f.bad || !f.done || v?.t !== "bool") return undefined;
    return v.v;
  } catch {
    // The reader is defensive already; a failure here means "not constant", never a lint crash.
    return undefined;
  }
}

/**
 * A condition's text with spacing, comments and quote style normalised, so two rules that say the
 * same thing differently compare equal. Falls back to the trimmed source when it does not tokenize.
 *
 * @example
 * ```ts
 * canonicalCondition("subject.department=='IT'") === canonicalCondition('subject.department == "IT"'); // true
 * ```
 */
export function canonicalCondition(source: string): string {
  try {
    const toks = tokenize(source);
    return toks ? toks.map((t) => t.text).join(" ") : source.trim();
  } catch {
    return source.trim();
  }
}

/**
 * The string literals passed to calls of `name` (`s.matches("…")`, `matches(s, "…")`), decoded, as
 * the reader above lexes CEL: comments skipped, quoted, triple-quoted and raw strings read as CEL
 * writes them. `undefined` when the source is not lexically CEL (it cannot compile, so nothing of
 * it is compiled either).
 *
 * @example
 * ```ts
 * callStringLiterals('subject.email.matches("^a") // matches("x")', "matches"); // ["^a"]
 * ```
 */
export function callStringLiterals(source: string, name: string): string[] | undefined {
  const toks = tokenize(source);
  if (!toks) return undefined;
  const out: string[] = [];
  // Per open parenthesis: whether it opened a call of `name`.
  const calls: boolean[] = [];
  toks.forEach((tok, k) => {
    const before = toks[k - 1];
    if (tok.t === "op" && tok.text === "(") calls.push(before?.t === "id" && before.text === name);
    else if (tok.t === "op" && tok.text === ")") calls.pop();
    else if (tok.t === "lit" && tok.v?.t === "string" && calls[calls.length - 1] === true && before?.t === "op" && (before.text === "(" || before.text === ","))
      out.push(tok.v.v);
  });
  return out;
}
