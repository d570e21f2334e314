import { readFileSync } from "node:fs";
import { loadWorld, type RouteOutcome, type World, type WorldPatch } from "policy-sim";

/** The bundled sample tenant as JSON (fresh copy each call). */
export function sampleJson(): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL("../fixtures/world.json", import.meta.url), "utf8")) as Record<string, unknown>;
}

/** The bundled sample tenant, loaded; fails the test with the diagnostics if it does not load. */
export function sampleWorld(): World {
  const r = loadWorld(sampleJson());
  if (!r.ok) throw new Error(r.error.map((d) => `${d.path}: ${d.message}`).join("\n"));
  return r.value;
}

/** Loads world JSON, failing loudly. */
export function worldOf(json: unknown): World {
  const r = loadWorld(json);
  if (!r.ok) throw new Error(r.error.map((d) => `${d.path}: ${d.message}`).join("\n"));
  return r.value;
}

/** A response body as a plain object, for reading fields in assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read deep into wire JSON
export type Body = any;

/** Super administrators, an administrator, a read-only administrator and plain users of the sample. */
export const SUPER = "u-it-dir";
export const SUPER2 = "u-ciso";
export const ADMIN = "u-sec-eng";
export const READ_ONLY = "u-sec-analyst";
export const OUTSIDER = "u-sales3";

/** A Result's value, or a throw with its code and message (a test's shortcut). */
export function value<T>(r: { ok: true; value: T } | { ok: false; error: { code: string; message: string } }): T {
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
}

/** The policies `after` holds that `before` does not (by object): what a mutation replaced, as a patch. */
export function patchBetween(before: World, after: World): WorldPatch {
  const old = new Set(before.policies);
  return { policies: after.policies.filter((p) => !old.has(p)) };
}

/**
 * The route `after` as a what-if compares it with `before`: when only the number of the rule that
 * decided differs and that rule's condition reads the same in both worlds (a rule before it was
 * added, removed or moved), `before`'s number, so that `toEqual(before)` holds for a task whose
 * route did not change. Written apart from the comparer it checks.
 */
export function unlessRenumbered(before: RouteOutcome, after: RouteOutcome, worldBefore: World, worldAfter: World): RouteOutcome {
  if (before.kind !== "route" || after.kind !== "route") return after;
  const condition = (w: World, policyId: string | undefined, index: number) => (policyId === undefined ? undefined : w.index.policies.get(policyId)?.rules?.[index]?.condition);
  // A policyId reached through a rule that only moved, as the rule that decided below.
  const via = (after.chainVia ?? []).map((v, i) => {
    const was = before.chainVia?.[i];
    const [m, n] = [/^rule #(\d+)$/.exec(v), was === undefined ? null : /^rule #(\d+)$/.exec(was)];
    if (!m || !n || m[1] === n[1] || before.chain[i - 1] !== after.chain[i - 1]) return v;
    const ca = condition(worldBefore, before.chain[i - 1], Number(n[1]));
    return ca !== undefined && ca === condition(worldAfter, after.chain[i - 1], Number(m[1])) ? (was as string) : v;
  });
  const moved = via.some((v, i) => v !== after.chainVia?.[i]) ? { ...after, chainVia: via } : after;
  const a = before.decidedBy;
  const b = moved.decidedBy;
  if (a.kind !== "rule" || b.kind !== "rule" || a.ruleIndex === b.ruleIndex) return moved;
  const ca = condition(worldBefore, a.policyId, a.ruleIndex);
  const cb = condition(worldAfter, b.policyId, b.ruleIndex);
  return ca !== undefined && ca === cb ? { ...moved, decidedBy: { ...b, ruleIndex: a.ruleIndex } } : moved;
}
