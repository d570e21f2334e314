/**
 * CEL values written the way an expression would write them, for explanations: `"Eng"`, `42`,
 * `5.0`, `UserStatus.ENABLED`, `timestamp("2026-11-22T09:00:00Z")`, `User("u-ada")`.
 */
import { Optional } from "@marcbachmann/cel-js";
import { Duration, UnsignedInt } from "@marcbachmann/cel-js/evaluator";
import { CelEnumValue } from "./enums.js";
import { CIDR, IPAddress } from "./net.js";
import {
  CelAccount,
  CelAccountStatus,
  CelEntitlement,
  CelEntitlementResource,
  CelGroup,
  CelRiskScore,
  CelSecurityInsight,
  CelTask,
  CelTaskAnalysis,
  CelUser,
} from "./values.js";

const MAX_ITEMS = 10;
const MAX_STRING = 200;

function quote(s: string): string {
  const shown = s.length > MAX_STRING ? `${s.slice(0, MAX_STRING)}…` : s;
  return JSON.stringify(shown);
}

/**
 * Quoted short strings. Traces show the same few strings over and over (the literals of the
 * conditions, a world's departments and ids); a lookup by the string, whose hash V8 keeps, costs a
 * third of `JSON.stringify`. Keyed by the text itself and bounded: it cannot change a display.
 */
const quotes = new Map<string, string>();
const QUOTES_MAX = 4096;
const QUOTE_KEY_MAX = 64;

function quoteCached(s: string): string {
  if (s.length > QUOTE_KEY_MAX) return quote(s);
  let q = quotes.get(s);
  if (q === undefined) {
    q = quote(s);
    if (quotes.size >= QUOTES_MAX) quotes.clear();
    quotes.set(s, q);
  }
  return q;
}

function double(n: number): string {
  if (Number.isNaN(n)) return "double(\"NaN\")";
  if (!Number.isFinite(n)) return n > 0 ? "double(\"Infinity\")" : "double(\"-Infinity\")";
  const s = String(n);
  // A double that happens to be whole still reads as a double, so `5.0` is not mistaken for `5`.
  return /[.eE]/.test(s) ? s : `${s}.0`;
}

function items(values: readonly string[], total: number, open: string, close: string): string {
  let out = open;
  for (let i = 0; i < values.length; i++) out += `${i === 0 ? "" : ", "}${values[i] ?? ""}`;
  if (total > MAX_ITEMS) out += `${values.length > 0 ? ", " : ""}… ${total - MAX_ITEMS} more`;
  return out + close;
}

/**
 * Displays of values that cannot change, by identity: a world's users, entitlements and accounts
 * and its JSON objects (`subject.profile`) come back in trace after trace, and writing a map or a
 * user out costs far more than the lookup. Only frozen objects whose display reads nothing that can
 * change are kept (see {@link Formatting.cacheable}); the WeakMap lets them go with their world.
 */
const displays = new WeakMap<object, string>();

/** One top-level display: whether everything it read is frozen data, so the result can be kept. */
class Formatting {
  cacheable = true;

  value(v: unknown, depth: number): string {
    if (depth > 3) return "…";
    if (typeof v !== "object" || v === null) return primitive(v);
    // Only displays written at depth 0 are kept and reused: deeper ones may be cut short with "…".
    if (depth === 0) {
      const known = displays.get(v);
      if (known !== undefined) return known;
    }
    const cacheableBefore = this.cacheable;
    this.cacheable = Object.isFrozen(v);
    const text = this.object(v, depth);
    if (this.cacheable && depth === 0) displays.set(v, text);
    this.cacheable &&= cacheableBefore;
    return text;
  }

