/**
 * Task classes: tasks whose rule conditions provably see the same values, numbered, so that a
 * what-if run evaluates and walks a policy once per class instead of once per task.
 *
 * A condition is a function of its input (`subject`, `task`, `entitlement`, `account`, `ip`) and
 * of the world (clock, directory, cost budget). When every condition of a slot set selects only
 * fields of its input (`cel/input-signature.ts`), two tasks whose inputs agree at those paths get
 * the same result from every condition. The signature that says so is read from a task's prepared
 * CEL context, which costs a context per task; a class is read from the task itself, without one:
 * - `subject`/`user`: the subject's values at the paths, read once per subject id from the first
 *   task of that subject (the subject's CEL value is a function of the user the id names);
 * - `entitlement`: its values at the paths, once per resolution key (the key fixes the entitlement),
 *   handed in by the caller;
 * - `task`: the task's own field behind each selected field (`origin`, `createdAt`, …), as it is;
 * - `account`: the task's app, account id and subject id, from which the account is looked up;
 * - `ip`: the task's `data.ip`, as it is.
 * Equal parts mean equal values at every path, so a class is never coarser than a signature. A
 * task whose input would not prepare (a malformed creation time, grant duration or address: its
 * conditions fail with errors of its own) has no class, nor has any task when a condition selects a
 * task field this module does not know: the caller decides those tasks one by one.
 */
import { InputSignatures, type InputPath } from "../cel/input-signature.js";
import { parseIp } from "../cel/net.js";
import { taskTextsConvert } from "../cel/values.js";
import type { Task } from "../model/index.js";
import { taskSubjectId, certifyReviewId } from "../model/task-refs.js";
import { conditionsSignature, requesterIp, taskConditions } from "../policy/task-conditions.js";
import type { World } from "../world/world.js";

type TaskRead = (task: Task) => unknown;

function grantDurationOf(task: Task): unknown {
  const t = task.type;
  // Not a grant: `isGrantPermanent` false and `grantDuration` null whatever the task holds.
  return t?.kind === "grant" ? t.grantDuration : undefined;
}

const origin: TaskRead = (t) => t.origin;
const requestor: TaskRead = (t) => t.createdByUserId;

/**
 * What each field of the CEL `task` is made from (`taskFacts`, `celTask`), by its camelCase and
 * snake_case names: tasks equal here have equal `task` values at that field.
 */
const TASK_FIELDS: ReadonlyMap<string, TaskRead> = new Map<string, TaskRead>([
  ["id", (t) => t.id],
  ["numericId", (t) => t.numericId],
  ["numeric_id", (t) => t.numericId],
  ["displayName", (t) => t.displayName],
  ["display_name", (t) => t.displayName],
  ["origin", origin],
  ["isGrantPermanent", grantDurationOf],
  ["is_grant_permanent", grantDurationOf],
  ["grantDuration", grantDurationOf],
  ["grant_duration", grantDurationOf],
  ["subjectUserId", taskSubjectId],
  ["subject_user_id", taskSubjectId],
  ["requestorUserId", requestor],
  ["requestor_user_id", requestor],
  ["createdAt", (t) => t.createdAt],
  ["created_at", (t) => t.createdAt],
]);

/** The task fields {@link TaskGroups} keys tasks by beside the resolution key: columns of numbers, one per group. */
const SUBJECT = 0;
const APP_USER = 1;
const ORIGIN = 2;
const DURATION = 3;
const REQUESTER = 4;
const IP = 5;
const COLUMNS = 6;

/** A group's row in `TaskGroups`: its key, app and readiness, then its COLUMNS column numbers. */
const ROW_KEY = 0;
const ROW_APP = 1;
const ROW_PREPARES = 2;
const ROW_COLUMNS = 3;
const ROW = ROW_COLUMNS + COLUMNS;

