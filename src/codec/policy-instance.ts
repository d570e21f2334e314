/**
 * Codec of the policy a task carries (spec, "PolicyInstance").
 */
import type { JsonValue } from "../model/json.js";
import type { PolicyInstance } from "../model/policy-instance.js";
import type { Result } from "../result.js";
import type { Diagnostic } from "./diagnostic.js";
import { policyStepCodec } from "./policy-step.js";
import { policyCodec } from "./policy.js";
import { appendLog, type Codec, encodedOnce, type FieldSpecs, list, message, nullable, opt, runDecode } from "./schema.js";
import { policyStepInstanceCodec, sharedPolicyStepInstanceCodec } from "./step-instance.js";

/**
 * Codec of {@link PolicyInstance}.
 *
 * @example
 * ```ts
 * const fields = { policy: nullable(policyInstanceCodec) };
 * ```
 */
export const policyInstanceCodec: Codec<PolicyInstance> = message<PolicyInstance>(policyInstanceFields(false));

/**
 * Codec of {@link PolicyInstance} as task views carry it: the same wire JSON, but the frozen parts
 * (a loaded world's policy snapshot, step definitions and past steps) are encoded once each and
 * their JSON shared by every response that carries them (see {@link encodedOnce}). Responses are
 * the hot path: a Hard Reset otherwise spends about half its time writing out a policy that never
 * changes.
 *
 * @example
 * ```ts
 * const fields = { policy: nullable(sharedSnapshotInstanceCodec) };
 * ```
 */
export const sharedSnapshotInstanceCodec: Codec<PolicyInstance> = message<PolicyInstance>(policyInstanceFields(true));

function policyInstanceFields(shared: boolean): FieldSpecs<PolicyInstance> {
  return {
    current: nullable(shared ? encodedOnce(sharedPolicyStepInstanceCodec) : policyStepInstanceCodec),
    history: appendLog(shared ? encodedOnce(sharedPolicyStepInstanceCodec) : policyStepInstanceCodec),
    next: list(shared ? encodedOnce(policyStepCodec) : policyStepCodec),
    policy: nullable(shared ? encodedOnce(policyCodec) : policyCodec),
    // (sim) The chain snapshot: written when set (world files); task views leave it out.
    referencedPolicies: opt(list(shared ? encodedOnce(policyCodec) : policyCodec)),
  };
}

/**
 * Decodes a wire PolicyInstance.
 *
 * @example
 * ```ts
 * const r = decodePolicyInstance({ current: { id: "s1", accept: {} }, history: [], next: [], policy: null });
 * if (r.ok) r.value.current?.instance?.kind; // "accept"
 * ```
 */
export function decodePolicyInstance(json: unknown): Result<PolicyInstance, Diagnostic[]> {
  return runDecode(policyInstanceCodec, json);
}

/**
 * Encodes a PolicyInstance as wire JSON.
 *
 * @example
 * ```ts
 * encodePolicyInstance({ current: null, history: null, next: null, policy: null });
 * // { current: null, history: null, next: null, policy: null }
 * ```
 */
export function encodePolicyInstance(instance: PolicyInstance): JsonValue {
  return policyInstanceCodec.encode(instance);
}
