import { describe, expect, it } from "vitest";
import type { JsonValue } from "../model/json.js";
import { ruleOutcome } from "../model/policy.js";
import { jsonEqual } from "../testing/arbitraries.js";
import {
  decodeCommentRequest,
  decodeForm,
  decodeHardResetRequest,
  decodeHardResetResponse,
  decodePolicy,
  decodePolicyStep,
  decodeTask,
  encodeCommentResponse,
  encodeForm,
  encodeHardResetResponse,
  encodePolicy,
} from "./index.js";

/** A grant task as the service returns it: every non-oneof field present, one member per oneof. */
const grantTask = {
  id: "2Xk9TaskGrant",
  numericId: "1001",
  displayName: "Request AWS prod-admin",
  description: "Incident INC-42: need to restart the payment service",
  state: "TASK_STATE_OPEN",
  processing: "TASK_PROCESSING_TYPE_WAITING",
  origin: "TASK_ORIGIN_WEBAPP",
  actions: ["TASK_ACTION_TYPE_COMMENT", "TASK_ACTION_TYPE_HARD_RESET", "TASK_ACTION_TYPE_ADDED_NEXT_YEAR"],
  type: {
    grant: {
      appEntitlementId: "ent-prod-admin",
      appId: "app-aws",
      appUserId: "au-ada",
      identityUserId: "u-ada",
      grantDuration: "3600s",
      outcome: "GRANT_OUTCOME_UNSPECIFIED",
      outcomeTime: null,
      source: { conversationId: "", externalUrl: "", integrationId: "", isExtension: false, requestId: "req-7" },
    },
  },
  policy: {
    current: {
      id: "step-2",
      policyGenerationId: "gen-1",
      state: "POLICY_STEP_STATE_ACTIVE",
      approval: {
        approval: {
          allowDelegation: true,
          allowReassignment: true,
          assigned: true,
          escalationEnabled: true,
          requireApprovalReason: true,
          requireDenialReason: false,
          requireReassignmentReason: false,
          allowedReassignees: [],
          requiresStepUpProviderId: "",
          escalation: {
            escalationComment: "No answer in a day, going to the on-call",
            expiration: "86400s",
            reassignToApprovers: { approverIds: ["u-oncall"] },
          },
          manager: {
            allowSelfApproval: false,
            assignedUserIds: ["u-bob"],
            fallback: true,
            fallbackGroupIds: [{ appEntitlementId: "ent-oncall", appId: "app-pd" }],
            fallbackUserIds: [],
            isGroupFallbackEnabled: true,
            requireDistinctApprovers: false,
          },
        },
        state: "APPROVAL_INSTANCE_STATE_WAITING",
        assignedAt: "2026-11-22T08:00:00Z",
        escalationInstance: {
          alreadyEscalated: false,
          escalationComment: "",
          expiresAt: "2026-11-23T08:00:00Z",
          reassignToApprovers: { approverIds: ["u-oncall"] },
        },
      },
    },
    history: [
      {
        id: "step-1",
        policyGenerationId: "gen-1",
        state: "POLICY_STEP_STATE_DONE",
        form: {
          form: null,
          data: { reason: "INC-42", durationHours: 1 },
          state: "FORM_INSTANCE_STATE_DONE",
          completed: { completedAt: "2026-11-22T07:59:00.5Z", userId: "u-ada" },
        },
      },
    ],
    next: [
      {
        provision: {
          assigned: false,
          provisionTarget: { appEntitlementId: "ent-prod-admin", appId: "app-aws", appUserId: "", grantDuration: null },
          provisionPolicy: {
            connector: {
              account: { config: { region: "eu-west-1" }, connectorId: "conn-aws", schemaId: "", doNotSave: {} },
            },
          },
        },
      },
    ],
    policy: {
      id: "pol-prod",
      displayName: "Production access",
      description: "",
      policyType: "POLICY_TYPE_GRANT",
      policySteps: {
        grant: { steps: [{ accept: { acceptMessage: "auto" } }] },
        "7c0e5a1e-0d6b-4e1f-9a53-51b4a9c1f2d0": {
          steps: [
            { form: { form: null } },
            { wait: { name: "business hours", commentOnFirstWait: "", commentOnTimeout: "", timeoutDuration: null, untilTime: { hours: 9, minutes: 0, timezone: "Europe/Paris" } } },
          ],
        },
      },
      rules: [
        { condition: "entitlement.appResourceTypeId == 'role' && subject.department != 'SRE'", stepKey: "7c0e5a1e-0d6b-4e1f-9a53-51b4a9c1f2d0", policyKey: "" },
        { condition: "task.origin == TaskOrigin.API", policyId: "pol-api", policyKey: "" },
      ],
      baselinePolicyId: "",
      postActions: [],
      scope: null,
      annotations: { managed_by: "terraform", iac_workspace: "prod" },
      reassignTasksToDelegates: false,
      systemBuiltin: false,
      createdAt: "2026-01-01T00:00:00Z",
      updatedAt: "2026-06-01T12:30:00Z",
      deletedAt: null,
    },
  },
  policyGenerationId: "gen-1",
  form: null,
  userId: "u-ada",
  createdByUserId: "u-ada",
  approverIds: [],
  stepApproverIds: ["u-bob"],
  commentCount: 2,
  emergencyAccess: false,
  analysisId: "",
  insightIds: null,
  recommendation: "INSIGHT_RECOMMENDATION_REVIEW",
  revocationTargets: null,
  externalRefs: [],
  annotations: [{ "@type": "type.googleapis.com/c1.api.task.v1.TaskAnnotation", note: "x" }],
  data: null,
  createdAt: "2026-11-22T07:58:00Z",
  updatedAt: "2026-11-22T08:00:00Z",
  deletedAt: null,
  spendRevision: "184467440737095516",
} as const satisfies JsonValue;

