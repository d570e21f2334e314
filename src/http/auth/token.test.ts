import { importJWK, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { loadWorld, type World } from "../../index.js";
import { sampleJson, SUPER } from "../../../test/helpers.js";
import { CLIENT_SECRET_PREFIX, createApiClient, formatClientSecret, parseClientSecret, type Ed25519PrivateJwk } from "./client-secret.js";
import { audiencesOf, authenticateClient, createAccessTokenIssuer, JWT_BEARER_ASSERTION } from "./token.js";

const CLIENT_ID = "quiet-otter-12345@sim.conductor.one/pcc";
const NOW = 1_800_000_000;

async function setup(): Promise<{ world: World; secret: string; key: Ed25519PrivateJwk }> {
  const made = await createApiClient({ clientId: CLIENT_ID, userId: SUPER, displayName: "CI" });
  const json = sampleJson();
  const loaded = loadWorld({ ...json, clients: [made.client] });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
  const key = parseClientSecret(made.clientSecret);
  if (!key.ok) throw new Error(key.error);
  return { world: loaded.value, secret: made.clientSecret, key: key.value };
}

/** The assertion as the service's SDKs build it (Go token_source.go: EdDSA, iss = sub = client id, aud = host without port, nbf 2 min back, exp 2 min ahead). */
async function assertion(key: Ed25519PrivateJwk, claims: { iss?: string; sub?: string; aud?: string; exp?: number; nbf?: number; alg?: string } = {}): Promise<string> {
  const k = await importJWK({ ...key }, "EdDSA");
  return new SignJWT({})
    .setProtectedHeader({ alg: claims.alg ?? "EdDSA" })
    .setIssuer(claims.iss ?? CLIENT_ID)
    .setSubject(claims.sub ?? CLIENT_ID)
    .setAudience(claims.aud ?? "127.0.0.1")
    .setIssuedAt(NOW)
    .setNotBefore(claims.nbf ?? NOW - 120)
    .setExpirationTime(claims.exp ?? NOW + 120)
    .sign(k);
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields);
const opts = { audiences: ["127.0.0.1"], nowSeconds: NOW };

describe("openapi.yaml oauth scheme: the client secret", () => {
  it("round-trips a key through standard base64 and reads base64url too", async () => {
    const { secret, key } = await setup();
    expect(secret.startsWith(CLIENT_SECRET_PREFIX)).toBe(true);
    expect(parseClientSecret(formatClientSecret(key))).toEqual({ ok: true, value: key });
    const json = JSON.stringify(key);
    const url = CLIENT_SECRET_PREFIX + Buffer.from(json).toString("base64url");
    expect(parseClientSecret(url)).toEqual({ ok: true, value: key });
  });
  it("every secret is read both by atob (the TypeScript SDK) and by strict unpadded base64url (the Go SDK's and cone's parseSecret): no '+', '/' or '=' (Go/Python SDK review)", async () => {
    for (let i = 0; i < 64; i++) {
      const { clientSecret } = await createApiClient({ clientId: `c${i}@sim/pcc`, userId: SUPER });
      const tail = clientSecret.slice(CLIENT_SECRET_PREFIX.length);
      expect(tail).toMatch(/^[A-Za-z0-9]+$/);
      expect(tail.length % 4).toBe(0);
      // The same bytes either way.
      expect(Buffer.from(tail, "base64url").toString("utf8")).toBe(atob(tail));
    }
  });
  it("refuses what is not a secret, with a reason", () => {
    expect(parseClientSecret("nope").ok).toBe(false);
    expect(parseClientSecret(`${CLIENT_SECRET_PREFIX}!!!`).ok).toBe(false);
    expect(parseClientSecret(CLIENT_SECRET_PREFIX + Buffer.from('{"kty":"RSA"}').toString("base64")).ok).toBe(false);
  });
});

describe("openapi.yaml oauth scheme: client credentials with a JWT assertion", () => {
  it("accepts the SDK's assertion and names the user the client acts as", async () => {
    const { world, key } = await setup();
    const r = await authenticateClient(
      world,
      form({ grant_type: "client_credentials", client_id: CLIENT_ID, client_assertion_type: JWT_BEARER_ASSERTION, client_assertion: await assertion(key) }),
      opts,
    );
    expect(r).toEqual({ ok: true, value: { userId: SUPER, clientId: CLIENT_ID } });
  });
  it("accepts the client id's tenant host as the audience, as cone signs it when its requests go to another endpoint", async () => {
    // cone (pkg/client/token_source.go) and the Go SDK sign aud = the host in the client id
    // (`…@sim.conductor.one/pcc`), whatever host the token request is then sent to.
    const { world, key } = await setup();
    const r = await authenticateClient(
      world,
      form({ grant_type: "client_credentials", client_id: CLIENT_ID, client_assertion_type: JWT_BEARER_ASSERTION, client_assertion: await assertion(key, { aud: "sim.conductor.one" }) }),
      opts,
    );
    expect(r).toEqual({ ok: true, value: { userId: SUPER, clientId: CLIENT_ID } });
  });
  it.each([
    ["expired", { exp: NOW - 600, nbf: NOW - 900 }, /expired/],
    ["another audience", { aud: "evil.example" }, /aud/],
    ["another issuer", { iss: "someone-else" }, /unknown client|iss/],
    ["a subject other than the client", { sub: "u-root" }, /sub/],
  ])("refuses an assertion that is %s (invalid_client, 401)", async (_, claims, why) => {
    const { world, key } = await setup();
    const r = await authenticateClient(
      world,
      form({ grant_type: "client_credentials", client_assertion_type: JWT_BEARER_ASSERTION, client_assertion: await assertion(key, claims) }),
      opts,
    );
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toMatchObject({ status: 401, error: "invalid_client" });
      expect(r.error.error_description).toMatch(why);
    }
  });
  it("refuses an assertion signed by another key", async () => {
    const { world } = await setup();
    const other = await createApiClient({ clientId: CLIENT_ID, userId: SUPER });
    const key = parseClientSecret(other.clientSecret);
    if (!key.ok) throw new Error(key.error);
    const r = await authenticateClient(world, form({ grant_type: "client_credentials", client_assertion_type: JWT_BEARER_ASSERTION, client_assertion: await assertion(key.value) }), opts);
    expect(r).toMatchObject({ ok: false, error: { error: "invalid_client", error_description: expect.stringMatching(/signature/) } });
  });
  it("answers RFC 6749 §5.2 codes for a bad grant or a missing assertion", async () => {
    const { world } = await setup();
    expect(await authenticateClient(world, form({ grant_type: "password" }), opts)).toMatchObject({ ok: false, error: { status: 400, error: "unsupported_grant_type" } });
    expect(await authenticateClient(world, form({}), opts)).toMatchObject({ ok: false, error: { status: 400, error: "invalid_request" } });
    expect(await authenticateClient(world, form({ grant_type: "client_credentials" }), opts)).toMatchObject({ ok: false, error: { status: 401, error: "invalid_client" } });
    expect(
      await authenticateClient(world, form({ grant_type: "client_credentials", client_assertion_type: "urn:other", client_assertion: "a.b.c" }), opts),
    ).toMatchObject({ ok: false, error: { status: 400, error: "invalid_request" } });
  });
  it("accepts the secret itself (client_secret_post) only when its private key matches the registered public key", async () => {
    const { world, secret, key } = await setup();
    expect(await authenticateClient(world, form({ grant_type: "client_credentials", client_id: CLIENT_ID, client_secret: secret }), opts)).toMatchObject({ ok: true });
    // Same public x, another d: not the client's key.
    const forged = formatClientSecret({ ...key, d: key.x });
    expect(await authenticateClient(world, form({ grant_type: "client_credentials", client_id: CLIENT_ID, client_secret: forged }), opts)).toMatchObject({
      ok: false,
      error: { error: "invalid_client" },
    });
  });
});

