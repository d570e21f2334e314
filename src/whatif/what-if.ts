/**
 * `whatIf`: "if we make this edit, which tasks would a Hard Reset route differently?" For every task
 * in scope, the route a Hard Reset would choose now and after the edit (policy, its source, what
 * decided, the chain, the steps, the first step's approvers); the tasks whose route changes are
 * listed in detail, the rest counted, and a summary groups the changes by (before → after) route.
 *
 * Both sides come from {@link decide}, the one decision Hard Reset and `explain` share — or, for a
 * task the edit provably does not reach through what its conditions and approvers read, from the
 * very parts `decide` is made of (`resolvePolicy`, `taskConditions`, `selectSteps`) with one
 * condition runner shared by both sides, so the after side costs its walk and not its evaluations.
 * The edited world shares its tasks with the original (no copy per task), conditions are compiled
 * once per source text for the whole run (the CEL layer's cache), and each task evaluates only the
 * rules it reaches.
 *
 * Pruning (on by default, `prune: false` turns it off) decides a task only as far as the edit can
 * reach it:
 * - Policies: a task whose resolved policy is the same before and after is walked through the
 *   policy's *changed prefix* (`prefix.ts`), the rules before which both versions differ, in both
 *   versions at once. If the first condition that holds is of a rule both versions share, or none
 *   holds, the rest of the walk is the same in both worlds: the route cannot change, and the task is
 *   counted without a selection (an unedited policy whose reach — the policies selection may look up
 *   from it, `closure.ts` — is untouched has an empty prefix: no evaluation at all). Only if selection
 *   from the policy could fail at all is it decided once, so that an error is listed, not dropped.
 * - The directory (users; entitlement and app fields other than the routing ones): a task is decided
 *   in both worlds by `decide` only if a changed object is on one of the channels its decision reads
 *   — its subject and the subject's first manager, its entitlement and app, an approver candidate or
 *   delegate of a first step its policy may route to, anyone at all if a condition calls
 *   `c1.directory.*` (`footprint.ts`). Otherwise it is handled as above.
 * - Condition results by signature: tasks whose conditions see the same input values (the fields
 *   the conditions select, `cel/input-signature.ts`) share one evaluation per condition, where a
 *   task may walk a whole policy.
 * - Task classes (`task-classes.ts`): tasks of one resolution key whose conditions provably see the
 *   same values — read from the task itself, not from a prepared context — share the prefix walk,
 *   both selections and their comparison; only a re-routed task's approvers are made per task.
 * - The clock, the references flag, the CEL budget (`tenant.celCostLimit`), and (between worlds given to `whatIfWorlds`) groups, grants,
 *   accounts, roles, resource-type defaults and access reviews are not traced per task: such an edit
 *   decides every task twice.
 *
 * `test/whatif.test.ts` checks, over generated worlds and edits of every kind, that pruned and
 * unpruned (two plain `decide` calls per task) runs give the same result, and that both agree with
 * `decide` task by task. The argument in full: docs/whatif.md.
 */
import { describeValue } from "../codec/diagnostic.js";
import { decodePolicy } from "../codec/index.js";
import { readyCondition } from "../cel/compile.js";
import { CEL_RESOURCE_LIMITS } from "../cel/limits.js";
import { conditionInputPaths, type InputPath, InputSignatures } from "../cel/input-signature.js";
import type { Policy, Task } from "../model/index.js";
import { taskSubjectId, certifyReviewId } from "../model/task-refs.js";
import { decide } from "../policy/decide.js";
import { lintDecodedPolicy } from "../policy/lint.js";
import { directoryPolicyUses, policyUsesIn } from "../policy/policy-uses.js";
import { type Resolution, type ResolutionError, resolvePolicy } from "../policy/resolve-policy.js";
import { type ConditionResult, type ConditionRunner, selectSteps } from "../policy/select-steps.js";
import { conditionsSignature, taskConditions, type TaskConditions } from "../policy/task-conditions.js";
import { notAWorld, type SimError } from "../reducers/errors.js";
import { err, ok, type Result } from "../result.js";
import { closest } from "../text/closest.js";
import { hashKey } from "../world/table.js";
import { entitlementKey, type World, type WorldPatch } from "../world/world.js";
import { ReachMemo } from "./closure.js";
import type { Diagnostic } from "../world/read.js";
import { checkEdit } from "./check-edit.js";
import { applyEditUnchecked, editImpact, type EditImpact, type EditRecipe, type WorldEdit } from "./edit.js";
import { DirectoryFootprint, type KeyFootprint } from "./footprint.js";
import { changedPrefix, type PrefixRule } from "./prefix.js";
import { GrowingInts, SharedParts, TaskClasses, TaskGroups } from "./task-classes.js";
import { thrownMessage } from "./thrown-message.js";
import { MAX_JSON_DEPTH } from "../codec/json-tools.js";
import { decodeWhatIfOptions, OnProgressFailed, type TaskScope, type WhatIfOptions } from "./what-if-options.js";
import { isRealTimestamp } from "../codec/schema.js";
import {
  approversOf,
  decisionInput,
  type RouteApprovers,
  RouteComparer,
  type RouteAspect,
  type RouteInput,
  routeLabel,
  routeOf,
  type RouteOutcome,
  routeWith,
  sameStrings,
} from "./route.js";

export type { TaskKind, TaskScope, WhatIfOptions } from "./what-if-options.js";

/**
 * One task's route before and after the edit.
 *
 * @example
 * ```ts
 * for (const c of result.changed) console.log(c.numericId, routeLabel(c.before), "→", routeLabel(c.after));
 * ```
 */
export interface TaskRouteChange {
  readonly taskId: string;
  readonly numericId: string;
  readonly displayName: string;
  readonly type: string;
  readonly state: string;
  readonly before: RouteOutcome;
  readonly after: RouteOutcome;
  /** What differs; empty for a task listed only because it errors the same way in both worlds. */
  readonly changes: readonly RouteAspect[];
}

/**
 * Changed tasks that go from one route to another, counted together.
 *
 * @example
 * ```ts
 * const g: RouteGroup = { before: "pol-a (app): rule #0 → k1", after: "pol-a (app): baseline → grant",
 *   changes: ["decidedBy", "steps"], count: 12, taskIds: ["t-1", "…"] };
 * ```
 */
export interface RouteGroup {
  readonly before: string;
  readonly after: string;
  /** Every aspect that differs for some task of the group. */
  readonly changes: readonly RouteAspect[];
  readonly count: number;
  readonly taskIds: readonly string[];
}

/**
 * What the edit changed (ids sorted), as reported with a result.
 *
 * @example
 * ```ts
 * result.edit.policies; // ["pol-prod-admin"]
 * ```
 */
export interface EditSummary {
  readonly policies: readonly string[];
  readonly entitlements: readonly string[];
  readonly apps: readonly string[];
  readonly users: readonly string[];
  readonly tenant: boolean;
  readonly now: boolean;
  /**
   * Whether the edit touches what conditions or approvers see (then only the tasks that see it are
   * decided in both worlds, or all of them when the change is not traced per task).
   */
  readonly conditionsMayChange: boolean;
  /**
   * What the service would refuse if the edit were saved: the error findings of `lint` on each
   * edited policy in the edited world (a condition that does not compile, a dangling step key, …);
   * a deleted policy that is built in (`POLICY_BUILT_IN`) or still in use (`POLICY_IN_USE`); and a
   * setting the edit made (an app's, entitlement's, configuration rule's or the tenant's) that
   * names a policy existing in neither world (`UNKNOWN_POLICY`). The run still compares routes — a
   * condition that does not compile matches no task — but a re-route caused by a broken edit is
   * not one to ship. Empty when the edit would save.
   */
  readonly saveErrors: readonly EditSaveError[];
  /**
   * What a world file holding the edited objects would be warned of on load: a value outside its
   * closed set (`status: "DISABLD"`, with what it probably meant), a field name close to a known one.
   * Such a value is read as written and routes as an unknown value does (a typo'd user status is no
   * status the service knows): a run that says "no task changes" may say it for that reason.
   * Paths are under `edit.` as the edited lists have them.
   */
  readonly warnings: readonly { readonly code: string; readonly path: string; readonly message: string }[];
}

/**
 * One reason the service would refuse the edit (see {@link EditSummary.saveErrors}): a lint error
 * of an edited policy (`path` into it), or a delete or setting it refuses (`path` "$"; for
 * `UNKNOWN_POLICY`, `policyId` is the id named that does not exist, and the message names the
 * setting).
 *
 * @example
 * ```ts
 * const e: EditSaveError = { policyId: "pol-prod-admin", code: "CEL_TYPE_ERROR", path: "$.rules[0].condition", message: "…" };
 * ```
 */
export interface EditSaveError {
  readonly policyId: string;
  readonly code: string;
  readonly path: string;
  readonly message: string;
}

/**
 * The result of a what-if run. `changed` and `unchangedErrors` are in the world's task order; the
 * summary is by decreasing count, then by label. Deterministic: the same world and edit give a
 * deep-equal result. Read-only, as its types say: tasks that route alike share their `before` and
 * `after` route objects and `changes` lists (at 1M tasks that is most of what a result would
 * otherwise hold), so writing into one task's route writes into its neighbours'. Copy what you
 * change (`structuredClone`); a JSON round trip gives the same data unshared.
 *
 * @example
 * ```ts
 * const r = whatIf(world, edit);
 * if (r.ok) console.log(r.value.counts.changed, "of", r.value.counts.inScope, "tasks change");
 * ```
 */
export interface WhatIfResult {
  readonly kind: "whatIf";
  readonly edit: EditSummary;
  readonly counts: {
    readonly inWorld: number;
    readonly inScope: number;
    readonly changed: number;
    /** Same route before and after, not listed. */
    readonly unchanged: number;
    /** Same error before and after, listed in `unchangedErrors`. */
    readonly unchangedErrors: number;
  };
  /** Tasks whose route changes (including to or from an error), in detail. */
  readonly changed: readonly TaskRouteChange[];
  /** Tasks that fail the same way before and after: listed, never dropped. */
  readonly unchangedErrors: readonly TaskRouteChange[];
  /** The changed tasks grouped by (before → after) route. */
  readonly summary: readonly RouteGroup[];
  /**
   * How much work the run did: decisions made (two per task decided in both worlds, one per task
   * decided once), and tasks counted unchanged without a decision (some after evaluating the
   * conditions of their policy's changed prefix); and, for the result of one shard of a run
   * (`options.shard`), which shard it is, so that {@link mergeWhatIfResults} can tell a whole set.
   */
  /**
   * The work done. `shard` is set by a sharded run: which shard of how many, and `run`, a digest of
   * what the run compared (the edited objects as edited, the clock, the scope) that
   * {@link mergeWhatIfResults} checks the shards agree on.
   */
  readonly stats: { readonly decisions: number; readonly pruned: number; readonly shard?: { readonly index: number; readonly count: number; readonly run: string } };
}

