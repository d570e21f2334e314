/**
 * `pull` end to end: `policy-sim serve` on a world W over loopback, `pullWorld` through the real
 * HTTP stack, and the world pulled must equal W — simulation-only fields aside (tenant settings,
 * groups, tokens, grant sources, the clock, comments, access reviews) and a task's
 * `actions`, which the API answers for the caller. The world pulled must also load strictly and,
 * once what pull warned it could not give is set as the warnings say, decide every task the same
 * and give every user the same task actions as W. Part of `npm test`, so `.ci/run` runs it; a
 * served API without the routes pull uses fails here instead of skipping the round trip.
 */
import { generateKeyPairSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { apiValueOf } from "../src/codec/spec-names.js";
import { ROUTES } from "../src/http/routes/index.js";
import { decide } from "../src/policy/decide.js";
import { relationTo, taskActionsFor } from "../src/reducers/permissions.js";
import { serve } from "../src/http/server.js";
import { createWorldStore } from "../src/http/world-store.js";
import type { PullCredentials } from "../src/pull/credentials.js";
import { createApiClient } from "../src/pull/api-client.js";
import { CLIENT_SECRET_PREFIX } from "../src/pull/credentials.js";
import { type PullResult, pullWorld } from "../src/pull/pull-world.js";
import { syntheticWorld } from "../src/testing/synthetic-world.js";
import { loadWorld } from "../src/world/load-world.js";
import { saveWorld } from "../src/world/save-world.js";
import type { World } from "../src/world/world.js";

type Json = Record<string, unknown>;
const READ_ROUTES = [
  ["GET", "/api/v1/policies"],
  ["GET", "/api/v1/users"],
  ["GET", "/api/v1/apps"],
  ["POST", "/api/v1/search/tasks"],
  ["GET", "/api/v1/apps/{app_id}/entitlements"],
  ["GET", "/api/v1/apps/{app_id}/app_users"],
  ["GET", "/api/v1/iam/roles"],
] as const;
const served = READ_ROUTES.every(([m, p]) => ROUTES.some((r) => r.method === m && r.path === p));
const tokenEndpoint = ROUTES.some((r) => r.method === "POST" && r.path === "/auth/v1/token");

/** The sections the API gives, as saveWorld writes them, in a stable order. */
function apiSections(doc: Json): Json {
  const loaded = loadWorld(doc, { strict: false });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.error.slice(0, 3)));
  const saved = saveWorld(loaded.value) as Json;
  const sorted = (k: string, strip: readonly string[] = []) =>
    ((saved[k] as Json[] | undefined) ?? [])
      .map((x) => Object.fromEntries(Object.entries(x).filter(([f]) => !strip.includes(f))))
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  // The API spells an account's status STATUS_*, world files APP_USER_STATUS_*; both read as one AppUserStatus (cel/enums.ts).
  const appUsers = sorted("appUsers").map((a) => {
    const s = a["status"] as Json | undefined;
    return typeof s?.["status"] === "string" ? { ...a, status: { ...s, status: s["status"].replace(/^STATUS_/, "APP_USER_STATUS_") } } : a;
  });
  // Escalation expirations in the API's form on both sides (serve writes int64 seconds: the same time).
  const inApiForm = (x: Json): Json => JSON.parse(JSON.stringify(x), (k, v: unknown) => apiValueOf(k, v)) as Json;
  return inApiForm({
    roles: sorted("roles"),
    policies: saved["policies"],
    // A task's `actions` are what the caller may do (the API computes them per caller), not stored data.
    tasks: ((saved["tasks"] as Json[] | undefined) ?? []).map(({ actions: _a, ...t }) => t),
    users: sorted("users"),
    apps: sorted("apps"),
    entitlements: sorted("entitlements"),
    appUsers: appUsers.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    grants: sorted("grants", ["source"]),
    resourceTypeDefaults: sorted("resourceTypeDefaults"),
    entitlementConfigurationRules: sorted("entitlementConfigurationRules"),
  } as Json);
}

