/**
 * Which policy governs a task (docs/domain.md §3). The sources are tried in the service's order; the first
 * that names an existing policy wins. Every source tried is reported, with why it did not win, so an
 * explanation can say "the entitlement names no grant policy; the app's is pol-aws".
 */
import { certifyReviewId } from "../model/task-refs.js";
import type { AppEntitlement } from "../model/directory.js";
import type { Policy, Task } from "../model/index.js";
import { err, ok, type Result } from "../result.js";
import { findEntitlement, type World } from "../world/world.js";
import type { EntitlementConfigRuleSettings } from "../model/config-rule.js";
import { hasConfigRules, matchConfigRule, type ConfigRuleEvaluation } from "./config-rules.js";

/**
 * Every place a task's policy may come from, in no particular order (each kind of task consults some).
 *
 * @example
 * ```ts
 * POLICY_SOURCES.includes("entitlement"); // true
 * ```
 */
export const POLICY_SOURCES = [
  "emergency",
  "emergencyConfigRule",
  "emergencyResourceTypeDefault",
  "entitlement",
  "configRule",
  "resourceTypeDefault",
  "app",
  "accessReview",
  "tenantDefault",
  "taskSnapshot",
] as const;

/**
 * Where a task's policy came from.
 *
 * @example
 * ```ts
 * const s: PolicySource = "entitlement";
 * ```
 */
export type PolicySource = (typeof POLICY_SOURCES)[number];

/**
 * One source that was consulted.
 * - `used`: it named an existing policy and won;
 * - `empty`: it names no policy;
 * - `missing`: it names a policy id that does not exist in the world;
 * - `notApplicable`: it does not apply to this task (emergency on a non-emergency task, …);
 * - `notReached`: an earlier source won.
 *
 * @example
 * ```ts
 * const c: SourceCheck = { source: "entitlement", status: "empty", policyId: "",
 *   detail: 'entitlement "ent-ro" of app "app-aws" sets no grantPolicyId' };
 * ```
 */
export interface SourceCheck {
  readonly source: PolicySource;
  readonly status: "used" | "empty" | "missing" | "notApplicable" | "notReached";
  readonly policyId: string;
  readonly detail: string;
  /** For a configuration-rule source: how each of the app's rules fared, in evaluation order. */
  readonly configRules?: readonly ConfigRuleEvaluation[];
}

/**
 * The outcome of policy resolution: the policy, the source that won, and every source consulted
 * in order.
 *
 * @example
 * ```ts
 * const r = resolvePolicy(world, task);
 * if (r.ok) console.log(r.value.policy.id, "from", r.value.source);
 * ```
 */
export interface Resolution {
  readonly policy: Policy;
  readonly source: PolicySource;
  readonly checks: readonly SourceCheck[];
}

/**
 * The codes resolution fails with ({@link ResolutionError}).
 *
 * @example
 * ```ts
 * RESOLUTION_ERROR_CODES.includes("NO_POLICY"); // true
 * ```
 */
export const RESOLUTION_ERROR_CODES = ["NO_POLICY", "NO_TASK_TYPE", "NO_TASK"] as const;

/**
 * Why no policy could be resolved.
 *
 * @example
 * ```ts
 * if (!r.ok) console.log(r.error.code, r.error.message); // NO_POLICY …
 * ```
 */
export interface ResolutionError {
  /** `NO_TASK`: `decide` was given an id the world lacks, or something that is not a task. */
  readonly code: (typeof RESOLUTION_ERROR_CODES)[number];
  readonly message: string;
  readonly checks: readonly SourceCheck[];
}

interface Candidate {
  readonly source: PolicySource;
  /** The id the source names, or "" when it names none. */
  readonly policyId: string;
  readonly what: string;
  /** When set, the source does not apply to the task, with the reason. */
  readonly notApplicable?: string;
  /** Said after the source's value when it is read: why this source is consulted at all. */
  readonly note?: string;
  readonly configRules?: readonly ConfigRuleEvaluation[];
}

