/**
 * The floor: bare evaluation of the same precompiled conditions with the CEL library alone.
 *
 * Comparable by construction:
 * - same conditions: the exact source strings of the policy's rules, compiled once up front
 *   (`Environment.parse` + `check()`, so cel-js's type-checked fast path is taken, as ours is);
 * - an environment with equivalent declared variables: `subject: User`, `entitlement: Entitlement`
 *   as message types with the same field types as ours (`string`, `list<string>`,
 *   `map<string, dyn>` for `profile`), backed by plain classes;
 * - the same values: each task's subject and entitlement are copied from the world's directory
 *   objects (same strings, same profile object) into instances of those classes, once per task,
 *   before timing — what `prepareConditionInput` does once per task on our side;
 * - no adapter: no compile-cache lookup, no result objects, no audit records, no try/catch.
 *
 * A second, "raw" floor calls the very function our adapter calls (`compiledOf(c).run`) on our own
 * prepared context: it isolates the adapter's overhead from any difference between our CEL
 * environment and a bare one.
 */
import { Environment } from "@marcbachmann/cel-js";
import { compileCondition, compiledOf, type CompiledCondition } from "../src/cel/compile.js";
import { contextOf, prepareConditionInput, type ConditionInput, type PreparedConditionInput } from "../src/cel/evaluate.js";
import type { AppEntitlement, User } from "../src/model/directory.js";
import type { JsonObject } from "../src/model/json.js";
import type { HandSubject } from "./worlds.js";
import type { Task } from "../src/model/index.js";
import { taskSubjectId } from "../src/model/task-refs.js";
import { taskFacts } from "../src/policy/task-conditions.js";
import { celDirectoryOf } from "../src/world/cel-directory.js";
import { findEntitlement, type World } from "../src/world/world.js";

/** `User` as the bare environment sees it: the fields portable conditions read. */
class BareUser {
  readonly id: string;
  readonly email: string;
  readonly emails: readonly string[];
  readonly department: string;
  readonly employmentType: string;
  readonly jobTitle: string;
  readonly managerIds: readonly string[];
  readonly profile: JsonObject;
  constructor(u: User) {
    this.id = u.id;
    this.email = u.email;
    this.emails = u.emails;
    this.department = u.department;
    this.employmentType = u.employmentType;
    this.jobTitle = u.jobTitle;
    this.managerIds = u.managerIds;
    this.profile = u.profile;
  }
}

/** `Entitlement` as the bare environment sees it. */
class BareEntitlement {
  readonly id: string;
  readonly appId: string;
  readonly displayName: string;
  readonly riskLevelValueId: string;
  constructor(e: AppEntitlement) {
    this.id = e.id;
    this.appId = e.appId;
    this.displayName = e.displayName;
    this.riskLevelValueId = e.riskLevelValueId;
  }
}

let bareEnv: Environment | undefined;

/** The bare cel-js environment, built once. */
export function bareEnvironment(): Environment {
  bareEnv ??= new Environment()
    .registerType("User", {
      ctor: BareUser,
      fields: {
        id: "string",
        email: "string",
        emails: "list<string>",
        department: "string",
        employmentType: "string",
        jobTitle: "string",
        managerIds: "list<string>",
        profile: "map<string, dyn>",
      },
    })
    .registerType("Entitlement", {
      ctor: BareEntitlement,
      fields: { id: "string", appId: "string", displayName: "string", riskLevelValueId: "string" },
    })
    .registerVariable("subject", "User")
    .registerVariable("entitlement", "Entitlement");
  return bareEnv;
}

/** A precompiled cel-js function. */
export type BareFn = (context: object) => unknown;

/** Parses and type-checks `sources` in the bare environment; fails loudly if one is not bool. */
export function bareCompile(sources: readonly string[]): BareFn[] {
  const env = bareEnvironment();
  return sources.map((s) => {
    const parsed = env.parse(s);
    const checked = parsed.check();
    if (!checked.valid || checked.type !== "bool") throw new Error(`floor: ${s} does not check as bool: ${String(checked.error)}`);
    return parsed as BareFn;
  });
}

