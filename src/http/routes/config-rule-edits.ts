/**
 * Entitlement configuration rule writes (`c1.api.app.v1.AppEntitlementRoutingRuleService` Create,
 * Update, Delete, Reorder; product_admin_entitlement-config-rules.mdx): they replace the world's
 * `entitlementConfigurationRules`, so later Hard Resets and new tasks route entitlements by the
 * edited rules. Each rule is checked as the linter checks it (its condition in the `config-rule`
 * CEL environment, the policies its settings name); an error refuses the write.
 *
 * Priorities follow the OpenAPI: on create, `priority` is a 1-indexed insertion slot and the app's
 * rules are re-packed densely (1..N), without one the rule goes last; update ignores `priority`;
 * reorder takes every rule id of the app in the new order and assigns 1..N. Update writes the
 * fields the body sets and keeps the others (README "Assumptions"). Who may: Super Administrators,
 * and Application Administrators on the apps they own (`mayManageApp`).
 */
import type { EntitlementConfigRule } from "../../model/config-rule.js";
import type { User } from "../../model/directory.js";
import type { JsonObject } from "../../model/json.js";
import { lintConfigRule } from "../../policy/lint-config-rules.js";
import { err, ok, type Result } from "../../result.js";
import { decodeConfigRule, encodeConfigRule } from "../../world/config-rule-codec.js";
import { type Diagnostic, ObjectReader } from "../../world/read.js";
import { buildIndex, takeIds, type World } from "../../world/world.js";
import type { HttpFailure } from "../error-body.js";
import { managedApp } from "./managed-app.js";
import { invalid, notFound } from "./refuse.js";

type Body = Readonly<Record<string, unknown>>;

/**
 * A successful rule write: the next world and the 200 body.
 *
 * @example
 * ```ts
 * const r = createConfigRule(world, admin, "app-aws", { displayName: "Prod", condition: 'entitlement.appResourceId == "prod"' });
 * if (r.ok) store.set(r.value.world);
 * ```
 */
export interface ConfigRuleWrite {
  readonly world: World;
  readonly body: JsonObject;
}


const WRITABLE = ["displayName", "description", "condition", "enabled", "settings"] as const;

const byOrder = (a: EntitlementConfigRule, b: EntitlementConfigRule) => a.priority - b.priority || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function appRules(world: World, appId: string): EntitlementConfigRule[] {
  return (world.entitlementConfigurationRules ?? []).filter((r) => r.appId === appId).sort(byOrder);
}


/** The world with `appId`'s rules replaced by `rules` (given in evaluation order, priorities as set). */
function withAppRules(world: World, appId: string, rules: readonly EntitlementConfigRule[]): World {
  const others = (world.entitlementConfigurationRules ?? []).filter((r) => r.appId !== appId);
  const entitlementConfigurationRules = Object.freeze([...others, ...rules]);
  const next = { ...world, entitlementConfigurationRules };
  return Object.freeze({ ...next, index: buildIndex(next) });
}

/** Decodes a rule from wire JSON as the world loader does; type errors are INVALID_ARGUMENT. */
function decodeRule(wire: Record<string, unknown>): Result<EntitlementConfigRule, HttpFailure> {
  const diagnostics: Diagnostic[] = [];
  const rule = decodeConfigRule(new ObjectReader(wire, "$", diagnostics));
  const first = diagnostics[0];
  if (first) return invalid(first.path.replace(/^\$\.?/, ""), `${first.path}: ${first.message}`);
  return ok(rule);
}

function lintRefusal(world: World, rule: EntitlementConfigRule, what: string): HttpFailure | undefined {
  const errors = lintConfigRule(rule, world).filter((f) => f.severity === "error");
  const first = errors[0];
  if (!first) return undefined;
  const list = errors.slice(0, 5).map((f) => `${f.code} at ${f.path}: ${f.message}`).join("; ");
  return { status: 400, code: "INVALID_ARGUMENT", reason: "INVALID_ARGUMENT", message: `${what} refused: ${list}`, field: first.path.replace(/^\$\.?/, "") };
}

const repack = (rules: readonly EntitlementConfigRule[]) => rules.map((r, i) => (r.priority === i + 1 ? r : { ...r, priority: i + 1 }));

/**
 * `POST /api/v1/apps/{app_id}/entitlement_configuration_rules`: a new rule at slot `priority`
 * (1-indexed; absent or past the end: last) → `{routingRule}`.
 *
 * @example
 * ```ts
 * createConfigRule(world, admin, "app-aws", { displayName: "Prod", condition: "", enabled: true, settings: { requestPolicyId: "pol-prod-admin" } });
 * ```
 */
