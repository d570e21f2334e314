/**
 * Addresses and networks written as literals, checked when the expression is: `ip("300.1.2.3")` or
 * `cidr("10.0.0.0/33")` cannot succeed on any input, and a rule that fails on every task fails
 * quietly (its policy falls through to the next rule). cel-go's network extension and the
 * Kubernetes IP/CIDR library, which the environment follows, refuse such constants at compile time.
 */
import { diagnostic, type CelDiagnostic } from "./diagnostics.js";
import { isCelNode, type CelNode } from "./internals.js";
import { parseIp, parsePrefix } from "./net.js";

/** Sources that may hold one: the walk is skipped for the rest. */
const MAY_HOLD = /\b(?:ip|cidr|contains|containsIP|containsCIDR)\s*\(/;

type Kind = "ip" | "cidr";

/** What the string arguments of a call must parse as, or undefined when the call takes none to check. */
function expected(node: CelNode): { kind: Kind; args: readonly unknown[] } | undefined {
  const a = node.args;
  if (!Array.isArray(a) || typeof a[0] !== "string") return undefined;
  if (node.op === "call") {
    const args = Array.isArray(a[1]) ? (a[1] as unknown[]) : [];
    if (a[0] === "ip" && args.length === 1) return { kind: "ip", args };
    if (a[0] === "cidr") {
      const only = args[0];
      // `cidr(["10.0.0.0/8", …])`: the list's items.
      if (args.length === 1 && isCelNode(only) && only.op === "list" && Array.isArray(only.args)) return { kind: "cidr", args: only.args as unknown[] };
      return { kind: "cidr", args };
    }
    return undefined;
  }
  if (node.op === "rcall") {
    const receiver: unknown = a[1];
    if (!isCelNode(receiver) || receiver.checkedType?.name !== "net.CIDR") return undefined;
    const args = Array.isArray(a[2]) ? (a[2] as unknown[]) : [];
    if (a[0] === "contains" || a[0] === "containsIP") return { kind: "ip", args };
    if (a[0] === "containsCIDR") return { kind: "cidr", args };
  }
  return undefined;
}

/**
 * The first address or network literal that does not parse, as a type error at its place.
 *
 * @example
 * ```ts
 * invalidNetworkLiteral(root, 'ip.within(cidr("10.0.0.0/33"))');
 * // { code: "CEL_TYPE_ERROR", message: 'invalid CIDR "10.0.0.0/33": …', … }
 * ```
 */
export function invalidNetworkLiteral(root: CelNode, source: string): CelDiagnostic | undefined {
  if (!MAY_HOLD.test(source)) return undefined;
  const stack: CelNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as CelNode;
    const want = expected(node);
    if (want !== undefined) {
      for (const arg of want.args) {
        if (!isCelNode(arg) || arg.op !== "value" || typeof arg.args !== "string") continue;
        const text = arg.args;
        const fine = want.kind === "ip" ? parseIp(text) !== undefined : parsePrefix(text) !== undefined;
        if (!fine) {
          const what = want.kind === "ip" ? `invalid IP address ${JSON.stringify(text)}` : `invalid CIDR ${JSON.stringify(text)}`;
          const like = want.kind === "ip" ? '"10.1.2.3" or "2001:db8::1"' : '"10.0.0.0/8" or "2001:db8::/32"';
          return diagnostic(source, "CEL_TYPE_ERROR", `${what}: it can never parse, so the expression would fail on every input`, { start: arg.start, end: arg.end }, `write it like ${like}`);
        }
      }
    }
    if (node.op === "id" || node.op === "value") continue;
    const visit = (x: unknown): void => {
      if (isCelNode(x)) stack.push(x);
      else if (Array.isArray(x)) for (const y of x) visit(y);
    };
    visit(node.args);
  }
  return undefined;
}
