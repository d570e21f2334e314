/**
 * The tenant directory as the world file carries it: the service's own User, App, AppEntitlement and
 * AppUser objects (docs/domain.md §7), plus the simulation-only groups, grants, roles and access reviews
 * (README, "The world file"). Fields the service adds later are kept under `$unknown`.
 */
import type { JsonObject } from "./json.js";

/**
 * An identity user of the tenant.
 *
 * @example
 * ```ts
 * const ada: User = { id: "u-ada", email: "ada@example.com", displayName: "Ada", managerIds: ["u-bob"],
 *   status: "ENABLED", roleIds: ["user"] } as User;
 * ```
 */
export interface User {
  readonly id: string;
  readonly email: string;
  readonly emails: readonly string[];
  readonly displayName: string;
  readonly username: string;
  readonly usernames: readonly string[];
  readonly department: string;
  readonly jobTitle: string;
  readonly employmentType: string;
  readonly employmentStatus: string;
  /** `UNKNOWN | ENABLED | DISABLED | DELETED` (open: the service may add members). */
  readonly status: string;
  readonly directoryStatus: string;
  /** `USER_TYPE_HUMAN | USER_TYPE_AGENT | USER_TYPE_SERVICE | USER_TYPE_SYSTEM` (open). */
  readonly type: string;
  readonly managerIds: readonly string[];
  readonly profile: JsonObject;
  readonly attributes: JsonObject;
  /** (sim) the roles this user holds; see {@link Role}. */
  readonly roleIds: readonly string[];
  readonly delegatedUserId: string;
  readonly $unknown?: Readonly<Record<string, unknown>>;
}

/**
 * An application of the tenant with its default policies and owners.
 *
 * @example
 * ```ts
 * const app = { id: "app-aws", displayName: "AWS", grantPolicyId: "pol-aws", ownerUserIds: ["u-ops"] } as App;
 * ```
 */
export interface App {
  readonly id: string;
  readonly displayName: string;
  readonly grantPolicyId: string;
  readonly revokePolicyId: string;
  readonly certifyPolicyId: string;
  /** Owners, merged from the service's `appOwners` (Users) and the simulation's `ownerUserIds`. */
  readonly ownerUserIds: readonly string[];
  readonly revokeGrantSources: boolean;
  readonly isManuallyManaged: boolean;
  readonly $unknown?: Readonly<Record<string, unknown>>;
}

/**
 * An entitlement of an app: what a grant task asks for.
 *
 * @example
 * ```ts
 * const admin = { id: "ent-admin", appId: "app-aws", displayName: "Admin", grantPolicyId: "pol-prod" } as AppEntitlement;
 * ```
 */
export interface AppEntitlement {
  readonly id: string;
  readonly appId: string;
  readonly displayName: string;
  readonly appResourceTypeId: string;
  readonly appResourceId: string;
  readonly grantPolicyId: string;
  readonly revokePolicyId: string;
  readonly certifyPolicyId: string;
  readonly emergencyGrantEnabled: boolean;
  readonly emergencyGrantPolicyId: string;
  readonly overrideAccessRequestsDefaults: boolean;
  readonly riskLevelValueId: string;
  readonly requestSchemaId: string;
  /** (sim) owners of the entitlement, for `entitlementOwners` approval. */
  readonly ownerUserIds: readonly string[];
  /** Key/value metadata (the service's string map). */
  readonly annotations: Readonly<Record<string, string>>;
  /** (sim) For a cloud infrastructure app: the role the entitlement grants (entitlement-config-rules page). */
  readonly role?: EntitlementResourceRef | null;
  /** (sim) For a cloud infrastructure app: the scope the role is granted on. */
  readonly scope?: EntitlementResourceRef | null;
  readonly $unknown?: Readonly<Record<string, unknown>>;
}

/**
 * An account of a user in an app.
 *
 * @example
 * ```ts
 * const acct = { id: "au-1", appId: "app-aws", identityUserId: "u-ada", appUserType: "APP_USER_TYPE_USER" } as AppUser;
 * ```
 */
