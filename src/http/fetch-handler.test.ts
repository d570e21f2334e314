import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { decodeCommentResponse, decodeHardResetResponse } from "../codec/index.js";
import { loadWorld } from "../world/load-world.js";
import { findTask, type World } from "../world/world.js";
import { BAD_REQUEST_TYPE, ERROR_INFO_TYPE, type ErrorBody, GRPC_CODES } from "./error-body.js";
import { createFetchHandler, type FetchHandler, type FetchHandlerOptions, systemClock } from "./fetch-handler.js";
import { MAX_JSON_DEPTH } from "../world/read.js";
import { DEFAULT_MAX_BODY_BYTES } from "./read-body.js";
import { createWorldStore, type MemoryWorldStore, type WorldChange } from "./world-store.js";

const fixture: World = (() => {
  const r = loadWorld(JSON.parse(readFileSync(new URL("../../fixtures/world.json", import.meta.url), "utf8")));
  if (!r.ok) throw new Error(`fixtures/world.json does not load: ${JSON.stringify(r.error.slice(0, 3))}`);
  return r.value;
})();

/** Super Administrator, Read-Only Administrator, plain user, and the target of task 1001 (fixtures/world.json). */
const SUPER = "tok-super";
/** A Read-Only Administrator: sees every task, may not act on it. */
const ADMIN = "tok-readonly";
const USER = "tok-user";
const TARGET = "tok-contractor";
const TASK = "1001";

function setup(options: FetchHandlerOptions = {}): { store: MemoryWorldStore; handler: FetchHandler; changes: WorldChange[] } {
  const changes: WorldChange[] = [];
  const store = createWorldStore(fixture, { onChange: (c) => changes.push(c) });
  return { store, handler: createFetchHandler(store, options), changes };
}

function post(path: string, body: unknown, init: { token?: string | null; headers?: Record<string, string>; method?: string } = {}): Request {
  const headers: Record<string, string> = { "content-type": "application/json", ...init.headers };
  const token = init.token === undefined ? SUPER : init.token;
  if (token !== null) headers["authorization"] = `Bearer ${token}`;
  const method = init.method ?? "POST";
  const hasBody = method !== "GET" && method !== "HEAD" && body !== undefined;
  return new Request(`http://sim${path}`, {
    method,
    headers,
    ...(hasBody ? { body: typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body) } : {}),
  });
}

const commentPath = (task = TASK) => `/api/v1/tasks/${task}/action/comment`;
const resetPath = (task = TASK) => `/api/v1/tasks/${task}/action/reset`;

async function errorOf(res: Response): Promise<ErrorBody> {
  expect(res.headers.get("content-type")).toBe("application/json");
  const body = (await res.json()) as ErrorBody;
  expect(Object.keys(body).sort()).toEqual(["code", "details", "message"]);
  expect(typeof body.code).toBe("number");
  expect(body.details[0]?.["@type"]).toBe(ERROR_INFO_TYPE);
  return body;
}

const reasonOf = (b: ErrorBody) => (b.details[0] && "reason" in b.details[0] ? b.details[0].reason : undefined);
const countOf = (w: World, task = TASK) => findTask(w, task)?.commentCount;

