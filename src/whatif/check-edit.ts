/**
 * Whether an edit left the world well-typed. A recipe is JavaScript over a draft: nothing stops it
 * writing `rules = "nope"` or `grantPolicyId = 42`, and the engine, which trusts a world that
 * `loadWorld` accepted, would then fail inside a run (an `INTERNAL` error) or route by a value no
 * world file could hold. So every object an edit replaced or added is written out as the world file
 * writes it and read back as `loadWorld` reads it: what the reader refuses, or reads back other than
 * the edit wrote it (the writers trust their input: `rules = "nope"` is written as four empty rules),
 * is the edit's mistake, reported with its path in the edited list. A field the edit left out (a
 * rule pushed as `{ condition }`) is given its default, as a world file that leaves it out gets it,
 * and the run uses the object read back: the engine never meets a missing field. For any object a
 * world file holds the round trip is exact (tested over generated policies and the fixtures'
 * objects). Objects the edit did not touch are not read again: the check costs a pass over the
 * lists an edit replaced.
 */
import { decodePolicy, encodePolicy } from "../codec/index.js";
import { describeValue } from "../codec/diagnostic.js";
import { decodeConfigRule, encodeConfigRule } from "../world/config-rule-codec.js";
import { decodeApp, decodeEntitlement, decodeUser } from "../world/decode-directory.js";
import { encodeApp, encodeEntitlement, encodeUser } from "../world/encode-directory.js";
import { costLimitCapped, decodeTenant, directoryFields } from "../world/load-world.js";
import { itemWarnings } from "../world/world-warnings.js";
import { type Diagnostic, isObject, ObjectReader, pathIndex, pathKey } from "../world/read.js";
import { encodeTenant } from "../world/save-world.js";
import { buildIndex, type World } from "../world/world.js";
import { ownValue } from "./same-value.js";
import { CEL_RESOURCE_LIMITS } from "../cel/limits.js";
import { regexWeight } from "../cel/regex.js";
import { MAX_RULES } from "../policy/lint.js";
import { callStringLiterals } from "../policy/lint-fold.js";

/** Reads one written object back, appending what the reader refuses to `out`; what it read. */
type ReadBack = (json: unknown, path: string, out: Diagnostic[]) => unknown;

const readObject =
  (decode: (r: ObjectReader, out: Diagnostic[]) => unknown): ReadBack =>
  (json, path, out) => {
    if (isObject(json)) return decode(new ObjectReader(json, path, out), out);
    out.push({ code: "EXPECTED_OBJECT", path, message: "expected an object" });
    return undefined;
  };

const readPolicy: ReadBack = (json, path, out) => {
  const r = decodePolicy(json);
  if (r.ok) return r.value;
  // The codec's paths start at "$": the policy's own root.
  for (const d of r.error) out.push({ ...d, path: path + d.path.slice(1) });
  return undefined;
};

/** What {@link compareRead} found: the first place the read-back value differs, with both values there. */
interface Difference {
  readonly path: string;
  readonly wrote: unknown;
  readonly read: unknown;
}

/**
 * One walk over what an edit wrote and what was read back (plain data, any key order): the first
 * place they differ, or null; and whether the reader filled in a field the edit left out (which is
 * not a difference: a world file that leaves it out gets the same default).
 */
function compareRead(wrote: unknown, read: unknown, path: string): { readonly difference: Difference | null; readonly completed: boolean } {
  let completed = false;
  const walk = (w: unknown, r: unknown, at: string, depth: number): Difference | null => {
    if (Object.is(w, r)) return null;
    if (w === undefined) {
      completed = true;
      return null;
    }
    // A string the reader spells its own way (`USER_STATUS_DISABLED` read as `DISABLED`) is read so
    // from a world file too: the run uses the reader's spelling.
    if (typeof w === "string" && typeof r === "string") {
      completed = true;
      return null;
    }
    // A map left null (a policy's annotations a plan leaves unset) is written and read as `{}`.
    if (w === null && typeof r === "object" && r !== null && !Array.isArray(r) && Object.keys(r).length === 0) {
      completed = true;
      return null;
    }
    if (typeof w !== "object" || typeof r !== "object" || w === null || r === null || depth > 64 || Array.isArray(w) !== Array.isArray(r)) return { path: at, wrote: w, read: r };
    for (const k of new Set([...Object.keys(w), ...Object.keys(r)])) {
      const d = walk(ownValue(w, k), ownValue(r, k), Array.isArray(w) ? `${at}[${k}]` : pathKey(at, k), depth + 1);
      if (d !== null) return d;
    }
    return null;
  };
  const difference = walk(wrote, read, path, 0);
  return { difference, completed };
}

