/**
 * Issue 14.4: the JSON Schema of the world file is generated from the code that reads world files,
 * shipped as policy-sim/world.schema.json, named by the fixtures' "$schema", and accepts every world
 * the project ships.
 */
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { worldSchema } from "../src/world/world-schema.js";

const committed = JSON.parse(readFileSync(new URL("../world.schema.json", import.meta.url), "utf8")) as object;

describe("world.schema.json", () => {
  it("is what the code generates (run npm run schema after changing the codec or a decoder)", () => {
    expect(committed).toEqual(JSON.parse(JSON.stringify(worldSchema())));
  });

  it("is shipped in the package and named by the sample world", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { files: string[]; exports: Record<string, unknown> };
    expect(pkg.files).toContain("world.schema.json");
    expect(pkg.exports["./world.schema.json"]).toBe("./world.schema.json");
    const sample = JSON.parse(readFileSync(new URL("../fixtures/world.json", import.meta.url), "utf8")) as Record<string, unknown>;
    expect(sample["$schema"]).toBe("../world.schema.json");
  });

  it("accepts the sample world and refuses a wrong type where a field is known", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const validate = ajv.compile(committed);
    const sample = JSON.parse(readFileSync(new URL("../fixtures/world.json", import.meta.url), "utf8")) as { users: Array<Record<string, unknown>> };
    expect(validate(sample), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
    sample.users[0] = { ...sample.users[0], managerIds: "u-eng-mgr" };
    expect(validate(sample)).toBe(false);
    expect(validate.errors?.[0]?.instancePath).toBe("/users/0/managerIds");
  });
});
