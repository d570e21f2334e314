/**
 * What part of its input a rule condition can see, and a text that stands for exactly that part.
 *
 * A condition is a function of its input (`subject`, `task`, `entitlement`, `account`, `ip`) and of
 * the world around it (directory, grants, clock), which is the same for every task of one world.
 * Most conditions read a few fields of the input — `subject.department`, `entitlement.riskLevelValueId`,
 * `subject.profile["clearance"]` — and two tasks that agree on those fields get the same result from
 * it, whoever they are. {@link conditionInputPaths} finds, on the checked AST, every path into the
 * input a condition selects, or says that it uses an input variable some other way (passes `subject`
 * to a function, binds a comprehension variable of that name, …), in which case nothing is claimed.
 * {@link InputSignatures} gives a task's prepared input a number that is the same for two inputs
 * only if every one of the values at such paths is the same. What-if uses it to
 * evaluate a policy's conditions once per distinct signature instead of once per task.
 */
import { compiledOf, compileCondition } from "./compile.js";
import { type CelContext, contextOf, type PreparedConditionInput } from "./evaluate.js";
import { type CelNode, qualifiedName } from "./internals.js";

/**
 * A path into a condition's input: an input variable and the fields selected from it in order,
 * `["subject", "profile", "clearance"]` for `subject.profile.clearance` or `subject.profile["clearance"]`.
 *
 * @example
 * ```ts
 * const p: InputPath = ["entitlement", "riskLevelValueId"];
 * ```
 */
export type InputPath = readonly string[];

/**
 * The condition environment's input variables, prepared per task; every other name a condition can
 * use is a constant (`UserStatus`, `USER_STATUS_ENABLED`, …), the same for every task. A test keeps
 * this list and the environment's declarations in step: a variable missing here would be read
 * without being part of the signature.
 *
 * @example
 * ```ts
 * CONDITION_INPUT_VARIABLES.has("subject"); // true
 * ```
 */
export const CONDITION_INPUT_VARIABLES: ReadonlySet<string> = new Set(["subject", "user", "task", "entitlement", "account", "ip"]);

function isNode(x: unknown): x is CelNode {
  return typeof x === "object" && x !== null && "op" in x && "args" in x;
}

/** Every node with its parent, depth first. */
function* nodesWithParents(root: CelNode): Generator<readonly [CelNode, CelNode | null]> {
  const stack: [CelNode, CelNode | null][] = [[root, null]];
  while (stack.length > 0) {
    const top = stack.pop();
    if (!top) break;
    yield top;
    for (const child of childrenOf(top[0])) stack.push([child, top[0]]);
  }
}

/**
 * Every node directly below `node`, comprehension variables included (unlike
 * `syntacticChildren`, which the rewriting pass uses, this must not miss an identifier).
 */
function childrenOf(node: CelNode): CelNode[] {
  const out: CelNode[] = [];
  const visit = (x: unknown): void => {
    if (isNode(x)) out.push(x);
    else if (Array.isArray(x)) for (const y of x) visit(y);
  };
  if (node.op !== "value" && node.op !== "id") visit(node.args);
  return out;
}

/**
 * The path a selection chain spells from `id` upwards, following `parentOf`: field selections
 * (`a.b`) and indexes by a string literal (`a["b"]`).
 */
function pathFrom(id: CelNode, name: string, parentOf: Map<CelNode, CelNode | null>): string[] {
  const path = [name];
  let node = id;
  for (;;) {
    const parent = parentOf.get(node);
    if (!parent || !Array.isArray(parent.args) || parent.args[0] !== node) return path;
    const a = parent.args;
    if (parent.op === "." && typeof a[1] === "string") path.push(a[1]);
    else if (parent.op === "[]" && isNode(a[1]) && a[1].op === "value" && typeof a[1].args === "string") path.push(a[1].args);
    else return path;
    node = parent;
  }
}

/**
 * The functions that take a whole User and what they read of it: the `c1.user.v1` functions look
 * up grants and accounts by the user's id, `GetManagers` and `DirectReports` follow `managerIds`
 * and the reports of the id (extensions.ts). Everything else they read is the world's. Handed
 * `subject` itself, they see no more of the task's input than these fields.
 */
