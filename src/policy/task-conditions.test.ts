import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Rule } from "../model/index.js";
import { loadWorld } from "../world/load-world.js";
import type { World } from "../world/world.js";
import { decide } from "./decide.js";
import { taskConditions } from "./task-conditions.js";

function sample(): World {
  const r = loadWorld(JSON.parse(readFileSync(new URL("../../fixtures/world.json", import.meta.url), "utf8")));
  if (!r.ok) throw new Error(JSON.stringify(r.error.slice(0, 3)));
  return r.value;
}

const world = sample();
const isFalse = (r: { ok: boolean; value?: boolean } | undefined): boolean => r?.ok === true && r.value === false;
const tasks = [...world.tasks.values()];
const policies = [...world.index.policies.values()].filter((p) => (p.rules?.length ?? 0) > 0);

describe("taskConditions: runRule", () => {
  it("gives what run gives for the rule's condition, for every rule of every policy and task", () => {
    expect(policies.length).toBeGreaterThan(3);
    for (const task of tasks) {
      const byRule = taskConditions(world, task);
      const byText = taskConditions(world, task);
      for (const p of policies) {
        const rules = p.rules ?? [];
        // Twice: the second pass reads the compiled list the first one filled.
        for (let pass = 0; pass < 2; pass++)
          for (let i = 0; i < rules.length; i++) expect(byRule.runRule(rules, i)).toEqual(byText.run((rules[i] as Rule).condition));
      }
    }
  });

  it("passOver passes over only rules run answers false for, from `from` on, for every start, policy and task", () => {
    let stops = 0;
    let exact = 0;
    let early = 0;
    for (const task of tasks) {
      const byText = taskConditions(world, task);
      for (const p of policies) {
        const rules = p.rules ?? [];
        const answers = rules.map((r) => byText.run(r.condition));
        for (let from = 0; from <= rules.length; from++) {
          const c = taskConditions(world, task);
          let want = from;
          while (want < rules.length && isFalse(answers[want])) want++;
          // It may stop early, at a rule whose plain run cannot answer (an error cel-js absorbs,
          // an interpreted condition): run decides that one. It never passes over one run does not.
          const got = c.passOver(rules, from);
          expect(got).toBeGreaterThanOrEqual(from);
          expect(got).toBeLessThanOrEqual(want);
          if (got === want) exact++;
          else early++;
          // The rule it stopped at is then answered as run answers it.
          if (got < rules.length) {
            expect(c.runRule(rules, got)).toEqual(answers[got]);
            expect(c.runRule(rules, got)).toEqual(answers[got]);
            stops++;
          }
        }
      }
    }
    expect(stops).toBeGreaterThan(10);
    expect(exact).toBeGreaterThan(early * 4);
  });

  it("passOver, traced, leaves the traces runRule leaves: one per rule passed over, and the true one it stopped at", () => {
    const seen = (c: ReturnType<typeof taskConditions>) => c.traces().map((t) => t && { source: t.source, outcome: t.outcome, nodes: t.nodes });
    let passed = 0;
    for (const task of tasks) {
      // A loaded world's frozen lists (a run passed over is kept as one entry), and a thawed copy.
      for (const rules of policies.flatMap((p) => [p.rules ?? [], structuredClone(p.rules ?? [])])) {
        const fast = taskConditions(world, task, { trace: true });
        const slow = taskConditions(world, task, { trace: true });
        for (let i = 0; i < rules.length; i++) {
          const j = fast.passOver(rules, i);
          passed += j - i;
          for (let k = i; k < j; k++) expect(slow.runRule(rules, k)).toEqual({ ok: true, value: false });
          if (j >= rules.length) break;
          expect(fast.runRule(rules, j)).toEqual(slow.runRule(rules, j));
          i = j;
        }
        expect(seen(fast)).toEqual(seen(slow));
      }
    }
    expect(passed).toBeGreaterThan(10);
  });

  it("records the same traces as run", () => {
    const task = tasks[0];
    const p = policies[0];
    if (!task || !p) throw new Error("sample world without tasks or rules");
    const rules = p.rules ?? [];
    const byRule = taskConditions(world, task, { trace: true });
    const byText = taskConditions(world, task, { trace: true });
    for (let i = 0; i < rules.length; i++) {
      byRule.runRule(rules, i);
      byText.run((rules[i] as Rule).condition);
    }
    expect(byRule.traces()).toEqual(byText.traces());
    // The node trees too: a trace's own fields are its source and outcome, its nodes built on read.
    expect(byRule.traces().map((t) => t?.nodes)).toEqual(byText.traces().map((t) => t?.nodes));
    expect(byRule.traces()).toHaveLength(rules.length);
  });

  it("follows a rule list that is not frozen when it changes in place", () => {
    const task = tasks[0];
    if (!task) throw new Error("sample world without tasks");
    const rules: Rule[] = [{ condition: "true", stepKey: "a", policyId: "", policyKey: "" }];
    const c = taskConditions(world, task);
    expect(c.runRule(rules, 0)).toEqual({ ok: true, value: true });
    rules[0] = { condition: "false", stepKey: "a", policyId: "", policyKey: "" };
    expect(c.runRule(rules, 0)).toEqual({ ok: true, value: false });
    (rules[0] as { condition: string }).condition = "subject.nope == 1";
    expect(c.runRule(rules, 0)).toMatchObject({ ok: false });
  });

  it("reports an index past the end as an error, without throwing", () => {
    const task = tasks[0];
    if (!task) throw new Error("sample world without tasks");
    expect(taskConditions(world, task).runRule([], 3)).toEqual({ ok: false, error: "no rule at index 3" });
  });
});

