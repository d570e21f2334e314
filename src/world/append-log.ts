/**
 * An immutable, append-only list whose append costs O(1) amortised from ANY version, not only the
 * newest: what a world keeps where a list only grows (a task's comments, its policy's step history).
 *
 * Why not a frozen array: appending to an immutable array copies it, so the n-th append cost O(n):
 * the n-th Hard Reset of a task copied its whole step history, loading n comments on one task cost
 * O(n²). Why not a Go-style slice (one shared backing array, a length per version): appending to
 * any version but the newest copies it, and a pure library appends to older versions all the time
 * (what-if, property tests, a caller that tries two actions on the same world).
 *
 * A log is a persistent vector (the bit-partitioned trie of Clojure's and Scala's vectors): items
 * live in leaves of 32, under inner nodes of 32, and the last, partly filled leaf is kept apart as
 * the tail. Appending copies the tail (≤ 31 references) and, once every 32 items, the path from the
 * root to the new leaf (depth ≤ 4 below a million items); nothing a version can see is ever written
 * again, so every version reads as it did when it was made and no version's append costs more than
 * another's. `at(i)` walks the path (O(log₃₂ n)); iteration reads leaf by leaf.
 *
 * The nodes are ES private fields: invisible to `Object.keys`, to equality in tests (which compare
 * logs item by item through the iterator) and to anyone who could write to them.
 */

const BITS = 5;
const WIDTH = 1 << BITS;
const MASK = WIDTH - 1;

/** An inner node holds nodes; a leaf holds items. Nodes are never written after they are built. */
type Node = readonly unknown[];

/** The path to a leaf `level` bits above it: `[[…[leaf]]]`. */
function newPath(level: number, leaf: Node): Node {
  return level === 0 ? leaf : [newPath(level - BITS, leaf)];
}

/** `parent` (a node `level` bits above the leaves) with the full leaf `leaf` placed at index `last`. */
function pushLeaf(last: number, level: number, parent: Node, leaf: Node): Node {
  const sub = (last >>> level) & MASK;
  const copy = parent.slice();
  if (level === BITS) copy[sub] = leaf;
  else {
    const child = parent[sub] as Node | undefined;
    copy[sub] = child === undefined ? newPath(level - BITS, leaf) : pushLeaf(last, level - BITS, child, leaf);
  }
  return copy;
}

const EMPTY_NODE: Node = Object.freeze([]);

/**
 * An immutable list, oldest first, that only grows: read it like a read-only array (`length`,
 * `at`, iteration, `map`, `filter`, `some`, `every`, `find`, `findLast`, `slice`), extend it with
 * {@link AppendLog.append}, which leaves this log as it was. `JSON.stringify` writes it as an array.
 *
 * @example
 * ```ts
 * const a = AppendLog.of(["x"]);
 * const b = a.append("y");
 * a.length;   // 1
 * b.at(-1);   // "y"
 * [...b];     // ["x", "y"]
 * ```
 */
export class AppendLog<T> implements Iterable<T> {
  readonly #shift: number;
  readonly #root: Node;
  readonly #tail: readonly T[];
  /** Number of items in this version. */
  readonly length: number;

  /**
   * A log with the same items as `source`, sharing its nodes (O(1)): for subclasses that observe a
   * log (a test's counting log). The other parameters are the log's own, for building one here.
   */
  protected constructor(source: AppendLog<T> | null, length = 0, shift = BITS, root: readonly unknown[] = EMPTY_NODE, tail: readonly T[] = []) {
    if (source) {
      this.length = source.length;
      this.#shift = source.#shift;
      this.#root = source.#root;
      this.#tail = source.#tail;
    } else {
      this.length = length;
      this.#shift = shift;
      this.#root = root;
      this.#tail = tail;
    }
    if (new.target === AppendLog) Object.freeze(this);
  }

  static #empty: AppendLog<never> | undefined;

  /**
   * The empty log (one shared instance).
   *
   * @example
   * ```ts
   * AppendLog.empty<string>().append("a").length; // 1
   * ```
   */
  static empty<U>(): AppendLog<U> {
    AppendLog.#empty ??= new AppendLog<never>(null);
    return AppendLog.#empty as unknown as AppendLog<U>;
  }

