/**
 * Issue 12: where the spec writes `svc…` for the API's `baton…`, and `svcUserPicker` for
 * `c1UserPicker`, request bodies are read with either name and answered with the spec's. Sent over
 * the fetch handler, which shares the dispatcher (and so this reading) with `serve`.
 */
import { describe, expect, it } from "vitest";
import { API_TO_SPEC_NAMES, apiValueOf } from "../codec/spec-names.js";
import { sampleJson, sampleWorld, worldOf, type Body } from "../../test/helpers.js";
import { createFetchHandler } from "./fetch-handler.js";
import { responseProblems } from "./openapi-validate.test-helper.js";
import { createWorldStore } from "./world-store.js";

/** Every escalation `expiration` in a JSON value, in document order. */
const expirations = (json: unknown): unknown[] => {
  const out: unknown[] = [];
  JSON.stringify(json, (k, v: unknown) => {
    if (k === "expiration") out.push(v);
    return v;
  });
  return out;
};

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

/** What a client that knows only the API's names keeps of a body: the spec-only keys dropped, as the service's SDKs strip keys they do not know. */
function apiOnly(json: unknown): unknown {
  if (Array.isArray(json)) return json.map(apiOnly);
  if (typeof json !== "object" || json === null) return json;
  return Object.fromEntries(Object.entries(json).filter(([k]) => SPEC_TO_API[k] === undefined).map(([k, v]) => [k, apiOnly(v)]));
}

async function get(handler: (r: Request) => Promise<Response>, path: string): Promise<Body> {
  const res = await handler(new Request(`http://sim.test${path}`, { headers: { authorization: "Bearer tok-super" } }));
  return JSON.parse(await res.text());
}

