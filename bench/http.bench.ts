/**
 * The HTTP face's cost (issue 12, "Fast"): Comment and Hard Reset over `serve` on loopback, against
 * the in-process reducer and a bare `node:http` server in the same run, in interleaved rounds.
 * Run by `npm run bench` in its own process (BENCH_ONLY=http for it alone); stores its figures
 * under `http` in bench/results/latest.json (other keys untouched). Asserts nothing about time.
 *
 * What is compared, per request, medians over rounds:
 * - `reducer`: the reducer called in process on the world the previous call returned;
 * - `bare`: a `node:http` server that reads the body, parses it, and answers a canned body of the
 *   same size (a string, as JSON.stringify gives it) — what any HTTP server costs on this machine
 *   with this client;
 * - `bare (bytes)`: the same server answering the same body as a canned Buffer. Node writes a
 *   string by flattening and encoding it on every request, so this floor is lower; the HTTP cost is
 *   reported against it too (`httpLayerOverBareBytes…`), the headline stays against `bare`;
 * - `bare + reducer`: the bytes server calling the reducer in its handler (one world per round, as
 *   `serve`'s) before answering the canned Buffer: no routing, no auth, no encoding. What it costs
 *   over `bare (bytes)` is the reducer as a server runs it, between requests that leave the CPU's
 *   caches and the young generation to HTTP objects, which is more than the hot in-process loop's
 *   figure; `serve − (bare + reducer)` is then what our layer adds beyond running the reducer;
 * - `dispatcher`: the same server without node:http and the socket (the dispatcher `serve` builds,
 *   called in process, its reply buffers taken back after each call as `serve` does once the socket
 *   has them), which splits the HTTP cost into what our layer adds and what the transport glue adds;
 * - `serve`: policy-sim's server doing the real work.
 * The HTTP layer's cost is `serve − bare` (the client and the kernel cancel out); the target is
 * that it stays within 2× the reducer (the reducer's own time included).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { availableParallelism, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import { comment } from "../src/reducers/comment.js";
import { hardReset } from "../src/reducers/hard-reset.js";
import { dispatcherWith } from "../src/http/dispatch.js";
import { ReplyBuffers } from "../src/http/reply-buffers.js";
import { serve } from "../src/http/server.js";
import { ok } from "../src/result.js";
import { createWorldStore } from "../src/http/world-store.js";
import type { World } from "../src/world/world.js";
import { collectYoung } from "./harness.js";
import { connection, sendRequests } from "./http-client.js";
import { loadSynthetic } from "./worlds.js";

const QUICK = process.env["BENCH_QUICK"] === "1";
const TASKS = 10_000;
const ROUNDS = QUICK ? 3 : 7;
const REQUESTS = QUICK ? 400 : 1500;
const CONNECTIONS = 4;
const TOKEN = "tok-bench";
const ACTOR = { actorId: "u-1" }; // a Super Administrator in synthetic worlds
const loadAtStart = loadavg();
const log = (s: string): void => void process.stderr.write(`${s}\n`);

log(`http: loading a ${TASKS.toLocaleString("en")}-task world…`);
const loaded = loadSynthetic({ seed: 7, rulesPerPolicy: 16, matchAt: "last", tasks: TASKS }).world;
const world: World = { ...loaded, tokens: { ...loaded.tokens, [TOKEN]: ACTOR.actorId } };
const ids = [...world.tasks.values()].filter((t) => t.type?.kind === "grant" && t.state === "TASK_STATE_OPEN").slice(0, 64).map((t) => t.id);
if (ids.length === 0) throw new Error("http bench: no open grant task");
const COMMENT = "Checked with the team lead.";

/** Sends `n` requests over the connections with the lean client (`http-client.ts`); resolves with the wall ns. */
async function run(sockets: readonly Socket[], n: number, requests: readonly Buffer[]): Promise<number> {
  const t0 = process.hrtime.bigint();
  const failures = await sendRequests(sockets, n, requests);
  if (failures > 0) throw new Error(`http bench: ${failures} requests failed`);
  return Number(process.hrtime.bigint() - t0);
}

