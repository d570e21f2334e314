/**
 * Directory objects back to the service's JSON shapes: for saving a world and for the `expanded`
 * items of task responses (each tagged with its `@type`, as the service does).
 */
import type { AccessReview, App, AppEntitlement, AppUser, User } from "../model/directory.js";
import type { JsonObject } from "../model/json.js";
import { isRealTimestamp, utcTimestamp } from "../codec/schema.js";

/** The `@type` URLs of expanded items. */
export const TYPE_URLS = {
  user: "type.googleapis.com/c1.api.user.v1.User",
  app: "type.googleapis.com/c1.api.app.v1.App",
  entitlement: "type.googleapis.com/c1.api.app.v1.AppEntitlement",
  appUser: "type.googleapis.com/c1.api.app.v1.AppUser",
  accessReview: "type.googleapis.com/c1.api.accessreview.v1.AccessReview",
} as const;

/** Writes an object's known fields, then its unknown ones as they came. */
function withUnknown<T extends { readonly $unknown?: Readonly<Record<string, unknown>> }>(
  value: T,
  fields: Record<string, unknown>,
): JsonObject {
  return { ...fields, ...((value.$unknown ?? {}) as JsonObject) } as JsonObject;
}

/**
 * A list field copied, or — where a what-if edit wrote no list there (`{ id, department }` for a
 * user) — the value as it was, so that reading it back gives the field its default (left out) or
 * names the mistake at its path (`"nope"`), instead of this writer throwing on it.
 */
function listAsWritten(v: readonly string[] | undefined): string[] {
  return Array.isArray(v) ? [...(v as readonly string[])] : (v as unknown as string[]);
}

function isPlainObject(v: unknown): v is Readonly<Record<string, unknown>> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * A user in the service's User shape.
 *
 * @example
 * ```ts
 * encodeUser(world.index.users.get("u-ada")!).email;
 * ```
 */
export function encodeUser(u: User): JsonObject {
  return withUnknown(u, {
    id: u.id,
    email: u.email,
    emails: listAsWritten(u.emails),
    displayName: u.displayName,
    username: u.username,
    usernames: listAsWritten(u.usernames),
    department: u.department,
    jobTitle: u.jobTitle,
    employmentType: u.employmentType,
    employmentStatus: u.employmentStatus,
    status: u.status,
    directoryStatus: u.directoryStatus,
    type: u.type,
    managerIds: listAsWritten(u.managerIds),
    profile: u.profile,
    attributes: u.attributes,
    roleIds: listAsWritten(u.roleIds),
    delegatedUserId: u.delegatedUserId,
  });
}

/**
 * An app in the service's App shape (owners as the simulation's `ownerUserIds`).
 *
 * @example
 * ```ts
 * encodeApp(world.index.apps.get("app-aws")!).grantPolicyId;
 * ```
 */
export function encodeApp(a: App): JsonObject {
  return withUnknown(a, {
    id: a.id,
    displayName: a.displayName,
    grantPolicyId: a.grantPolicyId,
    revokePolicyId: a.revokePolicyId,
    certifyPolicyId: a.certifyPolicyId,
    ownerUserIds: listAsWritten(a.ownerUserIds),
    revokeGrantSources: a.revokeGrantSources,
    isManuallyManaged: a.isManuallyManaged,
  });
}

/**
 * An entitlement in the service's AppEntitlement shape.
 *
 * @example
 * ```ts
 * encodeEntitlement(ent).riskLevelValueId;
 * ```
 */
export function encodeEntitlement(e: AppEntitlement): JsonObject {
  return withUnknown(e, {
    id: e.id,
    appId: e.appId,
    displayName: e.displayName,
    appResourceTypeId: e.appResourceTypeId,
    appResourceId: e.appResourceId,
    grantPolicyId: e.grantPolicyId,
    revokePolicyId: e.revokePolicyId,
    certifyPolicyId: e.certifyPolicyId,
    emergencyGrantEnabled: e.emergencyGrantEnabled,
    emergencyGrantPolicyId: e.emergencyGrantPolicyId,
    overrideAccessRequestsDefaults: e.overrideAccessRequestsDefaults,
    riskLevelValueId: e.riskLevelValueId,
    requestSchemaId: e.requestSchemaId,
    ownerUserIds: listAsWritten(e.ownerUserIds),
    annotations: isPlainObject(e.annotations) ? { ...e.annotations } : (e.annotations as unknown as JsonObject),
    ...(e.role === undefined ? {} : { role: e.role ? { ...e.role } : null }),
    ...(e.scope === undefined ? {} : { scope: e.scope ? { ...e.scope } : null }),
  });
}

/**
 * `o` with the fields a world file keeps as written put in the form openapi.yaml types them, as
 * protojson writes them and the service's SDKs parse them: an int64 given as a number becomes its
 * decimal string, an int32 given as a decimal string its number, a timestamp is in UTC with an
 * upper-case `T` and `Z`. Anything else is left as it is.
 */
function inApiForm(o: JsonObject, int64: readonly string[], int32: readonly string[]): JsonObject {
  let out: Record<string, unknown> | undefined;
  const put = (k: string, v: unknown): void => {
    out ??= { ...o };
    out[k] = v;
  };
  for (const k of int64) {
    const v = o[k];
    if (typeof v === "number" && Number.isSafeInteger(v)) put(k, String(v));
  }
  for (const k of int32) {
    const v = o[k];
    if (typeof v === "string" && /^-?\d{1,10}$/.test(v) && Math.abs(Number(v)) < 2 ** 31) put(k, Number(v));
  }
  for (const k of ["createdAt", "updatedAt", "deletedAt"]) {
    const v = o[k];
    if (typeof v === "string" && isRealTimestamp(v)) {
      const utc = utcTimestamp(v);
      if (utc !== v) put(k, utc);
    }
  }
  return (out ?? o) as JsonObject;
}

