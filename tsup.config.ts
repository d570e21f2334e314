import { defineConfig } from "tsup";

export default defineConfig({
  entry: {
    index: "src/index.ts",
    http: "src/http/index.ts",
    testing: "src/testing/index.ts",
    "testing-arbitraries": "src/testing/arbitraries-entry.ts",
    repl: "src/repl/index.ts",
    "whatif-pool": "src/whatif-pool/index.ts",
    pull: "src/pull/index.ts",
    // Started by whatif-pool as a thread, found next to it by name.
    "whatif-pool-worker": "src/whatif-pool/worker.ts",
    cli: "src/cli/main.ts",
  },
  format: ["esm", "cjs"],
  dts: {
    entry: { index: "src/index.ts", http: "src/http/index.ts", testing: "src/testing/index.ts", "testing-arbitraries": "src/testing/arbitraries-entry.ts", repl: "src/repl/index.ts", "whatif-pool": "src/whatif-pool/index.ts", pull: "src/pull/index.ts" },
  },
  // import.meta.url in the CommonJS build (whatif-pool finds its thread's script next to itself).
  shims: true,
  clean: true,
  sourcemap: true,
  target: "node20",
});
