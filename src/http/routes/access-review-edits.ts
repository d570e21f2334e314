/**
 * Campaign writes (`c1.api.accessreview.v1.AccessReviewService` Create and Update): the world's
 * `accessReviews` hold a campaign's name, review policy, policy override and (sim) owners, which
 * decide how its certify tasks resolve their policy and who reviews when a step finds nobody
 * (product_admin_manage-campaigns.mdx). Fields the world does not model (scope, schedule,
 * notifications, description) are refused when set, not dropped (README "Assumptions").
 *
 * Who may: Super Administrators, and Campaign Administrators (create; manage the campaigns they
 * own) (product_admin_user-roles.mdx; `mayManageCampaign`).
 */
import { certifyReviewId } from "../../model/task-refs.js";
import type { AccessReview, User } from "../../model/directory.js";
import type { JsonObject } from "../../model/json.js";
import { mayManageCampaign, rolesOf } from "../../reducers/permissions.js";
import { err, ok, type Result } from "../../result.js";
import { encodeAccessReview } from "../../world/encode-directory.js";
import { buildIndex, takeIds, type World } from "../../world/world.js";
import type { HttpFailure } from "../error-body.js";
import { namedByTasks } from "./directory-deletes.js";
import { invalid } from "./refuse.js";

type Body = Readonly<Record<string, unknown>>;

/**
 * A successful campaign write: the next world and the 200 body (`{accessReview, expanded}`).
 *
 * @example
 * ```ts
 * const r = createAccessReview(world, admin, { displayName: "Q1", policyId: "pol-certify-default" });
 * if (r.ok) store.set(r.value.world);
 * ```
 */
export interface AccessReviewWrite {
  readonly world: World;
  readonly body: JsonObject;
}

const denied = (caller: User, what: string) =>
  err<HttpFailure>({ status: 403, code: "PERMISSION_DENIED", reason: "PERMISSION_DENIED", message: `user "${caller.id}" may not ${what} (Super Administrators, or Campaign Administrators${what.startsWith("create") ? "" : " who own it"})` });

/** Create-request fields the world does not model: set (non-empty), they are refused. */
const UNMODELLED_ON_CREATE = ["description", "duplicateFrom", "completionDate", "notificationConfig", "scopeV2"] as const;

const isSet = (v: unknown) =>
  v !== undefined && v !== null && v !== "" && v !== false && !(Array.isArray(v) && v.length === 0) && !(typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0);

function view(r: AccessReview): JsonObject {
  return { accessReview: { accessReview: encodeAccessReview(r), createdByUserPath: "", policyPath: "", objectPermissions: null }, expanded: [] };
}

function withReview(world: World, review: AccessReview): World {
  const exists = world.accessReviews.some((r) => r.id === review.id);
  const accessReviews = Object.freeze(exists ? world.accessReviews.map((r) => (r.id === review.id ? review : r)) : [...world.accessReviews, review]);
  const next = { ...world, accessReviews };
  return Object.freeze({ ...next, index: buildIndex(next) });
}

function policyOf(world: World, v: unknown, field: string): Result<string, HttpFailure> {
  if (v === undefined || v === null) return ok("");
  if (typeof v !== "string") return invalid(field, `${field} must be a string`);
  if (v !== "" && !world.index.policies.has(v)) return invalid(field, `${field} names policy "${v}", which does not exist`);
  return ok(v);
}

function ownersOf(world: World, v: unknown, field: string): Result<readonly string[] | undefined, HttpFailure> {
  if (v === undefined || v === null) return ok(undefined);
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) return invalid(field, `${field} must be an array of user ids`);
  const unknown = (v as string[]).filter((id) => !world.index.users.has(id));
  if (unknown.length > 0) return err({ status: 404, code: "NOT_FOUND", reason: "NOT_FOUND", message: `${field}: user ${unknown.map((id) => `"${id}"`).join(", ")} not found` });
  return ok([...new Set(v as string[])]);
}

/**
 * `POST /api/v1/access_review`: a new campaign with `displayName`, `policyId` and `ownerIds`.
 *
 * @example
 * ```ts
 * createAccessReview(world, admin, { displayName: "Q1 2027", policyId: "pol-certify-default", ownerIds: ["u-hr-dir"] });
 * ```
 */
