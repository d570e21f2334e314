/**
 * Forms and their fields (spec, "Form and Field"). Validation rule messages keep presence: a rule the
 * wire does not carry is absent from the model (`?:`), because these messages mark "unset" by
 * omission and writing a default would add a rule.
 */
import type { Int64String, UnknownFields, UnknownVariant, VariantExtras } from "./common.js";
import type { SelectType, WellKnownRegex } from "./enums.js";
import type { JsonObject, JsonValue } from "./json.js";

/**
 * A request form.
 *
 * @example
 * ```ts
 * const names = (f: Form) => (f.fields ?? []).map((x) => x.name);
 * ```
 */
export interface Form {
  readonly id: string;
  readonly displayName: string;
  readonly description: string;
  readonly fields: readonly Field[] | null;
  readonly fieldGroups: readonly FieldGroup[] | null;
  readonly fieldRelationships: readonly FieldRelationship[] | null;
  readonly $unknown?: UnknownFields;
}

/**
 * A named group of fields, for display.
 *
 * @example
 * ```ts
 * const g: FieldGroup = { name: "g1", displayName: "Access", helpText: "", default: true, fields: ["reason"] };
 * ```
 */
export interface FieldGroup {
  readonly name: string;
  readonly displayName: string;
  readonly helpText: string;
  readonly default: boolean;
  readonly fields: readonly string[] | null;
  readonly $unknown?: UnknownFields;
}

/**
 * A constraint between fields.
 *
 * @example
 * ```ts
 * const r: FieldRelationship = { fieldNames: ["a", "b"], relationship: { kind: "mutuallyExclusive" } };
 * ```
 */
export interface FieldRelationship {
  readonly fieldNames: readonly string[] | null;
  /** The requiredTogether / atLeastOne / mutuallyExclusive / dependentOn oneof. */
  readonly relationship: RelationshipKind | null;
  readonly $unknown?: UnknownFields;
}

/**
 * Kind of a field relationship.
 *
 * @example
 * ```ts
 * const k: RelationshipKind = { kind: "dependentOn", dependencyFieldNames: ["country"] };
 * ```
 */
export type RelationshipKind =
  | { readonly kind: "requiredTogether" } & VariantExtras
  | { readonly kind: "atLeastOne" } & VariantExtras
  | { readonly kind: "mutuallyExclusive" } & VariantExtras
  | { readonly kind: "dependentOn"; readonly dependencyFieldNames: readonly string[] | null } & VariantExtras
  | UnknownVariant;

/**
 * One form field.
 *
 * @example
 * ```ts
 * const isText = (f: Field) => f.type?.kind === "stringField" && f.type.view?.kind === "textField";
 * ```
 */
export interface Field {
  readonly name: string;
  readonly displayName: string;
  readonly description: string;
  readonly required: boolean;
  /** Displayed but not editable. */
  readonly readOnly: boolean;
  /** The type-member oneof (stringField, boolField, …). */
  readonly type: FieldType | null;
  /** The provider-config oneof (userConfig, adminConfig, sharedConfig). */
  readonly provider: FieldProvider | null;
  readonly $unknown?: UnknownFields;
}

/**
 * The type of a field, with its default, rules and view.
 *
 * @example
 * ```ts
 * const t: FieldType = { kind: "boolField", defaultValue: false, rules: null, view: { kind: "toggleField" } };
 * ```
 */
export type FieldType =
  | StringField
  | BoolField
  | Int64Field
  | StringSliceField
  | StringMapField
  | FileField
  | Oauth2Field
  | UnknownVariant;

/**
 * A string field.
 *
 * @example
 * ```ts
 * const f: StringField = { kind: "stringField", defaultValue: "", placeholder: "why?", rules: { minLen: "10" },
 *   view: { kind: "textField", multiline: true, suffix: "" } };
 * ```
 */
export interface StringField extends VariantExtras {
  readonly kind: "stringField";
  readonly defaultValue: string;
  readonly placeholder: string;
  readonly rules: StringRules | null;
  readonly view: StringFieldView | null;
}

/**
 * How a string field is shown.
 *
 * @example
 * ```ts
 * const v: StringFieldView = { kind: "pickerField", pickerField: { kind: "appUserPicker", appId: "app-aws" } };
 * ```
 */
export type StringFieldView =
  | { readonly kind: "textField"; readonly multiline: boolean; readonly suffix: string } & VariantExtras
  | { readonly kind: "passwordField"; readonly multiline: boolean } & VariantExtras
  | SelectFieldView
  | PickerFieldView
  | DateFieldView
  | UnknownVariant;

/**
 * A drop-down of options.
 *
 * @example
 * ```ts
 * const v: SelectFieldView = { kind: "selectField", options: [{ value: "eu", displayName: "EU", description: "" }], type: "SELECT_TYPE_UNSPECIFIED" };
 * ```
 */
export interface SelectFieldView extends VariantExtras {
  readonly kind: "selectField";
  readonly options: readonly SelectOption[] | null;
  readonly type: SelectType;
}

/**
 * One option of a select field.
 *
 * @example
 * ```ts
 * const o: SelectOption = { value: "eu", displayName: "EU", description: "" };
 * ```
 */
