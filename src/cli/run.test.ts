import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadWorld } from "../world/load-world.js";
import { memoryIO } from "./memory-io.js";
import { EXIT, runCli } from "./run.js";

const disk = (p: string): string => readFileSync(p, "utf8");
const WORLD = "fixtures/world.json";
const sample = (): Record<string, unknown> => JSON.parse(disk(WORLD)) as Record<string, unknown>;
const io = (files: Record<string, string> = {}) => memoryIO({ files, fallback: disk });
const run = async (argv: string[], files: Record<string, string> = {}) => {
  const x = io(files);
  const code = await runCli(argv, x);
  return { code, out: x.out(), err: x.err(), written: x.written };
};
/** One line (or a few, for an invalid world), and never a stack trace. */
const expectCleanError = (err: string): void => {
  expect(err).not.toMatch(/^\s+at /m);
  expect(err).not.toMatch(/Error:/);
  expect(err.trim().length).toBeGreaterThan(0);
};

describe("runCli: help and the command line", () => {
  it("--help lists every command and exits 0; no arguments prints it and exits 2", async () => {
    const help = await run(["--help"]);
    expect(help.code).toBe(EXIT.ok);
    for (const c of ["explain", "reset", "comment", "check", "lint", "whatif", "simulate", "repl", "serve"]) expect(help.out).toContain(`  ${c} `);
    expect((await run([])).code).toBe(EXIT.badInput);
  });

  it("<cmd> --help and help <cmd> print the command's usage and flags, exit 0", async () => {
    for (const argv of [["lint", "--help"], ["help", "lint"], ["lint", "-h", "--bogus"]]) {
      const r = await run(argv);
      expect(r.code).toBe(EXIT.ok);
      expect(r.out).toContain("usage: policy-sim lint");
      expect(r.out).toContain("--policy <file>");
    }
    expect((await run(["help", "nope"])).code).toBe(EXIT.badInput);
  });

  it("an unknown command, an unknown flag, a stray argument: exit 2 with one line and the usage", async () => {
    const unknown = await run(["explian"]);
    expect(unknown.code).toBe(EXIT.badInput);
    expect(unknown.err).toMatch(/^unknown command "explian"; did you mean explain\? try: explain, /);

    const flag = await run(["explain", "--world", WORLD, "--task", "1001", "--colour"]);
    expect(flag.code).toBe(EXIT.badInput);
    expect(flag.err).toContain("unknown flag --colour");
    expect(flag.err).toContain("usage: policy-sim explain");
    expectCleanError(flag.err);

    const stray = await run(["explain", "--world", WORLD, "--task", "1001", "extra"]);
    expect(stray.code).toBe(EXIT.badInput);
    expect(stray.err).toMatch(/^unexpected argument "extra"/);
  });

  it("--json with bad input prints { error: { code: BAD_INPUT, message } } on stdout too", async () => {
    const r = await run(["explain", "--world", WORLD, "--json"]);
    expect(r.code).toBe(EXIT.badInput);
    expect(JSON.parse(r.out)).toEqual({ error: { code: "BAD_INPUT", message: "--task <id|numericId> is required (or --subject and --entitlement for a request that does not exist yet)" } });
  });
});

describe("--json errors of the command itself go to stderr as well (README: \"Errors are one line on stderr\"; newcomer review 2: only stdout had them)", () => {
  it("explain of a task that does not exist, and a refused reset", async () => {
    const missing = await run(["explain", "--world", WORLD, "--task", "9999", "--json"]);
    expect(missing.code).toBe(EXIT.badInput);
    expect(JSON.parse(missing.out)).toMatchObject({ error: { code: "NOT_FOUND" } });
    expect(missing.err).toMatch(/^NOT_FOUND: .*9999.*\n$/);
    const refused = await run(["reset", "--world", WORLD, "--task", "1022", "--as", "u-dev1", "--json"]);
    expect(refused.code).toBe(EXIT.findings);
    const body = JSON.parse(refused.out) as { error: { code: string; message: string } };
    expect(refused.err).toBe(`${body.error.code}: ${body.error.message}\n`);
  });
});