/**
 * The configuration-rule source of one request setting: the first matching enabled rule of the app
 * (entitlement-config-rules page). It is not consulted for an entitlement that overrides the app's
 * access-request defaults, as resource-type defaults are not; a matching rule that leaves the setting
 * empty lets it fall through to the next source (README "Assumptions").
 */
function configRuleCandidate(
  world: World,
  ent: AppEntitlement,
  entWhat: string,
  source: "configRule" | "emergencyConfigRule",
  pick: (s: EntitlementConfigRuleSettings) => { readonly policyId: string; readonly field: string },
): Candidate {
  const match = matchConfigRule(world, ent);
  if (ent.overrideAccessRequestsDefaults)
    return { source, policyId: "", what: entWhat, notApplicable: `${entWhat} overrides the app's access-request defaults`, configRules: match.evaluations };
  const rule = match.rule;
  if (!rule)
    return { source, policyId: "", what: `configuration rules of app "${ent.appId}"`, notApplicable: `no enabled configuration rule of app "${ent.appId}" matches ${entWhat}`, configRules: match.evaluations };
  const picked = rule.settings ? pick(rule.settings) : { policyId: "", field: "settings" };
  const condition = rule.condition.trim() === "" ? "an empty condition (catch-all)" : `condition ${JSON.stringify(rule.condition)}`;
  return {
    source,
    policyId: picked.policyId,
    what: `configuration rule "${rule.id}"${rule.displayName ? ` "${rule.displayName}"` : ""} (priority ${rule.priority}, ${condition}) ${picked.field}`,
    configRules: match.evaluations,
  };
}

/**
 * Whether emergency grants are on for an entitlement, by the sources an emergency request is routed
 * by, in their order: the entitlement's own setting, else (unless it overrides the app's
 * access-request defaults) the first matching configuration rule's, else its resource type's
 * request defaults (product_admin_access-requests.mdx, "Emergency access" on a resource type's
 * defaults; product_admin_entitlement-config-rules.mdx). Escalation, emergency task creation and the
 * offered actions ask this, so they agree with how an emergency request is routed.
 *
 * @example
 * ```ts
 * const ent = findEntitlement(world, "app-github", "ent-gh-repo-platform-write");
 * if (ent && emergencyGrantsEnabled(world, ent)) console.log("emergency requests are open"); // also when its resource type's defaults turn them on
 * ```
 */
export function emergencyGrantsEnabled(world: World, ent: AppEntitlement): boolean {
  if (ent.emergencyGrantEnabled) return true;
  if (ent.overrideAccessRequestsDefaults) return false;
  if (hasConfigRules(world, ent.appId) && matchConfigRule(world, ent).rule?.settings?.emergencyGrantEnabled === true) return true;
  return world.index.resourceTypeDefaults.get(`${ent.appId}\u0000${ent.appResourceTypeId}`)?.emergencyGrantEnabled === true;
}

/**
 * The sources an emergency request's policy comes from.
 *
 * @example
 * ```ts
 * const r = resolvePolicy(world, { ...task, emergencyAccess: true });
 * const routedAsEmergency = r.ok && EMERGENCY_SOURCES.has(r.value.source);
 * ```
 */
export const EMERGENCY_SOURCES: ReadonlySet<PolicySource> = new Set(["emergency", "emergencyConfigRule", "emergencyResourceTypeDefault"]);

