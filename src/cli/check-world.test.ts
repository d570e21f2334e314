import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { memoryIO } from "./memory-io.js";
import { EXIT, runCli } from "./run.js";

const disk = (p: string): string => readFileSync(p, "utf8");
const typo = (): string => {
  const w = JSON.parse(disk("fixtures/world.json")) as { users: Array<Record<string, unknown>> };
  w.users[0] = { ...w.users[0], managerId: "u-eng-mgr" };
  return JSON.stringify(w);
};
const run = async (argv: string[]) => {
  const io = memoryIO({ files: { "typo.json": typo() }, fallback: disk });
  const code = await runCli(argv, io);
  return { code, out: io.out(), err: io.err() };
};

describe("policy-sim check-world (issue 14.1)", () => {
  it("the sample world: ok, exit 0", async () => {
    const r = await run(["check-world", "--world", "fixtures/world.json"]);
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toBe("ok: fixtures/world.json, no warnings\n");
  });

  it("a typo: the warning with its path and the field meant; exit 0, or 1 with --strict", async () => {
    const r = await run(["check-world", "--world", "typo.json"]);
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toContain('warning UNKNOWN_FIELD_NEAR_KNOWN at $.users[0].managerId: unknown field "managerId" in a user (kept, but not used); did you mean "managerIds"?');
    expect(r.out).toContain("loads: typo.json, 1 warning");
    expect((await run(["check-world", "--world", "typo.json", "--strict"])).code).toBe(EXIT.findings);
  });

  it("lint --world lists the world's warnings first", async () => {
    const r = await run(["lint", "--world", "typo.json"]);
    expect(r.out).toMatch(/^world typo.json\n {2}warning UNKNOWN_FIELD_NEAR_KNOWN at \$\.users\[0\]\.managerId\n/);
    expect(r.out).not.toContain("no findings");
  });

  it("other commands print the warnings on stderr and go on", async () => {
    const r = await run(["explain", "--world", "typo.json", "--task", "1001"]);
    expect(r.err).toContain('typo.json: warning UNKNOWN_FIELD_NEAR_KNOWN at $.users[0].managerId');
    expect(r.out).toContain("Selected:");
  });
});
