/**
 * The one mutable cell of the HTTP face: the world a server currently serves. The core stays pure
 * (worlds are immutable values); the adapter swaps whole worlds in and out of this cell.
 */
import type { AuditEvent } from "../workflow/events.js";
import { fail } from "../result.js";
import type { World } from "../world/world.js";

/**
 * Holds the world an HTTP handler serves. `set` replaces it after a successful action; `events`
 * are that action's audit events, for stores that keep a log. Implement it yourself to persist
 * worlds elsewhere; {@link createWorldStore} gives an in-memory one.
 *
 * @example
 * ```ts
 * let current = world;
 * const store: WorldStore = { get: () => current, set: (w) => { current = w; } };
 * const handler = createFetchHandler(store);
 * ```
 */
export interface WorldStore {
  get(): World;
  set(world: World, events?: readonly AuditEvent[]): void;
}

/**
 * One accepted change: the world before, the world after, and the audit events of the action.
 *
 * @example
 * ```ts
 * const onChange = (c: WorldChange) => console.log(c.events.map((e) => e.kind).join(", "));
 * ```
 */
export interface WorldChange {
  readonly previous: World;
  readonly world: World;
  readonly events: readonly AuditEvent[];
}

/**
 * How many audit events a {@link MemoryWorldStore} keeps by default: the most recent 100,000
 * (tens of MB). A server runs for as long as it is asked to; a log that kept every event would grow
 * with every request (a Hard Reset records about 17) until the process ran out of memory.
 *
 * @example
 * ```ts
 * createWorldStore(world, { maxEvents: DEFAULT_MAX_AUDIT_EVENTS * 10 });
 * ```
 */
export const DEFAULT_MAX_AUDIT_EVENTS = 100_000;

/**
 * Options of {@link createWorldStore}.
 *
 * @example
 * ```ts
 * const options: WorldStoreOptions = { onChange: (c) => writeFileSync("world.seq", String(c.world.seq)), maxEvents: 10_000 };
 * ```
 */
export interface WorldStoreOptions {
  /**
   * Called synchronously after each `set`, once the new world is in place. It must not throw: the
   * change has already happened, and a handler that sees the exception answers 500.
   */
  readonly onChange?: (change: WorldChange) => void;
  /**
   * The most audit events kept (a whole number ≥ 0); past it the oldest are dropped, and counted
   * in `droppedEvents()`. Default {@link DEFAULT_MAX_AUDIT_EVENTS}. The world itself keeps every
   * comment and step; only the event log, which answers `POST /api/v1/task/audits`, is bounded.
   */
  readonly maxEvents?: number;
}

/**
 * An in-memory {@link WorldStore} that also keeps the most recent audit events it was given, in
 * order, indexed by task.
 *
 * @example
 * ```ts
 * const store = createWorldStore(world);
 * // ... serve some requests ...
 * store.events().filter((e) => e.kind === "comment").length;
 * store.eventsOf("1001").length;
 * ```
 */
export interface MemoryWorldStore extends WorldStore {
  /** A copy of the audit events kept (the last `maxEvents`), oldest first. */
  events(): readonly AuditEvent[];
  /** A copy of the kept audit events of one task (by its `id`), oldest first: no scan of the whole log. */
  eventsOf(taskId: string): readonly AuditEvent[];
  /** How many events were dropped, oldest first, to stay within `maxEvents`. */
  droppedEvents(): number;
}

/**
 * A first-in first-out queue whose removals from the front cost O(1) amortised (`Array#shift` is
 * O(n) on long arrays): a head index, and the array compacted once half of it is dead.
 */
class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    // The slot lets go of what it held: a queue with one live item must not keep the dropped ones.
    this.items[this.head] = undefined as T;
    this.head++;
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  toArray(): T[] {
    return this.items.slice(this.head);
  }
}

/**
 * Creates an in-memory {@link WorldStore} holding `world`, with a bounded audit-event log and an
 * optional `onChange` hook (for a CLI that saves the world after each action, or a test that watches).
 *
 * @example
 * ```ts
 * const loaded = loadWorld(JSON.parse(readFileSync("fixtures/world.json", "utf8")));
 * if (loaded.ok) {
 *   const store = createWorldStore(loaded.value, { onChange: (c) => console.log(c.events.length, "events") });
 *   const handler = createFetchHandler(store);
 * }
 * ```
 */
export function createWorldStore(world: World, options: WorldStoreOptions = {}): MemoryWorldStore {
  const max = options.maxEvents ?? DEFAULT_MAX_AUDIT_EVENTS;
  if (!Number.isSafeInteger(max) || max < 0) fail(`createWorldStore: maxEvents must be a whole number ≥ 0, not ${String(max)}`);
  let current = world;
  // Appended to, never copied on write; each event is in the log and in its task's queue.
  const log = new Fifo<AuditEvent>();
  const byTask = new Map<string, Fifo<AuditEvent>>();
  let dropped = 0;
  const keep = (e: AuditEvent): void => {
    log.push(e);
    let queue = byTask.get(e.taskId);
    if (queue === undefined) byTask.set(e.taskId, (queue = new Fifo()));
    queue.push(e);
  };
  const dropOldest = (): void => {
    const e = log.shift();
    if (e === undefined) return;
    dropped++;
    // The oldest event of the whole log is the oldest of its task's queue.
    const queue = byTask.get(e.taskId);
    queue?.shift();
    if (queue !== undefined && queue.size === 0) byTask.delete(e.taskId);
  };
  return {
    get: () => current,
    set(next, events = []) {
      const previous = current;
      current = next;
      for (const e of events) {
        if (max === 0) dropped++;
        else {
          if (log.size >= max) dropOldest();
          keep(e);
        }
      }
      options.onChange?.({ previous, world: next, events });
    },
    events: () => log.toArray(),
    eventsOf: (taskId) => byTask.get(taskId)?.toArray() ?? [],
    droppedEvents: () => dropped,
  };
}
