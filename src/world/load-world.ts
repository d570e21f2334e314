/**
 * `loadWorld`: the world file (docs/architecture.md) → an indexed, frozen {@link World}, or every problem
 * found, each with its JSON path.
 */
import { decodePolicy, decodeTask } from "../codec/index.js";
import { decodeAsWritten, scanNames, toSpecNames } from "../codec/spec-names.js";
import type { ApiClient } from "../model/directory.js";
import type { EntitlementConfigRule } from "../model/config-rule.js";
import { decodeConfigRule } from "./config-rule-codec.js";
import type { AccessReview, App, AppEntitlement, AppUser, Grant, Group, ResourceTypeDefault, Role, User } from "../model/directory.js";
import type { Policy, Task } from "../model/index.js";
import { err, ok, type Result } from "../result.js";
import {
  DEFAULT_ROLES,
  decodeAccessReview,
  decodeApp,
  decodeAppUser,
  decodeEntitlement,
  decodeGrant,
  decodeGroup,
  decodeList,
  decodeResourceTypeDefault,
  decodeRole,
  decodeUser,
} from "./decode-directory.js";
import { describeValue } from "../codec/diagnostic.js";
import { closest } from "../text/closest.js";
import { setOwn } from "../codec/json-tools.js";
import { adoptJson, type Diagnostic, eachItem, isObject, ObjectReader, pathIndex, pathKey } from "./read.js";
import { AppendLog } from "./append-log.js";
import { CommentLog } from "./comment-log.js";
import { checkReferences } from "./references.js";
import { type ByteRange, DEFAULT_SPLIT_LIMITS, SplitError, type SplitterSink, SplitTooLarge, WorldSplitter } from "./world-splitter.js";
import { Table } from "./table.js";
import { FILE_KEYS, itemWarnings, topLevelWarnings, worldWarnings } from "./world-warnings.js";
import { buildIndex, type Tenant, type TaskComment, type World } from "./world.js";
import { isRealTimestamp, utcTimestamp } from "../codec/schema.js";
import { CEL_RESOURCE_LIMITS } from "../cel/limits.js";

/**
 * Options of {@link loadWorld}.
 *
 * @example
 * ```ts
 * loadWorld(json, { strict: false }); // dangling ids become world.warnings instead of errors
 * ```
 */
export interface LoadOptions {
  /**
   * When true (the default), an id that does not resolve is an error. When false it is a warning
   * kept in `world.warnings`, for exports of tenants whose history names deleted objects.
   */
  readonly strict?: boolean;
  /**
   * When true (the default), `world.warnings` also lists probable typos: a field name close to a
   * known one (`managerId` for `managerIds`), a value of a closed set that is not a member
   * (`"status": "ACTIVE"`), each with what it probably meant. They never fail a load. False skips
   * the check (a service re-loading a world it wrote itself).
   */
  readonly warnings?: boolean;
}

/**
 * Options of {@link loadWorldChunks}: those of {@link LoadOptions}, and how many bytes the file may
 * have.
 *
 * @example
 * ```ts
 * loadWorldChunks(chunks, { maxBytes: 64 * 1024 ** 3 }); // a tenant over 16 GiB, on a machine that holds it
 * ```
 */
export interface ChunkLoadOptions extends LoadOptions {
  /**
   * The most bytes the file may have (default 16 GiB): past it the load stops with `TOO_LARGE`
   * rather than reading on. It bounds an endless stream; a world over it would need a heap of
   * about half its size or more.
   */
  readonly maxBytes?: number;
}


/** Re-roots a codec diagnostic (paths start at `$`) under the world path of the decoded value. */
function reroot(diags: readonly { code: string; path: string; message: string }[], at: string): Diagnostic[] {
  return diags.map((d) => ({ code: d.code, path: at + d.path.slice(1), message: d.message }));
}

function decodeTopList<T>(
  value: unknown,
  path: string,
  out: Diagnostic[],
  decode: (json: unknown) => Result<T, readonly { code: string; path: string; message: string }[]>,
): T[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    out.push({ code: "EXPECTED_ARRAY", path, message: "expected an array" });
    return [];
  }
  const result: T[] = [];
  eachItem(value, path, out, (item, i) => {
    const decoded = decode(item);
    if (decoded.ok) result.push(decoded.value);
    else out.push(...reroot(decoded.error, pathIndex(path, i)));
  });
  return result;
}

/**
 * A cost budget above what any evaluation gets (`CEL_RESOURCE_LIMITS.maxCostLimit`): said, not
 * silently cut. For a loaded world and a what-if edit of its tenant alike.
 *
 * @example
 * ```ts
 * costLimitCapped({ ...world.tenant, celCostLimit: 50_000_000 })[0]?.code; // "CEL_COST_LIMIT_CAPPED"
 * ```
 */
export function costLimitCapped(tenant: Tenant): Diagnostic[] {
  const cap = CEL_RESOURCE_LIMITS.maxCostLimit;
  if (tenant.celCostLimit === undefined || tenant.celCostLimit <= cap) return [];
  return [
    {
      code: "CEL_COST_LIMIT_CAPPED",
      path: "$.tenant.celCostLimit",
      message: `celCostLimit ${tenant.celCostLimit.toLocaleString("en")} is above the simulation's cap of ${cap.toLocaleString("en")} units (README, Limits): each evaluation gets ${cap.toLocaleString("en")}`,
      severity: "warning",
    },
  ];
}

