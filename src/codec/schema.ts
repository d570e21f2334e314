/**
 * A small schema language for the wire messages. Each message is described once, as a map from model
 * property to a codec (scalar, list, map, nested message) or a oneof group; `decode` and `encode` are
 * derived from that description, so the hundreds of fields are data, not code.
 *
 * Schemas are typed by the hand-written model types (`message<Task>({...})`): a missing or extra
 * property, or a codec whose value type differs from the property's, is a compile error. Codecs are
 * invariant in their value type for that reason (`Codec<string>` is not a `Codec<string | null>`).
 *
 * Wire rules the derived codecs follow (docs/model-conventions.md, DOMAIN.md §1):
 * - decoding fills every absent non-oneof field with its default, treats an explicit `null` field as
 *   absent, keeps unknown fields under `$unknown`, and collects every problem with its JSONPath;
 * - encoding writes every non-oneof field, a oneof as its one member, and `$unknown` back as it came.
 */
import type { JsonObject, JsonValue } from "../model/json.js";
import type { UnknownVariant } from "../model/common.js";
import type { Result } from "../result.js";
import { type Diagnostic, type DiagnosticCode, describeValue, pathIndex, pathKey } from "./diagnostic.js";
import { cloneJson, hasOwn, isJsonObject, setOwn } from "./json-tools.js";

/** How deep messages may nest before decoding gives up (real documents stay under 20). */
const MAX_DEPTH = 128;

/**
 * The state one decode call threads through the codecs: the problems found so far and the depth.
 *
 * @example
 * ```ts
 * const ctx: DecodeContext = { diags: [], depth: 0 };
 * ```
 */
export interface DecodeContext {
  readonly diags: Diagnostic[];
  depth: number;
}

function report(ctx: DecodeContext, code: DiagnosticCode, path: string, message: string): void {
  ctx.diags.push({ code, path, message });
}

/**
 * A codec's schema as data, for tools that walk it (the test arbitraries generate wire documents
 * from it, so generators and codec cannot drift apart).
 *
 * @example
 * ```ts
 * const n: SchemaNode = { t: "list", item: { t: "string" } };
 * ```
 */
export type SchemaNode =
  | { readonly t: "string" | "bool" | "int32" | "timestamp" | "duration" | "durationOrInt64" | "jsonObject" | "json" }
  | { readonly t: "int64"; readonly unsigned: boolean }
  | { readonly t: "enum"; readonly members: readonly string[] }
  | { readonly t: "nullable" | "optional" | "omitEmpty"; readonly inner: SchemaNode }
  | { readonly t: "list"; readonly item: SchemaNode }
  | { readonly t: "map"; readonly value: SchemaNode }
  | { readonly t: "lazy"; readonly get: () => SchemaNode }
  | { readonly t: "message"; readonly fields: readonly FieldNode[] }
  | { readonly t: "union"; readonly members: readonly MemberNode[] };

/**
 * One property of a message schema: a field, or a oneof group held under `prop`.
 *
 * @example
 * ```ts
 * const f: FieldNode = { prop: "id", node: { t: "string" } };
 * ```
 */
export type FieldNode =
  | { readonly prop: string; readonly node: SchemaNode }
  | { readonly prop: string; readonly oneof: { readonly open: boolean; readonly members: readonly MemberNode[] } };

/**
 * One member of a oneof schema: its fields, or (for a member that is itself a oneof) that union.
 *
 * @example
 * ```ts
 * const m: MemberNode = { key: "skipStep", fields: [] };
 * ```
 */
export type MemberNode =
  | { readonly key: string; readonly fields: readonly FieldNode[] }
  | { readonly key: string; readonly wrap: SchemaNode };

/**
 * The schema of a codec, as data.
 *
 * @example
 * ```ts
 * schemaOf(str); // { t: "string" }
 * ```
 */
export function schemaOf<T>(codec: Codec<T>): SchemaNode {
  return codec["~node"];
}

/**
 * Decodes and encodes one model value. `decode` never throws and always returns a value (the default
 * when the input is wrong, with a diagnostic recorded). `missing` is the value of an absent field.
 *
 * @example
 * ```ts
 * const c: Codec<string> = str;
 * c.decode("x", "$", { diags: [], depth: 0 }); // "x"
 * ```
 */
