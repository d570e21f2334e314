/**
 * The comments of one task: an immutable, append-only list whose append costs O(1) amortised.
 *
 * Why not a frozen array: appending to an immutable array copies it, so the n-th comment on a task
 * cost O(n) and loading or posting n comments O(n²) (80k comments on one task took a minute to
 * load). A log shares one backing array among its versions, as a Go slice does: a version sees the
 * first `length` items; appending to the newest version pushes onto the backing array, which no
 * older version can see (each reads only up to its own length); appending to an older version
 * copies its items first. Every version reads as it did when it was made, so a world that holds a
 * log is as immutable as one that holds an array.
 *
 * The backing array is an ES private field: it is invisible to `Object.keys`, to equality in tests
 * (which compare logs item by item through the iterator) and to anyone who could write to it.
 */
import type { Table } from "./table.js";
import type { TaskComment } from "./world.js";

/**
 * An immutable list of a task's comments, oldest first; read it like a read-only array (`length`,
 * `at`, iteration, `map`, `filter`, `some`, `find`), extend it with {@link CommentLog.append}.
 *
 * @example
 * ```ts
 * const log = CommentLog.of([first]).append(second);
 * log.length;         // 2
 * log.at(-1)?.comment; // second's text
 * [...log];           // [first, second]
 * ```
 */
function textOf(items: readonly TaskComment[]): number {
  let n = 0;
  for (const c of items) n += typeof c.comment === "string" ? c.comment.length : 0;
  return n;
}

export class CommentLog implements Iterable<TaskComment> {
  readonly #items: TaskComment[];
  readonly #textLength: number;
  /** Number of comments in this version. */
  readonly length: number;

  private constructor(items: TaskComment[], length: number, textLength: number) {
    this.#items = items;
    this.#textLength = textLength;
    this.length = length;
    Object.freeze(this);
  }

  /**
   * The comments' text in UTF-16 code units, summed (kept up to date on append, so reading it is
   * O(1)): what a per-task budget of comment text is measured in.
   *
   * @example
   * ```ts
   * CommentLog.of([{ ...c, comment: "hi" }]).textLength; // 2
   * ```
   */
  get textLength(): number {
    return this.#textLength;
  }

  /**
   * A log of `items`, in order (the array is copied, never kept).
   *
   * @example
   * ```ts
   * CommentLog.of([]).length; // 0
   * ```
   */
  static of(items: Iterable<TaskComment>): CommentLog {
    const copy = [...items];
    return new CommentLog(copy, copy.length, textOf(copy));
  }

  /**
   * A new log with `items` after this one's; this one is unchanged. O(1) amortised per item when
   * this is the newest version of its log (the usual case), O(length) once otherwise.
   *
   * @example
   * ```ts
   * const a = CommentLog.of([c1]);
   * const b = a.append(c2);
   * a.length; // 1
   * b.length; // 2
   * ```
   */
  append(...items: readonly TaskComment[]): CommentLog {
    return this.appendAll(items);
  }

  /**
   * {@link CommentLog.append} for a list of any length (no spread into arguments).
   *
   * @example
   * ```ts
   * log.appendAll(posted);
   * ```
   */
  appendAll(items: readonly TaskComment[]): CommentLog {
    if (items.length === 0) return this;
    const shared = this.#items;
    const store = shared.length === this.length ? shared : shared.slice(0, this.length);
    for (const c of items) store.push(c);
    return new CommentLog(store, this.length + items.length, this.#textLength + textOf(items));
  }

  /**
   * The comment at `index` (negative counts from the end), or `undefined`.
   *
   * @example
   * ```ts
   * log.at(-1); // the newest comment
   * ```
   */
  at(index: number): TaskComment | undefined {
    const i = Math.trunc(index) < 0 ? this.length + Math.trunc(index) : Math.trunc(index);
    return i >= 0 && i < this.length ? this.#items[i] : undefined;
  }

  /**
   * The comments oldest first.
   *
   * @example
   * ```ts
   * for (const c of log) console.log(c.comment);
   * ```
   */
  *[Symbol.iterator](): IterableIterator<TaskComment> {
    const items = this.#items;
    for (let i = 0; i < this.length; i++) yield items[i] as TaskComment;
  }

  /**
   * The comments in a new array, oldest first.
   *
   * @example
   * ```ts
   * log.toArray().length === log.length; // true
   * ```
   */
  toArray(): TaskComment[] {
    return this.#items.slice(0, this.length);
  }

  /**
   * `JSON.stringify` writes a log as the array of its comments.
   *
   * @example
   * ```ts
   * JSON.stringify(CommentLog.of([])); // "[]"
   * ```
   */
  toJSON(): TaskComment[] {
    return this.toArray();
  }

  /**
   * Like `Array.prototype.map`.
   *
   * @example
   * ```ts
   * log.map((c) => c.comment);
   * ```
   */
  map<U>(f: (c: TaskComment, index: number) => U): U[] {
    const out: U[] = [];
    for (let i = 0; i < this.length; i++) out.push(f(this.#items[i] as TaskComment, i));
    return out;
  }

  /**
   * Like `Array.prototype.filter`.
   *
   * @example
   * ```ts
   * log.filter((c) => c.userId === "");
   * ```
   */
  filter(f: (c: TaskComment, index: number) => boolean): TaskComment[] {
    const out: TaskComment[] = [];
    for (let i = 0; i < this.length; i++) if (f(this.#items[i] as TaskComment, i)) out.push(this.#items[i] as TaskComment);
    return out;
  }

  /**
   * Like `Array.prototype.some`.
   *
   * @example
   * ```ts
   * log.some((c) => c.userId === "u-ada");
   * ```
   */
  some(f: (c: TaskComment, index: number) => boolean): boolean {
    for (let i = 0; i < this.length; i++) if (f(this.#items[i] as TaskComment, i)) return true;
    return false;
  }

  /**
   * Like `Array.prototype.find`.
   *
   * @example
   * ```ts
   * log.find((c) => c.id === "cmt-000001");
   * ```
   */
  find(f: (c: TaskComment, index: number) => boolean): TaskComment | undefined {
    for (let i = 0; i < this.length; i++) if (f(this.#items[i] as TaskComment, i)) return this.#items[i];
    return undefined;
  }
}

/**
 * `comments` with `items` appended to the log of task `taskId` (a new log when it has none).
 *
 * @example
 * ```ts
 * const next = appendComments(world.comments, task.id, [record]);
 * ```
 */
export function appendComments(comments: Table<CommentLog>, taskId: string, items: readonly TaskComment[]): Table<CommentLog> {
  if (items.length === 0) return comments;
  const log = comments.get(taskId);
  return comments.set(taskId, log ? log.appendAll(items) : CommentLog.of(items));
}