/**
 * The world file's `tenant` object decoded, its problems appended to `out` (paths under `$.tenant`).
 *
 * @example
 * ```ts
 * const out: Diagnostic[] = [];
 * decodeTenant({ featureFlags: { X: "yes" } }, out); // out[0].code === "EXPECTED_BOOLEAN"
 * ```
 */
export function decodeTenant(value: unknown, out: Diagnostic[]): Tenant {
  if (value === undefined || value === null) return { defaultPolicies: {}, featureFlags: {} };
  if (!isObject(value)) {
    out.push({ code: "EXPECTED_OBJECT", path: "$.tenant", message: "expected an object" });
    return { defaultPolicies: {}, featureFlags: {} };
  }
  const r = new ObjectReader(value, "$.tenant", out);
  const defaults: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.object("defaultPolicies"))) {
    if (typeof v === "string") defaults[k.toLowerCase()] = v;
    else out.push({ code: "EXPECTED_STRING", path: pathKey("$.tenant.defaultPolicies", k), message: "expected a policy id" });
  }
  const flags: Record<string, boolean> = {};
  for (const [k, v] of Object.entries(r.object("featureFlags"))) {
    if (typeof v === "boolean") flags[k] = v;
    else out.push({ code: "EXPECTED_BOOLEAN", path: pathKey("$.tenant.featureFlags", k), message: "expected true or false" });
  }
  const id = r.raw("id");
  if (id !== undefined && typeof id !== "string") out.push({ code: "EXPECTED_STRING", path: "$.tenant.id", message: "expected the tenant's id (a string), as the API's introspect gives it" });
  const limit = r.raw("celCostLimit");
  let celCostLimit: number | undefined;
  if (typeof limit === "number" && Number.isSafeInteger(limit) && limit > 0) celCostLimit = limit;
  else if (limit !== undefined) out.push({ code: "EXPECTED_INTEGER", path: "$.tenant.celCostLimit", message: "expected a positive integer (CEL cost units)" });
  return { ...(typeof id === "string" && id !== "" ? { id } : {}), defaultPolicies: defaults, featureFlags: flags, ...(celCostLimit === undefined ? {} : { celCostLimit }), ...r.unknown() };
}

function decodeTokens(value: unknown, out: Diagnostic[]): Record<string, string> {
  const tokens: Record<string, string> = {};
  if (value === undefined || value === null) return tokens;
  if (!isObject(value)) {
    out.push({ code: "EXPECTED_OBJECT", path: "$.tokens", message: "expected an object mapping token to user id" });
    return tokens;
  }
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === "string") tokens[k] = v;
    else out.push({ code: "EXPECTED_STRING", path: pathKey("$.tokens", k), message: "expected a user id" });
  }
  return tokens;
}

/** (sim) `clients`: the HTTP face's OAuth clients, each with an Ed25519 public JWK and the user it acts as. */
function decodeClients(value: unknown, out: Diagnostic[]): ApiClient[] {
  return [
    ...decodeList(value, "$.clients", out, (r) => {
      const jwk = r.object("publicJwk");
      const x = jwk["x"];
      if (jwk["kty"] !== "OKP" || jwk["crv"] !== "Ed25519" || typeof x !== "string" || !/^[A-Za-z0-9_-]{43}$/.test(x))
        out.push({
          code: "INVALID_CLIENT_KEY",
          path: `${r.path}.publicJwk`,
          message: 'expected an Ed25519 public JWK {"kty":"OKP","crv":"Ed25519","x":"<43 base64url characters>"} (policy-sim client add writes one)',
        });
      const clientId = r.string("clientId");
      if (clientId === "") out.push({ code: "EXPECTED_STRING", path: `${r.path}.clientId`, message: "a client needs a clientId" });
      return {
        clientId,
        userId: r.string("userId"),
        displayName: r.string("displayName"),
        publicJwk: { kty: "OKP" as const, crv: "Ed25519" as const, x: typeof x === "string" ? x : "" },
      };
    }),
  ];
}

function commentOf(r: ObjectReader): TaskComment {
  return {
    id: r.string("id"),
    taskId: r.string("taskId"),
    userId: r.string("userId"),
    comment: r.string("comment"),
    createdAt: r.string("createdAt"),
  };
}

function decodeComments(value: unknown, out: Diagnostic[]): TaskComment[] {
  return [...decodeList(value, "$.comments", out, commentOf)];
}

/**
 * Decodes tasks, sharing the decoded policy snapshot (`policy.policy`) among tasks whose snapshot
 * JSON is identical. An export of a tenant embeds the same policy in thousands of tasks; decoding
 * it once per distinct text makes loading 100k tasks seconds instead of half a minute, and the
 * world holds one copy. The key is the snapshot's exact JSON, so two snapshots that differ in any
 * byte are decoded separately and nothing is lost.
 */
