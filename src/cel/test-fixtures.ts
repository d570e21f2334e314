/**
 * A small tenant for the CEL tests: a few users with managers, an app with entitlements and grants,
 * a group, an account. Not part of the public API.
 */
import type { App, AppEntitlement, AppUser, Grant, Group, User } from "../model/directory.js";
import { directoryFromArrays, type CelDirectory } from "./directory.js";
import type { ConditionInput } from "./evaluate.js";
import type { TaskFacts } from "./values.js";

/**
 * A user with every field empty except those given.
 *
 * @example
 * ```ts
 * makeUser({ id: "u-x", email: "x@example.com" }).department; // ""
 * ```
 */
export function makeUser(fields: Partial<User> & { readonly id: string }): User {
  return {
    email: "",
    emails: [],
    displayName: "",
    username: "",
    usernames: [],
    department: "",
    jobTitle: "",
    employmentType: "",
    employmentStatus: "",
    status: "ENABLED",
    directoryStatus: "ENABLED",
    type: "USER_TYPE_HUMAN",
    managerIds: [],
    profile: {},
    attributes: {},
    roleIds: [],
    delegatedUserId: "",
    ...fields,
  };
}

/**
 * An entitlement with every field empty except those given.
 *
 * @example
 * ```ts
 * makeEntitlement({ id: "e", appId: "a" }).grantPolicyId; // ""
 * ```
 */
export function makeEntitlement(fields: Partial<AppEntitlement> & { readonly id: string; readonly appId: string }): AppEntitlement {
  return {
    displayName: "",
    appResourceTypeId: "",
    appResourceId: "",
    grantPolicyId: "",
    revokePolicyId: "",
    certifyPolicyId: "",
    emergencyGrantEnabled: false,
    emergencyGrantPolicyId: "",
    overrideAccessRequestsDefaults: false,
    riskLevelValueId: "",
    requestSchemaId: "",
    ownerUserIds: [],
    annotations: {},
    ...fields,
  };
}

/** Ada (Engineering, reports to Bob), Bob (manages Ada and Cy), Cy (contractor), Dee (service account, disabled). */
const ada = makeUser({
  id: "u-ada",
  email: "ada@northwind.example",
  emails: ["ada@northwind.example", "ada.l@northwind.example"],
  displayName: "Ada Lovelace",
  username: "ada",
  usernames: ["ada", "alovelace"],
  department: "Engineering",
  jobTitle: "Staff Engineer",
  employmentType: "Full Time",
  employmentStatus: "Active",
  status: "ENABLED",
  directoryStatus: "USER_STATUS_ENABLED",
  type: "USER_TYPE_HUMAN",
  managerIds: ["u-bob"],
  profile: { costCenter: "CC-100", level: 5, clearance: "secret", hire_date: "2026-11-01", tags: ["oncall", "sre"] },
  attributes: { contractor: "false", region: "emea" },
});

/** Bob, Ada's and Cy's manager. */
const bob = makeUser({
  id: "u-bob",
  email: "bob@northwind.example",
  displayName: "Bob Babbage",
  username: "bob",
  department: "Engineering Management",
  jobTitle: "Director",
});

/** Cy, a contractor reporting to Bob. */
const cy = makeUser({
  id: "u-cy",
  email: "cy@contract.northwind.example",
  displayName: "Cy Contractor",
  username: "cy",
  department: "Engineering",
  employmentType: "Contractor",
  managerIds: ["u-bob"],
});

/** Dee, a disabled service account with no manager. */
const dee = makeUser({ id: "u-dee", email: "dee@northwind.example", username: "dee", status: "DISABLED", type: "USER_TYPE_SERVICE" });

/** The AWS app, owned by Bob. */
const aws: App = {
  id: "app-aws",
  displayName: "AWS",
  grantPolicyId: "",
  revokePolicyId: "",
  certifyPolicyId: "",
  ownerUserIds: ["u-bob"],
  revokeGrantSources: false,
  isManuallyManaged: false,
};

/** AWS admin: held by Ada directly, owned by Bob. */
const awsAdmin = makeEntitlement({
  id: "ent-admin",
  appId: "app-aws",
  displayName: "Admin",
  appResourceTypeId: "rt-role",
  riskLevelValueId: "risk-high",
  ownerUserIds: ["u-bob"],
});

/** AWS read-only: held by Cy through enrollment and Dee through automatic enrollment. */
const awsReadOnly = makeEntitlement({ id: "ent-ro", appId: "app-aws", displayName: "ReadOnly" });

/** Grants of the test tenant. */
const grants: readonly Grant[] = [
  { appId: "app-aws", appEntitlementId: "ent-admin", identityUserId: "u-ada", source: "direct" },
  { appId: "app-aws", appEntitlementId: "ent-ro", identityUserId: "u-cy", source: "enrollment" },
  { appId: "app-aws", appEntitlementId: "ent-ro", identityUserId: "u-dee", source: "automatic-enrollment" },
];

