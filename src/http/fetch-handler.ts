/**
 * The HTTP face as a WHATWG fetch handler, `(Request) => Promise<Response>`: it runs in Node's
 * `serve()`, in tests without a socket, or under any runtime that speaks fetch. It routes the two
 * task actions of the spec, authenticates the bearer token against `world.tokens`, decodes the
 * body with the codec, runs the pure reducer and swaps the resulting world into the store.
 */
import { decodeCommentRequest, decodeHardResetRequest, type Diagnostic } from "../codec/index.js";
import type { TaskExpandMask } from "../model/task-view.js";
import type { JsonValue } from "../model/json.js";
import { comment, type Step } from "../reducers/comment.js";
import type { SimError } from "../reducers/errors.js";
import { hardReset } from "../reducers/hard-reset.js";
import type { ActionContext, ExpandMaskInput } from "../reducers/prelude.js";
import { err, fail, ok, type Result } from "../result.js";
import type { World } from "../world/world.js";
import { errorBodyOf, failureOf, type HttpFailure } from "./error-body.js";
import { DEFAULT_MAX_BODY_BYTES, readJsonObject } from "./read-body.js";
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
 * Options of {@link createFetchHandler}.
 *
 * @example
 * ```ts
 * const options: FetchHandlerOptions = { maxBodyBytes: 64 * 1024, clock: systemClock };
 * ```
 */
export interface FetchHandlerOptions {
  /** Largest accepted request body in bytes; larger is 413. Default {@link DEFAULT_MAX_BODY_BYTES} (1 MiB). */
  readonly maxBodyBytes?: number;
  /**
   * The time each action happens at, as an RFC 3339 timestamp. Default: none, so the reducers use
   * the world's own `now` and a run is reproducible. Pass {@link systemClock} for a live server.
   */
  readonly clock?: () => string;
}

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

/** The two routes, `POST /api/v1/tasks/{task_id}/action/{reset|comment}`; nothing else is served. */
const ROUTE = /^\/api\/v1\/tasks\/([^/]+)\/action\/(reset|comment)$/;
type ActionName = "reset" | "comment";

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** A decoded request, waiting for the world it will run against. */
type Action = (world: World, ctx: ActionContext) => Result<Step<JsonValue>, SimError>;

/**
 * One lock per store, shared by every handler over it: a promise chain, each action starting when
 * the previous one settled. Reducers and `set` are synchronous today, so get-reduce-set cannot
 * interleave anyway; the chain keeps "no update is lost" true for stores whose hooks do more, and
 * states the guarantee in code instead of leaving it to the event loop.
 */
const tails = new WeakMap<WorldStore, Promise<unknown>>();

function exclusive<T>(store: WorldStore, work: () => T): Promise<T> {
  const run = (tails.get(store) ?? Promise.resolve()).then(work);
  // The next action waits for this one to settle, fulfilled or not.
  tails.set(store, run.catch(() => undefined));
  return run;
}

function jsonResponse(status: number, body: unknown, headers: Readonly<Record<string, string>>): Response {
  const bytes = new TextEncoder().encode(JSON.stringify(body));
  return new Response(bytes, {
    status,
    headers: { ...headers, "content-type": "application/json", "content-length": String(bytes.byteLength), "cache-control": "no-store" },
  });
}

function failureResponse(failure: HttpFailure, headers: Readonly<Record<string, string>>): Response {
  return jsonResponse(failure.status, errorBodyOf(failure), { ...headers, ...failure.headers });
}

const refused = (status: number, code: HttpFailure["code"], reason: string, message: string, extra: Partial<HttpFailure> = {}) =>
  err<HttpFailure>({ status, code, reason, message, ...extra });

/** Echoed so a caller can match a response to its request in logs; only a sane-looking id. */
function requestIdHeaders(request: Request): Record<string, string> {
  const id = request.headers.get("x-request-id");
  return id !== null && /^[\x21-\x7e]{1,200}$/.test(id) ? { "x-request-id": id } : {};
}

/** The user behind `Authorization: Bearer <token>`, through `world.tokens`. */
function authenticate(request: Request, world: World): Result<string, HttpFailure> {
  const header = request.headers.get("authorization");
  // RFC 6750 §3: no credentials at all gets a bare challenge; bad ones say which error.
  if (header === null || header.trim() === "")
    return refused(401, "UNAUTHENTICATED", "MISSING_CREDENTIALS", "missing Authorization header: send \"Authorization: Bearer <token>\"", {
      headers: { "www-authenticate": "Bearer" },
    });
  const match = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  const token = match?.[1];
  if (token === undefined)
    return refused(401, "UNAUTHENTICATED", "MALFORMED_CREDENTIALS", "malformed Authorization header: expected \"Bearer <token>\"", {
      headers: { "www-authenticate": 'Bearer error="invalid_request"' },
    });
  // Own properties only: a token such as "constructor" must not find Object.prototype.
  const userId = Object.hasOwn(world.tokens, token) ? world.tokens[token] : undefined;
  if (userId === undefined)
    return refused(401, "UNAUTHENTICATED", "INVALID_TOKEN", "unknown bearer token", {
      headers: { "www-authenticate": 'Bearer error="invalid_token"' },
    });
  return ok(userId);
}

function decodeFailure(diagnostics: readonly Diagnostic[]): HttpFailure {
  const first = diagnostics[0];
  const field = first ? first.path.replace(/^\$\.?/, "") : "";
  const message = first ? `invalid request body at ${first.path}: ${first.message}` : "invalid request body";
  return { status: 400, code: "INVALID_ARGUMENT", reason: "INVALID_ARGUMENT", message, ...(field !== "" ? { field } : {}) };
}

