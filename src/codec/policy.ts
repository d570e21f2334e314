/**
 * Codec of policies (spec, "Policy").
 */
import { PolicyScopeSlot, PolicyType } from "../model/enums.js";
import type { JsonValue } from "../model/json.js";
import type { Policy, PolicyPostAction, PolicyScope, PolicySteps, Rule } from "../model/policy.js";
import type { Result } from "../result.js";
import type { Diagnostic } from "./diagnostic.js";
import { policyStepCodec } from "./policy-step.js";
import { type Codec, bool, enumOf, list, map, message, nullable, omitEmpty, runDecode, str, timestamp } from "./schema.js";

const policySteps = message<PolicySteps>({ steps: list(policyStepCodec) });

// stepKey and policyId are a oneof on the wire: the service writes only the one that is set.
const rule = message<Rule>(
  { condition: str, stepKey: omitEmpty(str), policyId: omitEmpty(str), policyKey: str },
  {
    check: (r) =>
      r.stepKey !== "" && r.policyId !== ""
        ? { code: "ONEOF_CONFLICT", message: 'oneof "outcome" has more than one member set: "stepKey" and "policyId"' }
        : undefined,
  },
);

const postAction = message<PolicyPostAction>({ certifyRemediateImmediately: bool });

const scope = message<PolicyScope>({ appEntitlementId: str, appId: str, slot: enumOf(PolicyScopeSlot) });

/**
 * Codec of {@link Policy}.
 *
 * @example
 * ```ts
 * const fields = { policy: nullable(policyCodec) };
 * ```
 */
export const policyCodec: Codec<Policy> = message<Policy>({
  id: str,
  displayName: str,
  description: str,
  policyType: enumOf(PolicyType),
  policySteps: map(policySteps),
  rules: list(rule),
  baselinePolicyId: str,
  postActions: list(postAction),
  scope: nullable(scope),
  annotations: map(str),
  reassignTasksToDelegates: bool,
  systemBuiltin: bool,
  createdAt: timestamp,
  updatedAt: timestamp,
  deletedAt: timestamp,
});

/**
 * Decodes a wire Policy, collecting every problem with its JSONPath.
 *
 * @example
 * ```ts
 * const r = decodePolicy({ id: "pol-1", policyType: "POLICY_TYPE_GRANT",
 *   policySteps: { grant: { steps: [{ accept: {} }] } } });
 * if (r.ok) r.value.policySteps?.["grant"]?.steps?.[0]?.kind; // "accept"
 * ```
 */
export function decodePolicy(json: unknown): Result<Policy, Diagnostic[]> {
  return runDecode(policyCodec, json);
}

/**
 * Encodes a Policy as the service's wire JSON.
 *
 * @example
 * ```ts
 * const wire = encodePolicy(policy); // every field present, oneofs as their one member
 * ```
 */
export function encodePolicy(policy: Policy): JsonValue {
  return policyCodec.encode(policy);
}
