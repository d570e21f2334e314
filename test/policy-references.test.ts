/**
 * Policies referencing policies (issue 11, point 9), against the sample tenant (fixtures/SAMPLE.md):
 * how deep a chain may go, the feature being on by default, and the chain snapshot a task takes.
 */
import { describe, expect, it } from "vitest";
import { loadWorld, reduce, saveWorld, type World } from "../src/index.js";
import type { Policy } from "../src/model/index.js";
import { chainSnapshot, MAX_CHAIN_DEPTH, selectSteps } from "../src/policy/select-steps.js";
import { taskConditions } from "../src/policy/task-conditions.js";
import type { AuditEvent } from "../src/workflow/events.js";
import { findTask, replaceInWorld } from "../src/world/world.js";
import { sampleJson, sampleWorld } from "./helpers.js";

const SUPER = "u-it-dir";
const T = "2026-11-22T10:00:00Z";

function step(world: World, action: Parameters<typeof reduce>[1]) {
  const r = reduce(world, action, { actorId: SUPER, now: T });
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
}

/** What the events of one action say matched in pol-security-review: a rule's condition, or its baseline. */
function matchedInReview(events: readonly AuditEvent[]): string {
  for (const e of events)
    if (e.kind === "conditionalPolicyExecutionResult" && e.policyId === "pol-security-review" && e.conditionMatched)
      return `${e.policyId}: ${e.defaultCondition ? "baseline" : e.condition}`;
  return "";
}

function policy(world: World, id: string): Policy {
  const p = world.index.policies.get(id);
  if (!p) throw new Error(`no policy ${id}`);
  return p;
}

/** p0 → p1 → … → p{n}, each referring to the next from its baseline; p{n} has a baseline entry. */
function chainWorld(n: number, flags: Record<string, boolean> = {}): World {
  const json = sampleJson();
  const policies = Array.from({ length: n + 1 }, (_, i) => ({
    id: `p${i}`,
    displayName: `p${i}`,
    policyType: "POLICY_TYPE_GRANT",
    rules: [],
    ...(i < n ? { baselinePolicyId: `p${i + 1}`, policySteps: {} } : { policySteps: { grant: { steps: [{ accept: { acceptMessage: `end of ${n}` } }] } } }),
  }));
  const loaded = loadWorld({ ...json, tenant: { ...(json["tenant"] as object), featureFlags: flags }, policies: [...(json["policies"] as object[]), ...policies] });
  if (!loaded.ok) throw new Error(loaded.error.map((d) => `${d.path}: ${d.message}`).join("; "));
  return loaded.value;
}

describe("product_admin_policies.mdx: you can chain up to five policies deep", () => {
  const task = () => {
    const t = findTask(sampleWorld(), "1001");
    if (!t) throw new Error("sample changed");
    return t;
  };

  it("counts the policies pointed to: the task's own policy and five more after it are followed", () => {
    expect(MAX_CHAIN_DEPTH).toBe(5);
    const w = chainWorld(5);
    const s = selectSteps(w, policy(w, "p0"), taskConditions(w, task()));
    expect(s.ok && s.value.chain.map((l) => l.policyId)).toEqual(["p0", "p1", "p2", "p3", "p4", "p5"]);
    expect(s.ok && s.value.decidedBy).toMatchObject({ kind: "baseline", policyId: "p5", chainDepth: 5 });
  });

  it("a sixth policy pointed to is CHAIN_TOO_DEEP, naming the chain", () => {
    const w = chainWorld(6);
    const s = selectSteps(w, policy(w, "p0"), taskConditions(w, task()));
    expect(!s.ok && s.error.code).toBe("CHAIN_TOO_DEEP");
    expect(!s.ok && s.error.message).toContain("p0 → p1 → p2 → p3 → p4 → p5 → p6");
  });
});

describe("release notes, 21 Aug 2026: policies referencing policies are generally available", () => {
  it("a tenant that does not set POLICY_REFERENCES_POLICY follows references", () => {
    const w = chainWorld(2, {});
    const s = selectSteps(w, policy(w, "p0"), taskConditions(w, findTask(w, "1001") ?? (null as never)));
    expect(s.ok && s.value.decidedBy.policyId).toBe("p2");
  });

  it("the flag set to false still turns them off", () => {
    const w = chainWorld(2, { POLICY_REFERENCES_POLICY: false });
    const s = selectSteps(w, policy(w, "p0"), taskConditions(w, findTask(w, "1001") ?? (null as never)));
    expect(!s.ok && s.error.code).toBe("REFERENCES_DISABLED");
  });
});

describe("product_admin_policies.mdx: the policy locks in when a task is created — C1 snapshots the full chain onto the task", () => {
  // 1003 carries pol-prod-admin, whose rule #3 refers to pol-prod-admin-eng, whose baseline defers to
  // pol-security-review; the subject's job title matches that policy's rule 0 (an engineer).
  it("a policy put on a task carries a snapshot of every policy its chain can reach", () => {
    const reset = step(sampleWorld(), { type: "hardReset", taskId: "1003" });
    const carried = findTask(reset.world, "1003")?.policy;
    expect(carried?.policy?.id).toBe("pol-prod-admin");
    const ids = (carried?.referencedPolicies ?? []).map((p) => p.id);
    expect(ids).toContain("pol-security-review");
    expect(ids).toEqual(chainSnapshot(reset.world, policy(reset.world, "pol-prod-admin")).map((p) => p.id));
    // The snapshot is the simulation's: a world file keeps it, a task view does not show it.
    const again = loadWorld(JSON.parse(JSON.stringify(saveWorld(reset.world))));
    expect(again.ok && findTask(again.value, "1003")?.policy?.referencedPolicies?.map((p) => p.id)).toEqual(ids);
    const view = reset.response as { taskView: { task: { policy: Record<string, unknown> } } };
    expect(view.taskView.task.policy).not.toHaveProperty("referencedPolicies");
  });

  it("Restart uses the snapshot; Hard Reset reads today's policies and takes a new snapshot", () => {
    const first = step(sampleWorld(), { type: "hardReset", taskId: "1003" });
    expect(matchedInReview(first.events)).toBe('pol-security-review: subject.job_title.contains("Engineer")');
    // The referenced policy is edited afterwards: its rules are removed, so only its baseline remains.
    const review = policy(first.world, "pol-security-review");
    const edited = replaceInWorld(first.world, { policies: [{ ...review, rules: [] }] });

    const restarted = step(edited, { type: "restart", taskId: "1003" });
    expect(matchedInReview(restarted.events)).toBe('pol-security-review: subject.job_title.contains("Engineer")');
    expect(findTask(restarted.world, "1003")?.policy?.referencedPolicies?.find((p) => p.id === "pol-security-review")?.rules).toHaveLength(2);

    const hard = step(restarted.world, { type: "hardReset", taskId: "1003" });
    expect(matchedInReview(hard.events)).toBe("pol-security-review: baseline");
    expect(findTask(hard.world, "1003")?.policy?.referencedPolicies?.find((p) => p.id === "pol-security-review")?.rules).toEqual([]);
  });

  it("a task from a world file without a snapshot restarts on the world's policies", () => {
    const world = sampleWorld();
    expect(findTask(world, "1003")?.policy?.referencedPolicies).toBeUndefined();
    const review = policy(world, "pol-security-review");
    const edited = replaceInWorld(world, { policies: [{ ...review, rules: [] }] });
    expect(matchedInReview(step(edited, { type: "restart", taskId: "1003" }).events)).toBe("pol-security-review: baseline");
  });
});
