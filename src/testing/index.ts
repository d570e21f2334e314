/**
 * `policy-sim/testing`: what a policy author's test suite needs — fast-check arbitraries for every
 * model type (wire documents the service could send, and the decoded model values), and a seeded
 * generator of large consistent worlds. Needs `fast-check` (a peer dependency of this subpath).
 *
 * @example
 * ```ts
 * import fc from "fast-check";
 * import { arbWireTask, syntheticWorld } from "policy-sim/testing";
 * fc.assert(fc.property(arbWireTask, (json) => decodeTask(json).ok));
 * const big = syntheticWorld({ seed: 7, tasks: 100_000 });
 * ```
 * @packageDocumentation
 */
export {
  arbCommentRequest,
  arbCommentResponse,
  arbDurationString,
  arbForm,
  arbHardResetRequest,
  arbHardResetResponse,
  arbPolicy,
  arbPolicyInstance,
  arbPolicyStep,
  arbRfc3339,
  arbTask,
  arbTaskView,
  arbUnknownEnumMember,
  arbWireCommentRequest,
  arbWireCommentResponse,
  arbWireForm,
  arbWireHardResetRequest,
  arbWireHardResetResponse,
  arbWireOf,
  arbWirePolicy,
  arbWirePolicyInstance,
  arbWirePolicyStep,
  arbWireTask,
  arbWireTaskView,
  jsonEqual,
} from "./arbitraries.js";
export { syntheticWorld } from "./synthetic-world.js";
export type { SyntheticWorldOptions, WorldJson } from "./synthetic-world.js";