/** Whether the rows at `a` and `b` agree on key, readiness and every column (not the app: the key fixes it). */
function sameRow(rows: Int32Array, a: number, b: number): boolean {
  if (rows[a + ROW_KEY] !== rows[b + ROW_KEY] || rows[a + ROW_PREPARES] !== rows[b + ROW_PREPARES]) return false;
  for (let c = ROW_COLUMNS; c < ROW; c++) if (rows[a + c] !== rows[b + c]) return false;
  return true;
}

/**
 * Groups by a 30-bit hash of their numbers: an open-addressing table of hashes (linear probing,
 * at most half full) to the last group added with that hash, and from each group the one added
 * before it with the same hash. Typed arrays throughout: a `Map` of a few hundred thousand numbers
 * cost ~0.5 µs a task in a 1M-task world, most of grouping's time. Exported for its tests.
 *
 * @example
 * ```ts
 * const hashes = new GroupHashes();
 * hashes.add(0x2a, 0);
 * hashes.first(0x2a); // 0
 * ```
 */
export class GroupHashes {
  #hashes = new Int32Array(1 << 12);
  // Group id + 1 in the slot of its hash (0: empty).
  #heads = new Int32Array(1 << 12);
  #size = 0;
  // By group: the previous group with the same hash, -1 for none.
  #before = new Int32Array(1 << 10);

  /** The last group added with hash `h`, -1 for none. */
  first(h: number): number {
    const mask = this.#hashes.length - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const head = this.#heads[i] as number;
      if (head === 0) return -1;
      if (this.#hashes[i] === h) return head - 1;
    }
  }

  /** The group added before `g` with the same hash, -1 for none. */
  next(g: number): number {
    return this.#before[g] as number;
  }

