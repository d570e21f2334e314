/**
 * The attribute names of the provider's `conductorone_policy` resource (terraform/policy-resource.md),
 * nested as the schema nests them: the one list of names the plan reader checks a plan against, and
 * the source of which attributes are read-only. A plan written by another provider version (the
 * older `user_approval`, `manager_approval`…) or holding the API's camelCase names would otherwise
 * pass unnoticed and leave, say, an approval step without approvers. Oneofs are the page's too
 * ("only a single field of the following list may be set at a time").
 */

/**
 * One attribute of the schema: a value (a string, number, boolean, a list or map of them, or JSON
 * text), read-only when the service computes it; or nested attributes, once, in a list, or in a map
 * whose keys are data.
 *
 * @example
 * ```ts
 * const a: SchemaAttribute = { kind: "nested", nesting: "list", attributes: { condition: { kind: "value" } } };
 * ```
 */
export type SchemaAttribute =
  | { readonly kind: "value"; readonly readOnly?: true }
  | {
      readonly kind: "nested";
      readonly nesting: "single" | "list" | "map";
      readonly attributes: Readonly<Record<string, SchemaAttribute>>;
      /** The attribute's oneof: of these names, "only a single field … may be set at a time". */
      readonly oneof?: readonly string[];
    };

type Attributes = Readonly<Record<string, SchemaAttribute>>;

const value: SchemaAttribute = { kind: "value" };
const readOnly: SchemaAttribute = { kind: "value", readOnly: true };
const single = (attributes: Attributes, oneof?: readonly string[]): SchemaAttribute => ({ kind: "nested", nesting: "single", attributes, ...(oneof ? { oneof } : {}) });
const list = (attributes: Attributes, oneof?: readonly string[]): SchemaAttribute => ({ kind: "nested", nesting: "list", attributes, ...(oneof ? { oneof } : {}) });
const map = (attributes: Attributes): SchemaAttribute => ({ kind: "nested", nesting: "map", attributes });

const fallbackGroupIds = list({ app_entitlement_id: value, app_id: value });
const fallback = { fallback: value, fallback_group_ids: fallbackGroupIds, fallback_user_ids: value, is_group_fallback_enabled: value };
const approvers = { allow_self_approval: value, require_distinct_approvers: value };
const provisioner = { allow_reassignment: value, fallback_user_ids: value };

const approval = single({
  agent: single({ agent_failure_action: value, agent_mode: value, agent_user_id: value, instructions: value, policy_ids: value, reassign_to_user_ids: value }),
  allow_delegation: value,
  allow_reassignment: value,
  allowed_reassignees: value,
  app_owners: single(approvers),
  assigned: readOnly,
  entitlement_owners: single({ ...approvers, ...fallback }),
  escalation: single(
    {
      cancel_ticket: single({}),
      escalation_comment: value,
      expiration: value,
      reassign_to_approvers: single({ approver_ids: value }),
      replace_policy: single({ policy_id: value }),
      skip_step: single({}),
    },
    ["replace_policy", "reassign_to_approvers", "cancel_ticket", "skip_step"],
  ),
  escalation_enabled: value,
  expression: single({ ...approvers, ...fallback, expressions: value, assigned_user_ids: readOnly }),
  group: single({ ...approvers, ...fallback, app_group_id: value, app_id: value }),
  manager: single({ ...approvers, ...fallback, assigned_user_ids: readOnly }),
  require_approval_reason: value,
  require_denial_reason: value,
  require_reassignment_reason: value,
  requires_step_up_provider_id: value,
  resource_owners: single({ ...approvers, ...fallback }),
  self: single({ ...fallback, assigned_user_ids: readOnly }),
  users: single({ ...approvers, user_ids: value }),
  webhook: single({ webhook_id: value }),
}, ["users", "manager", "app_owners", "group", "self", "entitlement_owners", "expression", "webhook", "resource_owners", "agent"]);

const provision = single({
  assigned: value,
  provision_policy: single({
    action: single({ action_name: value, app_id: value, connector_id: value, display_name: value }),
    connector: single(
      {
        account: single({ config: value, connector_id: value, do_not_save: single({}), save_to_vault: single({ vault_ids: value }), schema_id: value }, ["save_to_vault", "do_not_save"]),
        default_behavior: single({ connector_id: value }),
        delete_account: single({ connector_id: value }),
      },
      ["default_behavior", "account", "delete_account"],
    ),
    delegated: single({ app_id: value, entitlement_id: value }),
    device_placement: single({ vault_boundary_id: value }),
    external_ticket: single({ app_id: value, connector_id: value, external_ticket_provisioner_config_id: value, instructions: value }),
    manual: single({
      assignee: single({
        app_owners: single(provisioner),
        entitlement_owners: single(provisioner),
        expression: single({ ...provisioner, expressions: value }),
        group: single({ ...provisioner, app_group_id: value, app_id: value }),
        manager: single(provisioner),
        users: single({ allow_reassignment: value, user_ids: value }),
      }, ["users", "app_owners", "group", "manager", "expression", "entitlement_owners"]),
      instructions: value,
      user_ids: value,
    }),
    multi_step: value,
    unconfigured: single({}),
    webhook: single({ webhook_id: value }),
  }, ["connector", "manual", "delegated", "webhook", "multi_step", "external_ticket", "unconfigured", "action", "device_placement"]),
  provision_target: single({ app_entitlement_id: value, app_id: value, app_user_id: value, grant_duration: value }),
});

