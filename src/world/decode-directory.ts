/**
 * Decoders for the directory part of the world file: the service's User, App, AppEntitlement and
 * AppUser objects (docs/domain.md §7) and the simulation-only groups, grants, roles, resource-type
 * defaults and access reviews (README, "The world file").
 */
import type {
  AccessReview,
  App,
  AppEntitlement,
  AppUser,
  EntitlementResourceRef,
  Grant,
  Group,
  ResourceTypeDefault,
  RiskScore,
  Role,
  RoleKind,
  SecurityInsight,
  User,
} from "../model/directory.js";
import { setOwn } from "../codec/json-tools.js";
import { isRealTimestamp, utcTimestamp } from "../codec/schema.js";
import { ROLE_KINDS } from "../model/directory.js";
import { type Diagnostic, eachItem, isObject, ObjectReader, pathIndex } from "./read.js";

/** Reads a list of objects with `decodeOne`, reporting non-objects and keeping order. */
export function decodeList<T>(
  value: unknown,
  path: string,
  out: Diagnostic[],
  decodeOne: (r: ObjectReader) => T,
): readonly T[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    out.push({ code: "EXPECTED_ARRAY", path, message: `expected an array` });
    return [];
  }
  const result: T[] = [];
  eachItem(value, path, out, (item, i) => {
    const p = pathIndex(path, i);
    if (!isObject(item)) {
      out.push({ code: "EXPECTED_OBJECT", path: p, message: "expected an object" });
      return;
    }
    result.push(decodeOne(new ObjectReader(item, p, out)));
  });
  return result;
}

/** Strips the `USER_STATUS_` prefix the API sometimes uses, so one spelling is stored. */
function userStatus(s: string): string {
  return s.startsWith("USER_STATUS_") ? s.slice("USER_STATUS_".length) : s;
}

export function decodeUser(r: ObjectReader): User {
  return {
    id: r.string("id"),
    email: r.string("email"),
    emails: r.strings("emails"),
    displayName: r.string("displayName"),
    username: r.string("username"),
    usernames: r.strings("usernames"),
    department: r.string("department"),
    jobTitle: r.string("jobTitle"),
    employmentType: r.string("employmentType"),
    employmentStatus: r.string("employmentStatus"),
    status: userStatus(r.string("status")),
    directoryStatus: r.string("directoryStatus"),
    type: r.string("type"),
    managerIds: r.strings("managerIds"),
    profile: r.object("profile"),
    attributes: r.object("attributes"),
    roleIds: r.strings("roleIds"),
    delegatedUserId: r.string("delegatedUserId"),
    ...r.unknown(),
  };
}

function revokeGrantSourcesOf(r: ObjectReader): boolean {
  const v = r.raw("revokeGrantSources");
  return v === true || v === "true";
}

function stringMap(v: unknown): Readonly<Record<string, string>> {
  const out: Record<string, string> = {};
  if (typeof v === "object" && v !== null && !Array.isArray(v))
    for (const [k, x] of Object.entries(v)) if (typeof x === "string") setOwn(out, k, x);
  return out;
}

export function decodeApp(r: ObjectReader, out: Diagnostic[]): App {
  const owners = new Set(r.strings("ownerUserIds"));
  // The service returns owners as User objects under appOwners; the simulation also takes ids.
  // appOwners is read without being marked as seen, so it is kept under $unknown and saved back.
  decodeList(r.obj["appOwners"], `${r.path}.appOwners`, out, (o) => o.string("id")).forEach((id) => {
    if (id) owners.add(id);
  });
  return {
    id: r.string("id"),
    displayName: r.string("displayName"),
    grantPolicyId: r.string("grantPolicyId"),
    revokePolicyId: r.string("revokePolicyId"),
    certifyPolicyId: r.string("certifyPolicyId"),
    ownerUserIds: [...owners],
    // A boolean in the service's App (OpenAPI); world files written before said "" or "true".
    revokeGrantSources: revokeGrantSourcesOf(r),
    isManuallyManaged: r.boolean("isManuallyManaged"),
    ...r.unknown(),
  };
}

export function decodeEntitlement(r: ObjectReader): AppEntitlement {
  const annotations = r.raw("annotations");
  return {
    id: r.string("id"),
    appId: r.string("appId"),
    displayName: r.string("displayName"),
    appResourceTypeId: r.string("appResourceTypeId"),
    appResourceId: r.string("appResourceId"),
    grantPolicyId: r.string("grantPolicyId"),
    revokePolicyId: r.string("revokePolicyId"),
    certifyPolicyId: r.string("certifyPolicyId"),
    emergencyGrantEnabled: r.boolean("emergencyGrantEnabled"),
    emergencyGrantPolicyId: r.string("emergencyGrantPolicyId"),
    overrideAccessRequestsDefaults: r.boolean("overrideAccessRequestsDefaults"),
    riskLevelValueId: r.string("riskLevelValueId"),
    requestSchemaId: r.string("requestSchemaId"),
    ownerUserIds: r.strings("ownerUserIds"),
    // The service's AppEntitlement.annotations is a string map (OpenAPI); anything else reads as none.
    annotations: stringMap(annotations),
    ...optional("role", resourceRef(r, "role")),
    ...optional("scope", resourceRef(r, "scope")),
    ...r.unknown(),
  };
}