describe("createFetchHandler: the two actions", () => {
  it("comments: 200 with the reducer's wire body, and the store holds the new world", async () => {
    const { store, handler, changes } = setup();
    const res = await handler(post(commentPath(), { comment: "checked with the team" }));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    const body: unknown = await res.json();
    const decoded = decodeCommentResponse(body);
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    expect(decoded.value.taskView?.task?.numericId).toBe(TASK);
    expect(decoded.value.taskView?.task?.commentCount).toBe((countOf(fixture) ?? 0) + 1);
    expect(countOf(store.get())).toBe((countOf(fixture) ?? 0) + 1);
    expect(changes).toHaveLength(1);
    expect(changes[0]?.previous).toBe(fixture);
    expect(store.events().map((e) => e.kind)).toEqual(["comment"]);
    // The loaded world is never touched.
    expect(countOf(fixture)).toBe(1);
  });

  it("hard-resets: 200 with ticketActionId, a new policy generation, and audit events in the store", async () => {
    const { store, handler } = setup();
    const before = findTask(fixture, TASK);
    const res = await handler(post(resetPath(), { comment: "policy updated", expandMask: { paths: ["step_approver_ids"] } }));
    expect(res.status).toBe(200);
    const decoded = decodeHardResetResponse(await res.json());
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    expect(decoded.value.ticketActionId).not.toBe("");
    const after = findTask(store.get(), TASK);
    expect(after?.policyGenerationId).not.toBe(before?.policyGenerationId);
    expect(decoded.value.taskView?.task?.policyGenerationId).toBe(after?.policyGenerationId);
    const kinds = store.events().map((e) => e.kind);
    expect(kinds[0]).toBe("hardReset");
    expect(kinds).toContain("comment");
    expect(store.events()[0]?.id).toBe(decoded.value.ticketActionId);
  });

  it("accepts the task id as well as the numericId, percent-decoded", async () => {
    const { handler, store } = setup();
    const id = findTask(fixture, TASK)?.id ?? "";
    expect(id).not.toBe("");
    const res = await handler(post(commentPath(encodeURIComponent(id)), { comment: "by id" }));
    expect(res.status).toBe(200);
    const byEscapedNumeric = await handler(post(commentPath("%31%30%30%31"), { comment: "escaped numericId" }));
    expect(byEscapedNumeric.status).toBe(200);
    expect(countOf(store.get())).toBe((countOf(fixture) ?? 0) + 2);
  });

  it("tolerates unknown body fields and treats an empty body as {}", async () => {
    const { handler } = setup();
    expect((await handler(post(commentPath(), { comment: "x", futureField: { a: 1 } }))).status).toBe(200);
    expect((await handler(post(resetPath(), { futureField: true }))).status).toBe(200);
    const empty = await handler(post(resetPath(), "", { headers: {} }));
    expect(empty.status).toBe(200);
    const whitespace = await handler(post(resetPath(), "  \n"));
    expect(whitespace.status).toBe(200);
    const noBody = await handler(new Request(`http://sim${resetPath()}`, { method: "POST", headers: { authorization: `Bearer ${SUPER}` } }));
    expect(noBody.status).toBe(200);
  });

  it("an empty body on Comment is the reducer's INVALID_ARGUMENT (comment must not be empty)", async () => {
    const { handler } = setup();
    const res = await handler(post(commentPath(), ""));
    expect(res.status).toBe(400);
    const body = await errorOf(res);
    expect(body.code).toBe(GRPC_CODES.INVALID_ARGUMENT);
    expect(body.details).toContainEqual({ "@type": BAD_REQUEST_TYPE, fieldViolations: [{ field: "comment", description: body.message }] });
  });

  it("expands what the mask asks for", async () => {
    const { handler } = setup();
    const res = await handler(post(commentPath(), { comment: "x", expandMask: { paths: ["user_id"] } }));
    const decoded = decodeCommentResponse(await res.json());
    expect(decoded.ok && (decoded.value.expanded?.length ?? 0) > 0).toBe(true);
  });
});

