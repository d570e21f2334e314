/**
 * Issue 14.5: explain a request that does not exist yet, exactly as a new task for it would route —
 * in the library, the CLI and the REPL.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { memoryIO } from "../cli/memory-io.js";
import { EXIT, runCli } from "../cli/run.js";
import { createSession } from "../repl/session.js";
import { taskInWorld } from "../whatif/task-spec.js";
import { loadWorld } from "../world/load-world.js";
import { explain, explainTask } from "./explain.js";

const disk = (p: string): string => readFileSync(p, "utf8");
const loaded = loadWorld(JSON.parse(disk("fixtures/world.json")));
if (!loaded.ok) throw new Error("fixture");
const world = loaded.value;
const prodAdmin = { appId: "app-aws", id: "ent-aws-prod-admin" } as const;

describe("explain a request that does not exist yet", () => {
  it("routes as the described task does (same resolution, rules, steps and approvers)", () => {
    const r = explain(world, { subject: "u-dev2", entitlement: prodAdmin });
    const built = taskInWorld(world, { subject: { id: "u-dev2" }, entitlement: prodAdmin });
    expect(r.ok && built.ok).toBe(true);
    if (!r.ok || !built.ok) return;
    const direct = explainTask(built.value.world, built.value.task);
    expect(r.value.resolution).toEqual(direct.resolution);
    expect(r.value.result).toEqual(direct.result);
    expect(r.value.approvers).toEqual(direct.approvers);
    expect(r.value.resolution.ok && r.value.resolution.policyId).toBe("pol-prod-admin");
  });

  it("the same subject and entitlement route as the world's open task for them (task 1001: u-contractor)", () => {
    const existing = explain(world, "1001");
    const asked = explain(world, { subject: "u-contractor", entitlement: prodAdmin });
    expect(existing.ok && asked.ok).toBe(true);
    if (!existing.ok || !asked.ok) return;
    expect(asked.value.result.kind === "selected" && asked.value.result.decidedBy).toEqual(existing.value.result.kind === "selected" && existing.value.result.decidedBy);
  });

  it("an emergency request resolves from the emergency policy", () => {
    const r = explain(world, { subject: "u-dev2", entitlement: prodAdmin, emergencyAccess: true });
    expect(r.ok && r.value.resolution.ok && r.value.resolution.source).toBe("emergency");
  });

  it("an unknown user or entitlement is NOT_FOUND, never a throw", () => {
    const noUser = explain(world, { subject: "u-nobody", entitlement: prodAdmin });
    expect(!noUser.ok && noUser.error.code).toBe("NOT_FOUND");
    const noEnt = explain(world, { subject: "u-dev2", entitlement: { appId: "app-aws", id: "ent-nope" } });
    expect(noEnt.ok).toBe(false);
  });

  it("policy-sim explain --subject --entitlement [--emergency]", async () => {
    const io = memoryIO({ fallback: disk });
    const code = await runCli(["explain", "--world", "fixtures/world.json", "--subject", "u-dev2", "--entitlement", "app-aws/ent-aws-prod-admin", "--emergency"], io);
    expect(code).toBe(EXIT.ok);
    expect(io.out()).toContain("— from emergency");
    // Titled as the request it is, not as "Task 0" (newcomer review 2).
    expect(io.out().split("\n")[0]).toBe('Request (not a task yet) "grant ent-aws-prod-admin (app-aws) for u-dev2" (grant, emergency access)');
    expect(io.out()).toMatch(/\n {2}evaluated at 2026-11-22T09:00:00Z\n/);
  });

  it("the CLI refuses --task with a described request, and a malformed --entitlement", async () => {
    for (const argv of [
      ["explain", "--world", "fixtures/world.json", "--task", "1001", "--subject", "u-dev2"],
      ["explain", "--world", "fixtures/world.json", "--subject", "u-dev2", "--entitlement", "ent-aws-prod-admin"],
      ["explain", "--world", "fixtures/world.json", "--subject", "u-dev2", "--entitlement", "app-aws/ent-aws-prod-admin", "--kind", "certify"],
    ]) {
      const io = memoryIO({ fallback: disk });
      expect(await runCli(argv, io)).toBe(EXIT.badInput);
    }
  });

  it("the REPL's explain takes a request too", () => {
    const session = createSession(world, { files: { readFile: disk, writeFile: () => {} } });
    const shown = session.api.explain({ subject: "u-dev2", entitlement: prodAdmin });
    expect(String(shown)).toContain("Policy pol-prod-admin");
  });
});
