/**
 * Policy step definitions (spec, "PolicyStep"): what a policy asks for at each step. Each oneof is a
 * union on `kind`; a member whose own message is nothing but another oneof holds that union under the
 * member's wire name (`{ kind: "action", action: { kind: "automation", … } }`).
 */
import type { AppEntitlementReference, DurationString, UnknownFields, UnknownVariant, VariantExtras } from "./common.js";
import type { ApprovalAgentFailureAction, ApprovalAgentMode } from "./enums.js";
import type { Form } from "./form.js";
import type { JsonObject } from "./json.js";

/**
 * One step of a policy: the `PolicyStep` oneof.
 *
 * @example
 * ```ts
 * function label(s: PolicyStep): string {
 *   switch (s.kind) {
 *     case "approval": return `approval by ${s.approvers?.kind ?? "nobody"}`;
 *     case "provision": return "provision";
 *     case "accept": return "accept";
 *     case "reject": return "reject";
 *     case "wait": return `wait ${s.name}`;
 *     case "form": return "form";
 *     case "action": return `action ${s.action.kind}`;
 *     case "unknown": return `unknown ${s.key}`;
 *   }
 * }
 * ```
 */
export type PolicyStep =
  | PolicyStepApproval
  | PolicyStepProvision
  | PolicyStepAccept
  | PolicyStepReject
  | PolicyStepWait
  | PolicyStepForm
  | PolicyStepAction
  | UnknownVariant;

/**
 * The approval step message (also the `approval` definition an approval instance carries).
 *
 * @example
 * ```ts
 * const a = { approvers: { kind: "manager", allowSelfApproval: false } } as Approval;
 * ```
 */
export interface Approval {
  readonly allowDelegation: boolean;
  readonly allowReassignment: boolean;
  readonly assigned: boolean;
  readonly escalationEnabled: boolean;
  readonly requireApprovalReason: boolean;
  readonly requireDenialReason: boolean;
  readonly requireReassignmentReason: boolean;
  readonly allowedReassignees: readonly string[] | null;
  readonly requiresStepUpProviderId: string;
  readonly escalation: Escalation | null;
  /** Who approves: the approval's oneof of ten approver kinds. */
  readonly approvers: ApproverKind | null;
  readonly $unknown?: UnknownFields;
}

/**
 * An approval step.
 *
 * @example
 * ```ts
 * const s = { kind: "approval", approvers: { kind: "appOwners", allowSelfApproval: false, requireDistinctApprovers: false } } as PolicyStepApproval;
 * ```
 */
export interface PolicyStepApproval extends Approval, VariantExtras {
  readonly kind: "approval";
}

/**
 * Who approves an approval step.
 *
 * @example
 * ```ts
 * const k: ApproverKind = { kind: "webhook", webhookId: "wh-1" };
 * ```
 */
export type ApproverKind =
  | ApproverUsers
  | ApproverAppOwners
  | ApproverSelf
  | ApproverEntitlementOwners
  | ApproverResourceOwners
  | ApproverManager
  | ApproverExpression
  | ApproverGroup
  | ApproverWebhook
  | ApproverAgent
  | UnknownVariant;

/**
 * Fallback settings shared by the approver kinds that may resolve to nobody.
 *
 * @example
 * ```ts
 * const f: ApproverFallback = { fallback: true, fallbackGroupIds: null, fallbackUserIds: ["u-ops"], isGroupFallbackEnabled: false };
 * ```
 */
export interface ApproverFallback {
  readonly fallback: boolean;
  readonly fallbackGroupIds: readonly AppEntitlementReference[] | null;
  readonly fallbackUserIds: readonly string[] | null;
  readonly isGroupFallbackEnabled: boolean;
}

/**
 * A fixed list of users.
 *
 * @example
 * ```ts
 * const k: ApproverUsers = { kind: "users", allowSelfApproval: false, requireDistinctApprovers: false, userIds: ["u-ada"] };
 * ```
 */
export interface ApproverUsers extends VariantExtras {
  readonly kind: "users";
  readonly allowSelfApproval: boolean;
  readonly requireDistinctApprovers: boolean;
  readonly userIds: readonly string[] | null;
}