const USER_ARGUMENT_READS: ReadonlyMap<string, readonly string[]> = new Map([
  ["c1.user.v1.HasApp", ["id"]],
  ["c1.user.v1.HasEntitlement", ["id"]],
  ["c1.user.v1.GetAppUserStatus", ["id"]],
  ["c1.user.v1.GrantedFromEnrollment", ["id"]],
  ["c1.user.v1.AutomaticallyGrantedFromEnrollment", ["id"]],
  ["c1.directory.users.v1.GetManagers", ["id", "managerIds"]],
  ["c1.directory.users.v1.DirectReports", ["id", "managerIds"]],
]);

/** The fields of `subject` a call reads when `id` (the bare variable) is one of its arguments, or `undefined`. */
function userArgumentReads(id: CelNode, parent: CelNode | null | undefined): readonly string[] | undefined {
  if ((id.args !== "subject" && id.args !== "user") || !parent || parent.op !== "rcall" || !Array.isArray(parent.args)) return undefined;
  const [name, receiver, args] = parent.args as unknown[];
  if (typeof name !== "string" || !isNode(receiver) || !Array.isArray(args) || !args.includes(id)) return undefined;
  const q = qualifiedName(receiver);
  return q === undefined ? undefined : USER_ARGUMENT_READS.get(`${q}.${name}`);
}

function pathsOf(root: CelNode): InputPath[] | null {
  const inputs = CONDITION_INPUT_VARIABLES;
  const parentOf = new Map<CelNode, CelNode | null>();
  const ids: CelNode[] = [];
  for (const [node, parent] of nodesWithParents(root)) {
    parentOf.set(node, parent);
    if (node.op === "id" && typeof node.args === "string" && inputs.has(node.args)) ids.push(node);
  }
  const out: InputPath[] = [];
  const seen = new Set<string>();
  const add = (path: string[]): void => {
    const key = path.join("\u0000");
    if (!seen.has(key)) {
      seen.add(key);
      out.push(Object.freeze(path));
    }
  };
  for (const id of ids) {
    const name = id.args as string;
    const path = pathFrom(id, name, parentOf);
    if (path.length > 1) {
      add(path);
      continue;
    }
    // The variable itself, not a field of it: an argument of a function known to read only some
    // of its fields, or else handed elsewhere, compared whole, or a comprehension variable of the
    // same name. Its identity may matter then; claim nothing.
    const fields = userArgumentReads(id, parentOf.get(id));
    if (!fields) return null;
    for (const f of fields) add([name, f]);
  }
  return out;
}

const memo = new Map<string, readonly InputPath[] | null>();
const MEMO_MAX = 10_000;

/**
 * The paths into its input a rule condition selects, once per source text; `null` when it uses an
 * input variable other than by selecting fields from it (then its result may depend on more than
 * any list of paths says). A condition that does not compile reads nothing: it fails the same way
 * for every input, `[]`.
 *
 * @example
 * ```ts
 * conditionInputPaths('subject.department == "IT" && entitlement.riskLevelValueId == "high"');
 * // [["subject", "department"], ["entitlement", "riskLevelValueId"]]  (in some order)
 * conditionInputPaths("c1.directory.users.v1.GetManagers(subject).size() > 0"); // null
 * ```
 */
export function conditionInputPaths(source: string): readonly InputPath[] | null {
  let r = memo.get(source);
  if (r === undefined) {
    const c = compileCondition(source);
    r = c.ok ? pathsOf(compiledOf(c.value).root) : [];
    if (r) Object.freeze(r);
    if (memo.size >= MEMO_MAX) memo.clear();
    memo.set(source, r);
  }
  return r;
}

const MISSING = Symbol("missing");
const MINUS_ZERO = Symbol("-0");
const MAX_DEPTH = 6;

