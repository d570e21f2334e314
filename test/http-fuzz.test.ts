/**
 * Every route of the HTTP face under hostile input: path parameters, query strings and JSON bodies
 * drawn from the fields the API's requests use, with values of every JSON kind (and the sample
 * tenant's real ids, so the checks past "not found" are reached too). Whatever comes in, the
 * dispatcher answers: never a throw, never a 500 (an internal error is a bug of ours), always a JSON
 * body, and every failure in the service's status shape `{ code, message, details }` with the HTTP
 * status of its gRPC code. A refused write leaves the world as it was; an accepted one leaves a world
 * that saves and loads again.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createDispatcher, createWorldStore, GRPC_CODES, GRPC_HTTP_STATUS, ROUTES, type Route } from "policy-sim/http";
import { loadWorld, worldJsonChunks } from "policy-sim";
import { sampleWorld, type Body } from "./helpers.js";

const world = sampleWorld();
const ids = [
  ...[...world.tasks.values()].flatMap((t) => [t.id, t.numericId]),
  ...world.users.map((u) => u.id),
  ...world.apps.map((a) => a.id),
  ...world.entitlements.map((e) => e.id),
  ...world.policies.map((p) => p.id),
  ...world.appUsers.map((a) => a.id),
].slice(0, 400);

/** Field names the API's request bodies use, so generated bodies reach the routes' own checks. */
const FIELDS = [
  "taskId", "comment", "userIds", "userId", "newStepUserIds", "policyStepId", "expandMask", "paths", "pageSize", "pageToken",
  "query", "refs", "id", "ids", "state", "taskStates", "taskTypes", "appId", "appEntitlementId", "identityUserId", "grantDuration",
  "reason", "displayName", "description", "policy", "policyType", "policySteps", "rules", "condition", "stepKey", "updateMask",
  "annotations", "expression", "cel", "emergencyAccess", "data", "newestFirst", "commentsOnly", "appUserId", "isPrimary",
  "entitlementIds", "policyId", "requestPolicyId", "priority", "ruleIds", "createdAfter", "createdBefore", "excludeIds",
  "grant_type", "client_assertion", "client_assertion_type", "client_id", "__proto__", "constructor", "toJSON",
];

const scalar = fc.oneof(
  fc.constantFrom(...ids),
  fc.string({ maxLength: 12 }),
  fc.constantFrom("", "*", "..", "%2e", "../reset", "\u0000", "\ud800", "9007199254740993", "-1", "1e309", "TASK_STATE_OPEN", "POLICY_TYPE_GRANT", "true", "null"),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  v: fc.oneof({ depthSize: "small", withCrossShrink: true }, scalar, fc.array(tie("v"), { maxLength: 4 }), fc.dictionary(fc.constantFrom(...FIELDS), tie("v"), { maxKeys: 4 })),
})).v;
const body = fc.oneof(fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 6 }), value);

const TOKENS = ["tok-super", "tok-readonly", "tok-user", "tok-nope"];

function filled(route: Route, params: readonly string[]): string {
  let i = 0;
  return route.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(params[i++ % params.length] ?? "x"));
}

describe("every route under hostile input: an answer in the service's shape, never a throw or a 500", () => {
  it(`${ROUTES.length} routes, random parameters, queries and bodies`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ROUTES),
        fc.array(fc.oneof(fc.constantFrom(...ids), fc.string({ maxLength: 8 })), { minLength: 1, maxLength: 4 }),
        fc.dictionary(fc.constantFrom("page_size", "page_token", "expand", "query", "x"), fc.string({ maxLength: 6 }), { maxKeys: 3 }),
        body,
        fc.constantFrom(...TOKENS),
        async (route, params, query, payload, token) => {
          const store = createWorldStore(world);
          const dispatch = createDispatcher(store);
          const qs = new URLSearchParams(query).toString();
          const json = JSON.stringify(payload) ?? "null";
          const reply = await dispatch({
            method: route.method,
            target: `${filled(route, params)}${qs === "" ? "" : `?${qs}`}`,
            header: (n) =>
              ({
                authorization: `Bearer ${token}`,
                "content-type": route.body === "form" ? "application/x-www-form-urlencoded" : "application/json",
                host: "127.0.0.1",
              })[n],
            readBody: async () => ({ ok: true, value: new TextEncoder().encode(route.body === "form" ? new URLSearchParams(query).toString() : json) }),
          });
          const text = new TextDecoder().decode(reply.body);
          if (reply.status === 500) throw new Error(`${route.method} ${route.path}: 500 ${text}`);
          const answer = JSON.parse(text) as Body;
          if (reply.status >= 400 && route.path !== "/auth/v1/token") {
            expect(typeof answer.code).toBe("number");
            expect(typeof answer.message).toBe("string");
            expect(Array.isArray(answer.details)).toBe(true);
            const name = (Object.keys(GRPC_CODES) as (keyof typeof GRPC_CODES)[]).find((k) => GRPC_CODES[k] === answer.code);
            expect(name !== undefined ? GRPC_HTTP_STATUS[name] : undefined).toBe(reply.status);
          }
          // A refused write changes nothing; an accepted one leaves a world that saves and loads again
          // (as `serve --out` writes it), so nothing a client sends is accepted and then lost.
          if (reply.status >= 400) expect(store.get()).toBe(world);
          else if (store.get() !== world) {
            const back = loadWorld(JSON.parse([...worldJsonChunks(store.get())].join("")));
            if (!back.ok) throw new Error(`${route.method} ${route.path}: the world it accepted does not load again: ${JSON.stringify(back.error.slice(0, 2))}`);
          }
        },
      ),
      { numRuns: process.env["CI"] === "true" ? 3000 : 1500 },
    );
  });
});
