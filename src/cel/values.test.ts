import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { celTask, parseDuration, parseTimestamp, type TaskFacts } from "./values.js";

describe("parseTimestamp", () => {
  it("reads RFC 3339 with fractions and offsets", () => {
    expect(parseTimestamp("2026-11-22T09:00:00Z")?.toISOString()).toBe("2026-11-22T09:00:00.000Z");
    expect(parseTimestamp("2026-11-22T09:00:00.123456789Z")?.toISOString()).toBe("2026-11-22T09:00:00.123Z");
    expect(parseTimestamp("2026-11-22T09:00:00.5+05:30")?.toISOString()).toBe("2026-11-22T03:30:00.500Z");
    expect(parseTimestamp("2026-11-22t09:00:00-01:00")?.toISOString()).toBe("2026-11-22T10:00:00.000Z");
    expect(parseTimestamp("0001-01-01T00:00:00Z")?.getTime()).toBe(-62135596800000);
    expect(parseTimestamp("0099-03-01T00:00:00Z")?.toISOString()).toBe("0099-03-01T00:00:00.000Z");
  });

  it("refuses what is not a valid RFC 3339 timestamp", () => {
    for (const s of ["2026-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-11-22T24:00:00Z", "2026-11-22", "2026-11-22T09:00:00", "0000-01-01T00:00:00Z", "x"]) {
      expect(parseTimestamp(s)).toBeUndefined();
    }
    expect(parseTimestamp("2028-02-29T00:00:00Z")).toBeDefined();
  });

  it("agrees with Date.parse on every instant of the CEL range (property)", () => {
    fc.assert(
      fc.property(fc.date({ min: new Date("1000-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59Z"), noInvalidDate: true }), (d) => {
        expect(parseTimestamp(d.toISOString())?.getTime()).toBe(d.getTime());
      }),
      { numRuns: 500 },
    );
  });
});

describe("parseDuration", () => {
  it("reads protobuf and Go durations", () => {
    expect(parseDuration("3600s")?.toString()).toBe("3600s");
    expect(parseDuration("1.5s")?.toString()).toBe("1.5s");
    expect(parseDuration("-2s")?.seconds).toBe(-2n);
    expect(parseDuration("1h30m")?.toString()).toBe("5400s");
    expect(parseDuration("250ms")?.toString()).toBe("0.25s");
    expect(parseDuration("soon")).toBeUndefined();
    expect(parseDuration("")).toBeUndefined();
  });
});

describe("celTask", () => {
  const facts: TaskFacts = {
    id: "t-1",
    numericId: "1001",
    displayName: "Grant admin",
    origin: "TASK_ORIGIN_WEBAPP",
    isGrantPermanent: false,
    grantDuration: "3600s",
    subjectUserId: "u-ada",
    requestorUserId: "u-bob",
    createdAt: "2026-11-22T08:00:00Z",
    analysis: { id: "an-1", hasConflictViolations: true, conflictViolations: ["c-1"] },
  };

  it("cannot be changed, although it is not frozen (its fields are private, behind getters)", () => {
    const r = celTask(facts);
    if (!r.ok) throw new Error(r.error.message);
    const t = r.value;
    const writable = t as unknown as Record<string, unknown>;
    for (const field of ["id", "displayName", "isGrantPermanent", "grantDuration", "subjectUserId", "requestorUserId", "analysis", "numericId", "origin", "createdAt"]) {
      const before = writable[field];
      expect(() => {
        writable[field] = "changed";
      }).toThrow(TypeError);
      expect(writable[field]).toBe(before);
    }
    expect([t.id, t.displayName, t.isGrantPermanent, t.grantDuration.toString(), t.subjectUserId, t.requestorUserId]).toEqual(["t-1", "Grant admin", false, "3600s", "u-ada", "u-bob"]);
    expect([t.numericId, t.origin.toString(), t.createdAt.toISOString(), t.analysis.id]).toEqual(["1001", "TaskOrigin.WEBAPP", "2026-11-22T08:00:00.000Z", "an-1"]);
    expect(t.createdAt).toBe(t.createdAt);
  });
});
