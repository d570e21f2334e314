import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { syntheticWorld } from "../testing/synthetic-world.js";
import { loadWorld, loadWorldChunks } from "./load-world.js";
import { saveWorld, worldJsonChunks } from "./save-world.js";

const text = readFileSync(new URL("../../fixtures/world.json", import.meta.url), "utf8");
const bytes = new TextEncoder().encode(text);

/** `data` cut at the given sizes (cycled), as a reader would hand it out. */
function* cut(data: Uint8Array, sizes: readonly number[]): Generator<Uint8Array> {
  let at = 0;
  for (let k = 0; at < data.length; k++) {
    const n = Math.max(1, sizes[k % sizes.length] as number);
    yield data.slice(at, at + n);
    at += n;
  }
}

const saved = (r: ReturnType<typeof loadWorld>): string => (r.ok ? JSON.stringify(saveWorld(r.value)) : `error ${r.error.map((d) => d.code).join(",")}`);

describe("loadWorldChunks (issue 13: worlds of any size, read as a stream)", () => {
  it("gives the world loadWorld(JSON.parse) gives, however the bytes are cut", () => {
    const whole = saved(loadWorld(JSON.parse(text)));
    expect(whole.startsWith("error")).toBe(false);
    expect(saved(loadWorldChunks([bytes]))).toBe(whole);
    expect(saved(loadWorldChunks(cut(bytes, [1])))).toBe(whole);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 4096 }), { minLength: 1, maxLength: 8 }), (sizes) => {
        expect(saved(loadWorldChunks(cut(bytes, sizes)))).toBe(whole);
      }),
      { numRuns: 10 },
    );
  });

  it("agrees with loadWorld on generated documents, valid or not, compact or indented", () => {
    const doc = fc.dictionary(
      fc.oneof(fc.constantFrom("users", "tasks", "comments", "now", "seq", "tenant", "extra", "__proto__", "roles"), fc.string({ maxLength: 5 })),
      fc.jsonValue({ maxDepth: 3 }),
      { maxKeys: 5 },
    );
    fc.assert(
      fc.property(doc, fc.constantFrom(0, 2), fc.integer({ min: 1, max: 64 }), (json, indent, size) => {
        const t = JSON.stringify(json, null, indent);
        const expected = loadWorld(JSON.parse(t));
        const got = loadWorldChunks(cut(new TextEncoder().encode(t), [size]));
        expect(got.ok).toBe(expected.ok);
        if (got.ok) expect(saved(got)).toBe(saved(expected));
      }),
      { numRuns: 300 },
    );
  });

  it("refuses what is not one JSON object with INVALID_JSON, and never throws", () => {
    for (const bad of ["", "[]", "{", '{"a":1,}', '{"a" 1}', '{"tasks":[1,]}', '{"tasks":[{]}', '{} x', '{"a":1}{', '{"tasks":[{"id":"t"}', '{"a":tru}', "\u00ff"]) {
      const r = loadWorldChunks([new TextEncoder().encode(bad)]);
      expect(r.ok, bad).toBe(false);
    }
    fc.assert(
      fc.property(fc.nat(bytes.length - 1), fc.integer({ min: 0, max: 255 }), (at, b) => {
        const broken = bytes.slice();
        broken[at] = b;
        const r = loadWorldChunks(cut(broken, [997]));
        expect(typeof r.ok).toBe("boolean");
      }),
      { numRuns: 60 },
    );
  });

  it("keeps multi-byte characters cut between chunks", () => {
    const json = JSON.parse(text) as Record<string, unknown>;
    (json["users"] as Record<string, unknown>[])[0]!["displayName"] = "Zoë 🚀 Ångström";
    const data = new TextEncoder().encode(JSON.stringify(json));
    const r = loadWorldChunks(cut(data, [3]));
    expect(r.ok && r.value.users[0]!.displayName).toBe("Zoë 🚀 Ångström");
  });

  it("decodes a snapshot shared by many tasks once, and keeps different ones apart", () => {
    const json = syntheticWorld({ seed: 3, tasks: 40, rulesPerPolicy: 2, policies: 2 });
    const t = JSON.stringify(json);
    const r = loadWorldChunks(cut(new TextEncoder().encode(t), [512]));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(JSON.stringify(saveWorld(r.value))).toBe(saved(loadWorld(JSON.parse(t))));
    const byPolicy = new Map<string, Set<unknown>>();
    for (const task of r.value.tasks.values()) {
      const p = task.policy?.policy;
      if (!p) continue;
      const set = byPolicy.get(p.id) ?? new Set();
      set.add(p);
      byPolicy.set(p.id, set);
    }
    expect(byPolicy.size).toBeGreaterThan(0);
    for (const set of byPolicy.values()) expect(set.size).toBe(1);
  });

  it("reads back what worldJsonChunks writes, byte for byte", () => {
    const w = loadWorld(JSON.parse(text));
    if (!w.ok) throw new Error("sample does not load");
    const written = [...worldJsonChunks(w.value)].join("");
    expect(written).toBe(`${JSON.stringify(saveWorld(w.value), null, 2)}\n`);
    const again = loadWorldChunks(cut(new TextEncoder().encode(written), [65536]));
    expect(again.ok && [...worldJsonChunks(again.value)].join("")).toBe(written);
  });
});

describe("a world file saved with a byte-order mark (hostile review 9: the message said only 'expected {')", () => {
  it("says the file starts with a UTF-8 BOM and how to save it", () => {
    const bytes = new TextEncoder().encode('{"version":1}');
    const withBom = new Uint8Array([0xef, 0xbb, 0xbf, ...bytes]);
    const r = loadWorldChunks([withBom]);
    expect(!r.ok && r.error[0]?.message).toMatch(/byte-order mark \(EF BB BF\).*without BOM/);
    expect(loadWorldChunks([bytes]).ok).toBe(true);
  });
});

