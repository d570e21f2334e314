/**
 * What a route is: a method, a path template of the OpenAPI (`/api/v1/tasks/{task_id}/action/approve`),
 * the operation it serves, and one small function from the decoded request to a write (a reducer
 * run on the store's world under its lock) or a read (a function of the current world). Every
 * failure is an {@link HttpFailure}, so every route answers with the same error body.
 */
import type { JsonValue } from "../model/json.js";
import type { SimError } from "../reducers/errors.js";
import type { ActionContext } from "../reducers/prelude.js";
import type { AuditEvent } from "../workflow/events.js";
import type { Result } from "../result.js";
import type { World } from "../world/world.js";
import type { AccessTokenIssuer } from "./auth/token.js";
import type { HttpFailure } from "./error-body.js";

/**
 * What the server knows beyond the world, for the routes that need it: its access-token issuer
 * (the token endpoint), the host names a client assertion may name as audience, its clock in
 * seconds, and the audit events it has recorded (task audits).
 *
 * @example
 * ```ts
 * const read: ReadOperation["read"] = (world, ctx, server) => ok({ count: server.events().length });
 * ```
 */
export interface ServerContext {
  readonly accessTokens: AccessTokenIssuer;
  readonly audiences: readonly string[];
  readonly nowSeconds: number;
  /** The audit events the store keeps, oldest first (empty for a store that keeps none). */
  readonly events: () => readonly AuditEvent[];
  /** The kept audit events of one task (by its `id`), oldest first, without a scan of the whole log. */
  readonly taskEvents: (taskId: string) => readonly AuditEvent[];
}

