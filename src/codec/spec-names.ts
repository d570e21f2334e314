/**
 * The spec's field names for the API's: where the service's API (its OpenAPI, its exports) writes
 * `baton…` and `c1UserPicker`, the spec writes `svc…` and `svcUserPicker`. The codec reads and
 * writes the spec's names; input written with the API's is renamed here first, so both are
 * accepted. This map is the one place the correspondence lives.
 */

/**
 * The API's name → the spec's name, for every field the two name differently.
 *
 * @example
 * ```ts
 * API_TO_SPEC_NAMES["c1UserPicker"]; // "svcUserPicker"
 * ```
 */
export const API_TO_SPEC_NAMES: Readonly<Record<string, string>> = Object.freeze({
  batonResourceAction: "svcResourceAction",
  batonResourceActionId: "svcResourceActionId",
  batonResourceActionInstance: "svcResourceActionInstance",
  batonResourceActionRef: "svcResourceActionRef",
  batonActionInvocationId: "svcActionInvocationId",
  batonActionName: "svcActionName",
  batonActionDisplayName: "svcActionDisplayName",
  c1UserPicker: "svcUserPicker",
});

/** Deeper than any message of the API; past it, input is left as it is (the codec refuses it anyway). */
const MAX_DEPTH = 128;

/**
 * `json` with every key the API names differently renamed to the spec's name, at any depth. An
 * object that already has the spec's key keeps both (the API-named one stays an unknown field).
 * Returns `json` itself when there is nothing to rename, so the common case copies nothing; never
 * changes its input, never throws.
 *
 * @example
 * ```ts
 * toSpecNames({ action: { batonResourceAction: { batonResourceActionId: "ra-1" } } });
 * // { action: { svcResourceAction: { svcResourceActionId: "ra-1" } } }
 * ```
 */
export function toSpecNames(json: unknown): unknown {
  return rename(json, 0);
}

function rename(v: unknown, depth: number): unknown {
  if (typeof v !== "object" || v === null || depth > MAX_DEPTH) return v;
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      const y = rename(x, depth + 1);
      if (y !== x) (out ??= v.slice())[i] = y;
    }
    return out ?? v;
  }
  const o = v as Readonly<Record<string, unknown>>;
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(o)) {
    const x = o[key];
    const y = rename(x, depth + 1);
    const spec = Object.hasOwn(API_TO_SPEC_NAMES, key) ? API_TO_SPEC_NAMES[key] : undefined;
    const target = spec !== undefined && !Object.hasOwn(o, spec) ? spec : key;
    if (target === key && y === x) continue;
    out ??= copyOf(o);
    if (target !== key) delete out[key];
    Object.defineProperty(out, target, { value: y, enumerable: true, writable: true, configurable: true });
  }
  return out ?? v;
}

/** A shallow copy that keeps a `__proto__` key a key. */
function copyOf(o: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(o)) Object.defineProperty(out, key, { value: o[key], enumerable: true, writable: true, configurable: true });
  return out;
}