export interface Codec<T> {
  readonly "~tag": "codec";
  readonly "~node": SchemaNode;
  /** Phantom: makes the codec invariant in `T`, so schemas match the model types exactly. */
  readonly "~type"?: (value: T) => T;
  /** An optional property: absent from the model when absent from the wire. */
  readonly optional: boolean;
  decode(json: unknown, path: string, ctx: DecodeContext): T;
  encode(value: T): JsonValue;
  missing(): T;
  /** Whether a value is left out of the encoded message. */
  omit?(value: T): boolean;
}

/**
 * A oneof inside a message that has other fields: the model holds the union (or `null`) under one
 * property, the wire holds the member under its own name.
 *
 * @example
 * ```ts
 * const until = oneof<WaitUntil>({ condition: { condition: str }, duration: { duration }, untilTime: {...} });
 * ```
 */
export interface OneofGroup<U> {
  readonly "~tag": "oneof";
  readonly "~type"?: (value: U) => U;
  readonly "~members": readonly MemberNode[];
  /** When no known member is set, an unknown key holding an object is taken as a new member. */
  readonly open: boolean;
  readonly members: Readonly<Record<string, RuntimeMember>>;
}

/** The untyped runtime form of one oneof member. */
interface RuntimeMember {
  readonly node: MemberNode;
  decode(json: unknown, path: string, ctx: DecodeContext, kind: string): Record<string, unknown>;
  encode(value: Readonly<Record<string, unknown>>): JsonValue;
}

type ModelKeys<T> = Exclude<keyof T, "$unknown" | "$unknownOuter" | "kind">;

/**
 * The schema of a message of model type `T`: one codec or oneof group per model property, in wire
 * order.
 *
 * @example
 * ```ts
 * const fields: FieldSpecs<AppResourceRef> = { appId: str, appResourceTypeId: str, id: str };
 * ```
 */
export type FieldSpecs<T> = { readonly [K in ModelKeys<T>]: FieldSpec<T[K]> };

/**
 * The schema of one model property.
 *
 * @example
 * ```ts
 * const s: FieldSpec<string> = str;
 * ```
 */
export type FieldSpec<V> = Codec<V> | OneofGroup<Exclude<V, null>>;

/**
 * A oneof member whose message is itself nothing but a oneof: the model holds that union under the
 * member's name (`{ kind: "connector", connector: {...} }`).
 *
 * @example
 * ```ts
 * const m: WrapSpec<ConnectorProvision> = wrap(connectorProvision);
 * ```
 */
export interface WrapSpec<U> {
  readonly "~tag": "wrap";
  readonly union: Codec<U>;
}

/**
 * The schema of one oneof member of model type `V`: its fields, or a {@link WrapSpec}.
 *
 * @example
 * ```ts
 * const m: MemberSpec<RevokeSourceRequest> = { requestUserId: str };
 * ```
 */
export type MemberSpec<V extends { readonly kind: string }> = FieldSpecs<V> | WrapSpec<V[V["kind"] & keyof V]>;

/**
 * The members of union `U`, by wire name: exactly the kinds of `U` other than `unknown`.
 *
 * @example
 * ```ts
 * const m: MemberSpecs<AccountStorage> = { doNotSave: {}, saveToVault: { vaultIds: list(str) } };
 * ```
 */
export type MemberSpecs<U extends { readonly kind: string }> = {
  readonly [K in Exclude<U["kind"], "unknown">]: MemberSpec<Extract<U, { readonly kind: K }>>;
};

/**
 * The model type a codec produces.
 *
 * @example
 * ```ts
 * type S = Infer<typeof str>; // string
 * ```
 */
export type Infer<C> = C extends Codec<infer T> ? T : never;

// ---------------------------------------------------------------------------------------------
// Scalars

function scalar<T>(
  node: SchemaNode,
  missing: T,
  decode: (json: unknown, path: string, ctx: DecodeContext) => T,
  encode: (value: T) => JsonValue = (v) => v as JsonValue,
): Codec<T> {
  return { "~tag": "codec", "~node": node, optional: false, decode, encode, missing: () => missing };
}

