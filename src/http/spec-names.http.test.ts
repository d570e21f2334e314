/**
 * Issue 12: where the spec writes `svc…` for the API's `baton…`, and `svcUserPicker` for
 * `c1UserPicker`, request bodies are read with either name and answered with the spec's. Sent over
 * the fetch handler, which shares the dispatcher (and so this reading) with `serve`.
 */
import { describe, expect, it } from "vitest";
import { API_TO_SPEC_NAMES } from "../codec/spec-names.js";
import { sampleJson, sampleWorld, type Body } from "../../test/helpers.js";
import { createFetchHandler } from "./fetch-handler.js";
import { responseProblems } from "./openapi-validate.test-helper.js";
import { createWorldStore } from "./world-store.js";

const SPEC_TO_API = Object.fromEntries(Object.entries(API_TO_SPEC_NAMES).map(([api, spec]) => [spec, api]));
function apiSpelling(json: unknown): unknown {
  if (Array.isArray(json)) return json.map(apiSpelling);
  if (typeof json !== "object" || json === null) return json;
  return Object.fromEntries(Object.entries(json).map(([k, v]) => [SPEC_TO_API[k] ?? k, apiSpelling(v)]));
}

const fixturePolicy = (id: string): Body => {
  const p = (sampleJson() as Body).policies.find((x: Body) => x.id === id);
  const { id: _id, createdAt: _c, updatedAt: _u, deletedAt: _d, systemBuiltin: _s, ...writable } = p;
  return writable;
};

async function post(handler: (r: Request) => Promise<Response>, path: string, body: unknown): Promise<{ status: number; body: Body; text: string }> {
  const res = await handler(
    new Request(`http://sim.test${path}`, { method: "POST", headers: { authorization: "Bearer tok-super", "content-type": "application/json" }, body: JSON.stringify(body) }),
  );
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text), text };
}

describe("000 spec names vs the API's names in request bodies (openapi.yaml writes batonResourceAction and c1UserPicker)", () => {
  it("POST /api/v1/policies: a form step's c1UserPicker and an action step's batonResourceAction are the spec's svcUserPicker and svcResourceAction", async () => {
    for (const id of ["pol-finance-form", "pol-offboarding"]) {
      const spec = fixturePolicy(id);
      const api = apiSpelling(spec);
      expect(JSON.stringify(api)).toMatch(/c1UserPicker|batonResourceAction/);
      const store = createWorldStore(sampleWorld());
      const handler = createFetchHandler(store);
      const bySpec = await post(handler, "/api/v1/policies", spec);
      const byApi = await post(handler, "/api/v1/policies", api);
      expect([bySpec.status, byApi.status]).toEqual([200, 200]);
      expect(responseProblems("POST", "/api/v1/policies", byApi.body)).toEqual([]);
      // The answer writes the spec's names, and the policy is the one the spec's names make.
      expect(byApi.text).not.toMatch(/c1UserPicker|"baton/);
      const strip = (p: Body) => ({ ...p, id: "", createdAt: "", updatedAt: "" });
      expect(strip(byApi.body.policy)).toEqual(strip(bySpec.body.policy));
      const stored = store.get().index.policies.get(byApi.body.policy.id);
      expect(JSON.stringify(stored)).toMatch(id === "pol-offboarding" ? /"kind":"svcResourceAction"/ : /"kind":"svcUserPicker"/);
    }
  });
  it("POST /api/v1/policies/{id} with updateMask: policy steps written with the API's names update the policy as the spec's would", async () => {
    const spec = fixturePolicy("pol-offboarding");
    const update = { policy: { displayName: "Offboarding, edited", policySteps: spec.policySteps }, updateMask: "displayName,policySteps" };
    const results: { text: string; stored: string }[] = [];
    for (const body of [update, apiSpelling(update)]) {
      const store = createWorldStore(sampleWorld());
      const r = await post(createFetchHandler(store), "/api/v1/policies/pol-offboarding", body);
      expect(r.status, r.text).toBe(200);
      expect(responseProblems("POST", "/api/v1/policies/{id}", r.body)).toEqual([]);
      results.push({ text: JSON.stringify({ ...r.body.policy, updatedAt: "" }), stored: JSON.stringify({ ...store.get().index.policies.get("pol-offboarding"), updatedAt: "" }) });
    }
    expect(results[1]).toEqual(results[0]);
    expect(results[1]?.text).not.toMatch(/"baton/);
    expect(results[1]?.stored).toMatch(/"kind":"svcResourceAction"/);
  });
  it("bodies without the API's names are read as they are (an action body, a comment mentioning a name)", async () => {
    const store = createWorldStore(sampleWorld());
    const r = await post(createFetchHandler(store), "/api/v1/tasks/1001/action/comment", { comment: "c1UserPicker stays text in a comment" });
    expect(r.status).toBe(200);
    expect(JSON.stringify(store.events())).toContain("c1UserPicker stays text in a comment");
  });
});
