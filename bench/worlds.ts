/**
 * Worlds for the benchmarks. Most come straight from `syntheticWorld`; the selection worlds are
 * built here because the benchmarks need things the generator does not offer: policies of up to
 * 100 rules, and conditions written in portable CEL (no `c1.*` functions, no enums, no snake_case
 * aliases) so that a bare cel-js environment (the floor) can compile the very same source text.
 */
import type { JsonObject, JsonValue } from "../src/model/json.js";
import type { Task } from "../src/model/index.js";
import { syntheticWorld, type SyntheticWorldOptions, type WorldJson } from "../src/testing/synthetic-world.js";
import { loadWorld } from "../src/world/load-world.js";
import type { World } from "../src/world/world.js";

/** Loads a world file or stops the benchmark with the loader's first diagnostics. */
export function load(json: WorldJson): World {
  const r = loadWorld(json);
  if (!r.ok) throw new Error(`bench world does not load: ${JSON.stringify(r.error.slice(0, 3))}`);
  return r.value;
}

/** A loaded synthetic world, how long it took, and the JSON of its first 100 tasks. */
export interface LoadedSynthetic {
  readonly world: World;
  readonly generateMs: number;
  readonly loadMs: number;
  /** `JSON.stringify` of the first 100 task documents (to check two worlds share them). */
  readonly head: string;
}

/** Loads `syntheticWorld(options)`; the world file itself is not kept (100k tasks are large). */
export function loadSynthetic(options: SyntheticWorldOptions): LoadedSynthetic {
  const t0 = performance.now();
  const json = syntheticWorld(options);
  const t1 = performance.now();
  const world = load(json);
  const t2 = performance.now();
  return { world, generateMs: t1 - t0, loadMs: t2 - t1, head: JSON.stringify(json.tasks.slice(0, 100)) };
}

const DEPARTMENTS = ["Engineering", "Security", "Finance", "Sales", "IT", "HR"] as const;
const EMPLOYMENT = ["Full Time", "Contractor", "Intern"] as const;
const CLEARANCE = ["low", "medium", "high"] as const;
const RISK = ["low", "medium", "high", "critical"] as const;

/** The attributes a portable rule tests. */
export interface Combo {
  readonly dept: string;
  readonly emp: string;
  readonly clearance: string;
  readonly risk: string;
}

const obj = (v: JsonValue | undefined): JsonObject => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as JsonObject) : {});
const str = (v: JsonValue | undefined): string => (typeof v === "string" ? v : "");

/**
 * A rule condition in portable CEL testing `combo`, in one of a few equivalent spellings chosen by
 * `k` (deterministic), with an always-true term for the subjects of these worlds mixed in for some
 * rules. Only `subject` and `entitlement` fields that the floor's bare environment declares appear.
 */
export function portableCondition(c: Combo, k: number): string {
  const dept = k % 3 === 1 ? `subject.department in ["${c.dept}", "Platform"]` : `subject.department == "${c.dept}"`;
  const emp = `subject.employmentType == "${c.emp}"`;
  const clearance = k % 2 === 0 ? `subject.profile.clearance == "${c.clearance}"` : `subject.profile["clearance"] == "${c.clearance}"`;
  const risk = `entitlement.riskLevelValueId == "${c.risk}"`;
  const terms = [dept, emp, clearance, risk];
  if (k % 4 === 3) terms.splice(1, 0, 'subject.email.endsWith("@synthetic.example")');
  if (k % 5 === 2) terms.push("size(subject.managerIds) > 0");
  // Vary which term comes first, so non-matching rules stop at different depths.
  const rot = k % terms.length;
  return [...terms.slice(rot), ...terms.slice(0, rot)].join(" && ");
}

