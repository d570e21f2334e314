import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { rebase } from "./lint.js";
import { memoryIO } from "./memory-io.js";
import { EXIT, runCli } from "./run.js";

const disk = (p: string): string => readFileSync(p, "utf8");
const WORLD = "fixtures/world.json";
const run = async (argv: string[], files: Record<string, string> = {}) => {
  const io = memoryIO({ files, fallback: disk });
  const code = await runCli(argv, io);
  return { code, out: io.out(), err: io.err() };
};

interface LintJson {
  source: string;
  errors: number;
  warnings: number;
  policies: { id: string; base: string; findings: { code: string; severity: string; path: string; message: string; cel?: { excerpt: string } }[] }[];
}

describe("policy-sim lint", () => {
  it("--policy given a world file says to lint the world's policies, exit 2 (it linted the world as one policy)", async () => {
    const r = await run(["lint", "--policy", WORLD]);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.out).toBe("");
    expect(r.err).toContain(`${WORLD} is a world file, not a policy: lint its policies with policy-sim lint --world ${WORLD} --all`);
  });

  it("a CEL typo: the code, the path, the message with the hint, the caret excerpt; exit 1", async () => {
    const r = await run(["lint", "--world", WORLD, "--policy", "fixtures/broken/cel-type-error.json"]);
    expect(r.code).toBe(EXIT.findings);
    expect(r.out).toBe(
      [
        'pol-broken-cel-type "Broken: cel-type" at fixtures/broken/cel-type-error.json',
        "  error   CEL_TYPE_ERROR (CEL_UNDEFINED_FIELD) at $.rules[0].condition",
        "          rule 0 condition, line 1 column 9: undefined field 'departmnt' on type 'User' (did you mean 'department'?)",
        '          subject.departmnt == "x"',
        "                  ^^^^^^^^^",
        "1 error, 0 warnings in 1 policy",
        "",
      ].join("\n"),
    );
  });

  it("an array file: the policies see each other (a cycle on both), paths point into the array", async () => {
    const r = await run(["lint", "--world", WORLD, "--policy", "fixtures/broken/reference-cycle.json", "--json"]);
    expect(r.code).toBe(EXIT.findings);
    const j = JSON.parse(r.out) as LintJson;
    expect(j.errors).toBe(2);
    expect(j.policies.map((p) => [p.base, p.findings.map((f) => `${f.code} ${f.path}`)])).toEqual([
      ["$[0]", ["REFERENCE_CYCLE $[0].rules[0].policyId"]],
      ["$[1]", ["REFERENCE_CYCLE $[1].baselinePolicyId"]],
    ]);
  });

  it("warnings alone exit 0", async () => {
    const r = await run(["lint", "--world", WORLD, "--policy", "fixtures/broken/unreachable-rule.json"]);
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toContain("warning UNREACHABLE_RULE at $.rules[1]");
    expect(r.out).toContain("see $.rules[0].condition");
    expect(r.out).toMatch(/0 errors, 1 warning in 1 policy\n$/);
  });

  it("a condition that runs interpreted is an info note, listed and counted, and exits 0 (issue 16)", async () => {
    const policy = {
      id: "pol-bind",
      displayName: "bind",
      policyType: "POLICY_TYPE_GRANT",
      policySteps: { grant: { steps: [{ accept: { acceptMessage: "" } }] }, it: { steps: [{ accept: { acceptMessage: "it" } }] } },
      rules: [{ condition: 'subject.profile.?clearance.orValue("") == "high"', stepKey: "it" }],
      annotations: { managed_by: "terraform" },
    };
    const r = await run(["lint", "--policy", "p.json"], { "p.json": JSON.stringify(policy) });
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toContain("  info    CEL_INTERPRETED at $.rules[0].condition\n");
    expect(r.out).toContain("(optional values (orValue) is not in the compiled subset)");
    expect(r.out).toMatch(/ok: 1 policy, no errors or warnings, 1 note\n$/);
  });

  it("without a world a policy is linted alone (references it cannot follow are said so)", async () => {
    const r = await run(["lint", "--policy", "fixtures/broken/dangling-step-key.json", "--json"]);
    expect(r.code).toBe(EXIT.findings);
    expect((JSON.parse(r.out) as LintJson).policies[0]?.findings.map((f) => f.code)).toContain("DANGLING_STEP_KEY");
  });

  it("every policy of the world (the default, or --all): paths into the world file, exit 0 on the sample", async () => {
    for (const argv of [["lint", "--world", WORLD], ["lint", "--world", WORLD, "--all"]]) {
      const r = await run([...argv, "--json"]);
      expect(r.code).toBe(EXIT.ok);
      const j = JSON.parse(r.out) as LintJson;
      expect(j.errors).toBe(0);
      expect(j.policies.length).toBeGreaterThan(10);
      for (const p of j.policies) for (const f of p.findings) expect(f.path.startsWith(`${p.base}.`) || f.path === p.base).toBe(true);
    }
  });

  it("--json shape: source, counts, per policy its id, base and findings with severity", async () => {
    const r = await run(["lint", "--policy", "fixtures/broken/cel-syntax-error.json", "--json"]);
    const j = JSON.parse(r.out) as LintJson;
    expect(Object.keys(j)).toEqual(["source", "errors", "warnings", "policies"]);
    expect(j.source).toBe("fixtures/broken/cel-syntax-error.json");
    const f = j.policies[0]?.findings[0];
    expect(f).toMatchObject({ code: "CEL_SYNTAX_ERROR", severity: "error", path: "$.rules[0].condition" });
    expect(f?.cel?.excerpt).toContain("^");
  });

  it("a document that is not a policy: WIRE_* findings, exit 1", async () => {
    const r = await run(["lint", "--policy", "p.json"], { "p.json": '{ "rules": 3 }' });
    expect(r.code).toBe(EXIT.findings);
    expect(r.out).toMatch(/^\(no id\) at p\.json\n {2}error {3}WIRE_EXPECTED_ARRAY at \$\.rules\n/);
  });

  it("bad input: neither --policy nor --world, both --policy and --all, a missing file, not JSON, an empty array", async () => {
    expect((await run(["lint"])).code).toBe(EXIT.badInput);
    expect((await run(["lint", "--world", WORLD, "--all", "--policy", "x.json"])).err).toMatch(/^give --policy <file> or --all, not both/);
    const missing = await run(["lint", "--policy", "x.json"]);
    expect([missing.code, missing.err]).toEqual([EXIT.badInput, "cannot read the policy file x.json: no such file\n"]);
    expect((await run(["lint", "--policy", "p.json"], { "p.json": "nope" })).err).toMatch(/^the policy file p\.json is not JSON/);
    expect((await run(["lint", "--policy", "p.json"], { "p.json": "[]" })).code).toBe(EXIT.badInput);
  });
});

describe("rebase", () => {
  it("moves a finding's path under the policy's place in the file", () => {
    expect(rebase("$", "$.rules[0]")).toBe("$.rules[0]");
    expect(rebase("$[2]", "$.rules[0]")).toBe("$[2].rules[0]");
    expect(rebase("$.policies[4]", "$")).toBe("$.policies[4]");
    expect(rebase("$[1]", '$.policySteps["a-b"].steps')).toBe('$[1].policySteps["a-b"].steps');
  });
});
