/**
 * Updates of an app and of an entitlement (`c1.api.app.v1.Apps.Update`, `AppEntitlements.Update`)
 * for the fields the world models, above all the policies they name: a client can point an
 * entitlement at another grant policy and see which steps a later Hard Reset or new task selects.
 *
 * The body is `{app | entitlement, updateMask}`; the mask (a comma-separated field mask, camelCase
 * or snake_case) names the fields to write, and without one every writable field the object sets is
 * written. A field the world does not model is refused (INVALID_ARGUMENT) rather than dropped. Who
 * may: Super Administrators, and Application Administrators on the apps they own
 * (product_admin_user-roles.mdx; `mayManageApp`).
 */
import type { App, AppEntitlement, User } from "../../model/directory.js";
import type { JsonObject } from "../../model/json.js";
import { rolesOf } from "../../reducers/permissions.js";
import { err, ok, type Result } from "../../result.js";
import { findEntitlement, replaceInWorld, takeIds, type World } from "../../world/world.js";
import { type HttpFailure, requiredStringProblem } from "../error-body.js";
import { managedApp } from "./managed-app.js";
import { ENTITLEMENT_PURPOSES, entitlementViewExpanded, expandMaskOf } from "./entitlement-search.js";
import { appWire } from "./reads.js";
import { invalid, notFound } from "./refuse.js";

type Body = Readonly<Record<string, unknown>>;

/**
 * A successful update: the next world and the 200 body.
 *
 * @example
 * ```ts
 * const r = updateApp(world, caller, "app-aws", { app: { grantPolicyId: "pol-x" }, updateMask: "grantPolicyId" });
 * if (r.ok) store.set(r.value.world);
 * ```
 */
export interface DirectoryWrite {
  readonly world: World;
  readonly body: JsonObject;
}


/**
 * How one writable field is read from the request: a string, a boolean, or a policy id of the world ("" unsets).
 *
 * @example
 * ```ts
 * const fields: Readonly<Record<string, FieldKind>> = { displayName: "string", grantPolicyId: "policy" };
 * ```
 */
export type FieldKind = "string" | "boolean" | "policy";

const APP_FIELDS = {
  displayName: "string",
  grantPolicyId: "policy",
  revokePolicyId: "policy",
  certifyPolicyId: "policy",
  revokeGrantSources: "boolean",
} as const satisfies Readonly<Record<string, FieldKind>>;

const ENTITLEMENT_FIELDS = {
  displayName: "string",
  grantPolicyId: "policy",
  revokePolicyId: "policy",
  certifyPolicyId: "policy",
  emergencyGrantEnabled: "boolean",
  emergencyGrantPolicyId: "policy",
  overrideAccessRequestsDefaults: "boolean",
  riskLevelValueId: "string",
  requestSchemaId: "string",
} as const satisfies Readonly<Record<string, FieldKind>>;

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * The mask's field names (camelCase), each a writable field or a carried one; with no mask, those
 * `object` sets.
 */
function maskOf(mask: unknown, object: Body, fields: Readonly<Record<string, FieldKind>>, carried: readonly string[], what: string): Result<readonly string[], HttpFailure> {
  const known = (p: string): boolean => Object.hasOwn(fields, p) || carried.includes(p);
  let paths: string[];
  if (mask === undefined || mask === null || mask === "") paths = Object.keys(object).filter(known);
  else if (typeof mask === "string") paths = mask.split(",").map((p) => camel(p.trim())).filter((p) => p !== "");
  else if (typeof mask === "object" && !Array.isArray(mask) && Array.isArray((mask as Body)["paths"]))
    paths = ((mask as Body)["paths"] as unknown[]).filter((p): p is string => typeof p === "string").map(camel);
  else return invalid("updateMask", 'updateMask must be a field mask: a comma-separated string such as "grantPolicyId,displayName"');
  for (const p of paths)
    if (!known(p)) return invalid("updateMask", `updateMask names "${p}", which is not a writable ${what} field here (${[...Object.keys(fields), ...carried].join(", ")})`);
  return ok(paths);
}