function grantCandidates(world: World, task: Task, ent: AppEntitlement | undefined, appId: string, entId: string): Candidate[] {
  const entWhat = `entitlement "${entId}" of app "${appId}"`;
  const app = world.index.apps.get(appId);
  const rtDefault = ent ? world.index.resourceTypeDefaults.get(`${appId}\u0000${ent.appResourceTypeId}`) : undefined;
  // An entitlement without a resource type has no such defaults to look up: said so, not as type "".
  const rtWhat = ent?.appResourceTypeId ? `request defaults of app "${appId}" for resource type "${ent.appResourceTypeId}"` : `request defaults of app "${appId}" (the entitlement has no resource type)`;
  const notEmergency = "the task is not an emergency-access request";
  // An app without configuration rules shows no configuration-rule source.
  const withRules = ent !== undefined && hasConfigRules(world, appId);
  const emergency: Candidate[] = !task.emergencyAccess
    ? [{ source: "emergency", policyId: "", what: entWhat, notApplicable: notEmergency }]
    : [
        !ent?.emergencyGrantEnabled
          ? { source: "emergency", policyId: "", what: entWhat, notApplicable: `${entWhat} does not enable emergency grants` }
          : { source: "emergency", policyId: ent.emergencyGrantPolicyId, what: `${entWhat} emergencyGrantPolicyId` },
        ...(withRules
          ? [
              configRuleCandidate(world, ent, entWhat, "emergencyConfigRule", (s) =>
                s.emergencyGrantEnabled ? { policyId: s.emergencyGrantPolicyId, field: "emergencyGrantPolicyId" } : { policyId: "", field: "emergencyGrantEnabled (off), so its emergencyGrantPolicyId" },
              ),
            ]
          : []),
        ent?.overrideAccessRequestsDefaults
          ? { source: "emergencyResourceTypeDefault", policyId: "", what: rtWhat, notApplicable: `${entWhat} overrides the app's access-request defaults` }
          : !rtDefault?.emergencyGrantEnabled
            ? { source: "emergencyResourceTypeDefault", policyId: "", what: rtWhat, notApplicable: `${rtWhat} do not enable emergency grants` }
            : { source: "emergencyResourceTypeDefault", policyId: rtDefault.emergencyGrantPolicyId ?? "", what: `${rtWhat} emergencyGrantPolicyId` },
      ];
  return [
    ...emergency,
    { source: "entitlement", policyId: ent?.grantPolicyId ?? "", what: `${entWhat} grantPolicyId` },
    ...(withRules ? [configRuleCandidate(world, ent, entWhat, "configRule", (s) => ({ policyId: s.requestPolicyId, field: "requestPolicyId" }))] : []),
    ent?.overrideAccessRequestsDefaults
      ? {
          source: "resourceTypeDefault",
          policyId: "",
          what: `request defaults of app "${appId}"`,
          notApplicable: `${entWhat} overrides the app's access-request defaults`,
        }
      : {
          source: "resourceTypeDefault",
          policyId: rtDefault?.requestPolicyId ?? "",
          what: rtWhat,
        },
    { source: "app", policyId: app?.grantPolicyId ?? "", what: `app "${appId}" grantPolicyId` },
    { source: "tenantDefault", policyId: world.tenant.defaultPolicies["grant"] ?? "", what: "the tenant's default grant policy" },
  ];
}

