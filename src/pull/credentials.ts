/**
 * How `pull` signs in: a bearer token as it is, or the client-credentials flow of the service's
 * OpenAPI `oauth` scheme — an EdDSA (Ed25519) JWT client assertion signed with the private key the
 * client secret carries (`secret-token:conductorone.com:v1:` + base64 of the private JWK's JSON),
 * `iss` = `sub` = the client id, `aud` = the API's host name without port, posted to
 * `/auth/v1/token`. Secrets never appear in a message this module writes.
 */
import { createPrivateKey, randomUUID, sign, type KeyObject } from "node:crypto";

/**
 * Credentials of a pull: a bearer token, or an API client's id and secret.
 *
 * @example
 * ```ts
 * const byToken: PullCredentials = { kind: "token", token: process.env.POLICY_SIM_TOKEN ?? "" };
 * const byClient: PullCredentials = { kind: "client", clientId: "bot@tenant/pcc", clientSecret: "secret-token:conductorone.com:v1:…" };
 * ```
 */
export type PullCredentials =
  | { readonly kind: "token"; readonly token: string }
  | { readonly kind: "client"; readonly clientId: string; readonly clientSecret: string };

/**
 * The prefix of the service's client secrets.
 *
 * @example
 * ```ts
 * const secret = `${CLIENT_SECRET_PREFIX}${Buffer.from(JSON.stringify(privateJwk)).toString("base64")}`;
 * ```
 */
export const CLIENT_SECRET_PREFIX = "secret-token:conductorone.com:v1:";

/**
 * The environment variables `policy-sim pull` reads its credentials from.
 *
 * @example
 * ```ts
 * process.env[CREDENTIAL_VARIABLES.token]; // POLICY_SIM_TOKEN
 * ```
 */
export const CREDENTIAL_VARIABLES = { clientId: "POLICY_SIM_CLIENT_ID", clientSecret: "POLICY_SIM_CLIENT_SECRET", token: "POLICY_SIM_TOKEN" } as const;

/**
 * Credentials from environment variables: `POLICY_SIM_CLIENT_ID` with `POLICY_SIM_CLIENT_SECRET`,
 * else `POLICY_SIM_TOKEN`; a message naming the variables (never their values) when neither is set.
 *
 * @example
 * ```ts
 * const c = credentialsFromEnv(process.env);
 * if (!c.ok) console.error(c.error);
 * ```
 */
export function credentialsFromEnv(env: Readonly<Record<string, string | undefined>>): { ok: true; value: PullCredentials } | { ok: false; error: string } {
  const id = env[CREDENTIAL_VARIABLES.clientId] ?? "";
  const secret = env[CREDENTIAL_VARIABLES.clientSecret] ?? "";
  const token = env[CREDENTIAL_VARIABLES.token] ?? "";
  if (id !== "" && secret !== "") return { ok: true, value: { kind: "client", clientId: id, clientSecret: secret } };
  if (id !== "" || secret !== "")
    return { ok: false, error: `set both ${CREDENTIAL_VARIABLES.clientId} and ${CREDENTIAL_VARIABLES.clientSecret} (only ${id !== "" ? CREDENTIAL_VARIABLES.clientId : CREDENTIAL_VARIABLES.clientSecret} is set)` };
  if (token !== "") return { ok: true, value: { kind: "token", token } };
  return {
    ok: false,
    error: `no credentials: set ${CREDENTIAL_VARIABLES.clientId} and ${CREDENTIAL_VARIABLES.clientSecret} (an API client), or ${CREDENTIAL_VARIABLES.token} (a bearer token)`,
  };
}

/** Standard base64 or base64url to bytes; undefined when it is neither. */
function base64Bytes(text: string): Buffer | undefined {
  const normal = text.trim().replace(/-/g, "+").replace(/_/g, "/");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(normal)) return undefined;
  return Buffer.from(normal, "base64");
}

/**
 * The Ed25519 private key a client secret carries; a message saying what is wrong otherwise.
 *
 * @example
 * ```ts
 * const key = privateKeyOfSecret(process.env.POLICY_SIM_CLIENT_SECRET ?? "");
 * ```
 */
export function privateKeyOfSecret(secret: string): { ok: true; value: KeyObject } | { ok: false; error: string } {
  if (!secret.startsWith(CLIENT_SECRET_PREFIX)) return { ok: false, error: `the client secret does not start with "${CLIENT_SECRET_PREFIX}"` };
  const bytes = base64Bytes(secret.slice(CLIENT_SECRET_PREFIX.length));
  if (bytes === undefined) return { ok: false, error: "the client secret's key is not base64" };
  let jwk: unknown;
  try {
    jwk = JSON.parse(bytes.toString("utf8"));
  } catch {
    return { ok: false, error: "the client secret's key is not a JSON Web Key" };
  }
  if (typeof jwk !== "object" || jwk === null || (jwk as Record<string, unknown>)["kty"] !== "OKP" || (jwk as Record<string, unknown>)["crv"] !== "Ed25519")
    return { ok: false, error: "the client secret's key is not an Ed25519 JSON Web Key (kty OKP, crv Ed25519)" };
  try {
    return { ok: true, value: createPrivateKey({ key: jwk as Record<string, string>, format: "jwk" }) };
  } catch {
    return { ok: false, error: "the client secret's key is not a valid Ed25519 private key" };
  }
}

const b64url = (data: string | Buffer): string => Buffer.from(data).toString("base64url");

/**
 * A signed client assertion (RFC 7523) for the token endpoint, valid for five minutes.
 *
 * @example
 * ```ts
 * const key = privateKeyOfSecret(secret);
 * if (key.ok) clientAssertion("bot@tenant/pcc", key.value, "tenant.conductor.one", Date.now() / 1000);
 * ```
 */
export function clientAssertion(clientId: string, key: KeyObject, audience: string, nowSeconds: number): string {
  const iat = Math.floor(nowSeconds);
  const header = b64url(JSON.stringify({ alg: "EdDSA", typ: "JWT" }));
  const payload = b64url(JSON.stringify({ iss: clientId, sub: clientId, aud: audience, iat, nbf: iat, exp: iat + 300, jti: randomUUID() }));
  const signature = sign(null, Buffer.from(`${header}.${payload}`), key);
  return `${header}.${payload}.${b64url(signature)}`;
}