  object(v: object, depth: number): string {
    // Lists and JSON maps first: they are the commonest objects, and none of the classes below.
    // Only the items shown are written (loops, not closures: this runs for every trace node).
    if (Array.isArray(v)) {
      const shown: string[] = [];
      const n = Math.min(v.length, MAX_ITEMS);
      for (let i = 0; i < n; i++) {
        // A hole reads as nothing, as `map` + `join` wrote it; an accessor could change: not kept.
        if (this.cacheable && !isData(v, i)) this.cacheable = false;
        shown.push(i in v ? this.value(v[i], depth + 1) : "");
      }
      return items(shown, v.length, "[", "]");
    }
    const proto: unknown = Object.getPrototypeOf(v);
    if (proto === Object.prototype || proto === null) return this.map(v, depth);
    if (v instanceof CelUser) return `User(${JSON.stringify(v.id)}${v.email ? `, ${JSON.stringify(v.email)}` : ""})`;
    if (v instanceof CelEnumValue) return v.toString();
    if (v instanceof CelEntitlement) return `Entitlement(${JSON.stringify(v.id)})`;
    if (v instanceof CelAccount) return `AppUser(${JSON.stringify(v.id)})`;
    if (v instanceof CelGroup) return `Group(${JSON.stringify(v.id)})`;
    if (v instanceof CelTask) return `Task(${JSON.stringify(v.id)})`;
    if (v instanceof CelTaskAnalysis) return `TaskAnalysis(${JSON.stringify(v.id)})`;
    if (v instanceof CelEntitlementResource) return `EntitlementResource(${JSON.stringify(v.id)})`;
    if (v instanceof CelRiskScore) return `RiskScore(${JSON.stringify(v.source)}, ${v.normalizedScore.toString()})`;
    if (v instanceof CelSecurityInsight) return `SecurityInsight(${JSON.stringify(v.source)}, ${JSON.stringify(v.severity)}, ${JSON.stringify(v.value)})`;
    if (v instanceof CelAccountStatus) {
      this.cacheable &&= Object.isFrozen(v.status);
      return `AppUser.Status(${v.status.toString()})`;
    }
    // The rest can change even when frozen (a Date's time, an address's bytes) or are not worth keeping.
    this.cacheable = false;
    if (v instanceof Date) return Number.isNaN(v.getTime()) ? "timestamp(<invalid>)" : `timestamp(${JSON.stringify(v.toISOString().replace(".000Z", "Z"))})`;
    if (v instanceof Duration) return `duration(${JSON.stringify(v.toString())})`;
    if (v instanceof UnsignedInt) return `${v.toString()}u`;
    if (v instanceof IPAddress) return `ip(${JSON.stringify(v.toString())})`;
    if (v instanceof CIDR) return `cidr(${v.prefixes.map((p) => JSON.stringify(p.toString())).join(", ")})`;
    if (v instanceof Optional) return v.hasValue() ? `optional.of(${this.value(v.value(), depth + 1)})` : "optional.none()";
    if (v instanceof Uint8Array) return `b${JSON.stringify(Array.from(v.subarray(0, MAX_STRING), (b) => String.fromCharCode(b)).join(""))}`;
    if (v instanceof Set) {
      const shown: string[] = [];
      for (const x of v) {
        if (shown.length === MAX_ITEMS) break;
        shown.push(this.value(x, depth + 1));
      }
      return items(shown, v.size, "[", "]");
    }
    if (v instanceof Map) {
      const shown: string[] = [];
      for (const [k, x] of v) {
        if (shown.length === MAX_ITEMS) break;
        shown.push(`${this.value(k, depth + 1)}: ${this.value(x, depth + 1)}`);
      }
      return items(shown, v.size, "{", "}");
    }
    const ctor: unknown = Object.getPrototypeOf(v)?.constructor;
    // An object whose prototype chain leads to Object (or to nothing) is a map too.
    if (ctor === Object || ctor === undefined) return this.map(v, depth);
    // Namespaces (`UserStatus`, `TimeFormat`) and types print as their names.
    const name = typeof ctor === "function" ? ctor.name : "";
    if (name === "Type" && "name" in v && typeof v.name === "string") return v.name;
    return name.replace(/\.Constants$/, "") || "<object>";
  }

  /** A plain object, as a CEL map. */
  map(v: object, depth: number): string {
    const keys = Object.keys(v);
    const shown: string[] = [];
    const n = Math.min(keys.length, MAX_ITEMS);
    const record = v as Record<string, unknown>;
    for (let i = 0; i < n; i++) {
      const k = keys[i] as string;
      if (this.cacheable && !isData(v, k)) this.cacheable = false;
      shown.push(`${quoteCached(k)}: ${this.value(record[k], depth + 1)}`);
    }
    return items(shown, keys.length, "{", "}");
  }
}

/** Whether `key` is a plain data property (a getter could answer differently next time). */
function isData(o: object, key: string | number): boolean {
  const d = Object.getOwnPropertyDescriptor(o, key);
  return d === undefined || "value" in d;
}

/**
 * Writes a CEL value as CEL source, shortened for display (long strings and lists are cut).
 *
 * @example
 * ```ts
 * formatCelValue(5); // "5.0"
 * formatCelValue(5n); // "5"
 * formatCelValue(["a", "b"]); // '["a", "b"]'
 * ```
 */
export function formatCelValue(v: unknown, depth = 0): string {
  // Primitives need no bookkeeping; objects go through one Formatting.
  if (depth > 3) return "…";
  if (typeof v !== "object" || v === null) return primitive(v);
  return new Formatting().value(v, depth);
}

function primitive(v: unknown): string {
  switch (typeof v) {
    case "string":
      return quoteCached(v);
    case "bigint":
      return String(v);
    case "number":
      return double(v);
    case "boolean":
      return v ? "true" : "false";
    case "undefined":
      return "<absent>";
    case "function":
    case "symbol":
      return `<${typeof v}>`;
    default:
      return "null";
  }
}
