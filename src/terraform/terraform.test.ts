import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { memoryIO } from "../cli/memory-io.js";
import { EXIT, runCli } from "../cli/run.js";
import { decodePolicy, encodePolicy } from "../codec/index.js";
import { whatIf } from "../whatif/index.js";
import { loadWorld } from "../world/load-world.js";
import type { World } from "../world/world.js";
import type { Policy } from "../model/index.js";
import { arbPolicy } from "../testing/arbitraries.js";
import { camelCase, policyAttributesToApi } from "./attributes.js";
import { formatTerraformWhatIf } from "./format.js";
import { readPlan, withoutInstanceKeys } from "./plan.js";
import { parsePlanFile } from "./plan-file.js";
import { POLICY_SCHEMA, type SchemaAttribute } from "./policy-schema.js";
import { suggestAttribute } from "./unknown-attributes.js";
import { terraformEditRecipe, terraformPlanEdit } from "./policy-changes.js";
import { directoryPolicyUses } from "../policy/policy-uses.js";
import { deletePolicy } from "../http/routes/policy-edits.js";

const disk = (p: string): string => readFileSync(p, "utf8");
const WORLD_FILE = "fixtures/world.json";
const PLAN_FILE = "fixtures/terraform/plan.json";
const loaded = loadWorld(JSON.parse(disk(WORLD_FILE)));
if (!loaded.ok) throw new Error("fixture world does not load");
const world: World = loaded.value;
/** The provider's schema page, in the reference material beside the repository (as src/http/openapi-validate.test-helper.ts finds it). */
const POLICY_RESOURCE_MD = fileURLToPath(new URL("../../../shared/reference/terraform/policy-resource.md", import.meta.url));
const fixturePlan = (): Record<string, unknown> => JSON.parse(disk(PLAN_FILE)) as Record<string, unknown>;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
const MAPS = new Set(["annotations", "policySteps"]);
const JSON_TEXT = new Set(["form", "multiStep", "config"]);

/** A plan with the given resource changes (and configuration), as `terraform show -json` writes it. */
function plan(changes: unknown[], configuration: unknown = { root_module: {} }): Record<string, unknown> {
  return { format_version: "1.2", terraform_version: "1.9.8", resource_changes: changes, configuration };
}
function policyChange(address: string, actions: string[], before: unknown, after: unknown, afterUnknown: unknown = {}, moduleAddress?: string) {
  return {
    address,
    ...(moduleAddress ? { module_address: moduleAddress } : {}),
    mode: "managed",
    type: "conductorone_policy",
    name: address.split(".").pop(),
    change: { actions, before, after, after_unknown: afterUnknown },
  };
}
const wirePolicy = (id: string): Json => {
  const p = world.index.policies.get(id);
  if (!p) throw new Error(`fixture changed: ${id}`);
  return encodePolicy(p) as Json;
};
/** The provider's view of a world policy (terraform/policy-resource.md: snake_case, `baton_…`, JSON text), without the wire's `deleted_at`. */
const tfPolicy = (id: string): Record<string, Json> => {
  const { deleted_at: _deleted, ...values } = toTerraformAny(wirePolicy(id)) as Record<string, Json>;
  return values;
};

const BATON: Record<string, string> = { svcResourceAction: "batonResourceAction", svcResourceActionId: "batonResourceActionId" };
const snake = (k: string) => (Object.hasOwn(BATON, k) ? (BATON[k] ?? k) : k).replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
/** The provider's view of a wire value: snake_case names (`baton_…` for the spec's `svc…`), JSON-string attributes, map keys as they are. */
function toTerraformAny(v: Json, keepKeys = false): Json {
  if (Array.isArray(v)) return v.map((x) => toTerraformAny(x));
  if (v === null || typeof v !== "object") return v;
  const out: Record<string, Json> = {};
  for (const [k, x] of Object.entries(v)) {
    const [name, value] = keepKeys ? [k, toTerraformAny(x)] : JSON_TEXT.has(k) && x !== null && typeof x === "object" ? [snake(k), JSON.stringify(x)] : [snake(k), toTerraformAny(x, MAPS.has(k))];
    Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
/** proto3 reading: a null field is an unset one. */
const canon = (v: Json): Json =>
  Array.isArray(v) ? v.map(canon) : v !== null && typeof v === "object" ? Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, canon(x)])) : v;
/** Whether every field name (outside maps and JSON text) survives snake_case and back: a provider's schema has only such names. */
function reversible(v: Json, keepKeys = false): boolean {
  if (Array.isArray(v)) return v.every((x) => reversible(x));
  if (v === null || typeof v !== "object") return true;
  return Object.entries(v).every(([k, x]) => keepKeys ? reversible(x) : JSON_TEXT.has(k) || (Object.hasOwn(BATON, k) || camelCase(snake(k)) === k) && reversible(x, MAPS.has(k)));
}
describe("terraform/policy-resource.md: attributes become the API's Policy JSON", () => {
  it("property: any policy the codec writes, seen through the provider (snake_case, JSON text, baton names) and converted back, is the same policy (nulls read as unset)", () => {
    fc.assert(
      fc.property(arbPolicy, (p) => {
        const wire = encodePolicy(p) as Record<string, Json>;
        fc.pre(reversible(wire));
        const api = policyAttributesToApi(toTerraformAny(wire) as Record<string, unknown>, "$");
        if (!api.ok) throw new Error(JSON.stringify(api.error));
        const back = decodePolicy({ ...api.value, id: p.id, createdAt: wire["createdAt"], updatedAt: wire["updatedAt"], systemBuiltin: wire["systemBuiltin"], deletedAt: wire["deletedAt"] });
        if (!back.ok) throw new Error(JSON.stringify(back.error.slice(0, 2)));
        expect(canon(encodePolicy(back.value) as Json)).toEqual(canon(wire));
      }),
      { numRuns: 150 },
    );
  });

  it("a key named like a prototype member (__proto__, to_string) is kept as data, never looked up", () => {
    const r = policyAttributesToApi(JSON.parse('{"display_name":"P","to_string":{"__proto__":{"a_b":1}}}') as Record<string, unknown>, "$");
    expect(r.ok && JSON.stringify(r.value)).toBe('{"displayName":"P","toString":{"_Proto__":{"aB":1}}}');
  });

  it("snake_case attribute names become camelCase, at every depth", () => {
    expect(camelCase("requires_step_up_provider_id")).toBe("requiresStepUpProviderId");
    const r = policyAttributesToApi(
      { display_name: "P", policy_steps: { grant: { steps: [{ approval: { app_owners: { allow_self_approval: true, require_distinct_approvers: null } } }] } } },
      "$",
    );
    expect(r).toEqual({ ok: true, value: { displayName: "P", policySteps: { grant: { steps: [{ approval: { appOwners: { allowSelfApproval: true } } }] } } } });
  });

  it("the provider's baton_resource_action is the spec's svcResourceAction on the wire (reference README)", () => {
    const r = policyAttributesToApi({ policy_steps: { grant: { steps: [{ action: { baton_resource_action: { baton_resource_action_id: "ra-1" } } }] } } }, "$");
    expect(r.ok && r.value["policySteps"]).toEqual({ grant: { steps: [{ action: { svcResourceAction: { svcResourceActionId: "ra-1" } } }] } });
  });

  it("keys of the two maps (step keys, annotations) stay as written", () => {
    const r = policyAttributesToApi(
      {
        annotations: { iac_resource_address: "conductorone_policy.x", managed_by: "terraform" },
        policy_steps: { grant: { steps: [] }, my_step_key: { steps: [{ accept: { accept_message: "ok" } }] } },
        rules: [{ condition: "true", step_key: "my_step_key" }],
      },
      "$",
    );
    expect(r.ok && r.value).toEqual({
      annotations: { iac_resource_address: "conductorone_policy.x", managed_by: "terraform" },
      policySteps: { grant: { steps: [] }, my_step_key: { steps: [{ accept: { acceptMessage: "ok" } }] } },
      rules: [{ condition: "true", stepKey: "my_step_key" }],
    });
  });

  it("JSON-string attributes (form, multi_step, connector config) are parsed, their content kept as written", () => {
    const r = policyAttributesToApi(
      {
        policy_steps: {
          grant: {
            steps: [
              { form: '{"form":{"displayName":"Why","fields":[]}}' },
              { provision: { provision_policy: { multi_step: '{"provisionSteps":[{"unconfigured":{}}]}' } } },
              { provision: { provision_policy: { connector: { account: { connector_id: "c", config: '{"region_name":"eu"}' } } } } },
            ],
          },
        },
      },
      "$",
    );
    expect(r.ok && r.value["policySteps"]).toEqual({
      grant: {
        steps: [
          { form: { form: { displayName: "Why", fields: [] } } },
          { provision: { provisionPolicy: { multiStep: { provisionSteps: [{ unconfigured: {} }] } } } },
          { provision: { provisionPolicy: { connector: { account: { connectorId: "c", config: { region_name: "eu" } } } } } },
        ],
      },
    });
  });

  it("a JSON-string attribute that does not parse is reported at its path in the plan", () => {
    const r = policyAttributesToApi({ policy_steps: { grant: { steps: [{ form: "{ not json" }] } } }, "$.after");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toEqual([expect.objectContaining({ code: "PLAN_BAD_JSON_ATTRIBUTE", path: "$.after.policy_steps.grant.steps[0].form" })]);
  });

  it("computed attributes (id, created_at, updated_at, system_builtin) are not taken from the plan", () => {
    const r = policyAttributesToApi({ id: "x", created_at: "2020-01-01T00:00:00Z", updated_at: null, system_builtin: true, display_name: "P" }, "$");
    expect(r.ok && r.value).toEqual({ displayName: "P" });
  });

  it("every policy of the fixture world, written back by Terraform unchanged, re-routes no task", () => {
    for (const p of world.policies) {
      const tf = tfPolicy(p.id);
      const r = terraformPlanEdit(world, plan([policyChange(`conductorone_policy.${p.id.replace(/-/g, "_")}`, ["update"], tf, tf)]));
      expect(r.ok, p.id).toBe(true);
      if (!r.ok) continue;
      expect(encodePolicy(r.value.policies[0]!), p.id).toEqual(encodePolicy(p));
      const w = whatIf(world, terraformEditRecipe(r.value), { scope: { states: "any" } });
      expect(w.ok && w.value.counts.changed, p.id).toBe(0);
    }
  });

  it("a plan that spells unset lists as null (as Terraform does) changes nothing either", () => {
    const nulls = (v: Json): Json =>
      Array.isArray(v) ? (v.length === 0 ? null : v.map(nulls)) : v !== null && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, nulls(x)])) : v;
    const tf = nulls(tfPolicy("pol-prod-admin"));
    const r = terraformPlanEdit(world, plan([policyChange("conductorone_policy.prod_admin", ["update"], tf, tf)]));
    expect(r.ok && encodePolicy(r.value.policies[0]!)).toEqual(encodePolicy(world.index.policies.get("pol-prod-admin")!));
  });
});