/**
 * The owners of the app.
 *
 * @example
 * ```ts
 * const k: ApproverAppOwners = { kind: "appOwners", allowSelfApproval: false, requireDistinctApprovers: true };
 * ```
 */
export interface ApproverAppOwners extends VariantExtras {
  readonly kind: "appOwners";
  readonly allowSelfApproval: boolean;
  readonly requireDistinctApprovers: boolean;
}

/**
 * The target user approves their own request.
 *
 * @example
 * ```ts
 * const k = { kind: "self", assignedUserIds: null, fallback: false } as ApproverSelf;
 * ```
 */
export interface ApproverSelf extends ApproverFallback, VariantExtras {
  readonly kind: "self";
  readonly assignedUserIds: readonly string[] | null;
}

/**
 * The owners of the entitlement.
 *
 * @example
 * ```ts
 * const k = { kind: "entitlementOwners", allowSelfApproval: false, fallback: true, fallbackUserIds: ["u-ops"] } as ApproverEntitlementOwners;
 * ```
 */
export interface ApproverEntitlementOwners extends ApproverFallback, VariantExtras {
  readonly kind: "entitlementOwners";
  readonly allowSelfApproval: boolean;
  readonly requireDistinctApprovers: boolean;
}

/**
 * The owners of the resource.
 *
 * @example
 * ```ts
 * const k = { kind: "resourceOwners", allowSelfApproval: false, fallback: false } as ApproverResourceOwners;
 * ```
 */
export interface ApproverResourceOwners extends ApproverFallback, VariantExtras {
  readonly kind: "resourceOwners";
  readonly allowSelfApproval: boolean;
  readonly requireDistinctApprovers: boolean;
}

/**
 * The target user's manager.
 *
 * @example
 * ```ts
 * const k = { kind: "manager", allowSelfApproval: false, fallback: true, fallbackUserIds: ["u-hr"] } as ApproverManager;
 * ```
 */
export interface ApproverManager extends ApproverFallback, VariantExtras {
  readonly kind: "manager";
  readonly allowSelfApproval: boolean;
  readonly assignedUserIds: readonly string[] | null;
  readonly requireDistinctApprovers: boolean;
}

/**
 * Users computed by CEL expressions; the first non-empty result wins.
 *
 * @example
 * ```ts
 * const k = { kind: "expression", expressions: ["c1.directory.users.v1.GetManagers(subject)"] } as ApproverExpression;
 * ```
 */
export interface ApproverExpression extends ApproverFallback, VariantExtras {
  readonly kind: "expression";
  readonly allowSelfApproval: boolean;
  readonly assignedUserIds: readonly string[] | null;
  readonly requireDistinctApprovers: boolean;
  readonly expressions: readonly string[] | null;
}

/**
 * The members of a group.
 *
 * @example
 * ```ts
 * const k = { kind: "group", appGroupId: "g-oncall", appId: "app-pd" } as ApproverGroup;
 * ```
 */
export interface ApproverGroup extends ApproverFallback, VariantExtras {
  readonly kind: "group";
  readonly allowSelfApproval: boolean;
  readonly appGroupId: string;
  readonly appId: string;
  readonly requireDistinctApprovers: boolean;
}

/**
 * A webhook decides.
 *
 * @example
 * ```ts
 * const k: ApproverWebhook = { kind: "webhook", webhookId: "wh-1" };
 * ```
 */
export interface ApproverWebhook extends VariantExtras {
  readonly kind: "webhook";
  readonly webhookId: string;
}

/**
 * An AI agent reviews the step.
 *
 * @example
 * ```ts
 * const k = { kind: "agent", agentMode: "APPROVAL_AGENT_MODE_COMMENT_ONLY", agentUserId: "u-agent" } as ApproverAgent;
 * ```
 */
export interface ApproverAgent extends VariantExtras {
  readonly kind: "agent";
  readonly agentFailureAction: ApprovalAgentFailureAction;
  readonly agentMode: ApprovalAgentMode;
  readonly agentUserId: string;
  readonly instructions: string;
  readonly policyIds: readonly string[] | null;
  readonly reassignToUserIds: readonly string[] | null;
}

