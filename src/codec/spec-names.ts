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

/** The spec's name → the API's name: {@link API_TO_SPEC_NAMES} turned round. */
const SPEC_TO_API_NAMES: ReadonlyMap<string, string> = new Map(Object.entries(API_TO_SPEC_NAMES).map(([api, spec]) => [spec, api]));

/**
 * `json` with every key the spec names differently renamed to the API's name, at any depth, each
 * key keeping its place (so a canonical document written back comes out byte for byte as it was).
 * An object that already has the API's key keeps both. Returns `json` itself when there is nothing
 * to rename; never changes its input, never throws.
 *
 * @example
 * ```ts
 * toApiNames({ action: { svcResourceAction: { svcResourceActionId: "ra-1" } } });
 * // { action: { batonResourceAction: { batonResourceActionId: "ra-1" } } }
 * ```
 */
export function toApiNames(json: unknown): unknown {
  return renameToApi(json, 0);
}

function renameToApi(v: unknown, depth: number): unknown {
  if (typeof v !== "object" || v === null || depth > MAX_DEPTH) return v;
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      const y = renameToApi(x, depth + 1);
      if (y !== x) (out ??= v.slice())[i] = y;
    }
    return out ?? v;
  }
  const o = v as Readonly<Record<string, unknown>>;
  const keys = Object.keys(o);
  let changed = false;
  const entries = keys.map((key): [string, unknown] => {
    const x = o[key];
    const y = renameToApi(x, depth + 1);
    const api = SPEC_TO_API_NAMES.get(key);
    const target = api !== undefined && !Object.hasOwn(o, api) ? api : key;
    if (target !== key || y !== x) changed = true;
    return [target, y];
  });
  if (!changed) return v;
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries) Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * The mark a world file's task or policy carries when it was written with the API's names, so that
 * saving the world writes it back with them (README Assumptions, "Spec vs API names"). A symbol
 * key: JSON, `Object.keys` and the codecs never see it, and copies (spreads, immer) keep it.
 *
 * @example
 * ```ts
 * const task = { ...decoded, [API_NAMED]: true };
 * ```
 */
export const API_NAMED: unique symbol = Symbol("policy-sim.apiNamed");

/**
 * Decodes `json` with `decode` after renaming the API's names to the spec's; a value that had any
 * to rename comes back marked {@link API_NAMED}.
 *
 * @example
 * ```ts
 * const r = decodeAsWritten(decodePolicy, { id: "p", policySteps: {} });
 * ```
 */
export function decodeAsWritten<T extends object, E>(
  decode: (json: unknown) => { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E },
  json: unknown,
  apiNamed = false,
): { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E } {
  const renamed = toSpecNames(json);
  const r = decode(renamed);
  if (r.ok && (apiNamed || renamed !== json)) Object.defineProperty(r.value, API_NAMED, { value: true, enumerable: true, writable: true, configurable: true });
  return r;
}

/**
 * `value` encoded with `encode`, in the names it was written with: the API's for a value marked
 * {@link API_NAMED}, the spec's otherwise.
 *
 * @example
 * ```ts
 * const wire = encodeAsWritten(encodeTask, task);
 * ```
 */
export function encodeAsWritten<T extends object, J>(encode: (value: T) => J, value: T): J {
  const wire = encode(value);
  return isApiNamed(value) ? (toApiNames(wire) as J) : wire;
}

/**
 * Whether `value` carries the {@link API_NAMED} mark (it was loaded from the API's names).
 *
 * @example
 * ```ts
 * const rebuilt = { ...fields, ...(isApiNamed(task) ? { [API_NAMED]: true } : {}) };
 * ```
 */
export function isApiNamed(value: object): boolean {
  return (value as { readonly [API_NAMED]?: boolean })[API_NAMED] === true;
}
