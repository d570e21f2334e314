/**
 * The auth service: `POST /auth/v1/token` (the OpenAPI's `oauth` client-credentials scheme, its
 * `tokenUrl`) and `GET /api/v1/auth/introspect` (`c1.api.auth.v1.Auth.Introspect`): who the
 * bearer token is.
 */
import type { JsonValue } from "../../model/json.js";
import { rolesOf } from "../../reducers/permissions.js";
import { ok } from "../../result.js";
import { authenticateClient } from "../auth/token.js";
import type { Route } from "../route.js";
import { callerOf } from "./reads-routes.js";

/**
 * The client id and secret of an `Authorization: Basic` header (RFC 6749 §2.3.1: each
 * form-urlencoded, then `id:secret` in base64); undefined for any other or a malformed header.
 */
function basicCredentials(header: string | undefined): { clientId: string; clientSecret: string } | undefined {
  const m = /^basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(header ?? "");
  if (!m?.[1]) return undefined;
  const decoded = Buffer.from(m[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon <= 0) return undefined;
  try {
    const unform = (s: string) => decodeURIComponent(s.replace(/\+/g, " "));
    return { clientId: unform(decoded.slice(0, colon)), clientSecret: unform(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

/** RFC 6749 §5.1 and §5.2: token responses are never cached. */
const NO_CACHE = { "cache-control": "no-store", pragma: "no-cache" } as const;

/**
 * The token endpoint and introspection.
 *
 * @example
 * ```ts
 * AUTH_ROUTES.find((r) => r.path === "/auth/v1/token")?.public; // true
 * ```
 */
export const AUTH_ROUTES: readonly Route[] = [
  {
    method: "POST",
    path: "/auth/v1/token",
    operationId: "oauth.clientCredentials.token",
    body: "form",
    public: true,
    handle: (input) =>
      ok({
        kind: "reply",
        reply: async (world, server) => {
          const form = new URLSearchParams();
          for (const [k, v] of Object.entries(input.body)) if (typeof v === "string") form.set(k, v);
          const basic = basicCredentials(input.header("authorization"));
          // RFC 6749 §2.3.1 client_secret_basic, what generic OAuth clients send first; the form wins.
          if (basic && !form.has("client_assertion") && !form.has("client_secret")) {
            if (!form.has("client_id")) form.set("client_id", basic.clientId);
            if (form.get("client_id") === basic.clientId) form.set("client_secret", basic.clientSecret);
          }
          const who = await authenticateClient(world, form, { audiences: server.audiences, nowSeconds: server.nowSeconds });
          if (!who.ok) {
            const { status, error, error_description } = who.error;
            // RFC 6749 §5.2: invalid_client answers 401 with a challenge for the scheme the client tried.
            const challenge = status === 401 ? { "www-authenticate": 'Bearer error="invalid_client"' } : {};
            return { status, body: { error, error_description }, headers: { ...NO_CACHE, ...challenge } };
          }
          const token = server.accessTokens.issue(who.value, server.nowSeconds);
          return { status: 200, body: { ...token } as JsonValue, headers: NO_CACHE };
        },
      }),
  },
  {
    method: "GET",
    path: "/api/v1/auth/introspect",
    operationId: "c1.api.auth.v1.Auth.Introspect",
    body: "none",
    handle: () =>
      ok({
        kind: "read",
        read: (world, ctx) => {
          const caller = callerOf(world, ctx.actorId);
          if (!caller.ok) return caller;
          const roles = rolesOf(world, caller.value);
          return ok({
            principleId: caller.value.id,
            userId: caller.value.id,
            tenantId: world.tenant.id ?? "",
            roles: [...caller.value.roleIds],
            permissions: roles.map((r) => `role:${r.toLowerCase()}`),
            features: Object.entries(world.tenant.featureFlags)
              .filter(([, on]) => on)
              .map(([flag]) => flag),
            disabledModules: [],
            deviceClientId: "",
          });
        },
      }),
  },
];
