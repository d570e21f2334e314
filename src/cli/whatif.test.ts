import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadWorld } from "../world/load-world.js";
import { memoryIO } from "./memory-io.js";
import { EXIT, runCli } from "./run.js";
import { decodePolicies, scopeOf, whatIfBinding } from "./whatif.js";

const disk = (p: string): string => readFileSync(p, "utf8");
const WORLD = "fixtures/world.json";
type Wire = Record<string, unknown> & { id: string; rules: unknown[] };
const policies = (JSON.parse(disk(WORLD)) as { policies: Wire[] }).policies;
const policy = (id: string): Wire => {
  const p = policies.find((x) => x.id === id);
  if (!p) throw new Error(`fixture changed: ${id}`);
  return structuredClone(p);
};
/** pol-prod-admin without rule #2 (contractors on critical entitlements): task 1001 re-routes. */
const withoutRule2 = (): Wire => {
  const p = policy("pol-prod-admin");
  p.rules.splice(2, 1);
  return p;
};
const run = async (argv: string[], files: Record<string, string> = {}, tty = false) => {
  const io = memoryIO({ files, fallback: disk, stderrIsTTY: tty });
  const code = await runCli(argv, io);
  return { code, out: io.out(), err: io.err() };
};

interface WhatIfJson {
  kind: string;
  counts: { inWorld: number; inScope: number; changed: number; unchanged: number };
  changed: { numericId: string; changes: string[]; before: { kind: string; policyId: string }; after: { kind: string } }[];
  summary: { before: string; after: string; count: number; taskIds: string[] }[];
}

