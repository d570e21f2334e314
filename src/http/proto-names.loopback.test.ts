/**
 * protojson reads a request field by its JSON name or its proto name (`taskStates` or
 * `task_states`), so the service's searches filter alike either way; a body in proto names must
 * not filter nothing and answer a wider list with a 200 (openapi.yaml's request bodies name the
 * JSON names; the SDK sends them, hand-written clients often the proto ones).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleWorld, type Body } from "../../test/helpers.js";
import { checkedCaller } from "./loopback.test-helper.js";
import { type RunningServer, serve } from "./server.js";

let server: RunningServer;
const call = checkedCaller(() => server.url);
beforeAll(async () => {
  server = await serve({ world: sampleWorld(), port: 0 });
});
afterAll(async () => server.close());

const ids = (b: Body): string[] => ((b["list"] as Body[] | undefined) ?? []).map((v) => String(((v["task"] as Body | undefined) ?? {})["id"]));

describe("openapi.yaml c1.api.task.v1.TaskSearchRequest in proto names", () => {
  it("task_states and page_size filter and page as taskStates and pageSize do", async () => {
    const camel = await call("POST", "/api/v1/search/tasks", { body: { taskStates: ["TASK_STATE_CLOSED"], pageSize: 100 } });
    const snake = await call("POST", "/api/v1/search/tasks", { body: { task_states: ["TASK_STATE_CLOSED"], page_size: 100 } });
    expect(ids(camel).length).toBeGreaterThan(0);
    expect(ids(snake)).toEqual(ids(camel));
    const all = await call("POST", "/api/v1/search/tasks", { body: { pageSize: 100 } });
    expect(ids(all).length).toBeGreaterThan(ids(camel).length);
  });

  it("a field the world cannot answer is refused under its proto name too; a field given under both names is 400", async () => {
    await call("POST", "/api/v1/search/tasks", { body: { pending_action_filter: "PENDING_ACTION_FILTER_WITH_PENDING" }, expect: 501 });
    const twice = await call("POST", "/api/v1/search/tasks", { body: { task_states: ["TASK_STATE_OPEN"], taskStates: ["TASK_STATE_CLOSED"] }, expect: 400 });
    expect(String(twice["message"])).toContain("taskStates is given twice");
  });
});

describe("task action bodies in proto names (openapi.yaml c1.api.task.v1.TaskActionsServiceCommentRequest)", () => {
  it("expand_mask expands as expandMask does; the two names at once are 400", async () => {
    const camel = await call("POST", "/api/v1/tasks/{task_id}/action/comment", { params: { task_id: "1001" }, body: { comment: "hi", expandMask: { paths: ["app_id"] } } });
    const snake = await call("POST", "/api/v1/tasks/{task_id}/action/comment", { params: { task_id: "1001" }, body: { comment: "hi", expand_mask: { paths: ["app_id"] } } });
    expect((camel["expanded"] as Body[]).map((x) => x["@type"])).toEqual(["type.googleapis.com/c1.api.app.v1.App"]);
    expect((snake["expanded"] as Body[]).map((x) => x["@type"])).toEqual((camel["expanded"] as Body[]).map((x) => x["@type"]));
    const twice = await call("POST", "/api/v1/tasks/{task_id}/action/comment", { params: { task_id: "1001" }, body: { comment: "hi", expand_mask: { paths: [] }, expandMask: { paths: [] } }, expect: 400 });
    expect(String(twice["message"])).toContain("expandMask is given twice");
  });
});
