import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// POLICY_SIM_DIST=1 runs the suites that import "policy-sim" against the built bundle instead of src/.
const dist = process.env["POLICY_SIM_DIST"] === "1";
const root = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  resolve: {
    alias: dist
      ? [
          { find: /^policy-sim$/, replacement: root("./dist/index.js") },
          { find: /^policy-sim\/testing\/arbitraries$/, replacement: root("./dist/testing-arbitraries.js") },
          { find: /^policy-sim\/(http|testing|repl|whatif-pool)$/, replacement: root("./dist/$1.js") },
        ]
      : [
          { find: /^policy-sim$/, replacement: root("./src/index.ts") },
          { find: /^policy-sim\/testing\/arbitraries$/, replacement: root("./src/testing/arbitraries-entry.ts") },
          { find: /^policy-sim\/(http|testing|repl|whatif-pool)$/, replacement: root("./src/$1/index.ts") },
        ],
  },
  test: {
    include: dist ? ["test/**/*.test.ts"] : ["src/**/*.test.ts", "test/**/*.test.ts"],
    // One notice when ../shared/reference is missing (a clone on its own): see the file.
    globalSetup: ["./test/reference-notice.global-setup.ts"],
    // A test that leaves a key on a built-in prototype fails by name (see the file).
    setupFiles: ["./test/prototype-guard.setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
