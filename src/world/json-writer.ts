/**
 * An iterative JSON writer: the text `JSON.stringify(value, null, indent)` gives, produced in chunks
 * and without recursion. `JSON.stringify` recurses once per level of nesting, so a value nested
 * ~10,000 levels deep throws a RangeError, and it builds one string, which V8 caps at 512 MiB; a
 * world written in chunks has neither limit.
 */

/** About how many UTF-16 code units a chunk holds before it is handed out. */
const CHUNK = 1 << 16;

type Frame =
  | { readonly kind: "array"; readonly items: readonly unknown[]; index: number; readonly indent: string }
  | { readonly kind: "object"; readonly source: Readonly<Record<string, unknown>>; readonly keys: readonly string[]; index: number; wrote: boolean; readonly indent: string }
  | { readonly kind: "iterable"; readonly list: LazyList; readonly items: Iterator<unknown>; wrote: boolean; readonly indent: string };

/**
 * A list whose items are made one at a time while being written (e.g. a world's tasks encoded as
 * they are written, so the encoded list is never in memory whole). Written as a JSON array.
 *
 * @example
 * ```ts
 * const tasks = new LazyList(() => (function* () { for (const t of world.tasks.values()) yield encodeTask(t); })());
 * ```
 */
export class LazyList {
  constructor(readonly items: () => Iterator<unknown>) {}
}

function scalar(v: unknown): string | undefined {
  switch (typeof v) {
    case "string":
      return JSON.stringify(v);
    case "number":
      return Number.isFinite(v) ? String(v) : "null";
    case "boolean":
      return v ? "true" : "false";
    case "bigint":
      // JSON.stringify throws on a BigInt; written as a string, nothing is lost and nothing throws.
      return JSON.stringify(String(v));
    default:
      return v === null ? "null" : undefined;
  }
}

/** What JSON.stringify writes for a member value it does not skip: objects get `toJSON` applied. */
function prepared(v: unknown, key: string): unknown {
  if (typeof v === "object" && v !== null && !(v instanceof LazyList)) {
    const toJSON = (v as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") return (toJSON as (k: string) => unknown).call(v, key);
  }
  return v;
}

/**
 * The JSON text of `value` in chunks, equal when joined to `JSON.stringify(value, null, indent)`
 * (for `indent` 0, `JSON.stringify(value)`); {@link LazyList} values are written as arrays. Never
 * recurses, so any depth is written. A value that refers to itself would never end: it throws a
 * TypeError, as `JSON.stringify` does.
 *
 * @example
 * ```ts
 * const text = [...jsonChunks({ a: [1, { b: null }] }, 2)].join("");
 * text === JSON.stringify({ a: [1, { b: null }] }, null, 2); // true
 * ```
 */
export function* jsonChunks(value: unknown, indent = 0): Generator<string, void, undefined> {
  const step = " ".repeat(Math.max(0, Math.min(10, Math.trunc(indent))));
  const nl = step === "" ? "" : "\n";
  const colon = step === "" ? ":" : ": ";
  let buffer = "";
  const stack: Frame[] = [];
  const onStack = new Set<object>();

  /** Writes a scalar, or opens a container (pushed for the loop), or returns false to skip. */
  const open = (v: unknown, at: string): boolean => {
    const s = scalar(v);
    if (s !== undefined) {
      buffer += s;
      return true;
    }
    if (typeof v !== "object" || v === null) return false; // undefined, functions, symbols
    if (onStack.has(v)) throw new TypeError("Converting circular structure to JSON");
    if (v instanceof LazyList) {
      buffer += "[";
      stack.push({ kind: "iterable", list: v, items: v.items(), wrote: false, indent: at });
    } else if (Array.isArray(v)) {
      buffer += "[";
      stack.push({ kind: "array", items: v, index: 0, indent: at });
    } else {
      buffer += "{";
      stack.push({ kind: "object", source: v as Record<string, unknown>, keys: Object.keys(v), index: 0, wrote: false, indent: at });
    }
    onStack.add(v);
    return true;
  };

  if (!open(prepared(value, ""), "")) return;
  for (;;) {
    if (buffer.length >= CHUNK) {
      yield buffer;
      buffer = "";
    }
    const top = stack[stack.length - 1];
    if (top === undefined) break;
    const inner = top.indent + step;
    if (top.kind === "array") {
      if (top.index < top.items.length) {
        const i = top.index++;
        buffer += `${i === 0 ? "" : ","}${nl}${inner}`;
        if (!open(prepared(top.items[i], String(i)), inner)) buffer += "null";
        continue;
      }
      buffer += top.items.length === 0 ? "]" : `${nl}${top.indent}]`;
      onStack.delete(top.items);
    } else if (top.kind === "iterable") {
      const next = top.items.next();
      if (next.done !== true) {
        buffer += `${top.wrote ? "," : ""}${nl}${inner}`;
        top.wrote = true;
        if (!open(prepared(next.value, ""), inner)) buffer += "null";
        continue;
      }
      buffer += top.wrote ? `${nl}${top.indent}]` : "]";
      onStack.delete(top.list);
    } else {
      if (top.index < top.keys.length) {
        const key = top.keys[top.index++] as string;
        const v = prepared(top.source[key], key);
        const s = scalar(v);
        const skipped = s === undefined && (typeof v !== "object" || v === null);
        if (skipped) continue;
        buffer += `${top.wrote ? "," : ""}${nl}${inner}${JSON.stringify(key)}${colon}`;
        top.wrote = true;
        open(v, inner);
        continue;
      }
      buffer += top.wrote ? `${nl}${top.indent}}` : "}";
      onStack.delete(top.source);
    }
    stack.pop();
  }
  if (buffer !== "") yield buffer;
}
