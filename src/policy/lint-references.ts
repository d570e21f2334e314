/**
 * Lint of policy references (rule `policyId`, `baselinePolicyId`; docs/domain.md §2): self-reference,
 * dangling ids, references across policy types, cycles and chains deeper than {@link MAX_CHAIN_DEPTH},
 * and references while the tenant flag is off.
 *
 * Unlike rule selection, which follows the one path a task takes, the lint follows *every*
 * reference transitively: the service refuses to save a policy if any chain it can reach breaks the
 * rules. The linted policy replaces the world's policy of the same id, so a draft is checked as if
 * it were saved.
 */
import { type Policy, ruleOutcome } from "../model/index.js";
import type { World } from "../world/world.js";
import { type Finding, finding } from "./lint-finding.js";
import { MAX_CHAIN_DEPTH, POLICY_REFERENCES_FLAG, policyReferencesEnabled } from "./select-steps.js";

/**
 * One reference a policy makes, with the JSONPath of the field that makes it.
 *
 * @example
 * ```ts
 * const r: PolicyReference = { targetId: "pol-prod", path: "$.rules[2].policyId", via: "rule" };
 * ```
 */
export interface PolicyReference {
  readonly targetId: string;
  readonly path: string;
  readonly via: "rule" | "baseline";
}

/**
 * The references a policy makes, in document order: each rule whose outcome is a `policyId`, then
 * `baselinePolicyId`.
 *
 * @example
 * ```ts
 * referencesOf(policy); // [{ targetId: "pol-b", path: "$.rules[0].policyId", via: "rule" }]
 * ```
 */
export function referencesOf(policy: Policy): PolicyReference[] {
  const refs: PolicyReference[] = [];
  (policy.rules ?? []).forEach((rule, i) => {
    const o = ruleOutcome(rule);
    if (o.kind === "policyId") refs.push({ targetId: o.policyId, path: `$.rules[${i}].policyId`, via: "rule" });
  });
  if (policy.baselinePolicyId !== "") refs.push({ targetId: policy.baselinePolicyId, path: "$.baselinePolicyId", via: "baseline" });
  return refs;
}

const arrow = (ids: readonly string[]): string => ids.map((id) => JSON.stringify(id)).join(" → ");

/**
 * Checks the references of `root`. Without a world only self-references can be checked; every
 * other reference gets a REFERENCES_UNCHECKED warning so the author knows it was not verified.
 *
 * @example
 * ```ts
 * checkReferences(policy, world).map((p) => p.code); // ["REFERENCE_CYCLE"]
 * ```
 */
export function checkReferences(root: Policy, world: World | undefined): Finding[] {
  const out: Finding[] = [];
  const refs = referencesOf(root);
  const isSelf = (r: PolicyReference): boolean => root.id !== "" && r.targetId === root.id;
  for (const r of refs) {
    if (isSelf(r))
      out.push(finding("SELF_REFERENCE", r.path, `${r.via === "rule" ? "this rule's policyId" : "baselinePolicyId"} names the policy itself ("${root.id}"); a policy cannot refer to itself`));
  }
  if (!world) {
    for (const r of refs)
      if (!isSelf(r))
        out.push(finding("REFERENCES_UNCHECKED", r.path, `cannot check that policy "${r.targetId}" exists, has the same type, and forms no cycle or over-deep chain without a world; lint with a world to check it`));
    return out;
  }
  if (refs.length > 0 && !policyReferencesEnabled(world.tenant)) {
    for (const r of refs)
      out.push(finding("REFERENCES_DISABLED", r.path, `the tenant turned policy references off (flag ${POLICY_REFERENCES_FLAG} is false), so this reference to "${r.targetId}" is not followed; remove the flag or select a step key instead`));
  }

  const lookup = (id: string): Policy | undefined => (id === root.id ? root : world.index.policies.get(id));
  const graph = buildGraph(root, lookup);

  for (const r of refs) {
    if (isSelf(r)) continue;
    const target = lookup(r.targetId);
    if (!target) {
      out.push(finding(r.via === "rule" ? "DANGLING_POLICY_ID" : "DANGLING_BASELINE_POLICY_ID", r.path, `${r.via === "rule" ? "policyId" : "baselinePolicyId"} names policy "${r.targetId}", which is not in the world; create it or point to an existing ${root.policyType} policy`));
      continue;
    }
    if (target.policyType !== root.policyType) {
      out.push(finding("CROSS_TYPE_REFERENCE", r.path, `policy "${r.targetId}" is a ${target.policyType} policy but this one is ${root.policyType}; references must stay within one policy type`));
    }
    const cycle = graph.cycleThrough(root.id, r.targetId);
    if (cycle) {
      out.push(finding("REFERENCE_CYCLE", r.path, `this reference closes a cycle: ${arrow(cycle)}; break it by removing one of these references`));
      continue;
    }
    const reached = graph.cycleReachableFrom(r.targetId);
    if (reached) {
      out.push(finding("REFERENCE_CYCLE", r.path, `following "${r.targetId}" reaches a reference cycle: ${arrow(reached)}; the chain from this policy never ends`));
      continue;
    }
    const chain = [root.id, ...graph.longestChain(r.targetId)];
    const depth = chain.length - 1;
    if (depth > MAX_CHAIN_DEPTH) {
      out.push(finding("CHAIN_TOO_DEEP", r.path, `the reference chain ${arrow(chain)} is ${depth} deep (this policy is depth 0); at most ${MAX_CHAIN_DEPTH} is allowed`));
    }
  }
  return out;
}