/** Spreads `{ [key]: value }` only when there is a value, so absent fields stay absent when saved. */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** A cloud infrastructure entitlement's role or scope; `undefined` when absent. */
function resourceRef(r: ObjectReader, key: string): EntitlementResourceRef | null | undefined {
  const v = r.raw(key);
  if (v === undefined) return undefined;
  if (!isObject(v)) {
    if (v !== null) r.report(key, undefined, "object", v);
    return null;
  }
  const sub = new ObjectReader(v, `${r.path}.${key}`, r.diagnostics);
  return { id: sub.string("id"), displayName: sub.string("displayName"), appResourceTypeId: sub.string("appResourceTypeId") };
}

/** A list of objects under `key`, each read by `one`; `undefined` when absent. */
function objects<T>(r: ObjectReader, key: string, one: (sub: ObjectReader) => T): readonly T[] | undefined {
  const v = r.raw(key);
  if (v === undefined) return undefined;
  return decodeList(v, `${r.path}.${key}`, r.diagnostics, one);
}

function riskScore(r: ObjectReader): RiskScore {
  const v = r.raw("normalizedScore");
  let normalizedScore = 0;
  if (typeof v === "number" && Number.isInteger(v)) normalizedScore = v;
  else if (v !== undefined && v !== null) r.report("normalizedScore", undefined, "integer", v);
  return { source: r.string("source"), normalizedScore };
}

function securityInsight(r: ObjectReader): SecurityInsight {
  return { source: r.string("source"), value: r.string("value"), severity: r.string("severity") };
}

export function decodeAppUser(r: ObjectReader): AppUser {
  const status = r.raw("status");
  const appUser: AppUser = {
    id: r.string("id"),
    appId: r.string("appId"),
    identityUserId: r.string("identityUserId"),
    displayName: r.string("displayName"),
    email: r.string("email"),
    username: r.string("username"),
    appUserType: r.string("appUserType"),
    status: isObject(status)
      ? {
          status: typeof status["status"] === "string" ? status["status"] : "",
          details: typeof status["details"] === "string" ? status["details"] : "",
        }
      : null,
    profile: r.object("profile"),
  };
  // Assigned in the order the spreads used to add them (a saved world keeps its key order): a
  // spread per optional field cost more than the rest of the decoder, on every account of a tenant.
  const more = appUser as unknown as Record<string, unknown>;
  if (r.raw("emails") !== undefined) more["emails"] = r.strings("emails");
  if (r.raw("usernames") !== undefined) more["usernames"] = r.strings("usernames");
  if (r.raw("employeeIds") !== undefined) more["employeeIds"] = r.strings("employeeIds");
  if (r.raw("attributes") !== undefined) more["attributes"] = r.object("attributes");
  const riskScores = objects(r, "riskScores", riskScore);
  if (riskScores !== undefined) more["riskScores"] = riskScores;
  const securityInsights = objects(r, "securityInsights", securityInsight);
  if (securityInsights !== undefined) more["securityInsights"] = securityInsights;
  const unknown = r.unknown().$unknown;
  if (unknown !== undefined) more["$unknown"] = unknown;
  return appUser;
}

export function decodeGroup(r: ObjectReader): Group {
  return {
    id: r.string("id"),
    appId: r.string("appId"),
    displayName: r.string("displayName"),
    memberUserIds: r.strings("memberUserIds"),
  };
}

const GRANT_SOURCES = ["direct", "enrollment", "automatic-enrollment"] as const;

/** A grant's time field in UTC, or null when absent, null or ""; anything else is told and read as absent. */
function grantTime(r: ObjectReader, field: "createdAt" | "deprovisionAt", what: string, out: Diagnostic[]): string | null {
  const v = r.raw(field);
  if (typeof v === "string" && isRealTimestamp(v)) return utcTimestamp(v);
  if (v !== undefined && v !== null && v !== "")
    out.push({ code: "INVALID_TIMESTAMP", path: `${r.path}.${field}`, message: `a grant's ${field} must be an RFC 3339 timestamp such as ${what}; found ${JSON.stringify(v) ?? typeof v}` });
  return null;
}

