/**
 * A synthetic tenant of any size in the world-file format (README, "The world file"), for
 * benchmarks, what-if tests and property tests. Deterministic from a seed: the same options give a
 * deep-equal world, byte for byte once serialised. Pure: no clock, no `Math.random`, no I/O.
 *
 * The rules are built so the generator knows which rule each grant task matches: every rule tests
 * a distinct combination of department, employment type, clearance and risk level (written in
 * varied but equivalent CEL forms, with always-true terms mixed in), so a subject and entitlement
 * with that combination match that rule and no other. `matchAt` picks the first rule, the last
 * rule or none, which lets a benchmark ask for the cheapest or the most expensive selection.
 */
import type { JsonObject, JsonValue } from "../model/json.js";
import { closest } from "../text/closest.js";
import { isRealTimestamp } from "../codec/schema.js";

/**
 * A world file as JSON: tasks and policies in the service's wire shape, directory objects in the
 * shapes of docs/domain.md §7, plus the simulation's fields. What `loadWorld` takes.
 *
 * @example
 * ```ts
 * const w: WorldJson = syntheticWorld({ seed: 1, tasks: 10 });
 * JSON.stringify(w); // a file `policy-sim` can load
 * ```
 */
export interface WorldJson extends JsonObject {
  readonly version: 1;
  readonly now: string;
  readonly tenant: JsonObject;
  readonly roles: readonly JsonObject[];
  readonly users: readonly JsonObject[];
  readonly apps: readonly JsonObject[];
  readonly entitlements: readonly JsonObject[];
  readonly appUsers: readonly JsonObject[];
  readonly groups: readonly JsonObject[];
  readonly grants: readonly JsonObject[];
  readonly resourceTypeDefaults: readonly JsonObject[];
  readonly accessReviews: readonly JsonObject[];
  readonly policies: readonly JsonObject[];
  readonly tasks: readonly JsonObject[];
}

/**
 * Options of {@link syntheticWorld}.
 *
 * @example
 * ```ts
 * const opts: SyntheticWorldOptions = { seed: 42, tasks: 100_000, rulesPerPolicy: 16, matchAt: "last" };
 * ```
 */
