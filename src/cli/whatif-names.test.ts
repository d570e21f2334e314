/**
 * Issue 14.2: an edit or a filter that names nothing is an error (exit 2), so a CI gate cannot go
 * green by mistake; the library refuses an edit that names nothing too.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { whatIf } from "../whatif/index.js";
import { loadWorld } from "../world/load-world.js";
import type { WorldEdit } from "../whatif/index.js";
import { memoryIO } from "./memory-io.js";
import { EXIT, runCli } from "./run.js";

const disk = (p: string): string => readFileSync(p, "utf8");
const policy = (id: string): string => {
  const w = JSON.parse(disk("fixtures/world.json")) as { policies: Array<{ id: string }> };
  return JSON.stringify({ ...w.policies.find((p) => p.id === "pol-prod-admin"), id });
};
const run = async (argv: string[]) => {
  const io = memoryIO({ files: { "real.json": policy("pol-prod-admin"), "typo.json": policy("pol-prod-admn") }, fallback: disk });
  const code = await runCli(argv, io);
  return { code, out: io.out(), err: io.err() };
};

describe("whatif: edits and filters that name nothing", () => {
  it("an --edit whose policy id the world lacks is an error naming the id meant", async () => {
    const r = await run(["whatif", "--world", "fixtures/world.json", "--edit", "typo.json"]);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.err).toContain('the world has no policy "pol-prod-admn" (did you mean "pol-prod-admin"?)');
  });

  it("--app naming no app of the world is an error", async () => {
    const r = await run(["whatif", "--world", "fixtures/world.json", "--edit", "real.json", "--app", "app-nope"]);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.err).toContain('--app: the world has no app "app-nope"');
  });

  it("--task naming no task of the world is an error", async () => {
    const r = await run(["whatif", "--world", "fixtures/world.json", "--edit", "real.json", "--task", "99999"]);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.err).toContain('--task: the world has no task "99999"');
  });

  it("a real edit and real filters still run (exit 0: nothing re-routes)", async () => {
    const r = await run(["whatif", "--world", "fixtures/world.json", "--edit", "real.json", "--app", "app-aws", "--task", "1001"]);
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toMatch(/\b0 changed\b/);
  });
});

describe("whatIf (library): an edit that names nothing is INVALID_ARGUMENT", () => {
  const loaded = loadWorld(JSON.parse(disk("fixtures/world.json")));
  if (!loaded.ok) throw new Error("fixture");
  const world = loaded.value;

  it.each([
    ["a policy without an id", { policies: [{}] }],
    ["an entitlement without an appId", { entitlements: [{ id: "ent-aws-prod-admin" }] }],
    ["policies that are not a list", { policies: {} }],
  ])("%s", (_name, edit) => {
    const r = whatIf(world, edit as unknown as WorldEdit);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error.code).toBe("INVALID_ARGUMENT");
  });

  it("a function edit and a real patch still run", () => {
    expect(whatIf(world, (w) => void w).ok).toBe(true);
    const p = world.index.policies.get("pol-prod-admin");
    expect(p && whatIf(world, { policies: [p] }).ok).toBe(true);
  });
});
