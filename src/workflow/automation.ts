/**
 * An automation's revoke step, run by the simulation when an action step starts the automation
 * (the `simulation.automations` section). Release note 6: the grant source setting — `All` takes
 * every grant that matches the criteria, `Direct` only direct grants. Release note 7: criteria
 * scoped only by a legacy resource-type name fail the step instead of matching every app that has a
 * resource type of that name.
 */
import type { Grant } from "../model/directory.js";
import type { Task } from "../model/index.js";
import { findEntitlement, type World } from "../world/world.js";
import type { AutomationRevokeStep } from "./sim-config.js";

/**
 * What a revoke step did: the grants it removes, or why the step fails (an action `error` outcome).
 *
 * @example
 * ```ts
 * const r: RevokeStepResult = { ok: false, errorCode: "LEGACY_RESOURCE_TYPE_CRITERIA", errorMessage: "…" };
 * ```
 */
export type RevokeStepResult =
  | { readonly ok: true; readonly grants: readonly Grant[]; readonly skippedIndirect: number }
  | { readonly ok: false; readonly errorCode: string; readonly errorMessage: string };

/**
 * The user an automation acts on: the offboarded user, else the task's target.
 *
 * @example
 * ```ts
 * automationSubject(findTask(world, "1051")!); // "u-former"
 * ```
 */
export function automationSubject(task: Task): string {
  const t = task.type;
  if (t?.kind === "offboarding") return t.subjectUserId;
  if (t && (t.kind === "grant" || t.kind === "revoke" || t.kind === "certify")) return task.userId || t.identityUserId;
  return task.userId;
}

/**
 * Runs a revoke step for a task's subject against the world's grants.
 *
 * @example
 * ```ts
 * const r = runRevokeStep(world, task, { grantSource: "DIRECT",
 *   criteria: { appIds: ["app-okta"], appEntitlementIds: [], resourceTypeIds: [], resourceTypeName: "" } });
 * if (r.ok) console.log(r.grants.length, "grants revoked");
 * ```
 */
export function runRevokeStep(world: World, task: Task, step: AutomationRevokeStep): RevokeStepResult {
  const c = step.criteria;
  const scoped = c.appIds.length > 0 || c.appEntitlementIds.length > 0 || c.resourceTypeIds.length > 0;
  if (!scoped && c.resourceTypeName !== "")
    return {
      ok: false,
      errorCode: "LEGACY_RESOURCE_TYPE_CRITERIA",
      errorMessage: `the revoke criteria is scoped only by the legacy resource-type name "${c.resourceTypeName}"; scope it by app, entitlement or resource type id (it no longer matches every app with a resource type of that name)`,
    };
  if (!scoped)
    return { ok: false, errorCode: "EMPTY_REVOKE_CRITERIA", errorMessage: "the revoke criteria names no app, entitlement or resource type" };
  const userId = automationSubject(task);
  if (!userId) return { ok: false, errorCode: "NO_SUBJECT", errorMessage: "the task has no user to revoke from" };
  const matched: Grant[] = [];
  let skippedIndirect = 0;
  for (const g of world.grants) {
    if (g.identityUserId !== userId) continue;
    if (c.appIds.length > 0 && !c.appIds.includes(g.appId)) continue;
    if (c.appEntitlementIds.length > 0 && !c.appEntitlementIds.includes(g.appEntitlementId)) continue;
    if (c.resourceTypeIds.length > 0 || (c.resourceTypeName !== "" && c.appIds.length > 0)) {
      // With the app named, a legacy name is read as the resource type id within that app.
      const types = [...c.resourceTypeIds, ...(c.resourceTypeName ? [c.resourceTypeName] : [])];
      const ent = findEntitlement(world, g.appId, g.appEntitlementId);
      if (!ent || !types.includes(ent.appResourceTypeId)) continue;
    }
    if (step.grantSource === "DIRECT" && g.source !== "direct") {
      skippedIndirect++;
      continue;
    }
    matched.push(g);
  }
  return { ok: true, grants: matched, skippedIndirect };
}