function taskDecoderWithSharedSnapshots(): (json: unknown) => ReturnType<typeof decodeTask> {
  // Keyed by the snapshot as written; how it names the API's fields is scanned once per distinct
  // snapshot, so a task after the first walks only its own fields (as the streamed loader does).
  const snapshots = new Map<string, { readonly policy: Policy; readonly naming: ReturnType<typeof scanNames> }>();
  return (json) => {
    const instance = isObject(json) ? json["policy"] : undefined;
    const snapshot = isObject(instance) ? instance["policy"] : undefined;
    if (!isObject(json) || !isObject(instance) || !isObject(snapshot)) return decodeAsWritten(decodeTask, json);
    const key = JSON.stringify(snapshot);
    const shared = snapshots.get(key);
    if (!shared) {
      const decoded = decodeAsWritten(decodeTask, json);
      const policy = decoded.ok ? decoded.value.policy?.policy : undefined;
      if (policy) snapshots.set(key, { policy, naming: scanNames(snapshot) });
      return decoded;
    }
    const decoded = decodeAsWritten(decodeTask, { ...json, policy: { ...instance, policy: null } }, shared.naming);
    if (!decoded.ok || !decoded.value.policy) return decoded;
    // Written into the instance the decoder just made (ours alone until the world is frozen), not
    // spread into copies: V8 gives a spread copy a map that Object.freeze cannot share, so every
    // task of a loaded world had a map of its own and every read of a task field went megamorphic.
    (decoded.value.policy as { policy: Policy | null }).policy = shared.policy;
    return decoded;
  };
}

/** The clock when the file sets none: the latest timestamp on any task, so results stay reproducible. */
const EPOCH = "1970-01-01T00:00:00Z";

function latestTaskTime(tasks: readonly Task[]): string {
  let latest = "";
  let latestMs = -Infinity;
  for (const t of tasks)
    for (const s of [t.createdAt, t.updatedAt]) {
      if (!s) continue;
      const ms = Date.parse(s);
      if (ms > latestMs) {
        latestMs = ms;
        latest = s;
      }
    }
  return latest || EPOCH;
}

function duplicates<T>(items: readonly T[], key: (t: T) => string, path: string, what: string, out: Diagnostic[], field = "id"): void {
  const seen = new Map<string, number>();
  items.forEach((item, i) => {
    const k = key(item);
    if (!k) return;
    const first = seen.get(k);
    if (first !== undefined)
      out.push({
        code: "DUPLICATE_ID",
        path: `${pathIndex(path, i)}.${field}`,
        message: `${what} ${field} "${k}" is used again (first at ${pathIndex(path, first)})`,
      });
    else seen.set(k, i);
  });
}

/**
 * Freezes a value and everything it holds, as a loaded world's objects are (what a world's
 * caches keyed on frozen objects rely on). An already frozen object is taken as frozen through.
 *
 * @example
 * ```ts
 * const patch = deepFreeze(structuredClone(received)); // a what-if thread's copy of an edit
 * ```
 */
export function deepFreeze<T>(value: T): T {
  // Iterative: a value nested deeper than the call stack (from a reducer's input, say) freezes too.
  const work: unknown[] = [value];
  for (let next = work.pop(); next !== undefined; next = work.pop()) {
    // A log is frozen when made, but the items it holds (a task's past steps) are not.
    if (next instanceof AppendLog) next.forEach((item) => void work.push(item));
    if (typeof next !== "object" || next === null || Object.isFrozen(next)) continue;
    Object.freeze(next);
    for (const v of Object.values(next)) work.push(v);
  }
  return value;
}

let knownDirectoryFields: Readonly<Record<string, readonly string[]>> | undefined;

/**
 * The fields each directory collection's decoder reads: what a near-miss field name is compared with.
 * Worked out from the decoders once, on first use.
 *
 * @example
 * ```ts
 * directoryFields()["users"]?.includes("managerIds"); // true
 * ```
 */
export function directoryFields(): Readonly<Record<string, readonly string[]>> {
  return (knownDirectoryFields ??= readDirectoryFields());
}

function readDirectoryFields(): Readonly<Record<string, readonly string[]>> {
  const fieldsOf = (decode: (r: ObjectReader) => unknown, extra: readonly string[] = []): string[] => {
    const r = new ObjectReader({}, "$", []);
    decode(r);
    return [...r.keysRead(), ...extra];
  };
  return {
    users: fieldsOf(decodeUser),
    // appOwners (the API's User objects) is read without being marked, so that it round-trips.
    apps: fieldsOf((r) => decodeApp(r, []), ["appOwners"]),
    entitlements: fieldsOf(decodeEntitlement),
    appUsers: fieldsOf(decodeAppUser),
    groups: fieldsOf(decodeGroup),
    grants: fieldsOf((r) => decodeGrant(r, [])),
    roles: fieldsOf((r) => decodeRole(r, [], [])),
    resourceTypeDefaults: fieldsOf(decodeResourceTypeDefault),
    accessReviews: fieldsOf(decodeAccessReview),
  };
}

const KNOWN_KEYS = new Set([
  "version",
  "now",
  "tenant",
  "roles",
  "users",
  "apps",
  "entitlements",
  "appUsers",
  "groups",
  "grants",
  "resourceTypeDefaults",
  "entitlementConfigurationRules",
  "accessReviews",
  "policies",
  "tasks",
  "tokens",
  "clients",
  "comments",
  "seq",
]);