describe("terraform/policy-resource.md + example-policy.tf: the fixture plan (every attribute kind)", () => {
  const r = terraformPlanEdit(world, fixturePlan());
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  const edit = r.value;

  it("names each change by its Terraform address, with how its policy was found; no-ops and other resource types are left out", () => {
    expect(edit.changes.map((c) => [c.action, c.address, c.policyId, c.matchedBy])).toEqual([
      ["update", "conductorone_policy.prod_admin", "pol-prod-admin", "id"],
      ["create", "module.sre.conductorone_policy.sre_admin", "module.sre.conductorone_policy.sre_admin", "new"],
      ["update", "conductorone_policy.finance_form", "pol-finance-form", "annotation"],
      ["delete", "conductorone_policy.prod_admin_eng", "pol-prod-admin-eng", "id"],
    ]);
    expect(edit.deleted).toEqual(["pol-prod-admin-eng"]);
  });

  it("a value known only after apply (a rule's policy_id) resolves through a module output to the policy the plan creates", () => {
    const prod = edit.policies.find((p) => p.id === "pol-prod-admin");
    expect(prod?.rules?.[3]?.policyId).toBe("module.sre.conductorone_policy.sre_admin");
    expect(prod?.rules?.[3]?.condition).toBe(world.index.policies.get("pol-prod-admin")?.rules?.[3]?.condition);
  });

  it("the created policy carries its parsed form, multi-step and connector config, a step key with a slash, and its annotations", () => {
    const sre = edit.policies.find((p) => p.id === "module.sre.conductorone_policy.sre_admin");
    if (!sre) throw new Error("no created policy");
    const wire = encodePolicy(sre) as { policySteps: Record<string, { steps: Record<string, unknown>[] }>; annotations: Record<string, string> };
    expect(Object.keys(wire.policySteps)).toEqual(["grant", "sre-oncall/fast-path"]);
    expect(wire.annotations["iac_resource_address"]).toBe("module.sre.conductorone_policy.sre_admin");
    const steps = wire.policySteps["grant"]?.steps ?? [];
    expect(Object.keys(steps[0] ?? {})).toEqual(["form"]);
    expect(JSON.stringify(steps[3])).toContain('"multiStep":{"provisionSteps"');
    expect(JSON.stringify(wire.policySteps["sre-oncall/fast-path"])).toContain('"config":{"region":"eu-central-1","budgetUsd":50}');
    expect(sre.rules?.map((x) => [x.stepKey, x.policyId])).toEqual([
      ["sre-oncall/fast-path", ""],
      ["", "pol-security-review"],
    ]);
  });

  it("an update whose id the world does not know is matched by the world policy's iac_resource_address annotation", () => {
    const fin = edit.policies.find((p) => p.id === "pol-finance-form");
    expect(fin?.displayName).toBe("Finance data access (after-hours wait from 20:00)");
    expect(fin?.createdAt).toBe(world.index.policies.get("pol-finance-form")?.createdAt);
  });

  it("as a what-if: exactly the tasks that went through the deleted policy re-route, to the created one", () => {
    const w = whatIf(world, terraformEditRecipe(edit), { scope: { states: "any" } });
    if (!w.ok) throw new Error(w.error.message);
    const viaDeleted = [...world.tasks.values()]
      .filter((t) => t.type?.kind === "grant" && ["1002", "1003", "1029"].includes(t.numericId))
      .map((t) => t.numericId);
    expect(w.value.changed.map((c) => c.numericId)).toEqual(viaDeleted);
    for (const c of w.value.changed) {
      expect(c.before.kind === "route" && c.before.chain).toContain("pol-prod-admin-eng");
      expect(c.after.kind === "route" && c.after.chain).toContain("module.sre.conductorone_policy.sre_admin");
    }
  });

  it("the report names every change by address, as text and as Markdown", () => {
    const w = whatIf(world, terraformEditRecipe(edit));
    if (!w.ok) throw new Error(w.error.message);
    const text = formatTerraformWhatIf(edit, w.value);
    const md = formatTerraformWhatIf(edit, w.value, { format: "markdown" });
    for (const c of edit.changes) {
      expect(text).toContain(c.address);
      expect(md).toContain(`\`${c.address}\``);
    }
    expect(md).toMatch(/^### policy-sim: what-if of this Terraform plan\n\n\*\*2 of \d+ tasks would route differently\.\*\*/);
    expect(md).toContain("<details><summary>Changed tasks (2)</summary>");
  });
});

describe("terraform/policy-resource.md: deletes, unknowns, addresses", () => {
  it("deleting a policy something still references is an error naming each referrer", () => {
    const tf = tfPolicy("pol-security-review");
    const r = terraformPlanEdit(world, plan([policyChange("conductorone_policy.security_review", ["delete"], tf, null)]));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toHaveLength(1);
    expect(r.error[0]?.code).toBe("PLAN_DELETE_REFERENCED");
    expect(r.error[0]?.path).toBe("$.resource_changes[0]");
    expect(r.error[0]?.message).toContain('policy "pol-prod-admin-eng" (baseline_policy_id)');
    // A step's reference is named as the plan writes it (terraform/policy-resource.md), not by the library's model.
    expect(r.error[0]?.message).toMatch(/policy "pol-gh-repo-access" \(policy_steps\.[^)]*\.approval\.escalation\.replace_policy\.policy_id\)/);
  });

  it("a policy referenced by an entitlement, an access review or the tenant default cannot be deleted either", () => {
    for (const [id, who] of [
      ["pol-emergency-breakglass", 'entitlement "app-aws/ent-aws-prod-admin" (emergencyGrantPolicyId)'],
      ["pol-certify-default", 'access review "ar-2026-q3"'],
      ["pol-default-grant", "the tenant's default grant policy"],
      ["pol-gh-repo-access", 'the request defaults of app "app-github" (requestPolicyId)'],
    ] as const) {
      const r = terraformPlanEdit(world, plan([policyChange("conductorone_policy.x", ["delete"], tfPolicy(id), null)]));
      expect(!r.ok && r.error[0]?.message, id).toContain(who);
    }
  });

  it("a refused delete of a deposed object is reported at the delete, not at the instance sharing its address", () => {
    const address = "conductorone_policy.prod_admin";
    const r = terraformPlanEdit(
      world,
      plan([
        policyChange(address, ["create"], null, { display_name: "New", policy_type: "POLICY_TYPE_GRANT", policy_steps: { grant: { steps: [] } } }, { id: true }),
        { ...policyChange(address, ["delete"], tfPolicy("pol-prod-admin"), null), deposed: "00000001" },
      ]),
    );
    expect(!r.ok && r.error.map((d) => [d.code, d.path])).toEqual([["PLAN_DELETE_REFERENCED", "$.resource_changes[1]"]]);
  });

  it("HashiCorp JSON output format (deposed): the delete of a deposed object the world lacks is a note; it is never matched to the live policy by its address annotation", () => {
    const address = "conductorone_policy.prod_admin";
    const live = tfPolicy("pol-prod-admin");
    const annotated = { ...wirePolicy("pol-prod-admin") as Record<string, Json>, annotations: { iac_resource_address: address } };
    const w = loadWorld({ ...JSON.parse(disk(WORLD_FILE)), policies: [...(JSON.parse(disk(WORLD_FILE)) as { policies: Json[] }).policies.filter((p) => (p as { id: string }).id !== "pol-prod-admin"), annotated] });
    if (!w.ok) throw new Error("world");
    const r = terraformPlanEdit(w.value, plan([policyChange(address, ["no-op"], live, live), { ...policyChange(address, ["delete"], { ...live, id: "pol-prod-admin-previous" }, null), deposed: "00000001" }]));
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(r.value.policies).toEqual([]);
    expect(r.value.notes.join("\n")).toContain("pol-prod-admin-previous");
  });

  it("a policy an entitlement configuration rule names cannot be deleted, by a plan or over HTTP alike (policy/policy-uses.ts)", () => {
    const rule = {
      id: "ecr-sales",
      appId: "app-aws",
      displayName: "Sales",
      description: "",
      condition: "",
      enabled: true,
      priority: 1,
      settings: { requestPolicyId: "pol-sales-access", emergencyGrantEnabled: false, emergencyGrantPolicyId: "", maxGrantDuration: null, requestSchemaId: "" },
    };
    const withRule: World = { ...world, entitlementConfigurationRules: [rule] };
    const r = terraformPlanEdit(withRule, plan([policyChange("conductorone_policy.x", ["delete"], tfPolicy("pol-sales-access"), null)]));
    expect(!r.ok && r.error[0]?.message).toContain('configuration rule "ecr-sales" of app "app-aws" (requestPolicyId)');
    expect(directoryPolicyUses(withRule).filter((u) => u.policyId === "pol-sales-access").map((u) => u.who)).toContain('configuration rule "ecr-sales" of app "app-aws" (requestPolicyId)');
    const http = deletePolicy(withRule, withRule.index.users.get("u-it-dir")!, "pol-sales-access");
    expect(!http.ok && [http.error.reason, http.error.message.includes('configuration rule "ecr-sales"')]).toEqual(["POLICY_IN_USE", true]);
  });

  it("a delete of a policy the world lacks is a note, not an error", () => {
    const r = terraformPlanEdit(world, plan([policyChange("conductorone_policy.gone", ["delete"], { id: "pol-gone", display_name: "Gone" }, null)]));
    expect(r.ok && r.value.notes).toEqual(['conductorone_policy.gone: the world has no policy "pol-gone" to delete; nothing to simulate']);
    expect(r.ok && r.value.deleted).toEqual([]);
    // The report names it as what it is, not as a new policy (Terraform review L2).
    if (!r.ok) throw new Error("expected a plan");
    const result = whatIf(world, terraformEditRecipe(r.value));
    if (!result.ok) throw new Error(result.error.message);
    const text = formatTerraformWhatIf(r.value, result.value);
    expect(text).toContain('delete  conductorone_policy.gone → pol-gone (not in the world: nothing to delete)');
    expect(text).not.toContain("new policy");
  });

  it("HashiCorp JSON output format: an unknown value its configuration writes from a data source read at apply cannot be simulated, and says where it is", () => {
    const tf = tfPolicy("pol-prod-admin");
    const { description: _d, ...after } = tf;
    const config = { root_module: { resources: [{ address: "conductorone_policy.prod_admin", expressions: { description: { references: ["data.http.blurb.response_body", "data.http.blurb"] } } }] } };
    const read = { address: "data.http.blurb", mode: "data", type: "http", name: "blurb", change: { actions: ["read"], before: null, after: {}, after_unknown: { response_body: true } } };
    const r = terraformPlanEdit(world, plan([policyChange("conductorone_policy.prod_admin", ["update"], tf, after, { description: true }), read], config));
    expect(!r.ok && r.error[0]).toMatchObject({ code: "PLAN_UNRESOLVED_UNKNOWN", path: "$.resource_changes[0].change.after.description" });
  });

  it("two unknown policy ids in one expression are matched in order; more unknowns than created policies is ambiguous", () => {
    const created = (name: string) =>
      policyChange(`conductorone_policy.${name}`, ["create"], null, { display_name: name, policy_type: "POLICY_TYPE_GRANT", policy_steps: { grant: { steps: [] } } }, { id: true });
    const base = tfPolicy("pol-sales-access");
    const rules = [
      { condition: "true", policy_id: null },
      { condition: "false", policy_id: null },
    ];
    const config = {
      root_module: {
        resources: [
          { address: "conductorone_policy.sales", expressions: { rules: { references: ["conductorone_policy.a.id", "conductorone_policy.a", "conductorone_policy.b.id", "conductorone_policy.b"] } } },
        ],
      },
    };
    const update = policyChange("conductorone_policy.sales", ["update"], base, { ...base, rules }, { rules: [{ policy_id: true }, { policy_id: true }] });
    const r = terraformPlanEdit(world, plan([update, created("a"), created("b")], config));
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(r.value.policies[0]?.rules?.map((x) => x.policyId)).toEqual(["conductorone_policy.a", "conductorone_policy.b"]);
    const three = { ...update, change: { ...update.change, after: { ...base, rules: [...rules, { condition: "1 == 1", policy_id: null }] }, after_unknown: { rules: [{ policy_id: true }, { policy_id: true }, { policy_id: true }] } } };
    const bad = terraformPlanEdit(world, plan([three, created("a"), created("b")], config));
    expect(!bad.ok && bad.error[0]?.message).toContain("which is which cannot be told");
  });

  it("terraform/policy-resource.md (a rule's policy_id and step_key are \"part of the `outcome` oneof\"): a rule inserted with a new policy's id where an old rule had a step key sends the policy id alone (Terraform review H1)", () => {
    const created = policyChange("conductorone_policy.review", ["create"], null, { display_name: "Review", policy_type: "POLICY_TYPE_GRANT", policy_steps: { grant: { steps: [] } } }, { id: true });
    const base = tfPolicy("pol-prod-admin");
    const oldRules = base["rules"] as Record<string, Json>[];
    expect(oldRules[0]?.["step_key"]).toBeTruthy();
    // rules[0] is new, pointing at the created policy: Terraform plans its outcome unknown, the old rules shift down.
    const rules = [{ condition: 'subject.department == "Finance"' }, ...oldRules];
    const config = { root_module: { resources: [{ address: "conductorone_policy.prod_admin", expressions: { rules: { references: ["conductorone_policy.review.id", "conductorone_policy.review"] } } }] } };
    const update = policyChange("conductorone_policy.prod_admin", ["update"], base, { ...base, rules }, { rules: [{ policy_id: true, step_key: true, policy_key: true }, ...oldRules.map(() => ({}))] });
    const r = terraformPlanEdit(world, plan([update, created], config));
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    const first = r.value.policies.find((p) => p.id === "pol-prod-admin")?.rules?.[0];
    expect(first).toMatchObject({ policyId: "conductorone_policy.review" });
    expect(first?.stepKey ?? "").toBe("");
  });

  it("HashiCorp JSON output format: a whole list of policy ids unknown (`compact([conductorone_policy.x.id])`) holds the policies its expression refers to, not its value before (Terraform review H2)", () => {
    const created = policyChange("conductorone_policy.agent_target", ["create"], null, { display_name: "Agent target", policy_type: "POLICY_TYPE_GRANT", policy_steps: { grant: { steps: [] } } }, { id: true });
    const agentStep = (policyIds: string[] | null) => ({ approval: { agent: { agent_user_id: "u-agent", instructions: "", agent_mode: "APPROVAL_AGENT_MODE_UNSPECIFIED", agent_failure_action: "APPROVAL_AGENT_FAILURE_ACTION_UNSPECIFIED", reassign_to_user_ids: [], ...(policyIds ? { policy_ids: policyIds } : {}) } } });
    const base = { ...tfPolicy("pol-sales-access"), policy_steps: { grant: { steps: [agentStep(["pol-security-review"])] } } };
    const after = { ...base, policy_steps: { grant: { steps: [agentStep(null)] } } };
    const unknown = { policy_steps: { grant: { steps: [{ approval: { agent: { policy_ids: true } } }] } } };
    const update = policyChange("conductorone_policy.sales", ["update"], base, after, unknown);
    // The whole policy_steps is one expression (a nested attribute): the only policy it refers to is the created one.
    const whole = { root_module: { resources: [{ address: "conductorone_policy.sales", expressions: { policy_steps: { references: ["conductorone_policy.agent_target.id", "conductorone_policy.agent_target"] } } }] } };
    const r = terraformPlanEdit(world, plan([update, created], whole));
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    const step = r.value.policies.find((p) => p.id === "pol-sales-access")?.policySteps?.["grant"]?.steps?.[0];
    expect(step?.kind === "approval" && step.approvers?.kind === "agent" && step.approvers.policyIds).toEqual(["conductorone_policy.agent_target"]);
    // Referring to a known policy too, inside the whole expression: which of them the list holds cannot be told.
    const known = policyChange("conductorone_policy.security", ["no-op"], tfPolicy("pol-security-review"), tfPolicy("pol-security-review"));
    const both = { root_module: { resources: [{ address: "conductorone_policy.sales", expressions: { policy_steps: { references: ["conductorone_policy.agent_target.id", "conductorone_policy.agent_target", "conductorone_policy.security.id", "conductorone_policy.security"] } } }] } };
    const unclear = terraformPlanEdit(world, plan([update, created, known], both));
    expect(!unclear.ok && unclear.error[0]).toMatchObject({ code: "PLAN_UNRESOLVED_UNKNOWN", message: expect.stringContaining("which policies it holds cannot be told") });
  });

  it('HashiCorp JSON output format: a reference to one for_each instance (`conductorone_policy.team["eu"].id`, listed beside the resource and the instance) resolves to that instance (Terraform review M2)', () => {
    const created = (key: string) => ({
      ...policyChange(`conductorone_policy.team["${key}"]`, ["create"], null, { display_name: key, policy_type: "POLICY_TYPE_GRANT", policy_steps: { grant: { steps: [] } } }, { id: true }),
      name: "team",
      index: key,
    });
    const base = tfPolicy("pol-sales-access");
    const config = {
      root_module: { resources: [{ address: "conductorone_policy.sales", expressions: { rules: { references: ['conductorone_policy.team["eu"].id', 'conductorone_policy.team["eu"]', "conductorone_policy.team"] } } }] },
    };
    const update = policyChange("conductorone_policy.sales", ["update"], base, { ...base, rules: [{ condition: "true" }] }, { rules: [{ policy_id: true }] });
    const r = terraformPlanEdit(world, plan([update, created("us"), created("eu")], config));
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(r.value.policies.find((p) => p.id === "pol-sales-access")?.rules?.[0]?.policyId).toBe('conductorone_policy.team["eu"]');
  });

  it("module and instance addresses: a resource in a module with for_each refers to its sibling in the same instance", () => {
    const config = {
      root_module: {
        module_calls: {
          team: {
            module: {
              resources: [{ address: "conductorone_policy.main", expressions: { baseline_policy_id: { references: ["conductorone_policy.fallback[0].id", "conductorone_policy.fallback[0]", "conductorone_policy.fallback"] } } }],
            },
          },
        },
      },
    };
    const mk = (addr: string, m: string, after: unknown, unknown: unknown) => policyChange(addr, ["create"], null, after, unknown, m);
    const steps = { grant: { steps: [{ accept: { accept_message: "ok" } }] } };
    const r = terraformPlanEdit(
      world,
      plan(
        [
          mk('module.team["eu"].conductorone_policy.main', 'module.team["eu"]', { display_name: "EU", policy_type: "POLICY_TYPE_GRANT", baseline_policy_id: null }, { id: true, baseline_policy_id: true }),
          mk('module.team["eu"].conductorone_policy.fallback[0]', 'module.team["eu"]', { display_name: "EU fallback", policy_type: "POLICY_TYPE_GRANT", policy_steps: steps }, { id: true }),
          mk('module.team["us"].conductorone_policy.fallback[0]', 'module.team["us"]', { display_name: "US fallback", policy_type: "POLICY_TYPE_GRANT", policy_steps: steps }, { id: true }),
        ],
        config,
      ),
    );
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(r.value.policies[0]?.baselinePolicyId).toBe('module.team["eu"].conductorone_policy.fallback[0]');
    expect(withoutInstanceKeys('module.team["eu"].conductorone_policy.fallback[0]')).toBe("module.team.conductorone_policy.fallback");
  });

  it("for_each siblings: `fallback[each.key].id` from an instance names the sibling with the same key", () => {
    const config = { root_module: { resources: [{ address: "conductorone_policy.main", expressions: { baseline_policy_id: { references: ["conductorone_policy.fallback", "each.key"] } } }] } };
    const mk = (addr: string, after: unknown, unknown: unknown) => policyChange(addr, ["create"], null, after, unknown);
    const steps = { grant: { steps: [{ accept: { accept_message: "ok" } }] } };
    const changes = ["eu", "us"].flatMap((k) => [
      mk(`conductorone_policy.main["${k}"]`, { display_name: `main ${k}`, policy_type: "POLICY_TYPE_GRANT", policy_steps: steps, baseline_policy_id: null }, { id: true, baseline_policy_id: true }),
      mk(`conductorone_policy.fallback["${k}"]`, { display_name: `fallback ${k}`, policy_type: "POLICY_TYPE_GRANT", policy_steps: steps }, { id: true }),
    ]);
    const r = terraformPlanEdit(world, plan(changes, config));
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    const main = (k: string) => r.value.policies.find((p) => p.displayName === `main ${k}`)?.baselinePolicyId;
    expect([main("eu"), main("us")]).toEqual(['conductorone_policy.fallback["eu"]', 'conductorone_policy.fallback["us"]']);
  });

  it("a replacement is a new policy, under its address, that deletes the old id: accepted when the plan points the old id's referrers at it; two changes of one policy are refused", () => {
    const tf = tfPolicy("pol-finance-form");
    const { id: _id, created_at: _c, updated_at: _u, system_builtin: _s, ...fresh } = tf;
    const ent = { id: "ent-sf-finance-reports", app_id: "app-salesforce", grant_policy_id: "pol-finance-form" };
    const { grant_policy_id: _g, ...entAfter } = ent;
    const config = { root_module: { resources: [{ address: "conductorone_app_entitlement.finance", expressions: { grant_policy_id: { references: ["conductorone_policy.finance.id", "conductorone_policy.finance"] } } }] } };
    const replaced = terraformPlanEdit(
      world,
      plan(
        [
          policyChange("conductorone_policy.finance", ["create", "delete"], tf, { ...fresh, display_name: "Finance v2" }, { id: true, created_at: true, updated_at: true, system_builtin: true }),
          { address: "conductorone_app_entitlement.finance", mode: "managed", type: "conductorone_app_entitlement", name: "finance", change: { actions: ["update"], before: ent, after: entAfter, after_unknown: { grant_policy_id: true } } },
        ],
        config,
      ),
    );
    if (!replaced.ok) throw new Error(JSON.stringify(replaced.error));
    expect(replaced.value.changes[0]).toMatchObject({ action: "replace", policyId: "conductorone_policy.finance", replaces: "pol-finance-form", displayName: "Finance v2" });
    expect(replaced.value.deleted).toEqual(["pol-finance-form"]);
    expect(replaced.value.entitlements?.map((e) => [e.id, e.grantPolicyId])).toEqual([["ent-sf-finance-reports", "conductorone_policy.finance"]]);
    const w = whatIf(world, terraformEditRecipe(replaced.value), { scope: { states: "any" } });
    expect(w.ok && w.value.changed.length).toBeGreaterThan(0);
    expect(w.ok && w.value.changed.every((t) => t.after.kind === "route" && t.after.policyId === "conductorone_policy.finance")).toBe(true);
    // Without the entitlement's move, the service refuses the delete half of the replacement.
    const alone = terraformPlanEdit(world, plan([policyChange("conductorone_policy.finance", ["create", "delete"], tf, { ...fresh, display_name: "Finance v2" }, { id: true })]));
    expect(!alone.ok && alone.error.map((d) => d.code)).toEqual(["PLAN_DELETE_REFERENCED"]);
    const twice = terraformPlanEdit(world, plan([policyChange("conductorone_policy.a", ["update"], tf, tf), policyChange("conductorone_policy.b", ["update"], tf, tf)]));
    expect(!twice.ok && twice.error[0]?.code).toBe("PLAN_DUPLICATE_POLICY");
  });

  it("read-only attributes inside steps (approval.assigned; assigned_user_ids of expression, manager, self), unknown on create, are the service's to fill in", () => {
    const after = {
      display_name: "Reviewed",
      policy_type: "POLICY_TYPE_GRANT",
      policy_steps: { grant: { steps: [{ approval: { assigned: null, manager: { allow_self_approval: false, assigned_user_ids: null } } }] } },
    };
    const unknown = { id: true, policy_steps: { grant: { steps: [{ approval: { assigned: true, manager: { assigned_user_ids: true } } }] } } };
    const r = terraformPlanEdit(world, plan([policyChange("conductorone_policy.reviewed", ["create"], null, after, unknown)]));
    expect(r.ok && r.value.policies.map((p) => p.displayName)).toEqual(["Reviewed"]);
    // Elsewhere an unknown value an expression writes from something read at apply is still refused.
    const elsewhere = { id: true, policy_steps: { grant: { steps: [{ approval: { manager: { fallback_user_ids: [true] } } }] } } };
    const config = { root_module: { resources: [{ address: "conductorone_policy.reviewed", expressions: { policy_steps: { references: ["data.conductorone_user.ciso.id", "data.conductorone_user.ciso"] } } }] } };
    const read = { address: "data.conductorone_user.ciso", mode: "data", type: "conductorone_user", name: "ciso", change: { actions: ["read"], before: null, after: {}, after_unknown: { id: true } } };
    const refused = terraformPlanEdit(world, plan([policyChange("conductorone_policy.reviewed", ["create"], null, after, elsewhere), read], config));
    expect(!refused.ok && refused.error.map((d) => [d.code, d.path])).toEqual([
      ["PLAN_UNRESOLVED_UNKNOWN", "$.resource_changes[0].change.after.policy_steps.grant.steps[0].approval.manager.fallback_user_ids[0]"],
    ]);
    expect(!refused.ok && refused.error[0]?.message).toContain("data.conductorone_user.ciso.id");
  });

  it("a create is a new policy even where a world policy carries its address annotation (after `terraform state rm`)", () => {
    const annotated = world.policies.find((p) => p.annotations?.["iac_resource_address"] !== undefined);
    expect(annotated, "the fixture has an annotated policy").toBeDefined();
    const address = annotated?.annotations?.["iac_resource_address"] ?? "";
    const r = terraformPlanEdit(world, plan([policyChange(address, ["create"], null, { display_name: "New", policy_type: "POLICY_TYPE_GRANT", policy_steps: { grant: { steps: [] } } }, { id: true })]));
    expect(r.ok && r.value.changes.map((c) => [c.matchedBy, c.policyId === annotated?.id])).toEqual([["new", false]]);
  });

  it("Terraform state, or a plan of another major format version, is not a plan (HashiCorp's JSON output format)", () => {
    const state = readPlan({ format_version: "1.0", terraform_version: "1.9.8", values: { root_module: { resources: [] } } });
    expect(!state.ok && state.error[0]).toMatchObject({ code: "PLAN_NOT_A_PLAN", path: "$" });
    expect(!state.ok && state.error[0]?.message).toMatch(/Terraform state/);
    const v2 = readPlan({ format_version: "2.0", resource_changes: [] });
    expect(!v2.ok && v2.error[0]).toMatchObject({ code: "PLAN_NOT_A_PLAN", path: "$.format_version" });
    expect(readPlan({ format_version: "1.2", planned_values: {}, configuration: {} }).ok).toBe(true);
  });

  it("HashiCorp JSON output format (every resource_changes item is an object with a type): a malformed item is reported at its path, not skipped unsaid (Terraform review L3)", () => {
    const good = policyChange("conductorone_policy.sales", ["no-op"], tfPolicy("pol-sales-access"), tfPolicy("pol-sales-access"));
    const { type: _type, ...untyped } = policyChange("conductorone_policy.sales", ["update"], tfPolicy("pol-sales-access"), tfPolicy("pol-sales-access"));
    expect(readPlan(plan([good, "conductorone_policy.x"]))).toMatchObject({ ok: false, error: [{ code: "PLAN_BAD_RESOURCE_CHANGE", path: "$.resource_changes[1]", message: "a resource change must be an object, not string" }] });
    expect(readPlan(plan([untyped]))).toMatchObject({ ok: false, error: [{ code: "PLAN_BAD_RESOURCE_CHANGE", path: "$.resource_changes[0].type" }] });
    expect(readPlan(plan([good])).ok).toBe(true);
  });

  it("HashiCorp JSON output format (after_unknown is an object of the unknown attributes): true, the whole resource unknown, is said so; a list is no plan (hostile review 2: an empty attribute path, and a list read as nothing unknown)", () => {
    const tf = tfPolicy("pol-sales-access");
    const whole = terraformPlanEdit(world, plan([policyChange("conductorone_policy.sales", ["update"], tf, tf, true)]));
    expect(!whole.ok && whole.error[0]).toMatchObject({ code: "PLAN_BAD_RESOURCE_CHANGE", path: "$.resource_changes[0].change.after_unknown", message: "conductorone_policy.sales: the whole resource is known only after apply, so it cannot be simulated" });
    const list = terraformPlanEdit(world, plan([policyChange("conductorone_policy.sales", ["update"], tf, tf, [true])]));
    expect(!list.ok && list.error[0]?.message).toBe("conductorone_policy.sales: after_unknown must be an object of the attributes known only after apply");
    expect(terraformPlanEdit(world, plan([policyChange("conductorone_policy.sales", ["update"], tf, tf, {})])).ok).toBe(true);
  });

  it("a value that does not decode as a policy is reported at its path in the plan, in the provider's names", () => {
    const tf = tfPolicy("pol-sales-access");
    const after = { ...tf, policy_steps: { grant: { steps: [{ wait: { name: "w", duration: { duration: "2h" } } }] } } };
    const r = terraformPlanEdit(world, plan([policyChange("conductorone_policy.sales", ["update"], tf, after)]));
    expect(!r.ok && r.error.map((d) => [d.code, d.path])).toEqual([["PLAN_BAD_POLICY", "$.resource_changes[0].change.after.policy_steps.grant.steps[0].wait.duration.duration"]]);
  });

  it("a document that is not a plan, or a malformed change, is a diagnostic, never a throw", () => {
    expect(readPlan({ resource_changes: "x" }).ok).toBe(false);
    expect(readPlan([]).ok).toBe(false);
    const bad = readPlan(plan([{ type: "conductorone_policy", address: "conductorone_policy.a", change: { actions: ["explode"] } }]));
    expect(!bad.ok && bad.error[0]?.path).toBe("$.resource_changes[0].change.actions");
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), fc.jsonValue(), (after, unknown, config) => {
        const r = terraformPlanEdit(world, plan([policyChange("conductorone_policy.x", ["update"], { id: "pol-sales-access" }, after, unknown)], config));
        expect(typeof r.ok).toBe("boolean");
      }),
      { numRuns: 300 },
    );
    // The resource's own block, with expressions of any shape, against unknowns of any shape.
    const before = tfPolicy("pol-sales-access");
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), fc.jsonValue(), (expressions, unknown, calls) => {
        const config = { root_module: { resources: [{ address: "conductorone_policy.x", expressions }], module_calls: calls } };
        const r = terraformPlanEdit(world, plan([policyChange("conductorone_policy.x", ["update"], before, before, unknown)], config));
        expect(typeof r.ok).toBe("boolean");
      }),
      { numRuns: 300 },
    );
  });
});