/**
 * What happens when an approval step waits too long.
 *
 * @example
 * ```ts
 * const e: Escalation = { escalationComment: "", expiration: "86400s", escalationPolicy: { kind: "skipStep" } };
 * ```
 */
export interface Escalation {
  readonly escalationComment: string;
  /** A duration string (`"86400s"`) or, as the public description has it, an int64 string; kept as it came. */
  readonly expiration: string | null;
  readonly escalationPolicy: EscalationPolicy | null;
  readonly $unknown?: UnknownFields;
}

/**
 * The escalation oneof.
 *
 * @example
 * ```ts
 * const p: EscalationPolicy = { kind: "replacePolicy", policyId: "pol-fallback" };
 * ```
 */
export type EscalationPolicy =
  | { readonly kind: "reassignToApprovers"; readonly approverIds: readonly string[] | null } & VariantExtras
  | { readonly kind: "replacePolicy"; readonly policyId: string } & VariantExtras
  | { readonly kind: "skipStep" } & VariantExtras
  | { readonly kind: "cancelTicket" } & VariantExtras
  | UnknownVariant;

/**
 * The provision step message (also the `provision` definition a provision instance carries).
 *
 * @example
 * ```ts
 * const p: Provision = { assigned: false, provisionTarget: null, provisionPolicy: { kind: "unconfigured" } };
 * ```
 */
export interface Provision {
  readonly assigned: boolean;
  readonly provisionTarget: ProvisionTarget | null;
  readonly provisionPolicy: ProvisionPolicy | null;
  readonly $unknown?: UnknownFields;
}

/**
 * A provision step.
 *
 * @example
 * ```ts
 * const s: PolicyStepProvision = { kind: "provision", assigned: false, provisionTarget: null, provisionPolicy: { kind: "unconfigured" } };
 * ```
 */
export interface PolicyStepProvision extends Provision, VariantExtras {
  readonly kind: "provision";
}

/**
 * What a provision step grants.
 *
 * @example
 * ```ts
 * const t: ProvisionTarget = { appEntitlementId: "ent-admin", appId: "app-aws", appUserId: "", grantDuration: null };
 * ```
 */
export interface ProvisionTarget {
  readonly appEntitlementId: string;
  readonly appId: string;
  readonly appUserId: string;
  readonly grantDuration: DurationString | null;
  readonly $unknown?: UnknownFields;
}

/**
 * How a provision step provisions: the `provisionPolicy` oneof.
 *
 * @example
 * ```ts
 * const p: ProvisionPolicy = { kind: "webhook", webhookId: "wh-1" };
 * ```
 */
export type ProvisionPolicy =
  | ProvisionPolicyAction
  | ProvisionPolicyConnector
  | ProvisionPolicyDelegated
  | ProvisionPolicyDevicePlacement
  | ProvisionPolicyExternalTicket
  | ProvisionPolicyManual
  | ProvisionPolicyMultiStep
  | ProvisionPolicyUnconfigured
  | ProvisionPolicyWebhook
  | UnknownVariant;

/**
 * Run a connector action.
 *
 * @example
 * ```ts
 * const p: ProvisionPolicyAction = { kind: "action", actionName: "grant", appId: "a", connectorId: "c", displayName: "Grant" };
 * ```
 */
export interface ProvisionPolicyAction extends VariantExtras {
  readonly kind: "action";
  readonly actionName: string;
  readonly appId: string;
  readonly connectorId: string;
  readonly displayName: string;
}

/**
 * Let the connector provision.
 *
 * @example
 * ```ts
 * const p: ProvisionPolicyConnector = { kind: "connector", connector: { kind: "defaultBehavior", connectorId: "c1" } };
 * ```
 */
export interface ProvisionPolicyConnector extends VariantExtras {
  readonly kind: "connector";
  readonly connector: ConnectorProvision;
}

/**
 * The connector provision oneof.
 *
 * @example
 * ```ts
 * const c: ConnectorProvision = { kind: "deleteAccount", connectorId: "c1" };
 * ```
 */