/**
 * Loads a world file: decodes tasks and policies with the wire codec and the directory objects in
 * their service shapes, checks that every id the document refers to resolves, indexes everything
 * once and freezes the result. Unknown fields are kept. Never throws.
 *
 * @example
 * ```ts
 * import { readFileSync } from "node:fs";
 * import { loadWorld } from "policy-sim";
 * const loaded = loadWorld(JSON.parse(readFileSync("fixtures/world.json", "utf8")));
 * if (!loaded.ok) for (const d of loaded.error) console.error(`${d.path}: ${d.message}`);
 * ```
 */
export function loadWorld(json: unknown, options: LoadOptions = {}): Result<World, Diagnostic[]> {
  try {
    return load(json, options);
  } catch (e: unknown) {
    // A bug of ours must not escape as an exception from a public function.
    return err([{ code: "INTERNAL", path: "$", message: `policy-sim could not load this world: ${String(e)}` }]);
  }
}

function load(json: unknown, options: LoadOptions): Result<World, Diagnostic[]> {
  if (!isObject(json)) return err([{ code: "EXPECTED_OBJECT", path: "$", message: "a world file is a JSON object" }]);
  const out: Diagnostic[] = [];
  const read = (key: string) => json[key];
  const rolesIn = read("roles");
  // Notes that never stop a load (a legacy role kind read as its documented role).
  const notes: Diagnostic[] = [];
  const roles =
    rolesIn === undefined || rolesIn === null ? DEFAULT_ROLES : decodeList(rolesIn, "$.roles", out, (r) => decodeRole(r, out, notes));
  const users = decodeList(read("users"), "$.users", out, decodeUser);
  const apps = decodeList(read("apps"), "$.apps", out, (r) => decodeApp(r, out));
  const entitlements = decodeList(read("entitlements"), "$.entitlements", out, decodeEntitlement);
  const appUsers = decodeList(read("appUsers"), "$.appUsers", out, decodeAppUser);
  const groups = decodeList(read("groups"), "$.groups", out, decodeGroup);
  const grants = decodeList(read("grants"), "$.grants", out, (r) => decodeGrant(r, out));
  const resourceTypeDefaults = decodeList(read("resourceTypeDefaults"), "$.resourceTypeDefaults", out, decodeResourceTypeDefault);
  const accessReviews = decodeList(read("accessReviews"), "$.accessReviews", out, decodeAccessReview);
  const policies: Policy[] = decodeTopList(read("policies"), "$.policies", out, (p) => decodeAsWritten(decodePolicy, p));
  const tasks: Task[] = decodeTopList(read("tasks"), "$.tasks", out, taskDecoderWithSharedSnapshots());
  const tenant = decodeTenant(read("tenant"), out);
  const tokens = decodeTokens(read("tokens"), out);
  const clients = decodeClients(read("clients"), out);
  const comments = decodeComments(read("comments"), out);
  // Copied (the caller's JSON is never frozen) with a `__proto__` key kept as an own key.
  const unknown: Record<string, unknown> = {};
  for (const k of Object.keys(json)) if (!KNOWN_KEYS.has(k)) setOwn(unknown, k, adoptJson(json[k], pathKey("$", k), out));
  return assemble(
    {
      entitlementConfigurationRules: decodeList(read("entitlementConfigurationRules"), "$.entitlementConfigurationRules", out, decodeConfigRule),
      version: read("version"), now: read("now"), seq: read("seq"), roles, users, apps, entitlements, appUsers, groups, grants, resourceTypeDefaults, accessReviews, policies, tasks, tenant, tokens, clients, comments, unknown,
      anyKnownKey: Object.keys(json).some((k) => KNOWN_KEYS.has(k)),
      notes,
      warnings: options.warnings === false ? [] : worldWarnings(json, directoryFields(), KNOWN_KEYS),
    },
    out,
    options,
  );
}

/** A world file's parts, decoded (lists, tenant, tokens) or as read (version, now, seq). */
interface DecodedParts {
  readonly version: unknown;
  readonly now: unknown;
  readonly seq: unknown;
  readonly roles: readonly Role[];
  readonly users: readonly User[];
  readonly apps: readonly App[];
  readonly entitlements: readonly AppEntitlement[];
  readonly appUsers: readonly AppUser[];
  readonly groups: readonly Group[];
  readonly grants: readonly Grant[];
  readonly resourceTypeDefaults: readonly ResourceTypeDefault[];
  readonly entitlementConfigurationRules: readonly EntitlementConfigRule[];
  readonly accessReviews: readonly AccessReview[];
  readonly policies: readonly Policy[];
  readonly tasks: readonly Task[];
  readonly tenant: Tenant;
  readonly tokens: Record<string, string>;
  readonly clients: readonly ApiClient[];
  readonly comments: readonly TaskComment[];
  readonly unknown: Record<string, unknown>;
  /** Whether the document has any key a world file has (else, with unknown keys, it is another file). */
  readonly anyKnownKey: boolean;
  /** Probable typos (see {@link LoadOptions.warnings}); never a reason to refuse the world. */
  readonly warnings: readonly Diagnostic[];
  /** Notes that never stop a load (a legacy role kind read as its documented role). */
  readonly notes: readonly Diagnostic[];
}

