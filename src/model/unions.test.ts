/**
 * Type tests: every union of the model is consumed exhaustively. A `switch` that forgets a case must
 * not compile (each `@ts-expect-error` below proves it); `npm run typecheck` checks this file.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import type { UnknownVariant } from "./common.js";
import type {
  BoolFieldView,
  FieldProvider,
  FieldType,
  FileFieldView,
  Int64FieldView,
  Oauth2FieldView,
  Picker,
  RelationshipKind,
  StringFieldView,
  StringSliceFieldView,
} from "./form.js";
import type { RuleOutcome } from "./policy.js";
import { ruleOutcome } from "./policy.js";
import type {
  AccountStorage,
  ActionStep,
  ApproverKind,
  ConnectorProvision,
  EscalationPolicy,
  ManualAssignee,
  PolicyStep,
  ProvisionPolicy,
  WaitUntil,
} from "./policy-step.js";
import type {
  ActionInstanceOutcome,
  ActionInstanceTarget,
  ApprovalOutcome,
  FormOutcome,
  ProvisionOutcome,
  StepInstance,
  WaitInstanceUntil,
  WaitingOnKind,
  WaitOutcome,
} from "./step-instance.js";
import type { ActionTaskTarget, RevokeSource, TaskType } from "./task.js";

function assertNever(value: never): never {
  throw new Error(`unhandled ${JSON.stringify(value)}`);
}

function taskTypeComplete(t: TaskType): string {
  switch (t.kind) {
    case "grant":
    case "revoke":
    case "certify":
      return t.appId;
    case "offboarding":
      return t.subjectUserId;
    case "action":
      return t.actionId;
    case "finding":
      return t.findingId;
    case "unknown":
      return t.key;
    default:
      return assertNever(t);
  }
}

function taskTypeMissingFinding(t: TaskType): string {
  switch (t.kind) {
    case "grant":
    case "revoke":
    case "certify":
    case "offboarding":
    case "action":
    case "unknown":
      return t.kind;
    default:
      // @ts-expect-error "finding" is not handled
      return assertNever(t);
  }
}

function policyStepMissingAction(s: PolicyStep): string {
  switch (s.kind) {
    case "approval":
    case "provision":
    case "accept":
    case "reject":
    case "wait":
    case "form":
    case "unknown":
      return s.kind;
    default:
      // @ts-expect-error "action" is not handled
      return assertNever(s);
  }
}

function stepInstanceMissingWait(i: StepInstance): string {
  switch (i.kind) {
    case "approval":
    case "provision":
    case "accept":
    case "reject":
    case "form":
    case "action":
    case "unknown":
      return i.kind;
    default:
      // @ts-expect-error "wait" is not handled
      return assertNever(i);
  }
}

function approverKindMissingAgent(a: ApproverKind): string {
  switch (a.kind) {
    case "users":
    case "appOwners":
    case "self":
    case "entitlementOwners":
    case "resourceOwners":
    case "manager":
    case "expression":
    case "group":
    case "webhook":
    case "unknown":
      return a.kind;
    default:
      // @ts-expect-error "agent" is not handled
      return assertNever(a);
  }
}

function provisionPolicyMissingMultiStep(p: ProvisionPolicy): string {
  switch (p.kind) {
    case "action":
    case "connector":
    case "delegated":
    case "devicePlacement":
    case "externalTicket":
    case "manual":
    case "unconfigured":
    case "webhook":
    case "unknown":
      return p.kind;
    default:
      // @ts-expect-error "multiStep" is not handled
      return assertNever(p);
  }
}

function fieldTypeMissingOauth2(f: FieldType): string {
  switch (f.kind) {
    case "stringField":
    case "boolField":
    case "int64Field":
    case "stringSliceField":
    case "stringMapField":
    case "fileField":
    case "unknown":
      return f.kind;
    default:
      // @ts-expect-error "oauth2Field" is not handled
      return assertNever(f);
  }
}

function approvalOutcomeMissingSkipped(o: ApprovalOutcome): string {
  switch (o.kind) {
    case "approved":
    case "denied":
    case "reassigned":
    case "reassignedByError":
    case "restarted":
    case "unknown":
      return o.kind;
    default:
      // @ts-expect-error "skipped" is not handled
      return assertNever(o);
  }
}

function ruleOutcomeMissingLegacy(o: RuleOutcome): string {
  switch (o.kind) {
    case "stepKey":
    case "policyId":
    case "none":
      return o.kind;
    default:
      // @ts-expect-error "policyKey" is not handled
      return assertNever(o);
  }
}

/**
 * For every other union, the same check in table form: a record keyed by the union's kinds must name
 * each kind, so forgetting one (or inventing one) is a compile error.
 */
