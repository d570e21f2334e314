/**
 * `pull` end to end: `policy-sim serve` on a world W over loopback, `pullWorld` through the real
 * HTTP stack, and the world pulled must equal W — simulation-only fields aside (roles, tenant
 * settings, groups, tokens, grant sources, owners, the clock, comments, access reviews). Runs once
 * the served API has the read routes pull uses; until then it is skipped, not faked.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ROUTES } from "../src/http/routes/index.js";
import { serve } from "../src/http/server.js";
import { createWorldStore } from "../src/http/world-store.js";
import { pullWorld } from "../src/pull/pull-world.js";
import { syntheticWorld } from "../src/testing/synthetic-world.js";
import { loadWorld } from "../src/world/load-world.js";
import { saveWorld } from "../src/world/save-world.js";

type Json = Record<string, unknown>;
const READ_ROUTES = [
  ["GET", "/api/v1/policies"],
  ["GET", "/api/v1/users"],
  ["GET", "/api/v1/apps"],
  ["POST", "/api/v1/search/tasks"],
  ["GET", "/api/v1/apps/{app_id}/entitlements"],
  ["GET", "/api/v1/apps/{app_id}/app_users"],
] as const;
const served = READ_ROUTES.every(([m, p]) => ROUTES.some((r) => r.method === m && r.path === p));

/** The sections the API gives, as saveWorld writes them, in a stable order. */
function apiSections(doc: Json): Json {
  const loaded = loadWorld(doc, { strict: false });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.error.slice(0, 3)));
  const saved = saveWorld(loaded.value) as Json;
  const sorted = (k: string, strip: readonly string[] = []) =>
    ((saved[k] as Json[] | undefined) ?? [])
      .map((x) => Object.fromEntries(Object.entries(x).filter(([f]) => !strip.includes(f))))
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  return {
    policies: saved["policies"],
    tasks: saved["tasks"],
    users: sorted("users"),
    apps: sorted("apps", ["ownerUserIds"]),
    entitlements: sorted("entitlements", ["ownerUserIds"]),
    appUsers: sorted("appUsers"),
  };
}

async function pullFromServe(doc: Json, token: string): Promise<Json> {
  const loaded = loadWorld(doc);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.error.slice(0, 3)));
  const server = await serve({ store: createWorldStore(loaded.value), port: 0, host: "127.0.0.1" });
  try {
    const r = await pullWorld({ baseUrl: server.url, fetch, credentials: { kind: "token", token }, states: "all", pageSize: 17, concurrency: 3 });
    if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
    return r.value.world;
  } finally {
    await server.close();
  }
}

describe.skipIf(!served)("openapi.yaml reads: pull from policy-sim serve over loopback gives the world served", () => {
  it("the fixture world", async () => {
    const doc = JSON.parse(readFileSync("fixtures/world.json", "utf8")) as Json;
    const pulled = await pullFromServe(doc, "tok-super");
    expect(apiSections(pulled)).toEqual(apiSections(doc));
  });

  it.each([1, 2, 3])("a generated world (seed %i)", async (seed) => {
    const doc = syntheticWorld({ seed, tasks: 120 }) as Json;
    const admin = (doc["users"] as Json[]).find((u) => Array.isArray(u["roleIds"]) && (u["roleIds"] as string[]).includes("super-admin"));
    if (!admin) throw new Error("the generated world has no super administrator");
    const withToken = { ...doc, tokens: { "tok-e2e": admin["id"] } };
    const pulled = await pullFromServe(withToken, "tok-e2e");
    expect(apiSections(pulled)).toEqual(apiSections(withToken));
  });
});