export interface AppUser {
  readonly id: string;
  readonly appId: string;
  readonly identityUserId: string;
  readonly displayName: string;
  readonly email: string;
  readonly username: string;
  readonly appUserType: string;
  readonly status: { readonly status: string; readonly details: string } | null;
  readonly profile: JsonObject;
  readonly emails?: readonly string[];
  readonly usernames?: readonly string[];
  readonly employeeIds?: readonly string[];
  /** (sim) Attribute mappings of the account (expressions-reference page, AppUser `attributes`). */
  readonly attributes?: JsonObject;
  /** (sim) Risk scores synced from external insight sources (external-insights page). */
  readonly riskScores?: readonly RiskScore[];
  /** (sim) Issue insights synced from external insight sources (external-insights page). */
  readonly securityInsights?: readonly SecurityInsight[];
  readonly $unknown?: Readonly<Record<string, unknown>>;
}

/**
 * (sim) A resource an entitlement of a cloud infrastructure app refers to: its role or its scope.
 *
 * @example
 * ```ts
 * const role: EntitlementResourceRef = { id: "res-admin", displayName: "Admin", appResourceTypeId: "role" };
 * ```
 */
export interface EntitlementResourceRef {
  readonly id: string;
  readonly displayName: string;
  readonly appResourceTypeId: string;
}

/**
 * (sim) A normalized identity risk score (0–100, higher = more risk) from one source app.
 *
 * @example
 * ```ts
 * const s: RiskScore = { source: "CrowdStrike", normalizedScore: 72 };
 * ```
 */
export interface RiskScore {
  /** The display name of the source connector app, e.g. `CrowdStrike`. */
  readonly source: string;
  readonly normalizedScore: number;
}

/**
 * (sim) A discrete security finding about an account from one source app.
 *
 * @example
 * ```ts
 * const i: SecurityInsight = { source: "Wiz Insights", value: "3 Critical CVEs", severity: "CRITICAL" };
 * ```
 */
export interface SecurityInsight {
  readonly source: string;
  readonly value: string;
  /** `CRITICAL`, `HIGH`, `MEDIUM`, `LOW` or `INFORMATIONAL`. */
  readonly severity: string;
}

/**
 * (sim) A group of users, for group approval and `c1.directory.groups.v1.FindByName`.
 *
 * @example
 * ```ts
 * const oncall: Group = { id: "g-oncall", appId: "app-pd", displayName: "On-call", memberUserIds: ["u-ada"] };
 * ```
 */
export interface Group {
  readonly id: string;
  readonly appId: string;
  readonly displayName: string;
  readonly memberUserIds: readonly string[];
}

/**
 * (sim) How a user came to hold an entitlement, and until when. `deprovisionAt` is the API's name
 * (`AppEntitlementUserBinding.deprovisionAt`, openapi.yaml): the end of a time-limited grant, when
 * "the user's access will be automatically revoked" (product_admin_access-requests.mdx); absent or
 * null for access without an end. `createdAt` is when the grant was made
 * (`AppEntitlementUserBinding.createdAt`): kept from a pulled tenant, set by the engine when a task
 * grants; absent when the world does not know.
 *
 * @example
 * ```ts
 * const g: Grant = { appId: "app-aws", appEntitlementId: "ent-ro", identityUserId: "u-ada", source: "direct", createdAt: "2026-06-01T09:00:00Z", deprovisionAt: "2026-12-01T09:00:00Z" };
 * ```
 */
export interface Grant {
  readonly appId: string;
  readonly appEntitlementId: string;
  readonly identityUserId: string;
  readonly source: "direct" | "enrollment" | "automatic-enrollment";
  readonly createdAt?: string;
  readonly deprovisionAt?: string | null;
}

/**
 * (sim) The platform user roles the service documents (product_admin_user-roles.mdx), one kind each.
 * Every role but Read-Only Administrator includes the Basic User's powers; a user holds all the
 * powers of every role they are given. What each kind may do on a task is decided in one place,
 * `reducers/permissions.ts`.
 *
 * @example
 * ```ts
 * const k: RoleKind = "SUPER_ADMIN";
 * ```
 */
export type RoleKind =
  | "SUPER_ADMIN"
  | "READ_ONLY_ADMIN"
  | "ACCESS_REQUEST_ADMIN"
  | "AI_GOVERNANCE_ADMIN"
  | "APPLICATION_ADMIN"
  | "CAMPAIGN_ADMIN"
  | "CONNECTOR_ADMIN"
  | "ACCESS_REQUEST_HELPDESK"
  | "BASIC_USER";

/**
 * (sim) Every documented role kind with the name the user-roles page gives it, in the page's order
 * (end-user roles, then administrator roles).
 *
 * @example
 * ```ts
 * ROLE_KINDS.find((r) => r.kind === "CAMPAIGN_ADMIN")?.displayName; // "Campaign Administrator"
 * ```
 */
