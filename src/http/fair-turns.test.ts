/**
 * Fair turns (fair-turns.ts): one client keeping many requests in flight, each costly, does not
 * make another client's cheap request wait behind all of them (the hostile-input review measured a
 * simple GET waiting 16–18 s behind one client's 32 connections of CEL validations).
 */
import { describe, expect, it } from "vitest";
import { ok } from "../result.js";
import { sampleWorld } from "../../test/helpers.js";
import { FairTurns } from "./fair-turns.js";
import { createFetchHandler } from "./fetch-handler.js";
import type { Route } from "./route.js";
import { createWorldStore } from "./world-store.js";

/** Busy for `ms` on the one thread, as a lint of a large policy is. */
function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // spin
  }
}

const ROUTES: readonly Route[] = [
  { method: "POST", path: "/slow", operationId: "slow", body: "json", handle: () => ok({ kind: "read", read: () => (busy(20), ok({ slow: true })) }) },
  { method: "POST", path: "/quick", operationId: "quick", body: "json", handle: () => ok({ kind: "read", read: () => ok({ quick: true }) }) },
];

describe("FairTurns", () => {
  it("serves clients in turn: a client's second request waits for every other client's first", async () => {
    const turns = new FairTurns();
    const order: string[] = [];
    const run = async (client: string, tag: string): Promise<void> => {
      const wait = turns.enter(client);
      if (wait) await wait;
      order.push(tag);
      turns.leave(0);
    };
    // a1 runs at once; a2..a4 and b1, c1 queue; turns go a, b, c, a, a.
    const first = turns.enter("a");
    expect(first).toBeUndefined();
    const pending = [run("a", "a2"), run("a", "a3"), run("b", "b1"), run("a", "a4"), run("c", "c1")];
    expect(turns.waiting).toBe(5);
    order.push("a1");
    turns.leave(0);
    await Promise.all(pending);
    expect(order).toEqual(["a1", "a2", "b1", "c1", "a3", "a4"]);
    expect(turns.waiting).toBe(0);
    // Idle again: the next request goes straight through.
    expect(turns.enter("b")).toBeUndefined();
    turns.leave(0);
    // A long turn with no one waiting still lets the event loop run before the next is given.
    expect(turns.enter("b")).toBeUndefined();
    turns.leave(50);
    const next = turns.enter("c");
    expect(next).toBeInstanceOf(Promise);
    await next;
    turns.leave(0);
    expect(turns.enter("d")).toBeUndefined();
    turns.leave(0);
  });

  it("over the dispatcher: another client's quick request answers after at most a couple of one client's 30 slow requests, not after all of them", async () => {
    const handler = createFetchHandler(createWorldStore(sampleWorld()), { routes: ROUTES });
    const call = (path: string, token: string, method = "GET") =>
      handler(new Request(`http://sim.test${path}`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, ...(method === "POST" ? { body: "{}" } : {}) }));
    const done: string[] = [];
    const slow = Array.from({ length: 30 }, (_, i) => call("/slow", "tok-admin", "POST").then(() => void done.push(`slow${i}`)));
    const quick = call("/quick", "tok-user", "POST").then(async (r) => {
      done.push("quick");
      return r.status;
    });
    expect(await quick).toBe(200);
    await Promise.all(slow);
    const at = done.indexOf("quick");
    // Without turns it came after all 30 (each request's work runs to its end in arrival order).
    expect(at).toBeLessThanOrEqual(3);
    expect(done).toHaveLength(31);
  });
});
