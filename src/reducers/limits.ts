/**
 * The sizes the simulation holds a request to, so that no caller can make a task (or a saved world)
 * grow without bound: one place for each, documented in the README ("Assumptions"). The service's
 * own limits are not published; these are well below the HTTP face's 1 MiB body limit.
 */

/**
 * The longest comment any task action accepts, in characters (Unicode code points): 10,000, at most
 * 40 KB of UTF-8. Longer is `INVALID_ARGUMENT` on `comment`.
 *
 * @example
 * ```ts
 * "x".repeat(MAX_COMMENT_CHARS + 1); // refused by every action that takes a comment
 * ```
 */
export const MAX_COMMENT_CHARS = 10_000;

/**
 * The most comment text the Comment action adds to one task: 4,000,000 UTF-16 code units (at most
 * 12 MB of UTF-8), however many requests arrive — e.g. 400 comments of the longest size, or 100,000
 * of 40 characters. The Comment action on a task over it is `FAILED_PRECONDITION`. A budget of text
 * rather than a count keeps memory bounded without refusing long discussions of short comments
 * (tenant exports carry tasks with tens of thousands). Comments the workflow posts itself (a step's
 * message, another action's reason) are bounded by the steps and actions, and still land.
 *
 * @example
 * ```ts
 * (world.comments.get(task.id)?.textLength ?? 0) >= MAX_COMMENT_TEXT_PER_TASK; // Comment refused
 * ```
 */
export const MAX_COMMENT_TEXT_PER_TASK = 4_000_000;

/**
 * The longest `description` a created task accepts, in characters (code points): 10,000, as a
 * comment. Longer is `INVALID_ARGUMENT`.
 *
 * @example
 * ```ts
 * createGrantTask(world, { appId, appEntitlementId, description: "x".repeat(MAX_DESCRIPTION_CHARS + 1) }, ctx); // refused
 * ```
 */
export const MAX_DESCRIPTION_CHARS = 10_000;

/**
 * The largest `requestData` a created task accepts: 64 KiB of JSON text. Larger is `INVALID_ARGUMENT`.
 *
 * @example
 * ```ts
 * JSON.stringify(requestData).length <= MAX_REQUEST_DATA_CHARS; // accepted
 * ```
 */
export const MAX_REQUEST_DATA_CHARS = 65_536;

/**
 * How many open tasks one user may have created (grant, revoke and offboarding requests not yet
 * closed): 10,000. One more is `FAILED_PRECONDITION`, so that no caller can grow the world, and a
 * server's memory, without bound by creating tasks.
 *
 * @example
 * ```ts
 * createGrantTask(world, req, { actorId: "u-dev1" }); // FAILED_PRECONDITION once u-dev1 has MAX_OPEN_TASKS_PER_CREATOR open tasks of their own
 * ```
 */
export const MAX_OPEN_TASKS_PER_CREATOR = 10_000;

/**
 * The number of code points of a string, counting no further than `stop` (so a 1 MiB string costs
 * no more than the limit to check).
 *
 * @example
 * ```ts
 * codePointsUpTo("héllo", 100); // 5
 * ```
 */
export function codePointsUpTo(s: string, stop: number): number {
  // Code units bound code points from above: a short string needs no count.
  if (s.length <= stop) {
    let surrogates = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0xdc00 && c <= 0xdfff) surrogates++;
    }
    return s.length - surrogates;
  }
  let n = 0;
  for (const _ of s) if (++n > stop) break;
  return n;
}

/**
 * The most steps one scenario script may have: each step keeps a frame with the world after it, and
 * a script built in code could name a billion (a sparse list of length 1e9 ran 46 s). Real scenarios
 * have tens. *Assumed*: a limit of the simulation, not of the service.
 *
 * @example
 * ```ts
 * simulate(world, { steps: new Array(MAX_SCRIPT_STEPS + 1) }); // INVALID_ARGUMENT, at once
 * ```
 */
export const MAX_SCRIPT_STEPS = 100_000;
