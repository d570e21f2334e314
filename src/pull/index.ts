/**
 * `policy-sim/pull`: export a tenant through the service's API into a world document — the adapter
 * behind `policy-sim pull`, for a service that pulls in-process with its own `fetch`. Kept out of
 * the main entry: it does I/O (through the `fetch` it is given) and signs with `node:crypto`.
 *
 * @example
 * ```ts
 * import { pullWorld } from "policy-sim/pull";
 * import { loadWorld } from "policy-sim";
 * const r = await pullWorld({ baseUrl: "https://acme.conductor.one", fetch, credentials: { kind: "token", token } });
 * if (r.ok) console.log(loadWorld(r.value.world, { strict: false }).ok, r.value.warnings);
 * ```
 * @packageDocumentation
 */
export {
  createApiClient,
  DEFAULT_MAX_LISTING_ITEMS,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_TOTAL_BYTES,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_TIMEOUT_RETRIES,
  notFoundOf,
} from "./api-client.js";
export type { ApiClient, ApiClientOptions, Listing, Page, PullError, RetryInfo } from "./api-client.js";
export { CLIENT_SECRET_PREFIX, clientAssertion, CREDENTIAL_VARIABLES, credentialsFromEnv, privateKeyOfSecret } from "./credentials.js";
export type { PullCredentials } from "./credentials.js";
export { pullWorld } from "./pull-world.js";
export type { PullOptions, PullProgress, PullResult, PullWarning } from "./pull-world.js";
