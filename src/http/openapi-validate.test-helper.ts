/**
 * Test helper: validates HTTP bodies against the service's own OpenAPI 3.1 description
 * (the service's OpenAPI description (`openapi.yaml`, in the reference material beside the repository)) with Ajv's JSON Schema 2020-12 validator, which is what
 * OpenAPI 3.1 schemas are. Used by the loopback tests of every route: a 2xx body against its
 * operation's response schema, each `expanded` item against the schema its `@type` names, and every
 * error body against the service's status schema.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { parse } from "yaml";

/** Where the reference lives: `shared/` is beside the repository (a symlink in worktrees, a copy in CI). */
export const OPENAPI_PATH = fileURLToPath(new URL("../../../shared/reference/openapi.yaml", import.meta.url));

/**
 * Whether the reference is there. CI always has it (`.ci/run` checks); a clone without `../shared`
 * beside it runs every test, but the checks of bodies against the OpenAPI then pass without
 * looking (`test/reference-notice.global-setup.ts` says so once at the start of the run), and the
 * suites that only read the OpenAPI are skipped.
 */
export const OPENAPI_AVAILABLE = existsSync(OPENAPI_PATH);
if (!OPENAPI_AVAILABLE && process.env["CI"] !== undefined && process.env["CI"] !== "" && process.env["CI"] !== "false")
  throw new Error(`CI needs the service's OpenAPI description at ${OPENAPI_PATH} (../shared/reference/openapi.yaml beside the repository)`);

/**
 * The OpenAPI document as JSON. Parsing 3 MB of YAML takes a second, so the JSON is cached in tmp by size and mtime.
 *
 * @example
 * ```ts
 * const paths = openapiDocument()["paths"];
 * ```
 */
export function openapiDocument(): Record<string, unknown> {
  return loadDocument();
}

function loadDocument(): Record<string, unknown> {
  const st = statSync(OPENAPI_PATH);
  const cache = join(tmpdir(), `policy-sim-openapi-${st.size}-${Math.floor(st.mtimeMs)}.json`);
  if (existsSync(cache)) {
    try {
      return JSON.parse(readFileSync(cache, "utf8")) as Record<string, unknown>;
    } catch {
      // A torn cache file: parse the YAML again below.
    }
  }
  const doc = parse(readFileSync(OPENAPI_PATH, "utf8"), { maxAliasCount: -1 }) as Record<string, unknown>;
  try {
    writeFileSync(cache, JSON.stringify(doc));
  } catch {
    // No writable tmp: parse every time.
  }
  return doc;
}

interface Operation {
  readonly operationId?: string;
  readonly responses?: Record<string, { readonly content?: Record<string, { readonly schema?: { readonly $ref?: string } }> }>;
  readonly requestBody?: { readonly content?: Record<string, { readonly schema?: { readonly $ref?: string } }> };
}

const DOC_ID = "openapi";

/**
 * The date-times the service's TypeScript SDK accepts (zod's `datetime({ offset: true })`): a valid
 * calendar date, `T`, a 24-hour time with seconds and any fraction, then `Z` or a `±hh[:mm]` offset.
 *
 * @example
 * ```ts
 * SDK_DATE_TIME.test("2026-11-25T12:00:00Z"); // true; "2026-11-25t12:00:00z" is false
 * ```
 */
export const SDK_DATE_TIME =
  /^(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|02-(?:0[1-9]|1\d|2[0-8])))T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:[+-]\d{2}(?::?\d{2})?|Z)$/;
/** The schema of every non-2xx body of the service (`default` responses). */
export const STATUS_SCHEMA = "google.rpc.Status";

let ajv: Ajv2020 | undefined;
let doc: Record<string, unknown> | undefined;
const compiled = new Map<string, ValidateFunction>();

function setup(): { ajv: Ajv2020; doc: Record<string, unknown> } {
  if (ajv && doc) return { ajv, doc };
  doc = loadDocument();
  ajv = new Ajv2020({ logger: false, strict: false, allErrors: true, validateFormats: true, discriminator: false });
  // ajv-formats is CommonJS with a default export; under NodeNext its default is the module object.
  const mod = addFormatsModule as unknown as { default?: (a: Ajv2020) => unknown } & ((a: Ajv2020) => unknown);
  (mod.default ?? mod)(ajv);
  // Protobuf's integer formats: the type check is Ajv's; int64 travels as a string and is checked by pattern below.
  for (const f of ["int32", "uint32", "int64", "uint64", "double", "float", "base64"]) ajv.addFormat(f, true);
  // Protobuf's JSON writes a Duration as seconds with an "s" ("3600s", "0.5s"), not ISO 8601.
  ajv.addFormat("duration", /^-?\d+(\.\d{1,9})?s$/);
  // The service's TypeScript SDK parses every date-time with zod's `datetime({ offset: true })`,
  // which is stricter than RFC 3339 (and ajv-formats): an upper-case `T` and `Z`, seconds present,
  // no leap second. A body the SDK would throw on must fail here too.
  ajv.addFormat("date-time", SDK_DATE_TIME);
  ajv.addSchema({ $id: DOC_ID, components: openEnums((doc as { components: unknown }).components) }, DOC_ID);
  return { ajv, doc };
}

