/**
 * Warnings about a world file that loads but probably does not say what its author meant: a field
 * name one or two letters from a known one (`managerId` for `managerIds`), or a value of a closed
 * set that is not one of its members (`"status": "ACTIVE"`). Unknown fields stay accepted and kept
 * (the service adds fields; exports must load): only near misses are reported, each with the name
 * it probably meant. Warnings never fail a load.
 */
import { policyCodec } from "../codec/policy.js";
import { type FieldNode, type SchemaNode, schemaOf } from "../codec/schema.js";
import { taskCodec } from "../codec/task.js";
import { closest } from "../text/closest.js";
import { type Diagnostic, isObject, MAX_LIST_ITEMS, pathIndex, pathKey } from "./read.js";

/**
 * Keys that are about the file, not the world (`$schema`, `$comment`): never reported, and no sign
 * of what the file holds.
 *
 * @example
 * ```ts
 * FILE_KEYS.has("$schema"); // true
 * ```
 */
export const FILE_KEYS: ReadonlySet<string> = new Set(["$schema", "$comment"]);

/** How a message names one item of a directory collection. */
const ITEM_NAMES: Readonly<Record<string, string>> = {
  users: "a user", apps: "an app", entitlements: "an entitlement", appUsers: "an app user", groups: "a group",
  grants: "a grant", roles: "a role", resourceTypeDefaults: "a resource-type default", accessReviews: "an access review",
};

/** How deep the schema walk goes; a deeper document is still loaded, its deeper parts unchecked. */
const MAX_DEPTH = 64;

/**
 * The documented values of the directory's closed sets (user status as the API writes it, with or
 * without its `USER_STATUS_` prefix), by collection and field.
 */
const DIRECTORY_ENUMS: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  users: {
    status: ["ENABLED", "DISABLED", "DELETED", "UNSPECIFIED", "USER_STATUS_ENABLED", "USER_STATUS_DISABLED", "USER_STATUS_DELETED", "USER_STATUS_UNSPECIFIED"],
  },
};

/** A JSONPath built only when a warning needs it: most of a document is walked and never reported. */
type Path = string | { readonly parent: Path; readonly seg: string | number };

function pathText(p: Path): string {
  if (typeof p === "string") return p;
  const segs: Array<string | number> = [];
  let at: Path = p;
  while (typeof at !== "string") {
    segs.push(at.seg);
    at = at.parent;
  }
  let out = at;
  for (let i = segs.length - 1; i >= 0; i--) {
    const seg = segs[i] as string | number;
    out = typeof seg === "number" ? pathIndex(out, seg) : pathKey(out, seg);
  }
  return out;
}

function nearMiss(key: string, known: Iterable<string>, at: Path, what: string): Diagnostic | undefined {
  if (FILE_KEYS.has(key)) return undefined;
  const guess = closest(key, known);
  if (guess === undefined || guess === key) return undefined;
  return {
    code: "UNKNOWN_FIELD_NEAR_KNOWN",
    path: pathKey(pathText(at), key),
    message: `unknown field "${key}" in ${what} (kept, but not used); did you mean "${guess}"?`,
    severity: "warning",
  };
}

function notAMember(value: string, members: readonly string[], at: Path): Diagnostic {
  const guess = closest(value, members, 4);
  return {
    code: "UNKNOWN_ENUM_VALUE",
    path: pathText(at),
    message: `"${value}" is not a known value${guess ? `; did you mean "${guess}"?` : ` (known: ${members.slice(0, 8).join(", ")}${members.length > 8 ? ", …" : ""})`}`,
    severity: "warning",
  };
}

// A memo over the codec's immutable schema objects (a pure function's cache, not state anyone sees).
const wireKeysMemo = new WeakMap<readonly FieldNode[], Map<string, SchemaNode | readonly FieldNode[]>>();

/** The wire keys a message's fields accept: plain fields, and every member key of its oneofs. */
function wireKeys(fields: readonly FieldNode[]): Map<string, SchemaNode | readonly FieldNode[]> {
  const memo = wireKeysMemo.get(fields);
  if (memo) return memo;
  const keys = new Map<string, SchemaNode | readonly FieldNode[]>();
  wireKeysMemo.set(fields, keys);
  for (const f of fields) {
    if ("node" in f) keys.set(f.prop, f.node);
    else for (const m of f.oneof.members) keys.set(m.key, "fields" in m ? m.fields : m.wrap);
  }
  return keys;
}

function walkMessage(keys: Map<string, SchemaNode | readonly FieldNode[]>, v: unknown, path: Path, what: string, out: Diagnostic[], depth: number): void {
  if (!isObject(v)) return;
  for (const k in v) {
    if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
    const node = keys.get(k);
    if (node === undefined) {
      const w = nearMiss(k, keys.keys(), path, what);
      if (w) out.push(w);
    } else if (Array.isArray(node)) walkMessage(wireKeys(node as readonly FieldNode[]), v[k], { parent: path, seg: k }, k, out, depth + 1);
    else walk(node as SchemaNode, v[k], { parent: path, seg: k }, k, out, depth + 1);
  }
}