function expected(ctx: DecodeContext, code: DiagnosticCode, path: string, what: string, v: unknown): void {
  report(ctx, code, path, `expected ${what}, found ${describeValue(v)}`);
}

/**
 * A string; `""` when unset.
 *
 * @example
 * ```ts
 * const fields = { displayName: str };
 * ```
 */
export const str: Codec<string> = scalar({ t: "string" }, "", (v, path, ctx) => {
  if (typeof v === "string") return v;
  expected(ctx, "EXPECTED_STRING", path, "a string", v);
  return "";
});

/**
 * A boolean; `false` when unset.
 *
 * @example
 * ```ts
 * const fields = { emergencyAccess: bool };
 * ```
 */
export const bool: Codec<boolean> = scalar({ t: "bool" }, false, (v, path, ctx) => {
  if (typeof v === "boolean") return v;
  expected(ctx, "EXPECTED_BOOLEAN", path, "a boolean", v);
  return false;
});

const DECIMAL = /^[+-]?\d+$/;
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/**
 * An int32 as a JSON number; `0` when unset. A decimal string is accepted too (protojson accepts
 * it) and becomes a number.
 *
 * @example
 * ```ts
 * const fields = { commentCount: int32 };
 * ```
 */
export const int32: Codec<number> = scalar({ t: "int32" }, 0, (v, path, ctx) => {
  if (typeof v === "number") {
    if (Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX) return v;
    report(ctx, "INVALID_INT32", path, `expected a 32-bit integer, found ${describeValue(v)}`);
    return 0;
  }
  if (typeof v === "string" && DECIMAL.test(v)) {
    const n = Number(v);
    if (n >= INT32_MIN && n <= INT32_MAX) return n;
    report(ctx, "INVALID_INT32", path, `expected a 32-bit integer, found ${describeValue(v)}`);
    return 0;
  }
  expected(ctx, "EXPECTED_NUMBER", path, "a number", v);
  return 0;
});

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

function int64Codec(unsigned: boolean): Codec<string> {
  const what = unsigned ? "a uint64" : "an int64";
  const inRange = (n: bigint): boolean => (unsigned ? n >= 0n && n <= UINT64_MAX : n >= INT64_MIN && n <= INT64_MAX);
  return scalar({ t: "int64", unsigned }, "0", (v, path, ctx) => {
    if (typeof v === "string") {
      if (v === "" || (DECIMAL.test(v) && inRange(BigInt(v)))) return v;
    } else if (typeof v === "number" && Number.isSafeInteger(v) && inRange(BigInt(v))) {
      // Hand-written input often writes int64s as numbers; a safe integer is exact, so take it.
      return String(v);
    }
    report(ctx, "INVALID_INT64", path, `expected ${what} as a decimal string, found ${describeValue(v)}`);
    return "0";
  });
}

/**
 * An int64 as a decimal string; `"0"` when unset, `""` kept as `""`. Also accepts a safe-integer JSON
 * number, normalised to its decimal string.
 *
 * @example
 * ```ts
 * const fields = { numericId: int64 };
 * ```
 */
export const int64: Codec<string> = int64Codec(false);

/**
 * A uint64 as a decimal string (the validation rules' length bounds); as {@link int64}.
 *
 * @example
 * ```ts
 * const fields = { maxLen: opt(uint64) };
 * ```
 */
export const uint64: Codec<string> = int64Codec(true);

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

function isRfc3339(s: string): boolean {
  const m = RFC3339.exec(s);
  if (m === null) return false;
  const [y, mo, d, h, mi, se] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number, number];
  const oh = m[8] === undefined ? 0 : Number(m[8]);
  const om = m[9] === undefined ? 0 : Number(m[9]);
  const daysInMonth = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth && h <= 23 && mi <= 59 && se <= 59 && oh <= 23 && om <= 59;
}

/**
 * An RFC 3339 timestamp or `null`; `null` when unset.
 *
 * @example
 * ```ts
 * const fields = { createdAt: timestamp };
 * ```
 */
export const timestamp: Codec<string | null> = scalar<string | null>({ t: "timestamp" }, null, (v, path, ctx) => {
  if (v === null) return null;
  if (typeof v === "string" && isRfc3339(v)) return v;
  report(ctx, "INVALID_TIMESTAMP", path, `expected an RFC 3339 timestamp, found ${describeValue(v)}`);
  return null;
});

