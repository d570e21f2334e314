/**
 * Codec of tasks (spec, "Task" and "TaskType").
 */
import {
  ActionOutcome,
  ActionTaskType,
  CertifyOutcome,
  ConnectorActionOperation,
  ExternalRefSource,
  FindingTaskOutcome,
  GrantOutcome,
  InsightRecommendation,
  OffboardingOutcome,
  RevokeOutcome,
  TaskActionType,
  TaskOrigin,
  TaskProcessingType,
  TaskState,
} from "../model/enums.js";
import type { JsonValue } from "../model/json.js";
import type { PolicyInstance } from "../model/policy-instance.js";
import type {
  ConnectorActionRef,
  ExternalRef,
  RevokeSource,
  SvcResourceActionRef,
  Task,
  TaskActionInstance,
  TaskGrantSource,
  TaskRevocationTarget,
  TaskType,
} from "../model/task.js";
import type { Result } from "../result.js";
import { appEntitlementRefCodec, appResourceRefCodec } from "./common.js";
import type { Diagnostic } from "./diagnostic.js";
import { formCodec } from "./form.js";
import { policyInstanceCodec, sharedSnapshotInstanceCodec } from "./policy-instance.js";
import {
  type Codec,
  type FieldSpecs,
  bool,
  duration,
  encodedOnce,
  enumOf,
  int32,
  int64,
  jsonObject,
  list,
  message,
  nullable,
  oneof,
  runDecode,
  str,
  timestamp,
  union,
} from "./schema.js";

const grantSource = message<TaskGrantSource>({
  conversationId: str,
  externalUrl: str,
  integrationId: str,
  isExtension: bool,
  requestId: str,
});

const revokeSource = union<RevokeSource>({
  expired: { expiredAt: timestamp },
  nonUsage: { expiresAt: timestamp, lastLogin: timestamp },
  request: { requestUserId: str },
  review: { accessReviewId: str, certTicketId: str },
});

const svcResourceActionRef = message<SvcResourceActionRef>({
  appId: str,
  svcActionDisplayName: str,
  svcActionName: str,
  connectorId: str,
  resourceTypeId: str,
});

const connectorActionRef = message<ConnectorActionRef>({
  appId: str,
  connectorId: str,
  operation: enumOf(ConnectorActionOperation),
});

const actionInstance = message<TaskActionInstance>({
  svcResourceActionRef: nullable(svcResourceActionRef),
  connectorActionRef: nullable(connectorActionRef),
  displayName: str,
});

/**
 * Codec of the TaskType oneof.
 *
 * @example
 * ```ts
 * const fields = { type: nullable(taskTypeCodec) };
 * ```
 */
export const taskTypeCodec: Codec<TaskType> = union<TaskType>({
  grant: {
    appEntitlementId: str,
    appId: str,
    appUserId: str,
    identityUserId: str,
    grantDuration: duration,
    outcome: enumOf(GrantOutcome),
    outcomeTime: timestamp,
    source: nullable(grantSource),
  },
  revoke: {
    appEntitlementId: str,
    appId: str,
    appUserId: str,
    identityUserId: str,
    outcome: enumOf(RevokeOutcome),
    outcomeTime: timestamp,
    resource: nullable(appResourceRefCodec),
    source: nullable(revokeSource),
  },
  certify: {
    accessReviewId: str,
    accessReviewSelection: str,
    appEntitlementId: str,
    appId: str,
    appUserId: str,
    identityUserId: str,
    outcome: enumOf(CertifyOutcome),
    outcomeTime: timestamp,
    resource: nullable(appResourceRefCodec),
  },
  offboarding: { subjectUserId: str, outcome: enumOf(OffboardingOutcome), outcomeTime: timestamp },
  action: {
    actionId: str,
    actionInstance: nullable(actionInstance),
    displayName: str,
    // Numbered as the spec numbers it: TYPE_UNSPECIFIED = 0 … TYPE_SPEND_REMEDY = 7.
    type: enumOf(ActionTaskType, { numbered: true }),
    outcome: enumOf(ActionOutcome),
    outcomeTime: timestamp,
    formValues: nullable(jsonObject),
    createdAppEntitlementIds: list(str),
    createdAppResourceId: str,
    createdAppResourceTypeId: str,
    target: oneof({
      scopeRole: {
        appId: str,
        appUserId: str,
        grantDuration: duration,
        roleResourceId: str,
        roleResourceTypeId: str,
        scopeResourceId: str,
        scopeResourceTypeId: str,
      },
      toolCall: {
        appEntitlementId: str,
        appId: str,
        callerKind: str,
        connectorId: str,
        gateId: str,
        inputSizeBytes: int32,
        toolError: str,
        toolId: str,
        toolInput: nullable(jsonObject),
        toolKind: str,
        toolName: str,
        toolOutput: str,
      },
      finding: { findingId: str, findingType: str },
      credentialIssue: {
        duration,
        identityAppUserId: str,
        identityResourceId: str,
        identityUserId: str,
        offeringId: str,
        requestCatalogId: str,
        scopes: list(str),
      },
    }),
  },
  finding: { findingId: str, findingType: str, outcome: enumOf(FindingTaskOutcome), outcomeTime: timestamp },
});

