/**
 * CEL's value ranges, where cel-js leaves them unchecked. The CEL specification (and cel-go, the
 * service's evaluator) makes a value out of range an error, and the official conformance cases say
 * which: `int64_min_negate` (`-(-9223372036854775808)`), `int64_min_negate_div`
 * (`-9223372036854775808 / -1`), `conversions/int/double_range` (`int(1e99)`), the
 * `timestamp_range` and `duration_range` sections (a timestamp outside years 1–9999, a duration
 * beyond ±315,576,000,000 seconds, a timestamp difference beyond int64 nanoseconds). cel-js 8
 * checks `+`, `-` and `*` of ints and nothing else, so such a rule routed on a wrong value (hostile
 * review). After checking, each node that can leave a range — `/`, `%`, unary `-`, `+`, `-` and
 * the `int`, `duration` and `timestamp` conversions — gets its handler wrapped to refuse a result
 * outside it, with a `numeric_overflow` error at the node. Both evaluators call the node's handler
 * (cel-js and the closures), so both answer the same.
 */
import { type ErrorOptions, EvaluationError } from "@marcbachmann/cel-js";
import { type CelNode, syntacticChildren } from "./internals.js";

const MIN_INT = -(2n ** 63n);
const MAX_INT = 2n ** 63n - 1n;
/** google.protobuf.Duration's range: ±10,000 years, in seconds. */
const MAX_DURATION_SECONDS = 315_576_000_000n;
/** A difference of timestamps is a duration of int64 nanoseconds (cel-go): about ±292 years. */
const MAX_DIFFERENCE_SECONDS = 9_223_372_036n;
/** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z in milliseconds. */
const MIN_TIMESTAMP_MS = -62_135_596_800_000;
const MAX_TIMESTAMP_MS = 253_402_300_799_999;

const GUARDED_OPS = new Set(["/", "%", "-_", "+", "-"]);
const GUARDED_CALLS = new Set(["int", "duration", "timestamp"]);

type Handle = (a: unknown, b: unknown, c: unknown, d: unknown) => unknown;
/** The node an error is reported at: cel-js takes its own parsed nodes, which `CelNode` views. */
type ErrorOptionsNode = NonNullable<ErrorOptions["node"]>;

/** The seconds of a cel-js Duration (a BigInt), or undefined for any other value. */
function celDurationSeconds(v: unknown): bigint | undefined {
  if (typeof v !== "object" || v === null || v instanceof Date) return undefined;
  const s: unknown = (v as { readonly seconds?: unknown }).seconds;
  return typeof s === "bigint" && typeof (v as { readonly addDuration?: unknown }).addDuration === "function" ? s : undefined;
}

/**
 * Why `v`, the result of `n`, is out of CEL's range; undefined when it is in. `a` and `b` are the
 * handler's first arguments: the operands of a binary operator (only `%` and `-` look at them).
 */
function outOfRange(v: unknown, n: CelNode, a: unknown, b: unknown): string | undefined {
  if (typeof v === "bigint") {
    if (v > MAX_INT || v < MIN_INT) return `integer overflow: ${v.toString().length > 40 ? "beyond int64" : v}`;
    // int64's least value has no positive twin: its remainder by -1 overflows in cel-go too.
    if (n.op === "%" && a === MIN_INT && b === -1n) return "integer overflow: -9223372036854775808 % -1";
    // A double converts only strictly inside int64's range (conformance: int(-9223372036854775808.0) errs).
    if (v === MIN_INT && n.op === "call" && Array.isArray(a) && typeof a[0] === "number") return "integer overflow: the double is not strictly inside int64's range";
    return undefined;
  }
  if (v instanceof Date) {
    const ms = v.getTime();
    return ms >= MIN_TIMESTAMP_MS && ms <= MAX_TIMESTAMP_MS ? undefined : "timestamp out of range: outside years 1 to 9999";
  }
  const seconds = celDurationSeconds(v);
  if (seconds === undefined) return undefined;
  const abs = seconds < 0n ? -seconds : seconds;
  if (n.op === "-" && a instanceof Date && b instanceof Date && abs > MAX_DIFFERENCE_SECONDS) return "duration out of range: a difference of timestamps must fit in int64 nanoseconds";
  return abs > MAX_DURATION_SECONDS ? "duration out of range: beyond ±315576000000s" : undefined;
}

function guarded(n: CelNode, handle: Handle): Handle {
  return (a, b, c, d) => {
    const v = handle(a, b, c, d);
    const why = outOfRange(v, n, a, b);
    if (why !== undefined) throw new EvaluationError({ code: "numeric_overflow", message: why, node: n as unknown as ErrorOptionsNode });
    return v;
  };
}

function callName(n: CelNode): string | undefined {
  const a = n.args;
  return n.op === "call" && Array.isArray(a) && typeof a[0] === "string" ? a[0] : undefined;
}

/**
 * Wraps the handlers of `root`'s nodes that can leave CEL's ranges (see the module comment). Run
 * once on a checked expression, before it is compiled or evaluated.
 *
 * @example
 * ```ts
 * const checked = parsed.check();
 * if (checked.valid) guardRanges(parsed.ast as CelNode); // -(-9223372036854775808) now errs, as in cel-go
 * ```
 */
export function guardRanges(root: CelNode): void {
  const work: CelNode[] = [root];
  for (let n = work.pop(); n !== undefined; n = work.pop()) {
    for (const c of syntacticChildren(n)) work.push(c);
    const guardedOp = GUARDED_OPS.has(n.op);
    const name = guardedOp ? undefined : callName(n);
    if (!guardedOp && (name === undefined || !GUARDED_CALLS.has(name))) continue;
    const handle: unknown = (n as unknown as { readonly handle?: unknown }).handle;
    if (typeof handle !== "function") continue;
    (n as unknown as { handle: Handle }).handle = guarded(n, handle as Handle);
  }
}
