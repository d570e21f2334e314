/**
 * `POST /auth/v1/token`: OAuth 2.0 client credentials (RFC 6749 §4.4) with a JWT client assertion
 * (RFC 7523, `client_assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer`), as
 * the service's OpenAPI `oauth` scheme and its SDKs do it: an EdDSA (Ed25519) JWT signed with the
 * private key carried in the client secret, `iss` = `sub` = the client id, `aud` = the server's host
 * name without port. The client's public key and the user it acts as come from the world's
 * `clients`. The access token answered is short-lived and HMAC-signed with a key of this process.
 * Signatures, expiry and audience are checked by `jose`, not by our code.
 */
import { createHmac, createPrivateKey, createPublicKey, randomBytes, timingSafeEqual } from "node:crypto";
import { decodeJwt, errors as joseErrors, importJWK, jwtVerify } from "jose";
import type { ApiClient } from "../../model/directory.js";
import { err, ok, type Result } from "../../result.js";
import type { World } from "../../world/world.js";
import { parseClientSecret } from "./client-secret.js";

/**
 * The assertion type of RFC 7523 client authentication.
 *
 * @example
 * ```ts
 * form.set("client_assertion_type", JWT_BEARER_ASSERTION);
 * ```
 */
export const JWT_BEARER_ASSERTION = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/**
 * The error codes of RFC 6749 §5.2.
 *
 * @example
 * ```ts
 * const e: OAuthErrorCode = "invalid_client";
 * ```
 */
export type OAuthErrorCode = "invalid_request" | "invalid_client" | "invalid_grant" | "unauthorized_client" | "unsupported_grant_type";

/**
 * A refused token request: the RFC 6749 §5.2 body and its HTTP status (401 for `invalid_client`,
 * 400 otherwise).
 *
 * @example
 * ```ts
 * const e: OAuthError = { status: 400, error: "unsupported_grant_type", error_description: "use client_credentials" };
 * ```
 */
export interface OAuthError {
  readonly status: 400 | 401;
  readonly error: OAuthErrorCode;
  readonly error_description: string;
}

/**
 * A successful token response (RFC 6749 §5.1), what the service's SDKs read.
 *
 * @example
 * ```ts
 * const t: TokenResponse = { access_token: "eyJ…", token_type: "Bearer", expires_in: 3600 };
 * ```
 */
export interface TokenResponse {
  readonly access_token: string;
  readonly token_type: "Bearer";
  readonly expires_in: number;
}

/**
 * Who an access token speaks for.
 *
 * @example
 * ```ts
 * const p: TokenPrincipal = { userId: "u-super", clientId: "bot@sim/pcc" };
 * ```
 */
export interface TokenPrincipal {
  readonly userId: string;
  /** The API client that obtained it; "" for a bearer token from the world's `tokens`. */
  readonly clientId: string;
}

/**
 * Issues and checks this process's access tokens. Checking is synchronous (an HMAC), so a bearer
 * token costs the request path no promise.
 *
 * @example
 * ```ts
 * const issuer = createAccessTokenIssuer();
 * const t = issuer.issue({ userId: "u-super", clientId: "bot" }, Date.now() / 1000);
 * issuer.verify(t.access_token, Date.now() / 1000)?.userId; // "u-super"
 * ```
 */
export interface AccessTokenIssuer {
  issue(principal: TokenPrincipal, nowSeconds: number): TokenResponse;
  /** The principal of a valid, unexpired token of this issuer; undefined for anything else. */
  verify(token: string, nowSeconds: number): TokenPrincipal | undefined;
}

/**
 * Options of {@link createAccessTokenIssuer}.
 *
 * @example
 * ```ts
 * const options: AccessTokenIssuerOptions = { ttlSeconds: 600 };
 * ```
 */
export interface AccessTokenIssuerOptions {
  /** HMAC-SHA256 key of the tokens; default 32 random bytes, so tokens die with the process. */
  readonly key?: Uint8Array;
  /** Lifetime of a token in seconds; default {@link DEFAULT_TOKEN_TTL_SECONDS}. */
  readonly ttlSeconds?: number;
}

/**
 * Default lifetime of an access token: one hour.
 *
 * @example
 * ```ts
 * createAccessTokenIssuer({ ttlSeconds: DEFAULT_TOKEN_TTL_SECONDS });
 * ```
 */
export const DEFAULT_TOKEN_TTL_SECONDS = 3600;

/**
 * Prefix of the access tokens this server issues, so a bearer check can tell them from the world
 * file's tokens without trying a signature.
 *
 * @example
 * ```ts
 * token.startsWith(ACCESS_TOKEN_PREFIX);
 * ```
 */
export const ACCESS_TOKEN_PREFIX = "pst1.";