export interface SelectOption {
  readonly value: string;
  readonly displayName: string;
  readonly description: string;
  readonly $unknown?: UnknownFields;
}

/**
 * A picker of users or resources.
 *
 * @example
 * ```ts
 * const v: PickerFieldView = { kind: "pickerField", pickerField: { kind: "resourcePicker", appId: "a", resourceTypeId: "rt" } };
 * ```
 */
export interface PickerFieldView extends VariantExtras {
  readonly kind: "pickerField";
  readonly pickerField: Picker;
}

/**
 * What a picker picks: the `pickerField` oneof.
 *
 * @example
 * ```ts
 * const p: Picker = { kind: "svcUserPicker", userIds: null, excludeUserIds: ["u-bot"], includeDeactivated: false };
 * ```
 */
export type Picker =
  | { readonly kind: "appUserPicker"; readonly appId: string } & VariantExtras
  | ({
      readonly kind: "svcUserPicker";
      readonly userIds: readonly string[] | null;
      readonly excludeUserIds: readonly string[] | null;
      readonly includeDeactivated: boolean;
    } & VariantExtras)
  | { readonly kind: "resourcePicker"; readonly appId: string; readonly resourceTypeId: string } & VariantExtras
  | UnknownVariant;

/**
 * A date input.
 *
 * @example
 * ```ts
 * const v: DateFieldView = { kind: "dateField", defaultToToday: true, minDate: "", maxDate: "", minDaysFromToday: 0, maxDaysFromToday: 90 };
 * ```
 */
export interface DateFieldView extends VariantExtras {
  readonly kind: "dateField";
  readonly defaultToToday: boolean;
  /** Earliest selectable date, inclusive, `YYYY-MM-DD` (OpenAPI `form.v1.DateField`); `""` is unbounded (a `null` read is `""`). */
  readonly minDate: string;
  /** Latest selectable date, as `minDate`. */
  readonly maxDate: string;
  readonly minDaysFromToday: number;
  readonly maxDaysFromToday: number;
}

/**
 * A boolean field.
 *
 * @example
 * ```ts
 * const f: BoolField = { kind: "boolField", defaultValue: false, rules: { const: true }, view: { kind: "checkboxField" } };
 * ```
 */
export interface BoolField extends VariantExtras {
  readonly kind: "boolField";
  readonly defaultValue: boolean;
  readonly rules: BoolRules | null;
  readonly view: BoolFieldView | null;
}

/**
 * How a boolean field is shown.
 *
 * @example
 * ```ts
 * const v: BoolFieldView = { kind: "toggleField" };
 * ```
 */
export type BoolFieldView =
  | { readonly kind: "checkboxField" } & VariantExtras
  | { readonly kind: "toggleField" } & VariantExtras
  | UnknownVariant;

/**
 * An int64 field.
 *
 * @example
 * ```ts
 * const f: Int64Field = { kind: "int64Field", defaultValue: "1", placeholder: "", rules: { gte: "1" },
 *   view: { kind: "numberField", minValue: "1", maxValue: "10" } };
 * ```
 */
export interface Int64Field extends VariantExtras {
  readonly kind: "int64Field";
  readonly defaultValue: Int64String;
  readonly placeholder: string;
  readonly rules: Int64Rules | null;
  readonly view: Int64FieldView | null;
}

/**
 * How an int64 field is shown. Its bounds keep presence (absent when the wire omits them).
 *
 * @example
 * ```ts
 * const v: Int64FieldView = { kind: "numberField", step: "5" };
 * ```
 */
export type Int64FieldView =
  | ({
      readonly kind: "numberField";
      readonly minValue?: Int64String;
      readonly maxValue?: Int64String;
      readonly step?: Int64String;
    } & VariantExtras)
  | UnknownVariant;

/**
 * A list-of-strings field.
 *
 * @example
 * ```ts
 * const f: StringSliceField = { kind: "stringSliceField", defaultValues: null, placeholder: "", rules: { maxItems: "3" }, view: { kind: "chipsField" } };
 * ```
 */
export interface StringSliceField extends VariantExtras {
  readonly kind: "stringSliceField";
  readonly defaultValues: readonly string[] | null;
  readonly placeholder: string;
  readonly rules: RepeatedRules | null;
  readonly view: StringSliceFieldView | null;
}

/**
 * How a list-of-strings field is shown.
 *
 * @example
 * ```ts
 * const v: StringSliceFieldView = { kind: "chipsField" };
 * ```
 */
export type StringSliceFieldView = { readonly kind: "chipsField" } & VariantExtras | PickerFieldView | UnknownVariant;

/**
 * A string-to-string map field.
 *
 * @example
 * ```ts
 * const f: StringMapField = { kind: "stringMapField", defaultValue: { env: "prod" }, rules: { isRequired: true, validateEmpty: false } };
 * ```
 */
export interface StringMapField extends VariantExtras {
  readonly kind: "stringMapField";
  readonly defaultValue: Readonly<Record<string, string>> | null;
  readonly rules: StringMapRules | null;
}