export const ROLE_KINDS: readonly { readonly kind: RoleKind; readonly displayName: string }[] = [
  { kind: "BASIC_USER", displayName: "Basic User" },
  { kind: "ACCESS_REQUEST_HELPDESK", displayName: "Access Request Helpdesk" },
  { kind: "ACCESS_REQUEST_ADMIN", displayName: "Access Request Administrator" },
  { kind: "AI_GOVERNANCE_ADMIN", displayName: "AI Governance Administrator" },
  { kind: "APPLICATION_ADMIN", displayName: "Application Administrator" },
  { kind: "CAMPAIGN_ADMIN", displayName: "Campaign Administrator" },
  { kind: "CONNECTOR_ADMIN", displayName: "Connector Administrator" },
  { kind: "READ_ONLY_ADMIN", displayName: "Read-Only Administrator" },
  { kind: "SUPER_ADMIN", displayName: "Super Administrator" },
];

/**
 * (sim) A platform role users hold through `roleIds`.
 *
 * @example
 * ```ts
 * const r: Role = { id: "r-super", displayName: "Super Administrator", kind: "SUPER_ADMIN" };
 * ```
 */
export interface Role {
  readonly id: string;
  readonly displayName: string;
  readonly kind: RoleKind;
}

/**
 * (sim) The request defaults an app sets for some resource types.
 *
 * @example
 * ```ts
 * const d: ResourceTypeDefault = { appId: "app-gh", resourceTypeIds: ["rt-repo"], requestPolicyId: "pol-repo" };
 * ```
 */
export interface ResourceTypeDefault {
  readonly appId: string;
  readonly resourceTypeIds: readonly string[];
  readonly requestPolicyId: string;
  /** Emergency grants for these resource types (the API's `AppAccessRequestDefaults`); absent: not set. */
  readonly emergencyGrantEnabled?: boolean;
  readonly emergencyGrantPolicyId?: string;
  /** A protobuf duration such as `"3600s"`; absent or null: no limit set. */
  readonly maxGrantDuration?: string | null;
}

/**
 * (sim) An access review (campaign), the source of certify tasks' policies.
 *
 * @example
 * ```ts
 * const q3: AccessReview = { id: "ar-q3", displayName: "Q3 review", policyId: "pol-cert", usePolicyOverride: false,
 *   ownerUserIds: ["u-grc"] };
 * ```
 */
export interface AccessReview {
  readonly id: string;
  readonly displayName: string;
  readonly policyId: string;
  readonly usePolicyOverride: boolean;
  /**
   * (sim) The campaign's owners: they review a certify task whose step finds nobody to ask
   * (product_admin_manage-campaigns.mdx). Absent when the world file does not say.
   */
  readonly ownerUserIds?: readonly string[];
}

/**
 * A user with every field empty (status and type unset), e.g. the `subject` of a task whose target
 * is not in the directory, or the base of a described user in a test.
 *
 * @example
 * ```ts
 * const ghost = blankUser("u-gone");              // conditions on it read "" rather than failing
 * const human = { ...blankUser("u-new"), status: "ENABLED", type: "USER_TYPE_HUMAN" };
 * ```
 */
export function blankUser(id = ""): User {
  return {
    id,
    email: "",
    emails: [],
    displayName: "",
    username: "",
    usernames: [],
    department: "",
    jobTitle: "",
    employmentType: "",
    employmentStatus: "",
    status: "",
    directoryStatus: "",
    type: "",
    managerIds: [],
    profile: {},
    attributes: {},
    roleIds: [],
    delegatedUserId: "",
  };
}

/**
 * (sim) An API client of the HTTP face: the OAuth client-credentials identity a service SDK logs in
 * with. The world keeps only the public half of its Ed25519 key; the private half is the client
 * secret (`secret-token:conductorone.com:v1:…`) that `policy-sim client add` prints once.
 *
 * @example
 * ```ts
 * const c: ApiClient = { clientId: "ci-bot@sim/pcc", userId: "u-super", displayName: "CI",
 *   publicJwk: { kty: "OKP", crv: "Ed25519", x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo" } };
 * ```
 */
export interface ApiClient {
  readonly clientId: string;
  /** The user the client acts as. */
  readonly userId: string;
  readonly displayName: string;
  /** The client's Ed25519 public key as a JWK (RFC 8037): `kty` OKP, `crv` Ed25519, `x`. */
  readonly publicJwk: { readonly kty: "OKP"; readonly crv: "Ed25519"; readonly x: string };
}