  /** Adds group `g` (the next id) with hash `h`. */
  add(h: number, g: number): void {
    if (g >= this.#before.length) {
      const grown = new Int32Array(this.#before.length * 2);
      grown.set(this.#before);
      this.#before = grown;
    }
    const mask = this.#hashes.length - 1;
    let i = h & mask;
    for (; ; i = (i + 1) & mask) {
      const head = this.#heads[i] as number;
      if (head === 0 || this.#hashes[i] === h) break;
    }
    const previous = (this.#heads[i] as number) - 1;
    this.#before[g] = previous;
    this.#heads[i] = g + 1;
    if (previous < 0) {
      this.#hashes[i] = h;
      if (++this.#size * 2 > this.#hashes.length) this.#grow();
    }
  }

  #grow(): void {
    const hashes = this.#hashes;
    const heads = this.#heads;
    this.#hashes = new Int32Array(hashes.length * 2);
    this.#heads = new Int32Array(heads.length * 2);
    const mask = this.#hashes.length - 1;
    for (let j = 0; j < heads.length; j++) {
      const head = heads[j] as number;
      if (head === 0) continue;
      let i = (hashes[j] as number) & mask;
      while (this.#heads[i] !== 0) i = (i + 1) & mask;
      this.#hashes[i] = hashes[j] as number;
      this.#heads[i] = head;
    }
  }
}

const requesterIpOf: TaskRead = requesterIp;

/** What each column holds of a task. */
const COLUMN_READS: readonly TaskRead[] = [taskSubjectId, (t) => scopedOf(t)?.appUserId, origin, grantDurationOf, requestor, requesterIpOf];

/** The task reads a group fixes, with their column: a class reading only these is the same for a whole group. */
const GROUP_READS: ReadonlyMap<TaskRead, number> = new Map([
  [origin, ORIGIN],
  [grantDurationOf, DURATION],
  [taskSubjectId, SUBJECT],
  [requestor, REQUESTER],
]);

function scopedOf(task: Task): { readonly appId: string; readonly appUserId: string } | null {
  const t = task.type;
  return t && (t.kind === "grant" || t.kind === "revoke" || t.kind === "certify") ? t : null;
}

/** The subject parts of one set of subject paths: a number per subject id. */
interface SubjectParts {
  readonly signatures: InputSignatures;
  readonly byId: Map<string, number>;
  /** The same parts by the subject's number in the run's task groups (`TaskGroups.subject`), -1 until known. */
  readonly byNumber: GrowingInts;
}

/**
 * What the task classes of one run share: the subject parts, by the subject paths they are for, so
 * that policies testing the same subject fields read each subject once, not once per policy.
 *
 * @example
 * ```ts
 * const shared = new SharedParts();
 * TaskClasses.of(world, paths, shared);
 * ```
 */
export class SharedParts {
  readonly #subjects = new Map<string, SubjectParts>();

  /** How many subject path sets have parts here. */
  get size(): number {
    return this.#subjects.size;
  }

  subjectParts(paths: readonly InputPath[]): SubjectParts {
    const key = paths.map((p) => p.join("\u0000")).sort().join("\u0001");
    let parts = this.#subjects.get(key);
    if (!parts) this.#subjects.set(key, (parts = { signatures: new InputSignatures(paths), byId: new Map(), byNumber: new GrowingInts() }));
    return parts;
  }
}

/** After this many lookups with fewer than one in eight finding a known class, classes stop (see `classOf`). */
const PROBE = 4096;

type Trie = Map<unknown, unknown>;

/**
 * The classes of the tasks of one slot set in one world. Class ids are dense from 0. Holds one
 * number per subject and per class; nothing about a task outlives the call.
 *
 * @example
 * ```ts
 * const classes = TaskClasses.of(world, [["subject", "department"], ["task", "origin"]], new SharedParts());
 * classes?.classOf(task, classes.entitlementPart(task)); // the same for tasks of one department and origin
 * ```
 */
export class TaskClasses {
  readonly #world: World;
  readonly #subject: SubjectParts | null;
  readonly #entitlement: InputSignatures | null;
  readonly #account: boolean;
  readonly #ip: boolean;
  readonly #taskReads: readonly TaskRead[];
  /** Whether every task of one group ({@link TaskGroups}) is of one class. */
  readonly groupable: boolean;
  // When groupable, the group column of each task read.
  readonly #readColumns: readonly number[];
  readonly #ips = new Map<string, boolean>();
  // By entitlement part, then subject part, then a trie of the task's own values.
  readonly #root: (Trie | undefined)[][] = [];
  // The same for groups (`classOfGroup`), a trie of their column numbers: ids from the same counter,
  // so an id stands for one class whichever way it was found (a class found both ways has two).
  readonly #groupRoot: (NumberTrie | undefined)[][] = [];
  #next = 0;
  #asked = 0;
  #off = false;
  // A group's class, once found (`classOfGroup`), and the entitlement part it was found with: a
  // class set kept with its world (`what-if.ts`, `KeptClasses`) is asked again by every run.
  #groups: TaskGroups | undefined;
  #groupClass = new GrowingInts();
  #groupPart = new GrowingInts();

  private constructor(world: World, subject: SubjectParts | null, entitlement: InputPath[], account: boolean, ip: boolean, taskReads: TaskRead[]) {
    this.#world = world;
    this.#subject = subject;
    this.#entitlement = entitlement.length > 0 ? new InputSignatures(entitlement) : null;
    this.#account = account;
    this.#ip = ip;
    this.#taskReads = taskReads;
    this.groupable = taskReads.every((r) => GROUP_READS.has(r));
    this.#readColumns = this.groupable ? taskReads.map((r) => GROUP_READS.get(r) as number) : [];
  }

  /**
   * The classes for conditions selecting these paths, or `null` when a path reads something a class
   * cannot be told from the task (a task field not listed above, another variable).
   */
  static of(world: World, paths: readonly InputPath[], shared: SharedParts): TaskClasses | null {
    const subject: InputPath[] = [];
    const entitlement: InputPath[] = [];
    const taskReads = new Set<TaskRead>();
    let account = false;
    let ip = false;
    for (const p of paths) {
      switch (p[0]) {
        case "subject":
        case "user":
          subject.push(p);
          break;
        case "entitlement":
          entitlement.push(p);
          break;
        case "account":
          account = true;
          break;
        case "ip":
          ip = true;
          break;
        case "task": {
          const read = TASK_FIELDS.get(p[1] ?? "");
          if (!read) return null;
          taskReads.add(read);
          break;
        }
        default:
          return null;
      }
    }
    return new TaskClasses(world, subject.length > 0 ? shared.subjectParts(subject) : null, entitlement, account, ip, [...taskReads]);
  }

  /**
   * The part of a task's class its entitlement fixes: the same for every task of one resolution key
   * (kind, app, entitlement), so the caller asks once per key. -1 when this task's input does not
   * prepare (ask again with another task).
   */
  entitlementPart(task: Task): number {
    if (this.#entitlement === null) return 0;
    return this.#preparable(task) ? conditionsSignature(taskConditions(this.#world, task), this.#entitlement) : -1;
  }

  /**
   * The task's class (with `entitlementPart` of its resolution key), or -1: no class for this task
   * (its input does not prepare), or none for any task any more — after 4,096 lookups with fewer
   * than one in eight sharing a class (conditions reading `task.id`), numbering them costs more
   * than it saves. Which tasks get a class changes the cost of a run, never its result.
   */
  classOf(task: Task, entitlementPart: number): number {
    if (this.#off || entitlementPart < 0 || !this.#preparable(task)) return -1;
    // The parts that are numbers index arrays; the task's own values key maps.
    let byEntitlement = this.#root[entitlementPart];
    if (byEntitlement === undefined) this.#root[entitlementPart] = byEntitlement = [];
    const subject = this.#subject === null ? 0 : this.#subjectPart(task);
    if (subject < 0) return -1;
    let node = byEntitlement[subject];
    if (node === undefined) byEntitlement[subject] = node = new Map();
    if (this.#account) {
      const s = scopedOf(task);
      node = this.#step(this.#step(this.#step(node, s?.appId), s?.appUserId), taskSubjectId(task));
    }
    if (this.#ip) node = this.#step(node, requesterIp(task));
    const reads = this.#taskReads;
    for (let i = 0; i < reads.length; i++) node = this.#step(node, (reads[i] as TaskRead)(task));
    // The class sits under a key no task value can be.
    let id = node.get(this) as number | undefined;
    if (id === undefined) node.set(this, (id = this.#next++));
    if (++this.#asked === PROBE && this.#next > PROBE - PROBE / 8) this.#off = true;
    return id;
  }

  /**
   * {@link classOf} for every task of a group of `groups` (this class set must be `groupable`): the
   * same class, found from the group's numbers rather than from the task's own values. `task` is
   * one of the group's tasks, read only for a subject met for the first time.
   */
  classOfGroup(groups: TaskGroups, group: number, entitlementPart: number, task: Task): number {
    if (this.#off || entitlementPart < 0 || !groups.prepares(group)) return -1;
    if (this.#groups !== groups) {
      this.#groups = groups;
      this.#groupClass = new GrowingInts();
      this.#groupPart = new GrowingInts();
    } else if (this.#groupPart.get(group) === entitlementPart) return this.#groupClass.get(group);
    let subject = 0;
    if (this.#subject !== null) {
      const number = groups.column(group, SUBJECT);
      subject = this.#subject.byNumber.get(number);
      if (subject < 0) {
        subject = this.#subjectPart(task);
        if (subject < 0) return -1;
        this.#subject.byNumber.set(number, subject);
      }
    }
    let byEntitlement = this.#groupRoot[entitlementPart];
    if (byEntitlement === undefined) this.#groupRoot[entitlementPart] = byEntitlement = [];
    let node = byEntitlement[subject];
    if (node === undefined) byEntitlement[subject] = node = new Map();
    if (this.#account) node = numberStep(numberStep(numberStep(node, groups.app(group)), groups.column(group, APP_USER)), groups.column(group, SUBJECT));
    if (this.#ip) node = numberStep(node, groups.column(group, IP));
    const columns = this.#readColumns;
    // The last number keys the class itself (-1 when there is none: column numbers are never negative).
    let last = -1;
    for (let i = 0; i < columns.length; i++) {
      if (last >= 0) node = numberStep(node, last);
      last = groups.column(group, columns[i] as number);
    }
    let id = node.get(last) as number | undefined;
    if (id === undefined) node.set(last, (id = this.#next++));
    if (++this.#asked === PROBE && this.#next > PROBE - PROBE / 8) this.#off = true;
    this.#groupClass.set(group, id);
    this.#groupPart.set(group, entitlementPart);
    return id;
  }

  #step(node: Trie, key: unknown): Trie {
    let next = node.get(key) as Trie | undefined;
    if (next === undefined) node.set(key, (next = new Map()));
    return next;
  }

  /** The subject's values at the subject paths, once per subject id; -1 when this task's input does not prepare. */
  #subjectPart(task: Task): number {
    const subject = this.#subject as SubjectParts;
    const id = taskSubjectId(task);
    let part = subject.byId.get(id);
    if (part === undefined) {
      part = conditionsSignature(taskConditions(this.#world, task), subject.signatures);
      if (part < 0) return part;
      subject.byId.set(id, part);
    }
    return part;
  }

  #preparable(task: Task): boolean {
    return preparable(task, this.#ips);
  }
}

type NumberTrie = Map<number, unknown>;

function numberStep(node: NumberTrie, key: number): NumberTrie {
  let next = node.get(key) as NumberTrie | undefined;
  if (next === undefined) node.set(key, (next = new Map()));
  return next;
}

/**
 * Non-negative numbers by number, -1 where none was set: a typed array that grows, while the numbers
 * set are dense enough; a `Map` once they are not. A table a run keeps per resolution key may be
 * given only a few numbers from far up a shared counter: an array sized to the largest would hold
 * mostly empty slots, for every such key.
 *
 * @example
 * ```ts
 * const ints = new GrowingInts();
 * ints.set(1000, 7);
 * ints.get(1000); // 7
 * ```
 */
export class GrowingInts {
  // Slot k holds the number set at `#base + k`; the array covers the numbers set, not 0 up to them.
  #values: Int32Array | undefined;
  #base = 0;
  #sparse: Map<number, number> | undefined;
  #count = 0;

  get(i: number): number {
    const values = this.#values;
    if (values !== undefined) {
      const k = i - this.#base;
      return k >= 0 && k < values.length ? (values[k] as number) : -1;
    }
    return this.#sparse?.get(i) ?? -1;
  }

  set(i: number, v: number): void {
    if (this.#sparse !== undefined) {
      this.#sparse.set(i, v);
      return;
    }
    let values = this.#values;
    if (values === undefined) {
      this.#base = i - (i % 64);
      values = this.#values = new Int32Array(64).fill(-1);
    }
    let k = i - this.#base;
    if (k < 0 || k >= values.length) {
      const low = Math.min(this.#base, i - (i % 64));
      let n = values.length;
      while (low + n <= Math.max(i, this.#base + values.length - 1)) n *= 2;
      // At most 8 slots for each number set (and 4,096 in any case): past that, a Map.
      if (n > Math.max(4096, 8 * (this.#count + 1))) {
        const sparse = new Map<number, number>();
        for (let j = 0; j < values.length; j++) if ((values[j] as number) >= 0) sparse.set(this.#base + j, values[j] as number);
        sparse.set(i, v);
        this.#sparse = sparse;
        this.#values = undefined;
        return;
      }
      const grown = new Int32Array(n).fill(-1);
      grown.set(values, this.#base - low);
      this.#base = low;
      this.#values = values = grown;
      k = i - low;
    }
    if ((values[k] as number) < 0) this.#count++;
    values[k] = v;
  }
}

/** Whether the task's own input converts (`celTask`'s checks and the address): else its conditions fail with its own errors. */
function preparable(task: Task, ips: Map<string, boolean>): boolean {
  const t = task.type;
  if (!taskTextsConvert(t?.kind === "grant" ? t.grantDuration : null, task.createdAt)) return false;
  const ip = requesterIp(task);
  if (ip === null) return true;
  let fine = ips.get(ip);
  if (fine === undefined) ips.set(ip, (fine = parseIp(ip) !== undefined));
  return fine;
}

/**
 * A group number per task of one task list (a world's, in its order), given on first asking and
 * kept: equal for two tasks exactly when they agree on everything of a task that a resolution or a
 * class (`TaskClasses.groupable`) may read — the resolution key (kind, emergency access, access
 * review, app, entitlement), subject, account id, origin, grant duration, requester, address, and
 * whether their input prepares — that is, on all but their id, number, name and creation time. -1
 * for kinds without a resolution key. Kept with the world's task table, so that a run over a world
 * whose tasks were grouped costs an array read per task to find what its class came to, and only
 * the tasks a run asks about are grouped (an edit that skips every task groups none). Which tasks
 * share a group changes the cost of a run, never its result.
 *
 * Each group keeps what it is keyed by as numbers (its resolution key's, its app's, and one per
 * column: the values of the tasks' fields, numbered in the order met), so that a run finds a
 * group's verdict and class from a few arrays, without going back to its tasks' objects and
 * strings, each a cache miss in a large world.
 *
 * @example
 * ```ts
 * const groups = new TaskGroups([...world.tasks.values()]);
 * groups.of(0) === groups.of(1); // the same request by the same person for the same entitlement
 * ```
 */
export class TaskGroups {
  readonly #tasks: readonly Task[];
  // -2: not asked yet.
  readonly #ids: Int32Array;
  #left: number;
  // Resolution keys by kind, app and entitlement, and apps: numbered, kept (a world has few).
  readonly #keys = new Map<string, Map<string, Map<string, number>>>();
  #keyCount = 0;
  readonly #apps = new Map<string, number>();
  // While tasks are left to group: each column's values numbered, and the groups by a hash of their
  // numbers (`GroupHashes`).
  #values: Map<unknown, number>[] | null = Array.from({ length: COLUMNS }, () => new Map<unknown, number>());
  #byHash: GroupHashes | null = new GroupHashes();
  // The subjects by number (the same string for every group of a subject).
  readonly #subjectIds: string[] = [];
  // By group, one row of ROW numbers each: its key, app, whether its input prepares (1) and its
  // column numbers (`ROW_COLUMNS + c`). The task being grouped is written into the row after the
  // last, so that it is compared with a group and becomes one where it stands.
  #rows = new Int32Array(ROW * 1024);
  #count = 0;
  readonly #ips = new Map<string, boolean>();

  // By task: the number of its resolution key, -1 for none, -2 not asked yet.
  readonly #taskKeys: Int32Array;

  constructor(tasks: readonly Task[]) {
    this.#tasks = tasks;
    this.#ids = new Int32Array(tasks.length).fill(-2);
    this.#taskKeys = new Int32Array(tasks.length).fill(-2);
    this.#left = tasks.length;
  }

  /**
   * The number of task `i`'s resolution key (-1 for kinds without one), kept for every task asked
   * about, grouped or not: tasks whose verdict needs no group still find it by number.
   */
  keyOf(i: number): number {
    let key = this.#taskKeys[i] as number;
    if (key === -2) this.#taskKeys[i] = key = this.#keyNumber(this.#tasks[i] as Task);
    return key;
  }

  #keyNumber(task: Task): number {
    const t = task.type;
    let kind: string;
    if (t?.kind === "grant") kind = task.emergencyAccess ? "G" : "g";
    else if (t?.kind === "revoke") kind = "r";
    else if (t?.kind === "certify") kind = `c${certifyReviewId(t)}`;
    else return -1;
    let byApp = this.#keys.get(kind);
    if (byApp === undefined) this.#keys.set(kind, (byApp = new Map()));
    let byEntitlement = byApp.get(t.appId);
    if (byEntitlement === undefined) byApp.set(t.appId, (byEntitlement = new Map()));
    let key = byEntitlement.get(t.appEntitlementId);
    if (key === undefined) byEntitlement.set(t.appEntitlementId, (key = this.#keyCount++));
    return key;
  }

  /** The group of task `i` of the list. */
  of(i: number): number {
    const known = this.#ids[i] as number;
    if (known !== -2) return known;
    const id = this.#group(this.#tasks[i] as Task, this.keyOf(i));
    this.#ids[i] = id;
    if (--this.#left === 0) {
      this.#values = null;
      this.#byHash = null;
    }
    return id;
  }

  /** The group of task `i` if it has been asked for, else -2. */
  known(i: number): number {
    return this.#ids[i] as number;
  }

  /** Whether the input of a group's tasks prepares (see `TaskClasses.classOf`): the group's key says. */
  prepares(group: number): boolean {
    return group >= 0 && group < this.#count && this.#rows[group * ROW + ROW_PREPARES] === 1;
  }

  /** The number of a group's app. */
  app(group: number): number {
    return this.#rows[group * ROW + ROW_APP] as number;
  }

  /** The number of a group's value in a column (`SUBJECT`, `ORIGIN`, …): equal numbers, equal values. */
  column(group: number, column: number): number {
    return this.#rows[group * ROW + ROW_COLUMNS + column] as number;
  }

  /** A group's subject id, one string for all the groups of a subject. */
  subjectId(group: number): string {
    return this.#subjectIds[this.column(group, SUBJECT)] as string;
  }

  #group(task: Task, key: number): number {
    if (key < 0) return -1;
    const t = task.type as { readonly appId: string };
    const values = this.#values as Map<unknown, number>[];
    // The task's numbers go into the row after the last group's: compared there, kept there if new.
    let rows = this.#rows;
    const at = this.#count * ROW;
    if (at + ROW > rows.length) {
      const grown = new Int32Array(rows.length * 2);
      grown.set(rows);
      this.#rows = rows = grown;
    }
    // The group's numbers hashed, then the groups of that hash compared row by row: no text made
    // and hashed per task.
    let h = key;
    for (let c = 0; c < COLUMNS; c++) {
      const v = (COLUMN_READS[c] as TaskRead)(task);
      const byValue = values[c] as Map<unknown, number>;
      let n = byValue.get(v);
      if (n === undefined) {
        byValue.set(v, (n = byValue.size));
        if (c === SUBJECT) this.#subjectIds.push(v as string);
      }
      rows[at + ROW_COLUMNS + c] = n;
      h = Math.imul(h ^ n, 0x9e3779b1) ^ (h >>> 15);
    }
    const prepares = preparable(task, this.#ips) ? 1 : 0;
    h = (h ^ prepares) & 0x3fffffff;
    rows[at + ROW_KEY] = key;
    rows[at + ROW_PREPARES] = prepares;
    const hashes = this.#byHash as GroupHashes;
    for (let g = hashes.first(h); g >= 0; g = hashes.next(g)) if (sameRow(rows, g * ROW, at)) return g;
    let app = this.#apps.get(t.appId);
    if (app === undefined) this.#apps.set(t.appId, (app = this.#apps.size));
    rows[at + ROW_APP] = app;
    const id = this.#count++;
    hashes.add(h, id);
    return id;
  }
}