/**
 * A document with keys, none of them a world file's: another kind of file given as a world (a
 * policy, a Terraform plan, a scenario), which loaded as an empty world and then failed for other
 * reasons (no clock, task not found). What it probably is, and where it goes; `undefined` for no keys.
 */
function otherFileKind(allKeys: readonly string[]): Diagnostic | undefined {
  // Keys about the file (`$schema`, `$comment`) say nothing of what it holds.
  const keys = allKeys.filter((k) => !FILE_KEYS.has(k));
  if (keys.length === 0) return undefined;
  const has = (...ks: string[]): boolean => ks.some((k) => keys.includes(k));
  const what = has("policySteps", "policyType", "rules", "baselinePolicyId")
    ? 'a policy (it has "policySteps"/"rules"): a world file holds policies in "policies"; to try a policy against a world, give it to whatif --edit or lint --policy'
    : has("format_version", "resource_changes", "planned_values", "terraform_version")
      ? "a Terraform plan (terraform show -json): give it to whatif --terraform-plan, with the world as --world"
      : has("steps", "script")
        ? "a scenario script: run it with simulate --script"
        : has("list", "nextPageToken", "expanded")
          ? "an API answer (a page of a listing): use policy-sim pull to make a world of a tenant"
          : // A misspelt world key (`polices`) is a world with a typo: loaded, and warned of with what it meant.
            keys.some((k) => closest(k, KNOWN_KEYS) !== undefined)
            ? undefined
            : `its top-level fields (${keys.slice(0, 5).join(", ")}${keys.length > 5 ? ", …" : ""}) are none of a world file's (${[...KNOWN_KEYS].slice(0, 6).join(", ")}, …)`;
  return what === undefined ? undefined : { code: "NOT_A_WORLD", path: "$", message: `this is not a world file: ${what}` };
}

/** Checks, indexes and freezes decoded parts into a world: what every way of loading ends with. */
function assemble(parts: DecodedParts, out: Diagnostic[], options: LoadOptions): Result<World, Diagnostic[]> {
  const { roles, users, apps, entitlements, appUsers, groups, grants, resourceTypeDefaults, entitlementConfigurationRules, accessReviews, policies, tasks, tenant, tokens, clients, comments, unknown, notes } = parts;
  const notAWorld = parts.anyKnownKey ? undefined : otherFileKind(Object.keys(unknown));
  if (notAWorld !== undefined) return err([notAWorld]);
  const version = parts.version;
  if (version !== undefined && version !== 1)
    out.push({ code: "UNSUPPORTED_VERSION", path: "$.version", message: `world file version ${JSON.stringify(version)} is not supported; use 1` });
  const read = (key: "now" | "seq"): unknown => parts[key];
  const nowIn = read("now");
  let now = nowIn === undefined || nowIn === null ? latestTaskTime(tasks) : typeof nowIn === "string" ? nowIn : "";
  // Neither a clock nor a task time to take it from: the epoch, which a time condition reads as 1970.
  const noClock: Diagnostic[] =
    (nowIn === undefined || nowIn === null) && now === EPOCH && options.warnings !== false
      ? [{ code: "NO_CLOCK", path: "$.now", severity: "warning", message: `the world has no "now" and no task with a creation time, so its clock is ${EPOCH}: conditions on time (now(), task.createdAt), delegation windows and escalations read that; set "now", e.g. "2026-11-22T09:00:00Z"` }]
      : [];
  if (!isRealTimestamp(now)) {
    out.push({ code: "INVALID_TIMESTAMP", path: "$.now", message: `"now" must be an RFC 3339 timestamp such as "2026-11-22T09:00:00Z"` });
    now = "1970-01-01T00:00:00Z";
  }
  now = utcTimestamp(now);
  const seqIn = read("seq");
  let seq = 1;
  if (seqIn !== undefined && seqIn !== null) {
    if (typeof seqIn === "number" && Number.isSafeInteger(seqIn) && seqIn >= 1) seq = seqIn;
    else out.push({ code: "INVALID_SEQ", path: "$.seq", message: "seq must be a positive integer" });
  }

  duplicates(users, (u) => u.id, "$.users", "user", out);
  duplicates(apps, (a) => a.id, "$.apps", "app", out);
  duplicates(entitlements, (e) => `${e.appId}/${e.id}`, "$.entitlements", "entitlement", out);
  duplicates(policies, (p) => p.id, "$.policies", "policy", out);
  duplicates(tasks, (t) => t.id, "$.tasks", "task", out);
  duplicates(tasks, (t) => t.numericId, "$.tasks", "task", out, "numericId");
  duplicates(roles, (r) => r.id, "$.roles", "role", out);
  duplicates(clients, (c) => c.clientId, "$.clients", "client", out, "clientId");

  duplicates(entitlementConfigurationRules, (r) => `${r.appId}/${r.id}`, "$.entitlementConfigurationRules", "entitlement configuration rule", out);
  const index = buildIndex({ roles, users, apps, entitlements, appUsers, groups, grants, resourceTypeDefaults, entitlementConfigurationRules, accessReviews, policies });
  const references = [
    ...checkReferences({ index, users, apps, entitlements, appUsers, groups, grants, resourceTypeDefaults, accessReviews, tenant, tokens, tasks }),
    ...clients.flatMap((c, i) =>
      index.users.has(c.userId)
        ? []
        : [{ code: "DANGLING_REFERENCE", path: `${pathIndex("$.clients", i)}.userId`, message: `user "${c.userId}" does not exist` }],
    ),
  ];
  const strict = options.strict ?? true;
  const errors = strict ? [...out, ...references] : out;
  if (errors.length > 0) return err(errors);

  // One array per task, pushed to: copying a task's list per comment made loading quadratic.
  const commentsByTask = new Map<string, TaskComment[]>();
  for (const c of comments) {
    const list = commentsByTask.get(c.taskId);
    if (list) list.push(c);
    else commentsByTask.set(c.taskId, [c]);
  }

  const world: World = {
    version: 1,
    now,
    tenant,
    roles,
    users,
    apps,
    entitlements,
    appUsers,
    groups,
    grants,
    resourceTypeDefaults,
    ...(entitlementConfigurationRules.length > 0 ? { entitlementConfigurationRules } : {}),
    accessReviews,
    policies,
    tasks: Table.from(tasks.map((t) => [t.id, t] as const)),
    taskIdByNumericId: Table.from(tasks.filter((t) => t.numericId !== "").map((t) => [t.numericId, t.id] as const)),
    comments: Table.from([...commentsByTask].map(([id, list]) => [id, CommentLog.of(list)] as const)),
    tokens,
    clients,
    seq,
    index,
    warnings: [
      ...noClock,
      ...notes,
      ...costLimitCapped(tenant),
      ...(strict ? [] : references.map((d) => ({ ...d, severity: "warning" as const }))),
      ...parts.warnings,
    ],
    ...(Object.keys(unknown).length > 0 ? { $unknown: unknown } : {}),
  };
  // Maps in the index cannot be frozen in place; they are only ever read.
  for (const part of [roles, users, apps, entitlements, appUsers, groups, grants, resourceTypeDefaults, entitlementConfigurationRules, accessReviews, policies, tasks, comments])
    deepFreeze(part);
  deepFreeze(tenant);
  deepFreeze(tokens);
  deepFreeze(clients);
  deepFreeze(unknown);
  return ok(Object.freeze(world));
}