type Kinds<U extends { readonly kind: string }> = Record<U["kind"], true>;

const everyKind = {
  TaskType: { grant: true, revoke: true, certify: true, offboarding: true, action: true, finding: true, unknown: true } satisfies Kinds<TaskType>,
  RevokeSource: { expired: true, nonUsage: true, request: true, review: true, unknown: true } satisfies Kinds<RevokeSource>,
  ActionTaskTarget: { scopeRole: true, toolCall: true, finding: true, credentialIssue: true, unknown: true } satisfies Kinds<ActionTaskTarget>,
  PolicyStep: { approval: true, provision: true, accept: true, reject: true, wait: true, form: true, action: true, unknown: true } satisfies Kinds<PolicyStep>,
  ApproverKind: {
    users: true,
    appOwners: true,
    self: true,
    entitlementOwners: true,
    resourceOwners: true,
    manager: true,
    expression: true,
    group: true,
    webhook: true,
    agent: true,
    unknown: true,
  } satisfies Kinds<ApproverKind>,
  EscalationPolicy: { reassignToApprovers: true, replacePolicy: true, skipStep: true, cancelTicket: true, unknown: true } satisfies Kinds<EscalationPolicy>,
  WaitUntil: { condition: true, duration: true, untilTime: true, unknown: true } satisfies Kinds<WaitUntil>,
  ActionStep: { automation: true, svcResourceAction: true, clientIdApproval: true, unknown: true } satisfies Kinds<ActionStep>,
  ProvisionPolicy: {
    action: true,
    connector: true,
    delegated: true,
    devicePlacement: true,
    externalTicket: true,
    manual: true,
    multiStep: true,
    unconfigured: true,
    webhook: true,
    unknown: true,
  } satisfies Kinds<ProvisionPolicy>,
  ConnectorProvision: { account: true, defaultBehavior: true, deleteAccount: true, unknown: true } satisfies Kinds<ConnectorProvision>,
  AccountStorage: { doNotSave: true, saveToVault: true, unknown: true } satisfies Kinds<AccountStorage>,
  ManualAssignee: {
    appOwners: true,
    entitlementOwners: true,
    manager: true,
    expression: true,
    group: true,
    users: true,
    unknown: true,
  } satisfies Kinds<ManualAssignee>,
  StepInstance: { approval: true, provision: true, accept: true, reject: true, wait: true, form: true, action: true, unknown: true } satisfies Kinds<StepInstance>,
  ApprovalOutcome: {
    approved: true,
    denied: true,
    reassigned: true,
    reassignedByError: true,
    restarted: true,
    skipped: true,
    unknown: true,
  } satisfies Kinds<ApprovalOutcome>,
  FormOutcome: { completed: true, reassigned: true, restarted: true, skipped: true, unknown: true } satisfies Kinds<FormOutcome>,
  ProvisionOutcome: { completed: true, cancelled: true, errored: true, reassignedByError: true, skipped: true, unknown: true } satisfies Kinds<ProvisionOutcome>,
  WaitOutcome: { succeeded: true, timedOut: true, skipped: true, unknown: true } satisfies Kinds<WaitOutcome>,
  WaitInstanceUntil: { condition: true, untilTime: true, unknown: true } satisfies Kinds<WaitInstanceUntil>,
  WaitingOnKind: { devicePlacement: true, entitlementMerge: true, unknown: true } satisfies Kinds<WaitingOnKind>,
  ActionInstanceOutcome: { success: true, denied: true, error: true, cancelled: true, unknown: true } satisfies Kinds<ActionInstanceOutcome>,
  ActionInstanceTarget: { automation: true, svcResourceActionInstance: true, clientIdApprovalInstance: true, unknown: true } satisfies Kinds<ActionInstanceTarget>,
  FieldType: {
    stringField: true,
    boolField: true,
    int64Field: true,
    stringSliceField: true,
    stringMapField: true,
    fileField: true,
    oauth2Field: true,
    unknown: true,
  } satisfies Kinds<FieldType>,
  StringFieldView: { textField: true, passwordField: true, selectField: true, pickerField: true, dateField: true, unknown: true } satisfies Kinds<StringFieldView>,
  BoolFieldView: { checkboxField: true, toggleField: true, unknown: true } satisfies Kinds<BoolFieldView>,
  Int64FieldView: { numberField: true, unknown: true } satisfies Kinds<Int64FieldView>,
  StringSliceFieldView: { chipsField: true, pickerField: true, unknown: true } satisfies Kinds<StringSliceFieldView>,
  FileFieldView: { fileInputField: true, unknown: true } satisfies Kinds<FileFieldView>,
  Oauth2FieldView: { oauth2FieldView: true, unknown: true } satisfies Kinds<Oauth2FieldView>,
  Picker: { appUserPicker: true, svcUserPicker: true, resourcePicker: true, unknown: true } satisfies Kinds<Picker>,
  FieldProvider: { userConfig: true, adminConfig: true, sharedConfig: true, unknown: true } satisfies Kinds<FieldProvider>,
  RelationshipKind: { requiredTogether: true, atLeastOne: true, mutuallyExclusive: true, dependentOn: true, unknown: true } satisfies Kinds<RelationshipKind>,
  RuleOutcome: { stepKey: true, policyId: true, policyKey: true, none: true } satisfies Kinds<RuleOutcome>,
};

