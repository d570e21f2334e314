/**
 * The HTTP face without a transport: one function from an incoming call (method, raw target,
 * headers, a way to read the body) to a reply (status, headers, JSON text). The fetch handler and
 * the `node:http` server are thin adapters around it, so both answer byte for byte alike, and the
 * node path never builds a web Request or Response.
 *
 * Checks run in this order: target (400), route (404), method (405), credentials (401), media type
 * (415), size (413), body syntax (400), the route's decoding (400), then the reducer or the read.
 */
import { jsonBytes } from "../codec/json-text.js";
import { WIRE_OPTIONS } from "./reply-buffers.js";
import { toSpecNames } from "../codec/spec-names.js";
import type { JsonValue } from "../model/json.js";
import type { AuditEvent } from "../workflow/events.js";
import type { SimError } from "../reducers/errors.js";
import type { ActionContext } from "../reducers/prelude.js";
import { completeConnectorProvisioning } from "../reducers/provision.js";
import { tick } from "../reducers/tick.js";
import { FairTurns } from "./fair-turns.js";
import { err, fail, ok, type Result } from "../result.js";
import { authenticate } from "./auth.js";
import { type AccessTokenIssuer, audiencesOf, createAccessTokenIssuer } from "./auth/token.js";
import { errorBodyOf, failureOf, type HttpFailure } from "./error-body.js";
import { DEFAULT_MAX_BODY_BYTES, mediaTypeFailure, parseForm, parseJsonObject } from "./read-body.js";
import { parseRequestTarget } from "./request-target.js";
import { type Route, type RouteTable, routeTable, type ServerContext } from "./route.js";
import { ROUTES } from "./routes/index.js";
import type { MemoryWorldStore, WorldStore } from "./world-store.js";
import { isRealTimestamp } from "../codec/schema.js";

/**
 * A request as the dispatcher needs it, whatever carried it.
 *
 * @example
 * ```ts
 * const call: IncomingCall = { method: "POST", target: "/api/v1/tasks/1001/action/comment",
 *   header: (n) => (n === "authorization" ? "Bearer tok-super" : undefined),
 *   readBody: async () => ok(new TextEncoder().encode('{"comment":"hi"}')) };
 * ```
 */
export interface IncomingCall {
  readonly method: string;
  /** The request target as sent on the request line (path and query), not normalised. */
  readonly target: string;
  /** A header by lower-case name. */
  readonly header: (name: string) => string | undefined;
  /** The body's bytes; a 413 failure as soon as more than `limit` arrive (the rest is not kept). */
  readonly readBody: (limit: number) => Promise<Result<Uint8Array, HttpFailure>>;
}

/**
 * A reply: the status, the headers (lower-case names), and the JSON body's UTF-8 bytes (encoded
 * once, shared JSON such as a policy snapshot copied from bytes encoded once: `jsonParts`).
 *
 * @example
 * ```ts
 * const r: Reply = { status: 200, headers: { "content-type": "application/json" }, body: new TextEncoder().encode("{}") };
 * ```
 */
export interface Reply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
}

/**
 * Options of the dispatcher, shared by {@link createFetchHandler} and `serve`.
 *
 * @example
 * ```ts
 * const options: DispatchOptions = { maxBodyBytes: 64 * 1024, clock: () => new Date().toISOString() };
 * ```
 */