describe("policy-sim whatif", () => {
  it("an edit that re-routes a task: the summary by before → after, the changed task, exit 1", async () => {
    const r = await run(["whatif", "--world", WORLD, "--edit", "e.json"], { "e.json": JSON.stringify(withoutRule2()) });
    expect(r.code).toBe(EXIT.findings);
    const lines = r.out.split("\n");
    expect(lines.slice(0, 3)).toEqual(["Scope: open tasks", "Edit: policies pol-prod-admin", "Tasks: 37 in scope of 59; 1 changed, 36 unchanged"]);
    expect(r.out).toContain("By route (before → after):\n       1  pol-prod-admin (entitlement): rule #2 → 5650fd2e-");
    expect(r.out).toContain("[chain, decidedBy, steps, approvers]");
    expect(r.out).toContain('Changed tasks:\n  1001 "Grant ');
    expect(r.out).toContain("first step: approval by manager → u-sre-lead");
    expect(r.err).toBe("");
  });

  it("an edit the service would refuse to save exits 1 though no task re-routes (README exit codes: 1 on a lint error; a Terraform apply would fail) (Terraform review M1)", async () => {
    const p = policy("pol-prod-admin");
    p.rules.push({ condition: 'subject.departmnet == "x"', stepKey: (p.rules[0] as { stepKey: string }).stepKey });
    const r = await run(["whatif", "--world", WORLD, "--edit", "e.json"], { "e.json": JSON.stringify(p) });
    expect(r.out).toContain("0 changed");
    expect(r.out).toContain("the service would refuse to save this edit (1 error)");
    expect(r.code).toBe(EXIT.findings);
  });

  it("--json is the WhatIfResult", async () => {
    const r = await run(["whatif", "--world", WORLD, "--edit", "e.json", "--json", "--state", "all"], { "e.json": JSON.stringify([withoutRule2()]) });
    const j = JSON.parse(r.out) as WhatIfJson;
    expect(j.kind).toBe("whatIf");
    expect(j.counts).toMatchObject({ inWorld: 59, inScope: 59, changed: 1 });
    expect(j.changed[0]).toMatchObject({ numericId: "1001", before: { kind: "route", policyId: "pol-prod-admin" } });
    expect(j.summary).toHaveLength(1);
    expect(j.summary[0]?.count).toBe(1);
  });

  it("no change in scope: exit 0; an unchanged policy: exit 0", async () => {
    const r = await run(["whatif", "--world", WORLD, "--edit", "e.json", "--type", "revoke,certify"], { "e.json": JSON.stringify(withoutRule2()) });
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toMatch(/^Scope: open tasks of type revoke, certify\n/);
    expect(r.out).toContain("; 0 changed, ");
    expect((await run(["whatif", "--world", WORLD, "--edit", "e.json"], { "e.json": JSON.stringify(policy("pol-prod-admin")) })).code).toBe(EXIT.ok);
  });

  it("--app and --task narrow the scope", async () => {
    const files = { "e.json": JSON.stringify(withoutRule2()) };
    const app = JSON.parse((await run(["whatif", "--world", WORLD, "--edit", "e.json", "--app", "app-github", "--json"], files)).out) as WhatIfJson;
    expect(app.counts.changed).toBe(0);
    const task = JSON.parse((await run(["whatif", "--world", WORLD, "--edit", "e.json", "--task", "1001,1002", "--json"], files)).out) as WhatIfJson;
    expect(task.counts).toMatchObject({ inScope: 2, changed: 1 });
  });

  it("a policy the world does not have: an error (issue 14.2: it would reach nothing)", async () => {
    const p = withoutRule2();
    p.id = "pol-typo";
    const r = await run(["whatif", "--world", WORLD, "--edit", "e.json"], { "e.json": JSON.stringify(p) });
    expect(r.code).toBe(EXIT.badInput);
    expect(r.err).toBe('e.json: the world has no policy "pol-typo"; --edit replaces the world\'s policies by id\n');
  });

  it("on a terminal, a phase message on stderr that is erased before the report", async () => {
    const r = await run(["whatif", "--world", WORLD, "--edit", "e.json"], { "e.json": JSON.stringify(withoutRule2()) }, true);
    expect(r.err).toBe("\rwhatif: comparing routes of 59 tasks before and after the edit…\u001b[K\r\u001b[K");
  });

  it("bad input: no --edit, a missing or non-JSON edit, a policy without id, bad --state or --type", async () => {
    expect((await run(["whatif", "--world", WORLD])).code).toBe(EXIT.badInput);
    const missing = await run(["whatif", "--world", WORLD, "--edit", "nope.json"]);
    expect([missing.code, missing.err]).toEqual([EXIT.badInput, "cannot read the edit file nope.json: no such file\n"]);
    expect((await run(["whatif", "--world", WORLD, "--edit", "e.json"], { "e.json": "{" })).err).toMatch(/^the edit file e\.json is not JSON/);
    const noId = await run(["whatif", "--world", WORLD, "--edit", "e.json", "--json"], { "e.json": "[{}]" });
    expect(noId.code).toBe(EXIT.badInput);
    expect(noId.err).toBe("e.json is not a valid policy (or array of policies):\n  $[0].id: a replacement policy needs the id of the policy it replaces\n");
    expect(JSON.parse(noId.out)).toMatchObject({ error: { code: "BAD_INPUT" } });
    const state = await run(["whatif", "--world", WORLD, "--edit", "e.json", "--state", "pending"], { "e.json": "{}" });
    expect(state.err).toMatch(/^--state must be open, closed, all or a TASK_STATE_… name, not "pending"\nusage: /);
    expect((await run(["whatif", "--world", WORLD, "--edit", "e.json", "--type", "grnat"], { "e.json": "{}" })).err).toMatch(/^--type must be among grant, /);
  });
});

describe("whatif --state with a TASK_STATE_… name", () => {
  it("refuses one neither this version nor the world knows (a typo selects nothing); takes one the world's tasks carry", async () => {
    const edit = { "e.json": JSON.stringify(withoutRule2()) };
    const typo = await run(["whatif", "--world", WORLD, "--edit", "e.json", "--state", "TASK_STATE_CLOSD"], edit);
    expect(typo.code).toBe(EXIT.badInput);
    expect(typo.err).toMatch(/^--state must be open, closed, all or one of TASK_STATE_UNSPECIFIED, TASK_STATE_OPEN, TASK_STATE_CLOSED, not "TASK_STATE_CLOSD"/);
    const newer = JSON.parse(disk(WORLD)) as { tasks: { numericId: string; state: string }[] };
    const t = newer.tasks.find((x) => x.numericId === "1001");
    if (!t) throw new Error("fixture changed: 1001");
    t.state = "TASK_STATE_ADDED_LATER";
    const later = await run(["whatif", "--world", "w.json", "--edit", "e.json", "--state", "TASK_STATE_ADDED_LATER", "--json"], { ...edit, "w.json": JSON.stringify(newer) });
    expect(later.code).not.toBe(EXIT.badInput);
    expect((JSON.parse(later.out) as WhatIfJson).counts.inScope).toBe(1);
  });
});