/**
 * The service's SDKs accept values of an enum marked `x-speakeasy-unknown-values: allow` that the
 * OpenAPI does not list (open enums: the API adds members), so such an enum checks only its type.
 * This is also how the spec's own enum names (e.g. `TASK_ORIGIN_CHATAPP`) reach a client intact.
 */
function openEnums(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(openEnums);
  if (typeof node !== "object" || node === null) return node;
  const o = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (k === "enum" && o["x-speakeasy-unknown-values"] === "allow") continue;
    out[k] = openEnums(v);
  }
  return out;
}

function validatorFor(schemaName: string): ValidateFunction {
  const hit = compiled.get(schemaName);
  if (hit) return hit;
  const { ajv, doc } = setup();
  const schemas = (doc["components"] as { schemas: Record<string, unknown> }).schemas;
  if (!Object.hasOwn(schemas, schemaName)) throw new Error(`openapi.yaml has no schema ${schemaName}`);
  const fn = ajv.compile({ $ref: `${DOC_ID}#/components/schemas/${schemaName}` });
  compiled.set(schemaName, fn);
  return fn;
}

/**
 * Ajv's messages, without the cascade a nullable field adds to a real problem below it ("must be
 * null", "must match exactly one schema in oneOf" at every level above the field at fault).
 */
function describe(errors: readonly ErrorObject[] | null | undefined): string[] {
  const all = errors ?? [];
  const real = all.filter((e) => !(e.keyword === "oneOf" || (e.keyword === "type" && (e.params as { type?: unknown }).type === "null")));
  return (real.length > 0 ? real : all).map((e) => `${e.instancePath || "/"} ${e.message ?? "is invalid"}${e.params ? ` ${JSON.stringify(e.params)}` : ""}`);
}

/**
 * The problems of `body` against the named component schema (empty when it validates).
 *
 * @example
 * ```ts
 * expect(schemaProblems("c1.api.user.v1.User", body.userView.user)).toEqual([]);
 * ```
 */
export function schemaProblems(schemaName: string, body: unknown): string[] {
  if (!OPENAPI_AVAILABLE) return [];
  const fn = validatorFor(schemaName);
  return fn(body) ? [] : describe(fn.errors).map((m) => `${schemaName}: ${m}`);
}

/**
 * The operation of `method path` (a template, e.g. `/api/v1/tasks/{id}`) in the OpenAPI.
 *
 * @example
 * ```ts
 * responseSchemaOf("GET", "/api/v1/tasks/{id}"); // "c1.api.task.v1.TaskServiceGetResponse"
 * ```
 */
export function responseSchemaOf(method: string, pathTemplate: string): string {
  if (!OPENAPI_AVAILABLE) return "";
  const { doc } = setup();
  const paths = doc["paths"] as Record<string, Record<string, Operation>>;
  const op = paths[pathTemplate]?.[method.toLowerCase()];
  if (!op) throw new Error(`openapi.yaml has no operation ${method} ${pathTemplate}`);
  const ref = op.responses?.["200"]?.content?.["application/json"]?.schema?.$ref;
  if (!ref) throw new Error(`${method} ${pathTemplate} has no JSON 200 schema`);
  return ref.replace("#/components/schemas/", "");
}

/**
 * Every problem of a 2xx body of `method pathTemplate`: against the operation's response schema,
 * and each item of an `expanded` array against the schema its `@type` names.
 *
 * @example
 * ```ts
 * expect(responseProblems("POST", "/api/v1/search/tasks", await res.json())).toEqual([]);
 * ```
 */
export function responseProblems(method: string, pathTemplate: string, body: unknown): string[] {
  const problems = schemaProblems(responseSchemaOf(method, pathTemplate), body);
  return [...problems, ...expandedProblems(body)];
}

/**
 * The problems of the `expanded` items of a body: each against the schema named by its `@type`
 * (`type.googleapis.com/c1.api.user.v1.User` → `c1.api.user.v1.User`).
 *
 * @example
 * ```ts
 * expect(expandedProblems(body)).toEqual([]);
 * ```
 */
export function expandedProblems(body: unknown): string[] {
  if (typeof body !== "object" || body === null) return [];
  const expanded = (body as { expanded?: unknown }).expanded;
  if (!Array.isArray(expanded)) return [];
  const out: string[] = [];
  expanded.forEach((item: unknown, i) => {
    if (typeof item !== "object" || item === null) return void out.push(`expanded[${i}] is not an object`);
    const { "@type": type, ...rest } = item as Record<string, unknown>;
    if (typeof type !== "string" || !type.startsWith("type.googleapis.com/")) return void out.push(`expanded[${i}] has no @type`);
    out.push(...schemaProblems(type.slice("type.googleapis.com/".length), rest).map((m) => `expanded[${i}] ${m}`));
  });
  return out;
}

/**
 * The problems of an error body against the service's status schema.
 *
 * @example
 * ```ts
 * expect(errorProblems(await res.json())).toEqual([]);
 * ```
 */
export function errorProblems(body: unknown): string[] {
  return schemaProblems(STATUS_SCHEMA, body);
}