/**
 * An HTTP method a route answers.
 *
 * @example
 * ```ts
 * const m: HttpMethod = "POST";
 * ```
 */
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * What a route's function receives: the path parameters (decoded once), the query, the body
 * (`{}` for a route without one), the caller's user id (`""` on a public route), and the request's
 * headers, for routes that need more (the token endpoint's host).
 *
 * @example
 * ```ts
 * const input: RouteInput = { params: { task_id: "1001" }, query: new URLSearchParams(), body: { comment: "hi" },
 *   actorId: "u-root", header: () => undefined };
 * ```
 */
export interface RouteInput {
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly body: Readonly<Record<string, unknown>>;
  readonly actorId: string;
  /** A request header by lower-case name. */
  readonly header: (name: string) => string | undefined;
}

/**
 * A change to the world: a reducer call waiting for the world and the action context. It runs under
 * the store's lock; its `world` replaces the store's, its `events` are recorded.
 *
 * @example
 * ```ts
 * const w: WriteOperation = { kind: "write", apply: (world, ctx) => comment(world, { taskId: "1001", comment: "hi" }, ctx) };
 * ```
 */
export interface WriteOperation {
  readonly kind: "write";
  readonly apply: (
    world: World,
    ctx: ActionContext,
  ) => Result<{ readonly world: World; readonly response: JsonValue; readonly events: readonly AuditEvent[] }, SimError | HttpFailure>;
}

/**
 * An answer computed from the current world, changing nothing.
 *
 * @example
 * ```ts
 * const r: ReadOperation = { kind: "read", read: (world) => ok({ count: world.tasks.size }) };
 * ```
 */
export interface ReadOperation {
  readonly kind: "read";
  readonly read: (world: World, ctx: ActionContext, server: ServerContext) => Result<JsonValue, SimError | HttpFailure>;
}

/**
 * An answer that is not the API's JSON-or-Status pair: its own status, body and headers, computed
 * asynchronously (the OAuth token endpoint, whose errors are RFC 6749 §5.2 bodies and whose
 * assertion check is a signature verification).
 *
 * @example
 * ```ts
 * const r: ReplyOperation = { kind: "reply", reply: async () => ({ status: 400, body: { error: "invalid_request" } }) };
 * ```
 */
export interface ReplyOperation {
  readonly kind: "reply";
  readonly reply: (
    world: World,
    server: ServerContext,
  ) => Promise<{ readonly status: number; readonly body: JsonValue; readonly headers?: Readonly<Record<string, string>> }>;
}

/**
 * What a route's function decides: a write or a read.
 *
 * @example
 * ```ts
 * const op: Operation = { kind: "read", read: () => ok({}) };
 * ```
 */
export type Operation = WriteOperation | ReadOperation | ReplyOperation;

/**
 * How a route's body is read: JSON (the API's), an HTML form (`application/x-www-form-urlencoded`,
 * the OAuth token endpoint's), or none (GET and DELETE).
 *
 * @example
 * ```ts
 * const b: BodyKind = "json";
 * ```
 */
export type BodyKind = "json" | "form" | "none";

/**
 * One served operation of the OpenAPI.
 *
 * @example
 * ```ts
 * const route: Route = {
 *   method: "POST", path: "/api/v1/tasks/{task_id}/action/comment", operationId: "c1.api.task.v1.TaskActionsService.Comment",
 *   body: "json", handle: (input) => ok({ kind: "write", apply: (world, ctx) => comment(world, { ...input.body, taskId: input.params["task_id"] ?? "" }, ctx) }),
 * };
 * ```
 */
export interface Route {
  readonly method: HttpMethod;
  /** The OpenAPI path template; `{name}` matches one non-empty segment. */
  readonly path: string;
  /** The OpenAPI `operationId`: what a test validates the 2xx body against. */
  readonly operationId: string;
  readonly body: BodyKind;
  /** Served without credentials (the token endpoint). Default: a bearer token is required. */
  readonly public?: boolean;
  readonly handle: (input: RouteInput) => Result<Operation, HttpFailure>;
}

/**
 * The outcome of matching a path against a route table: the route and its parameters, the methods
 * the path has when the method is not one of them (405), or nothing (404).
 *
 * @example
 * ```ts
 * const m = table.match("POST", ["api", "v1", "tasks", "1001", "action", "comment"]);
 * if (m.kind === "route") m.params.task_id; // "1001"
 * ```
 */
export type RouteMatch =
  | { readonly kind: "route"; readonly route: Route; readonly params: Readonly<Record<string, string>> }
  | { readonly kind: "method"; readonly allow: readonly HttpMethod[] }
  | { readonly kind: "none" };

/**
 * A compiled route table.
 *
 * @example
 * ```ts
 * const table = routeTable(TASK_ACTION_ROUTES);
 * table.routes.length; // 14
 * ```
 */
export interface RouteTable {
  readonly routes: readonly Route[];
  match(method: string, segments: readonly string[]): RouteMatch;
}

interface Compiled {
  readonly route: Route;
  /** A literal segment, or `null` where a parameter goes. */
  readonly parts: readonly (string | null)[];
  readonly names: readonly string[];
}

function compile(route: Route): Compiled {
  const raw = route.path.split("/").slice(1);
  const parts: (string | null)[] = [];
  const names: string[] = [];
  for (const s of raw) {
    const m = /^\{([A-Za-z_][A-Za-z0-9_.]*)\}$/.exec(s);
    if (m?.[1] !== undefined) {
      parts.push(null);
      names.push(m[1]);
    } else parts.push(s);
  }
  return { route, parts, names };
}

/**
 * Compiles routes into a table that matches decoded path segments. Routes are grouped by segment
 * count, so a match looks at the few routes of that length, not all. Routes of the request's
 * method are tried first, as grpc-gateway's ServeMux does; among them a literal segment wins over a
 * parameter at the same place (`/tasks/search` before `/tasks/{id}`). A path only routes of other
 * methods match is 405 with their methods.
 *
 * @example
 * ```ts
 * const table = routeTable([...TASK_ACTION_ROUTES, ...TASK_ROUTES]);
 * table.match("GET", ["api", "v1", "nope"]).kind; // "none"
 * ```
 */
export function routeTable(routes: readonly Route[]): RouteTable {
  const byLength = new Map<number, Compiled[]>();
  for (const r of routes) {
    const c = compile(r);
    const list = byLength.get(c.parts.length) ?? [];
    list.push(c);
    byLength.set(c.parts.length, list);
  }
  // Literals first, position by position: the more literal route is tried first.
  for (const list of byLength.values())
    list.sort((a, b) => {
      for (let i = 0; i < a.parts.length; i++) {
        const la = a.parts[i] !== null;
        const lb = b.parts[i] !== null;
        if (la !== lb) return la ? -1 : 1;
      }
      return 0;
    });

  return {
    routes,
    match(method, segments) {
      const candidates = byLength.get(segments.length);
      if (!candidates) return { kind: "none" };
      // The request's method first, as grpc-gateway's ServeMux keeps its handlers by method: a path
      // that a more literal route of another method also matches (an entitlement whose id is
      // "users" under `…/entitlements/users/{app_user_id}`) still reaches its own method's route.
      const allow: HttpMethod[] = [];
      for (const c of candidates) {
        if (!matches(c, segments)) continue;
        if (c.route.method !== method) {
          if (!allow.includes(c.route.method)) allow.push(c.route.method);
          continue;
        }
        const params: Record<string, string> = {};
        let n = 0;
        for (let i = 0; i < c.parts.length; i++) if (c.parts[i] === null) params[c.names[n++] ?? ""] = segments[i] ?? "";
        return { kind: "route", route: c.route, params };
      }
      return allow.length > 0 ? { kind: "method", allow } : { kind: "none" };
    },
  };
}

/** Whether a route's pattern matches the segments: its literals equal, its parameters non-empty. */
function matches(c: Compiled, segments: readonly string[]): boolean {
  for (let i = 0; i < c.parts.length; i++) {
    const p = c.parts[i];
    if (p === null ? segments[i] === "" : p !== segments[i]) return false;
  }
  return true;
}