export type ConnectorProvision =
  | ConnectorProvisionAccount
  | { readonly kind: "defaultBehavior"; readonly connectorId: string } & VariantExtras
  | { readonly kind: "deleteAccount"; readonly connectorId: string } & VariantExtras
  | UnknownVariant;

/**
 * Create an account through the connector.
 *
 * @example
 * ```ts
 * const c: ConnectorProvisionAccount = { kind: "account", config: null, connectorId: "c1", schemaId: "s1", storage: { kind: "doNotSave" } };
 * ```
 */
export interface ConnectorProvisionAccount extends VariantExtras {
  readonly kind: "account";
  readonly config: JsonObject | null;
  readonly connectorId: string;
  readonly schemaId: string;
  /** Where the new account's credentials go: the doNotSave / saveToVault oneof. */
  readonly storage: AccountStorage | null;
}

/**
 * Where an account's credentials go.
 *
 * @example
 * ```ts
 * const s: AccountStorage = { kind: "saveToVault", vaultIds: ["v1"] };
 * ```
 */
export type AccountStorage =
  | { readonly kind: "doNotSave" } & VariantExtras
  | { readonly kind: "saveToVault"; readonly vaultIds: readonly string[] | null } & VariantExtras
  | UnknownVariant;

/**
 * Delegate to another entitlement's provisioning.
 *
 * @example
 * ```ts
 * const p: ProvisionPolicyDelegated = { kind: "delegated", appId: "a", entitlementId: "e", implicit: false };
 * ```
 */
export interface ProvisionPolicyDelegated extends VariantExtras {
  readonly kind: "delegated";
  readonly appId: string;
  readonly entitlementId: string;
  readonly implicit: boolean;
}

/**
 * Place a device.
 *
 * @example
 * ```ts
 * const p: ProvisionPolicyDevicePlacement = { kind: "devicePlacement", vaultBoundaryId: "vb1" };
 * ```
 */
export interface ProvisionPolicyDevicePlacement extends VariantExtras {
  readonly kind: "devicePlacement";
  readonly vaultBoundaryId: string;
}

/**
 * Open a ticket in an external system.
 *
 * @example
 * ```ts
 * const p = { kind: "externalTicket", appId: "a", connectorId: "c", instructions: "please" } as ProvisionPolicyExternalTicket;
 * ```
 */
export interface ProvisionPolicyExternalTicket extends VariantExtras {
  readonly kind: "externalTicket";
  readonly appId: string;
  readonly connectorId: string;
  readonly externalTicketProvisionerConfigId: string;
  readonly instructions: string;
}

/**
 * A person provisions by hand.
 *
 * @example
 * ```ts
 * const p: ProvisionPolicyManual = { kind: "manual", instructions: "", userIds: ["u-ops"], assignee: null };
 * ```
 */
export interface ProvisionPolicyManual extends VariantExtras {
  readonly kind: "manual";
  readonly instructions: string;
  readonly userIds: readonly string[] | null;
  readonly assignee: ManualAssignee | null;
}

/**
 * Who provisions a manual step.
 *
 * @example
 * ```ts
 * const a: ManualAssignee = { kind: "users", allowReassignment: true, userIds: ["u-ops"] };
 * ```
 */
export type ManualAssignee =
  | { readonly kind: "appOwners"; readonly allowReassignment: boolean; readonly fallbackUserIds: readonly string[] | null } & VariantExtras
  | { readonly kind: "entitlementOwners"; readonly allowReassignment: boolean; readonly fallbackUserIds: readonly string[] | null } & VariantExtras
  | { readonly kind: "manager"; readonly allowReassignment: boolean; readonly fallbackUserIds: readonly string[] | null } & VariantExtras
  | ({
      readonly kind: "expression";
      readonly allowReassignment: boolean;
      readonly expressions: readonly string[] | null;
      readonly fallbackUserIds: readonly string[] | null;
    } & VariantExtras)
  | ({
      readonly kind: "group";
      readonly allowReassignment: boolean;
      readonly appGroupId: string;
      readonly appId: string;
      readonly fallbackUserIds: readonly string[] | null;
    } & VariantExtras)
  | { readonly kind: "users"; readonly allowReassignment: boolean; readonly userIds: readonly string[] | null } & VariantExtras
  | UnknownVariant;