/** The problem a {@link Difference} is. */
function illTyped(d: Difference): Diagnostic {
  const what = (v: unknown): string => (v === undefined ? "nothing" : describeValue(v));
  return { code: "EDIT_ILL_TYPED", path: d.path, message: `the edit wrote ${what(d.wrote)} here, which a world file cannot hold (it reads back as ${what(d.read)})` };
}

/**
 * A field the edit set on the object itself that the world file's writer does not know (`e.description
 * = …`): a world file keeps such fields as they came, in `$unknown`, so that is where an edit sets
 * them; said so, rather than as a value that reads back as nothing.
 */
function unknownField(fields: Readonly<Record<string, unknown>>, path: string, d: Difference): Diagnostic | undefined {
  if (d.read !== undefined) return undefined;
  const key = Object.keys(fields).find((k) => pathKey(path, k) === d.path);
  if (key === undefined || key === "$unknown") return undefined;
  return {
    code: "EDIT_UNKNOWN_FIELD",
    path: d.path,
    message: `the edit set "${key}", which policy-sim does not model on this object; a world file keeps such a field as it came, in $unknown: set it there (x.$unknown = { ...x.$unknown, ${JSON.stringify(key)}: … }), or check its spelling`,
  };
}

/**
 * Writes each item of `after` that is not an item of `before` (by identity) with `encode` and reads
 * it back with `readBack`, under `edit.<list>[i]`. The list the engine should run on: `after`'s,
 * with each such item that left fields out replaced by what was read back (the fields' defaults,
 * as a world file that leaves them out gets them).
 */
function checkList<T>(
  list: string,
  before: readonly T[],
  after: readonly T[],
  keyFields: readonly string[],
  encode: (t: T) => unknown,
  readBack: ReadBack,
  out: Diagnostic[],
  warnings: Diagnostic[],
): readonly T[] {
  if (before === after) return after;
  if (!Array.isArray(after)) {
    out.push({ code: "EXPECTED_ARRAY", path: `edit.${list}`, message: "expected an array" });
    return before;
  }
  const kept = new Set<T>(before);
  // An object is matched by its key (`id`, and `appId` for what belongs to an app): never defaulted,
  // and one object per key, as a world file must have it.
  const seen = new Set<string>();
  let normalised: T[] | null = null;
  for (let i = 0; i < after.length; i++) {
    const item = after[i] as T;
    const path = pathIndex(`edit.${list}`, i);
    const fields = (typeof item === "object" && item !== null ? item : {}) as Readonly<Record<string, unknown>>;
    const key = keyFields.map((f) => fields[f]);
    if (key.every((k) => typeof k === "string" && k !== "")) {
      const text = key.join("\u0000");
      if (seen.has(text)) out.push({ code: "DUPLICATE_ID", path: `${path}.id`, message: `${keyFields.map((f, j) => `${f} "${String(key[j])}"`).join(", ")} is already taken by another of edit.${list}` });
      seen.add(text);
    } else if (!kept.has(item)) {
      const missing = keyFields.find((f) => typeof fields[f] !== "string" || fields[f] === "") ?? "id";
      out.push({ code: "MISSING_ID", path: pathKey(path, missing), message: `an edited object needs its ${missing} (a non-empty string): it is what the world matches it by` });
      continue;
    }
    if (kept.has(item)) continue;
    let json: unknown;
    try {
      json = encode(item);
    } catch (e: unknown) {
      out.push({ code: "EDIT_ILL_TYPED", path, message: `cannot be written as the world file writes it: ${e instanceof Error ? e.message : String(e)}` });
      continue;
    }
    const problems = out.length;
    const read = readBack(json, path, out);
    if (out.length > problems) continue;
    // What a world file with this object would be warned of: a value outside its closed set
    // (`status: "DISABLD"`), a field name close to a known one. It reads back, and would route as
    // an unknown value routes: the caller should hear of it, as a load says it.
    itemWarnings(list, json, path, directoryFields(), warnings);
    const { difference, completed } = compareRead(item, read, path);
    if (difference !== null) out.push(unknownField(fields, path, difference) ?? illTyped(difference));
    else if (completed) (normalised ??= [...after])[i] = read as T;
  }
  return normalised === null ? after : Object.freeze(normalised);
}

/**
 * An edited world checked (see {@link checkEdit}): the world to run on, and the problems.
 *
 * @example
 * ```ts
 * const { world, problems } = checkEdit(before, after);
 * ```
 */
export interface CheckedEdit {
  /** `after`, with each object the edit left fields out of completed with their defaults. */
  readonly world: World;
  /** As `loadWorld` would report them in a world file, with paths under `edit.`; empty when well-typed. */
  readonly problems: readonly Diagnostic[];
  /** What `loadWorld` would warn of in the objects the edit wrote (a value outside its set, a near-miss field name), under `edit.`. */
  readonly warnings: readonly Diagnostic[];
}