// @ts-expect-error a record missing "finding" is not a complete handler table for TaskType
const incomplete: Kinds<TaskType> = { grant: true, revoke: true, certify: true, offboarding: true, action: true, unknown: true };

describe("model unions", () => {
  it("are switched on exhaustively (the checks are compile-time; this runs them once)", () => {
    expect(taskTypeComplete({ kind: "unknown", key: "spendRemedy", raw: {} })).toBe("spendRemedy");
    const unknown: UnknownVariant = { kind: "unknown", key: "x", raw: null };
    for (const f of [
      taskTypeMissingFinding,
      policyStepMissingAction,
      stepInstanceMissingWait,
      approverKindMissingAgent,
      provisionPolicyMissingMultiStep,
      fieldTypeMissingOauth2,
      approvalOutcomeMissingSkipped,
    ] as Array<(u: UnknownVariant) => string>) {
      expect(f(unknown)).toBe("unknown");
    }
    expect(ruleOutcomeMissingLegacy({ kind: "none" })).toBe("none");
    expect(Object.keys(everyKind)).toHaveLength(32);
    expect(Object.keys(incomplete)).toHaveLength(6);
  });

  it("carry their member's fields only under the right kind", () => {
    expectTypeOf<Extract<TaskType, { kind: "grant" }>["grantDuration"]>().toEqualTypeOf<string | null>();
    expectTypeOf<Extract<PolicyStep, { kind: "action" }>["action"]>().toEqualTypeOf<ActionStep>();
    expectTypeOf<Extract<ProvisionPolicy, { kind: "connector" }>["connector"]>().toEqualTypeOf<ConnectorProvision>();
  });
});

describe("ruleOutcome", () => {
  it("prefers stepKey, then policyId, then the legacy policyKey", () => {
    expect(ruleOutcome({ stepKey: "a", policyId: "b", policyKey: "c" })).toEqual({ kind: "stepKey", stepKey: "a" });
    expect(ruleOutcome({ stepKey: "", policyId: "b", policyKey: "c" })).toEqual({ kind: "policyId", policyId: "b" });
    expect(ruleOutcome({ stepKey: "", policyId: "", policyKey: "c" })).toEqual({ kind: "policyKey", stepKey: "c" });
    expect(ruleOutcome({ stepKey: "", policyId: "", policyKey: "" })).toEqual({ kind: "none" });
  });
});
