import { describe, expect, it } from "vitest";
import { sampleWorld } from "../../test/helpers.js";
import type { World } from "../world/world.js";
import { ruleCoverage } from "./coverage.js";

describe("ruleCoverage given what is not a World or not a list (hostile-input review: it threw a bare TypeError from inside)", () => {
  it("throws a TypeError that says what to pass, as the README says of helpers taking loaded model objects", () => {
    expect(() => ruleCoverage(null as unknown as World, [])).toThrow(/^ruleCoverage: world must be a World \(load it with loadWorld first\)/);
    expect(() => ruleCoverage({} as World, [])).toThrow(TypeError);
    expect(() => ruleCoverage(sampleWorld(), null as never)).toThrow(/^ruleCoverage: inputs must be an iterable/);
    expect(ruleCoverage(sampleWorld(), []).policies.length).toBe(sampleWorld().policies.length);
  });
});
