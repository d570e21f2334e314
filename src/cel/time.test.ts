import { afterEach, describe, expect, it } from "vitest";
import { compileCondition } from "./compile.js";
import { evaluateCondition } from "./evaluate.js";
import { adaInput } from "./test-fixtures.js";
import { ZoneCache, formatTime, parseTime, utcZone } from "./time.js";

function at(now: string, source: string) {
  const c = compileCondition(source);
  if (!c.ok) throw new Error(`${source}: ${c.error.map((d) => d.message).join("; ")}`);
  return evaluateCondition(c.value, adaInput({ now }));
}

const SUNDAY_9_UTC = "2026-11-22T09:00:00Z"; // 04:00 EST in New York, 10:00 CET in Berlin
const SUMMER_NOON_UTC = "2026-07-01T12:00:00Z"; // 08:00 EDT, 14:00 CEST
const SUNDAY_LATE_UTC = "2026-11-22T23:30:00Z"; // already Monday in Tokyo

describe("now() and the timestamp accessors", () => {
  it.each([
    [SUNDAY_9_UTC, 'now() == timestamp("2026-11-22T09:00:00Z")'],
    [SUNDAY_9_UTC, "now().getHours() == 9"],
    [SUNDAY_9_UTC, 'now().getHours("America/New_York") == 4'],
    [SUNDAY_9_UTC, 'now().getHours("Europe/Berlin") == 10'],
    [SUNDAY_9_UTC, 'now().getHours("Asia/Kolkata") == 14 && now().getMinutes("Asia/Kolkata") == 30'],
    [SUNDAY_9_UTC, 'now().getHours("+05:30") == 14'],
    [SUMMER_NOON_UTC, 'now().getHours("America/New_York") == 8'],
    [SUMMER_NOON_UTC, 'now().getHours("Europe/Berlin") == 14'],
    [SUNDAY_9_UTC, "now().getDayOfWeek() == 0"],
    [SUNDAY_LATE_UTC, 'now().getDayOfWeek("Asia/Tokyo") == 1 && now().getDayOfWeek("UTC") == 0'],
    [SUNDAY_LATE_UTC, 'now().getDate("Asia/Tokyo") == 23 && now().getDayOfMonth("Asia/Tokyo") == 22'],
    [SUNDAY_LATE_UTC, 'now().getMonth("Asia/Tokyo") == 10 && now().getFullYear("Asia/Tokyo") == 2026'],
    ["2026-12-31T23:30:00Z", 'now().getFullYear("Asia/Tokyo") == 2027 && now().getDayOfYear("Asia/Tokyo") == 0'],
    [SUMMER_NOON_UTC, "now().getDayOfYear() == 181"],
  ])("at %s: %s", (now, source) => {
    expect(at(now, source)).toEqual({ ok: true, value: true });
  });

  it("gives one value of now() for the whole evaluation", () => {
    expect(at(SUNDAY_9_UTC, "now() == now() && now() - now() == duration(\"0s\")")).toEqual({ ok: true, value: true });
  });

  it("does not depend on the process's time zone", () => {
    const saved = process.env["TZ"];
    try {
      process.env["TZ"] = "America/New_York";
      expect(at(SUMMER_NOON_UTC, 'now().getDayOfYear() == 181 && now().getHours("Europe/Berlin") == 14')).toEqual({ ok: true, value: true });
      expect(at("2026-03-08T07:30:00Z", 'now().getHours("Europe/Berlin") == 8')).toEqual({ ok: true, value: true });
    } finally {
      if (saved === undefined) delete process.env["TZ"];
      else process.env["TZ"] = saved;
    }
  });

  it("reports an unknown time zone as a run-time error (written as a literal, check refuses it: time-literals.test.ts)", () => {
    expect(at(SUNDAY_9_UTC, 'now().getHours("Mars/" + "Olympus") == 1')).toMatchObject({ ok: false, error: { code: "CEL_INVALID_ARGUMENT", message: "unknown time zone Mars/Olympus" } });
  });
});