describe("access tokens", () => {
  it("verify until they expire, and not after", async () => {
    const issuer = createAccessTokenIssuer({ ttlSeconds: 60 });
    const t = issuer.issue({ userId: SUPER, clientId: CLIENT_ID }, NOW);
    expect(t).toMatchObject({ token_type: "Bearer", expires_in: 60 });
    expect(issuer.verify(t.access_token, NOW + 30)).toEqual({ userId: SUPER, clientId: CLIENT_ID });
    expect(issuer.verify(t.access_token, NOW + 61)).toBeUndefined();
    expect(createAccessTokenIssuer().verify(t.access_token, NOW)).toBeUndefined();
    const [p, , m] = t.access_token.split(".");
    const forged = Buffer.from(JSON.stringify({ sub: "u-ceo", cid: CLIENT_ID, exp: NOW + 60 })).toString("base64url");
    expect(issuer.verify(`${p}.${forged}.${m}`, NOW)).toBeUndefined();
  });
  it("audiences drop the port, as the SDKs do", () => {
    expect(audiencesOf("localhost:8080", "127.0.0.1", [])).toEqual(["localhost", "127.0.0.1"]);
    expect(audiencesOf("[::1]:9000", "127.0.0.1", ["sim.example"])).toEqual(["::1", "127.0.0.1", "sim.example"]);
  });
});
