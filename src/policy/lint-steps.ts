/**
 * Lint of the steps inside a policy's step sequences: CEL in wait conditions and approver
 * expressions, the 1–32 users of a users approval (docs/domain.md §6), approvals with no approver, step
 * kinds this version does not know, and — with a world — ids that name no user, group, entitlement
 * or policy of the tenant. Directory ids are warnings, not errors: a policy may be written before
 * the people it names are synced, and the service resolves them at run time.
 */
import { checkApproverExpression, checkCondition } from "../cel/index.js";
import { ZoneCache } from "../cel/time.js";
import { pathIndex } from "../codec/diagnostic.js";
import type { Approval, ApproverKind, AppEntitlementReference, PolicyStep, ProvisionPolicy } from "../model/index.js";
import { entitlementKey, type World } from "../world/world.js";
import { durationSeconds } from "../workflow/time.js";
import { celFindings, type Finding, finding, interpretedFindings } from "./lint-finding.js";

/**
 * Fewest `users.userIds` a users approval may list (docs/domain.md §6).
 *
 * @example
 * ```ts
 * const tooFew = (ids: readonly string[]) => ids.length < APPROVAL_USERS_MIN;
 * ```
 */
export const APPROVAL_USERS_MIN = 1;
/**
 * Most `users.userIds` a users approval may list (docs/domain.md §6).
 *
 * @example
 * ```ts
 * const tooMany = (ids: readonly string[]) => ids.length > APPROVAL_USERS_MAX;
 * ```
 */
export const APPROVAL_USERS_MAX = 32;

/** Multi-step provisioning nests; the codec already refuses absurd depth, this only guards recursion. */
const MAX_PROVISION_NESTING = 64;

interface Ctx {
  readonly world: World | undefined;
  readonly out: Finding[];
}

/**
 * Checks one step of a step sequence; `path` is the step's JSONPath (`$.policySteps.grant.steps[0]`).
 *
 * @example
 * ```ts
 * const out: Finding[] = [];
 * checkStep(step, "$.policySteps.grant.steps[0]", world, out);
 * ```
 */
export function checkStep(step: PolicyStep, path: string, world: World | undefined, out: Finding[]): void {
  const ctx: Ctx = { world, out };
  switch (step.kind) {
    case "approval":
      checkApproval(ctx, step, `${path}.approval`);
      return;
    case "provision":
      if (step.provisionPolicy) checkProvisionPolicy(ctx, step.provisionPolicy, `${path}.provision.provisionPolicy`, 0);
      return;
    case "wait":
      if (step.until?.kind === "duration") checkWaitDuration(step.until.duration, `${path}.wait.duration.duration`, step.name, out);
      if (step.until?.kind === "untilTime") checkWaitTime(step.until, `${path}.wait.untilTime`, step.name, out);
      if (step.until?.kind === "condition") {
        out.push(...celFindings(checkCondition(step.until.condition, "condition", { costLimit: world?.tenant.celCostLimit }), `${path}.wait.condition.condition`, `wait step "${step.name}" condition`));
        out.push(...interpretedFindings(step.until.condition, "condition", `${path}.wait.condition.condition`, `wait step "${step.name}" condition`));
      }
      return;
    case "accept":
    case "reject":
    case "form":
    case "action":
      return;
    case "unknown":
      if (step.key === "")
        out.push(finding("STEP_WITHOUT_KIND", path, "this step sets none of approval, provision, accept, reject, wait, form or action; say what the step does"));
      else out.push(finding("UNKNOWN_STEP_KIND", `${path}.${step.key}`, `step kind "${step.key}" is not known to this version of policy-sim; it is kept as it is but not checked`));
      return;
    default: {
      const never: never = step;
      return never;
    }
  }
}

function checkUsers(ctx: Ctx, ids: readonly string[] | null, path: string, what: string): void {
  const users = ctx.world?.index.users;
  if (!users || !ids) return;
  ids.forEach((id, j) => {
    if (!users.has(id)) ctx.out.push(finding("UNKNOWN_USER", pathIndex(path, j), `${what} names user "${id}", which is not a user of the world`));
  });
}

function checkUser(ctx: Ctx, id: string, path: string, what: string): void {
  const users = ctx.world?.index.users;
  if (users && id !== "" && !users.has(id)) ctx.out.push(finding("UNKNOWN_USER", path, `${what} names user "${id}", which is not a user of the world`));
}

function checkPolicyId(ctx: Ctx, id: string, path: string, what: string): void {
  const policies = ctx.world?.index.policies;
  if (policies && id !== "" && !policies.has(id)) ctx.out.push(finding("UNKNOWN_POLICY", path, `${what} names policy "${id}", which is not in the world`));
}