const wait = single({
  comment_on_first_wait: value,
  comment_on_timeout: value,
  condition: single({ condition: value }),
  duration: single({ duration: value }),
  name: value,
  timeout_duration: value,
  until_time: single({ hours: value, minutes: value, timezone: value }),
}, ["condition", "duration", "until_time"]);

/**
 * The `conductorone_policy` resource's attributes, as terraform/policy-resource.md lists them
 * (required, optional and read-only, at every depth).
 *
 * @example
 * ```ts
 * Object.keys(POLICY_SCHEMA); // ["annotations", "baseline_policy_id", …, "updated_at"]
 * ```
 */
export const POLICY_SCHEMA: Readonly<Record<string, SchemaAttribute>> = {
  annotations: value,
  baseline_policy_id: value,
  created_at: readOnly,
  description: value,
  display_name: value,
  id: readOnly,
  policy_steps: map({
    // "Each step is a oneof -- exactly one step type is set per entry."
    steps: list(
      {
        accept: single({ accept_message: value }),
        action: single(
          { automation: single({ automation_template_id: value }), baton_resource_action: single({ baton_resource_action_id: value }), client_id_approval: single({}) },
          ["automation", "baton_resource_action", "client_id_approval"],
        ),
        approval,
        form: value,
        provision,
        reject: single({ reject_message: value }),
        wait,
      },
      ["accept", "action", "approval", "form", "provision", "reject", "wait"],
    ),
  }),
  policy_type: value,
  post_actions: list({ certify_remediate_immediately: value }),
  reassign_tasks_to_delegates: value,
  rules: list({ condition: value, policy_id: value, policy_key: value, step_key: value }, ["policy_id", "step_key"]),
  scope: single({ app_entitlement_id: value, app_id: value, slot: value }),
  system_builtin: readOnly,
  updated_at: readOnly,
};

/**
 * The schema of the attribute at a path of attribute values (`["policy_steps", "grant", "steps", 0,
 * "approval", "assigned"]`: map keys and list indexes included; a path ending at an element gives
 * the list or map holding it), or undefined when the schema has no such attribute.
 *
 * @example
 * ```ts
 * attributeAt(["policy_steps", "grant", "steps", 0, "approval", "assigned"]); // { kind: "value", readOnly: true }
 * ```
 */
export function attributeAt(path: readonly (string | number)[]): SchemaAttribute | undefined {
  let attributes: Attributes = POLICY_SCHEMA;
  let found: SchemaAttribute | undefined;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    if (typeof seg !== "string" || !Object.hasOwn(attributes, seg)) return undefined;
    found = attributes[seg];
    if (found === undefined || i === path.length - 1) return found;
    if (found.kind === "value") return undefined;
    // A list's index or a map's key stands between an attribute and its nested attributes.
    if (found.nesting !== "single") i++;
    attributes = found.attributes;
  }
  return found;
}

/**
 * The read-only attributes at the top of the resource (`id`, `created_at`, `updated_at`,
 * `system_builtin`): the service computes them, so a plan says nothing about them.
 *
 * @example
 * ```ts
 * COMPUTED_ATTRIBUTES.has("updated_at"); // true
 * ```
 */
export const COMPUTED_ATTRIBUTES: ReadonlySet<string> = new Set(Object.entries(POLICY_SCHEMA).filter(([, a]) => a.kind === "value" && a.readOnly).map(([n]) => n));

/**
 * Whether the attribute at a path of attribute values is one the service computes (read-only).
 *
 * @example
 * ```ts
 * isReadOnly(["policy_steps", "grant", "steps", 0, "approval", "manager", "assigned_user_ids"]); // true
 * ```
 */
export function isReadOnly(path: readonly (string | number)[]): boolean {
  const a = attributeAt(path);
  return a?.kind === "value" && a.readOnly === true;
}

/**
 * The other members of the oneof an attribute belongs to (terraform/policy-resource.md: "Only a
 * single field of the following list may be set at a time"), by the attribute's path; empty when
 * it belongs to none.
 *
 * @example
 * ```ts
 * oneofSiblings(["rules", 0, "policy_id"]); // ["step_key"]
 * ```
 */
export function oneofSiblings(path: readonly (string | number)[]): readonly string[] {
  const name = path[path.length - 1];
  if (typeof name !== "string") return [];
  // The attribute holding the object this one is in (attributeAt passes a list's index or a map's key).
  const a = path.length > 1 ? attributeAt(path.slice(0, -1)) : undefined;
  if (a?.kind !== "nested" || a.oneof === undefined || !a.oneof.includes(name)) return [];
  return a.oneof.filter((n) => n !== name);
}
