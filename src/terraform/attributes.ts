/**
 * A `conductorone_policy` resource's attribute values (snake_case, as the Terraform provider names
 * them) as the API's Policy JSON (camelCase). Three things are not a plain rename (see
 * the provider's `conductorone_policy` resource schema): keys of the two map attributes
 * (`annotations`, `policy_steps`) are data and stay as written; three attributes hold JSON text
 * (`form`, `multi_step`, a connector account's `config`) and are parsed, their content already in
 * the API's names; and attributes the configuration leaves unset are `null` in a plan, which the API
 * spells by leaving the field out (a oneof must carry exactly one member).
 */
import { COMPUTED_ATTRIBUTES } from "./policy-schema.js";

/**
 * A problem with a plan, located by a JSONPath into the plan document.
 *
 * @example
 * ```ts
 * const d: PlanDiagnostic = { code: "PLAN_BAD_JSON_ATTRIBUTE", path: "$.resource_changes[0].change.after.policy_steps.grant.steps[0].form", message: "…" };
 * ```
 */
export interface PlanDiagnostic {
  readonly code: PlanDiagnosticCode;
  readonly path: string;
  readonly message: string;
}

/**
 * Stable codes of {@link PlanDiagnostic}.
 *
 * @example
 * ```ts
 * const code: PlanDiagnosticCode = "PLAN_UNRESOLVED_UNKNOWN";
 * ```
 */
export type PlanDiagnosticCode =
  | "PLAN_NOT_A_PLAN"
  | "PLAN_ERRORED"
  | "PLAN_BAD_RESOURCE_CHANGE"
  | "PLAN_BAD_JSON_ATTRIBUTE"
  | "PLAN_UNRESOLVED_UNKNOWN"
  | "PLAN_BAD_POLICY"
  | "PLAN_DUPLICATE_POLICY"
  | "PLAN_DELETE_REFERENCED"
  | "PLAN_UNKNOWN_ATTRIBUTE"
  | "PLAN_WORLD_OUT_OF_DATE";

/** Attributes whose value is a map: their keys are user data (step keys, annotation keys). */
const MAP_ATTRIBUTES: ReadonlySet<string> = new Set(["annotations", "policy_steps"]);
/** Attributes that hold JSON as a string (the provider's "{ \"see\": \"documentation\" }"). */
const JSON_ATTRIBUTES: ReadonlySet<string> = new Set(["form", "multi_step", "config"]);

/**
 * `policy_steps` → `policySteps`, `baton_resource_action_id` → `batonResourceActionId`.
 *
 * @example
 * ```ts
 * camelCase("require_distinct_approvers"); // "requireDistinctApprovers"
 * ```
 */