async function pullResultFromServe(doc: Json, credentials: PullCredentials, states: "open" | "all" = "all", through: typeof fetch = fetch): Promise<PullResult> {
  const loaded = loadWorld(doc);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.error.slice(0, 3)));
  const server = await serve({ store: createWorldStore(loaded.value), port: 0, host: "127.0.0.1" });
  try {
    const r = await pullWorld({ baseUrl: server.url, fetch: through, credentials, states, pageSize: 17, concurrency: 3 });
    if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
    return r.value;
  } finally {
    await server.close();
  }
}

async function pullFromServe(doc: Json, credentials: PullCredentials): Promise<Json> {
  return (await pullResultFromServe(doc, credentials)).world;
}

/**
 * `fetch`, but with `ownerUserIds` taken out of the apps and entitlements serve lists, as the
 * service's API answers them (openapi.yaml: neither c1.api.app.v1.App nor AppEntitlement has it);
 * `requests` records what was asked.
 */
function asTheRealApiAnswers(options: { appOwners?: boolean } = {}): { fetch: typeof fetch; requests: string[] } {
  const requests: string[] = [];
  const strip = (x: unknown): unknown => {
    if (typeof x !== "object" || x === null) return x;
    const { ownerUserIds: _o, appOwners, ...rest } = x as Json;
    return options.appOwners === true && appOwners !== undefined ? { ...rest, appOwners } : rest;
  };
  const f = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input));
    requests.push(`${init?.method ?? "GET"} ${url.pathname}`);
    const res = await fetch(input, init);
    if (!/^\/api\/v1\/apps(\/[^/]+\/entitlements)?$/.test(url.pathname) || res.status !== 200) return res;
    const body = (await res.json()) as Json;
    const list = ((body["list"] as Json[] | null) ?? []).map((v) => (isEntitlementView(v) ? { ...v, appEntitlement: strip(v["appEntitlement"]) } : strip(v)));
    return new Response(JSON.stringify({ ...body, list }), { status: 200, headers: { "content-type": "application/json" } });
  }) as typeof fetch;
  return { fetch: f, requests };
}
const isEntitlementView = (v: unknown): v is Json => typeof v === "object" && v !== null && "appEntitlement" in v;

/**
 * The pulled world with what pull warned it could not give set from the original, as each warning
 * tells the user to: the clock, the default policies it names, the feature flag, the groups. What
 * pull gave (or inferred) is left as pulled, so a silent difference still shows.
 */
function asWarnedFixes(pulled: PullResult, original: Json): Json {
  const doc: Json = { ...pulled.world };
  const tenant = { ...(pulled.world["tenant"] as Json) };
  const originalTenant = (original["tenant"] ?? {}) as Json;
  const defaults = { ...(tenant["defaultPolicies"] as Record<string, string>) };
  for (const w of pulled.warnings) {
    if (w.code === "CLOCK") doc["now"] = original["now"];
    if (w.code === "GROUPS_UNKNOWN") doc["groups"] = original["groups"];
    if (w.code === "FEATURE_FLAG_UNKNOWN") tenant["featureFlags"] = originalTenant["featureFlags"] ?? {};
    const kind = w.code === "DEFAULT_POLICY_UNKNOWN" ? /"tenant\.defaultPolicies\.(\w+)"/.exec(w.message)?.[1] : undefined;
    const id = kind === undefined ? undefined : (originalTenant["defaultPolicies"] as Record<string, string> | undefined)?.[kind];
    if (kind !== undefined && id !== undefined) defaults[kind] = id;
  }
  return { ...doc, tenant: { ...tenant, defaultPolicies: defaults } };
}

// An escalation's expiration comes back in the API's form (int64 seconds, "172800" for "172800s"): the same time.
const asData = (k: string, v: unknown): unknown =>
  v instanceof Map ? [...v.entries()] : v instanceof Set ? [...v] : typeof v === "function" ? undefined : apiValueOf(k, v);