/**
 * Several provision policies in order.
 *
 * @example
 * ```ts
 * const p: ProvisionPolicyMultiStep = { kind: "multiStep", provisionSteps: [{ kind: "unconfigured" }] };
 * ```
 */
export interface ProvisionPolicyMultiStep extends VariantExtras {
  readonly kind: "multiStep";
  readonly provisionSteps: readonly ProvisionPolicy[] | null;
}

/**
 * No provisioning configured.
 *
 * @example
 * ```ts
 * const p: ProvisionPolicyUnconfigured = { kind: "unconfigured" };
 * ```
 */
export interface ProvisionPolicyUnconfigured extends VariantExtras {
  readonly kind: "unconfigured";
}

/**
 * A webhook provisions.
 *
 * @example
 * ```ts
 * const p: ProvisionPolicyWebhook = { kind: "webhook", webhookId: "wh-1" };
 * ```
 */
export interface ProvisionPolicyWebhook extends VariantExtras {
  readonly kind: "webhook";
  readonly webhookId: string;
}

/**
 * Accept the task (a terminal approval marker).
 *
 * @example
 * ```ts
 * const s: PolicyStepAccept = { kind: "accept", acceptMessage: "auto-approved" };
 * ```
 */
export interface PolicyStepAccept extends VariantExtras {
  readonly kind: "accept";
  readonly acceptMessage: string;
}

/**
 * Reject the task.
 *
 * @example
 * ```ts
 * const s: PolicyStepReject = { kind: "reject", rejectMessage: "not allowed" };
 * ```
 */
export interface PolicyStepReject extends VariantExtras {
  readonly kind: "reject";
  readonly rejectMessage: string;
}

/**
 * Wait for a condition, a duration or a time of day.
 *
 * @example
 * ```ts
 * const s: PolicyStepWait = { kind: "wait", name: "cool-off", commentOnFirstWait: "", commentOnTimeout: "",
 *   timeoutDuration: null, until: { kind: "duration", duration: "3600s" } };
 * ```
 */
export interface PolicyStepWait extends VariantExtras {
  readonly kind: "wait";
  readonly name: string;
  readonly commentOnFirstWait: string;
  readonly commentOnTimeout: string;
  readonly timeoutDuration: DurationString | null;
  /** The condition / duration / untilTime oneof. */
  readonly until: WaitUntil | null;
}

/**
 * What a wait step waits for.
 *
 * @example
 * ```ts
 * const u: WaitUntil = { kind: "untilTime", hours: 9, minutes: 0, timezone: "Europe/Paris" };
 * ```
 */
export type WaitUntil =
  | { readonly kind: "condition"; readonly condition: string } & VariantExtras
  | { readonly kind: "duration"; readonly duration: DurationString | null } & VariantExtras
  | ({ readonly kind: "untilTime"; readonly hours: number; readonly minutes: number; readonly timezone: string } & VariantExtras)
  | UnknownVariant;

/**
 * Ask someone to fill a form.
 *
 * @example
 * ```ts
 * const s: PolicyStepForm = { kind: "form", form: null };
 * ```
 */
export interface PolicyStepForm extends VariantExtras {
  readonly kind: "form";
  readonly form: Form | null;
}

/**
 * Run an action.
 *
 * @example
 * ```ts
 * const s: PolicyStepAction = { kind: "action", action: { kind: "automation", automationTemplateId: "at-1" } };
 * ```
 */
export interface PolicyStepAction extends VariantExtras {
  readonly kind: "action";
  readonly action: ActionStep;
}

/**
 * The action step oneof (also the `action` definition an action instance carries).
 *
 * @example
 * ```ts
 * const a: ActionStep = { kind: "svcResourceAction", svcResourceActionId: "sra-1" };
 * ```
 */
export type ActionStep =
  | { readonly kind: "automation"; readonly automationTemplateId: string } & VariantExtras
  | { readonly kind: "svcResourceAction"; readonly svcResourceActionId: string } & VariantExtras
  | { readonly kind: "clientIdApproval" } & VariantExtras
  | UnknownVariant;
