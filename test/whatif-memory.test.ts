/**
 * What a loop of what-if runs keeps: nothing per run. A service trying candidate edits runs many in
 * one synchronous job; a WeakRef made per world keeps its target alive to the end of the job, and
 * one made per edited world in the resolution memo kept ~250 KB a run (embedder review: +244 MB over
 * 1,000 runs on a 2,000-task world).
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { loadWorld, whatIf, type World } from "policy-sim";
import { syntheticWorld } from "policy-sim/testing";

describe("a loop of what-if runs in one job keeps no memory per run", () => {
  it("300 runs of distinct edits grow the heap by far less than 300 edited worlds", () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const loaded = loadWorld(syntheticWorld({ seed: 7, tasks: 2000, rulesPerPolicy: 16, policySnapshots: false }));
    if (!loaded.ok) throw new Error("the synthetic world does not load");
    const world: World = loaded.value;
    const policy = world.policies.find((p) => (p.rules?.length ?? 0) > 4);
    if (!policy) throw new Error("no policy with rules");
    const edit = (i: number) => ({ policies: [{ ...policy, displayName: `renamed ${i}` }] });
    // Warm: the caches every run shares (compiled conditions, groups) are filled by the first runs.
    for (let i = 0; i < 20; i++) whatIf(world, edit(i));
    gc();
    const before = process.memoryUsage().heapUsed;
    let changed = 0;
    for (let i = 0; i < 300; i++) {
      const r = whatIf(world, edit(i));
      if (r.ok) changed += r.value.counts.changed;
    }
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    expect(changed).toBe(0);
    // Each run's edited world has an index of ~250 KB here: 300 kept would be ~75 MB.
    expect(grown).toBeLessThan(25 * 1024 * 1024);
  });

  it("edits that each read a field no other reads keep a bounded number of class sets, not one per edit (diff review: +6 MB a run at 100k tasks)", () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const loaded = loadWorld(syntheticWorld({ seed: 9, tasks: 20_000, rulesPerPolicy: 4, policySnapshots: false }));
    if (!loaded.ok) throw new Error("the synthetic world does not load");
    const world: World = loaded.value;
    const grants = world.policies.filter((p) => p.policyType === "POLICY_TYPE_GRANT" && (p.rules?.length ?? 0) > 0);
    // Every grant policy gets a first rule reading a profile key of its own per edit: a new path set each time.
    const edit = (i: number) => ({ policies: grants.map((p) => ({ ...p, rules: [{ ...p.rules![0]!, condition: `subject.profile["k${i}"] == "v"` }, ...p.rules!] })) });
    const run = (i: number) => {
      const r = whatIf(world, edit(i), { scope: { states: "any" } });
      if (!r.ok) throw new Error(r.error.message);
    };
    for (let i = 0; i < 12; i++) run(i);
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 12; i < 60; i++) run(i);
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    // Kept unbounded, 48 more edits kept 48 more class sets of the world's 20,000 tasks.
    expect(grown).toBeLessThan(12 * 1024 * 1024);
  });
});