/** The decoded values of the masked fields, checked against their kinds and the world's policies. */
function valuesOf(world: World, object: Body, paths: readonly string[], fields: Readonly<Record<string, FieldKind>>, what: string): Result<Record<string, string | boolean>, HttpFailure> {
  const out: Record<string, string | boolean> = {};
  for (const p of paths) {
    const kind = fields[p];
    const v = object[p];
    const field = `${what}.${p}`;
    if (kind === "boolean") {
      if (v !== undefined && v !== null && typeof v !== "boolean") return invalid(field, `${field} must be true or false`);
      out[p] = v === true;
    } else {
      if (v !== undefined && v !== null && typeof v !== "string") return invalid(field, `${field} must be a string`);
      const s = typeof v === "string" ? v : "";
      if (kind === "policy" && s !== "" && !world.index.policies.has(s)) return invalid(field, `${field} names policy "${s}", which does not exist`);
      // A grant field names a grant policy, and so on: a revoke policy would route requests through revoke steps.
      const want = POLICY_FIELD_TYPES[p];
      const named = kind === "policy" && s !== "" ? world.index.policies.get(s) : undefined;
      if (want && named && named.policyType !== want)
        return invalid(field, `${field} names policy "${s}", a ${named.policyType} policy; it takes a ${want} policy`);
      out[p] = s;
    }
  }
  return ok(out);
}


/** The policy type each policy field of an app or entitlement takes. */
const POLICY_FIELD_TYPES: Readonly<Record<string, string>> = {
  grantPolicyId: "POLICY_TYPE_GRANT",
  revokePolicyId: "POLICY_TYPE_REVOKE",
  certifyPolicyId: "POLICY_TYPE_CERTIFY",
  emergencyGrantPolicyId: "POLICY_TYPE_GRANT",
};

function objectOf(body: Body, key: string): Result<Body, HttpFailure> {
  const o = body[key];
  if (typeof o !== "object" || o === null || Array.isArray(o)) return invalid(key, `${key} is required: the fields to write`);
  return ok(o as Body);
}

/**
 * An update's values: the `key` object of the body (its id, if set, the path's), the fields its
 * mask names (camelCase or snake_case; without a mask, the writable fields the object sets), decoded.
 *
 * @example
 * ```ts
 * patchOf(world, { app: { displayName: "x" }, updateMask: "display_name" }, "app", "app-aws", { displayName: "string" });
 * // ok({ displayName: "x" })
 * ```
 */
export function patchOf(world: World, body: Body, key: string, pathId: string, fields: Readonly<Record<string, FieldKind>>): Result<Record<string, string | boolean>, HttpFailure> {
  const p = carryingPatchOf(world, body, key, pathId, fields, []);
  return p.ok ? ok(p.value.values) : p;
}

/**
 * {@link patchOf} for an object whose `carried` fields the world keeps as they came (its
 * `$unknown`): the mask may name those too, and their values come apart (`null` clears one).
 */
function carryingPatchOf(
  world: World,
  body: Body,
  key: string,
  pathId: string,
  fields: Readonly<Record<string, FieldKind>>,
  carried: readonly string[],
): Result<{ readonly values: Record<string, string | boolean>; readonly carried: Readonly<Record<string, unknown>> }, HttpFailure> {
  const patch = objectOf(body, key);
  if (!patch.ok) return patch;
  const id = patch.value["id"];
  if (typeof id === "string" && id !== "" && id !== pathId) return invalid(`${key}.id`, `${key}.id "${id}" does not match the path's "${pathId}"`);
  const paths = maskOf(body["updateMask"], patch.value, fields, carried, key);
  if (!paths.ok) return paths;
  const kept: Record<string, unknown> = {};
  for (const f of paths.value) {
    if (!carried.includes(f)) continue;
    const v = carriedValue(f, patch.value[f] ?? null, `${key}.${f}`);
    if (!v.ok) return v;
    kept[f] = v.value;
  }
  const values = valuesOf(world, patch.value, paths.value.filter((f) => !carried.includes(f)), fields, key);
  return values.ok ? ok({ values: values.value, carried: kept }) : values;
}

/** A request's list of user ids (absent: none), each a user of the world, without repeats. */
function userIdsOf(world: World, body: Body, field: string): Result<readonly string[], HttpFailure> {
  const v = body[field];
  if (v !== undefined && v !== null && (!Array.isArray(v) || v.some((o) => typeof o !== "string"))) return invalid(field, `${field} must be an array of user ids`);
  const ids = [...new Set((v ?? []) as string[])];
  const stranger = ids.find((o) => !world.index.users.has(o));
  return stranger === undefined ? ok(ids) : invalid(field, `${field} names user "${stranger}", who does not exist`);
}

const isObject = (v: unknown): boolean => typeof v === "object" && v !== null && !Array.isArray(v);
const INT32 = /^-?\d{1,10}$/;

