import { describe, expect, it } from "vitest";
import { sampleWorld } from "../../test/helpers.js";
import { comment } from "./comment.js";
import { hardReset } from "./hard-reset.js";

describe("a numeric taskId (CLI review: 'taskId is required' for hardReset(world, { taskId: 1001 }))", () => {
  it("says it must be a string, naming the string to pass", () => {
    const w = sampleWorld();
    for (const r of [hardReset(w, { taskId: 1001 } as never, { actorId: "u-it-dir" }), comment(w, { taskId: 1001, comment: "x" } as never, { actorId: "u-it-dir" })]) {
      expect(r.ok).toBe(false);
      if (!r.ok) expect([r.error.code, r.error.message]).toEqual(["INVALID_ARGUMENT", 'taskId must be a string: the task\'s id or numericId, such as "1001", not the number 1001']);
    }
  });
});
