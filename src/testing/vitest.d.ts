// Types the policy matchers on vitest's `expect`. A project that uses them adds these lines to a
// .d.ts of its own, importing PolicyMatchers from "policy-sim/testing".
import type { PolicyMatchers } from "./matchers.js";

declare module "vitest" {
  // vitest's own declaration is `Matchers<T = any>`; restating the default here would need `any`.
  interface Matchers<T> extends PolicyMatchers<T> {}
}
