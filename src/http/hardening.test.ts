/**
 * Issue 12, "Harden", each on loopback: idle connections cannot starve new clients (point 8), shutdown
 * has a deadline (point 9, the server's part), comments are bounded (point 10).
 */
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_COMMENT_CHARS, MAX_COMMENT_TEXT_PER_TASK } from "../reducers/limits.js";
import { reduce } from "../reducers/reduce.js";
import { loadWorld } from "../world/load-world.js";
import { saveWorld } from "../world/save-world.js";
import { findTask, type World } from "../world/world.js";
import { type ErrorBody, GRPC_CODES } from "./error-body.js";
import { DEFAULT_CONNECTION_LIMITS, type RunningServer, serve } from "./server.js";

const fixture: World = (() => {
  const r = loadWorld(JSON.parse(readFileSync(new URL("../../fixtures/world.json", import.meta.url), "utf8")));
  if (!r.ok) throw new Error("fixtures/world.json does not load");
  return r.value;
})();

const sockets: Socket[] = [];
let server: RunningServer | undefined;
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await server?.close({ deadlineMs: 0 });
  server = undefined;
});

function open(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), hostname, () => resolve(s));
    s.on("error", () => undefined);
    s.once("error", reject);
    sockets.push(s);
  });
}
const closed = (s: Socket): Promise<number> => {
  const t0 = Date.now();
  // Read whatever comes, or the socket never sees the server's FIN.
  s.resume();
  return new Promise((resolve) => (s.destroyed ? resolve(0) : s.once("close", () => resolve(Date.now() - t0))));
};

async function comment(url: string): Promise<number> {
  const res = await fetch(`${url}/api/v1/tasks/1001/action/comment`, {
    method: "POST",
    headers: { authorization: "Bearer tok-super", "content-type": "application/json", connection: "close" },
    body: JSON.stringify({ comment: "still served" }),
    signal: AbortSignal.timeout(5000),
  });
  await res.arrayBuffer();
  return res.status;
}

describe("issue 12 point 8: connections that send nothing cannot starve new clients", () => {
  it("documents sane defaults", () => {
    expect(DEFAULT_CONNECTION_LIMITS).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000, maxConnections: 1024 });
  });

  it("2,000 idle connections over a cap of 1,024: a new client is still served, idle ones are closed first", async () => {
    // Timeouts long enough not to matter here: the cap alone has to keep the server usable.
    server = await serve({ world: fixture, port: 0, headersTimeoutMs: 60_000, requestTimeoutMs: 60_000 });
    const url = server.url;
    const idle: Socket[] = [];
    for (let i = 0; i < 2000; i += 100) idle.push(...(await Promise.all(Array.from({ length: 100 }, () => open(url)))));
    expect(await comment(url)).toBe(200);
    expect(await comment(url)).toBe(200);
    // The oldest idle connections made room: no more than the cap is open on the server side.
    const live = await new Promise<number>((resolve, reject) => server?.server.getConnections((e, n) => (e ? reject(e) : resolve(n))));
    expect(live).toBeLessThanOrEqual(DEFAULT_CONNECTION_LIMITS.maxConnections);
    expect(idle[0]?.destroyed || (await Promise.race([closed(idle[0] as Socket).then(() => true), new Promise((r) => setTimeout(() => r(false), 2000))]))).toBe(true);
  }, 60_000);

  it("every connection trickling a request body (the cap reached, none idle): a new client is still served, the slowest body is closed", async () => {
    server = await serve({ world: fixture, port: 0, maxConnections: 16, headersTimeoutMs: 60_000, requestTimeoutMs: 60_000 });
    const url = server.url;
    const trickling = await Promise.all(Array.from({ length: 16 }, () => open(url)));
    for (const s of trickling)
      s.write("POST /api/v1/tasks/1001/action/comment HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer tok-super\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{");
    // Every one of them now has a request in progress, waiting for 99 more bytes.
    await new Promise((r) => setTimeout(r, 200));
    expect(await comment(url)).toBe(200);
    expect(await comment(url)).toBe(200);
    // One of them was closed to make room: the one the server saw start its body first, which on a
    // loaded machine need not be the first this test opened (its writes reach the server in any order).
    const someClosed = await Promise.race([Promise.any(trickling.map((s) => (s.destroyed ? Promise.resolve(true) : closed(s).then(() => true)))), new Promise((r) => setTimeout(() => r(false), 5000))]);
    expect(someClosed).toBe(true);
  }, 30_000);

  it("a connection that sends nothing is closed after the header timeout", async () => {
    server = await serve({ world: fixture, port: 0, headersTimeoutMs: 300, requestTimeoutMs: 1000 });
    const s = await open(server.url);
    const ms = await closed(s);
    expect(ms).toBeGreaterThanOrEqual(200);
    expect(ms).toBeLessThan(5000);
  });

  it("a request whose body never finishes gets 408 after the request timeout", async () => {
    server = await serve({ world: fixture, port: 0, headersTimeoutMs: 200, requestTimeoutMs: 400 });
    const s = await open(server.url);
    let answer = "";
    s.on("data", (c: Buffer) => (answer += c.toString("latin1")));
    s.write("POST /api/v1/tasks/1001/action/comment HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer tok-super\r\nContent-Length: 100\r\n\r\n{\"comm");
    const ms = await closed(s);
    expect(ms).toBeLessThan(5000);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  });

  it("an idle keep-alive connection is closed after the keep-alive timeout", async () => {
    server = await serve({ world: fixture, port: 0, keepAliveTimeoutMs: 200 });
    const s = await open(server.url);
    s.write("POST /nope HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
    const ms = await closed(s);
    expect(ms).toBeLessThan(5000);
  });

  it("refuses nonsensical limits as a programmer error", async () => {
    await expect(serve({ world: fixture, port: 0, maxConnections: 0 })).rejects.toThrow(/maxConnections/);
    await expect(serve({ world: fixture, port: 0, headersTimeoutMs: 5000, requestTimeoutMs: 1000 })).rejects.toThrow(/headersTimeoutMs/);
  });
});

