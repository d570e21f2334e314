/**
 * Codec of policy step definitions (spec, "PolicyStep").
 */
import { ApprovalAgentFailureAction, ApprovalAgentMode } from "../model/enums.js";
import type { JsonValue } from "../model/json.js";
import type {
  AccountStorage,
  ActionStep,
  Approval,
  ApproverKind,
  ConnectorProvision,
  Escalation,
  EscalationPolicy,
  ManualAssignee,
  PolicyStep,
  Provision,
  ProvisionPolicy,
  ProvisionTarget,
} from "../model/policy-step.js";
import type { Result } from "../result.js";
import { appEntitlementReferenceCodec } from "./common.js";
import type { Diagnostic } from "./diagnostic.js";
import { formCodec } from "./form.js";
import {
  type Codec,
  type FieldSpecs,
  bool,
  duration,
  durationOrInt64,
  enumOf,
  int32,
  jsonObject,
  lazy,
  list,
  message,
  nullable,
  oneof,
  runDecode,
  str,
  union,
  wrap,
} from "./schema.js";

const fallback = {
  fallback: bool,
  fallbackGroupIds: list(appEntitlementReferenceCodec),
  fallbackUserIds: list(str),
  isGroupFallbackEnabled: bool,
} as const;

const approvers = oneof<ApproverKind>({
  users: { allowSelfApproval: bool, requireDistinctApprovers: bool, userIds: list(str) },
  appOwners: { allowSelfApproval: bool, requireDistinctApprovers: bool },
  self: { assignedUserIds: list(str), ...fallback },
  entitlementOwners: { allowSelfApproval: bool, ...fallback, requireDistinctApprovers: bool },
  resourceOwners: { allowSelfApproval: bool, ...fallback, requireDistinctApprovers: bool },
  manager: { allowSelfApproval: bool, assignedUserIds: list(str), ...fallback, requireDistinctApprovers: bool },
  expression: {
    allowSelfApproval: bool,
    assignedUserIds: list(str),
    ...fallback,
    requireDistinctApprovers: bool,
    expressions: list(str),
  },
  group: { allowSelfApproval: bool, appGroupId: str, appId: str, ...fallback, requireDistinctApprovers: bool },
  webhook: { webhookId: str },
  agent: {
    agentFailureAction: enumOf(ApprovalAgentFailureAction),
    agentMode: enumOf(ApprovalAgentMode),
    agentUserId: str,
    instructions: str,
    policyIds: list(str),
    reassignToUserIds: list(str),
  },
});

/**
 * The escalation-policy oneof, shared by the approval step's `escalation` and the approval
 * instance's `escalationInstance`.
 *
 * @example
 * ```ts
 * const fields = { escalationPolicy: escalationPolicyGroup };
 * ```
 */
export const escalationPolicyGroup = oneof<EscalationPolicy>({
  reassignToApprovers: { approverIds: list(str) },
  replacePolicy: { policyId: str },
  skipStep: {},
  cancelTicket: {},
});

const escalation = message<Escalation>({
  escalationComment: str,
  expiration: durationOrInt64,
  escalationPolicy: escalationPolicyGroup,
});

const approvalFields: FieldSpecs<Approval> = {
  allowDelegation: bool,
  allowReassignment: bool,
  assigned: bool,
  escalationEnabled: bool,
  requireApprovalReason: bool,
  requireDenialReason: bool,
  requireReassignmentReason: bool,
  allowedReassignees: list(str),
  requiresStepUpProviderId: str,
  escalation: nullable(escalation),
  approvers,
};

/**
 * Codec of the approval step message, as an approval instance's `approval` definition.
 *
 * @example
 * ```ts
 * const fields = { approval: nullable(approvalCodec) };
 * ```
 */
export const approvalCodec: Codec<Approval> = message<Approval>(approvalFields);

const accountStorage = oneof<AccountStorage>({ doNotSave: {}, saveToVault: { vaultIds: list(str) } });

const connectorProvision = union<ConnectorProvision>({
  account: { config: nullable(jsonObject), connectorId: str, schemaId: str, storage: accountStorage },
  defaultBehavior: { connectorId: str },
  deleteAccount: { connectorId: str },
});

