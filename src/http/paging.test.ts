/**
 * Page tokens anyone can write: what a token names is checked where it is used. A task search
 * places a page after a task only when the caller may read that task (diff review: a made-up token
 * naming a hidden task told whether it existed, and where it sorted).
 */
import { describe, expect, it } from "vitest";
import { sampleWorld, SUPER, type Body } from "../../test/helpers.js";
import { bodyFingerprint, pageToken } from "./paging.js";
import { searchTasks } from "./routes/task-search.js";

const world = sampleWorld();

function ids(callerId: string, body: Body): string[] {
  const caller = world.index.users.get(callerId);
  if (!caller) throw new Error(callerId);
  const r = searchTasks(world, caller, body);
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return (r.value as { list: { task: { id: string } }[] }).list.map((v) => v.task.id);
}

describe("a made-up page token tells nothing of tasks the caller may not read", () => {
  it("a token naming a hidden task answers as one naming no task at all", () => {
    const all = ids(SUPER, { pageSize: 100 });
    const callerId = "u-dev1";
    const visible = ids(callerId, { pageSize: 100 });
    expect(visible.length).toBeGreaterThan(1);
    const hidden = all.filter((id) => !visible.includes(id));
    // Some hidden task sorts between two visible ones: placing a page after it would show.
    const firstVisible = all.indexOf(visible[0] as string);
    expect(hidden.some((id) => all.indexOf(id) > firstVisible)).toBe(true);
    const body = { pageSize: 10 };
    const fingerprint = bodyFingerprint(body, "tasks");
    const none = ids(callerId, { ...body, pageToken: pageToken(0, fingerprint, "no-such-task") });
    expect(none).toEqual(visible.slice(0, 10));
    for (const id of hidden) expect(ids(callerId, { ...body, pageToken: pageToken(0, fingerprint, id) })).toEqual(none);
    // A task the caller may read places the page after it, as the tokens the server issues do.
    expect(ids(callerId, { ...body, pageToken: pageToken(0, fingerprint, visible[0]) })).toEqual(visible.slice(1, 11));
  });
});
