/**
 * Turns on the server's one thread, shared fairly between clients. Node runs each request's work
 * (routing a body, linting a policy, a reducer) to its end before it reads another request, so a
 * client that keeps many connections busy with expensive requests would otherwise have every other
 * client's requests wait behind all of its own (measured: a simple GET waited 16–18 s behind one
 * client's 32 connections of CEL validations, each up to a second). Here a request takes its turn
 * only once its body is in; while one runs, the others wait by client, and the next turn goes to
 * the client after the last one served (round robin), not to the oldest request. Between turns the
 * event loop runs, so requests that arrived meanwhile join the queues before the next turn is
 * given. With no one waiting a request goes straight through, without a hop.
 */

/** A turn shorter than this, with no one waiting, does not wait for the event loop before the next. */
const QUICK_MS = 2;

/**
 * Fair turns by client key (the authenticated user; `""` for anonymous calls).
 *
 * @example
 * ```ts
 * const turns = new FairTurns();
 * const wait = turns.enter("u-ada");
 * if (wait) await wait;
 * const started = performance.now();
 * try { work(); } finally { turns.leave(performance.now() - started); }
 * ```
 */
export class FairTurns {
  // Clients with waiting requests, in the order they get turns; each client's waiters in arrival order.
  readonly #ring: string[] = [];
  readonly #waiting = new Map<string, (() => void)[]>();
  #busy = false;
  #queued = 0;

  /** Requests waiting for a turn. */
  get waiting(): number {
    return this.#queued;
  }

  /**
   * Takes a turn for `client`: `undefined` when it is taken at once (nothing runs), else a promise
   * that resolves when it is this request's turn. Every `enter` is followed by one `leave`.
   */
  enter(client: string): Promise<void> | undefined {
    if (!this.#busy && this.#queued === 0) {
      this.#busy = true;
      return undefined;
    }
    return new Promise<void>((resolve) => {
      let queue = this.#waiting.get(client);
      if (queue === undefined) {
        this.#waiting.set(client, (queue = []));
        this.#ring.push(client);
      }
      queue.push(resolve);
      this.#queued++;
    });
  }

  /**
   * Ends the running turn, which took `ms`. The next turn is given after the event loop has run, so
   * that the requests whose bodies came in while this one ran join their queues first and the
   * choice between clients is made among all of them; meanwhile the turn stays taken. A turn that
   * was quick, with no one waiting, frees the thread at once (no hop for a lone client's requests).
   */
  leave(ms = Number.POSITIVE_INFINITY): void {
    if (this.#queued === 0 && ms < QUICK_MS) {
      this.#busy = false;
      return;
    }
    setImmediate(() => this.#next());
  }

  #next(): void {
    const client = this.#ring.shift();
    if (client === undefined) {
      this.#busy = false;
      return;
    }
    const queue = this.#waiting.get(client) as (() => void)[];
    const resolve = queue.shift() as () => void;
    this.#queued--;
    // A client with more waiting goes to the back of the ring: one turn each, in turn.
    if (queue.length > 0) this.#ring.push(client);
    else this.#waiting.delete(client);
    resolve();
  }
}
