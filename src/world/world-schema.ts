/**
 * The JSON Schema of the world file, generated from the code that reads it: tasks and policies from
 * the codec's schemas (the same data the decoders and the test arbitraries are built from), the
 * directory objects from what their decoders read and as which type. Editors complete and check a
 * world that names it in `$schema`; unknown fields stay allowed everywhere (the service adds
 * fields), and open enums suggest their members without refusing others. Like the decoders, it
 * takes `null` for an unset scalar (the API writes both).
 */
import { decodeConfigRule } from "./config-rule-codec.js";
import { policyCodec } from "../codec/policy.js";
import { type FieldNode, type SchemaNode, schemaOf } from "../codec/schema.js";
import { taskCodec } from "../codec/task.js";
import type { JsonObject, JsonValue } from "../model/json.js";
import {
  decodeAccessReview,
  decodeApp,
  decodeAppUser,
  decodeEntitlement,
  decodeGrant,
  decodeGroup,
  decodeResourceTypeDefault,
  decodeRole,
  decodeUser,
} from "./decode-directory.js";
import { ObjectReader } from "./read.js";

/** A reader that remembers which type each field was read as, to describe a decoder's input. */
class TypeRecorder extends ObjectReader {
  readonly types = new Map<string, JsonObject>();
  constructor() {
    super({}, "$", []);
  }
  private note(key: string, schema: JsonObject): void {
    if (!this.types.has(key)) this.types.set(key, schema);
  }
  override raw(key: string): unknown {
    this.note(key, {});
    return super.raw(key);
  }
  override string(key: string): string {
    this.note(key, { type: ["string", "null"] });
    return super.string(key);
  }
  override boolean(key: string): boolean {
    this.note(key, { type: ["boolean", "null"] });
    return super.boolean(key);
  }
  override strings(key: string): readonly string[] {
    this.note(key, { type: ["array", "null"], items: { type: "string" } });
    return super.strings(key);
  }
  override object(key: string): JsonObject {
    this.note(key, { type: ["object", "null"] });
    return super.object(key);
  }
}

function directoryItem(decode: (r: ObjectReader) => unknown, description: string, extra: Readonly<Record<string, JsonObject>> = {}): JsonObject {
  const r = new TypeRecorder();
  decode(r);
  const properties: Record<string, JsonValue> = {};
  for (const [k, v] of r.types) properties[k] = v;
  return { type: "object", description, properties: { ...properties, ...extra }, additionalProperties: true };
}

/** Converts codec schema nodes, naming each lazy (recursive or shared) node once under `$defs`. */
class Converter {
  readonly defs: Record<string, JsonValue> = {};
  private readonly names = new Map<SchemaNode, string>();

  constructor(private readonly prefix: string) {}

  node(n: SchemaNode): JsonObject {
    switch (n.t) {
      case "string":
        return { type: ["string", "null"] };
      case "bool":
        return { type: ["boolean", "null"] };
      case "int32":
        return { type: ["integer", "null"] };
      case "int64":
        return { type: ["string", "integer", "null"], description: `a${n.unsigned ? " u" : "n "}int64, as a decimal string (or a JSON integer)` };
      case "timestamp":
        return { type: ["string", "null"], format: "date-time" };
      case "duration":
        return { type: ["string", "null"], pattern: "^-?[0-9]+(\\.[0-9]+)?s$", description: 'a duration such as "3600s"' };
      case "durationOrInt64":
        return { type: ["string", "integer", "null"] };
      case "jsonObject":
        return { type: ["object", "null"] };
      case "json":
        return {};
      case "enum":
        // Open enums: suggest the members, accept what the service may add later.
        return { anyOf: [{ enum: [...n.members] }, { type: ["string", "null"] }] };
      case "nullable":
        return { anyOf: [this.node(n.inner), { type: "null" }] };
      case "optional":
      case "omitEmpty":
        return this.node(n.inner);
      case "list":
        return { type: ["array", "null"], items: this.node(n.item) };
      case "map":
        return { type: ["object", "null"], additionalProperties: this.node(n.value) };
      case "lazy":
        return this.lazy(n);
      case "message":
        return this.message(n.fields);
      case "union":
        return { type: "object", properties: Object.fromEntries(n.members.map((m) => [m.key, "fields" in m ? this.message(m.fields) : this.node(m.wrap)])), additionalProperties: true };
      default:
        return {};
    }
  }

  private lazy(n: SchemaNode & { t: "lazy" }): JsonObject {
    const target = n.get();
    let name = this.names.get(target);
    if (name === undefined) {
      name = `${this.prefix}${this.messages.size + this.names.size + 1}`;
      this.names.set(target, name);
      this.defs[name] = this.node(target);
    }
    return { $ref: `#/$defs/${name}` };
  }

  private readonly messages = new Map<readonly FieldNode[], string>();

