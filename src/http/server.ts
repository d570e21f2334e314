/**
 * `serve()`: the dispatcher on a `node:http` server, directly: the raw request target, Node's
 * headers and the socket's body go to the dispatcher as they are, and its reply is written with one
 * `end` — no web Request or Response in between (they cost more than the reducers they carry).
 * `nodeListener` still mounts any fetch handler on a server of your own.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { err, ok, type Result } from "../result.js";
import type { World } from "../world/world.js";
import { type Dispatch, dispatcherWith, type IncomingCall } from "./dispatch.js";
import { errorBodyOf, type HttpFailure } from "./error-body.js";
import type { FetchHandler, FetchHandlerOptions } from "./fetch-handler.js";
import { tooLarge } from "./read-body.js";
import { ReplyBuffers } from "./reply-buffers.js";
import { createWorldStore, type WorldStore } from "./world-store.js";

/**
 * Options of {@link serve}: what to serve (a world, or a store you keep), where, and the handler
 * options. `port` defaults to 0 (a free port; read it from the returned `url`); `host` to
 * 127.0.0.1, so a simulator is not reachable from the network unless asked.
 *
 * @example
 * ```ts
 * const options: ServeOptions = { world, port: 8080, host: "0.0.0.0", clock: systemClock };
 * ```
 */
export type ServeOptions = FetchHandlerOptions &
  ConnectionLimits & {
    readonly port?: number;
    readonly host?: string;
    /**
     * Serve HTTPS with this PEM key and certificate (chain) instead of plain HTTP: for clients
     * that only speak HTTPS to the service (the URL printed is then `https://…`).
     */
    readonly tls?: TlsFiles;
  } & ({ readonly world: World; readonly store?: undefined } | { readonly store: WorldStore; readonly world?: undefined });

/**
 * The PEM texts `serve` needs for HTTPS: the private key and the certificate (leaf first, then any
 * intermediates), as `openssl req -x509 …` writes them.
 *
 * @example
 * ```ts
 * const tls: TlsFiles = { key: readFileSync("localhost.key", "utf8"), cert: readFileSync("localhost.crt", "utf8") };
 * const server = await serve({ world, port: 8443, tls }); // server.url: https://127.0.0.1:8443
 * ```
 */
export interface TlsFiles {
  readonly key: string | Uint8Array;
  readonly cert: string | Uint8Array;
}

/**
 * How long a client may take and how many may be connected, so that clients which connect and send
 * nothing (or send slowly) cannot starve the others. Every field is optional; see
 * {@link DEFAULT_CONNECTION_LIMITS}.
 *
 * @example
 * ```ts
 * const limits: ConnectionLimits = { headersTimeoutMs: 5_000, maxConnections: 256 };
 * ```
 */
export interface ConnectionLimits {
  /** Time from connecting (or from the previous response) to a request's complete headers; then the connection is closed (408). */
  readonly headersTimeoutMs?: number;
  /** Time to receive a whole request, body included; then 408 and the connection is closed. */
  readonly requestTimeoutMs?: number;
  /** How long an idle keep-alive connection is kept after a response. */
  readonly keepAliveTimeoutMs?: number;
  /**
   * Connections open at once. A new connection over the cap closes the connection idle the longest
   * (connected, or kept alive, with no request in progress) — so idle connections cannot lock new
   * clients out —, else the one whose request body has been arriving longest (a client trickling
   * bodies cannot either), and is itself refused only when every connection has a whole request in progress.
   */
  readonly maxConnections?: number;
}

/**
 * The defaults of {@link ConnectionLimits}: 10 s for headers, 30 s for a request, 5 s keep-alive,
 * 1,024 connections.
 *
 * @example
 * ```ts
 * serve({ world, ...DEFAULT_CONNECTION_LIMITS, maxConnections: 64 });
 * ```
 */
export const DEFAULT_CONNECTION_LIMITS: Required<ConnectionLimits> = Object.freeze({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1024,
});