/** Top-level members whose value is a list of objects, decoded one element at a time. */
type ListKey = "roles" | "users" | "apps" | "entitlements" | "appUsers" | "groups" | "grants" | "resourceTypeDefaults" | "accessReviews" | "policies" | "tasks" | "comments";
const LIST_KEYS: ReadonlySet<string> = new Set<ListKey>(["roles", "users", "apps", "entitlements", "appUsers", "groups", "grants", "resourceTypeDefaults", "accessReviews", "policies", "tasks", "comments"]);

/**
 * Builds a world from the pieces a {@link WorldSplitter} hands out: each list element is decoded as
 * it arrives (its text parsed by `JSON.parse`, then dropped), so the file's text and its parsed
 * JSON are never in memory whole. A task's embedded policy snapshot is decoded once per distinct
 * text and shared, as `loadWorld` shares equal snapshots.
 */
class StreamedWorld implements SplitterSink {
  readonly out: Diagnostic[] = [];
  private readonly warnings: Diagnostic[] = [];
  private readonly directoryKnown: Readonly<Record<string, readonly string[]>> | undefined;

  /** `warn`: collect probable typos as items arrive (see {@link LoadOptions.warnings}). */
  constructor(warn: boolean) {
    this.directoryKnown = warn ? directoryFields() : undefined;
  }
  readonly notes: Diagnostic[] = [];
  private readonly lists = new Map<string, unknown[]>();
  private readonly members = new Map<string, unknown>();
  private readonly counts = new Map<string, number>();
  private readonly snapshots = new Map<string, Policy>();
  /** How snapshot texts written with the API's names name them (see `decodeAsWritten`). */
  private readonly apiNamedSnapshots = new Map<string, ReturnType<typeof scanNames>>();
  private readonly decodeSharing = taskDecoderWithSharedSnapshots();

  /** The top-level keys met so far: one given twice loses its first value (as JSON.parse has it), which is said. */
  private readonly topKeys = new Set<string>();
  private seenTop(key: string): void {
    if (this.topKeys.has(key))
      this.warnings.push({
        code: "DUPLICATE_KEY",
        path: pathKey("$", key),
        severity: "warning",
        message: `"${key}" is given more than once at the top of the file: the last is kept, as JSON.parse keeps it, and what the earlier held is dropped`,
      });
    this.topKeys.add(key);
  }

  member(key: string, text: string): void {
    this.seenTop(key);
    const value = JSON.parse(text) as unknown;
    if (LIST_KEYS.has(key)) {
      this.lists.delete(key);
      if (value !== null) this.out.push({ code: "EXPECTED_ARRAY", path: pathKey("$", key), message: "expected an array" });
      return;
    }
    // JSON.parse of the whole file would keep the last of two equal keys; so does this.
    this.members.delete(key);
    this.members.set(key, value);
  }

  listStart(key: string): void {
    this.seenTop(key);
    this.counts.set(key, 0);
    this.lists.delete(key);
    this.members.delete(key);
    // An unknown member's list stays among the members, in document order.
    if (LIST_KEYS.has(key)) this.lists.set(key, []);
    else this.members.set(key, []);
  }

