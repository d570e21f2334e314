/**
 * Codec of forms and fields (spec, "Form and Field").
 */
import { SelectType, WellKnownRegex } from "../model/enums.js";
import type {
  BoolRules,
  Field,
  FieldGroup,
  FieldRelationship,
  FieldType,
  Form,
  Int64Rules,
  Picker,
  RepeatedRules,
  SelectOption,
  StringMapRules,
  StringRules,
} from "../model/form.js";
import type { JsonValue } from "../model/json.js";
import type { Result } from "../result.js";
import type { Diagnostic } from "./diagnostic.js";
import {
  type Codec,
  bool,
  enumOf,
  int32,
  int64,
  jsonObject,
  jsonValue,
  list,
  map,
  message,
  nullable,
  oneof,
  opt,
  runDecode,
  str,
  uint64,
  union,
  wrap,
} from "./schema.js";

const stringRules = message<StringRules>({
  address: opt(bool),
  const: opt(str),
  contains: opt(str),
  email: opt(bool),
  hostname: opt(bool),
  ignoreEmpty: opt(bool),
  in: opt(list(str)),
  ip: opt(bool),
  ipv4: opt(bool),
  ipv6: opt(bool),
  len: opt(uint64),
  lenBytes: opt(uint64),
  maxBytes: opt(uint64),
  maxLen: opt(uint64),
  minBytes: opt(uint64),
  minLen: opt(uint64),
  notContains: opt(str),
  notIn: opt(list(str)),
  pattern: opt(str),
  prefix: opt(str),
  strict: opt(bool),
  suffix: opt(str),
  uri: opt(bool),
  uriRef: opt(bool),
  uuid: opt(bool),
  wellKnownRegex: opt(enumOf(WellKnownRegex)),
});

const int64Rules = message<Int64Rules>({
  const: opt(int64),
  gt: opt(int64),
  gte: opt(int64),
  ignoreEmpty: opt(bool),
  in: opt(list(int64)),
  lt: opt(int64),
  lte: opt(int64),
  notIn: opt(list(int64)),
});

const repeatedRules = message<RepeatedRules>({
  ignoreEmpty: opt(bool),
  items: opt(nullable(jsonObject)),
  maxItems: opt(uint64),
  minItems: opt(uint64),
  unique: opt(bool),
});

const boolRules = message<BoolRules>({ const: opt(bool) });

const stringMapRules = message<StringMapRules>({ isRequired: bool, validateEmpty: bool });

const selectOption = message<SelectOption>({ value: str, displayName: str, description: str });

const picker = union<Picker>({
  appUserPicker: { appId: str },
  svcUserPicker: { userIds: list(str), excludeUserIds: list(str), includeDeactivated: bool },
  resourcePicker: { appId: str, resourceTypeId: str },
});

const fieldType = oneof<FieldType>(
  {
    stringField: {
      defaultValue: str,
      placeholder: str,
      rules: nullable(stringRules),
      view: oneof({
        textField: { multiline: bool, suffix: str },
        passwordField: { multiline: bool },
        selectField: { options: list(selectOption), type: enumOf(SelectType) },
        pickerField: wrap(picker),
        dateField: {
          defaultToToday: bool,
          minDate: str,
          maxDate: str,
          minDaysFromToday: int32,
          maxDaysFromToday: int32,
        },
      }),
    },
    boolField: {
      defaultValue: bool,
      rules: nullable(boolRules),
      view: oneof({ checkboxField: {}, toggleField: {} }),
    },
    int64Field: {
      defaultValue: int64,
      placeholder: str,
      rules: nullable(int64Rules),
      view: oneof({ numberField: { minValue: opt(int64), maxValue: opt(int64), step: opt(int64) } }),
    },
    stringSliceField: {
      defaultValues: list(str),
      placeholder: str,
      rules: nullable(repeatedRules),
      view: oneof({ chipsField: {}, pickerField: wrap(picker) }),
    },
    stringMapField: { defaultValue: map(str), rules: nullable(stringMapRules) },
    fileField: {
      acceptedFileTypes: list(str),
      maxFileSize: int64,
      view: oneof({ fileInputField: {} }),
    },
    oauth2Field: { view: oneof({ oauth2FieldView: {} }) },
  },
  { open: true },
);

const field = message<Field>({
  name: str,
  displayName: str,
  description: str,
  required: bool,
  readOnly: bool,
  type: fieldType,
  provider: oneof({
    userConfig: { inputTransformationCel: str },
    adminConfig: { defaultValueCel: str, showToUser: bool },
    sharedConfig: { defaultValueCel: str, inputTransformationCel: str, lockDefaultValues: bool },
  }),
});

const fieldGroup = message<FieldGroup>({
  name: str,
  displayName: str,
  helpText: str,
  default: bool,
  fields: list(str),
});

const fieldRelationship = message<FieldRelationship>({
  fieldNames: list(str),
  relationship: oneof(
    {
      requiredTogether: {},
      atLeastOne: {},
      mutuallyExclusive: {},
      dependentOn: { dependencyFieldNames: list(str) },
    },
    { open: true },
  ),
});

/**
 * Codec of {@link Form}.
 *
 * @example
 * ```ts
 * const fields = { form: nullable(formCodec) };
 * ```
 */
export const formCodec: Codec<Form> = message<Form>({
  id: str,
  displayName: str,
  description: str,
  fields: list(field),
  fieldGroups: list(fieldGroup),
  fieldRelationships: list(fieldRelationship),
});

/**
 * Decodes a wire Form.
 *
 * @example
 * ```ts
 * const r = decodeForm({ id: "f1", fields: [{ name: "reason", stringField: { textField: { multiline: true } } }] });
 * if (r.ok) r.value.fields?.[0]?.type?.kind; // "stringField"
 * ```
 */
export function decodeForm(json: unknown): Result<Form, Diagnostic[]> {
  return runDecode(formCodec, json);
}

/**
 * Encodes a Form as the service's wire JSON.
 *
 * @example
 * ```ts
 * encodeForm(form); // { id: "f1", displayName: "", …, fields: [...] }
 * ```
 */
export function encodeForm(form: Form): JsonValue {
  return formCodec.encode(form);
}