/**
 * A running server: its base URL (`http://127.0.0.1:PORT`), the store it serves (the live world
 * and, for the default store, the audit-event log), and `close()`.
 *
 * @example
 * ```ts
 * const server = await serve({ world });
 * console.log(`listening on ${server.url}`);
 * await server.close();
 * ```
 */
export interface RunningServer {
  readonly url: string;
  readonly store: WorldStore;
  readonly server: Server;
  /**
   * Stops accepting connections, closes idle ones, and resolves once the requests in progress are
   * done — or, with `deadlineMs`, once that much time has passed, closing whatever is still open
   * (a slow client cannot hold shutdown). Calling it again with a shorter deadline shortens it.
   */
  close(options?: { readonly deadlineMs?: number }): Promise<void>;
}

/** The request body as a web stream that reads the socket only on demand. */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let detach = (): void => undefined;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        return new Promise<void>((resolve) => {
          const settle = (act: () => void): void => {
            detach();
            act();
            resolve();
          };
          const onReadable = (): void => {
            const chunk: unknown = req.read();
            if (chunk instanceof Uint8Array)
              settle(() => controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength)));
          };
          const onEnd = (): void => settle(() => controller.close());
          const onError = (e: Error): void => settle(() => controller.error(e));
          const onClose = (): void => {
            if (!req.readableEnded) settle(() => controller.error(new Error("the client closed the connection mid-body")));
          };
          detach = () => {
            req.off("readable", onReadable);
            req.off("end", onEnd);
            req.off("error", onError);
            req.off("close", onClose);
          };
          if (req.readableEnded) return settle(() => controller.close());
          req.on("readable", onReadable);
          req.on("end", onEnd);
          req.on("error", onError);
          req.on("close", onClose);
          onReadable();
        });
      },
      cancel() {
        // The handler stopped reading (body too large). Destroying the request would reset the
        // socket before the 413 reaches the client; draining discards the rest without keeping it,
        // and node:http's requestTimeout bounds a client that never stops sending.
        detach();
        req.resume();
      },
    },
    // Zero: nothing is read from the socket before the handler asks, so a body the handler never
    // reads (404, 401, declared too large) is left to node:http, which discards it.
    { highWaterMark: 0 },
  );
}

/** Our own address, as the origin of request URLs: unlike the Host header, no client controls it. */
function originOf(req: IncomingMessage): string {
  const address = req.socket.localAddress ?? "127.0.0.1";
  return `http://${address.includes(":") ? `[${address}]` : address}:${req.socket.localPort ?? 80}`;
}

function toRequest(req: IncomingMessage): Request {
  const target = req.url ?? "/";
  // "//x" must stay a path, so origin-form is concatenated rather than resolved.
  const url = target.startsWith("/") ? new URL(originOf(req) + target) : new URL(target);
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i] ?? "", req.rawHeaders[i + 1] ?? "");
  const method = req.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  return new Request(url, hasBody ? { method, headers, body: bodyStream(req), duplex: "half" } : { method, headers });
}

async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  res.statusCode = response.status;
  for (const [name, value] of response.headers) if (name !== "set-cookie") res.setHeader(name, value);
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader("set-cookie", cookies);
  if (response.body === null) {
    res.end();
    return;
  }
  await pipeline(Readable.fromWeb(response.body), res);
}

function plainError(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(errorBodyOf({ status, code: status === 400 ? "INVALID_ARGUMENT" : "INTERNAL", reason: status === 400 ? "BAD_REQUEST" : "INTERNAL", message }));
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body);
}

/**
 * The `node:http` request listener for a fetch handler, for mounting it on a server you create.
 *
 * @example
 * ```ts
 * const server = createServer(nodeListener(createFetchHandler(store)));
 * server.listen(8080, "127.0.0.1");
 * ```
 */
