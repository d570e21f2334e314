import fc from "fast-check";
import { describe, it } from "vitest";
import { FUZZ_TARGETS } from "../scripts/fuzz/targets.js";

// The same properties `npm run fuzz -- --runs N` runs at any count (issue 15.7), at a small count:
// no throw, a Result, frozen input untouched, byte-identical output twice.
describe("fuzz campaign, small count", () => {
  for (const target of FUZZ_TARGETS)
    it(`${target.name}: ${target.covers}`, () => {
      fc.assert(target.property(), { numRuns: 40 });
    });
});