describe("createFetchHandler: errors, grpc-gateway shaped", () => {
  it("401 without, with a malformed, or with an unknown token, with a WWW-Authenticate challenge", async () => {
    const { handler, store } = setup();
    const cases: [string | null, string, string][] = [
      [null, "MISSING_CREDENTIALS", "Bearer"],
      ["", "MALFORMED_CREDENTIALS", 'Bearer error="invalid_request"'],
      ["nope", "INVALID_TOKEN", 'Bearer error="invalid_token"'],
      ["constructor", "INVALID_TOKEN", 'Bearer error="invalid_token"'],
      ["__proto__", "INVALID_TOKEN", 'Bearer error="invalid_token"'],
    ];
    for (const [token, reason, challenge] of cases) {
      const res = await handler(post(commentPath(), { comment: "x" }, { token }));
      expect(res.status, String(token)).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe(challenge);
      const body = await errorOf(res);
      expect(body.code).toBe(GRPC_CODES.UNAUTHENTICATED);
      expect(reasonOf(body)).toBe(reason);
    }
    const basic = await handler(post(commentPath(), { comment: "x" }, { token: null, headers: { authorization: "Basic dTpw" } }));
    expect(basic.status).toBe(401);
    expect(store.get()).toBe(fixture);
  });

  it("401 when the token names a disabled user (the reducer's UNAUTHENTICATED)", async () => {
    const world: World = { ...fixture, tokens: { ...fixture.tokens, "tok-disabled": "u-fin2" } };
    const handler = createFetchHandler(createWorldStore(world));
    const res = await handler(post(commentPath(), { comment: "x" }, { token: "tok-disabled" }));
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('Bearer error="invalid_token"');
    expect((await errorOf(res)).message).toMatch(/disabled/);
  });

  it("the bearer scheme is case-insensitive (RFC 7235)", async () => {
    const { handler } = setup();
    const res = await handler(post(commentPath(), { comment: "x" }, { token: null, headers: { authorization: `bearer ${SUPER}` } }));
    expect(res.status).toBe(200);
  });

  it("403 when a non-Super-Administrator hard-resets, or a user comments on a task they cannot see", async () => {
    const { handler, store } = setup();
    const reset = await handler(post(resetPath(), {}, { token: ADMIN }));
    expect(reset.status).toBe(403);
    const body = await errorOf(reset);
    expect(body.code).toBe(GRPC_CODES.PERMISSION_DENIED);
    expect(reasonOf(body)).toBe("PERMISSION_DENIED");
    expect(body.message).toMatch(/HARD_RESET/);
    const unrelated = await handler(post(commentPath(), { comment: "x" }, { token: USER }));
    expect(unrelated.status).toBe(403);
    expect(store.get()).toBe(fixture);
    // The task's own target may comment.
    expect((await handler(post(commentPath(), { comment: "x" }, { token: TARGET }))).status).toBe(200);
  });

  it("404 for an unknown task (NOT_FOUND from the reducer) and for an unknown route", async () => {
    const { handler } = setup();
    const task = await handler(post(commentPath("999999"), { comment: "x" }));
    expect(task.status).toBe(404);
    const tb = await errorOf(task);
    expect(tb.code).toBe(GRPC_CODES.NOT_FOUND);
    expect(reasonOf(tb)).toBe("NOT_FOUND");
    for (const path of ["/", "/api/v1/tasks/1001/action/approve-all", "/api/v1/tasks/1001/action/comment/", "/api/v1/tasks//action/comment", "/api/v2/tasks/1001/action/reset"]) {
      const res = await handler(post(path, { comment: "x" }));
      expect(res.status, path).toBe(404);
      expect(reasonOf(await errorOf(res))).toBe("ROUTE_NOT_FOUND");
    }
    // Routing comes first: an unknown route is 404 even without credentials.
    expect((await handler(post("/nope", {}, { token: null }))).status).toBe(404);
  });

  it("405 with Allow: POST for other methods on a known route", async () => {
    const { handler } = setup();
    for (const method of ["GET", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]) {
      const res = await handler(post(commentPath(), method === "GET" || method === "HEAD" ? undefined : { comment: "x" }, { method }));
      expect(res.status, method).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
      if (method !== "HEAD") expect((await errorOf(res)).code).toBe(GRPC_CODES.UNIMPLEMENTED);
    }
  });

  it("413 over maxBodyBytes, whether declared by Content-Length or found while streaming", async () => {
    const { handler, store } = setup({ maxBodyBytes: 64 });
    const big = JSON.stringify({ comment: "x".repeat(100) });
    const declared = await handler(post(commentPath(), big));
    expect(declared.status).toBe(413);
    const body = await errorOf(declared);
    expect(body.code).toBe(GRPC_CODES.RESOURCE_EXHAUSTED);
    expect(body.details[0]).toMatchObject({ reason: "BODY_TOO_LARGE", metadata: { limitBytes: "64" } });

    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        pulled += 1;
        if (pulled > 1000) c.close();
        else c.enqueue(new TextEncoder().encode("                "));
      },
    });
    const streamed = await handler(
      new Request(`http://sim${commentPath()}`, { method: "POST", headers: { authorization: `Bearer ${SUPER}` }, body: stream, duplex: "half" }),
    );
    expect(streamed.status).toBe(413);
    // It stopped reading soon after the limit instead of draining 16 KB into memory.
    expect(pulled).toBeLessThan(20);
    // Exactly the limit is fine.
    const exact = JSON.stringify({ comment: "y" }).padEnd(64, " ");
    expect((await handler(post(commentPath(), exact))).status).toBe(200);
    expect(countOf(store.get())).toBe((countOf(fixture) ?? 0) + 1);
  });

  it("the default limit is 1 MiB", async () => {
    expect(DEFAULT_MAX_BODY_BYTES).toBe(1_048_576);
    const { handler } = setup();
    const over = await handler(post(commentPath(), JSON.stringify({ comment: "z".repeat(DEFAULT_MAX_BODY_BYTES) })));
    expect(over.status).toBe(413);
  });

  it("400 for malformed JSON, invalid UTF-8, and a body that is not an object", async () => {
    const { handler } = setup();
    const cases: [string | Uint8Array, string][] = [
      ["{", "MALFORMED_JSON"],
      ['{"comment": "x",}', "MALFORMED_JSON"],
      [new Uint8Array([0x7b, 0xff, 0x7d]), "MALFORMED_JSON"],
      ["[]", "BODY_NOT_OBJECT"],
      ["null", "BODY_NOT_OBJECT"],
      ['"comment"', "BODY_NOT_OBJECT"],
      ["42", "BODY_NOT_OBJECT"],
    ];
    for (const [body, reason] of cases) {
      const res = await handler(post(commentPath(), body));
      expect(res.status, String(body)).toBe(400);
      const b = await errorOf(res);
      expect(b.code).toBe(GRPC_CODES.INVALID_ARGUMENT);
      expect(reasonOf(b)).toBe(reason);
    }
  });

  it("400 BODY_TOO_DEEP for a body nesting more than MAX_JSON_DEPTH levels, which the world could keep but never load again", async () => {
    const { handler, store } = setup();
    const nested = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
    // The body's own object is level 0: `extra` at 1, so 512 levels of arrays below it reach 512.
    expect((await handler(post(commentPath(), `{"comment":"ok","extra":${nested(MAX_JSON_DEPTH)}}`))).status).toBe(200);
    const accepted = store.get();
    const deep = await handler(post(commentPath(), `{"comment":"no","extra":${nested(MAX_JSON_DEPTH + 1)}}`));
    expect(deep.status).toBe(400);
    expect(reasonOf(await errorOf(deep))).toBe("BODY_TOO_DEEP");
    // 200,000 levels (400 KB) are refused too, without a stack overflow.
    const deeper = await handler(post(commentPath(), `{"x":${nested(200_000)}}`));
    expect(deeper.status).toBe(400);
    expect(store.get()).toBe(accepted);
  });

  it("400 for a body field of the wrong type, naming the field", async () => {
    const { handler } = setup();
    const res = await handler(post(commentPath(), { comment: 5 }));
    expect(res.status).toBe(400);
    const b = await errorOf(res);
    expect(b.message).toMatch(/comment/);
    expect(b.details[1]).toMatchObject({ "@type": BAD_REQUEST_TYPE, fieldViolations: [{ field: "comment" }] });
    const mask = await handler(post(resetPath(), { expandMask: { paths: "user_id" } }));
    expect(mask.status).toBe(400);
  });

  it("400 for an unknown expand path, with the field", async () => {
    const { handler, store } = setup();
    const res = await handler(post(resetPath(), { expandMask: { paths: ["user_id", "no_such_path"] } }));
    expect(res.status).toBe(400);
    const b = await errorOf(res);
    expect(b.message).toMatch(/no_such_path/);
    expect(b.details[1]).toMatchObject({ fieldViolations: [{ field: "expandMask.paths" }] });
    expect(store.get()).toBe(fixture);
  });

  it("400 for a task_id that is not valid percent-encoding", async () => {
    const { handler } = setup();
    const res = await handler(post(commentPath("%E0%A4%A"), { comment: "x" }));
    expect(res.status).toBe(400);
  });

  it("415 for a body clearly not JSON; absent, +json and text/plain content types are accepted", async () => {
    const { handler } = setup();
    for (const type of ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/xml", "application/octet-stream"]) {
      const res = await handler(post(commentPath(), { comment: "x" }, { headers: { "content-type": type } }));
      expect(res.status, type).toBe(415);
      expect(reasonOf(await errorOf(res))).toBe("UNSUPPORTED_MEDIA_TYPE");
    }
    const gzip = await handler(post(commentPath(), { comment: "x" }, { headers: { "content-encoding": "gzip" } }));
    expect(gzip.status).toBe(415);
    for (const type of ["application/json; charset=utf-8", "APPLICATION/JSON", "application/merge-patch+json", "text/plain;charset=UTF-8"]) {
      const res = await handler(post(commentPath(), { comment: "x" }, { headers: { "content-type": type } }));
      expect(res.status, type).toBe(200);
    }
    // fetch with a string body and no headers sends text/plain: accepted.
    const bare = await handler(
      new Request(`http://sim${commentPath()}`, { method: "POST", headers: { authorization: `Bearer ${SUPER}` }, body: JSON.stringify({ comment: "x" }) }),
    );
    expect(bare.status).toBe(200);
  });

  it("checks in order: route, method, credentials, then the body", async () => {
    const { handler } = setup();
    expect((await handler(post(commentPath(), "{", { method: "PUT", token: null }))).status).toBe(405);
    expect((await handler(post(commentPath(), "{", { token: null }))).status).toBe(401);
    expect((await handler(post(commentPath("999999"), "{"))).status).toBe(400);
  });

  it("500 with a JSON body when a store hook throws; the handler never rejects", async () => {
    const store = createWorldStore(fixture, {
      onChange: () => {
        throw new Error("disk full");
      },
    });
    const handler = createFetchHandler(store);
    const res = await handler(post(commentPath(), { comment: "x" }));
    expect(res.status).toBe(500);
    const b = await errorOf(res);
    expect(b.code).toBe(GRPC_CODES.INTERNAL);
    expect(b.message).toMatch(/disk full/);
    // The lock is released: the next action runs.
    expect((await createFetchHandler(store)(post(commentPath(), { comment: "y" }))).status).toBe(500);
  });

  it("echoes a sane X-Request-Id on success and on errors", async () => {
    const { handler } = setup();
    const ok = await handler(post(commentPath(), { comment: "x" }, { headers: { "x-request-id": "req-42" } }));
    expect(ok.headers.get("x-request-id")).toBe("req-42");
    const notFound = await handler(post("/nope", {}, { headers: { "x-request-id": "req-43" } }));
    expect(notFound.headers.get("x-request-id")).toBe("req-43");
    const weird = await handler(post(commentPath(), { comment: "x" }, { headers: { "x-request-id": "has space" } }));
    expect(weird.headers.get("x-request-id")).toBeNull();
  });
});

