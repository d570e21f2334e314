/**
 * Evaluation. World values become CEL values once per task ({@link prepareConditionInput}); each
 * condition then costs one call into cel-js plus a type test of the result. Nothing throws: a
 * failing expression yields a {@link CelRuntimeError} value.
 */
import type { AppEntitlement, AppUser, User } from "../model/directory.js";
import { err, ok, type Result } from "../result.js";
import { CompiledApproverExpression, CompiledCondition, compiledOf, runOfCondition } from "./compile.js";
import { COST_LIMIT_KEY, DEFAULT_CEL_COST_LIMIT } from "./cost.js";
import { locate, plainRuntimeError, runtimeError, type CelRuntimeError } from "./diagnostics.js";
import { directoryFromArrays, type CelDirectory } from "./directory.js";
import { celEnvironment, type CelEnvironmentKind } from "./environment.js";
import { RUNTIME_KEY, type CelRuntime } from "./extensions.js";
import { parseIp, type IPAddress } from "./net.js";
import { celAccount, celEntitlement, CelUser, celTask, parseTimestampMs, type CelAccount, type CelEntitlement, type CelTask, type TaskFacts } from "./values.js";

/**
 * What a rule condition is evaluated against: the target user, the task, the requested entitlement,
 * the target's account in its app, the requester's IP address, the simulation clock and the
 * directory. `null` means "not known for this task": reading it is a run-time error, as in the
 * service.
 *
 * @example
 * ```ts
 * const input: ConditionInput = { subject: ada, task: facts, entitlement: admin, account: null, ip: "10.0.0.7",
 *   now: "2026-11-22T09:00:00Z", directory };
 * ```
 */
export interface ConditionInput {
  readonly subject: User;
  readonly task: TaskFacts | null;
  readonly entitlement: AppEntitlement | null;
  readonly account: AppUser | null;
  readonly ip: string | null;
  /** RFC 3339: the value of `now()` for the whole evaluation. */
  readonly now: string;
  readonly directory: CelDirectory;
  /** The cost budget of each evaluation (default {@link DEFAULT_CEL_COST_LIMIT}); see cost.ts. */
  readonly costLimit?: number | undefined;
}

/**
 * What an approver expression is evaluated against.
 *
 * @example
 * ```ts
 * const input: ApproverInput = { subject: ada, appOwners: [ops], entitlement: admin, task: facts,
 *   now: "2026-11-22T09:00:00Z", directory };
 * ```
 */
export interface ApproverInput {
  readonly subject: User;
  readonly appOwners: readonly User[];
  /**
   * `campaignOwners`: the owners of the access review campaign a certify task belongs to (empty,
   * or left out, for any other task).
   */
  readonly campaignOwners?: readonly User[] | undefined;
  readonly entitlement: AppEntitlement | null;
  readonly task: TaskFacts | null;
  /** The target's account in the task's app, as for conditions (left out or `null`: an empty account). */
  readonly account?: AppUser | null | undefined;
  /** The requester's IP address, as for conditions (left out or `null`: none). */
  readonly ip?: string | null | undefined;
  readonly now: string;
  readonly directory: CelDirectory;
  /** The cost budget of each evaluation (default {@link DEFAULT_CEL_COST_LIMIT}). */
  readonly costLimit?: number | undefined;
}

/**
 * Where a traced evaluation finds its recorder in the context (see trace.ts). Not an identifier, so
 * no expression can name it.
 *
 * @example
 * ```ts
 * asScope(scope).getValue(TRACE_KEY);
 * ```
 */
export const TRACE_KEY = "$policy-sim/trace";

/**
 * The variables of one evaluation. One class for every task and both environments, so that every
 * context cel-js reads variables from has the same hidden class (its reads stay monomorphic), and a
 * traced evaluation can take a copy with its recorder added instead of `Object.create(context)`,
 * which would turn each task's context into a prototype. A variable the task has no value for is
 * `undefined`, which cel-js reports as an unknown variable exactly as it does a missing key. The
 * context never leaves this layer (it is held privately by the prepared input).
 *
 * @example
 * ```ts
 * const c = new CelContext(runtime, subject, task, entitlement, undefined, undefined, undefined, undefined, undefined, 1_000_000);
 * ```
 */
