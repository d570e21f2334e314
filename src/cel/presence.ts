/**
 * `has()` on a field of one of the environments' messages (`has(subject.manager_id)`,
 * `has(task.analysis)`): true when the field holds more than its protobuf default, as cel-go answers
 * for a proto3 message field (a string "", a number 0, false, an empty list or map, an unset
 * message, an enum at its zero member). cel-js, left alone, answers true for every declared field of
 * an object, so `has(subject.manager_id)` would hold for a user without a manager
 * (product_admin_expressions-reference.mdx: "Use the has() macro to check for existence of optional
 * fields"). Maps keep cel-js's answer, a key's presence (`has(subject.profile.custom_field)`).
 *
 * After a check, {@link markPresence} gives each such `has()` node its own evaluation; both
 * evaluators (cel-js's and the closures) use it.
 */
import { Duration, UnsignedInt } from "@marcbachmann/cel-js/evaluator";
import { CelEnumValue } from "./enums.js";
import { messageFieldsOf, messageFieldTypes } from "./environment.js";
import { isCelNode, type CelNode, walkCheckedAst } from "./internals.js";

/** What cel-js keeps of a `has()` call on its node (`meta.macro`). */
interface HasMacro {
  macroHasProps?: unknown;
  evaluate?: unknown;
  /** Set here: the field whose presence the call asks for. */
  presence?: { readonly field: string };
}

interface Runner {
  run(node: CelNode, ctx: unknown): unknown;
  debugType(v: unknown): { fieldLazy(obj: unknown, key: unknown, node: CelNode, ev: unknown): unknown };
}

const MAX_DEPTH = 8;

/**
 * Whether a value is its field's protobuf default: what `has()` reports absent. A message is
 * absent when every field of it is (an unset message reads as one of defaults).
 *
 * @example
 * ```ts
 * isDefaultValue(""); // true
 * isDefaultValue(["x"]); // false
 * ```
 */
export function isDefaultValue(v: unknown, depth = 0): boolean {
  if (v === undefined || v === null) return true;
  switch (typeof v) {
    case "string":
      return v === "";
    case "boolean":
      return !v;
    case "bigint":
      return v === 0n;
    case "number":
      return v === 0;
    case "object":
      break;
    default:
      return false;
  }
  if (Array.isArray(v)) return v.length === 0;
  if (v instanceof Map || v instanceof Set) return v.size === 0;
  if (v instanceof Date) return v.getTime() === 0;
  if (v instanceof Duration) return v.seconds === 0n && v.nanos === 0;
  if (v instanceof UnsignedInt) return v.value === 0n;
  // An enum's first member is its zero (`UserStatus.UNKNOWN`, `TaskOrigin.UNSPECIFIED`): what an unset field reads.
  if (v instanceof CelEnumValue) return v.name === (v.def.members[0] ?? "") || v.name === "";
  const fields = messageFieldsOf(v);
  if (fields !== undefined) {
    if (depth >= MAX_DEPTH) return false;
    const r = v as Readonly<Record<string, unknown>>;
    return fields.every((f) => isDefaultValue(r[f], depth + 1));
  }
  // A map written as an object (a profile).
  if (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null) return Object.keys(v).length === 0;
  return false;
}

/**
 * Whether `has(value.field)` holds for a value of a message type of the environments (see the
 * module's note); `undefined` when the value is of no such type (a map or `dyn` holding one: ask
 * cel-js).
 *
 * @example
 * ```ts
 * fieldPresent(celUser({ ...ada, managerIds: [] }), "manager_id"); // false
 * ```
 */
export function fieldPresent(value: unknown, field: string): boolean | undefined {
  if (messageFieldsOf(value) === undefined) return undefined;
  return !isDefaultValue((value as Readonly<Record<string, unknown>>)[field]);
}

/**
 * Gives every `has()` of `root` whose operand is, by its checked type, a message of the
 * environments its own evaluation (see the module's note). Call after the type check; optional
 * selections (`has(a.?b)`) keep cel-js's.
 *
 * @example
 * ```ts
 * markPresence(checkedAst);
 * ```
 */
export function markPresence(root: CelNode): void {
  walkCheckedAst(root, (_n, meta) => {
    if (meta?.macro !== undefined) mark(meta.macro as HasMacro);
  });
}

function mark(macro: HasMacro): void {
  const props = macro.macroHasProps;
  if (!Array.isArray(props) || props.length < 2 || !props.every(isCelNode)) return;
  const nodes = props as readonly CelNode[];
  if (nodes.some((x) => x.op === ".?")) return;
  // The type of the operand of the last selection, from the root's checked type down its fields.
  const rootNode = nodes[nodes.length - 1] as CelNode;
  let type: string | undefined = rootNode.checkedType?.name;
  for (let i = nodes.length - 2; i >= 1 && type !== undefined; i--) type = messageFieldTypes(type)?.[String(selected(nodes[i] as CelNode))];
  if (type === undefined || messageFieldTypes(type) === undefined) return;
  const field = selected(nodes[0] as CelNode);
  const original = macro.evaluate;
  if (typeof field !== "string" || typeof original !== "function") return;
  const fields = nodes.map(selected);
  macro.presence = { field };
  // cel-js's walk (macros.js) down to the operand: the root variable, then each field as a
  // selection reads it; the last field's presence as above. Anything else (a missing field on the
  // way, a value of no message type) is cel-js's own answer.
  const plain = original as (ev: Runner, m: HasMacro, ctx: unknown) => unknown;
  macro.evaluate = (ev: Runner, m: HasMacro, ctx: unknown): unknown => {
    let obj = ev.run(rootNode, ctx);
    for (let i = nodes.length - 2; i >= 1 && obj !== undefined; i--) obj = ev.debugType(obj).fieldLazy(obj, fields[i], nodes[i] as CelNode, ev);
    const present = obj === undefined ? undefined : fieldPresent(obj, field);
    return present === undefined ? plain(ev, m, ctx) : present;
  };
}

/** The field a selection node (`a.b`) names. */
function selected(n: CelNode): unknown {
  return Array.isArray(n.args) ? (n.args as unknown[])[1] : undefined;
}

/**
 * The field of a `has()` that {@link markPresence} marked, for the closures.
 *
 * @example
 * ```ts
 * presenceOf(meta.macro)?.field; // "manager_id"
 * ```
 */
export function presenceOf(macro: unknown): { readonly field: string } | undefined {
  return typeof macro === "object" && macro !== null ? (macro as HasMacro).presence : undefined;
}
