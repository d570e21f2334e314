/**
 * No search request field is silently ignored: every property of every served search's request
 * schema in openapi.yaml is either read by its route or refused as unmodelled (the route's
 * `SearchFields`), and the test proves both from the outside. The property lists, their types and
 * their enum members come from openapi.yaml itself, so a field the API adds shows up here first.
 *
 * - A read field is decoded: a value of the wrong JSON type is INVALID_ARGUMENT naming it, an
 *   unknown enum member too, and every member the OpenAPI lists is accepted.
 * - A refused field answers UNIMPLEMENTED (501) naming it once it would filter, and its SDK default
 *   (`[]`, `null`, `""`, `false`, the `…_UNSPECIFIED` member) is accepted with a 200.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { sampleWorld, type Body } from "../../test/helpers.js";
import { createFetchHandler } from "./fetch-handler.js";
import { errorProblems, expandedProblems, OPENAPI_AVAILABLE, openapiDocument, responseProblems } from "./openapi-validate.test-helper.js";
import { ROUTES } from "./routes/index.js";
import { SEARCH_REQUEST_FIELDS } from "./routes/reads-routes.js";
import { createWorldStore } from "./world-store.js";

interface Property {
  readonly type?: string | readonly string[];
  readonly enum?: readonly string[];
  readonly format?: string;
  readonly items?: Property & { readonly $ref?: string };
  readonly oneOf?: readonly { readonly $ref?: string; readonly type?: string }[];
}
interface Schema {
  readonly properties?: Readonly<Record<string, Property>>;
}
interface Doc {
  readonly paths: Readonly<Record<string, Readonly<Record<string, { operationId?: string; requestBody?: { content?: Record<string, { schema?: { $ref?: string } }> } }>>>>;
  readonly components: { readonly schemas: Readonly<Record<string, Schema>> };
}

const doc = (OPENAPI_AVAILABLE ? openapiDocument() : { paths: {}, components: { schemas: {} } }) as unknown as Doc;
const SEARCHES = ROUTES.filter((r) => r.method === "POST" && r.path.startsWith("/api/v1/search/"));

/** The request schema's name and properties of a served search, as openapi.yaml says. */
function requestOf(path: string): { readonly name: string; readonly properties: Readonly<Record<string, Property>> } {
  const ref = doc.paths[path]?.["post"]?.requestBody?.content?.["application/json"]?.schema?.$ref ?? "";
  const name = ref.replace("#/components/schemas/", "");
  return { name, properties: doc.components.schemas[name]?.properties ?? {} };
}

const typesOf = (p: Property): readonly string[] => (p.oneOf ? ["object"] : typeof p.type === "string" ? [p.type] : (p.type ?? []));
const kindOf = (p: Property): string => typesOf(p).find((t) => t !== "null") ?? "object";
const membersOf = (p: Property): readonly string[] => p.enum ?? p.items?.enum ?? [];

/** What an SDK sends for a field the user left alone. */
function defaultOf(p: Property): unknown {
  switch (kindOf(p)) {
    case "array":
      return [];
    case "boolean":
      return false;
    case "integer":
      return 0;
    case "string":
      return membersOf(p)[0] ?? (typesOf(p).includes("null") ? null : "");
    default:
      return null;
  }
}

/** A value that would filter: a non-empty list, `true`, a set member other than the zero one, some text. */
function filteringValue(p: Property): unknown {
  const members = membersOf(p);
  switch (kindOf(p)) {
    case "array":
      return members.length > 0 ? [members[1]] : p.items?.$ref ? [{ id: "x" }] : ["x"];
    case "boolean":
      return true;
    case "string":
      return members.length > 0 ? members[1] : p.format === "date-time" ? "2026-01-01T00:00:00Z" : "x";
    default:
      return {};
  }
}

/** A value of the wrong JSON type (or, for an enum, no member of it). */
function wrongValue(p: Property): unknown {
  switch (kindOf(p)) {
    case "array":
    case "boolean":
    case "integer":
      return "nope";
    case "string":
      return p.enum ? "BOGUS" : 42;
    default:
      return 42;
  }
}

const world = sampleWorld();
const handler = createFetchHandler(createWorldStore(world));
/** The sample's first app owner: the one user search/user-ownership must be given. */
const OWNER = world.apps[0]?.ownerUserIds[0] ?? "";
const required = (path: string): Body => (path === "/api/v1/search/user-ownership" ? { userId: OWNER } : {});