/**
 * Creates an access-token issuer: tokens are `pst1.<payload>.<HMAC-SHA256>`, base64url, the
 * payload `{sub, cid, exp}`.
 *
 * @example
 * ```ts
 * const issuer = createAccessTokenIssuer({ ttlSeconds: 900 });
 * ```
 */
export function createAccessTokenIssuer(options: AccessTokenIssuerOptions = {}): AccessTokenIssuer {
  const key = options.key ?? new Uint8Array(randomBytes(32));
  const ttl = options.ttlSeconds ?? DEFAULT_TOKEN_TTL_SECONDS;
  const sign = (payload: string) => createHmac("sha256", key).update(payload).digest();
  return {
    issue(principal, nowSeconds) {
      const payload = Buffer.from(JSON.stringify({ sub: principal.userId, cid: principal.clientId, exp: Math.floor(nowSeconds) + ttl })).toString("base64url");
      return { access_token: `${ACCESS_TOKEN_PREFIX}${payload}.${sign(payload).toString("base64url")}`, token_type: "Bearer", expires_in: ttl };
    },
    verify(token, nowSeconds) {
      if (!token.startsWith(ACCESS_TOKEN_PREFIX)) return undefined;
      const [payload = "", mac = "", extra] = token.slice(ACCESS_TOKEN_PREFIX.length).split(".");
      if (extra !== undefined || !/^[A-Za-z0-9_-]{1,2048}$/.test(payload) || !/^[A-Za-z0-9_-]{43}$/.test(mac)) return undefined;
      const given = Buffer.from(mac, "base64url");
      const expected = sign(payload);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      let claims: unknown;
      try {
        claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
      } catch {
        return undefined;
      }
      if (typeof claims !== "object" || claims === null) return undefined;
      const { sub, cid, exp } = claims as Record<string, unknown>;
      if (typeof sub !== "string" || sub === "" || typeof cid !== "string" || typeof exp !== "number" || nowSeconds >= exp) return undefined;
      return { userId: sub, clientId: cid };
    },
  };
}

/**
 * Options of {@link authenticateClient}.
 *
 * @example
 * ```ts
 * const options: ClientAuthOptions = { audiences: ["127.0.0.1", "localhost"], nowSeconds: Date.now() / 1000 };
 * ```
 */
export interface ClientAuthOptions {
  /** Host names the assertion's `aud` may name (the server's, without port). */
  readonly audiences: readonly string[];
  /** The server's clock, in seconds since the epoch. */
  readonly nowSeconds: number;
  /** Leeway for `exp`, `nbf` and `iat`, in seconds; default 60. */
  readonly clockToleranceSeconds?: number;
}

const refuse = (status: 400 | 401, error: OAuthErrorCode, description: string) =>
  err<OAuthError>({ status, error, error_description: description });

function clientById(world: World, clientId: string): ApiClient | undefined {
  return world.clients.find((c) => c.clientId === clientId);
}

/** Why jose refused an assertion, in words a client author can act on. */
function assertionProblem(e: unknown): string {
  if (e instanceof joseErrors.JWTExpired) return "the client assertion has expired: sign a new one (exp a few minutes ahead)";
  if (e instanceof joseErrors.JWTClaimValidationFailed) return `the client assertion's "${e.claim}" claim is wrong: ${e.message}`;
  if (e instanceof joseErrors.JWSSignatureVerificationFailed) return "the client assertion's signature does not verify with this client's public key";
  if (e instanceof joseErrors.JOSEAlgNotAllowed) return "the client assertion must be signed with EdDSA (Ed25519)";
  if (e instanceof joseErrors.JOSEError) return `the client assertion is not a valid JWT: ${e.message}`;
  return "the client assertion is not a valid JWT";
}

async function byAssertion(world: World, params: URLSearchParams, options: ClientAuthOptions): Promise<Result<ApiClient, OAuthError>> {
  const type = params.get("client_assertion_type");
  if (type !== JWT_BEARER_ASSERTION) return refuse(400, "invalid_request", `client_assertion_type must be "${JWT_BEARER_ASSERTION}"`);
  const assertion = params.get("client_assertion") ?? "";
  let claimed: string;
  try {
    const claims = decodeJwt(assertion);
    claimed = typeof claims.iss === "string" ? claims.iss : "";
  } catch {
    return refuse(401, "invalid_client", "the client assertion is not a JWT (header.payload.signature)");
  }
  const clientId = params.get("client_id") ?? claimed;
  if (clientId !== claimed) return refuse(401, "invalid_client", "client_id does not match the client assertion's iss");
  const client = clientById(world, clientId);
  if (!client) return refuse(401, "invalid_client", `unknown client "${clientId}": register it with \`policy-sim client add\``);
  try {
    const key = await importJWK({ ...client.publicJwk }, "EdDSA");
    await jwtVerify(assertion, key, {
      algorithms: ["EdDSA", "Ed25519"],
      issuer: client.clientId,
      subject: client.clientId,
      audience: [...options.audiences, ...tenantHostOf(client.clientId)],
      currentDate: new Date(options.nowSeconds * 1000),
      clockTolerance: options.clockToleranceSeconds ?? 60,
      requiredClaims: ["exp"],
    });
  } catch (e: unknown) {
    return refuse(401, "invalid_client", assertionProblem(e));
  }
  return ok(client);
}

