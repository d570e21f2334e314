/**
 * `timersFire`: with a clock, time passes in the served world as in the service. The end of a
 * time-limited grant is revoked "at the end of the time limit" (product_admin_access-requests.mdx),
 * and an approval step's escalation fires when "no action has been taken on the task when the time
 * elapses" (product_admin_policies.mdx) — without anyone calling `tick`. Without the option the
 * world's clock stays put (reproducible runs).
 */
import { afterEach, describe, expect, it } from "vitest";
import { sampleJson, worldOf, type Body } from "../../test/helpers.js";
import { type RunningServer, serve } from "./server.js";
import { checkedCaller } from "./loopback.test-helper.js";

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const world = () => {
  const json = sampleJson() as Body;
  json.grants = [...json.grants, { appId: "app-aws", appEntitlementId: "ent-aws-prod-admin", identityUserId: "u-sec-eng", source: "direct", deprovisionAt: "2026-11-22T10:00:00Z" }];
  return worldOf(json);
};

const timeRevokes = (s: RunningServer) => [...s.store.get().tasks.values()].filter((t) => t.origin === "TASK_ORIGIN_TIME_REVOKE" && t.userId === "u-sec-eng");

describe("serve with a clock and timersFire: the world's timers fire as the clock passes", () => {
  it("a grant's end is revoked once the clock passes it, at the next request; the world's clock follows", async () => {
    let now = "2026-11-22T09:30:00Z";
    server = await serve({ world: world(), port: 0, clock: () => now, timersFire: true });
    const call = checkedCaller(() => server?.url ?? "");
    await call("GET", "/api/v1/tasks/{id}", { params: { id: "1001" } });
    expect(timeRevokes(server)).toEqual([]);
    expect(server.store.get().now).toBe("2026-11-22T09:30:00Z");
    now = "2026-11-22T10:30:00Z";
    await call("GET", "/api/v1/tasks/{id}", { params: { id: "1001" } });
    const [revoke, ...more] = timeRevokes(server);
    expect(more).toEqual([]);
    expect(revoke?.createdAt).toBe("2026-11-22T10:00:00Z");
    expect(server.store.get().now).toBe("2026-11-22T10:30:00Z");
    // It reads back over HTTP like any task.
    const got = await call("GET", "/api/v1/tasks/{id}", { params: { id: revoke?.numericId ?? "" } });
    expect(got.taskView.task.origin).toBe("TASK_ORIGIN_TIME_REVOKE");
  });

  it("an approval escalation fires when its time comes (task 1004's break-glass SLA, due 09:05:05)", async () => {
    const task = [...world().tasks.values()].find((t) => t.numericId === "1004");
    let now = "2026-11-22T09:05:00Z";
    server = await serve({ world: world(), port: 0, clock: () => now, timersFire: true });
    const call = checkedCaller(() => server?.url ?? "");
    await call("GET", "/api/v1/tasks/{id}", { params: { id: "1004" } });
    expect(JSON.stringify(server.store.get().tasks.get(task?.id ?? "")?.policy?.current)).toBe(JSON.stringify(task?.policy?.current));
    now = "2026-11-22T09:06:00Z";
    await call("GET", "/api/v1/tasks/{id}", { params: { id: "1004" } });
    expect(JSON.stringify(server.store.get().tasks.get(task?.id ?? "")?.policy?.current)).not.toBe(JSON.stringify(task?.policy?.current));
    expect(server.store.get().now).toBe("2026-11-22T09:06:00Z");
  });

  it("without timersFire the world's clock stays put, whatever the clock says", async () => {
    server = await serve({ world: world(), port: 0, clock: () => "2026-11-23T00:00:00Z" });
    const call = checkedCaller(() => server?.url ?? "");
    await call("GET", "/api/v1/tasks/{id}", { params: { id: "1001" } });
    expect(timeRevokes(server)).toEqual([]);
    expect(server.store.get().now).toBe("2026-11-22T09:00:00Z");
  });
});

describe("a clock that cannot move is told, not silent (noticed after the time-limits review)", () => {
  it("a policy whose escalation loops refuses the tick: the world stays at its time, requests are served, onTimersRefused hears it once", async () => {
    const json = sampleJson() as Body;
    json.policies = [
      ...json.policies,
      {
        id: "pol-loop",
        displayName: "loop",
        policyType: "POLICY_TYPE_GRANT",
        rules: [],
        policySteps: { grant: { steps: [{ approval: { escalationEnabled: true, escalation: { escalationComment: "esc", expiration: "0s", replacePolicy: { policyId: "pol-loop" } }, users: { userIds: ["u-ciso"] } } }] } },
      },
    ];
    json.entitlements = json.entitlements.map((e: Body) => (e.id === "ent-aws-prod-admin" ? { ...e, grantPolicyId: "pol-loop" } : e));
    const loaded = worldOf(json);
    const refusals: { now: string; worldNow: string; code: string; message: string }[] = [];
    let now = "2026-11-22T09:00:00Z";
    server = await serve({ world: loaded, port: 0, clock: () => now, timersFire: true, onTimersRefused: (r) => refusals.push(r) });
    const call = checkedCaller(() => server?.url ?? "");
    // Reset task 1001 onto the looping policy, then let time pass.
    await call("POST", "/api/v1/tasks/{task_id}/action/reset", { params: { task_id: "1001" }, body: {}, token: "tok-super" });
    now = "2026-11-22T09:10:00Z";
    const got = await call("GET", "/api/v1/tasks/{id}", { params: { id: "1001" } });
    expect(got.taskView.task.numericId).toBe("1001");
    now = "2026-11-22T09:20:00Z";
    await call("GET", "/api/v1/tasks/{id}", { params: { id: "1001" } });
    expect(server.store.get().now).toBe("2026-11-22T09:00:00Z");
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatchObject({ now: "2026-11-22T09:10:00Z", worldNow: "2026-11-22T09:00:00Z", code: "FAILED_PRECONDITION" });
    expect(refusals[0]?.message).toMatch(/task 1001 fired 1,000 timers in one tick/);
  });
});
