/**
 * The policies service's writes (`c1.api.policy.v1.Policies.Create`, `Update`, `Delete`) and CEL
 * validation (`PolicyValidate.ValidateCEL`), bound to their OpenAPI paths. A write runs under the
 * store's lock like a task action, so a later Hard Reset or new task sees the edited policy.
 */
import { ok, type Result } from "../../result.js";
import type { World } from "../../world/world.js";
import type { HttpFailure } from "../error-body.js";
import type { Operation, Route, RouteInput } from "../route.js";
import { createPolicy, deletePolicy, type PolicyWrite, updatePolicy, validateCel } from "./policy-edits.js";
import { callerOf } from "./reads-routes.js";
import type { User } from "../../model/directory.js";

function write(edit: (world: World, caller: User, now: string) => Result<PolicyWrite, HttpFailure>): Result<Operation, HttpFailure> {
  return ok({
    kind: "write",
    apply: (world, ctx) => {
      const caller = callerOf(world, ctx.actorId);
      if (!caller.ok) return caller;
      const r = edit(world, caller.value, ctx.now ?? world.now);
      return r.ok ? ok({ world: r.value.world, response: r.value.body, events: [] }) : r;
    },
  });
}

const id = (input: RouteInput) => input.params["id"] ?? "";

/**
 * Create, update, delete and validate-CEL routes of the policies service.
 *
 * @example
 * ```ts
 * POLICY_WRITE_ROUTES.map((r) => `${r.method} ${r.path}`);
 * ```
 */
export const POLICY_WRITE_ROUTES: readonly Route[] = [
  {
    method: "POST",
    path: "/api/v1/policies",
    operationId: "c1.api.policy.v1.Policies.Create",
    body: "json",
    handle: (input) => write((w, c, now) => createPolicy(w, c, input.body, now)),
  },
  {
    method: "POST",
    path: "/api/v1/policies/{id}",
    operationId: "c1.api.policy.v1.Policies.Update",
    body: "json",
    handle: (input) => write((w, c, now) => updatePolicy(w, c, id(input), input.body, now)),
  },
  {
    method: "DELETE",
    path: "/api/v1/policies/{id}",
    operationId: "c1.api.policy.v1.Policies.Delete",
    body: "none",
    handle: (input) => write((w, c) => deletePolicy(w, c, id(input))),
  },
  {
    method: "POST",
    path: "/api/v1/policies/validate/cel",
    operationId: "c1.api.policy.v1.PolicyValidate.ValidateCEL",
    body: "json",
    handle: (input) => ok({ kind: "read", read: () => validateCel(input.body) }),
  },
];
