import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { comment } from "../reducers/comment.js";
import { CommentLog } from "./comment-log.js";
import { loadWorld } from "./load-world.js";
import { saveWorld } from "./save-world.js";
import type { TaskComment } from "./world.js";

const sample = JSON.parse(readFileSync(new URL("../../fixtures/world.json", import.meta.url), "utf8")) as Record<string, unknown>;
const firstTask = (sample["tasks"] as { id: string; userId: string }[])[0]!;

const c = (n: number): TaskComment => ({ id: `cmt-${n}`, taskId: "t", userId: "u", comment: `#${n}`, createdAt: "2026-11-22T09:00:00Z" });

describe("CommentLog (issue 15.2: appending is O(1) amortised, versions stay as they were)", () => {
  it("every version reads as it did when it was made, however versions branch", () => {
    // A model: each version is the array it should read as. Operations append to any version.
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 3 })), { maxLength: 60 }), (ops) => {
        const logs: CommentLog[] = [CommentLog.of([])];
        const model: TaskComment[][] = [[]];
        let n = 0;
        for (const [pick, count] of ops) {
          const at = pick % logs.length;
          const items = Array.from({ length: count }, () => c(n++));
          logs.push((logs[at] as CommentLog).appendAll(items));
          model.push([...(model[at] as TaskComment[]), ...items]);
        }
        logs.forEach((log, i) => {
          expect(log.length).toBe(model[i]!.length);
          expect([...log]).toEqual(model[i]);
          expect(log.toArray()).toEqual(model[i]);
          expect(log.at(-1)).toBe(model[i]!.at(-1));
          expect(log.at(log.length)).toBeUndefined();
        });
      }),
    );
  });

  it("reads like a read-only array and writes as one in JSON", () => {
    const log = CommentLog.of([c(1), c(2)]).append(c(3));
    expect(log.map((x) => x.comment)).toEqual(["#1", "#2", "#3"]);
    expect(log.filter((x) => x.id !== "cmt-2").length).toBe(2);
    expect(log.some((x) => x.id === "cmt-3")).toBe(true);
    expect(log.find((x) => x.id === "cmt-2")?.comment).toBe("#2");
    expect(JSON.parse(JSON.stringify({ log }))).toEqual({ log: [c(1), c(2), c(3)] });
    expect(Object.isFrozen(log)).toBe(true);
    expect(Object.keys(log)).toEqual(["length"]);
  });

  it("of() keeps no reference to the array it was given", () => {
    const source = [c(1)];
    const log = CommentLog.of(source);
    source.push(c(2));
    expect(log.length).toBe(1);
    expect(log.append(c(3)).toArray()).toEqual([c(1), c(3)]);
  });
});

describe("comments on one task (issue 15.2)", () => {
  // On the quadratic storage this load alone took ~20 s (0.16 s at 10k, 17.5 s at 40k); the bench
  // (BENCH_ONLY=worldio) reports the scaling. Here: it loads, keeps order, and comments go on.
  it("a world with 60,000 comments on one task loads, takes another, and saves them all in order", () => {
    const many = Array.from({ length: 60_000 }, (_, i) => ({
      id: `cmt-x${i}`,
      taskId: firstTask.id,
      userId: firstTask.userId,
      comment: `note ${i}`,
      createdAt: "2026-11-22T09:00:00Z",
    }));
    const loaded = loadWorld({ ...sample, comments: many });
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    const world = loaded.value;
    expect(world.comments.get(firstTask.id)?.length).toBe(60_000);
    const r = comment(world, { taskId: firstTask.id, comment: "one more" }, { actorId: firstTask.userId });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(world.comments.get(firstTask.id)?.length).toBe(60_000);
    const after = r.value.world.comments.get(firstTask.id);
    expect(after?.length).toBe(60_001);
    expect(after?.at(-1)?.comment).toBe("one more");
    const saved = saveWorld(r.value.world)["comments"] as { comment: string }[];
    const mine = saved.filter((x) => (x as unknown as TaskComment).taskId === firstTask.id).map((x) => x.comment);
    expect(mine.slice(0, 3)).toEqual(["note 0", "note 1", "note 2"]);
    expect(mine.at(-1)).toBe("one more");
    expect(mine.length).toBe(60_001);
  });
});
