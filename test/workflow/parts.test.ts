/**
 * The workflow's parts on their own: the simulation section (typed reader, round trip through the
 * world file, problems with paths), form validation of each field type, and the wall-clock time of
 * an untilTime wait.
 */
import { describe, expect, it } from "vitest";
import type { Form } from "../../src/model/index.js";
import { validateFormValues } from "../../src/workflow/form-validation.js";
import { readSimulation, simulationProblems, withSimulation } from "../../src/workflow/sim-config.js";
import { nextTimeOfDay } from "../../src/workflow/time.js";
import { saveWorld } from "../../src/world/save-world.js";
import { load, sampleWith, sampleWorld } from "./helpers.js";

describe("the simulation section", () => {
  it("reads as empty on a world without it, and round-trips through saveWorld / loadWorld", () => {
    const w = sampleWorld();
    expect(readSimulation(w).connectors).toEqual([]);
    const sim = {
      ...readSimulation(w),
      connectors: [{ id: "conn-sf", appId: "app-salesforce", canProvision: true, canDeprovision: false, cannotDeprovisionEntitlementIds: [] }],
      apps: { "app-okta": { revokeInheritedAccess: true } },
    };
    const written = withSimulation(w, sim);
    const reloaded = load(JSON.parse(JSON.stringify(saveWorld(written))));
    expect(readSimulation(reloaded)).toEqual(sim);
    expect(readSimulation(w).connectors).toEqual([]);
  });

  it("reads leniently and reports what is wrong with its JSON path", () => {
    const w = sampleWith((json) => {
      json["simulation"] = {
        connectors: [{ id: "c", canDeprovision: "no" }, 3],
        entitlementSources: [{ appId: "a", appEntitlementId: "e", sourceAppId: "a", sourceEntitlementId: "s", via: "magic" }],
        automations: [{ id: "x", revokeStep: { grantSource: "Sometimes", criteria: {} } }],
      };
    });
    const problems = simulationProblems(w).map((p) => `${p.path}: ${p.code}`);
    expect(problems).toEqual([
      "$.simulation.connectors[0].canDeprovision: EXPECTED_BOOLEAN",
      "$.simulation.connectors[1]: EXPECTED_OBJECT",
      "$.simulation.automations[0].revokeStep.grantSource: INVALID_GRANT_SOURCE",
      "$.simulation.entitlementSources[0].via: INVALID_VIA",
    ]);
    expect(readSimulation(w).entitlementSources).toEqual([]);
    expect(readSimulation(w).automations[0]?.revokeStep?.grantSource).toBe("ALL");
  });
});

const form = (fields: unknown[], fieldRelationships: unknown[] = []): Form =>
  ({ id: "f", displayName: "F", description: "", fields, fieldGroups: null, fieldRelationships }) as unknown as Form;
const field = (name: string, type: unknown, extra: object = {}) => ({ name, displayName: name, description: "", required: false, readOnly: false, type, provider: null, ...extra });