  /**
   * A log of `items`, in order (the iterable is read once, never kept).
   *
   * @example
   * ```ts
   * AppendLog.of([1, 2, 3]).length; // 3
   * ```
   */
  static of<U>(items: Iterable<U>): AppendLog<U> {
    return AppendLog.empty<U>().appendAll(Array.isArray(items) ? (items as readonly U[]) : [...items]);
  }

  /**
   * A new log with `items` after this one's; this one is unchanged. O(1) amortised per item,
   * whichever version is appended to.
   *
   * @example
   * ```ts
   * const b = a.append(x, y);
   * b.length === a.length + 2; // true
   * ```
   */
  append(...items: readonly T[]): AppendLog<T> {
    return this.appendAll(items);
  }

  /**
   * {@link AppendLog.append} for a list of any length (no spread into arguments).
   *
   * @example
   * ```ts
   * const all = log.appendAll(retired);
   * ```
   */
  appendAll(items: readonly T[]): AppendLog<T> {
    const n = items.length;
    if (n === 0) return this;
    let length = this.length;
    let shift = this.#shift;
    let root = this.#root;
    // The tail is copied, never pushed onto: another version may share it.
    let tail: T[] = this.#tail.slice();
    for (let k = 0; k < n; k++) {
      if (tail.length === WIDTH) {
        // The tail is full: it becomes a leaf of the trie (a new root level when the trie is full).
        const last = length - 1;
        if (length >>> BITS > 1 << shift) {
          root = [root, newPath(shift, tail)];
          shift += BITS;
        } else root = pushLeaf(last, shift, root, tail);
        tail = [];
      }
      tail.push(items[k] as T);
      length++;
    }
    return new AppendLog<T>(null, length, shift, root, tail);
  }

