import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadWorld, loadWorldChunks } from "./load-world.js";
import { saveWorld } from "./save-world.js";
import { Table } from "./table.js";
import { findTask } from "./world.js";

const sample = JSON.parse(readFileSync(new URL("../../fixtures/world.json", import.meta.url), "utf8")) as Record<string, unknown>;

describe("loadWorld", () => {
  it("loads the sample tenant and indexes it", () => {
    const r = loadWorld(sample);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const w = r.value;
    expect(w.tasks.size).toBe((sample["tasks"] as unknown[]).length);
    expect(w.users.length).toBe((sample["users"] as unknown[]).length);
    const first = (sample["tasks"] as { id: string; numericId: string }[])[0]!;
    expect(findTask(w, first.id)?.id).toBe(first.id);
    expect(findTask(w, first.numericId)?.id).toBe(first.id);
    expect(Object.isFrozen(w)).toBe(true);
    expect(Object.isFrozen(w.users[0])).toBe(true);
    expect(Object.isFrozen(findTask(w, first.id)?.policy)).toBe(true);
  });

  it("a tenant.celCostLimit above the cap loads with a warning that says what evaluations get; one within it, none", () => {
    const withLimit = (celCostLimit: number) => ({ ...sample, tenant: { ...(sample["tenant"] as object), celCostLimit } });
    for (const load of [(j: unknown) => loadWorld(j), (j: unknown) => loadWorldChunks([new TextEncoder().encode(JSON.stringify(j))])]) {
      const over = load(withLimit(50_000_000));
      if (!over.ok) throw new Error(JSON.stringify(over.error));
      expect(over.value.tenant.celCostLimit).toBe(50_000_000);
      expect(over.value.warnings.filter((w) => w.code === "CEL_COST_LIMIT_CAPPED")).toEqual([
        { code: "CEL_COST_LIMIT_CAPPED", path: "$.tenant.celCostLimit", message: "celCostLimit 50,000,000 is above the simulation's cap of 10,000,000 units (README, Limits): each evaluation gets 10,000,000", severity: "warning" },
      ]);
      const within = load(withLimit(10_000_000));
      expect(within.ok && within.value.warnings.some((w) => w.code === "CEL_COST_LIMIT_CAPPED")).toBe(false);
    }
  });

  it("reports every dangling reference with its JSON path", () => {
    const json = {
      version: 1,
      now: "2026-11-22T09:00:00Z",
      users: [{ id: "u1", managerIds: ["ghost"] }],
      apps: [{ id: "a1", grantPolicyId: "missing-pol" }],
      entitlements: [{ id: "e1", appId: "nope" }],
      tasks: [{ id: "t1", numericId: "1", userId: "u2", type: { grant: { appId: "a1", appEntitlementId: "e9" } } }],
    };
    const r = loadWorld(json);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const byPath = Object.fromEntries(r.error.map((d) => [d.path, d.code]));
    expect(byPath).toMatchObject({
      "$.users[0].managerIds[0]": "DANGLING_REFERENCE",
      "$.apps[0].grantPolicyId": "DANGLING_REFERENCE",
      "$.entitlements[0].appId": "DANGLING_REFERENCE",
      "$.tasks[0].userId": "DANGLING_REFERENCE",
      "$.tasks[0].type.grant.appEntitlementId": "DANGLING_REFERENCE",
    });
    const lenient = loadWorld(json, { strict: false });
    expect(lenient.ok && lenient.value.warnings.length).toBe(r.error.length);
  });

  it("reports wire problems of tasks and policies under their world path", () => {
    const r = loadWorld({ tasks: [{ id: "t1", numericId: "twelve" }], policies: [{ id: 7 }] });
    expect(!r.ok && r.error.map((d) => d.path)).toEqual(expect.arrayContaining(["$.tasks[0].numericId", "$.policies[0].id"]));
  });

  it("reports duplicate ids", () => {
    const r = loadWorld({ users: [{ id: "u1" }, { id: "u1" }] });
    expect(!r.ok && r.error[0]).toMatchObject({ code: "DUPLICATE_ID", path: "$.users[1].id" });
    // A repeated numericId is named at that field, in words that say so.
    const n = loadWorld({ tasks: [{ id: "t1", numericId: "1" }, { id: "t2", numericId: "1" }] });
    expect(!n.ok && n.error.find((d) => d.code === "DUPLICATE_ID")).toMatchObject({ path: "$.tasks[1].numericId", message: 'task numericId "1" is used again (first at $.tasks[0])' });
  });

  it("keeps unknown fields and round-trips through saveWorld", () => {
    const withExtra = { ...sample, addedLater: { x: 1 }, users: [{ ...(sample["users"] as object[])[0], futureField: true }, ...(sample["users"] as object[]).slice(1)] };
    const r = loadWorld(withExtra);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const saved = saveWorld(r.value);
    expect(saved["addedLater"]).toEqual({ x: 1 });
    expect((saved["users"] as Record<string, unknown>[])[0]?.["futureField"]).toBe(true);
    const again = loadWorld(JSON.parse(JSON.stringify(saved)));
    expect(again.ok).toBe(true);
    if (!again.ok) return;
    expect(saveWorld(again.value)).toEqual(saved);
  });

  it("shares identical policy snapshots among tasks and keeps different ones apart", () => {
    const tasks = (sample["tasks"] as Record<string, unknown>[]).filter((t) => (t["policy"] as Record<string, unknown> | null)?.["policy"]);
    const a = tasks[0]!;
    const snapshot = (a["policy"] as Record<string, unknown>)["policy"] as Record<string, unknown>;
    const twin = { ...a, id: "twin", numericId: "9001", policy: { ...(a["policy"] as object), policy: JSON.parse(JSON.stringify(snapshot)) } };
    const edited = { ...a, id: "edited", numericId: "9002", policy: { ...(a["policy"] as object), policy: { ...snapshot, description: "edited by hand" } } };
    const r = loadWorld({ ...sample, tasks: [...(sample["tasks"] as object[]), twin, edited] });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const original = r.value.tasks.get(a["id"] as string)!.policy!.policy;
    expect(r.value.tasks.get("twin")!.policy!.policy).toBe(original);
    expect(r.value.tasks.get("edited")!.policy!.policy).not.toBe(original);
    expect(r.value.tasks.get("edited")!.policy!.policy!.description).toBe("edited by hand");
    expect(saveWorld(r.value)["tasks"]).toEqual(JSON.parse(JSON.stringify([...(sample["tasks"] as object[]), twin, edited])));
  });

  it("defaults the clock to the latest task time when the file sets none", () => {
    const r = loadWorld({ tasks: [{ id: "t1", createdAt: "2026-01-01T00:00:00Z", updatedAt: "2026-02-01T00:00:00Z" }] });
    expect(r.ok && r.value.now).toBe("2026-02-01T00:00:00Z");
  });

  it("never throws and never mutates its input, whatever the JSON", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (json) => {
        const before = JSON.stringify(json);
        const r = loadWorld(json);
        expect(typeof r.ok).toBe("boolean");
        expect(JSON.stringify(json)).toBe(before);
      }),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(
        fc.record({ users: fc.jsonValue(), tasks: fc.jsonValue(), policies: fc.jsonValue(), tenant: fc.jsonValue(), now: fc.jsonValue() }, { requiredKeys: [] }),
        (json) => {
          expect(typeof loadWorld(json).ok).toBe("boolean");
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe("Table", () => {
  it("behaves like a Map with insertion order, and never changes an old version", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string({ maxLength: 4 }), fc.integer()), { maxLength: 300 }), (ops) => {
        let table = Table.empty<number>();
        const model = new Map<string, number>();
        const versions: [Table<number>, [string, number][]][] = [];
        for (const [k, v] of ops) {
          versions.push([table, [...model]]);
          table = table.set(k, v);
          model.set(k, v);
        }
        expect([...table.entries()]).toEqual([...model]);
        expect(table.size).toBe(model.size);
        for (const [t, snapshot] of versions) expect([...t.entries()]).toEqual(snapshot);
      }),
      { numRuns: 300 },
    );
  });
});