/**
 * The type openapi.yaml gives each field the world keeps without acting on it (CreateAppRequest,
 * CreateAppEntitlementRequestInput, UpdateAppEntitlementRequest), as protojson reads it: the value
 * kept (an int32 given as a decimal string, as protojson takes it, is kept as its number), or what
 * it must be. Every read of the app or entitlement writes the value back, and the service's SDKs
 * fail on a value of the wrong type (`monthlyCostUsd: "12"`, `description: 123`).
 */
const CARRIED_TYPES: Readonly<Record<string, (v: unknown) => { value: unknown } | string>> = {
  description: (v) => (typeof v === "string" ? { value: v } : "a string"),
  instructions: (v) => (typeof v === "string" ? { value: v } : "a string"),
  alias: (v) => (typeof v === "string" ? { value: v } : "a string"),
  slug: (v) => (typeof v === "string" ? { value: v } : "a string"),
  monthlyCostUsd: (v) => {
    const n = typeof v === "string" && INT32.test(v) ? Number(v) : v;
    return typeof n === "number" && Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 ? { value: n } : "a whole number (int32)";
  },
  identityMatching: (v) =>
    typeof v === "string" && IDENTITY_MATCHING.includes(v) ? { value: v } : `one of ${IDENTITY_MATCHING.join(", ")}`,
  purpose: (v) => (typeof v === "string" && ENTITLEMENT_PURPOSES.includes(v) ? { value: v } : `one of ${ENTITLEMENT_PURPOSES.join(", ")}`),
  strictAccessEntitlementProvisioning: (v) => (typeof v === "boolean" ? { value: v } : "true or false"),
  complianceFrameworkValueIds: (v) => (Array.isArray(v) && v.every((x) => typeof x === "string") ? { value: v } : "an array of strings"),
  durationGrant: (v) => (typeof v === "string" && /^\d+(\.\d{1,9})?s$/.test(v) ? { value: v } : 'a duration such as "3600s"'),
  durationUnset: (v) => (isObject(v) ? { value: v } : "an object"),
  provisionPolicy: (v) => (isObject(v) ? { value: v } : "an object"),
};
const IDENTITY_MATCHING: readonly string[] = ["APP_USER_IDENTITY_MATCHING_UNSPECIFIED", "APP_USER_IDENTITY_MATCHING_STRICT", "APP_USER_IDENTITY_MATCHING_DISPLAY_NAME", "APP_USER_IDENTITY_MATCHING_CUSTOM"];

/** A kept field's value checked against its type ({@link CARRIED_TYPES}); `null` (clear) passes. */
function carriedValue(field: string, v: unknown, at: string): Result<unknown, HttpFailure> {
  const check = CARRIED_TYPES[field];
  if (v === null || check === undefined) return ok(v);
  const r = check(v);
  return typeof r === "string" ? invalid(at, `${at} must be ${r}, not ${JSON.stringify(v)}`) : ok(r.value);
}

/** The request's values of fields the world keeps without acting on them (its `$unknown`), each of its type. */
function carriedOf(body: Body, fields: readonly string[]): Result<Record<string, unknown>, HttpFailure> {
  const carried: Record<string, unknown> = {};
  for (const f of fields) {
    if (body[f] === undefined || body[f] === null) continue;
    const v = carriedValue(f, body[f], f);
    if (!v.ok) return v;
    carried[f] = v.value;
  }
  return ok(carried);
}

/** CreateAppRequest fields the world keeps as they came (the app's wire form carries them back). */
const APP_CARRIED_ON_CREATE = ["description", "instructions", "monthlyCostUsd", "identityMatching", "strictAccessEntitlementProvisioning", "annotations"] as const;
/** CreateAppRequest fields that would need what the world does not model (connector matching, entitlement owners). */
const APP_REFUSED_ON_CREATE = ["matchBatonRef", "appEntitlementOwnerRefs"] as const;

/**
 * `POST /api/v1/apps` (`Apps.Create`): a manual app (no connector) with the request's display name
 * (required), policies and owners → `{app}`. Super Administrators and Application Administrators may
 * ("Create new applications", product_admin_user-roles.mdx). The id is the world's next `app-…`.
 *
 * @example
 * ```ts
 * const r = createApp(world, admin, { displayName: "Payroll", grantPolicyId: "pol-finance-form", owners: ["u-it2"] });
 * if (r.ok) store.set(r.value.world); // r.value.body.app.id === "app-000042"
 * ```
 */