  /** Where each task lies in the file, by id and by numericId (see {@link loadWorldChunksIndexed}). */
  private readonly rangesById = new Map<string, ByteRange>();
  private readonly rangesByNumericId = new Map<string, ByteRange>();

  /** Task ranges by numericId and by id; an id wins over another task's equal numericId, as `findTask` decides. */
  taskRanges(): ReadonlyMap<string, ByteRange> {
    const all = new Map(this.rangesByNumericId);
    for (const [id, range] of this.rangesById) all.set(id, range);
    return all;
  }

  element(key: string, text: string, snapshot: string | undefined, range: ByteRange): void {
    if (!LIST_KEYS.has(key)) {
      (this.members.get(key) as unknown[]).push(JSON.parse(text));
      return;
    }
    const list = this.lists.get(key) as unknown[];
    const i = this.counts.get(key) ?? 0;
    this.counts.set(key, i + 1);
    const at = pathIndex(pathKey("$", key), i);
    const json = JSON.parse(text) as unknown;
    // Before decoding: a task's snapshot is not in `json` yet, so equal snapshots are not walked again.
    if (this.directoryKnown) itemWarnings(key, json, at, this.directoryKnown, this.warnings);
    if (key === "tasks" || key === "policies") {
      const decoded = key === "policies" ? decodeAsWritten(decodePolicy, json) : this.decodeTask(json, snapshot);
      if (decoded.ok) {
        list.push(decoded.value);
        if (key === "tasks") {
          const task = decoded.value as Task;
          this.rangesById.set(task.id, range);
          if (task.numericId !== "") this.rangesByNumericId.set(task.numericId, range);
        }
      }
      else this.out.push(...reroot(decoded.error, at));
      return;
    }
    if (!isObject(json)) {
      this.out.push({ code: "EXPECTED_OBJECT", path: at, message: "expected an object" });
      return;
    }
    const r = new ObjectReader(json, at, this.out);
    list.push(this.decodeDirectory(key as ListKey, r));
  }

  private decodeDirectory(key: ListKey, r: ObjectReader): unknown {
    const out = this.out;
    switch (key) {
      case "roles":
        return decodeRole(r, out, this.notes);
      case "users":
        return decodeUser(r);
      case "apps":
        return decodeApp(r, out);
      case "entitlements":
        return decodeEntitlement(r);
      case "appUsers":
        return decodeAppUser(r);
      case "groups":
        return decodeGroup(r);
      case "grants":
        return decodeGrant(r, out);
      case "resourceTypeDefaults":
        return decodeResourceTypeDefault(r);
      case "accessReviews":
        return decodeAccessReview(r);
      default:
        return commentOf(r);
    }
  }

  /** A task whose snapshot text (cut out by the splitter) is decoded once per distinct text. */
  private decodeTask(json: unknown, snapshot: string | undefined): ReturnType<typeof decodeTask> {
    const instance = isObject(json) ? json["policy"] : undefined;
    if (snapshot === undefined || !isObject(json) || !isObject(instance)) return this.decodeSharing(json);
    const shared = this.snapshots.get(snapshot);
    if (shared === undefined) {
      const parsed = JSON.parse(snapshot) as unknown;
      (instance as Record<string, unknown>)["policy"] = parsed;
      const decoded = decodeAsWritten(decodeTask, json);
      const policy = decoded.ok ? decoded.value.policy?.policy : undefined;
      if (policy) this.snapshots.set(snapshot, policy);
      const inSnapshot = scanNames(parsed);
      if (inSnapshot.paths.length > 0) this.apiNamedSnapshots.set(snapshot, inSnapshot);
      return decoded;
    }
    // The snapshot is not in `json`: whether it was written with the API's names was noted above.
    const decoded = decodeAsWritten(decodeTask, json, this.apiNamedSnapshots.get(snapshot));
    if (decoded.ok && decoded.value.policy) (decoded.value.policy as { policy: Policy | null }).policy = shared;
    return decoded;
  }

  finish(options: LoadOptions): Result<World, Diagnostic[]> {
    const out = this.out;
    const list = <T>(key: ListKey): readonly T[] => (this.lists.get(key) ?? []) as T[];
    const get = (key: string): unknown => this.members.get(key);
    const unknown: Record<string, unknown> = {};
    for (const [k, v] of this.members) if (!KNOWN_KEYS.has(k)) setOwn(unknown, k, adoptJson(v, pathKey("$", k), out));
    return assemble(
      {
        version: get("version"),
        now: get("now"),
        seq: get("seq"),
        anyKnownKey: [...this.topKeys].some((k) => KNOWN_KEYS.has(k)),
        roles: this.lists.has("roles") ? list<Role>("roles") : DEFAULT_ROLES,
        users: list<User>("users"),
        apps: list<App>("apps"),
        entitlements: list<AppEntitlement>("entitlements"),
        appUsers: list<AppUser>("appUsers"),
        groups: list<Group>("groups"),
        grants: list<Grant>("grants"),
        resourceTypeDefaults: list<ResourceTypeDefault>("resourceTypeDefaults"),
        entitlementConfigurationRules: decodeList(get("entitlementConfigurationRules"), "$.entitlementConfigurationRules", out, decodeConfigRule),
        accessReviews: list<AccessReview>("accessReviews"),
        policies: list<Policy>("policies"),
        tasks: list<Task>("tasks"),
        tenant: decodeTenant(get("tenant"), out),
        tokens: decodeTokens(get("tokens"), out),
        clients: decodeClients(get("clients"), out),
        comments: list<TaskComment>("comments"),
        unknown,
        warnings: this.directoryKnown ? [...topLevelWarnings([...this.members.keys(), ...this.lists.keys()], KNOWN_KEYS), ...this.warnings] : [],
        notes: this.notes,
      },
      out,
      options,
    );
  }
}