/**
 * Checks the objects `after` replaced or added relative to `before` (policies, entitlements, apps,
 * users, configuration rules, the tenant): each written as the world file writes it and read back
 * as `loadWorld` reads it. A value read back other than written is a problem; a field left out is
 * given its default, as a world file that leaves it out gets it, so the engine never meets a
 * missing field. Never throws.
 *
 * @example
 * ```ts
 * const after = applyEditUnchecked(world, (w) => { (w.apps[0] as { grantPolicyId: unknown }).grantPolicyId = 42; });
 * checkEdit(world, after).problems[0]; // { code: "EXPECTED_STRING", path: "edit.apps[0].grantPolicyId", … }
 * ```
 */
export function checkEdit(before: World, after: World): CheckedEdit {
  const out: Diagnostic[] = [];
  const warnings: Diagnostic[] = [];
  try {
    const ID = ["id"];
    const BY_APP = ["appId", "id"];
    const policies = checkList("policies", before.policies, after.policies, ID, encodePolicy, readPolicy, out, warnings);
    const entitlements = checkList("entitlements", before.entitlements, after.entitlements, BY_APP, encodeEntitlement, readObject(decodeEntitlement), out, warnings);
    const apps = checkList("apps", before.apps, after.apps, ID, encodeApp, readObject(decodeApp), out, warnings);
    const users = checkList("users", before.users, after.users, ID, encodeUser, readObject(decodeUser), out, warnings);
    const rules = checkList("entitlementConfigurationRules", before.entitlementConfigurationRules ?? [], after.entitlementConfigurationRules ?? [], BY_APP, encodeConfigRule, readObject(decodeConfigRule), out, warnings);
    if (out.length === 0) out.push(...editBounds(before, after));
    let tenant = after.tenant;
    if (after.tenant !== before.tenant) {
      const problems: Diagnostic[] = [];
      const read = isObject(after.tenant) ? decodeTenant(encodeTenant(after.tenant), problems) : decodeTenant(after.tenant, problems);
      for (const d of problems) out.push({ ...d, path: `edit.tenant${d.path.slice("$.tenant".length)}` });
      if (problems.length === 0) {
        // As for the lists: a value read back other than written is the edit's mistake (a list for
        // defaultPolicies, a field the tenant does not have); a field left out gets its default.
        const { difference, completed } = compareRead(after.tenant, read, "edit.tenant");
        if (difference !== null) out.push(illTyped(difference));
        else if (completed) tenant = read;
        // As a load warns of it: a budget over the cap runs at the cap (the edit's to hear of when it set it).
        if (read.celCostLimit !== before.tenant.celCostLimit)
          for (const w of costLimitCapped(read)) warnings.push({ ...w, path: `edit.tenant${w.path.slice("$.tenant".length)}` });
      }
    }
    if (out.length > 0) return { world: after, problems: out, warnings };
    const same = policies === after.policies && entitlements === after.entitlements && apps === after.apps && users === after.users && tenant === after.tenant && rules === (after.entitlementConfigurationRules ?? rules);
    if (same) return { world: after, problems: out, warnings };
    const parts = { ...after, policies, entitlements, apps, users, tenant, ...(after.entitlementConfigurationRules ? { entitlementConfigurationRules: rules } : {}) };
    return { world: Object.freeze({ ...parts, index: buildIndex(parts, after) }), problems: out, warnings };
  } catch (e: unknown) {
    out.push({ code: "EDIT_ILL_TYPED", path: "edit", message: `the edited world cannot be written as a world file: ${e instanceof Error ? e.message : String(e)}` });
    return { world: after, problems: out, warnings };
  }
}

/**
 * The most rules an edited policy may have in a what-if run: 16 times the 16 the service allows
 * (`MAX_RULES`), so that an author may still see how a policy over the limit would route, while
 * every task's walk stays bounded (100,000 rules took 53 s on the 59-task sample).
 */
export const MAX_EDITED_RULES = 16 * MAX_RULES;

/**
 * The rule and configuration-rule conditions an edit may bring that the world does not have: as
 * many as the compile cache keeps (`CEL_RESOURCE_LIMITS.compileCacheEntries`). Each new text is
 * compiled once, at about half a millisecond; past the cache, a run would compile them again and
 * again. Conditions the world already has (a plan that rewrites every policy unchanged) cost nothing.
 */
const MAX_NEW_CONDITIONS = CEL_RESOURCE_LIMITS.compileCacheEntries;

/**
 * The characters the new conditions of an edit may have together: each is parsed and checked once,
 * at about a microsecond a character (limits.ts, `maxSourceLength`), so about two seconds.
 */
export const MAX_NEW_CONDITION_CHARS = 2_000_000;