  /** Every message once, under `$defs` (tasks embed policies embed steps…: inlined, the schema is 700 KB). */
  private message(fields: readonly FieldNode[]): JsonObject {
    let name = this.messages.get(fields);
    if (name === undefined) {
      name = `${this.prefix}${this.messages.size + this.names.size + 1}`;
      this.messages.set(fields, name);
      this.defs[name] = this.messageBody(fields);
    }
    return { $ref: `#/$defs/${name}` };
  }

  private messageBody(fields: readonly FieldNode[]): JsonObject {
    const properties: Record<string, JsonValue> = {};
    for (const f of fields) {
      if ("node" in f) properties[f.prop] = this.node(f.node);
      else for (const m of f.oneof.members) properties[m.key] = "fields" in m ? this.message(m.fields) : this.node(m.wrap);
    }
    return { type: "object", properties, additionalProperties: true };
  }
}

/**
 * The JSON Schema (draft 2020-12) of the world file, as data. `policy-sim/world.schema.json` in the
 * package is this, written by `npm run schema`; a test keeps the two equal.
 *
 * @example
 * ```ts
 * const schema = worldSchema();
 * writeFileSync("world.schema.json", JSON.stringify(schema, null, 2));
 * ```
 */
export function worldSchema(): JsonObject {
  const c = new Converter("m");
  const task = c.node(schemaOf(taskCodec));
  const policy = c.node(schemaOf(policyCodec));
  // Sorted, so the file does not change with the order the walk met the definitions in.
  const defs = Object.fromEntries(Object.entries(c.defs).sort(([a], [b]) => a.localeCompare(b, "en", { numeric: true })));
  const list = (item: JsonObject): JsonObject => ({ type: ["array", "null"], items: item });
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "https://policy-sim.dev/world.schema.json",
    title: "policy-sim world",
    description: "A snapshot of an identity-governance tenant: policies, directory, tasks, and the simulation's clock and settings. Tasks and policies are the service's API objects; fields marked (sim) exist only in the simulation.",
    type: "object",
    properties: {
      $schema: { type: "string" },
      version: { const: 1 },
      now: { type: "string", format: "date-time", description: "(sim) the simulation clock: CEL now(), action timestamps" },
      seq: { type: "integer", minimum: 1, description: "(sim) the next id of the world's deterministic id sequence" },
      tenant: {
        type: "object",
        description: "(sim) tenant settings",
        properties: {
          id: { type: "string", description: "the tenant's id, as the API's introspect gives it (IntrospectResponse.tenantId); kept by pull" },
          defaultPolicies: { type: "object", properties: { grant: { type: "string" }, revoke: { type: "string" }, certify: { type: "string" } }, additionalProperties: { type: "string" } },
          featureFlags: { type: "object", additionalProperties: { type: "boolean" } },
        },
        additionalProperties: true,
      },
      roles: list(directoryItem((r) => decodeRole(r, [], []), "(sim) a role users hold by roleIds")),
      users: list(directoryItem(decodeUser, "a User of the service's directory")),
      apps: list(directoryItem((r) => decodeApp(r, []), "an App", { appOwners: { type: "array", items: { type: "object" }, description: "owners as the API returns them (User objects)" } })),
      entitlements: list(directoryItem(decodeEntitlement, "an AppEntitlement")),
      appUsers: list(directoryItem(decodeAppUser, "an AppUser: a user's account in an app")),
      groups: list(directoryItem(decodeGroup, "(sim) a group of users")),
      grants: list(
        directoryItem((r) => decodeGrant(r, []), "(sim) who holds which entitlement", {
          createdAt: { type: ["string", "null"], format: "date-time", description: "when the grant was made (AppEntitlementUserBinding.createdAt); absent or null when unknown" },
          deprovisionAt: { type: ["string", "null"], format: "date-time", description: "when time-limited access ends (AppEntitlementUserBinding.deprovisionAt); absent or null for none" },
        }),
      ),
      resourceTypeDefaults: list(directoryItem(decodeResourceTypeDefault, "(sim) request defaults of an app's resource types")),
      entitlementConfigurationRules: list(directoryItem(decodeConfigRule, "an AppEntitlementRoutingRule: an app's entitlement configuration rule (condition, priority, enabled, settings)")),
      accessReviews: list(directoryItem(decodeAccessReview, "(sim) an access review (campaign)")),
      policies: list(policy),
      tasks: list(task),
      tokens: { type: ["object", "null"], description: "(sim) bearer tokens serve accepts: token → the id of the user it acts as", additionalProperties: { type: "string" } },
      comments: { type: ["array", "null"], description: "(sim) comments on tasks", items: { type: "object", properties: { id: { type: "string" }, taskId: { type: "string" }, userId: { type: "string" }, comment: { type: "string" }, createdAt: { type: "string", format: "date-time" } }, additionalProperties: true } },
    },
    additionalProperties: true,
    $defs: defs,
  };
}