describe("decide(…, { trace: true }): traces made when read", () => {
  it("shows them as a field like any other: keys in the same order, a spread copy, JSON", () => {
    const task = tasks.find((t) => decide(world, t).selection !== null);
    if (!task) throw new Error("sample world without a task that reaches a policy");
    const plain = decide(world, task);
    const traced = decide(world, task, { trace: true });
    expect(Object.keys(traced)).toEqual(Object.keys(plain));
    expect(traced.traces.length).toBeGreaterThan(0);
    expect({ ...traced }.traces).toBe(traced.traces);
    const json = JSON.parse(JSON.stringify({ traces: traced.traces })) as { traces: { source: string; nodes: unknown[] }[] };
    expect(JSON.parse(JSON.stringify(traced)).traces).toEqual(json.traces);
    expect(json.traces.every((t) => t.nodes.length > 0)).toBe(true);
  });
});

describe("taskConditions: approver expressions", () => {
  const find = (n: string) => {
    const t = tasks.find((x) => x.numericId === n);
    if (!t) throw new Error(`no task ${n}`);
    return t;
  };
  it("campaignOwners (an approver variable for campaign tasks in the docs repository's assistant notes): a certify task's access review owners; none for a review without owners or a task of no campaign", () => {
    // 1045 belongs to ar-2026-q4-critical (owners u-sec-eng), 1043 to ar-2026-q4 (none), 1001 is a grant.
    expect(world.index.accessReviews.get("ar-2026-q4-critical")?.ownerUserIds).toEqual(["u-sec-eng"]);
    expect(taskConditions(world, find("1045")).expressions("campaignOwners")).toEqual({ ok: true, value: ["u-sec-eng"] });
    expect(taskConditions(world, find("1043")).expressions("campaignOwners")).toEqual({ ok: true, value: [] });
    expect(taskConditions(world, find("1001")).expressions("campaignOwners")).toEqual({ ok: true, value: [] });
    // The docs' safe pattern: the campaign's owners, else the app's.
    const fallback = "size(campaignOwners) > 0 ? campaignOwners : appOwners";
    expect(taskConditions(world, find("1045")).expressions(fallback)).toEqual({ ok: true, value: ["u-sec-eng"] });
    const appOwners = taskConditions(world, find("1043")).expressions("appOwners");
    expect(appOwners.ok && appOwners.value.length).toBeGreaterThan(0);
    expect(taskConditions(world, find("1043")).expressions(fallback)).toEqual(appOwners);
  });

  it("account and ip, as in conditions (product_admin_expressions-reference.mdx gives both to \"Policies\", and a policy's expressions are its conditions and its step approvers: product_admin_expressions.mdx) (CEL docs review A2)", () => {
    // 1001: Ravi Patel's request on AWS, through his account au-aws-contractor (username ravi.patel).
    const byAccount = 'account.username == "ravi.patel" ? [subject] : appOwners';
    expect(taskConditions(world, find("1001")).expressions(byAccount)).toEqual({ ok: true, value: ["u-contractor"] });
    const other = taskConditions(world, find("1002")).expressions(byAccount);
    expect(other).toEqual(taskConditions(world, find("1002")).expressions("appOwners"));
    // The requester's address comes from the task's data (`data.ip`), as for conditions.
    const fromOffice = "ip.isPrivate() ? [subject] : appOwners";
    const task = find("1001");
    expect(taskConditions(world, { ...task, data: { ...(task.data ?? {}), ip: "10.1.2.3" } }).expressions(fromOffice)).toEqual({ ok: true, value: ["u-contractor"] });
    const outside = taskConditions(world, { ...task, data: { ...(task.data ?? {}), ip: "203.0.113.9" } }).expressions(fromOffice);
    expect(outside).toEqual(taskConditions(world, task).expressions("appOwners"));
  });
});
