/**
 * Types for the policy matchers on vitest's assertions: `expect(world).toRoute(…)`. Opt-in and
 * types only — nothing imports vitest at run time — so `policy-sim/testing` stays usable without
 * vitest, and a project without vitest never resolves the module augmented here.
 *
 * In this repository the file is part of the compilation (tsconfig includes `src`). A project using
 * the published package adds the same two lines to a `.d.ts` of its own (or, once shipped, imports
 * this file's published copy):
 *
 * @example
 * ```ts
 * // vitest-env.d.ts
 * import type { PolicyMatchers } from "policy-sim/testing";
 * declare module "vitest" { interface Matchers<T> extends PolicyMatchers<T> {} }
 * ```
 */
import type { PolicyMatchers } from "./matchers.js";

declare module "vitest" {
  // vitest's `Assertion<T>` extends `Matchers<T>`; augmenting `Assertion` itself through vitest's
  // re-export does not take effect. vitest declares `Matchers<T = any>`: a restated default would
  // need `any`, and a declaration without one is accepted.
  interface Matchers<T> extends PolicyMatchers<T> {}
}
