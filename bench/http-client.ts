/**
 * The HTTP bench's lean HTTP/1.1 client (bench/http.bench.ts): keep-alive connections, one request
 * in flight on each, responses read by Content-Length — cheaper and steadier than a general client,
 * and the same for every server. The bench calls it in its own thread, and also runs this module as
 * a worker thread ("server thread" figures), so that the server's thread does the server's work
 * only. As a worker it takes `{ port, n, requests }` (`requests`: the raw request text, latin1, to
 * cycle through) and answers `{ ok, failures }`; `"close"` ends it.
 */
import { connect, type Socket } from "node:net";
import { parentPort } from "node:worker_threads";

/** A keep-alive connection to a local port, Nagle off. */
export function connection(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, "127.0.0.1", () => resolve(s));
    s.setNoDelay(true);
    s.once("error", reject);
    // Between runs an error has no run to fail; the next write on the socket then fails that run.
    s.on("error", () => undefined);
  });
}

/**
 * Sends `n` requests, cycling through `requests`, spread over the connections one at a time on
 * each; resolves with how many were not answered 200, rejects when a connection fails.
 */
export async function sendRequests(sockets: readonly Socket[], n: number, requests: readonly Buffer[]): Promise<number> {
  let next = 0;
  let failures = 0;
  await Promise.all(
    sockets.map(
      (s) =>
        new Promise<void>((resolve, reject) => {
          let buf: Buffer = Buffer.alloc(0);
          const finish = (): void => {
            s.off("data", onData);
            s.off("error", onError);
          };
          const send = (): void => {
            if (next >= n) {
              finish();
              resolve();
              return;
            }
            s.write(requests[next++ % requests.length] as Buffer);
          };
          const onData = (chunk: Buffer): void => {
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
          const onError = (e: Error): void => {
            finish();
            reject(e);
          };
          s.on("data", onData);
          s.once("error", onError);
          send();
        }),
    ),
  );
  return failures;
}

// As a worker thread: connections kept by port, made on first use.
const port = parentPort;
if (port) {
  const pools = new Map<number, Socket[]>();
  port.on("message", (m: "close" | { port: number; n: number; requests: string[] }) => {
    if (m === "close") {
      for (const sockets of pools.values()) for (const s of sockets) s.destroy();
      port.close();
      return;
    }
    void (async () => {
      let sockets = pools.get(m.port);
      if (sockets === undefined) pools.set(m.port, (sockets = await Promise.all(Array.from({ length: 4 }, () => connection(m.port)))));
      return sendRequests(sockets, m.n, m.requests.map((r) => Buffer.from(r, "latin1")));
    })().then(
      (failures) => port.postMessage({ ok: true, failures }),
      (e: unknown) => port.postMessage({ ok: false, error: String(e) }),
    );
  });
}
