/**
 * Every task type reaches its outcome enum, TASK_STATE_CLOSED and TASK_PROCESSING_TYPE_DONE, with
 * outcomeTime, by playing it from where the sample tenant left it.
 */
import { describe, expect, it } from "vitest";
import type { Task } from "../../src/model/index.js";
import type { World } from "../../src/world/world.js";
import { at, run, sampleWorld, task } from "./helpers.js";

function closedWith(world: World, id: string, outcome: string, when: string): Task {
  const t = task(world, id);
  expect(t.state).toBe("TASK_STATE_CLOSED");
  expect(t.processing).toBe("TASK_PROCESSING_TYPE_DONE");
  expect(t.policy?.current).toBeNull();
  expect(t.stepApproverIds).toEqual([]);
  const type = t.type;
  expect(type && type.kind !== "unknown" && type.outcome).toBe(outcome);
  expect(type && type.kind !== "unknown" && type.outcomeTime).toBe(when);
  return t;
}

describe("every task type reaches its outcome", () => {
  const T = "2026-11-22T10:00:00Z";

  it("grant: GRANT_OUTCOME_GRANTED", () => {
    const w = run(sampleWorld(), { type: "provisionComplete", taskId: "1024" }, "u-it-dir", T).world;
    closedWith(w, "1024", "GRANT_OUTCOME_GRANTED", T);
  });

  it("revoke: REVOKE_OUTCOME_REVOKED", () => {
    const w = run(sampleWorld(), { type: "provisionComplete", taskId: "1035" }, "u-it-dir", T).world;
    closedWith(w, "1035", "REVOKE_OUTCOME_REVOKED", T);
  });

  it("certify: CERTIFY_OUTCOME_CERTIFIED and CERTIFY_OUTCOME_DECERTIFIED", () => {
    closedWith(run(sampleWorld(), { type: "approve", taskId: "1046" }, "u-vp-sales", T).world, "1046", "CERTIFY_OUTCOME_CERTIFIED", T);
    closedWith(run(sampleWorld(), { type: "deny", taskId: "1046", comment: "left sales" }, "u-vp-sales", T).world, "1046", "CERTIFY_OUTCOME_DECERTIFIED", T);
  });

  it("offboarding: OFFBOARDING_OUTCOME_DONE after device placement, the HR webhook, 30 days and the automation", () => {
    let w = run(sampleWorld(), { type: "provisionComplete", taskId: "1051" }, "u-it-dir").world;
    w = run(w, { type: "provisionComplete", taskId: "1051" }, "u-it-dir").world;
    w = at(w, "2026-12-23T00:00:00Z").world;
    expect(task(w, "1051").policy?.current?.instance?.kind).toBe("action");
    w = run(w, { type: "actionOutcome", taskId: "1051", outcome: "success" }, "u-it-dir").world;
    closedWith(w, "1051", "OFFBOARDING_OUTCOME_DONE", "2026-12-23T00:00:00Z");
  });

  it("action: ACTION_OUTCOME_SUCCESS", () => {
    let w = run(sampleWorld(), { type: "approve", taskId: "1055", comment: "reviewed the tool input" }, "u-it-dir", T).world;
    while (task(w, "1055").policy?.current?.instance?.kind === "approval") w = run(w, { type: "approve", taskId: "1055", comment: "reviewed the tool input" }, "u-it-dir", T).world;
    if (task(w, "1055").state === "TASK_STATE_OPEN") w = run(w, { type: "actionOutcome", taskId: "1055", outcome: "success" }, "u-it-dir", T).world;
    closedWith(w, "1055", "ACTION_OUTCOME_SUCCESS", T);
  });

  it("finding: FINDING_TASK_OUTCOME_REMEDIATED and FINDING_TASK_OUTCOME_RISK_ACCEPTED", () => {
    let w = run(sampleWorld(), { type: "approve", taskId: "1057" }, "u-it-dir", T).world;
    const denied = run(w, { type: "deny", taskId: "1057" }, "u-sec-eng", T).world;
    closedWith(denied, "1057", "FINDING_TASK_OUTCOME_RISK_ACCEPTED", T);
    w = run(w, { type: "approve", taskId: "1057" }, "u-sec-eng", T).world;
    w = run(w, { type: "actionOutcome", taskId: "1057", outcome: "success" }, "u-it-dir", T).world;
    closedWith(w, "1057", "FINDING_TASK_OUTCOME_REMEDIATED", T);
  });
});
