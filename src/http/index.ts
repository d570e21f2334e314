/**
 * `policy-sim/http`: the task actions over HTTP. A WHATWG fetch handler for any runtime, a
 * `node:http` server around it, and the store holding the world they serve.
 *
 * @example
 * ```ts
 * import { loadWorld } from "policy-sim";
 * import { serve } from "policy-sim/http";
 * const loaded = loadWorld(JSON.parse(readFileSync("fixtures/world.json", "utf8")));
 * if (loaded.ok) console.log((await serve({ world: loaded.value, port: 8080 })).url);
 * ```
 * @packageDocumentation
 */
export {
  BAD_REQUEST_TYPE,
  ERROR_DOMAIN,
  ERROR_INFO_TYPE,
  errorBodyOf,
  failureOf,
  GRPC_CODES,
  GRPC_HTTP_STATUS,
  refusal,
} from "./error-body.js";
export type { BadRequestDetail, ErrorBody, ErrorDetail, ErrorInfoDetail, GrpcCodeName, HttpFailure } from "./error-body.js";
export { createFetchHandler, systemClock } from "./fetch-handler.js";
export type { FetchHandler, FetchHandlerOptions } from "./fetch-handler.js";
export { createDispatcher } from "./dispatch.js";
export type { Dispatch, DispatchOptions, IncomingCall, Reply } from "./dispatch.js";
export { clampPageSize, DEFAULT_PAGE_LIMITS, pageFromBody, pageFromQuery, pageOf } from "./paging.js";
export type { Page, PageLimits, PageRequest } from "./paging.js";
export { DEFAULT_MAX_BODY_BYTES } from "./read-body.js";
export { parseRequestTarget } from "./request-target.js";
export type { RequestTarget } from "./request-target.js";
export { routeTable } from "./route.js";
export type { BodyKind, HttpMethod, Operation, ReadOperation, ReplyOperation, Route, RouteInput, RouteMatch, RouteTable, ServerContext, WriteOperation } from "./route.js";
export { ROUTES } from "./routes/index.js";
export { TASK_ACTION_ROUTES } from "./routes/task-actions.js";
export { TASK_CREATION_ROUTES } from "./routes/task-creation.js";
export { dispatchListener, nodeListener, serve } from "./server.js";
export type { RunningServer, ServeOptions, TlsFiles } from "./server.js";
export { CLIENT_SECRET_PREFIX, createApiClient, formatClientSecret, parseClientSecret } from "./auth/client-secret.js";
export type { Ed25519PrivateJwk, NewApiClient } from "./auth/client-secret.js";
export { ACCESS_TOKEN_PREFIX, authenticateClient, createAccessTokenIssuer, DEFAULT_TOKEN_TTL_SECONDS, JWT_BEARER_ASSERTION } from "./auth/token.js";
export type { AccessTokenIssuer, AccessTokenIssuerOptions, ClientAuthOptions, OAuthError, OAuthErrorCode, TokenPrincipal, TokenResponse } from "./auth/token.js";
export { AUTH_ROUTES } from "./routes/auth.js";
export { POLICY_WRITE_ROUTES } from "./routes/policies.js";
export { DIRECTORY_ROUTES, POLICY_READ_ROUTES, TASK_READ_ROUTES } from "./routes/reads-routes.js";
export { createWorldStore } from "./world-store.js";
export type { MemoryWorldStore, WorldChange, WorldStore, WorldStoreOptions } from "./world-store.js";
