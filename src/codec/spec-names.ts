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
  if (Array.isArray(v)) return mapItems(v, (x) => rename(x, depth + 1));
  const o = v as Readonly<Record<string, unknown>>;
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(o)) {
    const x = o[key];
    const spec = Object.hasOwn(API_TO_SPEC_NAMES, key) ? API_TO_SPEC_NAMES[key] : undefined;
    if (spec !== undefined && Object.hasOwn(o, spec)) {
      // Both names. With the same value, as `serve` answers (withApiAliases): one field, the spec's.
      // Otherwise the API's stays as written, an unknown field.
      if (sameJson(rename(x, depth + 1), rename(o[spec], depth + 1))) {
        out ??= copyOf(o);
        delete out[key];
      }
      continue;
    }
    const y = rename(x, depth + 1);
    const target = spec ?? key;
    if (target === key && y === x) continue;
    out ??= copyOf(o);
    if (target !== key) delete out[key];
    Object.defineProperty(out, target, { value: y, enumerable: true, writable: true, configurable: true });
  }
  return out ?? v;
}

/** Whether two JSON values are equal, key order aside (bounded by the caller's depth). */
function sameJson(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || depth > MAX_DEPTH) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (!Object.hasOwn(b, k) || !sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], depth + 1)) return false;
  return true;
}

/** `items` with `f` applied to each, copied only when some item changes (the same array otherwise). */
function mapItems(items: readonly unknown[], f: (x: unknown) => unknown): readonly unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const x = items[i];
    const y = f(x);
    if (y !== x) (out ??= items.slice())[i] = y;
  }
  return out ?? items;
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
  if (Array.isArray(v)) return mapItems(v, (x) => renameToApi(x, depth + 1));
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
 * The API's name of a key the spec names differently (`svcUserPicker` → `c1UserPicker`), or
 * `undefined`: what `serve` writes beside the spec's name so that the service's SDKs, which know
 * only the API's names, keep the field (see {@link withApiAliases}).
 *
 * @example
 * ```ts
 * apiAliasOf("svcResourceAction"); // "batonResourceAction"
 * apiAliasOf("displayName"); // undefined
 * ```
 */
export function apiAliasOf(key: string): string | undefined {
  return SPEC_TO_API_NAMES.get(key);
}

/**
 * The value the API writes for `key` where the spec writes it another way, else `value` itself. One
 * such field: an approval escalation's `expiration`, a duration in the spec (`"86400s"`) and an
 * int64 of seconds in openapi.yaml (`c1.api.policy.v1.Escalation.expiration`: `type: string, format:
 * int64`), which the service's Go and Python SDKs parse as an integer (`"86400s"` fails them; the
 * TypeScript SDK's `parseInt` reads both). A duration becomes its int64 string of whole seconds
 * ({@link expirationSeconds}: a fraction of a second, which the API cannot hold, is cut; `""` is
 * `"0"`), so that every SDK reads what serve writes. The codec reads both forms.
 *
 * @example
 * ```ts
 * apiValueOf("escalation", { expiration: "86400s", skipStep: {} }); // { expiration: "86400", skipStep: {} }
 * apiValueOf("escalation", { expiration: "1.5s" }); // { expiration: "1" }
 * apiValueOf("data", { expiration: "86400s" }); // unchanged: not an escalation
 * ```
 */
