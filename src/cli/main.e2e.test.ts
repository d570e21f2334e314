/**
 * The CLI as a process: `node --import tsx src/cli/main.ts …`, so the binding in main.ts (files,
 * streams, exit code, signals) is exercised, not only runCli.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const CLI = ["--import", "tsx", "src/cli/main.ts"];
const cli = (...args: string[]) => spawnSync(process.execPath, [...CLI, ...args], { encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });

describe("policy-sim as a process", () => {
  it("explain on the sample world: the explanation on stdout, exit 0", () => {
    const r = cli("explain", "--world", "fixtures/world.json", "--task", "1001");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Task 1001 "Grant /);
    expect(r.stdout).toContain("Selected: rule #2 of pol-prod-admin");
    // Not a terminal: no colours.
    expect(r.stdout).not.toContain("\u001b[");
    expect(r.stderr).toBe("");
  });

  it("issue 13: a second explain of a world is served from the cache with the same output, warnings included; a changed file is loaded again", () => {
    const dir = mkdtempSync(join(tmpdir(), "policy-sim-e2e-cache-"));
    try {
      const world = JSON.parse(readFileSync("fixtures/world.json", "utf8")) as { users: Record<string, unknown>[] };
      // A near-miss field name: a warning on stderr at every load.
      world.users[0]!["managerId"] = "u-x";
      const file = join(dir, "world.json");
      writeFileSync(file, JSON.stringify(world));
      const env = { ...process.env, NO_COLOR: "1", POLICY_SIM_CACHE_DIR: join(dir, "cache") };
      const explain = () => spawnSync(process.execPath, [...CLI, "explain", "--world", file, "--task", "1001"], { encoding: "utf8", env });
      const cold = explain();
      expect(cold.status).toBe(0);
      expect(cold.stderr).toContain("managerId");
      expect(readdirSync(join(dir, "cache"))).toHaveLength(1);
      const warm = explain();
      expect([warm.status, warm.stdout, warm.stderr]).toEqual([cold.status, cold.stdout, cold.stderr]);
      // The same file with the contractor moved to Security: the explanation follows the file.
      writeFileSync(file, JSON.stringify(world).replace('"employmentType":"Contractor"', '"employmentType":"Employee"'));
      const changed = explain();
      expect(changed.stdout).not.toBe(cold.stdout);
      expect(changed.stdout).not.toContain("Selected: rule #2 of pol-prod-admin");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("explain --json parses", () => {
    const r = cli("explain", "--world", "fixtures/world.json", "--task", "1001", "--json");
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ kind: "explanation", task: { numericId: "1001" } });
  });

  it("a missing world file: one line on stderr, exit 2, no stack trace", () => {
    const r = cli("explain", "--world", "does-not-exist.json", "--task", "1001");
    expect(r.status).toBe(2);
    expect(r.stderr).toBe("cannot read the world file does-not-exist.json: no such file\n");
    expect(r.stdout).toBe("");
  });

  it("reset --out that cannot be written (a directory, a missing directory, a full device): exit 2 naming the path and the reason, not 70", () => {
    const reset = (out: string) => cli("reset", "--world", "fixtures/world.json", "--task", "1022", "--as", "u-it-dir", "--out", out);
    const cases: [string, string][] = [
      ["/tmp", "cannot write --out /tmp: it is a directory (EISDIR); give a file path, such as /tmp/world.json\n"],
      ["/nonexistent/x.json", "cannot write --out /nonexistent/x.json: the directory /nonexistent does not exist (ENOENT); create it first, or choose a path in an existing directory\n"],
    ];
    if (existsSync("/dev/full")) cases.push(["/dev/full", "cannot write --out /dev/full: no space left on the device (ENOSPC); free some space, or write to another disk\n"]);
    for (const [out, message] of cases) {
      const r = reset(out);
      expect([r.status, r.stderr, r.stdout]).toEqual([2, message, ""]);
    }
  });

  it("serve --out in a directory that does not exist: exit 2 at start, not after the work", () => {
    const r = cli("serve", "--world", "fixtures/world.json", "--port", "0", "--out", "/nonexistent/dir/x.json");
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^cannot write --out \/nonexistent\/dir\/x\.json: the directory \/nonexistent\/dir does not exist \(ENOENT\)/);
    expect(r.stdout).toBe("");
  });

  it("lint of a broken policy exits 1", () => {
    const r = cli("lint", "--world", "fixtures/world.json", "--policy", "fixtures/broken/cel-type-error.json");
    expect(r.status).toBe(1);
    expect(r.stdout).toContain("CEL_TYPE_ERROR (CEL_UNDEFINED_FIELD) at $.rules[0].condition");
  });

  it("repl reads a script from a pipe and exits 0 at the end of input", () => {
    const r = spawnSync(process.execPath, [...CLI, "repl", "--world", "fixtures/world.json"], {
      input: 'explain("1001")\nreset("1022", { as: "u-it-dir" })\nworld.tasks.size\n',
      encoding: "utf8",
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("Selected: rule #2 of pol-prod-admin");
    expect(r.stdout).toContain("✓ Hard Reset of task 1022 by u-it-dir");
    expect(r.stdout).toMatch(/\n(policy-sim> )*59\n/);
  });

  it("serve prints its URL, answers, and stops cleanly on a real SIGINT", async () => {
    const child = spawn(process.execPath, [...CLI, "serve", "--world", "fixtures/world.json", "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    // Starting through tsx takes seconds on a busy machine: wait up to 30 s for the banner.
    for (let i = 0; i < 1500 && !out.includes("Ctrl-C") && child.exitCode === null; i++) await new Promise((r) => setTimeout(r, 20));
    const url = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
    expect(url, `stdout: ${out}\nstderr: ${err}`).toBeDefined();
    const res = await fetch(`${url ?? ""}/api/v1/tasks/1001/action/comment`, {
      method: "POST",
      headers: { authorization: "Bearer tok-contractor", "content-type": "application/json" },
      body: JSON.stringify({ comment: "e2e" }),
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    child.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(err).toMatch(/stopped on SIGINT after \d+ audit events?\n$/);
  });
});

describe("policy-sim in a pipeline", () => {
  it("a reader that closes the pipe early (--help | head -1) ends the command quietly: no EPIPE trace", () => {
    // The help is written in many writes; head exits after the first line, so later ones hit a closed pipe.
    for (let i = 0; i < 3; i++) {
      const r = spawnSync("sh", ["-c", `"${process.execPath}" --import tsx src/cli/main.ts --help | head -1`], { encoding: "utf8" });
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/^policy-sim: /);
      expect(r.stderr).not.toMatch(/EPIPE|Error|\n\s+at /);
    }
  });
});
