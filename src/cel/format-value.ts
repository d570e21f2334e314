/**
 * CEL values written the way an expression would write them, for explanations: `"Eng"`, `42`,
 * `5.0`, `UserStatus.ENABLED`, `timestamp("2026-11-22T09:00:00Z")`, `User("u-ada")`.
 */
import { Optional } from "@marcbachmann/cel-js";
import { Duration, UnsignedInt } from "@marcbachmann/cel-js/evaluator";
import { CelEnumValue } from "./enums.js";
import { CIDR, IPAddress } from "./net.js";
import { CelAccount, CelAccountStatus, CelEntitlement, CelGroup, CelTask, CelTaskAnalysis, CelUser } from "./values.js";

const MAX_ITEMS = 10;
const MAX_STRING = 200;

function quote(s: string): string {
  const shown = s.length > MAX_STRING ? `${s.slice(0, MAX_STRING)}…` : s;
  return JSON.stringify(shown);
}

function double(n: number): string {
  if (Number.isNaN(n)) return "double(\"NaN\")";
  if (!Number.isFinite(n)) return n > 0 ? "double(\"Infinity\")" : "double(\"-Infinity\")";
  const s = String(n);
  // A double that happens to be whole still reads as a double, so `5.0` is not mistaken for `5`.
  return /[.eE]/.test(s) ? s : `${s}.0`;
}

function items(values: readonly string[], open: string, close: string): string {
  const shown = values.slice(0, MAX_ITEMS);
  if (values.length > MAX_ITEMS) shown.push(`… ${values.length - MAX_ITEMS} more`);
  return `${open}${shown.join(", ")}${close}`;
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
  if (depth > 3) return "…";
  switch (typeof v) {
    case "string":
      return quote(v);
    case "bigint":
      return String(v);
    case "number":
      return double(v);
    case "boolean":
      return String(v);
    case "undefined":
      return "<absent>";
    case "function":
    case "symbol":
      return `<${typeof v}>`;
    case "object":
      break;
  }
  if (v === null) return "null";
  if (v instanceof CelEnumValue) return v.toString();
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? "timestamp(<invalid>)" : `timestamp(${JSON.stringify(v.toISOString().replace(".000Z", "Z"))})`;
  if (v instanceof Duration) return `duration(${JSON.stringify(v.toString())})`;
  if (v instanceof UnsignedInt) return `${v.toString()}u`;
  if (v instanceof CelUser) return `User(${JSON.stringify(v.id)}${v.email ? `, ${JSON.stringify(v.email)}` : ""})`;
  if (v instanceof CelGroup) return `Group(${JSON.stringify(v.id)})`;
  if (v instanceof CelTask) return `Task(${JSON.stringify(v.id)})`;
  if (v instanceof CelTaskAnalysis) return `TaskAnalysis(${JSON.stringify(v.id)})`;
  if (v instanceof CelEntitlement) return `Entitlement(${JSON.stringify(v.id)})`;
  if (v instanceof CelAccount) return `AppUser(${JSON.stringify(v.id)})`;
  if (v instanceof CelAccountStatus) return `AppUser.Status(${v.status.toString()})`;
  if (v instanceof IPAddress) return `ip(${JSON.stringify(v.toString())})`;
  if (v instanceof CIDR) return `cidr(${v.prefixes.map((p) => JSON.stringify(p.toString())).join(", ")})`;
  if (v instanceof Optional) return v.hasValue() ? `optional.of(${formatCelValue(v.value(), depth + 1)})` : "optional.none()";
  if (v instanceof Uint8Array) return `b${JSON.stringify(Array.from(v.subarray(0, MAX_STRING), (b) => String.fromCharCode(b)).join(""))}`;
  if (Array.isArray(v)) return items(v.map((x: unknown) => formatCelValue(x, depth + 1)), "[", "]");
  if (v instanceof Set) return items([...v].map((x: unknown) => formatCelValue(x, depth + 1)), "[", "]");
  if (v instanceof Map) return items([...v].map(([k, x]: [unknown, unknown]) => `${formatCelValue(k, depth + 1)}: ${formatCelValue(x, depth + 1)}`), "{", "}");
  const ctor: unknown = Object.getPrototypeOf(v)?.constructor;
  if (ctor === Object || ctor === undefined) {
    return items(Object.entries(v).map(([k, x]: [string, unknown]) => `${quote(k)}: ${formatCelValue(x, depth + 1)}`), "{", "}");
  }
  // Namespaces (`UserStatus`, `TimeFormat`) and types print as their names.
  const name = typeof ctor === "function" ? ctor.name : "";
  if (name === "Type" && "name" in v && typeof v.name === "string") return v.name;
  return name.replace(/\.Constants$/, "") || "<object>";
}
