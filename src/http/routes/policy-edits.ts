/**
 * Policy edits over the API (`POST /api/v1/policies`, `POST /api/v1/policies/{id}` with
 * `updateMask`, `DELETE /api/v1/policies/{id}`) and CEL validation (`POST /api/v1/policies/validate/cel`),
 * as pure functions from a world to the next world and the 200 body. Every write is checked as the
 * service checks it at save time: the project's linter runs on the policy as it would be saved,
 * and on every policy referring to it, and any error finding refuses the write.
 */
import { checkApproverExpression, checkCondition } from "../../cel/compile.js";
import { decodePolicy, encodePolicy } from "../../codec/index.js";
import { expirationSeconds } from "../../codec/spec-names.js";
import { PolicyType, type Policy } from "../../model/index.js";
import type { JsonObject, JsonValue } from "../../model/json.js";
import { lintPolicy, lintDecodedPolicy, type Finding } from "../../policy/lint.js";
import { mayEditPolicies, rolesOf } from "../../reducers/permissions.js";
import type { User } from "../../model/directory.js";
import { err, ok, type Result } from "../../result.js";
import { buildIndex, replaceInWorld, takeIds, type World } from "../../world/world.js";
import { type HttpFailure, requiredStringProblem } from "../error-body.js";
import { policiesNamedBy, policyUsesIn } from "../../policy/policy-uses.js";
import { policyWire } from "./reads.js";

/**
 * A successful write: the next world and the 200 body.
 *
 * @example
 * ```ts
 * const r = createPolicy(world, caller, { displayName: "New" }, now);
 * if (r.ok) store.set(r.value.world);
 * ```
 */
export interface PolicyWrite {
  readonly world: World;
  readonly body: JsonObject;
}

type Body = Readonly<Record<string, unknown>>;

const invalid = (message: string, field?: string, metadata?: Record<string, string>) =>
  err<HttpFailure>({ status: 400, code: "INVALID_ARGUMENT", reason: "INVALID_ARGUMENT", message, ...(field ? { field } : {}), ...(metadata ? { metadata } : {}) });
const notFound = (id: string) => err<HttpFailure>({ status: 404, code: "NOT_FOUND", reason: "NOT_FOUND", message: `policy "${id}" not found` });

/** Only Super Administrators edit policies (product_admin_user-roles.mdx; see `mayEditPolicies`). */
function mayEdit(world: World, caller: User): HttpFailure | undefined {
  if (mayEditPolicies(rolesOf(world, caller))) return undefined;
  return { status: 403, code: "PERMISSION_DENIED", reason: "PERMISSION_DENIED", message: `user "${caller.id}" may not edit policies (Super Administrators only)` };
}

/** The fields a client may write; the rest (id, systemBuiltin, timestamps) are the server's. */
const WRITABLE = ["displayName", "description", "policyType", "policySteps", "rules", "baselinePolicyId", "postActions", "reassignTasksToDelegates", "annotations", "scope"] as const;
type Writable = (typeof WRITABLE)[number];

const SNAKE: Readonly<Record<string, Writable>> = {
  display_name: "displayName",
  policy_type: "policyType",
  policy_steps: "policySteps",
  baseline_policy_id: "baselinePolicyId",
  post_actions: "postActions",
  reassign_tasks_to_delegates: "reassignTasksToDelegates",
};

function errorsOf(findings: readonly Finding[]): Finding[] {
  return findings.filter((f) => f.severity === "error");
}

function refused(findings: readonly Finding[], what: string): Result<never, HttpFailure> {
  const first = findings[0];
  const list = findings.slice(0, 5).map((f) => `${f.code} at ${f.path}: ${f.message}`);
  const more = findings.length > 5 ? `; and ${findings.length - 5} more` : "";
  return invalid(`${what} refused: ${list.join("; ")}${more}`, first ? first.path.replace(/^\$\.?/, "") || undefined : undefined, {
    findings: findings.map((f) => f.code).join(","),
  });
}

/**
 * Every policy from which a chain of references reaches `id`: an edit lengthens or breaks the chains
 * of all of them ("must not push any reachable chain over depth 5"), not only of its direct referrers.
 * The world's references are read once, then followed backwards.
 */
