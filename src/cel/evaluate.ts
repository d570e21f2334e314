/**
 * Evaluation. World values become CEL values once per task ({@link prepareConditionInput}); each
 * condition then costs one call into cel-js plus a type test of the result. Nothing throws: a
 * failing expression yields a {@link CelRuntimeError} value.
 */
import type { AppEntitlement, AppUser, User } from "../model/directory.js";
import { err, ok, type Result } from "../result.js";
import { CompiledApproverExpression, CompiledCondition, compiledOf, runOfCondition } from "./compile.js";
import { locate, plainRuntimeError, runtimeError, type CelRuntimeError } from "./diagnostics.js";
import type { CelDirectory } from "./directory.js";
import { celEnvironment, type CelEnvironmentKind } from "./environment.js";
import { RUNTIME_KEY, type CelRuntime } from "./extensions.js";
import { parseIp } from "./net.js";
import { CelAccount, CelEntitlement, CelUser, celTask, parseTimestamp, type TaskFacts } from "./values.js";

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
  readonly entitlement: AppEntitlement | null;
  readonly task: TaskFacts | null;
  readonly now: string;
  readonly directory: CelDirectory;
}

// Assigned by the classes' static blocks: the context stays private to this layer.
let contextOfCondition: (p: PreparedConditionInput) => object;
let contextOfApprover: (p: PreparedApproverInput) => object;

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
  readonly #context: object;
  /** @internal */
  constructor(context: object) {
    this.#context = context;
    Object.freeze(this);
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
  readonly #context: object;
  /** @internal */
  constructor(context: object) {
    this.#context = context;
    Object.freeze(this);
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
export function contextOf(p: PreparedConditionInput | PreparedApproverInput): object {
  return p instanceof PreparedConditionInput ? contextOfCondition(p) : contextOfApprover(p);
}

const inputError = (message: string): CelRuntimeError => plainRuntimeError("CEL_INVALID_INPUT", message, "invalid_input");

function common(
  kind: CelEnvironmentKind,
  subject: User,
  task: TaskFacts | null,
  entitlement: AppEntitlement | null,
  now: string,
  directory: CelDirectory,
): Result<Record<string, unknown>, CelRuntimeError> {
  const clock = parseTimestamp(now);
  if (!clock) return err(inputError(`now: not an RFC 3339 timestamp: ${JSON.stringify(now)}`));
  const env = celEnvironment(kind);
  const runtime: CelRuntime = Object.freeze({ now: clock, directory });
  const context: Record<string, unknown> = { [RUNTIME_KEY]: runtime, subject: env.services.users.get(subject, directory) };
  if (task) {
    const t = celTask(task);
    if (!t.ok) return err(inputError(`${t.error.path}: ${t.error.message}`));
    context["task"] = t.value;
  }
  if (entitlement) context["entitlement"] = Object.freeze(new CelEntitlement(entitlement));
  return ok(context);
}

/**
 * Converts a condition input to CEL values once, so that evaluating a task's conditions does not
 * convert it again each time. Fails on malformed data (an unparsable `now`, `ip` or `numericId`).
 *
 * @example
 * ```ts
 * prepareConditionInput({ ...input, ip: "not an ip" }); // { ok: false, error: { code: "CEL_INVALID_INPUT", ... } }
 * ```
 */
export function prepareConditionInput(input: ConditionInput): Result<PreparedConditionInput, CelRuntimeError> {
  try {
    const c = common("condition", input.subject, input.task, input.entitlement, input.now, input.directory);
    if (!c.ok) return c;
    const context = c.value;
    if (input.account) context["account"] = Object.freeze(new CelAccount(input.account));
    if (input.ip !== null && input.ip !== "") {
      const ip = parseIp(input.ip);
      if (!ip) return err(inputError(`ip: not an IP address: ${JSON.stringify(input.ip)}`));
      context["ip"] = ip;
    }
    return ok(new PreparedConditionInput(Object.freeze(context)));
  } catch (e: unknown) {
    return err(inputError(`malformed condition input: ${e instanceof Error ? e.message : String(e)}`));
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
    const c = common("approver", input.subject, input.task, input.entitlement, input.now, input.directory);
    if (!c.ok) return c;
    const context = c.value;
    const users = celEnvironment("approver").services.users;
    context["appOwners"] = Object.freeze(input.appOwners.map((u) => users.get(u, input.directory)));
    return ok(new PreparedApproverInput(Object.freeze(context)));
  } catch (e: unknown) {
    return err(inputError(`malformed approver input: ${e instanceof Error ? e.message : String(e)}`));
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
 * const c = compileCondition("subject.profile.costCenter == 'CC-1'");
 * if (c.ok) evaluateCondition(c.value, prepared); // { ok: false, error: { code: "CEL_NO_SUCH_KEY", ... } } when the key is missing
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
