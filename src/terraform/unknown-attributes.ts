/**
 * A plan's attribute names checked against the provider's `conductorone_policy` schema
 * (terraform/policy-resource.md, kept in policy-schema.ts): names it does not have, with the
 * schema name each most likely stands for.
 */
import { closest } from "../text/closest.js";
import { isRecord, pathKey } from "./attributes.js";
import { POLICY_SCHEMA, type SchemaAttribute } from "./policy-schema.js";

type Attributes = Readonly<Record<string, SchemaAttribute>>;

/**
 * A name in a plan's attribute values that the schema does not have, where it is, and the schema's
 * name it most likely stands for.
 *
 * @example
 * ```ts
 * const u: UnknownAttribute = { path: "$.policy_steps.grant.steps[0].approval.user_approval",
 *   segments: ["policy_steps", "grant", "steps", 0, "approval", "user_approval"], name: "user_approval", suggestion: "users", value: { user_ids: ["u-1"] } };
 * ```
 */
export interface UnknownAttribute {
  readonly path: string;
  /** The same path as keys and indexes from the values given. */
  readonly segments: readonly (string | number)[];
  readonly name: string;
  readonly suggestion: string | undefined;
  readonly value: unknown;
}

/** `policySteps` → `policy_steps`; the spec's `svc…` names are the provider's `baton…` ones. */
function snakeCase(name: string): string {
  return name.replace(/^svc(?=[A-Z])/, "baton").replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/**
 * The schema name a misspelt, camelCase or older-provider name stands for: the snake_case of an
 * API name, a name without the older provider's `_approval` suffix (`user_approval` → `users`,
 * `app_group_approval` → `group`), or the closest by edit distance.
 *
 * @example
 * ```ts
 * suggestAttribute("manager_approval", ["manager", "users"]); // "manager"
 * suggestAttribute("policySteps", ["policy_steps"]);          // "policy_steps"
 * ```
 */
export function suggestAttribute(name: string, siblings: readonly string[]): string | undefined {
  const has = (n: string): boolean => siblings.includes(n);
  const snake = snakeCase(name);
  if (snake !== name && has(snake)) return snake;
  const stem = snake.replace(/_approval$/, "");
  if (stem !== snake && stem !== "") {
    for (const n of [stem, `${stem}s`]) if (has(n)) return n;
    const tail = siblings.find((n) => stem.endsWith(`_${n}`) || stem.endsWith(`_${n.replace(/s$/, "")}`));
    if (tail !== undefined) return tail;
  }
  return closest(snake, siblings);
}

/**
 * The names in a resource's attribute values (a plan's `after`) that the `conductorone_policy`
 * schema does not have, with JSONPaths from `at`. Map keys (step keys, annotation keys) are data
 * and JSON text is the API's, so neither is checked; a value of the wrong shape is left to the codec.
 *
 * @example
 * ```ts
 * unknownAttributes({ display_name: "P", displayName: "P" }, "$.after");
 * // [{ path: "$.after.displayName", segments: ["displayName"], name: "displayName", suggestion: "display_name", value: "P" }]
 * ```
 */
export function unknownAttributes(values: Readonly<Record<string, unknown>>, at: string): UnknownAttribute[] {
  const out: UnknownAttribute[] = [];
  const walk = (v: unknown, attributes: Attributes, path: string, segments: readonly (string | number)[]): void => {
    if (!isRecord(v) || segments.length > 32) return;
    const names = Object.keys(attributes);
    for (const [name, x] of Object.entries(v)) {
      const here = pathKey(path, name);
      const at = [...segments, name];
      const a = Object.hasOwn(attributes, name) ? attributes[name] : undefined;
      if (a === undefined) {
        out.push({ path: here, segments: at, name, suggestion: suggestAttribute(name, names), value: x });
        continue;
      }
      if (a.kind === "value") continue;
      if (a.nesting === "single") walk(x, a.attributes, here, at);
      else if (a.nesting === "list" && Array.isArray(x)) x.forEach((e, i) => walk(e, a.attributes, `${here}[${i}]`, [...at, i]));
      else if (a.nesting === "map" && isRecord(x)) for (const [k, e] of Object.entries(x)) walk(e, a.attributes, pathKey(here, k), [...at, k]);
    }
  };
  walk(values, POLICY_SCHEMA, at, []);
  return out;
}
