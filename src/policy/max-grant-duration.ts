/**
 * The maximum grant duration of an entitlement (product_admin_access-requests.mdx: policy, grant
 * duration and emergency settings follow entitlement → resource type → app;
 * product_admin_entitlement-config-rules.mdx: the first matching rule also sets it).
 */
import { findEntitlement, type World } from "../world/world.js";
import { durationSeconds } from "../workflow/time.js";
import { matchConfigRule } from "./config-rules.js";

/**
 * Where an entitlement's maximum grant duration comes from, and the duration (a protobuf duration
 * such as `"28800s"`), or null when no source sets one.
 *
 * @example
 * ```ts
 * const d: MaxGrantDuration = { duration: "28800s", source: "configRule", detail: 'configuration rule "ecr-staging" maxGrantDuration is "28800s"' };
 * ```
 */
export interface MaxGrantDuration {
  readonly duration: string | null;
  readonly source: "entitlement" | "configRule" | "resourceTypeDefault" | "none";
  readonly detail: string;
}

/** The entitlement's own limit: the API's `durationGrant`, kept among its fields the world does not model. */
function ownDuration(unknown: Readonly<Record<string, unknown>> | undefined): string {
  const v = unknown?.["durationGrant"];
  return typeof v === "string" ? v : "";
}

/**
 * Resolves an entitlement's maximum grant duration: the entitlement's own `durationGrant`; unless
 * the entitlement overrides the app's access-request defaults, then the first matching enabled
 * configuration rule's `maxGrantDuration`, then its resource type's default. Apps carry no duration
 * in the API, so the chain ends there. Each source that sets none lets the next decide (README
 * "Assumptions", with the request-policy chain). Never throws.
 *
 * @example
 * ```ts
 * resolveMaxGrantDuration(world, "app-aws", "ent-aws-staging-admin"); // { duration: "28800s", source: "configRule", … }
 * ```
 */
export function resolveMaxGrantDuration(world: World, appId: string, entitlementId: string): MaxGrantDuration {
  const ent = findEntitlement(world, appId, entitlementId);
  const what = `entitlement "${entitlementId}" of app "${appId}"`;
  if (!ent) return { duration: null, source: "none", detail: `${what} does not exist` };
  const own = ownDuration(ent.$unknown);
  if (own) return { duration: own, source: "entitlement", detail: `${what} durationGrant is "${own}"` };
  // The API's oneof beside durationGrant: the entitlement says "no maximum" itself.
  const unset = ent.$unknown?.["durationUnset"];
  if (unset !== undefined && unset !== null) return { duration: null, source: "entitlement", detail: `${what} sets durationUnset: no maximum` };
  if (ent.overrideAccessRequestsDefaults) return { duration: null, source: "none", detail: `${what} overrides the app's access-request defaults and sets no durationGrant` };
  const rule = matchConfigRule(world, ent).rule;
  const fromRule = rule?.settings?.maxGrantDuration;
  if (rule && fromRule) return { duration: fromRule, source: "configRule", detail: `configuration rule "${rule.id}" maxGrantDuration is "${fromRule}"` };
  const d = world.index.resourceTypeDefaults.get(`${appId}\u0000${ent.appResourceTypeId}`);
  if (d?.maxGrantDuration)
    return { duration: d.maxGrantDuration, source: "resourceTypeDefault", detail: `request defaults of app "${appId}" for resource type "${ent.appResourceTypeId}" maxGrantDuration is "${d.maxGrantDuration}"` };
  return { duration: null, source: "none", detail: `no source sets a maximum grant duration for ${what}` };
}

/**
 * The longest grant of an entitlement in seconds, with where the limit comes from
 * ({@link resolveMaxGrantDuration}); `undefined` when nothing limits it.
 *
 * @example
 * ```ts
 * maxGrantSeconds(world, "app-aws", "ent-aws-staging-admin"); // { seconds: 28800, detail: 'configuration rule "ecr-staging" maxGrantDuration is "28800s"' }
 * ```
 */
export function maxGrantSeconds(world: World, appId: string, entitlementId: string): { readonly seconds: number; readonly detail: string } | undefined {
  const m = resolveMaxGrantDuration(world, appId, entitlementId);
  const seconds = m.duration === null ? undefined : durationSeconds(/^\d+$/.test(m.duration) ? `${m.duration}s` : m.duration);
  return seconds === undefined || seconds <= 0 ? undefined : { seconds, detail: m.detail };
}
