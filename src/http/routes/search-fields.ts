/**
 * The request fields of the search operations: one decoder per field shape (a wrong shape or an
 * unknown enum member is INVALID_ARGUMENT naming the field), and the refusal of the fields the
 * world has no data for.
 *
 * Every property of a served search request is either read by its route or listed as
 * {@link Unmodelled} in the route's {@link SearchFields}: a field the simulation cannot answer is
 * refused with UNIMPLEMENTED (501) as soon as it would filter something, instead of being skipped
 * and answering a wider list with a 200. Its SDK default (`[]`, `""`, `false`, `null`, the
 * `…_UNSPECIFIED` member) filters nothing and is accepted. `search-fields.test.ts` checks each
 * table against the request schema in openapi.yaml.
 */
import { isRealTimestamp } from "../../codec/schema.js";
import type { JsonObject } from "../../model/json.js";
import { err, ok, type Result } from "../../result.js";
import { type HttpFailure, refusal } from "../error-body.js";
import { invalid } from "./refuse.js";

/**
 * A decoded JSON request body.
 *
 * @example
 * ```ts
 * const body: Body = { pageSize: 50, taskStates: ["TASK_STATE_OPEN"] };
 * ```
 */
export type Body = Readonly<Record<string, unknown>>;

/**
 * One decoded request field, or the refusal naming it.
 *
 * @example
 * ```ts
 * const states: Field<readonly string[]> = enums(body, "taskStates", KNOWN_TASK_STATES);
 * ```
 */
export type Field<T> = Result<T, HttpFailure>;

const absent = (v: unknown): v is undefined | null => v === undefined || v === null;

/**
 * A `repeated string` field: `[]` when absent or null.
 *
 * @example
 * ```ts
 * strings({ appIds: ["app-aws"] }, "appIds"); // ok(["app-aws"])
 * ```
 */
export function strings(body: Body, key: string): Field<readonly string[]> {
  const v = body[key];
  if (absent(v)) return ok([]);
  if (!Array.isArray(v) || v.some((s) => typeof s !== "string")) return invalid(key, `${key} must be an array of strings`);
  return ok(v as string[]);
}

/**
 * A `string` field: `""` when absent or null.
 *
 * @example
 * ```ts
 * text({ query: "admin" }, "query"); // ok("admin")
 * ```
 */
export function text(body: Body, key: string): Field<string> {
  const v = body[key];
  if (absent(v)) return ok("");
  return typeof v === "string" ? ok(v) : invalid(key, `${key} must be a string`);
}

/**
 * A `bool` field: `false` when absent or null.
 *
 * @example
 * ```ts
 * flag({ includeDeleted: true }, "includeDeleted"); // ok(true)
 * ```
 */
export function flag(body: Body, key: string): Field<boolean> {
  const v = body[key];
  if (absent(v)) return ok(false);
  return typeof v === "boolean" ? ok(v) : invalid(key, `${key} must be true or false`);
}

/**
 * A `google.protobuf.Timestamp` field as epoch milliseconds; `undefined` when absent, null or `""`.
 *
 * @example
 * ```ts
 * timestamp({ createdAfter: "2026-11-22T09:00:00Z" }, "createdAfter"); // ok(1795338000000)
 * ```
 */
export function timestamp(body: Body, key: string): Field<number | undefined> {
  const v = body[key];
  if (absent(v) || v === "") return ok(undefined);
  // RFC 3339 with its offset, as protojson reads a Timestamp: `Date.parse` alone would take a
  // naive "2026-11-20T00:00:00" in the server's own time zone, and "Nov 22 2026" or "1" at all.
  if (!isRealTimestamp(v)) return invalid(key, `${key} must be an RFC 3339 timestamp with its offset, such as "2026-11-22T09:00:00Z"; found ${JSON.stringify(v)}`);
  return ok(Date.parse(v));
}

/**
 * A `google.protobuf.Duration` field (`"3600s"`, `"1.5s"`) as milliseconds; `undefined` when absent,
 * null or `""`.
 *
 * @example
 * ```ts
 * duration({ olderThanDuration: "86400s" }, "olderThanDuration"); // ok(86400000)
 * ```
 */
export function duration(body: Body, key: string): Field<number | undefined> {
  const v = body[key];
  if (absent(v) || v === "") return ok(undefined);
  const m = typeof v === "string" ? /^(\d{1,12})(?:\.(\d{1,9}))?s$/.exec(v) : null;
  if (!m) return invalid(key, `${key} must be a duration in seconds such as "86400s"`);
  return ok(Number(m[1]) * 1000 + Number(`0.${m[2] ?? "0"}`) * 1000);
}