const DURATION = /^-?\d+(\.\d{1,9})?s$/;

/**
 * A duration string (`"3600s"`, `"1.5s"`) or `null`; `null` when unset, `""` kept as `""`.
 *
 * @example
 * ```ts
 * const fields = { grantDuration: duration };
 * ```
 */
export const duration: Codec<string | null> = scalar<string | null>({ t: "duration" }, null, (v, path, ctx) => {
  if (v === null) return null;
  if (typeof v === "string" && (v === "" || DURATION.test(v))) return v;
  report(ctx, "INVALID_DURATION", path, `expected a duration like "3600s", found ${describeValue(v)}`);
  return null;
});

/**
 * Approval escalation `expiration`: a duration string (the spec) or an int64 string of seconds (the
 * public description); both are accepted and kept as they came. A safe-integer number becomes its
 * decimal string.
 *
 * @example
 * ```ts
 * const fields = { expiration: durationOrInt64 };
 * ```
 */
export const durationOrInt64: Codec<string | null> = scalar<string | null>({ t: "durationOrInt64" }, null, (v, path, ctx) => {
  if (v === null) return null;
  if (typeof v === "string" && (v === "" || DURATION.test(v) || (DECIMAL.test(v) && BigInt(v) >= INT64_MIN && BigInt(v) <= INT64_MAX))) {
    return v;
  }
  if (typeof v === "number" && Number.isSafeInteger(v)) return String(v);
  report(ctx, "INVALID_DURATION", path, `expected a duration like "3600s" or an int64 string, found ${describeValue(v)}`);
  return null;
});

/**
 * An open enum, given its `const` object; unset is the object's first member (`…_UNSPECIFIED`).
 * Unknown members are strings like any other and are kept.
 *
 * @example
 * ```ts
 * const fields = { state: enumOf(TaskState) };
 * ```
 */
export function enumOf<const O extends Readonly<Record<string, string>>>(members: O): Codec<O[keyof O] | (string & {})> {
  const first = Object.values(members)[0] ?? "";
  return scalar<O[keyof O] | (string & {})>({ t: "enum", members: Object.values(members) }, first, (v, path, ctx) => {
    if (typeof v === "string") return v;
    expected(ctx, "EXPECTED_STRING", path, "an enum name (string)", v);
    return first;
  });
}

/**
 * A free-form JSON object, deep-copied in and out.
 *
 * @example
 * ```ts
 * const fields = { data: nullable(jsonObject) };
 * ```
 */
export const jsonObject: Codec<JsonObject> = scalar<JsonObject>(
  { t: "jsonObject" },
  {},
  (v, path, ctx) => {
    if (isJsonObject(v)) return cloneJson(v) as JsonObject;
    expected(ctx, "EXPECTED_OBJECT", path, "an object", v);
    return {};
  },
  (v) => cloneJson(v),
);

/**
 * Any JSON value, for fields whose shape the spec does not give; `null` when unset.
 *
 * @example
 * ```ts
 * const fields = { minDate: jsonValue };
 * ```
 */
export const jsonValue: Codec<JsonValue> = scalar<JsonValue>({ t: "json" }, null, (v) => cloneJson(v), (v) => cloneJson(v));

// ---------------------------------------------------------------------------------------------
// Combinators

/**
 * Allows `null`, which is also the unset value.
 *
 * @example
 * ```ts
 * const fields = { policy: nullable(policyInstance) };
 * ```
 */
export function nullable<T>(inner: Codec<T>): Codec<T | null> {
  return {
    "~tag": "codec",
    "~node": { t: "nullable", inner: inner["~node"] },
    optional: false,
    decode: (v, path, ctx) => (v === null ? null : inner.decode(v, path, ctx)),
    encode: (v) => (v === null ? null : inner.encode(v)),
    missing: () => null,
  };
}

/**
 * A field with presence: absent from the model when absent from the wire, and then left out of the
 * encoded message (the validation rules mark "unset" by omission).
 *
 * @example
 * ```ts
 * const fields = { minLen: opt(uint64) };
 * ```
 */
