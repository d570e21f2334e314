import { inspect } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { AppendLog } from "./append-log.js";
import { deepFreeze, loadWorld } from "./load-world.js";

/** Every reading of `log` agrees with `model`. */
function expectReads<T>(log: AppendLog<T>, model: readonly T[]): void {
  expect(log.length).toBe(model.length);
  expect([...log]).toEqual(model);
  expect(log.toArray()).toEqual(model);
  expect(log.map((x) => x)).toEqual(model);
  const seen: T[] = [];
  log.forEach((x, i) => {
    expect(i).toBe(seen.length);
    seen.push(x);
  });
  expect(seen).toEqual(model);
  expect(log.at(-1)).toBe(model.at(-1));
  expect(log.at(0)).toBe(model[0]);
  expect(log.at(log.length)).toBeUndefined();
  expect(log.at(-log.length - 1)).toBeUndefined();
}

describe("AppendLog (issue 15.3: append O(1) amortised from any version; versions stay as they were)", () => {
  it("every version reads as it did when it was made, however versions branch", () => {
    // A model: each version is the array it should read as. Operations append to any version,
    // often to an old one (what a pure caller trying two actions on one world does).
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 70 })), { maxLength: 60 }), (ops) => {
        const logs: AppendLog<number>[] = [AppendLog.empty()];
        const model: number[][] = [[]];
        let n = 0;
        for (const [pick, count] of ops) {
          const at = pick % logs.length;
          const items = Array.from({ length: count }, () => n++);
          logs.push(count === 1 ? logs[at]!.append(items[0]!) : logs[at]!.appendAll(items));
          model.push([...model[at]!, ...items]);
        }
        logs.forEach((log, i) => expectReads(log, model[i]!));
      }),
    );
  });

  it("holds across the trie's levels (32, 1,056 and 33,824 items), one at a time or in bulk", () => {
    const n = 40_000;
    const all = Array.from({ length: n }, (_, i) => i);
    let one = AppendLog.empty<number>();
    const versions = new Map<number, AppendLog<number>>();
    for (let i = 0; i < n; i++) {
      one = one.append(i);
      if ([1, 31, 32, 33, 1024, 1055, 1056, 1057, 33_824, 33_825].includes(i + 1)) versions.set(i + 1, one);
    }
    expect(one.toArray()).toEqual(all);
    expect(AppendLog.of(all).toArray()).toEqual(all);
    for (const [len, v] of versions) {
      expect(v.length).toBe(len);
      expect(v.at(len - 1)).toBe(len - 1);
      // An old version appended to again: both branches read right, the old one untouched.
      const branch = v.append(-1);
      expect(branch.at(-1)).toBe(-1);
      expect(branch.at(-2)).toBe(len - 1);
      expect(v.length).toBe(len);
      expect(v.at(-1)).toBe(len - 1);
    }
    for (const i of [0, 31, 32, 1023, 1024, 1056, 33_823, 33_824, n - 1]) expect(one.at(i)).toBe(i);
  });

  it("reads like a read-only array", () => {
    const log = AppendLog.of(["a", "b", "c", "d"]);
    expect(log.slice(1, 3)).toEqual(["b", "c"]);
    expect(log.slice(-2)).toEqual(["c", "d"]);
    expect(log.slice(3, 1)).toEqual([]);
    expect(log.filter((x) => x !== "b")).toEqual(["a", "c", "d"]);
    expect(log.some((x) => x === "c")).toBe(true);
    expect(log.some((x) => x === "z")).toBe(false);
    expect(log.every((x) => x.length === 1)).toBe(true);
    expect(log.every((x) => x === "a")).toBe(false);
    expect(log.find((x) => x > "a")).toBe("b");
    expect(log.findLast((x) => x < "d")).toBe("c");
    expect(log.at(1.7)).toBe("b");
    expect(AppendLog.empty<string>().every(() => false)).toBe(true);
  });

  it("writes as an array in JSON, is frozen, and shows only its length", () => {
    const log = AppendLog.of([1, 2]).append(3);
    expect(JSON.stringify({ log })).toBe('{"log":[1,2,3]}');
    expect(Object.isFrozen(log)).toBe(true);
    expect(Object.keys(log)).toEqual(["length"]);
    expect(log).toEqual(AppendLog.of([1, 2, 3]));
    expect(log).not.toEqual(AppendLog.of([1, 2, 4]));
    expect(inspect({ log })).toBe("{ log: [ 1, 2, 3 ] }");
  });

  it("of() keeps no reference to what it was given", () => {
    const source = [1];
    const log = AppendLog.of(source);
    source.push(2);
    expect(log.toArray()).toEqual([1]);
    expect(AppendLog.of(new Set([1, 2])).toArray()).toEqual([1, 2]);
  });
});

describe("a loaded world's histories are frozen through, as its arrays were", () => {
  it("deepFreeze freezes the items a log holds", () => {
    const item = { a: { b: 1 } };
    deepFreeze({ log: AppendLog.of([item]) });
    expect(Object.isFrozen(item)).toBe(true);
    expect(Object.isFrozen(item.a)).toBe(true);
  });

  it("every past step of every task of the sample world is frozen after loadWorld", () => {
    const r = loadWorld(JSON.parse(readFileSync(new URL("../../fixtures/world.json", import.meta.url), "utf8")));
    if (!r.ok) throw new Error("the sample world does not load");
    const steps = [...r.value.tasks.values()].flatMap((t) => [...(t.policy?.history ?? [])]);
    expect(steps.length).toBeGreaterThan(0);
    for (const s of steps) {
      expect(Object.isFrozen(s)).toBe(true);
      if (s.instance) expect(Object.isFrozen(s.instance)).toBe(true);
    }
  });
});