/** The on-call group. */
const oncall: Group = { id: "g-oncall", appId: "app-pd", displayName: "On-call", memberUserIds: ["u-ada"] };

/** Ada's AWS account. */
const adaAws: AppUser = {
  id: "au-ada",
  appId: "app-aws",
  identityUserId: "u-ada",
  displayName: "ada",
  email: "ada@northwind.example",
  username: "ada",
  appUserType: "APP_USER_TYPE_USER",
  status: { status: "APP_USER_STATUS_ENABLED", details: "synced" },
  profile: { arn: "arn:aws:iam::1:user/ada" },
};

/** The test directory. */
const directory: CelDirectory = directoryFromArrays({
  users: [ada, bob, cy, dee],
  groups: [oncall],
  grants,
  apps: [aws],
  entitlements: [awsAdmin, awsReadOnly],
  appUsers: [adaAws],
});

/** A grant task for Ada. */
const facts: TaskFacts = {
  id: "t-1",
  numericId: "1001",
  displayName: "Grant AWS Admin to Ada",
  origin: "TASK_ORIGIN_WEBAPP",
  isGrantPermanent: false,
  grantDuration: "7200s",
  subjectUserId: "u-ada",
  requestorUserId: "u-bob",
  createdAt: "2026-11-22T08:30:00Z",
  analysis: { id: "an-1", hasConflictViolations: true, conflictViolations: ["conflict-1"] },
};

/** Sunday 2026-11-22 09:00 UTC: 04:00 in New York, 10:00 in Berlin. */
const NOW = "2026-11-22T09:00:00Z";

/**
 * The condition input for Ada's grant task.
 *
 * @example
 * ```ts
 * prepareConditionInput(adaInput({ ip: null }));
 * ```
 */
export function adaInput(over: Partial<ConditionInput> = {}): ConditionInput {
  return { subject: ada, task: facts, entitlement: awsAdmin, account: adaAws, ip: "10.1.2.3", now: NOW, directory, ...over };
}

/**
 * The test tenant: users, app, entitlements, grants, group, account, task facts, clock, directory.
 *
 * @example
 * ```ts
 * tenant.directory.userById("u-ada")?.email; // "ada@northwind.example"
 * ```
 */
export const tenant = Object.freeze({ ada, bob, cy, dee, aws, awsAdmin, awsReadOnly, grants, oncall, adaAws, directory, facts, NOW });

const range = (n: number): string => `[${Array.from({ length: n }, (_, i) => i).join(", ")}]`;

/** Issue 15's first hostile condition: three nested `.all()` over 1,000-element lists (about 12 KB of CEL; 10^9 iterations). */
export const NESTED_ALL = `${range(1000)}.all(x, ${range(1000)}.all(y, ${range(1000)}.all(z, x + y + z >= 0)))`;

/** Issue 15's second: a nested `.map()` whose result would hold 10^9 items. */
export const NESTED_MAP = `${range(1000)}.map(x, ${range(1000)}.map(y, ${range(1000)}.map(z, z))).size() > 0`;

/** The comprehension macros, for generated costly conditions. */
export type LoopMacro = "all" | "exists" | "exists_one" | "map" | "filter";

/**
 * A condition of nested comprehensions, outermost first: `[["all", 400], ["map", 300]]` loops 400
 * times over a loop of 300. Always well-typed and bool.
 */
export function nestedLoops(levels: readonly (readonly [LoopMacro, number])[]): string {
  let body = "true";
  [...levels].reverse().forEach(([macro, n], i) => {
    const v = `v${levels.length - 1 - i}`;
    const inner = macro === "map" ? `${body} ? ${v} : 0` : body;
    const loop = `${range(n)}.${macro}(${v}, ${inner})`;
    body = macro === "map" || macro === "filter" ? `${loop}.size() >= 0` : `(${loop} || true)`;
  });
  return body;
}

/**
 * Subjects whose profiles hold every JSON kind, and users with empty or odd fields: the inputs the
 * differential tests evaluate every expression on.
 *
 * @example
 * ```ts
 * variedSubjects.map((subject) => adaInput({ subject }));
 * ```
 */
export const variedSubjects: readonly User[] = [
  tenant.ada,
  tenant.bob,
  tenant.cy,
  tenant.dee,
  makeUser({ id: "u-p1", department: "Security", employmentType: "Contractor", email: "p1@synthetic.example", profile: { clearance: "high", level: 4, flag: true, nested: { city: "Oslo" }, none: null } }),
  makeUser({ id: "u-p2", department: "Engineering", profile: { clearance: 3, level: "4" }, managerIds: ["u-ada", "u-bob"] }),
  makeUser({ id: "u-p3", department: "", profile: {} }),
];
