import { readFileSync } from "node:fs";
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import type { Explanation } from "../explain/explain.js";
import { loadWorld } from "../world/load-world.js";
import { findTask, replaceInWorld } from "../world/world.js";
import { type ActionData, createSession, type SessionFiles } from "./session.js";

const disk = (p: string): string => readFileSync(p, "utf8");
const loaded = loadWorld(JSON.parse(disk("fixtures/world.json")));
if (!loaded.ok) throw new Error("the sample world does not load");
const world = loaded.value;

function files(extra: Record<string, string> = {}): SessionFiles & { written: Map<string, string> } {
  const written = new Map<string, string>();
  return {
    written,
    readFile: (p) => written.get(p) ?? extra[p] ?? disk(p),
    writeFile: (p, s) => void written.set(p, s),
  };
}

describe("the REPL session's bound functions", () => {
  it("explain shows the formatted explanation through inspect, and .data is the Explanation", () => {
    const { api } = createSession(world, { files: files() });
    const e = api.explain("1001");
    expect(inspect(e)).toMatch(/^Task 1001 "/);
    expect(inspect(e)).toContain("Selected: rule #2 of pol-prod-admin");
    expect(String(e)).toBe(inspect(e));
    expect(e.ok).toBe(true);
    expect((e.data as Explanation).kind).toBe("explanation");
    expect(JSON.parse(JSON.stringify(e))).toMatchObject({ kind: "explanation" });
  });

  it("explain of a route through a policy the service would refuse to save warns first, as the CLI's explain does (REPL review: the REPL said nothing)", () => {
    const policy = world.index.policies.get("pol-prod-admin");
    if (!policy?.rules) throw new Error("fixture");
    const broken = replaceInWorld(world, { policies: [{ ...policy, rules: [...policy.rules, { ...(policy.rules[0] as NonNullable<typeof policy.rules>[number]), condition: 'subject.departmnt == "Security"' }] }] });
    const text = String(createSession(broken, { files: files() }).api.explain("1001"));
    expect(text).toMatch(/^Warning: the service would refuse to save policy "pol-prod-admin" \(1 lint error\); the route below is what the broken policy would do:\n {2}CEL_[A-Z_]+ at \$\.rules\[\d+\]\.condition: [^\n]*departmnt/);
    expect(text).toContain('\n\nTask 1001 "');
    // A route through policies the service would save: no warning.
    expect(String(createSession(world, { files: files() }).api.explain("1001"))).toMatch(/^Task 1001 "/);
  });

  it("explain says where the task stands, which an approval moves on, apart from where selection would start it (REPL review: the output was the same before and after an approval)", () => {
    const { api } = createSession(world, { files: files() });
    const before = api.explain("1001");
    expect((before.data as Explanation).task.currentStep).toEqual({ position: 1, of: 3, kind: "approval", approverIds: ["u-sre-lead"] });
    expect(String(before)).toContain("\n  it is at step 1 of 3 (approval, waiting on u-sre-lead); what follows is where selection would start it now (a Hard Reset)\n");
    expect(api.reduce({ type: "approve", taskId: "1001", comment: "ok" }, { as: "u-sre-lead" }).ok).toBe(true);
    const after = api.explain("1001");
    const step = (after.data as Explanation).task.currentStep;
    expect(step?.position).toBe(2);
    expect(String(after)).toContain(`\n  it is at step 2 of 3 (${step?.kind}`);
    // A Hard Reset starts a new run: the steps of the earlier ones, kept in the history, are not counted (diff review: "step 4 of 6").
    for (let i = 0; i < 2; i++) {
      expect(api.reset("1001", { as: "u-it-dir" }).ok).toBe(true);
      expect((api.explain("1001").data as Explanation).task.currentStep).toMatchObject({ position: 1, of: 3, kind: "approval" });
    }
  });

  it("explain of a described request takes the entitlement as app-id/entitlement-id, as the CLI and case files do (REPL review)", () => {
    const { api } = createSession(world, { files: files() });
    const short = api.explain({ subject: "u-dev2", entitlement: "app-aws/ent-aws-prod-admin" } as never);
    const long = api.explain({ subject: "u-dev2", entitlement: { appId: "app-aws", id: "ent-aws-prod-admin" } });
    expect(short.ok).toBe(true);
    expect(String(short)).toBe(String(long));
    expect(inspect(api.explain({ subject: "u-dev2", entitlement: "ent-aws-prod-admin" } as never))).toMatch(/^✗ INVALID_ARGUMENT: entitlement must be \{ appId, id \}/);
  });

  it("explain of an unknown task, or of a non-string, is a one-line failure value", () => {
    const { api } = createSession(world, { files: files() });
    const e = api.explain("9999");
    expect(e.ok).toBe(false);
    expect(inspect(e)).toMatch(/^✗ NOT_FOUND: /);
    expect(inspect(api.explain(true as unknown as string))).toMatch(/^✗ INVALID_ARGUMENT: explain\("1001"\)/);
    expect(inspect(api.explain(-1))).toMatch(/^✗ INVALID_ARGUMENT: explain\("1001"\)/);
    // An id of 100,000 characters is echoed clipped in the line shown, whole in .data.
    const huge = api.explain("9".repeat(100_000));
    expect(inspect(huge).length).toBeLessThan(4200);
    expect(inspect(huge)).toContain("characters left out");
    expect((huge.data as { message: string }).message.length).toBeGreaterThan(100_000);
  });

  it("explain takes the CLI's --now and --verbose as options, and refuses any other (newcomer review 3: { now } was ignored)", () => {
    const session = createSession(world, { files: files() });
    const { api } = session;
    const at = api.explain("1001", { now: "2026-11-23T22:30:00+01:00" });
    expect(at.ok).toBe(true);
    expect(inspect(at)).toContain("evaluated at 2026-11-23T21:30:00Z");
    expect(inspect(api.explain("1001"))).toContain(`evaluated at ${world.now}`);
    // The world is not changed, and nothing goes into the history.
    expect(session.world).toBe(world);
    expect(session.depth).toBe(1);
    expect(inspect(api.explain("1001", { verbose: true })).length).toBeGreaterThan(inspect(api.explain("1001")).length);
    expect(inspect(api.explain("1001", { bogus: 1 } as never))).toMatch(/^✗ INVALID_ARGUMENT: unknown option "bogus"/);
    expect(inspect(api.explain("1001", { nwo: "2026-11-23T22:30:00Z" } as never))).toContain('did you mean "now"?');
    expect(inspect(api.explain("1001", { now: "tonight" }))).toMatch(/^✗ INVALID_ARGUMENT: now must be an RFC 3339 timestamp/);
    expect(inspect(api.explain("1001", "verbose" as never))).toMatch(/^✗ INVALID_ARGUMENT: the options are an object/);
    // ["1001", "1002"].map(explain) passes each index as the second argument: no options (diff review).
    expect((["1001", "1002"] as const).map(api.explain as (t: string, i: number) => { ok: boolean }).map((e) => e.ok)).toEqual([true, true]);
  });

  it("an id one letter off is answered with the id meant (newcomer review 3)", () => {
    const { api } = createSession(world, { files: files() });
    expect(inspect(api.lint("pol-prod-admn"))).toContain('no policy "pol-prod-admn" in the world; did you mean "pol-prod-admin"?');
    expect(inspect(api.policy("pol-prod-admn"))).toContain('did you mean "pol-prod-admin"?');
    expect(inspect(api.task("10001"))).toContain('did you mean "1001"?');
    expect(inspect(api.explain("10001"))).toContain('did you mean "1001"?');
    expect(inspect(api.check("true", "conditon"))).toContain('did you mean "condition"?');
  });

  it("a numeric id typed without quotes is the task of that numeric id (newcomer review 2: explain(1001) was refused)", () => {
    const { api } = createSession(world, { files: files() });
    expect(inspect(api.explain(1001))).toBe(inspect(api.explain("1001")));
    expect(inspect(api.task(1001))).toBe(inspect(api.task("1001")));
  });

  it("an action option it does not take is named with what was meant (reset(\"1022\", { actor }) said only the usage)", () => {
    const s = createSession(world, { files: files() });
    expect(inspect(s.api.reset("1022", { actor: "u-it-dir" } as never))).toBe('✗ INVALID_ARGUMENT: unknown option "actor"; did you mean "as"? (an action takes as, comment, expand): reset("1022", { as: "u-it-dir", comment: "why" })');
    expect(inspect(s.api.comment(1001, "hi", { as: "u-dev1", coment: "x" } as never))).toMatch(/unknown option "coment"; did you mean "comment"\?/);
    expect(inspect(s.api.reduce({ type: "approve", taskId: "1001" }, { actor: "u-sre-lead" } as never))).toMatch(/^✗ INVALID_ARGUMENT: unknown option "actor"; did you mean "as"\?/);
    expect(s.depth).toBe(1);
  });

  it("reset applies to the current world, keeps history, and undo goes back", () => {
    const s = createSession(world, { files: files() });
    const before = findTask(s.world, "1022")?.policy?.policy?.id;
    const r = s.api.reset("1022", { as: "u-it-dir", comment: "re-route" });
    expect(r.ok).toBe(true);
    expect(inspect(r)).toMatch(/^✓ Hard Reset of task 1022 by u-it-dir\n {2}events: hardReset, .*policyChanged/);
    expect(inspect(r)).toContain("world #2");
    expect(s.depth).toBe(2);
    expect(findTask(s.world, "1022")?.policy?.policy?.id).toBe("pol-security-sensitive");
    expect(s.world).not.toBe(world);

    const u = s.api.undo();
    expect(inspect(u)).toBe("undid Hard Reset of task 1022 by u-it-dir; world #1 is current");
    expect(s.world).toBe(world);
    expect(findTask(s.world, "1022")?.policy?.policy?.id).toBe(before);
    expect(s.api.undo().ok).toBe(false);
  });

  it("reset without `as`, or refused, changes nothing", () => {
    const s = createSession(world, { files: files() });
    expect(inspect(s.api.reset("1022"))).toMatch(/^✗ INVALID_ARGUMENT: reset\("1022", \{ as: /);
    expect(inspect(s.api.reset("1022", { as: "u-dev1" }))).toMatch(/^✗ PERMISSION_DENIED: /);
    expect(inspect(s.api.reset("1022", { as: 7 } as unknown as { as: string }))).toMatch(/^✗ INVALID_ARGUMENT/);
    expect(s.depth).toBe(1);
    expect(s.world).toBe(world);
  });

  it("comment: .data is { response, events }, and the comment is in the next world", () => {
    const s = createSession(world, { files: files() });
    const c = s.api.comment("1001", "Needed for Q4", { as: "u-contractor" });
    expect(c.ok).toBe(true);
    const data = c.data as ActionData;
    expect(data.events.map((e) => e.kind)).toEqual(["comment"]);
    expect(data.response).toHaveProperty("taskView");
    const id = findTask(s.world, "1001")?.id ?? "";
    expect(s.world.comments.get(id)?.at(-1)?.comment).toBe("Needed for Q4");
    expect(s.api.comment("1001", "x").ok).toBe(false);
  });

  it("lint: the world, one policy by id, a draft; unknown ids say so", () => {
    const { api } = createSession(world, { files: files() });
    expect(inspect(api.lint())).toMatch(/0 errors, 2 warnings$/);
    expect(inspect(api.lint("pol-prod-admin"))).toBe("ok: 1 policy, no findings");
    const draft: unknown = JSON.parse(disk("fixtures/broken/cel-type-error.json"));
    const l = api.lint(draft);
    expect(inspect(l)).toContain("error   CEL_TYPE_ERROR (CEL_UNDEFINED_FIELD) at $.rules[0].condition");
    expect(inspect(l)).toContain("^^^^^^^^^");
    const cycle: unknown = JSON.parse(disk("fixtures/broken/reference-cycle.json"));
    expect(inspect(api.lint(cycle))).toContain("REFERENCE_CYCLE at $[1].baselinePolicyId");
    expect(inspect(api.lint("pol-nope"))).toMatch(/^✗ NOT_FOUND: no policy "pol-nope"/);
  });

  it("policy gives a fresh wire copy each time; unknown ids fail", () => {
    const { api } = createSession(world, { files: files() });
    const a = api.policy("pol-prod-admin");
    expect(a.data).toMatchObject({ id: "pol-prod-admin", policyType: "POLICY_TYPE_GRANT" });
    expect(api.policy("pol-prod-admin").data).not.toBe(a.data);
    expect(api.policy("pol-nope").ok).toBe(false);
  });

  it("check, task, help", () => {
    const { api } = createSession(world, { files: files() });
    expect(inspect(api.check('subject.department == "Engineering"'))).toBe("ok: the condition type-checks and returns bool");
    const bad = api.check("subject.departmnt == 'x'");
    expect(bad.ok).toBe(false);
    expect(inspect(bad)).toContain("(did you mean 'department'?)\nsubject.departmnt == 'x'\n        ^^^^^^^^^");
    // The environments of product_admin_expressions.mdx and product_admin_entitlement-config-rules.mdx.
    expect(inspect(api.check("appOwners", "approver"))).toBe("ok: the expression type-checks in the approver environment");
    expect(api.check('entitlement.scope.id != ""', "config-rule").ok).toBe(true);
    expect(api.check('subject.department == "IT"', "config-rule").ok).toBe(false);
    expect(api.check("true", "groups").ok).toBe(false);
    const t = api.task("1001");
    expect(t.data).toMatchObject({ numericId: "1001", state: "TASK_STATE_OPEN" });
    expect(JSON.parse(inspect(t))).toEqual(t.data);
    expect(api.task("nope").ok).toBe(false);
    expect(inspect(api.help())).toContain('explain("1001")');
  });

  it("save writes the current world, which loads back with the change", () => {
    const f = files();
    const s = createSession(world, { files: f });
    s.api.comment("1001", "saved", { as: "u-contractor" });
    expect(inspect(s.api.save("after.json"))).toBe(`saved the current world (${world.tasks.size} tasks) to after.json`);
    const back = loadWorld(JSON.parse(f.written.get("after.json") ?? "null"));
    expect(back.ok && back.value.seq).toBe(s.world.seq);
    expect(s.api.save("").ok).toBe(false);
  });

  it("load (.world) replaces the current world, undo comes back; a bad file changes nothing", () => {
    const w = JSON.parse(disk("fixtures/world.json")) as { tasks: unknown[]; now: string };
    w.tasks = w.tasks.slice(0, 3);
    const s = createSession(world, { files: files({ "small.json": JSON.stringify(w), "bad.json": "{" }) });
    expect(inspect(s.load("small.json"))).toBe(`loaded small.json: 3 tasks, ${world.policies.length} policies, now ${w.now} (world #2)`);
    expect(s.world.tasks.size).toBe(3);
    expect(inspect(s.load("bad.json"))).toMatch(/^✗ INVALID_ARGUMENT: bad\.json is not JSON/);
    expect(inspect(s.load("missing.json"))).toMatch(/^✗ INVALID_ARGUMENT: cannot read missing\.json: /);
    expect(s.depth).toBe(2);
    s.api.undo();
    expect(s.world).toBe(world);
  });

  it("whatIf without a binding says it is unavailable; with one it gets the current world", async () => {
    const plain = createSession(world, { files: files() });
    expect(inspect(await plain.api.whatIf({}))).toMatch(/^✗ UNAVAILABLE/);
    const { Shown } = await import("./show.js");
    const s = createSession(world, { files: files(), whatIf: (w, p, o) => new Shown({ w, p, o }, "bound") });
    const r = await s.api.whatIf({ id: "x" }, { state: "all" });
    expect(r.data).toEqual({ w: world, p: { id: "x" }, o: { state: "all" } });
  });
});

describe("lint paths in the REPL", () => {
  it("lint(id) points into the world file, like lint()", () => {
    const { api } = createSession(world, { files: files() });
    const one = api.lint("pol-aws-access");
    expect(inspect(one)).toContain("warning LEGACY_POLICY_KEY at $.policies[5].rules[0].policyKey");
    expect(inspect(api.lint())).toContain("warning LEGACY_POLICY_KEY at $.policies[5].rules[0].policyKey");
  });
});

describe("simulate in the REPL", () => {
  it("runs a script file on the current world, keeps the final world, undo goes back", () => {
    const s = createSession(world, { files: files() });
    const r = s.api.simulate("fixtures/scenarios/emergency-request.json");
    expect(r.ok).toBe(true);
    expect(inspect(r)).toMatch(/^scenario emergency-request: 5 steps, 0 failures\n/);
    expect(inspect(r)).toMatch(/every expectation and check holds; world #2 \(\.undo goes back\)$/);
    expect(findTask(s.world, "1001")?.state).toBe("TASK_STATE_CLOSED");
    s.api.undo();
    expect(s.world).toBe(world);
  });

  it("a script as JSON; a script that does not decode or cannot be read changes nothing", () => {
    const s = createSession(world, { files: files() });
    expect(s.api.simulate({ name: "t", steps: [{ tick: "2026-11-22T10:00:00Z" }] }).ok).toBe(true);
    expect(s.depth).toBe(2);
    expect(inspect(s.api.simulate({ steps: [{ action: { type: "fly" } }] }))).toMatch(/^✗ INVALID_ARGUMENT: /);
    expect(inspect(s.api.simulate("nope.json"))).toBe("✗ INVALID_ARGUMENT: cannot read the script nope.json: no such file");
    expect(s.depth).toBe(2);
    // The script's JSON as a string is read as JSON, not as a file name (REPL review: ENOENT for '{"bad json').
    expect(inspect(s.api.simulate('{"bad json'))).toMatch(/^✗ INVALID_ARGUMENT: the script is not JSON: /);
    expect(s.api.simulate(JSON.stringify({ name: "t2", steps: [{ tick: "2026-11-22T11:00:00Z" }] })).ok).toBe(true);
    expect(s.depth).toBe(3);
  });
});
