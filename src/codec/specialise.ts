/**
 * Functions generated for one message (or union) each, that decode and encode it as a hand-written
 * codec would: field and member names written out, the result built as one object literal.
 *
 * Why generate code: the interpreted loops in `schema.ts` run one piece of code for every message,
 * and V8 optimises property access per place in the code. At the shared loop each read and write
 * meets every message's fields and object shapes (megamorphic access), and an object filled one
 * property at a time changes shape at every step and regrows its property store. A function per
 * message sees one shape at each place, and its object literal is allocated at its final size.
 * That is most of the difference between the two (bench/codec.bench.ts).
 *
 * The generated functions do exactly what the interpreted loops do, field by field and in the same
 * order (same reads, same diagnostics, same result, same key order), and hand the oneofs and
 * unknown fields to the same helpers ({@link FieldSteps}). Their source holds the schema's own
 * property and member names (as JSON string literals), never anything from a document. Where code cannot be generated (a
 * Content-Security-Policy without `unsafe-eval`, runtimes that forbid `new Function`), and for
 * messages the generator does not cover, the interpreted loops run instead; a property test checks
 * that both give identical results on generated and corrupted documents.
 */
import type { CompiledMessage, DecodeContext, OneofGroup, PathSegment, RuntimeMember } from "./schema.js";
import { canGenerate } from "../can-generate.js";

/**
 * Decodes the fields of one message from `obj` (a JSON object), starting with `kind` for a oneof
 * member's message.
 *
 * @example
 * ```ts
 * const out = decodeFields(json, ctx, undefined);
 * ```
 */
export type FieldsDecoder = (obj: Readonly<Record<string, unknown>>, ctx: DecodeContext, kind: string | undefined) => Record<string, unknown>;

/**
 * Encodes the fields of one message.
 *
 * @example
 * ```ts
 * const wire = encodeFields(task);
 * ```
 */
export type FieldsEncoder = (value: Readonly<Record<string, unknown>>) => Record<string, unknown>;

/**
 * The steps of decoding and encoding fields that the generated functions share with the interpreted
 * loops (see `schema.ts`).
 *
 * @example
 * ```ts
 * const steps: FieldSteps = { hasOwn, decodeGroup, addUnknownFields, encodeGroup, encodeUnknownFields };
 * ```
 */
export interface FieldSteps {
  readonly hasOwn: (obj: object, key: string) => boolean;
  readonly decodeGroup: (
    prop: string,
    group: OneofGroup<unknown>,
    msg: CompiledMessage,
    obj: Readonly<Record<string, unknown>>,
    keys: readonly string[],
    ctx: DecodeContext,
    claimed: string[] | undefined,
  ) => unknown;
  readonly addUnknownFields: (
    msg: CompiledMessage,
    obj: Readonly<Record<string, unknown>>,
    keys: readonly string[],
    claimed: readonly string[] | undefined,
    out: Record<string, unknown>,
  ) => void;
  readonly encodeGroup: (group: OneofGroup<unknown>, value: unknown, out: Record<string, unknown>) => void;
  readonly encodeUnknownFields: (value: Readonly<Record<string, unknown>>, out: Record<string, unknown>) => void;
}

/**
 * The member a union (a message that is only a oneof) holds when its one key is a member set to
 * something other than null, decoded; undefined for any other document, which the interpreted
 * union decoder then handles.
 *
 * @example
 * ```ts
 * const out = decodeMember(json, Object.keys(json), "$", ctx) ?? decodeUnion(json, keys, "$", ctx);
 * ```
 */
export type UnionMemberDecoder = (
  obj: Readonly<Record<string, unknown>>,
  keys: readonly string[],
  at: PathSegment,
  ctx: DecodeContext,
) => Record<string, unknown> | undefined;

/**
 * Encodes a union's value: its member under the member's key, or an unknown member as it came,
 * then its outer unknown fields.
 *
 * @example
 * ```ts
 * const wire = encodeUnion(step); // { approval: {...} }
 * ```
 */
export type UnionEncoder = (value: Readonly<Record<string, unknown>> & { readonly kind: string }) => Record<string, unknown>;

/**
 * The steps of a union's encoding the generated encoder shares with the interpreted one.
 *
 * @example
 * ```ts
 * const steps: UnionSteps = { encodeUnknownMember, encodeOuterFields };
 * ```
 */
export interface UnionSteps {
  readonly encodeUnknownMember: (value: Readonly<Record<string, unknown>>, out: Record<string, unknown>) => void;
  readonly encodeOuterFields: (value: Readonly<Record<string, unknown>>, out: Record<string, unknown>) => void;
}

/** A property name as a string literal in generated code. */
const literal = (s: string): string => JSON.stringify(s);

