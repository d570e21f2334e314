/**
 * A small schema language for the wire messages. Each message is described once, as a map from model
 * property to a codec (scalar, list, map, nested message) or a oneof group; `decode` and `encode` are
 * derived from that description, so the hundreds of fields are data, not code.
 *
 * Schemas are typed by the hand-written model types (`message<Task>({...})`): a missing or extra
 * property, or a codec whose value type differs from the property's, is a compile error. Codecs are
 * invariant in their value type for that reason (`Codec<string>` is not a `Codec<string | null>`).
 *
 * Wire rules the derived codecs follow (docs/model-conventions.md, docs/domain.md §1):
 * - decoding fills every absent non-oneof field with its default, treats an explicit `null` field as
 *   absent, keeps unknown fields under `$unknown`, and collects every problem with its JSONPath;
 * - encoding writes every non-oneof field, a oneof as its one member, and `$unknown` back as it came.
 */
import type { JsonObject, JsonValue } from "../model/json.js";
import type { UnknownVariant } from "../model/common.js";
import type { Result } from "../result.js";
import { AppendLog } from "../world/append-log.js";
import { type Diagnostic, type DiagnosticCode, describeValue, pathIndex, pathKey } from "./diagnostic.js";
import { cloneJson, freezeJson, hasOwn, isJsonObject, JsonCycle, JsonTooDeep, MAX_JSON_DEPTH, refersToItself, setOwn } from "./json-tools.js";
import { markSharedJson } from "./json-text.js";
import {
  type FieldSteps,
  type FieldsDecoder,
  type FieldsEncoder,
  type UnionEncoder,
  type UnionMemberDecoder,
  type UnionSteps,
  specialiseDecoder,
  specialiseEncoder,
  specialiseUnionDecoder,
  specialiseUnionEncoder,
} from "./specialise.js";

/** How deep messages may nest before decoding gives up (real documents stay under 20). */
const MAX_DEPTH = 128;

/**
 * One step of a JSONPath: an object key or an array index.
 *
 * @example
 * ```ts
 * const steps: PathSegment[] = ["$", "rules", 2]; // $.rules[2]
 * ```
 */
export type PathSegment = string | number;

/**
 * The state one decode call threads through the codecs: the problems found so far, the containers
 * being decoded and the depth.
 *
 * `path` holds the segments of the innermost container's path, from `"$"` down; a codec is told the
 * key or index of its own value beside it. Paths are formatted only when a problem is reported:
 * nearly every value has none, so a path string built for each field up front was wasted work.
 *
 * @example
 * ```ts
 * const ctx: DecodeContext = { diags: [], path: [], depth: 0 };
 * ```
 */
export interface DecodeContext {
  readonly diags: Diagnostic[];
  readonly path: PathSegment[];
  depth: number;
}

function appendSegment(path: string, segment: PathSegment): string {
  return typeof segment === "number" ? pathIndex(path, segment) : pathKey(path, segment);
}

/** The JSONPath of the innermost container being decoded (the holder of a oneof's members). */
function containerPath(ctx: DecodeContext): string {
  const segments = ctx.path;
  let path = String(segments[0]);
  for (let i = 1; i < segments.length; i++) path = appendSegment(path, segments[i] as PathSegment);
  return path;
}

/** The JSONPath of the value at `at` in the innermost container (the root is at `"$"`). */
function pathAt(ctx: DecodeContext, at: PathSegment): string {
  return ctx.path.length === 0 ? String(at) : appendSegment(containerPath(ctx), at);
}

function report(ctx: DecodeContext, code: DiagnosticCode, at: PathSegment, message: string): void {
  ctx.diags.push({ code, path: pathAt(ctx, at), message });
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
 * when the input is wrong, with a diagnostic recorded); `at` is the value's key or index in the
 * innermost container on `ctx.path` (`"$"` for the root). `missing` is the value of an absent field.
 *
 * @example
 * ```ts
 * const c: Codec<string> = str;
 * c.decode("x", "$", { diags: [], path: [], depth: 0 }); // "x"
 * ```
 */
export interface Codec<T> {
  readonly "~tag": "codec";
  readonly "~node": SchemaNode;
  /** Phantom: makes the codec invariant in `T`, so schemas match the model types exactly. */
  readonly "~type"?: (value: T) => T;
  /** An optional property: absent from the model when absent from the wire. */
  readonly optional: boolean;
  decode(json: unknown, at: PathSegment, ctx: DecodeContext): T;
  encode(value: T): JsonValue;
  missing(): T;
  /** Whether a value is left out of the encoded message. */
  omit?(value: T): boolean;
  /**
   * The `typeof` of the JSON values this codec decodes to themselves and encodes as themselves
   * (strings for `str` and enums, booleans for `bool`). Messages and lists take such values without
   * calling `decode`, the most common case by far.
   */
  readonly "~verbatim"?: "string" | "boolean";
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
  readonly members: ReadonlyMap<string, RuntimeMember>;
}

/**
 * The untyped runtime form of one oneof member.
 *
 * @example
 * ```ts
 * const member = group.members.get("approval"); // member?.decode(json, "approval", ctx, "approval")
 * ```
 */