function requestBytes(path: string, body: string): Buffer {
  return Buffer.from(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
const commentBody = JSON.stringify({ comment: COMMENT });
const resetBody = JSON.stringify({});
/** One request per task of `ids`, cycled through by the client. */
const requestsOf = { comment: ids.map((id) => requestBytes(`/api/v1/tasks/${id}/action/comment`, commentBody)), reset: ids.map((id) => requestBytes(`/api/v1/tasks/${id}/action/reset`, resetBody)) };

// -------------------------------------------------------------------------------------------------
// The three sides.

function reducerNs(kind: "comment" | "reset", n: number): number {
  let w = world;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const id = ids[i % ids.length] ?? "";
    const r = kind === "comment" ? comment(w, { taskId: id, comment: COMMENT }, ACTOR) : hardReset(w, { taskId: id }, ACTOR);
    if (!r.ok) throw new Error(`http bench: ${r.error.message}`);
    w = r.value.world;
  }
  return Number(process.hrtime.bigint() - t0) / n;
}

/**
 * The dispatcher in process, without a socket: routing, the bearer check, reading the JSON body,
 * the reducer under the store's lock, and writing the answer's bytes — everything of `serve` but
 * node:http and the socket. Run on a fresh store per round, as `serve` is.
 */
async function dispatcherNs(kind: "comment" | "reset", n: number): Promise<number> {
  const buffers = new ReplyBuffers();
  const dispatch = dispatcherWith(createWorldStore(world), {}, (v) => buffers.bytes(v));
  const body = new TextEncoder().encode(kind === "comment" ? commentBody : resetBody);
  const headers: Readonly<Record<string, string>> = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", host: "127.0.0.1" };
  const header = (name: string): string | undefined => headers[name];
  const readBody = () => Promise.resolve(ok(body));
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const reply = await dispatch({ method: "POST", target: `/api/v1/tasks/${ids[i % ids.length] ?? ""}/action/${kind}`, header, readBody });
    if (reply.status !== 200) throw new Error(`http bench: dispatcher answered ${reply.status}`);
    buffers.release(reply.body);
  }
  return Number(process.hrtime.bigint() - t0) / n;
}

/** Canned answers of the real size: a bare server writes the same bytes policy-sim would. */
function cannedBody(kind: "comment" | "reset"): string {
  const id = ids[0] ?? "";
  const r = kind === "comment" ? comment(world, { taskId: id, comment: COMMENT }, ACTOR) : hardReset(world, { taskId: id }, ACTOR);
  if (!r.ok) throw new Error(r.error.message);
  return JSON.stringify(r.value.response);
}

/** The bytes server running the reducer on its own world (reset each round by `resetReducerWorld`). */
let reducerWorld: World = world;
let reducerNext = 0;
const resetReducerWorld = (): void => {
  reducerWorld = world;
  reducerNext = 0;
};

function bareServer(asBytes: boolean, withReducer = false): Promise<Server> {
  const text = { comment: cannedBody("comment"), reset: cannedBody("reset") };
  const bodies = asBytes ? { comment: Buffer.from(text.comment), reset: Buffer.from(text.reset) } : text;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const reset = req.url?.endsWith("/reset") === true;
      if (withReducer) {
        const id = ids[reducerNext++ % ids.length] ?? "";
        const r = reset ? hardReset(reducerWorld, { taskId: id }, ACTOR) : comment(reducerWorld, { taskId: id, comment: COMMENT }, ACTOR);
        if (!r.ok) throw new Error(`http bench: ${r.error.message}`);
        reducerWorld = r.value.world;
      }
      const body = reset ? bodies.reset : bodies.comment;
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      res.end(body);
    });
  });
  // Its connections live for the whole bench: no keep-alive timeout between rounds.
  server.keepAliveTimeout = 0;
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : ((s[(s.length - 1) >> 1] ?? 0) + (s[s.length >> 1] ?? 0)) / 2;
};

