import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hashKey, Table } from "./table.js";

/** The reference: a Map, whose iteration order is insertion order and which a re-set keeps. */
type Model = Map<string, number>;

/** Where `table` and `model` disagree (entries, order, get, has, size): one assertion, cheap on large tables. */
function differences(table: Table<number>, model: Model): string[] {
  const out: string[] = [];
  if (table.size !== model.size) out.push(`size ${table.size} ≠ ${model.size}`);
  const entries = [...table.entries()];
  const keys = [...table.keys()];
  const values = [...table.values()];
  const list = table.valueList();
  if (list.length !== values.length || list.some((v, j) => !Object.is(v, values[j]))) out.push("valueList ≠ values()");
  let i = 0;
  for (const [k, v] of model) {
    const e = entries[i];
    if (e?.[0] !== k || !Object.is(e[1], v) || keys[i] !== k || !Object.is(values[i], v)) out.push(`#${i}: ${String(e)} ≠ ${k},${v}`);
    if (!Object.is(table.get(k), v) || !table.has(k)) out.push(`get/has ${k}`);
    i++;
    if (out.length > 10) break;
  }
  if (entries.length !== model.size || keys.length !== model.size || values.length !== model.size) out.push("lengths");
  return out;
}

function expectSame(table: Table<number>, model: Model): void {
  expect(differences(table, model)).toEqual([]);
}

// FNV-1a collisions (so hashKey collides too: its finaliser is a bijection). The state after
// "k4uzx" equals the state after "kf2ad", and "33zx" and "epad" collide from that state, so all
// four keys share one hash.
const COLLIDING = ["k4uzx33zx", "k4uzxepad", "kf2ad33zx", "kf2adepad"] as const;
const COLLIDING_PAIR = ["k4uzy", "kf2ae"] as const;

/** Keys drawn from a small pool, so sequences re-set keys often; the pool includes colliding keys. */
const key = fc.oneof(
  { weight: 6, arbitrary: fc.string({ maxLength: 3 }) },
  { weight: 2, arbitrary: fc.constantFrom(...COLLIDING, ...COLLIDING_PAIR) },
  { weight: 2, arbitrary: fc.nat({ max: 3000 }).map((i) => `t-${i}`) },
);
const ops = (maxLength: number) => fc.array(fc.tuple(key, fc.integer({ min: -3, max: 3 })), { maxLength });

describe("Table", () => {
  it("the colliding test keys do collide", () => {
    for (const k of COLLIDING) expect(hashKey(k)).toBe(hashKey(COLLIDING[0]));
    expect(hashKey(COLLIDING_PAIR[0])).toBe(hashKey(COLLIDING_PAIR[1]));
    expect(hashKey(COLLIDING_PAIR[0])).not.toBe(hashKey(COLLIDING[0]));
  });

  it("behaves like a Map after every write, and never changes an old version", () => {
    fc.assert(
      fc.property(ops(400), (writes) => {
        let table = Table.empty<number>();
        const model: Model = new Map();
        const versions: [Table<number>, [string, number][]][] = [[table, []]];
        for (const [k, v] of writes) {
          table = table.set(k, v);
          model.set(k, v);
          expect(table.get(k)).toBe(v);
          expect(table.size).toBe(model.size);
          versions.push([table, [...model]]);
        }
        expectSame(table, model);
        for (const [t, snapshot] of versions) expect([...t.entries()]).toEqual(snapshot);
        expect(table.get("absent key")).toBeUndefined();
        expect(table.has("absent key")).toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it("from keeps the first position of a key and its last value, like a Map", () => {
    fc.assert(
      fc.property(ops(400), (pairs) => {
        expectSame(Table.from(pairs), new Map(pairs));
      }),
      { numRuns: 200 },
    );
  });

  it("from builds the same table as the writes it stands for", () => {
    // Deep-equal, not only the same entries: worlds compared with toEqual hold tables built both ways.
    fc.assert(
      fc.property(ops(400), (pairs) => {
        const written = pairs.reduce((t, [k, v]) => t.set(k, v), Table.empty<number>());
        expect(Table.from(pairs)).toEqual(written);
      }),
      { numRuns: 200 },
    );
  });

  it("writes to tables of any size keep the order: new keys last, re-set keys in place", () => {
    // Sizes cross the ordered trie's level boundaries (32, 1,024) and the hash trie's deeper levels.
    fc.assert(
      fc.property(
        fc.nat({ max: 2100 }),
        fc.array(fc.tuple(fc.nat({ max: 2200 }), fc.integer()), { maxLength: 60 }),
        (n, writes) => {
          const base = Array.from({ length: n }, (_, i) => [`t-${i}`, i] as [string, number]);
          const start = Table.from(base);
          let table = start;
          const model: Model = new Map(base);
          for (const [i, v] of writes) {
            table = table.set(`t-${i}`, v);
            model.set(`t-${i}`, v);
          }
          expectSame(table, model);
          expectSame(start, new Map(base));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("holds 100,000 entries: updates, appends, and the old version intact", () => {
    const n = 100_000;
    const base = Array.from({ length: n }, (_, i) => [`task-${i.toString(36)}`, i] as [string, number]);
    const loaded = Table.from(base);
    const model: Model = new Map(base);
    expectSame(loaded, model);
    const rnd = fc.sample(fc.tuple(fc.nat({ max: n + 999 }), fc.integer()), { numRuns: 3000, seed: 42 });
    let table = loaded;
    for (const [i, v] of rnd) {
      const k = `task-${i.toString(36)}`;
      table = table.set(k, v);
      model.set(k, v);
    }
    expectSame(table, model);
    expectSame(loaded, new Map(base));
    // Built by writes alone, it is the same table.
    const written = [...model].reduce((t, [k, v]) => t.set(k, v), Table.empty<number>());
    expect(written).toEqual(Table.from(model));
  });

  it("keys with one hash are distinct entries, in insertion order", () => {
    let table = Table.from([["a", 0]]);
    for (const [i, k] of [...COLLIDING, ...COLLIDING_PAIR].entries()) table = table.set(k, i + 1);
    table = table.set(COLLIDING[1], 20).set(COLLIDING_PAIR[0], 30);
    expect([...table.entries()]).toEqual([
      ["a", 0],
      [COLLIDING[0], 1],
      [COLLIDING[1], 20],
      [COLLIDING[2], 3],
      [COLLIDING[3], 4],
      [COLLIDING_PAIR[0], 30],
      [COLLIDING_PAIR[1], 6],
    ]);
    expect(table.get(COLLIDING[2])).toBe(3);
    expect(table.has("k4uzx")).toBe(false);
  });

  it("setting the value already stored (by Object.is) returns the same table", () => {
    const t = Table.from([
      ["a", 1],
      ["n", Number.NaN],
      ["z", 0],
    ]);
    expect(t.set("a", 1)).toBe(t);
    expect(t.set("n", Number.NaN)).toBe(t);
    const negative = t.set("z", -0);
    expect(negative).not.toBe(t);
    expect(Object.is(negative.get("z"), -0)).toBe(true);
  });

  it("is frozen, and an empty table is empty", () => {
    const t = Table.from([["a", 1]]);
    expect(Object.isFrozen(t)).toBe(true);
    expect(Object.isFrozen(t.set("b", 2))).toBe(true);
    const empty = Table.empty<number>();
    expect(empty.size).toBe(0);
    expect([...empty.entries()]).toEqual([]);
    expect(empty.get("")).toBeUndefined();
    expect(Table.from([])).toEqual(empty);
  });
});
