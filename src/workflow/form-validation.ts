/**
 * Validating the values a form step is completed with against the form's fields, their rules and
 * the relationships between fields, with one clear problem per field ("accessDays: must be at most
 * 30"). Every problem is collected, not only the first, so a caller can fix them all at once.
 */
import { compileRegex } from "../cel/regex.js";
import type { Field, Form, Picker, StringRules } from "../model/index.js";
import type { JsonObject, JsonValue } from "../model/json.js";
import type { World } from "../world/world.js";
import { msOf } from "./time.js";

/**
 * One problem with one field's value.
 *
 * @example
 * ```ts
 * const p: FieldProblem = { field: "justification", message: "must be at least 20 characters" };
 * ```
 */
export interface FieldProblem {
  /** The field's name, or `""` for a problem of the form as a whole. */
  readonly field: string;
  readonly message: string;
}

/**
 * The values to store (given values plus the defaults of fields left empty) and the problems found.
 *
 * @example
 * ```ts
 * const r: FormValidation = { values: { reason: "audit" }, problems: [] };
 * ```
 */
export interface FormValidation {
  readonly values: JsonObject;
  readonly problems: readonly FieldProblem[];
}

function isEmpty(v: JsonValue | undefined): boolean {
  if (v === undefined || v === null || v === "") return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === "object") return Object.keys(v).length === 0;
  return false;
}

function describe(v: JsonValue): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  return typeof v === "object" ? "an object" : `${typeof v} ${JSON.stringify(v)}`;
}

const utf8 = new TextEncoder();
const codePoints = (s: string): number => [...s].length;