export interface DispatchOptions {
  /** Largest accepted request body in bytes; larger is 413. Default {@link DEFAULT_MAX_BODY_BYTES} (1 MiB). */
  readonly maxBodyBytes?: number;
  /**
   * The time each action happens at, as an RFC 3339 timestamp. Default: none, so the reducers use
   * the world's own `now` and a run is reproducible. Pass `systemClock` for a live server.
   */
  readonly clock?: () => string;
  /** The routes served. Default: every route of the HTTP face ({@link ROUTES}). */
  readonly routes?: readonly Route[];
  /**
   * Issues and checks the access tokens of `POST /auth/v1/token`. Default: a new issuer with a
   * random key, so tokens last as long as the dispatcher (at most an hour each).
   */
  readonly accessTokens?: AccessTokenIssuer;
  /**
   * Host names (without port) a client assertion's `aud` may name, besides the host the request
   * was sent to (its `Host` header). Default: none more.
   */
  readonly audiences?: readonly string[];
  /**
   * Wall-clock seconds for token lifetimes and assertion expiry. Always real time by default, even
   * when `clock` is unset: the SDKs sign assertions with their own clock, not the world's.
   */
  readonly authClock?: () => number;
  /**
   * Connectors finish provisioning on their own, as the service's do: after each accepted write,
   * a task it touched that stands at an undecided connector provision step completes it
   * (`completeConnectorProvisioning`), so the write's own answer still shows the step running and
   * the next read shows the task closed; tasks already at such a step when the dispatcher is made
   * (the server starts) complete it then. Default: off (the step waits for a provisioning report,
   * as in the library).
   */
  readonly connectorsComplete?: boolean;
  /**
   * With a `clock`, time passes in the world as it does in the service: before a request is
   * served, the world's clock moves to the clock's reading and what falls due fires (`tick`: waits,
   * escalations, the fallback to manual provisioning, the ends of time-limited grants), at most once
   * a second. Default: off (the world's clock moves only by `tick`, so a run is reproducible).
   */
  readonly timersFire?: boolean;
  /**
   * Told when the clock could not move (`timersFire`): the tick was refused, so the world stays at
   * its time and what would have fallen due does not fire; requests are still served. Called when
   * the reason changes (not on every request: a refusal repeats until the world is fixed, and once
   * more if it comes back after a tick that ran); it must not throw.
   */
  readonly onTimersRefused?: (refusal: { readonly now: string; readonly worldNow: string; readonly code: string; readonly message: string }) => void;
}

/** How often, at most, a dispatcher whose timers fire moves the world's clock (clock milliseconds). */
const TIMERS_EVERY_MS = 1000;

/**
 * The dispatcher: never rejects; every failure is a reply with the service's error body.
 *
 * @example
 * ```ts
 * const reply = await dispatch(call);
 * reply.status; // 200
 * ```
 */
export type Dispatch = (call: IncomingCall) => Promise<Reply>;


/**
 * Runs a write on `store` as one step: the world is read, reduced and replaced with nothing awaited
 * in between, so no other request's write can interleave and no update is lost. Reducers and
 * `WorldStore.set` are synchronous by contract (`set` returns void), which is what makes this a
 * lock; a store that persists asynchronously must queue its own work in `set`.
 */
function exclusive<T>(work: () => T): T {
  return work();
}

const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ "content-type": "application/json", "cache-control": "no-store" });

const encoder = new TextEncoder();

function reply(status: number, body: Uint8Array, extra: Readonly<Record<string, string>>): Reply {
  // Most replies add no header of their own: they share one frozen set.
  return { status, headers: extra === NO_HEADERS ? JSON_HEADERS : { ...extra, ...JSON_HEADERS }, body };
}

function failureReply(failure: HttpFailure, extra: Readonly<Record<string, string>>): Reply {
  return reply(failure.status, encoder.encode(JSON.stringify(errorBodyOf(failure))), { ...extra, ...failure.headers });
}

/** Echoed so a caller can match a response to its request in logs; only a sane-looking id. */
function requestIdHeaders(call: IncomingCall): Readonly<Record<string, string>> {
  const id = call.header("x-request-id");
  return id !== undefined && /^[\x21-\x7e]{1,200}$/.test(id) ? { "x-request-id": id } : NO_HEADERS;
}
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** The time of an action: the clock's reading, checked, since a bad one is our fault (500), not the caller's. */
function contextOf(actorId: string, clock: (() => string) | undefined): Result<ActionContext, HttpFailure> {
  if (clock === undefined) return ok({ actorId });
  const now = clock();
  if (!isRealTimestamp(now))
    return err({ status: 500, code: "INTERNAL", reason: "BAD_CLOCK", message: `the server clock returned ${JSON.stringify(now)}, not an RFC 3339 timestamp` });
  return ok({ actorId, now });
}

const isHttpFailure = (e: SimError | HttpFailure): e is HttpFailure => "status" in e;
const asFailure = (e: SimError | HttpFailure): HttpFailure => (isHttpFailure(e) ? e : failureOf(e));