describe("a realistic grant task", () => {
  const r = decodeTask(grantTask);

  it("decodes, with the oneofs as tagged unions", () => {
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const t = r.value;
    expect(t.type).toMatchObject({ kind: "grant", appEntitlementId: "ent-prod-admin", grantDuration: "3600s" });
    expect(t.actions).toContain("TASK_ACTION_TYPE_ADDED_NEXT_YEAR");
    const current = t.policy?.current?.instance;
    expect(current?.kind).toBe("approval");
    if (current?.kind !== "approval") return;
    expect(current.approval?.approvers).toMatchObject({ kind: "manager", assignedUserIds: ["u-bob"], isGroupFallbackEnabled: true });
    expect(current.approval?.escalation?.escalationPolicy).toEqual({ kind: "reassignToApprovers", approverIds: ["u-oncall"] });
    expect(current.outcome).toBeNull();
    expect(current.escalationInstance?.expiresAt).toBe("2026-11-23T08:00:00Z");
    const done = t.policy?.history?.at(0)?.instance;
    expect(done).toMatchObject({ kind: "form", outcome: { kind: "completed", userId: "u-ada" }, data: { reason: "INC-42" } });
    const next = t.policy?.next?.[0];
    expect(next?.kind === "provision" && next.provisionPolicy).toEqual({
      kind: "connector",
      connector: { kind: "account", config: { region: "eu-west-1" }, connectorId: "conn-aws", schemaId: "", storage: { kind: "doNotSave" } },
    });
    const rules = t.policy?.policy?.rules ?? [];
    expect(rules.map(ruleOutcome)).toEqual([
      { kind: "stepKey", stepKey: "7c0e5a1e-0d6b-4e1f-9a53-51b4a9c1f2d0" },
      { kind: "policyId", policyId: "pol-api" },
    ]);
    expect(t.policy?.policy?.policySteps?.["7c0e5a1e-0d6b-4e1f-9a53-51b4a9c1f2d0"]?.steps?.[1]).toMatchObject({
      kind: "wait",
      until: { kind: "untilTime", hours: 9, minutes: 0, timezone: "Europe/Paris" },
    });
    expect(t.$unknown).toEqual({ spendRevision: "184467440737095516" });
  });

  it("encodes back to exactly the same document", () => {
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const response = { expanded: [], taskView: null };
    expect(encodeCommentResponse(response)).toEqual(response);
    const hardReset = decodeHardResetResponse({
      expanded: [{ "@type": "type.googleapis.com/c1.api.user.v1.User", id: "u-ada" }],
      taskView: {
        task: grantTask,
        objectPermissions: { read: true, edit: true, delete: false, extra: { comment: true } },
        accessReviewPath: "",
        appPath: "$.expanded[1]",
        appUserPath: "",
        appUserLastUsagePath: "",
        approversPath: "",
        createdByUserPath: "$.expanded[0]",
        entitlementsPath: "",
        identityUserPath: "",
        insightsPath: "",
        principalResourcePath: "",
        resourceBindingsPath: "",
        roleResourcePath: "",
        scopeResourcePath: "",
        stepApproversPath: "",
        userPath: "$.expanded[0]",
      },
      ticketActionId: "ta-9",
    });
    expect(hardReset.ok).toBe(true);
    if (!hardReset.ok) return;
    expect(hardReset.value.taskView?.objectPermissions?.extra).toEqual({ comment: true });
    const wire = encodeHardResetResponse(hardReset.value) as { taskView: { task: JsonValue } };
    expect(jsonEqual(wire.taskView.task, grantTask)).toBe(true);
  });
});