function int(s: string | undefined): bigint | undefined {
  if (s === undefined || !/^-?\d+$/.test(s.trim())) return undefined;
  return BigInt(s.trim());
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const HOSTNAME = /^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
const IPV4 = /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

function isIpv6(s: string): boolean {
  if (!s.includes(":") || !/^[0-9A-Fa-f:.]+$/.test(s)) return false;
  const double = s.split("::");
  if (double.length > 2) return false;
  const groups = s.split(":").filter((g) => g !== "");
  return groups.every((g) => /^[0-9A-Fa-f]{1,4}$/.test(g) || IPV4.test(g)) && (double.length === 2 ? groups.length < 8 : groups.length === 8);
}

function isUri(s: string, absolute: boolean): boolean {
  if (absolute) return /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/.test(s);
  return !/\s/.test(s);
}

/** Problems of one string against string rules (also the per-item rules of a list). */
function stringRuleProblems(s: string, rules: StringRules): string[] {
  if (rules.ignoreEmpty && s === "") return [];
  const out: string[] = [];
  const n = codePoints(s);
  const bytes = utf8.encode(s).length;
  const bound = (v: string | undefined): bigint | undefined => int(v);
  if (rules.const !== undefined && s !== rules.const) out.push(`must be "${rules.const}"`);
  const len = bound(rules.len);
  if (len !== undefined && BigInt(n) !== len) out.push(`must be exactly ${len} characters`);
  const minLen = bound(rules.minLen);
  if (minLen !== undefined && BigInt(n) < minLen) out.push(`must be at least ${minLen} characters`);
  const maxLen = bound(rules.maxLen);
  if (maxLen !== undefined && BigInt(n) > maxLen) out.push(`must be at most ${maxLen} characters`);
  const lenBytes = bound(rules.lenBytes);
  if (lenBytes !== undefined && BigInt(bytes) !== lenBytes) out.push(`must be exactly ${lenBytes} bytes`);
  const minBytes = bound(rules.minBytes);
  if (minBytes !== undefined && BigInt(bytes) < minBytes) out.push(`must be at least ${minBytes} bytes`);
  const maxBytes = bound(rules.maxBytes);
  if (maxBytes !== undefined && BigInt(bytes) > maxBytes) out.push(`must be at most ${maxBytes} bytes`);
  if (rules.pattern !== undefined && rules.pattern !== "") {
    const re = compileRegex(rules.pattern);
    if (!re.ok) out.push(`cannot be checked: the form's pattern is not valid (${re.message})`);
    else if (!re.re.matcher(s).find()) out.push(`must match the pattern ${rules.pattern}`);
  }
  if (rules.prefix !== undefined && rules.prefix !== "" && !s.startsWith(rules.prefix)) out.push(`must start with "${rules.prefix}"`);
  if (rules.suffix !== undefined && rules.suffix !== "" && !s.endsWith(rules.suffix)) out.push(`must end with "${rules.suffix}"`);
  if (rules.contains !== undefined && rules.contains !== "" && !s.includes(rules.contains)) out.push(`must contain "${rules.contains}"`);
  if (rules.notContains !== undefined && rules.notContains !== "" && s.includes(rules.notContains)) out.push(`must not contain "${rules.notContains}"`);
  if (rules.in && rules.in.length > 0 && !rules.in.includes(s)) out.push(`must be one of ${rules.in.map((x) => `"${x}"`).join(", ")}`);
  if (rules.notIn && rules.notIn.includes(s)) out.push(`must not be "${s}"`);
  if (rules.email && !EMAIL.test(s)) out.push("must be an email address");
  if (rules.hostname && !HOSTNAME.test(s)) out.push("must be a host name");
  if (rules.ip && !IPV4.test(s) && !isIpv6(s)) out.push("must be an IP address");
  if (rules.ipv4 && !IPV4.test(s)) out.push("must be an IPv4 address");
  if (rules.ipv6 && !isIpv6(s)) out.push("must be an IPv6 address");
  if (rules.address && !HOSTNAME.test(s) && !IPV4.test(s) && !isIpv6(s)) out.push("must be a host name or an IP address");
  if (rules.uri && !isUri(s, true)) out.push("must be an absolute URI");
  if (rules.uriRef && !isUri(s, false)) out.push("must be a URI reference");
  if (rules.uuid && !UUID.test(s)) out.push("must be a UUID");
  return out;
}

/** Whole days between two instants' UTC dates. */
function daysFrom(now: string, date: string): number {
  const today = new Date(msOf(now));
  const t = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
  return Math.round((Date.parse(`${date}T00:00:00Z`) - t) / 86400000);
}

interface Env {
  readonly now: string;
  readonly world: World | undefined;
}

/** Problems of a value given for a field (the value is not empty). */
function valueProblems(field: Field, v: JsonValue, env: Env): string[] {
  const type = field.type;
  if (!type) return [];
  switch (type.kind) {
    case "stringField": {
      if (typeof v !== "string") return [`must be a string, not ${describe(v)}`];
      const out = type.rules ? stringRuleProblems(v, type.rules) : [];
      const view = type.view;
      if (view?.kind === "selectField") {
        const options = (view.options ?? []).map((o) => o.value);
        if (options.length > 0 && !options.includes(v)) out.push(`must be one of the options ${options.map((o) => `"${o}"`).join(", ")}`);
      }
      if (view?.kind === "dateField") {
        if (!/^\d{4}-\d{2}-\d{2}$/.test(v) || Number.isNaN(Date.parse(`${v}T00:00:00Z`))) out.push("must be a date (YYYY-MM-DD)");
        else {
          const d = daysFrom(env.now, v);
          if (view.minDaysFromToday !== 0 && d < view.minDaysFromToday) out.push(`must be at least ${view.minDaysFromToday} days from today`);
          if (view.maxDaysFromToday !== 0 && d > view.maxDaysFromToday) out.push(`must be at most ${view.maxDaysFromToday} days from today`);
        }
      }
      if (view?.kind === "pickerField" && env.world) out.push(...pickerProblems(view.pickerField, [v], env.world));
      return out;
    }
    case "boolField": {
      if (typeof v !== "boolean") return [`must be true or false, not ${describe(v)}`];
      if (type.rules?.const !== undefined && v !== type.rules.const) return [`must be ${String(type.rules.const)}`];
      return [];
    }
    case "int64Field": {
      const n = typeof v === "number" && Number.isSafeInteger(v) ? BigInt(v) : typeof v === "string" ? int(v) : undefined;
      if (n === undefined) return [`must be a whole number, not ${describe(v)}`];
      const out: string[] = [];
      const r = type.rules;
      if (r && !(r.ignoreEmpty && n === 0n)) {
        const c = int(r.const);
        if (c !== undefined && n !== c) out.push(`must be ${c}`);
        const gt = int(r.gt);
        if (gt !== undefined && !(n > gt)) out.push(`must be greater than ${gt}`);
        const gte = int(r.gte);
        if (gte !== undefined && !(n >= gte)) out.push(`must be at least ${gte}`);
        const lt = int(r.lt);
        if (lt !== undefined && !(n < lt)) out.push(`must be less than ${lt}`);
        const lte = int(r.lte);
        if (lte !== undefined && !(n <= lte)) out.push(`must be at most ${lte}`);
        if (r.in && r.in.length > 0 && !r.in.some((x) => int(x) === n)) out.push(`must be one of ${r.in.join(", ")}`);
        if (r.notIn && r.notIn.some((x) => int(x) === n)) out.push(`must not be ${n}`);
      }
      const view = type.view;
      if (view?.kind === "numberField") {
        const min = int(view.minValue);
        if (min !== undefined && n < min) out.push(`must be at least ${min}`);
        const max = int(view.maxValue);
        if (max !== undefined && n > max) out.push(`must be at most ${max}`);
      }
      return [...new Set(out)];
    }
    case "stringSliceField": {
      if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) return [`must be a list of strings, not ${describe(v)}`];
      const items = v as string[];
      const out: string[] = [];
      const r = type.rules;
      if (r) {
        const min = int(r.minItems);
        if (min !== undefined && BigInt(items.length) < min) out.push(`must have at least ${min} items`);
        const max = int(r.maxItems);
        if (max !== undefined && BigInt(items.length) > max) out.push(`must have at most ${max} items`);
        if (r.unique && new Set(items).size !== items.length) out.push("must not repeat an item");
        const itemRules = r.items?.["string"];
        if (itemRules && typeof itemRules === "object" && !Array.isArray(itemRules))
          items.forEach((s, i) => {
            for (const p of stringRuleProblems(s, itemRules as StringRules)) out.push(`item ${i} ${p}`);
          });
      }
      if (type.view?.kind === "pickerField" && env.world) out.push(...pickerProblems(type.view.pickerField, items, env.world));
      return out;
    }
    case "stringMapField": {
      if (typeof v !== "object" || v === null || Array.isArray(v) || Object.values(v).some((x) => typeof x !== "string"))
        return [`must be an object of strings, not ${describe(v)}`];
      return [];
    }
    case "fileField": {
      const file = typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : undefined;
      const name = typeof v === "string" ? v : typeof file?.["name"] === "string" ? file["name"] : undefined;
      if (name === undefined) return [`must be a file name or {name, size}, not ${describe(v)}`];
      const out: string[] = [];
      const types = type.acceptedFileTypes ?? [];
      if (types.length > 0 && !types.some((t) => name.toLowerCase().endsWith(t.toLowerCase())))
        out.push(`must be a file of type ${types.join(", ")}`);
      const size = typeof file?.["size"] === "number" ? file["size"] : undefined;
      const max = int(type.maxFileSize);
      if (size !== undefined && max !== undefined && max > 0n && BigInt(Math.trunc(size)) > max) out.push(`must be at most ${max} bytes`);
      return out;
    }
    case "oauth2Field":
    case "unknown":
      return [];
    default: {
      const never: never = type;
      return never;
    }
  }
}

