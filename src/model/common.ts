/**
 * Shapes shared by every model module: the scalar aliases that say which wire format a string holds,
 * the bag of unknown fields, the member every union keeps for a variant this version does not know,
 * and the small reference messages several resources point with.
 */
import type { JsonObject } from "./json.js";

/**
 * An int64 as the wire carries it: a decimal string (`"1001"`), never `""` (the codec refuses it, as protojson does).
 *
 * @example
 * ```ts
 * const numericId: Int64String = "1001";
 * ```
 */
export type Int64String = string;

/**
 * An RFC 3339 date-time (`"2026-11-22T09:00:00Z"`).
 *
 * @example
 * ```ts
 * const createdAt: Timestamp | null = "2026-11-22T09:00:00Z";
 * ```
 */
export type Timestamp = string;

/**
 * A protobuf duration string: seconds with an optional fraction and an `s` suffix (`"3600s"`, `"1.5s"`).
 *
 * @example
 * ```ts
 * const grantDuration: DurationString | null = "3600s";
 * ```
 */
export type DurationString = string;

/**
 * Fields of a wire object that this version does not know, kept so `encode*` writes them back as
 * they came (the API adds fields and clients must tolerate them).
 *
 * @example
 * ```ts
 * const extra: UnknownFields = { addedLater: { x: 1 } };
 * ```
 */
export type UnknownFields = Readonly<Record<string, unknown>>;

/**
 * A text field the model keeps among an object's unknown fields (`$unknown`), such as an app's or
 * entitlement's `description` or an entitlement's `alias`: its string, `""` when absent or not a
 * string. One reader for every place that matches or shows such a field.
 *
 * @example
 * ```ts
 * unknownText({ $unknown: { alias: "sbx" } }, "alias"); // "sbx"
 * unknownText({}, "description"); // ""
 * ```
 */
export function unknownText(o: { readonly $unknown?: UnknownFields | undefined }, key: string): string {
  const v = o.$unknown?.[key];
  return typeof v === "string" ? v : "";
}

/**
 * The member every union has for a oneof member this version does not know. `key` is the wire member
 * name and `raw` its JSON, written back unchanged. A wire object with no member at all (`{}`) where
 * the message is nothing but the oneof decodes to `key: ""` with `raw: null`.
 *
 * @example
 * ```ts
 * const later: UnknownVariant = { kind: "unknown", key: "spendRemedy", raw: { budgetId: "b1" } };
 * ```
 */
export interface UnknownVariant {
  readonly kind: "unknown";
  readonly key: string;
  readonly raw: unknown;
  /** Unknown sibling keys of the oneof when the union is the whole wire message. */
  readonly $unknownOuter?: UnknownFields;
}

/**
 * What every known union member may carry besides its fields: its own unknown fields, and, when the
 * union is the whole wire message (TaskType, PolicyStep, …), unknown keys beside the member.
 *
 * @example
 * ```ts
 * const m: VariantExtras = { $unknownOuter: { addedLater: true } };
 * ```
 */
export interface VariantExtras {
  readonly $unknown?: UnknownFields;
  readonly $unknownOuter?: UnknownFields;
}

/**
 * A message the service serializes with its type name under `@type` (task annotations, the
 * `expanded` items of a response). Kept as free-form JSON.
 *
 * @example
 * ```ts
 * const item: TypedMessage = { "@type": "type.googleapis.com/c1.api.user.v1.User", id: "u-ada" };
 * ```
 */
export type TypedMessage = JsonObject;

/**
 * A reference to an entitlement of an app.
 *
 * @example
 * ```ts
 * const ref: AppEntitlementRef = { appId: "app-aws", id: "ent-admin" };
 * ```
 */
export interface AppEntitlementRef {
  readonly appId: string;
  readonly id: string;
  readonly $unknown?: UnknownFields;
}

/**
 * A reference to an entitlement by `{appEntitlementId, appId}`: the shape of approval fallback groups
 * and of the entitlements an approval or provision step records.
 *
 * @example
 * ```ts
 * const ref: AppEntitlementReference = { appEntitlementId: "ent-oncall", appId: "app-pd" };
 * ```
 */
export interface AppEntitlementReference {
  readonly appEntitlementId: string;
  readonly appId: string;
  readonly $unknown?: UnknownFields;
}

/**
 * A reference to a resource of an app.
 *
 * @example
 * ```ts
 * const ref: AppResourceRef = { appId: "app-gh", appResourceTypeId: "rt-repo", id: "repo-1" };
 * ```
 */
export interface AppResourceRef {
  readonly appId: string;
  readonly appResourceTypeId: string;
  readonly id: string;
  readonly $unknown?: UnknownFields;
}