const bare = await bareServer(false);
const bareSockets = await Promise.all(Array.from({ length: CONNECTIONS }, () => connection((bare.address() as AddressInfo).port)));
const bareBytes = await bareServer(true);
const bareBytesSockets = await Promise.all(Array.from({ length: CONNECTIONS }, () => connection((bareBytes.address() as AddressInfo).port)));
const bareReducer = await bareServer(true, true);
const bareReducerSockets = await Promise.all(Array.from({ length: CONNECTIONS }, () => connection((bareReducer.address() as AddressInfo).port)));

interface Row {
  readonly action: "comment" | "reset";
  readonly reducerNs: number;
  readonly dispatcherNs: number;
  readonly bareNs: number;
  readonly bareBytesNs: number;
  readonly bareReducerNs: number;
  readonly serveNs: number;
}
const samples: Record<"comment" | "reset", { reducer: number[]; dispatcher: number[]; bare: number[]; bareBytes: number[]; bareReducer: number[]; serve: number[] }> = {
  comment: { reducer: [], dispatcher: [], bare: [], bareBytes: [], bareReducer: [], serve: [] },
  reset: { reducer: [], dispatcher: [], bare: [], bareBytes: [], bareReducer: [], serve: [] },
};

const SIDES = ["bare", "serve", "bareBytes", "bareReducer"] as const;
type Side = (typeof SIDES)[number];

/**
 * Times each network side once, in an order that rotates by round, with a young-generation
 * collection before each (as the harness does between batches): none pays for garbage another
 * left, and none always runs right after serve. The bare server with the reducer starts afresh.
 */
async function timeSides(round: number, time: (side: Side) => Promise<number>): Promise<Record<Side, number>> {
  const ns: Record<Side, number> = { bare: 0, serve: 0, bareBytes: 0, bareReducer: 0 };
  for (let k = 0; k < SIDES.length; k++) {
    const side = SIDES[(k + round) % SIDES.length] ?? "bare";
    if (side === "bareReducer") resetReducerWorld();
    collectYoung();
    ns[side] = await time(side);
  }
  return ns;
}

log(`http: ${ROUNDS} interleaved rounds of ${REQUESTS} requests over ${CONNECTIONS} keep-alive connections`);
for (let round = 0; round < ROUNDS + 1; round++) {
  for (const action of ["comment", "reset"] as const) {
    // A fresh server per round: the world grows with each comment, as the reducer's does.
    const server = await serve({ store: createWorldStore(world), port: 0 });
    const port = Number(new URL(server.url).port);
    const sockets = await Promise.all(Array.from({ length: CONNECTIONS }, () => connection(port)));
    const r = reducerNs(action, REQUESTS);
    const d = await dispatcherNs(action, REQUESTS);
    const socketsOf = { bare: bareSockets, serve: sockets, bareBytes: bareBytesSockets, bareReducer: bareReducerSockets };
    const ns = await timeSides(round, async (side) => (await run(socketsOf[side], REQUESTS, requestsOf[action])) / REQUESTS);
    const { bare: b, serve: s, bareBytes: bb, bareReducer: br } = ns;
    for (const sock of sockets) sock.destroy();
    await server.close();
    // Round 0 warms up the JIT on every path.
    if (round === 0) continue;
    samples[action].reducer.push(r);
    samples[action].dispatcher.push(d);
    samples[action].bare.push(b);
    samples[action].bareBytes.push(bb);
    samples[action].bareReducer.push(br);
    samples[action].serve.push(s);
  }
}
// -------------------------------------------------------------------------------------------------
// Server thread: the same sides with the client in a worker thread, each side's cost read as the
// busy time of this (the server's) thread per request (`performance.eventLoopUtilization`): the
// client's work and its caches are no longer the server's, as with a real client elsewhere.

