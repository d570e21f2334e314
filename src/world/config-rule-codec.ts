/**
 * Reading and writing the world file's `entitlementConfigurationRules`: a list of the API's
 * `c1.api.app.v1.AppEntitlementRoutingRule` objects, each with its `appId`.
 */
import type { EntitlementConfigRule, EntitlementConfigRuleSettings } from "../model/config-rule.js";
import type { JsonObject } from "../model/json.js";
import { isObject, ObjectReader } from "./read.js";

function decodeSettings(r: ObjectReader): EntitlementConfigRuleSettings | null {
  const raw = r.raw("settings");
  if (raw === undefined || raw === null) return null;
  if (!isObject(raw)) {
    r.report("settings", undefined, "object", raw);
    return null;
  }
  const s = new ObjectReader(raw, `${r.path}.settings`, r.diagnostics);
  const duration = s.raw("maxGrantDuration");
  if (duration !== undefined && duration !== null && typeof duration !== "string") s.report("maxGrantDuration", undefined, "string", duration);
  return {
    requestPolicyId: s.string("requestPolicyId"),
    emergencyGrantEnabled: s.boolean("emergencyGrantEnabled"),
    emergencyGrantPolicyId: s.string("emergencyGrantPolicyId"),
    maxGrantDuration: typeof duration === "string" ? duration : null,
    requestSchemaId: s.string("requestSchemaId"),
  };
}

/**
 * Decodes one entitlement configuration rule; wrong types are reported on the reader's diagnostics.
 *
 * @example
 * ```ts
 * const out: Diagnostic[] = [];
 * decodeConfigRule(new ObjectReader({ id: "ecr-1", appId: "app-aws", enabled: true }, "$.entitlementConfigurationRules[0]", out)).condition; // ""
 * ```
 */
export function decodeConfigRule(r: ObjectReader): EntitlementConfigRule {
  const priority = r.raw("priority");
  if (priority !== undefined && priority !== null && !(typeof priority === "number" && Number.isSafeInteger(priority)))
    r.report("priority", undefined, "integer", priority);
  return {
    id: r.string("id"),
    appId: r.string("appId"),
    displayName: r.string("displayName"),
    description: r.string("description"),
    condition: r.string("condition"),
    enabled: r.boolean("enabled"),
    priority: typeof priority === "number" && Number.isSafeInteger(priority) ? priority : 0,
    settings: decodeSettings(r),
    ...r.unknown(),
  };
}

/**
 * The world-file form of a configuration rule (unknown fields, such as `createdAt`, kept).
 *
 * @example
 * ```ts
 * JSON.stringify(encodeConfigRule(rule)); // {"id":"ecr-admin","appId":"app-aws",…}
 * ```
 */
export function encodeConfigRule(rule: EntitlementConfigRule): JsonObject {
  return {
    ...((rule.$unknown ?? {}) as JsonObject),
    id: rule.id,
    appId: rule.appId,
    displayName: rule.displayName,
    description: rule.description,
    condition: rule.condition,
    enabled: rule.enabled,
    priority: rule.priority,
    settings: rule.settings ? { ...rule.settings } : null,
  };
}