export interface SyntheticWorldOptions {
  /** Any integer; the same seed and options give the same world. */
  readonly seed: number;
  /** Number of tasks (about 80% grants, 10% revocations, 10% certifications). */
  readonly tasks: number;
  /** Number of users; at least 60 are made so every attribute combination exists (default 500). */
  readonly users?: number;
  /** Rules per grant policy, 0 to 16 (default 8). */
  readonly rulesPerPolicy?: number;
  /** Number of grant policies besides the tenant default (default 20). */
  readonly policies?: number;
  /**
   * Which rule grant tasks match: the first, the last, none (the baseline applies), or a realistic
   * mix when omitted (about 60% some rule, 40% the baseline).
   */
  readonly matchAt?: "first" | "last" | "none";
  /** The simulation clock (default `2026-11-22T09:00:00Z`). */
  readonly now?: string;
  /**
   * Whether each task carries a snapshot of its policy in `policy.policy`, as the service's tasks
   * do (default true). In memory the snapshots are shared; serialised, a 100,000-task world with
   * 16-rule policies is several GB, and decoding every snapshot dominates `loadWorld`. Pass false
   * for worlds meant to be written to a file or loaded many times; `policy.policy` is then null.
   */
  readonly policySnapshots?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Randomness

/** mulberry32: a tiny, fast, well-mixed 32-bit PRNG; returns floats in [0, 1). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Rng {
  float(): number;
  int(n: number): number;
  pick<T>(xs: readonly T[]): T;
  hex(chars: number): string;
}

function rng(seed: number): Rng {
  const next = mulberry32(seed);
  const int = (n: number) => Math.floor(next() * n);
  return {
    float: next,
    int,
    pick<T>(xs: readonly T[]): T {
      const x = xs[int(xs.length)];
      if (x === undefined) throw new Error("pick from an empty list");
      return x;
    },
    hex(chars: number): string {
      let s = "";
      while (s.length < chars) s += ((next() * 4294967296) >>> 0).toString(16).padStart(8, "0");
      return s.slice(0, chars);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Vocabulary

const DEPARTMENTS = ["Engineering", "Security", "Finance", "Sales", "IT", "HR"] as const;
/** Users of these departments exist but no rule names them: a subject from here matches nothing. */
const UNMATCHED_DEPARTMENTS = ["Legal", "Support"] as const;
const EMPLOYMENT = ["Full Time", "Contractor", "Intern"] as const;
const CLEARANCE = ["low", "medium", "high"] as const;
const RISK = ["low", "medium", "high", "critical"] as const;
const TITLES: Readonly<Record<string, readonly string[]>> = {
  Engineering: ["Software Engineer", "Senior Software Engineer", "Site Reliability Engineer", "Engineering Manager"],
  Security: ["Security Engineer", "Security Analyst", "Detection Engineer"],
  Finance: ["Financial Analyst", "Accountant", "Controller"],
  Sales: ["Account Executive", "Sales Engineer", "Sales Manager"],
  IT: ["IT Support Specialist", "Systems Administrator"],
  HR: ["HR Business Partner", "Recruiter"],
  Legal: ["Counsel", "Paralegal"],
  Support: ["Support Engineer", "Support Specialist"],
};
const LOCATIONS = ["Berlin", "London", "Madrid", "Paris", "Remote"] as const;
const FIRST = ["Ada", "Ben", "Clara", "David", "Emma", "Felix", "Grace", "Hugo", "Ines", "Jonas", "Kira", "Liam", "Mia", "Noah", "Olivia", "Paul", "Rosa", "Sam", "Tara", "Yusuf"] as const;
const LAST = ["Weber", "Khan", "Martin", "Rossi", "Novak", "Silva", "Berg", "Costa", "Dubois", "Fischer", "Garcia", "Ito", "Jensen", "Kowalski", "Lund", "Moreau"] as const;
const APP_NAMES = ["AWS", "GitHub", "Okta", "Salesforce", "PagerDuty", "Snowflake", "Jira", "Datadog", "Workday", "Slack", "Google Workspace", "Azure"] as const;
const RESOURCE_TYPES = ["rt-role", "rt-group", "rt-repo", "rt-permission-set"] as const;
const GRANT_ORIGINS = ["TASK_ORIGIN_WEBAPP", "TASK_ORIGIN_API", "TASK_ORIGIN_CHATAPP"] as const;

/** The attribute combination a rule tests; a subject/entitlement with it matches that rule only. */
interface Combo {
  readonly dept: string;
  readonly emp: string;
  readonly clearance: string;
  readonly risk: string;
}

const DAY_MS = 86_400_000;

// ---------------------------------------------------------------------------------------------
// Wire builders (every non-oneof field present, as the service emits them)

function approvalStep(approvers: JsonObject): JsonObject {
  return {
    approval: {
      allowDelegation: false,
      allowReassignment: true,
      allowedReassignees: [],
      assigned: false,
      escalation: null,
      escalationEnabled: false,
      requireApprovalReason: false,
      requireDenialReason: false,
      requireReassignmentReason: false,
      requiresStepUpProviderId: "",
      ...approvers,
    },
  };
}
const FALLBACK = { fallback: false, fallbackGroupIds: [], fallbackUserIds: [], isGroupFallbackEnabled: false };
const managerApprovers: JsonObject = { manager: { allowSelfApproval: false, assignedUserIds: [], ...FALLBACK, requireDistinctApprovers: false } };
const appOwnerApprovers: JsonObject = { appOwners: { allowSelfApproval: false, requireDistinctApprovers: false } };
const entitlementOwnerApprovers: JsonObject = { entitlementOwners: { allowSelfApproval: false, ...FALLBACK, requireDistinctApprovers: false } };
const usersApprovers = (userIds: readonly string[]): JsonObject => ({ users: { allowSelfApproval: false, requireDistinctApprovers: false, userIds } });
const provisionStep = (connectorId: string): JsonObject => ({
  provision: { assigned: false, provisionPolicy: { connector: { defaultBehavior: { connectorId } } }, provisionTarget: null },
});

type ApproverKind = "manager" | "appOwners" | "entitlementOwners" | "users";

function policyJson(p: {
  id: string;
  displayName: string;
  type: "GRANT" | "REVOKE" | "CERTIFY";
  baseline: readonly JsonObject[];
  sequences: readonly { key: string; steps: readonly JsonObject[] }[];
  rules: readonly { condition: string; stepKey: string }[];
  createdAt: string;
}): JsonObject {
  const policySteps: Record<string, JsonValue> = { [p.type.toLowerCase()]: { steps: p.baseline } };
  for (const s of p.sequences) policySteps[s.key] = { steps: s.steps };
  return {
    annotations: { managed_by: "policy-sim-synthetic" },
    baselinePolicyId: "",
    createdAt: p.createdAt,
    deletedAt: null,
    description: "Generated by syntheticWorld.",
    displayName: p.displayName,
    id: p.id,
    policySteps,
    policyType: `POLICY_TYPE_${p.type}`,
    postActions: [],
    reassignTasksToDelegates: false,
    rules: p.rules.map((r) => ({ condition: r.condition, policyKey: "", stepKey: r.stepKey })),
    scope: null,
    systemBuiltin: false,
    updatedAt: p.createdAt,
  };
}

// ---------------------------------------------------------------------------------------------

/**
 * Builds a synthetic world: users with managers and attribute mixes, apps with owners,
 * entitlements of every risk level, grant policies with `rulesPerPolicy` realistic rules each,
 * tenant default grant/revoke/certify policies, an access review, grants and accounts, and
 * `tasks` tasks (mostly open grant requests, each carrying the policy that applies and the first
 * step of the sequence its rules select). Large worlds share identical sub-objects (policy
 * snapshots, step definitions) between tasks: treat the result as immutable.
 *
 * @example
 * ```ts
 * import { loadWorld } from "policy-sim";
 * import { syntheticWorld } from "policy-sim/testing";
 * const world = loadWorld(syntheticWorld({ seed: 7, tasks: 100_000, rulesPerPolicy: 16, matchAt: "last" }));
 * ```
 */
export function syntheticWorld(given: SyntheticWorldOptions = { seed: 1, tasks: 100 }): WorldJson {
  const options = checkedOptions(given);
  const r = rng(options.seed ^ 0x5eed);
  const now = options.now ?? "2026-11-22T09:00:00Z";
  const nowMs = Date.parse(now);
  const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");
  const uuid = () => {
    const h = r.hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
  };
  const nTasks = Math.max(0, Math.floor(options.tasks));
  const snapshots = options.policySnapshots ?? true;
  const nRules = Math.min(16, Math.max(0, Math.floor(options.rulesPerPolicy ?? 8)));
  const nPolicies = Math.max(1, Math.floor(options.policies ?? 20));
  const comboCount = DEPARTMENTS.length * EMPLOYMENT.length * CLEARANCE.length;
  const nUsers = Math.max(comboCount + UNMATCHED_DEPARTMENTS.length + 4, Math.floor(options.users ?? 500));

  // Users: a management tree (user 0 is the CEO); the first users cover every rule combination.
  const users: JsonObject[] = [];
  const byCombo = new Map<string, string[]>();
  const unmatched: string[] = [];
  const managerOf: string[] = [];
  for (let i = 0; i < nUsers; i++) {
    const id = `u-${i}`;
    let dept: string;
    let emp: string;
    let clearance: string;
    if (i > 0 && i <= comboCount) {
      const k = i - 1;
      dept = DEPARTMENTS[k % DEPARTMENTS.length] ?? "Engineering";
      emp = EMPLOYMENT[Math.floor(k / DEPARTMENTS.length) % EMPLOYMENT.length] ?? "Full Time";
      clearance = CLEARANCE[Math.floor(k / (DEPARTMENTS.length * EMPLOYMENT.length))] ?? "low";
    } else {
      const roll = r.float();
      dept = i === 0 ? "Executive" : roll < 0.08 ? r.pick(UNMATCHED_DEPARTMENTS) : r.pick(DEPARTMENTS);
      emp = r.float() < 0.75 ? "Full Time" : r.pick(EMPLOYMENT);
      clearance = r.pick(CLEARANCE);
    }
    if (i > comboCount && i <= comboCount + UNMATCHED_DEPARTMENTS.length) dept = UNMATCHED_DEPARTMENTS[i - comboCount - 1] ?? "Legal";
    const manager = i === 0 ? "" : `u-${Math.floor((i - 1) / 8)}`;
    managerOf.push(manager);
    const first = r.pick(FIRST);
    const last = r.pick(LAST);
    const handle = `${first}.${last}.${i}`.toLowerCase();
    const email = `${handle}@synthetic.example`;
    users.push({
      attributes: {},
      delegatedUserId: "",
      department: dept,
      directoryStatus: "ENABLED",
      displayName: `${first} ${last}`,
      email,
      emails: [email],
      employmentStatus: "Active",
      employmentType: emp,
      id,
      jobTitle: r.pick(TITLES[dept] ?? ["Chief Executive Officer"]),
      managerIds: manager ? [manager] : [],
      profile: { clearance, costCenter: `CC-${100 + DEPARTMENTS.indexOf(dept as (typeof DEPARTMENTS)[number]) * 100}`, location: r.pick(LOCATIONS) },
      roleIds: [i === 0 || i === 1 ? "super-admin" : i === 3 ? "read-only-admin" : "user"],
      status: "ENABLED",
      type: "USER_TYPE_HUMAN",
      username: handle,
      usernames: [handle],
    });
    if ((UNMATCHED_DEPARTMENTS as readonly string[]).includes(dept)) unmatched.push(id);
    else if (i > 0) {
      const key = `${dept}|${emp}|${clearance}`;
      const list = byCombo.get(key);
      if (list) list.push(id);
      else byCombo.set(key, [id]);
    }
  }
  const someUser = () => `u-${1 + r.int(nUsers - 1)}`;

  // Grant policies: each owns four entitlements, one per risk level, spread over the apps.
  const nApps = Math.min(APP_NAMES.length, Math.max(2, Math.ceil(nPolicies / 2)));
  const apps: JsonObject[] = [];
  const appOwners: string[][] = [];
  for (let a = 0; a < nApps; a++) {
    const owners = [someUser(), someUser()].filter((x, i, xs) => xs.indexOf(x) === i);
    appOwners.push(owners);
    apps.push({
      certifyPolicyId: "",
      displayName: APP_NAMES[a] ?? `App ${a}`,
      grantPolicyId: "",
      id: `app-${a}`,
      isManuallyManaged: false,
      ownerUserIds: owners,
      revokeGrantSources: false,
      revokePolicyId: "",
    });
  }

  const entitlements: JsonObject[] = [];
  interface EntInfo {
    id: string;
    app: number;
    risk: string;
    owners: string[];
  }
  const entInfo: EntInfo[] = [];
  const policyEnts: EntInfo[][] = [];
  const policies: JsonObject[] = [];
  interface RuleInfo {
    combo: Combo;
    stepKey: string;
    steps: readonly JsonObject[];
  }
  const policyRules: RuleInfo[][] = [];
  const policyBaseline: (readonly JsonObject[])[] = [];
  const created = iso(nowMs - 400 * DAY_MS);

  const approverSet = (kind: ApproverKind): JsonObject =>
    kind === "manager" ? managerApprovers : kind === "appOwners" ? appOwnerApprovers : kind === "entitlementOwners" ? entitlementOwnerApprovers : usersApprovers([someUser(), someUser()].filter((x, i, xs) => xs.indexOf(x) === i));
  const sequence = (connectorId: string): JsonObject[] => {
    const kinds: ApproverKind[] = ["manager", "appOwners", "entitlementOwners", "users"];
    const steps = [approvalStep(approverSet(r.pick(kinds)))];
    if (r.float() < 0.4) steps.push(approvalStep(approverSet(r.pick(kinds))));
    steps.push(provisionStep(connectorId));
    return steps;
  };

  for (let p = 0; p < nPolicies; p++) {
    const id = `pol-grant-${p}`;
    const ents: EntInfo[] = [];
    for (const risk of RISK) {
      const app = (p * 4 + RISK.indexOf(risk)) % nApps;
      const e: EntInfo = { id: `ent-${entInfo.length}`, app, risk, owners: [someUser()] };
      entInfo.push(e);
      ents.push(e);
      entitlements.push({
        annotations: null,
        appId: `app-${app}`,
        appResourceId: `res-${entInfo.length - 1}`,
        appResourceTypeId: r.pick(RESOURCE_TYPES),
        certifyPolicyId: "",
        displayName: `${APP_NAMES[app] ?? "App"} ${risk} role ${p}`,
        emergencyGrantEnabled: false,
        emergencyGrantPolicyId: "",
        grantPolicyId: id,
        id: e.id,
        overrideAccessRequestsDefaults: false,
        ownerUserIds: e.owners,
        requestSchemaId: "",
        revokePolicyId: "",
        riskLevelValueId: risk,
      });
    }
    policyEnts.push(ents);
    // Distinct combinations, one per rule.
    const taken = new Set<string>();
    const rules: RuleInfo[] = [];
    const connector = `conn-${p % nApps}`;
    while (rules.length < nRules) {
      const combo: Combo = { dept: r.pick(DEPARTMENTS), emp: r.pick(EMPLOYMENT), clearance: r.pick(CLEARANCE), risk: r.pick(RISK) };
      const key = `${combo.dept}|${combo.emp}|${combo.clearance}|${combo.risk}`;
      if (taken.has(key)) continue;
      taken.add(key);
      rules.push({ combo, stepKey: uuid(), steps: sequence(connector) });
    }
    const baseline = sequence(connector);
    policyRules.push(rules);
    policyBaseline.push(baseline);
    policies.push(
      policyJson({
        id,
        displayName: `Grant policy ${p}`,
        type: "GRANT",
        baseline,
        sequences: rules.map((x) => ({ key: x.stepKey, steps: x.steps })),
        rules: rules.map((x) => ({ condition: condition(x.combo, r, `app-${p % nApps}`), stepKey: x.stepKey })),
        createdAt: created,
      }),
    );
  }
  // A per-app entitlement nobody holds: rules test its absence, which is always true.
  for (let a = 0; a < nApps; a++)
    entitlements.push({
      annotations: null,
      appId: `app-${a}`,
      appResourceId: `res-breakglass-${a}`,
      appResourceTypeId: "rt-role",
      certifyPolicyId: "",
      displayName: `${APP_NAMES[a] ?? "App"} break-glass`,
      emergencyGrantEnabled: false,
      emergencyGrantPolicyId: "",
      grantPolicyId: "",
      id: `ent-breakglass-${a}`,
      overrideAccessRequestsDefaults: false,
      ownerUserIds: [],
      requestSchemaId: "",
      revokePolicyId: "",
      riskLevelValueId: "critical",
    });

  const defaultGrant = policyJson({ id: "pol-grant-default", displayName: "App owner approval (default)", type: "GRANT", baseline: [approvalStep(appOwnerApprovers), provisionStep("")], sequences: [], rules: [], createdAt: created });
  const revokeAutomatic = uuid();
  const revokeSteps: JsonObject[] = [approvalStep(managerApprovers), provisionStep("")];
  const revokeAutoSteps: JsonObject[] = [{ accept: { acceptMessage: "Revoked automatically." } }, provisionStep("")];
  const defaultRevoke = policyJson({
    id: "pol-revoke-default",
    displayName: "Standard revocation",
    type: "REVOKE",
    baseline: revokeSteps,
    sequences: [{ key: revokeAutomatic, steps: revokeAutoSteps }],
    rules: [{ condition: "task.origin in [TaskOrigin.TIME_REVOKE, TaskOrigin.NON_USAGE_REVOKE, TaskOrigin.ACCESS_REVIEW]", stepKey: revokeAutomatic }],
    createdAt: created,
  });
  const certifySteps = [approvalStep(managerApprovers)];
  const defaultCertify = policyJson({ id: "pol-certify-default", displayName: "Manager certification", type: "CERTIFY", baseline: certifySteps, sequences: [], rules: [], createdAt: created });
  policies.push(defaultGrant, defaultRevoke, defaultCertify);

  // Tasks.
  const grants: JsonObject[] = [];
  const granted = new Set<string>();
  const grant = (userId: string, ent: EntInfo, source: string) => {
    const key = `${userId}|${ent.id}`;
    if (granted.has(key)) return;
    granted.add(key);
    grants.push({ appEntitlementId: ent.id, appId: `app-${ent.app}`, identityUserId: userId, source });
  };
  const accounts = new Map<string, JsonObject>();
  const account = (userId: string, app: number): string => {
    const id = `au-${app}-${userId}`;
    if (!accounts.has(id))
      accounts.set(id, {
        appId: `app-${app}`,
        appUserType: "APP_USER_TYPE_USER",
        displayName: userId,
        email: `${userId}@synthetic.example`,
        id,
        identityUserId: userId,
        profile: {},
        status: { details: "", status: "APP_USER_STATUS_ENABLED" },
        username: userId,
      });
    return id;
  };
  const tasks: JsonObject[] = [];
  for (let i = 0; i < nTasks; i++) {
    const n = 1001 + i;
    const createdMs = nowMs - 60_000 - r.int(30 * DAY_MS);
    const createdAt = iso(createdMs);
    const roll = r.float();
    if (roll < 0.8) tasks.push(grantTask(n, createdAt));
    else if (roll < 0.9) tasks.push(revokeTask(n, createdAt));
    else tasks.push(certifyTask(n, createdAt));
  }

  function grantTask(n: number, createdAt: string): JsonObject {
    const p = r.int(nPolicies);
    const rules = policyRules[p] ?? [];
    const mode = options.matchAt ?? (rules.length > 0 && r.float() < 0.6 ? "some" : "none");
    const rule = rules.length === 0 || mode === "none" ? undefined : mode === "first" ? rules[0] : mode === "last" ? rules[rules.length - 1] : r.pick(rules);
    const ents = policyEnts[p] ?? [];
    const ent = rule ? (ents.find((e) => e.risk === rule.combo.risk) ?? r.pick(ents)) : r.pick(ents);
    const subject = rule ? r.pick(byCombo.get(`${rule.combo.dept}|${rule.combo.emp}|${rule.combo.clearance}`) ?? [someUser()]) : r.pick(unmatched);
    const steps = rule ? rule.steps : (policyBaseline[p] ?? []);
    const closed = r.float() < 0.1;
    const gen = `gen-${n}-1`;
    const snapshot = snapshots ? (policies[p] ?? null) : null;
    const approvers = (step: JsonObject | undefined): string[] => stepApprovers(step, subject, ent);
    const first = steps[0];
    const assignedAt = iso(Date.parse(createdAt) + 2000);
    let policyInstance: JsonObject;
    let outcome = "GRANT_OUTCOME_UNSPECIFIED";
    let outcomeTime: string | null = null;
    let approverIds: string[] = [];
    if (!closed) {
      policyInstance = {
        current: { approval: { approval: first?.["approval"] ?? null, assignedAt, escalationInstance: null, state: "APPROVAL_INSTANCE_STATE_WAITING" }, id: `si-${n}-0`, policyGenerationId: gen, state: "POLICY_STEP_STATE_ACTIVE" },
        history: [],
        next: steps.slice(1),
        policy: snapshot,
      };
    } else {
      // Denied at the first approval.
      const by = approvers(first)[0] ?? "u-1";
      outcome = "GRANT_OUTCOME_DENIED";
      outcomeTime = iso(Date.parse(createdAt) + 3_600_000);
      approverIds = [by];
      policyInstance = {
        current: null,
        history: [
          {
            approval: { approval: first?.["approval"] ?? null, assignedAt, denied: { deniedAt: outcomeTime, userId: by }, escalationInstance: null, state: "APPROVAL_INSTANCE_STATE_DONE" },
            id: `si-${n}-0`,
            policyGenerationId: gen,
            state: "POLICY_STEP_STATE_DONE",
          },
        ],
        next: [],
        policy: snapshot,
      };
    }
    return taskJson({
      n,
      createdAt,
      updatedAt: outcomeTime ?? createdAt,
      closed,
      subject,
      origin: r.pick(GRANT_ORIGINS),
      policyInstance,
      gen,
      approverIds,
      stepApproverIds: closed ? [] : approvers(first),
      displayName: `Grant ent ${ent.id} to ${subject}`,
      type: {
        grant: {
          appEntitlementId: ent.id,
          appId: `app-${ent.app}`,
          appUserId: "",
          grantDuration: r.float() < 0.5 ? `${(1 + r.int(72)) * 3600}s` : null,
          identityUserId: subject,
          outcome,
          outcomeTime,
          source: null,
        },
      },
    });
  }

  /** A revocation of a grant the user holds (recorded in `grants`), under the tenant default. */
  function revokeTask(n: number, createdAt: string): JsonObject {
    const ent = r.pick(entInfo);
    const subject = someUser();
    grant(subject, ent, "direct");
    const kind = r.int(3);
    const origin = kind === 0 ? "TASK_ORIGIN_TIME_REVOKE" : kind === 1 ? "TASK_ORIGIN_NON_USAGE_REVOKE" : "TASK_ORIGIN_WEBAPP";
    const automatic = kind < 2;
    const gen = `gen-${n}-1`;
    const steps = automatic ? revokeAutoSteps : revokeSteps;
    const policyInstance: JsonObject = automatic
      ? {
          current: { id: `si-${n}-1`, policyGenerationId: gen, provision: provisionInstance(steps[1]), state: "POLICY_STEP_STATE_ACTIVE" },
          history: [{ accept: { acceptMessage: "Revoked automatically." }, id: `si-${n}-0`, policyGenerationId: gen, state: "POLICY_STEP_STATE_DONE" }],
          next: [],
          policy: snapshots ? defaultRevoke : null,
        }
      : {
          current: { approval: { approval: steps[0]?.["approval"] ?? null, assignedAt: createdAt, escalationInstance: null, state: "APPROVAL_INSTANCE_STATE_WAITING" }, id: `si-${n}-0`, policyGenerationId: gen, state: "POLICY_STEP_STATE_ACTIVE" },
          history: [],
          next: steps.slice(1),
          policy: snapshots ? defaultRevoke : null,
        };
    const source: JsonObject =
      kind === 0
        ? { expired: { expiredAt: createdAt } }
        : kind === 1
          ? { nonUsage: { expiresAt: createdAt, lastLogin: iso(Date.parse(createdAt) - 95 * DAY_MS) } }
          : { request: { requestUserId: managerOf[Number(subject.slice(2))] || "u-1" } };
    return taskJson({
      n,
      createdAt,
      updatedAt: createdAt,
      closed: false,
      processing: automatic ? "TASK_PROCESSING_TYPE_WAITING" : "TASK_PROCESSING_TYPE_PROCESSING",
      subject,
      origin,
      policyInstance,
      gen,
      approverIds: [],
      stepApproverIds: automatic ? [] : [managerOf[Number(subject.slice(2))] || "u-1"],
      displayName: `Revoke ent ${ent.id} from ${subject}`,
      type: {
        revoke: {
          appEntitlementId: ent.id,
          appId: `app-${ent.app}`,
          appUserId: account(subject, ent.app),
          identityUserId: subject,
          outcome: "REVOKE_OUTCOME_UNSPECIFIED",
          outcomeTime: null,
          resource: null,
          source,
        },
      },
    });
  }

  /** A certification in the quarterly access review, under its policy (the tenant default). */
  function certifyTask(n: number, createdAt: string): JsonObject {
    const ent = r.pick(entInfo);
    const subject = someUser();
    grant(subject, ent, r.float() < 0.3 ? "enrollment" : "direct");
    const gen = `gen-${n}-1`;
    return taskJson({
      n,
      createdAt,
      updatedAt: createdAt,
      closed: false,
      subject,
      origin: "TASK_ORIGIN_ACCESS_REVIEW",
      policyInstance: {
        current: { approval: { approval: certifySteps[0]?.["approval"] ?? null, assignedAt: createdAt, escalationInstance: null, state: "APPROVAL_INSTANCE_STATE_WAITING" }, id: `si-${n}-0`, policyGenerationId: gen, state: "POLICY_STEP_STATE_ACTIVE" },
        history: [],
        next: [],
        policy: snapshots ? defaultCertify : null,
      },
      gen,
      approverIds: [],
      stepApproverIds: [managerOf[Number(subject.slice(2))] || "u-1"],
      displayName: `Certify ent ${ent.id} for ${subject}`,
      type: {
        certify: {
          accessReviewId: "ar-synthetic",
          accessReviewSelection: "ar-synthetic",
          appEntitlementId: ent.id,
          appId: `app-${ent.app}`,
          appUserId: account(subject, ent.app),
          identityUserId: subject,
          outcome: "CERTIFY_OUTCOME_UNSPECIFIED",
          outcomeTime: null,
          resource: null,
        },
      },
    });
  }

  function stepApprovers(step: JsonObject | undefined, subject: string, ent: EntInfo): string[] {
    const a = step?.["approval"];
    if (!a || typeof a !== "object" || Array.isArray(a)) return [];
    const def = a as JsonObject;
    if (def["manager"]) return [managerOf[Number(subject.slice(2))] || "u-1"];
    if (def["appOwners"]) return (appOwners[ent.app] ?? []).filter((u) => u !== subject);
    if (def["entitlementOwners"]) return ent.owners.filter((u) => u !== subject);
    const u = def["users"];
    if (u && typeof u === "object" && !Array.isArray(u)) {
      const ids = (u as JsonObject)["userIds"];
      return Array.isArray(ids) ? ids.filter((x): x is string => typeof x === "string" && x !== subject) : [];
    }
    return [];
  }

  return {
    version: 1,
    now,
    tenant: {
      defaultPolicies: { grant: "pol-grant-default", revoke: "pol-revoke-default", certify: "pol-certify-default" },
      featureFlags: { POLICY_REFERENCES_POLICY: true },
    },
    roles: [
      { id: "super-admin", displayName: "Super Administrator", kind: "SUPER_ADMIN" },
      { id: "read-only-admin", displayName: "Read-Only Administrator", kind: "READ_ONLY_ADMIN" },
      { id: "user", displayName: "Basic User", kind: "BASIC_USER" },
    ],
    users,
    apps,
    entitlements,
    appUsers: [...accounts.values()],
    groups: [],
    grants,
    resourceTypeDefaults: [],
    accessReviews: [{ id: "ar-synthetic", displayName: "Quarterly access review", policyId: "pol-certify-default", usePolicyOverride: false }],
    policies,
    tasks,
  };
}

/**
 * The condition of a rule testing `combo`: the four tests in one of their equivalent CEL spellings,
 * with up to two always-true terms (for the tasks this generator makes) mixed in, in varied order.
 */
function condition(combo: Combo, r: Rng, appId: string): string {
  const dept = r.pick([`subject.department == "${combo.dept}"`, `subject.department in ["${combo.dept}", "Platform"]`]);
  const emp = r.pick([`subject.employmentType == "${combo.emp}"`, `subject.employment_type == "${combo.emp}"`]);
  const clearance = r.pick([`subject.profile.clearance == "${combo.clearance}"`, `subject.profile["clearance"] == "${combo.clearance}"`]);
  const risk = r.pick([`entitlement.riskLevelValueId == "${combo.risk}"`, `entitlement.risk_level_value_id == "${combo.risk}"`]);
  const extras = [
    "subject.status == UserStatus.ENABLED",
    "task.origin != TaskOrigin.COPILOT",
    `!c1.user.v1.HasEntitlement(subject, "${appId}", "ent-breakglass-${appId.slice(4)}")`,
    'now().getHours("Europe/Berlin") >= 0',
    "subject.type == UserType.HUMAN",
  ];
  const terms = [dept, emp, clearance, risk];
  const nExtras = r.int(3);
  for (let i = 0; i < nExtras; i++) terms.splice(r.int(terms.length + 1), 0, r.pick(extras));
  return terms.join(" && ");
}

function provisionInstance(step: JsonObject | undefined): JsonObject {
  return {
    externalTicketId: "",
    externalTicketProvisionerConfigId: "",
    notificationId: "",
    provision: step?.["provision"] ?? null,
    state: "PROVISION_INSTANCE_STATE_WAITING",
    svcActionInvocationId: "",
    waitingOn: null,
    webhookId: "",
    webhookInstanceId: "",
  };
}

function taskJson(t: {
  n: number;
  createdAt: string;
  updatedAt: string;
  closed: boolean;
  processing?: string;
  subject: string;
  origin: string;
  policyInstance: JsonObject;
  gen: string;
  approverIds: string[];
  stepApproverIds: string[];
  displayName: string;
  type: JsonObject;
}): JsonObject {
  return {
    actions: t.closed ? ["TASK_ACTION_TYPE_COMMENT"] : ["TASK_ACTION_TYPE_APPROVE", "TASK_ACTION_TYPE_DENY", "TASK_ACTION_TYPE_COMMENT", "TASK_ACTION_TYPE_HARD_RESET"],
    analysisId: "",
    annotations: [],
    approverIds: t.approverIds,
    commentCount: 0,
    createdAt: t.createdAt,
    createdByUserId: t.subject,
    data: null,
    deletedAt: null,
    description: "",
    displayName: t.displayName,
    emergencyAccess: false,
    externalRefs: [],
    form: null,
    id: `tsk-${t.n}`,
    insightIds: [],
    numericId: String(t.n),
    origin: t.origin,
    policy: t.policyInstance,
    policyGenerationId: t.gen,
    processing: t.closed ? "TASK_PROCESSING_TYPE_DONE" : (t.processing ?? "TASK_PROCESSING_TYPE_PROCESSING"),
    recommendation: "INSIGHT_RECOMMENDATION_UNSPECIFIED",
    revocationTargets: [],
    state: t.closed ? "TASK_STATE_CLOSED" : "TASK_STATE_OPEN",
    stepApproverIds: t.stepApproverIds,
    type: t.type,
    updatedAt: t.updatedAt,
    userId: t.subject,
  };
}

const OPTION_KEYS: readonly string[] = ["seed", "tasks", "users", "rulesPerPolicy", "policies", "matchAt", "now", "policySnapshots"];
/** The most tasks a synthetic world is built with: about 5 GB of heap at the top. */
const MAX_SYNTHETIC_TASKS = 5_000_000;

/**
 * The options as given, or a TypeError saying what is wrong (a programmer's mistake in a test or a
 * bench: an unknown key such as `taks`, a seed that is not a number, `tasks: Infinity`), so that a
 * typo does not quietly build another world.
 */
function checkedOptions(o: unknown): SyntheticWorldOptions {
  const fail = (why: string): never => {
    throw new TypeError(`syntheticWorld(options): ${why}`);
  };
  if (typeof o !== "object" || o === null || Array.isArray(o)) return fail(`options must be an object such as { seed: 7, tasks: 1000 }, not ${o === null ? "null" : Array.isArray(o) ? "an array" : typeof o}`);
  const x = o as Record<string, unknown>;
  for (const k of Object.keys(x)) {
    if (OPTION_KEYS.includes(k)) continue;
    const guess = closest(k, OPTION_KEYS);
    fail(`"${k}" is not an option${guess ? `; did you mean "${guess}"?` : ` (options: ${OPTION_KEYS.join(", ")})`}`);
  }
  const whole = (k: string, required: boolean, max = Number.MAX_SAFE_INTEGER): void => {
    const v = x[k];
    if (v === undefined && !required) return;
    if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > max) fail(`${k} must be a whole number from 0 to ${max.toLocaleString("en")}, not ${typeof v === "string" ? JSON.stringify(v) : String(v)}`);
  };
  if (typeof x["seed"] !== "number" || !Number.isFinite(x["seed"])) fail(`seed must be a number, not ${typeof x["seed"] === "string" ? JSON.stringify(x["seed"]) : String(x["seed"])}`);
  whole("tasks", true, MAX_SYNTHETIC_TASKS);
  whole("users", false, 1_000_000);
  whole("rulesPerPolicy", false, 16);
  whole("policies", false, 10_000);
  const matchAt = x["matchAt"];
  if (matchAt !== undefined && matchAt !== "first" && matchAt !== "last" && matchAt !== "none") fail(`matchAt must be "first", "last" or "none", not ${JSON.stringify(matchAt)}`);
  const now = x["now"];
  if (now !== undefined && !isRealTimestamp(now)) fail(`now must be an RFC 3339 timestamp such as "2026-11-22T09:00:00Z", not ${JSON.stringify(now)}`);
  const snapshots = x["policySnapshots"];
  if (snapshots !== undefined && typeof snapshots !== "boolean") fail(`policySnapshots must be true or false, not ${JSON.stringify(snapshots)}`);
  return o as SyntheticWorldOptions;
}
