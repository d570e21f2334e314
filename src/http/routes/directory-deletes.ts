/**
 * Deleting an app (`c1.api.app.v1.Apps.Delete`, Terraform's `conductorone_custom_app` destroy) and
 * an entitlement (`AppEntitlements.Delete`, `conductorone_custom_app_entitlement` destroy). What
 * hangs off the deleted object goes with it: an app's entitlements, accounts, groups, grants,
 * request defaults and configuration rules; an entitlement's grants. A task is history the
 * simulation keeps, and a world whose tasks name a missing app or entitlement does not load, so an
 * app or entitlement some task names cannot be deleted (`FAILED_PRECONDITION`, as a policy in use).
 * Who may: as for updates (`managedApp`).
 */
import type { User } from "../../model/directory.js";
import type { Task } from "../../model/index.js";
import { taskEntitlementRef } from "../../model/task-refs.js";
import { err, ok, type Result } from "../../result.js";
import { buildIndex, entitlementKey, findEntitlement, type World } from "../../world/world.js";
import type { HttpFailure } from "../error-body.js";
import type { DirectoryWrite } from "./directory-edits.js";
import { managedApp } from "./managed-app.js";
import { notFound } from "./refuse.js";

/** How many tasks name what `names` matches, and the first few of their ids. */
function tasksNaming(world: World, names: (task: Task) => boolean): { readonly count: number; readonly ids: readonly string[] } {
  let count = 0;
  const ids: string[] = [];
  for (const t of world.tasks.values()) {
    if (!names(t)) continue;
    count++;
    if (ids.length < 3) ids.push(t.numericId || t.id);
  }
  return { count, ids };
}

/**
 * `FAILED_PRECONDITION` when some task names what is to be deleted (`what`, e.g. `app "app-aws"`;
 * `kind`, e.g. "app"), else `undefined`: the simulation keeps every task, and a world whose tasks
 * name a missing object does not load.
 *
 * @example
 * ```ts
 * const named = namedByTasks(world, `app "${id}"`, "app", (t) => t.type?.kind === "grant" && t.type.appId === id);
 * if (named) return named;
 * ```
 */
export function namedByTasks(world: World, what: string, kind: string, names: (task: Task) => boolean): Result<never, HttpFailure> | undefined {
  const named = tasksNaming(world, names);
  if (named.count === 0) return undefined;
  const more = named.count > named.ids.length ? ` and ${named.count - named.ids.length} more` : "";
  return err({
    status: 400,
    code: "FAILED_PRECONDITION",
    reason: "FAILED_PRECONDITION",
    message: `${what} cannot be deleted: task${named.count === 1 ? "" : "s"} ${named.ids.join(", ")}${more} name${named.count === 1 ? "s" : ""} it (the simulation keeps every task, and a world whose tasks name a missing ${kind} does not load)`,
  });
}

/** The world with lists replaced and the index rebuilt for them (the rest shared), frozen. */
function withLists(world: World, lists: Partial<Pick<World, "apps" | "entitlements" | "appUsers" | "groups" | "grants" | "resourceTypeDefaults" | "entitlementConfigurationRules">>): World {
  const parts = { ...world, ...lists };
  return Object.freeze({ ...parts, index: buildIndex(parts, world) });
}

/** `list` without the items `drop` matches, the same list when none does. */
function without<T>(list: readonly T[], drop: (t: T) => boolean): readonly T[] {
  return list.some(drop) ? Object.freeze(list.filter((t) => !drop(t))) : list;
}

/**
 * `DELETE /api/v1/apps/{id}` (`Apps.Delete`): removes the app with its entitlements, accounts,
 * groups, grants, request defaults and configuration rules → `{}`.
 *
 * @example
 * ```ts
 * const r = deleteApp(world, admin, "app-000042");
 * if (r.ok) store.set(r.value.world); // r.value.body is {}
 * ```
 */
export function deleteApp(world: World, caller: User, appId: string): Result<DirectoryWrite, HttpFailure> {
  const app = managedApp(world, caller, appId);
  if (!app.ok) return app;
  const named = namedByTasks(world, `app "${appId}"`, "app", (t) => taskEntitlementRef(t).appId === appId);
  if (named) return named;
  const ofApp = (x: { readonly appId: string }): boolean => x.appId === appId;
  const next = withLists(world, {
    apps: Object.freeze(world.apps.filter((a) => a.id !== appId)),
    entitlements: without(world.entitlements, ofApp),
    appUsers: without(world.appUsers, ofApp),
    groups: without(world.groups, ofApp),
    grants: without(world.grants, ofApp),
    resourceTypeDefaults: without(world.resourceTypeDefaults, ofApp),
    ...(world.entitlementConfigurationRules ? { entitlementConfigurationRules: without(world.entitlementConfigurationRules, ofApp) } : {}),
  });
  return ok({ world: next, body: {} });
}

/**
 * `DELETE /api/v1/apps/{app_id}/entitlements/{id}` (`AppEntitlements.Delete`): removes the
 * entitlement and its grants → `{}`.
 *
 * @example
 * ```ts
 * const r = deleteEntitlement(world, admin, "app-aws", "ent-000043");
 * if (r.ok) store.set(r.value.world);
 * ```
 */
export function deleteEntitlement(world: World, caller: User, appId: string, id: string): Result<DirectoryWrite, HttpFailure> {
  const app = managedApp(world, caller, appId);
  if (!app.ok) return app;
  if (!findEntitlement(world, appId, id)) return notFound(`entitlement "${id}" of app "${appId}" not found`);
  const named = namedByTasks(world, `entitlement "${id}" of app "${appId}"`, "entitlement", (t) => {
    const ref = taskEntitlementRef(t);
    return ref.appId === appId && ref.entitlementId === id;
  });
  if (named) return named;
  const key = entitlementKey(appId, id);
  const next = withLists(world, {
    entitlements: Object.freeze(world.entitlements.filter((e) => entitlementKey(e.appId, e.id) !== key)),
    grants: without(world.grants, (g) => g.appId === appId && g.appEntitlementId === id),
  });
  return ok({ world: next, body: {} });
}