export function opt<T>(inner: Codec<T>): Codec<T | undefined> {
  return {
    "~tag": "codec",
    "~node": { t: "optional", inner: inner["~node"] },
    optional: true,
    // protojson reads `null` as "not set", unless null is a value of the field (lists, messages).
    decode: (v, path, ctx) => (v === null && inner.missing() !== null ? undefined : inner.decode(v, path, ctx)),
    encode: (v) => (v === undefined ? null : inner.encode(v)),
    missing: () => undefined,
    omit: (v) => v === undefined,
  };
}

/**
 * A string left out of the encoded message when empty: a scalar member of a oneof, which the service
 * writes only when set (the rule's `stepKey` / `policyId`).
 *
 * @example
 * ```ts
 * const fields = { stepKey: omitEmpty(str) };
 * ```
 */
export function omitEmpty(inner: Codec<string>): Codec<string> {
  return { ...inner, "~node": { t: "omitEmpty", inner: inner["~node"] }, omit: (v) => v === "" };
}

/**
 * A list; `null` when unset (`null` and `[]` are both kept as received).
 *
 * @example
 * ```ts
 * const fields = { approverIds: list(str) };
 * ```
 */
export function list<T>(item: Codec<T>): Codec<readonly T[] | null> {
  return {
    "~tag": "codec",
    "~node": { t: "list", item: item["~node"] },
    optional: false,
    decode: (v, path, ctx) => {
      if (v === null) return null;
      if (!Array.isArray(v)) {
        expected(ctx, "EXPECTED_ARRAY", path, "an array", v);
        return null;
      }
      const out: T[] = [];
      for (let i = 0; i < v.length; i++) out.push(item.decode(v[i], pathIndex(path, i), ctx));
      return out;
    },
    encode: (v) => (v === null ? null : v.map((x) => item.encode(x))),
    missing: () => null,
  };
}

/**
 * A map from string keys; `null` when unset.
 *
 * @example
 * ```ts
 * const fields = { annotations: map(str) };
 * ```
 */
export function map<T>(value: Codec<T>): Codec<Readonly<Record<string, T>> | null> {
  return {
    "~tag": "codec",
    "~node": { t: "map", value: value["~node"] },
    optional: false,
    decode: (v, path, ctx) => {
      if (v === null) return null;
      if (!isJsonObject(v)) {
        expected(ctx, "EXPECTED_OBJECT", path, "an object (map)", v);
        return null;
      }
      const out: Record<string, T> = {};
      for (const key of Object.keys(v)) setOwn(out, key, value.decode(v[key], pathKey(path, key), ctx));
      return out;
    },
    encode: (v) => {
      if (v === null) return null;
      const out: Record<string, JsonValue> = {};
      for (const key of Object.keys(v)) setOwn(out, key, value.encode(v[key] as T));
      return out;
    },
    missing: () => null,
  };
}

/**
 * A codec defined later, for recursive messages.
 *
 * @example
 * ```ts
 * const steps = list(lazy(() => provisionPolicy));
 * ```
 */
export function lazy<T>(get: () => Codec<T>): Codec<T> {
  return {
    "~tag": "codec",
    "~node": { t: "lazy", get: () => get()["~node"] },
    optional: false,
    decode: (v, path, ctx) => get().decode(v, path, ctx),
    encode: (v) => get().encode(v),
    missing: () => get().missing(),
  };
}

// ---------------------------------------------------------------------------------------------
// Messages and oneofs

type RuntimeSpec = Codec<unknown> | OneofGroup<unknown>;
type RuntimeFields = ReadonlyArray<readonly [string, RuntimeSpec]>;

interface CompiledMessage {
  readonly fields: RuntimeFields;
  readonly nodes: readonly FieldNode[];
  /** Every wire key the message knows: its fields and the members of all its oneofs. */
  readonly known: ReadonlySet<string>;
}

function compile(specs: object): CompiledMessage {
  const fields = Object.entries(specs) as Array<[string, RuntimeSpec]>;
  const known = new Set<string>();
  for (const [prop, spec] of fields) {
    if (spec["~tag"] === "oneof") for (const member of Object.keys(spec.members)) known.add(member);
    else known.add(prop);
  }
  const nodes = fields.map(([prop, spec]): FieldNode =>
    spec["~tag"] === "oneof" ? { prop, oneof: { open: spec.open, members: spec["~members"] } } : { prop, node: spec["~node"] },
  );
  return { fields, nodes, known };
}