const fixture = (name: string): Record<string, unknown> => JSON.parse(disk(`fixtures/terraform/${name}`)) as Record<string, unknown>;
const cli = async (argv: string[], files: Record<string, string> = {}) => {
  const io = memoryIO({ files, fallback: disk });
  const code = await runCli(argv, io);
  return { code, out: io.out(), err: io.err() };
};
const whatifPlan = (file: string, ...flags: string[]) => cli(["whatif", "--world", WORLD_FILE, "--terraform-plan", file, ...flags]);
const wire = (p: Policy | undefined): unknown => (p === undefined ? undefined : encodePolicy(p));
/** pol-prod-admin without its rule 2, every value known: what speakeasy-update.json plans with unknowns. */
const dropRule2 = (): Record<string, unknown> => {
  const before = tfPolicy("pol-prod-admin");
  const rules = (before["rules"] as Json[]).filter((_, i) => i !== 2);
  return plan([policyChange("conductorone_policy.prod_admin", ["update"], before, { ...before, rules })]);
};

describe("terraform/policy-resource.md + HashiCorp JSON output format: unknown values the configuration does not write (Optional + Computed)", () => {
  const known = terraformPlanEdit(world, dropRule2());
  if (!known.ok) throw new Error(JSON.stringify(known.error));

  it("an update planned as terraform-plugin-framework plans the Speakeasy provider (every unset attribute unknown, fixtures/terraform/speakeasy-update.json) simulates as the same update fully known", () => {
    const r = terraformPlanEdit(world, fixture("speakeasy-update.json"));
    if (!r.ok) throw new Error(JSON.stringify(r.error.slice(0, 3)));
    expect(wire(r.value.policies[0])).toEqual(wire(known.value.policies[0]));
    expect(r.value.notes).toEqual([]);
    const a = whatIf(world, terraformEditRecipe(r.value), { scope: { states: "any" } });
    const b = whatIf(world, terraformEditRecipe(known.value), { scope: { states: "any" } });
    expect(a.ok && a.value.changed.map((t) => t.numericId)).toEqual(b.ok && b.value.changed.map((t) => t.numericId));
    expect(a.ok && a.value.changed.map((t) => t.numericId)).toEqual(["1001"]);
  });

  it("terraform/policy-resource.md (a rule's policy_id and step_key are one `outcome` oneof): a rule's unknown step_key beside its policy_id is unset, not the step key the rule at that index had before", () => {
    const r = terraformPlanEdit(world, fixture("speakeasy-update.json"));
    if (!r.ok) throw new Error(JSON.stringify(r.error.slice(0, 3)));
    const before = world.index.policies.get("pol-prod-admin")?.rules?.[2];
    expect(before?.stepKey).not.toBe("");
    expect(r.value.policies[0]?.rules?.[2]).toMatchObject({ policyId: "pol-prod-admin-eng", stepKey: "" });
  });

  it("terraform/policy-resource.md (\"only a single field … may be set at a time\"): a step switched from users to manager approval does not bring the users back from before", () => {
    const key = "61013ecb-7769-4434-ae63-f64ab27dd2a0";
    const before = tfPolicy("pol-prod-admin");
    const steps = before["policy_steps"] as Record<string, { steps: Record<string, Record<string, Json>>[] }>;
    const approval = { ...steps[key]!.steps[0]!["approval"]! };
    delete approval["users"];
    approval["manager"] = { allow_self_approval: false, require_distinct_approvers: false, fallback: false, fallback_group_ids: [], fallback_user_ids: [], is_group_fallback_enabled: false, assigned_user_ids: null };
    const after = { ...before, policy_steps: { ...steps, [key]: { steps: [{ approval }, steps[key]!.steps[1]!] } } };
    const unknown = { policy_steps: { [key]: { steps: [{ approval: { users: true } }] } } };
    const config = { root_module: { resources: [{ address: "conductorone_policy.prod_admin", expressions: { policy_steps: { references: ["var.approvers"] } } }] } };
    const r = terraformPlanEdit(world, plan([policyChange("conductorone_policy.prod_admin", ["update"], before, after, unknown)], config));
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    const step = r.value.policies[0]?.policySteps?.[key]?.steps?.[0];
    expect(JSON.stringify(encodePolicy(r.value.policies[0]!))).not.toContain('"userIds":["u-sre-lead","u-ciso"]');
    expect(step?.kind).toBe("approval");
    const w = whatIf(world, terraformEditRecipe(r.value), { scope: { taskIds: ["1006"] } });
    expect(w.ok && w.value.changed.map((t) => t.after.kind === "route" && t.after.firstStep?.detail)).toEqual(["approval by manager"]);
  });

  it("a create planned the same way, and an entitlement pointed at it (speakeasy-create-and-point.json): the policy's unset attributes stay unset, the entitlement's are as before", () => {
    const r = terraformPlanEdit(world, fixture("speakeasy-create-and-point.json"));
    if (!r.ok) throw new Error(JSON.stringify(r.error.slice(0, 3)));
    expect(wire(r.value.policies[0])).toMatchObject({
      displayName: "Contractor prod admin",
      policySteps: { grant: { steps: [{ approval: { users: { userIds: ["u-ciso"] } } }, { provision: { provisionPolicy: { connector: { defaultBehavior: { connectorId: "conn-aws" } } } } }] } },
      rules: [{ condition: 'subject.employmentType == "Contractor"', stepKey: "grant" }],
    });
    expect(JSON.stringify(wire(r.value.policies[0]))).not.toMatch(/"escalation":\{|"description":"[^"]/);
    const was = world.entitlements.find((e) => e.id === "ent-aws-prod-admin");
    expect(r.value.entitlements?.[0]).toEqual({ ...was, grantPolicyId: "conductorone_policy.contractor_admin" });
    const w = whatIf(world, terraformEditRecipe(r.value));
    expect(w.ok && w.value.changed.length).toBeGreaterThan(0);
    expect(w.ok && w.value.changed.every((t) => t.after.kind === "route" && t.after.policyId === "conductorone_policy.contractor_admin")).toBe(true);
  });

  it("terraform/policy-resource.md (provision.assigned is Optional, not Read-Only): unknown on a create and unset in the configuration (create-and-point.json), it is unset", () => {
    const r = terraformPlanEdit(world, fixture("create-and-point.json"));
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(r.value.changes.map((c) => c.address)).toEqual(["conductorone_policy.contractor_admin"]);
    expect(r.value.entitlements?.map((e) => e.grantPolicyId)).toEqual(["conductorone_policy.contractor_admin"]);
  });

  it("HashiCorp JSON output format: a plan without its configuration section takes every unknown value as the provider's default, and a note says so", () => {
    const { configuration: _c, ...bare } = fixture("speakeasy-update.json");
    const r = terraformPlanEdit(world, bare);
    if (!r.ok) throw new Error(JSON.stringify(r.error.slice(0, 3)));
    expect(wire(r.value.policies[0])).toEqual(wire(known.value.policies[0]));
    expect(r.value.notes[0]).toMatch(/^the plan has no configuration section/);
    expect(r.value.notes).toContain("conductorone_policy.prod_admin: baseline_policy_id is known only after apply; without a configuration it is taken as its value before the change");
    // A configuration without the resource's block says the same of the resource.
    const noBlock = terraformPlanEdit(world, { ...bare, configuration: { root_module: {} } });
    expect(noBlock.ok && noBlock.value.notes.some((n) => n.startsWith("conductorone_policy.prod_admin: the plan's configuration has no block for this resource"))).toBe(true);
  });

  it("HashiCorp JSON output format (expressions): an unknown value under an expression that refers only to what is known while planning is the provider's default; under one that refers to a data source read at apply it is not", () => {
    const before = tfPolicy("pol-sales-access");
    const steps = before["policy_steps"] as Record<string, { steps: Record<string, Record<string, Json>>[] }>;
    // The fixture's step is `require_denial_reason = true`; the plan leaves it unknown.
    const { require_denial_reason: _r, ...approval } = steps["grant"]!.steps[0]!["approval"]!;
    const after = { ...before, policy_steps: { ...steps, grant: { steps: [{ approval }, ...steps["grant"]!.steps.slice(1)] } } };
    const change = policyChange("conductorone_policy.sales", ["update"], before, after, { policy_steps: { grant: { steps: [{ wait: true, approval: { require_denial_reason: true } }] } } });
    const config = (refs: string[]) => ({ root_module: { resources: [{ address: "conductorone_policy.sales", expressions: { policy_steps: { references: refs } } }] } });
    const read = { address: "data.conductorone_user.lead", mode: "data", type: "conductorone_user", name: "lead", change: { actions: ["read"], before: null, after: {}, after_unknown: { id: true } } };
    const ok = terraformPlanEdit(world, plan([change, read], config(["local.steps", "var.reviewers"])));
    expect(ok.ok && wire(ok.value.policies[0])).toEqual(wire(world.index.policies.get("pol-sales-access")));
    // The plan's JSON does not say what local.steps holds: the default is taken, and the report says on what ground.
    expect(ok.ok && ok.value.notes).toContainEqual(
      expect.stringMatching(/^conductorone_policy\.sales: policy_steps\.grant\.steps\[0\]\.approval\.require_denial_reason is known only after apply and written by an expression that reads local\.steps, .*its value before the change/),
    );
    const viaVariable = terraformPlanEdit(world, plan([change, read], config(["var.reviewers"])));
    expect(viaVariable.ok && viaVariable.value.notes.filter((n) => n.includes("local."))).toEqual([]);
    const refused = terraformPlanEdit(world, plan([change, read], config(["data.conductorone_user.lead.id", "data.conductorone_user.lead"])));
    expect(!refused.ok && refused.error.map((d) => d.path)).toEqual(["$.resource_changes[0].change.after.policy_steps.grant.steps[0].approval.require_denial_reason"]);
    expect(!refused.ok && refused.error[0]?.message).toContain("(it refers to data.conductorone_user.lead.id)");
  });
});