describe("a world without a clock (DOMAIN: the world's now is the time of every action and condition)", () => {
  it("warns NO_CLOCK when neither now nor any task time gives one, and not otherwise", () => {
    const codes = (json: unknown): string[] => {
      const r = loadWorld(json);
      if (!r.ok) throw new Error(JSON.stringify(r.error));
      return r.value.warnings.map((w) => w.code);
    };
    expect(codes({ version: 1, tasks: [{ id: "t1" }] })).toContain("NO_CLOCK");
    expect(codes({ version: 1 })).toContain("NO_CLOCK");
    expect(codes({ version: 1, now: "2026-11-22T09:00:00Z", tasks: [{ id: "t1" }] })).not.toContain("NO_CLOCK");
    expect(codes({ version: 1, tasks: [{ id: "t1", createdAt: "2026-11-20T09:00:00Z" }] })).not.toContain("NO_CLOCK");
    const r = loadWorld({ version: 1 });
    expect(r.ok && r.value.now).toBe("1970-01-01T00:00:00Z");
    expect(r.ok && r.value.warnings.find((w) => w.code === "NO_CLOCK")?.message).toMatch(/set "now"/);
  });
});

describe("lists built in code (hostile review: a sparse list of length 2^32-1 hung loadWorld, holes were dropped unsaid)", () => {
  it("refuses a list longer than a world holds at once, and says where a list has holes", () => {
    // Every list a world has, the directory's and the ones the unknown-field warnings walk (hostile review 2: users hung past 100 s).
    for (const key of ["comments", "users", "tasks", "policies", "apps", "appUsers"]) {
      const list: unknown[] = [];
      list.length = 2 ** 32 - 1;
      const started = performance.now();
      const r = loadWorld({ version: 1, [key]: list });
      expect(performance.now() - started, key).toBeLessThan(5000);
      expect(!r.ok && r.error.map((d) => [d.code, d.path])).toContainEqual(["TOO_LARGE", `$.${key}`]);
    }
    const holes = JSON.parse(readFileSync(new URL("../../fixtures/world.json", import.meta.url), "utf8")) as { users: unknown[] };
    holes.users.length += 3;
    const h = loadWorld(holes);
    expect(h.ok).toBe(false);
    expect(!h.ok && h.error.find((d) => d.code === "EXPECTED_OBJECT")).toMatchObject({ path: expect.stringMatching(/^\$\.users\[\d+\]$/), message: expect.stringContaining("3 holes") });
  });
});

describe("a tenant setting that refers to itself (hostile review 9: an INTERNAL 'Cannot convert undefined or null to object')", () => {
  it("is a diagnostic naming the place", () => {
    const json = JSON.parse(readFileSync(new URL("../../fixtures/world.json", import.meta.url), "utf8")) as { tenant: Record<string, unknown> };
    const cyc: Record<string, unknown> = {};
    cyc["self"] = cyc;
    json.tenant["featureFlags"] = cyc;
    const r = loadWorld(json);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error.some((d) => d.code === "INTERNAL")).toBe(false);
    expect(!r.ok && r.error[0]?.path).toMatch(/^\$\.tenant\.featureFlags/);
  });
});
