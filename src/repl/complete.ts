/**
 * Tab completion for the REPL, as a pure function of the line and the world: inside a string
 * argument it offers the ids that fit where the string is (task ids and numeric ids for
 * `explain("…`, user ids after `as: "…`, policy ids for `lint("…`), outside strings the bound
 * names, and after a leading dot the REPL's commands.
 */
import type { World } from "../world/world.js";

/**
 * What to offer: the completions and the part of the line they replace, as `node:readline`'s
 * completer returns it.
 *
 * @example
 * ```ts
 * const [hits, typed]: Completion = [["1001", "1002"], "100"];
 * ```
 */
export type Completion = [string[], string];

/** Which ids fit a string argument. */
type IdKind = "task" | "user" | "policy" | "app";

interface Ids {
  readonly task: readonly string[];
  readonly user: readonly string[];
  readonly policy: readonly string[];
  readonly app: readonly string[];
}

// A world is immutable, so its sorted id lists are computed once per world and kept with it.
const idCache = new WeakMap<World, Ids>();

function idsOf(world: World): Ids {
  let ids = idCache.get(world);
  if (!ids) {
    const task: string[] = [];
    for (const [id, t] of world.tasks.entries()) {
      if (t.numericId) task.push(t.numericId);
      task.push(id);
    }
    ids = {
      // Numeric ids first: they are what people type.
      task: task.sort((a, b) => Number(/^\d+$/.test(b)) - Number(/^\d+$/.test(a)) || (a.length - b.length) || (a < b ? -1 : a > b ? 1 : 0)),
      user: world.users.map((u) => u.id).sort(),
      policy: world.policies.map((p) => p.id).sort(),
      app: world.apps.map((a) => a.id).sort(),
    };
    idCache.set(world, ids);
  }
  return ids;
}

/**
 * Where an unterminated string literal at the end of `line` starts (the index after its quote),
 * or -1 when the line does not end inside a string.
 *
 * @example
 * ```ts
 * openStringAt('explain("10'); // 9
 * openStringAt('explain("1001")'); // -1
 * ```
 */
export function openStringAt(line: string): number {
  let quote = "";
  let start = -1;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote !== "") {
      if (c === "\\") i++;
      else if (c === quote) quote = "";
    } else if (c === '"' || c === "'" || c === "`") {
      quote = c;
      start = i + 1;
    }
  }
  return quote === "" ? -1 : start;
}

/** The ids that fit a string whose opening quote follows `before`. */
function kindsFor(before: string): readonly IdKind[] {
  if (/\bas\s*:\s*$/.test(before)) return ["user"];
  if (/\bapp\s*:\s*$/.test(before)) return ["app"];
  if (/\b(lint|policy)\s*\(\s*$/.test(before)) return ["policy"];
  if (/\b(explain|reset|comment|task)\s*\(\s*$/.test(before)) return ["task"];
  if (/\bsave\s*\(\s*$/.test(before)) return [];
  return ["task", "user", "policy", "app"];
}

const REPL_COMMANDS = [".break", ".clear", ".editor", ".exit", ".help", ".load", ".save", ".undo", ".world"];

/**
 * Completes the end of `line` against `world` and the REPL's bound `names`.
 *
 * @example
 * ```ts
 * completeLine('explain("100', world, ["explain"]); // [["1001", "1002", …], "100"]
 * completeLine('reset("1022", { as: "u-it', world, []); // [["u-it-dir"], "u-it"]
 * completeLine("expl", world, ["explain", "world"]); // [["explain"], "expl"]
 * ```
 */
export function completeLine(line: string, world: World, names: readonly string[]): Completion {
  const open = openStringAt(line);
  if (open >= 0) {
    const typed = line.slice(open);
    const ids = idsOf(world);
    const hits: string[] = [];
    for (const kind of kindsFor(line.slice(0, open - 1))) for (const id of ids[kind]) if (id.startsWith(typed)) hits.push(id);
    return [[...new Set(hits)], typed];
  }
  if (/^\s*\.\w*$/.test(line)) {
    const typed = line.trim();
    return [REPL_COMMANDS.filter((c) => c.startsWith(typed)), typed];
  }
  const word = /[A-Za-z_$][\w$]*$/.exec(line)?.[0] ?? "";
  // After a dot the word is a property (`world.tas`): not ours to complete.
  if (line.slice(0, line.length - word.length).endsWith(".")) return [[], word];
  return [names.filter((n) => n.startsWith(word)), word];
}
