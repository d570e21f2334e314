import { describe, expect, it } from "vitest";
import { memoryIO } from "./memory-io.js";
import { progress, renderBar } from "./progress.js";

describe("renderBar", () => {
  it("fills in proportion, pads the count, clamps", () => {
    expect(renderBar(1, 4, 8)).toBe("[##......]  1/4   25%");
    expect(renderBar(0, 100, 4)).toBe("[....]    0/100    0%");
    expect(renderBar(100, 100, 4)).toBe("[####]  100/100  100%");
    expect(renderBar(7, 0, 4)).toBe("[....]  7/0    0%");
  });
});

describe("progress", () => {
  it("writes nothing when stderr is not a terminal", () => {
    const io = memoryIO({ stderrIsTTY: false });
    const p = progress(io, "whatif");
    p.phase("comparing");
    p.update(1, 2);
    p.end();
    expect(io.err()).toBe("");
  });

  it("on a terminal: redraws in place and erases the line at the end", () => {
    const io = memoryIO({ stderrIsTTY: true });
    const p = progress(io, "whatif");
    p.phase("routing");
    p.update(50, 100);
    p.end();
    expect(io.err()).toBe(`\rwhatif: routing\u001b[K\rwhatif: routing ${renderBar(50, 100)}\u001b[K\r\u001b[K`);
  });

  it("throttles redraws by the IO's clock, but always draws the last one", () => {
    let t = 0;
    const io = { ...memoryIO({ stderrIsTTY: true }), now: () => t };
    const lines: string[] = [];
    const p = progress({ ...io, stderr: (s: string) => void lines.push(s) }, "x");
    p.update(1, 10);
    t = 10;
    p.update(2, 10);
    t = 200;
    p.update(3, 10);
    p.update(10, 10);
    expect(lines.length).toBe(3);
  });
});