/**
 * Rules of a string-map field.
 *
 * @example
 * ```ts
 * const r: StringMapRules = { isRequired: true, validateEmpty: false };
 * ```
 */
export interface StringMapRules {
  readonly isRequired: boolean;
  readonly validateEmpty: boolean;
  readonly $unknown?: UnknownFields;
}

/**
 * A file upload field.
 *
 * @example
 * ```ts
 * const f: FileField = { kind: "fileField", acceptedFileTypes: [".pdf"], maxFileSize: "1048576", view: { kind: "fileInputField" } };
 * ```
 */
export interface FileField extends VariantExtras {
  readonly kind: "fileField";
  readonly acceptedFileTypes: readonly string[] | null;
  readonly maxFileSize: Int64String;
  readonly view: FileFieldView | null;
}

/**
 * How a file field is shown.
 *
 * @example
 * ```ts
 * const v: FileFieldView = { kind: "fileInputField" };
 * ```
 */
export type FileFieldView = { readonly kind: "fileInputField" } & VariantExtras | UnknownVariant;

/**
 * An OAuth 2 credential field.
 *
 * @example
 * ```ts
 * const f: Oauth2Field = { kind: "oauth2Field", view: { kind: "oauth2FieldView" } };
 * ```
 */
export interface Oauth2Field extends VariantExtras {
  readonly kind: "oauth2Field";
  readonly view: Oauth2FieldView | null;
}

/**
 * How an OAuth 2 field is shown.
 *
 * @example
 * ```ts
 * const v: Oauth2FieldView = { kind: "oauth2FieldView" };
 * ```
 */
export type Oauth2FieldView = { readonly kind: "oauth2FieldView" } & VariantExtras | UnknownVariant;

/**
 * Where a field's value comes from: the provider-config oneof.
 *
 * @example
 * ```ts
 * const p: FieldProvider = { kind: "adminConfig", defaultValueCel: "subject.email", showToUser: false };
 * ```
 */
export type FieldProvider =
  | { readonly kind: "userConfig"; readonly inputTransformationCel: string } & VariantExtras
  | { readonly kind: "adminConfig"; readonly defaultValueCel: string; readonly showToUser: boolean } & VariantExtras
  | ({
      readonly kind: "sharedConfig";
      readonly defaultValueCel: string;
      readonly inputTransformationCel: string;
      readonly lockDefaultValues: boolean;
    } & VariantExtras)
  | UnknownVariant;

/**
 * Validation rules of a string. Length bounds are uint64 decimal strings.
 *
 * @example
 * ```ts
 * const r: StringRules = { minLen: "1", maxLen: "64", pattern: "^[a-z]+$" };
 * ```
 */
export interface StringRules {
  readonly address?: boolean;
  readonly const?: string;
  readonly contains?: string;
  readonly email?: boolean;
  readonly hostname?: boolean;
  readonly ignoreEmpty?: boolean;
  readonly in?: readonly string[] | null;
  readonly ip?: boolean;
  readonly ipv4?: boolean;
  readonly ipv6?: boolean;
  readonly len?: Int64String;
  readonly lenBytes?: Int64String;
  readonly maxBytes?: Int64String;
  readonly maxLen?: Int64String;
  readonly minBytes?: Int64String;
  readonly minLen?: Int64String;
  readonly notContains?: string;
  readonly notIn?: readonly string[] | null;
  readonly pattern?: string;
  readonly prefix?: string;
  readonly strict?: boolean;
  readonly suffix?: string;
  readonly uri?: boolean;
  readonly uriRef?: boolean;
  readonly uuid?: boolean;
  readonly wellKnownRegex?: WellKnownRegex;
  readonly $unknown?: UnknownFields;
}

/**
 * Validation rules of an int64; bounds are decimal strings.
 *
 * @example
 * ```ts
 * const r: Int64Rules = { gte: "1", lte: "100" };
 * ```
 */
export interface Int64Rules {
  readonly const?: Int64String;
  readonly gt?: Int64String;
  readonly gte?: Int64String;
  readonly ignoreEmpty?: boolean;
  readonly in?: readonly Int64String[] | null;
  readonly lt?: Int64String;
  readonly lte?: Int64String;
  readonly notIn?: readonly Int64String[] | null;
  readonly $unknown?: UnknownFields;
}

/**
 * Validation rules of a list. `items` (per-element rules for any scalar kind) is kept as free-form
 * JSON: typing its twenty-two kinds buys nothing a simulation uses.
 *
 * @example
 * ```ts
 * const r: RepeatedRules = { minItems: "1", unique: true, items: { string: { minLen: "2" } } };
 * ```
 */
export interface RepeatedRules {
  readonly ignoreEmpty?: boolean;
  readonly items?: JsonObject | null;
  readonly maxItems?: Int64String;
  readonly minItems?: Int64String;
  readonly unique?: boolean;
  readonly $unknown?: UnknownFields;
}

/**
 * Validation rules of a boolean.
 *
 * @example
 * ```ts
 * const r: BoolRules = { const: true };
 * ```
 */
export interface BoolRules {
  readonly const?: boolean;
  readonly $unknown?: UnknownFields;
}
