/**
 * Every served route against hostile bodies: random JSON objects whose keys are the request fields
 * the routes read (and some they do not), with values of every JSON type. The server answers each
 * with a status of the service's error model or 200, never a 500 (a thrown error of ours), and the
 * world it keeps after any accepted write still saves and loads (nothing an SDK could send breaks it).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sampleWorld } from "../../test/helpers.js";
import { saveWorld } from "../world/save-world.js";
import { loadWorld } from "../world/load-world.js";
import { createFetchHandler } from "./fetch-handler.js";
import { ROUTES } from "./routes/index.js";
import { createWorldStore } from "./world-store.js";

const KEYS = [
  "policy", "app", "entitlement", "appUser", "updateMask", "expandMask", "displayName", "description", "policyType", "policySteps", "rules",
  "expiration", "escalation", "monthlyCostUsd", "identityMatching", "alias", "slug", "durationGrant", "purpose", "appId", "appEntitlementId",
  "identityUserId", "appUserId", "grantDuration", "comment", "policyStepId", "userIds", "query", "pageSize", "pageToken", "createdAfter",
  "taskStates", "refs", "delegatedUserId", "delegationStartAt", "emergencyAccess", "owners", "annotations", "__proto__", "constructor",
];
const PARAMS: Readonly<Record<string, readonly string[]>> = {
  task_id: ["1001", "1006", "nope"],
  id: ["app-aws", "pol-prod-admin", "ent-aws-billing", "nope"],
  app_id: ["app-aws", "nope"],
  app_user_app_id: ["app-aws"],
  app_user_id: ["au-aws-intern", "nope"],
  app_entitlement_id: ["ent-aws-billing"],
  entitlement_id: ["ent-aws-billing"],
  user_id: ["u-dev1", "nope"],
  identity_user_id: ["u-dev1"],
};
const value = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, "", "x", "1.5s", "86400s", "2026-11-22T09:00:00Z", "APP_USER_IDENTITY_MATCHING_STRICT", "*"),
    fc.string({ maxLength: 12 }),
    fc.array(tie("v"), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...KEYS), tie("v"), { maxKeys: 4 }),
  ),
})).v;
const body = fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 6 });
const ALLOWED = new Set([200, 400, 401, 403, 404, 405, 409, 412, 413, 415, 429, 501]);

describe("hostile request bodies on every served route", () => {
  it("answer 200 or an error of the service's model, never 500; the world kept after them still saves and loads", async () => {
    const store = createWorldStore(sampleWorld());
    const handler = createFetchHandler(store);
    const routes = ROUTES.filter((r) => r.method !== "GET" && r.public !== true);
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), fc.nat(), body, async (route, pick, b) => {
        const path = route.path.replace(/\{(\w+)\}/g, (_, n: string) => {
          const options = PARAMS[n] ?? ["nope"];
          return encodeURIComponent(options[pick % options.length] ?? "nope");
        });
        const res = await handler(new Request(`http://sim.test${path}`, { method: route.method, headers: { authorization: "Bearer tok-super", "content-type": "application/json" }, body: JSON.stringify(b) }));
        const text = await res.text();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        expect(ALLOWED.has(res.status), `${route.method} ${path} ${JSON.stringify(b)} → ${res.status} ${text.slice(0, 300)}`).toBe(true);
        expect(() => JSON.parse(text)).not.toThrow();
      }),
      { numRuns: 3000 },
    );
    // Not only refusals: some of these bodies are accepted writes, whose world is checked below.
    expect(statuses.get(200) ?? 0, JSON.stringify([...statuses])).toBeGreaterThan(50);
    const saved = saveWorld(store.get());
    expect(loadWorld(JSON.parse(JSON.stringify(saved))).ok).toBe(true);
  }, 120_000);
});
