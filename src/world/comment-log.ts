/**
 * The comments of one task: an immutable, append-only list whose append costs O(1) amortised.
 *
 * Why not a frozen array: appending to an immutable array copies it, so the n-th comment on a task
 * cost O(n) and loading or posting n comments O(n²) (80k comments on one task took a minute to
 * load). The comments are an {@link AppendLog} (the list the world keeps wherever a list only
 * grows, a task's step history too), with the sum of their text kept beside it.
 *
 * The log is an ES private field: it is invisible to `Object.keys`, to equality in tests (which
 * compare logs item by item through the iterator) and to anyone who could write to it.
 */
import { AppendLog } from "./append-log.js";
import type { Table } from "./table.js";
import type { TaskComment } from "./world.js";

/** UTF-16 code units of the comments' text, summed. */
function textOf(items: readonly TaskComment[]): number {
  let n = 0;
  for (let i = 0; i < items.length; i++) {
    const text = (items[i] as TaskComment).comment;
    n += typeof text === "string" ? text.length : 0;
  }
  return n;
}

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
export class CommentLog implements Iterable<TaskComment> {
  readonly #log: AppendLog<TaskComment>;
  readonly #textLength: number;
  /** Number of comments in this version. */
  readonly length: number;

  private constructor(log: AppendLog<TaskComment>, textLength: number) {
    this.#log = log;
    this.#textLength = textLength;
    this.length = log.length;
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
   * A log of `items`, in order (the iterable is read once, never kept).
   *
   * @example
   * ```ts
   * CommentLog.of([]).length; // 0
   * ```
   */
  static of(items: Iterable<TaskComment>): CommentLog {
    const list: readonly TaskComment[] = Array.isArray(items) ? items : [...items];
    return new CommentLog(AppendLog.of(list), textOf(list));
  }

  /**
   * A new log with `items` after this one's; this one is unchanged. O(1) amortised per item,
   * whichever version is appended to (see {@link AppendLog}).
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
    return new CommentLog(this.#log.appendAll(items), this.#textLength + textOf(items));
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
    return this.#log.at(index);
  }

  /**
   * The comments oldest first.
   *
   * @example
   * ```ts
   * for (const c of log) console.log(c.comment);
   * ```
   */
  [Symbol.iterator](): IterableIterator<TaskComment> {
    return this.#log[Symbol.iterator]();
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
    return this.#log.toArray();
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
   * What Node's `console.log`, `util.inspect` and the REPL show: the comments, as for an array.
   *
   * @example
   * ```ts
   * console.log(log); // [ { id: "cmt-000001", … } ]
   * ```
   */
  [Symbol.for("nodejs.util.inspect.custom")](): TaskComment[] {
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
    return this.#log.map(f);
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
    return this.#log.filter(f);
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
    return this.#log.some(f);
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
    return this.#log.find(f);
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
