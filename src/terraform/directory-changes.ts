/**
 * A plan's app and entitlement changes as edits of the world's apps and entitlements: the
 * attributes that say which policy a task takes (`grant_policy_id`, `revoke_policy_id`,
 * `certify_policy_id`, the emergency settings, whether the entitlement overrides the app's request
 * defaults) and those a condition may read (`display_name`, `risk_level_value_id`,
 * `request_schema_id`). developer_terraform-best-practices.mdx attaches policies this way
 * (`conductorone_app_entitlement`, `conductorone_custom_app_entitlement`). Other attributes
 * (provisioning, durations, slugs) do not change which policy or steps a task gets, and are left.
 */
import type { App, AppEntitlement } from "../model/directory.js";
import type { World } from "../world/world.js";
import { findEntitlement } from "../world/world.js";
import { isRecord, type PlanDiagnostic } from "./attributes.js";
import type { PlannedDirectoryChange } from "./plan.js";

/** A field of the world's object an attribute writes, and the type its value must have. */
interface Field {
  readonly field: string;
  readonly type: "string" | "boolean";
}

const POLICY_IDS: Readonly<Record<string, Field>> = {
  grant_policy_id: { field: "grantPolicyId", type: "string" },
  revoke_policy_id: { field: "revokePolicyId", type: "string" },
  certify_policy_id: { field: "certifyPolicyId", type: "string" },
};

/** The attributes applied, by resource kind (names as the provider writes them). */
const ATTRIBUTES: Readonly<Record<"entitlement" | "app", Readonly<Record<string, Field>>>> = {
  entitlement: {
    ...POLICY_IDS,
    emergency_grant_policy_id: { field: "emergencyGrantPolicyId", type: "string" },
    emergency_grant_enabled: { field: "emergencyGrantEnabled", type: "boolean" },
    override_access_requests_defaults: { field: "overrideAccessRequestsDefaults", type: "boolean" },
    display_name: { field: "displayName", type: "string" },
    risk_level_value_id: { field: "riskLevelValueId", type: "string" },
    request_schema_id: { field: "requestSchemaId", type: "string" },
  },
  app: { ...POLICY_IDS, display_name: { field: "displayName", type: "string" } },
};

/**
 * What one app or entitlement change does to the world: the object written (null when it writes
 * nothing the simulation reads), and a line saying what changed or why nothing did.
 *
 * @example
 * ```ts
 * const d: DirectoryEdit = { kind: "entitlement", object: edited, note: 'conductorone_app_entitlement.x: entitlement "e" of app "a": grantPolicyId "p1" → "p2"' };
 * ```
 */
export interface DirectoryEdit {
  readonly kind: "entitlement" | "app";
  readonly object: AppEntitlement | App | null;
  readonly note: string;
}

const text = (v: unknown): string => JSON.stringify(v);

/**
 * The edit one planned app or entitlement change makes. `resolve` gives the values after apply with
 * unknown policy ids resolved to the policies the plan creates (the same resolution policy changes
 * use), or the diagnostics of those it cannot resolve.
 *
 * @example
 * ```ts
 * const d = directoryEdit(world, change, (c) => ({ ok: true, value: c.after ?? {} }));
 * if (d.ok && d.value.object) console.log(d.value.note);
 * ```
 */
export function directoryEdit(
  world: World,
  c: PlannedDirectoryChange,
  resolve: (c: PlannedDirectoryChange) => { ok: true; value: Readonly<Record<string, unknown>> } | { ok: false; error: PlanDiagnostic[] },
): { ok: true; value: DirectoryEdit } | { ok: false; error: PlanDiagnostic[] } {
  const values = c.after ?? c.before ?? {};
  const id = typeof values["id"] === "string" ? values["id"] : "";
  const appId = c.kind === "app" ? id : typeof values["app_id"] === "string" ? values["app_id"] : "";
  const what = c.kind === "app" ? `app "${id}"` : `entitlement "${id}" of app "${appId}"`;
  const existing: AppEntitlement | App | undefined = c.kind === "app" ? world.index.apps.get(id) : findEntitlement(world, appId, id);
  const none = (note: string) => ({ ok: true as const, value: { kind: c.kind, object: null, note: `${c.address}: ${note}` } });
  if (c.action === "create") return none(`a new ${c.kind}; no task of the world names it, so none can re-route`);
  if (c.action === "delete")
    return none(
      c.type === "conductorone_app_entitlement"
        ? "destroying it only removes it from Terraform's state; the entitlement stays (the resource is update-only)"
        : `removing ${what} is not simulated; tasks that name it keep it`,
    );
  if (existing === undefined) return none(`the world has no ${what}; nothing to simulate`);
  // Only the attributes the simulation reads: an unknown value elsewhere (a computed timestamp) is no concern.
  const attributes = ATTRIBUTES[c.kind];
  const unknown = isRecord(c.afterUnknown) ? c.afterUnknown : {};
  const relevantUnknown = Object.fromEntries(Object.entries(unknown).filter(([k]) => Object.hasOwn(attributes, k)));
  const resolved = resolve({ ...c, afterUnknown: relevantUnknown });
  if (!resolved.ok) return resolved;
  const patch: Record<string, unknown> = {};
  const said: string[] = [];
  for (const [name, { field, type }] of Object.entries(attributes)) {
    if (!Object.hasOwn(resolved.value, name)) continue;
    const v = resolved.value[name];
    // Unset in the configuration: the provider leaves the service's value alone.
    if (v === null || v === undefined) continue;
    if (typeof v !== type)
      return { ok: false, error: [{ code: "PLAN_BAD_RESOURCE_CHANGE", path: `${c.path}.change.after.${name}`, message: `${c.address}: ${name} must be a ${type}, not ${text(v)}` }] };
    const was = (existing as unknown as Record<string, unknown>)[field];
    if (was === v) continue;
    patch[field] = v;
    said.push(`${field} ${text(was)} → ${text(v)}`);
  }
  if (said.length === 0) return none(`${what}: nothing that routes a task changes`);
  return { ok: true, value: { kind: c.kind, object: { ...existing, ...patch } as AppEntitlement | App, note: `${c.address}: ${what}: ${said.join(", ")}` } };
}
