/**
 * A persistent (immutable) map from string keys to values, for the world's large collections.
 *
 * Why not an array or object updated with immer: immer copies the container it writes into, so
 * changing one task of 100,000 copies 100,000 references (measured: ~5 ms a call). A reducer's cost
 * must not grow with the size of the world.
 *
 * Every entry is referenced from two tries with a fan-out of 32, which share with older versions
 * everything a write does not touch:
 * - a hash trie (HAMT: each node keeps only its occupied slots, found by a bitmap) answers `get`;
 * - an ordered trie, indexed by insertion position, gives the iteration order without a sort.
 * A write copies one path in each: about log₃₂ n nodes of at most 32 references (4 in each at
 * 100,000 entries, 4–5 at 1,000,000), so its cost barely grows with the table. `get` walks as many
 * nodes of the hash trie; iterating reads the ordered trie's bottom chunks in turn.
 *
 * Iteration order is insertion order of the original load and stable across writes (a new key goes
 * last), so results that list tasks are deterministic.
 */

const BITS = 5;
const FANOUT = 1 << BITS;
const MASK = FANOUT - 1;

/**
 * The 32-bit hash a table files `key` under: FNV-1a over UTF-16 code units, then murmur3's finaliser
 * so that every 5-bit slice is spread. Exported for the tests (which need keys that collide); not
 * part of the package's API.
 *
 * @example
 * ```ts
 * hashKey("k4uzx") === hashKey("kf2ad"); // true: an FNV-1a collision
 * ```
 */
