import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { API_TO_SPEC_NAMES, apiValueOf, expirationSeconds, toSpecNames, withApiAliases } from "./spec-names.js";
import { jsonParts, jsonText } from "./json-text.js";

const SPEC_TO_API = Object.fromEntries(Object.entries(API_TO_SPEC_NAMES).map(([api, spec]) => [spec, api]));

/** `json` with the spec's names written as the API writes them. */
function apiSpelling(json: unknown): unknown {
  if (Array.isArray(json)) return json.map(apiSpelling);
  if (typeof json !== "object" || json === null) return json;
  return Object.fromEntries(Object.entries(json).map(([k, v]) => [SPEC_TO_API[k] ?? k, apiSpelling(v)]));
}

const keys = fc.constantFrom("a", "steps", "action", ...Object.keys(API_TO_SPEC_NAMES), ...Object.values(API_TO_SPEC_NAMES));
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, fc.string(), fc.integer(), fc.constant(null), fc.array(tie("value"), { maxLength: 3 }), fc.dictionary(keys, tie("value"), { maxKeys: 4 })),
})).value;

describe("000 spec vs the API's names (issue 12: svc… for baton…, svcUserPicker for c1UserPicker): both read, the spec's kept", () => {
  it("renames at any depth, in objects and arrays", () => {
    expect(toSpecNames({ steps: [{ action: { batonResourceAction: { batonResourceActionId: "ra-1" } } }] })).toEqual({
      steps: [{ action: { svcResourceAction: { svcResourceActionId: "ra-1" } } }],
    });
    expect(toSpecNames({ pickerField: { c1UserPicker: { userIds: ["u-1"] } } })).toEqual({ pickerField: { svcUserPicker: { userIds: ["u-1"] } } });
  });
  it("returns the input itself when nothing is named the API's way, and never changes its input", () => {
    const plain = { comment: "hi", expandMask: { paths: ["*"] } };
    expect(toSpecNames(plain)).toBe(plain);
    const api = Object.freeze({ c1UserPicker: Object.freeze({ userIds: Object.freeze(["u-1"]) }) });
    expect(toSpecNames(api)).toEqual({ svcUserPicker: { userIds: ["u-1"] } });
    expect(api).toEqual({ c1UserPicker: { userIds: ["u-1"] } });
  });
  it("keeps both when an object has both names (the spec's is the field, the API's an unknown one)", () => {
    expect(toSpecNames({ svcUserPicker: { userIds: [] }, c1UserPicker: { userIds: ["u-1"] } })).toEqual({ svcUserPicker: { userIds: [] }, c1UserPicker: { userIds: ["u-1"] } });
  });
  it("a __proto__ key stays a key, and input nested past any message is left alone without throwing", () => {
    const out = toSpecNames(JSON.parse('{"__proto__": {"c1UserPicker": {}}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(["__proto__"]);
    let deep: unknown = { c1UserPicker: {} };
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(() => toSpecNames(deep)).not.toThrow();
  });
  it("property: writing the spec's names the API's way and reading them back gives the spec's names", () => {
    fc.assert(
      fc.property(json, (v) => {
        // An object holding both spellings of one field has no single API spelling: left out.
        const collides = (x: unknown): boolean =>
          typeof x === "object" && x !== null && (Array.isArray(x) ? x.some(collides) : Object.entries(x).some(([k, y]) => (Object.hasOwn(SPEC_TO_API, k) && Object.hasOwn(x, SPEC_TO_API[k] ?? "")) || collides(y)));
        if (collides(v)) return;
        expect(toSpecNames(apiSpelling(v))).toEqual(toSpecNames(v));
      }),
    );
  });
});

describe("openapi.yaml c1.api.policy.v1.Escalation.expiration is an int64 string of seconds; the spec writes a duration", () => {
  it("expirationSeconds: exact only for whole seconds; a fraction is cut toward zero", () => {
    expect(expirationSeconds("86400s")).toEqual({ seconds: "86400", exact: true });
    expect(expirationSeconds("86400.000s")).toEqual({ seconds: "86400", exact: true });
    expect(expirationSeconds("86400.5s")).toEqual({ seconds: "86400", exact: false });
    expect(expirationSeconds("")).toEqual({ seconds: "0", exact: false });
    expect(expirationSeconds("1.5")).toBeUndefined();
    expect(expirationSeconds("9223372036854775808s")).toBeUndefined();
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (n) => {
        expect(expirationSeconds(`${n}s`)).toEqual({ seconds: n.toString(), exact: true });
      }),
    );
  });

  it("apiValueOf: an escalation's expiration becomes the int64 string of its whole seconds (the Go and Python SDKs parse nothing else); what is not one stays as it is", () => {
    const exp = (expiration: unknown) => (apiValueOf("escalation", { expiration, skipStep: {} }) as { expiration: unknown }).expiration;
    expect(exp("86400s")).toBe("86400");
    expect(exp("0s")).toBe("0");
    expect(exp("007s")).toBe("7");
    expect(exp("86400")).toBe("86400");
    expect(exp("86400.000s")).toBe("86400");
    expect(exp("1.5s")).toBe("1");
    expect(exp("-0.5s")).toBe("0");
    expect(exp("")).toBe("0");
    expect(exp("99999999999999999999s")).toBe("99999999999999999999s");
    expect(exp(null)).toBeNull();
    expect(Object.keys(apiValueOf("escalation", { escalationComment: "x", expiration: "60s", skipStep: {} }) as object)).toEqual(["escalationComment", "expiration", "skipStep"]);
  });

  it("a key named expiration in free-form data (a task's data, form values, annotations) is the user's: written as it came", () => {
    const v = { task: { data: { expiration: "30s", n: { expiration: "" } }, annotations: [{ expiration: "030" }] } };
    expect(apiValueOf("data", v.task.data)).toBe(v.task.data);
    expect(withApiAliases(v)).toEqual(v);
    expect(JSON.parse(jsonParts(v, { apiAliases: true }).join(""))).toEqual(v);
  });

  it("serve's writer (jsonParts with apiAliases) writes them as withApiAliases does; the plain writer leaves them", () => {
    fc.assert(
      fc.property(fc.nat({ max: 10_000_000 }), fc.constantFrom("s", ".5s", ""), (n, unit) => {
        const v = { policySteps: { grant: { steps: [{ approval: { escalation: { expiration: `${n}${unit}`, escalationComment: "x" } } }] } } };
        const aliased = jsonParts(v, { apiAliases: true }).join("");
        expect(aliased).toBe(JSON.stringify(withApiAliases(v)));
        expect(JSON.parse(aliased).policySteps.grant.steps[0].approval.escalation.expiration).toBe(String(n));
        expect(jsonText(v)).toBe(JSON.stringify(v));
      }),
    );
  });
});