function chainsThrough(world: World, id: string): Policy[] {
  const namers = new Map<string, Policy[]>();
  for (const p of world.policies)
    for (const named of policiesNamedBy(p)) {
      const list = namers.get(named);
      if (list) list.push(p);
      else namers.set(named, [p]);
    }
  const seen = new Set<string>([id]);
  const out: Policy[] = [];
  const queue = [id];
  for (let at = queue.shift(); at !== undefined; at = queue.shift())
    for (const p of namers.get(at) ?? []) {
      if (seen.has(p.id)) continue;
      seen.add(p.id);
      out.push(p);
      queue.push(p.id);
    }
  return out;
}

/**
 * Lints the policy as it would be saved, in the world with it saved, and every policy whose chain of
 * references reaches it; error findings refuse the write. Referrers only count errors they did not have before.
 */
function saveTimeCheck(before: World, after: World, policy: Policy, wire: JsonValue, what: string): HttpFailure | undefined {
  // The service reads a request with protojson, which refuses a field or enum value it does not
  // know: a misspelled step kind ({"approve": …}) or policy type is refused, not kept.
  if (!(Object.values(PolicyType) as string[]).includes(policy.policyType))
    return { status: 400, code: "INVALID_ARGUMENT", reason: "INVALID_ARGUMENT", message: `${what} refused: policyType ${JSON.stringify(policy.policyType)} is not one of ${Object.values(PolicyType).join(", ")}`, field: "policyType" };
  const findings = lintPolicy(wire, after);
  // A step naming a policy the world lacks is only a warning for a world file (a pulled tenant may
  // not hold every policy), but a write that introduces one would leave a dangling reference.
  const own = findings.filter((f) => f.severity === "error" || f.code === "UNKNOWN_STEP_KIND" || f.code === "UNKNOWN_POLICY");
  if (own.length > 0) {
    const r = refused(own, what);
    return r.ok ? undefined : r.error;
  }
  for (const p of chainsThrough(after, policy.id)) {
    const had = new Set(errorsOf(lintDecodedPolicy(p, before)).map((f) => `${f.code}\u0000${f.path}`));
    const now = errorsOf(lintDecodedPolicy(p, after)).filter((f) => !had.has(`${f.code}\u0000${f.path}`));
    if (now.length > 0) {
      const r = refused(
        now.map((f) => ({ ...f, message: `policy "${p.id}", which refers to this one: ${f.message}` })),
        what,
      );
      return r.ok ? undefined : r.error;
    }
  }
  return undefined;
}

/**
 * The first approval escalation `expiration` the API's int64 of seconds cannot hold exactly (a
 * fraction of a second, `""`), with its path: the service's protojson reader refuses it. Also the
 * first negative one: an escalation cannot fire before its step begins (assumed: the pages give no
 * bound, but no negative wait has a meaning).
 */