/**
 * The tenant host a client id names (`name@acme.conductor.one/pcc` → `acme.conductor.one`), lowercased,
 * without a port. The service's clients (cone, the Go SDK's token source) sign the assertion's `aud`
 * with it even when the request goes elsewhere (an endpoint override pointing at `serve`).
 */
function tenantHostOf(clientId: string): string[] {
  const m = /@([^/@]+)\/[^/]*$/.exec(clientId);
  const host = m?.[1]?.toLowerCase().replace(/:\d+$/, "") ?? "";
  return host === "" ? [] : [host];
}

/** RFC 6749 §2.3.1 `client_secret_post`: the secret itself, which here is the private key; checked against the registered public key. */
function bySecret(world: World, params: URLSearchParams): Result<ApiClient, OAuthError> {
  const clientId = params.get("client_id") ?? "";
  if (clientId === "") return refuse(400, "invalid_request", "client_id is required with client_secret");
  const client = clientById(world, clientId);
  if (!client) return refuse(401, "invalid_client", `unknown client "${clientId}": register it with \`policy-sim client add\``);
  const jwk = parseClientSecret(params.get("client_secret") ?? "");
  if (!jwk.ok) return refuse(401, "invalid_client", jwk.error);
  let publicX: unknown;
  try {
    // The public key derived from d, so a secret that merely repeats the public x does not pass.
    publicX = createPublicKey(createPrivateKey({ key: { ...jwk.value }, format: "jwk" })).export({ format: "jwk" }).x;
  } catch {
    return refuse(401, "invalid_client", "the client secret's key is not a valid Ed25519 private key");
  }
  if (publicX !== client.publicJwk.x) return refuse(401, "invalid_client", "the client secret does not belong to this client");
  return ok(client);
}

/**
 * Checks a token request's form (grant type and client authentication) and answers the client
 * and the user it acts as, or the RFC 6749 §5.2 error. Never throws.
 *
 * @example
 * ```ts
 * const form = new URLSearchParams(await request.text());
 * const who = await authenticateClient(world, form, { audiences: ["127.0.0.1"], nowSeconds: Date.now() / 1000 });
 * if (who.ok) issuer.issue(who.value, Date.now() / 1000);
 * ```
 */
export async function authenticateClient(world: World, params: URLSearchParams, options: ClientAuthOptions): Promise<Result<TokenPrincipal, OAuthError>> {
  const grant = params.get("grant_type");
  if (grant === null || grant === "") return refuse(400, "invalid_request", 'grant_type is required: "client_credentials"');
  if (grant !== "client_credentials") return refuse(400, "unsupported_grant_type", `grant_type "${grant}" is not supported: use "client_credentials"`);
  const client = params.has("client_assertion")
    ? await byAssertion(world, params, options)
    : params.has("client_secret")
      ? bySecret(world, params)
      : refuse(401, "invalid_client", `no client authentication: send client_assertion (a JWT, client_assertion_type "${JWT_BEARER_ASSERTION}")`);
  if (!client.ok) return client;
  const user = world.index.users.get(client.value.userId);
  if (!user || user.status === "DISABLED" || user.status === "DELETED")
    return refuse(400, "invalid_grant", `client "${client.value.clientId}" acts as user "${client.value.userId}", who is ${user ? user.status.toLowerCase() : "not in the world"}`);
  return ok({ userId: user.id, clientId: client.value.clientId });
}

/**
 * The host names a token request may name as its audience: the host of the URL the client used
 * (its `Host` header), the server's own, and any configured, without ports, lowercased.
 *
 * @example
 * ```ts
 * audiencesOf("localhost:8080", "127.0.0.1", []); // ["localhost", "127.0.0.1"]
 * ```
 */
export function audiencesOf(hostHeader: string | null, ownHost: string, extra: readonly string[]): string[] {
  const strip = (h: string) => {
    const t = h.trim().toLowerCase();
    if (t.startsWith("[")) return t.slice(1, t.indexOf("]") > 0 ? t.indexOf("]") : undefined);
    const colon = t.lastIndexOf(":");
    return colon > 0 && t.indexOf(":") === colon ? t.slice(0, colon) : t;
  };
  const all = [hostHeader ?? "", ownHost, ...extra].map(strip).filter((h) => h !== "");
  return [...new Set(all)];
}