describe("hand-written documents", () => {
  it("a minimal revoke task gets its defaults and keeps its source", () => {
    const r = decodeTask({
      id: "t-rev",
      numericId: 2002,
      type: { revoke: { appId: "app-gh", source: { nonUsage: { lastLogin: "2025-01-01T00:00:00Z" } } } },
    });
    expect(r).toMatchObject({
      ok: true,
      value: {
        numericId: "2002",
        type: { kind: "revoke", appId: "app-gh", outcome: "REVOKE_OUTCOME_UNSPECIFIED", source: { kind: "nonUsage", expiresAt: null, lastLogin: "2025-01-01T00:00:00Z" } },
      },
    });
  });

  it("an action task with the added TYPE_SPEND_REMEDY type and a scope-role target", () => {
    const r = decodeTask({
      type: {
        action: {
          type: "TYPE_SPEND_REMEDY",
          scopeRole: { appId: "app-gcp", roleResourceId: "roles/owner", scopeResourceId: "projects/p1", grantDuration: "7200s" },
        },
      },
    });
    expect(r.ok && r.value.type).toMatchObject({
      kind: "action",
      type: "TYPE_SPEND_REMEDY",
      actionId: "",
      target: { kind: "scopeRole", roleResourceId: "roles/owner", grantDuration: "7200s", appUserId: "" },
    });
  });

  it("the action type by its number, as protojson reads it: TYPE_SPEND_REMEDY = 7 (the spec's Versioning section)", () => {
    const r = decodeTask({ type: { action: { type: 7 } } });
    expect(r.ok && r.value.type).toMatchObject({ kind: "action", type: "TYPE_SPEND_REMEDY" });
    const g = decodeTask({ type: { action: { type: 1 } } });
    expect(g.ok && g.value.type).toMatchObject({ kind: "action", type: "TYPE_GRANT" });
    // A number past the known members is not guessed at.
    expect(decodeTask({ type: { action: { type: 8 } } }).ok).toBe(false);
  });

  it("a policy with a legacy policyKey rule and a baseline reference", () => {
    const r = decodePolicy({
      id: "pol-legacy",
      policyType: "POLICY_TYPE_REVOKE",
      baselinePolicyId: "pol-base",
      rules: [{ condition: "subject.jobTitle == 'Contractor'", policyKey: "contractors" }],
      policySteps: { contractors: { steps: [{ reject: { rejectMessage: "contractors cannot self-revoke" } }] } },
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.rules?.map(ruleOutcome)).toEqual([{ kind: "policyKey", stepKey: "contractors" }]);
    const wire = encodePolicy(r.value) as { rules: JsonValue[] };
    expect(wire.rules).toEqual([{ condition: "subject.jobTitle == 'Contractor'", policyKey: "contractors" }]);
  });

  it("every approver kind decodes to its kind", () => {
    const kinds = ["users", "appOwners", "self", "entitlementOwners", "resourceOwners", "manager", "expression", "group", "webhook", "agent"];
    for (const kind of kinds) {
      const r = decodePolicyStep({ approval: { [kind]: {} } });
      expect(r.ok && r.value.kind === "approval" && r.value.approvers?.kind).toBe(kind);
    }
  });

  it("an agent approver keeps the agent enums the public description adds", () => {
    const r = decodePolicyStep({
      approval: { agent: { agentMode: "APPROVAL_AGENT_MODE_COMMENT_ONLY", agentFailureAction: "APPROVAL_AGENT_FAILURE_ACTION_SKIP_POLICY_STEP", agentUserId: "u-agent", policyIds: ["pol-x"] } },
    });
    expect(r.ok && r.value.kind === "approval" && r.value.approvers).toMatchObject({
      kind: "agent",
      agentMode: "APPROVAL_AGENT_MODE_COMMENT_ONLY",
      instructions: "",
      reassignToUserIds: null,
    });
  });

  it("a form with every field type, view, picker, provider and rules", () => {
    const form = {
      id: "f-access",
      displayName: "Access request",
      description: "",
      fields: [
        { name: "reason", displayName: "Reason", description: "", required: true, readOnly: false, stringField: { defaultValue: "", placeholder: "Why?", rules: { minLen: "10", maxLen: "500", pattern: "^[^<>]*$" }, textField: { multiline: true, suffix: "" } }, userConfig: { inputTransformationCel: "input.trim()" } },
        { name: "region", displayName: "Region", description: "", required: false, readOnly: false, stringField: { defaultValue: "eu", placeholder: "", rules: { in: ["eu", "us"] }, selectField: { options: [{ value: "eu", displayName: "EU", description: "" }], type: "SELECT_TYPE_UNSPECIFIED" } }, adminConfig: { defaultValueCel: "subject.profile.region", showToUser: true } },
        { name: "until", displayName: "Until", description: "", required: false, readOnly: false, stringField: { defaultValue: "", placeholder: "", rules: null, dateField: { defaultToToday: true, minDate: "", maxDate: "", minDaysFromToday: 0, maxDaysFromToday: 30 } } },
        { name: "owner", displayName: "Owner", description: "", required: false, readOnly: false, stringField: { defaultValue: "", placeholder: "", rules: null, pickerField: { svcUserPicker: { userIds: [], excludeUserIds: ["u-bot"], includeDeactivated: false } } } },
        { name: "ack", displayName: "I agree", description: "", required: true, readOnly: false, boolField: { defaultValue: false, rules: { const: true }, checkboxField: {} } },
        { name: "count", displayName: "Count", description: "", required: false, readOnly: false, int64Field: { defaultValue: "1", placeholder: "", rules: { gte: "1", lte: "10", notIn: ["7"] }, numberField: { minValue: "1", maxValue: "10" } }, sharedConfig: { defaultValueCel: "1", inputTransformationCel: "", lockDefaultValues: true } },
        { name: "tags", displayName: "Tags", description: "", required: false, readOnly: false, stringSliceField: { defaultValues: null, placeholder: "", rules: { maxItems: "5", unique: true, items: { string: { minLen: "2" } } }, chipsField: {} } },
        { name: "labels", displayName: "Labels", description: "", required: false, readOnly: false, stringMapField: { defaultValue: { team: "sre" }, rules: { isRequired: false, validateEmpty: false } } },
        { name: "proof", displayName: "Proof", description: "", required: false, readOnly: false, fileField: { acceptedFileTypes: [".pdf"], maxFileSize: "10485760", fileInputField: {} } },
        { name: "token", displayName: "Token", description: "", required: false, readOnly: true, oauth2Field: { oauth2FieldView: {} } },
      ],
      fieldGroups: [{ name: "main", displayName: "Main", helpText: "", default: true, fields: ["reason", "region"] }],
      fieldRelationships: [{ fieldNames: ["until", "count"], mutuallyExclusive: {} }, { fieldNames: ["owner"], dependentOn: { dependencyFieldNames: ["region"] } }],
    } as const satisfies JsonValue;
    const r = decodeForm(form);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.fields?.map((f) => `${f.type?.kind}/${f.type !== null && "view" in f.type ? f.type.view?.kind : "-"}/${f.provider?.kind ?? "-"}`)).toEqual([
      "stringField/textField/userConfig",
      "stringField/selectField/adminConfig",
      "stringField/dateField/-",
      "stringField/pickerField/-",
      "boolField/checkboxField/-",
      "int64Field/numberField/sharedConfig",
      "stringSliceField/chipsField/-",
      "stringMapField/-/-",
      "fileField/fileInputField/-",
      "oauth2Field/oauth2FieldView/-",
    ]);
    const count = r.value.fields?.[5]?.type;
    expect(count?.kind === "int64Field" && count.view).toEqual({ kind: "numberField", minValue: "1", maxValue: "10" });
    expect(r.value.fieldRelationships?.[1]?.relationship).toEqual({ kind: "dependentOn", dependencyFieldNames: ["region"] });
    expect(jsonEqual(encodeForm(r.value), form)).toBe(true);
  });

  it("request bodies take what a caller writes", () => {
    expect(decodeHardResetRequest({ comment: "policy changed", expandMask: { paths: ["*"] } })).toEqual({
      ok: true,
      value: { comment: "policy changed", expandMask: { paths: ["*"] } },
    });
    expect(decodeCommentRequest({})).toEqual({ ok: true, value: { comment: "", expandMask: null } });
    expect(decodeCommentRequest({ comment: 5 })).toMatchObject({ ok: false, error: [{ code: "EXPECTED_STRING", path: "$.comment" }] });
  });
});

describe("maps are written as objects, never null (openapi.yaml types annotations, policySteps and extra as object; timers review)", () => {
  it("a policy read without annotations is written with annotations {}, and reads back the same", () => {
    const d = decodePolicy({ id: "pol-x", displayName: "x", policyType: "POLICY_TYPE_GRANT", policySteps: { grant: { steps: [] } } });
    if (!d.ok) throw new Error(d.error.map((x) => x.message).join("; "));
    const wire = encodePolicy(d.value) as Record<string, unknown>;
    expect(wire["annotations"]).toEqual({});
    const again = decodePolicy(wire as JsonValue);
    expect(again.ok && (encodePolicy(again.value) as Record<string, unknown>)["annotations"]).toEqual({});
    // Read as null, written as {}: the two mean the same (no annotations).
    const nulled = decodePolicy({ id: "pol-x", displayName: "x", policyType: "POLICY_TYPE_GRANT", policySteps: { grant: { steps: [] } }, annotations: null });
    expect(nulled.ok && (encodePolicy(nulled.value) as Record<string, unknown>)["annotations"]).toEqual({});
  });
});
