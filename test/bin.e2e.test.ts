/**
 * The published executable (bin/policy-sim.mjs over the built bundle), as a user who installed the
 * package runs it: CI builds before its second pass, where this runs (issue 14, "CLI points as e2e
 * tests on the built bin"). Skipped only where nothing is built yet.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..");
const BIN = join(ROOT, "bin/policy-sim.mjs");
const built = existsSync(join(ROOT, "dist/cli.js"));
const bin = (args: string[], cwd = ROOT) => spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
const scratch = mkdtempSync(join(tmpdir(), "policy-sim-bin-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.runIf(built)("bin/policy-sim.mjs (the built bundle)", () => {
  it("explain on the sample world", () => {
    const r = bin(["explain", "--world", "fixtures/world.json", "--task", "1001"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("Selected:");
  });

  it("--help | head -1 ends quietly", () => {
    const r = spawnSync("sh", ["-c", `"${process.execPath}" "${BIN}" --help | head -1`], { cwd: ROOT, encoding: "utf8" });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^policy-sim: /);
    expect(r.stderr).toBe("");
  });

  it("an unknown flag: exit 2 with the flag meant", () => {
    const r = bin(["explain", "--wrld", "fixtures/world.json"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("did you mean --world?");
  });

  it("init in an empty folder, then explain and test there, as a new user would", () => {
    expect(bin(["init"], scratch).status).toBe(0);
    expect(JSON.parse(readFileSync(join(scratch, "world.json"), "utf8"))).toMatchObject({ version: 1 });
    expect(bin(["explain", "--world", "world.json", "--task", "1001"], scratch).status).toBe(0);
    const t = bin(["test", "--world", "world.json", "policy-tests/*.{yaml,json}"], scratch);
    expect(t.stdout).toContain("Test Files  2 passed (2)");
    expect(t.status).toBe(0);
  });

  it("check-world and a YAML-driven test run with --coverage", () => {
    expect(bin(["check-world", "--world", "fixtures/world.json"]).stdout).toBe("ok: fixtures/world.json, no warnings\n");
    expect(bin(["test", "--world", "fixtures/world.json", "fixtures/policy-tests/prod-admin.yaml", "--coverage"]).stdout).toContain("Rule coverage over 4 tasks");
  });
});
