/**
 * Clock arithmetic of the workflow: timestamps as the service writes them (RFC 3339, UTC, whole
 * seconds unless the input had more), durations, and the next occurrence of a wall-clock time in a
 * time zone (a wait step's `untilTime`). Pure: every instant comes in as an argument.
 */
import { utcZone, wallTime, ZoneCache, zonedInstant } from "../cel/time.js";

const zones = new ZoneCache();

/**
 * An instant as an RFC 3339 UTC string, without milliseconds when there are none.
 *
 * @example
 * ```ts
 * isoOf(Date.UTC(2026, 10, 22, 9)); // "2026-11-22T09:00:00Z"
 * ```
 */
export function isoOf(ms: number): string {
  return new Date(ms).toISOString().replace(".000Z", "Z");
}

/**
 * Milliseconds of an RFC 3339 string, or `NaN`.
 *
 * @example
 * ```ts
 * msOf("2026-11-22T09:00:00Z") === Date.UTC(2026, 10, 22, 9); // true
 * ```
 */
export function msOf(at: string | null | undefined): number {
  return at ? Date.parse(at) : Number.NaN;
}

/**
 * Seconds of a protobuf duration string (`"3600s"`, `"1.5s"`), or `undefined` when it is not one.
 * A bare integer counts as seconds (an escalation's `expiration` may come as an int64).
 *
 * @example
 * ```ts
 * durationSeconds("86400s"); // 86400
 * ```
 */
export function durationSeconds(d: string | null | undefined): number | undefined {
  if (!d) return undefined;
  const m = /^(-?\d+(?:\.\d+)?)s?$/.exec(d.trim());
  return m ? Number(m[1]) : undefined;
}

/**
 * The first instant strictly after `now` whose wall-clock time in `timezone` is `hours:minutes`.
 * An unknown zone counts as UTC (the service rejects it when the policy is saved), and says so.
 *
 * @example
 * ```ts
 * nextTimeOfDay("2026-11-21T19:40:01Z", 8, 0, "Europe/Berlin").at; // "2026-11-22T07:00:00Z"
 * ```
 */
export function nextTimeOfDay(now: string, hours: number, minutes: number, timezone: string): { at: string | null; note: string } {
  const base = msOf(now);
  if (Number.isNaN(base)) return { at: null, note: `the clock "${now}" is not a timestamp` };
  const resolved = zones.get(timezone);
  const zone = resolved.ok ? resolved.value : utcZone;
  const note = resolved.ok ? "" : `unknown time zone "${timezone}": UTC is used`;
  const w = wallTime(base, zone);
  const h = Math.min(Math.max(Math.trunc(hours), 0), 23);
  const m = Math.min(Math.max(Math.trunc(minutes), 0), 59);
  let at = zonedInstant(w.year, w.month, w.day, h, m, 0, 0, zone);
  // A day later is past any daylight-saving shift of at most a few hours.
  if (at <= base) at = zonedInstant(w.year, w.month, w.day + 1, h, m, 0, 0, zone);
  return { at: isoOf(at), note };
}
