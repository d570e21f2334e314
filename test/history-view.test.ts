/**
 * Issue 15.3: a response's `history` stays bounded whatever was done to the task before, while the
 * world keeps every step. The bound and why: `viewedHistory` in src/reducers/task-view.ts, README
 * "Assumptions" (History in task views).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonObject } from "../src/model/json.js";
import { approveTask } from "../src/reducers/approve.js";
import { comment } from "../src/reducers/comment.js";
import { hardReset } from "../src/reducers/hard-reset.js";
import { reassignTask } from "../src/reducers/reassign.js";
import { restartTask } from "../src/reducers/restart.js";
import { loadWorld } from "../src/world/load-world.js";
import { saveWorld } from "../src/world/save-world.js";
import { findTask, type World } from "../src/world/world.js";
import { SUPER, sampleWorld } from "./helpers.js";

/** The most steps a response carries (`VIEWED_HISTORY_MAX_STEPS`, 50), written out so the test reads without it. */
const MAX_STEPS = 50;

type Outcome = { readonly world: World; readonly response: unknown } | null;
type Action = (world: World, taskId: string) => Outcome;

const settle = (r: { ok: true; value: { world: World; response: unknown } } | { ok: false }): Outcome => (r.ok ? r.value : null);
const approverOf = (w: World, taskId: string): string => findTask(w, taskId)?.stepApproverIds?.[0] ?? "";

const ACTIONS: Readonly<Record<string, Action>> = {
  reset: (w, taskId) => settle(hardReset(w, { taskId }, { actorId: SUPER })),
  restart: (w, taskId) => settle(restartTask(w, { taskId }, { actorId: SUPER })),
  comment: (w, taskId) => settle(comment(w, { taskId, comment: "Looking into it." }, { actorId: SUPER })),
  approve: (w, taskId) => settle(approveTask(w, { taskId, comment: "Checked." }, { actorId: approverOf(w, taskId) })),
  reassign: (w, taskId) => {
    const to = approverOf(w, taskId) === "u-ciso" ? "u-it-dir" : "u-ciso";
    return settle(reassignTask(w, { taskId, newStepUserIds: [to], comment: "Covering." }, { actorId: SUPER }));
  },
};

/** The step ids of a response's `taskView.task.policy.history`. */
function viewedIds(response: unknown): string[] {
  const task = ((response as JsonObject)["taskView"] as JsonObject | undefined)?.["task"] as JsonObject | undefined;
  const history = ((task?.["policy"] as JsonObject | null | undefined)?.["history"] ?? []) as JsonObject[];
  return history.map((s) => String(s["id"]));
}

const historyIds = (w: World, taskId: string): string[] => [...(findTask(w, taskId)?.policy?.history ?? [])].map((s) => s.id);

/** Response sizes of `times` repetitions of `act` on the task, each on the world the last one left. */
function repeat(act: Action, taskId: string, times: number): { world: World; sizes: number[]; viewed: number[] } {
  let w = sampleWorld();
  const sizes: number[] = [];
  const viewed: number[] = [];
  for (let i = 0; i < times; i++) {
    const r = act(w, taskId);
    if (r === null) throw new Error(`repetition ${i + 1} was refused`);
    w = r.world;
    sizes.push(JSON.stringify(r.response).length);
    viewed.push(viewedIds(r.response).length);
  }
  return { world: w, sizes, viewed };
}

describe("product_how-to_access-change-tasks.mdx: the history prior to a restart or hard reset is kept in the task's record; responses stay bounded (issue 15.3)", () => {
  for (const name of ["restart", "reset", "reassign"] as const)
    it(`the response to the n-th ${name} of a task stops growing; the world keeps every step`, () => {
      const { world, sizes, viewed } = repeat(ACTIONS[name] as Action, "1001", 90);
      expect(Math.max(...viewed)).toBeLessThanOrEqual(MAX_STEPS);
      // Once the bound is reached, responses stop growing, however many came before.
      expect(Math.max(...sizes.slice(60))).toBeLessThanOrEqual(Math.max(...sizes.slice(40, 60)));
      expect(historyIds(world, "1001").length).toBeGreaterThanOrEqual(90);
    });

  it("any sequence of actions: old worlds untouched, history = old history + the retired steps in order, the file round-trips, responses bounded", () => {
    const names = Object.keys(ACTIONS);
    const base = sampleWorld();
    const taskIds = ["1001", "1002"];
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...names), fc.constantFrom(...taskIds)), { minLength: 1, maxLength: 30 }), (ops) => {
        let w = base;
        const frozen: { world: World; saved: string }[] = [];
        for (const [name, taskId] of ops) {
          const saved = JSON.stringify(saveWorld(w));
          const before = findTask(w, taskId);
          const oldHistory = [...(before?.policy?.history ?? [])];
          const oldCurrent = before?.policy?.current ?? null;
          const r = (ACTIONS[name] as Action)(w, taskId);
          // The world acted on reads as it did: nothing was written into it.
          expect(JSON.stringify(saveWorld(w))).toBe(saved);
          if (r === null) continue;
          frozen.push({ world: w, saved });
          const after = findTask(r.world, taskId);
          const history = [...(after?.policy?.history ?? [])];
          // The old history, item for item (the same objects), then what the action retired, in order.
          expect(history.slice(0, oldHistory.length)).toEqual(oldHistory);
          history.slice(0, oldHistory.length).forEach((s, i) => expect(s).toBe(oldHistory[i]));
          const added = history.slice(oldHistory.length);
          if (name === "comment") expect(added).toEqual([]);
          else if (oldCurrent !== null) expect(added[0]?.id).toBe(oldCurrent.id);
          // The response carries the newest steps of that history, never more than the bound.
          const viewed = viewedIds(r.response);
          expect(viewed.length).toBeLessThanOrEqual(MAX_STEPS);
          expect(viewed).toEqual(history.slice(history.length - viewed.length).map((s) => s.id));
          w = r.world;
        }
        // Every earlier world still reads as it did when it was made.
        for (const f of frozen) expect(JSON.stringify(saveWorld(f.world))).toBe(f.saved);
        // The file of the last world loads back to the same file, every step of every history kept.
        const saved = saveWorld(w);
        const loaded = loadWorld(JSON.parse(JSON.stringify(saved)));
        if (!loaded.ok) throw new Error(loaded.error.map((d) => d.message).join("; "));
        expect(JSON.stringify(saveWorld(loaded.value))).toBe(JSON.stringify(saved));
        for (const id of taskIds) expect(historyIds(loaded.value, id)).toEqual(historyIds(w, id));
      }),
      { numRuns: 12 },
    );
  });
});