export class CelContext {
  readonly [RUNTIME_KEY]: CelRuntime;
  readonly [TRACE_KEY]: unknown;
  readonly [COST_LIMIT_KEY]: number;

  constructor(
    runtime: CelRuntime,
    readonly subject: CelUser | undefined,
    readonly task: CelTask | undefined,
    readonly entitlement: CelEntitlement | undefined,
    readonly account: CelAccount | undefined,
    readonly ip: IPAddress | undefined,
    readonly appOwners: readonly CelUser[] | undefined,
    readonly campaignOwners: readonly CelUser[] | undefined,
    recorder: unknown,
    costLimit: number,
  ) {
    this[RUNTIME_KEY] = runtime;
    this[TRACE_KEY] = recorder;
    this[COST_LIMIT_KEY] = costLimit;
  }

  /** `user`: the policy environments' other name for the subject (environment.ts). */
  get user(): CelUser | undefined {
    return this.subject;
  }

  /** The same variables with a trace recorder. */
  withRecorder(recorder: unknown): CelContext {
    return new CelContext(this[RUNTIME_KEY], this.subject, this.task, this.entitlement, this.account, this.ip, this.appOwners, this.campaignOwners, recorder, this[COST_LIMIT_KEY]);
  }
}

// Assigned by the classes' static blocks: the context stays private to this layer.
let contextOfCondition: (p: PreparedConditionInput) => CelContext;
let contextOfApprover: (p: PreparedApproverInput) => CelContext;

/**
 * A {@link ConditionInput} converted to CEL values, to evaluate every condition of a task against.
 *
 * @example
 * ```ts
 * const prepared = prepareConditionInput(input);
 * if (prepared.ok) for (const c of conditions) evaluateCondition(c, prepared.value);
 * ```
 */
export class PreparedConditionInput {
  readonly #context: CelContext;
  /** @internal */
  constructor(context: CelContext) {
    // Not frozen: its only state is private and read-only, and `Object.freeze` (~50 ns on Node 20)
    // was a fifth of preparing a task's input.
    this.#context = context;
  }
  static {
    contextOfCondition = (p) => p.#context;
  }
}

/**
 * An {@link ApproverInput} converted to CEL values.
 *
 * @example
 * ```ts
 * const prepared = prepareApproverInput(input);
 * ```
 */
export class PreparedApproverInput {
  readonly #context: CelContext;
  /** @internal */
  constructor(context: CelContext) {
    // Not frozen, like PreparedConditionInput: nothing but the private context to protect.
    this.#context = context;
  }
  static {
    contextOfApprover = (p) => p.#context;
  }
}

/**
 * The evaluation context behind a prepared input (for the tracer in this layer).
 *
 * @example
 * ```ts
 * compiledOf(c).run(contextOf(prepared));
 * ```
 */
export function contextOf(p: PreparedConditionInput | PreparedApproverInput): CelContext {
  return p instanceof PreparedConditionInput ? contextOfCondition(p) : contextOfApprover(p);
}

const inputError = (message: string): CelRuntimeError => plainRuntimeError("CEL_INVALID_INPUT", message, "invalid_input");

/**
 * `now` strings already read, as epoch milliseconds (`null`: not a timestamp). Every task of a world
 * shares its clock, so this saves parsing it once per task. Keyed by the text, bounded, and holding
 * numbers (a `Date` is mutable and is made fresh per task): it cannot change a result.
 */
const clocks = new Map<string, number | null>();
const CLOCKS_MAX = 64;

// The clock read last: the same string object for every task of a world, so one comparison.
let lastClock: string | undefined;
let lastClockMs: number | null = null;