/**
 * Whether the generated code can name every property of `msg` in an object literal. It cannot
 * name `__proto__` (in a literal that sets the prototype), nor `kind` besides a member's kind.
 */
function literalSafe(msg: CompiledMessage): boolean {
  return msg.fields.every(({ prop }) => prop !== "__proto__" && prop !== "kind");
}

/** Declarations binding each field's codec (`c<i>`) and oneof group (`g<i>`) to a constant. */
function bindings(msg: CompiledMessage): string {
  return msg.fields.map(({ group }, i) => (group === undefined ? `const c${i} = fields[${i}].codec;` : `const g${i} = fields[${i}].group;`)).join("\n");
}

/**
 * Compiles `function name(params) { body }` after `prelude`, with `inputs` in scope by name, and
 * returns it; undefined when the runtime refuses.
 */
function build<F>(name: string, inputs: Readonly<Record<string, unknown>>, prelude: string, params: string, body: readonly string[]): F | undefined {
  const source = `"use strict";\n${prelude}\nreturn function ${name}(${params}) {\n  ${body.join("\n  ")}\n};`;
  try {
    const factory = new Function(...Object.keys(inputs), source) as (...args: unknown[]) => F;
    return factory(...Object.values(inputs));
  } catch {
    return undefined;
  }
}

/**
 * A decoder for the fields of `msg`, or undefined where code cannot be generated or the message has
 * a field with presence (`opt`): a literal cannot leave a property out, and those messages (the
 * form validation rules) are rare.
 *
 * @example
 * ```ts
 * const decodeFields = specialiseDecoder(msg, steps, false) ?? interpretedDecoder;
 * ```
 */
export function specialiseDecoder(msg: CompiledMessage, steps: FieldSteps, member: boolean): FieldsDecoder | undefined {
  if (!canGenerate() || !literalSafe(msg) || msg.fields.some(({ codec }) => codec?.optional === true)) return undefined;
  const body = ["const keys = Object.keys(obj);", `const claimed = ${msg.claims ? "[]" : "undefined"};`, "let raw;"];
  const props = member ? ["kind"] : [];
  msg.fields.forEach(({ prop, codec, group }, i) => {
    const key = literal(prop);
    props.push(`${key}: v${i}`);
    if (group !== undefined) {
      body.push(`const v${i} = decodeGroup(${key}, g${i}, msg, obj, keys, ctx, claimed);`);
      return;
    }
    // As the interpreter: an own property only; null is absent; a verbatim value is taken as is.
    const verbatim = codec?.["~verbatim"];
    body.push(
      `raw = hasOwn(obj, ${key}) ? obj[${key}] : undefined;`,
      `const v${i} = raw === undefined || raw === null ? c${i}.missing() : ${verbatim === undefined ? "" : `typeof raw === "${verbatim}" ? raw : `}c${i}.decode(raw, ${key}, ctx);`,
    );
  });
  body.push(`const out = { ${props.join(", ")} };`, "addUnknownFields(msg, obj, keys, claimed, out);", "return out;");
  const prelude = `const { hasOwn, decodeGroup, addUnknownFields } = steps;\n${bindings(msg)}`;
  return build<FieldsDecoder>("decodeFields", { steps, msg, fields: msg.fields }, prelude, "obj, ctx, kind", body);
}

/**
 * An encoder for the fields of `msg`, or undefined where code cannot be generated. The fields up to
 * the first oneof or field that may be left out go into the object literal; the rest are added one
 * by one, as the interpreter does, so that keys keep their order. A oneof's members are encoded
 * from a `case` each, with their keys written out (see {@link specialiseUnionEncoder}).
 *
 * @example
 * ```ts
 * const encodeFields = specialiseEncoder(msg, steps) ?? interpretedEncoder;
 * ```
 */
