import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { explain } from "../explain/explain.js";
import { loadWorldChunksIndexed } from "../world/load-world.js";
import { rememberWorld, stampBeforeRead, worldForTask } from "./world-cache.js";

const dir = mkdtempSync(join(tmpdir(), "policy-sim-cache-test-"));
const env = { POLICY_SIM_CACHE_DIR: join(dir, "cache") };
const sample = readFileSync(new URL("../../fixtures/world.json", import.meta.url), "utf8");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Loads `path` as the CLI does and fills the cache. */
function coldLoad(path: string) {
  const stamp = stampBeforeRead(env, path);
  const r = loadWorldChunksIndexed([readFileSync(path)]);
  if (!r.ok) throw new Error("does not load");
  rememberWorld(env, path, stamp, r.value.world, r.value.taskRanges);
  return r.value.world;
}

describe("the CLI's world cache (issue 13: repeated calls on one big world)", () => {
  it("explains every task of the sample from the cache exactly as from a full load", () => {
    const path = join(dir, "world.json");
    writeFileSync(path, sample);
    const full = coldLoad(path);
    for (const task of full.tasks.values()) {
      for (const ref of [task.id, task.numericId]) {
        const warm = worldForTask(env, path, ref);
        expect(warm, ref).toBeDefined();
        expect(JSON.stringify(explain(warm!, ref))).toBe(JSON.stringify(explain(full, ref)));
      }
    }
    expect(worldForTask(env, path, "no-such-task")).toBeUndefined();
  });

  it("never serves a changed file, even one of the same size changed at once", () => {
    const path = join(dir, "changing.json");
    writeFileSync(path, sample);
    coldLoad(path);
    expect(worldForTask(env, path, "1001")).toBeDefined();
    // Same length, one character different: a department name in the directory.
    const changed = sample.replace('"Engineering"', '"Engineerinh"');
    expect(changed.length).toBe(sample.length);
    writeFileSync(path, changed);
    expect(worldForTask(env, path, "1001")).toBeUndefined();
    const reloaded = coldLoad(path);
    expect(JSON.stringify(worldForTask(env, path, "1001")?.users)).toBe(JSON.stringify(reloaded.users));
  });

  it("treats an unreadable entry as no entry, and POLICY_SIM_CACHE=off as no cache", () => {
    const path = join(dir, "corrupt.json");
    writeFileSync(path, sample);
    coldLoad(path);
    // An entry's name is a hash of the world's path: spoil every entry.
    for (const name of readdirSync(env.POLICY_SIM_CACHE_DIR)) writeFileSync(join(env.POLICY_SIM_CACHE_DIR, name), "{not json");
    expect(worldForTask(env, path, "1001")).toBeUndefined();
    const off = { ...env, POLICY_SIM_CACHE: "off" };
    expect(stampBeforeRead(off, path)).toBeUndefined();
    expect(worldForTask(off, path, "1001")).toBeUndefined();
  });
});