describe("runCli: world files", () => {
  it("a missing world file: one line naming it, no usage, exit 2", async () => {
    const r = await run(["explain", "--world", "nope.json", "--task", "1001"]);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.err).toBe("cannot read the world file nope.json: no such file\n");
  });

  it("a world file that is not JSON: exit 2 with the parser's reason", async () => {
    const r = await run(["explain", "--world", "w.json", "--task", "1001"], { "w.json": "{ nope" });
    expect(r.code).toBe(EXIT.badInput);
    expect(r.err).toMatch(/^the world file w\.json is not JSON: /);
    expectCleanError(r.err);
  });

  it("a world with problems: the first five diagnostics with their JSON paths, and how many more", async () => {
    const w = sample();
    const tasks = w["tasks"] as Record<string, unknown>[];
    tasks.slice(0, 7).forEach((t) => (t["userId"] = "u-ghost"));
    const r = await run(["explain", "--world", "w.json", "--task", "1001"], { "w.json": JSON.stringify(w) });
    expect(r.code).toBe(EXIT.badInput);
    const lines = r.err.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^w\.json is not a valid world \(\d+ problems\):$/);
    expect(lines[1]).toMatch(/^ {2}\$\.tasks\[0\]\.userId: .*u-ghost/);
    expect(lines.slice(1, 6).every((l) => l.startsWith("  $."))).toBe(true);
    expect(lines[6]).toMatch(/^ {2}… and \d+ more$/);
    expectCleanError(r.err);
  });

  it("a world that is not an object", async () => {
    const r = await run(["check", "true"]);
    expect(r.code).toBe(EXIT.ok);
    const bad = await run(["explain", "--world", "w.json", "--task", "1"], { "w.json": "[]" });
    expect(bad.err).toBe("w.json is not a valid world (1 problem):\n  $: a world file is a JSON object\n");
  });
});

describe("runCli explain", () => {
  it("explains task 1001 by numeric id: exit 0, the selected rule", async () => {
    const r = await run(["explain", "--world", WORLD, "--task", "1001"]);
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toMatch(/^Task 1001 /);
    expect(r.out).toContain("Selected: rule #2 of pol-prod-admin");
    expect(r.out).not.toContain("\u001b[");
  });

  it("--json is the Explanation", async () => {
    const r = await run(["explain", "--world", WORLD, "--task", "1001", "--json"]);
    const e = JSON.parse(r.out) as { kind: string; task: { numericId: string }; result: { kind: string; policyId: string } };
    expect(e.kind).toBe("explanation");
    expect(e.task.numericId).toBe("1001");
    expect(e.result).toMatchObject({ kind: "selected", policyId: "pol-prod-admin" });
  });

  it("a task that does not exist: NOT_FOUND, exit 2 (and the error as JSON with --json)", async () => {
    const r = await run(["explain", "--world", WORLD, "--task", "9999"]);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.err).toMatch(/^NOT_FOUND: /);
    const j = await run(["explain", "--world", WORLD, "--task", "9999", "--json"]);
    expect((JSON.parse(j.out) as { error: { code: string } }).error.code).toBe("NOT_FOUND");
  });

  it("no steps can be selected (references disabled under a baselinePolicyId): exit 1", async () => {
    const w = sample();
    (w["tenant"] as { featureFlags: Record<string, boolean> }).featureFlags["POLICY_REFERENCES_POLICY"] = false;
    const ent = (w["entitlements"] as { id: string; appId: string; grantPolicyId: string }[]).find((e) => e.id === "ent-aws-prod-db" && e.appId === "app-aws");
    if (!ent) throw new Error("fixture changed: ent-aws-prod-db");
    ent.grantPolicyId = "pol-prod-admin-eng";
    const r = await run(["explain", "--world", "w.json", "--task", "1003"], { "w.json": JSON.stringify(w) });
    expect(r.code).toBe(EXIT.findings);
    expect(r.out).toContain("REFERENCES_DISABLED");
  });
});