// The bench runs under tsx; a worker thread has no loader of its own, so it registers tsx's, then
// imports the client.
const clientUrl = new URL("./http-client.ts", import.meta.url).href;
const client = new Worker(`import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(clientUrl)}); });`, { eval: true });
function workerRun(port: number, requests: readonly Buffer[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const before = performance.eventLoopUtilization();
    client.once("message", (m: { ok: boolean; failures?: number; error?: string }) => {
      const busy = performance.eventLoopUtilization(before);
      if (!m.ok || (m.failures ?? 0) > 0) reject(new Error(`http bench (worker client): ${m.error ?? `${m.failures} requests failed`}`));
      else resolve((busy.active * 1e6) / REQUESTS);
    });
    client.postMessage({ port, n: REQUESTS, requests: requests.map((r) => r.toString("latin1")) });
  });
}
const portOf = (server: Server): number => (server.address() as AddressInfo).port;
const threadSamples: Record<"comment" | "reset", { bare: number[]; bareBytes: number[]; bareReducer: number[]; serve: number[] }> = {
  comment: { bare: [], bareBytes: [], bareReducer: [], serve: [] },
  reset: { bare: [], bareBytes: [], bareReducer: [], serve: [] },
};
log(`http: ${ROUNDS} more rounds with the client in a worker thread (the server thread's busy time per request)`);
for (let round = 0; round < ROUNDS + 1; round++) {
  for (const action of ["comment", "reset"] as const) {
    const server = await serve({ store: createWorldStore(world), port: 0 });
    const ports = { bare: portOf(bare), serve: Number(new URL(server.url).port), bareBytes: portOf(bareBytes), bareReducer: portOf(bareReducer) };
    const ns = await timeSides(round, (side) => workerRun(ports[side], requestsOf[action]));
    await server.close({ deadlineMs: 0 });
    if (round === 0) continue;
    for (const name of SIDES) threadSamples[action][name].push(ns[name]);
  }
}
client.postMessage("close");

for (const s of [...bareSockets, ...bareBytesSockets, ...bareReducerSockets]) s.destroy();
await new Promise((resolve) => bare.close(resolve));
await new Promise((resolve) => bareBytes.close(resolve));
await new Promise((resolve) => bareReducer.close(resolve));

