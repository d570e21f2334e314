/**
 * Time zones and Go reference-time layouts for `time.format`, `time.parse`, `time.start_of` and the
 * timestamp accessors that take a time zone. Everything is computed from the instant and the zone's
 * offset at that instant (from `Intl`), never from the process's local zone, so results do not
 * depend on where the simulation runs. Timestamps are JS `Date`s: millisecond precision.
 */

import { TIME_FORMATS } from "./enums.js";

/**
 * The calendar fields of an instant in some zone. `weekday` is 0 for Sunday.
 *
 * @example
 * ```ts
 * wallTime(Date.UTC(2026, 10, 22, 9), utcZone).weekday; // 0 (Sunday)
 * ```
 */
export interface WallTime {
  readonly year: number;
  readonly month: number; // 1-12
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly millisecond: number;
  readonly weekday: number;
  readonly yearDay: number; // 1-366
}

/**
 * A resolved time zone.
 *
 * @example
 * ```ts
 * const z = zones.get("Europe/Berlin");
 * if (z.ok) z.value.offsetMinutes(Date.UTC(2026, 0, 1)); // 60
 * ```
 */
export interface Zone {
  readonly name: string;
  /** Minutes east of UTC at the instant. */
  offsetMinutes(ms: number): number;
  /** The zone's abbreviation at the instant, as Go's `MST` layout element prints it. */
  abbreviation(ms: number): string;
}

/**
 * A failure of a time function, turned into a CEL runtime error by the caller.
 *
 * @example
 * ```ts
 * const e: TimeError = { message: "unknown time zone Mars/Olympus" };
 * ```
 */
export interface TimeError {
  readonly message: string;
}

type TimeResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: TimeError };
const ok = <T>(value: T): TimeResult<T> => ({ ok: true, value });
const bad = <T>(message: string): TimeResult<T> => ({ ok: false, error: { message } });

const UTC: Zone = { name: "UTC", offsetMinutes: () => 0, abbreviation: () => "UTC" };

function fixedZone(name: string, minutes: number): Zone {
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  const abbr = `${sign}${pad(Math.floor(abs / 60), 2)}${abs % 60 ? pad(abs % 60, 2) : ""}`;
  return { name, offsetMinutes: () => minutes, abbreviation: () => abbr };
}

const OFFSETS_MAX = 4096;

function intlZone(name: string): Zone {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: name,
    hourCycle: "h23",
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
    second: "numeric",
  });
  // Only a formatted time (`string(timestamp)` in a zone) asks for the abbreviation: made on first use,
  // since each formatter costs about as much to make as the zone's first offset.
  let names: Intl.DateTimeFormat[] | undefined;
  // Offsets by instant. `formatToParts` costs microseconds, and the instants repeat: a world's clock
  // is one instant for all of its tasks (`now().getHours("Europe/Berlin")` in every decision).
  // The offset is a function of the zone and the instant, so a hit cannot change a result. Bounded.
  const offsets = new Map<number, number>();
  return {
    name,
    offsetMinutes(ms: number): number {
      let minutes = offsets.get(ms);
      if (minutes === undefined) {
        const f: Record<string, number> = {};
        for (const p of parts.formatToParts(ms)) if (p.type !== "literal") f[p.type] = Number(p.value);
        const wall = Date.UTC(f["year"] ?? 1970, (f["month"] ?? 1) - 1, f["day"] ?? 1, f["hour"] ?? 0, f["minute"] ?? 0, f["second"] ?? 0);
        minutes = Math.round((wall - Math.floor(ms / 1000) * 1000) / 60000);
        if (offsets.size >= OFFSETS_MAX) offsets.clear();
        offsets.set(ms, minutes);
      }
      return minutes;
    },
    abbreviation(ms: number): string {
      // Go prints the tz database abbreviation; Intl knows it for some locales only ("EST" in en-US,
      // "CET" in en-GB). When neither has one, print the offset the way Go does for such zones.
      names ??= ["en-US", "en-GB"].map((locale) => new Intl.DateTimeFormat(locale, { timeZone: name, timeZoneName: "short" }));
      for (const f of names) {
        const v = f.formatToParts(ms).find((p) => p.type === "timeZoneName")?.value ?? "";
        if (/^[A-Z]{2,5}$/.test(v)) return v;
      }
      return fixedZone(name, this.offsetMinutes(ms)).abbreviation(ms);
    },
  };
}

