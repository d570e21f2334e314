/**
 * Connectors finish their provisioning on their own (product_admin_provisioning.mdx: a connector
 * provisions the access once the request is approved): `completeConnectorProvisioning`, which
 * `serve --connectors-complete` runs after each write.
 */
import { describe, expect, it } from "vitest";
import { sampleJson, sampleWorld, worldOf, type Body } from "../../test/helpers.js";
import type { World } from "../world/world.js";
import { completeConnectorProvisioning } from "./provision.js";
import { reduce } from "./reduce.js";

const NOW = "2026-11-22T09:30:00Z";

/** `world` with task 1006 approved by its manager: at its AWS connector provision step. */
function atProvision(world: World): { world: World; id: string } {
  const task = [...world.tasks.values()].find((t) => t.numericId === "1006");
  if (!task) throw new Error("fixture changed: no task 1006");
  const r = reduce(world, { type: "approve", taskId: task.id, comment: "ok" }, { actorId: "u-sre-lead", now: "2026-11-22T09:10:00Z" });
  if (!r.ok) throw new Error(r.error.message);
  expect(r.value.world.tasks.get(task.id)?.policy?.current?.instance?.kind).toBe("provision");
  return { world: r.value.world, id: task.id };
}

describe("product_admin_provisioning.mdx: a connector provision step completes on its own", () => {
  it("the request closes GRANTED at now, reported by nobody, with the grant added; the world before is untouched", () => {
    const { world, id } = atProvision(sampleWorld());
    const r = completeConnectorProvisioning(world, NOW, [id]);
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.completed).toEqual([id]);
    const t = r.value.world.tasks.get(id);
    expect(t?.state).toBe("TASK_STATE_CLOSED");
    expect(t?.type?.kind === "grant" && t.type.outcome).toBe("GRANT_OUTCOME_GRANTED");
    const done = [...(t?.policy?.history ?? [])].at(-1)?.instance;
    expect(done?.kind === "provision" && done.outcome).toMatchObject({ kind: "completed", completedAt: NOW, userId: "" });
    expect(r.value.events.map((e) => e.kind)).toEqual(expect.arrayContaining(["provisionCompleted", "taskClosed", "grantAdded"]));
    expect(world.tasks.get(id)?.state).toBe("TASK_STATE_OPEN");
    // Every task of the world when none are named: this one and those the sample already holds at a connector step.
    const waiting = [...world.tasks.values()].filter((x) => x.state === "TASK_STATE_OPEN" && x.policy?.current?.instance?.kind === "provision").map((x) => x.id);
    const all = completeConnectorProvisioning(world, NOW);
    expect(all.ok && all.value.completed).toContain(id);
    expect(all.ok && all.value.completed.every((x) => waiting.includes(x))).toBe(true);
  });

  it("left waiting: a connector the world's simulation section says cannot provision, and a task at another step", () => {
    const json = sampleJson() as Body;
    const unable = worldOf({ ...json, simulation: { connectors: [{ id: "conn-aws", appId: "app-aws", canProvision: false }] } });
    const { world, id } = atProvision(unable);
    const r = completeConnectorProvisioning(world, NOW, [id]);
    expect(r.ok && r.value.completed).toEqual([]);
    expect(r.ok && r.value.world).toBe(world);
    const approving = [...sampleWorld().tasks.values()].filter((x) => x.state === "TASK_STATE_OPEN" && x.policy?.current?.instance?.kind === "approval").map((x) => x.id);
    expect(approving.length).toBeGreaterThan(0);
    const untouched = completeConnectorProvisioning(sampleWorld(), NOW, approving);
    expect(untouched.ok && untouched.value.completed).toEqual([]);
  });

  it("bad input is an error value, never a throw", () => {
    expect(completeConnectorProvisioning(null as never, NOW)).toMatchObject({ ok: false });
    expect(completeConnectorProvisioning(sampleWorld(), "soon")).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT" } });
  });
});
