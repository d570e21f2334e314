/**
 * The published executable (bin/policy-sim.mjs over the built bundle), as a user who installed the
 * package runs it: CI builds before its second pass, where this runs (issue 14, "CLI points as e2e
 * tests on the built bin"). Skipped only where nothing is built yet.
 */
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
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

  it("an endless input file (/dev/zero as a plan, an edit or a policy) is refused at 256 MiB with exit 2, not read until memory runs out (hostile review: 10 GB)", () => {
    for (const args of [
      ["whatif", "--world", "fixtures/world.json", "--terraform-plan", "/dev/zero"],
      ["whatif", "--world", "fixtures/world.json", "--edit", "/dev/zero"],
      ["lint", "--policy", "/dev/zero"],
    ]) {
      const r = bin(args);
      expect(r.status, args.join(" ")).toBe(2);
      expect(r.stderr).toMatch(/file \/dev\/zero is larger than 256 MiB/);
    }
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

  it("test --watch runs again after a save that replaces the file (sed -i, vim) and when a file is added under a glob", async () => {
    const dir = join(scratch, "watched");
    mkdirSync(dir, { recursive: true });
    const pass = '- name: contractor\n  task: "1001"\n  expect: { rule: 2 }\n';
    writeFileSync(join(dir, "a.yaml"), pass);
    const child = spawn(process.execPath, [BIN, "test", "--world", join(ROOT, "fixtures/world.json"), `${dir}/**/*.yaml`, "--watch"], { cwd: ROOT, env: { ...process.env, NO_COLOR: "1" } });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    const runs = () => out.split("watching ").length - 1;
    const until = async (n: number) => {
      for (let i = 0; i < 100 && runs() < n; i++) await new Promise((r) => setTimeout(r, 100));
      return runs();
    };
    try {
      expect(await until(1)).toBe(1);
      // Replaced by rename, twice: each save is seen, the second too.
      for (const n of [2, 3]) {
        writeFileSync(join(dir, "a.tmp"), pass.replace("rule: 2", `rule: ${n}`));
        renameSync(join(dir, "a.tmp"), join(dir, "a.yaml"));
        expect(await until(n)).toBe(n);
      }
      // A new file under the glob's folder is run from then on, in a new subfolder too (`**`).
      copyFileSync(join(dir, "a.yaml"), join(dir, "b.yaml"));
      expect(await until(4)).toBe(4);
      expect(out.slice(out.lastIndexOf("Test Files"))).toContain("(2)");
      mkdirSync(join(dir, "later"));
      copyFileSync(join(dir, "a.yaml"), join(dir, "later", "c.yaml"));
      expect(await until(6)).toBeGreaterThanOrEqual(5);
      await new Promise((r) => setTimeout(r, 300));
      expect(out.slice(out.lastIndexOf("Test Files"))).toContain("(3)");
    } finally {
      child.kill("SIGINT");
    }
  }, 30_000);
});