/**
 * Resolves zone names once per environment: IANA names (`America/New_York`), `UTC`, `""` and
 * `Local` (both UTC: a simulation has no local zone), and fixed offsets (`+05:30`, as CEL's
 * timestamp accessors accept).
 *
 * @example
 * ```ts
 * const zones = new ZoneCache();
 * zones.get("Mars/Olympus").ok; // false
 * ```
 */
export class ZoneCache {
  readonly #zones = new Map<string, TimeResult<Zone>>();

  get(name: string): TimeResult<Zone> {
    const cached = this.#zones.get(name);
    if (cached) return cached;
    const resolved = resolveZone(name);
    if (this.#zones.size < 1024) this.#zones.set(name, resolved);
    return resolved;
  }
}

function resolveZone(name: string): TimeResult<Zone> {
  if (name === "" || name === "UTC" || name === "Local" || name === "Z") return ok(UTC);
  const fixed = /^([+-])(\d{2}):?(\d{2})$/.exec(name);
  if (fixed) {
    const minutes = Number(fixed[2]) * 60 + Number(fixed[3]);
    return minutes > 18 * 60 ? bad(`unknown time zone ${name}`) : ok(fixedZone(name, fixed[1] === "-" ? -minutes : minutes));
  }
  try {
    return ok(intlZone(name));
  } catch {
    return bad(`unknown time zone ${name}`);
  }
}

/**
 * The calendar fields of an instant in a zone.
 *
 * @example
 * ```ts
 * wallTime(Date.UTC(2026, 10, 22, 9), utcZone).hour; // 9
 * ```
 */
export function wallTime(ms: number, zone: Zone): WallTime {
  const d = new Date(ms + zone.offsetMinutes(ms) * 60000);
  const year = d.getUTCFullYear();
  const month = d.getUTCMonth() + 1;
  const day = d.getUTCDate();
  const jan1 = Date.UTC(year, 0, 1);
  const midnight = Date.UTC(year, month - 1, day);
  return {
    year,
    month,
    day,
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    millisecond: d.getUTCMilliseconds(),
    weekday: d.getUTCDay(),
    yearDay: Math.round((midnight - jan1) / 86400000) + 1,
  };
}

/**
 * The instant a wall-clock time denotes in a zone. In a gap or overlap of a daylight-saving change
 * one of the candidate instants is chosen, as Go's `time.Date` does.
 *
 * @example
 * ```ts
 * zonedInstant(2026, 1, 1, 0, 0, 0, 0, utcZone) === Date.UTC(2026, 0, 1); // true
 * ```
 */
export function zonedInstant(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  ms: number,
  zone: Zone,
): number {
  const wall = utcMs(year, month, day, hour, minute, second, ms);
  // The offset at the wall time read as UTC is a first guess; the offset at that guess is right
  // except within a daylight-saving change, where either candidate is acceptable.
  const guess = wall - zone.offsetMinutes(wall) * 60000;
  return wall - zone.offsetMinutes(guess) * 60000;
}

function utcMs(year: number, month: number, day: number, hour: number, minute: number, second: number, ms: number): number {
  // Date.UTC maps years 0-99 to 1900-1999; set the year explicitly to keep them.
  const d = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, ms));
  d.setUTCFullYear(year, month - 1, day);
  return d.getTime();
}

/**
 * The UTC zone, for callers that need one without a cache.
 *
 * @example
 * ```ts
 * formatTime(0, "2006-01-02", utcZone); // "1970-01-01"
 * ```
 */