export function specialiseEncoder(msg: CompiledMessage, steps: FieldSteps): FieldsEncoder | undefined {
  if (!canGenerate() || !literalSafe(msg)) return undefined;
  const body = ["let v;"];
  const inLiteral: string[] = [];
  let rest = false;
  const memberConsts: string[] = [];
  msg.fields.forEach(({ prop, codec, group }, i) => {
    const key = literal(prop);
    if (group !== undefined) {
      if (!rest) body.push(`const out = { ${inLiteral.join(", ")} };`);
      rest = true;
      if (!membersSafe(group.members)) {
        body.push(`encodeGroup(g${i}, obj[${key}], out);`);
        return;
      }
      // A case per member, its key written out (as a union's encoder does); anything else, the
      // unknown member included, goes to encodeGroup as before.
      const cases = [...group.members.keys()].map((member, j) => {
        memberConsts.push(`const g${i}m${j} = g${i}.members.get(${literal(member)});`);
        return `case ${literal(member)}: out[${literal(member)}] = g${i}m${j}.encode(v); break;`;
      });
      body.push(`v = obj[${key}];`, "if (v !== null && v !== undefined) switch (v.kind) {", ...cases.map((c) => `  ${c}`), `  default: encodeGroup(g${i}, v, out);`, "}");
      return;
    }
    // A hand-built model may leave out a field its type requires: write the default.
    const byDefault = codec?.optional === true ? "" : `c${i}.encode(c${i}.missing())`;
    body.push(`v = obj[${key}];`);
    if (!rest && byDefault !== "" && codec?.omit === undefined) {
      body.push(`const e${i} = v === undefined ? ${byDefault} : c${i}.encode(v);`);
      inLiteral.push(`${key}: e${i}`);
      return;
    }
    if (!rest) body.push(`const out = { ${inLiteral.join(", ")} };`);
    rest = true;
    if (byDefault !== "") body.push(`if (v === undefined) out[${key}] = ${byDefault};`);
    const omit = codec?.omit === undefined ? "" : ` && c${i}.omit(v) !== true`;
    body.push(`if (v !== undefined${omit}) out[${key}] = c${i}.encode(v);`);
  });
  if (!rest) body.push(`const out = { ${inLiteral.join(", ")} };`);
  body.push("encodeUnknownFields(obj, out);", "return out;");
  const prelude = `const { encodeGroup, encodeUnknownFields } = steps;\n${bindings(msg)}\n${memberConsts.join("\n")}`;
  return build<FieldsEncoder>("encodeFields", { steps, msg, fields: msg.fields }, prelude, "obj", body);
}

/**
 * Whether the generated code can name every member of a union in a `case` and a literal: not
 * `__proto__` (see {@link literalSafe}), nor `unknown`, the kind the interpreter checks first.
 */
function membersSafe(members: ReadonlyMap<string, RuntimeMember>): boolean {
  return !members.has("__proto__") && !members.has("unknown");
}

/** Declarations binding each member of a union to a constant `m<i>`, in `members` order. */
function memberBindings(members: ReadonlyMap<string, RuntimeMember>): string {
  return [...members.keys()].map((key, i) => `const m${i} = members.get(${literal(key)});`).join("\n");
}

/**
 * The decoder of a union's usual document, one key naming a member that is set, or undefined where
 * code cannot be generated. Each member is decoded from its own `case`, a call V8 can inline, and
 * reads and path steps are those of the interpreted decoder for such a document.
 *
 * @example
 * ```ts
 * const decodeMember = specialiseUnionDecoder(members);
 * ```
 */
export function specialiseUnionDecoder(members: ReadonlyMap<string, RuntimeMember>): UnionMemberDecoder | undefined {
  if (!canGenerate() || !membersSafe(members)) return undefined;
  const cases = [...members.keys()].map((key, i) => {
    const k = literal(key);
    return `case ${k}: if (obj[${k}] !== null) { ctx.path.push(at); const out = m${i}.decode(obj[${k}], ${k}, ctx, ${k}); ctx.path.pop(); return out; } break;`;
  });
  const body = ["if (keys.length !== 1) return undefined;", "switch (keys[0]) {", ...cases.map((c) => `  ${c}`), "}", "return undefined;"];
  return build<UnionMemberDecoder>("decodeUnionMember", { members }, memberBindings(members), "obj, keys, at, ctx", body);
}

/**
 * A union's encoder, or undefined where code cannot be generated: each member is encoded from its
 * own `case` into an object literal with its key written out (a store under a computed key, where
 * every union's members meet, is several times slower).
 *
 * @example
 * ```ts
 * const encodeUnion = specialiseUnionEncoder(members, steps);
 * ```
 */
export function specialiseUnionEncoder(members: ReadonlyMap<string, RuntimeMember>, steps: UnionSteps): UnionEncoder | undefined {
  if (!canGenerate() || !membersSafe(members)) return undefined;
  const cases = [...members.keys()].map((key, i) => `case ${literal(key)}: out = { ${literal(key)}: m${i}.encode(value) }; break;`);
  const body = [
    "let out;",
    "switch (value.kind) {",
    ...cases.map((c) => `  ${c}`),
    '  default: out = {}; if (value.kind === "unknown") encodeUnknownMember(value, out);',
    "}",
    "encodeOuterFields(value, out);",
    "return out;",
  ];
  const prelude = `const { encodeUnknownMember, encodeOuterFields } = steps;\n${memberBindings(members)}`;
  return build<UnionEncoder>("encodeUnion", { steps, members }, prelude, "value", body);
}