function isPlainObject(v: object): v is Record<string, unknown> {
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * Whether a map has its own `constructor` key. cel-js tells a value's type by its `constructor`, so
 * such a map is no map to it: selecting from it fails whatever the key. A path stops there, and the
 * whole map (that key included) is what counts.
 */
function hasOwnConstructor(v: object): boolean {
  return !(v instanceof Map) && Object.prototype.hasOwnProperty.call(v, "constructor");
}

/** One step of a selection, as cel-js takes it: own keys of a map, fields of a message. */
function select(v: object, key: string): unknown {
  if (v instanceof Map) return v.has(key) ? v.get(key) : MISSING;
  if (Array.isArray(v)) return MISSING;
  if (isPlainObject(v)) return Object.prototype.hasOwnProperty.call(v, key) ? v[key] : MISSING;
  return (v as Record<string, unknown>)[key];
}

/** The fields selected from one input variable, and the ids of the values seen there. */
interface Group {
  readonly variable: string;
  /** Reads the variable from a context (a named property read, the same at every call). */
  readonly read: (context: CelContext) => unknown;
  /** The paths below the variable (without its name). */
  readonly fields: readonly (readonly string[])[];
  /** Part ids of frozen variable values (a subject, an entitlement), by identity: each is read once. */
  readonly byValue: Map<object, number>;
  /** Part ids by the keys of the values at `fields`, one level per field. */
  readonly byKeys: Trie;
  next: number;
}

type Trie = Map<unknown, unknown>;

/** A reader of one input variable; a name outside the context reads `undefined`, as cel-js would. */
function readerOf(variable: string): (context: CelContext) => unknown {
  switch (variable) {
    case "subject":
    case "user":
      return (c) => c.subject;
    case "task":
      return (c) => c.task;
    case "entitlement":
      return (c) => c.entitlement;
    case "account":
      return (c) => c.account;
    case "ip":
      return (c) => c.ip;
    default:
      return (c) => (c as unknown as Record<string, unknown>)[variable];
  }
}

/**
 * Signatures of condition inputs over fixed paths (see {@link conditionInputPaths}): a small number
 * per input, the same for two inputs exactly when every value at those paths is the same (strings,
 * numbers, bools, lists and maps by value; timestamps by instant; other objects by identity). Where
 * a path cannot be followed (a missing key, a value that has no fields) the value it stops at is what
 * counts, with how far it got, so that a condition's error is the same too.
 *
 * Made for many tasks of one world: the values at a variable's paths are read once per frozen value
 * (each user's subject, each entitlement), and values are compared as map keys (primitives as they
 * are, a list or map by a key made once per object), so a task costs a few map lookups. The numbers
 * mean something only to the instance that gave them; it holds no state beyond itself.
 *
 * @example
 * ```ts
 * const sigs = new InputSignatures(conditionInputPaths('subject.department == "IT"') ?? []);
 * sigs.of(p1) === sigs.of(p2); // true when both subjects' departments are the same
 * ```
 */
export class InputSignatures {
  readonly #groups: readonly Group[];
  readonly #tuples: unknown[] = [];
  #nextTuple = 0;
  // Keys standing for values that are not map keys as they are: by text, by object, by where a path stopped.
  readonly #byText = new Map<string, object>();
  readonly #byObject = new Map<object, object>();
  readonly #stops = new Map<number, Map<unknown, object>>();
  readonly #ids = new Map<object, number>();

  constructor(paths: readonly InputPath[]) {
    const byVariable = new Map<string, (readonly string[])[]>();
    for (const p of paths) {
      const [variable, ...rest] = p;
      if (variable === undefined) continue;
      let fields = byVariable.get(variable);
      if (!fields) byVariable.set(variable, (fields = []));
      fields.push(rest);
    }
    this.#groups = [...byVariable].map(([variable, fields]) => ({ variable, read: readerOf(variable), fields, byValue: new Map(), byKeys: new Map(), next: 0 }));
  }

  /** The number standing for `prepared`'s values at the paths, or -1 if they cannot be read. */
  of(prepared: PreparedConditionInput): number {
    try {
      const context = contextOf(prepared);
      const groups = this.#groups;
      const last = groups.length - 1;
      // No paths: every input looks the same.
      if (last < 0) return 0;
      // A trie of arrays indexed by part ids (dense from 0 per group): no hashing per task.
      let node = this.#tuples;
      for (let g = 0; g < last; g++) {
        const group = groups[g] as Group;
        const part = this.#part(group, group.read(context));
        node = (node[part] ??= []) as unknown[];
      }
      const group = groups[last] as Group;
      const part = this.#part(group, group.read(context));
      let id = node[part] as number | undefined;
      if (id === undefined) node[part] = id = this.#nextTuple++;
      return id;
    } catch {
      return -1;
    }
  }

  /** The part id of one variable's value. */
  #part(group: Group, value: unknown): number {
    const frozen = typeof value === "object" && value !== null && Object.isFrozen(value);
    if (frozen) {
      const known = group.byValue.get(value);
      if (known !== undefined) return known;
    }
    let node = group.byKeys;
    const fields = group.fields;
    let id: number | undefined;
    for (let k = 0; k < fields.length; k++) {
      const f = fields[k] as readonly string[];
      let v: unknown = value;
      let i = 0;
      for (; i < f.length; i++) {
        if (typeof v !== "object" || v === null || hasOwnConstructor(v)) break;
        v = select(v, f[i] as string);
        if (v === MISSING) break;
      }
      const key = i === f.length ? this.#key(v) : this.#stop(i, v);
      if (k === fields.length - 1) {
        id = node.get(key) as number | undefined;
        if (id === undefined) node.set(key, (id = group.next++));
      } else {
        let next = node.get(key) as Trie | undefined;
        if (next === undefined) node.set(key, (next = new Map()));
        node = next;
      }
    }
    id ??= 0;
    if (frozen) group.byValue.set(value, id);
    return id;
  }

  /**
   * A map key for a value: equal keys for equal values. Primitives are their own keys (but -0, which
   * a map would take for 0); a timestamp is keyed by its instant; a list or map by its text, once per
   * object when frozen; any other object by identity.
   */
  #key(v: unknown): unknown {
    if (typeof v !== "object" || v === null) return Object.is(v, -0) ? MINUS_ZERO : v;
    if (v instanceof Date) return this.#textKey(`A${v.getTime()};`);
    if (!(Array.isArray(v) || v instanceof Map || isPlainObject(v))) return v;
    const frozen = Object.isFrozen(v);
    let key = frozen ? this.#byObject.get(v) : undefined;
    if (key === undefined) {
      key = this.#textKey(this.#write(v, 0));
      if (frozen) this.#byObject.set(v, key);
    }
    return key;
  }

  #textKey(text: string): object {
    let key = this.#byText.get(text);
    if (key === undefined) this.#byText.set(text, (key = Object.freeze({ text })));
    return key;
  }

  /** The key of a path that stopped after `depth` steps at `v` (a missing key, or a value without fields). */
  #stop(depth: number, v: unknown): object {
    let byValue = this.#stops.get(depth);
    if (!byValue) this.#stops.set(depth, (byValue = new Map()));
    const k = this.#key(v);
    let key = byValue.get(k);
    if (key === undefined) byValue.set(k, (key = Object.freeze({ depth })));
    return key;
  }

  /**
   * One value, self-delimiting: every encoding starts with a tag and ends where the next can begin
   * (strings carry their length, numbers end with `;`), so a concatenation reads back one way only.
   */
  #write(v: unknown, depth: number): string {
    switch (typeof v) {
      case "string":
        return `S${v.length}:${v}`;
      case "number":
        return `D${Object.is(v, -0) ? "-0" : String(v)};`;
      case "bigint":
        return `I${v};`;
      case "boolean":
        return v ? "T" : "F";
      case "undefined":
        return "U";
      case "symbol":
        return v === MISSING ? "M" : `O${this.#id(Object(v) as object)};`;
      case "function":
        return `O${this.#id(v)};`;
      case "object": {
        if (v === null) return "N";
        if (depth >= MAX_DEPTH) return `O${this.#id(v)};`;
        if (Array.isArray(v)) {
          let s = "[";
          for (const x of v as readonly unknown[]) s += this.#write(x, depth + 1);
          return `${s}]`;
        }
        if (v instanceof Date) return `A${v.getTime()};`;
        if (v instanceof Map) {
          let s = "<";
          for (const [k, x] of v) s += this.#write(k, depth + 1) + this.#write(x, depth + 1);
          return `${s}>`;
        }
        if (isPlainObject(v)) {
          // Insertion order kept: equal maps written in two orders count as different (sharing
          // lost, never a wrong result).
          let s = "{";
          // Every own key, enumerable or not: cel-js reads a map's keys by `hasOwn`.
          for (const k of Object.getOwnPropertyNames(v)) s += `S${k.length}:${k}${this.#write(v[k], depth + 1)}`;
          return `${s}}`;
        }
        return `O${this.#id(v)};`;
      }
    }
  }

  #id(o: object): number {
    let id = this.#ids.get(o);
    if (id === undefined) this.#ids.set(o, (id = this.#ids.size));
    return id;
  }
}
