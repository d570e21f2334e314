/**
 * Writes world.schema.json (shipped as `policy-sim/world.schema.json`) from the code that reads
 * world files: `npm run schema`. test/world-schema.test.ts fails when the committed file is stale.
 */
import { writeFileSync } from "node:fs";
import { worldSchema } from "../src/world/world-schema.js";

writeFileSync(new URL("../world.schema.json", import.meta.url), `${JSON.stringify(worldSchema(), null, 2)}\n`);
console.log("wrote world.schema.json");
