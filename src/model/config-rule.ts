/**
 * Entitlement configuration rules (product_admin_entitlement-config-rules.mdx): app-scoped rules,
 * evaluated in priority order, whose CEL condition picks the entitlements they give request settings
 * to. The shape is the API's `c1.api.app.v1.AppEntitlementRoutingRule`.
 */

/**
 * The request settings a configuration rule gives the entitlements it matches
 * (`c1.api.app.v1.AppEntitlementRoutingRuleSettings`).
 *
 * @example
 * ```ts
 * const s: EntitlementConfigRuleSettings = { requestPolicyId: "pol-prod", emergencyGrantEnabled: true,
 *   emergencyGrantPolicyId: "pol-break-glass", maxGrantDuration: "28800s", requestSchemaId: "" };
 * ```
 */
export interface EntitlementConfigRuleSettings {
  readonly requestPolicyId: string;
  readonly emergencyGrantEnabled: boolean;
  readonly emergencyGrantPolicyId: string;
  /** A protobuf duration such as `"3600s"`, or null when the rule sets no limit. */
  readonly maxGrantDuration: string | null;
  readonly requestSchemaId: string;
}

/**
 * One entitlement configuration rule of an app. An empty `condition` matches every entitlement not
 * matched earlier; a rule that is not `enabled` is skipped.
 *
 * @example
 * ```ts
 * const r: EntitlementConfigRule = { id: "ecr-admin", appId: "app-aws", displayName: "Admin roles",
 *   description: "", condition: 'entitlement.display_name.contains("Admin")', enabled: true, priority: 1,
 *   settings: { requestPolicyId: "pol-prod", emergencyGrantEnabled: false, emergencyGrantPolicyId: "",
 *     maxGrantDuration: null, requestSchemaId: "" } };
 * ```
 */
export interface EntitlementConfigRule {
  readonly id: string;
  readonly appId: string;
  readonly displayName: string;
  readonly description: string;
  readonly condition: string;
  readonly enabled: boolean;
  /** Lower numbers are evaluated first; ties are ordered by id. */
  readonly priority: number;
  readonly settings: EntitlementConfigRuleSettings | null;
  readonly $unknown?: Readonly<Record<string, unknown>>;
}