/** A selection world and what the benchmarks need from it. */
export interface SelectionWorld {
  readonly world: World;
  readonly json: WorldJson;
  /** The policy with `rules` rules, the last one matching every grant task below. */
  readonly policyId: string;
  /** The rule conditions, in order. */
  readonly conditions: readonly string[];
  /** The attribute combination each rule tests, in order. */
  readonly combos: readonly Combo[];
  /** Open grant tasks governed by the policy. */
  readonly tasks: readonly Task[];
}

/**
 * A world whose grant policy `pol-grant-0` has `rules` portable rules of which only the LAST
 * matches its grant tasks, so selecting steps for any of them evaluates every rule.
 *
 * Built from `syntheticWorld({ policies: 1, matchAt: "last" })`: all its grant tasks have subjects
 * and entitlements with one attribute combination (the generator's last rule). The policy's rules
 * are replaced by `rules - 1` other distinct combinations followed by that one.
 */
export function selectionWorld(rules: number, tasks = 200): SelectionWorld {
  const base = syntheticWorld({ seed: 11, tasks, rulesPerPolicy: 16, policies: 1, matchAt: "last" });
  const policies = base.policies.map((p) => ({ ...p }));
  const policy = policies.find((p) => p["id"] === "pol-grant-0");
  if (!policy) throw new Error("no pol-grant-0");
  const firstGrant = base.tasks.find((t) => obj(t["type"])["grant"] !== undefined);
  const grant = obj(obj(firstGrant?.["type"])["grant"]);
  const subject = base.users.find((u) => u["id"] === grant["identityUserId"]);
  const ent = base.entitlements.find((e) => e["id"] === grant["appEntitlementId"]);
  if (!subject || !ent) throw new Error("no grant task");
  const match: Combo = {
    dept: str(subject["department"]),
    emp: str(subject["employmentType"]),
    clearance: str(obj(subject["profile"])["clearance"]),
    risk: str(ent["riskLevelValueId"]),
  };
  // Every other combination, in a fixed interleaved order (not grouped by department).
  const others: Combo[] = [];
  for (let i = 0; others.length < rules - 1; i++) {
    const n = (i * 37) % (DEPARTMENTS.length * EMPLOYMENT.length * CLEARANCE.length * RISK.length);
    const c: Combo = {
      dept: DEPARTMENTS[n % 6] ?? "HR",
      emp: EMPLOYMENT[Math.floor(n / 6) % 3] ?? "Intern",
      clearance: CLEARANCE[Math.floor(n / 18) % 3] ?? "low",
      risk: RISK[Math.floor(n / 54) % 4] ?? "low",
    };
    if (i > 216) throw new Error("not enough distinct combinations");
    if (c.dept === match.dept && c.emp === match.emp && c.clearance === match.clearance && c.risk === match.risk) continue;
    if (others.some((o) => o.dept === c.dept && o.emp === c.emp && o.clearance === c.clearance && o.risk === c.risk)) continue;
    others.push(c);
  }
  const combos = [...others, match];
  const oldSteps = obj(policy["policySteps"]);
  const firstSequence = Object.entries(oldSteps).find(([k]) => k !== "grant")?.[1] ?? { steps: [] };
  const policySteps: Record<string, JsonValue> = { grant: oldSteps["grant"] ?? { steps: [] } };
  const conditions = combos.map((c, k) => portableCondition(c, k));
  const wireRules = conditions.map((condition, k) => {
    const stepKey = `seq-${k}`;
    policySteps[stepKey] = firstSequence;
    return { condition, policyKey: "", stepKey };
  });
  policy["rules"] = wireRules;
  policy["policySteps"] = policySteps;
  const json: WorldJson = { ...base, policies };
  const world = load(json);
  const grantTasks = [...world.tasks.values()].filter((t) => t.type?.kind === "grant" && t.state === "TASK_STATE_OPEN");
  return { world, json, policyId: "pol-grant-0", conditions, combos, tasks: grantTasks };
}

/**
 * The mixed workload beside "last rule matches": the same policy (`sw`'s rules), with each grant
 * task's subject and entitlement chosen so that the matching rule is spread evenly over the
 * rules, and one task in five matches none (the baseline applies). Returns the world and, per
 * task, the rule index it was built to match (-1: none).
 */
