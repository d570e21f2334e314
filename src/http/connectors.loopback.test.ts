/**
 * `serve --connectors-complete` (`connectorsComplete`): a client that approves a request and polls
 * it (ConductorOne's CLI `cone get --wait`, `cone task approve --wait`) sees it end GRANTED, as
 * with the service, whose connectors finish provisioning on their own
 * (product_admin_provisioning.mdx). Without it the task waits at its provision step for a report.
 */
import { describe, expect, it } from "vitest";
import { sampleJson, worldOf, type Body } from "../../test/helpers.js";
import { createFetchHandler } from "./fetch-handler.js";
import { createWorldStore } from "./world-store.js";

const json = sampleJson() as Body;
const world = () => worldOf({ ...json, tokens: { ...json.tokens, "tok-sre": "u-sre-lead" } });

async function call(handler: ReturnType<typeof createFetchHandler>, method: string, path: string, body?: unknown, token = "tok-sre"): Promise<Body> {
  const res = await handler(
    new Request(`http://sim.test${path}`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }),
  );
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Body;
}

describe("openapi.yaml TaskActionsService.Approve, then TaskService.Get: a connector provisions the approved request", () => {
  it("with connectorsComplete: the approve answers the provision step running, the next read the task closed GRANTED and the grant held", async () => {
    const store = createWorldStore(world());
    const handler = createFetchHandler(store, { connectorsComplete: true });
    const task = (await call(handler, "GET", "/api/v1/tasks/1006")).taskView.task;
    const approved = (await call(handler, "POST", "/api/v1/tasks/1006/action/approve", { policyStepId: task.policy.current.id, comment: "ok" })).taskView.task;
    expect(approved.state).toBe("TASK_STATE_OPEN");
    expect(Object.keys(approved.policy.current)).toContain("provision");
    const read = (await call(handler, "GET", "/api/v1/tasks/1006")).taskView.task;
    expect(read.state).toBe("TASK_STATE_CLOSED");
    expect(read.type.grant.outcome).toBe("GRANT_OUTCOME_GRANTED");
    const { appId, appEntitlementId, identityUserId } = read.type.grant;
    expect(store.get().grants.some((g) => g.appId === appId && g.appEntitlementId === appEntitlementId && g.identityUserId === identityUserId)).toBe(true);
  });

  it("with connectorsComplete: requests already waiting at a connector step when the server starts are provisioned at start", async () => {
    // The sample's 1031 (a grant) and 1035, 1038 (revokes) stand at connector provision steps.
    const waiting = ["1031", "1035", "1038"];
    const before = world();
    for (const n of waiting) expect([...before.tasks.values()].find((t) => t.numericId === n)?.state).toBe("TASK_STATE_OPEN");
    const store = createWorldStore(before);
    const handler = createFetchHandler(store, { connectorsComplete: true });
    const outcomes = [];
    for (const n of waiting) {
      const read = (await call(handler, "GET", `/api/v1/tasks/${n}`, undefined, "tok-super")).taskView.task;
      expect(read.state).toBe("TASK_STATE_CLOSED");
      outcomes.push(read.type.grant?.outcome ?? read.type.revoke?.outcome);
    }
    expect(outcomes).toEqual(["GRANT_OUTCOME_GRANTED", "REVOKE_OUTCOME_REVOKED", "REVOKE_OUTCOME_REVOKED"]);
    // Without the option, nothing moves at start.
    const plain = createFetchHandler(createWorldStore(world()));
    expect((await call(plain, "GET", "/api/v1/tasks/1031", undefined, "tok-super")).taskView.task.state).toBe("TASK_STATE_OPEN");
  });

  it("without it (the default) the task waits at its provision step", async () => {
    const handler = createFetchHandler(createWorldStore(world()));
    const task = (await call(handler, "GET", "/api/v1/tasks/1006")).taskView.task;
    await call(handler, "POST", "/api/v1/tasks/1006/action/approve", { policyStepId: task.policy.current.id, comment: "ok" });
    const read = (await call(handler, "GET", "/api/v1/tasks/1006")).taskView.task;
    expect(read.state).toBe("TASK_STATE_OPEN");
    expect(Object.keys(read.policy.current)).toContain("provision");
  });
});
