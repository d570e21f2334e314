/**
 * `POST /api/v1/users/{user_id}/set-delegation-by-admin` (`c1.api.user.v1.UserService.
 * SetExpiringUserDelegationBindingByAdmin`): an administrator sets or removes a user's delegate and
 * its window (product_admin_delegate.mdx). The world keeps the delegate on the user
 * (`delegatedUserId`) and the window in the fields `workflow/delegation.ts` reads, so tasks created
 * afterwards inside the window go to the delegate.
 *
 * Who may: Super Administrators (product_admin_user-roles.mdx: "Users: View, manage" for Super
 * Administrators only). A delegation set without `delegationStartAt`, or with one in the past,
 * starts at the time of the request: "Delegation applies only to tasks created after the delegate
 * is set", and "C1 cannot retroactively reassign tasks to your delegate if you set a start date in
 * the past" (product_admin_delegate.mdx).
 */
import type { User } from "../../model/directory.js";
import type { JsonObject } from "../../model/json.js";
import { rolesOf } from "../../reducers/permissions.js";
import { err, ok, type Result } from "../../result.js";
import { DELEGATION_EXPIRE_FIELD, DELEGATION_START_FIELD } from "../../workflow/delegation.js";
import { replaceInWorld, type World } from "../../world/world.js";
import type { HttpFailure } from "../error-body.js";
import { invalid, notFound } from "./refuse.js";
import { isRealTimestamp, utcTimestamp } from "../../codec/schema.js";

type Body = Readonly<Record<string, unknown>>;

/**
 * A successful delegation edit: the next world and the 200 body (`{item}`).
 *
 * @example
 * ```ts
 * const r = setDelegationByAdmin(world, caller, "u-eng-mgr", { delegatedUserId: "u-sre-lead" }, world.now);
 * if (r.ok) store.set(r.value.world);
 * ```
 */
export interface DelegationWrite {
  readonly world: World;
  readonly body: JsonObject;
}



function timestamp(body: Body, key: string): Result<string | null, HttpFailure> {
  const v = body[key];
  if (v === undefined || v === null || v === "") return ok(null);
  if (!isRealTimestamp(v)) return invalid(key, `${key} must be an RFC 3339 timestamp such as "2026-11-22T09:00:00Z"`);
  // In UTC with an upper-case T and Z, as protojson writes a Timestamp (the Go SDK sends its local
  // offset): the instant is the same.
  return ok(utcTimestamp(v));
}

/**
 * Sets (or, with an empty `delegatedUserId`, removes) `userId`'s delegate, from `delegationStartAt`
 * (default `now`) until `delegationExpireAt` (default: no end).
 *
 * @example
 * ```ts
 * setDelegationByAdmin(world, caller, "u-eng-mgr", { delegatedUserId: "u-sre-lead", delegationExpireAt: "2026-12-01T00:00:00Z" }, world.now);
 * ```
 */
export function setDelegationByAdmin(world: World, caller: User, userId: string, body: Body, now: string): Result<DelegationWrite, HttpFailure> {
  if (!rolesOf(world, caller).includes("SUPER_ADMIN"))
    return err({ status: 403, code: "PERMISSION_DENIED", reason: "PERMISSION_DENIED", message: `user "${caller.id}" may not manage users' delegation (Super Administrators only)` });
  const user = world.index.users.get(userId);
  if (!user) return notFound(`user "${userId}" not found`);
  const delegate = body["delegatedUserId"];
  if (delegate !== undefined && delegate !== null && typeof delegate !== "string") return invalid("delegatedUserId", "delegatedUserId must be a string");
  const delegateId = typeof delegate === "string" ? delegate : "";
  const start = timestamp(body, "delegationStartAt");
  if (!start.ok) return start;
  const expire = timestamp(body, "delegationExpireAt");
  if (!expire.ok) return expire;

  const { [DELEGATION_START_FIELD]: _start, [DELEGATION_EXPIRE_FIELD]: _expire, ...rest } = user.$unknown ?? {};
  if (delegateId === "") {
    const cleared: User = { ...user, delegatedUserId: "", $unknown: rest };
    return ok({ world: replaceInWorld(world, { users: [cleared] }), body: { item: null } });
  }
  if (delegateId === userId) return invalid("delegatedUserId", "a user cannot be their own delegate");
  if (!world.index.users.has(delegateId)) return notFound(`delegate "${delegateId}" not found`);
  // "C1 cannot retroactively reassign tasks to your delegate if you set a start date in the past"
  // (product_admin_delegate.mdx): a start before now takes effect now.
  const at = utcTimestamp(now);
  const startAt = start.value !== null && Date.parse(start.value) > Date.parse(at) ? start.value : at;
  if (expire.value !== null && Date.parse(expire.value) <= Date.parse(startAt))
    return invalid("delegationExpireAt", `delegationExpireAt (${expire.value}) must be after the start (${startAt})`);
  const window = { [DELEGATION_START_FIELD]: startAt, ...(expire.value === null ? {} : { [DELEGATION_EXPIRE_FIELD]: expire.value }) };
  const next: User = { ...user, delegatedUserId: delegateId, $unknown: { ...rest, ...window } };
  return ok({
    world: replaceInWorld(world, { users: [next] }),
    body: { item: { userId, delegatedUserId: delegateId, startAt, expirationAt: expire.value, createdAt: null, updatedAt: null, deletedAt: null } },
  });
}