export function camelCase(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/**
 * The provider's `baton…` names are the spec's `svc…` names (reference README: the spec's names
 * stay on the wire).
 */
const SPEC_NAMES: Readonly<Record<string, string>> = { batonResourceAction: "svcResourceAction", batonResourceActionId: "svcResourceActionId" };

/** The wire name of an attribute. */
function apiName(key: string): string {
  const camel = camelCase(key);
  // Own keys only: a plan's "to_string" is not Object.prototype.toString.
  return Object.hasOwn(SPEC_NAMES, camel) ? (SPEC_NAMES[camel] ?? camel) : camel;
}

/** The provider's name of a wire field: `policySteps` → `policy_steps`, `svcResourceAction` → `baton_resource_action`. */
function attributeName(wire: string): string {
  const provider = Object.entries(SPEC_NAMES).find(([, spec]) => spec === wire)?.[0] ?? wire;
  return provider.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/**
 * A JSONPath into a policy's wire JSON (a codec diagnostic's, `$.policySteps.grant.steps[0]`) as
 * the path of the same value among the plan's attribute values (`$.policy_steps.grant.steps[0]`):
 * field names in the provider's spelling, map keys as written, and a path inside one of the JSON
 * text attributes cut at the attribute, with the rest after it (`….form (in its JSON: fields[0])`).
 *
 * @example
 * ```ts
 * planPathOf("$.policySteps.grant.steps[0].wait.duration.duration"); // "$.policy_steps.grant.steps[0].wait.duration.duration"
 * ```
 */
export function planPathOf(wirePath: string): string {
  const segments = [...wirePath.slice(1).matchAll(/\.([^.[\]]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g)];
  let out = "$";
  let keepNext = false;
  for (let i = 0; i < segments.length; i++) {
    const m = segments[i] as RegExpMatchArray;
    if (m[2] !== undefined) {
      out += `[${m[2]}]`;
      continue;
    }
    const key = m[1] ?? (JSON.parse(m[3] ?? '""') as string);
    const name: string = keepNext ? key : attributeName(key);
    keepNext = i === 0 && MAP_ATTRIBUTES.has(name);
    out = pathKey(out, name);
    if (!keepNext && JSON_ATTRIBUTES.has(name) && i < segments.length - 1) {
      const rest = segments.slice(i + 1).map((x) => x[0]).join("");
      return `${out} (in its JSON: ${rest.replace(/^\./, "")})`;
    }
  }
  return out;
}

/**
 * Writes a key as an own property, whatever its name: a plan may hold a `__proto__` key, which
 * plain assignment would take as the object's prototype and drop from the output.
 */
export function put(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function isRecord(v: unknown): v is Readonly<Record<string, unknown>> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function pathKey(path: string, key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

export { isRecord, pathKey };
/** Read-only attributes the provider computes; the world keeps its own values for them. */
export { COMPUTED_ATTRIBUTES };

/**
 * proto3's zero values: a field holding one is the same as a field left unset.
 *
 * @example
 * ```ts
 * isZeroValue([]); // true
 * isZeroValue({}); // false: an empty message may be a oneof's member (`skip_step = {}`)
 * ```
 */
export function isZeroValue(v: unknown): boolean {
  return v === undefined || v === null || v === false || v === "" || v === 0 || v === "0" || (Array.isArray(v) && v.length === 0);
}

/**
 * Wire fields of a policy that the provider's `conductorone_policy` schema does not have
 * (compared against the provider's `conductorone_policy` resource schema): a plan cannot say
 * anything about them, so an update keeps the world's values.
 */
const OUTSIDE_PROVIDER_SCHEMA: ReadonlySet<string> = new Set(["implicit"]);

function isScalarOrScalarList(v: unknown): boolean {
  return !isRecord(v) && (!Array.isArray(v) || v.every((x) => !isRecord(x) && !Array.isArray(x)));
}

/**
 * Converts one resource's planned attribute values to the API's Policy JSON. `path` is where the
 * values sit in the plan, for diagnostics. Computed attributes (`id`, timestamps) are left out.
 *
 * `base` is the policy as the world has it (wire JSON), for an update: fields the provider's
 * schema does not have (a delegated provision's `implicit`) keep its values, and an attribute the plan leaves `null` where the world holds a zero value (`[]`,
 * `false`, `""`) keeps the world's spelling of it — the same value in proto3, so the edit changes
 * nothing that the plan does not. Only scalars and lists of scalars are taken from `base`: a
 * message there (a oneof member the plan replaced) is never brought back.
 *
 * @example
 * ```ts
 * const r = policyAttributesToApi({ display_name: "Prod", policy_steps: { grant: { steps: [{ accept: { accept_message: null } }] } } }, "$");
 * // r.value: { displayName: "Prod", policySteps: { grant: { steps: [{ accept: {} }] } } }
 * ```
 */
export function policyAttributesToApi(
  values: Readonly<Record<string, unknown>>,
  path: string,
  base?: unknown,
): { ok: true; value: Record<string, unknown> } | { ok: false; error: PlanDiagnostic[] } {
  const errors: PlanDiagnostic[] = [];
  const convert = (v: unknown, at: string, keepKeys: boolean, depth: number, from: unknown): unknown => {
    // The provider's schema nests a few levels deep; a hostile plan must not overflow the stack.
    if (depth > 64) {
      errors.push({ code: "PLAN_BAD_RESOURCE_CHANGE", path: at, message: "attribute values nest deeper than 64 levels" });
      return null;
    }
    if (Array.isArray(v)) return v.map((x, i) => convert(x, `${at}[${i}]`, false, depth + 1, Array.isArray(from) ? from[i] : undefined));
    if (!isRecord(v)) return v;
    const old: Readonly<Record<string, unknown>> = isRecord(from) ? from : {};
    const out: Record<string, unknown> = {};
    const written = new Set<string>();
    for (const [key, value] of Object.entries(v)) {
      const name = keepKeys ? key : apiName(key);
      written.add(name);
      const was = Object.hasOwn(old, name) ? old[name] : undefined;
      if (value === null || value === undefined) {
        if (!keepKeys && was !== undefined && isZeroValue(was)) put(out, name, was);
        continue;
      }
      const at2 = pathKey(at, key);
      if (!keepKeys && JSON_ATTRIBUTES.has(key) && typeof value === "string") put(out, name, parseJsonAttribute(value, at2, errors));
      else put(out, name, convert(value, at2, depth === 0 && MAP_ATTRIBUTES.has(key), depth + 1, was));
    }
    // Fields outside the provider's schema: the world's values stand.
    if (!keepKeys) for (const [name, was] of Object.entries(old)) if (!written.has(name) && OUTSIDE_PROVIDER_SCHEMA.has(name) && isScalarOrScalarList(was)) put(out, name, was);
    return out;
  };
  const top: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(values)) if (!COMPUTED_ATTRIBUTES.has(key)) put(top, key, v);
  const baseTop = isRecord(base) ? Object.fromEntries(Object.entries(base).filter(([k]) => !COMPUTED_WIRE_FIELDS.has(k))) : undefined;
  const value = convert(top, path, false, 0, baseTop);
  if (errors.length > 0) return { ok: false, error: errors };
  return { ok: true, value: isRecord(value) ? { ...value } : {} };
}

/** The wire names of the computed attributes, and the fields the world sets on its own. */
const COMPUTED_WIRE_FIELDS: ReadonlySet<string> = new Set(["id", "createdAt", "updatedAt", "systemBuiltin", "deletedAt"]);

function parseJsonAttribute(text: string, at: string, errors: PlanDiagnostic[]): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (e: unknown) {
    errors.push({
      code: "PLAN_BAD_JSON_ATTRIBUTE",
      path: at,
      message: `this attribute holds JSON text, and it does not parse: ${e instanceof Error ? e.message : String(e)}`,
    });
    return null;
  }
}
