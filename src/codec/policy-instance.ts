/**
 * Codec of the policy a task carries (spec, "PolicyInstance").
 */
import type { JsonValue } from "../model/json.js";
import type { PolicyInstance } from "../model/policy-instance.js";
import type { Result } from "../result.js";
import type { Diagnostic } from "./diagnostic.js";
import { policyStepCodec } from "./policy-step.js";
import { policyCodec } from "./policy.js";
import { type Codec, list, message, nullable, runDecode } from "./schema.js";
import { policyStepInstanceCodec } from "./step-instance.js";

/**
 * Codec of {@link PolicyInstance}.
 *
 * @example
 * ```ts
 * const fields = { policy: nullable(policyInstanceCodec) };
 * ```
 */
export const policyInstanceCodec: Codec<PolicyInstance> = message<PolicyInstance>({
  current: nullable(policyStepInstanceCodec),
  history: list(policyStepInstanceCodec),
  next: list(policyStepCodec),
  policy: nullable(policyCodec),
});

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