describe("terraform/policy-resource.md: attribute names are the provider schema's", () => {
  it("a plan with an older provider's names (old-provider-names.json: user_approval, manager_approval) is refused at each name, with the schema's name", () => {
    const r = terraformPlanEdit(world, fixture("old-provider-names.json"));
    expect(!r.ok && r.error.map((d) => [d.code, d.path.replace(/^.*\.approval\./, "")])).toEqual([
      ["PLAN_UNKNOWN_ATTRIBUTE", "manager_approval"],
      ["PLAN_UNKNOWN_ATTRIBUTE", "user_approval"],
    ]);
    expect(!r.ok && r.error.map((d) => /did you mean "(\w+)"/.exec(d.message)?.[1])).toEqual(["manager", "users"]);
    expect(!r.ok && r.error[0]?.path).toBe('$.resource_changes[0].change.after.policy_steps["5650fd2e-58bd-4dab-a08a-7314c0a4d8a3"].steps[0].approval.manager_approval');
  });

  it("a plan holding the API's camelCase names (camel-case-after.json) is refused, each name with its snake_case spelling", () => {
    const r = terraformPlanEdit(world, fixture("camel-case-after.json"));
    expect(!r.ok && r.error.every((d) => d.code === "PLAN_UNKNOWN_ATTRIBUTE")).toBe(true);
    const said = !r.ok ? Object.fromEntries(r.error.map((d) => [d.path.replace("$.resource_changes[0].change.after", ""), /did you mean "(\w+)"/.exec(d.message)?.[1]])) : {};
    expect(said).toMatchObject({ ".displayName": "display_name", ".policySteps": "policy_steps", ".rules[0].stepKey": "step_key", ".rules[2].policyId": "policy_id" });
  });

  it("an attribute a newer provider adds, left unset, is a note and changes nothing", () => {
    const before = tfPolicy("pol-prod-admin");
    const steps = before["policy_steps"] as Record<string, { steps: Record<string, Record<string, Json>>[] }>;
    steps["grant"]!.steps[0]!["approval"]!["new_flag"] = false;
    const r = terraformPlanEdit(world, plan([policyChange("conductorone_policy.prod_admin", ["update"], before, before)]));
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(r.value.notes).toEqual([
      "conductorone_policy.prod_admin: policy_steps.grant.steps[0].approval.new_flag is not an attribute of the conductorone_policy schema this version knows; it is unset, so it is ignored",
    ]);
    expect(wire(r.value.policies[0])).toEqual(wire(world.index.policies.get("pol-prod-admin")));
  });

  it("suggestions: snake_case of an API name, the older provider's `_approval` names, a misspelling", () => {
    expect(suggestAttribute("svcResourceAction", ["automation", "baton_resource_action"])).toBe("baton_resource_action");
    expect(suggestAttribute("app_group_approval", ["group", "users"])).toBe("group");
    expect(suggestAttribute("entitlement_owner_approval", ["entitlement_owners", "users"])).toBe("entitlement_owners");
    expect(suggestAttribute("alow_delegation", ["allow_delegation"])).toBe("allow_delegation");
    expect(suggestAttribute("zzz", ["users"])).toBeUndefined();
  });

  it.skipIf(!existsSync(POLICY_RESOURCE_MD))("the names in code (policy-schema.ts) are terraform/policy-resource.md's, at every depth, read-only ones marked", () => {
    const page = readFileSync(POLICY_RESOURCE_MD, "utf8");
    const schema = page.slice(page.indexOf("## Schema"));
    const fromPage = new Map<string, string>();
    let section = "";
    let kind = "";
    for (const line of schema.split("\n")) {
      const nested = /^### Nested Schema for `([^`]+)`/.exec(line);
      if (nested) section = nested[1] ?? "";
      const heading = /^(?:### )?(Required|Optional|Read-Only):?$/.exec(line);
      if (heading) kind = heading[1] ?? "";
      const attr = /^- `([a-z0-9_]+)` \(/.exec(line);
      if (attr) fromPage.set(section === "" ? (attr[1] ?? "") : `${section}.${attr[1]}`, kind);
    }
    const fromCode = new Map<string, string>();
    const walk = (attributes: Readonly<Record<string, SchemaAttribute>>, at: string): void => {
      for (const [name, a] of Object.entries(attributes)) {
        const path = at === "" ? name : `${at}.${name}`;
        fromCode.set(path, a.kind === "value" && a.readOnly ? "Read-Only" : path === "display_name" ? "Required" : "Optional");
        if (a.kind === "nested") walk(a.attributes, path);
      }
    };
    walk(POLICY_SCHEMA, "");
    expect(new Map([...fromCode].sort())).toEqual(new Map([...fromPage].sort()));
  });
});

describe("HashiCorp JSON output format: errored and incomplete plans", () => {
  it("a plan Terraform stopped on an error (errored: true, errored.json) is refused: exit 2", async () => {
    const r = terraformPlanEdit(world, fixture("errored.json"));
    expect(!r.ok && r.error.map((d) => [d.code, d.path])).toEqual([["PLAN_ERRORED", "$.errored"]]);
    const run = await whatifPlan("fixtures/terraform/errored.json");
    expect(run.code).toBe(EXIT.badInput);
    expect(run.err).toContain("PLAN_ERRORED at $.errored: Terraform stopped this plan on an error");
  });

  it("an incomplete plan (complete: false, deferred_changes; incomplete.json) is simulated with a warning naming each deferred change, first in every report", async () => {
    const r = terraformPlanEdit(world, fixture("incomplete.json"));
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(r.value.warnings).toEqual([
      "this plan is incomplete (complete: false): Terraform deferred a change to a later plan, and it is not simulated: conductorone_policy.other",
    ]);
    const text = await whatifPlan("fixtures/terraform/incomplete.json");
    expect(text.code).toBe(EXIT.findings);
    expect(text.out.split("\n")[1]).toMatch(/^ {2}WARNING: this plan is incomplete .*conductorone_policy\.other$/);
    expect(text.err).toContain("warning: this plan is incomplete");
    const md = await whatifPlan("fixtures/terraform/incomplete.json", "--format", "markdown");
    expect(md.out).toMatch(/\*\*1 of \d+ tasks would route differently\.\*\*\n\n> \[!WARNING\]\n> this plan is incomplete/);
    const json = await whatifPlan("fixtures/terraform/incomplete.json", "--json");
    expect((JSON.parse(json.out) as { terraform: { warnings: string[] } }).terraform.warnings).toHaveLength(1);
    const readsNoWarning = terraformPlanEdit(world, dropRule2());
    expect(readsNoWarning.ok && readsNoWarning.value.warnings).toBeUndefined();
  });
});

describe("terraform/policy-resource.md: replacements, an out-of-date world, module instances", () => {
  it("a replacement of a policy others reference (replace-referenced.json) is refused as its delete would be: exit 2 naming each referrer", async () => {
    const r = terraformPlanEdit(world, fixture("replace-referenced.json"));
    expect(!r.ok && r.error.map((d) => [d.code, d.path])).toEqual([["PLAN_DELETE_REFERENCED", "$.resource_changes[0]"]]);
    expect(!r.ok && r.error[0]?.message).toContain('policy "pol-security-review" is replaced');
    expect(!r.ok && r.error[0]?.message).toContain('policy "pol-prod-admin-eng" (baseline_policy_id)');
    const run = await whatifPlan("fixtures/terraform/replace-referenced.json");
    expect(run.code).toBe(EXIT.badInput);
  });

  it("an update of a policy the world does not have (unmatched-update.json) says the world is out of date: exit 2", async () => {
    const r = terraformPlanEdit(world, fixture("unmatched-update.json"));
    expect(!r.ok && r.error.map((d) => [d.code, d.path])).toEqual([["PLAN_WORLD_OUT_OF_DATE", "$.resource_changes[0].change.before"]]);
    const run = await whatifPlan("fixtures/terraform/unmatched-update.json");
    expect(run.code).toBe(EXIT.badInput);
    expect(run.err).toContain('the world snapshot lacks policy "pol-unknown-id", which the plan updates');
    expect(run.err).toContain("pull the tenant again");
  });

  it("a policy id from an output of a module instance (`module.team[0].policy_id`, module-count-ref.json) resolves to that instance's policy", () => {
    const r = terraformPlanEdit(world, fixture("module-count-ref.json"));
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(r.value.policies.find((p) => p.id === "pol-sales-access")?.rules?.[0]?.policyId).toBe("module.team[0].conductorone_policy.p");
  });

  it('`module.team["eu"].policy_id` (for_each) names the "eu" instance, not another', () => {
    const mod = { outputs: { policy_id: { expression: { references: ["conductorone_policy.p.id", "conductorone_policy.p"] } } }, resources: [{ address: "conductorone_policy.p", expressions: {} }] };
    const config = { root_module: { resources: [{ address: "conductorone_policy.sales", expressions: { baseline_policy_id: { references: ['module.team["eu"].policy_id', 'module.team["eu"]', "module.team"] } } }], module_calls: { team: { module: mod } } } };
    const mk = (k: string) =>
      policyChange(`module.team["${k}"].conductorone_policy.p`, ["create"], null, { display_name: k, policy_type: "POLICY_TYPE_GRANT", policy_steps: { grant: { steps: [{ reject: { reject_message: k } }] } } }, { id: true }, `module.team["${k}"]`);
    const before = tfPolicy("pol-sales-access");
    const { baseline_policy_id: _b, ...after } = before;
    const r = terraformPlanEdit(world, plan([policyChange("conductorone_policy.sales", ["update"], before, after, { baseline_policy_id: true }), mk("us"), mk("eu")], config));
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(r.value.policies[0]?.baselinePolicyId).toBe('module.team["eu"].conductorone_policy.p');
  });
});

describe("terraform/policy-resource.md: the report says what differs where a route reads the same", () => {
  it("an agent's policy_ids extended by a policy the plan creates (list-unknown-element.json): the task's lines show the policy_ids before and after, as text and as Markdown", async () => {
    const diff = 'policy_steps["f0c2e5bf-693a-467b-aa38-fbf0ce25034b"].steps[0].approval.agent.policy_ids: ["pol-security-review"] → ["pol-security-review","conductorone_policy.agent_target"]';
    const text = await whatifPlan("fixtures/terraform/list-unknown-element.json");
    expect(text.code).toBe(EXIT.findings);
    const lines = text.out.split("\n");
    const after = lines.findIndex((l) => l.startsWith("      after:"));
    expect(lines[after - 1]?.slice("      before:".length)).toBe(lines[after]?.slice("      after: ".length));
    expect(lines[after + 1]).toBe(`      differs in: ${diff}`);
    const md = await whatifPlan("fixtures/terraform/list-unknown-element.json", "--format", "markdown");
    expect(md.out).toContain(`<br>differs in: \`${diff}\``);
  });
});

describe("developer_terraform-best-practices.mdx: policies attached by app and entitlement resources", () => {
  const resource = (type: string, address: string, actions: string[], before: unknown, after: unknown, afterUnknown: unknown = {}) => ({
    address,
    mode: "managed",
    type,
    name: address.split(".").pop(),
    change: { actions, before, after, after_unknown: afterUnknown },
  });

  it("an entitlement's grant_policy_id changed by conductorone_app_entitlement re-routes its tasks (before: 'No task would route differently')", () => {
    const before = { id: "ent-aws-prod-admin", app_id: "app-aws", grant_policy_id: "pol-prod-admin" };
    const r = terraformPlanEdit(world, plan([resource("conductorone_app_entitlement", "conductorone_app_entitlement.prod_admin", ["update"], before, { ...before, grant_policy_id: "pol-sales-access" })]));
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(r.value.entitlements?.map((e) => [e.id, e.grantPolicyId])).toEqual([["ent-aws-prod-admin", "pol-sales-access"]]);
    expect(r.value.notes).toEqual(['conductorone_app_entitlement.prod_admin: entitlement "ent-aws-prod-admin" of app "app-aws": grantPolicyId "pol-prod-admin" → "pol-sales-access"']);
    const w = whatIf(world, terraformEditRecipe(r.value));
    expect(w.ok && w.value.changed.length).toBeGreaterThan(0);
    expect(w.ok && w.value.changed.every((t) => t.after.kind === "route" && t.after.policyId === "pol-sales-access")).toBe(true);
  });

  it("a delete of a policy whose references the same plan moves (conductorone_app) is accepted; without the move it is refused", () => {
    const app = { id: "app-aws", display_name: "AWS", grant_policy_id: "pol-aws-access" };
    const del = policyChange("conductorone_policy.aws_access", ["delete"], { id: "pol-aws-access", display_name: "x" }, null);
    const moved = terraformPlanEdit(world, plan([resource("conductorone_app", "conductorone_app.aws", ["update"], app, { ...app, grant_policy_id: "pol-sales-access" }), del]));
    if (!moved.ok) throw new Error(JSON.stringify(moved.error));
    expect(moved.value.apps?.map((a) => a.grantPolicyId)).toEqual(["pol-sales-access"]);
    const kept = terraformPlanEdit(world, plan([del]));
    expect(!kept.ok && kept.error.map((d) => d.code)).toContain("PLAN_DELETE_REFERENCED");
  });

  it("a custom entitlement's grant_policy_id known only after apply resolves to the policy the plan creates", () => {
    const config = { root_module: { resources: [{ address: "conductorone_custom_app_entitlement.prod_admin", expressions: { grant_policy_id: { references: ["conductorone_policy.fresh.id", "conductorone_policy.fresh"] } } }] } };
    const before = { id: "ent-aws-prod-admin", app_id: "app-aws", grant_policy_id: "pol-prod-admin", created_at: "2026-01-01T00:00:00Z" };
    const r = terraformPlanEdit(
      world,
      plan(
        [
          policyChange("conductorone_policy.fresh", ["create"], null, { display_name: "Fresh", policy_type: "POLICY_TYPE_GRANT", policy_steps: { grant: { steps: [{ accept: { accept_message: "ok" } }] } } }, { id: true }),
          resource("conductorone_custom_app_entitlement", "conductorone_custom_app_entitlement.prod_admin", ["update"], before, { ...before, grant_policy_id: null, updated_at: null }, { grant_policy_id: true, updated_at: true }),
        ],
        config,
      ),
    );
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(r.value.entitlements?.map((e) => e.grantPolicyId)).toEqual(["conductorone_policy.fresh"]);
  });

  it("attributes that do not route (a grant duration), creates and destroys are notes; a wrong type is an error at its path", () => {
    const fixture = terraformPlanEdit(world, fixturePlan());
    expect(fixture.ok && fixture.value.notes).toContain('conductorone_app_entitlement.prod_admin: entitlement "ent-aws-prod-admin" of app "app-aws": nothing that routes a task changes');
    const ent = { id: "ent-aws-prod-admin", app_id: "app-aws" };
    const destroyed = terraformPlanEdit(world, plan([resource("conductorone_app_entitlement", "conductorone_app_entitlement.e", ["delete"], ent, null)]));
    expect(destroyed.ok && destroyed.value.notes[0]).toMatch(/update-only/);
    const bad = terraformPlanEdit(world, plan([resource("conductorone_app_entitlement", "conductorone_app_entitlement.e", ["update"], ent, { ...ent, emergency_grant_enabled: "yes" })]));
    expect(!bad.ok && bad.error[0]).toMatchObject({ code: "PLAN_BAD_RESOURCE_CHANGE", path: "$.resource_changes[0].change.after.emergency_grant_enabled" });
  });
});

describe("policy-sim whatif --terraform-plan", () => {
  const run = async (argv: string[], files: Record<string, string> = {}) => {
    const io = memoryIO({ files, fallback: disk });
    const code = await runCli(argv, io);
    return { code, out: io.out(), err: io.err() };
  };

  it("the fixture plan re-routes tasks: exit 1, each change by address, Markdown for a PR comment", async () => {
    const r = await run(["whatif", "--world", WORLD_FILE, "--terraform-plan", PLAN_FILE, "--format", "markdown"]);
    expect(r.code).toBe(EXIT.findings);
    expect(r.out).toContain("| delete | `conductorone_policy.prod_admin_eng` |");
    expect(r.out).toContain("Scope: open tasks");
  });

  it("--json carries the changes by address with the what-if result", async () => {
    const r = await run(["whatif", "--world", WORLD_FILE, "--terraform-plan", PLAN_FILE, "--json", "--state", "all"]);
    const j = JSON.parse(r.out) as { terraform: { changes: { address: string }[] }; counts: { changed: number } };
    expect(j.terraform.changes.map((c) => c.address)).toContain("module.sre.conductorone_policy.sre_admin");
    expect(j.counts.changed).toBe(3);
  });

  it("a plan that re-routes nothing exits 0; a plan that cannot be simulated exits 2 with the problem's path", async () => {
    const tf = tfPolicy("pol-sales-access");
    const same = await run(["whatif", "--world", WORLD_FILE, "--terraform-plan", "p.json"], { "p.json": JSON.stringify(plan([policyChange("conductorone_policy.s", ["update"], tf, tf)])) });
    expect(same.code).toBe(EXIT.ok);
    expect(same.out).toContain("~   update  conductorone_policy.s → pol-sales-access");
    const bad = await run(["whatif", "--world", WORLD_FILE, "--terraform-plan", "p.json"], {
      "p.json": JSON.stringify(plan([policyChange("conductorone_policy.sr", ["delete"], tfPolicy("pol-security-review"), null)])),
    });
    expect(bad.code).toBe(EXIT.badInput);
    expect(bad.err).toContain("PLAN_DELETE_REFERENCED at $.resource_changes[0]");
    // --json: one error document on stdout, with the problems and the message (it used to be two documents).
    const badJson = await run(["whatif", "--world", WORLD_FILE, "--terraform-plan", "p.json", "--json"], {
      "p.json": JSON.stringify(plan([policyChange("conductorone_policy.sr", ["delete"], tfPolicy("pol-security-review"), null)])),
    });
    expect(badJson.code).toBe(EXIT.badInput);
    const doc = JSON.parse(badJson.out) as { error: { code: string; message: string; problems: { code: string }[] } };
    expect(doc.error.code).toBe("INVALID_ARGUMENT");
    expect(doc.error.problems.map((p) => p.code)).toEqual(["PLAN_DELETE_REFERENCED"]);
    expect(doc.error.message).toContain("the plan cannot be simulated (1 problem)");
    expect(badJson.err).toContain("PLAN_DELETE_REFERENCED at $.resource_changes[0]");
    const notPlan = await run(["whatif", "--world", WORLD_FILE, "--terraform-plan", "p.json"], { "p.json": "{}" });
    expect(notPlan.code).toBe(EXIT.badInput);
    expect(notPlan.err).toContain("terraform show -json");
  });

  /** The CLI reading a file's bytes, as main.ts does (memoryIO reads text). */
  const runBytes = async (file: Uint8Array, ...flags: string[]) => {
    const io = { ...memoryIO({ fallback: disk }), readFileChunks: (p: string) => (p === "p.json" ? [file] : [new TextEncoder().encode(disk(p))]) };
    const code = await runCli(["whatif", "--world", WORLD_FILE, "--terraform-plan", "p.json", ...flags], io);
    return { code, out: io.out(), err: io.err() };
  };
  const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
  const utf16 = (text: string, endian: "le" | "be"): Uint8Array => {
    const out = new Uint8Array(2 + text.length * 2);
    out.set(endian === "le" ? [0xff, 0xfe] : [0xfe, 0xff]);
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      out.set(endian === "le" ? [c & 0xff, c >> 8] : [c >> 8, c & 0xff], 2 + i * 2);
    }
    return out;
  };
  /** pol-sales-access with a description outside ASCII: the decoded plan must carry it unchanged. */
  const accented = (): string => {
    const tf = tfPolicy("pol-sales-access");
    return JSON.stringify(plan([policyChange("conductorone_policy.s", ["update"], tf, { ...tf, description: "Zugriff für Vertrieb – ✓" })]), null, 2);
  };

  it("Terraform's binary plan file (a zip: \"PK\") is refused, exit 2, saying to write the JSON with `terraform show -json` (platform review)", async () => {
    const r = await runBytes(new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00, 0xff, 0xfe]), "--json");
    expect(r.code).toBe(EXIT.badInput);
    expect(r.err).toContain("p.json: this is Terraform's binary plan file");
    expect(r.err).toContain("`terraform show -json plan.tfplan > plan.json`");
    expect(JSON.parse(r.out)).toMatchObject({ error: { code: "BAD_INPUT", message: expect.stringContaining("binary plan") } });
  });

  it("hashicorp/setup-terraform's wrapper output (\"[command]…\", its own lines around the JSON) is refused, exit 2, naming terraform_wrapper: false (platform review)", async () => {
    const wrapped = `[command]/home/runner/work/_temp/abc/terraform-bin show -json plan.tfplan\n${JSON.stringify(fixturePlan())}\n::debug::Terraform exited with code 0.\n::set-output name=exitcode::0\n`;
    for (const r of [await runBytes(utf8(wrapped)), await run(["whatif", "--world", WORLD_FILE, "--terraform-plan", "p.json"], { "p.json": wrapped })]) {
      expect(r.code).toBe(EXIT.badInput);
      expect(r.err).toContain("hashicorp/setup-terraform's wrapper");
      expect(r.err).toContain("`terraform_wrapper: false`");
      expect(r.err).toContain("terraform-bin");
    }
  });

  it("a plan in UTF-8 with a byte-order mark, or UTF-16 LE or BE with one (Windows PowerShell 5's `>`), reads as the same plan (platform review)", async () => {
    const text = accented();
    const plain = await runBytes(utf8(text), "--json");
    expect(plain.code).toBe(EXIT.ok);
    const description = (out: string) =>
      (JSON.parse(out) as { terraform: { changes: { differences?: { path: string; after: unknown }[] }[] } }).terraform.changes[0]?.differences?.find((d) => d.path === "$.description")?.after;
    expect(description(plain.out)).toBe("Zugriff für Vertrieb – ✓");
    for (const bytes of [utf8(`\uFEFF${text}`), utf16(text, "le"), utf16(text, "be")]) {
      const r = await runBytes(bytes, "--json");
      expect(r.err).toBe("");
      expect(r.code).toBe(EXIT.ok);
      expect(r.out).toBe(plain.out);
    }
    // Text already decoded (an IO without bytes): the mark is dropped too.
    const viaText = await run(["whatif", "--world", WORLD_FILE, "--terraform-plan", "p.json", "--json"], { "p.json": `\uFEFF${text}` });
    expect(viaText.out).toBe(plain.out);
    // UTF-16 without a mark is told by the NUL beside the first character (hostile review).
    for (const bytes of [utf16(text, "le").subarray(2), utf16(text, "be").subarray(2)]) {
      const r = await runBytes(bytes, "--json");
      expect(r.code).toBe(EXIT.ok);
      expect(r.out).toBe(plain.out);
    }
  });

  it("a gzip-compressed plan is named as one; control bytes in a parser's message are shown escaped; wrapper output after a blank line is still the wrapper's (hostile review)", async () => {
    const gz = await runBytes(Uint8Array.of(0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03));
    expect(gz.code).toBe(EXIT.badInput);
    expect(gz.err).toContain("this is gzip-compressed: decompress it (gunzip)");
    const nul = parsePlanFile(utf8("x\u0001\u0002 plan"));
    expect(!nul.ok && nul.error[0]?.message).toMatch(/not JSON \(.*x\\u0001\\u0002 plan/);
    expect(!nul.ok && nul.error[0]?.message).not.toMatch(/[\u0000\u0001]/);
    const wrapped = parsePlanFile(utf8("\r\n[command]/usr/bin/terraform-bin show -json plan.tfplan\n{}\n"));
    expect(!wrapped.ok && wrapped.error[0]?.message).toContain("hashicorp/setup-terraform's wrapper");
  });

  it("other content that is not JSON (empty, truncated, YAML) is refused, exit 2, with the parser's reason and `terraform show -json` (platform review)", async () => {
    for (const [content, said] of [["", "the file is empty"], ['{"format_version": "1.2", "resource_', "not JSON ("], ["format_version: 1.2\n", "not JSON ("]] as const) {
      const r = await runBytes(utf8(content));
      expect(r.code).toBe(EXIT.badInput);
      expect(r.err).toContain(`p.json: ${said}`);
      expect(r.err).toContain("terraform show -json");
    }
    expect(parsePlanFile("\uFFFD\uFFFD{\u0000")).toMatchObject({ ok: false, error: [{ code: "PLAN_NOT_A_PLAN", message: expect.stringContaining("UTF-16") }] });
    expect(parsePlanFile(utf8('{"format_version":"1.2"}'))).toEqual({ ok: true, value: { format_version: "1.2" } });
  });

  it("--edit and --terraform-plan together, or --format markdown without a plan, are usage errors", async () => {
    expect((await run(["whatif", "--world", WORLD_FILE, "--terraform-plan", PLAN_FILE, "--edit", "x.json"])).code).toBe(EXIT.badInput);
    expect((await run(["whatif", "--world", WORLD_FILE, "--edit", "x.json", "--format", "markdown"], { "x.json": "[]" })).code).toBe(EXIT.badInput);
    expect((await run(["whatif", "--world", WORLD_FILE, "--terraform-plan", PLAN_FILE, "--format", "html"])).code).toBe(EXIT.badInput);
  });
});