function candidatesFor(world: World, task: Task): Candidate[] | undefined {
  const type = task.type;
  if (!type) return undefined;
  switch (type.kind) {
    case "grant": {
      const ent = findEntitlement(world, type.appId, type.appEntitlementId);
      return grantCandidates(world, task, ent, type.appId, type.appEntitlementId);
    }
    case "revoke": {
      const ent = findEntitlement(world, type.appId, type.appEntitlementId);
      const app = world.index.apps.get(type.appId);
      return [
        { source: "entitlement", policyId: ent?.revokePolicyId ?? "", what: `entitlement "${type.appEntitlementId}" revokePolicyId` },
        { source: "app", policyId: app?.revokePolicyId ?? "", what: `app "${type.appId}" revokePolicyId` },
        { source: "tenantDefault", policyId: world.tenant.defaultPolicies["revoke"] ?? "", what: "the tenant's default revoke policy" },
      ];
    }
    case "certify": {
      const ent = findEntitlement(world, type.appId, type.appEntitlementId);
      const app = world.index.apps.get(type.appId);
      const reviewId = certifyReviewId(type);
      const review = world.index.accessReviews.get(reviewId);
      const reviewWhat = `access review "${reviewId}" policyId`;
      const override = review?.usePolicyOverride
        ? ""
        : `access review "${reviewId}" does not use policy overrides`;
      // Entitlement and app are read for a certify task only because its review uses policy overrides: said beside them.
      const overrides = ` (access review "${reviewId}" uses policy overrides)`;
      const withOverride = (c: Candidate): Candidate => (override ? { ...c, notApplicable: override } : { ...c, note: overrides });
      return [
        withOverride({ source: "entitlement", policyId: ent?.certifyPolicyId ?? "", what: `entitlement "${type.appEntitlementId}" certifyPolicyId` }),
        withOverride({ source: "app", policyId: app?.certifyPolicyId ?? "", what: `app "${type.appId}" certifyPolicyId` }),
        { source: "accessReview", policyId: review?.policyId ?? "", what: reviewWhat },
        { source: "tenantDefault", policyId: world.tenant.defaultPolicies["certify"] ?? "", what: "the tenant's default certify policy" },
      ];
    }
    case "offboarding":
    case "action":
    case "finding":
      return [
        { source: "tenantDefault", policyId: world.tenant.defaultPolicies[type.kind] ?? "", what: `the tenant's default ${type.kind} policy` },
        { source: "taskSnapshot", policyId: task.policy?.policy?.id ?? "", what: "the policy the task already carries" },
      ];
    case "unknown":
      return [{ source: "taskSnapshot", policyId: task.policy?.policy?.id ?? "", what: "the policy the task already carries" }];
    default: {
      const never: never = type;
      return never;
    }
  }
}

/**
 * Decides which policy applies to a task, following the service's order of sources for its type:
 * grant: (for emergency access: entitlement → configuration rule → resource-type default emergency
 * policy, then) entitlement → first matching configuration rule → resource-type request default →
 * app → tenant default;
 * revoke: entitlement → app → tenant default; certify: access review (or, with the review's policy
 * override, entitlement → app → review) → tenant default; offboarding, action, finding: tenant
 * default → the policy the task already carries. Never throws.
 *
 * @example
 * ```ts
 * const r = resolvePolicy(world, findTask(world, "1001")!);
 * if (r.ok) for (const c of r.value.checks) console.log(c.source, c.status, c.detail);
 * ```
 */
export function resolvePolicy(world: World, task: Task): Result<Resolution, ResolutionError> {
  const t = task.type;
  if (t?.kind !== "grant" && t?.kind !== "revoke" && t?.kind !== "certify") return resolveUncached(world, task);
  // Configuration rule conditions may read now(), which the memo is not keyed by.
  if (t.kind === "grant" && hasConfigRules(world, t.appId)) return resolveUncached(world, task);
  const memo = memoOf(world);
  const byApp = t.kind === "grant" ? (task.emergencyAccess ? memo.emergency : memo.grant) : t.kind === "revoke" ? memo.revoke : memo.certify;
  let byEntitlement = byApp.get(t.appId);
  if (!byEntitlement) byApp.set(t.appId, (byEntitlement = new Map()));
  // A certify task's resolution also depends on its access review.
  const key = t.kind === "certify" ? `${t.appEntitlementId}\u0000${certifyReviewId(t)}` : t.appEntitlementId;
  const known = byEntitlement.get(key);
  if (known) return known;
  const r = resolveUncached(world, task);
  // Only successes are shared: a failure's message names the task.
  if (r.ok) byEntitlement.set(key, Object.freeze({ ok: true, value: Object.freeze({ ...r.value, checks: Object.freeze(r.value.checks.map((c) => Object.freeze(c))) }) }));
  return r;
}

type ByEntitlement = Map<string, Map<string, Result<Resolution, ResolutionError>>>;

