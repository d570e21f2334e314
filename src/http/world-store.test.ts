import { readFileSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AuditEvent } from "../workflow/events.js";
import { loadWorld } from "../world/load-world.js";
import type { World } from "../world/world.js";
import { createDispatcher } from "./dispatch.js";
import { ok } from "../result.js";
import { createWorldStore, DEFAULT_MAX_AUDIT_EVENTS } from "./world-store.js";

const fixture: World = (() => {
  const r = loadWorld(JSON.parse(readFileSync(new URL("../../fixtures/world.json", import.meta.url), "utf8")));
  if (!r.ok) throw new Error("fixtures/world.json does not load");
  return r.value;
})();

const event = (n: number, taskId: string): AuditEvent => ({
  id: `evt-${n}`,
  taskId,
  at: "2026-11-22T09:00:00Z",
  actorId: "u-ciso",
  kind: "comment",
  commentId: `c-${n}`,
  comment: `comment ${n}`,
  updatedAt: "2026-11-22T09:00:00Z",
  updatedBy: "u-ciso",
});

describe("createWorldStore: a bounded audit log, indexed by task", () => {
  it("keeps exactly the most recent maxEvents events, oldest first, each task's in order, and counts the rest as dropped", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.array(fc.array(fc.constantFrom("t1", "t2", "t3", "t4"), { maxLength: 20 }), { maxLength: 30 }),
        (maxEvents, batches) => {
          const store = createWorldStore(fixture, { maxEvents });
          const all: AuditEvent[] = [];
          for (const batch of batches) {
            const events = batch.map((t, i) => event(all.length + i, t));
            store.set(fixture, events);
            all.push(...events);
          }
          const kept = all.slice(Math.max(0, all.length - maxEvents));
          expect(store.events()).toEqual(kept);
          expect(store.droppedEvents()).toBe(all.length - kept.length);
          for (const t of ["t1", "t2", "t3", "t4", "nope"]) expect(store.eventsOf(t)).toEqual(kept.filter((e) => e.taskId === t));
        },
      ),
    );
  });

  it("stays bounded over a long run: 300,000 events through a 1,000-event log keep 1,000", () => {
    const store = createWorldStore(fixture, { maxEvents: 1000 });
    for (let i = 0; i < 300_000; i += 3) store.set(fixture, [event(i, "t1"), event(i + 1, `t${i % 7}`), event(i + 2, "t2")]);
    expect(store.events()).toHaveLength(1000);
    expect(store.events()[0]?.id).toBe("evt-299000");
    expect(store.droppedEvents()).toBe(299_000);
    expect(store.eventsOf("t1").every((e) => Number(e.id.slice(4)) >= 299_000)).toBe(true);
  });

  it("defaults to DEFAULT_MAX_AUDIT_EVENTS and refuses a bad bound", () => {
    const store = createWorldStore(fixture);
    for (let i = 0; i < DEFAULT_MAX_AUDIT_EVENTS + 5; i++) store.set(fixture, [event(i, "t1")]);
    expect(store.events()).toHaveLength(DEFAULT_MAX_AUDIT_EVENTS);
    expect(store.droppedEvents()).toBe(5);
    expect(() => createWorldStore(fixture, { maxEvents: -1 })).toThrow(/maxEvents/);
    expect(() => createWorldStore(fixture, { maxEvents: 1.5 })).toThrow(/maxEvents/);
  });

  it("POST /api/v1/task/audits answers the kept records of the task asked about (openapi.yaml TaskAudit.List)", async () => {
    const store = createWorldStore(fixture, { maxEvents: 3 });
    const dispatch = createDispatcher(store);
    const post = async (path: string, body: unknown) => {
      const bytes = new TextEncoder().encode(JSON.stringify(body));
      const reply = await dispatch({
        method: "POST",
        target: path,
        header: (n) => ({ authorization: "Bearer tok-super", "content-type": "application/json" })[n],
        readBody: async () => ok(bytes),
      });
      return { status: reply.status, body: JSON.parse(new TextDecoder().decode(reply.body)) };
    };
    for (const text of ["one", "two", "three", "four"]) expect((await post("/api/v1/tasks/1001/action/comment", { comment: text })).status).toBe(200);
    expect((await post("/api/v1/tasks/1002/action/comment", { comment: "elsewhere" })).status).toBe(200);
    const audits = await post("/api/v1/task/audits", { taskId: "1001" });
    expect(audits.status).toBe(200);
    // Five comments through a 3-event log: 1001's last two events remain, with 1002's one. Comments
    // are kept by the world, so the dropped ones and the one the world file brought are still listed,
    // as the comment records they were, in order.
    expect(store.droppedEvents()).toBe(2);
    expect(audits.body.list.map((r: { comment?: { comment: string } }) => r.comment?.comment)).toEqual([
      "Change window starts 10:00 CET; CHG-4821 was approved by the CAB on Friday.",
      "one",
      "two",
      "three",
      "four",
    ]);
    // Each once, with its author.
    expect(new Set(audits.body.list.map((r: { id: string }) => r.id)).size).toBe(5);
    expect(audits.body.list[0]).toMatchObject({ userId: "u-contractor", created: "2026-11-22T08:14:00Z", eventType: "TASK_AUDIT_EVENT_TYPE_NEUTRAL" });
  });
});

describe("createWorldStore: what is dropped is let go", () => {
  it("500 tasks each keeping one live event do not keep their dropped ones reachable", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const store = createWorldStore(fixture, { maxEvents: 1000 });
    const firstRound: WeakRef<AuditEvent>[] = [];
    for (let round = 0; round < 200; round++)
      store.set(
        fixture,
        Array.from({ length: 500 }, (_, t) => {
          const e = event(round * 500 + t, `t${t}`);
          if (round === 0) firstRound.push(new WeakRef(e));
          return e;
        }),
      );
    expect(store.events()).toHaveLength(1000);
    expect(store.eventsOf("t7").map((e) => e.id)).toEqual(["evt-99007", "evt-99507"]);
    // WeakRef targets live until the current job ends; then a full collection must free every one.
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
    expect(firstRound.filter((r) => r.deref() !== undefined)).toHaveLength(0);
  });
});