/**
 * Creates the dispatcher over `store`: routes a call, authenticates it, reads and decodes its body,
 * and runs the route's write under the store's lock (the world replaced, the events recorded) or
 * its read against the current world.
 *
 * @example
 * ```ts
 * const dispatch = createDispatcher(createWorldStore(world));
 * const reply = await dispatch({ method: "GET", target: "/nope", header: () => undefined, readBody: async () => ok(new Uint8Array()) });
 * reply.status; // 404
 * ```
 */
export function createDispatcher(store: WorldStore, options: DispatchOptions = {}): Dispatch {
  return dispatcherWith(store, options, (value) => jsonBytes(value, WIRE_OPTIONS));
}

/**
 * {@link createDispatcher} writing its 200 bodies with `encode` (the JSON value's UTF-8 bytes):
 * `serve` passes buffers it takes back once a response is sent (`ReplyBuffers`).
 *
 * @example
 * ```ts
 * const buffers = new ReplyBuffers();
 * const dispatch = dispatcherWith(store, {}, (v) => buffers.bytes(v));
 * ```
 */
export function dispatcherWith(store: WorldStore, options: DispatchOptions, encode: (value: JsonValue) => Uint8Array): Dispatch {
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(limit) || limit < 0) fail(`maxBodyBytes must be a non-negative integer, not ${limit}`);
  const table: RouteTable = routeTable(options.routes ?? ROUTES);
  const clock = options.clock;
  const accessTokens = options.accessTokens ?? createAccessTokenIssuer();
  const authClock = options.authClock ?? (() => Date.now() / 1000);
  // Only a MemoryWorldStore keeps events; another store's audits are empty.
  const kept = store as Partial<Pick<MemoryWorldStore, "events" | "eventsOf">>;
  const events = (): readonly AuditEvent[] => (typeof kept.events === "function" ? kept.events() : []);
  const taskEvents = (taskId: string): readonly AuditEvent[] =>
    typeof kept.eventsOf === "function" ? kept.eventsOf(taskId) : events().filter((e) => e.taskId === taskId);
  if (options.connectorsComplete === true) {
    // Connectors work on their own: a request already waiting at a connector step when the server
    // starts finishes then, not when some later write happens to touch it.
    const ctx = contextOf("", clock);
    const world = store.get();
    const done = ctx.ok ? completeConnectorProvisioning(world, ctx.value.now ?? world.now) : undefined;
    if (done?.ok && done.value.completed.length > 0) store.set(done.value.world, done.value.events);
  }
  // Time passes (timersFire): the world's clock follows the dispatcher's, at most once a second.
  let lastTickMs = Number.NEGATIVE_INFINITY;
  let lastRefusal: string | undefined;
  const timersFire = (): void => {
    if (options.timersFire !== true || clock === undefined) return;
    const now = clock();
    const ms = Date.parse(now);
    if (!(ms - lastTickMs >= TIMERS_EVERY_MS)) return;
    lastTickMs = ms;
    exclusive(() => {
      const world = store.get();
      if (!(ms > Date.parse(world.now))) return;
      // A tick that refuses (a clock that is not a timestamp, a policy whose timers loop) changes
      // nothing; the request is served on the world as it is, and the refusal is told once.
      const r = tick(world, now);
      if (r.ok) {
        store.set(r.value.world, r.value.events);
        lastRefusal = undefined;
      } else if (options.onTimersRefused && r.error.message !== lastRefusal) {
        lastRefusal = r.error.message;
        try {
          options.onTimersRefused({ now, worldNow: world.now, code: r.error.code, message: r.error.message });
        } catch {
          // A listener's fault is not the request's.
        }
      }
    });
  };
  timersFire();
  const turns = new FairTurns();
  const serverContext = (call: IncomingCall): ServerContext => ({
    accessTokens,
    audiences: audiencesOf(call.header("host") ?? null, "", options.audiences ?? []),
    nowSeconds: authClock(),
    events,
    taskEvents,
  });

  async function handle(call: IncomingCall, headers: Readonly<Record<string, string>>): Promise<Reply> {
    const target = parseRequestTarget(call.target);
    if (!target.ok) return failureReply(target.error, headers);
    const match = table.match(call.method, target.value.segments);
    if (match.kind === "none")
      return failureReply({ status: 404, code: "NOT_FOUND", reason: "ROUTE_NOT_FOUND", message: `Not Found: no route for ${target.value.path}` }, headers);
    if (match.kind === "method") {
      const allow = match.allow.join(", ");
      // grpc-gateway's own routing answers UNIMPLEMENTED; the status stays the HTTP one, 405.
      return failureReply({ status: 405, code: "UNIMPLEMENTED", reason: "METHOD_NOT_ALLOWED", message: `Method Not Allowed: ${call.method}; use ${allow}`, headers: { allow } }, headers);
    }
    const { route, params } = match;

    // Authenticate before reading the body: an anonymous caller gets nothing parsed on its behalf.
    let actorId = "";
    if (route.public !== true) {
      const actor = authenticate(call.header("authorization"), store.get(), accessTokens, authClock());
      if (!actor.ok) return failureReply(actor.error, headers);
      actorId = actor.value;
    }
    let body: Readonly<Record<string, unknown>> = EMPTY_BODY;
    if (route.body !== "none") {
      const media = mediaTypeFailure(call.header, route.body);
      if (media) return failureReply(media, headers);
      const bytes = await call.readBody(limit);
      if (!bytes.ok) return failureReply(bytes.error, headers);
      const asForm = route.body === "form" && !/^\s*application\/json\b/i.test(call.header("content-type") ?? "");
      const parsed = asForm ? parseForm(bytes.value) : parseJsonObject(bytes.value);
      if (!parsed.ok) return failureReply(parsed.error, headers);
      // The API's `baton…`/`c1UserPicker` names are read as the spec's, in every route's body.
      body = asForm ? parsed.value : (toSpecNames(parsed.value) as Readonly<Record<string, unknown>>);
    }
    // The work of the request, in its client's turn: one client's expensive requests cannot keep
    // everyone else's waiting behind all of them (fair-turns.ts).
    const wait = turns.enter(actorId);
    if (wait) await wait;
    const started = performance.now();
    try {
      timersFire();
      const op = route.handle({ params, query: target.value.query, body, actorId, header: call.header });
      if (!op.ok) return failureReply(op.error, headers);
      const operation = op.value;

      if (operation.kind === "reply") {
        const r = await operation.reply(store.get(), serverContext(call));
        return reply(r.status, encoder.encode(JSON.stringify(r.body)), { ...headers, ...r.headers });
      }
      if (operation.kind === "read") {
        const ctx = contextOf(actorId, clock);
        if (!ctx.ok) return failureReply(ctx.error, headers);
        const r = operation.read(store.get(), ctx.value, serverContext(call));
        return r.ok ? reply(200, encode(r.value), headers) : failureReply(asFailure(r.error), headers);
      }
      // Only the reducer runs under the lock; bodies are read outside it, so a slow client cannot
      // hold up everyone else. The world is read inside it, so each write sees the previous one.
      const result = exclusive((): Result<JsonValue, HttpFailure> => {
        const ctx = contextOf(actorId, clock);
        if (!ctx.ok) return ctx;
        const r = operation.apply(store.get(), ctx.value);
        if (!r.ok) return err(asFailure(r.error));
        let world = r.value.world;
        let events = r.value.events;
        if (options.connectorsComplete === true) {
          const touched = new Set<string>();
          for (const e of events) if (typeof e.taskId === "string" && e.taskId !== "") touched.add(e.taskId);
          const done = touched.size === 0 ? undefined : completeConnectorProvisioning(world, ctx.value.now ?? world.now, touched);
          if (done?.ok && done.value.completed.length > 0) {
            world = done.value.world;
            events = [...events, ...done.value.events];
          }
        }
        store.set(world, events);
        return ok(r.value.response);
      });
      // The policy snapshot a response carries is written and encoded once, not on every request (jsonParts).
      return result.ok ? reply(200, encode(result.value), headers) : failureReply(result.error, headers);
    } finally {
      turns.leave(performance.now() - started);
    }
  }

  return async (call) => {
    let headers = NO_HEADERS;
    try {
      headers = requestIdHeaders(call);
      return await handle(call, headers);
    } catch (e: unknown) {
      // A bug of ours, a throwing store hook or a broken request stream: still a JSON answer.
      return failureReply(
        { status: 500, code: "INTERNAL", reason: "INTERNAL", message: `policy-sim http: internal error: ${e instanceof Error ? e.message : String(e)}` },
        headers,
      );
    }
  };
}

const EMPTY_BODY: Readonly<Record<string, unknown>> = Object.freeze({});