const unknownMember = (key: string, v: unknown, members: readonly string[]) =>
  invalid(key, `${key}: ${JSON.stringify(v)} is not one of ${members.join(", ")}`);

/**
 * An enum field: its `…_UNSPECIFIED` member (`members[0]`) when absent, null or `""`; another
 * string is INVALID_ARGUMENT.
 *
 * @example
 * ```ts
 * member({ sortBy: "TASK_SEARCH_SORT_BY_TICKET_ID" }, "sortBy", TASK_SORTS); // ok("TASK_SEARCH_SORT_BY_TICKET_ID")
 * ```
 */
export function member(body: Body, key: string, members: readonly string[]): Field<string> {
  const v = body[key];
  if (absent(v) || v === "") return ok(members[0] ?? "");
  if (typeof v !== "string" || !members.includes(v)) return unknownMember(key, v, members);
  return ok(v);
}

/**
 * A `repeated` enum field, each value one of `members`.
 *
 * @example
 * ```ts
 * enums({ taskStates: ["BOGUS"] }, "taskStates", KNOWN_TASK_STATES); // INVALID_ARGUMENT naming taskStates
 * ```
 */
export function enums(body: Body, key: string, members: readonly string[]): Field<readonly string[]> {
  const v = strings(body, key);
  if (!v.ok) return v;
  const bad = v.value.find((s) => !members.includes(s));
  return bad === undefined ? v : unknownMember(key, bad, members);
}

/**
 * A `repeated` ref field of `{id}` objects, as their ids.
 *
 * @example
 * ```ts
 * refIds({ refs: [{ id: "1001" }] }, "refs"); // ok(["1001"])
 * ```
 */
export function refIds(body: Body, key: string): Field<readonly string[]> {
  const v = body[key];
  if (absent(v)) return ok([]);
  if (!Array.isArray(v)) return invalid(key, `${key} must be an array of {id} refs`);
  const ids: string[] = [];
  for (const r of v) {
    const id = typeof r === "object" && r !== null ? (r as Record<string, unknown>)["id"] : undefined;
    if (typeof id !== "string") return invalid(key, `${key} must be an array of {id} refs`);
    ids.push(id);
  }
  return ok(ids);
}

/**
 * A `repeated` ref field of `{appId, id}` objects (entitlement and account refs).
 *
 * @example
 * ```ts
 * appRefs({ refs: [{ appId: "app-aws", id: "ent-ro" }] }, "refs"); // ok([{ appId: "app-aws", id: "ent-ro" }])
 * ```
 */
export function appRefs(body: Body, key: string): Field<readonly { readonly appId: string; readonly id: string }[]> {
  const v = body[key];
  if (absent(v)) return ok([]);
  const bad = invalid(key, `${key} must be an array of {appId, id} refs`);
  if (!Array.isArray(v)) return bad;
  const out: { appId: string; id: string }[] = [];
  for (const r of v) {
    const o = typeof r === "object" && r !== null ? (r as Record<string, unknown>) : {};
    const appId = o["appId"] ?? "";
    if (typeof appId !== "string" || typeof o["id"] !== "string") return bad;
    out.push({ appId, id: o["id"] });
  }
  return ok(out);
}

/**
 * The paths of an `expandMask` (`{paths: [...]}`), each one of `known` (which includes `"*"`).
 *
 * @example
 * ```ts
 * expandMask({ expandMask: { paths: ["app_id"] } }, ["*", "app_id"]); // ok(["app_id"])
 * ```
 */
export function expandMask(body: Body, known: readonly string[]): Field<readonly string[]> {
  const mask = body["expandMask"];
  if (absent(mask)) return ok([]);
  if (typeof mask !== "object" || Array.isArray(mask)) return invalid("expandMask", "expandMask must be an object with paths");
  const paths = strings(mask as Body, "paths");
  if (!paths.ok) return invalid("expandMask.paths", "expandMask.paths must be an array of strings");
  const unknown = paths.value.filter((p) => !known.includes(p));
  if (unknown.length > 0)
    return invalid("expandMask.paths", `unknown expand path${unknown.length > 1 ? "s" : ""} ${unknown.map((p) => JSON.stringify(p)).join(", ")}; allowed: ${known.join(", ")}`);
  return ok(paths.value);
}

