/**
 * Who performs a manual provision step: the users it lists, then its assignee (app owners,
 * entitlement owners, the target's manager, a group, listed users or CEL expressions), then the
 * assignee's fallback users. Inactive and unknown users are dropped. The simulation shows them as
 * the step's `stepApproverIds`, so they may report the step's outcome (docs/workflow.md).
 */
import type { ManualAssignee, ProvisionPolicy, Task } from "../model/index.js";
import { findEntitlement, type World } from "../world/world.js";
import type { ExpressionEvaluator } from "./approvers.js";

function appAndEntitlement(task: Task): { appId: string; entitlementId: string; subjectId: string } {
  const t = task.type;
  if (t && (t.kind === "grant" || t.kind === "revoke" || t.kind === "certify"))
    return { appId: t.appId, entitlementId: t.appEntitlementId, subjectId: task.userId || t.identityUserId };
  if (t?.kind === "offboarding") return { appId: "", entitlementId: "", subjectId: t.subjectUserId };
  return { appId: "", entitlementId: "", subjectId: task.userId };
}

function active(world: World, ids: readonly string[]): string[] {
  const out: string[] = [];
  for (const id of ids) {
    const u = world.index.users.get(id);
    if (!u || u.status === "DISABLED" || u.status === "DELETED") continue;
    if (!out.includes(id)) out.push(id);
  }
  return out;
}

/**
 * The owners of the task's app (the default provisioners of a step routed to manual work).
 *
 * @example
 * ```ts
 * appOwnersOf(world, task); // ["u-vp-sales"]
 * ```
 */
export function appOwnersOf(world: World, task: Task): string[] {
  const { appId } = appAndEntitlement(task);
  return active(world, world.index.apps.get(appId)?.ownerUserIds ?? []);
}

function assigneeIds(world: World, task: Task, a: ManualAssignee, expressions: ExpressionEvaluator): readonly string[] {
  const { appId, entitlementId, subjectId } = appAndEntitlement(task);
  switch (a.kind) {
    case "appOwners":
      return world.index.apps.get(appId)?.ownerUserIds ?? [];
    case "entitlementOwners":
      return findEntitlement(world, appId, entitlementId)?.ownerUserIds ?? [];
    case "manager":
      return world.index.users.get(subjectId)?.managerIds ?? [];
    case "group":
      return world.index.groups.get(a.appGroupId)?.memberUserIds ?? [];
    case "users":
      return a.userIds ?? [];
    case "expression": {
      for (const e of a.expressions ?? []) {
        const r = expressions(e);
        if (r.ok && r.value.length > 0) return r.value;
      }
      return [];
    }
    case "unknown":
      return [];
    default: {
      const never: never = a;
      return never;
    }
  }
}

/**
 * The people who perform a provision step by hand, or `[]` when a system provisions (connector,
 * webhook, external ticket, …). An `unconfigured` step is manual work for the app's owners.
 *
 * @example
 * ```ts
 * manualProvisioners(world, task, { kind: "manual", instructions: "", userIds: ["u-it1"], assignee: null }, none);
 * // ["u-it1"]
 * ```
 */
export function manualProvisioners(world: World, task: Task, policy: ProvisionPolicy | null, expressions: ExpressionEvaluator): string[] {
  if (!policy) return [];
  if (policy.kind === "unconfigured") return appOwnersOf(world, task);
  if (policy.kind !== "manual") return [];
  const listed = active(world, policy.userIds ?? []);
  const a = policy.assignee;
  if (!a) return listed.length > 0 ? listed : appOwnersOf(world, task);
  const assigned = active(world, [...listed, ...assigneeIds(world, task, a, expressions)]);
  if (assigned.length > 0) return assigned;
  const fallback = "fallbackUserIds" in a ? active(world, a.fallbackUserIds ?? []) : [];
  return fallback.length > 0 ? fallback : appOwnersOf(world, task);
}

/**
 * Whether a system (not a person) carries out the provision policy: the simulation then waits for
 * the outcome to be reported (`provisionComplete` / `provisionErrored` by an administrator).
 *
 * @example
 * ```ts
 * isManual({ kind: "unconfigured" }); // true
 * ```
 */
export function isManual(policy: ProvisionPolicy | null): boolean {
  return policy?.kind === "manual" || policy?.kind === "unconfigured";
}

/**
 * The connector a provision policy names (`""` when it names none and the app's connector is meant).
 *
 * @example
 * ```ts
 * connectorIdOf({ kind: "connector", connector: { kind: "defaultBehavior", connectorId: "conn-aws" } }); // "conn-aws"
 * ```
 */
export function connectorIdOf(policy: ProvisionPolicy | null): string | undefined {
  if (!policy) return undefined;
  if (policy.kind === "action") return policy.connectorId;
  if (policy.kind !== "connector") return undefined;
  const c = policy.connector;
  return c.kind === "unknown" ? "" : c.connectorId;
}