export function createConfigRule(world: World, caller: User, appId: string, body: Body): Result<ConfigRuleWrite, HttpFailure> {
  const app = managedApp(world, caller, appId);
  if (!app.ok) return app;
  const slot = body["priority"];
  if (slot !== undefined && slot !== null && !(typeof slot === "number" && Number.isSafeInteger(slot) && slot >= 0))
    return invalid("priority", "priority must be a non-negative integer: the 1-indexed slot to insert at");
  const { ids, seq } = takeIds(world, "ecr", 1);
  const wire: Record<string, unknown> = { id: ids[0] ?? "", appId, enabled: false, priority: 0 };
  for (const k of WRITABLE) if (body[k] !== undefined) wire[k] = body[k];
  const rule = decodeRule(wire);
  if (!rule.ok) return rule;
  const refused = lintRefusal(world, rule.value, "create configuration rule");
  if (refused) return err(refused);
  const rules = appRules(world, appId);
  const at = typeof slot === "number" && slot >= 1 ? Math.min(slot - 1, rules.length) : rules.length;
  const placed = repack([...rules.slice(0, at), rule.value, ...rules.slice(at)]);
  const saved = placed[at] ?? rule.value;
  return ok({ world: { ...withAppRules(world, appId, placed), seq }, body: { routingRule: encodeConfigRule(saved) } });
}

/**
 * `POST /api/v1/apps/{app_id}/entitlement_configuration_rules/{id}`: writes the fields the body sets
 * (`priority` is ignored) → `{routingRule}`.
 *
 * @example
 * ```ts
 * updateConfigRule(world, admin, "app-aws", "ecr-prod", { enabled: false });
 * ```
 */
export function updateConfigRule(world: World, caller: User, appId: string, id: string, body: Body): Result<ConfigRuleWrite, HttpFailure> {
  const app = managedApp(world, caller, appId);
  if (!app.ok) return app;
  const rules = appRules(world, appId);
  const current = rules.find((r) => r.id === id);
  if (!current) return notFound(`entitlement configuration rule "${id}" of app "${appId}" not found`);
  const wire: Record<string, unknown> = { ...encodeConfigRule(current) };
  for (const k of WRITABLE) if (body[k] !== undefined) wire[k] = body[k];
  const rule = decodeRule(wire);
  if (!rule.ok) return rule;
  const refused = lintRefusal(world, rule.value, "update configuration rule");
  if (refused) return err(refused);
  return ok({ world: withAppRules(world, appId, rules.map((r) => (r.id === id ? rule.value : r))), body: { routingRule: encodeConfigRule(rule.value) } });
}

/**
 * `DELETE /api/v1/apps/{app_id}/entitlement_configuration_rules/{id}` → `{}`.
 *
 * @example
 * ```ts
 * deleteConfigRule(world, admin, "app-aws", "ecr-prod");
 * ```
 */
export function deleteConfigRule(world: World, caller: User, appId: string, id: string): Result<ConfigRuleWrite, HttpFailure> {
  const app = managedApp(world, caller, appId);
  if (!app.ok) return app;
  const rules = appRules(world, appId);
  if (!rules.some((r) => r.id === id)) return notFound(`entitlement configuration rule "${id}" of app "${appId}" not found`);
  return ok({ world: withAppRules(world, appId, rules.filter((r) => r.id !== id)), body: {} });
}

/**
 * `POST /api/v1/apps/{app_id}/entitlement_configuration_rules/reorder`: `ruleIds` must be every rule
 * of the app, each once; they get priorities 1..N in that order → `{list}`.
 *
 * @example
 * ```ts
 * reorderConfigRules(world, admin, "app-aws", { ruleIds: ["ecr-b", "ecr-a"] });
 * ```
 */
export function reorderConfigRules(world: World, caller: User, appId: string, body: Body): Result<ConfigRuleWrite, HttpFailure> {
  const app = managedApp(world, caller, appId);
  if (!app.ok) return app;
  const v = body["ruleIds"];
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) return invalid("ruleIds", "ruleIds must be an array of rule ids");
  const ids = v as string[];
  const rules = appRules(world, appId);
  const byId = new Map(rules.map((r) => [r.id, r]));
  const missing = rules.filter((r) => !ids.includes(r.id)).map((r) => r.id);
  const extra = ids.filter((id) => !byId.has(id));
  if (missing.length > 0 || extra.length > 0 || new Set(ids).size !== ids.length)
    return invalid(
      "ruleIds",
      `ruleIds must list every rule of app "${appId}" exactly once${missing.length > 0 ? `; missing ${missing.join(", ")}` : ""}${extra.length > 0 ? `; not rules of the app: ${extra.join(", ")}` : ""}`,
    );
  const ordered = repack(ids.flatMap((id) => {
    const r = byId.get(id);
    return r ? [r] : [];
  }));
  return ok({ world: withAppRules(world, appId, ordered), body: { list: ordered.map(encodeConfigRule) } });
}