type Values<T> = { readonly [K in keyof T]: T[K] extends Result<infer V, HttpFailure> ? V : never };

/**
 * Several decoded request fields at once: their values by name, or the first failure.
 *
 * @example
 * ```ts
 * const f = collect({ page: pageFromBody(body), query: text(body, "query") });
 * if (f.ok) f.value.query;
 * ```
 */
export function collect<T extends Record<string, Result<unknown, HttpFailure>>>(fields: T): Result<Values<T>, HttpFailure> {
  const out: Record<string, unknown> = {};
  for (const [k, r] of Object.entries(fields)) {
    if (!r.ok) return r;
    out[k] = r.value;
  }
  return ok(out as Values<T>);
}

/**
 * A search request read whole: its fields decoded ({@link collect}), then the fields the world has
 * no data for refused when they would filter ({@link refuseUnmodelled}). The first failure.
 *
 * @example
 * ```ts
 * const f = searchRequest(body, APP_SEARCH_FIELDS, { page: pageFromBody(body), name: text(body, "displayName") });
 * if (f.ok) f.value.name;
 * ```
 */
export function searchRequest<T extends Record<string, Result<unknown, HttpFailure>>>(body: Body, table: SearchFields, fields: T): Result<Values<T>, HttpFailure> {
  const f = collect(fields);
  if (!f.ok) return f;
  const refused = refuseUnmodelled(body, table);
  return refused.ok ? f : refused;
}

/**
 * The shape of a request field the world has no data for, so that it is still decoded (a wrong
 * shape is INVALID_ARGUMENT) and its SDK default told from a value that would filter.
 *
 * @example
 * ```ts
 * const s: FieldShape = { kind: "enums", members: ["NHI_TYPE_UNSPECIFIED", "NHI_TYPE_APP_REGISTRATION"] };
 * ```
 */
export type FieldShape =
  | { readonly kind: "strings" }
  | { readonly kind: "text" }
  | { readonly kind: "flag" }
  | { readonly kind: "timestamp" }
  | { readonly kind: "message" }
  | { readonly kind: "member"; readonly members: readonly string[] }
  | { readonly kind: "enums"; readonly members: readonly string[] };

/**
 * A request field the simulation refuses: its shape, and what the world lacks to answer it.
 *
 * @example
 * ```ts
 * const alias: Unmodelled = { shape: { kind: "text" }, lacks: "entitlement aliases" };
 * ```
 */
export interface Unmodelled {
  readonly shape: FieldShape;
  /** Completes "the simulation's world has no …". */
  readonly lacks: string;
}

/**
 * The request fields of one search operation: those its route reads, and those it refuses.
 *
 * @example
 * ```ts
 * const fields: SearchFields = { implemented: ["pageSize", "pageToken", "query"], unmodelled: { alias: { shape: { kind: "text" }, lacks: "entitlement aliases" } } };
 * ```
 */
export interface SearchFields {
  readonly implemented: readonly string[];
  readonly unmodelled: Readonly<Record<string, Unmodelled>>;
}

/** Whether the field, decoded by its shape, holds something other than its SDK default. */
function filters(body: Body, key: string, shape: FieldShape): Field<boolean> {
  switch (shape.kind) {
    case "strings": {
      const v = strings(body, key);
      return v.ok ? ok(v.value.length > 0) : v;
    }
    case "text": {
      const v = text(body, key);
      return v.ok ? ok(v.value !== "") : v;
    }
    case "flag": {
      const v = flag(body, key);
      return v.ok ? ok(v.value) : v;
    }
    case "timestamp": {
      const v = timestamp(body, key);
      return v.ok ? ok(v.value !== undefined) : v;
    }
    case "message": {
      const v = body[key];
      if (absent(v)) return ok(false);
      // An empty message still restricts: SecretAgingFilter with no bounds keeps the secrets only.
      return typeof v === "object" && !Array.isArray(v) ? ok(true) : invalid(key, `${key} must be an object`);
    }
    case "member": {
      const v = member(body, key, shape.members);
      return v.ok ? ok(v.value !== shape.members[0]) : v;
    }
    case "enums": {
      const v = enums(body, key, shape.members);
      return v.ok ? ok(v.value.length > 0) : v;
    }
    default: {
      const never: never = shape;
      return never;
    }
  }
}

