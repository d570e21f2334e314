import { readFileSync } from "node:fs";
import { runInNewContext } from "node:vm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonValue } from "../model/json.js";
import { comment } from "../reducers/comment.js";
import { hardReset } from "../reducers/hard-reset.js";
import { loadWorld } from "../world/load-world.js";
import { freezeJson } from "./json-tools.js";
import { jsonBytes, jsonText, markSharedJson } from "./json-text.js";
import { API_TO_SPEC_NAMES, toSpecNames, withApiAliases } from "./spec-names.js";

describe("jsonText: JSON.stringify's text, with shared JSON written once", () => {
  it("equals JSON.stringify for any JSON value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(jsonText(v as JsonValue)).toBe(JSON.stringify(v));
      }),
    );
  });

  it("equals JSON.stringify when parts are shared, also once a shared part's text is cached", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        const part = freezeJson(structuredClone(a) as JsonValue);
        markSharedJson(part);
        const doc = { a: part, list: [part, b as JsonValue], b: b as JsonValue };
        expect(jsonText(doc)).toBe(JSON.stringify(doc));
        expect(jsonText(doc)).toBe(JSON.stringify(doc));
      }),
    );
  });

  it("leaves out undefined fields and writes null for undefined array items, as JSON.stringify does", () => {
    const odd = { a: undefined, b: [undefined, 1], c: Number.NaN } as unknown as JsonValue;
    expect(jsonText(odd)).toBe(JSON.stringify(odd));
  });

  it("writes the reducers' responses byte for byte as JSON.stringify (the HTTP face's 200 bodies)", () => {
    const loaded = loadWorld(JSON.parse(readFileSync(new URL("../../fixtures/world.json", import.meta.url), "utf8")));
    if (!loaded.ok) throw new Error("fixture does not load");
    let w = loaded.value;
    for (const id of ["1001", "1002", "1011", "1043", "1054", "1001"]) {
      const c = comment(w, { taskId: id, comment: "checked", expandMask: { paths: ["*"] } }, { actorId: "u-it-dir" });
      if (!c.ok) throw new Error(c.error.message);
      expect(jsonText(c.value.response)).toBe(JSON.stringify(c.value.response));
      const h = hardReset(c.value.world, { taskId: id }, { actorId: "u-it-dir" });
      if (!h.ok) throw new Error(h.error.message);
      expect(jsonText(h.value.response)).toBe(JSON.stringify(h.value.response));
      w = h.value.world;
    }
  });
});

describe("jsonText writes what JSON.stringify writes for any value JSON can write, not only JSON values", () => {
  it("boxed primitives, toJSON (given its key), Maps, typed arrays, sparse arrays, null prototypes, odd keys and strings", () => {
    fc.assert(
      fc.property(
        fc.anything({
          withBoxedValues: true,
          withMap: true,
          withSet: true,
          withObjectString: true,
          withNullPrototype: true,
          withTypedArray: true,
          withSparseArray: true,
          withUnicodeString: true,
          withDate: true,
          key: fc.oneof(fc.string(), fc.constantFrom("__proto__", "toJSON", "constructor", "\u0000", "\ud800", '"')),
        }),
        fc.jsonValue(),
        (v, a) => {
          const part = freezeJson(structuredClone(a) as JsonValue);
          markSharedJson(part);
          const doc = { v, part, list: [v, part], keyed: { toJSON: (k: string) => `key ${k}` }, at: [{ toJSON: (k: string) => [k, part] }] } as unknown as JsonValue;
          expect(jsonText(doc)).toBe(JSON.stringify(doc));
          expect(jsonText(v as JsonValue)).toBe(JSON.stringify(v) ?? "null");
        },
      ),
    );
  });

  it("keys beyond the 4,096 whose text is kept are written right too, before and after the table starts afresh", () => {
    const many = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [i % 3 === 0 ? `k\u0000${i}` : `key-${i}`, i]));
    expect(jsonText(many)).toBe(JSON.stringify(many));
    expect(jsonText({ ...many, id: "x" })).toBe(JSON.stringify({ ...many, id: "x" }));
  });

  it("tells boxed primitives by their slot and calls a function's toJSON, as JSON.stringify does", () => {
    const fn = Object.assign(() => 1, { toJSON: () => "from a function" });
    const otherRealm = runInNewContext('[new Number(3), new String("s"), new Boolean(false), Object(2n)]') as unknown[];
    const cases: unknown[] = [
      { fn },
      [fn],
      otherRealm.slice(0, 3),
      Object.create(Number.prototype),
      Object.create(String.prototype),
    ];
    for (const v of cases) expect(jsonText(v as JsonValue)).toBe(JSON.stringify(v));
    expect(() => jsonText([otherRealm[3]] as JsonValue)).toThrow(TypeError);
  });

  it("throws where JSON.stringify throws: a BigInt", () => {
    expect(() => jsonText({ n: 1n } as unknown as JsonValue)).toThrow(TypeError);
    expect(() => jsonText([Object(1n)] as unknown as JsonValue)).toThrow(TypeError);
  });
});

