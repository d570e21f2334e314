/**
 * The HTTP face as a WHATWG fetch handler, `(Request) => Promise<Response>`: it runs in tests
 * without a socket, or under any runtime that speaks fetch. A thin adapter over the dispatcher
 * (`dispatch.ts`): the route table, authentication, body decoding and the reducers live there.
 */
import { ok } from "../result.js";
import { createDispatcher, type DispatchOptions, type IncomingCall } from "./dispatch.js";
import { readLimited } from "./read-body.js";
import type { WorldStore } from "./world-store.js";

/**
 * A WHATWG fetch handler. It never rejects: every failure is a JSON error response.
 *
 * @example
 * ```ts
 * const handler: FetchHandler = createFetchHandler(createWorldStore(world));
 * const res = await handler(new Request("http://sim/api/v1/tasks/1001/action/comment", {
 *   method: "POST", headers: { authorization: "Bearer tok-super" }, body: JSON.stringify({ comment: "hi" }) }));
 * ```
 */
export type FetchHandler = (request: Request) => Promise<Response>;

/**
 * Options of {@link createFetchHandler}: the body limit, the clock, the routes (see `DispatchOptions`).
 *
 * @example
 * ```ts
 * const options: FetchHandlerOptions = { maxBodyBytes: 64 * 1024, clock: systemClock };
 * ```
 */
export type FetchHandlerOptions = DispatchOptions;

/**
 * The wall clock, as an RFC 3339 UTC timestamp: the `clock` for a server that should stamp actions
 * with real time instead of the world file's `now`.
 *
 * @example
 * ```ts
 * const handler = createFetchHandler(store, { clock: systemClock });
 * ```
 */
export function systemClock(): string {
  return new Date().toISOString();
}

/**
 * A web Request as the dispatcher's call. Runtimes parse `request.url` with the WHATWG URL parser,
 * which already resolved dot segments and backslashes; the dispatcher checks what is left.
 */
function callOf(request: Request): IncomingCall {
  const url = new URL(request.url);
  return {
    method: request.method,
    target: url.pathname + url.search,
    header: (name) => request.headers.get(name) ?? undefined,
    readBody: (limit) => (request.body === null ? Promise.resolve(ok(new Uint8Array(0))) : readLimited(request, limit)),
  };
}

/**
 * Creates the fetch handler serving every route of the HTTP face (src/http/README.md lists them:
 * the task actions, task creation, ...) against the world in `store`.
 *
 * - `task_id` is the task's id or numericId, percent-decoded once.
 * - `Authorization: Bearer <token>` names the caller through the world's `tokens` map.
 * - The body is the operation's request body in the OpenAPI; empty means `{}`; unknown fields are ignored.
 * - 200 bodies are the reducers' wire JSON; each success replaces the store's world, one action at
 *   a time, and hands the store the action's audit events.
 * - Errors are grpc-gateway bodies `{code, message, details}` (numeric gRPC code) with the status
 *   of that code: 400 bad body or argument, 401 no or unknown token, 403 not allowed, 404 unknown
 *   task or route, 405 (+`Allow`) wrong method, 413 body over `maxBodyBytes`, 415 not JSON.
 *
 * @example
 * ```ts
 * const store = createWorldStore(world);
 * const handler = createFetchHandler(store);
 * const res = await handler(new Request("http://sim/api/v1/tasks/1001/action/reset", {
 *   method: "POST",
 *   headers: { authorization: "Bearer tok-super", "content-type": "application/json" },
 *   body: JSON.stringify({ comment: "policy changed", expandMask: { paths: ["step_approver_ids"] } }),
 * }));
 * res.status; // 200, and store.get() is the world after the reset
 * ```
 */
export function createFetchHandler(store: WorldStore, options: FetchHandlerOptions = {}): FetchHandler {
  const dispatch = createDispatcher(store, options);
  return async (request) => {
    const reply = await dispatch(callOf(request));
    return new Response(reply.body, { status: reply.status, headers: { ...reply.headers, "content-length": String(reply.body.byteLength) } });
  };
}