describe("issue 12 point 9 (the server's part): shutdown has a deadline", () => {
  it("close({ deadlineMs }) resolves although a slow client is mid-request", async () => {
    server = await serve({ world: fixture, port: 0 });
    const s = await open(server.url);
    s.write("POST /api/v1/tasks/1001/action/comment HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer tok-super\r\nContent-Length: 100\r\n\r\n{");
    await new Promise((r) => setTimeout(r, 50));
    const t0 = Date.now();
    await server.close({ deadlineMs: 200 });
    expect(Date.now() - t0).toBeLessThan(3000);
    server = undefined;
  });
});

describe("issue 12 point 10: a comment size limit well below the body limit, and bounded comments per task", () => {
  const post = (url: string, text: string) =>
    fetch(`${url}/api/v1/tasks/1001/action/comment`, {
      method: "POST",
      headers: { authorization: "Bearer tok-contractor", "content-type": "application/json" },
      body: JSON.stringify({ comment: text }),
    });

  it("over 10,000 characters is 400 INVALID_ARGUMENT on comment, for Comment and every action with a comment; over 1 MiB stays 413", async () => {
    server = await serve({ world: fixture, port: 0 });
    expect(MAX_COMMENT_CHARS).toBe(10_000);
    expect((await post(server.url, "x".repeat(MAX_COMMENT_CHARS))).status).toBe(200);
    // Characters, not UTF-16 units: 10,000 emoji are 20,000 units and still fit.
    expect((await post(server.url, "🙂".repeat(MAX_COMMENT_CHARS))).status).toBe(200);
    const long = await post(server.url, "x".repeat(MAX_COMMENT_CHARS + 1));
    expect(long.status).toBe(400);
    const body = (await long.json()) as ErrorBody;
    expect(body.code).toBe(GRPC_CODES.INVALID_ARGUMENT);
    expect(JSON.stringify(body.details)).toContain('"field":"comment"');
    const reset = await fetch(`${server.url}/api/v1/tasks/1001/action/reset`, {
      method: "POST",
      headers: { authorization: "Bearer tok-super", "content-type": "application/json" },
      body: JSON.stringify({ comment: "y".repeat(MAX_COMMENT_CHARS + 1) }),
    });
    expect(reset.status).toBe(400);
    expect((await post(server.url, "z".repeat(1024 * 1024 + 1))).status).toBe(413);
  });

  it("a task keeps at most MAX_COMMENT_TEXT_PER_TASK characters of comments from Comment: the next is 400 FAILED_PRECONDITION, and the world still saves", async () => {
    let w = fixture;
    const long = "x".repeat(MAX_COMMENT_CHARS);
    // Fill the budget with the longest comments (400 of them), then one short one more is refused.
    for (let i = 0; (w.comments.get(findTask(w, "1001")?.id ?? "")?.textLength ?? 0) + MAX_COMMENT_CHARS <= MAX_COMMENT_TEXT_PER_TASK; i++) {
      const r = reduce(w, { type: "comment", taskId: "1001", comment: long }, { actorId: "u-contractor" });
      if (!r.ok) throw new Error(r.error.message);
      w = r.value.world;
    }
    const filled = w.comments.get(findTask(w, "1001")?.id ?? "")?.textLength ?? 0;
    expect(filled).toBeGreaterThan(MAX_COMMENT_TEXT_PER_TASK - MAX_COMMENT_CHARS);
    const tail = "y".repeat(MAX_COMMENT_TEXT_PER_TASK - filled + 1);
    server = await serve({ world: w, port: 0 });
    const res = await post(server.url, tail);
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).code).toBe(GRPC_CODES.FAILED_PRECONDITION);
    expect(server.store.get()).toBe(w);
    // Bounded: the saved world holds at most the budget's worth of comment text for the task.
    expect(JSON.stringify(saveWorld(w)).length).toBeLessThan(JSON.stringify(saveWorld(fixture)).length + MAX_COMMENT_TEXT_PER_TASK + 400 * 300);
  });
});