/** Resolutions already made for one world index and tenant, by task kind, app and entitlement. */
interface Memo {
  readonly grant: ByEntitlement;
  readonly emergency: ByEntitlement;
  readonly revoke: ByEntitlement;
  readonly certify: ByEntitlement;
}

/**
 * Resolutions already made, per world index and tenant: both are immutable, and together they are
 * everything a grant, revoke or certify resolution reads besides the task's own type fields (and
 * `emergencyAccess`). Many tasks share an entitlement, and building the report of every source
 * consulted cost ~0.6 µs a task; a lookup here costs ~0.1 µs. Tasks that may fall back to their own
 * policy snapshot (offboarding, action, finding, unknown) are always resolved afresh.
 */
const memos = new WeakMap<World["index"], WeakMap<World["tenant"], Memo>>();
/**
 * The last memo asked for (most calls in a row are about one world). Held strongly, as
 * `celDirectoryOf` holds the last index it served, until another world is asked about: a `WeakRef`
 * made per world would keep every index it was made for alive to the end of the current job, so a
 * loop of what-if runs in one job kept ~250 KB a run (embedder review: +244 MB over 1,000 runs).
 */
let last: { index: World["index"]; tenant: World["tenant"]; memo: Memo } | undefined;

function memoOf(world: World): Memo {
  if (last && last.tenant === world.tenant && last.index === world.index) return last.memo;
  let byTenant = memos.get(world.index);
  if (!byTenant) memos.set(world.index, (byTenant = new WeakMap()));
  let memo = byTenant.get(world.tenant);
  if (!memo) byTenant.set(world.tenant, (memo = { grant: new Map(), emergency: new Map(), revoke: new Map(), certify: new Map() }));
  last = { index: world.index, tenant: world.tenant, memo };
  return memo;
}

function resolveUncached(world: World, task: Task): Result<Resolution, ResolutionError> {
  const candidates = candidatesFor(world, task);
  if (!candidates)
    return err({ code: "NO_TASK_TYPE", message: `task "${task.id}" has no type, so no policy source applies`, checks: [] });
  const checks: SourceCheck[] = [];
  let winner: { policy: Policy; source: PolicySource } | undefined;
  for (const c of candidates) {
    const rules = c.configRules && !winner ? { configRules: c.configRules } : {};
    if (winner) {
      checks.push({ source: c.source, status: "notReached", policyId: c.policyId, detail: `${c.what}${c.policyId ? ` is "${c.policyId}"` : ""}: not consulted, an earlier source won` });
      continue;
    }
    if (c.notApplicable !== undefined) {
      checks.push({ source: c.source, status: "notApplicable", policyId: "", detail: c.notApplicable, ...rules });
      continue;
    }
    if (!c.policyId) {
      checks.push({ source: c.source, status: "empty", policyId: "", detail: `${c.what} is not set${c.note ?? ""}`, ...rules });
      continue;
    }
    // The task's own snapshot is usable even when the policy no longer exists in the world.
    const policy =
      c.source === "taskSnapshot" ? (world.index.policies.get(c.policyId) ?? task.policy?.policy ?? undefined) : world.index.policies.get(c.policyId);
    if (!policy) {
      checks.push({ source: c.source, status: "missing", policyId: c.policyId, detail: `${c.what} is "${c.policyId}", which does not exist${c.note ?? ""}`, ...rules });
      continue;
    }
    checks.push({ source: c.source, status: "used", policyId: c.policyId, detail: `${c.what} is "${c.policyId}"${c.note ?? ""}`, ...rules });
    winner = { policy, source: c.source };
  }
  if (!winner)
    return err({
      code: "NO_POLICY",
      message: `no policy applies to task "${task.id}": ${checks.map((c) => c.detail).join("; ")}`,
      checks,
    });
  return ok({ policy: winner.policy, source: winner.source, checks });
}