/**
 * UNIMPLEMENTED (501) for a request field the simulation has no data to answer, naming the field
 * in the message and in the ErrorInfo's `metadata.field`.
 *
 * @example
 * ```ts
 * unimplemented("alias", "entitlement aliases"); // err({ status: 501, code: "UNIMPLEMENTED", reason: "UNMODELLED_FIELD", … })
 * ```
 */
export function unimplemented(field: string, lacks: string): Result<never, HttpFailure> {
  return err(
    refusal("UNIMPLEMENTED", `${field} is not implemented by the simulation: its world has no ${lacks}. Leave ${field} unset to search without it.`, {
      reason: "UNMODELLED_FIELD",
      metadata: { field },
    }),
  );
}

/**
 * Decodes the operation's unmodelled fields and refuses the first one that would filter; `ok` when
 * each is absent or its SDK default.
 *
 * @example
 * ```ts
 * refuseUnmodelled({ alias: "" }, ENTITLEMENT_SEARCH_FIELDS).ok; // true
 * refuseUnmodelled({ alias: "admin" }, ENTITLEMENT_SEARCH_FIELDS).ok; // false: 501 naming alias
 * ```
 */
export function refuseUnmodelled(body: Body, fields: SearchFields): Field<true> {
  for (const [key, u] of Object.entries(fields.unmodelled)) {
    const f = filters(body, key, u.shape);
    if (!f.ok) return f;
    if (f.value) return unimplemented(key, u.lacks);
  }
  return ok(true);
}

/**
 * The `expanded` array of a list answer: each related object once, tagged with its `@type`, and the
 * `$.expanded[i]` path of each.
 *
 * @example
 * ```ts
 * const ex = new Expanded();
 * ex.pathOf([ex.add(TYPE_URLS.app, app.id, () => appWire(app))]); // "$.expanded[0]"
 * ```
 */
export class Expanded {
  readonly items: JsonObject[] = [];
  readonly #at = new Map<string, number>();

  /** Appends an object once (by type and key) and returns its index. */
  add(typeUrl: string, key: string, encode: () => JsonObject): number {
    const k = `${typeUrl}\u0000${key}`;
    const seen = this.#at.get(k);
    if (seen !== undefined) return seen;
    this.items.push({ "@type": typeUrl, ...encode() });
    this.#at.set(k, this.items.length - 1);
    return this.items.length - 1;
  }

  /** The JSONPath of some items, `""` for none. */
  pathOf(indexes: readonly number[]): string {
    return indexes.length === 0 ? "" : `$.expanded[${indexes.join(",")}]`;
  }
}

const protoName = /_([a-z0-9])/g;

/**
 * A request body with its fields under their JSON names: protojson (and so the service) reads a
 * field by its proto name too (`task_states` for `taskStates`), at every depth (`deep: false`: the
 * top level only, for bodies whose values hold maps keyed by data, such as form values). A field given under
 * both names is INVALID_ARGUMENT, as protojson refuses it. Searches read the JSON names only, so a
 * body in proto names would otherwise filter nothing and answer a wider list with a 200.
 *
 * @example
 * ```ts
 * jsonNames({ task_states: ["TASK_STATE_OPEN"], page_size: 10 }); // ok({ taskStates: [...], pageSize: 10 })
 * jsonNames({ expand_mask: { paths: [] }, data: { reason_code: "x" } }, { deep: false }); // the top level only: data's keys are data
 * ```
 */
export function jsonNames(body: Body, options: { readonly deep?: boolean } = {}): Field<Body> {
  const deep = options.deep ?? true;
  let problem: string | undefined;
  const convert = (v: unknown, at: string): unknown => {
    if (Array.isArray(v)) return v.map((x, i) => convert(x, `${at}[${i}]`));
    if (typeof v !== "object" || v === null) return v;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(v)) {
      const name = key.replace(protoName, (_m, c: string) => c.toUpperCase());
      if (Object.hasOwn(out, name)) problem ??= `${at}${at ? "." : ""}${name} is given twice (as ${key} and ${name}); give it once`;
      const value: unknown = (v as Record<string, unknown>)[key];
      Object.defineProperty(out, name, { value: deep ? convert(value, `${at}${at ? "." : ""}${name}`) : value, enumerable: true, writable: true, configurable: true });
    }
    return out;
  };
  const converted = convert(body, "") as Body;
  return problem === undefined ? ok(converted) : invalid(problem.split(" ")[0] ?? "", problem);
}