export const utcZone: Zone = UTC;

// ---------------------------------------------------------------------------------------------
// Go layouts

/**
 * Layouts by name: the names the expressions reference lists for `TimeFormat` (`rfc3339`, `date`,
 * `datetime`, `time`) and Go's named layout constants (`Kitchen`, `RFC1123`, `DateOnly`, …), looked
 * up regardless of case. A name is never read as a layout: `"datetime"` holds no layout element and
 * would print itself, `"rfc3339"` would print an hour.
 *
 * @example
 * ```ts
 * NAMED_LAYOUTS.get("datetime"); // "2006-01-02 15:04:05"
 * ```
 */
export const NAMED_LAYOUTS: ReadonlyMap<string, string> = new Map(
  Object.entries({
    ...TIME_FORMATS,
    ANSIC: "Mon Jan _2 15:04:05 2006",
    UnixDate: "Mon Jan _2 15:04:05 MST 2006",
    RubyDate: "Mon Jan 02 15:04:05 -0700 2006",
    RFC822: "02 Jan 06 15:04 MST",
    RFC822Z: "02 Jan 06 15:04 -0700",
    RFC850: "Monday, 02-Jan-06 15:04:05 MST",
    RFC1123: "Mon, 02 Jan 2006 15:04:05 MST",
    RFC1123Z: "Mon, 02 Jan 2006 15:04:05 -0700",
    RFC3339Nano: "2006-01-02T15:04:05.999999999Z07:00",
    Kitchen: "3:04PM",
    Stamp: "Jan _2 15:04:05",
    StampMilli: "Jan _2 15:04:05.000",
    StampMicro: "Jan _2 15:04:05.000000",
    StampNano: "Jan _2 15:04:05.000000000",
    DateOnly: "2006-01-02",
    TimeOnly: "15:04:05",
  }).map(([name, layout]) => [name.toLowerCase(), layout] as const),
);

/**
 * The Go layout a `time.format`/`time.parse` layout argument stands for: a named layout's
 * definition, or the argument itself.
 *
 * @example
 * ```ts
 * resolveLayout("DateTime"); // "2006-01-02 15:04:05"
 * resolveLayout("Monday"); // "Monday"
 * ```
 */
export function resolveLayout(layout: string): string {
  return layout.length <= 11 ? (NAMED_LAYOUTS.get(layout.toLowerCase()) ?? layout) : layout;
}

type Std =
  | "Jan"
  | "January"
  | "1"
  | "01"
  | "Mon"
  | "Monday"
  | "2"
  | "_2"
  | "02"
  | "__2"
  | "002"
  | "15"
  | "3"
  | "03"
  | "4"
  | "04"
  | "5"
  | "05"
  | "2006"
  | "06"
  | "PM"
  | "pm"
  | "MST"
  | "Z0700"
  | "Z070000"
  | "Z07"
  | "Z07:00"
  | "Z07:00:00"
  | "-0700"
  | "-070000"
  | "-07"
  | "-07:00"
  | "-07:00:00";

type Chunk =
  | { readonly kind: "lit"; readonly text: string }
  | { readonly kind: "std"; readonly std: Std }
  | { readonly kind: "frac"; readonly digits: number; readonly trim: boolean; readonly sep: string };

const isLower = (c: string | undefined): boolean => c !== undefined && c >= "a" && c <= "z";
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";