const externalRef = message<ExternalRef>({ externalRefSource: enumOf(ExternalRefSource), name: str, url: str });

const revocationTarget = message<TaskRevocationTarget>({ entitlementRef: nullable(appEntitlementRefCodec) });

/**
 * Codec of {@link Task}.
 *
 * @example
 * ```ts
 * const fields = { task: nullable(taskCodec) };
 * ```
 */
export const taskCodec: Codec<Task> = message<Task>(taskFields(policyInstanceCodec, taskTypeCodec));

/**
 * Codec of {@link Task} inside a task view (responses): the same wire JSON, with the policy
 * snapshot's JSON shared between responses (see {@link sharedSnapshotInstanceCodec}), and so is a
 * frozen task type's (a world's task keeps its type through most task actions).
 *
 * @example
 * ```ts
 * const fields = { task: nullable(taskInViewCodec) };
 * ```
 */
export const taskInViewCodec: Codec<Task> = message<Task>(taskFields(sharedSnapshotInstanceCodec, encodedOnce(taskTypeCodec)));

function taskFields(policyInstance: Codec<PolicyInstance>, taskType: Codec<TaskType>): FieldSpecs<Task> {
  return {
    id: str,
    numericId: int64,
    displayName: str,
    description: str,
    state: enumOf(TaskState),
    processing: enumOf(TaskProcessingType),
    origin: enumOf(TaskOrigin),
    actions: list(enumOf(TaskActionType)),
    type: nullable(taskType),
    policy: nullable(policyInstance),
    policyGenerationId: str,
    form: nullable(formCodec),
    userId: str,
    createdByUserId: str,
    approverIds: list(str),
    stepApproverIds: list(str),
    commentCount: int32,
    emergencyAccess: bool,
    analysisId: str,
    insightIds: list(str),
    recommendation: enumOf(InsightRecommendation),
    revocationTargets: list(revocationTarget),
    externalRefs: list(externalRef),
    annotations: list(jsonObject),
    data: nullable(jsonObject),
    createdAt: timestamp,
    updatedAt: timestamp,
    deletedAt: timestamp,
  };
}

/**
 * Decodes a wire Task, collecting every problem with its JSONPath. Absent fields get their defaults;
 * int64s given as safe-integer numbers become decimal strings.
 *
 * @example
 * ```ts
 * const r = decodeTask({ id: "t1", numericId: "1001", type: { grant: { appId: "app-aws" } } });
 * if (r.ok) r.value.type?.kind; // "grant"
 * else r.error; // [{ code, path: "$.…", message }]
 * ```
 */
export function decodeTask(json: unknown): Result<Task, Diagnostic[]> {
  return runDecode(taskCodec, json);
}

/**
 * Encodes a Task as the service's wire JSON: every field present, oneofs as their one member,
 * unknown fields and variants written back as they came.
 *
 * @example
 * ```ts
 * const task = [...world.tasks.values()][0];
 * if (task) JSON.stringify(encodeTask(task)); // the task as the API writes it
 * ```
 */
export function encodeTask(task: Task): JsonValue {
  return taskCodec.encode(task);
}
