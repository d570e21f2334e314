/**
 * What a condition or approver expression can read beyond its own input, found on its AST: the
 * directory (`c1.directory.*`: any user, group, entitlement owner or member), grants and accounts
 * (`c1.user.v1.*`, keyed by the user handed in) and the clock (`now()`). Everything else an
 * expression sees is its input — `subject`, `task`, `entitlement`, `account`, `ip`, `appOwners` —
 * prepared per task. A static over-approximation: a call counts whether or not evaluation reaches it.
 * What-if uses it to tell which tasks a directory edit can reach.
 */
import { compiledOf, compileApproverExpression, compileCondition } from "./compile.js";
import { type CelNode, qualifiedName, syntacticChildren } from "./internals.js";

/**
 * The channels an expression reads through. An expression that does not compile reads nothing:
 * it fails before evaluating.
 *
 * @example
 * ```ts
 * const r: CelReads = { directory: true, grants: false, clock: false };
 * ```
 */
export interface CelReads {
  /** Calls a `c1.directory.*` function: may see any user (with its first manager's email), group or entitlement. */
  readonly directory: boolean;
  /** Calls a `c1.user.v1.*` function: reads grants and accounts. */
  readonly grants: boolean;
  /** Calls `now()`. */
  readonly clock: boolean;
}

const NOTHING: CelReads = Object.freeze({ directory: false, grants: false, clock: false });

function readsOf(root: CelNode): CelReads {
  let directory = false;
  let grants = false;
  let clock = false;
  const stack: CelNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!node) break;
    const a = node.args;
    if (node.op === "call" && Array.isArray(a) && a[0] === "now") clock = true;
    if (node.op === "rcall" && Array.isArray(a) && typeof a[0] === "string") {
      const receiver = syntacticChildren(node)[0];
      const q = receiver ? qualifiedName(receiver) : undefined;
      if (q !== undefined && (q === "c1" || q.startsWith("c1."))) {
        // Any other c1 namespace is the directory too: an unknown one would not compile, a new one must be classified here.
        if (q.startsWith("c1.user.")) grants = true;
        else directory = true;
      }
    }
    for (const c of syntacticChildren(node)) stack.push(c);
  }
  return directory || grants || clock ? Object.freeze({ directory, grants, clock }) : NOTHING;
}

const conditionMemo = new Map<string, CelReads>();
const approverMemo = new Map<string, CelReads>();
const MEMO_MAX = 10_000;

function memoised(memo: Map<string, CelReads>, source: string, compute: () => CelReads): CelReads {
  let r = memo.get(source);
  if (r === undefined) {
    r = compute();
    if (memo.size >= MEMO_MAX) memo.clear();
    memo.set(source, r);
  }
  return r;
}

/**
 * What a rule condition reads beyond its input, once per source text.
 *
 * @example
 * ```ts
 * conditionReads('c1.directory.users.v1.FindByEmail("a@b.c").department == "IT"').directory; // true
 * conditionReads('subject.department == "IT"'); // { directory: false, grants: false, clock: false }
 * ```
 */
export function conditionReads(source: string): CelReads {
  return memoised(conditionMemo, source, () => {
    const c = compileCondition(source);
    return c.ok ? readsOf(compiledOf(c.value).root) : NOTHING;
  });
}

/**
 * What an approver expression reads beyond its input (`subject`, `appOwners`, `entitlement`, `task`).
 *
 * @example
 * ```ts
 * approverExpressionReads("c1.directory.users.v1.GetManagers(subject)").directory; // true
 * approverExpressionReads("appOwners").directory; // false
 * ```
 */
export function approverExpressionReads(source: string): CelReads {
  return memoised(approverMemo, source, () => {
    const c = compileApproverExpression(source);
    return c.ok ? readsOf(compiledOf(c.value).root) : NOTHING;
  });
}
