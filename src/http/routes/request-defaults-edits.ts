/**
 * Access-request defaults writes (`c1.api.app.v1.AppAccessRequestsDefaultsService` Create and
 * Cancel; product_admin_access-requests.mdx): Create replaces the app's defaults in the world's
 * `resourceTypeDefaults`, so later requests for entitlements of those resource types resolve its
 * request policy; `defaultsEnabled: false` removes them (the world holds enabled defaults only).
 * The simulation applies defaults at once, so there is never an apply to cancel: Cancel answers the
 * defaults as they are. Request schemas and catalogs are not modelled: a non-empty
 * `requestSchemaId` or `catalogIds` is refused rather than dropped (README "Assumptions").
 */
import type { ResourceTypeDefault, User } from "../../model/directory.js";
import type { JsonObject } from "../../model/json.js";
import { ok, type Result } from "../../result.js";
import { buildIndex, type World } from "../../world/world.js";
import type { HttpFailure } from "../error-body.js";
import { managedApp } from "./managed-app.js";
import { getAccessRequestDefaults } from "./reads.js";
import { invalid } from "./refuse.js";

type Body = Readonly<Record<string, unknown>>;

/**
 * A successful write: the next world and the 200 body (the app's AppAccessRequestDefaults).
 *
 * @example
 * ```ts
 * const r = setAccessRequestDefaults(world, admin, "app-github", { defaultsEnabled: true, resourceTypeIds: ["rt-repo"], requestPolicyId: "pol-gh-repo-access" });
 * if (r.ok) store.set(r.value.world);
 * ```
 */
export interface RequestDefaultsWrite {
  readonly world: World;
  readonly body: JsonObject;
}



function text(body: Body, key: string): Result<string, HttpFailure> {
  const v = body[key];
  if (v === undefined || v === null) return ok("");
  return typeof v === "string" ? ok(v) : invalid(key, `${key} must be a string`);
}

function policyId(world: World, body: Body, key: string): Result<string, HttpFailure> {
  const id = text(body, key);
  if (!id.ok || id.value === "" || world.index.policies.has(id.value)) return id;
  return invalid(key, `${key} names policy "${id.value}", which does not exist`);
}

function list(body: Body, key: string): Result<readonly string[], HttpFailure> {
  const v = body[key];
  if (v === undefined || v === null) return ok([]);
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) return invalid(key, `${key} must be an array of strings`);
  return ok(v as string[]);
}

const DURATION = /^\d{1,12}(\.\d{1,9})?s$/;

/**
 * `POST /api/v1/apps/{app_id}/access_request_defaults`: creates or replaces the app's defaults.
 *
 * @example
 * ```ts
 * setAccessRequestDefaults(world, admin, "app-github", { defaultsEnabled: true, resourceTypeIds: ["rt-repo"], requestPolicyId: "pol-gh-repo-access", durationGrant: "86400s" });
 * ```
 */
export function setAccessRequestDefaults(world: World, caller: User, appId: string, body: Body): Result<RequestDefaultsWrite, HttpFailure> {
  const app = managedApp(world, caller, appId);
  if (!app.ok) return app;
  for (const [k, v] of Object.entries({ defaultsEnabled: body["defaultsEnabled"], emergencyGrantEnabled: body["emergencyGrantEnabled"] }))
    if (v !== undefined && v !== null && typeof v !== "boolean") return invalid(k, `${k} must be true or false`);
  const types = list(body, "resourceTypeIds");
  if (!types.ok) return types;
  const request = policyId(world, body, "requestPolicyId");
  if (!request.ok) return request;
  const emergency = policyId(world, body, "emergencyGrantPolicyId");
  if (!emergency.ok) return emergency;
  const schema = text(body, "requestSchemaId");
  if (!schema.ok) return schema;
  if (schema.value !== "") return invalid("requestSchemaId", "request schemas are not modelled by the simulation: send an empty requestSchemaId");
  const catalogs = list(body, "catalogIds");
  if (!catalogs.ok) return catalogs;
  if (catalogs.value.length > 0) return invalid("catalogIds", "request catalogs are not modelled by the simulation: send no catalogIds");
  const duration = body["durationGrant"];
  if (duration !== undefined && duration !== null && (typeof duration !== "string" || !DURATION.test(duration)))
    return invalid("durationGrant", 'durationGrant must be a protobuf duration such as "86400s"');

  const others = world.resourceTypeDefaults.filter((d) => d.appId !== appId);
  const enabled = body["defaultsEnabled"] === true;
  const mine: ResourceTypeDefault[] = enabled
    ? [
        {
          appId,
          resourceTypeIds: [...types.value],
          requestPolicyId: request.value,
          emergencyGrantEnabled: body["emergencyGrantEnabled"] === true,
          emergencyGrantPolicyId: emergency.value,
          maxGrantDuration: typeof duration === "string" ? duration : null,
        },
      ]
    : [];
  const next = { ...world, resourceTypeDefaults: Object.freeze([...others, ...mine]) };
  const after: World = Object.freeze({ ...next, index: buildIndex(next) });
  const answer = getAccessRequestDefaults(after, appId);
  return answer.ok ? ok({ world: after, body: answer.value }) : answer;
}

/**
 * `POST /api/v1/apps/{app_id}/access_request_defaults/cancel`: nothing is ever being applied here,
 * so the world is unchanged and the answer is the app's defaults.
 *
 * @example
 * ```ts
 * cancelAccessRequestDefaults(world, admin, "app-github"); // ok({ world, body: { appId: "app-github", … } })
 * ```
 */
export function cancelAccessRequestDefaults(world: World, caller: User, appId: string): Result<RequestDefaultsWrite, HttpFailure> {
  const app = managedApp(world, caller, appId);
  if (!app.ok) return app;
  const answer = getAccessRequestDefaults(world, appId);
  return answer.ok ? ok({ world, body: answer.value }) : answer;
}