function pickerProblems(picker: Picker, ids: readonly string[], world: World): string[] {
  const out: string[] = [];
  if (picker.kind === "svcUserPicker") {
    const allowed = picker.userIds ?? [];
    const excluded = picker.excludeUserIds ?? [];
    for (const id of ids) {
      const u = world.index.users.get(id);
      if (!u) out.push(`"${id}" is not a user`);
      else if (allowed.length > 0 && !allowed.includes(id)) out.push(`"${id}" is not one of the users offered`);
      else if (excluded.includes(id)) out.push(`"${id}" may not be picked`);
      else if (!picker.includeDeactivated && (u.status === "DISABLED" || u.status === "DELETED")) out.push(`"${id}" is ${u.status.toLowerCase()}`);
    }
  }
  if (picker.kind === "appUserPicker")
    for (const id of ids) {
      const au = world.index.appUsers.get(id);
      if (!au || (picker.appId && au.appId !== picker.appId)) out.push(`"${id}" is not an account of app "${picker.appId}"`);
    }
  return out;
}

function defaultOf(field: Field): JsonValue | undefined {
  const t = field.type;
  switch (t?.kind) {
    case "stringField":
      return t.defaultValue !== "" ? t.defaultValue : undefined;
    case "boolField":
      return t.defaultValue;
    case "int64Field":
      return t.defaultValue !== "" && t.defaultValue !== "0" ? t.defaultValue : undefined;
    case "stringSliceField":
      return t.defaultValues && t.defaultValues.length > 0 ? [...t.defaultValues] : undefined;
    case "stringMapField":
      return t.defaultValue && Object.keys(t.defaultValue).length > 0 ? { ...t.defaultValue } : undefined;
    default:
      return undefined;
  }
}