function inexactExpiration(v: unknown, at = "$", depth = 0): { path: string; value: unknown; negative: boolean } | undefined {
  if (depth > 64 || typeof v !== "object" || v === null) return undefined;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const found = inexactExpiration(v[i], `${at}[${i}]`, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const [k, x] of Object.entries(v)) {
    const path = `${at}.${k}`;
    if (k === "escalation" && typeof x === "object" && x !== null && !Array.isArray(x)) {
      const e = (x as Record<string, unknown>)["expiration"];
      if (typeof e === "string") {
        const seconds = expirationSeconds(e);
        if (seconds?.exact !== true || seconds.seconds.startsWith("-")) return { path: `${path}.expiration`, value: e, negative: seconds?.exact === true };
      }
    }
    const found = inexactExpiration(x, path, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** `wire` decoded; `sent` is what the request wrote (an update's patch), whose expirations must be exact. */
function decodeWire(wire: JsonObject, what: string, sent: unknown = wire): Result<Policy, HttpFailure> {
  const d = decodePolicy(wire);
  const inexact = d.ok ? inexactExpiration(sent) : undefined;
  if (inexact)
    return invalid(
      `${what} refused: ${inexact.path}: an escalation's expiration is an int64 of seconds (openapi.yaml c1.api.policy.v1.Escalation.expiration), such as "86400"; ${JSON.stringify(inexact.value)} ${inexact.negative ? "is negative" : "is not a whole number of seconds"}`,
      inexact.path.replace(/^\$\.?/, "") || undefined,
    );
  if (d.ok) return d;
  const first = d.error[0];
  return invalid(`${what} refused: ${first ? `${first.path}: ${first.message}` : "not a policy"}`, first?.path.replace(/^\$\.?/, "") || undefined);
}

/**
 * `POST /api/v1/policies`: a new policy from a CreatePolicyRequest. Its id comes from the world's
 * id sequence; `displayName` is required.
 *
 * @example
 * ```ts
 * createPolicy(world, admin, { displayName: "Prod access", policyType: "POLICY_TYPE_GRANT",
 *   policySteps: { grant: { steps: [{ accept: {} }] } } }, "2026-11-22T09:00:00Z");
 * ```
 */
export function createPolicy(world: World, caller: User, body: Body, now: string): Result<PolicyWrite, HttpFailure> {
  const denied = mayEdit(world, caller);
  if (denied) return err(denied);
  const name = body["displayName"];
  const missing = requiredStringProblem("displayName", typeof name === "string" ? name.trim() : name);
  if (missing !== undefined || typeof name !== "string") return invalid(missing ?? "displayName is required", "displayName");
  const { ids, seq } = takeIds(world, "pol", 1);
  const id = ids[0] ?? "";
  const wire: Record<string, JsonValue> = { id, annotations: {}, createdAt: now, updatedAt: now, deletedAt: null, systemBuiltin: false };
  const reserved = reservedAnnotation(body["annotations"]);
  if (reserved) return reserved;
  for (const k of WRITABLE) if (body[k] !== undefined) wire[k] = body[k] as JsonValue;
  const decoded = decodeWire(wire, "create policy");
  if (!decoded.ok) return decoded;
  const after = { ...replaceInWorld(world, { policies: [decoded.value] }), seq };
  const problem = saveTimeCheck(world, after, decoded.value, wire, "create policy");
  if (problem) return err(problem);
  return ok({ world: after, body: { policy: policyWire(decoded.value) } });
}

/** A mask path: its writable top-level field, then the keys below it (`policySteps.grant` → policySteps, ["grant"]). */
interface MaskPath {
  readonly field: Writable;
  readonly below: readonly string[];
  readonly text: string;
}

/**
 * The mask's paths; "" or none means every field the body sets, `*` every writable field (a full
 * replacement, AIP-134). A path may go below a field into its map keys or message fields
 * (`policySteps.grant` replaces that one entry and keeps the others).
 */
function maskPaths(mask: unknown, policy: Body): Result<readonly MaskPath[], HttpFailure> {
  let paths: string[];
  if (mask === undefined || mask === null || mask === "") paths = WRITABLE.filter((k) => policy[k] !== undefined);
  else if (typeof mask === "string") paths = mask.split(",").map((p) => p.trim()).filter((p) => p !== "");
  else if (typeof mask === "object" && !Array.isArray(mask) && Array.isArray((mask as Body)["paths"]))
    paths = ((mask as Body)["paths"] as unknown[]).filter((p): p is string => typeof p === "string");
  else return invalid('updateMask must be a field mask: a comma-separated string such as "displayName,rules"', "updateMask");
  if (paths.includes("*")) {
    if (paths.length > 1) return invalid('updateMask "*" replaces every field: give it alone', "updateMask");
    return ok(WRITABLE.map((field) => ({ field, below: [], text: field })));
  }
  const out: MaskPath[] = [];
  for (const p of paths) {
    const [top = "", ...below] = p.split(".");
    const name = SNAKE[top] ?? top;
    if (!(WRITABLE as readonly string[]).includes(name))
      return invalid(`updateMask names "${p}", which is not a writable policy field (${WRITABLE.join(", ")})`, "updateMask");
    if (below.some((k) => k === "")) return invalid(`updateMask path "${p}" has an empty segment`, "updateMask");
    out.push({ field: name as Writable, below, text: p });
  }
  return ok(out);
}

/**
 * `wire` with the value at `path` (below `field`) taken from `patch`, or removed where `patch` has
 * none there. Objects along the way are copied, not changed. Fails when the path goes through a
 * value that is not an object (`displayName.x`).
 */
function setBelow(wire: Record<string, JsonValue>, patch: Body, path: MaskPath): Result<void, HttpFailure> {
  const keys = [path.field as string, ...path.below];
  let from: unknown = patch;
  for (const k of keys) from = typeof from === "object" && from !== null && !Array.isArray(from) ? (from as Body)[k] : undefined;
  let into: Record<string, JsonValue> = wire;
  for (let i = 0; i < keys.length - 1; i++) {
    const k = keys[i] as string;
    const v = into[k];
    if (v !== undefined && v !== null && (typeof v !== "object" || Array.isArray(v)))
      return invalid(`updateMask path "${path.text}" goes below ${keys.slice(0, i + 1).join(".")}, which is not a message or map`, "updateMask");
    const copy: Record<string, JsonValue> = { ...((v ?? {}) as Record<string, JsonValue>) };
    into[k] = copy;
    into = copy;
  }
  const last = keys[keys.length - 1] as string;
  if (from === undefined) delete into[last];
  else into[last] = from as JsonValue;
  return ok(undefined);
}

/**
 * A refusal for an annotation key the request sets under `c1/` (openapi.yaml: "reserved for
 * server-managed use and rejected on write"). Only what a request writes is refused: keys the
 * policy already has (a pulled tenant's server-managed ones) stay, and an empty value (a delete) is
 * not a write. The spec's `svc/` prefix is lint's (`ANNOTATION_KEY_RESERVED`), refused as any error.
 */
function reservedAnnotation(annotations: unknown): Result<never, HttpFailure> | undefined {
  if (typeof annotations !== "object" || annotations === null || Array.isArray(annotations)) return undefined;
  for (const [key, value] of Object.entries(annotations as Body)) {
    if (value === "" || value === null || !key.startsWith(SERVER_ANNOTATION_PREFIX)) continue;
    return invalid(`annotation key ${JSON.stringify(key)} starts with "${SERVER_ANNOTATION_PREFIX}", which is reserved for server-managed annotations and rejected on write: rename it`, `annotations.${key}`);
  }
  return undefined;
}

const SERVER_ANNOTATION_PREFIX = "c1/";

/** Annotation PATCH semantics (spec, Policy): absent keys are kept; an empty value deletes the key. */
function patchAnnotations(current: Readonly<Record<string, string>> | null, patch: unknown): JsonValue {
  if (patch === null || patch === undefined) return (current ?? null) as JsonValue;
  if (typeof patch !== "object" || Array.isArray(patch)) return patch as JsonValue;
  const out: Record<string, JsonValue> = { ...(current ?? {}) };
  for (const [k, v] of Object.entries(patch as Body)) {
    if (v === "" || v === null) delete out[k];
    else out[k] = v as JsonValue;
  }
  return out;
}

/**
 * `POST /api/v1/policies/{id}`: `{policy, updateMask}`. The mask's fields are taken from `policy`
 * (all fields it sets when the mask is empty); `annotations` merge (an empty value deletes a key).
 * Built-in policies cannot be edited.
 *
 * @example
 * ```ts
 * updatePolicy(world, admin, "pol-prod", { policy: { displayName: "Prod (new)" }, updateMask: "displayName" }, now);
 * ```
 */
export function updatePolicy(world: World, caller: User, id: string, body: Body, now: string): Result<PolicyWrite, HttpFailure> {
  const denied = mayEdit(world, caller);
  if (denied) return err(denied);
  const current = world.index.policies.get(id);
  if (!current) return notFound(id);
  if (current.systemBuiltin)
    return err({ status: 400, code: "FAILED_PRECONDITION", reason: "FAILED_PRECONDITION", message: `policy "${id}" is built in and cannot be edited` });
  const patch = body["policy"];
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) return invalid("policy is required: the fields to write", "policy");
  const p = patch as Body;
  if (typeof p["id"] === "string" && p["id"] !== "" && p["id"] !== id) return invalid(`policy.id "${p["id"]}" does not match the path's "${id}"`, "policy.id");
  const paths = maskPaths(body["updateMask"], p);
  if (!paths.ok) return paths;
  const reserved = reservedAnnotation(p["annotations"]);
  if (reserved) return reserved;
  const wire: Record<string, JsonValue> = { ...(encodePolicy(current) as JsonObject) };
  for (const m of paths.value) {
    const k = m.field;
    if (m.below.length > 0) {
      const set = setBelow(wire, p, m);
      if (!set.ok) return set;
    } else if (k === "annotations") wire[k] = patchAnnotations(current.annotations, p[k]);
    else wire[k] = p[k] === undefined ? null : (p[k] as JsonValue);
  }
  wire["updatedAt"] = now;
  const decoded = decodeWire(wire, "update policy", p);
  if (!decoded.ok) return decoded;
  const after = replaceInWorld(world, { policies: [decoded.value] });
  const problem = saveTimeCheck(world, after, decoded.value, wire, "update policy");
  if (problem) return err(problem);
  return ok({ world: after, body: { policy: policyWire(decoded.value) } });
}

/**
 * `DELETE /api/v1/policies/{id}`: removes a policy nothing refers to (another policy's rule or
 * baseline, an app, an entitlement, request defaults, an access review, a tenant default).
 *
 * @example
 * ```ts
 * deletePolicy(world, admin, "pol-unused"); // ok({ world, body: {} })
 * ```
 */
export function deletePolicy(world: World, caller: User, id: string): Result<PolicyWrite, HttpFailure> {
  const denied = mayEdit(world, caller);
  if (denied) return err(denied);
  const current = world.index.policies.get(id);
  if (!current) return notFound(id);
  if (current.systemBuiltin)
    return err({ status: 400, code: "FAILED_PRECONDITION", reason: "FAILED_PRECONDITION", message: `policy "${id}" is built in and cannot be deleted` });
  const uses = policyUsesIn(world, id);
  if (uses.length > 0)
    return err({
      status: 400,
      code: "FAILED_PRECONDITION",
      reason: "POLICY_IN_USE",
      message: `policy "${id}" cannot be deleted: ${uses.slice(0, 5).join(", ")}${uses.length > 5 ? ` and ${uses.length - 5} more` : ""} refer${uses.length === 1 ? "s" : ""} to it`,
    });
  const policies = Object.freeze(world.policies.filter((p) => p.id !== id));
  const index = buildIndex({ ...world, policies });
  return ok({ world: Object.freeze({ ...world, policies, index }), body: {} });
}

/**
 * `POST /api/v1/policies/validate/cel`: `{text}` checked as a rule condition by the project's
 * checker, or, when it is not one, as an approval step's approver expression (an INFO marker says
 * so), answered as editor markers (1-based lines and columns, end exclusive).
 *
 * @example
 * ```ts
 * validateCel({ text: "subject.departmnt == 'IT'" });
 * // ok({ markers: [{ severity: "ERROR", message: "undefined field 'departmnt' …", startLineNumber: 1, startColumn: 9, … }] })
 * ```
 */
export function validateCel(body: Body): Result<JsonObject, HttpFailure> {
  const text = body["text"];
  if (text !== undefined && text !== null && typeof text !== "string") return invalid("text must be a string", "text");
  const source = typeof text === "string" ? text : "";
  // The request names no context, and the policy editor validates rule conditions and approval
  // steps' approver expressions alike: text valid as either gets no error. Which one it is, is said.
  const asCondition = checkCondition(source);
  const asApprover = asCondition.some((d) => d.code !== "CEL_INVALID_CONSTANT") ? checkApproverExpression(source) : undefined;
  const approver = asApprover !== undefined && asApprover.every((d) => d.code === "CEL_INVALID_CONSTANT");
  const lines = source.split(/\r?\n/);
  const note = approver
    ? [{ severity: "INFO", message: "an approver expression: it names users, as an approval step's expression does (a rule condition must be a bool)", startLineNumber: 1, startColumn: 1, endLineNumber: lines.length, endColumn: (lines[lines.length - 1]?.length ?? 0) + 1 }]
    : [];
  const markers = (approver ? (asApprover ?? []) : asCondition).map((d) => ({
    // A constant that can never be valid is lint's warning (lint-codes.ts): the expression still runs.
    severity: d.code === "CEL_INVALID_CONSTANT" ? "WARNING" : "ERROR",
    message: d.hint ? `${d.message} (${d.hint})` : d.message,
    startLineNumber: d.line,
    startColumn: d.column,
    endLineNumber: d.endLine,
    endColumn: Math.max(d.endColumn, d.line === d.endLine ? d.column + 1 : d.endColumn),
  }));
  return ok({ markers: [...markers, ...note] });
}
