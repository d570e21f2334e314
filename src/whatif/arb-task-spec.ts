/**
 * fast-check arbitraries of described tasks inside a world: subjects whose attributes range over the
 * values the world's users have *and* the string literals the policies' conditions test (so a search
 * meets `subject.department == "Security"` with a Security subject, not only by chance), entitlements
 * of the world with their risk level and resource type varied the same way, origins, emergency
 * access and grant durations. Every field is optional and absent by default, so fast-check shrinks a
 * counterexample to the few overrides that matter.
 *
 * Needs fast-check (a peer dependency of `policy-sim/testing`, which re-exports this module).
 */
import fc from "fast-check";
import { KNOWN_TASK_ORIGINS, type Policy } from "../model/index.js";
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
  return fc.record({ subject: arbSubjectIn(world, options), entitlement: ent, overrides: entitlementOverrides, extra }).map(({ subject, entitlement, overrides, extra: x }) => {
    const e: EntitlementSpec = { appId: entitlement.appId, id: entitlement.id, ...overrides };
    return withKind({ subject, entitlement: e, ...x });
  });
}
