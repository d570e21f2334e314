/**
 * Issue 14.10: someone who installed the package (no clone) gets the sample world and its policy
 * tests with `policy-sim init`, so the README's examples run; the package ships them.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadWorld } from "../world/load-world.js";
import { memoryIO } from "./memory-io.js";
import { EXIT, runCli } from "./run.js";

const disk = (p: string): string => readFileSync(p, "utf8");

describe("policy-sim init", () => {
  it("writes the sample world and its policy tests; the world loads and the tests pass", async () => {
    const io = memoryIO({ fallback: disk });
    expect(await runCli(["init", "--out", "mine/world.json"], io)).toBe(EXIT.ok);
    // The test cases beside the world (they went to the current folder), the schema found from there.
    expect([...io.written.keys()].sort()).toEqual(["mine/policy-tests/defaults.json", "mine/policy-tests/prod-admin.yaml", "mine/world.json"]);
    expect(io.out()).toContain("policy-sim test --world mine/world.json 'mine/policy-tests/*.{yaml,json}'");
    const world = io.written.get("mine/world.json") ?? "";
    expect(world).toContain('"$schema": "../node_modules/policy-sim/world.schema.json"');
    expect(loadWorld(JSON.parse(world)).ok).toBe(true);
    // The case file's own "# Run:" line names the files just written, not the repository's (newcomer review 3).
    expect(io.written.get("mine/policy-tests/prod-admin.yaml")).toContain("\n# Run: policy-sim test --world mine/world.json 'mine/policy-tests/*.{yaml,json}' --coverage\n");
    expect(io.written.get("mine/policy-tests/prod-admin.yaml")).not.toContain("fixtures/");
    const tests = memoryIO({ files: Object.fromEntries(io.written), fallback: disk });
    expect(await runCli(["test", "--world", "mine/world.json", "mine/policy-tests/prod-admin.yaml", "mine/policy-tests/defaults.json"], tests)).toBe(EXIT.ok);
  });

  it("a path with $ or a space stays that path in the printed commands and the # Run line, quoted for a shell (diff review)", async () => {
    const io = memoryIO({ fallback: disk });
    expect(await runCli(["init", "--out", "my w$&x/world.json"], io)).toBe(EXIT.ok);
    expect(io.written.get("my w$&x/policy-tests/prod-admin.yaml")).toContain("\n# Run: policy-sim test --world 'my w$&x/world.json' 'my w$&x/policy-tests/*.{yaml,json}' --coverage\n");
    expect(io.out()).toContain("next: policy-sim explain --world 'my w$&x/world.json' --task 1001\n");
  });

  it("does not overwrite without --force", async () => {
    const io = memoryIO({ files: { "world.json": "{}" }, fallback: disk });
    expect(await runCli(["init"], io)).toBe(EXIT.badInput);
    expect(io.err()).toContain("world.json already exists; --force overwrites");
    const forced = memoryIO({ files: { "world.json": "{}" }, fallback: disk });
    expect(await runCli(["init", "--force"], forced)).toBe(EXIT.ok);
    expect([...forced.written.keys()].sort()).toEqual(["policy-tests/defaults.json", "policy-tests/prod-admin.yaml", "world.json"]);
    expect(forced.written.get("world.json")).toContain('"$schema": "./node_modules/policy-sim/world.schema.json"');
  });

  it("the package ships the sample world, its tests and the world schema", () => {
    const pkg = JSON.parse(disk("package.json")) as { files: string[] };
    for (const f of ["fixtures/world.json", "fixtures/policy-tests", "world.schema.json"]) expect(pkg.files).toContain(f);
  });
});