describe("endless or hostile streams stop (hostile review: an endless generator never returned)", () => {
  const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
  function* endless(head: string, chunk: Uint8Array): Generator<Uint8Array> {
    yield enc(head);
    for (;;) yield chunk;
  }
  const MiB = 1 << 20;

  it("whitespace without end between pieces stops with TOO_LARGE after 64 MiB of it, not never", () => {
    const r = loadWorldChunks(endless('{"tasks": [', new Uint8Array(MiB).fill(0x20)));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error[0]).toMatchObject({ code: "TOO_LARGE", message: expect.stringMatching(/over 64 MiB of whitespace in a row/) as unknown });
  });

  it("an element that never ends (an endless string) stops with TOO_LARGE at 256 MiB, naming its list and where it began", () => {
    const r = loadWorldChunks(endless('{"users": [{"id": "u-1", "displayName": "', new Uint8Array(MiB).fill(0x61)));
    expect(!r.ok && r.error[0]).toMatchObject({ code: "TOO_LARGE", message: 'an element of "users" starting at byte 11 is over 256 MiB: no world file holds one so large' });
  });

  it("a file over maxBytes stops with TOO_LARGE naming the option; within it, the same world as without the option", () => {
    const small = loadWorldChunks(cut(bytes, [1000]), { maxBytes: bytes.length - 1 });
    expect(!small.ok && small.error[0]).toMatchObject({ code: "TOO_LARGE", message: expect.stringMatching(/\(maxBytes\); pass a larger maxBytes/) as unknown });
    expect(saved(loadWorldChunks(cut(bytes, [1000]), { maxBytes: bytes.length }))).toBe(saved(loadWorld(JSON.parse(text))));
  });

  it("an endless stream of valid users stops at maxBytes", () => {
    const user = enc('{"id": "u", "displayName": "U"},');
    const many = new Uint8Array(user.length * 1000);
    for (let i = 0; i < 1000; i++) many.set(user, i * user.length);
    const r = loadWorldChunks(endless('{"users": [', many), { maxBytes: 2 * MiB, warnings: false });
    expect(!r.ok && r.error[0]?.code).toBe("TOO_LARGE");
  });

  it("options given as null are no options (it threw on options.warnings)", () => {
    expect(saved(loadWorldChunks([bytes], null as never))).toBe(saved(loadWorld(JSON.parse(text))));
  });

  it("maxBytes that is not a positive number is INVALID_ARGUMENT, not a load without a bound", () => {
    for (const maxBytes of [0, -1, Number.NaN, "1GiB"] as unknown[]) {
      const r = loadWorldChunks([bytes], { maxBytes } as never);
      expect(!r.ok && r.error[0]).toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringMatching(/^maxBytes must be a positive number of bytes/) as unknown });
    }
  });
});

describe("another kind of file given as a world is named, not loaded as an empty world (newcomer review 2)", () => {
  const policy = (JSON.parse(text) as { policies: unknown[] }).policies[0];
  const plan = readFileSync(new URL("../../fixtures/terraform/plan.json", import.meta.url), "utf8");
  const script = readFileSync(new URL("../../fixtures/scenarios/emergency-request.json", import.meta.url), "utf8");
  it.each([
    ["a policy", JSON.stringify(policy), /^this is not a world file: a policy .*whatif --edit or lint --policy$/],
    ["a Terraform plan", plan, /^this is not a world file: a Terraform plan .*whatif --terraform-plan/],
    ["a scenario script", script, /^this is not a world file: a scenario script: run it with simulate --script$/],
    ["anything else with keys", '{"hello": 1, "world": 2}', /^this is not a world file: its top-level fields \(hello, world\) are none of a world file's \(version, now, tenant/],
  ])("%s: NOT_A_WORLD from loadWorld and loadWorldChunks alike", (_, doc, message) => {
    for (const r of [loadWorld(JSON.parse(doc)), loadWorldChunks([new TextEncoder().encode(doc)])]) {
      expect(!r.ok && r.error).toEqual([{ code: "NOT_A_WORLD", path: "$", message: expect.stringMatching(message) as unknown }]);
    }
  });

  it("an empty object is still an empty world, and one world key among unknown ones is still a world (with warnings)", () => {
    expect(loadWorld({}).ok).toBe(true);
    expect(loadWorldChunks([new TextEncoder().encode('{"version": 1, "extra": {}}')]).ok).toBe(true);
  });
});

describe("what is still a world (today's review: NOT_A_WORLD was too eager)", () => {
  it("a file with only $schema/$comment is an empty world; one whose keys are misspelt world keys loads with the near-miss warning", () => {
    for (const doc of ['{"$schema": "./world.schema.json"}', '{"$schema": "x", "$comment": "draft"}']) {
      expect(loadWorld(JSON.parse(doc)).ok).toBe(true);
      expect(loadWorldChunks([new TextEncoder().encode(doc)]).ok).toBe(true);
    }
    const typo = loadWorld({ polices: [], user: [] });
    expect(typo.ok && typo.value.warnings.map((w) => w.message).join("\n")).toMatch(/did you mean "policies"\?/);
  });

  it("a limit under a MiB is said in bytes", () => {
    const r = loadWorldChunks(cut(bytes, [100]), { maxBytes: 500 });
    expect(!r.ok && r.error[0]?.message).toBe("the world file is over 500 bytes (maxBytes); pass a larger maxBytes if a world this large is meant");
  });
});
