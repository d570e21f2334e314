/**
 * The tenant's default policies, which the API does not list: the simulation falls back on them
 * when nothing closer names a policy (resolve-policy.ts). A grant, revoke or certify default is the
 * one built-in policy of its type; an offboarding, action or finding task is made from the
 * tenant's default of its kind, so the policy those tasks carry says which it is. What cannot be
 * told is a warning that says how to set it.
 */
import { entitlementKey } from "../world/world.js";

type Json = Readonly<Record<string, unknown>>;
const isRecord = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Default policies found, and warnings for the rest: `DEFAULT_POLICY_UNKNOWN` (set it by hand) or
 * `DEFAULT_POLICY_INFERRED` (taken from tasks; check it).
 *
 * @example
 * ```ts
 * const d: TenantDefaults = { defaultPolicies: { grant: "pol-default-grant" }, warnings: [] };
 * ```
 */
export interface TenantDefaults {
  readonly defaultPolicies: Readonly<Record<string, string>>;
  readonly warnings: readonly { readonly code: "DEFAULT_POLICY_UNKNOWN" | "DEFAULT_POLICY_INFERRED"; readonly message: string }[];
}

/** Kinds whose default is the tenant's one built-in policy of a type. */
const BUILT_IN_KINDS: readonly (readonly [string, string])[] = [
  ["grant", "POLICY_TYPE_GRANT"],
  ["revoke", "POLICY_TYPE_REVOKE"],
  ["certify", "POLICY_TYPE_CERTIFY"],
];

/**
 * Kinds with no closer policy than the tenant's default: each task of them is made from it and
 * carries it. Without it the simulation resolves their tasks by the policy they carry instead,
 * which a later edit of that policy does not reach.
 */
const TASK_KINDS: readonly string[] = ["offboarding", "action", "finding"];

const unknown = (kind: string, why: string): TenantDefaults["warnings"][number] => ({
  code: "DEFAULT_POLICY_UNKNOWN",
  message: `the API does not say which policy is the tenant's default ${kind} policy${why}: set "tenant.defaultPolicies.${kind}" to its id`,
});

/**
 * What else the pull read, from which a task can be told to have fallen back on its tenant's
 * default: its entitlement, app, access review, and the app's request defaults and configuration
 * rules, as the API gave them.
 */