describe("Terraform plans as terraform-plugin-framework and Terraform write them (review of real plans)", () => {
  /** `v` without every key named `name`, and the mirror of where they were, each `true` (as `after_unknown` marks them). */
  const strip = (v: Json, name: string): [Json, Json] => {
    if (Array.isArray(v)) {
      const parts = v.map((x) => strip(x, name));
      return [parts.map((p) => p[0]), parts.map((p) => p[1])];
    }
    if (v === null || typeof v !== "object") return [v, {}];
    const kept: Record<string, Json> = {};
    const unknown: Record<string, Json> = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === name) {
        unknown[k] = true;
        continue;
      }
      const [a, u] = strip(x, name);
      Object.defineProperty(kept, k, { value: a, enumerable: true, writable: true, configurable: true });
      if (u !== null && typeof u === "object" && Object.keys(u).length > 0) Object.defineProperty(unknown, k, { value: u, enumerable: true, writable: true, configurable: true });
    }
    return [kept, unknown];
  };
  const changedIds = (edit: ReturnType<typeof terraformPlanEdit>): string[] => {
    if (!edit.ok) throw new Error(JSON.stringify(edit.error));
    const r = whatIf(world, terraformEditRecipe(edit.value), { scope: { states: "any" } });
    if (!r.ok) throw new Error(r.error.message);
    return r.value.changed.map((t) => t.numericId);
  };

  it("terraform/policy-resource.md (assigned_user_ids is Read-Only): unknown on an update, as the framework plans every unset computed attribute, it keeps the service's value: a description change re-routes nothing", () => {
    const before = tfPolicy("pol-aws-access");
    const [after, unknown] = strip({ ...before, description: "AWS standard access (reworded)" }, "assigned_user_ids");
    const edit = terraformPlanEdit(world, plan([policyChange("conductorone_policy.aws_access", ["update"], before, after, { ...(unknown as object), updated_at: true })]));
    expect(edit.ok && wire(edit.value.policies[0])).toEqual({ ...(wire(world.index.policies.get("pol-aws-access")) as object), description: "AWS standard access (reworded)" });
    expect(changedIds(edit)).toEqual([]);
  });

  it("terraform/policy-resource.md (policy_key: \"Still read by the request path\"): a legacy rule's unknown policy_id and step_key stay unset when the rules expression refers to a created policy", () => {
    const before = tfPolicy("pol-aws-access");
    const rules = before["rules"] as Record<string, Json>[];
    const created = { display_name: "Billing review", policy_type: "POLICY_TYPE_GRANT", policy_steps: { grant: { steps: [{ accept: { accept_message: "ok" } }] } } };
    const after = { ...before, rules: [{ condition: rules[0]!["condition"]!, policy_key: rules[0]!["policy_key"]! }, ...rules.slice(1), { condition: 'entitlement.displayName.contains("Billing")' }] };
    const unknown = { rules: [{ policy_id: true, step_key: true }, {}, {}, { policy_id: true, step_key: true }] };
    const config = { root_module: { resources: [{ address: "conductorone_policy.aws_access", expressions: { rules: { references: ["conductorone_policy.billing.id", "conductorone_policy.billing"] } } }] } };
    const edit = terraformPlanEdit(world, plan([policyChange("conductorone_policy.billing", ["create"], null, created, { id: true }), policyChange("conductorone_policy.aws_access", ["update"], before, after, unknown)], config));
    if (!edit.ok) throw new Error(JSON.stringify(edit.error));
    const p = edit.value.policies.find((x) => x.id === "pol-aws-access");
    expect(p?.rules?.map((r) => [r.policyKey, r.policyId ?? "", r.stepKey])).toEqual([
      [rules[0]!["policy_key"], "", ""],
      ["", "", rules[1]!["step_key"]],
      ["", "", rules[2]!["step_key"]],
      ["", "conductorone_policy.billing", ""],
    ]);
  });

  const v2 = { display_name: "Production access v2", policy_type: "POLICY_TYPE_GRANT", policy_steps: { grant: { steps: [{ accept: { accept_message: "ok" } }] } } };
  /** pol-prod-admin with its second rule pointed at whatever `rules` is given, the id left unknown. */
  const pointed = (address: string, moduleAddress?: string) => {
    const before = tfPolicy("pol-prod-admin");
    const rules = before["rules"] as Record<string, Json>[];
    const after = { ...before, rules: rules.map((r, i) => (i === 1 ? { condition: r["condition"]! } : r)) };
    return policyChange(address, ["update"], before, after, { rules: rules.map((_, i) => (i === 1 ? { policy_id: true } : {})) }, moduleAddress);
  };

  it("developer_terraform-best-practices.mdx (policy ids passed to a module as `var.…`): an unknown id given through a module variable is the policy the call refers to", () => {
    const config = {
      root_module: {
        resources: [{ address: "conductorone_policy.v2", expressions: { display_name: { constant_value: "Production access v2" } } }],
        module_calls: {
          prod: {
            expressions: { policy_id: { references: ["conductorone_policy.v2.id", "conductorone_policy.v2"] } },
            module: { resources: [{ address: "conductorone_policy.admin", expressions: { rules: { references: ["var.policy_id"] } } }] },
          },
        },
      },
    };
    const edit = terraformPlanEdit(world, plan([policyChange("conductorone_policy.v2", ["create"], null, v2, { id: true }), pointed("module.prod.conductorone_policy.admin", "module.prod")], config));
    if (!edit.ok) throw new Error(JSON.stringify(edit.error));
    expect(edit.value.policies.find((p) => p.id === "pol-prod-admin")?.rules?.[1]?.policyId).toBe("conductorone_policy.v2");
    // Before, the old rule was kept and nothing re-routed.
    expect(changedIds(edit).length).toBeGreaterThan(0);
  });

  it("module variables and outputs that refer to each other in a cycle are followed once each: a hostile plan answers at once, it does not hang", () => {
    const outs = ["o0", "o1", "o2", "o3", "o4", "o5"];
    const vars = ["v0", "v1", "v2", "v3", "v4", "v5"];
    const config = {
      root_module: {
        module_calls: {
          prod: {
            expressions: Object.fromEntries(vars.map((v) => [v, { references: outs.map((o) => `module.prod.${o}`) }])),
            module: {
              outputs: Object.fromEntries(outs.map((o) => [o, { expression: { references: vars.map((v) => `var.${v}`) } }])),
              resources: [{ address: "conductorone_policy.admin", expressions: { rules: { references: ["var.v0"] } } }],
            },
          },
        },
      },
    };
    // Six variables and outputs each referring to all the others: 6^16 paths if each were followed
    // every time (the test's own time limit stands for the hang). Nothing pending is reached, so the
    // unknown id is the provider's default: the rule's id before.
    const edit = terraformPlanEdit(world, plan([pointed("module.prod.conductorone_policy.admin", "module.prod")], config));
    if (!edit.ok) throw new Error(JSON.stringify(edit.error));
    expect(edit.value.policies[0]?.rules?.[1]?.policyId).toBe(world.index.policies.get("pol-prod-admin")?.rules?.[1]?.policyId);
  });

  it("an unknown policy id read from a `local.` (which `terraform show -json` does not describe) cannot be told and is refused, not taken as unchanged", () => {
    const config = { root_module: { resources: [{ address: "conductorone_policy.admin", expressions: { rules: { references: ["local.policy_id"] } } }] } };
    const edit = terraformPlanEdit(world, plan([policyChange("conductorone_policy.v2", ["create"], null, v2, { id: true }), pointed("conductorone_policy.admin")], config));
    expect(!edit.ok && edit.error.map((d) => [d.code, d.path])).toEqual([["PLAN_UNRESOLVED_UNKNOWN", "$.resource_changes[1].change.after.rules[1].policy_id"]]);
    expect(!edit.ok && edit.error[0]?.message).toContain("local.policy_id");
  });

  it("`each.value` is an element of the resource's for_each collection: an unknown id under it is the policy that collection refers to", () => {
    const config = {
      root_module: {
        resources: [{ address: "conductorone_policy.admin", for_each_expression: { references: ["conductorone_policy.v2.id", "conductorone_policy.v2"] }, expressions: { rules: { references: ["each.value"] } } }],
      },
    };
    const edit = terraformPlanEdit(world, plan([policyChange("conductorone_policy.v2", ["create"], null, v2, { id: true }), pointed('conductorone_policy.admin["prod"]')], config));
    if (!edit.ok) throw new Error(JSON.stringify(edit.error));
    expect(edit.value.policies.find((p) => p.id === "pol-prod-admin")?.rules?.[1]?.policyId).toBe("conductorone_policy.v2");
  });

  it("HashiCorp JSON output format: an attribute of a resource the plan updates in place stays known unless its after_unknown says otherwise, so a default under an expression reading it is the provider's", () => {
    const before = tfPolicy("pol-sales-access");
    const steps = before["policy_steps"] as Record<string, { steps: Record<string, Record<string, Json>>[] }>;
    const { require_denial_reason: _r, ...approval } = steps["grant"]!.steps[0]!["approval"]!;
    const after = { ...before, policy_steps: { ...steps, grant: { steps: [{ approval }, ...steps["grant"]!.steps.slice(1)] } } };
    const change = policyChange("conductorone_policy.sales", ["update"], before, after, { policy_steps: { grant: { steps: [{ approval: { require_denial_reason: true } }] } } });
    const config = { root_module: { resources: [{ address: "conductorone_policy.sales", expressions: { policy_steps: { references: ["conductorone_app_entitlement.oncall.id", "conductorone_app_entitlement.oncall", "conductorone_app_entitlement.oncall.app_id"] } } }] } };
    const entitlement = (actions: string[], afterUnknown: unknown) => ({
      address: "conductorone_app_entitlement.oncall",
      mode: "managed",
      type: "conductorone_app_entitlement",
      name: "oncall",
      change: { actions, before: actions[0] === "create" ? null : { id: "ent-aws-billing", app_id: "app-aws", description: "a" }, after: { id: "ent-aws-billing", app_id: "app-aws", description: "b" }, after_unknown: afterUnknown },
    });
    const described = terraformPlanEdit(world, plan([change, entitlement(["update"], { updated_at: true })], config));
    expect(described.ok && wire(described.value.policies[0])).toEqual(wire(world.index.policies.get("pol-sales-access")));
    const recreated = terraformPlanEdit(world, plan([change, entitlement(["update"], { id: true })], config));
    expect(!recreated.ok && recreated.error[0]?.message).toContain("conductorone_app_entitlement.oncall.id");
  });

  it("the Markdown report (the pull-request comment) says when the service would refuse to save a planned policy, at the plan's path", () => {
    const before = tfPolicy("pol-prod-admin");
    const rules = before["rules"] as Record<string, Json>[];
    const after = { ...before, rules: rules.map((r, i) => (i === 0 ? { condition: r["condition"]!, step_key: "no-such-key" } : r)) };
    const edit = terraformPlanEdit(world, plan([policyChange("conductorone_policy.admin", ["update"], before, after)]));
    if (!edit.ok) throw new Error(JSON.stringify(edit.error));
    const r = whatIf(world, terraformEditRecipe(edit.value));
    if (!r.ok) throw new Error(r.error.message);
    const md = formatTerraformWhatIf(edit.value, r.value, { format: "markdown" });
    expect(md).toContain("> [!CAUTION]");
    expect(md).toMatch(/`conductorone_policy\.admin` DANGLING_STEP_KEY at `\$\.rules\[0\]\.step_key`/);
    // The text report names it the same way: the Terraform address and the plan's attribute path.
    const text = formatTerraformWhatIf(edit.value, r.value);
    expect(text).toContain("conductorone_policy.admin DANGLING_STEP_KEY at $.rules[0].step_key");
    expect(text).not.toContain("$.rules[0].stepKey");
  });

  it("an entitlement the plan points at a policy that does not exist: the refusal is the change's, named by the setting, not a policy's error (diff review)", () => {
    const ent = {
      address: "conductorone_app_entitlement.prod_admin",
      mode: "managed",
      type: "conductorone_app_entitlement",
      name: "prod_admin",
      provider_name: "registry.terraform.io/conductorone/conductorone",
      change: { actions: ["update"], before: { id: "ent-aws-prod-admin", app_id: "app-aws", revoke_policy_id: "" }, after: { id: "ent-aws-prod-admin", app_id: "app-aws", revoke_policy_id: "pol-typo" }, after_unknown: {}, before_sensitive: {}, after_sensitive: {} },
    };
    const edit = terraformPlanEdit(world, plan([ent as never]));
    if (!edit.ok) throw new Error(JSON.stringify(edit.error));
    const r = whatIf(world, terraformEditRecipe(edit.value));
    if (!r.ok) throw new Error(r.error.message);
    const text = formatTerraformWhatIf(edit.value, r.value);
    expect(text).toContain("Warning: the service would refuse to apply these changes (1 error): the apply fails, and the routes below are what the changes would do:");
    expect(text).toContain('  UNKNOWN_POLICY: entitlement "app-aws/ent-aws-prod-admin" (revokePolicyId) names policy "pol-typo", which does not exist');
    expect(text).not.toContain("this policy");
    const md = formatTerraformWhatIf(edit.value, r.value, { format: "markdown" });
    expect(md).toContain("> The service would refuse to apply these changes (1 error)");
    expect(md).toContain("> - UNKNOWN_POLICY: entitlement");
  });

  it("HashiCorp JSON output format (before_sensitive, after_sensitive): a value marked sensitive is never printed, as Terraform shows \"(sensitive value)\"", async () => {
    const before = tfPolicy("pol-aws-access");
    const secret = "route finance escalations to the CFO's private line";
    const after = { ...before, description: secret };
    const change = { ...policyChange("conductorone_policy.aws_access", ["update"], before, after), change: { actions: ["update"], before, after, after_unknown: {}, before_sensitive: {}, after_sensitive: { description: true } } };
    const edit = terraformPlanEdit(world, plan([change]));
    if (!edit.ok) throw new Error(JSON.stringify(edit.error));
    expect(edit.value.changes[0]?.differences).toEqual([{ path: "$.description", before: "(sensitive value)", after: "(sensitive value)" }]);
    const r = whatIf(world, terraformEditRecipe(edit.value), { scope: { states: "any" } });
    if (!r.ok) throw new Error(r.error.message);
    for (const format of ["text", "markdown"] as const) expect(formatTerraformWhatIf(edit.value, r.value, { format })).not.toContain("CFO");
    const io = memoryIO({ files: { "p.json": JSON.stringify(plan([change])) }, fallback: disk });
    await runCli(["whatif", "--world", WORLD_FILE, "--terraform-plan", "p.json", "--json", "--state", "all"], io);
    expect(io.out()).toContain("(sensitive value)");
    expect(io.out()).not.toContain("CFO");
  });

  it("HashiCorp JSON output format (after_sensitive): a sensitive display_name is not printed as the policy's name either, created or updated", () => {
    const before = tfPolicy("pol-aws-access");
    const secret = "Project TOPSECRET access";
    for (const [actions, was] of [[["update"], before], [["create"], null]] as const) {
      const after = { ...before, display_name: secret };
      const change = { ...policyChange("conductorone_policy.aws_access", [...actions], was, after), change: { actions, before: was, after, after_unknown: {}, before_sensitive: {}, after_sensitive: { display_name: true } } };
      const edit = terraformPlanEdit(world, plan([change]));
      if (!edit.ok) throw new Error(JSON.stringify(edit.error));
      expect(edit.value.changes[0]?.displayName).toBe("(sensitive value)");
      const r = whatIf(world, terraformEditRecipe(edit.value));
      if (!r.ok) throw new Error(r.error.message);
      for (const format of ["text", "markdown"] as const) expect(formatTerraformWhatIf(edit.value, r.value, { format })).not.toContain("TOPSECRET");
    }
  });
});

