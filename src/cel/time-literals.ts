/**
 * Time units and zones written as literals, checked when the expression is checked (`check`, lint,
 * `validate/cel`): `time.start_of(now(), "fortnight")` or `time.format(now(), "15", "Mars/Olympus")`
 * fails every time it is reached, whatever the input, and a rule that fails on every task fails
 * quietly (its policy falls through to the next rule). Unlike an address that can never parse
 * (network-literals.ts, refused at compile time as cel-go refuses it), the expression still
 * compiles and runs: `a || time.start_of(now(), "fortnight") < now()` holds whenever `a` does.
 */
import { diagnostic, type CelDiagnostic } from "./diagnostics.js";
import type { ExtensionArgs } from "./extensions.js";
import { isCelNode, qualifiedName, type CelNode } from "./internals.js";
import { timeUnit, ZoneCache } from "./time.js";
import { closest } from "../text/closest.js";

/** Sources that may hold one: the walk is skipped for the rest. */
const MAY_HOLD = /\btime\s*\.|\.\s*get[A-Z]\w*\s*\(/;

/** Per namespaced time function: the index of its unit argument, and of its zone argument. */
const TIME_FUNCTIONS: Readonly<Record<string, { readonly unit?: number; readonly zone: number }>> = {
  "time.start_of": { unit: 1, zone: 2 },
  "time.truncate": { unit: 1, zone: 2 },
  "time.end_of": { unit: 1, zone: 2 },
  "time.format": { zone: 2 },
  "time.parse": { zone: 2 },
};

/** CEL's timestamp accessors, whose one argument is a zone (`ts.getHours("Europe/Paris")`). */
const ACCESSORS = new Set([
  "getFullYear",
  "getMonth",
  "getDate",
  "getDayOfMonth",
  "getDayOfWeek",
  "getDayOfYear",
  "getHours",
  "getMinutes",
  "getSeconds",
  "getMilliseconds",
]);

const literal = (x: unknown): (CelNode & { args: string }) | undefined =>
  isCelNode(x) && x.op === "value" && typeof x.args === "string" ? (x as CelNode & { args: string }) : undefined;

/**
 * The first time unit or zone literal that no input can make valid, at its place (`CEL_INVALID_CONSTANT`:
 * a warning in lint, as whether the service's save check refuses it is not documented).
 *
 * @example
 * ```ts
 * invalidTimeLiteral(root, 'time.start_of(now(), "fortnight") < now()', extensionArgs);
 * // { code: "CEL_INVALID_CONSTANT", message: 'unknown time unit "fortnight": …', … }
 * ```
 */
export function invalidTimeLiteral(root: CelNode, source: string, extensionArgs: ExtensionArgs): CelDiagnostic | undefined {
  if (!MAY_HOLD.test(source)) return undefined;
  const zones = new ZoneCache();
  const stack: CelNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as CelNode;
    const a = node.args;
    if (node.op === "rcall" && Array.isArray(a) && typeof a[0] === "string") {
      const receiver: unknown = a[1];
      const ownArgs = Array.isArray(a[2]) ? (a[2] as unknown[]) : [];
      const fn = isCelNode(receiver) ? TIME_FUNCTIONS[`${qualifiedName(receiver) ?? ""}.${a[0]}`] : undefined;
      const args: readonly unknown[] = fn ? (extensionArgs.get(node) ?? ownArgs) : ownArgs;
      const unit = fn?.unit === undefined ? undefined : literal(args[fn.unit]);
      if (unit && timeUnit(unit.args) === undefined)
        return bad(source, unit, `unknown time unit ${JSON.stringify(unit.args)}`, "use minute, hour, day, week, month, quarter or year");
      const zone = fn ? literal(args[fn.zone]) : ACCESSORS.has(a[0]) && args.length === 1 ? literal(args[0]) : undefined;
      if (zone && !zones.get(zone.args).ok) {
        const guess = closest(zone.args, knownZones());
        return bad(source, zone, `unknown time zone ${JSON.stringify(zone.args)}`, guess ? `did you mean "${guess}"?` : 'use an IANA name such as "America/New_York", "UTC", or an offset such as "+05:30"');
      }
    }
    if (node.op === "id" || node.op === "value") continue;
    const visit = (x: unknown): void => {
      if (isCelNode(x)) stack.push(x);
      else if (Array.isArray(x)) for (const y of x) visit(y);
    };
    visit(a);
    const ext = extensionArgs.get(node);
    if (ext) visit(ext);
  }
  return undefined;
}

/** The IANA zone names this runtime knows (for a guess at a misspelt one; only on the way to an error). */
function knownZones(): readonly string[] {
  try {
    return Intl.supportedValuesOf("timeZone");
  } catch {
    return [];
  }
}

function bad(source: string, at: CelNode, what: string, hint: string): CelDiagnostic {
  return diagnostic(source, "CEL_INVALID_CONSTANT", `${what}: it can never be valid, so this call fails every time it is reached`, { start: at.start, end: at.end }, hint);
}