export function createApp(world: World, caller: User, body: Body): Result<DirectoryWrite, HttpFailure> {
  const roles = rolesOf(world, caller);
  if (!roles.includes("SUPER_ADMIN") && !roles.includes("APPLICATION_ADMIN"))
    return err({ status: 403, code: "PERMISSION_DENIED", reason: "PERMISSION_DENIED", message: `user "${caller.id}" may not create apps (Super Administrators and Application Administrators may)` });
  for (const f of APP_REFUSED_ON_CREATE) {
    const v = body[f];
    if (v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0))
      return invalid(f, `${f} is not modelled by the simulation: create the app without it`);
  }
  const name = body["displayName"];
  const unnamed = requiredStringProblem("displayName", typeof name === "string" ? name.trim() : name, "the app's name");
  if (unnamed !== undefined || typeof name !== "string") return invalid("displayName", unnamed ?? "displayName is required");
  const values = valuesOf(world, body, ["grantPolicyId", "revokePolicyId", "certifyPolicyId"], APP_FIELDS, "app");
  if (!values.ok) return values;
  const ownerUserIds = userIdsOf(world, body, "owners");
  if (!ownerUserIds.ok) return ownerUserIds;
  const kept = carriedOf(body, APP_CARRIED_ON_CREATE);
  if (!kept.ok) return kept;
  const carried = kept.value;
  const { ids, seq } = takeIds(world, "app", 1);
  const app: App = {
    id: ids[0] ?? "",
    displayName: name,
    grantPolicyId: String(values.value["grantPolicyId"] ?? ""),
    revokePolicyId: String(values.value["revokePolicyId"] ?? ""),
    certifyPolicyId: String(values.value["certifyPolicyId"] ?? ""),
    ownerUserIds: ownerUserIds.value,
    revokeGrantSources: false,
    isManuallyManaged: true,
    ...(Object.keys(carried).length > 0 ? { $unknown: carried } : {}),
  };
  return ok({ world: Object.freeze({ ...replaceInWorld(world, { apps: [app] }), seq }), body: { app: appWire(world, app) } });
}

/** CreateAppEntitlementRequest fields the world keeps as they came (`durationGrant` is the entitlement's maximum grant duration). */
const ENTITLEMENT_CARRIED_ON_CREATE = ["alias", "description", "durationGrant", "durationUnset", "purpose", "slug", "complianceFrameworkValueIds", "provisionPolicy"] as const;

/**
 * `POST /api/v1/apps/{app_id}/entitlements` (`AppEntitlements.Create`): a custom entitlement of an
 * app with the request's display name (required), resource, policies, emergency and request
 * settings, owners (`appEntitlementOwnerIds`) and annotations → `{appEntitlementView, expanded}`.
 * Who may: as for the app's updates. The id is the world's next `ent-…`.
 *
 * @example
 * ```ts
 * const r = createEntitlement(world, admin, "app-aws", { displayName: "Billing reader", grantPolicyId: "pol-finance-form" });
 * if (r.ok) store.set(r.value.world);
 * ```
 */
export function createEntitlement(world: World, caller: User, appId: string, body: Body): Result<DirectoryWrite, HttpFailure> {
  const app = managedApp(world, caller, appId);
  if (!app.ok) return app;
  if (typeof body["matchBatonId"] === "string" && body["matchBatonId"] !== "")
    return invalid("matchBatonId", "matchBatonId is not modelled by the simulation: create the entitlement without it");
  const name = body["displayName"];
  const unnamed = requiredStringProblem("displayName", typeof name === "string" ? name.trim() : name, "the entitlement's name");
  if (unnamed !== undefined || typeof name !== "string") return invalid("displayName", unnamed ?? "displayName is required");
  const settable = Object.keys(ENTITLEMENT_FIELDS).filter((f) => f !== "displayName");
  const values = valuesOf(world, body, settable, ENTITLEMENT_FIELDS, "entitlement");
  if (!values.ok) return values;
  const texts: Record<string, string> = {};
  for (const f of ["appResourceTypeId", "appResourceId"] as const) {
    const v = body[f];
    if (v !== undefined && v !== null && typeof v !== "string") return invalid(f, `${f} must be a string`);
    texts[f] = typeof v === "string" ? v : "";
  }
  const ownerUserIds = userIdsOf(world, body, "appEntitlementOwnerIds");
  if (!ownerUserIds.ok) return ownerUserIds;
  const annotations = body["annotations"];
  if (annotations !== undefined && annotations !== null && (typeof annotations !== "object" || Array.isArray(annotations) || Object.values(annotations).some((v) => typeof v !== "string")))
    return invalid("annotations", "annotations must be a map of strings to strings");
  const kept = carriedOf(body, ENTITLEMENT_CARRIED_ON_CREATE);
  if (!kept.ok) return kept;
  const carried = kept.value;
  const expand = expandMaskOf(body);
  if (!expand.ok) return expand;
  const { ids, seq } = takeIds(world, "ent", 1);
  const v = values.value;
  const ent: AppEntitlement = {
    id: ids[0] ?? "",
    appId,
    displayName: name,
    appResourceTypeId: texts["appResourceTypeId"] ?? "",
    appResourceId: texts["appResourceId"] ?? "",
    grantPolicyId: String(v["grantPolicyId"] ?? ""),
    revokePolicyId: String(v["revokePolicyId"] ?? ""),
    certifyPolicyId: String(v["certifyPolicyId"] ?? ""),
    emergencyGrantEnabled: v["emergencyGrantEnabled"] === true,
    emergencyGrantPolicyId: String(v["emergencyGrantPolicyId"] ?? ""),
    overrideAccessRequestsDefaults: v["overrideAccessRequestsDefaults"] === true,
    riskLevelValueId: String(v["riskLevelValueId"] ?? ""),
    requestSchemaId: String(v["requestSchemaId"] ?? ""),
    ownerUserIds: ownerUserIds.value,
    annotations: { ...((annotations ?? {}) as Record<string, string>) },
    ...(Object.keys(carried).length > 0 ? { $unknown: carried } : {}),
  };
  const next = Object.freeze({ ...replaceInWorld(world, { entitlements: [ent] }), seq });
  return ok({ world: next, body: entitlementViewExpanded(next, ent, expand.value) });
}