describe("time.format", () => {
  it.each([
    ['time.format(now(), TimeFormat.RFC3339) == "2026-11-22T09:00:00Z"'],
    ['time.format(now(), TimeFormat.RFC3339, "America/New_York") == "2026-11-22T04:00:00-05:00"'],
    ['time.format(now(), TimeFormat.DATE) == "2026-11-22"'],
    ['time.format(now(), TimeFormat.DATETIME, "Europe/London") == "2026-11-22 09:00:00"'],
    ['time.format(now(), TimeFormat.TIME, "Europe/Berlin") == "10:00:00"'],
    ['time.format(now(), "Monday", "Europe/Berlin") == "Sunday"'],
    ['time.format(now(), "Mon") == "Sun"'],
    ['time.format(now(), "15", "America/New_York") == "04"'],
    ['time.format(now(), "15:04", "Asia/Kolkata") == "14:30"'],
    ['time.format(now(), "Jan") == "Nov" && time.format(now(), "January 2, 2006") == "November 22, 2026"'],
    ['time.format(now(), "2006-01-02") == "2026-11-22"'],
    ['time.format(now(), "3:04PM", "America/New_York") == "4:00AM"'],
    ['time.format(now(), "Mon Jan _2 15:04:05 MST 2006", "America/New_York") == "Sun Nov 22 04:00:00 EST 2026"'],
    ['time.format(now(), "02/01/06 15:04:05.000 -0700", "Asia/Tokyo") == "22/11/26 18:00:00.000 +0900"'],
  ])("%s", (source) => {
    expect(at(SUNDAY_9_UTC, source)).toEqual({ ok: true, value: true });
  });

  it("checks the documented business-hours and weekend patterns", () => {
    const businessHours = 'time.format(now(), "15", "America/New_York") >= "09" && time.format(now(), "15", "America/New_York") < "17"';
    expect(at(SUNDAY_9_UTC, businessHours)).toEqual({ ok: true, value: false });
    expect(at(SUMMER_NOON_UTC, businessHours)).toEqual({ ok: true, value: false });
    expect(at("2026-07-01T15:00:00Z", businessHours)).toEqual({ ok: true, value: true });
    const weekend = 'time.format(now(), "Monday", "America/New_York") == "Saturday" || time.format(now(), "Monday", "America/New_York") == "Sunday"';
    expect(at(SUNDAY_9_UTC, weekend)).toEqual({ ok: true, value: true });
    expect(at("2026-11-23T03:00:00Z", weekend)).toEqual({ ok: true, value: true }); // still Sunday 22:00 in New York
    expect(at("2026-11-23T06:00:00Z", weekend)).toEqual({ ok: true, value: false });
  });
});