export function mixedSelectionWorld(sw: SelectionWorld): { readonly world: World; readonly tasks: readonly Task[]; readonly intended: ReadonlyMap<string, number> } {
  const json = structuredClone(sw.json);
  const users = json.users;
  const ents = json.entitlements;
  const rules = sw.combos.length;
  const inRules = (c: Combo): boolean => sw.combos.some((o) => o.dept === c.dept && o.emp === c.emp && o.clearance === c.clearance && o.risk === c.risk);
  // Combinations no rule tests, for the tasks that match nothing.
  const outside: Combo[] = [];
  for (const dept of DEPARTMENTS)
    for (const emp of EMPLOYMENT)
      for (const clearance of CLEARANCE) for (const risk of RISK) if (!inRules({ dept, emp, clearance, risk })) outside.push({ dept, emp, clearance, risk });
  const userFor = (c: Combo): JsonObject | undefined =>
    users.find(
      (u) =>
        str(u["department"]) === c.dept &&
        str(u["employmentType"]) === c.emp &&
        str(obj(u["profile"])["clearance"]) === c.clearance &&
        Array.isArray(u["managerIds"]) &&
        u["managerIds"].length > 0 &&
        str(u["email"]).endsWith("@synthetic.example"),
    );
  const entFor = (c: Combo): JsonObject | undefined => ents.find((e) => str(e["riskLevelValueId"]) === c.risk);
  const intended = new Map<string, number>();
  let i = 0;
  // The clone is ours to change (JsonObject is read-only by type).
  type Mutable = Record<string, JsonValue>;
  for (const t of json.tasks as Mutable[]) {
    const grant = obj(obj(t["type"])["grant"]) as Mutable;
    if (t["type"] === undefined || obj(t["type"])["grant"] === undefined || t["state"] !== "TASK_STATE_OPEN") continue;
    const slot = (i * 7) % (rules + Math.ceil(rules / 4));
    i++;
    const target = slot < rules ? sw.combos[slot] : outside[(i * 13) % outside.length];
    const u = target ? userFor(target) : undefined;
    const e = target ? entFor(target) : undefined;
    if (!u || !e) continue;
    grant["identityUserId"] = u["id"] ?? "";
    grant["appId"] = e["appId"] ?? "";
    grant["appEntitlementId"] = e["id"] ?? "";
    grant["appUserId"] = "";
    if (t["userId"] !== undefined) t["userId"] = u["id"] ?? "";
    intended.set(str(t["id"]), slot < rules ? slot : -1);
  }
  const world = load(json);
  const tasks = [...world.tasks.values()].filter((t) => intended.has(t.id));
  return { world, tasks, intended };
}

/** The subject fields the hand-written rules read. */
export interface HandSubject {
  readonly department: string;
  readonly employmentType: string;
  readonly email: string;
  readonly managerIds: readonly string[];
  readonly profile: Readonly<Record<string, unknown>>;
}

/**
 * The floor under every CEL engine: rule `k` of a selection world written by hand in JavaScript,
 * term for term as {@link portableCondition} writes it in CEL (a missing `clearance` is simply
 * unequal, where CEL reports an error; either way the rule does not match).
 */
export function handwrittenRule(c: Combo, k: number): (s: HandSubject, risk: string) => boolean {
  const { dept, emp, clearance, risk } = c;
  const deptOk = k % 3 === 1 ? (s: HandSubject) => s.department === dept || s.department === "Platform" : (s: HandSubject) => s.department === dept;
  const email = k % 4 === 3;
  const managers = k % 5 === 2;
  return (s, r) =>
    deptOk(s) &&
    s.employmentType === emp &&
    s.profile["clearance"] === clearance &&
    r === risk &&
    (!email || s.email.endsWith("@synthetic.example")) &&
    (!managers || s.managerIds.length > 0);
}