async function search(path: string, body: Body): Promise<{ status: number; body: Body }> {
  const res = await handler(new Request(`http://sim${path}`, { method: "POST", headers: { authorization: "Bearer tok-super", "content-type": "application/json" }, body: JSON.stringify(body) }));
  const json: Body = await res.json();
  if (res.status === 200) {
    expect(responseProblems("POST", path, json), `${path} ${JSON.stringify(body)}`).toEqual([]);
    expect(expandedProblems(json)).toEqual([]);
  } else expect(errorProblems(json)).toEqual([]);
  return { status: res.status, body: json };
}

describe.skipIf(!OPENAPI_AVAILABLE)("openapi.yaml search requests: every property of every served search is read or refused, never ignored", () => {
  it("every served POST /api/v1/search/… route has its SearchFields, and every SearchFields a served route", () => {
    expect(SEARCHES.length).toBeGreaterThanOrEqual(10);
    expect(SEARCHES.map((r) => r.operationId).sort()).toEqual(Object.keys(SEARCH_REQUEST_FIELDS).sort());
  });

  for (const route of SEARCHES) {
    const { name, properties } = requestOf(route.path);
    const fields = SEARCH_REQUEST_FIELDS[route.operationId] ?? { implemented: [], unmodelled: {} };
    const refused = Object.keys(fields.unmodelled);

    it(`openapi.yaml ${name}: its properties are exactly the fields ${route.path} reads or refuses`, () => {
      expect(Object.keys(properties).length).toBeGreaterThan(0);
      expect([...fields.implemented, ...refused].sort()).toEqual(Object.keys(properties).sort());
      expect(fields.implemented.filter((f) => refused.includes(f))).toEqual([]);
    });

    it(`openapi.yaml ${name}: every property at its SDK default (and every nullable one at null) answers 200`, async () => {
      const defaults = Object.fromEntries(Object.entries(properties).map(([k, p]) => [k, defaultOf(p)]));
      expect((await search(route.path, { ...defaults, ...required(route.path) })).status).toBe(200);
      const nulls = Object.fromEntries(Object.entries(properties).flatMap(([k, p]) => (typesOf(p).includes("null") || p.oneOf ? [[k, null]] : [])));
      expect((await search(route.path, { ...nulls, ...required(route.path) })).status).toBe(200);
    });

    it(`openapi.yaml ${name}: a wrong type or an unknown enum member of any property is INVALID_ARGUMENT naming it`, async () => {
      for (const [k, p] of Object.entries(properties)) {
        const got = await search(route.path, { ...required(route.path), [k]: wrongValue(p) });
        expect(got.status, `${k}: ${JSON.stringify(got.body)}`).toBe(400);
        expect(got.body.details.find((d: Body) => d.fieldViolations)?.fieldViolations[0].field, k).toMatch(new RegExp(`^${k}`));
        if (p.items?.enum) expect((await search(route.path, { ...required(route.path), [k]: ["BOGUS"] })).status, k).toBe(400);
      }
    });

    it(`openapi.yaml ${name}: every enum member the OpenAPI lists is accepted`, async () => {
      for (const [k, p] of Object.entries(properties)) {
        if (p.enum) for (const m of p.enum) expect([200, 501], `${k} = ${m}`).toContain((await search(route.path, { ...required(route.path), [k]: m })).status);
        if (p.items?.enum) expect([200, 501], k).toContain((await search(route.path, { ...required(route.path), [k]: p.items.enum })).status);
      }
    });

    if (refused.length > 0)
      it(`openapi.yaml ${name}: ${refused.join(", ")} — set to filter, each is UNIMPLEMENTED (501) naming it`, async () => {
        for (const k of refused) {
          const p = properties[k] ?? {};
          const got = await search(route.path, { ...required(route.path), [k]: filteringValue(p) });
          expect(got.status, `${k}: ${JSON.stringify(got.body)}`).toBe(501);
          expect(got.body).toMatchObject({ code: 12, details: [{ reason: "UNMODELLED_FIELD", metadata: { field: k } }] });
          expect(got.body.message).toContain(k);
        }
      });
  }
});
