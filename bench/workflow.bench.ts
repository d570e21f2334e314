/**
 * Workflow engine figures: a 20-step scenario played by `simulate` (approvals, waits ended by
 * ticks, action outcomes, provisioning), one `reduce` call, `tick` over worlds of growing size, and
 * encoding a run. Prints a table; asserts nothing about time (figures vary by machine).
 *
 *   node --import tsx bench/workflow.bench.ts
 *   BENCH_QUICK=1 node --import tsx bench/workflow.bench.ts   # smaller large world, shorter batches
 */
import { readFileSync } from "node:fs";
import type { JsonObject, JsonValue } from "../src/model/json.js";
import { reduce } from "../src/reducers/reduce.js";
import { encodeSimulation, simulate } from "../src/reducers/simulate.js";
import { tick } from "../src/reducers/tick.js";
import { syntheticWorld } from "../src/testing/synthetic-world.js";
import { isoOf, msOf } from "../src/workflow/time.js";
import { loadWorld } from "../src/world/load-world.js";
import { findTask, type World } from "../src/world/world.js";
import { consume, measure, type Measurement, sink } from "./harness.js";

const QUICK = process.env["BENCH_QUICK"] === "1";
const opts = QUICK ? { warmupMs: 150, batchMs: 10, batches: 10, budgetMs: 1500 } : { warmupMs: 300, batchMs: 20, batches: 25, budgetMs: 5000 };

function load(json: unknown): World {
  const r = loadWorld(json);
  if (!r.ok) throw new Error(`world does not load: ${JSON.stringify(r.error.slice(0, 3))}`);
  return r.value;
}

const approval = (userIds: string[]): JsonValue => ({
  approval: {
    allowDelegation: false,
    allowReassignment: false,
    allowedReassignees: [],
    assigned: false,
    escalation: null,
    escalationEnabled: false,
    requireApprovalReason: false,
    requireDenialReason: false,
    requireReassignmentReason: false,
    requiresStepUpProviderId: "",
    users: { allowSelfApproval: false, requireDistinctApprovers: false, userIds },
  },
});
const wait = (seconds: number): JsonValue => ({ wait: { name: `wait ${seconds}s`, commentOnFirstWait: "", commentOnTimeout: "", timeoutDuration: null, duration: { duration: `${seconds}s` } } });
const action: JsonValue = { action: { svcResourceAction: { svcResourceActionId: "sra-bench" } } };
const provision: JsonValue = { provision: { assigned: false, provisionPolicy: { connector: { defaultBehavior: { connectorId: "conn-okta" } } }, provisionTarget: null } };

/** 20 steps: 12 approvals, 4 waits, 3 actions, 1 provision. */
const STEPS: JsonValue[] = [
  approval(["u-it2"]), approval(["u-sre-lead"]), approval(["u-it2"]), wait(600), approval(["u-cto"]),
  action, approval(["u-it2"]), approval(["u-sre-lead"]), wait(3600), approval(["u-it2"]),
  action, approval(["u-cto"]), approval(["u-it2"]), wait(60), approval(["u-sre-lead"]),
  approval(["u-it2"]), action, approval(["u-cto"]), wait(120), provision,
];

function benchWorld(): World {
  const json = JSON.parse(readFileSync(new URL("../fixtures/world.json", import.meta.url), "utf8")) as Record<string, unknown> & {
    policies: JsonObject[];
    entitlements: Record<string, unknown>[];
  };
  json.policies.push({ id: "pol-bench-20", displayName: "20 steps", description: "", policyType: "POLICY_TYPE_GRANT", policySteps: { grant: { steps: STEPS } }, rules: [], baselinePolicyId: "" });
  const ent = json.entitlements.find((e) => e["id"] === "ent-okta-finance-apps");
  if (ent) ent["grantPolicyId"] = "pol-bench-20";
  const r = reduce(load(json), { type: "hardReset", taskId: "1030" }, { actorId: "u-it-dir" });
  if (!r.ok) throw new Error(r.error.message);
  return r.value.world;
}

