import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeCommentResponse, decodeHardResetResponse } from "../codec/index.js";
import { loadWorld } from "../world/load-world.js";
import { findTask, type World } from "../world/world.js";
import { type ErrorBody, GRPC_CODES } from "./error-body.js";
import { DEFAULT_MAX_BODY_BYTES } from "./read-body.js";
import { type RunningServer, serve } from "./server.js";
import { createWorldStore, type MemoryWorldStore } from "./world-store.js";

const fixture: World = (() => {
  const r = loadWorld(JSON.parse(readFileSync(new URL("../../fixtures/world.json", import.meta.url), "utf8")));
  if (!r.ok) throw new Error(`fixtures/world.json does not load: ${JSON.stringify(r.error.slice(0, 3))}`);
  return r.value;
})();

const SUPER = "tok-super";
/** A Read-Only Administrator: sees every task, may not act on it. */
const ADMIN = "tok-readonly";
const TASK = "1001";
const countOf = (w: World, task = TASK) => findTask(w, task)?.commentCount ?? -1;

let server: RunningServer;
let store: MemoryWorldStore;

beforeAll(async () => {
  store = createWorldStore(fixture);
  server = await serve({ store, port: 0 });
});
afterAll(async () => {
  await server.close();
});

function call(path: string, body: unknown, init: { token?: string | null; method?: string; headers?: Record<string, string> } = {}): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json", ...init.headers };
  const token = init.token === undefined ? SUPER : init.token;
  if (token !== null) headers["authorization"] = `Bearer ${token}`;
  const method = init.method ?? "POST";
  return fetch(`${server.url}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
}

async function expectError(res: Response, status: number, code: number): Promise<ErrorBody> {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/json");
  const body = (await res.json()) as ErrorBody;
  expect(body.code).toBe(code);
  expect(typeof body.message).toBe("string");
  expect(Array.isArray(body.details)).toBe(true);
  return body;
}

describe("serve: real HTTP round trips on loopback", () => {
  it("listens on 127.0.0.1 and a free port", () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.url.endsWith(":0")).toBe(false);
  });

  it("Comment by numericId: 200, a body the codec decodes, and the store moves on", async () => {
    const before = countOf(store.get());
    const res = await call(`/api/v1/tasks/${TASK}/action/comment`, { comment: "over the wire", expandMask: { paths: ["user_id"] } });
    expect(res.status).toBe(200);
    const decoded = decodeCommentResponse(await res.json());
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    expect(decoded.value.taskView?.task?.commentCount).toBe(before + 1);
    expect(decoded.value.expanded?.length ?? 0).toBeGreaterThan(0);
    expect(countOf(store.get())).toBe(before + 1);
  });

  it("Hard Reset by task id: 200 with ticketActionId and the updated task", async () => {
    const task = findTask(store.get(), TASK);
    const res = await call(`/api/v1/tasks/${encodeURIComponent(task?.id ?? "")}/action/reset`, { comment: "policy changed" });
    expect(res.status).toBe(200);
    const decoded = decodeHardResetResponse(await res.json());
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    expect(decoded.value.ticketActionId).not.toBe("");
    expect(decoded.value.taskView?.task?.id).toBe(task?.id);
    expect(decoded.value.taskView?.task?.policyGenerationId).not.toBe(task?.policyGenerationId);
    expect(store.events().some((e) => e.kind === "hardReset" && e.id === decoded.value.ticketActionId)).toBe(true);
  });

  it("401 without a token and with an unknown one", async () => {
    const none = await call(`/api/v1/tasks/${TASK}/action/comment`, { comment: "x" }, { token: null });
    await expectError(none, 401, GRPC_CODES.UNAUTHENTICATED);
    expect(none.headers.get("www-authenticate")).toBe("Bearer");
    await expectError(await call(`/api/v1/tasks/${TASK}/action/comment`, { comment: "x" }, { token: "tok-nobody" }), 401, GRPC_CODES.UNAUTHENTICATED);
  });

  it("403 when a Read-Only Administrator (not Super) hard-resets", async () => {
    const body = await expectError(await call(`/api/v1/tasks/${TASK}/action/reset`, {}, { token: ADMIN }), 403, GRPC_CODES.PERMISSION_DENIED);
    expect(body.message).toMatch(/Super Administrator/);
  });

  it("404 for an unknown task and for an unknown route", async () => {
    await expectError(await call(`/api/v1/tasks/424242/action/comment`, { comment: "x" }), 404, GRPC_CODES.NOT_FOUND);
    await expectError(await call(`/api/v1/tasks/${TASK}/action/approve-all`, {}), 404, GRPC_CODES.NOT_FOUND);
    await expectError(await call(`/api/v1/tasks/${TASK}/nope`, undefined, { method: "GET" }), 404, GRPC_CODES.NOT_FOUND);
  });

  it("405 with Allow: POST for GET on a known route", async () => {
    const res = await call(`/api/v1/tasks/${TASK}/action/comment`, undefined, { method: "GET" });
    await expectError(res, 405, GRPC_CODES.UNIMPLEMENTED);
    expect(res.headers.get("allow")).toBe("POST");
  });

  it("400 for malformed JSON and for an unknown expand path", async () => {
    await expectError(await call(`/api/v1/tasks/${TASK}/action/comment`, '{"comment": '), 400, GRPC_CODES.INVALID_ARGUMENT);
    const body = await expectError(
      await call(`/api/v1/tasks/${TASK}/action/reset`, { expandMask: { paths: ["not_a_path"] } }),
      400,
      GRPC_CODES.INVALID_ARGUMENT,
    );
    expect(body.message).toMatch(/not_a_path/);
  });

  it("415 for a form-encoded body", async () => {
    const res = await call(`/api/v1/tasks/${TASK}/action/comment`, "comment=x", { headers: { "content-type": "application/x-www-form-urlencoded" } });
    await expectError(res, 415, GRPC_CODES.INVALID_ARGUMENT);
  });

  it("413 for a body over 1 MiB with Content-Length, and the server keeps serving", async () => {
    const before = countOf(store.get());
    const big = JSON.stringify({ comment: "x".repeat(DEFAULT_MAX_BODY_BYTES + 10) });
    const res = await call(`/api/v1/tasks/${TASK}/action/comment`, big);
    await expectError(res, 413, GRPC_CODES.RESOURCE_EXHAUSTED);
    expect(countOf(store.get())).toBe(before);
    expect((await call(`/api/v1/tasks/${TASK}/action/comment`, { comment: "after" })).status).toBe(200);
  });

  it("413 for a chunked body that grows past the limit while being read", async () => {
    const chunk = new TextEncoder().encode(" ".repeat(64 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        // 4 MiB in all: the server stops reading after 1 MiB and discards the rest.
        if (sent >= 64) c.close();
        else {
          sent += 1;
          c.enqueue(chunk);
        }
      },
    });
    const res = await fetch(`${server.url}/api/v1/tasks/${TASK}/action/comment`, {
      method: "POST",
      headers: { authorization: `Bearer ${SUPER}`, "content-type": "application/json" },
      body,
      duplex: "half",
    });
    await expectError(res, 413, GRPC_CODES.RESOURCE_EXHAUSTED);
    expect((await call(`/api/v1/tasks/${TASK}/action/comment`, { comment: "still up" })).status).toBe(200);
  });

  it("keeps a keep-alive connection usable after a 413 (the unread body is drained)", async () => {
    // node:http's global agent keeps connections alive in Node 20: a request after a refused one
    // rides the same socket, which only works if the server pulled the rest of the body off it.
    const viaNodeHttp = (chunks: readonly string[], contentLength?: number) =>
      new Promise<{ status: number; socketReused: boolean }>((resolve, reject) => {
        const url = new URL(`${server.url}/api/v1/tasks/${TASK}/action/comment`);
        const headers: Record<string, string | number> = { authorization: `Bearer ${SUPER}` };
        if (contentLength !== undefined) headers["content-length"] = contentLength;
        const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers }, (res) => {
          res.resume();
          res.on("end", () => resolve({ status: res.statusCode ?? 0, socketReused: req.reusedSocket }));
        });
        req.on("error", reject);
        for (const c of chunks) req.write(c);
        req.end();
      });
    const ok = JSON.stringify({ comment: "fine" });
    const over = "y".repeat(DEFAULT_MAX_BODY_BYTES + 1);
    // Declared too large: refused unread.
    expect((await viaNodeHttp([over], over.length)).status).toBe(413);
    expect(await viaNodeHttp([ok], Buffer.byteLength(ok))).toEqual({ status: 200, socketReused: true });
    // Chunked, found too large while reading: the handler cancels, the server drains the rest.
    const piece = " ".repeat(256 * 1024);
    expect((await viaNodeHttp(Array.from({ length: 8 }, () => piece))).status).toBe(413);
    expect(await viaNodeHttp([ok])).toEqual({ status: 200, socketReused: true });
  });

  it("serialises 100 concurrent comments: commentCount equals the number sent", async () => {
    const before = countOf(store.get());
    const n = 100;
    // Every request is in flight, headers received, before any body arrives: a handler that read
    // the world too early, or ran actions side by side, would lose comments here.
    let arrived = 0;
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const onRequest = () => {
      arrived += 1;
      if (arrived === n) open();
    };
    server.server.on("request", onRequest);
    try {
      const statuses = await Promise.all(
        Array.from({ length: n }, async (_, i) => {
          const bytes = new TextEncoder().encode(JSON.stringify({ comment: `concurrent ${i}` }));
          // A leading space first: fetch sends the headers only once the body has a first chunk.
          let started = false;
          const body = new ReadableStream<Uint8Array>({
            async pull(c) {
              if (!started) {
                started = true;
                c.enqueue(new TextEncoder().encode(" "));
                return;
              }
              await gate;
              c.enqueue(bytes);
              c.close();
            },
          });
          const res = await fetch(`${server.url}/api/v1/tasks/${TASK}/action/comment`, {
            method: "POST",
            headers: { authorization: `Bearer ${SUPER}`, "content-type": "application/json" },
            body,
            duplex: "half",
          });
          await res.arrayBuffer();
          return res.status;
        }),
      );
      expect(arrived).toBe(n);
      expect(statuses.filter((s) => s === 200)).toHaveLength(n);
    } finally {
      server.server.off("request", onRequest);
    }
    expect(countOf(store.get())).toBe(before + n);
    const taskId = findTask(store.get(), TASK)?.id ?? "";
    const texts = (store.get().comments.get(taskId) ?? []).map((c) => c.comment);
    for (let i = 0; i < n; i++) expect(texts).toContain(`concurrent ${i}`);
  });
});

describe("serve: lifecycle", () => {
  it("serves a world given directly, stamps actions with the clock, and closes", async () => {
    const s = await serve({ world: fixture, clock: () => "2030-01-01T00:00:00Z" });
    try {
      const res = await fetch(`${s.url}/api/v1/tasks/${TASK}/action/comment`, {
        method: "POST",
        headers: { authorization: `Bearer ${SUPER}` },
        body: JSON.stringify({ comment: "x" }),
      });
      expect(res.status).toBe(200);
      const decoded = decodeCommentResponse(await res.json());
      expect(decoded.ok && decoded.value.taskView?.task?.updatedAt).toBe("2030-01-01T00:00:00Z");
      expect(countOf(s.store.get())).toBe(countOf(fixture) + 1);
    } finally {
      await s.close();
    }
    await expect(fetch(`${s.url}/api/v1/tasks/${TASK}/action/comment`, { method: "POST" })).rejects.toThrow();
  });

  it("rejects when the port is taken, saying so and what to do; the code stays EADDRINUSE", async () => {
    const port = Number(new URL(server.url).port);
    const e: unknown = await serve({ world: fixture, port }).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(Error);
    expect((e as Error).message).toBe(`serve: cannot listen on 127.0.0.1:${port}: the port is in use (EADDRINUSE); stop what uses it, or pass another port (0 picks a free one)`);
    expect((e as { code?: unknown }).code).toBe("EADDRINUSE");
  });
});

describe("serve: options a JavaScript caller got wrong are a rejection that says what to fix, before listening", () => {
  const rejection = async (options: unknown): Promise<string> => {
    let settled: Promise<RunningServer> | undefined;
    // Never a synchronous throw, whatever the options.
    expect(() => (settled = serve(options as Parameters<typeof serve>[0]))).not.toThrow();
    return (settled ?? Promise.resolve(undefined)).then(
      async (s) => {
        await s?.close();
        return "resolved";
      },
      (e: unknown) => (e instanceof Error ? e.message : String(e)),
    );
  };

  it.each([
    ["no world or store (it answered 500 to everything)", {}, "serve: a world or a store is required: serve({ world }) with a world loadWorld returned, or serve({ store })"],
    ["no options at all", undefined, "serve: options must be an object such as { world } or { store }, not undefined"],
    ["loadWorld's Result instead of its value", { world: { ok: true, value: fixture } }, "serve: world must be a World (loadWorld returns a Result: pass its .value when .ok)"],
    ["a store without get and set", { store: {} }, "serve: store must be a WorldStore, an object with get() and set(world, events) (createWorldStore makes one)"],
    ["both a world and a store", { world: fixture, store: createWorldStore(fixture) }, "serve: give world or store, not both (a store already holds its world)"],
    ["port -1", { world: fixture, port: -1 }, "serve: port must be a whole number from 0 to 65535 (0 picks a free port), not -1"],
    ["port 65536", { world: fixture, port: 65536 }, "serve: port must be a whole number from 0 to 65535 (0 picks a free port), not 65536"],
    ["a port as a string", { world: fixture, port: "8080" }, 'serve: port must be a whole number from 0 to 65535 (0 picks a free port), not "8080"'],
    ["an empty host", { world: fixture, host: "" }, 'serve: host must be an address or host name such as "127.0.0.1", not ""'],
    ["a connection limit below 1", { world: fixture, maxConnections: 0 }, "serve: maxConnections must be a whole number ≥ 1, not 0"],
  ])("%s", async (_what, options, message) => {
    expect(await rejection(options)).toBe(message);
  });
});