function checkGroup(ctx: Ctx, groupId: string, appId: string, path: string): void {
  const groups = ctx.world?.index.groups;
  if (!groups) return;
  const group = groups.get(groupId);
  if (!group) ctx.out.push(finding("UNKNOWN_GROUP", path, groupId === "" ? "the group approval names no group" : `group "${groupId}" is not a group of the world`));
  else if (appId !== "" && group.appId !== appId)
    ctx.out.push(finding("UNKNOWN_GROUP", path, `group "${groupId}" belongs to app "${group.appId}", not to app "${appId}" as this step says`));
}

function checkFallbackGroups(ctx: Ctx, refs: readonly AppEntitlementReference[] | null, path: string): void {
  const entitlements = ctx.world?.index.entitlements;
  if (!entitlements || !refs) return;
  refs.forEach((r, j) => {
    if (!entitlements.has(entitlementKey(r.appId, r.appEntitlementId)))
      ctx.out.push(finding("UNKNOWN_ENTITLEMENT", pathIndex(path, j), `fallback group "${r.appEntitlementId}" of app "${r.appId}" is not an entitlement of the world`));
  });
}

function checkExpressions(ctx: Ctx, expressions: readonly string[] | null, path: string): void {
  (expressions ?? []).forEach((source, j) => {
    ctx.out.push(...celFindings(checkApproverExpression(source, { costLimit: ctx.world?.tenant.celCostLimit }), pathIndex(path, j), `approver expression ${j}`));
    ctx.out.push(...interpretedFindings(source, "approver", pathIndex(path, j), `approver expression ${j}`));
  });
}

function checkApproval(ctx: Ctx, approval: Approval, path: string): void {
  checkUsers(ctx, approval.allowedReassignees, `${path}.allowedReassignees`, "allowedReassignees");
  const escalation = approval.escalation?.escalationPolicy;
  if (escalation?.kind === "reassignToApprovers")
    checkUsers(ctx, escalation.approverIds, `${path}.escalation.reassignToApprovers.approverIds`, "the escalation");
  else if (escalation?.kind === "replacePolicy")
    checkPolicyId(ctx, escalation.policyId, `${path}.escalation.replacePolicy.policyId`, "the escalation's replacePolicy");
  const raw = approval.escalationEnabled ? (approval.escalation?.expiration ?? "") : "";
  const seconds = raw === "" ? undefined : durationSeconds(/^\d+$/.test(raw) ? `${raw}s` : raw);
  if (seconds !== undefined && seconds <= 0)
    ctx.out.push(
      finding(
        "ESCALATION_EXPIRES_AT_ONCE",
        `${path}.escalation.expiration`,
        `the escalation expires after ${raw}: it fires as soon as the step starts, and one that replaces or restarts the policy fires again at once, in a loop`,
      ),
    );
  if (!approval.approvers) {
    ctx.out.push(finding("APPROVAL_WITHOUT_APPROVERS", path, "this approval step names no approvers (users, appOwners, manager, expression, group, …); say who approves"));
    return;
  }
  checkApprovers(ctx, approval.approvers, path);
}

function checkApprovers(ctx: Ctx, a: ApproverKind, approvalPath: string): void {
  const path = `${approvalPath}.${a.kind === "unknown" ? a.key : a.kind}`;
  switch (a.kind) {
    case "users": {
      const n = a.userIds?.length ?? 0;
      if (n < APPROVAL_USERS_MIN || n > APPROVAL_USERS_MAX)
        ctx.out.push(
          finding(
            "APPROVAL_USERS_COUNT",
            `${path}.userIds`,
            n === 0
              ? `a users approval lists no userIds; list ${APPROVAL_USERS_MIN} to ${APPROVAL_USERS_MAX} approvers`
              : `a users approval lists ${n} userIds; at most ${APPROVAL_USERS_MAX} are allowed (use a group approval for more)`,
          ),
        );
      checkUsers(ctx, a.userIds, `${path}.userIds`, "the users approval");
      return;
    }
    case "appOwners":
    case "webhook":
      return;
    case "self":
    case "manager":
      checkUsers(ctx, a.assignedUserIds, `${path}.assignedUserIds`, "assignedUserIds");
      checkUsers(ctx, a.fallbackUserIds, `${path}.fallbackUserIds`, "the fallback");
      checkFallbackGroups(ctx, a.fallbackGroupIds, `${path}.fallbackGroupIds`);
      return;
    case "entitlementOwners":
    case "resourceOwners":
      checkUsers(ctx, a.fallbackUserIds, `${path}.fallbackUserIds`, "the fallback");
      checkFallbackGroups(ctx, a.fallbackGroupIds, `${path}.fallbackGroupIds`);
      return;
    case "expression":
      checkExpressions(ctx, a.expressions, `${path}.expressions`);
      checkUsers(ctx, a.assignedUserIds, `${path}.assignedUserIds`, "assignedUserIds");
      checkUsers(ctx, a.fallbackUserIds, `${path}.fallbackUserIds`, "the fallback");
      checkFallbackGroups(ctx, a.fallbackGroupIds, `${path}.fallbackGroupIds`);
      return;
    case "group":
      checkGroup(ctx, a.appGroupId, a.appId, `${path}.appGroupId`);
      checkUsers(ctx, a.fallbackUserIds, `${path}.fallbackUserIds`, "the fallback");
      checkFallbackGroups(ctx, a.fallbackGroupIds, `${path}.fallbackGroupIds`);
      return;
    case "agent":
      checkUser(ctx, a.agentUserId, `${path}.agentUserId`, "agentUserId");
      checkUsers(ctx, a.reassignToUserIds, `${path}.reassignToUserIds`, "reassignToUserIds");
      (a.policyIds ?? []).forEach((id, j) => checkPolicyId(ctx, id, pathIndex(`${path}.policyIds`, j), "the agent's policyIds"));
      return;
    case "unknown":
      ctx.out.push(finding("UNKNOWN_STEP_KIND", path, `approver kind "${a.key}" is not known to this version of policy-sim; it is kept as it is but not checked`));
      return;
    default: {
      const never: never = a;
      return never;
    }
  }
}