const manualAssignee = union<ManualAssignee>({
  appOwners: { allowReassignment: bool, fallbackUserIds: list(str) },
  entitlementOwners: { allowReassignment: bool, fallbackUserIds: list(str) },
  manager: { allowReassignment: bool, fallbackUserIds: list(str) },
  expression: { allowReassignment: bool, expressions: list(str), fallbackUserIds: list(str) },
  group: { allowReassignment: bool, appGroupId: str, appId: str, fallbackUserIds: list(str) },
  users: { allowReassignment: bool, userIds: list(str) },
});

/**
 * Codec of the provision-policy oneof (recursive through `multiStep`).
 *
 * @example
 * ```ts
 * const fields = { provisionPolicy: nullable(provisionPolicyCodec) };
 * ```
 */
export const provisionPolicyCodec: Codec<ProvisionPolicy> = union<ProvisionPolicy>({
  action: { actionName: str, appId: str, connectorId: str, displayName: str },
  connector: wrap(connectorProvision),
  delegated: { appId: str, entitlementId: str, implicit: bool },
  devicePlacement: { vaultBoundaryId: str },
  externalTicket: { appId: str, connectorId: str, externalTicketProvisionerConfigId: str, instructions: str },
  manual: { instructions: str, userIds: list(str), assignee: nullable(manualAssignee) },
  multiStep: { provisionSteps: list(lazy(() => provisionPolicyCodec)) },
  unconfigured: {},
  webhook: { webhookId: str },
});

const provisionTarget = message<ProvisionTarget>({
  appEntitlementId: str,
  appId: str,
  appUserId: str,
  grantDuration: duration,
});

const provisionFields: FieldSpecs<Provision> = {
  assigned: bool,
  provisionTarget: nullable(provisionTarget),
  provisionPolicy: nullable(provisionPolicyCodec),
};

/**
 * Codec of the provision step message, as a provision instance's `provision` definition.
 *
 * @example
 * ```ts
 * const fields = { provision: nullable(provisionCodec) };
 * ```
 */
export const provisionCodec: Codec<Provision> = message<Provision>(provisionFields);

/**
 * Codec of the action step oneof, as an action instance's `action` definition.
 *
 * @example
 * ```ts
 * const fields = { action: nullable(actionStepCodec) };
 * ```
 */
export const actionStepCodec: Codec<ActionStep> = union<ActionStep>({
  automation: { automationTemplateId: str },
  svcResourceAction: { svcResourceActionId: str },
  clientIdApproval: {},
});

/**
 * Codec of {@link PolicyStep}.
 *
 * @example
 * ```ts
 * const fields = { steps: list(policyStepCodec) };
 * ```
 */
export const policyStepCodec: Codec<PolicyStep> = union<PolicyStep>({
  approval: approvalFields,
  provision: provisionFields,
  accept: { acceptMessage: str },
  reject: { rejectMessage: str },
  wait: {
    name: str,
    commentOnFirstWait: str,
    commentOnTimeout: str,
    timeoutDuration: duration,
    until: oneof({
      condition: { condition: str },
      duration: { duration },
      untilTime: { hours: int32, minutes: int32, timezone: str },
    }),
  },
  form: { form: nullable(formCodec) },
  action: wrap(actionStepCodec),
});

/**
 * Decodes a wire PolicyStep (`{"approval": {...}}`) into the union (`{ kind: "approval", ... }`).
 *
 * @example
 * ```ts
 * const r = decodePolicyStep({ accept: { acceptMessage: "ok" } });
 * // { ok: true, value: { kind: "accept", acceptMessage: "ok" } }
 * ```
 */
export function decodePolicyStep(json: unknown): Result<PolicyStep, Diagnostic[]> {
  return runDecode(policyStepCodec, json);
}

/**
 * Encodes a PolicyStep as wire JSON.
 *
 * @example
 * ```ts
 * encodePolicyStep({ kind: "reject", rejectMessage: "no" }); // { reject: { rejectMessage: "no" } }
 * ```
 */
export function encodePolicyStep(step: PolicyStep): JsonValue {
  return policyStepCodec.encode(step);
}