/**
 * Validates form values: unknown fields, read-only fields given a value, required fields left empty,
 * each value against its field's type, rules and view (select options, date bounds, pickers), and
 * the form's field relationships. Fields left empty take their default.
 *
 * @example
 * ```ts
 * const r = validateFormValues(form, { justification: "short" }, { now: world.now, world });
 * r.problems; // [{ field: "justification", message: "must be at least 20 characters" }]
 * ```
 */
export function validateFormValues(form: Form | null, values: JsonObject, env: { readonly now: string; readonly world?: World }): FormValidation {
  const problems: FieldProblem[] = [];
  const fields = form?.fields ?? [];
  const byName = new Map(fields.map((f) => [f.name, f]));
  const out: Record<string, JsonValue> = {};
  for (const key of Object.keys(values))
    if (!byName.has(key)) problems.push({ field: key, message: `is not a field of form "${form?.displayName || form?.id || ""}" (fields: ${fields.map((f) => f.name).join(", ")})` });
  for (const f of fields) {
    const given = values[f.name];
    if (f.readOnly && !isEmpty(given)) {
      problems.push({ field: f.name, message: "is read-only" });
      continue;
    }
    const fallback = defaultOf(f);
    const v = isEmpty(given) ? fallback : given;
    if (v === undefined || isEmpty(v)) {
      const mapRequired = f.type?.kind === "stringMapField" && f.type.rules?.isRequired === true;
      if (f.required || mapRequired) problems.push({ field: f.name, message: "is required" });
      continue;
    }
    for (const m of valueProblems(f, v, { now: env.now, world: env.world })) problems.push({ field: f.name, message: m });
    out[f.name] = v;
  }
  const set = (name: string): boolean => !isEmpty(out[name]);
  for (const rel of form?.fieldRelationships ?? []) {
    const names = rel.fieldNames ?? [];
    const r = rel.relationship;
    if (!r || names.length === 0) continue;
    const present = names.filter(set);
    switch (r.kind) {
      case "requiredTogether":
        if (present.length > 0 && present.length < names.length)
          for (const n of names.filter((x) => !set(x))) problems.push({ field: n, message: `is required together with ${present.join(", ")}` });
        break;
      case "atLeastOne":
        if (present.length === 0) problems.push({ field: names[0] ?? "", message: `at least one of ${names.join(", ")} is required` });
        break;
      case "mutuallyExclusive":
        if (present.length > 1) problems.push({ field: present[1] ?? "", message: `cannot be set together with ${present[0] ?? ""} (${names.join(", ")} are mutually exclusive)` });
        break;
      case "dependentOn":
        if (present.length > 0)
          for (const d of r.dependencyFieldNames ?? [])
            if (!set(d)) problems.push({ field: d, message: `is required because ${present.join(", ")} ${present.length > 1 ? "are" : "is"} set` });
        break;
      case "unknown":
        break;
      default: {
        const never: never = r;
        void never;
      }
    }
  }
  return { values: out, problems };
}