export interface RuntimeMember {
  readonly node: MemberNode;
  decode(json: unknown, at: PathSegment, ctx: DecodeContext, kind: string): Record<string, unknown>;
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
  decode: (json: unknown, at: PathSegment, ctx: DecodeContext) => T,
  encode: (value: T) => JsonValue = (v) => v as JsonValue,
): Codec<T> {
  return { "~tag": "codec", "~node": node, optional: false, decode, encode, missing: () => missing };
}

/** Marks a scalar whose JSON values of type `type` are its model values, unchanged both ways. */
function verbatim<T>(type: "string" | "boolean", codec: Codec<T>): Codec<T> {
  return { ...codec, "~verbatim": type };
}

function expected(ctx: DecodeContext, code: DiagnosticCode, at: PathSegment, what: string, v: unknown): void {
  report(ctx, code, at, `expected ${what}, found ${describeValue(v)}`);
}

/**
 * A string; `""` when unset.
 *
 * @example
 * ```ts
 * const fields = { displayName: str };
 * ```
 */
export const str: Codec<string> = verbatim(
  "string",
  scalar({ t: "string" }, "", (v, at, ctx) => {
    if (typeof v === "string") return v;
    expected(ctx, "EXPECTED_STRING", at, "a string", v);
    return "";
  }),
);

/**
 * A boolean; `false` when unset.
 *
 * @example
 * ```ts
 * const fields = { emergencyAccess: bool };
 * ```
 */
export const bool: Codec<boolean> = verbatim(
  "boolean",
  scalar({ t: "bool" }, false, (v, at, ctx) => {
    if (typeof v === "boolean") return v;
    expected(ctx, "EXPECTED_BOOLEAN", at, "a boolean", v);
    return false;
  }),
);

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
export const int32: Codec<number> = scalar({ t: "int32" }, 0, (v, at, ctx) => {
  if (typeof v === "number") {
    if (Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX) return v;
    report(ctx, "INVALID_INT32", at, `expected a 32-bit integer, found ${describeValue(v)}`);
    return 0;
  }
  if (typeof v === "string" && DECIMAL.test(v)) {
    const n = Number(v);
    if (n >= INT32_MIN && n <= INT32_MAX) return n;
    report(ctx, "INVALID_INT32", at, `expected a 32-bit integer, found ${describeValue(v)}`);
    return 0;
  }
  expected(ctx, "EXPECTED_NUMBER", at, "a number", v);
  return 0;
});

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

function int64Codec(unsigned: boolean): Codec<string> {
  const what = unsigned ? "a uint64" : "an int64";
  const inRange = (n: bigint): boolean => (unsigned ? n >= 0n && n <= UINT64_MAX : n >= INT64_MIN && n <= INT64_MAX);
  // At most 18 characters hold at most 18 digits, below 2^63: ids that short need no BigInt. A
  // minus sign needs it for a uint64 ("-0" is in range, "-1" is not).
  const decimalInRange = (s: string): boolean =>
    DECIMAL.test(s) && ((s.length <= 18 && !(unsigned && s.charCodeAt(0) === 45)) || inRange(BigInt(s)));
  return scalar({ t: "int64", unsigned }, "0", (v, at, ctx) => {
    if (typeof v === "string") {
      if (decimalInRange(v)) return v;
      if (v === "") {
        // protojson refuses "" for an int64 (the service answers 400), and the SDKs cannot read it
        // back (Go's ParseInt fails, the TypeScript SDK's parseInt gives NaN).
        report(ctx, "INVALID_INT64", at, `expected ${what} as a decimal string, found "": write "0" or leave the field out`);
        return "0";
      }
    } else if (typeof v === "number" && Number.isSafeInteger(v) && (!unsigned || v >= 0)) {
      // Hand-written input often writes int64s as numbers; a safe integer is exact, so take it.
      return String(v);
    }
    report(ctx, "INVALID_INT64", at, `expected ${what} as a decimal string, found ${describeValue(v)}`);
    return "0";
  });
}

/**
 * An int64 as a decimal string; `"0"` when unset. Also accepts a safe-integer JSON number,
 * normalised to its decimal string. `""` is refused, as protojson refuses it.
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

// At most nine fraction digits (nanoseconds), as protobuf's JSON reads a Timestamp: a tenth has
// nothing to mean, and the CEL clock refuses it (every rule of a world at such a time failed).
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

/** The number `s` spells in `length` ASCII digits from `start` (the caller has matched them). */
function digitsAt(s: string, start: number, length: number): number {
  let n = 0;
  for (let i = start; i < start + length; i++) n = n * 10 + (s.charCodeAt(i) - 48);
  return n;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) {
    // As Date.UTC, which this replaces, reads years 0-99 as 1900-1999: 0000 is no leap year here.
    const y = year < 100 ? year + 1900 : year;
    return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  }
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function isRfc3339(s: string): boolean {
  // `test` and fixed offsets instead of `exec`'s captures: timestamps are on most messages, and
  // this way checking one allocates nothing. The date and time start the string; an offset, when
  // there is one, is its last six characters.
  if (!RFC3339.test(s)) return false;
  const mo = digitsAt(s, 5, 2);
  const d = digitsAt(s, 8, 2);
  const last = s.charCodeAt(s.length - 1);
  const zulu = last === 90 /* Z */ || last === 122; /* z */
  const oh = zulu ? 0 : digitsAt(s, s.length - 5, 2);
  const om = zulu ? 0 : digitsAt(s, s.length - 2, 2);
  return (
    mo >= 1 &&
    mo <= 12 &&
    d >= 1 &&
    d <= daysInMonth(digitsAt(s, 0, 4), mo) &&
    digitsAt(s, 11, 2) <= 23 &&
    digitsAt(s, 14, 2) <= 59 &&
    digitsAt(s, 17, 2) <= 59 &&
    oh <= 23 &&
    om <= 59
  );
}