function unknownVariant(key: string, raw: unknown): UnknownVariant {
  return { kind: "unknown", key, raw: cloneJson(raw) };
}

/** Finds and decodes the member of one oneof group that `obj` sets; records conflicts. */
function decodeGroup(
  prop: string,
  group: OneofGroup<unknown>,
  obj: Readonly<Record<string, unknown>>,
  keys: readonly string[],
  known: ReadonlySet<string>,
  path: string,
  ctx: DecodeContext,
  claimed: Set<string>,
): unknown {
  let found: string | undefined;
  for (const key of keys) {
    if (!hasOwn(group.members, key)) continue;
    claimed.add(key);
    // protojson reads a null member as "not set".
    if (obj[key] === null) continue;
    if (found === undefined) found = key;
    else report(ctx, "ONEOF_CONFLICT", path, `oneof "${prop}" has more than one member set: "${found}" and "${key}"`);
  }
  if (found !== undefined) {
    const member = group.members[found] as RuntimeMember;
    return member.decode(obj[found], pathKey(path, found), ctx, found);
  }
  if (group.open) {
    for (const key of keys) {
      // A proto field name is never empty, so a "" key stays an unknown field.
      if (key === "" || known.has(key) || claimed.has(key) || !isJsonObject(obj[key])) continue;
      claimed.add(key);
      return unknownVariant(key, obj[key]);
    }
  }
  return null;
}

function decodeUnknownFields(
  obj: Readonly<Record<string, unknown>>,
  keys: readonly string[],
  skip: (key: string) => boolean,
): Record<string, unknown> | undefined {
  let out: Record<string, unknown> | undefined;
  for (const key of keys) {
    if (skip(key)) continue;
    out ??= {};
    setOwn(out, key, cloneJson(obj[key]));
  }
  return out;
}

/** Decodes the fields of a message into `out`; returns the keys it did not know. */
function decodeFields(
  msg: CompiledMessage,
  obj: Readonly<Record<string, unknown>>,
  path: string,
  ctx: DecodeContext,
  out: Record<string, unknown>,
): void {
  const keys = Object.keys(obj);
  const claimed = new Set<string>();
  for (const [prop, spec] of msg.fields) {
    if (spec["~tag"] === "oneof") {
      out[prop] = decodeGroup(prop, spec, obj, keys, msg.known, path, ctx, claimed);
      continue;
    }
    const raw = hasOwn(obj, prop) ? obj[prop] : undefined;
    const absent = raw === undefined || (raw === null && !spec.optional);
    const value = absent ? spec.missing() : spec.decode(raw, pathKey(path, prop), ctx);
    if (value !== undefined || !spec.optional) out[prop] = value;
  }
  const unknown = decodeUnknownFields(obj, keys, (k) => msg.known.has(k) || claimed.has(k));
  if (unknown !== undefined) out["$unknown"] = unknown;
}

function encodeFields(msg: CompiledMessage, value: Readonly<Record<string, unknown>>, out: Record<string, unknown>): void {
  for (const [prop, spec] of msg.fields) {
    const v = value[prop];
    if (spec["~tag"] === "oneof") {
      if (v === null || v === undefined) continue;
      const member = v as Readonly<Record<string, unknown>> & { readonly kind: string };
      if (member.kind === "unknown") {
        const u = member as unknown as UnknownVariant;
        if (u.key !== "") setOwn(out, u.key, cloneJson(u.raw));
        continue;
      }
      const codec = spec.members[member.kind];
      if (codec !== undefined && hasOwn(spec.members, member.kind)) out[member.kind] = codec.encode(member);
      continue;
    }
    if (v === undefined) {
      // A hand-built model may leave out a field its type requires; write the default.
      if (!spec.optional) out[prop] = spec.encode(spec.missing());
      continue;
    }
    if (spec.omit?.(v) === true) continue;
    out[prop] = spec.encode(v);
  }
  const unknown = value["$unknown"];
  if (isJsonObject(unknown)) for (const key of Object.keys(unknown)) setOwn(out, key, cloneJson(unknown[key]));
}