describe("time.parse, time.start_of, time.end_of, time.unix", () => {
  it.each([
    ['time.parse("2025-10-22", TimeFormat.DATE) == timestamp("2025-10-22T00:00:00Z")'],
    ['time.parse("2025-10-22 14:30:00", TimeFormat.DATETIME, "America/New_York") == timestamp("2025-10-22T18:30:00Z")'],
    ['time.parse("2025-10-22T14:30:00+02:00", TimeFormat.RFC3339) == timestamp("2025-10-22T12:30:00Z")'],
    ['time.parse("2025-10-22T14:30:00.250Z", TimeFormat.RFC3339) == timestamp("2025-10-22T14:30:00.250Z")'],
    ['time.parse("Oct 22, 2025 at 2:30pm", "Jan 2, 2006 at 3:04pm") == timestamp("2025-10-22T14:30:00Z")'],
    ['has(subject.profile.hire_date) && time.parse(subject.profile.hire_date, TimeFormat.DATE) > now() - duration("720h")'],
    ['time.start_of(now(), "day") == timestamp("2026-11-22T00:00:00Z")'],
    ['time.start_of(now(), "day", "America/New_York") == timestamp("2026-11-22T05:00:00Z")'],
    ['time.start_of(now(), "week") == timestamp("2026-11-16T00:00:00Z")'],
    ['time.start_of(now(), "week", "America/New_York") == timestamp("2026-11-16T05:00:00Z")'],
    ['time.start_of(now(), "month") == timestamp("2026-11-01T00:00:00Z")'],
    ['time.start_of(now(), "quarter") == timestamp("2026-10-01T00:00:00Z")'],
    ['time.start_of(now(), "year", "Europe/Berlin") == timestamp("2025-12-31T23:00:00Z")'],
    ['time.end_of(now(), "month") == timestamp("2026-11-30T23:59:59.999Z")'],
    ['time.truncate(now(), "day") == time.start_of(now(), "day") && time.truncate(now(), "week", "America/New_York") == timestamp("2026-11-16T05:00:00Z")'],
    ['time.end_of(now(), "day", "Europe/Berlin") == timestamp("2026-11-22T22:59:59.999Z")'],
    ['time.unix(1734787200) == timestamp("2024-12-21T13:20:00Z")'],
    ['time.unix_ms(1734787200123) == timestamp("2024-12-21T13:20:00.123Z")'],
  ])("%s", (source) => {
    expect(at(SUNDAY_9_UTC, source)).toEqual({ ok: true, value: true });
  });

  it("reports values that do not match the layout, and unknown units, as run-time errors", () => {
    expect(at(SUNDAY_9_UTC, 'time.parse("22/10/2025", TimeFormat.DATE) < now()')).toMatchObject({
      ok: false,
      error: { code: "CEL_INVALID_ARGUMENT", message: expect.stringContaining('parsing time "22/10/2025" as "2006-01-02"') },
    });
    expect(at(SUNDAY_9_UTC, 'time.parse("2025-02-30", TimeFormat.DATE) < now()')).toMatchObject({ ok: false, error: { code: "CEL_INVALID_ARGUMENT" } });
    expect(at(SUNDAY_9_UTC, 'time.start_of(now(), "fort" + "night") < now()')).toMatchObject({ ok: false, error: { code: "CEL_INVALID_ARGUMENT" } });
  });

  it("time.try_parse (the docs' examples page, 'Validate date fields in profile'): the parsed time, or the fallback when the value does not parse", () => {
    const fallback = 'timestamp("2000-01-01T00:00:00Z")';
    expect(at(SUNDAY_9_UTC, `time.try_parse("2025-10-22", TimeFormat.DATE, ${fallback}) == timestamp("2025-10-22T00:00:00Z")`)).toEqual({ ok: true, value: true });
    expect(at(SUNDAY_9_UTC, `time.try_parse("22/10/2025", TimeFormat.DATE, ${fallback}) == ${fallback}`)).toEqual({ ok: true, value: true });
    expect(at(SUNDAY_9_UTC, `time.try_parse("2025-02-30", TimeFormat.DATE, ${fallback}) == ${fallback}`)).toEqual({ ok: true, value: true });
    // The page's own expression; a profile value that is not a string has no overload, as with time.parse.
    expect(at(SUNDAY_9_UTC, "has(subject.profile.hire_date) && time.try_parse(subject.profile.hire_date, TimeFormat.DATE, now()) <= now()")).toEqual({ ok: true, value: true });
    expect(at(SUNDAY_9_UTC, `time.try_parse(subject.profile.level, TimeFormat.DATE, ${fallback}) == ${fallback}`)).toMatchObject({ ok: false, error: { code: "CEL_NO_MATCHING_OVERLOAD" } });
  });

  it("type-checks time functions", () => {
    const c = compileCondition('time.format("today", "15") == "09"');
    expect(c.ok).toBe(false);
    if (!c.ok) expect(c.error[0]).toMatchObject({ code: "CEL_NO_MATCHING_OVERLOAD", message: "found no matching overload for 'time.format(string, string)'" });
  });
});

describe("Go layouts", () => {
  const t = Date.UTC(2026, 0, 5, 13, 4, 5, 120); // Monday
  const zones = new ZoneCache();
  afterEach(() => undefined);

  it("formats every element", () => {
    expect(formatTime(t, "2006 06 1 01 Jan January 2 02 _2 002 Mon Monday", utcZone)).toBe("2026 26 1 01 Jan January 5 05  5 005 Mon Monday");
    expect(formatTime(t, "15 3 03 4 04 5 05 PM pm .000 .999 ,00 .9", utcZone)).toBe("13 1 01 4 04 5 05 PM pm .120 .12 ,12 .1");
    expect(formatTime(t, "Z07:00 -07:00 -0700 Z0700 -07 MST", utcZone)).toBe("Z +00:00 +0000 Z +00 UTC");
    const kolkata = zones.get("Asia/Kolkata");
    if (kolkata.ok) expect(formatTime(t, "Z07:00 -0700 -07", kolkata.value)).toBe("+05:30 +0530 +05");
  });

  it("keeps text that is not a layout element", () => {
    expect(formatTime(t, "Month: Jan, Mond", utcZone)).toBe("Month: Jan, Mond");
  });

  it("parses what it formats", () => {
    for (const layout of ["2006-01-02T15:04:05Z07:00", "Mon Jan _2 15:04:05 2006", "02 Jan 06 15:04 -0700", "January 2, 2006 3:04:05.000 PM"]) {
      const text = formatTime(t, layout, utcZone);
      expect(parseTime(text, layout, utcZone)).toEqual({ ok: true, value: layout.includes(".000") ? t : t - (t % 1000) - (layout.includes(":05") ? 0 : 5000) });
    }
  });
});

