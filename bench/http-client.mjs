/**
 * The HTTP bench's client in a worker thread (bench/http.bench.ts, "server thread" figures): the same
 * lean keep-alive client as the bench's own, on another core, so that the server's thread does the
 * server's work only and its busy time per request can be read (`eventLoopUtilization`). Messages:
 * `{ port, n, requests }` (`requests`: the raw request bytes to cycle through) → `{ ok, failures }`.
 */
import { connect } from "node:net";
import { parentPort } from "node:worker_threads";

const CONNECTIONS = 4;
/** Open connections by port, made on first use. */
const pools = new Map();

function connection(port) {
  return new Promise((resolve, reject) => {
    const s = connect(port, "127.0.0.1", () => resolve(s));
    s.setNoDelay(true);
    s.once("error", reject);
    s.on("error", () => undefined);
  });
}

async function run(port, n, requests) {
  let sockets = pools.get(port);
  if (sockets === undefined) pools.set(port, (sockets = await Promise.all(Array.from({ length: CONNECTIONS }, () => connection(port)))));
  let next = 0;
  let failures = 0;
  await Promise.all(
    sockets.map(
      (s) =>
        new Promise((resolve) => {
          let buf = Buffer.alloc(0);
          const send = () => {
            if (next >= n) {
              s.off("data", onData);
              resolve();
              return;
            }
            s.write(requests[next++ % requests.length]);
          };
          const onData = (chunk) => {
            buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
            for (;;) {
              const end = buf.indexOf("\r\n\r\n");
              if (end < 0) return;
              const head = buf.subarray(0, end).toString("latin1");
              const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? "0");
              if (buf.length < end + 4 + length) return;
              if (!head.startsWith("HTTP/1.1 200")) failures++;
              buf = buf.subarray(end + 4 + length);
              send();
            }
          };
          s.on("data", onData);
          send();
        }),
    ),
  );
  return failures;
}

parentPort?.on("message", (m) => {
  if (m === "close") {
    for (const sockets of pools.values()) for (const s of sockets) s.destroy();
    parentPort?.close();
    return;
  }
  run(m.port, m.n, m.requests.map((r) => Buffer.from(r))).then(
    (failures) => parentPort?.postMessage({ ok: true, failures }),
    (e) => parentPort?.postMessage({ ok: false, error: String(e) }),
  );
});