export function hashKey(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  // FNV's low bits depend only on the low bits of each character; ids differing in a few digits
  // would crowd a few slots of the trie's root without this mix.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Number of set bits in a 32-bit integer. */
function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

class Entry<V> {
  constructor(
    readonly key: string,
    readonly hash: number,
    readonly value: V,
    /** Position in iteration order: there is no delete, so positions are 0 … size − 1. */
    readonly order: number,
  ) {}
}

/** A HAMT node: `slots` holds, in bit order, the occupied slots of `bitmap`. */
class Branch<V> {
  constructor(
    readonly bitmap: number,
    readonly slots: readonly Slot<V>[],
  ) {}
}

/** Entries whose 32-bit hashes are equal (distinct keys). */
class Collision<V> {
  constructor(
    readonly hash: number,
    readonly entries: readonly Entry<V>[],
  ) {}
}

type Slot<V> = Entry<V> | Branch<V> | Collision<V>;

/** A node of the ordered trie: entries at the bottom level, nodes above. */
type Chunk<V> = readonly Entry<V>[] | readonly Chunk<V>[];

function find<V>(root: Branch<V>, key: string, h: number): Entry<V> | undefined {
  let node: Slot<V> = root;
  let shift = 0;
  while (node instanceof Branch) {
    const bitmap = node.bitmap;
    const bit = 1 << ((h >>> shift) & MASK);
    if ((bitmap & bit) === 0) return undefined;
    node = node.slots[popcount(bitmap & (bit - 1))] as Slot<V>;
    shift += BITS;
  }
  if (node instanceof Entry) return node.key === key ? node : undefined;
  if (node.hash !== h) return undefined;
  for (const e of node.entries) if (e.key === key) return e;
  return undefined;
}

/** A node holding `a` and `b`, whose hashes differ, at depth `shift`. */
function split<V>(a: Entry<V> | Collision<V>, b: Entry<V>, shift: number): Branch<V> {
  // Two different 32-bit hashes differ in one of the slices at shifts 0, 5, …, 30: this ends.
  const ia = (a.hash >>> shift) & MASK;
  const ib = (b.hash >>> shift) & MASK;
  if (ia === ib) return new Branch(1 << ia, [split(a, b, shift + BITS)]);
  return new Branch((1 << ia) | (1 << ib), ia < ib ? [a, b] : [b, a]);
}

/** `node` with `e` stored under its key (replacing the entry of the same key), path copied. */
function assoc<V>(node: Slot<V>, e: Entry<V>, shift: number): Slot<V> {
  if (node instanceof Branch) {
    const bit = 1 << ((e.hash >>> shift) & MASK);
    const at = popcount(node.bitmap & (bit - 1));
    const slots = node.slots;
    if ((node.bitmap & bit) === 0) {
      const next = slots.slice(0, at);
      next.push(e);
      for (let i = at; i < slots.length; i++) next.push(slots[i] as Slot<V>);
      return new Branch(node.bitmap | bit, next);
    }
    const next = slots.slice();
    next[at] = assoc(slots[at] as Slot<V>, e, shift + BITS);
    return new Branch(node.bitmap, next);
  }
  if (node.hash !== e.hash) return split(node, e, shift);
  if (node instanceof Entry) return node.key === e.key ? e : new Collision(e.hash, [node, e]);
  const at = node.entries.findIndex((x) => x.key === e.key);
  if (at < 0) return new Collision(e.hash, [...node.entries, e]);
  const entries = node.entries.slice();
  entries[at] = e;
  return new Collision(e.hash, entries);
}

/** `chunk` (of depth `shift`) with `e` at position `e.order`, which is at most its length. */
function place<V>(chunk: Chunk<V>, e: Entry<V>, shift: number): Chunk<V> {
  if (shift === 0) {
    const next = (chunk as readonly Entry<V>[]).slice();
    next[e.order & MASK] = e;
    return next;
  }
  const nodes = chunk as readonly Chunk<V>[];
  const at = (e.order >>> shift) & MASK;
  const child = nodes[at];
  const next = nodes.slice();
  next[at] = child === undefined ? pathTo(e, shift - BITS) : place(child, e, shift - BITS);
  return next;
}

/** A fresh chain of chunks down to `e`, for a position that starts a new branch. */
function pathTo<V>(e: Entry<V>, shift: number): Chunk<V> {
  return shift === 0 ? [e] : [pathTo(e, shift - BITS)];
}

/** The HAMT node holding `group` (entries whose hashes agree below `shift`), in insertion order. */
function branchOf<V>(group: readonly Entry<V>[], shift: number): Branch<V> {
  const buckets: Entry<V>[][] = [];
  let bitmap = 0;
  for (const e of group) {
    const i = (e.hash >>> shift) & MASK;
    bitmap |= 1 << i;
    (buckets[i] ??= []).push(e);
  }
  const slots: Slot<V>[] = [];
  for (let i = 0; i < FANOUT; i++) {
    const bucket = buckets[i];
    if (bucket === undefined) continue;
    const first = bucket[0] as Entry<V>;
    if (bucket.length === 1) slots.push(first);
    else if (bucket.every((e) => e.hash === first.hash)) slots.push(new Collision(first.hash, bucket));
    else slots.push(branchOf(bucket, shift + BITS));
  }
  return new Branch(bitmap, slots);
}

const EMPTY_ROOT = new Branch<never>(0, []);

/**
 * An immutable string-keyed map with cheap single-entry updates and structural sharing.
 *
 * @example
 * ```ts
 * const t = Table.from([["a", 1], ["b", 2]]);
 * const t2 = t.set("a", 10);
 * t.get("a");  // 1  (unchanged)
 * t2.get("a"); // 10
 * [...t2.values()]; // [10, 2]
 * ```
 */
export class Table<V> {
  private constructor(
    /** The hash trie, by key. */
    private readonly root: Branch<V>,
    /** The ordered trie, by position; `shift` is its height times 5 (0: one chunk of entries). */
    private readonly ordered: Chunk<V>,
    private readonly shift: number,
    /** Number of entries. */
    readonly size: number,
  ) {
    Object.freeze(this);
  }

  /**
   * Builds a table from key/value pairs; a later pair with the same key replaces an earlier one.
   *
   * @example
   * ```ts
   * Table.from([["t-1", task]]).get("t-1") === task; // true
   * ```
   */
  static from<V>(pairs: Iterable<readonly [string, V]>): Table<V> {
    const positions = new Map<string, number>();
    const entries: Entry<V>[] = [];
    for (const [key, value] of pairs) {
      const at = positions.get(key);
      if (at === undefined) {
        positions.set(key, entries.length);
        entries.push(new Entry(key, hashKey(key), value, entries.length));
      } else {
        entries[at] = new Entry(key, (entries[at] as Entry<V>).hash, value, at);
      }
    }
    // Built bottom-up rather than by `set`s (~10x faster on a large load); the tries are the same
    // shape as the `set`s would make, so equal tables stay deep-equal however they were built.
    let level: Chunk<V>[] = [];
    for (let i = 0; i < entries.length; i += FANOUT) level.push(entries.slice(i, i + FANOUT));
    let shift = 0;
    while (level.length > 1) {
      const up: Chunk<V>[] = [];
      for (let i = 0; i < level.length; i += FANOUT) up.push(level.slice(i, i + FANOUT));
      level = up;
      shift += BITS;
    }
    return new Table(branchOf(entries, 0), level[0] ?? [], shift, entries.length);
  }

  /**
   * An empty table.
   *
   * @example
   * ```ts
   * Table.empty<number>().size; // 0
   * ```
   */
  static empty<V>(): Table<V> {
    return new Table<V>(EMPTY_ROOT, [], 0, 0);
  }

  /**
   * The value stored under `key`, or `undefined`.
   *
   * @example
   * ```ts
   * Table.from([["a", 1]]).get("b"); // undefined
   * ```
   */
  get(key: string): V | undefined {
    return find(this.root, key, hashKey(key))?.value;
  }

  /**
   * Whether `key` is present.
   *
   * @example
   * ```ts
   * Table.from([["a", 1]]).has("a"); // true
   * ```
   */
  has(key: string): boolean {
    return find(this.root, key, hashKey(key)) !== undefined;
  }

  /**
   * A new table with `key` set to `value`; this one is unchanged. Costs one path copy in each trie.
   *
   * @example
   * ```ts
   * const t = Table.from([["a", 1]]);
   * t.set("a", 2).get("a"); // 2
   * ```
   */
  set(key: string, value: V): Table<V> {
    const h = hashKey(key);
    const old = find(this.root, key, h);
    if (old !== undefined && Object.is(old.value, value)) return this;
    const e = new Entry(key, h, value, old === undefined ? this.size : old.order);
    const root = assoc(this.root, e, 0) as Branch<V>;
    if (e.order < 2 ** (this.shift + BITS)) {
      return new Table(root, place(this.ordered, e, this.shift), this.shift, old === undefined ? this.size + 1 : this.size);
    }
    // The ordered trie is full: a new level on top, the old trie its first child.
    const shift = this.shift + BITS;
    return new Table(root, [this.ordered, pathTo(e, this.shift)] as Chunk<V>, shift, this.size + 1);
  }

  /** The bottom chunk holding position `i` (< size). */
  private chunkAt(i: number): readonly Entry<V>[] {
    let chunk = this.ordered;
    for (let s = this.shift; s > 0; s -= BITS) chunk = (chunk as readonly Chunk<V>[])[(i >>> s) & MASK] as Chunk<V>;
    return chunk as readonly Entry<V>[];
  }

  /**
   * Key/value pairs in a stable order (load order, then insertion order).
   *
   * @example
   * ```ts
   * [...Table.from([["a", 1], ["b", 2]]).entries()]; // [["a", 1], ["b", 2]]
   * ```
   */
  *entries(): IterableIterator<readonly [string, V]> {
    for (let i = 0; i < this.size; i += FANOUT) for (const e of this.chunkAt(i)) yield [e.key, e.value] as const;
  }

  /**
   * Values in the same stable order as {@link Table.entries}.
   *
   * @example
   * ```ts
   * [...Table.from([["a", 1]]).values()]; // [1]
   * ```
   */
  *values(): IterableIterator<V> {
    for (let i = 0; i < this.size; i += FANOUT) for (const e of this.chunkAt(i)) yield e.value;
  }

  /**
   * The values as an array, in the order of {@link Table.values}: a walk over the chunks without a
   * generator (`[...t.values()]` cost ~0.3 µs a value at 1M tasks, most of it resuming the generator).
   *
   * @example
   * ```ts
   * Table.from([["a", 1], ["b", 2]]).valueList(); // [1, 2]
   * ```
   */
  valueList(): V[] {
    const out = new Array<V>(this.size);
    let k = 0;
    for (let i = 0; i < this.size; i += FANOUT) {
      const chunk = this.chunkAt(i);
      for (let j = 0; j < chunk.length; j++) out[k++] = (chunk[j] as Entry<V>).value;
    }
    return out;
  }

  /**
   * Keys in the same stable order as {@link Table.entries}.
   *
   * @example
   * ```ts
   * [...Table.from([["a", 1]]).keys()]; // ["a"]
   * ```
   */
  *keys(): IterableIterator<string> {
    for (let i = 0; i < this.size; i += FANOUT) for (const e of this.chunkAt(i)) yield e.key;
  }
}