function kindOf(task: Task): string {
  const t = task.type;
  return t ? (t.kind === "unknown" ? "unknown" : t.kind) : "";
}

function scoped(task: Task): { appId: string; entitlementId: string } | null {
  const t = task.type;
  return t && (t.kind === "grant" || t.kind === "revoke" || t.kind === "certify") ? { appId: t.appId, entitlementId: t.appEntitlementId } : null;
}

/** The scope as a predicate, its lists turned into sets once; null when every task is in scope. */
function scopeFilter(world: World, scope: TaskScope | undefined): ((task: Task) => boolean) | null {
  const states = scope?.states === "any" ? null : new Set(scope?.states ?? ["TASK_STATE_OPEN"]);
  const types = scope?.types ? new Set<string>(scope.types) : null;
  const apps = scope?.appIds ? new Set(scope.appIds) : null;
  const ents = scope?.entitlements ? new Set(scope.entitlements.map((e) => `${e.appId}\u0000${e.id}`)) : null;
  const ids = scope?.taskIds ? new Set(scope.taskIds.map((id) => (world.tasks.has(id) ? id : (world.taskIdByNumericId.get(id) ?? id)))) : null;
  // A run over every task need not read each one's state and type to know it.
  if (!states && !types && !apps && !ents && !ids) return null;
  return (task) => {
    if (states && !states.has(task.state)) return false;
    if (types && !types.has(kindOf(task))) return false;
    if (ids && !ids.has(task.id)) return false;
    if (apps || ents) {
      const s = scoped(task);
      if (!s) return false;
      if (apps && !apps.has(s.appId)) return false;
      if (ents && !ents.has(`${s.appId}\u0000${s.entitlementId}`)) return false;
    }
    return true;
  };
}

/**
 * A value per resolution key: what `resolvePolicy` reads of a grant, revoke or certify task — the
 * type's app and entitlement, the access review of a certification, `emergencyAccess` of a grant,
 * nothing else of the task (`resolve-policy.ts`, `candidatesFor`). Tasks with the same key resolve
 * alike, so 100k tasks on a few hundred entitlements need a few hundred resolutions. Other kinds read
 * the task's own policy snapshot: no key, computed per task. Nested maps keyed by the task's own
 * strings, whose hashes V8 caches, instead of a joined key built and hashed per task.
 */
class KeyMemo<T> {
  readonly #memo = new Map<string, Map<string, Map<string, T>>>();
  readonly #make: (task: Task) => T;

  constructor(make: (task: Task) => T) {
    this.#make = make;
  }

  get(task: Task): T {
    const t = task.type;
    let kind: string;
    if (t?.kind === "grant") kind = task.emergencyAccess ? "G" : "g";
    else if (t?.kind === "revoke") kind = "r";
    else if (t?.kind === "certify") kind = `c${certifyReviewId(t)}`;
    else return this.#make(task);
    let byApp = this.#memo.get(kind);
    if (!byApp) this.#memo.set(kind, (byApp = new Map()));
    let byEnt = byApp.get(t.appId);
    if (!byEnt) byApp.set(t.appId, (byEnt = new Map()));
    let v = byEnt.get(t.appEntitlementId);
    if (v === undefined) byEnt.set(t.appEntitlementId, (v = this.#make(task)));
    return v;
  }
}

/** Resolutions of one world, shared by the tasks of one resolution key; errors name the task, so they are not. */
class ResolutionMemo {
  readonly #world: World;
  readonly #memo: KeyMemo<Result<Resolution, ResolutionError> | null>;

  constructor(world: World) {
    this.#world = world;
    this.#memo = new KeyMemo((task) => {
      const r = resolvePolicy(world, task);
      return r.ok ? r : null;
    });
  }

  resolve(task: Task): Result<Resolution, ResolutionError> {
    return this.#memo.get(task) ?? resolvePolicy(this.#world, task);
  }
}

/**
 * Condition results of one task, shared by its before and after selections. Sound only when the
 * edit leaves everything the task's conditions see unchanged (nothing visible changed, or nothing
 * on the task's footprint): then a condition source evaluates alike in both worlds, and the after
 * selection costs its walk, not its evaluations. The results may also be shared with other tasks
 * whose conditions see the same values ({@link SignatureMemo}).
 */
class SharedConditions implements ConditionRunner {
  readonly #inner: ConditionRunner;
  readonly #slots: ConditionSlots;
  // By slot, dense from 0: a small array per task instead of a Map made and hashed into per task.
  readonly #results: (ConditionResult | undefined)[];
  // Conditions outside the slots (none when the slots cover both reaches), made on first need.
  #others: Map<string, ConditionResult> | undefined;

  constructor(inner: ConditionRunner, slots: ConditionSlots, results: (ConditionResult | undefined)[]) {
    this.#inner = inner;
    this.#slots = slots;
    this.#results = results;
  }

  /** Whether a condition outside the slots was run: its inputs are not among those a class or signature stands for. */
  get strayed(): boolean {
    return this.#others !== undefined;
  }

  /** `run(condition)` for a condition whose slot the caller has looked up already. */
  runAt(slot: number, condition: string): ConditionResult {
    let r = this.#results[slot];
    if (r === undefined) {
      r = this.#inner.run(condition);
      this.#results[slot] = r;
    }
    return r;
  }