describe("openapi.yaml c1.api.policy.v1.Action.batonResourceAction, c1.api.form.v1.PickerField.c1UserPicker: answers carry the API's names beside the spec's", () => {
  it("an SDK that keeps only the API's names reads a policy, sends it back whole, and nothing is lost", async () => {
    for (const id of ["pol-offboarding", "pol-finance-form"]) {
      const store = createWorldStore(sampleWorld());
      const handler = createFetchHandler(store);
      const before = store.get().index.policies.get(id);
      const read = await get(handler, `/api/v1/policies/${id}`);
      expect(responseProblems("GET", "/api/v1/policies/{id}", read)).toEqual([]);
      const { id: _id, createdAt: _c, updatedAt: _u, deletedAt: _d, systemBuiltin: _s, ...writable } = apiOnly(read.policy) as Body;
      const r = await post(handler, `/api/v1/policies/${id}`, { policy: { ...writable, description: "edited through an SDK" } });
      expect(r.status, r.text).toBe(200);
      const after = store.get().index.policies.get(id);
      // Escalation expirations come back as the API writes them (int64 seconds: "172800" for "172800s"), the same time.
      const inApiForm = (p: unknown): unknown => JSON.parse(JSON.stringify(p), (k, v: unknown) => apiValueOf(k, v));
      expect(inApiForm({ ...after, description: "", updatedAt: "" })).toEqual(inApiForm({ ...before, description: "", updatedAt: "" }));
      expect(after?.description).toBe("edited through an SDK");
    }
  });
  it("openapi.yaml c1.api.policy.v1.Escalation.expiration (type: string, format: int64): answers write whole seconds as an int64 string, which the Go and Python SDKs parse; an int64 sent back is read as seconds", async () => {
    const store = createWorldStore(sampleWorld());
    const handler = createFetchHandler(store);
    // The world holds the spec's duration ("172800s"); the policy read and the task view that carries it answer int64 seconds.
    expect(expirations(store.get().index.policies.get("pol-finance-form"))).toEqual(["172800s"]);
    const policy = await get(handler, "/api/v1/policies/pol-finance-form");
    expect(responseProblems("GET", "/api/v1/policies/{id}", policy)).toEqual([]);
    expect(expirations(policy)).toEqual(["172800"]);
    const task = await get(handler, "/api/v1/tasks/2jHto8hmFzbJVm9p3QcuXiqjFWX");
    expect(expirations(task).length).toBeGreaterThan(0);
    expect(expirations(task).every((e) => typeof e === "string" && /^\d+$/.test(e))).toBe(true);
    // What a Go SDK sends back (an integer string) is stored as it came and means the same seconds.
    const { id: _id, createdAt: _c, updatedAt: _u, deletedAt: _d, systemBuiltin: _s, ...writable } = apiOnly(policy.policy) as Body;
    const r = await post(handler, "/api/v1/policies/pol-finance-form", { policy: writable, updateMask: "policySteps" });
    expect(r.status, r.text).toBe(200);
    expect(expirations(store.get().index.policies.get("pol-finance-form"))).toEqual(["172800"]);
    expect(expirations(await get(handler, "/api/v1/policies/pol-finance-form"))).toEqual(["172800"]);
  });

  it("openapi.yaml c1.api.policy.v1.Escalation.expiration (int64): a request whose expiration is not a whole number of seconds is refused, as the service's int64 reader refuses it; one held in a world file is answered cut to whole seconds", async () => {
    const store = createWorldStore(sampleWorld());
    const handler = createFetchHandler(store);
    const before = store.get();
    const stepsWith = (expiration: string) => ({ grant: { steps: [{ approval: { users: { userIds: ["u-ciso"] }, escalationEnabled: true, escalation: { escalationComment: "", expiration, skipStep: {} } } }] } });
    for (const expiration of ["1.5s", "86400.5s", "", "99999999999999999999s"]) {
      const created = await post(handler, "/api/v1/policies", { displayName: "Escalating", policyType: "POLICY_TYPE_GRANT", policySteps: stepsWith(expiration) });
      expect(created.status, `${JSON.stringify(expiration)}: ${created.text}`).toBe(400);
      const updated = await post(handler, "/api/v1/policies/pol-finance-form", { policy: { policySteps: stepsWith(expiration) }, updateMask: "policySteps" });
      expect(updated.status, `${JSON.stringify(expiration)}: ${updated.text}`).toBe(400);
    }
    // A negative one has no meaning (assumed; SDK review F2): refused too, saying so.
    for (const expiration of ["-60s", "-60"]) {
      const created = await post(handler, "/api/v1/policies", { displayName: "Escalating", policyType: "POLICY_TYPE_GRANT", policySteps: stepsWith(expiration) });
      expect(created.status, created.text).toBe(400);
      expect(created.text).toContain(`${JSON.stringify(JSON.stringify(expiration)).slice(1, -1)} is negative`);
    }
    expect(store.get()).toBe(before);
    for (const expiration of ["86400s", "86400.000s", "86400", "-0s", "0"]) {
      const created = await post(handler, "/api/v1/policies", { displayName: "Escalating", policyType: "POLICY_TYPE_GRANT", policySteps: stepsWith(expiration) });
      expect(created.status, created.text).toBe(200);
      expect(expirations(created.body)).toEqual([expiration.includes("86400") ? "86400" : "0"]);
    }
    // A world file holds the spec's duration, a fraction of a second included: answered as the int64 the API can hold.
    const json = sampleJson() as Body;
    const fractional = worldOf({ ...json, policies: json.policies.map((p: Body) => (p.id === "pol-finance-form" ? JSON.parse(JSON.stringify(p).replace(/"172800s"/g, '"172800.75s"')) : p)) });
    const served = await get(createFetchHandler(createWorldStore(fractional)), "/api/v1/policies/pol-finance-form");
    expect(expirations(served)).toEqual(["172800"]);
  });

  it("a task view's action step instance and target carry both names too", async () => {
    const store = createWorldStore(sampleWorld());
    const handler = createFetchHandler(store);
    const created = await post(handler, "/api/v1/task/offboarding", { subjectUserId: "u-contractor" });
    expect(created.status, created.text).toBe(200);
    expect(created.text).toMatch(/"svcResourceAction":\{"svcResourceActionId":"([^"]+)"\},"batonResourceAction":\{"batonResourceActionId":"\1"\}/);
    expect(responseProblems("POST", "/api/v1/task/offboarding", created.body)).toEqual([]);
  });
});

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
      // The answer writes the spec's names, each with the API's beside it, and the policy is the one the spec's names make.
      expect(byApi.text).toMatch(id === "pol-offboarding" ? /"svcResourceAction":\{"svcResourceActionId":"([^"]+)"\},"batonResourceAction":\{"batonResourceActionId":"\1"\}/ : /"svcUserPicker":(\{[^}]*\}),"c1UserPicker":\1/);
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
    expect(results[1]?.text).toMatch(/"svcResourceAction":\{"svcResourceActionId":"([^"]+)"\},"batonResourceAction":\{"batonResourceActionId":"\1"\}/);
    expect(results[1]?.stored).toMatch(/"kind":"svcResourceAction"/);
  });
  it("bodies without the API's names are read as they are (an action body, a comment mentioning a name)", async () => {
    const store = createWorldStore(sampleWorld());
    const r = await post(createFetchHandler(store), "/api/v1/tasks/1001/action/comment", { comment: "c1UserPicker stays text in a comment" });
    expect(r.status).toBe(200);
    expect(JSON.stringify(store.events())).toContain("c1UserPicker stays text in a comment");
  });
});