/**
 * The regular-expression weight (limits.ts, `maxRegexWeight`) the pattern literals of an edit's new
 * conditions may have together: each is compiled when its condition is checked, measured at about
 * 1 µs (up to ~5 µs) a unit, so at most about two seconds. 10,026 new conditions of two patterns
 * each (weight ~12,000 a condition) held a run for 104 s (hostile review).
 */
export const MAX_NEW_PATTERN_WEIGHT = 500_000;

/** The weight of the patterns a condition's check compiles (its `matches` literals), at most. */
function patternWeight(condition: string): number {
  if (!condition.includes("matches")) return 0;
  let w = 0;
  // Lexed as CEL (lint-fold.ts): a comment cannot hide a pattern, nor a list of ids beside it pose as one.
  for (const pattern of callStringLiterals(condition, "matches") ?? []) {
    w += regexWeight(pattern);
    if (w > MAX_NEW_PATTERN_WEIGHT) return w;
  }
  return w;
}

/** What an edit may not bring to a run: an edited policy past {@link MAX_EDITED_RULES}, more new conditions than {@link MAX_NEW_CONDITIONS}, or more to compile than {@link MAX_NEW_CONDITION_CHARS} and {@link MAX_NEW_PATTERN_WEIGHT} allow. */
function editBounds(before: World, after: World): Diagnostic[] {
  // Most edits (a user, the tenant) leave both lists as they were: nothing new to count.
  if (before.policies === after.policies && before.entitlementConfigurationRules === after.entitlementConfigurationRules) return [];
  const out: Diagnostic[] = [];
  const old = new Set<unknown>(before.policies);
  const known = new Set<string>();
  for (const p of before.policies) for (const r of p.rules ?? []) known.add(r.condition);
  for (const r of before.entitlementConfigurationRules ?? []) known.add(r.condition);
  const fresh = new Set<string>();
  after.policies.forEach((p, i) => {
    if (old.has(p)) return;
    const rules = p.rules ?? [];
    if (rules.length > MAX_EDITED_RULES)
      out.push({
        code: "EDIT_TOO_LARGE",
        path: `${pathIndex("edit.policies", i)}.rules`,
        message: `${rules.length} rules: a what-if runs an edited policy of at most ${MAX_EDITED_RULES} (the service saves at most ${MAX_RULES}); remove or merge rules`,
      });
    for (const r of rules) if (!known.has(r.condition)) fresh.add(r.condition);
  });
  const fromPolicies = fresh.size;
  const oldRules = new Set<unknown>(before.entitlementConfigurationRules ?? []);
  for (const r of after.entitlementConfigurationRules ?? []) if (!oldRules.has(r) && !known.has(r.condition)) fresh.add(r.condition);
  // Where the new conditions are: the policies, the configuration rules, or both.
  const where = fromPolicies === fresh.size ? "edit.policies" : fromPolicies === 0 ? "edit.entitlementConfigurationRules" : "edit";
  if (fresh.size > MAX_NEW_CONDITIONS) {
    out.push({
      code: "EDIT_TOO_LARGE",
      path: where,
      message: `the edit brings ${fresh.size} conditions the world does not have; a what-if compiles at most ${MAX_NEW_CONDITIONS} new ones (CEL_RESOURCE_LIMITS.compileCacheEntries): split the edit`,
    });
    return out;
  }
  let chars = 0;
  let weight = 0;
  for (const c of fresh) {
    chars += c.length;
    if (chars > MAX_NEW_CONDITION_CHARS) break;
    weight += patternWeight(c);
    if (weight > MAX_NEW_PATTERN_WEIGHT) break;
  }
  if (chars > MAX_NEW_CONDITION_CHARS)
    out.push({
      code: "EDIT_TOO_LARGE",
      path: where,
      message: `the new conditions of the edit are more than ${MAX_NEW_CONDITION_CHARS.toLocaleString("en-US")} characters together; a what-if parses and checks each (about a microsecond a character): split the edit`,
    });
  else if (weight > MAX_NEW_PATTERN_WEIGHT)
    out.push({
      code: "EDIT_TOO_LARGE",
      path: where,
      message: `the patterns of the edit's new conditions (matches) weigh more than ${MAX_NEW_PATTERN_WEIGHT.toLocaleString("en-US")} together (a pattern weighs its size once its repetitions are multiplied out, as CEL_RESOURCE_LIMITS.maxRegexWeight counts it); a what-if compiles each when it checks its condition: split the edit or simplify the patterns`,
    });
  return out;
}

/**
 * The problems {@link checkEdit} finds.
 *
 * @example
 * ```ts
 * editDiagnostics(world, applyEditUnchecked(world, (w) => { (w.policies[0] as { rules: unknown }).rules = "nope"; }))[0]?.path; // "edit.policies[0].rules"
 * ```
 */
export function editDiagnostics(before: World, after: World): readonly Diagnostic[] {
  return checkEdit(before, after).problems;
}
