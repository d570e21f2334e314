/**
 * The wire codec: `decode*` turns untrusted JSON into the model or returns every problem with its
 * JSONPath; `encode*` writes the service's exact wire JSON. See README.md for the normalisation rules.
 *
 * @example
 * ```ts
 * import { decodeTask, encodeTask } from "./codec/index.js";
 * const r = decodeTask(JSON.parse(body));
 * if (r.ok) JSON.stringify(encodeTask(r.value));
 * ```
 * @packageDocumentation
 */
export type { Diagnostic, DiagnosticCode } from "./diagnostic.js";
export { jsonText, markSharedJson } from "./json-text.js";
export { decodeForm, encodeForm } from "./form.js";
export { decodePolicyInstance, encodePolicyInstance } from "./policy-instance.js";
export { decodePolicyStep, encodePolicyStep } from "./policy-step.js";
export { decodePolicy, encodePolicy } from "./policy.js";
export {
  decodeCommentRequest,
  decodeCommentResponse,
  decodeHardResetRequest,
  decodeHardResetResponse,
  encodeCommentRequest,
  encodeCommentResponse,
  encodeHardResetRequest,
  encodeHardResetResponse,
} from "./task-actions.js";
export { decodeTaskView, encodeTaskView } from "./task-view.js";
export { decodeTask, encodeTask } from "./task.js";