export interface DefaultSources {
  readonly apps: readonly Json[];
  readonly entitlements: readonly Json[];
  readonly accessReviews?: readonly Json[] | undefined;
  readonly resourceTypeDefaults?: readonly Json[] | undefined;
  readonly configurationRules?: readonly Json[] | undefined;
  /**
   * Apps whose request defaults or configuration rules the pull could not read (refused, not
   * offered, 404), or "all": whether those routed a grant cannot be told for them.
   */
  readonly unreadApps?: ReadonlySet<string> | "all";
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");

/**
 * For a grant, revoke or certify task: true when nothing closer than the tenant's default names a
 * policy for it (resolve-policy.ts's order), so the policy it carries was that default when it was
 * made; false when something closer does, or when it cannot be told (an entitlement, app or review
 * the pull lacks, an emergency request, an app with request defaults or configuration rules, whose
 * matching the pull does not redo).
 */
function fellBackOnDefault(kind: string, task: Json, body: Json, sources: DefaultSources, index: SourceIndex): boolean {
  const appId = str(body["appId"]);
  const ent = index.entitlements.get(entitlementKey(appId, str(body["appEntitlementId"])));
  const app = index.apps.get(appId);
  if (!ent || !app) return false;
  if (kind === "revoke") return str(ent["revokePolicyId"]) === "" && str(app["revokePolicyId"]) === "";
  if (kind === "certify") {
    const reviewId = str(body["accessReviewId"]) || str(body["accessReviewSelection"]);
    const review = index.reviews.get(reviewId);
    if (!review || str(review["policyId"]) !== "") return false;
    return review["usePolicyOverride"] !== true || (str(ent["certifyPolicyId"]) === "" && str(app["certifyPolicyId"]) === "");
  }
  // grant
  if (task["emergencyAccess"] === true || sources.resourceTypeDefaults === undefined || sources.configurationRules === undefined) return false;
  if (sources.unreadApps === "all" || sources.unreadApps?.has(appId) === true) return false;
  if (str(ent["grantPolicyId"]) !== "" || str(app["grantPolicyId"]) !== "") return false;
  return !index.appsWithRequestDefaults.has(appId);
}

interface SourceIndex {
  readonly entitlements: ReadonlyMap<string, Json>;
  readonly apps: ReadonlyMap<string, Json>;
  readonly reviews: ReadonlyMap<string, Json>;
  readonly appsWithRequestDefaults: ReadonlySet<string>;
}

function indexOf(sources: DefaultSources): SourceIndex {
  const entitlements = new Map<string, Json>();
  for (const e of sources.entitlements) if (isRecord(e)) entitlements.set(entitlementKey(str(e["appId"]), str(e["id"])), e);
  const apps = new Map<string, Json>();
  for (const a of sources.apps) if (isRecord(a)) apps.set(str(a["id"]), a);
  const reviews = new Map<string, Json>();
  for (const r of sources.accessReviews ?? []) if (isRecord(r)) reviews.set(str(r["id"]), r);
  const appsWithRequestDefaults = new Set<string>();
  for (const d of [...(sources.resourceTypeDefaults ?? []), ...(sources.configurationRules ?? [])]) if (isRecord(d)) appsWithRequestDefaults.add(str(d["appId"]));
  return { entitlements, apps, reviews, appsWithRequestDefaults };
}

/** The one policy every task of `kind` that `counts` accepts carries, with how many there were; else why not. */
function carriedBy(kind: string, tasks: readonly Json[], policyIds: ReadonlySet<unknown>, counts: (task: Json, body: Json) => boolean): { id: string; count: number } | { why: string } {
  const carried = new Set<string>();
  let count = 0;
  for (const t of tasks) {
    const body = isRecord(t["type"]) ? t["type"][kind] : undefined;
    if (!isRecord(body) || !counts(t, body)) continue;
    count++;
    const instance = t["policy"];
    const policy = isRecord(instance) ? instance["policy"] : undefined;
    const id = isRecord(policy) ? policy["id"] : undefined;
    if (typeof id === "string" && id !== "") carried.add(id);
  }
  const [only] = carried;
  // Tasks that disagree were made under different defaults: which is current cannot be told.
  if (carried.size === 1 && only !== undefined && policyIds.has(only)) return { id: only, count };
  return { why: carried.size > 1 ? ` (its ${kind} tasks carry ${carried.size} different policies)` : "" };
}

/**
 * The tenant's default policies as far as the pulled policies and tasks tell them. Without one
 * built-in policy of a grant, revoke or certify type, the default of that kind is the policy its
 * tasks carry where nothing closer names one (`sources`): a revoke task whose entitlement and app
 * name no revoke policy was made from the tenant's default.
 *
 * @example
 * ```ts
 * const d = tenantDefaults(
 *   [{ id: "pol-g", systemBuiltin: true, policyType: "POLICY_TYPE_GRANT" }, { id: "pol-off" }],
 *   [{ type: { offboarding: { subjectUserId: "u-1" } }, policy: { policy: { id: "pol-off" } } }],
 * );
 * d.defaultPolicies; // { grant: "pol-g", offboarding: "pol-off" }
 * d.warnings.map((w) => w.code); // revoke and certify unknown, offboarding inferred, action and finding unknown
 * ```
 */
export function tenantDefaults(policies: readonly Json[], tasks: readonly Json[], sources?: DefaultSources): TenantDefaults {
  const defaultPolicies: Record<string, string> = {};
  const warnings: TenantDefaults["warnings"][number][] = [];
  const policyIds = new Set(policies.map((p) => p["id"]).filter((id) => typeof id === "string"));
  const index = sources ? indexOf(sources) : undefined;
  for (const [kind, type] of BUILT_IN_KINDS) {
    const builtin = policies.filter((p) => p["systemBuiltin"] === true && p["policyType"] === type && typeof p["id"] === "string");
    const only = builtin.length === 1 ? builtin[0]?.["id"] : undefined;
    if (typeof only === "string") {
      defaultPolicies[kind] = only;
      continue;
    }
    const why = builtin.length > 1 ? ` (${builtin.length} built-in ${type} policies)` : "";
    const carried = sources && index ? carriedBy(kind, tasks, policyIds, (t, body) => fellBackOnDefault(kind, t, body, sources, index)) : undefined;
    if (carried && "id" in carried) {
      defaultPolicies[kind] = carried.id;
      warnings.push({
        code: "DEFAULT_POLICY_INFERRED",
        message: `the tenant's default ${kind} policy is taken to be "${carried.id}", the policy its ${carried.count} ${kind} task(s) carry whose ${kind === "certify" ? "access review names no certify policy (nor, where the review uses policy overrides, their entitlement and app)" : `entitlement and app name no ${kind} policy`}${why ? `, as no single built-in policy is${why}` : ""}: change "tenant.defaultPolicies.${kind}" if the default has changed since`,
      });
    } else warnings.push(unknown(kind, why || (carried && "why" in carried ? carried.why : "")));
  }
  for (const kind of TASK_KINDS) {
    const carried = carriedBy(kind, tasks, policyIds, () => true);
    if ("id" in carried) {
      defaultPolicies[kind] = carried.id;
      warnings.push({
        code: "DEFAULT_POLICY_INFERRED",
        message: `the tenant's default ${kind} policy is taken to be "${carried.id}", the policy its ${carried.count} ${kind} task(s) carry: change "tenant.defaultPolicies.${kind}" if the default has changed since`,
      });
    } else warnings.push(unknown(kind, carried.why));
  }
  return { defaultPolicies, warnings };
}