/** `$unknown` with `values` written in (a null value removes its field). */
function withCarried(unknown: Readonly<Record<string, unknown>> | undefined, values: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> | undefined {
  if (Object.keys(values).length === 0) return unknown;
  const out: Record<string, unknown> = { ...(unknown ?? {}) };
  for (const [k, v] of Object.entries(values)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * `POST /api/v1/apps/{id}` (`Apps.Update`): `{app, updateMask}` → `{app}`.
 *
 * @example
 * ```ts
 * updateApp(world, admin, "app-aws", { app: { grantPolicyId: "pol-aws-access" }, updateMask: "grantPolicyId" });
 * ```
 */
export function updateApp(world: World, caller: User, appId: string, body: Body): Result<DirectoryWrite, HttpFailure> {
  const app = managedApp(world, caller, appId);
  if (!app.ok) return app;
  const patch = carryingPatchOf(world, body, "app", appId, APP_FIELDS, APP_CARRIED_ON_CREATE);
  if (!patch.ok) return patch;
  const unknown = withCarried(app.value.$unknown, patch.value.carried);
  const { $unknown: _old, ...kept } = app.value;
  const next: App = { ...kept, ...patch.value.values, ...(unknown ? { $unknown: unknown } : {}) };
  return ok({ world: replaceInWorld(world, { apps: [next] }), body: { app: appWire(world, next) } });
}

/**
 * `POST /api/v1/apps/{app_id}/entitlements/{id}` (`AppEntitlements.Update`): `{entitlement,
 * updateMask}` → `{appEntitlementView, expanded}`. The request's own `overrideAccessRequestsDefaults:
 * true` also sets the entitlement's.
 *
 * @example
 * ```ts
 * updateEntitlement(world, admin, "app-aws", "ent-aws-billing", { entitlement: { grantPolicyId: "pol-finance-form" }, updateMask: "grantPolicyId" });
 * ```
 */
export function updateEntitlement(world: World, caller: User, appId: string, id: string, body: Body): Result<DirectoryWrite, HttpFailure> {
  const app = managedApp(world, caller, appId);
  if (!app.ok) return app;
  const current = findEntitlement(world, appId, id);
  if (!current) return notFound(`entitlement "${id}" of app "${appId}" not found`);
  const patch = carryingPatchOf(world, body, "entitlement", id, ENTITLEMENT_FIELDS, ENTITLEMENT_CARRIED_ON_CREATE);
  if (!patch.ok) return patch;
  const expand = expandMaskOf(body);
  if (!expand.ok) return expand;
  const override = body["overrideAccessRequestsDefaults"] === true ? { overrideAccessRequestsDefaults: true } : {};
  const unknown = withCarried(current.$unknown, patch.value.carried);
  const { $unknown: _old, ...kept } = current;
  const next: AppEntitlement = { ...kept, ...patch.value.values, ...override, ...(unknown ? { $unknown: unknown } : {}) };
  const after = replaceInWorld(world, { entitlements: [next] });
  return ok({ world: after, body: entitlementViewExpanded(after, next, expand.value) });
}
