import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
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

  it("a file whose stamp matches but whose first or last bytes differ is not served (the sample hash)", () => {
    const path = join(dir, "forged.json");
    writeFileSync(path, sample);
    rmSync(env.POLICY_SIM_CACHE_DIR, { recursive: true, force: true });
    coldLoad(path);
    /** Rewrites the entry's recorded stamp to the file's present one: as if the stamp could not tell. */
    const forgeStamp = (): void => {
      const s = statSync(path, { bigint: true });
      const stamp = { dev: String(s.dev), ino: String(s.ino), size: String(s.size), mtimeNs: String(s.mtimeNs), ctimeNs: String(s.ctimeNs) };
      for (const name of readdirSync(env.POLICY_SIM_CACHE_DIR)) {
        const file = join(env.POLICY_SIM_CACHE_DIR, name);
        const entry = readFileSync(file);
        const end = entry.indexOf(10);
        const header = JSON.parse(entry.toString("utf8", 0, end)) as Record<string, unknown>;
        writeFileSync(file, Buffer.concat([Buffer.from(JSON.stringify({ ...header, file: stamp })), entry.subarray(end)]));
      }
    };
    // The same bytes written again, stamp forged: served (the forgery works)…
    writeFileSync(path, sample);
    expect(worldForTask(env, path, "1001")).toBeUndefined();
    forgeStamp();
    expect(worldForTask(env, path, "1001")).toBeDefined();
    // …other last bytes, stamp forged: not served.
    writeFileSync(path, `${sample.trimEnd()} \n`);
    forgeStamp();
    expect(worldForTask(env, path, "1001")).toBeUndefined();
  });

  it("an id wins over another task's equal numericId, as findTask decides", () => {
    const json = JSON.parse(sample) as { tasks: Record<string, unknown>[] };
    const [a, b] = json.tasks;
    if (!a || !b) throw new Error("the sample has two tasks");
    // Task a's id is task b's numericId (an id may be any string, a numericId is an int64).
    a["id"] = b["numericId"];
    const path = join(dir, "clash.json");
    writeFileSync(path, JSON.stringify(json));
    const full = coldLoad(path);
    const ref = a["id"] as string;
    const warm = worldForTask(env, path, ref);
    expect(warm?.tasks.get(ref)).toBeDefined();
    expect(JSON.stringify(explain(warm!, ref))).toBe(JSON.stringify(explain(full, ref)));
  });

  it("keeps the full load's warnings, so a warm call prints what the cold one did", () => {
    const json = JSON.parse(sample) as { users: Record<string, unknown>[] };
    // A near-miss field name: a warning, never an error.
    json.users[0]!["managerId"] = "u-x";
    const path = join(dir, "warned.json");
    writeFileSync(path, JSON.stringify(json));
    const full = coldLoad(path);
    expect(full.warnings.length).toBeGreaterThan(0);
    expect(worldForTask(env, path, "1001")?.warnings).toEqual(full.warnings);
  });
});