/**
 * A valid RFC 3339 timestamp as protobuf's JSON writes it: RFC 3339 allows a lower-case `t` and
 * `z`, protobuf's JSON (and the service's TypeScript SDK, whose parser refuses them) wants them
 * upper-case.
 */
function canonicalTimestamp(s: string): string {
  const last = s.length - 1;
  if (s.charCodeAt(10) !== 116 /* t */ && s.charCodeAt(last) !== 122 /* z */) return s;
  return `${s.slice(0, 10)}T${s.slice(11, last)}${s.charCodeAt(last) === 122 ? "Z" : s.charAt(last)}`;
}

/**
 * An RFC 3339 timestamp or `null`; `null` when unset. A lower-case `t` or `z` is read, and kept
 * upper-case, as protobuf's JSON writes it.
 *
 * @example
 * ```ts
 * const fields = { createdAt: timestamp };
 * ```
 */
export const timestamp: Codec<string | null> = scalar<string | null>({ t: "timestamp" }, null, (v, at, ctx) => {
  if (v === null) return null;
  if (typeof v === "string" && isRfc3339(v)) return canonicalTimestamp(v);
  const tooFine = typeof v === "string" && /\.\d{10,}/.test(v) ? " (at most nine fraction digits, nanoseconds)" : "";
  report(ctx, "INVALID_TIMESTAMP", at, `expected an RFC 3339 timestamp${tooFine}, found ${describeValue(v)}`);
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
export const duration: Codec<string | null> = scalar<string | null>({ t: "duration" }, null, (v, at, ctx) => {
  if (v === null) return null;
  if (typeof v === "string" && (v === "" || DURATION.test(v))) return v;
  report(ctx, "INVALID_DURATION", at, `expected a duration like "3600s", found ${describeValue(v)}`);
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
export const durationOrInt64: Codec<string | null> = scalar<string | null>({ t: "durationOrInt64" }, null, (v, at, ctx) => {
  if (v === null) return null;
  if (typeof v === "string" && (v === "" || DURATION.test(v) || (DECIMAL.test(v) && BigInt(v) >= INT64_MIN && BigInt(v) <= INT64_MAX))) {
    return v;
  }
  if (typeof v === "number" && Number.isSafeInteger(v)) return String(v);
  report(ctx, "INVALID_DURATION", at, `expected a duration like "3600s" or an int64 string, found ${describeValue(v)}`);
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
export function enumOf<const O extends Readonly<Record<string, string>>>(members: O, options: { readonly numbered?: boolean } = {}): Codec<O[keyof O] | (string & {})> {
  const values = Object.values(members);
  const first = values[0] ?? "";
  return verbatim(
    "string",
    scalar<O[keyof O] | (string & {})>({ t: "enum", members: values }, first, (v, at, ctx) => {
      if (typeof v === "string") return v;
      // protojson reads an enum's number too; where the members are numbered in order (the spec
      // gives TYPE_SPEND_REMEDY = 7), a known number is read as its name.
      if (options.numbered === true && typeof v === "number" && Number.isInteger(v) && v >= 0 && v < values.length) return values[v] as O[keyof O];
      expected(ctx, "EXPECTED_STRING", at, "an enum name (string)", v);
      return first;
    }),
  );
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
  (v, at, ctx) => {
    // A value that refers to itself (objects built in code; JSON cannot) would load, then make every save throw.
    if (isJsonObject(v)) return cloneJson(v, MAX_JSON_DEPTH, true) as JsonObject;
    expected(ctx, "EXPECTED_OBJECT", at, "an object", v);
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
export const jsonValue: Codec<JsonValue> = scalar<JsonValue>({ t: "json" }, null, (v) => cloneJson(v, MAX_JSON_DEPTH, true), (v) => cloneJson(v));

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
    decode: (v, at, ctx) => (v === null ? null : inner.decode(v, at, ctx)),
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
    decode: (v, at, ctx) => (v === null && inner.missing() !== null ? undefined : inner.decode(v, at, ctx)),
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

/** An array to fill up to `length`; an empty one when `length` is no array size (a proxy's). */
function sizedArray<T>(length: number): T[] {
  return Number.isInteger(length) && length >= 0 && length <= 0xffffffff ? new Array<T>(length) : [];
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
    decode: (v, at, ctx) => {
      if (v === null) return null;
      if (!Array.isArray(v)) {
        expected(ctx, "EXPECTED_ARRAY", at, "an array", v);
        return null;
      }
      // Sized up front: a first push would reserve 16 slots, and most lists hold one to three items.
      const out = sizedArray<T>(v.length);
      ctx.path.push(at);
      const same = item["~verbatim"];
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        out[i] = typeof x === same ? (x as T) : item.decode(x, i, ctx);
      }
      ctx.path.pop();
      return out;
    },
    encode: (v) => {
      if (v === null) return null;
      const out = sizedArray<JsonValue>(v.length);
      for (let i = 0; i < v.length; i++) out[i] = item.encode(v[i] as T);
      return out;
    },
    missing: () => null,
  };
}

/**
 * A list the model keeps as an {@link AppendLog} (a task's step history): the same wire array and
 * schema as {@link list}; decoding builds the log, encoding writes its items in order.
 *
 * @example
 * ```ts
 * const fields = { history: appendLog(policyStepInstanceCodec) };
 * ```
 */
export function appendLog<T>(item: Codec<T>): Codec<AppendLog<T> | null> {
  const inner = list(item);
  const encodeItem = (x: T): JsonValue => item.encode(x);
  return {
    "~tag": "codec",
    "~node": inner["~node"],
    optional: false,
    decode: (v, at, ctx) => {
      const items = inner.decode(v, at, ctx);
      return items === null ? null : AppendLog.of(items);
    },
    encode: (v) => (v === null ? null : v.map(encodeItem)),
    missing: () => null,
  };
}

/**
 * A map from string keys; `null` when unset, written as `{}`: openapi.yaml types every map it has
 * (`annotations`, `policySteps`, `extra`, a string map field's default) as a plain object, never
 * null, as protojson writes an empty map, and an SDK that checks nullability refuses a `null` one.
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
    decode: (v, at, ctx) => {
      if (v === null) return null;
      if (!isJsonObject(v)) {
        expected(ctx, "EXPECTED_OBJECT", at, "an object (map)", v);
        return null;
      }
      const out: Record<string, T> = {};
      ctx.path.push(at);
      for (const key of Object.keys(v)) setOwn(out, key, value.decode(v[key], key, ctx));
      ctx.path.pop();
      return out;
    },
    encode: (v) => {
      const out: Record<string, JsonValue> = {};
      if (v === null) return out;
      for (const key of Object.keys(v)) setOwn(out, key, value.encode(v[key] as T));
      return out;
    },
    missing: () => null,
  };
}

/**
 * Encodes each frozen value once: later encodings of the same object return the same JSON, itself
 * frozen (deep), so that no reader of one result can change another. For values that are shared and
 * never change, such as the policy snapshot a task carries (a world's policies are deep-frozen when
 * loaded): a response then refers to that JSON instead of writing the policy out again. A value that
 * is not frozen is encoded afresh each time. Decoding is the inner codec's.
 *
 * @example
 * ```ts
 * const fields = { policy: nullable(encodedOnce(policyCodec)) };
 * ```
 */
export function encodedOnce<T extends object>(inner: Codec<T>): Codec<T> {
  // Keyed by the frozen value itself: an entry lives as long as its value, and no value changes.
  const encoded = new WeakMap<T, JsonValue>();
  return {
    ...inner,
    encode: (v) => {
      // Looked up first: a value found was frozen when it was encoded, and stays so.
      let out = encoded.get(v);
      if (out !== undefined) return out;
      if (!Object.isFrozen(v)) return inner.encode(v);
      out = freezeJson(inner.encode(v));
      markSharedJson(out);
      encoded.set(v, out);
      return out;
    },
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
    decode: (v, at, ctx) => get().decode(v, at, ctx),
    encode: (v) => get().encode(v),
    missing: () => get().missing(),
  };
}

// ---------------------------------------------------------------------------------------------
// Messages and oneofs

type RuntimeSpec = Codec<unknown> | OneofGroup<unknown>;

/**
 * One property of a compiled message: a field's codec or a oneof group. Every entry has both slots,
 * so the loops over fields see a single object shape.
 *
 * @example
 * ```ts
 * const field: RuntimeField = { prop: "id", codec: str, group: undefined };
 * ```
 */
export interface RuntimeField {
  readonly prop: string;
  readonly codec: Codec<unknown> | undefined;
  readonly group: OneofGroup<unknown> | undefined;
}

/**
 * A message's schema as the decoder and encoder use it (built once per `message` or oneof member).
 *
 * @example
 * ```ts
 * for (const { prop, codec, group } of msg.fields) {}
 * ```
 */
export interface CompiledMessage {
  readonly fields: readonly RuntimeField[];
  readonly nodes: readonly FieldNode[];
  /** Every wire key the message knows: its fields and the members of all its oneofs. */
  readonly known: ReadonlySet<string>;
  /** Whether one of its oneofs is open, so decoding may claim unknown keys as members. */
  readonly claims: boolean;
  /**
   * The last few key lists found to hold known keys only, the latest first. Documents of one
   * message type mostly list the same keys in the same order (a few orders, where a oneof's member
   * varies), so comparing with these lists (interned strings compare by pointer) usually settles
   * that there is no unknown field, without a set lookup per key.
   */
  readonly knownKeyLists: Array<readonly string[]>;
}

function compile(specs: object): CompiledMessage {
  const fields: RuntimeField[] = [];
  const known = new Set<string>();
  for (const [prop, spec] of Object.entries(specs) as Array<[string, RuntimeSpec]>) {
    if (spec["~tag"] === "oneof") {
      fields.push({ prop, codec: undefined, group: spec });
      for (const member of spec.members.keys()) known.add(member);
    } else {
      fields.push({ prop, codec: spec, group: undefined });
      known.add(prop);
    }
  }
  const nodes = fields.map(({ prop, codec, group }): FieldNode =>
    group !== undefined ? { prop, oneof: { open: group.open, members: group["~members"] } } : { prop, node: (codec as Codec<unknown>)["~node"] },
  );
  return { fields, nodes, known, claims: fields.some((f) => f.group?.open === true), knownKeyLists: [] };
}

function unknownVariant(key: string, raw: unknown): UnknownVariant {
  return { kind: "unknown", key, raw: cloneJson(raw, MAX_JSON_DEPTH) };
}

/**
 * The first key an open oneof can take as a member this version does not know: an object under a
 * key no field, member or earlier oneof has.
 */
function unknownMemberKey(
  obj: Readonly<Record<string, unknown>>,
  keys: readonly string[],
  known: ReadonlySet<string>,
  claimed: readonly string[],
): string | undefined {
  // A proto field name is never empty, so a "" key stays an unknown field.
  return keys.find((key) => key !== "" && !known.has(key) && !claimed.includes(key) && isJsonObject(obj[key]));
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** How many key lists a message remembers (see `CompiledMessage.knownKeyLists`). */
const KNOWN_KEY_LISTS = 4;

/** Whether any of `keys` is unknown to `msg` (not one of its fields or oneof members). */
function hasUnknownKey(msg: CompiledMessage, keys: readonly string[]): boolean {
  const lists = msg.knownKeyLists;
  for (let i = 0; i < lists.length; i++) if (sameKeys(lists[i] as readonly string[], keys)) return false;
  for (const key of keys) if (!msg.known.has(key)) return true;
  if (lists.length === KNOWN_KEY_LISTS) lists.pop();
  lists.unshift(keys);
  return false;
}

/** Copies the keys of `obj` that are neither `known` nor `claimed`, or undefined when there are none. */
function decodeUnknownFields(
  obj: Readonly<Record<string, unknown>>,
  keys: readonly string[],
  known: { has(key: string): boolean },
  claimed: readonly string[] | undefined,
): Record<string, unknown> | undefined {
  let out: Record<string, unknown> | undefined;
  for (const key of keys) {
    if (known.has(key) || (claimed !== undefined && claimed.includes(key))) continue;
    out ??= {};
    const v = obj[key];
    // Kept as data and written back as it came: a value that refers to itself (objects built in
    // code; JSON cannot) would load, then make every save throw (hostile review).
    if (typeof v === "object" && v !== null && refersToItself(v)) throw new JsonCycle();
    setOwn(out, key, cloneJson(v, MAX_JSON_DEPTH));
  }
  return out;
}

// The steps below are shared by the interpreted field loops that follow them and by the functions
// specialise.ts generates, so that both apply one set of rules.

/**
 * Decodes oneof `group` of a message (property `prop`): the member `obj` sets, a member this version
 * does not know that an open group takes (its key is pushed onto `claimed`), or null. Reports a
 * conflict when several members are set.
 */
function decodeGroup(
  prop: string,
  group: OneofGroup<unknown>,
  msg: CompiledMessage,
  obj: Readonly<Record<string, unknown>>,
  keys: readonly string[],
  ctx: DecodeContext,
  claimed: string[] | undefined,
): unknown {
  let found: string | undefined;
  for (const key of keys) {
    if (!group.members.has(key)) continue;
    // protojson reads a null member as "not set".
    if (obj[key] === null) continue;
    if (found === undefined) found = key;
    else {
      const message = `oneof "${prop}" has more than one member set: "${found}" and "${key}"`;
      ctx.diags.push({ code: "ONEOF_CONFLICT", path: containerPath(ctx), message });
    }
  }
  if (found !== undefined) return (group.members.get(found) as RuntimeMember).decode(obj[found], found, ctx, found);
  if (!group.open || claimed === undefined) return null;
  const key = unknownMemberKey(obj, keys, msg.known, claimed);
  if (key === undefined) return null;
  claimed.push(key);
  return unknownVariant(key, obj[key]);
}

/** Keeps the keys of `obj` that no field or oneof of `msg` took under `out.$unknown`. */
function addUnknownFields(
  msg: CompiledMessage,
  obj: Readonly<Record<string, unknown>>,
  keys: readonly string[],
  claimed: readonly string[] | undefined,
  out: Record<string, unknown>,
): void {
  // A claimed key is not a known one, so only a document without claims can skip the search.
  if ((claimed === undefined || claimed.length === 0) && !hasUnknownKey(msg, keys)) return;
  const unknown = decodeUnknownFields(obj, keys, msg.known, claimed);
  if (unknown !== undefined) out["$unknown"] = unknown;
}

/** Writes the member `value` of oneof `group` into `out` under its wire key (nothing when unset). */
function encodeGroup(group: OneofGroup<unknown>, value: unknown, out: Record<string, unknown>): void {
  if (value === null || value === undefined) return;
  const member = value as Readonly<Record<string, unknown>> & { readonly kind: string };
  if (member.kind === "unknown") {
    const u = member as unknown as UnknownVariant;
    if (u.key !== "") setOwn(out, u.key, cloneJson(u.raw));
    return;
  }
  const runtime = group.members.get(member.kind);
  if (runtime !== undefined) out[member.kind] = runtime.encode(member);
}

/** Writes the unknown fields a decoded message kept back into `out`, as they came. */
function encodeUnknownFields(value: Readonly<Record<string, unknown>>, out: Record<string, unknown>): void {
  const unknown = value["$unknown"];
  if (isJsonObject(unknown)) for (const key of Object.keys(unknown)) setOwn(out, key, cloneJson(unknown[key]));
}

// Object.hasOwn itself rather than the hasOwn wrapper: generated code then calls the builtin directly.
const fieldSteps: FieldSteps = { hasOwn: Object.hasOwn, decodeGroup, addUnknownFields, encodeGroup, encodeUnknownFields };

/** Decodes the fields of a message into `out` and returns it; the message's own segment is on `ctx.path`. */
function decodeFields(
  msg: CompiledMessage,
  obj: Readonly<Record<string, unknown>>,
  ctx: DecodeContext,
  out: Record<string, unknown>,
): Record<string, unknown> {
  const keys = Object.keys(obj);
  // Keys an open oneof took as a member this version does not know.
  const claimed = msg.claims ? [] : undefined;
  for (const { prop, codec, group } of msg.fields) {
    if (group !== undefined) {
      out[prop] = decodeGroup(prop, group, msg, obj, keys, ctx, claimed);
      continue;
    }
    const spec = codec as Codec<unknown>;
    const raw = hasOwn(obj, prop) ? obj[prop] : undefined;
    const absent = raw === undefined || (raw === null && !spec.optional);
    const value = absent ? spec.missing() : typeof raw === spec["~verbatim"] ? raw : spec.decode(raw, prop, ctx);
    if (value !== undefined || !spec.optional) out[prop] = value;
  }
  addUnknownFields(msg, obj, keys, claimed, out);
  return out;
}

function encodeFields(msg: CompiledMessage, value: Readonly<Record<string, unknown>>, out: Record<string, unknown>): void {
  for (const { prop, codec, group } of msg.fields) {
    const v = value[prop];
    if (group !== undefined) {
      encodeGroup(group, v, out);
      continue;
    }
    const spec = codec as Codec<unknown>;
    if (v === undefined) {
      // A hand-built model may leave out a field its type requires; write the default.
      if (!spec.optional) out[prop] = spec.encode(spec.missing());
      continue;
    }
    if (spec.omit?.(v) === true) continue;
    out[prop] = spec.encode(v);
  }
  encodeUnknownFields(value, out);
}

/**
 * Whether message codecs run the functions generated for them, where code can be generated (see
 * {@link withInterpretedCodecs}).
 */
let specialising = true;

/**
 * Runs `run` with every message decoded and encoded by the interpreted field loops instead of the
 * functions generated for them, as where code cannot be generated; for tests that check both agree.
 *
 * @example
 * ```ts
 * const reference = withInterpretedCodecs(() => decodeTask(json));
 * ```
 */
export function withInterpretedCodecs<T>(run: () => T): T {
  const was = specialising;
  specialising = false;
  try {
    return run();
  } finally {
    specialising = was;
  }
}

/**
 * A message's encode function: the one generated for it on first use, or {@link encodeFields}. It
 * is the codec's `encode` itself, with no wrapper around it: encoding a small message costs
 * little more than a call, so one call level more would show.
 */
function messageEncoder(msg: CompiledMessage): (value: Readonly<Record<string, unknown>>) => JsonValue {
  let generated: FieldsEncoder | null | undefined;
  return (value) => {
    if (specialising) {
      if (generated === undefined) generated = specialiseEncoder(msg, fieldSteps) ?? null;
      if (generated !== null) return generated(value) as JsonValue;
    }
    const out: Record<string, unknown> = {};
    encodeFields(msg, value, out);
    return out as JsonValue;
  };
}

/** Steps into a message at `at`, unless that would nest too deep. */
function enter(ctx: DecodeContext, at: PathSegment): boolean {
  if (ctx.depth >= MAX_DEPTH) {
    report(ctx, "TOO_DEEP", at, `messages nest more than ${MAX_DEPTH} levels deep`);
    return false;
  }
  ctx.depth++;
  ctx.path.push(at);
  return true;
}

function leave(ctx: DecodeContext): void {
  ctx.depth--;
  ctx.path.pop();
}

/**
 * A problem a message's cross-field check found; it is reported at the message's path.
 *
 * @example
 * ```ts
 * const p: CheckProblem = { code: "ONEOF_CONFLICT", message: 'oneof "outcome" has more than one member set' };
 * ```
 */
export interface CheckProblem {
  readonly code: DiagnosticCode;
  readonly message: string;
}

/**
 * Options of a message codec.
 *
 * @example
 * ```ts
 * const options: MessageOptions<Rule> = { check: (rule) => undefined };
 * ```
 */
export interface MessageOptions<T> {
  /**
   * A cross-field check run after decoding (for a oneof of scalars, which the fields cannot see).
   * It returns the problem rather than taking a callback, so a message without one costs nothing.
   */
  readonly check?: (value: T) => CheckProblem | undefined;
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
  // Its fields' decoder, generated on first use (not at load, so that loading the library compiles
  // nothing); null where none can be.
  let generated: FieldsDecoder | null | undefined;
  const check = options.check;
  const defaults = (): T => {
    const out: Record<string, unknown> = {};
    for (const { prop, codec, group } of msg.fields) {
      if (group !== undefined) out[prop] = null;
      else if (codec !== undefined && !codec.optional) out[prop] = codec.missing();
    }
    return out as T;
  };
  return {
    "~tag": "codec",
    "~node": { t: "message", fields: msg.nodes },
    optional: false,
    decode: (v, at, ctx) => {
      if (!isJsonObject(v)) {
        expected(ctx, "EXPECTED_OBJECT", at, "an object", v);
        return defaults();
      }
      if (!enter(ctx, at)) return defaults();
      if (generated === undefined) generated = specialiseDecoder(msg, fieldSteps, false) ?? null;
      const out = specialising && generated !== null ? generated(v, ctx, undefined) : decodeFields(msg, v, ctx, {});
      leave(ctx);
      const problem = check?.(out as T);
      if (problem !== undefined) report(ctx, problem.code, at, problem.message);
      return out as T;
    },
    encode: messageEncoder(msg) as (value: T) => JsonValue,
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
      decode: (json, at, ctx, kind) => ({ kind, [kind]: union.decode(json, at, ctx) }),
      encode: (value) => union.encode(value[value["kind"] as string]),
    };
  }
  const msg = compile(spec);
  let generated: FieldsDecoder | null | undefined; // as in message()
  return {
    node: { key, fields: msg.nodes },
    decode: (json, at, ctx, kind) => {
      if (!isJsonObject(json)) {
        expected(ctx, "EXPECTED_OBJECT", at, "an object", json);
        return { kind };
      }
      if (!enter(ctx, at)) return { kind };
      if (generated === undefined) generated = specialiseDecoder(msg, fieldSteps, true) ?? null;
      const out = specialising && generated !== null ? generated(json, ctx, kind) : decodeFields(msg, json, ctx, { kind });
      leave(ctx);
      return out;
    },
    encode: messageEncoder(msg),
  };
}

function compileMembers(members: object): ReadonlyMap<string, RuntimeMember> {
  const out = new Map<string, RuntimeMember>();
  for (const [key, spec] of Object.entries(members) as Array<[string, object]>) out.set(key, compileMember(key, spec));
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
    "~members": [...compiled.values()].map((m) => m.node),
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
  // Generated on first use, as a message's (see message()); null where none can be.
  let decodeMember: UnionMemberDecoder | null | undefined;
  let encodeGenerated: UnionEncoder | null | undefined;
  return {
    "~tag": "codec",
    "~node": { t: "union", members: [...compiled.values()].map((m) => m.node) },
    optional: false,
    decode: (v, at, ctx) => {
      if (!isJsonObject(v)) {
        expected(ctx, "EXPECTED_OBJECT", at, "an object", v);
        return none();
      }
      const keys = Object.keys(v);
      if (specialising) {
        if (decodeMember === undefined) decodeMember = specialiseUnionDecoder(compiled) ?? null;
        const out = decodeMember?.(v, keys, at, ctx);
        if (out !== undefined) return out as U;
      }
      let found: string | undefined;
      for (const key of keys) {
        if (!compiled.has(key)) continue;
        if (v[key] === null) continue;
        if (found === undefined) found = key;
        else report(ctx, "ONEOF_CONFLICT", at, `oneof has more than one member set: "${found}" and "${key}"`);
      }
      let out: Record<string, unknown>;
      let unknownKey: string | undefined;
      if (found !== undefined) {
        ctx.path.push(at);
        out = (compiled.get(found) as RuntimeMember).decode(v[found], found, ctx, found);
        ctx.path.pop();
      } else {
        // A proto field name is never empty, so a "" key is an unknown field, never a member.
        unknownKey = keys.find((k) => k !== "" && !compiled.has(k));
        out = { ...unknownVariant(unknownKey ?? "", unknownKey === undefined ? null : v[unknownKey]) };
      }
      // The usual case: the only key became the member or the unknown variant, nothing else to keep.
      if (keys.length === 1 && (found ?? unknownKey) !== undefined) return out as U;
      const outer = decodeUnknownFields(v, keys, compiled, unknownKey === undefined ? undefined : [unknownKey]);
      if (outer !== undefined) out["$unknownOuter"] = outer;
      return out as U;
    },
    encode: (value) => {
      const v = value as unknown as Readonly<Record<string, unknown>> & { readonly kind: string };
      if (specialising) {
        if (encodeGenerated === undefined) encodeGenerated = specialiseUnionEncoder(compiled, unionSteps) ?? null;
        if (encodeGenerated !== null) return encodeGenerated(v) as JsonValue;
      }
      const out: Record<string, unknown> = {};
      if (v.kind === "unknown") {
        encodeUnknownMember(v, out);
      } else {
        const member = compiled.get(v.kind);
        if (member !== undefined) out[v.kind] = member.encode(v);
      }
      encodeOuterFields(v, out);
      return out as JsonValue;
    },
    missing: none,
  };
}

/** Writes an unknown member of a union back under its key, as it came (nothing for the empty key). */
function encodeUnknownMember(value: Readonly<Record<string, unknown>>, out: Record<string, unknown>): void {
  const u = value as unknown as UnknownVariant;
  if (u.key !== "") setOwn(out, u.key, cloneJson(u.raw));
}

/** Writes the keys a union kept beside its member (`$unknownOuter`) back, as they came. */
function encodeOuterFields(value: Readonly<Record<string, unknown>>, out: Record<string, unknown>): void {
  const outer = value["$unknownOuter"];
  if (isJsonObject(outer)) for (const key of Object.keys(outer)) setOwn(out, key, cloneJson(outer[key]));
}

const unionSteps: UnionSteps = { encodeUnknownMember, encodeOuterFields };

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
  const ctx: DecodeContext = { diags: [], path: [], depth: 0 };
  let value: T;
  try {
    value = codec.decode(json, "$", ctx);
  } catch (e: unknown) {
    // A value kept as data nests too deep: refused at the message that held it (`ctx.path` is
    // where decoding stood), as a world file refuses one anywhere else.
    if (e instanceof JsonTooDeep) {
      ctx.diags.push({ code: "TOO_DEEP", path: ctx.path.length === 0 ? "$" : containerPath(ctx), message: e.message });
      return { ok: false, error: ctx.diags };
    }
    ctx.diags.push({ code: "UNREADABLE_INPUT", path: "$", message: `input could not be read: ${e instanceof Error ? e.message : String(e)}` });
    return { ok: false, error: ctx.diags };
  }
  return ctx.diags.length === 0 ? { ok: true, value } : { ok: false, error: ctx.diags };
}

/**
 * Whether a value is an RFC 3339 timestamp of a date and time that exist: the world file's own
 * check (`Date.parse` takes 2027-02-30 as 2 March, and a clock set by it would read a day that does
 * not exist). The one test of a `now` or `at` taken anywhere: the world file, the reducers, what-if
 * edits, the HTTP clock.
 *
 * @example
 * ```ts
 * isRealTimestamp("2026-11-22T09:00:00Z"); // true
 * isRealTimestamp("2027-02-30T00:00:00Z"); // false
 * ```
 */
export function isRealTimestamp(v: unknown): v is string {
  if (typeof v !== "string") return false;
  const decoded = runDecode(timestamp, v);
  return decoded.ok && decoded.value !== null;
}

/**
 * An RFC 3339 timestamp as the simulation writes it: in UTC with `Z`, as protobuf's JSON does (and the
 * service's SDKs expect), the instant and its fraction digits unchanged. A timestamp already in that
 * form, or one that is not a timestamp, is returned as it came (check with {@link isRealTimestamp}).
 *
 * @example
 * ```ts
 * utcTimestamp("2026-11-22T11:00:00.5+02:00"); // "2026-11-22T09:00:00.5Z"
 * utcTimestamp("2026-11-22T09:00:00Z"); // unchanged
 * ```
 */
export function utcTimestamp(v: string): string {
  if (!RFC3339.test(v)) return v;
  // As isRfc3339 reads it: the date and time at fixed places, the zone last (`Z` or six characters).
  const last = v.charCodeAt(v.length - 1);
  const zulu = last === 90 /* Z */ || last === 122; /* z */
  if (last === 90 && v[10] === "T") return v;
  const zoneAt = zulu ? v.length - 1 : v.length - 6;
  const offsetMinutes = zulu ? 0 : (v[zoneAt] === "-" ? -1 : 1) * (digitsAt(v, v.length - 5, 2) * 60 + digitsAt(v, v.length - 2, 2));
  const d = new Date(0);
  d.setUTCFullYear(digitsAt(v, 0, 4), digitsAt(v, 5, 2) - 1, digitsAt(v, 8, 2));
  d.setUTCHours(digitsAt(v, 11, 2), digitsAt(v, 14, 2) - offsetMinutes, digitsAt(v, 17, 2), 0);
  const year = d.getUTCFullYear();
  if (year < 1 || year > 9999) return v;
  return `${d.toISOString().slice(0, 19)}${v.slice(19, zoneAt)}Z`;
}