/** A problem with the bytes (not with reading them), carried out of the read loop. */
class BadBytes extends Error {
  constructor(readonly reason: unknown) {
    super(String(reason));
  }
}

/**
 * Loads a world file given as bytes in chunks of any size (a file read piece by piece, a response
 * body): the same world `loadWorld(JSON.parse(text))` gives, but the file's text is never one
 * string (V8 refuses strings over 512 MiB) and its parsed JSON is never in memory whole: each
 * element of the file's lists is parsed and decoded as it arrives. Malformed bytes are a
 * `INVALID_JSON` diagnostic with the byte offset. Never throws, except what `chunks` itself throws
 * (a file that cannot be read), which propagates as it came.
 *
 * @example
 * ```ts
 * import { openSync, readSync } from "node:fs";
 * function* chunks(path: string) {
 *   const fd = openSync(path, "r");
 *   for (let b = new Uint8Array(1 << 20), n; (n = readSync(fd, b)) > 0; b = new Uint8Array(1 << 20)) yield b.subarray(0, n);
 * }
 * const loaded = loadWorldChunks(chunks("big-world.json"));
 * ```
 */
export function loadWorldChunks(chunks: Iterable<Uint8Array>, options: ChunkLoadOptions = {}): Result<World, Diagnostic[]> {
  return loadStreamed(new StreamedWorld(options?.warnings !== false), chunks, options ?? {});
}

/**
 * {@link loadWorldChunks}, also telling where each task lies in the bytes (by id and by
 * numericId), so a cache can read one task back without the rest (the CLI's warm `explain`).
 *
 * @example
 * ```ts
 * const r = loadWorldChunksIndexed(chunks);
 * if (r.ok) r.value.taskRanges.get("1001"); // { start, end }
 * ```
 */
export function loadWorldChunksIndexed(
  chunks: Iterable<Uint8Array>,
  options: ChunkLoadOptions = {},
): Result<{ readonly world: World; readonly taskRanges: ReadonlyMap<string, ByteRange> }, Diagnostic[]> {
  const builder = new StreamedWorld(options?.warnings !== false);
  const r = loadStreamed(builder, chunks, options ?? {});
  return r.ok ? ok({ world: r.value, taskRanges: builder.taskRanges() }) : r;
}

function loadStreamed(builder: StreamedWorld, chunks: Iterable<Uint8Array>, options: ChunkLoadOptions): Result<World, Diagnostic[]> {
  if (typeof (chunks as Partial<Iterable<Uint8Array>> | null | undefined)?.[Symbol.iterator] !== "function")
    return err([{ code: "EXPECTED_BYTES", path: "$", message: `expected the world file's bytes as an iterable of Uint8Array chunks (e.g. [readFileSync(path)]), not ${chunks === null ? "null" : typeof chunks}` }]);
  const maxBytes: unknown = options.maxBytes ?? DEFAULT_SPLIT_LIMITS.maxBytes;
  if (typeof maxBytes !== "number" || !(maxBytes > 0))
    return err([{ code: "INVALID_ARGUMENT", path: "$", message: `maxBytes must be a positive number of bytes, not ${describeValue(maxBytes)}` }]);
  const splitter = new WorldSplitter(builder, { ...DEFAULT_SPLIT_LIMITS, maxBytes });
  // Reading is the caller's: an error thrown by `chunks` itself (a file that cannot be read)
  // propagates as it came. Everything about the bytes is a diagnostic.
  const reader = chunks[Symbol.iterator]();
  try {
    for (let next = reader.next(); next.done !== true; next = reader.next()) {
      try {
        splitter.write(next.value);
      } catch (e: unknown) {
        reader.return?.();
        throw new BadBytes(e);
      }
    }
    splitter.end();
  } catch (thrown: unknown) {
    if (!(thrown instanceof BadBytes) && !(thrown instanceof SplitError)) throw thrown;
    const e = thrown instanceof BadBytes ? thrown.reason : thrown;
    if (e instanceof SplitTooLarge) return err([{ code: "TOO_LARGE", path: "$", message: e.message }]);
    if (e instanceof SplitError || e instanceof SyntaxError || e instanceof TypeError)
      return err([{ code: "INVALID_JSON", path: "$", message: `the world file is not valid JSON: ${e.message}` }]);
    return err([{ code: "INTERNAL", path: "$", message: `policy-sim could not load this world: ${String(e)}` }]);
  }
  try {
    return builder.finish(options);
  } catch (e: unknown) {
    return err([{ code: "INTERNAL", path: "$", message: `policy-sim could not load this world: ${String(e)}` }]);
  }
}