describe("scopeOf and decodePolicies", () => {
  it("maps the flags to a TaskScope", () => {
    expect(scopeOf({})).toEqual({});
    expect(scopeOf({ state: ["all"] })).toEqual({ states: "any" });
    expect(scopeOf({ state: ["open,closed"], type: ["grant", "Revoke"], app: ["a,b"], task: ["1001"] })).toEqual({
      states: ["TASK_STATE_OPEN", "TASK_STATE_CLOSED"],
      types: ["grant", "revoke"],
      appIds: ["a", "b"],
      taskIds: ["1001"],
    });
    expect(scopeOf({ state: ["TASK_STATE_CLOSED"] })).toEqual({ states: ["TASK_STATE_CLOSED"] });
  });

  it("decodes one policy or an array; problems carry paths into the document", () => {
    expect(decodePolicies(policy("pol-prod-admin")).ok).toBe(true);
    expect(decodePolicies([]).ok).toBe(false);
    const r = decodePolicies([policy("pol-prod-admin"), { id: "" }]);
    expect(r.ok ? [] : r.error).toEqual(["$[1].id: a replacement policy needs the id of the policy it replaces"]);
    // A world file where a policy belongs (newcomer review: it said the policy had no id).
    const world = decodePolicies({ version: 1, policies: [], tasks: [] });
    expect(world.ok ? [] : world.error[0]).toMatch(/^\$: this is a world file; --edit takes a policy/);
  });
});

