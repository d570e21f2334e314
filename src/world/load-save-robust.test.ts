import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadWorld, loadWorldChunks } from "./load-world.js";
import { MAX_JSON_DEPTH } from "./read.js";
import { saveWorld } from "./save-world.js";

const text = readFileSync(new URL("../../fixtures/world.json", import.meta.url), "utf8");
const fresh = (): Record<string, unknown> => JSON.parse(text) as Record<string, unknown>;

/** `levels` arrays nested in each other around 1, as JSON text. */
function nested(levels: number): string {
  return `${"[".repeat(levels)}1${"]".repeat(levels)}`;
}

/** Every object and array reachable from `v`, iteratively. */
function objectsIn(v: unknown): object[] {
  const found: object[] = [];
  const work = [v];
  for (let next = work.pop(); next !== undefined; next = work.pop()) {
    if (typeof next !== "object" || next === null) continue;
    found.push(next);
    work.push(...Object.values(next));
  }
  return found;
}

describe("issue 15.4: a world that loads can be saved (one depth limit)", () => {
  it("20,000 levels inside a top-level unknown field are refused with TOO_DEEP and its path", () => {
    const json = JSON.parse(`{"deep":${nested(20_000)},${text.trimStart().slice(1)}`) as unknown;
    const r = loadWorld(json);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toContainEqual(expect.objectContaining({ code: "TOO_DEEP", path: "$.deep" }));
  });

  it("the same limit holds inside users and the tenant", () => {
    const json = fresh();
    const users = json["users"] as Record<string, unknown>[];
    users[0]!["profile"] = { x: JSON.parse(nested(MAX_JSON_DEPTH + 5)) };
    users[1]!["future"] = JSON.parse(nested(MAX_JSON_DEPTH + 5));
    json["tenant"] = { ...(json["tenant"] as object), extra: JSON.parse(nested(MAX_JSON_DEPTH + 5)) };
    const r = loadWorld(json);
    expect(!r.ok && r.error.filter((d) => d.code === "TOO_DEEP").map((d) => d.path).sort()).toEqual(
      ["$.tenant.extra", "$.users[0].profile", "$.users[1].future"].sort(),
    );
  });

  it("the same limit holds inside tasks and policies (unknown fields, unknown variants, JSON fields), also from the streamed loader", () => {
    // Before: a 100,000-level unknown field in a task loaded; serve then answered 500 on reads and on
    // a comment it had recorded, and writing the world with indentation ran without end.
    const json = fresh();
    const tasks = json["tasks"] as Record<string, unknown>[];
    const policies = json["policies"] as Record<string, unknown>[];
    tasks[0]!["future"] = JSON.parse(nested(100_000));
    tasks[1]!["requestData"] = { x: JSON.parse(nested(MAX_JSON_DEPTH + 5)) };
    policies[0]!["future"] = JSON.parse(nested(MAX_JSON_DEPTH + 2));
    const r = loadWorld(json);
    expect(!r.ok && r.error.filter((d) => d.code === "TOO_DEEP").map((d) => d.path)).toEqual(["$.policies[0]", "$.tasks[0]", "$.tasks[1]"]);
    tasks[0]!["future"] = JSON.parse(nested(MAX_JSON_DEPTH + 5)); // JSON.stringify itself overflows at 100,000
    const streamed = loadWorldChunks([new TextEncoder().encode(JSON.stringify(json))]);
    expect(!streamed.ok && streamed.error.filter((d) => d.code === "TOO_DEEP").length).toBe(3);
    // Within the limit, the same fields load and save.
    const within = fresh();
    (within["tasks"] as Record<string, unknown>[])[0]!["future"] = JSON.parse(nested(MAX_JSON_DEPTH));
    const w = loadWorld(within);
    expect(w.ok && JSON.stringify(saveWorld(w.value)).length).toBeGreaterThan(0);
  });

  it("a value just within the limit loads, saves with JSON.stringify, and loads again equal", () => {
    const json = fresh();
    json["deep"] = JSON.parse(nested(MAX_JSON_DEPTH));
    (json["users"] as Record<string, unknown>[])[0]!["profile"] = { x: JSON.parse(nested(MAX_JSON_DEPTH - 1)) };
    const r = loadWorld(json);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const saved = JSON.stringify(saveWorld(r.value));
    const again = loadWorld(JSON.parse(saved));
    expect(again.ok && JSON.stringify(saveWorld(again.value))).toBe(saved);
  });

  it("a caller's object that refers to itself is refused, not looped over", () => {
    const json = fresh();
    const loop: Record<string, unknown> = { a: 1 };
    loop["self"] = loop;
    json["loop"] = loop;
    const r = loadWorld(json);
    expect(!r.ok && r.error[0]).toMatchObject({ code: "TOO_DEEP", path: "$.loop" });
  });

  it("an unknown field of a policy, a task or a task's policy that refers to itself is refused at load, so nothing that loads fails to save (hostile review 2: it loaded, then saveWorld threw)", () => {
    for (const [list, place] of [["policies", ""], ["tasks", ""], ["tasks", "policy"]] as const) {
      const json = fresh();
      const items = json[list] as Record<string, unknown>[];
      const holder = (place === "" ? items[0] : items.find((t) => t[place] !== undefined && t[place] !== null)?.[place]) as Record<string, unknown>;
      const loop: Record<string, unknown> = { a: 1 };
      loop["self"] = [loop];
      holder["zzUnmodelled"] = loop;
      const r = loadWorld(json);
      expect(!r.ok && r.error[0], `${list} ${place}`).toMatchObject({ code: "TOO_DEEP", message: "this value refers to itself, which JSON cannot write" });
    }
    // Shared (not cyclic) objects in an unknown field are data like any other: they load and save.
    const json = fresh();
    const shared = { x: 1 };
    (json["policies"] as Record<string, unknown>[])[0]!["zzUnmodelled"] = { a: shared, b: [shared] };
    const r = loadWorld(json);
    expect(r.ok && JSON.stringify(saveWorld(r.value))).toContain('"zzUnmodelled":{"a":{"x":1},"b":[{"x":1}]}');
  });

  it("a free-form JSON field (a task's data, a wait's values) that refers to itself is refused at load, at the task that holds it (hostile review: tasks[].data loaded, then every save threw)", () => {
    const json = fresh();
    const loop: Record<string, unknown> = { a: 1 };
    loop["self"] = { back: loop };
    (json["tasks"] as Record<string, unknown>[])[0]!["data"] = loop;
    const r = loadWorld(json);
    expect(!r.ok && r.error[0]).toMatchObject({ code: "TOO_DEEP", path: "$.tasks[0]", message: "this value refers to itself, which JSON cannot write" });
    const ok = fresh();
    const shared = { x: 1 };
    (ok["tasks"] as Record<string, unknown>[])[0]!["data"] = { a: shared, b: shared };
    const loaded = loadWorld(ok);
    expect(loaded.ok && JSON.stringify(saveWorld(loaded.value))).toContain('"data":{"a":{"x":1},"b":{"x":1}}');
  });
});