  /** Index of the first item of the tail. */
  #tailOffset(): number {
    return this.length - this.#tail.length;
  }

  /** The leaf holding item `i` (`0 ≤ i < tailOffset`). */
  #leaf(i: number): readonly T[] {
    let node = this.#root;
    for (let level = this.#shift; level > 0; level -= BITS) node = node[(i >>> level) & MASK] as Node;
    return node as readonly T[];
  }

  /**
   * The item at `index` (negative counts from the end), or `undefined`. O(log₃₂ n); the last 32
   * items O(1).
   *
   * @example
   * ```ts
   * log.at(-1); // the newest item
   * ```
   */
  at(index: number): T | undefined {
    const t = Math.trunc(index);
    const i = t < 0 ? this.length + t : t;
    if (!(i >= 0 && i < this.length)) return undefined;
    const offset = this.#tailOffset();
    return i >= offset ? this.#tail[i - offset] : this.#leaf(i)[i & MASK];
  }

  /**
   * Calls `f` on every item from `start` (inclusive) to `end` (exclusive), oldest first, leaf by
   * leaf; stops when `f` returns `true`. The one loop every reader below goes through.
   */
  #scan(start: number, end: number, f: (item: T, index: number) => boolean | void): void {
    const offset = this.#tailOffset();
    let i = start;
    while (i < end && i < offset) {
      const leaf = this.#leaf(i);
      const stop = Math.min(end, offset, (i | MASK) + 1);
      for (; i < stop; i++) if (f(leaf[i & MASK] as T, i) === true) return;
    }
    const tail = this.#tail;
    for (; i < end; i++) if (f(tail[i - offset] as T, i) === true) return;
  }

  /**
   * The items oldest first.
   *
   * @example
   * ```ts
   * for (const item of log) console.log(item);
   * ```
   */
  *[Symbol.iterator](): IterableIterator<T> {
    const offset = this.#tailOffset();
    for (let i = 0; i < offset; i += WIDTH) yield* this.#leaf(i);
    yield* this.#tail;
  }

  /**
   * Items `start` (inclusive) to `end` (exclusive) in a new array, as `Array.prototype.slice`
   * (negative indexes count from the end). Costs the items taken.
   *
   * @example
   * ```ts
   * log.slice(-3); // the newest three
   * ```
   */
  slice(start = 0, end = this.length): T[] {
    const norm = (x: number): number => {
      const t = Number.isNaN(x) ? 0 : Math.trunc(x);
      return t < 0 ? Math.max(0, this.length + t) : Math.min(t, this.length);
    };
    const from = norm(start);
    const to = norm(end);
    const offset = this.#tailOffset();
    if (from >= offset) return this.#tail.slice(from - offset, Math.max(from, to) - offset);
    const out: T[] = [];
    if (from < to) this.#scan(from, to, (x) => void out.push(x));
    return out;
  }

  /**
   * The items in a new array, oldest first.
   *
   * @example
   * ```ts
   * log.toArray().length === log.length; // true
   * ```
   */
  toArray(): T[] {
    return this.slice();
  }

  /**
   * `JSON.stringify` writes a log as the array of its items.
   *
   * @example
   * ```ts
   * JSON.stringify(AppendLog.of([1, 2])); // "[1,2]"
   * ```
   */
  toJSON(): T[] {
    return this.toArray();
  }

  /**
   * What Node's `console.log`, `util.inspect` and the REPL show: the items, as for an array (a
   * registered symbol, so the core imports nothing from Node).
   *
   * @example
   * ```ts
   * console.log(AppendLog.of([1, 2])); // [ 1, 2 ]
   * ```
   */
  [Symbol.for("nodejs.util.inspect.custom")](): T[] {
    return this.toArray();
  }

  /**
   * Like `Array.prototype.forEach`.
   *
   * @example
   * ```ts
   * log.forEach((x, i) => console.log(i, x));
   * ```
   */
  forEach(f: (item: T, index: number) => void): void {
    this.#scan(0, this.length, (x, i) => void f(x, i));
  }

  /**
   * Like `Array.prototype.map`.
   *
   * @example
   * ```ts
   * log.map((s) => s.id);
   * ```
   */
  map<U>(f: (item: T, index: number) => U): U[] {
    // Loops rather than #scan: encoding a task's history maps it on every response.
    const out = new Array<U>(this.length);
    const offset = this.#tailOffset();
    for (let i = 0; i < offset; i += WIDTH) {
      const leaf = this.#leaf(i);
      for (let j = 0; j < WIDTH; j++) out[i + j] = f(leaf[j] as T, i + j);
    }
    const tail = this.#tail;
    for (let j = 0; j < tail.length; j++) out[offset + j] = f(tail[j] as T, offset + j);
    return out;
  }

  /**
   * Like `Array.prototype.filter`.
   *
   * @example
   * ```ts
   * log.filter((s) => s.state === "POLICY_STEP_STATE_DONE");
   * ```
   */
  filter<S extends T>(f: (item: T, index: number) => item is S): S[];
  filter(f: (item: T, index: number) => boolean): T[];
  filter(f: (item: T, index: number) => boolean): T[] {
    const out: T[] = [];
    this.#scan(0, this.length, (x, i) => void (f(x, i) && out.push(x)));
    return out;
  }

  /**
   * Like `Array.prototype.some`.
   *
   * @example
   * ```ts
   * log.some((s) => s.id === "step-000003");
   * ```
   */
  some(f: (item: T, index: number) => boolean): boolean {
    let found = false;
    this.#scan(0, this.length, (x, i) => (found = f(x, i)));
    return found;
  }

  /**
   * Like `Array.prototype.every`.
   *
   * @example
   * ```ts
   * log.every((s) => s.state === "POLICY_STEP_STATE_DONE");
   * ```
   */
  every(f: (item: T, index: number) => boolean): boolean {
    let all = true;
    this.#scan(0, this.length, (x, i) => !(all = f(x, i)));
    return all;
  }

  /**
   * Like `Array.prototype.find`.
   *
   * @example
   * ```ts
   * log.find((s) => s.id === "step-000003");
   * ```
   */
  find<S extends T>(f: (item: T, index: number) => item is S): S | undefined;
  find(f: (item: T, index: number) => boolean): T | undefined;
  find(f: (item: T, index: number) => boolean): T | undefined {
    let hit: T | undefined;
    this.#scan(0, this.length, (x, i) => (f(x, i) ? ((hit = x), true) : false));
    return hit;
  }

  /**
   * Like `Array.prototype.findLast`: the newest item `f` accepts, read newest first.
   *
   * @example
   * ```ts
   * log.findLast((s) => s.instance?.kind === "provision");
   * ```
   */
  findLast(f: (item: T, index: number) => boolean): T | undefined {
    for (let i = this.length - 1; i >= 0; i--) {
      const x = this.at(i) as T;
      if (f(x, i)) return x;
    }
    return undefined;
  }
}