describe("whatIfBinding (the REPL's whatIf)", () => {
  const loaded = loadWorld(JSON.parse(disk(WORLD)));
  if (!loaded.ok) throw new Error("the sample world does not load");
  it("runs on the given world with the CLI's options as an object", () => {
    const shown = whatIfBinding(loaded.value, withoutRule2(), { state: "all", type: "grant" });
    expect(shown.ok).toBe(true);
    expect(String(shown)).toMatch(/^Scope: tasks in any state of type grant\nEdit: policies pol-prod-admin\n/);
    expect((shown.data as { counts: { changed: number } }).counts.changed).toBe(1);
    expect(String(whatIfBinding(loaded.value, withoutRule2(), { state: "later" }))).toMatch(/^✗ INVALID_ARGUMENT: state must be/);
    expect(String(whatIfBinding(loaded.value, withoutRule2(), { app: "app-nope" }))).toMatch(/^✗ INVALID_ARGUMENT: app: the world has no app "app-nope"/);
  });

  it("refuses an option it does not take, or of the wrong type, as explain and reset do (REPL review: { stat: \"all\" } ran over open tasks only)", () => {
    const said = (options: unknown): string => String(whatIfBinding(loaded.value, withoutRule2(), options));
    expect(said({ stat: "all", apps: "app-github" })).toBe('✗ INVALID_ARGUMENT: unknown option "stat"; did you mean "state"? (whatIf takes state, type, app, task)');
    expect(said({ apps: "app-github" })).toMatch(/^✗ INVALID_ARGUMENT: unknown option "apps"; did you mean "app"\?/);
    expect(said({ taskIds: ["1001"] })).toMatch(/did you mean "task"\?/);
    expect(said(5)).toMatch(/^✗ INVALID_ARGUMENT: the options are an object such as \{ state: "all", type: "grant" \}, not 5/);
    expect(said(["all"])).toMatch(/^✗ INVALID_ARGUMENT: the options are an object/);
    expect(said({ type: 5 })).toBe("✗ INVALID_ARGUMENT: type is a string or a list of strings, not 5");
    // A key that only looks like an alias through Object.prototype gets no odd suggestion; inherited options are not options.
    expect(said({ constructor: "x" })).toMatch(/^✗ INVALID_ARGUMENT: unknown option "constructor" \(whatIf takes/);
    expect(String(whatIfBinding(loaded.value, withoutRule2(), Object.create({ state: "closed" })))).toMatch(/^Scope: open tasks\n/);
    expect(String(whatIfBinding(loaded.value, withoutRule2(), { state: "all", type: undefined }))).toMatch(/^Scope: tasks in any state\n/);
    // None, undefined or null: the CLI's defaults (open tasks of every type).
    for (const none of [undefined, null, {}]) expect(String(whatIfBinding(loaded.value, withoutRule2(), none))).toMatch(/^Scope: open tasks\n/);
  });
});

describe("why a task whatif lists changes: explain --edit / --terraform-plan (embedder and platform reviews)", () => {
  it("whatif's text ends with the explain command for the first changed task; explain --edit explains it in the edited world", async () => {
    const files = { "e.json": JSON.stringify(withoutRule2()) };
    const w = await run(["whatif", "--world", WORLD, "--edit", "e.json"], files);
    expect(w.out.trimEnd().split("\n").at(-1)).toBe(
      "Why a task changes, rule by rule: policy-sim explain --world fixtures/world.json --task 1001 --edit e.json (after the edit; without --edit: before it)",
    );
    const after = await run(["explain", "--world", WORLD, "--task", "1001", "--edit", "e.json"], files);
    expect(after.code).toBe(EXIT.ok);
    expect(after.out.split("\n")[0]).toBe("After the edit in e.json (without --edit: before it)");
    // The rule that now decides is the one after the deleted rule #2, now numbered #2.
    expect(after.out).toMatch(/✓ #2 {2}subject\.department == "Engineering" && entitlement\.riskLevelValueId == "critical"\n {7}→ policyId pol-prod-admin-eng {2}matched/);
    const before = await run(["explain", "--world", WORLD, "--task", "1001"]);
    expect(before.out).toMatch(/✓ #2 {2}subject\.employmentType == "Contractor"/);
    // --json: the explanation of the edited world, as explain(applyEdit(world, edit)) gives it.
    const json = await run(["explain", "--world", WORLD, "--task", "1001", "--edit", "e.json", "--json"], files);
    const { applyEdit, explain } = await import("../index.js");
    const loaded = loadWorld(JSON.parse(disk(WORLD)));
    if (!loaded.ok) throw new Error("fixture");
    const decoded = decodePolicies(withoutRule2());
    if (!decoded.ok) throw new Error("edit");
    const expected = explain(applyEdit(loaded.value, { policies: decoded.value }), "1001");
    expect(JSON.parse(json.out)).toEqual(JSON.parse(JSON.stringify(expected.ok ? expected.value : null)));
  });

  it("explain --terraform-plan explains in the world after the plan; an edit whatif refuses is refused the same way; not both flags", async () => {
    const plan = await run(["explain", "--world", WORLD, "--task", "1002", "--terraform-plan", "fixtures/terraform/plan.json"]);
    expect(plan.code).toBe(EXIT.ok);
    expect(plan.out.split("\n")[0]).toBe("After the edit in fixtures/terraform/plan.json (without --terraform-plan: before it)");
    expect(plan.out).toContain("module.sre.conductorone_policy.sre_admin");
    const typo = await run(["explain", "--world", WORLD, "--task", "1001", "--edit", "e.json"], { "e.json": JSON.stringify({ ...withoutRule2(), id: "pol-prod-admn" }) });
    expect(typo.code).toBe(EXIT.badInput);
    expect(typo.err).toContain('e.json: the world has no policy "pol-prod-admn" (did you mean "pol-prod-admin"?)');
    const both = await run(["explain", "--world", WORLD, "--task", "1001", "--edit", "e.json", "--terraform-plan", "p.json"]);
    expect(both.code).toBe(EXIT.badInput);
    expect(both.err).toContain("give --edit or --terraform-plan, not both");
  });
});

describe("the Why line and plan warnings (diff review)", () => {
  it("a plan read from a stream is not named as a file to read again", async () => {
    const r = await run(["whatif", "--world", WORLD, "--terraform-plan", "/dev/stdin"], { "/dev/stdin": disk("fixtures/terraform/plan.json") });
    expect(r.out.trimEnd().split("\n").at(-1)).toBe(
      "Why a task changes, rule by rule: save the edit to a file, then run policy-sim explain --task 1002 with --terraform-plan (after the edit; without --terraform-plan: before it)",
    );
  });

  it("explain --terraform-plan prints the plan's warnings on stderr, as whatif does", async () => {
    const w = await run(["whatif", "--world", WORLD, "--terraform-plan", "fixtures/terraform/incomplete.json"]);
    const e = await run(["explain", "--world", WORLD, "--task", "1001", "--terraform-plan", "fixtures/terraform/incomplete.json"]);
    const warned = (err: string) => err.split("\n").filter((l) => l.includes(": warning: "));
    expect(warned(w.err).length).toBeGreaterThan(0);
    expect(warned(e.err)).toEqual(warned(w.err));
  });
});

describe("whatif --edit says what the edit changes, field by field in the API's names (e2e review: a steps-only change read the same before and after)", () => {
  it("a rule taken out is one line; an escalation time changed is its path; the world's own policy is 'the same'", async () => {
    const removed = await run(["whatif", "--world", WORLD, "--edit", "e.json"], { "e.json": JSON.stringify(withoutRule2()) });
    expect(removed.out).toContain('What the edit changes:\n  pol-prod-admin:\n    rules[2]: {"condition":"subject.employmentType == \\"Contractor\\"');
    expect(removed.out).toMatch(/rules\[2\]: .* → unset\n\nWhy a task changes/);
    const p = policy("pol-prod-admin") as Wire & { policySteps: Record<string, { steps: { approval?: { escalation?: { expiration: string } } }[] }> };
    const esc = Object.values(p.policySteps).flatMap((q) => q.steps).find((s) => s.approval?.escalation)?.approval?.escalation;
    if (!esc) throw new Error("fixture: no escalation");
    esc.expiration = "90000s";
    const later = await run(["whatif", "--world", WORLD, "--edit", "e.json", "--state", "all"], { "e.json": JSON.stringify(p) });
    expect(later.out).toMatch(/\n {4}policySteps\["5650fd2e-[^\n]*"\]\.steps\[1\]\.approval\.escalation\.expiration: "86400s" → "90000s"/);
    // Two rules taken out in two places: two lines (second diff review), and a rule put in: one.
    const two = withoutRule2();
    two.rules.splice(0, 1);
    const twoOut = (await run(["whatif", "--world", WORLD, "--edit", "e.json", "--state", "all"], { "e.json": JSON.stringify(two) })).out;
    const listed = twoOut.slice(twoOut.indexOf("What the edit changes:")).split("\n\n")[0]?.split("\n").slice(2) ?? [];
    expect(listed.map((l) => l.replace(/:.*/, ""))).toEqual(["    rules[0]", "    rules[2]"]);
    expect(listed.every((l) => l.endsWith("→ unset"))).toBe(true);
    const added = policy("pol-prod-admin");
    added.rules.splice(1, 0, { condition: "false", stepKey: "61013ecb-7769-4434-ae63-f64ab27dd2a0" });
    const addedOut = (await run(["whatif", "--world", WORLD, "--edit", "e.json", "--state", "all"], { "e.json": JSON.stringify(added) })).out;
    expect(addedOut).toContain('What the edit changes:\n  pol-prod-admin:\n    rules[1]: unset → {"condition":"false","stepKey":"61013ecb-7769-4434-ae63-f64ab27dd2a0"');
    expect(addedOut.slice(addedOut.indexOf("What the edit changes:")).split("\n\n")[0]?.split("\n").filter((l) => l !== "")).toHaveLength(3);
    const same = await run(["whatif", "--world", WORLD, "--edit", "e.json"], { "e.json": JSON.stringify(policy("pol-prod-admin")) });
    expect(same.out).toContain("What the edit changes:\n  pol-prod-admin: the same as the world's");
  });
});
