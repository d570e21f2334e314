/**
 * Issue 15.3: the cost of one Hard Reset, Restart or finished step does not depend on how many came
 * before it. Deterministic: instead of timing, the old task's history is wrapped in a structure that
 * counts the items read from it, and the counts after 10, 100 and 1,000 prior resets are compared.
 * (Timings are in the bench: `BENCH_ONLY=history npm run bench`.)
 */
import { describe, expect, it } from "vitest";
import type { PolicyStepInstance, Task } from "../src/model/index.js";
import { approveTask } from "../src/reducers/approve.js";
import { hardReset } from "../src/reducers/hard-reset.js";
import { restartTask } from "../src/reducers/restart.js";
import type { AppendLog } from "../src/world/append-log.js";
import { findTask, type World, withTaskTables } from "../src/world/world.js";
import { SUPER, sampleWorld } from "./helpers.js";

type Reducer = (world: World, taskId: string) => { readonly world: World; readonly response: unknown };

function must<T>(r: { ok: true; value: T } | { ok: false; error: { message: string } }): T {
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

const reset: Reducer = (w, taskId) => must(hardReset(w, { taskId }, { actorId: SUPER }));
const restart: Reducer = (w, taskId) => must(restartTask(w, { taskId }, { actorId: SUPER }));
const approve: Reducer = (w, taskId) => {
  const approver = findTask(w, taskId)?.stepApproverIds?.[0] ?? "";
  return must(approveTask(w, { taskId, comment: "Checked." }, { actorId: approver }));
};

/** The items read from a history, however it is read: index, `at`, iteration, `map`, `slice`… */
class Reads {
  n = 0;
}

/**
 * `history` behind a counter. An array (as histories were) gets a Proxy that counts its index
 * reads, which iteration and spreading go through too; a log gets a subclass that counts every
 * item its read methods hand out (its nodes are private: only its methods can read it).
 */
function counted(history: unknown, reads: Reads): unknown {
  if (Array.isArray(history))
    return new Proxy(history, {
      get(target, key, receiver) {
        if (typeof key === "string" && /^\d+$/.test(key)) reads.n++;
        return Reflect.get(target, key, receiver);
      },
    });
  type Log = AppendLog<PolicyStepInstance>;
  type Step = PolicyStepInstance;
  const Base = (history as Log).constructor as unknown as abstract new (source: Log) => Log;
  const tick = <A extends unknown[], R>(f: (...a: A) => R) => (...a: A): R => {
    reads.n++;
    return f(...a);
  };
  class CountingLog extends Base {
    constructor(source: Log) {
      super(source);
      Object.freeze(this);
    }
    override at(i: number): Step | undefined {
      reads.n++;
      return super.at(i);
    }
    override *[Symbol.iterator](): IterableIterator<Step> {
      for (const x of super[Symbol.iterator]()) {
        reads.n++;
        yield x;
      }
    }
    override slice(start?: number, end?: number): Step[] {
      const out = super.slice(start, end);
      reads.n += out.length;
      return out;
    }
    override forEach(f: (x: Step, i: number) => void): void {
      super.forEach(tick(f));
    }
    override map<U>(f: (x: Step, i: number) => U): U[] {
      return super.map(tick(f));
    }
    override filter(f: (x: Step, i: number) => boolean): Step[] {
      return super.filter(tick(f));
    }
    override some(f: (x: Step, i: number) => boolean): boolean {
      return super.some(tick(f));
    }
    override every(f: (x: Step, i: number) => boolean): boolean {
      return super.every(tick(f));
    }
    override find(f: (x: Step, i: number) => boolean): Step | undefined {
      return super.find(tick(f));
    }
    override findLast(f: (x: Step, i: number) => boolean): Step | undefined {
      return super.findLast(tick(f));
    }
  }
  return new CountingLog(history as Log);
}

/** `world` with task `taskId`'s history behind a counter. */
function withCountedHistory(world: World, taskId: string, reads: Reads): World {
  const task = findTask(world, taskId) as Task;
  const policy = task.policy as NonNullable<Task["policy"]>;
  const instrumented = { ...task, policy: { ...policy, history: counted(policy.history, reads) as typeof policy.history } };
  return withTaskTables(world, world.tasks.set(task.id, instrumented), world.comments, world.seq);
}

/** The sample world after `times` Hard Resets of task `taskId`. */
function resetTimes(world: World, taskId: string, times: number): World {
  let w = world;
  for (let i = 0; i < times; i++) w = reset(w, taskId).world;
  return w;
}

/** Items of the old history that one call of `act` reads, with `priorResets` resets before it. */
function readsOf(act: Reducer, base: World, taskId: string, priorResets: number): { reads: number; historyLength: number } {
  const before = resetTimes(base, taskId, priorResets);
  const reads = new Reads();
  const instrumented = withCountedHistory(before, taskId, reads);
  const after = act(instrumented, taskId).world;
  const old = findTask(before, taskId)?.policy?.history?.length ?? 0;
  // The action did what it should: the old history is all there, and it grew.
  expect(findTask(after, taskId)?.policy?.history?.length).toBeGreaterThan(old);
  return { reads: reads.n, historyLength: old };
}

describe("product_how-to_access-change-tasks.mdx: Hard Reset, Restart and a finished step cost the same after 10 or 1,000 resets (issue 15.3)", () => {
  const world = sampleWorld();
  const taskId = "1001";

  for (const [name, act] of [
    ["Hard Reset", reset],
    ["Restart", restart],
    ["approving the current step (a step finishing)", approve],
  ] as const)
    it(`${name} reads a bounded number of the old history's steps, not the whole history`, () => {
      const few = readsOf(act, world, taskId, 10);
      const many = readsOf(act, world, taskId, 1_000);
      expect(many.historyLength).toBeGreaterThan(50 * few.historyLength);
      // The same reads however long the history: what the response shows, never a copy of the past.
      expect(many.reads).toBe(few.reads);
      expect(many.reads).toBeLessThan(few.historyLength);
    });
});