describe("jsonBytes: JSON.stringify's bytes, with shared JSON encoded once", () => {
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  it("decodes to JSON.stringify for any JSON value (unicode included)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(text(jsonBytes(v as JsonValue))).toBe(JSON.stringify(v));
      }),
    );
  });
  it("decodes to JSON.stringify when parts are shared, before and after their bytes are cached, nested in arrays and objects", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        const part = freezeJson(structuredClone(a) as JsonValue);
        markSharedJson(part);
        const doc = { a: part, list: [part, b as JsonValue, [part]], b: b as JsonValue, n: { deeper: { part } } };
        expect(text(jsonBytes(doc))).toBe(JSON.stringify(doc));
        jsonText(doc);
        expect(text(jsonBytes(doc))).toBe(JSON.stringify(doc));
      }),
    );
  });
  it("leaves out undefined fields, writes null for undefined array items, and keeps toJSON, as JSON.stringify does", () => {
    const odd = { a: undefined, b: [undefined, 1, { c: undefined }], c: Number.NaN, d: { toJSON: () => "x" }, e: { f: { toJSON: () => undefined } } } as unknown as JsonValue;
    expect(text(jsonBytes(odd))).toBe(JSON.stringify(odd));
    expect(text(jsonBytes(undefined as unknown as JsonValue))).toBe("null");
  });
  it("writes the reducers' responses byte for byte (the HTTP face's 200 bodies)", () => {
    const loaded = loadWorld(JSON.parse(readFileSync(new URL("../../fixtures/world.json", import.meta.url), "utf8")));
    if (!loaded.ok) throw new Error("fixture does not load");
    let w = loaded.value;
    for (const id of ["1001", "1002", "1011", "1043", "1054", "1001"]) {
      const c = comment(w, { taskId: id, comment: "checked ✓", expandMask: { paths: ["*"] } }, { actorId: "u-it-dir" });
      if (!c.ok) throw new Error(c.error.message);
      expect(text(jsonBytes(c.value.response))).toBe(JSON.stringify(c.value.response));
      const h = hardReset(c.value.world, { taskId: id }, { actorId: "u-it-dir" });
      if (!h.ok) throw new Error(h.error.message);
      expect(text(jsonBytes(h.value.response))).toBe(JSON.stringify(h.value.response));
      w = h.value.world;
    }
  });
});

describe("jsonBytes never hands out its cache", () => {
  it("a shared value written alone comes back as a copy: writing to it changes no later answer", () => {
    const part = freezeJson({ a: [1, 2, 3] } as JsonValue);
    markSharedJson(part);
    const first = jsonBytes(part);
    first.fill(0);
    expect(new TextDecoder().decode(jsonBytes(part))).toBe('{"a":[1,2,3]}');
  });
});

describe("jsonBytes with more distinct field names than it keeps quoted", () => {
  it("writes them all as JSON.stringify does, past the bound too", () => {
    const many = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k"${i}\u2028`, { v: i, nested: { w: [i] } }]));
    const doc = { many, again: many } as unknown as JsonValue;
    expect(new TextDecoder().decode(jsonBytes(doc))).toBe(JSON.stringify(doc));
  });
});

describe("jsonBytes with apiAliases: JSON.stringify(withApiAliases(value)), shared parts included (what serve answers)", () => {
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  // JSON values whose keys are often the names the spec and the API spell differently.
  const key = fc.oneof(fc.constantFrom("svcResourceAction", "svcResourceActionId", "svcUserPicker", "svcActionInvocationId", "batonResourceAction", "c1UserPicker", "userIds"), fc.string());
  const { json } = fc.letrec((tie) => ({
    json: fc.oneof({ depthSize: "small" }, fc.jsonValue({ maxDepth: 0 }), fc.array(tie("json"), { maxLength: 3 }), fc.dictionary(key, tie("json"), { maxKeys: 4 })),
  }));
  it("equals JSON.stringify of withApiAliases for any value, with and without shared parts", () => {
    fc.assert(
      fc.property(json, json, (a, b) => {
        const part = freezeJson(structuredClone(a) as JsonValue);
        markSharedJson(part);
        const doc = { a: part, svcUserPicker: { inner: part }, list: [part, b as JsonValue], b: b as JsonValue } as JsonValue;
        expect(text(jsonBytes(doc, { apiAliases: true }))).toBe(JSON.stringify(withApiAliases(doc)));
        // The plain writer is unaffected by what the aliased one cached.
        expect(text(jsonBytes(doc))).toBe(JSON.stringify(doc));
        expect(text(jsonBytes(doc, { apiAliases: true }))).toBe(JSON.stringify(withApiAliases(doc)));
      }),
    );
  });
  // An object that spells one field both ways has no single reading; the codec refuses the second as unknown.
  const spelledTwice = (v: unknown): boolean =>
    typeof v === "object" && v !== null && (Object.keys(v).some((k) => Object.hasOwn(v, API_OF[k] ?? "\u0000")) || Object.values(v).some(spelledTwice));
  const API_OF: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(API_TO_SPEC_NAMES).map(([api, spec]) => [spec, api]));
  it("reads back as the same value: toSpecNames takes each spec/API pair as one field", () => {
    fc.assert(
      fc.property(json, (v) => {
        fc.pre(!spelledTwice(v));
        const aliased = JSON.parse(text(jsonBytes(v as JsonValue, { apiAliases: true }))) as unknown;
        // Both through JSON text, which writes -0 as 0.
        expect(toSpecNames(aliased)).toEqual(toSpecNames(JSON.parse(JSON.stringify(v))));
      }),
    );
  });
});