describe("runCli reset and comment", () => {
  it("reset as a super admin: the endpoint's body on stdout, the event count on stderr, exit 0", async () => {
    const r = await run(["reset", "--world", WORLD, "--task", "1022", "--as", "u-it-dir", "--comment", "re-route"]);
    expect(r.code).toBe(EXIT.ok);
    const body = JSON.parse(r.out) as { ticketActionId: string; taskView: unknown };
    expect(body.ticketActionId).toMatch(/^evt-/);
    expect(r.err).toMatch(/^\d+ audit event\(s\)\n$/);
  });

  it("reset --out writes a world that loads, with the task on its new policy; --json has response and events", async () => {
    const r = await run(["reset", "--world", WORLD, "--task", "1022", "--as", "u-it-dir", "--out", "after.json", "--json"]);
    expect(r.code).toBe(EXIT.ok);
    const j = JSON.parse(r.out) as { response: { ticketActionId: string }; events: { kind: string }[] };
    expect(Object.keys(j)).toEqual(["response", "events"]);
    expect(j.events.map((e) => e.kind)).toContain("policyChanged");
    const after = loadWorld(JSON.parse(r.written.get("after.json") ?? "null"));
    expect(after.ok).toBe(true);
    if (after.ok) expect(after.value.tasks.get([...after.value.tasks.entries()].find(([, t]) => t.numericId === "1022")?.[0] ?? "")?.policy?.policy?.id).toBe("pol-security-sensitive");
  });

  it("reset by a plain user is refused: PERMISSION_DENIED, exit 1", async () => {
    const r = await run(["reset", "--world", WORLD, "--task", "1022", "--as", "u-dev1"]);
    expect(r.code).toBe(EXIT.findings);
    expect(r.err).toMatch(/^PERMISSION_DENIED: /);
    const j = await run(["reset", "--world", WORLD, "--task", "1022", "--as", "u-dev1", "--json"]);
    expect(JSON.parse(j.out)).toMatchObject({ error: { code: "PERMISSION_DENIED" } });
  });

  it("reset of a task that does not exist: exit 2; without --as: exit 2 with the usage", async () => {
    expect((await run(["reset", "--world", WORLD, "--task", "9999", "--as", "u-it-dir"])).code).toBe(EXIT.badInput);
    const r = await run(["reset", "--world", WORLD, "--task", "1022"]);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.err).toContain("--as <userId> is required");
    expect(r.err).toContain("usage: policy-sim reset");
  });

  it("comment by the requester: exit 0; by a stranger: exit 1", async () => {
    const ok = await run(["comment", "--world", WORLD, "--task", "1001", "--as", "u-contractor", "--comment", "Needed for Q4"]);
    expect(ok.code).toBe(EXIT.ok);
    expect(JSON.parse(ok.out)).toHaveProperty("taskView");
    const refused = await run(["comment", "--world", WORLD, "--task", "1001", "--as", "u-dev1", "--comment", "hi"]);
    expect(refused.code).toBe(EXIT.findings);
    expect(refused.err).toMatch(/^PERMISSION_DENIED: /);
  });
});