/** Splits a layout into literal text and Go's standard elements, in the order Go recognises them. */
function chunks(layout: string): Chunk[] {
  const out: Chunk[] = [];
  let lit = "";
  const push = (c: Chunk): void => {
    if (lit) out.push({ kind: "lit", text: lit });
    lit = "";
    out.push(c);
  };
  const std = (s: Std): void => push({ kind: "std", std: s });
  for (let i = 0; i < layout.length; ) {
    const rest = layout.slice(i);
    const c = layout[i];
    const at = (s: string): boolean => rest.startsWith(s);
    let len = 0;
    switch (c) {
      case "J":
        if (at("January")) (std("January"), (len = 7));
        else if (at("Jan") && !isLower(rest[3])) (std("Jan"), (len = 3));
        break;
      case "M":
        if (at("Monday")) (std("Monday"), (len = 6));
        else if (at("Mon") && !isLower(rest[3])) (std("Mon"), (len = 3));
        else if (at("MST")) (std("MST"), (len = 3));
        break;
      case "0":
        if (at("002")) (std("002"), (len = 3));
        else if (rest[1] !== undefined && "123456".includes(rest[1])) (std(`0${rest[1]}` as Std), (len = 2));
        break;
      case "1":
        if (at("15")) (std("15"), (len = 2));
        else (std("1"), (len = 1));
        break;
      case "2":
        if (at("2006")) (std("2006"), (len = 4));
        else (std("2"), (len = 1));
        break;
      case "_":
        if (at("_2") && !at("_2006")) (std("_2"), (len = 2));
        else if (at("__2")) (std("__2"), (len = 3));
        break;
      case "3":
      case "4":
      case "5":
        std(c);
        len = 1;
        break;
      case "P":
        if (at("PM")) (std("PM"), (len = 2));
        break;
      case "p":
        if (at("pm")) (std("pm"), (len = 2));
        break;
      case "-":
        for (const s of ["-07:00:00", "-070000", "-07:00", "-0700", "-07"] as const)
          if (at(s)) {
            std(s);
            len = s.length;
            break;
          }
        break;
      case "Z":
        for (const s of ["Z07:00:00", "Z070000", "Z07:00", "Z0700", "Z07"] as const)
          if (at(s)) {
            std(s);
            len = s.length;
            break;
          }
        break;
      case ".":
      case ",":
        if (rest[1] === "0" || rest[1] === "9") {
          const d = rest[1];
          let j = 1;
          while (rest[j] === d) j++;
          if (!isDigit(rest[j])) {
            push({ kind: "frac", digits: j - 1, trim: d === "9", sep: c });
            len = j;
          }
        }
        break;
      default:
        break;
    }
    if (len === 0) {
      lit += c ?? "";
      len = 1;
    }
    i += len;
  }
  if (lit) out.push({ kind: "lit", text: lit });
  return out;
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const pad = (n: number, w: number, ch = "0"): string => String(n).padStart(w, ch);

function formatOffset(minutes: number, std: Std): string {
  if (std.startsWith("Z") && minutes === 0) return "Z";
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  const hh = pad(Math.floor(abs / 60), 2);
  const mm = pad(abs % 60, 2);
  const body = std.slice(1);
  if (body === "07") return `${sign}${hh}`;
  if (body === "0700") return `${sign}${hh}${mm}`;
  if (body === "070000") return `${sign}${hh}${mm}00`;
  if (body === "07:00") return `${sign}${hh}:${mm}`;
  return `${sign}${hh}:${mm}:00`;
}

/**
 * Formats an instant with a Go layout in a zone, as Go's `Time.Format` does (fractions beyond
 * milliseconds print as zeros).
 *
 * @example
 * ```ts
 * formatTime(Date.UTC(2026, 10, 22, 9, 5), "Monday 15:04", utcZone); // "Sunday 09:05"
 * ```
 */
export function formatTime(ms: number, layout: string, zone: Zone): string {
  const w = wallTime(ms, zone);
  let out = "";
  for (const c of chunks(layout)) {
    if (c.kind === "lit") {
      out += c.text;
      continue;
    }
    if (c.kind === "frac") {
      const digits = pad(w.millisecond, 3).padEnd(Math.max(c.digits, 3), "0").slice(0, c.digits);
      const shown = c.trim ? digits.replace(/0+$/, "") : digits;
      if (shown) out += c.sep + shown;
      continue;
    }
    const h12 = w.hour % 12 === 0 ? 12 : w.hour % 12;
    switch (c.std) {
      case "Jan":
        out += (MONTHS[w.month - 1] ?? "").slice(0, 3);
        break;
      case "January":
        out += MONTHS[w.month - 1] ?? "";
        break;
      case "1":
        out += String(w.month);
        break;
      case "01":
        out += pad(w.month, 2);
        break;
      case "Mon":
        out += (DAYS[w.weekday] ?? "").slice(0, 3);
        break;
      case "Monday":
        out += DAYS[w.weekday] ?? "";
        break;
      case "2":
        out += String(w.day);
        break;
      case "_2":
        out += pad(w.day, 2, " ");
        break;
      case "02":
        out += pad(w.day, 2);
        break;
      case "__2":
        out += pad(w.yearDay, 3, " ");
        break;
      case "002":
        out += pad(w.yearDay, 3);
        break;
      case "15":
        out += pad(w.hour, 2);
        break;
      case "3":
        out += String(h12);
        break;
      case "03":
        out += pad(h12, 2);
        break;
      case "4":
        out += String(w.minute);
        break;
      case "04":
        out += pad(w.minute, 2);
        break;
      case "5":
        out += String(w.second);
        break;
      case "05":
        out += pad(w.second, 2);
        break;
      case "2006":
        out += pad(w.year, 4);
        break;
      case "06":
        out += pad(w.year % 100, 2);
        break;
      case "PM":
        out += w.hour >= 12 ? "PM" : "AM";
        break;
      case "pm":
        out += w.hour >= 12 ? "pm" : "am";
        break;
      case "MST":
        out += zone.abbreviation(ms);
        break;
      default:
        out += formatOffset(zone.offsetMinutes(ms), c.std);
    }
  }
  return out;
}

/**
 * Parses a value with a Go layout, as Go's `time.ParseInLocation` does: an offset in the value wins,
 * otherwise the wall time is read in `zone`. Zone abbreviations other than UTC/GMT are read in `zone`.
 *
 * @example
 * ```ts
 * parseTime("2025-10-22", "2006-01-02", utcZone); // { ok: true, value: Date.UTC(2025, 9, 22) }
 * ```
 */
export function parseTime(value: string, layout: string, zone: Zone): TimeResult<number> {
  const fail = (what: string): TimeResult<number> => bad(`parsing time ${JSON.stringify(value)} as ${JSON.stringify(layout)}: ${what}`);
  let year = 1;
  let month = 1;
  let day = 1;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let millis = 0;
  let pm: boolean | undefined;
  let offset: number | undefined;
  let rest = value;
  const list = chunks(layout);
  const num = (min: number, max: number, what: string): number | undefined => {
    let i = 0;
    while (i < max && isDigit(rest[i])) i++;
    if (i < min) return undefined;
    const n = Number(rest.slice(0, i));
    rest = rest.slice(i);
    void what;
    return n;
  };
  const name = (options: readonly string[]): number | undefined => {
    const lower = rest.toLowerCase();
    for (let i = 0; i < options.length; i++) {
      const o = (options[i] ?? "").toLowerCase();
      if (o && lower.startsWith(o)) {
        rest = rest.slice(o.length);
        return i;
      }
    }
    return undefined;
  };
  for (let k = 0; k < list.length; k++) {
    const c = list[k];
    if (!c) continue;
    if (c.kind === "lit") {
      if (!rest.startsWith(c.text)) return fail(`cannot parse ${JSON.stringify(rest)} as ${JSON.stringify(c.text)}`);
      rest = rest.slice(c.text.length);
      continue;
    }
    if (c.kind === "frac") {
      const m = /^[.,](\d+)/.exec(rest);
      if (!m) {
        if (c.trim) continue;
        return fail(`cannot parse ${JSON.stringify(rest)} as fractional second`);
      }
      const digits = m[1] ?? "";
      if (!c.trim && digits.length !== c.digits) return fail(`cannot parse ${JSON.stringify(rest)} as fractional second`);
      millis = Math.floor(Number(`0.${digits}`) * 1000);
      rest = rest.slice(m[0].length);
      continue;
    }
    const before = rest;
    let n: number | undefined;
    switch (c.std) {
      case "2006":
        n = num(4, 4, "year");
        if (n !== undefined) year = n;
        break;
      case "06":
        n = num(2, 2, "year");
        if (n !== undefined) year = n >= 69 ? 1900 + n : 2000 + n;
        break;
      case "Jan":
        n = name(MONTHS.map((m) => m.slice(0, 3)));
        if (n !== undefined) month = n + 1;
        break;
      case "January":
        n = name(MONTHS);
        if (n !== undefined) month = n + 1;
        break;
      case "1":
      case "01":
        n = num(c.std === "01" ? 2 : 1, 2, "month");
        if (n !== undefined) month = n;
        break;
      case "Mon":
        n = name(DAYS.map((d) => d.slice(0, 3)));
        break;
      case "Monday":
        n = name(DAYS);
        break;
      case "_2":
        if (rest.startsWith(" ")) rest = rest.slice(1);
        n = num(1, 2, "day");
        if (n !== undefined) day = n;
        break;
      case "2":
      case "02":
        n = num(c.std === "02" ? 2 : 1, 2, "day");
        if (n !== undefined) day = n;
        break;
      case "15":
      case "3":
      case "03":
        n = num(c.std === "03" ? 2 : 1, 2, "hour");
        if (n !== undefined) hour = n;
        if (n !== undefined && c.std !== "15" && (n < 1 || n > 12)) return fail("hour out of range");
        break;
      case "4":
      case "04":
        n = num(c.std === "04" ? 2 : 1, 2, "minute");
        if (n !== undefined) minute = n;
        break;
      case "5":
      case "05": {
        n = num(c.std === "05" ? 2 : 1, 2, "second");
        if (n !== undefined) second = n;
        // Go accepts a fraction after the seconds even when the layout has none.
        const next = list[k + 1];
        const m = /^[.,](\d+)/.exec(rest);
        if (n !== undefined && m && next?.kind !== "frac") {
          millis = Math.floor(Number(`0.${m[1] ?? "0"}`) * 1000);
          rest = rest.slice(m[0].length);
        }
        break;
      }
      case "PM":
      case "pm": {
        const v = rest.slice(0, 2).toUpperCase();
        if (v === "AM" || v === "PM") {
          pm = v === "PM";
          rest = rest.slice(2);
          n = 0;
        }
        break;
      }
      case "MST": {
        const m = /^[A-Z]{3,5}|^[+-]\d{2,4}/.exec(rest);
        if (m) {
          if (m[0] === "UTC" || m[0] === "GMT") offset = 0;
          rest = rest.slice(m[0].length);
          n = 0;
        }
        break;
      }
      case "002":
      case "__2":
        return fail("day-of-year layouts are not supported");
      default: {
        if (c.std.startsWith("Z") && rest.startsWith("Z")) {
          offset = 0;
          rest = rest.slice(1);
          n = 0;
          break;
        }
        const m = /^([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?/.exec(rest);
        const wantsMinutes = /0700|07:00/.test(c.std);
        if (m && (!wantsMinutes || m[3] !== undefined)) {
          const minutes = Number(m[2]) * 60 + Number(m[3] ?? "0");
          offset = m[1] === "-" ? -minutes : minutes;
          rest = rest.slice(m[0].length);
          n = 0;
        }
      }
    }
    if (n === undefined) return fail(`cannot parse ${JSON.stringify(before)} as ${JSON.stringify(c.std)}`);
  }
  if (rest !== "") return fail(`extra text: ${JSON.stringify(rest)}`);
  if (pm !== undefined) {
    if (hour > 12) return fail("hour out of range");
    if (pm && hour < 12) hour += 12;
    if (!pm && hour === 12) hour = 0;
  }
  if (month < 1 || month > 12) return fail("month out of range");
  const daysIn = new Date(Date.UTC(2000, month, 0)).getUTCDate() + (month === 2 && !isLeap(year) ? -1 : 0);
  if (day < 1 || day > daysIn) return fail("day out of range");
  if (hour > 23 || minute > 59 || second > 59) return fail("time out of range");
  if (offset !== undefined) return ok(utcMs(year, month, day, hour, minute, second, millis) - offset * 60000);
  return ok(zonedInstant(year, month, day, hour, minute, second, millis, zone));
}

const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/**
 * The units of `time.start_of` / `time.end_of`.
 *
 * @example
 * ```ts
 * const u: TimeUnit = "quarter";
 * ```
 */
export type TimeUnit = "minute" | "hour" | "day" | "week" | "month" | "quarter" | "year";

/**
 * Reads a unit name, or `undefined`.
 *
 * @example
 * ```ts
 * timeUnit("week"); // "week"
 * ```
 */
export function timeUnit(s: string): TimeUnit | undefined {
  switch (s) {
    case "minute":
    case "hour":
    case "day":
    case "week":
    case "month":
    case "quarter":
    case "year":
      return s;
    default:
      return undefined;
  }
}

/**
 * The start of the calendar period holding an instant, in a zone. Weeks start on Monday.
 *
 * @example
 * ```ts
 * startOf(Date.UTC(2026, 10, 22, 9), "month", utcZone) === Date.UTC(2026, 10, 1); // true
 * ```
 */
export function startOf(ms: number, unit: TimeUnit, zone: Zone): number {
  const w = wallTime(ms, zone);
  switch (unit) {
    case "minute":
      return zonedInstant(w.year, w.month, w.day, w.hour, w.minute, 0, 0, zone);
    case "hour":
      return zonedInstant(w.year, w.month, w.day, w.hour, 0, 0, 0, zone);
    case "day":
      return zonedInstant(w.year, w.month, w.day, 0, 0, 0, 0, zone);
    case "week": {
      const back = (w.weekday + 6) % 7;
      const d = new Date(utcMs(w.year, w.month, w.day - back, 0, 0, 0, 0));
      return zonedInstant(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), 0, 0, 0, 0, zone);
    }
    case "month":
      return zonedInstant(w.year, w.month, 1, 0, 0, 0, 0, zone);
    case "quarter":
      return zonedInstant(w.year, w.month - ((w.month - 1) % 3), 1, 0, 0, 0, 0, zone);
    case "year":
      return zonedInstant(w.year, 1, 1, 0, 0, 0, 0, zone);
  }
}

/**
 * The last millisecond of the calendar period holding an instant, in a zone.
 *
 * @example
 * ```ts
 * endOf(Date.UTC(2026, 1, 10), "month", utcZone) === Date.UTC(2026, 2, 1) - 1; // true
 * ```
 */
export function endOf(ms: number, unit: TimeUnit, zone: Zone): number {
  const start = wallTime(startOf(ms, unit, zone), zone);
  const next = (() => {
    switch (unit) {
      case "minute":
        return [start.year, start.month, start.day, start.hour, start.minute + 1] as const;
      case "hour":
        return [start.year, start.month, start.day, start.hour + 1, 0] as const;
      case "day":
        return [start.year, start.month, start.day + 1, 0, 0] as const;
      case "week":
        return [start.year, start.month, start.day + 7, 0, 0] as const;
      case "month":
        return [start.year, start.month + 1, 1, 0, 0] as const;
      case "quarter":
        return [start.year, start.month + 3, 1, 0, 0] as const;
      case "year":
        return [start.year + 1, 1, 1, 0, 0] as const;
    }
  })();
  const d = new Date(utcMs(next[0], next[1], next[2], next[3], next[4], 0, 0));
  return zonedInstant(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), 0, 0, zone) - 1;
}