describe("names bound in comprehensions", () => {
  it("treat `time` bound by a comprehension as the variable, not the namespace", () => {
    expect(at(SUNDAY_9_UTC, "[now()].exists(time, time.getHours() == 9)")).toEqual({ ok: true, value: true });
    expect(at(SUNDAY_9_UTC, 'cel.bind(time, now(), time.getHours("America/New_York") == 4)')).toEqual({ ok: true, value: true });
    expect(at(SUNDAY_9_UTC, 'time.format(now(), "15") == "09" && [1].all(x, time.format(now(), "15") == "09")')).toEqual({ ok: true, value: true });
  });
});

describe("zone offsets (cached by instant)", () => {
  it("read the same on a hit as on a miss, across daylight-saving changes", () => {
    const shared = new ZoneCache();
    for (const name of ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe"]) {
      const zone = shared.get(name);
      if (!zone.ok) throw new Error(zone.error.message);
      // Every 7 hours through 2026, and the seconds around Berlin's changes.
      const instants = Array.from({ length: 1252 }, (_, i) => Date.UTC(2026, 0, 1) + i * 7 * 3_600_000);
      for (const change of [Date.UTC(2026, 2, 29, 1), Date.UTC(2026, 9, 25, 1)]) for (let d = -2000; d <= 2000; d += 500) instants.push(change + d);
      for (const ms of instants) {
        const fresh = new ZoneCache().get(name);
        if (!fresh.ok) throw new Error(fresh.error.message);
        const miss = zone.value.offsetMinutes(ms);
        expect(zone.value.offsetMinutes(ms)).toBe(miss);
        expect(miss).toBe(fresh.value.offsetMinutes(ms));
      }
    }
    const berlin = shared.get("Europe/Berlin");
    if (!berlin.ok) throw new Error(berlin.error.message);
    expect([berlin.value.offsetMinutes(Date.UTC(2026, 0, 15)), berlin.value.offsetMinutes(Date.UTC(2026, 6, 15))]).toEqual([60, 120]);
    expect([berlin.value.offsetMinutes(Date.UTC(2026, 2, 29, 1) - 1000), berlin.value.offsetMinutes(Date.UTC(2026, 2, 29, 1))]).toEqual([60, 120]);
  });
});

describe("CEL's standard timestamp and duration conversions (cel-spec standard definitions, as cel-go writes them)", () => {
  it.each([
    'string(timestamp("2024-01-01T00:00:00Z")) == "2024-01-01T00:00:00Z"',
    'string(timestamp("2024-01-01T00:00:00.500Z")) == "2024-01-01T00:00:00.5Z"',
    'string(timestamp("2024-01-01T02:00:00+02:00")) == "2024-01-01T00:00:00Z"',
    'string(now()) == "2026-11-22T09:00:00Z"',
    'string(duration("90m")) == "5400s"',
    'string(duration("-1.5s")) == "-1.5s"',
    'string(duration("-0.25s")) == "-0.25s"',
    'string(duration("1ns")) == "0.000000001s"',
    'string(duration("0s")) == "0s"',
    'int(timestamp("2024-01-01T00:00:00Z")) == 1704067200',
    'int(timestamp("1969-12-31T23:59:59.5Z")) == -1',
    "int(now()) - int(timestamp(task.createdAt)) >= 0",
  ])("%s", (source) => {
    expect(at(SUNDAY_9_UTC, source)).toEqual({ ok: true, value: true });
  });
});
