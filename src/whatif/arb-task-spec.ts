/**
 * fast-check arbitraries of described tasks inside a world: subjects whose attributes range over the
 * values the world's users have *and* the string literals the policies' conditions test (so a search
 * meets `subject.department == "Security"` with a Security subject, not only by chance), entitlements
 * of the world with their risk level and resource type varied the same way, origins, emergency
 * access and grant durations. Every field is optional and absent by default, so fast-check shrinks a
 * counterexample to the few overrides that matter. Half the specs are aimed at one rule: the
 * comparisons of its condition with constants (`subject.department == "Security"`,
 * `entitlement.riskLevelValueId in ["high", …]`, `task.origin == TaskOrigin.COPILOT`,
 * `subject.job_title.contains("Engineer")`) are read off its text and laid over a random spec.
 *
 * Needs fast-check (an optional peer dependency of `policy-sim/testing/arbitraries`, which re-exports this module).
 */
import fc from "fast-check";
import { KNOWN_TASK_ORIGINS, type Policy } from "../model/index.js";
import { setOwn } from "../codec/json-tools.js";
import type { JsonValue } from "../model/json.js";
import type { World } from "../world/world.js";
import type { EntitlementSpec, SubjectSpec, TaskSpec } from "./task-spec.js";

/**
 * Options of {@link arbTaskSpecIn} and {@link arbSubjectIn}.
 *
 * @example
 * ```ts
 * arbTaskSpecIn(world, { policies: [before, after], kind: "grant" });
 * ```
 */
export interface TaskSpecArbOptions {
  /** Policies whose condition literals are mixed into the values (default: every policy of the world). */
  readonly policies?: readonly Policy[];
  /** The kind of task (default grant). */
  readonly kind?: "grant" | "revoke" | "certify";
  /** The entitlements to request (default: every entitlement of the world). */
  readonly entitlements?: readonly { readonly appId: string; readonly id: string }[];
  /** Vary the subject's and entitlement's attributes (default true); false keeps them as in the world. */
  readonly overrides?: boolean;
}

