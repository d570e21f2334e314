/**
 * The service's API client secret: `secret-token:conductorone.com:v1:` followed by the base64 of
 * the client's Ed25519 private key as a JWK (RFC 8037). The service's SDKs decode the tail with
 * standard base64 (`atob`) and some with base64url, so we write standard base64 and read both.
 */
import { exportJWK, generateKeyPair } from "jose";
import type { ApiClient } from "../../model/directory.js";
import { err, ok, type Result } from "../../result.js";

/**
 * The prefix of every client secret.
 *
 * @example
 * ```ts
 * secret.startsWith(CLIENT_SECRET_PREFIX); // true
 * ```
 */
export const CLIENT_SECRET_PREFIX = "secret-token:conductorone.com:v1:";

/**
 * An Ed25519 private key as a JWK: the public `x` and the private `d`, both base64url (RFC 8037).
 *
 * @example
 * ```ts
 * const jwk: Ed25519PrivateJwk = { kty: "OKP", crv: "Ed25519", x: "…", d: "…" };
 * ```
 */
export interface Ed25519PrivateJwk {
  readonly kty: "OKP";
  readonly crv: "Ed25519";
  readonly x: string;
  readonly d: string;
}

const B64URL_KEY = /^[A-Za-z0-9_-]{43}$/;

/** Standard base64 or base64url, padded or not, to bytes; undefined when it is neither. */
function decodeBase64Either(text: string): Buffer | undefined {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(trimmed)) return undefined;
  const normal = trimmed.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "");
  if (normal.length % 4 === 1) return undefined;
  return Buffer.from(normal, "base64");
}

/**
 * Reads a client secret into its Ed25519 private JWK, or says what is wrong with it.
 *
 * @example
 * ```ts
 * const key = parseClientSecret(process.env.C1_CLIENT_SECRET ?? "");
 * if (key.ok) console.log(key.value.x); // the public half
 * ```
 */
export function parseClientSecret(secret: string): Result<Ed25519PrivateJwk, string> {
  if (typeof secret !== "string" || !secret.startsWith(CLIENT_SECRET_PREFIX))
    return err(`a client secret starts with "${CLIENT_SECRET_PREFIX}"`);
  const bytes = decodeBase64Either(secret.slice(CLIENT_SECRET_PREFIX.length));
  if (bytes === undefined) return err("the client secret's key is not base64");
  let jwk: unknown;
  try {
    jwk = JSON.parse(bytes.toString("utf8"));
  } catch {
    return err("the client secret's key is not a JSON Web Key");
  }
  if (typeof jwk !== "object" || jwk === null) return err("the client secret's key is not a JSON Web Key");
  const { kty, crv, x, d } = jwk as Record<string, unknown>;
  if (kty !== "OKP" || crv !== "Ed25519") return err("the client secret's key is not an Ed25519 key (kty OKP, crv Ed25519)");
  if (typeof x !== "string" || !B64URL_KEY.test(x) || typeof d !== "string" || !B64URL_KEY.test(d))
    return err("the client secret's key lacks its x and d parts");
  return ok({ kty, crv, x, d });
}

/**
 * Writes a private JWK as a client secret (standard base64, as the service issues them).
 *
 * @example
 * ```ts
 * formatClientSecret({ kty: "OKP", crv: "Ed25519", x, d }); // "secret-token:conductorone.com:v1:eyJ…"
 * ```
 */
export function formatClientSecret(jwk: Ed25519PrivateJwk): string {
  // Read by `atob` (the TypeScript SDK) and by Go's strict base64url without padding (the Go SDK,
  // cone) alike: this JSON is 129 bytes (no padding), and standard base64 writes "+" or "/" only
  // for a ">", "?", "~" or a byte over 0x7f, none of which an Ed25519 JWK's JSON holds — so the
  // text is in the alphabet both share. Pinned by a test over generated keys; keep the layout.
  const json = JSON.stringify({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, d: jwk.d });
  return CLIENT_SECRET_PREFIX + Buffer.from(json, "utf8").toString("base64");
}

/**
 * A new API client: its world-file entry (public key only) and its secret, shown once.
 *
 * @example
 * ```ts
 * const { client, clientSecret } = await createApiClient({ clientId: "bot@sim/pcc", userId: "u-super" });
 * ```
 */
export interface NewApiClient {
  readonly client: ApiClient;
  readonly clientSecret: string;
}

/**
 * Generates an Ed25519 key pair for a new API client (randomness: an adapter, not the core).
 *
 * @example
 * ```ts
 * const { client, clientSecret } = await createApiClient({ clientId: "bot@sim/pcc", userId: "u-super", displayName: "CI" });
 * ```
 */
export async function createApiClient(input: { readonly clientId: string; readonly userId: string; readonly displayName?: string }): Promise<NewApiClient> {
  const { privateKey } = await generateKeyPair("Ed25519", { extractable: true });
  const jwk = await exportJWK(privateKey);
  if (typeof jwk.x !== "string" || typeof jwk.d !== "string") throw new Error("jose exported an Ed25519 key without x or d");
  const priv: Ed25519PrivateJwk = { kty: "OKP", crv: "Ed25519", x: jwk.x, d: jwk.d };
  return {
    client: { clientId: input.clientId, userId: input.userId, displayName: input.displayName ?? "", publicJwk: { kty: "OKP", crv: "Ed25519", x: priv.x } },
    clientSecret: formatClientSecret(priv),
  };
}
