import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  comment,
  decide,
  decodeCommentResponse,
  decodeHardResetResponse,
  encodeCommentResponse,
  encodeHardResetResponse,
  findTask,
  hardReset,
  loadWorld,
  saveWorld,
  type World,
} from "policy-sim";
import { syntheticWorld } from "../src/testing/synthetic-world.js";
import { sampleWorld, SUPER } from "./helpers.js";

const sample = sampleWorld();
const sampleIds = [...sample.tasks.values()].map((t) => t.numericId);
const sampleActors = sample.users.map((u) => u.id);

/** A generated world (synthetic tenant of a random shape) or the sample tenant, with a task and an actor in it. */
const arbCase = fc.oneof(
  fc
    .record({
      seed: fc.integer(),
      tasks: fc.integer({ min: 1, max: 25 }),
      rulesPerPolicy: fc.integer({ min: 0, max: 16 }),
      matchAt: fc.constantFrom(undefined, "first", "last", "none"),
      pick: fc.nat(),
      actor: fc.nat(),
    })
    .map(({ seed, tasks, rulesPerPolicy, matchAt, pick, actor }) => {
      const json = syntheticWorld({ seed, tasks, users: 60, rulesPerPolicy, policies: 4, ...(matchAt ? { matchAt } : {}) });
      const loaded = loadWorld(json);
      if (!loaded.ok) throw new Error(`synthetic world does not load: ${loaded.error[0]?.message}`);
      const world = loaded.value;
      const ids = [...world.tasks.keys()];
      return { world, taskId: ids[pick % ids.length] as string, actorId: actor % 3 === 0 ? world.users[actor % world.users.length]!.id : "u-0" };
    }),
  fc.record({ pick: fc.nat(), actor: fc.nat(), admin: fc.boolean() }).map(({ pick, actor, admin }) => ({
    world: sample,
    taskId: sampleIds[pick % sampleIds.length] as string,
    actorId: admin ? SUPER : (sampleActors[actor % sampleActors.length] as string),
  })),
);

const snapshot = (w: World) => JSON.stringify(saveWorld(w));

describe("reducer properties over generated worlds", () => {
  it("never mutate their inputs, and are deterministic to the byte", () => {
    fc.assert(
      fc.property(arbCase, fc.string(), ({ world, taskId, actorId }, text) => {
        const before = snapshot(world);
        const req = { taskId, comment: text, expandMask: { paths: ["*"] } };
        const a = hardReset(world, req, { actorId });
        const b = hardReset(world, req, { actorId });
        const c1 = comment(world, req, { actorId });
        const c2 = comment(world, req, { actorId });
        expect(snapshot(world)).toBe(before);
        expect(JSON.stringify(a.ok ? [a.value.response, a.value.events, saveWorld(a.value.world)] : a)).toBe(
          JSON.stringify(b.ok ? [b.value.response, b.value.events, saveWorld(b.value.world)] : b),
        );
        expect(JSON.stringify(c1.ok ? [c1.value.response, c1.value.events, saveWorld(c1.value.world)] : c1)).toBe(
          JSON.stringify(c2.ok ? [c2.value.response, c2.value.events, saveWorld(c2.value.world)] : c2),
        );
      }),
      { numRuns: 150 },
    );
  });

  it("Comment changes nothing but the comment fields and adds exactly one event", () => {
    fc.assert(
      fc.property(arbCase, fc.string({ minLength: 1 }).filter((s) => s.trim() !== ""), ({ world, taskId, actorId }, text) => {
        const r = comment(world, { taskId, comment: text }, { actorId });
        if (!r.ok) return ["PERMISSION_DENIED", "UNAUTHENTICATED"].includes(r.error.code);
        const before = findTask(world, taskId)!;
        const after = findTask(r.value.world, taskId)!;
        expect(after).toEqual({ ...before, commentCount: before.commentCount + 1, updatedAt: world.now });
        expect(after.policy).toBe(before.policy);
        expect(r.value.events).toHaveLength(1);
        expect(r.value.events[0]?.kind).toBe("comment");
        // Every other task is the very same object: nothing else was touched or copied.
        for (const [id, t] of world.tasks.entries()) if (id !== before.id) expect(r.value.world.tasks.get(id)).toBe(t);
        return true;
      }),
      { numRuns: 150 },
    );
  });

  it("two Hard Resets in a row select the same policy and steps; history never shrinks", () => {
    fc.assert(
      fc.property(arbCase, ({ world, taskId }) => {
        const first = hardReset(world, { taskId }, { actorId: world === sample ? SUPER : "u-0" });
        if (!first.ok) return first.error.code === "FAILED_PRECONDITION";
        const second = hardReset(first.value.world, { taskId }, { actorId: world === sample ? SUPER : "u-0" });
        expect(second.ok).toBe(true);
        if (!second.ok) return false;
        const d1 = decide(first.value.world, findTask(first.value.world, taskId)!);
        const d2 = decide(second.value.world, findTask(second.value.world, taskId)!);
        expect(d1.selection?.ok && d1.selection.value.decidedBy).toEqual(d2.selection?.ok && d2.selection.value.decidedBy);
        const t0 = findTask(world, taskId)!;
        const t1 = findTask(first.value.world, taskId)!;
        const t2 = findTask(second.value.world, taskId)!;
        expect(t1.policy?.policy?.id).toBe(t2.policy?.policy?.id);
        expect(t1.policy?.current?.instance?.kind).toBe(t2.policy?.current?.instance?.kind);
        expect(t1.stepApproverIds).toEqual(t2.stepApproverIds);
        expect(second.value.events.some((e) => e.kind === "policyChanged")).toBe(false);
        const h0 = t0.policy?.history?.length ?? 0;
        const h1 = t1.policy?.history?.length ?? 0;
        const h2 = t2.policy?.history?.length ?? 0;
        expect(h1).toBeGreaterThanOrEqual(h0);
        expect(h2).toBeGreaterThanOrEqual(h1);
        // Earlier history is kept as it was, entry by entry.
        expect(t2.policy?.history?.slice(0, h0)).toEqual(t0.policy?.history?.toArray() ?? []);
        return true;
      }),
      { numRuns: 150 },
    );
  });

  it("responses decode with the codec and re-encode to themselves", () => {
    fc.assert(
      fc.property(arbCase, ({ world, taskId, actorId }) => {
        const r = hardReset(world, { taskId, expandMask: { paths: ["*"] } }, { actorId: world === sample ? SUPER : "u-0" });
        if (r.ok) {
          const d = decodeHardResetResponse(r.value.response);
          expect(d.ok).toBe(true);
          if (d.ok) expect(encodeHardResetResponse(d.value)).toEqual(r.value.response);
        }
        const c = comment(world, { taskId, comment: "x", expandMask: { paths: ["*"] } }, { actorId });
        if (c.ok) {
          const d = decodeCommentResponse(c.value.response);
          expect(d.ok).toBe(true);
          // A caller who may not see some fields gets a body without them; re-encoding fills them.
          if (d.ok && actorId === SUPER) expect(encodeCommentResponse(d.value)).toEqual(c.value.response);
        }
      }),
      { numRuns: 150 },
    );
  });
});