/** The script that plays task 1030 through its 20 steps, one minute apart (waits by ticks). */
function script20(world: World): JsonObject {
  let t = msOf(world.now);
  const steps: JsonValue[] = [];
  const minute = () => isoOf((t += 60_000));
  for (const s of STEPS) {
    const k = Object.keys(s as JsonObject)[0];
    if (k === "approval") {
      const users = (((s as JsonObject)["approval"] as JsonObject)["users"] as JsonObject)["userIds"] as string[];
      steps.push({ at: minute(), actor: users[0] ?? "", action: { type: "approve", taskId: "1030" } });
    } else if (k === "wait") {
      const d = Number(String((((s as JsonObject)["wait"] as JsonObject)["duration"] as JsonObject)["duration"]).replace("s", ""));
      t += d * 1000;
      steps.push({ tick: isoOf(t) });
    } else if (k === "action") steps.push({ at: minute(), actor: "u-it-dir", action: { type: "actionOutcome", taskId: "1030", outcome: "success" } });
    else
      steps.push({
        at: minute(),
        actor: "u-it-dir",
        action: { type: "provisionComplete", taskId: "1030" },
        check: [{ taskId: "1030", state: "TASK_STATE_CLOSED", outcome: "GRANT_OUTCOME_GRANTED" }],
      });
  }
  return { name: "bench-20-steps", steps };
}

function row(name: string, m: Measurement, per = "op"): string {
  const fmt = (ns: number) => (ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : ns >= 1e3 ? `${(ns / 1e3).toFixed(1)} µs` : `${ns.toFixed(0)} ns`);
  return `${name.padEnd(58)} ${fmt(m.nsPerOp).padStart(10)}/${per}   p95 ${fmt(m.p95).padStart(10)}`;
}

const world = benchWorld();
const script = script20(world);
const check = simulate(world, script);
if (!check.ok || check.value.failures.length > 0) throw new Error(`the bench scenario does not hold: ${check.ok ? check.value.failures.join("; ") : check.error.message}`);
const stepsPlayed = (script["steps"] as unknown[]).length;
const closed = findTask(check.value.world, "1030");
console.log(`20-step scenario: ${stepsPlayed} script steps, task 1030 ends ${closed?.state} ${closed?.type?.kind === "grant" ? closed.type.outcome : ""}`);

const lines: string[] = [];
const run = measure(() => simulate(world, script), opts);
lines.push(row("simulate: 20-step scenario (whole run)", run, "run"));
lines.push(row("simulate: 20-step scenario (per script step)", { ...run, nsPerOp: run.nsPerOp / stepsPlayed, p95: run.p95 / stepsPlayed }, "step"));
const approveOnce = measure(() => reduce(world, { type: "approve", taskId: "1030" }, { actorId: "u-it2" }), opts);
lines.push(row("reduce: one approve (sample tenant, 59 tasks)", approveOnce));
const encode = measure(() => encodeSimulation(check.value, { worlds: "none" }), opts);
lines.push(row("encodeSimulation: 20-step run, no worlds", encode, "run"));
const encodeAll = measure(() => JSON.stringify(encodeSimulation(check.value, { worlds: "final" })), { ...opts, budgetMs: 2000 });
lines.push(row("encodeSimulation + JSON.stringify, final world", encodeAll, "run"));

for (const n of QUICK ? [1_000, 10_000] : [1_000, 10_000, 100_000]) {
  const big = load(syntheticWorld({ seed: 7, tasks: n, rulesPerPolicy: 4, matchAt: "last" }));
  const later = isoOf(msOf(big.now) + 3_600_000);
  const m = measure(() => tick(big, later), { ...opts, opsPerCall: n, budgetMs: QUICK ? 2000 : 6000 });
  lines.push(row(`tick +1h over ${n.toLocaleString("en")} tasks (per task)`, m, "task"));
  const firstOpen = [...big.tasks.values()].find((t) => t.state === "TASK_STATE_OPEN" && t.policy?.current?.instance?.kind === "approval");
  if (firstOpen) {
    const approver = firstOpen.stepApproverIds?.[0] ?? "";
    const r = measure(() => reduce(big, { type: "comment", taskId: firstOpen.id, comment: "bench" }, { actorId: approver || "u-it-dir" }), { ...opts, budgetMs: 1500 });
    lines.push(row(`reduce: comment in a ${n.toLocaleString("en")}-task world`, r));
  }
}

for (const l of lines) console.log(l);
consume(lines.length);
console.log(`(sink ${sink()})`);