function enter(ctx: DecodeContext, path: string): boolean {
  if (ctx.depth >= MAX_DEPTH) {
    report(ctx, "TOO_DEEP", path, `messages nest more than ${MAX_DEPTH} levels deep`);
    return false;
  }
  ctx.depth++;
  return true;
}

/**
 * Options of a message codec.
 *
 * @example
 * ```ts
 * const options: MessageOptions<Rule> = { check: (rule, path, report) => {} };
 * ```
 */
export interface MessageOptions<T> {
  /** A cross-field check run after decoding (for a oneof of scalars, which the fields cannot see). */
  readonly check?: (value: T, path: string, report: (code: DiagnosticCode, path: string, message: string) => void) => void;
}

/**
 * A message: a JSON object whose properties are described by `fields`. Not nullable by itself; wrap
 * it in {@link nullable} for a message-typed field.
 *
 * @example
 * ```ts
 * const appResourceRef = message<AppResourceRef>({ appId: str, appResourceTypeId: str, id: str });
 * ```
 */
export function message<T extends object>(fields: FieldSpecs<T>, options: MessageOptions<T> = {}): Codec<T> {
  const msg = compile(fields);
  const defaults = (): T => {
    const out: Record<string, unknown> = {};
    for (const [prop, spec] of msg.fields) {
      if (spec["~tag"] === "oneof") out[prop] = null;
      else if (!spec.optional) out[prop] = spec.missing();
    }
    return out as T;
  };
  return {
    "~tag": "codec",
    "~node": { t: "message", fields: msg.nodes },
    optional: false,
    decode: (v, path, ctx) => {
      if (!isJsonObject(v)) {
        expected(ctx, "EXPECTED_OBJECT", path, "an object", v);
        return defaults();
      }
      if (!enter(ctx, path)) return defaults();
      const out: Record<string, unknown> = {};
      decodeFields(msg, v, path, ctx, out);
      ctx.depth--;
      options.check?.(out as T, path, (code, p, m) => report(ctx, code, p, m));
      return out as T;
    },
    encode: (v) => {
      const out: Record<string, unknown> = {};
      encodeFields(msg, v as Readonly<Record<string, unknown>>, out);
      return out as JsonValue;
    },
    missing: defaults,
  };
}

/**
 * Marks a oneof member whose message is itself nothing but a oneof.
 *
 * @example
 * ```ts
 * const members = { connector: wrap(connectorProvision) };
 * ```
 */
export function wrap<U>(union: Codec<U>): WrapSpec<U> {
  return { "~tag": "wrap", union };
}

function isWrap(spec: object): spec is WrapSpec<unknown> {
  return hasOwn(spec, "~tag") && (spec as { readonly "~tag": unknown })["~tag"] === "wrap";
}

function compileMember(key: string, spec: object): RuntimeMember {
  if (isWrap(spec)) {
    const union = spec.union;
    return {
      node: { key, wrap: union["~node"] },
      decode: (json, path, ctx, kind) => ({ kind, [kind]: union.decode(json, path, ctx) }),
      encode: (value) => union.encode(value[value["kind"] as string]),
    };
  }
  const msg = compile(spec);
  return {
    node: { key, fields: msg.nodes },
    decode: (json, path, ctx, kind) => {
      const out: Record<string, unknown> = { kind };
      if (!isJsonObject(json)) {
        expected(ctx, "EXPECTED_OBJECT", path, "an object", json);
        return out;
      }
      if (!enter(ctx, path)) return out;
      decodeFields(msg, json, path, ctx, out);
      ctx.depth--;
      return out;
    },
    encode: (value) => {
      const out: Record<string, unknown> = {};
      encodeFields(msg, value, out);
      return out as JsonValue;
    },
  };
}

function compileMembers(members: object): Record<string, RuntimeMember> {
  const out: Record<string, RuntimeMember> = {};
  for (const [key, spec] of Object.entries(members) as Array<[string, object]>) out[key] = compileMember(key, spec);
  return out;
}

/**
 * A oneof inside a message with other fields. `open` (for oneofs every message sets, like the kind of
 * a step instance) reads an unknown key holding an object as a member this version does not know,
 * when no known member is set; otherwise unknown keys are unknown fields of the message.
 *
 * @example
 * ```ts
 * const fields = { instance: oneof<StepInstance>({ ... }, { open: true }) };
 * ```
 */
