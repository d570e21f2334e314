/**
 * The cached encoding of responses (`jsonParts`: the bytes of shared frozen JSON encoded once and
 * copied into every reply; `ReplyBuffers`: `serve`'s reused reply blocks) writes exactly what a fresh
 * `JSON.stringify` of the same view writes, over random action sequences on the sample tenant.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { freezeJson } from "../codec/json-tools.js";
import { jsonBytes, jsonParts, jsonText, markSharedJson } from "../codec/json-text.js";
import type { JsonValue } from "../model/json.js";
import { reduce, type WorkflowAction } from "../reducers/reduce.js";
import { ok } from "../result.js";
import { loadWorld } from "../world/load-world.js";
import type { World } from "../world/world.js";
import { createDispatcher, dispatcherWith, type IncomingCall } from "./dispatch.js";
import { withApiAliases } from "../codec/spec-names.js";
import { ReplyBuffers } from "./reply-buffers.js";
import { createWorldStore } from "./world-store.js";

const decode = (b: Uint8Array): string => new TextDecoder().decode(b);

function sample(): World {
  const loaded = loadWorld(JSON.parse(readFileSync(new URL("../../fixtures/world.json", import.meta.url), "utf8")));
  if (!loaded.ok) throw new Error("the sample tenant does not load");
  return loaded.value;
}
const world = sample();
const taskIds = [...world.tasks.values()].map((t) => t.numericId);
const actors = ["u-it-dir", "u-ciso", "u-sec-eng", ...world.users.slice(0, 12).map((u) => u.id)];
const userIds = world.users.map((u) => u.id);

/** What a caller may write: plain text, unicode, control characters, and the encoder's own marker. */
const arbText = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: "binary", maxLength: 12 }),
  fc.constantFrom("checked ✓", "\u0000policy-sim:shared-json\u0000", '"\u0000policy-sim:shared-json\u0000"', "\u2028\ud83d\ude00"),
);

const arbAction: fc.Arbitrary<WorkflowAction> = fc
  .record({
    type: fc.constantFrom("comment", "hardReset", "approve", "deny", "restart", "skipStep", "reassign", "close", "sendReminder", "processNow"),
    task: fc.nat(),
    comment: arbText,
    assignee: fc.nat(),
    expand: fc.boolean(),
  })
  .map(
    ({ type, task, comment, assignee, expand }) =>
      ({
        type,
        taskId: taskIds[task % taskIds.length] ?? "",
        comment,
        newStepUserIds: [userIds[assignee % userIds.length] ?? ""],
        ...(expand ? { expandMask: { paths: ["*"] } } : {}),
      }) as unknown as WorkflowAction,
  );

const arbRun = fc.array(fc.record({ action: arbAction, actor: fc.nat() }), { minLength: 1, maxLength: 12 });

describe("cached encoding of task views equals a fresh JSON.stringify", () => {
  it("over random action sequences: jsonText, jsonBytes and serve's reused reply buffers", () => {
    fc.assert(
      fc.property(arbRun, (run) => {
        const buffers = new ReplyBuffers();
        let w = world;
        // The previous reply stays unreleased while the next is written: no two replies share bytes.
        let held: { body: Uint8Array; text: string } | undefined;
        for (const { action, actor } of run) {
          const r = reduce(w, action, { actorId: actors[actor % actors.length] ?? "" });
          if (!r.ok) continue;
          w = r.value.world;
          const fresh = JSON.stringify(r.value.response);
          expect(jsonText(r.value.response)).toBe(fresh);
          expect(decode(jsonBytes(r.value.response))).toBe(fresh);
          // serve writes the API's names beside the spec's (WIRE_OPTIONS).
          const wire = JSON.stringify(withApiAliases(r.value.response));
          const body = buffers.bytes(r.value.response);
          expect(decode(body)).toBe(wire);
          if (held !== undefined) {
            expect(decode(held.body)).toBe(held.text);
            buffers.release(held.body);
          }
          held = { body, text: wire };
        }
      }),
      { numRuns: 60 },
    );
  });

  it("the responses carry shared JSON, and their parts copy its cached bytes (the same array each time)", () => {
    const r = reduce(world, { type: "comment", taskId: taskIds[0] ?? "", comment: "x" } as WorkflowAction, { actorId: "u-it-dir" });
    if (!r.ok) throw new Error(r.error.message);
    const again = reduce(r.value.world, { type: "comment", taskId: taskIds[0] ?? "", comment: "y" } as WorkflowAction, { actorId: "u-it-dir" });
    if (!again.ok) throw new Error(again.error.message);
    const cached = (v: JsonValue) => jsonParts(v).filter((p): p is Uint8Array => typeof p !== "string");
    expect(cached(r.value.response).length).toBeGreaterThan(0);
    expect(cached(again.value.response)).toEqual(cached(r.value.response));
    cached(again.value.response).forEach((bytes, i) => expect(bytes).toBe(cached(r.value.response)[i]));
  });

  it("a caller's text that spells the marker, next to shared JSON, is still written as JSON.stringify writes it", () => {
    fc.assert(
      fc.property(fc.jsonValue(), arbText, arbText, (a, text, key) => {
        const part = freezeJson(structuredClone(a) as JsonValue);
        markSharedJson(part);
        const doc = { [key]: text, first: part, list: [text, part, { [text]: part }], last: text } as JsonValue;
        const fresh = JSON.stringify(doc);
        expect(jsonText(doc)).toBe(fresh);
        expect(decode(jsonBytes(doc))).toBe(fresh);
        const buffers = new ReplyBuffers();
        expect(decode(buffers.bytes(doc))).toBe(JSON.stringify(withApiAliases(doc)));
      }),
    );
  });
});

describe("serve's dispatcher writes the bytes of the plain dispatcher", () => {
  const call = (target: string, body: string): IncomingCall => ({
    method: "POST",
    target,
    header: (name) => ({ authorization: "Bearer tok-super", "content-type": "application/json" })[name],
    readBody: () => Promise.resolve(ok(new TextEncoder().encode(body))),
  });

  it("for random Comment and Hard Reset sequences, reply for reply", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ reset: fc.boolean(), task: fc.nat(), comment: arbText }), { minLength: 1, maxLength: 8 }),
        async (steps) => {
          const plain = createDispatcher(createWorldStore(world));
          const buffers = new ReplyBuffers();
          const pooled = dispatcherWith(createWorldStore(world), {}, (v) => buffers.bytes(v));
          for (const s of steps) {
            const target = `/api/v1/tasks/${taskIds[s.task % taskIds.length] ?? ""}/action/${s.reset ? "reset" : "comment"}`;
            const body = JSON.stringify({ comment: s.comment });
            const a = await plain(call(target, body));
            const b = await pooled(call(target, body));
            expect(b.status).toBe(a.status);
            expect(decode(b.body)).toBe(decode(a.body));
            buffers.release(b.body);
          }
        },
      ),
      { numRuns: 30 },
    );
  });
});