/** Per task of `tasksOf`: the decision (which policy, which steps) and each user's task actions, as JSON. */
function behaviour(world: World, tasksOf: World): Map<string, string> {
  const out = new Map<string, string>();
  for (const id of tasksOf.tasks.keys()) {
    const task = world.tasks.get(id);
    if (!task) {
      out.set(id, "missing");
      continue;
    }
    const d = decide(world, task);
    const actions = Object.fromEntries(world.users.map((u) => [u.id, taskActionsFor(task, relationTo(world, task, u))]));
    out.set(id, JSON.stringify({ resolution: d.resolution, selection: d.selection, actions }, asData));
  }
  return out;
}

describe("openapi.yaml reads: pull from policy-sim serve over loopback gives the world served", () => {
  it("serve answers every read pull uses, and the token endpoint of client credentials", () => {
    expect(served).toBe(true);
    expect(tokenEndpoint).toBe(true);
  });

  it.each(["open", "all"] as const)("the fixture world pulled back (--state %s) loads strictly and decides every task and every user's task actions the same", async (states) => {
    const doc = JSON.parse(readFileSync("fixtures/world.json", "utf8")) as Json;
    const original = loadWorld(doc);
    if (!original.ok) throw new Error(JSON.stringify(original.error.slice(0, 3)));
    const pulled = await pullResultFromServe(doc, { kind: "token", token: "tok-super" }, states);
    // As written by pull, with no edit: every id resolves (users' roles included), nothing to warn about.
    const strict = loadWorld(pulled.world);
    if (!strict.ok) throw new Error(`${strict.error.length} problems: ${strict.error.slice(0, 3).map((d) => `${d.path}: ${d.message}`).join("; ")}`);
    expect(strict.value.warnings).toEqual([]);
    expect(strict.value.roles).toEqual(original.value.roles);
    expect(pulled.warnings.map((w) => w.code)).not.toContain("ROLES_UNKNOWN");
    expect(pulled.warnings.map((w) => w.code)).not.toContain("ROLE_KIND_UNKNOWN");
    const fixed = loadWorld(asWarnedFixes(pulled, doc));
    if (!fixed.ok) throw new Error(JSON.stringify(fixed.error.slice(0, 3)));
    expect(fixed.value.tasks.size).toBe(states === "all" ? original.value.tasks.size : [...original.value.tasks.values()].filter((t) => t.state === "TASK_STATE_OPEN").length);
    const want = behaviour(original.value, fixed.value);
    const got = behaviour(fixed.value, fixed.value);
    const differing = [...want.keys()].filter((id) => want.get(id) !== got.get(id));
    expect(differing).toEqual([]);
  });

  it.each([1, 2])("a generated world pulled back (seed %i) loads strictly and decides the same", async (seed) => {
    const generated = syntheticWorld({ seed, tasks: 60 }) as Json;
    const admin = (generated["users"] as Json[]).find((u) => Array.isArray(u["roleIds"]) && (u["roleIds"] as string[]).includes("super-admin"));
    if (!admin) throw new Error("the generated world has no super administrator");
    const doc = { ...generated, tokens: { "tok-e2e": admin["id"] } };
    const original = loadWorld(doc);
    if (!original.ok) throw new Error(JSON.stringify(original.error.slice(0, 3)));
    const pulled = await pullResultFromServe(doc, { kind: "token", token: "tok-e2e" });
    const strict = loadWorld(pulled.world);
    expect(strict.ok && strict.value.warnings).toEqual([]);
    const fixed = loadWorld(asWarnedFixes(pulled, doc));
    if (!fixed.ok) throw new Error(JSON.stringify(fixed.error.slice(0, 3)));
    const want = behaviour(original.value, fixed.value);
    const got = behaviour(fixed.value, fixed.value);
    expect([...want.keys()].filter((id) => want.get(id) !== got.get(id))).toEqual([]);
  });

  it("the fixture world", async () => {
    const doc = JSON.parse(readFileSync("fixtures/world.json", "utf8")) as Json;
    const pulled = await pullFromServe(doc, { kind: "token", token: "tok-super" });
    expect(apiSections(pulled)).toEqual(apiSections(doc));
  });

  it("product_admin_access-requests.mdx time limits: a grant's end (AppEntitlementUserView.appEntitlementUserBindingDeprovisionAt) comes back", async () => {
    const base = JSON.parse(readFileSync("fixtures/world.json", "utf8")) as Json;
    const grants = (base["grants"] as Json[]).map((g, i) => (i % 3 === 0 ? { ...g, deprovisionAt: `2026-12-0${1 + (i % 9)}T09:00:00Z` } : g));
    const doc = { ...base, grants };
    const pulled = await pullFromServe(doc, { kind: "token", token: "tok-super" });
    expect((pulled["grants"] as Json[]).filter((g) => g["deprovisionAt"]).length).toBe(grants.filter((g) => g["deprovisionAt"]).length);
    expect(apiSections(pulled)).toEqual(apiSections(doc));
  });

  it("openapi.yaml AppEntitlementUserView.appEntitlementUserBindingCreatedAt: when a grant was made comes back; one the world does not know stays unknown (the twin's epoch stand-in is not taken for a time)", async () => {
    const base = JSON.parse(readFileSync("fixtures/world.json", "utf8")) as Json;
    const grants = (base["grants"] as Json[]).map((g, i) => {
      if (i % 2 === 0) return g;
      const { createdAt: _made, ...unknown } = g;
      return unknown;
    });
    const doc = { ...base, grants };
    const pulled = await pullFromServe(doc, { kind: "token", token: "tok-super" });
    const key = (g: Json) => `${String(g["appId"])}/${String(g["appEntitlementId"])}/${String(g["identityUserId"])}`;
    const given = new Map(grants.map((g) => [key(g), g["createdAt"]]));
    // Times the world knows from the task that granted (the twin answers its outcome time).
    const byTask = new Map<string, unknown>();
    for (const t of base["tasks"] as Json[]) {
      const grant = ((t["type"] ?? {}) as Json)["grant"] as Json | undefined;
      if (grant?.["outcome"] === "GRANT_OUTCOME_GRANTED") byTask.set(`${String(grant["appId"])}/${String(grant["appEntitlementId"])}/${String(grant["identityUserId"])}`, grant["outcomeTime"]);
    }
    let kept = 0;
    let unknown = 0;
    for (const g of pulled["grants"] as Json[]) {
      const was = given.get(key(g));
      if (was !== undefined) {
        expect(g["createdAt"]).toBe(was);
        kept++;
      } else if (g["createdAt"] === undefined) unknown++;
      else expect(g["createdAt"]).toBe(byTask.get(key(g)));
    }
    expect([kept, unknown].every((n) => n > 10)).toBe(true);
    expect(apiSections({ ...pulled, grants: (pulled["grants"] as Json[]).map((g) => ({ ...g, createdAt: null })) })).toEqual(apiSections({ ...doc, grants: grants.map((g) => ({ ...g, createdAt: null })) }));
  });

  it("openapi.yaml IntrospectResponse.tenantId: the tenant's id comes back, and the twin answers it (real-SDK review: it answered \"\")", async () => {
    const base = JSON.parse(readFileSync("fixtures/world.json", "utf8")) as Json;
    const doc = { ...base, tenant: { ...(base["tenant"] as Json), id: "2Nh6tenantKsuid0000000000001" } };
    const pulled = await pullFromServe(doc, { kind: "token", token: "tok-super" });
    expect((pulled["tenant"] as Json)["id"]).toBe("2Nh6tenantKsuid0000000000001");
    const loaded = loadWorld(pulled);
    expect(loaded.ok && loaded.value.tenant.id).toBe("2Nh6tenantKsuid0000000000001");
    expect(loaded.ok && (saveWorld(loaded.value) as Json)["tenant"]).toMatchObject({ id: "2Nh6tenantKsuid0000000000001" });
    // A world without one pulls without one.
    const { id: _id, ...unnamed } = base["tenant"] as Json;
    const plain = await pullFromServe({ ...base, tenant: unnamed }, { kind: "token", token: "tok-super" });
    expect(Object.hasOwn(plain["tenant"] as Json, "id")).toBe(false);
  });

  it("product_admin_entitlement-config-rules.mdx: the fixture world with configuration rules, and emergency request defaults", async () => {
    const settings = { requestPolicyId: "pol-prod-admin-eng", emergencyGrantEnabled: true, emergencyGrantPolicyId: "pol-emergency-breakglass", maxGrantDuration: "28800s", requestSchemaId: "" };
    const rules = [
      { id: "ecr-b", appId: "app-aws", displayName: "Staging", description: "", condition: 'entitlement.display_name.startsWith("Staging")', enabled: true, priority: 1, settings },
      { id: "ecr-a", appId: "app-aws", displayName: "All", description: "", condition: "", enabled: false, priority: 2, settings: null },
    ];
    const base = JSON.parse(readFileSync("fixtures/world.json", "utf8")) as Json;
    const defaults = [{ appId: "app-github", resourceTypeIds: ["rt-repo"], requestPolicyId: "pol-gh-repo-access", emergencyGrantEnabled: true, emergencyGrantPolicyId: "pol-emergency-breakglass" }];
    const doc = { ...base, entitlementConfigurationRules: rules, resourceTypeDefaults: defaults };
    const pulled = await pullFromServe(doc, { kind: "token", token: "tok-super" });
    expect((pulled["entitlementConfigurationRules"] as Json[]).map((r) => r["id"])).toEqual(["ecr-b", "ecr-a"]);
    expect(apiSections(pulled)).toEqual(apiSections(doc));
  });

  it("openapi.yaml AppAccessRequestDefaults: enabled request defaults without a request policy come back with their emergency policy and maximum duration", async () => {
    const base = JSON.parse(readFileSync("fixtures/world.json", "utf8")) as Json;
    const defaults = [
      { appId: "app-github", resourceTypeIds: ["rt-repo"], requestPolicyId: "", emergencyGrantEnabled: true, emergencyGrantPolicyId: "pol-emergency-breakglass", maxGrantDuration: "3600s" },
      { appId: "app-aws", resourceTypeIds: ["rt-role"], requestPolicyId: "", maxGrantDuration: "28800s" },
    ];
    const doc = { ...base, resourceTypeDefaults: defaults };
    const pulled = await pullFromServe(doc, { kind: "token", token: "tok-super" });
    expect(pulled["resourceTypeDefaults"]).toHaveLength(2);
    expect(apiSections(pulled)).toEqual(apiSections(doc));
  });

  it.each([1, 2, 3])("a generated world (seed %i)", async (seed) => {
    const doc = syntheticWorld({ seed, tasks: 120 }) as Json;
    const admin = (doc["users"] as Json[]).find((u) => Array.isArray(u["roleIds"]) && (u["roleIds"] as string[]).includes("super-admin"));
    if (!admin) throw new Error("the generated world has no super administrator");
    const withToken = { ...doc, tokens: { "tok-e2e": admin["id"] } };
    const pulled = await pullFromServe(withToken, { kind: "token", token: "tok-e2e" });
    expect(apiSections(pulled)).toEqual(apiSections(withToken));
  });

  it("openapi.yaml GET /api/v1/apps/{app_id}/ownerids and …/entitlements/{entitlement_id}/ownerids: with owners only there, as the real API has them, pull brings every app's and entitlement's owners back from serve", async () => {
    const doc = JSON.parse(readFileSync("fixtures/world.json", "utf8")) as Json;
    const api = asTheRealApiAnswers();
    const pulled = await pullResultFromServe(doc, { kind: "token", token: "tok-super" }, "all", api.fetch);
    const entitlements = doc["entitlements"] as Json[];
    expect(api.requests.filter((q) => /^GET \/api\/v1\/apps\/[^/]+\/entitlements\/[^/]+\/ownerids$/.test(q))).toHaveLength(entitlements.length);
    expect(api.requests.filter((q) => /^GET \/api\/v1\/apps\/[^/]+\/ownerids$/.test(q))).toHaveLength((doc["apps"] as Json[]).length);
    expect(entitlements.some((e) => Array.isArray(e["ownerUserIds"]) && e["ownerUserIds"].length > 0)).toBe(true);
    expect(apiSections(pulled.world)).toEqual(apiSections(doc));
    expect(pulled.warnings.map((w) => w.code)).not.toContain("ENTITLEMENT_OWNERS_UNKNOWN");
    // And as the world it is: the tasks decide the same with the owners pulled.
    const original = loadWorld(doc);
    const fixed = loadWorld(asWarnedFixes(pulled, doc));
    if (!original.ok || !fixed.ok) throw new Error("does not load");
    const want = behaviour(original.value, fixed.value);
    const got = behaviour(fixed.value, fixed.value);
    expect([...want.keys()].filter((id) => want.get(id) !== got.get(id))).toEqual([]);
  });

  it("openapi.yaml c1.api.app.v1.App.appOwners (\"The owners of the app\"): an app listing that carries its owners as Users gives them, without a GET of its owner ids", async () => {
    const doc = JSON.parse(readFileSync("fixtures/world.json", "utf8")) as Json;
    const api = asTheRealApiAnswers({ appOwners: true });
    const pulled = await pullResultFromServe(doc, { kind: "token", token: "tok-super" }, "all", api.fetch);
    const owned = (doc["apps"] as Json[]).filter((a) => Array.isArray(a["ownerUserIds"]) && a["ownerUserIds"].length > 0);
    expect(owned.length).toBeGreaterThan(0);
    for (const a of owned) expect(api.requests).not.toContain(`GET /api/v1/apps/${String(a["id"])}/ownerids`);
    expect(apiSections(pulled.world)).toEqual(apiSections(doc));
    expect(JSON.stringify(pulled.world["apps"])).not.toContain("appOwners");
  });

  it("serve's 404s read as pull reads them: a path with no route is `route` (not offered), a missing app's owner ids `object` (none for it)", async () => {
    const loaded = loadWorld(JSON.parse(readFileSync("fixtures/world.json", "utf8")) as Json);
    if (!loaded.ok) throw new Error("does not load");
    const server = await serve({ store: createWorldStore(loaded.value), port: 0, host: "127.0.0.1" });
    try {
      const api = createApiClient({ baseUrl: server.url, fetch, credentials: { kind: "token", token: "tok-super" } });
      expect(await api.call("GET", "/api/v1/apps/app-aws/no_such_listing")).toMatchObject({ ok: false, error: { status: 404, notFound: "route" } });
      expect(await api.call("GET", "/api/v1/apps/app-nope/ownerids")).toMatchObject({ ok: false, error: { status: 404, notFound: "object" } });
      expect(await api.call("GET", "/api/v1/apps/app-aws/entitlements/ent-nope/ownerids")).toMatchObject({ ok: false, error: { status: 404, notFound: "object" } });
    } finally {
      await server.close();
    }
  });

  it("signing in with client credentials (an EdDSA client assertion at /auth/v1/token)", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    const x = publicKey.export({ format: "jwk" }).x;
    const doc = JSON.parse(readFileSync("fixtures/world.json", "utf8")) as Json;
    const withClient = { ...doc, clients: [{ clientId: "pull@northwind/pcc", userId: "u-it-dir", displayName: "pull", publicJwk: { kty: "OKP", crv: "Ed25519", x } }] };
    const clientSecret = `${CLIENT_SECRET_PREFIX}${Buffer.from(JSON.stringify(privateKey.export({ format: "jwk" }))).toString("base64")}`;
    const pulled = await pullFromServe(withClient, { kind: "client", clientId: "pull@northwind/pcc", clientSecret });
    expect(apiSections(pulled)).toEqual(apiSections(doc));
  });
});