export function createAccessReview(world: World, caller: User, body: Body): Result<AccessReviewWrite, HttpFailure> {
  if (!mayManageCampaign(rolesOf(world, caller), caller.id, undefined)) return denied(caller, "create campaigns");
  for (const k of UNMODELLED_ON_CREATE) if (isSet(body[k])) return invalid(k, `${k} is not modelled by the simulation: leave it unset`);
  const scope = body["scopeType"];
  if (isSet(scope) && scope !== "ACCESS_REVIEW_SCOPE_TYPE_UNSPECIFIED") return invalid("scopeType", "campaign scopes are not modelled by the simulation: leave scopeType unset");
  const name = body["displayName"];
  if (name !== undefined && name !== null && typeof name !== "string") return invalid("displayName", "displayName must be a string");
  const policy = policyOf(world, body["policyId"], "policyId");
  if (!policy.ok) return policy;
  const owners = ownersOf(world, body["ownerIds"], "ownerIds");
  if (!owners.ok) return owners;
  const { ids, seq } = takeIds(world, "ar", 1);
  const review: AccessReview = {
    id: ids[0] ?? "",
    displayName: typeof name === "string" ? name : "",
    policyId: policy.value,
    usePolicyOverride: false,
    ...(owners.value ? { ownerUserIds: owners.value } : {}),
  };
  return ok({ world: { ...withReview(world, review), seq }, body: view(review) });
}

const UPDATABLE = ["displayName", "policyId", "usePolicyOverride"] as const;

/**
 * `POST /api/v1/access_review/{id}`: `{accessReview, updateMask}`; the mask (comma-separated,
 * camelCase or snake_case) names `displayName`, `policyId` or `usePolicyOverride`; without one,
 * those the object sets.
 *
 * @example
 * ```ts
 * updateAccessReview(world, admin, "ar-2026-q3", { accessReview: { policyId: "pol-certify-critical" }, updateMask: "policyId" });
 * ```
 */
export function updateAccessReview(world: World, caller: User, id: string, body: Body): Result<AccessReviewWrite, HttpFailure> {
  const current = world.index.accessReviews.get(id);
  if (!current) return err({ status: 404, code: "NOT_FOUND", reason: "NOT_FOUND", message: `access review "${id}" not found` });
  if (!mayManageCampaign(rolesOf(world, caller), caller.id, current)) return denied(caller, `manage campaign "${id}"`);
  const patch = body["accessReview"];
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) return invalid("accessReview", "accessReview is required: the fields to write");
  const p = patch as Body;
  const mask = body["updateMask"];
  let paths: string[];
  if (mask === undefined || mask === null || mask === "") paths = UPDATABLE.filter((k) => p[k] !== undefined);
  else if (typeof mask === "string") paths = mask.split(",").map((s) => s.trim().replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())).filter((s) => s !== "");
  else return invalid("updateMask", 'updateMask must be a field mask such as "policyId,displayName"');
  let next: AccessReview = current;
  for (const k of paths) {
    if (k === "displayName") {
      const v = p[k];
      if (v !== undefined && v !== null && typeof v !== "string") return invalid("accessReview.displayName", "accessReview.displayName must be a string");
      next = { ...next, displayName: typeof v === "string" ? v : "" };
    } else if (k === "policyId") {
      const v = policyOf(world, p[k], "accessReview.policyId");
      if (!v.ok) return v;
      next = { ...next, policyId: v.value };
    } else if (k === "usePolicyOverride") {
      const v = p[k];
      if (v !== undefined && v !== null && typeof v !== "boolean") return invalid("accessReview.usePolicyOverride", "accessReview.usePolicyOverride must be true or false");
      next = { ...next, usePolicyOverride: v === true };
    } else return invalid("updateMask", `updateMask names "${k}", which is not a writable campaign field here (${UPDATABLE.join(", ")})`);
  }
  return ok({ world: withReview(world, next), body: view(next) });
}

/**
 * `DELETE /api/v1/access_review/{id}` (`AccessReviewService.Delete`, Terraform's access review
 * destroy) → `{}`. The service moves the campaign and its dependent objects to a deleted state; the
 * world does not model a campaign's lifecycle, so a campaign no task names is removed, and one its
 * certify tasks name is refused (`FAILED_PRECONDITION`): the simulation keeps every task, and a
 * world whose tasks name a missing campaign does not load. Who may: as for updates.
 *
 * @example
 * ```ts
 * const r = deleteAccessReview(world, admin, "ar-000061");
 * if (r.ok) store.set(r.value.world); // r.value.body is {}
 * ```
 */
export function deleteAccessReview(world: World, caller: User, id: string): Result<AccessReviewWrite, HttpFailure> {
  const current = world.index.accessReviews.get(id);
  if (!current) return err({ status: 404, code: "NOT_FOUND", reason: "NOT_FOUND", message: `access review "${id}" not found` });
  if (!mayManageCampaign(rolesOf(world, caller), caller.id, current)) return denied(caller, `manage campaign "${id}"`);
  const named = namedByTasks(world, `access review "${id}"`, "campaign", (t) => t.type?.kind === "certify" && certifyReviewId(t.type) === id);
  if (named) return named;
  const next = { ...world, accessReviews: Object.freeze(world.accessReviews.filter((r) => r.id !== id)) };
  return ok({ world: Object.freeze({ ...next, index: buildIndex(next, world) }), body: {} });
}
