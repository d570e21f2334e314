/**
 * One thread of a what-if pool (`index.ts`): loads the world it is given once, then answers each
 * run with the result of its share of the tasks. Messages in, in order; one reply per message.
 */
import { readFileSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import type { SimError } from "../reducers/errors.js";
import { err, type Result } from "../result.js";
import { prepareWhatIf, whatIf, type WhatIfOptions, type WhatIfResult } from "../whatif/what-if.js";
import { deepFreeze, loadWorld } from "../world/load-world.js";
import type { World, WorldPatch } from "../world/world.js";
import type { PoolRequest, PoolWorkerData, PoolReply } from "./protocol.js";

function load(data: PoolWorkerData): Result<World, SimError> {
  try {
    const json: unknown = "file" in data.source ? JSON.parse(readFileSync(data.source.file, "utf8")) : data.source.json;
    const r = loadWorld(json);
    if (r.ok) return r;
    const first = r.error[0];
    const more = r.error.length > 1 ? ` (and ${r.error.length - 1} more)` : "";
    return err({ code: "INVALID_ARGUMENT", message: `the world does not load: ${first ? `${first.path}: ${first.message}` : "no diagnostics"}${more}`, field: "world" });
  } catch (e: unknown) {
    return err({ code: "INVALID_ARGUMENT", message: `the world cannot be read: ${e instanceof Error ? e.message : String(e)}`, field: "world" });
  }
}

const port = parentPort;
if (port) {
  const loaded = load(workerData as PoolWorkerData);
  // Grouped before the thread says it is ready, so that a pool's first run costs what later ones do.
  if (loaded.ok) prepareWhatIf(loaded.value);
  port.postMessage({ kind: "ready", error: loaded.ok ? null : loaded.error } satisfies PoolReply);
  port.on("message", (m: PoolRequest) => {
    let result: Result<WhatIfResult, SimError>;
    if (!loaded.ok) result = loaded;
    else {
      try {
        // Frozen like a loaded world's objects, so that the caches keyed on frozen policies apply.
        result = whatIf(loaded.value, deepFreeze(m.edit) as WorldPatch, m.options as WhatIfOptions);
      } catch (e: unknown) {
        result = err({ code: "INTERNAL", message: `policy-sim internal error: ${e instanceof Error ? e.message : String(e)}` });
      }
    }
    port.postMessage({ kind: "result", id: m.id, result } satisfies PoolReply);
  });
}
