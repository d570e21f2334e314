/**
 * Who is calling: the user behind `Authorization: Bearer <token>`. Tokens come from the world
 * file's `tokens` map (token → user id); whether that user may do what they ask is the reducers'
 * business (`src/reducers/permissions.ts`).
 */
import type { World } from "../world/world.js";
import type { AccessTokenIssuer } from "./auth/token.js";
import { err, ok, type Result } from "../result.js";
import type { HttpFailure } from "./error-body.js";

const unauthenticated = (reason: string, message: string, challenge: string): { ok: false; error: HttpFailure } =>
  err({ status: 401, code: "UNAUTHENTICATED", reason, message, headers: { "www-authenticate": challenge } });

/**
 * The user id behind an `Authorization` header value, through `world.tokens`. 401 with an RFC 6750
 * challenge when the header is missing, malformed, or names no known token.
 *
 * @example
 * ```ts
 * authenticate("Bearer tok-super", world); // ok("u-root") when world.tokens["tok-super"] is "u-root"
 * authenticate(undefined, world).ok; // false: MISSING_CREDENTIALS
 * ```
 * With `accessTokens`, a token that issuer gave out at `/auth/v1/token` names its user too.
 */
export function authenticate(
  header: string | undefined,
  world: World,
  accessTokens?: AccessTokenIssuer,
  nowSeconds = 0,
): Result<string, HttpFailure> {
  // RFC 6750 §3: no credentials at all gets a bare challenge; bad ones say which error.
  if (header === undefined || header.trim() === "")
    return unauthenticated("MISSING_CREDENTIALS", 'missing Authorization header: send "Authorization: Bearer <token>"', "Bearer");
  const match = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  const token = match?.[1];
  if (token === undefined)
    return unauthenticated("MALFORMED_CREDENTIALS", 'malformed Authorization header: expected "Bearer <token>"', 'Bearer error="invalid_request"');
  // Own properties only: a token such as "constructor" must not find Object.prototype.
  const userId = Object.hasOwn(world.tokens, token) ? world.tokens[token] : accessTokens?.verify(token, nowSeconds)?.userId;
  if (userId === undefined) return unauthenticated("INVALID_TOKEN", "unknown bearer token", 'Bearer error="invalid_token"');
  return ok(userId);
}