const rows: Row[] = (["comment", "reset"] as const).map((action) => ({
  action,
  reducerNs: median(samples[action].reducer),
  dispatcherNs: median(samples[action].dispatcher),
  bareNs: median(samples[action].bare),
  bareBytesNs: median(samples[action].bareBytes),
  bareReducerNs: median(samples[action].bareReducer),
  serveNs: median(samples[action].serve),
}));
const TARGET = 2;
const fmt = (ns: number): string => (ns >= 1000 ? `${(ns / 1000).toFixed(1)} µs` : `${ns.toFixed(0)} ns`);
const cases = rows.map((r) => {
  const layer = r.serveNs - r.bareNs;
  const ratio = layer / r.reducerNs;
  const thread = threadSamples[r.action];
  const threadServe = median(thread.serve);
  const threadBare = median(thread.bare);
  const threadLayer = threadServe - threadBare;
  return {
    name: `${r.action === "comment" ? "Comment" : "Hard Reset"} over serve, ${TASKS.toLocaleString("en")}-task world`,
    // The client in a worker thread: the server thread's busy time per request, and serve's cost over bare by it.
    serverThreadBusyNsPerRequest: { serve: Math.round(threadServe), bare: Math.round(threadBare), bareBytes: Math.round(median(thread.bareBytes)), bareReducer: Math.round(median(thread.bareReducer)) },
    serverThreadHttpLayerNsPerRequest: Math.round(threadLayer),
    serverThreadRatioToReducer: Number((threadLayer / r.reducerNs).toFixed(2)),
    reducerNsPerOp: Math.round(r.reducerNs),
    dispatcherNsPerRequest: Math.round(r.dispatcherNs),
    // What the layer adds in process (routing, auth, body, lock, answer bytes), and on the socket.
    dispatcherOverReducer: Number((r.dispatcherNs / r.reducerNs).toFixed(2)),
    nodeGlueNsPerRequest: Math.round(layer - r.dispatcherNs),
    bareNodeHttpNsPerRequest: Math.round(r.bareNs),
    bareNodeHttpBytesNsPerRequest: Math.round(r.bareBytesNs),
    // The same cost against the lower floor (a canned Buffer): not the target's measure, shown beside it.
    httpLayerOverBareBytesNsPerRequest: Math.round(r.serveNs - r.bareBytesNs),
    ratioToReducerOverBareBytes: Number(((r.serveNs - r.bareBytesNs) / r.reducerNs).toFixed(2)),
    // The reducer run inside a bare server's handler: its cost there, and what serve adds beyond it.
    bareWithReducerNsPerRequest: Math.round(r.bareReducerNs),
    reducerInServerNsPerRequest: Math.round(r.bareReducerNs - r.bareBytesNs),
    beyondReducerInServerNsPerRequest: Math.round(r.serveNs - r.bareReducerNs),
    serveNsPerRequest: Math.round(r.serveNs),
    httpLayerNsPerRequest: Math.round(layer),
    ratioToReducer: Number(ratio.toFixed(2)),
    shareOfBareThroughput: Number((r.bareNs / r.serveNs).toFixed(2)),
    target: TARGET,
    met: ratio <= TARGET,
  };
});
for (const c of cases)
  console.log(
    `${c.name}: reducer ${fmt(c.reducerNsPerOp)}, dispatcher in process ${fmt(c.dispatcherNsPerRequest)} (${c.dispatcherOverReducer.toFixed(2)}× the reducer), bare node:http ${fmt(c.bareNodeHttpNsPerRequest)}, serve ${fmt(c.serveNsPerRequest)} → ` +
      `HTTP cost ${fmt(c.httpLayerNsPerRequest)} (node glue ${fmt(c.nodeGlueNsPerRequest)}) = ${c.ratioToReducer.toFixed(2)}× the reducer (target ≤ ${TARGET}×: ${c.met ? "met" : "MISSED"}); ` +
      `${Math.round(c.shareOfBareThroughput * 100)} % of bare throughput; against bare (bytes) ${fmt(c.bareNodeHttpBytesNsPerRequest)}: ` +
      `${fmt(c.httpLayerOverBareBytesNsPerRequest)} = ${c.ratioToReducerOverBareBytes.toFixed(2)}×; the reducer inside a bare handler costs ` +
      `${fmt(c.reducerInServerNsPerRequest)} (${(c.reducerInServerNsPerRequest / c.reducerNsPerOp).toFixed(2)}× its in-process figure), serve adds ${fmt(c.beyondReducerInServerNsPerRequest)} beyond that. ` +
      `Client in a worker, the server thread busy per request: serve ${fmt(c.serverThreadBusyNsPerRequest.serve)}, bare ${fmt(c.serverThreadBusyNsPerRequest.bare)} (bytes ${fmt(c.serverThreadBusyNsPerRequest.bareBytes)}, + reducer ${fmt(c.serverThreadBusyNsPerRequest.bareReducer)}) → ` +
      `${fmt(c.serverThreadHttpLayerNsPerRequest)} = ${c.serverThreadRatioToReducer.toFixed(2)}× the reducer`,
  );

const results = {
  node: process.version,
  date: process.env["BENCH_DATE"] ?? new Date().toISOString(),
  quick: QUICK,
  machine: { cpus: availableParallelism(), loadavgAtStart: loadAtStart.map((x) => Number(x.toFixed(2))), loadavgAtEnd: loadavg().map((x) => Number(x.toFixed(2))) },
  method: {
    rounds: ROUNDS,
    requestsPerRound: REQUESTS,
    connections: CONNECTIONS,
    httpCost: "serve − bare node:http (canned string body), per request; also shown against a canned Buffer body",
    serverThread: "the same sides with the client in a worker thread: the server thread's busy time per request (eventLoopUtilization), serve − bare",
    target: `≤ ${TARGET}× the reducer`,
  },
  cases,
};
const latest = new URL("./results/latest.json", import.meta.url);
const doc = existsSync(latest) ? (JSON.parse(readFileSync(latest, "utf8")) as Record<string, unknown>) : {};
doc["http"] = results;
mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
writeFileSync(latest, `${JSON.stringify(doc, null, 2)}\n`);
console.log(`figures stored under "http" in ${latest.pathname}`);
