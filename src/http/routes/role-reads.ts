/**
 * The tenant's roles (`c1.api.iam.v1.Roles`): the world's `roles`, each one of the service's
 * built-in roles (its `kind`), which users hold by id (`roleIds`).
 */
import type { Role } from "../../model/directory.js";
import type { JsonObject } from "../../model/json.js";
import { err, ok, type Result } from "../../result.js";
import type { World } from "../../world/world.js";
import type { HttpFailure } from "../error-body.js";
import type { PageRequest } from "../paging.js";
import { listBody } from "./reads.js";

type Read = Result<JsonObject, HttpFailure>;

/**
 * A role as the API's `c1.api.iam.v1.Role`. The world knows its id, display name and which
 * built-in role it is; that kind is written as its internal `name`, and it is `systemBuiltin`. The
 * world holds no permission lists nor times, so those are empty and null (README "Assumptions").
 *
 * @example
 * ```ts
 * roleWire({ id: "r-super-admin", displayName: "Super Administrator", kind: "SUPER_ADMIN" }).name; // "SUPER_ADMIN"
 * ```
 */
export function roleWire(r: Role): JsonObject {
  return {
    id: r.id,
    displayName: r.displayName,
    name: r.kind,
    permissions: [],
    serviceRoles: [],
    systemBuiltin: true,
    systemApiOnly: false,
    createdAt: null,
    updatedAt: null,
    deletedAt: null,
  };
}

/**
 * `GET /api/v1/iam/roles` (`Roles.List`): every role of the world, in world order, paged.
 *
 * @example
 * ```ts
 * listRoles(world, page); // ok({ list: [{ id: "r-super-admin", … }], nextPageToken: "" })
 * ```
 */
export function listRoles(world: World, page: PageRequest): Read {
  return ok(listBody(world.roles.map(roleWire), page));
}

/**
 * `GET /api/v1/iam/roles/{role_id}` (`Roles.Get`).
 *
 * @example
 * ```ts
 * getRole(world, "r-super-admin"); // ok({ role: { id: "r-super-admin", … } })
 * ```
 */
export function getRole(world: World, roleId: string): Read {
  const r = world.index.roles.get(roleId);
  return r ? ok({ role: roleWire(r) }) : err({ status: 404, code: "NOT_FOUND", reason: "NOT_FOUND", message: `role "${roleId}" not found` });
}