describe("terraform/policy-resource.md: a step's form is \"Parsed as JSON\" into openapi.yaml's c1.api.policy.v1.Form, whose one member is form", () => {
  it("a form JSON holding the form's own fields, without the form member around them, is warned of: the provider would drop them", () => {
    const before = tfPolicy("pol-finance-form");
    const steps = before["policy_steps"] as Record<string, { steps: Record<string, Json>[] }>;
    const first = steps["grant"]!.steps[0]!;
    const inner = (JSON.parse(String(first["form"])) as { form: Json }).form;
    const after = { ...before, policy_steps: { ...steps, grant: { steps: [{ ...first, form: JSON.stringify(inner) }, ...steps["grant"]!.steps.slice(1)] } } };
    const edit = terraformPlanEdit(world, plan([policyChange("conductorone_policy.finance", ["update"], before, after)]));
    if (!edit.ok) throw new Error(JSON.stringify(edit.error));
    expect(edit.value.warnings).toEqual([expect.stringMatching(/^conductorone_policy\.finance: policy_steps\.grant\.steps\[0\]\.form has no "form" member, only .*displayName/)]);
    // As written, wrapped, it is not.
    const same = terraformPlanEdit(world, plan([policyChange("conductorone_policy.finance", ["update"], before, before)]));
    expect(same.ok && same.value.warnings).toBeUndefined();
  });
});