const STRING_LITERAL = /"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'/g;
const PROFILE_KEY = /profile\s*(?:\.\s*([A-Za-z_]\w*)|\[\s*["']([A-Za-z_][\w.-]*)["']\s*\])/g;
const USER_STATUSES = ["ENABLED", "DISABLED", "DELETED", "UNKNOWN"];
const USER_TYPES = ["USER_TYPE_HUMAN", "USER_TYPE_AGENT", "USER_TYPE_SERVICE", "USER_TYPE_SYSTEM"];
const IDENTIFIER = /^[A-Za-z_]\w*$/;

function unescape(body: string): string {
  try {
    return JSON.parse(`"${body.replace(/\\'/g, "'")}"`) as string;
  } catch {
    return body;
  }
}

/** What the conditions of `policies` mention: string literals and profile keys. */
function mined(policies: readonly Policy[]): { literals: string[]; profileKeys: string[] } {
  const literals = new Set<string>();
  const keys = new Set<string>();
  for (const p of policies)
    for (const r of p.rules ?? []) {
      for (const m of r.condition.matchAll(STRING_LITERAL)) literals.add(unescape(m[1] ?? m[2] ?? ""));
      for (const m of r.condition.matchAll(PROFILE_KEY)) {
        const k = m[1] ?? m[2];
        if (k) keys.add(k);
      }
    }
  return { literals: [...literals].sort(), profileKeys: [...keys].sort() };
}

/** Sorted, deduplicated, so the arbitrary does not depend on iteration order. */
function pool(...lists: readonly (readonly string[])[]): string[] {
  return [...new Set(lists.flat())].sort();
}

function pick(values: readonly string[]): fc.Arbitrary<string> {
  return values.length > 0 ? fc.constantFrom(...values) : fc.constant("");
}

/** What a rule's condition asks of a task, as far as simple comparisons tell: a partial spec. */
interface Hint {
  readonly subject: Record<string, string>;
  readonly profile: Record<string, string>;
  readonly entitlement: Record<string, string>;
  readonly entitlementId?: string;
  readonly origin?: string;
}

const LHS = String.raw`(subject|entitlement|task)\s*\.\s*(profile\s*(?:\.\s*[A-Za-z_]\w*|\[\s*"[^"\n]*"\s*\]|\[\s*'[^'\n]*'\s*\])|[A-Za-z_]\w*)`;
const LITERAL = String.raw`"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'`;
const RHS = String.raw`${LITERAL}|\[\s*(?:${LITERAL})|[A-Z][A-Za-z]*\.[A-Z_]+`;
const COMPARISON = new RegExp(String.raw`${LHS}\s*(==|in)\s*(${RHS})|(${LITERAL}|[A-Z][A-Za-z]*\.[A-Z_]+)\s*==\s*${LHS}|${LHS}\s*\.\s*(?:contains|startsWith|endsWith)\(\s*(${LITERAL})\s*\)`, "g");

// Maps, not object literals: the field names come from condition text, and `subject.constructor`
// must not find Object's constructor on a literal's prototype.
const SUBJECT_FIELDS: ReadonlyMap<string, string> = new Map([
  ["department", "department"],
  ["jobTitle", "jobTitle"],
  ["job_title", "jobTitle"],
  ["employmentType", "employmentType"],
  ["employment_type", "employmentType"],
  ["employmentStatus", "employmentStatus"],
  ["employment_status", "employmentStatus"],
  ["status", "status"],
  ["directoryStatus", "directoryStatus"],
  ["directory_status", "directoryStatus"],
  ["type", "type"],
  ["email", "email"],
  ["displayName", "displayName"],
  ["display_name", "displayName"],
]);
const ENTITLEMENT_FIELDS: ReadonlyMap<string, string> = new Map([
  ["riskLevelValueId", "riskLevelValueId"],
  ["risk_level_value_id", "riskLevelValueId"],
  ["appResourceTypeId", "appResourceTypeId"],
  ["app_resource_type_id", "appResourceTypeId"],
]);

/** A right-hand side as the string a field would hold: a literal, the first of a list, an enum member. */
function valueOf(rhs: string, field: string): string {
  const lit = rhs.match(new RegExp(LITERAL));
  if (lit) return unescape(lit[0].slice(1, -1));
  const member = rhs.slice(rhs.indexOf(".") + 1);
  if (field === "type") return member.startsWith("USER_TYPE_") ? member : `USER_TYPE_${member}`;
  if (field === "origin") return member.startsWith("TASK_ORIGIN_") ? member : `TASK_ORIGIN_${member}`;
  return member.replace(/^USER_STATUS_/, "");
}

function hintOf(condition: string, world: World): Hint | undefined {
  const subject: Record<string, string> = {};
  const profile: Record<string, string> = {};
  const entitlement: Record<string, string> = {};
  let entitlementId: string | undefined;
  let origin: string | undefined;
  let found = false;
  for (const m of condition.matchAll(COMPARISON)) {
    const root = m[1] ?? m[6] ?? m[8];
    const field = m[2] ?? m[7] ?? m[9];
    const rhs = m[4] ?? m[5] ?? m[10];
    if (!root || !field || rhs === undefined) continue;
    const profileKey = field.match(/^profile\s*(?:\.\s*([A-Za-z_]\w*)|\[\s*["']([^"'\n]*)["']\s*\])/);
    if (root === "subject" && profileKey) {
      const k = profileKey[1] ?? profileKey[2];
      // A profile key is the condition's own text: `__proto__` is a key like any other.
      if (k && IDENTIFIER.test(k)) setOwn(profile, k, valueOf(rhs, k));
    } else if (root === "subject" && SUBJECT_FIELDS.has(field)) {
      const f = SUBJECT_FIELDS.get(field) ?? field;
      subject[f] = valueOf(rhs, f);
    } else if (root === "entitlement" && ENTITLEMENT_FIELDS.has(field)) {
      const f = ENTITLEMENT_FIELDS.get(field) ?? field;
      entitlement[f] = valueOf(rhs, f);
    } else if (root === "entitlement" && field === "id") {
      const id = valueOf(rhs, "id");
      if (world.entitlements.some((e) => e.id === id)) entitlementId = id;
    } else if (root === "task" && field === "origin") origin = valueOf(rhs, "origin");
    else continue;
    found = true;
  }
  if (!found) return undefined;
  return { subject, profile, entitlement, ...(entitlementId === undefined ? {} : { entitlementId }), ...(origin === undefined ? {} : { origin }) };
}

/** One hint per rule whose condition compares fields with constants, in policy and rule order. */
function hintsOf(policies: readonly Policy[], world: World): Hint[] {
  const out: Hint[] = [];
  for (const p of policies)
    for (const r of p.rules ?? []) {
      const h = hintOf(r.condition, world);
      if (h) out.push(h);
    }
  return out;
}

/** A spec with a hint's values laid over it. */
function withHint(spec: TaskSpec, h: Hint, world: World): TaskSpec {
  const profile = { ...(spec.subject?.profile ?? {}), ...h.profile };
  const subject: SubjectSpec = { ...spec.subject, ...h.subject, ...(Object.keys(profile).length > 0 ? { profile } : {}) };
  const ent = h.entitlementId ? world.entitlements.find((e) => e.id === h.entitlementId) : undefined;
  const base = ent ? { appId: ent.appId, id: ent.id } : spec.entitlement;
  const entitlement: EntitlementSpec = { ...base, ...(ent ? {} : spec.entitlement), ...h.entitlement };
  return { ...spec, subject, entitlement, ...(h.origin === undefined ? {} : { origin: h.origin }) };
}

/**
 * Subjects: an existing user of the world (or a new one when the world has none) with any of its
 * attributes overridden by values seen in the world or tested by the conditions.
 *
 * @example
 * ```ts
 * fc.sample(arbSubjectIn(world), 1); // [{ id: "u-dev2", employmentType: "Contractor" }]
 * ```
 */
export function arbSubjectIn(world: World, options: TaskSpecArbOptions = {}): fc.Arbitrary<SubjectSpec> {
  const users = world.users.map((u) => u.id).filter((id) => id !== "");
  const id = users.length > 0 ? fc.constantFrom(...users) : fc.constant("u-spec-subject");
  if (options.overrides === false) return id.map((x) => ({ id: x }));
  const { literals, profileKeys } = mined(options.policies ?? world.policies);
  const seen = (f: (u: World["users"][number]) => string) => world.users.map(f).filter((x) => x !== "");
  const profileValues = new Map<string, Set<string>>();
  for (const u of world.users)
    for (const [k, v] of Object.entries(u.profile))
      if (typeof v === "string" && IDENTIFIER.test(k)) (profileValues.get(k) ?? profileValues.set(k, new Set()).get(k))?.add(v);
  const keys = pool([...profileValues.keys()], profileKeys).filter((k) => IDENTIFIER.test(k) && k !== "__proto__" && k !== "constructor");
  const profile: Record<string, fc.Arbitrary<JsonValue>> = {};
  for (const k of keys) profile[k] = pick(pool([...(profileValues.get(k) ?? [])], literals));
  const overrides = fc.record(
    {
      department: pick(pool(seen((u) => u.department), literals)),
      jobTitle: pick(pool(seen((u) => u.jobTitle), literals)),
      employmentType: pick(pool(seen((u) => u.employmentType), literals)),
      status: pick(pool(USER_STATUSES, seen((u) => u.status))),
      type: pick(pool(USER_TYPES, seen((u) => u.type))),
      // Keys are left out rather than set to undefined; the filter only convinces the type checker.
      profile: fc
        .record(profile, { requiredKeys: [] })
        .map((p) => Object.fromEntries(Object.entries(p).filter((kv): kv is [string, JsonValue] => kv[1] !== undefined))),
    },
    { requiredKeys: [] },
  );
  return fc.tuple(id, overrides).map(([x, o]) => ({ id: x, ...o }));
}

/**
 * Described tasks inside a world (see {@link TaskSpec}): a subject from {@link arbSubjectIn}, an
 * entitlement of the world with its risk level and resource type possibly overridden, and possibly
 * an origin, emergency access and a grant duration.
 *
 * @example
 * ```ts
 * fc.assert(fc.property(arbTaskSpecIn(world), (spec) => taskInWorld(world, spec).ok));
 * ```
 */
export function arbTaskSpecIn(world: World, options: TaskSpecArbOptions = {}): fc.Arbitrary<TaskSpec> {
  const refs = options.entitlements ?? world.entitlements.map((e) => ({ appId: e.appId, id: e.id }));
  if (refs.length === 0) throw new Error("arbTaskSpecIn: the world has no entitlements to request");
  const ent = fc.constantFrom(...refs);
  const kind = options.kind;
  const withKind = <T extends object>(spec: T): T => (kind && kind !== "grant" ? { ...spec, kind } : spec);
  if (options.overrides === false)
    return fc
      .record({ subject: arbSubjectIn(world, options), entitlement: ent, extra: fc.record({ origin: fc.constantFrom(...KNOWN_TASK_ORIGINS) }, { requiredKeys: [] }) })
      .map(({ subject, entitlement, extra }) => withKind({ subject, entitlement: { appId: entitlement.appId, id: entitlement.id }, ...extra }));
  const { literals } = mined(options.policies ?? world.policies);
  const entitlementOverrides = fc.record(
    {
      riskLevelValueId: pick(pool(world.entitlements.map((e) => e.riskLevelValueId).filter((x) => x !== ""), literals)),
      appResourceTypeId: pick(pool(world.entitlements.map((e) => e.appResourceTypeId).filter((x) => x !== ""), literals)),
    },
    { requiredKeys: [] },
  );
  const extra = fc.record(
    {
      origin: fc.constantFrom(...KNOWN_TASK_ORIGINS),
      emergencyAccess: fc.boolean(),
      grantDuration: fc.constantFrom("3600s", "86400s", "2592000s"),
    },
    { requiredKeys: [] },
  );
  const random = fc.record({ subject: arbSubjectIn(world, options), entitlement: ent, overrides: entitlementOverrides, extra }).map(({ subject, entitlement, overrides, extra: x }) => {
    const e: EntitlementSpec = { appId: entitlement.appId, id: entitlement.id, ...overrides };
    return withKind({ subject, entitlement: e, ...x });
  });
  // Half the specs aim at one rule: its condition's comparisons with constants, laid over a random
  // spec. A conjunction of four equalities is met by chance once in thousands of tries; aimed, at once.
  const hints = hintsOf(options.policies ?? world.policies, world);
  if (hints.length === 0) return random;
  const aimed = fc.tuple(fc.constantFrom(...hints), random).map(([h, spec]) => withHint(spec, h, world));
  return fc.oneof(random, aimed);
}
