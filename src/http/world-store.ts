/**
 * The one mutable cell of the HTTP face: the world a server currently serves. The core stays pure
 * (worlds are immutable values); the adapter swaps whole worlds in and out of this cell.
 */
import type { AuditEvent } from "../workflow/events.js";
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
 * Options of {@link createWorldStore}.
 *
 * @example
 * ```ts
 * const options: WorldStoreOptions = { onChange: (c) => writeFileSync("world.seq", String(c.world.seq)) };
 * ```
 */
export interface WorldStoreOptions {
  /**
   * Called synchronously after each `set`, once the new world is in place. It must not throw: the
   * change has already happened, and a handler that sees the exception answers 500.
   */
  readonly onChange?: (change: WorldChange) => void;
}

/**
 * An in-memory {@link WorldStore} that also keeps every audit event it was given, in order.
 *
 * @example
 * ```ts
 * const store = createWorldStore(world);
 * // ... serve some requests ...
 * store.events().filter((e) => e.kind === "comment").length;
 * ```
 */
export interface MemoryWorldStore extends WorldStore {
  /** A copy of the audit events recorded so far, oldest first. */
  events(): readonly AuditEvent[];
}

/**
 * Creates an in-memory {@link WorldStore} holding `world`, with an audit-event log and an optional
 * `onChange` hook (for a CLI that saves the world after each action, or a test that watches).
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
  let current = world;
  // Appended to, never copied on write: a long-running server may record many events.
  const log: AuditEvent[] = [];
  return {
    get: () => current,
    set(next, events = []) {
      const previous = current;
      current = next;
      log.push(...events);
      options.onChange?.({ previous, world: next, events });
    },
    events: () => log.slice(),
  };
}