export function decodeGrant(r: ObjectReader, out: Diagnostic[]): Grant {
  const source = r.string("source") || "direct";
  const known = (GRANT_SOURCES as readonly string[]).includes(source);
  if (!known) {
    out.push({
      code: "INVALID_ENUM",
      path: `${r.path}.source`,
      message: `grant source must be one of ${GRANT_SOURCES.join(", ")}; found "${source}"`,
    });
  }
  // openapi.yaml AppEntitlementUserBinding: when it was made, and when time-limited access ends.
  const createdAt = grantTime(r, "createdAt", '"2026-06-01T09:00:00Z", or absent when unknown', out);
  const deprovisionAt = grantTime(r, "deprovisionAt", '"2026-12-01T09:00:00Z", or null for access without an end', out);
  return {
    appId: r.string("appId"),
    appEntitlementId: r.string("appEntitlementId"),
    identityUserId: r.string("identityUserId"),
    source: known ? (source as Grant["source"]) : "direct",
    ...(createdAt ? { createdAt } : {}),
    ...(deprovisionAt ? { deprovisionAt } : {}),
  };
}

/**
 * Role kinds of world files written before the roles followed the user-roles page, and the
 * documented role each is read as (README, Assumptions). `ADMIN` was a generic administrator the
 * documentation does not have; it is read as an Application Administrator, which has no task
 * powers beyond a Basic User's. A world naming one still loads, with a warning.
 */
export const LEGACY_ROLE_KINDS: Readonly<Record<string, RoleKind>> = { ADMIN: "APPLICATION_ADMIN", USER: "BASIC_USER" };

const KINDS: readonly string[] = ROLE_KINDS.map((r) => r.kind);

/**
 * Reads a role. A legacy kind ({@link LEGACY_ROLE_KINDS}) is read as its documented role and noted
 * in `warnings` (the load goes on); any other unknown kind is an error in `out`.
 */
export function decodeRole(r: ObjectReader, out: Diagnostic[], warnings: Diagnostic[]): Role {
  const kind = r.string("kind");
  const legacy = Object.hasOwn(LEGACY_ROLE_KINDS, kind) ? LEGACY_ROLE_KINDS[kind] : undefined;
  if (legacy !== undefined)
    warnings.push({
      code: "LEGACY_ROLE_KIND",
      path: `${r.path}.kind`,
      message: `role kind "${kind}" is not a documented role; read as "${legacy}" (product_admin_user-roles.mdx lists ${KINDS.join(", ")})`,
      severity: "warning",
    });
  else if (!KINDS.includes(kind))
    out.push({
      code: "INVALID_ENUM",
      path: `${r.path}.kind`,
      message: `role kind must be one of ${KINDS.join(", ")} (product_admin_user-roles.mdx); found "${kind}"`,
    });
  return {
    id: r.string("id"),
    displayName: r.string("displayName"),
    kind: legacy ?? (KINDS.includes(kind) ? (kind as RoleKind) : "BASIC_USER"),
  };
}

/**
 * The roles a world has when its file names none: one per documented kind, its id the kind in kebab
 * case (`super-admin`, `basic-user`, …), plus the ids such worlds had before (`admin`, `user`),
 * which keep naming what {@link LEGACY_ROLE_KINDS} reads their kinds as.
 */
export const DEFAULT_ROLES: readonly Role[] = [
  ...ROLE_KINDS.map((r) => ({ id: r.kind.toLowerCase().replaceAll("_", "-"), displayName: r.displayName, kind: r.kind })),
  ...Object.entries(LEGACY_ROLE_KINDS).map(([legacy, kind]) => ({
    id: legacy.toLowerCase(),
    displayName: ROLE_KINDS.find((r) => r.kind === kind)?.displayName ?? kind,
    kind,
  })),
];

export function decodeResourceTypeDefault(r: ObjectReader): ResourceTypeDefault {
  return {
    appId: r.string("appId"),
    resourceTypeIds: r.strings("resourceTypeIds"),
    requestPolicyId: r.string("requestPolicyId"),
    ...(r.raw("emergencyGrantEnabled") === undefined ? {} : { emergencyGrantEnabled: r.boolean("emergencyGrantEnabled") }),
    ...(r.raw("emergencyGrantPolicyId") === undefined ? {} : { emergencyGrantPolicyId: r.string("emergencyGrantPolicyId") }),
    ...(r.raw("maxGrantDuration") === undefined ? {} : { maxGrantDuration: r.raw("maxGrantDuration") === null ? null : r.string("maxGrantDuration") }),
  };
}

export function decodeAccessReview(r: ObjectReader): AccessReview {
  return {
    id: r.string("id"),
    displayName: r.string("displayName"),
    policyId: r.string("policyId"),
    usePolicyOverride: r.boolean("usePolicyOverride"),
    ...(r.raw("ownerUserIds") === undefined ? {} : { ownerUserIds: r.strings("ownerUserIds") }),
  };
}