export function apiValueOf(key: string, value: unknown): unknown {
  // Only an escalation's own `expiration`: a key of that name in free-form data (a task's `data`,
  // form values, annotations) is the user's and is written as it is.
  if (key !== "escalation" || typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const e = (value as Readonly<Record<string, unknown>>)["expiration"];
  if (typeof e !== "string") return value;
  const seconds = expirationSeconds(e)?.seconds;
  return seconds === undefined || seconds === e ? value : { ...value, expiration: seconds };
}

/**
 * An escalation `expiration` as the int64 string of seconds the API holds, and whether that is
 * exact: a duration's fraction of a second is cut (toward zero, as the service's int64 cannot hold
 * it; `exact: false`), `""` (unset) is `"0"`; `undefined` for what is neither a duration nor an
 * int64 within range. Serve refuses an inexact one in a request, as the service's int64 field would.
 *
 * @example
 * ```ts
 * expirationSeconds("86400s"); // { seconds: "86400", exact: true }
 * expirationSeconds("1.5s"); // { seconds: "1", exact: false }
 * expirationSeconds("soon"); // undefined
 * ```
 */
export function expirationSeconds(value: string): { seconds: string; exact: boolean } | undefined {
  if (value === "") return { seconds: "0", exact: false };
  const m = /^(-?\d{1,19})(?:\.(\d{1,9}))?s?$/.exec(value);
  if (m === null || (m[2] !== undefined && !value.endsWith("s"))) return undefined;
  const seconds = BigInt(m[1] as string);
  if (seconds < -(2n ** 63n) || seconds >= 2n ** 63n) return undefined;
  const whole = seconds === 0n && (m[1] as string).startsWith("-") ? "0" : seconds.toString();
  return { seconds: whole, exact: m[2] === undefined || /^0+$/.test(m[2]) };
}

/**
 * Whether two escalation `expiration`s are the same time: the same text, or the same whole number of
 * seconds written either way (`"86400s"`, the spec's duration, and `"86400"`, openapi.yaml's int64
 * seconds, which serve answers and so a pulled world holds). A what-if comparing a pulled policy with
 * the same policy from a plan or a file must not see a change in the spelling.
 *
 * @example
 * ```ts
 * sameExpiration("86400", "86400s"); // true
 * sameExpiration("1.5s", "1s"); // false
 * ```
 */
export function sameExpiration(a: string, b: string): boolean {
  if (a === b) return true;
  // A negative time is no time the engine runs as one ("-60" never fires, "-60s" at once): as written.
  if (a.startsWith("-") || b.startsWith("-")) return false;
  const x = expirationSeconds(a);
  const y = expirationSeconds(b);
  return x !== undefined && y !== undefined && x.exact && y.exact && x.seconds === y.seconds;
}

/**
 * `json` with the API's name written beside every key the spec names differently, holding the same
 * value in the API's names: `{ svcResourceAction: {svcResourceActionId} }` gains
 * `batonResourceAction: {batonResourceActionId}` (keys inside such a value get no alias of their
 * own: the alias already carries them in the API's names). The spec's name stays (it is the contract); the
 * alias lets a client that knows only the API's names (the service's SDKs drop unknown keys) read
 * the field and send it back unchanged, and {@link toSpecNames} reads the pair as one field. A
 * value the API writes in another form is written in that form ({@link apiValueOf}). An
 * object that already has the API's key is left as it is. Returns `json` itself when there is
 * nothing to add; never changes its input.
 *
 * @example
 * ```ts
 * withApiAliases({ action: { svcResourceAction: { svcResourceActionId: "ra-1" } } });
 * // { action: { svcResourceAction: { svcResourceActionId: "ra-1" }, batonResourceAction: { batonResourceActionId: "ra-1" } } }
 * ```
 */
export function withApiAliases(json: unknown): unknown {
  return alias(json, 0);
}

function alias(v: unknown, depth: number): unknown {
  if (typeof v !== "object" || v === null || depth > MAX_DEPTH) return v;
  if (Array.isArray(v)) return mapItems(v, (x) => alias(x, depth + 1));
  const o = v as Readonly<Record<string, unknown>>;
  let changed = false;
  const entries: [string, unknown][] = [];
  for (const key of Object.keys(o)) {
    const x = o[key];
    const api = SPEC_TO_API_NAMES.get(key);
    if (api !== undefined && !Object.hasOwn(o, api) && x !== undefined) {
      // The alias carries the API's names all the way down; the spec's value is left as it is.
      entries.push([key, x], [api, toApiNames(x)]);
      changed = true;
      continue;
    }
    const y = apiValueOf(key, alias(x, depth + 1));
    if (y !== x) changed = true;
    entries.push([key, y]);
  }
  if (!changed) return v;
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries) Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * The mark a world file's task or policy carries when it was written with the API's names, so that
 * saving the world writes them back (README Assumptions, "Spec vs API names"): `"all"` for a
 * document that uses the API's names only (everything it holds is written with them, steps a reset
 * adds too), or the paths of the renamed keys for a document that mixes both (exactly those are
 * written back with the API's names). A symbol key: JSON, `Object.keys` and the codecs never see
 * it, and copies (spreads, immer) keep it.
 *
 * @example
 * ```ts
 * const task = { ...decoded, [API_NAMED]: "all" };
 * ```
 */
export const API_NAMED: unique symbol = Symbol("policy-sim.apiNamed");

/**
 * The value of the {@link API_NAMED} mark.
 *
 * @example
 * ```ts
 * const mark: ApiNamedMark = [["policySteps", "grant", "steps", "0", "action", "batonResourceAction"]];
 * ```
 */
export type ApiNamedMark = "all" | RenamedPaths;

/**
 * Where a document's keys were renamed: one path of keys per renamed key.
 *
 * @example
 * ```ts
 * const paths: RenamedPaths = [["action", "batonResourceAction"]];
 * ```
 */
export type RenamedPaths = readonly (readonly string[])[];

/**
 * How a document names the fields the spec and the API name differently: the paths of the keys
 * {@link toSpecNames} renames (each ending in the API's name), and whether it also uses any of the
 * spec's names (a mixed document).
 *
 * @example
 * ```ts
 * scanNames({ action: { batonResourceAction: {} } }); // { paths: [["action", "batonResourceAction"]], specNamed: false }
 * ```
 */
export function scanNames(json: unknown): { readonly paths: RenamedPaths; readonly specNamed: boolean } {
  const found = { paths: [] as string[][], specNamed: false };
  collect(json, [], found, 0);
  return found;
}

function collect(v: unknown, path: string[], found: { paths: string[][]; specNamed: boolean }, depth: number): void {
  if (typeof v !== "object" || v === null || depth > MAX_DEPTH) return;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      path.push(String(i));
      collect(v[i], path, found, depth + 1);
      path.pop();
    }
    return;
  }
  const o = v as Readonly<Record<string, unknown>>;
  for (const key of Object.keys(o)) {
    const spec = Object.hasOwn(API_TO_SPEC_NAMES, key) ? API_TO_SPEC_NAMES[key] : undefined;
    // The API's alias beside the spec's name (serve's answers, withApiAliases): the spec's names it is.
    if (spec !== undefined && Object.hasOwn(o, spec)) continue;
    path.push(key);
    if (spec !== undefined) found.paths.push([...path]);
    if (SPEC_TO_API_NAMES.has(key)) found.specNamed = true;
    collect(o[key], path, found, depth + 1);
    path.pop();
  }
}