describe("terraform/policy-resource.md enums: a value outside its set is refused at the plan's path (the provider's write would be refused)", () => {
  it("policy_type and a nested agent_mode, each with the plan path and the API path, and a guess when one is close", () => {
    const before = tfPolicy("pol-prod-admin");
    const typo = terraformPlanEdit(world, plan([policyChange("conductorone_policy.admin", ["update"], before, { ...before, policy_type: "POLICY_TYPE_GRANTT" })]));
    expect(!typo.ok && typo.error.map((d) => [d.code, d.path])).toEqual([["PLAN_BAD_POLICY", "$.resource_changes[0].change.after.policy_type"]]);
    expect(!typo.ok && typo.error[0]?.message).toContain('did you mean "POLICY_TYPE_GRANT"?');
    const steps = before["policy_steps"] as Record<string, { steps: Json[] }>;
    const key = Object.keys(steps)[0]!;
    const agent = { approval: { agent: { agent_mode: "APPROVAL_AGENT_MODE_BOGUS", agent_user_id: "u-it-dir", instructions: "check" } } };
    const bogus = terraformPlanEdit(world, plan([policyChange("conductorone_policy.admin", ["update"], before, { ...before, policy_steps: { ...steps, [key]: { steps: [agent] } } })]));
    expect(!bogus.ok && bogus.error.map((d) => d.path)).toContain(`$.resource_changes[0].change.after.policy_steps${/^[A-Za-z_]\w*$/.test(key) ? `.${key}` : `["${key}"]`}.steps[0].approval.agent.agent_mode`);
  });
});

describe("terraform/policy-resource.md escalation expiration: the same time written two ways is no difference (e2e review)", () => {
  it("a pulled world's \"86400\" (openapi.yaml int64 seconds) against a plan's \"86400s\" lists no attribute difference; another time does", async () => {
    const { policyDifferences } = await import("./differences.js");
    const p = world.index.policies.get("pol-prod-admin");
    if (!p) throw new Error("fixture");
    const wire = encodePolicy(p) as { policySteps: Record<string, { steps: { approval?: { escalation?: { expiration: string } } }[] }> };
    const respell = (to: (s: string) => string) => {
      const w = structuredClone(wire);
      for (const seq of Object.values(w.policySteps)) for (const s of seq.steps) if (s.approval?.escalation) s.approval.escalation.expiration = to(s.approval.escalation.expiration);
      const d = decodePolicy(w);
      if (!d.ok) throw new Error("decode");
      return d.value;
    };
    expect(policyDifferences(respell((s) => s.replace(/s$/, "")), p)).toEqual([]);
    expect(policyDifferences(respell(() => "90000s"), p).map((d) => d.path)).toEqual([expect.stringMatching(/escalation\.expiration$/)]);
  });
});
