import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadWorld } from "../world/load-world.js";
import { memoryIO } from "./memory-io.js";
import { EXIT, runCli } from "./run.js";
import { scriptWorld } from "./simulate.js";

const disk = (p: string): string => readFileSync(p, "utf8");
const SCRIPT = "fixtures/scenarios/emergency-request.json";
const run = async (argv: string[], files: Record<string, string> = {}) => {
  const io = memoryIO({ files, fallback: disk });
  const code = await runCli(argv, io);
  return { code, out: io.out(), err: io.err(), written: io.written };
};
const script = (): { steps: { check?: { taskId?: string; state?: string }[] }[]; world?: string } => JSON.parse(disk(SCRIPT)) as ReturnType<typeof script>;

describe("policy-sim simulate", () => {
  it("runs a scenario on the world it names: every frame on stdout, the verdict on stderr, exit 0", async () => {
    const r = await run(["simulate", "--script", SCRIPT]);
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toMatch(/^scenario emergency-request: 5 steps, 0 failures\n#1 2026-11-22T09:01:00Z u-contractor escalateToEmergencyAccess 1001 → ok/);
    expect(r.out).toContain("CLOSED GRANT_OUTCOME_GRANTED");
    expect(r.err).toBe("every expectation and check holds\n");
  });

  it("--world overrides the script's world; --out writes the world after the last step", async () => {
    const r = await run(["simulate", "--world", "fixtures/world.json", "--script", SCRIPT, "--out", "after.json"]);
    expect(r.code).toBe(EXIT.ok);
    expect(r.err).toBe("every expectation and check holds; world written to after.json\n");
    const after = loadWorld(JSON.parse(r.written.get("after.json") ?? "null"));
    expect(after.ok && [...after.value.tasks.values()].find((t) => t.numericId === "1001")?.state).toBe("TASK_STATE_CLOSED");
  });

  it("--json is the encoded run; --worlds final adds the final world", async () => {
    const r = await run(["simulate", "--script", SCRIPT, "--json"]);
    const j = JSON.parse(r.out) as { name: string; failures: string[]; frames: { index: number; ok: boolean }[] };
    expect(j.name).toBe("emergency-request");
    expect(j.failures).toEqual([]);
    expect(j.frames.map((f) => f.index)).toEqual([0, 1, 2, 3, 4, 5]);
    const withWorld = JSON.parse((await run(["simulate", "--script", SCRIPT, "--json", "--worlds", "final"])).out) as Record<string, unknown>;
    expect(Object.keys(withWorld).length).toBeGreaterThan(Object.keys(j).length);
  });

  it("an unmet check: FAILED in the frame, the count on stderr, exit 1", async () => {
    const s = script();
    const check = s.steps[0]?.check?.[0];
    if (!check) throw new Error("fixture changed: the first step has no check");
    check.state = "TASK_STATE_CLOSED";
    s.world = "fixtures/world.json";
    const r = await run(["simulate", "--script", "s.json"], { "s.json": JSON.stringify(s) });
    expect(r.code).toBe(EXIT.findings);
    expect(r.out).toContain("    FAILED ");
    expect(r.err).toBe("1 failure\n");
  });

  it("bad input: no --script, a script without a world, a script that does not decode, bad --worlds", async () => {
    expect((await run(["simulate"])).err).toMatch(/^--script <file> is required/);
    const noWorld = await run(["simulate", "--script", "s.json"], { "s.json": '{ "steps": [] }' });
    expect([noWorld.code, noWorld.err.split("\n")[0]]).toEqual([EXIT.badInput, "--world <file> is required (the script names no world of its own)"]);
    const bad = await run(["simulate", "--world", "fixtures/world.json", "--script", "s.json"], { "s.json": '{ "steps": [{ "action": { "type": "fly" } }] }' });
    expect(bad.code).toBe(EXIT.badInput);
    expect(bad.err).toMatch(/^INVALID_ARGUMENT: /);
    expect((await run(["simulate", "--script", SCRIPT, "--worlds", "some"])).code).toBe(EXIT.badInput);
    expect((await run(["simulate", "--script", "nope.json"])).err).toBe("cannot read the script file nope.json: no such file\n");
  });

  it("scriptWorld resolves the script's world against the script's folder", () => {
    expect(scriptWorld({ world: "../world.json" }, "fixtures/scenarios/x.json")).toBe("fixtures/world.json");
    expect(scriptWorld({ world: "/abs/w.json" }, "x/y.json")).toBe("/abs/w.json");
    expect(scriptWorld({}, "x.json")).toBeUndefined();
    expect(scriptWorld([], "x.json")).toBeUndefined();
  });
});