describe("form validation", () => {
  const env = { now: "2026-11-22T09:00:00Z", world: sampleWorld() };

  it("int64 from a number or a decimal string, with rules and the number view's bounds", () => {
    const f = form([field("n", { kind: "int64Field", defaultValue: "0", placeholder: "", rules: { gt: "0", notIn: ["13"] }, view: { kind: "numberField", maxValue: "20" } })]);
    expect(validateFormValues(f, { n: 5 }, env).problems).toEqual([]);
    expect(validateFormValues(f, { n: "7" }, env).problems).toEqual([]);
    expect(validateFormValues(f, { n: "13" }, env).problems).toEqual([{ field: "n", message: "must not be 13" }]);
    expect(validateFormValues(f, { n: 0 }, env).problems).toEqual([{ field: "n", message: "must be greater than 0" }]);
    expect(validateFormValues(f, { n: 21 }, env).problems).toEqual([{ field: "n", message: "must be at most 20" }]);
    expect(validateFormValues(f, { n: 1.5 }, env).problems[0]?.message).toMatch(/whole number/);
  });

  it("string rules: email, uuid, in, byte and character lengths, ignoreEmpty", () => {
    const f = form([
      field("e", { kind: "stringField", defaultValue: "", placeholder: "", rules: { email: true }, view: null }),
      field("u", { kind: "stringField", defaultValue: "", placeholder: "", rules: { uuid: true, ignoreEmpty: true }, view: null }),
      field("c", { kind: "stringField", defaultValue: "", placeholder: "", rules: { in: ["eu", "us"], maxBytes: "2" }, view: null }),
    ]);
    expect(validateFormValues(f, { e: "ada@northwind.example", u: "", c: "eu" }, env).problems).toEqual([]);
    expect(validateFormValues(f, { e: "ada", u: "nope", c: "üx" }, env).problems.map((p) => `${p.field}: ${p.message}`)).toEqual([
      "e: must be an email address",
      "u: must be a UUID",
      "c: must be at most 2 bytes",
      'c: must be one of "eu", "us"',
    ]);
  });

  it("lists, files, user pickers, required-together and dependent-on relationships", () => {
    const f = form(
      [
        field("tags", { kind: "stringSliceField", defaultValues: null, placeholder: "", rules: { maxItems: "2", unique: true }, view: { kind: "chipsField" } }),
        field("doc", { kind: "fileField", acceptedFileTypes: [".pdf"], maxFileSize: "1000", view: null }),
        field("who", { kind: "stringField", defaultValue: "", placeholder: "", rules: null, view: { kind: "pickerField", pickerField: { kind: "svcUserPicker", userIds: null, excludeUserIds: ["u-ceo"], includeDeactivated: false } } }),
        field("a", { kind: "stringField", defaultValue: "", placeholder: "", rules: null, view: null }),
        field("b", { kind: "stringField", defaultValue: "", placeholder: "", rules: null, view: null }),
      ],
      [
        { fieldNames: ["a", "b"], relationship: { kind: "requiredTogether" } },
        { fieldNames: ["doc"], relationship: { kind: "dependentOn", dependencyFieldNames: ["who"] } },
      ],
    );
    expect(validateFormValues(f, { tags: ["x"], doc: { name: "a.pdf", size: 10 }, who: "u-cto", a: "1", b: "2" }, env).problems).toEqual([]);
    expect(
      validateFormValues(f, { tags: ["x", "x", "y"], doc: { name: "a.exe", size: 5000 }, who: "u-ceo", a: "1" }, env).problems.map((p) => `${p.field}: ${p.message}`),
    ).toEqual([
      "tags: must have at most 2 items",
      "tags: must not repeat an item",
      "doc: must be a file of type .pdf",
      "doc: must be at most 1000 bytes",
      'who: "u-ceo" may not be picked',
      "b: is required together with a",
    ]);
    expect(validateFormValues(f, { doc: "a.pdf" }, env).problems).toEqual([{ field: "who", message: "is required because doc is set" }]);
  });
});

describe("untilTime", () => {
  it("is the next wall-clock time in the zone, across a daylight-saving change", () => {
    expect(nextTimeOfDay("2026-11-22T09:00:00Z", 8, 0, "Europe/Berlin").at).toBe("2026-11-23T07:00:00Z");
    expect(nextTimeOfDay("2026-11-22T06:00:00Z", 8, 0, "Europe/Berlin").at).toBe("2026-11-22T07:00:00Z");
    // New York leaves daylight saving time on 2026-11-01.
    expect(nextTimeOfDay("2026-10-31T20:00:00Z", 9, 30, "America/New_York").at).toBe("2026-11-01T14:30:00Z");
    expect(nextTimeOfDay("2026-11-22T09:00:00Z", 8, 0, "Mars/Olympus")).toEqual({ at: "2026-11-23T08:00:00Z", note: 'unknown time zone "Mars/Olympus": UTC is used' });
  });
});