const maskOf = (m: TaskExpandMask | null): ExpandMaskInput | null => (m === null ? null : { paths: m.paths });

/** Decodes the body of `name` into the reducer call it asks for. Unknown body fields are tolerated. */
function actionOf(name: ActionName, taskId: string, body: Readonly<Record<string, unknown>>): Result<Action, HttpFailure> {
  switch (name) {
    case "reset": {
      const req = decodeHardResetRequest(body);
      if (!req.ok) return err(decodeFailure(req.error));
      const input = { taskId, comment: req.value.comment, expandMask: maskOf(req.value.expandMask) };
      return ok((world, ctx) => hardReset(world, input, ctx));
    }
    case "comment": {
      const req = decodeCommentRequest(body);
      if (!req.ok) return err(decodeFailure(req.error));
      const input = { taskId, comment: req.value.comment, expandMask: maskOf(req.value.expandMask) };
      return ok((world, ctx) => comment(world, input, ctx));
    }
    default: {
      const never: never = name;
      return never;
    }
  }
}

/** The time of an action: the clock's reading, checked, since a bad one is our fault (500), not the caller's. */
function nowOf(clock: (() => string) | undefined): Result<string | undefined, HttpFailure> {
  if (clock === undefined) return ok(undefined);
  const now = clock();
  if (typeof now !== "string" || !RFC3339.test(now) || Number.isNaN(Date.parse(now)))
    return refused(500, "INTERNAL", "BAD_CLOCK", `the server clock returned ${JSON.stringify(now)}, not an RFC 3339 timestamp`);
  return ok(now);
}

/**
 * Creates the fetch handler serving `POST /api/v1/tasks/{task_id}/action/reset` (Hard Reset) and
 * `POST /api/v1/tasks/{task_id}/action/comment` (Comment) against the world in `store`.
 *
 * - `task_id` is the task's id or numericId, percent-decoded.
 * - `Authorization: Bearer <token>` names the caller through the world's `tokens` map.
 * - The body is the spec's `{comment, expandMask}`; empty means `{}`; unknown fields are ignored.
 * - 200 bodies are the reducers' wire JSON; each success replaces the store's world, one action at
 *   a time, and hands the store the action's audit events.
 * - Errors are grpc-gateway bodies `{code, message, details}` (numeric gRPC code) with the status
 *   of that code: 400 bad body or argument, 401 no or unknown token, 403 not allowed, 404 unknown
 *   task or route, 405 (+`Allow: POST`) wrong method, 413 body over `maxBodyBytes`, 415 not JSON.
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
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(limit) || limit < 0) fail(`createFetchHandler: maxBodyBytes must be a non-negative integer, not ${limit}`);

  async function handle(request: Request, headers: Readonly<Record<string, string>>): Promise<Response> {
    const refuse = (f: HttpFailure) => failureResponse(f, headers);
    const url = new URL(request.url);
    const route = ROUTE.exec(url.pathname);
    if (!route)
      return refuse({
        status: 404,
        code: "NOT_FOUND",
        reason: "ROUTE_NOT_FOUND",
        message: `Not Found: no route for ${url.pathname}; served are POST /api/v1/tasks/{task_id}/action/reset and /action/comment`,
      });
    if (request.method !== "POST")
      // grpc-gateway's own routing answers UNIMPLEMENTED; the status stays the HTTP one, 405.
      return refuse({ status: 405, code: "UNIMPLEMENTED", reason: "METHOD_NOT_ALLOWED", message: `Method Not Allowed: ${request.method}; use POST`, headers: { allow: "POST" } });
    const rawTaskId = route[1] ?? "";
    const name: ActionName = route[2] === "reset" ? "reset" : "comment";
    let taskId: string;
    try {
      taskId = decodeURIComponent(rawTaskId);
    } catch {
      return refuse({ status: 400, code: "INVALID_ARGUMENT", reason: "INVALID_ARGUMENT", message: "task_id is not valid percent-encoding", field: "task_id" });
    }

    // Authenticate before reading the body: an anonymous caller gets nothing parsed on its behalf.
    const actor = authenticate(request, store.get());
    if (!actor.ok) return refuse(actor.error);
    const body = await readJsonObject(request, limit);
    if (!body.ok) return refuse(body.error);
    const action = actionOf(name, taskId, body.value);
    if (!action.ok) return refuse(action.error);

    // Only the reducer runs under the lock; bodies are read outside it, so a slow client cannot
    // hold up everyone else. The world is read inside it, so each action sees the previous one.
    const result = await exclusive(store, (): Result<Step<JsonValue>, HttpFailure> => {
      const now = nowOf(options.clock);
      if (!now.ok) return now;
      const ctx: ActionContext = now.value === undefined ? { actorId: actor.value } : { actorId: actor.value, now: now.value };
      const r = action.value(store.get(), ctx);
      if (!r.ok) return err(failureOf(r.error));
      store.set(r.value.world, r.value.events);
      return r;
    });
    if (!result.ok) return refuse(result.error);
    return jsonResponse(200, result.value.response, headers);
  }

  return async (request) => {
    const headers = requestIdHeaders(request);
    try {
      return await handle(request, headers);
    } catch (e: unknown) {
      // A bug of ours, a throwing store hook or a broken request stream: still a JSON answer.
      return failureResponse(
        { status: 500, code: "INTERNAL", reason: "INTERNAL", message: `policy-sim http: internal error: ${e instanceof Error ? e.message : String(e)}` },
        headers,
      );
    }
  };
}
