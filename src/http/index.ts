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
export type { BodyKind, HttpMethod, Operation, ReadOperation, Route, RouteInput, RouteMatch, RouteTable, WriteOperation } from "./route.js";
export { ROUTES } from "./routes/index.js";
export { TASK_ACTION_ROUTES } from "./routes/task-actions.js";
export { dispatchListener, nodeListener, serve } from "./server.js";
export type { RunningServer, ServeOptions } from "./server.js";
export { createWorldStore } from "./world-store.js";
export type { MemoryWorldStore, WorldChange, WorldStore, WorldStoreOptions } from "./world-store.js";