function checkProvisionPolicy(ctx: Ctx, p: ProvisionPolicy, path: string, depth: number): void {
  if (depth > MAX_PROVISION_NESTING) return;
  switch (p.kind) {
    case "manual": {
      const at = `${path}.manual`;
      checkUsers(ctx, p.userIds, `${at}.userIds`, "the manual provisioning");
      const a = p.assignee;
      if (!a) return;
      const ap = `${at}.assignee.${a.kind === "unknown" ? a.key : a.kind}`;
      switch (a.kind) {
        case "expression":
          checkExpressions(ctx, a.expressions, `${ap}.expressions`);
          checkUsers(ctx, a.fallbackUserIds, `${ap}.fallbackUserIds`, "the fallback");
          return;
        case "users":
          checkUsers(ctx, a.userIds, `${ap}.userIds`, "the manual assignee");
          return;
        case "group":
          checkGroup(ctx, a.appGroupId, a.appId, `${ap}.appGroupId`);
          checkUsers(ctx, a.fallbackUserIds, `${ap}.fallbackUserIds`, "the fallback");
          return;
        case "appOwners":
        case "entitlementOwners":
        case "manager":
          checkUsers(ctx, a.fallbackUserIds, `${ap}.fallbackUserIds`, "the fallback");
          return;
        case "unknown":
          return;
        default: {
          const never: never = a;
          return never;
        }
      }
    }
    case "multiStep":
      (p.provisionSteps ?? []).forEach((inner, k) => checkProvisionPolicy(ctx, inner, pathIndex(`${path}.multiStep.provisionSteps`, k), depth + 1));
      return;
    case "action":
    case "connector":
    case "delegated":
    case "devicePlacement":
    case "externalTicket":
    case "unconfigured":
    case "webhook":
    case "unknown":
      return;
    default: {
      const never: never = p;
      return never;
    }
  }
}

/**
 * The durations a wait step may wait, in seconds: "from one hour (the minimum duration allowed) to
 * one month (the maximum duration allowed)" (product_admin_policies.mdx, wait steps). "One month"
 * is taken as 31 days, the longest (README "Assumptions").
 *
 * @example
 * ```ts
 * WAIT_DURATION_LIMITS.minSeconds; // 3600
 * ```
 */
export const WAIT_DURATION_LIMITS = Object.freeze({ minSeconds: 3_600, maxSeconds: 31 * 86_400 });

function checkWaitDuration(duration: string | null, path: string, name: string, out: Finding[]): void {
  const seconds = durationSeconds(duration);
  if (seconds === undefined) return;
  const { minSeconds, maxSeconds } = WAIT_DURATION_LIMITS;
  if (seconds < minSeconds || seconds > maxSeconds)
    out.push(
      finding(
        "WAIT_DURATION_OUT_OF_RANGE",
        path,
        `wait step "${name}" waits ${duration}; the service allows from one hour ("3600s") to one month ("${maxSeconds}s")`,
      ),
    );
}

const waitZones = new ZoneCache();

/** A wait until a time of day: hours 0–23, minutes 0–59, a time zone the IANA database names (empty: UTC). */
function checkWaitTime(t: { readonly hours: number; readonly minutes: number; readonly timezone: string }, path: string, name: string, out: Finding[]): void {
  if (!Number.isInteger(t.hours) || t.hours < 0 || t.hours > 23)
    out.push(finding("WAIT_TIME_INVALID", `${path}.hours`, `wait step "${name}" waits until hour ${t.hours}; hours are 0 to 23`));
  if (!Number.isInteger(t.minutes) || t.minutes < 0 || t.minutes > 59)
    out.push(finding("WAIT_TIME_INVALID", `${path}.minutes`, `wait step "${name}" waits until minute ${t.minutes}; minutes are 0 to 59`));
  if (t.timezone !== "" && !waitZones.get(t.timezone).ok)
    out.push(finding("WAIT_TIME_INVALID", `${path}.timezone`, `wait step "${name}" names time zone "${t.timezone}", which is not an IANA time zone (such as "Europe/Paris" or "UTC")`));
}
