import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Task } from "../model/index.js";
import { GroupHashes, TaskGroups } from "./task-classes.js";

/** Tasks drawn from small pools, so that many agree on everything a group is keyed by. */
const arbTask = fc
  .record({
    kind: fc.constantFrom("grant", "revoke", "certify", "offboarding"),
    emergency: fc.boolean(),
    review: fc.constantFrom("ar-1", "ar-2"),
    app: fc.constantFrom("app-1", "app-2"),
    ent: fc.constantFrom("ent-1", "ent-2"),
    appUser: fc.constantFrom("", "au-1"),
    subject: fc.constantFrom("u-1", "u-2", "u-3"),
    userId: fc.constantFrom("", "u-1"),
    origin: fc.constantFrom("TASK_ORIGIN_WEBAPP", "TASK_ORIGIN_API"),
    duration: fc.constantFrom(null, "", "3600s", "bad"),
    requester: fc.constantFrom("u-1", "u-9"),
    ip: fc.constantFrom(undefined, "10.0.0.1", "not an address"),
    createdAt: fc.constantFrom("2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "yesterday"),
  })
  .map((r) => {
    const type =
      r.kind === "grant"
        ? { kind: "grant", appId: r.app, appEntitlementId: r.ent, appUserId: r.appUser, identityUserId: r.subject, grantDuration: r.duration }
        : r.kind === "revoke"
          ? { kind: "revoke", appId: r.app, appEntitlementId: r.ent, appUserId: r.appUser, identityUserId: r.subject }
          : r.kind === "certify"
            ? { kind: "certify", appId: r.app, appEntitlementId: r.ent, appUserId: r.appUser, identityUserId: r.subject, accessReviewId: r.review }
            : { kind: "offboarding", subjectUserId: r.subject };
    return {
      task: { id: "t", type, emergencyAccess: r.emergency, userId: r.userId, origin: r.origin, createdByUserId: r.requester, data: r.ip === undefined ? {} : { ip: r.ip }, createdAt: r.createdAt } as unknown as Task,
      r,
    };
  });

describe("TaskGroups", () => {
  it("puts two tasks in one group exactly when they agree on all a resolution or a class reads", () => {
    fc.assert(
      fc.property(fc.array(arbTask, { minLength: 1, maxLength: 60 }), fc.array(fc.nat(), { maxLength: 80 }), (drawn, order) => {
        const tasks = drawn.map((d) => d.task);
        const groups = new TaskGroups(tasks);
        // Asked in any order, some twice.
        for (const k of order) groups.of(k % tasks.length);
        const ids = tasks.map((_, i) => groups.of(i));
        const keyOf = ({ r }: (typeof drawn)[number]): string => {
          if (r.kind === "offboarding") return "none";
          const kind = r.kind === "grant" ? (r.emergency ? "G" : "g") : r.kind === "certify" ? `c${r.review}` : "r";
          const subject = r.userId || r.subject;
          const duration = r.kind === "grant" ? r.duration : undefined;
          const prepares = (duration === null || duration === "" || duration === undefined || duration === "3600s") && r.createdAt !== "yesterday" && r.ip !== "not an address";
          return JSON.stringify([kind, r.app, r.ent, r.appUser, subject, r.origin, duration === undefined ? "u" : duration, r.requester, r.ip ?? null, prepares]);
        };
        for (let i = 0; i < tasks.length; i++) {
          const ki = keyOf(drawn[i] as (typeof drawn)[number]);
          if (ki === "none") expect(ids[i]).toBe(-1);
          for (let j = 0; j < i; j++) if (ki !== "none") expect(ids[i] === ids[j]).toBe(ki === keyOf(drawn[j] as (typeof drawn)[number]));
        }
        // Group numbers are dense from 0 and readiness is the group's.
        const seen = [...new Set(ids.filter((g) => g >= 0))].sort((a, b) => a - b);
        expect(seen).toEqual(seen.map((_, i) => i));
      }),
      { numRuns: 300 },
    );
  });
});

describe("GroupHashes", () => {
  it("finds every group added with a hash, newest first, as a Map of lists would, through collisions and growth", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.nat(7), fc.nat(0x3fffffff), fc.constantFrom(0, 4096, 8192, 1 << 20)), { minLength: 1, maxLength: 3000 }), (hs) => {
        const hashes = new GroupHashes();
        const model = new Map<number, number[]>();
        hs.forEach((h, g) => {
          hashes.add(h, g);
          model.set(h, [g, ...(model.get(h) ?? [])]);
        });
        for (const [h, groups] of model) {
          const found: number[] = [];
          for (let g = hashes.first(h); g >= 0; g = hashes.next(g)) found.push(g);
          expect(found).toEqual(groups);
        }
        expect(hashes.first(0x3fffffff + 1)).toBe(-1);
      }),
      { numRuns: 200 },
    );
  });
});