function clockOf(now: string): number | undefined {
  // Not a string (a JS caller): parsed as before, and not cached.
  if (typeof now !== "string") return parseTimestampMs(now);
  if (now !== lastClock) {
    let ms = clocks.get(now);
    if (ms === undefined) {
      ms = parseTimestampMs(now) ?? null;
      if (clocks.size >= CLOCKS_MAX) clocks.clear();
      clocks.set(now, ms);
    }
    lastClock = now;
    lastClockMs = ms;
  }
  return lastClockMs ?? undefined;
}

/**
 * One evaluation's runtime. The clock becomes a Date on first read (once per task, and the same Date
 * for every `now()` of the task, as before): most conditions never call `now()`. It only ever
 * reaches the extension functions, through the context (no expression can name it), so it is not
 * frozen: `Object.freeze` costs more than building it.
 */
class TaskRuntime implements CelRuntime {
  readonly #directory: CelDirectory;
  // Epoch milliseconds until first read.
  #now: Date | number;
  constructor(now: number, directory: CelDirectory) {
    this.#now = now;
    this.#directory = directory;
  }
  get directory(): CelDirectory {
    return this.#directory;
  }
  get now(): Date {
    const v = this.#now;
    return typeof v === "number" ? (this.#now = new Date(v)) : v;
  }
}

/** The empty list of users every approver context of a task outside a campaign shares. */
const NO_USERS: readonly CelUser[] = Object.freeze([]);

/**
 * The context of one evaluation, or why the input does not convert: the clock, then the task, then
 * the requester's address are checked, in that order, for both environments.
 */
function contextFrom(
  kind: CelEnvironmentKind,
  subjectUser: User | null,
  facts: TaskFacts | null,
  entitlement: AppEntitlement | null,
  now: string,
  directory: CelDirectory,
  account: AppUser | null,
  ipText: string | null,
  appOwners: readonly User[] | null,
  costLimit: number | undefined,
  campaignOwners: readonly User[] | null = null,
): CelContext | CelRuntimeError {
  // Fields, not the input object: the two environments' inputs have different shapes, and this runs
  // once per task on the decision path.
  const limit = costLimit ?? DEFAULT_CEL_COST_LIMIT;
  if (!(typeof limit === "number" && Number.isSafeInteger(limit) && limit > 0)) {
    return inputError(`costLimit: expected a positive integer, got ${JSON.stringify(costLimit)}`);
  }
  const clock = clockOf(now);
  if (clock === undefined) return inputError(`now: not an RFC 3339 timestamp: ${JSON.stringify(now)}`);
  const users = celEnvironment(kind).services.users;
  // Only a configuration rule has no subject; a missing one elsewhere fails here, as malformed input.
  const subject = kind === "config-rule" ? undefined : users.get(subjectUser as User, directory);
  let task: CelTask | undefined;
  if (facts) {
    const t = celTask(facts);
    if (!t.ok) return inputError(`${t.error.path}: ${t.error.message}`);
    task = t.value;
  }
  let ip: IPAddress | undefined;
  if (ipText !== null && ipText !== "") {
    ip = parseIp(ipText);
    if (!ip) return inputError(`ip: not an IP address: ${JSON.stringify(ipText)}`);
  }
  return new CelContext(
    new TaskRuntime(clock, directory),
    subject,
    task,
    entitlement ? celEntitlement(entitlement) : undefined,
    // No account (null) is an empty one, as a task's is when its target has none in the app: a
    // condition reads no risk score rather than failing (`!("CrowdStrike" in account.risk_score)`).
    celAccount(account ?? NO_ACCOUNT),
    ip,
    appOwners ? Object.freeze(appOwners.map((u) => users.get(u, directory))) : undefined,
    // Approver expressions only; a task that belongs to no campaign has none.
    kind !== "approver" ? undefined : campaignOwners && campaignOwners.length > 0 ? Object.freeze(campaignOwners.map((u) => users.get(u, directory))) : NO_USERS,
    undefined,
    limit,
  );
}

/**
 * Converts a condition input to CEL values once, so that evaluating a task's conditions does not
 * convert it again each time. Fails on malformed data (an unparsable `now`, `ip` or `numericId`).
 *
 * @example
 * ```ts
 * const subject = world.index.users.get("u-dev1")!;
 * const input: ConditionInput = { subject, task: null, entitlement: null, account: null, ip: null, now: "2026-11-22T09:00:00Z", directory: directoryFromArrays({ users: world.users }) };
 * prepareConditionInput(input); // { ok: true, value: PreparedConditionInput }
 * prepareConditionInput({ ...input, ip: "not an ip" }); // { ok: false, error: { code: "CEL_INVALID_INPUT", ... } }
 * ```
 */
export function prepareConditionInput(input: ConditionInput): Result<PreparedConditionInput, CelRuntimeError> {
  const p = preparedConditionInputOrError(input);
  return p instanceof PreparedConditionInput ? ok(p) : err(p);
}

/**
 * {@link prepareConditionInput} without the result wrapper, for the policy layer, which prepares
 * an input per task on the decision path and keeps it as it is.
 *
 * @example
 * ```ts
 * const p = preparedConditionInputOrError(input);
 * if (p instanceof PreparedConditionInput) evaluateCondition(compiled, p);
 * ```
 */
export function preparedConditionInputOrError(input: ConditionInput): PreparedConditionInput | CelRuntimeError {
  try {
    const c = contextFrom("condition", input.subject, input.task, input.entitlement, input.now, input.directory, input.account, input.ip, null, input.costLimit);
    return c instanceof CelContext ? new PreparedConditionInput(c) : c;
  } catch (e: unknown) {
    return inputError(`malformed condition input: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * The account of an input that has none — a task whose target has no account in the app yet (most
 * grant requests): every field empty, so conditions read no risk score and no insight rather than
 * failing (`!("CrowdStrike" in account.risk_score)` is true), as for `subject`.
 */
const NO_ACCOUNT: AppUser = Object.freeze({ id: "", appId: "", identityUserId: "", displayName: "", email: "", username: "", appUserType: "", status: null, profile: Object.freeze({}) });

/**
 * {@link preparedConditionInputOrError} for the policy layer's fast path: the context itself, from
 * the input's fields, without the input object or the prepared wrapper (wrap it in
 * `new PreparedConditionInput(context)` when a full evaluation needs one). Same checks, same errors.
 *
 * @example
 * ```ts
 * const c = conditionContextOrError(subject, facts, entitlement, account, null, now, directory, undefined);
 * if (c instanceof CelContext) plainValue(fast, c);
 * ```
 */
export function conditionContextOrError(
  subject: User,
  task: TaskFacts | null,
  entitlement: AppEntitlement | null,
  account: AppUser | null,
  ip: string | null,
  now: string,
  directory: CelDirectory,
  costLimit: number | undefined,
): CelContext | CelRuntimeError {
  try {
    return contextFrom("condition", subject, task, entitlement, now, directory, account, ip, null, costLimit);
  } catch (e: unknown) {
    return inputError(`malformed condition input: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * Converts an approver input to CEL values once.
 *
 * @example
 * ```ts
 * const p = prepareApproverInput(input);
 * if (p.ok) evaluateApproverExpression(compiled, p.value);
 * ```
 */
export function prepareApproverInput(input: ApproverInput): Result<PreparedApproverInput, CelRuntimeError> {
  try {
    const c = contextFrom(
      "approver",
      input.subject,
      input.task,
      input.entitlement,
      input.now,
      input.directory,
      input.account ?? null,
      input.ip ?? null,
      input.appOwners,
      input.costLimit,
      input.campaignOwners ?? null,
    );
    return c instanceof CelContext ? ok(new PreparedApproverInput(c)) : err(c);
  } catch (e: unknown) {
    return err(inputError(`malformed approver input: ${e instanceof Error ? e.message : String(e)}`));
  }
}

/**
 * What an entitlement configuration rule condition is evaluated against: the entitlement alone
 * (entitlement-config-rules page), and the clock for `now()`.
 *
 * @example
 * ```ts
 * const input: ConfigRuleInput = { entitlement: admin, now: "2026-11-22T09:00:00Z" };
 * ```
 */
export interface ConfigRuleInput {
  readonly entitlement: AppEntitlement;
  /** RFC 3339: the value of `now()`. */
  readonly now: string;
  /** The cost budget of each evaluation (default {@link DEFAULT_CEL_COST_LIMIT}). */
  readonly costLimit?: number | undefined;
}

const NO_DIRECTORY: CelDirectory = directoryFromArrays({});

/**
 * Converts a configuration rule input to CEL values; evaluate conditions compiled for the
 * `"config-rule"` environment against it with {@link evaluateCondition}.
 *
 * @example
 * ```ts
 * const c = compileCondition('entitlement.app_resource_type_id == "group"', "config-rule");
 * const p = prepareConfigRuleInput({ entitlement: admin, now: "2026-11-22T09:00:00Z" });
 * if (c.ok && p.ok) evaluateCondition(c.value, p.value); // { ok: true, value: false }
 * ```
 */
export function prepareConfigRuleInput(input: ConfigRuleInput): Result<PreparedConditionInput, CelRuntimeError> {
  try {
    const c = contextFrom("config-rule", null, null, input.entitlement, input.now, NO_DIRECTORY, null, null, null, input.costLimit);
    return c instanceof CelContext ? ok(new PreparedConditionInput(c)) : err(c);
  } catch (e: unknown) {
    return err(inputError(`malformed configuration rule input: ${e instanceof Error ? e.message : String(e)}`));
  }
}

/**
 * The value of a condition: a bool, or the error that stopped it.
 *
 * @example
 * ```ts
 * const o: ConditionOutcome = { ok: true, value: false };
 * ```
 */
export type ConditionOutcome = Result<boolean, CelRuntimeError>;

const TRUE: ConditionOutcome = Object.freeze({ ok: true, value: true });
const FALSE: ConditionOutcome = Object.freeze({ ok: true, value: false });

/**
 * Turns a raw cel-js result into an outcome (shared with the tracer so both agree).
 *
 * @example
 * ```ts
 * conditionOutcome("true", true); // { ok: true, value: true }
 * ```
 */
export function conditionOutcome(source: string, value: unknown): ConditionOutcome {
  if (value === true) return TRUE;
  if (value === false) return FALSE;
  return err(plainRuntimeError("CEL_NOT_BOOL", `expected a bool but the condition evaluated to a ${describe(value)}`, "not_bool", locate(source, { start: 0, end: source.length })));
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "list";
  if (typeof v === "object") return (v.constructor?.name ?? "map").replace(/^(Object)$/, "map");
  return typeof v === "bigint" ? "int" : typeof v === "number" ? "double" : typeof v;
}

/**
 * Evaluates a compiled condition. Pass a prepared input when evaluating several conditions for one
 * task; a plain {@link ConditionInput} is prepared on the spot.
 *
 * @example
 * ```ts
 * const prepared = prepareConditionInput({ subject, task: null, entitlement: null, account: null, ip: null, now: "2026-11-22T09:00:00Z", directory: directoryFromArrays({ users }) });
 * const c = compileCondition("subject.department == 'Engineering'");
 * if (c.ok && prepared.ok) evaluateCondition(c.value, prepared.value); // { ok: true, value: true } for an engineer
 * ```
 */
export function evaluateCondition(compiled: CompiledCondition, input: PreparedConditionInput | ConditionInput): ConditionOutcome {
  let prepared: PreparedConditionInput;
  if (input instanceof PreparedConditionInput) prepared = input;
  else {
    const p = prepareConditionInput(input);
    if (!p.ok) return p;
    prepared = p.value;
  }
  let value: unknown;
  try {
    value = runOfCondition(compiled)(contextOfCondition(prepared));
  } catch (e: unknown) {
    // Also catches a `compiled` that is not one (JS callers): the accessor throws inside the try.
    return err(runtimeError(compiled instanceof CompiledCondition ? compiled.source : "", e));
  }
  return value === true ? TRUE : value === false ? FALSE : conditionOutcome(compiled.source, value);
}

/**
 * What {@link evaluateCondition} tries first, taken out once per compiled condition for a caller
 * that evaluates it against many contexts (a selection, rule after rule): the closures the
 * condition compiled to (closures.ts), under the budget the context carries.
 *
 * @example
 * ```ts
 * const fast = plainRunOf(compiled); // undefined when the condition runs interpreted
 * ```
 */
export interface PlainRun {
  readonly run: (context: object) => unknown;
}

/**
 * The plain run of a compiled condition, or `undefined` when it has none (it runs on cel-js).
 *
 * @example
 * ```ts
 * const fast = plainRunOf(compiled);
 * const v = fast ? plainValue(fast, context) : undefined; // true, false, or undefined: evaluate in full
 * ```
 */
export function plainRunOf(compiled: CompiledCondition): PlainRun | undefined {
  const plain = compiledOf(compiled).plain;
  return plain ? Object.freeze({ run: plain }) : undefined;
}

/**
 * A condition's value on its plain path: `true` or `false` exactly when {@link evaluateCondition}
 * would give that value, `undefined` whenever anything else might happen (the closures leave their
 * plain path, the budget runs out, the value is not a bool) — the caller then evaluates in full,
 * which decides as if this had never run (evaluation is pure, and the full run starts its budget
 * afresh). It is what the metered run tries first (compile.ts), without the wrapping around it.
 *
 * @example
 * ```ts
 * const v = plainValue(fast, contextOf(prepared));
 * const outcome = v === undefined ? evaluateCondition(compiled, prepared) : { ok: true, value: v };
 * ```
 */
export function plainValue(plain: PlainRun, context: CelContext): boolean | undefined {
  try {
    const v = plain.run(context);
    return v === true ? true : v === false ? false : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Turns an approver expression's raw value into user ids (shared with tests and tools).
 *
 * @example
 * ```ts
 * approverIds("appOwners", [owner]); // { ok: true, value: ["u-owner"] }
 * ```
 */
export function approverIds(source: string, value: unknown): Result<readonly string[], CelRuntimeError> {
  if (value instanceof CelUser) return ok([value.id]);
  if (Array.isArray(value)) {
    const ids: string[] = [];
    const seen = new Set<string>();
    for (const u of value) {
      if (!(u instanceof CelUser)) {
        return err(plainRuntimeError("CEL_NOT_USERS", `expected a list of Users but it holds a ${describe(u)}`, "not_users", locate(source, { start: 0, end: source.length })));
      }
      if (!seen.has(u.id)) {
        seen.add(u.id);
        ids.push(u.id);
      }
    }
    return ok(ids);
  }
  return err(plainRuntimeError("CEL_NOT_USERS", `expected a User or a list of Users but got a ${describe(value)}`, "not_users", locate(source, { start: 0, end: source.length })));
}

/**
 * Evaluates an approver expression to the ids of the users it names (duplicates removed, order
 * kept). An empty list is a value, not an error: the caller applies the step's fallback.
 *
 * @example
 * ```ts
 * const e = compileApproverExpression("c1.directory.users.v1.GetManagers(subject)");
 * if (e.ok) evaluateApproverExpression(e.value, input); // { ok: true, value: ["u-bob"] }
 * ```
 */
export function evaluateApproverExpression(
  compiled: CompiledApproverExpression,
  input: PreparedApproverInput | ApproverInput,
): Result<readonly string[], CelRuntimeError> {
  let prepared: PreparedApproverInput;
  if (input instanceof PreparedApproverInput) prepared = input;
  else {
    const p = prepareApproverInput(input);
    if (!p.ok) return p;
    prepared = p.value;
  }
  let value: unknown;
  try {
    value = compiledOf(compiled).run(contextOfApprover(prepared));
  } catch (e: unknown) {
    return err(runtimeError(compiled instanceof CompiledApproverExpression ? compiled.source : "", e));
  }
  return approverIds(compiled.source, value);
}