export function oneof<U extends { readonly kind: string }>(
  members: MemberSpecs<U>,
  options: { readonly open?: boolean } = {},
): OneofGroup<U> {
  const compiled = compileMembers(members);
  return {
    "~tag": "oneof",
    "~members": Object.values(compiled).map((m) => m.node),
    open: options.open ?? false,
    members: compiled,
  };
}

/**
 * A message that is nothing but a oneof: the model value is the union itself. Any key besides a known
 * member is kept: the first (when no known member is set) as the `unknown` member, the others under
 * `$unknownOuter`. An object with no key at all is `{ kind: "unknown", key: "", raw: null }`.
 *
 * @example
 * ```ts
 * const revokeSource = union<RevokeSource>({ expired: { expiredAt: timestamp }, ... });
 * ```
 */
export function union<U extends { readonly kind: string }>(members: MemberSpecs<U>): Codec<U> {
  const compiled = compileMembers(members);
  const none = (): U => unknownVariant("", null) as unknown as U;
  return {
    "~tag": "codec",
    "~node": { t: "union", members: Object.values(compiled).map((m) => m.node) },
    optional: false,
    decode: (v, path, ctx) => {
      if (!isJsonObject(v)) {
        expected(ctx, "EXPECTED_OBJECT", path, "an object", v);
        return none();
      }
      const keys = Object.keys(v);
      let found: string | undefined;
      const claimed = new Set<string>();
      for (const key of keys) {
        if (!hasOwn(compiled, key)) continue;
        claimed.add(key);
        if (v[key] === null) continue;
        if (found === undefined) found = key;
        else report(ctx, "ONEOF_CONFLICT", path, `oneof has more than one member set: "${found}" and "${key}"`);
      }
      let out: Record<string, unknown>;
      if (found !== undefined) {
        out = (compiled[found] as RuntimeMember).decode(v[found], pathKey(path, found), ctx, found);
      } else {
        // A proto field name is never empty, so a "" key is an unknown field, never a member.
        const key = keys.find((k) => k !== "" && !claimed.has(k));
        if (key !== undefined) claimed.add(key);
        out = { ...unknownVariant(key ?? "", key === undefined ? null : v[key]) };
      }
      const outer = decodeUnknownFields(v, keys, (k) => claimed.has(k));
      if (outer !== undefined) out["$unknownOuter"] = outer;
      return out as U;
    },
    encode: (value) => {
      const v = value as unknown as Readonly<Record<string, unknown>> & { readonly kind: string };
      const out: Record<string, unknown> = {};
      if (v.kind === "unknown") {
        const u = v as unknown as UnknownVariant;
        if (u.key !== "") setOwn(out, u.key, cloneJson(u.raw));
      } else {
        const member = hasOwn(compiled, v.kind) ? compiled[v.kind] : undefined;
        if (member !== undefined) out[v.kind] = member.encode(v);
      }
      const outer = v["$unknownOuter"];
      if (isJsonObject(outer)) for (const key of Object.keys(outer)) setOwn(out, key, cloneJson(outer[key]));
      return out as JsonValue;
    },
    missing: none,
  };
}

// ---------------------------------------------------------------------------------------------
// Entry points

/**
 * Runs a codec over untrusted input: the value, or every problem found. Never throws: a value that
 * throws when read (a proxy, a getter) becomes an `UNREADABLE_INPUT` diagnostic.
 *
 * @example
 * ```ts
 * const r = runDecode(message<AppResourceRef>({ appId: str, appResourceTypeId: str, id: str }), json);
 * ```
 */
export function runDecode<T>(codec: Codec<T>, json: unknown): Result<T, Diagnostic[]> {
  const ctx: DecodeContext = { diags: [], depth: 0 };
  let value: T;
  try {
    value = codec.decode(json, "$", ctx);
  } catch (e: unknown) {
    ctx.diags.push({ code: "UNREADABLE_INPUT", path: "$", message: `input could not be read: ${e instanceof Error ? e.message : String(e)}` });
    return { ok: false, error: ctx.diags };
  }
  return ctx.diags.length === 0 ? { ok: true, value } : { ok: false, error: ctx.diags };
}