/** The bare context of a task: its subject and entitlement as the bare classes. */
export function bareContext(world: World, task: Task): object {
  const subject = world.index.users.get(taskSubjectId(task));
  const t = task.type;
  const ent = t && t.kind === "grant" ? findEntitlement(world, t.appId, t.appEntitlementId) : undefined;
  if (!subject || !ent) throw new Error(`floor: task ${task.id} has no subject or entitlement`);
  return { subject: new BareUser(subject), entitlement: new BareEntitlement(ent) };
}

/** Our compiled handles for `sources`. */
export function compiledHandles(sources: readonly string[]): CompiledCondition[] {
  return sources.map((s) => {
    const c = compileCondition(s);
    if (!c.ok) throw new Error(`raw floor: ${s} does not compile: ${c.error[0]?.message ?? ""}`);
    return c.value;
  });
}

/** Our compiled functions for `sources` (the raw floor): the cel-js functions our adapter calls. */
export function rawCompile(sources: readonly string[]): BareFn[] {
  return compiledHandles(sources).map((c) => compiledOf(c).run);
}

/** A task's condition input, as `taskConditions` gathers it (ip and account as it finds them). */
export function conditionInput(world: World, task: Task): ConditionInput {
  const subject = world.index.users.get(taskSubjectId(task));
  const t = task.type;
  if (!subject || !t || t.kind !== "grant") throw new Error(`raw floor: task ${task.id} is not a grant with a subject`);
  const entitlement = findEntitlement(world, t.appId, t.appEntitlementId) ?? null;
  const account = world.index.appUsers.get(t.appUserId) ?? world.index.appUserByUserAndApp.get(`${subject.id}\u0000${t.appId}`) ?? null;
  return { subject, task: taskFacts(task), entitlement, account, ip: null, now: world.now, directory: celDirectoryOf(world) };
}

/** Our prepared input of a task. */
export function preparedInput(world: World, task: Task): PreparedConditionInput {
  const p = prepareConditionInput(conditionInput(world, task));
  if (!p.ok) throw new Error(`raw floor: ${p.error.message}`);
  return p.value;
}

/** Our prepared context of a task (the raw floor's input): what our adapter hands cel-js. */
export function rawContext(world: World, task: Task): object {
  return contextOf(preparedInput(world, task));
}

/**
 * Evaluates every function against one context: the floor of selecting steps for one task whose
 * policy's last rule matches. Returns how many were true, so the work is observable.
 */
export function evaluateAll(fns: readonly BareFn[], context: object): number {
  let n = 0;
  for (let i = 0; i < fns.length; i++) if ((fns[i] as BareFn)(context) === true) n++;
  return n;
}

/** A task's subject and entitlement risk, as the hand-written rules read them. */
export interface HandContext {
  readonly subject: HandSubject;
  readonly risk: string;
}

/** The hand-written floor's context of a task: the world's own user object and the risk level. */
export function handContext(world: World, task: Task): HandContext {
  const subject = world.index.users.get(taskSubjectId(task));
  const t = task.type;
  const ent = t && t.kind === "grant" ? findEntitlement(world, t.appId, t.appEntitlementId) : undefined;
  if (!subject || !ent) throw new Error(`hand floor: task ${task.id} has no subject or entitlement`);
  return { subject, risk: ent.riskLevelValueId };
}

/** Index of the first rule that matches, -1 for none: hand-written JavaScript. */
export function firstMatchHand(rules: readonly ((s: HandSubject, risk: string) => boolean)[], c: HandContext): number {
  for (let i = 0; i < rules.length; i++) if ((rules[i] as (s: HandSubject, risk: string) => boolean)(c.subject, c.risk)) return i;
  return -1;
}

/** Index of the first condition that is true, -1 for none: bare cel-js, as first-match selection runs it. */
export function firstMatchBare(fns: readonly BareFn[], context: object): number {
  for (let i = 0; i < fns.length; i++) if ((fns[i] as BareFn)(context) === true) return i;
  return -1;
}