interface Graph {
  /** A cycle root → target → … → root, when `target` leads back to `rootId`. */
  cycleThrough(rootId: string, targetId: string): string[] | undefined;
  /** Some cycle reachable from `id` that does not pass through the root. */
  cycleReachableFrom(id: string): string[] | undefined;
  /** The longest chain of ids starting at `id` (acyclic part of the graph only). */
  longestChain(id: string): string[];
}

/**
 * The reference graph reachable from the root, with its strongly connected components (Tarjan,
 * iterative so a long chain in a large world cannot overflow the stack). Components come out sinks
 * first, so "reaches a cycle" and "longest chain" are one pass each.
 */
function buildGraph(root: Policy, lookup: (id: string) => Policy | undefined): Graph {
  const edges = new Map<string, string[]>();
  const queue = [root.id];
  const queued = new Set(queue);
  for (let q = 0; q < queue.length; q++) {
    const id = queue[q] as string;
    const p = lookup(id);
    // Missing targets are leaves: the dangling check reports them, the graph only needs real policies.
    const targets = p ? [...new Set(referencesOf(p).map((r) => r.targetId))].filter((t) => lookup(t) !== undefined) : [];
    edges.set(id, targets);
    for (const t of targets) {
      if (queued.has(t)) continue;
      queued.add(t);
      queue.push(t);
    }
  }
  const succ = (id: string): readonly string[] => edges.get(id) ?? [];

  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const comp = new Map<string, number>();
  const comps: string[][] = [];
  let counter = 0;
  for (const start of edges.keys()) {
    if (index.has(start)) continue;
    const work: { id: string; next: number }[] = [{ id: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const top = work[work.length - 1] as { id: string; next: number };
      const out = succ(top.id);
      if (top.next < out.length) {
        const w = out[top.next++] as string;
        if (!index.has(w)) {
          index.set(w, counter);
          low.set(w, counter++);
          stack.push(w);
          onStack.add(w);
          work.push({ id: w, next: 0 });
        } else if (onStack.has(w)) low.set(top.id, Math.min(low.get(top.id) ?? 0, index.get(w) ?? 0));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.id, Math.min(low.get(parent.id) ?? 0, low.get(top.id) ?? 0));
      if (low.get(top.id) === index.get(top.id)) {
        const members: string[] = [];
        for (;;) {
          const m = stack.pop() as string;
          onStack.delete(m);
          comp.set(m, comps.length);
          members.push(m);
          if (m === top.id) break;
        }
        comps.push(members);
      }
    }
  }

  const cyclic = comps.map((members) => members.length > 1 || succ(members[0] as string).includes(members[0] as string));
  // Sinks first: a component's successors are always already decided.
  const reachesCycle: boolean[] = [];
  const height = new Map<string, number>();
  const bestNext = new Map<string, string>();
  comps.forEach((members, c) => {
    reachesCycle[c] = cyclic[c] === true || members.some((m) => succ(m).some((t) => comp.get(t) !== c && reachesCycle[comp.get(t) ?? -1] === true));
    if (members.length === 1 && !cyclic[c]) {
      const m = members[0] as string;
      let h = 0;
      for (const t of succ(m)) {
        const ht = 1 + (height.get(t) ?? 0);
        if (ht > h) {
          h = ht;
          bestNext.set(m, t);
        }
      }
      height.set(m, h);
    }
  });

  /** Shortest path from `from` to `to` inside one component (BFS), as ids including both ends. */
  const pathWithin = (from: string, to: string): string[] | undefined => {
    const c = comp.get(from);
    const prev = new Map<string, string>([[from, from]]);
    const q = [from];
    for (let k = 0; k < q.length; k++) {
      const id = q[k] as string;
      if (id === to) {
        const path = [to];
        for (let cur = to; cur !== from; ) {
          cur = prev.get(cur) as string;
          path.unshift(cur);
        }
        return path;
      }
      for (const t of succ(id)) {
        if (comp.get(t) !== c || prev.has(t)) continue;
        prev.set(t, id);
        q.push(t);
      }
    }
    return undefined;
  };

  /** A cycle inside a cyclic component, starting and ending at `at`. */
  const cycleAt = (at: string): string[] => {
    if (succ(at).includes(at)) return [at, at];
    for (const t of succ(at)) {
      if (comp.get(t) !== comp.get(at)) continue;
      const back = pathWithin(t, at);
      if (back) return [at, ...back];
    }
    return [at, at];
  };

  return {
    cycleThrough(rootId, targetId) {
      if (targetId === rootId || comp.get(targetId) !== comp.get(rootId)) return undefined;
      const back = pathWithin(targetId, rootId);
      return back ? [rootId, ...back] : undefined;
    },
    cycleReachableFrom(id) {
      const c = comp.get(id);
      if (c === undefined || reachesCycle[c] !== true) return undefined;
      // Walk down to the first cyclic component; every step stays on a path that reaches a cycle.
      let cur = id;
      for (let guard = 0; guard <= edges.size; guard++) {
        const cc = comp.get(cur) ?? -1;
        if (cyclic[cc] === true) return cycleAt(cur);
        const next = succ(cur).find((t) => reachesCycle[comp.get(t) ?? -1] === true);
        if (next === undefined) return undefined;
        cur = next;
      }
      return undefined;
    },
    longestChain(id) {
      const chain = [id];
      for (let cur = bestNext.get(id); cur !== undefined && chain.length <= edges.size; cur = bestNext.get(cur)) chain.push(cur);
      return chain;
    },
  };
}