describe("runCli check", () => {
  it("a condition that type-checks: exit 0; a typo: exit 1 with a caret; nothing: exit 2", async () => {
    expect((await run(["check", 'subject.department == "Engineering"'])).code).toBe(EXIT.ok);
    const typo = await run(["check", 'subject.departmnt == "Engineering"']);
    expect(typo.code).toBe(EXIT.findings);
    expect(typo.out).toContain("^^^^^^^^^");
    expect((await run(["check"])).code).toBe(EXIT.badInput);
  });

  it("says when an expression that checks runs interpreted instead of compiled, and where (issue 16)", async () => {
    const compiled = await run(["check", "--json", 'subject.department == "Engineering"']);
    expect(JSON.parse(compiled.out)).toEqual({ diagnostics: [], evaluation: { evaluation: "compiled" } });
    const bound = await run(["check", 'subject.profile.?clearance.orValue("") == "high"']);
    expect(bound.code).toBe(EXIT.ok);
    expect(bound.out).toContain("note: runs on the cel-js interpreter, not compiled (optional values (orValue) at 1:1 is not in the compiled subset)");
  });

  it("--json: { diagnostics } with codes and locations", async () => {
    const r = await run(["check", "--json", "subject.departmnt == 'x'"]);
    const j = JSON.parse(r.out) as { diagnostics: { code: string; line: number; column: number }[] };
    expect(j.diagnostics[0]).toMatchObject({ code: "CEL_UNDEFINED_FIELD", line: 1, column: 9 });
  });

  it("--env checks in the named environment (product_admin_entitlement-config-rules.mdx, product_admin_expressions.mdx)", async () => {
    const rule = 'entitlement.role.display_name.contains("Admin")';
    expect(await run(["check", "--env", "config-rule", rule])).toMatchObject({ code: EXIT.ok });
    expect((await run(["check", "--env", "config-rule", 'subject.department == "IT"'])).code).toBe(EXIT.findings);
    expect((await run(["check", "--env", "approver", "c1.directory.users.v1.GetManagers(subject)"])).code).toBe(EXIT.ok);
    expect((await run(["check", "c1.directory.users.v1.GetManagers(subject)"])).code).toBe(EXIT.findings);
    expect((await run(["check", "--env", "groups", "true"])).code).toBe(EXIT.badInput);
  });

  it("an empty configuration rule condition is the catch-all rule (product_admin_entitlement-config-rules.mdx: \"Leave the condition empty\")", async () => {
    const r = await run(["check", "--env", "config-rule", ""]);
    expect(r).toMatchObject({ code: EXIT.ok });
    expect(r.out).toContain("catch-all");
    expect(JSON.parse((await run(["check", "--json", "--env", "config-rule", " "])).out)).toEqual({ diagnostics: [] });
    // A policy rule condition has no such meaning: nothing to check is a usage error.
    expect((await run(["check", ""])).code).toBe(EXIT.badInput);
    expect((await run(["check", "--env", "config-rule"])).code).toBe(EXIT.badInput);
  });

  it("after --, --help is part of the condition, not a request for help", async () => {
    const r = await run(["check", "--", "--help"]);
    expect(r.out).not.toContain("usage:");
    expect(r.code).toBe(EXIT.findings);
  });
});

describe("runCli repl", () => {
  it("runs a session on the IO's streams and exits 0 at the end of input", async () => {
    const { PassThrough } = await import("node:stream");
    const stdin = new PassThrough();
    const output = new PassThrough();
    let text = "";
    output.on("data", (c: Buffer) => (text += c.toString()));
    const x = memoryIO({ fallback: disk, stdin, output });
    const done = runCli(["repl", "--world", WORLD], x);
    stdin.end('task("1001").data.numericId\n');
    expect(await done).toBe(EXIT.ok);
    expect(text).toContain("policy-sim REPL on fixtures/world.json");
    expect(text).toContain("'1001'");
  });

  it("without streams (embedded), or without a world: exit 2", async () => {
    const r = await run(["repl", "--world", WORLD]);
    expect([r.code, r.err.split("\n")[0]]).toEqual([EXIT.badInput, "repl needs an interactive input and output"]);
    expect((await run(["repl"])).code).toBe(EXIT.badInput);
  });
});

describe("runCli reset and comment: a mistyped --as (CLI review: exit 1, as a refusal, while a mistyped --subject was 2)", () => {
  it("is bad input, exit 2, with the user it probably meant; nothing is written", async () => {
    for (const cmd of ["reset", "comment"]) {
      const r = await run([cmd, "--world", "fixtures/world.json", "--task", "1001", "--as", "u-it-dri", "--comment", "x", "--out", "after.json"]);
      expect(r.code).toBe(EXIT.badInput);
      expect(r.err).toContain("--as u-it-dri: no such user in the world; did you mean u-it-dir?");
    }
  });
});