export function nodeListener(handler: FetchHandler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    let request: Request;
    try {
      request = toRequest(req);
    } catch (e: unknown) {
      // A request target or method the fetch API cannot represent (e.g. TRACE).
      plainError(res, 400, `cannot serve this request: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    handler(request)
      .then((response) => writeResponse(res, response))
      .catch((e: unknown) => plainError(res, 500, `policy-sim http: ${e instanceof Error ? e.message : String(e)}`));
  };
}

/**
 * Reads the body of a node request, refusing (413) as soon as more than `limit` bytes arrived. A
 * declared `Content-Length` over the limit is refused unread. Past the limit the rest is drained off
 * the socket and discarded, so the 413 reaches the client and a keep-alive connection stays usable;
 * the server's request timeout bounds a client that never stops sending.
 */
class NodeBodyRead {
  private readonly chunks: Buffer[] = [];
  private total = 0;
  private readonly onData: (chunk: Buffer) => void;
  private readonly onEnd: () => void;
  private readonly onError: (e: Error) => void;
  private readonly onClose: () => void;

  constructor(
    private readonly req: IncomingMessage,
    private readonly limit: number,
    private readonly resolve: (r: Result<Uint8Array, HttpFailure>) => void,
  ) {
    // Assigned, not declared as fields or methods: no function is named (or bound) per request.
    this.onData = (chunk) => this.data(chunk);
    this.onEnd = () => this.done(ok(this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.total)));
    this.onError = (e) =>
      this.done(err({ status: 400, code: "INVALID_ARGUMENT", reason: "BODY_UNREADABLE", message: `the request body could not be read: ${e.message}` }));
    this.onClose = () => {
      if (!this.req.readableEnded)
        this.done(err({ status: 400, code: "INVALID_ARGUMENT", reason: "BODY_UNREADABLE", message: "the client closed the connection mid-body" }));
    };
    req.on("data", this.onData);
    req.on("end", this.onEnd);
    req.on("error", this.onError);
    req.on("close", this.onClose);
  }

  private data(chunk: Buffer): void {
    this.total += chunk.byteLength;
    if (this.total > this.limit) {
      this.chunks.length = 0;
      this.done(err(tooLarge(this.limit)));
      // Keep reading, keep nothing.
      this.req.resume();
      return;
    }
    this.chunks.push(chunk);
  }

  private done(r: Result<Uint8Array, HttpFailure>): void {
    this.req.off("data", this.onData);
    this.req.off("end", this.onEnd);
    this.req.off("error", this.onError);
    this.req.off("close", this.onClose);
    this.resolve(r);
  }
}

function readNodeBody(req: IncomingMessage, limit: number): Promise<Result<Uint8Array, HttpFailure>> {
  const declared = req.headers["content-length"];
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > limit) return Promise.resolve(err(tooLarge(limit)));
  if (req.readableEnded) return Promise.resolve(ok(new Uint8Array(0)));
  return new Promise((resolve) => void new NodeBodyRead(req, limit, resolve));
}

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(", ") : v;
}

/** A node request as the dispatcher's call: the raw target, Node's parsed headers, the socket's body. */
class NodeCall implements IncomingCall {
  readonly method: string;
  readonly target: string;
  readonly header: (name: string) => string | undefined;

  constructor(private readonly req: IncomingMessage) {
    this.method = req.method ?? "GET";
    this.target = req.url ?? "/";
    // Routes receive `header` on its own, so it carries its request with it.
    this.header = (name) => headerOf(req, name);
  }

  readBody(limit: number): Promise<Result<Uint8Array, HttpFailure>> {
    return readNodeBody(this.req, limit);
  }
}

/** Runs one request through the dispatcher and writes its reply: one `writeHead`, one `end`. */
async function answer(dispatch: Dispatch, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const reply = await dispatch(new NodeCall(req));
    // The dispatcher's bytes as they are: the length and the bytes written are the same buffer's.
    const head: string[] = [];
    for (const name in reply.headers) head.push(name, reply.headers[name] ?? "");
    head.push("content-length", String(reply.body.byteLength));
    res.writeHead(reply.status, head);
    // Whoever lent the body takes it back once the socket has it (`finish`), never before.
    sentBodies.set(res, reply.body);
    res.end(reply.body);
  } catch (e: unknown) {
    plainError(res, 500, `policy-sim http: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** The body each response in flight was given, for `serve` to take back on `finish`. */
const sentBodies = new WeakMap<ServerResponse, Uint8Array>();

/**
 * The `node:http` request listener for the dispatcher: what `serve` runs.
 *
 * @example
 * ```ts
 * const server = createServer(dispatchListener(createDispatcher(store)));
 * server.listen(8080, "127.0.0.1");
 * ```
 */
export function dispatchListener(dispatch: Dispatch): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => void answer(dispatch, req, res);
}

/** A problem with `serve`'s options or with listening: what to fix, never "internal error". */
function serveError(message: string, cause?: unknown): Error {
  const e = new Error(`serve: ${message}`, cause === undefined ? undefined : { cause });
  // The system's code (EADDRINUSE…) stays readable, as on the error node:http gave.
  const code = typeof cause === "object" && cause !== null && "code" in cause ? cause.code : undefined;
  return code === undefined ? e : Object.assign(e, { code });
}

/**
 * The world store `serve` is to serve, from options a JavaScript caller may have got wrong: without
 * this, `serve({})` listened and answered 500 to every request.
 */
function storeOf(options: unknown): WorldStore {
  if (typeof options !== "object" || options === null) throw serveError(`options must be an object such as { world } or { store }, not ${options === null ? "null" : typeof options}`);
  const { world, store } = options as { world?: unknown; store?: unknown };
  if (world !== undefined && store !== undefined) throw serveError("give world or store, not both (a store already holds its world)");
  if (store !== undefined) {
    const s = store as Partial<WorldStore> | null;
    if (typeof s !== "object" || s === null || typeof s.get !== "function" || typeof s.set !== "function")
      throw serveError("store must be a WorldStore, an object with get() and set(world, events) (createWorldStore makes one)");
    return s as WorldStore;
  }
  if (typeof world !== "object" || world === null || !("tasks" in world) || !("index" in world) || !("policies" in world)) {
    // A loadWorld Result passed as it is, the likeliest slip: say where its world is.
    const hint = typeof world === "object" && world !== null && "ok" in world ? " (loadWorld returns a Result: pass its .value when .ok)" : ", such as loadWorld(json).value";
    throw serveError(world === undefined ? "a world or a store is required: serve({ world }) with a world loadWorld returned, or serve({ store })" : `world must be a World${hint}`);
  }
  return createWorldStore(world as World);
}

const pemOf = (v: string | Uint8Array): string | Buffer => (typeof v === "string" ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength));

/** The PEM texts of `options.tls`, checked to be texts (node:tls says the rest), or `undefined` for plain HTTP. */
function tlsOf(options: ServeOptions): TlsFiles | undefined {
  const tls: unknown = options.tls;
  if (tls === undefined) return undefined;
  const pem = (v: unknown): v is string | Uint8Array => (typeof v === "string" && v !== "") || (v instanceof Uint8Array && v.byteLength > 0);
  if (typeof tls !== "object" || tls === null || !pem((tls as TlsFiles).key) || !pem((tls as TlsFiles).cert))
    throw serveError("tls must be { key, cert }, the PEM private key and certificate (strings or bytes), such as openssl req -x509 writes");
  return tls as TlsFiles;
}

/** The port and host to listen on, checked: node:http would throw its own RangeError for port -1. */
function addressOf(options: ServeOptions): { port: number; host: string } {
  const port: unknown = options.port ?? 0;
  if (typeof port !== "number" || !Number.isInteger(port) || port < 0 || port > 65535)
    throw serveError(`port must be a whole number from 0 to 65535 (0 picks a free port), not ${typeof port === "number" ? port : JSON.stringify(port)}`);
  const host: unknown = options.host ?? "127.0.0.1";
  if (typeof host !== "string" || host === "") throw serveError(`host must be an address or host name such as "127.0.0.1", not ${JSON.stringify(host)}`);
  return { port, host };
}

/** Why `listen` failed, in words that say what to do. */
function listenError(e: unknown, host: string, port: number): Error {
  const code = typeof e === "object" && e !== null && "code" in e ? String(e.code) : "";
  const where = `${host}:${port}`;
  if (code === "EADDRINUSE") return serveError(`cannot listen on ${where}: the port is in use (EADDRINUSE); stop what uses it, or pass another port (0 picks a free one)`, e);
  if (code === "EACCES") return serveError(`cannot listen on ${where}: permission denied (EACCES); ports below 1024 need privileges, pass a higher port`, e);
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND") return serveError(`cannot listen on ${where}: no such local address (${code}); pass a host this machine has, such as 127.0.0.1`, e);
  return serveError(`cannot listen on ${where}: ${e instanceof Error ? e.message : String(e)}`, e);
}

/**
 * Serves the task actions over HTTP on `node:http` (see {@link createFetchHandler} for the routes,
 * authentication and errors). Resolves once listening. Rejects, never throws, with an `Error`
 * whose message starts `serve:` and says what to fix: options without a world or store, a port
 * outside 0–65535, a bad connection limit, or a port it cannot listen on (in use: the error's
 * `code` is `EADDRINUSE`, as node:http's).
 *
 * @example
 * ```ts
 * const loaded = loadWorld(JSON.parse(readFileSync("fixtures/world.json", "utf8")));
 * if (loaded.ok) {
 *   const server = await serve({ world: loaded.value, port: 0 });
 *   const res = await fetch(`${server.url}/api/v1/tasks/1001/action/comment`, {
 *     method: "POST",
 *     headers: { authorization: "Bearer tok-super", "content-type": "application/json" },
 *     body: JSON.stringify({ comment: "checked" }),
 *   });
 *   console.log(res.status, server.store.get().tasks.size);
 *   await server.close();
 * }
 * ```
 */
export async function serve(options: ServeOptions): Promise<RunningServer> {
  // Inside the async function, so every problem is a rejection, even for a caller that never awaits.
  const store = storeOf(options);
  const { port: wanted, host } = addressOf(options);
  const limits = limitsOf(options);
  const handlerOptions: FetchHandlerOptions = {
    ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
    ...(options.clock !== undefined ? { clock: options.clock } : {}),
    ...(options.routes !== undefined ? { routes: options.routes } : {}),
    ...(options.accessTokens !== undefined ? { accessTokens: options.accessTokens } : {}),
    ...(options.authClock !== undefined ? { authClock: options.authClock } : {}),
    ...(options.connectorsComplete !== undefined ? { connectorsComplete: options.connectorsComplete } : {}),
    ...(options.timersFire !== undefined ? { timersFire: options.timersFire } : {}),
    ...(options.onTimersRefused !== undefined ? { onTimersRefused: options.onTimersRefused } : {}),
    // A client assertion may name the address served as its audience, besides the Host it used.
    audiences: [host, ...(options.audiences ?? [])],
  };
  // 200 bodies are assembled in blocks that come back once each response is sent.
  const buffers = new ReplyBuffers();
  const dispatch = dispatcherWith(store, handlerOptions, (value) => buffers.bytes(value));
  const idle = new Set<Socket>();
  // Connections whose request's body is still arriving, oldest first: over the cap with none idle,
  // the one that has been sending its body longest is closed, so clients that trickle bodies (one
  // byte a second on every connection) cannot lock everyone else out.
  const reading = new Set<Socket>();
  const open = new Set<Socket>();
  // node:http's header timeout starts with the first byte: a connection that sends nothing would
  // stay open forever. Each connection gets the header timeout for its first request too.
  const silent = new Map<Socket, ReturnType<typeof setTimeout>>();
  const tls = tlsOf(options);
  const timeouts = {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // How often node:http looks for connections past their timeouts (default 30 s: too coarse).
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
  };
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const timer = silent.get(req.socket);
    if (timer !== undefined) {
      clearTimeout(timer);
      silent.delete(req.socket);
    }
    idle.delete(req.socket);
    const socket = req.socket;
    reading.add(socket);
    const bodyDone = (): void => void reading.delete(socket);
    req.once("end", bodyDone);
    req.once("close", bodyDone);
    res.once("finish", bodyDone);
    res.on("finish", finished);
    void answer(dispatch, req, res);
  };
  let server: Server;
  try {
    // Over TLS a connection counts once its handshake is done; until then the handshake timeout
    // (the header timeout) bounds it, so a client that connects and sends nothing is still closed.
    server = tls === undefined ? createServer(timeouts, onRequest) : createTlsServer({ ...timeouts, key: pemOf(tls.key), cert: pemOf(tls.cert), handshakeTimeout: limits.headersTimeoutMs }, onRequest);
  } catch (e: unknown) {
    throw serveError(`tls: the key and certificate do not make a TLS server (${e instanceof Error ? e.message : String(e)}); give the PEM private key and its certificate, as openssl req -x509 writes them`, e);
  }
  // One listener for every response: `this` is the response (its socket is already detached).
  function finished(this: ServerResponse): void {
    const body = sentBodies.get(this);
    if (body !== undefined) buffers.release(body);
    // Idle again once answered; re-added last, so the set stays ordered by time idle.
    const socket = this.req.socket;
    if (!socket.destroyed && open.has(socket)) idle.add(socket);
  }
  server.on(tls === undefined ? "connection" : "secureConnection", (socket: Socket) => {
    if (open.size >= limits.maxConnections) {
      const oldest = idle.values().next();
      const slowest = reading.values().next();
      const victim = oldest.done !== true ? oldest.value : slowest.done !== true ? slowest.value : undefined;
      if (victim === undefined) {
        socket.destroy();
        return;
      }
      forget(victim);
      victim.destroy();
    }
    open.add(socket);
    idle.add(socket);
    const timer = setTimeout(() => socket.destroy(), limits.headersTimeoutMs);
    timer.unref();
    silent.set(socket, timer);
    socket.once("close", () => forget(socket));
  });
  const forget = (socket: Socket): void => {
    open.delete(socket);
    idle.delete(socket);
    reading.delete(socket);
    const timer = silent.get(socket);
    if (timer !== undefined) clearTimeout(timer);
    silent.delete(socket);
  };
  await new Promise<void>((resolve, reject) => {
    const failed = (e: unknown): void => reject(listenError(e, host, wanted));
    server.once("error", failed);
    try {
      server.listen(wanted, host, () => {
        server.off("error", failed);
        resolve();
      });
    } catch (e: unknown) {
      server.off("error", failed);
      failed(e);
    }
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  return {
    url: `${tls === undefined ? "http" : "https"}://${host.includes(":") ? `[${host}]` : host}:${port}`,
    store,
    server,
    close: (closeOptions = {}) => {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((e) => {
          if (timer) clearTimeout(timer);
          if (e) reject(e);
          else resolve();
        });
      });
      // Keep-alive connections idle in a client's pool would otherwise hold close() open.
      server.closeIdleConnections();
      const deadline = closeOptions.deadlineMs;
      if (deadline !== undefined) {
        if (timer) clearTimeout(timer);
        timer = setTimeout(() => server.closeAllConnections(), Math.max(0, deadline));
        timer.unref();
      }
      return closing;
    },
  };
}

function limitsOf(options: ConnectionLimits): Required<ConnectionLimits> {
  const pick = (name: keyof ConnectionLimits, min: number): number => {
    const v: unknown = options[name] ?? DEFAULT_CONNECTION_LIMITS[name];
    // The caller's option, not our bug: a message that says what to pass, not an internal error.
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min) throw serveError(`${name} must be a whole number ≥ ${min}, not ${typeof v === "number" ? v : JSON.stringify(v)}`);
    return v;
  };
  const headersTimeoutMs = pick("headersTimeoutMs", 1);
  const requestTimeoutMs = pick("requestTimeoutMs", 1);
  // node:http refuses a header timeout longer than the request's.
  if (headersTimeoutMs > requestTimeoutMs) throw serveError(`headersTimeoutMs (${headersTimeoutMs}) must not exceed requestTimeoutMs (${requestTimeoutMs})`);
  return {
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: pick("keepAliveTimeoutMs", 1),
    maxConnections: pick("maxConnections", 1),
  };
}
