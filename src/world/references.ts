/**
 * Every id a world file refers to must resolve. This walks the directory, the tenant settings and
 * the tasks and reports each id that does not, with its JSON path. Policy-internal references (rule
 * step keys, `policyId`, `baselinePolicyId`) are not load errors: a world with a broken policy must
 * still load so that `explain` and `lintPolicy` can say what is wrong with it.
 */
import type {
  AccessReview,
  App,
  AppEntitlement,
  AppUser,
  Grant,
  Group,
  ResourceTypeDefault,
  User,
} from "../model/directory.js";
import type { Task } from "../model/index.js";
import { type Diagnostic, pathIndex, pathKey } from "./read.js";
import { entitlementKey, type Tenant, type WorldIndex } from "./world.js";

interface Parts {
  readonly index: WorldIndex;
  readonly users: readonly User[];
  readonly apps: readonly App[];
  readonly entitlements: readonly AppEntitlement[];
  readonly appUsers: readonly AppUser[];
  readonly groups: readonly Group[];
  readonly grants: readonly Grant[];
  readonly resourceTypeDefaults: readonly ResourceTypeDefault[];
  readonly accessReviews: readonly AccessReview[];
  readonly tenant: Tenant;
  readonly tokens: Readonly<Record<string, string>>;
  readonly tasks: readonly Task[];
}

type Kind = "user" | "role" | "app" | "policy" | "app user" | "access review";

export function checkReferences(p: Parts): Diagnostic[] {
  const out: Diagnostic[] = [];
  const { index } = p;
  const maps: Record<Kind, ReadonlyMap<string, unknown>> = {
    user: index.users,
    role: index.roles,
    app: index.apps,
    policy: index.policies,
    "app user": index.appUsers,
    "access review": index.accessReviews,
  };
  /** Checks one id; an empty id means "not set" and is not a reference. */
  const ref = (kind: Kind, id: string, path: string): void => {
    if (id && !maps[kind].has(id))
      out.push({ code: "DANGLING_REFERENCE", path, message: `${kind} "${id}" does not exist in this world` });
  };
  const refs = (kind: Kind, ids: readonly string[] | null, path: string): void =>
    (ids ?? []).forEach((id, i) => ref(kind, id, pathIndex(path, i)));
  const entitlement = (appId: string, id: string, path: string): void => {
    if (appId && id && !index.entitlements.has(entitlementKey(appId, id)))
      out.push({ code: "DANGLING_REFERENCE", path, message: `entitlement "${id}" of app "${appId}" does not exist in this world` });
  };

  p.users.forEach((u, i) => {
    const at = pathIndex("$.users", i);
    refs("user", u.managerIds, `${at}.managerIds`);
    refs("role", u.roleIds, `${at}.roleIds`);
    ref("user", u.delegatedUserId, `${at}.delegatedUserId`);
  });
  p.apps.forEach((a, i) => {
    const at = pathIndex("$.apps", i);
    refs("user", a.ownerUserIds, `${at}.ownerUserIds`);
    ref("policy", a.grantPolicyId, `${at}.grantPolicyId`);
    ref("policy", a.revokePolicyId, `${at}.revokePolicyId`);
    ref("policy", a.certifyPolicyId, `${at}.certifyPolicyId`);
  });
  p.entitlements.forEach((e, i) => {
    const at = pathIndex("$.entitlements", i);
    ref("app", e.appId, `${at}.appId`);
    ref("policy", e.grantPolicyId, `${at}.grantPolicyId`);
    ref("policy", e.revokePolicyId, `${at}.revokePolicyId`);
    ref("policy", e.certifyPolicyId, `${at}.certifyPolicyId`);
    ref("policy", e.emergencyGrantPolicyId, `${at}.emergencyGrantPolicyId`);
    refs("user", e.ownerUserIds, `${at}.ownerUserIds`);
  });
  p.appUsers.forEach((a, i) => {
    const at = pathIndex("$.appUsers", i);
    ref("app", a.appId, `${at}.appId`);
    ref("user", a.identityUserId, `${at}.identityUserId`);
  });
  p.groups.forEach((g, i) => {
    const at = pathIndex("$.groups", i);
    ref("app", g.appId, `${at}.appId`);
    refs("user", g.memberUserIds, `${at}.memberUserIds`);
  });
  p.grants.forEach((g, i) => {
    const at = pathIndex("$.grants", i);
    ref("app", g.appId, `${at}.appId`);
    entitlement(g.appId, g.appEntitlementId, `${at}.appEntitlementId`);
    ref("user", g.identityUserId, `${at}.identityUserId`);
  });
  p.resourceTypeDefaults.forEach((d, i) => {
    const at = pathIndex("$.resourceTypeDefaults", i);
    ref("app", d.appId, `${at}.appId`);
    ref("policy", d.requestPolicyId, `${at}.requestPolicyId`);
  });
  p.accessReviews.forEach((r, i) => {
    ref("policy", r.policyId, `${pathIndex("$.accessReviews", i)}.policyId`);
    refs("user", r.ownerUserIds ?? null, `${pathIndex("$.accessReviews", i)}.ownerUserIds`);
  });
  for (const [kind, id] of Object.entries(p.tenant.defaultPolicies))
    ref("policy", id, pathKey("$.tenant.defaultPolicies", kind));
  for (const [token, id] of Object.entries(p.tokens)) ref("user", id, pathKey("$.tokens", token));

  p.tasks.forEach((t, i) => {
    const at = pathIndex("$.tasks", i);
    ref("user", t.userId, `${at}.userId`);
    ref("user", t.createdByUserId, `${at}.createdByUserId`);
    refs("user", t.approverIds, `${at}.approverIds`);
    refs("user", t.stepApproverIds, `${at}.stepApproverIds`);
    const type = t.type;
    if (!type) return;
    const tp = `${at}.type.${type.kind === "unknown" ? type.key : type.kind}`;
    switch (type.kind) {
      case "grant":
      case "revoke":
      case "certify":
        ref("app", type.appId, `${tp}.appId`);
        entitlement(type.appId, type.appEntitlementId, `${tp}.appEntitlementId`);
        ref("user", type.identityUserId, `${tp}.identityUserId`);
        ref("app user", type.appUserId, `${tp}.appUserId`);
        if (type.kind === "certify") ref("access review", type.accessReviewId, `${tp}.accessReviewId`);
        break;
      case "offboarding":
        ref("user", type.subjectUserId, `${tp}.subjectUserId`);
        break;
      case "action":
      case "finding":
      case "unknown":
        break;
      default: {
        const never: never = type;
        return never;
      }
    }
  });
  return out;
}