/**
 * `wire` with the spec-named key at each of `paths` renamed back to the API's name, in its place;
 * the rest is untouched (and shared). A path that no longer leads anywhere is skipped.
 *
 * @example
 * ```ts
 * toApiNamesAt({ action: { svcResourceAction: {} } }, [["action", "batonResourceAction"]]);
 * // { action: { batonResourceAction: {} } }
 * ```
 */
export function toApiNamesAt(wire: unknown, paths: RenamedPaths): unknown {
  let out = wire;
  for (const path of paths) if (path.length > 0) out = renameAt(out, path, 0);
  return out;
}

function renameAt(node: unknown, path: readonly string[], i: number): unknown {
  if (typeof node !== "object" || node === null) return node;
  const seg = path[i] as string;
  if (Array.isArray(node)) {
    const index = Number(seg);
    if (i === path.length - 1 || !Number.isInteger(index) || index < 0 || index >= node.length) return node;
    const child: unknown = node[index];
    const renamed = renameAt(child, path, i + 1);
    if (renamed === child) return node;
    const copy = node.slice();
    copy[index] = renamed;
    return copy;
  }
  const o = node as Readonly<Record<string, unknown>>;
  const spec = Object.hasOwn(API_TO_SPEC_NAMES, seg) ? (API_TO_SPEC_NAMES[seg] as string) : seg;
  if (i === path.length - 1) {
    if (spec === seg || !Object.hasOwn(o, spec) || Object.hasOwn(o, seg)) return node;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(o))
      Object.defineProperty(out, key === spec ? seg : key, { value: o[key], enumerable: true, writable: true, configurable: true });
    return out;
  }
  // An enclosing key renamed earlier in this pass has its API name again; otherwise it has the spec's.
  const key = Object.hasOwn(o, seg) ? seg : Object.hasOwn(o, spec) ? spec : undefined;
  if (key === undefined) return node;
  const child = o[key];
  const renamed = renameAt(child, path, i + 1);
  if (renamed === child) return node;
  const out = copyOf(o);
  Object.defineProperty(out, key, { value: renamed, enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * Decodes `json` with `decode` after renaming the API's names to the spec's; a value that had any
 * to rename comes back marked {@link API_NAMED}. `snapshot` adds how a part decoded elsewhere (a
 * task's shared policy snapshot, at `policy.policy`) was named.
 *
 * @example
 * ```ts
 * const r = decodeAsWritten(decodePolicy, { id: "p", policySteps: {} });
 * ```
 */
export function decodeAsWritten<T extends object, E>(
  decode: (json: unknown) => { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E },
  json: unknown,
  snapshot?: ReturnType<typeof scanNames>,
): { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E } {
  const renamed = toSpecNames(json);
  const r = decode(renamed);
  const snapshotRenamed = snapshot !== undefined && snapshot.paths.length > 0;
  if (!r.ok || (renamed === json && !snapshotRenamed)) return r;
  const own = scanNames(json);
  const paths = snapshotRenamed ? [...own.paths, ...snapshot.paths.map((p) => ["policy", "policy", ...p])] : own.paths;
  const mixed = own.specNamed || (snapshot?.specNamed ?? false);
  const mark: ApiNamedMark = mixed ? Object.freeze(paths) : "all";
  Object.defineProperty(r.value, API_NAMED, { value: mark, enumerable: true, writable: true, configurable: true });
  return r;
}

/**
 * `value` encoded with `encode`, in the names it was written with ({@link API_NAMED}): the API's
 * throughout, or at the keys written with them, or the spec's.
 *
 * @example
 * ```ts
 * const wire = encodeAsWritten(encodeTask, task);
 * ```
 */
export function encodeAsWritten<T extends object, J>(encode: (value: T) => J, value: T): J {
  const wire = encode(value);
  const mark = apiNamedMark(value);
  if (mark === undefined) return wire;
  return (mark === "all" ? toApiNames(wire) : toApiNamesAt(wire, mark)) as J;
}

/**
 * The {@link API_NAMED} mark of `value`, or `undefined` when it was written with the spec's names.
 *
 * @example
 * ```ts
 * const mark = apiNamedMark(task);
 * const rebuilt = { ...fields, ...(mark !== undefined ? { [API_NAMED]: mark } : {}) };
 * ```
 */
export function apiNamedMark(value: object): ApiNamedMark | undefined {
  const mark = (value as { readonly [API_NAMED]?: unknown })[API_NAMED];
  return mark === "all" || (Array.isArray(mark) && mark.length > 0) ? (mark as ApiNamedMark) : undefined;
}

/**
 * Whether `value` carries the {@link API_NAMED} mark (it was loaded from the API's names).
 *
 * @example
 * ```ts
 * isApiNamed(task); // true for a task a pulled tenant wrote with batonResourceAction
 * ```
 */
export function isApiNamed(value: object): boolean {
  return apiNamedMark(value) !== undefined;
}
