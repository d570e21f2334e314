// The pool's thread when policy-sim runs from source (its tests): TypeScript through tsx. The
// built package starts dist/whatif-pool-worker.js instead.
import { register } from "tsx/esm/api";

register();
await import("./worker.ts");