  run(condition: string): ConditionResult {
    const slot = this.#slots.of(condition);
    if (slot === undefined) {
      const others = (this.#others ??= new Map());
      let r = others.get(condition);
      if (r === undefined) others.set(condition, (r = this.#inner.run(condition)));
      return r;
    }
    let r = this.#results[slot];
    if (r === undefined) {
      r = this.#inner.run(condition);
      this.#results[slot] = r;
    }
    return r;
  }
}

/**
 * Condition results shared by the tasks whose inputs agree at every path the slots' conditions
 * select (`cel/input-signature.ts`): a condition is a function of those values and of the world, so
 * tasks with one signature get one evaluation per condition. A policy testing department, employment
 * type and risk level sees a few hundred signatures among 100k tasks.
 *
 * When the signatures of a slot set turn out to be mostly distinct (conditions reading `task.id` or
 * `task.createdAt`), writing them costs more than it saves: after 4,096 tasks with fewer than one
 * in eight sharing, the memo stops. Either way each task gets the same results, so this changes the
 * cost of a run, never its result.
 */
class SignatureMemo {
  readonly #signatures: InputSignatures;
  // By signature, dense from 0.
  readonly #results: ((ConditionResult | undefined)[] | undefined)[] = [];
  #asked = 0;
  #hits = 0;
  #off = false;

  constructor(paths: readonly InputPath[]) {
    this.#signatures = new InputSignatures(paths);
  }

  /** The results of the task's signature (shared), or `undefined` for a task of its own. */
  resultsFor(conditions: TaskConditions, size: number): (ConditionResult | undefined)[] | undefined {
    if (this.#off) return undefined;
    const signature = conditionsSignature(conditions, this.#signatures);
    if (signature < 0) return undefined;
    let results = this.#results[signature];
    if (results === undefined) this.#results[signature] = results = new Array<ConditionResult | undefined>(size).fill(undefined);
    else this.#hits++;
    if (++this.#asked === 4096 && this.#hits < 512) {
      this.#off = true;
      this.#results.length = 0;
    }
    return results;
  }
}

/** Condition results kept per world, at most: about 8 bytes each (results are mostly shared constants). */
const KEPT_RESULTS_MAX = 4_000_000;

/** The classes of one set of input paths in one world, and the condition results found for them. */
interface ClassStore {
  readonly classes: TaskClasses | null;
  /** Results of one condition source, by class id, if any were kept. */
  peek(condition: string): (ConditionResult | undefined)[] | undefined;
  /** Results of one condition source, by class id: a place to keep them. */
  resultsOf(condition: string): (ConditionResult | undefined)[];
  /** Whether one more result may be kept (and counts it). */
  room(): boolean;
}

/**
 * Path sets kept beside those `prepareWhatIf` found (the world's own policies'): the classes of
 * paths only some edits read, most recently used first. An embedder trying edits that each read a
 * new field (a profile key) would otherwise keep a set of classes per edit, ~6 MB each at 100k tasks.
 */
const KEPT_EDIT_PATH_SETS = 8;

/** Subject path sets whose parts are shared (`SharedParts`) before the sharing starts afresh. */
const KEPT_SUBJECT_PATH_SETS = 64;

interface Kept {
  readonly store: ClassStore;
  pinned: boolean;
  count: number;
  /** False once let go: a run still holding its store keeps nothing more in it. */
  live: boolean;
}

/**
 * What every run over one world learns of it and later runs reuse: its task classes by the input
 * paths they are told by (class ids stay the same from run to run), a group's class, and each
 * condition's result by class. An edit changes policies, not the original world, so a result found
 * once holds for every later run; a run of another edit that keeps the paths its policies read
 * (most edits: a rule reordered, a step changed, a condition negated or deleted) evaluates only the
 * conditions it brings. Kept with the world (never across worlds), bounded by `KEPT_RESULTS_MAX`
 * results and, beside the path sets of the world's own policies, `KEPT_EDIT_PATH_SETS` others.
 */
class KeptClasses {
  #parts = new SharedParts();
  readonly #byPaths = new Map<string, Kept>();
  #count = 0;
  #unpinned = 0;

  /** The store of a path set; `pinned` (prepareWhatIf: the world's own policies) keeps it for good. */
  store(world: World, paths: readonly InputPath[], pinned = false): ClassStore {
    const key = paths
      .map((p) => p.join("\u0000"))
      .sort()
      .join("\u0001");
    let kept = this.#byPaths.get(key);
    if (kept !== undefined) {
      // Most recently used last: the first unpinned entry is the one to let go.
      this.#byPaths.delete(key);
      this.#byPaths.set(key, kept);
      if (pinned && !kept.pinned) {
        kept.pinned = true;
        this.#unpinned--;
      }
      return kept.store;
    }
    if (!pinned && this.#unpinned >= KEPT_EDIT_PATH_SETS) this.#evictOne();
    if (this.#parts.size >= KEPT_SUBJECT_PATH_SETS) this.#parts = new SharedParts();
    const results = new Map<string, (ConditionResult | undefined)[]>();
    const entry: Kept = {
      pinned,
      count: 0,
      live: true,
      store: {
        classes: TaskClasses.of(world, paths, this.#parts),
        peek: (condition) => results.get(condition),
        resultsOf: (condition) => {
          let r = results.get(condition);
          if (r === undefined) results.set(condition, (r = []));
          return r;
        },
        room: () => {
          if (!entry.live || this.#count >= KEPT_RESULTS_MAX) return false;
          this.#count++;
          entry.count++;
          return true;
        },
      },
    };
    this.#byPaths.set(key, entry);
    if (!pinned) this.#unpinned++;
    return entry.store;
  }

  #evictOne(): void {
    for (const [key, kept] of this.#byPaths) {
      if (kept.pinned) continue;
      this.#byPaths.delete(key);
      kept.live = false;
      this.#unpinned--;
      this.#count -= kept.count;
      return;
    }
  }
}

const keptClasses = new WeakMap<World, KeptClasses>();

function keptClassesOf(world: World): KeptClasses {
  let kept = keptClasses.get(world);
  if (kept === undefined) keptClasses.set(world, (kept = new KeptClasses()));
  return kept;
}

/**
 * A number per condition source a task of one resolution key may evaluate: every rule condition of
 * the reaches of the policies it resolves to in both worlds; and, when every one of those conditions
 * selects only fields of its input, the memo that shares their results by signature.
 */
class ConditionSlots {
  readonly #slots = new Map<string, number>();
  readonly memo: SignatureMemo | null;
  /** The task classes of these conditions in the original world (`task-classes.ts`), when they can be told. */
  readonly classes: TaskClasses | null;
  // Condition results by task class, dense from 0.
  readonly #byClass: (ConditionResult | undefined)[][] = [];
  // What earlier runs over the world found, by slot then class (`KeptClasses`), when there are classes.
  readonly #store: ClassStore | null;
  readonly #kept: ((ConditionResult | undefined)[] | undefined)[];
  readonly #conditions: readonly string[];

  constructor(world: World, sources: Iterable<string>, kept: KeptClasses, pinned = false) {
    for (const c of sources) if (!this.#slots.has(c)) this.#slots.set(c, this.#slots.size);
    const paths: InputPath[] = [];
    const seen = new Set<string>();
    let memo = true;
    for (const c of this.#slots.keys()) {
      const ps = conditionInputPaths(c);
      if (ps === null) {
        memo = false;
        break;
      }
      for (const p of ps) {
        const key = p.join("\u0000");
        if (!seen.has(key)) {
          seen.add(key);
          paths.push(p);
        }
      }
    }
    this.memo = memo && this.#slots.size > 0 ? new SignatureMemo(paths) : null;
    this.#store = memo ? kept.store(world, paths, pinned) : null;
    this.classes = this.#store?.classes ?? null;
    const store = this.#store;
    this.#conditions = [...this.#slots.keys()];
    // What earlier runs kept; a condition's place is made only when this run keeps a result of it.
    this.#kept = store?.classes ? this.#conditions.map((c) => store.peek(c)) : [];
  }

  /** The condition results of the tasks of one class (`classes`), shared by them: those earlier runs found, to begin with. */
  resultsOfClass(id: number): (ConditionResult | undefined)[] {
    let r = this.#byClass[id];
    if (r === undefined) {
      const size = this.#slots.size;
      r = new Array<ConditionResult | undefined>(size);
      const kept = this.#kept;
      for (let s = 0; s < size; s++) r[s] = kept[s]?.[id];
      this.#byClass[id] = r;
    }
    return r;
  }

  /** Whether this run has the results of class `id` (`resultsOfClass` was asked for them). */
  hasClass(id: number): boolean {
    return this.#byClass[id] !== undefined;
  }

  /**
   * Keeps this run's results by class for later runs over the same world. Every one of them was
   * found with the original world's inputs (`outcomeOf` runs conditions through `taskConditions(world, …)`),
   * and a condition's result is a function of its source and the values its class stands for.
   */
  keep(): void {
    const store = this.#store;
    if (store === null || this.#kept.length === 0) return;
    const kept = this.#kept;
    for (let id = 0; id < this.#byClass.length; id++) {
      const r = this.#byClass[id];
      if (r === undefined) continue;
      for (let s = 0; s < r.length; s++) {
        const v = r[s];
        if (v === undefined || kept[s]?.[id] !== undefined) continue;
        if (!store.room()) return;
        const k = (kept[s] ??= store.resultsOf(this.#conditions[s] as string));
        k[id] = v;
      }
    }
  }

  get size(): number {
    return this.#slots.size;
  }

  of(condition: string): number | undefined {
    return this.#slots.get(condition);
  }
}

/** Every rule condition of the policies a walk from `root` may visit in `world`. */
function* reachConditions(world: World, root: Policy, reaches: ReachMemo): Generator<string> {
  for (const rule of root.rules ?? []) yield rule.condition;
  for (const id of reaches.of(root).ids) {
    const p = id === root.id ? undefined : world.index.policies.get(id);
    for (const rule of p?.rules ?? []) yield rule.condition;
  }
}

/** One side of a task, from the parts `decide` is made of, with a shared condition runner. */
function sideOf(task: Task, world: World, memo: ResolutionMemo, shared: SharedConditions, conditions: TaskConditions): RouteInput {
  const r = memo.resolve(task);
  return {
    task,
    resolution: r.ok ? { ok: true, policyId: r.value.policy.id, source: r.value.source } : { ok: false, code: r.error.code, message: r.error.message },
    selection: r.ok ? selectSteps(world, r.value.policy, shared) : null,
    // Approver expressions see the same inputs in both worlds too.
    conditions,
  };
}

/** A task's conditions environment in the original world, and its results shared by both sides. */
interface SharedRun {
  readonly conditions: TaskConditions;
  readonly shared: SharedConditions;
}

/**
 * The shared parts of one task. With `bySignature`, its condition results are those of every task
 * with its signature, when its slots have a memo: worth it when the task may walk a whole policy,
 * not for a prefix of a rule or two, which costs less to evaluate than the signature does to read.
 */
function sharedRun(task: Task, world: World, slots: ConditionSlots, bySignature: boolean): SharedRun {
  const conditions = taskConditions(world, task);
  const memo = bySignature ? slots.memo : null;
  const results = memo?.resultsFor(conditions, slots.size) ?? new Array<ConditionResult | undefined>(slots.size).fill(undefined);
  return { conditions, shared: new SharedConditions(conditions, slots, results) };
}

/**
 * Both sides of one task without `decide`, from the same parts (`resolvePolicy`, `taskConditions`,
 * `selectSteps`), sharing the task's condition results: only when conditions see the same inputs in
 * both worlds. `prune: false` keeps to two plain `decide` calls, the reference the tests compare
 * this with. Without an `after` world, the before side twice.
 */
function sharedSides(
  task: Task,
  world: World,
  res0: ResolutionMemo,
  after: World | null,
  res1: ResolutionMemo | null,
  run: SharedRun,
): [RouteInput, RouteInput] {
  const before = sideOf(task, world, res0, run.shared, run.conditions);
  return [before, after && res1 ? sideOf(task, after, res1, run.shared, run.conditions) : before];
}

/**
 * How the tasks of a resolution key are handled when pruning: skipped, decided once (same route,
 * maybe an error), decided twice, or first checked against the conditions of their policy's
 * changed prefix (`prefix.ts`): decided twice if one holds, else as `skip` or `once` by `sound`.
 * With directory changes, the part of the tasks' footprint the key fixes (`footprint.ts`).
 */
interface Verdict {
  readonly policy: "skip" | "once" | "twice" | "prefix";
  readonly prefix: readonly PrefixRule[];
  /** The slot of each condition of `prefix`, -1 for one outside the slots. */
  readonly prefixSlots: readonly (readonly number[])[];
  /** Whether the prefix is long enough for tasks to share its results by signature (`sharedRun`). */
  readonly prefixBySignature: boolean;
  readonly sound: boolean;
  readonly footprint: KeyFootprint | null;
  readonly slots: ConditionSlots;
  /** The outcomes of the key's task classes, when both resolutions succeed and the slots have classes. */
  readonly byClass: ClassOutcomes | null;
}

/**
 * The walk of a `prefix` verdict's changed prefix, in both versions at once: `twice` if the first
 * condition that holds is of a rule that differs, else `skip` or `once` as for an unchanged policy.
 */
function prefixVerdict(verdict: Verdict, shared: SharedConditions): "skip" | "once" | "twice" {
  const prefixSlots = verdict.prefixSlots;
  for (let k = 0; k < verdict.prefix.length; k++) {
    const rule = verdict.prefix[k] as PrefixRule;
    const ruleSlots = prefixSlots[k] as readonly number[];
    for (let j = 0; j < rule.conditions.length; j++) {
      const c = rule.conditions[j] as string;
      const slot = ruleSlots[j] as number;
      const r = slot >= 0 ? shared.runAt(slot, c) : shared.run(c);
      if (r.ok && r.value) return rule.same ? (verdict.sound ? "skip" : "once") : "twice";
    }
  }
  return verdict.sound ? "skip" : "once";
}

/**
 * What the tasks of one class (`task-classes.ts`) of one verdict come to: their conditions see the
 * same values, so the prefix walk, both selections and the aspects that differ are the same for all
 * of them; only the parts of a route that read the task itself (approvers) are made per task.
 * `none`: the first task's walk ran a condition outside the slots, which the class does not vouch
 * for; its tasks are decided one by one.
 */
interface ClassOutcome {
  readonly kind: "none" | "skip" | "once" | "twice";
  /** `once`: the route when it is an error (the same for every task of the class), else null. */
  readonly error: RouteOutcome | null;
  readonly res0: RouteInput["resolution"];
  readonly res1: RouteInput["resolution"];
  readonly sel0: RouteInput["selection"];
  readonly sel1: RouteInput["selection"];
  readonly aspects: readonly RouteAspect[];
  readonly errored: boolean;
  /**
   * `twice`, when neither first step's approvers read more of a task than its resolution key and
   * subject: the listing of the class's tasks by subject id, made for the first task of each. Else
   * null: approvers are resolved per task (or per task group).
   */
  readonly bySubject: Map<string, ClassListing> | null;
  /** `twice`: the summary group of its re-routed tasks, once the first is grouped. */
  group?: GroupAcc;
}

/** What the tasks of one class and subject are listed with: shared routes, and the aspects that differ (none: an error listed as unchanged). */
interface ClassListing {
  readonly kind: "listed";
  /** The class's outcome, which holds the summary group of its re-routed tasks. */
  readonly outcome: ClassOutcome;
  readonly before: RouteOutcome;
  readonly after: RouteOutcome;
  readonly changes: readonly RouteAspect[];
  /** Whether its changes are in its outcome's summary group already: added for its first task, not for each. */
  grouped: boolean;
}

const NO_RESOLUTION: RouteInput["resolution"] = { ok: false, code: "", message: "" };
const NO_CLASS: ClassOutcome = { kind: "none", error: null, res0: NO_RESOLUTION, res1: NO_RESOLUTION, sel0: null, sel1: null, aspects: [], errored: false, bySubject: null };
const SKIP_CLASS: ClassOutcome = { ...NO_CLASS, kind: "skip" };
Object.freeze(NO_CLASS);
Object.freeze(SKIP_CLASS);

/**
 * A task's approver expressions, evaluated by its conditions environment made on first use: most
 * first steps name no expression, and making the environment looks up the task's subject,
 * entitlement and account. (The tasks of a world are frozen: nothing changes before the first use.)
 */
class TaskExpressions {
  readonly #world: World;
  readonly #task: Task;
  #conditions: TaskConditions | undefined;

  constructor(world: World, task: Task) {
    this.#world = world;
    this.#task = task;
  }

  readonly expressions = (expression: string): ReturnType<TaskConditions["expressions"]> =>
    (this.#conditions ??= taskConditions(this.#world, this.#task)).expressions(expression);
}

/** The class outcomes of one verdict, and the part of a class its entitlement fixes (-1 until known). */
class ClassOutcomes {
  entitlementPart = -1;
  // By class id: an index into `#outcomes` (a typed array read instead of a Map's lookup per task).
  readonly #index = new GrowingInts();
  readonly #outcomes: ClassOutcome[] = [];
  readonly p0: Policy;
  readonly p1: Policy;
  readonly res0: RouteInput["resolution"];
  readonly res1: RouteInput["resolution"];

  constructor(r0: Resolution, r1: Resolution) {
    this.p0 = r0.policy;
    this.p1 = r1.policy;
    this.res0 = { ok: true, policyId: r0.policy.id, source: r0.source };
    this.res1 = { ok: true, policyId: r1.policy.id, source: r1.source };
  }

  outcome(classId: number): ClassOutcome | undefined {
    const i = this.#index.get(classId);
    return i < 0 ? undefined : this.#outcomes[i];
  }

  setOutcome(classId: number, o: ClassOutcome): void {
    this.#index.set(classId, this.#outcomes.push(o) - 1);
  }
}

const ordered = new WeakMap<World["tasks"], readonly Task[]>();
const grouped = new WeakMap<World["tasks"], TaskGroups>();

/** The world's tasks' groups (`taskGroups`), in the order of {@link tasksInOrder}, once per task table. */
function groupsInOrder(world: World, all: readonly Task[]): TaskGroups {
  let groups = grouped.get(world.tasks);
  if (!groups) grouped.set(world.tasks, (groups = new TaskGroups(all)));
  return groups;
}

/**
 * Does now, for `world`, what the first {@link whatIf} over its tasks would do once and every later
 * run reuses: compiles every rule condition of its policies (and writes each out as a function, as
 * a run would at its eighth evaluation), lists its tasks in order and numbers every task into its
 * group (tasks that agree on all that routing may read of a task, their ids and times aside), and
 * walks each class of tasks through its policy's rules once, keeping every condition's result by
 * class (a run evaluates a condition of the world once per class; later runs over the same world
 * do this too, for what they met). Call it after loading a large world, off the request path, so
 * that the first what-if costs what later ones do: at 1M tasks the grouping is 1.4–1.9 s of a first
 * run (bench/README.md, "What-if over 1M tasks"). Results never depend on it. The grouping is kept
 * with the world's task table and the results with the world, as a run keeps them: a world a
 * reducer returned is new and is grouped again by its first run. Returns how many tasks were grouped.
 *
 * @example
 * ```ts
 * const world = loadWorld(json);
 * if (world.ok) prepareWhatIf(world.value); // at startup
 * // later, per request: as fast as a second run
 * const r = whatIf(world.value, (w) => { w.tenant.defaultPolicies["grant"] = "pol-strict"; });
 * ```
 */
export function prepareWhatIf(world: World): number {
  // Every rule condition a run may evaluate on the original side, compiled and written out as a
  // function now: a run compiles them once (the cache keeps them) and writes each at its eighth use.
  // No more than the compile cache keeps: past it, the first would be evicted by the last.
  const ready = new Set<string>();
  for (const policy of world.policies)
    for (const rule of policy.rules ?? []) {
      if (ready.size >= CEL_RESOURCE_LIMITS.compileCacheEntries) break;
      if (!ready.has(rule.condition) && readyCondition(rule.condition)) ready.add(rule.condition);
    }
  const all = tasksInOrder(world);
  const groups = groupsInOrder(world, all);
  let grouped = 0;
  for (let i = 0; i < all.length; i++) if (groups.of(i) >= 0) grouped++;
  decideClasses(world, all, groups);
  return grouped;
}

/**
 * The original side of every task class, found now and kept with the world (`KeptClasses`): for
 * the first task of each group, the walk `decide` makes through its policy's rules, each condition
 * evaluated once per class. A run reads these results where it would evaluate the same condition
 * for the same class; a run whose edit makes its policies read other paths has other classes and
 * evaluates as it would have. Nothing of an edit is guessed here: only the world as it is.
 */
function decideClasses(world: World, all: readonly Task[], groups: TaskGroups): void {
  const kept = keptClassesOf(world);
  const resolutions = new ResolutionMemo(world);
  const reaches = new ReachMemo(world);
  const slotsOf = new Map<Policy, ConditionSlots>();
  // By resolution key number: the entitlement part of its classes (`TaskClasses.entitlementPart`), per slot set.
  const parts = new Map<ConditionSlots, number[]>();
  const seen = new Uint8Array(all.length);
  for (let t = 0; t < all.length; t++) {
    const group = groups.of(t);
    if (group < 0 || seen[group] === 1) continue;
    seen[group] = 1;
    const task = all[t] as Task;
    const kind = task.type?.kind;
    if (kind !== "grant" && kind !== "revoke" && kind !== "certify") continue;
    const r = resolutions.resolve(task);
    if (!r.ok) continue;
    const policy = r.value.policy;
    let slots = slotsOf.get(policy);
    if (slots === undefined) slotsOf.set(policy, (slots = new ConditionSlots(world, reachConditions(world, policy, reaches), kept, true)));
    const classes = slots.classes;
    if (classes === null || !classes.groupable) continue;
    let byKey = parts.get(slots);
    if (byKey === undefined) parts.set(slots, (byKey = []));
    const key = groups.keyOf(t);
    let part = byKey[key];
    if (part === undefined || part < 0) byKey[key] = part = classes.entitlementPart(task);
    if (part < 0) continue;
    const id = classes.classOfGroup(groups, group, part, task);
    if (id < 0 || slots.hasClass(id)) continue;
    selectSteps(world, policy, new SharedConditions(taskConditions(world, task), slots, slots.resultsOfClass(id)));
  }
  for (const slots of slotsOf.values()) slots.keep();
}

/** The world's tasks in order, once per task table: listing a table sorts it, a run over the same world need not. */
function tasksInOrder(world: World): readonly Task[] {
  let list = ordered.get(world.tasks);
  if (!list) ordered.set(world.tasks, (list = world.tasks.valueList()));
  return list;
}

/** One literal, not a spread of a header: an object spread costs about a microsecond on V8, per listed task. */
function routeChange(task: Task, before: RouteOutcome, after: RouteOutcome, changes: readonly RouteAspect[]): TaskRouteChange {
  return { taskId: task.id, numericId: task.numericId, displayName: task.displayName, type: kindOf(task), state: task.state, before, after, changes };
}

function summaryOf(impact: EditImpact, world: World, after: World, warnings: readonly Diagnostic[]): EditSummary {
  const saveErrors: EditSaveError[] = [];
  for (const id of [...impact.policies].sort()) {
    const p = after.index.policies.get(id);
    if (!p) {
      const deleted = world.index.policies.get(id);
      if (deleted) saveErrors.push(...deleteErrors(deleted, after));
      continue;
    }
    for (const f of lintDecodedPolicy(p, after)) if (f.severity === "error") saveErrors.push({ policyId: id, code: f.code, path: f.path, message: f.message });
  }
  saveErrors.push(...newDanglingPolicies(world, after, impact));
  return {
    policies: [...impact.policies].sort(),
    entitlements: impact.entitlements,
    apps: impact.apps,
    users: impact.users,
    tenant: impact.tenant,
    now: impact.now,
    conditionsMayChange: impact.conditionsMayChange,
    saveErrors,
    warnings: warnings.map((w) => ({ code: w.code, path: w.path, message: w.message })),
  };
}

/**
 * Why the service would refuse to delete `deleted`: it is built in, or something in the edited
 * world still names it ("You can't delete a policy that's in use", product_admin_policies.mdx; the
 * same check as `DELETE /api/v1/policies/{id}`).
 */
function deleteErrors(deleted: Policy, after: World): EditSaveError[] {
  const id = deleted.id;
  if (deleted.systemBuiltin) return [{ policyId: id, code: "POLICY_BUILT_IN", path: "$", message: `policy "${id}" is built in and cannot be deleted` }];
  const uses = policyUsesIn(after, id);
  if (uses.length === 0) return [];
  const shown = `${uses.slice(0, 5).join(", ")}${uses.length > 5 ? ` and ${uses.length - 5} more` : ""}`;
  return [{ policyId: id, code: "POLICY_IN_USE", path: "$", message: `policy "${id}" is deleted but still in use, so the service would refuse the delete: ${shown} refer${uses.length === 1 ? "s" : ""} to it` }];
}

/**
 * Settings the edit made name a policy that exists in neither world: an app's, entitlement's,
 * request default's, review's or the tenant's policy id (a deleted policy still named is
 * {@link deleteErrors}'). Names that dangled before the edit are the world's, not the edit's.
 */
function newDanglingPolicies(world: World, after: World, impact: EditImpact): EditSaveError[] {
  const rulesChanged = world.entitlementConfigurationRules !== after.entitlementConfigurationRules;
  if (impact.apps.length === 0 && impact.entitlements.length === 0 && !impact.tenant && !rulesChanged) return [];
  const before = new Set(directoryPolicyUses(world).filter((u) => !world.index.policies.has(u.policyId)).map((u) => `${u.policyId}\u0000${u.who}`));
  const out: EditSaveError[] = [];
  for (const u of directoryPolicyUses(after)) {
    if (after.index.policies.has(u.policyId) || world.index.policies.has(u.policyId) || before.has(`${u.policyId}\u0000${u.who}`)) continue;
    out.push({ policyId: u.policyId, code: "UNKNOWN_POLICY", path: "$", message: `${u.who} names policy "${u.policyId}", which does not exist: the service would not save a setting that names no policy` });
  }
  return out;
}

/** The shortest changed prefix (in conditions) for which tasks share results by signature. */
const MEMO_MIN_PREFIX = 4;

const ASPECT_ORDER: readonly RouteAspect[] = ["error", "policy", "source", "chain", "decidedBy", "steps", "approvers"];

/**
 * The edited world and the original, compared over every task in scope (see the module comment).
 */
function run(world: World, after: World, options: WhatIfOptions, warnings: readonly Diagnostic[]): WhatIfResult {
  const impact = editImpact(world, after);
  // Pruning needs every visible change traced to the tasks that see it (or none at all).
  const prune = options.prune !== false && (!impact.conditionsMayChange || impact.visible !== null);
  const inScopeOf = scopeFilter(world, options.scope);
  const comparer = new RouteComparer(world, after);
  const res0 = new ResolutionMemo(world);
  const res1 = new ResolutionMemo(after);
  const reaches = new ReachMemo(world);
  const reachesAfter = new ReachMemo(after);
  const footprint = impact.visible ? new DirectoryFootprint(world, after, impact.visible, reaches, reachesAfter) : null;
  // One slot set (and signature memo) per pair of resolved policies, shared by every resolution key
  // that resolves to them: the results a signature stands for do not depend on the key.
  const slotSets = new Map<Policy | null, Map<Policy | null, ConditionSlots>>();
  const kept = keptClassesOf(world);
  const slotsFor = (p0: Policy | null, p1: Policy | null): ConditionSlots => {
    let byAfter = slotSets.get(p0);
    if (!byAfter) slotSets.set(p0, (byAfter = new Map()));
    let slots = byAfter.get(p1);
    if (!slots) {
      const sources = [...(p0 ? reachConditions(world, p0, reaches) : []), ...(p1 ? reachConditions(after, p1, reachesAfter) : [])];
      byAfter.set(p1, (slots = new ConditionSlots(world, sources, kept)));
    }
    return slots;
  };
  const verdictOf = (task: Task): Verdict => {
    const r0 = res0.resolve(task);
    const r1 = res1.resolve(task);
    const p0 = r0.ok ? r0.value.policy : null;
    const p1 = r1.ok ? r1.value.policy : null;
    const fp = footprint ? footprint.ofKey(task, [p0, p1]) : null;
    const slots = slotsFor(p0, p1);
    const twice: Verdict = { policy: "twice", prefix: [], prefixSlots: [], prefixBySignature: false, sound: false, footprint: fp, slots, byClass: null };
    if (!r0.ok || !r1.ok) return twice;
    // Tasks of one resolution key (kinds resolved by key) are sorted into classes when their conditions allow it.
    const kind = task.type?.kind;
    const byClass = slots.classes && (kind === "grant" || kind === "revoke" || kind === "certify") ? new ClassOutcomes(r0.value, r1.value) : null;
    const p = r0.value.policy;
    if (p.id !== r1.value.policy.id || r0.value.source !== r1.value.source) return { ...twice, byClass };
    const prefix = changedPrefix(world, p, after, r1.value.policy, impact.policies, reaches);
    if (!prefix) return { ...twice, byClass };
    const sound = reaches.of(p).sound;
    if (prefix.length > 0) {
      const prefixSlots = prefix.rules.map((r) => r.conditions.map((c) => slots.of(c) ?? -1));
      const prefixBySignature = prefixSlots.reduce((n, c) => n + c.length, 0) >= MEMO_MIN_PREFIX;
      return { policy: "prefix", prefix: prefix.rules, prefixSlots, prefixBySignature, sound, footprint: fp, slots, byClass };
    }
    return { policy: sound ? "skip" : "once", prefix: [], prefixSlots: [], prefixBySignature: false, sound, footprint: fp, slots, byClass };
  };
  /** What every task of one class of a verdict comes to, from the first of them (see {@link ClassOutcome}). */
  const outcomeOf = (task: Task, verdict: Verdict, byClass: ClassOutcomes, results: (ConditionResult | undefined)[]): ClassOutcome => {
    const conditions = taskConditions(world, task);
    const shared = new SharedConditions(conditions, verdict.slots, results);
    const policy = verdict.policy === "prefix" ? prefixVerdict(verdict, shared) : verdict.policy;
    if (policy === "skip") return shared.strayed ? NO_CLASS : SKIP_CLASS;
    const i0: RouteInput = { task, resolution: byClass.res0, selection: selectSteps(world, byClass.p0, shared), conditions };
    if (policy === "once") {
      if (shared.strayed) return NO_CLASS;
      // Same route in both worlds; an error is listed per task, the route itself needs no approvers.
      return { kind: "once", error: i0.selection?.ok ? null : routeOf(world, i0), res0: byClass.res0, res1: byClass.res1, sel0: i0.selection, sel1: i0.selection, aspects: [], errored: false, bySubject: null };
    }
    const i1: RouteInput = { task, resolution: byClass.res1, selection: selectSteps(after, byClass.p1, shared), conditions };
    if (shared.strayed) return NO_CLASS;
    const errored = i0.selection?.ok !== true || i1.selection?.ok !== true;
    const bySubject = approversReadTask(i0.selection) || approversReadTask(i1.selection) ? null : new Map<string, ClassListing>();
    return { kind: "twice", error: null, res0: byClass.res0, res1: byClass.res1, sel0: i0.selection, sel1: i1.selection, aspects: comparer.aspects(i0, i1), errored, bySubject };
  };
  /** The outcome of the task's class (found by its group, if not -1), or null when the task has none (it is decided on its own). */
  const classOutcome = (task: Task, verdict: Verdict, byClass: ClassOutcomes, group = -1): ClassOutcome | null => {
    const classes = verdict.slots.classes as TaskClasses;
    let part = byClass.entitlementPart;
    if (part < 0) {
      part = classes.entitlementPart(task);
      if (part < 0) return null;
      byClass.entitlementPart = part;
    }
    const id = group >= 0 ? classes.classOfGroup(groupOf as TaskGroups, group, part, task) : classes.classOf(task, part);
    if (id < 0) return null;
    let o = byClass.outcome(id);
    if (o === undefined) byClass.setOutcome(id, (o = outcomeOf(task, verdict, byClass, verdict.slots.resultsOfClass(id))));
    return o.kind === "none" ? null : o;
  };
  const verdicts = new KeyMemo<Verdict>(verdictOf);
  const changed: TaskRouteChange[] = [];
  const unchangedErrors: TaskRouteChange[] = [];
  const groups = new Map<string, GroupAcc>();
  let inScope = 0;
  let unchanged = 0;
  let decisions = 0;
  let pruned = 0;

  const all = tasksInOrder(world);
  // Tasks equal in all a class may read share a group (`taskGroups`); what a group came to, by group.
  const groupOf = prune ? groupsInOrder(world, all) : null;
  // By group: what the group's tasks come to — the listing they share when they are re-routed alike,
  // else their class's outcome (NO_CLASS: each is decided on its own).
  const byGroup = new GroupTable<ClassOutcome | ClassListing>(groupOf ? all.length : 0);
  // The approvers of each group's first step, before and after, where the group's tasks share them.
  const approvers0 = new Map<number, RouteApprovers | null>();
  const approvers1 = new Map<number, RouteApprovers | null>();
  /** What every task of the task's group comes to, or NO_CLASS: each is decided on its own. */
  const groupOutcome = (task: Task, verdict: Verdict, group: number): ClassOutcome | ClassListing => {
    // A footprint is checked task by task; a verdict that skips skips them all.
    if (verdict.footprint !== null) return NO_CLASS;
    if (verdict.policy === "skip") return SKIP_CLASS;
    if (verdict.byClass === null || verdict.slots.classes?.groupable !== true) return NO_CLASS;
    const o = classOutcome(task, verdict, verdict.byClass, group) ?? NO_CLASS;
    // A group has one subject: tasks re-routed alike by subject take their listing in one read.
    if (o.kind !== "twice" || o.bySubject === null || (o.aspects.length === 0 && !o.errored)) return o;
    return listingFor(task, o, o.bySubject, (groupOf as TaskGroups).subjectId(group));
  };
  // Verdicts by the number of a task's resolution key (`TaskGroups.keyOf`), as `verdicts` has them by the key itself.
  const byKey: (Verdict | undefined)[] = [];
  const verdictOfTask = (t: number, task: Task): Verdict => {
    const key = (groupOf as TaskGroups).keyOf(t);
    if (key < 0) return verdicts.get(task);
    let v = byKey[key];
    if (v === undefined) byKey[key] = v = verdicts.get(task);
    return v;
  };
  /** The summary group of changed tasks routed from `before` to `after`. */
  const groupFor = (before: RouteOutcome, afterRoute: RouteOutcome): GroupAcc => {
    const bl = routeLabel(before);
    const al = routeLabel(afterRoute);
    const key = `${bl}\u0000${al}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { before: bl, after: al, changes: new Set(), taskIds: [] }));
    return g;
  };
  /** Both routes of a task its class decided and what differs, approvers included (nothing: an error listed as unchanged). */
  const listingOf = (task: Task, o: ClassOutcome): ClassListing => {
    const conditions = new TaskExpressions(world, task);
    const before = routeOf(world, { task, resolution: o.res0, selection: o.sel0, conditions });
    const afterRoute = routeOf(after, { task, resolution: o.res1, selection: o.sel1, conditions });
    const aspects = [...o.aspects];
    if (aspects.length > 0 && !aspects.includes("approvers") && before.kind === "route" && afterRoute.kind === "route") {
      const a = before.approvers;
      const b = afterRoute.approvers;
      if ((a === null) !== (b === null) || (a && b && (a.via !== b.via || !sameStrings(a.userIds, b.userIds)))) aspects.push("approvers");
    }
    return { kind: "listed", outcome: o, before, after: afterRoute, changes: aspects.length === 0 ? [] : ASPECT_ORDER.filter((a) => aspects.includes(a)), grouped: false };
  };
  /** The listing of the class's tasks of the task's subject, made for the first of them. */
  const listingFor = (task: Task, o: ClassOutcome, bySubject: Map<string, ClassListing>, subjectId: string): ClassListing => {
    let listing = bySubject.get(subjectId);
    if (listing === undefined) bySubject.set(subjectId, (listing = listingOf(task, o)));
    return listing;
  };
  /** Lists a task as its listing says: re-routed, or failing alike in both worlds. */
  const list = (task: Task, listing: ClassListing): void => {
    if (listing.changes.length === 0) {
      unchangedErrors.push(routeChange(task, listing.before, listing.after, []));
      return;
    }
    changed.push(routeChange(task, listing.before, listing.after, listing.changes));
    const o = listing.outcome;
    let g = o.group;
    if (!g) o.group = g = groupFor(listing.before, listing.after);
    if (!listing.grouped) {
      listing.grouped = true;
      for (const c of listing.changes) g.changes.add(c);
    }
    g.taskIds.push(task.id);
  };
  const onProgress = options.onProgress;
  const [from, to] = shardRange(all.length, options.shard);
  let seen = 0;
  for (let t = from; t < to; t++) {
    const task = all[t] as Task;
    if (onProgress && (++seen & 1023) === 0) onProgress(seen, to - from);
    if (inScopeOf !== null && !inScopeOf(task)) continue;
    inScope++;
    // Both sides from the shared parts; null when they come from two plain `decide` calls (no
    // pruning, or the edit reaches what the task's conditions or approvers see).
    let sides: [RouteInput, RouteInput] | null = null;
    // The aspects that differ, when the task's class knows them.
    let known: readonly RouteAspect[] | null = null;
    let byOutcome: ClassOutcome | null = null;
    // The task's group when its group's outcome decided it, else -1.
    let group = -1;
    if (prune) {
      // What the task's group came to (the first task of the group found it), unless it is decided on its own.
      let o: ClassOutcome | null = null;
      let verdict: Verdict | undefined;
      if (groupOf !== null) {
        // A group this run has met: its outcome, without looking the task's verdict up.
        group = groupOf.known(t);
        let e = group >= 0 ? byGroup.get(group) : undefined;
        if (e === undefined) {
          verdict = verdictOfTask(t, task);
          // A task its verdict skips needs no group (an edit that reaches no task groups none).
          if (group < 0 && !(verdict.policy === "skip" && verdict.footprint === null)) {
            group = groupOf.of(t);
            // A group met before in this run (the first run over a world groups as it goes).
            if (group >= 0) e = byGroup.get(group);
          }
          if (group >= 0 && e === undefined) byGroup.set(group, (e = groupOutcome(task, verdict, group)));
        }
        if (e !== undefined && e.kind === "listed") {
          decisions += 2;
          list(task, e);
          continue;
        }
        if (e !== undefined && e !== NO_CLASS) o = e;
        else group = -1;
      }
      if (o === null) {
        verdict ??= verdicts.get(task);
        o = verdict.byClass !== null && verdict.policy !== "skip" && (!verdict.footprint || !footprint?.reaches(task, verdict.footprint)) ? classOutcome(task, verdict, verdict.byClass) : null;
      }
      if (o !== null) {
        // The task's class decided it (the same walk and selections as below, made once per class).
        if (o.kind === "skip") {
          unchanged++;
          pruned++;
          continue;
        }
        if (o.kind === "once") {
          decisions++;
          if (o.error) unchangedErrors.push(routeChange(task, o.error, o.error, []));
          else unchanged++;
          continue;
        }
        if (o.aspects.length === 0 && !o.errored) {
          decisions += 2;
          unchanged++;
          continue;
        }
        if (o.bySubject !== null) {
          // Routes shared by the class's tasks of one subject (see `ClassOutcome.bySubject`): the
          // listed tasks hold the same route objects, which cuts what a run allocates and keeps.
          decisions += 2;
          list(task, listingFor(task, o, o.bySubject, taskSubjectId(task)));
          continue;
        }
        const conditions = new TaskExpressions(world, task);
        sides = [
          { task, resolution: o.res0, selection: o.sel0, conditions },
          { task, resolution: o.res1, selection: o.sel1, conditions },
        ];
        known = o.aspects;
        byOutcome = o;
      } else if (!(verdict as Verdict).footprint || !footprint?.reaches(task, (verdict as Verdict).footprint as KeyFootprint)) {
        verdict = verdict as Verdict;
        let policy = verdict.policy;
        let run: SharedRun | undefined;
        if (policy === "prefix") {
          // The walk of the changed prefix, in both versions at once: decided twice if the first
          // condition that holds is of a rule that differs, else handled as an unchanged policy.
          run = sharedRun(task, world, verdict.slots, verdict.prefixBySignature);
          policy = prefixVerdict(verdict, run.shared);
        }
        if (policy === "skip") {
          unchanged++;
          pruned++;
          continue;
        }
        if (policy === "once") {
          // Same route in both worlds, but it may be an error, which must be listed.
          decisions++;
          const route = routeOf(world, sharedSides(task, world, res0, null, null, run ?? sharedRun(task, world, verdict.slots, true))[0]);
          if (route.kind === "error") unchangedErrors.push(routeChange(task, route, route, []));
          else unchanged++;
          continue;
        }
        sides = sharedSides(task, world, res0, after, res1, run ?? sharedRun(task, world, verdict.slots, true));
      }
    }
    decisions += 2;
    const [i0, i1] = sides ?? [decisionInput(decide(world, task)), decisionInput(decide(after, task))];
    const aspects = known ? [...known] : comparer.aspects(i0, i1);
    // Unless the edit reaches what approver resolution reads, equal steps resolve to equal approvers.
    if (aspects.length === 0 && sides === null && impact.conditionsMayChange && comparer.approversDiffer(world, i0, after, i1)) aspects.push("approvers");
    const errored = i0.selection?.ok !== true || i1.selection?.ok !== true;
    if (aspects.length === 0 && !errored) {
      unchanged++;
      continue;
    }
    // Tasks of one group (same subject, entitlement, kind) share approvers when the step reads nothing else of the task.
    const before = group >= 0 ? routeWith(world, i0, groupApprovers(approvers0, group, world, i0)) : routeOf(world, i0);
    const afterRoute = group >= 0 ? routeWith(after, i1, groupApprovers(approvers1, group, after, i1)) : routeOf(after, i1);
    if (aspects.length > 0 && !aspects.includes("approvers") && before.kind === "route" && afterRoute.kind === "route") {
      const a = before.approvers;
      const b = afterRoute.approvers;
      if ((a === null) !== (b === null) || (a && b && (a.via !== b.via || !sameStrings(a.userIds, b.userIds)))) aspects.push("approvers");
    }
    if (aspects.length === 0) {
      unchangedErrors.push(routeChange(task, before, afterRoute, []));
      continue;
    }
    const changes = ASPECT_ORDER.filter((a) => aspects.includes(a));
    changed.push(routeChange(task, before, afterRoute, changes));
    // A class's tasks share their labels (approvers are not in a label), hence their group.
    let g = byOutcome?.group;
    if (!g) {
      g = groupFor(before, afterRoute);
      if (byOutcome) byOutcome.group = g;
    }
    for (const c of changes) g.changes.add(c);
    g.taskIds.push(task.id);
  }

  onProgress?.(to - from, to - from);
  for (const byAfter of slotSets.values()) for (const slots of byAfter.values()) slots.keep();
  const summary = summaryOfGroups(groups.values());
  return {
    kind: "whatIf",
    edit: summaryOf(impact, world, after, warnings),
    counts: { inWorld: world.tasks.size, inScope, changed: changed.length, unchanged, unchangedErrors: unchangedErrors.length },
    changed,
    unchangedErrors,
    summary,
    stats: { decisions, pruned, ...(options.shard ? { shard: { index: options.shard.index, count: options.shard.count, run: runKey(world, after, impact, options) } } : {}) },
  };
}

/**
 * The approvers of a route input's first step for a task of `group`, shared by the tasks of the
 * group, or `undefined` (resolve them for this task). Tasks of one group agree on everything
 * approver resolution reads of a task (subject, app, entitlement, kind, campaign) but the ids of
 * earlier approvers, the creation time and the task's own facts, which it reads only for a step
 * requiring distinct approvers, allowing delegation, or naming an approver expression: such steps
 * are resolved per task.
 */
function groupApprovers(memo: Map<number, RouteApprovers | null>, group: number, world: World, input: RouteInput): RouteApprovers | null | undefined {
  const sel = input.selection;
  const step = sel?.ok ? sel.value.steps[0] : undefined;
  if (!step || step.kind !== "approval") return null;
  if (approversReadTask(sel)) return undefined;
  let a = memo.get(group);
  if (a === undefined) memo.set(group, (a = approversOf(world, input)));
  return a;
}

/**
 * Whether the approvers of a selection's first step read more of a task than its resolution key
 * (kind, campaign, app, entitlement) and subject: the ids of earlier approvers (distinct approvers),
 * the creation time (delegation), or anything at all (an approver expression).
 */
function approversReadTask(sel: RouteInput["selection"]): boolean {
  const step = sel?.ok ? sel.value.steps[0] : undefined;
  if (!step || step.kind !== "approval") return false;
  const kind = step.approvers;
  return step.allowDelegation || kind?.kind === "expression" || (kind !== null && "requireDistinctApprovers" in kind && kind.requireDistinctApprovers);
}

/**
 * A value per group number (`TaskGroups`), for one run: an index per group into a list of the
 * values set, in a typed array, which stays a flat array however sparsely a run fills it in (a
 * run meets the groups numbered by earlier runs in any order).
 */
class GroupTable<T> {
  readonly #index: Int32Array;
  readonly #values: T[] = [];

  constructor(groups: number) {
    this.#index = new Int32Array(groups);
  }

  get(group: number): T | undefined {
    const i = this.#index[group] as number;
    return i === 0 ? undefined : this.#values[i - 1];
  }

  set(group: number, value: T): void {
    this.#index[group] = this.#values.push(value);
  }
}

/** The task indexes `[from, to)` of one shard of `n` tasks; all of them without a shard. */
function shardRange(n: number, shard: WhatIfOptions["shard"]): readonly [number, number] {
  if (!shard) return [0, n];
  return [Math.floor((n * shard.index) / shard.count), Math.floor((n * (shard.index + 1)) / shard.count)];
}

interface GroupAcc {
  readonly before: string;
  readonly after: string;
  readonly changes: Set<RouteAspect>;
  readonly taskIds: string[];
}

/** The summary: groups by decreasing count, then by label. */
function summaryOfGroups(groups: Iterable<GroupAcc>): RouteGroup[] {
  return [...groups]
    .map((g) => ({ before: g.before, after: g.after, changes: ASPECT_ORDER.filter((a) => g.changes.has(a)), count: g.taskIds.length, taskIds: g.taskIds }))
    .sort((a, b) => b.count - a.count || (a.before < b.before ? -1 : a.before > b.before ? 1 : a.after < b.after ? -1 : a.after > b.after ? 1 : 0));
}

const RUN_KEY_PARTS = ["entitlementConfigurationRules", "groups", "grants", "roles", "appUsers", "resourceTypeDefaults", "accessReviews"] as const;

/**
 * A digest of what a run compares beyond the world's tasks: each object the edit changed, as it
 * stands after it (a policy id in the edit's summary says nothing of which rule was dropped), the
 * tenant, both clocks and the scope. Shards of one run agree on it; shards of two runs over one
 * world almost surely do not. 64 bits of hash of the text, as hex.
 */
function runKey(world: World, after: World, impact: EditImpact, options: WhatIfOptions): string {
  const parts: unknown[] = [world.tasks.size, world.now, after.now, after.tenant, options.scope ?? null];
  for (const id of [...impact.policies].sort()) parts.push(after.index.policies.get(id) ?? id);
  for (const id of impact.users) parts.push(after.index.users.get(id) ?? id);
  for (const id of impact.apps) parts.push(after.index.apps.get(id) ?? id);
  if (impact.entitlements.length > 0) {
    const keys = new Set(impact.entitlements);
    parts.push(impact.entitlements);
    for (const e of after.entitlements) if (keys.has(`${e.appId}/${e.id}`)) parts.push(e);
  }
  // What an edit's summary does not list: configuration rules, and (between worlds given to
  // `whatIfWorlds`) the directory's other parts, whole when they are not the world's own.
  for (const part of RUN_KEY_PARTS) if (after[part] !== world[part]) parts.push(part, after[part] ?? null);
  const text = JSON.stringify(parts, (_k, v: unknown) => (v instanceof Set ? [...(v as Set<unknown>)] : v));
  // Two of the tables' 32-bit hashes (the second over the text behind a marker): 64 bits.
  const hex = (h: number): string => (h >>> 0).toString(16).padStart(8, "0");
  return hex(hashKey(text)) + hex(hashKey(`\u0001${text}`));
}

/**
 * The results of the shards of one run (`shard: { index, count }`, every index once), merged in
 * index order into the result of the whole run: the same lists in the world's task order, counts
 * and work summed, the summary regrouped. `INVALID_ARGUMENT` if the parts are not of one run.
 *
 * @example
 * ```ts
 * const parts = [0, 1].map((index) => whatIf(world, patch, { shard: { index, count: 2 } }));
 * if (parts.every((p) => p.ok)) mergeWhatIfResults(parts.map((p) => p.value)); // = whatIf(world, patch)
 * ```
 */
export function mergeWhatIfResults(given: readonly WhatIfResult[]): Result<WhatIfResult, SimError> {
  // In shard order: the lists come out in the world's task order whatever order the parts came in.
  const parts = [...given].sort((a, b) => (a.stats.shard?.index ?? 0) - (b.stats.shard?.index ?? 0));
  const first = parts[0];
  if (!first) return err({ code: "INVALID_ARGUMENT", message: "no results to merge" });
  if (
    parts.some(
      (p) =>
        p.kind !== "whatIf" ||
        p.counts.inWorld !== first.counts.inWorld ||
        JSON.stringify(p.edit) !== JSON.stringify(first.edit) ||
        p.stats.shard?.run !== first.stats.shard?.run,
    )
  )
    return err({ code: "INVALID_ARGUMENT", message: "the results to merge are not shards of one run (worlds, edits or scopes differ)", field: "parts" });
  // Every shard of the run once: a missing one would count its tasks as not in scope, one given
  // twice would count them twice.
  const count = first.stats.shard?.count;
  if (count === undefined) {
    if (parts.length > 1 || parts.some((p) => p.stats.shard !== undefined))
      return err({ code: "INVALID_ARGUMENT", message: `the results to merge are not shards of one run: ${parts.length} results, and whole runs (without options.shard) are not merged`, field: "parts" });
  } else {
    const indexes = parts.map((p) => (p.stats.shard?.count === count ? p.stats.shard.index : -1));
    const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !indexes.includes(i));
    if (indexes.includes(-1) || parts.length !== count || missing.length > 0)
      return err({
        code: "INVALID_ARGUMENT",
        message: `the results to merge are not every shard of one run once: ${count} shards, ${parts.length} result${parts.length === 1 ? "" : "s"}${missing.length > 0 ? `, shard${missing.length === 1 ? "" : "s"} ${missing.join(", ")} missing` : ""}${indexes.includes(-1) ? ", some of another shard count or none" : ""}`,
        field: "parts",
      });
  }
  const groups = new Map<string, GroupAcc>();
  for (const p of parts)
    for (const g of p.summary) {
      const key = `${g.before}\u0000${g.after}`;
      let acc = groups.get(key);
      if (!acc) groups.set(key, (acc = { before: g.before, after: g.after, changes: new Set(), taskIds: [] }));
      for (const c of g.changes) acc.changes.add(c);
      for (const id of g.taskIds) acc.taskIds.push(id);
    }
  const sum = (f: (p: WhatIfResult) => number): number => parts.reduce((n, p) => n + f(p), 0);
  return ok({
    kind: "whatIf",
    edit: first.edit,
    counts: {
      inWorld: first.counts.inWorld,
      inScope: sum((p) => p.counts.inScope),
      changed: sum((p) => p.counts.changed),
      unchanged: sum((p) => p.counts.unchanged),
      unchangedErrors: sum((p) => p.counts.unchangedErrors),
    },
    changed: parts.flatMap((p) => p.changed),
    unchangedErrors: parts.flatMap((p) => p.unchangedErrors),
    summary: summaryOfGroups(groups.values()),
    stats: { decisions: sum((p) => p.stats.decisions), pruned: sum((p) => p.stats.pruned) },
  });
}

/**
 * Compares, for every task in scope (default: open tasks), what a Hard Reset would choose now and
 * after `edit`. The edit is an immer recipe over `{ policies, entitlements, apps, users, tenant }`
 * or a {@link WorldPatch}-style list of replacements; the world is not modified. Never throws: a
 * recipe that throws, sets a part it may not edit (`tasks`), or leaves an object other than a world
 * file could hold it (`rules = "nope"`, `grantPolicyId = 42`) is an `INVALID_ARGUMENT` whose
 * `field` is the place (`edit.policies[0].rules`); so are options it does not understand (an
 * unknown key, a value of the wrong type: `options.scope.states[0]`, see {@link WhatIfOptions}),
 * a patch key that is not one (`edit.polices`), and an `onProgress` that throws.
 *
 * @example
 * ```ts
 * // What if pol-prod-admin's rule 2 (contractors on critical entitlements) went away?
 * const r = whatIf(world, (w) => {
 *   const p = w.policies.find((x) => x.id === "pol-prod-admin");
 *   p?.rules?.splice(2, 1);
 * });
 * if (r.ok) for (const g of r.value.summary) console.log(g.count, g.before, "→", g.after);
 * ```
 */
export function whatIf(world: World, edit: WorldEdit, options: WhatIfOptions = {}): Result<WhatIfResult, SimError> {
  const notWorld = notAWorld(world);
  if (notWorld) return err(notWorld);
  const decoded = decodeWhatIfOptions(options, world);
  if (!decoded.ok) return decoded;
  const after = editedWorld(world, edit);
  return after.ok ? guardedRun(world, after.value.world, decoded.value, after.value.warnings) : after;
}

/**
 * The world `edit` makes of `world`, as {@link whatIf} runs on it: the edit checked (its shape, what
 * a recipe may set), applied, and each object it wrote read back as `loadWorld` would read it from a
 * world file (a field left out gets its default; an ill-typed one is refused with its place).
 */
function editedWorld(world: World, edit: WorldEdit): Result<{ readonly world: World; readonly warnings: readonly Diagnostic[] }, SimError> {
  let bad: SimError | undefined;
  try {
    bad = badEdit(edit);
  } catch (e: unknown) {
    // A proxy or getter that throws when the edit is read.
    return err({ code: "INVALID_ARGUMENT", message: `the edit cannot be read: ${thrownMessage(e)}`, field: "edit" });
  }
  if (bad) return err(bad);
  let after: World;
  let checked: ReturnType<typeof checkEdit>;
  try {
    after = applyEditUnchecked(world, typeof edit === "function" ? onlyEditableParts(edit) : withWirePoliciesRead(edit));
  } catch (e: unknown) {
    // A stack overflow while the edit is applied: most often a value it wrote nests thousands of levels deep.
    const why =
      e instanceof RangeError && /call stack/i.test(e.message)
        ? `the call stack ran out: a value the edit writes nests too deeply (a world keeps at most ${MAX_JSON_DEPTH} levels), or the edit recurses without end`
        : thrownMessage(e);
    return err({ code: "INVALID_ARGUMENT", message: `the edit failed: ${why}`, field: "edit" });
  }
  try {
    checked = checkEdit(world, after);
  } catch (e: unknown) {
    return err({ code: "INVALID_ARGUMENT", message: `the edit cannot be read: ${thrownMessage(e)}`, field: "edit" });
  }
  const illTyped = illTypedEdit(checked.problems);
  if (!illTyped) return ok({ world: checked.world, warnings: checked.warnings });
  return err(typeof edit === "function" ? illTyped : inPatchTerms(illTyped, edit, after));
}

/**
 * A problem found at `edit.<part>[i]` (the edited world's list) named where the caller wrote it: the
 * patch's own item of that id (`edit.policies[0].rules` for a one-policy patch, not the policy's
 * place in the world).
 */
function inPatchTerms(e: SimError, patch: Exclude<WorldEdit, EditRecipe>, after: World): SimError {
  const field = "field" in e ? e.field : undefined;
  const m = field === undefined ? null : /^edit\.(policies|entitlements|apps|users|entitlementConfigurationRules)\[(\d+)\]/.exec(field);
  if (!m || field === undefined) return e;
  const part = m[1] as "policies" | "entitlements" | "apps" | "users" | "entitlementConfigurationRules";
  const item: unknown = (after[part] as readonly unknown[] | undefined)?.[Number(m[2])];
  const list: unknown = (patch as Readonly<Record<string, unknown>>)[part];
  if (!Array.isArray(list) || item === undefined) return e;
  const byApp = part === "entitlements" || part === "entitlementConfigurationRules";
  const at = list.findIndex((x) => idOf(x) === idOf(item) && (!byApp || idOf(x, "appId") === idOf(item, "appId")));
  if (at < 0) return e;
  const renamed = `edit.${part}[${at}]${field.slice(m[0].length)}`;
  return { code: "INVALID_ARGUMENT", field: renamed, message: e.message.split(field).join(renamed) };
}

/**
 * Applies an edit to a world and returns the edited world, exactly the one {@link whatIf} compares
 * against (the original is untouched): the edit checked and applied, each object it wrote read back
 * as a world file's would be (an enum written in another accepted form takes the loaded form, a
 * field left out its default). Tasks, comments and every untouched object are shared; an edit that
 * changes nothing returns the world itself. Follow a what-if with `decide`/`explain` on this world
 * and they agree with it. An edit whatIf refuses (a broken recipe, `rules = "nope"`, a patch item
 * with no id) throws a `TypeError` naming the place, as for a programmer error; use `whatIf`, or
 * `applyEditUnchecked` + `editDiagnostics`, to have it as a value.
 *
 * @example
 * ```ts
 * const edited = applyEdit(world, (w) => { w.tenant.defaultPolicies["grant"] = "pol-strict"; });
 * edited.tenant.defaultPolicies["grant"]; // "pol-strict"; world.tenant is unchanged
 * decide(edited, task); // the route whatIf reports as "after"
 * ```
 */
export function applyEdit(world: World, edit: WorldEdit): World {
  const notWorld = notAWorld(world);
  if (notWorld) throw new TypeError(`applyEdit: ${notWorld.message}`);
  const r = editedWorld(world, edit);
  if (!r.ok) {
    const field = "field" in r.error ? r.error.field : undefined;
    throw new TypeError(`applyEdit: ${r.error.message}${field !== undefined ? ` (at ${field})` : ""}`);
  }
  return r.value.world;
}

/** {@link run}, its faults as `INTERNAL` and a throw of the caller's `onProgress` as the caller's mistake. */
function guardedRun(world: World, after: World, options: WhatIfOptions, warnings: readonly Diagnostic[]): Result<WhatIfResult, SimError> {
  try {
    return ok(run(world, after, options, warnings));
  } catch (e: unknown) {
    if (e instanceof OnProgressFailed) return err({ code: "INVALID_ARGUMENT", message: `options.onProgress threw, which stopped the run: ${e.reason}`, field: "options.onProgress" });
    return err({ code: "INTERNAL", message: `policy-sim internal error: ${thrownMessage(e)}` });
  }
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  try {
    return typeof v === "object" && v !== null && typeof (v as { then?: unknown }).then === "function";
  } catch {
    return false;
  }
}

/** The parts of a world a recipe may set (`EditableWorld`). */
const EDITABLE_PARTS: ReadonlySet<string> = new Set(["policies", "entitlements", "apps", "users", "entitlementConfigurationRules", "tenant"]);

/**
 * The recipe, refusing (by throwing, which `whatIf` reports as `INVALID_ARGUMENT`) a draft it left
 * with a part what-if does not edit (`w.tasks = …`): that change would otherwise be dropped unseen.
 */
function onlyEditableParts(recipe: EditRecipe): EditRecipe {
  return (draft) => {
    // A recipe may also return a replacement for the whole draft, as immer allows: checked the same.
    const returned: unknown = (recipe as (d: typeof draft) => unknown)(draft);
    if (isThenable(returned)) {
      // What it does after an await meets a draft already revoked: its rejection is ours to absorb,
      // or it would be an unhandled rejection in the caller's process.
      void Promise.resolve(returned).then(undefined, () => undefined);
      throw new Error("it returned a Promise: a recipe must be synchronous (an async function returns a Promise, and what it does after an await is lost); make the changes without await, or apply them to a patch (WorldPatch) computed beforehand");
    }
    const result: unknown = returned === undefined ? draft : returned;
    if (typeof result !== "object" || result === null) throw new Error("it returned something other than the editable world (an object of policies, entitlements, apps, users, entitlementConfigurationRules, tenant)");
    const other = Object.keys(result).filter((k) => !EDITABLE_PARTS.has(k));
    if (other.length > 0)
      throw new Error(`it set ${other.map((k) => `"${k}"`).join(", ")}, which what-if does not edit (a recipe may change ${[...EDITABLE_PARTS].join(", ")}; tasks are what it routes)`);
    const missing = returned === undefined ? [] : [...EDITABLE_PARTS].filter((k) => !Object.hasOwn(result, k));
    if (missing.length > 0) throw new Error(`the world it returned has no ${missing.map((k) => `"${k}"`).join(", ")}`);
    // A part replaced by something of another shape would be dropped unseen (a null tenant kept the old one).
    const parts = result as Readonly<Record<string, unknown>>;
    for (const k of EDITABLE_PARTS) {
      const v = parts[k];
      if (k === "tenant" ? typeof v !== "object" || v === null || Array.isArray(v) : !Array.isArray(v))
        throw new Error(`it set ${k} to ${describeValue(v)}; ${k === "tenant" ? "the tenant is an object" : `${k} is a list`}`);
    }
    return returned as undefined;
  };
}

/**
 * An edit that left an object ill-typed (`rules = "nope"`, `grantPolicyId = 42`): the first problem
 * `loadWorld` would report for it in a world file, with the object's path in the edited list.
 */
function illTypedEdit(problems: readonly Diagnostic[]): SimError | undefined {
  const first = problems[0];
  if (first === undefined) return undefined;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? "s" : ""})` : "";
  const what = first.code === "EDIT_TOO_LARGE" ? `the edit is too large to run at ${first.path}` : `the edit left ${first.path} ill-typed`;
  return { code: "INVALID_ARGUMENT", message: `${what}: ${first.message}${more}`, field: first.path };
}

/** The id of a patched object, or "" when it has none a world could match. */
function idOf(x: unknown, key = "id"): string {
  if (typeof x !== "object" || x === null) return "";
  const v: unknown = (x as Record<string, unknown>)[key];
  return typeof v === "string" ? v : "";
}


/**
 * A patch whose policies may be as a world file or the API writes them (a step `{ approval: … }`,
 * where a Policy has `{ kind: "approval", … }`): such a policy is read as `loadWorld` reads it, so
 * that a policy taken from `world.json` or `GET /api/v1/policies/{id}` is a patch as it is. A policy
 * that does not read so is left as given, for the check to name what is wrong with it.
 */
function withWirePoliciesRead(edit: WorldPatch): WorldPatch {
  const policies: unknown = edit.policies;
  if (!Array.isArray(policies) || !policies.some(isWirePolicy)) return edit;
  return {
    ...edit,
    policies: policies.map((p: unknown) => {
      if (!isWirePolicy(p)) return p as Policy;
      const r = decodePolicy(p);
      return r.ok ? r.value : (p as Policy);
    }),
  };
}

/** Whether some step of a policy's step lists lacks the `kind` every Policy step has: the API's form. */
function isWirePolicy(p: unknown): boolean {
  if (typeof p !== "object" || p === null) return false;
  const steps: unknown = (p as { policySteps?: unknown }).policySteps;
  if (typeof steps !== "object" || steps === null) return false;
  for (const list of Object.values(steps)) {
    const items: unknown = typeof list === "object" && list !== null ? (list as { steps?: unknown }).steps : undefined;
    if (Array.isArray(items) && items.some((s: unknown) => typeof s === "object" && s !== null && !("kind" in s))) return true;
  }
  return false;
}

/** The keys of a {@link WorldPatch}. */
const PATCH_KEYS: readonly string[] = ["policies", "entitlements", "apps", "users", "entitlementConfigurationRules", "tenant", "now"];

/**
 * An edit that names nothing: an object in a patch without the id it would be matched by
 * (`{ policies: [{}] }`), which would report "no change" whatever was meant. (The empty patch `{}`
 * stays a deliberate no-op: the baseline a run compares against.)
 */
function badEdit(edit: WorldEdit): SimError | undefined {
  if (typeof edit === "function") return undefined;
  if (typeof edit !== "object" || edit === null || Array.isArray(edit))
    return { code: "INVALID_ARGUMENT", message: "the edit must be a patch ({ policies, entitlements, apps, users, tenant }) or a function of the world", field: "edit" };
  // A misspelt part (`polices`) would be a patch that changes nothing: "no task changes", wrongly.
  for (const k of Object.keys(edit))
    if (!PATCH_KEYS.includes(k)) {
      const guess = closest(k, PATCH_KEYS);
      return { code: "INVALID_ARGUMENT", message: `edit.${k} is not a part of a patch${guess ? `; did you mean ${guess}?` : `; the parts are ${PATCH_KEYS.join(", ")}`}`, field: `edit.${k}` };
    }
  const now: unknown = edit.now;
  // The clock decides conditions on time and delegation windows: one it cannot read is no clock at all.
  if (now !== undefined && !isRealTimestamp(now))
    return { code: "INVALID_ARGUMENT", message: `edit.now must be an RFC 3339 timestamp such as "2026-11-22T09:00:00Z", got ${describeValue(now)}`, field: "edit.now" };
  for (const k of ["policies", "entitlements", "apps", "users", "entitlementConfigurationRules"] as const) {
    const list: unknown = edit[k];
    if (list === undefined) continue;
    if (!Array.isArray(list)) return { code: "INVALID_ARGUMENT", message: `edit.${k} must be an array`, field: `edit.${k}` };
    // One item per object: of two with one id, a patch would apply the last and drop the first unsaid.
    const first = new Map<string, number>();
    for (let i = 0; i < list.length; i++) {
      const item: unknown = list[i];
      const byApp = k === "entitlements" || k === "entitlementConfigurationRules";
      if (idOf(item) === "" || (byApp && idOf(item, "appId") === ""))
        return { code: "INVALID_ARGUMENT", message: `edit.${k}[${i}] has no ${byApp ? "appId and id" : "id"}: nothing in the world would be replaced`, field: `edit.${k}[${i}]` };
      // As the world keys them: "a/b" + "c" and "a" + "b/c" are two entitlements.
      const key = byApp ? entitlementKey(idOf(item, "appId"), idOf(item)) : idOf(item);
      const earlier = first.get(key);
      if (earlier !== undefined) {
        const named = byApp ? `appId ${JSON.stringify(idOf(item, "appId"))}, id ${JSON.stringify(idOf(item))}` : JSON.stringify(key);
        return { code: "INVALID_ARGUMENT", message: `edit.${k}[${i}] and edit.${k}[${earlier}] are both ${named}: a patch holds one version of each object`, field: `edit.${k}[${i}]` };
      }
      first.set(key, i);
    }
  }
  return undefined;
}

/**
 * {@link whatIf} between two worlds you already have, e.g. a world and the same tenant re-exported
 * later: `after` should share `world`'s tasks (only `world`'s tasks are considered).
 *
 * @example
 * ```ts
 * const r = whatIfWorlds(world, replaceInWorld(world, { policies: [edited] }));
 * ```
 */
export function whatIfWorlds(world: World, after: World, options: WhatIfOptions = {}): Result<WhatIfResult, SimError> {
  const notWorld = notAWorld(world);
  if (notWorld) return err(notWorld);
  const notAfter = notAWorld(after);
  if (notAfter) return err({ ...notAfter, message: notAfter.message.replace(/^world must/, "after must"), field: "after" });
  const decoded = decodeWhatIfOptions(options, world);
  if (!decoded.ok) return decoded;
  let checked: ReturnType<typeof checkEdit>;
  try {
    checked = checkEdit(world, after);
  } catch (e: unknown) {
    return err({ code: "INVALID_ARGUMENT", message: `the edited world cannot be read: ${thrownMessage(e)}`, field: "after" });
  }
  const bad = illTypedEdit(checked.problems);
  if (bad) return err(bad);
  return guardedRun(world, checked.world, decoded.value, checked.warnings);
}