describe("createFetchHandler: time", () => {
  it("without a clock, actions happen at the world's now", async () => {
    const { handler, store } = setup();
    await handler(post(commentPath(), { comment: "x" }));
    expect(store.events()[0]?.at).toBe(fixture.now);
  });

  it("with a clock, each action is stamped with its reading", async () => {
    const { handler, store } = setup({ clock: () => "2027-01-02T03:04:05Z" });
    const res = await handler(post(commentPath(), { comment: "x" }));
    const decoded = decodeCommentResponse(await res.json());
    expect(decoded.ok && decoded.value.taskView?.task?.updatedAt).toBe("2027-01-02T03:04:05Z");
    expect(store.events()[0]?.at).toBe("2027-01-02T03:04:05Z");
  });

  it("a clock that returns garbage is a 500 (our fault), not a 400", async () => {
    const { handler, store } = setup({ clock: () => "yesterday" });
    const res = await handler(post(commentPath(), { comment: "x" }));
    expect(res.status).toBe(500);
    expect(reasonOf(await errorOf(res))).toBe("BAD_CLOCK");
    expect(store.get()).toBe(fixture);
  });

  it("systemClock reads the wall clock as RFC 3339", () => {
    expect(systemClock()).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });
});

describe("createFetchHandler: concurrency", () => {
  it("serialises concurrent actions: every comment lands, in one chain of worlds", async () => {
    const { handler, store, changes } = setup();
    const n = 200;
    const responses = await Promise.all(
      Array.from({ length: n }, (_, i) => handler(post(commentPath(), { comment: `comment ${i}` }))),
    );
    expect(responses.every((r) => r.status === 200)).toBe(true);
    expect(countOf(store.get())).toBe((countOf(fixture) ?? 0) + n);
    const task = findTask(store.get(), TASK);
    expect(store.get().comments.get(task?.id ?? "")?.length).toBe(
      (fixture.comments.get(task?.id ?? "")?.length ?? 0) + n,
    );
    // Each change starts from the world the previous one produced.
    changes.forEach((c, i) => expect(c.previous).toBe(i === 0 ? fixture : changes[i - 1]?.world));
    // Every response saw a distinct count: no two actions ran on the same world.
    const counts = await Promise.all(
      responses.map(async (r) => {
        const d = decodeCommentResponse(await r.json());
        return d.ok ? d.value.taskView?.task?.commentCount : undefined;
      }),
    );
    expect(new Set(counts).size).toBe(n);
  });

  it("two handlers over one store share its lock", async () => {
    const store = createWorldStore(fixture);
    const a = createFetchHandler(store);
    const b = createFetchHandler(store);
    await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a : b)(post(commentPath(), { comment: `c${i}` }))));
    expect(countOf(store.get())).toBe((countOf(fixture) ?? 0) + 50);
  });

  it("mixes resets and comments without losing either", async () => {
    const { handler, store } = setup();
    const results = await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => handler(post(commentPath(), { comment: `c${i}` }))),
      handler(post(resetPath(), { comment: "reset with a comment" })),
    ]);
    expect(results.map((r) => r.status)).toEqual(Array.from({ length: 21 }, () => 200));
    const kinds = store.events().map((e) => e.kind);
    expect(kinds.filter((k) => k === "hardReset")).toHaveLength(1);
    expect(kinds.filter((k) => k === "comment")).toHaveLength(21);
  });
});

describe("createFetchHandler: options", () => {
  it("rejects a nonsensical maxBodyBytes at construction (a programmer error)", () => {
    expect(() => createFetchHandler(createWorldStore(fixture), { maxBodyBytes: -1 })).toThrow(/maxBodyBytes/);
    expect(() => createFetchHandler(createWorldStore(fixture), { maxBodyBytes: 1.5 })).toThrow(/maxBodyBytes/);
  });

  it("works with a hand-written store that only has get and set", async () => {
    let current = fixture;
    const handler = createFetchHandler({ get: () => current, set: (w) => { current = w; } });
    expect((await handler(post(commentPath(), { comment: "x" }))).status).toBe(200);
    expect(countOf(current)).toBe((countOf(fixture) ?? 0) + 1);
  });
});