/**
 * An app as the API writes it ({@link encodeApp} with `userCount` an int64 string, `monthlyCostUsd`
 * an int32 number and its timestamps in UTC, whatever form the world file gave them), and, given
 * how to write a user, its owners as `appOwners` (openapi.yaml `c1.api.app.v1.App`: "The owners of
 * the app", Users; the world's `ownerUserIds` stays beside it).
 *
 * @example
 * ```ts
 * encodeAppForApi({ ...app, $unknown: { userCount: 5 } }).userCount; // "5"
 * encodeAppForApi(app, (id) => { const u = world.index.users.get(id); return u && encodeUser(u); }).appOwners;
 * ```
 */
export function encodeAppForApi(a: App, owner?: (userId: string) => JsonObject | undefined): JsonObject {
  const o = inApiForm(encodeApp(a), ["userCount"], ["monthlyCostUsd"]);
  if (owner === undefined) return o;
  const appOwners: JsonObject[] = [];
  for (const id of a.ownerUserIds) {
    const u = owner(id);
    if (u !== undefined) appOwners.push(u);
  }
  return { ...o, appOwners };
}

/**
 * An entitlement as the API writes it ({@link encodeEntitlement} with `grantCount` an int64 string
 * and its timestamps in UTC, whatever form the world file gave them).
 *
 * @example
 * ```ts
 * encodeEntitlementForApi({ ...ent, $unknown: { grantCount: 7 } }).grantCount; // "7"
 * ```
 */
export function encodeEntitlementForApi(e: AppEntitlement): JsonObject {
  return inApiForm(encodeEntitlement(e), ["grantCount"], []);
}

/**
 * An account in the service's AppUser shape.
 *
 * @example
 * ```ts
 * encodeAppUser(account).appUserType;
 * ```
 */
export function encodeAppUser(a: AppUser): JsonObject {
  return withUnknown(a, {
    id: a.id,
    appId: a.appId,
    identityUserId: a.identityUserId,
    displayName: a.displayName,
    email: a.email,
    username: a.username,
    appUserType: a.appUserType,
    status: a.status ? { status: a.status.status, details: a.status.details } : null,
    profile: a.profile,
    ...(a.emails === undefined ? {} : { emails: [...a.emails] }),
    ...(a.usernames === undefined ? {} : { usernames: [...a.usernames] }),
    ...(a.employeeIds === undefined ? {} : { employeeIds: [...a.employeeIds] }),
    ...(a.attributes === undefined ? {} : { attributes: a.attributes }),
    ...(a.riskScores === undefined ? {} : { riskScores: a.riskScores.map((s) => ({ source: s.source, normalizedScore: s.normalizedScore })) }),
    ...(a.securityInsights === undefined ? {} : { securityInsights: a.securityInsights.map((i) => ({ source: i.source, value: i.value, severity: i.severity })) }),
  });
}

/**
 * An access review as the world file stores it.
 *
 * @example
 * ```ts
 * encodeAccessReview(review).policyId;
 * ```
 */
export function encodeAccessReview(r: AccessReview): JsonObject {
  return {
    id: r.id,
    displayName: r.displayName,
    policyId: r.policyId,
    usePolicyOverride: r.usePolicyOverride,
    ...(r.ownerUserIds ? { ownerUserIds: [...r.ownerUserIds] } : {}),
  };
}

/**
 * An account's status as the API spells it (`STATUS_*`, openapi.yaml `c1.api.app.v1.AppUserStatus`),
 * whichever spelling the world file has (the sample's `APP_USER_STATUS_*` is the CEL environment's).
 *
 * @example
 * ```ts
 * accountStatusOf(account); // "STATUS_DISABLED"
 * ```
 */
export function accountStatusOf(a: AppUser): string {
  const s = a.status?.status ?? "";
  if (s === "") return "STATUS_UNSPECIFIED";
  return s.startsWith("APP_USER_STATUS_") ? s.slice("APP_USER_".length) : s;
}

/**
 * An account's type, its zero value when the world leaves it empty.
 *
 * @example
 * ```ts
 * accountTypeOf(account); // "APP_USER_TYPE_USER"
 * ```
 */
export function accountTypeOf(a: AppUser): string {
  return a.appUserType === "" ? "APP_USER_TYPE_UNSPECIFIED" : a.appUserType;
}

/**
 * An account as the API writes it, in replies and in a task's `expanded` items alike: an empty type
 * is its zero value and the status is spelled `STATUS_*` ({@link accountStatusOf}). The world file
 * keeps what it was given ({@link encodeAppUser}).
 *
 * @example
 * ```ts
 * encodeAppUserForApi(account).status; // { status: "STATUS_ENABLED", details: "" }
 * ```
 */
export function encodeAppUserForApi(a: AppUser): JsonObject {
  const o = encodeAppUser(a);
  const status = o["status"];
  return {
    ...o,
    appUserType: accountTypeOf(a),
    ...(typeof status === "object" && status !== null && !Array.isArray(status) ? { status: { ...status, status: accountStatusOf(a) } } : {}),
  };
}
