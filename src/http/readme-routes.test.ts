/**
 * The README's "Point your SDK at the simulation" lists the served routes: it must list exactly the
 * server's route table, no more and no fewer (issue 12, "README: … the list of served routes").
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ROUTES } from "./routes/index.js";

describe("README: the served-routes table is the route table", () => {
  it("every route served is listed, and every route listed is served", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const start = readme.indexOf("| Service | Routes |");
    const end = readme.indexOf("\n\n", start);
    expect(start).toBeGreaterThan(0);
    const listed = [...readme.slice(start, end).matchAll(/`((?:GET|POST|PUT|PATCH|DELETE) \/[^`\s]+)`/g)].map((m) => m[1]).sort();
    const served = ROUTES.map((r) => `${r.method} ${r.path}`).sort();
    expect(listed).toEqual(served);
  });
});