function walk(node: SchemaNode, v: unknown, path: Path, what: string, out: Diagnostic[], depth: number): void {
  if (depth > MAX_DEPTH || v === null || v === undefined) return;
  switch (node.t) {
    case "lazy":
      return walk(node.get(), v, path, what, out, depth);
    case "nullable":
    case "optional":
    case "omitEmpty":
      return walk(node.inner, v, path, what, out, depth);
    case "list":
      if (Array.isArray(v)) for (let i = 0; i < v.length; i++) walk(node.item, v[i], { parent: path, seg: i }, what, out, depth + 1);
      return;
    case "map":
      if (isObject(v)) for (const k in v) if (Object.prototype.hasOwnProperty.call(v, k)) walk(node.value, v[k], { parent: path, seg: k }, what, out, depth + 1);
      return;
    case "enum":
      // The zero value and the empty string mean "unset"; anything else must be a member.
      if (typeof v === "string" && v !== "" && !node.members.includes(v)) out.push(notAMember(v, node.members, path));
      return;
    case "message":
      return walkMessage(wireKeys(node.fields), v, path, what, out, depth);
    case "union": {
      const members = new Map<string, SchemaNode | readonly FieldNode[]>(node.members.map((m) => [m.key, "fields" in m ? m.fields : m.wrap]));
      return walkMessage(members, v, path, what, out, depth);
    }
    default:
      return;
  }
}

/**
 * The warnings of one item of a world file's list (`tasks`, `policies`, or a directory collection
 * such as `users`), appended to `out`; `at` is the item's JSONPath. For loaders that decode one
 * item at a time (a streamed world file).
 *
 * @example
 * ```ts
 * const out: Diagnostic[] = [];
 * itemWarnings("users", { id: "u1", managerId: "u2" }, "$.users[0]", { users: ["id", "managerIds"] }, out);
 * ```
 */
export function itemWarnings(collection: string, item: unknown, at: string, directoryKnown: Readonly<Record<string, readonly string[]>>, out: Diagnostic[]): void {
  if (collection === "tasks") return walk(schemaOf(taskCodec), item, at, "a task", out, 0);
  if (collection === "policies") return walk(schemaOf(policyCodec), item, at, "a policy", out, 0);
  const known = directoryKnown[collection];
  if (known === undefined || !isObject(item)) return;
  const enums = DIRECTORY_ENUMS[collection] ?? {};
  for (const [k, v] of Object.entries(item)) {
    if (!known.includes(k)) {
      const w = nearMiss(k, known, at, ITEM_NAMES[collection] ?? collection);
      if (w) out.push(w);
    }
    const members = enums[k];
    if (members && typeof v === "string" && v !== "" && !members.includes(v)) out.push(notAMember(v, members, pathKey(at, k)));
  }
}

/**
 * The warnings of a world file's top-level keys: one that is not a key of the format but close to
 * one (`"taks"`).
 *
 * @example
 * ```ts
 * topLevelWarnings(["taks"], ["tasks", "users"]); // [{ code: "UNKNOWN_FIELD_NEAR_KNOWN", path: "$.taks", … }]
 * ```
 */
export function topLevelWarnings(keys: Iterable<string>, topLevelKnown: Iterable<string>): Diagnostic[] {
  const out: Diagnostic[] = [];
  const top = new Set(topLevelKnown);
  for (const k of keys) {
    if (top.has(k)) continue;
    const w = nearMiss(k, top, "$", "the world file");
    if (w) out.push(w);
  }
  return out;
}

/**
 * Everything a world file's tasks, policies and directory objects say that is probably a typo: field
 * names close to a known one, and closed-set values that are not members. `directoryKnown` gives,
 * per collection (`users`, `apps`, …), the field names its decoder reads; `topLevelKnown` the world
 * file's own keys.
 *
 * @example
 * ```ts
 * worldWarnings({ users: [{ id: "u1", managerId: "u2" }] }, { users: ["id", "managerIds"] }, ["users"]);
 * // [{ code: "UNKNOWN_FIELD_NEAR_KNOWN", path: "$.users[0].managerId", message: '… did you mean "managerIds"?', severity: "warning" }]
 * ```
 */
export function worldWarnings(
  json: unknown,
  directoryKnown: Readonly<Record<string, readonly string[]>>,
  topLevelKnown: Iterable<string>,
): Diagnostic[] {
  if (!isObject(json)) return [];
  const out = topLevelWarnings(Object.keys(json), topLevelKnown);
  for (const collection of ["tasks", "policies", ...Object.keys(directoryKnown)]) {
    const list = json[collection];
    // A list too long to load is refused by its decoder (TOO_LARGE): walking it here first hung
    // the load on a code-built list of length 2^32 - 1 (hostile review 2).
    if (Array.isArray(list) && list.length <= MAX_LIST_ITEMS) list.forEach((item: unknown, i) => itemWarnings(collection, item, pathIndex(`$.${collection}`, i), directoryKnown, out));
  }
  return out;
}