describe("issue 15.5: __proto__ keys are data, never dropped and never prototypes", () => {
  const withProto = (): Record<string, unknown> => {
    const json = fresh();
    const users = json["users"] as Record<string, unknown>[];
    users[0] = JSON.parse(`{"__proto__":{"polluted":true},${JSON.stringify(users[0]).slice(1)}`) as Record<string, unknown>;
    users[1]!["profile"] = JSON.parse(`{"__proto__":{"isAdmin":true},"team":"blue"}`);
    return JSON.parse(`{"__proto__":{"top":1},${JSON.stringify(json).slice(1)}`) as Record<string, unknown>;
  };

  it("survive load and save as own keys, at the top level, in a user and in a profile", () => {
    const r = loadWorld(withProto());
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const saved = saveWorld(r.value);
    expect(Object.getPrototypeOf(saved)).toBe(Object.prototype);
    expect(Object.hasOwn(saved, "__proto__")).toBe(true);
    const users = saved["users"] as Record<string, unknown>[];
    expect(Object.hasOwn(users[0]!, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(users[0])).toBe(Object.prototype);
    expect(Object.hasOwn(users[1]!["profile"] as object, "__proto__")).toBe(true);
    const written = JSON.parse(JSON.stringify(saved)) as Record<string, unknown>;
    expect(written["__proto__"]).toEqual({ top: 1 });
    expect((written["users"] as Record<string, unknown>[])[0]!["__proto__"]).toEqual({ polluted: true });
    // In the world, the profile's key is data too: no user inherits isAdmin.
    const u1 = r.value.users[1]!;
    expect((u1.profile as Record<string, unknown>)["isAdmin"]).toBeUndefined();
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("round-trip byte for byte", () => {
    const r = loadWorld(withProto());
    if (!r.ok) throw new Error("did not load");
    const once = JSON.stringify(saveWorld(r.value));
    const again = loadWorld(JSON.parse(once));
    expect(again.ok && JSON.stringify(saveWorld(again.value))).toBe(once);
  });
});

describe("issue 13: loadWorld does not freeze the caller's objects", () => {
  it("nothing in the JSON it was given is frozen afterwards (profiles, attributes, annotations, unknown fields)", () => {
    const json = fresh();
    const ents = json["entitlements"] as Record<string, unknown>[];
    ents[0]!["annotations"] = [{ "@type": "x", provisionerPolicy: { connector: { config: { a: [1] } } } }];
    ents[1]!["provisionerPolicy"] = { manual: { instructions: "ask IT" } };
    json["extra"] = { nested: [{ a: 1 }] };
    const r = loadWorld(json);
    expect(r.ok).toBe(true);
    expect(objectsIn(json).filter((o) => Object.isFrozen(o))).toEqual([]);
    // …while the world's own copies are frozen.
    if (r.ok) expect(Object.isFrozen(r.value.users[0]!.profile)).toBe(true);
  });

  it("holds for generated JSON too", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.jsonValue({ maxDepth: 4 }), (profile, extra) => {
        const json = fresh();
        (json["users"] as Record<string, unknown>[])[0]!["profile"] = profile;
        json["extra"] = extra;
        loadWorld(json);
        expect(objectsIn(json).filter((o) => Object.isFrozen(o))).toEqual([]);
      }),
      { numRuns: 30 },
    );
  });
});
